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

use crate::clip::{clip_line, clip_triangle, ClipPlanes, MAX_POLY};
use crate::fragment::{FragmentPath, FragmentShader, Scratch, VertexColorShader};
use crate::setup::{GeometryStats, SetupCtx, TriSink};
use crate::state::PipelineState;
use crate::target::{RenderTarget, TileMut, TILE_SHIFT, TILE_SIZE};
use crate::vertex::{ClipVertex, Indices, Topology, VertexInput, MAX_VARYINGS};
use crate::Error;

/// Primitives per parallel setup chunk.
const SETUP_CHUNK: usize = 8192;
/// Queued triangles that trigger a flush (bounds memory on huge draws).
const MAX_QUEUED_TRIANGLES: usize = 4 << 20;

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

struct DrawRecord {
    path: FragmentPath,
    sink: TriSink,
    stride: usize,
}

#[derive(Clone, Copy)]
struct BinEntry {
    draw: u32,
    tri: u32,
}

/// A render target plus the machinery to draw into it: the software equivalent of a GL
/// context with one framebuffer.
pub struct Context {
    target: RenderTarget,
    pool: rayon::ThreadPool,
    draws: Vec<DrawRecord>,
    bins: Vec<Vec<BinEntry>>,
    queued: usize,
    stats: FrameStats,
}

impl Context {
    /// A `width × height` context (cleared to transparent black, depth 1, stencil 0).
    ///
    /// # Errors
    /// [`Error::InvalidSize`] for a bad size, [`Error::ThreadPool`] if threads cannot start.
    pub fn new(width: u32, height: u32, options: ContextOptions) -> Result<Context, Error> {
        let target = RenderTarget::new(width, height)?;
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(options.threads.unwrap_or(0))
            .thread_name(|i| format!("plumb-raster-{i}"))
            .build()
            .map_err(|e| Error::ThreadPool(e.to_string()))?;
        let tiles = (target.tiles_x() * target.tiles_y()) as usize;
        Ok(Context {
            target,
            pool,
            draws: Vec::new(),
            bins: vec![Vec::new(); tiles],
            queued: 0,
            stats: FrameStats::default(),
        })
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

    /// A default [`PipelineState`] for this target's size.
    pub fn default_state(&self) -> PipelineState {
        PipelineState::new(self.width(), self.height())
    }

    /// Clears colour (as floats, converted like fragment colours), depth and stencil.
    pub fn clear(&mut self, color: glam::Vec4, depth: f32, stencil: u8) {
        self.finish();
        let c = [color.x, color.y, color.z, color.w].map(crate::fragment::to_unorm8);
        self.target.clear_color(c);
        self.target.clear_depth(depth);
        self.target.clear_stencil(stencil);
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
            nvar,
            Arc::new(VertexColorShader),
            indices,
            topology,
            vertices.positions.len(),
            |i, out| vertices.fetch(i, out),
        )
    }

