//! Texture sampling over batches of pixels, 8 lanes at a time, generic over the SIMD level.
//!
//! Each kernel computes exactly the scalar formula of `filter.rs` (and `math::log2_lod`) in
//! every lane: the same IEEE operations in the same order, `max`/`min`/floors written as
//! compare-and-select with the scalar code's NaN rules, and integer texel indices taken only
//! after the coordinates are clamped. So a batch gives, bit for bit, what
//! [`Texture::sample_adjusted`] gives pixel by pixel — on every instruction set
//! (`tests::lanes_match_scalar` holds every level the machine has to that).
//!
//! What stays scalar is the texel fetch itself: per lane, the loads (and, off the common
//! paths, the wrapped indices by the scalar `wrap` functions). Everything around it — level
//! of detail, level selection, texel coordinates and weights in `f32x8` / `i32x8`; the
//! 8-bit lerps of `filter.rs` in 16-bit lanes, two channels per pixel in each of two
//! vectors ([`Bytes16`]); one conversion to floats per sample — runs in lanes.

use fearless_simd::{f32x8, i32x8, mask32x8, prelude::*, u16x16, u32x8};

use super::chain::Texture;
use super::filter::{nearest_mode, wrap, wrap_nb, COORD_LIMIT};
use super::sampler::{MagFilter, MinFilter, Sampler, Wrap};
use crate::base::unorm::{to_unorm8, INV_255};
use crate::base::vec_lanes::{max_or, min_or, LANES};

/// How a sampler filters within and between levels, for [`sample_batch`] and (anisotropic
/// samplers: each probe) [`sample_grad_batch`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct LaneFilter {
    /// Mip selection when minified.
    mips: Mips,
    /// Wrap codes of `filter::wrap_nb` (0 repeat, 1 mirrored repeat, 2 clamp to edge).
    wrap_u: u8,
    wrap_v: u8,
    /// Within a level: bilinear (`true`) or nearest, magnified and minified.
    mag_linear: bool,
    min_linear: bool,
    /// The switch point `c` is ½ (mag `Linear` with a `NearestMipmap*` min), else 0.
    half_switch: bool,
    /// A wrap can read the border colour: every lane goes through [`filter_levels_border`]
    /// with the sampler's wrap modes and border colour (as given; converted to the
    /// texture's format per batch, as `Texture::in_format`).
    border: Option<(Wrap, Wrap, [f32; 4])>,
    /// The border colour in the texture's format as RGBA8 bytes (`Texture::in_format`), set
    /// by [`LaneFilter::in_format`] (0 until then).
    border8: u32,
    /// Set by [`LaneFilter::in_format`] for one texture: bit `d` says level `d` is filtered
    /// by [`bilinear_level`] when every lane reads it (bilinear both ways, no border, both
    /// wraps in lanes), and bit `d` of `pow2_len` that it holds a power of two of texels.
    /// Lets [`sample8`] test a group's two levels once instead of per level and lane path.
    /// 0 (no level) until then, which only sends every group the general way.
    in_lanes: u32,
    pow2_len: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mips {
    /// `Nearest`, `Linear`: level 0 only.
    None,
    /// `*MipmapNearest`.
    Nearest,
    /// `*MipmapLinear`.
    Linear,
}

impl LaneFilter {
    /// The lane path for `s`: every filter pair, mip mode and wrap (with the border colour
    /// where a wrap can read it; `Clamp` reads it only with a linear filter, as in
    /// `filter::nearest_mode`). Anisotropy is not part of it: [`sample_grad_batch`] takes it
    /// from the sampler.
    pub(crate) fn new(s: &Sampler) -> LaneFilter {
        let nearest_only = s.mag == MagFilter::Nearest
            && matches!(
                s.min,
                MinFilter::Nearest
                    | MinFilter::NearestMipmapNearest
                    | MinFilter::NearestMipmapLinear
            );
        let code = |w: Wrap| match w {
            Wrap::Repeat => Some(0),
            Wrap::MirroredRepeat => Some(1),
            Wrap::ClampToEdge => Some(2),
            // Without linear filtering `Clamp` never reaches the border (`nearest_mode`).
            Wrap::Clamp if nearest_only => Some(2),
            Wrap::ClampToBorder | Wrap::Clamp => None,
        };
        let (mips, min_linear) = match s.min {
            MinFilter::Nearest => (Mips::None, false),
            MinFilter::Linear => (Mips::None, true),
            MinFilter::NearestMipmapNearest => (Mips::Nearest, false),
            MinFilter::LinearMipmapNearest => (Mips::Nearest, true),
            MinFilter::NearestMipmapLinear => (Mips::Linear, false),
            MinFilter::LinearMipmapLinear => (Mips::Linear, true),
        };
        let (cu, cv) = (code(s.wrap_u), code(s.wrap_v));
        LaneFilter {
            mips,
            wrap_u: cu.unwrap_or(2),
            wrap_v: cv.unwrap_or(2),
            mag_linear: s.mag == MagFilter::Linear,
            min_linear,
            half_switch: s.switch_point() > 0.0,
            border: (cu.is_none() || cv.is_none())
                .then(|| (s.wrap_u, s.wrap_v, s.border.to_array())),
            border8: 0,
            in_lanes: 0,
            pow2_len: 0,
        }
    }

    /// The filter with its border colour converted to `tex`'s format (as
    /// `Texture::in_format`) and its levels' lane flags (`in_lanes`, `pow2_len`), once per
    /// batch.
    pub(crate) fn in_format(mut self, tex: &Texture) -> LaneFilter {
        if let Some((_, _, c)) = self.border {
            let c = tex.format.convert_border(glam::Vec4::from_array(c));
            self.border8 = u32::from_le_bytes(c.to_array().map(to_unorm8));
        }
        let bilinear = self.border.is_none() && self.mag_linear && self.min_linear;
        for (d, level) in tex.levels.iter().enumerate().take(32) {
            let bit = 1 << d;
            let (w, h) = (level.width(), level.height());
            if bilinear && wrap_in_lanes(self.wrap_u, w) && wrap_in_lanes(self.wrap_v, h) {
                self.in_lanes |= bit;
            }
            if level.pairs().len().is_power_of_two() {
                self.pow2_len |= bit;
            }
        }
        self
    }
}

/// Inputs of one batch: texture coordinates and the adjusted level of detail per pixel
/// (bias and clamps applied, as [`Texture::sample_adjusted`] takes it), all of length `n`.
pub(crate) struct LaneInput<'a> {
    pub u: &'a [f32],
    pub v: &'a [f32],
    pub lambda: &'a [f32],
}

/// `λ = adjust(½·log2_lod ρ²)` (as `Texture::lod` then [`Sampler::adjust_lod`]) for `n` pixels
/// (a multiple of [`LANES`]), from the squared texel-space derivative lengths `ρ²`, in place.
#[inline(always)]
pub(crate) fn lod_batch<S: Simd>(simd: S, s: &Sampler, rho2_to_lambda: &mut [f32]) {
    simd.vectorize(
        #[inline(always)]
        || {
            for x in rho2_to_lambda.chunks_exact_mut(LANES) {
                let rho2 = f32x8::from_slice(simd, x);
                adjust_lod(simd, s, log2_lod(simd, rho2) * 0.5).store_slice(x);
            }
        },
    )
}

/// [`Sampler::adjust_lod`] for `n` pixels (a multiple of [`LANES`]), in place.
#[inline(always)]
pub(crate) fn adjust_batch<S: Simd>(simd: S, s: &Sampler, lambda: &mut [f32]) {
    simd.vectorize(
        #[inline(always)]
        || {
            for x in lambda.chunks_exact_mut(LANES) {
                adjust_lod(simd, s, f32x8::from_slice(simd, x)).store_slice(x);
            }
        },
    )
}

/// Samples `n = input.u.len()` pixels (a multiple of [`LANES`]) into `out[c][..n]`, at the
/// adjusted λ of each pixel.
///
/// The kernel runs inside its own `vectorize` call: `fearless_simd`'s operations are only
/// `#[inline]`, and inside one large dispatched function LLVM left them out of line (one call
/// per vector operation, several times slower). A function of its own keeps them inlined.
/// Not inlined into its callers (the shader and [`Texture::sample_lod_batch`]): one copy
/// per level, each a function LLVM optimises on its own (inlined, the portable fallback's
/// copy cost it over 10 s per call site).
#[inline(never)]
pub(crate) fn sample_batch<S: Simd>(
    simd: S,
    tex: &Texture,
    f: LaneFilter,
    input: LaneInput<'_>,
    out: [&mut [f32]; 4],
) {
    simd.vectorize(
        #[inline(always)]
        || batch(simd, tex, f, input, out),
    )
}

