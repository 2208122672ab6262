//! Physically based draws (`Context::draw_pbr`) against values worked out here, not by the
//! code under test: a white furnace sphere, a facing quad under one directional light, a
//! flat normal map, and the refusals.

use crate::common;

use std::sync::Arc;

use common::{at_every_level, ctx, px};
use glam::{Mat4, Vec2, Vec3, Vec4};
use plumb_raster::light::{Light, LightKind};
use plumb_raster::pbr::{PbrDraw, PbrMaterial, PbrTexture, MAX_PBR_LIGHTS};
use plumb_raster::texture::{Sampler, Texture};
use plumb_raster::*;

/// A UV sphere of radius 1 at the origin: positions (= normals), uvs, tangents along +u,
/// and triangle indices.
fn sphere(rings: u32, segments: u32) -> (Vec<Vec3>, Vec<Vec2>, Vec<Vec4>, Vec<u32>) {
    let (mut p, mut uv, mut t, mut idx) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for i in 0..=rings {
        let v = i as f32 / rings as f32;
        let theta = v * std::f32::consts::PI;
        for j in 0..=segments {
            let u = j as f32 / segments as f32;
            let phi = u * std::f32::consts::TAU;
            let (st, ct) = (math::sin(theta), math::cos(theta));
            let (sp, cp) = (math::sin(phi), math::cos(phi));
            p.push(Vec3::new(st * cp, ct, -st * sp));
            uv.push(Vec2::new(u, v));
            t.push(Vec4::new(-sp, 0.0, -cp, 1.0));
        }
    }
    let row = segments + 1;
    for i in 0..rings {
        for j in 0..segments {
            let a = i * row + j;
            let b = a + row;
            idx.extend_from_slice(&[a, b, a + 1, a + 1, b, b + 1]);
        }
    }
    (p, uv, t, idx)
}

/// Draws a triangle list with `d` into `c` and finishes the frame.
fn draw_list(
    c: &mut Context,
    d: &PbrDraw,
    t: &Transforms,
    mesh: &MeshInput<'_>,
    tangents: Option<&[Vec4]>,
    idx: &[u32],
) {
    let st = c.default_state();
    c.draw_pbr(
        &st,
        d,
        t,
        mesh,
        tangents,
        Indices::U32(idx),
        Topology::TriangleList,
    )
    .unwrap();
    c.finish();
}

fn perspective() -> Transforms {
    Transforms {
        view_from_model: Mat4::from_translation(Vec3::new(0.0, 0.0, -3.0)),
        clip_from_view: Mat4::perspective_rh(0.8, 1.0, 0.5, 10.0),
    }
}

/// A white sphere under a white uniform environment (an ambient light of radiance 1, no
/// other light) reflects all of it: every covered pixel is white within 1 % (linear 0.99
/// encodes to 253.9), dielectric or metal, rough or smooth, at every SIMD level.
#[test]
fn white_furnace_sphere() {
    let (p, uv, _, idx) = sphere(24, 48);
    for (metallic, roughness) in [(0.0, 1.0), (0.0, 0.3), (1.0, 0.5), (0.5, 0.8)] {
        let img = at_every_level(|level| {
            let mut c = ctx(64, 64, 2);
            c.set_simd_level(level).unwrap();
            c.clear(Vec4::new(0.0, 0.0, 1.0, 1.0), 1.0, 0);
            let draw = PbrDraw {
                material: PbrMaterial {
                    metallic,
                    roughness,
                    ..PbrMaterial::default()
                },
                lights: vec![Light::new(LightKind::Ambient).with_ambient(Vec3::ONE)],
                ..PbrDraw::default()
            };
            let uvs = [&uv[..]];
            let mesh = MeshInput {
                positions: &p,
                normals: Some(&p),
                uvs: &uvs,
                ..Default::default()
            };
            draw_list(&mut c, &draw, &perspective(), &mesh, None, &idx);
            c.color_image().into_raw()
        });
        let mut covered = 0;
        for px in img.chunks_exact(4) {
            if px[2] == 255 && px[0] == 0 && px[1] == 0 {
                continue; // background
            }
            covered += 1;
            assert!(
                px[..3].iter().all(|&x| x >= 253),
                "m {metallic} r {roughness}: {px:?}"
            );
        }
        assert!(covered > 1000, "{covered}");
    }
}

