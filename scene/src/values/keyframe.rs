//! Keyframe animation of a local transform (Eberly's `KeyframeController`, book-advanced
//! §1.13).
//!
//! A [`KeyframeController`] holds up to three channels — translations (`Vec3`), rotations
//! (unit quaternions) and **uniform** scales (`f32`) — each with its own strictly increasing
//! key times (controller time). Each update maps the application time to controller time with
//! its [`ControllerTiming`] (clamp, wrap or cycle; see [`controller`](crate::values::controller)),
//! finds for each channel the pair of keys `(k₀, k₁)` bounding it (starting from the last
//! pair, Eberly's `GetKeyInfo`), and with `u = (t − t₀)/(t₁ − t₀)` sets:
//!
//! * translation `T₀ + u·(T₁ − T₀)`,
//! * rotation [`slerp`]`(q₀, q₁, u)`,
//! * uniform scale `s₀ + u·(s₁ − s₀)`
//!
//! into the node's local transform. A channel with no keys leaves that part of the local
//! transform as it is. Before the first key a channel holds its first value, after the last
//! its last value; exactly at a key, `u = 0` on the pair starting there, so the key's value is
//! returned bit for bit (translations and scales).

use glam::{Mat3, Quat, Vec3, Vec4};
use plumb_raster::math;

use crate::values::controller::{check_key_times, Controller, ControllerTiming, KeyCursor};
use crate::values::error::SceneError;
use crate::values::transform::{unit_quat, Transform};

/// How values between keyframes are found (glTF's sampler interpolation; used by the glTF
/// animation tracks and by [`MorphController`](crate::values::morph::MorphController) weights).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Interpolation {
    /// Hold the value of the previous key.
    Step,
    /// Linear (vectors, weights) or spherical linear (rotations).
    Linear,
    /// Cubic Hermite with per-key in and out tangents.
    CubicSpline,
}

/// The cubic Hermite basis at `s` in `[0, 1]` for a key interval of length `dt`: the weights
/// of the first value, its out-tangent, the second value and its in-tangent (glTF's
/// CUBICSPLINE; tangents are per unit time, hence the `dt`).
pub(crate) fn hermite_basis(s: f32, dt: f32) -> [f32; 4] {
    let s2 = s * s;
    let s3 = s2 * s;
    [
        2.0 * s3 - 3.0 * s2 + 1.0,
        (s3 - 2.0 * s2 + s) * dt,
        -2.0 * s3 + 3.0 * s2,
        (s3 - s2) * dt,
    ]
}

/// `cos` of the angle under which two unit quaternions are blended linearly instead of
/// spherically (their angle is below about 0.05°, where `sin θ` loses precision).
const SLERP_LINEAR_COS: f32 = 0.999_999_6;

/// `v · (1/|v|)` (glam's `normalize_or_zero`) with the dot product in a fixed order, or zero
/// for a zero vector.
fn normalize_or_zero4(v: Vec4) -> Vec4 {
    let rcp = 1.0 / math::dot4(v, v).sqrt();
    if rcp.is_finite() && rcp > 0.0 {
        v * rcp
    } else {
        Vec4::ZERO
    }
}

/// Spherical linear interpolation along the shorter arc (glTF's reference `slerp`), with
/// transcendental functions from `plumb_raster::math` and dot products in a fixed order.
/// (Eberly's `Quaternion::Slerp` does not flip `b` when `a·b < 0`; both give the same rotation
/// when consecutive keys are in the same hemisphere, as exporters write them.)
pub fn slerp(a: Quat, b: Quat, s: f32) -> Quat {
    let (a4, mut b4) = (Vec4::from(a), Vec4::from(b));
    let mut d = math::dot4(a4, b4);
    if d < 0.0 {
        b4 = -b4;
        d = -d;
    }
    let out = if d > SLERP_LINEAR_COS {
        a4 + (b4 - a4) * s
    } else {
        let theta = math::acos(d.min(1.0));
        let sin_theta = math::sin(theta);
        let wa = math::sin((1.0 - s) * theta) / sin_theta;
        let wb = math::sin(s * theta) / sin_theta;
        a4 * wa + b4 * wb
    };
    Quat::from_vec4(normalize_or_zero4(out))
}

/// One channel: key times and values.
#[derive(Debug, Clone, PartialEq)]
struct Keys<T> {
    times: Vec<f32>,
    values: Vec<T>,
    cursor: KeyCursor,
}

impl<T: Copy> Keys<T> {
    fn new(times: Vec<f32>, values: Vec<T>, what: &'static str) -> Result<Self, SceneError> {
        check_key_times(&times, what)?;
        if values.len() != times.len() {
            return Err(SceneError::InvalidArgument {
                what,
                message: format!("{} key times but {} values", times.len(), values.len()),
            });
        }
        Ok(Keys {
            times,
            values,
            cursor: KeyCursor::default(),
        })
    }

    /// The value at controller time `t`, interpolated by `lerp`.
    fn sample(&mut self, t: f32, lerp: impl Fn(T, T, f32) -> T) -> T {
        let (i0, i1, u) = self.cursor.find(t, &self.times);
        if i0 == i1 {
            self.values[i0]
        } else {
            lerp(self.values[i0], self.values[i1], u)
        }
    }
}

