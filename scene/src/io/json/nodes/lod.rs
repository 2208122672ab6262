//! `"kind": "lod"` with `"lod": {"center", "ranges"}`: one `[min, max)` range per child.

use glam::Vec3;

use crate::graph::node::NodeData;
use crate::graph::{NodeId, Scene};
use crate::io::error::IoError;
use crate::io::json::ctx::{v3, Ctx};
use crate::io::json::doc::{LodDoc, NodeDoc};
use crate::io::json::real::{re, re3};

use super::cx::SaveCx;

/// A LOD switch under `parent` with its centre (its ranges are set by [`link`]).
pub(super) fn create(
    scene: &mut Scene,
    ctx: &Ctx,
    parent: NodeId,
    doc: &NodeDoc,
    path: &str,
) -> Result<NodeId, IoError> {
    let center = doc.lod.as_ref().map_or(Vec3::ZERO, |l| v3(&l.center));
    scene
        .add_dlod(parent, doc.name.clone(), center)
        .map_err(ctx.scene_err(path))
}

/// Sets one range per child, in child order, once the children exist.
///
/// # Errors
/// [`IoError::Invalid`] when the ranges are not one per child.
pub(super) fn link(
    scene: &mut Scene,
    ctx: &Ctx,
    id: NodeId,
    doc: &NodeDoc,
    path: &str,
) -> Result<(), IoError> {
    let Some(lod) = &doc.lod else {
        return Ok(());
    };
    let children = scene.children(id).map_err(ctx.scene_err(path))?.to_vec();
    // One range per child, no more and no fewer: a child without one would never be
    // chosen, and nothing would say so.
    if lod.ranges.len() != children.len() {
        return Err(ctx.invalid(
            path,
            format!(
                "{} LOD ranges for {} children (one `[min, max)` per child, in child order)",
                lod.ranges.len(),
                children.len()
            ),
        ));
    }
    for (c, [min, max]) in children.into_iter().zip(&lod.ranges) {
        scene
            .set_lod_range(id, c, min.get(), max.get())
            .map_err(ctx.scene_err(path))?;
    }
    Ok(())
}

/// Writes `"lod"` (the centre, one range per child in child order) and the active child.
///
/// # Errors
/// [`IoError::Unsupported`] for ranges that are not set on the first children in order.
pub(super) fn save(cx: &SaveCx, id: NodeId, path: &str, doc: &mut NodeDoc) -> Result<(), IoError> {
    let node = cx.scene.node(id).map_err(cx.scene_err(path))?;
    if let NodeData::Lod(lod) = &node.data {
        let mut ranges = Vec::new();
        for (i, (child, min, max)) in lod.ranges.iter().enumerate() {
            if node.children.get(i) != Some(child) {
                return Err(cx.unsupported(
                    path,
                    "LOD ranges that are not set on the first children in order",
                ));
            }
            ranges.push([re(*min), re(*max)]);
        }
        doc.lod = Some(LodDoc {
            center: re3(lod.center),
            ranges,
        });
    }
    super::switch::save(cx, id, path, doc)
}
