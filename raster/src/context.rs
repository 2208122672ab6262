//! [`Context`]: a render target, a worker pool, and the draw queue that ties the geometry
//! stage to the tiled fragment stage.
//!
//! A draw runs the geometry stage at once (fetch, clip, cull, snap, set up) — in parallel
//! over chunks of primitives when there are many — and *bins* the resulting triangles to
//! the screen tiles they touch, in submission order. Rasterisation is deferred until the
//! image is needed ([`Context::finish`], any read-back, a clear, or a full queue); then every
//! tile is rasterised by one worker, which walks its bin in order. Because each pixel
//! belongs to exactly one tile and sees its triangles in submission order, the result is
//! the same bytes for any thread count.

use std::sync::Arc;

use image::RgbaImage;
use rayon::prelude::*;

use crate::bin::{raster_tile, ChunkBins};
use crate::clip::{clip_line, clip_triangle, ClipPlanes, MAX_POLY};
use crate::fragment::{FragmentPath, FragmentShader, Scratch, VertexColorShader};
use crate::screen::{screen_triangle, screen_vertices, Screen, ScreenVertex};
use crate::setup::{GeometryStats, SetupCtx, TriSink, WinVertex};
use crate::simd::SimdLevel;
use crate::state::{PipelineState, PolygonMode};
use crate::target::{RenderTarget, TileMut, TILE_SIZE};
use crate::vertex::{ClipVertex, Indices, Topology, VertexInput, MAX_VARYINGS};
use crate::Error;

/// Primitives per set-up chunk: at least this many (parallel overhead) …
const MIN_CHUNK: usize = 4096;
/// … and at most this many. Large chunks give long per-tile runs of binned triangles that a
/// tile worker reads sequentially (measured on 1M small triangles: 4096-primitive chunks left
/// ~8 triangles per tile per chunk and spent most of the raster time on cache misses).
const MAX_CHUNK: usize = 1 << 16;
/// Binned triangle copies that trigger a flush (bounds memory: about 128 bytes each).
const MAX_QUEUED_TRIANGLES: usize = 2 << 20;
/// Queued draws that trigger a flush: each holds its fragment path (about 1 KiB for a
/// fixed-function draw) until `finish`. A scene of 10⁶ small leaves held 1 GB of them.
const MAX_QUEUED_DRAWS: usize = 1 << 14;

/// Options for a [`Context`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ContextOptions {
    /// Worker threads; `None` or `Some(0)` means all available cores.
    pub threads: Option<usize>,
}

/// What a draw did, for statistics and tests.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DrawStats {
    /// Geometry-stage counters.
    pub geometry: GeometryStats,
}

/// Totals since the context was created (or [`Context::reset_stats`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FrameStats {
    /// Draw calls.
    pub draws: u64,
    /// Geometry-stage counters, summed.
    pub geometry: GeometryStats,
    /// Fragments that reached the colour write (passed every test).
    pub fragments_written: u64,
}

/// A render target plus the machinery to draw into it: the software equivalent of a GL
/// context with one framebuffer.
pub struct Context {
    target: RenderTarget,
    pool: rayon::ThreadPool,
    /// Fragment path and plane stride of each queued draw.
    paths: Vec<(Arc<FragmentPath>, usize)>,
    /// Binned chunks, in submission order.
    chunks: Vec<ChunkBins>,
    queued: usize,
    stats: FrameStats,
    /// Instruction set of the fragment kernels.
    simd: SimdLevel,
    /// A clear not yet written: each tile applies it, in its worker, just before its bins.
    pending_clear: Option<TileClear>,
    /// Set by an [`crate::explain::Explainer`] around each of its draws.
    pub(crate) probe: Option<crate::explain::ProbeTag>,
}

impl Context {
    /// A `width × height` context (cleared to transparent black, depth 1, stencil 0).
    ///
    /// The fragment kernels run at the best instruction set of the CPU, or at the level
    /// `PLUMB_SIMD` names ([`crate::simd`]); every level gives the same bytes.
    ///
    /// # Errors
    /// [`Error::InvalidSize`] for a bad size, [`Error::ThreadPool`] if threads cannot start,
    /// [`Error::Simd`] for an unknown or unsupported `PLUMB_SIMD`.
    pub fn new(width: u32, height: u32, options: ContextOptions) -> Result<Context, Error> {
        let simd = SimdLevel::from_env()?;
        let target = RenderTarget::new(width, height)?;
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(options.threads.unwrap_or(0))
            .thread_name(|i| format!("plumb-raster-{i}"))
            .build()
            .map_err(|e| Error::ThreadPool(e.to_string()))?;
        Ok(Context {
            target,
            pool,
            paths: Vec::new(),
            chunks: Vec::new(),
            queued: 0,
            stats: FrameStats::default(),
            simd,
            pending_clear: None,
            probe: None,
        })
    }

