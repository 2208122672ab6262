//! The node arena: typed, generation-checked ids, group / switch / geometry nodes, and the
//! hierarchy operations (attach, detach, reparent, remove, lookup by name).
//!
//! Nodes live in one `Vec` of slots. A [`NodeId`] is a slot index plus the slot's generation;
//! removing a node bumps the generation, so an old id can never reach a node that later reuses
//! the slot — it gets [`SceneError::StaleId`] instead. Nothing is reference-counted and every
//! walk over the tree is iterative, so neither a deep tree nor dropping one can overflow the
//! stack.
//!
//! The scene is a **tree** with one fixed root ([`Scene::root`]). Nodes can be created
//! detached and attached later; only nodes under the root are updated, culled, picked and
//! printed. A detached subtree keeps its last world data until it is attached again.
//!
//! Only group and switch nodes have children; geometry nodes are leaves (Eberly's split
//! between `Node` and `Geometry`). A node's local transform applies to its own geometry and to
//! its children, so a per-mesh "model scale" (the CubeRobot tutorial's) is simply a geometry
//! leaf with a scaled local transform under the joint node.
//!
//! Limits ([`Limits`]): at most [`DEFAULT_MAX_NODES`] nodes and depth [`DEFAULT_MAX_DEPTH`]
//! unless configured otherwise; exceeding either is a typed error, never an abort.

use std::fmt;
use std::sync::Arc;

use glam::Mat4;

use crate::bound::{Bound, BoundKind};
use crate::controller::Controller;
use crate::cull::CullMode;
use crate::error::SceneError;
use crate::light::Light;
use crate::mesh::Mesh;
use crate::render_state::{RenderIntent, ResolvedRender, RS_DIRTY};
use crate::screen::ScreenPolygon;
use crate::transform::Transform;
use crate::update::{UpdateStats, DIRTY_BOUND, DIRTY_TRANSFORM};

/// Default maximum number of live nodes (root included): 2²⁴.
pub const DEFAULT_MAX_NODES: usize = 1 << 24;
/// Default maximum depth (the root is depth 0): 2²⁰ = 1 048 576.
pub const DEFAULT_MAX_DEPTH: usize = 1 << 20;

/// A generation-checked handle to a node of one [`Scene`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct NodeId {
    index: u32,
    generation: u32,
}

impl NodeId {
    pub(crate) fn from_parts(index: u32, generation: u32) -> NodeId {
        NodeId { index, generation }
    }

    /// Slot index (stable while the node lives; reused after removal with a new generation).
    pub fn index(self) -> u32 {
        self.index
    }
}

impl fmt::Display for NodeId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "#{}v{}", self.index, self.generation)
    }
}

/// Size limits of a scene.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Maximum number of live nodes, root included.
    pub max_nodes: usize,
    /// Maximum depth of any node under the root (root = 0).
    pub max_depth: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_nodes: DEFAULT_MAX_NODES,
            max_depth: DEFAULT_MAX_DEPTH,
        }
    }
}

/// What a node is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NodeKind {
    /// An interior node: groups and transforms its children.
    Group,
    /// A group of which only the active child is drawn and picked (all are updated).
    Switch,
    /// A leaf drawing a shared [`Mesh`].
    Geometry,
}

/// How [`Scene::reparent`] treats the moved node's transform.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reparent {
    /// Keep the local transform (the node moves with its new parent).
    KeepLocal,
    /// Recompute the local transform so the world transform stays the same (up to rounding).
    KeepWorld,
}

#[derive(Debug, Clone)]
pub(crate) enum NodeData {
    Group,
    Switch { active: Option<NodeId> },
    Geometry(Arc<Mesh>),
}

#[derive(Debug, Clone)]
pub(crate) struct Node {
    pub(crate) name: String,
    pub(crate) parent: Option<NodeId>,
    pub(crate) children: Vec<NodeId>,
    pub(crate) local: Transform,
    pub(crate) world: Transform,
    pub(crate) world_bound: Bound,
    pub(crate) data: NodeData,
    pub(crate) cull: CullMode,
    pub(crate) flags: u8,
    pub(crate) depth: u32,
    /// What the user set: global states, lights, effect (render_state).
    pub(crate) intent: Option<Box<RenderIntent>>,
    /// What a geometry leaf is drawn with, computed by `update` (render_state).
    pub(crate) resolved: Option<Arc<ResolvedRender>>,
    /// Render-state dirty bits (render_state::RS_*).
    pub(crate) rs_flags: u8,
    /// A billboard group: turns about its model up axis to face the camera (billboard).
    pub(crate) billboard: bool,
}

