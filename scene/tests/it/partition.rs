//! BSP nodes and portals (book-advanced §1.6–§1.7; issue 15): world planes, containing cells,
//! back-to-front order, the regions the portal walk reaches from several eyes, closed portals,
//! cycles, and bad input. Expected values come from the plane equations (worked out in the
//! comments), not from the code under test.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use glam::{Mat3, Vec3};
use plumb_scene::io::{self, ImportOptions};
use plumb_scene::partition::{bsp_draw_order, frustum_side};
use plumb_scene::{
    rotation_axis_angle, BspSide, Camera, Mesh, NodeId, Plane, Scene, SceneError, Side, Transform,
};

fn golden(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../refimages/json")
        .join(name)
}

fn load(name: &str) -> Scene {
    let mut s = io::load(&golden(name), &ImportOptions::default())
        .unwrap()
        .scene;
    s.update(0.0);
    s
}

fn camera(eye: Vec3, target: Vec3, up: Vec3, fov_degrees: f32) -> Camera {
    let mut c = Camera::perspective(fov_degrees.to_radians(), 1.0, 0.1, 100.0).unwrap();
    c.look_at(eye, target, up).unwrap();
    c
}

fn names(s: &Scene, ids: &[NodeId]) -> Vec<String> {
    ids.iter().map(|&i| s.name(i).unwrap().to_owned()).collect()
}

fn id(s: &Scene, name: &str) -> NodeId {
    s.find(name).unwrap_or_else(|| panic!("no node {name}"))
}

// ------------------------------------------------------------------------------ BSP

#[test]
fn world_plane_under_a_scaled_rotated_parent() {
    // Parent: Y = R·S·X + T with S = diag(2, 1, 1), R = 90° about z, T = (5, 0, 0). The local
    // plane x = 1 holds the points (1, t, u); S sends them to (2, t, u), R to (−t, 2, u), T to
    // (5 − t, 2, u): the world plane is y = 2, and the local positive side (x > 1, e.g.
    // (3, 0, 0) ↦ (5, 6, 0)) is y > 2, so N₁ = (0, 1, 0), c₁ = 2.
    let mut s = Scene::new();
    let parent = s.add_group(s.root(), "parent").unwrap();
    let r = rotation_axis_angle(Vec3::Z, std::f32::consts::FRAC_PI_2).unwrap();
    let t = Transform::IDENTITY
        .with_scale(Vec3::new(2.0, 1.0, 1.0))
        .unwrap()
        .with_rotation(r)
        .unwrap()
        .with_translation(Vec3::new(5.0, 0.0, 0.0))
        .unwrap();
    s.set_local_transform(parent, t).unwrap();
    let bsp = s
        .add_bsp(parent, "bsp", Plane::new(Vec3::X, 1.0).unwrap())
        .unwrap();
    s.update(0.0);
    let w = s.bsp_world_plane(bsp).unwrap();
    assert!((w.normal() - Vec3::Y).length() < 1e-6, "{:?}", w);
    assert!((w.constant() - 2.0).abs() < 1e-5, "{:?}", w);
    // Consistent with transformed points, whatever the representation.
    let world = s.world_transform(bsp).unwrap();
    for p in [Vec3::new(1.0, 0.0, 0.0), Vec3::new(1.0, 3.0, -2.0)] {
        assert!(w.distance(world.apply_point(p)).abs() < 1e-5);
    }
    assert!(w.distance(world.apply_point(Vec3::new(3.0, 0.0, 0.0))) > 0.0);
}

