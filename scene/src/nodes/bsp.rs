//! BSP nodes (Eberly's `BspNode`, book-advanced §1.6): a group with a plane in its local space
//! and three child **slots** — positive (the half space the normal points into), coplanar
//! (geometry in the plane, such as walls) and negative. BSP trees sort the world coarsely; they
//! do not split meshes.
//!
//! * **World plane**: under the node's world transform `Y = R·S·X + T` the local plane
//!   `N₀·X = c₀` becomes `N₁ = R·S⁻¹·N₀`, `c₁ = c₀ + N₁·T`, both divided by `|N₁|`
//!   ([`Scene::bsp_world_plane`], [`Transform::apply_plane`](crate::Transform::apply_plane)).
//! * **Drawing** ([`cull`](crate::passes::cull)): the slots are visited back to front from the eye's
//!   side and the frustum's side of the world plane ([`bsp_draw_order`]), so with the depth
//!   buffer off convex objects in different cells still cover each other correctly.
//! * [`Scene::containing_node`] descends from a BSP node to the leaf (or slot) whose convex
//!   cell holds a point: strictly negative goes to the negative slot, otherwise positive
//!   (a point on the plane counts as positive, as in Wild Magic).
//!
//! A slot holds one of the node's children; a child in no slot is updated (its bound counts)
//! but never drawn by the BSP walk, and a slot whose child was detached is empty. The tree
//! cannot have a cycle: slots hold children, and the scene is a tree.
//!

use glam::Vec3;

use crate::graph::node::{Bsp, Manager, NodeData};
use crate::graph::{NodeId, Scene};
use crate::values::camera::Camera;
use crate::values::error::SceneError;
use crate::values::partition::{bsp_draw_order, BspSide};
use crate::values::plane::Plane;
use crate::values::transform::Transform;

use super::kind::{display_name, fmt_v3, wrong_kind, KindHooks};

pub(crate) fn not_bsp(name: &str) -> SceneError {
    wrong_kind("BSP node", name, "a BSP node")
}

impl Bsp {
    /// A plane given as a [`Plane`] (already normalised) and empty slots.
    pub(crate) fn new(plane: Plane) -> Bsp {
        Bsp {
            plane,
            given: (plane.normal(), plane.constant()),
            slots: [None; 3],
        }
    }

    /// The order culling visits the slots in: back to front from the eye's side and the
    /// frustum's side of the world plane ([`bsp_draw_order`]), all three in slot order when
    /// the world transform has no plane (zero scale).
    pub(crate) fn draw_order(&self, world: &Transform, camera: &Camera) -> Vec<BspSide> {
        match world.apply_plane(&self.plane) {
            Some(wp) => bsp_draw_order(&wp, camera),
            None => BspSide::ALL.to_vec(),
        }
    }

    /// The dump's `plane=… positive=… coplanar=… negative=…` (after the kind's name).
    pub(crate) fn describe_as(&self, kind: &str, scene: &Scene, id: NodeId) -> String {
        let slots: Vec<String> = BspSide::ALL
            .iter()
            .map(|&s| {
                let child = match scene.live_slot(id, self.slots[s.index()]) {
                    Some(c) => display_name(scene, c),
                    None => "none",
                };
                format!("{}={child}", s.name())
            })
            .collect();
        format!(
            "{kind} plane={}·X={} {}",
            fmt_v3(self.plane.normal()),
            self.plane.constant(),
            slots.join(" ")
        )
    }

    /// Step 3 of a deep copy: the slots, mapped.
    pub(crate) fn copy_slots(
        &self,
        scene: &mut Scene,
        from: NodeId,
        copy: NodeId,
        map: &dyn Fn(NodeId) -> NodeId,
    ) -> Result<(), SceneError> {
        for side in BspSide::ALL {
            if let Some(child) = scene.live_slot(from, self.slots[side.index()]) {
                scene.set_bsp_child(copy, side, Some(map(child)))?;
            }
        }
        Ok(())
    }
}

