//! The scene side of particles and inverse kinematics: particle systems on geometry leaves
//! ([`Scene::add_particles`]), their controllers, point controllers, and IK controllers
//! ([`Scene::add_ik_controller`]). The value types and formulas are in
//! [`particles`](crate::values::particles) and [`ik`](crate::values::ik).
//!
//! # When they run
//!
//! [`Scene::update`](crate::Scene::update)`(t)` runs, in this order: the transform
//! controllers (system motion among them), the IK controllers (in the order they were added;
//! each reads the local transforms as the transform controllers left them and writes the
//! joints' local transforms), the particle controllers (which replace the particles and
//! rebuild their quads for the last camera), then the walk and the mesh controllers.
//!
//! # Particle quads
//!
//! A particle leaf is an ordinary geometry leaf whose mesh is the quads of its active
//! particles ([`Particles::quads`]). [`Scene::draw`](crate::Scene::draw) rebuilds the quads
//! for its camera when the camera's axes or the leaf's world rotation changed since the last
//! build ([`Scene::face_particles`]), then brings the bounds up to date, so culling and
//! drawing see squares facing that camera. Before any draw the quads face a camera looking
//! down −z with +y up. Picking and the bound see the quads of the last camera.

use std::sync::Arc;

use glam::{Mat3, Vec3};

use crate::graph::{NodeId, Scene};
use crate::values::camera::Camera;
use crate::values::error::SceneError;
use crate::values::ik::{Chain, Effector, IkController};
use crate::values::particles::{ParticleController, ParticleLeaf, Particles};
use crate::values::transform::Transform;

/// The axes of the default frame: right +x, up +y, looking down −z.
const DEFAULT_AXES: (Vec3, Vec3, Vec3) = (Vec3::X, Vec3::Y, Vec3::NEG_Z);

/// The rotation part of a world transform (its matrix with each column normalized when it
/// has no rotation of its own).
fn world_rotation(w: &Transform) -> Mat3 {
    w.rotation().unwrap_or_else(|| {
        let m = w.matrix();
        Mat3::from_cols(
            m.x_axis.normalize_or_zero(),
            m.y_axis.normalize_or_zero(),
            m.z_axis.normalize_or_zero(),
        )
    })
}

impl Scene {
    /// Creates a particle system as the last child of `parent`: a geometry leaf drawn as the
    /// quads of `particles` (see the [module docs](self)).
    ///
    /// # Errors
    /// As [`Scene::add_geometry`].
    pub fn add_particles(
        &mut self,
        parent: NodeId,
        name: impl Into<String>,
        particles: Particles,
    ) -> Result<NodeId, SceneError> {
        let (r, u, d) = DEFAULT_AXES;
        let mesh = particles.quads(Mat3::IDENTITY, r, u, d)?;
        let id = self.add_geometry(parent, name, Arc::new(mesh))?;
        self.particle_systems.push(ParticleLeaf {
            node: id,
            particles,
            controller: None,
            frame: None,
        });
        Ok(id)
    }

    fn particle_index(&self, id: NodeId) -> Result<usize, SceneError> {
        let node = self.node(id)?;
        self.particle_systems
            .iter()
            .position(|p| p.node == id)
            .ok_or_else(|| SceneError::InvalidArgument {
                what: "particles",
                message: format!("'{}' is not a particle system", node.name),
            })
    }

    /// The particles of a particle leaf (as the last update left them).
    ///
    /// # Errors
    /// [`SceneError::StaleId`], or [`SceneError::InvalidArgument`] when `id` is not a particle
    /// system.
    pub fn particles(&self, id: NodeId) -> Result<&Particles, SceneError> {
        Ok(&self.particle_systems[self.particle_index(id)?].particles)
    }

