//! Binning triangles to screen tiles, and rasterising one tile's bin.
//!
//! Each set-up chunk (a run of consecutive primitives of one draw) is binned on the worker
//! that set it up: every triangle, with its plane equations, is *copied* into the bin of
//! each tile it may touch, so that a tile worker streams through its bins sequentially —
//! chunk by chunk in submission order, triangle by triangle within a chunk — and never
//! chases indices into a large shared triangle array. (Measured, issue 27: per-tile index
//! lists into the chunk's triangle array save 134 instructions per small triangle but cost
//! 60% more wall-clock time on 1M small triangles, in cache misses.)
//!
//! A chunk's bins are one flat array in tile order, filled by a counting sort: exact
//! per-tile counts, prefix sums, one copy per entry — no per-tile vectors to grow.

use fearless_simd::{f32x8, i32x8, Level, Simd, SimdBase};

use crate::fixed::{half_line_span, Edge, Edge32, Fixed};
use crate::fragment::{Dst, FragmentPath, Scratch, SPAN};
use crate::setup::TriSetup;
use crate::target::{TileMut, TILE_PIXELS, TILE_SHIFT, TILE_SIZE};

/// The binned triangles of one chunk (all of one draw), in tile order: tile `t`'s are
/// `tris[start[t]..start[t + 1]]`, in submission order, entry `j`'s planes at
/// `planes[j·stride..]`.
pub(crate) struct ChunkBins {
    /// Index of the chunk's draw in the context's queued paths.
    draw: u32,
    tris: Vec<TriSetup>,
    planes: Vec<f32>,
    /// Per-tile entry ranges (empty when the chunk has no triangles).
    start: Vec<u32>,
}

/// One tile's share of a chunk.
pub(crate) struct TileRefs<'a> {
    pub draw: u32,
    pub tris: &'a [TriSetup],
    pub planes: &'a [f32],
}

/// The tile range `(tx0, ty0, tx1, ty1)` (inclusive) of a triangle's pixel box.
#[inline]
fn tile_range(tri: &TriSetup) -> (i32, i32, i32, i32) {
    let [x0, y0, x1, y1] = tri.bbox;
    (
        x0 >> TILE_SHIFT,
        y0 >> TILE_SHIFT,
        (x1 - 1) >> TILE_SHIFT,
        (y1 - 1) >> TILE_SHIFT,
    )
}

impl ChunkBins {
    /// Bins the triangles `tris` (of draw `draw`, `stride` plane floats each in `planes`)
    /// to tiles.
    pub fn new(
        tris: &[TriSetup],
        planes: &[f32],
        (draw, stride): (u32, usize),
        tiles_x: u32,
        tiles_y: u32,
    ) -> ChunkBins {
        if tris.is_empty() {
            // Nothing to bin (everything culled or too small to cover a sample): no tile
            // list at all. The context queues only chunks with triangles, so an empty one is
            // never indexed by tile.
            return ChunkBins {
                draw,
                tris: Vec::new(),
                planes: Vec::new(),
                start: Vec::new(),
            };
        }
        let ntiles = (tiles_x * tiles_y) as usize;
        let tile = |tx: i32, ty: i32| (ty as u32 * tiles_x + tx as u32) as usize;
        // Counts (in `start[t + 1]`), then prefix sums, then one copy per entry in triangle
        // order. A triangle's tile when it has exactly one (most), `u32::MAX` otherwise.
        let mut start = vec![0u32; ntiles + 1];
        let mut single = Vec::with_capacity(tris.len());
        for tri in tris {
            let (tx0, ty0, tx1, ty1) = tile_range(tri);
            if tx0 == tx1 && ty0 == ty1 {
                let t = tile(tx0, ty0);
                start[t + 1] += 1;
                single.push(t as u32);
                continue;
            }
            single.push(u32::MAX);
            for ty in ty0..=ty1 {
                for tx in tx0..=tx1 {
                    if tile_touches(tri, tx, ty) {
                        start[tile(tx, ty) + 1] += 1;
                    }
                }
            }
        }
        for t in 0..ntiles {
            start[t + 1] += start[t];
        }
        // Each tile's triangle indices (4 bytes an entry), then the copies in tile order,
        // appended: nothing is written twice.
        let entries = start[ntiles] as usize;
        let mut next = start[..ntiles].to_vec();
        let mut ids = vec![0u32; entries];
        for (i, (tri, &t)) in tris.iter().zip(&single).enumerate() {
            if t != u32::MAX {
                let n = &mut next[t as usize];
                ids[*n as usize] = i as u32;
                *n += 1;
                continue;
            }
            let (tx0, ty0, tx1, ty1) = tile_range(tri);
            for ty in ty0..=ty1 {
                for tx in tx0..=tx1 {
                    if tile_touches(tri, tx, ty) {
                        let n = &mut next[tile(tx, ty)];
                        ids[*n as usize] = i as u32;
                        *n += 1;
                    }
                }
            }
        }
        let out: Vec<TriSetup> = ids
            .iter()
            .enumerate()
            .map(|(j, &i)| TriSetup {
                planes: (j * stride) as u32,
                ..tris[i as usize]
            })
            .collect();
        let mut out_planes = Vec::with_capacity(entries * stride);
        for &i in &ids {
            let po = tris[i as usize].planes as usize;
            out_planes.extend_from_slice(&planes[po..po + stride]);
        }
        ChunkBins {
            draw,
            tris: out,
            planes: out_planes,
            start,
        }
    }

