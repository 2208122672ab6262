//! Structure-aware mutators for the `ktx2_texture` and `draco` targets (issue 50, class 8).
//!
//! libFuzzer's byte mutations rarely keep a container intact: one inserted byte in a KTX2
//! file moves every level away from the offset its index gives, and almost every input then
//! ends in the header check, never in the transcoder. These mutators know the wrappers:
//!
//! * **KTX2:** a header field or a level-index field set to a value that matters (0, 1,
//!   neighbours, doubles, halves, 2⁶², the file's length, …); one level's payload mutated by
//!   the byte mutator and spliced back, with its `byteLength` and every offset behind it
//!   moved, so the file stays consistent and the payload reaches the Zstandard decoder and
//!   the transcoder; a Zstandard frame header's fields; the data format descriptor's colour
//!   model. Now and then the whole file, as libFuzzer would.
//! * **Draco:** the target's input is a selector byte and the stream. The stream's 11-byte
//!   header (`DRACO`, version, encoder type and method, flags) is kept well-formed or set to
//!   a known combination, and the mutation goes to the body: the byte mutator on the body
//!   only, or a count (LEB128 or 32-bit) written at a random place.
//!
//! Plain `std`, no fuzzing crate: the byte mutator is passed in (libFuzzer's in the targets, a
//! simple one in `scene/tests/it/fuzz_mutators.rs`, which includes this very file and checks
//! that the splices keep every level inside the file).

/// A small deterministic generator (SplitMix64) seeded by libFuzzer's seed, so that a
/// mutation is reproducible from the seed.
pub struct Rng(u64);

impl Rng {
    /// A generator for `seed`.
    pub fn new(seed: u32) -> Self {
        Rng(u64::from(seed) ^ 0x9E37_79B9_7F4A_7C15)
    }

    /// The next 64 random bits.
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
}

/// The byte mutator: mutates the vector in place, to at most the given length.
pub type ByteMutator<'a> = dyn FnMut(&mut Vec<u8>, usize) + 'a;

/// A value for a 64-bit field that was `current`, in a file of `len` bytes.
fn interesting(rng: &mut Rng, current: u64, len: u64) -> u64 {
    match rng.below(16) {
        0 => 0,
        1 => 1,
        2 => current.wrapping_add(1),
        3 => current.wrapping_sub(1),
        4 => current.wrapping_mul(2),
        5 => current / 2,
        6 => u64::from(u32::MAX),
        7 => 1 << 31,
        8 => 1 << 62,
        9 => u64::MAX,
        10 => len,
        11 => len.wrapping_sub(current),
        12 => 1 << (rng.below(40) as u32),
        13 => current ^ (1 << rng.below(64)),
        14 => 16 * (1 + rng.below(64) as u64),
        _ => rng.next(),
    }
}

fn read_u32(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(b.get(at..at + 4)?.try_into().ok()?))
}

fn read_u64(b: &[u8], at: usize) -> Option<u64> {
    Some(u64::from_le_bytes(b.get(at..at + 8)?.try_into().ok()?))
}

fn write_u32(b: &mut [u8], at: usize, v: u32) {
    if let Some(s) = b.get_mut(at..at + 4) {
        s.copy_from_slice(&v.to_le_bytes());
    }
}

fn write_u64(b: &mut [u8], at: usize, v: u64) {
    if let Some(s) = b.get_mut(at..at + 8) {
        s.copy_from_slice(&v.to_le_bytes());
    }
}

/// The twelve bytes a KTX2 file starts with.
const KTX2_MAGIC: [u8; 12] = [
    0xAB, b'K', b'T', b'X', b' ', b'2', b'0', 0xBB, 0x0D, 0x0A, 0x1A, 0x0A,
];

/// The KTX2 header's 32-bit fields (`vkFormat` … `kvdByteLength`), by offset.
const KTX2_U32_FIELDS: [usize; 13] = [12, 16, 20, 24, 28, 32, 36, 40, 44, 48, 52, 56, 60];

/// The levels of `file`'s index that lie inside the file (at most `levelCount`).
fn ktx2_levels(file: &[u8]) -> usize {
    let declared = read_u32(file, 40).unwrap_or(0) as usize;
    declared.min(file.len().saturating_sub(80) / 24)
}

/// Replaces `file[at..at + old_len]` by `new` and moves every offset the KTX2 header and
/// level index give that lies at or past the old end (levels, DFD, KVD, SGD), so that they
/// still name the same bytes. Level `level`'s `byteLength` becomes `new.len()`.
pub fn ktx2_splice(file: &mut Vec<u8>, level: usize, at: usize, old_len: usize, new: &[u8]) {
    let end = at + old_len;
    let moved = |offset: u64| -> u64 {
        if offset >= end as u64 {
            offset
                .wrapping_add(new.len() as u64)
                .wrapping_sub(old_len as u64)
        } else {
            offset
        }
    };
    for i in 0..ktx2_levels(file) {
        let o = 80 + 24 * i;
        if i != level {
            if let Some(offset) = read_u64(file, o) {
                write_u64(file, o, moved(offset));
            }
        }
    }
    for o in [48, 56] {
        if let Some(offset) = read_u32(file, o) {
            write_u32(file, o, moved(u64::from(offset)) as u32);
        }
    }
    if let Some(offset) = read_u64(file, 64) {
        write_u64(file, 64, moved(offset));
    }
    write_u64(file, 80 + 24 * level + 8, new.len() as u64);
    file.splice(at..end, new.iter().copied());
}

