//! Cyclic definitions instanced into trees, reference frames and layered depth (seed 003,
//! `small-seeds.md` §S3; issue 15). Expected counts and pixels are worked out by hand in the
//! comments, from the camera and the definitions, not read from the code under test.

use std::collections::BTreeMap;
use std::sync::Arc;

use glam::{DMat4, Mat3, Vec3, Vec4};
use image::RgbaImage;
use plumb_scene::{
    rotation_axis_angle, Camera, ClipPlaneState, DefinitionFault, Definitions, EdgeSpec,
    GlobalState, InstanceOptions, Instancing, MaterialState, Mesh, NodeId, ProductionSpec, Scene,
    SceneError, SceneLight, SoftRenderer, Transform,
};
use proptest::prelude::*;

// ------------------------------------------------------------------------------ helpers

fn ts(scale: f32, t: Vec3) -> Transform {
    Transform::from_uniform_scale(scale)
        .unwrap()
        .with_translation(t)
        .unwrap()
}

fn prod(edges: Vec<EdgeSpec>) -> ProductionSpec {
    ProductionSpec { weight: 1.0, edges }
}

fn cube() -> Arc<Mesh> {
    Arc::new(Mesh::cube())
}

/// `Chain -> (Box, I), (Chain, S(½))`: concentric cubes, each half the size of its parent.
/// Its bound is the unit cube `[-½, ½]³` (the fixed point of `B = cube ∪ ½B`).
fn chain_defs() -> Arc<Definitions> {
    Arc::new(
        Definitions::new(
            vec![("Box".into(), cube())],
            vec![(
                "Chain".into(),
                vec![prod(vec![
                    EdgeSpec::new("Box", Transform::IDENTITY),
                    EdgeSpec::new("Chain", ts(0.5, Vec3::ZERO)),
                ])],
            )],
        )
        .unwrap(),
    )
}

/// The seed's Man (S3 L33): `Man -> (ManModel, I), (Man, M1), (Man, M2)`, a smaller copy in
/// each hand.
fn man_defs() -> Arc<Definitions> {
    Arc::new(
        Definitions::new(
            vec![("ManModel".into(), cube())],
            vec![(
                "Man".into(),
                vec![prod(vec![
                    EdgeSpec::new("ManModel", Transform::IDENTITY),
                    EdgeSpec::new("Man", ts(0.5, Vec3::new(-0.75, 0.6, 0.0))),
                    EdgeSpec::new("Man", ts(0.5, Vec3::new(0.75, 0.6, 0.0))),
                ])],
            )],
        )
        .unwrap(),
    )
}

/// Orthographic, half extent 4, looking down −z from z = 5: 32 pixels per unit on 256².
fn ortho() -> Camera {
    let mut c = Camera::orthographic(-4.0, 4.0, -4.0, 4.0, 0.1, 20.0).unwrap();
    c.look_at(Vec3::new(0.0, 0.0, 5.0), Vec3::ZERO, Vec3::Y)
        .unwrap();
    c
}

fn persp(eye: Vec3, target: Vec3, near: f32, far: f32) -> Camera {
    let mut c = Camera::perspective(60f32.to_radians(), 1.0, near, far).unwrap();
    c.look_at(eye, target, Vec3::Y).unwrap();
    c
}

fn opts(min_area: f64) -> InstanceOptions {
    InstanceOptions {
        min_area,
        max_depth: 64,
        max_nodes: 100_000,
        seed: 7,
        resolution: (256, 256),
    }
}

fn instance(defs: &Arc<Definitions>, symbol: &str, o: InstanceOptions) -> (Scene, Instancing) {
    let mut s = Scene::new();
    let root = s.root();
    let inst = Instancing::new(&mut s, root, "inst", Arc::clone(defs), symbol, o).unwrap();
    (s, inst)
}

/// Counts the scene nodes under (and including) `id`.
fn subtree_size(s: &Scene, id: NodeId) -> usize {
    let mut n = 0;
    let mut stack = vec![id];
    while let Some(x) = stack.pop() {
        n += 1;
        stack.extend(s.children(x).unwrap());
    }
    n
}

// ------------------------------------------------------------------------------ instancing

#[test]
fn chain_counts_follow_the_area_rule() {
    // A cube of depth d has side 0.5^d, i.e. 32·0.5^d pixels, so area 1024·4^−d px². An
    // instance is expanded (2 nodes: its Box leaf and the next Chain group) iff its area is
    // at least the threshold; the total is 1 + 2·(number of expanded levels).
    let defs = chain_defs();
    for (t, levels) in [(2000.0, 0), (300.0, 1), (20.0, 3), (2.0, 5), (0.1, 7)] {
        let (mut s, mut inst) = instance(&defs, "Chain", opts(t));
        let r = inst.update(&mut s, &ortho()).unwrap();
        assert_eq!(r.total, 1 + 2 * levels, "threshold {t}");
        assert_eq!(r.created, 2 * levels);
        assert!(!r.capped.any());
        assert_eq!(subtree_size(&s, inst.root()), r.total);
    }
}

#[test]
fn man_counts_are_finite_and_monotone_in_the_threshold() {
    let defs = man_defs();
    let cam = persp(
        Vec3::new(0.0, 0.3, 3.0),
        Vec3::new(0.0, 0.3, 0.0),
        0.1,
        100.0,
    );
    let mut last = 0;
    for t in [4096.0, 1024.0, 256.0, 64.0, 16.0, 4.0, 1.0] {
        let (mut s, mut inst) = instance(&defs, "Man", opts(t));
        let r = inst.update(&mut s, &cam).unwrap();
        assert!(!r.capped.any(), "threshold {t} stopped at a cap");
        assert!(r.total >= last, "threshold {t}: {} < {last}", r.total);
        // Each Man halves, so its area quarters: 2^k instances at depth k.
        assert!(r.total < 100_000);
        last = r.total;
    }
    assert!(
        last > 100,
        "the smallest threshold instanced only {last} nodes"
    );
}

