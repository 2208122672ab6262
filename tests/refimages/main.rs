//! The golden-image test (DESIGN §6): one binary, every case under `refimages/<area>/`, one
//! test trial per case (`libtest-mimic`), so a case runs by name and cases run in parallel:
//!
//! ```sh
//! cargo test --profile ci --test refimages -- near_clip       # every trial whose name has it
//! cargo test --profile ci --test refimages -- --exact raster::near_clip
//! cargo test --profile ci --test refimages -- --list          # the trials
//! cargo test --profile ci --test refimages -- models::        # the model goldens (below)
//! ```
//!
//! - A case is a file pair `refimages/<area>/<case>.json` + `<case>.png`, discovered by the
//!   harness; its trial is named `<area>::<case>`. The JSON is a scene file (format
//!   `plumb-scene`, rendered through the scene graph from its first camera at the size of its
//!   PNG) or a draw trace (format `plumb-draws`, `plumb_raster::trace`, with its `<case>.bin`:
//!   draw calls played straight into a `plumb-raster` context). The `raster/` and `fixed/`
//!   areas are traces.
//! - The traces are recorded from Rust functions in `tests/refimages/cases/` (they say what each case
//!   draws and why); a trace case's trial first checks that its function still records
//!   exactly the committed trace, so the two cannot drift apart. One raster case,
//!   `mesh_200k`, is drawn by its function directly: its trace would be 5.4 MB.
//! - Each case is rendered with 1, 2 and 7 worker threads; the three results must be
//!   identical (colour and depth) — the determinism contract — and must equal the golden
//!   exactly. CI runs this binary in release *and* debug, so both profiles match the goldens.
//! - A failing trial says how many pixels differ, the largest channel delta, the **first
//!   differing pixel** (row by row from the top-left) with both values, and the paths of
//!   `target/refimages/<area>/<case>.actual.png` and `.diff.png` (difference ×16). Every
//!   trial runs before the binary fails, so one run reports every failing case.
//! - A missing golden fails; a golden without a case fails (a trial of that name); two cases
//!   of one name fail. `PLUMB_BLESS=1` writes the traces of the Rust cases and then the
//!   goldens instead of comparing — open every image you bless.
//! - `models::<case>`: renders of third-party glTF models through the `plumb` binary
//!   (`models.rs`), run where the models are at hand and ignored where they are not.

#[path = "../it/assets_common.rs"]
mod assets_common;
mod cases;
#[path = "../it/cli_common.rs"]
mod cli_common;
mod models;

use std::path::{Path, PathBuf};

use image::RgbaImage;
use libtest_mimic::{Arguments, Failed, Trial};
use plumb::diff::{compare, DiffOptions, DiffReport};
use plumb::raster::trace::{DrawTarget, Recorder, Trace};
use plumb::raster::{Context, ContextOptions};
use plumb::scene::io::{self, ImportOptions};
use plumb::scene::SoftRenderer;

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

