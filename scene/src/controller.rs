//! A minimal controller interface (Eberly's `Controller`): time-driven edits of a node's local
//! transform, run by [`Scene::update`](crate::Scene::update) before any world data is computed.
//!
//! Controllers run in the order they were added, so their effects are deterministic. A
//! controller returning a new transform goes through
//! [`Scene::set_local_transform`](crate::Scene::set_local_transform), which marks the node
//! dirty like any user edit. Controllers of removed nodes are dropped with them. Attach one
//! with [`Scene::add_controller`](crate::Scene::add_controller).

use crate::transform::Transform;

/// Animates a node's local transform as a function of application time.
///
/// Closures `FnMut(f64, &Transform) -> Option<Transform>` implement it.
pub trait Controller: Send + Sync {
    /// Called once per [`Scene::update`](crate::Scene::update) with the application time and
    /// the node's current local transform; returns the new local transform, or `None` to leave
    /// it as is.
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
