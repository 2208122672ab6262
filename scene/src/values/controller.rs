//! Controllers (Eberly's `Controller`, book-advanced §1.12): time-driven edits of a node, run
//! by [`Scene::update`](crate::Scene::update) and by nothing else.
//!
//! # Two shapes of controller
//!
//! * A [`Controller`] edits a node's **local transform**: it gets the application time and the
//!   current local transform and returns a new one (closures implement it; so does
//!   [`KeyframeController`](crate::values::keyframe::KeyframeController)). The update applies it with
//!   [`Scene::set_local_transform`](crate::Scene::set_local_transform), which marks the node
//!   dirty like any user edit.
//! * A [`MeshController`] edits the **mesh data** of a geometry leaf: it gets the time, the
//!   leaf's current mesh and the world transforms of the bones it names, and returns a new
//!   mesh ([`MorphController`](crate::values::morph::MorphController),
//!   [`SkinController`](crate::values::skin::SkinController)). The update stores it as
//!   [`Scene::set_mesh`](crate::Scene::set_mesh) does, so the leaf's bound is recomputed and
//!   culling sees the deformed shape.
//!
//! # When they run
//!
//! [`Scene::update`](crate::Scene::update)`(t)` runs every transform controller (in the order
//! they were added), brings world transforms and bounds up to date, then runs every mesh
//! controller (in the order they were added) — so bones are always current before a skin reads
//! them, wherever the skin sits in the tree — and brings the bounds of the edited leaves up to
//! date. Each controller runs **once per update**; [`Scene::draw`](crate::Scene::draw) brings
//! world data up to date without running them again. Controllers of removed nodes are dropped
//! with them.
//!
//! # Controller time ([`ControllerTiming`])
//!
//! Keyframe and morph controllers map application time `tₐ` to controller time as the book
//! does (L10923–10960): `t꜀ = f·tₐ + p`, then by [`RepeatType`]:
//!
//! * **Clamp**: `t꜀` clamped to `[min, max]`;
//! * **Wrap**: `min + frac((t꜀ − min)/(max − min))·(max − min)` (with `frac(x) = x − ⌊x⌋`, so
//!   negative times wrap too and `t꜀ = max` maps to `min`);
//! * **Cycle**: with `m = (t꜀ − min)/(max − min)`, forward `min + frac(m)·(max − min)` when
//!   `⌊m⌋` is even, backward `max − frac(m)·(max − min)` when it is odd (ping-pong).
//!
//! The arithmetic is in `f64`, as the book's. Where the book's formulas divide by zero the
//! result is documented instead: with `max ≤ min`, Wrap and Cycle give `min`; a non-finite
//! `t꜀` (an infinite or NaN application time) gives `min`, except that Clamp sends `+∞` to
//! `max`. An inactive controller ([`ControllerTiming::active`] false) leaves its target as
//! it is.

use crate::values::error::SceneError;
use crate::values::id::NodeId;
use crate::values::mesh::Mesh;
use crate::values::transform::Transform;

/// Animates a node's local transform as a function of application time.
///
/// Closures `FnMut(f64, &Transform) -> Option<Transform>` implement it.
pub trait Controller: Send + Sync {
    /// Called once per [`Scene::update`](crate::Scene::update) with the application time and
    /// the node's current local transform; returns the new local transform, or `None` to leave
    /// it as is.
    fn update(&mut self, time: f64, local: &Transform) -> Option<Transform>;

    /// The controller as [`Any`](std::any::Any), for code that knows concrete controller
    /// types and needs their parameters (the scene saver writes each type it recognises to
    /// the scene-file format). `None` by default: closures and other opaque controllers
    /// cannot describe themselves, and saving refuses them.
    fn as_any(&self) -> Option<&dyn std::any::Any> {
        None
    }

    /// One line saying what the controller is, for `plumb info` and [`Scene::dump`](crate::Scene::dump):
    /// its type and parameters (key counts, speeds, timing). A closure says
    /// `"opaque (a closure or another type)"`.
    fn describe(&self) -> String {
        "opaque (a closure or another type)".to_owned()
    }
}

impl<F> Controller for F
where
    F: FnMut(f64, &Transform) -> Option<Transform> + Send + Sync,
{
    fn update(&mut self, time: f64, local: &Transform) -> Option<Transform> {
        self(time, local)
    }
}

/// Animates the mesh of a geometry leaf (morphing, skinning) as a function of application time
/// and, optionally, of the world transforms of other nodes (bones). Attach one with
/// [`Scene::add_mesh_controller`](crate::Scene::add_mesh_controller).
pub trait MeshController: Send + Sync {
    /// The nodes whose world transforms [`MeshController::update`] reads, in the order it
    /// receives them (none by default).
    fn bones(&self) -> &[NodeId] {
        &[]
    }

    /// Whether the controlled leaf's world transform must be the identity because the new
    /// mesh is already in world space (skinning; `false` by default). The update then keeps
    /// the leaf's world transform at the identity whatever its local transform and ancestors.
    fn world_is_identity(&self) -> bool {
        false
    }

