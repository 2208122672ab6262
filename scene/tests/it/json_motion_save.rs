//! Saving the motion controllers (issue 14, "a scene that saves itself"): `spin`, `motion`,
//! `point_motion` and particle motion — given or random — are written in the format's exact
//! form (`speeds` + `directions`, `angular_speeds` + `angular_axes`, `speed` + `direction`,
//! `angular_speed` + `angular_axis`), so `load → save → load` gives a scene posed the same,
//! bit for bit, at every time; saving twice gives the same text; and bad values of the new
//! keys are typed errors with the file, line and column.

use std::path::{Path, PathBuf};

use plumb_scene::io::json::{save_scene, write_scene};
use plumb_scene::io::{self, ImportOptions, ImportedScene, IoError};
use plumb_scene::particles::MAX_PARTICLES;

fn dir(test: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("json-motion-save-{test}"));
    std::fs::create_dir_all(&d).expect("scratch folder");
    d
}

fn load_text(test: &str, text: &str) -> Result<ImportedScene, IoError> {
    let path = dir(test).join("scene.json");
    std::fs::write(&path, text).expect("written");
    io::load(&path, &ImportOptions::default())
}

/// A scene whose root holds `children` (one per line, from line 5 on).
fn scene_with(children: &[&str]) -> String {
    format!(
        "{{\n  \"format\": \"plumb-scene\",\n  \"version\": 1,\n  \"root\": {{ \"children\": [\n{}\n  ] }}\n}}\n",
        children.join(",\n")
    )
}

/// Everything an update poses and a draw reads, as text that differs when any bit does
/// (`{:?}` prints the shortest decimal that reads back as the same `f32`): per node in
/// pre-order, its name, world matrix and mesh; per particle system its particles.
fn snapshot(loaded: &ImportedScene) -> Vec<String> {
    let scene = &loaded.scene;
    let mut out = Vec::new();
    for id in scene.preorder(scene.root()).expect("root") {
        let name = scene.name(id).expect("name").to_owned();
        let world = scene.world_transform(id).expect("world").matrix();
        out.push(format!("{name}: {:?}", world.to_cols_array()));
        if let Ok(mesh) = scene.mesh(id) {
            out.push(format!(
                "{name} mesh: {:?} {:?} {:?} {:?}",
                mesh.positions(),
                mesh.normals(),
                mesh.colors(),
                mesh.indices()
            ));
        }
        if let Ok(p) = scene.particles(id) {
            out.push(format!("{name} particles: {p:?}"));
        }
    }
    out
}

/// Loads `text`, saves it (twice: the same text), writes and reloads it, checks that saving
/// the reloaded scene gives the first file again and that both scenes are posed the same at
/// each of `times` (camera-facing particle quads included). Returns the saved text and the
/// snapshots of the first scene at each time.
fn round_trip(test: &str, text: &str, times: &[f64]) -> (String, Vec<Vec<String>>) {
    let mut a = load_text(test, text).unwrap_or_else(|e| panic!("{test}: load: {e}"));
    let out = dir(test).join("saved.json");
    let first = save_scene(&a.scene, Some(&a.imported), &out, "saved")
        .unwrap_or_else(|e| panic!("{test}: save: {e}"));
    let second = save_scene(&a.scene, Some(&a.imported), &out, "saved").expect("second save");
    assert_eq!(first.text(), second.text(), "{test}: saving twice differs");
    write_scene(&a.scene, Some(&a.imported), &out).expect("written");
    let mut b =
        io::load(&out, &ImportOptions::default()).unwrap_or_else(|e| panic!("{test}: reload: {e}"));
    let again = save_scene(&b.scene, Some(&b.imported), &out, "saved").expect("resave");
    assert_eq!(
        again.text(),
        first.text(),
        "{test}: the reloaded scene saves to another file"
    );
    let camera = a.default_camera(1.0).expect("camera");
    let mut shots = Vec::new();
    for &t in times {
        a.scene.update(t);
        b.scene.update(t);
        a.scene.face_particles(&camera);
        b.scene.face_particles(&camera);
        let (sa, sb) = (snapshot(&a), snapshot(&b));
        for (x, y) in sa.iter().zip(&sb) {
            assert_eq!(x, y, "{test}: differs after save → load at t = {t}");
        }
        assert_eq!(sa.len(), sb.len(), "{test}: node count at t = {t}");
        shots.push(sa);
    }
    (first.text(), shots)
}

