//! More scene-graph golden cases kept in Rust (sorting, screen polygons); listed in
//! `scene::CASES`.

use std::sync::Arc;

use glam::{Vec2, Vec3, Vec4};
use plumb::mesh::TriMesh;
use plumb::raster::texture::Sampler;
use plumb::scene::*;

use super::scene::{camera, checker, draw, flat_quad, key_light, mesh, rgba, tex};

// ----- sorting, billboards, screen polygons, switch -----

/// The SortFaces sample: a cube of 6 separate faces, each with an RGBA texture of α 0.5 "water"
/// (its own tint) and an opaque black label bar; culling off, depth test off (compare ALWAYS)
/// with writes on, alpha blending on. The scene sorts the faces back to front every frame, so
/// the back faces' labels show through the front faces dimmed, and front labels are solid.
pub fn sorted_cube_faces(r: &mut SoftRenderer) {
    let mut scene = Scene::new();
    scene.set_background(rgba(0.85, 0.85, 0.8, 1.0)).unwrap();
    let cube = scene.add_group(scene.root(), "sorted cube").unwrap();
    scene
        .set_global_state(cube, GlobalState::Cull(CullState::NONE))
        .unwrap();
    scene
        .set_global_state(
            cube,
            GlobalState::ZBuffer(ZBufferState {
                enabled: true,
                writable: true,
                compare: CompareFunc::Always,
            }),
        )
        .unwrap();
    scene
        .set_global_state(cube, GlobalState::Alpha(AlphaState::BLEND))
        .unwrap();
    let label = tex(32, 32, |x, y| {
        if (12..20).contains(&y) && (4..28).contains(&x) {
            [0, 0, 0, 255]
        } else {
            [255, 255, 255, 128]
        }
    });
    let tints = [
        rgba(0.2, 0.4, 1.0, 1.0),
        rgba(0.2, 0.9, 0.3, 1.0),
        rgba(1.0, 0.3, 0.2, 1.0),
        rgba(1.0, 0.9, 0.2, 1.0),
        rgba(0.8, 0.3, 0.9, 1.0),
        rgba(0.2, 0.9, 0.9, 1.0),
    ];
    let face = |c: Vec4| flat_quad(-1.0, -1.0, 1.0, 1.0, 1.0, c);
    let rots = [
        (Vec3::Y, 0.0),
        (Vec3::Y, std::f32::consts::PI),
        (Vec3::Y, std::f32::consts::FRAC_PI_2),
        (Vec3::Y, -std::f32::consts::FRAC_PI_2),
        (Vec3::X, -std::f32::consts::FRAC_PI_2),
        (Vec3::X, std::f32::consts::FRAC_PI_2),
    ];
    for (i, (axis, angle)) in rots.into_iter().enumerate() {
        let f = scene
            .add_geometry(cube, format!("face{i}"), face(tints[i]))
            .unwrap();
        scene
            .set_rotation(f, rotation_axis_angle(axis, angle).unwrap())
            .unwrap();
        scene
            .set_effect(
                f,
                Some(Effect::Textures(vec![TextureStage::new(
                    label.clone(),
                    Sampler::BILINEAR,
                    plumb::raster::combine::ApplyMode::Modulate,
                    0,
                )])),
            )
            .unwrap();
    }
    scene
        .set_rotation(
            cube,
            rotation_axis_angle(Vec3::new(1.0, 1.0, 0.0), 0.6).unwrap(),
        )
        .unwrap();
    let cam = camera(Vec3::new(0.5, 1.0, 5.0), Vec3::ZERO, 45.0, 1.0);
    // Two frames: the sort is recomputed per frame and stable, so the second equals the first.
    draw(r, &mut scene, &cam);
    draw(r, &mut scene, &cam);
}

/// The ScreenPolygon sample: a full-screen background polygon with a vertical gradient and a
/// checker texture, a lit torus in the scene, and an overlay pentagon blended at α 0.5; only
/// depth is cleared between them implicitly (the background never writes depth).
pub fn screen_polygons(r: &mut SoftRenderer) {
    let mut scene = Scene::new();
    key_light(&mut scene);
    let t = scene
        .add_geometry(
            scene.root(),
            "torus",
            mesh(TriMesh::torus(0.8, 0.3, 32, 16)),
        )
        .unwrap();
    scene
        .set_rotation(t, rotation_axis_angle(Vec3::X, 1.0).unwrap())
        .unwrap();
    scene
        .set_global_state(
            t,
            GlobalState::Material(MaterialState::matte(rgba(0.9, 0.8, 0.3, 1.0))),
        )
        .unwrap();
    let corners = [
        Vec2::new(0.0, 0.0),
        Vec2::new(1.0, 0.0),
        Vec2::new(1.0, 1.0),
        Vec2::new(0.0, 1.0),
    ];
    let mut bg = ScreenPolygon::convex(&corners, Vec4::ONE, ScreenLayer::Background).unwrap();
    let grad = Mesh::triangles(bg.mesh.positions().to_vec(), bg.mesh.indices().to_vec())
        .unwrap()
        .with_colors(vec![
            rgba(0.2, 0.3, 0.8, 1.0),
            rgba(0.2, 0.3, 0.8, 1.0),
            rgba(0.9, 0.6, 0.5, 1.0),
            rgba(0.9, 0.6, 0.5, 1.0),
        ])
        .unwrap()
        .with_uv_set(corners.iter().map(|c| *c * 4.0).collect())
        .unwrap();
    bg.mesh = Arc::new(grad);
    bg.effect = Some(Effect::Textures(vec![TextureStage::new(
        checker(16, 2, [255, 255, 255, 255], [200, 200, 200, 255]),
        Sampler::NEAREST,
        plumb::raster::combine::ApplyMode::Modulate,
        0,
    )]));
    scene.add_screen_polygon(bg);
    let pentagon: Vec<Vec2> = (0..5)
        .map(|k| {
            let a = k as f32 * std::f32::consts::TAU / 5.0;
            let (s, c) = plumb::raster::math::sin_cos(a);
            Vec2::new(0.78 + 0.16 * s * 0.75, 0.25 - 0.16 * c)
        })
        .collect();
    let mut over =
        ScreenPolygon::convex(&pentagon, rgba(0.1, 0.9, 0.3, 0.5), ScreenLayer::Overlay).unwrap();
    over.states.alpha = AlphaState::BLEND;
    scene.add_screen_polygon(over);
    draw(
        r,
        &mut scene,
        &camera(Vec3::new(0.0, 0.0, 3.5), Vec3::ZERO, 45.0, 4.0 / 3.0),
    );
}
