//! Eight filled triangles at a time: the screen tests of `screen_triangle` and the set-up of
//! [`TriSink::oriented`], each computed across [`LANES`] triangles in lanes. The front end
//! (`assemble`) gathers the lanes, compacts the triangles drawn into the set-up lanes in
//! submission order and emits them in that order.
//!
//! Every lane computes the scalar definition's expressions — the same integer arithmetic, the
//! same IEEE `f32` and `f64` operations in the same order, no fused multiply-add — and the
//! decisions are selected per lane in the order the scalar branches take them, so the results
//! are the same bits at every SIMD level. The kernels are plain arrays and loops compiled once
//! per level under its target features (`dispatch!`), which the compiler vectorises.
//!
//! [`TriSink::oriented`]: crate::geometry::setup::TriSink::oriented

use fearless_simd::{f32x4, f32x8, prelude::*, Level};

use crate::base::fixed::{Edge32, SUBPIXEL_HALF, SUBPIXEL_ONE};
use crate::base::vec_lanes::LANES;
use crate::geometry::clip::ClipPlanes;
use crate::geometry::screen::{corner_lanes, point_lanes, transpose4, ScreenVertex};
use crate::geometry::setup::{lane_edges, GeometryStats, SetupCtx};
use crate::state::{CullMode, FrontFace};
use crate::target::TILE_SHIFT;
use crate::vertex::{ClipVertex, MAX_VARYINGS};

/// A triangle the screen tests keep: set up and drawn.
pub(crate) const DRAW: u32 = 0;
/// Crosses a clip plane: the general path clips it.
pub(crate) const NEEDS_CLIP: u32 = 1;
/// A position is NaN or infinite.
const NON_FINITE: u32 = 2;
/// Entirely outside one clip plane.
const CLIPPED_AWAY: u32 = 3;
/// Not snapped, or zero area once snapped.
const DEGENERATE: u32 = 4;
/// Faces the culled way.
const CULLED: u32 = 5;
/// Its pixel box holds no pixel centre (counted nowhere).
const EMPTY: u32 = 6;

/// Counts a rejected triangle's verdict (anything but [`DRAW`] and [`NEEDS_CLIP`]) in
/// `stats`, as `screen_triangle`'s `Screen::Rejected` counter does.
#[inline]
pub(crate) fn count_rejected(stats: &mut GeometryStats, verdict: u32) {
    match verdict {
        NON_FINITE => stats.non_finite += 1,
        CLIPPED_AWAY => stats.clipped_away += 1,
        DEGENERATE => stats.degenerate += 1,
        CULLED => stats.culled += 1,
        _ => {}
    }
}

/// What the screen tests read of [`LANES`] triangles' corners ([`ScreenVertex`]es), lane
/// `i` one triangle: gathered by [`ScreenIn::set`], unused lanes left as they were.
pub(crate) struct ScreenIn {
    /// 1 when all three corners are finite, else 0.
    finite: [u32; LANES],
    /// 1 when all three corners snapped, else 0.
    snapped: [u32; LANES],
    /// The corners' outcodes, and-ed and or-ed.
    and: [u32; LANES],
    or: [u32; LANES],
    /// Snapped corners (0 where a corner did not snap).
    x: [[i32; LANES]; 3],
    y: [[i32; LANES]; 3],
}

impl ScreenIn {
    pub fn new() -> ScreenIn {
        ScreenIn {
            finite: [0; LANES],
            snapped: [0; LANES],
            and: [0; LANES],
            or: [0; LANES],
            x: [[0; LANES]; 3],
            y: [[0; LANES]; 3],
        }
    }

    /// Lane `i`: the triangle of corners `sv`.
    #[inline(always)]
    pub fn set(&mut self, i: usize, sv: &[ScreenVertex; 3]) {
        let (mut finite, mut snapped, mut and, mut or) = (true, true, !0u32, 0u32);
        for (k, v) in sv.iter().enumerate() {
            finite &= v.finite;
            snapped &= v.snapped.is_some();
            and &= v.outcode;
            or |= v.outcode;
            (self.x[k][i], self.y[k][i]) = v.snapped.unwrap_or((0, 0));
        }
        self.finite[i] = u32::from(finite);
        self.snapped[i] = u32::from(snapped);
        self.and[i] = and;
        self.or[i] = or;
    }
}

