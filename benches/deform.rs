//! Skinning and morphing cost (issue 12), on the Khronos sample models:
//!
//! * `deform/skin_update/{1,2}_threads`: one `Scene::update(t)` of RecursiveSkeletons, the
//!   largest skinned sample (one mesh bound by 84 skins: 19 152 skinned vertices, positions
//!   and normals), at alternating times so every update re-poses every skin; throughput in
//!   skinned vertices per second. The joints' transforms are posed by the same update from
//!   the file's animation (840 channels), as `plumb render --time` does.
//! * `deform/morph_update/{1,2}_threads`: the same for MorphStressTest (no skinned sample has
//!   morph targets; this is the largest morphed one: eight targets with POSITION and NORMAL),
//!   its "Pulse" clip playing; throughput in morphed vertices per second.
//! * `deform/recursive_skeletons_1080p/{1,2}_threads`: one whole 1920×1080 frame of
//!   RecursiveSkeletons — the update at a time of the animation, then `Scene::draw` with the
//!   CLI's framing and default light rig, `SoftRenderer` on that many threads.
//!
//! "Threads" is the size of the rayon pool the work runs in (and the renderer's thread
//! count). The update runs its controllers one after another on the calling thread, so the
//! two update numbers are expected to match: they show what a second core buys today.
//!
//! The models are third-party and not in the repository: they are read from
//! `$PLUMB_ASSETS/gltf/khronos/...`, else from `../shared/assets/...` relative to the
//! repository. Without them the bench prints a skip message and measures nothing. Run:
//! `cargo bench -p plumb-bench --bench deform`.
#![allow(missing_docs, reason = "criterion_group! generates undocumented items")]

use std::path::PathBuf;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use plumb::scene::io::{self, framing, ImportOptions, ImportedScene};
use plumb::scene::{Scene, SoftRenderer};

const SKINNED: &str = "gltf/khronos/RecursiveSkeletons/glTF/RecursiveSkeletons.gltf";
const MORPHED: &str = "gltf/khronos/MorphStressTest/glTF/MorphStressTest.gltf";
const W: u32 = 1920;
const H: u32 = 1080;

/// A model's path, if the assets are present.
fn model(rel: &str) -> Option<PathBuf> {
    let base = match std::env::var_os("PLUMB_ASSETS") {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/assets"),
    };
    let path = base.join(rel);
    path.is_file().then_some(path)
}

/// The vertices of the geometry leaves that carry a mesh controller, counted from the
/// scene's text dump (a leaf's block lists `mesh controller…` after its header line).
fn deformed_vertices(scene: &Scene) -> u64 {
    let mut total = 0;
    let mut pending = 0;
    for line in scene.dump().lines() {
        let line = line.trim();
        if line.contains("[geometry") {
            pending = line
                .split_whitespace()
                .find_map(|w| w.strip_prefix("vertices="))
                .and_then(|n| n.trim_end_matches(']').parse::<u64>().ok())
                .unwrap_or(0);
        } else if line.starts_with("mesh controller") {
            total += pending;
            pending = 0;
        } else if line.ends_with(']') {
            pending = 0;
        }
    }
    total
}

/// Times `scene.update(t)` at two alternating times, in a pool of 1 and 2 threads.
fn bench_update(c: &mut Criterion, name: &str, scene: &mut Scene, times: [f64; 2]) {
    let vertices = deformed_vertices(scene);
    let mut group = c.benchmark_group("deform");
    group.sample_size(20);
    group.throughput(Throughput::Elements(vertices));
    for threads in [1usize, 2] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .expect("pool");
        let mut k = 0usize;
        group.bench_function(BenchmarkId::new(name, format!("{threads}_threads")), |b| {
            b.iter(|| {
                k += 1;
                pool.install(|| scene.update(times[k % 2]));
            });
        });
    }
    group.finish();
    eprintln!("deform/{name}: {vertices} deformed vertices per update");
}

fn bench(c: &mut Criterion) {
    let (Some(skinned), Some(morphed)) = (model(SKINNED), model(MORPHED)) else {
        eprintln!(
            "deform: skipped: {SKINNED} or {MORPHED} not found under $PLUMB_ASSETS or \
             ../shared/assets (the Khronos sample models are not part of the repository)"
        );
        return;
    };
    let options = ImportOptions::default();

    let ImportedScene {
        mut scene,
        imported,
    } = io::load(&skinned, &options).expect("RecursiveSkeletons loads");
    // The transform animation as controllers, so that the update poses the joints.
    io::add_animation_controllers(&mut scene, &imported.animations).expect("controllers");
    bench_update(c, "skin_update", &mut scene, [0.5, 1.5]);

    // A 1080p frame at t = 1, framed as `plumb render` frames it.
    let rest = framing::geometry_box(&scene).expect("bound");
    let camera =
        framing::frame_bound(&rest, framing::DEFAULT_FOV_Y, W as f32 / H as f32).expect("frames");
    let applied = imported.applied.clone();
    applied
        .place_lights(&mut scene, &imported, &camera)
        .expect("lights");
    let mut group = c.benchmark_group("deform");
    group.sample_size(10);
    for threads in [1usize, 2] {
        let mut renderer = SoftRenderer::new(W, H, Some(threads)).expect("renderer");
        let mut k = 0usize;
        group.bench_function(
            BenchmarkId::new("recursive_skeletons_1080p", format!("{threads}_threads")),
            |b| {
                b.iter(|| {
                    k += 1;
                    scene.update([1.0, 1.25][k % 2]);
                    scene.draw(&camera, &mut renderer).expect("draws")
                });
            },
        );
    }
    group.finish();

    let ImportedScene {
        mut scene,
        imported,
    } = io::load(&morphed, &options).expect("MorphStressTest loads");
    let pulse = imported
        .animations
        .iter()
        .position(|a| a.name == "Pulse")
        .expect("a Pulse clip");
    io::play_only(&imported.animations, Some(pulse));
    bench_update(c, "morph_update", &mut scene, [1.0, 3.0]);
}

criterion_group!(benches, bench);
criterion_main!(benches);