#[derive(Debug, Clone)]
pub(crate) struct Slot {
    pub(crate) generation: u32,
    pub(crate) node: Option<Node>,
}

/// A scene graph: the node arena plus its root, limits, bound kind and controllers.
pub struct Scene {
    pub(crate) slots: Vec<Slot>,
    free: Vec<u32>,
    live: usize,
    root: NodeId,
    limits: Limits,
    pub(crate) bound_kind: BoundKind,
    pub(crate) controllers: Vec<(NodeId, Box<dyn Controller>)>,
    pub(crate) last_stats: UpdateStats,
    /// The light table (light).
    pub(crate) lights: Vec<Light>,
    /// Billboard groups, in creation order (billboard).
    pub(crate) billboards: Vec<NodeId>,
    /// The eye position billboards were last aligned to.
    pub(crate) billboard_eye: Option<glam::Vec3>,
    /// Some node has (or had) a planar shadow / reflection effect.
    pub(crate) has_scene_effects: bool,
    /// Frame settings used by `draw` (draw).
    pub(crate) frame: crate::draw::FrameSettings,
    /// Screen-space polygons (screen).
    pub(crate) screen_polygons: Vec<ScreenPolygon>,
    /// The time of the last update (draw re-runs update at this time).
    pub(crate) time: f64,
    /// Reusable culling output (draw).
    pub(crate) visible_scratch: Option<crate::cull::VisibleSet>,
}

impl fmt::Debug for Scene {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Scene")
            .field("nodes", &self.live)
            .field("limits", &self.limits)
            .field("bound_kind", &self.bound_kind)
            .field("controllers", &self.controllers.len())
            .finish_non_exhaustive()
    }
}

impl Default for Scene {
    fn default() -> Self {
        Scene::new()
    }
}

impl Scene {
    /// An empty scene: one group node named `"root"`, default [`Limits`], sphere bounds.
    pub fn new() -> Scene {
        Scene::with_limits(Limits::default())
    }

    /// An empty scene with the given limits (`max_nodes` is at least 1 for the root).
    pub fn with_limits(limits: Limits) -> Scene {
        let limits = Limits {
            max_nodes: limits.max_nodes.max(1),
            max_depth: limits.max_depth,
        };
        let root_node = Node {
            name: "root".to_owned(),
            parent: None,
            children: Vec::new(),
            local: Transform::IDENTITY,
            world: Transform::IDENTITY,
            world_bound: Bound::Empty,
            data: NodeData::Group,
            cull: CullMode::Dynamic,
            flags: DIRTY_TRANSFORM,
            depth: 0,
            intent: None,
            resolved: None,
            rs_flags: RS_DIRTY,
            billboard: false,
        };
        Scene {
            slots: vec![Slot {
                generation: 0,
                node: Some(root_node),
            }],
            free: Vec::new(),
            live: 1,
            root: NodeId {
                index: 0,
                generation: 0,
            },
            limits,
            bound_kind: BoundKind::Sphere,
            controllers: Vec::new(),
            last_stats: UpdateStats::default(),
            lights: Vec::new(),
            billboards: Vec::new(),
            billboard_eye: None,
            has_scene_effects: false,
            frame: crate::draw::FrameSettings::default(),
            screen_polygons: Vec::new(),
            time: 0.0,
            visible_scratch: None,
        }
    }

    /// The root (a group node; it cannot be removed, detached or reparented).
    pub fn root(&self) -> NodeId {
        self.root
    }

    /// The limits in force.
    pub fn limits(&self) -> Limits {
        self.limits
    }

    /// Number of live nodes, attached or not, root included.
    pub fn node_count(&self) -> usize {
        self.live
    }

    /// The kind of bound computed for every node.
    pub fn bound_kind(&self) -> BoundKind {
        self.bound_kind
    }

