//! Must-show 1: property tests of the incremental update.
//!
//! * random trees + random edit sequences: the incremental update is bit-identical to a full
//!   rebuild (in place, and from scratch in a fresh scene);
//! * every world bound contains its children's bounds and its own world-space geometry;
//! * moving a parent moves every descendant and nothing else (with exact work counters);
//! * reparenting with `KeepWorld` keeps world positions.

use crate::common;

use std::collections::BTreeMap;

use common::*;
use glam::Vec3;
use plumb_scene::{BoundKind, NodeId, NodeKind, Reparent, Scene};
use proptest::prelude::*;

#[derive(Debug, Clone)]
enum Edit {
    SetLocal(usize, TransformSpec),
    Detach(usize),
    Attach(usize, usize),
    Reparent(usize, usize, bool),
    Remove(usize),
    SetMesh(usize, usize),
    Add(usize, u8, usize, TransformSpec),
    SetActive(usize, usize),
    BoundKind(bool),
    Update,
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        4 => (any::<usize>(), transform_spec()).prop_map(|(a, t)| Edit::SetLocal(a, t)),
        1 => any::<usize>().prop_map(Edit::Detach),
        1 => (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Edit::Attach(a, b)),
        2 => (any::<usize>(), any::<usize>(), any::<bool>())
            .prop_map(|(a, b, k)| Edit::Reparent(a, b, k)),
        1 => any::<usize>().prop_map(Edit::Remove),
        1 => (any::<usize>(), any::<usize>()).prop_map(|(a, m)| Edit::SetMesh(a, m)),
        2 => (any::<usize>(), 0u8..3, any::<usize>(), transform_spec())
            .prop_map(|(a, k, m, t)| Edit::Add(a, k, m, t)),
        1 => (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Edit::SetActive(a, b)),
        1 => any::<bool>().prop_map(Edit::BoundKind),
        2 => Just(Edit::Update),
    ]
}

/// Applies an edit; invalid ones (cycles, stale ids, leaves as parents…) must fail cleanly.
fn apply(scene: &mut Scene, ids: &mut Vec<NodeId>, e: &Edit) {
    let meshes = meshes();
    let pick = |ids: &Vec<NodeId>, i: usize| ids[i % ids.len()];
    match e {
        Edit::SetLocal(a, t) => {
            scene.set_local_transform(pick(ids, *a), t.build()).unwrap();
        }
        Edit::Detach(a) => {
            let _ = scene.detach(pick(ids, *a));
        }
        Edit::Attach(a, b) => {
            let _ = scene.attach(pick(ids, *b), pick(ids, *a));
        }
        Edit::Reparent(a, b, keep) => {
            let mode = if *keep {
                Reparent::KeepWorld
            } else {
                Reparent::KeepLocal
            };
            let _ = scene.reparent(pick(ids, *a), pick(ids, *b), mode);
        }
        Edit::Remove(a) => {
            if scene.remove(pick(ids, *a)).is_ok() {
                ids.retain(|&id| scene.contains(id));
            }
        }
        Edit::SetMesh(a, m) => {
            let _ = scene.set_mesh(pick(ids, *a), meshes[m % meshes.len()].clone());
        }
        Edit::Add(a, k, m, t) => {
            let parent = pick(ids, *a);
            let r = match k {
                0 => scene.add_group(parent, "added"),
                1 => scene.add_switch(parent, "added"),
                _ => scene.add_geometry(parent, "added", meshes[m % meshes.len()].clone()),
            };
            if let Ok(id) = r {
                scene.set_local_transform(id, t.build()).unwrap();
                ids.push(id);
            }
        }
        Edit::SetActive(a, b) => {
            let _ = scene.set_active_child(pick(ids, *a), Some(pick(ids, *b)));
        }
        Edit::BoundKind(aabb) => scene.set_bound_kind(if *aabb {
            BoundKind::Aabb
        } else {
            BoundKind::Sphere
        }),
        Edit::Update => {
            scene.update(0.0);
        }
    }
}

type Snapshot = BTreeMap<NodeId, (Vec<u32>, Vec<u32>)>;

fn snapshot(scene: &Scene) -> Snapshot {
    scene
        .preorder(scene.root())
        .unwrap()
        .into_iter()
        .map(|id| {
            (
                id,
                (
                    transform_bits(scene.world_transform(id).unwrap()),
                    bound_bits(scene.world_bound(id).unwrap()),
                ),
            )
        })
        .collect()
}

/// Rebuilds the attached tree in a fresh scene (same kinds, meshes, locals, child order).
fn rebuild(scene: &Scene) -> (Scene, BTreeMap<NodeId, NodeId>) {
    let mut fresh = Scene::new();
    fresh.set_bound_kind(scene.bound_kind());
    let mut map = BTreeMap::new();
    map.insert(scene.root(), fresh.root());
    fresh
        .set_local_transform(fresh.root(), *scene.local_transform(scene.root()).unwrap())
        .unwrap();
    for id in scene.preorder(scene.root()).unwrap().into_iter().skip(1) {
        let parent = map[&scene.parent(id).unwrap().unwrap()];
        let name = scene.name(id).unwrap().to_owned();
        let new = match scene.kind(id).unwrap() {
            NodeKind::Group => fresh.add_group(parent, name),
            NodeKind::Switch => fresh.add_switch(parent, name),
            NodeKind::Geometry => fresh.add_geometry(parent, name, scene.mesh(id).unwrap().clone()),
            other => panic!("the generated scenes hold no {other:?} node"),
        }
        .unwrap();
        fresh
            .set_local_transform(new, *scene.local_transform(id).unwrap())
            .unwrap();
        map.insert(id, new);
    }
    fresh.update(0.0);
    (fresh, map)
}

