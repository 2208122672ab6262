//! PNG textures through the importer's real path: a GLB whose one image is the input (a
//! buffer view with `image/png`), on a textured quad, imported (chunk checks, size limits,
//! decode, mip chain) and drawn.
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let file = Path::new("/nonexistent-plumb-fuzz/texture.glb");
    plumb_fuzz::import_and_draw(&plumb_fuzz::textured_quad(data, "image/png", None), file);
});
