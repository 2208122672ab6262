//! Integration tests of `plumb render SCENE`: glTF and OBJ files written by the tests
//! themselves, rendered by the built binary. Expected pixels are worked out by hand from the
//! material-mapping and framing rules (unlit colours are exact products; the framed view is
//! centred on the bound's centre and the bound sphere fits inside the image), never copied
//! from a previous run.

use std::path::{Path, PathBuf};

use image::{Rgba, RgbaImage};
use serde_json::{json, Value};

use crate::cli_common;
use cli_common::*;

/// Renders and returns the image (panics with the output on failure).
fn render(dir: &Path, args: &[&str]) -> RgbaImage {
    let o = plumb(dir, args);
    assert_success(&o);
    let out = args
        .iter()
        .position(|a| *a == "-o")
        .map(|i| args[i + 1])
        .expect("-o in args");
    image::open(dir.join(out)).unwrap().to_rgba8()
}

fn center(img: &RgbaImage) -> [u8; 4] {
    img.get_pixel(img.width() / 2, img.height() / 2).0
}

fn corners(img: &RgbaImage) -> [[u8; 4]; 4] {
    let (w, h) = (img.width() - 1, img.height() - 1);
    [(0, 0), (w, 0), (0, h), (w, h)].map(|(x, y)| img.get_pixel(x, y).0)
}

fn near(a: [u8; 4], b: [u8; 4], tol: u8) -> bool {
    a.iter().zip(b).all(|(&x, y)| x.abs_diff(y) <= tol)
}

// ---------------------------------------------------------------------------------------------
// A tiny glTF writer: one external .bin buffer, accessors appended in order.
// ---------------------------------------------------------------------------------------------

#[derive(Default)]
struct Bin {
    bytes: Vec<u8>,
    views: Vec<Value>,
    accessors: Vec<Value>,
}

impl Bin {
    fn push(&mut self, data: &[u8], accessor: Value) -> usize {
        while !self.bytes.len().is_multiple_of(4) {
            self.bytes.push(0);
        }
        self.views
            .push(json!({"buffer": 0, "byteOffset": self.bytes.len(), "byteLength": data.len()}));
        self.bytes.extend_from_slice(data);
        let mut a = accessor;
        a["bufferView"] = json!(self.views.len() - 1);
        self.accessors.push(a);
        self.accessors.len() - 1
    }

    fn floats(&mut self, data: &[f32], ty: &str, count: usize, minmax: Option<Value>) -> usize {
        let bytes: Vec<u8> = data.iter().flat_map(|x| x.to_le_bytes()).collect();
        let mut a = json!({"componentType": 5126, "count": count, "type": ty});
        if let Some(mm) = minmax {
            a["min"] = mm[0].clone();
            a["max"] = mm[1].clone();
        }
        self.push(&bytes, a)
    }

    fn indices(&mut self, data: &[u16]) -> usize {
        let bytes: Vec<u8> = data.iter().flat_map(|x| x.to_le_bytes()).collect();
        self.push(
            &bytes,
            json!({"componentType": 5123, "count": data.len(), "type": "SCALAR"}),
        )
    }

    /// Writes `name.gltf` (with `doc` completed by the buffer) and `name.bin` into `dir`.
    fn write(&self, dir: &Path, name: &str, mut doc: Value) -> PathBuf {
        doc["asset"] = json!({"version": "2.0"});
        doc["buffers"] = json!([{"byteLength": self.bytes.len(), "uri": format!("{name}.bin")}]);
        doc["bufferViews"] = json!(self.views);
        doc["accessors"] = json!(self.accessors);
        std::fs::write(dir.join(format!("{name}.bin")), &self.bytes).unwrap();
        let path = dir.join(format!("{name}.gltf"));
        std::fs::write(&path, serde_json::to_string_pretty(&doc).unwrap()).unwrap();
        path
    }
}

/// What the test quad carries.
#[derive(Clone)]
struct Quad {
    /// The material object (`pbrMetallicRoughness` etc.).
    material: Value,
    /// One COLOR_0 for every vertex.
    vertex_color: Option<[f32; 4]>,
    /// A texture as a PNG file name already written next to the file.
    texture: Option<&'static str>,
    /// Extra top-level nodes (cameras) and their camera objects.
    cameras: Vec<(Value, Value)>,
    /// A translation animation of the quad node: x at t = 0 and t = 1.
    animate_x: Option<(f32, f32)>,
    /// A second clip of this duration that holds the quad's scale at 1 (moves nothing).
    still_clip: Option<f32>,
    /// Extra top-level nodes carrying `KHR_lights_punctual` lights, and the light objects.
    lights: Vec<(Value, Value)>,
}

impl Quad {
    fn new(material: Value) -> Quad {
        Quad {
            material,
            vertex_color: None,
            texture: None,
            cameras: Vec::new(),
            animate_x: None,
            still_clip: None,
            lights: Vec::new(),
        }
    }
}

/// Unlit material JSON with base colour `c`.
fn unlit(c: [f32; 4]) -> Value {
    json!({"pbrMetallicRoughness": {"baseColorFactor": c},
           "extensions": {"KHR_materials_unlit": {}}})
}