#[test]
fn non_contracting_cycles_stop_at_the_caps() {
    // `Grow -> (Box, I), (Grow, S)` with S = I or 1.5: every level is at least as large as the
    // root, so the area rule never stops it.
    for scale in [1.0, 1.5] {
        let defs = Arc::new(
            Definitions::new(
                vec![("Box".into(), cube())],
                vec![(
                    "Grow".into(),
                    vec![prod(vec![
                        EdgeSpec::new("Box", Transform::IDENTITY),
                        EdgeSpec::new("Grow", ts(scale, Vec3::ZERO)),
                    ])],
                )],
            )
            .unwrap(),
        );
        if scale > 1.0 {
            assert!(!defs.is_contracting(0));
        }
        // Depth cap 10: levels 0..9 expand, 2 nodes each.
        let mut o = opts(1.0);
        o.max_depth = 10;
        let (mut s, mut inst) = instance(&defs, "Grow", o);
        let r = inst.update(&mut s, &ortho()).unwrap();
        assert_eq!(r.total, 21);
        assert!(r.capped.depth);
        // Node cap 8: three expansions make 7 nodes; the fourth would make 9.
        let mut o = opts(1.0);
        o.max_nodes = 8;
        let (mut s, mut inst) = instance(&defs, "Grow", o);
        let r = inst.update(&mut s, &ortho()).unwrap();
        assert_eq!(r.total, 7);
        assert!(r.capped.nodes);
        // And a still camera changes nothing even when capped.
        let r2 = inst.update(&mut s, &ortho()).unwrap();
        assert_eq!((r2.created, r2.removed, r2.kept), (0, 0, 7));
    }
}

/// A one-symbol chain `S -> (Box, I), (S, step)` and the same cubes placed by hand, levels
/// `0..levels`: cube `k` under the composed transform `stepᵏ`.
fn chain_and_explicit(step: Transform, levels: usize) -> (Arc<Definitions>, Scene) {
    let defs = Arc::new(
        Definitions::new(
            vec![("Box".into(), cube())],
            vec![(
                "S".into(),
                vec![prod(vec![
                    EdgeSpec::new("Box", Transform::IDENTITY),
                    EdgeSpec::new("S", step),
                ])],
            )],
        )
        .unwrap(),
    );
    let mut explicit = Scene::new();
    lit(&mut explicit, Vec4::new(0.8, 0.7, 0.3, 1.0));
    let mut parent = explicit.root();
    for _ in 0..levels {
        let g = explicit.add_geometry(parent, "Box", cube()).unwrap();
        explicit
            .set_local_transform(g, Transform::IDENTITY)
            .unwrap();
        let next = explicit.add_group(parent, "S").unwrap();
        explicit.set_local_transform(next, step).unwrap();
        parent = next;
    }
    (defs, explicit)
}

/// Instances `defs` under a lit root and draws it at 128².
fn instanced_image(defs: &Arc<Definitions>, o: InstanceOptions, cam: &Camera) -> RgbaImage {
    let mut s = Scene::new();
    lit(&mut s, Vec4::new(0.8, 0.7, 0.3, 1.0));
    let root = s.root();
    let mut inst = Instancing::new(&mut s, root, "inst", Arc::clone(defs), "S", o).unwrap();
    inst.update(&mut s, cam).unwrap();
    render(&mut s, cam)
}

/// Issue 31 #1: a chain contracting by 0.97 per level towards x = 10, seen from half a unit
/// in front of its limit point (the view spans x ∈ [9.71, 10.29]). The levels there
/// (k > 115, x_k = 10·(1 − 0.97ᵏ)) lie outside the box the definition's 64 bound steps
/// reach (x ≤ 8.6), which culled the whole tree: nothing was drawn. The instancing's own
/// bound (to the depth cap) draws what the explicit 250-level chain draws, but for the
/// sub-pixel cubes below the area threshold.
#[test]
fn a_slowly_contracting_chain_is_drawn_near_its_limit() {
    let step = ts(0.97, Vec3::new(0.3, 0.0, 0.0));
    let (defs, mut explicit) = chain_and_explicit(step, 250);
    assert!(!defs.is_contracting(0), "64 steps do not settle 0.97");
    let cam = persp(
        Vec3::new(10.0, 0.0, 0.5),
        Vec3::new(10.0, 0.0, 0.0),
        0.01,
        50.0,
    );
    let mut o = opts(0.25);
    o.max_depth = 250;
    o.resolution = (128, 128);
    let got = instanced_image(&defs, o, &cam);
    let want = render(&mut explicit, &cam);
    let (drawn_got, drawn_want) = (covered(&got), covered(&want));
    let (_, over) = compare(&want, &got, 2);
    assert!(
        drawn_want > 150,
        "the explicit chain covers {drawn_want} px"
    );
    assert!(
        over * 20 <= drawn_want,
        "{over} of {drawn_want} px differ ({drawn_got} drawn)"
    );
}

/// Issue 31 #1: a translation-only chain (one unit per level, never contracting) seen from
/// above x = 100: levels 97–103 are in view, within the depth cap of 128, but past the
/// 64-step box (x ≤ 64.5). Same pixels as the explicit 128-level chain.
#[test]
fn a_translation_chain_is_drawn_far_out() {
    let step = ts(1.0, Vec3::new(1.0, 0.0, 0.0));
    let (defs, mut explicit) = chain_and_explicit(step, 128);
    let cam = persp(
        Vec3::new(100.0, 0.0, 5.0),
        Vec3::new(100.0, 0.0, 0.0),
        0.1,
        50.0,
    );
    let mut o = opts(1.0);
    o.max_depth = 128;
    o.resolution = (128, 128);
    let got = instanced_image(&defs, o, &cam);
    let want = render(&mut explicit, &cam);
    assert!(covered(&want) > 1000, "{} px", covered(&want));
    let (max, over) = compare(&want, &got, 0);
    assert_eq!(over, 0, "{over} px differ (max {max})");
}

/// Issue 31 #6: a cycle that doubles per level would leave `f32`'s range near level 127;
/// the levels within `MAX_INSTANCE_EXTENT` (2⁶⁰) are instanced, the expansion stops there
/// (`Caps::range`), and the scene draws (every frame failed with a non-finite transform).
#[test]
fn a_growing_cycle_draws_the_levels_that_fit() {
    let step = ts(2.0, Vec3::new(1.0, 0.0, 0.0));
    let (defs, _) = chain_and_explicit(step, 0);
    let mut s = Scene::new();
    lit(&mut s, Vec4::new(0.8, 0.7, 0.3, 1.0));
    let root = s.root();
    let mut o = opts(1.0);
    o.max_depth = 1000;
    let mut inst = Instancing::new(&mut s, root, "inst", Arc::clone(&defs), "S", o).unwrap();
    let cam = persp(Vec3::new(0.0, 0.0, 6.0), Vec3::ZERO, 0.1, 100.0);
    let r = inst.update(&mut s, &cam).unwrap();
    assert!(r.capped.range && !r.capped.depth, "{:?}", r.capped);
    // Level k sits at scale 2ᵏ and x = 2ᵏ − 1: level 59's child (x = 2⁶⁰ − 1 + 1 = 2⁶⁰,
    // scale 2⁶⁰) still fits, level 60's would not. Levels 0..=59 expand: 2 nodes each, plus
    // the root.
    assert_eq!(r.total, 1 + 2 * 60);
    let img = render(&mut s, &cam);
    assert!(
        covered(&img) > 100,
        "{} px, {} nodes, visible {:?}",
        covered(&img),
        r.total,
        s.cull(&cam).stats()
    );
}

