//! One node and the arena that stores them: what the user set on a node (intent), what
//! `update` computed for it, and its **dirty flags** — the node owns them, and
//! `Arena::mark` is the one place that sets them.
//!
//! # Dirty flags
//!
//! A node records what is stale about it (`Dirty`): its world transform (its local transform
//! changed, or it was attached), its bound (its mesh changed, or a child left), its resolved
//! render state (a state, light or effect was set, or it was attached). Marking a node also
//! marks every ancestor as having a stale descendant — stopping at the first ancestor that
//! already knows — so an edit costs O(depth) at worst and O(1) under an already-marked
//! ancestor. The passes read the flags to skip clean subtrees and clear them as they go
//! (`Node::clear_geometry` in `update`, `Node::clear_render` in render-state resolution);
//! nothing else writes them.

use std::sync::Arc;

use crate::values::bound::Bound;
use crate::values::effect::Effect;
use crate::values::id::{LightId, NodeId};
use crate::values::mesh::Mesh;
use crate::values::partition::Portal;
use crate::values::plane::Plane;
use crate::values::state::RenderStates;
use crate::values::transform::Transform;

/// Per-node culling behaviour against a view (user intent; the default is `Dynamic`). Not to
/// be confused with face culling ([`CullState`](crate::values::state::CullState), plumb-raster's
/// `CullMode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Culling {
    /// Test the world bound against the planes.
    #[default]
    Dynamic,
    /// Always culled, with its subtree (Eberly's `ForceCull`).
    Always,
    /// Never culled: the subtree is drawn without plane tests.
    Never,
}

/// What a geometry leaf is drawn with, as resolved by the last update (see
/// [`render_state`](crate::passes::render_state)).
#[derive(Debug, Clone, PartialEq)]
pub struct ResolvedRender {
    /// One state of each kind: the deepest on the path, else the default.
    pub states: RenderStates,
    /// Every light on the path, root first (not truncated; the renderer takes the first
    /// [`MAX_LIGHTS`](crate::values::light::MAX_LIGHTS)).
    pub lights: Vec<LightId>,
    /// The nearest ancestor group with a global texture effect ([`Effect::Textures`]).
    pub global_effect: Option<NodeId>,
}

impl Default for ResolvedRender {
    fn default() -> Self {
        ResolvedRender {
            states: RenderStates::DEFAULT,
            lights: Vec::new(),
            global_effect: None,
        }
    }
}

/// What the user set on one node besides its transform: global states, lights, effect.
#[derive(Debug, Clone, Default)]
pub(crate) struct RenderIntent {
    pub(crate) states: Vec<crate::values::state::GlobalState>,
    pub(crate) lights: Vec<LightId>,
    pub(crate) effect: Option<Arc<Effect>>,
}

/// What a node is, with its kind's data: **the one sum type of node kinds**. Each variant's
/// behaviour — its `impl Scene` API and the hooks the passes call — lives in its own file
/// under [`nodes`](crate::nodes); the payloads are defined here because the arena stores
/// them (a kind file sits above the arena, so the arena cannot import from it). The public
/// [`NodeKind`] is the discriminant.
#[derive(Debug, Clone)]
pub(crate) enum NodeData {
    Group,
    Geometry(Geometry),
    Switch(Switch),
    Lod(Box<Lod>),
    /// The eye (world space) the billboard's world transform faces: set from each view
    /// ([`Scene::prepare_view`](crate::Scene::prepare_view)); `None` before any (unrotated).
    Billboard(Option<glam::Vec3>),
    Bsp(Box<Bsp>),
    RegionManager(Box<Manager>),
    Region(Box<Region>),
}

/// A geometry leaf's data.
#[derive(Debug, Clone)]
pub(crate) struct Geometry {
    pub(crate) mesh: Arc<Mesh>,
    /// The world transform is the identity whatever the ancestors (a skinned leaf, whose
    /// mesh a controller computes in world space).
    pub(crate) world_identity: bool,
    /// A skinned leaf's mesh as it was when its skin was attached (a glTF's bind pose): what a
    /// save writes, so that a reloaded file starts from (and frames) the same shape.
    pub(crate) rest: Option<Arc<Mesh>>,
    /// A leaf whose level of detail each view chooses (see
    /// [`levels`](crate::values::levels)).
    pub(crate) levels: Option<Box<crate::values::levels::LevelMesh>>,
}

