//! The scene-file loader (JSON): parse, build, draw.
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use plumb_scene::io::{json, ImportOptions};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    // A folder that does not exist: files a scene imports resolve there and fail cleanly.
    let path = Path::new("/nonexistent-plumb-fuzz/scene.json");
    let Ok(doc) = json::parse(path, text) else {
        return;
    };
    let Ok(loaded) = json::build(&doc, path, &ImportOptions::default()) else {
        return;
    };
    plumb_fuzz::draw_imported(loaded);
});
