//! Texture-unit apply modes and the combiner (OpenGL 1.3 texture environment).
//!
//! One unit takes the incoming fragment colour `previous` (`Cf, Af`: for unit 0 the primary
//! colour, for unit k > 0 the output of unit k − 1), its filtered texture sample `texture`
//! (`Ct, At`), the primary colour `primary` (the lit or vertex colour before any texturing;
//! only [`ApplyMode::Combine`] reads it) and the unit's constant colour `constant` (`Cc, Ac`,
//! the book's `BlendColor`). Every result is clamped to [0, 1].
//!
//! # Base formats
//!
//! GL's table depends on the texture's base format. plumb stores every texture as RGBA8 and
//! gives alpha-less formats (RGB, L) alpha 1 at load, and [`apply`] always uses the **RGBA
//! row** of the table. With `At = 1` that row equals the RGB row for DECAL, MODULATE, BLEND
//! and ADD; the only difference is REPLACE, whose alpha is `At` (= 1) instead of GL's `Af`.
//! [`ApplyMode::for_format`] fixes that once per draw: for an alpha-less format it rewrites
//! `Replace` to the equivalent combiner (RGB = texture, alpha = previous). Luminance textures
//! are replicated to RGB at load, which is GL's rule.
//!
//! # Modes (Table 3.4 of the book, RGBA row)
//!
//! | mode | C | A |
//! |---|---|---|
//! | Replace | Ct | At |
//! | Decal | (1 − At)·Cf + At·Ct | Af |
//! | Modulate | Ct·Cf | At·Af |
//! | Blend | (1 − Ct)·Cf + Ct·Cc | At·Af |
//! | Add | Ct + Cf | At·Af |
//!
//! [`CombineState`] documents the combiner.

use fearless_simd::{f32x8, prelude::*};
use glam::{Vec3, Vec4};

use crate::base::math::saturate;
#[cfg(feature = "internal-tests")]
use crate::base::vec_lanes::LANES;
use crate::base::vec_lanes::{self as vl, V3, V4};
use crate::texture::TexelFormat;

/// The function of one combiner (RGB or alpha), on arguments `V0, V1, V2`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "trace", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "trace", serde(rename_all = "snake_case"))]
pub enum CombineFn {
    /// `V0`.
    Replace,
    /// `V0·V1`.
    #[default]
    Modulate,
    /// `V0 + V1`.
    Add,
    /// `V0 + V1 − ½`.
    AddSigned,
    /// `V0·V2 + V1·(1 − V2)`.
    Interpolate,
    /// `V0 − V1`.
    Subtract,
    /// `4·((r0−½)(r1−½) + (g0−½)(g1−½) + (b0−½)(b1−½))` into R, G and B; alpha comes from the
    /// alpha combiner. As an alpha function: `4·(a0−½)(a1−½)` (an extension; GL rejects it).
    Dot3Rgb,
    /// As `Dot3Rgb`, written to all four channels; the alpha combiner is ignored. As an alpha
    /// function it behaves like `Dot3Rgb`.
    Dot3Rgba,
}

impl CombineFn {
    /// All eight functions.
    pub const ALL: [CombineFn; 8] = [
        CombineFn::Replace,
        CombineFn::Modulate,
        CombineFn::Add,
        CombineFn::AddSigned,
        CombineFn::Interpolate,
        CombineFn::Subtract,
        CombineFn::Dot3Rgb,
        CombineFn::Dot3Rgba,
    ];
}

/// Where a combiner argument comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "trace", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "trace", serde(rename_all = "snake_case"))]
pub enum Source {
    /// This unit's texture sample (`Ct, At`).
    #[default]
    Texture,
    /// This unit's constant colour (`Cc, Ac`).
    Constant,
    /// The primary colour (before any texturing).
    Primary,
    /// The previous unit's output (the primary colour for unit 0).
    Previous,
}