/// The square (−1, −1)..(1, 1) in z = 0 facing +z (counter-clockwise from +z), with normals
/// and uvs (v down, glTF's convention), as `dir/name.gltf`.
fn write_quad(dir: &Path, name: &str, q: &Quad) -> PathBuf {
    let mut b = Bin::default();
    let pos = b.floats(
        &[
            -1.0, -1.0, 0.0, 1.0, -1.0, 0.0, 1.0, 1.0, 0.0, -1.0, 1.0, 0.0,
        ],
        "VEC3",
        4,
        Some(json!([[-1.0, -1.0, 0.0], [1.0, 1.0, 0.0]])),
    );
    let nrm = b.floats(&[0.0, 0.0, 1.0].repeat(4), "VEC3", 4, None);
    let uv = b.floats(&[0.0, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0], "VEC2", 4, None);
    let idx = b.indices(&[0, 1, 2, 0, 2, 3]);
    let mut attributes = json!({"POSITION": pos, "NORMAL": nrm, "TEXCOORD_0": uv});
    if let Some(c) = q.vertex_color {
        attributes["COLOR_0"] = json!(b.floats(&c.repeat(4), "VEC4", 4, None));
    }
    let mut material = q.material.clone();
    let mut doc = json!({
        "extensionsUsed": ["KHR_materials_unlit", "KHR_texture_transform", "KHR_lights_punctual"],
        "scene": 0,
        "nodes": [{"name": "quad", "mesh": 0}],
        "meshes": [{"name": "quad", "primitives": [{"attributes": attributes, "indices": idx, "material": 0}]}],
    });
    if let Some(png) = q.texture {
        doc["images"] = json!([{"uri": png}]);
        doc["samplers"] = json!([{"magFilter": 9728, "minFilter": 9728}]);
        doc["textures"] = json!([{"source": 0, "sampler": 0}]);
        material["pbrMetallicRoughness"]["baseColorTexture"] = json!({"index": 0});
    }
    doc["materials"] = json!([material]);
    let mut roots = vec![0];
    let mut cameras = Vec::new();
    for (node, camera) in &q.cameras {
        let mut node = node.clone();
        node["camera"] = json!(cameras.len());
        cameras.push(camera.clone());
        doc["nodes"].as_array_mut().unwrap().push(node);
        roots.push(roots.len());
    }
    if !cameras.is_empty() {
        doc["cameras"] = json!(cameras);
    }
    let mut lights = Vec::new();
    for (node, light) in &q.lights {
        let mut node = node.clone();
        node["extensions"] = json!({"KHR_lights_punctual": {"light": lights.len()}});
        lights.push(light.clone());
        doc["nodes"].as_array_mut().unwrap().push(node);
        roots.push(roots.len());
    }
    if !lights.is_empty() {
        doc["extensions"] = json!({"KHR_lights_punctual": {"lights": lights}});
    }
    doc["scenes"] = json!([{"nodes": roots}]);
    if let Some((x0, x1)) = q.animate_x {
        let times = b.floats(&[0.0, 1.0], "SCALAR", 2, Some(json!([[0.0], [1.0]])));
        let values = b.floats(&[x0, 0.0, 0.0, x1, 0.0, 0.0], "VEC3", 2, None);
        doc["animations"] = json!([{
            "channels": [{"sampler": 0, "target": {"node": 0, "path": "translation"}}],
            "samplers": [{"input": times, "output": values, "interpolation": "LINEAR"}]
        }]);
    }
    if let Some(d) = q.still_clip {
        let times = b.floats(&[0.0, d], "SCALAR", 2, Some(json!([[0.0], [d]])));
        let values = b.floats(&[1.0; 6], "VEC3", 2, None);
        let clip = json!({
            "channels": [{"sampler": 0, "target": {"node": 0, "path": "scale"}}],
            "samplers": [{"input": times, "output": values, "interpolation": "LINEAR"}]
        });
        match doc["animations"].as_array_mut() {
            Some(clips) => clips.push(clip),
            None => doc["animations"] = json!([clip]),
        }
    }
    b.write(dir, name, doc)
}

/// A perspective camera node at `(0, 0, z)`, looking down −z, or, `away`, turned to look
/// down +z (away from the quad).
fn camera_node(name: &str, z: f32, away: bool) -> (Value, Value) {
    let mut node = json!({"name": name, "translation": [0.0, 0.0, z]});
    if away {
        node["rotation"] = json!([0.0, 1.0, 0.0, 0.0]);
    }
    let camera = json!({"name": name, "type": "perspective",
                        "perspective": {"yfov": 0.8, "znear": 0.1, "zfar": 100.0}});
    (node, camera)
}

const RED: [u8; 4] = [255, 0, 0, 255];
const BLUE_BG: [u8; 4] = [0, 0, 255, 255];

// ---------------------------------------------------------------------------------------------
// Rendering
// ---------------------------------------------------------------------------------------------

#[test]
fn unlit_quad_is_framed_with_background_in_the_corners() {
    let dir = temp_dir("framed");
    write_quad(&dir, "q", &Quad::new(unlit([1.0, 0.0, 0.0, 1.0])));
    let o = plumb(
        &dir,
        &[
            "render",
            "q.gltf",
            "-o",
            "q.png",
            "--size",
            "64x48",
            "--background",
            "0,0,1,1",
        ],
    );
    assert_success(&o);
    assert!(stdout(&o).contains("wrote q.png (64x48)"));
    let img = image::open(dir.join("q.png")).unwrap().to_rgba8();
    assert_eq!((img.width(), img.height()), (64, 48));
    // The framed view is centred on the quad's centre; unlit red is exactly red.
    assert_eq!(center(&img), RED);
    // The bound sphere (radius √2, margin 1.1) fits inside the view: corners are background.
    assert_eq!(corners(&img), [BLUE_BG; 4]);
}

#[test]
fn unlit_flag_differs_from_lit_and_matches_base_colour() {
    let dir = temp_dir("unlit");
    let lit_red = json!({"pbrMetallicRoughness": {"baseColorFactor": [1.0, 0.0, 0.0, 1.0],
                         "metallicFactor": 0.0}});
    write_quad(&dir, "q", &Quad::new(lit_red));
    let lit = render(
        &dir,
        &["render", "q.gltf", "-o", "lit.png", "--size", "48x48"],
    );
    let flat = render(
        &dir,
        &[
            "render",
            "q.gltf",
            "-o",
            "unlit.png",
            "--size",
            "48x48",
            "--unlit",
        ],
    );
    assert_ne!(lit, flat);
    assert_eq!(center(&flat), RED);
    // Lit: the key light does not hit the quad head-on (framing looks from an angle), so
    // red is below full and a little specular green/blue is added.
    let c = center(&lit);
    assert!(c[0] > 100 && c[0] < 255, "{c:?}");
}

