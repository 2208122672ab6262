//! The tile walk: rasterising one tile's bins, triangle by triangle in submission order,
//! in three size classes (see [`raster_tile`]). The bins come from `geometry::bin`.

use fearless_simd::{f32x8, i32x8, Level, Simd, SimdBase};

use crate::base::fixed::{half_line_span, Edge32};
use crate::base::simd::is_portable;
// The width and height of the block a small triangle's box is covered in: one edge
// evaluation per lane, `i32` lanes, one row of the block at a time.
use crate::base::vec_lanes::LANES;
use crate::fragment::lanes::{Block, RowSpan};
use crate::fragment::path::{Dst, FragmentPath};
use crate::fragment::scratch::{Scratch, SPAN};
use crate::geometry::bin::{edges, TileRefs};
use crate::geometry::setup::TriSetup;
use crate::target::{TileMut, TILE_PIXELS, TILE_SIZE};

/// Bounding boxes up to this wide find their row spans by scanning.
const NARROW: i64 = 16;

/// Triangles whose box (clipped to the tile) holds at most this many pixels are shaded as one
/// block of all their covered pixels instead of row by row: small triangles cover two or
/// three pixels per row, and the per-batch cost of the fragment stage dominated.
const BLOCK_PIXELS: i64 = SPAN as i64;

/// The covered pixels of the box `(x0, y0, n, h)` (`n, h ≤ LANES`; or, `WIDE`, `n ≤ 2·LANES`
/// and `n·h ≤ SPAN`; the edges `setup::lane_edges`) in row-major order, as [`raster_tile`]'s
/// scalar scan finds them: tile offsets in `g.off`, their target values gathered into `g`,
/// pixel-centre offsets from the reference point in `s.dxp` / `s.dyp` (the same
/// expressions). Each row's edge values are `LANES` `i32` lanes (two sets when `WIDE`); its
/// coverage, a bit mask of their signs; covered pixels are taken bit by bit. Returns their
/// number.
#[inline(always)]
fn cover_block<S: Simd, const WIDE: bool>(
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
    let lane = |j: usize, from: i32| {
        let c = e[j].at_pixel(x0 + from, y0);
        let sx = e[j].step_x();
        simd.splat_i32x8(c) + iota * simd.splat_i32x8(sx)
    };
    let (mut l0, mut l1, mut l2) = (lane(0, 0), lane(1, 0), lane(2, 0));
    // The second set (`WIDE`): columns `LANES..2·LANES` of the box.
    let l = LANES as i32;
    let (mut w0, mut w1, mut w2) = if WIDE {
        (lane(0, l), lane(1, l), lane(2, l))
    } else {
        (l0, l1, l2)
    };
    let sy = |j: usize| simd.splat_i32x8(e[j].step_y());
    let (sy0, sy1, sy2) = (sy(0), sy(1), sy(2));
    let zero = simd.splat_i32x8(0);
    let live = (1u32 << n) - 1;
    let (depth, stencil, color) = full_tile(tile);
    // Exact, like the row walk's `bx + i` (see `RowSpan::offsets`): `x0 + i` is exact in f32.
    let iota_f = f32x8::from_slice(simd, &[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]);
    let column = |from: f32| {
        let c = ((simd.splat_f32x8(x0 as f32) + (iota_f + simd.splat_f32x8(from)))
            + simd.splat_f32x8(0.5))
            - simd.splat_f32x8(ref_x);
        <[f32; LANES]>::from(c)
    };
    let mut col = [0.0f32; 2 * LANES];
    col[..LANES].copy_from_slice(&column(0.0));
    if WIDE {
        col[LANES..].copy_from_slice(&column(LANES as f32));
    }
    let mut k = 0;
    let mut row = (y0 - ty) * ts + (x0 - tx);
    for y in y0..y0 + h as i32 {
        let outside = simd.simd_lt_i32x8(l0 | l1 | l2, zero);
        let mut m = simd.to_bitmask_mask32x8(outside) as u32;
        if WIDE {
            let outside = simd.simd_lt_i32x8(w0 | w1 | w2, zero);
            m |= (simd.to_bitmask_mask32x8(outside) as u32) << LANES;
            (w0, w1, w2) = (w0 + sy0, w1 + sy1, w2 + sy2);
        }
        let mut m = !m & live;
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
                s.dxp[j] = col[i as usize & (2 * LANES - 1)];
                s.dyp[j] = dy;
                k += 1;
            }
        }
        (l0, l1, l2) = (l0 + sy0, l1 + sy1, l2 + sy2);
        row += ts;
    }
    k
}

