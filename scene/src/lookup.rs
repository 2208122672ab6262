//! Finding nodes: pre-order walks and lookup by name (deterministic when names repeat).

use crate::error::SceneError;
use crate::graph::{NodeId, Scene};

impl Scene {
    /// Pre-order walk of the subtree at `from` (itself first, children in order).
    ///
    /// # Errors
    /// [`SceneError::StaleId`].
    pub fn preorder(&self, from: NodeId) -> Result<Vec<NodeId>, SceneError> {
        self.node(from)?;
        let mut out = Vec::new();
        let mut stack = vec![from];
        while let Some(n) = stack.pop() {
            if let Ok(node) = self.node(n) {
                out.push(n);
                stack.extend(node.children.iter().rev());
            }
        }
        Ok(out)
    }

    /// All attached nodes called `name`, in pre-order from the root (deterministic when names
    /// repeat).
    pub fn find_all(&self, name: &str) -> Vec<NodeId> {
        let mut out = Vec::new();
        let mut stack = vec![self.root()];
        while let Some(n) = stack.pop() {
            if let Ok(node) = self.node(n) {
                if node.name == name {
                    out.push(n);
                }
                stack.extend(node.children.iter().rev());
            }
        }
        out
    }

    /// The first attached node called `name` in pre-order from the root.
    pub fn find(&self, name: &str) -> Option<NodeId> {
        let mut stack = vec![self.root()];
        while let Some(n) = stack.pop() {
            if let Ok(node) = self.node(n) {
                if node.name == name {
                    return Some(n);
                }
                stack.extend(node.children.iter().rev());
            }
        }
        None
    }
}
