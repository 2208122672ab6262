//! Effects of a scene file: texture stages, samplers and the effect kinds, with names of
//! textures, lights, cameras and nodes resolved.

use std::sync::Arc;

use glam::Vec4;
use plumb_raster::combine::{ApplyMode, CombineState};
use plumb_raster::texture::{Sampler, Texture};

use super::ctx::{v3, v4, Ctx};
use super::doc::*;
use crate::graph::NodeId;
use crate::io::error::IoError;
use crate::values::camera::Camera;
use crate::values::effect::{Effect, PbrSurface, TexCoords, TextureStage};
use crate::values::light::LightId;

fn unique_node(ctx: &Ctx, context: &str, name: &str) -> Result<NodeId, IoError> {
    match ctx.names.get(name).map(Vec::as_slice) {
        Some([one]) => Ok(*one),
        Some([]) | None => Err(ctx.invalid(context, format!("no node named '{name}'"))),
        Some(many) => Err(ctx.invalid(
            context,
            format!(
                "{} nodes are named '{name}'; a referenced name must be unique",
                many.len()
            ),
        )),
    }
}

fn texture(ctx: &Ctx, context: &str, name: &str) -> Result<Arc<Texture>, IoError> {
    ctx.textures
        .get(name)
        .cloned()
        .ok_or_else(|| ctx.invalid(context, format!("unknown texture '{name}'")))
}

fn light_id(ctx: &Ctx, context: &str, name: &str) -> Result<LightId, IoError> {
    ctx.lights
        .get(name)
        .copied()
        .ok_or_else(|| ctx.invalid(context, format!("unknown light '{name}'")))
}

fn projector<'c>(ctx: &'c Ctx, context: &str, name: &str) -> Result<&'c Camera, IoError> {
    ctx.cameras
        .get(name)
        .map(|(_, c)| c)
        .ok_or_else(|| ctx.invalid(context, format!("unknown camera '{name}'")))
}

fn apply(a: ApplyDoc) -> ApplyMode {
    match a {
        ApplyDoc::Replace => ApplyMode::Replace,
        ApplyDoc::Decal => ApplyMode::Decal,
        ApplyDoc::Modulate => ApplyMode::Modulate,
        ApplyDoc::Blend => ApplyMode::Blend,
        ApplyDoc::Add => ApplyMode::Add,
        ApplyDoc::CombineModulate => ApplyMode::Combine(CombineState::MODULATE),
        ApplyDoc::CombineReplaceRgb => ApplyMode::Combine(CombineState::REPLACE_RGB),
        ApplyDoc::CombineSoftAdd => ApplyMode::Combine(CombineState::SOFT_ADD),
        ApplyDoc::CombineDot3 => ApplyMode::Combine(CombineState::DOT3),
    }
}

fn sampler(s: &SamplerDoc) -> Sampler {
    Sampler {
        mag: s.mag.into(),
        min: s.min.into(),
        wrap_u: s.wrap_u.into(),
        wrap_v: s.wrap_v.into(),
        border: v4(&s.border),
        lod_bias: s.lod_bias.get(),
        min_lod: s.min_lod.get(),
        max_lod: s.max_lod.get(),
        max_anisotropy: s.anisotropy,
    }
}

/// One to four texgen planes (s, t, r, q), the rest GL's defaults.
fn linear_planes(
    ctx: &Ctx,
    context: &str,
    what: &str,
    planes: &[Real4],
) -> Result<[Vec4; 4], IoError> {
    if planes.is_empty() || planes.len() > 4 {
        return Err(ctx.invalid(
            context,
            format!(
                "\"{what}\" takes 1 to 4 planes (s, t, r, q), not {}",
                planes.len()
            ),
        ));
    }
    let planes: Vec<Vec4> = planes.iter().map(v4).collect();
    Ok(TexCoords::linear_planes(&planes))
}