#[inline(always)]
fn batch<S: Simd>(
    simd: S,
    tex: &Texture,
    f: LaneFilter,
    input: LaneInput<'_>,
    out: [&mut [f32]; 4],
) {
    let n = input.u.len();
    debug_assert!(n.is_multiple_of(LANES) && input.v.len() == n && input.lambda.len() == n);
    let [r, g, b, a] = out;
    let f = f.in_format(tex);
    for k in (0..n).step_by(LANES) {
        let lambda = f32x8::from_slice(simd, &input.lambda[k..k + LANES]);
        let u = f32x8::from_slice(simd, &input.u[k..k + LANES]);
        let v = f32x8::from_slice(simd, &input.v[k..k + LANES]);
        // Inlined at the SIMD levels (one call per eight pixels cost the trilinear fill 2 %
        // of its instructions); the portable copy calls (inlined, it cost LLVM 15 s).
        let c = if crate::base::simd::is_portable(simd) {
            sample8_outlined(simd, f, tex, u, v, lambda)
        } else {
            sample8(simd, f, tex, u, v, lambda)
        };
        c[0].store_slice(&mut r[k..k + LANES]);
        c[1].store_slice(&mut g[k..k + LANES]);
        c[2].store_slice(&mut b[k..k + LANES]);
        c[3].store_slice(&mut a[k..k + LANES]);
    }
}

/// One group of 8 lanes as [`lod_batch`] then [`sample_batch`] give it: λ =
/// `adjust(½·log2_lod ρ²)` from the squared texel-space derivative lengths `rho2`, then
/// the sample at `(u, v)` (the same expressions, so the same bits). `f` must already be in
/// `tex`'s format ([`LaneFilter::in_format`], once per draw). For the fused textured
/// fragment kernel (`fragment::fused_texture`), inlined there, and without a `vectorize`
/// of its own (the kernel already runs at its level): its two copies per SIMD level (row
/// and pixel batches; never the portable level) took the `fill` workload from 137.8 to
/// 135.6 instructions per fragment (callgrind), and dropping the call boundary at each
/// group from 136.3 to 133.2.
#[inline(always)]
pub(crate) fn sample_rho2<S: Simd>(
    simd: S,
    s: &Sampler,
    f: &LaneFilter,
    tex: &Texture,
    (u, v): (f32x8<S>, f32x8<S>),
    rho2: f32x8<S>,
) -> [f32x8<S>; 4] {
    let lambda = adjust_lod(simd, s, log2_lod(simd, rho2) * 0.5);
    sample8(simd, *f, tex, u, v, lambda)
}

/// Inputs of an anisotropic batch: texture coordinates and their exact screen derivatives
/// `[∂u/∂x, ∂v/∂x, ∂u/∂y, ∂v/∂y]` per pixel, all of length `n`.
pub(crate) struct GradInput<'a> {
    pub u: &'a [f32],
    pub v: &'a [f32],
    pub d: [&'a [f32]; 4],
}

/// [`Texture::sample_grad`] for `n = input.u.len()` pixels (a multiple of [`LANES`]) into
/// `out[c][..n]`, for a sampler with anisotropy (`s.max_anisotropy > 1`; `f` its
/// [`LaneFilter`]). Per lane the scalar function's bits: the probe count `N` and the
/// `⌈√(major²/minor²)⌉` it comes from per lane as the scalar code computes them; λ, the
/// probe positions `uv + major·((k + ½)/N − ½)` and the filtering in lanes; the probes of a
/// group run `k = 0..max N`, each lane adding only its own `N` of them in order, then
/// dividing by `N`. Lanes with one probe or a magnified λ take the plain sample, as the
/// scalar code returns it. Not inlined, as [`sample_batch`].
#[inline(never)]
pub(crate) fn sample_grad_batch<S: Simd>(
    simd: S,
    tex: &Texture,
    s: &Sampler,
    f: LaneFilter,
    input: GradInput<'_>,
    out: [&mut [f32]; 4],
) {
    simd.vectorize(
        #[inline(always)]
        || grad_batch(simd, tex, s, f, input, out),
    )
}

#[inline(always)]
fn grad_batch<S: Simd>(
    simd: S,
    tex: &Texture,
    s: &Sampler,
    f: LaneFilter,
    input: GradInput<'_>,
    out: [&mut [f32]; 4],
) {
    let n = input.u.len();
    debug_assert!(n.is_multiple_of(LANES) && input.v.len() == n);
    let [r, g, b, a] = out;
    let f = f.in_format(tex);
    let size = tex.levels[0].size_f;
    let (sw, sh) = (simd.splat_f32x8(size.x), simd.splat_f32x8(size.y));
    let limit = s.anisotropy();
    let switch = simd.splat_f32x8(s.switch_point());
    let (zero, half) = (simd.splat_f32x8(0.0), simd.splat_f32x8(0.5));
    for k in (0..n).step_by(LANES) {
        let u = f32x8::from_slice(simd, &input.u[k..k + LANES]);
        let v = f32x8::from_slice(simd, &input.v[k..k + LANES]);
        let ux = f32x8::from_slice(simd, &input.d[0][k..k + LANES]);
        let vx = f32x8::from_slice(simd, &input.d[1][k..k + LANES]);
        let uy = f32x8::from_slice(simd, &input.d[2][k..k + LANES]);
        let vy = f32x8::from_slice(simd, &input.d[3][k..k + LANES]);
        // |duv_dx·size|² and |duv_dy·size|² (glam's `length_squared`: x·x + y·y).
        let (ax, ay) = (ux * sw, vx * sh);
        let (bx, by) = (uy * sw, vy * sh);
        let a2 = ax * ax + ay * ay;
        let b2 = bx * bx + by * by;
        let x_major = simd.simd_ge_f32x8(a2, b2);
        let major2 = simd.select_f32x8(x_major, a2, b2);
        let minor2 = simd.select_f32x8(x_major, b2, a2);
        let mu = simd.select_f32x8(x_major, ux, uy);
        let mv = simd.select_f32x8(x_major, vx, vy);
        let ratio: [f32; LANES] = (major2 / minor2).sqrt().into();
        let mut probes = [0i32; LANES];
        let mut nf = [0.0f32; LANES];
        for l in 0..LANES {
            let ratio = ratio[l].ceil();
            let p = if ratio < limit as f32 {
                (ratio as u32).max(1)
            } else {
                limit
            };
            // p ≤ Sampler::MAX_ANISOTROPY (16).
            (probes[l], nf[l]) = (p as i32, p as f32);
        }
        let nfv = f32x8::from_slice(simd, &nf);
        let probes_v = i32x8::from_slice(simd, &probes);
        let lambda = adjust_lod(simd, s, log2_lod(simd, major2 / (nfv * nfv)) * 0.5);
        // Lanes that average probes: more than one, and minified (false for NaN).
        let minified = lanes(simd, simd.simd_gt_f32x8(lambda, switch));
        let mut multi = [0i32; LANES];
        let mut most = 0;
        for l in 0..LANES {
            if probes[l] > 1 && minified[l] {
                multi[l] = -1;
                most = most.max(probes[l]);
            }
        }
        // Step −1 is the plain sample at `uv`; steps 0..most the probes. One `sample8` in
        // the loop, not two copies: the kernel's portable copy builds in half the time.
        let mut plain = [zero; 4];
        let mut sum = [zero; 4];
        for j in -1..most {
            let (pu, pv) = if j < 0 {
                (u, v)
            } else {
                let off = simd.splat_f32x8(j as f32 + 0.5) / nfv - half;
                (u + mu * off, v + mv * off)
            };
            let t = sample8_outlined(simd, f, tex, pu, pv, lambda);
            if j < 0 {
                plain = t;
                continue;
            }
            // This lane's probe j exists: j < N.
            let take = simd.simd_gt_i32x8(probes_v, simd.splat_i32x8(j));
            for ch in 0..4 {
                sum[ch] = simd.select_f32x8(take, sum[ch] + t[ch], sum[ch]);
            }
        }
        let c = if most == 0 {
            plain
        } else {
            let avg = simd.from_vector_mask32x8(i32x8::from_slice(simd, &multi));
            [
                simd.select_f32x8(avg, sum[0] / nfv, plain[0]),
                simd.select_f32x8(avg, sum[1] / nfv, plain[1]),
                simd.select_f32x8(avg, sum[2] / nfv, plain[2]),
                simd.select_f32x8(avg, sum[3] / nfv, plain[3]),
            ]
        };
        c[0].store_slice(&mut r[k..k + LANES]);
        c[1].store_slice(&mut g[k..k + LANES]);
        c[2].store_slice(&mut b[k..k + LANES]);
        c[3].store_slice(&mut a[k..k + LANES]);
    }
}