#[test]
fn the_camera_at_the_fixed_point_still_terminates() {
    // `Chain -> (Box, I), (Chain, S(½))` with the eye at the fixed point (the centre) inside
    // every box: every box has corners behind the eye (w ≤ 0), so every level counts as
    // large. Only the near plane would stop it — at 10⁻³⁰ that is ~100 levels down, past the
    // depth cap of 40.
    let defs = chain_defs();
    let cam = persp(Vec3::ZERO, Vec3::new(0.0, 0.0, -1.0), 1e-30, 10.0);
    let mut o = opts(1.0);
    o.max_depth = 40;
    let (mut s, mut inst) = instance(&defs, "Chain", o);
    let r = inst.update(&mut s, &cam).unwrap();
    assert!(r.capped.depth);
    assert_eq!(r.total, 1 + 2 * 40);
}

#[test]
fn a_still_camera_creates_nothing_and_moving_only_changes_what_changed() {
    let defs = man_defs();
    let near = persp(
        Vec3::new(0.0, 0.3, 3.0),
        Vec3::new(0.0, 0.3, 0.0),
        0.1,
        100.0,
    );
    let far = persp(
        Vec3::new(0.0, 0.3, 12.0),
        Vec3::new(0.0, 0.3, 0.0),
        0.1,
        100.0,
    );
    let (mut s, mut inst) = instance(&defs, "Man", opts(16.0));
    let first = inst.update(&mut s, &near).unwrap();
    assert!(first.created > 0);
    let still = inst.update(&mut s, &near).unwrap();
    assert_eq!((still.created, still.removed), (0, 0));
    assert_eq!(still.kept, first.total);
    // Moving away shrinks everything 4×: deep levels are removed, the top kept.
    let away = inst.update(&mut s, &far).unwrap();
    assert!(away.removed > 0);
    assert_eq!(away.created, 0);
    assert!(away.total < first.total);
    assert_eq!(away.kept + away.removed, first.total);
    // Back again: the same tree size.
    let back = inst.update(&mut s, &near).unwrap();
    assert_eq!(back.total, first.total);
    assert_eq!(back.removed, 0);
    assert_eq!(subtree_size(&s, inst.root()), back.total);
}

/// `Tower -> (Red, I), (Tower, up) | (Blue, I), (Tower, up)`: two equally weighted
/// productions; `up` = S(0.8), T(0, 1, 0).
fn tower_defs() -> Arc<Definitions> {
    let up = ts(0.8, Vec3::new(0.0, 1.0, 0.0));
    Arc::new(
        Definitions::new(
            vec![("Red".into(), cube()), ("Blue".into(), cube())],
            vec![(
                "Tower".into(),
                vec![
                    prod(vec![
                        EdgeSpec::new("Red", Transform::IDENTITY),
                        EdgeSpec::new("Tower", up),
                    ]),
                    prod(vec![
                        EdgeSpec::new("Blue", Transform::IDENTITY),
                        EdgeSpec::new("Tower", up),
                    ]),
                ],
            )],
        )
        .unwrap(),
    )
}

fn choices(inst: &Instancing) -> BTreeMap<u64, usize> {
    inst.instances()
        .into_iter()
        .map(|n| {
            let (_, production, _, path) = inst.instance_info(n).unwrap();
            (path, production)
        })
        .collect()
}

#[test]
fn seeded_choices_are_stable_across_re_instancing() {
    let defs = tower_defs();
    let cam = persp(
        Vec3::new(0.0, 2.0, 8.0),
        Vec3::new(0.0, 2.0, 0.0),
        0.1,
        100.0,
    );
    let gone = persp(
        Vec3::new(0.0, 2.0, 8.0),
        Vec3::new(0.0, 2.0, 20.0),
        0.1,
        100.0,
    );
    let (mut s, mut inst) = instance(&defs, "Tower", opts(4.0));
    inst.update(&mut s, &cam).unwrap();
    let before = choices(&inst);
    assert!(before.len() >= 8, "only {} towers", before.len());
    let used: std::collections::BTreeSet<usize> = before.values().copied().collect();
    assert_eq!(used.len(), 2, "one production only: {before:?}");
    // Looking away removes everything under the root; looking back rebuilds it.
    let r = inst.update(&mut s, &gone).unwrap();
    assert_eq!(r.total, 1);
    inst.update(&mut s, &cam).unwrap();
    assert_eq!(choices(&inst), before);
    // The same seed in a fresh scene makes the same choices; another seed other ones.
    let (mut s2, mut inst2) = instance(&defs, "Tower", opts(4.0));
    inst2.update(&mut s2, &cam).unwrap();
    assert_eq!(choices(&inst2), before);
    let mut o = opts(4.0);
    o.seed = 8;
    let (mut s3, mut inst3) = instance(&defs, "Tower", o);
    inst3.update(&mut s3, &cam).unwrap();
    assert_ne!(choices(&inst3), before);
}

#[test]
fn unforgettable_nodes_and_their_ancestors_survive() {
    let defs = man_defs();
    let cam = persp(
        Vec3::new(0.0, 0.3, 3.0),
        Vec3::new(0.0, 0.3, 0.0),
        0.1,
        100.0,
    );
    let gone = persp(
        Vec3::new(0.0, 0.3, 3.0),
        Vec3::new(0.0, 0.3, 10.0),
        0.1,
        100.0,
    );
    let (mut s, mut inst) = instance(&defs, "Man", opts(16.0));
    inst.update(&mut s, &cam).unwrap();
    // The deepest instance.
    let deep = inst
        .instances()
        .into_iter()
        .max_by_key(|&n| inst.instance_info(n).unwrap().2)
        .unwrap();
    let depth = inst.instance_info(deep).unwrap().2;
    assert!(depth >= 3);
    inst.set_unforgettable(deep, true).unwrap();
    s.set_name(deep, "changed by the player").unwrap();
    let r = inst.update(&mut s, &gone).unwrap();
    assert!(r.removed > 0);
    // It and its `depth` ancestors up to the instancing root remain, nothing else.
    assert!(s.contains(deep));
    assert_eq!(s.name(deep).unwrap(), "changed by the player");
    let mut at = deep;
    for _ in 0..depth {
        at = s.parent(at).unwrap().unwrap();
    }
    assert_eq!(at, inst.root());
    assert_eq!(r.total, depth + 1);
    // Forgettable again: it goes.
    inst.set_unforgettable(deep, false).unwrap();
    let r = inst.update(&mut s, &gone).unwrap();
    assert_eq!(r.total, 1);
    assert!(!s.contains(deep));
}

