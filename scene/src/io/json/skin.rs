//! `skin` controllers of a scene file (Eberly's `SkinController`, book-advanced §1.16): built
//! once the whole tree exists, so that bones may be named before or after the skin.
//!
//! The numbers mean what the book's do: `weights[j][k]` is `w_jk` and `offsets[j][k]` is
//! `Θ_jk`, vertex `j` in the model space of bone `k`, so that the skinned vertex is
//! `V_j = Σ_k w_jk·(s_k·R_k·Θ_jk + T_k)` with the bone's **world** transform. Without
//! `offsets`, they are derived from the **bind pose**: the tree as the file places it (every
//! node's `transform` composed from the root; no controller, IK or billboard applied), where
//! vertex `X_j` of the mesh sits at `P_j = S(X_j)` for the skin node's bind world transform
//! `S`, and `Θ_jk = B_k⁻¹(P_j)` for bone `k`'s bind world transform `B_k`. At the bind pose the
//! skinned mesh is then exactly where the file put it; moving a bone moves the vertices it
//! weighs. With derived offsets the normals (when the mesh has them) are skinned as well:
//! `η_jk = M_kᵀ·n_j`, with `n_j` the bind-pose world normal and `M_k` the linear part of `B_k`
//! (so that `M_k⁻ᵀ·η_jk = n_j`); with explicit offsets they are regenerated from the skinned
//! triangles.

use glam::Vec3;

use super::ctx::{v3, Ctx};
use super::doc::{Real, SkinDoc};
use crate::graph::{NodeId, Scene};
use crate::io::error::IoError;
use crate::values::error::SceneError;
use crate::values::skin::{normal_matrix, SkinController, SkinInfluence};
use crate::values::transform::Transform;

/// How far a row of weights may sum from 1 (decimal files cannot always hit 1 exactly).
pub(super) const WEIGHT_SUM_TOLERANCE: f32 = 1e-3;

/// The node's world transform as the file places it: the local transforms from the root
/// down, composed (no controller has run yet while the file is built).
fn bind_world(scene: &Scene, id: NodeId) -> Result<Transform, SceneError> {
    let mut chain = Vec::new();
    let mut node = Some(id);
    while let Some(n) = node {
        chain.push(*scene.local_transform(n)?);
        node = scene.parent(n)?;
    }
    Ok(chain
        .iter()
        .rev()
        .fold(Transform::IDENTITY, |world, local| world.compose(local)))
}

