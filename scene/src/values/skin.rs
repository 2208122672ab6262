//! Skin and bones (Eberly's `SkinController`, book-advanced §1.16): a geometry leaf whose
//! vertices follow the **world** transforms of a set of bone nodes.
//!
//! Vertex `j` has, for each bone `k`, a weight `w_jk` and an offset `Θ_jk` in the bone's local
//! space (a bone that does not influence the vertex has weight 0). With bone world transform
//! `W_k` (scale `s_k`, rotation `R_k`, translation `T_k`), the skinned vertex is eq. 4.3:
//!
//! `V_j = Σ_k w_jk·(s_k·R_k·Θ_jk + T_k) = Σ_k w_jk·W_k(Θ_jk)`,
//!
//! summed as the book's loop does: vertex by vertex (the outer loop), bone 0 first. The result
//! is in world space, so the skin's world transform is pinned to the **identity** (whatever its
//! local transform and ancestors: [`MeshController::world_is_identity`]), and the mesh is
//! replaced by a copy with the new positions ([`Mesh::with_deformed_positions`]: bounds
//! recomputed — the world bound follows the skin — and normals, if the mesh has them,
//! regenerated from the skinned triangles, as the book's `UpdateMS` does).
//!
//! **Sparse influences and skinned normals.** [`SkinController::new`] takes the book's dense
//! table (every bone for every vertex, in bone order); [`SkinController::from_influences`]
//! takes, per vertex, only the bones that influence it (what glTF's `JOINTS_n`/`WEIGHTS_n`
//! give), summed in the order given. When every influence also carries a **normal offset**
//! `η_jk` (the vertex normal in the bone's space, transformed like a normal: by the inverse
//! transpose), the normals are skinned instead of regenerated:
//! `N_j = normalize(Σ_k w_jk·C_k·η_jk)` with `C_k = cof(M_k)/det(M_k)` the inverse transpose of
//! the bone's linear part `M_k` (the cofactor matrix alone when `det M_k = 0`), and the mesh is
//! replaced with [`Mesh::with_deformed_vertices`].
//!
//! Bones must be current before the skin is computed. The book requires the bones to come
//! before the skin in the depth-first update; here every mesh controller runs after the whole
//! tree's world transforms are updated (see [`controller`](crate::values::controller)), so the skin may
//! sit anywhere, even before its bones. If a bone is removed, the skin keeps its last shape.

use glam::{Mat3, Vec3};

use crate::values::controller::MeshController;
use crate::values::error::SceneError;
use crate::values::id::NodeId;
use crate::values::mesh::Mesh;
use crate::values::transform::Transform;

/// One bone's influence on one vertex (see [`SkinController::from_influences`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SkinInfluence {
    /// Index into the skin's bone list.
    pub bone: usize,
    /// The weight `w_jk`.
    pub weight: f32,
    /// The vertex in the bone's space, `Θ_jk`.
    pub offset: Vec3,
    /// The vertex normal in the bone's space, `η_jk` (all influences of a skin have one, or
    /// none has).
    pub normal: Option<Vec3>,
}

/// Skins a geometry leaf to bones (see the [module docs](self)). Attach it with
/// [`Scene::add_mesh_controller`](crate::Scene::add_mesh_controller).
#[derive(Debug, Clone, PartialEq)]
pub struct SkinController {
    bones: Vec<NodeId>,
    /// Vertex `j`'s influences are `starts[j]..starts[j + 1]` of the arrays below.
    starts: Vec<usize>,
    /// Bone index of each influence.
    bone: Vec<u32>,
    weights: Vec<f32>,
    offsets: Vec<Vec3>,
    /// Normal offsets, one per influence, when the normals are skinned.
    normal_offsets: Option<Vec<Vec3>>,
    active: bool,
}

fn invalid(message: String) -> SceneError {
    SceneError::InvalidArgument {
        what: "skin controller",
        message,
    }
}

/// The inverse transpose of `m` (`cof(m)/det(m)`), or the cofactor matrix when `m` is
/// singular: what maps normals when `m` maps points.
pub(crate) fn normal_matrix(m: Mat3) -> Mat3 {
    let (a, b, c) = (m.x_axis, m.y_axis, m.z_axis);
    let cof = Mat3::from_cols(b.cross(c), c.cross(a), a.cross(b));
    let det = a.dot(cof.x_axis);
    if det != 0.0 && det.is_finite() {
        cof * (1.0 / det)
    } else {
        cof
    }
}