#[test]
fn frustum_rejected_instances_are_absent() {
    // Chain placed at x = 100: outside the ortho view (|x| ≤ 4), so not even its Box.
    let defs = chain_defs();
    let (mut s, mut inst) = instance(&defs, "Chain", opts(1.0));
    s.set_translation(inst.root(), Vec3::new(100.0, 0.0, 0.0))
        .unwrap();
    let r = inst.update(&mut s, &ortho()).unwrap();
    assert_eq!(r.total, 1);
}

#[test]
fn bad_definitions_and_options_are_typed_errors() {
    let fault_of = |e: SceneError| match e {
        SceneError::Definition { fault, .. } => fault,
        other => panic!("not a definition error: {other}"),
    };
    let missing = Definitions::new(
        vec![("Box".into(), cube())],
        vec![(
            "A".into(),
            vec![prod(vec![EdgeSpec::new("Nope", Transform::IDENTITY)])],
        )],
    )
    .unwrap_err();
    assert!(missing.to_string().contains("Nope"), "{missing}");
    assert_eq!(fault_of(missing), DefinitionFault::MissingSymbol);
    // A ↔ B with no model anywhere on the cycle.
    let barren = Definitions::new(
        vec![("Box".into(), cube())],
        vec![
            (
                "A".into(),
                vec![prod(vec![EdgeSpec::new("B", ts(0.5, Vec3::ZERO))])],
            ),
            (
                "B".into(),
                vec![prod(vec![EdgeSpec::new("A", ts(0.5, Vec3::ZERO))])],
            ),
        ],
    )
    .unwrap_err();
    assert_eq!(fault_of(barren), DefinitionFault::NoModelReachable);
    let flat = Transform::from_scale(Vec3::new(1.0, 0.0, 1.0)).unwrap();
    let singular = Definitions::new(
        vec![("Box".into(), cube())],
        vec![("A".into(), vec![prod(vec![EdgeSpec::new("Box", flat)])])],
    )
    .unwrap_err();
    assert_eq!(fault_of(singular), DefinitionFault::SingularEdge);
    let defs = chain_defs();
    for bad in [
        InstanceOptions {
            min_area: 0.0,
            ..opts(1.0)
        },
        InstanceOptions {
            min_area: -1.0,
            ..opts(1.0)
        },
        InstanceOptions {
            min_area: f64::NAN,
            ..opts(1.0)
        },
        InstanceOptions {
            max_depth: 0,
            ..opts(1.0)
        },
        InstanceOptions {
            max_nodes: 0,
            ..opts(1.0)
        },
    ] {
        let mut s = Scene::new();
        let root = s.root();
        let e = Instancing::new(&mut s, root, "x", Arc::clone(&defs), "Chain", bad).unwrap_err();
        assert_eq!(fault_of(e), DefinitionFault::BadOption);
    }
    let mut s = Scene::new();
    let root = s.root();
    let e = Instancing::new(&mut s, root, "x", defs, "Box", opts(1.0)).unwrap_err();
    assert_eq!(fault_of(e), DefinitionFault::MissingSymbol);
}

// ------------------------------------------------------------------------------ relation

fn close(a: &DMat4, b: &DMat4, tol: f64) -> bool {
    a.to_cols_array()
        .iter()
        .zip(b.to_cols_array())
        .all(|(x, y)| (x - y).abs() <= tol * (1.0 + y.abs()))
}

#[test]
fn relation_maps_local_points_by_hand() {
    // A: translation (1, 0, 0) under the root; B: scale 2 under the root. A's origin is the
    // world point (1, 0, 0), which is (0.5, 0, 0) in B's frame.
    let mut s = Scene::new();
    let a = s.add_group(s.root(), "a").unwrap();
    let b = s.add_group(s.root(), "b").unwrap();
    s.set_translation(a, Vec3::X).unwrap();
    s.set_uniform_scale(b, 2.0).unwrap();
    let rel = s.relative_transform(a, b).unwrap();
    let p = rel.transform_point3(glam::DVec3::ZERO);
    assert!(
        (p - glam::DVec3::new(0.5, 0.0, 0.0)).length() < 1e-12,
        "{p}"
    );
    // A child of B at local (0, 0, 3): rel(child, A) sends its origin to world (0, 0, 6),
    // which is (−1, 0, 6) in A.
    let c = s.add_group(b, "c").unwrap();
    s.set_translation(c, Vec3::new(0.0, 0.0, 3.0)).unwrap();
    let p = s
        .relative_transform(c, a)
        .unwrap()
        .transform_point3(glam::DVec3::ZERO);
    assert!(
        (p - glam::DVec3::new(-1.0, 0.0, 6.0)).length() < 1e-12,
        "{p}"
    );
}

/// A random tree: node i > 0 hangs under node `parents[i] < i` (0 = a group under the root).
fn random_tree(parents: &[usize], trs: &[(f32, f32, [f32; 3])]) -> (Scene, Vec<NodeId>) {
    let mut s = Scene::new();
    let mut ids = vec![s.add_group(s.root(), "n0").unwrap()];
    for i in 1..parents.len() {
        let p = ids[parents[i] % i];
        let id = s.add_group(p, format!("n{i}")).unwrap();
        let (scale, angle, t) = trs[i];
        let r = rotation_axis_angle(Vec3::new(1.0, 2.0, 3.0), angle).unwrap();
        s.set_local_transform(
            id,
            Transform::IDENTITY
                .with_uniform_scale(scale)
                .unwrap()
                .with_rotation(r)
                .unwrap()
                .with_translation(Vec3::from(t))
                .unwrap(),
        )
        .unwrap();
        ids.push(id);
    }
    (s, ids)
}

proptest! {
    #[test]
    fn relation_laws_hold_on_random_trees(
        parents in proptest::collection::vec(0usize..64, 2..24),
        trs in proptest::collection::vec((0.5f32..2.0, -3.0f32..3.0, proptest::array::uniform3(-10f32..10.0)), 24),
        a in 0usize..24,
        b in 0usize..24,
    ) {
        let (s, ids) = random_tree(&parents, &trs);
        let (a, b) = (ids[a % ids.len()], ids[b % ids.len()]);
        let ab = s.relative_transform(a, b).unwrap();
        let ba = s.relative_transform(b, a).unwrap();
        prop_assert!(close(&s.relative_transform(a, a).unwrap(), &DMat4::IDENTITY, 0.0));
        prop_assert!(close(&(ab * ba), &DMat4::IDENTITY, 1e-6), "{:?}", ab * ba);
        let wa = s.world_from_local_f64(a).unwrap();
        let wb = s.world_from_local_f64(b).unwrap();
        prop_assert!(close(&ab, &(wb.inverse() * wa), 1e-6));
    }
}

