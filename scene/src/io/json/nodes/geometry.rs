//! `"kind": "geometry"` (the default with a `"mesh"`): a leaf with a mesh (generated, inline,
//! continuous-LOD, curve or surface; see [`meshes`](super::super::meshes)) or a particle
//! system.

use std::sync::Arc;

use crate::values::controller::MeshController as _;
use crate::values::mesh::Mesh;
use crate::values::particles::PointController;
use crate::values::skin::SkinController;
use crate::values::transform::Transform;

use super::cx::SaveCx;

use crate::graph::node::NodeData;
use crate::graph::{NodeId, Scene};
use crate::io::budget::Budget;
use crate::io::error::IoError;
use crate::io::json::ctx::{v3, v4, Ctx};
use crate::io::json::doc::{MeshDoc, NodeDoc, ParticlesDoc};
use crate::io::json::meshes::{mesh, mesh_doc};
use crate::io::json::motion;
use crate::io::json::real::{re, re3, re4};
use crate::values::controller::ControllerTiming;
use crate::values::particles::{ParticleController, Particles, RandomParticles, MAX_PARTICLES};

/// A geometry leaf under `parent`.
///
/// # Errors
/// [`IoError::Invalid`] for a geometry node without a mesh or with children or an import;
/// what building the mesh or particle system returns.
pub(super) fn create(
    scene: &mut Scene,
    ctx: &Ctx,
    parent: NodeId,
    doc: &NodeDoc,
    path: &str,
) -> Result<NodeId, IoError> {
    let Some(m) = &doc.mesh else {
        return Err(ctx.invalid(path, "a geometry node needs a \"mesh\""));
    };
    if !doc.children.is_empty() || doc.import.is_some() {
        return Err(ctx.invalid(path, "a geometry node has no \"children\" or \"import\""));
    }
    if let MeshDoc::Particles(p) = m {
        return particles(scene, ctx, parent, &doc.name, p, path);
    }
    if let Some(levels) = crate::io::json::clod::levels(ctx, path, m, mesh)? {
        return scene
            .add_level_geometry(parent, doc.name.clone(), levels)
            .map_err(ctx.scene_err(path));
    }
    let mesh = Arc::new(mesh(ctx, path, m)?);
    scene
        .add_geometry(parent, doc.name.clone(), mesh)
        .map_err(ctx.scene_err(path))
}

/// A particle node: explicit `locations` and `sizes`, or a seeded `random` system with its
/// motion (see `docs/scene-format.md`).
fn particles(
    scene: &mut Scene,
    ctx: &Ctx,
    parent: NodeId,
    name: &str,
    p: &ParticlesDoc,
    context: &str,
) -> Result<NodeId, IoError> {
    let err = ctx.scene_err(context);
    let (system, motion) = match (&p.locations, &p.sizes, &p.random) {
        (Some(locations), Some(sizes), None) => {
            if locations.len() > MAX_PARTICLES {
                return Err(ctx.invalid(
                    context,
                    format!("{} particles (at most {MAX_PARTICLES})", locations.len()),
                ));
            }
            charge_particles(ctx, context, locations.len())?;
            let system = Particles::new(
                locations.iter().map(v3).collect(),
                sizes.iter().map(|s| s.get()).collect(),
            )
            .map_err(&err)?;
            let motion = match &p.motion {
                Some(m) => Some(motion::particle_motion(ctx, context, &system, m)?),
                None => None,
            };
            (system, motion)
        }
        (None, None, Some(r)) => {
            if p.motion.is_some() {
                return Err(ctx.invalid(
                    context,
                    "\"random\" particles have their own motion; \"motion\" is for \"locations\"",
                ));
            }
            if p.colors.is_some() {
                return Err(ctx.invalid(
                    context,
                    "\"random\" particles draw their colours from \"color_min\" and \"color_max\"",
                ));
            }
            let count = r.count as usize;
            if count > MAX_PARTICLES {
                return Err(ctx.invalid(
                    context,
                    format!("\"count\" {count} is more than {MAX_PARTICLES} particles"),
                ));
            }
            charge_particles(ctx, context, count)?;
            let params = RandomParticles {
                seed: r.seed,
                count,
                half_extent: r.half_extent.get(),
                size: (r.size[0].get(), r.size[1].get()),
                speed: (r.speed[0].get(), r.speed[1].get()),
                color: (v4(&r.color_min), v4(&r.color_max)),
            };
            let timing = ControllerTiming::over(0.0, f64::MAX)
                .and_then(|t| t.with_phase(f64::from(r.phase.get())))
                .map_err(&err)?
                .with_active(r.moving);
            let c = ParticleController::random(timing, &params).map_err(&err)?;
            (c.rest().clone(), Some(c))
        }
        _ => {
            return Err(ctx.invalid(
                context,
                "\"particles\" needs \"locations\" and \"sizes\", or \"random\"",
            ))
        }
    };
    let mut system = system;
    if let Some(colors) = &p.colors {
        system = system
            .with_colors(colors.iter().map(v4).collect())
            .map_err(&err)?;
    }
    if let Some(a) = p.size_adjust {
        system = system.with_size_adjust(a.get()).map_err(&err)?;
    }
    if let Some(n) = p.active {
        system = system.with_active(n as usize).map_err(&err)?;
    }
    let id = scene
        .add_particles(parent, name.to_owned(), system)
        .map_err(&err)?;
    if let Some(mut c) = motion {
        let rest = scene.particles(id).map_err(&err)?.clone();
        c.set_rest(rest).map_err(&err)?;
        scene.add_particle_controller(id, c).map_err(&err)?;
    }
    Ok(id)
}