/// The clip positions of [`LANES`] triangles' corners: corner `k` of lane `i`'s triangle is
/// `p[k][i]` = `[x, y, z, w]` (made lanes in `screen_corners`, [`point_lanes`]).
pub(crate) struct Corners {
    pub p: [[[f32; 4]; LANES]; 3],
}

impl Corners {
    pub fn new() -> Corners {
        Corners {
            p: [[[0.0, 0.0, 0.0, 1.0]; LANES]; 3],
        }
    }

    /// Lane `i`, corner `k`: the clip position `p`.
    #[inline(always)]
    pub fn set(&mut self, i: usize, k: usize, p: glam::Vec4) {
        self.p[k][i] = p.to_array();
    }
}

/// [`ScreenVertex::new`] of every corner of `c` against `planes`, gathered per triangle into
/// `out` as [`ScreenIn::set`] gathers them, at instruction set `level`: the screen tests'
/// input straight from the triangles' positions, for draws whose vertices are not tested
/// once each beforehand. The expressions are `screen_vertices`'s.
pub(crate) fn screen_corners(
    level: Level,
    ctx: &SetupCtx,
    planes: &ClipPlanes,
    c: &Corners,
    out: &mut ScreenIn,
) {
    crate::base::simd::dispatch!(level, simd => screen_corners_at(simd, ctx, planes, c, out))
}

#[inline(always)]
fn screen_corners_at<S: Simd>(
    simd: S,
    ctx: &SetupCtx,
    planes: &ClipPlanes,
    c: &Corners,
    out: &mut ScreenIn,
) {
    let clip = (planes.band(), &planes.planes()[6..]);
    let vp = &ctx.viewport;
    let win = [vp.x, vp.y, vp.width * 0.5, vp.height * 0.5];
    (out.finite, out.snapped) = ([1; LANES], [1; LANES]);
    (out.and, out.or) = ([!0; LANES], [0; LANES]);
    for k in 0..3 {
        let t = corner_lanes(simd, clip, win, point_lanes(simd, &c.p[k]));
        for i in 0..LANES {
            // A non-finite corner is `ScreenVertex::default()`: outcode 0, not snapped.
            let finite = t.finite[i] as u32;
            let code = t.code[i] as u32 & finite.wrapping_neg();
            let snapped = finite & u32::from(code == 0) & t.snapped[i] as u32;
            out.finite[i] &= finite;
            out.snapped[i] &= snapped;
            out.and[i] &= code;
            out.or[i] |= code;
            let keep = (snapped as i32).wrapping_neg();
            out.x[k][i] = t.x[i] & keep;
            out.y[k][i] = t.y[i] & keep;
        }
    }
}

/// The screen tests of [`LANES`] triangles, lane `i` the triangle of lane `i` of a
/// [`ScreenIn`].
pub(crate) struct ScreenLanes {
    /// [`DRAW`], [`NEEDS_CLIP`] or why the triangle is rejected.
    pub verdict: [u32; LANES],
    /// Snapped corners, oriented (corners 1 and 2 swapped where the given order had a
    /// negative area), as `Oriented` holds them.
    pub xs: [[i32; LANES]; 3],
    pub ys: [[i32; LANES]; 3],
    /// `|area2|`, exactly (snapped corners are below 2²⁴ in magnitude, so the products of
    /// their differences and the difference of those are exact in `f64`).
    pub a2: [f64; LANES],
    /// 1 where corners 1 and 2 were swapped, else 0.
    pub swapped: [u32; LANES],
    /// 1 where the triangle faces front, else 0.
    pub front: [u32; LANES],
    /// Pixel box `[x0, y0, x1, y1]`, clamped to [`SetupCtx::clip_rect`].
    pub bbox: [[i32; LANES]; 4],
    /// The one tile the box lies in (`ty · tiles_x + tx`), `u32::MAX` when it spans several:
    /// what `ChunkBins` would compute.
    pub tile: [u32; LANES],
}

