//! Skin controllers in scene files (book-advanced §1.16): the documented example skins to
//! hand-derived positions, bind-pose offsets reproduce the file's placement, and bad input is
//! a typed error with the file, line and column, never a panic.

use std::path::{Path, PathBuf};

use glam::Vec3;
use plumb_scene::io::{self, ImportOptions, IoError};

fn close(a: Vec3, b: Vec3, tol: f32) -> bool {
    (a - b).abs().max_element() <= tol
}

fn write(test: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("plumb-skin-{}-{test}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("scene.json");
    std::fs::write(&path, text).unwrap();
    path
}

fn load(test: &str, text: &str) -> Result<io::ImportedScene, IoError> {
    io::load(&write(test, text), &ImportOptions::default())
}

fn example() -> io::ImportedScene {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/examples/skin.json");
    io::load(&path, &ImportOptions::default()).unwrap()
}

/// `fig_4_42`: the book's two bones and five vertices with explicit offsets. `bone1` is at
/// (2, 0, 0) turned 90° about +z, so `W₁(x, y, z) = (2 − y, x, z)`; `bone0` is the identity.
/// V0 = (0,1,0), V1 = (1,1,0), V2 = ½(2,1,0) + ½W₁(0,1,0) = ½(2,1,0) + ½(1,0,0) = (1.5,0.5,0),
/// V3 = W₁(1,1,0) = (1,1,0), V4 = W₁(2,1,0) = (1,2,0); the node's own translation (10,0,0)
/// does not move them (the skin's world is the identity).
#[test]
fn example_fig_4_42_skins_to_the_hand_values() {
    let loaded = example();
    let scene = &loaded.scene;
    let skin = scene.find("fig_4_42").unwrap();
    let want = [
        Vec3::new(0.0, 1.0, 0.0),
        Vec3::new(1.0, 1.0, 0.0),
        Vec3::new(1.5, 0.5, 0.0),
        Vec3::new(1.0, 1.0, 0.0),
        Vec3::new(1.0, 2.0, 0.0),
    ];
    let got = scene.mesh(skin).unwrap().positions();
    assert_eq!(got.len(), 5);
    for (g, w) in got.iter().zip(&want) {
        assert!(close(*g, *w, 1e-6), "{got:?}");
    }
    assert!(scene.world_transform(skin).unwrap().is_identity());
}

/// `arm`: a strip from x = 0 to 2, y = ±0.2, placed at height 3 by its own transform; offsets
/// from the bind pose (shoulder at (0,3,0), elbow at (1,3,0)). At t = 0 it lies where the file
/// put it. At t = 1 the elbow has turned 90° about +z: the corner (2, 3.2), 1 right of the
/// elbow and 0.2 above, goes to the elbow + (−0.2, 1) = (0.8, 4); the corner (2, 2.8) to
/// (1.2, 4); the middle top (1, 3.2), half on each bone, to ½(1, 3.2) + ½(1 − 0.2, 3) =
/// (0.9, 3.1); the left end stays.
#[test]
fn example_arm_follows_its_keyframed_elbow() {
    let mut loaded = example();
    let scene = &mut loaded.scene;
    let arm = scene.find("arm").unwrap();
    let bind = [
        Vec3::new(0.0, 2.8, 0.0),
        Vec3::new(0.0, 3.2, 0.0),
        Vec3::new(1.0, 2.8, 0.0),
        Vec3::new(1.0, 3.2, 0.0),
        Vec3::new(2.0, 2.8, 0.0),
        Vec3::new(2.0, 3.2, 0.0),
    ];
    let got = scene.mesh(arm).unwrap().positions().to_vec();
    for (g, w) in got.iter().zip(&bind) {
        assert!(close(*g, *w, 1e-6), "t = 0: {got:?}");
    }
    scene.update(1.0);
    let posed = [
        Vec3::new(0.0, 2.8, 0.0),
        Vec3::new(0.0, 3.2, 0.0),
        Vec3::new(1.1, 2.9, 0.0),
        Vec3::new(0.9, 3.1, 0.0),
        Vec3::new(1.2, 4.0, 0.0),
        Vec3::new(0.8, 4.0, 0.0),
    ];
    let got = scene.mesh(arm).unwrap().positions().to_vec();
    for (g, w) in got.iter().zip(&posed) {
        assert!(close(*g, *w, 1e-5), "t = 1: {got:?}");
    }
    // The world bound follows the posed strip: it reaches y = 4 now.
    let b = scene.world_bound(arm).unwrap();
    assert!(b.contains_point(Vec3::new(0.8, 4.0, 0.0), 1e-5), "{b:?}");
}

/// Bind-pose offsets with normals, scale and rotation on both the skin and the bone: at the
/// bind pose the skinned mesh equals the mesh under the skin node's transform, normals
/// included; with the bone turned 180° about y, x and z flip about the bone.
#[test]
fn bind_pose_offsets_reproduce_the_file_placement() {
    let text = r#"{
  "format": "plumb-scene",
  "version": 1,
  "root": { "children": [
    { "name": "s", "transform": { "translation": [1, 2, 3], "scale": [2, 2, 2] },
      "mesh": { "inline": { "positions": [[0, 0, 0], [1, 0, 0], [0, 1, 0]],
                            "normals": [[0, 0, 1], [0, 0, 1], [0, 0, 1]] } },
      "controllers": [ { "skin": { "bones": ["b"], "weights": [[1], [1], [1]] } } ] },
    { "name": "b", "transform": { "translation": [1, 0, 0], "rotation": { "axis": [0, 0, 1], "degrees": 90 } },
      "controllers": [ { "keyframes": { "times": [0, 1],
        "rotations": [[0, 0, 0.70710678, 0.70710678], [0, 0, 0.70710678, 0.70710678]] } } ] }
  ] }
}"#;
    let loaded = load("bind", text).unwrap();
    let scene = &loaded.scene;
    let s = scene.find("s").unwrap();
    let mesh = scene.mesh(s).unwrap();
    // (1,2,3) + 2·X: (1,2,3), (3,2,3), (1,4,3); normals stay +z.
    let want = [
        Vec3::new(1.0, 2.0, 3.0),
        Vec3::new(3.0, 2.0, 3.0),
        Vec3::new(1.0, 4.0, 3.0),
    ];
    for (g, w) in mesh.positions().iter().zip(&want) {
        assert!(close(*g, *w, 1e-5), "{:?}", mesh.positions());
    }
    for n in mesh.normals().unwrap() {
        assert!(close(*n, Vec3::Z, 1e-5), "{n}");
    }
}