impl Scene {
    /// Creates a BSP node with the local `plane` as the last child of `parent`; its slots start
    /// empty ([`Scene::set_bsp_child`]).
    ///
    /// # Errors
    /// As [`Scene::add_group`].
    pub fn add_bsp(
        &mut self,
        parent: NodeId,
        name: impl Into<String>,
        plane: Plane,
    ) -> Result<NodeId, SceneError> {
        self.add_bsp_node(parent, name.into(), Bsp::new(plane), false)
    }

    /// A BSP node (or region manager) from the plane `normal · X = constant` as written in a
    /// file: the node keeps the values as given besides the normalised plane.
    ///
    /// # Errors
    /// As [`Plane::new`] and [`Scene::add_group`].
    pub(crate) fn add_bsp_given(
        &mut self,
        parent: NodeId,
        name: String,
        normal: Vec3,
        constant: f32,
        manager: bool,
    ) -> Result<NodeId, SceneError> {
        let plane = Plane::new(normal, constant)?;
        let bsp = Bsp {
            plane,
            given: (normal, constant),
            slots: [None; 3],
        };
        self.add_bsp_node(parent, name, bsp, manager)
    }

    /// The plane of a BSP node as given (normal and constant before normalising).
    pub(crate) fn bsp_given_plane(&self, bsp: NodeId) -> Result<(Vec3, f32), SceneError> {
        Ok(self.bsp_data(bsp)?.given)
    }

    /// A BSP node (or, with `manager`, a region manager) with `bsp`'s plane and slots.
    pub(crate) fn add_bsp_node(
        &mut self,
        parent: NodeId,
        name: String,
        bsp: Bsp,
        manager: bool,
    ) -> Result<NodeId, SceneError> {
        let data = if manager {
            NodeData::RegionManager(Box::new(Manager { bsp }))
        } else {
            NodeData::Bsp(Box::new(bsp))
        };
        self.create_under(parent, name, data)
    }

    /// Whether `id` is a BSP node (a convex-region manager is one too).
    ///
    /// # Errors
    /// [`SceneError::StaleId`].
    pub fn is_bsp(&self, id: NodeId) -> Result<bool, SceneError> {
        Ok(self.node(id)?.data.bsp().is_some())
    }

    fn bsp_data(&self, bsp: NodeId) -> Result<&Bsp, SceneError> {
        let node = self.node(bsp)?;
        node.data.bsp().ok_or_else(|| not_bsp(&node.name))
    }

    /// Puts `child` (a child of `bsp`) in the slot `side`, or empties the slot with `None`. A
    /// child already in another slot moves.
    ///
    /// # Errors
    /// [`SceneError::StaleId`], [`SceneError::InvalidArgument`] when `bsp` is not a BSP node,
    /// [`SceneError::NotAChild`].
    pub fn set_bsp_child(
        &mut self,
        bsp: NodeId,
        side: BspSide,
        child: Option<NodeId>,
    ) -> Result<(), SceneError> {
        self.bsp_data(bsp)?;
        if let Some(c) = child {
            let node = self.node(bsp)?;
            if !node.children.contains(&c) {
                return Err(SceneError::NotAChild {
                    parent: node.name.clone(),
                    child: self.name(c).unwrap_or("<stale>").to_owned(),
                });
            }
        }
        if let Some(b) = self.node_mut(bsp)?.data.bsp_mut() {
            for s in b.slots.iter_mut() {
                if child.is_some() && *s == child {
                    *s = None;
                }
            }
            b.slots[side.index()] = child;
        }
        Ok(())
    }

    /// The child in slot `side` of `bsp` (`None` for an empty slot, or one whose child was
    /// detached since).
    ///
    /// # Errors
    /// [`SceneError::StaleId`], [`SceneError::InvalidArgument`] when `bsp` is not a BSP node.
    pub fn bsp_child(&self, bsp: NodeId, side: BspSide) -> Result<Option<NodeId>, SceneError> {
        let b = self.bsp_data(bsp)?;
        Ok(self.live_slot(bsp, b.slots[side.index()]))
    }

