//! Incremental geometric update (Eberly's `UpdateGS`, made lazy with dirty flags).
//!
//! # The staleness rule
//!
//! World transforms and world bounds are **computed data**: they are written only by
//! [`Scene::update`] and are stale between a local edit and the next update. Every local edit
//! (`set_local_transform`, `set_translation`, …, `set_mesh`, `attach`, `detach`, `reparent`,
//! `remove`, `set_bound_kind`) marks the edited node dirty and walks up marking its ancestors (stopping at
//! the first ancestor already marked), so an edit costs O(depth) at worst and O(1) when batched
//! under an already-marked ancestor (the flags and the one function that sets them are in
//! [`node`](crate::graph::node)).
//!
//! # The walk
//!
//! `update(time)` first runs the transform controllers (in the order they were added), then
//! walks down from the root; if there are mesh controllers (morph, skin) it then runs them —
//! world transforms are current, so bones are ready whatever the tree order — and walks again,
//! which visits only the leaves whose meshes changed and their ancestors (see
//! [`controller`](crate::values::controller)). Controllers run once per update; `Scene::draw` does the
//! walk without them. A leaf skinned in world space keeps an identity world transform. The
//! walk is iterative:
//!
//! * a node is visited only if it or a descendant is dirty — clean subtrees are skipped whole;
//! * a node's world transform is recomputed (`world = parent.world ∘ local`) iff its own local
//!   transform changed or its parent's world transform was recomputed;
//! * a visited node's world bound is recomputed once, after its children (post-order): a leaf
//!   transforms its mesh's local bound by its world transform; a group merges its children's
//!   world bounds in child order, starting from the empty bound (so a childless group is
//!   empty). Switch nodes merge **all** children (Eberly): only drawing and picking look at the
//!   active child.
//!
//! Each world transform and world bound is therefore computed at most once per update, and the
//! result is bit-identical to a full rebuild ([`Scene::update_full`]) because every value is
//! produced by the same operations in the same order. [`UpdateStats`] counts the work.

use crate::graph::node::{Dirty, Node, NodeData};
use crate::graph::{NodeId, Scene};
use crate::nodes::billboard::face_eye;
use crate::values::bound::Bound;
use crate::values::error::SceneError;
use crate::values::transform::Transform;

pub use crate::graph::UpdateStats;

/// A node's world transform from its parent's (`None` for a tree's root): `parent ∘ local`,
/// the identity for a leaf pinned to it, then turned to face `eye` for a billboard. The one
/// definition `update` and [`Scene::compute_world`] share, so both give the same bits.
fn compose_world(node: &Node, parent: Option<Transform>) -> Transform {
    let world = match parent {
        _ if node.data.world_identity() => Transform::IDENTITY,
        Some(pw) => pw.compose(&node.local),
        None => node.local,
    };
    match node.data {
        NodeData::Billboard(Some(eye)) => face_eye(&world, eye),
        _ => world,
    }
}

/// Sentinel parent index for the root.
const NO_PARENT: u32 = u32::MAX;

enum Visit {
    Pre {
        index: u32,
        parent: u32,
        force: bool,
    },
    Post {
        index: u32,
    },
}

impl Scene {
    /// Counters of the last [`Scene::update`].
    pub fn last_update_stats(&self) -> UpdateStats {
        self.last_stats
    }

    /// Runs the controllers at `time`, then brings every world transform and world bound under
    /// the root up to date, touching only dirty paths (see the [module docs](self)).
    pub fn update(&mut self, time: f64) -> UpdateStats {
        self.update_at(time, false)
    }

    /// Like [`Scene::update`], but recomputes every node under the root (the reference the
    /// incremental path must match bit for bit).
    pub fn update_full(&mut self, time: f64) -> UpdateStats {
        self.update_at(time, true)
    }

    /// The scene **at rest**: like [`Scene::update`] at time 0, but the controllers that move
    /// nodes (transform controllers and IK) do not run, so every node keeps the transform it
    /// was given; particle systems and mesh controllers (skins, morphs) run, on that pose.
    /// This is the state an import is in when loaded (a glTF's animations only pose it when
    /// drawn), and what a scene file is loaded to, so that a converted file starts, and is
    /// framed, as its source.
    pub fn update_at_rest(&mut self) -> UpdateStats {
        self.update_with(0.0, false, false)
    }

    fn update_at(&mut self, time: f64, full: bool) -> UpdateStats {
        self.update_with(time, full, true)
    }

    fn update_with(&mut self, time: f64, full: bool, move_nodes: bool) -> UpdateStats {
        let mut stats = UpdateStats::default();
        if move_nodes {
            stats.controllers = self.run_controllers(time);
            if !self.ik_controllers.is_empty() {
                stats.controllers += self.run_ik_controllers();
            }
        }
        if !self.particle_systems.is_empty() {
            stats.controllers += self.run_particle_controllers(time);
        }
        if full {
            let root = self.root();
            self.nodes.mark(root, Dirty::TRANSFORM.and(Dirty::RENDER));
        }
        self.walk(&mut stats);
        if !self.mesh_controllers.is_empty() {
            stats.controllers += self.run_mesh_controllers(time);
            self.walk(&mut stats);
        }
        stats.render_states = self.resolve_render_state();
        self.last_stats = stats;
        stats
    }

