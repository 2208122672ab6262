//! The fragment stage: interpolation, shading, alpha test, stencil, depth, blending and
//! colour write, over batches of at most one tile row's worth of pixels: a horizontal span
//! ([`FragmentPath::run_span`]) or, for small triangles, every covered pixel of the
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

use std::sync::Arc;

use fearless_simd::{dispatch, Level, Simd};
use glam::Vec4;

use crate::setup::TriSetup;
use crate::state::{BlendEquation, BlendFactor, BlendState, CompareFunc, PipelineState};
use crate::target::{TileMut, TILE_SIZE};
use crate::vertex::MAX_VARYINGS;

/// Longest span: one tile row.
pub(crate) const SPAN: usize = TILE_SIZE as usize;

/// Per-worker scratch arrays (structure of arrays over a span).
pub(crate) struct Scratch {
    /// Pixel-centre offsets from the triangle's reference vertex, per pixel.
    pub dxp: [f32; SPAN],
    pub dyp: [f32; SPAN],
    pub z: [f32; SPAN],
    pub w: [f32; SPAN],
    pub var: [[f32; SPAN]; MAX_VARYINGS],
    pub color: [[f32; SPAN]; 4],
    pub mask: [bool; SPAN],
    /// Shader scratch: texture coordinates and level of detail of the current unit.
    pub tu: [f32; SPAN],
    pub tv: [f32; SPAN],
    pub tl: [f32; SPAN],
    /// Shader scratch: the current unit's texel colours.
    pub tex: [[f32; SPAN]; 4],
    /// Shader scratch: per-pixel primary and secondary colours (Phong).
    pub prim: [[f32; SPAN]; 4],
    pub sec: [[f32; SPAN]; 3],
    /// Packed RGBA8 colours on their way to the target.
    packed: [u32; SPAN],
    spass: [bool; SPAN],
    dmask: [bool; SPAN],
    dst: [[f32; SPAN]; 4],
    sf: [[f32; SPAN]; 4],
    df: [[f32; SPAN]; 4],
}

impl Scratch {
    pub fn new() -> Box<Scratch> {
        Box::new(Scratch {
            dxp: [0.0; SPAN],
            dyp: [0.0; SPAN],
            z: [0.0; SPAN],
            w: [0.0; SPAN],
            var: [[0.0; SPAN]; MAX_VARYINGS],
            color: [[0.0; SPAN]; 4],
            mask: [false; SPAN],
            tu: [0.0; SPAN],
            tv: [0.0; SPAN],
            tl: [0.0; SPAN],
            tex: [[0.0; SPAN]; 4],
            prim: [[0.0; SPAN]; 4],
            sec: [[0.0; SPAN]; 3],
            packed: [0; SPAN],
            spass: [false; SPAN],
            dmask: [false; SPAN],
            dst: [[0.0; SPAN]; 4],
            sf: [[0.0; SPAN]; 4],
            df: [[0.0; SPAN]; 4],
        })
    }
}

/// What a batch of pixels belongs to: its length, the triangle and its plane equations
/// (`[z, 1/w, var₀/w, …]`, each `(a₀, ∂x, ∂y)`). Pixel `i` is at `(Scratch::dxp[i],
/// Scratch::dyp[i])` from the reference vertex; a plane's value there is always evaluated as
/// `(a₀ + ∂y·dy) + ∂x·dx` (the row sum first), whether the batch is one row or a block.
pub(crate) struct SpanCtx<'a> {
    pub len: usize,
    pub tri: &'a TriSetup,
    pub planes: &'a [f32],
}