    /// Checks, when the controller is attached, that it fits the leaf's mesh.
    ///
    /// # Errors
    /// Typically [`SceneError::AttributeLength`] for a vertex count that differs.
    fn check(&self, mesh: &Mesh) -> Result<(), SceneError> {
        let _ = mesh;
        Ok(())
    }

    /// Called once per [`Scene::update`](crate::Scene::update), after world transforms are
    /// current, with the application time, the leaf's current mesh and the world transforms
    /// of [`MeshController::bones`]; returns the new mesh, or `None` to leave it as is (also
    /// when the mesh no longer fits, e.g. it was replaced by one with another vertex count).
    fn update(&mut self, time: f64, mesh: &Mesh, bones: &[Transform]) -> Option<Mesh>;

    /// One line saying what the controller is (see [`Controller::describe`]).
    fn describe(&self) -> String {
        "opaque mesh controller".to_owned()
    }

    /// The controller as [`Any`](std::any::Any), as [`Controller::as_any`] (`None` by
    /// default).
    fn as_any(&self) -> Option<&dyn std::any::Any> {
        None
    }
}

/// How controller time repeats outside `[min, max]` (Eberly's `RepeatType`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RepeatType {
    /// Clamp to `[min, max]`: the animation holds its end values (the default).
    #[default]
    Clamp,
    /// Wrap around: after `max`, start again at `min`.
    Wrap,
    /// Ping-pong: forward from `min` to `max`, then backward to `min`, and so on.
    Cycle,
}

/// The mapping from application time to controller time, and the active switch (Eberly's
/// `MinTime`, `MaxTime`, `Phase`, `Frequency`, `RepeatType`, `Active`; see the
/// [module docs](self) for the formulas).
///
/// Built with validated setters, so every field is finite and `min ≤ max`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ControllerTiming {
    repeat: RepeatType,
    min_time: f64,
    max_time: f64,
    phase: f64,
    frequency: f64,
    active: bool,
}

impl std::fmt::Display for ControllerTiming {
    /// `clamp 0..1.25 s` and, when not the defaults, `phase p`, `frequency f`, `inactive`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let repeat = match self.repeat {
            RepeatType::Clamp => "clamp",
            RepeatType::Wrap => "wrap",
            RepeatType::Cycle => "cycle",
        };
        write!(f, "{repeat} {}..{} s", self.min_time, self.max_time)?;
        if self.phase != 0.0 {
            write!(f, ", phase {}", self.phase)?;
        }
        if self.frequency != 1.0 {
            write!(f, ", frequency {}", self.frequency)?;
        }
        if !self.active {
            f.write_str(", inactive")?;
        }
        Ok(())
    }
}

impl Default for ControllerTiming {
    fn default() -> Self {
        ControllerTiming::DEFAULT
    }
}

impl ControllerTiming {
    /// The book's defaults: clamp, `min = max = 0`, phase 0, frequency 1, active.
    pub const DEFAULT: ControllerTiming = ControllerTiming {
        repeat: RepeatType::Clamp,
        min_time: 0.0,
        max_time: 0.0,
        phase: 0.0,
        frequency: 1.0,
        active: true,
    };

    /// Default timing over `[min, max]`.
    ///
    /// # Errors
    /// As [`ControllerTiming::with_range`].
    pub fn over(min: f64, max: f64) -> Result<Self, SceneError> {
        ControllerTiming::DEFAULT.with_range(min, max)
    }

    /// `self` with another repeat type.
    #[must_use]
    pub fn with_repeat(mut self, repeat: RepeatType) -> Self {
        self.repeat = repeat;
        self
    }

    /// `self` with the controller-time interval `[min, max]`.
    ///
    /// # Errors
    /// [`SceneError::NonFinite`], or [`SceneError::InvalidArgument`] when `max < min`.
    pub fn with_range(mut self, min: f64, max: f64) -> Result<Self, SceneError> {
        if !min.is_finite() || !max.is_finite() {
            return Err(SceneError::NonFinite {
                what: "controller time range",
            });
        }
        if max < min {
            return Err(SceneError::InvalidArgument {
                what: "controller time range",
                message: format!("max time {max} is before min time {min}"),
            });
        }
        self.min_time = min;
        self.max_time = max;
        Ok(self)
    }

    /// `self` with another phase `p` (added after scaling by the frequency).
    ///
    /// # Errors
    /// [`SceneError::NonFinite`].
    pub fn with_phase(mut self, phase: f64) -> Result<Self, SceneError> {
        if !phase.is_finite() {
            return Err(SceneError::NonFinite {
                what: "controller phase",
            });
        }
        self.phase = phase;
        Ok(self)
    }

    /// `self` with another frequency `f` (any finite value; negative plays backwards).
    ///
    /// # Errors
    /// [`SceneError::NonFinite`].
    pub fn with_frequency(mut self, frequency: f64) -> Result<Self, SceneError> {
        if !frequency.is_finite() {
            return Err(SceneError::NonFinite {
                what: "controller frequency",
            });
        }
        self.frequency = frequency;
        Ok(self)
    }