/// [`sample8`] as a function of its own (one copy per level, entered through `vectorize`
/// so it keeps the level's instructions), for the anisotropic loop and the portable level's
/// [`batch`]: inlined in the anisotropic loop, inside two loops, the portable fallback's
/// copy cost LLVM over 60 s (`-Z llvm-time-trace`, `LoopRotatePass`), in `batch`'s loop
/// 15 s; the call is one per eight pixels (or probe of eight pixels).
#[inline(never)]
fn sample8_outlined<S: Simd>(
    simd: S,
    f: LaneFilter,
    tex: &Texture,
    u: f32x8<S>,
    v: f32x8<S>,
    lambda: f32x8<S>,
) -> [f32x8<S>; 4] {
    simd.vectorize(
        #[inline(always)]
        || sample8(simd, f, tex, u, v, lambda),
    )
}

/// [`Sampler::adjust_lod`] per lane (bias, then `max(min_lod)`, then `min(max_lod)`; NaN
/// becomes `min_lod`). The sampler's limits are finite (checked with the pipeline state).
#[inline(always)]
fn adjust_lod<S: Simd>(simd: S, s: &Sampler, lambda: f32x8<S>) -> f32x8<S> {
    let l = lambda + s.lod_bias;
    let l = max_or(l, simd.splat_f32x8(s.min_lod));
    min_or(l, simd.splat_f32x8(s.max_lod))
}

/// [`crate::base::math::log2_lod`] per lane: the same series on the same reduction for positive
/// normal inputs; other lanes (zero, subnormal, negative, ∞, NaN) are recomputed by the
/// scalar function, which hands them to `libm`.
#[inline(always)]
fn log2_lod<S: Simd>(simd: S, x: f32x8<S>) -> f32x8<S> {
    let bits: i32x8<S> = x.to_bits().bitcast();
    // Normal, positive and finite: biased exponent 1..=254 and sign clear, i.e. bits in
    // [2^23, 0x7F80_0000) as signed integers.
    let normal =
        bits.simd_ge(simd.splat_i32x8(0x0080_0000)) & bits.simd_lt(simd.splat_i32x8(0x7F80_0000));
    let e = (bits >> 23) - 127;
    let mb = (bits & 0x007F_FFFF) | 0x3F80_0000;
    let big = mb.simd_ge(simd.splat_i32x8(0x3FC0_0000));
    let mb = big.select(mb - 0x0080_0000, mb);
    let e = big.select(e + 1, e);
    let m = f32x8::from_bits(mb.bitcast());
    let s = (m - 1.0) / (m + 1.0);
    let s2 = s * s;
    const K: f32 = 2.0 / core::f32::consts::LN_2;
    let poly = ((s2 * (1.0 / 7.0) + 1.0 / 5.0) * s2 + 1.0 / 3.0) * s2 + 1.0;
    let mut r = simd.cvt_f32_i32x8(e) + (s * K) * poly;
    if !simd.all_true_mask32x8(normal) {
        let xs: [f32; LANES] = x.into();
        let ok = lanes(simd, normal);
        for i in 0..LANES {
            if !ok[i] {
                r[i] = crate::base::math::log2_lod(xs[i]);
            }
        }
    }
    r
}

/// `(⌊c⌋, c − ⌊c⌋)` with `c` clamped to ±2²² (NaN → −2²²): `filter::index_frac` per lane.
#[inline(always)]
fn index_frac<S: Simd>(simd: S, x: f32x8<S>) -> (i32x8<S>, f32x8<S>) {
    const MAGIC: f32 = 12_582_912.0; // 1.5·2²³
    let c = max_or(x, simd.splat_f32x8(-COORD_LIMIT));
    let c = min_or(c, simd.splat_f32x8(COORD_LIMIT));
    let z = c + MAGIC;
    let zb: i32x8<S> = z.to_bits().bitcast();
    let r = zb - MAGIC.to_bits() as i32;
    let rf = z - MAGIC;
    let above = rf.simd_gt(c);
    let i = above.select(r - 1, r);
    let fl = above.select(rf - 1.0, rf);
    (i, c - fl)
}

impl Texture {
    /// Samples a batch of points at base levels of detail `lambda_base` (before bias and
    /// clamps, as [`Texture::sample_lod`]) through exactly the code the fragment stage runs
    /// at instruction-set `level` (the 8-lane kernel of every filter pair, mip mode and wrap).
    /// Every level returns the same bits as [`Texture::sample_lod`] point by point; tests
    /// use this to hold each level to one expectation.
    ///
    /// # Errors
    /// [`crate::base::error::Error::BufferLength`] if the slices differ in length; [`crate::base::error::Error::Simd`] if
    /// this CPU lacks `level`.
    pub fn sample_lod_batch(
        &self,
        level: crate::base::simd::SimdLevel,
        s: &Sampler,
        uv: &[glam::Vec2],
        lambda_base: &[f32],
    ) -> Result<Vec<glam::Vec4>, crate::base::error::Error> {
        if uv.len() != lambda_base.len() {
            return Err(crate::base::error::Error::BufferLength {
                what: "lambda_base",
                expected: uv.len(),
                actual: lambda_base.len(),
            });
        }
        level.check()?;
        let lv = level.to_level().unwrap_or(fearless_simd::Level::fallback());
        let n = uv.len().next_multiple_of(LANES);
        let pad = |f: &dyn Fn(usize) -> f32| -> Vec<f32> {
            (0..n)
                .map(|i| if i < uv.len() { f(i) } else { 0.0 })
                .collect()
        };
        let u = pad(&|i| uv[i].x);
        let v = pad(&|i| uv[i].y);
        let mut lambda = pad(&|i| lambda_base[i]);
        let mut out = vec![vec![0.0f32; n]; 4];
        let [r, g, b, a] = &mut out[..] else {
            return Ok(Vec::new());
        };
        crate::base::simd::dispatch!(lv, simd => adjust_batch(simd, s, &mut lambda));
        // `sample_lod` has no derivatives, so no anisotropy: the sampler's filter alone.
        let f = LaneFilter::new(s);
        let input = LaneInput {
            u: &u,
            v: &v,
            lambda: &lambda,
        };
        crate::base::simd::dispatch!(lv, simd => sample_batch(simd, self, f, input, [r, g, b, a]));
        Ok((0..uv.len())
            .map(|i| glam::Vec4::new(out[0][i], out[1][i], out[2][i], out[3][i]))
            .collect())
    }
}

/// A mask as one `bool` per lane.
#[inline(always)]
fn lanes<S: Simd>(simd: S, m: fearless_simd::mask32x8<S>) -> [bool; LANES] {
    let x: [i32; LANES] = simd
        .select_i32x8(m, simd.splat_i32x8(1), simd.splat_i32x8(0))
        .into();
    let mut out = [false; LANES];
    for i in 0..LANES {
        out[i] = x[i] != 0;
    }
    out
}

/// Eight filtered texels, a byte per channel in 16-bit lanes: `rb` holds each pixel's red and
/// blue (lanes `2i` and `2i + 1`), `ga` its green and alpha. A lerp of `filter::lerp8` is
/// five operations per vector on them, two channels each, and they become floats once, at
/// the end of the sample ([`Bytes16::to_f32`]). (Its methods use no closures or
/// `array::map` around vector operations: a closure that LLVM does not inline is compiled
/// without the target features, and every vector operation in it becomes a call.)
#[derive(Clone, Copy)]
struct Bytes16<S: Simd> {
    rb: u16x16<S>,
    ga: u16x16<S>,
}

