//! The fragment path's own lanes kernels, 8 lanes at a time, generic over the SIMD level:
//! pixel offsets, coverage masks, plane interpolation, the depth and alpha tests, the
//! RGBA8 pack and the masked store.
//!
//! Masks are lanes from the coverage to the store: `i32` per pixel, `−1` live and `0`
//! dead (`Scratch::mask`), loaded as `mask32x8` vectors. Every kernel computes exactly the
//! scalar definition it names in every lane (the same IEEE operations in the same order,
//! compare-and-select where the scalar code's `max`/`min` meet NaN), so every level gives
//! the bits of the scalar path (`tests` holds each level to one expectation).
//!
//! Batches are `np` pixels, `np` a multiple of [`LANES`] (at most one tile row). Lanes past
//! a batch's real pixels compute on stale but harmless values with their mask clear; the
//! target slices (`depth`, `color`) may be shorter than `np`, and their last partial group
//! goes through a small copy so nothing past their end is read or written.

#[cfg(all(any(target_arch = "x86", target_arch = "x86_64"), not(plumb_no_avx512)))]
use fearless_simd::{f32x16, i32x16};
use fearless_simd::{f32x8, i32x8, mask32x8, prelude::*, u32x8, u8x32};

use crate::base::vec_lanes::{max_or, min_or, LANES};

const IOTA: [f32; LANES] = [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0];
const IOTA_I: [i32; LANES] = [0, 1, 2, 3, 4, 5, 6, 7];

/// A mask as stored in `Scratch::mask` (one `i32` per pixel: −1 live, 0 dead).
#[inline(always)]
pub(crate) fn load_mask<S: Simd>(simd: S, m: &[i32]) -> mask32x8<S> {
    simd.from_vector_mask32x8(i32x8::from_slice(simd, &m[..LANES]))
}

#[inline(always)]
pub(crate) fn store_mask<S: Simd>(simd: S, m: mask32x8<S>, out: &mut [i32]) {
    simd.to_vector_mask32x8(m).store_slice(&mut out[..LANES]);
}

/// `dx[i] = bx + i` for a row span (exact: see `RowSpan::offsets`), and
/// `mask[i] = i < live`, over `dx.len()` pixels (a multiple of [`LANES`]).
#[inline(always)]
pub(crate) fn row_offsets<S: Simd>(
    simd: S,
    bx: f32,
    live: usize,
    dx: &mut [f32],
    mask: &mut [i32],
) {
    let iota = f32x8::from_slice(simd, &IOTA);
    let bxv = simd.splat_f32x8(bx);
    for (k, d) in dx.chunks_exact_mut(LANES).enumerate() {
        let i = iota + (k * LANES) as f32;
        (bxv + i).store_slice(d);
    }
    coverage(simd, live, mask);
}

/// `mask[i] = i < live ? −1 : 0` over `mask.len()` pixels (a multiple of [`LANES`]).
#[inline(always)]
pub(crate) fn coverage<S: Simd>(simd: S, live: usize, mask: &mut [i32]) {
    let iota = i32x8::from_slice(simd, &IOTA_I);
    let live = simd.splat_i32x8(live as i32);
    for (k, m) in mask.chunks_exact_mut(LANES).enumerate() {
        let i = iota + (k * LANES) as i32;
        store_mask(simd, i.simd_lt(live), m);
    }
}

/// How a plane's value is finished per pixel .
#[derive(Clone, Copy)]
pub(crate) enum Finish<'a> {
    /// Depth: `v.max(zmin).min(zmax)` (NaN → `zmin`).
    Depth(f32, f32),
    /// `1/w`'s reciprocal: `1 / v`.
    Recip,
    /// Perspective correction: `v · w[i]`.
    Persp(&'a [f32]),
}

/// `out[i] = finish((a₀ + ∂y·dy[i]) + ∂x·dx[i])` for the plane `a = [a₀, ∂x, ∂y]`, the
/// row sum first (hoisted with `ROW`, where every `dy[i]` is `dy[0]`), so a row span and
/// a block give the same bits. `out.len()` is a multiple of [`LANES`].
#[inline(always)]
pub(crate) fn plane<S: Simd, const ROW: bool>(
    simd: S,
    a: &[f32],
    (dx, dy): (&[f32], &[f32]),
    out: &mut [f32],
    finish: Finish<'_>,
) {
    let n = out.len();
    let (a0, ax, ay) = (a[0], a[1], a[2]);
    let (dx, dy) = (&dx[..n], &dy[..n]);
    let axv = simd.splat_f32x8(ax);
    let row = simd.splat_f32x8(a0 + ay * dy[0]);
    let (a0v, ayv) = (simd.splat_f32x8(a0), simd.splat_f32x8(ay));
    macro_rules! each {
        (|$v:ident, $k:ident| $f:expr) => {
            for ($k, o) in out.chunks_exact_mut(LANES).enumerate() {
                let r = if ROW {
                    row
                } else {
                    a0v + ayv * f32x8::from_slice(simd, &dy[$k * LANES..($k + 1) * LANES])
                };
                let $v = r + axv * f32x8::from_slice(simd, &dx[$k * LANES..($k + 1) * LANES]);
                let x: f32x8<S> = $f;
                x.store_slice(o);
            }
        };
    }
    match finish {
        Finish::Depth(zmin, zmax) => {
            let (lo, hi) = (simd.splat_f32x8(zmin), simd.splat_f32x8(zmax));
            each!(|v, _k| min_or(max_or(v, lo), hi));
        }
        Finish::Recip => {
            let one = simd.splat_f32x8(1.0);
            each!(|v, _k| one / v);
        }
        Finish::Persp(w) => {
            each!(|v, k| v * f32x8::from_slice(simd, &w[k * LANES..(k + 1) * LANES]));
        }
    }
}