/// The book's BSP sample, cells by hand: Bsp0 −x − y = 0 (positive: x + y < 0), Bsp1
/// −5x + 3y = 2, Bsp3 x = −3/4, Bsp2 x − 2y = 0 (see scripts/gen_partition_scenes.py).
#[test]
fn containing_node_finds_each_cell() {
    let s = load("bsp_depth_off.json");
    let bsp0 = id(&s, "Bsp0");
    let cases = [
        // x+y < 0, −5x+3y = 3.2 > 2, x = −0.55 > −0.75: the torus cell.
        (Vec3::new(-0.55, 0.15, 0.5), "Torus"),
        // x+y < 0, −5x+3y = 7.4 > 2, x < −0.75.
        (Vec3::new(-1.3, 0.3, 0.5), "Sphere"),
        // x+y < 0, −5x+3y = −4 < 2.
        (Vec3::new(0.2, -1.0, 0.5), "Tetrahedron"),
        // x+y > 0, x − 2y = 1.2 > 0.
        (Vec3::new(1.0, -0.1, 0.5), "Cube"),
        // x+y > 0, x − 2y = −1.6 < 0.
        (Vec3::new(0.2, 0.9, 0.5), "Octahedron"),
        // Far out, still a cell: x+y = 20 > 0, x − 2y = −10.
        (Vec3::new(0.0, 20.0, 0.0), "Octahedron"),
    ];
    for (p, want) in cases {
        let got = s
            .containing_node(bsp0, p)
            .unwrap()
            .map(|c| s.name(c).unwrap());
        assert_eq!(got, Some(want), "point {p}");
    }
}

#[test]
fn draw_order_rule_for_sample_eyes() {
    let plane = Plane::new(Vec3::X, 0.0).unwrap();
    let look = |eye: Vec3, dir: Vec3| {
        let mut c = Camera::perspective(1.0, 1.0, 0.1, 10.0).unwrap();
        c.look_at(eye, eye + dir, Vec3::Y).unwrap();
        c
    };
    use BspSide::*;
    // Eye positive, looking away: the whole frustum is positive (x from 1.1 to 11).
    let c = look(Vec3::X, Vec3::X);
    assert_eq!(frustum_side(&c, &plane), Side::Positive);
    assert_eq!(bsp_draw_order(&plane, &c), vec![Positive]);
    // Eye positive, looking across the plane: far side first.
    let c = look(Vec3::X, -Vec3::X);
    assert_eq!(frustum_side(&c, &plane), Side::Both);
    assert_eq!(
        bsp_draw_order(&plane, &c),
        vec![Negative, Coplanar, Positive]
    );
    // Eye negative, mirrored.
    let c = look(-Vec3::X, Vec3::X);
    assert_eq!(
        bsp_draw_order(&plane, &c),
        vec![Positive, Coplanar, Negative]
    );
    let c = look(-Vec3::X, -Vec3::X);
    assert_eq!(frustum_side(&c, &plane), Side::Negative);
    assert_eq!(bsp_draw_order(&plane, &c), vec![Negative]);
    // Eye on the plane: the half space D points into first.
    let c = look(Vec3::ZERO, Vec3::new(1.0, 0.0, -1.0));
    assert_eq!(
        bsp_draw_order(&plane, &c),
        vec![Positive, Coplanar, Negative]
    );
    let c = look(Vec3::ZERO, Vec3::new(-1.0, 0.0, -1.0));
    assert_eq!(
        bsp_draw_order(&plane, &c),
        vec![Negative, Coplanar, Positive]
    );
}

#[test]
fn bsp_sample_is_culled_back_to_front() {
    let s = load("bsp_depth_off.json");
    // Golden eye (−2.2, −2.9, 1.7): Bsp0 −x−y = 5.1 > 0 (positive: Bsp2 side first), Bsp2
    // x−2y = 3.6 > 0 (octahedron, plane, cube), Bsp1 −5x+3y = 2.3 > 2 (tetrahedron first),
    // Bsp3 x = −2.2 < −0.75 (negative eye: torus first, sphere last).
    let c = camera(
        Vec3::new(-2.2, -2.9, 1.7),
        Vec3::new(0.05, -0.1, 0.2),
        Vec3::Z,
        90.0,
    );
    let v = s.cull(&c);
    assert_eq!(
        names(&s, v.items()),
        [
            "Ground",
            "Octahedron",
            "Plane2",
            "Cube",
            "Plane0",
            "Tetrahedron",
            "Plane1",
            "Torus",
            "Plane3",
            "Sphere"
        ]
    );
    // Eye (2.5, 2.5, 1.5): Bsp0 −5 < 0 (Bsp1 side first), Bsp1 −5 < 2 (Bsp3 first), Bsp3
    // 2.5 > −0.75 (sphere first), Bsp2 2.5 − 5 < 0 (cube first).
    let c = camera(Vec3::new(2.5, 2.5, 1.5), Vec3::ZERO, Vec3::Z, 90.0);
    let v = s.cull(&c);
    assert_eq!(
        names(&s, v.items()),
        [
            "Ground",
            "Sphere",
            "Plane3",
            "Torus",
            "Plane1",
            "Tetrahedron",
            "Plane0",
            "Cube",
            "Plane2",
            "Octahedron"
        ]
    );
}

