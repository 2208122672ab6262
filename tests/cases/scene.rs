//! Golden cases built through the scene graph (`plumb-scene`) and drawn with `Scene::draw` +
//! `SoftRenderer` that stay in Rust (the other scene cases are scene files,
//! `refimages/scene/*.json`): Eberly's chapter 1 mesh, sorted transparent faces and screen
//! polygons. Described in `refimages/README.md`.

use std::sync::Arc;

use glam::{Vec2, Vec3, Vec4};
use plumb::mesh::TriMesh;
use plumb::raster::texture::{MagFilter, MinFilter, Sampler, Texture, Wrap};
use plumb::scene::*;

use super::scene_more::*;
use crate::SceneCase;

/// Every scene case, in README order.
pub const CASES: &[SceneCase] = &[
    SceneCase {
        name: "ch1_mesh",
        size: (320, 240),
        draw: ch1_mesh,
    },
    SceneCase {
        name: "sorted_cube_faces",
        size: (256, 256),
        draw: sorted_cube_faces,
    },
    SceneCase {
        name: "screen_polygons",
        size: (256, 192),
        draw: screen_polygons,
    },
];

// ----- helpers shared with the effect cases -----

/// A texture from a texel function, with mipmaps.
pub fn tex(w: u32, h: u32, f: impl Fn(u32, u32) -> [u8; 4]) -> Arc<Texture> {
    let mut px = Vec::with_capacity((w * h * 4) as usize);
    for y in 0..h {
        for x in 0..w {
            px.extend_from_slice(&f(x, y));
        }
    }
    Arc::new(
        Texture::from_rgba8(w, h, px)
            .expect("valid size")
            .with_generated_mips(),
    )
}

/// A checkerboard of `cells × cells` squares in two colours.
pub fn checker(n: u32, cells: u32, a: [u8; 4], b: [u8; 4]) -> Arc<Texture> {
    tex(n, n, |x, y| {
        if ((x * cells / n) + (y * cells / n)).is_multiple_of(2) {
            a
        } else {
            b
        }
    })
}

/// A perspective camera at `eye` looking at `target` (vertical fov in degrees).
pub fn camera(eye: Vec3, target: Vec3, fov_deg: f32, aspect: f32) -> Camera {
    let mut c = Camera::perspective(fov_deg.to_radians(), aspect, 0.1, 100.0).unwrap();
    c.look_at(eye, target, Vec3::Y).unwrap();
    c
}

/// An axis-aligned quad in the z = `z` plane from `(x0, y0)` to `(x1, y1)`, CCW seen from +z,
/// normal +z, uvs 0..1 (v down), one colour per corner (bottom-left, bottom-right, top-right,
/// top-left).
pub fn quad(x0: f32, y0: f32, x1: f32, y1: f32, z: f32, colors: [Vec4; 4]) -> Arc<Mesh> {
    let p = vec![
        Vec3::new(x0, y0, z),
        Vec3::new(x1, y0, z),
        Vec3::new(x1, y1, z),
        Vec3::new(x0, y1, z),
    ];
    let uv = vec![
        Vec2::new(0.0, 1.0),
        Vec2::new(1.0, 1.0),
        Vec2::new(1.0, 0.0),
        Vec2::new(0.0, 0.0),
    ];
    Arc::new(
        Mesh::triangles(p, vec![0, 1, 2, 0, 2, 3])
            .unwrap()
            .with_normals(vec![Vec3::Z; 4])
            .unwrap()
            .with_colors(colors.to_vec())
            .unwrap()
            .with_uv_set(uv.clone())
            .unwrap()
            .with_uv_set(uv)
            .unwrap(),
    )
}

/// `quad` in one colour.
pub fn flat_quad(x0: f32, y0: f32, x1: f32, y1: f32, z: f32, c: Vec4) -> Arc<Mesh> {
    quad(x0, y0, x1, y1, z, [c; 4])
}

/// A scene mesh from a `TriMesh` generator.
pub fn mesh(m: TriMesh) -> Arc<Mesh> {
    Arc::new(m.to_scene().unwrap())
}

