//! Small direct tests of the wgpu target against plumb's CPU `Context` (the reference) and
//! against values worked out by hand. They skip, with a message, where no Vulkan adapter
//! exists, unless `PLUMB_REQUIRE_GPU=1`, where a missing adapter fails them.

use std::sync::Arc;

use glam::{Mat4, Vec2, Vec3, Vec4};
use plumb_raster::light::{Light, LightKind, LightingState};
use plumb_raster::math;
use plumb_raster::texture::{Sampler, Texture};
use plumb_raster::{
    CompareFunc, Context, ContextOptions, DepthState, DrawTarget, FixedFunction, Indices,
    MeshInput, PipelineState, StencilOp, StencilState, TextureUnit, Topology, Transforms,
    VertexInput,
};
use plumb_wgpu::WgpuTarget;

/// A target, or `None` (test skipped) when there is no adapter and the GPU is not required.
fn target(w: u32, h: u32) -> Option<WgpuTarget> {
    match WgpuTarget::new(w, h) {
        Ok(t) => Some(t),
        Err(e) => {
            // Only a missing adapter skips; any other failure (a shader that does not
            // compile, a device error) fails the test.
            assert!(
                e.to_string().contains("no Vulkan adapter"),
                "wgpu target failed: {e}"
            );
            if std::env::var("PLUMB_REQUIRE_GPU").is_ok_and(|v| v == "1") {
                panic!("PLUMB_REQUIRE_GPU=1 but no wgpu target: {e}");
            }
            eprintln!("SKIPPED: no Vulkan adapter ({e}); set PLUMB_REQUIRE_GPU=1 to fail instead");
            None
        }
    }
}

fn cpu(w: u32, h: u32) -> Context {
    Context::new(w, h, ContextOptions { threads: Some(1) }).expect("context")
}

/// Largest per-channel difference and the number of pixels differing by more than `tol`.
fn compare(a: &image::RgbaImage, b: &image::RgbaImage, tol: u8) -> (u8, usize) {
    assert_eq!(a.dimensions(), b.dimensions());
    let mut worst = 0;
    let mut over = 0;
    for (p, q) in a.pixels().zip(b.pixels()) {
        let d =
            p.0.iter()
                .zip(q.0)
                .map(|(x, y)| x.abs_diff(y))
                .max()
                .unwrap_or(0);
        worst = worst.max(d);
        if d > tol {
            over += 1;
        }
    }
    (worst, over)
}

fn tri() -> [Vec4; 3] {
    [
        Vec4::new(-0.8, -0.8, 0.5, 1.0),
        Vec4::new(0.8, -0.6, 0.5, 1.0),
        Vec4::new(-0.2, 0.9, 0.5, 1.0),
    ]
}

#[test]
fn clear_fills_every_pixel() {
    let Some(mut t) = target(13, 7) else { return };
    t.clear(Vec4::new(1.0, 0.5, 0.0, 1.0), 1.0, 0);
    let img = t.read_back().expect("read back");
    assert_eq!(img.dimensions(), (13, 7));
    // 0.5 · 255 = 127.5 rounds to 128.
    assert!(
        img.pixels().all(|p| p.0 == [255, 128, 0, 255]),
        "{:?}",
        img.get_pixel(0, 0)
    );
}

#[test]
fn clear_rect_touches_only_its_rectangle() {
    let Some(mut t) = target(16, 16) else { return };
    t.clear(Vec4::new(0.0, 0.0, 0.0, 1.0), 1.0, 0);
    let r = plumb_raster::Rect {
        x: 4,
        y: 2,
        width: 5,
        height: 3,
    };
    t.clear_rect(r, Some(Vec4::new(0.0, 1.0, 0.0, 1.0)), None, None);
    let img = t.read_back().expect("read back");
    for (x, y, p) in img.enumerate_pixels() {
        let inside = (4..9).contains(&x) && (2..5).contains(&y);
        let want = if inside {
            [0, 255, 0, 255]
        } else {
            [0, 0, 0, 255]
        };
        assert_eq!(p.0, want, "pixel {x},{y}");
    }
}