/// sRGB encoding of a linear value, in f64 (IEC 61966-2-1).
#[allow(
    clippy::disallowed_methods,
    reason = "the test's own f64 reference for the expected bytes, not a path to pixels"
)]
fn srgb8(x: f64) -> u8 {
    let x = x.clamp(0.0, 1.0);
    let e = if x <= 0.003_130_8 {
        12.92 * x
    } else {
        1.055 * x.powf(1.0 / 2.4) - 0.055
    };
    (e * 255.0).round() as u8
}

/// A quad facing an orthographic camera, lit by a directional light travelling along −z:
/// `N·L = N·V = N·H = V·H = 1`, so `F = F0`, `D = 1/(π·α²)`, `Vis = 1/4`, and the pixel is
/// `E·((1 − F0)·c_diff/π + F0/(4π·α²))`, worked here in f64.
#[test]
fn facing_quad_under_one_directional_light() {
    let cases = [
        // (base, metallic, roughness, irradiance)
        (Vec3::new(0.5, 0.25, 0.8), 0.0, 1.0, 3.0),
        (Vec3::new(0.9, 0.6, 0.2), 1.0, 0.6, 1.5),
        (Vec3::new(0.3, 0.3, 0.3), 0.5, 0.8, 2.0),
    ];
    for (base, metallic, roughness, e) in cases {
        let mut c = ctx(8, 8, 1);
        c.clear(Vec4::ZERO, 1.0, 0);
        let p = [
            Vec3::new(-2.0, -2.0, 0.0),
            Vec3::new(2.0, -2.0, 0.0),
            Vec3::new(2.0, 2.0, 0.0),
            Vec3::new(-2.0, 2.0, 0.0),
        ];
        let n = [Vec3::Z; 4];
        let draw = PbrDraw {
            material: PbrMaterial {
                base_color: base.extend(1.0),
                metallic,
                roughness,
                ..PbrMaterial::default()
            },
            lights: vec![Light::new(LightKind::Directional {
                direction: Vec3::NEG_Z,
            })
            .with_diffuse(Vec3::ONE)
            .with_intensity(e)],
            ..PbrDraw::default()
        };
        let t = Transforms {
            view_from_model: Mat4::from_translation(Vec3::new(0.0, 0.0, -5.0)),
            clip_from_view: Mat4::orthographic_rh(-1.0, 1.0, -1.0, 1.0, 1.0, 10.0),
        };
        let mesh = MeshInput {
            positions: &p,
            normals: Some(&n),
            ..Default::default()
        };
        draw_list(&mut c, &draw, &t, &mesh, None, &[0, 1, 2, 0, 2, 3]);
        let got = px(&mut c, 4, 4);
        let (m, r) = (f64::from(metallic), f64::from(roughness));
        let a2 = (r * r) * (r * r);
        for ch in 0..3 {
            let b = f64::from(base[ch]);
            let f0 = 0.04 * (1.0 - m) + b * m;
            let c_diff = b * (1.0 - m);
            let pi = std::f64::consts::PI;
            let lit = f64::from(e) * ((1.0 - f0) * c_diff / pi + f0 / (4.0 * pi * a2));
            let want = srgb8(lit);
            assert!(
                got[ch].abs_diff(want) <= 1,
                "{base} m {metallic} r {roughness} channel {ch}: {} vs {want} (linear {lit})",
                got[ch]
            );
        }
        assert_eq!(got[3], 255);
    }
}

