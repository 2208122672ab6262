//! Points and particles (book-advanced §1.2, §1.15). Every expected value is worked out by
//! hand in the comments, from the book's formulas.

use std::f32::consts::FRAC_PI_2;

use glam::{Mat3, Vec3, Vec4};
use plumb_scene::particles::{RandomParticles, SystemMotion, MAX_PARTICLES};
use plumb_scene::{
    rotation_axis_angle, Camera, Controller, ControllerTiming, Mesh, MeshController,
    ParticleController, Particles, PointController, Scene, SceneError, SoftRenderer, Transform,
};

fn close(a: Vec3, b: Vec3, tol: f32) -> bool {
    (a - b).abs().max_element() <= tol
}

fn forever() -> ControllerTiming {
    ControllerTiming::over(0.0, f64::MAX).unwrap()
}

fn camera_on_z() -> Camera {
    let mut camera = Camera::perspective(1.0, 1.0, 0.1, 100.0).unwrap();
    camera
        .look_at(Vec3::new(0.0, 0.0, 10.0), Vec3::ZERO, Vec3::Y)
        .unwrap();
    camera
}

/// The system's parent turns 90° about y, so its world rotation is `RotY(90°)`: x → (0, 0, −1),
/// z → (1, 0, 0). The camera on +z has R = (1, 0, 0), U = (0, 1, 0), D = (0, 0, −1). In the
/// system's space (`Rᵀ = RotY(−90°)`: x → (0, 0, 1), z → (−1, 0, 0)):
/// R′ = (0, 0, 1), U′ = (0, 1, 0), D′ = (1, 0, 0).
/// Particle C = (1, 2, 3), σ = 0.5, α = 2, so ασ = 1:
/// V0 = C − (U′ − R′) = (1, 2, 3) − (0, 1, −1) = (1, 1, 4)
/// V1 = C + (U′ + R′) = (1, 3, 4)
/// V2 = C + (U′ − R′) = (1, 3, 2)
/// V3 = C − (U′ + R′) = (1, 1, 2)
/// normals −D′ = (−1, 0, 0). In the world (RotY(90°)·V, no translation): V0 = (4, 1, −1),
/// V1 = (4, 3, −1), V2 = (2, 3, −1), V3 = (2, 1, −1): a square in the plane z = −1 facing the
/// camera, V0 bottom right, counter-clockwise from the camera.
#[test]
fn corners_follow_the_books_formula_for_a_known_camera() {
    let mut scene = Scene::new();
    let group = scene.add_group(scene.root(), "turned").unwrap();
    scene
        .set_rotation(group, rotation_axis_angle(Vec3::Y, FRAC_PI_2).unwrap())
        .unwrap();
    let p = Particles::new(vec![Vec3::new(1.0, 2.0, 3.0)], vec![0.5])
        .unwrap()
        .with_size_adjust(2.0)
        .unwrap();
    let leaf = scene.add_particles(group, "p", p).unwrap();
    scene.update(0.0);
    let camera = camera_on_z();
    let mut r = SoftRenderer::new(16, 16, Some(1)).unwrap();
    scene.draw(&camera, &mut r).unwrap();

    let mesh = scene.mesh(leaf).unwrap();
    let expected = [
        Vec3::new(1.0, 1.0, 4.0),
        Vec3::new(1.0, 3.0, 4.0),
        Vec3::new(1.0, 3.0, 2.0),
        Vec3::new(1.0, 1.0, 2.0),
    ];
    for (got, want) in mesh.positions().iter().zip(expected) {
        assert!(close(*got, want, 1e-5), "{got} vs {want}");
    }
    assert_eq!(mesh.positions().len(), 4);
    assert_eq!(mesh.indices(), &[0, 1, 2, 0, 2, 3]);
    for n in mesh.normals().unwrap() {
        assert!(close(*n, Vec3::new(-1.0, 0.0, 0.0), 1e-6), "{n}");
    }
    let world = scene.world_transform(leaf).unwrap();
    let world_expected = [
        Vec3::new(4.0, 1.0, -1.0),
        Vec3::new(4.0, 3.0, -1.0),
        Vec3::new(2.0, 3.0, -1.0),
        Vec3::new(2.0, 1.0, -1.0),
    ];
    for (v, want) in mesh.positions().iter().zip(world_expected) {
        let got = world.apply_point(*v);
        assert!(close(got, want, 1e-5), "{got} vs {want}");
    }
}

/// Before any draw the quads face the default frame (R = +x, U = +y): particle at the origin,
/// σ = 1, α = 1 → V0 = −(U − R) = (1, −1, 0), V1 = (1, 1, 0), V2 = (−1, 1, 0),
/// V3 = (−1, −1, 0).
#[test]
fn quads_before_any_draw_face_minus_z() {
    let mut scene = Scene::new();
    let p = Particles::new(vec![Vec3::ZERO], vec![1.0]).unwrap();
    let leaf = scene.add_particles(scene.root(), "p", p).unwrap();
    let mesh = scene.mesh(leaf).unwrap();
    assert_eq!(
        mesh.positions(),
        &[
            Vec3::new(1.0, -1.0, 0.0),
            Vec3::new(1.0, 1.0, 0.0),
            Vec3::new(-1.0, 1.0, 0.0),
            Vec3::new(-1.0, -1.0, 0.0)
        ]
    );
}

