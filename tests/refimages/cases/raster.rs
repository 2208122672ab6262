//! Golden cases drawn straight through `plumb-raster` (no scene graph). Each is described in
//! `refimages/README.md`.

use glam::{Mat4, Vec3, Vec4};
use plumb::mesh::TriMesh;
use plumb::raster::trace::DrawTarget;
use plumb::raster::*;

use crate::Case;

/// The raster case drawn straight into a context instead of through a trace file: its
/// trace would be 5.4 MB of vertex and index data (a 200 000-triangle torus).
pub const DIRECT: &[Case] = &[Case {
    name: "mesh_200k",
    size: (320, 240),
    draw: mesh_200k,
}];

/// Every raster case recorded as a trace, in README order.
pub const CASES: &[Case] = &[
    Case {
        name: "triangle_gouraud",
        size: (256, 256),
        draw: triangle_gouraud,
    },
    Case {
        name: "depth_overlap",
        size: (256, 256),
        draw: depth_overlap,
    },
    Case {
        name: "near_clip",
        size: (320, 240),
        draw: near_clip,
    },
    Case {
        name: "blend_grid",
        size: (320, 320),
        draw: blend_grid,
    },
    Case {
        name: "stencil_mask",
        size: (256, 256),
        draw: stencil_mask,
    },
    Case {
        name: "wireframe_points",
        size: (256, 256),
        draw: wireframe_points,
    },
    Case {
        name: "cull_modes",
        size: (384, 128),
        draw: cull_modes,
    },
    Case {
        name: "flat_smooth_lines",
        size: (256, 256),
        draw: flat_smooth_lines,
    },
    Case {
        name: "clip_plane_offset",
        size: (256, 256),
        draw: clip_plane_offset,
    },
    Case {
        name: "fill_rule",
        size: (128, 128),
        draw: fill_rule,
    },
];

const BLACK: Vec4 = Vec4::new(0.0, 0.0, 0.0, 1.0);

fn rgba(r: f32, g: f32, b: f32, a: f32) -> Vec4 {
    Vec4::new(r, g, b, a)
}

fn draw(
    ctx: &mut dyn DrawTarget,
    st: &PipelineState,
    pos: &[Vec4],
    col: &[Vec4],
    idx: Indices<'_>,
    topo: Topology,
) {
    ctx.draw(st, &VertexInput::colored(pos, col), idx, topo)
        .expect("case buffers are valid");
}

fn camera(ctx: &dyn DrawTarget, eye: Vec3, target: Vec3, fov_deg: f32) -> Mat4 {
    let aspect = ctx.width() as f32 / ctx.height() as f32;
    Mat4::perspective_rh(fov_deg.to_radians(), aspect, 0.1, 50.0)
        * Mat4::look_at_rh(eye, target, Vec3::Y)
}

/// A triangle with red, green and blue corners.
fn triangle_gouraud(ctx: &mut dyn DrawTarget) {
    ctx.clear(BLACK, 1.0, 0);
    let st = ctx.default_state();
    let pos = [
        Vec4::new(-0.85, -0.8, 0.5, 1.0),
        Vec4::new(0.9, -0.6, 0.5, 1.0),
        Vec4::new(-0.1, 0.85, 0.5, 1.0),
    ];
    let col = [
        rgba(1.0, 0.0, 0.0, 1.0),
        rgba(0.0, 1.0, 0.0, 1.0),
        rgba(0.0, 0.0, 1.0, 1.0),
    ];
    draw(ctx, &st, &pos, &col, Indices::None, Topology::TriangleList);
}

