//! Tolerant image comparison: pixel counts over a threshold, PSNR, a perceptual
//! ("FLIP-style") error and a heat map (DESIGN §6).
//!
//! plumb's own goldens are compared **exactly** (`tests/refimages/main.rs`); this module is for the
//! other tier: comparing plumb against another renderer or another backend, where the natural
//! tolerance is not zero. It backs `plumb diff`.
//!
//! # Metrics
//!
//! [`compare`] takes two [`RgbaImage`]s of the same size (otherwise
//! [`DiffError::SizeMismatch`]) and reports, in a [`DiffReport`]:
//!
//! - **pixels over the threshold**: pixels whose largest per-channel absolute difference,
//!   over all four channels R, G, B **and A**, is strictly greater than `T`
//!   ([`DiffOptions::threshold`], 0..=255, default 0). A pixel whose largest delta *equals* `T`
//!   is not over. With `T = 0` this counts every pixel that differs at all.
//! - **max channel delta**: the largest per-channel absolute difference (R, G, B, A).
//! - **PSNR** over the R, G and B samples only:
//!   `MSE = Σ Δ² / (3 · width · height)`, `PSNR = 10 · log10(255² / MSE)` dB; identical RGB
//!   gives `MSE = 0` and `PSNR = f64::INFINITY` (printed as `inf`).
//! - **perceptual mean**: the mean over pixels of the FLIP-style per-pixel error, in `[0, 1]`,
//!   described below.
//!
//! # The FLIP-style error (not the reference implementation)
//!
//! This is a simplified re-implementation of the colour and feature pipelines of NVIDIA's
//! LDR-FLIP (Andersson et al., "FLIP: A Difference Evaluator for Alternating Images", 2020).
//! It follows the paper's structure and constants but is **FLIP-style, not the reference
//! implementation**: numbers are close to, not identical with, `nv-flip` / the official code
//! (single precision, separable filters with per-Gaussian radii, our own edge handling
//! details). Use it for tolerances, not for quoting FLIP values in a paper. Alpha is ignored
//! (the stored RGB is compared as is, not composited). Cross-check when written: against the
//! official `flip-evaluator` 1.7 (LDR mode) the means agreed to about 1e-5 on an 800×600
//! showcase render vs a blurred, a noisy and a 1-pixel-shifted copy (0.027987 / 0.027902 /
//! 0.027290 here vs 0.027986 / 0.027895 / 0.027289 there), and on the unit-test cases below.
//!
//! Per image, with `ppd` = pixels per degree of visual angle ([`DiffOptions::pixels_per_degree`],
//! default 67, i.e. a 0.7 m viewing distance from a 24" 4K monitor as in the paper):
//!
//! 1. **Decode**: 8-bit sRGB → linear RGB (the piecewise sRGB curve) → CIE XYZ (sRGB/D65
//!    matrix) → the linearised opponent space **YyCxCz**:
//!    `Yy = 116·Y/Yn − 16`, `Cx = 500·(X/Xn − Y/Yn)`, `Cz = 200·(Y/Yn − Z/Zn)`, with the white
//!    point `(Xn, Yn, Zn)` = XYZ of linear RGB (1, 1, 1).
//! 2. **Contrast-sensitivity filter**: each channel is convolved with the spatial kernel
//!    `k(r) = Σᵢ aᵢ·√(π/bᵢ)·exp(−π²·r²/bᵢ)`, `r` in degrees (pixel offset / ppd), normalised to
//!    sum 1; constants from FLIP's Table 1: Yy `(a, b) = (1, 0.0047)`, Cx `(1, 0.0053)`,
//!    Cz `(34.1, 0.04) + (13.5, 0.025)`. Each Gaussian is applied separably with radius
//!    `⌈3·√(b / 2π²)·ppd⌉` pixels and edge pixels are clamped (repeated).
//! 3. **Colour difference**: filtered YyCxCz → linear RGB, clamped to `[0, 1]` → CIELAB
//!    (same white) → Hunt-adjusted (`a ← 0.01·L·a`, `b ← 0.01·L·b`); per pixel the HyAB
//!    distance `|ΔL| + √(Δa² + Δb²)` raised to `qc = 0.7`, divided into `[0, 1]` with FLIP's
//!    redistribution: with `cmax` = (HyAB of Hunt(green), Hunt(blue)))^0.7, `pc = 0.4`,
//!    `pt = 0.95`: `e < pc·cmax → e·pt/(pc·cmax)`, else
//!    `pt + (e − pc·cmax)/(cmax − pc·cmax)·(1 − pt)`.
//! 4. **Feature difference** on the unfiltered luminance `Y/Yn`: edges (first derivative of a
//!    Gaussian) and points (second derivative), `σ = 0.5·0.082·ppd` pixels, radius `⌈3σ⌉`,
//!    each kernel's positive weights normalised to sum 1 and negative ones to −1; per pixel
//!    `ΔF = max(|‖edge_A‖ − ‖edge_B‖|, |‖point_A‖ − ‖point_B‖|)` (gradient magnitudes over x
//!    and y), `ΔF' = (ΔF / √2)^0.5`.
//! 5. **Per-pixel error** `ΔE = ΔEc^(1 − ΔF')`, in `[0, 1]`; the report holds its mean.
//!
//! All arithmetic is IEEE `+ − × ÷ sqrt` in a fixed order plus [`crate::raster::math`]
//! (libm) for `exp`/`powf`/`log2`, with no hashing, so results are identical on every
//! platform. Threads split only independent work (the two images' filters, and per-pixel
//! stages in fixed chunks); every sum runs in one fixed order, so the thread count changes
//! no bit either.
//!
//! # Heat map
//!
//! [`Diff::heat_map`] maps each pixel's perceptual error `e ∈ [0, 1]` through a fixed ramp
//! ([`heat_color`]): black (0) → magenta (1/3) → yellow (2/3) → white (1), piecewise linear
//! in 8-bit sRGB, alpha 255. Identical images give an all-black map.

use std::fmt;

use image::{Rgba, RgbaImage};
use rayon::prelude::*;

mod png_rows;
mod rows;
pub use png_rows::PngRows;
pub use rows::{ImageRows, RowSource};

use crate::raster::math;

/// How to compare two images.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DiffOptions {
    /// A pixel is "over" when its largest per-channel |Δ| (R, G, B, A) is **greater than**
    /// this (equal is not over). Default 0: every differing pixel counts.
    pub threshold: u8,
    /// Pixels per degree of visual angle for the FLIP-style filters. Default 67. Values that
    /// are not finite or not positive are replaced by the default.
    pub pixels_per_degree: f32,
}