#[test]
fn triangle_matches_the_cpu_reference() {
    let (w, h) = (64, 48);
    let Some(mut t) = target(w, h) else { return };
    let mut c = cpu(w, h);
    let pos = tri();
    let col = [
        Vec4::new(1.0, 0.0, 0.0, 1.0),
        Vec4::new(0.0, 1.0, 0.0, 1.0),
        Vec4::new(0.0, 0.0, 1.0, 1.0),
    ];
    for d in [&mut t as &mut dyn DrawTarget, &mut c] {
        d.clear(Vec4::new(0.0, 0.0, 0.0, 1.0), 1.0, 0);
        let s = d.default_state();
        d.draw(
            &s,
            &VertexInput::colored(&pos, &col),
            Indices::None,
            Topology::TriangleList,
        )
        .expect("draw");
    }
    let gpu = t.read_back().expect("read back");
    c.finish();
    let (worst, over) = compare(&gpu, &c.color_image(), 2);
    assert!(
        over <= 4,
        "{over} pixels differ by more than 2 (worst {worst})"
    );
    // The top row is above the triangle (row 0 is the top of the image).
    assert_eq!(gpu.get_pixel(32, 0).0, [0, 0, 0, 255]);
}

#[test]
fn depth_test_keeps_the_nearer_triangle() {
    let Some(mut t) = target(32, 32) else { return };
    t.clear(Vec4::new(0.0, 0.0, 0.0, 1.0), 1.0, 0);
    let s = PipelineState {
        depth: DepthState::LESS_WRITE,
        ..t.default_state()
    };
    let quad = |z: f32| {
        [
            Vec4::new(-1.0, -1.0, z, 1.0),
            Vec4::new(3.0, -1.0, z, 1.0),
            Vec4::new(-1.0, 3.0, z, 1.0),
        ]
    };
    let near = quad(0.25);
    let far = quad(0.75);
    let red = [Vec4::new(1.0, 0.0, 0.0, 1.0); 3];
    let blue = [Vec4::new(0.0, 0.0, 1.0, 1.0); 3];
    t.draw(
        &s,
        &VertexInput::colored(&near, &red),
        Indices::None,
        Topology::TriangleList,
    )
    .expect("near");
    t.draw(
        &s,
        &VertexInput::colored(&far, &blue),
        Indices::None,
        Topology::TriangleList,
    )
    .expect("far");
    let img = t.read_back().expect("read back");
    assert!(
        img.pixels().all(|p| p.0 == [255, 0, 0, 255]),
        "the far triangle won somewhere"
    );
    // With GREATER the far one passes.
    let s2 = PipelineState {
        depth: DepthState {
            func: CompareFunc::Greater,
            write: true,
        },
        ..s
    };
    t.draw(
        &s2,
        &VertexInput::colored(&far, &blue),
        Indices::None,
        Topology::TriangleList,
    )
    .expect("far again");
    let img = t.read_back().expect("read back");
    assert!(img.pixels().all(|p| p.0 == [0, 0, 255, 255]));
}

#[test]
fn stencil_masks_a_second_draw() {
    let Some(mut t) = target(32, 32) else { return };
    t.clear(Vec4::new(0.0, 0.0, 0.0, 1.0), 1.0, 0);
    let base = PipelineState {
        depth: DepthState::DISABLED,
        ..t.default_state()
    };
    let write = PipelineState {
        stencil: StencilState {
            enabled: true,
            func: CompareFunc::Always,
            reference: 3,
            pass: StencilOp::Replace,
            ..StencilState::DISABLED
        },
        color_mask: [false; 4],
        ..base
    };
    let pos = tri();
    let white = [Vec4::ONE; 3];
    t.draw(
        &write,
        &VertexInput::colored(&pos, &white),
        Indices::None,
        Topology::TriangleList,
    )
    .expect("stencil");
    let test = PipelineState {
        stencil: StencilState {
            enabled: true,
            func: CompareFunc::Equal,
            reference: 3,
            ..StencilState::DISABLED
        },
        ..base
    };
    let full = [
        Vec4::new(-1.0, -1.0, 0.5, 1.0),
        Vec4::new(3.0, -1.0, 0.5, 1.0),
        Vec4::new(-1.0, 3.0, 0.5, 1.0),
    ];
    t.draw(
        &test,
        &VertexInput::colored(&full, &white),
        Indices::None,
        Topology::TriangleList,
    )
    .expect("masked");
    let gpu = t.read_back().expect("read back");
    // The same on the CPU: white exactly where the first triangle is.
    let mut c = cpu(32, 32);
    c.clear(Vec4::new(0.0, 0.0, 0.0, 1.0), 1.0, 0);
    c.draw(
        &base,
        &VertexInput::colored(&pos, &white),
        Indices::None,
        Topology::TriangleList,
    )
    .expect("cpu");
    c.finish();
    let (worst, over) = compare(&gpu, &c.color_image(), 0);
    assert!(over <= 2, "{over} pixels differ (worst {worst})");
    assert!(gpu.pixels().any(|p| p.0 == [0, 0, 0, 255]));
}

