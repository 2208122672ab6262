//! Camera matrices and frustum culling with exact answers (must-show 2): objects inside,
//! outside and straddling each plane; plane-state bits; user planes; cull modes; switches.

use std::sync::Arc;

use glam::{Mat4, Vec3, Vec4Swizzles};
use plumb_scene::{Camera, CameraViewport, Culling, Mesh, NodeId, PixelRect, Plane, Scene};

/// A tiny sphere-ish mesh: an octahedron of radius `r` (sphere bound: centre 0, radius r).
fn ball(r: f32) -> Arc<Mesh> {
    let p = vec![
        Vec3::X * r,
        -Vec3::X * r,
        Vec3::Y * r,
        -Vec3::Y * r,
        Vec3::Z * r,
        -Vec3::Z * r,
    ];
    let i = vec![
        0, 2, 4, 2, 1, 4, 1, 3, 4, 3, 0, 4, 2, 0, 5, 1, 2, 5, 3, 1, 5, 0, 3, 5,
    ];
    Arc::new(Mesh::triangles(p, i).unwrap())
}

/// fov 90°, aspect 1, near 1, far 100, at the origin looking down −z: at depth z the frustum
/// spans x, y ∈ [z, −z].
fn camera() -> Camera {
    Camera::perspective(std::f32::consts::FRAC_PI_2, 1.0, 1.0, 100.0).unwrap()
}

fn place(s: &mut Scene, mesh: &Arc<Mesh>, name: &str, at: Vec3) -> NodeId {
    let id = s.add_geometry(s.root(), name, mesh.clone()).unwrap();
    s.set_translation(id, at).unwrap();
    id
}

#[test]
fn inside_outside_and_straddling_each_plane() {
    let b = ball(0.5);
    // (plane, outside centre, straddling centre); inside is (0, 0, −50) for all.
    let cases = [
        (
            "left",
            Vec3::new(-52.0, 0.0, -50.0),
            Vec3::new(-50.0, 0.0, -50.0),
        ),
        (
            "right",
            Vec3::new(52.0, 0.0, -50.0),
            Vec3::new(50.0, 0.0, -50.0),
        ),
        (
            "bottom",
            Vec3::new(0.0, -52.0, -50.0),
            Vec3::new(0.0, -50.0, -50.0),
        ),
        (
            "top",
            Vec3::new(0.0, 52.0, -50.0),
            Vec3::new(0.0, 50.0, -50.0),
        ),
        ("near", Vec3::new(0.0, 0.0, -0.2), Vec3::new(0.0, 0.0, -1.0)),
        (
            "far",
            Vec3::new(0.0, 0.0, -101.0),
            Vec3::new(0.0, 0.0, -100.0),
        ),
    ];
    for (plane, outside, straddling) in cases {
        let mut s = Scene::new();
        let inside = place(&mut s, &b, "inside", Vec3::new(0.0, 0.0, -50.0));
        let out = place(&mut s, &b, "outside", outside);
        let on = place(&mut s, &b, "straddling", straddling);
        s.update(0.0);
        let visible = s.cull(&camera());
        assert_eq!(visible.items(), &[inside, on], "{plane}");
        assert!(!visible.items().contains(&out), "{plane}");
    }
}

#[test]
fn frustum_planes_match_eberly_formulas() {
    let cam = camera();
    let planes = cam.frustum_planes();
    let h = std::f32::consts::FRAC_1_SQRT_2;
    let expect = [
        Vec3::new(h, 0.0, -h),
        Vec3::new(-h, 0.0, -h),
        Vec3::new(0.0, h, -h),
        Vec3::new(0.0, -h, -h),
        Vec3::new(0.0, 0.0, -1.0),
        Vec3::new(0.0, 0.0, 1.0),
    ];
    for (p, n) in planes.iter().zip(expect) {
        assert!((p.normal() - n).length() < 1e-6, "{p:?}");
    }
    assert_eq!(planes[4].constant(), 1.0);
    assert_eq!(planes[5].constant(), -100.0);
    // An object at E + ((near + far)/2)·D is inside all six.
    let mid = Vec3::new(0.0, 0.0, -50.5);
    assert!(planes.iter().all(|p| p.distance(mid) > 0.0));
}

