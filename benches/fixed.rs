//! Fixed-function benchmarks (issue 3): 1080p full-screen trilinear textured + fogged +
//! depth-tested fill; per-pixel lit fill with 8 lights; vertex lighting throughput with 8
//! lights. Run: `cargo bench -p plumb-bench --bench fixed`.
#![allow(missing_docs, reason = "criterion_group! generates undocumented items")]

use std::sync::Arc;

use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use glam::{Mat4, Vec2, Vec3, Vec4};
use plumb::raster::fog::{FogMode, FogState};
use plumb::raster::light::{Light, LightKind, LightingState, Material};
use plumb::raster::texture::{Sampler, Texture};
use plumb::raster::{
    CompareFunc, Context, ContextOptions, DepthState, FixedFunction, Indices, MeshInput,
    PipelineState, TextureUnit, Topology, Transforms,
};

const W: u32 = 1920;
const H: u32 = 1080;

fn checker() -> Arc<Texture> {
    let mut px = Vec::new();
    for y in 0..256u32 {
        for x in 0..256u32 {
            px.extend_from_slice(&if ((x / 32) + (y / 32)) % 2 == 0 {
                [230, 200, 60, 255]
            } else {
                [40, 90, 200, 255]
            });
        }
    }
    Arc::new(
        Texture::from_rgba8(256, 256, px)
            .unwrap()
            .with_generated_mips(),
    )
}

/// A screen-filling quad tilted away from the camera (so λ varies across the screen and
/// trilinear really blends two levels), 2 triangles.
fn screen_quad() -> (Vec<Vec3>, Vec<Vec3>, Vec<Vec2>, Vec<u32>) {
    let p = vec![
        Vec3::new(-3.0, -1.0, 0.0),
        Vec3::new(3.0, -1.0, 0.0),
        Vec3::new(3.0, 1.0, -6.0),
        Vec3::new(-3.0, 1.0, -6.0),
    ];
    let n = vec![Vec3::Z; 4];
    let uv = vec![
        Vec2::new(0.0, 0.0),
        Vec2::new(8.0, 0.0),
        Vec2::new(8.0, 8.0),
        Vec2::new(0.0, 8.0),
    ];
    (p, n, uv, vec![0, 1, 2, 0, 2, 3])
}

fn transforms() -> Transforms {
    Transforms {
        view_from_model: Mat4::from_translation(Vec3::new(0.0, 0.0, -1.2)),
        clip_from_view: Mat4::perspective_rh(1.2, W as f32 / H as f32, 0.1, 50.0),
    }
}

fn eight_lights() -> LightingState {
    let mut l = LightingState {
        material: Material {
            specular: Vec3::splat(0.5),
            shininess: 16.0,
            ..Material::DEFAULT
        },
        global_ambient: Vec3::splat(0.1),
        ..LightingState::DEFAULT
    };
    for i in 0..8 {
        let a = i as f32 * 0.785;
        let pos = Vec3::new(
            2.0 * plumb::raster::math::cos(a),
            2.0 * plumb::raster::math::sin(a),
            -1.0,
        );
        let kind = match i % 3 {
            0 => LightKind::Directional {
                direction: -pos.normalize(),
            },
            1 => LightKind::Point { position: pos },
            _ => LightKind::Spot {
                position: pos,
                direction: -pos.normalize(),
                cutoff_deg: 45.0,
                exponent: 4.0,
            },
        };
        l.lights[i] = Some(
            Light::new(kind)
                .with_diffuse(Vec3::splat(0.3))
                .with_specular(Vec3::splat(0.3)),
        );
    }
    l
}

