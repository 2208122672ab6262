//! `plumb explain` and `plumb::explain` (issue 32): the history's final colour, depth and
//! stencil are the rendered ones — for every pixel of one golden and seeded rows and pixels
//! of others, at every SIMD level this machine runs; each discard reason is named; the CLI's
//! text, JSON and errors.

use std::path::{Path, PathBuf};

use glam::Vec4;
use plumb::explain::{explain_region, to_json, to_text, Input};
use plumb::raster::explain::{Discard, Event, Explainer, PixelHistory, Value};
use plumb::raster::state::Rect;
use plumb::raster::trace::Trace;
use plumb::raster::{
    AlphaTest, CompareFunc, Context, ContextOptions, DepthState, DrawTarget, Indices,
    PipelineState, SimdLevel, StencilOp, StencilState, Topology, VertexInput,
};
use plumb::scene::{FixedRenderer, SoftRenderer};

use crate::cli_common::{assert_bad_input, assert_success, plumb, stdout, temp_dir};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A small xorshift, so the sampled rows and pixels are the same on every run.
struct Seeded(u64);

impl Seeded {
    fn below(&mut self, n: u32) -> u32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % u64::from(n)) as u32
    }
}

/// The rendered colour, depth and stencil planes.
struct Planes {
    width: u32,
    color: Vec<[u8; 4]>,
    depth: Vec<f32>,
    stencil: Vec<u8>,
}

fn planes(ctx: &mut Context) -> Planes {
    let t = ctx.target();
    let (w, h) = (t.width(), t.height());
    let mut p = Planes {
        width: w,
        color: Vec::new(),
        depth: Vec::new(),
        stencil: Vec::new(),
    };
    for y in 0..h {
        for x in 0..w {
            p.color.push(t.pixel(x, y).unwrap());
            p.depth.push(t.depth_at(x, y).unwrap());
            p.stencil.push(t.stencil_at(x, y).unwrap());
        }
    }
    p
}

/// What a case draws, into any target.
enum Case {
    Trace(Trace),
    Scene(PathBuf),
}

impl Case {
    fn load(rel: &str) -> (Case, (u32, u32)) {
        let path = repo().join("refimages").join(rel);
        if plumb::raster::trace::is_trace_file(&path) {
            let t = Trace::load(&path).unwrap();
            let size = t.size();
            (Case::Trace(t), size)
        } else {
            let size = image::image_dimensions(path.with_extension("png")).unwrap();
            (Case::Scene(path), size)
        }
    }

    fn render(&self, (w, h): (u32, u32), level: SimdLevel) -> Planes {
        match self {
            Case::Trace(t) => {
                let mut ctx = Context::new(w, h, ContextOptions { threads: Some(2) }).unwrap();
                ctx.set_simd_level(level).unwrap();
                t.replay(&mut ctx).unwrap();
                planes(&mut ctx)
            }
            Case::Scene(path) => {
                let mut r = SoftRenderer::new(w, h, Some(2)).unwrap();
                r.context().set_simd_level(level).unwrap();
                plumb::conform::draw_scene_case(path, w, h, &mut r).unwrap();
                planes(r.context())
            }
        }
    }

    fn explain(&self, size: (u32, u32), rect: Rect, level: SimdLevel) -> Vec<PixelHistory> {
        match self {
            Case::Trace(t) => {
                explain_region(Input::Trace(t), size, rect, Some(level), Some(2)).unwrap()
            }
            Case::Scene(path) => {
                let mut ex = Explainer::region(size.0, size.1, rect, Some(2)).unwrap();
                ex.context_mut().set_simd_level(level).unwrap();
                let mut r = FixedRenderer::with_target(ex);
                plumb::conform::draw_scene_case(path, size.0, size.1, &mut r).unwrap();
                r.into_target().finish_histories().unwrap()
            }
        }
    }
}

/// Each history's final values are the render's, and no sampling stage's kernel disagrees
/// with the scalar filter its taps come from.
fn check(case: &str, level: SimdLevel, rendered: &Planes, histories: &[PixelHistory]) -> usize {
    for h in histories {
        let i = (h.y * rendered.width + h.x) as usize;
        let at = format!("{case} at {level}, pixel ({}, {})", h.x, h.y);
        assert_eq!(h.color, rendered.color[i], "{at}: colour");
        assert_eq!(
            h.depth.to_bits(),
            rendered.depth[i].to_bits(),
            "{at}: depth"
        );
        assert_eq!(h.stencil, rendered.stencil[i], "{at}: stencil");
        for f in h.fragments() {
            for s in &f.stages {
                assert!(
                    s.get("reference").is_none(),
                    "{at}: {} kernel ≠ scalar filter",
                    s.name
                );
            }
        }
        // The records end where the target does: the last colour write is the colour.
        let last_write = h.events.iter().rev().find_map(|e| match e {
            Event::Clear(c) => c.color.map(Value::Rgba8),
            Event::Fragment(f) if f.discarded_by.is_none() => f
                .stages
                .iter()
                .find(|s| s.name == "write")
                .and_then(|s| s.get("stored").cloned()),
            Event::Fragment(_) => None,
        });
        assert_eq!(
            last_write,
            Some(Value::Rgba8(h.color)),
            "{at}: the last write"
        );
    }
    histories.len()
}

