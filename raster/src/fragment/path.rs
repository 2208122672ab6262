//! The fragment stage: interpolation, shading, alpha test, stencil, depth, blending and
//! colour write, over batches of at most one tile row's worth of pixels: a horizontal span
//! (the row spans of [`FragmentPath::run_rows`]) or, for small triangles, every covered pixel of the
//! triangle at once ([`FragmentPath::run_pixels`], target values gathered by the caller).
//! Each pixel's values come from the same expressions either way, so the two give the same
//! bits.
//!
//! A [`FragmentPath`] is built **once per draw** from the pipeline state: the depth and alpha
//! compare functions become indices of monomorphised loops (one `match` per batch picks the
//! loop), the stencil test and its three ops become 256-entry lookup tables (with the write
//! mask folded in), and the colour mask becomes a bit mask. The per-pixel loops therefore
//! never branch on state; the few choices left (early depth test or not, blending or not)
//! are taken once per batch. Each batch runs inside one `fearless_simd` dispatch at the
//! context's [`crate::SimdLevel`], so every loop is compiled for that instruction set; the
//! shader (e.g. the compiled fixed-function stage list) dispatches once more for its own
//! stages.
//!
//! Colour values are `f32` in `[0, 1]`; the framebuffer is RGBA8 unorm, converted with
//! `floor(clamp(x, 0, 1)·255 + 0.5)` and read back as `d / 255`.
//!
//! A probed draw ([`crate::explain`]) never takes the fused kernels: its batches go through
//! the staged path with a recorder (`fragment::probe::Rec`) between the stages, which copies
//! the probed pixels' values out; every other batch runs the same code without it.

use std::sync::Arc;

use fearless_simd::{Level, Simd};
use glam::Vec4;

use crate::base::unorm::from_unorm8;
use crate::base::vec_lanes::LANES;
use crate::fragment::fused_texture as ft;
use crate::fragment::lanes::{self as fl, Finish};
use crate::fragment::probe::{Rec, Recorder, Unprobed};
use crate::geometry::setup::TriSetup;
use crate::history::ProbeTag;
use crate::state::{BlendEquation, BlendFactor, BlendState, CompareFunc, PipelineState};
use crate::target::TileMut;

use crate::fragment::scratch::{FragmentShader, Scratch, SpanCtx, TextureFusion, SPAN};

/// The colour is the interpolated vertex colour (varyings 0..4).
pub(crate) struct VertexColorShader;

impl FragmentShader for VertexColorShader {
    fn uses_varyings(&self) -> bool {
        true
    }
    fn color_is_varyings(&self) -> bool {
        true
    }
    fn shade(&self, _level: Level, span: &SpanCtx<'_>, s: &mut Scratch) {
        let n = span.len.next_multiple_of(LANES);
        for c in 0..4 {
            s.color[c][..n].copy_from_slice(&s.var[c][..n]);
        }
    }
}

/// The depth test of compare function `f` (index of [`func_index`]), with or without the
/// depth write: one monomorphised lanes kernel per case, chosen once per batch.
#[inline(always)]
fn depth_test<S: Simd>(simd: S, f: u8, write: bool, mask: &mut [i32], z: &[f32], d: &mut [f32]) {
    macro_rules! go {
        ($($k:literal)*) => {
            match (f, write) {
                $(($k, false) => fl::depth::<S, $k, false>(simd, mask, z, d),
                  ($k, true) => fl::depth::<S, $k, true>(simd, mask, z, d),)*
                (_, false) => fl::depth::<S, 7, false>(simd, mask, z, d),
                (_, true) => fl::depth::<S, 7, true>(simd, mask, z, d),
            }
        };
    }
    go!(0 1 2 3 4 5 6)
}

/// The alpha test of compare function `f`, chosen once per batch.
#[inline(always)]
fn alpha_test<S: Simd>(simd: S, f: u8, mask: &mut [i32], a: &[f32], reference: f32) {
    match f {
        0 => fl::alpha::<S, 0>(simd, mask, a, reference),
        1 => fl::alpha::<S, 1>(simd, mask, a, reference),
        2 => fl::alpha::<S, 2>(simd, mask, a, reference),
        3 => fl::alpha::<S, 3>(simd, mask, a, reference),
        4 => fl::alpha::<S, 4>(simd, mask, a, reference),
        5 => fl::alpha::<S, 5>(simd, mask, a, reference),
        6 => fl::alpha::<S, 6>(simd, mask, a, reference),
        _ => fl::alpha::<S, 7>(simd, mask, a, reference),
    }
}

const fn func_index(f: CompareFunc) -> u8 {
    match f {
        CompareFunc::Never => 0,
        CompareFunc::Less => 1,
        CompareFunc::Equal => 2,
        CompareFunc::LessEqual => 3,
        CompareFunc::Greater => 4,
        CompareFunc::NotEqual => 5,
        CompareFunc::GreaterEqual => 6,
        CompareFunc::Always => 7,
    }
}

