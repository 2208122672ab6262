//! The only home of transcendental functions in plumb (DESIGN §4).
//!
//! `std`'s `sin`, `exp`, `powf`, … are allowed to differ between platforms and Rust versions
//! (they call the platform's libm or LLVM intrinsics). A reference renderer must give the same
//! bytes everywhere, so every such call in plumb goes through here, backed by the pure-Rust
//! [`libm`] crate, and `clippy.toml` bans the std versions elsewhere. Basic IEEE operations
//! (`+ − × ÷`, `sqrt`, `floor`, `abs`, `min`, `max`) are exactly rounded and may be used freely.

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_values() {
        assert_eq!(sin(0.0), 0.0);
        assert_eq!(cos(0.0), 1.0);
        assert_eq!(exp(0.0), 1.0);
        assert_eq!(log2(1024.0), 10.0);
        assert_eq!(exp2(3.0), 8.0);
        assert_eq!(powf(2.0, 10.0), 1024.0);
        assert!((tan(core::f32::consts::FRAC_PI_4) - 1.0).abs() < 1e-6);
        assert!((atan2(1.0, 1.0) - core::f32::consts::FRAC_PI_4).abs() < 1e-6);
    }
}