/// Three long blades rotated 120° apart, each sloping in depth from a near tip (z = 0.15)
/// to a far base (z = 0.85) on the opposite side, depth test LESS: every blade's tip covers
/// the next blade's base, so each pair crosses and the overlap order is cyclic — impossible
/// without a per-pixel depth test. Vertex colours darken towards the far base.
fn depth_overlap(ctx: &mut dyn DrawTarget) {
    ctx.clear(rgba(0.1, 0.1, 0.12, 1.0), 1.0, 0);
    let st = PipelineState {
        depth: DepthState::LESS_WRITE,
        ..ctx.default_state()
    };
    let colors = [
        rgba(0.9, 0.25, 0.2, 1.0),
        rgba(0.2, 0.8, 0.3, 1.0),
        rgba(0.25, 0.4, 0.95, 1.0),
    ];
    let dir = |a: f32, r: f32, z: f32| {
        let (s, c) = plumb::raster::math::sin_cos(a);
        Vec4::new(r * c, r * s, z, 1.0)
    };
    for (k, c) in colors.iter().enumerate() {
        let a = 0.3 + k as f32 * core::f32::consts::TAU / 3.0;
        let pi = core::f32::consts::PI;
        let p = [
            dir(a, 0.9, 0.15),
            dir(a + pi - 0.45, 0.65, 0.85),
            dir(a + pi + 0.45, 0.65, 0.85),
        ];
        let far = (c.truncate() * 0.45).extend(1.0);
        draw(
            ctx,
            &st,
            &p,
            &[*c, far, far],
            Indices::None,
            Topology::TriangleList,
        );
    }
}

/// A checkered floor running under and behind the camera, plus a triangle piercing the near
/// plane: nothing from behind the eye appears, and the floor reaches the bottom edge.
fn near_clip(ctx: &mut dyn DrawTarget) {
    ctx.clear(rgba(0.55, 0.7, 0.9, 1.0), 1.0, 0);
    let clip_from_world = camera(
        ctx,
        Vec3::new(0.0, 1.0, 0.0),
        Vec3::new(0.0, 0.6, -4.0),
        70.0,
    );
    let st = PipelineState {
        shade: ShadeModel::Flat,
        ..ctx.default_state()
    };
    let (mut pos, mut col, mut idx) = (Vec::new(), Vec::new(), Vec::new());
    for i in -10..10 {
        for j in -12..4 {
            let c = if (i + j) % 2 == 0 {
                rgba(0.85, 0.85, 0.8, 1.0)
            } else {
                rgba(0.25, 0.3, 0.35, 1.0)
            };
            let b = pos.len() as u32;
            for (dx, dz) in [(0.0, 0.0), (0.0, 1.0), (1.0, 1.0), (1.0, 0.0)] {
                pos.push(clip_from_world * Vec4::new(i as f32 + dx, 0.0, j as f32 + dz, 1.0));
                col.push(c);
            }
            idx.extend_from_slice(&[b, b + 1, b + 2, b, b + 2, b + 3]);
        }
    }
    draw(
        ctx,
        &st,
        &pos,
        &col,
        Indices::U32(&idx),
        Topology::TriangleList,
    );
    // A long sliver from behind the camera (z = +3) to far ahead (z = −8), 0.5 above ground.
    let smooth = ctx.default_state();
    let p = [
        clip_from_world * Vec4::new(-0.2, 0.5, 3.0, 1.0),
        clip_from_world * Vec4::new(0.6, 0.5, -8.0, 1.0),
        clip_from_world * Vec4::new(-1.4, 1.2, -8.0, 1.0),
    ];
    let c = [
        rgba(1.0, 0.9, 0.1, 1.0),
        rgba(0.9, 0.2, 0.5, 1.0),
        rgba(0.2, 0.3, 1.0, 1.0),
    ];
    draw(ctx, &smooth, &p, &c, Indices::None, Topology::TriangleList);
}

fn quad(x0: f32, y0: f32, x1: f32, y1: f32) -> [Vec4; 4] {
    [
        Vec4::new(x0, y0, 0.5, 1.0),
        Vec4::new(x1, y0, 0.5, 1.0),
        Vec4::new(x1, y1, 0.5, 1.0),
        Vec4::new(x0, y1, 0.5, 1.0),
    ]
}

const QUAD: [u16; 6] = [0, 1, 2, 0, 2, 3];