/// The stencil test and ops as lookup tables indexed by the stored value.
struct StencilTables {
    test: [bool; 256],
    fail: [u8; 256],
    zfail: [u8; 256],
    pass: [u8; 256],
}

impl StencilTables {
    fn new(st: &crate::state::StencilState) -> Box<StencilTables> {
        let mut t = Box::new(StencilTables {
            test: [false; 256],
            fail: [0; 256],
            zfail: [0; 256],
            pass: [0; 256],
        });
        let wm = st.write_mask;
        for s in 0..=255u8 {
            let i = usize::from(s);
            t.test[i] = st.func.test(st.reference & st.read_mask, s & st.read_mask);
            let w = |op: crate::state::StencilOp| (s & !wm) | (op.apply(s, st.reference) & wm);
            t.fail[i] = w(st.fail);
            t.zfail[i] = w(st.depth_fail);
            t.pass[i] = w(st.pass);
        }
        t
    }
}

/// What a draw writes to the target's optional planes (`crate::target`), where it writes
/// depth.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Aux {
    /// The object id.
    pub id: u32,
    /// Where the eye-space normal sits in the varyings (`None`: the draw has none, or the
    /// target keeps no normal plane).
    pub normal: Option<usize>,
}

/// Everything the fragment stage does for one draw, decided once.
pub(crate) struct FragmentPath {
    pub nvar: usize,
    /// The optional planes' values, for a draw that writes depth into a target that keeps
    /// them. Such a draw takes the staged path.
    aux: Option<Aux>,
    interpolate: bool,
    /// The shader's colour is varyings 0..4 (no shading step).
    passthrough: bool,
    /// The whole path is `fragment::lanes::vertex_color` (for triangles without flat
    /// varyings).
    fused: bool,
    /// The whole path is `fragment::fused_texture::textured` (for triangles without flat
    /// varyings, at the depth functions it has).
    textured: Option<Box<TextureFusion>>,
    /// Varyings not interpolated (the shader does not read them).
    skip: std::ops::Range<usize>,
    early_z: bool,
    zmin: f32,
    zmax: f32,
    /// Depth compare function (index of `func_index`) and write flag.
    depth: (u8, bool),
    stencil: Option<Box<StencilTables>>,
    /// Alpha compare function and reference.
    alpha: Option<(u8, f32)>,
    /// The instruction set of every loop.
    level: Level,
    shader: Arc<dyn FragmentShader>,
    blend: Option<BlendState>,
    color_mask: u32,
    /// A probed draw ([`crate::explain`]): its tag and state.
    probe: Option<Box<(ProbeTag, PipelineState)>>,
}

impl FragmentPath {
    pub fn new(
        state: &PipelineState,
        (nvar, aux): (usize, Option<Aux>),
        shader: Arc<dyn FragmentShader>,
        level: Level,
        probe: Option<ProbeTag>,
    ) -> FragmentPath {
        let alpha = (state.alpha_test.func != CompareFunc::Always).then(|| {
            (
                func_index(state.alpha_test.func),
                state.alpha_test.reference,
            )
        });
        let cm = state.color_mask;
        let color_mask = u32::from_le_bytes([
            if cm[0] { 0xff } else { 0 },
            if cm[1] { 0xff } else { 0 },
            if cm[2] { 0xff } else { 0 },
            if cm[3] { 0xff } else { 0 },
        ]);
        let vp = &state.viewport;
        let early_z = alpha.is_none() && !shader.may_discard();
        let fused = shader.color_is_varyings()
            && nvar == 4
            && shader.skip_varyings().is_empty()
            && early_z
            && !state.stencil.enabled
            && !state.blend.enabled
            && color_mask == u32::MAX
            && probe.is_none()
            && aux.is_none();
        let textured = (early_z
            && aux.is_none()
            && !state.stencil.enabled
            && (!state.blend.enabled || is_alpha_blend(&state.blend))
            && color_mask == u32::MAX
            && probe.is_none())
        .then(|| shader.fused_texture())
        .flatten()
        .map(Box::new);
        FragmentPath {
            fused,
            textured,
            nvar,
            aux,
            interpolate: shader.uses_varyings(),
            passthrough: shader.color_is_varyings(),
            skip: shader.skip_varyings(),
            early_z,
            zmin: vp.min_depth.min(vp.max_depth),
            zmax: vp.min_depth.max(vp.max_depth),
            depth: (func_index(state.depth.func), state.depth.write),
            stencil: state
                .stencil
                .enabled
                .then(|| StencilTables::new(&state.stencil)),
            alpha,
            shader,
            blend: state.blend.enabled.then_some(state.blend),
            color_mask,
            level,
            probe: probe.map(|p| Box::new((p, *state))),
        }
    }

