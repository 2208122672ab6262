//! The golden-image test (DESIGN §6): one binary, every case under `refimages/<area>/`.
//!
//! - A case is a file pair `refimages/<area>/<case>.json` + `<case>.png`, discovered by the
//!   harness. The JSON is a scene file (format `plumb-scene`, rendered through the scene graph
//!   from its first camera at the size of its PNG) or a draw trace (format `plumb-draws`,
//!   `plumb_raster::trace`, with its `<case>.bin`: draw calls played straight into a
//!   `plumb-raster` context). The `raster/` and `fixed/` areas are traces.
//! - The traces are recorded from Rust functions in `tests/cases/` (they say what each case
//!   draws and why); the test checks that every function still records exactly its
//!   committed trace, so the two cannot drift apart. One raster case, `mesh_200k`, is drawn
//!   by its function directly: its trace would be 5.4 MB.
//! - Each case is rendered with 1, 2 and 7 worker threads; the three results must be
//!   identical (colour and depth) — the determinism contract — and must equal the golden
//!   exactly. CI runs this binary in release *and* debug, so both profiles match the goldens.
//! - Every case is checked before the test fails; the report lists each failure with the
//!   number of differing pixels, the largest channel delta, and the paths of
//!   `target/refimages/<area>/<case>.actual.png` and `.diff.png` (difference ×16).
//! - A missing golden fails; a golden without a case fails. `PLUMB_BLESS=1` writes the traces
//!   of the Rust cases and then the goldens instead of comparing — open every image you bless.

mod cases;

use std::path::{Path, PathBuf};

use glam::{Vec2, Vec4};
use image::RgbaImage;
use plumb::raster::trace::{DrawTarget, Recorder, Trace};
use plumb::raster::{Context, ContextOptions};
use plumb::scene::io::{self, ImportOptions};
use plumb::scene::{AlphaState, Camera, Scene, ScreenLayer, ScreenPolygon, SoftRenderer};

/// The source of a trace case: a name and a function drawing into a target of the given
/// size (recorded into `refimages/<area>/<name>.json` + `.bin`).
pub struct Case {
    /// File stem of the golden.
    pub name: &'static str,
    /// Target size.
    pub size: (u32, u32),
    /// Draws the scene (the harness clears nothing itself).
    pub draw: fn(&mut dyn DrawTarget),
}

/// A case file `refimages/<area>/<name>.json`: a scene file rendered from its first camera,
/// or a draw trace played back.
struct JsonCase {
    name: String,
    path: PathBuf,
    size: (u32, u32),
    trace: bool,
}

/// What one render gives: colour and depth, or why it could not be made.
type Rendered = Result<(RgbaImage, Vec<f32>), String>;

/// Anything the harness can render at a given thread count.
trait Golden {
    fn name(&self) -> &str;
    fn render(&self, threads: usize) -> Rendered;
}

impl Golden for Case {
    fn name(&self) -> &str {
        self.name
    }
    fn render(&self, threads: usize) -> Rendered {
        draw_direct(self.size, threads, |ctx| {
            (self.draw)(ctx);
            Ok(())
        })
    }
}

/// Draws into a fresh `w × h` context with `threads` workers and reads back colour and depth.
fn draw_direct(
    (w, h): (u32, u32),
    threads: usize,
    draw: impl FnOnce(&mut Context) -> Result<(), String>,
) -> Rendered {
    let mut ctx = Context::new(
        w,
        h,
        ContextOptions {
            threads: Some(threads),
        },
    )
    .map_err(|e| e.to_string())?;
    draw(&mut ctx)?;
    let img = ctx.color_image();
    Ok((img, ctx.target().depth_values()))
}

impl Golden for JsonCase {
    fn name(&self) -> &str {
        &self.name
    }
    fn render(&self, threads: usize) -> Rendered {
        if self.trace {
            let trace = Trace::load(&self.path).map_err(|e| e.to_string())?;
            return draw_direct(trace.size(), threads, |ctx| {
                trace.replay(ctx).map_err(|e| e.to_string())
            });
        }
        let loaded = io::load(&self.path, &ImportOptions::default()).map_err(|e| e.to_string())?;
        let mut scene = loaded.scene;
        let cam = loaded
            .imported
            .cameras
            .first()
            .ok_or_else(|| format!("{}: the scene file has no camera", self.path.display()))?;
        let aspect = self.size.0 as f32 / self.size.1 as f32;
        let camera = cam.to_camera(&scene, aspect).map_err(|e| e.to_string())?;
        let mut r = SoftRenderer::new(self.size.0, self.size.1, Some(threads))
            .map_err(|e| e.to_string())?;
        draw_scene(&mut r, &mut scene, &camera)?;
        Ok((r.image(), r.depth()))
    }
}

