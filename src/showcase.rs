//! The built-in showcase scene, drawn straight through `plumb-raster` (it doubles as an
//! example of using the rasterizer without the scene graph).
//!
//! Contents: a sky gradient (depth test off), a flat-shaded checkered ground receding to
//! the horizon, a Lambert-lit torus, a flat-shaded cube with a colour per face, a
//! wireframe sphere, and a translucent sphere blended over everything (depth read-only).

use glam::{Mat4, Vec3, Vec4};
use plumb_raster::{
    BlendState, Context, CullMode, DepthState, Error, Indices, PipelineState, PolygonMode,
    ShadeModel, Topology, VertexInput,
};

use crate::mesh::TriMesh;

/// Renders the showcase into `ctx` (any size; the camera adapts its aspect ratio).
///
/// # Errors
/// Propagates [`Error`] from draws (only possible for internal mistakes: all buffers here
/// are well-formed).
pub fn draw(ctx: &mut Context) -> Result<(), Error> {
    let (w, h) = (ctx.width(), ctx.height());
    ctx.clear(Vec4::new(0.0, 0.0, 0.0, 1.0), 1.0, 0);
    let base = PipelineState::new(w, h);

    // Sky: a full-screen quad in clip space, depth test and writes off.
    let sky = [
        Vec4::new(-1.0, -1.0, 1.0, 1.0),
        Vec4::new(1.0, -1.0, 1.0, 1.0),
        Vec4::new(1.0, 1.0, 1.0, 1.0),
        Vec4::new(-1.0, 1.0, 1.0, 1.0),
    ];
    let horizon = Vec4::new(0.85, 0.88, 0.92, 1.0);
    let zenith = Vec4::new(0.25, 0.45, 0.8, 1.0);
    let sky_col = [horizon, horizon, zenith, zenith];
    let sky_state = PipelineState {
        depth: DepthState::DISABLED,
        ..base
    };
    ctx.draw(
        &sky_state,
        &VertexInput::colored(&sky, &sky_col),
        Indices::U16(&[0, 1, 2, 0, 2, 3]),
        Topology::TriangleList,
    )?;

    let aspect = w as f32 / h as f32;
    let clip_from_view = Mat4::perspective_rh(50f32.to_radians(), aspect, 0.1, 100.0);
    let view_from_world =
        Mat4::look_at_rh(Vec3::new(0.0, 2.2, 6.5), Vec3::new(0.0, 0.7, 0.0), Vec3::Y);
    let clip_from_world = clip_from_view * view_from_world;
    let light = Vec3::new(0.4, 1.0, 0.6);

    // Ground: 40×40 checker quads, flat shaded (provoking vertex carries the colour).
    let (mut gp, mut gc, mut gi) = (Vec::new(), Vec::new(), Vec::new());
    let n = 40;
    let size = 1.5f32;
    for i in 0..n {
        for j in 0..n {
            let x0 = (j as f32 - n as f32 / 2.0) * size;
            let z0 = (i as f32 - n as f32 / 2.0) * size;
            let c = if (i + j) % 2 == 0 {
                Vec4::new(0.82, 0.8, 0.74, 1.0)
            } else {
                Vec4::new(0.3, 0.34, 0.38, 1.0)
            };
            let b = gp.len() as u32;
            for (dx, dz) in [(0.0, 0.0), (0.0, size), (size, size), (size, 0.0)] {
                gp.push(clip_from_world * Vec4::new(x0 + dx, 0.0, z0 + dz, 1.0));
                gc.push(c);
            }
            gi.extend_from_slice(&[b, b + 1, b + 2, b, b + 2, b + 3]);
        }
    }
    let flat = PipelineState {
        shade: ShadeModel::Flat,
        cull: CullMode::Back,
        ..base
    };
    ctx.draw(
        &flat,
        &VertexInput::colored(&gp, &gc),
        Indices::U32(&gi),
        Topology::TriangleList,
    )?;

    // Torus, lit per vertex.
    let torus = TriMesh::torus(1.0, 0.38, 96, 48);
    let world_from_torus = Mat4::from_translation(Vec3::new(-1.3, 0.9, 0.0))
        * Mat4::from_rotation_x(1.1)
        * Mat4::from_rotation_z(0.3);
    let tp = torus.clip_positions(clip_from_world * world_from_torus);
    let tc = torus.lambert_colors(
        world_from_torus,
        light,
        Vec4::new(0.95, 0.55, 0.2, 1.0),
        0.25,
    );
    let lit = PipelineState {
        cull: CullMode::Back,
        ..base
    };
    ctx.draw(
        &lit,
        &VertexInput::colored(&tp, &tc),
        Indices::U32(&torus.indices),
        Topology::TriangleList,
    )?;

    // Cube, flat colour per face from its normal.
    let cube = TriMesh::cube();
    let world_from_cube = Mat4::from_translation(Vec3::new(1.6, 0.7, -0.6))
        * Mat4::from_rotation_y(0.6)
        * Mat4::from_scale(Vec3::splat(0.7));
    let cp = cube.clip_positions(clip_from_world * world_from_cube);
    let cc = cube.normal_colors();
    ctx.draw(
        &flat,
        &VertexInput::colored(&cp, &cc),
        Indices::U32(&cube.indices),
        Topology::TriangleList,
    )?;

    // Wireframe sphere.
    let sphere = TriMesh::sphere(0.55, 12, 18);
    let world_from_wire = Mat4::from_translation(Vec3::new(0.3, 0.55, 1.6));
    let wp = sphere.clip_positions(clip_from_world * world_from_wire);
    let wc = vec![Vec4::new(0.1, 0.1, 0.15, 1.0); wp.len()];
    let wire = PipelineState {
        polygon_mode: PolygonMode::Line,
        cull: CullMode::Back,
        ..base
    };
    ctx.draw(
        &wire,
        &VertexInput::colored(&wp, &wc),
        Indices::U32(&sphere.indices),
        Topology::TriangleList,
    )?;

    // Translucent sphere last, depth read-only.
    let glass = TriMesh::sphere(0.7, 32, 48);
    let world_from_glass = Mat4::from_translation(Vec3::new(0.35, 0.75, -0.9));
    let sp = glass.clip_positions(clip_from_world * world_from_glass);
    let sc = glass.lambert_colors(world_from_glass, light, Vec4::new(0.3, 0.6, 1.0, 0.5), 0.35);
    let blend = PipelineState {
        blend: BlendState::ALPHA,
        depth: DepthState::LEQUAL_READ,
        cull: CullMode::Back,
        ..base
    };
    ctx.draw(
        &blend,
        &VertexInput::colored(&sp, &sc),
        Indices::U32(&glass.indices),
        Topology::TriangleList,
    )?;
    ctx.finish();
    Ok(())
}