/// How a combiner argument is read from its source.
///
/// In the alpha combiner `Color` reads as `Alpha` and `OneMinusColor` as `OneMinusAlpha`
/// (GL only allows the alpha operands there; the book's defaults use `SRC_COLOR` for alpha).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "trace", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "trace", serde(rename_all = "snake_case"))]
pub enum Operand {
    /// `C`.
    #[default]
    Color,
    /// `1 − C`.
    OneMinusColor,
    /// `A` (replicated to RGB in the RGB combiner).
    Alpha,
    /// `1 − A`.
    OneMinusAlpha,
}

/// The `COMBINE` apply mode: separate RGB and alpha combiners.
///
/// `result.rgb = clamp(rgb(V0, V1, V2) · rgb_scale)`, `result.a = clamp(alpha(…) · alpha_scale)`
/// where argument `Vi` is `op_*[i]` applied to `src_*[i]`. `Dot3Rgba` writes all four
/// channels (scaled by `rgb_scale`) and ignores the alpha combiner. Scales are 1, 2 or 4 in
/// GL; other finite values are applied as given.
///
/// `Default` is GL's initial combiner state: RGB and alpha `Modulate`, sources
/// `(Texture, Previous, Constant)`, RGB operands `(Color, Color, Alpha)`, alpha operands
/// `Alpha`, scales 1 — i.e. the same result as [`ApplyMode::Modulate`] on an RGBA texture.
/// (The book's `Texture` defaults to `Replace` with all sources `Texture`.)
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "trace", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "trace", serde(deny_unknown_fields))]
pub struct CombineState {
    /// RGB function.
    pub rgb: CombineFn,
    /// Alpha function.
    pub alpha: CombineFn,
    /// Sources of the RGB arguments `V0, V1, V2`.
    pub src_rgb: [Source; 3],
    /// Operands of the RGB arguments.
    pub op_rgb: [Operand; 3],
    /// Sources of the alpha arguments.
    pub src_alpha: [Source; 3],
    /// Operands of the alpha arguments (`Color` reads as `Alpha`).
    pub op_alpha: [Operand; 3],
    /// RGB scale (1, 2 or 4).
    pub rgb_scale: f32,
    /// Alpha scale (1, 2 or 4).
    pub alpha_scale: f32,
}

impl Default for CombineState {
    fn default() -> CombineState {
        CombineState::MODULATE
    }
}

impl CombineState {
    /// GL's initial state: `Modulate(Texture, Previous)` on RGB and alpha.
    pub const MODULATE: CombineState = CombineState {
        rgb: CombineFn::Modulate,
        alpha: CombineFn::Modulate,
        src_rgb: [Source::Texture, Source::Previous, Source::Constant],
        op_rgb: [Operand::Color, Operand::Color, Operand::Alpha],
        src_alpha: [Source::Texture, Source::Previous, Source::Constant],
        op_alpha: [Operand::Alpha, Operand::Alpha, Operand::Alpha],
        rgb_scale: 1.0,
        alpha_scale: 1.0,
    };

    /// RGB replaced by the texture, alpha kept from the previous unit: GL's `REPLACE` on an
    /// RGB or luminance texture (see [`ApplyMode::for_format`]).
    pub const REPLACE_RGB: CombineState = CombineState {
        rgb: CombineFn::Replace,
        alpha: CombineFn::Replace,
        src_rgb: [Source::Texture, Source::Previous, Source::Constant],
        op_rgb: [Operand::Color, Operand::Color, Operand::Alpha],
        src_alpha: [Source::Previous, Source::Previous, Source::Constant],
        op_alpha: [Operand::Alpha, Operand::Alpha, Operand::Alpha],
        rgb_scale: 1.0,
        alpha_scale: 1.0,
    };

