//! `plumb render --clip` and the clip list of `plumb info`, on small glTF files written by the
//! tests. Expected images are other renders of files that hold only the chosen clip (so the
//! rule "only that clip plays" is checked against an independent file, not against itself),
//! and expected text is counted from the files written here.

use std::path::Path;

use image::RgbaImage;
use serde_json::{json, Value};

use crate::cli_common;
use cli_common::*;

/// One external buffer, accessors appended in order.
#[derive(Default)]
struct Bin {
    bytes: Vec<u8>,
    views: Vec<Value>,
    accessors: Vec<Value>,
}

impl Bin {
    fn floats(&mut self, data: &[f32], ty: &str, count: usize, minmax: Option<Value>) -> usize {
        while !self.bytes.len().is_multiple_of(4) {
            self.bytes.push(0);
        }
        let bytes: Vec<u8> = data.iter().flat_map(|x| x.to_le_bytes()).collect();
        self.views
            .push(json!({"buffer": 0, "byteOffset": self.bytes.len(), "byteLength": bytes.len()}));
        self.bytes.extend_from_slice(&bytes);
        let mut a = json!({"componentType": 5126, "count": count, "type": ty,
                           "bufferView": self.views.len() - 1});
        if let Some(mm) = minmax {
            a["min"] = mm[0].clone();
            a["max"] = mm[1].clone();
        }
        self.accessors.push(a);
        self.accessors.len() - 1
    }

    /// Two triangles of the quad 0 1 2 3, as unsigned bytes.
    fn quad_indices(&mut self) -> usize {
        while !self.bytes.len().is_multiple_of(4) {
            self.bytes.push(0);
        }
        let idx = [0u8, 1, 2, 0, 2, 3];
        self.views
            .push(json!({"buffer": 0, "byteOffset": self.bytes.len(), "byteLength": idx.len()}));
        self.bytes.extend_from_slice(&idx);
        self.accessors
            .push(json!({"componentType": 5121, "count": 6, "type": "SCALAR",
                                   "bufferView": self.views.len() - 1}));
        self.accessors.len() - 1
    }
}

/// The clips a test file carries.
#[derive(Clone, Copy, PartialEq)]
enum Clip {
    /// `slide`: the left quad's translation, x from −1.5 at t = 0 to −0.5 at t = 1.
    Slide,
    /// `back`: the left quad's translation too, x from −1.5 to −2.5 (overlaps `slide`).
    Back,
    /// `grow`: the right quad's morph weight from 0 at t = 0 to 1 at t = 1 (the target
    /// moves its top edge up by 1).
    Grow,
}

