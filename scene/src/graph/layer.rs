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

use crate::graph::node::{Culling, Visit};
use crate::graph::{NodeId, Scene};
use crate::values::clear::ClearRegion;
use crate::values::error::SceneError;

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

    /// Sets the most pixels one frame's clears may write (`None`, the default of a scene
    /// made in code: no limit): the clear rectangles of the layer nodes in the drawn tree,
    /// and the full depth clear before each depth layer after the first
    /// ([`frames`](crate::passes::frames)), at the size of the target drawn into. [`Scene::draw`]
    /// checks it before the frame begins, so nothing is cleared or drawn past it; the
    /// scene-file loader sets it from its work budget (`plumb --max-clear-pixels`).
    pub fn set_max_clear_pixels(&mut self, max: Option<u64>) {
        self.max_clear_pixels = max;
    }

    /// The limit [`Scene::set_max_clear_pixels`] set.
    pub fn max_clear_pixels(&self) -> Option<u64> {
        self.max_clear_pixels
    }

    /// The pixels the clears of the layer nodes in the drawn tree write in one frame drawn
    /// into a `width × height` target, checked against [`Scene::max_clear_pixels`] (what
    /// [`Scene::draw`] checks first; depth layers, which depend on the camera, are checked
    /// when their frame is planned).
    ///
    /// # Errors
    /// [`SceneError::ClearBudget`] naming the layer node whose clear passes the limit.
    pub fn check_clears(&self, width: u32, height: u32) -> Result<u64, SceneError> {
        let max = self.max_clear_pixels.unwrap_or(u64::MAX);
        let mut total = 0u64;
        for (id, region) in self.layer_order() {
            let r = region.rect.to_pixels(width, height);
            let pixels = u64::from(r.width) * u64::from(r.height);
            total = total.saturating_add(pixels);
            if total > max {
                return Err(SceneError::ClearBudget {
                    what: format!("layer node `{}`", self.path_of(id)),
                    pixels,
                    total,
                    width,
                    height,
                    max,
                });
            }
        }
        Ok(total)
    }

    /// [`Scene::check_clears`] for `layers` depth layers (a full depth clear before each
    /// after the first).
    pub(crate) fn check_depth_layer_clears(
        &self,
        layers: usize,
        width: u32,
        height: u32,
    ) -> Result<(), SceneError> {
        let Some(max) = self.max_clear_pixels else {
            return Ok(());
        };
        let pixels = u64::from(width) * u64::from(height);
        let total = pixels.saturating_mul(layers.saturating_sub(1) as u64);
        if total > max {
            return Err(SceneError::ClearBudget {
                what: format!("{layers} depth layers"),
                pixels,
                total,
                width,
                height,
                max,
            });
        }
        Ok(())
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
            match node.data.visit() {
                Visit::Active(active) => stack.extend(active),
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