    /// The general draw: `fetch(i, out)` fills vertex `i`'s clip position and first `nvar`
    /// varyings; `shader` turns interpolated varyings into colours.
    #[allow(
        clippy::too_many_arguments,
        reason = "internal entry point shared by all draws"
    )]
    pub(crate) fn draw_with<F>(
        &mut self,
        state: &PipelineState,
        nvar: usize,
        shader: Arc<dyn FragmentShader>,
        indices: Indices<'_>,
        topology: Topology,
        vertex_count: usize,
        fetch: F,
    ) -> Result<DrawStats, Error>
    where
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
        let ctx = SetupCtx::new(state, self.width(), self.height(), nvar);
        let planes = ClipPlanes::new(&state.viewport, &state.clip_planes);
        let elements = indices.len(vertex_count);
        let prims = topology.primitive_count(elements);

        let run = |range: std::ops::Range<usize>| {
            let mut sink = TriSink::default();
            let mut v = [ClipVertex::default(); 3];
            let per = topology.vertices_per_primitive();
            for p in range {
                let e = topology.primitive(p);
                for k in 0..per {
                    fetch(indices.get(e[k]), &mut v[k]);
                }
                assemble(&ctx, &planes, topology, &v[..per], &mut sink);
            }
            sink
        };
        let sink = if prims > SETUP_CHUNK && self.threads() > 1 {
            let chunks: Vec<_> = (0..prims.div_ceil(SETUP_CHUNK))
                .map(|c| c * SETUP_CHUNK..((c + 1) * SETUP_CHUNK).min(prims))
                .collect();
            let parts: Vec<TriSink> = self
                .pool
                .install(|| chunks.into_par_iter().map(run).collect());
            concat(parts)
        } else {
            run(0..prims)
        };
        let stats = DrawStats {
            geometry: sink.stats,
        };
        self.stats.draws += 1;
        self.stats.geometry.add(&sink.stats);
        if !sink.tris.is_empty() {
            self.bin(DrawRecord {
                path: FragmentPath::new(state, nvar, shader),
                sink,
                stride: 3 * (2 + nvar),
            });
        }
        if self.queued > MAX_QUEUED_TRIANGLES {
            self.finish();
        }
        Ok(stats)
    }

    fn bin(&mut self, rec: DrawRecord) {
        let draw = self.draws.len() as u32;
        let tx = self.target.tiles_x() as i32;
        for (t, tri) in rec.sink.tris.iter().enumerate() {
            let [x0, y0, x1, y1] = tri.bbox;
            let (tx0, ty0) = (x0 >> TILE_SHIFT, y0 >> TILE_SHIFT);
            let (tx1, ty1) = ((x1 - 1) >> TILE_SHIFT, (y1 - 1) >> TILE_SHIFT);
            for ty in ty0..=ty1 {
                for tx_ in tx0..=tx1 {
                    if tx1 > tx0 || ty1 > ty0 {
                        if !tile_touches(tri, tx_, ty) {
                            continue;
                        }
                    }
                    self.bins[(ty * tx + tx_) as usize].push(BinEntry {
                        draw,
                        tri: t as u32,
                    });
                }
            }
        }
        self.queued += rec.sink.tris.len();
        self.draws.push(rec);
    }

    /// Rasterises everything queued. Called automatically before any read-back.
    pub fn finish(&mut self) {
        if self.draws.is_empty() {
            return;
        }
        let tiles_x = self.target.tiles_x();
        let draws = &self.draws;
        let bins = &self.bins;
        let target = &mut self.target;
        let written: u64 = self.pool.install(|| {
            let tiles: Vec<TileMut<'_>> = target.tiles_mut().collect();
            tiles
                .into_par_iter()
                .enumerate()
                .map(|(i, mut tile)| {
                    let bin = &bins[i];
                    if bin.is_empty() {
                        return 0;
                    }
                    let tx = (i as u32 % tiles_x) as i32 * TILE_SIZE as i32;
                    let ty = (i as u32 / tiles_x) as i32 * TILE_SIZE as i32;
                    raster_tile(&mut tile, tx, ty, bin, draws)
                })
                .sum()
        });
        self.stats.fragments_written += written;
        self.draws.clear();
        for b in &mut self.bins {
            b.clear();
        }
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

/// Conservative test: could the triangle cover any sample of tile `(tx, ty)`? Rejects tiles
/// entirely outside one edge (evaluated at the tile corner that maximises the edge).
fn tile_touches(tri: &crate::setup::TriSetup, tx: i32, ty: i32) -> bool {
    let px0 = tx * TILE_SIZE as i32;
    let py0 = ty * TILE_SIZE as i32;
    let last = TILE_SIZE as i32 - 1;
    for e in edges(tri) {
        let cx = if e.step_x() > 0 { px0 + last } else { px0 };
        let cy = if e.step_y() > 0 { py0 + last } else { py0 };
        if e.at_pixel(cx, cy) < 0 {
            return false;
        }
    }
    true
}

#[inline]
fn edges(tri: &crate::setup::TriSetup) -> [crate::fixed::Edge; 3] {
    use crate::fixed::{Edge, Fixed};
    let p = |i: usize| (Fixed(tri.xs[i]), Fixed(tri.ys[i]));
    [
        Edge::new(p(0), p(1)),
        Edge::new(p(1), p(2)),
        Edge::new(p(2), p(0)),
    ]
}

fn raster_tile(
    tile: &mut TileMut<'_>,
    tx: i32,
    ty: i32,
    bin: &[BinEntry],
    draws: &[DrawRecord],
) -> u64 {
    let mut scratch = Scratch::new();
    let mut written = 0;
    let ts = TILE_SIZE as i32;
    for entry in bin {
        let rec = &draws[entry.draw as usize];
        let tri = &rec.sink.tris[entry.tri as usize];
        let po = tri.planes as usize;
        let planes = &rec.sink.planes[po..po + rec.stride];
        let x0 = tri.bbox[0].max(tx);
        let x1 = tri.bbox[2].min(tx + ts);
        let y0 = tri.bbox[1].max(ty);
        let y1 = tri.bbox[3].min(ty + ts);
        if x0 >= x1 || y0 >= y1 {
            continue;
        }
        let e = edges(tri);
        let n = i64::from(x1 - x0);
        let mut c = [
            e[0].at_pixel(x0, y0),
            e[1].at_pixel(x0, y0),
            e[2].at_pixel(x0, y0),
        ];
        let sx = [e[0].step_x(), e[1].step_x(), e[2].step_x()];
        let sy = [e[0].step_y(), e[1].step_y(), e[2].step_y()];
        for y in y0..y1 {
            let mut lo = 0;
            let mut hi = n;
            for k in 0..3 {
                let (l, h) = crate::fixed::half_line_span(c[k], sx[k], n);
                lo = lo.max(l);
                hi = hi.min(h);
                c[k] += sy[k];
            }
            if lo < hi {
                let x = x0 + lo as i32;
                let off = ((y - ty) * ts + (x - tx)) as usize;
                written += rec.path.run_span(
                    tri,
                    planes,
                    x,
                    y,
                    (hi - lo) as usize,
                    tile,
                    off,
                    &mut scratch,
                );
            }
        }
    }
    written
}

fn concat(parts: Vec<TriSink>) -> TriSink {
    let mut out = TriSink::default();
    out.tris.reserve(parts.iter().map(|p| p.tris.len()).sum());
    out.planes
        .reserve(parts.iter().map(|p| p.planes.len()).sum());
    for p in parts {
        let base = out.planes.len() as u32;
        out.tris
            .extend(p.tris.iter().map(|t| crate::setup::TriSetup {
                planes: t.planes + base,
                ..*t
            }));
        out.planes.extend_from_slice(&p.planes);
        out.stats.add(&p.stats);
    }
    out
}

/// Clips and sets up one primitive (`v` holds 1, 2 or 3 vertices).
fn assemble(
    ctx: &SetupCtx,
    planes: &ClipPlanes,
    topology: Topology,
    v: &[ClipVertex],
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
    let flat = ctx.flat.then_some(&v[0].var);
    match topology {
        Topology::PointList => {
            let w = ctx.to_window(&v[0]);
            sink.point(ctx, &w, true);
        }
        Topology::LineList | Topology::LineStrip => {
            if let Some((a, b)) = clip_line(&v[0], &v[1], planes, or, ctx.nvar) {
                let (wa, wb) = (ctx.to_window(&a), ctx.to_window(&b));
                sink.line(ctx, &wa, &wb, flat, true);
            }
        }
        _ => {
            let poly = clip_triangle([&v[0], &v[1], &v[2]], planes, or, ctx.nvar);
            if poly.len < 3 {
                sink.stats.clipped_away += 1;
                return;
            }
            // Which polygon vertices are original triangle vertices (for point mode).
            let mut orig = [false; MAX_POLY];
            for i in 0..poly.len {
                orig[i] = v.iter().any(|o| o.pos == poly.v[i].pos);
            }
            sink.polygon(ctx, &poly, &orig, flat);
        }
    }
}
