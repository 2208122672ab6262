//! The fused fixed-function fragment kernel: a draw whose shader is the interpolated colour,
//! modulated or replaced by one texture unit or neither, plus a secondary colour or not,
//! then vertex fog, per-pixel linear fog or none
//! ([`TextureFusion`]), with an early
//! depth test of less, less-or-equal or always, no blending or the classic alpha blend
//! (source alpha, one minus source alpha, added) and nothing else (no stencil or alpha
//! test; every channel written), runs its whole fragment path in one pass over groups of
//! [`LANES`](crate::base::vec_lanes::LANES): depth, coordinates and their derivatives, λ and the sample, colour, fog, pack
//! and store, each group in registers from the planes to the store.
//!
//! Every value is the one the staged path computes (`fragment::path`'s interpolation, the
//! stages of `fixed_stages`: the same IEEE operations in the same order, the scalar code's
//! `max`/`clamp`/`saturate` NaN rules as compare-and-select), so the two give the same bits
//! at every level; the portable level always runs the staged path, and the goldens and
//! `tests/it/fused_texture.rs` hold every level to it.

use fearless_simd::{f32x8, i32x8, mask32x8, prelude::*, u32x8, u8x32};
use glam::Vec4;

use crate::base::vec_lanes::{max_or, min_or};
use crate::fragment::lanes::w8::{unorm8_fast, Plane};
use crate::fragment::lanes::{fused_groups, lane_count, pack_rgba, At, FusedKernel};
use crate::fragment::scratch::{FusedFog, TextureFusion};
use crate::texture::lanes::{sample_rho2, LaneFilter};
use crate::texture::{Sampler, Texture};

/// `x > 0 ? (x < 1 ? x : 1) : 0` (NaN → 0): the staged stages' saturate.
#[inline(always)]
fn sat<S: Simd>(x: f32x8<S>) -> f32x8<S> {
    let (zero, one) = (x.simd.splat_f32x8(0.0), x.simd.splat_f32x8(1.0));
    min_or(max_or(x, zero), one)
}

/// `f32::clamp(x, 0, 1)`: `x < 0 ? 0 : x`, then `> 1 ? 1 : ·` (NaN stays NaN).
#[inline(always)]
fn clamp01<S: Simd>(x: f32x8<S>) -> f32x8<S> {
    let (zero, one) = (x.simd.splat_f32x8(0.0), x.simd.splat_f32x8(1.0));
    min_or(one, max_or(zero, x))
}

/// The per-triangle constants of the kernel: for one batch of pixels ([`textured`]) or, as a
/// [`FusedKernel`], for each row span of the triangle in a tile.
pub(crate) struct Kernel<'t, S: Simd> {
    simd: S,
    /// The unit: its texture, sampler and filter (in the texture's format), and whether it
    /// replaces the colour.
    unit: Option<(&'t Texture, &'t Sampler, LaneFilter)>,
    replace: bool,
    /// The fog: 0 none, 1 the vertex factor, 2 linear, 3 linear with `start == end`.
    fog_kind: u8,
    /// z, 1/w, the four colour planes, the fog plane (or 1/w again, unused).
    p: [Plane<S>; 7],
    /// The secondary colour's planes (r, g, b).
    secondary: Option<[Plane<S>; 3]>,
    /// s/w, t/w, q/w of the unit, with their `∂x`, `∂y` as scalars too.
    uv: [Plane<S>; 3],
    size: (f32x8<S>, f32x8<S>),
    fog: [f32x8<S>; 3],
    /// Linear per-pixel fog: `end`, `end − start` and `start`.
    linear: (f32x8<S>, f32x8<S>, f32x8<S>),
    zlim: (f32x8<S>, f32x8<S>),
    func: u8,
    write: mask32x8<S>,
    /// Blending with source alpha and one minus source alpha (`FragmentPath`'s
    /// `is_alpha_blend`), else none.
    blend: bool,
}

