//! Issue 14, "Reach", continued: Wild Magic's `WM_CLAMP` wrap (`"clamp"`), layers that clear
//! depth / stencil in a screen rectangle (`"clear"`), and active counts of points and
//! polylines (`"active"`). Each `refimages/json/reach_*.json` golden of these is rendered here
//! and checked at pixels worked out by hand or by an independent model (in each test's doc),
//! plus bad input and `parse → save → parse` of the new fields.

use std::path::{Path, PathBuf};

use plumb_scene::io::json::{self, SceneDoc};
use plumb_scene::io::{self, ImportOptions, IoError};
use plumb_scene::SoftRenderer;

const SIZE: u32 = 256;

fn case(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../refimages/json")
        .join(format!("{name}.json"))
}

struct Frame {
    rgba: Vec<u8>,
    depth: Vec<f32>,
    dump: String,
}

impl Frame {
    fn px(&self, x: u32, y: u32) -> [u8; 4] {
        let i = ((y * SIZE + x) * 4) as usize;
        [
            self.rgba[i],
            self.rgba[i + 1],
            self.rgba[i + 2],
            self.rgba[i + 3],
        ]
    }
    fn depth(&self, x: u32, y: u32) -> f32 {
        self.depth[(y * SIZE + x) as usize]
    }
}

fn render(name: &str) -> Frame {
    let loaded = io::load(&case(name), &ImportOptions::default()).unwrap();
    let mut scene = loaded.scene;
    let camera = loaded.imported.cameras[0].to_camera(&scene, 1.0).unwrap();
    let mut r = SoftRenderer::new(SIZE, SIZE, Some(1)).unwrap();
    scene.draw(&camera, &mut r).unwrap();
    Frame {
        rgba: r.image().into_raw(),
        depth: r.depth(),
        dump: scene.dump(),
    }
}

/// Each RGB channel within `tol` of `want`.
#[track_caller]
fn near(got: [u8; 4], want: [u8; 3], tol: u8) {
    for c in 0..3 {
        assert!(
            got[c].abs_diff(want[c]) <= tol,
            "got {got:?}, want {want:?} ± {tol}"
        );
    }
}

fn byte(x: f32) -> u8 {
    (x.clamp(0.0, 1.0) * 255.0 + 0.5).floor() as u8
}

/// An independent model of the three clamps on the golden's 2×2 checker (texel (i, j) yellow
/// (1, 0.8, 0) when i + j is even, else blue (0, 0.4, 1); border magenta): GL 1.4 §3.8.7–8
/// written out directly. `mode`: 0 clamp-to-edge, 1 clamp-to-border, 2 clamp (`WM_CLAMP`).
fn model(mode: u8, linear: bool, u: f64, v: f64) -> [f64; 3] {
    const Y: [f64; 3] = [1.0, 0.8, 0.0];
    const B: [f64; 3] = [0.0, 0.4, 1.0];
    const M: [f64; 3] = [1.0, 0.0, 1.0];
    let texel = |i: i64, j: i64| -> [f64; 3] {
        let (i, j) = if mode == 0 {
            (i.clamp(0, 1), j.clamp(0, 1))
        } else {
            (i, j)
        };
        if !(0..2).contains(&i) || !(0..2).contains(&j) {
            M
        } else if (i + j) % 2 == 0 {
            Y
        } else {
            B
        }
    };
    let (u, v) = if mode == 2 {
        (u.clamp(0.0, 1.0), v.clamp(0.0, 1.0))
    } else {
        (u, v)
    };
    if !linear {
        // CLAMP with NEAREST: u = 1 is the last texel (eq. 3.19).
        let idx = |c: f64| {
            let i = (c * 2.0).floor() as i64;
            if mode == 2 {
                i.min(1)
            } else {
                i
            }
        };
        return texel(idx(u), idx(v));
    }
    let (x, y) = (u * 2.0 - 0.5, v * 2.0 - 0.5);
    let (i0, j0) = (x.floor() as i64, y.floor() as i64);
    let (a, b) = (x - x.floor(), y - y.floor());
    let mut out = [0.0; 3];
    for (di, dj, w) in [
        (0, 0, (1.0 - a) * (1.0 - b)),
        (1, 0, a * (1.0 - b)),
        (0, 1, (1.0 - a) * b),
        (1, 1, a * b),
    ] {
        let t = texel(i0 + di, j0 + dj);
        for c in 0..3 {
            out[c] += w * t[c];
        }
    }
    out
}

