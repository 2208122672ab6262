//! WebP textures (`EXT_texture_webp`, required, no fallback) through the importer's real
//! path: a GLB whose one image is the input (a buffer view with `image/webp`), on a textured
//! quad, imported (size limits, at most 1,024 texels a side here: `texture_fuzz_options`;
//! the `image` crate's WebP decoder inside containment; the mip chain) and drawn. Seeds: lossless and lossy WebP files (`seed.sh`).
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let file = Path::new("/nonexistent-plumb-fuzz/texture.glb");
    let glb = plumb_fuzz::textured_quad(data, "image/webp", Some("EXT_texture_webp"));
    plumb_fuzz::import_and_draw_with(&glb, file, &plumb_fuzz::texture_fuzz_options());
});
