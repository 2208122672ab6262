//! Basis Universal KTX2 textures (`KHR_texture_basisu`, required, no fallback) through the
//! importer's real path: a GLB whose one image is the input (a buffer view with
//! `image/ktx2`), on a textured quad, imported (at most 1,024 texels a side here:
//! `texture_fuzz_options`; the KTX2 header read and the size and budget checked before
//! anything is transcoded, every level transcoded to RGBA8 inside
//! containment, the file's mip levels checked as a chain) and drawn. Seeds: the small KTX2
//! files of the shared models and `seeds/ktx2_texture` (`seed.sh`). Mutated by
//! `plumb_fuzz::mutate::ktx2`, which keeps the header and level index consistent.
#![no_main]

use std::path::Path;

use libfuzzer_sys::{fuzz_mutator, fuzz_target};

fuzz_target!(|data: &[u8]| {
    let file = Path::new("/nonexistent-plumb-fuzz/texture.glb");
    let glb = plumb_fuzz::textured_quad(data, "image/ktx2", Some("KHR_texture_basisu"));
    plumb_fuzz::import_and_draw_with(&glb, file, &plumb_fuzz::texture_fuzz_options());
});

// Structure-aware mutations (`plumb_fuzz::mutate::ktx2`): the container stays consistent, so
// mutated inputs get past its checks to the decoder.
fuzz_mutator!(|data: &mut [u8], size: usize, max_size: usize, seed: u32| {
    plumb_fuzz::libfuzzer_mutate(data, size, max_size, seed, plumb_fuzz::mutate::ktx2)
});
