//! OBJ + MTL: the input is `obj <0xFF 0xFE> mtl`, written as `model.obj` and `model.mtl` in a
//! scratch folder (the OBJ may name the MTL with `mtllib model.mtl`); load, apply, draw.
#![no_main]

use libfuzzer_sys::fuzz_target;
use plumb_scene::io::{obj, ImportOptions};

fuzz_target!(|data: &[u8]| {
    let (obj_bytes, mtl_bytes) = plumb_fuzz::split(data, b"\xFF\xFE");
    let dir = plumb_fuzz::scratch_dir();
    let obj_path = dir.join("model.obj");
    if std::fs::write(&obj_path, obj_bytes).is_err()
        || std::fs::write(dir.join("model.mtl"), mtl_bytes).is_err()
    {
        return;
    }
    if let Ok(loaded) = obj::load_obj(&obj_path, &ImportOptions::default()) {
        plumb_fuzz::draw_imported(loaded);
    }
});