/// A normal map at scale 0 (glTF's `normalTexture.scale`: the normal `(0, 0, 1)` in the
/// tangent frame whatever the texels) draws what no normal map draws, within one level:
/// the tangent frame's normal is the interpolated one. (At scale 1, a texel of
/// `(128, 128, 255)` is 0.3° off, which moves a highlight by up to 12 levels.)
#[test]
fn a_flat_normal_map_changes_nothing() {
    let (p, uv, t, idx) = sphere(16, 32);
    let flat = Arc::new(Texture::from_rgba8(2, 2, [200, 40, 180, 255].repeat(4)).unwrap());
    let draw = |normal_map: bool| {
        let mut c = ctx(48, 48, 1);
        c.clear(Vec4::ZERO, 1.0, 0);
        let d = PbrDraw {
            material: PbrMaterial {
                base_color: Vec4::new(0.8, 0.5, 0.3, 1.0),
                metallic: 0.3,
                roughness: 0.4,
                normal_scale: 0.0,
                normal_texture: normal_map.then(|| PbrTexture {
                    texture: Arc::clone(&flat),
                    sampler: Sampler::default(),
                    uv_set: 0,
                    matrix: Mat4::IDENTITY,
                }),
                ..PbrMaterial::default()
            },
            lights: vec![Light::new(LightKind::Directional {
                direction: Vec3::new(-0.3, -0.5, -1.0),
            })
            .with_diffuse(Vec3::ONE)
            .with_intensity(3.0)],
            ..PbrDraw::default()
        };
        let uvs = [&uv[..]];
        let mesh = MeshInput {
            positions: &p,
            normals: Some(&p),
            uvs: &uvs,
            ..Default::default()
        };
        draw_list(&mut c, &d, &perspective(), &mesh, Some(&t), &idx);
        c.color_image().into_raw()
    };
    let (with, without) = (draw(true), draw(false));
    let worst = with
        .iter()
        .zip(&without)
        .map(|(a, b)| a.abs_diff(*b))
        .max()
        .unwrap();
    assert!(worst <= 1, "{worst}");
    assert!(without.chunks_exact(4).filter(|p| p[0] > 0).count() > 500);
}

/// Bad input is refused before anything is drawn, with the reason.
#[test]
fn refusals() {
    let p = [Vec3::ZERO, Vec3::X, Vec3::Y];
    let n = [Vec3::Z; 3];
    let mesh = MeshInput {
        positions: &p,
        normals: Some(&n),
        ..Default::default()
    };
    let t = perspective();
    let idx = [0u32, 1, 2];
    let run = |draw: &PbrDraw, mesh: &MeshInput<'_>, tangents: Option<&[Vec4]>| {
        let mut c = ctx(4, 4, 1);
        let st = c.default_state();
        c.draw_pbr(
            &st,
            draw,
            &t,
            mesh,
            tangents,
            Indices::U32(&idx),
            Topology::TriangleList,
        )
        .unwrap_err()
        .to_string()
    };
    let ok = PbrDraw::default();
    let no_normals = MeshInput {
        normals: None,
        ..mesh
    };
    assert!(run(&ok, &no_normals, None).contains("no normals"));
    let nan = PbrDraw {
        material: PbrMaterial {
            metallic: f32::NAN,
            ..PbrMaterial::default()
        },
        ..PbrDraw::default()
    };
    assert!(run(&nan, &mesh, None).contains("non-finite"));
    let tex = Arc::new(Texture::from_rgba8(1, 1, vec![128, 128, 255, 255]).unwrap());
    let mapped = PbrDraw {
        material: PbrMaterial {
            normal_texture: Some(PbrTexture {
                texture: tex,
                sampler: Sampler::default(),
                uv_set: 0,
                matrix: Mat4::IDENTITY,
            }),
            ..PbrMaterial::default()
        },
        ..PbrDraw::default()
    };
    assert!(run(&mapped, &mesh, None).contains("needs tangents"));
    let short = [Vec4::X; 2];
    assert!(run(&mapped, &mesh, Some(&short)).contains("tangents"));
    // The normal texture reads uv set 0, which the mesh lacks.
    assert!(run(&mapped, &mesh, Some(&[Vec4::X; 3])).contains("uv set"));
    let many = PbrDraw {
        lights: vec![Light::new(LightKind::Ambient); MAX_PBR_LIGHTS + 1],
        ..PbrDraw::default()
    };
    assert!(run(&many, &mesh, None).contains("PBR lights"));
    let bad_light = PbrDraw {
        lights: vec![Light::new(LightKind::Point {
            position: Vec3::new(f32::INFINITY, 0.0, 0.0),
        })],
        ..PbrDraw::default()
    };
    assert!(run(&bad_light, &mesh, None).contains("light 0"));
}