/// The compare functions by index (`fragment::path::func_index`: never, less, equal,
/// less-or-equal, greater, not-equal, greater-or-equal, always) on vectors `$a`, `$b` of a
/// mask type `$mask`, at any width: the one definition of the depth and alpha compares in
/// lanes, used by `cmp8` and the fused kernels of every width (`vertex_color_width!`).
macro_rules! compare {
    ($f:expr, $simd:expr, $mask:ident, $a:expr, $b:expr) => {
        match $f {
            0 => $mask::splat($simd, false),
            1 => $a.simd_lt($b),
            2 => $a.simd_eq($b),
            3 => $a.simd_le($b),
            4 => $a.simd_gt($b),
            5 => $a.simd_ne($b),
            6 => $a.simd_ge($b),
            _ => $mask::splat($simd, true),
        }
    };
}

/// The scalar comparison of compare function `F` per lane (`compare!`).
#[inline(always)]
fn cmp8<S: Simd, const F: u8>(simd: S, a: f32x8<S>, b: f32x8<S>) -> mask32x8<S> {
    compare!(F, simd, mask32x8, a, b)
}

/// Runs `f` on every group of [`LANES`] of `mask.len()` pixels with the matching group of
/// `t`, which may be shorter: its last partial group is copied in and out of a padded
/// buffer (the padding's lanes are dead).
#[inline(always)]
fn groups<T: Copy + Default>(
    mask: &mut [i32],
    t: &mut [T],
    mut f: impl FnMut(&mut [i32], &mut [T], usize),
) {
    let full = t.len() / LANES * LANES;
    for k in (0..full).step_by(LANES) {
        f(&mut mask[k..k + LANES], &mut t[k..k + LANES], k);
    }
    if full < mask.len() {
        let r = t.len() - full;
        let mut pad = [T::default(); LANES];
        pad[..r].copy_from_slice(&t[full..]);
        f(&mut mask[full..full + LANES], &mut pad, full);
        t[full..].copy_from_slice(&pad[..r]);
    }
}

/// The depth test of compare function `F` (with the write when `W`): `pass = mask ∧
/// cmp(z, d)`, `d = pass ? z : d`, `mask = pass` — the scalar depth test of `fragment::path` in lanes.
#[inline(always)]
pub(crate) fn depth<S: Simd, const F: u8, const W: bool>(
    simd: S,
    mask: &mut [i32],
    z: &[f32],
    d: &mut [f32],
) {
    groups(
        mask,
        d,
        #[inline(always)]
        |m, d, k| {
            let zv = f32x8::from_slice(simd, &z[k..k + LANES]);
            let dv = f32x8::from_slice(simd, d);
            let pass = load_mask(simd, m) & cmp8::<S, F>(simd, zv, dv);
            if W {
                pass.select(zv, dv).store_slice(d);
            }
            store_mask(simd, pass, m);
        },
    );
}

/// The alpha test of compare function `F`: `mask ∧= cmp(a, reference)`.
#[inline(always)]
pub(crate) fn alpha<S: Simd, const F: u8>(simd: S, mask: &mut [i32], a: &[f32], reference: f32) {
    let r = simd.splat_f32x8(reference);
    for (k, m) in mask.chunks_exact_mut(LANES).enumerate() {
        let av = f32x8::from_slice(simd, &a[k * LANES..(k + 1) * LANES]);
        store_mask(simd, load_mask(simd, m) & cmp8::<S, F>(simd, av, r), m);
    }
}

/// Whether any lane of `mask` is live.
#[inline(always)]
pub(crate) fn any<S: Simd>(simd: S, mask: &[i32]) -> bool {
    let mut acc = simd.splat_i32x8(0);
    for m in mask.chunks_exact(LANES) {
        acc |= i32x8::from_slice(simd, m);
    }
    simd.any_true_mask32x8(simd.from_vector_mask32x8(acc))
}

/// The number of live lanes of `mask` (an integer sum: its order does not matter).
#[inline(always)]
pub(crate) fn count<S: Simd>(simd: S, mask: &[i32]) -> u64 {
    let mut acc = simd.splat_i32x8(0);
    for m in mask.chunks_exact(LANES) {
        acc -= i32x8::from_slice(simd, m);
    }
    let a: [i32; LANES] = acc.into();
    a.iter().map(|&x| x as u64).sum()
}

/// Four channel bytes (lanes of `0..=255`) as RGBA8 words, red in the low byte: the one
/// packing of the colour store, at every width (`write` and the fused kernels).
#[inline(always)]
pub(crate) fn pack_rgba<V>(c: [V; 4]) -> V
where
    V: Copy + std::ops::Shl<u32, Output = V> + std::ops::BitOr<Output = V>,
{
    c[0] | (c[1] << 8) | (c[2] << 16) | (c[3] << 24)
}

