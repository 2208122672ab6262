//! Binning triangles to screen tiles, and rasterising one tile's bin.
//!
//! Each set-up chunk (a run of consecutive primitives of one draw) is binned on the worker
//! that set it up: every triangle, with its plane equations, is *copied* into the bin of
//! each tile it may touch. A tile worker then streams through its bins sequentially — chunk
//! by chunk in submission order, triangle by triangle within a chunk — so it never chases
//! pointers into a large shared triangle array (measured: with shared storage and per-tile
//! index lists, 1M small triangles spent most of their time on cache misses).

use crate::fixed::{half_line_span, Edge, Fixed};
use crate::fragment::{FragmentPath, Scratch};
use crate::setup::{TriSetup, TriSink};
use crate::target::{TileMut, TILE_SHIFT, TILE_SIZE};

/// One tile's share of a chunk: triangles (with the index of their draw) and their planes.
#[derive(Default)]
pub(crate) struct TileBin {
    pub tris: Vec<(u32, TriSetup)>,
    pub planes: Vec<f32>,
}

/// The bins of one chunk, one per tile (empty bins do not allocate).
pub(crate) struct ChunkBins {
    pub tiles: Vec<TileBin>,
    pub triangles: usize,
}

impl ChunkBins {
    /// Bins `sink`'s triangles (of draw `draw`, `stride` plane floats each) to tiles.
    pub fn new(sink: &TriSink, draw: u32, stride: usize, tiles_x: u32, tiles_y: u32) -> ChunkBins {
        let mut tiles: Vec<TileBin> = Vec::new();
        tiles.resize_with((tiles_x * tiles_y) as usize, TileBin::default);
        // Reserve each bin once: count the tiles of every triangle's box (an upper bound for
        // triangles spanning several tiles, exact for the rest), so pushes never reallocate.
        let mut counts = vec![0u32; tiles.len()];
        for tri in &sink.tris {
            let [x0, y0, x1, y1] = tri.bbox;
            for ty in (y0 >> TILE_SHIFT)..=((y1 - 1) >> TILE_SHIFT) {
                for tx in (x0 >> TILE_SHIFT)..=((x1 - 1) >> TILE_SHIFT) {
                    counts[(ty as u32 * tiles_x + tx as u32) as usize] += 1;
                }
            }
        }
        for (bin, &c) in tiles.iter_mut().zip(&counts) {
            if c > 0 {
                bin.tris.reserve_exact(c as usize);
                bin.planes.reserve_exact(c as usize * stride);
            }
        }
        let mut triangles = 0;
        for tri in &sink.tris {
            let [x0, y0, x1, y1] = tri.bbox;
            let (tx0, ty0) = (x0 >> TILE_SHIFT, y0 >> TILE_SHIFT);
            let (tx1, ty1) = ((x1 - 1) >> TILE_SHIFT, (y1 - 1) >> TILE_SHIFT);
            let single = tx0 == tx1 && ty0 == ty1;
            let planes = &sink.planes[tri.planes as usize..tri.planes as usize + stride];
            for ty in ty0..=ty1 {
                for tx in tx0..=tx1 {
                    if !single && !tile_touches(tri, tx, ty) {
                        continue;
                    }
                    let bin = &mut tiles[(ty as u32 * tiles_x + tx as u32) as usize];
                    let at = bin.planes.len() as u32;
                    bin.tris.push((draw, TriSetup { planes: at, ..*tri }));
                    bin.planes.extend_from_slice(planes);
                    triangles += 1;
                }
            }
        }
        ChunkBins { tiles, triangles }
    }
}

/// The three edge functions of a set-up triangle.
#[inline]
pub(crate) fn edges(tri: &TriSetup) -> [Edge; 3] {
    let p = |i: usize| (Fixed(tri.xs[i]), Fixed(tri.ys[i]));
    [
        Edge::new(p(0), p(1)),
        Edge::new(p(1), p(2)),
        Edge::new(p(2), p(0)),
    ]
}

/// Conservative test: could the triangle cover a sample of tile `(tx, ty)`? Rejects tiles
/// entirely outside one edge (evaluated at the tile's pixel centre that maximises it).
fn tile_touches(tri: &TriSetup, tx: i32, ty: i32) -> bool {
    let (px0, py0) = (tx * TILE_SIZE as i32, ty * TILE_SIZE as i32);
    let last = TILE_SIZE as i32 - 1;
    edges(tri).iter().all(|e| {
        let cx = if e.step_x() > 0 { px0 + last } else { px0 };
        let cy = if e.step_y() > 0 { py0 + last } else { py0 };
        e.at_pixel(cx, cy) >= 0
    })
}

/// Bounding boxes up to this wide find their row spans by scanning.
const NARROW: i64 = 16;

/// Rasterises every triangle of `bins` (in order) that falls in the tile whose top-left
/// pixel is `(tx, ty)`. Returns the number of fragments written.
pub(crate) fn raster_tile<'a>(
    tile: &mut TileMut<'_>,
    tx: i32,
    ty: i32,
    bins: impl Iterator<Item = &'a TileBin>,
    paths: &[(std::sync::Arc<FragmentPath>, usize)],
    scratch: &mut Scratch,
) -> u64 {
    let mut written = 0;
    let ts = TILE_SIZE as i32;
    for bin in bins {
        for (draw, tri) in &bin.tris {
            let (path, stride) = &paths[*draw as usize];
            let po = tri.planes as usize;
            let planes = &bin.planes[po..po + stride];
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
                // The covered pixels of a row are contiguous. Narrow boxes: scan (three adds
                // and a sign test per pixel); wide ones: solve each edge's half-line exactly.
                let (lo, hi) = if n <= NARROW {
                    let mut e = c;
                    let (mut lo, mut hi) = (n, 0);
                    for i in 0..n {
                        if (e[0] | e[1] | e[2]) >= 0 {
                            lo = lo.min(i);
                            hi = i + 1;
                        }
                        for k in 0..3 {
                            e[k] += sx[k];
                        }
                    }
                    (lo, hi)
                } else {
                    let (mut lo, mut hi) = (0, n);
                    for k in 0..3 {
                        let (l, h) = half_line_span(c[k], sx[k], n);
                        lo = lo.max(l);
                        hi = hi.min(h);
                    }
                    (lo, hi)
                };
                for k in 0..3 {
                    c[k] += sy[k];
                }
                if lo < hi {
                    let x = x0 + lo as i32;
                    let off = ((y - ty) * ts + (x - tx)) as usize;
                    let len = (hi - lo) as usize;
                    written += path.run_span(tri, planes, x, y, len, tile, off, scratch);
                }
            }
        }
    }
    written
}
