//! BSP nodes, region managers and convex regions in scene files: planes, child slots and
//! portals (linked once every node exists, so a portal may name a region defined later).

use glam::Vec3;

use super::ctx::{v3, Ctx};
use super::doc::{BspDoc, BspSideDoc, NodeDoc, NodeKindDoc};
use crate::graph::{NodeId, Scene};
use crate::io::error::IoError;
use crate::partition::BspSide;

fn side(d: BspSideDoc) -> BspSide {
    match d {
        BspSideDoc::Positive => BspSide::Positive,
        BspSideDoc::Coplanar => BspSide::Coplanar,
        BspSideDoc::Negative => BspSide::Negative,
    }
}

/// Creates a `bsp` / `region_manager` node under `parent` with its local plane.
pub(super) fn add_bsp(
    scene: &mut Scene,
    ctx: &Ctx,
    parent: NodeId,
    doc: &NodeDoc,
    manager: bool,
    path: &str,
) -> Result<NodeId, IoError> {
    let Some(b) = &doc.bsp else {
        return Err(ctx.invalid(path, "a BSP node needs \"bsp\""));
    };
    let n = v3(&b.normal);
    if n.is_nan() {
        return Err(ctx.invalid(path, "the BSP plane's normal is not a number"));
    }
    if n == Vec3::ZERO {
        return Err(ctx.invalid(path, "the BSP plane's normal is zero"));
    }
    scene
        .add_bsp_given(parent, doc.name.clone(), n, b.constant.get(), manager)
        .map_err(ctx.scene_err(path))
}

/// Puts the children of the BSP node `id` in their slots.
pub(super) fn fill_slots(
    scene: &mut Scene,
    ctx: &Ctx,
    id: NodeId,
    doc: &BspDoc,
    path: &str,
) -> Result<(), IoError> {
    let children = scene.children(id).map_err(ctx.scene_err(path))?.to_vec();
    let sides: Vec<BspSide> = match &doc.sides {
        Some(s) => s.iter().copied().map(side).collect(),
        None => BspSide::ALL.to_vec(),
    };
    if doc.sides.is_none() && children.len() > 3 {
        return Err(ctx.invalid(
            path,
            format!(
                "{} children for 3 BSP slots; say which are in a slot with \"sides\"",
                children.len()
            ),
        ));
    }
    if let Some(s) = &doc.sides {
        if s.len() > children.len() {
            return Err(ctx.invalid(
                path,
                format!("{} BSP sides for {} children", s.len(), children.len()),
            ));
        }
    }
    for (i, s) in sides.iter().enumerate() {
        if sides[..i].contains(s) {
            return Err(ctx.invalid(path, format!("the {} slot is given twice", s.name())));
        }
    }
    for (c, s) in children.into_iter().zip(sides) {
        scene
            .set_bsp_child(id, s, Some(c))
            .map_err(ctx.scene_err(path))?;
    }
    Ok(())
}

/// Adds the portals of every `region` in the tree under `root` (walked iteratively, paths as
/// in the build).
pub(super) fn link_portals(scene: &mut Scene, ctx: &Ctx, root: &NodeDoc) -> Result<(), IoError> {
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