/// A switch's data: the active child.
#[derive(Debug, Clone, Default)]
pub(crate) struct Switch {
    pub(crate) active: Option<NodeId>,
}

/// The discrete-LOD data of a switch (see [`lod`](crate::nodes::lod)): the child chosen by
/// the last selection, the LOD centre in the node's local space and the `[min, max)` local
/// distance interval of each child that has one, in the order they were set.
#[derive(Debug, Clone, Default)]
pub(crate) struct Lod {
    pub(crate) active: Option<NodeId>,
    pub(crate) center: glam::Vec3,
    pub(crate) ranges: Vec<(NodeId, f32, f32)>,
}

/// The data of a BSP node or convex-region manager: its plane in the node's local space and
/// the child in each slot.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Bsp {
    pub(crate) plane: Plane,
    /// The normal and constant as given (before normalising), so a saved file reloads exactly.
    pub(crate) given: (glam::Vec3, f32),
    pub(crate) slots: [Option<NodeId>; 3],
}

/// The data of a convex-region manager: a BSP node whose coplanar slot is the outside scene.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Manager {
    pub(crate) bsp: Bsp,
}

/// The data of a convex region: its outgoing portals.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct Region {
    pub(crate) portals: Vec<Portal>,
}

/// What a node is (the discriminant of its data; see [`Scene::kind`](crate::Scene::kind)).
/// Scene files name the same eight kinds (`"kind"` of a node, `docs/scene-format.md`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum NodeKind {
    /// An interior node: groups and transforms its children.
    Group,
    /// A leaf drawing a shared [`Mesh`].
    Geometry,
    /// A group of which only the active child is drawn and picked (all are updated).
    Switch,
    /// A switch that picks its active child by the eye's distance (discrete level of detail).
    Lod,
    /// A group turned about its local up axis to face the camera.
    Billboard,
    /// A group with a plane and three child slots, drawn back to front.
    Bsp,
    /// A BSP node whose leaves are convex regions (portal culling).
    RegionManager,
    /// A convex region with outgoing portals.
    Region,
}

impl NodeKind {
    /// Every kind, in declaration order.
    pub const ALL: [NodeKind; 8] = [
        NodeKind::Group,
        NodeKind::Geometry,
        NodeKind::Switch,
        NodeKind::Lod,
        NodeKind::Billboard,
        NodeKind::Bsp,
        NodeKind::RegionManager,
        NodeKind::Region,
    ];

    /// The name scene files, `plumb info` and the text dump use (`"region_manager"` …).
    pub fn name(self) -> &'static str {
        match self {
            NodeKind::Group => "group",
            NodeKind::Geometry => "geometry",
            NodeKind::Switch => "switch",
            NodeKind::Lod => "lod",
            NodeKind::Billboard => "billboard",
            NodeKind::Bsp => "bsp",
            NodeKind::RegionManager => "region_manager",
            NodeKind::Region => "region",
        }
    }

    /// A leaf: geometry (every other kind has children).
    pub fn is_leaf(self) -> bool {
        self == NodeKind::Geometry
    }

    /// A switch or LOD switch: only the active child is drawn and picked.
    pub fn is_switch(self) -> bool {
        matches!(self, NodeKind::Switch | NodeKind::Lod)
    }

    /// A BSP node or region manager (a plane and three slots).
    pub fn is_bsp(self) -> bool {
        matches!(self, NodeKind::Bsp | NodeKind::RegionManager)
    }
}

/// Which children a walk that draws or picks visits (the passes' one question about a
/// node's kind; BSP order and portals are culling's own, see [`cull`](crate::passes::cull)).
#[derive(Debug, Clone, Copy)]
pub(crate) enum Visit<'a> {
    /// A geometry leaf with its mesh.
    Leaf(&'a Geometry),
    /// Every child, in order.
    Children,
    /// Only the active child of a switch, if any.
    Active(Option<NodeId>),
}

