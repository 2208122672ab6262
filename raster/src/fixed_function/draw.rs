//! [`Context::draw_fixed`]: validates the draw, runs the vertex stage over every vertex and
//! hands the results to the core rasteriser with a compiled [`FixedShader`].

use std::sync::Arc;

use glam::Vec4;
use rayon::prelude::*;

use crate::base::error::Error;
use crate::context::{Context, DrawStats};
use crate::fragment::fixed_shader::FixedShader;
use crate::fragment::fixed_stages::{ShaderLayout, UnitRt};
use crate::fragment::pbr_shader::{PbrShader, PbrUnit, PbrUnits};
use crate::fragment::scratch::FragmentShader;
use crate::geometry::assemble::Primitives;
use crate::shading::light::PreparedLighting;
use crate::shading::pbr::{self, PbrDraw, MAX_PBR_LIGHTS};
use crate::state::PipelineState;
use crate::texture::lanes::LaneFilter;
use crate::vertex::{ClipVertex, Indices, Topology, MAX_VARYINGS};

use super::types::*;
use super::vertex_stage::{Layout, VertexStage};

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
        let layout = Layout::new(ff, self.keeps_normals());
        debug_assert!(layout.count <= MAX_VARYINGS);
        let lit = ff
            .lighting
            .as_ref()
            .filter(|l| l.is_lit())
            .map(PreparedLighting::new);
        let stage = VertexStage::new(mesh, ff, layout, transforms, (lit, None));
        let n = mesh.positions.len();
        let verts = self.run_vertex_stage(&stage);
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
        let packed = Packed {
            verts: &verts,
            n,
            varyings: (layout.count, layout.colors),
            normal: layout.normal,
        };
        let shader = Arc::new(shader);
        // The common layouts' fetch copies a constant number of varyings.
        match layout.count {
            4 => self.draw_packed::<4>(state, shader, packed, (indices, topology)),
            6 => self.draw_packed::<6>(state, shader, packed, (indices, topology)),
            8 => self.draw_packed::<8>(state, shader, packed, (indices, topology)),
            _ => self.draw_packed::<0>(state, shader, packed, (indices, topology)),
        }
    }

    /// Draws an object-space mesh with glTF's metallic-roughness material, lit per pixel
    /// ([`pbr`]: the BRDF, the lights, the colour conventions). `tangents`
    /// (object space, `w` the handedness) are read only when the material has a normal
    /// texture. The vertex stage is the fixed-function one: the material's textures are its
    /// units (base colour, metallic-roughness, normal, occlusion, emissive, in that order,
    /// those present), with the eye position and normal per pixel.
    ///
    /// # Errors
    /// As [`Context::draw_fixed`], and [`Error::InvalidState`] for a mesh without normals,
    /// a normal texture without tangents, or non-finite factors, lights or exposure;
    /// [`Error::TooMany`] past [`pbr::MAX_PBR_LIGHTS`] lights.
    #[allow(
        clippy::too_many_arguments,
        reason = "draw_fixed's arguments and the tangents"
    )]
    pub fn draw_pbr(
        &mut self,
        state: &PipelineState,
        draw: &PbrDraw,
        transforms: &Transforms,
        mesh: &MeshInput<'_>,
        tangents: Option<&[Vec4]>,
        indices: Indices<'_>,
        topology: Topology,
    ) -> Result<DrawStats, Error> {
        let ff = check_pbr_input(draw, mesh, tangents)?;
        check_fixed_input(&ff, transforms, mesh, indices)?;
        let m = &draw.material;
        let layout = Layout::pbr(&ff, self.keeps_normals(), m.normal_texture.is_some());
        debug_assert!(layout.count <= MAX_VARYINGS);
        let tangents = tangents.filter(|_| m.normal_texture.is_some());
        let stage = VertexStage::new(mesh, &ff, layout, transforms, (None, tangents));
        let verts = self.run_vertex_stage(&stage);
        let mut planes = (0..).map(|k| 6 + 3 * (layout.units + 3 * k));
        // The units in `PbrMaterial::textures`' order, as `check_pbr_input` made them.
        let [base, metallic_roughness, normal, occlusion, emissive] = m.textures().map(|t| {
            t.map(|t| PbrUnit {
                texture: Arc::clone(&t.texture),
                sampler: t.sampler,
                filter: LaneFilter::new(&t.sampler),
                plane: planes.next().unwrap_or(0),
            })
        });
        let units = PbrUnits {
            base,
            metallic_roughness,
            normal,
            occlusion,
            emissive,
        };
        let (lights, ambient) = pbr::prepare_lights(&draw.lights);
        let at = layout.phong.unwrap_or(0);
        let shader = PbrShader {
            material: m.clone(),
            units,
            lights,
            ambient,
            output: draw.output,
            environment: draw.environment.clone(),
            at,
            tangent: layout.tangent,
            ortho: transforms.clip_from_view.row(3) == Vec4::W,
            skip: layout.units..layout.units + 3 * ff.units.len(),
        };
        let packed = Packed {
            verts: &verts,
            n: mesh.positions.len(),
            varyings: (layout.count, layout.colors),
            normal: layout.normal,
        };
        self.draw_packed::<0>(state, Arc::new(shader), packed, (indices, topology))
    }

    /// The vertex stage once per vertex (shared vertices are not re-lit), in parallel, into
    /// a packed array of `4 + count` floats per vertex (a `ClipVertex` holds 52 floats: for
    /// a million-vertex mesh, 200 MB to fill and stream instead of ~50).
    fn run_vertex_stage(&self, stage: &VertexStage<'_>) -> Vec<f32> {
        let n = stage.mesh.positions.len();
        let stride = 4 + stage.layout.count;
        const BLOCK: usize = 4096;
        let mut verts = vec![0.0f32; n * stride];
        let level = self.level();
        let block = |(c, chunk): (usize, &mut [f32])| stage.run_block(level, c * BLOCK, chunk);
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
        verts
    }

    /// Draws the vertex stage's packed vertices `p` (`4 + p.varyings.0` floats each): `N`
    /// varyings per vertex, or any number when `N` is 0.
    fn draw_packed<const N: usize>(
        &mut self,
        state: &PipelineState,
        shader: Arc<dyn FragmentShader>,
        p: Packed<'_>,
        (indices, topology): (Indices<'_>, Topology),
    ) -> Result<DrawStats, Error> {
        let (verts, count) = (p.verts, p.varyings.0);
        debug_assert!(N == 0 || N == count);
        let stride = 4 + count;
        let prims = Primitives {
            indices,
            topology,
            vertex_count: p.n,
            varyings: p.varyings,
            position: |i| Vec4::from_slice(&verts[i * stride..i * stride + 4]),
            fetch: |i, out: &mut ClipVertex| {
                let v = &verts[i * stride..(i + 1) * stride];
                out.pos = Vec4::from_slice(&v[..4]);
                if N == 0 {
                    out.var[..count].copy_from_slice(&v[4..]);
                } else {
                    out.var[..N].copy_from_slice(&v[4..4 + N]);
                }
            },
        };
        self.draw_with(state, shader, prims, p.normal)
    }
}