    /// Replaces the particles of a particle leaf (its quads are rebuilt for the last camera).
    ///
    /// # Errors
    /// As [`Scene::particles`]; the quads' [`SceneError::NonFinite`].
    pub fn set_particles(&mut self, id: NodeId, particles: Particles) -> Result<(), SceneError> {
        let i = self.particle_index(id)?;
        self.particle_systems[i].particles = particles;
        self.rebuild_quads(i)
    }

    /// Attaches (or replaces) the particle controller of a particle leaf. Its system motion, if
    /// any, is a separate [`SystemMotion`](crate::values::particles::SystemMotion) added with
    /// [`Scene::add_controller`].
    ///
    /// # Errors
    /// As [`Scene::particles`]; [`SceneError::AttributeLength`] when the controller's particle
    /// count differs from the system's.
    pub fn add_particle_controller(
        &mut self,
        id: NodeId,
        controller: ParticleController,
    ) -> Result<(), SceneError> {
        let i = self.particle_index(id)?;
        let n = self.particle_systems[i].particles.len();
        if controller.rest().len() != n {
            return Err(SceneError::AttributeLength {
                attribute: "particle controller",
                expected: n,
                actual: controller.rest().len(),
            });
        }
        self.particle_systems[i].controller = Some(controller);
        Ok(())
    }

    /// Rebuilds system `i`'s quads for its last frame (the default frame before any draw).
    fn rebuild_quads(&mut self, i: usize) -> Result<(), SceneError> {
        let leaf = &self.particle_systems[i];
        let (rot, r, u, d) = match leaf.frame {
            Some([c0, c1, c2, r, u, d]) => (Mat3::from_cols(c0, c1, c2), r, u, d),
            None => {
                let (r, u, d) = DEFAULT_AXES;
                (Mat3::IDENTITY, r, u, d)
            }
        };
        let mesh = leaf.particles.quads(rot, r, u, d)?;
        let node = leaf.node;
        self.set_mesh(node, Arc::new(mesh))
    }

    /// Rebuilds the quads of every particle system whose world rotation or camera axes changed
    /// since its last build, for `camera` (what [`Scene::draw`](crate::Scene::draw) does
    /// before culling; world transforms are read as stored, so update first).
    pub fn face_particles(&mut self, camera: &Camera) {
        let (r, u, d) = (camera.right(), camera.up(), camera.direction());
        for i in 0..self.particle_systems.len() {
            let Ok(world) = self.world_transform(self.particle_systems[i].node) else {
                continue;
            };
            let rot = world_rotation(world);
            let frame = [rot.x_axis, rot.y_axis, rot.z_axis, r, u, d];
            if self.particle_systems[i].frame == Some(frame) {
                continue;
            }
            self.particle_systems[i].frame = Some(frame);
            // A system whose quads overflow keeps its previous mesh.
            let _ = self.rebuild_quads(i);
        }
    }

    /// Runs every particle controller once; returns how many ran.
    pub(crate) fn run_particle_controllers(&mut self, time: f64) -> usize {
        let mut ran = 0;
        for i in 0..self.particle_systems.len() {
            let leaf = &self.particle_systems[i];
            if self.node(leaf.node).is_err() {
                continue;
            }
            let Some(c) = &leaf.controller else {
                continue;
            };
            ran += 1;
            if let Some(p) = c.particles_at(time, &leaf.particles) {
                self.particle_systems[i].particles = p;
                let _ = self.rebuild_quads(i);
            }
        }
        ran
    }