/// The equality test of issue 32: all 16,384 pixels of `json/metal_rough` (in row bands),
/// and seeded rows and pixels of goldens of every kind (traces of the raster rules and of
/// the fixed-function path, scene files with multipass effects, stencil, blending, fog and
/// textures), at every SIMD level this machine runs.
#[test]
fn histories_end_in_the_rendered_pixel_at_every_simd_level() {
    let sampled = [
        "raster/blend_grid.json",
        "raster/stencil_mask.json",
        "raster/clip_plane_offset.json",
        "raster/wireframe_points.json",
        "fixed/ground_linear_mipmap_linear.json",
        "fixed/wrap_modes.json",
        "fixed/fog_exp2.json",
        "fixed/lit_spheres.json",
        "fixed/gloss_map.json",
        "effects/planar_shadow.json",
        "effects/bump_map.json",
        "scene/state_alpha_test.json",
    ];
    // Every level's histories, stage by stage, are the first level's.
    let mut first: Vec<Vec<PixelHistory>> = Vec::new();
    let levels = SimdLevel::available();
    for (k, &level) in levels.iter().enumerate() {
        let mut same = |h: Vec<PixelHistory>, n: &mut usize| {
            if k == 0 {
                first.push(h);
            } else {
                assert!(
                    first[*n] == h,
                    "{level}: a history differs from {}'s",
                    levels[0]
                );
            }
            *n += 1;
        };
        let mut n = 0;
        let mut checked = 0;
        let (full, size) = Case::load("json/metal_rough.json");
        let rendered = full.render(size, level);
        for y0 in (0..size.1).step_by(32) {
            let rect = Rect {
                x: 0,
                y: y0,
                width: size.0,
                height: 32.min(size.1 - y0),
            };
            let h = full.explain(size, rect, level);
            checked += check("metal_rough", level, &rendered, &h);
            same(h, &mut n);
        }
        let golden = image::open(repo().join("refimages/json/metal_rough.png"))
            .unwrap()
            .to_rgba8();
        assert_eq!(
            rendered
                .color
                .iter()
                .flatten()
                .copied()
                .collect::<Vec<u8>>(),
            golden.into_raw(),
            "metal_rough at {level}: the render is not its golden"
        );
        let mut rng = Seeded(0x9E37_79B9_7F4A_7C15);
        for case in sampled {
            let (c, size) = Case::load(case);
            let rendered = c.render(size, level);
            for _ in 0..2 {
                let row = Rect {
                    x: 0,
                    y: rng.below(size.1),
                    width: size.0,
                    height: 1,
                };
                let h = c.explain(size, row, level);
                checked += check(case, level, &rendered, &h);
                same(h, &mut n);
            }
            for _ in 0..4 {
                let px = Rect {
                    x: rng.below(size.0),
                    y: rng.below(size.1),
                    width: 1,
                    height: 1,
                };
                let h = c.explain(size, px, level);
                checked += check(case, level, &rendered, &h);
                same(h, &mut n);
            }
        }
        assert!(
            checked > 16_384 + 12 * 2 * 128,
            "{level}: only {checked} pixels checked"
        );
        eprintln!("{level}: {checked} pixels, each history's end is the render's");
    }
}

/// A 16×16 target, cleared black, state with the depth test `LESS` and writes.
fn target() -> Explainer {
    let mut ex = Explainer::new(16, 16, 8, 8).unwrap();
    ex.clear(Vec4::new(0.0, 0.0, 0.0, 1.0), 1.0, 0);
    ex
}

fn quad(ex: &mut Explainer, state: &PipelineState, z: f32, color: Vec4) {
    let pos = [
        Vec4::new(-1.0, -1.0, z, 1.0),
        Vec4::new(3.0, -1.0, z, 1.0),
        Vec4::new(-1.0, 3.0, z, 1.0),
    ];
    ex.draw(
        state,
        &VertexInput::colored(&pos, &[color; 3]),
        Indices::None,
        Topology::TriangleList,
    )
    .unwrap();
}

