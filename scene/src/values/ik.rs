//! Inverse kinematics (Eberly's `IKGoal`, `IKJoint`, `IKController`; book-advanced §1.17):
//! cyclic coordinate descent over a chain of joints so that end effectors reach targets.
//!
//! * An [`IkGoal`] pairs a **target** node with an **effector** node and a weight `w > 0`;
//!   their positions are their world translations.
//! * An [`IkJoint`] names a node of the chain and, per axis `i` of its **parent's world
//!   frame**, whether it may slide along the axis ([`IkJoint::allow_translation`], local
//!   translation component `i` kept in `[min, max]`, default `±∞`) and turn about it
//!   ([`IkJoint::allow_rotation`], Euler angle `i` of the local rotation factored as
//!   `Rz·Ry·Rx`, kept in `[min, max]`, default `[−π, π]`).
//! * The joints form a chain: joint `k + 1` is a child of joint `k` (checked when the
//!   controller is attached). A goal moves with joint `k` when its effector is joint `k` or
//!   below it, directly or through other nodes (the book asks the application to list the
//!   goals of each joint; here they follow from the tree).
//!
//! # The solver ([`IkController`])
//!
//! Every update, world transforms of the chain are recomputed from the local transforms, then
//! `iterations` passes (default 128) visit the joints from the end to the root (default;
//! [`IkController::order_end_to_root`] false goes root to end). At each joint, every allowed
//! translation axis `i = 0, 1, 2`, then every allowed rotation axis, takes one step:
//!
//! * **slide** (eq. 4.5): `t = Σ wⱼ U·(Gⱼ − Eⱼ) / Σ wⱼ` along the parent's world axis `U`;
//! * **rotate** (eq. 4.6): `θ = atan2(Σ wⱼ (Gⱼ − P)·(U × (Eⱼ − P)), −Σ wⱼ (Gⱼ − P)·(U × (U ×
//!   (Eⱼ − P))))` about the axis `U` through the joint's world position `P`;
//!
//! the new value is clamped to the joint's limits, the chain below the joint is recomputed,
//! and the step is **kept only if the weighted squared distance `Σ wⱼ |Gⱼ − Eⱼ|²` decreases**
//! (the book's code compares the unweighted sums, the same for one goal or equal weights).
//! Two exact departures from the book, both so that the rejection test sees the true result:
//! the effector positions after a step are recomputed from the chain rather than predicted,
//! and a slide of world length `t` changes the local translation by `t` divided by the
//! parent's scale along that axis. A rotation about the parent's z axis is exactly the step
//! the formula assumes; about x and y the book's Euler-angle update is kept as it is.
//!
//! Everything runs in a fixed order with no randomness, so the result is the same on every
//! run. Targets are read once per update (a target moved by the chain itself is not
//! followed within that update).

use glam::{Mat3, Vec3};
use plumb_raster::math;

use crate::values::error::SceneError;
use crate::values::id::NodeId;
use crate::values::transform::Transform;

/// The book's default number of CCD passes per update.
pub const DEFAULT_IK_ITERATIONS: u32 = 128;
/// The most passes a controller may ask for.
pub const MAX_IK_ITERATIONS: u32 = 1 << 16;

/// A target for an effector (see the [module docs](self)).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct IkGoal {
    target: NodeId,
    effector: NodeId,
    weight: f32,
}

impl IkGoal {
    /// `effector` should reach `target`, with influence `weight`.
    ///
    /// # Errors
    /// [`SceneError::NonFinite`], or [`SceneError::InvalidArgument`] for a weight that is not
    /// positive.
    pub fn new(target: NodeId, effector: NodeId, weight: f32) -> Result<Self, SceneError> {
        if !weight.is_finite() {
            return Err(SceneError::NonFinite {
                what: "IK goal weight",
            });
        }
        if weight <= 0.0 {
            return Err(SceneError::InvalidArgument {
                what: "IK goal weight",
                message: format!("{weight} is not positive"),
            });
        }
        Ok(IkGoal {
            target,
            effector,
            weight,
        })
    }

    /// The target node.
    pub fn target(&self) -> NodeId {
        self.target
    }

    /// The effector node.
    pub fn effector(&self) -> NodeId {
        self.effector
    }

    /// The weight.
    pub fn weight(&self) -> f32 {
        self.weight
    }
}

/// One joint of a chain and its degrees of freedom (see the [module docs](self)).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct IkJoint {
    node: NodeId,
    /// May slide along the parent's world axis `i` (default none).
    pub allow_translation: [bool; 3],
    /// May turn about the parent's world axis `i` (default none).
    pub allow_rotation: [bool; 3],
    translation_limits: [(f32, f32); 3],
    rotation_limits: [(f32, f32); 3],
}

