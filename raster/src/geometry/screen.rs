//! Screen-space tests of filled triangles from their clip positions alone: finite, outside
//! a clip plane, snapped, facing, covering a pixel centre. They decide whether a triangle is
//! drawn before any of its varyings are fetched, and they are computed once per vertex
//! ([`ScreenVertex`]), eight vertices at a time in lanes ([`screen_vertices`]).

use fearless_simd::{f32x4, f32x8, mask32x8, prelude::*, Level};
use glam::Vec4;

use crate::base::fixed::Fixed;
use crate::base::vec_lanes::LANES;
use crate::geometry::clip::ClipPlanes;
use crate::geometry::setup::{GeometryStats, Oriented, SetupCtx, TriSink};

/// Which counter of [`GeometryStats`] a rejected primitive adds to.
pub(crate) type Counter = fn(&mut GeometryStats) -> &mut u64;

/// What the positions alone say about a filled triangle.
pub(crate) enum Screen {
    /// Crosses a clip plane: the general path (`context::assemble`) clips it.
    NeedsClip,
    /// Nothing to draw; the counter it adds to, if any (a triangle that covers no pixel
    /// centre counts nowhere, as in [`TriSink::triangle`]).
    Rejected(Option<Counter>),
    /// Inside every clip plane, facing the kept way, covering pixels: snapped positions,
    /// the same oriented and boxed for [`TriSink::oriented`].
    Draw {
        snapped: [(i32, i32); 3],
        tri: Oriented,
        front: bool,
    },
}

/// What the screen-space tests need of one vertex, from its clip position alone.
#[derive(Clone, Copy, Default)]
pub(crate) struct ScreenVertex {
    pub finite: bool,
    /// [`ClipPlanes::outcode`] (0 when not finite).
    pub outcode: u32,
    /// The snapped window position, when finite and inside every clip plane (`None` also
    /// when snapping fails).
    pub snapped: Option<(i32, i32)>,
}

impl ScreenVertex {
    /// The scalar definition ([`screen_vertices`] computes the same in lanes).
    #[inline]
    pub(crate) fn new(ctx: &SetupCtx, planes: &ClipPlanes, p: Vec4) -> ScreenVertex {
        if !p.is_finite() {
            return ScreenVertex::default();
        }
        let outcode = planes.outcode(p);
        let snapped = if outcode == 0 {
            let (x, y) = ctx.window_xy(p);
            match (Fixed::snap(x), Fixed::snap(y)) {
                (Some(x), Some(y)) => Some((x.0, y.0)),
                _ => None,
            }
        } else {
            None
        };
        ScreenVertex {
            finite: true,
            outcode,
            snapped,
        }
    }
}

/// The decisions of `context::assemble` and [`TriSink::polygon`] for an unclipped filled triangle,
/// in the same order and with the same expressions, from its vertices' [`ScreenVertex`]es.
#[inline]
pub(crate) fn screen_triangle(ctx: &SetupCtx, v: [ScreenVertex; 3]) -> Screen {
    if v.iter().any(|v| !v.finite) {
        return Screen::Rejected(Some(|s| &mut s.non_finite));
    }
    let (mut and, mut or) = (!0u32, 0u32);
    for v in &v {
        and &= v.outcode;
        or |= v.outcode;
    }
    if and != 0 {
        return Screen::Rejected(Some(|s| &mut s.clipped_away));
    }
    if or != 0 {
        return Screen::NeedsClip;
    }
    let (Some(a), Some(b), Some(c)) = (v[0].snapped, v[1].snapped, v[2].snapped) else {
        return Screen::Rejected(Some(|s| &mut s.degenerate));
    };
    let snapped = [a, b, c];
    let xs = [a.0, b.0, c.0];
    let ys = [a.1, b.1, c.1];
    let a2 = crate::geometry::setup::area2(&xs, &ys);
    if a2 == 0 {
        return Screen::Rejected(Some(|s| &mut s.degenerate));
    }
    let (keep, front) = TriSink::facing(ctx, a2);
    if !keep {
        return Screen::Rejected(Some(|s| &mut s.culled));
    }
    match Oriented::with_area(&ctx.clip_rect, xs, ys, a2) {
        Ok(tri) => Screen::Draw {
            snapped,
            tri,
            front,
        },
        Err(_) => Screen::Rejected(None),
    }
}

/// [`ScreenVertex::new`] of the positions `position(first + j)` into `out[j]`, in blocks of
/// [`LANES`] vertices at instruction set `level` (one dispatch per call): every lane computes
/// the scalar definition's expressions, and the results are selected per vertex the way its
/// branches decide, so the values are the same bits at every level.
pub(crate) fn screen_vertices<P: Fn(usize) -> Vec4>(
    level: Level,
    ctx: &SetupCtx,
    planes: &ClipPlanes,
    first: usize,
    position: &P,
    out: &mut [ScreenVertex],
) {
    crate::base::simd::dispatch!(level, simd => screen_vertices_at(simd, ctx, planes, first, position, out))
}

