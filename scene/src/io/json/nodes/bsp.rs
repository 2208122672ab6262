//! `"kind": "bsp"` with `"bsp": {"normal", "constant", "sides"}`: a plane and the slot of each
//! child (a region manager is written the same way, see
//! [`region_manager`](super::region_manager)).

use glam::Vec3;

use crate::graph::{NodeId, Scene};
use crate::io::error::IoError;
use crate::io::json::ctx::{v3, Ctx};
use crate::io::json::doc::{BspDoc, BspSideDoc, NodeDoc};
use crate::io::json::real::{re, re3};
use crate::values::partition::BspSide;

use super::cx::SaveCx;

/// A BSP node under `parent` with its plane (its slots are set by [`link`]).
pub(super) fn create(
    scene: &mut Scene,
    ctx: &Ctx,
    parent: NodeId,
    doc: &NodeDoc,
    path: &str,
) -> Result<NodeId, IoError> {
    add(scene, ctx, parent, doc, false, path)
}

fn side(d: BspSideDoc) -> BspSide {
    match d {
        BspSideDoc::Positive => BspSide::Positive,
        BspSideDoc::Coplanar => BspSide::Coplanar,
        BspSideDoc::Negative => BspSide::Negative,
    }
}

/// Creates a `bsp` / `region_manager` node under `parent` with its local plane.
pub(super) fn add(
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

/// Puts the children of the BSP node (or region manager) `id` in their slots, once they
/// exist.
///
/// # Errors
/// [`IoError::Invalid`] for more children than slots without `"sides"`, more sides than
/// children, or a slot given twice.
pub(super) fn link(
    scene: &mut Scene,
    ctx: &Ctx,
    id: NodeId,
    doc: &NodeDoc,
    path: &str,
) -> Result<(), IoError> {
    let Some(doc) = &doc.bsp else {
        return Ok(());
    };
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

/// Writes `"bsp"`: the plane as given, and `"sides"` unless the children fill the slots in
/// order.
///
/// # Errors
/// [`IoError::Unsupported`] for children in no slot placed before ones in a slot.
pub(super) fn save(cx: &SaveCx, id: NodeId, path: &str, doc: &mut NodeDoc) -> Result<(), IoError> {
    let scene = cx.scene;
    let err = cx.scene_err(path);
    let node = scene.node(id).map_err(&err)?;
    let mut sides = Vec::new();
    let mut unslotted = false;
    for &c in &node.children {
        let side = BspSide::ALL
            .into_iter()
            .find(|&s| scene.bsp_child(id, s).ok().flatten() == Some(c));
        match side {
            Some(_) if unslotted => {
                return Err(
                    cx.unsupported(path, "BSP children in no slot placed before ones in a slot")
                )
            }
            Some(s) => sides.push(match s {
                BspSide::Positive => BspSideDoc::Positive,
                BspSide::Coplanar => BspSideDoc::Coplanar,
                BspSide::Negative => BspSideDoc::Negative,
            }),
            None => unslotted = true,
        }
    }
    let default = [
        BspSideDoc::Positive,
        BspSideDoc::Coplanar,
        BspSideDoc::Negative,
    ];
    let is_default = !unslotted && sides.len() <= 3 && sides.as_slice() == &default[..sides.len()];
    let (normal, constant) = scene.bsp_given_plane(id).map_err(&err)?;
    doc.bsp = Some(BspDoc {
        normal: re3(normal),
        constant: re(constant),
        sides: (!is_default).then_some(sides),
    });
    Ok(())
}