/// The fragments one frame of `ff` on the quad writes (cleared depth, less-or-equal).
fn frame_fragments(ff: &FixedFunction, mesh: &MeshInput<'_>, idx: &[u32]) -> u64 {
    let mut ctx = Context::new(W, H, ContextOptions { threads: Some(1) }).unwrap();
    let st = PipelineState {
        depth: DepthState {
            func: CompareFunc::LessEqual,
            write: true,
        },
        ..ctx.default_state()
    };
    ctx.clear(Vec4::ZERO, 1.0, 0);
    let before = ctx.stats().fragments_written;
    ctx.draw_fixed(
        &st,
        ff,
        &transforms(),
        mesh,
        Indices::U32(idx),
        Topology::TriangleList,
    )
    .unwrap();
    ctx.finish();
    ctx.stats().fragments_written - before
}

fn fills(c: &mut Criterion) {
    let (p, n, uv, idx) = screen_quad();
    let uvs = [uv.as_slice()];
    let mesh = MeshInput {
        positions: &p,
        normals: Some(&n),
        colors: None,
        uvs: &uvs,
    };
    let tex = checker();
    let cases: [(&str, FixedFunction); 2] = [
        (
            "fill_1080p_trilinear_fog_depth",
            FixedFunction {
                fog: Some(FogState {
                    mode: FogMode::Linear {
                        start: 0.5,
                        end: 8.0,
                    },
                    ..FogState::DEFAULT
                }),
                units: vec![TextureUnit::new(Arc::clone(&tex), Sampler::TRILINEAR)],
                ..Default::default()
            },
        ),
        (
            "fill_1080p_per_pixel_8_lights",
            FixedFunction {
                lighting: Some(eight_lights()),
                per_pixel_lighting: true,
                ..Default::default()
            },
        ),
    ];
    for (name, ff) in cases {
        let mut g = c.benchmark_group(name);
        // Per fragment written (the quad covers about half the target), counted on one
        // frame before timing.
        g.throughput(Throughput::Elements(frame_fragments(&ff, &mesh, &idx)));
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
            let st = PipelineState {
                depth: DepthState {
                    func: CompareFunc::LessEqual,
                    write: true,
                },
                ..ctx.default_state()
            };
            g.bench_with_input(BenchmarkId::from_parameter(threads), &threads, |b, _| {
                b.iter(|| {
                    ctx.clear(Vec4::ZERO, 1.0, 0);
                    ctx.draw_fixed(
                        &st,
                        &ff,
                        &transforms(),
                        &mesh,
                        Indices::U32(&idx),
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
}

fn vertex_lighting(c: &mut Criterion) {
    // 1M vertices as points far outside the viewport: measures the vertex stage (transform,
    // 8-light lighting), not rasterisation.
    const N: usize = 1 << 20;
    let p: Vec<Vec3> = (0..N)
        .map(|i| Vec3::new((i % 1024) as f32 * 0.01, (i / 1024) as f32 * 0.01, -1.0))
        .collect();
    let n = vec![Vec3::new(0.0, 0.6, 0.8); N];
    let mesh = MeshInput {
        positions: &p,
        normals: Some(&n),
        colors: None,
        uvs: &[],
    };
    let ff = FixedFunction {
        lighting: Some(eight_lights()),
        ..Default::default()
    };
    let mut g = c.benchmark_group("vertex_lighting_8_lights");
    g.throughput(Throughput::Elements(N as u64));
    g.sample_size(10);
    for threads in [1, 2] {
        let mut ctx = Context::new(
            64,
            64,
            ContextOptions {
                threads: Some(threads),
            },
        )
        .unwrap();
        let t = Transforms {
            view_from_model: Mat4::from_translation(Vec3::new(0.0, 0.0, 5.0)),
            ..transforms()
        };
        let st = ctx.default_state();
        g.bench_with_input(BenchmarkId::from_parameter(threads), &threads, |b, _| {
            b.iter(|| {
                // Behind the camera (z = +4 in eye space): every point is clipped away after
                // the vertex stage has run for all of them.
                ctx.draw_fixed(&st, &ff, &t, &mesh, Indices::None, Topology::PointList)
                    .unwrap();
                ctx.finish();
                black_box(&mut ctx);
            })
        });
    }
    g.finish();
}

criterion_group!(benches, fills, vertex_lighting);
criterion_main!(benches);
