//! The only home of transcendental functions in plumb (DESIGN §4).
//!
//! `std`'s `sin`, `exp`, `powf`, … are allowed to differ between platforms and Rust versions
//! (they call the platform's libm or LLVM intrinsics). A reference renderer must give the same
//! bytes everywhere, so every such call in plumb goes through here, backed by the pure-Rust
//! [`libm`] crate, and `clippy.toml` bans the std versions elsewhere. Basic IEEE operations
//! (`+ − × ÷`, `sqrt`, `floor`, `abs`, `min`, `max`) are exactly rounded and may be used freely.

/// `x` clamped to [0, 1], **NaN → 0**: the one saturate of plumb (colour combine, lighting,
/// texture apply, and plumb-wgpu's packing of lights). Written with comparisons so NaN falls
/// through to 0 (`f32::clamp` would keep NaN). The lane form is `vec_lanes::sat`, with the
/// same rule.
#[inline(always)]
pub fn saturate(x: f32) -> f32 {
    if x > 0.0 {
        if x < 1.0 {
            x
        } else {
            1.0
        }
    } else {
        0.0
    }
}

/// [`saturate`] of each component.
#[inline]
pub fn saturate3(v: glam::Vec3) -> glam::Vec3 {
    glam::Vec3::new(saturate(v.x), saturate(v.y), saturate(v.z))
}

/// Sine of `x` (radians).
#[inline]
pub fn sin(x: f32) -> f32 {
    libm::sinf(x)
}

/// Cosine of `x` (radians).
#[inline]
pub fn cos(x: f32) -> f32 {
    libm::cosf(x)
}

/// `(sin x, cos x)`.
#[inline]
pub fn sin_cos(x: f32) -> (f32, f32) {
    libm::sincosf(x)
}

/// Tangent of `x` (radians).
#[inline]
pub fn tan(x: f32) -> f32 {
    libm::tanf(x)
}

/// Arc cosine, radians in `[0, π]`.
#[inline]
pub fn acos(x: f32) -> f32 {
    libm::acosf(x)
}

/// Arc sine, radians in `[−π/2, π/2]`.
#[inline]
pub fn asin(x: f32) -> f32 {
    libm::asinf(x)
}

/// Arc tangent, radians in `[−π/2, π/2]`.
#[inline]
pub fn atan(x: f32) -> f32 {
    libm::atanf(x)
}

/// Four-quadrant arc tangent of `y / x`.
#[inline]
pub fn atan2(y: f32, x: f32) -> f32 {
    libm::atan2f(y, x)
}

/// `e^x`.
#[inline]
pub fn exp(x: f32) -> f32 {
    libm::expf(x)
}

/// `2^x`.
#[inline]
pub fn exp2(x: f32) -> f32 {
    libm::exp2f(x)
}

/// Natural logarithm.
#[inline]
pub fn ln(x: f32) -> f32 {
    libm::logf(x)
}

/// Base-2 logarithm.
#[inline]
pub fn log2(x: f32) -> f32 {
    libm::log2f(x)
}

/// Base-2 logarithm for level-of-detail selection: a few IEEE operations instead of a libm
/// call, within 4·10⁻⁷·max(1, |log2 x|) of `log2`, **exact at powers of two** and `0` at `1`.
///
/// With `x = m·2^e`, `m ∈ [0.75, 1.5)`: `log2 x = e + (2/ln 2)·atanh(s)`, `s = (m−1)/(m+1)`
/// (`|s| < 0.2`), the series summed to `s⁷` in a fixed order. Zero, negative, subnormal,
/// infinite and NaN inputs go to [`log2`] (so `0 → −∞`, `−1 → NaN`, `∞ → ∞`).
#[inline]
pub fn log2_lod(x: f32) -> f32 {
    let bits = x.to_bits();
    // Normal, positive and finite: biased exponent in 1..=254, sign clear.
    if !(0x0080_0000..0x7F80_0000).contains(&bits) {
        return log2(x);
    }
    let mut e = ((bits >> 23) as i32) - 127;
    let mut mb = (bits & 0x007F_FFFF) | 0x3F80_0000; // m in [1, 2)
    if mb >= 0x3FC0_0000 {
        // m ≥ 1.5: use m/2 in [0.75, 1) and e + 1.
        mb -= 0x0080_0000;
        e += 1;
    }
    let m = f32::from_bits(mb);
    let s = (m - 1.0) / (m + 1.0);
    let s2 = s * s;
    // 2/ln 2 · (s + s³/3 + s⁵/5 + s⁷/7), Horner in s².
    const K: f32 = 2.0 / core::f32::consts::LN_2;
    let poly = ((s2 * (1.0 / 7.0) + 1.0 / 5.0) * s2 + 1.0 / 3.0) * s2 + 1.0;
    e as f32 + K * s * poly
}

