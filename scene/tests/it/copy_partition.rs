//! Deep copy of the node kinds that came after the book's list (issue 14): BSP nodes keep
//! their plane and the role of each child, region managers and regions keep their portals
//! (re-targeted to the copied regions inside the subtree, kept for regions outside it), layer
//! nodes keep their clear region, and meshes their active count. Expected values are the
//! scenes built by hand here.

use std::sync::Arc;

use glam::Vec3;
use plumb_scene::{BspSide, ClearRegion, Mesh, MeshTopology, NodeId, Plane, Scene};

fn six_points() -> Arc<Mesh> {
    let p = vec![
        Vec3::new(0.0, 0.0, 0.0),
        Vec3::new(1.0, 0.0, 0.0),
        Vec3::new(0.0, 1.0, 0.0),
        Vec3::new(2.0, 0.0, 0.0),
        Vec3::new(3.0, 0.0, 0.0),
        Vec3::new(2.0, 1.0, 0.0),
    ];
    Arc::new(Mesh::new(MeshTopology::Points, p, vec![0, 1, 2, 3, 4, 5]).expect("valid"))
}

fn named(s: &Scene, name: &str) -> NodeId {
    s.find(name).unwrap_or_else(|| panic!("no node '{name}'"))
}

/// root ─ split (BSP, plane x = 2 given as 2x = 4): children front (negative slot), back
/// (positive slot), on (coplanar slot), loose (no slot), in that child order.
#[test]
fn a_copied_bsp_node_keeps_its_plane_and_child_roles() {
    let mut s = Scene::new();
    let root = s.root();
    let plane = Plane::new(Vec3::new(2.0, 0.0, 0.0), 4.0).expect("plane");
    let split = s.add_bsp(root, "split", plane).expect("bsp");
    let front = s.add_group(split, "front").expect("group");
    let back = s.add_group(split, "back").expect("group");
    let on = s.add_group(split, "on").expect("group");
    s.add_group(split, "loose").expect("group");
    s.set_bsp_child(split, BspSide::Negative, Some(front))
        .expect("slot");
    s.set_bsp_child(split, BspSide::Positive, Some(back))
        .expect("slot");
    s.set_bsp_child(split, BspSide::Coplanar, Some(on))
        .expect("slot");
    let copy = s.deep_copy(split, root).expect("copied");
    assert!(s.is_bsp(copy).expect("live"), "the copy is not a BSP node");
    assert!(!s.is_region_manager(copy).expect("live"));
    let p = s.bsp_plane(copy).expect("plane");
    assert_eq!(p.normal(), Vec3::X);
    assert_eq!(p.constant(), 2.0);
    for (side, child) in [
        (BspSide::Negative, "front#"),
        (BspSide::Positive, "back#"),
        (BspSide::Coplanar, "on#"),
    ] {
        assert_eq!(
            s.bsp_child(copy, side).expect("slot"),
            Some(named(&s, child)),
            "{side:?}"
        );
    }
    // The copy partitions space as the original: a point at x = 5 is on the positive side.
    s.update(0.0);
    assert_eq!(
        s.containing_node(copy, Vec3::new(5.0, 0.0, 0.0))
            .expect("query"),
        Some(named(&s, "back#"))
    );
    // The original is untouched.
    assert_eq!(
        s.bsp_child(split, BspSide::Negative).expect("slot"),
        Some(front)
    );
}

