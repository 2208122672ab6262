//! Planar reflections are lit as the mirror image of the real scene (issue 14, fix 1).
//!
//! GL and Wild Magic put lights into eye space through the model-view in effect, so in the
//! reflection pass — whose model-view carries the mirror matrix `M` — the lights are mirrored
//! with the geometry: a normal `M·n` meets a light `M·l`, and `(M·n)·(M·l) = n·l`. The image in
//! the mirror is then exactly what a mirrored copy of the scene, lit by mirrored lights, looks
//! like from the real camera.
//!
//! The test builds both: scene A is a red ball lit from above over a black floor that
//! reflects it fully (reflectance 1); scene B has no floor, but the ball mirrored by the node
//! transform (scale `(1, −1, 1)`) and every light mirrored through the floor by hand. Seen
//! from straight above, the reflection shows the ball's underside, which the lights above do
//! not reach: it must be dark, as B's ball is. Lit with the un-mirrored lights it shows a lit
//! top instead.

use std::path::{Path, PathBuf};

use plumb_scene::io::{self, ImportOptions};
use plumb_scene::SoftRenderer;

const SIZE: u32 = 160;

/// The lights above the floor (point, directional, spot), each with a `SIGN` placeholder on
/// every y coordinate.
const LIGHTS: &str = r#"[
    { "name": "bulb", "type": "point", "position": [2.5, SIGN3, 0.5], "diffuse": [0.6, 0.6, 0.6, 1] },
    { "name": "sun", "type": "directional", "direction": [0.3, SIGN-1, 0.2], "diffuse": [0.4, 0.4, 0.4, 1] },
    { "name": "torch", "type": "spot", "position": [1.5, SIGN2.5, -0.5], "direction": [0.2, SIGN-1, 0.2],
      "angle_degrees": 50, "exponent": 2, "diffuse": [0.5, 0.5, 0.5, 1] }
  ]"#;

/// Ball material: red diffuse with a white highlight, no ambient; a blue emission marks every
/// pixel of the ball, lit or not.
const BALL_STATES: &str = r#"{ "material": {
    "emissive": [0, 0, 0.3, 1], "ambient": [0, 0, 0, 1], "diffuse": [1, 0.2, 0.1, 1], "specular": [0.8, 0.8, 0.8, 1], "shininess": 20 } }"#;

fn scene_file(name: &str, mirrored_copy: bool) -> PathBuf {
    let dir =
        std::env::temp_dir().join(format!("plumb-reflection-lighting-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let lights = LIGHTS.replace("SIGN-", if mirrored_copy { "" } else { "-" });
    let lights = lights.replace("SIGN", if mirrored_copy { "-" } else { "" });
    let body = if mirrored_copy {
        // The ball as the mirror shows it: reflected through y = 0 by its own transform.
        format!(
            r#"{{ "name": "ball", "states": {BALL_STATES},
                 "transform": {{ "translation": [2, -1, 0], "scale": [1, -1, 1] }},
                 "mesh": {{ "sphere": {{"radius": 0.4, "stacks": 16, "slices": 24}} }} }}"#
        )
    } else {
        format!(
            r#"{{ "name": "floor",
                 "states": {{ "material": {{ "ambient": [0, 0, 0, 1], "diffuse": [0, 0, 0, 1], "specular": [0, 0, 0, 1] }} }},
                 "mesh": {{ "plane": {{"size": 8, "divisions": 4}} }} }},
               {{ "name": "casters",
                 "effect": {{ "planar_reflection": {{"planes": [{{"node": "floor", "reflectance": 1}}]}} }},
                 "children": [{{ "name": "ball", "states": {BALL_STATES},
                   "transform": {{ "translation": [2, 1, 0] }},
                   "mesh": {{ "sphere": {{"radius": 0.4, "stacks": 16, "slices": 24}} }} }}] }}"#
        )
    };
    let text = format!(
        r#"{{
  "format": "plumb-scene",
  "version": 1,
  "background": [0, 0, 0, 1],
  "global_ambient": [0, 0, 0],
  "lights": {lights},
  "cameras": [{{"name": "top", "eye": [0, 4, 0], "target": [0, 0, 0], "up": [0, 0, -1], "fov_y_degrees": 60}}],
  "root": {{ "lights": ["bulb", "sun", "torch"], "children": [{body}] }}
}}"#
    );
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

fn render(path: &Path) -> image::RgbaImage {
    let mut loaded = io::load(path, &ImportOptions::default()).unwrap();
    let camera = loaded.imported.cameras[0]
        .to_camera(&loaded.scene, 1.0)
        .unwrap();
    let mut r = SoftRenderer::new(SIZE, SIZE, Some(1)).unwrap();
    loaded.scene.draw(&camera, &mut r).unwrap();
    r.image()
}

#[test]
fn reflection_is_lit_by_mirrored_lights() {
    let mirror = render(&scene_file("mirror.json", false));
    let truth = render(&scene_file("truth.json", true));
    if let Some(dir) = std::env::var_os("PLUMB_TEST_DUMP") {
        mirror.save(PathBuf::from(&dir).join("mirror.png")).unwrap();
        truth.save(PathBuf::from(&dir).join("truth.png")).unwrap();
    }
    // Where the mirrored copy is drawn, the reflection must look the same.
    let mut covered = 0usize;
    let mut close = 0usize;
    let mut truth_red = 0u64;
    let mut mirror_red = 0u64;
    let mut lit = 0usize;
    for (a, b) in mirror.pixels().zip(truth.pixels()) {
        if b.0[2] == 0 {
            continue;
        }
        covered += 1;
        truth_red += u64::from(b.0[0]);
        mirror_red += u64::from(a.0[0]);
        if b.0[0] > 40 {
            lit += 1;
        }
        if a.0.iter().zip(b.0.iter()).all(|(x, y)| x.abs_diff(*y) <= 2) {
            close += 1;
        }
    }
    // The copy is seen (from above, its visible side is the real ball's underside: mostly
    // dark, lit only along the rim the lights reach).
    assert!(covered > 200, "the mirrored ball covers {covered} pixels");
    assert!(
        lit < covered / 2,
        "from above, the mirror image shows the ball's underside: {lit} of {covered} lit"
    );
    assert!(
        close * 100 >= covered * 99,
        "the reflection differs from the mirrored scene in {} of {covered} pixels \
         (red sum: reflection {mirror_red}, mirrored scene {truth_red})",
        covered - close
    );
}