/// `screen_triangle` of the triangles of `sv` for a target `tiles_x` tiles wide, at
/// instruction set `level`.
pub(crate) fn screen_lanes(
    level: Level,
    ctx: &SetupCtx,
    tiles_x: u32,
    sv: &ScreenIn,
) -> ScreenLanes {
    crate::base::simd::dispatch!(level, simd => screen_lanes_at(simd, ctx, tiles_x, sv))
}

#[inline(always)]
fn screen_lanes_at<S: Simd>(_simd: S, ctx: &SetupCtx, tiles_x: u32, sv: &ScreenIn) -> ScreenLanes {
    let (x, y) = (&sv.x, &sv.y);
    // `area2`, in f64 (exact: see `ScreenLanes::a2`), and its sign.
    let (mut a2, mut sign) = ([0.0f64; LANES], [0i32; LANES]);
    for i in 0..LANES {
        let (ax, ay) = (x[1][i] - x[0][i], y[1][i] - y[0][i]);
        let (bx, by) = (x[2][i] - x[0][i], y[2][i] - y[0][i]);
        let a = f64::from(ax) * f64::from(by) - f64::from(bx) * f64::from(ay);
        a2[i] = a.abs();
        sign[i] = i32::from(a > 0.0) - i32::from(a < 0.0);
    }
    let front_sign = if ctx.front_face == FrontFace::Ccw {
        -1
    } else {
        1
    };
    let (cull_none, cull_back) = (ctx.cull == CullMode::None, ctx.cull == CullMode::Back);
    let r = ctx.clip_rect;
    let mut s = ScreenLanes {
        verdict: [DRAW; LANES],
        xs: *x,
        ys: *y,
        a2,
        swapped: [0; LANES],
        front: [0; LANES],
        bbox: [[0; LANES]; 4],
        tile: [0; LANES],
    };
    for i in 0..LANES {
        // `TriSink::facing`, `Oriented::with_area`, `pixel_bbox`.
        let front = sign[i] == front_sign;
        let keep = cull_none | (front == cull_back);
        let swapped = sign[i] < 0;
        s.xs[1][i] = if swapped { x[2][i] } else { x[1][i] };
        s.xs[2][i] = if swapped { x[1][i] } else { x[2][i] };
        s.ys[1][i] = if swapped { y[2][i] } else { y[1][i] };
        s.ys[2][i] = if swapped { y[1][i] } else { y[2][i] };
        let b = [
            ceil_centre(x[0][i].min(x[1][i]).min(x[2][i])).max(r[0]),
            ceil_centre(y[0][i].min(y[1][i]).min(y[2][i])).max(r[1]),
            (floor_centre(x[0][i].max(x[1][i]).max(x[2][i])) + 1).min(r[2]),
            (floor_centre(y[0][i].max(y[1][i]).max(y[2][i])) + 1).min(r[3]),
        ];
        let empty = (b[0] >= b[2]) | (b[1] >= b[3]);
        let (tx0, ty0) = (b[0] >> TILE_SHIFT, b[1] >> TILE_SHIFT);
        let single = (tx0 == (b[2] - 1) >> TILE_SHIFT) & (ty0 == (b[3] - 1) >> TILE_SHIFT);
        let t = (ty0 as u32).wrapping_mul(tiles_x).wrapping_add(tx0 as u32);
        s.tile[i] = if single { t } else { u32::MAX };
        (s.bbox[0][i], s.bbox[1][i], s.bbox[2][i], s.bbox[3][i]) = (b[0], b[1], b[2], b[3]);
        (s.swapped[i], s.front[i]) = (u32::from(swapped), u32::from(front));
        // The scalar branches' order, last first.
        let mut v = if empty { EMPTY } else { DRAW };
        v = if keep { v } else { CULLED };
        v = if (sv.snapped[i] != 0) & (sign[i] != 0) {
            v
        } else {
            DEGENERATE
        };
        v = if sv.or[i] == 0 { v } else { NEEDS_CLIP };
        v = if sv.and[i] == 0 { v } else { CLIPPED_AWAY };
        s.verdict[i] = if sv.finite[i] != 0 { v } else { NON_FINITE };
    }
    s
}

