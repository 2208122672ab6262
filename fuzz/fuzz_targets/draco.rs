//! `KHR_draco_mesh_compression`: the input's first byte picks a primitive (mode TRIANGLES or
//! POINTS; which attributes the extension lists, with which Draco ids and accessor formats:
//! float, normalized shorts, skin sets); the rest is the Draco stream, the only buffer view
//! (`plumb_fuzz::draco_glb`). The GLB around them is well-formed and its accessors count
//! what the stream decodes to, so every input reaches the decoder and a stream that decodes
//! reaches what plumb does with its output: the checks on ids and component counts, the
//! geometry budget, and the draw. Seeds: the shared models' Draco streams (`seed.sh`).
//! Mutated by `plumb_fuzz::mutate::draco`, which keeps the stream header well-formed and
//! mutates the body.
#![no_main]

use std::path::Path;

use libfuzzer_sys::{fuzz_mutator, fuzz_target};

fuzz_target!(|data: &[u8]| {
    let Some((&pick, stream)) = data.split_first() else {
        return;
    };
    let (points, faces) = plumb_fuzz::draco_counts(stream);
    let glb = plumb_fuzz::draco_glb(pick, stream, points, faces);
    let file = Path::new("/nonexistent-plumb-fuzz/draco.glb");
    let options = plumb_scene::io::ImportOptions {
        max_geometry_bytes: plumb_fuzz::DRACO_FUZZ_GEOMETRY_BYTES,
        ..plumb_scene::io::ImportOptions::default()
    };
    plumb_fuzz::import_and_draw_with(&glb, file, &options);
});

// Structure-aware mutations (`plumb_fuzz::mutate::draco`): the container stays consistent, so
// mutated inputs get past its checks to the decoder.
fuzz_mutator!(|data: &mut [u8], size: usize, max_size: usize, seed: u32| {
    plumb_fuzz::libfuzzer_mutate(data, size, max_size, seed, plumb_fuzz::mutate::draco)
});