    /// Tile entries (a triangle counts once per tile it may touch).
    pub fn entries(&self) -> usize {
        self.tris.len()
    }

    /// Whether no triangle of the chunk may touch tile `t`.
    #[inline]
    pub fn tile_is_empty(&self, t: usize) -> bool {
        self.tris.is_empty() || self.start[t] == self.start[t + 1]
    }

    /// Tile `t`'s share.
    #[inline]
    pub fn tile(&self, t: usize) -> TileRefs<'_> {
        let r = if self.tris.is_empty() {
            0..0
        } else {
            self.start[t] as usize..self.start[t + 1] as usize
        };
        TileRefs {
            draw: self.draw,
            tris: &self.tris[r],
            planes: &self.planes,
        }
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

/// Width and height of the block a small triangle's box is covered in, with one edge
/// evaluation per lane: `i32` lanes, one row of the block at a time.
const LANES: usize = 8;

/// Whether every edge value [`cover_block`] computes fits an `i32`: `|E| ≤ |dx|·|Δy| +
/// |dy|·|Δx| + 1`, where `|dx|, |dy|` (edge deltas) are at most the triangle's extent `X`
/// and the sampled points lie inside its box, widened by the block's spare lanes and its one
/// row past the end: `|Δx|, |Δy| ≤ X + 8·256`. With `X ≤ 2¹⁴` (64 pixels) that is below 2³⁰.
/// (The deltas themselves always fit: snapped coordinates are below 2²⁴ in magnitude.)
#[inline]
fn fits_lanes(e: &[Edge32; 3]) -> bool {
    const MAX: u32 = 1 << 14;
    e.iter()
        .all(|e| e.dx.unsigned_abs() <= MAX && e.dy.unsigned_abs() <= MAX)
}

/// The covered pixels of the box `(x0, y0, n, h)` (`n, h ≤ LANES`, the edges
/// [`fits_lanes`]) in row-major order, as [`raster_tile`]'s scalar scan finds them: tile
/// offsets in `g.off`, their target values gathered into `g`, pixel-centre offsets from the
/// reference point in `s.dxp` / `s.dyp` (the same expressions). Each row's edge values are
/// `LANES` `i32` lanes; its coverage, a bit mask of their signs; covered pixels are taken
/// bit by bit. Returns their number.
#[inline(always)]
fn cover_block<S: Simd>(
    simd: S,
    e: &[Edge32; 3],
    (x0, y0, n, h): (i32, i32, u32, u32),
    (tile, tx, ty): (&TileMut<'_>, i32, i32),
    (ref_x, ref_y): (f32, f32),
    g: &mut Gather,
    s: &mut Scratch,
) -> usize {
    let ts = TILE_SIZE as i32;
    let iota = i32x8::from_slice(simd, &[0, 1, 2, 3, 4, 5, 6, 7]);
    let lane = |j: usize| {
        let c = e[j].at_pixel(x0, y0);
        let sx = e[j].step_x();
        simd.splat_i32x8(c) + iota * simd.splat_i32x8(sx)
    };
    let (mut l0, mut l1, mut l2) = (lane(0), lane(1), lane(2));
    let sy = |j: usize| simd.splat_i32x8(e[j].step_y());
    let (sy0, sy1, sy2) = (sy(0), sy(1), sy(2));
    let zero = simd.splat_i32x8(0);
    let live = (1u32 << n) - 1;
    let (depth, stencil, color) = full_tile(tile);
    // Exact, like the row walk's `bx + i` (see `run_span`): `x0 + i` is exact in f32.
    let iota_f = f32x8::from_slice(simd, &[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]);
    let col =
        ((simd.splat_f32x8(x0 as f32) + iota_f) + simd.splat_f32x8(0.5)) - simd.splat_f32x8(ref_x);
    let col: [f32; LANES] = col.into();
    let mut k = 0;
    let mut row = (y0 - ty) * ts + (x0 - tx);
    for y in y0..y0 + h as i32 {
        let outside = simd.simd_lt_i32x8(l0 | l1 | l2, zero);
        let mut m = !(simd.to_bitmask_mask32x8(outside) as u32) & live;
        if m != 0 {
            let dy = (y as f32 + 0.5) - ref_y;
            while m != 0 {
                let i = m.trailing_zeros() as i32;
                m &= m - 1;
                // In bounds: a pixel of the tile, at most `SPAN` of them (the masks only
                // spare the bounds checks).
                let o = (row + i) as usize & (TILE_PIXELS - 1);
                let j = k & (SPAN - 1);
                g.off[j] = o as u16;
                g.depth[j] = depth[o];
                g.stencil[j] = stencil[o];
                g.color[j] = color[o];
                s.dxp[j] = col[i as usize];
                s.dyp[j] = dy;
                k += 1;
            }
        }
        (l0, l1, l2) = (l0 + sy0, l1 + sy1, l2 + sy2);
        row += ts;
    }
    k
}

/// A tile's planes as whole-tile arrays (every tile holds `TILE_PIXELS`), so that offsets
/// masked to the tile index them without bounds checks.
#[inline(always)]
fn full_tile<'t>(
    tile: &'t TileMut<'_>,
) -> (
    &'t [f32; TILE_PIXELS],
    &'t [u8; TILE_PIXELS],
    &'t [[u8; 4]; TILE_PIXELS],
) {
    let whole = "a tile holds TILE_PIXELS pixels";
    (
        tile.depth[..TILE_PIXELS].try_into().expect(whole),
        tile.stencil[..TILE_PIXELS].try_into().expect(whole),
        tile.color[..TILE_PIXELS].try_into().expect(whole),
    )
}

/// [`full_tile`], mutable.
#[inline(always)]
fn full_tile_mut<'t>(
    tile: &'t mut TileMut<'_>,
) -> (
    &'t mut [f32; TILE_PIXELS],
    &'t mut [u8; TILE_PIXELS],
    &'t mut [[u8; 4]; TILE_PIXELS],
) {
    let whole = "a tile holds TILE_PIXELS pixels";
    (
        (&mut tile.depth[..TILE_PIXELS]).try_into().expect(whole),
        (&mut tile.stencil[..TILE_PIXELS]).try_into().expect(whole),
        (&mut tile.color[..TILE_PIXELS]).try_into().expect(whole),
    )
}

