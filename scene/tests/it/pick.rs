//! Picking with exact answers (must-show 2): nearest of overlapping meshes, world-space
//! distances under scale, stable ties, barycentrics, switches and hidden nodes.

use std::sync::Arc;

use glam::Vec3;
use plumb_scene::{Camera, Culling, Mesh, NodeId, Ray, Scene};

fn cube_at(s: &mut Scene, mesh: &Arc<Mesh>, name: &str, z: f32) -> NodeId {
    let id = s.add_geometry(s.root(), name, mesh.clone()).unwrap();
    s.set_translation(id, Vec3::new(0.0, 0.0, z)).unwrap();
    id
}

#[test]
fn nearest_of_overlapping_meshes_comes_first() {
    let cube = Arc::new(Mesh::cube());
    let mut s = Scene::new();
    // Added back to front so tree order differs from distance order.
    let far = cube_at(&mut s, &cube, "far", -8.0);
    let near = cube_at(&mut s, &cube, "near", -5.0);
    s.update(0.0);
    // Off the face diagonals, so each face is hit by exactly one triangle.
    let ray = Ray::new(Vec3::ZERO, Vec3::new(0.01, 0.02, -1.0)).unwrap();
    let hits = s.pick(&ray);
    let got: Vec<NodeId> = hits.iter().map(|h| h.node).collect();
    assert_eq!(got, vec![near, near, far, far]);
    let len = ray.direction().z.recip().abs();
    for (h, z) in hits.iter().zip([4.5f32, 5.5, 7.5, 8.5]) {
        assert!(
            (h.distance - z * len).abs() < 1e-5,
            "{} vs {}",
            h.distance,
            z * len
        );
    }
    // Through a camera's centre pixel the distance is the plain depth.
    let cam = Camera::perspective(1.0, 1.0, 0.1, 100.0).unwrap();
    let centre = cam.pick_ray(50, 50, 101, 101).unwrap();
    assert_eq!(s.pick_closest(&centre).unwrap().distance, 4.5);
    assert_eq!(s.pick_closest(&ray).unwrap().node, near);
    // Hidden nodes are not picked.
    s.set_culling(near, Culling::Always).unwrap();
    assert_eq!(s.pick_closest(&ray).unwrap().node, far);
}

#[test]
fn distances_are_world_space_under_scale() {
    let cube = Arc::new(Mesh::cube());
    let mut s = Scene::new();
    let big = cube_at(&mut s, &cube, "big", -20.0);
    s.set_uniform_scale(big, 2.0).unwrap();
    let g = s.add_group(s.root(), "g").unwrap();
    s.set_uniform_scale(g, 0.5).unwrap();
    let stretched = s.add_geometry(g, "stretched", cube.clone()).unwrap();
    s.set_translation(stretched, Vec3::new(0.0, 0.0, -20.0))
        .unwrap(); // world z = −10
    s.set_scale(stretched, Vec3::new(1.0, 1.0, -8.0)).unwrap(); // world depth 4, mirrored
    s.update(0.0);
    let ray = Ray::new(Vec3::new(0.1, 0.2, 0.0), -Vec3::Z).unwrap();
    let hits = s.pick(&ray);
    let got: Vec<(NodeId, f32)> = hits.iter().map(|h| (h.node, h.distance)).collect();
    assert_eq!(
        got,
        vec![
            (stretched, 8.0),
            (stretched, 12.0),
            (big, 19.0),
            (big, 21.0)
        ]
    );
    for h in &hits {
        let b = h.barycentric;
        assert!((b.iter().sum::<f32>() - 1.0).abs() < 1e-6);
        assert!(b.iter().all(|&x| (0.0..=1.0).contains(&x)));
        // Barycentric point of the world triangle = the ray point.
        let tri = s
            .mesh(h.node)
            .unwrap()
            .triangle(h.triangle as usize)
            .unwrap();
        let w = s.world_transform(h.node).unwrap();
        let p = tri
            .iter()
            .zip(b)
            .fold(Vec3::ZERO, |acc, (v, bk)| acc + w.apply_point(*v) * bk);
        assert!(
            (p - ray.at(h.distance)).length() < 1e-4,
            "{p} vs {}",
            ray.at(h.distance)
        );
    }
}

#[test]
fn equal_distances_keep_tree_then_triangle_order() {
    let cube = Arc::new(Mesh::cube());
    let mut s = Scene::new();
    let a = cube_at(&mut s, &cube, "a", -5.0);
    let b = cube_at(&mut s, &cube, "b", -5.0);
    s.update(0.0);
    let ray = Ray::new(Vec3::new(0.1, 0.2, 0.0), -Vec3::Z).unwrap();
    let hits = s.pick(&ray);
    let order: Vec<(NodeId, f32)> = hits.iter().map(|h| (h.node, h.distance)).collect();
    assert_eq!(order, vec![(a, 4.5), (b, 4.5), (a, 5.5), (b, 5.5)]);
    // Through the diagonal of the front face: both of its triangles are hit at 4.5.
    let diag = Ray::new(Vec3::new(0.0, 0.0, 0.0), -Vec3::Z).unwrap();
    let hits = s.pick(&diag);
    let front: Vec<(NodeId, u32)> = hits
        .iter()
        .filter(|h| h.distance == 4.5)
        .map(|h| (h.node, h.triangle))
        .collect();
    assert_eq!(front, vec![(a, 2), (a, 3), (b, 2), (b, 3)]);
}

#[test]
fn switch_picks_only_its_active_child() {
    let cube = Arc::new(Mesh::cube());
    let mut s = Scene::new();
    let sw = s.add_switch(s.root(), "sw").unwrap();
    let a = s.add_geometry(sw, "a", cube.clone()).unwrap();
    let b = s.add_geometry(sw, "b", cube.clone()).unwrap();
    s.set_translation(sw, Vec3::new(0.0, 0.0, -5.0)).unwrap();
    s.set_translation(b, Vec3::new(0.0, 0.0, 2.0)).unwrap();
    s.update(0.0);
    let ray = Ray::new(Vec3::ZERO, -Vec3::Z).unwrap();
    assert!(s.pick(&ray).is_empty());
    s.set_active_child(sw, Some(a)).unwrap();
    assert!(s.pick(&ray).iter().all(|h| h.node == a));
    s.set_active_child(sw, Some(b)).unwrap();
    assert_eq!(s.pick_closest(&ray).unwrap().distance, 2.5);
    // A ray that misses every bound finds nothing.
    let miss = Ray::new(Vec3::new(10.0, 0.0, 0.0), -Vec3::Z).unwrap();
    assert!(s.pick(&miss).is_empty());
}
