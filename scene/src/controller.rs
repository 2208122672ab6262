//! A minimal controller interface (Eberly's `Controller`): time-driven edits of a node's local
//! transform, run by [`Scene::update`] before any world data is computed.
//!
//! Controllers run in the order they were added, so their effects are deterministic. A
//! controller returning a new transform goes through [`Scene::set_local`], which marks the
//! node dirty like any user edit. Controllers of removed nodes are dropped with them.

use crate::error::SceneError;
use crate::graph::{NodeId, Scene};
use crate::transform::Transform;

/// Animates a node's local transform as a function of application time.
///
/// Closures `FnMut(f64, &Transform) -> Option<Transform>` implement it.
pub trait Controller: Send + Sync {
    /// Called once per [`Scene::update`] with the application time and the node's current
    /// local transform; returns the new local transform, or `None` to leave it as is.
    fn update(&mut self, time: f64, local: &Transform) -> Option<Transform>;
}

impl<F> Controller for F
where
    F: FnMut(f64, &Transform) -> Option<Transform> + Send + Sync,
{
    fn update(&mut self, time: f64, local: &Transform) -> Option<Transform> {
        self(time, local)
    }
}

impl Scene {
    /// Attaches a controller to `node`.
    ///
    /// # Errors
    /// [`SceneError::StaleId`].
    pub fn add_controller(
        &mut self,
        node: NodeId,
        controller: Box<dyn Controller>,
    ) -> Result<(), SceneError> {
        self.node(node)?;
        self.controllers.push((node, controller));
        Ok(())
    }

    /// Number of controllers attached (to any node).
    pub fn controller_count(&self) -> usize {
        self.controllers.len()
    }

    /// Runs every controller once; returns how many ran.
    pub(crate) fn run_controllers(&mut self, time: f64) -> usize {
        let mut controllers = std::mem::take(&mut self.controllers);
        for (node, c) in &mut controllers {
            let Ok(local) = self.local(*node).copied() else {
                continue;
            };
            if let Some(t) = c.update(time, &local) {
                // The id was just checked, so this cannot fail.
                let _ = self.set_local(*node, t);
            }
        }
        let n = controllers.len();
        // Controllers added during the run (none today) would be kept after the old ones.
        controllers.append(&mut self.controllers);
        self.controllers = controllers;
        n
    }
}