    /// The instruction set the fragment kernels run at.
    pub fn simd_level(&self) -> SimdLevel {
        self.simd
    }

    /// The `fearless_simd` level of [`Context::simd_level`] (the fallback if the CPU lacks
    /// it, which `set_simd_level` already refuses).
    pub(crate) fn level(&self) -> fearless_simd::Level {
        self.simd
            .to_level()
            .unwrap_or(fearless_simd::Level::fallback())
    }

    /// Forces the instruction set of later draws (the output bytes do not change; tests and
    /// benchmarks use this to hold every level to the same images).
    ///
    /// # Errors
    /// [`Error::Simd`] if this CPU lacks the level; the level is then unchanged.
    pub fn set_simd_level(&mut self, level: SimdLevel) -> Result<(), Error> {
        level.check()?;
        self.simd = level;
        Ok(())
    }

    /// Width in pixels.
    pub fn width(&self) -> u32 {
        self.target.width()
    }

    /// Height in pixels.
    pub fn height(&self) -> u32 {
        self.target.height()
    }

    /// Number of worker threads.
    pub fn threads(&self) -> usize {
        self.pool.current_num_threads()
    }

    /// The worker pool.
    pub(crate) fn pool(&self) -> &rayon::ThreadPool {
        &self.pool
    }

    /// A default [`PipelineState`] for this target's size.
    pub fn default_state(&self) -> PipelineState {
        PipelineState::new(self.width(), self.height())
    }

    /// Clears colour (as floats, converted like fragment colours), depth (clamped to 0..1;
    /// NaN becomes 1) and stencil.
    ///
    /// Queued draws are rasterised first. The clear itself is deferred: each tile's worker
    /// writes it just before the tile's next triangles (or at the next read-back), so a frame
    /// touches its pixels once, in cache and in parallel.
    pub fn clear(&mut self, color: glam::Vec4, depth: f32, stencil: u8) {
        self.finish();
        self.pending_clear = Some(TileClear {
            color: [color.x, color.y, color.z, color.w].map(crate::fragment::to_unorm8),
            depth: crate::target::clear_depth_value(depth),
            stencil,
        });
    }

    /// Clears a rectangle of some planes, the rest of the target untouched: GL's `glClear`
    /// under a scissor box, Wild Magic's `ClearSubZBuffer` / `ClearSubStencilBuffer` /
    /// `ClearSubBackBuffer`. `None` leaves that plane as it is; colour converts like a
    /// fragment colour, depth is clamped to 0..1 (NaN becomes 1). The rectangle is clipped
    /// to the target.
    ///
    /// Queued draws are rasterised first, so draws before the call see the old values and
    /// draws after it the new ones (between passes of a frame: an inset or a HUD layer drawn
    /// over what is already there).
    pub fn clear_rect(
        &mut self,
        rect: crate::state::Rect,
        color: Option<glam::Vec4>,
        depth: Option<f32>,
        stencil: Option<u8>,
    ) {
        self.finish();
        let color = color.map(|c| [c.x, c.y, c.z, c.w].map(crate::fragment::to_unorm8));
        self.target.clear_rect(rect, color, depth, stencil);
    }

    /// Draws primitives whose vertex colours are their fragment colours.
    ///
    /// # Errors
    /// Only for unusable input, before anything is drawn: attribute arrays of the wrong
    /// length ([`Error::BufferLength`]), an index past the vertex count
    /// ([`Error::IndexOutOfRange`]) or invalid state ([`Error::InvalidState`]). Non-finite or
    /// degenerate primitives are skipped and counted in the returned [`DrawStats`].
    pub fn draw(
        &mut self,
        state: &PipelineState,
        vertices: &VertexInput<'_>,
        indices: Indices<'_>,
        topology: Topology,
    ) -> Result<DrawStats, Error> {
        vertices.validate()?;
        indices.validate(vertices.positions.len())?;
        let nvar = vertices.layout().count();
        self.draw_with(
            state,
            (nvar, 4),
            Arc::new(VertexColorShader),
            indices,
            topology,
            vertices.positions.len(),
            (|i| vertices.positions[i], |i, out| vertices.fetch(i, out)),
        )
    }