/// The coverage of the box `(x0, y0, n, h)` (`n, h ≤ LANES`, the edges `setup::lane_edges`) as
/// one [`Block`] of the tile for the direct path (`FragmentPath::run_block`): the block
/// starts at the box's top-left pixel, moved left as far as it takes to end inside the tile
/// row (so each of its rows is `LANES` pixels of one tile row), and its rows' coverage bits
/// are the signs of `LANES` `i32` edge lanes, as in [`cover_block`], for the box's columns
/// only.
#[inline(always)]
fn cover_rows<S: Simd>(
    simd: S,
    e: &[Edge32; 3],
    (x0, y0, n, h): (i32, i32, u32, u32),
    (tx, ty): (i32, i32),
    (ref_x, ref_y): (f32, f32),
) -> Block {
    let ts = TILE_SIZE as i32;
    let x = x0.min(tx + ts - LANES as i32);
    let iota = i32x8::from_slice(simd, &[0, 1, 2, 3, 4, 5, 6, 7]);
    let lane = |j: usize| {
        let c = e[j].at_pixel(x, y0);
        simd.splat_i32x8(c) + iota * simd.splat_i32x8(e[j].step_x())
    };
    let (mut l0, mut l1, mut l2) = (lane(0), lane(1), lane(2));
    let sy = |j: usize| simd.splat_i32x8(e[j].step_y());
    let (sy0, sy1, sy2) = (sy(0), sy(1), sy(2));
    let zero = simd.splat_i32x8(0);
    let live = ((1u64 << n) - 1) << (x0 - x);
    let mut cover = 0u64;
    for r in 0..h {
        let outside = simd.simd_lt_i32x8(l0 | l1 | l2, zero);
        let m = !simd.to_bitmask_mask32x8(outside) & live;
        cover |= m << (8 * r);
        (l0, l1, l2) = (l0 + sy0, l1 + sy1, l2 + sy2);
    }
    Block {
        cover,
        x,
        y: y0,
        off: ((y0 - ty) * ts + (x - tx)) as usize,
        stride: TILE_SIZE as usize,
        ref_x,
        ref_y,
    }
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
    if written > 0 {
        path.write_aux(scratch, k, tile, |i| usize::from(g.off[i]));
    }
    written
}

/// Rasterises every triangle of `bins` (in order) that falls in the tile whose top-left
/// pixel is `(tx, ty)`. Returns the number of fragments written.
///
/// Four size classes, by the triangle's pixel box inside the tile: at most [`LANES`]² (and
/// an extent `setup::lane_edges` accepts): edge functions in `i32` lanes over the block
/// ([`cover_block`]); at most `2·LANES` square, on the direct path: up to four such blocks
/// ([`quad_blocks`], vertex colours only); at most [`BLOCK_PIXELS`]: the box scanned (in
/// lanes when at most `2·LANES` wide); larger: row spans (found in lanes when that narrow).
/// All but the last shade all covered pixels as one batch. Every class finds the same pixels
/// and the fragment path gives them the same values, so the class never changes a byte.
pub(crate) fn raster_tile<'a>(
    level: Level,
    tile: &mut TileMut<'_>,
    (tx, ty): (i32, i32),
    bins: impl Iterator<Item = TileRefs<'a>>,
    paths: &[(std::sync::Arc<FragmentPath>, usize)],
    scratch: &mut Scratch,
) -> u64 {
    crate::base::simd::dispatch!(level, simd => raster_tile_at(simd, tile, (tx, ty), bins, paths, scratch))
}