#[test]
fn punctual_lights_follow_the_documented_rule() {
    // The classic mapping's rule (`--shading classic`); the PBR stage's lights have analytic
    // tests of their own (plumb-raster's `pbr` tests, `tests/it/environment.rs`).
    let dir = temp_dir("lights");
    // A red dielectric (Kd = (1, 0, 0), Ks = 0.04, roughness 1 → shininess 1), seen head-on
    // by a camera at (0, 0, 3); no default rig is added when the file has lights.
    let red = json!({"pbrMetallicRoughness": {"baseColorFactor": [1.0, 0.0, 0.0, 1.0],
                     "metallicFactor": 0.0, "roughnessFactor": 1.0}});
    let lit_by = |name: &str, node: Value, light: Value| {
        let q = Quad {
            cameras: vec![camera_node("front", 3.0, false)],
            lights: vec![(node, light)],
            ..Quad::new(red.clone())
        };
        write_quad(&dir, name, &q);
    };
    // Directional, intensity 0.5, shining down −z onto the quad: diffuse 0.5·1 on red, the
    // specular 0.04·0.5 (N·H = 1 with the infinite viewer) on every channel.
    lit_by(
        "sun",
        json!({"name": "sun"}),
        json!({"type": "directional", "intensity": 0.5}),
    );
    let sun = render(
        &dir,
        &[
            "render",
            "sun.gltf",
            "-o",
            "sun.png",
            "--size",
            "32x32",
            "--shading",
            "classic",
        ],
    );
    assert!(
        near(center(&sun), [133, 5, 5, 255], 1),
        "{:?}",
        center(&sun)
    );
    // Point light of 4 cd at (0, 0, 2). Lighting is per vertex (Gouraud) and all four
    // corners (±1, ±1, 0) see it alike: d² = 6, N·L = 2/√6, so diffuse = 4/6 · 2/√6 = 0.544;
    // H = normalize(L + (0, 0, 1)) gives N·H = 0.953, specular = 0.04 · 0.953 · 4/6 = 0.025.
    // Red = 0.570 → 145, green = blue = 0.025 → 6.
    lit_by(
        "bulb",
        json!({"name": "bulb", "translation": [0.0, 0.0, 2.0]}),
        json!({"type": "point", "intensity": 4.0}),
    );
    let bulb = render(
        &dir,
        &[
            "render",
            "bulb.gltf",
            "-o",
            "bulb.png",
            "--size",
            "32x32",
            "--shading",
            "classic",
        ],
    );
    assert!(
        near(center(&bulb), [145, 6, 6, 255], 1),
        "{:?}",
        center(&bulb)
    );
    // Twice the intensity doubles the attenuated terms: red 1.139 → 255, specular 0.051 → 13.
    lit_by(
        "bright",
        json!({"name": "bright", "translation": [0.0, 0.0, 2.0]}),
        json!({"type": "point", "intensity": 8.0}),
    );
    let bright = render(
        &dir,
        &[
            "render",
            "bright.gltf",
            "-o",
            "bright.png",
            "--size",
            "32x32",
            "--shading",
            "classic",
        ],
    );
    assert!(
        near(center(&bright), [255, 13, 13, 255], 1),
        "{:?}",
        center(&bright)
    );
}

#[test]
fn threads_1_and_2_give_identical_files() {
    let dir = temp_dir("threads");
    let tex = RgbaImage::from_fn(8, 8, |x, y| {
        Rgba([(x * 32) as u8, (y * 32) as u8, 200, 255])
    });
    tex.save(dir.join("t.png")).unwrap();
    let q = Quad {
        texture: Some("t.png"),
        vertex_color: Some([1.0, 0.5, 1.0, 1.0]),
        ..Quad::new(json!({"pbrMetallicRoughness": {"baseColorFactor": [1.0, 1.0, 1.0, 1.0]}}))
    };
    write_quad(&dir, "q", &q);
    let a = ["render", "q.gltf", "--size", "96x64", "--threads"];
    assert_success(&plumb(&dir, &[&a[..], &["1", "-o", "t1.png"]].concat()));
    assert_success(&plumb(&dir, &[&a[..], &["2", "-o", "t2.png"]].concat()));
    let t1 = std::fs::read(dir.join("t1.png")).unwrap();
    let t2 = std::fs::read(dir.join("t2.png")).unwrap();
    assert!(
        t1 == t2,
        "--threads 1 and --threads 2 wrote different bytes"
    );
}

#[test]
fn base_colour_times_vertex_colour_times_texture_unlit() {
    let dir = temp_dir("product");
    RgbaImage::from_pixel(2, 2, Rgba([255, 128, 255, 255]))
        .save(dir.join("t.png"))
        .unwrap();
    let q = Quad {
        texture: Some("t.png"),
        vertex_color: Some([0.5, 1.0, 1.0, 1.0]),
        ..Quad::new(unlit([1.0, 1.0, 0.0, 1.0]))
    };
    write_quad(&dir, "q", &q);
    let img = render(
        &dir,
        &["render", "q.gltf", "-o", "q.png", "--size", "32x32"],
    );
    // base (1, 1, 0) × vertex (0.5, 1, 1) × texel (1, 128/255, 1) = (0.5, 0.502, 0).
    let c = center(&img);
    assert!(near(c, [128, 128, 0, 255], 1), "{c:?}");
}

