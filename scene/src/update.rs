//! Incremental geometric update (Eberly's `UpdateGS`, made lazy with dirty flags).
//!
//! # The staleness rule
//!
//! World transforms and world bounds are **computed data**: they are written only by
//! [`Scene::update`] and are stale between a local edit and the next update. Every local edit
//! (`set_local`, `set_translation`, …, `set_mesh`, `attach`, `detach`, `reparent`, `remove`,
//! `set_bound_kind`) marks the edited node dirty and walks up marking its ancestors (stopping at
//! the first ancestor already marked), so an edit costs O(depth) at worst and O(1) when batched
//! under an already-marked ancestor.
//!
//! # The walk
//!
//! `update(time)` first runs the controllers (in the order they were added), then walks down
//! from the root, iteratively:
//!
//! * a node is visited only if it or a descendant is dirty — clean subtrees are skipped whole;
//! * a node's world transform is recomputed (`world = parent.world ∘ local`) iff its own local
//!   transform changed or its parent's world transform was recomputed;
//! * a visited node's world bound is recomputed once, after its children (post-order): a leaf
//!   transforms its mesh's model bound by its world transform; a group merges its children's
//!   world bounds in child order, starting from the empty bound (so a childless group is
//!   empty). Switch nodes merge **all** children (Eberly): only drawing and picking look at the
//!   active child.
//!
//! Each world transform and world bound is therefore computed at most once per update, and the
//! result is bit-identical to a full rebuild ([`Scene::update_full`]) because every value is
//! produced by the same operations in the same order. [`UpdateStats`] counts the work.

use glam::{Mat3, Vec3};

use crate::error::SceneError;
use crate::graph::{NodeData, NodeId, Scene};
use crate::transform::Transform;

/// The node's local transform changed (or it was attached): recompute its world transform
/// and those of its whole subtree.
pub(crate) const DIRTY_TRANSFORM: u8 = 1;
/// The node's own bound inputs changed (mesh replaced, child removed).
pub(crate) const DIRTY_BOUND: u8 = 2;
/// Some descendant is dirty: visit this node and recompute its bound.
pub(crate) const DIRTY_DESCENDANT: u8 = 4;

