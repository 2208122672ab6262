//! The fixed-function draw's inputs: texture units and texgen, the state bundle
//! [`FixedFunction`](crate::FixedFunction), the transforms and the object-space mesh, and their validation.

use std::sync::Arc;

use glam::{Mat4, Vec2, Vec3, Vec4};

use crate::base::error::Error;
use crate::shading::combine::ApplyMode;
use crate::shading::fog::FogState;
use crate::shading::light::LightingState;
use crate::texture::{Sampler, Texture};
use crate::vertex::{Indices, MAX_UV_SETS};

/// Number of texture units.
pub const MAX_TEXTURE_UNITS: usize = 8;

/// How a unit's texture coordinates are produced before the texture matrix.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
#[cfg_attr(feature = "trace", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "trace", serde(rename_all = "snake_case"))]
pub enum TexGen {
    /// From the unit's UV set: `(u, v, 0, 1)`.
    #[default]
    None,
    /// `(s, t, r, q)` = planes · object-space position.
    ObjectLinear {
        /// Planes for s, t, r, q.
        planes: [Vec4; 4],
    },
    /// `(s, t, r, q)` = planes · eye-space position (planes given in eye space). With a
    /// light's `bias · clip_from_view · view_from_eye` as rows this is a projected texture.
    EyeLinear {
        /// Planes for s, t, r, q.
        planes: [Vec4; 4],
    },
    /// GL sphere map from the eye-space reflection vector.
    SphereMap,
}

/// One texture unit: texture, sampler, coordinates and how its colour combines.
#[derive(Clone, Debug)]
pub struct TextureUnit {
    /// The texture (shared).
    pub texture: Arc<Texture>,
    /// Filtering and wrapping.
    pub sampler: Sampler,
    /// Texture environment.
    pub apply: ApplyMode,
    /// The unit's constant colour (blend mode, combine `Constant`).
    pub constant: Vec4,
    /// Which UV set feeds the unit when `texgen` is `None`.
    pub uv_set: usize,
    /// Coordinate generation.
    pub texgen: TexGen,
    /// Texture matrix applied to `(s, t, r, q)`; the unit samples at `(s/q, t/q)`.
    pub matrix: Mat4,
}

impl TextureUnit {
    /// A unit reading UV set 0, modulating, with `sampler`.
    pub fn new(texture: Arc<Texture>, sampler: Sampler) -> TextureUnit {
        TextureUnit {
            texture,
            sampler,
            apply: ApplyMode::Modulate,
            constant: Vec4::ZERO,
            uv_set: 0,
            texgen: TexGen::None,
            matrix: Mat4::IDENTITY,
        }
    }
}

/// Lighting, texturing and fog for a draw.
#[derive(Clone, Debug, Default)]
pub struct FixedFunction {
    /// Lighting (eye-space lights). `None` or no lights: the primary colour is the vertex
    /// colour (white without colours), as the book's renderer does.
    pub lighting: Option<LightingState>,
    /// Evaluate the lighting equation per pixel (Phong) instead of per vertex (Gouraud).
    pub per_pixel_lighting: bool,
    /// Fog.
    pub fog: Option<FogState>,
    /// Texture units, applied in order (at most [`MAX_TEXTURE_UNITS`]).
    pub units: Vec<TextureUnit>,
}

/// Model-view and projection for a fixed-function draw.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "trace", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "trace", serde(deny_unknown_fields))]
pub struct Transforms {
    /// Model → eye.
    pub view_from_model: Mat4,
    /// Eye → clip (depth 0..1).
    pub clip_from_view: Mat4,
}

/// Object-space vertex data (all slices the same length as `positions`).
#[derive(Clone, Copy, Debug, Default)]
pub struct MeshInput<'a> {
    /// Positions.
    pub positions: &'a [Vec3],
    /// Normals (required for lighting and sphere maps).
    pub normals: Option<&'a [Vec3]>,
    /// Vertex colours (default white).
    pub colors: Option<&'a [Vec4]>,
    /// UV sets.
    pub uvs: &'a [&'a [Vec2]],
}

/// What [`Context::draw_fixed`](crate::Context::draw_fixed) checks before anything else (the pipeline state is checked
/// by the draw itself): attribute lengths, UV sets and texture units, normals where lighting
/// or sphere maps need them, indices and finite transforms. Another [`crate::DrawTarget`]
/// calls it to refuse exactly what the CPU context refuses.
///
/// # Errors
/// [`Error::BufferLength`], [`Error::TooMany`], [`Error::IndexOutOfRange`] or
/// [`Error::InvalidState`], as [`Context::draw_fixed`](crate::Context::draw_fixed).
pub fn check_fixed_input(
    ff: &FixedFunction,
    transforms: &Transforms,
    mesh: &MeshInput<'_>,
    indices: Indices<'_>,
) -> Result<(), Error> {
    mesh.validate(ff)?;
    indices.validate(mesh.positions.len())?;
    if !transforms.view_from_model.is_finite() || !transforms.clip_from_view.is_finite() {
        return Err(Error::InvalidState("non-finite transform".into()));
    }
    Ok(())
}

impl MeshInput<'_> {
    pub(crate) fn validate(&self, ff: &FixedFunction) -> Result<(), Error> {
        let n = self.positions.len();
        let check = |what: &'static str, len: usize| {
            if len == n {
                Ok(())
            } else {
                Err(Error::BufferLength {
                    what,
                    expected: n,
                    actual: len,
                })
            }
        };
        if let Some(x) = self.normals {
            check("normals", x.len())?;
        }
        if let Some(x) = self.colors {
            check("colors", x.len())?;
        }
        if self.uvs.len() > MAX_UV_SETS {
            return Err(Error::TooMany {
                what: "uv sets",
                max: MAX_UV_SETS,
                actual: self.uvs.len(),
            });
        }
        for uv in self.uvs {
            check("uvs", uv.len())?;
        }
        if ff.units.len() > MAX_TEXTURE_UNITS {
            return Err(Error::TooMany {
                what: "texture units",
                max: MAX_TEXTURE_UNITS,
                actual: ff.units.len(),
            });
        }
        let lit = ff.lighting.as_ref().is_some_and(LightingState::is_lit);
        let sphere = ff.units.iter().any(|u| u.texgen == TexGen::SphereMap);
        if (lit || sphere) && self.normals.is_none() {
            return Err(Error::InvalidState(
                "lighting and sphere maps need normals".into(),
            ));
        }
        for (i, u) in ff.units.iter().enumerate() {
            if u.texgen == TexGen::None && u.uv_set >= self.uvs.len() {
                return Err(Error::InvalidState(format!(
                    "texture unit {i} reads uv set {} but the mesh has {}",
                    u.uv_set,
                    self.uvs.len()
                )));
            }
            if !u.matrix.is_finite() || !u.constant.is_finite() {
                return Err(Error::InvalidState(format!(
                    "texture unit {i}: non-finite matrix or constant"
                )));
            }
        }
        Ok(())
    }
}
