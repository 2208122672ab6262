//! `plumb render --scene NAME|INDEX` and the scene list of `plumb info`, on a small glTF file
//! with three scenes written by the test: each scene holds one unlit quad of its own colour
//! filling the view, so the centre pixel says which scene was drawn.

use std::path::Path;

use serde_json::json;

use crate::cli_common;
use cli_common::*;

/// `scenes.gltf`: scenes 'Red' (0), 'Green' (1, the default) and an unnamed blue one (2),
/// each one quad 4 × 4 at the origin, seen by a camera node shared by all scenes at z = 2.
fn write(dir: &Path) {
    let quad: [f32; 12] = [
        -2.0, -2.0, 0.0, 2.0, -2.0, 0.0, 2.0, 2.0, 0.0, -2.0, 2.0, 0.0,
    ];
    let mut bytes: Vec<u8> = quad.iter().flat_map(|x| x.to_le_bytes()).collect();
    bytes.extend_from_slice(&[0, 1, 2, 0, 2, 3, 0, 0]);
    let unlit = |c: [f32; 4]| {
        json!({"pbrMetallicRoughness": {"baseColorFactor": c},
               "extensions": {"KHR_materials_unlit": {}}})
    };
    let mesh = |m: usize| json!({"primitives": [{"attributes": {"POSITION": 0}, "indices": 1, "material": m}]});
    let doc = json!({
        "asset": {"version": "2.0"},
        "extensionsUsed": ["KHR_materials_unlit"],
        "scene": 1,
        "scenes": [
            {"name": "Red", "nodes": [0, 3]},
            {"name": "Green", "nodes": [1, 3]},
            {"nodes": [2, 3]}
        ],
        "nodes": [
            {"name": "red", "mesh": 0},
            {"name": "green", "mesh": 1},
            {"name": "blue", "mesh": 2},
            {"name": "eye", "camera": 0, "translation": [0.0, 0.0, 2.0]}
        ],
        "cameras": [{"type": "perspective",
                     "perspective": {"yfov": 0.7, "znear": 0.1, "zfar": 100.0}}],
        "meshes": [mesh(0), mesh(1), mesh(2)],
        "materials": [
            unlit([1.0, 0.0, 0.0, 1.0]),
            unlit([0.0, 1.0, 0.0, 1.0]),
            unlit([0.0, 0.0, 1.0, 1.0])
        ],
        "buffers": [{"byteLength": bytes.len(), "uri": "scenes.bin"}],
        "bufferViews": [
            {"buffer": 0, "byteOffset": 0, "byteLength": 48},
            {"buffer": 0, "byteOffset": 48, "byteLength": 6}
        ],
        "accessors": [
            {"bufferView": 0, "componentType": 5126, "count": 4, "type": "VEC3",
             "min": [-2.0, -2.0, 0.0], "max": [2.0, 2.0, 0.0]},
            {"bufferView": 1, "componentType": 5121, "count": 6, "type": "SCALAR"}
        ]
    });
    std::fs::write(dir.join("scenes.bin"), &bytes).unwrap();
    std::fs::write(
        dir.join("scenes.gltf"),
        serde_json::to_string_pretty(&doc).unwrap(),
    )
    .unwrap();
}

/// The centre pixel of `plumb render scenes.gltf` with `extra` options.
fn centre(dir: &Path, extra: &[&str]) -> [u8; 4] {
    let mut args = vec!["render", "scenes.gltf", "-o", "out.png", "--size", "16x16"];
    args.extend_from_slice(extra);
    let o = plumb(dir, &args);
    assert_success(&o);
    let img = image::open(dir.join("out.png")).unwrap().to_rgba8();
    img.get_pixel(8, 8).0
}

#[test]
fn scene_by_name_or_index_default_otherwise() {
    let dir = temp_dir("cli-scene");
    write(&dir);
    // The quad (half-size 2 at distance 2, yfov 0.7) fills the view: the centre is the
    // quad's unlit colour.
    assert_eq!(
        centre(&dir, &[]),
        [0, 255, 0, 255],
        "default scene 1 'Green'"
    );
    assert_eq!(centre(&dir, &["--scene", "Red"]), [255, 0, 0, 255]);
    assert_eq!(centre(&dir, &["--scene", "0"]), [255, 0, 0, 255]);
    assert_eq!(centre(&dir, &["--scene", "2"]), [0, 0, 255, 255]);
}

#[test]
fn unknown_scenes_are_one_line_errors() {
    let dir = temp_dir("cli-scene-bad");
    write(&dir);
    let o = plumb(
        &dir,
        &["render", "scenes.gltf", "-o", "x.png", "--scene", "Blue"],
    );
    assert_bad_input(&o, "no scene of that name");
    assert!(stderr(&o).contains("1 'Green' (default)"), "{}", stderr(&o));
    let o = plumb(
        &dir,
        &["render", "scenes.gltf", "-o", "x.png", "--scene", "3"],
    );
    assert_bad_input(&o, "index out of range, the file has 3 scene(s)");
    std::fs::write(dir.join("q.obj"), "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n").unwrap();
    let o = plumb(&dir, &["render", "q.obj", "-o", "x.png", "--scene", "0"]);
    assert_bad_input(&o, "--scene applies to glTF files");
    let o = plumb(&dir, &["render", "-o", "x.png", "--scene", "0"]);
    assert_bad_input(&o, "--scene needs a SCENE file");
}

#[test]
fn info_lists_the_scenes_and_marks_the_default() {
    let dir = temp_dir("cli-scene-info");
    write(&dir);
    let o = plumb(&dir, &["info", "scenes.gltf"]);
    assert_success(&o);
    let lines: Vec<String> = stdout(&o)
        .lines()
        .filter(|l| l.starts_with("scene "))
        .map(str::to_owned)
        .collect();
    assert_eq!(
        lines,
        vec!["scene 0 'Red'", "scene 1 'Green' (default)", "scene 2 ''"]
    );
}

/// `plumb convert --scene` saves the chosen scene (issue 14): the converted file renders the
/// chosen scene's colour; without `--scene`, the default scene's; a bad choice is the same
/// one-line error as for `render`.
#[test]
fn convert_saves_the_chosen_scene() {
    let dir = temp_dir("cli-scene-convert");
    write(&dir);
    let converted = |extra: &[&str], out: &str| {
        let mut args = vec!["convert", "scenes.gltf", "-o", out];
        args.extend_from_slice(extra);
        let o = plumb(&dir, &args);
        assert_success(&o);
        let o = plumb(&dir, &["render", out, "-o", "out.png", "--size", "16x16"]);
        assert_success(&o);
        image::open(dir.join("out.png"))
            .unwrap()
            .to_rgba8()
            .get_pixel(8, 8)
            .0
    };
    assert_eq!(converted(&[], "default.json"), [0, 255, 0, 255]);
    assert_eq!(converted(&["--scene", "Red"], "red.json"), [255, 0, 0, 255]);
    assert_eq!(converted(&["--scene", "2"], "blue.json"), [0, 0, 255, 255]);
    let o = plumb(
        &dir,
        &["convert", "scenes.gltf", "-o", "x.json", "--scene", "Blue"],
    );
    assert_bad_input(&o, "no scene of that name");
}
