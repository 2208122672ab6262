//! Primitive assembly: one draw's geometry front end, from its vertices to binned, set-up
//! triangles, a chunk of primitives at a time (`Context::draw_with` runs the chunks on its
//! pool and queues them in submission order).
//!
//! Filled triangles are tested in screen space from their clip positions alone (`screen`):
//! the varyings of a triangle that covers no pixel centre are never fetched. Everything
//! else — points, lines, polygons in line or point mode, and filled triangles that cross a
//! clip plane — is clipped in clip space ([`assemble`]).

use fearless_simd::Level;
use glam::Vec4;
use rayon::prelude::*;

use crate::base::vec_lanes::LANES;
use crate::geometry::bin::{single_tile, ChunkBins};
use crate::geometry::clip::{clip_line, clip_triangle, ClipPlanes, MAX_POLY};
use crate::geometry::lanes::{
    count_rejected, screen_corners, screen_lanes, setup_lanes, store_planes, Corners, PlaneLanes,
    ScreenIn, ScreenLanes, SetupLanes, DRAW, NEEDS_CLIP,
};
use crate::geometry::screen::{screen_triangle, screen_vertices, Screen, ScreenVertex};
use crate::geometry::setup::{GeometryStats, SetupCtx, TriSetup, TriSink, WinVertex};
use crate::state::{PipelineState, PolygonMode};
use crate::vertex::{ClipVertex, Indices, Topology};

/// What a draw hands the front end: its vertices and how they form primitives.
pub(crate) struct Primitives<'a, P, F> {
    pub indices: Indices<'a>,
    pub topology: Topology,
    /// Vertices `position` and `fetch` accept (`0..vertex_count`).
    pub vertex_count: usize,
    /// Varyings per vertex, and how many of them (the leading colour block) flat shading
    /// takes from the provoking vertex.
    pub varyings: (usize, usize),
    /// Vertex `i`'s clip position.
    pub position: P,
    /// Vertex `i`'s clip position and first `varyings.0` varyings.
    pub fetch: F,
}

/// One draw's front end: its primitives and the set-up state every chunk shares.
pub(crate) struct FrontEnd<'a, P, F> {
    prims: Primitives<'a, P, F>,
    ctx: SetupCtx,
    /// Filled polygons clip x/y to the guard band (setup cuts them at the viewport) …
    planes: ClipPlanes,
    /// … points, lines and polygons in line or point mode clip to the view volume.
    view_planes: ClipPlanes,
    level: Level,
    /// A probed draw's triangles carry their primitive after their planes.
    probing: bool,
    /// Triangles drawn filled: tested in screen space before their varyings are fetched.
    filled: bool,
    tiles: (u32, u32),
    /// Every vertex's screen-space tests, when computed once per vertex
    /// ([`FrontEnd::screen_vertices`]).
    screen: Option<Vec<ScreenVertex>>,
    /// Plane floats per set-up triangle.
    pub stride: usize,
}