/// Draws `scene` from `camera`. Every case ends with a full-screen overlay of colour
/// (0, 0, 0, 1) blended ADDITIVE (`src + dst`): it leaves RGB unchanged and forces the stored
/// alpha to 1, so image viewers show the colours as stored (DESIGN §6).
pub fn draw(r: &mut SoftRenderer, scene: &mut Scene, camera: &Camera) {
    if !scene
        .screen_polygons()
        .iter()
        .any(|p| p.layer == ScreenLayer::Overlay && p.states.alpha == AlphaState::ADDITIVE)
    {
        let corners = [
            Vec2::new(0.0, 0.0),
            Vec2::new(1.0, 0.0),
            Vec2::new(1.0, 1.0),
            Vec2::new(0.0, 1.0),
        ];
        let mut fix =
            ScreenPolygon::convex(&corners, rgba(0.0, 0.0, 0.0, 1.0), ScreenLayer::Overlay)
                .expect("a valid quad");
        fix.states.alpha = AlphaState::ADDITIVE;
        scene.add_screen_polygon(fix);
    }
    scene.draw(camera, r).expect("scene draws");
}

pub fn rgba(r: f32, g: f32, b: f32, a: f32) -> Vec4 {
    Vec4::new(r, g, b, a)
}

/// A lit world: a white directional light from the upper left front, attached at the root,
/// plus an ambient light of 0.25.
pub fn key_light(scene: &mut Scene) -> LightId {
    let key = scene
        .add_light(Light::directional(Vec3::new(1.0, -1.0, -1.0)))
        .unwrap();
    let amb = scene.add_light(Light::ambient(Vec3::splat(0.25))).unwrap();
    scene.attach_light(scene.root(), amb).unwrap();
    scene.attach_light(scene.root(), key).unwrap();
    key
}

// ----- chapter 1 -----

/// DrawMesh: a 32×32 grid over [−1,1]² with z = 0.1·rand (seeded LCG), uv = (x, y) mapped to
/// [0,1]; unit 0 REPLACE (repeat, mag linear, min nearest) with a brick texture, unit 1 the soft
/// add (COMBINE INTERPOLATE with constant white) of a cloudy "fog" texture; culling off.
fn ch1_mesh(r: &mut SoftRenderer) {
    let mut scene = Scene::new();
    scene.set_background(rgba(0.1, 0.1, 0.2, 1.0)).unwrap();
    let mut seed = 12345u32;
    let mut rand = || {
        seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12345);
        (seed >> 8) as f32 / (1u32 << 24) as f32
    };
    let (mut p, mut uv) = (Vec::new(), Vec::new());
    for i1 in 0..32 {
        for i0 in 0..32 {
            let (x, y) = (-1.0 + 2.0 * i0 as f32 / 31.0, -1.0 + 2.0 * i1 as f32 / 31.0);
            p.push(Vec3::new(x, y, 0.1 * rand()));
            uv.push(Vec2::new(0.5 * (x + 1.0), 0.5 * (y + 1.0)));
        }
    }
    let mut idx = Vec::new();
    for i1 in 0..31u32 {
        for i0 in 0..31u32 {
            let v0 = i0 + 32 * i1;
            let (v1, v3) = (v0 + 1, v0 + 32);
            let v2 = v1 + 32;
            idx.extend_from_slice(&[v0, v1, v2, v0, v2, v3]);
        }
    }
    let m = Mesh::triangles(p, idx)
        .unwrap()
        .with_uv_set(uv.clone())
        .unwrap()
        .with_uv_set(uv)
        .unwrap();
    let bricks = tex(64, 64, |x, y| {
        let row = y / 16;
        let off = if row % 2 == 0 { 0 } else { 16 };
        if y % 16 < 2 || (x + off) % 32 < 2 {
            [200, 200, 190, 255]
        } else {
            [150 + ((x * 7 + y * 3) % 40) as u8, 50, 40, 255]
        }
    });
    let fog = tex(64, 64, |x, y| {
        let (fx, fy) = (x as f32 / 64.0, y as f32 / 64.0);
        let v = 0.5
            + 0.25 * plumb::raster::math::sin(fx * 12.6) * plumb::raster::math::cos(fy * 6.3)
            + 0.2 * plumb::raster::math::sin((fx + fy) * 25.0);
        let b = (v.clamp(0.0, 1.0) * 160.0) as u8;
        [b, b, b, 255]
    });
    let sampler = Sampler {
        mag: MagFilter::Linear,
        min: MinFilter::Nearest,
        ..Sampler::TRILINEAR
    }
    .with_wrap(Wrap::Repeat);
    scene
        .set_global_state(scene.root(), GlobalState::Cull(CullState::NONE))
        .unwrap();
    let g = scene
        .add_geometry(scene.root(), "mesh", Arc::new(m))
        .unwrap();
    scene
        .set_effect(g, Some(Effect::light_map(bricks, fog, sampler, false)))
        .unwrap();
    let cam = camera(Vec3::new(0.0, -1.6, 2.2), Vec3::ZERO, 60.0, 4.0 / 3.0);
    draw(r, &mut scene, &cam);
}
