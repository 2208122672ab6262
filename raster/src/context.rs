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

use crate::base::error::Error;
use crate::base::simd::SimdLevel;
use crate::fragment::path::{Aux, FragmentPath, VertexColorShader};
use crate::fragment::scratch::{FragmentShader, Scratch};
use crate::fragment::tile::raster_tile;
use crate::geometry::assemble::{FrontEnd, Primitives};
use crate::geometry::bin::ChunkBins;
use crate::geometry::setup::GeometryStats;
use crate::state::PipelineState;
use crate::target::{Planes, RenderTarget, TileMut, TILE_SIZE};
use crate::vertex::{ClipVertex, Indices, Topology, VertexInput, MAX_VARYINGS};

/// Primitives per set-up chunk: at least this many (parallel overhead) …
const MIN_CHUNK: usize = 4096;
/// … and at most this many. Large chunks give long per-tile runs of binned triangles that a
/// tile worker reads sequentially (measured on 1M small triangles: 4096-primitive chunks left
/// ~8 triangles per tile per chunk and spent most of the raster time on cache misses).
const MAX_CHUNK: usize = 1 << 16;
/// Binned triangle slots (copies, and the bins' unfilled slots: `geometry::bin`) that
/// trigger a flush (bounds memory: about 170 bytes each with a vertex colour).
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
    pub(crate) probe: Option<crate::history::ProbeTag>,
    /// The id later draws write to the target's id plane ([`Context::set_object_id`]).
    object_id: u32,
}

