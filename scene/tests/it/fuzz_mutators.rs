//! Issue 50, class 8: the structure-aware mutators of the `ktx2_texture` and `draco` fuzz
//! targets (`fuzz/src/mutate.rs`, included here as is) keep their containers consistent.
//!
//! A splice of a KTX2 level's payload must move every offset behind it, or each later input
//! ends in the header check again; so a level re-encoded to a longer Zstandard frame and
//! spliced in must still decode to the same texture. And over many mutations, the mutator's
//! outputs must decode (pass every check and the transcoder) at least twice as often as byte
//! edits of the whole file, libFuzzer's simplest mutations, do: 487 and 207 of 2,000 when
//! this was written.

#[path = "../../../fuzz/src/mutate.rs"]
#[allow(
    dead_code,
    reason = "the fuzz crate's module: the targets call what this test does not"
)]
mod mutate;

use crate::fuzz_seeds::{run, Reached};
use crate::ktx2_builder::{level_blocks, uastc, Level};
use mutate::{ByteMutator, Rng};

const KTX2: &str = "image/ktx2";
const BASISU: Option<&str> = Some("KHR_texture_basisu");

/// What libFuzzer's simplest mutations do: one to four edits, each a bit flipped, a byte
/// replaced, inserted or erased, never past `max` bytes.
fn byte_edits(rng: &mut Rng) -> impl FnMut(&mut Vec<u8>, usize) + '_ {
    move |v: &mut Vec<u8>, max: usize| {
        for _ in 0..1 + rng.below(4) {
            let at = rng.below(v.len().max(1));
            match rng.below(4) {
                0 if !v.is_empty() => v[at] ^= 1 << rng.below(8),
                1 if !v.is_empty() => v[at] = rng.next() as u8,
                2 if v.len() < max => v.insert(at.min(v.len()), rng.next() as u8),
                _ if !v.is_empty() => {
                    v.remove(at);
                }
                _ => {}
            }
        }
        v.truncate(max);
    }
}

/// A Zstandard frame of `content` as two raw blocks (the builder's has one): the same
/// content, three bytes longer.
fn two_block_frame(content: &[u8]) -> Vec<u8> {
    let mut f = vec![0x28, 0xB5, 0x2F, 0xFD, 0xA0];
    f.extend((content.len() as u32).to_le_bytes());
    let (a, b) = content.split_at(content.len() / 2);
    for (last, part) in [(0u32, a), (1, b)] {
        f.extend(&(last | ((part.len() as u32) << 3)).to_le_bytes()[..3]);
        f.extend(part);
    }
    f
}

fn u64_at(b: &[u8], at: usize) -> usize {
    u64::from_le_bytes(b[at..at + 8].try_into().unwrap()) as usize
}

#[test]
fn ktx2_splices_move_every_offset_behind_them() {
    let c = [200, 100, 50, 255];
    let file = uastc(16, 8, &[Level::Zstd; 5], c);
    assert_eq!(run(&file, KTX2, BASISU).unwrap(), Reached::Decoded(16, 8));
    for level in 0..5 {
        let (at, len) = (
            u64_at(&file, 80 + 24 * level),
            u64_at(&file, 88 + 24 * level),
        );
        let (w, h) = ((16u32 >> level).max(1), (8u32 >> level).max(1));
        let longer = two_block_frame(&level_blocks(w, h, c));
        let mut spliced = file.clone();
        mutate::ktx2_splice(&mut spliced, level, at, len, &longer);
        assert_eq!(spliced.len(), file.len() + 3, "level {level}");
        assert_eq!(
            run(&spliced, KTX2, BASISU).unwrap(),
            Reached::Decoded(16, 8),
            "level {level} spliced"
        );
        // And back: the shorter frame restores the file byte for byte.
        let back_at = u64_at(&spliced, 80 + 24 * level);
        mutate::ktx2_splice(
            &mut spliced,
            level,
            back_at,
            longer.len(),
            &file[at..at + len],
        );
        assert_eq!(spliced, file, "level {level} spliced back");
    }
}

/// How many of `runs` mutations of `seed` by `mutation` decode to a texture.
fn decoded(seed: &[u8], runs: u32, mutation: &mut dyn FnMut(&mut Vec<u8>, &mut Rng)) -> u32 {
    let mut n = 0;
    for s in 0..runs {
        let mut rng = Rng::new(s);
        let mut m = seed.to_vec();
        mutation(&mut m, &mut rng);
        if matches!(run(&m, KTX2, BASISU), Ok(Reached::Decoded(..))) {
            n += 1;
        }
    }
    n
}

#[test]
fn ktx2_mutations_reach_the_transcoder() {
    let seed = uastc(16, 8, &[Level::Zstd; 5], [200, 100, 50, 255]);
    let runs = 2000;
    let structured = decoded(&seed, runs, &mut |m, rng| {
        let mut edits_rng = Rng::new(rng.next() as u32);
        let edits: &mut ByteMutator = &mut byte_edits(&mut edits_rng);
        mutate::ktx2(m, 1 << 16, rng, edits);
    });
    let blind = decoded(&seed, runs, &mut |m, rng| byte_edits(rng)(m, 1 << 16));
    eprintln!("decoded of {runs}: structured {structured}, blind byte edits {blind}");
    assert!(
        structured >= runs / 10 && structured >= 2 * blind,
        "structured {structured}, blind {blind}"
    );
}

#[test]
fn draco_mutations_keep_the_header() {
    let mut input = vec![0u8];
    input.extend(b"DRACO\x02\x02\x01\x01\x00\x00");
    input.extend((0..64).map(|i| i as u8));
    let runs = 2000;
    let (mut kept, mut changed) = (0, 0);
    for s in 0..runs {
        let mut rng = Rng::new(s);
        let mut edits_rng = Rng::new(s ^ 0xFFFF);
        let mut m = input.clone();
        mutate::draco(&mut m, 1 << 16, &mut rng, &mut byte_edits(&mut edits_rng));
        assert!(m.len() <= 1 << 16);
        if m.get(1..6) == Some(b"DRACO") {
            kept += 1;
        }
        changed += u32::from(m != input);
    }
    // Only the whole-input fallback (one time in ten) may touch the magic.
    assert!(kept >= runs * 85 / 100, "kept {kept} of {runs}");
    assert!(changed >= runs * 95 / 100, "changed {changed} of {runs}");
}
