//! One benchmark workload per run, for instruction counts (`valgrind --tool=callgrind`),
//! which are repeatable on a noisy machine where wall-clock times are not.
//!
//! ```sh
//! cargo build --release -p plumb-raster --example kernels
//! valgrind --tool=callgrind target/release/examples/kernels fill 2     # 2 frames
//! ```
//! Workloads (1080p, 1 thread, the same scenes as `benches/fixed.rs` and `benches/raster.rs`):
//! `fill` — a screen-filling tilted quad, trilinear + linear fog + depth test;
//! `fill-nofog`, `fill-notex`, `fill-nodepth` — the same without fog, without the texture,
//! without the depth test (function always, no writes): the differences of the counts give
//! each stage's instructions;
//! `nearest` — the same quad with nearest-mipmap-nearest sampling;
//! `border` — the same quad, trilinear with clamp-to-border on both axes;
//! `aniso` — the same quad, trilinear with 16× anisotropic filtering;
//! `small` — 1M depth-tested ~10-pixel triangles with vertex colours;
//! `medium` — the same, 200k of ~78 pixels (boxes of 13×13, the tile walk's 16×16 class);
//! `gouraud` — two screen-covering vertex-coloured triangles, perspective-correct, depth test.
//! Instructions per fragment or per triangle: the difference between a run of `n + 1` and of
//! `n` frames, divided by the frame's fragments (stats) or triangles.

use std::sync::Arc;

use glam::{Mat4, Vec2, Vec3, Vec4};
use plumb_raster::fog::{FogMode, FogState};
use plumb_raster::texture::{Sampler, Texture, Wrap};
use plumb_raster::{
    CompareFunc, Context, ContextOptions, DepthState, FixedFunction, Indices, MeshInput,
    PipelineState, TextureUnit, Topology, Transforms, VertexInput,
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
            .expect("256² texture")
            .with_generated_mips(),
    )
}

/// Which stages the fill quad's draw has (the `fill-no*` workloads drop one each, so the
/// differences of their counts give a stage's instructions).
#[derive(Clone, Copy)]
struct Stages {
    texture: bool,
    fog: bool,
    depth: bool,
}

const ALL: Stages = Stages {
    texture: true,
    fog: true,
    depth: true,
};

fn fill(ctx: &mut Context, frames: usize, sampler: Sampler, stages: Stages) {
    let p = [
        Vec3::new(-3.0, -1.0, 0.0),
        Vec3::new(3.0, -1.0, 0.0),
        Vec3::new(3.0, 1.0, -6.0),
        Vec3::new(-3.0, 1.0, -6.0),
    ];
    let n = [Vec3::Z; 4];
    let uv = [
        Vec2::new(0.0, 0.0),
        Vec2::new(8.0, 0.0),
        Vec2::new(8.0, 8.0),
        Vec2::new(0.0, 8.0),
    ];
    let uvs = [&uv[..]];
    let mesh = MeshInput {
        positions: &p,
        normals: Some(&n),
        colors: None,
        uvs: &uvs,
    };
    let ff = FixedFunction {
        fog: stages.fog.then_some(FogState {
            mode: FogMode::Linear {
                start: 0.5,
                end: 8.0,
            },
            ..FogState::DEFAULT
        }),
        units: if stages.texture {
            vec![TextureUnit::new(checker(), sampler)]
        } else {
            Vec::new()
        },
        ..Default::default()
    };
    let t = Transforms {
        view_from_model: Mat4::from_translation(Vec3::new(0.0, 0.0, -1.2)),
        clip_from_view: Mat4::perspective_rh(1.2, W as f32 / H as f32, 0.1, 50.0),
    };
    let st = PipelineState {
        depth: DepthState {
            func: if stages.depth {
                CompareFunc::LessEqual
            } else {
                CompareFunc::Always
            },
            write: stages.depth,
        },
        ..ctx.default_state()
    };
    for _ in 0..frames {
        ctx.clear(Vec4::ZERO, 1.0, 0);
        let idx = [0u32, 1, 2, 0, 2, 3];
        ctx.draw_fixed(
            &st,
            &ff,
            &t,
            &mesh,
            Indices::U32(&idx),
            Topology::TriangleList,
        )
        .expect("valid draw");
        ctx.finish();
    }
}

