//! The stage kinds of the fixed-function fragment shader (`fixed_shader`): one type per
//! kind, each with what it does to a batch ([`StageKind::run`]) and, next to it, what the
//! probe of `explain` records of it at one pixel ([`StageKind::describe`]). [`Stage`] is
//! their sum; [`with_stage!`] is its one `match`.

use fearless_simd::{f32x8, prelude::*, Simd};
use std::sync::Arc;

use glam::{Vec2, Vec4};

use crate::base::math::saturate;
use crate::base::vec_lanes::LANES;
use crate::fragment::scratch::{color_at, Scratch, SpanCtx, SPAN};
use crate::history::{words, Stage as ExplainStage, Value};
use crate::shading::combine::ApplyMode;
use crate::shading::combine::{combine_lanes, CombineState};
use crate::shading::fog::{fog_factor, FogMode};
use crate::shading::light::PreparedLighting;
use crate::texture::lanes::{
    lod_batch, sample_batch, sample_grad_batch, GradInput, LaneFilter, LaneInput,
};
use crate::texture::{Sampler, Texture};

/// A texture unit as the shader uses it.
pub(crate) struct UnitRt {
    pub texture: Arc<Texture>,
    pub sampler: Sampler,
    pub apply: ApplyMode,
    pub constant: Vec4,
}

/// Where the fixed-function values sit in the varyings (see `fixed_function::Layout`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct ShaderLayout {
    /// Offset of the secondary colour within a colour block.
    pub secondary: Option<usize>,
    /// Start of the back-face colour block (two-sided vertex lighting).
    pub back: Option<usize>,
    /// First `(s, t, q)` varying of unit 0.
    pub units: usize,
    /// The fog factor or distance.
    pub fog: Option<usize>,
    /// Eye position and normal (per-pixel lighting).
    pub phong: Option<usize>,
}

/// What the stages read of their shader: the layout of the varyings, the texture units and
/// the per-pixel lighting.
pub(crate) struct ShaderData {
    pub layout: ShaderLayout,
    pub units: Vec<UnitRt>,
    pub lighting: Option<PreparedLighting>,
    /// Per-pixel lighting: the primary and secondary colours are `Scratch::prim` / `sec`.
    pub phong: bool,
}

/// What a stage sees of its batch.
pub(crate) struct Batch<'b, 'a> {
    pub span: &'b SpanCtx<'a>,
    /// Live pixels.
    pub n: usize,
    /// Pixels the lane kernels run on: `n` rounded up to whole groups of [`LANES`] (the
    /// extra lanes hold stale but harmless values and are never written back).
    pub np: usize,
    /// Start of the colour block in the varyings: the back-face block for back faces.
    pub block: usize,
}

/// One kind of stage: what it does to a batch and what the probe records of it.
pub(crate) trait StageKind {
    /// Runs the stage on batch `b` of shader `sh`.
    fn run<S: Simd>(&self, sh: &ShaderData, simd: S, b: &Batch<'_, '_>, s: &mut Scratch);
    /// What the stage did at lane `i` of the batch, read from the scratch arrays right after
    /// it ran (a probed batch, [`crate::explain`]).
    fn describe(&self, sh: &ShaderData, b: &Batch<'_, '_>, s: &Scratch, i: usize) -> ExplainStage;
}

/// `color = primary`: the interpolated colour block (the back block for back faces).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Primary;

impl StageKind for Primary {
    #[inline(always)]
    fn run<S: Simd>(&self, _: &ShaderData, _: S, b: &Batch<'_, '_>, s: &mut Scratch) {
        for c in 0..4 {
            s.color[c][..b.n].copy_from_slice(&s.var[b.block + c][..b.n]);
        }
    }

    fn describe(&self, _: &ShaderData, b: &Batch<'_, '_>, s: &Scratch, i: usize) -> ExplainStage {
        ExplainStage::new("primary_color")
            .input("back_face_colors", b.block != 0)
            .output("color", color_at(&s.color, i))
    }
}