    /// The book's light-map "soft add": `Interpolate(Constant, Previous, Texture)` =
    /// `Cc·Ct + Cp·(1 − Ct)`, which with a white constant is `Ct + Cp·(1 − Ct)`; alpha is
    /// kept from the previous unit. Set the unit's constant colour to white.
    pub const SOFT_ADD: CombineState = CombineState {
        rgb: CombineFn::Interpolate,
        alpha: CombineFn::Replace,
        src_rgb: [Source::Constant, Source::Previous, Source::Texture],
        op_rgb: [Operand::Color, Operand::Color, Operand::Color],
        src_alpha: [Source::Previous, Source::Previous, Source::Constant],
        op_alpha: [Operand::Alpha, Operand::Alpha, Operand::Alpha],
        rgb_scale: 1.0,
        alpha_scale: 1.0,
    };

    /// Dot3 bump mapping: `Dot3Rgb(Texture, Primary)` (normal map · light vector encoded in
    /// the primary colour), alpha kept from the previous unit.
    pub const DOT3: CombineState = CombineState {
        rgb: CombineFn::Dot3Rgb,
        alpha: CombineFn::Replace,
        src_rgb: [Source::Texture, Source::Primary, Source::Constant],
        op_rgb: [Operand::Color, Operand::Color, Operand::Alpha],
        src_alpha: [Source::Previous, Source::Previous, Source::Constant],
        op_alpha: [Operand::Alpha, Operand::Alpha, Operand::Alpha],
        rgb_scale: 1.0,
        alpha_scale: 1.0,
    };
}

/// How a texture unit combines its sample with the incoming colour.
///
/// `Default` is `Modulate` (GL's initial `TEXTURE_ENV_MODE`; the book's `Texture` defaults to
/// `Replace`).
#[derive(Clone, Copy, Debug, PartialEq, Default)]
#[cfg_attr(feature = "trace", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "trace", serde(rename_all = "snake_case"))]
pub enum ApplyMode {
    /// `C = Ct`, `A = At`.
    Replace,
    /// `C = (1 − At)·Cf + At·Ct`, `A = Af`.
    Decal,
    /// `C = Ct·Cf`, `A = At·Af`.
    #[default]
    Modulate,
    /// `C = (1 − Ct)·Cf + Ct·Cc`, `A = At·Af`.
    Blend,
    /// `C = Ct + Cf`, `A = At·Af`.
    Add,
    /// The programmable combiner.
    Combine(CombineState),
}

impl ApplyMode {
    /// The mode to use with a texture loaded from `format`, reproducing GL's base-format
    /// table exactly: `Replace` on a format without alpha (RGB, L) becomes
    /// [`CombineState::REPLACE_RGB`] (alpha from the previous unit); everything else is
    /// unchanged (alpha-less texels already have `At = 1`). Call once per draw.
    #[must_use]
    pub fn for_format(self, format: TexelFormat) -> ApplyMode {
        match self {
            ApplyMode::Replace if !format.has_alpha() => {
                ApplyMode::Combine(CombineState::REPLACE_RGB)
            }
            other => other,
        }
    }
}

/// Component-wise [`saturate`].
#[inline]
fn sat4(v: Vec4) -> Vec4 {
    Vec4::new(saturate(v.x), saturate(v.y), saturate(v.z), saturate(v.w))
}

/// Runs one texture unit: see the [module docs](self) for the modes and the meaning of the
/// four colours (all RGBA in 0..1). The result is clamped to [0, 1].
///
/// ```
/// use glam::Vec4;
/// use plumb_raster::combine::{apply, ApplyMode};
/// let prev = Vec4::new(0.5, 1.0, 1.0, 1.0);
/// let tex = Vec4::new(0.5, 0.5, 0.0, 0.5);
/// let c = apply(&ApplyMode::Modulate, prev, tex, prev, Vec4::ZERO);
/// assert_eq!(c, Vec4::new(0.25, 0.5, 0.0, 0.5));
/// ```
#[inline]
pub fn apply(
    mode: &ApplyMode,
    previous: Vec4,
    texture: Vec4,
    primary: Vec4,
    constant: Vec4,
) -> Vec4 {
    let (cf, af) = (previous.truncate(), previous.w);
    let (ct, at) = (texture.truncate(), texture.w);
    let out = match mode {
        ApplyMode::Replace => texture,
        ApplyMode::Decal => (cf * (1.0 - at) + ct * at).extend(af),
        ApplyMode::Modulate => previous * texture,
        ApplyMode::Blend => {
            let cc = constant.truncate();
            (cf * (Vec3::ONE - ct) + cc * ct).extend(af * at)
        }
        ApplyMode::Add => (cf + ct).extend(af * at),
        ApplyMode::Combine(c) => combine(c, previous, texture, primary, constant),
    };
    sat4(out)
}