    /// Runs the whole fragment pipeline on the row spans `rows` of one triangle in a tile
    /// (each `[x, x + len)` of row `y`, its pixels from index `off` of the tile), in order.
    /// Dispatched once for all of them; a fused kernel is set up once for all of them
    /// ([`fl::fused_rows`]). Returns the number of fragments written.
    pub fn run_rows(
        &self,
        (tri, planes): (&TriSetup, &[f32]),
        rows: &[fl::RowSpan],
        tile: &mut TileMut<'_>,
        s: &mut Scratch,
    ) -> u64 {
        crate::base::simd::dispatch!(
            self.level,
            simd => self.rows_at(simd, (tri, planes), rows, tile, s);
            portable => rows.iter().map(|r| {
                let (b, dst) = row_batch((tri, planes), r, tile);
                let n = self.run_portable::<true>(simd, b, dst, s);
                self.write_aux(s, r.len as usize, tile, |i| r.off as usize + i);
                n
            }).sum()
        )
    }

    /// Stores the draw's object id and normal ([`Aux`]) at the batch's written pixels (the
    /// lanes `s.mask` keeps after the batch: those that passed every test), pixel `i` of
    /// `n` at tile offset `at(i)`. Nothing for a draw without them.
    #[inline(always)]
    pub fn write_aux(
        &self,
        s: &Scratch,
        n: usize,
        tile: &mut TileMut<'_>,
        at: impl Fn(usize) -> usize,
    ) {
        let Some(aux) = self.aux else { return };
        for i in (0..n).filter(|&i| s.mask[i] != 0) {
            let o = at(i);
            if let Some(id) = tile.ids.get_mut(o) {
                *id = aux.id;
            }
            if let Some(out) = tile.normals.get_mut(o) {
                *out = match aux.normal {
                    Some(k) => unit([s.var[k][i], s.var[k + 1][i], s.var[k + 2][i]]),
                    None => [0.0; 3],
                };
            }
        }
    }

    /// [`FragmentPath::run_rows`] at one instruction set: the fused kernels over all the
    /// rows, else [`FragmentPath::run_at`] row by row.
    #[inline(always)]
    fn rows_at<S: Simd>(
        &self,
        simd: S,
        (tri, planes): (&TriSetup, &[f32]),
        rows: &[fl::RowSpan],
        tile: &mut TileMut<'_>,
        s: &mut Scratch,
    ) -> u64 {
        let (f, w) = self.depth;
        let z = (self.zmin, self.zmax);
        let refp = (tri.ref_x, tri.ref_y);
        let fusable = self.fusable(tri);
        // AVX-512 runs the vertex-colour kernel's whole groups on 16 lanes, set up per row
        // (`run_at`).
        let wide = matches!(simd.level(), Level::Avx512(_));
        if fusable && self.fused && !wide {
            let dst = (&mut *tile.depth, &mut *tile.color);
            let vc = fl::w8::VertexColor::new::<false>(simd, planes, 0.0, z, w);
            // The depth functions of `run_at`'s fused vertex-colour kernels.
            return match f {
                1 => fl::fused_rows(simd, &mut fl::VertexColorRows::<S, 1>(vc), refp, rows, dst),
                3 => fl::fused_rows(simd, &mut fl::VertexColorRows::<S, 3>(vc), refp, rows, dst),
                _ => fl::fused_rows(simd, &mut fl::VertexColorRows::<S, 7>(vc), refp, rows, dst),
            };
        }
        if let Some(t) = self.textured.as_deref().filter(|_| fusable) {
            let mut k = ft::Kernel::new(simd, t, planes, z, (f, w), self.blend.is_some());
            let dst = (&mut *tile.depth, &mut *tile.color);
            return fl::fused_rows(simd, &mut k, refp, rows, dst);
        }
        rows.iter()
            .map(|r| {
                let (b, dst) = row_batch((tri, planes), r, tile);
                let n = self.run_at::<S, true>(simd, b, dst, s);
                self.write_aux(s, r.len as usize, tile, |i| r.off as usize + i);
                n
            })
            .sum()
    }

    /// Whether the fused kernels take this triangle: no flat varyings, and a depth function
    /// they have (less, less-or-equal, always).
    #[inline(always)]
    fn fusable(&self, tri: &TriSetup) -> bool {
        tri.flat_count == 0 && matches!(self.depth.0, 1 | 3 | 7)
    }

    /// Whether a triangle's small block may go to [`FragmentPath::run_blocks`]: the draw
    /// takes a fused kernel (vertex colour, `fragment::lanes::vertex_color`, or textured,
    /// `fragment::fused_texture`) at one of its depth functions, and the triangle has no
    /// flat varyings.
    #[inline(always)]
    pub fn writes_blocks(&self, tri: &TriSetup) -> bool {
        (self.fused || self.textured.is_some()) && self.fusable(tri)
    }

    /// Whether the tile walk's 16×16 class may send a triangle's blocks to
    /// [`FragmentPath::run_blocks`]: only the vertex-colour kernel, whose cost per lane is
    /// small beside a block's fixed cost. Four blocks run more lanes than the row spans of
    /// the same box (a row's covered pixels split at the block boundary), and the textured
    /// kernel pays its sampler on every lane: measured (callgrind, terrain 400×250, 1
    /// thread), it cost 849.7 → 858.2 M instructions per frame there, where the
    /// vertex-colour kernel gains 6,444 → 2,985 per triangle (`examples/kernels medium`).
    #[inline(always)]
    pub fn writes_quad_blocks(&self, tri: &TriSetup) -> bool {
        self.fused && self.fusable(tri)
    }