/// Per-pixel lighting from the interpolated eye position and normal (varyings at `at`):
/// fills `prim` / `sec`, `color = prim`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Lighting {
    pub at: usize,
}

impl StageKind for Lighting {
    /// `light::PreparedLighting::shade`, eight pixels at a time (`shade_lanes`: the scalar
    /// bits in every lane). Dead lanes are lit too, harmlessly: they are never stored.
    #[inline(always)]
    fn run<S: Simd>(&self, sh: &ShaderData, simd: S, b: &Batch<'_, '_>, s: &mut Scratch) {
        let Some(pl) = &sh.lighting else { return };
        let o = self.at;
        let front = b.span.tri.front;
        let Scratch {
            var,
            prim,
            sec,
            color,
            ..
        } = s;
        for g in (0..b.np).step_by(LANES) {
            let [p0, p1, p2, n0, n1, n2] = load_lanes::<S, 6>(simd, &var[o..o + 6], g);
            let c = load_lanes::<S, 4>(simd, &var[..4], g);
            let (p, sc) = pl.shade_lanes(simd, [p0, p1, p2], [n0, n1, n2], c, front);
            for (ch, x) in p.iter().enumerate() {
                x.store_slice(&mut prim[ch][g..g + LANES]);
            }
            for (ch, x) in sc.iter().enumerate() {
                x.store_slice(&mut sec[ch][g..g + LANES]);
            }
        }
        for c in 0..4 {
            color[c][..b.n].copy_from_slice(&prim[c][..b.n]);
        }
    }

    fn describe(&self, _: &ShaderData, _: &Batch<'_, '_>, s: &Scratch, i: usize) -> ExplainStage {
        let at = self.at;
        ExplainStage::new("lighting")
            .input(
                "eye_position",
                Value::Floats((at..at + 3).map(|k| s.var[k][i]).collect()),
            )
            .input(
                "normal",
                Value::Floats((at + 3..at + 6).map(|k| s.var[k][i]).collect()),
            )
            .output("primary", color_at(&s.prim, i))
            .output(
                "secondary",
                Value::Floats((0..3).map(|c| s.sec[c][i]).collect()),
            )
    }
}

/// Unit `unit`'s `(u, v)` and squared texel-space derivative length `ρ²` from its
/// `(s, t, q)` planes (plane offset `plane`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Coords {
    pub unit: usize,
    pub plane: usize,
}

impl StageKind for Coords {
    #[inline(always)]
    fn run<S: Simd>(&self, sh: &ShaderData, _: S, b: &Batch<'_, '_>, s: &mut Scratch) {
        let size = sh.units[self.unit].texture.base_size();
        coords(&b.span.planes[self.plane..self.plane + 9], size, b.np, s);
    }

    fn describe(&self, _: &ShaderData, _: &Batch<'_, '_>, s: &Scratch, i: usize) -> ExplainStage {
        ExplainStage::new(format!("unit{}_coords", self.unit))
            .output("uv", Value::Floats(vec![s.tu[i], s.tv[i]]))
            .output("rho_squared", s.tl[i])
    }
}

/// `λ = adjust(½·log2 ρ²)` per pixel, in place of `ρ²`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Lod {
    pub unit: usize,
}

impl StageKind for Lod {
    #[inline(always)]
    fn run<S: Simd>(&self, sh: &ShaderData, simd: S, b: &Batch<'_, '_>, s: &mut Scratch) {
        lod_batch(simd, &sh.units[self.unit].sampler, &mut s.tl[..b.np]);
    }

    fn describe(&self, sh: &ShaderData, _: &Batch<'_, '_>, s: &Scratch, i: usize) -> ExplainStage {
        let u = &sh.units[self.unit];
        ExplainStage::new(format!("unit{}_lod", self.unit))
            .input("lod_bias", u.sampler.lod_bias)
            .input(
                "lod_range",
                Value::Floats(vec![u.sampler.min_lod, u.sampler.max_lod]),
            )
            .output("lambda", s.tl[i])
    }
}