fn reasons(h: &PixelHistory) -> Vec<Option<Discard>> {
    h.fragments().map(|f| f.discarded_by).collect()
}

/// Every discard reason is named, by the stage that decided it.
#[test]
fn each_discard_reason_is_named() {
    let red = Vec4::new(1.0, 0.0, 0.0, 1.0);
    let green = Vec4::new(0.0, 1.0, 0.0, 0.25);
    let base = PipelineState {
        depth: DepthState::LESS_WRITE,
        ..PipelineState::new(16, 16)
    };

    // Depth: a far quad after a near one.
    let mut ex = target();
    quad(&mut ex, &base, 0.25, red);
    quad(&mut ex, &base, 0.75, green);
    let h = ex.finish_history().unwrap();
    assert_eq!(reasons(&h), [None, Some(Discard::Depth)]);
    assert_eq!(h.color, [255, 0, 0, 255]);
    let last = h.fragments().last().unwrap();
    let d = last.stages.iter().find(|s| s.name == "depth_test").unwrap();
    assert_eq!(d.get("pass"), Some(&Value::Bool(false)));

    // Alpha: alpha 0.25 against GREATER 0.5.
    let mut ex = target();
    let alpha = PipelineState {
        alpha_test: AlphaTest {
            func: CompareFunc::Greater,
            reference: 0.5,
        },
        ..base
    };
    quad(&mut ex, &alpha, 0.5, green);
    let h = ex.finish_history().unwrap();
    assert_eq!(reasons(&h), [Some(Discard::Alpha)]);
    assert_eq!(h.color, [0, 0, 0, 255]);

    // Stencil: EQUAL 1 on a cleared (0) stencil.
    let mut ex = target();
    let stencil = PipelineState {
        stencil: StencilState {
            enabled: true,
            func: CompareFunc::Equal,
            reference: 1,
            pass: StencilOp::Replace,
            ..StencilState::DISABLED
        },
        ..base
    };
    quad(&mut ex, &stencil, 0.5, red);
    let h = ex.finish_history().unwrap();
    assert_eq!(reasons(&h), [Some(Discard::Stencil)]);

    // Clip: a user plane keeping x < −0.5 only (the pixel is right of the centre).
    let mut ex = target();
    let mut clip = base;
    clip.clip_planes[0] = Some(Vec4::new(-1.0, 0.0, 0.0, -0.5));
    quad(&mut ex, &clip, 0.5, red);
    let h = ex.finish_history().unwrap();
    assert_eq!(reasons(&h), [Some(Discard::Clip)]);
    assert_eq!(h.color, [0, 0, 0, 255]);

    // Scissor: a rectangle in the top-left corner.
    let mut ex = target();
    let scissor = PipelineState {
        scissor: Some(Rect {
            x: 0,
            y: 0,
            width: 4,
            height: 4,
        }),
        ..base
    };
    quad(&mut ex, &scissor, 0.5, red);
    let h = ex.finish_history().unwrap();
    assert_eq!(reasons(&h), [Some(Discard::Scissor)]);
    assert_eq!(h.color, [0, 0, 0, 255]);

    // Both: clipping comes before the scissor test, so the clip plane is named.
    let mut ex = target();
    let mut both = scissor;
    both.clip_planes[0] = clip.clip_planes[0];
    quad(&mut ex, &both, 0.5, red);
    quad(&mut ex, &scissor, 0.5, green);
    let h = ex.finish_history().unwrap();
    assert_eq!(reasons(&h), [Some(Discard::Clip), Some(Discard::Scissor)]);
}

fn explain_cli(dir: &Path, args: &[&str]) -> String {
    let mut all = vec!["explain"];
    all.extend_from_slice(args);
    let o = plumb(dir, &all);
    assert_success(&o);
    stdout(&o)
}

