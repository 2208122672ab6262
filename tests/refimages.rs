//! The golden-image test (DESIGN §6): one binary, every case under `refimages/<area>/`.
//!
//! - A case is a name in an area's table (raster cases are defined in Rust, in
//!   `tests/cases/`) paired with `refimages/<area>/<case>.png`.
//! - Each case is rendered with 1, 2 and 7 worker threads; the three results must be
//!   identical (colour and depth) — the determinism contract — and must equal the golden
//!   exactly. CI runs this binary in release *and* debug, so both profiles match the goldens.
//! - Every case is checked before the test fails; the report lists each failure with the
//!   number of differing pixels, the largest channel delta, and the paths of
//!   `target/refimages/<area>/<case>.actual.png` and `.diff.png` (difference ×16).
//! - A missing golden fails; a golden without a case fails. `PLUMB_BLESS=1` writes goldens
//!   instead of comparing — open every image you bless.

mod cases;

use std::path::{Path, PathBuf};

use image::RgbaImage;
use plumb::raster::{Context, ContextOptions};
use plumb::scene::SoftRenderer;

/// A golden case: a name and a function drawing into a context of the given size.
pub struct Case {
    /// File stem of the golden.
    pub name: &'static str,
    /// Target size.
    pub size: (u32, u32),
    /// Draws the scene (the harness clears nothing itself).
    pub draw: fn(&mut Context),
}

/// A golden case built through the scene graph and drawn with [`SoftRenderer`].
pub struct SceneCase {
    /// File stem of the golden.
    pub name: &'static str,
    /// Target size.
    pub size: (u32, u32),
    /// Builds the scene and draws it (one or more frames; the last one is compared).
    pub draw: fn(&mut SoftRenderer),
}

/// Anything the harness can render at a given thread count.
trait Golden {
    fn name(&self) -> &'static str;
    fn render(&self, threads: usize) -> (RgbaImage, Vec<f32>);
}

impl Golden for Case {
    fn name(&self) -> &'static str {
        self.name
    }
    fn render(&self, threads: usize) -> (RgbaImage, Vec<f32>) {
        render(self, threads)
    }
}

impl Golden for SceneCase {
    fn name(&self) -> &'static str {
        self.name
    }
    fn render(&self, threads: usize) -> (RgbaImage, Vec<f32>) {
        let mut r =
            SoftRenderer::new(self.size.0, self.size.1, Some(threads)).expect("case size is valid");
        (self.draw)(&mut r);
        (r.image(), r.depth())
    }
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

fn render(case: &Case, threads: usize) -> (RgbaImage, Vec<f32>) {
    let mut ctx = Context::new(
        case.size.0,
        case.size.1,
        ContextOptions {
            threads: Some(threads),
        },
    )
    .expect("case size is valid");
    (case.draw)(&mut ctx);
    let img = ctx.color_image();
    let depth = ctx.target().depth_values();
    (img, depth)
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

fn check_area<C: Golden>(area: &str, cases: &[C], failures: &mut Vec<String>) {
    let dir = root().join("refimages").join(area);
    let out = root().join("target").join("refimages").join(area);
    let bless = std::env::var("PLUMB_BLESS").is_ok_and(|v| v == "1");
    for case in cases {
        let (img, depth) = case.render(1);
        for threads in [2, 7] {
            let (img_n, depth_n) = case.render(threads);
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

#[test]
fn refimages() {
    let mut failures = Vec::new();
    let areas: [(&str, &[Case]); 2] = [
        ("raster", cases::raster::CASES),
        ("fixed", cases::fixed::CASES),
    ];
    let mut count = 0;
    for (area, cases) in areas {
        check_area(area, cases, &mut failures);
        count += cases.len();
    }
    let scene_areas: [(&str, &[SceneCase]); 2] = [
        ("scene", cases::scene::CASES),
        ("effects", cases::effects::CASES),
    ];
    for (area, cases) in scene_areas {
        check_area(area, cases, &mut failures);
        count += cases.len();
    }
    assert!(
        failures.is_empty(),
        "{} problem(s) across {count} golden cases:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