    /// The general draw: `position(i)` is vertex `i`'s clip position, `fetch(i, out)` fills
    /// its clip position and first `nvar` varyings; `shader` turns interpolated varyings into
    /// colours. Filled triangles are culled and rejected from their positions alone: the
    /// varyings of a triangle that covers no pixel centre are never fetched.
    #[allow(
        clippy::too_many_arguments,
        reason = "internal entry point shared by all draws"
    )]
    pub(crate) fn draw_with<P, F>(
        &mut self,
        state: &PipelineState,
        (nvar, flat_count): (usize, usize),
        shader: Arc<dyn FragmentShader>,
        indices: Indices<'_>,
        topology: Topology,
        vertex_count: usize,
        (position, fetch): (P, F),
    ) -> Result<DrawStats, Error>
    where
        P: Fn(usize) -> glam::Vec4 + Sync,
        F: Fn(usize, &mut ClipVertex) + Sync,
    {
        state.validate()?;
        if nvar > MAX_VARYINGS {
            return Err(Error::TooMany {
                what: "varyings",
                max: MAX_VARYINGS,
                actual: nvar,
            });
        }
        let ctx = SetupCtx::new(state, self.width(), self.height(), nvar, flat_count);
        // Filled polygons clip x/y to the guard band (setup cuts them at the viewport);
        // points, lines and polygons in line or point mode clip to the view volume.
        let planes = ClipPlanes::new(&state.viewport, &state.clip_planes);
        let view_planes = ClipPlanes::view(&state.clip_planes);
        let elements = indices.len(vertex_count);
        let prims = topology.primitive_count(elements);

        let level = self.level();
        let probing = self.probe.is_some();
        let path = Arc::new(FragmentPath::new(
            state,
            nvar,
            shader,
            level,
            self.probe.clone(),
        ));
        // A probed draw's triangles carry their primitive after their planes.
        let stride = 3 * (2 + nvar) + usize::from(probing);
        if self.paths.len() >= MAX_QUEUED_DRAWS {
            self.finish();
        }
        let mut draw = self.paths.len() as u32;
        self.paths.push((Arc::clone(&path), stride));
        // Whether a chunk of this draw is queued since its path was last pushed.
        let mut queued_any = false;
        let (tiles_x, tiles_y) = (self.target.tiles_x(), self.target.tiles_y());
        // Indexed filled triangles share vertices (about six triangles each in a grid): their
        // screen-space tests are computed once per vertex, in parallel — when the indices
        // reference at least as many elements as there are vertices (a draw of a few
        // triangles out of a large vertex array computes them per triangle instead).
        let filled =
            topology.vertices_per_primitive() == 3 && ctx.polygon_mode == PolygonMode::Fill;
        let screen: Option<Vec<ScreenVertex>> =
            (filled && !matches!(indices, Indices::None) && elements >= vertex_count).then(|| {
                const BLOCK: usize = 4096;
                let mut sv = vec![ScreenVertex::default(); vertex_count];
                let block = |(c, chunk): (usize, &mut [ScreenVertex])| {
                    screen_vertices(level, &ctx, &planes, c * BLOCK, &position, chunk);
                };
                // One block runs on the calling thread (no pool round trip per small draw).
                if vertex_count > BLOCK {
                    self.pool
                        .install(|| sv.par_chunks_mut(BLOCK).enumerate().for_each(block));
                } else {
                    sv.chunks_mut(BLOCK).enumerate().for_each(block);
                }
                sv
            });
        let run = |range: std::ops::Range<usize>, draw: u32| {
            let mut sink = TriSink {
                probe_base: probing.then_some(range.start as u32),
                ..TriSink::default()
            };
            // About one triangle per primitive: no growth copies.
            sink.tris.reserve(range.len());
            sink.planes.reserve(range.len() * stride);
            let mut v = [ClipVertex::default(); 3];
            let mut w = [WinVertex::ZERO; MAX_POLY];
            let per = topology.vertices_per_primitive();
            // Unindexed lists and strips: the chunk's vertices are one run, tested in lanes.
            let run_sv = (filled
                && screen.is_none()
                && matches!(indices, Indices::None)
                && matches!(topology, Topology::TriangleList | Topology::TriangleStrip)
                && !range.is_empty())
            .then(|| {
                let lo = topology
                    .primitive(range.start)
                    .into_iter()
                    .min()
                    .unwrap_or(0);
                let hi = topology
                    .primitive(range.end - 1)
                    .into_iter()
                    .max()
                    .unwrap_or(0)
                    + 1;
                let mut sv = vec![ScreenVertex::default(); hi - lo];
                screen_vertices(level, &ctx, &planes, lo, &position, &mut sv);
                (lo, sv)
            });
            for p in range {
                let e = topology.primitive(p);
                if filled {
                    let idx = [indices.get(e[0]), indices.get(e[1]), indices.get(e[2])];
                    let sv = match (&screen, &run_sv) {
                        (Some(sv), _) => [sv[idx[0]], sv[idx[1]], sv[idx[2]]],
                        (None, Some((lo, sv))) => idx.map(|i| sv[i - lo]),
                        (None, None) => idx.map(|i| ScreenVertex::new(&ctx, &planes, position(i))),
                    };
                    match screen_triangle(&ctx, sv) {
                        Screen::NeedsClip => {}
                        Screen::Rejected(count) => {
                            sink.stats.primitives += 1;
                            if let Some(c) = count {
                                *c(&mut sink.stats) += 1;
                            }
                            continue;
                        }
                        Screen::Draw {
                            snapped,
                            tri,
                            front,
                        } => {
                            sink.stats.primitives += 1;
                            for k in 0..3 {
                                fetch(idx[k], &mut v[k]);
                                ctx.to_window_zq_into(&v[k], &mut w[k]);
                            }
                            let flat = ctx.flat.then_some((&v[0].var, ctx.flat_count));
                            let offset = if ctx.has_offset() {
                                TriSink::polygon_offset(&ctx, &w[..3], &snapped)
                            } else {
                                None
                            };
                            let v3 = [&w[0], &w[1], &w[2]];
                            sink.oriented(&ctx, v3, &tri, flat, front, offset);
                            continue;
                        }
                    }
                }
                for k in 0..per {
                    fetch(indices.get(e[k]), &mut v[k]);
                }
                let planes = if per == 3 && ctx.polygon_mode == PolygonMode::Fill {
                    &planes
                } else {
                    &view_planes
                };
                assemble(&ctx, planes, topology, &v[..per], &mut w, &mut sink);
            }
            let bins = ChunkBins::new(&sink.tris, &sink.planes, (draw, stride), tiles_x, tiles_y);
            (sink.stats, bins)
        };
        // Geometry in batches of one chunk per worker; each chunk is set up and binned on
        // its worker. Chunks keep submission order.
        let threads = self.threads().max(1);
        let chunk = prims.div_ceil(threads).clamp(MIN_CHUNK, MAX_CHUNK);
        let mut stats = DrawStats::default();
        let mut start = 0;
        while start < prims {
            let end = (start + chunk * threads).min(prims);
            let parts: Vec<(GeometryStats, ChunkBins)> = if end - start > chunk {
                let chunks: Vec<_> = (start..end)
                    .step_by(chunk)
                    .map(|c| c..(c + chunk).min(end))
                    .collect();
                self.pool
                    .install(|| chunks.into_par_iter().map(|r| run(r, draw)).collect())
            } else {
                vec![run(start..end, draw)]
            };
            for (st, bins) in parts {
                stats.geometry.add(&st);
                if bins.entries() > 0 {
                    self.queued += bins.entries();
                    self.chunks.push(bins);
                    queued_any = true;
                }
            }
            if self.queued >= MAX_QUEUED_TRIANGLES {
                self.finish();
                if end < prims {
                    // The rest of this draw is queued after the flush, with its path again.
                    draw = 0;
                    queued_any = false;
                    self.paths.push((Arc::clone(&path), stride));
                }
            }
            start = end;
        }
        if !queued_any && self.paths.len() == draw as usize + 1 {
            // Nothing of this draw was queued (all culled or clipped away): drop its path.
            self.paths.pop();
        }
        self.stats.draws += 1;
        self.stats.geometry.add(&stats.geometry);
        Ok(stats)
    }

    /// Rasterises everything queued. Called automatically before any read-back.
    pub fn finish(&mut self) {
        let clear = self.pending_clear.take();
        if self.chunks.is_empty() && clear.is_none() {
            self.paths.clear();
            return;
        }
        let tiles_x = self.target.tiles_x();
        let level = self.level();
        let paths = &self.paths;
        let chunks = &self.chunks;
        let target = &mut self.target;
        let written: u64 = self.pool.install(|| {
            let tiles: Vec<TileMut<'_>> = target.tiles_mut().collect();
            tiles
                .into_par_iter()
                .enumerate()
                .map_init(Scratch::new, |scratch, (i, mut tile)| {
                    if let Some(c) = &clear {
                        tile.color.fill(c.color);
                        tile.depth.fill(c.depth);
                        tile.stencil.fill(c.stencil);
                    }
                    if chunks.iter().all(|c| c.tile_is_empty(i)) {
                        return 0;
                    }
                    let tx = (i as u32 % tiles_x) as i32 * TILE_SIZE as i32;
                    let ty = (i as u32 / tiles_x) as i32 * TILE_SIZE as i32;
                    let bins = chunks.iter().map(|c| c.tile(i));
                    raster_tile(level, &mut tile, (tx, ty), bins, paths, scratch)
                })
                .sum()
        });
        self.stats.fragments_written += written;
        self.paths.clear();
        self.chunks.clear();
        self.queued = 0;
    }

    /// Totals so far (call [`Context::finish`] first for fragment counts).
    pub fn stats(&self) -> FrameStats {
        self.stats
    }

    /// Zeroes the totals.
    pub fn reset_stats(&mut self) {
        self.stats = FrameStats::default();
    }

    /// The finished target.
    pub fn target(&mut self) -> &RenderTarget {
        self.finish();
        &self.target
    }

    /// The colour plane as an image (row 0 at the top).
    pub fn color_image(&mut self) -> RgbaImage {
        self.target().to_rgba_image()
    }
}

