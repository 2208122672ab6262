//! Cyclic definitions, instance nodes, the reference node and layered depth in scene files
//! (`crate::values::definition`, `crate::passes::instancing`, `crate::passes::frames`): the document types and the
//! step that runs once every node exists.

use std::sync::Arc;

use super::ctx::Ctx;
use super::doc::{DefinitionsDoc, InstanceDoc, MeshDoc, NodeDoc, SceneDoc, TransformDoc};
use crate::graph::{NodeId, Scene};
use crate::io::budget::Budget;
use crate::io::error::IoError;
use crate::passes::instancing::{InstanceOptions, Instancing};
use crate::values::definition::{Definitions, EdgeSpec, ProductionSpec};
use crate::values::mesh::Mesh;
use crate::values::transform::Transform;

/// Builds the `definitions`, sets the reference node and layered depth, flags the nodes that
/// share depth and instances every `instance` node with its camera — once every node exists.
/// The instancings are kept in `ctx.imported` so that a draw can re-instance for its camera.
/// `mesh` and `transform` build a document mesh and transform as nodes' are built.
pub(super) fn apply(
    scene: &mut Scene,
    ctx: &mut Ctx<'_>,
    doc: &SceneDoc,
    mesh: fn(&Ctx<'_>, &str, &MeshDoc) -> Result<Mesh, IoError>,
    transform: fn(&Ctx<'_>, &str, &TransformDoc) -> Result<Transform, IoError>,
) -> Result<(), IoError> {
    let defs = match &doc.definitions {
        Some(d) => Some(Arc::new(definitions(ctx, d, mesh, transform)?)),
        None => None,
    };
    if let Some(name) = &doc.reference_node {
        ctx.point("reference_node", "/reference_node".to_owned());
        let id = ctx.named("reference_node", name)?;
        scene
            .set_reference_node(Some(id))
            .map_err(ctx.scene_err("reference_node"))?;
    }
    if let Some(step) = doc.depth_layers {
        ctx.point("depth_layers", "/depth_layers".to_owned());
        scene
            .set_depth_layers(Some(f64::from(step.get())))
            .map_err(ctx.scene_err("depth_layers"))?;
    }
    // The document's children are the scene's first children, in order (imports and camera
    // nodes come after them): walk both trees together.
    let mut stack: Vec<(&NodeDoc, NodeId, String)> =
        vec![(&doc.root, scene.root(), "root".to_owned())];
    while let Some((d, id, path)) = stack.pop() {
        let children = scene.children(id).map_err(ctx.scene_err(&path))?.to_vec();
        for (i, child) in d.children.iter().enumerate().rev() {
            let child_path = if child.name.is_empty() {
                format!("{path}/#{i}")
            } else {
                format!("{path}/{}", child.name)
            };
            let Some(&cid) = children.get(i) else {
                return Err(ctx.invalid(&child_path, "node not built"));
            };
            stack.push((child, cid, child_path));
        }
        if d.share_depth {
            scene
                .set_share_depth(id, true)
                .map_err(ctx.scene_err(&path))?;
        }
        if let Some(inst) = &d.instance {
            let Some(defs) = &defs else {
                return Err(ctx.invalid(&path, "an \"instance\" needs a \"definitions\" section"));
            };
            let instancing = instance(scene, ctx, doc, defs, id, d, inst, &path)?;
            ctx.imported
                .instancings
                .push(crate::io::imported::SceneInstancing {
                    instancing,
                    camera: inst.camera.clone(),
                });
        }
    }
    Ok(())
}

fn definitions(
    ctx: &mut Ctx<'_>,
    d: &DefinitionsDoc,
    mesh: fn(&Ctx<'_>, &str, &MeshDoc) -> Result<Mesh, IoError>,
    transform: fn(&Ctx<'_>, &str, &TransformDoc) -> Result<Transform, IoError>,
) -> Result<Definitions, IoError> {
    let mut models = Vec::with_capacity(d.models.len());
    for (i, m) in d.models.iter().enumerate() {
        let context = format!("model '{}'", m.name);
        ctx.point(&context, format!("/definitions/models/{i}"));
        models.push((m.name.clone(), Arc::new(mesh(ctx, &context, &m.mesh)?)));
    }
    let mut symbols = Vec::with_capacity(d.symbols.len());
    for (i, s) in d.symbols.iter().enumerate() {
        let context = format!("symbol '{}'", s.name);
        ctx.point(&context, format!("/definitions/symbols/{i}"));
        let mut prods = Vec::with_capacity(s.productions.len());
        for (p, prod) in s.productions.iter().enumerate() {
            let mut edges = Vec::with_capacity(prod.edges.len());
            for (e, edge) in prod.edges.iter().enumerate() {
                let ec = format!("{context} production {p} edge {e}");
                ctx.point(
                    &ec,
                    format!("/definitions/symbols/{i}/productions/{p}/edges/{e}"),
                );
                let t = match &edge.transform {
                    Some(t) => transform(ctx, &ec, t)?,
                    None => Transform::IDENTITY,
                };
                edges.push(EdgeSpec::new(edge.to.clone(), t));
            }
            prods.push(ProductionSpec {
                weight: prod.weight.map_or(1.0, |w| f64::from(w.get())),
                edges,
            });
        }
        symbols.push((s.name.clone(), prods));
    }
    Definitions::new(models, symbols).map_err(|e| {
        let context = match &e {
            crate::values::error::SceneError::Definition { symbol, .. } => {
                if d.models.iter().any(|m| &m.name == symbol) {
                    format!("model '{symbol}'")
                } else {
                    format!("symbol '{symbol}'")
                }
            }
            _ => "definitions".to_owned(),
        };
        ctx.scene_err(&context)(e)
    })
}

#[allow(
    clippy::too_many_arguments,
    reason = "one call site; the build's own values"
)]
fn instance(
    scene: &mut Scene,
    ctx: &Ctx<'_>,
    doc: &SceneDoc,
    defs: &Arc<Definitions>,
    id: NodeId,
    d: &NodeDoc,
    inst: &InstanceDoc,
    path: &str,
) -> Result<Instancing, IoError> {
    let kind = scene.kind(id).map_err(ctx.scene_err(path))?;
    if kind.is_leaf() || kind.is_switch() || !d.children.is_empty() || d.import.is_some() {
        return Err(ctx.invalid(
            path,
            "an \"instance\" node is a group without \"children\" or \"import\"",
        ));
    }
    let camera_name = match (&inst.camera, doc.cameras.first()) {
        (Some(c), _) => c.as_str(),
        (None, Some(c)) => c.name.as_str(),
        (None, None) => return Err(ctx.invalid(path, "an \"instance\" needs a camera")),
    };
    let Some((_, camera)) = ctx.cameras.get(camera_name) else {
        return Err(ctx.invalid(path, format!("unknown camera '{camera_name}'")));
    };
    if inst.max_nodes as usize > super::MAX_NODES {
        return Err(ctx.invalid(
            path,
            format!(
                "max_nodes {} is past the scene-file limit of {}",
                inst.max_nodes,
                super::MAX_NODES
            ),
        ));
    }
    // The instance nodes of the load together, as declared, before the tree is expanded.
    let declared = u64::from(inst.max_nodes);
    ctx.charge(path, Budget::InstanceNodes, declared, || {
        format!("an instance of up to {declared} nodes")
    })?;
    let err = ctx.scene_err(path);
    let world_camera = scene
        .camera_in_frame(camera, scene.reference_node(), None)
        .map_err(&err)?;
    let symbol = defs.symbol(&inst.symbol).map_err(&err)?;
    let [w, h] = inst.resolution.unwrap_or([256, 256]);
    let options = InstanceOptions {
        min_area: f64::from(inst.min_area.get()),
        max_depth: inst.max_depth as usize,
        max_nodes: inst.max_nodes as usize,
        seed: inst.seed.unwrap_or(0),
        resolution: (w, h),
    };
    let mut instancing =
        Instancing::with_root(scene, id, Arc::clone(defs), symbol, options).map_err(&err)?;
    instancing.update(scene, &world_camera).map_err(&err)?;
    Ok(instancing)
}