    /// The depth function of the vertex-colour kernel when [`FragmentPath::run_blocks`]
    /// takes it for every triangle without flat varyings (the draw's fused path at a depth
    /// function it has), else `None`.
    #[inline(always)]
    pub fn vertex_color_blocks(&self) -> Option<u8> {
        (self.fused && matches!(self.depth.0, 1 | 3 | 7)).then_some(self.depth.0)
    }

    /// [`FragmentPath::run_blocks`] on one block of a draw whose
    /// [`FragmentPath::vertex_color_blocks`] is `F`: the same kernel, chosen by the caller.
    #[inline(always)]
    pub fn vertex_color_blocks_at<S: Simd, const F: u8>(
        &self,
        simd: S,
        planes: &[f32],
        block: &fl::Block,
        tile: &mut TileMut<'_>,
    ) -> u64 {
        debug_assert_eq!(self.vertex_color_blocks(), Some(F));
        let vc = fl::w8::VertexColor::new::<false>(
            simd,
            planes,
            0.0,
            (self.zmin, self.zmax),
            self.depth.1,
        );
        let dst = (&mut *tile.depth, &mut *tile.color);
        fl::fused_blocks(
            simd,
            &fl::VertexColorRows::<S, F>(vc),
            std::slice::from_ref(block),
            dst,
        )
    }

    /// Runs the fused kernel on the covered pixels of one triangle's blocks of the tile
    /// (one, or up to four for the tile walk's 16×16 class), straight on its planes
    /// (`fragment::lanes::fused_blocks`), at the caller's instruction set. The kernel is set
    /// up once for all of them. Only for triangles [`FragmentPath::writes_blocks`] accepts;
    /// the same values as [`FragmentPath::run_pixels`] on those pixels gathered. Returns the
    /// number of fragments written.
    #[inline(always)]
    pub fn run_blocks<S: Simd>(
        &self,
        simd: S,
        planes: &[f32],
        blocks: &[fl::Block],
        tile: &mut TileMut<'_>,
    ) -> u64 {
        let (f, w) = self.depth;
        let z = (self.zmin, self.zmax);
        let dst = (&mut *tile.depth, &mut *tile.color);
        // The vertex-colour kernel first, as in `run_at`.
        if let Some(t) = self.textured.as_deref().filter(|_| !self.fused) {
            let k = ft::Kernel::new(simd, t, planes, z, (f, w), self.blend.is_some());
            return fl::fused_blocks(simd, &k, blocks, dst);
        }
        let vc = fl::w8::VertexColor::new::<false>(simd, planes, 0.0, z, w);
        match f {
            1 => fl::fused_blocks(simd, &fl::VertexColorRows::<S, 1>(vc), blocks, dst),
            3 => fl::fused_blocks(simd, &fl::VertexColorRows::<S, 3>(vc), blocks, dst),
            _ => fl::fused_blocks(simd, &fl::VertexColorRows::<S, 7>(vc), blocks, dst),
        }
    }

    /// Runs the pipeline on `len` pixels of one triangle whose offsets are already in
    /// `s.dxp` / `s.dyp` and whose target values are `dst` (gathered by the caller: any
    /// pixels, each at most once). Only the first `live` are real: the rest pad the batch to
    /// a length the vectorised loops handle without scalar tails, and are masked off from the
    /// start (their `dst` entries may change and must not be written back). Same results per
    /// pixel as [`FragmentPath::run_rows`].
    pub fn run_pixels(
        &self,
        tri: &TriSetup,
        planes: &[f32],
        (live, len): (usize, usize),
        dst: Dst<'_>,
        s: &mut Scratch,
    ) -> u64 {
        self.run::<false>(
            Batch {
                tri,
                planes,
                live,
                len,
                row: (0.0, 0.0),
            },
            dst,
            s,
        )
    }

    /// The pipeline, dispatched once for the batch.
    fn run<const ROW: bool>(&self, b: Batch<'_>, dst: Dst<'_>, s: &mut Scratch) -> u64 {
        crate::base::simd::dispatch!(
            self.level,
            simd => self.run_at::<_, ROW>(simd, b, dst, s);
            portable => self.run_portable::<ROW>(simd, b, dst, s)
        )
    }