impl IkJoint {
    /// A joint on `node` with no freedom and the default limits.
    pub fn new(node: NodeId) -> Self {
        IkJoint {
            node,
            allow_translation: [false; 3],
            allow_rotation: [false; 3],
            translation_limits: [(f32::NEG_INFINITY, f32::INFINITY); 3],
            rotation_limits: [(-std::f32::consts::PI, std::f32::consts::PI); 3],
        }
    }

    /// The joint's node.
    pub fn node(&self) -> NodeId {
        self.node
    }

    /// Lets the joint slide along axis `axis` (0, 1, 2) with local translation component in
    /// `[min, max]` (infinite bounds allowed).
    ///
    /// # Errors
    /// [`SceneError::InvalidArgument`] for an axis past 2, a NaN bound or `max < min`.
    pub fn with_translation(mut self, axis: usize, min: f32, max: f32) -> Result<Self, SceneError> {
        check_limits(axis, min, max, "IK translation limits")?;
        self.allow_translation[axis] = true;
        self.translation_limits[axis] = (min, max);
        Ok(self)
    }

    /// Lets the joint turn about axis `axis` (0, 1, 2) with Euler angle in `[min, max]`
    /// radians.
    ///
    /// # Errors
    /// As [`IkJoint::with_translation`]; the bounds must also be finite.
    pub fn with_rotation(mut self, axis: usize, min: f32, max: f32) -> Result<Self, SceneError> {
        check_limits(axis, min, max, "IK rotation limits")?;
        if !min.is_finite() || !max.is_finite() {
            return Err(SceneError::NonFinite {
                what: "IK rotation limits",
            });
        }
        self.allow_rotation[axis] = true;
        self.rotation_limits[axis] = (min, max);
        Ok(self)
    }

    /// The translation limits of axis `i`.
    pub fn translation_limits(&self, i: usize) -> Option<(f32, f32)> {
        self.translation_limits.get(i).copied()
    }

    /// The rotation limits of axis `i`.
    pub fn rotation_limits(&self, i: usize) -> Option<(f32, f32)> {
        self.rotation_limits.get(i).copied()
    }
}

fn check_limits(axis: usize, min: f32, max: f32, what: &'static str) -> Result<(), SceneError> {
    if axis > 2 {
        return Err(SceneError::InvalidArgument {
            what,
            message: format!("axis {axis} (0, 1 or 2)"),
        });
    }
    if min.is_nan() || max.is_nan() {
        return Err(SceneError::NonFinite { what });
    }
    if max < min {
        return Err(SceneError::InvalidArgument {
            what,
            message: format!("max {max} is below min {min}"),
        });
    }
    Ok(())
}

/// A CCD solver over a chain of joints and a set of goals (see the [module docs](self)).
/// Attach it with [`Scene::add_ik_controller`](crate::Scene::add_ik_controller).
#[derive(Debug, Clone, PartialEq)]
pub struct IkController {
    joints: Vec<IkJoint>,
    goals: Vec<IkGoal>,
    iterations: u32,
    /// Visit the joints from the end of the chain to the root (default true).
    pub order_end_to_root: bool,
    /// Whether the controller runs (default true).
    pub active: bool,
    /// The joints' local transforms as the last solve found them, before it moved them.
    pub(crate) start: Option<Vec<Transform>>,
}

impl IkController {
    /// A controller over `joints` (root first) and `goals`, with the book's defaults.
    ///
    /// # Errors
    /// [`SceneError::InvalidArgument`] for no joints or no goals.
    pub fn new(joints: Vec<IkJoint>, goals: Vec<IkGoal>) -> Result<Self, SceneError> {
        if joints.is_empty() || goals.is_empty() {
            return Err(SceneError::InvalidArgument {
                what: "IK controller",
                message: "needs at least one joint and one goal".to_owned(),
            });
        }
        Ok(IkController {
            joints,
            goals,
            iterations: DEFAULT_IK_ITERATIONS,
            order_end_to_root: true,
            active: true,
            start: None,
        })
    }

    /// `self` with another number of passes.
    ///
    /// # Errors
    /// [`SceneError::InvalidArgument`] past [`MAX_IK_ITERATIONS`].
    pub fn with_iterations(mut self, iterations: u32) -> Result<Self, SceneError> {
        if iterations > MAX_IK_ITERATIONS {
            return Err(SceneError::InvalidArgument {
                what: "IK iterations",
                message: format!("{iterations} (at most {MAX_IK_ITERATIONS})"),
            });
        }
        self.iterations = iterations;
        Ok(self)
    }

    /// The number of passes per update.
    pub fn iterations(&self) -> u32 {
        self.iterations
    }

    /// The joints, root first.
    pub fn joints(&self) -> &[IkJoint] {
        &self.joints
    }

    /// The goals.
    pub fn goals(&self) -> &[IkGoal] {
        &self.goals
    }

