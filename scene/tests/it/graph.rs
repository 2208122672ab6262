//! Hierarchy operations, typed errors and limits (must-show 2: cycle → error; must-show 4:
//! bad input and limits, including a 10⁶-deep chain).

use std::sync::Arc;

use glam::{Mat3, Vec3};
use plumb_scene::{
    Camera, Limits, Mesh, NodeKind, Ray, Reparent, Scene, SceneError, Transform, DEFAULT_MAX_DEPTH,
};

#[test]
fn attach_under_itself_or_descendant_is_a_cycle_error() {
    let mut s = Scene::new();
    let a = s.add_group(s.root(), "a").unwrap();
    let b = s.add_group(a, "b").unwrap();
    let c = s.add_group(b, "c").unwrap();
    // a under c (its own descendant).
    assert_eq!(
        s.reparent(a, c, Reparent::KeepLocal),
        Err(SceneError::Cycle {
            parent: "c".into(),
            child: "a".into()
        })
    );
    // a under itself.
    assert!(matches!(
        s.reparent(a, a, Reparent::KeepWorld),
        Err(SceneError::Cycle { .. })
    ));
    // Detached subtree: attaching its root under its own leaf.
    s.detach(a).unwrap();
    assert!(matches!(s.attach(c, a), Err(SceneError::Cycle { .. })));
    assert!(matches!(s.attach(a, a), Err(SceneError::Cycle { .. })));
    // Nothing changed.
    assert_eq!(s.parent(a).unwrap(), None);
    assert_eq!(s.children(a).unwrap(), &[b]);
    assert_eq!(s.children(b).unwrap(), &[c]);
    // The root can never move.
    assert_eq!(
        s.reparent(s.root(), c, Reparent::KeepLocal),
        Err(SceneError::RootIsFixed)
    );
    assert_eq!(s.detach(s.root()), Err(SceneError::RootIsFixed));
    assert_eq!(s.remove(s.root()), Err(SceneError::RootIsFixed));
}

#[test]
fn attach_rules_and_stable_child_order() {
    let mut s = Scene::new();
    let cube = Arc::new(Mesh::cube());
    let g = s.add_group(s.root(), "g").unwrap();
    let leaf = s.add_geometry(g, "leaf", cube.clone()).unwrap();
    let x = s.create_group("x").unwrap();
    assert_eq!(s.attach(leaf, x), Err(SceneError::NotAGroup("leaf".into())));
    assert_eq!(
        s.add_group(leaf, "y"),
        Err(SceneError::NotAGroup("leaf".into()))
    );
    assert_eq!(
        s.attach(s.root(), leaf),
        Err(SceneError::AlreadyAttached("leaf".into()))
    );
    s.attach(g, x).unwrap();
    let y = s.create_group("y").unwrap();
    s.attach_at(g, 0, y).unwrap();
    assert_eq!(s.children(g).unwrap(), &[y, leaf, x]);
    s.detach(leaf).unwrap();
    assert_eq!(s.children(g).unwrap(), &[y, x]);
    assert!(!s.is_attached(leaf).unwrap());
    s.attach(g, leaf).unwrap();
    assert_eq!(s.children(g).unwrap(), &[y, x, leaf]);
    assert_eq!(s.kind(leaf).unwrap(), NodeKind::Geometry);
    assert_eq!(s.depth(leaf).unwrap(), 2);
}

#[test]
fn lookup_by_name_is_preorder() {
    let mut s = Scene::new();
    let a = s.add_group(s.root(), "dup").unwrap();
    let b = s.add_group(s.root(), "other").unwrap();
    let a2 = s.add_group(a, "dup").unwrap();
    let b2 = s.add_group(b, "dup").unwrap();
    let detached = s.create_group("dup").unwrap();
    assert_eq!(s.find_all("dup"), vec![a, a2, b2]);
    assert_eq!(s.find("dup"), Some(a));
    assert_eq!(s.find("nope"), None);
    assert!(!s.find_all("dup").contains(&detached));
}

#[test]
fn remove_subtree_keeps_shared_mesh_and_invalidates_ids() {
    let mut s = Scene::new();
    let cube = Arc::new(Mesh::cube());
    let g = s.add_group(s.root(), "g").unwrap();
    let leaves: Vec<_> = (0..10)
        .map(|i| s.add_geometry(g, format!("l{i}"), cube.clone()).unwrap())
        .collect();
    let other = s.add_geometry(s.root(), "other", cube.clone()).unwrap();
    assert_eq!(Arc::strong_count(&cube), 12);
    assert_eq!(s.node_count(), 13);
    assert_eq!(s.remove(g).unwrap(), 11);
    assert_eq!(s.node_count(), 2);
    assert_eq!(Arc::strong_count(&cube), 2, "the mesh survives for `other`");
    assert_eq!(s.name(leaves[3]), Err(SceneError::StaleId(leaves[3])));
    // Slots are reused with a new generation: old ids stay stale.
    let fresh = s.add_group(s.root(), "fresh").unwrap();
    assert!(s.contains(fresh) && !s.contains(g));
    assert_eq!(s.children(s.root()).unwrap(), &[other, fresh]);
    s.update(0.0);
    assert_eq!(
        s.world_bound(s.root()).unwrap(),
        s.world_bound(other).unwrap()
    );
}

