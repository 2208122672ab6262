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
//! Bones must be current before the skin is computed. The book requires the bones to come
//! before the skin in the depth-first update; here every mesh controller runs after the whole
//! tree's world transforms are updated (see [`controller`](crate::controller)), so the skin may
//! sit anywhere, even before its bones. If a bone is removed, the skin keeps its last shape.

use glam::Vec3;

use crate::controller::MeshController;
use crate::error::SceneError;
use crate::id::NodeId;
use crate::mesh::Mesh;
use crate::transform::Transform;

/// Skins a geometry leaf to bones (see the [module docs](self)). Attach it with
/// [`Scene::add_mesh_controller`](crate::Scene::add_mesh_controller).
#[derive(Debug, Clone, PartialEq)]
pub struct SkinController {
    bones: Vec<NodeId>,
    /// `weight[j·B + k]`.
    weights: Vec<f32>,
    /// `offset[j·B + k]`.
    offsets: Vec<Vec3>,
    active: bool,
}

fn invalid(message: String) -> SceneError {
    SceneError::InvalidArgument {
        what: "skin controller",
        message,
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
        Ok(SkinController {
            bones,
            weights,
            offsets,
            active: true,
        })
    }

    /// Number of skinned vertices.
    pub fn vertex_count(&self) -> usize {
        self.weights.len() / self.bones.len()
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
        let b = self.bones.len();
        if bones.len() != b {
            return None;
        }
        let rows = self
            .weights
            .chunks_exact(b)
            .zip(self.offsets.chunks_exact(b));
        Some(
            rows.map(|(w, o)| {
                let mut v = w[0] * bones[0].apply_point(o[0]);
                for k in 1..b {
                    v += w[k] * bones[k].apply_point(o[k]);
                }
                v
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
        mesh.with_deformed_positions(self.positions(bones)?).ok()
    }
}
