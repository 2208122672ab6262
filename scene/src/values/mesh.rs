//! Geometry data shared between nodes: positions, optional normals, colours, tangents and up
//! to [`MAX_UV_SETS`] texture-coordinate sets, `u32` indices and a [`MeshTopology`].
//!
//! A [`Mesh`] is immutable once built and shared by [`std::sync::Arc`]: many geometry leaves
//! may draw the same mesh with different world transforms (Eberly's data-level instancing).
//! Its local bounds (sphere and box) are computed once, at construction. Validation happens in
//! the constructors: every position, normal, colour and uv is finite, every index is in range,
//! attribute arrays have one entry per vertex, and the index count fits the topology.
//!
//! Points and polylines can draw only a prefix of their primitives (Wild Magic's
//! `Polypoint::SetActiveQuantity` / `Polyline::SetActiveQuantity`, for growing trails and
//! partial paths without rebuilding the mesh): [`Mesh::with_active_count`]. The bounds stay
//! those of **all** vertices, as in Wild Magic (so culling does not change as the count
//! grows, and raising the count never needs a bound update).

use glam::{Vec2, Vec3, Vec4};

use crate::values::bound::{Bound, BoundKind};
use crate::values::error::SceneError;

/// The largest number of texture-coordinate sets a mesh may carry: plumb-raster's, since the
/// soft renderer hands every set to it.
pub use plumb_raster::vertex::MAX_UV_SETS;

/// How a mesh's indices form primitives (Eberly's `GeometryType`). Not plumb-raster's
/// `Topology` (strips and fans of one draw call): a line loop is a scene topology the renderer
/// turns into a strip.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MeshTopology {
    /// Independent points (`Polypoint`).
    Points,
    /// Independent segments `<i0,i1>, <i2,i3>, …` (`GT_POLYLINE_SEGMENTS`).
    Lines,
    /// One open polyline `<i0,i1>, <i1,i2>, …` (`GT_POLYLINE_OPEN`).
    LineStrip,
    /// One closed polyline: the strip plus `<in−1,i0>` (`GT_POLYLINE_CLOSED`).
    LineLoop,
    /// Independent triangles `(i3k, i3k+1, i3k+2)`, counter-clockwise front faces (`TriMesh`).
    Triangles,
}

impl MeshTopology {
    fn name(self) -> &'static str {
        match self {
            MeshTopology::Points => "point",
            MeshTopology::Lines => "line",
            MeshTopology::LineStrip => "line strip",
            MeshTopology::LineLoop => "line loop",
            MeshTopology::Triangles => "triangle",
        }
    }
}

/// Immutable vertex and index data (in local space) with precomputed local bounds.
#[derive(Debug, Clone, PartialEq)]
pub struct Mesh {
    topology: MeshTopology,
    positions: Vec<Vec3>,
    normals: Option<Vec<Vec3>>,
    colors: Option<Vec<Vec4>>,
    tangents: Option<Vec<Vec4>>,
    uvs: Vec<Vec<Vec2>>,
    indices: Vec<u32>,
    sphere: Bound,
    aabb: Bound,
    /// Primitives drawn (clamped to [`Mesh::primitive_count`]); `None` draws all.
    active: Option<u32>,
}

fn check_len(attribute: &'static str, expected: usize, actual: usize) -> Result<(), SceneError> {
    if expected == actual {
        Ok(())
    } else {
        Err(SceneError::AttributeLength {
            attribute,
            expected,
            actual,
        })
    }
}

impl Mesh {
    /// A mesh from positions and indices.
    ///
    /// # Errors
    /// [`SceneError::NonFinite`], [`SceneError::IndexOutOfRange`], [`SceneError::IndexCount`]
    /// (triangles need a multiple of 3 indices, lines a multiple of 2),
    /// [`SceneError::TooManyVertices`].
    pub fn new(
        topology: MeshTopology,
        positions: Vec<Vec3>,
        indices: Vec<u32>,
    ) -> Result<Self, SceneError> {
        if positions.iter().any(|p| !p.is_finite()) {
            return Err(SceneError::NonFinite { what: "positions" });
        }
        if u32::try_from(positions.len()).is_err() {
            return Err(SceneError::TooManyVertices(positions.len()));
        }
        let whole = match topology {
            MeshTopology::Triangles => indices.len().is_multiple_of(3),
            MeshTopology::Lines => indices.len().is_multiple_of(2),
            _ => true,
        };
        if !whole {
            return Err(SceneError::IndexCount {
                topology: topology.name(),
                count: indices.len(),
            });
        }
        if let Some(&bad) = indices.iter().find(|&&i| i as usize >= positions.len()) {
            return Err(SceneError::IndexOutOfRange {
                index: bad,
                vertex_count: positions.len(),
            });
        }
        let sphere = Bound::from_points(BoundKind::Sphere, &positions);
        let aabb = Bound::from_points(BoundKind::Aabb, &positions);
        Ok(Mesh {
            topology,
            positions,
            normals: None,
            colors: None,
            tangents: None,
            uvs: Vec::new(),
            indices,
            sphere,
            aabb,
            active: None,
        })
    }

