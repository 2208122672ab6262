//! Switch nodes (Eberly's `SwitchNode`): a group of which exactly one child — or none — is
//! active. Culling (hence drawing) and picking visit only the active child; `update` keeps all
//! children current and the switch's bound covers all of them, so switching costs no update.

use crate::error::SceneError;
use crate::graph::{NodeId, Scene};
use crate::node::NodeData;

impl Scene {
    /// Selects the active child of a switch (`None` draws and picks nothing). Detaching the
    /// active child clears the selection.
    ///
    /// # Errors
    /// [`SceneError::StaleId`], [`SceneError::NotASwitch`], [`SceneError::NotAChild`].
    pub fn set_active_child(
        &mut self,
        switch: NodeId,
        child: Option<NodeId>,
    ) -> Result<(), SceneError> {
        let node = self.node(switch)?;
        if !matches!(node.data, NodeData::Switch { .. }) {
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
        if let NodeData::Switch { active } = &mut self.node_mut(switch)?.data {
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

    /// The active child of a switch.
    ///
    /// # Errors
    /// [`SceneError::StaleId`], [`SceneError::NotASwitch`].
    pub fn active_child(&self, switch: NodeId) -> Result<Option<NodeId>, SceneError> {
        let node = self.node(switch)?;
        match node.data {
            NodeData::Switch { active } => Ok(active),
            _ => Err(SceneError::NotASwitch(node.name.clone())),
        }
    }
}