fn checker() -> Arc<Texture> {
    let mut px = Vec::new();
    for y in 0..8u32 {
        for x in 0..8u32 {
            let on = (x + y) % 2 == 0;
            px.extend_from_slice(if on {
                &[255, 255, 255, 255]
            } else {
                &[40, 80, 160, 255]
            });
        }
    }
    Arc::new(
        Texture::from_rgba8(8, 8, px)
            .expect("texture")
            .with_generated_mips(),
    )
}

fn textured(d: &mut dyn DrawTarget, sampler: Sampler, lit: bool) {
    d.clear(Vec4::new(0.1, 0.1, 0.1, 1.0), 1.0, 0);
    let pos = [
        Vec3::new(-1.0, -1.0, 0.0),
        Vec3::new(1.0, -1.0, 0.0),
        Vec3::new(1.0, 1.0, 0.0),
        Vec3::new(-1.0, 1.0, 0.0),
    ];
    let nrm = [Vec3::Z; 4];
    let uv = [
        Vec2::new(0.0, 1.0),
        Vec2::new(1.0, 1.0),
        Vec2::new(1.0, 0.0),
        Vec2::new(0.0, 0.0),
    ];
    let uvs = [&uv[..]];
    let mesh = MeshInput {
        positions: &pos,
        normals: Some(&nrm),
        colors: None,
        uvs: &uvs,
    };
    let mut ff = FixedFunction::default();
    ff.units.push(TextureUnit::new(checker(), sampler));
    if lit {
        let mut l = LightingState::default();
        l.push_light(
            Light::new(LightKind::Point {
                position: Vec3::new(0.5, 0.5, -2.0),
            })
            .with_diffuse(Vec3::ONE)
            .with_specular(Vec3::ONE),
        )
        .expect("light");
        l.material.specular = Vec3::splat(0.5);
        l.material.shininess = 8.0;
        ff.lighting = Some(l);
        ff.per_pixel_lighting = true;
    }
    let tr = Transforms {
        view_from_model: Mat4::from_translation(Vec3::new(0.0, 0.0, -3.0))
            * Mat4::from_rotation_x(-0.9),
        clip_from_view: Mat4::perspective_rh(0.9, 1.0, 0.5, 10.0),
    };
    let s = d.default_state();
    d.draw_fixed(
        &s,
        &ff,
        &tr,
        &mesh,
        Indices::U16(&[0, 1, 2, 0, 2, 3]),
        Topology::TriangleList,
    )
    .expect("draw_fixed");
}

#[test]
fn nearest_texture_matches_the_cpu_reference() {
    let Some(mut t) = target(64, 64) else { return };
    let mut c = cpu(64, 64);
    textured(&mut t, Sampler::NEAREST, false);
    textured(&mut c, Sampler::NEAREST, false);
    let gpu = t.read_back().expect("read back");
    c.finish();
    let (worst, over) = compare(&gpu, &c.color_image(), 2);
    // Texel edges may fall either side of a pixel centre, and triangle edges may round.
    assert!(
        over <= 40,
        "{over} pixels differ by more than 2 (worst {worst})"
    );
    // Both colours of the checker are there.
    assert!(gpu.pixels().any(|p| p.0 == [255, 255, 255, 255]));
    assert!(gpu.pixels().any(|p| p.0 == [40, 80, 160, 255]));
}