impl<'a, P, F> FrontEnd<'a, P, F>
where
    P: Fn(usize) -> Vec4 + Sync,
    F: Fn(usize, &mut ClipVertex) + Sync,
{
    /// The front end of a draw of `prims` with `state` into a `size` target of `tiles`
    /// tiles, its fragment kernels at `level`, `probing` for an `explain` probe.
    pub fn new(
        state: &PipelineState,
        prims: Primitives<'a, P, F>,
        (width, height): (u32, u32),
        tiles: (u32, u32),
        (level, probing): (Level, bool),
    ) -> Self {
        let (nvar, flat_count) = prims.varyings;
        let ctx = SetupCtx::new(state, width, height, nvar, flat_count);
        let filled =
            prims.topology.vertices_per_primitive() == 3 && ctx.polygon_mode == PolygonMode::Fill;
        FrontEnd {
            planes: ClipPlanes::new(&state.viewport, &state.clip_planes),
            view_planes: ClipPlanes::view(&state.clip_planes),
            stride: 3 * (2 + nvar) + usize::from(probing),
            prims,
            ctx,
            level,
            probing,
            filled,
            tiles,
            screen: None,
        }
    }

    /// Primitives the draw holds.
    pub fn primitive_count(&self) -> usize {
        let p = &self.prims;
        p.topology.primitive_count(p.indices.len(p.vertex_count))
    }

    /// Indexed filled triangles share vertices (about six triangles each in a grid): their
    /// screen-space tests are computed once per vertex, in parallel on `pool` — when the
    /// indices reference at least as many elements as there are vertices (a draw of a few
    /// triangles out of a large vertex array computes them per triangle instead).
    pub fn screen_vertices(&mut self, pool: &rayon::ThreadPool) {
        const BLOCK: usize = 4096;
        let p = &self.prims;
        let n = p.vertex_count;
        if !self.filled || matches!(p.indices, Indices::None) || p.indices.len(n) < n {
            return;
        }
        let mut sv = vec![ScreenVertex::default(); n];
        let block = |(c, chunk): (usize, &mut [ScreenVertex])| {
            screen_vertices(
                self.level,
                &self.ctx,
                &self.planes,
                c * BLOCK,
                &p.position,
                chunk,
            );
        };
        // One block runs on the calling thread (no pool round trip per small draw).
        if n > BLOCK {
            pool.install(|| sv.par_chunks_mut(BLOCK).enumerate().for_each(block));
        } else {
            sv.chunks_mut(BLOCK).enumerate().for_each(block);
        }
        self.screen = Some(sv);
    }

    /// Unindexed filled lists and strips: the screen-space tests of the vertices of the
    /// primitives `range`, one run computed in lanes, with the index of its first vertex.
    fn run_screen_vertices(
        &self,
        range: &std::ops::Range<usize>,
    ) -> Option<(usize, Vec<ScreenVertex>)> {
        let p = &self.prims;
        let strip_or_list = matches!(p.topology, Topology::TriangleList | Topology::TriangleStrip);
        if !self.filled
            || self.screen.is_some()
            || !matches!(p.indices, Indices::None)
            || !strip_or_list
            || range.is_empty()
        {
            return None;
        }
        let lo = p
            .topology
            .primitive(range.start)
            .into_iter()
            .min()
            .unwrap_or(0);
        let hi = p
            .topology
            .primitive(range.end - 1)
            .into_iter()
            .max()
            .unwrap_or(0)
            + 1;
        let mut sv = vec![ScreenVertex::default(); hi - lo];
        screen_vertices(
            self.level,
            &self.ctx,
            &self.planes,
            lo,
            &p.position,
            &mut sv,
        );
        Some((lo, sv))
    }

    /// Sets up and bins the primitives `range` of the draw queued as `draw`.
    pub fn chunk(&self, range: std::ops::Range<usize>, draw: u32) -> (GeometryStats, ChunkBins) {
        let mut bins = ChunkBins::new((draw, self.stride), self.tiles, range.len());
        let sink = self.set_up(range, true, Some(&mut bins));
        (sink.stats, bins)
    }

    /// The set-up triangles of the primitives `range`: filled triangles eight at a time in
    /// lanes when `lanes` ([`FrontEnd::filled_lanes`]; not for a polygon offset, which
    /// needs the triangle's window vertices), else one at a time — the same triangles and
    /// planes either way. Binned into `bins` as they are set up when given (the sink then
    /// holds no triangles), else all kept in the sink.
    pub(crate) fn set_up(
        &self,
        range: std::ops::Range<usize>,
        lanes: bool,
        mut bins: Option<&mut ChunkBins>,
    ) -> TriSink {
        // About one triangle per primitive, or a few staged: no growth copies.
        let staged = if bins.is_some() {
            (2 * LANES).min(range.len())
        } else {
            range.len()
        };
        let mut sink = TriSink {
            probe_base: self.probing.then_some(range.start as u32),
            tris: Vec::with_capacity(staged),
            planes: Vec::with_capacity(staged * self.stride),
            ..TriSink::default()
        };
        if lanes && self.filled && !self.ctx.has_offset() {
            self.filled_lanes(range, (&mut sink, &mut bins));
        } else {
            let run_sv = self.run_screen_vertices(&range);
            self.one_at_a_time(range, &run_sv, (&mut sink, &mut bins));
        }
        spill(&mut sink, &mut bins);
        sink
    }

    /// A filled triangle's vertices' screen-space tests: from the draw's per-vertex ones,
    /// the chunk's run `run_sv`, or computed here.
    #[inline(always)]
    fn screen_of(
        &self,
        idx: [usize; 3],
        run_sv: &Option<(usize, Vec<ScreenVertex>)>,
    ) -> [ScreenVertex; 3] {
        match (&self.screen, run_sv) {
            (Some(sv), _) => [sv[idx[0]], sv[idx[1]], sv[idx[2]]],
            (None, Some((lo, sv))) => idx.map(|i| sv[i - lo]),
            (None, None) => {
                let p = &self.prims;
                idx.map(|i| ScreenVertex::new(&self.ctx, &self.planes, (p.position)(i)))
            }
        }
    }

    /// The primitives `range` one at a time: the scalar definition.
    fn one_at_a_time(
        &self,
        range: std::ops::Range<usize>,
        run_sv: &Option<(usize, Vec<ScreenVertex>)>,
        (sink, bins): (&mut TriSink, &mut Option<&mut ChunkBins>),
    ) {
        let p = &self.prims;
        let mut v = [ClipVertex::default(); 3];
        let mut w = [WinVertex::ZERO; MAX_POLY];
        let per = p.topology.vertices_per_primitive();
        for prim in range {
            if sink.tris.len() >= LANES {
                spill(sink, bins);
            }
            let e = p.topology.primitive(prim);
            if self.filled {
                let idx = [
                    p.indices.get(e[0]),
                    p.indices.get(e[1]),
                    p.indices.get(e[2]),
                ];
                let sv = self.screen_of(idx, run_sv);
                if self.filled_triangle(sv, idx, (&mut v, &mut w), sink) {
                    continue;
                }
            }
            for k in 0..per {
                (p.fetch)(p.indices.get(e[k]), &mut v[k]);
            }
            let planes = if self.filled {
                &self.planes
            } else {
                &self.view_planes
            };
            assemble(&self.ctx, planes, p.topology, &v[..per], &mut w, sink);
        }
    }

    /// Filled triangles `range` eight at a time: screen tests in lanes ([`screen_lanes`]);
    /// the triangles drawn gathered, compacted, into set-up lanes ([`setup_lanes`]) and
    /// emitted in submission order; a triangle that needs clipping first emits the ones
    /// gathered before it, then takes the general path ([`assemble`]).
    fn filled_lanes(
        &self,
        range: std::ops::Range<usize>,
        (sink, bins): (&mut TriSink, &mut Option<&mut ChunkBins>),
    ) {
        let p = &self.prims;
        let mut pend = SetupLanes::new();
        let mut out = PlaneLanes::new();
        let mut v = [ClipVertex::default(); 3];
        let mut w = [WinVertex::ZERO; MAX_POLY];
        let (mut sv, mut corners) = (ScreenIn::new(), Corners::new());
        let mut start = range.start;
        while start < range.end {
            let n = (range.end - start).min(LANES);
            let mut idx = [[0usize; 3]; LANES];
            for (j, idx) in idx[..n].iter_mut().enumerate() {
                let e = p.topology.primitive(start + j);
                *idx = e.map(|e| p.indices.get(e));
            }
            self.screen_in(&idx[..n], &mut corners, &mut sv);
            let s = screen_lanes(self.level, &self.ctx, self.tiles.0, &sv);
            for (j, idx) in idx[..n].iter().enumerate() {
                match s.verdict[j] {
                    DRAW => {
                        sink.stats.primitives += 1;
                        self.gather(&s, j, *idx, (start + j) as u32, &mut pend);
                        if pend.n == LANES {
                            self.emit(&mut pend, &mut out, (sink, bins));
                        }
                    }
                    NEEDS_CLIP => {
                        self.emit(&mut pend, &mut out, (sink, bins));
                        for k in 0..3 {
                            (p.fetch)(idx[k], &mut v[k]);
                        }
                        let before = sink.tris.len();
                        assemble(&self.ctx, &self.planes, p.topology, &v, &mut w, sink);
                        let tiles_x = self.tiles.0;
                        let new = sink.tris[before..].iter().map(|t| single_tile(t, tiles_x));
                        sink.tiles.extend(new);
                        spill(sink, bins);
                    }
                    r => {
                        sink.stats.primitives += 1;
                        count_rejected(&mut sink.stats, r);
                    }
                }
            }
            start += n;
        }
        self.emit(&mut pend, &mut out, (sink, bins));
    }

    /// The screen tests' input for the triangles of vertices `idx`: from the draw's
    /// per-vertex tests when computed ([`FrontEnd::screen_vertices`]), else from the
    /// corners' positions in lanes ([`screen_corners`], through `corners`).
    #[inline(always)]
    fn screen_in(&self, idx: &[[usize; 3]], corners: &mut Corners, sv: &mut ScreenIn) {
        if let Some(per_vertex) = &self.screen {
            for (j, idx) in idx.iter().enumerate() {
                sv.set(j, &idx.map(|i| per_vertex[i]));
            }
            return;
        }
        for (j, idx) in idx.iter().enumerate() {
            for (k, &i) in idx.iter().enumerate() {
                corners.set(j, k, (self.prims.position)(i));
            }
        }
        screen_corners(self.level, &self.ctx, &self.planes, corners, sv);
    }

    /// Adds lane `j` of the screen tests `s` (primitive `prim`, vertices `idx`) to the
    /// set-up lanes `pend`, its vertices fetched in place in oriented order.
    #[inline(always)]
    fn gather(&self, s: &ScreenLanes, j: usize, idx: [usize; 3], prim: u32, pend: &mut SetupLanes) {
        let i = pend.n;
        pend.n += 1;
        for c in 0..3 {
            pend.xs[c][i] = s.xs[c][j];
            pend.ys[c][i] = s.ys[c][j];
        }
        pend.a2[i] = s.a2[j];
        pend.bbox[i] = [s.bbox[0][j], s.bbox[1][j], s.bbox[2][j], s.bbox[3][j]];
        (pend.front[i], pend.prim[i], pend.tile[i]) = (s.front[j] != 0, prim, s.tile[j]);
        let (a, b) = if s.swapped[j] != 0 { (2, 1) } else { (1, 2) };
        let [v0, v1, v2] = &mut pend.v[i];
        (self.prims.fetch)(idx[0], v0);
        (self.prims.fetch)(idx[a], v1);
        (self.prims.fetch)(idx[b], v2);
    }

    /// Sets up the triangles gathered in `pend` (through `out`) and emits them into `sink`
    /// in their order, as [`TriSink::oriented`] would; empties `pend`.
    fn emit(
        &self,
        pend: &mut SetupLanes,
        out: &mut PlaneLanes,
        (sink, bins): (&mut TriSink, &mut Option<&mut ChunkBins>),
    ) {
        if pend.n == 0 {
            return;
        }
        let ctx = &self.ctx;
        let nflat = if ctx.flat { ctx.flat_count } else { 0 };
        setup_lanes(self.level, ctx, nflat, pend, out);
        let rows = 3 * (2 + ctx.nvar);
        let per = rows + usize::from(self.probing);
        let record = |i: usize, planes: usize| TriSetup {
            xs: [pend.xs[0][i], pend.xs[1][i], pend.xs[2][i]],
            ys: [pend.ys[0][i], pend.ys[1][i], pend.ys[2][i]],
            bbox: pend.bbox[i],
            ref_x: out.ref_x[i],
            ref_y: out.ref_y[i],
            planes: planes as u32,
            edges: out.edges[i],
            lanes: out.fits[i],
            front: pend.front[i],
            flat_count: nflat as u8,
        };
        let n = pend.n;
        let (dst, base) = match bins {
            // Binning: the planes to the batch's stage (written in place, no fill), the
            // records straight to their bins.
            Some(_) => {
                let need = LANES * per + 32;
                if sink.stage.len() < need {
                    sink.stage.resize(need, 0.0);
                }
                (&mut sink.stage, 0)
            }
            None => {
                let base = sink.planes.len();
                sink.planes.resize(base + n * per, 0.0);
                (&mut sink.planes, base)
            }
        };
        let at: [usize; LANES] = std::array::from_fn(|i| base + i * per);
        store_planes(self.level, &out.rows[..rows], n, &at, dst);
        if self.probing {
            for (i, &a) in at[..n].iter().enumerate() {
                dst[a + rows] = f32::from_bits(pend.prim[i]);
            }
        }
        match bins {
            Some(bins) => {
                let tris = (0..n).map(|i| (record(i, at[i]), pend.tile[i]));
                bins.take(tris, &sink.stage);
            }
            None => {
                sink.tris.extend((0..n).map(|i| record(i, at[i])));
                sink.tiles.extend_from_slice(&pend.tile[..n]);
            }
        }
        sink.stats.triangles_setup += pend.n as u64;
        pend.n = 0;
    }

    /// A filled triangle decided in screen space: rejected (counted), or drawn — its
    /// vertices fetched, set up into `sink`. `false` when it needs clipping ([`assemble`]).
    #[inline(always)]
    fn filled_triangle(
        &self,
        sv: [ScreenVertex; 3],
        idx: [usize; 3],
        (v, w): (&mut [ClipVertex; 3], &mut [WinVertex; MAX_POLY]),
        sink: &mut TriSink,
    ) -> bool {
        let ctx = &self.ctx;
        match screen_triangle(ctx, sv) {
            Screen::NeedsClip => false,
            Screen::Rejected(count) => {
                sink.stats.primitives += 1;
                if let Some(c) = count {
                    *c(&mut sink.stats) += 1;
                }
                true
            }
            Screen::Draw {
                snapped,
                tri,
                front,
            } => {
                sink.stats.primitives += 1;
                for k in 0..3 {
                    (self.prims.fetch)(idx[k], &mut v[k]);
                    ctx.to_window_zq_into(&v[k], &mut w[k]);
                }
                let flat = ctx.flat.then_some((&v[0].var, ctx.flat_count));
                let offset = if ctx.has_offset() {
                    TriSink::polygon_offset(ctx, &w[..3], &snapped)
                } else {
                    None
                };
                let v3 = [&w[0], &w[1], &w[2]];
                sink.oriented(ctx, v3, &tri, flat, front, offset);
                true
            }
        }
    }
}

