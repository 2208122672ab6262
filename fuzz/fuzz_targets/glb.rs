//! GLB: the raw bytes as a `.glb` file (first byte odd), or — so that mutations reach the
//! content rather than break the framing — a well-formed container around
//! `json <0xFF 0xFE> bin` (first byte even). Import, apply materials, draw.
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let file = Path::new("/nonexistent-plumb-fuzz/model.glb");
    if mode % 2 == 1 {
        plumb_fuzz::import_and_draw(rest, file);
    } else {
        let (json, bin) = plumb_fuzz::split(rest, b"\xFF\xFE");
        let bin = (!bin.is_empty()).then_some(bin);
        plumb_fuzz::import_and_draw(&plumb_fuzz::glb(json, bin), file);
    }
});
