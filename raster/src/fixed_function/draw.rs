//! [`Context::draw_fixed`]: validates the draw, runs the vertex stage over every vertex and
//! hands the results to the core rasteriser with a compiled [`FixedShader`].

use std::sync::Arc;

use glam::{Mat3, Vec4};
use rayon::prelude::*;

use crate::base::error::Error;
use crate::context::{Context, DrawStats};
use crate::fragment::fixed_shader::FixedShader;
use crate::fragment::fixed_stages::{ShaderLayout, UnitRt};
use crate::geometry::assemble::Primitives;
use crate::shading::light::PreparedLighting;
use crate::state::PipelineState;
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
        let prims = Primitives {
            indices,
            topology,
            vertex_count: n,
            varyings: (layout.count, layout.colors),
            position: |i| Vec4::from_slice(&verts[i * stride..i * stride + 4]),
            fetch: |i, out: &mut ClipVertex| {
                let v = &verts[i * stride..(i + 1) * stride];
                out.pos = Vec4::from_slice(&v[..4]);
                out.var[..layout.count].copy_from_slice(&v[4..]);
            },
        };
        self.draw_with(state, Arc::new(shader), prims)
    }
}