/// A 4×4 grid of blend modes. Each cell: destination = horizontal ramp from opaque orange
/// to transparent cyan; source = vertical ramp from opaque blue (bottom) to transparent
/// magenta (top). Row-major from the top left: ALPHA, ADDITIVE, MULTIPLY, PREMULTIPLIED,
/// SUBTRACT, REVERSE_SUBTRACT, MIN, MAX, constant colour, constant alpha,
/// SRC_ALPHA_SATURATE/ONE, DST_ALPHA/ONE_MINUS_DST_ALPHA, ONE_MINUS_DST_COLOR/ZERO (invert),
/// SRC_COLOR/ONE_MINUS_SRC_COLOR, ZERO/SRC_COLOR, ONE/ONE_MINUS_SRC_ALPHA with alpha ADD
/// and colour MAX. Finally alpha is forced to 1 (colour mask A only) so viewers show the
/// blended colours as stored.
fn blend_grid(ctx: &mut dyn DrawTarget) {
    use BlendEquation as E;
    use BlendFactor as F;
    ctx.clear(rgba(0.15, 0.15, 0.15, 1.0), 1.0, 0);
    let base = PipelineState {
        depth: DepthState::DISABLED,
        ..ctx.default_state()
    };
    let k = rgba(0.3, 0.9, 0.4, 0.7);
    let custom = |s, d, e| BlendState {
        eq_rgb: e,
        eq_alpha: e,
        constant: k,
        ..BlendState::new(s, d, true)
    };
    let modes = [
        BlendState::ALPHA,
        BlendState::ADDITIVE,
        BlendState::MULTIPLY,
        BlendState::PREMULTIPLIED,
        custom(F::One, F::One, E::Subtract),
        custom(F::One, F::One, E::ReverseSubtract),
        custom(F::One, F::One, E::Min),
        custom(F::One, F::One, E::Max),
        custom(F::ConstantColor, F::OneMinusConstantColor, E::Add),
        custom(F::ConstantAlpha, F::OneMinusConstantAlpha, E::Add),
        custom(F::SrcAlphaSaturate, F::One, E::Add),
        custom(F::DstAlpha, F::OneMinusDstAlpha, E::Add),
        custom(F::OneMinusDstColor, F::Zero, E::Add),
        custom(F::SrcColor, F::OneMinusSrcColor, E::Add),
        custom(F::Zero, F::SrcColor, E::Add),
        BlendState {
            eq_rgb: E::Max,
            ..custom(F::One, F::OneMinusSrcAlpha, E::Add)
        },
    ];
    let cell = 2.0 / 4.0;
    let m = 0.03;
    for (n, mode) in modes.iter().enumerate() {
        let (cx, cy) = ((n % 4) as f32, (n / 4) as f32);
        let x0 = -1.0 + cx * cell + m;
        let x1 = x0 + cell - 2.0 * m;
        let y1 = 1.0 - cy * cell - m;
        let y0 = y1 - cell + 2.0 * m;
        let dst = [
            rgba(1.0, 0.55, 0.1, 1.0),
            rgba(0.1, 0.9, 0.9, 0.0),
            rgba(0.1, 0.9, 0.9, 0.0),
            rgba(1.0, 0.55, 0.1, 1.0),
        ];
        draw(
            ctx,
            &base,
            &quad(x0, y0, x1, y1),
            &dst,
            Indices::U16(&QUAD),
            Topology::TriangleList,
        );
        let src = [
            rgba(0.15, 0.25, 1.0, 1.0),
            rgba(0.15, 0.25, 1.0, 1.0),
            rgba(1.0, 0.1, 0.8, 0.0),
            rgba(1.0, 0.1, 0.8, 0.0),
        ];
        let st = PipelineState {
            blend: *mode,
            ..base
        };
        let (ix0, ix1) = (x0 + 0.04, x1 - 0.04);
        draw(
            ctx,
            &st,
            &quad(ix0, y0 + 0.04, ix1, y1 - 0.04),
            &src,
            Indices::U16(&QUAD),
            Topology::TriangleList,
        );
    }
    let opaque = PipelineState {
        color_mask: [false, false, false, true],
        ..base
    };
    draw(
        ctx,
        &opaque,
        &quad(-1.0, -1.0, 1.0, 1.0),
        &[Vec4::ONE; 4],
        Indices::U16(&QUAD),
        Topology::TriangleList,
    );
}