/// Every bound contains its children's bounds and (for leaves) its world-space vertices.
fn check_containment(scene: &Scene) -> Result<(), TestCaseError> {
    for id in scene.preorder(scene.root()).unwrap() {
        let b = *scene.world_bound(id).unwrap();
        let eps = 1e-4 * (1.0 + b.center().abs().max_element() + b.radius());
        for &c in scene.children(id).unwrap() {
            let cb = scene.world_bound(c).unwrap();
            prop_assert!(b.contains(cb, eps), "{b:?} does not contain child {cb:?}");
        }
        if let Ok(mesh) = scene.mesh(id) {
            let w = scene.world_transform(id).unwrap();
            for &p in mesh.positions() {
                let q = w.apply_point(p);
                prop_assert!(b.contains_point(q, eps), "{b:?} misses vertex {q}");
            }
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    #[test]
    fn incremental_update_is_bit_identical_to_full_rebuild(
        tree in tree_spec(40),
        edits in prop::collection::vec(edit(), 0..40),
    ) {
        let mut scene = Scene::new();
        let mut ids = build_tree(&mut scene, &tree, 64);
        scene.update(0.0);
        for e in &edits {
            apply(&mut scene, &mut ids, e);
        }
        let stats = scene.update(0.0);
        prop_assert!(!scene.is_dirty());
        let incremental = snapshot(&scene);
        check_containment(&scene)?;

        // A fresh scene with the same structure, updated once.
        let (fresh, map) = rebuild(&scene);
        for (id, bits) in &incremental {
            let f = map[id];
            prop_assert_eq!(
                &bits.0, &transform_bits(fresh.world_transform(f).unwrap()), "world of {}", id
            );
            prop_assert_eq!(
                &bits.1, &bound_bits(fresh.world_bound(f).unwrap()), "bound of {}", id
            );
        }

        // Full rebuild in place.
        let full = scene.update_full(0.0);
        prop_assert_eq!(&incremental, &snapshot(&scene));
        prop_assert!(stats.visited <= full.visited);
        prop_assert_eq!(full.transforms, incremental.len());
        prop_assert_eq!(full.bounds, incremental.len());

        // A clean update does nothing.
        let clean = scene.update(0.0);
        prop_assert_eq!(clean.visited, 0);
    }

    #[test]
    fn moving_a_parent_moves_its_subtree_and_nothing_else(
        tree in tree_spec(40),
        which in any::<usize>(),
        new_local in transform_spec(),
    ) {
        let mut scene = Scene::new();
        let ids = build_tree(&mut scene, &tree, 6);
        scene.update(0.0);
        let before = snapshot(&scene);
        let moved = ids[which % ids.len()];
        let old_world = *scene.world_transform(moved).unwrap();
        let subtree = scene.preorder(moved).unwrap();
        let depth = scene.depth(moved).unwrap();

        scene.set_local_transform(moved, new_local.build()).unwrap();
        let stats = scene.update(0.0);
        // Exactly the subtree's transforms, and its bounds plus the ancestors' bounds.
        prop_assert_eq!(stats.transforms, subtree.len());
        prop_assert_eq!(stats.bounds, subtree.len() + depth);
        prop_assert_eq!(stats.visited, subtree.len() + depth);

        let after = snapshot(&scene);
        for (id, bits) in &before {
            if !subtree.contains(id) {
                prop_assert_eq!(&bits.0, &after[id].0, "{} moved but is not below", id);
            }
        }
        // delta = new_world(moved) ∘ old_world(moved)⁻¹ carries every descendant.
        let new_world = *scene.world_transform(moved).unwrap();
        let inv_old = old_world.try_inverse().unwrap();
        for &d in &subtree {
            let old_m = before[&d].0.iter().map(|b| f32::from_bits(*b)).collect::<Vec<_>>();
            let old_m = glam::Mat4::from_cols_slice(&old_m);
            let new_d = scene.world_transform(d).unwrap();
            for p in [Vec3::ZERO, Vec3::X, Vec3::Y, Vec3::Z, Vec3::new(1.0, -2.0, 0.5)] {
                let expected = new_world.apply_point(inv_old.apply_point(old_m.transform_point3(p)));
                let got = new_d.apply_point(p);
                prop_assert!(near(expected, got, 2e-3), "{d}: {expected} vs {got}");
            }
        }
    }

    #[test]
    fn reparent_keep_world_keeps_world_positions(
        tree in tree_spec(30),
        child in any::<usize>(),
        parent in any::<usize>(),
    ) {
        let mut scene = Scene::new();
        let ids = build_tree(&mut scene, &tree, 5);
        scene.update(0.0);
        let c = ids[1 + child % (ids.len() - 1)];
        let groups: Vec<NodeId> = ids
            .iter()
            .copied()
            .filter(|&g| scene.kind(g).unwrap() != NodeKind::Geometry)
            .filter(|&g| !scene.is_ancestor_or_self(c, g))
            .collect();
        let p = groups[parent % groups.len()];
        let subtree = scene.preorder(c).unwrap();
        let before: Vec<_> = subtree.iter().map(|&d| *scene.world_transform(d).unwrap()).collect();

        scene.reparent(c, p, Reparent::KeepWorld).unwrap();
        prop_assert_eq!(scene.parent(c).unwrap(), Some(p));
        scene.update(0.0);
        for (d, old) in subtree.iter().zip(&before) {
            let new = scene.world_transform(*d).unwrap();
            for q in [Vec3::ZERO, Vec3::X, Vec3::Y, Vec3::Z] {
                let (a, b) = (old.apply_point(q), new.apply_point(q));
                prop_assert!(near(a, b, 2e-3), "{d}: {a} vs {b}");
            }
            prop_assert_eq!(old.is_mirror(), new.is_mirror());
        }
    }
}