/// Computes fragment colours (`Scratch::color`) from interpolated varyings.
pub(crate) trait FragmentShader: Send + Sync {
    /// Whether the shader reads `Scratch::var` (if not, interpolation is skipped).
    fn uses_varyings(&self) -> bool;
    /// Varyings the shader never reads from `Scratch::var` (not interpolated).
    fn skip_varyings(&self) -> std::ops::Range<usize> {
        0..0
    }
    /// Whether the shader may kill fragments itself (disables the early depth test).
    fn may_discard(&self) -> bool {
        false
    }
    /// Writes `s.color[c][..span.len]`; may clear `s.mask` entries. `level` is the draw's
    /// instruction set: the shader dispatches on it once for the batch.
    fn shade(&self, level: Level, span: &SpanCtx<'_>, s: &mut Scratch);
}

/// The colour is the interpolated vertex colour (varyings 0..4).
pub(crate) struct VertexColorShader;

impl FragmentShader for VertexColorShader {
    fn uses_varyings(&self) -> bool {
        true
    }
    fn shade(&self, _level: Level, span: &SpanCtx<'_>, s: &mut Scratch) {
        let n = span.len;
        for c in 0..4 {
            s.color[c][..n].copy_from_slice(&s.var[c][..n]);
        }
    }
}

#[inline(always)]
fn cmp<const F: u8>(a: f32, b: f32) -> bool {
    match F {
        0 => false,
        1 => a < b,
        2 => a == b,
        3 => a <= b,
        4 => a > b,
        5 => a != b,
        6 => a >= b,
        _ => true,
    }
}

#[inline(always)]
fn depth_span<const F: u8, const W: bool>(mask: &mut [bool], z: &[f32], d: &mut [f32]) {
    for ((m, &z), d) in mask.iter_mut().zip(z).zip(d.iter_mut()) {
        let pass = *m & cmp::<F>(z, *d);
        if W {
            *d = if pass { z } else { *d };
        }
        *m = pass;
    }
}

/// The depth test of compare function `f` (index of [`func_index`]), with or without the
/// depth write: one monomorphised loop per case, chosen once per batch.
#[inline(always)]
fn depth_test(f: u8, write: bool, mask: &mut [bool], z: &[f32], d: &mut [f32]) {
    macro_rules! go {
        ($($k:literal)*) => {
            match (f, write) {
                $(($k, false) => depth_span::<$k, false>(mask, z, d),
                  ($k, true) => depth_span::<$k, true>(mask, z, d),)*
                (_, false) => depth_span::<7, false>(mask, z, d),
                (_, true) => depth_span::<7, true>(mask, z, d),
            }
        };
    }
    go!(0 1 2 3 4 5 6)
}

#[inline(always)]
fn alpha_span<const F: u8>(mask: &mut [bool], a: &[f32], reference: f32) {
    for (m, &a) in mask.iter_mut().zip(a) {
        *m &= cmp::<F>(a, reference);
    }
}

/// The alpha test of compare function `f`, chosen once per batch.
#[inline(always)]
fn alpha_test(f: u8, mask: &mut [bool], a: &[f32], reference: f32) {
    match f {
        0 => alpha_span::<0>(mask, a, reference),
        1 => alpha_span::<1>(mask, a, reference),
        2 => alpha_span::<2>(mask, a, reference),
        3 => alpha_span::<3>(mask, a, reference),
        4 => alpha_span::<4>(mask, a, reference),
        5 => alpha_span::<5>(mask, a, reference),
        6 => alpha_span::<6>(mask, a, reference),
        _ => alpha_span::<7>(mask, a, reference),
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

/// Everything the fragment stage does for one draw, decided once.
pub(crate) struct FragmentPath {
    pub nvar: usize,
    interpolate: bool,
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
}

impl FragmentPath {
    pub fn new(
        state: &PipelineState,
        nvar: usize,
        shader: Arc<dyn FragmentShader>,
        level: Level,
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
        FragmentPath {
            nvar,
            interpolate: shader.uses_varyings(),
            skip: shader.skip_varyings(),
            early_z: alpha.is_none() && !shader.may_discard(),
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
        }
    }

    /// Runs the whole fragment pipeline on the span `[x, x + len)` of row `y`, whose pixels
    /// start at index `off` of the tile. Returns the number of fragments written.
    #[allow(clippy::too_many_arguments, reason = "one span's complete context")]
    pub fn run_span(
        &self,
        tri: &TriSetup,
        planes: &[f32],
        x: i32,
        y: i32,
        len: usize,
        tile: &mut TileMut<'_>,
        off: usize,
        s: &mut Scratch,
    ) -> u64 {
        // The pixel-centre offsets from vertex 0 are exact in f32 (multiples of 1/256 below
        // 2^15), so `bx + i` equals `(x + i + ½) − ref_x` exactly.
        let dy = (y as f32 + 0.5) - tri.ref_y;
        let bx = (x as f32 + 0.5) - tri.ref_x;
        for (i, d) in s.dxp[..len].iter_mut().enumerate() {
            *d = bx + i as f32;
        }
        s.dyp[..len].fill(dy);
        let range = off..off + len;
        let dst = Dst {
            depth: &mut tile.depth[range.clone()],
            stencil: &mut tile.stencil[range.clone()],
            color: &mut tile.color[range],
        };
        self.run::<true>(tri, planes, (len, len), dst, s)
    }

    /// Runs the pipeline on `len` pixels of one triangle whose offsets are already in
    /// `s.dxp` / `s.dyp` and whose target values are `dst` (gathered by the caller: any
    /// pixels, each at most once). Only the first `live` are real: the rest pad the batch to
    /// a length the vectorised loops handle without scalar tails, and are masked off from the
    /// start (their `dst` entries may change and must not be written back). Same results per
    /// pixel as [`FragmentPath::run_span`].
    pub fn run_pixels(
        &self,
        tri: &TriSetup,
        planes: &[f32],
        (live, len): (usize, usize),
        dst: Dst<'_>,
        s: &mut Scratch,
    ) -> u64 {
        self.run::<false>(tri, planes, (live, len), dst, s)
    }

    /// The pipeline, dispatched once for the batch.
    fn run<const ROW: bool>(
        &self,
        tri: &TriSetup,
        planes: &[f32],
        (live, len): (usize, usize),
        dst: Dst<'_>,
        s: &mut Scratch,
    ) -> u64 {
        dispatch!(self.level, simd => self.run_at::<_, ROW>(simd, tri, planes, (live, len), dst, s))
    }

    /// The pipeline at one instruction set; `ROW` says every pixel has the same `dy` (so row
    /// sums are hoisted).
    #[inline(always)]
    fn run_at<S: Simd, const ROW: bool>(
        &self,
        _simd: S,
        tri: &TriSetup,
        planes: &[f32],
        (live, len): (usize, usize),
        dst: Dst<'_>,
        s: &mut Scratch,
    ) -> u64 {
        let Dst {
            depth,
            stencil,
            color,
        } = dst;
        {
            let (zmin, zmax) = (self.zmin, self.zmax);
            let Scratch { dxp, dyp, z, .. } = &mut *s;
            let at = (&dxp[..len], &dyp[..len], &dxp[..len]);
            eval_plane::<ROW>(&planes[0..3], at, &mut z[..len], |v, _| {
                v.max(zmin).min(zmax)
            });
        }
        s.mask[..live].fill(true);
        s.mask[live..len].fill(false);

        if self.early_z {
            self.depth_stencil(s, depth, stencil, len);
            if !s.mask[..len].contains(&true) {
                return 0;
            }
        }
        if self.interpolate {
            self.interpolate::<ROW>(tri, planes, len, s);
        }
        let span = SpanCtx { len, tri, planes };
        self.shader.shade(self.level, &span, s);
        if let Some((f, r)) = self.alpha {
            alpha_test(f, &mut s.mask[..len], &s.color[3][..len], r);
        }
        if !self.early_z {
            self.depth_stencil(s, depth, stencil, len);
        }
        match &self.blend {
            None => self.write(s, color, len),
            Some(b) => self.blend(b, s, color, len),
        }
        s.mask[..len].iter().filter(|m| **m).count() as u64
    }

    #[inline(always)]
    fn interpolate<const ROW: bool>(
        &self,
        tri: &TriSetup,
        planes: &[f32],
        len: usize,
        s: &mut Scratch,
    ) {
        let vp = &planes[6..6 + 3 * self.nvar];
        let nflat = usize::from(tri.flat_count);
        let Scratch {
            dxp, dyp, w, var, ..
        } = s;
        let (dxp, dyp) = (&dxp[..len], &dyp[..len]);
        for k in 0..nflat {
            var[k][..len].fill(vp[3 * k]);
        }
        eval_plane::<ROW>(&planes[3..6], (dxp, dyp, dxp), &mut w[..len], |v, _| {
            1.0 / v
        });
        let w = &w[..len];
        for k in nflat..self.nvar {
            if self.skip.contains(&k) {
                continue;
            }
            let plane = &vp[3 * k..3 * k + 3];
            eval_plane::<ROW>(plane, (dxp, dyp, w), &mut var[k][..len], |v, w| v * w);
        }
    }

    #[allow(
        clippy::needless_range_loop,
        reason = "four parallel arrays indexed together"
    )]
    #[inline(always)]
    fn depth_stencil(&self, s: &mut Scratch, d: &mut [f32], st: &mut [u8], len: usize) {
        let (f, w) = self.depth;
        match &self.stencil {
            None => depth_test(f, w, &mut s.mask[..len], &s.z[..len], d),
            Some(t) => {
                for i in 0..len {
                    s.spass[i] = s.mask[i] & t.test[usize::from(st[i])];
                }
                s.dmask[..len].copy_from_slice(&s.spass[..len]);
                depth_test(f, w, &mut s.dmask[..len], &s.z[..len], d);
                for i in 0..len {
                    let old = usize::from(st[i]);
                    let new = if s.spass[i] {
                        if s.dmask[i] {
                            t.pass[old]
                        } else {
                            t.zfail[old]
                        }
                    } else {
                        t.fail[old]
                    };
                    st[i] = if s.mask[i] { new } else { st[i] };
                }
                s.mask[..len].copy_from_slice(&s.dmask[..len]);
            }
        }
    }

    #[inline(always)]
    fn write(&self, s: &mut Scratch, dst: &mut [[u8; 4]], len: usize) {
        // Channel by channel into packed pixels (each loop vectorises), then one masked
        // store per pixel.
        let cm = self.color_mask;
        let packed = &mut s.packed[..len];
        for (p, &x) in packed.iter_mut().zip(&s.color[0][..len]) {
            *p = unorm8_u32(x);
        }
        for c in 1..4 {
            for (p, &x) in packed.iter_mut().zip(&s.color[c][..len]) {
                *p |= unorm8_u32(x) << (8 * c);
            }
        }
        for ((d, &p), &m) in dst.iter_mut().zip(packed.iter()).zip(&s.mask[..len]) {
            let old = u32::from_le_bytes(*d);
            let new = (p & cm) | (old & !cm);
            *d = (if m { new } else { old }).to_le_bytes();
        }
    }

    #[allow(
        clippy::needless_range_loop,
        reason = "SoA colour channels indexed together"
    )]
    #[inline(always)]
    fn blend(&self, b: &BlendState, s: &mut Scratch, dst: &mut [[u8; 4]], len: usize) {
        for i in 0..len {
            for c in 0..4 {
                s.dst[c][i] = f32::from(dst[i][c]) / 255.0;
                s.color[c][i] = s.color[c][i].clamp(0.0, 1.0);
            }
        }
        {
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
        self.write(s, dst, len);
    }
}

