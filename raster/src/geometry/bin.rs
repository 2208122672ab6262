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
//! A chunk's bins are lists of *blocks* (llvmpipe's per-tile command blocks): each tile owns
//! a list of blocks, its first of [`FIRST_BLOCK`] entries, each next one twice its last up to
//! [`MAX_BLOCK`], each allocated once at its size and filled by appending. The set-up
//! lanes write each batch's planes to a small stage that stays in the first-level cache and
//! each triangle's record straight into its tiles' blocks ([`ChunkBins::take`]); the
//! one-at-a-time set-up stages a few triangles and spills them the same way. No counting
//! pass and no second copy of the whole chunk. (Issue 52, 1M small triangles: building the
//! records into a chunk-wide sink and then a counting sort into tile order cost 234
//! instructions per triangle; building them into the blocks costs 209.)

use crate::base::fixed::{Edge, Fixed};
use crate::geometry::setup::TriSetup;
use crate::target::{TILE_SHIFT, TILE_SIZE};

/// Fewest slots of a tile's first block in a chunk (it has the chunk's primitives per tile,
/// rounded up to a power of two, within this and [`MAX_BLOCK`]).
pub(crate) const FIRST_BLOCK: usize = 8;
/// Largest block: a tile's blocks double up to this many slots. A chunk's unfilled slots are
/// then at most its entries plus its first block's slots per tile it touches.
pub(crate) const MAX_BLOCK: usize = 256;
/// No block.
const NONE: u32 = u32::MAX;

/// A run of one tile's entries: allocated at its capacity, filled by appending (never
/// grown, never zero-filled).
struct Block {
    tris: Vec<TriSetup>,
    /// Entry `j`'s planes at `planes[j·stride..]` (with room for a block copy's spare
    /// floats past the last entry's).
    planes: Vec<f32>,
    /// The tile's next block (`NONE` for its last).
    next: u32,
}

/// The binned triangles of one chunk (all of one draw): per tile a list of blocks, each
/// tile's entries in submission order.
pub(crate) struct ChunkBins {
    /// Index of the chunk's draw in the context's queued paths.
    draw: u32,
    stride: usize,
    tiles_x: u32,
    /// Slots of a tile's first block.
    first: usize,
    blocks: Vec<Block>,
    /// Per tile, its first and last block (`NONE` when it has none).
    ends: Vec<[u32; 2]>,
    /// Tile entries (a triangle counts once per tile it may touch), and slots allocated.
    entries: usize,
    slots: usize,
}

