//! A backend that skips the top-left fill rule fails the case that shows it (issue 55): a
//! small rasteriser of flat triangles in f64, written here from the rule's definition, with
//! the rule on reproduces `raster/fill_rule` exactly (the control); with pixel centres on
//! every edge counted inside — the bug — it fails with the default rules, as an edge coverage
//! difference.

use std::path::Path;

use image::{Rgba, RgbaImage};
use plumb::conform::{self, Backend, Case, DiffClass, Status, Tolerances};
use plumb::raster::trace::{CommandDoc, Trace, View};
use plumb::raster::Topology;

/// Flat triangle lists in clip space with w = 1, no depth test, blending or culling: enough
/// for `raster/fill_rule`; anything else is refused.
struct FlatTriangles {
    /// Whether a pixel centre exactly on an edge follows the top-left rule (else: always in).
    top_left: bool,
}

fn floats(buffer: &[u8], view: View, width: usize) -> Vec<f32> {
    let start = view.offset as usize;
    let n = view.count as usize * width;
    buffer[start..start + 4 * n]
        .chunks_exact(4)
        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect()
}

fn unorm(c: f32) -> u8 {
    (c.clamp(0.0, 1.0) * 255.0 + 0.5).floor() as u8
}

impl FlatTriangles {
    /// Whether the centre `(px, py)` is inside triangle `t` (window coordinates, y down).
    fn covers(&self, t: [[f64; 2]; 3], px: f64, py: f64) -> bool {
        // E(p) = (b − a) × (p − a); with the corners ordered so the third is on the positive
        // side, the inside is E > 0 on all three edges. With y down, an edge with dy = 0 and
        // dx > 0 has the triangle below it (a top edge), one with dy < 0 has it on its right
        // (a left edge).
        let e = |a: [f64; 2], b: [f64; 2], p: [f64; 2]| {
            (b[0] - a[0]) * (p[1] - a[1]) - (b[1] - a[1]) * (p[0] - a[0])
        };
        let [a, mut b, mut c] = t;
        if e(a, b, c) < 0.0 {
            std::mem::swap(&mut b, &mut c);
        }
        [(a, b), (b, c), (c, a)].into_iter().all(|(a, b)| {
            let v = e(a, b, [px, py]);
            let (dx, dy) = (b[0] - a[0], b[1] - a[1]);
            let top_left = (dy == 0.0 && dx > 0.0) || dy < 0.0;
            v > 0.0 || (v == 0.0 && (top_left || !self.top_left))
        })
    }
}

impl Backend for FlatTriangles {
    fn name(&self) -> String {
        format!(
            "flat triangles (top-left rule {})",
            if self.top_left { "on" } else { "skipped" }
        )
    }

    fn render(&mut self, case: &Case, w: u32, h: u32) -> Result<RgbaImage, String> {
        let trace = Trace::load(&case.input).map_err(|e| e.to_string())?;
        let mut img = RgbaImage::new(w, h);
        for cmd in &trace.doc.commands {
            match cmd {
                CommandDoc::Clear { color, .. } => {
                    let c = Rgba(color.to_array().map(unorm));
                    img.pixels_mut().for_each(|p| *p = c);
                }
                CommandDoc::Draw(d)
                    if d.topology == Topology::TriangleList
                        && d.indices.is_none()
                        && !d.state.blend.enabled =>
                {
                    let pos = floats(&trace.buffer, d.positions, 4);
                    let col = floats(&trace.buffer, d.colors.ok_or("no colours")?, 4);
                    for (k, tri) in pos.chunks_exact(12).enumerate() {
                        let corner = |i: usize| {
                            let p = &tri[4 * i..4 * i + 4];
                            assert_eq!(p[3], 1.0, "the test rasteriser takes w = 1 only");
                            let x = (f64::from(p[0]) + 1.0) * f64::from(w) / 2.0;
                            let y = (1.0 - f64::from(p[1])) * f64::from(h) / 2.0;
                            [x, y]
                        };
                        let t = [corner(0), corner(1), corner(2)];
                        let first = &col[12 * k..12 * k + 4];
                        let c = Rgba([0, 1, 2, 3].map(|i| unorm(first[i])));
                        for (x, y, p) in img.enumerate_pixels_mut() {
                            if self.covers(t, f64::from(x) + 0.5, f64::from(y) + 0.5) {
                                *p = c;
                            }
                        }
                    }
                }
                _ => return Err("the test rasteriser draws flat triangle lists only".into()),
            }
        }
        Ok(img)
    }
}

#[test]
fn a_backend_without_the_top_left_rule_fails_the_fill_rule_case() {
    let refimages = Path::new(env!("CARGO_MANIFEST_DIR")).join("refimages");
    let t = Tolerances::load(&refimages.join("conform.json")).unwrap();
    let case = conform::corpus(&refimages, &t)
        .unwrap()
        .into_iter()
        .find(|c| c.id == "raster/fill_rule")
        .expect("the fill_rule golden");

    // The control: the rule as defined gives the golden's every byte.
    let right = conform::run_case(&case, &mut FlatTriangles { top_left: true });
    assert_eq!(right.status, Status::Pass, "{}", right.message);
    assert_eq!(right.metrics.unwrap().max_delta, 0);

    let wrong = conform::run_case(&case, &mut FlatTriangles { top_left: false });
    assert_eq!(wrong.status, Status::Fail, "{}", wrong.message);
    let m = wrong.metrics.unwrap();
    assert_eq!(m.class, Some(DiffClass::EdgeCoverage), "{m:?}");
    // Every shared edge through pixel centres, and the grid's right and bottom borders: far
    // more than the default rule's allowance.
    assert!(m.pixels_over > 500, "{m:?}");

    // The golden as the case describes it: the grid covers columns and rows 8..=119.
    let golden = image::open(&case.golden).unwrap().to_rgba8();
    for (x, y, p) in golden.enumerate_pixels() {
        let inside = (8..120).contains(&x) && (8..120).contains(&y);
        assert_eq!(p.0 != [0, 0, 0, 255], inside, "pixel ({x}, {y}): {:?}", p.0);
    }
}
