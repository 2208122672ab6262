//! Layers: nodes that clear depth and/or stencil in a screen rectangle before their subtree is
//! drawn — an inset ("picture in picture"), a HUD drawn over the scene, a second pass that
//! must not be occluded by the first (Wild Magic's `ClearZBuffer` / `ClearSubZBuffer` between
//! `DrawScene` calls).
//!
//! A node with a [`ClearRegion`] ([`Scene::set_clear`]) starts a **layer**: its subtree, minus
//! the subtrees of nested layer nodes (which are layers of their own). Geometry outside every
//! layer is the *base layer*. A frame ([`Scene::draw`]) draws:
//!
//! 1. background screen polygons;
//! 2. the base layer — opaque leaves in tree order, its planar shadow / reflection passes,
//!    transparent leaves back to front;
//! 3. for each layer node in tree pre-order (parents before their nested layers, siblings in
//!    child order): the clear ([`Renderer::clear_region`](crate::Renderer::clear_region)),
//!    then that layer's opaque leaves, scene-effect passes and transparent leaves, sorted as in
//!    2 **within the layer** (a transparent leaf of one layer is never sorted against
//!    another layer's);
//! 4. overlay screen polygons.
//!
//! So a layer is drawn after everything outside it, wherever it sits in the tree, and its
//! clear affects only what comes after. The clear is issued whenever the layer node is part of
//! the drawn tree — not under an inactive switch child and not culled with
//! [`Culling::Always`] — even when frustum culling leaves none of its geometry visible (a
//! clear is a screen-space operation, as in Wild Magic, where the application calls it).
//! Colour is never cleared by a layer (use a screen polygon for an inset's background).
//!
//! This is the order of [`Scene::draw`]; a deferred draw that hands the visible set to the
//! application's own function leaves layers (and their clears) to that function, which can
//! read them with [`Scene::clear_region`].

use crate::clear::ClearRegion;
use crate::error::SceneError;
use crate::graph::{NodeId, Scene};
use crate::node::{Culling, NodeData};

impl Scene {
    /// Makes `id` a layer node that clears `region` before its subtree is drawn, or (with
    /// `None`) an ordinary node again. See the [module docs](self) for the draw order.
    ///
    /// # Errors
    /// [`SceneError::StaleId`]; [`SceneError::InvalidArgument`] for a region that fails
    /// [`ClearRegion::validate`].
    pub fn set_clear(&mut self, id: NodeId, region: Option<ClearRegion>) -> Result<(), SceneError> {
        self.node(id)?;
        match region {
            Some(r) => {
                r.validate()?;
                self.clears.insert(id, r);
            }
            None => {
                self.clears.remove(&id);
            }
        }
        Ok(())
    }

    /// The clear region of a layer node, `None` for an ordinary node.
    ///
    /// # Errors
    /// [`SceneError::StaleId`].
    pub fn clear_region(&self, id: NodeId) -> Result<Option<&ClearRegion>, SceneError> {
        self.node(id)?;
        Ok(self.clears.get(&id))
    }

    /// Whether any node is a layer node.
    pub(crate) fn has_layers(&self) -> bool {
        !self.clears.is_empty()
    }

    /// The layer nodes of the drawn tree in tree pre-order (the order their layers are
    /// drawn), with their regions: the walk follows only the active child of a switch and
    /// skips subtrees culled with [`Culling::Always`].
    pub(crate) fn layer_order(&self) -> Vec<(NodeId, ClearRegion)> {
        let mut out = Vec::new();
        if self.clears.is_empty() {
            return out;
        }
        let mut stack = vec![self.root()];
        while let Some(id) = stack.pop() {
            let Ok(node) = self.node(id) else { continue };
            if node.cull == Culling::Always {
                continue;
            }
            if let Some(r) = self.clears.get(&id) {
                out.push((id, *r));
            }
            match &node.data {
                NodeData::Switch { active } => stack.extend(*active),
                _ => stack.extend(node.children.iter().rev()),
            }
        }
        out
    }

    /// The layer a node belongs to: its nearest ancestor-or-self layer node, `None` for the
    /// base layer.
    pub(crate) fn layer_of(&self, id: NodeId) -> Option<NodeId> {
        let mut at = Some(id);
        while let Some(n) = at {
            if self.clears.contains_key(&n) {
                return Some(n);
            }
            at = self.node(n).ok().and_then(|node| node.parent);
        }
        None
    }
}