/// Work done by one [`Scene::update`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct UpdateStats {
    /// Controllers run.
    pub controllers: usize,
    /// Nodes visited by the downward walk.
    pub visited: usize,
    /// World transforms recomputed.
    pub transforms: usize,
    /// World bounds recomputed.
    pub bounds: usize,
    /// Geometry leaves whose render state (states, lights, global effect) was re-resolved.
    pub render_states: usize,
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
    /// Marks `id` with `flags` and its ancestors as having a dirty descendant.
    pub(crate) fn mark(&mut self, id: NodeId, flags: u8) {
        let Ok(node) = self.node_mut(id) else {
            return;
        };
        node.flags |= flags;
        let mut cur = node.parent;
        while let Some(p) = cur {
            let Ok(pn) = self.node_mut(p) else {
                return;
            };
            if pn.flags & DIRTY_DESCENDANT != 0 {
                return;
            }
            pn.flags |= DIRTY_DESCENDANT;
            cur = pn.parent;
        }
    }

    /// Replaces the local transform and marks the node (and its ancestors) dirty.
    ///
    /// # Errors
    /// [`SceneError::StaleId`].
    pub fn set_local(&mut self, id: NodeId, local: Transform) -> Result<(), SceneError> {
        self.node_mut(id)?.local = local;
        self.mark(id, DIRTY_TRANSFORM);
        Ok(())
    }

    fn edit_local(
        &mut self,
        id: NodeId,
        f: impl FnOnce(&mut Transform) -> Result<(), SceneError>,
    ) -> Result<(), SceneError> {
        let mut t = self.node(id)?.local;
        f(&mut t)?;
        self.set_local(id, t)
    }

    /// Sets the local translation ([`Transform::set_translation`]).
    ///
    /// # Errors
    /// [`SceneError::StaleId`], [`SceneError::NonFinite`] (nothing changes).
    pub fn set_translation(&mut self, id: NodeId, t: Vec3) -> Result<(), SceneError> {
        self.edit_local(id, |l| l.set_translation(t))
    }

    /// Sets the local rotation ([`Transform::set_rotation`]).
    ///
    /// # Errors
    /// [`SceneError::StaleId`], [`SceneError::NonFinite`], [`SceneError::NotARotation`].
    pub fn set_rotation(&mut self, id: NodeId, r: Mat3) -> Result<(), SceneError> {
        self.edit_local(id, |l| l.set_rotation(r))
    }

    /// Sets the local per-axis scale ([`Transform::set_scale`]).
    ///
    /// # Errors
    /// [`SceneError::StaleId`], [`SceneError::NonFinite`].
    pub fn set_scale(&mut self, id: NodeId, s: Vec3) -> Result<(), SceneError> {
        self.edit_local(id, |l| l.set_scale(s))
    }

    /// Sets the local uniform scale ([`Transform::set_uniform_scale`]).
    ///
    /// # Errors
    /// [`SceneError::StaleId`], [`SceneError::NonFinite`].
    pub fn set_uniform_scale(&mut self, id: NodeId, s: f32) -> Result<(), SceneError> {
        self.edit_local(id, |l| l.set_uniform_scale(s))
    }

    /// Whether the next [`Scene::update`] has any work besides controllers (i.e. world data
    /// under the root is stale).
    pub fn is_dirty(&self) -> bool {
        self.at(self.root().index()).is_some_and(|n| n.flags != 0)
    }

    /// Counters of the last [`Scene::update`].
    pub fn last_update_stats(&self) -> UpdateStats {
        self.last_stats
    }

    /// Runs the controllers at `time`, then brings every world transform and world bound under
    /// the root up to date, touching only dirty paths (see the [module docs](self)).
    pub fn update(&mut self, time: f64) -> UpdateStats {
        let mut stats = UpdateStats {
            controllers: self.run_controllers(time),
            ..UpdateStats::default()
        };
        self.walk(&mut stats);
        stats.render_states = self.resolve_render_state();
        self.time = time;
        self.last_stats = stats;
        stats
    }

    /// Like [`Scene::update`], but recomputes every node under the root (the reference the
    /// incremental path must match bit for bit).
    pub fn update_full(&mut self, time: f64) -> UpdateStats {
        let mut stats = UpdateStats {
            controllers: self.run_controllers(time),
            ..UpdateStats::default()
        };
        let root = self.root();
        self.mark(root, DIRTY_TRANSFORM);
        self.mark_render(root);
        self.walk(&mut stats);
        stats.render_states = self.resolve_render_state();
        self.time = time;
        self.last_stats = stats;
        stats
    }

    fn walk(&mut self, stats: &mut UpdateStats) {
        let root = self.root().index();
        if self.at(root).is_none_or(|n| n.flags == 0) {
            return;
        }
        let kind = self.bound_kind;
        let eye = self.billboard_eye;
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
                    let Some(node) = self.slots[index as usize].node.as_mut() else {
                        continue;
                    };
                    let recompute = force || node.flags & DIRTY_TRANSFORM != 0;
                    if recompute {
                        node.world = match parent_world {
                            Some(pw) => pw.compose(&node.local),
                            None => node.local,
                        };
                        if node.billboard {
                            if let Some(eye) = eye {
                                node.world = crate::billboard::face_eye(&node.world, eye);
                            }
                        }
                        stats.transforms += 1;
                    }
                    match &node.data {
                        NodeData::Geometry(mesh) => {
                            node.world_bound = mesh.model_bound(kind).transformed(&node.world);
                            node.flags = 0;
                            stats.bounds += 1;
                        }
                        NodeData::Group | NodeData::Switch { .. } => {
                            if node.children.is_empty() {
                                node.world_bound = crate::bound::Bound::Empty;
                                node.flags = 0;
                                stats.bounds += 1;
                                continue;
                            }
                            stack.push(Visit::Post { index });
                            let node = &self.slots[index as usize];
                            if let Some(node) = node.node.as_ref() {
                                for &c in node.children.iter().rev() {
                                    if recompute || self.at(c.index()).is_some_and(|n| n.flags != 0)
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
                    let mut bound = crate::bound::Bound::Empty;
                    for &c in &node.children {
                        if let Some(child) = self.at(c.index()) {
                            bound = bound.merge(&child.world_bound);
                        }
                    }
                    if let Some(node) = self.slots[index as usize].node.as_mut() {
                        node.world_bound = bound;
                        node.flags = 0;
                    }
                    stats.bounds += 1;
                }
            }
        }
    }
}