    /// [`FragmentPath::run_at`] at the portable level, with fewer kernels and the same bits:
    /// always the staged path (the fused kernels give its bits, as `run_at` relies on), and
    /// only its block form, a row span's offsets written out first (a plane gives a row
    /// span and a block the same bits, `fragment::lanes::plane`). The portable level is the
    /// fallback of machines without SIMD and a cross-check of the others, not a fast path;
    /// its copies of the row form and the fused kernels cost LLVM 27 s of the crate's
    /// 115 s of function passes (`-Z llvm-time-trace`, `ci` profile).
    #[inline(always)]
    fn run_portable<const ROW: bool>(
        &self,
        simd: fearless_simd::Fallback,
        b: Batch<'_>,
        dst: Dst<'_>,
        s: &mut Scratch,
    ) -> u64 {
        let Batch {
            live,
            len,
            row: (bx, dy),
            ..
        } = b;
        if ROW {
            let np = len.next_multiple_of(LANES);
            fl::row_offsets(simd, bx, live, &mut s.dxp[..np], &mut s.mask[..np]);
            s.dyp[..np].fill(dy);
        }
        self.run_staged::<_, false>(
            simd,
            Batch {
                row: (0.0, 0.0),
                ..b
            },
            dst,
            s,
        )
    }

    /// A probed batch ([`crate::explain`]): the staged path at the context's level, in its
    /// block form (a row span's offsets written out first, as [`FragmentPath::run_portable`]
    /// does), writing down the probed pixel's stages. Only probed draws come here.
    #[inline(never)]
    #[cold]
    fn run_probed<const ROW: bool>(
        &self,
        probe: &(ProbeTag, PipelineState),
        b: Batch<'_>,
        dst: Dst<'_>,
        s: &mut Scratch,
    ) -> u64 {
        let Batch {
            tri,
            planes,
            live,
            len,
            row: (bx, dy),
        } = b;
        crate::base::simd::dispatch!(self.level, simd => {
            if ROW {
                let np = len.next_multiple_of(LANES);
                fl::row_offsets(simd, bx, live, &mut s.dxp[..np], &mut s.mask[..np]);
                s.dyp[..np].fill(dy);
            }
            let Some(mut rec) = Rec::new(probe, tri, planes, self.nvar, live, s) else {
                return self.staged::<_, false, _>(simd, Batch { row: (0.0, 0.0), ..b }, dst, s, &mut Unprobed);
            };
            let n = self.staged::<_, false, _>(simd, Batch { row: (0.0, 0.0), ..b }, dst, s, &mut rec);
            rec.finish(&probe.0);
            n
        })
    }

    /// The pipeline at one instruction set; `ROW` says the batch is one row span starting
    /// `row.0` right of and `row.1` below the reference vertex (its offsets are computed
    /// here; row sums are hoisted). Every stage runs on whole groups of [`LANES`].
    #[inline(always)]
    fn run_at<S: Simd, const ROW: bool>(
        &self,
        simd: S,
        b: Batch<'_>,
        dst: Dst<'_>,
        s: &mut Scratch,
    ) -> u64 {
        let Batch {
            tri,
            planes,
            live,
            len,
            row: (bx, dy),
        } = b;
        let Dst {
            depth,
            stencil,
            color,
        } = dst;
        let np = len.next_multiple_of(LANES);
        if self.fused && tri.flat_count == 0 {
            let at = if ROW {
                fl::At::Row(bx, dy)
            } else {
                fl::At::Pixels(&s.dxp[..np], &s.dyp[..np])
            };
            let (f, w) = self.depth;
            let z = (self.zmin, self.zmax);
            // Fused for the depth functions scenes use (less, less-or-equal, and always,
            // which is also "no depth test"); the other five take the staged path below,
            // which gives the same bits. Each fused copy is a large kernel per level and
            // per `ROW`: all eight made the crate's LLVM IR 317k lines, these three 280k.
            macro_rules! go {
                ($($k:literal)*) => {
                    match f {
                        $($k => return fl::vertex_color::<S, ROW, $k>(
                            simd, planes, at, (live, len), z, w, depth, color),)*
                        _ => {}
                    }
                };
            }
            go!(1 3 7);
        }
        // Row spans take the textured kernel in `rows_at`, set up once for all a triangle's
        // rows in a tile.
        if let Some(t) = self.textured.as_deref().filter(|_| !ROW) {
            let (f, w) = self.depth;
            if self.fusable(tri) {
                let offsets = (&s.dxp[..np], &s.dyp[..np]);
                let z = (self.zmin, self.zmax);
                let dst = (depth, color);
                let zf = (z, (f, w), self.blend.is_some());
                return ft::textured(simd, t, planes, offsets, (live, len), zf, dst);
            }
        }
        let dst = Dst {
            depth,
            stencil,
            color,
        };
        self.run_staged::<S, ROW>(simd, b, dst, s)
    }

    /// The staged fragment path of [`FragmentPath::run_at`]: every stage over the batch in
    /// turn. Not inlined (one copy per level and `ROW`, entered through `vectorize` so it
    /// keeps the level's target features), which keeps each function LLVM optimises small:
    /// the portable fallback's copy of the whole path cost it over 20 s as one function.
    #[inline(never)]
    fn run_staged<S: Simd, const ROW: bool>(
        &self,
        simd: S,
        b: Batch<'_>,
        dst: Dst<'_>,
        s: &mut Scratch,
    ) -> u64 {
        // A probed draw never takes the fused kernels, so this is the one place to turn
        // off to it: off the fused path, once per batch (measured: the same check at the
        // top of `run` cost 14 instructions per span of the fused kernels).
        if let Some(p) = &self.probe {
            return self.run_probed::<ROW>(p, b, dst, s);
        }
        simd.vectorize(
            #[inline(always)]
            || self.staged::<S, ROW, _>(simd, b, dst, s, &mut Unprobed),
        )
    }

