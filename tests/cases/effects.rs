//! The chapter 5 effect case that stays in Rust (planar reflection; the other effect cases are
//! scene files, `refimages/effects/*.json`), built through the scene graph and drawn with
//! `Scene::draw` + `SoftRenderer`. Described in `refimages/README.md`.

use glam::Vec3;
use plumb::mesh::TriMesh;
use plumb::raster::combine::ApplyMode;
use plumb::raster::texture::Sampler;
use plumb::scene::*;

use super::scene::{camera, checker, draw, mesh, quad, rgba};
use crate::SceneCase;

/// Every effect case, in README order.
pub const CASES: &[SceneCase] = &[SceneCase {
    name: "planar_reflection",
    size: (256, 192),
    draw: planar_reflection,
}];

/// A shared floor + wall + caster scene for the planar effects.
fn room(scene: &mut Scene) -> (NodeId, NodeId, NodeId, LightId) {
    let l = scene
        .add_light(Light::point(Vec3::new(1.5, 3.0, 2.0)))
        .unwrap();
    let a = scene.add_light(Light::ambient(Vec3::splat(0.3))).unwrap();
    scene.attach_light(scene.root(), l).unwrap();
    scene.attach_light(scene.root(), a).unwrap();
    let floor = scene
        .add_geometry(scene.root(), "floor", mesh(TriMesh::plane(2.5, 10)))
        .unwrap();
    let check = checker(64, 8, [200, 200, 190, 255], [120, 120, 130, 255]);
    scene
        .set_effect(
            floor,
            Some(Effect::Textures(vec![TextureStage::new(
                check,
                Sampler::TRILINEAR,
                ApplyMode::Modulate,
                0,
            )])),
        )
        .unwrap();
    let wall = scene
        .add_geometry(
            scene.root(),
            "wall",
            quad(-2.5, 0.0, 2.5, 2.5, -2.5, [rgba(0.5, 0.6, 0.8, 1.0); 4]),
        )
        .unwrap();
    scene
        .set_global_state(
            wall,
            GlobalState::Material(MaterialState::matte(rgba(0.5, 0.6, 0.8, 1.0))),
        )
        .unwrap();
    let casters = scene.add_group(scene.root(), "casters").unwrap();
    let t = scene
        .add_geometry(casters, "torus", mesh(TriMesh::torus(0.5, 0.2, 32, 16)))
        .unwrap();
    scene.set_translation(t, Vec3::new(0.0, 1.0, 0.0)).unwrap();
    scene
        .set_rotation(
            t,
            rotation_axis_angle(Vec3::new(1.0, 0.0, 0.3), 1.0).unwrap(),
        )
        .unwrap();
    scene
        .set_global_state(
            casters,
            GlobalState::Material(
                MaterialState::matte(rgba(0.9, 0.6, 0.2, 1.0))
                    .with_specular(Vec3::splat(0.6), 30.0),
            ),
        )
        .unwrap();
    let s = scene
        .add_geometry(casters, "ball", mesh(TriMesh::sphere(0.35, 16, 24)))
        .unwrap();
    scene.set_translation(s, Vec3::new(-1.2, 0.6, 0.6)).unwrap();
    (casters, floor, wall, l)
}

/// The TestPlanarReflection sample: the torus and ball mirrored in the floor (reflectance 0.4)
/// and in the wall (reflectance 0.25); each reflection appears only inside its plane, upside
/// down in the floor, and nothing of the reflected objects pokes through the other side of a
/// plane (clip plane).
fn planar_reflection(r: &mut SoftRenderer) {
    let mut scene = Scene::new();
    scene.set_background(rgba(0.05, 0.05, 0.08, 1.0)).unwrap();
    let (casters, floor, wall, _) = room(&mut scene);
    scene
        .set_effect(
            casters,
            Some(Effect::PlanarReflection {
                planes: vec![(floor, 0.4), (wall, 0.25)],
            }),
        )
        .unwrap();
    draw(
        r,
        &mut scene,
        &camera(
            Vec3::new(2.0, 2.8, 5.0),
            Vec3::new(0.0, 0.7, 0.0),
            45.0,
            4.0 / 3.0,
        ),
    );
}