#[inline(always)]
fn screen_vertices_at<S: Simd, P: Fn(usize) -> Vec4>(
    simd: S,
    ctx: &SetupCtx,
    planes: &ClipPlanes,
    first: usize,
    position: &P,
    out: &mut [ScreenVertex],
) {
    let clip = (planes.band(), &planes.planes()[6..]);
    let vp = &ctx.viewport;
    let win = [vp.x, vp.y, vp.width * 0.5, vp.height * 0.5];
    for (b, block) in out.chunks_mut(LANES).enumerate() {
        let base = first + b * LANES;
        let mut rows = [[0.0f32; 4]; LANES];
        for (i, _) in block.iter().enumerate() {
            rows[i] = position(base + i).to_array();
        }
        let c = corner_lanes(simd, clip, win, point_lanes(simd, &rows));
        for (i, o) in block.iter_mut().enumerate() {
            let code = c.code[i] as u32;
            *o = if c.finite[i] != 0 {
                ScreenVertex {
                    finite: true,
                    outcode: code,
                    snapped: (code == 0 && c.snapped[i] != 0).then_some((c.x[i], c.y[i])),
                }
            } else {
                ScreenVertex::default()
            };
        }
    }
}

#[cfg(feature = "internal-tests")]
pub(crate) mod tests {
    /// Every test of this module: `tests/unit.rs` runs each as one trial (an unlisted
    /// test fails the build as dead code).
    pub(crate) const TESTS: &[(&str, fn())] = &[(
        "lanes_match_scalar_at_every_level",
        lanes_match_scalar_at_every_level,
    )];

    use super::*;
    use crate::base::simd::SimdLevel;
    use crate::state::{PipelineState, Viewport};

    /// The lanes kernel equals the scalar definition at every level the machine has, on
    /// finite, non-finite, clipped, off-band and on-tie positions, with and without user
    /// clip planes.
    fn lanes_match_scalar_at_every_level() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let specials = [
            0.0,
            -0.0,
            1.0,
            -1.0,
            f32::NAN,
            f32::INFINITY,
            f32::NEG_INFINITY,
            1e-30,
            1e30,
            0.5 / 960.0,
            3.0,
        ];
        let mut pos = Vec::new();
        for _ in 0..20_000 {
            let mut c = [0.0f32; 4];
            for v in &mut c {
                let r = next();
                *v = match r % 8 {
                    0 => specials[(r >> 8) as usize % specials.len()],
                    1 => f32::from_bits((r >> 16) as u32),
                    _ => ((r >> 40) as f32 / (1u64 << 24) as f32) * 4.0 - 2.0,
                };
            }
            if next() % 2 == 0 {
                c[3] = c[3].abs() + 0.25;
            }
            pos.push(Vec4::from_array(c));
        }
        let user = [
            Some(Vec4::new(0.3, -0.7, 0.1, 0.4)),
            None,
            Some(Vec4::new(-1.0, 0.0, 0.0, 0.9)),
        ];
        for clip in [&[][..], &user[..]] {
            let mut st = PipelineState::new(1920, 1080);
            st.viewport = Viewport {
                x: 3.0,
                ..st.viewport
            };
            let ctx = SetupCtx::new(&st, 1920, 1080, 4, 4);
            let planes = ClipPlanes::new(&st.viewport, clip);
            let want: Vec<_> = pos
                .iter()
                .map(|&p| ScreenVertex::new(&ctx, &planes, p))
                .collect();
            for level in SimdLevel::ALL {
                let Some(l) = level.to_level() else { continue };
                if level.check().is_err() {
                    continue;
                }
                let mut got = vec![ScreenVertex::default(); pos.len() - 3];
                screen_vertices(l, &ctx, &planes, 3, &|i| pos[i], &mut got);
                for (j, (g, w)) in got.iter().zip(&want[3..]).enumerate() {
                    assert_eq!(
                        (g.finite, g.outcode, g.snapped),
                        (w.finite, w.outcode, w.snapped),
                        "{level:?} vertex {} {:?}",
                        j + 3,
                        pos[j + 3]
                    );
                }
            }
        }
    }
}

