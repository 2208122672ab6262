//! Picking (Eberly Ch. 6 `DoPick`): a world-space ray against world bounds, then against the
//! triangles of every geometry leaf whose bound it meets.
//!
//! The ray is taken into each leaf's local space with the inverse world transform (origin as a
//! point, direction as a vector, *not* renormalized), so the triangle test's parameter `t` is
//! directly the world-space distance along the unit world ray, whatever the scale. Leaves with
//! a singular world transform, and non-triangle topologies, are skipped. Switch nodes descend
//! into their active child only; `Culling::Always` subtrees (hidden) are not picked.
//!
//! Records come back sorted by distance; ties keep traversal order (pre-order, then triangle
//! index), which is deterministic. Picking reads world data as of the last update.

use crate::graph::node::{Culling, Geometry, Visit};
use crate::graph::{NodeId, Scene};
use crate::values::ray::{intersect_triangle, Ray};

/// One ray–triangle hit.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PickRecord {
    /// The geometry leaf hit.
    pub node: NodeId,
    /// World-space distance from the ray origin.
    pub distance: f32,
    /// Index of the triangle in the mesh (`indices[3k..3k+3]`).
    pub triangle: u32,
    /// Barycentric weights of the triangle's three vertices (sum to 1).
    pub barycentric: [f32; 3],
}

impl Scene {
    /// All hits of `ray` with triangle meshes under the root, nearest first (see the
    /// [module docs](self)).
    pub fn pick(&self, ray: &Ray) -> Vec<PickRecord> {
        let mut out = Vec::new();
        let mut stack = vec![self.root()];
        while let Some(id) = stack.pop() {
            let Some(node) = self.at(id.index()) else {
                continue;
            };
            if node.cull == Culling::Always || !node.world_bound.intersects_ray(ray) {
                continue;
            }
            match node.data.visit() {
                Visit::Children => stack.extend(node.children.iter().rev()),
                Visit::Active(active) => stack.extend(active),
                Visit::Leaf(Geometry { mesh, .. }) => {
                    if mesh.triangle_count() == 0 {
                        continue;
                    }
                    let Some(inv) = node.world.try_inverse() else {
                        continue;
                    };
                    let origin = inv.apply_point(ray.origin());
                    let dir = inv.apply_vector(ray.direction());
                    if !origin.is_finite() || !dir.is_finite() {
                        continue;
                    }
                    let p = mesh.positions();
                    for (k, t) in mesh.indices().chunks_exact(3).enumerate() {
                        let hit = intersect_triangle(
                            origin,
                            dir,
                            p[t[0] as usize],
                            p[t[1] as usize],
                            p[t[2] as usize],
                        );
                        if let Some(h) = hit {
                            out.push(PickRecord {
                                node: id,
                                distance: h.t,
                                triangle: k as u32,
                                barycentric: h.barycentric,
                            });
                        }
                    }
                }
            }
        }
        // Stable: equal distances keep traversal order.
        out.sort_by(|a, b| a.distance.total_cmp(&b.distance));
        out
    }

    /// The nearest hit, if any (Eberly's `GetClosest`: the first of equal distances).
    pub fn pick_closest(&self, ray: &Ray) -> Option<PickRecord> {
        self.pick(ray).into_iter().next()
    }
}