/// Builds the `skin` controller `s` of geometry node `node` and attaches it.
pub(super) fn attach_skin(
    scene: &mut Scene,
    ctx: &Ctx,
    node: NodeId,
    context: &str,
    s: &SkinDoc,
) -> Result<(), IoError> {
    let err = ctx.scene_err(context);
    let invalid = |m: String| ctx.invalid(context, m);
    if scene.is_particles(node) {
        return Err(invalid("a particle system cannot be skinned".to_owned()));
    }
    let mesh = scene
        .mesh(node)
        .map_err(|_| invalid("a \"skin\" controller sits on a geometry node".to_owned()))?
        .clone();
    if s.bones.is_empty() {
        return Err(invalid("\"bones\" names no bone".to_owned()));
    }
    let mut bones = Vec::with_capacity(s.bones.len());
    let mut seen = std::collections::BTreeSet::new();
    for name in &s.bones {
        if !seen.insert(name.as_str()) {
            return Err(invalid(format!("bone '{name}' is named twice")));
        }
        let id = ctx.named(context, name)?;
        if id == node {
            return Err(invalid(format!("the skin '{name}' cannot be its own bone")));
        }
        bones.push(id);
    }
    let (v, b) = (mesh.positions().len(), bones.len());
    if let Some(rows) = &s.influences {
        if !s.weights.is_empty() || s.offsets.is_some() {
            return Err(invalid(
                "give \"influences\" or \"weights\" (and \"offsets\"), not both".to_owned(),
            ));
        }
        if rows.len() != v {
            return Err(invalid(format!(
                "{} rows of influences for a mesh of {v} vertices",
                rows.len()
            )));
        }
        let mut influences = Vec::with_capacity(v);
        for (j, row) in rows.iter().enumerate() {
            let mut out = Vec::with_capacity(row.len());
            for i in row {
                if i.bone as usize >= b {
                    return Err(invalid(format!("vertex {j} names bone {} of {b}", i.bone)));
                }
                out.push(SkinInfluence {
                    bone: i.bone as usize,
                    weight: i.weight.get(),
                    offset: v3(&i.offset),
                    normal: i.normal.as_ref().map(v3),
                });
            }
            influences.push(out);
        }
        let mut controller = SkinController::from_influences(bones, influences).map_err(&err)?;
        controller.set_active(s.active.unwrap_or(true));
        return scene
            .add_mesh_controller(node, Box::new(controller))
            .map_err(&err);
    }
    if s.weights.len() != v {
        return Err(invalid(format!(
            "{} rows of weights for a mesh of {v} vertices",
            s.weights.len()
        )));
    }
    for (j, row) in s.weights.iter().enumerate() {
        if row.len() != b {
            return Err(invalid(format!(
                "vertex {j} has {} weights for {b} bones",
                row.len()
            )));
        }
        if let Some(w) = row
            .iter()
            .map(|w| w.get())
            .find(|w| !(0.0..=1.0).contains(w))
        {
            return Err(invalid(format!("vertex {j} has weight {w}, outside 0..=1")));
        }
        let sum: f32 = row.iter().map(|w| w.get()).sum();
        if (sum - 1.0).abs() > WEIGHT_SUM_TOLERANCE {
            return Err(invalid(format!(
                "the weights of vertex {j} sum to {sum}, not 1"
            )));
        }
    }
    let influences = match &s.offsets {
        Some(offsets) => {
            if offsets.len() != v {
                return Err(invalid(format!(
                    "{} rows of offsets for a mesh of {v} vertices",
                    offsets.len()
                )));
            }
            if let Some(j) = offsets.iter().position(|row| row.len() != b) {
                return Err(invalid(format!(
                    "vertex {j} has {} offsets for {b} bones",
                    offsets[j].len()
                )));
            }
            influences(&s.weights, |j, k| (v3(&offsets[j][k]), None))
        }
        None => {
            let skin = bind_world(scene, node).map_err(&err)?;
            let mut inverse = Vec::with_capacity(b);
            let mut linear = Vec::with_capacity(b);
            for (k, &id) in bones.iter().enumerate() {
                let world = bind_world(scene, id).map_err(&err)?;
                let inv = world.try_inverse().ok_or_else(|| {
                    invalid(format!(
                        "bone '{}' has no inverse in the bind pose (a zero scale); give \"offsets\"",
                        s.bones[k]
                    ))
                })?;
                inverse.push(inv);
                linear.push(world.matrix());
            }
            let points: Vec<Vec3> = mesh
                .positions()
                .iter()
                .map(|&p| skin.apply_point(p))
                .collect();
            let to_world = normal_matrix(skin.matrix());
            let normals: Option<Vec<Vec3>> = mesh.normals().map(|ns| {
                ns.iter()
                    .map(|&n| (to_world * n).normalize_or_zero())
                    .collect()
            });
            influences(&s.weights, |j, k| {
                let offset = inverse[k].apply_point(points[j]);
                let normal = normals.as_ref().map(|ns| linear[k].transpose() * ns[j]);
                (offset, normal)
            })
        }
    };
    let mut controller = SkinController::from_influences(bones, influences).map_err(&err)?;
    controller.set_active(s.active.unwrap_or(true));
    scene
        .add_mesh_controller(node, Box::new(controller))
        .map_err(&err)
}

/// The influences of the non-zero weights, bone order, with `offset(j, k)` giving vertex
/// `j`'s offset (and normal offset) in bone `k`.
fn influences(
    weights: &[Vec<Real>],
    offset: impl Fn(usize, usize) -> (Vec3, Option<Vec3>),
) -> Vec<Vec<SkinInfluence>> {
    weights
        .iter()
        .enumerate()
        .map(|(j, row)| {
            row.iter()
                .enumerate()
                .filter(|(_, w)| w.get() != 0.0)
                .map(|(k, w)| {
                    let (offset, normal) = offset(j, k);
                    SkinInfluence {
                        bone: k,
                        weight: w.get(),
                        offset,
                        normal,
                    }
                })
                .collect()
        })
        .collect()
}