/// Eight points as lanes of their coordinates: `rows[i]` = point `i`'s `[x, y, z, w]`, the
/// result `[x, y, z, w]` with lane `i` point `i`'s. Two 4 × 4 transposes ([`transpose4`];
/// a few register moves per point, where storing a point's coordinates one float at a time
/// into four arrays took four scattered stores), joined: only data moves.
#[inline(always)]
pub(crate) fn point_lanes<S: Simd>(simd: S, rows: &[[f32; 4]; LANES]) -> [f32x8<S>; 4] {
    let half =
        |r: &[[f32; 4]]| transpose4(simd, [0, 1, 2, 3].map(|i| f32x4::from_slice(simd, &r[i])));
    let (lo, hi) = (half(&rows[..4]), half(&rows[4..]));
    [0, 1, 2, 3].map(|k| simd.combine_f32x4(lo[k], hi[k]))
}

/// The 4 × 4 transpose of the rows `r` by interleaves: element `j` of result `k` is element
/// `k` of `r[j]`.
#[inline(always)]
pub(crate) fn transpose4<S: Simd>(simd: S, [r0, r1, r2, r3]: [f32x4<S>; 4]) -> [f32x4<S>; 4] {
    // [a0 c0 a1 c1], [b0 d0 b1 d1], [a2 c2 a3 c3], [b2 d2 b3 d3] (rows a, b, c, d) …
    let (a, b) = (simd.zip_low_f32x4(r0, r2), simd.zip_low_f32x4(r1, r3));
    let (c, d) = (simd.zip_high_f32x4(r0, r2), simd.zip_high_f32x4(r1, r3));
    // … then [a0 b0 c0 d0], [a1 …], [a2 …], [a3 …].
    [
        simd.zip_low_f32x4(a, b),
        simd.zip_high_f32x4(a, b),
        simd.zip_low_f32x4(c, d),
        simd.zip_high_f32x4(c, d),
    ]
}

/// One corner's screen test of eight points at once (lane `i` the point `(x[i], y[i], z[i],
/// w[i])`), as the per-vertex and the per-triangle lanes front ends (`geometry::lanes`) both
/// take it: whether the point is finite (`|v| < ∞` is false for NaN and ±∞ alone);
/// `ClipPlanes::outcode`, its six fixed planes (`band` = the x and y guard band's `[lo, hi,
/// lo, hi]`) by their expressions and the `user` planes by `math::dot4`'s; and
/// `SetupCtx::window_xy` of the point (`win` = viewport x, y, half width, half height)
/// snapped per axis (`fixed::snap_lanes`), with whether both snaps were in range. Flags are
/// 0 or 1 per lane.
#[inline(always)]
pub(crate) fn corner_lanes<S: Simd>(
    simd: S,
    ([x_lo, x_hi, y_lo, y_hi], user): ([f32; 4], &[Vec4]),
    [vx, vy, hw, hh]: [f32; 4],
    [x, y, z, w]: [f32x8<S>; 4],
) -> CornerLanes {
    let zero = simd.splat_f32x8(0.0);
    let (one, none) = (simd.splat_i32x8(1), simd.splat_i32x8(0));
    let flag = |m: mask32x8<S>| m.select(one, none);
    let finite = |v: f32x8<S>| v.abs().simd_lt(simd.splat_f32x8(f32::INFINITY));
    let bit = |v: f32x8<S>, b: u32| flag(v.simd_lt(zero)) << b;
    let mut code = bit(z, 0)
        | bit(w - z, 1)
        | bit(x - w * x_lo, 2)
        | bit(w * x_hi - x, 3)
        | bit(y - w * y_lo, 4)
        | bit(w * y_hi - y, 5);
    for (u, pl) in user.iter().enumerate() {
        let dot = (x * pl.x + z * pl.z) + (y * pl.y + w * pl.w);
        code |= bit(dot, 6 + u as u32);
    }
    let q = simd.splat_f32x8(1.0) / w;
    let wx = (x * q + 1.0) * hw + vx;
    let wy = (simd.splat_f32x8(1.0) - y * q) * hh + vy;
    let (okx, sx) = crate::base::fixed::snap_lanes(simd, wx);
    let (oky, sy) = crate::base::fixed::snap_lanes(simd, wy);
    CornerLanes {
        finite: flag(finite(x) & finite(y) & finite(z) & finite(w)).into(),
        code: code.into(),
        snapped: flag(okx & oky).into(),
        x: sx.into(),
        y: sy.into(),
    }
}

/// What [`corner_lanes`] gives: per lane, flags as 0 or 1.
pub(crate) struct CornerLanes {
    pub finite: [i32; LANES],
    /// The outcode (bits of the six fixed planes, then the user planes from bit 6).
    pub code: [i32; LANES],
    pub snapped: [i32; LANES],
    /// The snapped window position (0 where it did not snap).
    pub x: [i32; LANES],
    pub y: [i32; LANES],
}
