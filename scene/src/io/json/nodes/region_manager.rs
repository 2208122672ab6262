//! `"kind": "region_manager"`: a BSP node (`"bsp"`, see [`bsp`](super::bsp)) whose leaves are
//! regions and whose coplanar child is the outside scene.

use crate::graph::{NodeId, Scene};
use crate::io::error::IoError;
use crate::io::json::ctx::Ctx;
use crate::io::json::doc::NodeDoc;

/// A region manager under `parent` with its plane (its slots are set by
/// [`bsp::link`](super::bsp::link)).
pub(super) fn create(
    scene: &mut Scene,
    ctx: &Ctx,
    parent: NodeId,
    doc: &NodeDoc,
    path: &str,
) -> Result<NodeId, IoError> {
    super::bsp::add(scene, ctx, parent, doc, true, path)
}