/// Keyframed translation, rotation and uniform scale of a node's local transform (see the
/// [module docs](self)). Attach it with [`Scene::add_controller`](crate::Scene::add_controller).
///
/// ```
/// use glam::Vec3;
/// use plumb_scene::{ControllerTiming, KeyframeController, RepeatType, Scene};
///
/// # fn main() -> Result<(), plumb_scene::SceneError> {
/// let mut scene = Scene::new();
/// let node = scene.add_group(scene.root(), "mover")?;
/// let timing = ControllerTiming::over(0.0, 2.0)?.with_repeat(RepeatType::Wrap);
/// let keys = KeyframeController::new(timing)
///     .with_translations(vec![0.0, 2.0], vec![Vec3::ZERO, Vec3::new(4.0, 0.0, 0.0)])?;
/// scene.add_controller(node, Box::new(keys))?;
/// scene.update(2.5); // wraps to controller time 0.5: a quarter of the way
/// assert_eq!(scene.world_transform(node)?.translation(), Vec3::new(1.0, 0.0, 0.0));
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct KeyframeController {
    timing: ControllerTiming,
    translations: Option<Keys<Vec3>>,
    rotations: Option<Keys<Quat>>,
    scales: Option<Keys<f32>>,
}

impl KeyframeController {
    /// A controller with no channels yet (it changes nothing until one is added).
    pub fn new(timing: ControllerTiming) -> Self {
        KeyframeController {
            timing,
            translations: None,
            rotations: None,
            scales: None,
        }
    }

    /// Adds (or replaces) the translation channel.
    ///
    /// # Errors
    /// [`SceneError::InvalidArgument`] for no keys, times not strictly increasing or a count
    /// of values other than the count of times; [`SceneError::NonFinite`].
    pub fn with_translations(
        mut self,
        times: Vec<f32>,
        values: Vec<Vec3>,
    ) -> Result<Self, SceneError> {
        if values.iter().any(|v| !v.is_finite()) {
            return Err(SceneError::NonFinite {
                what: "translation key",
            });
        }
        self.translations = Some(Keys::new(times, values, "translation keys")?);
        Ok(self)
    }

    /// Adds (or replaces) the rotation channel (quaternions are normalized).
    ///
    /// # Errors
    /// As [`KeyframeController::with_translations`]; [`SceneError::ZeroRotation`] for a zero
    /// quaternion.
    pub fn with_rotations(
        mut self,
        times: Vec<f32>,
        values: Vec<Quat>,
    ) -> Result<Self, SceneError> {
        let values = values
            .into_iter()
            .map(unit_quat)
            .collect::<Result<Vec<_>, _>>()?;
        self.rotations = Some(Keys::new(times, values, "rotation keys")?);
        Ok(self)
    }

    /// Adds (or replaces) the uniform-scale channel.
    ///
    /// # Errors
    /// As [`KeyframeController::with_translations`].
    pub fn with_scales(mut self, times: Vec<f32>, values: Vec<f32>) -> Result<Self, SceneError> {
        if values.iter().any(|v| !v.is_finite()) {
            return Err(SceneError::NonFinite { what: "scale key" });
        }
        self.scales = Some(Keys::new(times, values, "scale keys")?);
        Ok(self)
    }

    /// The time mapping and active flag.
    pub fn timing(&self) -> &ControllerTiming {
        &self.timing
    }

    /// Replaces the time mapping and active flag.
    pub fn set_timing(&mut self, timing: ControllerTiming) {
        self.timing = timing;
    }

    /// `local` with every channel set to its value at application time `app_time` (whether
    /// or not the controller is active).
    ///
    /// # Errors
    /// [`SceneError::NonFinite`] if interpolation overflowed (keys near `f32::MAX`).
    pub fn sample(&mut self, app_time: f64, local: &Transform) -> Result<Transform, SceneError> {
        let t = self.timing.control_time(app_time) as f32;
        let mut out = *local;
        if let Some(k) = &mut self.translations {
            out.set_translation(k.sample(t, |a, b, u| a + (b - a) * u))?;
        }
        if let Some(k) = &mut self.rotations {
            out.set_rotation(Mat3::from_quat(k.sample(t, slerp)))?;
        }
        if let Some(k) = &mut self.scales {
            out.set_uniform_scale(k.sample(t, |a, b, u| a + (b - a) * u))?;
        }
        Ok(out)
    }
}

impl Controller for KeyframeController {
    /// `None` when inactive or when [`KeyframeController::sample`] fails.
    fn update(&mut self, time: f64, local: &Transform) -> Option<Transform> {
        if !self.timing.active() {
            return None;
        }
        self.sample(time, local).ok()
    }

    fn describe(&self) -> String {
        let n = |k: Option<usize>| k.unwrap_or(0);
        format!(
            "keyframes: {} translation, {} rotation, {} scale keys; {}",
            n(self.translations.as_ref().map(|k| k.times.len())),
            n(self.rotations.as_ref().map(|k| k.times.len())),
            n(self.scales.as_ref().map(|k| k.times.len())),
            self.timing
        )
    }
}
