//! Small indexed meshes (positions, normals, UVs) for demos, tests and benchmarks.

use glam::{Mat4, Vec2, Vec3, Vec4};
use plumb_raster::math;

/// An indexed triangle mesh in model space.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TriMesh {
    /// Positions.
    pub positions: Vec<Vec3>,
    /// Unit normals.
    pub normals: Vec<Vec3>,
    /// Texture coordinates.
    pub uvs: Vec<Vec2>,
    /// Triangle list indices (counter-clockwise front faces).
    pub indices: Vec<u32>,
}

impl TriMesh {
    /// A torus around the y axis: `major` ring radius, `minor` tube radius,
    /// `rings × sides` quads (two triangles each): the scene's
    /// [`shapes::torus`](plumb_scene::shapes::torus), so the two are one mesh. Arguments it
    /// refuses (a radius that is not positive and finite, fewer than 3 rings or sides) give
    /// an empty mesh.
    pub fn torus(major: f32, minor: f32, rings: u32, sides: u32) -> TriMesh {
        plumb_scene::shapes::torus(major, minor, rings, sides)
            .map(|m| TriMesh::from_scene(&m))
            .unwrap_or_default()
    }

    /// A scene-graph mesh's positions, normals (zero when it has none), uv set 0 (zero when it
    /// has none) and indices.
    pub fn from_scene(mesh: &plumb_scene::Mesh) -> TriMesh {
        let n = mesh.positions().len();
        TriMesh {
            positions: mesh.positions().to_vec(),
            normals: mesh
                .normals()
                .map_or_else(|| vec![Vec3::ZERO; n], <[Vec3]>::to_vec),
            uvs: mesh
                .uv_sets()
                .first()
                .map_or_else(|| vec![Vec2::ZERO; n], Clone::clone),
            indices: mesh.indices().to_vec(),
        }
    }

    /// A UV sphere of radius `r` with `stacks × slices` quads.
    pub fn sphere(r: f32, stacks: u32, slices: u32) -> TriMesh {
        let mut m = TriMesh::default();
        for i in 0..=stacks {
            let v = i as f32 / stacks as f32;
            let (st, ct) = math::sin_cos(v * core::f32::consts::PI);
            for j in 0..=slices {
                let u = j as f32 / slices as f32;
                let (sp, cp) = math::sin_cos(u * core::f32::consts::TAU);
                let n = Vec3::new(st * cp, ct, -st * sp);
                m.positions.push(n * r);
                m.normals.push(n);
                m.uvs.push(Vec2::new(u, v));
            }
        }
        m.grid_indices(stacks, slices, false);
        m
    }

    /// A flat grid in the xz plane over `[−half, half]²`, `n × n` quads, normal +y.
    pub fn plane(half: f32, n: u32) -> TriMesh {
        let mut m = TriMesh::default();
        for i in 0..=n {
            for j in 0..=n {
                let (u, v) = (j as f32 / n as f32, i as f32 / n as f32);
                m.positions.push(Vec3::new(
                    -half + 2.0 * half * u,
                    0.0,
                    -half + 2.0 * half * v,
                ));
                m.normals.push(Vec3::Y);
                m.uvs.push(Vec2::new(u, v));
            }
        }
        m.grid_indices(n, n, false);
        m
    }

    /// A unit cube `[−1, 1]³` with per-face normals and UVs (24 vertices).
    pub fn cube() -> TriMesh {
        let mut m = TriMesh::default();
        let faces = [
            (Vec3::X, Vec3::NEG_Z, Vec3::Y),
            (Vec3::NEG_X, Vec3::Z, Vec3::Y),
            (Vec3::Y, Vec3::X, Vec3::NEG_Z),
            (Vec3::NEG_Y, Vec3::X, Vec3::Z),
            (Vec3::Z, Vec3::X, Vec3::Y),
            (Vec3::NEG_Z, Vec3::NEG_X, Vec3::Y),
        ];
        for (n, u, v) in faces {
            let base = m.positions.len() as u32;
            for (a, b) in [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)] {
                m.positions.push(n + u * a + v * b);
                m.normals.push(n);
                m.uvs.push(Vec2::new((a + 1.0) * 0.5, (1.0 - b) * 0.5));
            }
            m.indices
                .extend_from_slice(&[base, base + 1, base + 2, base, base + 2, base + 3]);
        }
        m
    }

    fn grid_indices(&mut self, rows: u32, cols: u32, flip: bool) {
        let stride = cols + 1;
        for i in 0..rows {
            for j in 0..cols {
                let a = i * stride + j;
                let (b, c, d) = (a + 1, a + stride, a + stride + 1);
                if flip {
                    self.indices.extend_from_slice(&[a, b, c, b, d, c]);
                } else {
                    self.indices.extend_from_slice(&[a, c, b, b, c, d]);
                }
            }
        }
    }

    /// The same mesh as a scene-graph [`plumb_scene::Mesh`] (positions, normals, uv set 0).
    ///
    /// # Errors
    /// Mesh validation errors (non-finite values, indices out of range).
    pub fn to_scene(&self) -> Result<plumb_scene::Mesh, plumb_scene::SceneError> {
        plumb_scene::Mesh::triangles(self.positions.clone(), self.indices.clone())?
            .with_normals(self.normals.clone())?
            .with_uv_set(self.uvs.clone())
    }

    /// Number of triangles.
    pub fn triangle_count(&self) -> usize {
        self.indices.len() / 3
    }

    /// Clip-space positions under `clip_from_model`.
    pub fn clip_positions(&self, clip_from_model: Mat4) -> Vec<Vec4> {
        self.positions
            .iter()
            .map(|p| clip_from_model * p.extend(1.0))
            .collect()
    }

    /// A colour per vertex from its normal: `0.5 + 0.5·n`, opaque.
    pub fn normal_colors(&self) -> Vec<Vec4> {
        self.normals
            .iter()
            .map(|n| (*n * 0.5 + Vec3::splat(0.5)).extend(1.0))
            .collect()
    }

    /// A simple headlight-style Lambert colour per vertex: `base · (ambient + (1−ambient)·max(n·l, 0))`
    /// with `n` transformed by `world_from_model`'s rotation (uniform scale assumed).
    pub fn lambert_colors(
        &self,
        world_from_model: Mat4,
        to_light: Vec3,
        base: Vec4,
        ambient: f32,
    ) -> Vec<Vec4> {
        let l = to_light.normalize();
        self.normals
            .iter()
            .map(|n| {
                let nw = world_from_model.transform_vector3(*n).normalize();
                let k = ambient + (1.0 - ambient) * nw.dot(l).max(0.0);
                (base.truncate() * k).extend(base.w)
            })
            .collect()
    }
}