impl SkinController {
    /// A skin from its bones and, per vertex, one weight and one offset per bone
    /// (`weights[j][k]`, `offsets[j][k]`; the book's `m_aafWeight`, `m_aakOffset`).
    ///
    /// # Errors
    /// [`SceneError::InvalidArgument`] for no bones, or a row of weights or offsets whose
    /// length is not the bone count, or a different number of weight and offset rows;
    /// [`SceneError::NonFinite`] for a non-finite weight or offset. Bones are checked when the
    /// controller is attached ([`SceneError::StaleId`]).
    pub fn new(
        bones: Vec<NodeId>,
        weights: Vec<Vec<f32>>,
        offsets: Vec<Vec<Vec3>>,
    ) -> Result<Self, SceneError> {
        let b = bones.len();
        if b == 0 {
            return Err(invalid("no bones".to_owned()));
        }
        if weights.len() != offsets.len() {
            return Err(invalid(format!(
                "{} weight rows but {} offset rows",
                weights.len(),
                offsets.len()
            )));
        }
        if let Some(j) =
            (0..weights.len()).find(|&j| weights[j].len() != b || offsets[j].len() != b)
        {
            return Err(invalid(format!(
                "vertex {j} has {} weights and {} offsets for {b} bones",
                weights[j].len(),
                offsets[j].len()
            )));
        }
        let v = weights.len();
        let weights: Vec<f32> = weights.into_iter().flatten().collect();
        let offsets: Vec<Vec3> = offsets.into_iter().flatten().collect();
        if weights.iter().any(|w| !w.is_finite()) {
            return Err(SceneError::NonFinite {
                what: "skin weight",
            });
        }
        if offsets.iter().any(|o| !o.is_finite()) {
            return Err(SceneError::NonFinite {
                what: "skin offset",
            });
        }
        let bone_count = u32::try_from(b).map_err(|_| invalid(format!("{b} bones")))?;
        Ok(SkinController {
            bones,
            starts: (0..=v).map(|j| j * b).collect(),
            bone: (0..v).flat_map(|_| 0..bone_count).collect(),
            weights,
            offsets,
            normal_offsets: None,
            active: true,
        })
    }

    /// A skin from its bones and, per vertex, the influences on it (summed in the order
    /// given; a vertex with none is skinned to the origin). If every influence has a
    /// [`SkinInfluence::normal`], the normals are skinned too (see the [module docs](self)).
    ///
    /// # Errors
    /// [`SceneError::InvalidArgument`] for no bones, a bone index out of range, or normal
    /// offsets on some influences but not all; [`SceneError::NonFinite`] for a non-finite
    /// weight or offset.
    pub fn from_influences(
        bones: Vec<NodeId>,
        influences: Vec<Vec<SkinInfluence>>,
    ) -> Result<Self, SceneError> {
        let b = bones.len();
        if b == 0 {
            return Err(invalid("no bones".to_owned()));
        }
        let total: usize = influences.iter().map(Vec::len).sum();
        let with_normals = influences.iter().flatten().filter(|i| i.normal.is_some());
        let normal_count = with_normals.count();
        if normal_count != 0 && normal_count != total {
            return Err(invalid(
                "some influences have normal offsets and some do not".to_owned(),
            ));
        }
        let mut starts = Vec::with_capacity(influences.len() + 1);
        let mut bone = Vec::with_capacity(total);
        let mut weights = Vec::with_capacity(total);
        let mut offsets = Vec::with_capacity(total);
        let mut normals = Vec::with_capacity(if normal_count == 0 { 0 } else { total });
        starts.push(0);
        for (j, row) in influences.iter().enumerate() {
            for i in row {
                if i.bone >= b {
                    return Err(invalid(format!("vertex {j} names bone {} of {b}", i.bone)));
                }
                if !i.weight.is_finite() {
                    return Err(SceneError::NonFinite {
                        what: "skin weight",
                    });
                }
                if !i.offset.is_finite() || !i.normal.unwrap_or(Vec3::ZERO).is_finite() {
                    return Err(SceneError::NonFinite {
                        what: "skin offset",
                    });
                }
                bone.push(i.bone as u32);
                weights.push(i.weight);
                offsets.push(i.offset);
                if let Some(n) = i.normal {
                    normals.push(n);
                }
            }
            starts.push(bone.len());
        }
        Ok(SkinController {
            bones,
            starts,
            bone,
            weights,
            offsets,
            normal_offsets: (normal_count != 0).then_some(normals),
            active: true,
        })
    }