/// Charges a particle system of `count` particles (rebuilt for every frame) before it is
/// allocated.
fn charge_particles(ctx: &Ctx, context: &str, count: usize) -> Result<(), IoError> {
    let n = count as u64;
    ctx.charge(context, Budget::Particles, n, || {
        format!("a particle system of {n} particles")
    })
}

/// Writes the `"mesh"`: a particle system as `"particles"` (a moving one at its rest state,
/// with its motion), any other mesh inline (a skinned or point-moved one at its rest shape).
///
/// # Errors
/// [`IoError::Unsupported`] for a motion the format cannot hold.
pub(super) fn save(cx: &SaveCx, id: NodeId, path: &str, doc: &mut NodeDoc) -> Result<(), IoError> {
    let scene = cx.scene;
    let err = cx.scene_err(path);
    if scene.is_particles(id) {
        // A moving system is written at its rest state with its motion in the exact
        // form (speeds and unit directions as the controller keeps them; a random
        // system expanded particle by particle); the loader makes that state the
        // controller's rest again. Colours and the active count are the system's
        // own (the motion leaves them alone).
        let p = scene.particles(id).map_err(&err)?;
        let controller = scene
            .particle_systems
            .iter()
            .find(|l| l.node == id)
            .and_then(|l| l.controller.as_ref());
        let mut motion_doc = None;
        let mut shown = p;
        if let Some(c) = controller {
            motion_doc = Some(motion::particle_motion_doc(c).map_err(|f| cx.unsupported(path, f))?);
            if c.timing().active() {
                shown = c.rest();
            }
        }
        doc.mesh = Some(MeshDoc::Particles(ParticlesDoc {
            locations: Some(shown.locations().iter().copied().map(re3).collect()),
            sizes: Some(shown.sizes().iter().copied().map(re).collect()),
            colors: p.colors().map(|c| c.iter().copied().map(re4).collect()),
            size_adjust: Some(re(shown.size_adjust())),
            active: Some(u32::try_from(p.active()).unwrap_or(u32::MAX)),
            motion: motion_doc,
            ..ParticlesDoc::default()
        }));
    } else if let Some(levels) = scene.level_mesh(id).map_err(&err)? {
        doc.mesh = Some(level_doc(levels));
    } else {
        let mesh: &Mesh = scene.mesh(id).map_err(&err)?;
        // The mesh the skin was attached to (while the skin runs; an inactive skin's leaf
        // keeps the mesh it has).
        let attached = match &scene.node(id).map_err(&err)?.data {
            NodeData::Geometry(g) => g.rest.as_deref().cloned(),
            _ => None,
        };
        let mesh = match skinned_rest(scene, id, mesh) {
            Some(identity_pose) => attached.unwrap_or(identity_pose),
            None => point_rest(scene, id, mesh)
                .map_err(|f| cx.unsupported(path, f))?
                .unwrap_or_else(|| mesh.clone()),
        };
        doc.mesh = Some(MeshDoc::Inline(mesh_doc(&mesh)));
    }
    Ok(())
}