/// Two unlit quads side by side (red at x = −1.5, green morphed at x = +1.5) and a camera
/// looking at both from z = 8, with the `clips` in that order, as `dir/name.gltf`.
fn write(dir: &Path, name: &str, clips: &[Clip]) {
    let mut b = Bin::default();
    let quad = [
        -0.5, -0.5, 0.0, 0.5, -0.5, 0.0, 0.5, 0.5, 0.0, -0.5, 0.5, 0.0,
    ];
    let mm = Some(json!([[-0.5, -0.5, 0.0], [0.5, 0.5, 0.0]]));
    let pos = b.floats(&quad, "VEC3", 4, mm.clone());
    let pos2 = b.floats(&quad, "VEC3", 4, mm);
    let delta = [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 0.0];
    let target = b.floats(
        &delta,
        "VEC3",
        4,
        Some(json!([[0.0, 0.0, 0.0], [0.0, 1.0, 0.0]])),
    );
    let times = b.floats(&[0.0, 1.0], "SCALAR", 2, Some(json!([[0.0], [1.0]])));
    let slide = b.floats(&[-1.5, 0.0, 0.0, -0.5, 0.0, 0.0], "VEC3", 2, None);
    let back = b.floats(&[-1.5, 0.0, 0.0, -2.5, 0.0, 0.0], "VEC3", 2, None);
    let grow = b.floats(&[0.0, 1.0], "SCALAR", 2, None);
    let idx = b.quad_indices();
    let unlit = |c: [f32; 4]| {
        json!({"pbrMetallicRoughness": {"baseColorFactor": c},
               "extensions": {"KHR_materials_unlit": {}}})
    };
    let mut animations = Vec::new();
    for c in clips {
        let (name, output, node, path) = match c {
            Clip::Slide => ("slide", slide, 0, "translation"),
            Clip::Back => ("back", back, 0, "translation"),
            Clip::Grow => ("grow", grow, 1, "weights"),
        };
        animations.push(json!({
            "name": name,
            "samplers": [{"input": times, "output": output, "interpolation": "LINEAR"}],
            "channels": [{"sampler": 0, "target": {"node": node, "path": path}}]
        }));
    }
    let mut doc = json!({
        "asset": {"version": "2.0"},
        "extensionsUsed": ["KHR_materials_unlit"],
        "scene": 0,
        "scenes": [{"nodes": [0, 1, 2]}],
        "nodes": [
            {"name": "left", "mesh": 0, "translation": [-1.5, 0.0, 0.0]},
            {"name": "right", "mesh": 1, "translation": [1.5, 0.0, 0.0]},
            {"name": "eye", "camera": 0, "translation": [0.0, 0.0, 8.0]}
        ],
        "cameras": [{"type": "perspective",
                     "perspective": {"yfov": 0.7, "znear": 0.1, "zfar": 100.0}}],
        "meshes": [
            {"primitives": [{"attributes": {"POSITION": pos}, "indices": idx, "material": 0}]},
            {"primitives": [{"attributes": {"POSITION": pos2}, "indices": idx, "material": 1,
                             "targets": [{"POSITION": target}]}],
             "weights": [0.0]}
        ],
        "materials": [unlit([1.0, 0.0, 0.0, 1.0]), unlit([0.0, 1.0, 0.0, 1.0])],
        "buffers": [{"byteLength": b.bytes.len(), "uri": format!("{name}.bin")}],
        "bufferViews": b.views,
        "accessors": b.accessors,
    });
    if !animations.is_empty() {
        doc["animations"] = json!(animations);
    }
    std::fs::write(dir.join(format!("{name}.bin")), &b.bytes).unwrap();
    std::fs::write(
        dir.join(format!("{name}.gltf")),
        serde_json::to_string_pretty(&doc).unwrap(),
    )
    .unwrap();
}

/// `plumb render FILE.gltf --size 64x32 --time T -o OUT [extra...]`, the image.
fn render(dir: &Path, file: &str, t: &str, out: &str, extra: &[&str]) -> RgbaImage {
    let mut args = vec!["render", file, "-o", out, "--size", "64x32", "--time", t];
    args.extend_from_slice(extra);
    let o = plumb(dir, &args);
    assert_success(&o);
    image::open(dir.join(out)).unwrap().to_rgba8()
}

#[test]
fn clip_plays_only_that_animation_with_its_morph_weights() {
    let dir = temp_dir("only");
    write(&dir, "all", &[Clip::Slide, Clip::Grow]);
    write(&dir, "slide", &[Clip::Slide]);
    write(&dir, "grow", &[Clip::Grow]);
    write(&dir, "rest", &[]);
    let rest = render(&dir, "rest.gltf", "1", "rest.png", &[]);
    let slide_only = render(&dir, "slide.gltf", "1", "s.png", &[]);
    let grow_only = render(&dir, "grow.gltf", "1", "g.png", &[]);
    assert_ne!(slide_only, rest, "the slide moves the red quad");
    assert_ne!(
        grow_only, rest,
        "the morph weight moves the green quad's top"
    );
    // By name and by index, at t = 1.
    assert_eq!(
        render(&dir, "all.gltf", "1", "a.png", &["--clip", "slide"]),
        slide_only
    );
    assert_eq!(
        render(&dir, "all.gltf", "1", "b.png", &["--clip", "0"]),
        slide_only
    );
    assert_eq!(
        render(&dir, "all.gltf", "1", "c.png", &["--clip", "grow"]),
        grow_only
    );
    assert_eq!(
        render(&dir, "all.gltf", "1", "d.png", &["--clip", "1"]),
        grow_only
    );
    // Without --clip both play: neither single-clip image.
    let both = render(&dir, "all.gltf", "1", "e.png", &[]);
    assert_ne!(both, slide_only);
    assert_ne!(both, grow_only);
}