#[test]
fn lit_trilinear_texture_matches_the_cpu_reference() {
    let Some(mut t) = target(64, 64) else { return };
    let mut c = cpu(64, 64);
    textured(&mut t, Sampler::TRILINEAR, true);
    textured(&mut c, Sampler::TRILINEAR, true);
    let gpu = t.read_back().expect("read back");
    c.finish();
    let (worst, over) = compare(&gpu, &c.color_image(), 4);
    assert!(
        over <= 64,
        "{over} pixels differ by more than 4 (worst {worst})"
    );
}

#[test]
fn bad_input_is_an_error_not_a_panic() {
    let Some(mut t) = target(8, 8) else { return };
    let s = t.default_state();
    let pos = tri();
    let col = [Vec4::ONE; 2];
    let e = t.draw(
        &s,
        &VertexInput::colored(&pos, &col),
        Indices::None,
        Topology::TriangleList,
    );
    assert!(
        matches!(e, Err(plumb_raster::Error::BufferLength { .. })),
        "{e:?}"
    );
    let e = t.draw(
        &s,
        &VertexInput::positions(&pos),
        Indices::U32(&[0, 1, 7]),
        Topology::TriangleList,
    );
    assert!(
        matches!(e, Err(plumb_raster::Error::IndexOutOfRange { .. })),
        "{e:?}"
    );
    assert!(matches!(
        WgpuTarget::new(0, 4),
        Err(plumb_raster::Error::InvalidSize { .. })
    ));
}

/// One flat-coloured quad per pixel of a `n`×`n` target, as a triangle list (pixel `i` is
/// column `i % n`, row `i / n`, row 0 at the top).
fn pixel_quads(n: u32, colors: &[Vec4]) -> (Vec<Vec4>, Vec<Vec4>) {
    let mut pos = Vec::new();
    let mut col = Vec::new();
    let cell = 2.0 / n as f32;
    for (i, c) in colors.iter().enumerate() {
        let (x, y) = ((i as u32 % n) as f32, (i as u32 / n) as f32);
        let (x0, x1) = (-1.0 + x * cell, -1.0 + (x + 1.0) * cell);
        let (y0, y1) = (1.0 - (y + 1.0) * cell, 1.0 - y * cell);
        for (px, py) in [(x0, y0), (x1, y0), (x1, y1), (x0, y0), (x1, y1), (x0, y1)] {
            pos.push(Vec4::new(px, py, 0.5, 1.0));
            col.push(*c);
        }
    }
    (pos, col)
}

/// What the `SRC_ALPHA, ONE_MINUS_SRC_ALPHA` blend does to 8-bit values on lavapipe: the
/// source is converted to 8 bits first, and each product `x·y/255` is approximated on its own
/// in 8-bit fixed point as `(t + (t >> 8) + 128) >> 8` with `t = x·y` (this rounds some
/// products that end in .502 down), then the two are added with saturation. plumb blends in
/// `f32` and rounds the sum once. Found by fitting the GPU's bytes: the variant that adds 128
/// before the shift misses 7 of 12,288 channels of this test, this one none.
fn fixed_point_blend(s: u8, a: u8, d: u8) -> u8 {
    let mul = |x: u8, y: u8| {
        let t = u32::from(x) * u32::from(y);
        (t + (t >> 8) + 128) >> 8
    };
    (mul(s, a) + mul(d, 255 - a)).min(255) as u8
}

