//! Hierarchy edits: creating nodes, attaching, detaching, reparenting and removing them, and
//! the tree queries they need (ancestry, depth, world transform computed on demand).
//!
//! Every edit that moves a node marks it dirty (see [`node`](crate::graph::node)): an attached or
//! reparented node must recompute its world transform and re-resolve its render state; the
//! parent a node leaves must recompute its bound. Attaching checks the tree stays a tree (no
//! cycle, no second parent, the root fixed) and within the depth limit; nothing changes on
//! error.

use crate::graph::node::{Dirty, Node, NodeData};
use crate::graph::{NodeId, Reparent, Scene};
use crate::values::error::SceneError;

impl Scene {
    /// Stores a new detached node (node limit checked).
    pub(crate) fn create(&mut self, name: String, data: NodeData) -> Result<NodeId, SceneError> {
        if self.nodes.live() >= self.limits.max_nodes {
            return Err(SceneError::NodeLimit {
                max: self.limits.max_nodes,
            });
        }
        self.nodes
            .insert(Node::new(name, data))
            .ok_or(SceneError::NodeLimit {
                max: self.limits.max_nodes,
            })
    }

    /// Stores a new node as the last child of `parent` (kind, depth and node limits checked).
    pub(crate) fn create_under(
        &mut self,
        parent: NodeId,
        name: String,
        data: NodeData,
    ) -> Result<NodeId, SceneError> {
        let p = self.node(parent)?;
        if p.data.kind().is_leaf() {
            return Err(SceneError::NotAGroup(p.name.clone()));
        }
        let depth = p.depth as usize + 1;
        if depth > self.limits.max_depth {
            return Err(SceneError::DepthLimit {
                max: self.limits.max_depth,
                depth,
            });
        }
        let id = self.create(name, data)?;
        self.link(parent, id, None);
        Ok(id)
    }

    /// Largest depth below `id` relative to it (0 for a leaf).
    fn subtree_height(&self, id: NodeId) -> usize {
        let mut max = 0usize;
        let mut stack = vec![(id, 0usize)];
        while let Some((n, d)) = stack.pop() {
            max = max.max(d);
            if let Ok(node) = self.node(n) {
                stack.extend(node.children.iter().map(|&c| (c, d + 1)));
            }
        }
        max
    }

    /// Whether `ancestor` is `id` or one of its ancestors.
    pub fn is_ancestor_or_self(&self, ancestor: NodeId, id: NodeId) -> bool {
        let mut cur = Some(id);
        while let Some(c) = cur {
            if c == ancestor {
                return true;
            }
            cur = self.node(c).ok().and_then(|n| n.parent);
        }
        false
    }

    /// Checks everything `attach(parent, child)` needs except the child being detached.
    fn check_attach(&self, parent: NodeId, child: NodeId) -> Result<(), SceneError> {
        let p = self.node(parent)?;
        let c = self.node(child)?;
        if child == self.root() {
            return Err(SceneError::RootIsFixed);
        }
        if p.data.kind().is_leaf() {
            return Err(SceneError::NotAGroup(p.name.clone()));
        }
        // A childless node cannot contain `parent` unless it is `parent`.
        let cycle = if c.children.is_empty() {
            parent == child
        } else {
            self.is_ancestor_or_self(child, parent)
        };
        if cycle {
            return Err(SceneError::Cycle {
                parent: p.name.clone(),
                child: c.name.clone(),
            });
        }
        let height = if c.children.is_empty() {
            0
        } else {
            self.subtree_height(child)
        };
        let depth = p.depth as usize + 1 + height;
        if depth > self.limits.max_depth {
            return Err(SceneError::DepthLimit {
                max: self.limits.max_depth,
                depth,
            });
        }
        Ok(())
    }

    /// Links a detached, validated `child` under `parent` (at `index`, or last) and marks it.
    fn link(&mut self, parent: NodeId, child: NodeId, index: Option<usize>) {
        let pdepth = self.node(parent).map_or(0, |p| p.depth);
        if let Ok(p) = self.node_mut(parent) {
            let at = index.unwrap_or(p.children.len()).min(p.children.len());
            p.children.insert(at, child);
        }
        if let Ok(c) = self.node_mut(child) {
            c.parent = Some(parent);
        }
        self.set_depths(child, pdepth + 1);
        self.nodes.mark(child, Dirty::TRANSFORM.and(Dirty::RENDER));
    }

    fn set_depths(&mut self, id: NodeId, depth: u32) {
        let mut stack = vec![(id, depth)];
        while let Some((n, d)) = stack.pop() {
            if let Ok(node) = self.node_mut(n) {
                node.depth = d;
                let children = std::mem::take(&mut node.children);
                stack.extend(children.iter().map(|&c| (c, d + 1)));
                if let Ok(node) = self.node_mut(n) {
                    node.children = children;
                }
            }
        }
    }

    /// Unlinks `child` from its parent (if any); it becomes a detached subtree root.
    fn unlink(&mut self, child: NodeId) {
        let Some(parent) = self.node(child).ok().and_then(|c| c.parent) else {
            return;
        };
        if let Ok(p) = self.node_mut(parent) {
            p.children.retain(|&c| c != child);
            p.data.child_left(child);
        }
        if let Ok(c) = self.node_mut(child) {
            c.parent = None;
        }
        self.set_depths(child, 0);
        self.nodes.mark(parent, Dirty::BOUND);
    }

