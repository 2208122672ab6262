//! Triangle setup: clip space → window space, snapping, culling, bounding boxes and the
//! attribute plane equations the fragment stage evaluates.
//!
//! Attribute planes are computed in `f64` from the *snapped* vertex positions, then stored as
//! `f32` `(value at vertex 0, ∂/∂x, ∂/∂y)`. A pixel's value is always evaluated as
//! `(a0 + ∂y·(py − y0)) + ∂x·(px − x0)` at its centre — the same expression whichever tile or
//! thread evaluates it, so results cannot depend on the tiling or thread count.
//!
//! Depth (`z_w`) is interpolated linearly in screen space; every other attribute `a` is
//! perspective-correct: `a/w` and `1/w` are interpolated and divided per pixel.

use crate::base::fixed::{Edge32, Fixed, SUBPIXEL_ONE};
use crate::state::{CullMode, FrontFace, PipelineState, PolygonMode, ShadeModel, Viewport};
use crate::vertex::{ClipVertex, MAX_VARYINGS};

/// Constant varyings for a primitive: the values and how many leading ones are constant.
pub(crate) type Flat<'a> = Option<(&'a [f32; MAX_VARYINGS], usize)>;

/// A vertex in window space.
#[derive(Clone, Copy, Debug)]
pub(crate) struct WinVertex {
    pub x: f32,
    pub y: f32,
    /// Window depth.
    pub z: f32,
    /// `1 / w_clip`.
    pub q: f32,
    pub var: [f32; MAX_VARYINGS],
}

impl WinVertex {
    /// All zeros (a scratch value to be overwritten).
    pub const ZERO: WinVertex = WinVertex {
        x: 0.0,
        y: 0.0,
        z: 0.0,
        q: 0.0,
        var: [0.0; MAX_VARYINGS],
    };
}

/// A triangle ready for rasterisation: snapped vertices (oriented so that the doubled area
/// is positive), its clamped pixel bounding box, and where its planes live.
#[derive(Clone, Copy, Debug)]
pub(crate) struct TriSetup {
    pub xs: [i32; 3],
    pub ys: [i32; 3],
    /// Pixel bounding box `[x0, x1) × [y0, y1)`, clamped to [`SetupCtx::clip_rect`] (filled
    /// polygons) or [`SetupCtx::quad_rect`] (point and line quads).
    pub bbox: [i32; 4],
    /// Snapped position of vertex 0 in pixels (the planes' origin).
    pub ref_x: f32,
    pub ref_y: f32,
    /// Offset of this triangle's planes in the draw's plane array.
    pub planes: u32,
    /// The edge functions in `i32` ([`lane_edges`]), folded once here rather than per tile,
    /// and whether the triangle is small enough for the tile walk's smallest class to use
    /// them (else they are not read).
    pub edges: [Edge32; 3],
    pub lanes: bool,
    /// Whether the primitive faces the viewer (for two-sided effects).
    pub front: bool,
    /// The first `flat_count` varyings are constants (flat shading: the colours; points:
    /// all): their planes hold values, not `a/w`.
    pub flat_count: u8,
}