#[test]
fn blending_differs_from_plumb_only_by_fixed_point_rounding() {
    let n = 64u32;
    let Some(mut t) = target(n, n) else { return };
    let mut c = cpu(n, n);
    // Every pixel its own destination, source colour and alpha, all whole bytes.
    let mut seed = 0x2545_f491_u32;
    let mut byte = move || {
        seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        (seed >> 24) as u8
    };
    let f = |b: u8| f32::from(b) / 255.0;
    let mut dst = Vec::new();
    let mut src = Vec::new();
    for _ in 0..n * n {
        dst.push(Vec4::new(f(byte()), f(byte()), f(byte()), 1.0));
        src.push(Vec4::new(f(byte()), f(byte()), f(byte()), f(byte())));
    }
    let (dpos, dcol) = pixel_quads(n, &dst);
    let (spos, scol) = pixel_quads(n, &src);
    for d in [&mut t as &mut dyn DrawTarget, &mut c] {
        d.clear(Vec4::new(0.0, 0.0, 0.0, 1.0), 1.0, 0);
        let s = d.default_state();
        d.draw(
            &s,
            &VertexInput::colored(&dpos, &dcol),
            Indices::None,
            Topology::TriangleList,
        )
        .expect("destination");
        let blended = PipelineState {
            blend: plumb_raster::BlendState::ALPHA,
            ..s
        };
        d.draw(
            &blended,
            &VertexInput::colored(&spos, &scol),
            Indices::None,
            Topology::TriangleList,
        )
        .expect("source");
    }
    let gpu = t.read_back().expect("read back");
    c.finish();
    let cpu = c.color_image();
    let (mut fixed_misses, mut plumb_misses, mut plumb_worst) = (0, 0, 0u8);
    for i in 0..(n * n) as usize {
        let (x, y) = (i as u32 % n, i as u32 / n);
        let (g, p) = (gpu.get_pixel(x, y).0, cpu.get_pixel(x, y).0);
        let a = (src[i].w * 255.0).round() as u8;
        for ch in 0..3 {
            let s = (src[i][ch] * 255.0).round() as u8;
            let d = (dst[i][ch] * 255.0).round() as u8;
            if g[ch] != fixed_point_blend(s, a, d) {
                fixed_misses += 1;
            }
            if g[ch] != p[ch] {
                plumb_misses += 1;
            }
            plumb_worst = plumb_worst.max(g[ch].abs_diff(p[ch]));
        }
    }
    let adapter = plumb_wgpu::adapter_info().expect("adapter");
    eprintln!(
        "{adapter}: {fixed_misses} channels differ from the fixed-point model, \
         {plumb_misses} from plumb (worst {plumb_worst})"
    );
    assert!(
        plumb_worst <= 2,
        "blend differs from plumb by {plumb_worst}"
    );
    if adapter.contains("llvmpipe") {
        assert_eq!(
            fixed_misses, 0,
            "lavapipe no longer blends in 8-bit fixed point"
        );
        assert!(
            plumb_misses > 0,
            "the sample never hits a rounding difference"
        );
    }
}

/// A UV sphere of radius 1: positions (= normals), uvs, tangents along +u, triangle indices.
fn sphere(nu: u32, nv: u32) -> (Vec<Vec3>, Vec<Vec2>, Vec<Vec4>, Vec<u32>) {
    let (mut pos, mut uv, mut tan, mut idx) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for j in 0..=nv {
        let (st, ct) = math::sin_cos(std::f32::consts::PI * j as f32 / nv as f32);
        for i in 0..=nu {
            let (sp, cp) = math::sin_cos(std::f32::consts::TAU * i as f32 / nu as f32);
            pos.push(Vec3::new(st * cp, ct, st * sp));
            uv.push(Vec2::new(i as f32 / nu as f32, j as f32 / nv as f32));
            tan.push(Vec4::new(-sp, 0.0, cp, 1.0));
        }
    }
    for j in 0..nv {
        for i in 0..nu {
            let a = j * (nu + 1) + i;
            let b = a + nu + 1;
            idx.extend_from_slice(&[a, a + 1, b, a + 1, b + 1, b]);
        }
    }
    (pos, uv, tan, idx)
}