    /// Chooses spheres or boxes for all world bounds (takes effect at the next update, which
    /// recomputes everything).
    pub fn set_bound_kind(&mut self, kind: BoundKind) {
        if kind != self.bound_kind {
            self.bound_kind = kind;
            let root = self.root;
            self.mark(root, DIRTY_TRANSFORM);
        }
    }

    /// Whether `id` names a live node of this scene.
    pub fn contains(&self, id: NodeId) -> bool {
        self.node(id).is_ok()
    }

    pub(crate) fn node(&self, id: NodeId) -> Result<&Node, SceneError> {
        self.slots
            .get(id.index as usize)
            .filter(|s| s.generation == id.generation)
            .and_then(|s| s.node.as_ref())
            .ok_or(SceneError::StaleId(id))
    }

    pub(crate) fn node_mut(&mut self, id: NodeId) -> Result<&mut Node, SceneError> {
        self.slots
            .get_mut(id.index as usize)
            .filter(|s| s.generation == id.generation)
            .and_then(|s| s.node.as_mut())
            .ok_or(SceneError::StaleId(id))
    }

    /// Node at a slot index known to be live (internal walks over attached nodes).
    #[inline]
    pub(crate) fn at(&self, index: u32) -> Option<&Node> {
        self.slots.get(index as usize).and_then(|s| s.node.as_ref())
    }

    fn create(&mut self, name: String, data: NodeData) -> Result<NodeId, SceneError> {
        if self.live >= self.limits.max_nodes {
            return Err(SceneError::NodeLimit {
                max: self.limits.max_nodes,
            });
        }
        let node = Node {
            name,
            parent: None,
            children: Vec::new(),
            local: Transform::IDENTITY,
            world: Transform::IDENTITY,
            world_bound: Bound::Empty,
            data,
            cull: CullMode::Dynamic,
            flags: DIRTY_TRANSFORM,
            depth: 0,
            intent: None,
            resolved: None,
            rs_flags: RS_DIRTY,
            billboard: false,
        };
        self.live += 1;
        if let Some(index) = self.free.pop() {
            let slot = &mut self.slots[index as usize];
            slot.node = Some(node);
            Ok(NodeId {
                index,
                generation: slot.generation,
            })
        } else {
            let index = u32::try_from(self.slots.len()).map_err(|_| SceneError::NodeLimit {
                max: self.limits.max_nodes,
            })?;
            self.slots.push(Slot {
                generation: 0,
                node: Some(node),
            });
            Ok(NodeId {
                index,
                generation: 0,
            })
        }
    }

    /// Creates a detached group node.
    ///
    /// # Errors
    /// [`SceneError::NodeLimit`].
    pub fn create_group(&mut self, name: impl Into<String>) -> Result<NodeId, SceneError> {
        self.create(name.into(), NodeData::Group)
    }

    /// Creates a detached switch node (no active child).
    ///
    /// # Errors
    /// [`SceneError::NodeLimit`].
    pub fn create_switch(&mut self, name: impl Into<String>) -> Result<NodeId, SceneError> {
        self.create(name.into(), NodeData::Switch { active: None })
    }

    /// Creates a detached geometry leaf drawing `mesh`.
    ///
    /// # Errors
    /// [`SceneError::NodeLimit`].
    pub fn create_geometry(
        &mut self,
        name: impl Into<String>,
        mesh: Arc<Mesh>,
    ) -> Result<NodeId, SceneError> {
        self.create(name.into(), NodeData::Geometry(mesh))
    }