impl<'t, S: Simd> Kernel<'t, S> {
    /// One group at offsets `(dx, dy)` with live lanes `m` (all when `None`) on its
    /// [`LANES`](crate::base::vec_lanes::LANES) target values. Returns the written lanes as −1.
    #[inline(always)]
    fn group<const ROW: bool>(
        &self,
        (dx, dy): (f32x8<S>, f32x8<S>),
        m: Option<mask32x8<S>>,
        d: &mut [f32],
        c: &mut [[u8; 4]],
    ) -> i32x8<S> {
        let simd = self.simd;
        let p = &self.p;
        // Depth: `Finish::Depth`, then the early test and write (`fragment::lanes::depth`).
        let z = min_or(max_or(p[0].at::<ROW>(dx, dy), self.zlim.0), self.zlim.1);
        let dv = f32x8::from_slice(simd, d);
        let t = match self.func {
            1 => z.simd_lt(dv),
            3 => z.simd_le(dv),
            _ => simd.splat_mask32x8(true),
        };
        let pass = match m {
            Some(m) => m & t,
            None => t,
        };
        (pass & self.write).select(z, dv).store_slice(d);
        if !pass.any_true() {
            // No lane written: `pass` is all zeros.
            return pass.to_vector();
        }
        // The sample first: fewer values live across its call.
        let tex = self.unit.as_ref().map(|u| self.sample::<ROW>(u, dx, dy));
        let one = simd.splat_f32x8(1.0);
        let zero = simd.splat_f32x8(0.0);
        // `Finish::Recip`, then `Finish::Persp` of each colour varying (`Primary`), and
        // `Modulate`: `saturate(c · t)`.
        let w = one / p[1].at::<ROW>(dx, dy);
        let mut col = [zero; 4];
        match tex {
            // `Replace`: `saturate(t)`.
            Some(tex) if self.replace => {
                for (x, t) in col.iter_mut().zip(tex) {
                    *x = sat(t);
                }
            }
            _ => {
                for (j, o) in col.iter_mut().enumerate() {
                    *o = p[2 + j].at::<ROW>(dx, dy) * w;
                }
                if let Some(tex) = tex {
                    for (x, t) in col.iter_mut().zip(tex) {
                        let m = *x * t;
                        *x = sat(m);
                    }
                }
            }
        }
        if let Some(sec) = &self.secondary {
            // `Secondary`: `rgb = min(rgb + secondary, 1)` (`f32::min`: NaN gives 1).
            for (x, p) in col.iter_mut().zip(sec) {
                *x = min_or(*x + p.at::<ROW>(dx, dy) * w, one);
            }
        }
        if self.fog_kind != 0 {
            let f = self.fog_factor(p[6].at::<ROW>(dx, dy) * w);
            // `FogBlend`: `rgb·f + fog·(1 − f)`.
            let g = one - f;
            for (c, k) in col.iter_mut().zip(&self.fog) {
                *c = *c * f + *k * g;
            }
        }
        let bytes = c.as_flattened_mut();
        let old: u32x8<S> = u8x32::from_slice(simd, bytes).bitcast();
        if self.blend {
            // `FragmentPath::blend`: the source clamped to [0, 1] (`f32::clamp`: NaN
            // stays), the destination `from_unorm8` (`d / 255`), then
            // `s·a + d·(1 − a)` per channel with `a` the clamped source alpha.
            // (Written out: `[T; 4]::map` stayed an out-of-line call.)
            let s = [
                clamp01(col[0]),
                clamp01(col[1]),
                clamp01(col[2]),
                clamp01(col[3]),
            ];
            let (a, k255) = (s[3], simd.splat_f32x8(255.0));
            let ia = one - a;
            for (ch, (x, s)) in col.iter_mut().zip(s).enumerate() {
                let byte: i32x8<S> = ((old >> (8 * ch as u32)) & 0xff).bitcast();
                let d = simd.cvt_f32_i32x8(byte) / k255;
                *x = s * a + d * ia;
            }
        }
        let px = pack_rgba([
            unorm8_fast(simd, col[0]),
            unorm8_fast(simd, col[1]),
            unorm8_fast(simd, col[2]),
            unorm8_fast(simd, col[3]),
        ]);
        let out: u8x32<S> = pass.select(px, old).bitcast();
        out.store_slice(bytes);
        pass.to_vector()
    }

    /// The fog factor from its interpolated varying `d`: `FogVertex`'s `clamp(0, 1)` (NaN
    /// stays NaN), or `FogFactor`'s linear `fog_factor` — `(end − d)/(end − start)`, or
    /// `d < start` as 1 or 0 when `end == start`; then `f > 0 ? min(f, 1) : 0` (NaN → 0)
    /// — whose `clamp(0, 1)` after that changes nothing.
    #[inline(always)]
    fn fog_factor(&self, d: f32x8<S>) -> f32x8<S> {
        let simd = self.simd;
        let (one, zero) = (simd.splat_f32x8(1.0), simd.splat_f32x8(0.0));
        let (end, span, start) = self.linear;
        let f = match self.fog_kind {
            1 => {
                return clamp01(d);
            }
            2 => (end - d) / span,
            _ => d.simd_lt(start).select(one, zero),
        };
        sat(f)
    }

    /// `Coords` then `Lod` and `SampleLanes`: `(u, v)` and their exact derivatives from the
    /// unit's planes (`uv_derivatives`), `ρ² = max(|∂uv/∂x·size|², |∂uv/∂y·size|²)` with
    /// `f32::max`'s rule (a NaN side gives the other), then the sample.
    #[inline(always)]
    fn sample<const ROW: bool>(
        &self,
        (texture, sampler, filter): &(&Texture, &Sampler, LaneFilter),
        dx: f32x8<S>,
        dy: f32x8<S>,
    ) -> [f32x8<S>; 4] {
        let simd = self.simd;
        let [ps, pt, pq] = &self.uv;
        let (sv, tv, qv) = (
            ps.at::<ROW>(dx, dy),
            pt.at::<ROW>(dx, dy),
            pq.at::<ROW>(dx, dy),
        );
        let inv_q = simd.splat_f32x8(1.0) / qv;
        let (u, v) = (sv * inv_q, tv * inv_q);
        let ux = (ps.ax - u * pq.ax) * inv_q;
        let vx = (pt.ax - v * pq.ax) * inv_q;
        let uy = (ps.ay - u * pq.ay) * inv_q;
        let vy = (pt.ay - v * pq.ay) * inv_q;
        let (ax, ay) = (ux * self.size.0, vx * self.size.1);
        let (bx, by) = (uy * self.size.0, vy * self.size.1);
        let (a, b) = (ax * ax + ay * ay, bx * bx + by * by);
        let rho2 = b.simd_ne(b).select(a, max_or(a, b));
        sample_rho2(simd, sampler, filter, texture, (u, v), rho2)
    }
}