/// The planar shadow's stencil decides: on the floor inside the shadow, the shadow pass
/// blends over the floor once and the stencil (incremented) keeps a second pass out.
#[test]
fn cli_text_and_json() {
    let dir = temp_dir("explain-cli");
    let case = repo().join("refimages/effects/planar_shadow.json");
    let case = case.to_str().unwrap();
    let text = explain_cli(&dir, &[case, "128", "150", "--size", "256x192"]);
    assert!(
        text.starts_with("pixel (128, 150) of 256x192: color ["),
        "{text}"
    );
    assert!(text.contains("stencil_test"), "{text}");
    let json: serde_json::Value = serde_json::from_str(&explain_cli(
        &dir,
        &[case, "128", "150", "--size", "256x192", "--json"],
    ))
    .unwrap();
    assert_eq!(json["format"], "plumb-pixel-history");
    let fin = &json["final"];
    assert_eq!(fin["color"].as_array().map(Vec::len), Some(4));
    assert!(fin["depth"].is_number() && fin["stencil"].is_number());
    let frags = json["fragments"].as_array().unwrap();
    assert!(!frags.is_empty());
    for f in frags {
        assert!(f["draw"].is_number() && f["primitive"].is_number(), "{f}");
        assert!(
            f["discarded_by"].is_null() || f["discarded_by"].is_string(),
            "{f}"
        );
        for s in f["stages"].as_array().unwrap() {
            assert!(s["name"].is_string() && s["inputs"].is_object() && s["outputs"].is_object());
        }
    }
    // The golden's pixel is the history's final colour.
    let golden = image::open(repo().join("refimages/effects/planar_shadow.png"))
        .unwrap()
        .to_rgba8();
    let want = golden.get_pixel(128, 150).0;
    assert_eq!(fin["color"], serde_json::json!(want));
}

/// Bad input: one `error:` line each.
#[test]
fn cli_errors() {
    let dir = temp_dir("explain-errors");
    let trace = repo().join("refimages/raster/blend_grid.json");
    let trace = trace.to_str().unwrap();
    assert_bad_input(
        &plumb(&dir, &["explain", trace, "320", "0"]),
        "pixel (320, 0) is outside the 320x320 image",
    );
    assert_bad_input(
        &plumb(&dir, &["explain", trace, "0", "0", "--size", "64x64"]),
        "a draw trace renders at its recorded size 320x320",
    );
    assert_bad_input(
        &plumb(&dir, &["explain", trace, "1", "1", "--time", "2"]),
        "--time does not apply to a draw trace",
    );
    let scene = repo().join("refimages/effects/planar_shadow.json");
    let scene = scene.to_str().unwrap();
    assert_bad_input(
        &plumb(&dir, &["explain", scene, "5", "900"]),
        "is outside the 800x600 image",
    );
    assert_bad_input(
        &plumb(&dir, &["explain", "missing.gltf", "0", "0"]),
        "missing.gltf",
    );
}

/// A pixel nothing drew says that only the clear reached it.
#[test]
fn only_the_clear() {
    let mut ex = target();
    let off = PipelineState::new(16, 16);
    let pos = [
        Vec4::new(-1.0, -1.0, 0.5, 1.0),
        Vec4::new(-0.9, -1.0, 0.5, 1.0),
        Vec4::new(-1.0, -0.9, 0.5, 1.0),
    ];
    ex.draw(
        &off,
        &VertexInput::colored(&pos, &[Vec4::ONE; 3]),
        Indices::None,
        Topology::TriangleList,
    )
    .unwrap();
    let h = ex.finish_history().unwrap();
    assert_eq!(h.fragments().count(), 0);
    assert!(
        to_text(&h).contains("only the clear reached it"),
        "{}",
        to_text(&h)
    );
    assert_eq!(to_json(&h)["clears"].as_array().map(Vec::len), Some(1));
}