    /// The joints' local transforms (root first) as the last [`Scene::update`] found them,
    /// before its solve moved them; `None` before the first solve. CCD starts from the
    /// current pose, so this is the pose a saved scene gives its joints: loading it and
    /// updating solves from the same start to the same result.
    ///
    /// [`Scene::update`]: crate::Scene::update
    pub fn last_start(&self) -> Option<&[Transform]> {
        self.start.as_deref()
    }
}

/// Where a goal's effector is during a solve.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Effector {
    /// Not moved by the chain: a fixed world point.
    Fixed(Vec3),
    /// `worlds[joint] ∘ offset` (the effector is the joint or below it).
    Below { joint: usize, offset: Transform },
}

/// The chain as the solver sees it: plain transforms, no scene.
#[derive(Debug, Clone)]
pub(crate) struct Chain {
    /// World transform of joint 0's parent (identity at the root).
    pub(crate) parent_world: Transform,
    /// Local transforms of the joints; the solver edits them.
    pub(crate) locals: Vec<Transform>,
    /// One per goal.
    pub(crate) effectors: Vec<Effector>,
    /// World target positions, one per goal.
    pub(crate) targets: Vec<Vec3>,
}

/// ZYX Euler angles `[x, y, z]` of `r = Rz(z)·Ry(y)·Rx(x)` (Eberly's `ToEulerAnglesZYX`).
pub(crate) fn euler_zyx(r: &Mat3) -> [f32; 3] {
    let r20 = r.x_axis.z;
    if r20 < 1.0 {
        if r20 > -1.0 {
            [
                math::atan2(r.y_axis.z, r.z_axis.z),
                math::asin(-r20),
                math::atan2(r.x_axis.y, r.x_axis.x),
            ]
        } else {
            [
                0.0,
                std::f32::consts::FRAC_PI_2,
                -math::atan2(r.y_axis.x, r.z_axis.x),
            ]
        }
    } else {
        [
            0.0,
            -std::f32::consts::FRAC_PI_2,
            math::atan2(-r.y_axis.x, -r.z_axis.x),
        ]
    }
}

/// `Rz(z)·Ry(y)·Rx(x)` from `[x, y, z]`.
pub(crate) fn from_euler_zyx(a: [f32; 3]) -> Mat3 {
    let (sx, cx) = math::sin_cos(a[0]);
    let (sy, cy) = math::sin_cos(a[1]);
    let (sz, cz) = math::sin_cos(a[2]);
    let rx = Mat3::from_cols(Vec3::X, Vec3::new(0.0, cx, sx), Vec3::new(0.0, -sx, cx));
    let ry = Mat3::from_cols(Vec3::new(cy, 0.0, -sy), Vec3::Y, Vec3::new(sy, 0.0, cy));
    let rz = Mat3::from_cols(Vec3::new(cz, sz, 0.0), Vec3::new(-sz, cz, 0.0), Vec3::Z);
    rz * ry * rx
}

impl Chain {
    fn worlds(&self) -> Vec<Transform> {
        let mut out: Vec<Transform> = Vec::with_capacity(self.locals.len());
        for l in &self.locals {
            let parent = out.last().unwrap_or(&self.parent_world);
            out.push(parent.compose(l));
        }
        out
    }

    fn effector_positions(&self, worlds: &[Transform]) -> Vec<Vec3> {
        self.effectors
            .iter()
            .map(|e| match e {
                Effector::Fixed(p) => *p,
                Effector::Below { joint, offset } => worlds
                    .get(*joint)
                    .map_or(Vec3::ZERO, |w| w.compose(offset).translation()),
            })
            .collect()
    }

    fn norm(&self, goals: &[IkGoal], effectors: &[Vec3]) -> f32 {
        goals
            .iter()
            .zip(effectors.iter().zip(&self.targets))
            .map(|(g, (e, t))| g.weight * (*t - *e).length_squared())
            .sum()
    }

    fn parent_of(&self, worlds: &[Transform], j: usize) -> Transform {
        if j == 0 {
            self.parent_world
        } else {
            worlds[j - 1]
        }
    }

    /// Tries `candidate` as joint `j`'s local transform; keeps it if the weighted distance
    /// decreases.
    fn try_step(
        &mut self,
        goals: &[IkGoal],
        j: usize,
        candidate: Transform,
        old_norm: f32,
    ) -> bool {
        if !candidate.is_finite() {
            return false;
        }
        let previous = std::mem::replace(&mut self.locals[j], candidate);
        let worlds = self.worlds();
        let new_norm = self.norm(goals, &self.effector_positions(&worlds));
        if new_norm.is_finite() && new_norm < old_norm {
            true
        } else {
            self.locals[j] = previous;
            false
        }
    }

