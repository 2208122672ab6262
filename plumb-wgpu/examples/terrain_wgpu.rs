//! The terrain yardstick of `shared/bench/terrain.md` (the scene of plumb's
//! `examples/terrain.rs`, copied here draw for draw) through any [`DrawTarget`]: plumb's CPU
//! `Context` or the wgpu target, so the two are timed by the same code in the same run
//! (`benches/vs-wgpu.sh` alternates them).
//!
//! ```sh
//! cargo run --profile ci -p plumb-wgpu --example terrain_wgpu -- --backend wgpu|soft \
//!     [--threads N] [--grid NXxNZ] [--frames N] [--out terrain.png]
//! ```
//! Prints `render: median X ms/frame (min Y) over N frames` like plumb's example; a wgpu
//! frame includes submitting and waiting for the device (`DrawTarget::finish`), not a
//! read-back.

use std::sync::Arc;
use std::time::Instant;

use glam::{Mat4, Vec2, Vec3, Vec4};
use plumb_raster::fog::{FogDistance, FogMode, FogState};
use plumb_raster::light::{Light, LightKind, LightingState, Material};
use plumb_raster::texture::{Sampler, Texture};
use plumb_raster::{
    BlendState, CompareFunc, Context, ContextOptions, DepthState, DrawTarget, FixedFunction,
    Indices, MeshInput, PipelineState, TextureUnit, Topology, Transforms,
};
use plumb_wgpu::WgpuTarget;

const W: u32 = 1920;
const H: u32 = 1080;
const FOG: Vec4 = Vec4::new(0.7, 0.75, 0.8, 1.0);

struct Grid {
    p: Vec<Vec3>,
    n: Vec<Vec3>,
    uv: Vec<Vec2>,
    idx: Vec<u32>,
}

/// The probe's grid: vertex (i, j) at x = X0 + (X1 − X0)·i/nx, z = Z0 + (Z1 − Z0)·j/nz.
fn grid(nx: u32, nz: u32, terrain: bool, uv_scale: f32) -> Grid {
    use plumb_raster::math::{cos, sin};
    let (x0, x1, z0, z1) = (-42.0f32, 42.0f32, -30.0f32, 10.0f32);
    let mut g = Grid {
        p: Vec::new(),
        n: Vec::new(),
        uv: Vec::new(),
        idx: Vec::new(),
    };
    for j in 0..=nz {
        for i in 0..=nx {
            let x = x0 + (x1 - x0) * i as f32 / nx as f32;
            let z = z0 + (z1 - z0) * j as f32 / nz as f32;
            if terrain {
                let dhdx = 0.5 * 0.35 * cos(0.35 * x) * cos(0.45 * z);
                let dhdz = -0.5 * 0.45 * sin(0.35 * x) * sin(0.45 * z);
                g.p.push(Vec3::new(x, 0.5 * sin(0.35 * x) * cos(0.45 * z), z));
                g.n.push(Vec3::new(-dhdx, 1.0, -dhdz).normalize());
            } else {
                g.p.push(Vec3::new(x, 0.25, z));
                g.n.push(Vec3::Y);
            }
            g.uv.push(Vec2::new(x * uv_scale, z * uv_scale));
        }
    }
    for j in 0..nz {
        for i in 0..nx {
            let v00 = j * (nx + 1) + i;
            let (v10, v01) = (v00 + 1, v00 + nx + 1);
            g.idx.extend_from_slice(&[v00, v01, v10, v10, v01, v01 + 1]);
        }
    }
    g
}

fn checker() -> Texture {
    let mut px = Vec::with_capacity(256 * 256 * 4);
    for y in 0..256u32 {
        for x in 0..256u32 {
            let c: [u8; 4] = if x % 32 == 0 || y % 32 == 0 {
                [20, 20, 20, 255]
            } else if ((x / 32) + (y / 32)) % 2 == 0 {
                [230, 200, 60, 255]
            } else {
                [40, 90, 200, 128]
            };
            px.extend_from_slice(&c);
        }
    }
    Texture::from_rgba8(256, 256, px)
        .expect("256² is valid")
        .with_generated_mips()
}

struct Scene {
    terrain: Grid,
    overlay: Grid,
    texture: Arc<Texture>,
}

