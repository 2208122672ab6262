//! Textures: texels, mip chains, sampler state and pure sampling functions.
//!
//! Layers (STYLE §3): [`MipLevel`] holds one RGBA8 image; [`Texture`] holds a mip chain of
//! them; [`Sampler`] is plain filter/wrap/LOD state; [`Texture::sample_lod`] and
//! [`Texture::sample_grad`] are pure functions of the three.
//!
//! # Conventions
//!
//! - **Storage.** Every level is RGBA8 ([`TexelFormat`] lists the conversions at load). Row 0
//!   of the data is `v ∈ [0, 1/h)`: nothing is flipped. Texel bytes read as `c × (1/255)`
//!   (round-trips exactly through the framebuffer's `floor(x·255 + 0.5)`).
//! - **Texel centres** (OpenGL / D3D10, not the book's `u·(n−1)`): texel `i` of `n` covers
//!   `[i, i+1)/n`. Nearest reads texel `⌊u·n⌋`; linear filters around `u·n − 0.5`. Wrap modes
//!   act on the integer texel indices ([`Wrap`]).
//! - **Mip chain.** Floor halving down to 1×1 with the exact-area box filter of `mip` (the
//!   2×2 box `(a+b+c+d+2)/4` for even sizes; documented weights for odd sizes).
//! - **Level of detail.** `λ = log2 ρ`, `ρ = max(|∂uv/∂x·size|, |∂uv/∂y·size|)` ([`lod`]),
//!   then bias and min/max clamps ([`Sampler::adjust_lod`]); `λ ≤ c` magnifies, with the
//!   switch point `c` of GL 1.4 §3.8.8 ([`Sampler::switch_point`]): ½ for mag `Linear` with
//!   min `NearestMipmapNearest` / `NearestMipmapLinear`, else 0. Mesa uses 0 for every pair;
//!   plumb follows the spec.
//! - **Filtering** is 8-bit fixed point, as GPUs filter (Vulkan's `subTexelPrecisionBits`
//!   of 8) and llvmpipe does by default: each weight is `⌊256·α⌋` (at most 255), each lerp
//!   `(x·(256 − w) + y·w + 128) >> 8` on bytes — the two along u, the one along v, and the
//!   blend of two mip levels with the weight of `λ − ⌊λ⌋` — and the result's bytes read as
//!   `c × (1/255)`, like a texel. (Until issue 51 the lerps were `f32`.)
//! - **Border colour.** Read through the texture's base format like a texel (GL 2.1 §3.8.8;
//!   [`TexelFormat::convert_border`]): an `L8` border is `(r, r, r, 1)`, an `Rgb8` one is
//!   opaque. It enters the filter as a texel would, each channel rounded to a byte.
//! - **Limits.** Each side `1..=`[`MAX_TEXTURE_SIZE`], any size (non-power-of-two included).
//! - **Determinism.** Only IEEE `f32` and integer arithmetic and
//!   [`crate::base::math::log2_lod`]; no allocation while sampling.
//!
//! ```
//! use glam::{Vec2, Vec4};
//! use plumb_raster::texture::{Sampler, Texture};
//!
//! // 2×1 texture: black, white. Bilinear halfway between the two texel centres: weight 128,
//! // (0·128 + 255·128 + 128) >> 8 = 128 per colour channel.
//! let tex = Texture::from_rgba8(2, 1, vec![0, 0, 0, 255, 255, 255, 255, 255]).unwrap();
//! let c = tex.sample_lod(&Sampler::BILINEAR, Vec2::new(0.5, 0.5), 0.0);
//! let b = 128.0 * (1.0 / 255.0);
//! assert_eq!(c, Vec4::new(b, b, b, 1.0));
//! ```

mod chain;
mod filter;
mod image;
pub(crate) mod lanes;
mod mip;
mod sampler;
mod taps;

/// This module's unit tests, for [`crate::internal_tests`].
#[cfg(feature = "internal-tests")]
#[allow(
    clippy::type_complexity,
    reason = "the type of crate::UnitTests, spelled out: no import of the crate root"
)]
pub(crate) fn internal_tests() -> [(&'static str, &'static [(&'static str, fn())]); 5] {
    [
        ("texture::chain", chain::tests::TESTS),
        ("texture::filter", filter::tests::TESTS),
        ("texture::lanes", lanes::tests::TESTS),
        ("texture::mip", mip::tests::TESTS),
        ("texture::taps", taps::tests::TESTS),
    ]
}

pub use self::chain::Texture;
pub use self::image::{MipLevel, TexelFormat, MAX_TEXTURE_SIZE};
pub use self::sampler::{lod, MagFilter, MinFilter, Sampler, Wrap};
pub use self::taps::{Sample, Tap};