impl DiffOptions {
    /// The default pixels-per-degree (FLIP's reference viewing condition).
    pub const DEFAULT_PPD: f32 = 67.0;
}

impl Default for DiffOptions {
    fn default() -> Self {
        DiffOptions {
            threshold: 0,
            pixels_per_degree: Self::DEFAULT_PPD,
        }
    }
}

/// The numbers from a comparison.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DiffReport {
    /// Image width in pixels.
    pub width: u32,
    /// Image height in pixels.
    pub height: u32,
    /// The threshold used (see [`DiffOptions::threshold`]).
    pub threshold: u8,
    /// Pixels whose largest per-channel |Δ| (R, G, B, A) exceeds the threshold.
    pub pixels_over: u64,
    /// Largest per-channel |Δ| over all pixels and channels (R, G, B, A).
    pub max_delta: u8,
    /// PSNR over R, G, B in dB; `f64::INFINITY` when the RGB samples are identical.
    pub psnr: f64,
    /// Mean FLIP-style perceptual error in `[0, 1]` (0 = identical).
    pub perceptual_mean: f64,
    /// Largest per-pixel FLIP-style error in `[0, 1]`.
    pub perceptual_max: f32,
}

impl DiffReport {
    /// Total number of pixels compared.
    pub fn pixel_count(&self) -> u64 {
        u64::from(self.width) * u64::from(self.height)
    }

    /// The PSNR as text: `inf` for identical images, otherwise two decimals.
    pub fn psnr_text(&self) -> String {
        if self.psnr.is_infinite() {
            "inf".to_owned()
        } else {
            format!("{:.2}", self.psnr)
        }
    }
}

/// A comparison's report plus the per-pixel perceptual error (for the heat map).
#[derive(Clone, Debug)]
pub struct Diff {
    /// The summary numbers.
    pub report: DiffReport,
    /// Per-pixel FLIP-style error, row-major, `width · height` values in `[0, 1]`.
    errors: Vec<f32>,
}

impl Diff {
    /// Per-pixel FLIP-style error, row-major (`y · width + x`), each in `[0, 1]`.
    pub fn perceptual_errors(&self) -> &[f32] {
        &self.errors
    }

    /// The heat map: every pixel's perceptual error through [`heat_color`].
    pub fn heat_map(&self) -> RgbaImage {
        let w = self.report.width;
        RgbaImage::from_fn(w, self.report.height, |x, y| {
            heat_color(self.errors[(y as usize) * (w as usize) + x as usize])
        })
    }
}

/// Why two images could not be compared.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum DiffError {
    /// The images have different sizes (`(width, height)` of each).
    SizeMismatch {
        /// Size of the first image.
        a: (u32, u32),
        /// Size of the second image.
        b: (u32, u32),
    },
    /// A row source (a file being decoded) or the error callback failed; the message says
    /// which file and why.
    Read(String),
}

impl fmt::Display for DiffError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DiffError::SizeMismatch { a, b } => {
                write!(f, "image sizes differ: {}x{} vs {}x{}", a.0, a.1, b.0, b.1)
            }
            DiffError::Read(message) => f.write_str(message),
        }
    }
}

impl std::error::Error for DiffError {}

/// Compares `a` (the reference) with `b` (the test image), in memory.
///
/// The same computation as [`compare_rows`], which streams and is what `plumb diff` uses;
/// this one keeps the per-pixel errors for [`Diff::heat_map`].
///
/// # Errors
/// [`DiffError::SizeMismatch`] when the sizes differ.
pub fn compare(a: &RgbaImage, b: &RgbaImage, options: &DiffOptions) -> Result<Diff, DiffError> {
    let mut errors = Vec::new();
    let report = compare_rows(
        &mut ImageRows::new(a),
        &mut ImageRows::new(b),
        options,
        &mut |_, row| {
            errors.extend_from_slice(row);
            Ok(())
        },
    )?;
    Ok(Diff { report, errors })
}

/// Receives each row's per-pixel errors, `(y, errors)`, top to bottom; an `Err` stops the
/// comparison ([`compare_rows`]).
pub type ErrorRows<'a> = dyn FnMut(u32, &[f32]) -> Result<(), String> + 'a;

/// Output rows computed per band: the working set is `BAND_ROWS + 2·radius` rows of each
/// image, whatever its height.
const BAND_ROWS: usize = 64;

/// Compares `a` (the reference) with `b` (the test image) **streaming**: rows are read top
/// to bottom and the perceptual error is computed in bands of rows, so memory is
/// proportional to the width, not the area ([`working_set_bytes`]). `errors(y, row)` receives
/// each row's per-pixel FLIP-style errors in order (for a heat map); an error it returns
/// stops the comparison.
///
/// The numbers are exactly those of the whole-image computation: each band reads the rows
/// its filters reach (clamped at the image's top and bottom edges, not the band's), and sums
/// run in the same order.
///
/// # Errors
/// [`DiffError::SizeMismatch`] when the sizes differ; [`DiffError::Read`] when a source or
/// the `errors` callback fails.
pub fn compare_rows(
    a: &mut dyn RowSource,
    b: &mut dyn RowSource,
    options: &DiffOptions,
    errors: &mut ErrorRows<'_>,
) -> Result<DiffReport, DiffError> {
    compare_banded(a, b, options, BAND_ROWS, errors)
}

/// Bytes [`compare_rows`] holds for two images `width` pixels wide compared at
/// `pixels_per_degree` (both windows, every filter plane and the convolution scratch), for a
/// caller's memory limit. Independent of the height: the window is 64 rows plus
/// the filters' reach above and below, which grows with the pixels per degree.
pub fn working_set_bytes(width: u32, pixels_per_degree: f32) -> u64 {
    let ppd = effective_ppd(pixels_per_degree);
    let rows = (BAND_ROWS + 2 * Flip::new(ppd).radius()) as u64;
    // Per image and window pixel: 4 input bytes plus at most 18 f32 planes alive at once
    // (3 colour, luminance, convolution scratch, 3 filtered, 3 CIELAB, 4 feature, edge,
    // point, errors); both images are filtered at the same time.
    2 * rows * u64::from(width) * (4 + 18 * 4)
}

/// Default limit of [`filter_work`] (`plumb diff --max-filter-work`): what the largest
/// default image (16384 × 16384) costs at the default 67 ppd, 159,249,334,272 filter taps. A
/// larger ppd costs more per pixel (issue 50: the largest on 8192² images ran past 60 s), so
/// it is refused from the headers, before anything is decoded, unless this is raised.
pub const DEFAULT_MAX_FILTER_WORK: u64 = 159_249_334_272;

