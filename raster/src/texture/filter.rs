//! The pure sampling functions: wrap, nearest, bilinear, mip selection, anisotropy.
//!
//! Everything here is allocation-free and branches only on sampler state (predictable per
//! draw). Coordinates, λ and level choice are plain `f32` in a fixed order; the filter itself
//! is 8-bit fixed point, as GPUs filter (Vulkan's `subTexelPrecisionBits` = 8, D3D's 8-bit
//! subtexel and LOD-fraction precision) and as llvmpipe does by default:
//! - each weight is the fraction's top 8 bits, `w = min(⌊256·α⌋, 255)` ([`weight8`]);
//! - each lerp is `(x·(256 − w) + y·w + 128) >> 8` per byte ([`lerp8`]), so every level's
//!   result, and the blend of two levels, is again a byte per channel;
//! - the border colour enters as its unorm8 value ([`Texture::in_format`]);
//! - the filtered bytes become floats once, at the end, as a texel does (`c × 1/255`).
//!
//! So results are bit-identical everywhere, and the lanes kernels filter in 16-bit integer
//! lanes (issue 51, item 3 (a): measured against `f32` lerps and faster).

use glam::{Vec2, Vec4};

use super::chain::Texture;
use super::image::MipLevel;
use super::sampler::{lod, MagFilter, MinFilter, Sampler, Wrap};
use crate::base::math;
use crate::base::unorm::{texel_to_f32, to_unorm8};

/// A filtered texel: RGBA, a byte per channel.
pub(crate) type Rgba8 = [u8; 4];

/// The 8-bit weight of a fraction `f ∈ [0, 1]`: `min(⌊256·f⌋, 255)`, i.e. `⌊256·x⌋ mod 256`
/// for the coordinate `x` whose fraction it is (`f` is 1 only by rounding, for tiny negative
/// `x`, whose `⌊256·x⌋ mod 256` is 255). `256·f` is exact, and the cast truncates.
#[inline(always)]
pub(crate) fn weight8(f: f32) -> u32 {
    ((f * 256.0) as u32).min(255)
}

/// `(x·(256 − w) + y·w + 128) >> 8` per channel, `w ≤ 255`: `x` at `w = 0`, and never
/// above the larger of `x` and `y`.
#[inline(always)]
pub(crate) fn lerp8(x: Rgba8, y: Rgba8, w: u32) -> Rgba8 {
    let mut out = [0u8; 4];
    for c in 0..4 {
        let v = u32::from(x[c]) * (256 - w) + u32::from(y[c]) * w + 128;
        out[c] = (v >> 8) as u8;
    }
    out
}

/// Filtered bytes as the sample's floats: `c × 1/255` per channel, as a texel reads.
#[inline(always)]
pub(crate) fn rgba8_to_f32(t: Rgba8) -> Vec4 {
    Vec4::from_array(t.map(texel_to_f32))
}

/// Texel coordinates are clamped to ±2²² before taking their floor: past that an `f32` has at
/// most one fractional bit left, so filtering there is meaningless anyway, and the clamp
/// makes the floor exact and branch-free ([`floor_split`]).
pub(crate) const COORD_LIMIT: f32 = 4_194_304.0;

/// `(⌊c⌋ as i32, ⌊c⌋, c)` for `c = clamp(x, ±2²²)` (NaN → −2²²), without a float-to-int
/// cast (whose saturation checks cost more than the rest of a bilinear tap).
///
/// Adding `1.5·2²³` to `c` rounds it to the nearest integer `r`, held in the low mantissa
/// bits of the sum; then `⌊c⌋ = r − [r > c]`. Every step is exact in `f32`.
#[inline(always)]
#[allow(
    clippy::manual_clamp,
    reason = "max/min map NaN to the lower limit; clamp would keep the NaN"
)]
fn floor_split(x: f32) -> (i32, f32, f32) {
    const MAGIC: f32 = 12_582_912.0; // 1.5·2²³
    let c = x.max(-COORD_LIMIT).min(COORD_LIMIT);
    let z = c + MAGIC;
    // |r| ≤ 2²², so neither subtraction can overflow (`wrapping_sub` spares the checks).
    let r = (z.to_bits() as i32).wrapping_sub(MAGIC.to_bits() as i32);
    let rf = z - MAGIC;
    let above = rf > c;
    (
        r.wrapping_sub(i32::from(above)),
        if above { rf - 1.0 } else { rf },
        c,
    )
}