/// A block's pixels: tile offsets and the target values gathered from them.
struct Gather {
    off: [u16; SPAN],
    depth: [f32; SPAN],
    stencil: [u8; SPAN],
    color: [[u8; 4]; SPAN],
}

/// Shades the `k` covered pixels of one triangle whose tile offsets are in `g.off`, target
/// values gathered in `g` and pixel-centre offsets in `s.dxp` / `s.dyp`: runs the fragment
/// path on them as one batch and scatters the results back.
#[inline(always)]
fn run_block(
    tile: &mut TileMut<'_>,
    g: &mut Gather,
    k: usize,
    (path, tri, planes): (&FragmentPath, &TriSetup, &[f32]),
    scratch: &mut Scratch,
) -> u64 {
    // Pad to a multiple of 4 (the vector width) with copies of the last pixel, masked off:
    // measured best for 1–10 pixel triangles.
    let padded = k.next_multiple_of(4).min(SPAN);
    for i in k..padded {
        scratch.dxp[i] = scratch.dxp[k - 1];
        scratch.dyp[i] = scratch.dyp[k - 1];
    }
    let dst = Dst {
        depth: &mut g.depth[..padded],
        stencil: &mut g.stencil[..padded],
        color: &mut g.color[..padded],
    };
    let written = path.run_pixels(tri, planes, (k, padded), dst, scratch);
    let (depth, stencil, color) = full_tile_mut(tile);
    for (i, &o) in g.off[..k].iter().enumerate() {
        let o = usize::from(o) & (TILE_PIXELS - 1);
        depth[o] = g.depth[i];
        stencil[o] = g.stencil[i];
        color[o] = g.color[i];
    }
    written
}