fn stage(ctx: &Ctx, context: &str, s: &StageDoc) -> Result<TextureStage, IoError> {
    let coords = match &s.coords {
        CoordsDoc::Uv(i) => TexCoords::Uv(*i),
        CoordsDoc::SphereMap => TexCoords::SphereMap,
        CoordsDoc::Projector(name) => TexCoords::projector(projector(ctx, context, name)?),
        CoordsDoc::ObjectLinear(planes) => TexCoords::ObjectLinear {
            planes: linear_planes(ctx, context, "object_linear", planes)?,
        },
        CoordsDoc::EyeLinear(planes) => TexCoords::EyeLinear {
            planes: linear_planes(ctx, context, "eye_linear", planes)?,
        },
        CoordsDoc::Projected(m) => TexCoords::Projected {
            tex_from_world: glam::Mat4::from_cols_array(&m.map(|r| r.get())),
        },
    };
    let apply = match (&s.combine, s.apply) {
        (None, a) => apply(a.unwrap_or_default()),
        (Some(c), None) => ApplyMode::Combine(c.into()),
        (Some(_), Some(_)) => {
            return Err(ctx.invalid(
                context,
                format!(
                    "stage '{}': \"combine\" replaces \"apply\"; give one of them",
                    s.texture
                ),
            ))
        }
    };
    Ok(TextureStage {
        texture: texture(ctx, context, &s.texture)?,
        sampler: sampler(&s.sampler),
        apply,
        constant: v4(&s.constant),
        coords,
        matrix: s.matrix.map_or(glam::Mat3::IDENTITY, |m| {
            glam::Mat3::from_cols_array(&m.map(|r| r.get()))
        }),
    })
}

pub(super) fn effect(ctx: &Ctx, context: &str, e: &EffectDoc) -> Result<Effect, IoError> {
    Ok(match e {
        EffectDoc::Textures(stages) => Effect::Textures(
            stages
                .iter()
                .map(|s| stage(ctx, context, s))
                .collect::<Result<_, _>>()?,
        ),
        EffectDoc::VertexColors(c) => Effect::VertexColors(c.iter().map(v4).collect()),
        EffectDoc::GlossMap(s) => Effect::GlossMap(stage(ctx, context, s)?),
        EffectDoc::BumpMap(b) => Effect::BumpMap {
            base: stage(ctx, context, &b.base)?,
            normal_map: stage(ctx, context, &b.normal_map)?,
            light: light_id(ctx, context, &b.light)?,
            extra: b
                .extra
                .iter()
                .map(|s| stage(ctx, context, s))
                .collect::<Result<_, _>>()?,
        },
        EffectDoc::DarkMap(d) => Effect::dark_map(
            texture(ctx, context, &d.primary)?,
            texture(ctx, context, &d.secondary)?,
            sampler(&d.sampler),
        ),
        EffectDoc::LightMap(d) => Effect::light_map(
            texture(ctx, context, &d.primary)?,
            texture(ctx, context, &d.secondary)?,
            sampler(&d.sampler),
            d.hard,
        ),
        EffectDoc::EnvironmentMap(m) => {
            Effect::environment_map(texture(ctx, context, &m.texture)?, apply(m.apply))
        }
        EffectDoc::ProjectedTexture(p) => Effect::projected_texture(
            texture(ctx, context, &p.texture)?,
            projector(ctx, context, &p.projector)?,
            apply(p.apply),
            v4(&p.border),
        ),
        EffectDoc::PlanarShadow(s) => Effect::PlanarShadow {
            planes: s
                .planes
                .iter()
                .map(|n| unique_node(ctx, context, n))
                .collect::<Result<_, _>>()?,
            light: light_id(ctx, context, &s.light)?,
            color: v4(&s.color),
        },
        EffectDoc::Pbr(p) => {
            let tex = |name: &str, d: &Option<StageDoc>| -> Result<Option<TextureStage>, IoError> {
                let Some(d) = d else { return Ok(None) };
                let st = stage(ctx, context, d)?;
                if !matches!(st.coords, TexCoords::Uv(_)) {
                    return Err(ctx.invalid(
                        context,
                        format!("pbr {name} must read a uv set (coords {{\"uv\": k}})"),
                    ));
                }
                Ok(Some(st))
            };
            Effect::Pbr(Arc::new(PbrSurface {
                base_color: v4(&p.base_color),
                metallic: p.metallic.get(),
                roughness: p.roughness.get(),
                emissive: v3(&p.emissive),
                normal_scale: p.normal_scale.get(),
                occlusion_strength: p.occlusion_strength.get(),
                base_color_texture: tex("base_color_texture", &p.base_color_texture)?,
                metallic_roughness_texture: tex(
                    "metallic_roughness_texture",
                    &p.metallic_roughness_texture,
                )?,
                normal_texture: tex("normal_texture", &p.normal_texture)?,
                occlusion_texture: tex("occlusion_texture", &p.occlusion_texture)?,
                emissive_texture: tex("emissive_texture", &p.emissive_texture)?,
                opaque: p.opaque,
                double_sided: p.double_sided,
            }))
        }
        EffectDoc::PlanarReflection(r) => Effect::PlanarReflection {
            planes: r
                .planes
                .iter()
                .map(|m| Ok((unique_node(ctx, context, &m.node)?, m.reflectance.get())))
                .collect::<Result<_, IoError>>()?,
        },
    })
}