/// [`raster_tile`] at one instruction set: each triangle of each bin, clipped to the tile,
/// goes to the function of its size class.
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
    let mut g = Gather {
        off: [0; SPAN],
        depth: [0.0; SPAN],
        stencil: [0; SPAN],
        color: [[0; 4]; SPAN],
    };
    let mut at = TileAt { tile, tx, ty };
    for bin in bins {
        let (path, stride) = &paths[bin.draw as usize];
        let bin = (bin, path.as_ref(), *stride);
        written += match path.vertex_color_blocks().filter(|_| !is_portable(simd)) {
            Some(1) => vertex_color_bin::<S, 1>(simd, bin, &mut at, &mut g, scratch),
            Some(3) => vertex_color_bin::<S, 3>(simd, bin, &mut at, &mut g, scratch),
            Some(_) => vertex_color_bin::<S, 7>(simd, bin, &mut at, &mut g, scratch),
            None => {
                let mut w = 0;
                for tri in bin.0.tris {
                    if let Some(t) = in_tile(bin, tri, &at) {
                        w += triangle(simd, &t, &mut at, &mut g, scratch);
                    }
                }
                w
            }
        };
    }
    written
}

/// A triangle of a bin clipped to the tile: `None` when its box misses the tile.
#[inline(always)]
fn in_tile<'a>(
    (bin, path, stride): (TileRefs<'a>, &'a FragmentPath, usize),
    tri: &'a TriSetup,
    at: &TileAt<'_, '_>,
) -> Option<TriInTile<'a>> {
    let ts = TILE_SIZE as i32;
    let po = tri.planes as usize;
    let x0 = tri.bbox[0].max(at.tx);
    let x1 = tri.bbox[2].min(at.tx + ts);
    let y0 = tri.bbox[1].max(at.ty);
    let y1 = tri.bbox[3].min(at.ty + ts);
    if x0 >= x1 || y0 >= y1 {
        return None;
    }
    Some(TriInTile {
        tri,
        planes: &bin.planes[po..po + stride],
        path,
        bbox: [x0, y0, x1, y1],
    })
}

/// The triangles of a bin whose draw takes the vertex-colour kernel with depth function
/// `F` for its blocks ([`FragmentPath::vertex_color_blocks`], not the portable level): the
/// smallest class's triangles go straight to that kernel (what [`lanes_block`] does, with
/// the draw's choices made once per bin rather than per triangle), the others to
/// [`triangle`].
#[inline(always)]
fn vertex_color_bin<S: Simd, const F: u8>(
    simd: S,
    bin: (TileRefs<'_>, &FragmentPath, usize),
    at: &mut TileAt<'_, '_>,
    g: &mut Gather,
    scratch: &mut Scratch,
) -> u64 {
    let mut written = 0;
    let l = LANES as i32;
    for tri in bin.0.tris {
        let Some(t) = in_tile(bin, tri, at) else {
            continue;
        };
        let [x0, y0, x1, y1] = t.bbox;
        if x1 - x0 <= l && y1 - y0 <= l && tri.lanes && tri.flat_count == 0 {
            let bx = (x0, y0, (x1 - x0) as u32, (y1 - y0) as u32);
            let b = cover_rows(simd, &tri.edges, bx, (at.tx, at.ty), (tri.ref_x, tri.ref_y));
            if b.cover != 0 {
                written += t
                    .path
                    .vertex_color_blocks_at::<S, F>(simd, t.planes, &b, at.tile);
            }
        } else {
            written += triangle(simd, &t, at, g, scratch);
        }
    }
    written
}

/// One triangle's share of the tile, by its size class (see [`raster_tile`]).
#[inline(always)]
fn triangle<S: Simd>(
    simd: S,
    t: &TriInTile<'_>,
    at: &mut TileAt<'_, '_>,
    g: &mut Gather,
    scratch: &mut Scratch,
) -> u64 {
    let tri = t.tri;
    let [x0, y0, x1, y1] = t.bbox;
    let (n, h) = (x1 - x0, y1 - y0);
    if n <= LANES as i32 && h <= LANES as i32 {
        if let Some(w) = lanes_block(simd, t, at, g, scratch) {
            return w;
        }
    } else if n <= 2 * LANES as i32 && h <= 2 * LANES as i32 {
        if let Some(w) = quad_blocks(simd, t, at) {
            return w;
        }
    }
    if i64::from(n) * i64::from(h) <= BLOCK_PIXELS {
        if n <= 2 * LANES as i32 && tri.lanes {
            scanned_lanes(simd, t, at, g, scratch)
        } else {
            scanned_block(t, at, g, scratch)
        }
    } else if n <= 2 * LANES as i32 && tri.lanes && !is_portable(simd) {
        narrow_spans(simd, t, at, scratch)
    } else {
        row_spans(t, at, scratch)
    }
}

/// One triangle's share of a tile: its set-up, planes and fragment path, and its pixel box
/// clipped to the tile, `[x0, y0, x1, y1)`.
struct TriInTile<'a> {
    tri: &'a TriSetup,
    planes: &'a [f32],
    path: &'a FragmentPath,
    bbox: [i32; 4],
}

