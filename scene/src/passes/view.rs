//! The view: what one camera decides about the scene before anything is culled.
//!
//! Four things in a scene depend on where it is seen from: billboards turn about their up
//! axis towards the eye ([`billboard`](crate::nodes::billboard)), particle quads face the
//! camera ([`motion`](crate::graph::motion)), each discrete-LOD switch shows the child
//! whose distance interval holds the eye ([`lod`](crate::nodes::lod)), and each
//! level-selecting leaf (a CLOD mesh or curve, [`levels`](crate::values::levels)) shows the
//! level its depth gives. A [`View`] is those decisions as one value: the world-space camera,
//! the child each LOD switch shows and the level each level leaf shows.
//!
//! Frame preparation ([`Scene::prepare_view`]) takes the camera, turns billboards and
//! particles to it, brings world data up to date, and computes the view; culling and drawing
//! then receive the view ([`Scene::cull_view`]). [`Scene::draw`](crate::Scene::draw) does all
//! of this (its signature is unchanged); with a reference node the camera is first carried
//! into world space ([`frames`](crate::passes::frames)).
//!
//! The scene keeps no view of its own. Because world transforms and particle meshes are
//! cached in the tree, each billboard remembers the eye its world transform faces, each
//! particle system the camera frame its quads face, and each LOD switch the child the last
//! prepared view chose (what picking and [`Scene::active_child`] see between frames, as in
//! the book, where a discrete-LOD node is a switch whose active child is set when drawn).

use std::collections::BTreeMap;

use glam::Vec3;

use crate::graph::{NodeId, Scene};
use crate::passes::update::UpdateStats;
use crate::values::camera::Camera;

/// What one camera decides about the scene (see the [module docs](self)).
#[derive(Debug, Clone, PartialEq)]
pub struct View {
    camera: Camera,
    lods: BTreeMap<NodeId, Option<NodeId>>,
    levels: BTreeMap<NodeId, usize>,
}

impl View {
    /// The world-space camera the view was computed for.
    pub fn camera(&self) -> &Camera {
        &self.camera
    }

    /// The eye position in world space.
    pub fn eye(&self) -> Vec3 {
        self.camera.location()
    }

    /// The child LOD switch `lod` shows in this view: `None` when no interval holds the eye,
    /// or when `lod` is not a LOD switch of the scene the view was computed for.
    pub fn lod_child(&self, lod: NodeId) -> Option<NodeId> {
        self.lods.get(&lod).copied().flatten()
    }

    /// The level index a level-selecting leaf shows in this view
    /// ([`levels`](crate::values::levels); 0 is the finest), or `None` for another node.
    pub fn level(&self, leaf: NodeId) -> Option<usize> {
        self.levels.get(&leaf).copied()
    }

    /// Every LOD switch and the child it shows, in id order.
    pub fn lod_choices(&self) -> impl Iterator<Item = (NodeId, Option<NodeId>)> + '_ {
        self.lods.iter().map(|(&k, &v)| (k, v))
    }
}

impl Scene {
    /// The view of `camera` (world space) from the world data as it stands: the child each
    /// LOD switch shows, by the distance from its world LOD centre to the eye (see
    /// [`lod`](crate::nodes::lod)). Changes nothing; [`Scene::prepare_view`] first brings
    /// world data up to date.
    pub fn view(&self, camera: &Camera) -> View {
        View {
            camera: camera.clone(),
            lods: self.choose_levels_of_detail(camera.location()),
            levels: self.choose_levels(camera),
        }
    }

    /// Step 1 of a frame for the world-space `camera`: turns billboards to its eye and
    /// particle quads to its frame, brings world transforms, bounds and resolved render state
    /// up to date (without running controllers), computes the [`View`], records its LOD
    /// choices in the switches and builds the level leaves' meshes it chose (then their
    /// bounds). Returns the view and what the refresh did.
    pub fn prepare_view(&mut self, camera: &Camera) -> (View, UpdateStats) {
        self.face_billboards(camera.location());
        let mut update = self.refresh();
        if !self.particle_systems.is_empty() {
            self.face_particles(camera);
            let quads = self.refresh();
            update.visited += quads.visited;
            update.bounds += quads.bounds;
        }
        let view = self.view(camera);
        self.record_levels_of_detail(&view.lods);
        if self.apply_levels(&view.levels) {
            // New level meshes: their bounds, before anything is culled.
            let meshes = self.refresh();
            update.bounds += meshes.bounds;
        }
        (view, update)
    }
}
