//! Convex regions and their portals (Eberly's `ConvexRegion`, `Portal`; book-advanced §1.7):
//! indoor occlusion culling through a one-way graph of convex regions.
//!
//! * A **convex region** ([`Scene::add_region`]) is a group holding a room's walls and
//!   contents, plus its outgoing [`Portal`]s: convex polygons in the region's local space,
//!   counter-clockwise seen from inside the region, each leading to an adjacent region and
//!   open or closed.
//! * A **region manager** ([`Scene::add_region_manager`], [`region_manager`](super::region_manager))
//!   is a BSP node ([`bsp`](super::bsp)) whose leaves are regions; its coplanar slot holds the
//!   outside scene.
//!
//! Culling ([`cull`](crate::passes::cull)) starts at the region that holds the eye
//! ([`Scene::containing_region`]), or draws the outside when there is none. A region first
//! follows its open portals, in order, then adds its own contents, so **far regions come
//! first**. A portal is followed only if its polygon is not outside one of the current
//! culling planes (the near plane ignored, so a portal between the eye and the near plane
//! still counts); then one plane per edge, through the eye, is pushed on the stack of planes
//! for the adjacent region and popped after it. The stack starts with the camera's frustum and
//! user planes and holds at most 32 ([`MAX_CULL_PLANES`]); edge planes that do not fit are left
//! out, which only culls less. A region already on the current path is not entered again, so
//! cycles end; a region reached along two paths adds its contents once (the first time). At
//! most [`MAX_PORTAL_PASSAGES`] portals are followed per pass (a guard against graphs with
//! very many paths; the count is in [`CullStats`](crate::CullStats)).
//!
//! Known limit (the book's, L9521): with the eye outside but the near plane reaching through a
//! wall, the inside is not drawn until the eye enters a region.
//!
//! [`MAX_CULL_PLANES`]: crate::passes::cull::MAX_CULL_PLANES
//! [`MAX_PORTAL_PASSAGES`]: crate::passes::cull::MAX_PORTAL_PASSAGES

use std::collections::BTreeSet;

use glam::Vec3;

use crate::graph::node::{NodeData, Region};
use crate::graph::{NodeId, Scene};
use crate::values::error::SceneError;
use crate::values::partition::{polygon_culled, portal_edge_plane, Portal};
use crate::values::plane::Plane;

use super::kind::{display_name, wrong_kind, KindHooks};

fn not_region(name: &str) -> SceneError {
    wrong_kind("region", name, "a convex region")
}

impl KindHooks for Region {
    fn describe(&self, scene: &Scene, _: NodeId) -> String {
        let list: Vec<String> = self
            .portals
            .iter()
            .map(|p| {
                format!(
                    "{} ({} vertices{})",
                    display_name(scene, p.adjacent()),
                    p.vertices().len(),
                    if p.is_open() { "" } else { ", closed" }
                )
            })
            .collect();
        format!("region portals=[{}]", list.join(", "))
    }

    fn copy_node(
        &self,
        scene: &mut Scene,
        parent: NodeId,
        name: String,
    ) -> Result<NodeId, SceneError> {
        // Portals are added in step 3, once the regions they lead to exist.
        scene.add_region(parent, name)
    }

    fn copy_links(
        &self,
        scene: &mut Scene,
        _: NodeId,
        copy: NodeId,
        map: &dyn Fn(NodeId) -> NodeId,
    ) -> Result<(), SceneError> {
        for p in &self.portals {
            scene.add_portal(copy, p.vertices().to_vec(), map(p.adjacent()), p.is_open())?;
        }
        Ok(())
    }
}

impl Scene {
    /// Creates a convex region (a group with no portals yet) as the last child of `parent`.
    ///
    /// # Errors
    /// As [`Scene::add_group`].
    pub fn add_region(
        &mut self,
        parent: NodeId,
        name: impl Into<String>,
    ) -> Result<NodeId, SceneError> {
        self.create_under(parent, name.into(), NodeData::Region(Box::default()))
    }

    /// Whether `id` is a convex region.
    ///
    /// # Errors
    /// [`SceneError::StaleId`].
    pub fn is_region(&self, id: NodeId) -> Result<bool, SceneError> {
        Ok(self.node(id)?.data.region().is_some())
    }

    fn region_data(&self, region: NodeId) -> Result<&Region, SceneError> {
        let node = self.node(region)?;
        node.data.region().ok_or_else(|| not_region(&node.name))
    }

    /// Adds an outgoing portal to `region`: a convex polygon in the region's local space,
    /// counter-clockwise seen from inside `region`, leading to the region `adjacent` (which may
    /// be `region` itself). Returns its index.
    ///
    /// # Errors
    /// [`SceneError::StaleId`] for either node; [`SceneError::InvalidArgument`] when either is
    /// not a region, for fewer than 3 vertices or a polygon without area;
    /// [`SceneError::NonFinite`] for a NaN or infinite vertex.
    pub fn add_portal(
        &mut self,
        region: NodeId,
        vertices: Vec<Vec3>,
        adjacent: NodeId,
        open: bool,
    ) -> Result<usize, SceneError> {
        self.region_data(region)?;
        self.region_data(adjacent)?;
        let portal = Portal::new(vertices, adjacent, open)?;
        let r = self
            .node_mut(region)?
            .data
            .region_mut()
            .ok_or(SceneError::StaleId(region))?;
        r.portals.push(portal);
        Ok(r.portals.len() - 1)
    }