/// A draw target that does not draw PBR says so (the trace recorder here).
#[cfg(feature = "trace")]
#[test]
fn a_recorder_refuses_pbr_draws() {
    let mut r = plumb_raster::trace::Recorder::new(4, 4).unwrap();
    let p = [Vec3::ZERO, Vec3::X, Vec3::Y];
    let mesh = MeshInput {
        positions: &p,
        normals: Some(&p),
        ..Default::default()
    };
    let st = r.default_state();
    let e = r
        .draw_pbr(
            &st,
            &PbrDraw::default(),
            &perspective(),
            &mesh,
            None,
            Indices::U32(&[0, 1, 2]),
            Topology::TriangleList,
        )
        .unwrap_err();
    assert!(matches!(e, Error::Unsupported(_)), "{e}");
}

/// The tangent frame's orientation: on a quad facing the camera with tangent `+x`, a texel
/// encoding `(0.6, 0, 0.8)` tilts the normal towards `+x`, so a light from `+x` lights it
/// more than one from `−x`; `(0, 0.6, 0.8)` tilts it towards the bitangent `w·(N × T)`:
/// `+y` for `w = 1`, `−y` for `w = −1` (glTF's convention).
#[test]
fn normal_maps_tilt_along_the_tangent_frame() {
    let enc = |x: f32| ((x + 1.0) * 0.5 * 255.0).round() as u8;
    let lit = |texel: [f32; 3], w: f32, from: Vec3| {
        let mut c = ctx(8, 8, 1);
        c.clear(Vec4::ZERO, 1.0, 0);
        let tex = Texture::from_rgba8(1, 1, vec![enc(texel[0]), enc(texel[1]), enc(texel[2]), 255]);
        let p = [
            Vec3::new(-2.0, -2.0, 0.0),
            Vec3::new(2.0, -2.0, 0.0),
            Vec3::new(2.0, 2.0, 0.0),
            Vec3::new(-2.0, 2.0, 0.0),
        ];
        let uv = [Vec2::ZERO, Vec2::X, Vec2::ONE, Vec2::Y];
        let uvs = [&uv[..]];
        let d = PbrDraw {
            material: PbrMaterial {
                base_color: Vec4::splat(0.5),
                metallic: 0.0,
                roughness: 1.0,
                normal_texture: Some(PbrTexture {
                    texture: Arc::new(tex.unwrap()),
                    sampler: Sampler::default(),
                    uv_set: 0,
                    matrix: Mat4::IDENTITY,
                }),
                ..PbrMaterial::default()
            },
            lights: vec![Light::new(LightKind::Directional { direction: -from })
                .with_diffuse(Vec3::ONE)
                .with_intensity(2.0)],
            ..PbrDraw::default()
        };
        let mesh = MeshInput {
            positions: &p,
            normals: Some(&[Vec3::Z; 4]),
            uvs: &uvs,
            ..Default::default()
        };
        let t = Transforms {
            view_from_model: Mat4::from_translation(Vec3::new(0.0, 0.0, -5.0)),
            clip_from_view: Mat4::orthographic_rh(-1.0, 1.0, -1.0, 1.0, 1.0, 10.0),
        };
        draw_list(
            &mut c,
            &d,
            &t,
            &mesh,
            Some(&[Vec4::new(1.0, 0.0, 0.0, w); 4]),
            &[0, 1, 2, 0, 2, 3],
        );
        px(&mut c, 4, 4)[0]
    };
    let (px_, nx) = (Vec3::new(0.6, 0.0, 0.8), Vec3::new(-0.6, 0.0, 0.8));
    let (py, ny) = (Vec3::new(0.0, 0.6, 0.8), Vec3::new(0.0, -0.6, 0.8));
    let x = [0.6, 0.0, 0.8];
    let y = [0.0, 0.6, 0.8];
    assert!(
        lit(x, 1.0, px_) > lit(x, 1.0, nx) + 40,
        "{} {}",
        lit(x, 1.0, px_),
        lit(x, 1.0, nx)
    );
    assert!(lit(y, 1.0, py) > lit(y, 1.0, ny) + 40);
    assert!(lit(y, -1.0, ny) > lit(y, -1.0, py) + 40);
    // Lit along the tilted normal, the pixel is what a flat normal lit head-on gives.
    assert!(lit(x, 1.0, px_).abs_diff(lit([0.0, 0.0, 1.0], 1.0, Vec3::Z)) <= 6);
}

