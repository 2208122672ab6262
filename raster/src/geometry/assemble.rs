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

use crate::geometry::bin::ChunkBins;
use crate::geometry::clip::{clip_line, clip_triangle, ClipPlanes, MAX_POLY};
use crate::geometry::screen::{screen_triangle, screen_vertices, Screen, ScreenVertex};
use crate::geometry::setup::{GeometryStats, SetupCtx, TriSink, WinVertex};
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
        let p = &self.prims;
        let mut sink = TriSink {
            probe_base: self.probing.then_some(range.start as u32),
            ..TriSink::default()
        };
        // About one triangle per primitive: no growth copies.
        sink.tris.reserve(range.len());
        sink.planes.reserve(range.len() * self.stride);
        let mut v = [ClipVertex::default(); 3];
        let mut w = [WinVertex::ZERO; MAX_POLY];
        let per = p.topology.vertices_per_primitive();
        let run_sv = self.run_screen_vertices(&range);
        for prim in range {
            let e = p.topology.primitive(prim);
            if self.filled {
                let idx = [
                    p.indices.get(e[0]),
                    p.indices.get(e[1]),
                    p.indices.get(e[2]),
                ];
                let sv = match (&self.screen, &run_sv) {
                    (Some(sv), _) => [sv[idx[0]], sv[idx[1]], sv[idx[2]]],
                    (None, Some((lo, sv))) => idx.map(|i| sv[i - lo]),
                    (None, None) => {
                        idx.map(|i| ScreenVertex::new(&self.ctx, &self.planes, (p.position)(i)))
                    }
                };
                if self.filled_triangle(sv, idx, (&mut v, &mut w), &mut sink) {
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
            assemble(&self.ctx, planes, p.topology, &v[..per], &mut w, &mut sink);
        }
        let (tiles_x, tiles_y) = self.tiles;
        let bins = ChunkBins::new(
            &sink.tris,
            &sink.planes,
            (draw, self.stride),
            tiles_x,
            tiles_y,
        );
        (sink.stats, bins)
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
