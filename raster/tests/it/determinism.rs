//! Determinism (issue 2, must-show 4): the same draw list rendered with 1, 2 and 7 worker
//! threads gives identical colour, depth and stencil bytes. The list mixes every kind of
//! state (blend factors and equations, depth functions, stencil ops, culling, polygon modes,
//! lines, points, clipping through the near plane, user clip planes, textured and lit
//! fixed-function draws) and one 120k-triangle draw so that geometry set-up runs in parallel
//! chunks. (The golden test additionally renders every golden at 1, 2 and 7 threads.)

use std::sync::Arc;

use glam::{Mat4, Vec2, Vec3, Vec4};
use plumb_raster::light::{Light, LightKind, LightingState};
use plumb_raster::texture::{Sampler, Texture};
use plumb_raster::*;

use plumb_raster::rng::XorShift64 as Rng;

/// The frame's colour, depth and stencil, and with `planes` its id and normal planes (each
/// draw's id is its index + 1).
type Planes = (Vec<u32>, Vec<[f32; 3]>);
/// Colour bytes, depth and stencil.
type Frame = (Vec<u8>, Vec<f32>, Vec<u8>);

fn render(threads: usize, planes: bool) -> (Frame, Planes) {
    let (w, h) = (300, 200);
    let mut ctx = Context::new(
        w,
        h,
        ContextOptions {
            threads: Some(threads),
        },
    )
    .unwrap();
    if planes {
        ctx.enable_planes(plumb_raster::Planes {
            ids: true,
            normals: true,
        });
    }
    ctx.clear(Vec4::new(0.1, 0.2, 0.3, 1.0), 1.0, 0);
    let mut r = Rng::new(0x1234_5678_9abc_def1);
    for draw in 0..60 {
        ctx.set_object_id(draw + 1);
        let mut st = ctx.default_state();
        st.blend = BlendState {
            enabled: r.next_u64().is_multiple_of(2),
            src_rgb: r.pick(&BlendFactor::ALL),
            dst_rgb: r.pick(&BlendFactor::ALL),
            src_alpha: r.pick(&BlendFactor::ALL),
            dst_alpha: r.pick(&BlendFactor::ALL),
            eq_rgb: r.pick(&BlendEquation::ALL),
            eq_alpha: r.pick(&BlendEquation::ALL),
            constant: Vec4::new(r.next_f32(), r.next_f32(), r.next_f32(), r.next_f32()),
        };
        st.depth = DepthState {
            func: r.pick(&CompareFunc::ALL),
            write: r.next_u64().is_multiple_of(2),
        };
        st.stencil = StencilState {
            enabled: r.next_u64().is_multiple_of(3),
            func: r.pick(&CompareFunc::ALL),
            reference: r.next_u64() as u8,
            read_mask: r.next_u64() as u8,
            write_mask: r.next_u64() as u8,
            fail: r.pick(&StencilOp::ALL),
            depth_fail: r.pick(&StencilOp::ALL),
            pass: r.pick(&StencilOp::ALL),
        };
        st.cull = r.pick(&[CullMode::None, CullMode::Back, CullMode::Front]);
        st.polygon_mode = r.pick(&[
            PolygonMode::Fill,
            PolygonMode::Fill,
            PolygonMode::Line,
            PolygonMode::Point,
        ]);
        st.shade = r.pick(&[ShadeModel::Flat, ShadeModel::Smooth]);
        st.alpha_test = AlphaTest {
            func: r.pick(&CompareFunc::ALL),
            reference: r.next_f32(),
        };
        st.point_size = 1.0 + 4.0 * r.next_f32();
        st.line_width = 1.0 + 3.0 * r.next_f32();
        if r.next_u64().is_multiple_of(4) {
            st.clip_planes[0] = Some(Vec4::new(r.next_f32() - 0.5, r.next_f32() - 0.5, 0.0, 0.2));
        }
        let topo = r.pick(&[
            Topology::TriangleList,
            Topology::TriangleStrip,
            Topology::LineStrip,
            Topology::PointList,
        ]);
        let n = if draw == 30 {
            360_000
        } else {
            30 + (r.next_u64() % 300) as usize
        };
        let mut pos = Vec::with_capacity(n);
        let mut col = Vec::with_capacity(n);
        for _ in 0..n {
            // w in 0.2..2 and z reaching below 0 so some triangles cross the near plane.
            let wv = 0.2 + 1.8 * r.next_f32();
            let p = Vec4::new(
                (r.next_f32() * 2.4 - 1.2) * wv,
                (r.next_f32() * 2.4 - 1.2) * wv,
                (r.next_f32() * 1.3 - 0.2) * wv,
                wv,
            );
            pos.push(p);
            col.push(Vec4::new(
                r.next_f32(),
                r.next_f32(),
                r.next_f32(),
                r.next_f32(),
            ));
        }
        ctx.draw(&st, &VertexInput::colored(&pos, &col), Indices::None, topo)
            .unwrap();
    }
    // Textured, lit, fogged fixed-function draws.
    let mut px = Vec::new();
    for i in 0..32 * 32 {
        px.extend_from_slice(&[(i * 7) as u8, (i * 13) as u8, (i * 29) as u8, (i * 3) as u8]);
    }
    let tex = Arc::new(
        Texture::from_rgba8(32, 32, px)
            .unwrap()
            .with_generated_mips(),
    );
    let mut lighting = LightingState::DEFAULT;
    lighting.lights[0] = Some(
        Light::new(LightKind::Point {
            position: Vec3::new(0.5, 1.0, 0.0),
        })
        .with_diffuse(Vec3::ONE)
        .with_specular(Vec3::ONE),
    );
    lighting.material.specular = Vec3::ONE;
    lighting.material.shininess = 20.0;
    for per_pixel in [false, true] {
        ctx.set_object_id(100 + u32::from(per_pixel));
        let ff = FixedFunction {
            lighting: Some(lighting),
            per_pixel_lighting: per_pixel,
            fog: Some(fog::FogState {
                mode: fog::FogMode::Exp { density: 0.3 },
                ..fog::FogState::DEFAULT
            }),
            units: vec![TextureUnit::new(
                Arc::clone(&tex),
                Sampler {
                    max_anisotropy: 8,
                    ..Sampler::TRILINEAR
                },
            )],
        };
        let mut p = Vec::new();
        let mut nrm = Vec::new();
        let mut uv = Vec::new();
        let mut idx = Vec::new();
        let g = 40;
        for j in 0..=g {
            for i in 0..=g {
                let (x, z) = (
                    i as f32 / g as f32 * 6.0 - 3.0,
                    j as f32 / g as f32 * 12.0 - 12.0,
                );
                p.push(Vec3::new(
                    x,
                    -0.5 + 0.2 * plumb_raster::math::sin(x * 2.0),
                    z,
                ));
                nrm.push(Vec3::new(0.1, 1.0, 0.0).normalize());
                uv.push(Vec2::new(x, z));
                if i < g && j < g {
                    let a = (j * (g + 1) + i) as u32;
                    idx.extend_from_slice(&[
                        a,
                        a + g as u32 + 1,
                        a + 1,
                        a + 1,
                        a + g as u32 + 1,
                        a + g as u32 + 2,
                    ]);
                }
            }
        }
        let uvs = [uv.as_slice()];
        let mesh = MeshInput {
            positions: &p,
            normals: Some(&nrm),
            colors: None,
            uvs: &uvs,
        };
        let t = Transforms {
            view_from_model: Mat4::from_translation(Vec3::new(
                if per_pixel { 0.5 } else { -0.5 },
                0.0,
                -1.0,
            )),
            clip_from_view: Mat4::perspective_rh(1.2, 1.5, 0.1, 50.0),
        };
        ctx.draw_fixed(
            &ctx.default_state(),
            &ff,
            &t,
            &mesh,
            Indices::U32(&idx),
            Topology::TriangleList,
        )
        .unwrap();
    }
    let img = ctx.color_image().into_raw();
    let target = ctx.target();
    let depth = target.depth_values();
    let mut stencil = Vec::new();
    for y in 0..h {
        for x in 0..w {
            stencil.push(target.stencil_at(x, y).unwrap());
        }
    }
    let aux = (
        target.id_values().unwrap_or_default(),
        target.normal_values().unwrap_or_default(),
    );
    ((img, depth, stencil), aux)
}