    /// The influences of every vertex, in the order they are summed (what
    /// [`SkinController::from_influences`] takes back to give an equal controller).
    pub fn influences(&self) -> Vec<Vec<SkinInfluence>> {
        self.starts
            .windows(2)
            .map(|r| {
                (r[0]..r[1])
                    .map(|i| SkinInfluence {
                        bone: self.bone[i] as usize,
                        weight: self.weights[i],
                        offset: self.offsets[i],
                        normal: self.normal_offsets.as_ref().map(|n| n[i]),
                    })
                    .collect()
            })
            .collect()
    }

    /// Number of skinned vertices.
    pub fn vertex_count(&self) -> usize {
        self.starts.len() - 1
    }

    /// Whether the normals are skinned (every influence has a normal offset).
    pub fn skins_normals(&self) -> bool {
        self.normal_offsets.is_some()
    }

    /// Whether the controller runs (an inactive skin keeps its last shape).
    pub fn active(&self) -> bool {
        self.active
    }

    /// Switches the controller on or off.
    pub fn set_active(&mut self, active: bool) {
        self.active = active;
    }

    /// The skinned vertices (world space) for the bones' world transforms `bones`, in the
    /// order of [`MeshController::bones`]; `None` if the count differs.
    pub fn positions(&self, bones: &[Transform]) -> Option<Vec<Vec3>> {
        if bones.len() != self.bones.len() {
            return None;
        }
        Some(
            self.starts
                .windows(2)
                .map(|r| {
                    let mut v = Vec3::ZERO;
                    for i in r[0]..r[1] {
                        let p = self.weights[i]
                            * bones[self.bone[i] as usize].apply_point(self.offsets[i]);
                        v = if i == r[0] { p } else { v + p };
                    }
                    v
                })
                .collect(),
        )
    }

    /// The skinned unit normals (world space; zero where the sum vanishes) for the bones'
    /// world transforms, when the skin has normal offsets; `None` otherwise or if the count
    /// differs.
    pub fn normals(&self, bones: &[Transform]) -> Option<Vec<Vec3>> {
        let eta = self.normal_offsets.as_ref()?;
        if bones.len() != self.bones.len() {
            return None;
        }
        let mats: Vec<Mat3> = bones.iter().map(|t| normal_matrix(t.matrix())).collect();
        Some(
            self.starts
                .windows(2)
                .map(|r| {
                    let mut n = Vec3::ZERO;
                    for i in r[0]..r[1] {
                        n += self.weights[i] * (mats[self.bone[i] as usize] * eta[i]);
                    }
                    n.normalize_or_zero()
                })
                .collect(),
        )
    }
}

impl MeshController for SkinController {
    fn bones(&self) -> &[NodeId] {
        &self.bones
    }

    fn world_is_identity(&self) -> bool {
        true
    }

    fn check(&self, mesh: &Mesh) -> Result<(), SceneError> {
        if mesh.positions().len() == self.vertex_count() {
            Ok(())
        } else {
            Err(SceneError::AttributeLength {
                attribute: "skin weights",
                expected: mesh.positions().len(),
                actual: self.vertex_count(),
            })
        }
    }

    /// `None` when inactive, when the mesh no longer has the skin's vertex count, or when
    /// the sum overflowed.
    fn update(&mut self, _time: f64, mesh: &Mesh, bones: &[Transform]) -> Option<Mesh> {
        if !self.active || mesh.positions().len() != self.vertex_count() {
            return None;
        }
        let positions = self.positions(bones)?;
        match self.normals(bones) {
            Some(n) if mesh.normals().is_some() => mesh.with_deformed_vertices(positions, n).ok(),
            _ => mesh.with_deformed_positions(positions).ok(),
        }
    }

    fn describe(&self) -> String {
        format!(
            "skin: {} bones, {} vertices{}{}",
            self.bones.len(),
            self.vertex_count(),
            if self.skins_normals() {
                ", normals skinned"
            } else {
                ""
            },
            if self.active { "" } else { ", inactive" }
        )
    }

    fn as_any(&self) -> Option<&dyn std::any::Any> {
        Some(self)
    }
}
