//! Deferred drawing (Eberly's `Renderer::DrawDeferred`, book-advanced §1.9): the frame's
//! traversal collects the visible set, then hands it to a pluggable draw function instead of
//! drawing each leaf as it is met.
//!
//! [`Scene::draw_deferred`] runs steps 1–2 of [`Scene::draw`] (update for the camera, cull —
//! BSP order and portals included), collects the visible geometry leaves in traversal order
//! into a [`DeferredList`], and then, by [`DeferredDraw`]:
//!
//! * [`DeferredDraw::NoDraw`] draws nothing but the cleared frame and the screen polygons
//!   (Eberly's `DrawDeferredNoDraw`, for measuring the scene graph's own cost);
//! * [`DeferredDraw::NoSort`] draws the list as collected (`DrawDeferredNoSort`): transparent
//!   leaves are not moved behind opaque ones;
//! * [`DeferredDraw::Sorted`] applies the sort of [`Scene::draw`] (opaque in traversal order,
//!   then transparent back to front, stable), so its image is **byte for byte** the
//!   immediate one;
//! * [`DeferredDraw::Custom`] lets a function reorder or drop entries (e.g. sort by texture
//!   to batch state), then draws the list in its new order.
//!
//! Unlike Wild Magic, replaying cannot re-enter the collection (the list is plain data, not a
//! renderer mode), so there is nothing to switch off while drawing. Global effects need no
//! `Node` entries either: each leaf's resolved render state names the group whose global
//! texture effect applies to it, and scene effects (planar shadows and reflections) are
//! drawn after the first list as in [`Scene::draw`].

use crate::frame::draw::SceneDrawStats;
use crate::frame::renderer::Renderer;
use crate::graph::{NodeId, Scene};
use crate::values::camera::Camera;
use crate::values::error::SceneError;

/// The leaves one frame's traversal collected, in traversal order (tree order, BSP back to
/// front, far portal regions first); a custom draw function may reorder or drop entries.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DeferredList {
    /// The visible geometry leaves.
    pub geometry: Vec<NodeId>,
}

/// A user draw function for [`DeferredDraw::Custom`]: reorders or filters the list.
pub type DeferredSort<'a> = &'a mut dyn FnMut(&Scene, &Camera, &mut DeferredList);

/// What [`Scene::draw_deferred`] does with the collected list (see the [module docs](self)).
pub enum DeferredDraw<'a> {
    /// Draw nothing (the cleared frame and screen polygons only).
    NoDraw,
    /// Draw the list as collected.
    NoSort,
    /// The sort of [`Scene::draw`]: the same image, bit for bit.
    Sorted,
    /// A user function reorders or filters the list, which is then drawn in order.
    Custom(DeferredSort<'a>),
}

impl std::fmt::Debug for DeferredDraw<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            DeferredDraw::NoDraw => "NoDraw",
            DeferredDraw::NoSort => "NoSort",
            DeferredDraw::Sorted => "Sorted",
            DeferredDraw::Custom(_) => "Custom",
        })
    }
}

impl Scene {
    /// Collects the frame's visible leaves and draws them through `mode` (see the
    /// [module docs](self)). Returns the list as collected (before any custom reordering) with
    /// the frame's counters.
    ///
    /// # Errors
    /// As [`Scene::draw`].
    pub fn draw_deferred(
        &mut self,
        camera: &Camera,
        renderer: &mut dyn Renderer,
        mode: DeferredDraw<'_>,
    ) -> Result<(DeferredList, SceneDrawStats), SceneError> {
        let (visible, update) = self.prepare_frame(camera);
        let collected = DeferredList {
            geometry: visible.items().to_vec(),
        };
        let stats = match mode {
            DeferredDraw::NoDraw => {
                self.draw_lists(camera, renderer, visible.stats(), update, &[], &[])?
            }
            DeferredDraw::NoSort => self.draw_lists(
                camera,
                renderer,
                visible.stats(),
                update,
                &collected.geometry,
                &[],
            )?,
            DeferredDraw::Sorted => {
                let (opaque, transparent) = self.sort_visible(camera, &collected.geometry)?;
                self.draw_lists(
                    camera,
                    renderer,
                    visible.stats(),
                    update,
                    &opaque,
                    &transparent,
                )?
            }
            DeferredDraw::Custom(f) => {
                let mut list = collected.clone();
                f(self, camera, &mut list);
                self.draw_lists(
                    camera,
                    renderer,
                    visible.stats(),
                    update,
                    &list.geometry,
                    &[],
                )?
            }
        };
        Ok((collected, stats))
    }
}
