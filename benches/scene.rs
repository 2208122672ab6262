//! Scene-graph benchmarks (DESIGN §9): update of a ~100k-node scene (clean, one leaf moved,
//! fully dirty), culling and picking in the same scene.
//!
//! Run: `cargo bench -p plumb-bench --bench scene -- --warm-up-time 1 --measurement-time 3`.

use std::hint::black_box;
use std::sync::Arc;

use criterion::{criterion_main, Criterion};
use glam::Vec3;
use plumb_scene::{rotation_axis_angle, Camera, Mesh, NodeId, Ray, Scene, Transform, VisibleSet};

/// plumb's seeded xorshift, so the scene is the same on every run.
use plumb_raster::rng::XorShift64 as Rng;

/// Fan-out 10 over five levels: 10 + 100 + 1 000 + 10 000 groups… the last level are 100 000
/// cube leaves (111 111 nodes with the root). Groups spread out in a ~2 km field; leaves carry
/// rotations and some non-uniform scale.
fn build() -> (Scene, Vec<NodeId>) {
    let cube = Arc::new(Mesh::cube());
    let mut s = Scene::new();
    let mut rng = Rng::new(0x9E37_79B9_7F4A_7C15);
    let mut level = vec![s.root()];
    let spreads = [800.0, 80.0, 8.0, 2.0, 0.5];
    let mut leaves = Vec::new();
    for (depth, &spread) in spreads.iter().enumerate() {
        let mut next = Vec::with_capacity(level.len() * 10);
        for &parent in &level {
            for _ in 0..10 {
                let id = if depth == spreads.len() - 1 {
                    let id = s.add_geometry(parent, "leaf", cube.clone()).unwrap();
                    leaves.push(id);
                    id
                } else {
                    s.add_group(parent, "group").unwrap()
                };
                let t = Vec3::new(
                    rng.range(-spread, spread),
                    rng.range(-spread, spread) * 0.1,
                    rng.range(-spread, spread),
                );
                let axis = Vec3::new(rng.range(-1.0, 1.0), rng.range(-1.0, 1.0), 1.0);
                let r = rotation_axis_angle(axis, rng.range(-3.0, 3.0)).unwrap();
                let mut local = Transform::from_rotation(r)
                    .unwrap()
                    .with_translation(t)
                    .unwrap();
                if depth == spreads.len() - 1 && rng.next_f32() < 0.3 {
                    local
                        .set_scale(Vec3::new(rng.range(0.2, 0.6), 0.3, rng.range(-0.6, -0.2)))
                        .unwrap();
                } else {
                    local
                        .set_uniform_scale(rng.range(0.5, 1.5) * 0.4 + 0.6)
                        .unwrap();
                }
                s.set_local_transform(id, local).unwrap();
                next.push(id);
            }
        }
        level = next;
    }
    s.update(0.0);
    (s, leaves)
}

/// A camera inside the field, seeing roughly a quarter of it.
fn camera() -> Camera {
    let mut cam = Camera::perspective(1.0, 16.0 / 9.0, 1.0, 800.0).unwrap();
    cam.look_at(
        Vec3::new(0.0, 60.0, 200.0),
        Vec3::new(0.0, 0.0, -400.0),
        Vec3::Y,
    )
    .unwrap();
    cam
}

fn benches(c: &mut Criterion) {
    let (mut scene, leaves) = build();
    eprintln!(
        "scene: {} nodes, {} leaves",
        scene.node_count(),
        leaves.len()
    );

    let mut g = c.benchmark_group("update_100k");
    g.bench_function("clean", |b| b.iter(|| black_box(scene.update(0.0))));
    let leaf = leaves[leaves.len() / 2];
    let mut flip = false;
    g.bench_function("one_leaf_moved", |b| {
        b.iter(|| {
            flip = !flip;
            let x = if flip { 1.0 } else { 2.0 };
            scene.set_translation(leaf, Vec3::new(x, 0.0, 0.0)).unwrap();
            black_box(scene.update(0.0))
        })
    });
    let root = scene.root();
    g.bench_function("fully_dirty", |b| {
        b.iter(|| {
            flip = !flip;
            let y = if flip { 1.0 } else { 0.0 };
            scene.set_translation(root, Vec3::new(0.0, y, 0.0)).unwrap();
            black_box(scene.update(0.0))
        })
    });
    g.finish();
    scene.set_translation(root, Vec3::ZERO).unwrap();
    let stats = scene.update(0.0);
    assert_eq!(stats.transforms, scene.node_count());

    let cam = camera();
    let mut visible = VisibleSet::new();
    scene.cull_into(&cam, &mut visible);
    eprintln!(
        "cull: {} visible of {} leaves, {:?}",
        visible.len(),
        leaves.len(),
        visible.stats()
    );
    c.bench_function("cull_100k", |b| {
        b.iter(|| {
            scene.cull_into(&cam, &mut visible);
            black_box(visible.len())
        })
    });

    // Rays aimed at a leaf deep in the field, so they descend the hierarchy and hit.
    let target = scene.world_transform(leaves[31_337]).unwrap().translation();
    let ray = Ray::new(cam.location(), target - cam.location()).unwrap();
    let hits = scene.pick(&ray);
    eprintln!(
        "pick (oblique): {} hits, nearest {:?}",
        hits.len(),
        hits.first()
    );
    assert!(!hits.is_empty());
    c.bench_function("pick_100k_oblique_ray", |b| {
        b.iter(|| black_box(scene.pick(black_box(&ray)).len()))
    });
    let down = Ray::new(target + Vec3::new(0.0, 500.0, 0.0), -Vec3::Y).unwrap();
    let hits = scene.pick(&down);
    eprintln!("pick (vertical): {} hits", hits.len());
    c.bench_function("pick_100k_vertical_ray", |b| {
        b.iter(|| black_box(scene.pick(black_box(&down)).len()))
    });
}

/// The benchmark group (written out instead of `criterion_group!`, whose generated function
/// has no docs).
pub fn scene_benches() {
    let mut c = Criterion::default().configure_from_args();
    benches(&mut c);
}

criterion_main!(scene_benches);