#[test]
fn clip_with_frames_poses_every_frame_of_that_clip() {
    let dir = temp_dir("frames");
    write(&dir, "all", &[Clip::Slide, Clip::Grow]);
    write(&dir, "grow", &[Clip::Grow]);
    let o = plumb(
        &dir,
        &[
            "render", "all.gltf", "-o", "seq.png", "--size", "64x32", "--frames", "3", "--fps",
            "2", "--clip", "grow",
        ],
    );
    assert_success(&o);
    // Frame i is at t = i/2.
    for (i, t) in [(0, "0"), (1, "0.5"), (2, "1")] {
        let frame = image::open(dir.join(format!("seq_{i:04}.png")))
            .unwrap()
            .to_rgba8();
        let single = render(&dir, "grow.gltf", t, &format!("g{i}.png"), &[]);
        assert_eq!(frame, single, "frame {i}");
    }
}

#[test]
fn overlapping_clips_the_later_one_wins() {
    let dir = temp_dir("overlap");
    write(&dir, "both", &[Clip::Slide, Clip::Back]);
    write(&dir, "slide", &[Clip::Slide]);
    write(&dir, "back", &[Clip::Back]);
    let slide = render(&dir, "slide.gltf", "1", "s.png", &[]);
    let back = render(&dir, "back.gltf", "1", "b.png", &[]);
    assert_ne!(slide, back);
    // Both drive the left quad's translation: the later one in the file (`back`) wins.
    assert_eq!(render(&dir, "both.gltf", "1", "x.png", &[]), back);
    assert_eq!(
        render(&dir, "both.gltf", "1", "y.png", &["--clip", "slide"]),
        slide
    );
}

#[test]
fn unknown_clip_is_one_line_listing_the_clips() {
    let dir = temp_dir("bad");
    write(&dir, "all", &[Clip::Slide, Clip::Grow]);
    write(&dir, "rest", &[]);
    let run = |file: &str, clip: &str| {
        plumb(
            &dir,
            &[
                "render", file, "-o", "x.png", "--size", "16x16", "--clip", clip,
            ],
        )
    };
    let o = run("all.gltf", "jump");
    assert_bad_input(&o, "'jump'");
    assert_bad_input(&o, "0 'slide', 1 'grow'");
    let o = run("all.gltf", "2");
    assert_bad_input(&o, "out of range");
    assert_bad_input(&o, "0 'slide', 1 'grow'");
    assert_bad_input(&run("rest.gltf", "0"), "no animations");
    assert!(!dir.join("x.png").exists());
    // Not a glTF file; no scene file at all.
    std::fs::write(dir.join("t.obj"), "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n").unwrap();
    assert_bad_input(&run("t.obj", "0"), "glTF");
    assert_bad_input(
        &plumb(&dir, &["render", "-o", "x.png", "--clip", "0"]),
        "--clip",
    );
}

#[test]
fn info_lists_the_clips() {
    let dir = temp_dir("info");
    write(&dir, "all", &[Clip::Slide, Clip::Grow]);
    let o = plumb(&dir, &["info", "all.gltf"]);
    assert_success(&o);
    let text = stdout(&o);
    // Each clip: one channel, keys at 0 and 1 s; `slide` drives one node's transform,
    // `grow` none (morph weights only).
    assert!(
        text.contains("animation 0 'slide': 1 s, 1 channels, 1 nodes"),
        "{text}"
    );
    assert!(
        text.contains("animation 1 'grow': 1 s, 1 channels, 0 nodes"),
        "{text}"
    );
    let o = plumb(&dir, &["info", "all.gltf", "--json"]);
    assert_success(&o);
    let v: Value = serde_json::from_str(&stdout(&o)).unwrap();
    let a = &v["animations"];
    assert_eq!(a[0]["name"], "slide");
    assert_eq!(a[0]["channels"], 1);
    assert_eq!(a[1]["name"], "grow");
    assert_eq!(a[1]["duration"], 1.0);
    assert_eq!(a[1]["channels"], 1);
}
