//! The terrain yardstick of `shared/bench/terrain.md` (the scene of plumb's
//! `examples/terrain.rs`, from the same file: `examples/common/terrain.rs`) through any [`DrawTarget`]: plumb's CPU
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

use plumb_raster::{Context, ContextOptions, DrawTarget};
use plumb_wgpu::WgpuTarget;

#[path = "../../examples/common/terrain.rs"]
mod terrain;

use terrain::{checker, draw, grid, Scene, H, W};

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
