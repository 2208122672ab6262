//! `plumb diff`'s metrics (issue 29, class 6): the FLIP-style comparison of two 1024×1024
//! images that differ everywhere (the worst case: no identical band is skipped), at the
//! default 67 ppd and at 200 ppd (wider filters). Throughput is per pixel. The whole-command
//! figure at 8192×8192, decoding included, is `benches/big-inputs.sh`.
//!
//! Run: `cargo bench -p plumb-bench --bench diff`.
#![allow(missing_docs, reason = "criterion_group! generates undocumented items")]

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use image::{Rgba, RgbaImage};
use plumb::diff::{compare, DiffOptions};

const SIDE: u32 = 1024;

/// A smooth colour field, and the same field shifted and dithered: every pixel differs.
fn pair() -> (RgbaImage, RgbaImage) {
    let field = |x: u32, y: u32, k: u32| {
        let h = (x.wrapping_mul(2_654_435_761) ^ y.wrapping_mul(40_503)) >> 29;
        Rgba([
            ((x + k) % 256) as u8,
            ((y * 3) % 256) as u8,
            ((x + y + h * k) % 256) as u8,
            255,
        ])
    };
    (
        RgbaImage::from_fn(SIDE, SIDE, |x, y| field(x, y, 0)),
        RgbaImage::from_fn(SIDE, SIDE, |x, y| field(x, y, 7)),
    )
}

fn bench(c: &mut Criterion) {
    let (a, b) = pair();
    let mut g = c.benchmark_group("diff");
    g.sample_size(10);
    g.throughput(Throughput::Elements(u64::from(SIDE) * u64::from(SIDE)));
    for ppd in [67.0f32, 200.0] {
        let options = DiffOptions {
            threshold: 0,
            pixels_per_degree: ppd,
        };
        g.bench_with_input(BenchmarkId::new("1024x1024", ppd), &options, |bench, o| {
            bench.iter(|| {
                compare(&a, &b, o)
                    .expect("same size")
                    .report
                    .perceptual_mean
            })
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
