//! Node kinds in scene files, one file per kind beside [`crate::nodes`]: what a node of the
//! kind may carry (`check_fields`), how it is created under its parent (`create`), how its
//! links to its children are set once they exist (`link`), and how it is saved (`save`). The file's kind (`"kind"`, a
//! [`NodeKindDoc`]) converts 1:1 to [`NodeKind`](crate::NodeKind); a node without one is a
//! geometry node when it has a `"mesh"`, else a group.

use super::ctx::Ctx;
use super::doc::{NodeDoc, NodeKindDoc};
use crate::graph::{NodeId, NodeKind, Scene};
use crate::io::error::IoError;

mod billboard;
pub(super) mod bsp;
mod cx;
mod geometry;
mod group;
mod lod;
pub(super) mod region;
mod region_manager;
mod switch;

pub(super) use cx::SaveCx;

/// The kind a node is: its `"kind"`, else geometry with a `"mesh"` and group without.
pub(super) fn kind_of(doc: &NodeDoc) -> NodeKindDoc {
    doc.kind.unwrap_or(if doc.mesh.is_some() {
        NodeKindDoc::Geometry
    } else {
        NodeKindDoc::Group
    })
}

/// Refuses the kind-specific fields a node of another kind carries (`"active"` is a switch's,
/// `"lod"` a LOD node's, `"bsp"` a BSP node's or region manager's, `"portals"` a region's).
///
/// # Errors
/// [`IoError::Invalid`] naming the field.
pub(super) fn check_fields(ctx: &Ctx, doc: &NodeDoc, path: &str) -> Result<(), IoError> {
    let kind = kind_of(doc);
    if doc.active.is_some() && kind != NodeKindDoc::Switch {
        return Err(ctx.invalid(path, "\"active\" is only for switch nodes"));
    }
    if doc.lod.is_some() != (kind == NodeKindDoc::Lod) {
        return Err(ctx.invalid(path, "a \"lod\" node needs \"lod\", and only it has one"));
    }
    let is_bsp = matches!(kind, NodeKindDoc::Bsp | NodeKindDoc::RegionManager);
    if doc.bsp.is_some() != is_bsp {
        return Err(ctx.invalid(
            path,
            "\"bsp\" and \"region_manager\" nodes need \"bsp\", and only they have one",
        ));
    }
    if !doc.portals.is_empty() && kind != NodeKindDoc::Region {
        return Err(ctx.invalid(path, "only \"region\" nodes have \"portals\""));
    }
    Ok(())
}

/// Creates the node `doc` describes as the last child of `parent`: the one dispatch from the
/// file's kind to its file.
///
/// # Errors
/// What the kind's file returns; a `"mesh"` on a node that is not geometry.
pub(super) fn create(
    scene: &mut Scene,
    ctx: &Ctx,
    parent: NodeId,
    doc: &NodeDoc,
    path: &str,
) -> Result<NodeId, IoError> {
    let kind = kind_of(doc);
    if kind != NodeKindDoc::Geometry && doc.mesh.is_some() {
        return Err(ctx.invalid(path, "only geometry nodes have a \"mesh\""));
    }
    match kind {
        NodeKindDoc::Group => group::create(scene, ctx, parent, doc, path),
        NodeKindDoc::Geometry => geometry::create(scene, ctx, parent, doc, path),
        NodeKindDoc::Switch => switch::create(scene, ctx, parent, doc, path),
        NodeKindDoc::Billboard => billboard::create(scene, ctx, parent, doc, path),
        NodeKindDoc::Lod => lod::create(scene, ctx, parent, doc, path),
        NodeKindDoc::Bsp => bsp::create(scene, ctx, parent, doc, path),
        NodeKindDoc::RegionManager => region_manager::create(scene, ctx, parent, doc, path),
        NodeKindDoc::Region => region::create(scene, ctx, parent, doc, path),
    }
}

/// Sets the links of node `id` to its children (active child, BSP slots, LOD ranges) once
/// they exist. Portals are linked after the whole tree ([`region::link_portals`]), since they
/// may name a region defined later.
///
/// # Errors
/// What the kind's file returns.
pub(super) fn link(
    scene: &mut Scene,
    ctx: &Ctx,
    id: NodeId,
    doc: &NodeDoc,
    path: &str,
) -> Result<(), IoError> {
    match kind_of(doc) {
        NodeKindDoc::Switch => switch::link(scene, ctx, id, doc, path),
        NodeKindDoc::Lod => lod::link(scene, ctx, id, doc, path),
        NodeKindDoc::Bsp | NodeKindDoc::RegionManager => bsp::link(scene, ctx, id, doc, path),
        NodeKindDoc::Group
        | NodeKindDoc::Geometry
        | NodeKindDoc::Billboard
        | NodeKindDoc::Region => Ok(()),
    }
}

/// Writes node `id`'s kind and its kind's fields into `doc` (a group, the default, is left
/// out): the one dispatch from the scene's kind to its file.
///
/// # Errors
/// [`IoError::Unsupported`] for what the kind's fields cannot hold.
pub(super) fn save(cx: &SaveCx, id: NodeId, path: &str, doc: &mut NodeDoc) -> Result<(), IoError> {
    let kind = cx.scene.kind(id).map_err(cx.scene_err(path))?;
    // The file's kinds are the scene's, 1:1.
    doc.kind = (kind != NodeKind::Group).then(|| kind.into());
    match kind {
        NodeKind::Geometry => geometry::save(cx, id, path, doc),
        NodeKind::Switch => switch::save(cx, id, path, doc),
        NodeKind::Lod => lod::save(cx, id, path, doc),
        NodeKind::Bsp | NodeKind::RegionManager => bsp::save(cx, id, path, doc),
        NodeKind::Region => region::save(cx, id, path, doc),
        NodeKind::Group | NodeKind::Billboard => Ok(()),
    }
}
