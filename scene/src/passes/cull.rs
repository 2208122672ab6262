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
//! ([`bsp_draw_order`](crate::values::partition::bsp_draw_order)), so the visible set — and the opaque draw order, which keeps it — is
//! sorted by the BSP tree. **Region managers and convex regions** ([`region`](crate::nodes::region))
//! start at the region holding the eye and follow open, unculled portals, pushing one plane per
//! portal edge onto the planes of the adjacent region (at most [`MAX_CULL_PLANES`]); the
//! regions walked are in [`VisibleSet::regions`].
//!
//! Culling reads world bounds as of the last [`Scene::update`]: update first.

use std::collections::BTreeSet;
use std::sync::Arc;

use glam::{Mat4, Vec3};

use crate::graph::node::{Node, NodeData, Visit as NodeVisit};
use crate::graph::{NodeId, Scene};
use crate::nodes::region::{Passage, PortalPath};
use crate::passes::view::View;
use crate::values::bound::Bound;
use crate::values::camera::{Camera, FRUSTUM_PLANES, MAX_USER_PLANES};
use crate::values::mesh::Mesh;
use crate::values::partition::BspSide;
use crate::values::plane::{Plane, Side};
use crate::values::transform::Transform;

pub use crate::graph::node::Culling;

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

/// One step of the culling walk.
#[derive(Debug, Clone, Copy)]
enum Step {
    /// Test a node against the planes of its frame and descend.
    Visit { id: NodeId, down: Down },
    /// Walk a convex region's children (its portals were followed already).
    Contents { id: NodeId, down: Down },
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

/// What a node passes down to its children: the plane state (bit `i`: plane `i` of the frame
/// still to be tested), whether culling is off below, and the plane frame.
#[derive(Debug, Clone, Copy)]
struct Down {
    state: u32,
    no_cull: bool,
    frame: u32,
}

/// The result of one culling pass: the geometry leaves that survived, in tree (pre-)order,
/// the convex regions walked and the counters. A plain value; [`Scene::cull_into`] refills
/// one without reallocating its lists.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct VisibleSet {
    items: Vec<NodeId>,
    regions: Vec<NodeId>,
    stats: CullStats,
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

    /// Culls the scene against `camera` (frustum planes plus its user planes), each LOD
    /// switch showing the child `camera`'s [`View`] chooses from the world data as it stands.
    pub fn cull(&self, camera: &Camera) -> VisibleSet {
        self.cull_view(&self.view(camera))
    }

    /// Like [`Scene::cull`], reusing `out`'s storage.
    pub fn cull_into(&self, camera: &Camera, out: &mut VisibleSet) {
        self.cull_view_into(&self.view(camera), out);
    }

    /// Culls the scene for `view` (its camera's frustum and user planes; its LOD choices).
    pub fn cull_view(&self, view: &View) -> VisibleSet {
        let mut set = VisibleSet::new();
        self.cull_view_into(view, &mut set);
        set
    }

    /// Like [`Scene::cull_view`], reusing `out`'s storage.
    pub fn cull_view_into(&self, view: &View, out: &mut VisibleSet) {
        let camera = view.camera();
        let mut planes = [Plane::from_raw(glam::Vec3::Z, 0.0); FRUSTUM_PLANES + MAX_USER_PLANES];
        planes[..FRUSTUM_PLANES].copy_from_slice(&camera.frustum_planes());
        let user = camera.user_planes();
        let user = &user[..user.len().min(MAX_USER_PLANES)];
        planes[FRUSTUM_PLANES..FRUSTUM_PLANES + user.len()].copy_from_slice(user);
        let count = FRUSTUM_PLANES + user.len();
        out.items.clear();
        out.regions.clear();
        out.stats = CullStats::default();
        let n = count.min(MAX_CULL_PLANES);
        let mut walk = Walk {
            scene: self,
            camera,
            view,
            eye: camera.location(),
            out,
            stack: Vec::new(),
            path: PortalPath::new(&planes[..count], MAX_CULL_PLANES),
            emitted: BTreeSet::new(),
            regions_seen: false,
        };
        walk.run(Down {
            state: all_bits(n),
            no_cull: false,
            frame: 0,
        });
    }
}