/// The edges (`0→1`, `1→2`, `2→0`) of a triangle with snapped corners `(xs, ys)` in `i32`
/// ([`Edge32`]), and whether every value the tile walk's smallest class evaluates fits
/// (`fragment::tile`'s `cover_block` and `cover_rows`): `|E| ≤ |dx|·|Δy| + |dy|·|Δx| + 1`,
/// where `|dx|, |dy|` (edge deltas) are at most the triangle's extent `X` and the sampled
/// points lie inside its box, widened by the spare lanes (right of the box, or left of it
/// where `cover_rows` moves the block back into the tile; up to 15 pixels where the tile walk
/// evaluates two sets of lanes a row) and one row past the end: `|Δx|, |Δy| ≤ X + 16·256`.
/// With `X ≤ 2¹⁴` (64 pixels) that is below 2³⁰. (The
/// deltas themselves always fit: snapped coordinates are below 2²⁴ in magnitude.) No
/// branch: the set-up lanes compute it for eight triangles at once.
#[inline(always)]
pub(crate) fn lane_edges(xs: &[i32; 3], ys: &[i32; 3]) -> ([Edge32; 3], bool) {
    const MAX: u32 = 1 << 14;
    let mut fits = true;
    for i in 0..3 {
        let j = (i + 1) % 3;
        fits &= ((xs[j] - xs[i]).unsigned_abs() <= MAX) & ((ys[j] - ys[i]).unsigned_abs() <= MAX);
    }
    let p = |i: usize| (xs[i], ys[i]);
    let e = [
        Edge32::new(p(0), p(1)),
        Edge32::new(p(1), p(2)),
        Edge32::new(p(2), p(0)),
    ];
    (e, fits)
}

/// Counters of what happened to primitives in the geometry stage.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GeometryStats {
    /// Primitives submitted.
    pub primitives: u64,
    /// Primitives skipped because a position was NaN or infinite.
    pub non_finite: u64,
    /// Primitives entirely outside a clip plane.
    pub clipped_away: u64,
    /// Primitives that needed geometric clipping.
    pub clipped: u64,
    /// Primitives discarded by face culling.
    pub culled: u64,
    /// Primitives or pieces with zero area after snapping.
    pub degenerate: u64,
    /// Triangles handed to the rasteriser (after clipping, fan splitting, line/point quads).
    pub triangles_setup: u64,
}

impl GeometryStats {
    /// Adds another set of counters.
    pub fn add(&mut self, o: &GeometryStats) {
        self.primitives += o.primitives;
        self.non_finite += o.non_finite;
        self.clipped_away += o.clipped_away;
        self.clipped += o.clipped;
        self.culled += o.culled;
        self.degenerate += o.degenerate;
        self.triangles_setup += o.triangles_setup;
    }
}

/// Per-draw constants of the setup stage.
pub(crate) struct SetupCtx {
    pub viewport: Viewport,
    /// Pixel rectangle `[x0, x1) × [y0, y1)` a filled polygon may touch: target ∩ scissor ∩
    /// viewport. Cutting there is GL's x/y clip to the view volume (GL 1.4 §2.11), which
    /// [`crate::geometry::clip`] leaves to setup for filled polygons.
    pub clip_rect: [i32; 4],
    /// Pixel rectangle a point or line quad may touch: target ∩ scissor. Points and lines are
    /// clipped to the view volume in clip space ([`crate::geometry::clip::ClipPlanes::view`]), so only
    /// the width of a wide point or line reaches past the viewport, as in GL.
    pub quad_rect: [i32; 4],
    pub cull: CullMode,
    pub front_face: FrontFace,
    pub polygon_mode: PolygonMode,
    pub flat: bool,
    /// Varyings affected by flat shading (the leading colour block).
    pub flat_count: usize,
    pub nvar: usize,
    /// Polygon offset (GL 1.4 §3.5.5), for polygons only: see [`TriSink::polygon_offset`].
    pub offset_factor: f32,
    pub offset_units: f32,
    pub point_half: f32,
    pub line_half: f32,
}