/// The worked examples of docs/explain.md show what the text says: a blend over a fogged,
/// textured fragment; a depth rejection; the planar shadow's stencil keeping a second
/// layer out. Each final colour is the pixel of `plumb render`'s image.
#[test]
fn worked_examples_show_what_the_docs_say() {
    let dir = temp_dir("explain-examples");
    let json = |args: &[&str]| -> serde_json::Value {
        let mut all = args.to_vec();
        all.push("--json");
        serde_json::from_str(&explain_cli(&dir, &all)).unwrap()
    };
    let rendered = |input: &str, size: &str, x: u32, y: u32| -> [u8; 4] {
        let out = dir.join("r.png");
        let o = plumb(
            &dir,
            &["render", input, "-o", out.to_str().unwrap(), "--size", size],
        );
        assert_success(&o);
        image::open(&out).unwrap().to_rgba8().get_pixel(x, y).0
    };
    let names = |f: &serde_json::Value| -> Vec<String> {
        f["stages"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["name"].as_str().unwrap().to_owned())
            .collect()
    };

    let blend = repo().join("docs/explain/blend.json");
    let blend = blend.to_str().unwrap();
    let h = json(&[blend, "150", "150", "--size", "320x240"]);
    let frags = h["fragments"].as_array().unwrap();
    assert_eq!(frags.len(), 2);
    let floor = names(&frags[0]);
    for stage in [
        "unit0_sample",
        "apply_modulate",
        "fog_factor",
        "fog",
        "write",
    ] {
        assert!(floor.contains(&stage.to_owned()), "{floor:?}");
    }
    assert!(frags[0]["label"].as_str().unwrap().starts_with("'floor'"));
    let glass = names(&frags[1]);
    assert!(glass.contains(&"blend".to_owned()), "{glass:?}");
    // The blend reads what the floor wrote.
    let floor_wrote = &frags[0]["stages"].as_array().unwrap().last().unwrap()["outputs"]["stored"];
    let blend_stage = frags[1]["stages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "blend")
        .unwrap();
    let dst: Vec<f64> = blend_stage["inputs"]["destination"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap())
        .collect();
    let wrote: Vec<f64> = floor_wrote
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap() / 255.0)
        .collect();
    for (a, b) in dst.iter().zip(&wrote) {
        assert!((a - b).abs() < 1e-6, "{dst:?} vs {wrote:?}");
    }
    assert_eq!(
        h["final"]["color"],
        serde_json::json!(rendered(blend, "320x240", 150, 150))
    );

    let depth = repo().join("refimages/raster/depth_overlap.json");
    let h = json(&[depth.to_str().unwrap(), "128", "128"]);
    let reasons: Vec<&serde_json::Value> = h["fragments"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| &f["discarded_by"])
        .collect();
    assert_eq!(
        reasons,
        [
            &serde_json::Value::Null,
            &serde_json::json!("depth"),
            &serde_json::Value::Null
        ]
    );

    let shadow = repo().join("refimages/effects/planar_shadow.json");
    let shadow = shadow.to_str().unwrap();
    let h = json(&[shadow, "150", "110", "--size", "256x192"]);
    let frags = h["fragments"].as_array().unwrap();
    let blended: Vec<&serde_json::Value> = frags
        .iter()
        .filter(|f| names(f).contains(&"blend".to_owned()))
        .collect();
    assert_eq!(blended.len(), 1, "the shadow blends once");
    assert!(blended[0]["label"]
        .as_str()
        .unwrap()
        .starts_with("'torus', scene_effect"));
    let torus_refused = frags.iter().any(|f| {
        f["label"]
            .as_str()
            .is_some_and(|l| l.starts_with("'torus'"))
            && f["discarded_by"] == "stencil"
    });
    assert!(
        torus_refused,
        "the torus's second layer is kept out by the stencil"
    );
    assert_eq!(
        h["final"]["color"],
        serde_json::json!(rendered(shadow, "256x192", 150, 110))
    );
}

/// The library explainer keeps at most its budget of fragments per pixel, in submission
/// order, and counts the rest; the final colour is still the rendered one. Its default
/// bounds a draw of many overlapping triangles too.
#[test]
fn the_library_budget_keeps_the_first_fragments_and_counts_the_rest() {
    let state = PipelineState {
        depth: DepthState {
            func: CompareFunc::Always,
            write: true,
        },
        ..target().default_state()
    };
    let mut ex = target();
    ex.set_max_fragments(10);
    for k in 0..50 {
        quad(
            &mut ex,
            &state,
            0.5,
            Vec4::new(k as f32 / 49.0, 0.0, 1.0, 1.0),
        );
    }
    let h = ex.finish_history().unwrap();
    assert_eq!(h.fragments().count(), 10);
    assert_eq!(h.skipped_fragments, 40);
    // The first ten draws are the ones recorded; the last one set the colour.
    let commands: Vec<u32> = h.fragments().map(|f| f.command).collect();
    assert_eq!(commands, (1..=10).collect::<Vec<u32>>());
    assert_eq!(h.color, [255, 0, 255, 255]);
    assert!(
        to_text(&h).contains("40 more fragment(s)"),
        "{}",
        to_text(&h)
    );
    assert_eq!(to_json(&h)["skipped_fragments"], 40);

    // The default: one draw of many triangles over the pixel.
    let mut ex = target();
    let n = plumb::raster::explain::DEFAULT_MAX_FRAGMENTS as usize + 7;
    let tri = [
        Vec4::new(-1.0, -1.0, 0.5, 1.0),
        Vec4::new(3.0, -1.0, 0.5, 1.0),
        Vec4::new(-1.0, 3.0, 0.5, 1.0),
    ];
    let pos: Vec<Vec4> = tri.iter().copied().cycle().take(3 * n).collect();
    let col = vec![Vec4::ONE; 3 * n];
    ex.draw(
        &state,
        &VertexInput::colored(&pos, &col),
        Indices::None,
        Topology::TriangleList,
    )
    .unwrap();
    let h = ex.finish_history().unwrap();
    assert_eq!(
        h.fragments().count() as u64,
        plumb::raster::explain::DEFAULT_MAX_FRAGMENTS
    );
    assert_eq!(h.skipped_fragments, 7);
}
