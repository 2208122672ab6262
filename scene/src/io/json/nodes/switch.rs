//! `"kind": "switch"` with its `"active"` child index.

use crate::graph::{NodeId, Scene};
use crate::io::error::IoError;
use crate::io::json::ctx::Ctx;
use crate::io::json::doc::NodeDoc;

use super::cx::SaveCx;

/// A switch under `parent` (its active child is set by [`link`]).
pub(super) fn create(
    scene: &mut Scene,
    ctx: &Ctx,
    parent: NodeId,
    doc: &NodeDoc,
    path: &str,
) -> Result<NodeId, IoError> {
    scene
        .add_switch(parent, doc.name.clone())
        .map_err(ctx.scene_err(path))
}

/// Selects child `"active"` once the children exist.
pub(super) fn link(
    scene: &mut Scene,
    ctx: &Ctx,
    id: NodeId,
    doc: &NodeDoc,
    path: &str,
) -> Result<(), IoError> {
    if let Some(i) = doc.active {
        scene
            .set_active_index(id, Some(i))
            .map_err(ctx.scene_err(path))?;
    }
    Ok(())
}

/// Writes `"active"`: the index of the active child.
pub(super) fn save(cx: &SaveCx, id: NodeId, path: &str, doc: &mut NodeDoc) -> Result<(), IoError> {
    let scene = cx.scene;
    if let Some(active) = scene.active_child(id).map_err(cx.scene_err(path))? {
        let children = scene.children(id).map_err(cx.scene_err(path))?;
        doc.active = children.iter().position(|c| *c == active);
    }
    Ok(())
}
