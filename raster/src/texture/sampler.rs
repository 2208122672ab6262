//! Sampler state as plain `Copy` data, and the level-of-detail formula.

use glam::{Vec2, Vec4};

use crate::base::math;

/// Filter used when the texture is magnified (λ ≤ c, [`Sampler::switch_point`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "trace", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "trace", serde(rename_all = "snake_case"))]
pub enum MagFilter {
    /// The texel containing the sample point.
    Nearest,
    /// Bilinear between the four texels around `uv·size − 0.5`.
    #[default]
    Linear,
}

/// Filter used when the texture is minified (λ > c, [`Sampler::switch_point`]). The first word is the filter within a
/// level, the second the filter between levels (GL naming).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "trace", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "trace", serde(rename_all = "snake_case"))]
pub enum MinFilter {
    /// Nearest texel of level 0 (no mipmaps).
    Nearest,
    /// Bilinear on level 0 (no mipmaps).
    Linear,
    /// Nearest level, nearest texel.
    NearestMipmapNearest,
    /// Nearest level, bilinear.
    LinearMipmapNearest,
    /// Two levels, nearest texel in each, blended.
    NearestMipmapLinear,
    /// Two levels, bilinear in each, blended ("trilinear").
    #[default]
    LinearMipmapLinear,
}

impl MinFilter {
    /// All six filters in GL enum order.
    pub const ALL: [MinFilter; 6] = [
        MinFilter::Nearest,
        MinFilter::Linear,
        MinFilter::NearestMipmapNearest,
        MinFilter::LinearMipmapNearest,
        MinFilter::NearestMipmapLinear,
        MinFilter::LinearMipmapLinear,
    ];

    /// Whether the filter reads levels other than 0.
    #[inline]
    pub const fn uses_mipmaps(self) -> bool {
        !matches!(self, MinFilter::Nearest | MinFilter::Linear)
    }
}

/// What happens to texel indices outside `0..n` (per axis).
///
/// Applied to integer texel indices (`⌊u·n⌋` for nearest, `⌊u·n − 0.5⌋` and its neighbour
/// for linear), which is the GL definition:
/// - `Repeat`: `i mod n` (always non-negative);
/// - `MirroredRepeat`: `m = i mod 2n`, then `m` if `m < n`, else `2n − 1 − m`;
/// - `ClampToEdge`: `clamp(i, 0, n − 1)`; the border colour is never used;
/// - `ClampToBorder`: indices outside `0..n` read the sampler's border colour (so bilinear
///   filtering near the edge mixes it in);
/// - `Clamp` (GL 1.x `CLAMP`, Wild Magic's `WM_CLAMP`; GL 1.4 §3.8.7): the *coordinate* is
///   clamped to [0, 1] first. With nearest filtering that is `clamp(⌊u·n⌋, 0, n − 1)`, the
///   same texel as `ClampToEdge`; with linear filtering the pair around `u·n − ½` at an edge
///   includes index −1 or n, which reads the border colour. So at `u ≤ 0` or `u ≥ 1` a
///   linear sample is half edge texel, half border, and the border fades in over the last
///   half texel (the seam GL 1.2 added `CLAMP_TO_EDGE` to avoid).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "trace", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "trace", serde(rename_all = "snake_case"))]
pub enum Wrap {
    /// Tile the texture.
    #[default]
    Repeat,
    /// Tile, flipping every other copy (an extension to the book, GL 1.4).
    MirroredRepeat,
    /// Clamp to the edge texels.
    ClampToEdge,
    /// Outside texels take the border colour.
    ClampToBorder,
    /// GL 1.x `CLAMP` / Wild Magic `WM_CLAMP`: the coordinate is clamped to [0, 1], then
    /// indices outside `0..n` read the border colour (so linear filtering mixes half of it
    /// in at the edges; nearest filtering never reads it).
    Clamp,
}

