//! The fields the saver added to the scene-file format (skin `influences`, keyframe
//! `*_keys` and `rest`, morph `relative` / `interpolation` / `normals`) refuse bad values
//! with one-line errors naming what is wrong. (An integration test: inside `save_scene`'s
//! own test module, loading made `io::json` and `save_scene` import each other.)

/// Builds `text` (a scene whose root holds `children`) and returns the error message.
fn load_error(children: &str) -> String {
    let text = format!(
        r#"{{"format": "plumb-scene", "version": 1, "root": {{"children": [{children}]}}}}"#
    );
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("json-save-fields");
    std::fs::create_dir_all(&dir).expect("scratch folder");
    let path = dir.join(format!("bad-{}.json", text.len()));
    std::fs::write(&path, &text).expect("written");
    match plumb_scene::io::json::load(&path, &plumb_scene::io::ImportOptions::default()) {
        Ok(_) => panic!("loaded: {children}"),
        Err(e) => e.to_string(),
    }
}

const TRI: &str = r#""mesh": {"inline": {"positions": [[0, 0, 0], [1, 0, 0], [0, 1, 0]]}}"#;

/// What the saver writes and the loader accepts is checked: bad values of the fields the
/// saver added to the format are one-line errors naming what is wrong.
#[test]
fn new_fields_refuse_bad_values() {
    let skin = |influences: &str| {
        format!(
            r#"{{"name": "bone"}}, {{"name": "s", {TRI}, "controllers": [{{"skin": {{"bones": ["bone"], "influences": {influences}}}}}]}}"#
        )
    };
    let one = r#"{"bone": 0, "weight": 1, "offset": [0, 0, 0]}"#;
    let e = load_error(&skin(&format!("[[{one}], [{one}]]")));
    assert!(
        e.contains("2 rows of influences for a mesh of 3 vertices"),
        "{e}"
    );
    let e = load_error(&skin(
        r#"[[{"bone": 1, "weight": 1, "offset": [0, 0, 0]}], [], []]"#,
    ));
    assert!(e.contains("vertex 0 names bone 1 of 1"), "{e}");
    let e = load_error(&skin(&format!(
        r#"[[{{"bone": 0, "weight": 1, "offset": [0, 0, 0], "normal": [0, 0, 1]}}], [{one}], []]"#
    )));
    assert!(e.contains("some influences have normal offsets"), "{e}");
    let keyed = |k: &str| format!(r#"{{"name": "n", "controllers": [{{"keyframes": {k}}}]}}"#);
    let e = load_error(&keyed(r#"{"rotation_keys": {"times": [0]}}"#));
    assert!(e.contains("\"rotation_keys\" without \"rotations\""), "{e}");
    let e = load_error(&keyed(r#"{"translations": [[0, 0, 0]]}"#));
    assert!(e.contains("the translation track has no key times"), "{e}");
    let e = load_error(&keyed(
        r#"{"times": [0], "translations": [[0, 0, 0]], "rest": {"translation": [0, 0, 0], "rotation": [0, 0, 0, 0], "scale": [1, 1, 1]}}"#,
    ));
    assert!(e.contains("zero rotation quaternion"), "{e}");
    let e = load_error(&keyed(
        r#"{"translations": [[0, 0, 0], [1, 0, 0]], "translation_keys": {"times": [1, 0]}}"#,
    ));
    assert!(
        e.contains("translation track: keyframe times must increase"),
        "{e}"
    );
    let morph = |m: &str| format!(r#"{{"name": "m", {TRI}, "controllers": [{{"morph": {m}}}]}}"#);
    let e = load_error(&morph(
        r#"{"times": [0], "relative": true, "interpolation": "cubic_spline", "targets": [[[0, 0, 0], [1, 0, 0], [0, 1, 0]], [[0, 0, 0], [0, 0, 0], [0, 0, 0]]], "weights": [[0]]}"#,
    ));
    assert!(e.contains("1 key times need 3 weight arrays"), "{e}");
    let e = load_error(&morph(
        r#"{"times": [0], "relative": true, "targets": [[[0, 0, 0], [1, 0, 0], [0, 1, 0]]], "normals": [[[0, 0, 1]]], "weights": [[]]}"#,
    ));
    assert!(e.contains("normal targets must have 3 vertices"), "{e}");
}