    /// A triangle mesh (`MeshTopology::Triangles`).
    ///
    /// # Errors
    /// As [`Mesh::new`].
    pub fn triangles(positions: Vec<Vec3>, indices: Vec<u32>) -> Result<Self, SceneError> {
        Mesh::new(MeshTopology::Triangles, positions, indices)
    }

    /// A point set drawing every vertex once, in order.
    ///
    /// # Errors
    /// As [`Mesh::new`].
    pub fn points(positions: Vec<Vec3>) -> Result<Self, SceneError> {
        let n = u32::try_from(positions.len())
            .map_err(|_| SceneError::TooManyVertices(positions.len()))?;
        Mesh::new(MeshTopology::Points, positions, (0..n).collect())
    }

    /// A polyline through every vertex in order, open or closed.
    ///
    /// # Errors
    /// As [`Mesh::new`].
    pub fn polyline(positions: Vec<Vec3>, closed: bool) -> Result<Self, SceneError> {
        let n = u32::try_from(positions.len())
            .map_err(|_| SceneError::TooManyVertices(positions.len()))?;
        let topology = if closed {
            MeshTopology::LineLoop
        } else {
            MeshTopology::LineStrip
        };
        Mesh::new(topology, positions, (0..n).collect())
    }

    /// The axis-aligned cube `[-0.5, 0.5]³`: 8 vertices, 12 counter-clockwise outward
    /// triangles. A handy fixture for tests and examples.
    pub fn cube() -> Mesh {
        let p = |x: f32, y: f32, z: f32| Vec3::new(x - 0.5, y - 0.5, z - 0.5);
        let positions = vec![
            p(0.0, 0.0, 0.0),
            p(1.0, 0.0, 0.0),
            p(1.0, 1.0, 0.0),
            p(0.0, 1.0, 0.0),
            p(0.0, 0.0, 1.0),
            p(1.0, 0.0, 1.0),
            p(1.0, 1.0, 1.0),
            p(0.0, 1.0, 1.0),
        ];
        #[rustfmt::skip]
        let indices = vec![
            0, 2, 1, 0, 3, 2, // -z
            4, 5, 6, 4, 6, 7, // +z
            0, 1, 5, 0, 5, 4, // -y
            3, 7, 6, 3, 6, 2, // +y
            0, 4, 7, 0, 7, 3, // -x
            1, 2, 6, 1, 6, 5, // +x
        ];
        Mesh {
            topology: MeshTopology::Triangles,
            sphere: Bound::from_points(BoundKind::Sphere, &positions),
            aabb: Bound::from_points(BoundKind::Aabb, &positions),
            positions,
            normals: None,
            colors: None,
            tangents: None,
            uvs: Vec::new(),
            indices,
            active: None,
        }
    }

    /// Adds per-vertex normals.
    ///
    /// # Errors
    /// [`SceneError::AttributeLength`] or [`SceneError::NonFinite`].
    pub fn with_normals(mut self, normals: Vec<Vec3>) -> Result<Self, SceneError> {
        check_len("normals", self.positions.len(), normals.len())?;
        if normals.iter().any(|n| !n.is_finite()) {
            return Err(SceneError::NonFinite { what: "normals" });
        }
        self.normals = Some(normals);
        Ok(self)
    }