/// One block of one tile's share of a chunk.
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
    /// Empty bins for a chunk of `prims` primitives of draw `draw` (`stride` plane floats a
    /// triangle) on a target of `tiles_x × tiles_y` tiles.
    pub fn new(
        (draw, stride): (u32, usize),
        (tiles_x, tiles_y): (u32, u32),
        prims: usize,
    ) -> ChunkBins {
        let ntiles = (tiles_x * tiles_y) as usize;
        ChunkBins {
            draw,
            stride,
            tiles_x,
            first: (prims / ntiles.max(1))
                .next_power_of_two()
                .clamp(FIRST_BLOCK, MAX_BLOCK),
            blocks: Vec::new(),
            ends: vec![[NONE; 2]; ntiles],
            entries: 0,
            slots: 0,
        }
    }

    /// Tiles across the target.
    pub fn tiles_x(&self) -> u32 {
        self.tiles_x
    }

    /// Bins the set-up triangles `tris`, in order: each with its [`single_tile`] (computed
    /// by its set-up), its planes at its offset in `planes`. Every entry's planes must be
    /// followed by 32 floats of `planes` (any values): they copy as whole blocks.
    pub fn take(&mut self, tris: impl Iterator<Item = (TriSetup, u32)>, planes: &[f32]) {
        match self.stride.div_ceil(8) {
            1 => self.take_blocks::<8>(tris, planes),
            2 => self.take_blocks::<16>(tris, planes),
            3 => self.take_blocks::<24>(tris, planes),
            4 => self.take_blocks::<32>(tris, planes),
            _ => self.take_blocks::<0>(tris, planes),
        }
    }

    /// [`ChunkBins::take`], each entry's planes appended as a block of `N ≥ stride` floats
    /// where the source has them (the block's spare floats dropped by the next append:
    /// every block has room for them), else at their length (`N = 0`: always).
    #[inline(always)]
    fn take_blocks<const N: usize>(
        &mut self,
        tris: impl Iterator<Item = (TriSetup, u32)>,
        planes: &[f32],
    ) {
        let tiles_x = self.tiles_x;
        for (tri, t) in tris {
            let from = &planes[tri.planes as usize..];
            if t != u32::MAX {
                self.push::<N>(&tri, from, t as usize);
                continue;
            }
            let (tx0, ty0, tx1, ty1) = tile_range(&tri);
            for ty in ty0..=ty1 {
                for tx in tx0..=tx1 {
                    if tile_touches(&tri, tx, ty) {
                        let t = ty as u32 * tiles_x + tx as u32;
                        self.push::<N>(&tri, from, t as usize);
                    }
                }
            }
        }
    }

    /// Appends `tri` (its planes the first `stride` floats of `from`) to tile `t`'s bin.
    #[inline(always)]
    fn push<const N: usize>(&mut self, tri: &TriSetup, from: &[f32], t: usize) {
        let stride = self.stride;
        let Some(&[_, last]) = self.ends.get(t) else {
            return;
        };
        let block = match self.blocks.get_mut(last as usize) {
            Some(b) if b.tris.len() < b.tris.capacity() => b,
            _ => self.grow(t),
        };
        let at = block.tris.len() * stride;
        block.tris.push(*tri);
        if let Some(rec) = block.tris.last_mut() {
            rec.planes = at as u32;
        }
        block.planes.truncate(at);
        match from.first_chunk::<N>() {
            Some(from) if N > 0 => block.planes.extend_from_slice(from),
            _ => block.planes.extend_from_slice(&from[..stride]),
        }
        self.entries += 1;
    }

    /// A new last block for tile `t`: `first` slots (the chunk's expected entries a tile,
    /// [`FIRST_BLOCK`] to [`MAX_BLOCK`]), or twice its last block's up to [`MAX_BLOCK`].
    #[cold]
    #[inline(never)]
    fn grow(&mut self, t: usize) -> &mut Block {
        let [first, last] = self.ends[t];
        let cap = match self.blocks.get(last as usize) {
            Some(b) => (b.tris.capacity() * 2).min(MAX_BLOCK),
            None => self.first,
        };
        let b = self.blocks.len() as u32;
        self.blocks.push(Block {
            tris: Vec::with_capacity(cap),
            planes: Vec::with_capacity(cap * self.stride + 32),
            next: NONE,
        });
        self.slots += cap;
        if let Some(prev) = self.blocks.get_mut(last as usize) {
            prev.next = b;
        }
        self.ends[t] = [if first == NONE { b } else { first }, b];
        &mut self.blocks[b as usize]
    }

    /// Tile entries (a triangle counts once per tile it may touch).
    pub fn entries(&self) -> usize {
        self.entries
    }

    /// Slots allocated, filled or not: what the bins hold in memory.
    pub fn slots(&self) -> usize {
        self.slots
    }

    /// Whether no triangle of the chunk may touch tile `t`.
    #[inline]
    pub fn tile_is_empty(&self, t: usize) -> bool {
        self.ends[t][0] == NONE
    }

    /// Tile `t`'s share, block by block.
    #[inline]
    pub fn tile(&self, t: usize) -> impl Iterator<Item = TileRefs<'_>> + '_ {
        let mut b = self.ends[t][0];
        std::iter::from_fn(move || {
            let block = self.blocks.get(b as usize)?;
            b = block.next;
            Some(TileRefs {
                draw: self.draw,
                tris: &block.tris,
                planes: &block.planes,
            })
        })
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