// ------------------------------------------------------------------------------ drawing

fn lit(s: &mut Scene, color: Vec4) -> NodeId {
    let n = s.root();
    s.set_global_state(n, GlobalState::Material(MaterialState::matte(color)))
        .unwrap();
    let sun = s
        .add_light(SceneLight::directional(Vec3::new(-0.3, -0.5, -1.0)))
        .unwrap();
    s.attach_light(n, sun).unwrap();
    n
}

fn render(s: &mut Scene, cam: &Camera) -> RgbaImage {
    let mut r = SoftRenderer::new(128, 128, Some(1)).unwrap();
    s.draw(cam, &mut r).unwrap();
    r.image()
}

/// Largest per-channel difference and the number of pixels differing by more than `tol`.
fn compare(a: &RgbaImage, b: &RgbaImage, tol: u8) -> (u8, usize) {
    let mut max = 0;
    let mut over = 0;
    for (p, q) in a.pixels().zip(b.pixels()) {
        let d =
            p.0.iter()
                .zip(q.0)
                .map(|(x, y)| x.abs_diff(y))
                .max()
                .unwrap();
        max = max.max(d);
        over += usize::from(d > tol);
    }
    (max, over)
}

fn covered(img: &RgbaImage) -> usize {
    img.pixels().filter(|p| p.0[..3] != [0, 0, 0]).count()
}

/// A few lit shapes under a chain root → a (×2, rotated) → b (×0.25) → deep (×3).
fn chain_scene() -> (Scene, NodeId) {
    let mut s = Scene::new();
    lit(&mut s, Vec4::new(0.9, 0.6, 0.2, 1.0));
    let a = s.add_group(s.root(), "a").unwrap();
    s.set_local_transform(
        a,
        Transform::IDENTITY
            .with_uniform_scale(2.0)
            .unwrap()
            .with_rotation(rotation_axis_angle(Vec3::Y, 0.4).unwrap())
            .unwrap()
            .with_translation(Vec3::new(0.5, 0.0, -1.0))
            .unwrap(),
    )
    .unwrap();
    let b = s.add_group(a, "b").unwrap();
    s.set_local_transform(b, ts(0.25, Vec3::new(0.2, 0.1, 0.0)))
        .unwrap();
    let deep = s.add_group(b, "deep").unwrap();
    s.set_local_transform(deep, ts(3.0, Vec3::new(-0.3, 0.0, 0.2)))
        .unwrap();
    let m = cube();
    for (parent, at) in [
        (s.root(), Vec3::new(-1.5, 0.0, 0.0)),
        (a, Vec3::new(0.0, 0.6, 0.0)),
        (deep, Vec3::new(0.2, -0.3, 0.0)),
    ] {
        let g = s.add_geometry(parent, "box", Arc::clone(&m)).unwrap();
        s.set_translation(g, at).unwrap();
        s.set_rotation(g, Mat3::from_rotation_x(0.5)).unwrap();
    }
    (s, deep)
}

#[test]
fn switching_the_reference_node_draws_the_same_image() {
    // Tolerance: no pixel may differ by more than 2 levels except on triangle edges, where a
    // pixel centre within rounding of an edge may fall on the other side (the two frames
    // round the vertex positions differently, by ~1e-7 relative): at most 1% of the pixels.
    let (mut s, deep) = chain_scene();
    let cam = persp(Vec3::new(0.0, 1.0, 6.0), Vec3::ZERO, 0.1, 100.0);
    let plain = render(&mut s, &cam);
    s.set_reference_node(Some(s.root())).unwrap();
    let at_root = render(&mut s, &cam);
    let cam_deep = s.camera_in_frame(&cam, Some(s.root()), Some(deep)).unwrap();
    s.set_reference_node(Some(deep)).unwrap();
    let at_deep = render(&mut s, &cam_deep);
    assert!(covered(&plain) > 1000, "too little drawn to compare");
    for img in [&at_root, &at_deep] {
        let (_, over) = compare(&plain, img, 2);
        assert!(over * 100 <= 128 * 128, "{over} pixels differ");
    }
    let (_, over) = compare(&at_root, &at_deep, 2);
    assert!(over * 100 <= 128 * 128, "{over} pixels differ");
    // deep's scale relative to the root is 2·0.25·3 = 1.5, so lengths in its frame are
    // world lengths ÷ 1.5: the re-expressed near distance is 0.1/1.5.
    assert!((cam_deep.frustum().near - 0.1 / 1.5).abs() < 1e-6);
}

/// The same picture with and without a reference node or depth layers: the plain world draw,
/// then reference nodes at the root and at `deep` (camera re-expressed), then depth layers
/// whose step starts no layer. Edges only, at most 0.1 % of the pixels (16): these scenes
/// measured 0, and a plane or billboard left in the wrong frame moved 155 or more.
fn assert_same_picture_in_every_frame(s: &mut Scene, deep: NodeId, cam: &Camera) -> RgbaImage {
    let plain = render(s, cam);
    s.set_reference_node(Some(s.root())).unwrap();
    let at_root = render(s, cam);
    let cam_deep = s.camera_in_frame(cam, Some(s.root()), Some(deep)).unwrap();
    s.set_reference_node(Some(deep)).unwrap();
    let at_deep = render(s, &cam_deep);
    s.set_reference_node(None).unwrap();
    // The chain's smallest scale relative to a layer start is 0.5: a step of 0.01 starts none.
    s.set_depth_layers(Some(0.01)).unwrap();
    let layered = render(s, cam);
    s.set_depth_layers(None).unwrap();
    for (name, img) in [("root", &at_root), ("deep", &at_deep), ("layers", &layered)] {
        let (max, over) = compare(&plain, img, 2);
        assert!(over <= 16, "{name}: {over} pixels differ (max {max})");
    }
    plain
}

/// Issue 31 #4: world-space user clip planes are carried into the drawn frame, not applied in
/// it. The plane x = −1.2 cuts the root's box (x ∈ [−2, −1]) about in the middle.
#[test]
fn world_clip_planes_clip_the_same_in_every_frame() {
    let (mut s, deep) = chain_scene();
    let cam = persp(Vec3::new(0.0, 1.0, 6.0), Vec3::ZERO, 0.1, 100.0);
    let unclipped = covered(&render(&mut s, &cam));
    let root = s.root();
    let keep_right = ClipPlaneState::new(&[Vec4::new(1.0, 0.0, 0.0, 1.2)]);
    s.set_global_state(root, GlobalState::ClipPlanes(keep_right))
        .unwrap();
    let clipped = covered(&assert_same_picture_in_every_frame(&mut s, deep, &cam));
    // The plane removes a visible part (the left ~80 % of the root box's face).
    assert!(clipped + 100 < unclipped, "{clipped} vs {unclipped}");
}