/// Clips and sets up one primitive (`v` holds 1, 2 or 3 vertices) against `planes`: the
/// guard-band set for filled polygons, the view-volume set for everything else
/// ([`crate::geometry::clip`]). A point is kept only when its centre is inside every plane.
fn assemble(
    ctx: &SetupCtx,
    planes: &ClipPlanes,
    topology: Topology,
    v: &[ClipVertex],
    w: &mut [WinVertex; MAX_POLY],
    sink: &mut TriSink,
) {
    sink.stats.primitives += 1;
    if v.iter().any(|v| !v.pos.is_finite()) {
        sink.stats.non_finite += 1;
        return;
    }
    let mut and = !0u32;
    let mut or = 0u32;
    for p in v {
        let c = planes.outcode(p.pos);
        and &= c;
        or |= c;
    }
    if and != 0 {
        sink.stats.clipped_away += 1;
        return;
    }
    if or != 0 {
        sink.stats.clipped += 1;
    }
    let flat = ctx.flat.then_some((&v[0].var, ctx.flat_count));
    match topology {
        Topology::PointList => {
            let w = ctx.to_window(&v[0]);
            sink.point(ctx, &w, None, true, None);
        }
        Topology::LineList | Topology::LineStrip => {
            if let Some((a, b)) = clip_line(&v[0], &v[1], planes, or, ctx.nvar) {
                let (wa, wb) = (ctx.to_window(&a), ctx.to_window(&b));
                sink.line(ctx, &wa, &wb, flat, true, None);
            }
        }
        _ if or == 0 => {
            for k in 0..3 {
                ctx.to_window_into(&v[k], &mut w[k]);
            }
            sink.polygon(ctx, &w[..3], &[true; 3], &[true; 3], flat);
        }
        _ => {
            let poly = clip_triangle([&v[0], &v[1], &v[2]], planes, or, ctx.nvar);
            if poly.len < 3 {
                sink.stats.clipped_away += 1;
                return;
            }
            // Window positions, and which vertices are original ones (for point mode).
            let mut orig = [false; MAX_POLY];
            for i in 0..poly.len {
                ctx.to_window_into(&poly.v[i], &mut w[i]);
                orig[i] = v.iter().any(|o| o.pos == poly.v[i].pos);
            }
            sink.polygon(
                ctx,
                &w[..poly.len],
                &poly.edge[..poly.len],
                &orig[..poly.len],
                flat,
            );
        }
    }
}

