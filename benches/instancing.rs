//! Instancing a cyclic definition at 1920×1080 (seed 003, issue 15): the seed's Man
//! (`Man -> (ManModel, I), (Man, M1), (Man, M2)`, each copy half the size) instanced down to
//! 4 px² under a perspective camera. Three measurements:
//!
//! * `first`: a fresh instancing root expanded to its fixed point (scene and root rebuilt per
//!   iteration, outside the timing);
//! * `still`: an update with the camera that instanced the tree (creates nothing);
//! * `moving`: one update per frame along a dolly towards the figure and back (64 frames), so
//!   each update expands and collapses what the step changed.
//!
//! Node counts per frame go to stderr. Run:
//! `cargo bench -p plumb-bench --bench instancing -- --warm-up-time 1 --measurement-time 3`.

use std::hint::black_box;
use std::sync::Arc;

use criterion::{criterion_main, BatchSize, Criterion};
use glam::Vec3;
use plumb_scene::{
    Camera, Definitions, EdgeSpec, InstanceOptions, Instancing, Mesh, ProductionSpec, Scene,
    Transform,
};

fn man() -> Arc<Definitions> {
    let copy = |x: f32| {
        Transform::from_uniform_scale(0.5)
            .unwrap()
            .with_translation(Vec3::new(x, 0.6, 0.0))
            .unwrap()
    };
    Arc::new(
        Definitions::new(
            vec![("ManModel".into(), Arc::new(Mesh::cube()))],
            vec![(
                "Man".into(),
                vec![ProductionSpec {
                    weight: 1.0,
                    edges: vec![
                        EdgeSpec::new("ManModel", Transform::IDENTITY),
                        EdgeSpec::new("Man", copy(-0.75)),
                        EdgeSpec::new("Man", copy(0.75)),
                    ],
                }],
            )],
        )
        .unwrap(),
    )
}

fn camera(z: f32) -> Camera {
    let mut c = Camera::perspective(0.8, 16.0 / 9.0, 0.01, 100.0).unwrap();
    c.look_at(Vec3::new(0.3, 0.4, z), Vec3::new(0.0, 0.4, 0.0), Vec3::Y)
        .unwrap();
    c
}

fn options() -> InstanceOptions {
    InstanceOptions {
        min_area: 4.0,
        max_depth: 24,
        max_nodes: 1 << 20,
        seed: 1,
        resolution: (1920, 1080),
    }
}

fn fresh(defs: &Arc<Definitions>) -> (Scene, Instancing) {
    let mut s = Scene::new();
    let root = s.root();
    let i = Instancing::new(&mut s, root, "man", Arc::clone(defs), "Man", options()).unwrap();
    (s, i)
}

fn benches(c: &mut Criterion) {
    let defs = man();
    let cam = camera(2.5);
    let mut g = c.benchmark_group("instancing_man_1080p");

    let (mut s, mut inst) = fresh(&defs);
    let first = inst.update(&mut s, &cam).unwrap();
    eprintln!("first: {first:?}");
    g.bench_function("first", |b| {
        b.iter_batched(
            || fresh(&defs),
            |(mut s, mut i)| black_box(i.update(&mut s, black_box(&cam)).unwrap().total),
            BatchSize::LargeInput,
        )
    });

    let still = inst.update(&mut s, &cam).unwrap();
    eprintln!("still: {still:?}");
    g.bench_function("still", |b| {
        b.iter(|| black_box(inst.update(&mut s, black_box(&cam)).unwrap().created))
    });

    // A dolly from z = 2.5 to 1.5 and back in 64 steps.
    let path: Vec<Camera> = (0..64)
        .map(|k| {
            let t = if k < 32 {
                k as f32 / 32.0
            } else {
                (64 - k) as f32 / 32.0
            };
            camera(2.5 - t)
        })
        .collect();
    let (mut created, mut removed, mut max_total) = (0, 0, 0);
    for p in &path {
        let r = inst.update(&mut s, p).unwrap();
        created += r.created;
        removed += r.removed;
        max_total = max_total.max(r.total);
    }
    eprintln!(
        "moving: per frame {:.1} created, {:.1} removed; at most {max_total} nodes",
        created as f64 / 64.0,
        removed as f64 / 64.0
    );
    let mut k = 0;
    g.bench_function("moving", |b| {
        b.iter(|| {
            k = (k + 1) % path.len();
            black_box(inst.update(&mut s, &path[k]).unwrap().created)
        })
    });
    g.finish();
}

/// The benchmark group (written out instead of `criterion_group!`, whose generated function
/// has no docs).
pub fn instancing_benches() {
    let mut c = Criterion::default().configure_from_args();
    benches(&mut c);
}

criterion_main!(instancing_benches);