    /// Attaches the detached node `child` as the last child of `parent`.
    ///
    /// # Errors
    /// [`SceneError::StaleId`], [`SceneError::NotAGroup`], [`SceneError::Cycle`] (`parent` is
    /// `child` or lies under it), [`SceneError::AlreadyAttached`], [`SceneError::RootIsFixed`],
    /// [`SceneError::DepthLimit`]. Nothing changes on error.
    pub fn attach(&mut self, parent: NodeId, child: NodeId) -> Result<(), SceneError> {
        self.attach_at(parent, usize::MAX, child)
    }

    /// Attaches the detached node `child` at position `index` among `parent`'s children
    /// (clamped to the end).
    ///
    /// # Errors
    /// As [`Scene::attach`].
    pub fn attach_at(
        &mut self,
        parent: NodeId,
        index: usize,
        child: NodeId,
    ) -> Result<(), SceneError> {
        self.check_attach(parent, child)?;
        let c = self.node(child)?;
        if c.parent.is_some() {
            return Err(SceneError::AlreadyAttached(c.name.clone()));
        }
        self.link(parent, child, Some(index));
        Ok(())
    }

    /// Detaches `child` from its parent, keeping its subtree alive as a detached tree (its
    /// local transform is kept). Detaching a detached node does nothing.
    ///
    /// # Errors
    /// [`SceneError::StaleId`], [`SceneError::RootIsFixed`].
    pub fn detach(&mut self, child: NodeId) -> Result<(), SceneError> {
        self.node(child)?;
        if child == self.root() {
            return Err(SceneError::RootIsFixed);
        }
        self.unlink(child);
        Ok(())
    }

    /// Moves `child` (attached or not) to the end of `new_parent`'s children.
    ///
    /// With [`Reparent::KeepWorld`] the local transform is replaced by
    /// `inverse(new_parent.world) ∘ child.world`, both computed fresh from the local
    /// transforms (so stale world data does not matter); the result is usually in general
    /// form.
    ///
    /// # Errors
    /// As [`Scene::attach`] (except `AlreadyAttached`), plus [`SceneError::SingularTransform`]
    /// when keeping the world transform needs the inverse of a singular parent. Nothing
    /// changes on error.
    pub fn reparent(
        &mut self,
        child: NodeId,
        new_parent: NodeId,
        mode: Reparent,
    ) -> Result<(), SceneError> {
        self.check_attach(new_parent, child)?;
        let new_local = match mode {
            Reparent::KeepLocal => None,
            Reparent::KeepWorld => {
                let child_world = self.compute_world(child)?;
                let parent_world = self.compute_world(new_parent)?;
                let inv = parent_world
                    .try_inverse()
                    .ok_or(SceneError::SingularTransform)?;
                let local = inv.compose(&child_world);
                if !local.is_finite() {
                    return Err(SceneError::SingularTransform);
                }
                Some(local)
            }
        };
        self.unlink(child);
        if let Some(local) = new_local {
            if let Ok(c) = self.node_mut(child) {
                c.local = local;
            }
        }
        self.link(new_parent, child, None);
        Ok(())
    }

    /// Moves every child of `from` to the end of `to`'s children, in order, keeping their
    /// local transforms, and returns them. Linear in the number of nodes moved (moving them
    /// one by one with [`Scene::reparent`] scans `from`'s child list each time). All or
    /// nothing: every child is checked as [`Scene::attach`] would before anything moves.
    ///
    /// # Errors
    /// As [`Scene::attach`].
    pub(crate) fn move_children(
        &mut self,
        from: NodeId,
        to: NodeId,
    ) -> Result<Vec<NodeId>, SceneError> {
        let moved = self.node(from)?.children.clone();
        self.node(to)?;
        for &c in &moved {
            self.check_attach(to, c)?;
        }
        if let Ok(f) = self.node_mut(from) {
            f.children.clear();
            if let Some(active) = f.data.active_mut() {
                *active = None;
            }
        }
        self.nodes.mark(from, Dirty::BOUND);
        for &c in &moved {
            if let Ok(n) = self.node_mut(c) {
                n.parent = None;
            }
            self.link(to, c, None);
        }
        Ok(moved)
    }

    /// Removes `id` and its whole subtree (and their controllers). Returns the number of nodes
    /// removed. Meshes survive as long as other nodes (or the caller) hold them.
    ///
    /// # Errors
    /// [`SceneError::StaleId`], [`SceneError::RootIsFixed`].
    pub fn remove(&mut self, id: NodeId) -> Result<usize, SceneError> {
        self.node(id)?;
        if id == self.root() {
            return Err(SceneError::RootIsFixed);
        }
        self.unlink(id);
        let mut removed = 0;
        let mut stack = vec![id];
        while let Some(n) = stack.pop() {
            if let Some(node) = self.nodes.take(n.index()) {
                stack.extend(node.children);
                removed += 1;
            }
        }
        if !self.controllers.is_empty() {
            let nodes = &self.nodes;
            self.controllers.retain(|(n, _)| nodes.get(*n).is_some());
        }
        if !self.mesh_controllers.is_empty() {
            let nodes = &self.nodes;
            self.mesh_controllers
                .retain(|(n, _)| nodes.get(*n).is_some());
        }
        Ok(removed)
    }

    /// Whether the node is the root or lies under it (only those are updated and drawn).
    ///
    /// # Errors
    /// [`SceneError::StaleId`].
    pub fn is_attached(&self, id: NodeId) -> Result<bool, SceneError> {
        self.node(id)?;
        Ok(self.is_ancestor_or_self(self.root(), id))
    }
}