/// With the wireframe planes hidden, the depth-off image (BSP order only) matches a depth-on
/// render of the same scene except on a few edge pixels where objects meet the ground.
#[test]
fn depth_off_bsp_matches_depth_on() {
    use plumb_scene::{Culling, GlobalState, SoftRenderer, ZBufferState};
    let mut s = load("bsp_depth_off.json");
    for p in ["Plane0", "Plane1", "Plane2", "Plane3"] {
        s.set_culling(id(&s, p), Culling::Always).unwrap();
    }
    let c = camera(
        Vec3::new(-2.2, -2.9, 1.7),
        Vec3::new(0.05, -0.1, 0.2),
        Vec3::Z,
        45.0,
    );
    let mut off = SoftRenderer::new(128, 128, Some(1)).unwrap();
    s.draw(&c, &mut off).unwrap();
    let root = s.root();
    s.set_global_state(root, GlobalState::ZBuffer(ZBufferState::default()))
        .unwrap();
    let mut on = SoftRenderer::new(128, 128, Some(1)).unwrap();
    s.draw(&c, &mut on).unwrap();
    let (a, b) = (off.image(), on.image());
    let differ = a
        .pixels()
        .zip(b.pixels())
        .filter(|(p, q)| p.0 != q.0)
        .count();
    assert!(differ < 128 * 128 / 200, "{differ} pixels differ");
    // And the objects really overlap in this view: hiding the cube changes pixels that the
    // tetrahedron does not cover, so the order matters (a reversed order would show).
    let objects = a.pixels().filter(|p| p.0 != [140, 179, 217, 255]).count();
    assert!(objects > 1000);
}

// ---------------------------------------------------------------------------- portals

fn regions_from(s: &Scene, eye: Vec3, target: Vec3) -> Vec<String> {
    let c = camera(eye, target, Vec3::Z, 90.0);
    let v = s.cull(&c);
    names(s, v.regions())
}

/// Doorways are 0.8 wide and 1.4 high in the middle of each shared wall; the eye is at
/// height 1. Looking +x from (0, 0, 1): the x = 1 doorway shows C20, and C20's x = 3 doorway
/// C40; C40's side doorways (x ∈ [3.6, 4.4], y = ±1) lie outside the x = 3 doorway's edge
/// planes |y| ≤ 0.4·x/3 (≤ 0.59 < 1 there), so the walk stops. Far regions come first.
#[test]
fn regions_drawn_for_several_eyes() {
    let s = load("portals_level.json");
    let crm = id(&s, "CRM");
    let o = Vec3::new(0.0, 0.0, 1.0);
    assert_eq!(
        s.containing_region(crm, o)
            .unwrap()
            .map(|r| s.name(r).unwrap()),
        Some("C00")
    );
    assert_eq!(regions_from(&s, o, o + Vec3::X), ["C40", "C20", "C00"]);
    assert_eq!(regions_from(&s, o, o + Vec3::Y), ["C04", "C02", "C00"]);
    assert_eq!(regions_from(&s, o, o - Vec3::Y), ["C0m4", "C0m2", "C00"]);
    // From C20 looking −x: x = 1, −1, −3 doorways line up (each within the previous wedge),
    // C00's side doorways at y = ±1 are outside |y| ≤ 0.4·(2 − x) (≤ 0.96 < 1).
    let e = Vec3::new(2.0, 0.0, 1.0);
    assert_eq!(
        regions_from(&s, e, e - Vec3::X),
        ["Cm40", "Cm20", "C00", "C20"]
    );
    // In a diagonal room: Dpp at (3, 3, 1) looking at the C40 doorway (y = 1, x ∈ [3.6, 4.4]).
    let d = Vec3::new(3.0, 3.0, 1.0);
    assert_eq!(
        s.containing_region(crm, d)
            .unwrap()
            .map(|r| s.name(r).unwrap()),
        Some("Dpp")
    );
    let seen = regions_from(&s, d, Vec3::new(4.0, 0.0, 0.8));
    assert_eq!(seen.last().map(String::as_str), Some("Dpp"));
    assert!(seen.contains(&"C40".to_owned()), "{seen:?}");
    // Above the ceiling (z > 2) the eye is outside: no region, the outside is drawn.
    let c = camera(Vec3::new(0.0, -8.0, 6.0), Vec3::ZERO, Vec3::Z, 60.0);
    let v = s.cull(&c);
    assert!(v.regions().is_empty());
    assert_eq!(names(&s, v.items()), ["lawn"]);
}