/// Picks a source colour.
#[inline]
fn source(src: Source, previous: Vec4, texture: Vec4, primary: Vec4, constant: Vec4) -> Vec4 {
    match src {
        Source::Texture => texture,
        Source::Constant => constant,
        Source::Primary => primary,
        Source::Previous => previous,
    }
}

/// An RGB argument.
#[inline]
fn arg_rgb(op: Operand, c: Vec4) -> Vec3 {
    match op {
        Operand::Color => c.truncate(),
        Operand::OneMinusColor => Vec3::ONE - c.truncate(),
        Operand::Alpha => Vec3::splat(c.w),
        Operand::OneMinusAlpha => Vec3::splat(1.0 - c.w),
    }
}

/// An alpha argument (`Color` reads as `Alpha`).
#[inline]
fn arg_alpha(op: Operand, c: Vec4) -> f32 {
    match op {
        Operand::Color | Operand::Alpha => c.w,
        Operand::OneMinusColor | Operand::OneMinusAlpha => 1.0 - c.w,
    }
}

/// `4·Σ (x0 − ½)(x1 − ½)` over RGB.
#[inline]
fn dot3(v0: Vec3, v1: Vec3) -> f32 {
    let (a, b) = (v0 - Vec3::splat(0.5), v1 - Vec3::splat(0.5));
    4.0 * (a.x * b.x + a.y * b.y + a.z * b.z)
}

/// The combiner, before the final clamp.
fn combine(c: &CombineState, previous: Vec4, texture: Vec4, primary: Vec4, constant: Vec4) -> Vec4 {
    let s = |i: usize, src: &[Source; 3]| source(src[i], previous, texture, primary, constant);
    let v = [
        arg_rgb(c.op_rgb[0], s(0, &c.src_rgb)),
        arg_rgb(c.op_rgb[1], s(1, &c.src_rgb)),
        arg_rgb(c.op_rgb[2], s(2, &c.src_rgb)),
    ];
    let rgb = match c.rgb {
        CombineFn::Replace => v[0],
        CombineFn::Modulate => v[0] * v[1],
        CombineFn::Add => v[0] + v[1],
        CombineFn::AddSigned => v[0] + v[1] - Vec3::splat(0.5),
        CombineFn::Interpolate => v[0] * v[2] + v[1] * (Vec3::ONE - v[2]),
        CombineFn::Subtract => v[0] - v[1],
        CombineFn::Dot3Rgb => Vec3::splat(dot3(v[0], v[1])),
        CombineFn::Dot3Rgba => {
            let d = dot3(v[0], v[1]) * c.rgb_scale;
            return Vec4::splat(d);
        }
    } * c.rgb_scale;
    let a = [
        arg_alpha(c.op_alpha[0], s(0, &c.src_alpha)),
        arg_alpha(c.op_alpha[1], s(1, &c.src_alpha)),
        arg_alpha(c.op_alpha[2], s(2, &c.src_alpha)),
    ];
    let alpha = match c.alpha {
        CombineFn::Replace => a[0],
        CombineFn::Modulate => a[0] * a[1],
        CombineFn::Add => a[0] + a[1],
        CombineFn::AddSigned => a[0] + a[1] - 0.5,
        CombineFn::Interpolate => a[0] * a[2] + a[1] * (1.0 - a[2]),
        CombineFn::Subtract => a[0] - a[1],
        CombineFn::Dot3Rgb | CombineFn::Dot3Rgba => 4.0 * ((a[0] - 0.5) * (a[1] - 0.5)),
    } * c.alpha_scale;
    rgb.extend(alpha)
}