/// Five particles, three active: 12 vertices, 18 indices, each colour on 4 corners; a
/// count past the particles is refused; zero active draws nothing.
#[test]
fn active_count_and_colours() {
    let locations: Vec<Vec3> = (0..5).map(|i| Vec3::new(i as f32, 0.0, 0.0)).collect();
    let colors: Vec<Vec4> = (0..5)
        .map(|i| Vec4::new(i as f32 / 4.0, 0.0, 1.0, 1.0))
        .collect();
    let p = Particles::new(locations, vec![0.25; 5])
        .unwrap()
        .with_colors(colors.clone())
        .unwrap()
        .with_active(3)
        .unwrap();
    let mut scene = Scene::new();
    let leaf = scene.add_particles(scene.root(), "p", p.clone()).unwrap();
    let mesh = scene.mesh(leaf).unwrap();
    assert_eq!(mesh.positions().len(), 12);
    assert_eq!(mesh.triangle_count(), 6);
    let mc = mesh.colors().unwrap();
    for (v, c) in mc.iter().enumerate() {
        assert_eq!(*c, colors[v / 4], "vertex {v}");
    }
    // Corner V1 of particle 2 = C + σ(U + R) = (2, 0, 0) + 0.25·(1, 1, 0).
    assert_eq!(mesh.positions()[9], Vec3::new(2.25, 0.25, 0.0));
    assert!(matches!(
        p.clone().with_active(6),
        Err(SceneError::InvalidArgument { .. })
    ));

    // Zero active: an empty mesh, culled, nothing drawn.
    scene
        .set_particles(leaf, p.with_active(0).unwrap())
        .unwrap();
    scene.update(0.0);
    let mut r = SoftRenderer::new(8, 8, Some(1)).unwrap();
    let stats = scene.draw(&camera_on_z(), &mut r).unwrap();
    assert_eq!(scene.mesh(leaf).unwrap().positions().len(), 0);
    assert_eq!(stats.opaque, 0);
}

#[test]
fn bad_particles_are_typed_errors() {
    assert!(matches!(
        Particles::new(vec![Vec3::ZERO], vec![-1.0]),
        Err(SceneError::InvalidArgument { .. })
    ));
    assert!(matches!(
        Particles::new(vec![Vec3::new(f32::NAN, 0.0, 0.0)], vec![1.0]),
        Err(SceneError::NonFinite { .. })
    ));
    assert!(matches!(
        Particles::new(vec![Vec3::ZERO; 2], vec![1.0]),
        Err(SceneError::AttributeLength { .. })
    ));
    let too_many = RandomParticles {
        seed: 1,
        count: MAX_PARTICLES + 1,
        half_extent: 1.0,
        size: (0.1, 0.2),
        speed: (0.0, 1.0),
        color: (Vec4::ZERO, Vec4::ONE),
    };
    assert!(matches!(
        ParticleController::random(forever(), &too_many),
        Err(SceneError::InvalidArgument { .. })
    ));
}

/// One particle at the origin, speed 2 along x, box [−1, 1]³: x(t) = 2t folded into the box —
/// t = 0.25 → 0.5; t = 0.5 → 1 (the wall); t = 1 → back to 0; t = 1.5 → −1; t = 2 → 0 again.
/// Size 1 changing by −0.5/s: 0.875 at 0.25, 0 (not negative) from t = 2 on. System size
/// change 1/s from α = 1: α(1.5) = 2.5.
#[test]
fn particle_motion_is_a_closed_form_of_time() {
    let rest = Particles::new(vec![Vec3::ZERO], vec![1.0]).unwrap();
    let c = ParticleController::new(
        forever(),
        rest.clone(),
        vec![2.0],
        vec![Vec3::new(3.0, 0.0, 0.0)],
        vec![-0.5],
        1.0,
        Some((Vec3::splat(-1.0), Vec3::splat(1.0))),
    )
    .unwrap();
    let x = |t: f64| c.particles_at(t, &rest).unwrap().locations()[0].x;
    assert_eq!(x(0.25), 0.5);
    assert_eq!(x(0.5), 1.0);
    assert_eq!(x(1.0), 0.0);
    assert_eq!(x(1.5), -1.0);
    assert_eq!(x(2.0), 0.0);
    let at = c.particles_at(0.25, &rest).unwrap();
    assert_eq!(at.sizes(), &[0.875]);
    assert_eq!(at.size_adjust(), 1.25);
    assert_eq!(c.particles_at(3.0, &rest).unwrap().sizes(), &[0.0]);
    assert_eq!(c.particles_at(1.5, &rest).unwrap().size_adjust(), 2.5);

    // Through the scene: the same values, whatever the update history.
    let mut scene = Scene::new();
    let leaf = scene.add_particles(scene.root(), "p", rest).unwrap();
    scene.add_particle_controller(leaf, c).unwrap();
    for t in [3.0, 0.5, 0.25] {
        scene.update(t);
    }
    assert_eq!(scene.particles(leaf).unwrap().locations()[0].x, 0.5);
}