/// An eight-pointed star is drawn into the stencil only (colour mask off, stencil REPLACE 1);
/// then a full-screen vertical gradient where stencil = 1 and a dark diagonal gradient where
/// stencil ≠ 1. Expected: a crisp gradient-filled star on the dark background.
fn stencil_mask(ctx: &mut dyn DrawTarget) {
    ctx.clear(BLACK, 1.0, 0);
    let base = PipelineState {
        depth: DepthState::DISABLED,
        ..ctx.default_state()
    };
    let mut star = vec![Vec4::new(0.0, 0.0, 0.5, 1.0)];
    for i in 0..=16 {
        let a = i as f32 * core::f32::consts::TAU / 16.0;
        let r = if i % 2 == 0 { 0.85 } else { 0.35 };
        star.push(Vec4::new(
            r * plumb::raster::math::cos(a),
            r * plumb::raster::math::sin(a),
            0.5,
            1.0,
        ));
    }
    let write = PipelineState {
        color_mask: [false; 4],
        stencil: StencilState {
            enabled: true,
            func: CompareFunc::Always,
            reference: 1,
            pass: StencilOp::Replace,
            ..StencilState::DISABLED
        },
        ..base
    };
    draw(
        ctx,
        &write,
        &star,
        &vec![Vec4::ONE; star.len()],
        Indices::None,
        Topology::TriangleFan,
    );
    let inside = PipelineState {
        stencil: StencilState {
            enabled: true,
            func: CompareFunc::Equal,
            reference: 1,
            ..StencilState::DISABLED
        },
        ..base
    };
    let full = quad(-1.0, -1.0, 1.0, 1.0);
    let warm = [
        rgba(0.95, 0.3, 0.1, 1.0),
        rgba(0.95, 0.3, 0.1, 1.0),
        rgba(1.0, 0.9, 0.2, 1.0),
        rgba(1.0, 0.9, 0.2, 1.0),
    ];
    draw(
        ctx,
        &inside,
        &full,
        &warm,
        Indices::U16(&QUAD),
        Topology::TriangleList,
    );
    let outside = PipelineState {
        stencil: StencilState {
            func: CompareFunc::NotEqual,
            ..inside.stencil
        },
        ..base
    };
    let cool = [
        rgba(0.05, 0.1, 0.25, 1.0),
        rgba(0.1, 0.25, 0.35, 1.0),
        rgba(0.05, 0.1, 0.25, 1.0),
        rgba(0.02, 0.02, 0.08, 1.0),
    ];
    draw(
        ctx,
        &outside,
        &full,
        &cool,
        Indices::U16(&QUAD),
        Topology::TriangleList,
    );
}