    /// Brings world data and resolved render state up to date **without** running controllers
    /// (what [`Scene::draw`](crate::Scene::draw) does before culling: controllers run once per
    /// [`Scene::update`]).
    pub(crate) fn refresh(&mut self) -> UpdateStats {
        let mut stats = UpdateStats::default();
        self.walk(&mut stats);
        stats.render_states = self.resolve_render_state();
        stats
    }

    fn walk(&mut self, stats: &mut UpdateStats) {
        let root = self.root().index();
        if self.at(root).is_none_or(|n| !n.geometry_stale()) {
            return;
        }
        let kind = self.bound_kind;
        let mut stack = vec![Visit::Pre {
            index: root,
            parent: NO_PARENT,
            force: false,
        }];
        while let Some(visit) = stack.pop() {
            match visit {
                Visit::Pre {
                    index,
                    parent,
                    force,
                } => {
                    stats.visited += 1;
                    let parent_world = if parent == NO_PARENT {
                        None
                    } else {
                        self.at(parent).map(|p| p.world)
                    };
                    let Some(node) = self.nodes.at_mut(index) else {
                        continue;
                    };
                    let recompute = force || node.transform_changed();
                    if recompute {
                        node.world = compose_world(node, parent_world);
                        stats.transforms += 1;
                    }
                    match &node.data {
                        NodeData::Geometry(g) => {
                            node.world_bound = g.mesh.local_bound(kind).transformed(&node.world);
                            node.clear_geometry();
                            stats.bounds += 1;
                        }
                        _ => {
                            if node.children.is_empty() {
                                node.world_bound = Bound::Empty;
                                node.clear_geometry();
                                stats.bounds += 1;
                                continue;
                            }
                            stack.push(Visit::Post { index });
                            if let Some(node) = self.at(index) {
                                for &c in node.children.iter().rev() {
                                    if recompute
                                        || self.at(c.index()).is_some_and(Node::geometry_stale)
                                    {
                                        stack.push(Visit::Pre {
                                            index: c.index(),
                                            parent: index,
                                            force: recompute,
                                        });
                                    }
                                }
                            }
                        }
                    }
                }
                Visit::Post { index } => {
                    let Some(node) = self.at(index) else {
                        continue;
                    };
                    let mut bound = Bound::Empty;
                    for &c in &node.children {
                        if let Some(child) = self.at(c.index()) {
                            bound = bound.merge(&child.world_bound);
                        }
                    }
                    if let Some(node) = self.nodes.at_mut(index) {
                        node.world_bound = bound;
                        node.clear_geometry();
                    }
                    stats.bounds += 1;
                }
            }
        }
    }

    /// The world transform of `id` computed now from the local transforms of its ancestors
    /// (`W = L_root ∘ … ∘ L_id`, composed top-down exactly as `update` does, so the result is
    /// bit-identical to what the next update will store). O(depth).
    ///
    /// Like `update`, a billboard on the path is turned to face the eye of the last
    /// [`Scene::draw`](crate::Scene::draw) or [`Scene::face_billboards`] (unrotated before
    /// any), and a leaf skinned in world space has the identity world transform.
    ///
    /// # Errors
    /// [`SceneError::StaleId`].
    pub fn compute_world(&self, id: NodeId) -> Result<Transform, SceneError> {
        let mut chain = Vec::new();
        let mut cur = Some(id);
        while let Some(c) = cur {
            let n = self.node(c)?;
            chain.push(n);
            cur = n.parent;
        }
        let mut world: Option<Transform> = None;
        for n in chain.iter().rev() {
            // The same function as `update`'s walk, top-down.
            world = Some(compose_world(n, world));
        }
        Ok(world.unwrap_or(Transform::IDENTITY))
    }

    /// Runs every controller once; returns how many ran.
    fn run_controllers(&mut self, time: f64) -> usize {
        let mut controllers = std::mem::take(&mut self.controllers);
        for (node, c) in &mut controllers {
            let Ok(local) = self.local_transform(*node).copied() else {
                continue;
            };
            if let Some(t) = c.update(time, &local) {
                // The id was just checked, so this cannot fail.
                let _ = self.set_local_transform(*node, t);
            }
        }
        let n = controllers.len();
        // Controllers added during the run (none today) would be kept after the old ones.
        controllers.append(&mut self.controllers);
        self.controllers = controllers;
        n
    }

    /// Runs every mesh controller once (world transforms are current); returns how many ran.
    fn run_mesh_controllers(&mut self, time: f64) -> usize {
        let mut controllers = std::mem::take(&mut self.mesh_controllers);
        let mut bones = Vec::new();
        for (node, c) in &mut controllers {
            bones.clear();
            let mut live = true;
            for &b in c.bones() {
                match self.world_transform(b) {
                    Ok(w) => bones.push(*w),
                    Err(_) => live = false,
                }
            }
            if !live {
                continue;
            }
            let Ok(mesh) = self.mesh(*node) else {
                continue;
            };
            if let Some(m) = c.update(time, mesh, &bones) {
                // The id was just checked, so this cannot fail.
                let _ = self.set_controlled_mesh(*node, std::sync::Arc::new(m));
            }
        }
        let n = controllers.len();
        controllers.append(&mut self.mesh_controllers);
        self.mesh_controllers = controllers;
        n
    }
}