impl Wrap {
    /// The four modes of GL 1.4 and later (the goldens and fuzzers iterate these);
    /// [`Wrap::Clamp`], GL 1.x's legacy mode, is [`Wrap::ALL_WITH_CLAMP`]'s fifth.
    pub const ALL: [Wrap; 4] = [
        Wrap::Repeat,
        Wrap::MirroredRepeat,
        Wrap::ClampToEdge,
        Wrap::ClampToBorder,
    ];

    /// Every mode, [`Wrap::Clamp`] included.
    pub const ALL_WITH_CLAMP: [Wrap; 5] = [
        Wrap::Repeat,
        Wrap::MirroredRepeat,
        Wrap::ClampToEdge,
        Wrap::ClampToBorder,
        Wrap::Clamp,
    ];
}

/// How a texture is filtered and addressed. Plain data; build once per draw.
///
/// `Default` is [`Sampler::TRILINEAR`]: mag `Linear`, min `LinearMipmapLinear`, `Repeat` on
/// both axes, transparent black border, no bias, LOD range −1000..1000 (GL's), no anisotropy.
/// (GL's own default min filter is `NearestMipmapLinear` and the book's wrap is clamp-to-edge;
/// plumb's default is the filter a user most often wants.)
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "trace", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "trace", serde(deny_unknown_fields))]
pub struct Sampler {
    /// Filter when magnified (λ ≤ c, [`Sampler::switch_point`]).
    pub mag: MagFilter,
    /// Filter when minified (λ > c).
    pub min: MinFilter,
    /// Wrap along u (columns).
    pub wrap_u: Wrap,
    /// Wrap along v (rows).
    pub wrap_v: Wrap,
    /// Border colour for [`Wrap::ClampToBorder`] and [`Wrap::Clamp`], RGBA in 0..1; read through the texture's
    /// base format like a texel ([`TexelFormat::convert_border`](super::TexelFormat::convert_border)).
    pub border: Vec4,
    /// Added to λ before the clamps (GL `TEXTURE_LOD_BIAS`).
    pub lod_bias: f32,
    /// Lower clamp of λ (GL `TEXTURE_MIN_LOD`).
    pub min_lod: f32,
    /// Upper clamp of λ (GL `TEXTURE_MAX_LOD`); it wins if `min_lod > max_lod`.
    pub max_lod: f32,
    /// Maximum anisotropy: 1 = off, up to 16 (larger values act as 16, 0 as 1).
    pub max_anisotropy: u8,
}

impl Default for Sampler {
    fn default() -> Sampler {
        Sampler::TRILINEAR
    }
}

impl Sampler {
    /// Largest supported [`Sampler::max_anisotropy`].
    pub const MAX_ANISOTROPY: u8 = 16;

    const fn preset(mag: MagFilter, min: MinFilter) -> Sampler {
        Sampler {
            mag,
            min,
            wrap_u: Wrap::Repeat,
            wrap_v: Wrap::Repeat,
            border: Vec4::ZERO,
            lod_bias: 0.0,
            min_lod: -1000.0,
            max_lod: 1000.0,
            max_anisotropy: 1,
        }
    }

    /// Point sampling of level 0, repeat.
    pub const NEAREST: Sampler = Sampler::preset(MagFilter::Nearest, MinFilter::Nearest);
    /// Bilinear on level 0, repeat.
    pub const BILINEAR: Sampler = Sampler::preset(MagFilter::Linear, MinFilter::Linear);
    /// Nearest texel of the nearest mip level, repeat.
    pub const NEAREST_MIPMAP_NEAREST: Sampler =
        Sampler::preset(MagFilter::Nearest, MinFilter::NearestMipmapNearest);
    /// Bilinear within the nearest mip level, repeat.
    pub const BILINEAR_MIPMAP_NEAREST: Sampler =
        Sampler::preset(MagFilter::Linear, MinFilter::LinearMipmapNearest);
    /// Trilinear, repeat (the default).
    pub const TRILINEAR: Sampler =
        Sampler::preset(MagFilter::Linear, MinFilter::LinearMipmapLinear);
    /// Trilinear with 16× anisotropic filtering, repeat.
    pub const ANISOTROPIC_16X: Sampler = Sampler::TRILINEAR.with_anisotropy(16);

