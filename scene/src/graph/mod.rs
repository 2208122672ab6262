//! The scene graph: the node arena with its fixed root, limits and scene-wide tables (lights,
//! controllers, billboards, screen polygons), and the getters and setters of one node's data.
//! Hierarchy edits (create, attach, detach, reparent, remove) are in
//! [`hierarchy`]; states, lights and effects on nodes in
//! [`intent`].
//!
//! Nodes live in one `Vec` of slots ([`node`]). A [`NodeId`] is a slot index plus
//! the slot's generation; removing a node bumps the generation, so an old id can never reach a
//! node that later reuses the slot — it gets [`SceneError::StaleId`] instead. Nothing is
//! reference-counted and every walk over the tree is iterative, so neither a deep tree nor
//! dropping one can overflow the stack.
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
//!
//! The graph holds what the user set and what [`Scene::update`] computed; what one view
//! computes (the visible set, the frame a renderer draws) lives with the pass that computes
//! it ([`cull`](crate::passes::cull), [`draw`](crate::frame::draw)).

pub mod hierarchy;
pub mod intent;
pub mod layer;
pub mod lookup;
pub mod motion;
pub mod node;

use std::fmt;
use std::sync::Arc;

use glam::{Mat3, Mat4, Vec3, Vec4};

use crate::graph::node::{Arena, Culling, Dirty, Node, NodeData};
use crate::values::bound::{Bound, BoundKind};
use crate::values::controller::{Controller, MeshController};
use crate::values::error::SceneError;
use crate::values::ik::IkController;
use crate::values::light::SceneLight;
use crate::values::particles::ParticleLeaf;
use crate::values::screen::ScreenPolygon;
use crate::values::transform::Transform;

pub use crate::graph::node::NodeKind;
pub use crate::values::id::NodeId;

/// Default maximum number of live nodes (root included): 2²⁴.
pub const DEFAULT_MAX_NODES: usize = 1 << 24;
/// Default maximum depth (the root is depth 0): 2²⁰ = 1 048 576.
pub const DEFAULT_MAX_DEPTH: usize = 1 << 20;

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

/// How [`Scene::reparent`] treats the moved node's transform.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reparent {
    /// Keep the local transform (the node moves with its new parent).
    KeepLocal,
    /// Recompute the local transform so the world transform stays the same (up to rounding).
    KeepWorld,
}

/// Work done by one [`Scene::update`] (see [`update`](crate::passes::update)).
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

/// A scene graph: the node arena plus its root, limits, bound kind and the scene-wide tables.
pub struct Scene {
    pub(crate) nodes: Arena,
    root: NodeId,
    pub(crate) limits: Limits,
    pub(crate) bound_kind: BoundKind,
    pub(crate) controllers: Vec<(NodeId, Box<dyn Controller>)>,
    /// Mesh controllers, in the order they were added.
    pub(crate) mesh_controllers: Vec<(NodeId, Box<dyn MeshController>)>,
    /// Particle systems, in creation order (see [`motion`](crate::graph::motion)).
    pub(crate) particle_systems: Vec<ParticleLeaf>,
    /// IK controllers, in the order they were added.
    pub(crate) ik_controllers: Vec<IkController>,
    /// Counters of the last update.
    pub(crate) last_stats: UpdateStats,
    /// The light table.
    pub(crate) lights: Vec<SceneLight>,
    /// Billboard groups, in creation order.
    pub(crate) billboards: Vec<NodeId>,
    /// Discrete-LOD switches, in creation order.
    pub(crate) dlods: Vec<NodeId>,
    /// Geometry leaves whose level each view chooses, in creation order.
    pub(crate) level_leaves: Vec<NodeId>,
    /// Some node has (or had) a planar shadow / reflection effect.
    pub(crate) has_scene_effects: bool,
    /// The colour frames are cleared to.
    pub(crate) background: Vec4,
    /// The global ambient light.
    pub(crate) global_ambient: Vec3,
    /// Exposure, tone map and encoding of physically based draws.
    pub(crate) pbr_output: plumb_raster::pbr::PbrOutput,
    /// The image-based light of physically based draws and its intensity.
    pub(crate) pbr_environment: Option<(Arc<plumb_raster::environment::Environment>, f32)>,
    /// Screen-space polygons.
    pub(crate) screen_polygons: Vec<ScreenPolygon>,
    /// Names of lights, effects and controllers (nodes keep their own; see
    /// [`lookup`](crate::graph::lookup)).
    pub(crate) object_names: std::collections::BTreeMap<crate::values::id::ObjectRef, String>,
    /// Layer nodes and what they clear (see [`layer`](crate::graph::layer)).
    pub(crate) clears: std::collections::BTreeMap<NodeId, crate::values::clear::ClearRegion>,
    /// The reference node frames are drawn relative to (see [`frames`](crate::passes::frames)).
    pub(crate) reference: Option<NodeId>,
    /// Layered depth: the scale step below which a node starts a new depth layer.
    pub(crate) depth_layers: Option<f64>,
    /// Nodes that share depth with their children (no layer starts at their children).
    pub(crate) shared_depth: std::collections::BTreeSet<NodeId>,
    /// The most pixels one frame's clears may write (see [`layer`](crate::graph::layer)).
    pub(crate) max_clear_pixels: Option<u64>,
}