/// The vertex stage's output: `n` vertices packed as clip position and varyings (how many,
/// and how many of them colours).
struct Packed<'a> {
    verts: &'a [f32],
    n: usize,
    varyings: (usize, usize),
    /// Where the eye-space normal for the target's normal plane sits.
    normal: Option<usize>,
}

/// What [`Context::draw_pbr`] checks of its own inputs, and the fixed-function state its
/// vertex stage runs with (the material's textures as units).
///
/// # Errors
/// As [`Context::draw_pbr`].
pub fn check_pbr_input(
    draw: &PbrDraw,
    mesh: &MeshInput<'_>,
    tangents: Option<&[Vec4]>,
) -> Result<FixedFunction, Error> {
    let m = &draw.material;
    let bad = |what: &str| Err(Error::InvalidState(format!("PBR draw: {what}")));
    if mesh.normals.is_none() {
        return bad("the mesh has no normals");
    }
    if let Some(t) = tangents {
        if t.len() != mesh.positions.len() {
            return Err(Error::BufferLength {
                what: "tangents",
                expected: mesh.positions.len(),
                actual: t.len(),
            });
        }
    }
    if m.normal_texture.is_some() && tangents.is_none() {
        return bad("a normal texture needs tangents");
    }
    let factors = [
        m.metallic,
        m.roughness,
        m.normal_scale,
        m.occlusion_strength,
        draw.output.exposure,
    ];
    if !m.base_color.is_finite()
        || !m.emissive.is_finite()
        || factors.iter().any(|x| !x.is_finite())
    {
        return bad("non-finite material factor or exposure");
    }
    if draw.lights.len() > MAX_PBR_LIGHTS {
        return Err(Error::TooMany {
            what: "PBR lights",
            max: MAX_PBR_LIGHTS,
            actual: draw.lights.len(),
        });
    }
    if let Some(i) = draw.lights.iter().position(|l| !l.is_finite()) {
        return bad(&format!("light {i} has a non-finite value"));
    }
    let units = m
        .textures()
        .into_iter()
        .flatten()
        .map(|t| TextureUnit {
            uv_set: t.uv_set,
            matrix: t.matrix,
            ..TextureUnit::new(Arc::clone(&t.texture), t.sampler)
        })
        .collect();
    Ok(FixedFunction {
        units,
        ..FixedFunction::default()
    })
}