/// System motion from rest translation (1, 0, 0): speed 2 along (0, 0, 2) (normalized to +z)
/// and π/2 rad/s about z. At t = 1: translation (1, 0, 2), rotation Rz(90°): x → (0, 1, 0).
#[test]
fn system_motion_moves_the_local_transform() {
    let rest = Transform::from_translation(Vec3::X).unwrap();
    let mut m = SystemMotion::new(
        forever(),
        rest,
        2.0,
        Vec3::new(0.0, 0.0, 2.0),
        FRAC_PI_2,
        Vec3::Z,
    )
    .unwrap();
    let t = m.update(1.0, &Transform::IDENTITY).unwrap();
    assert!(close(t.translation(), Vec3::new(1.0, 0.0, 2.0), 1e-6));
    let r = t.rotation().unwrap();
    assert!(close(r * Vec3::X, Vec3::Y, 1e-6), "{}", r * Vec3::X);
    assert!(matches!(
        SystemMotion::new(forever(), rest, 1.0, Vec3::ZERO, 0.0, Vec3::Z),
        Err(SceneError::ZeroRotation(_))
    ));
}

/// Point motion: vertex 0 at (1, 0, 0) moving 1/s along −x, normal +x turning π/2 rad/s about
/// z; at t = 1 it is at the origin with normal +y. Vertex 1 does not move.
#[test]
fn point_motion_moves_points_and_turns_normals() {
    let mesh = Mesh::points(vec![Vec3::X, Vec3::Y])
        .unwrap()
        .with_normals(vec![Vec3::X, Vec3::Z])
        .unwrap();
    let mut c = PointController::new(
        forever(),
        &mesh,
        vec![1.0, 0.0],
        vec![Vec3::NEG_X, Vec3::X],
        vec![FRAC_PI_2, 0.0],
        vec![Vec3::Z, Vec3::Z],
    )
    .unwrap();
    let out = c.update(1.0, &mesh, &[]).unwrap();
    assert!(close(out.positions()[0], Vec3::ZERO, 1e-6));
    assert_eq!(out.positions()[1], Vec3::Y);
    assert!(close(out.normals().unwrap()[0], Vec3::Y, 1e-6));
    assert_eq!(out.normals().unwrap()[1], Vec3::Z);
    let mut scene = Scene::new();
    let leaf = scene
        .add_geometry(scene.root(), "points", std::sync::Arc::new(mesh))
        .unwrap();
    scene.add_mesh_controller(leaf, Box::new(c)).unwrap();
    scene.update(0.5);
    assert!(close(
        scene.mesh(leaf).unwrap().positions()[0],
        Vec3::new(0.5, 0.0, 0.0),
        1e-6
    ));
}

fn random_frame(seed: u64, threads: usize, history: &[f64]) -> Vec<u8> {
    let params = RandomParticles {
        seed,
        count: 200,
        half_extent: 1.5,
        size: (0.03, 0.12),
        speed: (0.2, 1.0),
        color: (Vec4::new(0.5, 0.0, 0.0, 1.0), Vec4::new(1.0, 0.5, 0.5, 1.0)),
    };
    let c = ParticleController::random(forever(), &params).unwrap();
    let mut scene = Scene::new();
    let group = scene.add_group(scene.root(), "g").unwrap();
    scene
        .set_rotation(group, Mat3::from_rotation_y(0.3))
        .unwrap();
    let leaf = scene
        .add_particles(group, "cells", c.rest().clone())
        .unwrap();
    scene.add_particle_controller(leaf, c).unwrap();
    let mut r = SoftRenderer::new(64, 64, Some(threads)).unwrap();
    for &t in history {
        scene.update(t);
        scene.draw(&camera_on_z(), &mut r).unwrap();
    }
    r.image().into_raw()
}

/// A frame at t = 2.5 is the same bytes on every run, with 1 or 2 threads and whatever frames
/// came before; another seed gives another frame.
#[test]
fn same_seed_and_time_give_the_same_bytes() {
    let a = random_frame(7, 1, &[2.5]);
    let b = random_frame(7, 2, &[0.0, 9.0, 1.0, 2.5]);
    assert_eq!(a, b);
    assert!(a.iter().any(|&x| x != 0), "something is drawn");
    assert_ne!(a, random_frame(8, 1, &[2.5]));
    assert_ne!(a, random_frame(7, 1, &[2.0]));
}
