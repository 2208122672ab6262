//! Issue 50, class 1: a size a file declares is checked and charged before anything is
//! allocated or decompressed. A KTX2 level (in a GLB, `KHR_texture_basisu`) is a Zstandard
//! frame inflated into a buffer of the level's declared `uncompressedByteLength`: before the
//! fix, 2⁶² aborted the process (`memory allocation of 4611686018427387904 bytes failed`,
//! which takes this whole test binary down), and 1 GiB over a stream of RLE blocks that
//! really yields it was decoded (gigabytes, seconds). Now each is a one-line
//! `IoError::Image` naming the file, the image and the field, in milliseconds.

use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::gltf_builder::{temp_dir, triangle, write, Builder};
use crate::ktx2_builder::{uastc, Level};
use plumb_raster::texture::Texture;
use plumb_scene::io::{self, ImportOptions};
use serde_json::json;

/// A GLB of a triangle whose material's base colour is `ktx2` (`KHR_texture_basisu`).
fn glb_with_ktx2(ktx2: &[u8]) -> Vec<u8> {
    let mut b = Builder::default();
    let mut d = triangle(&mut b);
    let view = b.view(ktx2, None);
    d["images"] = json!([{"bufferView": view, "mimeType": "image/ktx2"}]);
    d["textures"] = json!([{"extensions": {"KHR_texture_basisu": {"source": 0}}}]);
    d["materials"] = json!([{"pbrMetallicRoughness": {"baseColorTexture": {"index": 0}}}]);
    d["meshes"][0]["primitives"][0]["material"] = json!(0);
    d["extensionsUsed"] = json!(["KHR_texture_basisu"]);
    d["extensionsRequired"] = json!(["KHR_texture_basisu"]);
    b.glb(d)
}

/// Loads `ktx2` in a GLB and returns the one-line error, checking it names the file and the
/// image and came quickly.
fn refused(name: &str, ktx2: &[u8], options: &ImportOptions) -> String {
    let dir = temp_dir(name);
    let p = write(&dir, "t.glb", glb_with_ktx2(ktx2));
    let start = Instant::now();
    let e = io::load(&p, options).expect_err("must be refused");
    let took = start.elapsed();
    let m = e.to_string();
    assert!(m.starts_with(&p.display().to_string()), "{m}");
    assert!(m.contains("image 0") && !m.contains(['\n', '\r']), "{m}");
    assert!(took < Duration::from_secs(2), "{name} took {took:?}: {m}");
    m
}

#[test]
fn ktx2_level_declaring_2_pow_62_bytes_is_refused_before_allocating() {
    let ktx2 = uastc(
        64,
        64,
        &[Level::ZstdDeclaring {
            frame_content: 1 << 62,
            uncompressed: 1 << 62,
        }],
        [200, 100, 50, 255],
    );
    assert!(ktx2.len() < 8 << 10);
    let m = refused("ktx2-2-62", &ktx2, &ImportOptions::default());
    assert!(
        m.contains("level 0 uncompressedByteLength is 4611686018427387904")
            && m.contains("64x64 UASTC level is 4096 bytes"),
        "{m}"
    );
}

#[test]
fn ktx2_64x64_level_declaring_1_gib_is_refused_before_decompressing() {
    // 8192 RLE blocks of 128 KiB: a 32 KiB stream that really yields 1 GiB.
    let ktx2 = uastc(
        64,
        64,
        &[Level::ZstdRle {
            blocks: 8192,
            byte: 0x17,
            uncompressed: 1 << 30,
        }],
        [0; 4],
    );
    assert!(ktx2.len() < 40 << 10);
    let m = refused("ktx2-1gib", &ktx2, &ImportOptions::default());
    assert!(
        m.contains("level 0 uncompressedByteLength is 1073741824"),
        "{m}"
    );
}

#[test]
fn ktx2_frame_disagreeing_with_its_level_is_refused() {
    // The level declares its true size; the frame's header declares 2^40.
    let ktx2 = uastc(
        8,
        8,
        &[Level::ZstdDeclaring {
            frame_content: 1 << 40,
            uncompressed: 64,
        }],
        [1, 2, 3, 4],
    );
    let m = refused("ktx2-frame", &ktx2, &ImportOptions::default());
    assert!(
        m.contains("level 0: the Zstandard frame declares 1099511627776 bytes"),
        "{m}"
    );
}

#[test]
fn ktx2_with_more_levels_than_a_mip_chain_is_refused() {
    // 14 levels on a 64x64 base (a chain has 7), each declaring 1 GiB: 25 s and 2.5 GB
    // before the fix.
    let level = Level::ZstdRle {
        blocks: 8192,
        byte: 0,
        uncompressed: 1 << 30,
    };
    let ktx2 = uastc(64, 64, &vec![level; 14], [0; 4]);
    let m = refused("ktx2-14", &ktx2, &ImportOptions::default());
    assert!(
        m.contains("levelCount is 14; a 64x64 texture has 1 to 7"),
        "{m}"
    );
}