/// Filter taps (multiply-adds) [`compare_rows`] spends on two `width × height` images at
/// `pixels_per_degree`, estimated from the sizes alone, for a caller's time limit: every
/// separable kernel's taps, both passes, over each band's window (its rows plus the filters'
/// reach above and below, recomputed per band), for both images. It grows with the area and
/// with the square of the pixels per degree (longer kernels over taller windows).
pub fn filter_work(width: u32, height: u32, pixels_per_degree: f32) -> u64 {
    let flip = Flip::new(effective_ppd(pixels_per_degree));
    let taps = flip
        .csf
        .iter()
        .flatten()
        .map(|t| t.kernel.len() as u64)
        .sum::<u64>()
        + (flip.gauss.len() + flip.d1.len() + flip.d2.len()) as u64;
    let window = (BAND_ROWS + 2 * flip.radius()) as u64;
    let per_row = 2 * 2 * taps * u64::from(width);
    per_row
        .saturating_mul(u64::from(height))
        .saturating_mul(window)
        / BAND_ROWS as u64
}

/// [`DiffOptions::pixels_per_degree`], or the default where it is unusable.
fn effective_ppd(ppd: f32) -> f32 {
    if ppd.is_finite() && ppd > 0.0 {
        ppd
    } else {
        DiffOptions::DEFAULT_PPD
    }
}

fn compare_banded(
    a: &mut dyn RowSource,
    b: &mut dyn RowSource,
    options: &DiffOptions,
    band_rows: usize,
    errors: &mut ErrorRows<'_>,
) -> Result<DiffReport, DiffError> {
    if a.size() != b.size() {
        return Err(DiffError::SizeMismatch {
            a: a.size(),
            b: b.size(),
        });
    }
    let (width, height) = a.size();
    let (w, h) = (width as usize, height as usize);
    let t = options.threshold;
    let flip = Flip::new(effective_ppd(options.pixels_per_degree));
    let radius = flip.radius();
    let band_rows = band_rows.max(1);

    let mut win_a = Window::new(w);
    let mut win_b = Window::new(w);
    let mut pixels_over = 0u64;
    let mut max_delta = 0u8;
    let mut sq_sum = 0u64;
    let mut sum = 0.0f64;
    let mut perceptual_max = 0.0f32;
    let mut y0 = 0;
    while y0 < h {
        let y1 = (y0 + band_rows).min(h);
        let (s0, s1) = (y0.saturating_sub(radius), (y1 + radius).min(h));
        win_a.advance(a, s0, s1).map_err(DiffError::Read)?;
        win_b.advance(b, s0, s1).map_err(DiffError::Read)?;

        // Exact statistics, each row once.
        for (pa, pb) in win_a
            .rows(y0, y1)
            .chunks_exact(4)
            .zip(win_b.rows(y0, y1).chunks_exact(4))
        {
            let mut px_max = 0u8;
            for c in 0..4 {
                let d = pa[c].abs_diff(pb[c]);
                px_max = px_max.max(d);
                if c < 3 {
                    sq_sum += u64::from(d) * u64::from(d);
                }
            }
            max_delta = max_delta.max(px_max);
            if px_max > t {
                pixels_over += 1;
            }
        }

        // Where every row the filters reach has the same RGB, every stage gives exactly 0
        // (tested): skip the filtering.
        let same = win_a
            .rows(s0, s1)
            .chunks_exact(4)
            .zip(win_b.rows(s0, s1).chunks_exact(4))
            .all(|(p, q)| p[..3] == q[..3]);
        let band = if same {
            vec![0.0; (y1 - y0) * w]
        } else {
            flip.band_errors(&win_a, &win_b, (s0, s1), (y0, y1), h)
        };
        for (i, row) in band.chunks_exact(w.max(1)).enumerate() {
            for &e in row {
                sum += f64::from(e);
                perceptual_max = perceptual_max.max(e);
            }
            errors(u32::try_from(y0 + i).unwrap_or(u32::MAX), row).map_err(DiffError::Read)?;
        }
        y0 = y1;
    }
    let samples = 3 * u64::from(width) * u64::from(height);
    let n = w * h;
    Ok(DiffReport {
        width,
        height,
        threshold: t,
        pixels_over,
        max_delta,
        psnr: psnr_from_sums(sq_sum, samples),
        perceptual_mean: if n == 0 { 0.0 } else { sum / n as f64 },
        perceptual_max,
    })
}

/// The rows `first..first + count` of one image, RGBA8.
struct Window {
    width: usize,
    first: usize,
    bytes: Vec<u8>,
    /// Rows read from the source so far.
    read: usize,
}

impl Window {
    fn new(width: usize) -> Window {
        Window {
            width,
            first: 0,
            bytes: Vec::new(),
            read: 0,
        }
    }

    /// Makes the window hold rows `s0..s1` (both never decreasing between calls).
    fn advance(&mut self, src: &mut dyn RowSource, s0: usize, s1: usize) -> Result<(), String> {
        let stride = 4 * self.width;
        if s0 > self.first {
            let drop = (s0 - self.first).min(self.bytes.len() / stride.max(1));
            self.bytes.drain(..drop * stride);
            self.first = s0;
        }
        while self.read < s1 {
            let at = self.bytes.len();
            self.bytes.resize(at + stride, 0);
            src.next_row(&mut self.bytes[at..])?;
            self.read += 1;
        }
        Ok(())
    }

    /// Bytes of rows `y0..y1` (inside the window).
    fn rows(&self, y0: usize, y1: usize) -> &[u8] {
        let stride = 4 * self.width;
        &self.bytes[(y0 - self.first) * stride..(y1 - self.first) * stride]
    }
}

/// `10 · log10(255² / (sq_sum / samples))`, `inf` for `sq_sum == 0`.
fn psnr_from_sums(sq_sum: u64, samples: u64) -> f64 {
    if sq_sum == 0 || samples == 0 {
        return f64::INFINITY;
    }
    // 255² · samples / sq_sum, exact in f64 for any realistic image size.
    let ratio = 65025.0 * samples as f64 / sq_sum as f64;
    10.0 * log10_f64(ratio)
}

