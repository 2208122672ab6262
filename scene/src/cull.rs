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
//! **BSP nodes** ([`bsp`](crate::nodes::bsp)) descend into their slots back to front from the eye
//! ([`bsp_draw_order`]), so the visible set — and the opaque draw order, which keeps it — is
//! sorted by the BSP tree. **Region managers and convex regions** ([`region`](crate::nodes::region))
//! start at the region holding the eye and follow open, unculled portals, pushing one plane per
//! portal edge onto the planes of the adjacent region (at most [`MAX_CULL_PLANES`]); the
//! regions walked are in [`VisibleSet::regions`].
//!
//! Culling reads world bounds as of the last [`Scene::update`]: update first.

use std::collections::BTreeSet;
use std::sync::Arc;

use glam::Mat4;

use crate::camera::{Camera, FRUSTUM_PLANES, MAX_USER_PLANES};
use crate::graph::{NodeId, Scene};
use crate::mesh::Mesh;
use crate::node::{NodeData, Visit as NodeVisit};
use crate::partition::{bsp_draw_order, polygon_culled, portal_edge_plane, BspSide};
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
    /// Convex regions whose contents were walked (a region reached along two paths counts
    /// twice; see [`region`](crate::nodes::region)).
    pub regions: usize,
    /// Portals followed into their adjacent region.
    pub portals_passed: usize,
    /// Open portals culled by the current planes.
    pub portals_culled: usize,
    /// Closed portals reached (they block).
    pub portals_closed: usize,
    /// [`MAX_PORTAL_PASSAGES`] was reached: later portals were not followed.
    pub portal_limit_reached: bool,
}

/// At most this many culling planes are active at once: the frustum's 6, the camera's user
/// planes and the planes portals push (Eberly's `CAM_MAX_WORLD_PLANES`).
pub const MAX_CULL_PLANES: usize = 32;

/// At most this many portals are followed in one culling pass (see [`region`](crate::nodes::region)).
pub const MAX_PORTAL_PASSAGES: usize = 1 << 16;

/// Index of the near plane among the frustum planes (left, right, bottom, top, near, far).
const NEAR_PLANE: usize = 4;

/// One step of the culling walk.
#[derive(Debug, Clone, Copy)]
enum Step {
    /// Test a node against the planes of `frame` and descend; `contents` walks a region's
    /// children (its portals were followed already).
    Visit {
        id: NodeId,
        state: u32,
        no_cull: bool,
        frame: u32,
        contents: bool,
    },
    /// Enter a convex region: its portals, then its contents.
    Region {
        id: NodeId,
        frame: u32,
        no_cull: bool,
        owns_frame: bool,
    },
    /// Follow one portal of a region.
    Portal {
        region: NodeId,
        index: usize,
        frame: u32,
        no_cull: bool,
    },
    /// Leave a region: it may be entered again along another path.
    Leave { id: NodeId, owns_frame: bool },
}

/// The geometry leaves that survived culling, in tree (pre-)order. Reusable across frames
/// through [`Scene::cull_into`] to avoid reallocating.
#[derive(Debug, Clone, Default)]
pub struct VisibleSet {
    items: Vec<NodeId>,
    regions: Vec<NodeId>,
    stats: CullStats,
    stack: Vec<Step>,
    /// Plane frames: the camera's planes, then one frame per portal on the current path.
    planes: Vec<Plane>,
    frames: Vec<(u32, u32)>,
    /// Slot indices of the regions on the current portal path.
    on_path: BTreeSet<u32>,
    /// Slot indices of leaves and regions already added (once regions are involved).
    emitted: BTreeSet<u32>,
    verts: Vec<glam::Vec3>,
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

    /// The convex regions whose contents were walked, in the order they were added (far
    /// regions first; each once), see [`region`](crate::nodes::region).
    pub fn regions(&self) -> &[NodeId] {
        &self.regions
    }

    /// Drops the top plane frame (pushed by a portal).
    fn pop_frame(&mut self) {
        if self.frames.len() > 1 {
            if let Some((start, _)) = self.frames.pop() {
                self.planes.truncate(start as usize);
            }
        }
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
        self.cull_planes(camera, &planes[..count], out);
    }