/// Sampling by the 8-lane kernel from the coordinates and λ.
#[derive(Clone, Copy, Debug)]
pub(crate) struct SampleLanes {
    pub unit: usize,
    pub filter: LaneFilter,
}

impl StageKind for SampleLanes {
    #[inline(always)]
    fn run<S: Simd>(&self, sh: &ShaderData, simd: S, b: &Batch<'_, '_>, s: &mut Scratch) {
        sample_lanes(simd, &sh.units[self.unit].texture, self.filter, b.np, s);
    }

    fn describe(&self, sh: &ShaderData, _: &Batch<'_, '_>, s: &Scratch, i: usize) -> ExplainStage {
        let u = &sh.units[self.unit];
        let uv = glam::Vec2::new(s.tu[i], s.tv[i]);
        let sample = u.texture.taps(&u.sampler, uv, s.tl[i]);
        sampled(self.unit, u, uv, sample, s, i)
    }
}

/// Anisotropic sampling by the 8-lane kernel, from the coordinates and their exact
/// derivatives (planes at offset `plane`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct SampleAniso {
    pub unit: usize,
    pub plane: usize,
    pub filter: LaneFilter,
}

impl StageKind for SampleAniso {
    #[inline(always)]
    fn run<S: Simd>(&self, sh: &ShaderData, simd: S, b: &Batch<'_, '_>, s: &mut Scratch) {
        let u = &sh.units[self.unit];
        let planes = &b.span.planes[self.plane..self.plane + 9];
        sample_aniso_lanes(simd, (&u.texture, &u.sampler, self.filter), planes, b.np, s);
    }

    fn describe(&self, sh: &ShaderData, _: &Batch<'_, '_>, s: &Scratch, i: usize) -> ExplainStage {
        let u = &sh.units[self.unit];
        let uv = glam::Vec2::new(s.tu[i], s.tv[i]);
        let g = |k: usize| s.grad[k][i];
        let (dx, dy) = (glam::Vec2::new(g(0), g(1)), glam::Vec2::new(g(2), g(3)));
        let sample = u.texture.grad_taps(&u.sampler, uv, dx, dy);
        sampled(self.unit, u, uv, sample, s, i)
            .input("derivatives", Value::Floats(vec![g(0), g(1), g(2), g(3)]))
    }
}

/// A texture unit's apply modes (GL 1.x's texture environment) as stages: each pixel's
/// colour from its colour and the unit's texel. `$run` is the stage's loop over the batch.
macro_rules! apply_stage {
    ($(#[$doc:meta])* $name:ident { $($field:ident: $ty:ty),* }, $mode:literal,
     |$self_:ident, $sh:ident, $n:ident, $color:ident, $tex:ident| $run:block) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug)]
        pub(crate) struct $name {
            $(pub $field: $ty),*
        }

        impl StageKind for $name {
            #[inline(always)]
            fn run<S: Simd>(&self, sh: &ShaderData, _: S, b: &Batch<'_, '_>, s: &mut Scratch) {
                let ($self_, $sh, $n) = (self, sh, b.n);
                let Scratch { color: $color, tex: $tex, .. } = s;
                $run
            }

            fn describe(
                &self,
                _: &ShaderData,
                _: &Batch<'_, '_>,
                s: &Scratch,
                i: usize,
            ) -> ExplainStage {
                ExplainStage::new(concat!("apply_", $mode))
                    .input("texture", color_at(&s.tex, i))
                    .output("color", color_at(&s.color, i))
            }
        }
    };
}

apply_stage!(
    /// `color = saturate(color · tex)` (GL `MODULATE`).
    Modulate {}, "modulate", |_this, _sh, n, color, tex| {
        for c in 0..4 {
            for (x, &t) in color[c][..n].iter_mut().zip(&tex[c][..n]) {
                *x = saturate(*x * t);
            }
        }
    }
);