#[test]
fn closed_portal_blocks() {
    let mut s = load("portals_level.json");
    let c00 = id(&s, "C00");
    let c20 = id(&s, "C20");
    let k = s
        .portals(c00)
        .unwrap()
        .iter()
        .position(|p| p.adjacent() == c20)
        .unwrap();
    s.set_portal_open(c00, k, false).unwrap();
    let o = Vec3::new(0.0, 0.0, 1.0);
    assert_eq!(regions_from(&s, o, o + Vec3::X), ["C00"]);
    let c = camera(o, o + Vec3::X, Vec3::Z, 90.0);
    assert!(s.cull(&c).stats().portals_closed >= 1);
    // Other directions are unaffected.
    assert_eq!(regions_from(&s, o, o + Vec3::Y), ["C04", "C02", "C00"]);
}

/// Objects in a visible region are still culled by the portal planes: the pillar of C40
/// (centre (4, 0)) is seen through both doorways from (0, 0, 1), but from (0, 0.9, 1) looking
/// +x the x = 1 doorway's edge plane through (1, 0.4) and the eye — y ≤ 0.9 − 0.5·x —
/// leaves y ≤ −1.1 at x = 4, past C40's pillar (|y| ≤ 0.15 + its bound).
#[test]
fn objects_are_culled_by_portal_planes() {
    let s = load("portals_level.json");
    let pillar = id(&s, "C40_pillar");
    let c = camera(
        Vec3::new(0.0, 0.0, 1.0),
        Vec3::new(1.0, 0.0, 1.0),
        Vec3::Z,
        90.0,
    );
    assert!(s.cull(&c).items().contains(&pillar));
    let e = Vec3::new(0.0, 0.9, 1.0);
    let c = camera(e, e + Vec3::X, Vec3::Z, 90.0);
    assert!(!s.cull(&c).items().contains(&pillar));
}

/// Three regions in a cycle A → B → C → A, with back edges and a self-loop, portals that
/// never cull (in front of the eye, bigger than the view): the walk ends, each region is
/// listed once, farthest (deepest) first.
#[test]
fn region_cycles_terminate() {
    let mut s = Scene::new();
    let root = s.root();
    let mesh = Arc::new(Mesh::cube());
    let mut r = Vec::new();
    for n in ["A", "B", "C"] {
        let g = s.add_region(root, n).unwrap();
        let leaf = s.add_geometry(g, format!("{n}_box"), mesh.clone()).unwrap();
        s.set_translation(leaf, Vec3::new(0.0, 0.0, -5.0)).unwrap();
        r.push(g);
    }
    // CCW seen from the eye at the origin looking −z.
    let quad = vec![
        Vec3::new(-9.0, -9.0, -1.0),
        Vec3::new(9.0, -9.0, -1.0),
        Vec3::new(9.0, 9.0, -1.0),
        Vec3::new(-9.0, 9.0, -1.0),
    ];
    for (from, to) in [(0, 1), (1, 2), (2, 0), (1, 0), (0, 0)] {
        s.add_portal(r[from], quad.clone(), r[to], true).unwrap();
    }
    s.update(0.0);
    let c = camera(Vec3::ZERO, -Vec3::Z, Vec3::Y, 60.0);
    let v = s.cull(&c);
    assert_eq!(names(&s, v.regions()), ["C", "B", "A"]);
    assert_eq!(names(&s, v.items()), ["C_box", "B_box", "A_box"]);
    assert!(!v.stats().portal_limit_reached);
}

