//! WebP textures (`EXT_texture_webp`, required, no fallback) through the importer's real
//! path: a GLB whose one image is the input (a buffer view with `image/webp`), on a textured
//! quad, imported (size limits, the `image` crate's WebP decoder inside containment, mip
//! chain) and drawn. Seeds: lossless and lossy WebP files (`seed.sh`).
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let file = Path::new("/nonexistent-plumb-fuzz/texture.glb");
    plumb_fuzz::import_and_draw(&plumb_fuzz::textured_quad(data, "image/webp", Some("EXT_texture_webp")), file);
});