/// An 8-bit weight per pixel, `w` and `256 − w` in both 16-bit lanes of the pixel.
#[derive(Clone, Copy)]
struct Weight16<S: Simd> {
    w: u16x16<S>,
    w1: u16x16<S>,
}

impl<S: Simd> Bytes16<S> {
    /// One RGBA8 texel per lane.
    #[inline(always)]
    fn unpack(simd: S, q: i32x8<S>) -> Bytes16<S> {
        let m = simd.splat_i32x8(0x00ff_00ff);
        Bytes16 {
            rb: (q & m).bitcast(),
            ga: (simd.shr_i32x8(q, 8) & m).bitcast(),
        }
    }

    /// `filter::lerp8(self, y, w)` per lane and channel: `(x·(256 − w) + y·w + 128) >> 8`,
    /// exact in 16 bits (the sum is at most 255·256 + 128).
    #[inline(always)]
    fn lerp(self, simd: S, y: Bytes16<S>, w: Weight16<S>) -> Bytes16<S> {
        let round = simd.splat_u16x16(128);
        Bytes16 {
            rb: simd.shr_u16x16(self.rb * w.w1 + y.rb * w.w + round, 8),
            ga: simd.shr_u16x16(self.ga * w.w1 + y.ga * w.w + round, 8),
        }
    }

    /// `a` where `m` is set, else `self`, per pixel.
    #[inline(always)]
    fn select(self, simd: S, m: mask32x8<S>, a: Bytes16<S>) -> Bytes16<S> {
        let (rb, ga): (i32x8<S>, i32x8<S>) = (self.rb.bitcast(), self.ga.bitcast());
        let (arb, aga): (i32x8<S>, i32x8<S>) = (a.rb.bitcast(), a.ga.bitcast());
        Bytes16 {
            rb: simd.select_i32x8(m, arb, rb).bitcast(),
            ga: simd.select_i32x8(m, aga, ga).bitcast(),
        }
    }

    /// The bytes as the sample's floats, `c × 1/255` (`filter::rgba8_to_f32`).
    #[inline(always)]
    fn to_f32(self, simd: S) -> [f32x8<S>; 4] {
        let (rb, ga): (i32x8<S>, i32x8<S>) = (self.rb.bitcast(), self.ga.bitcast());
        [
            simd.cvt_f32_i32x8(rb & 0xffff) * INV_255,
            simd.cvt_f32_i32x8(ga & 0xffff) * INV_255,
            simd.cvt_f32_i32x8(simd.shr_i32x8(rb, 16)) * INV_255,
            simd.cvt_f32_i32x8(simd.shr_i32x8(ga, 16)) * INV_255,
        ]
    }
}

impl<S: Simd> Weight16<S> {
    /// `filter::weight8(f)` per lane, `f ∈ [0, 1]`: `min(⌊256·f⌋, 255)` (the truncating
    /// conversion is the floor of a non-negative value).
    #[inline(always)]
    fn of(simd: S, f: f32x8<S>) -> Weight16<S> {
        let w = simd.min_i32x8(simd.cvt_i32_f32x8(f * 256.0), simd.splat_i32x8(255));
        let w: u16x16<S> = (w | simd.shl_i32x8(w, 16)).bitcast();
        Weight16 {
            w,
            w1: simd.splat_u16x16(256) - w,
        }
    }
}

/// One level's bilinear taps for 8 lanes: integer corner and weights.
struct Taps<S: Simd> {
    i0: [i32; LANES],
    j0: [i32; LANES],
    a: f32x8<S>,
    b: f32x8<S>,
}

/// Texel coordinates of `uv` on the levels `d` (per lane): `uv·size − ½` split into the
/// corner index and the weights, as `filter::bilinear`.
#[inline(always)]
fn taps<S: Simd>(simd: S, tex: &Texture, d: &[usize; LANES], u: f32x8<S>, v: f32x8<S>) -> Taps<S> {
    let (mut w, mut h) = ([0.0f32; LANES], [0.0f32; LANES]);
    for i in 0..LANES {
        let size = tex.levels[d[i]].size_f;
        w[i] = size.x;
        h[i] = size.y;
    }
    let (w, h) = (f32x8::from_slice(simd, &w), f32x8::from_slice(simd, &h));
    let (i0, a) = index_frac(simd, u * w - 0.5);
    let (j0, b) = index_frac(simd, v * h - 0.5);
    Taps {
        i0: i0.into(),
        j0: j0.into(),
        a,
        b,
    }
}

/// [`wrap_nb`] of the wrap code `w`, chosen at run time. The lanes kernel takes its wrap
/// modes as values, not as const parameters: monomorphised, the nine (u, v) pairs made nine
/// copies of the kernel per SIMD level, and that code was most of the crate's compile time
/// (issue 35); the branch costs far less than a texel fetch. Same results as `wrap_nb`.
#[inline(always)]
fn wrap_nb_dyn(w: u8, i: i32, n: u32, pow2: bool) -> u32 {
    match w {
        0 => wrap_nb::<0>(i, n, pow2),
        1 => wrap_nb::<1>(i, n, pow2),
        _ => wrap_nb::<2>(i, n, pow2),
    }
}

/// Bilinear on the levels `d` (per lane): the four texels of each lane fetched and wrapped
/// as `filter::bilinear` does, then blended ([`blend_taps`]).
#[inline(always)]
fn bilinear8<S: Simd>(
    simd: S,
    wr: (u8, u8),
    tex: &Texture,
    d: &[usize; LANES],
    t: &Taps<S>,
) -> Bytes16<S> {
    let mut q = [[0i32; LANES]; 4];
    for l in 0..LANES {
        let level = &tex.levels[d[l]];
        let (w, h) = (level.width(), level.height());
        let (pw, ph) = (w.is_power_of_two(), h.is_power_of_two());
        let (i0, j0) = (t.i0[l], t.j0[l]);
        let (x0, x1) = (
            wrap_nb_dyn(wr.0, i0, w, pw),
            wrap_nb_dyn(wr.0, i0 + 1, w, pw),
        );
        let (y0, y1) = (
            wrap_nb_dyn(wr.1, j0, h, ph),
            wrap_nb_dyn(wr.1, j0 + 1, h, ph),
        );
        let px = level.pairs();
        let (r0, r1) = (y0 as usize * w as usize, y1 as usize * w as usize);
        let fetch = |i: usize| px[i][0] as i32;
        q[0][l] = fetch(r0 + x0 as usize);
        q[1][l] = fetch(r0 + x1 as usize);
        q[2][l] = fetch(r1 + x0 as usize);
        q[3][l] = fetch(r1 + x1 as usize);
    }
    let q = [
        i32x8::from_slice(simd, &q[0]),
        i32x8::from_slice(simd, &q[1]),
        i32x8::from_slice(simd, &q[2]),
        i32x8::from_slice(simd, &q[3]),
    ];
    blend_taps(simd, q, t.a, t.b)
}

/// The bilinear blend of four gathered RGBA8 texels per lane, as `filter::bilinear`:
/// `lerp8(lerp8(t00, t10, a), lerp8(t01, t11, a), b)` with the 8-bit weights of `α`, `β`.
#[inline(always)]
fn blend_taps<S: Simd>(simd: S, q: [i32x8<S>; 4], a: f32x8<S>, b: f32x8<S>) -> Bytes16<S> {
    let [q00, q10, q01, q11] = q;
    blend_bytes(
        simd,
        [
            Bytes16::unpack(simd, q00),
            Bytes16::unpack(simd, q10),
            Bytes16::unpack(simd, q01),
            Bytes16::unpack(simd, q11),
        ],
        a,
        b,
    )
}

/// [`blend_taps`] on taps already in 16-bit lanes.
#[inline(always)]
fn blend_bytes<S: Simd>(simd: S, t: [Bytes16<S>; 4], a: f32x8<S>, b: f32x8<S>) -> Bytes16<S> {
    let [t00, t10, t01, t11] = t;
    let a = Weight16::of(simd, a);
    let top = t00.lerp(simd, t10, a);
    let bottom = t01.lerp(simd, t11, a);
    top.lerp(simd, bottom, Weight16::of(simd, b))
}