/// How one golden case is rendered.
#[derive(Clone, Copy)]
enum Source {
    /// `refimages/<area>/<name>.json`: a scene file rendered from its first camera, or a draw
    /// trace played back; `recorded` is the Rust function the trace is recorded from.
    File { recorded: Option<&'static Case> },
    /// A Rust function drawn straight into a context (no file).
    Direct(&'static Case),
}

/// One golden case of one area.
struct Golden {
    area: String,
    name: String,
    source: Source,
}

/// What one render gives: colour and depth, or why it could not be made.
type Rendered = Result<(RgbaImage, Vec<f32>), String>;

fn main() {
    let args = Arguments::from_args();
    let mut trials = Vec::new();
    for area in areas() {
        trials.extend(area_trials(&area));
    }
    trials.extend(models::trials());
    trials.push(Trial::test(
        "scene::sorted_cube_faces::stable_across_frames",
        transparent_sort_is_stable_across_frames,
    ));
    libtest_mimic::run(&args, trials).exit();
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

fn bless() -> bool {
    std::env::var("PLUMB_BLESS").is_ok_and(|v| v == "1")
}

/// Every folder of `refimages/` is an area of case files, except `models/`: renders of
/// third-party glTF models that are not in the repository, checked by
/// the `models::` trials (`models.rs`) when the models are at hand.
fn areas() -> Vec<String> {
    let mut areas: Vec<String> = std::fs::read_dir(root().join("refimages"))
        .expect("refimages/ exists")
        .filter_map(|e| e.ok())
        .filter(|e| e.path().is_dir() && e.file_name() != "models")
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    areas.sort();
    areas
}

/// The Rust sources of an area's traces, and its cases drawn directly.
fn rust_cases(area: &str) -> (&'static [Case], &'static [Case]) {
    match area {
        "raster" => (cases::raster::CASES, cases::raster::DIRECT),
        "fixed" => (cases::fixed::CASES, &[]),
        _ => (&[], &[]),
    }
}

/// The files of `dir` ending in `.{ext}`, as sorted stems.
fn stems(dir: &Path, ext: &str) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut names: Vec<String> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == ext))
        .filter_map(|p| Some(p.file_stem()?.to_string_lossy().into_owned()))
        .collect();
    names.sort();
    names
}

/// One trial per case of `area` (case files, Rust trace sources without a file yet, direct
/// cases), plus a failing trial for each golden without a case and each name used twice.
fn area_trials(area: &str) -> Vec<Trial> {
    let dir = root().join("refimages").join(area);
    let (recorded, direct) = rust_cases(area);
    let mut goldens: Vec<Golden> = Vec::new();
    let mut names: Vec<String> = stems(&dir, "json");
    for case in recorded {
        if !names.iter().any(|n| n == case.name) {
            names.push(case.name.to_owned());
        }
    }
    names.sort();
    for name in names {
        let recorded = recorded.iter().find(|c| c.name == name);
        goldens.push(Golden {
            area: area.to_owned(),
            name,
            source: Source::File { recorded },
        });
    }
    let mut trials = Vec::new();
    for case in direct {
        if goldens.iter().any(|g| g.name == case.name) {
            let message = format!("{area}/{}: two cases of this name", case.name);
            let trial = format!("{area}::{}::duplicate", case.name);
            trials.push(Trial::test(trial, move || Err(message.into())));
            continue;
        }
        goldens.push(Golden {
            area: area.to_owned(),
            name: case.name.to_owned(),
            source: Source::Direct(case),
        });
    }
    // Goldens nobody renders are stale: fail on them too.
    for stem in stems(&dir, "png") {
        if !goldens.iter().any(|g| g.name == stem) {
            let message = format!("{area}/{stem}.png: golden without a case");
            trials.push(Trial::test(format!("{area}::{stem}"), move || {
                Err(message.into())
            }));
        }
    }
    trials.extend(goldens.into_iter().map(|g| {
        let name = format!("{}::{}", g.area, g.name);
        Trial::test(name, move || g.check().map_err(Failed::from))
    }));
    trials
}

impl Golden {
    fn dir(&self) -> PathBuf {
        root().join("refimages").join(&self.area)
    }

    fn path(&self, ext: &str) -> PathBuf {
        self.dir().join(format!("{}.{ext}", self.name))
    }

    /// `<area>/<name>`, for messages.
    fn label(&self) -> String {
        format!("{}/{}", self.area, self.name)
    }

