//! `"kind": "group"` (the default without a `"mesh"`): nothing of its own.

use crate::graph::{NodeId, Scene};
use crate::io::error::IoError;
use crate::io::json::ctx::Ctx;
use crate::io::json::doc::NodeDoc;

/// A group under `parent`.
pub(super) fn create(
    scene: &mut Scene,
    ctx: &Ctx,
    parent: NodeId,
    doc: &NodeDoc,
    path: &str,
) -> Result<NodeId, IoError> {
    scene
        .add_group(parent, doc.name.clone())
        .map_err(ctx.scene_err(path))
}
