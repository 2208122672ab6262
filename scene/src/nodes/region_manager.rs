//! Convex-region managers (Eberly's `ConvexRegionManager`, book-advanced §1.7): a BSP node
//! ([`bsp`](super::bsp)) whose positive and negative slots hold BSP nodes or convex regions
//! ([`region`](super::region)) and whose coplanar slot holds the outside scene. Culling starts
//! at the region that holds the eye, or draws the outside when there is none (see
//! [`region`](super::region) and [`cull`](crate::passes::cull)).

use glam::Vec3;

use crate::graph::node::{Manager, NodeData};
use crate::graph::{NodeId, Scene};
use crate::values::error::SceneError;
use crate::values::plane::Plane;

use super::bsp::not_bsp;
use super::kind::KindHooks;

impl KindHooks for Manager {
    fn describe(&self, scene: &Scene, id: NodeId) -> String {
        self.bsp.describe_as("region manager", scene, id)
    }

    fn copy_node(
        &self,
        scene: &mut Scene,
        parent: NodeId,
        name: String,
    ) -> Result<NodeId, SceneError> {
        // Slots are filled in step 3, once the children exist.
        let mut bsp = self.bsp.clone();
        bsp.slots = [None; 3];
        scene.add_bsp_node(parent, name, bsp, true)
    }

    fn copy_links(
        &self,
        scene: &mut Scene,
        from: NodeId,
        copy: NodeId,
        map: &dyn Fn(NodeId) -> NodeId,
    ) -> Result<(), SceneError> {
        self.bsp.copy_slots(scene, from, copy, map)
    }
}

impl Scene {
    /// Creates a convex-region manager (a BSP node with the local `plane`) as the last child of
    /// `parent`. Its positive and negative slots hold BSP nodes or regions; its coplanar slot
    /// the outside scene.
    ///
    /// # Errors
    /// As [`Scene::add_group`].
    pub fn add_region_manager(
        &mut self,
        parent: NodeId,
        name: impl Into<String>,
        plane: Plane,
    ) -> Result<NodeId, SceneError> {
        self.add_bsp_node(
            parent,
            name.into(),
            crate::graph::node::Bsp::new(plane),
            true,
        )
    }

    /// Whether `id` is a convex-region manager.
    ///
    /// # Errors
    /// [`SceneError::StaleId`].
    pub fn is_region_manager(&self, id: NodeId) -> Result<bool, SceneError> {
        Ok(matches!(self.node(id)?.data, NodeData::RegionManager(_)))
    }

    /// The region whose cell holds the world point `p` under `manager` (a BSP descent, see
    /// [`Scene::containing_node`]), or `None` when the point is outside every region.
    ///
    /// # Errors
    /// [`SceneError::StaleId`], [`SceneError::InvalidArgument`] when `manager` is not a region
    /// manager, [`SceneError::SingularTransform`] for a BSP node with a zero world scale.
    pub fn containing_region(
        &self,
        manager: NodeId,
        p: Vec3,
    ) -> Result<Option<NodeId>, SceneError> {
        if !self.is_region_manager(manager)? {
            return Err(not_bsp(&self.node(manager)?.name));
        }
        Ok(self
            .containing_node(manager, p)?
            .filter(|&c| self.nodes.get(c).is_some_and(|n| n.data.region().is_some())))
    }
}
