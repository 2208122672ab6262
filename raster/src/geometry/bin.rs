//! Binning triangles to screen tiles (the tile walk that reads the bins is
//! `fragment::tile`).
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

use crate::base::fixed::{Edge, Fixed};
use crate::geometry::setup::TriSetup;
use crate::target::{TILE_SHIFT, TILE_SIZE};

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
#[derive(Clone, Copy)]
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

/// The one tile (`ty · tiles_x + tx`) a triangle's pixel box lies in, `u32::MAX` when it
/// spans several (the set-up lanes compute the same, `geometry::lanes`).
#[inline]
pub(crate) fn single_tile(tri: &TriSetup, tiles_x: u32) -> u32 {
    let (tx0, ty0, tx1, ty1) = tile_range(tri);
    if tx0 == tx1 && ty0 == ty1 {
        (ty0 as u32).wrapping_mul(tiles_x).wrapping_add(tx0 as u32)
    } else {
        u32::MAX
    }
}

impl ChunkBins {
    /// Bins the triangles `tris` (of draw `draw`, `stride` plane floats each in `planes`)
    /// to tiles. `single`: each triangle's [`single_tile`] when its set-up computed them
    /// (else empty, and they are computed here).
    pub fn new(
        tris: &[TriSetup],
        planes: &[f32],
        single: &[u32],
        (draw, stride): (u32, usize),
        (tiles_x, tiles_y): (u32, u32),
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
        let computed: Vec<u32>;
        let single = if single.len() == tris.len() {
            single
        } else {
            computed = tris.iter().map(|t| single_tile(t, tiles_x)).collect();
            &computed
        };
        let ntiles = (tiles_x * tiles_y) as usize;
        let tile = |tx: i32, ty: i32| (ty as u32 * tiles_x + tx as u32) as usize;
        // Counts (in `start[t + 1]`), then prefix sums, then one copy per entry in triangle
        // order.
        let mut start = vec![0u32; ntiles + 1];
        for (tri, &t) in tris.iter().zip(single) {
            if t != u32::MAX {
                start[t as usize + 1] += 1;
                continue;
            }
            let (tx0, ty0, tx1, ty1) = tile_range(tri);
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
        for (i, (tri, &t)) in tris.iter().zip(single).enumerate() {
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
            .map(|(j, &i)| {
                let mut t = tris[i as usize];
                t.planes = (j * stride) as u32;
                t
            })
            .collect();
        let out_planes = copy_planes(planes, tris, &ids, stride);
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

/// The planes of the entries `ids` (triangles of `tris`, `stride` floats each in `planes`),
/// one after another. Strides of up to 32 floats (the draws with up to eight varyings) copy
/// whole blocks of eight floats, a constant count per entry rather than a `memcpy` of a
/// run-time length: an entry's last block may carry floats past its planes into the next
/// entry's place, dropped before that entry's copy (entries are copied in order). The same
/// floats either way.
fn copy_planes(planes: &[f32], tris: &[TriSetup], ids: &[u32], stride: usize) -> Vec<f32> {
    match stride.div_ceil(8) {
        1 => copy_blocks::<8>(planes, tris, ids, stride),
        2 => copy_blocks::<16>(planes, tris, ids, stride),
        3 => copy_blocks::<24>(planes, tris, ids, stride),
        4 => copy_blocks::<32>(planes, tris, ids, stride),
        _ => {
            let mut out = Vec::with_capacity(ids.len() * stride);
            for &i in ids {
                let po = tris[i as usize].planes as usize;
                out.extend_from_slice(&planes[po..po + stride]);
            }
            out
        }
    }
}

/// [`copy_planes`] in blocks of `N ≥ stride` floats (a record whose block would read past
/// the end of `planes` is copied at its length).
#[inline(always)]
fn copy_blocks<const N: usize>(
    planes: &[f32],
    tris: &[TriSetup],
    ids: &[u32],
    stride: usize,
) -> Vec<f32> {
    let mut out = Vec::with_capacity(ids.len() * stride + N);
    for (j, &i) in ids.iter().enumerate() {
        let po = tris[i as usize].planes as usize;
        // Back to the end of the entries copied so far (a block's spare floats dropped).
        out.truncate(j * stride);
        match planes.get(po..po + N) {
            Some(from) => {
                let from: &[f32; N] = from.try_into().expect("N floats");
                out.extend_from_slice(from);
            }
            None => out.extend_from_slice(&planes[po..po + stride]),
        }
    }
    out.truncate(ids.len() * stride);
    out
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