impl NodeData {
    /// The discriminant.
    pub(crate) fn kind(&self) -> NodeKind {
        match self {
            NodeData::Group => NodeKind::Group,
            NodeData::Geometry(_) => NodeKind::Geometry,
            NodeData::Switch(_) => NodeKind::Switch,
            NodeData::Lod(_) => NodeKind::Lod,
            NodeData::Billboard(_) => NodeKind::Billboard,
            NodeData::Bsp(_) => NodeKind::Bsp,
            NodeData::RegionManager(_) => NodeKind::RegionManager,
            NodeData::Region(_) => NodeKind::Region,
        }
    }

    /// Which children drawing and picking visit.
    #[inline]
    pub(crate) fn visit(&self) -> Visit<'_> {
        match self {
            NodeData::Geometry(g) => Visit::Leaf(g),
            NodeData::Switch(s) => Visit::Active(s.active),
            NodeData::Lod(l) => Visit::Active(l.active),
            NodeData::Group
            | NodeData::Billboard(_)
            | NodeData::Bsp(_)
            | NodeData::RegionManager(_)
            | NodeData::Region(_) => Visit::Children,
        }
    }

    /// The geometry leaf's data.
    #[inline]
    pub(crate) fn geometry(&self) -> Option<&Geometry> {
        match self {
            NodeData::Geometry(g) => Some(g),
            _ => None,
        }
    }

    /// The mesh of a geometry leaf.
    #[inline]
    pub(crate) fn mesh(&self) -> Option<&Arc<Mesh>> {
        self.geometry().map(|g| &g.mesh)
    }

    /// A geometry leaf whose world transform is pinned to the identity.
    #[inline]
    pub(crate) fn world_identity(&self) -> bool {
        self.geometry().is_some_and(|g| g.world_identity)
    }

    /// The active child of a switch or LOD switch (`None` for other kinds).
    pub(crate) fn active_mut(&mut self) -> Option<&mut Option<NodeId>> {
        match self {
            NodeData::Switch(s) => Some(&mut s.active),
            NodeData::Lod(l) => Some(&mut l.active),
            _ => None,
        }
    }

    /// The BSP data of a BSP node or region manager.
    pub(crate) fn bsp(&self) -> Option<&Bsp> {
        match self {
            NodeData::Bsp(b) => Some(b),
            NodeData::RegionManager(m) => Some(&m.bsp),
            _ => None,
        }
    }

    /// The BSP data of a BSP node or region manager.
    pub(crate) fn bsp_mut(&mut self) -> Option<&mut Bsp> {
        match self {
            NodeData::Bsp(b) => Some(b),
            NodeData::RegionManager(m) => Some(&mut m.bsp),
            _ => None,
        }
    }

    /// The portals of a convex region.
    pub(crate) fn region(&self) -> Option<&Region> {
        match self {
            NodeData::Region(r) => Some(r),
            _ => None,
        }
    }

    /// The portals of a convex region.
    pub(crate) fn region_mut(&mut self) -> Option<&mut Region> {
        match self {
            NodeData::Region(r) => Some(r),
            _ => None,
        }
    }

    /// `child` left the node (detached, moved or removed): a switch whose active child it was
    /// has none. BSP slots and LOD ranges keep their entry (a slot whose child left reads as
    /// empty; see [`bsp`](crate::nodes::bsp)).
    pub(crate) fn child_left(&mut self, child: NodeId) {
        if let Some(active) = self.active_mut() {
            if *active == Some(child) {
                *active = None;
            }
        }
    }
}

/// What is stale about a node (a bit set; see the [module docs](self)).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Dirty(u8);