/// `filter::wrap_nb` in lanes for repeat on a power of two (`i & (n − 1)`) and clamp to
/// edge (`clamp(i, 0, n − 1)`), the two cases [`filter_levels`] sends here.
#[inline(always)]
fn wrap8<S: Simd>(simd: S, w: u8, i: i32x8<S>, n: u32) -> i32x8<S> {
    let last = n as i32 - 1;
    if w == 0 {
        i & last
    } else {
        simd.min_i32x8(
            simd.max_i32x8(i, simd.splat_i32x8(0)),
            simd.splat_i32x8(last),
        )
    }
}

/// Bilinear on one level for 8 lanes, wraps and addresses in lanes (see [`filter_levels`]).
///
/// Each row is one load per lane: the stored pair at `(x0, y)` holds `x0`'s texel and its
/// repeat neighbour ([`MipLevel`](super::image::MipLevel)), which is the second tap for
/// repeat. For clamp to edge the second tap is `clamp(i0 + 1)`: `x0 + 1` inside, and `x0`
/// itself where `i0 < 0` or `i0 ≥ w − 1`, so those lanes take the pair's first half twice.
#[inline(always)]
fn bilinear_level<S: Simd>(
    simd: S,
    wr: (u8, u8),
    LevelLanes { level, pow2 }: LevelLanes<'_>,
    u: f32x8<S>,
    v: f32x8<S>,
) -> Bytes16<S> {
    let (w, h) = (level.width(), level.height());
    let (i0, a) = index_frac(simd, u * level.size_f.x - 0.5);
    let (j0, b) = index_frac(simd, v * level.size_f.y - 0.5);
    let x0 = wrap8(simd, wr.0, i0, w);
    let r0 = wrap8(simd, wr.1, j0, h) * w as i32;
    let r1 = wrap8(simd, wr.1, j0 + 1, h) * w as i32;
    let a0: [i32; LANES] = (r0 + x0).into();
    let a1: [i32; LANES] = (r1 + x0).into();
    let px = level.pairs();
    let (p0, p1) = if pow2 {
        (fetch_pairs::<true>(px, &a0), fetch_pairs::<true>(px, &a1))
    } else {
        (fetch_pairs::<false>(px, &a0), fetch_pairs::<false>(px, &a1))
    };
    let (t00, t10) = split_pairs(simd, &p0);
    let (t01, t11) = split_pairs(simd, &p1);
    let (t10, t11) = if wr.0 == 0 {
        (t10, t11)
    } else {
        let edge = i0.simd_lt(simd.splat_i32x8(0)) | i0.simd_ge(simd.splat_i32x8(w as i32 - 1));
        (edge.select(t00, t10), edge.select(t01, t11))
    };
    blend_taps(simd, [t00, t10, t01, t11], a, b)
}

/// The stored pairs of one level at one address per lane, each address `y·w + x` with
/// `x < w`, `y < h` (wrapped in lanes): in range by construction. With `POW2` (the level
/// holds a power of two of texels) the index is also masked by `len − 1`, which changes no
/// address and lets the compiler drop the bounds check of every load (measured: the `fill`
/// workload went from 206 to 180 instructions per fragment, callgrind). (Widening the
/// address as `u32` instead lost the proof: LLVM narrowed the mask to 32 bits and put the
/// check back.)
#[inline(always)]
fn fetch_pairs<const POW2: bool>(px: &[[u32; 2]], at: &[i32; LANES]) -> [[u32; 2]; LANES] {
    let mask = px.len().wrapping_sub(1);
    let mut q = [[0u32; 2]; LANES];
    for l in 0..LANES {
        let i = at[l] as usize;
        q[l] = px[if POW2 { i & mask } else { i }];
    }
    q
}

/// Eight stored pairs as the texels of their first and of their second halves.
#[inline(always)]
fn split_pairs<S: Simd>(simd: S, p: &[[u32; 2]; LANES]) -> (i32x8<S>, i32x8<S>) {
    let flat = p.as_flattened();
    let lo = u32x8::from_slice(simd, &flat[..LANES]);
    let hi = u32x8::from_slice(simd, &flat[LANES..]);
    let (first, second) = simd.deinterleave_u32x8(lo, hi);
    (first.bitcast(), second.bitcast())
}

/// The first halves of the stored pairs (the texels) of one level at `N` addresses per
/// lane, in range as in [`fetch_pairs`].
#[inline(always)]
fn fetch_at<const POW2: bool, const N: usize>(
    px: &[[u32; 2]],
    at: [&[i32; LANES]; N],
) -> [[i32; LANES]; N] {
    let mask = px.len().wrapping_sub(1);
    let fetch = |i: i32| {
        let i = i as usize;
        px[if POW2 { i & mask } else { i }][0] as i32
    };
    let mut q = [[0i32; LANES]; N];
    for l in 0..LANES {
        for k in 0..N {
            q[k][l] = fetch(at[k][l]);
        }
    }
    q
}

/// `Texture::sample_adjusted` for 8 lanes at the adjusted λ per lane.
///
/// Per lane, as the scalar code: `λ > c` fails (magnified, or NaN) → the mag filter on level
/// 0; otherwise by the mip mode. Lanes that read one level use it for both "levels" of the
/// final lerp with weight 0 (`lerp8(x, x, 0) = x`), so every lane takes the same
/// instructions. The filtered bytes become floats once, here.
#[inline(always)]
fn sample8<S: Simd>(
    simd: S,
    f: LaneFilter,
    tex: &Texture,
    u: f32x8<S>,
    v: f32x8<S>,
    lambda: f32x8<S>,
) -> [f32x8<S>; 4] {
    let c = if f.half_switch { 0.5 } else { 0.0 };
    let minified = lambda.simd_gt(simd.splat_f32x8(c));
    let d = match f.mips {
        Mips::None => simd.splat_i32x8(0),
        Mips::Nearest => nearest_mip(simd, tex, lambda),
        Mips::Linear => return sample8_linear(simd, f, tex, (u, v), lambda, minified),
    };
    filter_levels(simd, f, tex, d, u, v, minified).to_f32(simd)
}

/// The level of `*MipmapNearest` per lane: `d = 0` if `λ ≤ ½`, else `min(⌈λ + ½⌉ − 1, q)`
/// (magnified and NaN lanes fail `λ > ½`: level 0).
#[inline(always)]
fn nearest_mip<S: Simd>(simd: S, tex: &Texture, lambda: f32x8<S>) -> i32x8<S> {
    let q = tex.levels.len() - 1;
    // `ceil` via the floor of −x.
    let (fi, _) = index_frac(simd, -(lambda + 0.5));
    let up: [i32; LANES] = (-fi).into();
    let half = lanes(simd, lambda.simd_gt(simd.splat_f32x8(0.5)));
    let l: [f32; LANES] = lambda.into();
    let mut d = [0i32; LANES];
    for i in 0..LANES {
        d[i] = if !half[i] {
            0
        } else if l[i] >= 2_097_152.0 {
            // Past the clamp of `index_frac` (and `ceil` saturating to usize::MAX in the
            // scalar code): the last level.
            q as i32
        } else {
            ((up[i] - 1).max(0) as usize).min(q) as i32
        };
    }
    i32x8::from_slice(simd, &d)
}

/// [`sample8`] for `*MipmapLinear`: two levels where `0 < λ < q`, level `q` alone where
/// `λ ≥ q`, level 0 where magnified; blended with the 8-bit weight of `λ − ⌊λ⌋`.
#[inline(always)]
fn sample8_linear<S: Simd>(
    simd: S,
    f: LaneFilter,
    tex: &Texture,
    (u, v): (f32x8<S>, f32x8<S>),
    lambda: f32x8<S>,
    minified: mask32x8<S>,
) -> [f32x8<S>; 4] {
    let q = tex.levels.len() - 1;
    let full = lambda.simd_ge(simd.splat_f32x8(q as f32));
    let (di, tf) = index_frac(simd, lambda);
    let two = minified & !full;
    let t = two.select(tf, simd.splat_f32x8(0.0));
    let izero = simd.splat_i32x8(0);
    let d0 = two.select(
        simd.max_i32x8(di, izero),
        full.select(simd.splat_i32x8(q as i32), izero),
    );
    let d1 = two.select(d0 + 1, d0);
    // Magnified lanes read level 0.
    let (d0, d1) = (minified.select(d0, izero), minified.select(d1, izero));
    let (t0, t1) = match level_pair(simd, &f, tex, d0, d1) {
        Some((l0, l1)) => (
            bilinear_level(simd, (f.wrap_u, f.wrap_v), l0, u, v),
            bilinear_level(simd, (f.wrap_u, f.wrap_v), l1, u, v),
        ),
        None => (
            filter_levels(simd, f, tex, d0, u, v, minified),
            filter_levels(simd, f, tex, d1, u, v, minified),
        ),
    };
    t0.lerp(simd, t1, Weight16::of(simd, t)).to_f32(simd)
}