/// Packs the colour channels to RGBA8 and stores the live pixels through the colour mask
/// `cm` (`FULL`: every channel written): `dst = mask ? (p & cm) | (old & !cm) : old`.
#[inline(always)]
pub(crate) fn write<S: Simd, const FULL: bool>(
    simd: S,
    color: [&[f32]; 4],
    mask: &mut [i32],
    cm: u32,
    dst: &mut [[u8; 4]],
) {
    let cmv = simd.splat_u32x8(cm);
    let ncm = simd.splat_u32x8(!cm);
    groups(
        mask,
        dst,
        #[inline(always)]
        |m, d, k| {
            macro_rules! ch {
                ($c:literal) => {
                    w8::unorm8_fast(simd, f32x8::from_slice(simd, &color[$c][k..k + LANES]))
                };
            }
            let p = pack_rgba([ch!(0), ch!(1), ch!(2), ch!(3)]);
            let bytes = d.as_flattened_mut();
            let old: u32x8<S> = u8x32::from_slice(simd, bytes).bitcast();
            let new = if FULL { p } else { (p & cmv) | (old & ncm) };
            let out: u8x32<S> = load_mask(simd, m).select(new, old).bitcast();
            out.store_slice(bytes);
        },
    );
}

/// Where a batch's pixels are: a row span `bx + i` right of and `dy` below the reference
/// vertex, or per-pixel offsets.
#[derive(Clone, Copy)]
pub(crate) enum At<'a> {
    Row(f32, f32),
    Pixels(&'a [f32], &'a [f32]),
}

/// The fused vertex-colour kernel's per-group code ([`vertex_color`]) at one width: a module
/// per vector width, written once. `w8` is every level's; `w16` runs AVX-512's whole groups
/// (issue 26 Build 4: measured, it wins on that level). Both compute every lane with the
/// same operations, so the width never changes a bit.
macro_rules! vertex_color_width {
    ($m:ident, $n:literal, $f32:ident, $i32:ident, $mask:ident, $u32:ident, $u8:ident) => {
        pub(crate) mod $m {
            use fearless_simd::{prelude::*, $f32, $i32, $mask, $u32, $u8};

            /// Lanes per group.
            pub(crate) const N: usize = $n;

            /// A plane `[a₀, ∂x, ∂y]` set up for a batch: its row sum when the batch is a
            /// row.
            #[derive(Clone, Copy)]
            pub(crate) struct Plane<S: Simd> {
                /// `a₀`, or with `ROW` the row sum `a₀ + ∂y·dy`.
                pub(crate) a0: $f32<S>,
                pub(crate) ax: $f32<S>,
                pub(crate) ay: $f32<S>,
                /// `a₀` itself, for [`Plane::set_row`].
                base: $f32<S>,
            }

            impl<S: Simd> Plane<S> {
                #[inline(always)]
                pub(crate) fn new<const ROW: bool>(simd: S, a: &[f32], dy: f32) -> Plane<S> {
                    Plane {
                        // With `ROW` the row sum `a₀ + ∂y·dy` stands in `a0`; `ay` is unused.
                        a0: $f32::splat(simd, if ROW { a[0] + a[2] * dy } else { a[0] }),
                        ax: $f32::splat(simd, a[1]),
                        ay: $f32::splat(simd, a[2]),
                        base: $f32::splat(simd, a[0]),
                    }
                }

                /// Makes `a0` the row sum `a₀ + ∂y·dy` of the row `dy` (every lane `dy`):
                /// the value `new::<true>` gives, lane by lane the same IEEE operations,
                /// so a kernel set up once per triangle serves each of its rows.
                #[allow(dead_code, reason = "the 16-lane kernel runs one row per set-up")]
                #[inline(always)]
                pub(crate) fn set_row(&mut self, dy: $f32<S>) {
                    self.a0 = self.base + self.ay * dy;
                }

                /// `(a₀ + ∂y·dy) + ∂x·dx` (the row sum precomputed with `ROW`).
                #[inline(always)]
                pub(crate) fn at<const ROW: bool>(&self, dx: $f32<S>, dy: $f32<S>) -> $f32<S> {
                    let r = if ROW { self.a0 } else { self.a0 + self.ay * dy };
                    r + self.ax * dx
                }
            }

            /// The per-draw constants of [`vertex_color`](super::vertex_color) for one batch.
            pub(crate) struct VertexColor<S: Simd> {
                simd: S,
                p: [Plane<S>; 6],
                lo: $f32<S>,
                hi: $f32<S>,
                wmask: $mask<S>,
            }

            impl<S: Simd> VertexColor<S> {
                /// `planes` = `[z, 1/w, r/w, g/w, b/w, a/w]`, the batch `dy` below the
                /// reference vertex (used with `ROW`).
                #[inline(always)]
                pub(crate) fn new<const ROW: bool>(
                    simd: S,
                    planes: &[f32],
                    dy: f32,
                    (zmin, zmax): (f32, f32),
                    write: bool,
                ) -> Self {
                    VertexColor {
                        simd,
                        p: [
                            Plane::new::<ROW>(simd, &planes[0..3], dy),
                            Plane::new::<ROW>(simd, &planes[3..6], dy),
                            Plane::new::<ROW>(simd, &planes[6..9], dy),
                            Plane::new::<ROW>(simd, &planes[9..12], dy),
                            Plane::new::<ROW>(simd, &planes[12..15], dy),
                            Plane::new::<ROW>(simd, &planes[15..18], dy),
                        ],
                        lo: $f32::splat(simd, zmin),
                        hi: $f32::splat(simd, zmax),
                        wmask: $mask::splat(simd, write),
                    }
                }

                /// Puts the row `dy` below the reference vertex into the planes' row sums
                /// ([`Plane::set_row`]): a kernel set up with `new::<false>` then gives
                /// each row what `new::<true>` at that `dy` gives.
                #[allow(dead_code, reason = "the 16-lane kernel runs one row per set-up")]
                #[inline(always)]
                pub(crate) fn set_row(&mut self, dy: f32) {
                    let dy = $f32::splat(self.simd, dy);
                    for p in &mut self.p {
                        p.set_row(dy);
                    }
                }

                /// One group at offsets `(dx, dy)` with live lanes `m` (all live when `m`
                /// is `None`), on its `N` target values. Returns the written lanes as −1.
                #[inline(always)]
                pub(crate) fn group<const ROW: bool, const F: u8>(
                    &self,
                    (dx, dy): ($f32<S>, $f32<S>),
                    m: Option<$mask<S>>,
                    d: &mut [f32],
                    c: &mut [[u8; 4]],
                ) -> $i32<S> {
                    let simd = self.simd;
                    let p = &self.p;
                    // `max_or`, `min_or`: the scalar clamp's compare-and-select.
                    let z = p[0].at::<ROW>(dx, dy);
                    let z = if crate::base::vec_lanes::x86_minmax(simd) {
                        z.max(self.lo).min(self.hi)
                    } else {
                        let z = z.simd_gt(self.lo).select(z, self.lo);
                        z.simd_lt(self.hi).select(z, self.hi)
                    };
                    let dv = $f32::from_slice(simd, d);
                    let t = compare!(F, simd, $mask, z, dv);
                    let pass = match m {
                        Some(m) => m & t,
                        None => t,
                    };
                    (pass & self.wmask).select(z, dv).store_slice(d);
                    if !pass.any_true() {
                        // No lane written: `pass` is all zeros (the same value as below,
                        // so both exits share the caller's accumulate).
                        return pass.to_vector();
                    }
                    let w = $f32::splat(simd, 1.0) / p[1].at::<ROW>(dx, dy);
                    macro_rules! ch {
                        ($j:literal) => {
                            unorm8_fast(simd, p[2 + $j].at::<ROW>(dx, dy) * w)
                        };
                    }
                    let px = crate::fragment::lanes::pack_rgba([ch!(0), ch!(1), ch!(2), ch!(3)]);
                    let bytes = c.as_flattened_mut();
                    let old: $u32<S> = $u8::from_slice(simd, bytes).bitcast();
                    let out: $u8<S> = pass.select(px, old).bitcast();
                    out.store_slice(bytes);
                    pass.to_vector()
                }
            }

            /// `base::unorm::to_unorm8` per lane (the one conversion of the colour store, at
            /// every width), in few operations: `x > 0 ? x : 0` (NaN and −0 give +0), after
            /// which `x` is never NaN, then `x < 1 ? x : 1`; each one x86 instruction
            /// (`vec_lanes::x86_minmax`), else a compare and select.
            #[inline(always)]
            pub(crate) fn unorm8_fast<S: Simd>(simd: S, x: $f32<S>) -> $u32<S> {
                let (zero, one) = ($f32::splat(simd, 0.0), $f32::splat(simd, 1.0));
                let x = if crate::base::vec_lanes::x86_minmax(simd) {
                    x.max(zero).min(one)
                } else {
                    let x = x.simd_gt(zero).select(x, zero);
                    x.simd_lt(one).select(x, one)
                };
                let y = x * 255.0 + 0.5;
                let i: $i32<S> = y.to_int();
                i.bitcast()
            }
        }
    };
}
vertex_color_width!(w8, 8, f32x8, i32x8, mask32x8, u32x8, u8x32);
#[cfg(all(any(target_arch = "x86", target_arch = "x86_64"), not(plumb_no_avx512)))]
vertex_color_width!(w16, 16, f32x16, i32x16, mask32x16, u32x16, u8x64);
const _: () = assert!(w8::N == LANES);