impl Dirty {
    /// The local transform changed (or the node was attached): recompute the world transforms
    /// of the node and its whole subtree.
    pub(crate) const TRANSFORM: Dirty = Dirty(1);
    /// The node's own bound inputs changed (mesh replaced, child removed).
    pub(crate) const BOUND: Dirty = Dirty(2);
    /// Render-state inputs changed (state, light or effect set, or attached): re-resolve the
    /// subtree.
    pub(crate) const RENDER: Dirty = Dirty(4);
    /// Some descendant has a stale world transform or bound.
    const GEOMETRY_BELOW: u8 = 8;
    /// Some descendant has stale render state.
    const RENDER_BELOW: u8 = 16;
    const GEOMETRY: u8 = Dirty::TRANSFORM.0 | Dirty::BOUND.0 | Dirty::GEOMETRY_BELOW;
    const RENDER_ALL: u8 = Dirty::RENDER.0 | Dirty::RENDER_BELOW;

    /// Both kinds of change.
    pub(crate) const fn and(self, other: Dirty) -> Dirty {
        Dirty(self.0 | other.0)
    }

    /// The "stale descendant" bits an ancestor needs for these changes.
    const fn below(self) -> u8 {
        let mut bits = 0;
        if self.0 & (Dirty::TRANSFORM.0 | Dirty::BOUND.0) != 0 {
            bits |= Dirty::GEOMETRY_BELOW;
        }
        if self.0 & Dirty::RENDER.0 != 0 {
            bits |= Dirty::RENDER_BELOW;
        }
        bits
    }
}

/// One node of the arena.
#[derive(Debug, Clone)]
pub(crate) struct Node {
    pub(crate) name: String,
    pub(crate) parent: Option<NodeId>,
    pub(crate) children: Vec<NodeId>,
    /// The user's local transform (intent).
    pub(crate) local: Transform,
    /// `parent.world ∘ local`, computed by `update`.
    pub(crate) world: Transform,
    /// Computed by `update`.
    pub(crate) world_bound: Bound,
    pub(crate) data: NodeData,
    /// Culling behaviour (intent).
    pub(crate) cull: Culling,
    /// The object id its geometry writes to an id plane (intent; `None`: an ancestor's, or
    /// the default, see `Scene::object_id`).
    pub(crate) object_id: Option<u32>,
    pub(crate) depth: u32,
    /// What the user set: global states, lights, effect.
    pub(crate) intent: Option<Box<RenderIntent>>,
    /// What a geometry leaf is drawn with, computed by `update`.
    pub(crate) resolved: Option<Arc<ResolvedRender>>,
    /// What is stale (see the module docs); set only by [`Arena::mark`] and creation.
    dirty: Dirty,
}

impl Node {
    /// A detached node with an identity transform, everything stale.
    pub(crate) fn new(name: String, data: NodeData) -> Node {
        Node {
            name,
            parent: None,
            children: Vec::new(),
            local: Transform::IDENTITY,
            world: Transform::IDENTITY,
            world_bound: Bound::Empty,
            data,
            cull: Culling::Dynamic,
            object_id: None,
            depth: 0,
            intent: None,
            resolved: None,
            dirty: Dirty::TRANSFORM.and(Dirty::RENDER),
        }
    }

    /// The node's effect, if any.
    pub(crate) fn effect(&self) -> Option<&Effect> {
        self.intent.as_ref().and_then(|i| i.effect.as_deref())
    }

    /// The world transform or bound of the node or a descendant is stale.
    pub(crate) fn geometry_stale(&self) -> bool {
        self.dirty.0 & Dirty::GEOMETRY != 0
    }

    /// The node's own world transform is stale (its local transform changed).
    pub(crate) fn transform_changed(&self) -> bool {
        self.dirty.0 & Dirty::TRANSFORM.0 != 0
    }

    /// The world transform and bound are up to date (`update` after recomputing them).
    pub(crate) fn clear_geometry(&mut self) {
        self.dirty.0 &= !Dirty::GEOMETRY;
    }

    /// The resolved render state of the node or a descendant is stale.
    pub(crate) fn render_stale(&self) -> bool {
        self.dirty.0 & Dirty::RENDER_ALL != 0
    }

    /// The node's own render-state inputs changed.
    pub(crate) fn render_changed(&self) -> bool {
        self.dirty.0 & Dirty::RENDER.0 != 0
    }