#[test]
fn subtree_inside_a_plane_stops_testing_it() {
    let b = ball(0.1);
    let mut s = Scene::new();
    let g = s.add_group(s.root(), "g").unwrap();
    for i in 0..5 {
        let c = s.add_geometry(g, format!("c{i}"), b.clone()).unwrap();
        s.set_translation(c, Vec3::new(i as f32 * 0.5 - 1.0, 0.0, -10.0))
            .unwrap();
    }
    s.update(0.0);
    let v = s.cull(&camera());
    assert_eq!(v.len(), 5);
    // Root: 6 tests, all positive; group: 0; children: 0.
    assert_eq!(v.stats().plane_tests, 6);
    assert_eq!(v.stats().visited, 7);

    // Move the group so its bound straddles the left plane only: children test only that one.
    let mut s2 = Scene::new();
    let g = s2.add_group(s2.root(), "g").unwrap();
    let inner = s2.add_geometry(g, "inner", b.clone()).unwrap();
    s2.set_translation(inner, Vec3::new(-5.0, 0.0, -10.0))
        .unwrap();
    let edge = s2.add_geometry(g, "edge", b.clone()).unwrap();
    s2.set_translation(edge, Vec3::new(-10.0, 0.0, -10.0))
        .unwrap();
    s2.update(0.0);
    let v = s2.cull(&camera());
    assert_eq!(v.items(), &[inner, edge]);
    // The root tests all 6 and straddles only the left plane; the group and each child then
    // test only that one.
    assert_eq!(v.stats().plane_tests, 6 + 1 + 1 + 1);
}

#[test]
fn user_planes_cull_too() {
    let b = ball(0.5);
    let mut s = Scene::new();
    let l = place(&mut s, &b, "l", Vec3::new(-5.0, 0.0, -20.0));
    let r = place(&mut s, &b, "r", Vec3::new(5.0, 0.0, -20.0));
    s.update(0.0);
    let mut cam = camera();
    assert_eq!(s.cull(&cam).items(), &[l, r]);
    cam.push_plane(Plane::new(Vec3::X, 0.0).unwrap()).unwrap();
    assert_eq!(s.cull(&cam).items(), &[r]);
    assert!(cam.pop_plane().is_some());
    assert!(cam.pop_plane().is_none(), "frustum planes are never popped");
    for _ in 0..plumb_scene::MAX_USER_PLANES {
        cam.push_plane(Plane::new(Vec3::Y, -1000.0).unwrap())
            .unwrap();
    }
    assert!(cam.push_plane(Plane::new(Vec3::Y, 0.0).unwrap()).is_err());
    assert_eq!(s.cull(&cam).items(), &[l, r]);
}

#[test]
fn cull_modes_and_switches() {
    let b = ball(0.5);
    let mut s = Scene::new();
    let hidden = place(&mut s, &b, "hidden", Vec3::new(0.0, 0.0, -10.0));
    let behind = place(&mut s, &b, "behind", Vec3::new(0.0, 0.0, 10.0));
    let sw = s.add_switch(s.root(), "switch").unwrap();
    let a = s.add_geometry(sw, "a", b.clone()).unwrap();
    let c = s.add_geometry(sw, "c", b.clone()).unwrap();
    s.set_translation(sw, Vec3::new(0.0, 0.0, -20.0)).unwrap();
    s.set_translation(c, Vec3::new(3.0, 0.0, 0.0)).unwrap();
    s.set_culling(hidden, Culling::Always).unwrap();
    s.set_culling(behind, Culling::Never).unwrap();
    s.update(0.0);
    let cam = camera();
    assert_eq!(s.cull(&cam).items(), &[behind]);
    s.set_active_child(sw, Some(c)).unwrap();
    assert_eq!(s.cull(&cam).items(), &[behind, c]);
    s.set_active_index(sw, Some(0)).unwrap();
    assert_eq!(s.cull(&cam).items(), &[behind, a]);
    // All children are updated, active or not; the switch bound covers both.
    assert_eq!(
        s.world_transform(c).unwrap().translation(),
        Vec3::new(3.0, 0.0, -20.0)
    );
    assert!(s
        .world_bound(sw)
        .unwrap()
        .contains(s.world_bound(c).unwrap(), 1e-5));
    // Detaching the active child clears it.
    s.detach(a).unwrap();
    assert_eq!(s.active_child(sw).unwrap(), None);
    assert!(s.set_active_child(sw, Some(a)).is_err());
    assert!(s.set_active_child(hidden, None).is_err());
}

#[test]
fn matrices_follow_design_conventions() {
    let cam = Camera::perspective(1.0, 1.5, 0.5, 50.0).unwrap();
    let ours = cam.clip_from_view();
    let glam_m = Mat4::perspective_rh(1.0, 1.5, 0.5, 50.0);
    for (a, b) in ours.to_cols_array().iter().zip(glam_m.to_cols_array()) {
        assert!(
            (a - b).abs() <= 1e-5 * (1.0 + b.abs()),
            "{ours} vs {glam_m}"
        );
    }
    // Near maps to depth 0, far to 1.
    let n = ours * glam::Vec4::new(0.0, 0.0, -0.5, 1.0);
    let f = ours * glam::Vec4::new(0.0, 0.0, -50.0, 1.0);
    assert!((n.z / n.w).abs() < 1e-6 && (f.z / f.w - 1.0).abs() < 1e-6);

    let mut cam = Camera::orthographic(-2.0, 2.0, -1.0, 1.0, 0.0, 10.0).unwrap();
    cam.look_at(Vec3::new(1.0, 2.0, 3.0), Vec3::new(1.0, 2.0, -7.0), Vec3::Y)
        .unwrap();
    let glam_o = Mat4::orthographic_rh(-2.0, 2.0, -1.0, 1.0, 0.0, 10.0);
    assert_eq!(cam.clip_from_view(), glam_o);
    assert_eq!(
        cam.view_from_world(),
        Mat4::look_at_rh(Vec3::new(1.0, 2.0, 3.0), Vec3::new(1.0, 2.0, -7.0), Vec3::Y)
    );
    // R = D × U.
    assert_eq!(cam.right(), cam.direction().cross(cam.up()));
}