/// Every region sees every other: the number of simple paths is astronomical (12!), so the
/// walk stops at the passage budget instead of hanging.
#[test]
fn dense_portal_graph_hits_the_budget_not_a_hang() {
    let mut s = Scene::new();
    let root = s.root();
    let mesh = Arc::new(Mesh::cube());
    let quad = vec![
        Vec3::new(-9.0, -9.0, -1.0),
        Vec3::new(9.0, -9.0, -1.0),
        Vec3::new(9.0, 9.0, -1.0),
        Vec3::new(-9.0, 9.0, -1.0),
    ];
    let r: Vec<NodeId> = (0..12)
        .map(|i| {
            let g = s.add_region(root, format!("R{i}")).unwrap();
            let leaf = s.add_geometry(g, format!("box{i}"), mesh.clone()).unwrap();
            s.set_translation(leaf, Vec3::new(0.0, 0.0, -5.0)).unwrap();
            g
        })
        .collect();
    for &a in &r {
        for &b in &r {
            s.add_portal(a, quad.clone(), b, true).unwrap();
        }
    }
    s.update(0.0);
    let c = camera(Vec3::ZERO, -Vec3::Z, Vec3::Y, 60.0);
    let v = s.cull(&c);
    assert!(v.stats().portal_limit_reached);
    assert_eq!(v.stats().portals_passed, plumb_scene::MAX_PORTAL_PASSAGES);
    assert_eq!(v.regions().len(), 12);
    assert_eq!(v.len(), 12);
}

// ---------------------------------------------------------------------------- bad input

#[test]
fn bad_planes_and_portals_are_typed_errors() {
    assert_eq!(
        Plane::new(Vec3::ZERO, 1.0),
        Err(SceneError::DegeneratePlane)
    );
    assert!(matches!(
        Plane::new(Vec3::new(f32::NAN, 0.0, 1.0), 0.0),
        Err(SceneError::NonFinite { .. })
    ));
    let mut s = Scene::new();
    let root = s.root();
    let a = s.add_region(root, "a").unwrap();
    let g = s.add_group(root, "plain").unwrap();
    let tri = vec![Vec3::ZERO, Vec3::X, Vec3::Y];
    let two = vec![Vec3::ZERO, Vec3::X];
    let e = s.add_portal(a, two, a, true).unwrap_err();
    assert!(e.to_string().contains("at least 3"), "{e}");
    let line = vec![Vec3::ZERO, Vec3::X, Vec3::X * 2.0];
    let e = s.add_portal(a, line, a, true).unwrap_err();
    assert!(e.to_string().contains("no area"), "{e}");
    let nan = vec![Vec3::ZERO, Vec3::X, Vec3::new(0.0, f32::NAN, 0.0)];
    assert!(matches!(
        s.add_portal(a, nan, a, true),
        Err(SceneError::NonFinite { .. })
    ));
    let e = s.add_portal(a, tri.clone(), g, true).unwrap_err();
    assert!(
        e.to_string().contains("`plain` is not a convex region"),
        "{e}"
    );
    assert_eq!(s.add_portal(a, tri, a, true), Ok(0));
    assert!(s.set_portal_open(a, 1, false).is_err());
    // A BSP slot holds a child of the node: the parent (a would-be cycle) is refused.
    let bsp = s
        .add_bsp(g, "bsp", Plane::new(Vec3::X, 0.0).unwrap())
        .unwrap();
    assert!(matches!(
        s.set_bsp_child(bsp, BspSide::Positive, Some(g)),
        Err(SceneError::NotAChild { .. })
    ));
    assert!(s.set_bsp_child(g, BspSide::Positive, None).is_err());
    let _ = Mat3::IDENTITY;
}