/// Issue 31 #5: a billboard turns to the eye in every frame. The billboard sits under `a`
/// (rotated 0.4 rad about y) with a box 0.8 along its local +z; turned to the eye, that box
/// moves sideways by about 1.6·sin 29° ≈ 0.8 world units, some 12 pixels here.
#[test]
fn billboards_face_the_eye_in_every_frame() {
    let (mut s, deep) = chain_scene();
    let a = s.find("a").unwrap();
    let board = s.add_billboard(a, "board").unwrap();
    s.set_translation(board, Vec3::new(0.6, -0.4, 0.0)).unwrap();
    let card = s.add_geometry(board, "card", cube()).unwrap();
    s.set_translation(card, Vec3::new(0.0, 0.0, 0.8)).unwrap();
    let cam = persp(Vec3::new(0.0, 1.0, 6.0), Vec3::ZERO, 0.1, 100.0);
    let faced = assert_same_picture_in_every_frame(&mut s, deep, &cam);
    // The billboard did turn: drawn as a plain group, the picture differs.
    let mut plain_group = chain_scene().0;
    let a = plain_group.find("a").unwrap();
    let group = plain_group.add_group(a, "board").unwrap();
    plain_group
        .set_translation(group, Vec3::new(0.6, -0.4, 0.0))
        .unwrap();
    let card = plain_group.add_geometry(group, "card", cube()).unwrap();
    plain_group
        .set_translation(card, Vec3::new(0.0, 0.0, 0.8))
        .unwrap();
    let (_, over) = compare(&faced, &render(&mut plain_group, &cam), 2);
    assert!(over > 100, "only {over} pixels moved");
}

/// A unit cube 3 units in front of the eye, under root → a → b → c with scale 10⁻³ each
/// (10⁻⁹ in all) and translations (0.3, 0.2, 0.1) each.
fn tiny_scene() -> (Scene, NodeId) {
    let mut s = Scene::new();
    lit(&mut s, Vec4::new(0.2, 0.9, 0.3, 1.0));
    let mut at = s.root();
    for name in ["a", "b", "c"] {
        let n = s.add_group(at, name).unwrap();
        s.set_local_transform(n, ts(1e-3, Vec3::new(0.3, 0.2, 0.1)))
            .unwrap();
        at = n;
    }
    s.add_geometry(at, "tiny", cube()).unwrap();
    (s, at)
}

#[test]
fn a_tiny_object_under_1e9_scales_stays_exact_relative_to_its_frame() {
    // In c's frame the cube [−½, ½]³ is seen from (0, 0, 2.5), fov 60°: its front face at
    // distance 2 spans ±0.5/(2·tan 30°) = ±0.433 of the half-height, i.e. 64·0.433 = 27.7
    // pixels each side of the centre: about 55 × 55 = 3070 pixels (the sides slope away and
    // hide behind it; lit from the front-left, every pixel of it is non-black).
    let (mut s, c) = tiny_scene();
    let cam = persp(Vec3::new(0.0, 0.0, 2.5), Vec3::ZERO, 0.1, 100.0);
    s.set_reference_node(Some(c)).unwrap();
    let relative = render(&mut s, &cam);
    let n = covered(&relative);
    assert!((2800..=3300).contains(&n), "{n} pixels");
    assert_ne!(relative.get_pixel(64, 64).0[..3], [0, 0, 0]);
    assert_eq!(relative.get_pixel(64, 30).0[..3], [0, 0, 0]);
    // The same view in world space (f32): the cube's world coordinates are ~0.3003 ± 5e-10,
    // below the f32 spacing there (3e-8), so its vertices collapse.
    let world_cam = s.camera_in_frame(&cam, Some(c), None).unwrap();
    s.set_reference_node(None).unwrap();
    let world = render(&mut s, &world_cam);
    let w = covered(&world);
    assert!(
        w * 2 < n || w > n * 2,
        "world-space f32 drew {w} pixels vs {n}"
    );
    let dir = std::env::temp_dir();
    relative.save(dir.join("plumb_tiny_relative.png")).unwrap();
    world.save(dir.join("plumb_tiny_world.png")).unwrap();
}

/// A sphere of radius 10⁶ at distance 3·10⁶ and, under a node of scale 10⁻⁶, a red cube
/// 0.02 wide, 0.05 in front of the eye (world units).
fn layered_scene() -> (Scene, NodeId, NodeId) {
    let mut s = Scene::new();
    let root = s.root();
    s.set_global_state(
        root,
        GlobalState::Material(MaterialState::matte(Vec4::new(0.2, 0.3, 1.0, 1.0))),
    )
    .unwrap();
    let sun = s
        .add_light(SceneLight::directional(Vec3::new(0.0, 0.0, -1.0)))
        .unwrap();
    s.attach_light(root, sun).unwrap();
    let planet = s
        .add_geometry(
            root,
            "planet",
            Arc::new(plumb_scene::shapes::sphere(1e6, 16, 24).unwrap()),
        )
        .unwrap();
    s.set_translation(planet, Vec3::new(0.0, 0.0, -3e6))
        .unwrap();
    let small = s.add_group(root, "small").unwrap();
    s.set_local_transform(small, ts(1e-6, Vec3::new(0.0, 0.0, -0.05)))
        .unwrap();
    let object = s.add_geometry(small, "object", cube()).unwrap();
    s.set_uniform_scale(object, 2e4).unwrap();
    s.set_global_state(
        object,
        GlobalState::Material(MaterialState::matte(Vec4::new(1.0, 0.1, 0.1, 1.0))),
    )
    .unwrap();
    // A layer starts only at a node that contains the eye: `small` is a cabin around it, with
    // a wall 0.05 behind the eye (out of view).
    let wall = s.add_geometry(small, "cabin_wall", cube()).unwrap();
    s.set_local_transform(wall, ts(2e4, Vec3::new(0.0, 0.0, 1e5)))
        .unwrap();
    (s, small, object)
}

/// Issue 31 #3: a layer starts only at a node that contains the eye. Each scene is drawn with
/// and without depth layers (step 0.01); where no node holds the eye the two must agree
/// (edges only: the layered path composes in `f64`).
fn same_with_and_without_layers(s: &mut Scene, cam: &Camera) -> (usize, usize) {
    let plain = render(s, cam);
    s.set_depth_layers(Some(0.01)).unwrap();
    let layered = render(s, cam);
    s.set_depth_layers(None).unwrap();
    let (_, over) = compare(&plain, &layered, 2);
    (covered(&plain), over)
}