/// log10 of a positive finite `x` through `math::log2` (f32) with the binary exponent split
/// off exactly in f64, so the absolute error is about 1e-7.
fn log10_f64(x: f64) -> f64 {
    // x = m · 2^e with m in [1, 2): the exponent is exact, only log2(m) is single precision.
    let bits = x.to_bits();
    let e = ((bits >> 52) & 0x7ff) as i64 - 1023;
    let m = f64::from_bits((bits & ((1u64 << 52) - 1)) | (1023u64 << 52));
    let log2 = e as f64 + f64::from(math::log2(m as f32));
    log2 / core::f64::consts::LOG2_10
}

/// The fixed heat-map ramp: black (0) → magenta (1/3) → yellow (2/3) → white (1), linear in
/// each segment, rounded to 8 bits, alpha 255. `e` is clamped to `[0, 1]`; NaN maps to white.
pub fn heat_color(e: f32) -> Rgba<u8> {
    const STOPS: [[f32; 3]; 4] = [
        [0.0, 0.0, 0.0],
        [255.0, 0.0, 255.0],
        [255.0, 255.0, 0.0],
        [255.0, 255.0, 255.0],
    ];
    let e = if e.is_nan() { 1.0 } else { e.clamp(0.0, 1.0) };
    let s = e * 3.0;
    let i = (s.floor() as usize).min(2);
    let f = s - i as f32;
    let (lo, hi) = (STOPS[i], STOPS[i + 1]);
    let ch = |c: usize| {
        (lo[c] + (hi[c] - lo[c]) * f + 0.5)
            .floor()
            .clamp(0.0, 255.0) as u8
    };
    Rgba([ch(0), ch(1), ch(2), 255])
}

// ---------------------------------------------------------------------------------------------
// FLIP-style pipeline
// ---------------------------------------------------------------------------------------------

/// Linear sRGB (D65) → XYZ, FLIP's exact rational form.
const RGB_TO_XYZ: [[f32; 3]; 3] = [
    [
        10135552.0 / 24577794.0,
        8788810.0 / 24577794.0,
        4435075.0 / 24577794.0,
    ],
    [
        2613072.0 / 12288897.0,
        8788810.0 / 12288897.0,
        887015.0 / 12288897.0,
    ],
    [
        1425312.0 / 73733382.0,
        8788810.0 / 73733382.0,
        70074185.0 / 73733382.0,
    ],
];

/// XYZ → linear sRGB (D65), the inverse of [`RGB_TO_XYZ`] as FLIP writes it.
#[expect(
    clippy::excessive_precision,
    reason = "constants copied verbatim from the FLIP reference"
)]
const XYZ_TO_RGB: [[f32; 3]; 3] = [
    [3.241003232976358, -1.537398969488785, -0.498615881996363],
    [-0.969224252202516, 1.875929983695176, 0.041554226340085],
    [0.055639419851975, -0.204011206123910, 1.057148977187533],
];

fn mat3(m: &[[f32; 3]; 3], v: [f32; 3]) -> [f32; 3] {
    [
        m[0][0] * v[0] + m[0][1] * v[1] + m[0][2] * v[2],
        m[1][0] * v[0] + m[1][1] * v[1] + m[1][2] * v[2],
        m[2][0] * v[0] + m[2][1] * v[1] + m[2][2] * v[2],
    ]
}

/// XYZ of linear RGB (1, 1, 1): the reference white.
fn white() -> [f32; 3] {
    mat3(&RGB_TO_XYZ, [1.0, 1.0, 1.0])
}

/// 8-bit sRGB → linear, as a table (computed through libm, so deterministic).
fn srgb_table() -> [f32; 256] {
    let mut t = [0.0f32; 256];
    for (i, v) in t.iter_mut().enumerate() {
        let c = i as f32 / 255.0;
        *v = if c <= 0.04045 {
            c / 12.92
        } else {
            math::powf((c + 0.055) / 1.055, 2.4)
        };
    }
    t
}

fn xyz_to_ycxcz(xyz: [f32; 3], wp: [f32; 3]) -> [f32; 3] {
    let (x, y, z) = (xyz[0] / wp[0], xyz[1] / wp[1], xyz[2] / wp[2]);
    [116.0 * y - 16.0, 500.0 * (x - y), 200.0 * (y - z)]
}

fn ycxcz_to_xyz(v: [f32; 3], wp: [f32; 3]) -> [f32; 3] {
    let y = (v[0] + 16.0) / 116.0;
    let x = v[1] / 500.0 + y;
    let z = y - v[2] / 200.0;
    [x * wp[0], y * wp[1], z * wp[2]]
}

/// CIELAB of a linear RGB colour (white = RGB (1, 1, 1)), Hunt-adjusted.
fn hunt_lab(rgb: [f32; 3], wp: [f32; 3]) -> [f32; 3] {
    const DELTA: f32 = 6.0 / 29.0;
    let f = |t: f32| {
        if t > DELTA * DELTA * DELTA {
            math::powf(t, 1.0 / 3.0)
        } else {
            t / (3.0 * DELTA * DELTA) + 4.0 / 29.0
        }
    };
    let xyz = mat3(&RGB_TO_XYZ, rgb);
    let (fx, fy, fz) = (f(xyz[0] / wp[0]), f(xyz[1] / wp[1]), f(xyz[2] / wp[2]));
    let l = 116.0 * fy - 16.0;
    let a = 500.0 * (fx - fy);
    let b = 200.0 * (fy - fz);
    [l, 0.01 * l * a, 0.01 * l * b]
}

fn hyab(p: [f32; 3], q: [f32; 3]) -> f32 {
    let (da, db) = (p[1] - q[1], p[2] - q[2]);
    (p[0] - q[0]).abs() + (da * da + db * db).sqrt()
}

/// A single-channel image band, row-major: image rows `first..first + h`.
struct Plane {
    w: usize,
    h: usize,
    data: Vec<f32>,
}

impl Plane {
    fn new(w: usize, h: usize) -> Plane {
        Plane {
            w,
            h,
            data: vec![0.0; w * h],
        }
    }
}