/// Draws `scene` from `camera`, ending with a full-screen overlay of colour (0, 0, 0, 1)
/// blended ADDITIVE (`src + dst`): it leaves RGB unchanged and forces the stored alpha to 1,
/// so image viewers show the colours as stored (DESIGN §6).
fn draw_scene(r: &mut SoftRenderer, scene: &mut Scene, camera: &Camera) -> Result<(), String> {
    let corners = [
        Vec2::new(0.0, 0.0),
        Vec2::new(1.0, 0.0),
        Vec2::new(1.0, 1.0),
        Vec2::new(0.0, 1.0),
    ];
    let mut fix = ScreenPolygon::convex(
        &corners,
        Vec4::new(0.0, 0.0, 0.0, 1.0),
        ScreenLayer::Overlay,
    )
    .map_err(|e| e.to_string())?;
    fix.states.alpha = AlphaState::ADDITIVE;
    scene.add_screen_polygon(fix);
    scene.draw(camera, r).map_err(|e| e.to_string())?;
    Ok(())
}

/// The SortFaces case re-sorts its transparent faces every frame; the sort is stable, so a
/// second frame equals the first (the golden shows one frame).
#[test]
fn transparent_sort_is_stable_across_frames() {
    let path = root().join("refimages/scene/sorted_cube_faces.json");
    let loaded = io::load(&path, &ImportOptions::default()).unwrap();
    let mut scene = loaded.scene;
    let camera = loaded.imported.cameras[0].to_camera(&scene, 1.0).unwrap();
    let mut r = SoftRenderer::new(64, 64, Some(2)).unwrap();
    scene.draw(&camera, &mut r).unwrap();
    let first = r.image();
    scene.draw(&camera, &mut r).unwrap();
    assert!(
        r.image() == first,
        "the second frame differs from the first"
    );
}

/// The scene-file cases of an area, sorted by name.
fn json_cases(area: &str) -> Vec<JsonCase> {
    let dir = root().join("refimages").join(area);
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Vec::new();
    };
    let mut paths: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    paths.sort();
    paths
        .into_iter()
        .map(|path| {
            let name = path
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            let size = image::image_dimensions(path.with_extension("png")).unwrap_or((256, 256));
            // A draw trace says so in its "format"; anything else is read as a scene file.
            let trace = plumb::raster::trace::is_trace_file(&path);
            JsonCase {
                name,
                path,
                size,
                trace,
            }
        })
        .collect()
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

struct Diff {
    pixels: usize,
    max_delta: u8,
}

fn diff(a: &RgbaImage, b: &RgbaImage) -> Option<Diff> {
    if a.dimensions() != b.dimensions() {
        return Some(Diff {
            pixels: usize::MAX,
            max_delta: 255,
        });
    }
    let mut d = Diff {
        pixels: 0,
        max_delta: 0,
    };
    for (p, q) in a.pixels().zip(b.pixels()) {
        let m =
            p.0.iter()
                .zip(&q.0)
                .map(|(x, y)| x.abs_diff(*y))
                .max()
                .unwrap_or(0);
        if m > 0 {
            d.pixels += 1;
            d.max_delta = d.max_delta.max(m);
        }
    }
    (d.pixels > 0).then_some(d)
}

fn diff_image(a: &RgbaImage, b: &RgbaImage) -> RgbaImage {
    RgbaImage::from_fn(
        a.width().min(b.width()),
        a.height().min(b.height()),
        |x, y| {
            let (p, q) = (a.get_pixel(x, y).0, b.get_pixel(x, y).0);
            let d = |i: usize| (u32::from(p[i].abs_diff(q[i])) * 16).min(255) as u8;
            let alpha = d(3);
            image::Rgba([d(0).max(alpha), d(1).max(alpha), d(2).max(alpha), 255])
        },
    )
}