impl SetupCtx {
    pub fn new(
        state: &PipelineState,
        width: u32,
        height: u32,
        nvar: usize,
        flat_count: usize,
    ) -> SetupCtx {
        let mut r = [0, 0, width as i32, height as i32];
        if let Some(s) = state.scissor {
            let sx1 = s.x.saturating_add(s.width).min(width);
            let sy1 = s.y.saturating_add(s.height).min(height);
            r = [
                s.x.min(width) as i32,
                s.y.min(height) as i32,
                sx1 as i32,
                sy1 as i32,
            ];
        }
        // The viewport's pixels: those whose centre (x + ½) lies in [vx, vx + vw) (left and top
        // edges in, right and bottom out, the fill rule's choice for the clip edges). f64 sums
        // of f32 values are exact; `as i32` saturates (the values are within ±2¹⁵ anyway).
        let vp = &state.viewport;
        let first = |a: f32| (f64::from(a) - 0.5).ceil() as i32;
        let end = |a: f32, len: f32| (f64::from(a) + f64::from(len) - 0.5).ceil() as i32;
        let clip_rect = [
            r[0].max(first(vp.x)),
            r[1].max(first(vp.y)),
            r[2].min(end(vp.x, vp.width)),
            r[3].min(end(vp.y, vp.height)),
        ];
        SetupCtx {
            viewport: state.viewport,
            clip_rect,
            quad_rect: r,
            cull: state.cull,
            front_face: state.front_face,
            polygon_mode: state.polygon_mode,
            flat: state.shade == ShadeModel::Flat,
            flat_count: flat_count.min(nvar),
            nvar,
            offset_factor: state.polygon_offset.factor,
            offset_units: state.polygon_offset.units,
            point_half: state.point_size * 0.5,
            line_half: state.line_width * 0.5,
        }
    }

    /// The window `(x, y)` of a clip position, by the expressions of
    /// [`SetupCtx::to_window`].
    #[inline]
    pub fn window_xy(&self, p: glam::Vec4) -> (f32, f32) {
        let q = 1.0 / p.w;
        let vp = &self.viewport;
        (
            vp.x + (p.x * q + 1.0) * (vp.width * 0.5),
            vp.y + (1.0 - p.y * q) * (vp.height * 0.5),
        )
    }

    /// [`SetupCtx::to_window`] into `out`, copying only the draw's `nvar` varyings (the rest
    /// of `out.var` is never read).
    #[inline]
    pub fn to_window_into(&self, v: &ClipVertex, out: &mut WinVertex) {
        (out.x, out.y) = self.window_xy(v.pos);
        self.to_window_zq_into(v, out);
    }

    /// [`SetupCtx::to_window_into`] without the window `x` and `y` (left as they were): for
    /// a triangle whose snapped positions are already known, setup reads only depth, `1/w`
    /// and the varyings.
    #[inline]
    pub fn to_window_zq_into(&self, v: &ClipVertex, out: &mut WinVertex) {
        let q = 1.0 / v.pos.w;
        let vp = &self.viewport;
        out.z = vp.min_depth + (v.pos.z * q) * (vp.max_depth - vp.min_depth);
        out.q = q;
        out.var[..self.nvar].copy_from_slice(&v.var[..self.nvar]);
    }

    /// Whether polygons get a depth offset ([`TriSink::polygon_offset`]).
    #[inline]
    pub fn has_offset(&self) -> bool {
        self.offset_factor != 0.0 || self.offset_units != 0.0
    }

    /// Perspective divide and viewport transform (unsnapped).
    #[inline]
    pub fn to_window(&self, v: &ClipVertex) -> WinVertex {
        let q = 1.0 / v.pos.w;
        let vp = &self.viewport;
        WinVertex {
            x: vp.x + (v.pos.x * q + 1.0) * (vp.width * 0.5),
            y: vp.y + (1.0 - v.pos.y * q) * (vp.height * 0.5),
            z: vp.min_depth + (v.pos.z * q) * (vp.max_depth - vp.min_depth),
            q,
            var: v.var,
        }
    }
}