    /// Adds per-vertex RGBA colours.
    ///
    /// # Errors
    /// [`SceneError::AttributeLength`] or [`SceneError::NonFinite`].
    pub fn with_colors(mut self, colors: Vec<Vec4>) -> Result<Self, SceneError> {
        check_len("colors", self.positions.len(), colors.len())?;
        if colors.iter().any(|c| !c.is_finite()) {
            return Err(SceneError::NonFinite { what: "colors" });
        }
        self.colors = Some(colors);
        Ok(self)
    }

    /// Adds per-vertex tangents `(x, y, z, w)`: `xyz` points along increasing `u` of the uv
    /// set a bump map reads, and `w` (±1) is the handedness — the bitangent is
    /// `w · (normal × tangent)` (glTF's `TANGENT`). Used by bump-map light vectors
    /// ([`crate::values::effect::bump_light_vectors`]); copies made by deformation keep them as they
    /// are (the light vectors re-orthogonalize them against the deformed normal).
    ///
    /// # Errors
    /// [`SceneError::AttributeLength`] or [`SceneError::NonFinite`].
    pub fn with_tangents(mut self, tangents: Vec<Vec4>) -> Result<Self, SceneError> {
        check_len("tangents", self.positions.len(), tangents.len())?;
        if tangents.iter().any(|t| !t.is_finite()) {
            return Err(SceneError::NonFinite { what: "tangents" });
        }
        self.tangents = Some(tangents);
        Ok(self)
    }

    /// Appends a texture-coordinate set (set `k` is the `k`-th call).
    ///
    /// # Errors
    /// [`SceneError::TooManyUvSets`], [`SceneError::AttributeLength`] or
    /// [`SceneError::NonFinite`].
    pub fn with_uv_set(mut self, uvs: Vec<Vec2>) -> Result<Self, SceneError> {
        if self.uvs.len() >= MAX_UV_SETS {
            return Err(SceneError::TooManyUvSets { max: MAX_UV_SETS });
        }
        check_len("uv", self.positions.len(), uvs.len())?;
        if uvs.iter().any(|c| !c.is_finite()) {
            return Err(SceneError::NonFinite { what: "uv" });
        }
        self.uvs.push(uvs);
        Ok(self)
    }

    /// Replaces texture-coordinate set `set` (one uv per vertex).
    ///
    /// # Errors
    /// [`SceneError::InvalidArgument`] when the mesh has no set `set`,
    /// [`SceneError::AttributeLength`] or [`SceneError::NonFinite`].
    pub fn with_uv_set_replaced(mut self, set: usize, uvs: Vec<Vec2>) -> Result<Self, SceneError> {
        let Some(slot) = self.uvs.get_mut(set) else {
            return Err(SceneError::InvalidArgument {
                what: "uv set",
                message: format!("the mesh has no set {set}"),
            });
        };
        check_len("uv", self.positions.len(), uvs.len())?;
        if uvs.iter().any(|c| !c.is_finite()) {
            return Err(SceneError::NonFinite { what: "uv" });
        }
        *slot = uvs;
        Ok(self)
    }

    /// Computes Eberly's vertex normals for a triangle mesh: each vertex gets the normalized
    /// sum of the unnormalized (area-weighted) normals `(v1−v0)×(v2−v0)` of its triangles.
    /// Vertices in no triangle (or only degenerate ones) get `(0,0,0)`. Other topologies are
    /// returned unchanged.
    pub fn with_generated_normals(mut self) -> Self {
        if self.topology != MeshTopology::Triangles {
            return self;
        }
        let mut acc = vec![Vec3::ZERO; self.positions.len()];
        for t in self.indices.chunks_exact(3) {
            let [a, b, c] = [t[0] as usize, t[1] as usize, t[2] as usize];
            let n = (self.positions[b] - self.positions[a])
                .cross(self.positions[c] - self.positions[a]);
            acc[a] += n;
            acc[b] += n;
            acc[c] += n;
        }
        self.normals = Some(acc.into_iter().map(|n| n.normalize_or_zero()).collect());
        self
    }