#[test]
fn non_finite_transforms_are_rejected_at_the_setter() {
    let mut s = Scene::new();
    let a = s.add_group(s.root(), "a").unwrap();
    s.set_translation(a, Vec3::new(1.0, 2.0, 3.0)).unwrap();
    s.update(0.0);
    let before = *s.local_transform(a).unwrap();
    let nan = Vec3::new(0.0, f32::NAN, 0.0);
    let inf = Vec3::new(f32::INFINITY, 0.0, 0.0);
    assert_eq!(
        s.set_translation(a, nan),
        Err(SceneError::NonFinite {
            what: "translation"
        })
    );
    assert_eq!(
        s.set_scale(a, inf),
        Err(SceneError::NonFinite { what: "scale" })
    );
    assert!(matches!(
        s.set_uniform_scale(a, f32::NAN),
        Err(SceneError::NonFinite { .. })
    ));
    assert!(matches!(
        s.set_rotation(a, Mat3::from_diagonal(nan)),
        Err(SceneError::NonFinite { .. })
    ));
    assert_eq!(
        s.set_rotation(a, Mat3::from_diagonal(Vec3::new(2.0, 1.0, 1.0))),
        Err(SceneError::NotARotation)
    );
    assert!(Transform::from_affine(Mat3::IDENTITY, inf).is_err());
    assert!(Transform::from_srt(
        Vec3::ONE,
        glam::Quat::from_xyzw(0.0, 0.0, 0.0, 0.0),
        Vec3::ZERO
    )
    .is_err());
    assert_eq!(*s.local_transform(a).unwrap(), before);
    assert!(!s.is_dirty(), "rejected edits do not dirty the scene");
    // Other inputs.
    assert!(Mesh::triangles(vec![inf], vec![]).is_err());
    assert!(Ray::new(nan, Vec3::Z).is_err());
    let mut cam = Camera::default();
    assert!(cam.set_frame(nan, Vec3::Z, Vec3::Y).is_err());
    assert!(cam.set_perspective(f32::NAN, 1.0, 1.0, 2.0).is_err());
    assert!(cam.set_frustum(-1.0, 1.0, -1.0, 1.0, 0.0, 2.0).is_err());
    assert!(cam.set_frame(Vec3::ZERO, Vec3::Y, Vec3::Y).is_err());
}

#[test]
fn singular_parent_with_keep_world_is_an_error() {
    let mut s = Scene::new();
    let flat = s.add_group(s.root(), "flat").unwrap();
    s.set_scale(flat, Vec3::new(1.0, 0.0, 1.0)).unwrap();
    let a = s.add_group(s.root(), "a").unwrap();
    assert_eq!(
        s.reparent(a, flat, Reparent::KeepWorld),
        Err(SceneError::SingularTransform)
    );
    assert_eq!(s.parent(a).unwrap(), Some(s.root()));
    s.reparent(a, flat, Reparent::KeepLocal).unwrap();
    assert_eq!(s.parent(a).unwrap(), Some(flat));
}

#[test]
fn node_limit_is_a_typed_error() {
    let mut s = Scene::with_limits(Limits {
        max_nodes: 4,
        max_depth: 100,
    });
    let a = s.add_group(s.root(), "a").unwrap();
    s.add_group(a, "b").unwrap();
    s.create_group("c").unwrap();
    assert_eq!(s.add_group(a, "d"), Err(SceneError::NodeLimit { max: 4 }));
    assert_eq!(s.create_group("d"), Err(SceneError::NodeLimit { max: 4 }));
    s.remove(a).unwrap();
    s.add_group(s.root(), "d").unwrap();
}

#[test]
fn depth_limit_is_a_typed_error_for_add_attach_and_reparent() {
    let mut s = Scene::with_limits(Limits {
        max_nodes: 1000,
        max_depth: 3,
    });
    let a = s.add_group(s.root(), "a").unwrap();
    let b = s.add_group(a, "b").unwrap();
    let c = s.add_group(b, "c").unwrap();
    assert_eq!(
        s.add_group(c, "d"),
        Err(SceneError::DepthLimit { max: 3, depth: 4 })
    );
    // A detached two-level subtree fits under the root but not under b.
    let x = s.create_group("x").unwrap();
    s.add_group(x, "y").unwrap();
    assert_eq!(
        s.attach(b, x),
        Err(SceneError::DepthLimit { max: 3, depth: 4 })
    );
    s.attach(s.root(), x).unwrap();
    assert_eq!(
        s.reparent(x, b, Reparent::KeepLocal),
        Err(SceneError::DepthLimit { max: 3, depth: 4 })
    );
    s.reparent(x, a, Reparent::KeepLocal).unwrap();
    assert_eq!(s.depth(x).unwrap(), 2);
}

