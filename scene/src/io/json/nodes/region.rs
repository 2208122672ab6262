//! `"kind": "region"` with `"portals"`: each a polygon and the region it leads to (`"to"`),
//! linked once every node exists, so a portal may name a region defined later.

use crate::graph::{NodeId, Scene};
use crate::io::error::IoError;
use crate::io::json::ctx::{v3, Ctx};
use crate::io::json::doc::{NodeDoc, NodeKindDoc, PortalDoc};
use crate::io::json::real::re3;

use super::cx::SaveCx;

/// A convex region under `parent` (its portals are added by [`link_portals`]).
pub(super) fn create(
    scene: &mut Scene,
    ctx: &Ctx,
    parent: NodeId,
    doc: &NodeDoc,
    path: &str,
) -> Result<NodeId, IoError> {
    scene
        .add_region(parent, doc.name.clone())
        .map_err(ctx.scene_err(path))
}

/// Adds the portals of every `region` in the tree under `root` (walked iteratively, paths as
/// in the build).
pub(in crate::io::json) fn link_portals(
    scene: &mut Scene,
    ctx: &Ctx,
    root: &NodeDoc,
) -> Result<(), IoError> {
    let mut stack: Vec<(&NodeDoc, String)> = vec![(root, "root".to_owned())];
    while let Some((doc, path)) = stack.pop() {
        for (i, child) in doc.children.iter().enumerate().rev() {
            let child_path = if child.name.is_empty() {
                format!("{path}/#{i}")
            } else {
                format!("{path}/{}", child.name)
            };
            stack.push((child, child_path));
        }
        if doc.portals.is_empty() {
            continue;
        }
        if doc.kind != Some(NodeKindDoc::Region) {
            return Err(ctx.invalid(&path, "only \"region\" nodes have \"portals\""));
        }
        if doc.name.is_empty() {
            return Err(ctx.invalid(&path, "a region with portals needs a unique name"));
        }
        let region = ctx.named(&path, &doc.name)?;
        for (k, p) in doc.portals.iter().enumerate() {
            let context = format!("{path} portal {k}");
            if p.vertices.len() < 3 {
                return Err(ctx.invalid(
                    &context,
                    format!("{} vertices; a portal needs at least 3", p.vertices.len()),
                ));
            }
            let to = ctx.named(&context, &p.to)?;
            if !scene.is_region(to).map_err(ctx.scene_err(&context))? {
                return Err(ctx.invalid(
                    &context,
                    format!("'{}' is not a region; portals lead to regions", p.to),
                ));
            }
            let vertices = p.vertices.iter().map(v3).collect();
            scene
                .add_portal(region, vertices, to, p.open)
                .map_err(ctx.scene_err(&context))?;
        }
    }
    Ok(())
}

/// Writes `"portals"`, each leading to a region by its (unique) name.
///
/// # Errors
/// [`IoError::Unsupported`] for portals from or to a region without a unique name.
pub(super) fn save(cx: &SaveCx, id: NodeId, path: &str, doc: &mut NodeDoc) -> Result<(), IoError> {
    let scene = cx.scene;
    let err = cx.scene_err(path);
    let unique = |r: NodeId, context: &str| -> Result<String, IoError> {
        let name = scene.name(r).map_err(cx.scene_err(context))?;
        if name.is_empty() || cx.names.get(name) != Some(&1) {
            return Err(cx.unsupported(
                context,
                "portals between regions without a unique name (rename them first)",
            ));
        }
        Ok(name.to_owned())
    };
    let portals = scene.portals(id).map_err(&err)?;
    if !portals.is_empty() {
        unique(id, path)?;
    }
    for (k, p) in portals.iter().enumerate() {
        let context = format!("{path} portal {k}");
        doc.portals.push(PortalDoc {
            vertices: p.vertices().iter().copied().map(re3).collect(),
            to: unique(p.adjacent(), &context)?,
            open: p.is_open(),
        });
    }
    Ok(())
}
