//! Sub-pixel fixed point (16.8) and the coordinate limits that keep edge functions exact.
//!
//! Window coordinates are snapped to 1/256 pixel (`SUBPIXEL_BITS = 8`, as D3D11, Vulkan and
//! llvmpipe). Rounding is to nearest, ties away from zero (`f32::round`), applied once per
//! vertex, so two triangles sharing a vertex share its snapped position bit for bit.
//!
//! **Range derivation.** Geometry is clipped against a guard band so that every snapped
//! coordinate satisfies `|c| ≤ GUARD_BAND_PX` = 2¹⁵ pixels, i.e. `|c·256| ≤ 2²³`.
//! Edge deltas are then at most 2²⁴ in magnitude, each product in an edge function at most
//! 2⁴⁸, and an edge function value (a difference of two products, plus a per-pixel step of
//! at most 2²⁴·2⁸·2¹⁴) stays below 2⁵⁰ — far inside `i64`. Nothing here can overflow, and
//! `debug_assert!`s check the assumed ranges.

use fearless_simd::{f32x8, i32x8, mask32x8, prelude::*};

/// Number of fractional bits of a snapped window coordinate.
pub const SUBPIXEL_BITS: u32 = 8;
/// One pixel in fixed-point units.
pub const SUBPIXEL_ONE: i32 = 1 << SUBPIXEL_BITS;
/// Half a pixel in fixed-point units: pixel centres sit at `x·256 + 128`.
pub const SUBPIXEL_HALF: i32 = SUBPIXEL_ONE / 2;
/// Largest magnitude of a window coordinate (pixels) after guard-band clipping.
pub const GUARD_BAND_PX: f32 = 32768.0;
/// Extra room (pixels) past the guard band that [`Fixed::snap`] accepts: line and point quads
/// are built around clipped vertices. Keeps `|coordinate| < 2¹⁶` pixels, inside the range
/// derived above.
pub const SNAP_SLACK_PX: f32 = 2048.0;

/// `x.round() as i32` (nearest, ties away from zero) for finite `|x| < 2²⁴`, without the
/// `roundf` library call baseline x86-64 makes for `f32::round`. Exact: the truncation
/// `t` and the fraction `x − t` are representable, so the comparison with ½ decides the
/// same way `round` does.
#[inline]
pub(crate) fn round_ties_away(x: f32) -> i32 {
    debug_assert!(x.abs() < 16_777_216.0, "{x}");
    let t = x as i32;
    let f = x - t as f32;
    t + i32::from(f >= 0.5) - i32::from(f <= -0.5)
}

/// [`Fixed::snap`] without a branch, for lanes: whether `v` snaps, and its snapped value (0
/// when it does not).
#[inline(always)]
pub(crate) fn snap_parts(v: f32) -> (bool, i32) {
    let ok = v.is_finite() & (v.abs() <= GUARD_BAND_PX + SNAP_SLACK_PX);
    let s = if ok { v * SUBPIXEL_ONE as f32 } else { 0.0 };
    (ok, round_ties_away(s))
}

/// [`snap_parts`] of eight values, in lanes: whether each snaps, and its snapped value (0
/// when it does not). The same expressions per lane: `|v| ≤ bound` is false for NaN and
/// ±∞ (so it is the finite test as well), and the truncation is `cvt_i32`, exact for every
/// value that snaps (below 2²⁴ in magnitude) where the scalar `as i32` also saturates.
#[inline(always)]
pub(crate) fn snap_lanes<S: Simd>(simd: S, v: f32x8<S>) -> (mask32x8<S>, i32x8<S>) {
    let ok = v
        .abs()
        .simd_le(simd.splat_f32x8(GUARD_BAND_PX + SNAP_SLACK_PX));
    let zero = simd.splat_f32x8(0.0);
    let s = ok.select(v * SUBPIXEL_ONE as f32, zero);
    // `round_ties_away`.
    let t = simd.cvt_i32_f32x8(s);
    let f = s - simd.cvt_f32_i32x8(t);
    let (one, none) = (simd.splat_i32x8(1), simd.splat_i32x8(0));
    let up = f.simd_ge(simd.splat_f32x8(0.5)).select(one, none);
    let down = f.simd_le(simd.splat_f32x8(-0.5)).select(one, none);
    (ok, t + up - down)
}