    /// `self` switched on or off.
    #[must_use]
    pub fn with_active(mut self, active: bool) -> Self {
        self.active = active;
        self
    }

    /// The repeat type.
    pub fn repeat(&self) -> RepeatType {
        self.repeat
    }

    /// The start of the controller-time interval.
    pub fn min_time(&self) -> f64 {
        self.min_time
    }

    /// The end of the controller-time interval.
    pub fn max_time(&self) -> f64 {
        self.max_time
    }

    /// The phase.
    pub fn phase(&self) -> f64 {
        self.phase
    }

    /// The frequency.
    pub fn frequency(&self) -> f64 {
        self.frequency
    }

    /// Whether the controller runs.
    pub fn active(&self) -> bool {
        self.active
    }

    /// Switches the controller on or off.
    pub fn set_active(&mut self, active: bool) {
        self.active = active;
    }

    /// Controller time for application time `app_time` (Eberly's `GetControlTime`; the
    /// formulas and the degenerate cases are in the [module docs](self)).
    pub fn control_time(&self, app_time: f64) -> f64 {
        let (min, max) = (self.min_time, self.max_time);
        let tc = self.frequency * app_time + self.phase;
        if self.repeat == RepeatType::Clamp {
            return if tc < min || tc.is_nan() {
                min
            } else if tc > max {
                max
            } else {
                tc
            };
        }
        let range = max - min;
        if !tc.is_finite() || range <= 0.0 {
            return min;
        }
        let mult = (tc - min) / range;
        let whole = mult.floor();
        let frac = mult - whole;
        if self.repeat == RepeatType::Cycle && whole.rem_euclid(2.0) == 1.0 {
            max - frac * range
        } else {
            min + frac * range
        }
    }
}

/// Checks key times: at least one, finite, strictly increasing.
pub(crate) fn check_key_times(times: &[f32], what: &'static str) -> Result<(), SceneError> {
    if times.is_empty() {
        return Err(SceneError::InvalidArgument {
            what,
            message: "no keys".to_owned(),
        });
    }
    if times.iter().any(|t| !t.is_finite()) {
        return Err(SceneError::NonFinite { what });
    }
    if let Some(w) = times.windows(2).find(|w| w[1] <= w[0]) {
        return Err(SceneError::InvalidArgument {
            what,
            message: format!("key times must increase strictly ({} then {})", w[0], w[1]),
        });
    }
    Ok(())
}

/// The pair of keys bounding a time, found from the last pair (Eberly's `GetKeyInfo`, O(1)
/// for slowly varying time). The answer does not depend on the starting point, so it is the
/// same whatever the history of calls.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct KeyCursor {
    last: usize,
}

impl KeyCursor {
    /// `(i0, i1, u)` for time `t` over `times` (non-empty, strictly increasing): before the
    /// first key `(0, 0, 0)`, at or after the last `(n−1, n−1, 0)`, otherwise `i0` is the last
    /// key with `times[i0] ≤ t`, `i1 = i0 + 1` and `u = (t − t₀)/(t₁ − t₀)` in `[0, 1)`.
    /// A NaN time is treated as before the first key.
    pub(crate) fn find(&mut self, t: f32, times: &[f32]) -> (usize, usize, f32) {
        let n = times.len();
        if n == 0 || t.is_nan() || t <= times[0] {
            self.last = 0;
            return (0, 0, 0.0);
        }
        if t >= times[n - 1] {
            self.last = n - 1;
            return (n - 1, n - 1, 0.0);
        }
        // Invariant from here: times[0] < t < times[n−1].
        let mut i = self.last.min(n - 2);
        while times[i] > t {
            i -= 1;
        }
        while times[i + 1] <= t {
            i += 1;
        }
        self.last = i;
        let (t0, t1) = (times[i], times[i + 1]);
        (i, i + 1, (t - t0) / (t1 - t0))
    }
}

#[cfg(feature = "internal-tests")]
pub(crate) mod tests {
    /// Every test of this module: `tests/unit.rs` runs each as one trial (an unlisted
    /// test fails the build as dead code).
    pub(crate) const TESTS: &[(&str, fn())] = &[("cursor_is_history_free", cursor_is_history_free)];

    use super::*;

    fn cursor_is_history_free() {
        let times = [0.0, 1.0, 2.0, 4.0];
        let probes = [-1.0, 0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 5.0, 3.0, 0.25, 2.0];
        for start in 0..4 {
            let mut c = KeyCursor { last: start };
            for &t in &probes {
                let mut fresh = KeyCursor::default();
                assert_eq!(c.find(t, &times), fresh.find(t, &times), "t = {t}");
            }
        }
        let mut c = KeyCursor::default();
        assert_eq!(c.find(3.0, &times), (2, 3, 0.5));
        assert_eq!(c.find(1.0, &times), (1, 2, 0.0));
        assert_eq!(c.find(f32::NAN, &times), (0, 0, 0.0));
    }
}