impl fmt::Debug for Scene {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Scene")
            .field("nodes", &self.nodes.live())
            .field("limits", &self.limits)
            .field("bound_kind", &self.bound_kind)
            .field("controllers", &self.controllers.len())
            .field("mesh_controllers", &self.mesh_controllers.len())
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
        let nodes = Arena::new(Node::new("root".to_owned(), NodeData::Group));
        Scene {
            root: nodes.id_at(0),
            nodes,
            limits,
            bound_kind: BoundKind::Sphere,
            controllers: Vec::new(),
            mesh_controllers: Vec::new(),
            particle_systems: Vec::new(),
            ik_controllers: Vec::new(),
            dlods: Vec::new(),
            level_leaves: Vec::new(),
            last_stats: UpdateStats::default(),
            lights: Vec::new(),
            billboards: Vec::new(),
            has_scene_effects: false,
            background: Vec4::new(0.0, 0.0, 0.0, 1.0),
            global_ambient: Vec3::ZERO,
            pbr_output: plumb_raster::pbr::PbrOutput::default(),
            pbr_environment: None,
            screen_polygons: Vec::new(),
            object_names: std::collections::BTreeMap::new(),
            clears: std::collections::BTreeMap::new(),
            reference: None,
            depth_layers: None,
            shared_depth: std::collections::BTreeSet::new(),
            max_clear_pixels: None,
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
        self.nodes.live()
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
            self.nodes.mark(self.root, Dirty::TRANSFORM);
        }
    }

    /// Whether `id` names a live node of this scene.
    pub fn contains(&self, id: NodeId) -> bool {
        self.nodes.get(id).is_some()
    }

    pub(crate) fn node(&self, id: NodeId) -> Result<&Node, SceneError> {
        self.nodes.get(id).ok_or(SceneError::StaleId(id))
    }

    pub(crate) fn node_mut(&mut self, id: NodeId) -> Result<&mut Node, SceneError> {
        self.nodes.get_mut(id).ok_or(SceneError::StaleId(id))
    }

    /// Node at a slot index known to be live (internal walks over attached nodes).
    #[inline]
    pub(crate) fn at(&self, index: u32) -> Option<&Node> {
        self.nodes.at(index)
    }

    /// Whether the next [`Scene::update`] has any work besides controllers (i.e. world data
    /// under the root is stale).
    pub fn is_dirty(&self) -> bool {
        self.at(self.root.index()).is_some_and(Node::geometry_stale)
    }

    // ----- one node's data -----

    /// The node's name.
    ///
    /// # Errors
    /// [`SceneError::StaleId`].
    pub fn name(&self, id: NodeId) -> Result<&str, SceneError> {
        Ok(&self.node(id)?.name)
    }

    /// The object id the node's geometry writes to a renderer's id plane (segmentation): the
    /// id set on the node or its nearest ancestor ([`Scene::set_object_id`]), else the
    /// node's slot index + 1 (stable for a given file or construction order, not across
    /// edits: set ids where they must not change). 0 is never a default: it stands for
    /// "nothing drawn".
    ///
    /// # Errors
    /// [`SceneError::StaleId`].
    pub fn object_id(&self, id: NodeId) -> Result<u32, SceneError> {
        let mut at = Some(id);
        while let Some(n) = at {
            let node = self.node(n)?;
            if let Some(o) = node.object_id {
                return Ok(o);
            }
            at = node.parent;
        }
        Ok(id.index().saturating_add(1))
    }

    /// The object id set on the node itself (`None`: it takes its ancestors' or the default,
    /// see [`Scene::object_id`]).
    ///
    /// # Errors
    /// [`SceneError::StaleId`].
    pub fn own_object_id(&self, id: NodeId) -> Result<Option<u32>, SceneError> {
        Ok(self.node(id)?.object_id)
    }

    /// Sets (or with `None` unsets) the object id of the node and of the geometry below it
    /// that sets none of its own (see [`Scene::object_id`]).
    ///
    /// # Errors
    /// [`SceneError::StaleId`].
    pub fn set_object_id(&mut self, id: NodeId, object_id: Option<u32>) -> Result<(), SceneError> {
        self.node_mut(id)?.object_id = object_id;
        Ok(())
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
        Ok(self.node(id)?.data.kind())
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

    /// The local transform (relative to the parent), as set by the user or a controller.
    ///
    /// # Errors
    /// [`SceneError::StaleId`].
    pub fn local_transform(&self, id: NodeId) -> Result<&Transform, SceneError> {
        Ok(&self.node(id)?.local)
    }

    /// Replaces the local transform and marks the node (and its ancestors) dirty.
    ///
    /// # Errors
    /// [`SceneError::StaleId`].
    pub fn set_local_transform(&mut self, id: NodeId, local: Transform) -> Result<(), SceneError> {
        self.node_mut(id)?.local = local;
        self.nodes.mark(id, Dirty::TRANSFORM);
        Ok(())
    }

    fn edit_local(
        &mut self,
        id: NodeId,
        f: impl FnOnce(&mut Transform) -> Result<(), SceneError>,
    ) -> Result<(), SceneError> {
        let mut t = self.node(id)?.local;
        f(&mut t)?;
        self.set_local_transform(id, t)
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

    /// The world transform as of the last [`Scene::update`] (stale until then; see the crate
    /// docs). `world = parent.world ∘ local`. The same map as a matrix is
    /// [`Scene::world_from_local`].
    ///
    /// # Errors
    /// [`SceneError::StaleId`].
    pub fn world_transform(&self, id: NodeId) -> Result<&Transform, SceneError> {
        Ok(&self.node(id)?.world)
    }

    /// The world transform as a column-vector 4×4 matrix, named by its frames as every matrix
    /// is (as of the last update; [`Scene::world_transform`] is the [`Transform`]).
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

    /// The node's culling behaviour.
    ///
    /// # Errors
    /// [`SceneError::StaleId`].
    pub fn culling(&self, id: NodeId) -> Result<Culling, SceneError> {
        Ok(self.node(id)?.cull)
    }

    /// Sets the node's culling behaviour (used per view; does not dirty the node).
    ///
    /// # Errors
    /// [`SceneError::StaleId`].
    pub fn set_culling(&mut self, id: NodeId, culling: Culling) -> Result<(), SceneError> {
        self.node_mut(id)?.cull = culling;
        Ok(())
    }

    /// The node's culling behaviour.
    ///
    /// # Errors
    /// [`SceneError::StaleId`].
    #[deprecated(note = "renamed to `culling` (the type is now `Culling`)")]
    pub fn cull_mode(&self, id: NodeId) -> Result<Culling, SceneError> {
        self.culling(id)
    }

    /// Sets the node's culling behaviour.
    ///
    /// # Errors
    /// [`SceneError::StaleId`].
    #[deprecated(note = "renamed to `set_culling` (the type is now `Culling`)")]
    pub fn set_cull_mode(&mut self, id: NodeId, mode: Culling) -> Result<(), SceneError> {
        self.set_culling(id, mode)
    }

    /// The local transform.
    ///
    /// # Errors
    /// [`SceneError::StaleId`].
    #[deprecated(
        note = "renamed to `local_transform` (transform getters say so; matrices say their frames)"
    )]
    pub fn local(&self, id: NodeId) -> Result<&Transform, SceneError> {
        self.local_transform(id)
    }

    /// Replaces the local transform.
    ///
    /// # Errors
    /// [`SceneError::StaleId`].
    #[deprecated(note = "renamed to `set_local_transform`")]
    pub fn set_local(&mut self, id: NodeId, local: Transform) -> Result<(), SceneError> {
        self.set_local_transform(id, local)
    }

    /// The world transform.
    ///
    /// # Errors
    /// [`SceneError::StaleId`].
    #[deprecated(note = "renamed to `world_transform`; the matrix is `world_from_local`")]
    pub fn world(&self, id: NodeId) -> Result<&Transform, SceneError> {
        self.world_transform(id)
    }

    // ----- scene-wide settings -----

    /// Attaches a controller to `node` (see [`controller`](crate::values::controller)); the update
    /// runs controllers in the order they were added.
    ///
    /// # Errors
    /// [`SceneError::StaleId`].
    pub fn add_controller(
        &mut self,
        node: NodeId,
        controller: Box<dyn Controller>,
    ) -> Result<(), SceneError> {
        self.node(node)?;
        self.controllers.push((node, controller));
        Ok(())
    }

    /// Attaches a mesh controller (morph, skin; see [`controller`](crate::values::controller)) to the
    /// geometry leaf `node`; the update runs mesh controllers after world transforms are
    /// current, in the order they were added. A controller whose
    /// [`world_is_identity`](MeshController::world_is_identity) is true pins the leaf's world
    /// transform to the identity from the next update on.
    ///
    /// # Errors
    /// [`SceneError::StaleId`] (for the leaf or a bone), [`SceneError::NotAGeometry`], or what
    /// [`MeshController::check`] returns for the leaf's mesh.
    pub fn add_mesh_controller(
        &mut self,
        node: NodeId,
        controller: Box<dyn MeshController>,
    ) -> Result<(), SceneError> {
        controller.check(self.mesh(node)?)?;
        for &b in controller.bones() {
            self.node(b)?;
        }
        if controller.world_is_identity() {
            self.pin_world_identity(node)?;
        }
        self.mesh_controllers.push((node, controller));
        Ok(())
    }

    /// Number of controllers attached (to any node), transform and mesh controllers together.
    pub fn controller_count(&self) -> usize {
        self.controllers.len() + self.mesh_controllers.len()
    }

    /// Sets the clear colour frames start with.
    ///
    /// # Errors
    /// [`SceneError::NonFinite`].
    pub fn set_background(&mut self, color: Vec4) -> Result<(), SceneError> {
        if !color.is_finite() {
            return Err(SceneError::NonFinite { what: "background" });
        }
        self.background = color;
        Ok(())
    }

    /// Sets the global ambient light.
    ///
    /// # Errors
    /// [`SceneError::NonFinite`].
    pub fn set_global_ambient(&mut self, ambient: Vec3) -> Result<(), SceneError> {
        if !ambient.is_finite() {
            return Err(SceneError::NonFinite {
                what: "global ambient",
            });
        }
        self.global_ambient = ambient;
        Ok(())
    }

    /// Sets the exposure, tone map and encoding of physically based draws
    /// ([`Effect::Pbr`](crate::values::effect::Effect::Pbr); default: exposure 1, no tone
    /// map, sRGB).
    ///
    /// # Errors
    /// [`SceneError::NonFinite`] for a non-finite exposure.
    pub fn set_pbr_output(
        &mut self,
        output: plumb_raster::pbr::PbrOutput,
    ) -> Result<(), SceneError> {
        if !output.exposure.is_finite() {
            return Err(SceneError::NonFinite { what: "exposure" });
        }
        self.pbr_output = output;
        Ok(())
    }

    /// The image-based light of physically based draws and its intensity, if any
    /// ([`Scene::set_pbr_environment`]; a scene file's `environment`).
    pub fn pbr_environment(&self) -> Option<&(Arc<plumb_raster::environment::Environment>, f32)> {
        self.pbr_environment.as_ref()
    }

    /// Sets the image-based light of physically based draws: a prepared environment map
    /// (world space, [`plumb_raster::environment`]) and a factor on its radiance; `None`
    /// (the default) leaves only the lights.
    ///
    /// # Errors
    /// [`SceneError::NonFinite`] for an intensity that is not finite,
    /// [`SceneError::InvalidArgument`] for a negative one.
    pub fn set_pbr_environment(
        &mut self,
        environment: Option<(Arc<plumb_raster::environment::Environment>, f32)>,
    ) -> Result<(), SceneError> {
        if let Some((_, k)) = &environment {
            if !k.is_finite() {
                return Err(SceneError::NonFinite {
                    what: "environment intensity",
                });
            }
            if *k < 0.0 {
                return Err(SceneError::InvalidArgument {
                    what: "environment intensity",
                    message: format!("{k} is negative"),
                });
            }
        }
        self.pbr_environment = environment;
        Ok(())
    }

    /// Adds a screen polygon (see [`screen`](crate::values::screen)); returns its index in the list.
    pub fn add_screen_polygon(&mut self, polygon: ScreenPolygon) -> usize {
        self.screen_polygons.push(polygon);
        self.screen_polygons.len() - 1
    }

    /// The screen polygons, in drawing order within each layer.
    pub fn screen_polygons(&self) -> &[ScreenPolygon] {
        &self.screen_polygons
    }

    /// Removes every screen polygon.
    pub fn clear_screen_polygons(&mut self) {
        self.screen_polygons.clear();
    }
}
