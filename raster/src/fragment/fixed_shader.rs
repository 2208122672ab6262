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

use fearless_simd::{Level, Simd};

use crate::base::vec_lanes::LANES;
use crate::fragment::fixed_stages::{
    with_stage, Add, Batch, Blend, Combine, Coords, Decal, FogBlend, FogFactor, FogVertex,
    Lighting, Lod, Modulate, Primary, Replace, SampleAniso, SampleLanes, Secondary, ShaderData,
    ShaderLayout, Stage, StageKind, UnitRt,
};
use crate::fragment::scratch::{
    FragmentShader, FusedFog, FusedUnit, Scratch, SpanCtx, TextureFusion, SPAN,
};
use crate::history::Stage as ExplainStage;
use crate::shading::combine::ApplyMode;
use crate::shading::fog::{FogMode, FogState};
use crate::shading::light::PreparedLighting;
use crate::texture::lanes::LaneFilter;

/// The fixed-function fragment shader of one draw.
pub(crate) struct FixedShader {
    data: ShaderData,
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
            (Some(_), Some(at)) => stages.push(Stage::Lighting(Lighting { at })),
            _ => stages.push(Stage::Primary(Primary)),
        }
        for (k, u) in units.iter().enumerate() {
            let plane = 6 + 3 * (layout.units + 3 * k);
            let filter = LaneFilter::new(&u.sampler);
            if u.sampler.max_anisotropy > 1 {
                stages.push(Stage::SampleAniso(SampleAniso {
                    unit: k,
                    plane,
                    filter,
                }));
            } else {
                stages.push(Stage::Coords(Coords { unit: k, plane }));
                stages.push(Stage::Lod(Lod { unit: k }));
                stages.push(Stage::SampleLanes(SampleLanes { unit: k, filter }));
            }
            stages.push(match u.apply {
                ApplyMode::Modulate => Stage::Modulate(Modulate {}),
                ApplyMode::Decal => Stage::Decal(Decal {}),
                ApplyMode::Replace => Stage::Replace(Replace {}),
                ApplyMode::Blend => Stage::Blend(Blend { unit: k }),
                ApplyMode::Add => Stage::Add(Add {}),
                ApplyMode::Combine(state) => Stage::Combine(Combine { unit: k, state }),
            });
        }
        let phong = lighting.is_some() && layout.phong.is_some();
        if layout.secondary.is_some() || phong {
            stages.push(Stage::Secondary(Secondary));
        }
        if let (Some(at), Some(fog)) = (layout.fog, fog) {
            stages.push(if fog.per_pixel {
                Stage::FogFactor(FogFactor { at, mode: fog.mode })
            } else {
                Stage::FogVertex(FogVertex { at })
            });
            stages.push(Stage::FogBlend(FogBlend { color: fog.color }));
        }
        FixedShader {
            data: ShaderData {
                layout,
                units,
                lighting,
                phong,
            },
            stages,
        }
    }

    /// Runs the stage list on one batch (inside the batch's dispatch); a probed batch
    /// records each stage at its probed lanes after the stage ran.
    #[inline(always)]
    fn run<S: Simd>(
        &self,
        simd: S,
        span: &SpanCtx<'_>,
        s: &mut Scratch,
        mut probe: Option<&mut [(usize, Vec<ExplainStage>)]>,
    ) {
        let n = span.len;
        let b = Batch {
            span,
            n,
            // Lane kernels work on whole groups of 8 (see `Batch::np`).
            np: n.next_multiple_of(LANES).min(SPAN),
            block: match (self.data.layout.back, span.tri.front) {
                (Some(b), false) => b,
                _ => 0,
            },
        };
        for stage in &self.stages {
            with_stage!(stage, k => k.run(&self.data, simd, &b, s));
            if let Some(lanes) = probe.as_deref_mut() {
                for (lane, out) in lanes {
                    out.push(with_stage!(stage, k => k.describe(&self.data, &b, s, *lane)));
                }
            }
        }
    }
}

impl FragmentShader for FixedShader {
    fn uses_varyings(&self) -> bool {
        true
    }

    /// The front colour block, modulated or replaced by one unit (not anisotropic) or
    /// neither, plus the interpolated secondary colour or not, then vertex fog, per-pixel
    /// linear fog or none: the stage lists `primary[, coords, lod, sample, modulate |
    /// replace][, secondary][, fog_vertex | fog_factor (linear), fog_blend]`.
    fn fused_texture(&self) -> Option<TextureFusion> {
        let d = &self.data;
        if d.layout.back.is_some() || d.phong || d.lighting.is_some() {
            return None;
        }
        let (unit, rest) = match self.stages.as_slice() {
            [Stage::Primary(_), Stage::Coords(c), Stage::Lod(_), Stage::SampleLanes(sl), apply, rest @ ..]
                if d.units.len() == 1
                    && matches!(apply, Stage::Modulate(_) | Stage::Replace(_)) =>
            {
                let u = &d.units[0];
                let unit = FusedUnit {
                    texture: std::sync::Arc::clone(&u.texture),
                    sampler: u.sampler,
                    filter: sl.filter.in_format(&u.texture),
                    uv_plane: c.plane,
                    replace: matches!(apply, Stage::Replace(_)),
                };
                (Some(unit), rest)
            }
            [Stage::Primary(_), rest @ ..] if d.units.is_empty() => (None, rest),
            _ => return None,
        };
        let (secondary, rest) = match rest {
            [Stage::Secondary(_), rest @ ..] => (Some(d.layout.secondary?), rest),
            _ => (None, rest),
        };
        let fog = match rest {
            [] => None,
            [Stage::FogVertex(fv), Stage::FogBlend(fb)] => Some(FusedFog {
                at: fv.at,
                linear: None,
                color: fb.color,
            }),
            [Stage::FogFactor(ff), Stage::FogBlend(fb)] => match ff.mode {
                FogMode::Linear { start, end } => Some(FusedFog {
                    at: ff.at,
                    linear: Some((start, end)),
                    color: fb.color,
                }),
                _ => return None,
            },
            _ => return None,
        };
        Some(TextureFusion {
            unit,
            secondary,
            fog,
        })
    }

    fn skip_varyings(&self) -> std::ops::Range<usize> {
        // The units' (s, t, q) planes are evaluated by the coordinate stages themselves
        // (they need the derivatives too), so their interpolated values are never read.
        let o = self.data.layout.units;
        o..o + 3 * self.data.units.len()
    }

    fn shade(&self, level: Level, span: &SpanCtx<'_>, s: &mut Scratch) {
        crate::base::simd::dispatch_shader!(level, simd => self.run(simd, span, s, None));
    }

    fn shade_probed(
        &self,
        level: Level,
        span: &SpanCtx<'_>,
        s: &mut Scratch,
        out: &mut [(usize, Vec<ExplainStage>)],
    ) {
        crate::base::simd::dispatch_shader!(level, simd => self.run(simd, span, s, Some(&mut *out)));
    }
}