apply_stage!(
    /// `DECAL`: `rgb = c·(1 − at) + t·at`, alpha kept.
    Decal {}, "decal", |_this, _sh, n, color, tex| {
        for c in 0..3 {
            let (x, t, at) = (&mut color[c][..n], &tex[c][..n], &tex[3][..n]);
            for i in 0..n {
                x[i] = saturate(x[i] * (1.0 - at[i]) + t[i] * at[i]);
            }
        }
        for x in &mut color[3][..n] {
            *x = saturate(*x);
        }
    }
);

apply_stage!(
    /// `REPLACE` (with alpha): `color = saturate(tex)`.
    Replace {}, "replace", |_this, _sh, n, color, tex| {
        for c in 0..4 {
            for (x, &t) in color[c][..n].iter_mut().zip(&tex[c][..n]) {
                *x = saturate(t);
            }
        }
    }
);

apply_stage!(
    /// `BLEND`: `rgb = c·(1 − t) + k·t` (`k` the unit's constant), `a = a·at`.
    Blend { unit: usize }, "blend", |this, sh, n, color, tex| {
        let k = sh.units[this.unit].constant;
        for c in 0..3 {
            let kc = k[c];
            for (x, &t) in color[c][..n].iter_mut().zip(&tex[c][..n]) {
                *x = saturate(*x * (1.0 - t) + kc * t);
            }
        }
        for (x, &t) in color[3][..n].iter_mut().zip(&tex[3][..n]) {
            *x = saturate(*x * t);
        }
    }
);

apply_stage!(
    /// `ADD`: `rgb = c + t`, `a = a·at`.
    Add {}, "add", |_this, _sh, n, color, tex| {
        for c in 0..3 {
            for (x, &t) in color[c][..n].iter_mut().zip(&tex[c][..n]) {
                *x = saturate(*x + t);
            }
        }
        for (x, &t) in color[3][..n].iter_mut().zip(&tex[3][..n]) {
            *x = saturate(*x * t);
        }
    }
);

/// A combiner (`combine::apply`), eight pixels at a time by `combine::combine_lanes`: the
/// state is read per group of eight, never per pixel.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Combine {
    pub unit: usize,
    pub state: CombineState,
}

impl StageKind for Combine {
    #[inline(always)]
    fn run<S: Simd>(&self, sh: &ShaderData, simd: S, b: &Batch<'_, '_>, s: &mut Scratch) {
        let Scratch {
            color,
            tex,
            var,
            prim,
            ..
        } = s;
        let primary: &[[f32; SPAN]] = if sh.phong {
            &prim[..]
        } else {
            &var[b.block..b.block + 4]
        };
        let k = sh.units[self.unit].constant;
        let constant = [
            simd.splat_f32x8(k.x),
            simd.splat_f32x8(k.y),
            simd.splat_f32x8(k.z),
            simd.splat_f32x8(k.w),
        ];
        for g in (0..b.np).step_by(LANES) {
            let src = [
                load_lanes::<S, 4>(simd, &tex[..], g),
                constant,
                load_lanes::<S, 4>(simd, primary, g),
                load_lanes::<S, 4>(simd, &color[..], g),
            ];
            let out = combine_lanes(simd, &self.state, &src);
            for (ch, x) in out.iter().enumerate() {
                x.store_slice(&mut color[ch][g..g + LANES]);
            }
        }
    }

    fn describe(&self, _: &ShaderData, _: &Batch<'_, '_>, s: &Scratch, i: usize) -> ExplainStage {
        ExplainStage::new(format!("unit{}_combine", self.unit))
            .input("state", format!("{:?}", self.state))
            .input("texture", color_at(&s.tex, i))
            .output("color", color_at(&s.color, i))
    }
}

/// `rgb = min(rgb + secondary, 1)`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Secondary;

impl StageKind for Secondary {
    #[inline(always)]
    fn run<S: Simd>(&self, sh: &ShaderData, _: S, b: &Batch<'_, '_>, s: &mut Scratch) {
        let (n, block) = (b.n, b.block);
        let Scratch {
            color, var, sec, ..
        } = s;
        let sec: &[[f32; SPAN]] = match sh.layout.secondary {
            Some(o) if !sh.phong => &var[block + o..block + o + 3],
            _ => &sec[..],
        };
        for c in 0..3 {
            for (x, &y) in color[c][..n].iter_mut().zip(&sec[c][..n]) {
                *x = (*x + y).min(1.0);
            }
        }
    }