/// The whole fragment path of a vertex-coloured draw (colour = varyings 0..4, all
/// smooth; early depth test of function `F`, depth write if `write`; no stencil, alpha test
/// or blending; every channel written) fused into one pass over groups of [`LANES`]: each
/// group is interpolated, tested, packed and stored in registers. Every value is the one
/// the separate stages compute (`plane`, `depth`, `write`: the same expressions), and a
/// group whose depth test kills every lane stops there, as the early test skips a batch.
/// Groups whose lanes are all live skip the coverage mask. `planes` holds
/// `[z, 1/w, r/w, g/w, b/w, a/w]`; `n` pixels, the first `live` real. Returns the number of
/// fragments written.
#[allow(clippy::too_many_arguments, reason = "one batch's complete context")]
#[inline(always)]
pub(crate) fn vertex_color<S: Simd, const ROW: bool, const F: u8>(
    simd: S,
    planes: &[f32],
    at: At<'_>,
    (live, n): (usize, usize),
    (zmin, zmax): (f32, f32),
    write: bool,
    depth: &mut [f32],
    color: &mut [[u8; 4]],
) -> u64 {
    let (bx, dy0) = match at {
        At::Row(bx, dy) => (bx, dy),
        At::Pixels(..) => (0.0, 0.0),
    };
    let vc = w8::VertexColor::new::<ROW>(simd, planes, dy0, (zmin, zmax), write);
    // AVX-512: whole groups of 16 lanes first (issue 26 Build 4; see `w16`), of the groups
    // entirely live and inside the target (no mask, no copies).
    #[cfg(all(any(target_arch = "x86", target_arch = "x86_64"), not(plumb_no_avx512)))]
    let whole = live.min(depth.len().min(color.len())) / LANES * LANES;
    #[cfg(all(any(target_arch = "x86", target_arch = "x86_64"), not(plumb_no_avx512)))]
    let (wide_written, k0) = match simd.level() {
        fearless_simd::Level::Avx512(t) if whole >= w16::N => {
            let row = (bx, dy0);
            let z = (zmin, zmax);
            vertex_color_16::<ROW, F>(t, planes, at, row, whole, z, write, depth, color)
        }
        _ => (0, 0),
    };
    #[cfg(not(all(any(target_arch = "x86", target_arch = "x86_64"), not(plumb_no_avx512))))]
    let (wide_written, k0) = (0u64, 0);
    debug_assert!(k0 <= n.next_multiple_of(LANES));
    wide_written
        + lane_count(fused_groups(
            simd,
            at,
            bx,
            (live, n),
            k0,
            (depth, color),
            #[inline(always)]
            |o, m, d, c| vc.group::<ROW, F>(o, m, d, c),
        ))
}

