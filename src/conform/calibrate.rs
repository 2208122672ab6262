//! `plumb conform --calibrate N`: tolerances measured instead of guessed. Every case is
//! rendered N times by the backend and compared with its golden at its current threshold;
//! the calibrated rule of a case allows what was measured, with a margin, and its reason
//! quotes the numbers. A backend whose runs all match the golden exactly gets an exact rule.
//!
//! The margin: pixels over the threshold up to `⌈1.25·P⌉ + 1` where P is the most measured in
//! one run, and a FLIP mean up to `1.25·F + 0.0001`. The threshold stays the tolerance file's
//! (a per-channel difference is the kind of rounding the file explains; the count and the
//! mean are what a backend's own runs measure). A case that fails to render in a run gets no
//! rule (it keeps the file's) and is reported.

use super::{run_case_with, Backend, Case, Status, Tolerance, ToleranceRule, Tolerances};

/// What the runs of one case measured.
#[derive(Clone, Debug, PartialEq)]
pub struct Measured {
    /// The case.
    pub id: String,
    /// The threshold compared at (the tolerance file's for the case).
    pub threshold: u8,
    /// Runs that rendered.
    pub runs: usize,
    /// Largest channel difference of any run.
    pub max_delta: u8,
    /// Most pixels over the threshold in one run.
    pub pixels_over: u64,
    /// Largest FLIP mean of any run.
    pub flip_mean: f64,
    /// Whether two runs gave different images (a backend that is not deterministic).
    pub runs_differ: bool,
    /// The first error, if a run failed.
    pub error: Option<String>,
}

impl Measured {
    /// The calibrated tolerance, its reason quoting the numbers.
    pub fn tolerance(&self, backend: &str) -> Tolerance {
        let n = self.runs;
        let differ = if self.runs_differ {
            "; the runs differ from each other"
        } else {
            ""
        };
        if self.max_delta == 0 {
            return Tolerance {
                threshold: 0,
                max_pixels: 0,
                max_flip_mean: 0.0,
                reason: format!(
                    "calibrated: {n} run(s) of {backend} matched the golden exactly{differ}"
                ),
            };
        }
        let max_pixels = (self.pixels_over as f64 * 1.25).ceil() as u64 + 1;
        // Six decimals, rounded up, so the file holds what was allowed.
        let max_flip_mean = ((self.flip_mean * 1.25 + 0.0001) * 1e6).ceil() / 1e6;
        Tolerance {
            threshold: self.threshold,
            max_pixels,
            max_flip_mean,
            reason: format!(
                "calibrated from {n} run(s) of {backend}: max delta {}, up to {} pixels over {} \
                 (allowed {max_pixels}), FLIP mean up to {:.6} (allowed {max_flip_mean:.6}){differ}",
                self.max_delta, self.pixels_over, self.threshold, self.flip_mean
            ),
        }
    }
}

/// Renders each case `runs` times and measures it against its golden at the threshold of
/// its tolerance in `base`.
pub fn measure(
    cases: &[Case],
    backend: &mut dyn Backend,
    runs: usize,
    max_golden_pixels: u64,
    mut progress: impl FnMut(&Case, usize),
) -> Vec<Measured> {
    cases
        .iter()
        .map(|case| {
            let mut m = Measured {
                id: case.id.clone(),
                threshold: case.tolerance.threshold,
                runs: 0,
                max_delta: 0,
                pixels_over: 0,
                flip_mean: 0.0,
                runs_differ: false,
                error: None,
            };
            let mut first: Option<image::RgbaImage> = None;
            for run in 0..runs {
                progress(case, run);
                let r = run_case_with(case, &mut Measuring(&mut *backend), max_golden_pixels);
                match (r.status, r.metrics, r.actual) {
                    (_, Some(metrics), Some(actual)) => {
                        m.runs += 1;
                        m.max_delta = m.max_delta.max(metrics.max_delta);
                        m.pixels_over = m.pixels_over.max(metrics.pixels_over);
                        m.flip_mean = m.flip_mean.max(metrics.flip_mean);
                        match &first {
                            None => first = Some(actual),
                            Some(f) => m.runs_differ |= *f != actual,
                        }
                    }
                    (Status::Pass, _, _) => m.runs += 1,
                    _ => {
                        m.error
                            .get_or_insert(format!("run {}: {}", run + 1, r.message));
                    }
                }
            }
            m
        })
        .collect()
}

/// A backend measured against its case's own threshold (never "exact"), however it calls
/// itself.
struct Measuring<'a>(&'a mut dyn Backend);

impl Backend for Measuring<'_> {
    fn name(&self) -> String {
        self.0.name()
    }
    fn render(&mut self, case: &Case, width: u32, height: u32) -> Result<image::RgbaImage, String> {
        self.0.render(case, width, height)
    }
    fn take_unsupported(&mut self) -> Option<String> {
        self.0.take_unsupported()
    }
}

/// The calibrated tolerance file: `base`'s default for cases it does not list, one rule per
/// measured case (by its exact id) that rendered in every run.
pub fn tolerances(base: &Tolerances, measured: &[Measured], backend: &str) -> Tolerances {
    Tolerances {
        format: base.format.clone(),
        version: base.version,
        default: base.default.clone(),
        rules: measured
            .iter()
            .filter(|m| m.error.is_none())
            .map(|m| ToleranceRule {
                cases: m.id.clone(),
                tolerance: m.tolerance(backend),
            })
            .collect(),
        needs: base.needs.clone(),
    }
}