#[test]
fn bind_pose_normals_turn_with_the_bone() {
    let text = r#"{
  "format": "plumb-scene",
  "version": 1,
  "root": { "children": [
    { "name": "s",
      "mesh": { "inline": { "positions": [[0, 0, 1], [1, 0, 1], [0, 1, 1]],
                            "normals": [[0, 0, 1], [0, 0, 1], [0, 0, 1]] } },
      "controllers": [ { "skin": { "bones": ["b"], "weights": [[1], [1], [1]] } } ] },
    { "name": "b",
      "controllers": [ { "keyframes": { "times": [0, 1], "rotations": [[0, 0, 0, 1], [0, 1, 0, 0]] } } ] }
  ] }
}"#;
    let mut loaded = load("turn", text).unwrap();
    let scene = &mut loaded.scene;
    scene.update(1.0);
    let s = scene.find("s").unwrap();
    let mesh = scene.mesh(s).unwrap();
    // 180° about y: (x, y, z) ↦ (−x, y, −z); normals +z ↦ −z (skinned, not regenerated:
    // the regenerated normal of the turned triangle would be −z too, so check positions).
    let want = [
        Vec3::new(0.0, 0.0, -1.0),
        Vec3::new(-1.0, 0.0, -1.0),
        Vec3::new(0.0, 1.0, -1.0),
    ];
    for (g, w) in mesh.positions().iter().zip(&want) {
        assert!(close(*g, *w, 1e-5), "{:?}", mesh.positions());
    }
    for n in mesh.normals().unwrap() {
        assert!(close(*n, -Vec3::Z, 1e-5), "{n}");
    }
}

