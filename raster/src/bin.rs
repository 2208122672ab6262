//! Binning triangles to screen tiles, and rasterising one tile's bin.
//!
//! Each set-up chunk (a run of consecutive primitives of one draw) is binned on the worker
//! that set it up: every triangle, with its plane equations, is *copied* into the bin of
//! each tile it may touch. A tile worker then streams through its bins sequentially — chunk
//! by chunk in submission order, triangle by triangle within a chunk — so it never chases
//! pointers into a large shared triangle array (measured: with shared storage and per-tile
//! index lists, 1M small triangles spent most of their time on cache misses).

use crate::fixed::{half_line_span, Edge, Fixed};
use crate::fragment::{Dst, FragmentPath, Scratch, SPAN};
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
        if sink.tris.is_empty() {
            // Nothing to bin (everything culled or too small to cover a sample): no tile
            // list at all. The context queues only chunks with triangles, so an empty one is
            // never indexed by tile.
            return ChunkBins {
                tiles: Vec::new(),
                triangles: 0,
            };
        }
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

/// Triangles whose box (clipped to the tile) holds at most this many pixels are shaded as one
/// block of all their covered pixels instead of row by row: small triangles cover two or
/// three pixels per row, and the per-batch cost of the fragment stage dominated.
const BLOCK_PIXELS: i64 = SPAN as i64;

/// A block's pixels: tile offsets and the target values gathered from them.
struct Gather {
    off: [u16; SPAN],
    depth: [f32; SPAN],
    stencil: [u8; SPAN],
    color: [[u8; 4]; SPAN],
}

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
    let mut g = Gather {
        off: [0; SPAN],
        depth: [0.0; SPAN],
        stencil: [0; SPAN],
        color: [[0; 4]; SPAN],
    };
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
            if n * i64::from(y1 - y0) <= BLOCK_PIXELS {
                // Every covered pixel of the box, row by row (the same edge test as below).
                let mut k = 0;
                for y in y0..y1 {
                    let mut e = c;
                    for i in 0..n {
                        if (e[0] | e[1] | e[2]) >= 0 {
                            let x = x0 + i as i32;
                            g.off[k] = ((y - ty) * ts + (x - tx)) as u16;
                            // Exact, like the row walk's `bx + i` (see `run_span`).
                            scratch.dxp[k] = (x as f32 + 0.5) - tri.ref_x;
                            scratch.dyp[k] = (y as f32 + 0.5) - tri.ref_y;
                            k += 1;
                        }
                        for j in 0..3 {
                            e[j] += sx[j];
                        }
                    }
                    for j in 0..3 {
                        c[j] += sy[j];
                    }
                }
                if k == 0 {
                    continue;
                }
                // Pad to a multiple of 4 (the vector width) with copies of the last pixel,
                // masked off: measured best for 1–10 pixel triangles.
                let padded = k.next_multiple_of(4).min(SPAN);
                for i in k..padded {
                    scratch.dxp[i] = scratch.dxp[k - 1];
                    scratch.dyp[i] = scratch.dyp[k - 1];
                }
                for (i, &o) in g.off[..k].iter().enumerate() {
                    let o = usize::from(o);
                    g.depth[i] = tile.depth[o];
                    g.stencil[i] = tile.stencil[o];
                    g.color[i] = tile.color[o];
                }
                let dst = Dst {
                    depth: &mut g.depth[..padded],
                    stencil: &mut g.stencil[..padded],
                    color: &mut g.color[..padded],
                };
                written += path.run_pixels(tri, planes, (k, padded), dst, scratch);
                for (i, &o) in g.off[..k].iter().enumerate() {
                    let o = usize::from(o);
                    tile.depth[o] = g.depth[i];
                    tile.stencil[o] = g.stencil[i];
                    tile.color[o] = g.color[i];
                }
                continue;
            }
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
