//! Golden cases for the chapter 5 effects, built through the scene graph and drawn with
//! `Scene::draw` + `SoftRenderer`. Described in `refimages/README.md`.

use std::sync::Arc;

use glam::{Vec3, Vec4};
use plumb::mesh::TriMesh;
use plumb::raster::combine::ApplyMode;
use plumb::raster::texture::Sampler;
use plumb::scene::*;

use super::scene::{camera, checker, draw, flat_quad, mesh, quad, rgba, tex};
use crate::SceneCase;

/// Every effect case, in README order.
pub const CASES: &[SceneCase] = &[
    SceneCase {
        name: "vertex_colors",
        size: (192, 144),
        draw: vertex_colors,
    },
    SceneCase {
        name: "light_map",
        size: (320, 160),
        draw: light_map,
    },
    SceneCase {
        name: "dark_map",
        size: (192, 160),
        draw: dark_map,
    },
    SceneCase {
        name: "gloss_map",
        size: (256, 192),
        draw: gloss_map,
    },
    SceneCase {
        name: "bump_map",
        size: (256, 192),
        draw: bump_map,
    },
    SceneCase {
        name: "environment_map",
        size: (256, 192),
        draw: environment_map,
    },
    SceneCase {
        name: "projected_texture",
        size: (256, 192),
        draw: projected_texture,
    },
    SceneCase {
        name: "planar_shadow",
        size: (256, 192),
        draw: planar_shadow,
    },
    SceneCase {
        name: "planar_reflection",
        size: (256, 192),
        draw: planar_reflection,
    },
];

fn bricks() -> Arc<plumb::raster::texture::Texture> {
    tex(64, 64, |x, y| {
        let off = if (y / 16) % 2 == 0 { 0 } else { 16 };
        if y % 16 < 2 || (x + off) % 32 < 2 {
            [190, 190, 180, 255]
        } else {
            [160, 70, 50, 255]
        }
    })
}

/// A radial "pool of light": bright warm in the middle, dark at the edges.
fn pool() -> Arc<plumb::raster::texture::Texture> {
    tex(64, 64, |x, y| {
        let (dx, dy) = (x as f32 - 31.5, y as f32 - 31.5);
        let d = ((dx * dx + dy * dy).sqrt() / 32.0).min(1.0);
        let v = 1.0 - d;
        [(255.0 * v) as u8, (220.0 * v) as u8, (150.0 * v) as u8, 255]
    })
}

/// A square with a vertex-colour effect replacing the mesh's own (white) colours: red, green,
/// blue, yellow corners blending across it.
fn vertex_colors(r: &mut SoftRenderer) {
    let mut scene = Scene::new();
    let q = scene
        .add_geometry(
            scene.root(),
            "quad",
            flat_quad(-1.0, -1.0, 1.0, 1.0, 0.0, Vec4::ONE),
        )
        .unwrap();
    let colors: Arc<[Vec4]> = vec![
        rgba(1.0, 0.0, 0.0, 1.0),
        rgba(0.0, 1.0, 0.0, 1.0),
        rgba(0.0, 0.0, 1.0, 1.0),
        rgba(1.0, 1.0, 0.0, 1.0),
    ]
    .into();
    scene
        .set_effect(q, Some(Effect::VertexColors(colors)))
        .unwrap();
    draw(
        r,
        &mut scene,
        &camera(Vec3::new(0.0, 0.0, 3.2), Vec3::ZERO, 45.0, 4.0 / 3.0),
    );
}

/// Light maps: bricks (uv set 0) plus a pool of light (uv set 1) added hard (left, ADD: the
/// middle saturates to near white) and soft (right, `Cs + Cd·(1 − Cs)`: brighter but keeps the
/// brick pattern).
fn light_map(r: &mut SoftRenderer) {
    let mut scene = Scene::new();
    let (b, p) = (bricks(), pool());
    for (i, hard) in [true, false].into_iter().enumerate() {
        let q = scene
            .add_geometry(
                scene.root(),
                "wall",
                flat_quad(-0.95, -0.95, 0.95, 0.95, 0.0, Vec4::ONE),
            )
            .unwrap();
        scene
            .set_translation(q, Vec3::new(-1.0 + 2.0 * i as f32, 0.0, 0.0))
            .unwrap();
        scene
            .set_effect(
                q,
                Some(Effect::light_map(
                    b.clone(),
                    p.clone(),
                    Sampler::BILINEAR,
                    hard,
                )),
            )
            .unwrap();
    }
    let mut cam = Camera::orthographic(-2.0, 2.0, -1.0, 1.0, 0.1, 10.0).unwrap();
    cam.look_at(Vec3::new(0.0, 0.0, 5.0), Vec3::ZERO, Vec3::Y)
        .unwrap();
    draw(r, &mut scene, &cam);
}