fn load_text(text: &str) -> Result<Scene, String> {
    let path = Path::new("mem.json");
    let doc = plumb_scene::io::json::parse(path, text).map_err(|e| e.to_string())?;
    plumb_scene::io::json::build(&doc, path, &ImportOptions::default())
        .map(|s| s.scene)
        .map_err(|e| e.to_string())
}

fn level(regions: &str) -> String {
    format!(
        r#"{{ "format": "plumb-scene", "version": 1, "root": {{ "children": [
            {{ "name": "crm", "kind": "region_manager",
               "bsp": {{ "normal": [1, 0, 0], "constant": 0 }},
               "children": [ {regions} ] }} ] }} }}"#
    )
}

#[test]
fn bad_scene_files_name_the_problem() {
    let quad = r#"[[0,0,0],[0,1,0],[0,1,1],[0,0,1]]"#;
    let ok = level(&format!(
        r#"{{ "name": "a", "kind": "region", "portals": [{{ "vertices": {quad}, "to": "b" }}] }},
           {{ "name": "o" }},
           {{ "name": "b", "kind": "region", "portals": [{{ "vertices": {quad}, "to": "a", "open": false }}] }}"#
    ));
    let s = load_text(&ok).unwrap();
    let a = s.find("a").unwrap();
    assert_eq!(s.portals(a).unwrap().len(), 1);
    assert!(!s.portals(s.find("b").unwrap()).unwrap()[0].is_open());
    let cases = [
        (
            level(&format!(
                r#"{{ "name": "a", "kind": "region", "portals": [{{ "vertices": {quad}, "to": "nowhere" }}] }}"#
            )),
            "unknown node 'nowhere'",
        ),
        (
            level(
                r#"{ "name": "a", "kind": "region", "portals": [{ "vertices": [[0,0,0],[1,0,0]], "to": "a" }] }"#,
            ),
            "2 vertices; a portal needs at least 3",
        ),
        (
            level(&format!(
                r#"{{ "name": "a", "kind": "region", "portals": [{{ "vertices": {quad}, "to": "g" }}] }}, {{ "name": "g" }}"#
            )),
            "'g' is not a region",
        ),
        (
            r#"{ "format": "plumb-scene", "version": 1, "root": { "children": [
                { "name": "b", "kind": "bsp", "bsp": { "normal": [0, 0, 0] } } ] } }"#
                .to_owned(),
            "normal is zero",
        ),
        (
            r#"{ "format": "plumb-scene", "version": 1, "root": { "children": [
                { "name": "b", "kind": "bsp" } ] } }"#
                .to_owned(),
            "needs \"bsp\"",
        ),
        (
            r#"{ "format": "plumb-scene", "version": 1, "root": { "children": [
                { "name": "b", "kind": "bsp", "bsp": { "normal": [1, 0, 0], "sides": ["positive", "positive"] },
                  "children": [ { "name": "x" }, { "name": "y" } ] } ] } }"#
                .to_owned(),
            "positive slot is given twice",
        ),
        (
            r#"{ "format": "plumb-scene", "version": 1, "root": { "children": [
                { "name": "g", "portals": [ { "vertices": [[0,0,0],[1,0,0],[0,1,0]], "to": "g" } ] } ] } }"#
                .to_owned(),
            "only \"region\" nodes have \"portals\"",
        ),
    ];
    for (text, want) in cases {
        let e = load_text(&text).unwrap_err();
        assert!(e.contains(want), "expected {want:?} in: {e}");
    }
}

#[test]
fn text_dump_shows_planes_slots_and_portals() {
    let s = load("portals_level.json");
    let dump = s.dump();
    assert!(
        dump.contains("CRM [region manager plane=(0, 0, -1)·X=0 positive=none coplanar=outside negative=BSP:R]"),
        "{}",
        &dump[..dump.len().min(2000)]
    );
    assert!(
        dump.contains(
            "C40 [region portals=[Dpm (4 vertices), Dpp (4 vertices), C20 (4 vertices)]]"
        ) || dump.contains("C40 [region portals=[")
    );
    let s = load("bsp_depth_off.json");
    assert!(s.dump().contains(
        "Bsp3 [bsp plane=(1, 0, 0)·X=-0.75 positive=Torus coplanar=Plane3 negative=Sphere]"
    ));
}
