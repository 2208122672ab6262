//! glTF JSON (with `data:` URIs; external files resolve in a folder that does not exist):
//! import, apply materials, draw.
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    plumb_fuzz::import_and_draw(data, Path::new("/nonexistent-plumb-fuzz/model.gltf"));
});