#[test]
fn alpha_blend_and_mask() {
    let dir = temp_dir("alpha");
    let mat = |mode: &str, cutoff: Option<f32>| {
        let mut m = unlit([1.0, 0.0, 0.0, 0.4]);
        m["alphaMode"] = json!(mode);
        if let Some(c) = cutoff {
            m["alphaCutoff"] = json!(c);
        }
        m
    };
    let args = |name: &'static str| -> Vec<&'static str> {
        vec![
            "render",
            name,
            "-o",
            "a.png",
            "--size",
            "32x32",
            "--background",
            "0,0,1,1",
        ]
    };
    // BLEND: 0.4·red + 0.6·blue.
    write_quad(&dir, "blend", &Quad::new(mat("BLEND", None)));
    let c = center(&render(&dir, &args("blend.gltf")));
    assert!(near([c[0], c[1], c[2], 0], [102, 0, 153, 0], 1), "{c:?}");
    // MASK: alpha 0.4 fails a 0.5 cutoff and passes a 0.3 one.
    write_quad(&dir, "mask5", &Quad::new(mat("MASK", Some(0.5))));
    assert_eq!(center(&render(&dir, &args("mask5.gltf"))), BLUE_BG);
    write_quad(&dir, "mask3", &Quad::new(mat("MASK", Some(0.3))));
    let c = center(&render(&dir, &args("mask3.gltf")));
    assert_eq!(&c[..3], &[255, 0, 0]);
    // OPAQUE: alpha ignored, written as 1.
    write_quad(&dir, "opaque", &Quad::new(mat("OPAQUE", None)));
    assert_eq!(center(&render(&dir, &args("opaque.gltf"))), RED);
}

#[test]
fn eye_override_and_double_sided() {
    let dir = temp_dir("sided");
    write_quad(&dir, "one", &Quad::new(unlit([1.0, 0.0, 0.0, 1.0])));
    let mut two = unlit([1.0, 0.0, 0.0, 1.0]);
    two["doubleSided"] = json!(true);
    write_quad(&dir, "two", &Quad::new(two));
    let view = |file: &'static str, eye: &'static str| -> Vec<&'static str> {
        vec![
            "render",
            file,
            "-o",
            "s.png",
            "--size",
            "32x32",
            "--background",
            "0,0,1,1",
            "--eye",
            eye,
            "--target",
            "0,0,0",
        ]
    };
    assert_eq!(center(&render(&dir, &view("one.gltf", "0,0,3"))), RED);
    // From behind, the single-sided quad is culled; the double-sided one is drawn.
    assert_eq!(center(&render(&dir, &view("one.gltf", "0,0,-3"))), BLUE_BG);
    assert_eq!(center(&render(&dir, &view("two.gltf", "0,0,-3"))), RED);
}

#[test]
fn camera_by_name_and_index() {
    let dir = temp_dir("cameras");
    let q = Quad {
        cameras: vec![
            camera_node("front", 3.0, false),
            camera_node("away", 3.0, true),
        ],
        ..Quad::new(unlit([1.0, 0.0, 0.0, 1.0]))
    };
    write_quad(&dir, "q", &q);
    let cam = |sel: Option<&'static str>, out: &'static str| -> RgbaImage {
        let mut a = vec!["render", "q.gltf", "-o", out, "--size", "40x40"];
        a.extend(["--background", "0,0,1,1"]);
        if let Some(s) = sel {
            a.extend(["--camera", s]);
        }
        render(&dir, &a)
    };
    let default = cam(None, "d.png");
    let front = cam(Some("front"), "f.png");
    let zero = cam(Some("0"), "0.png");
    let away = cam(Some("away"), "a.png");
    let one = cam(Some("1"), "1.png");
    // yfov 0.8 at distance 3: the quad's half-size 1 is 1/(3·tan 0.4) ≈ 0.79 of the half-view.
    assert_eq!(center(&front), RED);
    assert_eq!(corners(&front), [BLUE_BG; 4]);
    assert_eq!(front, default, "the first camera is the default");
    assert_eq!(front, zero);
    // Looking away from the quad: only background.
    assert!(away.pixels().all(|p| p.0 == BLUE_BG));
    assert_eq!(away, one);
}

#[test]
fn time_moves_an_animated_node_and_frames_are_numbered() {
    let dir = temp_dir("time");
    let q = Quad {
        animate_x: Some((0.0, 0.8)),
        ..Quad::new(unlit([1.0, 0.0, 0.0, 1.0]))
    };
    write_quad(&dir, "q", &q);
    let at = |t: &'static str, out: &'static str| {
        render(
            &dir,
            &[
                "render", "q.gltf", "-o", out, "--size", "48x32", "--time", t,
            ],
        )
    };
    let t0 = at("0", "t0.png");
    let t1 = at("1", "t1.png");
    assert_ne!(t0, t1, "--time must move the animated quad");
    let o = plumb(
        &dir,
        &[
            "render", "q.gltf", "-o", "seq.png", "--size", "48x32", "--frames", "3", "--fps", "2",
        ],
    );
    assert_success(&o);
    for i in 0..3 {
        assert!(dir.join(format!("seq_{i:04}.png")).exists(), "frame {i}");
    }
    assert!(!dir.join("seq_0003.png").exists());
    assert!(!dir.join("seq.png").exists());
    // Frame i is at t = i/2: frame 0 is t = 0 and frame 2 is t = 1.
    let frame = |i: u32| {
        image::open(dir.join(format!("seq_{i:04}.png")))
            .unwrap()
            .to_rgba8()
    };
    assert_eq!(frame(0), t0);
    assert_eq!(frame(2), t1);
    assert_ne!(frame(1), t0);
}

/// A sequence's PNG files are encoded on other threads while the next frames draw: the files
/// (colour and depth) are byte for byte those of one-frame renders at each frame's time, and
/// a write that fails stops the run with one line naming the first failing file.
#[test]
fn sequences_write_the_files_of_single_frames() {
    let dir = temp_dir("frames-overlap");
    let q = Quad {
        animate_x: Some((0.0, 0.8)),
        ..Quad::new(unlit([0.2, 0.9, 0.4, 1.0]))
    };
    write_quad(&dir, "q", &q);
    let base = ["render", "q.gltf", "--size", "40x24", "--threads", "2"];
    let run = |extra: &[&str]| {
        let mut args = base.to_vec();
        args.extend_from_slice(extra);
        let o = plumb(&dir, &args);
        assert_success(&o);
    };
    run(&[
        "-o",
        "s.png",
        "--depth-out",
        "d.png",
        "--frames",
        "8",
        "--fps",
        "4",
    ]);
    let bytes = |name: String| std::fs::read(dir.join(name)).unwrap();
    for i in 0..8u32 {
        let t = format!("{}", f64::from(i) / 4.0);
        run(&["-o", "one.png", "--depth-out", "oned.png", "--time", &t]);
        assert_eq!(
            bytes(format!("s_{i:04}.png")),
            bytes("one.png".into()),
            "frame {i}"
        );
        assert_eq!(
            bytes(format!("d_{i:04}.png")),
            bytes("oned.png".into()),
            "depth {i}"
        );
    }
    let mut args = base.to_vec();
    args.extend_from_slice(&["-o", "missing/s.png", "--frames", "5"]);
    assert_bad_input(&plumb(&dir, &args), "missing/s_0000.png");
}