/// `Fixed::ceil_pixel_centre` (a floor division by a power of two is a shift).
#[inline(always)]
fn ceil_centre(v: i32) -> i32 {
    (v - SUBPIXEL_HALF + SUBPIXEL_ONE - 1) >> crate::base::fixed::SUBPIXEL_BITS
}

/// `Fixed::floor_pixel_centre`.
#[inline(always)]
fn floor_centre(v: i32) -> i32 {
    (v - SUBPIXEL_HALF) >> crate::base::fixed::SUBPIXEL_BITS
}

/// Up to [`LANES`] drawn triangles gathered for set-up, in submission order: lane `i` holds
/// one triangle's oriented corners (corners 1 and 2 swapped where its screen test swapped
/// them) and its vertices in that order, fetched in place.
pub(crate) struct SetupLanes {
    /// Lanes in use.
    pub n: usize,
    pub xs: [[i32; LANES]; 3],
    pub ys: [[i32; LANES]; 3],
    /// `|area2|`.
    pub a2: [f64; LANES],
    /// Lane `i`'s vertices (clip `z` and `w` and the draw's varyings are read).
    pub v: [[ClipVertex; 3]; LANES],
    /// Per triangle, not computed in lanes: its box, facing, primitive and single tile.
    pub bbox: [[i32; 4]; LANES],
    pub front: [bool; LANES],
    pub prim: [u32; LANES],
    pub tile: [u32; LANES],
}

impl SetupLanes {
    pub fn new() -> Box<SetupLanes> {
        let unit = ClipVertex {
            pos: glam::Vec4::ONE,
            ..ClipVertex::default()
        };
        Box::new(SetupLanes {
            n: 0,
            xs: [[0; LANES]; 3],
            ys: [[0; LANES]; 3],
            a2: [1.0; LANES],
            v: [[unit; 3]; LANES],
            bbox: [[0; 4]; LANES],
            front: [false; LANES],
            prim: [0; LANES],
            tile: [0; LANES],
        })
    }
}

/// Plane floats per triangle: depth, `1/w` and [`MAX_VARYINGS`] varyings, three each.
pub(crate) const PLANE_ROWS: usize = 3 * (2 + MAX_VARYINGS);

/// What the set-up lanes produce: float `r` of lane `i`'s planes at `rows[r][i]` (the
/// layout `TriSink::oriented` stores per triangle; the draw's first `3 · (2 + nvar)` rows),
/// and their origin.
pub(crate) struct PlaneLanes {
    pub rows: [[f32; LANES]; PLANE_ROWS],
    pub ref_x: [f32; LANES],
    pub ref_y: [f32; LANES],
    /// Lane `i`'s `i32` edges, and whether they fit ([`lane_edges`]).
    pub edges: [[Edge32; 3]; LANES],
    pub fits: [bool; LANES],
}

impl PlaneLanes {
    pub fn new() -> Box<PlaneLanes> {
        Box::new(PlaneLanes {
            rows: [[0.0; LANES]; PLANE_ROWS],
            ref_x: [0.0; LANES],
            ref_y: [0.0; LANES],
            edges: [[Edge32::new((0, 0), (0, 0)); 3]; LANES],
            fits: [false; LANES],
        })
    }
}

/// `TriSink::oriented`'s plane equations of the triangles `l` (every lane: unused ones hold
/// harmless values) into `out`, the first `nflat` varyings constants (flat shading), at
/// instruction set `level`. The window transform of depth and `1/w` is
/// `SetupCtx::to_window_zq_into`'s.
pub(crate) fn setup_lanes(
    level: Level,
    ctx: &SetupCtx,
    nflat: usize,
    l: &SetupLanes,
    out: &mut PlaneLanes,
) {
    crate::base::simd::dispatch!(level, simd => setup_lanes_at(simd, ctx, nflat, l, out))
}

/// The edge vectors and inverse area a triangle's planes share, per lane.
struct Geometry {
    e1x: [f64; LANES],
    e1y: [f64; LANES],
    e2x: [f64; LANES],
    e2y: [f64; LANES],
    inv_area: [f64; LANES],
}