#[test]
fn same_bytes_with_1_2_and_7_threads() {
    let ((c1, d1, s1), _) = render(1, false);
    // Something must actually have been drawn for the comparison to mean anything.
    assert!(c1.chunks(4).any(|p| p != [26, 51, 77, 255]));
    assert!(d1.iter().any(|d| *d < 1.0));
    assert!(s1.iter().any(|s| *s != 0));
    for threads in [2, 7] {
        let ((c, d, s), _) = render(threads, false);
        assert!(c == c1, "colour differs with {threads} threads");
        assert!(
            d.iter().zip(&d1).all(|(a, b)| a.to_bits() == b.to_bits()),
            "depth differs with {threads} threads"
        );
        assert!(s == s1, "stencil differs with {threads} threads");
    }
}

/// The id and normal planes (`plumb_raster::target`) over the same draw list: the same bits
/// with 1, 2 and 7 threads, and colour, depth and stencil unchanged by keeping them.
#[test]
fn the_id_and_normal_planes_are_the_same_with_1_2_and_7_threads() {
    let (plain, _) = render(1, false);
    let (frame, (ids, normals)) = render(1, true);
    assert!(frame.0 == plain.0, "keeping the planes changed the colour");
    let bits = |d: &[f32]| d.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    assert!(
        bits(&frame.1) == bits(&plain.1),
        "keeping the planes changed depth"
    );
    assert!(frame.2 == plain.2, "keeping the planes changed stencil");
    // Vertex-colour draws write their ids, the lit draws their ids and non-zero normals.
    assert!(ids.iter().any(|&i| (1..=60).contains(&i)));
    assert!(ids.contains(&100) && ids.contains(&101));
    assert!(normals.iter().any(|n| *n != [0.0; 3]));
    for threads in [2, 7] {
        let (_, (i, n)) = render(threads, true);
        assert!(i == ids, "ids differ with {threads} threads");
        let nb = |v: &[[f32; 3]]| v.iter().flatten().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert!(
            nb(&n) == nb(&normals),
            "normals differ with {threads} threads"
        );
    }
}