/// `--frame-range` renders part of the `--frames` sequence, numbered and timed as it: a
/// farm's jobs together write exactly the sequence's files, byte for byte.
#[test]
fn frame_ranges_are_slices_of_the_sequence() {
    let dir = temp_dir("frame-range");
    let q = Quad {
        animate_x: Some((0.0, 0.8)),
        ..Quad::new(unlit([1.0, 0.0, 0.0, 1.0]))
    };
    write_quad(&dir, "q", &q);
    let base = ["render", "q.gltf", "--size", "48x32", "--fps", "4"];
    let run = |out: &str, extra: &[&str]| {
        let mut args = base.to_vec();
        args.extend_from_slice(&["-o", out]);
        args.extend_from_slice(extra);
        let o = plumb(&dir, &args);
        assert_success(&o);
        stdout(&o)
    };
    run("all.png", &["--frames", "6"]);
    let said = run("job.png", &["--frame-range", "0..2"]);
    assert!(
        said.contains("wrote 2 frames job_0000.png .. job_0001.png"),
        "{said}"
    );
    run("job.png", &["--frame-range", "2..=3"]);
    run("job.png", &["--frame-range", "4..6"]);
    let bytes = |name: String| std::fs::read(dir.join(name)).unwrap();
    for i in 0..6 {
        assert_eq!(
            bytes(format!("job_{i:04}.png")),
            bytes(format!("all_{i:04}.png")),
            "frame {i}"
        );
    }
    assert!(!dir.join("job_0006.png").exists());
    for (range, msg) in [
        ("3..3", "is empty"),
        ("x..2", "not a frame number"),
        ("0..200000", "at most 100000"),
    ] {
        let mut args = base.to_vec();
        args.extend_from_slice(&["-o", "bad.png", "--frame-range", range]);
        assert_bad_input(&plumb(&dir, &args), msg);
    }
}

#[test]
fn depth_out_is_a_16_bit_png() {
    let dir = temp_dir("depth");
    write_quad(&dir, "q", &Quad::new(unlit([1.0, 0.0, 0.0, 1.0])));
    assert_success(&plumb(
        &dir,
        &[
            "render",
            "q.gltf",
            "-o",
            "c.png",
            "--size",
            "32x24",
            "--depth-out",
            "d.png",
        ],
    ));
    let depth = image::open(dir.join("d.png")).unwrap().to_luma16();
    assert_eq!((depth.width(), depth.height()), (32, 24));
    // Background keeps the far clear value; the quad is nearer.
    assert_eq!(depth.get_pixel(0, 0).0[0], u16::MAX);
    assert!(depth.get_pixel(16, 12).0[0] < u16::MAX);
}

#[test]
fn obj_with_mtl() {
    let dir = temp_dir("obj");
    std::fs::write(dir.join("q.mtl"), "newmtl green\nKd 0 1 0\n").unwrap();
    std::fs::write(
        dir.join("q.obj"),
        "mtllib q.mtl\nv -1 -1 0\nv 1 -1 0\nv 1 1 0\nv -1 1 0\nusemtl green\nf 1 2 3 4\n",
    )
    .unwrap();
    let args = [
        "render",
        "q.obj",
        "--size",
        "32x32",
        "--background",
        "0,0,1,1",
    ];
    let flat = render(&dir, &[&args[..], &["-o", "u.png", "--unlit"]].concat());
    assert_eq!(center(&flat), [0, 255, 0, 255]);
    assert_eq!(corners(&flat), [BLUE_BG; 4]);
    let lit = render(&dir, &[&args[..], &["-o", "l.png"]].concat());
    let c = center(&lit);
    assert!(c[1] > 60 && c[0] < c[1] && c[2] < c[1], "{c:?}");
}

#[test]
fn glb_renders_like_gltf() {
    let dir = temp_dir("glb");
    let path = write_quad(&dir, "q", &Quad::new(unlit([1.0, 0.0, 0.0, 1.0])));
    // Repack as GLB: JSON chunk without the buffer URI, then the BIN chunk.
    let mut doc: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    let bin = std::fs::read(dir.join("q.bin")).unwrap();
    doc["buffers"] = json!([{"byteLength": bin.len()}]);
    let mut j = serde_json::to_vec(&doc).unwrap();
    while !j.len().is_multiple_of(4) {
        j.push(b' ');
    }
    let mut b = bin.clone();
    while !b.len().is_multiple_of(4) {
        b.push(0);
    }
    let mut glb = Vec::new();
    glb.extend_from_slice(b"glTF");
    glb.extend_from_slice(&2u32.to_le_bytes());
    glb.extend_from_slice(&((12 + 8 + j.len() + 8 + b.len()) as u32).to_le_bytes());
    glb.extend_from_slice(&(j.len() as u32).to_le_bytes());
    glb.extend_from_slice(b"JSON");
    glb.extend_from_slice(&j);
    glb.extend_from_slice(&(b.len() as u32).to_le_bytes());
    glb.extend_from_slice(b"BIN\0");
    glb.extend_from_slice(&b);
    std::fs::write(dir.join("q.glb"), &glb).unwrap();
    let a = render(
        &dir,
        &["render", "q.gltf", "-o", "a.png", "--size", "32x32"],
    );
    let b = render(&dir, &["render", "q.glb", "-o", "b.png", "--size", "32x32"]);
    assert_eq!(center(&a), RED);
    assert_eq!(a, b);
    // A truncated GLB is bad input.
    std::fs::write(dir.join("cut.glb"), &glb[..glb.len() / 2]).unwrap();
    assert_bad_input(
        &plumb(&dir, &["render", "cut.glb", "-o", "x.png"]),
        "cut.glb",
    );
}