/// `⌊x⌋` as an index, `x` clamped to ±2²²; NaN maps to −2²².
#[inline(always)]
pub(super) fn floor_index(x: f32) -> i32 {
    floor_split(x).0
}

/// The integer part (as an index) and fraction of a texel coordinate: `(⌊c⌋, c − ⌊c⌋)` with
/// `c` clamped as in [`floor_split`]; the fraction is in [0, 1] (1 only by rounding, for tiny
/// negative `c`).
#[inline(always)]
pub(super) fn index_frac(x: f32) -> (i32, f32) {
    let (i, f, c) = floor_split(x);
    (i, c - f)
}

/// Applies a wrap mode to integer index `i` for an axis of `n` texels; `None` = border.
#[inline(always)]
pub(super) fn wrap(mode: Wrap, i: i32, n: u32) -> Option<u32> {
    let pow2 = n.is_power_of_two();
    let n = n as i32; // ≤ 16384
    match mode {
        // For a power of two, two's-complement masking is exactly `rem_euclid`.
        Wrap::Repeat if pow2 => Some((i & (n - 1)) as u32),
        Wrap::Repeat => Some(i.rem_euclid(n) as u32),
        Wrap::MirroredRepeat => {
            let m = i.rem_euclid(2 * n);
            Some(if m < n { m } else { 2 * n - 1 - m } as u32)
        }
        Wrap::ClampToEdge => Some(i.clamp(0, n - 1) as u32),
        // `Clamp` reaches here with its coordinate already clamped to [0, 1]
        // ([`clamp_coord`]), so only the linear pair at an edge can fall outside.
        Wrap::ClampToBorder | Wrap::Clamp => (0..n).contains(&i).then_some(i as u32),
    }
}

/// A texture coordinate as the wrap mode sees it: clamped to [0, 1] for [`Wrap::Clamp`]
/// (GL 1.4 §3.8.7, before it is scaled to texels; NaN → 0), unchanged otherwise.
#[inline(always)]
#[allow(
    clippy::manual_clamp,
    reason = "max/min map NaN to 0; clamp would keep the NaN"
)]
pub(super) fn clamp_coord(mode: Wrap, c: f32) -> f32 {
    if mode == Wrap::Clamp {
        c.max(0.0).min(1.0)
    } else {
        c
    }
}

/// The wrap mode nearest filtering applies: [`Wrap::Clamp`] clamps the coordinate to
/// [0, 1] and then `⌊u·n⌋` to `n − 1` (GL 1.4 eq. 3.19's `u = 1` case), which is exactly
/// clamp-to-edge on the index; every other mode as it is.
#[inline(always)]
pub(super) fn nearest_mode(mode: Wrap) -> Wrap {
    match mode {
        Wrap::Clamp => Wrap::ClampToEdge,
        m => m,
    }
}

/// The texel at already-wrapped `(x, y)` of `level`, or the border colour (already a unorm8
/// value, [`Texture::in_format`]).
#[inline(always)]
pub(super) fn texel_at(level: &MipLevel, s: &Sampler, x: Option<u32>, y: Option<u32>) -> Rgba8 {
    match (x, y) {
        (Some(x), Some(y)) => level.fetch8(x, y),
        _ => s.border.to_array().map(to_unorm8),
    }
}

/// Nearest: the texel containing `uv`, i.e. index `⌊u·w⌋, ⌊v·h⌋` wrapped ([`Wrap::Clamp`]
/// as clamp-to-edge, [`nearest_mode`]).
#[inline]
fn nearest(level: &MipLevel, s: &Sampler, uv: Vec2) -> Rgba8 {
    let p = uv * level.size_f;
    texel_at(
        level,
        s,
        wrap(nearest_mode(s.wrap_u), floor_index(p.x), level.width()),
        wrap(nearest_mode(s.wrap_v), floor_index(p.y), level.height()),
    )
}