/// A region manager with two rooms joined by a door each way and a window of room a that
/// opens onto itself: the copy is a manager whose rooms are the copies, with the same
/// portals leading between the copies.
#[test]
fn a_copied_region_manager_remaps_its_portals() {
    let mut s = Scene::new();
    let root = s.root();
    let plane = Plane::new(Vec3::Z, 0.0).expect("plane");
    let manager = s.add_region_manager(root, "house", plane).expect("manager");
    let a = s.add_region(manager, "a").expect("region");
    let b = s.add_region(manager, "b").expect("region");
    let outside = s.add_group(manager, "outside").expect("group");
    s.set_bsp_child(manager, BspSide::Positive, Some(a))
        .expect("slot");
    s.set_bsp_child(manager, BspSide::Negative, Some(b))
        .expect("slot");
    s.set_bsp_child(manager, BspSide::Coplanar, Some(outside))
        .expect("slot");
    let door = vec![
        Vec3::new(-1.0, 0.0, 0.0),
        Vec3::new(1.0, 0.0, 0.0),
        Vec3::new(1.0, 2.0, 0.0),
        Vec3::new(-1.0, 2.0, 0.0),
    ];
    let back: Vec<Vec3> = door.iter().rev().copied().collect();
    let window = vec![
        Vec3::new(0.0, 0.0, 3.0),
        Vec3::new(1.0, 0.0, 3.0),
        Vec3::new(0.0, 1.0, 3.0),
    ];
    s.add_portal(a, door.clone(), b, true).expect("portal");
    s.add_portal(a, window.clone(), a, false).expect("portal");
    s.add_portal(b, back.clone(), a, true).expect("portal");
    let copy = s.deep_copy(manager, root).expect("copied");
    assert!(s.is_region_manager(copy).expect("live"));
    let (a2, b2) = (named(&s, "a#"), named(&s, "b#"));
    assert!(s.is_region(a2).expect("live") && s.is_region(b2).expect("live"));
    assert_eq!(
        s.bsp_child(copy, BspSide::Positive).expect("slot"),
        Some(a2)
    );
    assert_eq!(
        s.bsp_child(copy, BspSide::Negative).expect("slot"),
        Some(b2)
    );
    assert_eq!(
        s.bsp_child(copy, BspSide::Coplanar).expect("slot"),
        Some(named(&s, "outside#"))
    );
    let pa = s.portals(a2).expect("portals").to_vec();
    assert_eq!(pa.len(), 2);
    assert_eq!(
        (pa[0].vertices(), pa[0].adjacent(), pa[0].is_open()),
        (door.as_slice(), b2, true)
    );
    assert_eq!(
        (pa[1].vertices(), pa[1].adjacent(), pa[1].is_open()),
        (window.as_slice(), a2, false)
    );
    let pb = s.portals(b2).expect("portals").to_vec();
    assert_eq!(pb.len(), 1);
    assert_eq!((pb[0].vertices(), pb[0].adjacent()), (back.as_slice(), a2));
    // The original's portals still lead between the originals.
    assert_eq!(s.portals(a).expect("portals")[0].adjacent(), b);
}

/// A room copied on its own keeps its portals; the door into a room outside the copy still
/// leads to that (original) room.
#[test]
fn a_copied_region_keeps_portals_to_regions_outside_the_copy() {
    let mut s = Scene::new();
    let root = s.root();
    let a = s.add_region(root, "a").expect("region");
    let b = s.add_region(root, "b").expect("region");
    let door = vec![Vec3::ZERO, Vec3::X, Vec3::Y];
    s.add_portal(a, door.clone(), b, true).expect("portal");
    let a2 = s.deep_copy(a, root).expect("copied");
    let p = s.portals(a2).expect("portals");
    assert_eq!(p.len(), 1);
    assert_eq!((p[0].vertices(), p[0].adjacent()), (door.as_slice(), b));
}

/// A layer node's copy clears the same rectangle; a mesh's active count travels with it.
#[test]
fn copies_keep_clear_regions_and_active_counts() {
    let mut s = Scene::new();
    let root = s.root();
    let hud = s.add_group(root, "hud").expect("group");
    let clear = ClearRegion {
        stencil: Some(7),
        ..ClearRegion::depth_in(0.25, 0.5, 0.5, 0.25).expect("rect")
    };
    s.set_clear(hud, Some(clear)).expect("clear");
    let mesh = Arc::new(
        Mesh::clone(&six_points())
            .with_active_count(Some(3))
            .expect("count"),
    );
    s.add_geometry(hud, "half", mesh).expect("leaf");
    let copy = s.deep_copy(hud, root).expect("copied");
    assert_eq!(s.clear_region(copy).expect("live"), Some(&clear));
    let leaf = named(&s, "half#");
    assert_eq!(s.mesh(leaf).expect("mesh").active_count(), Some(3));
    // A plain node's copy is no layer.
    let plain = s.add_group(root, "plain").expect("group");
    let plain2 = s.deep_copy(plain, root).expect("copied");
    assert_eq!(s.clear_region(plain2).expect("live"), None);
}
