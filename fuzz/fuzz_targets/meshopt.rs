//! `EXT_meshopt_compression`: a quad whose vertex, index and extra-attribute views are
//! compressed streams in a GLB (the uncompressed views in a fallback buffer without data).
//! The first input byte picks which stream is the rest of the input — the 12-byte vertex
//! stream (`ATTRIBUTES`), the index stream (`TRIANGLES` or `INDICES`), or an 8-byte
//! `TEXCOORD_1` stream under each filter (`NONE`, `OCTAHEDRAL`, `QUATERNION`,
//! `EXPONENTIAL`) — and the others are meshoptimizer's test vectors, so every input reaches
//! the decoder and the importer's use of what it returns. Seeds: the vectors (`seed.sh`).
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some(glb) = plumb_fuzz::meshopt::target_glb(data) else {
        return;
    };
    let file = Path::new("/nonexistent-plumb-fuzz/meshopt.glb");
    plumb_fuzz::import_and_draw(&glb, file);
});