/// Output of the setup stage for one batch of primitives: the set-up triangles, or, when
/// the front end bins them as it sets them up (`geometry::assemble`), the few staged since
/// they were last moved to the bins.
#[derive(Default)]
pub(crate) struct TriSink {
    pub tris: Vec<TriSetup>,
    pub planes: Vec<f32>,
    /// Each triangle's one tile (`u32::MAX` when its box spans several), when the set-up
    /// lanes computed them (`geometry::lanes`); else empty, and binning computes them.
    pub tiles: Vec<u32>,
    pub stats: GeometryStats,
    /// A probed draw ([`crate::explain`]): the index of the chunk's first primitive. Each
    /// triangle's primitive (that plus the primitives counted so far, less one: every
    /// primitive is counted once, before its triangles) is stored after its planes, as
    /// `f32` bits, so the fragment stage can name it. Set once per chunk, so the loop over
    /// primitives does nothing for it.
    pub probe_base: Option<u32>,
    /// When binning, the set-up lanes' planes of a batch ([`LANES`] triangles and 32 spare
    /// floats), written in place batch after batch.
    ///
    /// [`LANES`]: crate::base::vec_lanes::LANES
    pub stage: Vec<f32>,
}

/// Snaps every vertex; false if any is non-finite or outside the guard band.
fn snap_all(w: &[WinVertex], out: &mut [(i32, i32)]) -> bool {
    for (v, o) in w.iter().zip(out.iter_mut()) {
        match (Fixed::snap(v.x), Fixed::snap(v.y)) {
            (Some(x), Some(y)) => *o = (x.0, y.0),
            _ => return false,
        }
    }
    true
}

/// Doubled signed area in fixed-point units² (positive = clockwise in NDC).
#[inline]
pub(crate) fn area2(xs: &[i32; 3], ys: &[i32; 3]) -> i64 {
    let (x0, y0) = (i64::from(xs[0]), i64::from(ys[0]));
    (i64::from(xs[1]) - x0) * (i64::from(ys[2]) - y0)
        - (i64::from(xs[2]) - x0) * (i64::from(ys[1]) - y0)
}

/// The pixels whose centres lie in the triangle's bounding box, `[x0, x1) × [y0, y1)`,
/// clamped to the rectangle `r`; `None` when that is empty.
#[inline]
pub(crate) fn pixel_bbox(r: &[i32; 4], xs: &[i32; 3], ys: &[i32; 3]) -> Option<[i32; 4]> {
    let minx = Fixed(xs[0].min(xs[1]).min(xs[2])).ceil_pixel_centre();
    let maxx = Fixed(xs[0].max(xs[1]).max(xs[2])).floor_pixel_centre() + 1;
    let miny = Fixed(ys[0].min(ys[1]).min(ys[2])).ceil_pixel_centre();
    let maxy = Fixed(ys[0].max(ys[1]).max(ys[2])).floor_pixel_centre() + 1;
    let bbox = [
        minx.max(r[0]),
        miny.max(r[1]),
        maxx.min(r[2]),
        maxy.min(r[3]),
    ];
    (bbox[0] < bbox[2] && bbox[1] < bbox[3]).then_some(bbox)
}

/// A triangle's snapped corners oriented the way setup keeps them (doubled area `a2 > 0`:
/// corners 1 and 2 swapped when the given order had it negative) and its pixel box: the
/// decisions [`TriSink::triangle`] takes first, made once for callers that already know them.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Oriented {
    pub xs: [i32; 3],
    pub ys: [i32; 3],
    pub a2: i64,
    pub bbox: [i32; 4],
    /// Whether corners 1 and 2 were swapped.
    pub swapped: bool,
}

impl Oriented {
    /// Orients the snapped corners `p` and boxes them at `rect`. `Err(true)`: zero area
    /// (counted as degenerate); `Err(false)`: no pixel centre in the box (counted nowhere).
    #[inline]
    pub fn new(rect: &[i32; 4], p: [(i32, i32); 3]) -> Result<Oriented, bool> {
        let xs = [p[0].0, p[1].0, p[2].0];
        let ys = [p[0].1, p[1].1, p[2].1];
        Self::with_area(rect, xs, ys, area2(&xs, &ys))
    }

