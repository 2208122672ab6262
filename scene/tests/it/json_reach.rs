//! Issue 14, "Reach": raster features a scene file can now use — per-pixel lighting, point
//! size and line width, blend equations, object- and eye-linear texgen, radial fog, user clip
//! planes, a camera viewport and depth range. Each `refimages/json/reach_*.json` golden is
//! rendered here and checked at pixels whose values are worked out by hand (in each test's
//! doc), so the images are not the only record of what they should show. Plus bad input (typed
//! errors) and `parse → save → parse` of every new field.

use std::path::{Path, PathBuf};

use glam::Vec4;
use plumb_scene::io::json::{self, SceneDoc};
use plumb_scene::io::{self, ImportOptions, IoError};
use plumb_scene::{BlendEquation, FogDistance, GlobalState, ShadeState, SoftRenderer};

const SIZE: u32 = 256;

fn case(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../refimages/json")
        .join(format!("{name}.json"))
}

/// Colour (RGBA8, row 0 at the top) and depth of a golden's scene from its first camera.
struct Frame {
    rgba: Vec<u8>,
    depth: Vec<f32>,
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

/// `reach_per_pixel_light`: two 2×2 quads facing +z (ortho camera, ±2.2 over 256 px: 58.18
/// px per unit), each lit by a point light 0.5 above its centre; diffuse 0.8, nothing else.
/// Per vertex (left), every corner sees the light at cos θ = 0.5 / √(1 + 1 + 0.25) = 1/3, so
/// the whole quad is 0.8/3·255 = 68. Per pixel (right), pixel (191, 127) is 0.012 from the
/// centre: cos θ ≈ 0.9997, 0.8·255·0.9997 = 204; pixel (244, 75) is (0.902, 0.902) from the
/// centre: cos θ = 0.5/1.3706 = 0.3648, 0.8·0.3648·255 = 74.4.
#[test]
fn per_pixel_lighting_lights_the_centre() {
    let f = render("reach_per_pixel_light");
    near(f.px(63, 127), [68, 68, 68], 1);
    near(f.px(10, 70), [68, 68, 68], 1);
    near(f.px(191, 127), [204, 204, 204], 1);
    near(f.px(244, 75), [74, 74, 74], 1);
}

/// `reach_point_line` (ortho ±1 over 256: 128 px per unit). The 8-pixel points at y = 0.5
/// sit on pixel corners (64, 64), (128, 64), (192, 64): each covers the 8×8 block [x−4, x+4)
/// × [60, 68) in its colour (0.2 → 51) and nothing next to it. The 1-pixel points cover one
/// pixel each. The 5-wide line at y = −0.25 (row 160) covers five rows of column 128, the
/// 1-wide line at y = −0.5 (row 192) one row; colour (1, 0.8, 0) → (255, 204, 0).
#[test]
fn point_size_and_line_width() {
    let f = render("reach_point_line");
    for (cx, want) in [
        (64, [255, 51, 51]),
        (128, [51, 255, 51]),
        (192, [51, 102, 255]),
    ] {
        for y in 60..68 {
            for x in cx - 4..cx + 4 {
                near(f.px(x, y), want, 0);
            }
        }
        for (x, y) in [(cx - 5, 64), (cx + 4, 64), (cx, 59), (cx, 68)] {
            near(f.px(x, y), [0, 0, 0], 0);
        }
    }
    let lit = |x0: u32, x1: u32, y0: u32, y1: u32| {
        (y0..y1)
            .flat_map(|y| (x0..x1).map(move |x| (x, y)))
            .filter(|&(x, y)| f.px(x, y)[0] > 0)
            .count()
    };
    assert_eq!(lit(56, 72, 88, 104), 1, "thin point");
    let column = |y0: u32, y1: u32| (y0..y1).filter(|&y| f.px(128, y)[0] > 0).count();
    assert_eq!(column(150, 170), 5, "wide line");
    assert_eq!(column(185, 200), 1, "thin line");
    near(f.px(128, 160), [255, 204, 0], 0);
}

/// `reach_blend_equations`: background 0.2 (51), source (0.8, 0.4, 0), factors ONE, ONE.
/// add: (1, 0.6, 0.2); subtract src − dst: (0.6, 0.2, 0); reverse dst − src: (0, 0, 0.2);
/// min: (0.2, 0.2, 0); max: (0.8, 0.4, 0.2). Alpha stays 1 (subtract and reverse subtract
/// have `alpha_equation: add`). Stripe centres at x = −4, −2, 0, 2, 4 → columns 25, 76, 128,
/// 179, 230 (ortho ±5: 25.6 px per unit).
#[test]
fn blend_equations() {
    let f = render("reach_blend_equations");
    for (x, want) in [
        (25, [255, 153, 51]),
        (76, [153, 51, 0]),
        (128, [0, 0, 51]),
        (179, [51, 51, 0]),
        (230, [204, 102, 51]),
    ] {
        near(f.px(x, 128), want, 0);
        assert_eq!(f.px(x, 128)[3], 255);
    }
}

/// `reach_texgen`: a 4×4 checker (texel (i, j) red when i + j is even), nearest. Ortho ±2
/// (64 px per unit). Top left: object-linear s = x/2 + ½, t = −y/2 + ½ on the quad's model
/// space (−1..1)², 32 px per texel, texel (0, 0) red at its top left. Top right: the same quad
/// turned 90° about z: the texture turns with it, so its top-left texel is (3, 0) — white.
/// Bottom: eye-linear s = x/4 + ½, t = −y/4 + ½ in view space = world space here: y ∈ [−2, 0]
/// gives rows 2 and 3, 64 px each; columns 64 px wide.
#[test]
fn object_and_eye_linear_texgen() {
    let f = render("reach_texgen");
    let (red, white) = ([255, 0, 0], [255, 255, 255]);
    near(f.px(16, 16), red, 0);
    near(f.px(48, 16), white, 0);
    near(f.px(48, 48), red, 0);
    near(f.px(144, 16), white, 0);
    near(f.px(32, 160), red, 0);
    near(f.px(96, 160), white, 0);
    near(f.px(32, 224), white, 0);
}

/// `reach_clip_planes`: a unit sphere facing a light along −z, diffuse (0.2, 0.6, 1), clipped
/// by x ≥ 0 and y ≤ 0.5 (ortho ±1.5: 85.33 px per unit). Left of column 128 and above row
/// 85 is background; pixel (170, 128) is at (0.498, −0.006): n·l = z = 0.867, colour
/// (0.173, 0.520, 0.867)·255 = (44, 133, 221) up to the tessellation.
#[test]
fn user_clip_planes_cut_exactly() {
    let f = render("reach_clip_planes");
    near(f.px(120, 128), [0, 0, 0], 0);
    near(f.px(136, 80), [0, 0, 0], 0);
    near(f.px(170, 128), [44, 133, 221], 3);
    assert!(
        f.px(129, 128)[2] > 100,
        "x just right of the plane is drawn"
    );
    assert!(f.px(136, 90)[2] > 100, "y just below 0.5 is drawn");
    assert_eq!(f.px(127, 128)[2], 0, "x just left of the plane is clipped");
}

/// `reach_viewport`: viewport [0.25, 0.5, 0.5, 0.25] of 256² = columns 64..192, rows 128..192;
/// depth range [0.5, 1]. The orange quad covers the whole view, the blue marker (±0.5 of ±1)
/// columns 96..160, rows 144..176. Ortho near 4, far 6: the quad at distance 5 has NDC depth
/// 0.5 → window depth 0.5 + 0.5·0.5 = 0.75; the marker at 4.5: 0.25 → 0.625. Outside the
/// viewport: the clear (background, depth 1).
#[test]
fn camera_viewport_and_depth_range() {
    let f = render("reach_viewport");
    let bg = f.px(0, 0);
    for (x, y) in [(63, 160), (192, 160), (128, 127), (128, 192), (30, 30)] {
        assert_eq!(f.px(x, y), bg, "({x}, {y}) outside the viewport");
        assert_eq!(f.depth(x, y), 1.0);
    }
    near(f.px(64, 128), [255, 128, 0], 0);
    near(f.px(191, 191), [255, 128, 0], 0);
    near(f.px(128, 160), [0, 128, 255], 0);
    assert!(
        (f.depth(70, 130) - 0.75).abs() < 1e-6,
        "{}",
        f.depth(70, 130)
    );
    assert!(
        (f.depth(128, 160) - 0.625).abs() < 1e-6,
        "{}",
        f.depth(128, 160)
    );
}

/// `reach_radial_fog`: white walls at z = −2 seen by a 90° camera at the origin; linear fog
/// 1..6 towards (0.6, 0, 0), per pixel. Eye depth (left) is 2 everywhere: f = 0.8, colour
/// (0.8 + 0.2·0.6, 0.8, 0.8) = (235, 204, 204). Radial (right): near the centre the distance is
/// still 2 (same colour); at pixel (255, 255), the point (1.992, −1.992, −2) is 3.455 away:
/// f = 0.509, colour (0.804, 0.509, 0.509) = (205, 130, 130).
#[test]
fn radial_fog_grows_towards_the_edges() {
    let f = render("reach_radial_fog");
    near(f.px(0, 0), [235, 204, 204], 1);
    near(f.px(0, 255), [235, 204, 204], 1);
    near(f.px(120, 128), [235, 204, 204], 1);
    near(f.px(128, 128), [235, 204, 204], 1);
    near(f.px(255, 255), [205, 130, 130], 2);
}

fn load_text(text: &str) -> Result<plumb_scene::io::ImportedScene, IoError> {
    let path = Path::new("reach.json");
    let doc = json::parse(path, text)?;
    json::build(&doc, path, &ImportOptions::default())
}

fn scene_with_states(states: &str) -> String {
    format!(
        r#"{{ "format": "plumb-scene", "version": 1,
  "root": {{ "children": [{{ "name": "n", "states": {states}, "mesh": {{ "box": {{}} }} }}] }} }}"#
    )
}