/// Window position of a world point (DESIGN §3: origin top-left, y down).
fn to_window(cam: &Camera, p: Vec3, w: u32, h: u32) -> glam::Vec2 {
    let c = cam.clip_from_world() * p.extend(1.0);
    let ndc = c.xyz() / c.w;
    let vp = cam.viewport().to_pixels(w, h);
    glam::Vec2::new(
        vp.x as f32 + (ndc.x + 1.0) * 0.5 * vp.width as f32,
        vp.y as f32 + (1.0 - ndc.y) * 0.5 * vp.height as f32,
    )
}

#[test]
fn perspective_pick_rays_start_at_the_eye_and_fan_out() {
    let mut cam = camera();
    cam.set_frame(Vec3::new(0.0, 0.0, 10.0), -Vec3::Z, Vec3::Y)
        .unwrap();
    let centre = cam.pick_ray(50, 50, 101, 101).unwrap();
    assert_eq!(centre.origin(), Vec3::new(0.0, 0.0, 10.0));
    assert_eq!(centre.direction(), -Vec3::Z);
    let corner = cam.pick_ray(0, 0, 101, 101).unwrap();
    assert_eq!(corner.origin(), Vec3::new(0.0, 0.0, 10.0));
    let d = 1.0 - 1.0 / 101.0;
    assert!((corner.direction() - Vec3::new(-d, d, -1.0).normalize()).length() < 1e-6);
    // Points along the ray project back onto the pixel centre.
    for (x, y) in [(0, 0), (17, 80), (100, 100)] {
        let ray = cam.pick_ray(x, y, 101, 101).unwrap();
        let w = to_window(&cam, ray.at(20.0), 101, 101);
        assert!((w - glam::Vec2::new(x as f32 + 0.5, y as f32 + 0.5)).length() < 1e-3);
    }
}

#[test]
fn orthographic_pick_rays_are_parallel() {
    let mut cam = Camera::orthographic(-2.0, 2.0, -2.0, 2.0, 0.1, 100.0).unwrap();
    cam.set_frame(Vec3::new(0.0, 0.0, 10.0), -Vec3::Z, Vec3::Y)
        .unwrap();
    let r = cam.pick_ray(0, 0, 100, 100).unwrap();
    assert_eq!(r.origin(), Vec3::new(-1.98, 1.98, 10.0));
    assert_eq!(r.direction(), -Vec3::Z);
    let r2 = cam.pick_ray(99, 50, 100, 100).unwrap();
    assert_eq!(r2.direction(), -Vec3::Z);
    assert!((r2.origin() - Vec3::new(1.98, -0.02, 10.0)).length() < 1e-6);
    for (x, y) in [(0, 0), (17, 80), (99, 99)] {
        let ray = cam.pick_ray(x, y, 100, 100).unwrap();
        let w = to_window(&cam, ray.at(20.0), 100, 100);
        assert!((w - glam::Vec2::new(x as f32 + 0.5, y as f32 + 0.5)).length() < 1e-3);
    }
}

#[test]
fn pick_rays_honour_the_viewport() {
    let mut cam = camera();
    // Right half of a 200×100 target.
    cam.set_viewport(
        CameraViewport::from_pixels(
            PixelRect {
                x: 100,
                y: 0,
                width: 100,
                height: 100,
            },
            200,
            100,
        )
        .unwrap(),
    );
    assert!(cam.pick_ray(99, 50, 200, 100).is_none());
    assert!(cam.pick_ray(200, 50, 200, 100).is_none());
    assert!(cam.pick_ray(150, 100, 200, 100).is_none());
    let c = cam
        .pick_ray_at(glam::Vec2::new(150.0, 50.0), 200, 100)
        .unwrap();
    assert_eq!(c.direction(), -Vec3::Z);
    let r = cam.pick_ray(100, 0, 200, 100).unwrap();
    let w = to_window(&cam, r.at(5.0), 200, 100);
    assert!((w - glam::Vec2::new(100.5, 0.5)).length() < 1e-3, "{w}");
    assert!(CameraViewport::normalized(0.5, 0.0, 0.6, 1.0).is_err());
}