fn draw<T: DrawTarget>(ctx: &mut T, s: &Scene) {
    ctx.clear(FOG, 1.0, 0);
    let view = Mat4::look_at_rh(Vec3::new(0.0, 10.0, 10.0), Vec3::ZERO, Vec3::Y);
    let proj = Mat4::perspective_rh(60f32.to_radians(), W as f32 / H as f32, 0.5, 100.0);
    let t = Transforms {
        view_from_model: view,
        clip_from_view: proj,
    };
    // Directional light travelling away from normalize(0.3, 1, 0.5), in eye space.
    let to_light = view.transform_vector3(Vec3::new(0.3, 1.0, 0.5).normalize());
    let light = Light::new(LightKind::Directional {
        direction: -to_light,
    })
    .with_diffuse(Vec3::ONE);
    let material = |d: Vec3, alpha: f32| Material {
        ambient: d,
        diffuse: d,
        specular: Vec3::ZERO,
        alpha,
        ..Material::DEFAULT
    };
    let mut lighting = LightingState {
        global_ambient: Vec3::splat(0.25),
        ..LightingState::DEFAULT
    };
    lighting.lights[0] = Some(light);
    let fog = FogState {
        mode: FogMode::Linear {
            start: 15.0,
            end: 45.0,
        },
        color: FOG,
        distance: FogDistance::EyeDepth,
        // GL (and Mesa) interpolate the fog coordinate and compute the clamped factor per
        // fragment; per-vertex factors differ on large triangles that straddle fog start/end.
        per_pixel: true,
    };
    let unit = TextureUnit::new(Arc::clone(&s.texture), Sampler::TRILINEAR);
    let mut ff = FixedFunction {
        lighting: Some(LightingState {
            material: material(Vec3::ONE, 1.0),
            ..lighting
        }),
        per_pixel_lighting: false,
        fog: Some(fog),
        units: vec![unit],
    };
    let opaque = PipelineState {
        depth: DepthState {
            func: CompareFunc::LessEqual,
            write: true,
        },
        ..ctx.default_state()
    };
    let uvs = [s.terrain.uv.as_slice()];
    let m = MeshInput {
        positions: &s.terrain.p,
        normals: Some(&s.terrain.n),
        colors: None,
        uvs: &uvs,
    };
    ctx.draw_fixed(
        &opaque,
        &ff,
        &t,
        &m,
        Indices::U32(&s.terrain.idx),
        Topology::TriangleList,
    )
    .expect("valid terrain");
    ff.lighting = Some(LightingState {
        material: material(Vec3::new(0.6, 0.8, 1.0), 0.45),
        ..lighting
    });
    let blended = PipelineState {
        blend: BlendState::ALPHA,
        depth: DepthState {
            func: CompareFunc::LessEqual,
            write: false,
        },
        ..opaque
    };
    let uvs = [s.overlay.uv.as_slice()];
    let m = MeshInput {
        positions: &s.overlay.p,
        normals: Some(&s.overlay.n),
        colors: None,
        uvs: &uvs,
    };
    ctx.draw_fixed(
        &blended,
        &ff,
        &t,
        &m,
        Indices::U32(&s.overlay.idx),
        Topology::TriangleList,
    )
    .expect("valid overlay");
    ctx.finish().expect("frame finishes");
}

fn run<T: DrawTarget>(ctx: &mut T, scene: &Scene, frames: usize) -> (f64, f64) {
    let mut times = Vec::with_capacity(frames);
    for _ in 0..frames {
        let t = Instant::now();
        draw(ctx, scene);
        times.push(t.elapsed().as_secs_f64() * 1e3);
    }
    times.sort_by(f64::total_cmp);
    (times[times.len() / 2], times[0])
}

fn main() {
    let mut threads = None;
    let mut backend = String::from("wgpu");
    let (mut nx, mut nz) = (400, 250);
    let mut frames = 20;
    let mut out = None;
    let args: Vec<String> = std::env::args().skip(1).collect();
    for pair in args.chunks(2) {
        let v = pair.get(1).cloned().unwrap_or_default();
        match pair[0].as_str() {
            "--backend" => backend = v,
            "--threads" => threads = v.parse().ok(),
            "--grid" => {
                let (a, b) = v.split_once('x').expect("--grid NXxNZ");
                nx = a.parse().expect("grid nx");
                nz = b.parse().expect("grid nz");
            }
            "--frames" => frames = v.parse().expect("frames"),
            "--out" => out = Some(v),
            other => panic!("unknown argument {other}"),
        }
    }
    let scene = Scene {
        terrain: grid(nx, nz, true, 0.5),
        overlay: grid(50, 50, false, 0.25),
        texture: Arc::new(checker()),
    };
    let t0 = Instant::now();
    let (med, min, img) = match backend.as_str() {
        "wgpu" => {
            let mut t = WgpuTarget::new(W, H).expect("wgpu target");
            draw(&mut t, &scene);
            println!("backend: wgpu on {}  grid: {nx}x{nz}", t.adapter_name());
            println!("first frame: {:.1} ms", t0.elapsed().as_secs_f64() * 1e3);
            let (med, min) = run(&mut t, &scene, frames);
            (med, min, t.read_back().expect("read back"))
        }
        "soft" => {
            let mut c = Context::new(W, H, ContextOptions { threads }).expect("1080p target");
            draw(&mut c, &scene);
            println!("backend: plumb ({} threads)  grid: {nx}x{nz}", c.threads());
            println!("first frame: {:.1} ms", t0.elapsed().as_secs_f64() * 1e3);
            let (med, min) = run(&mut c, &scene, frames);
            (med, min, c.color_image())
        }
        other => panic!("--backend {other}: expected wgpu or soft"),
    };
    if let Some(out) = out {
        image::DynamicImage::ImageRgba8(img)
            .to_rgb8()
            .save(&out)
            .expect("write PNG");
        println!("wrote {out}");
    }
    let tris = 2 * (nx * nz + 50 * 50);
    println!(
        "render: median {med:.2} ms/frame (min {min:.2}) over {frames} frames -> {:.2} Mtri/s",
        f64::from(tris) / med / 1e3
    );
}