/// The groups of one batch of a fused kernel, from pixel `k0` (a multiple of [`LANES`]) to
/// `n` rounded up: each group's offsets (`at`; a row's `bx + i`, stepped by 8: every value
/// is a multiple of 1/256 below 2^15, so each step is exact and equals `bx + (k + i)`),
/// whole live groups straight on the target, the last ones with their live lanes (the
/// first `live` of the batch) as the mask: in place where the target slices hold the whole
/// group (its dead lanes are stored back unchanged), else through a copy, so nothing past
/// the slices' ends is read or written. `group` returns its written lanes as −1; returns
/// their number per lane ([`lane_count`] sums them).
#[inline(always)]
pub(crate) fn fused_groups<S: Simd>(
    simd: S,
    at: At<'_>,
    bx: f32,
    (live, n): (usize, usize),
    k0: usize,
    (depth, color): (&mut [f32], &mut [[u8; 4]]),
    mut group: impl FnMut(
        (f32x8<S>, f32x8<S>),
        Option<mask32x8<S>>,
        &mut [f32],
        &mut [[u8; 4]],
    ) -> i32x8<S>,
) -> i32x8<S> {
    let mut dxr = simd.splat_f32x8(bx) + f32x8::from_slice(simd, &IOTA);
    if k0 > 0 {
        // `bx + (k + i)`: exact, as every step below is.
        dxr += k0 as f32;
    }
    let offsets = |k: usize, dxr: f32x8<S>| match at {
        // A row's `dy` is in its planes' row sums; the second value is unused.
        At::Row(..) => (dxr, dxr),
        At::Pixels(dx, dy) => (
            f32x8::from_slice(simd, &dx[k..k + LANES]),
            f32x8::from_slice(simd, &dy[k..k + LANES]),
        ),
    };
    let mut written = simd.splat_i32x8(0);
    let np = n.next_multiple_of(LANES);
    let len = depth.len().min(color.len());
    let whole = live.min(len) / LANES * LANES;
    let mut k = k0;
    if k0 < whole {
        // Exact chunks: no bounds check per group.
        let d = depth[k0..whole].chunks_exact_mut(LANES);
        let c = color[k0..whole].chunks_exact_mut(LANES);
        for (d, c) in d.zip(c) {
            let o = offsets(k, dxr);
            written -= group(o, None, d, c);
            dxr += 8.0;
            k += LANES;
        }
    }
    let iota_i = i32x8::from_slice(simd, &IOTA_I);
    let livev = simd.splat_i32x8(live as i32);
    let (mut pd, mut pc) = ([0.0f32; LANES], [[0u8; 4]; LANES]);
    while k < np {
        let o = offsets(k, dxr);
        let m = (iota_i + k as i32).simd_lt(livev);
        if k + LANES <= len {
            let (d, c) = (&mut depth[k..k + LANES], &mut color[k..k + LANES]);
            written -= group(o, Some(m), d, c);
        } else {
            let r = len.saturating_sub(k).min(LANES);
            pd[..r].copy_from_slice(&depth[k..k + r]);
            pc[..r].copy_from_slice(&color[k..k + r]);
            written -= group(o, Some(m), &mut pd, &mut pc);
            depth[k..k + r].copy_from_slice(&pd[..r]);
            color[k..k + r].copy_from_slice(&pc[..r]);
        }
        dxr += 8.0;
        k += LANES;
    }
    written
}

/// The sum of a kernel's per-lane counts of written fragments.
#[inline(always)]
pub(crate) fn lane_count<S: Simd>(v: i32x8<S>) -> u64 {
    let a: [i32; LANES] = v.into();
    a.iter().map(|&x| x as u64).sum()
}

/// One row span of a triangle in a tile: pixels `[x, x + len)` of row `y`, at tile offset
/// `off`.
#[derive(Clone, Copy, Default)]
pub(crate) struct RowSpan {
    pub x: i32,
    pub y: i32,
    pub len: u32,
    pub off: u32,
}

impl RowSpan {
    /// The span's first pixel centre and its row, as offsets from the reference point
    /// `(ref_x, ref_y)`. Exact in f32 (multiples of 1/256 below 2^15), so the row walk's
    /// `bx + i` equals `(x + i + ½) − ref_x`.
    #[inline(always)]
    pub(crate) fn offsets(&self, (ref_x, ref_y): (f32, f32)) -> (f32, f32) {
        ((self.x as f32 + 0.5) - ref_x, (self.y as f32 + 0.5) - ref_y)
    }

    /// The span's pixels in the tile's planes.
    #[inline(always)]
    pub(crate) fn range(&self) -> std::ops::Range<usize> {
        self.off as usize..(self.off + self.len) as usize
    }
}

