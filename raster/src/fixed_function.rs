//! The fixed-function path: object-space meshes in, OpenGL 1.x / Wild Magic 3 pixels out.
//!
//! [`Context::draw_fixed`] runs, per draw:
//! 1. **Vertex stage** (once per vertex, in parallel): `pos_eye = view_from_model · p`,
//!    `clip = clip_from_view · pos_eye`, eye-space normal by the inverse-transpose (so normals
//!    stay perpendicular and are renormalised under non-uniform scale); per-vertex (Gouraud)
//!    lighting with [`PreparedLighting`], front and back colours when two-sided; texture
//!    coordinates per unit from a UV set or texgen (object-linear, eye-linear, sphere map),
//!    transformed by the unit's texture matrix into `(s, t, q)`; the fog factor (per vertex)
//!    or the fog distance (per pixel).
//! 2. The core rasteriser (clip, set-up, tiles).
//! 3. **Fragment shader** (`FixedShader`): primary colour (interpolated, or lit per pixel
//!    for Phong shading), then each texture unit in order — `(s/q, t/q)` with its exact
//!    analytic screen-space derivatives for the LOD — through the unit's apply/combine mode,
//!    then the separate specular colour, then fog `c = f·c + (1 − f)·fog`.
//!
//! Lights, texgen eye planes and the fog distance are all in **eye space**: the caller
//! (e.g. the scene graph) transforms world-space lights by `view_from_world`.

use std::sync::Arc;

use glam::{Mat3, Mat4, Vec2, Vec3, Vec4};
use rayon::prelude::*;

use crate::combine::ApplyMode;
use crate::fixed_shader::{FixedShader, ShaderLayout, UnitRt};
use crate::fog::{fog_factor, FogState};
use crate::light::{LightingState, PreparedLighting};
use crate::math;
use crate::texture::{Sampler, Texture};
use crate::vertex::{ClipVertex, Indices, Topology, MAX_UV_SETS, MAX_VARYINGS};
use crate::{Context, DrawStats, Error, PipelineState};

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

/// What [`Context::draw_fixed`] checks before anything else (the pipeline state is checked
/// by the draw itself): attribute lengths, UV sets and texture units, normals where lighting
/// or sphere maps need them, indices and finite transforms. Another [`crate::DrawTarget`]
/// calls it to refuse exactly what the CPU context refuses.
///
/// # Errors
/// [`Error::BufferLength`], [`Error::TooMany`], [`Error::IndexOutOfRange`] or
/// [`Error::InvalidState`], as [`Context::draw_fixed`].
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
    fn validate(&self, ff: &FixedFunction) -> Result<(), Error> {
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

/// Where each value sits in a fixed-function vertex's varyings.
#[derive(Clone, Copy, Debug)]
struct Layout {
    /// Colour block (flat-shaded as a whole): primary RGBA, then secondary RGB if separate
    /// specular, then the back-face copies if two-sided vertex lighting.
    colors: usize,
    secondary: Option<usize>,
    back: Option<usize>,
    /// `(s, t, q)` per unit.
    units: usize,
    /// Fog factor (per vertex) or distance (per pixel).
    fog: Option<usize>,
    /// Eye position and eye normal (Phong).
    phong: Option<usize>,
    count: usize,
}

impl Layout {
    fn new(ff: &FixedFunction) -> Layout {
        let lit = ff.lighting.as_ref().is_some_and(LightingState::is_lit);
        let l = ff.lighting.unwrap_or_default();
        let vertex_lit = lit && !ff.per_pixel_lighting;
        let mut n = 4;
        let secondary = (vertex_lit && l.separate_specular).then(|| {
            n += 3;
            n - 3
        });
        let per_face = n;
        let back = (vertex_lit && l.two_sided).then(|| {
            n += per_face;
            n - per_face
        });
        let colors = n;
        let units = n;
        n += 3 * ff.units.len();
        let fog = ff.fog.map(|_| {
            n += 1;
            n - 1
        });
        let phong = (lit && ff.per_pixel_lighting).then(|| {
            n += 6;
            n - 6
        });
        Layout {
            colors,
            secondary,
            back,
            units,
            fog,
            phong,
            count: n,
        }
    }
}

/// Per-vertex work shared by all vertices of a draw.
struct VertexStage<'a> {
    mesh: &'a MeshInput<'a>,
    ff: &'a FixedFunction,
    layout: Layout,
    clip_from_model: Mat4,
    view_from_model: Mat4,
    normal_matrix: Mat3,
    lighting: Option<PreparedLighting>,
}