/// Rasterises every triangle of `bins` (in order) that falls in the tile whose top-left
/// pixel is `(tx, ty)`. Returns the number of fragments written.
///
/// Three size classes, by the triangle's pixel box inside the tile: at most
/// [`LANES`]² (and an extent [`fits_lanes`]): edge functions in `i32` lanes over the block
/// ([`cover_block`]); at most [`BLOCK_PIXELS`]: a scalar scan of the box; larger: row spans.
/// The first two shade all covered pixels as one batch. Every class finds the same pixels
/// and the fragment path gives them the same values, so the class never changes a byte.
pub(crate) fn raster_tile<'a>(
    level: Level,
    tile: &mut TileMut<'_>,
    (tx, ty): (i32, i32),
    bins: impl Iterator<Item = TileRefs<'a>>,
    paths: &[(std::sync::Arc<FragmentPath>, usize)],
    scratch: &mut Scratch,
) -> u64 {
    crate::simd::dispatch!(level, simd => raster_tile_at(simd, tile, (tx, ty), bins, paths, scratch))
}

/// [`raster_tile`] at one instruction set.
#[inline(always)]
fn raster_tile_at<'a, S: Simd>(
    simd: S,
    tile: &mut TileMut<'_>,
    (tx, ty): (i32, i32),
    bins: impl Iterator<Item = TileRefs<'a>>,
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
        let (path, stride) = &paths[bin.draw as usize];
        for tri in bin.tris {
            let po = tri.planes as usize;
            let planes = &bin.planes[po..po + stride];
            let x0 = tri.bbox[0].max(tx);
            let x1 = tri.bbox[2].min(tx + ts);
            let y0 = tri.bbox[1].max(ty);
            let y1 = tri.bbox[3].min(ty + ts);
            if x0 >= x1 || y0 >= y1 {
                continue;
            }
            let (n, h) = (x1 - x0, y1 - y0);
            if n <= LANES as i32 && h <= LANES as i32 {
                let p = |i: usize| (tri.xs[i], tri.ys[i]);
                let e = [
                    Edge32::new(p(0), p(1)),
                    Edge32::new(p(1), p(2)),
                    Edge32::new(p(2), p(0)),
                ];
                if fits_lanes(&e) {
                    let at = (x0, y0, n as u32, h as u32);
                    let refp = (tri.ref_x, tri.ref_y);
                    let k = cover_block(simd, &e, at, (tile, tx, ty), refp, &mut g, scratch);
                    if k > 0 {
                        written += run_block(tile, &mut g, k, (path, tri, planes), scratch);
                    }
                    continue;
                }
            }
            let e = edges(tri);
            let n = i64::from(n);
            let mut c = [
                e[0].at_pixel(x0, y0),
                e[1].at_pixel(x0, y0),
                e[2].at_pixel(x0, y0),
            ];
            let sx = [e[0].step_x(), e[1].step_x(), e[2].step_x()];
            let sy = [e[0].step_y(), e[1].step_y(), e[2].step_y()];
            if n * i64::from(h) <= BLOCK_PIXELS {
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
                for (i, &o) in g.off[..k].iter().enumerate() {
                    let o = usize::from(o);
                    g.depth[i] = tile.depth[o];
                    g.stencil[i] = tile.stencil[o];
                    g.color[i] = tile.color[o];
                }
                if k > 0 {
                    written += run_block(tile, &mut g, k, (path, tri, planes), scratch);
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