/// The tile being walked, and its top-left pixel.
struct TileAt<'t, 'a> {
    tile: &'t mut TileMut<'a>,
    tx: i32,
    ty: i32,
}

/// The smallest class: a box of at most [`LANES`]² pixels of a triangle set-up gave `i32`
/// edges (`setup::lane_edges`), covered in `i32` lanes ([`cover_block`]) and shaded as one
/// batch. `None` when it has none (the caller takes the next class).
#[inline(always)]
fn lanes_block<S: Simd>(
    simd: S,
    t: &TriInTile<'_>,
    at: &mut TileAt<'_, '_>,
    g: &mut Gather,
    scratch: &mut Scratch,
) -> Option<u64> {
    let tri = t.tri;
    let [x0, y0, x1, y1] = t.bbox;
    if !tri.lanes {
        return None;
    }
    let e = &tri.edges;
    let bx = (x0, y0, (x1 - x0) as u32, (y1 - y0) as u32);
    let refp = (tri.ref_x, tri.ref_y);
    if !is_portable(simd) && t.path.writes_blocks(tri) {
        let b = cover_rows(simd, e, bx, (at.tx, at.ty), refp);
        return Some(if b.cover != 0 {
            t.path
                .run_blocks(simd, t.planes, std::slice::from_ref(&b), at.tile)
        } else {
            0
        });
    }
    let k = cover_block::<S, false>(simd, e, bx, (&*at.tile, at.tx, at.ty), refp, g, scratch);
    Some(if k > 0 {
        run_block(&mut *at.tile, g, k, (t.path, tri, t.planes), scratch)
    } else {
        0
    })
}

/// The 16×16 class (llvmpipe's middle class, a 16×16 block in four stamps): a box of at
/// most `2·LANES` × `2·LANES` pixels of a triangle with `i32` edges, on the direct path of
/// the vertex-colour kernel only (`FragmentPath::writes_quad_blocks`, not the portable
/// level): the box is split into up to four blocks of at most [`LANES`]², each covered in
/// lanes ([`cover_rows`]), and the fragment kernel, set up once, runs on the blocks with a
/// pixel in place. `None` when the
/// triangle cannot take it (the caller takes the next class).
#[inline(always)]
fn quad_blocks<S: Simd>(simd: S, t: &TriInTile<'_>, at: &mut TileAt<'_, '_>) -> Option<u64> {
    let tri = t.tri;
    if !tri.lanes || is_portable(simd) || !t.path.writes_quad_blocks(tri) {
        return None;
    }
    let [x0, y0, x1, y1] = t.bbox;
    let refp = (tri.ref_x, tri.ref_y);
    let l = LANES as i32;
    let empty = Block {
        cover: 0,
        x: 0,
        y: 0,
        off: 0,
        stride: 0,
        ref_x: 0.0,
        ref_y: 0.0,
    };
    let mut blocks = [empty, empty, empty, empty];
    let mut m = 0;
    for by in [y0, y0 + l] {
        for bx in [x0, x0 + l] {
            if by < y1 && bx < x1 {
                let n = (x1 - bx).min(l) as u32;
                let h = (y1 - by).min(l) as u32;
                let b = cover_rows(simd, &tri.edges, (bx, by, n, h), (at.tx, at.ty), refp);
                if b.cover != 0 {
                    blocks[m & 3] = b;
                    m += 1;
                }
            }
        }
    }
    Some(if m > 0 {
        t.path
            .run_blocks(simd, t.planes, &blocks[..m.min(4)], at.tile)
    } else {
        0
    })
}

