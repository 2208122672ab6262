//! The terrain benchmark scene of `shared/bench/terrain.md`, drawn straight through
//! plumb-raster's fixed-function path (the same numbers as the Mesa llvmpipe probe, so the
//! two can be timed side by side and their images compared).
//!
//! ```sh
//! cargo run --release --example terrain -- [--threads N] [--grid NXxNZ] [--frames N] [--out terrain.png] [--scene-graph] [--compare]
//! ```
//! Prints `render: median X ms/frame (min Y) over N frames …` like the probe.
//!
//! With `--scene-graph` the same scene is built through plumb-scene (two geometry leaves, the
//! overlay under a group with the blend and read-only depth states, a directional light and
//! fog at the root, a texture effect per leaf) and drawn each frame with
//! `Scene::draw(camera, SoftRenderer)` — update, cull, sort and draw included in the timing.
//! `--compare` times both paths in one run, interleaved frame by frame, and prints the ratio.

use std::sync::Arc;
use std::time::Instant;

use glam::{Vec3, Vec4};
use plumb::raster::texture::Sampler;
use plumb::raster::{Context, ContextOptions};

#[path = "common/terrain.rs"]
mod terrain;

use terrain::{checker, draw, grid, Grid, Scene, FOG, H, W};

/// The same scene through the scene graph.
struct SceneGraph {
    scene: plumb::scene::Scene,
    camera: plumb::scene::Camera,
    renderer: plumb::scene::SoftRenderer,
}

fn to_mesh(g: &Grid) -> plumb::scene::Mesh {
    plumb::scene::Mesh::triangles(g.p.clone(), g.idx.clone())
        .and_then(|m| m.with_normals(g.n.clone()))
        .and_then(|m| m.with_uv_set(g.uv.clone()))
        .expect("valid grid")
}

fn build_scene_graph(s: &Scene, threads: Option<usize>) -> SceneGraph {
    use plumb::scene::{
        AlphaState, Camera, Effect, FogState, GlobalState, Light, MaterialState, Scene as Sg,
        SoftRenderer, TextureStage, ZBufferState,
    };
    let mut scene = Sg::new();
    scene.set_background(FOG).expect("finite");
    scene.set_global_ambient(Vec3::splat(0.25)).expect("finite");
    let root = scene.root();
    let mut light = Light::directional(-Vec3::new(0.3, 1.0, 0.5).normalize());
    light.specular = Vec4::new(0.0, 0.0, 0.0, 1.0);
    let light = scene.add_light(light).expect("finite");
    scene.attach_light(root, light).expect("live root");
    // Per-pixel factor, like the direct path (and GL/Mesa).
    let fog = FogState {
        apply: plumb::scene::FogApply::PerPixel,
        ..FogState::linear(15.0, 45.0, FOG)
    };
    scene
        .set_global_state(root, GlobalState::Fog(fog))
        .expect("finite");
    scene
        .set_global_state(root, GlobalState::Cull(plumb::scene::CullState::NONE))
        .expect("live root");
    let stage = TextureStage::new(
        Arc::clone(&s.texture),
        Sampler::TRILINEAR,
        plumb::raster::combine::ApplyMode::Modulate,
        0,
    );
    let terrain = scene
        .add_geometry(root, "terrain", Arc::new(to_mesh(&s.terrain)))
        .expect("live root");
    scene
        .set_global_state(
            terrain,
            GlobalState::Material(MaterialState::matte(Vec4::ONE)),
        )
        .expect("finite");
    scene
        .set_effect(terrain, Some(Effect::Textures(vec![stage.clone()])))
        .expect("leaf");
    let water = scene.add_group(root, "overlay group").expect("live root");
    scene
        .set_global_state(water, GlobalState::Alpha(AlphaState::BLEND))
        .expect("finite");
    scene
        .set_global_state(water, GlobalState::ZBuffer(ZBufferState::READ_ONLY))
        .expect("finite");
    let overlay = scene
        .add_geometry(water, "overlay", Arc::new(to_mesh(&s.overlay)))
        .expect("live group");
    let blue = MaterialState::matte(Vec4::new(0.6, 0.8, 1.0, 0.45));
    scene
        .set_global_state(overlay, GlobalState::Material(blue))
        .expect("finite");
    scene
        .set_effect(overlay, Some(Effect::Textures(vec![stage])))
        .expect("leaf");
    let mut camera =
        Camera::perspective(60f32.to_radians(), W as f32 / H as f32, 0.5, 100.0).expect("valid");
    camera
        .look_at(Vec3::new(0.0, 10.0, 10.0), Vec3::ZERO, Vec3::Y)
        .expect("valid frame");
    let renderer = SoftRenderer::new(W, H, threads).expect("1080p target");
    SceneGraph {
        scene,
        camera,
        renderer,
    }
}

fn draw_scene_graph(sg: &mut SceneGraph) {
    sg.scene
        .draw(&sg.camera, &mut sg.renderer)
        .expect("scene draws");
}