    fn describe(&self, _: &ShaderData, _: &Batch<'_, '_>, s: &Scratch, i: usize) -> ExplainStage {
        ExplainStage::new("secondary_color").output("color", color_at(&s.color, i))
    }
}

/// Fog factor from the interpolated distance (varying `at`), per pixel.
#[derive(Clone, Copy, Debug)]
pub(crate) struct FogFactor {
    pub at: usize,
    pub mode: FogMode,
}

impl StageKind for FogFactor {
    #[inline(always)]
    fn run<S: Simd>(&self, _: &ShaderData, _: S, b: &Batch<'_, '_>, s: &mut Scratch) {
        fog_factors(self.mode, &s.var[self.at][..b.n], &mut s.tl[..b.n]);
    }

    fn describe(&self, _: &ShaderData, _: &Batch<'_, '_>, s: &Scratch, i: usize) -> ExplainStage {
        ExplainStage::new("fog_factor")
            .input("distance", s.var[self.at][i])
            .input("mode", format!("{:?}", self.mode))
            .output("factor", s.tl[i])
    }
}

/// Fog factor interpolated from the vertices (varying `at`), clamped.
#[derive(Clone, Copy, Debug)]
pub(crate) struct FogVertex {
    pub at: usize,
}

impl StageKind for FogVertex {
    #[inline(always)]
    fn run<S: Simd>(&self, _: &ShaderData, _: S, b: &Batch<'_, '_>, s: &mut Scratch) {
        for (f, &d) in s.tl[..b.n].iter_mut().zip(&s.var[self.at][..b.n]) {
            *f = d.clamp(0.0, 1.0);
        }
    }

    fn describe(&self, _: &ShaderData, _: &Batch<'_, '_>, s: &Scratch, i: usize) -> ExplainStage {
        ExplainStage::new("fog_factor")
            .input("vertex_factor", s.var[self.at][i])
            .output("factor", s.tl[i])
    }
}

/// `rgb = rgb·f + fog·(1 − f)` (`fog::apply_fog`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct FogBlend {
    pub color: Vec4,
}

impl StageKind for FogBlend {
    #[inline(always)]
    fn run<S: Simd>(&self, _: &ShaderData, _: S, b: &Batch<'_, '_>, s: &mut Scratch) {
        let Scratch { color, tl, .. } = s;
        for (c, ch) in color.iter_mut().take(3).enumerate() {
            let k = self.color[c];
            for (x, &f) in ch[..b.n].iter_mut().zip(&tl[..b.n]) {
                *x = *x * f + k * (1.0 - f);
            }
        }
    }

    fn describe(&self, _: &ShaderData, _: &Batch<'_, '_>, s: &Scratch, i: usize) -> ExplainStage {
        ExplainStage::new("fog")
            .input("factor", s.tl[i])
            .input("fog_color", self.color)
            .output("color", color_at(&s.color, i))
    }
}

/// One stage of the compiled shader.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Stage {
    Primary(Primary),
    Lighting(Lighting),
    Coords(Coords),
    Lod(Lod),
    SampleLanes(SampleLanes),
    SampleAniso(SampleAniso),
    Modulate(Modulate),
    Decal(Decal),
    Replace(Replace),
    Blend(Blend),
    Add(Add),
    Combine(Combine),
    Secondary(Secondary),
    FogFactor(FogFactor),
    FogVertex(FogVertex),
    FogBlend(FogBlend),
}

