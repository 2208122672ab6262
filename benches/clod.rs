//! Continuous LOD: building the collapse records of a ~10k-triangle mesh, and moving the
//! target record across the whole range and back.
//!
//! Run: `cargo bench -p plumb-bench --bench clod -- --warm-up-time 1 --measurement-time 3`.

use std::hint::black_box;

use criterion::{criterion_main, Criterion};
use glam::Vec3;
use plumb_raster::math;
use plumb_scene::clod::ClodMesh;
use plumb_scene::Mesh;

/// A 70×70-quad height field: 5041 vertices, 9800 triangles.
fn hills() -> Mesh {
    let n = 70usize;
    let w = n + 1;
    let p: Vec<Vec3> = (0..w * w)
        .map(|i| {
            let (x, z) = ((i % w) as f32 / n as f32, (i / w) as f32 / n as f32);
            let h = 0.2 * math::sin(7.0 * x) * math::cos(5.0 * z) + 0.05 * math::sin(23.0 * x * z);
            Vec3::new(x, h, z)
        })
        .collect();
    let mut idx = Vec::new();
    for y in 0..n {
        for x in 0..n {
            let a = (y * w + x) as u32;
            let (b, c, d) = (a + 1, a + w as u32 + 1, a + w as u32);
            idx.extend([a, c, b, a, d, c]);
        }
    }
    Mesh::triangles(p, idx).expect("a valid grid")
}

fn bench(c: &mut Criterion) {
    let mesh = hills();
    c.bench_function("clod_build_9800_triangles", |b| {
        b.iter(|| ClodMesh::from_mesh(black_box(&mesh)).expect("decimates"))
    });
    let mut clod = ClodMesh::from_mesh(&mesh).expect("decimates");
    let last = clod.record_count() - 1;
    c.bench_function("clod_target_full_to_min_and_back", |b| {
        b.iter(|| {
            clod.set_target_record(black_box(last)).expect("in range");
            clod.set_target_record(black_box(0)).expect("in range");
        })
    });
    c.bench_function("clod_target_one_record_step", |b| {
        b.iter(|| {
            clod.set_target_record(black_box(last / 2 + 1))
                .expect("in range");
            clod.set_target_record(black_box(last / 2))
                .expect("in range");
        })
    });
}

/// The benchmark group (written out instead of `criterion_group!`, whose generated function
/// has no docs).
pub fn clod_benches() {
    let mut c = Criterion::default().configure_from_args();
    bench(&mut c);
}

criterion_main!(clod_benches);