    /// Culls against the camera's planes (at most 32, inward normals), following BSP order
    /// and portals.
    fn cull_planes(&self, camera: &Camera, planes: &[Plane], out: &mut VisibleSet) {
        out.items.clear();
        out.regions.clear();
        out.stats = CullStats::default();
        out.stack.clear();
        out.planes.clear();
        out.frames.clear();
        out.on_path.clear();
        out.emitted.clear();
        let n = planes.len().min(MAX_CULL_PLANES);
        out.planes.extend_from_slice(&planes[..n]);
        out.frames.push((0, n as u32));
        out.stack.push(Step::Visit {
            id: self.root(),
            state: all_bits(n),
            no_cull: false,
            frame: 0,
            contents: false,
        });
        let eye = camera.location();
        let mut regions_seen = false;
        while let Some(step) = out.stack.pop() {
            match step {
                Step::Visit {
                    id,
                    mut state,
                    mut no_cull,
                    frame,
                    contents,
                } => {
                    let Some(node) = self.at(id.index()) else {
                        continue;
                    };
                    if !contents && matches!(node.data, NodeData::Region(_)) {
                        out.stack.push(Step::Region {
                            id,
                            frame,
                            no_cull,
                            owns_frame: false,
                        });
                        continue;
                    }
                    out.stats.visited += 1;
                    match node.cull {
                        Culling::Always => {
                            out.stats.culled += 1;
                            continue;
                        }
                        Culling::Never => no_cull = true,
                        Culling::Dynamic => {}
                    }
                    // A region's own bound is not tested (Eberly's `ConvexRegion::Draw`
                    // draws its children, each culled on its own).
                    if !no_cull && !contents {
                        if node.world_bound.is_empty() {
                            out.stats.culled += 1;
                            continue;
                        }
                        let (start, len) = out.frames[frame as usize];
                        let fp = &out.planes[start as usize..(start + len) as usize];
                        let mut culled = false;
                        for i in (0..fp.len()).rev() {
                            let mask = 1u32 << i;
                            if state & mask == 0 {
                                continue;
                            }
                            out.stats.plane_tests += 1;
                            match node.world_bound.which_side(&fp[i]) {
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
                    let visit = |c: NodeId| Step::Visit {
                        id: c,
                        state,
                        no_cull,
                        frame,
                        contents: false,
                    };
                    match &node.data {
                        NodeData::Geometry(_) => {
                            if !regions_seen || out.emitted.insert(id.index()) {
                                out.items.push(id);
                            }
                        }
                        NodeData::Group
                        | NodeData::Billboard
                        | NodeData::Bsp(_)
                        | NodeData::RegionManager(_)
                        | NodeData::Region(_) => {
                            if contents {
                                if out.emitted.insert(id.index()) {
                                    out.regions.push(id);
                                }
                                out.stats.regions += 1;
                            }
                            match &node.data {
                                NodeData::RegionManager(m) if !contents => {
                                    let start = match self.containing_region(id, eye) {
                                        Ok(Some(r)) => Some(r),
                                        _ => None,
                                    };
                                    match start {
                                        Some(r) => {
                                            regions_seen = true;
                                            out.stack.push(Step::Region {
                                                id: r,
                                                frame,
                                                no_cull,
                                                owns_frame: false,
                                            });
                                        }
                                        None => {
                                            let outside = m.bsp.slots[BspSide::Coplanar.index()];
                                            if let Some(c) = self.live_slot(id, outside) {
                                                out.stack.push(visit(c));
                                            }
                                        }
                                    }
                                }
                                NodeData::Bsp(b) if !contents => {
                                    let order = match node.world.apply_plane(&b.plane) {
                                        Some(wp) => bsp_draw_order(&wp, camera),
                                        None => BspSide::ALL.to_vec(),
                                    };
                                    for side in order.into_iter().rev() {
                                        if let Some(c) = self.live_slot(id, b.slots[side.index()]) {
                                            out.stack.push(visit(c));
                                        }
                                    }
                                }
                                _ => {
                                    let state = if contents {
                                        let (_, len) = out.frames[frame as usize];
                                        all_bits(len as usize)
                                    } else {
                                        state
                                    };
                                    for &c in node.children.iter().rev() {
                                        out.stack.push(Step::Visit {
                                            id: c,
                                            state,
                                            no_cull,
                                            frame,
                                            contents: false,
                                        });
                                    }
                                }
                            }
                        }
                        NodeData::Switch(_) | NodeData::Lod(_) => {
                            if let NodeVisit::Active(Some(c)) = node.data.visit() {
                                out.stack.push(visit(c));
                            }
                        }
                    }
                }
                Step::Region {
                    id,
                    frame,
                    no_cull,
                    owns_frame,
                } => {
                    regions_seen = true;
                    let enter = self
                        .nodes
                        .get(id)
                        .is_some_and(|n| n.data.region().is_some() && n.cull != Culling::Always);
                    if !enter || !out.on_path.insert(id.index()) {
                        if owns_frame {
                            out.pop_frame();
                        }
                        continue;
                    }
                    out.stack.push(Step::Leave { id, owns_frame });
                    out.stack.push(Step::Visit {
                        id,
                        state: 0,
                        no_cull,
                        frame,
                        contents: true,
                    });
                    let count = self
                        .at(id.index())
                        .and_then(|n| n.data.region())
                        .map_or(0, |r| r.portals.len());
                    for index in (0..count).rev() {
                        out.stack.push(Step::Portal {
                            region: id,
                            index,
                            frame,
                            no_cull,
                        });
                    }
                }
                Step::Portal {
                    region,
                    index,
                    frame,
                    no_cull,
                } => {
                    let Some(node) = self.at(region.index()) else {
                        continue;
                    };
                    let Some(portal) = node.data.region().and_then(|r| r.portals.get(index)) else {
                        continue;
                    };
                    if !portal.is_open() {
                        out.stats.portals_closed += 1;
                        continue;
                    }
                    let adjacent = portal.adjacent();
                    if self
                        .nodes
                        .get(adjacent)
                        .is_none_or(|n| n.data.region().is_none())
                    {
                        continue;
                    }
                    out.verts.clear();
                    out.verts
                        .extend(portal.vertices().iter().map(|&v| node.world.apply_point(v)));
                    let (start, len) = out.frames[frame as usize];
                    let (start, len) = (start as usize, len as usize);
                    let culled = polygon_culled(
                        &out.planes[start..start + len],
                        &out.verts,
                        Some(NEAR_PLANE),
                    );
                    if culled {
                        out.stats.portals_culled += 1;
                        continue;
                    }
                    if out.stats.portals_passed >= MAX_PORTAL_PASSAGES {
                        out.stats.portal_limit_reached = true;
                        continue;
                    }
                    out.stats.portals_passed += 1;
                    // The new frame: the current planes, then one per edge while they fit.
                    let new_start = out.planes.len();
                    out.planes.extend_from_within(start..start + len);
                    let m = out.verts.len();
                    for i0 in 0..m {
                        if out.planes.len() - new_start >= MAX_CULL_PLANES {
                            break;
                        }
                        let i1 = (i0 + m - 1) % m;
                        if let Some(p) = portal_edge_plane(eye, out.verts[i0], out.verts[i1]) {
                            out.planes.push(p);
                        }
                    }
                    let new_len = out.planes.len() - new_start;
                    out.frames.push((new_start as u32, new_len as u32));
                    out.stack.push(Step::Region {
                        id: adjacent,
                        frame: (out.frames.len() - 1) as u32,
                        no_cull,
                        owns_frame: true,
                    });
                }
                Step::Leave { id, owns_frame } => {
                    out.on_path.remove(&id.index());
                    if owns_frame {
                        out.pop_frame();
                    }
                }
            }
        }
    }
}

/// The bit mask with the low `n` bits set (`n ≤ 32`).
fn all_bits(n: usize) -> u32 {
    if n >= 32 {
        u32::MAX
    } else {
        (1u32 << n) - 1
    }
}