// ---------------------------------------------------------------------------------------------
// Bad input: exit 2, one line, never a panic
// ---------------------------------------------------------------------------------------------

#[test]
fn bad_files() {
    let dir = temp_dir("bad-files");
    let run = |file: &str| plumb(&dir, &["render", file, "-o", "x.png", "--size", "16x16"]);
    assert_bad_input(&run("missing.gltf"), "missing.gltf");
    std::fs::write(dir.join("garbage.gltf"), "{ this is not json").unwrap();
    assert_bad_input(&run("garbage.gltf"), "garbage.gltf");
    std::fs::write(dir.join("garbage.glb"), b"glTF\x02\0\0\0garbage").unwrap();
    assert_bad_input(&run("garbage.glb"), "garbage.glb");
    std::fs::write(dir.join("bad.obj"), "v 0 0 0\nf 1 2 3\n").unwrap();
    assert_bad_input(&run("bad.obj"), "bad.obj");
    std::fs::write(dir.join("scene.txt"), "hello").unwrap();
    assert_bad_input(&run("scene.txt"), "scene.txt");
    // A glTF whose buffer file is missing.
    write_quad(&dir, "nobin", &Quad::new(unlit([1.0; 4])));
    std::fs::remove_file(dir.join("nobin.bin")).unwrap();
    assert_bad_input(&run("nobin.gltf"), "nobin");
    // Writing into a directory that does not exist.
    write_quad(&dir, "ok", &Quad::new(unlit([1.0; 4])));
    assert_bad_input(
        &plumb(&dir, &["render", "ok.gltf", "-o", "no/such/dir/x.png"]),
        "x.png",
    );
}

#[test]
fn bad_arguments() {
    let dir = temp_dir("bad-args");
    let q = Quad {
        cameras: vec![camera_node("front", 3.0, false)],
        ..Quad::new(unlit([1.0; 4]))
    };
    write_quad(&dir, "q", &q);
    let run = |extra: &[&str]| {
        let mut a = vec!["render", "q.gltf", "-o", "x.png", "--size", "16x16"];
        a.extend_from_slice(extra);
        plumb(&dir, &a)
    };
    let cases: &[(&[&str], &str)] = &[
        (&["--size", "0x0"], "--size"),
        (&["--size", "100000x100000"], "--size"),
        (&["--eye", "1,2"], "--eye"),
        (&["--eye", "1,NaN,2"], "--eye"),
        (&["--target", "x,y,z"], "--target"),
        (&["--up", "0,inf,0"], "--up"),
        (&["--fov", "NaN"], "--fov"),
        (&["--fov", "180"], "--fov"),
        (&["--near", "-1"], "--near"),
        (&["--time", "nan"], "--time"),
        (&["--background", "0,0,2,1"], "--background"),
        (&["--frames", "0"], "--frames"),
        (&["--fps", "24"], "--fps needs --frames or --frame-range"),
        (&["--frames", "2", "--frame-range", "0..2"], "--frame-range"),
        (&["--camera", "nope"], "no camera named 'nope'"),
        (&["--camera", "7"], "camera index 7 is out of range"),
        (&["--near", "10", "--far", "1"], "--fov/--near/--far"),
        (
            &["--eye", "1,1,1", "--target", "1,1,1"],
            "--eye/--target/--up",
        ),
        (
            &["--eye", "0,3,0", "--target", "0,0,0"],
            "--eye/--target/--up",
        ),
    ];
    for (extra, expect) in cases {
        let o = run(extra);
        assert_bad_input(&o, expect);
    }
    // Scene-only options without a scene.
    assert_bad_input(
        &plumb(&dir, &["render", "--camera", "0", "-o", "x.png"]),
        "needs a SCENE",
    );
}

/// A draw trace (`format: plumb-draws`) is played back at its recorded size: the result is the
/// golden committed beside it, at any thread count; options that only make sense for scenes,
/// a different `--size` and broken traces are one-line errors (exit 2).
#[test]
fn draw_traces_render_as_recorded() {
    let dir = temp_dir("trace");
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let trace = repo.join("refimages/raster/stencil_mask.json");
    let trace_s = trace.to_string_lossy().into_owned();
    let golden = image::open(repo.join("refimages/raster/stencil_mask.png"))
        .unwrap()
        .to_rgba8();
    for threads in ["1", "2"] {
        let img = render(&dir, &[&trace_s, "-o", "t.png", "--threads", threads]);
        assert!(img == golden, "{threads} threads");
    }
    // The recorded size may be given; another one may not.
    let (w, h) = golden.dimensions();
    let same = format!("{w}x{h}");
    render(&dir, &[&trace_s, "-o", "t.png", "--size", &same]);
    let o = plumb(&dir, &[&trace_s, "-o", "t.png", "--size", "64x64"]);
    assert_bad_input(&o, "renders at its recorded size");
    let o = plumb(&dir, &[&trace_s, "-o", "t.png", "--unlit"]);
    assert_bad_input(&o, "--unlit does not apply to a draw trace");
    // A trace whose buffer is missing, and one cut short.
    let text = std::fs::read_to_string(&trace).unwrap();
    std::fs::write(dir.join("lost.json"), &text).unwrap();
    let o = plumb(&dir, &["lost.json", "-o", "t.png"]);
    assert_bad_input(&o, "stencil_mask.bin");
    std::fs::write(dir.join("cut.json"), &text[..text.len() / 2]).unwrap();
    let o = plumb(&dir, &["cut.json", "-o", "t.png"]);
    // Not a complete trace, so it is read as a scene file, which reports the JSON error.
    assert_bad_input(&o, "cut.json");
}