/// The dot product of two 4-vectors in one fixed order on every platform:
/// `(a.x·b.x + a.z·b.z) + (a.y·b.y + a.w·b.w)`.
///
/// glam's `Vec4::dot` sums in a different order with SSE2, with Neon and in its scalar
/// fallback, so paths that reach pixels use this instead. The order is the one glam's SSE2
/// code uses, so x86-64 images did not change when this replaced it.
#[inline]
pub fn dot4(a: glam::Vec4, b: glam::Vec4) -> f32 {
    (a.x * b.x + a.z * b.z) + (a.y * b.y + a.w * b.w)
}

/// `x^y`.
#[inline]
pub fn powf(x: f32, y: f32) -> f32 {
    libm::powf(x, y)
}

/// Sine of `x` in double precision.
#[inline]
pub fn sin_f64(x: f64) -> f64 {
    libm::sin(x)
}

/// Cosine of `x` in double precision.
#[inline]
pub fn cos_f64(x: f64) -> f64 {
    libm::cos(x)
}

/// Degrees to radians (exact IEEE multiply, here for discoverability).
#[inline]
pub fn to_radians(deg: f32) -> f32 {
    deg * (core::f32::consts::PI / 180.0)
}

#[cfg(feature = "internal-tests")]
pub(crate) mod tests {
    /// Every test of this module: `tests/unit.rs` runs each as one trial (an unlisted
    /// test fails the build as dead code).
    pub(crate) const TESTS: &[(&str, fn())] = &[
        ("log2_lod_is_close_to_log2", log2_lod_is_close_to_log2),
        ("known_values", known_values),
    ];

    use super::*;

    /// |log2_lod(x) − log2(x)| / max(1, |log2 x|), against the f64 libm value.
    fn rel_err(x: f32) -> f64 {
        let exact = libm::log2(f64::from(x));
        (f64::from(log2_lod(x)) - exact).abs() / exact.abs().max(1.0)
    }

    fn log2_lod_is_close_to_log2() {
        // A dense sweep over [1/4, 4) and a coarse one over the whole normal range.
        let mut worst = 0.0f64;
        let mut x = 0.25f32;
        while x < 4.0 {
            worst = worst.max(rel_err(x));
            x = f32::from_bits(x.to_bits() + 97);
        }
        let mut x = f32::MIN_POSITIVE;
        while x < 1e38 {
            worst = worst.max(rel_err(x));
            x *= 1.37;
        }
        assert!(worst < 4e-7, "max relative error {worst}");
    }

    fn known_values() {
        assert_eq!(sin(0.0), 0.0);
        assert_eq!(cos(0.0), 1.0);
        assert_eq!(exp(0.0), 1.0);
        assert_eq!(log2(1024.0), 10.0);
        for e in -126..128 {
            let x = f32::from_bits(((e + 127) as u32) << 23);
            assert_eq!(log2_lod(x), e as f32, "2^{e}");
        }
        assert_eq!(log2_lod(0.0), f32::NEG_INFINITY);
        assert!(log2_lod(-1.0).is_nan() && log2_lod(f32::NAN).is_nan());
        assert_eq!(log2_lod(f32::INFINITY), f32::INFINITY);
        assert_eq!(exp2(3.0), 8.0);
        assert_eq!(powf(2.0, 10.0), 1024.0);
        assert!((tan(core::f32::consts::FRAC_PI_4) - 1.0).abs() < 1e-6);
        assert!((atan2(1.0, 1.0) - core::f32::consts::FRAC_PI_4).abs() < 1e-6);
    }
}
