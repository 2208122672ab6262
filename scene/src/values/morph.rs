//! Morphing (Eberly's `MorphController`, book-advanced §1.14): a geometry leaf's vertices as a
//! weighted combination of `T` targets with the same vertex count `V`, the weights keyed over
//! time.
//!
//! Target 0 is stored **absolute** (`X₀`); targets `1..T` are stored as **differences**
//! `Xᵢ − X₀` ([`MorphController::new`] takes them so; [`MorphController::from_targets`]
//! computes them). Each of the `K` keys holds the weights `w₁ … w_{T−1}` (`w₀` is implied). At
//! an update, the application time is mapped to controller time by the
//! [`ControllerTiming`], the bounding keys `(k₀, k₁)` and `u` are found as for keyframes, and
//! with `cᵢ = (1 − u)·w[k₀]ᵢ + u·w[k₁]ᵢ` (the book's code) every vertex becomes
//!
//! `X = X₀ + Σᵢ cᵢ·(Xᵢ − X₀)`, summed in target order,
//!
//! written into a copy of the leaf's mesh with [`Mesh::with_deformed_positions`] (bounds
//! recomputed, normals regenerated if it has them), so culling and picking see the morphed
//! shape. Weights need not be positive or sum to 1 (that is only the usual case), but must be
//! finite.
//!
//! Beyond the book (for glTF morph targets):
//!
//! * **Interpolation** ([`MorphController::with_keys`]): besides the book's linear blend, step
//!   (`c = w[k₀]`) and cubic Hermite keys, stored like glTF's `CUBICSPLINE` samplers as
//!   `(in-tangent, value, out-tangent)` weight arrays per key, blended per weight with the
//!   formula of [`Track::sample`](crate::io::Track::sample).
//! * **Normals** ([`MorphController::with_normals`]): normal 0 absolute and the differences of
//!   the other targets; the morphed normal is `normalize(N₀ + Σᵢ cᵢ·ΔNᵢ)` (zero if that sum
//!   vanishes), written with [`Mesh::with_deformed_vertices`] instead of regenerated.

use glam::Vec3;

use crate::values::controller::{check_key_times, ControllerTiming, KeyCursor, MeshController};
use crate::values::error::SceneError;
use crate::values::keyframe::Interpolation;
use crate::values::mesh::Mesh;
use crate::values::transform::Transform;

/// Keyed blending of morph targets (see the [module docs](self)). Attach it to a geometry leaf
/// with [`Scene::add_mesh_controller`](crate::Scene::add_mesh_controller).
#[derive(Debug, Clone, PartialEq)]
pub struct MorphController {
    timing: ControllerTiming,
    /// `[X₀, X₁ − X₀, …]`, each of `V` vertices.
    targets: Vec<Vec<Vec3>>,
    /// `[N₀, N₁ − N₀, …]` when the normals are morphed.
    normals: Option<Vec<Vec<Vec3>>>,
    interpolation: Interpolation,
    times: Vec<f32>,
    /// `K` arrays of `T − 1` weights (`3K` for cubic keys: in-tangent, value, out-tangent).
    weights: Vec<Vec<f32>>,
    cursor: KeyCursor,
}

/// Checks keys for `targets` targets (see [`MorphController::with_keys`]).
fn check_keys(
    targets: usize,
    interpolation: Interpolation,
    times: &[f32],
    weights: &[Vec<f32>],
) -> Result<(), SceneError> {
    check_key_times(times, "morph key times")?;
    let per_key = if interpolation == Interpolation::CubicSpline {
        3
    } else {
        1
    };
    if weights.len() != times.len() * per_key {
        return Err(invalid(format!(
            "{} key times need {} weight arrays, found {}",
            times.len(),
            times.len() * per_key,
            weights.len()
        )));
    }
    if let Some((k, w)) = weights
        .iter()
        .enumerate()
        .find(|(_, w)| w.len() != targets - 1)
    {
        return Err(invalid(format!(
            "weight array {k} has {} weights; {} targets need {}",
            w.len(),
            targets,
            targets - 1
        )));
    }
    if weights.iter().flatten().any(|w| !w.is_finite()) {
        return Err(SceneError::NonFinite {
            what: "morph weight",
        });
    }
    Ok(())
}

fn invalid(message: String) -> SceneError {
    SceneError::InvalidArgument {
        what: "morph controller",
        message,
    }
}