/// The values of a deferred [`Context::clear`], converted.
#[derive(Clone, Copy)]
struct TileClear {
    color: [u8; 4],
    depth: f32,
    stencil: u8,
}

/// Clips and sets up one primitive (`v` holds 1, 2 or 3 vertices) against `planes`: the
/// guard-band set for filled polygons, the view-volume set for everything else
/// ([`crate::clip`]). A point is kept only when its centre is inside every plane.
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

#[cfg(feature = "internal-tests")]
pub(crate) mod tests {
    /// Every test of this module: `tests/unit.rs` runs each as one trial (an unlisted
    /// test fails the build as dead code).
    pub(crate) const TESTS: &[(&str, fn())] = &[
        (
            "draws_that_queue_nothing_hold_no_state",
            draws_that_queue_nothing_hold_no_state,
        ),
        ("queued_draws_are_bounded", queued_draws_are_bounded),
    ];

    use super::*;
    use crate::{Indices, PipelineState, Topology, VertexInput};
    use glam::Vec4;

    fn triangle(c: &mut Context, x: f32) {
        let pos = [
            Vec4::new(x, -0.5, 0.0, 1.0),
            Vec4::new(x + 0.5, -0.5, 0.0, 1.0),
            Vec4::new(x, 0.5, 0.0, 1.0),
        ];
        let col = [Vec4::ONE; 3];
        let st = PipelineState::new(c.width(), c.height());
        c.draw(
            &st,
            &VertexInput::colored(&pos, &col),
            Indices::None,
            Topology::TriangleList,
        )
        .unwrap();
    }

    /// Draws that queue nothing (here: entirely left of the view volume) do not keep their
    /// fragment paths until `finish`.
    fn draws_that_queue_nothing_hold_no_state() {
        let mut c = Context::new(32, 32, ContextOptions { threads: Some(1) }).unwrap();
        for _ in 0..1000 {
            triangle(&mut c, -5.0);
        }
        assert!(c.paths.is_empty(), "{} paths held", c.paths.len());
        triangle(&mut c, 0.0);
        assert_eq!(c.paths.len(), 1);
    }

    /// Queued draws are flushed at `MAX_QUEUED_DRAWS`, so their state is bounded too.
    fn queued_draws_are_bounded() {
        let mut c = Context::new(32, 32, ContextOptions { threads: Some(1) }).unwrap();
        for _ in 0..MAX_QUEUED_DRAWS + 10 {
            triangle(&mut c, 0.0);
            assert!(c.paths.len() <= MAX_QUEUED_DRAWS);
        }
        assert_eq!(c.paths.len(), 10);
        assert_eq!(c.stats().draws, (MAX_QUEUED_DRAWS + 10) as u64);
    }
}