/// A fused kernel set up once per triangle: run on each of its row spans in a tile
/// ([`fused_rows`]) or on the rows of blocks ([`fused_blocks`]).
pub(crate) trait FusedKernel<S: Simd> {
    /// Puts the row `dy` below the reference point into the planes' row sums.
    fn set_row(&mut self, dy: f32);
    /// One group at offsets `(dx, dy)` with live lanes `m` (all when `None`) on its
    /// [`LANES`] target values: with `ROW` of the current row (its sums in the planes),
    /// else at per-lane offsets with the planes' `a₀` as set up. Returns the written lanes
    /// as −1.
    fn group<const ROW: bool>(
        &self,
        o: (f32x8<S>, f32x8<S>),
        m: Option<mask32x8<S>>,
        d: &mut [f32],
        c: &mut [[u8; 4]],
    ) -> i32x8<S>;
}

/// [`w8::VertexColor`] at depth function `F`, as a [`FusedKernel`].
pub(crate) struct VertexColorRows<S: Simd, const F: u8>(pub w8::VertexColor<S>);

impl<S: Simd, const F: u8> FusedKernel<S> for VertexColorRows<S, F> {
    #[inline(always)]
    fn set_row(&mut self, dy: f32) {
        self.0.set_row(dy);
    }

    #[inline(always)]
    fn group<const ROW: bool>(
        &self,
        o: (f32x8<S>, f32x8<S>),
        m: Option<mask32x8<S>>,
        d: &mut [f32],
        c: &mut [[u8; 4]],
    ) -> i32x8<S> {
        self.0.group::<ROW, F>(o, m, d, c)
    }
}

/// A fused kernel on the row spans `rows` of one triangle (reference point `refp`) in a
/// tile whose depth and colour planes are `depth`, `color`: per row, the row sums
/// ([`FusedKernel::set_row`]) and its groups ([`fused_groups`]). Each row gets the values a
/// kernel set up for that row alone gives it; the set-up is paid once per triangle and
/// tile instead of once per row. Returns the number of fragments written.
#[inline(always)]
pub(crate) fn fused_rows<S: Simd, K: FusedKernel<S>>(
    simd: S,
    k: &mut K,
    refp: (f32, f32),
    rows: &[RowSpan],
    (depth, color): (&mut [f32], &mut [[u8; 4]]),
) -> u64 {
    let mut written = simd.splat_i32x8(0);
    let end = depth.len().min(color.len());
    for r in rows {
        let (bx, dy) = r.offsets(refp);
        k.set_row(dy);
        let k = &*k;
        // The span's groups, as far as the tile lets them run past its end (the last one
        // then works in place).
        let len = r.len as usize;
        let span = r.off as usize..(r.off as usize + len.next_multiple_of(LANES)).min(end);
        let (d, c) = (&mut depth[span.clone()], &mut color[span]);
        written += fused_groups(
            simd,
            At::Row(bx, dy),
            bx,
            (len, len),
            0,
            (d, c),
            #[inline(always)]
            |o, m, d, c| k.group::<true>(o, m, d, c),
        );
    }
    lane_count(written)
}

/// A small triangle's pixels in one block of [`LANES`]² pixels of a tile, for
/// [`fused_blocks`]: its coverage, one byte per row of the block (lane `i` of row `r`
/// is bit `8r + i`), and where the block is.
#[derive(Clone, Copy)]
pub(crate) struct Block {
    pub cover: u64,
    /// The block's top-left pixel.
    pub x: i32,
    pub y: i32,
    /// Its tile offset, and the tile offset of one row below.
    pub off: usize,
    pub stride: usize,
    /// The triangle's reference point (pixel-centre offsets are taken from it).
    pub ref_x: f32,
    pub ref_y: f32,
}

/// A fused kernel (set up with its planes' `a₀`, no row sums) on [`Block`]s of one
/// triangle, in order, straight on the tile's planes: each row with a covered pixel is one
/// group of [`LANES`] contiguous pixels of the tile row, with the row's coverage as its mask
/// (no copies in or out; the block lies inside the tile, so every group does). A pixel's offsets are the gathered
/// block's (`(x + i) + ½ − ref_x`, `(y + ½) − ref_y`, the same operations), so every value
/// is the one the kernel gives it there in a batch of pixels. Returns the number of
/// fragments written.
#[inline(always)]
pub(crate) fn fused_blocks<S: Simd, K: FusedKernel<S>>(
    simd: S,
    k: &K,
    blocks: &[Block],
    (depth, color): (&mut [f32], &mut [[u8; 4]]),
) -> u64 {
    let iota = f32x8::from_slice(simd, &IOTA);
    let bits = i32x8::from_slice(simd, &[1, 2, 4, 8, 16, 32, 64, 128]);
    let mut written = simd.splat_i32x8(0);
    for b in blocks {
        let dx = ((simd.splat_f32x8(b.x as f32) + iota) + simd.splat_f32x8(0.5))
            - simd.splat_f32x8(b.ref_x);
        let (mut cover, mut y, mut off) = (b.cover, b.y, b.off);
        while cover != 0 {
            let row = (cover & 0xff) as i32;
            if row != 0 {
                let m = (simd.splat_i32x8(row) & bits).simd_eq(bits);
                let dy = simd.splat_f32x8((y as f32 + 0.5) - b.ref_y);
                let (d, c) = (&mut depth[off..off + LANES], &mut color[off..off + LANES]);
                written -= k.group::<false>((dx, dy), Some(m), d, c);
            }
            cover >>= 8;
            y += 1;
            off += b.stride;
        }
    }
    lane_count(written)
}