    /// A copy with new positions (one per vertex) and everything else kept — what morph and
    /// skin controllers produce (Eberly's `UpdateMS` after a vertex edit): the local bounds are
    /// recomputed, and a triangle mesh that has normals gets them regenerated from the new
    /// positions as [`Mesh::with_generated_normals`] does (other topologies keep theirs).
    ///
    /// # Errors
    /// [`SceneError::AttributeLength`] or [`SceneError::NonFinite`].
    pub fn with_deformed_positions(&self, positions: Vec<Vec3>) -> Result<Self, SceneError> {
        check_len("positions", self.positions.len(), positions.len())?;
        if positions.iter().any(|p| !p.is_finite()) {
            return Err(SceneError::NonFinite { what: "positions" });
        }
        let regenerate = self.normals.is_some() && self.topology == MeshTopology::Triangles;
        let mesh = Mesh {
            topology: self.topology,
            sphere: Bound::from_points(BoundKind::Sphere, &positions),
            aabb: Bound::from_points(BoundKind::Aabb, &positions),
            positions,
            normals: if regenerate {
                None
            } else {
                self.normals.clone()
            },
            colors: self.colors.clone(),
            tangents: self.tangents.clone(),
            uvs: self.uvs.clone(),
            indices: self.indices.clone(),
            active: self.active,
        };
        Ok(if regenerate {
            mesh.with_generated_normals()
        } else {
            mesh
        })
    }

    /// A copy with new positions **and** new normals (one each per vertex), everything else
    /// kept and the local bounds recomputed — what a skin or morph controller produces when it
    /// deforms the normals itself instead of regenerating them.
    ///
    /// # Errors
    /// [`SceneError::AttributeLength`] or [`SceneError::NonFinite`].
    pub fn with_deformed_vertices(
        &self,
        positions: Vec<Vec3>,
        normals: Vec<Vec3>,
    ) -> Result<Self, SceneError> {
        check_len("positions", self.positions.len(), positions.len())?;
        check_len("normals", self.positions.len(), normals.len())?;
        if positions.iter().any(|p| !p.is_finite()) {
            return Err(SceneError::NonFinite { what: "positions" });
        }
        if normals.iter().any(|n| !n.is_finite()) {
            return Err(SceneError::NonFinite { what: "normals" });
        }
        Ok(Mesh {
            topology: self.topology,
            sphere: Bound::from_points(BoundKind::Sphere, &positions),
            aabb: Bound::from_points(BoundKind::Aabb, &positions),
            positions,
            normals: Some(normals),
            colors: self.colors.clone(),
            tangents: self.tangents.clone(),
            uvs: self.uvs.clone(),
            indices: self.indices.clone(),
            active: self.active,
        })
    }

    /// Draws only the first `count` primitives (`None`: all) — Wild Magic's
    /// `SetActiveQuantity` for a `Polypoint` (points) and a `Polyline` (segments); the count
    /// is clamped to [`Mesh::primitive_count`]. For a [`MeshTopology::LineLoop`] the first
    /// `count` vertices form the loop (`count` segments, the last one closing it, as Wild
    /// Magic closes the active vertices); for a [`MeshTopology::LineStrip`] the first
    /// `count + 1` vertices form it. Bounds stay those of all vertices (see the
    /// [module docs](self)).
    ///
    /// # Errors
    /// [`SceneError::InvalidArgument`] for a triangle mesh (Wild Magic has no active count
    /// for triangles; picking and collision read every triangle).
    pub fn with_active_count(mut self, count: Option<usize>) -> Result<Self, SceneError> {
        if self.topology == MeshTopology::Triangles && count.is_some() {
            return Err(SceneError::InvalidArgument {
                what: "active count",
                message: "only points and polylines have one, not triangles".into(),
            });
        }
        // primitive_count() ≤ indices.len() ≤ u32::MAX (checked at construction).
        self.active = count.map(|c| c.min(self.primitive_count()) as u32);
        Ok(self)
    }

    /// The active count set with [`Mesh::with_active_count`] (clamped), `None` if all
    /// primitives are drawn.
    pub fn active_count(&self) -> Option<usize> {
        self.active.map(|a| a as usize)
    }

    /// The number of primitives the indices hold: points, segments (a loop of `n ≥ 2`
    /// indices has `n`, a strip `n − 1`), or triangles.
    pub fn primitive_count(&self) -> usize {
        let n = self.indices.len();
        match self.topology {
            MeshTopology::Points => n,
            MeshTopology::Lines => n / 2,
            MeshTopology::LineStrip => n.saturating_sub(1),
            MeshTopology::LineLoop if n >= 2 => n,
            MeshTopology::LineLoop => 0,
            MeshTopology::Triangles => n / 3,
        }
    }

