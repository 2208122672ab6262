//! Eight vectors at a time: the glam and [`crate::base::math`] operations the vertex stage and
//! the lighting equation use, on structure-of-arrays lanes (`[f32x8; 3]` is eight 3-vectors).
//!
//! Every function computes, in every lane, exactly the scalar expression it names — the same
//! IEEE operations on the same operands in the same order (glam's, as written in its source
//! for the x86-64 build plumb's scalar paths use) — so the lanes give the scalar bits at every
//! SIMD level. No fused multiply-add, no approximate reciprocal or square root.
//!
//! No closures here or in the kernels that use these: a closure is not compiled with the
//! dispatching function's target features, so the `fearless_simd` operations inside it stay
//! out-of-line calls (measured: the vertex stage spent 2 % of a frame in calls to `mul`).

use fearless_simd::{f32x8, mask32x8, prelude::*};
use glam::{Mat3, Mat4, Vec3, Vec4};

/// Lanes per step.
pub(crate) const LANES: usize = 8;

/// Whether `simd`'s `max(x, y)` and `min(x, y)` are x86's `maxps` / `minps` on `(x, y)`
/// (`fearless_simd` 1.2 at SSE2, SSE4.2, AVX2 and AVX-512, in that operand order), which
/// return `y` unless `x` is greater (less): exactly `x > y ? x : y` (`x < y ? x : y`) in
/// every case, NaN in either operand and zeros of either sign included. One instruction
/// where the compare-and-select is two. A constant once inlined.
#[inline(always)]
pub(crate) fn x86_minmax<S: Simd>(simd: S) -> bool {
    #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
    {
        use fearless_simd::Level;
        matches!(
            simd.level(),
            Level::Sse2(_) | Level::Sse4_2(_) | Level::Avx2(_) | Level::Avx512(_)
        )
    }
    #[cfg(not(any(target_arch = "x86", target_arch = "x86_64")))]
    {
        let _ = simd;
        false
    }
}

/// `x > y ? x : y` per lane: `f32::max(x, y)` for a non-NaN `y` (NaN in `x` gives `y`).
#[inline(always)]
pub(crate) fn max_or<S: Simd>(x: f32x8<S>, y: f32x8<S>) -> f32x8<S> {
    if x86_minmax(x.simd) {
        x.max(y)
    } else {
        x.simd_gt(y).select(x, y)
    }
}

/// `x < y ? x : y` per lane: `f32::min(x, y)` for a non-NaN `y`.
#[inline(always)]
pub(crate) fn min_or<S: Simd>(x: f32x8<S>, y: f32x8<S>) -> f32x8<S> {
    if x86_minmax(x.simd) {
        x.min(y)
    } else {
        x.simd_lt(y).select(x, y)
    }
}

/// Eight 3-vectors: x, y and z lanes.
pub(crate) type V3<S> = [f32x8<S>; 3];
/// Eight 4-vectors: x, y, z and w lanes.
pub(crate) type V4<S> = [f32x8<S>; 4];

/// `v` in every lane.
#[inline(always)]
pub(crate) fn splat3<S: Simd>(simd: S, v: Vec3) -> V3<S> {
    [
        simd.splat_f32x8(v.x),
        simd.splat_f32x8(v.y),
        simd.splat_f32x8(v.z),
    ]
}

/// Loads eight vectors' lanes from `[x, y, z]` arrays.
#[inline(always)]
pub(crate) fn load3<S: Simd>(simd: S, a: &[[f32; LANES]; 3]) -> V3<S> {
    [
        f32x8::from_slice(simd, &a[0]),
        f32x8::from_slice(simd, &a[1]),
        f32x8::from_slice(simd, &a[2]),
    ]
}

/// `a + b` (glam `Vec3 + Vec3`).
#[inline(always)]
pub(crate) fn add3<S: Simd>(a: V3<S>, b: V3<S>) -> V3<S> {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}

