//! Rasterizer core benchmarks (issue 2): full-screen Gouraud depth-tested fill at 1080p and
//! 1M small depth-tested triangles, each at 1 and 2 threads.
//!
//! Run: `cargo bench -p plumb-bench --bench raster`. Throughput is reported per element (fragments for the
//! fill, triangles for the small-triangle case).

#![allow(missing_docs, reason = "criterion_group! generates undocumented items")]

use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use glam::Vec4;
use plumb::raster::{
    CompareFunc, Context, ContextOptions, DepthState, Indices, Topology, VertexInput,
};

const W: u32 = 1920;
const H: u32 = 1080;

fn fill(c: &mut Criterion) {
    let mut g = c.benchmark_group("fill_1080p_gouraud_depth");
    g.throughput(Throughput::Elements(u64::from(W * H)));
    g.sample_size(20);
    // Two triangles covering the screen, w varying so interpolation is perspective-correct.
    let pos = [
        Vec4::new(-1.0, -1.0, 0.3, 1.0),
        Vec4::new(2.0, -2.0, 1.0, 2.0),
        Vec4::new(1.5, 1.5, 0.6, 1.5),
        Vec4::new(-1.0, 1.0, 0.4, 1.0),
    ];
    let col = [
        Vec4::new(1.0, 0.0, 0.0, 1.0),
        Vec4::new(0.0, 1.0, 0.0, 1.0),
        Vec4::new(0.0, 0.0, 1.0, 1.0),
        Vec4::new(1.0, 1.0, 0.0, 1.0),
    ];
    let idx = [0u16, 1, 2, 0, 2, 3];
    for threads in [1, 2] {
        let mut ctx = Context::new(
            W,
            H,
            ContextOptions {
                threads: Some(threads),
            },
        )
        .unwrap();
        let state = plumb::raster::PipelineState {
            depth: DepthState {
                func: CompareFunc::LessEqual,
                write: true,
            },
            ..ctx.default_state()
        };
        g.bench_with_input(BenchmarkId::from_parameter(threads), &threads, |b, _| {
            b.iter(|| {
                ctx.draw(
                    &state,
                    &VertexInput::colored(&pos, &col),
                    Indices::U16(&idx),
                    Topology::TriangleList,
                )
                .unwrap();
                ctx.finish();
                black_box(&mut ctx);
            })
        });
    }
    g.finish();
}

/// plumb's seeded xorshift (same sequence everywhere).
use plumb_raster::rng::XorShift64 as Rng;

fn small_triangles(c: &mut Criterion) {
    const N: usize = 1_000_000;
    let mut rng = Rng::new(0x9e37_79b9_7f4a_7c15);
    let mut pos = Vec::with_capacity(3 * N);
    let mut col = Vec::with_capacity(3 * N);
    // Right triangles with legs of 4.5 px: area ≈ 10 px.
    let (lx, ly) = (4.5 * 2.0 / W as f32, 4.5 * 2.0 / H as f32);
    for _ in 0..N {
        let (x, y, z) = (
            rng.next_f32() * 2.0 - 1.0,
            rng.next_f32() * 2.0 - 1.0,
            rng.next_f32(),
        );
        let c = Vec4::new(rng.next_f32(), rng.next_f32(), rng.next_f32(), 1.0);
        pos.extend_from_slice(&[
            Vec4::new(x, y, z, 1.0),
            Vec4::new(x + lx, y, z, 1.0),
            Vec4::new(x, y + ly, z, 1.0),
        ]);
        col.extend_from_slice(&[c, c, c]);
    }
    let mut g = c.benchmark_group("small_triangles_1m_depth");
    g.throughput(Throughput::Elements(N as u64));
    g.sample_size(10);
    for threads in [1, 2] {
        let mut ctx = Context::new(
            W,
            H,
            ContextOptions {
                threads: Some(threads),
            },
        )
        .unwrap();
        let state = plumb::raster::PipelineState {
            depth: DepthState::LEQUAL_WRITE,
            ..ctx.default_state()
        };
        g.bench_with_input(BenchmarkId::from_parameter(threads), &threads, |b, _| {
            b.iter(|| {
                ctx.clear(Vec4::ZERO, 1.0, 0);
                ctx.draw(
                    &state,
                    &VertexInput::colored(&pos, &col),
                    Indices::None,
                    Topology::TriangleList,
                )
                .unwrap();
                ctx.finish();
                black_box(&mut ctx);
            })
        });
    }
    g.finish();
}

criterion_group!(benches, fill, small_triangles);
criterion_main!(benches);