/// Bilinear: the four texels around `uv·size − 0.5`, weights from its fractional part.
///
/// With `x = u·w − 0.5`, `i0 = ⌊x⌋`, `α = x − i0` (and likewise `j0`, `β` on v) and the
/// 8-bit weights `a = weight8(α)`, `b = weight8(β)`:
/// `lerp8(lerp8(T[i0,j0], T[i0+1,j0], a), lerp8(T[i0,j0+1], T[i0+1,j0+1], a), b)`: two
/// lerps along u then one along v. For [`Wrap::Clamp`] the coordinate is first clamped to
/// [0, 1] ([`clamp_coord`]), so `x ∈ [−½, n − ½]` and a tap at −1 or n reads the border.
#[inline(always)]
fn bilinear(level: &MipLevel, s: &Sampler, uv: Vec2) -> Rgba8 {
    let uv = Vec2::new(clamp_coord(s.wrap_u, uv.x), clamp_coord(s.wrap_v, uv.y));
    let p = uv * level.size_f - Vec2::splat(0.5);
    let ((i0, a), (j0, b)) = (index_frac(p.x), index_frac(p.y));
    // Each axis is wrapped once for both of its taps.
    let (w, h) = (level.width(), level.height());
    let (x0, x1) = (wrap(s.wrap_u, i0, w), wrap(s.wrap_u, i0 + 1, w));
    let (y0, y1) = (wrap(s.wrap_v, j0, h), wrap(s.wrap_v, j0 + 1, h));
    let t00 = texel_at(level, s, x0, y0);
    let t10 = texel_at(level, s, x1, y0);
    let t01 = texel_at(level, s, x0, y1);
    let t11 = texel_at(level, s, x1, y1);
    let (a, b) = (weight8(a), weight8(b));
    lerp8(lerp8(t00, t10, a), lerp8(t01, t11, a), b)
}

/// Filters one level with nearest (`linear == false`) or bilinear.
#[inline(always)]
fn filter_level(level: &MipLevel, s: &Sampler, uv: Vec2, linear: bool) -> Rgba8 {
    if linear {
        bilinear(level, s, uv)
    } else {
        nearest(level, s, uv)
    }
}

/// [`wrap`] for the modes that never read the border (`W`: 0 repeat, 1 mirrored repeat,
/// 2 clamp to edge), monomorphised so the per-tap work is branch-free. Same results as
/// `wrap(mode, i, n).unwrap()`.
#[inline(always)]
pub(crate) fn wrap_nb<const W: u8>(i: i32, n: u32, pow2: bool) -> u32 {
    let n = n as i32;
    match W {
        0 if pow2 => (i & (n - 1)) as u32,
        0 => i.rem_euclid(n) as u32,
        1 => {
            let m = i.rem_euclid(2 * n);
            (if m < n { m } else { 2 * n - 1 - m }) as u32
        }
        _ => i.clamp(0, n - 1) as u32,
    }
}

/// An anisotropic sample's probes ([`Texture::probes`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Probes {
    /// How many (1: an isotropic sample at `lambda`).
    pub count: u32,
    /// λ of every probe, adjusted.
    pub lambda: f32,
    /// The major axis in uv units.
    pub major_uv: Vec2,
}

impl Probes {
    /// Probe `k`'s offset from the sample's `uv`: `major_uv·((k + ½)/N − ½)`.
    #[inline]
    pub fn offset(&self, k: u32) -> Vec2 {
        let nf = self.count as f32;
        self.major_uv * ((k as f32 + 0.5) / nf - 0.5)
    }
}

impl Texture {
    /// Samples at `uv` with a given base level of detail.
    ///
    /// `lambda_base` is `log2 ρ` before bias and clamps (as returned by [`lod`] or
    /// [`Texture::lod`]); the sampler's bias and min/max LOD are applied here
    /// ([`Sampler::adjust_lod`]). Then, with the adjusted λ and `q = level_count − 1`:
    /// - `λ ≤ c` (or NaN): magnified, `mag` filter on level 0, where `c` is
    ///   [`Sampler::switch_point`] (½ for mag `Linear` over min `Nearest*Mipmap*`, else 0 —
    ///   GL 1.4 §3.8.8; Mesa uses 0 for every pair);
    /// - `Nearest` / `Linear`: that filter on level 0;
    /// - `*MipmapNearest`: level `d = 0` if `λ ≤ ½`, else `min(⌈λ + ½⌉ − 1, q)`;
    /// - `*MipmapLinear`: levels `d = ⌊λ⌋` and `d + 1` (both clamped to `q`), blended as
    ///   `lerp8(τ_d, τ_{d+1}, weight8(t))` with `t = λ − ⌊λ⌋`; for `λ ≥ q` only level `q`.
    ///
    /// A texture without mipmaps used with a mipmap filter samples level 0 (`q = 0`).
    /// The border colour is read through the texture's format
    /// ([`TexelFormat::convert_border`](super::TexelFormat::convert_border)) as a unorm8
    /// value. Filtering is 8-bit (the module's documentation); returns RGBA in 0..1, each
    /// channel a byte times 1/255. No anisotropy here (it needs the derivatives).
    #[inline]
    pub fn sample_lod(&self, s: &Sampler, uv: Vec2, lambda_base: f32) -> Vec4 {
        self.sample_adjusted(s, uv, s.adjust_lod(lambda_base))
    }