const TIMES: [f64; 3] = [0.0, 0.5, 1.7];

/// Every motion controller kind in one file, convenience keys and edge values (zero
/// velocities and spins, non-unit axes the loader normalizes, phases, frequencies, inactive
/// controllers, bounds, size changes, a subset active): the reloaded scene is posed the same
/// bits at 0, 0.5 and 1.7, and the controllers really move (so the check is not vacuous).
#[test]
fn every_motion_controller_round_trips_exactly() {
    let text = scene_with(&[
        r#"    { "name": "spinner", "transform": { "translation": [1, 2, 3], "rotation": { "axis": [1, 0, 0], "degrees": 20 } }, "mesh": { "box": {} }, "controllers": [{ "spin": { "axis": [1, 2, 0], "degrees_per_second": 37.5 } }] }"#,
        r#"    { "name": "mover", "transform": { "translation": [0, 1, 0], "uniform_scale": 1.5 }, "mesh": { "sphere": {} }, "controllers": [{ "motion": { "velocity": [0.3, -0.4, 1.2], "axis": [1, 1, 1], "degrees_per_second": 33, "phase": 0.25, "frequency": 1.5 } }] }"#,
        r#"    { "name": "still", "mesh": { "box": {} }, "controllers": [{ "motion": {} }] }"#,
        r#"    { "name": "paused", "transform": { "translation": [0, 0, -1] }, "mesh": { "box": {} }, "controllers": [{ "motion": { "velocity": [1, 0, 0], "active": false } }] }"#,
        r#"    { "name": "points", "mesh": { "inline": { "topology": "points", "positions": [[-1, 0, 0], [0, 0, 0], [1, 0, 0]], "normals": [[0, 0, 1], [0, 1, 0], [1, 0, 0]], "colors": [[1, 0, 0, 1], [0, 1, 0, 1], [0, 0, 1, 1]] } }, "controllers": [{ "point_motion": { "velocities": [[0, 0.5, 0.1], [0, 0, 0], [0.3, -0.5, 0]], "spins": [[0, 0, 90], [0, 0, 0], [10, 20, 30]], "phase": 0.1 } }, { "motion": { "axis": [0, 0, 1], "degrees_per_second": 30 } }] }"#,
        r#"    { "name": "frozen_points", "mesh": { "inline": { "topology": "points", "positions": [[0, 1, 0], [0, 2, 0]] } }, "controllers": [{ "point_motion": { "velocities": [[1, 0, 0], [0, 1, 0]], "active": false } }] }"#,
        r#"    { "name": "given", "mesh": { "particles": { "locations": [[0, 0, 0], [0.5, 0.2, 0], [-0.3, 0.1, 0.4], [0.9, 0.9, 0.9]], "sizes": [0.1, 0.2, 0.05, 0.3], "colors": [[1, 0, 0, 1], [0, 1, 0, 1], [0, 0, 1, 1], [1, 1, 1, 0.5]], "size_adjust": 1.25, "active": 3, "motion": { "velocities": [[1, 0, 0], [0, 0, 0], [0.2, 0.7, -0.1], [3, 3, 3]], "size_changes": [0, -0.05, 0.1, 0], "size_adjust_change": 0.2, "bounds": [[-1, -1, -1], [1, 1, 1]], "phase": 0.3, "frequency": 2 } } } }"#,
        r#"    { "name": "cloud", "transform": { "rotation": { "axis": [0, 1, 0], "degrees": 30 } }, "mesh": { "particles": { "random": { "seed": 7, "count": 500, "half_extent": 1.2, "size": [0.04, 0.1], "speed": [-0.3, 0.8], "color_min": [0.6, 0.05, 0.05, 1], "color_max": [1, 0.45, 0.3, 1], "phase": 2.5 }, "size_adjust": 0.75, "active": 400 } } }"#,
        r#"    { "name": "parked", "mesh": { "particles": { "random": { "seed": 3, "count": 20, "moving": false } } } }"#,
    ]);
    let (saved, shots) = round_trip("all", &text, &TIMES);
    // The exact form is what is written (no vector the loader would have to re-normalize).
    for key in [
        "\"speeds\"",
        "\"directions\"",
        "\"angular_speeds\"",
        "\"angular_axes\"",
        "\"angular_speed\"",
        "\"spin\"",
    ] {
        assert!(saved.contains(key), "{key} not written");
    }
    assert!(!saved.contains("\"velocities\""), "velocities written");
    assert!(!saved.contains("\"random\""), "random written");
    // Moving nodes move between the times; paused ones do not.
    let line = |shot: &[String], prefix: &str| {
        shot.iter()
            .find(|l| l.starts_with(prefix))
            .unwrap_or_else(|| panic!("no {prefix}"))
            .clone()
    };
    for moving in [
        "spinner:",
        "mover:",
        "points mesh:",
        "given particles:",
        "cloud particles:",
    ] {
        assert_ne!(
            line(&shots[0], moving),
            line(&shots[1], moving),
            "{moving} does not move"
        );
        assert_ne!(
            line(&shots[1], moving),
            line(&shots[2], moving),
            "{moving} does not move"
        );
    }
    for still in [
        "still:",
        "paused:",
        "frozen_points mesh:",
        "parked particles:",
    ] {
        assert_eq!(line(&shots[0], still), line(&shots[2], still), "{still}");
    }
}