/// A skin node named `s` on line 5 with the given controller body, bones `a` and `b`.
fn skin_file(skin: &str) -> String {
    format!(
        r#"{{
  "format": "plumb-scene",
  "version": 1,
  "root": {{ "children": [
    {{ "name": "s", "mesh": {{ "inline": {{ "positions": [[0, 0, 0], [1, 0, 0], [0, 1, 0]] }} }},
      "controllers": [
        {{ "skin": {skin} }}
      ] }},
    {{ "name": "a" }},
    {{ "name": "b" }},
    {{ "name": "dup" }},
    {{ "name": "dup" }}
  ] }}
}}"#
    )
}

#[test]
fn bad_skins_are_invalid_with_the_controllers_position() {
    for (name, body, needle) in [
        (
            "unknown_bone",
            r#"{ "bones": ["a", "nope"], "weights": [[1, 0], [1, 0], [1, 0]] }"#,
            "'nope'",
        ),
        (
            "ambiguous_bone",
            r#"{ "bones": ["dup"], "weights": [[1], [1], [1]] }"#,
            "'dup'",
        ),
        (
            "bone_twice",
            r#"{ "bones": ["a", "a"], "weights": [[1, 0], [1, 0], [1, 0]] }"#,
            "twice",
        ),
        (
            "own_bone",
            r#"{ "bones": ["s"], "weights": [[1], [1], [1]] }"#,
            "own bone",
        ),
        (
            "no_bones",
            r#"{ "bones": [], "weights": [[], [], []] }"#,
            "no bone",
        ),
        (
            "too_few_rows",
            r#"{ "bones": ["a"], "weights": [[1], [1]] }"#,
            "2 rows of weights",
        ),
        (
            "short_row",
            r#"{ "bones": ["a", "b"], "weights": [[1, 0], [1], [1, 0]] }"#,
            "vertex 1 has 1 weights",
        ),
        (
            "negative_weight",
            r#"{ "bones": ["a", "b"], "weights": [[1, 0], [1.5, -0.5], [1, 0]] }"#,
            "outside 0..=1",
        ),
        (
            "weight_above_one",
            r#"{ "bones": ["a"], "weights": [[1], [2], [1]] }"#,
            "outside 0..=1",
        ),
        (
            "sum_not_one",
            r#"{ "bones": ["a", "b"], "weights": [[1, 0], [0.5, 0.4], [1, 0]] }"#,
            "sum to",
        ),
        (
            "offset_rows",
            r#"{ "bones": ["a"], "weights": [[1], [1], [1]], "offsets": [[[0, 0, 0]]] }"#,
            "1 rows of offsets",
        ),
        (
            "offset_row_length",
            r#"{ "bones": ["a"], "weights": [[1], [1], [1]], "offsets": [[[0, 0, 0]], [], [[0, 0, 0]]] }"#,
            "vertex 1 has 0 offsets",
        ),
    ] {
        match load(name, &skin_file(body)) {
            Err(IoError::Invalid {
                location, message, ..
            }) => {
                assert!(message.contains(needle), "{name}: {message}");
                // The controller object starts on line 7.
                assert_eq!(location.map(|l| l.line), Some(7), "{name}");
            }
            other => panic!("{name}: {:?}", other.err()),
        }
    }
}