    /// The indices a renderer draws: all of them, or the prefix the active count selects
    /// (`count` for points, `2·count` for segments, `count + 1` for a strip, `count` for a
    /// loop, which the renderer closes back to its first index; empty for a count of 0).
    pub fn active_indices(&self) -> &[u32] {
        let Some(a) = self.active else {
            return &self.indices;
        };
        let a = a as usize;
        let len = match self.topology {
            MeshTopology::Points | MeshTopology::LineLoop => a,
            MeshTopology::Lines => 2 * a,
            MeshTopology::LineStrip if a == 0 => 0,
            MeshTopology::LineStrip => a + 1,
            MeshTopology::Triangles => 3 * a,
        };
        &self.indices[..len.min(self.indices.len())]
    }

    /// Primitive topology.
    pub fn topology(&self) -> MeshTopology {
        self.topology
    }

    /// Vertex positions (local space).
    pub fn positions(&self) -> &[Vec3] {
        &self.positions
    }

    /// Vertex normals, if any.
    pub fn normals(&self) -> Option<&[Vec3]> {
        self.normals.as_deref()
    }

    /// Vertex colours, if any.
    pub fn colors(&self) -> Option<&[Vec4]> {
        self.colors.as_deref()
    }

    /// Vertex tangents with handedness in `w`, if any (see [`Mesh::with_tangents`]).
    pub fn tangents(&self) -> Option<&[Vec4]> {
        self.tangents.as_deref()
    }

    /// The texture-coordinate sets (0 to [`MAX_UV_SETS`]).
    pub fn uv_sets(&self) -> &[Vec<Vec2>] {
        &self.uvs
    }

    /// Indices.
    pub fn indices(&self) -> &[u32] {
        &self.indices
    }

    /// Number of triangles (0 unless the topology is [`MeshTopology::Triangles`]).
    pub fn triangle_count(&self) -> usize {
        if self.topology == MeshTopology::Triangles {
            self.indices.len() / 3
        } else {
            0
        }
    }

    /// Model-space corners of triangle `i`, or `None` past the end (or for non-triangle
    /// topologies).
    pub fn triangle(&self, i: usize) -> Option<[Vec3; 3]> {
        if self.topology != MeshTopology::Triangles {
            return None;
        }
        let t = self.indices.get(3 * i..3 * i + 3)?;
        Some([
            self.positions[t[0] as usize],
            self.positions[t[1] as usize],
            self.positions[t[2] as usize],
        ])
    }

    /// The bound of `kind` in local space (computed at construction; empty for no vertices).
    pub fn local_bound(&self, kind: BoundKind) -> Bound {
        match kind {
            BoundKind::Sphere => self.sphere,
            BoundKind::Aabb => self.aabb,
        }
    }

    /// The bound of `kind` in local space.
    #[deprecated(note = "renamed to `local_bound`: plumb-scene calls the object frame local")]
    pub fn model_bound(&self, kind: BoundKind) -> Bound {
        self.local_bound(kind)
    }
}

/// Former name of [`MeshTopology`] (plumb-raster's `Topology` is another concept).
#[deprecated(note = "renamed to `MeshTopology`; plumb_raster::Topology is a draw call's topology")]
pub type Topology = MeshTopology;

#[cfg(feature = "internal-tests")]
pub(crate) mod tests {
    /// Every test of this module: `tests/unit.rs` runs each as one trial (an unlisted
    /// test fails the build as dead code).
    pub(crate) const TESTS: &[(&str, fn())] = &[
        ("validation", validation),
        (
            "active_counts_select_a_prefix_and_clamp",
            active_counts_select_a_prefix_and_clamp,
        ),
        ("area_weighted_normals", area_weighted_normals),
    ];

    use super::*;

