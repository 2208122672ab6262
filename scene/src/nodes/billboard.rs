//! Billboard nodes (Eberly's `BillboardNode`, book-advanced §1.1): a group whose subtree
//! turns about its **local up axis** (+y) to face the camera.
//!
//! During `update`, after a billboard's world transform is composed (`parent ∘ local`), the
//! eye position is taken into the billboard's local space (`p = W⁻¹·E`) and the world transform
//! becomes `W ∘ RotY(atan2(p.x, p.z))`, so the local orientation applies first and the local
//! +z axis turns towards the eye. An eye on the axis (`atan2(0, 0) = 0`) leaves it unrotated.
//! Children are updated after the alignment.
//!
//! Each billboard keeps the eye its world transform faces: the camera of the last
//! [`Scene::draw`](crate::Scene::draw) (its [`View`](crate::View)) or
//! [`Scene::face_billboards`]; before any, it is not rotated. When the eye moves, billboards
//! are marked dirty so the next update realigns them.

use glam::{Vec3, Vec4};

use crate::graph::node::{Dirty, NodeData};
use crate::graph::{NodeId, Scene};
use crate::values::error::SceneError;
use crate::values::transform::Transform;

use super::kind::KindHooks;

/// The billboard kind's hooks (its data is the eye it faces, set from each view).
pub(crate) struct Billboard;

impl KindHooks for Billboard {
    fn describe(&self, _: &Scene, _: NodeId) -> String {
        "billboard".to_owned()
    }

    fn copy_node(
        &self,
        scene: &mut Scene,
        parent: NodeId,
        name: String,
    ) -> Result<NodeId, SceneError> {
        scene.add_billboard(parent, name)
    }
}

/// `world ∘ RotY(atan2(p.x, p.z))` with `p` the eye in `world`'s local space.
pub(crate) fn face_eye(world: &Transform, eye: Vec3) -> Transform {
    let Some(inv) = world.try_inverse() else {
        return *world;
    };
    let p = inv.apply_point(eye);
    let angle = plumb_raster::math::atan2(p.x, p.z);
    let (s, c) = plumb_raster::math::sin_cos(angle);
    // RotY(angle): x → (c, 0, −s), z → (s, 0, c).
    let rot = glam::Mat4::from_cols(
        Vec4::new(c, 0.0, -s, 0.0),
        Vec4::Y,
        Vec4::new(s, 0.0, c, 0.0),
        Vec4::W,
    );
    match Transform::from_affine(
        glam::Mat3::from_mat4(world.to_mat4() * rot),
        world.translation(),
    ) {
        Ok(t) => t,
        Err(_) => *world,
    }
}

impl Scene {
    /// Creates a billboard group as the last child of `parent`.
    ///
    /// # Errors
    /// As [`Scene::add_group`].
    pub fn add_billboard(
        &mut self,
        parent: NodeId,
        name: impl Into<String>,
    ) -> Result<NodeId, SceneError> {
        let id = self.create_under(parent, name.into(), NodeData::Billboard(None))?;
        self.billboards.push(id);
        Ok(id)
    }

    /// Whether the node is a billboard group.
    ///
    /// # Errors
    /// [`SceneError::StaleId`].
    pub fn is_billboard(&self, id: NodeId) -> Result<bool, SceneError> {
        Ok(matches!(self.node(id)?.data, NodeData::Billboard(_)))
    }

    /// Turns every billboard to face `eye` (world space): each billboard whose world
    /// transform faces another eye is marked dirty, and the next update realigns it.
    /// [`Scene::draw`](crate::Scene::draw) calls this with its camera
    /// ([`Scene::prepare_view`](crate::Scene::prepare_view)).
    pub fn face_billboards(&mut self, eye: Vec3) {
        let mut live = Vec::with_capacity(self.billboards.len());
        for &b in &self.billboards {
            let Some(node) = self.nodes.get_mut(b) else {
                continue;
            };
            live.push(b);
            let NodeData::Billboard(faced) = &mut node.data else {
                continue;
            };
            if *faced != Some(eye) {
                *faced = Some(eye);
                self.nodes.mark(b, Dirty::TRANSFORM);
            }
        }
        self.billboards = live;
    }
}