/// [`vertex_color`]'s whole groups at AVX-512 on 16 lanes: the groups `0..whole / 16 * 16`.
/// Returns the fragments written and where the 8-lane groups go on. One copy per `ROW` and
/// `F` (not per level: only AVX-512 has it), entered through `vectorize` so it keeps the
/// level's target features.
#[cfg(all(any(target_arch = "x86", target_arch = "x86_64"), not(plumb_no_avx512)))]
#[allow(clippy::too_many_arguments, reason = "one batch's complete context")]
#[inline(never)]
fn vertex_color_16<const ROW: bool, const F: u8>(
    simd: fearless_simd::Avx512,
    planes: &[f32],
    at: At<'_>,
    (bx, dy): (f32, f32),
    whole: usize,
    z: (f32, f32),
    write: bool,
    depth: &mut [f32],
    color: &mut [[u8; 4]],
) -> (u64, usize) {
    simd.vectorize(
        #[inline(always)]
        || {
            let wide = w16::VertexColor::new::<ROW>(simd, planes, dy, z, write);
            let iota: [f32; w16::N] = [
                0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0,
                15.0,
            ];
            // `bx + i` stepped by 16: exact, as in `vertex_color`.
            let mut dx = f32x16::splat(simd, bx) + f32x16::from_slice(simd, &iota);
            let mut acc = i32x16::splat(simd, 0);
            let mut k = 0;
            while k + w16::N <= whole {
                let at = match at {
                    At::Row(..) => (dx, dx),
                    At::Pixels(x, y) => (
                        f32x16::from_slice(simd, &x[k..k + w16::N]),
                        f32x16::from_slice(simd, &y[k..k + w16::N]),
                    ),
                };
                let (d, c) = (&mut depth[k..k + w16::N], &mut color[k..k + w16::N]);
                acc -= wide.group::<ROW, F>(at, None, d, c);
                dx += 16.0;
                k += w16::N;
            }
            let a: [i32; w16::N] = acc.into();
            (a.iter().map(|&x| x as u64).sum(), k)
        },
    )
}

#[cfg(feature = "internal-tests")]
pub(crate) mod tests {
    /// Every test of this module: `tests/unit.rs` runs each as one trial (an unlisted
    /// test fails the build as dead code).
    pub(crate) const TESTS: &[(&str, fn())] = &[("kernels_match_scalar", kernels_match_scalar)];

    use super::*;
    use crate::base::simd::SimdLevel;
    use crate::base::unorm::to_unorm8;

    fn values() -> Vec<f32> {
        let mut v = vec![
            0.0,
            -0.0,
            1.0,
            -1.0,
            0.5,
            f32::NAN,
            f32::INFINITY,
            f32::NEG_INFINITY,
            1e-45,
            -1e-45,
            f32::MIN_POSITIVE,
            1e30,
            -1e30,
        ];
        for k in 0..=255u32 {
            let b = (k as f32 + 0.5) / 255.0;
            v.push(b);
            v.push(f32::from_bits(b.to_bits() + 1));
            v.push(f32::from_bits(b.to_bits() - 1));
            v.push(k as f32 / 255.0);
        }
        let mut seed = 7u32;
        while v.len() % LANES != 0 || v.len() < 2048 {
            seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            v.push((seed >> 8) as f32 / (1 << 24) as f32 * 3.0 - 1.0);
        }
        v
    }