/// `--trace-out` records what the scene graph hands the rasteriser: replaying the trace gives
/// the rendered bytes — for a multipass effect scene, a textured fogged one, and one whose
/// layers clear depth in a rectangle between passes (`clear_rect` commands).
#[test]
fn scene_renders_record_a_trace_that_replays_to_the_same_bytes() {
    let dir = temp_dir("trace-out");
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    for (case, clear_rects) in [
        ("json/planar_shadow_env", false),
        ("json/textured_fog", false),
        ("json/reach_layers", true),
    ] {
        let scene = repo.join(format!("refimages/{case}.json"));
        let scene_s = scene.to_string_lossy().into_owned();
        let direct = render(
            &dir,
            &[
                &scene_s,
                "-o",
                "d.png",
                "--size",
                "96x72",
                "--trace-out",
                "t.json",
            ],
        );
        let text = std::fs::read_to_string(dir.join("t.json")).unwrap();
        assert!(
            text.contains("\"draw_fixed\""),
            "{case}: no fixed-function draw"
        );
        assert_eq!(text.contains("\"clear_rect\""), clear_rects, "{case}");
        let replayed = render(&dir, &["t.json", "-o", "r.png"]);
        assert!(replayed == direct, "{case}: the replayed trace differs");
    }
    let scene = repo.join("refimages/json/textured_fog.json");
    let scene_s = scene.to_string_lossy().into_owned();
    let o = plumb(&dir, &[&scene_s, "-o", "d.png", "--trace-out", "t.trace"]);
    assert_bad_input(&o, "name the trace's .json file");
    let o = plumb(&dir, &["t.json", "-o", "d.png", "--trace-out", "u.json"]);
    assert_bad_input(&o, "--trace-out does not apply to a draw trace");
}

/// A file that *requires* a material refinement plumb does not model renders with the base
/// material and one `warning:` line naming the file and the extension; `info` lists every
/// extension the file uses with what plumb did (text and `--json`).
#[test]
fn required_material_refinement_renders_the_base_material_with_one_warning() {
    let dir = temp_dir("refinement");
    let mut material = unlit([1.0, 0.0, 0.0, 1.0]);
    material["extensions"]["KHR_materials_clearcoat"] = json!({"clearcoatFactor": 1.0});
    let path = write_quad(&dir, "q", &Quad::new(material));
    let mut doc: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    doc["extensionsUsed"]
        .as_array_mut()
        .unwrap()
        .push(json!("KHR_materials_clearcoat"));
    doc["extensionsRequired"] = json!(["KHR_materials_clearcoat"]);
    std::fs::write(&path, doc.to_string()).unwrap();

    let o = plumb(
        &dir,
        &["render", "q.gltf", "-o", "q.png", "--size", "32x32"],
    );
    assert_success(&o);
    let err = stderr(&o);
    let warnings: Vec<&str> = err.lines().filter(|l| l.starts_with("warning:")).collect();
    assert_eq!(warnings.len(), 1, "{err}");
    assert!(
        warnings[0].contains("q.gltf") && warnings[0].contains("requires KHR_materials_clearcoat"),
        "{err}"
    );
    let img = image::open(dir.join("q.png")).unwrap().to_rgba8();
    assert_eq!(center(&img), RED);

    let o = plumb(&dir, &["info", "q.gltf"]);
    assert_success(&o);
    let out = stdout(&o);
    assert!(
        out.contains("extension KHR_materials_clearcoat (required): ignored (the base material")
            && out.contains("extension KHR_materials_unlit: honoured"),
        "{out}"
    );
    let o = plumb(&dir, &["info", "q.gltf", "--json"]);
    assert_success(&o);
    let v: Value = serde_json::from_str(&stdout(&o)).unwrap();
    let ext = v["extensions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["name"] == "KHR_materials_clearcoat")
        .cloned()
        .unwrap();
    assert_eq!(ext["required"], true);
    assert_eq!(ext["handling"], "ignored");
}

/// The metal map (`metallicRoughnessTexture`, scene::io::apply): a render of
/// `refimages/json/metal_rough` with `--shading classic`, checked at every stripe against
/// the documented rule computed here from the file's numbers: diffuse `C·Ld·(1 − m/2)` per
/// texel (the map's texel `⌊(1 − m/2)·255 + ½⌋/255`), plus one specular `Ks·Ls` per material
/// with `Ks = 0.04 + (C − 0.04)·m̄` at the texture's mean metallic m̄ (the light is head-on,
/// so N·L = N·H = 1; no ambient light). Stripe 0 is a dielectric, stripe 3 a metal.
#[test]
fn metal_map_follows_the_documented_rule() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("refimages/json");
    let base = [0.9f64, 0.6, 0.2];
    let (ld, ls) = (0.6f64, 0.5f64);
    let metallic = [0.0f64, 85.0, 170.0, 255.0].map(|b| b / 255.0);
    let mean = metallic.iter().sum::<f64>() / 4.0;
    let expect = |m: f64| -> [u8; 4] {
        let map = ((1.0 - m / 2.0) * 255.0 + 0.5).floor() / 255.0;
        let ch = |c: f64| {
            let ks = 0.04 + (c - 0.04) * mean;
            let v = (c * ld * map + ks * ls).clamp(0.0, 1.0);
            (v * 255.0 + 0.5).floor() as u8
        };
        [ch(base[0]), ch(base[1]), ch(base[2]), 255]
    };
    let dir = temp_dir("metal-map");
    let fresh = render(
        &root,
        &[
            "render",
            "metal_rough.json",
            "-o",
            dir.join("m.png").to_str().unwrap(),
            "--size",
            "128x128",
            "--shading",
            "classic",
        ],
    );
    // The golden draws the imported file with the PBR stage (the default since issue 53);
    // this is the classic mapping's rule.
    let img = &fresh;
    // The quad spans x = 12..119, four stripes of about 27 pixels: x = 23 + 27·k is inside
    // stripe k.
    for (k, &m) in metallic.iter().enumerate() {
        let x = 23 + 27 * k as u32;
        let got = img.get_pixel(x, 64).0;
        let want = expect(m);
        assert!(
            got.iter().zip(want).all(|(&g, w)| g.abs_diff(w) <= 1),
            "stripe {k} (metallic {m:.3}): got {got:?}, the rule gives {want:?}"
        );
    }
    // Not a vacuous rule: the metal stripe is visibly darker than the dielectric one.
    assert!(expect(1.0)[0] + 40 < expect(0.0)[0]);
}