    /// [`Oriented::new`] given the signed doubled area `a2` of `(xs, ys)`.
    #[inline]
    pub fn with_area(
        rect: &[i32; 4],
        mut xs: [i32; 3],
        mut ys: [i32; 3],
        a2: i64,
    ) -> Result<Oriented, bool> {
        if a2 == 0 {
            return Err(true);
        }
        let swapped = a2 < 0;
        if swapped {
            xs.swap(1, 2);
            ys.swap(1, 2);
        }
        let bbox = pixel_bbox(rect, &xs, &ys).ok_or(false)?;
        Ok(Oriented {
            xs,
            ys,
            a2: a2.abs(),
            bbox,
            swapped,
        })
    }
}

impl TriSink {
    /// Sets up one triangle of a filled polygon: window-space vertices `v` with snapped
    /// positions `p`, cut at [`SetupCtx::clip_rect`]. `flat` holds the provoking vertex's
    /// varyings when shading is flat; `offset` is the polygon's depth offset
    /// ([`TriSink::polygon_offset`]). Returns whether a triangle was emitted.
    pub fn triangle(
        &mut self,
        ctx: &SetupCtx,
        v: [&WinVertex; 3],
        p: [(i32, i32); 3],
        flat: Flat<'_>,
        front: bool,
        offset: Option<f32>,
    ) -> bool {
        self.triangle_in(&ctx.clip_rect, ctx, v, p, flat, front, offset)
    }

