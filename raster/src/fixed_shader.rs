//! The fixed-function fragment shader, compiled once per draw into a list of stages.
//!
//! [`FixedShader::new`] turns the draw's fixed-function state into a `Vec<Stage>`: which
//! colour block is primary, per texture unit the coordinate stage, the sampling kernel
//! (the 8-lane kernels of `texture::lanes`: from coordinates and λ, or for an anisotropic
//! sampler from coordinates and their derivatives) and the apply mode, then the secondary
//! colour and the fog factor and blend. A batch of fragments runs the list in order; each stage is one loop over the
//! batch (structure of arrays, `Scratch`), so no pixel branches on state or calls through a
//! pointer. The whole list runs inside one `fearless_simd` dispatch per batch, so every loop
//! is compiled for the chosen instruction set; every stage computes the same expression per
//! pixel as the scalar definitions in `combine`, `fog`, `light` and `texture`.

use std::sync::Arc;

use fearless_simd::{f32x8, prelude::*, Level};
use glam::{Vec2, Vec4};

use crate::combine::{combine_lanes, ApplyMode, CombineState};
use crate::explain::{Stage as ExplainStage, Value};
use crate::fog::{fog_factor, FogMode, FogState};
use crate::fragment::{FragmentShader, Scratch, SpanCtx, SPAN};
use crate::fragment_probe::{color_at, words};
use crate::light::PreparedLighting;
use crate::math::saturate;
use crate::texture::lanes::{
    lod_batch, sample_batch, sample_grad_batch, GradInput, LaneFilter, LaneInput, LANES,
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

/// One stage of the compiled shader.
#[derive(Clone, Copy, Debug)]
enum Stage {
    /// `color = primary`: the interpolated colour block (the back block for back faces).
    Primary,
    /// Per-pixel lighting from the interpolated eye position and normal (varyings at `at`):
    /// fills `prim` / `sec`, `color = prim`.
    Lighting { at: usize },
    /// Unit `unit`'s `(u, v)` and squared texel-space derivative length `ρ²` from its
    /// `(s, t, q)` planes (plane offset `plane`).
    Coords { unit: usize, plane: usize },
    /// `λ = adjust(½·log2 ρ²)` per pixel, in place of `ρ²`.
    Lod { unit: usize },
    /// Sampling by the 8-lane kernel.
    SampleLanes { unit: usize, filter: LaneFilter },
    /// Anisotropic sampling by the 8-lane kernel, from the coordinates and their exact
    /// derivatives (planes at offset `plane`).
    SampleAniso {
        unit: usize,
        plane: usize,
        filter: LaneFilter,
    },
    /// `color = saturate(color · tex)` (GL `MODULATE`).
    Modulate,
    /// `DECAL`: `rgb = c·(1 − at) + t·at`, alpha kept.
    Decal,
    /// `REPLACE` (with alpha): `color = saturate(tex)`.
    Replace,
    /// `BLEND`: `rgb = c·(1 − t) + k·t`, `a = a·at`.
    Blend { unit: usize },
    /// `ADD`: `rgb = c + t`, `a = a·at`.
    Add,
    /// A combiner (`combine::apply`), eight pixels at a time by `combine::combine_lanes`:
    /// the state is read per group of eight, never per pixel.
    Combine { unit: usize, state: CombineState },
    /// `rgb = min(rgb + secondary, 1)`.
    Secondary,
    /// Fog factor from the interpolated distance (varying `at`), per pixel.
    FogFactor { at: usize, mode: FogMode },
    /// Fog factor interpolated from the vertices (varying `at`), clamped.
    FogVertex { at: usize },
    /// `rgb = rgb·f + fog·(1 − f)`.
    FogBlend { color: Vec4 },
}

/// The fixed-function fragment shader of one draw.
pub(crate) struct FixedShader {
    layout: ShaderLayout,
    units: Vec<UnitRt>,
    lighting: Option<PreparedLighting>,
    /// Per-pixel lighting: the primary and secondary colours are `Scratch::prim` / `sec`.
    phong: bool,
    stages: Vec<Stage>,
}

impl FixedShader {
    /// Compiles the stage list. `lighting` is `Some` only for per-pixel lighting.
    pub fn new(
        layout: ShaderLayout,
        units: Vec<UnitRt>,
        lighting: Option<PreparedLighting>,
        fog: Option<FogState>,
    ) -> FixedShader {
        let mut stages = Vec::new();
        match (&lighting, layout.phong) {
            (Some(_), Some(at)) => stages.push(Stage::Lighting { at }),
            _ => stages.push(Stage::Primary),
        }
        for (k, u) in units.iter().enumerate() {
            let plane = 6 + 3 * (layout.units + 3 * k);
            let filter = LaneFilter::new(&u.sampler);
            if u.sampler.max_anisotropy > 1 {
                stages.push(Stage::SampleAniso {
                    unit: k,
                    plane,
                    filter,
                });
            } else {
                stages.push(Stage::Coords { unit: k, plane });
                stages.push(Stage::Lod { unit: k });
                stages.push(Stage::SampleLanes { unit: k, filter });
            }
            stages.push(match u.apply {
                ApplyMode::Modulate => Stage::Modulate,
                ApplyMode::Decal => Stage::Decal,
                ApplyMode::Replace => Stage::Replace,
                ApplyMode::Blend => Stage::Blend { unit: k },
                ApplyMode::Add => Stage::Add,
                ApplyMode::Combine(state) => Stage::Combine { unit: k, state },
            });
        }
        if layout.secondary.is_some() || (lighting.is_some() && layout.phong.is_some()) {
            stages.push(Stage::Secondary);
        }
        if let (Some(at), Some(fog)) = (layout.fog, fog) {
            stages.push(if fog.per_pixel {
                Stage::FogFactor { at, mode: fog.mode }
            } else {
                Stage::FogVertex { at }
            });
            stages.push(Stage::FogBlend { color: fog.color });
        }
        FixedShader {
            phong: lighting.is_some() && layout.phong.is_some(),
            layout,
            units,
            lighting,
            stages,
        }
    }

    /// Runs the stage list on one batch (inside the batch's dispatch).
    #[inline(always)]
    fn run<S: Simd>(
        &self,
        simd: S,
        span: &SpanCtx<'_>,
        s: &mut Scratch,
        mut probe: Option<&mut [(usize, Vec<ExplainStage>)]>,
    ) {
        let n = span.len;
        // Lane kernels work on whole groups of 8; the extra lanes hold stale but harmless
        // values and are never written back (the mask is false there).
        let np = n.next_multiple_of(LANES).min(SPAN);
        let block = match (self.layout.back, span.tri.front) {
            (Some(b), false) => b,
            _ => 0,
        };
        let phong = self.phong;
        for stage in &self.stages {
            match *stage {
                Stage::Primary => {
                    for c in 0..4 {
                        s.color[c][..n].copy_from_slice(&s.var[block + c][..n]);
                    }
                }
                Stage::Lighting { at } => self.lighting_stage(simd, at, span, np, s),
                Stage::Coords { unit, plane } => {
                    let size = self.units[unit].texture.base_size();
                    coords(&span.planes[plane..plane + 9], size, np, s);
                }
                Stage::Lod { unit } => lod_batch(simd, &self.units[unit].sampler, &mut s.tl[..np]),
                Stage::SampleLanes { unit, filter } => {
                    let u = &self.units[unit];
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
                    sample_batch(simd, &u.texture, filter, input, out);
                }
                Stage::SampleAniso {
                    unit,
                    plane,
                    filter,
                } => {
                    let u = &self.units[unit];
                    grad_coords(&span.planes[plane..plane + 9], np, s);
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
                    sample_grad_batch(simd, &u.texture, &u.sampler, filter, input, out);
                }
                Stage::Modulate => {
                    for c in 0..4 {
                        for (x, &t) in s.color[c][..n].iter_mut().zip(&s.tex[c][..n]) {
                            *x = saturate(*x * t);
                        }
                    }
                }
                Stage::Decal => {
                    let Scratch { color, tex, .. } = s;
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
                Stage::Replace => {
                    for c in 0..4 {
                        for (x, &t) in s.color[c][..n].iter_mut().zip(&s.tex[c][..n]) {
                            *x = saturate(t);
                        }
                    }
                }
                Stage::Blend { unit } => {
                    let k = self.units[unit].constant;
                    let Scratch { color, tex, .. } = s;
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
                Stage::Add => {
                    let Scratch { color, tex, .. } = s;
                    for c in 0..3 {
                        for (x, &t) in color[c][..n].iter_mut().zip(&tex[c][..n]) {
                            *x = saturate(*x + t);
                        }
                    }
                    for (x, &t) in color[3][..n].iter_mut().zip(&tex[3][..n]) {
                        *x = saturate(*x * t);
                    }
                }
                Stage::Combine { unit, state } => {
                    let Scratch {
                        color,
                        tex,
                        var,
                        prim,
                        ..
                    } = s;
                    let primary: &[[f32; SPAN]] = if phong {
                        &prim[..]
                    } else {
                        &var[block..block + 4]
                    };
                    let k = self.units[unit].constant;
                    let constant = [
                        simd.splat_f32x8(k.x),
                        simd.splat_f32x8(k.y),
                        simd.splat_f32x8(k.z),
                        simd.splat_f32x8(k.w),
                    ];
                    for g in (0..np).step_by(LANES) {
                        let src = [
                            load_lanes::<S, 4>(simd, &tex[..], g),
                            constant,
                            load_lanes::<S, 4>(simd, primary, g),
                            load_lanes::<S, 4>(simd, &color[..], g),
                        ];
                        let out = combine_lanes(simd, &state, &src);
                        for (ch, x) in out.iter().enumerate() {
                            x.store_slice(&mut color[ch][g..g + LANES]);
                        }
                    }
                }
                Stage::Secondary => {
                    let Scratch {
                        color, var, sec, ..
                    } = s;
                    let sec: &[[f32; SPAN]] = match self.layout.secondary {
                        Some(o) if !phong => &var[block + o..block + o + 3],
                        _ => &sec[..],
                    };
                    for c in 0..3 {
                        for (x, &y) in color[c][..n].iter_mut().zip(&sec[c][..n]) {
                            *x = (*x + y).min(1.0);
                        }
                    }
                }
                Stage::FogFactor { at, mode } => fog_factors(mode, &s.var[at][..n], &mut s.tl[..n]),
                Stage::FogVertex { at } => {
                    for (f, &d) in s.tl[..n].iter_mut().zip(&s.var[at][..n]) {
                        *f = d.clamp(0.0, 1.0);
                    }
                }
                Stage::FogBlend { color: fc } => {
                    // fog::apply_fog: c·f + fog·(1 − f) on RGB.
                    let Scratch { color, tl, .. } = s;
                    for c in 0..3 {
                        let k = fc[c];
                        for (x, &f) in color[c][..n].iter_mut().zip(&tl[..n]) {
                            *x = *x * f + k * (1.0 - f);
                        }
                    }
                }
            }
            if let Some(lanes) = probe.as_deref_mut() {
                for (lane, out) in lanes {
                    out.push(self.describe(stage, s, *lane, block));
                }
            }
        }
    }

    /// What `stage` did at lane `i` (a probed batch, [`crate::explain`]): read from the
    /// scratch arrays right after the stage ran.
    #[cold]
    fn describe(&self, stage: &Stage, s: &Scratch, i: usize, block: usize) -> ExplainStage {
        let color = |s: &Scratch| color_at(&s.color, i);
        let apply = |mode: &str| {
            ExplainStage::new(format!("apply_{mode}"))
                .input("texture", color_at(&s.tex, i))
                .output("color", color(s))
        };
        match *stage {
            Stage::Primary => ExplainStage::new("primary_color")
                .input("back_face_colors", block != 0)
                .output("color", color(s)),
            Stage::Lighting { at } => ExplainStage::new("lighting")
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
                ),
            Stage::Coords { unit, .. } => ExplainStage::new(format!("unit{unit}_coords"))
                .output("uv", Value::Floats(vec![s.tu[i], s.tv[i]]))
                .output("rho_squared", s.tl[i]),
            Stage::Lod { unit } => {
                let u = &self.units[unit];
                ExplainStage::new(format!("unit{unit}_lod"))
                    .input("lod_bias", u.sampler.lod_bias)
                    .input(
                        "lod_range",
                        Value::Floats(vec![u.sampler.min_lod, u.sampler.max_lod]),
                    )
                    .output("lambda", s.tl[i])
            }
            Stage::SampleLanes { unit, .. } => {
                let u = &self.units[unit];
                let uv = glam::Vec2::new(s.tu[i], s.tv[i]);
                let sample = u.texture.taps(&u.sampler, uv, s.tl[i]);
                self.sampled(unit, uv, sample, s, i)
            }
            Stage::SampleAniso { unit, .. } => {
                let u = &self.units[unit];
                let uv = glam::Vec2::new(s.tu[i], s.tv[i]);
                let g = |k: usize| s.grad[k][i];
                let (dx, dy) = (glam::Vec2::new(g(0), g(1)), glam::Vec2::new(g(2), g(3)));
                let sample = u.texture.grad_taps(&u.sampler, uv, dx, dy);
                self.sampled(unit, uv, sample, s, i)
                    .input("derivatives", Value::Floats(vec![g(0), g(1), g(2), g(3)]))
            }
            Stage::Modulate => apply("modulate"),
            Stage::Decal => apply("decal"),
            Stage::Replace => apply("replace"),
            Stage::Blend { .. } => apply("blend"),
            Stage::Add => apply("add"),
            Stage::Combine { unit, state } => ExplainStage::new(format!("unit{unit}_combine"))
                .input("state", format!("{state:?}"))
                .input("texture", color_at(&s.tex, i))
                .output("color", color(s)),
            Stage::Secondary => ExplainStage::new("secondary_color").output("color", color(s)),
            Stage::FogFactor { at, mode } => ExplainStage::new("fog_factor")
                .input("distance", s.var[at][i])
                .input("mode", format!("{mode:?}"))
                .output("factor", s.tl[i]),
            Stage::FogVertex { at } => ExplainStage::new("fog_factor")
                .input("vertex_factor", s.var[at][i])
                .output("factor", s.tl[i]),
            Stage::FogBlend { color: fc } => ExplainStage::new("fog")
                .input("factor", s.tl[i])
                .input("fog_color", fc)
                .output("color", color(s)),
        }
    }

    /// A sampling stage's record: λ, the taps and the kernel's colour (and the scalar
    /// filter's, should the two ever differ).
    fn sampled(
        &self,
        unit: usize,
        uv: glam::Vec2,
        sample: crate::texture::Sample,
        s: &Scratch,
        i: usize,
    ) -> ExplainStage {
        let u = &self.units[unit];
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

    /// Per-pixel lighting (`light::PreparedLighting::shade`), eight pixels at a time
    /// (`shade_lanes`: the scalar bits in every lane). Dead lanes are lit too, harmlessly:
    /// they are never stored.
    #[inline(always)]
    fn lighting_stage<S: Simd>(
        &self,
        simd: S,
        o: usize,
        span: &SpanCtx<'_>,
        np: usize,
        s: &mut Scratch,
    ) {
        let Some(pl) = &self.lighting else { return };
        let n = span.len;
        let front = span.tri.front;
        let Scratch {
            var,
            prim,
            sec,
            color,
            ..
        } = s;
        for g in (0..np).step_by(LANES) {
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
            color[c][..n].copy_from_slice(&prim[c][..n]);
        }
    }
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

impl FragmentShader for FixedShader {
    fn uses_varyings(&self) -> bool {
        true
    }

    fn skip_varyings(&self) -> std::ops::Range<usize> {
        // The units' (s, t, q) planes are evaluated by the coordinate stages themselves
        // (they need the derivatives too), so their interpolated values are never read.
        let o = self.layout.units;
        o..o + 3 * self.units.len()
    }

    fn shade(&self, level: Level, span: &SpanCtx<'_>, s: &mut Scratch) {
        crate::simd::dispatch_shader!(level, simd => self.run(simd, span, s, None));
    }

    fn shade_probed(
        &self,
        level: Level,
        span: &SpanCtx<'_>,
        s: &mut Scratch,
        out: &mut [(usize, Vec<ExplainStage>)],
    ) {
        crate::simd::dispatch_shader!(level, simd => self.run(simd, span, s, Some(&mut *out)));
    }
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
fn coords(p: &[f32], size: Vec2, n: usize, s: &mut Scratch) {
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