/// When binning (`bins`): moves the triangles staged in `sink` into the bins, in order.
#[inline]
fn spill(sink: &mut TriSink, bins: &mut Option<&mut ChunkBins>) {
    let Some(bins) = bins else { return };
    if sink.tiles.len() != sink.tris.len() {
        let tiles_x = bins.tiles_x();
        sink.tiles.clear();
        let single = sink.tris.iter().map(|t| single_tile(t, tiles_x));
        sink.tiles.extend(single);
    }
    // Spare floats past the last planes: every entry's planes copy as whole blocks.
    let n = sink.planes.len();
    sink.planes.resize(n + 32, 0.0);
    let tris = sink.tris.iter().copied().zip(sink.tiles.iter().copied());
    bins.take(tris, &sink.planes);
    sink.tris.clear();
    sink.planes.clear();
    sink.tiles.clear();
}

#[cfg(feature = "internal-tests")]
pub(crate) mod tests {
    /// Every test of this module: `tests/unit.rs` runs each as one trial (an unlisted
    /// test fails the build as dead code).
    pub(crate) const TESTS: &[(&str, fn())] = &[(
        "lanes_set_up_what_one_at_a_time_does",
        lanes_set_up_what_one_at_a_time_does,
    )];

    use super::*;
    use crate::base::simd::SimdLevel;
    use crate::state::{CullMode, FrontFace, PolygonOffset, ShadeModel, Viewport};