    /// The staged path: every stage over the batch in turn, each telling `rec` what it did
    /// (nothing, for an unprobed batch: [`Unprobed`] compiles to no code).
    #[inline(always)]
    fn staged<S: Simd, const ROW: bool, R: Recorder>(
        &self,
        simd: S,
        b: Batch<'_>,
        dst: Dst<'_>,
        s: &mut Scratch,
        rec: &mut R,
    ) -> u64 {
        let Batch {
            tri,
            planes,
            live,
            len,
            row: (bx, dy),
        } = b;
        let Dst {
            depth,
            stencil,
            color,
        } = dst;
        let np = len.next_multiple_of(LANES);
        {
            let Scratch {
                dxp, dyp, z, mask, ..
            } = &mut *s;
            if ROW {
                fl::row_offsets(simd, bx, live, &mut dxp[..np], &mut mask[..np]);
                dyp[..np].fill(dy);
            } else {
                fl::coverage(simd, live, &mut mask[..np]);
            }
            let fin = Finish::Depth(self.zmin, self.zmax);
            let at = (&dxp[..np], &dyp[..np]);
            fl::plane::<S, ROW>(simd, &planes[0..3], at, &mut z[..np], fin);
        }
        rec.rasterized(s);
        if self.early_z {
            rec.testing(depth, stencil);
            self.depth_stencil(simd, s, depth, stencil, np);
            rec.tested(s, depth, stencil);
            if !fl::any(simd, &s.mask[..np]) {
                return 0;
            }
        }
        if self.interpolate {
            self.interpolate::<S, ROW>(simd, tri, planes, np, s);
            rec.interpolated(s, usize::from(tri.flat_count), &self.skip);
        }
        if !self.passthrough {
            let span = SpanCtx { len, tri, planes };
            rec.shade(&*self.shader, self.level, &span, s);
        } else {
            if self.blend.is_some() {
                for c in 0..4 {
                    s.color[c][..np].copy_from_slice(&s.var[c][..np]);
                }
            }
            rec.vertex_color(s);
        }
        if let Some((f, r)) = self.alpha {
            let a = if self.passthrough {
                &s.var[3]
            } else {
                &s.color[3]
            };
            alpha_test(simd, f, &mut s.mask[..np], &a[..np], r);
            rec.alpha_tested(&a[..np], &s.mask[..np]);
        }
        if !self.early_z {
            rec.testing(depth, stencil);
            self.depth_stencil(simd, s, depth, stencil, np);
            rec.tested(s, depth, stencil);
        }
        rec.writing(s, color, self.blend.is_some());
        if let Some(b) = &self.blend {
            self.blend(b, s, color);
            rec.blended(s);
        }
        self.write(simd, s, color, np);
        rec.written(s, color, self.passthrough && self.blend.is_none());
        fl::count(simd, &s.mask[..np])
    }

    #[inline(always)]
    fn interpolate<S: Simd, const ROW: bool>(
        &self,
        simd: S,
        tri: &TriSetup,
        planes: &[f32],
        np: usize,
        s: &mut Scratch,
    ) {
        let vp = &planes[6..6 + 3 * self.nvar];
        let nflat = usize::from(tri.flat_count);
        let Scratch {
            dxp, dyp, w, var, ..
        } = s;
        let at = (&dxp[..np], &dyp[..np]);
        for k in 0..nflat {
            var[k][..np].fill(vp[3 * k]);
        }
        fl::plane::<S, ROW>(simd, &planes[3..6], at, &mut w[..np], Finish::Recip);
        let w = &w[..np];
        for k in nflat..self.nvar {
            if self.skip.contains(&k) {
                continue;
            }
            let plane = &vp[3 * k..3 * k + 3];
            fl::plane::<S, ROW>(simd, plane, at, &mut var[k][..np], Finish::Persp(w));
        }
    }