    /// The resolved render state is up to date (render-state resolution).
    pub(crate) fn clear_render(&mut self) {
        self.dirty.0 &= !Dirty::RENDER_ALL;
    }
}

/// A slot of the arena: a node or a hole, and the generation ids must match.
#[derive(Debug, Clone)]
struct Slot {
    generation: u32,
    node: Option<Node>,
}

/// The node storage: one `Vec` of slots, a free list, and generation checks (see
/// [`NodeId`]).
#[derive(Debug, Clone)]
pub(crate) struct Arena {
    slots: Vec<Slot>,
    free: Vec<u32>,
    live: usize,
}

impl Arena {
    /// An arena holding `root` at slot 0, generation 0.
    pub(crate) fn new(root: Node) -> Arena {
        Arena {
            slots: vec![Slot {
                generation: 0,
                node: Some(root),
            }],
            free: Vec::new(),
            live: 1,
        }
    }

    /// Number of live nodes.
    pub(crate) fn live(&self) -> usize {
        self.live
    }

    /// The node `id` names, if it is live.
    pub(crate) fn get(&self, id: NodeId) -> Option<&Node> {
        self.slots
            .get(id.index() as usize)
            .filter(|s| s.generation == id.generation())
            .and_then(|s| s.node.as_ref())
    }

    /// The node `id` names, if it is live.
    pub(crate) fn get_mut(&mut self, id: NodeId) -> Option<&mut Node> {
        self.slots
            .get_mut(id.index() as usize)
            .filter(|s| s.generation == id.generation())
            .and_then(|s| s.node.as_mut())
    }

    /// The node in slot `index` (internal walks over ids known to be live).
    #[inline]
    pub(crate) fn at(&self, index: u32) -> Option<&Node> {
        self.slots.get(index as usize).and_then(|s| s.node.as_ref())
    }

    /// The node in slot `index`.
    #[inline]
    pub(crate) fn at_mut(&mut self, index: u32) -> Option<&mut Node> {
        self.slots
            .get_mut(index as usize)
            .and_then(|s| s.node.as_mut())
    }

    /// The id of the node in slot `index` (its current generation).
    pub(crate) fn id_at(&self, index: u32) -> NodeId {
        let generation = self.slots.get(index as usize).map_or(0, |s| s.generation);
        NodeId::from_parts(index, generation)
    }

    /// Stores a node in a free slot (or a new one); `None` when no `u32` index is left.
    pub(crate) fn insert(&mut self, node: Node) -> Option<NodeId> {
        if let Some(index) = self.free.pop() {
            let slot = &mut self.slots[index as usize];
            slot.node = Some(node);
            self.live += 1;
            return Some(NodeId::from_parts(index, slot.generation));
        }
        let index = u32::try_from(self.slots.len()).ok()?;
        self.slots.push(Slot {
            generation: 0,
            node: Some(node),
        });
        self.live += 1;
        Some(NodeId::from_parts(index, 0))
    }

    /// Takes the node in slot `index` out; the slot's generation moves on so old ids go stale
    /// (a slot whose generation cannot move on is retired).
    pub(crate) fn take(&mut self, index: u32) -> Option<Node> {
        let slot = self.slots.get_mut(index as usize)?;
        let node = slot.node.take()?;
        self.live -= 1;
        if slot.generation < u32::MAX {
            slot.generation += 1;
            self.free.push(index);
        }
        Some(node)
    }

    /// Marks `id` with `what` and its ancestors as having a stale descendant, stopping, for
    /// each kind, at the first ancestor that already has it — **the one place dirty flags are
    /// set** (see the [module docs](self)).
    pub(crate) fn mark(&mut self, id: NodeId, what: Dirty) {
        let Some(node) = self.get_mut(id) else {
            return;
        };
        node.dirty.0 |= what.0;
        let mut need = what.below();
        let mut cur = node.parent;
        while let Some(p) = cur {
            let Some(pn) = self.get_mut(p) else {
                return;
            };
            need &= !pn.dirty.0;
            if need == 0 {
                return;
            }
            pn.dirty.0 |= need;
            cur = pn.parent;
        }
    }
}