    /// Corners of the test's triangles: mostly small ones on screen, and degenerate,
    /// back-facing, guard-band, huge, clipped and NaN ones among them.
    fn corners(next: &mut impl FnMut() -> u64) -> [Vec4; 3] {
        let r: [u64; 8] = std::array::from_fn(|_| next());
        let f = |k: usize| (r[k] >> 40) as f32 / (1u64 << 24) as f32;
        let (x, y, z) = (f(0) * 2.2 - 1.1, f(1) * 2.2 - 1.1, f(2));
        let (dx, dy) = (f(3) * 0.04 - 0.02, f(4) * 0.04 - 0.02);
        let p = |x: f32, y: f32| Vec4::new(x, y, z, 1.0);
        let mut c = [p(x, y), p(x + dx, y), p(x, y + dy)];
        match r[5] % 16 {
            // Huge: across the screen and many tiles.
            0 => c = [p(-0.9, -0.8), p(0.9, -0.7), p(0.1, 0.95)],
            // Degenerate: collinear, or corners that snap together.
            1 => c[2] = c[0] + (c[1] - c[0]) * 3.0,
            2 => c[1] = c[0] + Vec4::new(1e-6, 0.0, 0.0, 0.0),
            // Reaching into the guard band, or beyond it.
            3 => c[1].x = 20.0,
            4 => c[2].y = -1e4,
            // Non-finite.
            5 => c[(r[6] % 3) as usize].x = f32::NAN,
            6 => c[(r[6] % 3) as usize].w = f32::INFINITY,
            // Behind the eye, or beyond the far plane.
            7 => c[0].w = -1.0,
            8 => c.iter_mut().for_each(|v| v.z = 2.0),
            // Perspective: distinct w per corner.
            9 => c.iter_mut().for_each(|v| *v *= 0.5 + f(7)),
            // Tiny: no pixel centre in its box.
            10 => {
                c[1] = c[0] + Vec4::new(1e-4, 0.0, 0.0, 0.0);
                c[2] = c[0] + Vec4::new(0.0, 1e-4, 0.0, 0.0);
            }
            _ => {}
        }
        if r[7].is_multiple_of(2) {
            c.swap(1, 2);
        }
        c
    }

