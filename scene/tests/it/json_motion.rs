//! Particles and IK in scene files: valid files load and run, bad input is a typed error
//! with the file, line and column, never a panic.

use std::path::PathBuf;

use glam::Vec3;
use plumb_scene::io::{self, ImportOptions, IoError, Location};
use plumb_scene::particles::MAX_PARTICLES;

fn write(test: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("plumb-motion-{}-{test}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("scene.json");
    std::fs::write(&path, text).unwrap();
    path
}

fn load(test: &str, text: &str) -> Result<io::ImportedScene, IoError> {
    io::load(&write(test, text), &ImportOptions::default())
}

fn scene_with(node: &str) -> String {
    format!(
        "{{\n  \"format\": \"plumb-scene\",\n  \"version\": 1,\n  \"root\": {{ \"children\": [\n{node}\n  ] }}\n}}\n"
    )
}

fn particles_node(body: &str) -> String {
    scene_with(&format!(
        "    {{ \"name\": \"p\", \"mesh\": {{ \"particles\": {body} }} }}"
    ))
}

/// Line 5 is the node line of `scene_with`.
fn at_line_5(location: &Option<Location>) -> bool {
    location
        .as_ref()
        .is_some_and(|l| l.line == 5 && l.column.is_some())
}

#[test]
fn explicit_particles_load_with_active_count() {
    let text = particles_node(
        "{ \"locations\": [[0, 0, 0], [1, 0, 0], [2, 0, 0]], \"sizes\": [0.1, 0.2, 0.3], \"active\": 2, \"size_adjust\": 2 }",
    );
    let mut loaded = load("explicit", &text).unwrap();
    let scene = &mut loaded.scene;
    let id = scene.find("p").unwrap();
    let p = scene.particles(id).unwrap();
    assert_eq!((p.len(), p.active(), p.size_adjust()), (3, 2, 2.0));
    // Two quads; corner V1 of particle 1 = (1, 0, 0) + 2·0.2·(U + R) = (1.4, 0.4, 0).
    let mesh = scene.mesh(id).unwrap();
    assert_eq!(mesh.positions().len(), 8);
    assert!((mesh.positions()[5] - Vec3::new(1.4, 0.4, 0.0)).length() < 1e-6);
}

#[test]
fn non_finite_and_negative_numbers_are_parse_errors_with_a_position() {
    for (name, body) in [
        ("nan", "{ \"locations\": [[NaN, 0, 0]], \"sizes\": [1] }"),
        (
            "nan_string",
            "{ \"locations\": [[\"NaN\", 0, 0]], \"sizes\": [1] }",
        ),
        (
            "huge_number",
            "{ \"locations\": [[1e39, 0, 0]], \"sizes\": [1] }",
        ),
        ("negative_count", "{ \"random\": { \"count\": -5 } }"),
        (
            "negative_active",
            "{ \"locations\": [[0, 0, 0]], \"sizes\": [1], \"active\": -1 }",
        ),
    ] {
        match load(name, &particles_node(body)) {
            Err(IoError::Parse { location, .. }) => {
                assert!(at_line_5(&location), "{name}: {location:?}")
            }
            other => panic!("{name}: {:?}", other.err()),
        }
    }
}

#[test]
fn bad_particle_values_are_invalid_with_a_position() {
    let huge = format!("{{ \"random\": {{ \"count\": {} }} }}", MAX_PARTICLES + 1);
    for (name, body) in [
        ("too_many", huge.as_str()),
        (
            "negative_size",
            "{ \"locations\": [[0, 0, 0]], \"sizes\": [-1] }",
        ),
        ("sizes_missing", "{ \"locations\": [[0, 0, 0]] }"),
        (
            "active_past_count",
            "{ \"locations\": [[0, 0, 0]], \"sizes\": [1], \"active\": 2 }",
        ),
        (
            "both",
            "{ \"locations\": [[0, 0, 0]], \"sizes\": [1], \"random\": {} }",
        ),
    ] {
        let e = load(name, &particles_node(body)).err();
        let location = match &e {
            Some(IoError::Invalid { location, .. }) => *location,
            Some(IoError::Scene { context, .. }) => {
                assert!(context.contains("(at 5:"), "{name}: {context}");
                continue;
            }
            other => panic!("{name}: {other:?}"),
        };
        assert!(at_line_5(&location), "{name}: {location:?}");
    }
}

const IK_NODE: &str = r#"    { "name": "goal", "transform": { "translation": [1, 1, 0] } },
    { "name": "slider", "controllers": [ { "ik": {
        "joints": [
          { "node": "slider", "translate": [{ "axis": 0, "min": -2, "max": 2 }] },
          { "node": "JOINT", "rotate": [{ "axis": 2, "min": -90, "max": 90 }] }
        ],
        "goals": [{ "target": "goal", "effector": "tip" }] } } ],
      "children": [ { "name": "pivot", "children": [
        { "name": "tip", "transform": { "translation": [1.5, 0, 0] } } ] } ] }"#;

#[test]
fn ik_in_a_scene_file_reaches_its_goal() {
    let mut loaded = load("ik", &scene_with(&IK_NODE.replace("JOINT", "pivot"))).unwrap();
    let scene = &mut loaded.scene;
    let tip = scene.find("tip").unwrap();
    let p = scene.world_transform(tip).unwrap().translation();
    assert!((p - Vec3::new(1.0, 1.0, 0.0)).length() < 1e-4, "{p}");
    assert_eq!(scene.ik_controller_count(), 1);
}

#[test]
fn unknown_joint_names_are_invalid_with_a_position() {
    let e = load("ik_unknown", &scene_with(&IK_NODE.replace("JOINT", "nope"))).err();
    match e {
        Some(IoError::Invalid {
            location, message, ..
        }) => {
            assert!(message.contains("'nope'"), "{message}");
            // The controller object starts on line 6 of the file.
            assert_eq!(location.map(|l| l.line), Some(6));
        }
        other => panic!("{other:?}"),
    }
    // The goal named as a joint breaks the chain: a scene error naming the controller.
    let e = load("ik_chain", &scene_with(&IK_NODE.replace("JOINT", "goal"))).err();
    assert!(matches!(e, Some(IoError::Scene { .. })), "{e:?}");
}

/// `docs/examples/particles_ik.json`: `sparks` draws 2 of its 3 particles; the IK chain puts
/// `tip` on `goal` at (1, 1, 0), with the slider at x = 1 − √5/2.
#[test]
fn documented_example_loads_and_solves() {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/examples/particles_ik.json");
    let loaded = io::load(&path, &ImportOptions::default()).unwrap();
    let scene = &loaded.scene;
    let sparks = scene.find("sparks").unwrap();
    assert_eq!(scene.mesh(sparks).unwrap().positions().len(), 8);
    let cells = scene.find("cells").unwrap();
    assert_eq!(scene.particles(cells).unwrap().len(), 300);
    let tip = scene.world_transform(scene.find("tip").unwrap()).unwrap();
    assert!((tip.translation() - Vec3::new(1.0, 1.0, 0.0)).length() < 1e-4);
    let slider = scene
        .local_transform(scene.find("slider").unwrap())
        .unwrap();
    assert!((slider.translation().x - (1.0 - 5f32.sqrt() / 2.0)).abs() < 1e-3);
}

/// `docs/examples/particles_ik.json`, `drift`: two particles with point motion shown at
/// `t꜀ = 3` (phase). Particle 0 starts at the origin moving 0.5/s along x inside the box
/// x ∈ [−1, 1]: it has gone 1.5, hit the wall at x = 1 after 1 and come back 0.5, so x = 0.5.
/// Particle 1 does not move and shrinks 0.05/s from 0.2: 0.2 − 0.15 = 0.05. At t = 2
/// (`t꜀ = 5`): particle 0 has gone 2.5 → wall at 1, back 1.5 → x = −0.5; particle 1's size
/// would be −0.05 and stops at 0.
#[test]
fn documented_particle_point_motion() {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/examples/particles_ik.json");
    let mut loaded = io::load(&path, &ImportOptions::default()).unwrap();
    let scene = &mut loaded.scene;
    let drift = scene.find("drift").unwrap();
    let p = scene.particles(drift).unwrap();
    assert!((p.locations()[0] - Vec3::new(0.5, 0.0, 0.0)).length() < 1e-6);
    assert_eq!(p.locations()[1], Vec3::new(0.0, 1.0, 0.0));
    assert!((p.sizes()[1] - 0.05).abs() < 1e-6, "{:?}", p.sizes());
    scene.update(2.0);
    let p = scene.particles(drift).unwrap();
    assert!((p.locations()[0] - Vec3::new(-0.5, 0.0, 0.0)).length() < 1e-6);
    assert_eq!(p.sizes()[1], 0.0);
    assert_eq!(p.sizes()[0], 0.1);
}

#[test]
fn bad_particle_motion_is_invalid_with_a_position() {
    for (name, body, needle) in [
        (
            "velocity_count",
            "{ \"locations\": [[0, 0, 0], [1, 0, 0]], \"sizes\": [1, 1], \"motion\": { \"velocities\": [[1, 0, 0]] } }",
            "1 velocities for 2 particles",
        ),
        (
            "size_change_count",
            "{ \"locations\": [[0, 0, 0]], \"sizes\": [1], \"motion\": { \"velocities\": [[1, 0, 0]], \"size_changes\": [1, 2] } }",
            "2 size changes",
        ),
        (
            "random_with_motion",
            "{ \"random\": {}, \"motion\": { \"velocities\": [] } }",
            "\"motion\" is for \"locations\"",
        ),
        (
            "huge_velocity",
            "{ \"locations\": [[0, 0, 0]], \"sizes\": [1], \"motion\": { \"velocities\": [[3e38, 3e38, 0]] } }",
            "too large",
        ),
    ] {
        match load(name, &particles_node(body)) {
            Err(IoError::Invalid {
                location, message, ..
            }) => {
                assert!(message.contains(needle), "{name}: {message}");
                assert!(at_line_5(&location), "{name}: {location:?}");
            }
            other => panic!("{name}: {:?}", other.err()),
        }
    }
    // A box with max below min is the scene graph's error, at the node's position.
    let e = load(
        "inverted_box",
        &particles_node(
            "{ \"locations\": [[0, 0, 0]], \"sizes\": [1], \"motion\": { \"velocities\": [[1, 0, 0]], \"bounds\": [[1, 1, 1], [0, 0, 0]] } }",
        ),
    )
    .err();
    assert!(
        matches!(&e, Some(IoError::Scene { context, .. }) if context.contains("(at 5:")),
        "{e:?}"
    );
}

/// `docs/examples/particles_ik.json`, `drift`'s `motion` controller: velocity (0, 0.25, 0) and
/// 45°/s about z from `t꜀ = 2` (phase): at load it is at (−3, 0.5, 0) turned 90° (x ↦ y); at
/// t = 2 (`t꜀ = 4`) at (−3, 1, 0) turned 180° (x ↦ −x).
#[test]
fn documented_system_motion() {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/examples/particles_ik.json");
    let mut loaded = io::load(&path, &ImportOptions::default()).unwrap();
    let scene = &mut loaded.scene;
    let drift = scene.find("drift").unwrap();
    let w = *scene.world_transform(drift).unwrap();
    assert!((w.translation() - Vec3::new(-3.0, 0.5, 0.0)).length() < 1e-6);
    assert!((w.apply_vector(Vec3::X) - Vec3::Y).length() < 1e-6);
    scene.update(2.0);
    let w = *scene.world_transform(drift).unwrap();
    assert!((w.translation() - Vec3::new(-3.0, 1.0, 0.0)).length() < 1e-6);
    assert!((w.apply_vector(Vec3::X) + Vec3::X).length() < 1e-6);
}

fn points_node(controllers: &str) -> String {
    scene_with(&format!(
        "    {{ \"name\": \"stars\", \"controllers\": {controllers},\n      \"mesh\": {{ \"inline\": {{ \"topology\": \"points\", \"positions\": [[0, 0, 0], [1, 0, 0]], \"normals\": [[0, 0, 1], [0, 0, 1]] }} }} }}"
    ))
}

/// `point_motion` (Eberly's `PointController`) on a points mesh: vertex i at
/// `rest_i + velocity_i·t꜀`, normals turned by `|spin|·t꜀` degrees about the spin axis, with
/// `t꜀ = f·t + p`.
#[test]
fn point_motion_moves_each_vertex() {
    let mut s = load(
        "point-motion",
        &points_node(
            "[{ \"point_motion\": { \"velocities\": [[0, 1, 0], [0, 0, -2]], \"spins\": [[0, 90, 0], [0, 0, 0]], \"frequency\": 2, \"phase\": 0.5 } }]",
        ),
    )
    .unwrap();
    let stars = s.scene.find("stars").unwrap();
    // t = 0.25: t꜀ = 2·0.25 + 0.5 = 1.
    s.scene.update(0.25);
    let m = s.scene.mesh(stars).unwrap();
    assert_eq!(
        m.positions(),
        &[Vec3::new(0.0, 1.0, 0.0), Vec3::new(1.0, 0.0, -2.0)]
    );
    // Normal 0 turned 90° about +y: +z → +x. Normal 1 does not turn.
    let n = m.normals().unwrap();
    assert!((n[0] - Vec3::X).length() < 1e-6, "{}", n[0]);
    assert_eq!(n[1], Vec3::Z);
    // t = 1: t꜀ = 2.5.
    s.scene.update(1.0);
    let m = s.scene.mesh(stars).unwrap();
    assert_eq!(
        m.positions(),
        &[Vec3::new(0.0, 2.5, 0.0), Vec3::new(1.0, 0.0, -5.0)]
    );
}

#[test]
fn bad_point_motion_is_invalid_with_a_position() {
    for (controllers, needle) in [
        (
            "[{ \"point_motion\": { \"velocities\": [[0, 1, 0]] } }]",
            "1 velocities for 2 vertices",
        ),
        (
            "[{ \"point_motion\": { \"velocities\": [[0, 1, 0], [0, 1, 0]], \"spins\": [] } }]",
            "0 spins for 2 vertices",
        ),
        (
            "[{ \"point_motion\": { \"velocities\": [[0, 1, 0], [0, 1, 0]] } }, { \"point_motion\": { \"velocities\": [[0, 1, 0], [0, 1, 0]] } }]",
            "has one",
        ),
        (
            "[{ \"point_motion\": { \"velocities\": [[3e38, 3e38, 0], [0, 1, 0]] } }]",
            "too large",
        ),
    ] {
        let e = match load("point-motion-bad", &points_node(controllers)) {
            Err(e) => e,
            Ok(_) => panic!("{controllers} loaded"),
        };
        assert!(e.to_string().contains(needle), "{controllers}: {e}");
        assert!(e.to_string().contains(":5:"), "{controllers}: {e}");
    }
    // On a group: not a geometry node.
    let text = scene_with(
        "    { \"name\": \"g\", \"controllers\": [{ \"point_motion\": { \"velocities\": [] } }] }",
    );
    assert!(load("point-motion-group", &text).is_err());
}