#[test]
fn million_deep_chain_does_not_overflow_the_stack() {
    const N: usize = 1_000_000;
    const { assert!(N < DEFAULT_MAX_DEPTH) };
    let mut s = Scene::with_limits(Limits {
        max_nodes: N + 2,
        max_depth: N,
    });
    let tri = Arc::new(Mesh::triangles(vec![Vec3::ZERO, Vec3::X, Vec3::Y], vec![0, 1, 2]).unwrap());
    let step = Transform::from_translation(Vec3::new(0.0, 0.0, -1e-6)).unwrap();
    let mut last = s.root();
    for _ in 0..N - 1 {
        last = s.add_group(last, "").unwrap();
        s.set_local_transform(last, step).unwrap();
    }
    let leaf = s.add_geometry(last, "leaf", tri).unwrap();
    assert_eq!(s.depth(leaf).unwrap(), N);
    // One more level is over the limit: an error, not an abort.
    let extra = s.add_group(last, "extra").unwrap();
    assert_eq!(s.depth(extra).unwrap(), N);
    assert_eq!(
        s.add_group(extra, "too deep"),
        Err(SceneError::DepthLimit {
            max: N,
            depth: N + 1
        })
    );
    s.detach(extra).unwrap();
    assert_eq!(
        s.attach(extra, last),
        Err(SceneError::AlreadyAttached(String::new()))
    );
    s.remove(extra).unwrap();
    let stats = s.update(0.0);
    assert_eq!(stats.transforms, N + 1);
    assert_eq!(stats.bounds, N + 1);
    // Edit deep down: only the path is revisited.
    s.set_translation(leaf, Vec3::new(0.0, 0.0, -3.0)).unwrap();
    let stats = s.update(0.0);
    assert_eq!((stats.visited, stats.transforms), (N + 1, 1));
    assert!(s.world_bound(s.root()).unwrap().radius() > 0.0);
    let camera = Camera::perspective(1.0, 1.0, 0.1, 100.0).unwrap();
    assert_eq!(s.cull(&camera).items(), &[leaf]);
    let ray = Ray::new(Vec3::new(0.1, 0.1, 0.0), -Vec3::Z).unwrap();
    assert_eq!(s.pick(&ray).len(), 1);
    assert!(s.compute_world(leaf).is_ok());
    assert!(s.is_ancestor_or_self(s.root(), leaf));
    // Reparenting the deep leaf and removing the chain are iterative too.
    s.reparent(leaf, s.root(), Reparent::KeepWorld).unwrap();
    let first = s.children(s.root()).unwrap()[0];
    assert_eq!(s.remove(first).unwrap(), N - 1);
    assert_eq!(s.node_count(), 2);
    // Dropping a scene holding a deep chain is not recursive either.
    let mut deep = Scene::new();
    let mut top = deep.root();
    for _ in 0..N / 4 {
        top = deep.add_group(top, "").unwrap();
    }
    drop(deep);
}

/// The bits of a transform's 4×4 matrix, for bit-for-bit comparisons.
fn bits(t: &Transform) -> Vec<u32> {
    t.to_mat4()
        .to_cols_array()
        .iter()
        .map(|f| f.to_bits())
        .collect()
}

/// Issue 14.2: `compute_world` promises the bits the next update stores, billboards included.
#[test]
fn compute_world_under_a_billboard_matches_update_bit_for_bit() {
    let mut s = Scene::new();
    let root = s.root();
    let base = s.add_group(root, "base").unwrap();
    s.set_translation(base, Vec3::new(0.5, -0.25, 2.0)).unwrap();
    let board = s.add_billboard(base, "board").unwrap();
    let child = s.add_group(board, "child").unwrap();
    s.set_translation(child, Vec3::new(0.0, 0.0, 1.0)).unwrap();
    // The eye is on the billboard's local +x axis (same y): the board turns a quarter turn
    // about +y, so its local +z (and the child one unit along it) points at +x in world.
    s.face_billboards(Vec3::new(10.5, -0.25, 2.0));
    let before = s.compute_world(child).unwrap();
    s.update(0.0);
    let stored = *s.world_transform(child).unwrap();
    assert_eq!(bits(&before), bits(&stored));
    assert_eq!(
        bits(&s.compute_world(board).unwrap()),
        bits(s.world_transform(board).unwrap())
    );
    // By hand: board at (0.5, −0.25, 2), child one unit towards the eye.
    let p = before.translation();
    assert!((p - Vec3::new(1.5, -0.25, 2.0)).length() < 1e-5, "{p}");
}