    /// Attaches an IK controller (see [`ik`](crate::values::ik)); the update runs IK controllers after
    /// the transform controllers, in the order they were added.
    ///
    /// # Errors
    /// [`SceneError::StaleId`] for a joint, target or effector; [`SceneError::InvalidArgument`]
    /// when joint `k + 1` is not a child of joint `k`, or a node is a joint twice.
    pub fn add_ik_controller(&mut self, controller: IkController) -> Result<(), SceneError> {
        for g in controller.goals() {
            self.node(g.target())?;
            self.node(g.effector())?;
        }
        let joints = controller.joints();
        for (k, j) in joints.iter().enumerate() {
            self.node(j.node())?;
            if joints[..k].iter().any(|o| o.node() == j.node()) {
                return Err(SceneError::InvalidArgument {
                    what: "IK controller",
                    message: format!("'{}' is a joint twice", self.node(j.node())?.name),
                });
            }
            if k > 0 && self.node(j.node())?.parent != Some(joints[k - 1].node()) {
                return Err(SceneError::InvalidArgument {
                    what: "IK controller",
                    message: format!(
                        "joint '{}' is not a child of the joint before it, '{}'",
                        self.node(j.node())?.name,
                        self.node(joints[k - 1].node())?.name
                    ),
                });
            }
        }
        self.ik_controllers.push(controller);
        Ok(())
    }

    /// The chain of an IK controller as the solver sees it, or `None` if a node went stale
    /// or the chain was broken by a hierarchy edit.
    fn ik_chain(&self, c: &IkController) -> Option<Chain> {
        let joints: Vec<NodeId> = c.joints().iter().map(|j| j.node()).collect();
        for k in 1..joints.len() {
            if self.node(joints[k]).ok()?.parent != Some(joints[k - 1]) {
                return None;
            }
        }
        let parent_world = match self.node(joints[0]).ok()?.parent {
            Some(p) => self.compute_world(p).ok()?,
            None => Transform::IDENTITY,
        };
        let locals = joints
            .iter()
            .map(|&j| self.local_transform(j).copied())
            .collect::<Result<Vec<_>, _>>()
            .ok()?;
        let mut effectors = Vec::with_capacity(c.goals().len());
        let mut targets = Vec::with_capacity(c.goals().len());
        for g in c.goals() {
            targets.push(self.compute_world(g.target()).ok()?.translation());
            // Walk up from the effector to the nearest joint, collecting local transforms.
            let mut below = Vec::new();
            let mut cur = Some(g.effector());
            let mut found = None;
            while let Some(id) = cur {
                if let Some(k) = joints.iter().position(|&j| j == id) {
                    found = Some(k);
                    break;
                }
                let n = self.node(id).ok()?;
                below.push(n.local);
                cur = n.parent;
            }
            effectors.push(match found {
                Some(joint) => {
                    let offset = below
                        .iter()
                        .rev()
                        .fold(Transform::IDENTITY, |acc, l| acc.compose(l));
                    Effector::Below { joint, offset }
                }
                None => Effector::Fixed(self.compute_world(g.effector()).ok()?.translation()),
            });
        }
        Some(Chain {
            parent_world,
            locals,
            effectors,
            targets,
        })
    }

    /// Runs every active IK controller once; returns how many ran.
    pub(crate) fn run_ik_controllers(&mut self) -> usize {
        let controllers = std::mem::take(&mut self.ik_controllers);
        let mut ran = 0;
        let mut controllers = controllers;
        for c in &mut controllers {
            if !c.active {
                continue;
            }
            let Some(mut chain) = self.ik_chain(c) else {
                continue;
            };
            c.start = Some(chain.locals.clone());
            ran += 1;
            if chain.solve(c) == 0 {
                continue;
            }
            for (j, local) in c.joints().iter().zip(&chain.locals) {
                if self.local_transform(j.node()).ok() != Some(local) {
                    // The id was just checked, so this cannot fail.
                    let _ = self.set_local_transform(j.node(), *local);
                }
            }
        }
        let mut added = std::mem::take(&mut self.ik_controllers);
        self.ik_controllers = controllers;
        self.ik_controllers.append(&mut added);
        ran
    }

    /// Number of IK controllers attached.
    pub fn ik_controller_count(&self) -> usize {
        self.ik_controllers.len()
    }

    /// Whether `id` is a particle leaf.
    pub fn is_particles(&self, id: NodeId) -> bool {
        self.particle_systems.iter().any(|p| p.node == id)
            && self.node(id).is_ok_and(|n| n.data.kind().is_leaf())
    }
}