/// `q.gltf` of `dir` rendered at 48 × 32 at time `t` into `out`, with `extra` arguments.
fn quad_at(dir: &Path, t: &str, out: &str, extra: &[&str]) -> RgbaImage {
    let mut args = vec![
        "render", "q.gltf", "-o", out, "--size", "48x32", "--time", t,
    ];
    args.extend_from_slice(extra);
    render(dir, &args)
}

/// `--loop repeat` plays a clip again past its end (time modulo its duration, 1 s here), as
/// three.js does; the default `clamp` holds the last pose.
#[test]
fn loop_repeat_wraps_the_clip_and_clamp_holds_its_end() {
    let dir = temp_dir("loop");
    let q = Quad {
        animate_x: Some((0.0, 0.8)),
        ..Quad::new(unlit([1.0, 0.0, 0.0, 1.0]))
    };
    write_quad(&dir, "q", &q);
    let at = |t: &str, out: &str, extra: &[&str]| quad_at(&dir, t, out, extra);
    let quarter = at("0.25", "a.png", &[]);
    let end = at("1", "b.png", &[]);
    assert_ne!(quarter, end, "the clip moves the quad");
    assert_eq!(at("1.25", "c.png", &["--loop", "repeat"]), quarter);
    assert_eq!(at("-0.75", "d.png", &["--loop", "repeat"]), quarter);
    assert_eq!(at("1.25", "e.png", &[]), end);
    assert_eq!(at("1.25", "f.png", &["--loop", "clamp"]), end);
    let o = plumb(
        &dir,
        &["render", "q.gltf", "-o", "g.png", "--loop", "sometimes"],
    );
    assert_bad_input(&o, "sometimes");
}

/// `--loop repeat` wraps each clip by its own duration, as three.js's `LoopRepeat` does, not
/// by the longest playing clip's: with a 1 s clip moving the quad and a 2 s clip that moves
/// nothing, t = 1.25 s is the moving clip at 0.25 s (wrapped by the longest, it would be
/// at its end).
#[test]
fn loop_repeat_wraps_each_clip_by_its_own_duration() {
    let dir = temp_dir("loop-each");
    let q = Quad {
        animate_x: Some((0.0, 0.8)),
        still_clip: Some(2.0),
        ..Quad::new(unlit([1.0, 0.0, 0.0, 1.0]))
    };
    write_quad(&dir, "q", &q);
    let at = |t: &str, out: &str, extra: &[&str]| quad_at(&dir, t, out, extra);
    let quarter = at("0.25", "a.png", &[]);
    let end = at("1", "b.png", &[]);
    assert_ne!(quarter, end, "the 1 s clip moves the quad");
    assert_eq!(at("1.25", "c.png", &["--loop", "repeat"]), quarter);
    assert_eq!(at("3.25", "d.png", &["--loop", "repeat"]), quarter);
    assert_eq!(at("1.25", "e.png", &[]), end);
}

/// `KHR_materials_variants`: `--variant NAME|INDEX` draws the chosen variant's material,
/// each primitive's own without it; `info` lists the variants; an unknown variant is a
/// one-line error listing them; a mapping to a material that does not exist is refused.
#[test]
fn variant_picks_the_mapped_material() {
    let dir = temp_dir("variants");
    let path = write_quad(&dir, "q", &Quad::new(unlit([1.0, 0.0, 0.0, 1.0])));
    let mut doc: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    doc["materials"]
        .as_array_mut()
        .unwrap()
        .push(unlit([0.0, 0.0, 1.0, 1.0]));
    doc["extensions"]["KHR_materials_variants"] =
        json!({"variants": [{"name": "day"}, {"name": "night"}]});
    doc["meshes"][0]["primitives"][0]["extensions"] = json!({"KHR_materials_variants": {
        "mappings": [{"material": 1, "variants": [1]}]
    }});
    doc["extensionsUsed"]
        .as_array_mut()
        .unwrap()
        .push(json!("KHR_materials_variants"));
    std::fs::write(&path, doc.to_string()).unwrap();
    let at = |out: &str, extra: &[&str]| {
        let mut args = vec!["render", "q.gltf", "-o", out, "--size", "32x32"];
        args.extend_from_slice(extra);
        center(&render(&dir, &args))
    };
    assert_eq!(at("a.png", &[]), RED);
    assert_eq!(at("b.png", &["--variant", "night"]), [0, 0, 255, 255]);
    assert_eq!(at("c.png", &["--variant", "1"]), [0, 0, 255, 255]);
    // "day" maps nothing here: each primitive keeps its own material.
    assert_eq!(at("d.png", &["--variant", "day"]), RED);
    let o = plumb(
        &dir,
        &["render", "q.gltf", "-o", "e.png", "--variant", "dusk"],
    );
    assert_bad_input(&o, "0 'day', 1 'night'");
    let o = plumb(&dir, &["info", "q.gltf"]);
    assert_success(&o);
    assert!(stdout(&o).contains("variant 1 'night'"), "{}", stdout(&o));

    doc["meshes"][0]["primitives"][0]["extensions"]["KHR_materials_variants"]["mappings"][0]
        ["material"] = json!(7);
    std::fs::write(&path, doc.to_string()).unwrap();
    let o = plumb(
        &dir,
        &["render", "q.gltf", "-o", "f.png", "--variant", "night"],
    );
    assert_bad_input(&o, "material is not one of the file's 2 materials");
}