#[test]
fn non_finite_skin_numbers_are_parse_errors_at_their_position() {
    for (name, body) in [
        ("nan", r#"{ "bones": ["a"], "weights": [[1], [NaN], [1]] }"#),
        (
            "nan_string",
            r#"{ "bones": ["a"], "weights": [[1], ["NaN"], [1]] }"#,
        ),
        (
            "huge_offset",
            r#"{ "bones": ["a"], "weights": [[1], [1], [1]], "offsets": [[[1e39, 0, 0]], [[0, 0, 0]], [[0, 0, 0]]] }"#,
        ),
        (
            "unknown_field",
            r#"{ "bones": ["a"], "weights": [[1], [1], [1]], "weight": 1 }"#,
        ),
    ] {
        match load(name, &skin_file(body)) {
            Err(IoError::Parse { location, .. }) => {
                assert_eq!(location.map(|l| l.line), Some(7), "{name}");
            }
            other => panic!("{name}: {:?}", other.err()),
        }
    }
}

#[test]
fn misplaced_skins_are_invalid() {
    // Two skins, a skin beside a morph, a skin on a group, a skinned particle system.
    let two = skin_file(
        r#"{ "bones": ["a"], "weights": [[1], [1], [1]] } }, { "skin": { "bones": ["b"], "weights": [[1], [1], [1]] }"#,
    );
    let morph = skin_file(
        r#"{ "bones": ["a"], "weights": [[1], [1], [1]] } }, { "morph": { "times": [0], "targets": [[[0, 0, 0], [1, 0, 0], [0, 1, 0]]], "weights": [[]] }"#,
    );
    for (name, text) in [("two", two), ("morph", morph)] {
        let e = load(name, &text).err();
        assert!(
            matches!(&e, Some(IoError::Invalid { message, .. }) if message.contains("one \"skin\"")),
            "{name}: {e:?}"
        );
    }
    let group = skin_file(r#"{ "bones": ["a"], "weights": [[1]] }"#).replace(
        r#""mesh": { "inline": { "positions": [[0, 0, 0], [1, 0, 0], [0, 1, 0]] } },"#,
        "",
    );
    let particles = skin_file(r#"{ "bones": ["a"], "weights": [[1], [1], [1], [1]] }"#).replace(
        r#""inline": { "positions": [[0, 0, 0], [1, 0, 0], [0, 1, 0]] }"#,
        r#""particles": { "locations": [[0, 0, 0]], "sizes": [1] }"#,
    );
    for (name, text, needle) in [
        ("group", group, "geometry node"),
        ("particles", particles, "particle system"),
    ] {
        match load(name, &text) {
            Err(IoError::Invalid { message, .. }) => {
                assert!(message.contains(needle), "{name}: {message}")
            }
            other => panic!("{name}: {:?}", other.err()),
        }
    }
}

/// A bone with a zero scale has no inverse: derived offsets are refused, explicit ones work.
#[test]
fn a_singular_bone_needs_explicit_offsets() {
    let text = skin_file(r#"{ "bones": ["a"], "weights": [[1], [1], [1]] }"#).replace(
        r#"{ "name": "a" }"#,
        r#"{ "name": "a", "transform": { "scale": [0, 1, 1] } }"#,
    );
    match load("singular", &text) {
        Err(IoError::Invalid { message, .. }) => assert!(message.contains("offsets"), "{message}"),
        other => panic!("{:?}", other.err()),
    }
    let explicit = text.replace(
        r#""weights": [[1], [1], [1]]"#,
        r#""weights": [[1], [1], [1]], "offsets": [[[0, 0, 0]], [[0, 1, 0]], [[0, 2, 0]]]"#,
    );
    let loaded = load("singular_explicit", &explicit).unwrap();
    let s = loaded.scene.find("s").unwrap();
    // Scale (0, 1, 1): (0, y, 0) ↦ (0, y, 0).
    let p = loaded.scene.mesh(s).unwrap().positions().to_vec();
    assert_eq!(p, vec![Vec3::ZERO, Vec3::Y, 2.0 * Vec3::Y]);
}

#[test]
fn skins_round_trip_through_save() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/examples/skin.json");
    let doc = io::json::read(&path, &ImportOptions::default()).unwrap();
    let again = io::json::parse(&path, &io::json::save(&doc)).unwrap();
    assert_eq!(doc, again);
}