    /// Runs the CCD passes; returns how many steps were kept.
    pub(crate) fn solve(&mut self, c: &IkController) -> usize {
        let n = c.joints.len().min(self.locals.len());
        let mut kept = 0;
        for _ in 0..c.iterations {
            for k in 0..n {
                let j = if c.order_end_to_root { n - 1 - k } else { k };
                kept += self.step_joint(c, j);
            }
        }
        kept
    }

    /// The goals that joint `j` moves (their effector is at or below it).
    fn moved_by(&self, j: usize) -> Vec<usize> {
        self.effectors
            .iter()
            .enumerate()
            .filter(|(_, e)| matches!(e, Effector::Below { joint, .. } if *joint >= j))
            .map(|(g, _)| g)
            .collect()
    }

    fn step_joint(&mut self, c: &IkController, j: usize) -> usize {
        let joint = &c.joints[j];
        let moved = self.moved_by(j);
        if moved.is_empty() {
            return 0;
        }
        let mut kept = 0;
        for i in 0..3 {
            if joint.allow_translation[i] && self.slide(c, j, i, &moved) {
                kept += 1;
            }
        }
        for i in 0..3 {
            if joint.allow_rotation[i] && self.rotate(c, j, i, &moved) {
                kept += 1;
            }
        }
        kept
    }

    fn slide(&mut self, c: &IkController, j: usize, i: usize, moved: &[usize]) -> bool {
        let worlds = self.worlds();
        let column = self.parent_of(&worlds, j).matrix().col(i);
        let scale = column.length();
        if scale.is_nan() || scale <= 1e-12 {
            return false;
        }
        let u = column / scale;
        let eff = self.effector_positions(&worlds);
        let old_norm = self.norm(&c.goals, &eff);
        let (mut numer, mut denom) = (0.0f32, 0.0f32);
        for &g in moved {
            let w = c.goals[g].weight;
            numer += w * u.dot(self.targets[g] - eff[g]);
            denom += w;
        }
        if denom.abs() <= f32::EPSILON {
            return false;
        }
        let t = numer / denom;
        let local = self.locals[j];
        let mut trn = local.translation();
        let (min, max) = joint_limits(&c.joints[j].translation_limits, i);
        trn[i] = (trn[i] + t / scale).clamp(min, max);
        let Ok(candidate) = local.with_translation(trn) else {
            return false;
        };
        self.try_step(&c.goals, j, candidate, old_norm)
    }

    fn rotate(&mut self, c: &IkController, j: usize, i: usize, moved: &[usize]) -> bool {
        let local = self.locals[j];
        let Some(rot) = local.rotation() else {
            return false;
        };
        let worlds = self.worlds();
        let u = self
            .parent_of(&worlds, j)
            .matrix()
            .col(i)
            .normalize_or_zero();
        if u == Vec3::ZERO {
            return false;
        }
        let p = worlds[j].translation();
        let eff = self.effector_positions(&worlds);
        let old_norm = self.norm(&c.goals, &eff);
        let (mut numer, mut denom) = (0.0f32, 0.0f32);
        for &g in moved {
            let w = c.goals[g].weight;
            let emp = eff[g] - p;
            let gmp = self.targets[g] - p;
            let uxemp = u.cross(emp);
            let uxuxemp = u.cross(uxemp);
            numer += w * gmp.dot(uxemp);
            denom -= w * gmp.dot(uxuxemp);
        }
        if numer * numer + denom * denom <= f32::EPSILON {
            return false;
        }
        let theta = math::atan2(numer, denom);
        let mut euler = euler_zyx(&rot);
        let (min, max) = joint_limits(&c.joints[j].rotation_limits, i);
        euler[i] = (euler[i] + theta).clamp(min, max);
        let Ok(candidate) = local.with_rotation(from_euler_zyx(euler)) else {
            return false;
        };
        self.try_step(&c.goals, j, candidate, old_norm)
    }
}

fn joint_limits(limits: &[(f32, f32); 3], i: usize) -> (f32, f32) {
    limits[i]
}

#[cfg(feature = "internal-tests")]
pub(crate) mod tests {
    /// Every test of this module: `tests/unit.rs` runs each as one trial (an unlisted
    /// test fails the build as dead code).
    pub(crate) const TESTS: &[(&str, fn())] = &[("euler_round_trip", euler_round_trip)];

    use super::*;

    fn euler_round_trip() {
        let a = [0.3, -0.4, 1.2];
        let r = from_euler_zyx(a);
        let b = euler_zyx(&r);
        for k in 0..3 {
            assert!((a[k] - b[k]).abs() < 1e-5, "{a:?} vs {b:?}");
        }
        // Rz(z) alone is a rotation about z by z.
        let z = from_euler_zyx([0.0, 0.0, 0.5]);
        let expected = crate::values::transform::rotation_axis_angle(Vec3::Z, 0.5).unwrap();
        assert!(z.abs_diff_eq(expected, 1e-6));
    }
}