/// A zero velocity loads as speed 0 along +x (it does not move) and is written as such; a
/// zero spin the same for normals.
#[test]
fn zero_velocities_are_speed_zero_along_x() {
    let text = scene_with(&[
        r#"    { "name": "p", "mesh": { "particles": { "locations": [[0, 0, 0]], "sizes": [0.1], "motion": { "velocities": [[0, 0, 0]] } } } }"#,
        r#"    { "name": "m", "mesh": { "box": {} }, "controllers": [{ "motion": { "velocity": [0, 0, 0] } }] }"#,
    ]);
    let (saved, shots) = round_trip("zero", &text, &TIMES);
    let compact: String = saved.chars().filter(|c| !c.is_whitespace()).collect();
    assert!(
        compact.contains("\"speeds\":[0.0],\"directions\":[[1.0,0.0,0.0]]"),
        "{saved}"
    );
    assert!(
        compact.contains("\"speed\":0.0,\"direction\":[1.0,0.0,0.0]"),
        "{saved}"
    );
    assert_eq!(shots[0], shots[2], "a zero velocity moved");
}

/// A large random system (within the limits) round-trips particle by particle.
#[test]
fn a_large_random_system_round_trips() {
    let text = scene_with(&[
        r#"    { "name": "many", "mesh": { "particles": { "random": { "seed": 99, "count": 40000, "half_extent": 2, "speed": [0, 2], "phase": 0.7 } } } }"#,
    ]);
    let (saved, shots) = round_trip("large", &text, &[0.0, 1.7]);
    assert!(saved.len() > 40_000 * 20, "{} bytes", saved.len());
    assert_ne!(shots[0], shots[1]);
}

/// The explicit form loads what it says, bit for bit: a direction of unit length is kept as
/// given (not normalized again), and angular speeds are radians.
#[test]
fn explicit_form_keeps_values() {
    // 0.6² + 0.8² rounds to 1 within the tolerance but dividing by its f32 length would
    // change the last bits of some other unit vectors; here a vector one ulp off unit.
    let x = f32::from_bits(1.0f32.to_bits() - 1);
    let text = scene_with(&[&format!(
        r#"    {{ "name": "p", "mesh": {{ "particles": {{ "locations": [[0, 0, 0]], "sizes": [0.1], "motion": {{ "speeds": [-2.5], "directions": [[{x:?}, 0, 0]] }} }} }} }}"#
    )]);
    let mut a = load_text("explicit", &text).expect("loads");
    a.scene.update(1.0);
    let id = a.scene.find("p").expect("p");
    let loc = a.scene.particles(id).expect("particles").locations()[0];
    // −2.5 · x along x, where x is kept exactly (normalizing would give 1.0 and −2.5).
    assert_eq!(loc.x.to_bits(), (-2.5f32 * x).to_bits(), "{loc}");
    let (saved, _) = round_trip("explicit_rt", &text, &TIMES);
    assert!(saved.contains(&format!("{x:?}")), "{saved}");
}