/// The two levels every lane of a group reads, with whether each holds a power of two of
/// texels, when [`filter_levels`] would send both to [`bilinear_level`] (one level per
/// vector, bit set in `f.in_lanes`): the usual trilinear group, tested once.
#[inline(always)]
fn level_pair<'t, S: Simd>(
    simd: S,
    f: &LaneFilter,
    tex: &'t Texture,
    d0: i32x8<S>,
    d1: i32x8<S>,
) -> Option<(LevelLanes<'t>, LevelLanes<'t>)> {
    if f.in_lanes == 0 {
        // Border, nearest or an unflagged filter: the general path, at no further cost.
        return None;
    }
    let (a, b): ([i32; LANES], [i32; LANES]) = (d0.into(), d1.into());
    let (a, b) = (a[0], b[0]);
    let ok = f.in_lanes.checked_shr(a as u32).unwrap_or(0)
        & f.in_lanes.checked_shr(b as u32).unwrap_or(0);
    if ok & 1 == 0 {
        return None;
    }
    let same = d0.simd_eq(simd.splat_i32x8(a)) & d1.simd_eq(simd.splat_i32x8(b));
    if !simd.all_true_mask32x8(same) {
        return None;
    }
    let level = |d: i32| LevelLanes {
        level: &tex.levels[d as usize],
        pow2: f.pow2_len >> d & 1 != 0,
    };
    Some((level(a), level(b)))
}

/// One level read by every lane of a group, for [`bilinear_level`].
#[derive(Clone, Copy)]
struct LevelLanes<'t> {
    level: &'t super::image::MipLevel,
    /// The level holds a power of two of texels ([`fetch_pairs`]).
    pow2: bool,
}

/// Lane `i` filtered on level `d[i]` by the mag filter where `minified` is clear, else by
/// the min filter's within-level filter. Bilinear both ways (the common case) is inlined;
/// anything with a nearest filter goes to [`filter_levels_nearest`].
#[inline(always)]
fn filter_levels<S: Simd>(
    simd: S,
    f: LaneFilter,
    tex: &Texture,
    d: i32x8<S>,
    u: f32x8<S>,
    v: f32x8<S>,
    minified: mask32x8<S>,
) -> Bytes16<S> {
    if let Some(border) = f.border {
        filter_levels_border(simd, f, border, tex, d, u, v, minified)
    } else if f.mag_linear && f.min_linear {
        bilinear_levels(simd, (f.wrap_u, f.wrap_v), tex, d, u, v)
    } else {
        filter_levels_nearest(simd, f, tex, d, u, v, minified)
    }
}

/// [`filter_levels`] for a sampler with a nearest filter: nearest alone, or both filters
/// with each lane keeping the one the scalar code picks for it.
///
/// Not inlined (one copy per SIMD level, entered through `vectorize` so it keeps the level's
/// target features): inlined at `sample8`'s three call sites, this took plumb-raster's
/// release build from 95 s to 270 s.
#[inline(never)]
fn filter_levels_nearest<S: Simd>(
    simd: S,
    f: LaneFilter,
    tex: &Texture,
    d: i32x8<S>,
    u: f32x8<S>,
    v: f32x8<S>,
    minified: mask32x8<S>,
) -> Bytes16<S> {
    simd.vectorize(
        #[inline(always)]
        || {
            let wr = (f.wrap_u, f.wrap_v);
            let near = nearest_levels(simd, wr, tex, d, u, v);
            if !f.mag_linear && !f.min_linear {
                return near;
            }
            let lin = bilinear_levels(simd, wr, tex, d, u, v);
            pick(simd, f, minified, lin, near)
        },
    )
}

/// [`filter_levels`] for wraps that can read the border colour, as `filter::bilinear` and
/// `filter::nearest` (with `Texture::in_format`'s border): per lane the level's size, the
/// scalar `wrap` of every tap (`None` = border), the fetches; in lanes the coordinate clamp
/// of `Clamp`, the texel coordinates and weights, the border select and the lerps. Each
/// lane keeps the filter the scalar code picks for it. Not inlined, as
/// [`filter_levels_nearest`].
#[inline(never)]
#[allow(
    clippy::too_many_arguments,
    reason = "the lanes of one group and the filter, as filter_levels takes them"
)]
fn filter_levels_border<S: Simd>(
    simd: S,
    f: LaneFilter,
    (wu, wv, _): (Wrap, Wrap, [f32; 4]),
    tex: &Texture,
    d: i32x8<S>,
    u: f32x8<S>,
    v: f32x8<S>,
    minified: mask32x8<S>,
) -> Bytes16<S> {
    simd.vectorize(
        #[inline(always)]
        || {
            let dl: [i32; LANES] = d.into();
            let (mut sw, mut sh) = ([0.0f32; LANES], [0.0f32; LANES]);
            for l in 0..LANES {
                let size = tex.levels[dl[l] as usize].size_f;
                (sw[l], sh[l]) = (size.x, size.y);
            }
            let (sw, sh) = (f32x8::from_slice(simd, &sw), f32x8::from_slice(simd, &sh));
            let bc = simd.splat_i32x8(f.border8 as i32);
            let want_near = !f.mag_linear || !f.min_linear;
            let want_lin = f.mag_linear || f.min_linear;
            let mut near = Bytes16::unpack(simd, bc);
            if want_near {
                let (i, _) = index_frac(simd, u * sw);
                let (j, _) = index_frac(simd, v * sh);
                let (i, j): ([i32; LANES], [i32; LANES]) = (i.into(), j.into());
                let (nu, nv) = (nearest_mode(wu), nearest_mode(wv));
                let (mut q, mut ok) = ([0i32; LANES], [0i32; LANES]);
                for l in 0..LANES {
                    let level = &tex.levels[dl[l] as usize];
                    (q[l], ok[l]) = tap(
                        level,
                        wrap(nu, i[l], level.width()),
                        wrap(nv, j[l], level.height()),
                    );
                }
                near = Bytes16::unpack(simd, border_texel(simd, &q, &ok, bc));
            }
            if !want_lin {
                return near;
            }
            let (zero, one) = (simd.splat_f32x8(0.0), simd.splat_f32x8(1.0));
            // `clamp_coord`: `c.max(0).min(1)` for `Clamp` (NaN → 0).
            let clamp = |w: Wrap, c: f32x8<S>| {
                if w == Wrap::Clamp {
                    min_or(max_or(c, zero), one)
                } else {
                    c
                }
            };
            let (i0, a) = index_frac(simd, clamp(wu, u) * sw - 0.5);
            let (j0, b) = index_frac(simd, clamp(wv, v) * sh - 0.5);
            let (i0, j0): ([i32; LANES], [i32; LANES]) = (i0.into(), j0.into());
            let mut q = [[0i32; LANES]; 4];
            let mut ok = [[0i32; LANES]; 4];
            for l in 0..LANES {
                let level = &tex.levels[dl[l] as usize];
                let (w, h) = (level.width(), level.height());
                let (x0, x1) = (wrap(wu, i0[l], w), wrap(wu, i0[l] + 1, w));
                let (y0, y1) = (wrap(wv, j0[l], h), wrap(wv, j0[l] + 1, h));
                (q[0][l], ok[0][l]) = tap(level, x0, y0);
                (q[1][l], ok[1][l]) = tap(level, x1, y0);
                (q[2][l], ok[2][l]) = tap(level, x0, y1);
                (q[3][l], ok[3][l]) = tap(level, x1, y1);
            }
            let t = [
                border_texel(simd, &q[0], &ok[0], bc),
                border_texel(simd, &q[1], &ok[1], bc),
                border_texel(simd, &q[2], &ok[2], bc),
                border_texel(simd, &q[3], &ok[3], bc),
            ];
            let lin = blend_taps(simd, t, a, b);
            if !want_near {
                return lin;
            }
            pick(simd, f, minified, lin, near)
        },
    )
}