/// The gathered class for a box at most `2·LANES` wide of a triangle with `i32` edges: its
/// covered pixels found in lanes ([`cover_block`], two sets of lanes a row) rather than by
/// [`scanned_block`]'s scalar scan, in the same order, and shaded as one batch.
#[inline(always)]
fn scanned_lanes<S: Simd>(
    simd: S,
    t: &TriInTile<'_>,
    at: &mut TileAt<'_, '_>,
    g: &mut Gather,
    scratch: &mut Scratch,
) -> u64 {
    let tri = t.tri;
    let [x0, y0, x1, y1] = t.bbox;
    let bx = (x0, y0, (x1 - x0) as u32, (y1 - y0) as u32);
    let refp = (tri.ref_x, tri.ref_y);
    let tile = (&*at.tile, at.tx, at.ty);
    let k = cover_block::<S, true>(simd, &tri.edges, bx, tile, refp, g, scratch);
    if k == 0 {
        return 0;
    }
    run_block(&mut *at.tile, g, k, (t.path, tri, t.planes), scratch)
}

/// The edge values at the box's top-left pixel and their steps in x and y.
#[inline(always)]
fn edge_walk(t: &TriInTile<'_>) -> ([i64; 3], [i64; 3], [i64; 3]) {
    let e = edges(t.tri);
    let [x0, y0, ..] = t.bbox;
    (
        [
            e[0].at_pixel(x0, y0),
            e[1].at_pixel(x0, y0),
            e[2].at_pixel(x0, y0),
        ],
        [e[0].step_x(), e[1].step_x(), e[2].step_x()],
        [e[0].step_y(), e[1].step_y(), e[2].step_y()],
    )
}