/// Bad values of the new keys: an invalid-file or scene error naming the problem, at the
/// node's line (5) and a column; numbers that are not finite f32 are parse errors there.
#[test]
fn bad_values_of_the_new_keys_are_typed_errors() {
    let particles = |motion: &str| {
        format!(
            r#"    {{ "name": "p", "mesh": {{ "particles": {{ "locations": [[0, 0, 0], [1, 0, 0]], "sizes": [1, 1], "motion": {motion} }} }} }}"#
        )
    };
    let points = |motion: &str| {
        format!(
            r#"    {{ "name": "q", "mesh": {{ "inline": {{ "topology": "points", "positions": [[0, 0, 0], [1, 0, 0]] }} }}, "controllers": [{{ "point_motion": {motion} }}] }}"#
        )
    };
    let system = |motion: &str| {
        format!(r#"    {{ "name": "s", "controllers": [{{ "motion": {motion} }}] }}"#)
    };
    let cases: Vec<(&str, String, &str)> = vec![
        (
            "speeds_len",
            particles(r#"{ "speeds": [1], "directions": [[1, 0, 0], [1, 0, 0]] }"#),
            "1 \"speeds\" entries for 2 particles",
        ),
        (
            "directions_len",
            particles(r#"{ "speeds": [1, 1], "directions": [[1, 0, 0]] }"#),
            "1 \"directions\" entries for 2 particles",
        ),
        (
            "speeds_alone",
            particles(r#"{ "speeds": [1, 1] }"#),
            "\"speeds\" and \"directions\" go together",
        ),
        (
            "both_forms",
            particles(
                r#"{ "velocities": [[1, 0, 0], [1, 0, 0]], "speeds": [1, 1], "directions": [[1, 0, 0], [1, 0, 0]] }"#,
            ),
            "not both",
        ),
        (
            "zero_direction",
            particles(r#"{ "speeds": [1, 1], "directions": [[1, 0, 0], [0, 0, 0]] }"#),
            "particle linear axis",
        ),
        (
            "long_direction",
            particles(r#"{ "speeds": [1, 1], "directions": [[1, 0, 0], [2, 0, 0]] }"#),
            "not of unit length",
        ),
        (
            "no_velocities",
            particles(r#"{ "size_changes": [0, 0] }"#),
            "0 velocities for 2 particles",
        ),
        (
            "angular_len",
            points(
                r#"{ "speeds": [0, 0], "directions": [[1, 0, 0], [1, 0, 0]], "angular_speeds": [1], "angular_axes": [[0, 1, 0]] }"#,
            ),
            "1 \"angular_speeds\" entries for 2 vertices",
        ),
        (
            "zero_angular_axis",
            points(
                r#"{ "velocities": [[0, 0, 0], [0, 0, 0]], "angular_speeds": [1, 1], "angular_axes": [[0, 1, 0], [0, 0, 0]] }"#,
            ),
            "point angular axis",
        ),
        (
            "spins_and_angular",
            points(
                r#"{ "velocities": [[0, 0, 0], [0, 0, 0]], "spins": [[0, 0, 1], [0, 0, 1]], "angular_speeds": [1, 1], "angular_axes": [[0, 1, 0], [0, 1, 0]] }"#,
            ),
            "not both",
        ),
        (
            "point_directions_alone",
            points(r#"{ "directions": [[1, 0, 0], [1, 0, 0]] }"#),
            "go together",
        ),
        (
            "speed_alone",
            system(r#"{ "speed": 1 }"#),
            "\"speed\" and \"direction\" go together",
        ),
        (
            "velocity_and_speed",
            system(r#"{ "velocity": [1, 0, 0], "speed": 1, "direction": [1, 0, 0] }"#),
            "not both",
        ),
        (
            "degrees_and_radians",
            system(
                r#"{ "degrees_per_second": 10, "angular_speed": 1, "angular_axis": [0, 1, 0] }"#,
            ),
            "not both",
        ),
        (
            "angular_axis_alone",
            system(r#"{ "angular_axis": [0, 1, 0] }"#),
            "\"angular_speed\" and \"angular_axis\" go together",
        ),
        (
            "zero_system_direction",
            system(r#"{ "speed": 1, "direction": [0, 0, 0] }"#),
            "system linear axis",
        ),
        (
            "short_angular_axis",
            system(r#"{ "angular_speed": 1, "angular_axis": [0, 0.5, 0] }"#),
            "not of unit length",
        ),
        // What zero axes did before the exact form, unchanged: errors.
        (
            "zero_motion_axis",
            system(r#"{ "axis": [0, 0, 0], "degrees_per_second": 10 }"#),
            "system angular axis",
        ),
        (
            "zero_spin_axis",
            r#"    { "name": "s", "controllers": [{ "spin": { "axis": [0, 0, 0] } }] }"#.to_owned(),
            "zero",
        ),
    ];
    for (name, node, needle) in &cases {
        let text = scene_with(&[node.as_str()]);
        match load_text(name, &text) {
            Ok(_) => panic!("{name}: loaded"),
            Err(e @ (IoError::Invalid { .. } | IoError::Scene { .. })) => {
                let msg = e.to_string();
                assert!(msg.contains(needle), "{name}: {msg}");
                assert!(
                    msg.contains("scene.json:5:") || msg.contains("(at 5:"),
                    "{name}: no line and column: {msg}"
                );
                assert_eq!(msg.lines().count(), 1, "{name}: {msg}");
            }
            Err(e) => panic!("{name}: {e:?}"),
        }
    }
    for (name, node) in [
        (
            "nan_speed",
            particles(r#"{ "speeds": [NaN, 1], "directions": [[1, 0, 0], [1, 0, 0]] }"#),
        ),
        (
            "huge_speed",
            particles(r#"{ "speeds": [1e39, 1], "directions": [[1, 0, 0], [1, 0, 0]] }"#),
        ),
        (
            "inf_direction",
            system(r#"{ "speed": 1, "direction": [1e400, 0, 0] }"#),
        ),
        (
            "string_angular",
            system(r#"{ "angular_speed": "inf", "angular_axis": [0, 1, 0] }"#),
        ),
    ] {
        match load_text(name, &scene_with(&[&node])) {
            Err(IoError::Parse { location, .. }) => {
                assert!(
                    location
                        .as_ref()
                        .is_some_and(|l| l.line == 5 && l.column.is_some()),
                    "{name}: {location:?}"
                )
            }
            other => panic!("{name}: {:?}", other.err()),
        }
    }
    // The particle count limit holds for random systems (explicit systems are bounded by
    // their locations, checked against the same limit).
    let over = format!(
        r#"    {{ "name": "p", "mesh": {{ "particles": {{ "random": {{ "count": {} }} }} }} }}"#,
        MAX_PARTICLES + 1
    );
    let Err(e) = load_text("over", &scene_with(&[&over])) else {
        panic!("{} particles loaded", MAX_PARTICLES + 1);
    };
    assert!(e.to_string().contains("scene.json:5:"), "{e}");
}

/// A transform controller written as code still cannot be saved: refused with the reason,
/// never dropped.
#[test]
fn closures_are_still_refused() {
    let mut a = load_text(
        "closure",
        &scene_with(&[r#"    { "name": "n", "mesh": { "box": {} } }"#]),
    )
    .expect("loads");
    let id = a.scene.find("n").expect("n");
    a.scene
        .add_controller(id, Box::new(|_: f64, l: &plumb_scene::Transform| Some(*l)))
        .expect("added");
    let Err(e) = save_scene(&a.scene, None, &dir("closure").join("s.json"), "s") else {
        panic!("a closure controller was saved");
    };
    assert!(matches!(e, IoError::Unsupported { .. }), "{e:?}");
    assert!(e.to_string().contains("closures"), "{e}");
}