#[test]
fn ktx2_level_past_the_file_is_refused() {
    let mut ktx2 = uastc(8, 8, &[Level::Raw], [9; 4]);
    // Level 0's byteLength (at 80 + 8): 2^63.
    ktx2[88..96].copy_from_slice(&(1u64 << 63).to_le_bytes());
    let m = refused("ktx2-past", &ktx2, &ImportOptions::default());
    assert!(m.contains("level 0 byteOffset"), "{m}");
}

/// The loaded scene's one base-colour texture.
fn loaded_texture(name: &str, ktx2: &[u8], options: &ImportOptions) -> Arc<Texture> {
    let dir = temp_dir(name);
    let p = write(&dir, "t.glb", glb_with_ktx2(ktx2));
    let loaded = io::load(&p, options).unwrap_or_else(|e| panic!("{name}: {e}"));
    loaded
        .imported
        .materials
        .values()
        .find_map(|m| m.base_color_texture.as_ref())
        .map(|t| Arc::clone(&t.texture))
        .expect("a base colour texture")
}

#[test]
fn honest_uastc_ktx2_files_decode_and_are_charged_their_scratch() {
    let c = [200, 100, 50, 255];
    let raw = uastc(16, 8, &[Level::Raw], c);
    let t = loaded_texture("ktx2-raw", &raw, &ImportOptions::default());
    assert_eq!((t.width(), t.height(), t.level_count()), (16, 8, 5));
    assert_eq!(t.level(0).unwrap().texel(5, 3), Some(c));
    let zstd = uastc(16, 8, &[Level::Zstd; 5], c);
    let t = loaded_texture("ktx2-zstd", &zstd, &ImportOptions::default());
    assert_eq!((t.width(), t.height(), t.level_count()), (16, 8, 5));
    assert_eq!(t.level(4).unwrap().texel(0, 0), Some(c));
    // The RGBA8 chain is (128 + 32 + 8 + 2 + 1) × 4 = 684 bytes; the inflated levels
    // (128, 32, 16, 16, 16 bytes) and their frames' windows (the same) are charged too.
    let chain = 684;
    let scratch = 2 * (128 + 32 + 16 + 16 + 16);
    let tight = ImportOptions {
        max_texture_bytes: chain + scratch - 1,
        ..ImportOptions::default()
    };
    let m = refused("ktx2-budget", &zstd, &tight);
    assert!(m.contains(&format!("{}", chain + scratch)), "{m}");
    let enough = ImportOptions {
        max_texture_bytes: chain + scratch,
        ..ImportOptions::default()
    };
    loaded_texture("ktx2-budget-ok", &zstd, &enough);
    // The uncompressed file: no scratch.
    let exact = ImportOptions {
        max_texture_bytes: chain,
        ..ImportOptions::default()
    };
    loaded_texture("ktx2-raw-budget", &raw, &exact);
}

/// `ktx2` with key/value data appended: one `KTXorientation` entry (18 bytes, padded to
/// 20), declared `kvd_length` bytes long.
fn with_kvd(mut ktx2: Vec<u8>, kvd_length: u32) -> Vec<u8> {
    let offset = ktx2.len() as u32;
    ktx2.extend(18u32.to_le_bytes());
    ktx2.extend(b"KTXorientation\0rd\0\0\0");
    ktx2[56..60].copy_from_slice(&offset.to_le_bytes());
    ktx2[60..64].copy_from_slice(&kvd_length.to_le_bytes());
    ktx2
}

/// Key/value data is walked entry by entry before the transcoder sees it: an entry whose
/// padding runs past `kvdByteLength` made the transcoder index past the file (found by the
/// structure-aware KTX2 mutator: a panic plumb contained, so an error, but only by
/// containment); it is refused by name now. The same entry with its padding loads.
#[test]
fn ktx2_key_value_data_is_checked_entry_by_entry() {
    let base = uastc(8, 8, &[Level::Raw], [10, 20, 30, 255]);
    let t = loaded_texture(
        "kvd-ok",
        &with_kvd(base.clone(), 24),
        &ImportOptions::default(),
    );
    assert_eq!((t.width(), t.height()), (8, 8));
    for (length, what) in [
        (22, "does not fit kvdByteLength 22"),
        (1000, "runs past the file"),
    ] {
        let m = refused(
            "kvd-bad",
            &with_kvd(base.clone(), length),
            &ImportOptions::default(),
        );
        assert!(
            m.contains(what) && !m.contains("failed on malformed data"),
            "{m}"
        );
    }
}

/// A UASTC level's size is computed from the declared width and height without overflow: a
/// 4294967295 × 4294967295 base has 2⁶⁰ blocks of 16 bytes, past 64 bits (found by the
/// structure-aware mutator: an overflow panic with overflow checks on, a wrapped size of 0
/// without them). It is refused for its level's size, computed saturating.
#[test]
fn ktx2_of_the_largest_declared_size_does_not_overflow() {
    let mut ktx2 = uastc(8, 8, &[Level::Raw], [1, 2, 3, 255]);
    ktx2[20..24].copy_from_slice(&u32::MAX.to_le_bytes());
    ktx2[24..28].copy_from_slice(&u32::MAX.to_le_bytes());
    let m = refused("ktx2-huge", &ktx2, &ImportOptions::default());
    assert!(
        m.contains("a 4294967295x4294967295 UASTC level is 18446744073709551615 bytes"),
        "{m}"
    );
}