    /// A slot's child if it is still a child of `bsp`.
    pub(crate) fn live_slot(&self, bsp: NodeId, slot: Option<NodeId>) -> Option<NodeId> {
        let c = slot?;
        let node = self.nodes.get(bsp)?;
        node.children.contains(&c).then_some(c)
    }

    /// The plane of `bsp` in its local space.
    ///
    /// # Errors
    /// As [`Scene::bsp_child`].
    pub fn bsp_plane(&self, bsp: NodeId) -> Result<Plane, SceneError> {
        Ok(self.bsp_data(bsp)?.plane)
    }

    /// Replaces the local plane of `bsp`.
    ///
    /// # Errors
    /// As [`Scene::bsp_child`].
    pub fn set_bsp_plane(&mut self, bsp: NodeId, plane: Plane) -> Result<(), SceneError> {
        self.bsp_data(bsp)?;
        if let Some(b) = self.node_mut(bsp)?.data.bsp_mut() {
            b.plane = plane;
            b.given = (plane.normal(), plane.constant());
        }
        Ok(())
    }

    /// The plane of `bsp` in world space, from the world transform of the last update (see the
    /// [module docs](self)).
    ///
    /// # Errors
    /// As [`Scene::bsp_child`]; [`SceneError::SingularTransform`] when the world transform has
    /// a zero scale.
    pub fn bsp_world_plane(&self, bsp: NodeId) -> Result<Plane, SceneError> {
        let plane = self.bsp_data(bsp)?.plane;
        self.node(bsp)?
            .world
            .apply_plane(&plane)
            .ok_or(SceneError::SingularTransform)
    }

    /// The node whose convex cell holds the world point `p`, descending from `bsp` through
    /// nested BSP nodes (see the [module docs](self)); `None` when the slot reached is empty.
    /// A BSP node with neither a positive nor a negative child is its own cell.
    ///
    /// # Errors
    /// As [`Scene::bsp_world_plane`], for `bsp` or a BSP node below it.
    pub fn containing_node(&self, bsp: NodeId, p: Vec3) -> Result<Option<NodeId>, SceneError> {
        self.bsp_data(bsp)?;
        let mut cur = bsp;
        // Each step goes one level down a tree, so this ends; the cap is a second guard.
        for _ in 0..=self.nodes.live() {
            let b = self.bsp_data(cur)?;
            let pos = self.live_slot(cur, b.slots[BspSide::Positive.index()]);
            let neg = self.live_slot(cur, b.slots[BspSide::Negative.index()]);
            if pos.is_none() && neg.is_none() {
                return Ok(Some(cur));
            }
            let plane = self.bsp_world_plane(cur)?;
            let next = if plane.distance(p) < 0.0 { neg } else { pos };
            match next {
                Some(c) if self.node(c)?.data.bsp().is_some() => cur = c,
                other => return Ok(other),
            }
        }
        Ok(None)
    }
}

impl KindHooks for Bsp {
    fn describe(&self, scene: &Scene, id: NodeId) -> String {
        self.describe_as("bsp", scene, id)
    }

    fn copy_node(
        &self,
        scene: &mut Scene,
        parent: NodeId,
        name: String,
    ) -> Result<NodeId, SceneError> {
        // Slots are filled in step 3, once the children exist.
        let mut bsp = self.clone();
        bsp.slots = [None; 3];
        scene.add_bsp_node(parent, name, bsp, false)
    }

    fn copy_links(
        &self,
        scene: &mut Scene,
        from: NodeId,
        copy: NodeId,
        map: &dyn Fn(NodeId) -> NodeId,
    ) -> Result<(), SceneError> {
        self.copy_slots(scene, from, copy, map)
    }
}