    /// Samples at `uv` from the screen-space derivatives of `uv`.
    ///
    /// λ_base = [`lod`]`(base size, duv_dx, duv_dy)`, then as [`Texture::sample_lod`].
    ///
    /// **Anisotropy** (when `max_anisotropy > 1` and the texture is minified): with
    /// `a = duv_dx·size`, `b = duv_dy·size`, the longer of the two is the major axis;
    /// `N = min(⌈|major| / |minor|⌉, max_anisotropy)` probes (GL
    /// `EXT_texture_filter_anisotropic`), λ_base = `log2(|major| / N)`, and the probes sit at
    /// `uv + major_uv·((k + ½)/N − ½)`, `k = 0..N`, each filtered with the min filter at that
    /// λ and averaged with equal weights (summed in order `k = 0..N`, then divided by `N`).
    /// `major_uv` is the major derivative in uv units. With `N = 1` this is exactly the
    /// isotropic path.
    #[inline]
    pub fn sample_grad(&self, s: &Sampler, uv: Vec2, duv_dx: Vec2, duv_dy: Vec2) -> Vec4 {
        self.sample_grad_in_format(&self.in_format(s), uv, duv_dx, duv_dy)
    }

    /// [`Texture::sample_grad`] for a sampler already passed through
    /// [`Texture::in_format`] (the fragment stage converts once per batch).
    #[inline]
    pub(crate) fn sample_grad_in_format(
        &self,
        s: &Sampler,
        uv: Vec2,
        duv_dx: Vec2,
        duv_dy: Vec2,
    ) -> Vec4 {
        let p = self.probes(s, duv_dx, duv_dy);
        if p.count == 1 {
            return self.sample_in_format(s, uv, p.lambda);
        }
        let nf = p.count as f32;
        let mut sum = Vec4::ZERO;
        for k in 0..p.count {
            sum += self.sample_in_format(s, uv + p.offset(k), p.lambda);
        }
        sum / nf
    }

    /// How [`Texture::sample_grad`] samples: its probe count, λ and probe spacing (the
    /// documented rule; `taps` lists the texels by the same choice).
    #[inline]
    pub(crate) fn probes(&self, s: &Sampler, duv_dx: Vec2, duv_dy: Vec2) -> Probes {
        let size = self.levels[0].size_f;
        if s.max_anisotropy <= 1 {
            return Probes {
                count: 1,
                lambda: s.adjust_lod(lod(size, duv_dx, duv_dy)),
                major_uv: Vec2::ZERO,
            };
        }
        let (a, b) = (
            (duv_dx * size).length_squared(),
            (duv_dy * size).length_squared(),
        );
        let (major2, minor2, major_uv) = if a >= b {
            (a, b, duv_dx)
        } else {
            (b, a, duv_dy)
        };
        // N = min(⌈ρmax/ρmin⌉, max); ρmin = 0 (or NaN) gives the limit.
        let limit = s.anisotropy();
        let ratio = (major2 / minor2).sqrt().ceil();
        let n = if ratio < limit as f32 {
            // ratio ≥ 1 here unless NaN-free tiny values; keep at least one probe.
            (ratio as u32).max(1)
        } else {
            limit
        };
        let nf = n as f32;
        let lambda = s.adjust_lod(0.5 * math::log2_lod(major2 / (nf * nf)));
        let minified = lambda > s.switch_point(); // false for NaN
        Probes {
            count: if minified { n } else { 1 },
            lambda,
            major_uv,
        }
    }

    /// The base level's size in texels, as floats.
    #[inline]
    pub(crate) fn base_size(&self) -> Vec2 {
        self.levels[0].size_f
    }

    /// λ_base for this texture's base level: [`lod`]`(size, duv_dx, duv_dy)`.
    #[inline]
    pub fn lod(&self, duv_dx: Vec2, duv_dy: Vec2) -> f32 {
        lod(self.levels[0].size_f, duv_dx, duv_dy)
    }

    /// Samples with an already-adjusted λ (bias and clamps applied).
    #[inline]
    pub(crate) fn sample_adjusted(&self, s: &Sampler, uv: Vec2, lambda: f32) -> Vec4 {
        self.sample_in_format(&self.in_format(s), uv, lambda)
    }