    /// The outgoing portals of `region`, in order.
    ///
    /// # Errors
    /// [`SceneError::StaleId`], [`SceneError::InvalidArgument`] when it is not a region.
    pub fn portals(&self, region: NodeId) -> Result<&[Portal], SceneError> {
        Ok(&self.region_data(region)?.portals)
    }

    /// Opens or closes portal `index` of `region` (a closed portal blocks the view).
    ///
    /// # Errors
    /// As [`Scene::portals`]; [`SceneError::InvalidArgument`] for an index past the end.
    pub fn set_portal_open(
        &mut self,
        region: NodeId,
        index: usize,
        open: bool,
    ) -> Result<(), SceneError> {
        let count = self.region_data(region)?.portals.len();
        let r = self
            .node_mut(region)?
            .data
            .region_mut()
            .ok_or(SceneError::StaleId(region))?;
        match r.portals.get_mut(index) {
            Some(p) => {
                p.set_open(open);
                Ok(())
            }
            None => Err(SceneError::InvalidArgument {
                what: "portal index",
                message: format!("{index} is past the {count} portals of the region"),
            }),
        }
    }
}

/// Index of the near plane among the frustum planes (left, right, bottom, top, near, far).
const NEAR_PLANE: usize = 4;

/// What following one portal found (see [`PortalPath::follow`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Passage {
    /// The region, the portal or the region it leads to is gone (or is no region).
    Gone,
    /// The portal is closed: it blocks.
    Closed,
    /// The portal is outside one of the current planes.
    Culled,
    /// The view passes into `adjacent`: [`PortalPath::push_frame`] builds its planes.
    Open { adjacent: NodeId },
}

/// The portal half of culling's walk (the book's `ConvexRegion::Draw`): the stack of plane
/// **frames** — the camera's planes, then one frame per portal on the current path, each the
/// planes it was seen through plus one plane per portal edge through the eye, at most
/// `max_planes` — and the regions on the current path, so a cycle of portals ends.
#[derive(Debug, Clone, Default)]
pub(crate) struct PortalPath {
    planes: Vec<Plane>,
    frames: Vec<(u32, u32)>,
    on_path: BTreeSet<u32>,
    /// The last followed portal's vertices in world space.
    verts: Vec<Vec3>,
}

impl PortalPath {
    /// Frame 0: the camera's planes (at most `max_planes`).
    pub(crate) fn new(planes: &[Plane], max_planes: usize) -> PortalPath {
        let n = planes.len().min(max_planes);
        PortalPath {
            planes: planes[..n].to_vec(),
            frames: vec![(0, n as u32)],
            ..PortalPath::default()
        }
    }

    /// The planes of `frame`.
    pub(crate) fn planes(&self, frame: u32) -> &[Plane] {
        let (start, len) = self.frames[frame as usize];
        &self.planes[start as usize..(start + len) as usize]
    }

    /// Puts `region` on the current path; `false` when it is on it already (a cycle).
    pub(crate) fn enter(&mut self, region: NodeId) -> bool {
        self.on_path.insert(region.index())
    }

    /// Takes `region` off the current path: it may be entered again along another one.
    pub(crate) fn leave(&mut self, region: NodeId) {
        self.on_path.remove(&region.index());
    }

    /// Drops the top frame (the one a portal pushed); frame 0 stays.
    pub(crate) fn pop_frame(&mut self) {
        if self.frames.len() > 1 {
            if let Some((start, _)) = self.frames.pop() {
                self.planes.truncate(start as usize);
            }
        }
    }

    /// Looks through portal `index` of `region` with the planes of `frame`. A portal between
    /// the eye and the near plane still counts (the near plane is not tested).
    pub(crate) fn follow(
        &mut self,
        scene: &Scene,
        region: NodeId,
        index: usize,
        frame: u32,
    ) -> Passage {
        let Some(node) = scene.at(region.index()) else {
            return Passage::Gone;
        };
        let Some(portal) = node.data.region().and_then(|r| r.portals.get(index)) else {
            return Passage::Gone;
        };
        if !portal.is_open() {
            return Passage::Closed;
        }
        let adjacent = portal.adjacent();
        if scene
            .nodes
            .get(adjacent)
            .is_none_or(|n| n.data.region().is_none())
        {
            return Passage::Gone;
        }
        self.verts.clear();
        self.verts
            .extend(portal.vertices().iter().map(|&v| node.world.apply_point(v)));
        if polygon_culled(self.planes(frame), &self.verts, Some(NEAR_PLANE)) {
            return Passage::Culled;
        }
        Passage::Open { adjacent }
    }

    /// The frame for the region the last open portal leads to: the planes of `frame`, then one
    /// plane per portal edge through `eye` while fewer than `max_planes` (edge planes that do
    /// not fit are left out, which only culls less). Returns its index.
    pub(crate) fn push_frame(&mut self, frame: u32, eye: Vec3, max_planes: usize) -> u32 {
        let (start, len) = self.frames[frame as usize];
        let (start, len) = (start as usize, len as usize);
        let new_start = self.planes.len();
        self.planes.extend_from_within(start..start + len);
        let m = self.verts.len();
        for i0 in 0..m {
            if self.planes.len() - new_start >= max_planes {
                break;
            }
            let i1 = (i0 + m - 1) % m;
            if let Some(p) = portal_edge_plane(eye, self.verts[i0], self.verts[i1]) {
                self.planes.push(p);
            }
        }
        let new_len = self.planes.len() - new_start;
        self.frames.push((new_start as u32, new_len as u32));
        (self.frames.len() - 1) as u32
    }
}