    fn validation() {
        let p = vec![Vec3::ZERO, Vec3::X, Vec3::Y];
        assert!(Mesh::triangles(p.clone(), vec![0, 1, 2]).is_ok());
        assert_eq!(
            Mesh::triangles(p.clone(), vec![0, 1, 3]),
            Err(SceneError::IndexOutOfRange {
                index: 3,
                vertex_count: 3
            })
        );
        assert!(matches!(
            Mesh::triangles(p.clone(), vec![0, 1]),
            Err(SceneError::IndexCount { .. })
        ));
        assert!(Mesh::triangles(vec![Vec3::NAN], vec![]).is_err());
        let m = Mesh::triangles(p.clone(), vec![0, 1, 2]).unwrap();
        assert!(m.clone().with_normals(vec![Vec3::Z]).is_err());
        let mut m2 = m.clone();
        for _ in 0..MAX_UV_SETS {
            m2 = m2.with_uv_set(vec![Vec2::ZERO; 3]).unwrap();
        }
        assert_eq!(
            m2.with_uv_set(vec![Vec2::ZERO; 3]),
            Err(SceneError::TooManyUvSets { max: 4 })
        );
        assert_eq!(
            Mesh::polyline(p.clone(), true).unwrap().topology(),
            MeshTopology::LineLoop
        );
        assert_eq!(Mesh::points(p).unwrap().indices(), &[0, 1, 2]);
    }

    fn active_counts_select_a_prefix_and_clamp() {
        let p: Vec<Vec3> = (0..6).map(|i| Vec3::new(i as f32, 0.0, 0.0)).collect();
        // 6 points: the first 4.
        let m = Mesh::points(p.clone()).unwrap();
        assert_eq!(m.primitive_count(), 6);
        assert_eq!(m.active_count(), None);
        let m = m.with_active_count(Some(4)).unwrap();
        assert_eq!(m.active_indices(), &[0, 1, 2, 3]);
        assert_eq!(m.active_count(), Some(4));
        // Clamped to what the mesh holds; 0 draws nothing.
        let m = m.with_active_count(Some(99)).unwrap();
        assert_eq!((m.active_count(), m.active_indices().len()), (Some(6), 6));
        let m = m.with_active_count(Some(0)).unwrap();
        assert!(m.active_indices().is_empty());
        // 3 independent segments: 2 of them are 4 indices.
        let lines = Mesh::new(MeshTopology::Lines, p.clone(), vec![0, 1, 2, 3, 4, 5]).unwrap();
        assert_eq!(lines.primitive_count(), 3);
        let l2 = lines.with_active_count(Some(2)).unwrap();
        assert_eq!(l2.active_indices(), &[0, 1, 2, 3]);
        // An open polyline of 6 vertices has 5 segments; 2 segments use 3 vertices.
        let strip = Mesh::polyline(p.clone(), false).unwrap();
        assert_eq!(strip.primitive_count(), 5);
        let s2 = strip.with_active_count(Some(2)).unwrap();
        assert_eq!(s2.active_indices(), &[0, 1, 2]);
        assert_eq!(
            s2.clone()
                .with_active_count(Some(7))
                .unwrap()
                .active_count(),
            Some(5)
        );
        assert!(s2
            .with_active_count(Some(0))
            .unwrap()
            .active_indices()
            .is_empty());
        // A closed polyline of 6 has 6 segments; 3 segments close over the first 3 vertices.
        let ring = Mesh::polyline(p.clone(), true).unwrap();
        assert_eq!(ring.primitive_count(), 6);
        let r3 = ring.with_active_count(Some(3)).unwrap();
        assert_eq!(r3.active_indices(), &[0, 1, 2]);
        // Bounds stay those of every vertex (x from 0 to 5).
        let b = r3.local_bound(BoundKind::Aabb);
        assert_eq!(
            b,
            Mesh::points(p.clone())
                .unwrap()
                .local_bound(BoundKind::Aabb)
        );
        // Deformed copies keep the count.
        let moved = r3.with_deformed_positions(p.clone()).unwrap();
        assert_eq!(moved.active_count(), Some(3));
        // Triangles have none.
        assert!(Mesh::cube().with_active_count(Some(1)).is_err());
        assert!(Mesh::cube().with_active_count(None).is_ok());
    }

    fn area_weighted_normals() {
        // Vertex 0 is shared by a triangle of area 0.5 in z=0 and one of area 1.5 in x=0.
        let p = vec![
            Vec3::ZERO,
            Vec3::X,
            Vec3::Y,
            Vec3::new(0.0, 3.0, 0.0),
            Vec3::Z,
        ];
        let m = Mesh::triangles(p, vec![0, 1, 2, 0, 3, 4])
            .unwrap()
            .with_generated_normals();
        let n = m.normals().unwrap()[0];
        // (0,0,1) from the small one, (3,0,0) from the big one.
        assert!((n - Vec3::new(3.0, 0.0, 1.0).normalize()).length() < 1e-6);
    }
}