    /// [`TriSink::triangle`] cut at the pixel rectangle `rect`, its depth plane moved by
    /// `offset` (the polygon offset of the polygon it belongs to, if any).
    #[allow(
        clippy::too_many_arguments,
        reason = "internal; the one triangle setup all primitives share"
    )]
    fn triangle_in(
        &mut self,
        rect: &[i32; 4],
        ctx: &SetupCtx,
        v: [&WinVertex; 3],
        p: [(i32, i32); 3],
        flat: Flat<'_>,
        front: bool,
        offset: Option<f32>,
    ) -> bool {
        let o = match Oriented::new(rect, p) {
            Ok(o) => o,
            Err(degenerate) => {
                if degenerate {
                    self.stats.degenerate += 1;
                }
                return false;
            }
        };
        self.oriented(ctx, v, &o, flat, front, offset);
        true
    }

    /// [`TriSink::triangle`] for a triangle already snapped, oriented and boxed at
    /// [`SetupCtx::clip_rect`] ([`Oriented::new`]): `v` in the order of the positions given
    /// there. Emits the triangle.
    #[inline]
    pub fn oriented(
        &mut self,
        ctx: &SetupCtx,
        v: [&WinVertex; 3],
        o: &Oriented,
        flat: Flat<'_>,
        front: bool,
        offset: Option<f32>,
    ) {
        let v = if o.swapped { [v[0], v[2], v[1]] } else { v };
        let (xs, ys, a2, bbox) = (o.xs, o.ys, o.a2, o.bbox);

        // Plane equations in f64 from the snapped positions.
        let inv = 1.0 / SUBPIXEL_ONE as f64;
        let (x0, y0) = (f64::from(xs[0]) * inv, f64::from(ys[0]) * inv);
        let (e1x, e1y) = (f64::from(xs[1]) * inv - x0, f64::from(ys[1]) * inv - y0);
        let (e2x, e2y) = (f64::from(xs[2]) * inv - x0, f64::from(ys[2]) * inv - y0);
        let inv_area = 1.0 / (a2 as f64 * inv * inv);
        let plane = |a0: f64, a1: f64, a2: f64| -> [f32; 3] {
            let (d1, d2) = (a1 - a0, a2 - a0);
            let dx = (d1 * e2y - d2 * e1y) * inv_area;
            let dy = (d2 * e1x - d1 * e2x) * inv_area;
            [a0 as f32, dx as f32, dy as f32]
        };
        // All of the triangle's planes at once: one length check, no per-plane growth.
        let base = self.planes.len();
        self.planes.resize(base + 3 * (2 + ctx.nvar), 0.0);
        let out = &mut self.planes[base..];
        let mut zp = plane(f64::from(v[0].z), f64::from(v[1].z), f64::from(v[2].z));
        if let Some(o) = offset {
            zp[0] += o;
        }
        out[0..3].copy_from_slice(&zp);
        let qp = plane(f64::from(v[0].q), f64::from(v[1].q), f64::from(v[2].q));
        out[3..6].copy_from_slice(&qp);
        let (consts, nflat) = match flat {
            Some((f, n)) => (f, n),
            None => (&v[0].var, 0),
        };
        let (flat_out, out) = out[6..].split_at_mut(3 * nflat);
        for (o, &a) in flat_out.chunks_exact_mut(3).zip(&consts[..nflat]) {
            o.copy_from_slice(&[a, 0.0, 0.0]);
        }
        for (o, k) in out.chunks_exact_mut(3).zip(nflat..ctx.nvar) {
            let p = plane(
                f64::from(v[0].var[k]) * f64::from(v[0].q),
                f64::from(v[1].var[k]) * f64::from(v[1].q),
                f64::from(v[2].var[k]) * f64::from(v[2].q),
            );
            o.copy_from_slice(&p);
        }
        if let Some(first) = self.probe_base {
            let p = first
                .wrapping_add(self.stats.primitives as u32)
                .wrapping_sub(1);
            self.planes.push(f32::from_bits(p));
        }
        let base = base as u32;
        let (edges, lanes) = lane_edges(&xs, &ys);
        self.tris.push(TriSetup {
            xs,
            ys,
            bbox,
            ref_x: x0 as f32,
            ref_y: y0 as f32,
            planes: base,
            edges,
            lanes,
            front,
            flat_count: nflat as u8,
        });
        self.stats.triangles_setup += 1;
    }

    /// The depth offset of a polygon (GL 1.4 §3.5.5), `None` when the offset is zero:
    /// `factor·m + units·r`, computed **once per polygon** and added to the depth of every
    /// fragment it makes, whatever the polygon mode — filled, each edge in `Line` mode, each
    /// vertex in `Point` mode. `m = max(|∂z/∂x|, |∂z/∂y|)` is the polygon's depth slope (from
    /// its largest fan triangle `(0, i, i + 1)`, the first on ties; for a triangle, its own
    /// plane, by the expressions of [`TriSink::triangle`]); `r = 2^(e − 23)` is the smallest
    /// resolvable difference of an `f32` depth at the polygon's largest `|z|` (exponent `e`).
    ///
    /// GL enables the offset per mode (`POLYGON_OFFSET_FILL`, `_LINE`, `_POINT`); plumb's
    /// [`crate::PolygonOffset`] is one setting, so a non-zero offset means all three enabled.
    /// Point and line *primitives* are never offset.
    pub(crate) fn polygon_offset(ctx: &SetupCtx, w: &[WinVertex], p: &[(i32, i32)]) -> Option<f32> {
        if ctx.offset_factor == 0.0 && ctx.offset_units == 0.0 {
            return None;
        }
        let n = w.len();
        let (mut best, mut best_a2) = (1, 0i64);
        for i in 1..n - 1 {
            let xs = [p[0].0, p[i].0, p[i + 1].0];
            let ys = [p[0].1, p[i].1, p[i + 1].1];
            let a2 = area2(&xs, &ys).abs();
            if a2 > best_a2 {
                (best, best_a2) = (i, a2);
            }
        }
        let mut slope = 0.0f32;
        if best_a2 != 0 {
            let mut xs = [p[0].0, p[best].0, p[best + 1].0];
            let mut ys = [p[0].1, p[best].1, p[best + 1].1];
            let mut z = [w[0].z, w[best].z, w[best + 1].z];
            if area2(&xs, &ys) < 0 {
                xs.swap(1, 2);
                ys.swap(1, 2);
                z.swap(1, 2);
            }
            // The z plane's slopes, exactly as `triangle` computes them.
            let inv = 1.0 / SUBPIXEL_ONE as f64;
            let (x0, y0) = (f64::from(xs[0]) * inv, f64::from(ys[0]) * inv);
            let (e1x, e1y) = (f64::from(xs[1]) * inv - x0, f64::from(ys[1]) * inv - y0);
            let (e2x, e2y) = (f64::from(xs[2]) * inv - x0, f64::from(ys[2]) * inv - y0);
            let inv_area = 1.0 / (best_a2 as f64 * inv * inv);
            let (d1, d2) = (
                f64::from(z[1]) - f64::from(z[0]),
                f64::from(z[2]) - f64::from(z[0]),
            );
            let dx = ((d1 * e2y - d2 * e1y) * inv_area) as f32;
            let dy = ((d2 * e1x - d1 * e2x) * inv_area) as f32;
            slope = dx.abs().max(dy.abs());
        }
        let zmax = w.iter().fold(0.0f32, |m, v| m.max(v.z.abs()));
        // Smallest resolvable difference of an f32 depth at zmax: 2^(e − 23).
        let e = ((zmax.to_bits() >> 23) & 0xff).max(1) as i32 - 127;
        let r = f32::from_bits(((e - 23 + 127).max(1) as u32) << 23);
        Some(ctx.offset_factor * slope + ctx.offset_units * r)
    }

    /// Whether a window-space polygon (doubled signed area `a2`) survives culling, and whether
    /// it is front facing.
    pub(crate) fn facing(ctx: &SetupCtx, a2: i64) -> (bool, bool) {
        // a2 > 0 ⇔ clockwise on screen with y up (NDC).
        let front = match ctx.front_face {
            FrontFace::Ccw => a2 < 0,
            FrontFace::Cw => a2 > 0,
        };
        let keep = match ctx.cull {
            CullMode::None => true,
            CullMode::Back => front,
            CullMode::Front => !front,
        };
        (keep, front)
    }

    /// Sets up a convex window-space polygon (a triangle, or a clipped triangle) in the
    /// draw's polygon mode. `edge[i]`: the edge `i → i+1` is an original edge; `orig[i]`:
    /// vertex `i` is an original vertex.
    pub fn polygon(
        &mut self,
        ctx: &SetupCtx,
        w: &[WinVertex],
        edge: &[bool],
        orig: &[bool],
        flat: Flat<'_>,
    ) {
        let n = w.len();
        let mut p = [(0i32, 0i32); crate::geometry::clip::MAX_POLY];
        if !snap_all(w, &mut p) {
            self.stats.degenerate += 1;
            return;
        }
        // Signed area of the whole polygon (shoelace relative to vertex 0).
        let f = |i: usize| (i64::from(p[i].0), i64::from(p[i].1));
        let (x0, y0) = f(0);
        let mut a2 = 0i64;
        for i in 1..n - 1 {
            let ((x1, y1), (x2, y2)) = (f(i), f(i + 1));
            a2 += (x1 - x0) * (y2 - y0) - (x2 - x0) * (y1 - y0);
        }
        if a2 == 0 {
            self.stats.degenerate += 1;
            return;
        }
        let (keep, front) = Self::facing(ctx, a2);
        if !keep {
            self.stats.culled += 1;
            return;
        }
        let offset = Self::polygon_offset(ctx, w, &p[..n]);
        match ctx.polygon_mode {
            PolygonMode::Fill => {
                for i in 1..n - 1 {
                    self.triangle(
                        ctx,
                        [&w[0], &w[i], &w[i + 1]],
                        [p[0], p[i], p[i + 1]],
                        flat,
                        front,
                        offset,
                    );
                }
            }
            PolygonMode::Line => {
                for i in 0..n {
                    if edge[i] {
                        let j = if i + 1 == n { 0 } else { i + 1 };
                        self.line(ctx, &w[i], &w[j], flat, front, offset);
                    }
                }
            }
            PolygonMode::Point => {
                for i in 0..n {
                    if orig[i] {
                        self.point(ctx, &w[i], flat, front, offset);
                    }
                }
            }
        }
    }

    /// A segment as a parallelogram `line_width` thick (the GL wide-line rule: x-major
    /// lines are extended vertically, y-major horizontally; ends are not extended). The two
    /// triangles share a diagonal, so the top-left rule covers each pixel at most once.
    /// `offset`: the depth offset of the polygon whose edge this is (`None` for a line
    /// primitive: GL offsets polygons only).
    pub fn line(
        &mut self,
        ctx: &SetupCtx,
        a: &WinVertex,
        b: &WinVertex,
        flat: Flat<'_>,
        front: bool,
        offset: Option<f32>,
    ) {
        let (dx, dy) = (b.x - a.x, b.y - a.y);
        let (ox, oy) = if dx.abs() >= dy.abs() {
            (0.0, ctx.line_half)
        } else {
            (ctx.line_half, 0.0)
        };
        let at = |v: &WinVertex, s: f32| WinVertex {
            x: v.x + ox * s,
            y: v.y + oy * s,
            ..*v
        };
        let (c0, c1, c2, c3) = (at(a, -1.0), at(b, -1.0), at(b, 1.0), at(a, 1.0));
        let flat = flat.or(if ctx.flat {
            Some((&a.var, ctx.flat_count))
        } else {
            None
        });
        self.quad(ctx, [&c0, &c1, &c2, &c3], flat, front, offset);
    }

    /// A point as a `point_size` square centred on the vertex, attributes taken from it —
    /// except the leading ones `flat` gives (a polygon's provoking vertex under flat shading,
    /// GL 1.4 §2.13.7, for polygon mode `Point`). `offset` as in [`TriSink::line`].
    pub fn point(
        &mut self,
        ctx: &SetupCtx,
        p: &WinVertex,
        flat: Flat<'_>,
        front: bool,
        offset: Option<f32>,
    ) {
        let h = ctx.point_half;
        let mut own = *p;
        if let Some((f, n)) = flat {
            own.var[..n].copy_from_slice(&f[..n]);
        }
        let p = &own;
        let at = |sx: f32, sy: f32| WinVertex {
            x: p.x + h * sx,
            y: p.y + h * sy,
            ..*p
        };
        let (c0, c1, c2, c3) = (at(-1.0, -1.0), at(1.0, -1.0), at(1.0, 1.0), at(-1.0, 1.0));
        let consts = Some((&p.var, ctx.nvar));
        self.quad(ctx, [&c0, &c1, &c2, &c3], consts, front, offset);
    }

    /// Two triangles `(0, 1, 2)`, `(0, 2, 3)` sharing a diagonal, cut at
    /// [`SetupCtx::quad_rect`].
    fn quad(
        &mut self,
        ctx: &SetupCtx,
        c: [&WinVertex; 4],
        flat: Flat<'_>,
        front: bool,
        offset: Option<f32>,
    ) {
        let mut p = [(0i32, 0i32); 4];
        for (i, v) in c.iter().enumerate() {
            match (Fixed::snap(v.x), Fixed::snap(v.y)) {
                (Some(x), Some(y)) => p[i] = (x.0, y.0),
                _ => {
                    self.stats.degenerate += 1;
                    return;
                }
            }
        }
        let r = &ctx.quad_rect;
        let (t0, t1) = ([c[0], c[1], c[2]], [c[0], c[2], c[3]]);
        self.triangle_in(r, ctx, t0, [p[0], p[1], p[2]], flat, front, offset);
        self.triangle_in(r, ctx, t1, [p[0], p[2], p[3]], flat, front, offset);
    }
}