    /// The scalar definitions, pixel by pixel; every level must give their bits exactly.
    fn kernels_match_scalar() {
        let x = values();
        let n = x.len();
        let y: Vec<f32> = x.iter().rev().copied().collect();
        let live: Vec<i32> = (0..n).map(|i| if i % 5 == 3 { 0 } else { -1 }).collect();
        let dx: Vec<f32> = (0..n).map(|i| (i % 64) as f32 + 0.5 - 3.25).collect();
        let dy: Vec<f32> = (0..n).map(|i| (i / 64) as f32 + 0.5 - 7.75).collect();
        let a = [0.3f32, 0.0123, -0.0071];
        let (zmin, zmax) = (0.25f32, 0.75f32);
        // Expectations.
        let e_plane: Vec<[u32; 3]> = (0..n)
            .map(|i| {
                let v = (a[0] + a[2] * dy[i]) + a[1] * dx[i];
                [
                    v.max(zmin).min(zmax).to_bits(),
                    (1.0 / v).to_bits(),
                    (v * x[i]).to_bits(),
                ]
            })
            .collect();
        let e_row: Vec<f32> = (0..n)
            .map(|i| (a[0] + a[2] * dy[0]) + a[1] * dx[i])
            .collect();
        let e_unorm: Vec<u32> = (0..n)
            .map(|i| {
                u32::from_le_bytes([
                    to_unorm8(x[i]),
                    to_unorm8(y[i]),
                    to_unorm8(x[(i + 3) % n]),
                    to_unorm8(y[(i + 5) % n]),
                ])
            })
            .collect();
        let cmp = |f: u8, a: f32, b: f32| match f {
            0 => false,
            1 => a < b,
            2 => a == b,
            3 => a <= b,
            4 => a > b,
            5 => a != b,
            6 => a >= b,
            _ => true,
        };
        for level in SimdLevel::available() {
            let lv = level.to_level().unwrap();
            let mut out = [vec![0.0f32; n], vec![0.0f32; n], vec![0.0f32; n]];
            let [o0, o1, o2] = &mut out;
            crate::base::simd::dispatch!(lv, simd => {
                plane::<_, false>(simd, &a, (&dx, &dy), o0, Finish::Depth(zmin, zmax));
                plane::<_, false>(simd, &a, (&dx, &dy), o1, Finish::Recip);
                plane::<_, false>(simd, &a, (&dx, &dy), o2, Finish::Persp(&x));
            });
            for i in 0..n {
                let got = [
                    out[0][i].to_bits(),
                    out[1][i].to_bits(),
                    out[2][i].to_bits(),
                ];
                assert_eq!(got, e_plane[i], "{level}: plane at {i}");
            }
            let mut row = vec![0.0f32; n];
            crate::base::simd::dispatch!(lv, simd => plane::<_, true>(
                simd, &[a[0], a[1], a[2]], (&dx, &dy), &mut row, Finish::Persp(&vec![1.0; n])));
            for i in 0..n {
                assert_eq!(row[i].to_bits(), e_row[i].to_bits(), "{level}: row at {i}");
            }
            // Offsets and coverage.
            let (mut d, mut m) = (vec![0.0f32; 64], vec![0i32; 64]);
            crate::base::simd::dispatch!(lv, simd => row_offsets(simd, 17.5 - 3.25, 37, &mut d, &mut m));
            for i in 0..64 {
                assert_eq!(d[i], (17.5f32 - 3.25) + i as f32);
                assert_eq!(m[i], if i < 37 { -1 } else { 0 });
            }
            // Depth and alpha tests, every function, with a target shorter than the batch.
            for f in 0..8u8 {
                for write in [false, true] {
                    let short = n - 3;
                    let mut m = live.clone();
                    let mut d = y[..short].to_vec();
                    let np = n;
                    crate::base::simd::dispatch!(lv, simd => {
                        macro_rules! go {
                            ($($k:literal)*) => {
                                match (f, write) {
                                    $(($k, false) => depth::<_, $k, false>(simd, &mut m[..np], &x, &mut d),
                                      ($k, true) => depth::<_, $k, true>(simd, &mut m[..np], &x, &mut d),)*
                                    _ => unreachable!(),
                                }
                            };
                        }
                        go!(0 1 2 3 4 5 6 7)
                    });
                    for i in 0..short {
                        let pass = live[i] != 0 && cmp(f, x[i], y[i]);
                        assert_eq!(m[i] != 0, pass, "{level}: depth {f} at {i}");
                        let want = if write && pass { x[i] } else { y[i] };
                        assert_eq!(d[i].to_bits(), want.to_bits(), "{level}: depth {f} at {i}");
                    }
                    let mut m = live.clone();
                    crate::base::simd::dispatch!(lv, simd => {
                        match f {
                            0 => alpha::<_, 0>(simd, &mut m, &x, 0.5),
                            1 => alpha::<_, 1>(simd, &mut m, &x, 0.5),
                            2 => alpha::<_, 2>(simd, &mut m, &x, 0.5),
                            3 => alpha::<_, 3>(simd, &mut m, &x, 0.5),
                            4 => alpha::<_, 4>(simd, &mut m, &x, 0.5),
                            5 => alpha::<_, 5>(simd, &mut m, &x, 0.5),
                            6 => alpha::<_, 6>(simd, &mut m, &x, 0.5),
                            _ => alpha::<_, 7>(simd, &mut m, &x, 0.5),
                        }
                    });
                    for i in 0..n {
                        let pass = live[i] != 0 && cmp(f, x[i], 0.5);
                        assert_eq!(m[i] != 0, pass, "{level}: alpha {f} at {i}");
                    }
                }
            }
            // The fast pack conversion against the scalar one.
            let mut fast = vec![0u32; n];
            crate::base::simd::dispatch!(lv, simd => {
                for (k, o) in fast.chunks_exact_mut(LANES).enumerate() {
                    let v = f32x8::from_slice(simd, &x[k * LANES..(k + 1) * LANES]);
                    let u: [u32; LANES] = w8::unorm8_fast(simd, v).into();
                    o.copy_from_slice(&u);
                }
            });
            for i in 0..n {
                let want = u32::from(to_unorm8(x[i]));
                assert_eq!(fast[i], want, "{level}: unorm8 of {:e}", x[i]);
            }
            // Count and any.
            let (c, any_live, none) = crate::base::simd::dispatch!(lv, simd => (
                count(simd, &live),
                any(simd, &live),
                any(simd, &vec![0; n]),
            ));
            assert_eq!(c, live.iter().filter(|&&m| m != 0).count() as u64);
            assert!(any_live && !none);
            // Pack and store, full and partial colour masks, a short target.
            let x3: Vec<f32> = (0..n).map(|i| x[(i + 3) % n]).collect();
            let y5: Vec<f32> = (0..n).map(|i| y[(i + 5) % n]).collect();
            for cm in [u32::MAX, 0x00ff_00ff] {
                let short = n - 5;
                let old: Vec<[u8; 4]> = (0..short)
                    .map(|i| (i as u32).wrapping_mul(0x9e37_79b9).to_le_bytes())
                    .collect();
                let mut dst = old.clone();
                let mut m = live.clone();
                let color = [&x[..], &y[..], &x3[..], &y5[..]];
                crate::base::simd::dispatch!(lv, simd => if cm == u32::MAX {
                    write::<_, true>(simd, color, &mut m, cm, &mut dst)
                } else {
                    write::<_, false>(simd, color, &mut m, cm, &mut dst)
                });
                for i in 0..short {
                    let o = u32::from_le_bytes(old[i]);
                    let want = if live[i] != 0 {
                        (e_unorm[i] & cm) | (o & !cm)
                    } else {
                        o
                    };
                    assert_eq!(u32::from_le_bytes(dst[i]), want, "{level}: pack at {i}");
                }
            }
        }
    }
}