/// `a − b`.
#[inline(always)]
pub(crate) fn sub3<S: Simd>(a: V3<S>, b: V3<S>) -> V3<S> {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

/// `a ∘ b` (glam `Vec3 * Vec3`).
#[inline(always)]
pub(crate) fn mul3<S: Simd>(a: V3<S>, b: V3<S>) -> V3<S> {
    [a[0] * b[0], a[1] * b[1], a[2] * b[2]]
}

/// `s · v` (glam `f32 * Vec3`: each component `s * v.c`).
#[inline(always)]
pub(crate) fn scale3<S: Simd>(s: f32x8<S>, v: V3<S>) -> V3<S> {
    [s * v[0], s * v[1], s * v[2]]
}

/// `−v` (sign flips, as scalar negation).
#[inline(always)]
pub(crate) fn neg3<S: Simd>(v: V3<S>) -> V3<S> {
    [-v[0], -v[1], -v[2]]
}

/// `m ? a : b` per lane.
#[inline(always)]
pub(crate) fn select3<S: Simd>(m: mask32x8<S>, a: V3<S>, b: V3<S>) -> V3<S> {
    [
        m.select(a[0], b[0]),
        m.select(a[1], b[1]),
        m.select(a[2], b[2]),
    ]
}

/// glam `Vec3::dot`: `(a.x·b.x + a.y·b.y) + a.z·b.z`.
#[inline(always)]
pub(crate) fn dot3<S: Simd>(a: V3<S>, b: V3<S>) -> f32x8<S> {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// glam `Vec3::length`: `sqrt(v·v)`.
#[inline(always)]
pub(crate) fn length3<S: Simd>(v: V3<S>) -> f32x8<S> {
    dot3(v, v).sqrt()
}

/// glam `Vec3::normalize_or_zero`: `r = 1 / |v|`; `v · r` where `r` is finite and positive,
/// else zero.
#[inline(always)]
pub(crate) fn normalize_or_zero3<S: Simd>(simd: S, v: V3<S>) -> V3<S> {
    let zero = simd.splat_f32x8(0.0);
    let r = simd.splat_f32x8(1.0) / length3(v);
    // `r > 0` excludes NaN and −∞, `r < ∞` excludes +∞: `is_finite() && r > 0`.
    let ok = r.simd_gt(zero) & r.simd_lt(simd.splat_f32x8(f32::INFINITY));
    [
        ok.select(v[0] * r, zero),
        ok.select(v[1] * r, zero),
        ok.select(v[2] * r, zero),
    ]
}

/// [`math::saturate`](crate::base::math::saturate) per lane: `x > 0 ? (x < 1 ? x : 1) : 0` (NaN → 0).
#[inline(always)]
pub(crate) fn sat<S: Simd>(simd: S, x: f32x8<S>) -> f32x8<S> {
    let zero = simd.splat_f32x8(0.0);
    let one = simd.splat_f32x8(1.0);
    let x = x.simd_gt(zero).select(x, zero);
    x.simd_lt(one).select(x, one)
}

/// `sat` of each component.
#[inline(always)]
pub(crate) fn sat3<S: Simd>(simd: S, v: V3<S>) -> V3<S> {
    [sat(simd, v[0]), sat(simd, v[1]), sat(simd, v[2])]
}

/// `col[0]·v[0] + col[1]·v[1] + col[2]·v[2]` for one row, in that order.
#[inline(always)]
fn row3<S: Simd>(simd: S, c: [f32; 3], v: V3<S>) -> f32x8<S> {
    simd.splat_f32x8(c[0]) * v[0] + simd.splat_f32x8(c[1]) * v[1] + simd.splat_f32x8(c[2]) * v[2]
}

/// glam `Mat3 * Vec3`: `res = c0·x; res = res + c1·y; res = res + c2·z` per component.
#[inline(always)]
pub(crate) fn mat3_mul<S: Simd>(simd: S, m: &Mat3, v: V3<S>) -> V3<S> {
    let (a, b, c) = (m.x_axis, m.y_axis, m.z_axis);
    [
        row3(simd, [a.x, b.x, c.x], v),
        row3(simd, [a.y, b.y, c.y], v),
        row3(simd, [a.z, b.z, c.z], v),
    ]
}

/// `((c0·x + c1·y) + c2·z) + c3·w` for one row.
#[inline(always)]
fn row4<S: Simd>(simd: S, c: Vec4, v: V4<S>) -> f32x8<S> {
    row3(simd, [c.x, c.y, c.z], [v[0], v[1], v[2]]) + simd.splat_f32x8(c.w) * v[3]
}

/// glam `Mat4 * Vec4`: `res = c0·x; res = res + c1·y; res = res + c2·z; res = res + c3·w`.
#[inline(always)]
pub(crate) fn mat4_mul<S: Simd>(simd: S, m: &Mat4, v: V4<S>) -> V4<S> {
    let t = m.transpose();
    [
        row4(simd, t.x_axis, v),
        row4(simd, t.y_axis, v),
        row4(simd, t.z_axis, v),
        row4(simd, t.w_axis, v),
    ]
}

/// One row of `transform_point3`: `c3 + (c2·z + (c1·y + c0·x))`.
#[inline(always)]
fn point_row<S: Simd>(simd: S, c: Vec4, p: V3<S>) -> f32x8<S> {
    let res = simd.splat_f32x8(c.x) * p[0];
    let res = simd.splat_f32x8(c.y) * p[1] + res;
    let res = simd.splat_f32x8(c.z) * p[2] + res;
    simd.splat_f32x8(c.w) + res
}

/// glam `Mat4::transform_point3`: `res = c0·x; res = c1·y + res; res = c2·z + res;
/// res = c3 + res`, the x, y and z components.
#[inline(always)]
pub(crate) fn mat4_transform_point3<S: Simd>(simd: S, m: &Mat4, p: V3<S>) -> V3<S> {
    let t = m.transpose();
    [
        point_row(simd, t.x_axis, p),
        point_row(simd, t.y_axis, p),
        point_row(simd, t.z_axis, p),
    ]
}

/// [`crate::base::math::dot4`] of a constant plane with eight points:
/// `(a.x·b.x + a.z·b.z) + (a.y·b.y + a.w·b.w)`.
#[inline(always)]
pub(crate) fn dot4_plane<S: Simd>(simd: S, a: Vec4, b: V4<S>) -> f32x8<S> {
    (simd.splat_f32x8(a.x) * b[0] + simd.splat_f32x8(a.z) * b[2])
        + (simd.splat_f32x8(a.y) * b[1] + simd.splat_f32x8(a.w) * b[3])
}

/// `f(x)` for each lane of `x`, by the scalar function (the transcendental functions of
/// [`crate::base::math`], `clamp` with its NaN rule).
#[inline(always)]
pub(crate) fn per_lane<S: Simd>(simd: S, x: f32x8<S>, f: impl Fn(f32) -> f32) -> f32x8<S> {
    let a: [f32; LANES] = x.into();
    f32x8::from_slice(simd, &a.map(f))
}