/// Left: a torus in polygon mode LINE (back faces culled). Right: a spiral of points whose
/// size grows from 1 to 7 pixels, coloured along a hue ramp. Bottom: line strips of widths
/// 1, 2 and 4.
fn wireframe_points(ctx: &mut dyn DrawTarget) {
    ctx.clear(rgba(0.95, 0.95, 0.92, 1.0), 1.0, 0);
    let clip_from_world = camera(
        ctx,
        Vec3::new(0.0, 1.6, 3.2),
        Vec3::new(0.0, 0.0, 0.0),
        45.0,
    );
    let torus = TriMesh::torus(0.8, 0.3, 24, 12);
    let m = clip_from_world
        * Mat4::from_translation(Vec3::new(-0.55, 0.25, 0.0))
        * Mat4::from_rotation_x(0.5);
    let st = PipelineState {
        polygon_mode: PolygonMode::Line,
        cull: CullMode::Back,
        ..ctx.default_state()
    };
    let col = vec![rgba(0.1, 0.2, 0.5, 1.0); torus.positions.len()];
    draw(
        ctx,
        &st,
        &torus.clip_positions(m),
        &col,
        Indices::U32(&torus.indices),
        Topology::TriangleList,
    );
    for k in 0..36 {
        let t = k as f32 / 36.0;
        let a = t * 3.0 * core::f32::consts::TAU;
        let p = [Vec4::new(
            0.55 + 0.35 * t * plumb::raster::math::cos(a),
            0.35 + 0.35 * t * plumb::raster::math::sin(a),
            0.2,
            1.0,
        )];
        let c = [rgba(t, 0.6 - 0.5 * t, 1.0 - t, 1.0)];
        let st = PipelineState {
            point_size: 1.0 + 6.0 * t,
            ..ctx.default_state()
        };
        draw(ctx, &st, &p, &c, Indices::None, Topology::PointList);
    }
    for (i, w) in [1.0f32, 2.0, 4.0].into_iter().enumerate() {
        let y = -0.45 - 0.17 * i as f32;
        let pts: Vec<Vec4> = (0..9)
            .map(|j| {
                Vec4::new(
                    -0.9 + 0.225 * j as f32,
                    y + if j % 2 == 0 { 0.0 } else { 0.1 },
                    0.2,
                    1.0,
                )
            })
            .collect();
        let col: Vec<Vec4> = (0..9)
            .map(|j| rgba(0.8, 0.1 + 0.1 * j as f32, 0.1, 1.0))
            .collect();
        let st = PipelineState {
            line_width: w,
            ..ctx.default_state()
        };
        draw(ctx, &st, &pts, &col, Indices::None, Topology::LineStrip);
    }
}

/// A 200 000-triangle torus (400 × 250 quads) lit per vertex by a directional light,
/// depth tested, back faces culled.
fn mesh_200k(ctx: &mut dyn DrawTarget) {
    ctx.clear(rgba(0.08, 0.09, 0.12, 1.0), 1.0, 0);
    let torus = TriMesh::torus(1.0, 0.45, 400, 250);
    assert_eq!(torus.triangle_count(), 200_000);
    let world = Mat4::from_rotation_x(0.9) * Mat4::from_rotation_z(0.25);
    let clip = camera(ctx, Vec3::new(0.0, 0.4, 3.6), Vec3::ZERO, 45.0) * world;
    let col = torus.lambert_colors(
        world,
        Vec3::new(0.5, 0.8, 0.6),
        rgba(0.85, 0.8, 0.7, 1.0),
        0.15,
    );
    let st = PipelineState {
        cull: CullMode::Back,
        depth: DepthState::LESS_WRITE,
        ..ctx.default_state()
    };
    draw(
        ctx,
        &st,
        &torus.clip_positions(clip),
        &col,
        Indices::U32(&torus.indices),
        Topology::TriangleList,
    );
}

/// Three panels, each a fan of 8 triangles alternating counter-clockwise (green) and
/// clockwise (red) winding: cull NONE (all 8), BACK (only green remain), FRONT (only red).
fn cull_modes(ctx: &mut dyn DrawTarget) {
    ctx.clear(rgba(0.12, 0.12, 0.14, 1.0), 1.0, 0);
    for (p, cull) in [CullMode::None, CullMode::Back, CullMode::Front]
        .into_iter()
        .enumerate()
    {
        let vp = Viewport {
            x: 128.0 * p as f32,
            y: 0.0,
            width: 128.0,
            height: 128.0,
            min_depth: 0.0,
            max_depth: 1.0,
        };
        let st = PipelineState {
            viewport: vp,
            cull,
            ..ctx.default_state()
        };
        for i in 0..8 {
            let a0 = i as f32 * core::f32::consts::TAU / 8.0;
            let a1 = a0 + core::f32::consts::TAU / 8.0 * 0.85;
            let v = |a: f32| {
                Vec4::new(
                    0.85 * plumb::raster::math::cos(a),
                    0.85 * plumb::raster::math::sin(a),
                    0.5,
                    1.0,
                )
            };
            let centre = Vec4::new(0.0, 0.0, 0.5, 1.0);
            let (pos, c) = if i % 2 == 0 {
                ([centre, v(a0), v(a1)], rgba(0.3, 0.85, 0.35, 1.0)) // CCW in NDC: front
            } else {
                ([centre, v(a1), v(a0)], rgba(0.9, 0.25, 0.2, 1.0)) // CW: back
            };
            draw(
                ctx,
                &st,
                &pos,
                &[c; 3],
                Indices::None,
                Topology::TriangleList,
            );
        }
    }
}