    #[allow(
        clippy::needless_range_loop,
        reason = "four parallel arrays indexed together"
    )]
    #[inline(always)]
    fn depth_stencil<S: Simd>(
        &self,
        simd: S,
        s: &mut Scratch,
        d: &mut [f32],
        st: &mut [u8],
        np: usize,
    ) {
        let (f, w) = self.depth;
        match &self.stencil {
            None => depth_test(simd, f, w, &mut s.mask[..np], &s.z[..np], d),
            Some(t) => {
                // The stencil tables are indexed per pixel; the masks stay lanes.
                let n = st.len();
                s.spass[n..np].fill(0);
                for i in 0..n {
                    let test = t.test[usize::from(st[i])];
                    s.spass[i] = if test { s.mask[i] } else { 0 };
                }
                s.dmask[..np].copy_from_slice(&s.spass[..np]);
                depth_test(simd, f, w, &mut s.dmask[..np], &s.z[..np], d);
                for i in 0..n {
                    let old = usize::from(st[i]);
                    let new = if s.spass[i] != 0 {
                        if s.dmask[i] != 0 {
                            t.pass[old]
                        } else {
                            t.zfail[old]
                        }
                    } else {
                        t.fail[old]
                    };
                    st[i] = if s.mask[i] != 0 { new } else { st[i] };
                }
                s.mask[..np].copy_from_slice(&s.dmask[..np]);
            }
        }
    }

    /// Packs and stores the colour of the live pixels (`fragment::lanes::write`).
    #[inline(always)]
    fn write<S: Simd>(&self, simd: S, s: &mut Scratch, dst: &mut [[u8; 4]], np: usize) {
        let Scratch {
            color, var, mask, ..
        } = s;
        let src = if self.passthrough && self.blend.is_none() {
            &var[..4]
        } else {
            &color[..]
        };
        let c = [&src[0][..np], &src[1][..np], &src[2][..np], &src[3][..np]];
        if self.color_mask == u32::MAX {
            fl::write::<S, true>(simd, c, &mut mask[..np], self.color_mask, dst);
        } else {
            fl::write::<S, false>(simd, c, &mut mask[..np], self.color_mask, dst);
        }
    }

    #[allow(
        clippy::needless_range_loop,
        reason = "SoA colour channels indexed together"
    )]
    #[inline(always)]
    fn blend(&self, b: &BlendState, s: &mut Scratch, dst: &mut [[u8; 4]]) {
        let len = dst.len();
        for i in 0..len {
            for c in 0..4 {
                s.dst[c][i] = from_unorm8(dst[i][c]);
                s.color[c][i] = s.color[c][i].clamp(0.0, 1.0);
            }
        }
        let Scratch {
            color,
            dst: d,
            sf,
            df,
            ..
        } = s;
        factors(b.src_rgb, b.src_alpha, color, d, b.constant, sf, len);
        factors(b.dst_rgb, b.dst_alpha, color, d, b.constant, df, len);
        for c in 0..4 {
            let eq = if c < 3 { b.eq_rgb } else { b.eq_alpha };
            let (sc, dc) = (&mut color[c][..len], &d[c][..len]);
            let (sfc, dfc) = (&sf[c][..len], &df[c][..len]);
            match eq {
                BlendEquation::Add => {
                    for i in 0..len {
                        sc[i] = sc[i] * sfc[i] + dc[i] * dfc[i];
                    }
                }
                BlendEquation::Subtract => {
                    for i in 0..len {
                        sc[i] = sc[i] * sfc[i] - dc[i] * dfc[i];
                    }
                }
                BlendEquation::ReverseSubtract => {
                    for i in 0..len {
                        sc[i] = dc[i] * dfc[i] - sc[i] * sfc[i];
                    }
                }
                BlendEquation::Min => {
                    for i in 0..len {
                        sc[i] = sc[i].min(dc[i]);
                    }
                }
                BlendEquation::Max => {
                    for i in 0..len {
                        sc[i] = sc[i].max(dc[i]);
                    }
                }
            }
        }
    }
}

/// The target values of a batch of pixels: the tile's own slices for a row span, or copies
/// gathered from the tile for a block.
pub(crate) struct Dst<'a> {
    pub depth: &'a mut [f32],
    pub stencil: &'a mut [u8],
    pub color: &'a mut [[u8; 4]],
}

/// One batch of the fragment path: pixels of one triangle, with its set-up and planes.
#[derive(Clone, Copy)]
pub(crate) struct Batch<'a> {
    pub tri: &'a TriSetup,
    pub planes: &'a [f32],
    /// The real pixels: the first `live` of `len` (the rest pad the batch, masked off).
    pub live: usize,
    pub len: usize,
    /// A row span's first pixel: `bx` right of and `dy` below the reference vertex (unused
    /// for a block, whose offsets are in `Scratch::dxp` / `dyp`).
    pub row: (f32, f32),
}

/// One row span of a triangle as a batch of the pipeline: its offsets from the reference
/// point (`RowSpan::offsets`) and its pixels of the tile.
#[inline(always)]
fn row_batch<'a, 'b>(
    (tri, planes): (&'a TriSetup, &'a [f32]),
    r: &fl::RowSpan,
    tile: &'b mut TileMut<'_>,
) -> (Batch<'a>, Dst<'b>) {
    let len = r.len as usize;
    let b = Batch {
        tri,
        planes,
        live: len,
        len,
        row: r.offsets((tri.ref_x, tri.ref_y)),
    };
    let dst = Dst {
        depth: &mut tile.depth[r.range()],
        stencil: &mut tile.stencil[r.range()],
        color: &mut tile.color[r.range()],
    };
    (b, dst)
}