    /// `s` with its border colour read as a texel of this texture's format (GL 2.1 §3.8.8;
    /// [`TexelFormat::convert_border`](super::TexelFormat::convert_border)) and stored as one:
    /// each channel rounded to a byte ([`to_unorm8`]) and read back as `c × 1/255`. Done once
    /// per call or batch, never per tap.
    #[inline]
    pub(crate) fn in_format(&self, s: &Sampler) -> Sampler {
        let b = self
            .format
            .convert_border(s.border)
            .to_array()
            .map(to_unorm8);
        Sampler {
            border: rgba8_to_f32(b),
            ..*s
        }
    }

    /// [`Texture::sample_adjusted`] for a sampler already passed through
    /// [`Texture::in_format`].
    #[inline]
    fn sample_in_format(&self, s: &Sampler, uv: Vec2, lambda: f32) -> Vec4 {
        rgba8_to_f32(self.sample8_in_format(s, uv, lambda))
    }

    /// [`Texture::sample_in_format`]'s filtered bytes.
    #[inline]
    fn sample8_in_format(&self, s: &Sampler, uv: Vec2, lambda: f32) -> Rgba8 {
        let base = &self.levels[0];
        // NaN compares false, so it is treated as magnification.
        let minified = lambda > s.switch_point();
        if !minified {
            return filter_level(base, s, uv, s.mag == MagFilter::Linear);
        }
        let q = self.levels.len() - 1;
        match s.min {
            MinFilter::Nearest => nearest(base, s, uv),
            MinFilter::Linear => bilinear(base, s, uv),
            MinFilter::NearestMipmapNearest | MinFilter::LinearMipmapNearest => {
                let d = if lambda <= 0.5 {
                    0
                } else {
                    // λ > ½ here; `as usize` saturates for huge λ.
                    ((lambda + 0.5).ceil() as usize - 1).min(q)
                };
                let linear = s.min == MinFilter::LinearMipmapNearest;
                filter_level(&self.levels[d], s, uv, linear)
            }
            MinFilter::NearestMipmapLinear | MinFilter::LinearMipmapLinear => {
                let linear = s.min == MinFilter::LinearMipmapLinear;
                if lambda >= q as f32 {
                    return filter_level(&self.levels[q], s, uv, linear);
                }
                let (d, t) = index_frac(lambda);
                let d = d as usize; // 0 ≤ d < q
                let t1 = filter_level(&self.levels[d], s, uv, linear);
                let t2 = filter_level(&self.levels[d + 1], s, uv, linear);
                lerp8(t1, t2, weight8(t))
            }
        }
    }
}

#[cfg(feature = "internal-tests")]
pub(crate) mod tests {
    /// Every test of this module: `tests/unit.rs` runs each as one trial (an unlisted
    /// test fails the build as dead code).
    pub(crate) const TESTS: &[(&str, fn())] = &[
        ("wrap_table", wrap_table),
        (
            "clamp_coord_only_clamps_clamp",
            clamp_coord_only_clamps_clamp,
        ),
        ("floor_index_is_total", floor_index_is_total),
        ("floor_split_is_the_floor", floor_split_is_the_floor),
        ("filter8_bytes_by_hand", filter8_bytes_by_hand),
    ];

    use super::*;

    fn wrap_table() {
        // n = 4. Rows: index, repeat, mirrored, edge, border.
        let rows: [(i32, u32, u32, u32, Option<u32>); 8] = [
            (0, 0, 0, 0, Some(0)),
            (3, 3, 3, 3, Some(3)),
            (4, 0, 3, 3, None),
            (5, 1, 2, 3, None),
            (-1, 3, 0, 0, None),
            (-4, 0, 3, 0, None),
            (-5, 3, 3, 0, None),
            (9, 1, 1, 3, None),
        ];
        for (i, r, m, e, b) in rows {
            assert_eq!(wrap(Wrap::Repeat, i, 4), Some(r), "repeat {i}");
            assert_eq!(wrap(Wrap::MirroredRepeat, i, 4), Some(m), "mirror {i}");
            assert_eq!(wrap(Wrap::ClampToEdge, i, 4), Some(e), "edge {i}");
            assert_eq!(wrap(Wrap::ClampToBorder, i, 4), b, "border {i}");
            // CLAMP's indices are border indices (its coordinate is clamped before), and
            // nearest filtering reads it as clamp-to-edge.
            assert_eq!(wrap(Wrap::Clamp, i, 4), b, "clamp {i}");
            assert_eq!(wrap(nearest_mode(Wrap::Clamp), i, 4), Some(e), "clamp {i}");
        }
    }