#[inline(always)]
fn setup_lanes_at<S: Simd>(
    _simd: S,
    ctx: &SetupCtx,
    nflat: usize,
    l: &SetupLanes,
    out: &mut PlaneLanes,
) {
    let inv = 1.0 / SUBPIXEL_ONE as f64;
    let mut g = Geometry {
        e1x: [0.0; LANES],
        e1y: [0.0; LANES],
        e2x: [0.0; LANES],
        e2y: [0.0; LANES],
        inv_area: [0.0; LANES],
    };
    for i in 0..LANES {
        let (x0, y0) = (f64::from(l.xs[0][i]) * inv, f64::from(l.ys[0][i]) * inv);
        g.e1x[i] = f64::from(l.xs[1][i]) * inv - x0;
        g.e1y[i] = f64::from(l.ys[1][i]) * inv - y0;
        g.e2x[i] = f64::from(l.xs[2][i]) * inv - x0;
        g.e2y[i] = f64::from(l.ys[2][i]) * inv - y0;
        g.inv_area[i] = 1.0 / (l.a2[i] * inv * inv);
        (out.ref_x[i], out.ref_y[i]) = (x0 as f32, y0 as f32);
    }
    for i in 0..LANES {
        let xs = [l.xs[0][i], l.xs[1][i], l.xs[2][i]];
        let ys = [l.ys[0][i], l.ys[1][i], l.ys[2][i]];
        (out.edges[i], out.fits[i]) = lane_edges(&xs, &ys);
    }
    let vp = &ctx.viewport;
    let range = vp.max_depth - vp.min_depth;
    let (mut z, mut q) = ([[0.0f64; LANES]; 3], [[0.0f64; LANES]; 3]);
    for c in 0..3 {
        for i in 0..LANES {
            let p = l.v[i][c].pos;
            let qc = 1.0 / p.w;
            q[c][i] = f64::from(qc);
            z[c][i] = f64::from(vp.min_depth + (p.z * qc) * range);
        }
    }
    plane(&g, &z, &mut out.rows[0..3]);
    plane(&g, &q, &mut out.rows[3..6]);
    for k in 0..nflat {
        let r = 3 * (2 + k);
        for i in 0..LANES {
            out.rows[r][i] = l.v[i][0].var[k];
        }
        out.rows[r + 1] = [0.0; LANES];
        out.rows[r + 2] = [0.0; LANES];
    }
    for k in nflat..ctx.nvar.min(MAX_VARYINGS) {
        let mut a = [[0.0f64; LANES]; 3];
        for c in 0..3 {
            for i in 0..LANES {
                a[c][i] = f64::from(l.v[i][c].var[k]) * q[c][i];
            }
        }
        let r = 3 * (2 + k);
        plane(&g, &a, &mut out.rows[r..r + 3]);
    }
}

/// `TriSink::oriented`'s `plane` of the corner values `a`: `[a0, ∂/∂x, ∂/∂y]` as `f32`.
#[inline(always)]
fn plane(g: &Geometry, a: &[[f64; LANES]; 3], out: &mut [[f32; LANES]]) {
    for i in 0..LANES {
        let (d1, d2) = (a[1][i] - a[0][i], a[2][i] - a[0][i]);
        let dx = (d1 * g.e2y[i] - d2 * g.e1y[i]) * g.inv_area[i];
        let dy = (d2 * g.e1x[i] - d1 * g.e2x[i]) * g.inv_area[i];
        out[0][i] = a[0][i] as f32;
        out[1][i] = dx as f32;
        out[2][i] = dy as f32;
    }
}

/// Lane `i`'s plane floats — its column of `rows` — into `dst[at[i]..at[i] + rows.len()]`,
/// for the lanes `i < n`, at instruction set `level`: the emit's rows × lanes transpose,
/// eight rows at a time in registers (three rounds of interleaves; the rows left over padded
/// to a block), each lane's floats stored eight at a time. Only data moves: the same bits at
/// every level.
pub(crate) fn store_planes(
    level: Level,
    rows: &[[f32; LANES]],
    n: usize,
    at: &[usize; LANES],
    dst: &mut [f32],
) {
    crate::base::simd::dispatch!(level, simd => store_planes_at(simd, rows, n, at, dst))
}