/// `$e` with `$k` bound to the [`StageKind`] inside `$stage`: the one `match` over [`Stage`].
macro_rules! with_stage {
    ($stage:expr, $k:ident => $e:expr) => {
        match $stage {
            Stage::Primary($k) => $e,
            Stage::Lighting($k) => $e,
            Stage::Coords($k) => $e,
            Stage::Lod($k) => $e,
            Stage::SampleLanes($k) => $e,
            Stage::SampleAniso($k) => $e,
            Stage::Modulate($k) => $e,
            Stage::Decal($k) => $e,
            Stage::Replace($k) => $e,
            Stage::Blend($k) => $e,
            Stage::Add($k) => $e,
            Stage::Combine($k) => $e,
            Stage::Secondary($k) => $e,
            Stage::FogFactor($k) => $e,
            Stage::FogVertex($k) => $e,
            Stage::FogBlend($k) => $e,
        }
    };
}
pub(crate) use with_stage;

/// A sampling stage's record: λ, the taps and the kernel's colour (and the scalar filter's,
/// should the two ever differ).
fn sampled(
    unit: usize,
    u: &UnitRt,
    uv: glam::Vec2,
    sample: crate::texture::Sample,
    s: &Scratch,
    i: usize,
) -> ExplainStage {
    let filtered = color_at(&s.tex, i);
    let mut st = ExplainStage::new(format!("unit{unit}_sample"))
        .input("uv", Value::Floats(vec![uv.x, uv.y]))
        .input(
            "texture",
            format!(
                "{}x{}, {} levels",
                u.texture.width(),
                u.texture.height(),
                u.texture.level_count()
            ),
        )
        .input(
            "filter",
            format!(
                "min {} mag {} wrap {} {} anisotropy {}",
                words(u.sampler.min),
                words(u.sampler.mag),
                words(u.sampler.wrap_u),
                words(u.sampler.wrap_v),
                u.sampler.max_anisotropy
            ),
        )
        .output("lambda", sample.lambda)
        .output("probes", sample.probes)
        .output("taps", Value::Taps(sample.taps))
        .output("color", filtered);
    if sample.color.to_array().map(f32::to_bits) != filtered.to_array().map(f32::to_bits) {
        st = st.output("reference", sample.color);
    }
    st
}

/// Samples `texture` with `filter` at the first `np` pixels' `(tu, tv)` and λ (`tl`) into
/// `tex`, by the 8-lane kernel.
#[inline(always)]
pub(crate) fn sample_lanes<S: Simd>(
    simd: S,
    texture: &Texture,
    filter: LaneFilter,
    np: usize,
    s: &mut Scratch,
) {
    let Scratch {
        tu, tv, tl, tex, ..
    } = s;
    let input = LaneInput {
        u: &tu[..np],
        v: &tv[..np],
        lambda: &tl[..np],
    };
    let [r, g, b, a] = tex;
    let out = [&mut r[..np], &mut g[..np], &mut b[..np], &mut a[..np]];
    sample_batch(simd, texture, filter, input, out);
}

/// Anisotropic sampling of the first `np` pixels into `tex`: their coordinates and exact
/// derivatives from the `(s, t, q)` planes `planes`, then the 8-lane kernel.
#[inline(always)]
pub(crate) fn sample_aniso_lanes<S: Simd>(
    simd: S,
    (texture, sampler, filter): (&Texture, &Sampler, LaneFilter),
    planes: &[f32],
    np: usize,
    s: &mut Scratch,
) {
    grad_coords(planes, np, s);
    let Scratch {
        tu, tv, grad, tex, ..
    } = s;
    let [dux, dvx, duy, dvy] = grad;
    let input = GradInput {
        u: &tu[..np],
        v: &tv[..np],
        d: [&dux[..np], &dvx[..np], &duy[..np], &dvy[..np]],
    };
    let [r, g, b, a] = tex;
    let out = [&mut r[..np], &mut g[..np], &mut b[..np], &mut a[..np]];
    sample_grad_batch(simd, texture, sampler, filter, input, out);
}

/// Lanes `g..g + 8` of `N` scratch rows.
#[inline(always)]
fn load_lanes<S: Simd, const N: usize>(simd: S, rows: &[[f32; SPAN]], g: usize) -> [f32x8<S>; N] {
    let mut out = [simd.splat_f32x8(0.0); N];
    for (o, row) in out.iter_mut().zip(rows) {
        *o = f32x8::from_slice(simd, &row[g..g + LANES]);
    }
    out
}