/// glTF's PBR stage (`pbr.wgsl`) against plumb-raster's: a textured, normal-mapped,
/// half-metal sphere lit by a directional light, a point light with a range and the studio
/// environment, ACES tone mapped. Each term is the CPU's formula; the GPU's own `pow`,
/// `atan2`, `asin` and interpolation may move a pixel by a level or two, and a few at the
/// silhouette and at texel edges by more.
#[test]
fn pbr_sphere_matches_the_cpu_reference() {
    use plumb_raster::environment::{Environment, PbrEnvironment};
    use plumb_raster::pbr::{PbrDraw, PbrMaterial, PbrOutput, PbrTexture, ToneMap};
    let (w, h) = (96, 96);
    let Some(mut t) = target(w, h) else { return };
    let mut c = cpu(w, h);
    let (pos, uv, tan, idx) = sphere(48, 24);
    let uvs = [&uv[..]];
    let mesh = MeshInput {
        positions: &pos,
        normals: Some(&pos),
        colors: None,
        uvs: &uvs,
    };
    // A normal map tilting every normal a little along +u: exercises the tangent frame.
    let bumps = Arc::new(
        Texture::from_rgba8(1, 1, vec![160, 128, 240, 255])
            .expect("texture")
            .with_generated_mips(),
    );
    let tex = |texture: Arc<Texture>| PbrTexture {
        texture,
        sampler: Sampler::TRILINEAR,
        uv_set: 0,
        matrix: Mat4::IDENTITY,
    };
    let material = PbrMaterial {
        base_color: Vec4::new(0.9, 0.7, 0.5, 1.0),
        metallic: 0.5,
        roughness: 0.35,
        base_color_texture: Some(tex(checker())),
        normal_texture: Some(tex(bumps)),
        ..PbrMaterial::default()
    };
    let mut point = Light::new(LightKind::Point {
        position: Vec3::new(-1.5, 1.0, -1.5),
    })
    .with_diffuse(Vec3::new(1.0, 0.8, 0.6));
    point.intensity = 6.0;
    point.attenuation = [0.0, 0.0, 1.0];
    point.range = Some(4.0);
    let mut sun = Light::new(LightKind::Directional {
        direction: Vec3::new(0.3, -0.5, -1.0),
    })
    .with_diffuse(Vec3::ONE);
    sun.intensity = 2.0;
    let draw = PbrDraw {
        material,
        lights: vec![sun, point],
        output: PbrOutput {
            tone_map: ToneMap::AcesFilmic,
            ..PbrOutput::default()
        },
        environment: Some(PbrEnvironment {
            map: Environment::studio(),
            intensity: 0.8,
            world_from_eye: glam::Mat3::from_rotation_y(0.4),
        }),
    };
    let tr = Transforms {
        view_from_model: Mat4::from_translation(Vec3::new(0.0, 0.0, -3.0))
            * Mat4::from_rotation_x(0.3),
        clip_from_view: Mat4::perspective_rh(0.9, 1.0, 0.5, 10.0),
    };
    for d in [&mut t as &mut dyn DrawTarget, &mut c] {
        d.clear(Vec4::new(0.0, 0.0, 0.0, 1.0), 1.0, 0);
        let s = d.default_state();
        d.draw_pbr(
            &s,
            &draw,
            &tr,
            &mesh,
            Some(&tan),
            Indices::U32(&idx),
            Topology::TriangleList,
        )
        .expect("draw_pbr");
    }
    let gpu = t.read_back().expect("read back");
    c.finish();
    let cpu_img = c.color_image();
    let (worst, over) = compare(&gpu, &cpu_img, 2);
    let covered = cpu_img.pixels().filter(|p| p.0[..3] != [0, 0, 0]).count();
    println!("{over} of {covered} pixels differ by more than 2 (worst {worst})");
    if let Ok(dir) = std::env::var("PLUMB_DIRECT_OUT") {
        gpu.save(format!("{dir}/pbr_gpu.png")).expect("save");
        cpu_img.save(format!("{dir}/pbr_cpu.png")).expect("save");
    }
    assert!(covered > 3000, "{covered} pixels drawn");
    assert!(
        over * 100 <= covered,
        "{over} of {covered} pixels differ by more than 2 (worst {worst})"
    );
    // Not a flat disc: the lights and the studio make bright and dark parts.
    let lum = |p: &image::Rgba<u8>| u32::from(p.0[0]) + u32::from(p.0[1]) + u32::from(p.0[2]);
    let lit = cpu_img.pixels().map(lum).max().unwrap_or(0);
    assert!(lit > 600, "brightest pixel sum {lit}");
}
