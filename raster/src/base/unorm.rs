//! The colour storage rule, both ways: a fragment's `f32` channel to the framebuffer's byte
//! ([`to_unorm8`], GL's `floor(clamp(x, 0, 1)·255 + 0.5)`) and a stored byte back to `f32`
//! — two rules, each defined here once: the blend's destination reads `c / 255`, correctly
//! rounded ([`from_unorm8`]); texels read `c × INV_255` ([`texel_to_f32`], the cheaper
//! product the sampler's lanes compute; the sampler's filtered bytes read the same way).
//! They differ by one ulp for 126 of the 256 bytes, and unifying them changes pixels
//! (`json/transparent_sorted` of the conformance corpus). The lanes kernels compute the same
//! expressions per lane.

/// `1/255` as the nearest `f32`. A texel byte `c` reads as `c × INV_255` (within one ulp of
/// `c / 255`), which converts back to exactly `c` through [`to_unorm8`].
pub(crate) const INV_255: f32 = 1.0 / 255.0;

/// A framebuffer byte as `f32` (the blend's destination): `c / 255`, correctly rounded.
#[inline(always)]
pub(crate) fn from_unorm8(c: u8) -> f32 {
    f32::from(c) / 255.0
}

/// A texel byte as `f32`: `c × INV_255`.
#[inline(always)]
pub(crate) fn texel_to_f32(c: u8) -> f32 {
    f32::from(c) * INV_255
}

/// The scalar definition the pack kernels (`fragment::lanes::unorm8` and its wide forms)
/// compute per lane: `floor(clamp(x, 0, 1)·255 + 0.5)`; NaN maps to 0.
#[inline(always)]
pub(crate) fn to_unorm8(x: f32) -> u8 {
    unorm8_u32(x) as u8
}

/// [`to_unorm8`] as a `u32`, in operations that vectorise (a float-to-int `as` cast does not,
/// on baseline x86-64: it becomes one scalar conversion per lane).
///
/// A NaN fails `x > 0` and becomes 0. Then `y = x·255 + 0.5 ∈ [0.5,
/// 255.5]`; adding 2²³ rounds it to an integer `r = round(y)` held in the mantissa bits, and
/// `⌊y⌋ = r − [r > y]`. Every step is exact, so this equals `⌊y⌋` bit for bit.
#[inline(always)]
pub(crate) fn unorm8_u32(x: f32) -> u32 {
    const MAGIC: f32 = 8_388_608.0; // 2²³
                                    // Selects rather than `max`/`min` (whose NaN rules keep SSE2 from vectorising them).
    let x = if x > 0.0 { x } else { 0.0 };
    let x = if x < 1.0 { x } else { 1.0 };
    let y = x * 255.0 + 0.5;
    let z = y + MAGIC;
    let r = z.to_bits() & 0x007F_FFFF;
    // r ≥ 1 whenever r > y ≥ ½, so this never wraps; `wrapping_sub` only spares the overflow
    // check, which would keep the loop from vectorising.
    r.wrapping_sub(u32::from(z - MAGIC > y))
}