#[test]
fn new_states_reach_the_scene_graph() {
    let s = load_text(&scene_with_states(
        r#"{ "alpha": { "blend": true, "equation": "max", "alpha_equation": "reverse_subtract" },
            "fog": { "distance": "radial" }, "shade": "per_pixel",
            "point_line": { "point_size": 3, "line_width": 2.5 },
            "clip_planes": [[1, 0, 0, 0], [0, 0, 2, -1]] }"#,
    ))
    .unwrap();
    let n = s.scene.find("n").unwrap();
    let r = s.scene.resolved(n).unwrap().states;
    assert_eq!(r.alpha.equation, BlendEquation::Max);
    assert_eq!(r.alpha.alpha_equation, Some(BlendEquation::ReverseSubtract));
    assert_eq!(r.fog.distance, FogDistance::Radial);
    assert_eq!(r.shade, ShadeState::PerPixel);
    assert_eq!(
        (r.point_line.point_size, r.point_line.line_width),
        (3.0, 2.5)
    );
    assert_eq!(
        r.clip_planes.planes[..3],
        [
            Some(Vec4::new(1.0, 0.0, 0.0, 0.0)),
            Some(Vec4::new(0.0, 0.0, 2.0, -1.0)),
            None
        ]
    );
    let states = s.scene.global_states(n).unwrap();
    assert!(states
        .iter()
        .any(|g| matches!(g, GlobalState::PointLine(_))));
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