/// A snapped window coordinate in 16.8 fixed point.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Fixed(pub i32);

impl Fixed {
    /// Snaps a window coordinate (pixels) to the nearest 1/256 (ties away from zero): the
    /// pipeline's one snap, for triangles, lines, points and screen polygons alike.
    ///
    /// Returns `None` when the value is not finite or lies outside the guard band plus
    /// [`SNAP_SLACK_PX`].
    #[inline]
    pub fn snap(v: f32) -> Option<Fixed> {
        let (ok, s) = snap_parts(v);
        ok.then_some(Fixed(s))
    }

    /// The coordinate as pixels (exact: 24-bit values are representable in `f32`).
    #[inline]
    pub fn to_f32(self) -> f32 {
        self.0 as f32 * (1.0 / SUBPIXEL_ONE as f32)
    }

    /// Smallest pixel index whose centre is at or to the right of/below this coordinate.
    #[inline]
    pub fn ceil_pixel_centre(self) -> i32 {
        // centre of pixel p is p*256+128 ≥ v  ⇔  p ≥ (v − 128)/256
        (self.0 - SUBPIXEL_HALF + SUBPIXEL_ONE - 1).div_euclid(SUBPIXEL_ONE)
    }

    /// Largest pixel index whose centre is at or to the left of/above this coordinate.
    #[inline]
    pub fn floor_pixel_centre(self) -> i32 {
        (self.0 - SUBPIXEL_HALF).div_euclid(SUBPIXEL_ONE)
    }
}

/// An edge function `E(p) = dx·(p.y − a.y) − dy·(p.x − a.x) + bias` over fixed-point
/// coordinates, for the directed edge `a → b` with `(dx, dy) = b − a`.
///
/// With window y pointing down and triangles oriented so that `area2 > 0`, interior points
/// have `E > 0`. The **top-left rule** is folded into `bias`: a pixel centre exactly on an
/// edge (`E = 0`) is inside only for a *top* edge (horizontal, interior below: `dy = 0,
/// dx > 0`) or a *left* edge (`dy < 0`); other edges get `bias = −1`, so the inside test is
/// always `E ≥ 0` in integers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Edge {
    /// `b.x − a.x` in fixed point.
    pub dx: i64,
    /// `b.y − a.y` in fixed point.
    pub dy: i64,
    /// Start point x.
    pub ax: i64,
    /// Start point y.
    pub ay: i64,
    /// 0 for top/left edges, −1 otherwise.
    pub bias: i64,
}

impl Edge {
    /// The directed edge from `a` to `b` (fixed-point points).
    #[inline]
    pub fn new(a: (Fixed, Fixed), b: (Fixed, Fixed)) -> Edge {
        let dx = i64::from(b.0 .0) - i64::from(a.0 .0);
        let dy = i64::from(b.1 .0) - i64::from(a.1 .0);
        Edge {
            dx,
            dy,
            ax: i64::from(a.0 .0),
            ay: i64::from(a.1 .0),
            bias: if is_top_left(dx > 0, dy < 0, dy == 0) {
                0
            } else {
                -1
            },
        }
    }

    /// The biased edge value at the centre of pixel `(x, y)`; inside when `≥ 0`.
    #[inline]
    pub fn at_pixel(&self, x: i32, y: i32) -> i64 {
        let px = i64::from(x) * i64::from(SUBPIXEL_ONE) + i64::from(SUBPIXEL_HALF);
        let py = i64::from(y) * i64::from(SUBPIXEL_ONE) + i64::from(SUBPIXEL_HALF);
        self.dx * (py - self.ay) - self.dy * (px - self.ax) + self.bias
    }

    /// Change of [`Edge::at_pixel`] for one pixel step in +x.
    #[inline]
    pub fn step_x(&self) -> i64 {
        -self.dy * i64::from(SUBPIXEL_ONE)
    }

