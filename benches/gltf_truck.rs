//! Loading and rendering a real glTF model (issue 6): the Khronos CesiumMilkTruck, timed as
//! two separate benchmarks — `load` (parse the glTF, read the buffers, decode and mipmap the
//! texture: `io::load`) and `render_1080p` (one 1920×1080 `Scene::draw` with the mapped
//! materials and the default light rig, framed by the CLI's rule, `SoftRenderer` on 2
//! threads; the scene is loaded and mapped once outside the timing).
//!
//! The model is third-party and not in the repository: it is read from
//! `$PLUMB_ASSETS/gltf/khronos/CesiumMilkTruck/glTF/CesiumMilkTruck.gltf`, else from
//! `../shared/assets/...` relative to the repository. Without it the bench prints a skip
//! message and measures nothing. Run: `cargo bench -p plumb-bench --bench gltf_truck`.
#![allow(missing_docs, reason = "criterion_group! generates undocumented items")]

use std::path::PathBuf;

use criterion::{criterion_group, criterion_main, Criterion};
use plumb::scene::io::{self, framing, ImportOptions};
use plumb::scene::SoftRenderer;

const W: u32 = 1920;
const H: u32 = 1080;
const MODEL: &str = "gltf/khronos/CesiumMilkTruck/glTF/CesiumMilkTruck.gltf";

/// The model's path, if the assets are present.
fn model() -> Option<PathBuf> {
    let base = match std::env::var_os("PLUMB_ASSETS") {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/assets"),
    };
    let path = base.join(MODEL);
    path.is_file().then_some(path)
}

fn bench(c: &mut Criterion) {
    let Some(path) = model() else {
        eprintln!(
            "gltf_truck: skipped: {MODEL} not found under $PLUMB_ASSETS or ../shared/assets \
             (the Khronos sample models are not part of the repository)"
        );
        return;
    };
    let options = ImportOptions::default();
    let mut group = c.benchmark_group("gltf_truck");
    group.sample_size(20);
    group.bench_function("load", |b| {
        b.iter(|| io::load(&path, &options).expect("CesiumMilkTruck loads"));
    });

    let io::ImportedScene {
        mut scene,
        imported,
    } = io::load(&path, &options).expect("CesiumMilkTruck loads");
    // `io::load` has mapped the materials and lights already.
    let applied = imported.applied.clone();
    let bound = *scene.world_bound(scene.root()).expect("root");
    let camera =
        framing::frame_bound(&bound, framing::DEFAULT_FOV_Y, W as f32 / H as f32).expect("frames");
    applied
        .place_lights(&mut scene, &imported, &camera)
        .expect("lights");
    let mut renderer = SoftRenderer::new(W, H, Some(2)).expect("renderer");
    group.bench_function("render_1080p", |b| {
        b.iter(|| scene.draw(&camera, &mut renderer).expect("draws"));
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