/// Fills the four factor channels for an (RGB factor, alpha factor) pair.
#[inline(always)]
fn factors(
    f_rgb: BlendFactor,
    f_a: BlendFactor,
    src: &[[f32; SPAN]; 4],
    dst: &[[f32; SPAN]; 4],
    k: Vec4,
    out: &mut [[f32; SPAN]; 4],
    len: usize,
) {
    for c in 0..4 {
        let f = if c < 3 { f_rgb } else { f_a };
        let o = &mut out[c][..len];
        let kc = k[c];
        match f {
            BlendFactor::Zero => o.fill(0.0),
            BlendFactor::One => o.fill(1.0),
            BlendFactor::SrcColor => o.copy_from_slice(&src[c][..len]),
            BlendFactor::OneMinusSrcColor => one_minus(o, &src[c][..len]),
            BlendFactor::DstColor => o.copy_from_slice(&dst[c][..len]),
            BlendFactor::OneMinusDstColor => one_minus(o, &dst[c][..len]),
            BlendFactor::SrcAlpha => o.copy_from_slice(&src[3][..len]),
            BlendFactor::OneMinusSrcAlpha => one_minus(o, &src[3][..len]),
            BlendFactor::DstAlpha => o.copy_from_slice(&dst[3][..len]),
            BlendFactor::OneMinusDstAlpha => one_minus(o, &dst[3][..len]),
            BlendFactor::ConstantColor => o.fill(kc),
            BlendFactor::OneMinusConstantColor => o.fill(1.0 - kc),
            BlendFactor::ConstantAlpha => o.fill(k.w),
            BlendFactor::OneMinusConstantAlpha => o.fill(1.0 - k.w),
            BlendFactor::SrcAlphaSaturate => {
                if c == 3 {
                    o.fill(1.0);
                } else {
                    for i in 0..len {
                        o[i] = src[3][i].min(1.0 - dst[3][i]);
                    }
                }
            }
        }
    }
}

/// `v` scaled to unit length (plain IEEE operations, so every level gives the same bits); zero
/// for a zero or non-finite vector.
fn unit([x, y, z]: [f32; 3]) -> [f32; 3] {
    let l = (x * x + y * y + z * z).sqrt();
    if l > 0.0 && l.is_finite() {
        [x / l, y / l, z / l]
    } else {
        [0.0; 3]
    }
}

/// Whether `b` is the classic alpha blend the fused textured kernel has
/// (`fragment::fused_texture`): source alpha and one minus source alpha for colour and
/// alpha, both added.
fn is_alpha_blend(b: &BlendState) -> bool {
    use BlendFactor::{OneMinusSrcAlpha, SrcAlpha};
    (b.src_rgb, b.dst_rgb, b.src_alpha, b.dst_alpha)
        == (SrcAlpha, OneMinusSrcAlpha, SrcAlpha, OneMinusSrcAlpha)
        && b.eq_rgb == BlendEquation::Add
        && b.eq_alpha == BlendEquation::Add
}

#[inline]
fn one_minus(o: &mut [f32], x: &[f32]) {
    for (o, x) in o.iter_mut().zip(x) {
        *o = 1.0 - x;
    }
}

#[cfg(feature = "internal-tests")]
pub(crate) mod tests {
    /// Every test of this module: `tests/unit.rs` runs each as one trial (an unlisted
    /// test fails the build as dead code).
    pub(crate) const TESTS: &[(&str, fn())] = &[("unorm8_conversion", unorm8_conversion)];

    use crate::base::unorm::to_unorm8;

    fn unorm8_conversion() {
        assert_eq!(to_unorm8(0.0), 0);
        assert_eq!(to_unorm8(1.0), 255);
        assert_eq!(to_unorm8(0.5), 128); // 127.5 + 0.5 = 128
        assert_eq!(to_unorm8(-3.0), 0);
        assert_eq!(to_unorm8(7.0), 255);
        assert_eq!(to_unorm8(f32::NAN), 0);
        for d in 0..=255u8 {
            assert_eq!(to_unorm8(f32::from(d) / 255.0), d);
        }
        // Against the plain formula: around every rounding boundary (k + ½)/255 and on a
        // strided sweep of all floats in [−0.5, 1.5].
        let reference = |x: f32| (x.clamp(0.0, 1.0) * 255.0 + 0.5).floor() as u8;
        for k in 0..=255u32 {
            let b = (k as f32 + 0.5) / 255.0;
            let mut x = f32::from_bits(b.to_bits() - 64);
            for _ in 0..128 {
                assert_eq!(to_unorm8(x), reference(x), "{x:e}");
                x = f32::from_bits(x.to_bits() + 1);
            }
        }
        for sign in [0, 0x8000_0000u32] {
            // Magnitudes from 0 (and −0) up to 1.5, every 4099th bit pattern.
            for bits in (0..=1.5f32.to_bits()).step_by(4099) {
                let x = f32::from_bits(bits | sign);
                assert_eq!(to_unorm8(x), reference(x), "{x:e}");
            }
        }
    }
}