/// The middle class: a box of at most [`BLOCK_PIXELS`], every covered pixel found by a
/// scalar scan, row by row (the same edge test as [`row_spans`]), and shaded as one batch.
#[inline(always)]
fn scanned_block(
    t: &TriInTile<'_>,
    at: &mut TileAt<'_, '_>,
    g: &mut Gather,
    scratch: &mut Scratch,
) -> u64 {
    let (tri, ts) = (t.tri, TILE_SIZE as i32);
    let [x0, y0, x1, y1] = t.bbox;
    let n = i64::from(x1 - x0);
    let (mut c, sx, sy) = edge_walk(t);
    let mut k = 0;
    for y in y0..y1 {
        let mut e = c;
        for i in 0..n {
            if (e[0] | e[1] | e[2]) >= 0 {
                let x = x0 + i as i32;
                g.off[k] = ((y - at.ty) * ts + (x - at.tx)) as u16;
                // Exact, like the row walk's `bx + i` (see `RowSpan::offsets`).
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
        g.depth[i] = at.tile.depth[o];
        g.stencil[i] = at.tile.stencil[o];
        g.color[i] = at.tile.color[o];
    }
    if k == 0 {
        return 0;
    }
    run_block(&mut *at.tile, g, k, (t.path, tri, t.planes), scratch)
}

/// The large class for a box at most `2·LANES` wide of a triangle with `i32` edges (not at
/// the portable level): [`row_spans`]' spans, each row's found in lanes instead of by its
/// scalar scan (three adds and a sign test per pixel): the edge values of the row's
/// `2·LANES` pixels from the box's left edge, whose signs give the row's coverage as a bit
/// mask, the span from its lowest to its highest set bit. The same spans (a triangle's
/// covered pixels in a row are contiguous), so the same bytes. The edges stay in `i32` as in
/// `setup::lane_edges`, the lanes reaching at most `2·LANES − 1` pixels past the box (with
/// an extent of 2¹⁴, |E| stays below 2³⁰).
#[inline(always)]
fn narrow_spans<S: Simd>(
    simd: S,
    t: &TriInTile<'_>,
    at: &mut TileAt<'_, '_>,
    scratch: &mut Scratch,
) -> u64 {
    let (tri, ts) = (t.tri, TILE_SIZE as i32);
    let [x0, y0, x1, y1] = t.bbox;
    let e = &tri.edges;
    let iota = i32x8::from_slice(simd, &[0, 1, 2, 3, 4, 5, 6, 7]);
    let lanes = |j: usize, from: i32| {
        let c = e[j].at_pixel(x0 + from, y0);
        simd.splat_i32x8(c) + iota * simd.splat_i32x8(e[j].step_x())
    };
    let l = LANES as i32;
    let (mut a0, mut a1, mut a2) = (lanes(0, 0), lanes(1, 0), lanes(2, 0));
    let (mut b0, mut b1, mut b2) = (lanes(0, l), lanes(1, l), lanes(2, l));
    let sy = |j: usize| simd.splat_i32x8(e[j].step_y());
    let (sy0, sy1, sy2) = (sy(0), sy(1), sy(2));
    let zero = simd.splat_i32x8(0);
    let live = (1u32 << (x1 - x0)) - 1;
    let mut rows = [RowSpan::default(); TILE_SIZE as usize];
    let mut k = 0;
    for y in y0..y1 {
        let lo_out = simd.to_bitmask_mask32x8(simd.simd_lt_i32x8(a0 | a1 | a2, zero)) as u32;
        let hi_out = simd.to_bitmask_mask32x8(simd.simd_lt_i32x8(b0 | b1 | b2, zero)) as u32;
        let m = !(lo_out | (hi_out << LANES)) & live;
        if m != 0 {
            let lo = m.trailing_zeros() as i32;
            let hi = 32 - m.leading_zeros() as i32;
            let x = x0 + lo;
            // At most `TILE_SIZE` rows: the box is clipped to the tile.
            rows[k & (TILE_SIZE as usize - 1)] = RowSpan {
                x,
                y,
                len: (hi - lo) as u32,
                off: ((y - at.ty) * ts + (x - at.tx)) as u32,
            };
            k += 1;
        }
        (a0, a1, a2) = (a0 + sy0, a1 + sy1, a2 + sy2);
        (b0, b1, b2) = (b0 + sy0, b1 + sy1, b2 + sy2);
    }
    let rows = &rows[..k.min(TILE_SIZE as usize)];
    t.path
        .run_rows((tri, t.planes), rows, &mut *at.tile, scratch)
}

/// The large class: row by row, each row's covered pixels (contiguous) are one span, and
/// the fragment path shades all the spans in one call (`FragmentPath::run_rows`).
/// Narrow boxes scan (three adds and a sign test per pixel); wide ones solve each edge's
/// half-line exactly. Not inlined: scalar code, entered once per large triangle and tile,
/// and kept apart from the small classes' lanes code (inlined, it cost the gouraud
/// workload of `examples/kernels` 0.06 instructions per fragment once the direct block
/// path joined the tile walk).
#[inline(never)]
fn row_spans(t: &TriInTile<'_>, at: &mut TileAt<'_, '_>, scratch: &mut Scratch) -> u64 {
    let ts = TILE_SIZE as i32;
    let [x0, y0, x1, y1] = t.bbox;
    let n = i64::from(x1 - x0);
    let (mut c, sx, sy) = edge_walk(t);
    // The box's last column and row, from its first: every edge function is affine, so
    // it is non-negative over the whole box when it is at the four corners.
    let (dx, dy) = (n - 1, i64::from(y1 - y0 - 1));
    let full = (0..3).all(|j| {
        let (a, b) = (c[j], c[j] + sy[j] * dy);
        (a | b | (a + sx[j] * dx) | (b + sx[j] * dx)) >= 0
    });
    let mut rows = [RowSpan::default(); TILE_SIZE as usize];
    let mut k = 0;
    for y in y0..y1 {
        let (lo, hi) = if full {
            (0, n)
        } else if n <= NARROW {
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
            // At most `TILE_SIZE` rows: the box is clipped to the tile.
            rows[k & (TILE_SIZE as usize - 1)] = RowSpan {
                x,
                y,
                len: (hi - lo) as u32,
                off: ((y - at.ty) * ts + (x - at.tx)) as u32,
            };
            k += 1;
        }
    }
    let rows = &rows[..k.min(TILE_SIZE as usize)];
    t.path
        .run_rows((t.tri, t.planes), rows, &mut *at.tile, scratch)
}