    /// The whole check of one case: its recorded trace, three thread counts, the golden.
    fn check(&self) -> Result<(), String> {
        let bless = bless();
        if let Source::File {
            recorded: Some(case),
        } = self.source
        {
            self.check_recorded(case, bless)?;
        }
        let (img, depth) = self.render(1)?;
        for threads in [2, 7] {
            let (img_n, depth_n) = self
                .render(threads)
                .map_err(|e| format!("{threads} threads failed: {e}"))?;
            if let Some(d) = diff(&img_n, &img) {
                return Err(format!(
                    "{threads} threads differ from 1 thread in colour: {}",
                    d.describe("1 thread")
                ));
            }
            if let Some(i) = depth_n
                .iter()
                .zip(&depth)
                .position(|(a, b)| a.to_bits() != b.to_bits())
            {
                let (x, y) = (i as u32 % img.width(), i as u32 / img.width());
                return Err(format!(
                    "{threads} threads differ from 1 thread in depth, first at pixel ({x}, {y}): \
                     {} (1 thread: {})",
                    depth_n[i], depth[i]
                ));
            }
        }
        let golden = self.path("png");
        if bless {
            std::fs::create_dir_all(self.dir()).map_err(|e| e.to_string())?;
            img.save(&golden).map_err(|e| e.to_string())?;
            eprintln!("blessed {}", golden.display());
            return Ok(());
        }
        let expected = match image::open(&golden) {
            Ok(g) => g.to_rgba8(),
            Err(e) => return Err(format!("missing golden {} ({e})", golden.display())),
        };
        let Some(d) = diff(&img, &expected) else {
            return Ok(());
        };
        let out = root().join("target").join("refimages").join(&self.area);
        std::fs::create_dir_all(&out).map_err(|e| e.to_string())?;
        let actual = out.join(format!("{}.actual.png", self.name));
        let diff_path = out.join(format!("{}.diff.png", self.name));
        img.save(&actual).map_err(|e| e.to_string())?;
        if let Some(heat) = &d.heat_map {
            heat.save(&diff_path).map_err(|e| e.to_string())?;
        }
        Err(format!(
            "{}: {}; actual {}, diff {}",
            self.label(),
            d.describe("golden"),
            actual.display(),
            diff_path.display()
        ))
    }

    /// Records the Rust source of a trace case and compares it with the committed trace (JSON
    /// text and buffer bytes), or writes it when blessing.
    fn check_recorded(&self, case: &Case, bless: bool) -> Result<(), String> {
        let path = self.path("json");
        let mut rec = Recorder::new(case.size.0, case.size.1).expect("case size is valid");
        (case.draw)(&mut rec);
        let trace = rec.finish(&format!("{}.bin", case.name));
        if bless {
            std::fs::create_dir_all(self.dir()).map_err(|e| e.to_string())?;
            trace.save(&path).map_err(|e| e.to_string())?;
            eprintln!("recorded {}", path.display());
            return Ok(());
        }
        let same = Trace::load(&path).is_ok_and(|committed| {
            committed.buffer == trace.buffer
                && std::fs::read_to_string(&path)
                    .is_ok_and(|text| trace.to_json().is_ok_and(|t| t == text))
        });
        if same {
            Ok(())
        } else {
            Err(format!(
                "{}: tests/cases records a different trace than {} (re-record with \
                 PLUMB_BLESS=1)",
                self.label(),
                path.display()
            ))
        }
    }

