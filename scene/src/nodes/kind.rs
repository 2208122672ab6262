//! What every kind file shares: the hooks the passes call ([`KindHooks`]) and the text
//! dump's small formatters. Kind files import from here, and the dispatcher in
//! [`nodes`](super) imports the kind files, so nothing here names a kind.

use std::fmt::Write as _;

use glam::Vec3;

use crate::graph::{NodeId, Scene};
use crate::values::error::SceneError;

/// What the passes ask of a node's kind.
pub(crate) trait KindHooks {
    /// The kind's part of the node's line in [`Scene::dump`] (`"group"`,
    /// `"switch active=a"` …).
    fn describe(&self, scene: &Scene, id: NodeId) -> String;

    /// Step 1 of a deep copy ([`copy`](crate::passes::copy)): a new node of this kind, with this
    /// node's own data, as the last child of `parent`; links to other nodes are left empty.
    ///
    /// # Errors
    /// What creating the node returns (node or depth limit).
    fn copy_node(
        &self,
        scene: &mut Scene,
        parent: NodeId,
        name: String,
    ) -> Result<NodeId, SceneError>;

    /// Step 3 of a deep copy, once every copied node exists: the links of `from` (this node)
    /// to other nodes (active child, slots, ranges, portals), each mapped through `map`, set
    /// on `copy`.
    ///
    /// # Errors
    /// What the kind's setters return.
    fn copy_links(
        &self,
        scene: &mut Scene,
        from: NodeId,
        copy: NodeId,
        map: &dyn Fn(NodeId) -> NodeId,
    ) -> Result<(), SceneError> {
        let _ = (scene, from, copy, map);
        Ok(())
    }
}

/// A node's name as the text dump shows it: `<stale>` for a removed node, `(unnamed)` for an
/// empty name.
pub(crate) fn display_name(scene: &Scene, id: NodeId) -> &str {
    match scene.name(id) {
        Ok("") => "(unnamed)",
        Ok(n) => n,
        Err(_) => "<stale>",
    }
}

/// A vector as the text dump writes it: `(x, y, z)`.
pub(crate) fn fmt_v3(v: Vec3) -> String {
    let mut s = String::new();
    let _ = write!(s, "({}, {}, {})", v.x, v.y, v.z);
    s
}

/// The error for a node that is not of the kind an operation needs.
pub(crate) fn wrong_kind(what: &'static str, name: &str, article: &str) -> SceneError {
    SceneError::InvalidArgument {
        what,
        message: format!("`{name}` is not {article}"),
    }
}