    /// Change of [`Edge::at_pixel`] for one pixel step in +y.
    #[inline]
    pub fn step_y(&self) -> i64 {
        self.dx * i64::from(SUBPIXEL_ONE)
    }
}

/// The top-left rule, from the signs of an edge's deltas: a top edge (`dy = 0, dx > 0`) or
/// a left edge (`dy < 0`).
#[inline]
fn is_top_left(dx_pos: bool, dy_neg: bool, dy_zero: bool) -> bool {
    dy_neg || (dy_zero && dx_pos)
}

/// [`Edge`] in `i32`, for a triangle small enough that every value its caller evaluates
/// fits (set-up checks the extent, `setup::lane_edges`): the same edge, bias and values, in
/// half the width. Held as the plane `E(x, y) = c + x·step_x + y·step_y` over pixel indices,
/// its constant folded once when the triangle is set up, so the tile walk evaluates an edge
/// with two multiplies and two adds. The arithmetic wraps: it is exact modulo 2³², so the
/// value is [`Edge::at_pixel`]'s wherever that fits `i32`, whatever the constant's size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Edge32 {
    c: i32,
    step_x: i32,
    step_y: i32,
}

impl Edge32 {
    /// The directed edge from `a` to `b` (fixed-point points within the guard band, so
    /// their differences fit).
    #[inline]
    pub fn new(a: (i32, i32), b: (i32, i32)) -> Edge32 {
        let (dx, dy) = (b.0 - a.0, b.1 - a.1);
        let bias = if is_top_left(dx > 0, dy < 0, dy == 0) {
            0
        } else {
            -1
        };
        // `dx·(256y + 128 − ay) − dy·(256x + 128 − ax) + bias`, the terms in x and y apart.
        let cy = dx.wrapping_mul(SUBPIXEL_HALF.wrapping_sub(a.1));
        let cx = dy.wrapping_mul(SUBPIXEL_HALF.wrapping_sub(a.0));
        Edge32 {
            c: cy.wrapping_sub(cx).wrapping_add(bias),
            step_x: dy.wrapping_mul(-SUBPIXEL_ONE),
            step_y: dx.wrapping_mul(SUBPIXEL_ONE),
        }
    }

    /// [`Edge::at_pixel`].
    #[inline]
    pub fn at_pixel(&self, x: i32, y: i32) -> i32 {
        let e = self.c.wrapping_add(x.wrapping_mul(self.step_x));
        e.wrapping_add(y.wrapping_mul(self.step_y))
    }

    /// [`Edge::step_x`].
    #[inline]
    pub fn step_x(&self) -> i32 {
        self.step_x
    }

    /// [`Edge::step_y`].
    #[inline]
    pub fn step_y(&self) -> i32 {
        self.step_y
    }
}

/// The range `[lo, hi)` of `i` in `[0, n)` with `c + i·s ≥ 0`, computed exactly.
#[inline]
pub fn half_line_span(c: i64, s: i64, n: i64) -> (i64, i64) {
    if s == 0 {
        if c >= 0 {
            (0, n)
        } else {
            (0, 0)
        }
    } else if s > 0 {
        // i ≥ ceil(−c / s)
        let lo = if c >= 0 { 0 } else { (-c + s - 1) / s };
        (lo.min(n), n)
    } else {
        // i ≤ floor(c / −s)
        if c < 0 {
            (0, 0)
        } else {
            (0, (c / -s + 1).min(n))
        }
    }
}

#[cfg(feature = "internal-tests")]
pub(crate) mod tests {
    /// Every test of this module: `tests/unit.rs` runs each as one trial (an unlisted
    /// test fails the build as dead code).
    pub(crate) const TESTS: &[(&str, fn())] = &[
        ("round_ties_away_is_f32_round", round_ties_away_is_f32_round),
        (
            "snap_rounds_to_nearest_sub_pixel",
            snap_rounds_to_nearest_sub_pixel,
        ),
        ("pixel_centre_bounds", pixel_centre_bounds),
        ("edge32_is_edge", edge32_is_edge),
        (
            "half_line_span_matches_brute_force",
            half_line_span_matches_brute_force,
        ),
    ];