/// The target values of a batch of pixels: the tile's own slices for a row span, or copies
/// gathered from the tile for a block.
pub(crate) struct Dst<'a> {
    pub depth: &'a mut [f32],
    pub stencil: &'a mut [u8],
    pub color: &'a mut [[u8; 4]],
}

/// `out[i] = f((a₀ + ∂y·dy[i]) + ∂x·dx[i], m[i])` for the plane `a = [a₀, ∂x, ∂y]`: the row
/// sum first, then the step along x — one expression for every pixel, so a row span and a
/// block give the same bits. With `ROW` every `dy[i]` equals `dy[0]` and the row sum is
/// hoisted. `m` is a second per-pixel input (the `1/w` of perspective correction, or a dummy).
#[inline(always)]
fn eval_plane<const ROW: bool>(
    a: &[f32],
    (dx, dy, m): (&[f32], &[f32], &[f32]),
    out: &mut [f32],
    f: impl Fn(f32, f32) -> f32,
) {
    let n = out.len();
    let (dx, dy, m) = (&dx[..n], &dy[..n], &m[..n]);
    let (a0, ax, ay) = (a[0], a[1], a[2]);
    if ROW {
        let r = a0 + ay * dy[0];
        for ((o, &d), &m) in out.iter_mut().zip(dx).zip(m) {
            *o = f(r + ax * d, m);
        }
    } else {
        for (((o, &d), &e), &m) in out.iter_mut().zip(dx).zip(dy).zip(m) {
            *o = f((a0 + ay * e) + ax * d, m);
        }
    }
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

#[inline]
fn one_minus(o: &mut [f32], x: &[f32]) {
    for (o, x) in o.iter_mut().zip(x) {
        *o = 1.0 - x;
    }
}

/// `floor(clamp(x, 0, 1)·255 + 0.5)`; NaN maps to 0.
#[inline(always)]
pub fn to_unorm8(x: f32) -> u8 {
    unorm8_u32(x) as u8
}

/// [`to_unorm8`] as a `u32`, in operations that vectorise (a float-to-int `as` cast does not,
/// on baseline x86-64: it becomes one scalar conversion per lane).
///
/// A NaN fails `x > 0` and becomes 0. Then `y = x·255 + 0.5 ∈ [0.5,
/// 255.5]`; adding 2²³ rounds it to an integer `r = round(y)` held in the mantissa bits, and
/// `⌊y⌋ = r − [r > y]`. Every step is exact, so this equals `⌊y⌋` bit for bit.
#[inline(always)]
fn unorm8_u32(x: f32) -> u32 {
    const MAGIC: f32 = 8_388_608.0; // 2²³
                                    // Selects rather than `max`/`min` (whose NaN rules keep SSE2 from vectorising them).
    let x = if x > 0.0 { x } else { 0.0 };
    let x = if x < 1.0 { x } else { 1.0 };
    let y = x * 255.0 + 0.5;
    let z = y + MAGIC;
    let r = z.to_bits() & 0x007F_FFFF;
    // r ≥ 1 whenever r > y ≥ ½, so this never wraps; `wrapping_sub` only spares the overflow
    // check, which would keep the loop from vectorising.
    r.wrapping_sub(u32::from(z - MAGIC > y))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
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
