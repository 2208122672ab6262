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
use plumb_fuzz::meshopt::{TRIANGLES, VERTICES};

fuzz_target!(|data: &[u8]| {
    let Some((&pick, input)) = data.split_first() else {
        return;
    };
    let (vertices, indices, extra): (&[u8], &[u8], &[u8]) = match pick % 4 {
        0 => (input, &TRIANGLES, &VERTICES),
        1 | 2 => (&VERTICES, input, &VERTICES),
        _ => (&VERTICES, &TRIANGLES, input),
    };
    let index_mode = if pick % 4 == 2 { "INDICES" } else { "TRIANGLES" };
    let filter = ["NONE", "OCTAHEDRAL", "QUATERNION", "EXPONENTIAL"][usize::from(pick >> 2) % 4];
    let glb = plumb_fuzz::meshopt::quad(vertices, indices, index_mode, extra, filter);
    let file = Path::new("/nonexistent-plumb-fuzz/meshopt.glb");
    plumb_fuzz::import_and_draw(&glb, file);
});