/// Top half: the same cube-ish mesh (a low-poly sphere) with flat shading (left) and smooth
/// shading (right). Bottom: a fan of 1-pixel lines at 15° steps from a common centre, the
/// classic line-rasterisation star.
fn flat_smooth_lines(ctx: &mut dyn DrawTarget) {
    ctx.clear(rgba(0.97, 0.97, 0.97, 1.0), 1.0, 0);
    let sphere = TriMesh::sphere(0.5, 6, 10);
    for (i, shade) in [ShadeModel::Flat, ShadeModel::Smooth]
        .into_iter()
        .enumerate()
    {
        let world = Mat4::from_translation(Vec3::new(-0.55 + 1.1 * i as f32, 0.5, 0.0))
            * Mat4::from_rotation_y(0.3);
        let clip = Mat4::orthographic_rh(-1.1, 1.1, -1.1, 1.1, -2.0, 2.0) * world;
        let col = sphere.lambert_colors(
            world,
            Vec3::new(0.3, 0.7, 1.0),
            rgba(0.2, 0.55, 0.9, 1.0),
            0.2,
        );
        let st = PipelineState {
            shade,
            cull: CullMode::Back,
            depth: DepthState::LESS_WRITE,
            ..ctx.default_state()
        };
        draw(
            ctx,
            &st,
            &sphere.clip_positions(clip),
            &col,
            Indices::U32(&sphere.indices),
            Topology::TriangleList,
        );
    }
    let st = PipelineState {
        depth: DepthState::DISABLED,
        ..ctx.default_state()
    };
    let centre = Vec4::new(0.0, -0.5, 0.5, 1.0);
    for k in 0..24 {
        let a = k as f32 * core::f32::consts::TAU / 24.0;
        let end = Vec4::new(
            0.42 * plumb::raster::math::cos(a),
            -0.5 + 0.42 * plumb::raster::math::sin(a),
            0.5,
            1.0,
        );
        let c = [
            rgba(0.1, 0.1, 0.1, 1.0),
            rgba(
                0.9 * (k % 3) as f32 / 2.0,
                0.3,
                0.9 - 0.3 * (k % 4) as f32,
                1.0,
            ),
        ];
        draw(
            ctx,
            &st,
            &[centre, end],
            &c,
            Indices::None,
            Topology::LineList,
        );
    }
}

