//! World features through `plumb render` (issue 31): instance trees follow the camera drawn
//! from, not the one the file was loaded for.

use crate::cli_common;
use cli_common::*;

/// `cyclic_man.json` (the golden) with `cameras` replaced.
fn man_with_cameras(cameras: &str) -> String {
    let golden =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("refimages/json/cyclic_man.json");
    let text = std::fs::read_to_string(golden).unwrap();
    let start = text.find("\"cameras\"").unwrap();
    let end = start + text[start..].find('\n').unwrap();
    format!("{}\"cameras\": {cameras},{}", &text[..start], &text[end..])
}

/// The golden's camera is `wide`. `narrow` sees the root man's body from 1.2 units, so
/// instancing for it leaves out the small men outside its frustum.
const WIDE: &str = r#"{ "name": "wide", "eye": [0, 0.25, 7], "target": [0, 0.25, 0], "fov_y_degrees": 45, "near": 0.1, "far": 50 }"#;
const NARROW: &str = r#"{ "name": "narrow", "eye": [0, 0, 1.2], "target": [0, 0, 0], "fov_y_degrees": 20, "near": 0.1, "far": 50 }"#;

fn render(dir: &std::path::Path, file: &str, text: &str, extra: &[&str]) -> image::RgbaImage {
    std::fs::write(dir.join(file), text).unwrap();
    let out = format!("{file}.png");
    let mut args = vec!["render", file, "-o", &out, "--size", "128x128"];
    args.extend_from_slice(extra);
    let o = plumb(dir, &args);
    assert_success(&o);
    image::open(dir.join(&out)).unwrap().to_rgba8()
}

#[test]
fn render_reinstances_for_the_chosen_camera() {
    let dir = temp_dir("cli-worlds-camera");
    // Loaded for `narrow` (the first camera), drawn from `wide`.
    let chosen = render(
        &dir,
        "narrow_first.json",
        &man_with_cameras(&format!("[{NARROW}, {WIDE}]")),
        &["--camera", "wide"],
    );
    // Loaded and drawn for `wide`.
    let plain = render(
        &dir,
        "wide_only.json",
        &man_with_cameras(&format!("[{WIDE}]")),
        &[],
    );
    let background = *plain.get_pixel(0, 0);
    let covered = plain.pixels().filter(|p| **p != background).count();
    let differ = plain
        .pixels()
        .zip(chosen.pixels())
        .filter(|(a, b)| a != b)
        .count();
    // The men cover about 1,000 of the 128² pixels (the golden's 535 leaves). Drawn with the
    // tree instanced for `narrow` (no re-instancing), 182 of them differed.
    assert!(covered > 800, "only {covered} pixels drawn");
    assert_eq!(differ, 0, "{differ} of {covered} pixels differ");
    // The same for `--eye`/`--target` overrides of the narrow camera.
    let moved = render(
        &dir,
        "narrow_moved.json",
        &man_with_cameras(&format!("[{NARROW}]")),
        &["--eye", "0,0.25,7", "--target", "0,0.25,0", "--fov", "45"],
    );
    let differ = plain
        .pixels()
        .zip(moved.pixels())
        .filter(|(a, b)| a != b)
        .count();
    assert_eq!(differ, 0, "--eye: {differ} of {covered} pixels differ");
}

/// Issue 31: a scene with cyclic definitions is saved as its definitions and `instance`
/// node, not as the expanded tree (751 nodes, 5 MB before), and renders as its source from
/// any camera.
#[test]
fn convert_keeps_definitions_and_renders_the_same_from_every_camera() {
    let dir = temp_dir("cli-worlds-convert");
    let src =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("refimages/json/cyclic_man.json");
    std::fs::copy(&src, dir.join("man.json")).unwrap();
    assert_success(&plumb(&dir, &["convert", "man.json", "-o", "saved.json"]));
    let saved = std::fs::read_to_string(dir.join("saved.json")).unwrap();
    let source_len = std::fs::metadata(&src).unwrap().len() as usize;
    // The models' generated meshes are written inline (a 12 × 8 sphere, three boxes): 29 KB
    // against the source's 2 KB, not megabytes.
    assert!(saved.len() < 20 * source_len, "{} bytes", saved.len());
    let doc: serde_json::Value = serde_json::from_str(&saved).unwrap();
    assert_eq!(doc["definitions"]["symbols"][0]["name"], "Man");
    let men = &doc["root"]["children"][0];
    assert_eq!(men["instance"]["symbol"], "Man");
    assert!(
        men.get("children").is_none(),
        "the expanded tree was written"
    );
    for view in [
        &[][..],
        &["--eye", "2,1,5", "--target", "0,0.5,0"][..],
        &[
            "--eye",
            "-1.3,1.4,1.5",
            "--target",
            "-1.2,1.1,0",
            "--fov",
            "30",
        ][..],
    ] {
        let mut a = vec!["render", "man.json", "-o", "a.png", "--size", "96x96"];
        a.extend_from_slice(view);
        assert_success(&plumb(&dir, &a));
        let mut b = vec!["render", "saved.json", "-o", "b.png", "--size", "96x96"];
        b.extend_from_slice(view);
        assert_success(&plumb(&dir, &b));
        let (ia, ib) = (
            image::open(dir.join("a.png")).unwrap().to_rgba8(),
            image::open(dir.join("b.png")).unwrap().to_rgba8(),
        );
        let differ = ia.pixels().zip(ib.pixels()).filter(|(p, q)| p != q).count();
        assert_eq!(differ, 0, "{view:?}: {differ} px differ");
    }
}

/// Issue 31 #9: `plumb info` names every world feature: instance nodes (text and JSON),
/// depth layers, and per node what it carries (controllers with their keys and timing).
#[test]
fn info_reports_instances_layers_and_controllers() {
    let dir = temp_dir("cli-worlds-info");
    let golden = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("refimages/json");
    let text = |file: &str| {
        let o = plumb(&dir, &["info", golden.join(file).to_str().unwrap()]);
        assert_success(&o);
        stdout(&o)
    };
    let man = text("cyclic_man.json");
    assert!(
        man.contains("instance 'men': symbol 'Man', min area 4 px² at 256x256, depth cap 12, node cap 20000, seed 1,"),
        "{man}"
    );
    assert!(text("layered_depth.json").contains("# depth layers: step 0.001"));
    let arm = text("skin_arm_t0_5.json");
    assert!(arm.contains(
        "controller: keyframes: 0 translation, 2 rotation, 0 scale keys; clamp 0..1 s, phase 0.5"
    ));
    let o = plumb(
        &dir,
        &[
            "info",
            "--json",
            golden.join("cyclic_man.json").to_str().unwrap(),
        ],
    );
    assert_success(&o);
    let doc: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let inst = &doc["instances"][0];
    assert_eq!(inst["symbol"], "Man");
    assert_eq!(inst["max_depth"], 12);
    let node = inst["node"].as_u64().unwrap() as usize;
    assert_eq!(doc["nodes"][node]["name"], "men");
    assert!(inst["nodes"].as_u64().unwrap() > 100);
    let carries = doc["nodes"][node]["carries"][0].as_str().unwrap();
    assert!(carries.starts_with("state: material "), "{carries}");
}