/// The combiner's sources for eight pixels, indexed by [`Source`] (`as usize`).
pub(crate) type LaneSources<S> = [V4<S>; 4];

/// A [`Source`]'s slot in [`LaneSources`].
#[inline(always)]
pub(crate) const fn source_slot(s: Source) -> usize {
    match s {
        Source::Texture => 0,
        Source::Constant => 1,
        Source::Primary => 2,
        Source::Previous => 3,
    }
}

/// [`dot3`] in lanes.
#[inline(always)]
fn dot3_lanes<S: Simd>(simd: S, v0: V3<S>, v1: V3<S>) -> f32x8<S> {
    let half = simd.splat_f32x8(0.5);
    let a = vl::sub3(v0, [half; 3]);
    let b = vl::sub3(v1, [half; 3]);
    simd.splat_f32x8(4.0) * (a[0] * b[0] + a[1] * b[1] + a[2] * b[2])
}

/// [`apply`] with [`ApplyMode::Combine`] for eight pixels: every lane the scalar bits (the
/// same operations in the same order, `sat` by compare-and-select). State is read once per
/// call (eight pixels), never per pixel.
#[inline(always)]
pub(crate) fn combine_lanes<S: Simd>(simd: S, c: &CombineState, src: &LaneSources<S>) -> V4<S> {
    let one = simd.splat_f32x8(1.0);
    let half = simd.splat_f32x8(0.5);
    let four = simd.splat_f32x8(4.0);
    let mut v = [[one; 3]; 3];
    for (i, vi) in v.iter_mut().enumerate() {
        let s = &src[source_slot(c.src_rgb[i])];
        *vi = match c.op_rgb[i] {
            Operand::Color => [s[0], s[1], s[2]],
            Operand::OneMinusColor => [one - s[0], one - s[1], one - s[2]],
            Operand::Alpha => [s[3]; 3],
            Operand::OneMinusAlpha => [one - s[3]; 3],
        };
    }
    let rgb: V3<S> = match c.rgb {
        CombineFn::Replace => v[0],
        CombineFn::Modulate => vl::mul3(v[0], v[1]),
        CombineFn::Add => vl::add3(v[0], v[1]),
        CombineFn::AddSigned => vl::sub3(vl::add3(v[0], v[1]), [half; 3]),
        CombineFn::Interpolate => vl::add3(
            vl::mul3(v[0], v[2]),
            vl::mul3(v[1], vl::sub3([one; 3], v[2])),
        ),
        CombineFn::Subtract => vl::sub3(v[0], v[1]),
        CombineFn::Dot3Rgb => [dot3_lanes(simd, v[0], v[1]); 3],
        CombineFn::Dot3Rgba => {
            let d = vl::sat(simd, dot3_lanes(simd, v[0], v[1]) * c.rgb_scale);
            return [d; 4];
        }
    };
    let scale = simd.splat_f32x8(c.rgb_scale);
    let [r, g, b] = vl::sat3(simd, [rgb[0] * scale, rgb[1] * scale, rgb[2] * scale]);
    let mut a = [one; 3];
    for (i, ai) in a.iter_mut().enumerate() {
        let s = src[source_slot(c.src_alpha[i])][3];
        *ai = match c.op_alpha[i] {
            Operand::Color | Operand::Alpha => s,
            Operand::OneMinusColor | Operand::OneMinusAlpha => one - s,
        };
    }
    let alpha = match c.alpha {
        CombineFn::Replace => a[0],
        CombineFn::Modulate => a[0] * a[1],
        CombineFn::Add => a[0] + a[1],
        CombineFn::AddSigned => a[0] + a[1] - half,
        CombineFn::Interpolate => a[0] * a[2] + a[1] * (one - a[2]),
        CombineFn::Subtract => a[0] - a[1],
        CombineFn::Dot3Rgb | CombineFn::Dot3Rgba => four * ((a[0] - half) * (a[1] - half)),
    };
    [r, g, b, vl::sat(simd, alpha * c.alpha_scale)]
}