/// Dark map: bricks modulated by the pool of light (MODULATE): bricks visible only in the warm
/// middle, black at the corners.
fn dark_map(r: &mut SoftRenderer) {
    let mut scene = Scene::new();
    let q = scene
        .add_geometry(
            scene.root(),
            "wall",
            flat_quad(-1.0, -1.0, 1.0, 1.0, 0.0, Vec4::ONE),
        )
        .unwrap();
    scene
        .set_effect(
            q,
            Some(Effect::dark_map(bricks(), pool(), Sampler::BILINEAR)),
        )
        .unwrap();
    let mut cam = Camera::orthographic(-1.2, 1.2, -1.0, 1.0, 0.1, 10.0).unwrap();
    cam.look_at(Vec3::new(0.0, 0.0, 5.0), Vec3::ZERO, Vec3::Y)
        .unwrap();
    draw(r, &mut scene, &cam);
}

/// The TestGlossMap sample: a tilted square lit by a white point light close above-front of it
/// with a shiny material (a round highlight near the middle); the gloss texture is teal with alpha 1 on diagonal stripes and 0
/// elsewhere, so the specular highlight shows only on the stripes (pass 1 specular, pass 2
/// ambient + diffuse × texture blended ONE, SRC_ALPHA).
fn gloss_map(r: &mut SoftRenderer) {
    let mut scene = Scene::new();
    scene.set_background(rgba(0.1, 0.1, 0.12, 1.0)).unwrap();
    let l = scene
        .add_light(Light::point(Vec3::new(0.3, 0.9, 1.6)))
        .unwrap();
    scene.attach_light(scene.root(), l).unwrap();
    let a = scene.add_light(Light::ambient(Vec3::splat(0.3))).unwrap();
    scene.attach_light(scene.root(), a).unwrap();
    let gloss = tex(64, 64, |x, y| {
        if ((x + y) / 8) % 2 == 0 {
            [60, 170, 170, 255]
        } else {
            [60, 170, 170, 0]
        }
    });
    let q = scene
        .add_geometry(scene.root(), "plate", mesh(TriMesh::plane(1.2, 16)))
        .unwrap();
    scene
        .set_rotation(q, rotation_axis_angle(Vec3::X, 1.1).unwrap())
        .unwrap();
    let mat = MaterialState::matte(Vec4::ONE).with_specular(Vec3::ONE, 12.0);
    scene
        .set_global_state(q, GlobalState::Material(mat))
        .unwrap();
    scene
        .set_effect(q, Some(Effect::gloss_map(gloss, Sampler::BILINEAR)))
        .unwrap();
    draw(
        r,
        &mut scene,
        &camera(Vec3::new(0.0, 0.0, 3.2), Vec3::ZERO, 45.0, 4.0 / 3.0),
    );
}

/// Dot3 bump map: a square facing the camera with a normal map of raised round bumps in a 4×4
/// grid and a sand-coloured base texture, lit by a directional light from the upper left:
/// bumps are bright on their upper-left flanks and dark on their lower-right flanks.
fn bump_map(r: &mut SoftRenderer) {
    let mut scene = Scene::new();
    let light = scene
        .add_light(Light::directional(Vec3::new(1.0, -1.0, -0.6)))
        .unwrap();
    let normals = tex(128, 128, |x, y| {
        let (cx, cy) = ((x % 32) as f32 - 15.5, (y % 32) as f32 - 15.5);
        let d2 = cx * cx + cy * cy;
        // Texture v runs down the image while model y runs up: the tangent frame's B = N × T
        // points up, so a bump's slope in +y is −cy.
        let n = if d2 < 144.0 {
            Vec3::new(
                cx / 12.0,
                -cy / 12.0,
                (1.0 - d2 / 144.0).max(0.0).sqrt() + 0.3,
            )
            .normalize()
        } else {
            Vec3::Z
        };
        let e = |v: f32| ((v * 0.5 + 0.5) * 255.0 + 0.5) as u8;
        [e(n.x), e(n.y), e(n.z), 255]
    });
    let base = tex(8, 8, |_, _| [235, 205, 150, 255]);
    let q = scene
        .add_geometry(
            scene.root(),
            "bumpy",
            flat_quad(-1.2, -1.2, 1.2, 1.2, 0.0, Vec4::ONE),
        )
        .unwrap();
    scene
        .set_effect(
            q,
            Some(Effect::bump_map(base, normals, Sampler::BILINEAR, light)),
        )
        .unwrap();
    draw(
        r,
        &mut scene,
        &camera(Vec3::new(0.0, 0.0, 3.6), Vec3::ZERO, 45.0, 4.0 / 3.0),
    );
}

/// A sky / horizon / ground sphere-map image.
fn sky() -> Arc<plumb::raster::texture::Texture> {
    tex(64, 64, |x, y| {
        // GL sphere-map t grows upwards while image row 0 is v = 0: the sky is in the
        // high rows.
        let (u, v) = (x as f32 / 63.0 - 0.5, 0.5 - y as f32 / 63.0);
        if (u - 0.18) * (u - 0.18) + (v + 0.2) * (v + 0.2) < 0.004 {
            [255, 250, 200, 255]
        } else if v < -0.02 {
            [(90.0 - 60.0 * v) as u8, (150.0 - 60.0 * v) as u8, 240, 255]
        } else if v < 0.03 {
            [250, 245, 230, 255]
        } else {
            [120, 80, 40, 255]
        }
    })
}