    use super::*;

    fn round_ties_away_is_f32_round() {
        let check = |x: f32| assert_eq!(round_ties_away(x), x.round() as i32, "{x:e}");
        // Every tie k + ½ and its float neighbours, both signs, up to 2¹⁶; then a strided
        // sweep of all bit patterns below 2²⁴.
        for k in 0..65_536 {
            let tie = k as f32 + 0.5;
            for x in [
                f32::from_bits(tie.to_bits() - 1),
                tie,
                f32::from_bits(tie.to_bits() + 1),
            ] {
                check(x);
                check(-x);
            }
        }
        for bits in (0..16_777_216f32.to_bits()).step_by(997) {
            let x = f32::from_bits(bits);
            check(x);
            check(-x);
        }
    }

    fn snap_rounds_to_nearest_sub_pixel() {
        assert_eq!(Fixed::snap(1.0), Some(Fixed(256)));
        assert_eq!(Fixed::snap(0.5 / 256.0), Some(Fixed(1)));
        assert_eq!(Fixed::snap(-0.5 / 256.0), Some(Fixed(-1)));
        assert_eq!(Fixed::snap(f32::NAN), None);
        assert_eq!(Fixed::snap(1e9), None);
        // The one snap's range: the guard band plus the slack for line and point quads.
        let edge = GUARD_BAND_PX + SNAP_SLACK_PX;
        assert_eq!(
            Fixed::snap(-edge),
            Some(Fixed(-(edge as i32) * SUBPIXEL_ONE))
        );
        assert_eq!(Fixed::snap(edge.next_up()), None);
    }

    fn pixel_centre_bounds() {
        // 0.5 px is exactly the centre of pixel 0
        assert_eq!(Fixed(128).ceil_pixel_centre(), 0);
        assert_eq!(Fixed(129).ceil_pixel_centre(), 1);
        assert_eq!(Fixed(128).floor_pixel_centre(), 0);
        assert_eq!(Fixed(127).floor_pixel_centre(), -1);
        assert_eq!(Fixed(-128).floor_pixel_centre(), -1);
    }

    /// `Edge32` is `Edge` in `i32`: same values (bias included) and steps wherever the
    /// values fit, far from the origin too (its constant wraps).
    fn edge32_is_edge() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = |m: i32| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed >> 33) as i32 % m
        };
        for _ in 0..100_000 {
            let base = (next(1 << 22) - (1 << 21), next(1 << 22) - (1 << 21));
            let a = (base.0 + next(1 << 13), base.1 + next(1 << 13));
            let b = (base.0 + next(1 << 13), base.1 + next(1 << 13));
            let e = Edge::new((Fixed(a.0), Fixed(a.1)), (Fixed(b.0), Fixed(b.1)));
            let f = Edge32::new(a, b);
            assert_eq!(i64::from(f.step_x()), e.step_x());
            assert_eq!(i64::from(f.step_y()), e.step_y());
            let (x, y) = ((base.0 >> 8) + next(40), (base.1 >> 8) + next(40));
            assert_eq!(
                i64::from(f.at_pixel(x, y)),
                e.at_pixel(x, y),
                "{a:?} {b:?} {x} {y}"
            );
        }
        // The four axis directions and the degenerate edge.
        for (dx, dy) in [(5, 0), (-5, 0), (0, 5), (0, -5), (0, 0)] {
            let e = Edge::new((Fixed(0), Fixed(0)), (Fixed(dx), Fixed(dy)));
            let f = Edge32::new((0, 0), (dx, dy));
            assert_eq!(i64::from(f.at_pixel(0, 0)), e.at_pixel(0, 0), "{dx} {dy}");
        }
    }

    fn half_line_span_matches_brute_force() {
        for c in -40..40 {
            for s in -7..8 {
                let (lo, hi) = half_line_span(c, s, 10);
                for i in 0..10 {
                    let inside = c + i * s >= 0;
                    assert_eq!(inside, i >= lo && i < hi, "c={c} s={s} i={i}");
                }
            }
        }
    }
}