#[cfg(feature = "internal-tests")]
pub(crate) mod tests {
    /// Every test of this module: `tests/unit.rs` runs each as one trial (an unlisted
    /// test fails the build as dead code).
    pub(crate) const TESTS: &[(&str, fn())] =
        &[("combine_lanes_match_apply", combine_lanes_match_apply)];

    use super::*;
    use crate::base::simd::SimdLevel;

    const OPS: [Operand; 4] = [
        Operand::Color,
        Operand::OneMinusColor,
        Operand::Alpha,
        Operand::OneMinusAlpha,
    ];
    const SOURCES: [Source; 4] = [
        Source::Texture,
        Source::Constant,
        Source::Primary,
        Source::Previous,
    ];

    /// Every combiner function, source and operand, at every SIMD level, gives
    /// [`apply`]'s bits in every lane (inputs include out-of-range values and NaN).
    fn combine_lanes_match_apply() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut f = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            match seed % 29 {
                0 => f32::NAN,
                1 => 1.5,
                2 => -0.25,
                _ => (seed >> 40) as f32 / (1u64 << 24) as f32,
            }
        };
        let mut cases = 0;
        for (k, (&rgb, &alpha)) in CombineFn::ALL
            .iter()
            .flat_map(|a| CombineFn::ALL.iter().map(move |b| (a, b)))
            .enumerate()
        {
            for variant in 0..8 {
                let pick = |i: usize| (k + variant * 3 + i * 5) % 4;
                let c = CombineState {
                    rgb,
                    alpha,
                    src_rgb: [0, 1, 2].map(|i| SOURCES[pick(i)]),
                    op_rgb: [0, 1, 2].map(|i| OPS[(pick(i) + variant) % 4]),
                    src_alpha: [0, 1, 2].map(|i| SOURCES[(pick(i) + 1) % 4]),
                    op_alpha: [0, 1, 2].map(|i| OPS[(pick(i) + 2 * variant) % 4]),
                    rgb_scale: [1.0, 2.0, 4.0, 0.5][variant % 4],
                    alpha_scale: [1.0, 4.0, 2.0, 3.0][variant % 4],
                };
                let mut colors = [[[0.0f32; LANES]; 4]; 4];
                for x in colors.iter_mut().flatten().flatten() {
                    *x = f();
                }
                let px = |s: usize, i: usize| Vec4::from_array(colors[s].map(|ch| ch[i]));
                let want: [Vec4; LANES] = std::array::from_fn(|i| {
                    let (tex, cst, prim, prev) = (px(0, i), px(1, i), px(2, i), px(3, i));
                    apply(&ApplyMode::Combine(c), prev, tex, prim, cst)
                });
                for level in SimdLevel::available() {
                    let got: [[f32; LANES]; 4] = crate::base::simd::dispatch!(level.to_level().unwrap(), simd => {
                        let src = colors.map(|s| s.map(|ch| f32x8::from_slice(simd, &ch)));
                        combine_lanes(simd, &c, &src).map(|x| x.into())
                    });
                    for (i, w) in want.iter().enumerate() {
                        for ch in 0..4 {
                            // Every output is saturated: NaN never leaves the combiner.
                            assert_eq!(
                                w[ch].to_bits(),
                                got[ch][i].to_bits(),
                                "{c:?} level {level} lane {i} channel {ch}: {w:?}"
                            );
                        }
                    }
                    cases += 1;
                }
            }
        }
        assert!(cases >= 64 * 8, "{cases}");
    }
}