impl MorphController {
    /// A morph controller from target 0 (absolute), the differences `Xᵢ − X₀` of the other
    /// targets, the key times and one array of `T − 1` weights per key.
    ///
    /// # Errors
    /// [`SceneError::InvalidArgument`] for no targets, targets of different vertex counts, no
    /// keys, key times not strictly increasing, or a key whose weight count is not `T − 1`;
    /// [`SceneError::NonFinite`] for a non-finite vertex, time or weight.
    pub fn new(
        timing: ControllerTiming,
        base: Vec<Vec3>,
        differences: Vec<Vec<Vec3>>,
        times: Vec<f32>,
        weights: Vec<Vec<f32>>,
    ) -> Result<Self, SceneError> {
        let v = base.len();
        if let Some((i, d)) = differences.iter().enumerate().find(|(_, d)| d.len() != v) {
            return Err(invalid(format!(
                "target {} has {} vertices, target 0 has {v}",
                i + 1,
                d.len()
            )));
        }
        let mut targets = Vec::with_capacity(differences.len() + 1);
        targets.push(base);
        targets.extend(differences);
        if targets.iter().flatten().any(|p| !p.is_finite()) {
            return Err(SceneError::NonFinite {
                what: "morph target",
            });
        }
        check_keys(targets.len(), Interpolation::Linear, &times, &weights)?;
        Ok(MorphController {
            timing,
            targets,
            normals: None,
            interpolation: Interpolation::Linear,
            times,
            weights,
            cursor: KeyCursor::default(),
        })
    }

    /// A morph controller from absolute targets (the first is target 0; the differences to it
    /// are computed here).
    ///
    /// # Errors
    /// As [`MorphController::new`]; no targets at all is [`SceneError::InvalidArgument`].
    pub fn from_targets(
        timing: ControllerTiming,
        targets: Vec<Vec<Vec3>>,
        times: Vec<f32>,
        weights: Vec<Vec<f32>>,
    ) -> Result<Self, SceneError> {
        let mut it = targets.into_iter();
        let base = it.next().ok_or_else(|| invalid("no targets".to_owned()))?;
        let differences = it
            .map(|t| {
                if t.len() == base.len() {
                    Ok(t.iter().zip(&base).map(|(x, x0)| *x - *x0).collect())
                } else {
                    Err(invalid(format!(
                        "a target has {} vertices, target 0 has {}",
                        t.len(),
                        base.len()
                    )))
                }
            })
            .collect::<Result<Vec<_>, _>>()?;
        MorphController::new(timing, base, differences, times, weights)
    }

    /// `self` with other keys: `interpolation`, strictly increasing `times` and per key one
    /// array of `T − 1` weights — three for [`Interpolation::CubicSpline`] (in-tangent, value,
    /// out-tangent, tangents per unit of controller time), as glTF stores them.
    ///
    /// # Errors
    /// As the keys of [`MorphController::new`], with the count of arrays per key above.
    pub fn with_keys(
        mut self,
        interpolation: Interpolation,
        times: Vec<f32>,
        weights: Vec<Vec<f32>>,
    ) -> Result<Self, SceneError> {
        check_keys(self.targets.len(), interpolation, &times, &weights)?;
        self.interpolation = interpolation;
        self.times = times;
        self.weights = weights;
        self.cursor = KeyCursor::default();
        Ok(self)
    }

    /// `self` morphing normals too: normal 0 (absolute, one per vertex) and the differences
    /// `Nᵢ − N₀` of the other targets (see the [module docs](self)).
    ///
    /// # Errors
    /// [`SceneError::InvalidArgument`] for a count of vertices or targets that differs from
    /// the positions'; [`SceneError::NonFinite`] for a non-finite value.
    pub fn with_normals(
        mut self,
        base: Vec<Vec3>,
        differences: Vec<Vec<Vec3>>,
    ) -> Result<Self, SceneError> {
        let v = self.vertex_count();
        if differences.len() + 1 != self.targets.len() {
            return Err(invalid(format!(
                "{} normal targets for {} targets",
                differences.len() + 1,
                self.targets.len()
            )));
        }
        if base.len() != v || differences.iter().any(|d| d.len() != v) {
            return Err(invalid(format!(
                "normal targets must have {v} vertices each"
            )));
        }
        let mut normals = Vec::with_capacity(differences.len() + 1);
        normals.push(base);
        normals.extend(differences);
        if normals.iter().flatten().any(|n| !n.is_finite()) {
            return Err(SceneError::NonFinite {
                what: "morph normal",
            });
        }
        self.normals = Some(normals);
        Ok(self)
    }

    /// The interpolation of the weights.
    pub fn interpolation(&self) -> Interpolation {
        self.interpolation
    }

    /// Number of vertices `V` of every target.
    pub fn vertex_count(&self) -> usize {
        self.targets[0].len()
    }

    /// Number of targets `T` (target 0 included).
    pub fn target_count(&self) -> usize {
        self.targets.len()
    }

    /// The time mapping and active flag.
    pub fn timing(&self) -> &ControllerTiming {
        &self.timing
    }

    /// Replaces the time mapping and active flag.
    pub fn set_timing(&mut self, timing: ControllerTiming) {
        self.timing = timing;
    }