/// `reach_wm_clamp`: ortho ±3.2 over 256 px (40 px per unit); six 2×2 quads with uv from −0.5
/// to 1.5, columns clamp-to-edge, clamp-to-border, clamp (centres x = −2.1, 0, 2.1), rows
/// linear (y = 1.1) and nearest (y = −1.1). Every 5th pixel inside each quad (one pixel in
/// from its edges) matches the model within 1 level (2 for linear: the interpolated uv is
/// off by float rounding). Hand-checked corners: at local uv (−0.4125, −0.4125) clamp-linear
/// is ¼ yellow + ¾ magenta = (1, 0.2, 0.75) → (255, 51, 191); clamp-to-edge is yellow; the
/// border mode is magenta; with nearest, clamp is the edge texel (yellow).
#[test]
fn wm_clamp_mixes_the_border_only_with_linear() {
    let f = render("reach_wm_clamp");
    near(f.px(175, 47), [255, 51, 191], 1);
    near(f.px(7, 47), [255, 204, 0], 0);
    near(f.px(91, 47), [255, 0, 255], 0);
    near(f.px(175, 47 + 88), [255, 204, 0], 0);
    let mut checked = 0;
    for (row, (cy, linear)) in [(1.1f64, true), (-1.1, false)].into_iter().enumerate() {
        for (mode, cx) in [(0u8, -2.1f64), (1, 0.0), (2, 2.1)] {
            let x0 = ((cx - 1.0 + 3.2) * 40.0).round() as u32;
            let y0 = ((3.2 - cy - 1.0) * 40.0).round() as u32;
            for py in (y0 + 1..y0 + 79).step_by(5) {
                for px in (x0 + 1..x0 + 79).step_by(5) {
                    let u = -0.5 + ((px as f64 + 0.5) / 40.0 - 3.2 - (cx - 1.0));
                    let v = -0.5 + ((cy + 1.0) - (3.2 - (py as f64 + 0.5) / 40.0));
                    // Skip nearest samples within 1e-3 of a texel boundary (ties).
                    let frac = |c: f64| (c * 2.0 - (c * 2.0).round()).abs();
                    if !linear && (frac(u) < 1e-3 || frac(v) < 1e-3) {
                        continue;
                    }
                    let want = model(mode, linear, u, v).map(|c| byte(c as f32));
                    near(f.px(px, py), want, if linear { 2 } else { 1 });
                    checked += 1;
                }
            }
            let _ = row;
        }
    }
    assert!(checked > 1000, "{checked}");
}

/// `reach_layers`: ortho ±4 over 256 px (32 px per unit). A blue wall at z = 1 (view depth 4)
/// covers the view; the `inset` layer clears depth in the top-right quarter (columns
/// 128–255, rows 0–127) and draws an orange quad at z = −1 (behind the wall) over
/// x ∈ [−3, 3], y ∈ [−1, 3]; the `hud` layer clears all depth and draws a green badge at
/// z = −2 over [−3.5, −1.5]². Both layers precede the wall in the file. Orange shows only
/// where the quad meets the quarter (columns 128–223, rows 32–127), the badge everywhere it
/// is; depth ends 1 wherever the badge is not (the HUD's clear), and 6/9 (ortho, near 1,
/// far 10, distance 7) under it.
#[test]
fn layers_clear_depth_in_their_rectangle_and_draw_last() {
    let f = render("reach_layers");
    let (orange, blue, green) = ([255, 128, 0], [51, 77, 204], [0, 204, 51]);
    near(f.px(176, 80), orange, 0);
    near(f.px(128, 80), orange, 0);
    near(f.px(223, 32), orange, 0);
    near(f.px(176, 127), orange, 0);
    // The same quad outside the inset: behind the wall.
    near(f.px(127, 80), blue, 0);
    near(f.px(100, 80), blue, 0);
    near(f.px(176, 128), blue, 0);
    near(f.px(176, 150), blue, 0);
    // Inside the inset but off the quad: the wall.
    near(f.px(230, 80), blue, 0);
    near(f.px(176, 20), blue, 0);
    near(f.px(40, 210), green, 0);
    near(f.px(250, 250), blue, 0);
    assert_eq!(f.depth(250, 250), 1.0);
    assert_eq!(f.depth(176, 80), 1.0);
    assert!((f.depth(40, 210) - 6.0 / 9.0).abs() < 1e-6);
    assert!(f
        .dump
        .contains("clear: depth=1.0 stencil=kept rect=[0.5, 0.0, 0.5, 0.5]"));
    assert!(f
        .dump
        .contains("clear: depth=1.0 stencil=kept rect=[0.0, 0.0, 1.0, 1.0]"));
}