/// Separable convolution with clamp-to-edge: `kx` along x, then `ky` along y. Kernels have odd
/// length `2r + 1`, centred. `src` holds image rows `s0..s0 + src.h` of an image `height`
/// rows tall; the result holds rows `y0..y1`, clamped at the **image's** top and bottom, so
/// every band of an image gives the rows the whole image would (the window must reach
/// `r` rows beyond the band where the image has them).
fn convolve(
    src: &Plane,
    kx: &[f32],
    ky: &[f32],
    s0: usize,
    (y0, y1): (usize, usize),
    height: usize,
) -> Plane {
    let w = src.w;
    let mut tmp = Plane::new(w, src.h);
    for (row, out) in src
        .data
        .chunks_exact(w.max(1))
        .zip(tmp.data.chunks_exact_mut(w.max(1)))
    {
        convolve_row(row, kx, out);
    }
    // Vertical pass, a whole row at a time (each output row adds the kernel's rows in kernel
    // order, so every pixel sums the same products in the same order as a per-pixel loop).
    let mut out = Plane::new(w, y1 - y0);
    let ry = (ky.len() / 2) as isize;
    for y in y0..y1 {
        let o = &mut out.data[(y - y0) * w..(y - y0 + 1) * w];
        for (i, &k) in ky.iter().enumerate() {
            let sy = (y as isize + i as isize - ry).clamp(0, height as isize - 1) as usize;
            let r = &tmp.data[(sy - s0) * w..(sy - s0 + 1) * w];
            for (acc, &v) in o.iter_mut().zip(r) {
                *acc += k * v;
            }
        }
    }
    out
}

/// One row of the horizontal pass, clamp-to-edge: `out[x] = Σᵢ k[i]·row[clamp(x + i − r)]`,
/// summed in tap order from 0. The interior (no clamping) runs tap by tap over the whole
/// span so it vectorises; each pixel still adds the same products in the same order.
fn convolve_row(row: &[f32], k: &[f32], out: &mut [f32]) {
    let w = row.len();
    let r = k.len() / 2;
    let clamped = |x: usize| {
        let mut acc = 0.0f32;
        for (i, &kv) in k.iter().enumerate() {
            let sx = (x + i).saturating_sub(r).min(w - 1);
            acc += kv * row[sx];
        }
        acc
    };
    if w <= 2 * r {
        for (x, o) in out.iter_mut().enumerate() {
            *o = clamped(x);
        }
        return;
    }
    let span = w - 2 * r;
    for (i, &kv) in k.iter().enumerate() {
        for (acc, &v) in out[r..r + span].iter_mut().zip(&row[i..i + span]) {
            *acc += kv * v;
        }
    }
    for x in (0..r).chain(r + span..w) {
        out[x] = clamped(x);
    }
}

/// One Gaussian term `a·√(π/b)·exp(−π²r²/b)` of a CSF kernel: its 1D profile
/// `exp(−π²x²/b)` (x in degrees) normalised so that profile ⊗ profile sums to 1, and its 2D
/// weight `a·√(π/b)·(Σ profile)²` over all terms' weights.
struct CsfTerm {
    kernel: Vec<f32>,
    weight: f32,
}

fn csf_terms(params: &[(f32, f32)], ppd: f32) -> Vec<CsfTerm> {
    let pi = core::f32::consts::PI;
    let mut terms: Vec<CsfTerm> = params
        .iter()
        .map(|&(a, b)| {
            let r = (3.0 * (b / (2.0 * pi * pi)).sqrt() * ppd).ceil().max(1.0) as isize;
            let profile: Vec<f32> = (-r..=r)
                .map(|i| {
                    let x = i as f32 / ppd;
                    math::exp(-pi * pi * x * x / b)
                })
                .collect();
            let s: f32 = profile.iter().sum();
            CsfTerm {
                weight: a * (pi / b).sqrt() * s * s,
                kernel: profile.iter().map(|v| v / s).collect(),
            }
        })
        .collect();
    let total: f32 = terms.iter().map(|t| t.weight).sum();
    for t in &mut terms {
        t.weight /= total;
    }
    terms
}

fn csf_filter(
    src: &Plane,
    terms: &[CsfTerm],
    s0: usize,
    band: (usize, usize),
    height: usize,
) -> Plane {
    let mut out = Plane::new(src.w, band.1 - band.0);
    for t in terms {
        let part = convolve(src, &t.kernel, &t.kernel, s0, band, height);
        for (o, p) in out.data.iter_mut().zip(&part.data) {
            *o += t.weight * p;
        }
    }
    out
}

/// FLIP's feature kernels as separable 1D factors: `(gauss, d1, d2)` where the edge kernel is
/// `d1(x)·gauss(y)` and the point kernel `d2(x)·gauss(y)`, normalised as FLIP normalises the
/// 2D kernels (positive weights sum to 1, negative weights to −1; `gauss` sums to 1).
fn feature_kernels(ppd: f32) -> (Vec<f32>, Vec<f32>, Vec<f32>) {
    let sd = 0.5 * 0.082 * ppd;
    let r = (3.0 * sd).ceil().max(1.0) as isize;
    let g: Vec<f32> = (-r..=r)
        .map(|i| {
            let x = i as f32;
            math::exp(-(x * x) / (2.0 * sd * sd))
        })
        .collect();
    let gs: f32 = g.iter().sum();
    let gauss: Vec<f32> = g.iter().map(|v| v / gs).collect();
    let xs = || (-r..=r).map(|i| i as f32);
    let d1: Vec<f32> = xs().zip(&g).map(|(x, &gv)| -x * gv).collect();
    let d2: Vec<f32> = xs()
        .zip(&g)
        .map(|(x, &gv)| (x * x / (sd * sd) - 1.0) * gv)
        .collect();
    let split_normalise = |k: Vec<f32>| {
        let pos: f32 = k.iter().filter(|v| **v > 0.0).sum();
        let neg: f32 = -k.iter().filter(|v| **v < 0.0).sum::<f32>();
        k.into_iter()
            .map(|v| {
                if v > 0.0 {
                    v / pos
                } else if v < 0.0 {
                    v / neg
                } else {
                    0.0
                }
            })
            .collect::<Vec<f32>>()
    };
    (gauss, split_normalise(d1), split_normalise(d2))
}

/// One band's intermediate results for one image.
struct Prepared {
    /// CSF-filtered colour, as Hunt-adjusted CIELAB.
    lab: Vec<[f32; 3]>,
    /// Edge magnitude.
    edge: Vec<f32>,
    /// Point magnitude.
    point: Vec<f32>,
}

/// The FLIP-style pipeline for one viewing condition: its kernels and constants.
struct Flip {
    lut: [f32; 256],
    wp: [f32; 3],
    /// CSF terms of Yy, Cx, Cz.
    csf: [Vec<CsfTerm>; 3],
    gauss: Vec<f32>,
    d1: Vec<f32>,
    d2: Vec<f32>,
    cmax: f32,
}

const QC: f32 = 0.7;
const QF: f32 = 0.5;
const PC: f32 = 0.4;
const PT: f32 = 0.95;

