//! What the fragment stage's batches are made of: the scratch arrays ([`Scratch`]) every
//! stage reads and writes, a batch's context ([`SpanCtx`]) and the shader interface
//! ([`FragmentShader`]). Below both the fragment path (`fragment`) and the probe that copies
//! values out of a batch (`fragment::probe`), which therefore do not depend on each other's
//! internals.

use fearless_simd::Level;
use glam::Vec4;

use crate::geometry::setup::TriSetup;
use crate::history::Stage;
use crate::target::TILE_SIZE;
use crate::texture::lanes::LaneFilter;
use crate::texture::{Sampler, Texture};
use crate::vertex::MAX_VARYINGS;

/// Lane `i` of four colour rows.
pub(crate) fn color_at(rows: &[[f32; SPAN]], i: usize) -> Vec4 {
    Vec4::new(rows[0][i], rows[1][i], rows[2][i], rows[3][i])
}

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
    /// Live pixels as lanes: −1 live, 0 dead (see `fragment::lanes`).
    pub mask: [i32; SPAN],
    /// Shader scratch: texture coordinates and level of detail of the current unit.
    pub tu: [f32; SPAN],
    pub tv: [f32; SPAN],
    pub tl: [f32; SPAN],
    /// Shader scratch: the current unit's texel colours.
    pub tex: [[f32; SPAN]; 4],
    /// Shader scratch: the current unit's `[∂u/∂x, ∂v/∂x, ∂u/∂y, ∂v/∂y]` (anisotropy).
    pub grad: [[f32; SPAN]; 4],
    /// Shader scratch: per-pixel primary and secondary colours (Phong).
    pub prim: [[f32; SPAN]; 4],
    pub sec: [[f32; SPAN]; 3],
    /// Shader scratch (PBR): metallic, roughness, the tangent-space normal, occlusion and
    /// emission (`fragment::pbr_shader`).
    pub pbr: [[f32; SPAN]; 9],
    pub(crate) spass: [i32; SPAN],
    pub(crate) dmask: [i32; SPAN],
    pub(crate) dst: [[f32; SPAN]; 4],
    pub(crate) sf: [[f32; SPAN]; 4],
    pub(crate) df: [[f32; SPAN]; 4],
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
            mask: [0; SPAN],
            tu: [0.0; SPAN],
            tv: [0.0; SPAN],
            tl: [0.0; SPAN],
            tex: [[0.0; SPAN]; 4],
            grad: [[0.0; SPAN]; 4],
            prim: [[0.0; SPAN]; 4],
            sec: [[0.0; SPAN]; 3],
            pbr: [[0.0; SPAN]; 9],
            spass: [0; SPAN],
            dmask: [0; SPAN],
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

/// A shader that is the interpolated colour, modulated by one texture unit or not, then
/// fog or none: what the fused kernel (`fragment::fused_texture`) needs to run it without
/// the stage list.
pub(crate) struct TextureFusion {
    /// The unit, if any.
    pub unit: Option<FusedUnit>,
    /// The secondary colour's first varying, added after the unit (`Secondary`).
    pub secondary: Option<usize>,
    pub fog: Option<FusedFog>,
}

/// The texture unit of a [`TextureFusion`].
pub(crate) struct FusedUnit {
    pub texture: std::sync::Arc<Texture>,
    pub sampler: Sampler,
    /// The sampler's lane filter, already in the texture's format
    /// ([`LaneFilter::in_format`]: once per draw, not per batch).
    pub filter: LaneFilter,
    /// The first of its `(s, t, q)` planes (an index into the batch's planes).
    pub uv_plane: usize,
    /// `REPLACE` (the colour is the texel), else `MODULATE`.
    pub replace: bool,
}

/// The fog of a [`TextureFusion`]: the factor's (or distance's) varying, how the factor
/// comes from it, and the fog colour.
#[derive(Clone, Copy, Debug)]
pub(crate) struct FusedFog {
    pub at: usize,
    /// `None`: the factor is interpolated (`FogVertex`); `Some((start, end))`: linear fog of
    /// the interpolated distance per pixel (`FogFactor`).
    pub linear: Option<(f32, f32)>,
    pub color: Vec4,
}

/// Computes fragment colours (`Scratch::color`) from interpolated varyings.
pub(crate) trait FragmentShader: Send + Sync {
    /// The shader as a [`TextureFusion`], if it is one (`None` by default).
    fn fused_texture(&self) -> Option<TextureFusion> {
        None
    }
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
    /// Whether the colour is the interpolated varyings 0..4 as they are (then `shade` is
    /// not called and the colour stages read `Scratch::var` directly).
    fn color_is_varyings(&self) -> bool {
        false
    }
    /// Writes `s.color[c][..n]` for the batch's `n` pixels rounded up to whole groups of
    /// `fragment::lanes::LANES`; may clear `s.mask` entries. `level` is the draw's
    /// instruction set: the shader dispatches on it once for the batch.
    fn shade(&self, level: Level, span: &SpanCtx<'_>, s: &mut Scratch);
    /// [`FragmentShader::shade`], writing down what its stages did at each `(lane, stages)`
    /// of `out` (a probed batch, [`crate::explain`]). The default records the colour it
    /// produced.
    fn shade_probed(
        &self,
        level: Level,
        span: &SpanCtx<'_>,
        s: &mut Scratch,
        out: &mut [(usize, Vec<Stage>)],
    ) {
        self.shade(level, span, s);
        for (lane, stages) in out {
            stages.push(Stage::new("shade").output("color", color_at(&s.color, *lane)));
        }
    }
}