/// A global environment map on a group: a torus with its own checker texture (REPLACE, unit 0)
/// gets the sphere map appended as unit 1 (MODULATE), so the checks are tinted by the
/// reflected sky above and the brown ground below; a sphere in the same group has no texture
/// of its own and shows the sky reflection alone.
fn environment_map(r: &mut SoftRenderer) {
    let mut scene = Scene::new();
    scene.set_background(rgba(0.2, 0.2, 0.25, 1.0)).unwrap();
    let g = scene.add_group(scene.root(), "env").unwrap();
    scene
        .set_effect(g, Some(Effect::environment_map(sky(), ApplyMode::Modulate)))
        .unwrap();
    let t = scene
        .add_geometry(g, "torus", mesh(TriMesh::torus(0.7, 0.3, 40, 20)))
        .unwrap();
    scene.set_translation(t, Vec3::new(-0.9, 0.0, 0.0)).unwrap();
    scene
        .set_rotation(t, rotation_axis_angle(Vec3::X, 0.8).unwrap())
        .unwrap();
    let check = checker(32, 8, [255, 255, 255, 255], [150, 150, 150, 255]);
    scene
        .set_effect(t, Some(Effect::texture(check, Sampler::BILINEAR)))
        .unwrap();
    let s = scene
        .add_geometry(g, "sphere", mesh(TriMesh::sphere(0.7, 32, 48)))
        .unwrap();
    scene.set_translation(s, Vec3::new(1.0, 0.0, 0.0)).unwrap();
    draw(
        r,
        &mut scene,
        &camera(Vec3::new(0.0, 0.3, 4.0), Vec3::ZERO, 45.0, 4.0 / 3.0),
    );
}

/// A global projected texture: a colourful 4×4 slide projected from up and to the left onto a
/// lit box and floor (MODULATE, clamp-to-border white), bending across the box's faces.
fn projected_texture(r: &mut SoftRenderer) {
    let mut scene = Scene::new();
    scene.set_background(rgba(0.1, 0.1, 0.12, 1.0)).unwrap();
    let l = scene
        .add_light(Light::directional(Vec3::new(-0.3, -1.0, -0.5)))
        .unwrap();
    let a = scene.add_light(Light::ambient(Vec3::splat(0.35))).unwrap();
    scene.attach_light(scene.root(), l).unwrap();
    scene.attach_light(scene.root(), a).unwrap();
    let slide = tex(64, 64, |x, y| {
        if x < 3 || y < 3 || x > 60 || y > 60 {
            [255, 255, 255, 255]
        } else {
            let (i, j) = (x / 16, y / 16);
            [
                (60 + i * 60) as u8,
                (60 + j * 60) as u8,
                (240 - (i + j) * 25) as u8,
                255,
            ]
        }
    });
    let projector = camera(
        Vec3::new(-2.0, 3.5, 2.0),
        Vec3::new(0.0, 0.3, 0.0),
        40.0,
        1.0,
    );
    let g = scene.add_group(scene.root(), "projected").unwrap();
    scene
        .set_effect(
            g,
            Some(Effect::projected_texture(
                slide,
                &projector,
                ApplyMode::Modulate,
                Vec4::ONE,
            )),
        )
        .unwrap();
    scene
        .set_global_state(
            g,
            GlobalState::Material(MaterialState::matte(rgba(0.75, 0.75, 0.75, 1.0))),
        )
        .unwrap();
    scene
        .add_geometry(g, "floor", mesh(TriMesh::plane(3.0, 12)))
        .unwrap();
    let b = scene.add_geometry(g, "box", mesh(TriMesh::cube())).unwrap();
    scene.set_translation(b, Vec3::new(0.0, 0.5, 0.0)).unwrap();
    scene.set_uniform_scale(b, 0.5).unwrap();
    draw(
        r,
        &mut scene,
        &camera(
            Vec3::new(2.5, 2.2, 3.5),
            Vec3::new(0.0, 0.3, 0.0),
            45.0,
            4.0 / 3.0,
        ),
    );
}

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

/// The TestPlanarShadow sample: a point light at (−1.5, 1.8, 3) makes the ball cast a dark
/// translucent shadow (α 0.6 black) on the checkered floor (centre ≈ (−1.05, 0, −0.6)) and the
/// torus one on the blue wall (centre ≈ (1.25, 0.33, −2.5)); each is clipped to its plane by the
/// stencil buffer and never double-darkened where a caster overlaps itself.
fn planar_shadow(r: &mut SoftRenderer) {
    let mut scene = Scene::new();
    scene.set_background(rgba(0.05, 0.05, 0.08, 1.0)).unwrap();
    let (casters, floor, wall, light) = room(&mut scene);
    // Low, left and in front: the ball's shadow falls on the floor, the torus's on the wall.
    scene
        .set_light(light, Light::point(Vec3::new(-1.5, 1.8, 3.0)))
        .unwrap();
    scene
        .set_effect(
            casters,
            Some(Effect::PlanarShadow {
                planes: vec![floor, wall],
                light,
                color: rgba(0.0, 0.0, 0.0, 0.6),
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