/// A wall 2 units in front of the eye hides a small cube (a node of scale 10⁻³) 4 units out.
/// The cube's node started a layer, drawn after a depth clear: it showed through the wall.
#[test]
fn a_small_node_behind_a_wall_stays_hidden() {
    let mut s = Scene::new();
    lit(&mut s, Vec4::new(0.6, 0.6, 0.6, 1.0));
    let wall = s.add_geometry(s.root(), "wall", cube()).unwrap();
    s.set_local_transform(wall, ts(4.0, Vec3::new(0.0, 0.0, -4.0)))
        .unwrap();
    let tiny = s.add_group(s.root(), "tiny").unwrap();
    s.set_local_transform(tiny, ts(1e-3, Vec3::new(0.0, 0.0, -8.0)))
        .unwrap();
    let c = s.add_geometry(tiny, "cube", cube()).unwrap();
    s.set_uniform_scale(c, 600.0).unwrap();
    s.set_global_state(
        c,
        GlobalState::Material(MaterialState::matte(Vec4::new(1.0, 0.0, 0.0, 1.0))),
    )
    .unwrap();
    // Far 10⁵: the cube's layer (×1000 about the eye) puts it 8000 out, still in view.
    let cam = persp(Vec3::ZERO, Vec3::new(0.0, 0.0, -1.0), 0.1, 1e5);
    let (drawn, over) = same_with_and_without_layers(&mut s, &cam);
    assert!(drawn > 1000, "{drawn} px");
    assert!(over <= 16, "{over} px differ");
}

/// A moon (radius 10 world units) 50 units out under a node of scale 10⁻⁴. As a layer of
/// its own it was drawn scaled 10⁴ about the eye, past the far plane (100): it vanished.
#[test]
fn a_far_moon_in_a_small_frame_stays_in_view() {
    let mut s = Scene::new();
    lit(&mut s, Vec4::new(0.9, 0.9, 0.8, 1.0));
    let frame = s.add_group(s.root(), "moon_frame").unwrap();
    s.set_local_transform(frame, ts(1e-4, Vec3::new(0.0, 0.0, -50.0)))
        .unwrap();
    let moon = Arc::new(plumb_scene::shapes::sphere(1e5, 16, 24).unwrap());
    s.add_geometry(frame, "moon", moon).unwrap();
    let cam = persp(Vec3::ZERO, Vec3::new(0.0, 0.0, -1.0), 0.1, 100.0);
    let (drawn, over) = same_with_and_without_layers(&mut s, &cam);
    assert!(drawn > 1000, "{drawn} px");
    assert!(over <= 16, "{over} px differ");
}

#[test]
fn layered_depth_draws_the_tiny_near_object_over_the_huge_sphere() {
    // Camera at the origin looking down −z, near 1000, far 10⁷ (fits the planet). The red
    // cube is 0.02 wide at distance 0.05 (front face at 0.04): far inside the near plane, so
    // a single depth range clips it and the planet shows in the centre. With depth layers
    // (step 10⁻³) the small node (scale 10⁻⁶) starts a layer scaled 10⁶ about the eye: the
    // cube sits at 4·10⁴..6·10⁴, inside [1000, 10⁷], and covers the centre. Its front face
    // spans ±0.01/(0.04·tan 30°) = ±0.433 of the half-height: pixels 64 ± 27.
    let (mut s, small, _) = layered_scene();
    let cam = persp(Vec3::ZERO, Vec3::new(0.0, 0.0, -1.0), 1000.0, 1e7);
    let without = render(&mut s, &cam);
    let centre = without.get_pixel(64, 64).0;
    assert!(
        centre[2] > centre[0],
        "the planet (blue) is in the centre: {centre:?}"
    );
    s.set_depth_layers(Some(1e-3)).unwrap();
    let with = render(&mut s, &cam);
    let centre = with.get_pixel(64, 64).0;
    assert!(centre[0] > 200 && centre[2] < 80, "red cube: {centre:?}");
    // Outside the cube (x = 64 ± 27) but inside the planet's disc (radius atan(1/3) →
    // 64·(1/√8)/tan 30° = 39 pixels) the planet still shows.
    let ring = with.get_pixel(64 + 33, 64).0;
    assert!(ring[2] > ring[0], "planet beside the cube: {ring:?}");
    assert_eq!(with.get_pixel(2, 2).0[..3], [0, 0, 0]);
    // Sharing depth with its children, the root keeps `small` in the base layer: clipped.
    s.set_share_depth(s.root(), true).unwrap();
    let shared = render(&mut s, &cam);
    assert_eq!(shared.get_pixel(64, 64), without.get_pixel(64, 64));
    let _ = small;
}

#[test]
fn bad_frame_settings_are_errors() {
    let mut s = Scene::new();
    for bad in [0.0, 1.0, -0.5, f64::NAN] {
        assert!(s.set_depth_layers(Some(bad)).is_err());
    }
    let g = s.add_group(s.root(), "g").unwrap();
    s.set_scale(g, Vec3::new(1.0, 2.0, 1.0)).unwrap();
    let cam = persp(Vec3::new(0.0, 0.0, 5.0), Vec3::ZERO, 0.1, 10.0);
    // A camera cannot be carried into a non-uniformly scaled frame.
    assert!(matches!(
        s.camera_in_frame(&cam, None, Some(g)),
        Err(SceneError::InvalidArgument { .. })
    ));
    s.remove(g).unwrap();
    assert!(s.set_reference_node(Some(g)).is_err());
}

// ------------------------------------------------------------------------------ scene files

fn golden(name: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../refimages/json")
        .join(name)
}

#[test]
fn the_man_golden_instances_a_finite_tree() {
    let loaded = plumb_scene::io::load(&golden("cyclic_man.json"), &Default::default()).unwrap();
    let s = loaded.scene;
    let men = s.find("men").unwrap();
    // Every instance group is a Man holding (after its 5 model leaves) two Men or nothing.
    let mut groups = 0;
    let mut stack = vec![men];
    while let Some(n) = stack.pop() {
        let kids = s.children(n).unwrap().to_vec();
        if n != men {
            assert_eq!(s.name(n).unwrap(), "Man");
        }
        groups += 1;
        assert!(
            kids.is_empty() || kids.len() == 7,
            "{} children",
            kids.len()
        );
        stack.extend(
            kids.into_iter()
                .filter(|&k| s.kind(k).unwrap() == plumb_scene::NodeKind::Group),
        );
    }
    // At 4 px² the levels reach 2^5 hands and more; the cap of 20000 is far off.
    assert!(groups > 63 && groups < 20_000, "{groups} instances");
}