impl Flip {
    fn new(ppd: f32) -> Flip {
        let wp = white();
        let (gauss, d1, d2) = feature_kernels(ppd);
        Flip {
            lut: srgb_table(),
            wp,
            csf: [
                csf_terms(&[(1.0, 0.0047)], ppd),
                csf_terms(&[(1.0, 0.0053)], ppd),
                csf_terms(&[(34.1, 0.04), (13.5, 0.025)], ppd),
            ],
            gauss,
            d1,
            d2,
            cmax: math::powf(
                hyab(hunt_lab([0.0, 1.0, 0.0], wp), hunt_lab([0.0, 0.0, 1.0], wp)),
                QC,
            ),
        }
    }

    /// The largest kernel radius: how many rows beyond a band its filters read.
    fn radius(&self) -> usize {
        let csf = self.csf.iter().flatten().map(|t| t.kernel.len() / 2);
        csf.chain([self.gauss.len() / 2]).max().unwrap_or(0)
    }

    /// Filters one image's window (rows `s0..s1`) for output rows `band`.
    fn prepare(
        &self,
        win: &Window,
        (s0, s1): (usize, usize),
        band: (usize, usize),
        height: usize,
    ) -> Prepared {
        let (w, n) = (win.width, s1 - s0);
        let mut ch = [Plane::new(w, n), Plane::new(w, n), Plane::new(w, n)];
        let mut lum = Plane::new(w, n);
        for (i, p) in win.rows(s0, s1).chunks_exact(4).enumerate() {
            let lut = &self.lut;
            let rgb = [lut[p[0] as usize], lut[p[1] as usize], lut[p[2] as usize]];
            let v = xyz_to_ycxcz(mat3(&RGB_TO_XYZ, rgb), self.wp);
            for c in 0..3 {
                ch[c].data[i] = v[c];
            }
            // The achromatic channel normalised to [0, 1]: (Yy + 16) / 116 = Y / Yn.
            lum.data[i] = (v[0] + 16.0) / 116.0;
        }
        let f: Vec<Plane> = (0..3)
            .map(|c| csf_filter(&ch[c], &self.csf[c], s0, band, height))
            .collect();
        let lab = (0..f[0].data.len())
            .into_par_iter()
            .with_min_len(4096)
            .map(|i| {
                let xyz = ycxcz_to_xyz([f[0].data[i], f[1].data[i], f[2].data[i]], self.wp);
                let rgb = mat3(&XYZ_TO_RGB, xyz).map(|c| c.clamp(0.0, 1.0));
                hunt_lab(rgb, self.wp)
            })
            .collect();
        let conv = |kx: &[f32], ky: &[f32]| convolve(&lum, kx, ky, s0, band, height);
        let ex = conv(&self.d1, &self.gauss);
        let ey = conv(&self.gauss, &self.d1);
        let px = conv(&self.d2, &self.gauss);
        let py = conv(&self.gauss, &self.d2);
        let mag = |a: &Plane, b: &Plane| -> Vec<f32> {
            a.data
                .iter()
                .zip(&b.data)
                .map(|(x, y)| (x * x + y * y).sqrt())
                .collect()
        };
        Prepared {
            lab,
            edge: mag(&ex, &ey),
            point: mag(&px, &py),
        }
    }