fn median(mut v: Vec<f64>) -> (f64, f64) {
    v.sort_by(f64::total_cmp);
    (v[v.len() / 2], v[0])
}

fn main() {
    let mut threads = None;
    let mut scene_graph = false;
    let mut compare = false;
    let mut nx = 400;
    let mut nz = 250;
    let mut frames = 20;
    let mut out = String::from("terrain.png");
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut i = 0;
    while i < args.len() {
        let v = args.get(i + 1).cloned().unwrap_or_default();
        match args[i].as_str() {
            "--scene-graph" => {
                scene_graph = true;
                i += 1;
                continue;
            }
            "--compare" => {
                compare = true;
                i += 1;
                continue;
            }
            "--threads" => threads = v.parse().ok(),
            "--grid" => {
                let (a, b) = v.split_once('x').expect("--grid NXxNZ");
                nx = a.parse().expect("grid nx");
                nz = b.parse().expect("grid nz");
            }
            "--frames" => frames = v.parse().expect("frames"),
            "--out" => out = v,
            other => panic!("unknown argument {other}"),
        }
        i += 2;
    }
    let scene = Scene {
        terrain: grid(nx, nz, true, 0.5),
        overlay: grid(50, 50, false, 0.25),
        texture: Arc::new(checker()),
    };
    let tris = 2 * (nx * nz + 50 * 50);
    if compare {
        let mut ctx = Context::new(W, H, ContextOptions { threads }).expect("1080p target");
        let mut sg = build_scene_graph(&scene, threads);
        draw(&mut ctx, &scene);
        draw_scene_graph(&mut sg);
        let (mut direct, mut graph) = (Vec::new(), Vec::new());
        for _ in 0..frames {
            let t = Instant::now();
            draw(&mut ctx, &scene);
            direct.push(t.elapsed().as_secs_f64() * 1e3);
            let t = Instant::now();
            draw_scene_graph(&mut sg);
            graph.push(t.elapsed().as_secs_f64() * 1e3);
        }
        let (d, dmin) = median(direct);
        let (g, gmin) = median(graph);
        println!(
            "threads: {}  grid: {nx}x{nz}  frames: {frames} (interleaved)",
            ctx.threads()
        );
        println!("direct plumb-raster: median {d:.2} ms/frame (min {dmin:.2})");
        println!("scene graph:         median {g:.2} ms/frame (min {gmin:.2})");
        println!(
            "ratio scene/direct:  {:.3} (min/min {:.3})",
            g / d,
            gmin / dmin
        );
        let (a, b) = (ctx.color_image(), sg.renderer.image());
        let differ = a.pixels().zip(b.pixels()).filter(|(p, q)| p != q).count();
        println!("images: {differ} of {} pixels differ", W * H);
        return;
    }
    if scene_graph {
        let mut sg = build_scene_graph(&scene, threads);
        let t0 = Instant::now();
        draw_scene_graph(&mut sg);
        println!("scene graph  grid: {nx}x{nz}");
        println!("first frame: {:.1} ms", t0.elapsed().as_secs_f64() * 1e3);
        sg.renderer.image().save(&out).expect("write PNG");
        println!("wrote {out}");
        let mut times = Vec::with_capacity(frames);
        for _ in 0..frames {
            let t = Instant::now();
            draw_scene_graph(&mut sg);
            times.push(t.elapsed().as_secs_f64() * 1e3);
        }
        let (med, min) = median(times);
        println!(
            "render: median {med:.2} ms/frame (min {min:.2}) over {frames} frames -> {:.2} Mtri/s",
            f64::from(tris) / med / 1e3
        );
        return;
    }
    let mut ctx = Context::new(W, H, ContextOptions { threads }).expect("1080p target");
    let t0 = Instant::now();
    draw(&mut ctx, &scene);
    println!("threads: {}  grid: {nx}x{nz}", ctx.threads());
    println!("first frame: {:.1} ms", t0.elapsed().as_secs_f64() * 1e3);
    // RGB only, like the probe's PPM: the framebuffer alpha here is the texture's (the blue
    // checks have alpha 128), which image viewers would composite into pale colours.
    image::DynamicImage::ImageRgba8(ctx.color_image())
        .to_rgb8()
        .save(&out)
        .expect("write PNG");
    println!("wrote {out}");
    let mut times = Vec::with_capacity(frames);
    for _ in 0..frames {
        let t = Instant::now();
        draw(&mut ctx, &scene);
        times.push(t.elapsed().as_secs_f64() * 1e3);
    }
    times.sort_by(f64::total_cmp);
    let med = times[times.len() / 2];
    println!(
        "render: median {med:.2} ms/frame (min {:.2}) over {frames} frames -> {:.2} Mtri/s, {:.1} Mpix/s",
        times[0],
        f64::from(tris) / med / 1e3,
        f64::from(W * H) / med / 1e3
    );
}