    fn create_under(
        &mut self,
        parent: NodeId,
        name: String,
        data: NodeData,
    ) -> Result<NodeId, SceneError> {
        let p = self.node(parent)?;
        if matches!(p.data, NodeData::Geometry(_)) {
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

    /// Creates a group node as the last child of `parent`.
    ///
    /// # Errors
    /// [`SceneError::StaleId`], [`SceneError::NotAGroup`], [`SceneError::NodeLimit`],
    /// [`SceneError::DepthLimit`].
    pub fn add_group(
        &mut self,
        parent: NodeId,
        name: impl Into<String>,
    ) -> Result<NodeId, SceneError> {
        self.create_under(parent, name.into(), NodeData::Group)
    }

    /// Creates a switch node as the last child of `parent`.
    ///
    /// # Errors
    /// As [`Scene::add_group`].
    pub fn add_switch(
        &mut self,
        parent: NodeId,
        name: impl Into<String>,
    ) -> Result<NodeId, SceneError> {
        self.create_under(parent, name.into(), NodeData::Switch { active: None })
    }

    /// Creates a geometry leaf as the last child of `parent`.
    ///
    /// # Errors
    /// As [`Scene::add_group`].
    pub fn add_geometry(
        &mut self,
        parent: NodeId,
        name: impl Into<String>,
        mesh: Arc<Mesh>,
    ) -> Result<NodeId, SceneError> {
        self.create_under(parent, name.into(), NodeData::Geometry(mesh))
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
        if child == self.root {
            return Err(SceneError::RootIsFixed);
        }
        if matches!(p.data, NodeData::Geometry(_)) {
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
        self.mark(child, DIRTY_TRANSFORM);
        self.mark_render(child);
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
            if let NodeData::Switch { active } = &mut p.data {
                if *active == Some(child) {
                    *active = None;
                }
            }
        }
        if let Ok(c) = self.node_mut(child) {
            c.parent = None;
        }
        self.set_depths(child, 0);
        self.mark(parent, DIRTY_BOUND);
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
        if child == self.root {
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

    /// Removes `id` and its whole subtree (and their controllers). Returns the number of nodes
    /// removed. Meshes survive as long as other nodes (or the caller) hold them.
    ///
    /// # Errors
    /// [`SceneError::StaleId`], [`SceneError::RootIsFixed`].
    pub fn remove(&mut self, id: NodeId) -> Result<usize, SceneError> {
        self.node(id)?;
        if id == self.root {
            return Err(SceneError::RootIsFixed);
        }
        self.unlink(id);
        let mut removed = 0;
        let mut stack = vec![id];
        while let Some(n) = stack.pop() {
            let slot = &mut self.slots[n.index as usize];
            if let Some(node) = slot.node.take() {
                stack.extend(node.children);
                removed += 1;
                self.live -= 1;
                if slot.generation < u32::MAX {
                    slot.generation += 1;
                    self.free.push(n.index);
                }
            }
        }
        if !self.controllers.is_empty() {
            let slots = &self.slots;
            self.controllers.retain(|(n, _)| {
                slots
                    .get(n.index as usize)
                    .is_some_and(|s| s.generation == n.generation && s.node.is_some())
            });
        }
        Ok(removed)
    }

    /// The world transform of `id` computed now from the local transforms of its ancestors
    /// (`W = L_root ∘ … ∘ L_id`, composed top-down exactly as `update` does, so the result is
    /// bit-identical to what the next update will store). O(depth).
    ///
    /// # Errors
    /// [`SceneError::StaleId`].
    pub fn compute_world(&self, id: NodeId) -> Result<Transform, SceneError> {
        let mut chain = Vec::new();
        let mut cur = Some(id);
        while let Some(c) = cur {
            let n = self.node(c)?;
            chain.push(n.local);
            cur = n.parent;
        }
        let mut it = chain.iter().rev();
        let mut world = it.next().copied().unwrap_or(Transform::IDENTITY);
        for local in it {
            world = world.compose(local);
        }
        Ok(world)
    }

    // ----- getters -----

    /// The node's name.
    ///
    /// # Errors
    /// [`SceneError::StaleId`].
    pub fn name(&self, id: NodeId) -> Result<&str, SceneError> {
        Ok(&self.node(id)?.name)
    }

    /// Renames a node.
    ///
    /// # Errors
    /// [`SceneError::StaleId`].
    pub fn set_name(&mut self, id: NodeId, name: impl Into<String>) -> Result<(), SceneError> {
        self.node_mut(id)?.name = name.into();
        Ok(())
    }

    /// The node's kind.
    ///
    /// # Errors
    /// [`SceneError::StaleId`].
    pub fn kind(&self, id: NodeId) -> Result<NodeKind, SceneError> {
        Ok(match self.node(id)?.data {
            NodeData::Group => NodeKind::Group,
            NodeData::Switch { .. } => NodeKind::Switch,
            NodeData::Geometry(_) => NodeKind::Geometry,
        })
    }

    /// The parent, or `None` for the root and detached subtree roots.
    ///
    /// # Errors
    /// [`SceneError::StaleId`].
    pub fn parent(&self, id: NodeId) -> Result<Option<NodeId>, SceneError> {
        Ok(self.node(id)?.parent)
    }

    /// The children in order (empty for leaves).
    ///
    /// # Errors
    /// [`SceneError::StaleId`].
    pub fn children(&self, id: NodeId) -> Result<&[NodeId], SceneError> {
        Ok(&self.node(id)?.children)
    }

    /// Depth below its tree's root (the scene root and detached roots are 0).
    ///
    /// # Errors
    /// [`SceneError::StaleId`].
    pub fn depth(&self, id: NodeId) -> Result<usize, SceneError> {
        Ok(self.node(id)?.depth as usize)
    }

    /// Whether the node is the root or lies under it (only those are updated and drawn).
    ///
    /// # Errors
    /// [`SceneError::StaleId`].
    pub fn is_attached(&self, id: NodeId) -> Result<bool, SceneError> {
        self.node(id)?;
        Ok(self.is_ancestor_or_self(self.root, id))
    }

    /// The mesh of a geometry leaf.
    ///
    /// # Errors
    /// [`SceneError::StaleId`], [`SceneError::NotAGeometry`].
    pub fn mesh(&self, id: NodeId) -> Result<&Arc<Mesh>, SceneError> {
        let n = self.node(id)?;
        match &n.data {
            NodeData::Geometry(m) => Ok(m),
            _ => Err(SceneError::NotAGeometry(n.name.clone())),
        }
    }

    /// Replaces the mesh of a geometry leaf (its bound is recomputed at the next update).
    ///
    /// # Errors
    /// [`SceneError::StaleId`], [`SceneError::NotAGeometry`].
    pub fn set_mesh(&mut self, id: NodeId, mesh: Arc<Mesh>) -> Result<(), SceneError> {
        let n = self.node_mut(id)?;
        match &mut n.data {
            NodeData::Geometry(m) => *m = mesh,
            _ => return Err(SceneError::NotAGeometry(n.name.clone())),
        }
        self.mark(id, DIRTY_BOUND);
        Ok(())
    }

    /// The local transform (relative to the parent), as set by the user or a controller.
    ///
    /// # Errors
    /// [`SceneError::StaleId`].
    pub fn local(&self, id: NodeId) -> Result<&Transform, SceneError> {
        Ok(&self.node(id)?.local)
    }

    /// The world transform as of the last [`Scene::update`] (stale until then; see the crate
    /// docs). `world = parent.world ∘ local`.
    ///
    /// # Errors
    /// [`SceneError::StaleId`].
    pub fn world(&self, id: NodeId) -> Result<&Transform, SceneError> {
        Ok(&self.node(id)?.world)
    }

    /// `world_from_local` as a column-vector 4×4 matrix (as of the last update).
    ///
    /// # Errors
    /// [`SceneError::StaleId`].
    pub fn world_from_local(&self, id: NodeId) -> Result<Mat4, SceneError> {
        Ok(self.node(id)?.world.to_mat4())
    }

    /// The world bound as of the last update: the node's own geometry bound transformed to
    /// world space, or the merge of its children's world bounds in child order.
    ///
    /// # Errors
    /// [`SceneError::StaleId`].
    pub fn world_bound(&self, id: NodeId) -> Result<&Bound, SceneError> {
        Ok(&self.node(id)?.world_bound)
    }

    /// The node's cull mode.
    ///
    /// # Errors
    /// [`SceneError::StaleId`].
    pub fn cull_mode(&self, id: NodeId) -> Result<CullMode, SceneError> {
        Ok(self.node(id)?.cull)
    }

    /// Sets the node's cull mode (per-view behaviour; does not dirty the node).
    ///
    /// # Errors
    /// [`SceneError::StaleId`].
    pub fn set_cull_mode(&mut self, id: NodeId, mode: CullMode) -> Result<(), SceneError> {
        self.node_mut(id)?.cull = mode;
        Ok(())
    }
}