/// `explain` at a pixel of a PBR draw: the material, the light's BRDF terms (here the
/// facing quad's `D = 1/(π·α²)`, `V = 1/4`, `F = F0`, worked by hand), the environment and
/// the output, whose colour is the pixel's.
#[test]
fn explain_shows_the_brdf_terms() {
    let mut ex = plumb_raster::explain::Explainer::new(8, 8, 4, 4).unwrap();
    ex.clear(Vec4::ZERO, 1.0, 0);
    let p = [
        Vec3::new(-2.0, -2.0, 0.0),
        Vec3::new(2.0, -2.0, 0.0),
        Vec3::new(2.0, 2.0, 0.0),
        Vec3::new(-2.0, 2.0, 0.0),
    ];
    let d = PbrDraw {
        material: PbrMaterial {
            base_color: Vec4::new(0.6, 0.4, 0.2, 1.0),
            metallic: 0.0,
            roughness: 0.5,
            ..PbrMaterial::default()
        },
        lights: vec![
            Light::new(LightKind::Directional {
                direction: Vec3::NEG_Z,
            })
            .with_diffuse(Vec3::ONE)
            .with_intensity(1.0),
            Light::new(LightKind::Ambient).with_ambient(Vec3::splat(0.2)),
        ],
        ..PbrDraw::default()
    };
    let mesh = MeshInput {
        positions: &p,
        normals: Some(&[Vec3::Z; 4]),
        ..Default::default()
    };
    let t = Transforms {
        view_from_model: Mat4::from_translation(Vec3::new(0.0, 0.0, -5.0)),
        clip_from_view: Mat4::orthographic_rh(-1.0, 1.0, -1.0, 1.0, 1.0, 10.0),
    };
    let st = ex.default_state();
    ex.draw_pbr(
        &st,
        &d,
        &t,
        &mesh,
        None,
        Indices::U32(&[0, 1, 2, 0, 2, 3]),
        Topology::TriangleList,
    )
    .unwrap();
    let h = ex.finish_history().unwrap();
    let frag = h
        .events
        .iter()
        .find_map(|e| match e {
            plumb_raster::explain::Event::Fragment(f) => Some(f),
            _ => None,
        })
        .unwrap();
    let stage = |name: &str| frag.stages.iter().find(|s| s.name == name).unwrap();
    let out = |s: &plumb_raster::explain::Stage, k: &str| {
        s.outputs.iter().find(|(n, _)| n == k).unwrap().1.clone()
    };
    use plumb_raster::explain::Value;
    let float = |v: Value| match v {
        Value::Float(x) => x,
        other => panic!("{other:?}"),
    };
    let light = stage("pbr_light0");
    // α = 0.25, α² = 0.0625: D = 1/(π·0.0625).
    let want_d = 1.0 / (std::f32::consts::PI * 0.0625);
    assert!((float(out(light, "D")) - want_d).abs() < 1e-4 * want_d);
    assert!((float(out(light, "V")) - 0.25).abs() < 1e-6);
    match out(light, "F") {
        Value::Floats(f) => assert!(f.iter().all(|x| (x - 0.04).abs() < 1e-6), "{f:?}"),
        other => panic!("{other:?}"),
    }
    assert!(frag.stages.iter().any(|s| s.name == "pbr_environment"));
    assert!(
        frag.stages.iter().all(|s| s.name != "pbr_light1"),
        "the ambient is no light"
    );
    match out(stage("pbr_output"), "color") {
        Value::Floats(c) => {
            for (ch, x) in c.iter().enumerate() {
                let stored = f32::from(h.color[ch]) / 255.0;
                assert!(
                    (x - stored).abs() <= 0.5 / 255.0 + 1e-6,
                    "{ch}: {x} vs {stored}"
                );
            }
        }
        other => panic!("{other:?}"),
    }
}