    /// Per-pixel FLIP-style errors of `b` against `a` for output rows `band`, each in
    /// `[0, 1]`; the windows hold rows `window` of an image `height` rows tall. The two
    /// images are filtered in parallel (the result does not depend on it).
    fn band_errors(
        &self,
        a: &Window,
        b: &Window,
        window: (usize, usize),
        band: (usize, usize),
        height: usize,
    ) -> Vec<f32> {
        let (pa, pb) = rayon::join(
            || self.prepare(a, window, band, height),
            || self.prepare(b, window, band, height),
        );
        // Per pixel and independent: split across threads in fixed chunks, same values.
        (0..pa.lab.len())
            .into_par_iter()
            .with_min_len(4096)
            .map(|i| {
                let cmax = self.cmax;
                let e = math::powf(hyab(pa.lab[i], pb.lab[i]), QC);
                let ec = if e < PC * cmax {
                    PT / (PC * cmax) * e
                } else {
                    PT + (e - PC * cmax) / (cmax - PC * cmax) * (1.0 - PT)
                };
                let df = (pa.edge[i] - pb.edge[i])
                    .abs()
                    .max((pa.point[i] - pb.point[i]).abs());
                let dfn = math::powf(df * core::f32::consts::FRAC_1_SQRT_2, QF);
                math::powf(ec, 1.0 - dfn).clamp(0.0, 1.0)
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn solid(w: u32, h: u32, c: [u8; 4]) -> RgbaImage {
        RgbaImage::from_pixel(w, h, Rgba(c))
    }

    fn gradient(w: u32, h: u32) -> RgbaImage {
        RgbaImage::from_fn(w, h, |x, y| {
            Rgba([
                (x * 7 % 256) as u8,
                (y * 13 % 256) as u8,
                ((x + y) * 3 % 256) as u8,
                255,
            ])
        })
    }

    #[test]
    fn identical_images_have_no_error() {
        let a = gradient(17, 9);
        let d = compare(&a, &a.clone(), &DiffOptions::default()).unwrap();
        let r = d.report;
        assert_eq!(r.pixels_over, 0);
        assert_eq!(r.max_delta, 0);
        assert_eq!(r.psnr, f64::INFINITY);
        assert_eq!(r.psnr_text(), "inf");
        assert_eq!(r.perceptual_mean, 0.0);
        assert_eq!(r.perceptual_max, 0.0);
        assert!(d.heat_map().pixels().all(|p| p.0 == [0, 0, 0, 255]));
    }

    /// The whole image as one band, without the identical-window shortcut.
    fn flip_errors(a: &RgbaImage, b: &RgbaImage, ppd: f32) -> Vec<f32> {
        let h = a.height() as usize;
        let (mut wa, mut wb) = (
            Window::new(a.width() as usize),
            Window::new(b.width() as usize),
        );
        wa.advance(&mut ImageRows::new(a), 0, h).unwrap();
        wb.advance(&mut ImageRows::new(b), 0, h).unwrap();
        Flip::new(ppd).band_errors(&wa, &wb, (0, h), (0, h), h)
    }

    #[test]
    fn identical_images_through_the_full_pipeline_give_zero() {
        // Bypass the identical-window shortcut: the pipeline itself must give exactly 0
        // (which is what makes the shortcut exact).
        let a = gradient(12, 10);
        assert!(flip_errors(&a, &a, 67.0).iter().all(|&e| e == 0.0));
    }

    /// A pair that differs in a few scattered places, so some bands are identical and
    /// some are not.
    fn scattered_pair(w: u32, h: u32) -> (RgbaImage, RgbaImage) {
        let a = gradient(w, h);
        let mut b = a.clone();
        for (x, y) in [(3, 0), (w - 1, 40), (10, 41), (5, h - 1), (w / 2, h / 2)] {
            let p = b.get_pixel(x, y).0;
            b.put_pixel(x, y, Rgba([p[0] ^ 0x5a, p[1], p[2] / 2, p[3]]));
        }
        (a, b)
    }

    /// The per-pixel separable convolution `convolve` replaced (each tap clamped, pixel by
    /// pixel): the reference its bits must equal.
    fn convolve_per_pixel(
        src: &Plane,
        kx: &[f32],
        ky: &[f32],
        s0: usize,
        (y0, y1): (usize, usize),
        height: usize,
    ) -> Vec<f32> {
        let w = src.w;
        let mut tmp = vec![0.0f32; w * src.h];
        let rx = (kx.len() / 2) as isize;
        for y in 0..src.h {
            for x in 0..w {
                let mut acc = 0.0f32;
                for (i, &k) in kx.iter().enumerate() {
                    let sx = (x as isize + i as isize - rx).clamp(0, w as isize - 1) as usize;
                    acc += k * src.data[y * w + sx];
                }
                tmp[y * w + x] = acc;
            }
        }
        let ry = (ky.len() / 2) as isize;
        let mut out = Vec::new();
        for y in y0..y1 {
            for x in 0..w {
                let mut acc = 0.0f32;
                for (i, &k) in ky.iter().enumerate() {
                    let sy = (y as isize + i as isize - ry).clamp(0, height as isize - 1) as usize;
                    acc += k * tmp[(sy - s0) * w + x];
                }
                out.push(acc);
            }
        }
        out
    }

    #[test]
    fn row_convolution_gives_the_per_pixel_bits() {
        // Widths below, at and above the kernel's reach; bands at the top, middle and
        // bottom of a 40-row image; signed values (the feature kernels), -0.0 included.
        let mut r = 0x2545_f491_u32;
        let mut next = move || {
            r ^= r << 13;
            r ^= r >> 17;
            r ^= r << 5;
            (r as f32 / u32::MAX as f32) * 2.0 - 1.0
        };
        let (gauss, d1, d2) = feature_kernels(67.0);
        let csf = csf_terms(&[(34.1, 0.04)], 67.0);
        let kernels = [&gauss, &d1, &d2, &csf[0].kernel];
        let height = 40;
        for w in [1, 5, 18, 19, 20, 21, 22, 57, 300] {
            let mut src = Plane::new(w, height);
            for v in &mut src.data {
                *v = next();
            }
            src.data[0] = -0.0;
            for kx in kernels {
                for ky in kernels {
                    for band in [(0, 7), (13, 29), (31, 40)] {
                        let got = convolve(&src, kx, ky, 0, band, height);
                        let want = convolve_per_pixel(&src, kx, ky, 0, band, height);
                        assert_eq!(got.data.len(), want.len());
                        assert!(
                            got.data
                                .iter()
                                .zip(&want)
                                .all(|(a, b)| a.to_bits() == b.to_bits()),
                            "w {w}, kernels {} x {}, band {band:?}",
                            kx.len(),
                            ky.len()
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn bands_give_the_whole_image_numbers_exactly() {
        // 30 × 300 with errors at the top and bottom edges and at band seams: every band
        // height gives the bits of the single-band computation, and so do the shortcuts.
        let (a, b) = scattered_pair(30, 300);
        let whole = flip_errors(&a, &b, 67.0);
        assert!(whole.iter().any(|&e| e > 0.0));
        assert!(whole.iter().filter(|&&e| e > 0.0).count() < whole.len() / 2);
        for band in [1, 2, 7, 64, 299, 300, 1000] {
            let mut got = Vec::new();
            let r = compare_banded(
                &mut ImageRows::new(&a),
                &mut ImageRows::new(&b),
                &DiffOptions::default(),
                band,
                &mut |y, row| {
                    assert_eq!(y as usize * 30, got.len(), "rows arrive in order");
                    got.extend_from_slice(row);
                    Ok(())
                },
            )
            .unwrap();
            assert_eq!(got.len(), whole.len());
            let same = got
                .iter()
                .zip(&whole)
                .all(|(x, y)| x.to_bits() == y.to_bits());
            assert!(same, "band height {band} changed the errors");
            let mean = whole.iter().map(|&e| f64::from(e)).sum::<f64>() / whole.len() as f64;
            assert_eq!(r.perceptual_mean, mean, "band height {band}");
        }
    }

    #[test]
    fn a_failing_source_or_sink_stops_the_comparison() {
        struct Broken;
        impl RowSource for Broken {
            fn size(&self) -> (u32, u32) {
                (4, 4)
            }
            fn next_row(&mut self, _: &mut [u8]) -> Result<(), String> {
                Err("b.png: truncated".to_owned())
            }
        }
        let a = gradient(4, 4);
        let e = compare_rows(
            &mut ImageRows::new(&a),
            &mut Broken,
            &DiffOptions::default(),
            &mut |_, _| Ok(()),
        );
        assert_eq!(
            e.unwrap_err(),
            DiffError::Read("b.png: truncated".to_owned())
        );
        let e = compare_rows(
            &mut ImageRows::new(&a),
            &mut ImageRows::new(&a),
            &DiffOptions::default(),
            &mut |y, _| {
                if y == 2 {
                    Err("disk full".to_owned())
                } else {
                    Ok(())
                }
            },
        );
        assert_eq!(e.unwrap_err().to_string(), "disk full");
    }

    #[test]
    fn one_pixel_off_by_ten() {
        // 10×10 image, one pixel's green channel differs by 10.
        // Over T = 5: that one pixel (10 > 5). Max delta 10.
        // MSE over all RGB samples = 10² / (3 · 100) = 100/300 = 1/3, so
        // PSNR = 10 · log10(255² / (1/3)) = 10 · log10(195075) = 52.902 dB (to 3 decimals:
        // log10(195075) = log10(1.95075) + 5 = 0.290202 + 5).
        let a = solid(10, 10, [100, 100, 100, 255]);
        let mut b = a.clone();
        b.put_pixel(2, 7, Rgba([100, 110, 100, 255]));
        let opts = DiffOptions {
            threshold: 5,
            ..DiffOptions::default()
        };
        let r = compare(&a, &b, &opts).unwrap().report;
        assert_eq!(r.pixels_over, 1);
        assert_eq!(r.max_delta, 10);
        let expected = 10.0 * (195075.0f64).log10();
        assert!((r.psnr - expected).abs() < 1e-5, "{} vs {expected}", r.psnr);
        assert!((r.psnr - 52.902).abs() < 1e-3);
        // flip-evaluator 1.7 (the reference implementation) gives 0.006622 for this pair.
        assert!(
            (r.perceptual_mean - 0.006622).abs() < 1e-4,
            "{}",
            r.perceptual_mean
        );
    }

    #[test]
    fn threshold_equal_to_delta_is_not_over() {
        let a = solid(4, 4, [0, 0, 0, 255]);
        let mut b = a.clone();
        b.put_pixel(0, 0, Rgba([7, 0, 0, 255]));
        b.put_pixel(1, 0, Rgba([0, 8, 0, 255]));
        let count = |t| {
            compare(
                &a,
                &b,
                &DiffOptions {
                    threshold: t,
                    ..DiffOptions::default()
                },
            )
            .unwrap()
            .report
            .pixels_over
        };
        assert_eq!(count(0), 2);
        assert_eq!(count(6), 2);
        assert_eq!(count(7), 1); // delta 7 == T: not over; delta 8 is.
        assert_eq!(count(8), 0);
        assert_eq!(count(255), 0);
    }

    #[test]
    fn alpha_counts_for_threshold_but_not_psnr_or_perceptual() {
        let a = solid(3, 3, [10, 20, 30, 255]);
        let b = solid(3, 3, [10, 20, 30, 0]);
        let r = compare(&a, &b, &DiffOptions::default()).unwrap().report;
        assert_eq!(r.pixels_over, 9);
        assert_eq!(r.max_delta, 255);
        assert_eq!(r.psnr, f64::INFINITY);
        assert_eq!(r.perceptual_mean, 0.0);
    }

    #[test]
    fn black_vs_white() {
        // MSE = 255² → PSNR = 10·log10(1) = 0. Colour term: HyAB(L=0, L=100) = 100,
        // 100^0.7 ≈ 25.1 > pc·cmax ≈ 16.5 → ≈ 0.95 + (25.1 − 16.5)/(41.3 − 16.5)·0.05 ≈ 0.967;
        // uniform images have no features, so ΔE = ΔEc everywhere.
        let a = solid(8, 8, [0, 0, 0, 255]);
        let b = solid(8, 8, [255, 255, 255, 255]);
        let r = compare(&a, &b, &DiffOptions::default()).unwrap().report;
        assert_eq!(r.pixels_over, 64);
        assert_eq!(r.max_delta, 255);
        assert_eq!(r.psnr, 0.0);
        assert!(
            r.perceptual_mean > 0.95 && r.perceptual_mean <= 1.0,
            "{}",
            r.perceptual_mean
        );
        // flip-evaluator 1.7 gives 0.967391.
        assert!(
            (r.perceptual_mean - 0.967391).abs() < 1e-4,
            "{}",
            r.perceptual_mean
        );
    }

    #[test]
    fn green_vs_blue_is_the_maximum() {
        // cmax is defined by exactly this pair, so the unfiltered, featureless error is 1.
        let a = solid(6, 6, [0, 255, 0, 255]);
        let b = solid(6, 6, [0, 0, 255, 255]);
        let r = compare(&a, &b, &DiffOptions::default()).unwrap().report;
        assert!(
            (r.perceptual_mean - 1.0).abs() < 1e-4,
            "{}",
            r.perceptual_mean
        );
    }

    #[test]
    fn size_mismatch_is_an_error() {
        let e = compare(
            &solid(4, 4, [0; 4]),
            &solid(4, 5, [0; 4]),
            &DiffOptions::default(),
        )
        .unwrap_err();
        assert_eq!(
            e,
            DiffError::SizeMismatch {
                a: (4, 4),
                b: (4, 5)
            }
        );
        assert_eq!(e.to_string(), "image sizes differ: 4x4 vs 4x5");
    }

    #[test]
    fn empty_images_compare_equal() {
        let a = RgbaImage::new(0, 0);
        let r = compare(&a, &a, &DiffOptions::default()).unwrap().report;
        assert_eq!((r.pixels_over, r.max_delta, r.perceptual_mean), (0, 0, 0.0));
        assert_eq!(r.psnr, f64::INFINITY);
    }

    #[test]
    fn errors_are_in_range_and_deterministic() {
        let a = gradient(40, 30);
        let mut b = a.clone();
        for (x, y, p) in b.enumerate_pixels_mut() {
            if (x + 2 * y) % 5 == 0 {
                p.0[0] = p.0[0].wrapping_add(90);
            }
        }
        let d1 = compare(&a, &b, &DiffOptions::default()).unwrap();
        let d2 = compare(&a, &b, &DiffOptions::default()).unwrap();
        assert_eq!(d1.report, d2.report);
        assert!(d1
            .perceptual_errors()
            .iter()
            .all(|e| (0.0..=1.0).contains(e)));
        assert!(d1.report.perceptual_mean > 0.0);
        assert_eq!(d1.heat_map(), d2.heat_map());
        // Another viewing condition gives another, still valid, answer.
        let c = compare(
            &a,
            &b,
            &DiffOptions {
                pixels_per_degree: 10.0,
                ..Default::default()
            },
        )
        .unwrap();
        assert!(c.report.perceptual_mean > 0.0);
    }

    #[test]
    fn psnr_formula() {
        // One sample off by 255 in 1 pixel: MSE = 255²/3 → PSNR = 10·log10(3).
        assert!((psnr_from_sums(65025, 3) - 10.0 * 3f64.log10()).abs() < 1e-6);
        for x in [1.0, 2.0, 10.0, 1e-3, 12345.678, 1e12] {
            assert!((log10_f64(x) - x.log10()).abs() < 1e-6, "{x}");
        }
    }

    #[test]
    fn heat_ramp_stops() {
        assert_eq!(heat_color(0.0).0, [0, 0, 0, 255]);
        assert_eq!(heat_color(1.0 / 3.0).0, [255, 0, 255, 255]);
        assert_eq!(heat_color(2.0 / 3.0).0, [255, 255, 0, 255]);
        assert_eq!(heat_color(1.0).0, [255, 255, 255, 255]);
        assert_eq!(heat_color(1.0 / 6.0).0, [128, 0, 128, 255]);
        assert_eq!(heat_color(-1.0).0, [0, 0, 0, 255]);
        assert_eq!(heat_color(7.0).0, [255, 255, 255, 255]);
        assert_eq!(heat_color(f32::NAN).0, [255, 255, 255, 255]);
    }
}