/// A sphere cut by a user clip plane (the part with x + 0.3·y > 0.1 removed, showing the
/// hollow inside since back faces are not culled), and a coplanar quad pair: a blue quad and
/// a yellow cross drawn on the same plane afterwards with polygon offset (−1, −1), so the
/// cross wins the depth test everywhere instead of z-fighting.
fn clip_plane_offset(ctx: &mut dyn DrawTarget) {
    ctx.clear(rgba(0.2, 0.2, 0.22, 1.0), 1.0, 0);
    let clip_from_world = camera(
        ctx,
        Vec3::new(0.0, 1.2, 3.5),
        Vec3::new(0.0, 0.2, 0.0),
        50.0,
    );
    let sphere = TriMesh::sphere(0.7, 24, 36);
    let world = Mat4::from_translation(Vec3::new(-0.6, 0.6, 0.0));
    let clip = clip_from_world * world;
    // Plane in world space: keep x + 0.3y ≤ 0.1 − 0.6 (sphere-local offset) …: expressed in
    // clip space as plane_clip = inverse_transpose(clip_from_world) · plane_world.
    let plane_world = Vec4::new(-1.0, -0.3, 0.0, -0.4);
    let plane_clip = clip_from_world.inverse().transpose() * plane_world;
    let col = sphere.normal_colors();
    let st = PipelineState {
        clip_planes: [Some(plane_clip), None, None, None, None, None],
        depth: DepthState::LESS_WRITE,
        ..ctx.default_state()
    };
    draw(
        ctx,
        &st,
        &sphere.clip_positions(clip),
        &col,
        Indices::U32(&sphere.indices),
        Topology::TriangleList,
    );
    // Coplanar decal on a tilted plane.
    let plane = Mat4::from_translation(Vec3::new(0.9, 0.2, 0.0))
        * Mat4::from_rotation_x(-1.0)
        * Mat4::from_rotation_z(0.3);
    let p = |x: f32, y: f32| clip_from_world * plane * Vec4::new(x, y, 0.0, 1.0);
    let base = [p(-0.6, -0.6), p(0.6, -0.6), p(0.6, 0.6), p(-0.6, 0.6)];
    let st = PipelineState {
        depth: DepthState::LESS_WRITE,
        ..ctx.default_state()
    };
    draw(
        ctx,
        &st,
        &base,
        &[rgba(0.2, 0.35, 0.85, 1.0); 4],
        Indices::U16(&QUAD),
        Topology::TriangleList,
    );
    let decal = PipelineState {
        polygon_offset: PolygonOffset {
            factor: -1.0,
            units: -1.0,
        },
        ..st
    };
    let bar1 = [p(-0.5, -0.1), p(0.5, -0.1), p(0.5, 0.1), p(-0.5, 0.1)];
    let bar2 = [p(-0.1, -0.5), p(0.1, -0.5), p(0.1, 0.5), p(-0.1, 0.5)];
    for bar in [bar1, bar2] {
        draw(
            ctx,
            &decal,
            &bar,
            &[rgba(1.0, 0.85, 0.1, 1.0); 4],
            Indices::U16(&QUAD),
            Topology::TriangleList,
        );
    }
}

/// The top-left fill rule, on edges through pixel centres: a 7 × 7 grid of 16-pixel squares,
/// corners at pixel centres (8.5 + 16·i, exact in clip space on a 128-pixel target), each
/// square split along a diagonal (alternating) into two flat triangles of different colours.
/// Every pixel centre on a shared edge goes to exactly one triangle: the one right of a
/// vertical or diagonal edge, the one below a horizontal edge. The grid covers columns and
/// rows 8..=119 exactly: its left and top edges are drawn, its right and bottom ones not.
fn fill_rule(ctx: &mut dyn DrawTarget) {
    ctx.clear(BLACK, 1.0, 0);
    let st = PipelineState {
        shade: ShadeModel::Flat,
        ..ctx.default_state()
    };
    // Window (x, y) at pixel centres to clip space on the 128 × 128 target (y up in NDC).
    let at = |x: f32, y: f32| Vec4::new(x / 64.0 - 1.0, 1.0 - y / 64.0, 0.5, 1.0);
    let (mut pos, mut col) = (Vec::new(), Vec::new());
    let mut k = 0u32;
    for j in 0..7 {
        for i in 0..7 {
            let (x0, y0) = (8.5 + 16.0 * i as f32, 8.5 + 16.0 * j as f32);
            let (x1, y1) = (x0 + 16.0, y0 + 16.0);
            let [a, b, c, d] = [at(x0, y0), at(x1, y0), at(x1, y1), at(x0, y1)];
            let tris = if (i + j) % 2 == 0 {
                [[a, b, c], [a, c, d]]
            } else {
                [[a, b, d], [b, c, d]]
            };
            for t in tris {
                // Colours in whole 8-bit levels, every triangle's its own.
                let level = |m: u32, o: u32| ((k * m + o) % 200 + 40) as f32 / 255.0;
                let c = rgba(level(37, 0), level(91, 70), level(53, 140), 1.0);
                k += 1;
                pos.extend_from_slice(&t);
                col.extend_from_slice(&[c; 3]);
            }
        }
    }
    draw(ctx, &st, &pos, &col, Indices::None, Topology::TriangleList);
}