    /// A front end over `pos` (indexed by `indices` when given) with `nvar` varyings made
    /// from the vertex index, its triangles set up in lanes and one at a time.
    fn compare(
        st: &PipelineState,
        pos: &[Vec4],
        indices: Indices<'_>,
        topology: Topology,
        probing: bool,
    ) -> GeometryStats {
        let nvar = 7;
        let var = |i: usize, k: usize| (i * 7 + k) as f32 * 0.013 - 1.0;
        let mut total = GeometryStats::default();
        for level in SimdLevel::available() {
            let Some(l) = level.to_level() else { continue };
            if level.check().is_err() {
                continue;
            }
            let prims = Primitives {
                indices,
                topology,
                vertex_count: pos.len(),
                varyings: (nvar, 4),
                position: |i: usize| pos[i],
                fetch: |i: usize, out: &mut ClipVertex| {
                    out.pos = pos[i];
                    for k in 0..nvar {
                        out.var[k] = if k == 5 && i.is_multiple_of(11) {
                            f32::NAN
                        } else {
                            var(i, k)
                        };
                    }
                },
            };
            let (w, h) = (700u32, 500u32);
            let tiles = (w.div_ceil(64), h.div_ceil(64));
            let mut fe = FrontEnd::new(st, prims, (w, h), tiles, (l, probing));
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(1)
                .build()
                .unwrap();
            fe.screen_vertices(&pool);
            let n = fe.primitive_count();
            for range in [0..n, 5..n.min(1000), 3..4] {
                let (a, b) = (
                    fe.set_up(range.clone(), true, None),
                    fe.set_up(range.clone(), false, None),
                );
                assert_eq!(a.stats, b.stats, "{level:?}");
                assert_eq!(a.tris.len(), b.tris.len(), "{level:?}");
                for (i, (x, y)) in a.tris.iter().zip(&b.tris).enumerate() {
                    assert_eq!(format!("{x:?}"), format!("{y:?}"), "{level:?} triangle {i}");
                }
                let bits = |p: &[f32]| p.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
                assert!(bits(&a.planes) == bits(&b.planes), "{level:?} planes");
                // Binned from the lanes' tiles, from tiles computed by the binner, and as
                // the chunk sets them up (staged a few at a time).
                let offset = st.polygon_offset.factor != 0.0;
                assert_eq!(a.tiles.len(), if offset { 0 } else { a.tris.len() });
                assert!(b.tiles.is_empty());
                let bins = |s: &TriSink| {
                    let mut bins = ChunkBins::new((0, fe.stride), tiles, s.tris.len());
                    let single: Vec<u32> = match s.tiles.len() == s.tris.len() {
                        true => s.tiles.clone(),
                        false => s.tris.iter().map(|t| single_tile(t, tiles.0)).collect(),
                    };
                    let mut planes = s.planes.clone();
                    planes.resize(planes.len() + 32, 0.0);
                    bins.take(s.tris.iter().copied().zip(single), &planes);
                    bins
                };
                let (ba, bb) = (bins(&a), bins(&b));
                let (stats, bc) = fe.chunk(range, 0);
                assert_eq!(stats, b.stats, "{level:?}");
                assert_eq!(ba.entries(), bb.entries(), "{level:?}");
                assert_eq!(bc.entries(), bb.entries(), "{level:?}");
                // A tile's triangles with their planes, whatever the blocks.
                let tile = |bins: &ChunkBins, t: usize| {
                    let mut out = Vec::new();
                    for refs in bins.tile(t) {
                        for x in refs.tris {
                            let p = &refs.planes[x.planes as usize..][..fe.stride];
                            let x = TriSetup { planes: 0, ..*x };
                            out.push((format!("{x:?}"), bits(p)));
                        }
                    }
                    out
                };
                for t in 0..(tiles.0 * tiles.1) as usize {
                    let want = tile(&bb, t);
                    assert!(tile(&ba, t) == want, "{level:?} tile {t}");
                    assert!(tile(&bc, t) == want, "{level:?} tile {t} (chunk)");
                    assert_eq!(bb.tile_is_empty(t), want.is_empty());
                }
            }
            total = fe.set_up(0..n, false, None).stats;
        }
        total
    }