/// `reach_active_counts`: ortho ±4 (32 px per unit); each row the same mesh twice, all of it
/// in grey on the left (translated by x = −2), its active count in colour on the right
/// (x = +2). Points (size 6) at y = 3, x = −1.5 + 0.5i: active 3 → columns 144, 160, 176 lit,
/// 192 not. A zigzag strip at y = 1.3 (active 3 of 6 segments): the midpoint of segment 1–2
/// (x = 1.25) is lit, of segment 4–5 (x = 2.75) not. A hexagon loop (radius 1.2) at y = −1.3,
/// active 4: the closing segment v3 → v0 runs down the centre (x = 2), the hexagon's right
/// side (x = 3.04) is gone. Segments at y = −3.3, active 2 of 3: x = 0.8 lit, x = 3.2 not.
#[test]
fn active_counts_draw_only_the_first_primitives() {
    let f = render("reach_active_counts");
    let grey = [115, 115, 115];
    let black = [0, 0, 0];
    near(f.px(144, 32), [255, 217, 26], 0);
    near(f.px(176, 32), [255, 217, 26], 0);
    near(f.px(192, 32), black, 0);
    near(f.px(240, 32), black, 0);
    near(f.px(112, 32), grey, 0);
    near(f.px(168, 86), [51, 255, 102], 0);
    near(f.px(216, 86), black, 0);
    near(f.px(88, 86), grey, 0);
    near(f.px(192, 169), [77, 153, 255], 0);
    near(f.px(64, 169), black, 0);
    near(f.px(225, 169), black, 0);
    near(f.px(97, 169), grey, 0);
    near(f.px(153, 233), [255, 89, 89], 0);
    near(f.px(230, 233), black, 0);
    near(f.px(102, 233), grey, 0);
    assert!(f
        .dump
        .contains("geometry points vertices=7 indices=7 active=3"));
    assert!(f
        .dump
        .contains("geometry line loop vertices=6 indices=6 active=4"));
}

fn load_text(text: &str) -> Result<plumb_scene::io::ImportedScene, IoError> {
    let path = Path::new("reach.json");
    let doc = json::parse(path, text)?;
    json::build(&doc, path, &ImportOptions::default())
}

#[track_caller]
fn rejects(text: &str, needle: &str) {
    let Err(e) = load_text(text) else {
        panic!("should be refused: {text}");
    };
    let msg = e.to_string();
    assert!(msg.contains(needle), "{msg}");
    assert!(msg.contains("reach.json"), "{msg}");
}

fn node(fields: &str) -> String {
    format!(
        r#"{{ "format": "plumb-scene", "version": 1,
  "root": {{ "children": [{{ "name": "n", {fields} }}] }} }}"#
    )
}

#[test]
fn bad_new_values_are_typed_errors() {
    rejects(
        &node(r#""clear": { "rect": [0.5, 0, 0.6, 1] }"#),
        "invalid viewport",
    );
    rejects(
        &node(r#""clear": { "depth": 2 }"#),
        "depth 2 is outside 0..1",
    );
    rejects(&node(r#""clear": { "stencil": 256 }"#), "reach.json");
    rejects(&node(r#""clear": { "colour": 1 }"#), "unknown field");
    rejects(
        &node(
            r#""mesh": { "inline": { "positions": [[0, 0, 0], [1, 0, 0], [0, 1, 0]], "active": 1 } }"#,
        ),
        "only points and polylines",
    );
    rejects(
        &node(
            r#""mesh": { "box": {} }, "effect": { "textures": [{ "texture": "t", "sampler": { "wrap_u": "wm_clamp" } }] }"#,
        ),
        "reach.json",
    );
}

#[test]
fn new_fields_reach_the_scene_and_round_trip() {
    let loaded = load_text(&node(
        r#""clear": { "stencil": 3 }, "children": [{ "name": "p", "mesh": { "inline": { "topology": "line_strip", "positions": [[0, 0, 0], [1, 0, 0], [1, 1, 0]], "active": 9 } } }]"#,
    ))
    .unwrap();
    let s = &loaded.scene;
    let n = s.find("n").unwrap();
    let c = s.clear_region(n).unwrap().copied().unwrap();
    assert_eq!((c.depth, c.stencil), (None, Some(3)));
    assert_eq!(c.rect, plumb_scene::CameraViewport::FULL);
    let p = s.find("p").unwrap();
    // 3 vertices, 2 segments: 9 is clamped.
    assert_eq!(s.mesh(p).unwrap().active_count(), Some(2));
    for name in ["reach_wm_clamp", "reach_layers", "reach_active_counts"] {
        let text = std::fs::read_to_string(case(name)).unwrap();
        let path = Path::new("reach.json");
        let doc: SceneDoc = json::parse(path, &text).unwrap();
        let saved = json::save(&doc);
        let again = json::parse(path, &saved).unwrap();
        assert_eq!(doc, again, "{saved}");
        assert_eq!(json::save(&again), saved);
    }
}