/// One culling pass: the generic frustum walk ([`Walk::visit`]), one dispatch on the node's
/// kind ([`Walk::descend`]) and the portal steps, whose plane frames are the region kind's
/// ([`PortalPath`]).
struct Walk<'a> {
    scene: &'a Scene,
    camera: &'a Camera,
    /// The view's LOD choices.
    view: &'a View,
    eye: Vec3,
    out: &'a mut VisibleSet,
    stack: Vec<Step>,
    path: PortalPath,
    /// Slot indices of leaves and regions already added (once regions are involved).
    emitted: BTreeSet<u32>,
    regions_seen: bool,
}

impl Walk<'_> {
    fn run(&mut self, down: Down) {
        let root = self.scene.root();
        self.stack.push(Step::Visit { id: root, down });
        while let Some(step) = self.stack.pop() {
            match step {
                Step::Visit { id, down } => self.visit(id, down),
                Step::Contents { id, down } => self.contents(id, down),
                Step::Region {
                    id,
                    frame,
                    no_cull,
                    owns_frame,
                } => self.region(id, frame, no_cull, owns_frame),
                Step::Portal {
                    region,
                    index,
                    frame,
                    no_cull,
                } => self.portal(region, index, frame, no_cull),
                Step::Leave { id, owns_frame } => {
                    self.path.leave(id);
                    if owns_frame {
                        self.path.pop_frame();
                    }
                }
            }
        }
    }

    /// The generic part: a region is entered through its portals; `Culling` and the planes
    /// decide whether the node's subtree is walked; then its kind decides how.
    fn visit(&mut self, id: NodeId, mut down: Down) {
        let Some(node) = self.scene.at(id.index()) else {
            return;
        };
        if matches!(node.data, NodeData::Region(_)) {
            self.stack.push(Step::Region {
                id,
                frame: down.frame,
                no_cull: down.no_cull,
                owns_frame: false,
            });
            return;
        }
        self.out.stats.visited += 1;
        match node.cull {
            Culling::Always => {
                self.out.stats.culled += 1;
                return;
            }
            Culling::Never => down.no_cull = true,
            Culling::Dynamic => {}
        }
        if !down.no_cull {
            match self.test_bound(&node.world_bound, down) {
                Some(state) => down.state = state,
                None => {
                    self.out.stats.culled += 1;
                    return;
                }
            }
        }
        self.descend(id, node, down);
    }

    /// The plane state after testing `bound` against the active planes of the frame, last
    /// first; `None` when it is outside one (or empty).
    fn test_bound(&mut self, bound: &Bound, down: Down) -> Option<u32> {
        if bound.is_empty() {
            return None;
        }
        let planes = self.path.planes(down.frame);
        let mut state = down.state;
        for i in (0..planes.len()).rev() {
            let mask = 1u32 << i;
            if state & mask == 0 {
                continue;
            }
            self.out.stats.plane_tests += 1;
            match bound.which_side(&planes[i]) {
                Side::Negative => return None,
                Side::Positive => state &= !mask,
                Side::Both => {}
            }
        }
        Some(state)
    }

    /// The one dispatch on the kind: which children follow, in which order.
    fn descend(&mut self, id: NodeId, node: &Node, down: Down) {
        let push = |stack: &mut Vec<Step>, c: NodeId| stack.push(Step::Visit { id: c, down });
        match &node.data {
            NodeData::Geometry(_) => self.emit_leaf(id),
            NodeData::Switch(_) => {
                if let NodeVisit::Active(Some(c)) = node.data.visit() {
                    push(&mut self.stack, c);
                }
            }
            NodeData::Lod(_) => {
                if let Some(c) = self.view.lod_child(id) {
                    push(&mut self.stack, c);
                }
            }
            NodeData::RegionManager(m) => match self.scene.containing_region(id, self.eye) {
                Ok(Some(r)) => {
                    self.regions_seen = true;
                    self.stack.push(Step::Region {
                        id: r,
                        frame: down.frame,
                        no_cull: down.no_cull,
                        owns_frame: false,
                    });
                }
                _ => {
                    let outside = m.bsp.slots[BspSide::Coplanar.index()];
                    if let Some(c) = self.scene.live_slot(id, outside) {
                        push(&mut self.stack, c);
                    }
                }
            },
            NodeData::Bsp(b) => {
                for side in b.draw_order(&node.world, self.camera).into_iter().rev() {
                    if let Some(c) = self.scene.live_slot(id, b.slots[side.index()]) {
                        push(&mut self.stack, c);
                    }
                }
            }
            NodeData::Group | NodeData::Billboard(_) | NodeData::Region(_) => {
                for &c in node.children.iter().rev() {
                    push(&mut self.stack, c);
                }
            }
        }
    }

    /// A region's contents: its own bound is not tested (Eberly's `ConvexRegion::Draw` draws
    /// its children, each culled on its own), and its children test every plane of its frame.
    fn contents(&mut self, id: NodeId, mut down: Down) {
        let Some(node) = self.scene.at(id.index()) else {
            return;
        };
        self.out.stats.visited += 1;
        match node.cull {
            Culling::Always => {
                self.out.stats.culled += 1;
                return;
            }
            Culling::Never => down.no_cull = true,
            Culling::Dynamic => {}
        }
        if self.emitted.insert(id.index()) {
            self.out.regions.push(id);
        }
        self.out.stats.regions += 1;
        down.state = all_bits(self.path.planes(down.frame).len());
        for &c in node.children.iter().rev() {
            self.stack.push(Step::Visit { id: c, down });
        }
    }

    fn emit_leaf(&mut self, id: NodeId) {
        if !self.regions_seen || self.emitted.insert(id.index()) {
            self.out.items.push(id);
        }
    }

    /// Enters a region (unless hidden or already on the path): its portals in order, then its
    /// contents, so far regions come first.
    fn region(&mut self, id: NodeId, frame: u32, no_cull: bool, owns_frame: bool) {
        self.regions_seen = true;
        let count = self
            .scene
            .nodes
            .get(id)
            .filter(|n| n.cull != Culling::Always)
            .and_then(|n| n.data.region())
            .map(|r| r.portals.len());
        let Some(count) = count.filter(|_| self.path.enter(id)) else {
            if owns_frame {
                self.path.pop_frame();
            }
            return;
        };
        self.stack.push(Step::Leave { id, owns_frame });
        let down = Down {
            state: 0,
            no_cull,
            frame,
        };
        self.stack.push(Step::Contents { id, down });
        for index in (0..count).rev() {
            self.stack.push(Step::Portal {
                region: id,
                index,
                frame,
                no_cull,
            });
        }
    }

    /// Follows one portal: an open, unculled one pushes the adjacent region with a frame of
    /// its own, within [`MAX_PORTAL_PASSAGES`].
    fn portal(&mut self, region: NodeId, index: usize, frame: u32, no_cull: bool) {
        let stats = &mut self.out.stats;
        match self.path.follow(self.scene, region, index, frame) {
            Passage::Gone => {}
            Passage::Closed => stats.portals_closed += 1,
            Passage::Culled => stats.portals_culled += 1,
            Passage::Open { .. } if stats.portals_passed >= MAX_PORTAL_PASSAGES => {
                stats.portal_limit_reached = true;
            }
            Passage::Open { adjacent } => {
                stats.portals_passed += 1;
                let frame = self.path.push_frame(frame, self.eye, MAX_CULL_PLANES);
                self.stack.push(Step::Region {
                    id: adjacent,
                    frame,
                    no_cull,
                    owns_frame: true,
                });
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
