//! BV-tree collision benchmark (issue 15, `book-advanced.md` §4): two 10 000-triangle tori
//! that cross each other, collided with sphere and box trees (all hits and first hit), and
//! the tree build itself.
//!
//! Run: `cargo bench -p plumb-bench --bench collide -- --warm-up-time 1 --measurement-time 3`.

use std::hint::black_box;
use std::sync::Arc;

use criterion::{criterion_main, Criterion};
use glam::{Quat, Vec3};
use plumb_scene::collide::collide;
use plumb_scene::{shapes, BvKind, BvTreeOptions, CollideMode, Collider, Mesh, Transform};

/// 2 · 100 rings · 50 sides = 10 000 triangles.
fn torus() -> Arc<Mesh> {
    Arc::new(shapes::torus(1.0, 0.3, 100, 50).expect("valid torus"))
}

fn pair(kind: BvKind) -> (Collider, Collider) {
    let opts = BvTreeOptions {
        kind,
        max_triangles_per_leaf: 1,
    };
    let mesh = torus();
    let a = Collider::new(mesh.clone(), opts).expect("triangles");
    // The second torus stands up (90° about x, its ring in the xy-plane) and is moved by 0.1
    // along x: its ring passes 0.1 from the first one's ring at (1.1, 0, 0) and (−0.9, 0, 0),
    // inside both tubes (radius 0.3), so the surfaces cross there. (Moved by 0.8 the rings
    // stay 0.8 apart and nothing crosses.)
    let t = Transform::from_srt(
        Vec3::ONE,
        Quat::from_rotation_x(std::f32::consts::FRAC_PI_2),
        Vec3::new(0.1, 0.0, 0.0),
    )
    .expect("finite");
    let b = Collider::new(mesh, opts)
        .expect("triangles")
        .with_world_from_local(t);
    (a, b)
}

fn benches(c: &mut Criterion) {
    let mut g = c.benchmark_group("collide_10k_tris");
    for (name, kind) in [("sphere", BvKind::Sphere), ("box", BvKind::Box)] {
        let (a, b) = pair(kind);
        let hits = collide(&a, &b, CollideMode::AllHits).len();
        eprintln!("{name} trees: {hits} intersecting triangle pairs");
        g.bench_function(format!("{name}_all_hits"), |bench| {
            bench.iter(|| black_box(collide(black_box(&a), black_box(&b), CollideMode::AllHits)))
        });
        g.bench_function(format!("{name}_first_hit"), |bench| {
            bench.iter(|| black_box(collide(black_box(&a), black_box(&b), CollideMode::FirstHit)))
        });
        let mesh = a.mesh().clone();
        let opts = a.tree().options();
        g.bench_function(format!("{name}_build_tree"), |bench| {
            bench.iter(|| black_box(Collider::new(black_box(mesh.clone()), opts)))
        });
    }
    g.finish();
}

/// The benchmark group (written out instead of `criterion_group!`, whose generated function
/// has no docs).
pub fn collide_benches() {
    let mut c = Criterion::default().configure_from_args();
    benches(&mut c);
}

criterion_main!(collide_benches);
