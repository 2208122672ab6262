//! `"kind": "billboard"`: a group turned to face the camera; nothing else of its own.

use crate::graph::{NodeId, Scene};
use crate::io::error::IoError;
use crate::io::json::ctx::Ctx;
use crate::io::json::doc::NodeDoc;

/// A billboard under `parent`.
pub(super) fn create(
    scene: &mut Scene,
    ctx: &Ctx,
    parent: NodeId,
    doc: &NodeDoc,
    path: &str,
) -> Result<NodeId, IoError> {
    scene
        .add_billboard(parent, doc.name.clone())
        .map_err(ctx.scene_err(path))
}