impl<'t, S: Simd> Kernel<'t, S> {
    /// The kernel of one triangle: `planes` the triangle's (`[z, 1/w, varyings…]`), depth
    /// range `zlim`, depth function index `func` (1 less, 3 less-or-equal, 7 always) and
    /// write flag. Its planes hold `a₀` (the form of a batch of pixels) until
    /// [`FusedKernel::set_row`] puts a row's sums in.
    #[inline(always)]
    pub(crate) fn new(
        simd: S,
        t: &'t TextureFusion,
        planes: &[f32],
        zlim: (f32, f32),
        (func, write): (u8, bool),
        blend: bool,
    ) -> Self {
        let plane = |i: usize| Plane::new::<false>(simd, &planes[i..i + 3], 0.0);
        let fog_at = t.fog.map_or(3, |f| 6 + 3 * f.at);
        let fog = t.fog.map_or(Vec4::ZERO, |f| f.color);
        let (start, end) = t.fog.and_then(|f| f.linear).unwrap_or((0.0, 1.0));
        // No unit: the uv planes are never read (any three planes will do).
        let (size, uv) = match &t.unit {
            Some(u) => (u.texture.base_size(), u.uv_plane),
            None => (glam::Vec2::ONE, 0),
        };
        Kernel {
            simd,
            unit: t.unit.as_ref().map(|u| (&*u.texture, &u.sampler, u.filter)),
            replace: t.unit.as_ref().is_some_and(|u| u.replace),
            fog_kind: match t.fog {
                None => 0,
                Some(FusedFog { linear: None, .. }) => 1,
                Some(_) if start != end => 2,
                Some(_) => 3,
            },
            p: [
                plane(0),
                plane(3),
                plane(6),
                plane(9),
                plane(12),
                plane(15),
                plane(fog_at),
            ],
            secondary: t
                .secondary
                .map(|o| [plane(6 + 3 * o), plane(9 + 3 * o), plane(12 + 3 * o)]),
            uv: [plane(uv), plane(uv + 3), plane(uv + 6)],
            size: (simd.splat_f32x8(size.x), simd.splat_f32x8(size.y)),
            fog: [
                simd.splat_f32x8(fog.x),
                simd.splat_f32x8(fog.y),
                simd.splat_f32x8(fog.z),
            ],
            linear: (
                simd.splat_f32x8(end),
                simd.splat_f32x8(end - start),
                simd.splat_f32x8(start),
            ),
            zlim: (simd.splat_f32x8(zlim.0), simd.splat_f32x8(zlim.1)),
            func,
            write: simd.splat_mask32x8(write),
            blend,
        }
    }
}

impl<S: Simd> FusedKernel<S> for Kernel<'_, S> {
    /// Every plane the groups read (the unused ones too: cheaper than asking).
    #[inline(always)]
    fn set_row(&mut self, dy: f32) {
        let dy = self.simd.splat_f32x8(dy);
        // Array by array, so each loop unrolls (a chained iterator did not).
        for p in &mut self.p {
            p.set_row(dy);
        }
        for p in &mut self.uv {
            p.set_row(dy);
        }
        if let Some(sec) = &mut self.secondary {
            for p in sec {
                p.set_row(dy);
            }
        }
    }

    #[inline(always)]
    fn group<const ROW: bool>(
        &self,
        o: (f32x8<S>, f32x8<S>),
        m: Option<mask32x8<S>>,
        d: &mut [f32],
        c: &mut [[u8; 4]],
    ) -> i32x8<S> {
        Kernel::group::<ROW>(self, o, m, d, c)
    }
}

/// The fused path of one batch of pixels (see the module documentation) whose offsets are
/// `dx`, `dy`: the kernel of `t` on `planes` ([`Kernel::new`]), `n` pixels (the first
/// `live` real). Returns the number of fragments written.
#[allow(clippy::too_many_arguments, reason = "one batch's complete context")]
#[inline(always)]
pub(crate) fn textured<S: Simd>(
    simd: S,
    t: &TextureFusion,
    planes: &[f32],
    (dx, dy): (&[f32], &[f32]),
    (live, n): (usize, usize),
    (zlim, depth_fn, blend): ((f32, f32), (u8, bool), bool),
    (depth, color): (&mut [f32], &mut [[u8; 4]]),
) -> u64 {
    let k = Kernel::new(simd, t, planes, zlim, depth_fn, blend);
    lane_count(fused_groups(
        simd,
        At::Pixels(dx, dy),
        0.0,
        (live, n),
        0,
        (depth, color),
        #[inline(always)]
        |o, m, d, c| k.group::<false>(o, m, d, c),
    ))
}
