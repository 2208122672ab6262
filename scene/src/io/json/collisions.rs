//! `collisions` in scene files: the book's Collision sample as data.
//!
//! Each entry collides two geometry leaves — their meshes at their world transforms as the
//! file places them (before any controller runs) — with bounding-volume trees
//! ([`crate::passes::collide`]), and gives every vertex of each intersecting triangle `hit_uv` in uv
//! set 0, so a texture shows the contact. A vertex shared with a triangle that does not hit
//! takes the mark too: a mesh whose triangles should be marked one by one keeps its vertices
//! unshared, as the book's sample does.

use std::collections::BTreeSet;
use std::sync::Arc;

use glam::Vec2;

use super::ctx::Ctx;
use super::doc::{CollisionBoundDoc, CollisionDoc, CollisionModeDoc};
use crate::graph::{NodeId, Scene};
use crate::io::budget::Budget;
use crate::io::error::IoError;
use crate::passes::collide::{collide, BvKind, BvTreeOptions, CollideMode, Collider};
use crate::values::mesh::{Mesh, MeshTopology};

/// Largest product of the two meshes' triangle counts a collision entry may ask for: it bounds
/// the pairs an all-hits query can report (memory) and test (time) when a file crosses two
/// meshes of long thin triangles, every one against every one. The entries of a file
/// together are held to [`WorkBudget::max_collision_pairs`](crate::io::WorkBudget).
pub const MAX_TRIANGLE_PAIRS: u64 = 1 << 24;

/// Runs every collision of the file in order and marks the hit triangles.
///
/// Every entry is checked and charged first — its two leaves found, their triangle counts
/// multiplied, the product held to [`MAX_TRIANGLE_PAIRS`] and the entries' sum to the
/// load's budget — before any bounding-volume tree is built or queried (issue 50: one entry
/// was tested, for seconds, before the next was refused).
pub(super) fn apply(
    scene: &mut Scene,
    ctx: &mut Ctx<'_>,
    docs: &[CollisionDoc],
) -> Result<(), IoError> {
    let mut checked = Vec::with_capacity(docs.len());
    for (i, d) in docs.iter().enumerate() {
        let context = format!("collision {i}");
        ctx.point(&context, format!("/collisions/{i}"));
        let ids = [
            ctx.named(&context, &d.objects[0])?,
            ctx.named(&context, &d.objects[1])?,
        ];
        if ids[0] == ids[1] {
            return Err(ctx.invalid(&context, "a collision needs two different objects"));
        }
        let mut counts = [0u64; 2];
        for ((&id, name), count) in ids.iter().zip(&d.objects).zip(&mut counts) {
            *count = triangle_mesh(scene, ctx, &context, id, name)?.triangle_count() as u64;
        }
        let pairs_asked = counts[0].saturating_mul(counts[1]);
        if pairs_asked > MAX_TRIANGLE_PAIRS {
            return Err(ctx.invalid(
                &context,
                format!(
                    "{} × {} triangles is more than the limit of {MAX_TRIANGLE_PAIRS} triangle pairs",
                    counts[0], counts[1]
                ),
            ));
        }
        // The entries' pairs together, before any tree is built or queried.
        ctx.charge(&context, Budget::CollisionPairs, pairs_asked, || {
            format!(
                "a collision of {} × {} = {pairs_asked} triangle pairs",
                counts[0], counts[1]
            )
        })?;
        checked.push((context, ids));
    }
    for (d, (context, ids)) in docs.iter().zip(checked) {
        let options = BvTreeOptions {
            kind: match d.bound {
                CollisionBoundDoc::Box => BvKind::Box,
                CollisionBoundDoc::Sphere => BvKind::Sphere,
            },
            ..BvTreeOptions::default()
        };
        let mut colliders = Vec::with_capacity(2);
        for (&id, name) in ids.iter().zip(&d.objects) {
            colliders.push(collider(scene, ctx, &context, id, name, options)?);
        }
        let mode = match d.mode {
            CollisionModeDoc::All => CollideMode::AllHits,
            CollisionModeDoc::First => CollideMode::FirstHit,
        };
        let pairs = collide(&colliders[0], &colliders[1], mode);
        let hit_uv = Vec2::new(d.hit_uv[0].get(), d.hit_uv[1].get());
        let hits: [BTreeSet<u32>; 2] = [
            pairs.iter().map(|p| p.a).collect(),
            pairs.iter().map(|p| p.b).collect(),
        ];
        for ((id, c), hit) in ids.iter().zip(&colliders).zip(hits) {
            mark(scene, ctx, &context, *id, c, &hit, hit_uv)?;
        }
    }
    Ok(())
}

/// Geometry leaf `id`'s mesh, checked to be a triangle mesh with uv set 0.
fn triangle_mesh<'s>(
    scene: &'s Scene,
    ctx: &Ctx<'_>,
    context: &str,
    id: NodeId,
    name: &str,
) -> Result<&'s Arc<Mesh>, IoError> {
    let mesh = scene
        .mesh(id)
        .map_err(|_| ctx.invalid(context, format!("'{name}' is not a geometry leaf")))?;
    if mesh.topology() != MeshTopology::Triangles {
        return Err(ctx.invalid(context, format!("'{name}' is not a triangle mesh")));
    }
    if mesh.uv_sets().is_empty() {
        return Err(ctx.invalid(
            context,
            format!("'{name}' has no uv set to mark the hit triangles in"),
        ));
    }
    Ok(mesh)
}

/// The collider of geometry leaf `id`: a triangle mesh with uv set 0, at its world transform.
fn collider(
    scene: &Scene,
    ctx: &Ctx<'_>,
    context: &str,
    id: NodeId,
    name: &str,
    options: BvTreeOptions,
) -> Result<Collider, IoError> {
    let mesh = triangle_mesh(scene, ctx, context, id, name)?;
    let world = scene.compute_world(id).map_err(ctx.scene_err(context))?;
    Ok(Collider::new(Arc::clone(mesh), options)
        .map_err(ctx.scene_err(context))?
        .with_world_from_local(world))
}

/// Gives every vertex of the triangles `hit` of `id`'s mesh `uv` in set 0.
fn mark(
    scene: &mut Scene,
    ctx: &Ctx<'_>,
    context: &str,
    id: NodeId,
    collider: &Collider,
    hit: &BTreeSet<u32>,
    uv: Vec2,
) -> Result<(), IoError> {
    if hit.is_empty() {
        return Ok(());
    }
    let mesh = collider.mesh();
    let mut uvs = mesh.uv_sets()[0].clone();
    for &t in hit {
        let t = t as usize;
        for &v in &mesh.indices()[3 * t..3 * t + 3] {
            uvs[v as usize] = uv;
        }
    }
    let marked = (**mesh)
        .clone()
        .with_uv_set_replaced(0, uvs)
        .map_err(ctx.scene_err(context))?;
    scene
        .set_mesh(id, Arc::new(marked))
        .map_err(ctx.scene_err(context))
}
