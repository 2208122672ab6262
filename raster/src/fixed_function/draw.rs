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
        let layout = Layout::new(ff, self.keeps_normals());
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

    /// Draws the vertex stage's packed vertices `p` (`4 + p.varyings.0` floats each): `N`
    /// varyings per vertex, or any number when `N` is 0.
    fn draw_packed<const N: usize>(
        &mut self,
        state: &PipelineState,
        shader: Arc<FixedShader>,
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