/// Each lane's result for a mixed filter pair: bilinear where the scalar code filters that
/// lane linearly (minified lanes with a linear min filter, magnified ones with a linear mag
/// filter), else nearest.
#[inline(always)]
fn pick<S: Simd>(
    simd: S,
    f: LaneFilter,
    minified: mask32x8<S>,
    lin: Bytes16<S>,
    near: Bytes16<S>,
) -> Bytes16<S> {
    let linear = if f.min_linear { minified } else { !minified };
    near.select(simd, linear, lin)
}

/// One tap: the texel's bytes and −1, or 0 and 0 for the border.
#[inline(always)]
fn tap(level: &super::image::MipLevel, x: Option<u32>, y: Option<u32>) -> (i32, i32) {
    match (x, y) {
        (Some(x), Some(y)) => (
            level.pairs()[y as usize * level.width() as usize + x as usize][0] as i32,
            -1,
        ),
        _ => (0, 0),
    }
}

/// The texels `q`, with the border colour's bytes `bc` where `ok` is 0
/// (`filter::texel_at`).
#[inline(always)]
fn border_texel<S: Simd>(simd: S, q: &[i32; LANES], ok: &[i32; LANES], bc: i32x8<S>) -> i32x8<S> {
    let m = simd.from_vector_mask32x8(i32x8::from_slice(simd, ok));
    m.select(i32x8::from_slice(simd, q), bc)
}

/// Whether a wrap code on an axis of `n` texels is computed in lanes ([`wrap8`]).
#[inline(always)]
fn wrap_in_lanes(code: u8, n: u32) -> bool {
    code == 2 || (code == 0 && n.is_power_of_two())
}

/// Bilinear on level `d[i]` for lane `i`. When all lanes read one level (the usual case: λ
/// changes slowly across 8 neighbouring pixels) the level's size is a constant and, for
/// power-of-two repeat and clamp-to-edge, the wrap and the texel address are computed in
/// vector registers too ([`bilinear_level`]); otherwise lane by lane ([`bilinear8`]). Both
/// compute the same values.
#[inline(always)]
fn bilinear_levels<S: Simd>(
    simd: S,
    wr: (u8, u8),
    tex: &Texture,
    d: i32x8<S>,
    u: f32x8<S>,
    v: f32x8<S>,
) -> Bytes16<S> {
    let dl: [i32; LANES] = d.into();
    let d0 = dl[0];
    if simd.all_true_mask32x8(d.simd_eq(simd.splat_i32x8(d0))) {
        let level = &tex.levels[d0 as usize];
        if wrap_in_lanes(wr.0, level.width()) && wrap_in_lanes(wr.1, level.height()) {
            let pow2 = level.pairs().len().is_power_of_two();
            return bilinear_level(simd, wr, LevelLanes { level, pow2 }, u, v);
        }
    }
    let d: [usize; LANES] = dl.map(|x| x as usize);
    bilinear8(simd, wr, tex, &d, &taps(simd, tex, &d, u, v))
}

/// Nearest on level `d[i]` for lane `i`, as `filter::nearest`: the texel
/// `(wrap(⌊u·w⌋), wrap(⌊v·h⌋))`. One level with wraps in lanes: indices and addresses in
/// vector registers; otherwise sizes gathered per lane and each lane wrapped by the scalar
/// `wrap_nb`. Then one fetch per lane.
#[inline(always)]
fn nearest_levels<S: Simd>(
    simd: S,
    wr: (u8, u8),
    tex: &Texture,
    d: i32x8<S>,
    u: f32x8<S>,
    v: f32x8<S>,
) -> Bytes16<S> {
    let dl: [i32; LANES] = d.into();
    let d0 = dl[0];
    let mut q = [0i32; LANES];
    if simd.all_true_mask32x8(d.simd_eq(simd.splat_i32x8(d0))) {
        let level = &tex.levels[d0 as usize];
        let (w, h) = (level.width(), level.height());
        if wrap_in_lanes(wr.0, w) && wrap_in_lanes(wr.1, h) {
            let (i, _) = index_frac(simd, u * level.size_f.x);
            let (j, _) = index_frac(simd, v * level.size_f.y);
            let at: [i32; LANES] =
                (wrap8(simd, wr.1, j, h) * w as i32 + wrap8(simd, wr.0, i, w)).into();
            let px = level.pairs();
            let [q] = if px.len().is_power_of_two() {
                fetch_at::<true, 1>(px, [&at])
            } else {
                fetch_at::<false, 1>(px, [&at])
            };
            return Bytes16::unpack(simd, i32x8::from_slice(simd, &q));
        }
    }
    let (mut sw, mut sh) = ([0.0f32; LANES], [0.0f32; LANES]);
    for l in 0..LANES {
        let size = tex.levels[dl[l] as usize].size_f;
        (sw[l], sh[l]) = (size.x, size.y);
    }
    let (i, _) = index_frac(simd, u * f32x8::from_slice(simd, &sw));
    let (j, _) = index_frac(simd, v * f32x8::from_slice(simd, &sh));
    let (i, j): ([i32; LANES], [i32; LANES]) = (i.into(), j.into());
    for l in 0..LANES {
        let level = &tex.levels[dl[l] as usize];
        let (w, h) = (level.width(), level.height());
        let x = wrap_nb_dyn(wr.0, i[l], w, w.is_power_of_two());
        let y = wrap_nb_dyn(wr.1, j[l], h, h.is_power_of_two());
        q[l] = level.pairs()[y as usize * w as usize + x as usize][0] as i32;
    }
    Bytes16::unpack(simd, i32x8::from_slice(simd, &q))
}

#[cfg(feature = "internal-tests")]
pub(crate) mod tests {
    /// Every test of this module: `tests/unit.rs` runs each as one trial (an unlisted
    /// test fails the build as dead code).
    pub(crate) const TESTS: &[(&str, fn())] = &[
        ("anisotropy_keeps_the_filter", anisotropy_keeps_the_filter),
        ("lanes_match_scalar", lanes_match_scalar),
        ("aniso_lanes_match_scalar", aniso_lanes_match_scalar),
    ];

    use glam::Vec2;

    use super::*;
    use crate::base::simd::SimdLevel;

    fn textures() -> Vec<Texture> {
        let mut seed = 0x1234_5678u32;
        let mut px = |n: usize| -> Vec<u8> {
            (0..n)
                .map(|_| {
                    seed ^= seed << 13;
                    seed ^= seed >> 17;
                    seed ^= seed << 5;
                    (seed >> 24) as u8
                })
                .collect()
        };
        vec![
            Texture::from_rgba8(16, 16, px(16 * 16 * 4))
                .unwrap()
                .with_generated_mips(),
            Texture::from_rgba8(13, 7, px(13 * 7 * 4))
                .unwrap()
                .with_generated_mips(),
            Texture::from_rgba8(1, 1, px(4)).unwrap(),
            Texture::from_rgba8(8, 2, px(8 * 2 * 4)).unwrap(),
            // A format whose border colour is converted (alpha 1).
            Texture::from_rgba8(16, 16, px(16 * 16 * 4))
                .unwrap()
                .with_generated_mips()
                .with_format(crate::texture::image::TexelFormat::Rgb8),
        ]
    }

    /// Coordinates and ρ² values with the awkward cases: integers and half-integers,
    /// negative, huge, ±∞, NaN, zero and subnormal derivatives, λ at level boundaries.
    fn inputs() -> (Vec<f32>, Vec<f32>, Vec<f32>) {
        let special = [
            0.0,
            -0.0,
            0.5,
            1.0,
            -1.0,
            -0.25,
            1e-30,
            3.999,
            1e9,
            -1e9,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::NAN,
            f32::MIN_POSITIVE,
            1e-45,
            0.03125,
        ];
        let rho = [
            0.0,
            -0.0,
            1.0,
            0.25,
            2.0,
            4.0,
            15.9,
            16.0,
            1e30,
            f32::INFINITY,
            f32::NAN,
            1e-45,
            f32::MIN_POSITIVE,
            -3.0,
            1.5,
            1.4999,
        ];
        let (mut u, mut v, mut r) = (Vec::new(), Vec::new(), Vec::new());
        let mut seed = 99u32;
        let mut next = || {
            seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            seed
        };
        for i in 0..4096usize {
            let pick = next();
            let uu = if pick % 5 == 0 {
                special[(pick >> 8) as usize % special.len()]
            } else {
                (next() >> 8) as f32 / (1 << 24) as f32 * 6.0 - 3.0
            };
            let vv = if pick % 7 == 0 {
                special[(pick >> 12) as usize % special.len()]
            } else {
                (next() >> 8) as f32 / (1 << 24) as f32 * 6.0 - 3.0
            };
            let rr = if i % 3 == 0 {
                rho[(next() >> 4) as usize % rho.len()]
            } else {
                // λ spread over −4..12 by ρ² = 2^(2λ).
                let l = (next() >> 8) as f32 / (1 << 24) as f32 * 16.0 - 4.0;
                crate::base::math::exp2(2.0 * l)
            };
            u.push(uu);
            v.push(vv);
            r.push(rr);
        }
        (u, v, r)
    }

