//! Hierarchical culling against the camera's frustum and user planes (Eberly's
//! `Spatial::OnDraw` / `Camera::Culled`), producing a [`VisibleSet`]. No drawing happens here.
//!
//! The walk is pre-order in child order from the root, iterative. Each node carries a
//! **plane state**: bit `i` set means plane `i` must still be tested (all set at the root).
//! Planes are tested from the last (the most recently pushed user plane) down to 0 (left):
//!
//! * bound entirely on the negative side of an active plane → the subtree is culled;
//! * entirely on the positive side → the bit is cleared, so no descendant tests that plane
//!   again (the bits are passed down by value, so siblings are unaffected — the "restore" of
//!   Eberly's `SetPlaneState`);
//! * straddling → the bit stays set.
//!
//! The test is conservative: a bound outside the frustum but not outside any single plane is
//! kept. Per-node [`Culling`]: `Always` hides the subtree (Eberly's `ForceCull`), `Never`
//! draws the subtree without testing it (Eberly's `bNoCull`; `Always` below still hides).
//! Nodes with empty bounds are culled (they draw nothing). Switch nodes descend into their
//! active child only.
//!
//! Culling reads world bounds as of the last [`Scene::update`]: update first.

use std::sync::Arc;

use glam::Mat4;

use crate::camera::{Camera, FRUSTUM_PLANES, MAX_USER_PLANES};
use crate::graph::{NodeId, Scene};
use crate::mesh::Mesh;
use crate::node::NodeData;
use crate::plane::{Plane, Side};
use crate::transform::Transform;

pub use crate::node::Culling;

/// Former name of [`Culling`] (plumb-raster's `CullMode` is face culling, another concept).
#[deprecated(note = "renamed to `Culling`; plumb_raster::CullMode is face culling")]
pub type CullMode = Culling;

/// Counters of one culling pass.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CullStats {
    /// Nodes reached by the walk.
    pub visited: usize,
    /// Bound-versus-plane tests performed.
    pub plane_tests: usize,
    /// Subtrees culled (by a plane, `Culling::Always` or an empty bound).
    pub culled: usize,
}

/// The geometry leaves that survived culling, in tree (pre-)order. Reusable across frames
/// through [`Scene::cull_into`] to avoid reallocating.
#[derive(Debug, Clone, Default)]
pub struct VisibleSet {
    items: Vec<NodeId>,
    stats: CullStats,
    stack: Vec<(NodeId, u32, bool)>,
}

impl VisibleSet {
    /// An empty set.
    pub fn new() -> Self {
        Self::default()
    }

    /// The visible geometry leaves in tree order.
    pub fn items(&self) -> &[NodeId] {
        &self.items
    }

    /// Number of visible leaves.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// Whether nothing is visible.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// Counters of the pass that filled the set.
    pub fn stats(&self) -> CullStats {
        self.stats
    }
}

/// What a renderer needs to draw one visible geometry leaf.
#[derive(Debug, Clone, Copy)]
pub struct DrawItem<'a> {
    /// The geometry leaf.
    pub node: NodeId,
    /// Its mesh (shared data; local space).
    pub mesh: &'a Arc<Mesh>,
    /// Its world transform as of the last update.
    pub world_transform: &'a Transform,
    /// `world_from_local` as a column-vector matrix.
    pub world_from_local: Mat4,
    /// The world transform mirrors space (negative determinant): swap front/back faces.
    pub mirror: bool,
}

impl VisibleSet {
    /// The visible leaves with their mesh and world transform, in tree order. Ids that are no
    /// longer geometry leaves of `scene` (removed since culling) are skipped.
    pub fn draw_items<'a>(&'a self, scene: &'a Scene) -> impl Iterator<Item = DrawItem<'a>> + 'a {
        self.items
            .iter()
            .filter_map(move |&id| scene.draw_item(id).ok())
    }
}

impl Scene {
    /// The draw data of a geometry leaf.
    ///
    /// # Errors
    /// [`crate::SceneError::StaleId`], [`crate::SceneError::NotAGeometry`].
    pub fn draw_item(&self, id: NodeId) -> Result<DrawItem<'_>, crate::SceneError> {
        let node = self.node(id)?;
        let mesh = self.mesh(id)?;
        Ok(DrawItem {
            node: id,
            mesh,
            world_transform: &node.world,
            world_from_local: node.world.to_mat4(),
            mirror: node.world.is_mirror(),
        })
    }

    /// Culls the scene against `camera` (frustum planes plus its user planes).
    pub fn cull(&self, camera: &Camera) -> VisibleSet {
        let mut set = VisibleSet::new();
        self.cull_into(camera, &mut set);
        set
    }

    /// Like [`Scene::cull`], reusing `out`'s storage.
    pub fn cull_into(&self, camera: &Camera, out: &mut VisibleSet) {
        let mut planes = [Plane::from_raw(glam::Vec3::Z, 0.0); FRUSTUM_PLANES + MAX_USER_PLANES];
        planes[..FRUSTUM_PLANES].copy_from_slice(&camera.frustum_planes());
        let user = camera.user_planes();
        let user = &user[..user.len().min(MAX_USER_PLANES)];
        planes[FRUSTUM_PLANES..FRUSTUM_PLANES + user.len()].copy_from_slice(user);
        let count = FRUSTUM_PLANES + user.len();
        self.cull_planes(&planes[..count], out);
    }

    /// Culls against an explicit list of world planes (at most 32, inward normals).
    fn cull_planes(&self, planes: &[Plane], out: &mut VisibleSet) {
        out.items.clear();
        out.stats = CullStats::default();
        out.stack.clear();
        let n = planes.len().min(32);
        let all: u32 = if n == 32 { u32::MAX } else { (1u32 << n) - 1 };
        out.stack.push((self.root(), all, false));
        while let Some((id, mut state, mut no_cull)) = out.stack.pop() {
            let Some(node) = self.at(id.index()) else {
                continue;
            };
            out.stats.visited += 1;
            match node.cull {
                Culling::Always => {
                    out.stats.culled += 1;
                    continue;
                }
                Culling::Never => no_cull = true,
                Culling::Dynamic => {}
            }
            if !no_cull {
                if node.world_bound.is_empty() {
                    out.stats.culled += 1;
                    continue;
                }
                let mut culled = false;
                for i in (0..n).rev() {
                    let mask = 1u32 << i;
                    if state & mask == 0 {
                        continue;
                    }
                    out.stats.plane_tests += 1;
                    match node.world_bound.which_side(&planes[i]) {
                        Side::Negative => {
                            culled = true;
                            break;
                        }
                        Side::Positive => state &= !mask,
                        Side::Both => {}
                    }
                }
                if culled {
                    out.stats.culled += 1;
                    continue;
                }
            }
            match &node.data {
                NodeData::Geometry(_) => out.items.push(id),
                NodeData::Group => {
                    for &c in node.children.iter().rev() {
                        out.stack.push((c, state, no_cull));
                    }
                }
                NodeData::Switch { active } => {
                    if let Some(c) = active {
                        out.stack.push((*c, state, no_cull));
                    }
                }
            }
        }
    }
}
