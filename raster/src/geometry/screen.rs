//! Screen-space tests of filled triangles from their clip positions alone: finite, outside
//! a clip plane, snapped, facing, covering a pixel centre. They decide whether a triangle is
//! drawn before any of its varyings are fetched, and they are computed once per vertex
//! ([`ScreenVertex`]), eight vertices at a time in lanes ([`screen_vertices`]).

use fearless_simd::{Level, Simd};
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
    _simd: S,
    ctx: &SetupCtx,
    planes: &ClipPlanes,
    first: usize,
    position: &P,
    out: &mut [ScreenVertex],
) {
    let [x_lo, x_hi, y_lo, y_hi] = planes.band();
    let user = &planes.planes()[6..];
    let vp = &ctx.viewport;
    let (hw, hh) = (vp.width * 0.5, vp.height * 0.5);
    for (b, block) in out.chunks_mut(LANES).enumerate() {
        let base = first + b * LANES;
        let (mut px, mut py, mut pz, mut pw) =
            ([0.0f32; LANES], [0.0; LANES], [0.0; LANES], [0.0; LANES]);
        for (i, _) in block.iter().enumerate() {
            let p = position(base + i);
            (px[i], py[i], pz[i], pw[i]) = (p.x, p.y, p.z, p.w);
        }
        let mut finite = [false; LANES];
        let mut code = [0u32; LANES];
        let mut snapped = [false; LANES];
        let (mut sx, mut sy) = ([0i32; LANES], [0i32; LANES]);
        for i in 0..LANES {
            let win = [vp.x, vp.y, hw, hh];
            let t = corner_test([x_lo, x_hi, y_lo, y_hi], win, [px[i], py[i], pz[i], pw[i]]);
            (finite[i], code[i], snapped[i], sx[i], sy[i]) = t;
        }
        for (k, pl) in user.iter().enumerate() {
            for i in 0..LANES {
                let p = Vec4::new(px[i], py[i], pz[i], pw[i]);
                code[i] |= u32::from(crate::base::math::dot4(*pl, p) < 0.0) << (6 + k);
            }
        }
        for (i, o) in block.iter_mut().enumerate() {
            *o = if finite[i] {
                ScreenVertex {
                    finite: true,
                    outcode: code[i],
                    snapped: (code[i] == 0 && snapped[i]).then_some((sx[i], sy[i])),
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

/// One corner's screen test, as the batched and the lanes front ends (`geometry::lanes`)
/// both take it: whether `(x, y, z, w)` is finite; `ClipPlanes::outcode`'s six fixed planes
/// (`band` = the x and y guard band's `[lo, hi, lo, hi]`); and `SetupCtx::window_xy` of the
/// point (`win` = viewport x, y, half width, half height) snapped by `Fixed::snap` per axis,
/// with whether both snaps were in range.
#[inline(always)]
pub(crate) fn corner_test(
    [x_lo, x_hi, y_lo, y_hi]: [f32; 4],
    [vx, vy, hw, hh]: [f32; 4],
    [x, y, z, w]: [f32; 4],
) -> (bool, u32, bool, i32, i32) {
    let finite = x.is_finite() & y.is_finite() & z.is_finite() & w.is_finite();
    let code = u32::from(z < 0.0)
        | u32::from(w - z < 0.0) << 1
        | u32::from(x - x_lo * w < 0.0) << 2
        | u32::from(x_hi * w - x < 0.0) << 3
        | u32::from(y - y_lo * w < 0.0) << 4
        | u32::from(y_hi * w - y < 0.0) << 5;
    let q = 1.0 / w;
    let wx = vx + (x * q + 1.0) * hw;
    let wy = vy + (1.0 - y * q) * hh;
    let (okx, fx) = crate::base::fixed::snap_parts(wx);
    let (oky, fy) = crate::base::fixed::snap_parts(wy);
    (finite, code, okx & oky, fx, fy)
}