/// Writes `text` to a scratch file and loads it; the error message.
fn load_err(test: &str, text: &str) -> (String, String) {
    let dir = std::env::temp_dir().join(format!("plumb-worlds-{}-{test}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join("w.json");
    std::fs::write(&p, text).unwrap();
    let e = plumb_scene::io::load(&p, &Default::default())
        .map(|_| ())
        .unwrap_err()
        .to_string();
    (p.display().to_string(), e)
}

fn man_file(symbols: &str, instance: &str) -> String {
    format!(
        r#"{{
  "format": "plumb-scene",
  "version": 1,
  "cameras": [{{ "name": "main", "eye": [0, 0, 5], "target": [0, 0, 0] }}],
  "definitions": {{
    "models": [{{ "name": "Box", "mesh": {{ "box": {{}} }} }}],
    "symbols": [
      {symbols}
    ]
  }},
  "root": {{ "children": [
    {{ "name": "men", "instance": {instance} }}
  ] }}
}}"#
    )
}

/// Whether the message `e` about `file` gives the position `line:col` (as `file:line:col:` or,
/// for a scene-graph refusal, `(at line:col)`).
fn at(file: &str, e: &str, line: u32, col: Option<u32>) -> bool {
    match col {
        Some(c) => {
            e.starts_with(&format!("{file}:{line}:{c}:")) || e.contains(&format!("(at {line}:{c})"))
        }
        None => e.starts_with(&format!("{file}:{line}:")) || e.contains(&format!("(at {line}:")),
    }
}

const GOOD_SYMBOL: &str = r#"{ "name": "Man", "productions": [{ "edges": [{ "to": "Box" }, { "to": "Man", "transform": { "uniform_scale": 0.5 } }] }] }"#;
const GOOD_INSTANCE: &str =
    r#"{ "symbol": "Man", "min_area": 4, "max_depth": 8, "max_nodes": 100 }"#;

#[test]
fn scene_file_errors_name_the_place() {
    // The symbols array's first entry starts on line 8, column 7; the "men" node on line 12,
    // column 5.
    let (file, e) = load_err(
        "missing",
        &man_file(
            &GOOD_SYMBOL.replace("\"to\": \"Man\"", "\"to\": \"Woman\""),
            GOOD_INSTANCE,
        ),
    );
    assert!(at(&file, &e, 8, Some(7)), "{e}");
    assert!(e.contains("'Woman', which is not defined"), "{e}");
    let barren = r#"{ "name": "Man", "productions": [{ "edges": [{ "to": "Man", "transform": { "uniform_scale": 0.5 } }] }] }"#;
    let (file, e) = load_err("barren", &man_file(barren, GOOD_INSTANCE));
    assert!(at(&file, &e, 8, Some(7)), "{e}");
    assert!(e.contains("no model is reachable"), "{e}");
    let flat = GOOD_SYMBOL.replace("\"uniform_scale\": 0.5", "\"scale\": [1, 0, 1]");
    let (file, e) = load_err("flat", &man_file(&flat, GOOD_INSTANCE));
    assert!(at(&file, &e, 8, None), "{e}");
    for (bad, what) in [
        ("\"min_area\": 4", "\"min_area\": 0"),
        ("\"min_area\": 4", "\"min_area\": -2"),
        ("\"max_depth\": 8", "\"max_depth\": 0"),
        ("\"max_nodes\": 100", "\"max_nodes\": 0"),
        ("\"max_nodes\": 100", "\"max_nodes\": 2000000"),
    ] {
        let (file, e) = load_err(
            "option",
            &man_file(GOOD_SYMBOL, &GOOD_INSTANCE.replace(bad, what)),
        );
        assert!(at(&file, &e, 12, Some(5)), "{what}: {e}");
    }
    let (file, e) = load_err(
        "symbol",
        &man_file(GOOD_SYMBOL, &GOOD_INSTANCE.replace("\"Man\"", "\"Box\"")),
    );
    assert!(at(&file, &e, 12, Some(5)), "{e}");
    // A NaN is not JSON; a negative cap is not an integer: parse errors with a position.
    let (file, e) = load_err(
        "negative",
        &man_file(
            GOOD_SYMBOL,
            &GOOD_INSTANCE.replace("\"max_depth\": 8", "\"max_depth\": -1"),
        ),
    );
    assert!(at(&file, &e, 12, None), "{e}");
    // An identity cycle instanced with big caps still loads (the caps stop it).
    let grow = GOOD_SYMBOL.replace("\"uniform_scale\": 0.5", "\"uniform_scale\": 1");
    let dir = std::env::temp_dir().join(format!("plumb-worlds-{}-grow", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join("g.json");
    std::fs::write(
        &p,
        man_file(
            &grow,
            &GOOD_INSTANCE.replace("\"max_nodes\": 100", "\"max_nodes\": 4096"),
        ),
    )
    .unwrap();
    let s = plumb_scene::io::load(&p, &Default::default())
        .unwrap()
        .scene;
    // Depth cap 8: levels 0..7 expand with 2 nodes each.
    assert_eq!(subtree_size(&s, s.find("men").unwrap()), 17);
}

#[test]
fn the_layered_depth_golden_shows_the_cube_over_the_planet() {
    let loaded = plumb_scene::io::load(&golden("layered_depth.json"), &Default::default()).unwrap();
    let mut s = loaded.scene;
    assert_eq!(s.depth_layers(), Some(f64::from(0.001f32)));
    let cam = loaded.imported.cameras[0].to_camera(&s, 1.0).unwrap();
    let mut r = SoftRenderer::new(128, 128, Some(1)).unwrap();
    s.draw(&cam, &mut r).unwrap();
    let img = r.image();
    // The cube (red, 0.012 wide at 0.05: at most ±0.0104/(0.044·tan 30°)·64 = ±26 pixels
    // however it is turned) covers the centre; 35 pixels above it, inside the planet's disc
    // (radius 39 pixels), blue.
    let c = img.get_pixel(64, 64).0;
    assert!(c[0] > 150 && c[2] < 80, "{c:?}");
    let p = img.get_pixel(64, 64 - 35).0;
    assert!(p[2] > p[0], "{p:?}");
    s.set_depth_layers(None).unwrap();
    let mut r = SoftRenderer::new(128, 128, Some(1)).unwrap();
    s.draw(&cam, &mut r).unwrap();
    let c = r.image().get_pixel(64, 64).0;
    assert!(c[2] > c[0], "without layers the cube vanishes: {c:?}");
}
