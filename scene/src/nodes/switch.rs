//! Switch nodes (Eberly's `SwitchNode`): a group of which exactly one child — or none — is
//! active. Culling (hence drawing) and picking visit only the active child; `update` keeps all
//! children current and the switch's bound covers all of them, so switching costs no update.

use crate::graph::node::{NodeData, Switch};
use crate::graph::{NodeId, Scene};
use crate::values::error::SceneError;

use super::kind::{display_name, KindHooks};

impl KindHooks for Switch {
    fn describe(&self, scene: &Scene, _: NodeId) -> String {
        let active = match self.active {
            Some(a) => display_name(scene, a),
            None => "none",
        };
        format!("switch active={active}")
    }

    fn copy_node(
        &self,
        scene: &mut Scene,
        parent: NodeId,
        name: String,
    ) -> Result<NodeId, SceneError> {
        scene.add_switch(parent, name)
    }

    fn copy_links(
        &self,
        scene: &mut Scene,
        _: NodeId,
        copy: NodeId,
        map: &dyn Fn(NodeId) -> NodeId,
    ) -> Result<(), SceneError> {
        scene.set_active_child(copy, self.active.map(map))
    }
}

impl Scene {
    /// Creates a detached switch node (no active child).
    ///
    /// # Errors
    /// [`SceneError::NodeLimit`].
    pub fn create_switch(&mut self, name: impl Into<String>) -> Result<NodeId, SceneError> {
        self.create(name.into(), NodeData::Switch(Switch::default()))
    }

    /// Creates a switch node as the last child of `parent`.
    ///
    /// # Errors
    /// As [`Scene::add_group`].
    pub fn add_switch(
        &mut self,
        parent: NodeId,
        name: impl Into<String>,
    ) -> Result<NodeId, SceneError> {
        self.create_under(parent, name.into(), NodeData::Switch(Switch::default()))
    }

    /// Selects the active child of a switch or LOD switch (`None` draws and picks nothing).
    /// Detaching the active child clears the selection. A LOD switch keeps it for picking
    /// until the next selection ([`Scene::select_levels_of_detail`], a draw); culling a
    /// camera ([`Scene::cull`]) always uses the camera's own choice ([`Scene::view`]), so a
    /// forced LOD child is culled through [`Scene::cull_view`] with a view of your own.
    ///
    /// # Errors
    /// [`SceneError::StaleId`], [`SceneError::NotASwitch`], [`SceneError::NotAChild`].
    pub fn set_active_child(
        &mut self,
        switch: NodeId,
        child: Option<NodeId>,
    ) -> Result<(), SceneError> {
        let node = self.node(switch)?;
        if !node.data.kind().is_switch() {
            return Err(SceneError::NotASwitch(node.name.clone()));
        }
        if let Some(c) = child {
            if !node.children.contains(&c) {
                return Err(SceneError::NotAChild {
                    parent: node.name.clone(),
                    child: self.name(c).unwrap_or("<stale>").to_owned(),
                });
            }
        }
        if let Some(active) = self.node_mut(switch)?.data.active_mut() {
            *active = child;
        }
        Ok(())
    }

    /// Selects the active child of a switch by position (`None` for none).
    ///
    /// # Errors
    /// As [`Scene::set_active_child`]; an index past the end is [`SceneError::NotAChild`].
    pub fn set_active_index(
        &mut self,
        switch: NodeId,
        index: Option<usize>,
    ) -> Result<(), SceneError> {
        let child = match index {
            None => None,
            Some(i) => {
                let node = self.node(switch)?;
                match node.children.get(i) {
                    Some(&c) => Some(c),
                    None => {
                        return Err(SceneError::NotAChild {
                            parent: node.name.clone(),
                            child: format!("<index {i}>"),
                        })
                    }
                }
            }
        };
        self.set_active_child(switch, child)
    }

    /// The active child of a switch or LOD switch.
    ///
    /// # Errors
    /// [`SceneError::StaleId`], [`SceneError::NotASwitch`].
    pub fn active_child(&self, switch: NodeId) -> Result<Option<NodeId>, SceneError> {
        let node = self.node(switch)?;
        match &node.data {
            NodeData::Switch(s) => Ok(s.active),
            NodeData::Lod(l) => Ok(l.active),
            _ => Err(SceneError::NotASwitch(node.name.clone())),
        }
    }
}
