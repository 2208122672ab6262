//! Group nodes (Eberly's `Node`): an interior node that groups and transforms its children.
//! The root is one. Every kind but geometry has children; a group is the kind with nothing
//! else.

use crate::graph::node::NodeData;
use crate::graph::{NodeId, Scene};
use crate::values::error::SceneError;

use super::kind::KindHooks;

/// The group kind's hooks (a group has no data of its own).
pub(crate) struct Group;

impl KindHooks for Group {
    fn describe(&self, _: &Scene, _: NodeId) -> String {
        "group".to_owned()
    }

    fn copy_node(
        &self,
        scene: &mut Scene,
        parent: NodeId,
        name: String,
    ) -> Result<NodeId, SceneError> {
        scene.add_group(parent, name)
    }
}

impl Scene {
    /// Creates a detached group node.
    ///
    /// # Errors
    /// [`SceneError::NodeLimit`].
    pub fn create_group(&mut self, name: impl Into<String>) -> Result<NodeId, SceneError> {
        self.create(name.into(), NodeData::Group)
    }

    /// Creates a group node as the last child of `parent`.
    ///
    /// # Errors
    /// [`SceneError::StaleId`], [`SceneError::NotAGroup`], [`SceneError::NodeLimit`],
    /// [`SceneError::DepthLimit`].
    pub fn add_group(
        &mut self,
        parent: NodeId,
        name: impl Into<String>,
    ) -> Result<NodeId, SceneError> {
        self.create_under(parent, name.into(), NodeData::Group)
    }
}