    /// Lanes and one at a time give the same triangles, planes and counters at every SIMD
    /// level, for lists, strips and indexed draws, under every culling and facing, with flat
    /// shading, a probe and a polygon offset (which takes the one-at-a-time path).
    fn lanes_set_up_what_one_at_a_time_does() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let pos: Vec<Vec4> = (0..3000).flat_map(|_| corners(&mut next)).collect();
        let idx: Vec<u32> = (0..6000).map(|_| (next() % 700) as u32).collect();
        let mut seen = GeometryStats::default();
        for case in 0..8 {
            let mut st = PipelineState::new(700, 500);
            st.viewport = Viewport {
                x: 3.0,
                y: -2.5,
                width: 690.0,
                ..st.viewport
            };
            st.cull = [CullMode::Back, CullMode::None, CullMode::Front][case % 3];
            st.front_face = [FrontFace::Ccw, FrontFace::Cw][case % 2];
            if case == 3 {
                st.shade = ShadeModel::Flat;
            }
            if case == 4 {
                st.clip_planes[0] = Some(Vec4::new(0.3, -0.7, 0.1, 0.4));
                st.clip_planes[2] = Some(Vec4::new(-1.0, 0.0, 0.0, 0.9));
            }
            if case == 7 {
                st.polygon_offset = PolygonOffset {
                    factor: 1.0,
                    units: 1.0,
                };
            }
            let probing = case == 5;
            let s = compare(&st, &pos, Indices::None, Topology::TriangleList, probing);
            seen.add(&s);
            let s = compare(&st, &pos, Indices::U32(&idx), Topology::TriangleList, false);
            seen.add(&s);
            let s = compare(&st, &pos, Indices::None, Topology::TriangleStrip, false);
            seen.add(&s);
        }
        // Every verdict was taken.
        let s = seen;
        let all = [
            s.non_finite,
            s.clipped_away,
            s.clipped,
            s.culled,
            s.degenerate,
        ];
        assert!(all.iter().all(|&c| c > 0), "{s:?}");
        assert!(s.triangles_setup > 1000, "{s:?}");
    }
}