fn check_area(area: &str, cases: &[&dyn Golden], failures: &mut Vec<String>) {
    let dir = root().join("refimages").join(area);
    let out = root().join("target").join("refimages").join(area);
    let bless = std::env::var("PLUMB_BLESS").is_ok_and(|v| v == "1");
    for (i, case) in cases.iter().enumerate() {
        if cases[..i].iter().any(|c| c.name() == case.name()) {
            failures.push(format!("{area}/{}: two cases of this name", case.name()));
            continue;
        }
        let (img, depth) = match case.render(1) {
            Ok(r) => r,
            Err(e) => {
                failures.push(format!("{area}/{}: {e}", case.name()));
                continue;
            }
        };
        for threads in [2, 7] {
            let Ok((img_n, depth_n)) = case.render(threads) else {
                failures.push(format!("{area}/{}: {threads} threads failed", case.name()));
                continue;
            };
            if img_n != img
                || depth_n
                    .iter()
                    .zip(&depth)
                    .any(|(a, b)| a.to_bits() != b.to_bits())
            {
                failures.push(format!(
                    "{area}/{}: {threads} threads differ from 1 thread",
                    case.name()
                ));
            }
        }
        let golden = dir.join(format!("{}.png", case.name()));
        if bless {
            std::fs::create_dir_all(&dir).unwrap();
            img.save(&golden).unwrap();
            eprintln!("blessed {}", golden.display());
            continue;
        }
        let expected = match image::open(&golden) {
            Ok(g) => g.to_rgba8(),
            Err(e) => {
                failures.push(format!(
                    "{area}/{}: missing golden {} ({e})",
                    case.name(),
                    golden.display()
                ));
                continue;
            }
        };
        if let Some(d) = diff(&img, &expected) {
            std::fs::create_dir_all(&out).unwrap();
            let actual = out.join(format!("{}.actual.png", case.name()));
            let diff_path = out.join(format!("{}.diff.png", case.name()));
            img.save(&actual).unwrap();
            diff_image(&img, &expected).save(&diff_path).unwrap();
            failures.push(format!(
                "{area}/{}: {} pixels differ, max channel delta {}; actual {}, diff {}",
                case.name(),
                d.pixels,
                d.max_delta,
                actual.display(),
                diff_path.display()
            ));
        }
    }
    // Goldens nobody renders are stale: fail on them too.
    if let Ok(entries) = std::fs::read_dir(&dir) {
        let mut names: Vec<String> = entries
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".png"))
            .collect();
        names.sort();
        for n in names {
            let stem = n.trim_end_matches(".png");
            if !cases.iter().any(|c| c.name() == stem) {
                failures.push(format!("{area}/{n}: golden without a case"));
            }
        }
    }
}

/// Records every Rust trace source and compares it with its committed trace (JSON text and
/// buffer bytes), or writes it when blessing.
fn check_trace_sources(failures: &mut Vec<String>, bless: bool) {
    for (area, cases) in [
        ("raster", cases::raster::CASES),
        ("fixed", cases::fixed::CASES),
    ] {
        let dir = root().join("refimages").join(area);
        for case in cases {
            let path = dir.join(format!("{}.json", case.name));
            let mut rec = Recorder::new(case.size.0, case.size.1).expect("case size is valid");
            (case.draw)(&mut rec);
            let trace = rec.finish(&format!("{}.bin", case.name));
            if bless {
                std::fs::create_dir_all(&dir).unwrap();
                trace.save(&path).unwrap();
                eprintln!("recorded {}", path.display());
                continue;
            }
            let same = Trace::load(&path).is_ok_and(|committed| {
                committed.buffer == trace.buffer
                    && std::fs::read_to_string(&path)
                        .is_ok_and(|text| trace.to_json().is_ok_and(|t| t == text))
            });
            if !same {
                failures.push(format!(
                    "{area}/{}: tests/cases records a different trace than {} (re-record with PLUMB_BLESS=1)",
                    case.name,
                    path.display()
                ));
            }
        }
    }
}

#[test]
fn refimages() {
    let mut failures = Vec::new();
    let bless = std::env::var("PLUMB_BLESS").is_ok_and(|v| v == "1");
    check_trace_sources(&mut failures, bless);
    // Every folder of refimages/ is an area of case files, except `models/`: renders of
    // third-party glTF models that are not in the repository, checked by
    // `tests/model_goldens.rs` when the models are at hand.
    let mut areas: Vec<String> = std::fs::read_dir(root().join("refimages"))
        .expect("refimages/ exists")
        .filter_map(|e| e.ok())
        .filter(|e| e.path().is_dir() && e.file_name() != "models")
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    areas.sort();
    let mut count = 0;
    for area in areas {
        let json = json_cases(&area);
        let mut cases: Vec<&dyn Golden> = json.iter().map(|c| c as &dyn Golden).collect();
        if area == "raster" {
            cases.extend(cases::raster::DIRECT.iter().map(|c| c as &dyn Golden));
        }
        check_area(&area, &cases, &mut failures);
        count += cases.len();
    }
    assert!(
        failures.is_empty(),
        "{} problem(s) across {count} golden cases:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