/// The mesh written for a skinned leaf: what its skin gives with every bone at the identity.
/// The skin recomputes the mesh at every update, so what is written only has to be the same
/// whatever pose the bones were in when the scene was saved (a reloaded scene, whose
/// animations posed the bones at load, then saves to the same file).
fn skinned_rest(scene: &Scene, id: NodeId, mesh: &Mesh) -> Option<Mesh> {
    let (_, c) = scene.mesh_controllers.iter().find(|(n, _)| *n == id)?;
    let mut skin = c.as_any()?.downcast_ref::<SkinController>()?.clone();
    if !skin.active() {
        return None;
    }
    let bones = vec![Transform::IDENTITY; skin.bones().len()];
    skin.update(0.0, mesh, &bones)
}

/// The mesh written for a leaf with an active point motion: its rest positions and normals
/// with the colours and uv sets the controller keeps (it rebuilds the mesh from them at every
/// update, as [`PointController`]'s update does). `Ok(None)` without an active point motion.
fn point_rest(scene: &Scene, id: NodeId, mesh: &Mesh) -> Result<Option<Mesh>, &'static str> {
    let Some(c) = scene
        .mesh_controllers
        .iter()
        .filter(|(n, _)| *n == id)
        .find_map(|(_, c)| c.as_any()?.downcast_ref::<PointController>())
    else {
        return Ok(None);
    };
    if !c.timing().active() {
        return Ok(None);
    }
    let (positions, normals) = c.rest();
    const OTHER: &str = "point motion whose rest shape no longer fits its mesh";
    let mut out = Mesh::new(mesh.topology(), positions.to_vec(), mesh.indices().to_vec())
        .map_err(|_| OTHER)?;
    match (normals, mesh.normals()) {
        (Some(n), _) => out = out.with_normals(n.to_vec()).map_err(|_| OTHER)?,
        (None, Some(_)) => {
            return Err("point motion over a mesh that gained normals after the controller")
        }
        (None, None) => {}
    }
    if let Some(c) = mesh.colors() {
        out = out.with_colors(c.to_vec()).map_err(|_| OTHER)?;
    }
    for set in mesh.uv_sets() {
        out = out.with_uv_set(set.clone()).map_err(|_| OTHER)?;
    }
    Ok(Some(out))
}

/// A level-selecting leaf as the document that builds it again: a `clod` of its full-detail
/// mesh at the record shown, or a `curve` from its finest `level` down to `min_level`, with
/// the `select` rule.
fn level_doc(levels: &crate::values::levels::LevelMesh) -> MeshDoc {
    use crate::io::json::doc::{ClodDoc, CurveDoc, SelectDoc};
    use crate::values::levels::LevelSource;
    let rule = levels.select();
    let select = |min_level| {
        Some(SelectDoc {
            near: re(rule.near),
            far: re(rule.far),
            min_level,
        })
    };
    match levels.source() {
        LevelSource::Clod { base, .. } => MeshDoc::Clod(ClodDoc {
            mesh: Box::new(MeshDoc::Inline(mesh_doc(base))),
            record: (levels.current() != 0)
                .then(|| u32::try_from(levels.current()).unwrap_or(u32::MAX)),
            fraction: None,
            select: select(None),
        }),
        LevelSource::Curve {
            curve,
            min,
            max,
            colors,
        } => {
            let mut points = Vec::new();
            let mut degree = 3;
            for (i, s) in curve.segments().iter().enumerate() {
                let cp = s.control_points();
                degree = cp.len().saturating_sub(1) as u32;
                let skip = usize::from(i > 0);
                points.extend(cp.iter().skip(skip).map(|p| re3(*p)));
            }
            MeshDoc::Curve(CurveDoc {
                points,
                degree,
                level: *max,
                colors: colors.as_ref().map(|c| c.iter().map(|x| re4(*x)).collect()),
                select: select((*min != 0).then_some(*min)),
            })
        }
        LevelSource::Surface {
            surface,
            min,
            max,
            colors,
        } => {
            use crate::io::json::doc::{PatchDoc, SurfaceDoc};
            use crate::values::levels::Patch;
            let (patch, degree, degree_v, points) = match surface {
                Patch::Rectangle { degree, points, .. } => (
                    PatchDoc::Rectangle,
                    degree[0],
                    (degree[1] != degree[0]).then_some(degree[1] as u32),
                    points,
                ),
                Patch::Triangle { degree, points, .. } => {
                    (PatchDoc::Triangle, *degree, None, points)
                }
            };
            MeshDoc::Surface(SurfaceDoc {
                patch,
                degree: degree as u32,
                degree_v,
                points: points.iter().map(|p| re3(*p)).collect(),
                level: *max,
                colors: colors.as_ref().map(|c| c.iter().map(|x| re4(*x)).collect()),
                select: select((*min != 0).then_some(*min)),
            })
        }
    }
}