impl VertexStage<'_> {
    fn run(&self, i: usize, out: &mut ClipVertex) {
        let m = self.mesh;
        let p = m.positions[i];
        let pos_eye = self.view_from_model.transform_point3(p);
        out.pos = self.clip_from_model * p.extend(1.0);
        let color = m.colors.map_or(Vec4::ONE, |c| c[i]);
        let normal = m
            .normals
            .map(|n| (self.normal_matrix * n[i]).normalize_or_zero());
        let v = &mut out.var;
        let l = &self.layout;
        match (&self.lighting, l.phong) {
            (Some(pl), None) => {
                let n = normal.unwrap_or(Vec3::Z);
                let front = pl.shade(pos_eye, n, color, true);
                v[..4].copy_from_slice(&front.primary.to_array());
                if let Some(o) = l.secondary {
                    v[o..o + 3].copy_from_slice(&front.secondary.to_array());
                }
                if let Some(b) = l.back {
                    let back = pl.shade(pos_eye, n, color, false);
                    v[b..b + 4].copy_from_slice(&back.primary.to_array());
                    if let Some(o) = l.secondary {
                        v[b + o..b + o + 3].copy_from_slice(&back.secondary.to_array());
                    }
                }
            }
            _ => v[..4].copy_from_slice(&color.to_array()),
        }
        for (k, u) in self.ff.units.iter().enumerate() {
            let stq = match u.texgen {
                TexGen::None => {
                    let uv = m.uvs[u.uv_set][i];
                    Vec4::new(uv.x, uv.y, 0.0, 1.0)
                }
                TexGen::ObjectLinear { planes } => {
                    let h = p.extend(1.0);
                    Vec4::new(
                        math::dot4(planes[0], h),
                        math::dot4(planes[1], h),
                        math::dot4(planes[2], h),
                        math::dot4(planes[3], h),
                    )
                }
                TexGen::EyeLinear { planes } => {
                    let h = pos_eye.extend(1.0);
                    Vec4::new(
                        math::dot4(planes[0], h),
                        math::dot4(planes[1], h),
                        math::dot4(planes[2], h),
                        math::dot4(planes[3], h),
                    )
                }
                TexGen::SphereMap => {
                    let u_eye = pos_eye.normalize_or_zero();
                    let n = normal.unwrap_or(Vec3::Z);
                    let r = u_eye - n * (2.0 * n.dot(u_eye));
                    let mm = 2.0 * (r.x * r.x + r.y * r.y + (r.z + 1.0) * (r.z + 1.0)).sqrt();
                    let mm = if mm > 0.0 { mm } else { 1.0 };
                    Vec4::new(r.x / mm + 0.5, r.y / mm + 0.5, 0.0, 1.0)
                }
            };
            let t = u.matrix * stq;
            let o = l.units + 3 * k;
            v[o] = t.x;
            v[o + 1] = t.y;
            v[o + 2] = t.w;
        }
        if let (Some(o), Some(fog)) = (l.fog, &self.ff.fog) {
            let d = fog.distance.distance(pos_eye);
            v[o] = if fog.per_pixel {
                d
            } else {
                fog_factor(&fog.mode, d)
            };
        }
        if let Some(o) = l.phong {
            v[o..o + 3].copy_from_slice(&pos_eye.to_array());
            v[o + 3..o + 6].copy_from_slice(&normal.unwrap_or(Vec3::Z).to_array());
            v[..4].copy_from_slice(&color.to_array());
        }
    }
}

impl Context {
    /// Draws an object-space mesh through the fixed-function pipeline (module docs).
    ///
    /// # Errors
    /// Before anything is drawn: attribute arrays of the wrong length, indices out of
    /// range, more than [`MAX_TEXTURE_UNITS`] units, lighting without normals, a unit
    /// reading a missing UV set, non-finite transforms, or invalid pipeline state.
    pub fn draw_fixed(
        &mut self,
        state: &PipelineState,
        ff: &FixedFunction,
        transforms: &Transforms,
        mesh: &MeshInput<'_>,
        indices: Indices<'_>,
        topology: Topology,
    ) -> Result<DrawStats, Error> {
        check_fixed_input(ff, transforms, mesh, indices)?;
        let layout = Layout::new(ff);
        debug_assert!(layout.count <= MAX_VARYINGS);
        let lit = ff
            .lighting
            .as_ref()
            .filter(|l| l.is_lit())
            .map(PreparedLighting::new);
        let stage = VertexStage {
            mesh,
            ff,
            layout,
            clip_from_model: transforms.clip_from_view * transforms.view_from_model,
            view_from_model: transforms.view_from_model,
            normal_matrix: Mat3::from_mat4(transforms.view_from_model)
                .inverse()
                .transpose(),
            lighting: lit,
        };
        // Vertex stage once per vertex (shared vertices are not re-lit), in parallel, into
        // a packed array of `4 + count` floats per vertex (a `ClipVertex` holds 52 floats:
        // for a million-vertex mesh, 200 MB to fill and stream instead of ~50).
        let n = mesh.positions.len();
        let stride = 4 + layout.count;
        const BLOCK: usize = 4096;
        let mut verts = vec![0.0f32; n * stride];
        let block = |(c, chunk): (usize, &mut [f32])| {
            let mut v = ClipVertex::default();
            for (j, out) in chunk.chunks_exact_mut(stride).enumerate() {
                stage.run(c * BLOCK + j, &mut v);
                out[..4].copy_from_slice(&v.pos.to_array());
                out[4..].copy_from_slice(&v.var[..layout.count]);
            }
        };
        // One block runs on the calling thread: a small mesh (a scene of many small draws)
        // must not pay a thread-pool round trip per draw. The blocks are the same either way.
        if n > BLOCK {
            self.pool().install(|| {
                verts
                    .par_chunks_mut(BLOCK * stride)
                    .enumerate()
                    .for_each(block)
            });
        } else {
            verts.chunks_mut(BLOCK * stride).enumerate().for_each(block);
        }
        let shader = FixedShader::new(
            ShaderLayout {
                secondary: layout.secondary,
                back: layout.back,
                units: layout.units,
                fog: layout.fog,
                phong: layout.phong,
            },
            ff.units
                .iter()
                .map(|u| UnitRt {
                    texture: Arc::clone(&u.texture),
                    sampler: u.sampler,
                    apply: u.apply.for_format(u.texture.format()),
                    constant: u.constant,
                })
                .collect(),
            if ff.per_pixel_lighting { lit } else { None },
            ff.fog,
        );
        let verts = &verts;
        self.draw_with(
            state,
            (layout.count, layout.colors),
            Arc::new(shader),
            indices,
            topology,
            n,
            (
                |i| Vec4::from_slice(&verts[i * stride..i * stride + 4]),
                |i, out| {
                    let v = &verts[i * stride..(i + 1) * stride];
                    out.pos = Vec4::from_slice(&v[..4]);
                    out.var[..layout.count].copy_from_slice(&v[4..]);
                },
            ),
        )
    }
}