    /// Every mag × min filter pair, each wrap mode (the border-reading ones included) on
    /// some axis, with and without bias and LOD clamps.
    fn samplers() -> Vec<Sampler> {
        let mut out = Vec::new();
        for mag in [MagFilter::Nearest, MagFilter::Linear] {
            for min in MinFilter::ALL {
                for (wu, wv) in [
                    (Wrap::Repeat, Wrap::Repeat),
                    (Wrap::MirroredRepeat, Wrap::ClampToEdge),
                    (Wrap::ClampToEdge, Wrap::Repeat),
                    (Wrap::Clamp, Wrap::MirroredRepeat),
                    (Wrap::ClampToBorder, Wrap::Repeat),
                    (Wrap::ClampToEdge, Wrap::ClampToBorder),
                    (Wrap::Clamp, Wrap::Clamp),
                ] {
                    for (bias, lo, hi) in [(0.0, -1000.0, 1000.0), (0.7, 0.5, 2.25)] {
                        out.push(Sampler {
                            mag,
                            min,
                            wrap_u: wu,
                            wrap_v: wv,
                            lod_bias: bias,
                            min_lod: lo,
                            max_lod: hi,
                            border: glam::Vec4::new(0.25, 0.5, 1.0, 0.75),
                            ..Sampler::TRILINEAR
                        });
                    }
                }
            }
        }
        out
    }

    /// The filter of an anisotropic sampler is its isotropic sampler's (the probes' filter).
    fn anisotropy_keeps_the_filter() {
        for s in samplers() {
            let aniso = Sampler {
                max_anisotropy: 4,
                ..s
            };
            assert_eq!(LaneFilter::new(&aniso), LaneFilter::new(&s), "{s:?}");
        }
    }

    /// Screen derivatives `[∂u/∂x, ∂v/∂x, ∂u/∂y, ∂v/∂y]` per pixel: isotropic and
    /// anisotropic footprints (ratios 1 to 40, so probe counts from 1 past the limit), every
    /// direction, magnified to far minified, and the awkward values (zero minor axis, ±0,
    /// subnormal, huge, ±∞, NaN).
    fn gradients(n: usize) -> Vec<[f32; 4]> {
        let special = [
            0.0,
            -0.0,
            1e-45,
            f32::MIN_POSITIVE,
            1e30,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::NAN,
        ];
        let mut seed = 7u32;
        let mut next = || {
            seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            (seed >> 8) as f32 / (1 << 24) as f32
        };
        (0..n)
            .map(|i| {
                let len = crate::base::math::exp2(next() * 12.0 - 9.0);
                let ratio = 1.0 + next() * 39.0;
                let angle = next() * std::f32::consts::TAU;
                let (sin, cos) = (crate::base::math::sin(angle), crate::base::math::cos(angle));
                let mut d = [len * cos, len * sin, -len * sin / ratio, len * cos / ratio];
                if i % 11 == 0 {
                    d[(i / 11) % 4] = special[(i / 44) % special.len()];
                }
                if i % 13 == 0 {
                    d[2] = 0.0;
                    d[3] = 0.0;
                }
                d
            })
            .collect()
    }

    /// The anisotropic kernel against the scalar `sample_grad`, pixel by pixel, at every
    /// level: every filter pair and wrap (each with one of 2, 5 and 16 as the limit).
    fn aniso_lanes_match_scalar() {
        on_big_stack(aniso_lanes_match_scalar_body);
    }

    fn aniso_lanes_match_scalar_body() {
        let (u, v, _) = inputs();
        let n = 1024;
        let (u, v) = (&u[..n], &v[..n]);
        let d = gradients(n);
        let rows: [Vec<f32>; 4] = [0, 1, 2, 3].map(|k| d.iter().map(|g| g[k]).collect());
        for tex in textures() {
            for (k, s) in samplers().into_iter().enumerate() {
                let s = s.with_anisotropy([2, 5, 16][k % 3]);
                let expected: Vec<[u32; 4]> = (0..n)
                    .map(|i| {
                        let g = d[i];
                        let c = tex.sample_grad(
                            &s,
                            Vec2::new(u[i], v[i]),
                            Vec2::new(g[0], g[1]),
                            Vec2::new(g[2], g[3]),
                        );
                        c.to_array().map(f32::to_bits)
                    })
                    .collect();
                for level in SimdLevel::available() {
                    let mut out = vec![vec![0.0f32; n]; 4];
                    let [o0, o1, o2, o3] = &mut out[..] else {
                        unreachable!()
                    };
                    let input = GradInput {
                        u,
                        v,
                        d: [&rows[0], &rows[1], &rows[2], &rows[3]],
                    };
                    let f = LaneFilter::new(&s);
                    crate::base::simd::dispatch!(level.to_level().unwrap(), simd => sample_grad_batch(
                        simd, &tex, &s, f, input, [o0, o1, o2, o3]));
                    for i in 0..n {
                        let got = [0, 1, 2, 3].map(|c| out[c][i].to_bits());
                        assert_eq!(
                            got, expected[i],
                            "{level}: {tex:?} {s:?} at u={} v={} d={:?}",
                            u[i], v[i], d[i]
                        );
                    }
                }
            }
        }
    }

    /// The expectation is the scalar sampler, pixel by pixel; every level must give its
    /// bits exactly.
    fn lanes_match_scalar() {
        on_big_stack(lanes_match_scalar_body);
    }

    /// Runs `body` on a thread with a 32 MiB stack: unoptimised builds of the dispatched
    /// kernels need more than a test thread's 2 MiB (every level's copy of the kernel's
    /// vector temporaries). A panic in `body` fails the caller.
    fn on_big_stack(body: fn()) {
        let joined = std::thread::Builder::new()
            .stack_size(32 << 20)
            .spawn(body)
            .expect("test thread")
            .join();
        if let Err(panic) = joined {
            std::panic::resume_unwind(panic);
        }
    }

    fn lanes_match_scalar_body() {
        let (u, v, r) = inputs();
        let n = u.len();
        for tex in textures() {
            for s in samplers() {
                let f = LaneFilter::new(&s);
                let expected: Vec<[u32; 4]> = (0..n)
                    .map(|i| {
                        let l = s.adjust_lod(0.5 * crate::base::math::log2_lod(r[i]));
                        let c = tex.sample_adjusted(&s, Vec2::new(u[i], v[i]), l);
                        c.to_array().map(f32::to_bits)
                    })
                    .collect();
                for level in SimdLevel::available() {
                    let mut out = vec![vec![0.0f32; n]; 4];
                    let [o0, o1, o2, o3] = &mut out[..] else {
                        unreachable!()
                    };
                    let mut lambda = r.clone();
                    let lv = level.to_level().unwrap();
                    crate::base::simd::dispatch!(lv, simd => lod_batch(simd, &s, &mut lambda));
                    let input = LaneInput {
                        u: &u,
                        v: &v,
                        lambda: &lambda,
                    };
                    crate::base::simd::dispatch!(lv, simd => sample_batch(
                        simd, &tex, f, input, [o0, o1, o2, o3]));
                    for i in 0..n {
                        let got = [0, 1, 2, 3].map(|c| out[c][i].to_bits());
                        assert_eq!(
                            got, expected[i],
                            "{level}: {tex:?} {s:?} at u={} v={} rho2={}",
                            u[i], v[i], r[i]
                        );
                    }
                }
            }
        }
    }
}