/// `(u, v)` at the pixel `(dx, dy)` from the reference vertex, and its exact screen
/// derivatives `(∂u/∂x, ∂v/∂x, ∂u/∂y, ∂v/∂y)`, from the `(s, t, q)` planes `p` (`S, T, Q`
/// the planes of `s/w, t/w, q/w`): `u = S/Q`, `∂u/∂x = (S_x − u·Q_x)/Q`, likewise for y and
/// for v. Each plane's value is `(a₀ + ∂y·dy) + ∂x·dx`.
#[inline(always)]
fn uv_derivatives(p: &[f32], dx: f32, dy: f32) -> [f32; 6] {
    let (sx, sy) = (p[1], p[2]);
    let (tx, ty) = (p[4], p[5]);
    let (qx, qy) = (p[7], p[8]);
    let sv = (p[0] + p[2] * dy) + sx * dx;
    let tv = (p[3] + p[5] * dy) + tx * dx;
    let qv = (p[6] + p[8] * dy) + qx * dx;
    let inv_q = 1.0 / qv;
    let (u, v) = (sv * inv_q, tv * inv_q);
    [
        u,
        v,
        (sx - u * qx) * inv_q,
        (tx - v * qx) * inv_q,
        (sy - u * qy) * inv_q,
        (ty - v * qy) * inv_q,
    ]
}

/// `(u, v)` and `ρ² = max(|∂uv/∂x·size|², |∂uv/∂y·size|²)` ([`uv_derivatives`]) for `n`
/// pixels.
#[inline(always)]
pub(crate) fn coords(p: &[f32], size: Vec2, n: usize, s: &mut Scratch) {
    let (w, h) = (size.x, size.y);
    let Scratch {
        dxp,
        dyp,
        tu,
        tv,
        tl,
        ..
    } = s;
    let (dxp, dyp) = (&dxp[..n], &dyp[..n]);
    let (tu, tv, tl) = (&mut tu[..n], &mut tv[..n], &mut tl[..n]);
    for i in 0..n {
        let [u, v, ux, vx, uy, vy] = uv_derivatives(p, dxp[i], dyp[i]);
        let (ax, ay) = (ux * w, vx * h);
        let (bx, by) = (uy * w, vy * h);
        tu[i] = u;
        tv[i] = v;
        tl[i] = (ax * ax + ay * ay).max(bx * bx + by * by);
    }
}

/// `(u, v)` and their exact screen derivatives ([`uv_derivatives`]) of the first `n` pixels
/// into `tu`, `tv` and `grad`, for anisotropic sampling. Pixels past the batch's live ones
/// get values computed from stale offsets, harmlessly (never written back).
#[inline(always)]
fn grad_coords(p: &[f32], n: usize, s: &mut Scratch) {
    let Scratch {
        dxp,
        dyp,
        tu,
        tv,
        grad,
        ..
    } = s;
    for i in 0..n {
        let [u, v, ux, vx, uy, vy] = uv_derivatives(p, dxp[i], dyp[i]);
        (tu[i], tv[i]) = (u, v);
        (grad[0][i], grad[1][i], grad[2][i], grad[3][i]) = (ux, vx, uy, vy);
    }
}

/// `f = clamp(fog_factor(mode, d), 0, 1)` per pixel, the mode decided once per batch.
#[inline(always)]
fn fog_factors(mode: FogMode, d: &[f32], f: &mut [f32]) {
    macro_rules! each {
        ($m:expr) => {{
            let m = $m;
            for (f, &d) in f.iter_mut().zip(d) {
                *f = fog_factor(&m, d).clamp(0.0, 1.0);
            }
        }};
    }
    match mode {
        FogMode::Linear { start, end } => each!(FogMode::Linear { start, end }),
        FogMode::Exp { density } => each!(FogMode::Exp { density }),
        FogMode::Exp2 { density } => each!(FogMode::Exp2 { density }),
    }
}