    /// The same sampler with both wrap modes set to `wrap`.
    #[inline]
    pub const fn with_wrap(mut self, wrap: Wrap) -> Sampler {
        self.wrap_u = wrap;
        self.wrap_v = wrap;
        self
    }

    /// The level of detail `c` at which the filter switches from `mag` to `min` (GL 1.4
    /// §3.8.8, "Texture Magnification"): `λ ≤ c` magnifies, `λ > c` minifies. `c = 0.5` when
    /// `mag` is `Linear` and `min` is `NearestMipmapNearest` or `NearestMipmapLinear`, else
    /// `c = 0`. (The spec's rule, so that a magnified linear image does not switch to a
    /// sharper nearest one just past λ = 0. Mesa switches at 0 for every pair.)
    #[inline]
    pub const fn switch_point(&self) -> f32 {
        match (self.mag, self.min) {
            (
                MagFilter::Linear,
                MinFilter::NearestMipmapNearest | MinFilter::NearestMipmapLinear,
            ) => 0.5,
            _ => 0.0,
        }
    }

    /// The same sampler with the given border colour.
    #[inline]
    pub const fn with_border(mut self, border: Vec4) -> Sampler {
        self.border = border;
        self
    }

    /// The same sampler with the given LOD bias.
    #[inline]
    pub const fn with_lod_bias(mut self, bias: f32) -> Sampler {
        self.lod_bias = bias;
        self
    }

    /// The same sampler with λ clamped to `min_lod..=max_lod`.
    #[inline]
    pub const fn with_lod_range(mut self, min_lod: f32, max_lod: f32) -> Sampler {
        self.min_lod = min_lod;
        self.max_lod = max_lod;
        self
    }

    /// The same sampler with the given maximum anisotropy (1 = off, 16 max).
    #[inline]
    pub const fn with_anisotropy(mut self, max_anisotropy: u8) -> Sampler {
        self.max_anisotropy = max_anisotropy;
        self
    }

    /// λ after bias and clamps: `min(max(λ_base + bias, min_lod), max_lod)`. A NaN input
    /// becomes `min_lod` (so it samples as magnified with the default range).
    #[inline]
    pub fn adjust_lod(&self, lambda_base: f32) -> f32 {
        // `f32::max`/`min` return the non-NaN operand, so this never panics or yields NaN
        // from NaN input (unlike `clamp`, which panics when min > max).
        (lambda_base + self.lod_bias)
            .max(self.min_lod)
            .min(self.max_lod)
    }

    /// The effective anisotropy limit, `1..=16`.
    #[inline]
    pub(crate) fn anisotropy(&self) -> u32 {
        u32::from(self.max_anisotropy.clamp(1, Sampler::MAX_ANISOTROPY))
    }
}

/// The base level of detail (before bias and clamps) for texel-space derivatives.
///
/// `size` is the base level's size in texels; `duv_dx`, `duv_dy` are the derivatives of the
/// (perspective-correct) texture coordinates per pixel along screen x and y. With
/// `a = duv_dx·size`, `b = duv_dy·size` (component-wise):
///
/// ```text
/// ρ = max(|a|, |b|),   λ = log2 ρ = ½·log2(max(|a|², |b|²))
/// ```
///
/// This is GL's reference ρ (the upper end of the conformance bracket), computed from squared
/// lengths so it needs one logarithm ([`crate::base::math::log2_lod`]) and no square root. Zero derivatives give `−∞`
/// (magnification).
///
/// ```
/// # use glam::Vec2;
/// // A 256² texture on a 64-pixel square: 4 texels per pixel, λ = 2.
/// let d = 1.0 / 64.0;
/// let l = plumb_raster::texture::lod(Vec2::splat(256.0), Vec2::new(d, 0.0), Vec2::new(0.0, d));
/// assert_eq!(l, 2.0);
/// ```
#[inline]
pub fn lod(size: Vec2, duv_dx: Vec2, duv_dy: Vec2) -> f32 {
    let a = duv_dx * size;
    let b = duv_dy * size;
    0.5 * math::log2_lod(a.length_squared().max(b.length_squared()))
}