/// One structure-aware mutation of a KTX2 file, at most `max_len` bytes long after it.
/// Anything that is not a KTX2 file with a level index goes to `bytes` whole.
pub fn ktx2(file: &mut Vec<u8>, max_len: usize, rng: &mut Rng, bytes: &mut ByteMutator) {
    let levels = ktx2_levels(file);
    if !file.starts_with(&KTX2_MAGIC) || levels == 0 || rng.below(10) == 0 {
        bytes(file, max_len);
        return;
    }
    let len = file.len() as u64;
    let level = rng.below(levels);
    let entry = 80 + 24 * level;
    let (offset, length) = (
        read_u64(file, entry).unwrap_or(0),
        read_u64(file, entry + 8).unwrap_or(0),
    );
    let payload = usize::try_from(offset)
        .ok()
        .zip(usize::try_from(length).ok())
        .filter(|&(o, l)| o.checked_add(l).is_some_and(|e| e <= file.len()));
    match rng.below(8) {
        // A header field.
        0 => {
            let at = KTX2_U32_FIELDS[rng.below(KTX2_U32_FIELDS.len())];
            let current = u64::from(read_u32(file, at).unwrap_or(0));
            write_u32(file, at, interesting(rng, current, len) as u32);
        }
        // A level-index field: offset, length or uncompressed length.
        1 | 2 => {
            let at = entry + 8 * rng.below(3);
            let current = read_u64(file, at).unwrap_or(0);
            write_u64(file, at, interesting(rng, current, len));
        }
        // A Zstandard frame header: the descriptor, the window byte, the content size.
        3 if payload.is_some_and(|(o, l)| l >= 6 && file[o..o + 4] == [0x28, 0xB5, 0x2F, 0xFD]) => {
            let (o, l) = payload.unwrap_or_default();
            let at = o + 4 + rng.below(l.min(14) - 4);
            file[at] = match rng.below(4) {
                0 => 0,
                1 => 0xFF,
                2 => file[at] ^ (1 << rng.below(8)),
                _ => rng.next() as u8,
            };
        }
        // The data format descriptor's colour model: ETC1S, UASTC or anything.
        4 => {
            let at = read_u32(file, 48).unwrap_or(0) as usize + 12;
            if let Some(b) = file.get_mut(at) {
                *b = [163, 166, rng.next() as u8][rng.below(3)];
            }
        }
        // The payload of one level, mutated and spliced back.
        _ => {
            let Some((o, l)) = payload else {
                bytes(file, max_len);
                return;
            };
            let mut part = file[o..o + l].to_vec();
            let room = max_len.saturating_sub(file.len() - l);
            bytes(&mut part, room);
            ktx2_splice(file, level, o, l, &part);
        }
    }
    file.truncate(max_len);
}

/// Draco bitstream versions (major, minor) the decoders know, and two they do not.
const DRACO_VERSIONS: [(u8, u8); 9] = [
    (1, 0),
    (1, 1),
    (1, 2),
    (1, 3),
    (2, 0),
    (2, 1),
    (2, 2),
    (2, 3),
    (3, 0),
];

/// Bytes of a Draco header: `DRACO`, major, minor, encoder type, method, 16-bit flags.
const DRACO_HEADER: usize = 11;

/// One structure-aware mutation of the `draco` target's input (a selector byte, then the
/// stream), at most `max_len` bytes long after it. An input whose stream does not start with
/// `DRACO` goes to `bytes` whole.
pub fn draco(input: &mut Vec<u8>, max_len: usize, rng: &mut Rng, bytes: &mut ByteMutator) {
    let body = 1 + DRACO_HEADER;
    if input.len() < body || &input[1..6] != b"DRACO" || rng.below(10) == 0 {
        bytes(input, max_len);
        return;
    }
    match rng.below(8) {
        // The selector: which attributes, ids, mode.
        0 => input[0] = rng.next() as u8,
        // The header: a version, an encoder type (point cloud, mesh), a method (sequential,
        // EdgeBreaker), flags (metadata or none), each now and then anything.
        1 => {
            let (major, minor) = DRACO_VERSIONS[rng.below(DRACO_VERSIONS.len())];
            input[6] = major;
            input[7] = minor;
            input[8] = [0, 1, rng.next() as u8][rng.below(3)];
            input[9] = [0, 1, rng.next() as u8][rng.below(3)];
            let flags: u16 = [0, 0x8000, rng.next() as u16][rng.below(3)];
            input[10..12].copy_from_slice(&flags.to_le_bytes());
        }
        // A count in the body: LEB128 (Draco's varints) or 32-bit little-endian.
        2 | 3 if input.len() > body => {
            let at = body + rng.below(input.len() - body);
            let current = u64::from(input[at]);
            let v = interesting(rng, current, input.len() as u64);
            if rng.below(2) == 0 {
                let mut leb = Vec::new();
                let mut v = v & 0xFFFF_FFFF;
                loop {
                    let b = (v & 0x7F) as u8;
                    v >>= 7;
                    if v == 0 {
                        leb.push(b);
                        break;
                    }
                    leb.push(b | 0x80);
                }
                let end = (at + leb.len()).min(input.len());
                input.splice(at..end, leb);
            } else {
                let end = (at + 4).min(input.len());
                let v = (v as u32).to_le_bytes();
                input[at..end].copy_from_slice(&v[..end - at]);
            }
        }
        // The body, mutated by the byte mutator; the header stays.
        _ => {
            let mut rest = input.split_off(body);
            bytes(&mut rest, max_len.saturating_sub(body));
            input.extend_from_slice(&rest);
        }
    }
    input.truncate(max_len);
}