#[test]
fn bad_new_values_are_typed_errors() {
    rejects(
        &scene_with_states(r#"{ "point_line": { "point_size": 0 } }"#),
        "point_size 0 is outside",
    );
    rejects(
        &scene_with_states(r#"{ "point_line": { "line_width": 2000 } }"#),
        "line_width 2000 is outside",
    );
    rejects(
        &scene_with_states(r#"{ "point_line": { "point_size": NaN } }"#),
        "reach.json",
    );
    rejects(
        &scene_with_states(r#"{ "point_line": { "point_size": 1e39 } }"#),
        "finite number",
    );
    rejects(
        &scene_with_states(
            r#"{ "clip_planes": [[1,0,0,0],[1,0,0,0],[1,0,0,0],[1,0,0,0],[1,0,0,0],[1,0,0,0],[1,0,0,0]] }"#,
        ),
        "7 clip planes; at most 6",
    );
    rejects(
        &scene_with_states(r#"{ "clip_planes": [[0, 0, 0, 1]] }"#),
        "zero normal",
    );
    rejects(
        &scene_with_states(r#"{ "clip_planes": [[1, 0, 0]] }"#),
        "reach.json",
    );
    rejects(
        &scene_with_states(r#"{ "alpha": { "equation": "multiply" } }"#),
        "unknown variant",
    );
    rejects(
        &scene_with_states(r#"{ "fog": { "distance": "range" } }"#),
        "unknown variant",
    );
    rejects(
        &scene_with_states(r#"{ "shade": "phong" }"#),
        "unknown variant",
    );
    let texgen = |coords: &str| {
        format!(
            r#"{{ "format": "plumb-scene", "version": 1, "textures": [{{ "name": "t", "checker": {{}} }}],
  "root": {{ "children": [{{ "name": "n", "mesh": {{ "box": {{}} }},
    "effect": {{ "textures": [{{ "texture": "t", "coords": {coords} }}] }} }}] }} }}"#
        )
    };
    rejects(&texgen(r#"{ "object_linear": [] }"#), "1 to 4 planes");
    rejects(
        &texgen(r#"{ "eye_linear": [[1,0,0,0],[0,1,0,0],[0,0,1,0],[0,0,0,1],[1,1,1,1]] }"#),
        "1 to 4 planes",
    );
    let camera = |fields: &str| {
        format!(
            r#"{{ "format": "plumb-scene", "version": 1, "cameras": [{{ "name": "c", {fields} }}],
  "root": {{ }} }}"#
        )
    };
    rejects(&camera(r#""viewport": [0.5, 0, 0.6, 1]"#), "viewport");
    rejects(&camera(r#""viewport": [0, 0, 0, 1]"#), "viewport");
    rejects(&camera(r#""viewport": [0, 0, 1]"#), "reach.json");
    rejects(&camera(r#""depth_range": [0, 1.5]"#), "depth range");
    rejects(&camera(r#""depth_range": [-0.1, 1]"#), "depth range");
}

/// Every new field survives `parse → save → parse` unchanged, and the saved text of the
/// goldens parses to the same document.
#[test]
fn new_fields_round_trip() {
    let mut cases: Vec<String> = [
        "reach_per_pixel_light",
        "reach_point_line",
        "reach_blend_equations",
        "reach_texgen",
        "reach_clip_planes",
        "reach_viewport",
        "reach_radial_fog",
    ]
    .iter()
    .map(|c| std::fs::read_to_string(case(c)).unwrap())
    .collect();
    cases.push(scene_with_states(
        r#"{ "alpha": { "blend": true, "equation": "subtract", "alpha_equation": "min" },
            "point_line": { "point_size": 3, "line_width": 2.5 }, "clip_planes": [] }"#,
    ));
    for text in &cases {
        let path = Path::new("reach.json");
        let doc: SceneDoc = json::parse(path, text).unwrap();
        let saved = json::save(&doc);
        let again = json::parse(path, &saved).unwrap();
        assert_eq!(doc, again, "{saved}");
        assert_eq!(json::save(&again), saved);
    }
}