    fn clamp_coord_only_clamps_clamp() {
        for (c, clamped) in [
            (-0.5, 0.0),
            (0.25, 0.25),
            (1.5, 1.0),
            (f32::NAN, 0.0),
            (f32::INFINITY, 1.0),
        ] {
            assert_eq!(clamp_coord(Wrap::Clamp, c), clamped, "{c}");
            for w in [Wrap::Repeat, Wrap::ClampToEdge, Wrap::ClampToBorder] {
                assert_eq!(clamp_coord(w, c).to_bits(), c.to_bits(), "{w:?} {c}");
            }
        }
    }

    fn floor_index_is_total() {
        assert_eq!(floor_index(f32::NAN), -4_194_304);
        assert_eq!(floor_index(f32::INFINITY), 4_194_304);
        assert_eq!(floor_index(f32::NEG_INFINITY), -4_194_304);
        assert_eq!(floor_index(-0.5), -1);
        assert_eq!(floor_index(-1.0), -1);
        assert_eq!(floor_index(2.999), 2);
        assert_eq!(floor_index(3.0), 3);
        assert_eq!(index_frac(f32::INFINITY), (4_194_304, 0.0));
        assert_eq!(index_frac(-2.25), (-3, 0.75));
    }

    /// The 8-bit filter's weights, lerps and one bilinear sample, worked out by hand.
    fn filter8_bytes_by_hand() {
        for (f, w) in [
            (0.0, 0),
            (1.0 / 512.0, 0),
            (1.0 / 256.0, 1),
            (0.25, 64),
            (0.5, 128),
            (0.999, 255),
            (1.0, 255),
        ] {
            assert_eq!(weight8(f), w, "{f}");
        }
        // (x·(256−w) + y·w + 128) >> 8: 255·128 + 128 = 32768 → 128;
        // 100·128 + 200·128 + 128 = 38528 → 150; at w = 255, 255·255 + 128 = 65153 → 254.
        assert_eq!(
            lerp8([0, 255, 100, 7], [255, 0, 200, 7], 128),
            [128, 128, 150, 7]
        );
        assert_eq!(
            lerp8([0, 255, 100, 7], [255, 0, 200, 7], 0),
            [0, 255, 100, 7]
        );
        assert_eq!(lerp8([0, 0, 0, 0], [255, 255, 1, 2], 255), [254, 254, 1, 2]);
        // 2×2, bilinear at x = u·2 − ½ = 0.25, y = v·2 − ½ = 0.75: a = 64, b = 192.
        // Red: top (0·192 + 255·64 + 128) >> 8 = 64, bottom (100·192 + 200·64 + 128) >> 8
        // = 125, result (64·64 + 125·192 + 128) >> 8 = 110. Blue: 13, 33, 28.
        let px = vec![
            0, 255, 10, 255, 255, 255, 20, 255, //
            100, 255, 30, 255, 200, 255, 40, 255,
        ];
        let tex = Texture::from_rgba8(2, 2, px).unwrap();
        let c = tex.sample_lod(&Sampler::BILINEAR, Vec2::new(0.375, 0.625), 0.0);
        assert_eq!(
            c.to_array().map(crate::base::unorm::to_unorm8),
            [110, 255, 28, 255]
        );
        assert_eq!(c.x, 110.0 * crate::base::unorm::INV_255);
    }

    fn floor_split_is_the_floor() {
        // Every float in [−2^22, 2^22] at a stride, plus the neighbours of every integer in
        // [−300, 300] (where ties and exact integers are).
        let check = |x: f32| {
            let (i, f, c) = floor_split(x);
            assert_eq!(c, x);
            assert_eq!(f, x.floor(), "{x:e}");
            assert_eq!(i as f32, x.floor(), "{x:e}");
            // (Rounds up to exactly 1 only for tiny negative x, where ⌊x⌋ + 1 = 0 is right.)
            assert!((0.0..=1.0).contains(&(c - f)), "{x:e}");
        };
        for sign in [0, 0x8000_0000u32] {
            for bits in (0..=COORD_LIMIT.to_bits()).step_by(997) {
                check(f32::from_bits(bits | sign));
            }
        }
        for k in -300..=300 {
            let x = k as f32;
            check(x);
            check(f32::from_bits(x.to_bits() + 1));
            if k != 0 {
                check(f32::from_bits(x.to_bits() - 1));
            }
            check(x + 0.5);
        }
    }
}