    /// Target 0 (absolute) then the differences `Xᵢ − X₀` of the other targets, as
    /// [`MorphController::new`] takes them.
    pub fn targets(&self) -> &[Vec<Vec3>] {
        &self.targets
    }

    /// Normal 0 (absolute) then the normal differences, when the normals are morphed
    /// ([`MorphController::with_normals`]).
    pub fn normal_targets(&self) -> Option<&[Vec<Vec3>]> {
        self.normals.as_deref()
    }

    /// The key times (controller time).
    pub fn times(&self) -> &[f32] {
        &self.times
    }

    /// The weight arrays, one per key (three per key for cubic keys), as
    /// [`MorphController::with_keys`] takes them.
    pub fn key_weights(&self) -> &[Vec<f32>] {
        &self.weights
    }

    /// The interpolated weights `c₁ … c_{T−1}` at application time `app_time`.
    pub fn weights_at(&mut self, app_time: f64) -> Vec<f32> {
        let t = self.timing.control_time(app_time) as f32;
        let (k0, k1, u) = self.cursor.find(t, &self.times);
        match self.interpolation {
            Interpolation::Step => self.weights[k0].clone(),
            Interpolation::Linear => {
                let (w0, w1) = (&self.weights[k0], &self.weights[k1]);
                let om = 1.0 - u;
                w0.iter().zip(w1).map(|(a, b)| om * a + u * b).collect()
            }
            Interpolation::CubicSpline if k0 == k1 => self.weights[3 * k0 + 1].clone(),
            Interpolation::CubicSpline => {
                let dt = self.times[k1] - self.times[k0];
                let h = crate::values::keyframe::hermite_basis(u, dt);
                let p0 = &self.weights[3 * k0 + 1];
                let m0 = &self.weights[3 * k0 + 2];
                let p1 = &self.weights[3 * k1 + 1];
                let m1 = &self.weights[3 * k1];
                (0..p0.len())
                    .map(|i| p0[i] * h[0] + m0[i] * h[1] + p1[i] * h[2] + m1[i] * h[3])
                    .collect()
            }
        }
    }

    /// `X₀ + Σᵢ cᵢ·Dᵢ` over `[X₀, D₁, …]`, in target order.
    fn blend(targets: &[Vec<Vec3>], c: &[f32]) -> Vec<Vec3> {
        let mut out = targets[0].clone();
        for (ci, diff) in c.iter().zip(&targets[1..]) {
            for (x, d) in out.iter_mut().zip(diff) {
                *x += *ci * *d;
            }
        }
        out
    }

    /// The morphed vertices at application time `app_time` (see the [module docs](self)).
    pub fn positions_at(&mut self, app_time: f64) -> Vec<Vec3> {
        let c = self.weights_at(app_time);
        Self::blend(&self.targets, &c)
    }

    /// The morphed unit normals at application time `app_time`, when the controller morphs
    /// normals ([`MorphController::with_normals`]).
    pub fn normals_at(&mut self, app_time: f64) -> Option<Vec<Vec3>> {
        let c = self.weights_at(app_time);
        let normals = self.normals.as_ref()?;
        let mut n = Self::blend(normals, &c);
        for x in &mut n {
            *x = x.normalize_or_zero();
        }
        Some(n)
    }
}

impl MeshController for MorphController {
    fn check(&self, mesh: &Mesh) -> Result<(), SceneError> {
        if mesh.positions().len() == self.vertex_count() {
            Ok(())
        } else {
            Err(SceneError::AttributeLength {
                attribute: "morph targets",
                expected: mesh.positions().len(),
                actual: self.vertex_count(),
            })
        }
    }

    /// `None` when inactive, when the mesh no longer has `V` vertices, or when the sum
    /// overflowed.
    fn update(&mut self, time: f64, mesh: &Mesh, _bones: &[Transform]) -> Option<Mesh> {
        if !self.timing.active() || mesh.positions().len() != self.vertex_count() {
            return None;
        }
        let c = self.weights_at(time);
        let positions = Self::blend(&self.targets, &c);
        match &self.normals {
            Some(normals) if mesh.normals().is_some() => {
                let mut n = Self::blend(normals, &c);
                for x in &mut n {
                    *x = x.normalize_or_zero();
                }
                mesh.with_deformed_vertices(positions, n).ok()
            }
            _ => mesh.with_deformed_positions(positions).ok(),
        }
    }

    fn describe(&self) -> String {
        format!(
            "morph: {} targets{}, {} keys; {}",
            self.targets.len().saturating_sub(1),
            if self.normals.is_some() {
                " with normals"
            } else {
                ""
            },
            self.times.len(),
            self.timing
        )
    }

    fn as_any(&self) -> Option<&dyn std::any::Any> {
        Some(self)
    }
}