#[inline(always)]
fn store_planes_at<S: Simd>(
    simd: S,
    rows: &[[f32; LANES]],
    n: usize,
    at: &[usize; LANES],
    dst: &mut [f32],
) {
    let blocks = rows.chunks_exact(LANES);
    let tail = blocks.remainder();
    let full = rows.len() - tail.len();
    for (b, block) in blocks.enumerate() {
        let x = transpose(simd, block);
        store_cols::<S, LANES>(&x, &at[..n], b * LANES, dst);
    }
    if (1..=4).contains(&tail.len()) {
        // Up to four rows left: two 4 × 4 transposes give each lane's floats.
        let mut r4 = [[0.0f32; LANES]; 4];
        r4[..tail.len()].copy_from_slice(tail);
        let half = |h: usize| {
            let rows = std::array::from_fn(|k| f32x4::from_slice(simd, &r4[k][4 * h..4 * h + 4]));
            transpose4(simd, rows).map(<[f32; 4]>::from)
        };
        let (lo, hi) = (half(0), half(1));
        let cols: [[f32; 4]; LANES] =
            std::array::from_fn(|i| if i < 4 { lo[i] } else { hi[i - 4] });
        let at = &at[..n];
        match tail.len() {
            1 => store_rows::<1>(&cols, at, full, dst),
            2 => store_rows::<2>(&cols, at, full, dst),
            3 => store_rows::<3>(&cols, at, full, dst),
            _ => store_rows::<4>(&cols, at, full, dst),
        }
        return;
    }
    // The rows left over, padded to a block; each lane stores its first `tail.len()`.
    let mut pad = [[0.0; LANES]; LANES];
    pad[..tail.len()].copy_from_slice(tail);
    let (x, at) = (transpose(simd, &pad), &at[..n]);
    match tail.len() {
        1 => store_cols::<S, 1>(&x, at, full, dst),
        2 => store_cols::<S, 2>(&x, at, full, dst),
        3 => store_cols::<S, 3>(&x, at, full, dst),
        4 => store_cols::<S, 4>(&x, at, full, dst),
        5 => store_cols::<S, 5>(&x, at, full, dst),
        6 => store_cols::<S, 6>(&x, at, full, dst),
        7 => store_cols::<S, 7>(&x, at, full, dst),
        _ => {}
    }
}

/// The first `N` floats of lane `i`'s column `cols[i]` to `dst[at[i] + r..]`.
#[inline(always)]
fn store_rows<const N: usize>(cols: &[[f32; 4]; LANES], at: &[usize], r: usize, dst: &mut [f32]) {
    for (col, &a) in cols.iter().zip(at) {
        let o = a + r;
        dst[o..o + N].copy_from_slice(&col[..N]);
    }
}

/// The 8 × 8 block `b` transposed: interleaving rows `k` and `k + 4` into `2k` and `2k + 1`,
/// three times.
#[inline(always)]
fn transpose<S: Simd>(simd: S, b: &[[f32; LANES]]) -> [f32x8<S>; LANES] {
    let round = |x: [f32x8<S>; LANES]| {
        let (a, b) = simd.interleave_f32x8(x[0], x[4]);
        let (c, d) = simd.interleave_f32x8(x[1], x[5]);
        let (e, f) = simd.interleave_f32x8(x[2], x[6]);
        let (g, h) = simd.interleave_f32x8(x[3], x[7]);
        [a, b, c, d, e, f, g, h]
    };
    let b: &[[f32; LANES]; LANES] = b.try_into().expect("a block of eight rows");
    let x = b.map(|r| f32x8::from_slice(simd, &r));
    round(round(round(x)))
}

/// The first `N` floats of column `i` of a transposed block to `dst[at[i] + r..]`.
#[inline(always)]
fn store_cols<S: Simd, const N: usize>(
    x: &[f32x8<S>; LANES],
    at: &[usize],
    r: usize,
    dst: &mut [f32],
) {
    for (col, &a) in x.iter().zip(at) {
        let o = a + r;
        let v: &[f32; LANES] = col;
        dst[o..o + N].copy_from_slice(&v[..N]);
    }
}