impl Context {
    /// A `width × height` context (cleared to transparent black, depth 1, stencil 0).
    ///
    /// The fragment kernels run at the best instruction set of the CPU, or at the level
    /// `PLUMB_SIMD` names ([`crate::base::simd`]); every level gives the same bytes.
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
            // The tile walk's size classes are inlined into one function per SIMD level; an
            // unoptimised build gives each of their locals a slot of its own, and its frame
            // passed the default 2 MiB. Reserved address space, touched only as used.
            .stack_size(16 << 20)
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
            object_id: 0,
        })
    }

    /// Keeps (or drops) the target's optional planes, an object id and an eye-space normal
    /// per pixel (see [`crate::target`]); queued draws are rasterised first. Kept planes
    /// start at 0. Draws into a target with either plane take the staged fragment path
    /// (the fused kernels do not write them): the colour and depth bytes are the same.
    pub fn enable_planes(&mut self, planes: Planes) {
        self.finish();
        self.target.enable_planes(planes);
    }

    /// Whether the target keeps a normal plane (the fixed-function vertex stage then outputs
    /// the eye-space normal).
    pub(crate) fn keeps_normals(&self) -> bool {
        self.target.planes().normals
    }

    /// The id later draws store in the id plane where they write depth (default 0, which
    /// also stands for "nothing drawn").
    pub fn set_object_id(&mut self, id: u32) {
        self.object_id = id;
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
            color: [color.x, color.y, color.z, color.w].map(crate::base::unorm::to_unorm8),
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
        let color = color.map(|c| [c.x, c.y, c.z, c.w].map(crate::base::unorm::to_unorm8));
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
        let prims = (indices, topology);
        if let (Some(colors), [], None) = (vertices.colors, vertices.uvs, vertices.fog) {
            // Positions and colours, the common layout: what `VertexInput::fetch` does,
            // without its tests of the attributes present.
            let fetch = |i: usize, out: &mut ClipVertex| {
                out.pos = vertices.positions[i];
                out.var[..4].copy_from_slice(&colors[i].to_array());
            };
            return self.draw_vertices(state, vertices, prims, fetch);
        }
        let fetch = |i: usize, out: &mut ClipVertex| vertices.fetch(i, out);
        self.draw_vertices(state, vertices, prims, fetch)
    }

    /// [`Context::draw`] with the vertex fetch `fetch` (monomorphised per layout).
    fn draw_vertices<F>(
        &mut self,
        state: &PipelineState,
        vertices: &VertexInput<'_>,
        (indices, topology): (Indices<'_>, Topology),
        fetch: F,
    ) -> Result<DrawStats, Error>
    where
        F: Fn(usize, &mut ClipVertex) + Sync,
    {
        let prims = Primitives {
            indices,
            topology,
            vertex_count: vertices.positions.len(),
            varyings: (vertices.layout().count(), 4),
            position: |i| vertices.positions[i],
            fetch,
        };
        self.draw_with(state, Arc::new(VertexColorShader), prims, None)
    }

    /// The general draw: `prims` names the vertices and how they form primitives
    /// ([`Primitives`]); `shader` turns interpolated varyings into colours. The geometry
    /// front end ([`FrontEnd`]) sets up and bins the primitives chunk by chunk, in parallel
    /// over the pool; this queues the chunks in submission order. `normal_at` is where the
    /// eye-space normal sits in the varyings, for the target's normal plane.
    pub(crate) fn draw_with<P, F>(
        &mut self,
        state: &PipelineState,
        shader: Arc<dyn FragmentShader>,
        prims: Primitives<'_, P, F>,
        normal_at: Option<usize>,
    ) -> Result<DrawStats, Error>
    where
        P: Fn(usize) -> glam::Vec4 + Sync,
        F: Fn(usize, &mut ClipVertex) + Sync,
    {
        state.validate()?;
        let (nvar, _) = prims.varyings;
        if nvar > MAX_VARYINGS {
            return Err(Error::TooMany {
                what: "varyings",
                max: MAX_VARYINGS,
                actual: nvar,
            });
        }
        let level = self.level();
        let tiles = (self.target.tiles_x(), self.target.tiles_y());
        let size = (self.width(), self.height());
        let probing = self.probe.is_some();
        let mut front = FrontEnd::new(state, prims, size, tiles, (level, probing));
        front.screen_vertices(&self.pool);
        let path = self.fragment_path(state, (nvar, normal_at), shader);
        let stride = front.stride;
        if self.paths.len() >= MAX_QUEUED_DRAWS {
            self.finish();
        }
        let mut draw = self.paths.len() as u32;
        self.paths.push((Arc::clone(&path), stride));
        // Whether a chunk of this draw is queued since its path was last pushed.
        let mut queued_any = false;
        // Geometry in batches of one chunk per worker; each chunk is set up and binned on
        // its worker. Chunks keep submission order.
        let prims = front.primitive_count();
        let threads = self.threads().max(1);
        // Equal chunks, as many as a multiple of the threads (none over `MAX_CHUNK`): every
        // batch of `threads` chunks keeps each worker busy to its end. (Chunks of
        // `MAX_CHUNK` and a remainder left the last batch of the 200k-triangle terrain on
        // one worker: 65,536 primitives against 3,392.)
        let chunk = {
            let n = prims.div_ceil(MAX_CHUNK).max(1).next_multiple_of(threads);
            prims.div_ceil(n).max(MIN_CHUNK)
        };
        let mut stats = DrawStats::default();
        let mut start = 0;
        while start < prims {
            let end = (start + chunk * threads).min(prims);
            let parts: Vec<(GeometryStats, ChunkBins)> = if end - start > chunk {
                let chunks: Vec<_> = (start..end)
                    .step_by(chunk)
                    .map(|c| c..(c + chunk).min(end))
                    .collect();
                let front = &front;
                self.pool.install(|| {
                    chunks
                        .into_par_iter()
                        .map(|r| front.chunk(r, draw))
                        .collect()
                })
            } else {
                vec![front.chunk(start..end, draw)]
            };
            for (st, bins) in parts {
                stats.geometry.add(&st);
                if bins.entries() > 0 {
                    self.queued += bins.slots();
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

    /// The fragment path of a draw of `nvar` varyings, with what it writes to the target's
    /// optional planes (the normal at `normal_at`) when it writes depth.
    fn fragment_path(
        &self,
        state: &PipelineState,
        (nvar, normal_at): (usize, Option<usize>),
        shader: Arc<dyn FragmentShader>,
    ) -> Arc<FragmentPath> {
        let planes = self.target.planes();
        let aux = ((planes.ids || planes.normals) && state.depth.write).then_some(Aux {
            id: self.object_id,
            normal: normal_at.filter(|_| planes.normals),
        });
        Arc::new(FragmentPath::new(
            state,
            (nvar, aux),
            shader,
            self.level(),
            self.probe.clone(),
        ))
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
                        tile.fill(level, (c.color, c.depth, c.stencil));
                    }
                    if chunks.iter().all(|c| c.tile_is_empty(i)) {
                        return 0;
                    }
                    let tx = (i as u32 % tiles_x) as i32 * TILE_SIZE as i32;
                    let ty = (i as u32 / tiles_x) as i32 * TILE_SIZE as i32;
                    let bins = chunks.iter().flat_map(|c| c.tile(i));
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
    use crate::state::PipelineState;
    use crate::vertex::{Indices, Topology, VertexInput};
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