    fn render(&self, threads: usize) -> Rendered {
        let path = self.path("json");
        match self.source {
            Source::Direct(case) => draw_direct(case.size, threads, |ctx| {
                (case.draw)(ctx);
                Ok(())
            }),
            Source::File { .. } if plumb::raster::trace::is_trace_file(&path) => {
                let trace = Trace::load(&path).map_err(|e| e.to_string())?;
                draw_direct(trace.size(), threads, |ctx| {
                    trace.replay(ctx).map_err(|e| e.to_string())
                })
            }
            // A draw trace says so in its "format"; anything else is read as a scene file.
            Source::File { .. } => render_scene_file(&path, threads),
        }
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

/// Renders a scene file from its first camera at the size of its golden (256×256 without
/// one), exactly as the conformance kit does (`plumb::conform::draw_scene_case`: the file's
/// first camera; the stored alpha is the pipeline's, as `plumb render` writes it — issue 33
/// replaced DESIGN §6's alpha-1 overlay so that every case compares RGBA by one rule).
fn render_scene_file(path: &Path, threads: usize) -> Rendered {
    let size = image::image_dimensions(path.with_extension("png")).unwrap_or((256, 256));
    let mut r = SoftRenderer::new(size.0, size.1, Some(threads)).map_err(|e| e.to_string())?;
    plumb::conform::draw_scene_case(path, size.0, size.1, &mut r)?;
    Ok((r.image(), r.depth()))
}

/// The SortFaces case re-sorts its transparent faces every frame; the sort is stable, so a
/// second frame equals the first (the golden shows one frame).
fn transparent_sort_is_stable_across_frames() -> Result<(), Failed> {
    let path = root().join("refimages/scene/sorted_cube_faces.json");
    let loaded = io::load(&path, &ImportOptions::default()).map_err(|e| e.to_string())?;
    let mut scene = loaded.scene;
    let camera = loaded.imported.cameras[0]
        .to_camera(&scene, 1.0)
        .map_err(|e| e.to_string())?;
    let mut r = SoftRenderer::new(64, 64, Some(2)).map_err(|e| e.to_string())?;
    scene.draw(&camera, &mut r).map_err(|e| e.to_string())?;
    let first = r.image();
    scene.draw(&camera, &mut r).map_err(|e| e.to_string())?;
    match diff(&r.image(), &first) {
        None => Ok(()),
        Some(d) => Err(format!(
            "the second frame differs from the first: {}",
            d.describe("first")
        )
        .into()),
    }
}

/// The first differing pixel: its position and the two values.
type FirstDiff = ((u32, u32), [u8; 4], [u8; 4]);

/// How two images differ: `plumb diff`'s numbers and heat map, plus the first differing pixel.
struct Diff {
    /// `plumb::diff`'s report (threshold 0: every differing pixel counts); `None` for
    /// different sizes.
    report: Option<DiffReport>,
    /// The FLIP-style heat map, as `plumb diff --heatmap` writes it.
    heat_map: Option<RgbaImage>,
    /// The first differing pixel in row-major order from the top-left.
    first: Option<FirstDiff>,
    /// The two sizes, when they differ.
    sizes: Option<((u32, u32), (u32, u32))>,
}

impl Diff {
    /// `N pixels differ, max channel delta D, FLIP mean M, first at (x, y): [..] (golden [..])`.
    fn describe(&self, other: &str) -> String {
        let (Some(r), None) = (&self.report, self.sizes) else {
            let (a, b) = self.sizes.unwrap_or_default();
            return format!("size {}x{} ({other}: {}x{})", a.0, a.1, b.0, b.1);
        };
        let mut s = format!(
            "{} pixels differ, max channel delta {}, FLIP mean {:.6}",
            r.pixels_over, r.max_delta, r.perceptual_mean
        );
        if let Some(((x, y), p, q)) = self.first {
            s.push_str(&format!(
                ", first at pixel ({x}, {y}): {p:?} ({other}: {q:?})"
            ));
        }
        s
    }
}

/// How `a` differs from `b`, or `None` when they are equal byte for byte. The equal case (every
/// passing golden) is one comparison of the bytes; a difference is measured by `plumb::diff`,
/// the same code as `plumb diff`.
fn diff(a: &RgbaImage, b: &RgbaImage) -> Option<Diff> {
    if a.dimensions() != b.dimensions() {
        return Some(Diff {
            report: None,
            heat_map: None,
            first: None,
            sizes: Some((a.dimensions(), b.dimensions())),
        });
    }
    if a.as_raw() == b.as_raw() {
        return None;
    }
    let first = a
        .enumerate_pixels()
        .zip(b.pixels())
        .find(|((_, _, p), q)| p != q)
        .map(|((x, y, p), q)| ((x, y), p.0, q.0));
    let measured = compare(b, a, &DiffOptions::default()).ok();
    Some(Diff {
        report: measured.as_ref().map(|d| d.report),
        heat_map: measured.as_ref().map(|d| d.heat_map()),
        first,
        sizes: None,
    })
}