/// `n` depth-tested vertex-coloured right triangles with legs of `leg` pixels at random places.
fn small(ctx: &mut Context, frames: usize, (n, leg): (usize, f32)) {
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed >> 40) as f32 / (1u64 << 24) as f32
    };
    let (lx, ly) = (leg * 2.0 / W as f32, leg * 2.0 / H as f32);
    let (mut pos, mut col) = (Vec::with_capacity(3 * n), Vec::with_capacity(3 * n));
    for _ in 0..n {
        let (x, y, z) = (next() * 2.0 - 1.0, next() * 2.0 - 1.0, next());
        let c = Vec4::new(next(), next(), next(), 1.0);
        pos.extend_from_slice(&[
            Vec4::new(x, y, z, 1.0),
            Vec4::new(x + lx, y, z, 1.0),
            Vec4::new(x, y + ly, z, 1.0),
        ]);
        col.extend_from_slice(&[c, c, c]);
    }
    let st = PipelineState {
        depth: DepthState::LEQUAL_WRITE,
        ..ctx.default_state()
    };
    for _ in 0..frames {
        ctx.clear(Vec4::ZERO, 1.0, 0);
        ctx.draw(
            &st,
            &VertexInput::colored(&pos, &col),
            Indices::None,
            Topology::TriangleList,
        )
        .expect("valid draw");
        ctx.finish();
    }
}

fn gouraud(ctx: &mut Context, frames: usize) {
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
    let st = PipelineState {
        depth: DepthState::LEQUAL_WRITE,
        ..ctx.default_state()
    };
    for _ in 0..frames {
        ctx.clear(Vec4::ZERO, 1.0, 0);
        ctx.draw(
            &st,
            &VertexInput::colored(&pos, &col),
            Indices::U16(&[0, 1, 2, 0, 2, 3]),
            Topology::TriangleList,
        )
        .expect("valid draw");
        ctx.finish();
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let frames = args.get(1).and_then(|f| f.parse().ok()).unwrap_or(1);
    let mut ctx = Context::new(W, H, ContextOptions { threads: Some(1) }).expect("1080p");
    match args.first().map(String::as_str) {
        Some("fill") => fill(&mut ctx, frames, Sampler::TRILINEAR, ALL),
        Some("fill-nofog") => {
            let stages = Stages { fog: false, ..ALL };
            fill(&mut ctx, frames, Sampler::TRILINEAR, stages)
        }
        Some("fill-notex") => {
            let stages = Stages {
                texture: false,
                ..ALL
            };
            fill(&mut ctx, frames, Sampler::TRILINEAR, stages)
        }
        Some("fill-nodepth") => {
            let stages = Stages {
                depth: false,
                ..ALL
            };
            fill(&mut ctx, frames, Sampler::TRILINEAR, stages)
        }
        Some("nearest") => fill(&mut ctx, frames, Sampler::NEAREST_MIPMAP_NEAREST, ALL),
        Some("border") => fill(
            &mut ctx,
            frames,
            Sampler {
                wrap_u: Wrap::ClampToBorder,
                wrap_v: Wrap::ClampToBorder,
                border: Vec4::new(0.2, 0.4, 0.6, 1.0),
                ..Sampler::TRILINEAR
            },
            ALL,
        ),
        Some("aniso") => fill(&mut ctx, frames, Sampler::ANISOTROPIC_16X, ALL),
        Some("small") => small(&mut ctx, frames, (1_000_000, 4.5)),
        Some("medium") => small(&mut ctx, frames, (200_000, 12.5)),
        Some("gouraud") => gouraud(&mut ctx, frames),
        _ => {
            eprintln!("usage: kernels fill|fill-nofog|fill-notex|fill-nodepth|nearest|border|aniso|small|\
                 gouraud [frames]");
            std::process::exit(2);
        }
    }
    println!(
        "{} frames, {} fragments written",
        frames,
        ctx.stats().fragments_written
    );
}
