//! Keyframe animation of node transforms, as glTF defines it: per node, independent
//! translation, rotation and scale tracks, each with STEP, LINEAR or CUBICSPLINE
//! interpolation.
//!
//! * [`Track::sample`] is a pure function of the keys and a time `t` in seconds. Before the
//!   first key it holds the first value, after the last key the last value (no looping).
//! * LINEAR rotation is spherical (shortest arc, `acos`/`sin` from `plumb_raster::math`,
//!   falling back to normalized lerp when the two keys are within 0.05° of each other).
//! * CUBICSPLINE keys store `(in-tangent, value, out-tangent)`; between keys `k` and `k+1`,
//!   with `Δ = t_{k+1} − t_k` and `s = (t − t_k)/Δ`, the value is the Hermite curve
//!   `(2s³−3s²+1)·v_k + (s³−2s²+s)·Δ·out_k + (−2s³+3s²)·v_{k+1} + (s³−s²)·Δ·in_{k+1}`;
//!   rotations are normalized afterwards.
//!
//! A [`NodeAnimation`] combines the tracks of one node with the node's rest pose (used for
//! the components no track drives) into a [`Transform`]. [`apply_animations`] poses a scene at
//! a time; [`add_animation_controllers`] attaches the same thing as scene controllers so that
//! [`Scene::update`] drives it.
//!
//! glTF defines no looping. A clip can be set to repeat ([`loop_clips`]): it is then sampled
//! at `t` modulo **its own** duration ([`ClipSwitch::clip_time`]), as three.js's
//! `LoopRepeat` plays each action by its clip's duration — its node tracks in
//! [`apply_animations`] and its morph weights alike.

use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::Arc;

use glam::{Quat, Vec3, Vec4};

use crate::graph::{NodeId, Scene};
use crate::values::controller::{Controller, ControllerTiming};
use crate::values::error::SceneError;
use crate::values::transform::Transform;

pub use crate::values::keyframe::Interpolation;

/// A value a track can interpolate.
pub trait Keyframe: Copy + PartialEq + std::fmt::Debug {
    /// Linear or spherical interpolation from `a` (s = 0) to `b` (s = 1).
    fn interpolate(a: Self, b: Self, s: f32) -> Self;
    /// `Σ wᵢ·vᵢ` of four values (the Hermite basis), then normalized where that applies.
    fn hermite(p0: Self, m0: Self, p1: Self, m1: Self, w: [f32; 4]) -> Self;
    /// Whether every component is finite.
    fn is_finite(&self) -> bool;
}

impl Keyframe for Vec3 {
    fn interpolate(a: Self, b: Self, s: f32) -> Self {
        a + (b - a) * s
    }
    fn hermite(p0: Self, m0: Self, p1: Self, m1: Self, w: [f32; 4]) -> Self {
        p0 * w[0] + m0 * w[1] + p1 * w[2] + m1 * w[3]
    }
    fn is_finite(&self) -> bool {
        Vec3::is_finite(*self)
    }
}

pub use crate::values::keyframe::slerp;

impl Keyframe for Quat {
    fn interpolate(a: Self, b: Self, s: f32) -> Self {
        slerp(a, b, s)
    }
    fn hermite(p0: Self, m0: Self, p1: Self, m1: Self, w: [f32; 4]) -> Self {
        let v = Vec4::from(p0) * w[0]
            + Vec4::from(m0) * w[1]
            + Vec4::from(p1) * w[2]
            + Vec4::from(m1) * w[3];
        Quat::from_vec4(v.normalize_or_zero())
    }
    fn is_finite(&self) -> bool {
        Quat::is_finite(*self)
    }
}

/// One animated quantity: key times and values.
#[derive(Debug, Clone, PartialEq)]
pub struct Track<T> {
    interpolation: Interpolation,
    times: Vec<f32>,
    /// One value per key, or `(in, value, out)` triples for [`Interpolation::CubicSpline`].
    values: Vec<T>,
}

impl<T: Keyframe> Track<T> {
    /// A track from key times (seconds, finite, ≥ 0, strictly increasing) and values (one per
    /// key; three per key — in-tangent, value, out-tangent — for cubic splines).
    ///
    /// # Errors
    /// A message saying what is wrong (the importer adds the file and channel).
    pub fn new(
        interpolation: Interpolation,
        times: Vec<f32>,
        values: Vec<T>,
    ) -> Result<Self, String> {
        if times.is_empty() {
            return Err("no keyframes".to_owned());
        }
        if let Some(bad) = times.iter().find(|t| !t.is_finite() || **t < 0.0) {
            return Err(format!("keyframe time {bad} is not a finite time ≥ 0"));
        }
        if let Some(w) = times.windows(2).find(|w| w[1] <= w[0]) {
            return Err(format!(
                "keyframe times must increase strictly ({} then {})",
                w[0], w[1]
            ));
        }
        let per_key = if interpolation == Interpolation::CubicSpline {
            3
        } else {
            1
        };
        if values.len() != times.len() * per_key {
            return Err(format!(
                "{} keyframes need {} values, found {}",
                times.len(),
                times.len() * per_key,
                values.len()
            ));
        }
        if values.iter().any(|v| !v.is_finite()) {
            return Err("non-finite keyframe value".to_owned());
        }
        Ok(Track {
            interpolation,
            times,
            values,
        })
    }

    /// The interpolation mode.
    pub fn interpolation(&self) -> Interpolation {
        self.interpolation
    }

    /// Key times in seconds.
    pub fn times(&self) -> &[f32] {
        &self.times
    }

    /// The key values (in-tangent, value, out-tangent triples for cubic splines).
    pub fn values(&self) -> &[T] {
        &self.values
    }

    /// Time of the last key.
    pub fn end_time(&self) -> f32 {
        self.times.last().copied().unwrap_or(0.0)
    }

    /// The value at key `k` (the middle of the triple for cubic splines).
    fn key(&self, k: usize) -> T {
        match self.interpolation {
            Interpolation::CubicSpline => self.values[3 * k + 1],
            _ => self.values[k],
        }
    }

    /// The value at time `t` (seconds); see the [module docs](self). A NaN time gives the
    /// first value.
    pub fn sample(&self, t: f32) -> T {
        let n = self.times.len();
        if t.is_nan() || t <= self.times[0] {
            return self.key(0);
        }
        if t >= self.times[n - 1] {
            return self.key(n - 1);
        }
        // times[k] <= t < times[k + 1]
        let k = self.times.partition_point(|&x| x <= t) - 1;
        let (t0, t1) = (self.times[k], self.times[k + 1]);
        let dt = t1 - t0;
        let s = (t - t0) / dt;
        match self.interpolation {
            Interpolation::Step => self.key(k),
            Interpolation::Linear => T::interpolate(self.key(k), self.key(k + 1), s),
            Interpolation::CubicSpline => {
                let w = crate::values::keyframe::hermite_basis(s, dt);
                let p0 = self.values[3 * k + 1];
                let m0 = self.values[3 * k + 2];
                let p1 = self.values[3 * (k + 1) + 1];
                let m1 = self.values[3 * (k + 1)];
                T::hermite(p0, m0, p1, m1, w)
            }
        }
    }
}

/// `Transform::from_srt`, with the uniform-scale hint set when the three scale components
/// are equal (so composition keeps the rotation–scale fast path).
///
/// # Errors
/// As [`Transform::from_srt`].
pub(crate) fn trs(scale: Vec3, rotation: Quat, translation: Vec3) -> Result<Transform, SceneError> {
    let t = Transform::from_srt(scale, rotation, translation)?;
    if scale.x == scale.y && scale.y == scale.z {
        t.with_uniform_scale(scale.x)
    } else {
        Ok(t)
    }
}

/// The tracks driving one node, with its rest pose.
#[derive(Debug, Clone, PartialEq)]
pub struct NodeAnimation {
    /// The animated node.
    pub node: NodeId,
    /// Translation when no track drives it.
    pub rest_translation: Vec3,
    /// Rotation when no track drives it.
    pub rest_rotation: Quat,
    /// Scale when no track drives it.
    pub rest_scale: Vec3,
    /// Translation track.
    pub translation: Option<Track<Vec3>>,
    /// Rotation track (unit quaternions).
    pub rotation: Option<Track<Quat>>,
    /// Scale track.
    pub scale: Option<Track<Vec3>>,
}

impl NodeAnimation {
    /// The node's local transform at time `t`: scale, then rotation, then translation.
    ///
    /// # Errors
    /// [`SceneError::ZeroRotation`] if a cubic rotation track passes through zero.
    pub fn sample(&self, t: f32) -> Result<Transform, SceneError> {
        let tr = self
            .translation
            .as_ref()
            .map_or(self.rest_translation, |k| k.sample(t));
        let r = self
            .rotation
            .as_ref()
            .map_or(self.rest_rotation, |k| k.sample(t));
        let s = self.scale.as_ref().map_or(self.rest_scale, |k| k.sample(t));
        trs(s, r, tr)
    }

    /// Time of the last key of any track.
    pub fn end_time(&self) -> f32 {
        let a = self.translation.as_ref().map_or(0.0, Track::end_time);
        let b = self.rotation.as_ref().map_or(0.0, Track::end_time);
        let c = self.scale.as_ref().map_or(0.0, Track::end_time);
        a.max(b).max(c)
    }
}

/// A [`NodeAnimation`] played by [`Scene::update`] through a time mapping (a scene file's
/// `keyframes` controller): at application time `t` the node's local transform becomes the
/// animation sampled at controller time `timing.control_time(t)`; inactive, it is left alone.
#[derive(Debug, Clone, PartialEq)]
pub struct AnimationController {
    /// The time mapping and active switch.
    pub timing: ControllerTiming,
    /// The tracks and the rest pose.
    pub animation: NodeAnimation,
}

impl Controller for AnimationController {
    fn update(&mut self, time: f64, _local: &Transform) -> Option<Transform> {
        if !self.timing.active() {
            return None;
        }
        self.animation
            .sample(self.timing.control_time(time) as f32)
            .ok()
    }

    fn describe(&self) -> String {
        let n = |t: Option<usize>| t.unwrap_or(0);
        let a = &self.animation;
        format!(
            "keyframes: {} translation, {} rotation, {} scale keys; {}",
            n(a.translation.as_ref().map(|t| t.times().len())),
            n(a.rotation.as_ref().map(|t| t.times().len())),
            n(a.scale.as_ref().map(|t| t.times().len())),
            self.timing
        )
    }

    fn as_any(&self) -> Option<&dyn std::any::Any> {
        Some(self)
    }
}

/// Whether an [`Animation`] plays, and whether it repeats. Clones share one switch: the
/// importer gives the same switch to the animation and to the morph controllers it attached
/// for that animation's glTF `weights` channels, so switching the animation off (see
/// [`play_only`]) stops both its transform tracks (in [`merge_animations`] and what builds
/// on it) and its morph weights (from the next [`Scene::update`] on), and setting it to
/// repeat ([`loop_clips`]) wraps both by the clip's duration. A new switch is on and does not
/// repeat.
#[derive(Debug, Clone)]
pub struct ClipSwitch(Arc<AtomicBool>, Arc<AtomicU32>);

impl Default for ClipSwitch {
    fn default() -> Self {
        ClipSwitch(Arc::new(AtomicBool::new(true)), Arc::new(AtomicU32::new(0)))
    }
}

impl ClipSwitch {
    /// Whether the animation plays.
    pub fn is_playing(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }

    /// Switches the animation (and everything sharing the switch) on or off.
    pub fn set_playing(&self, playing: bool) {
        self.0.store(playing, Ordering::Relaxed);
    }

    /// The period the clip repeats with, in seconds (`None`: it holds its ends).
    pub fn period(&self) -> Option<f32> {
        let p = f32::from_bits(self.1.load(Ordering::Relaxed));
        (p > 0.0).then_some(p)
    }

    /// Makes the clip repeat every `period` seconds (`None`, or a period that is not a
    /// positive finite number: hold its ends).
    pub fn set_period(&self, period: Option<f32>) {
        let p = period.filter(|p| *p > 0.0 && p.is_finite()).unwrap_or(0.0);
        self.1.store(p.to_bits(), Ordering::Relaxed);
    }

    /// The clip's own time at scene time `t`: `t` modulo the period when it repeats
    /// (`rem_euclid`, so times before 0 wrap too), else `t`.
    pub fn clip_time(&self, t: f32) -> f32 {
        match self.period() {
            Some(p) => t.rem_euclid(p),
            None => t,
        }
    }
}

/// Two switches are equal when they are in the same state.
impl PartialEq for ClipSwitch {
    fn eq(&self, other: &Self) -> bool {
        self.is_playing() == other.is_playing() && self.period() == other.period()
    }
}

/// A glTF `weights` channel of an animation, as a description: the morph weights themselves
/// are played by the morph controllers the importer attached to the node's geometry leaves
/// (see the glTF importer's docs), which follow the animation's [`ClipSwitch`].
#[derive(Debug, Clone, PartialEq)]
pub struct WeightsAnimation {
    /// The node whose mesh's morph weights the channel drives (the glTF node's group node).
    pub node: NodeId,
    /// The interpolation of the weights.
    pub interpolation: Interpolation,
    /// Key times in seconds.
    pub times: Vec<f32>,
}

/// A named set of node animations (one glTF animation, a "clip").
#[derive(Debug, Clone, PartialEq)]
pub struct Animation {
    /// Name in the file (may be empty).
    pub name: String,
    /// One entry per animated node, in order of first appearance in the file.
    pub nodes: Vec<NodeAnimation>,
    /// The morph-weight channels, in file order (glTF `weights` channels; empty elsewhere).
    pub weights: Vec<WeightsAnimation>,
    /// Whether the animation plays (on unless switched off; see [`play_only`]).
    pub playing: ClipSwitch,
}

impl Animation {
    /// An animation of node transforms only, playing.
    pub fn new(name: String, nodes: Vec<NodeAnimation>) -> Animation {
        Animation {
            name,
            nodes,
            weights: Vec::new(),
            playing: ClipSwitch::default(),
        }
    }

    /// Time of the last key of any track, morph weights included (the animation's length
    /// from t = 0).
    pub fn duration(&self) -> f32 {
        let weights = self
            .weights
            .iter()
            .map(|w| w.times.last().copied().unwrap_or(0.0));
        self.nodes
            .iter()
            .map(NodeAnimation::end_time)
            .chain(weights)
            .fold(0.0, f32::max)
    }

    /// Number of channels: one per translation, rotation and scale track and one per morph
    /// weights channel (as glTF counts them, when no two channels of the animation drive the
    /// same property; of two that do, the later one is kept and counted).
    pub fn channel_count(&self) -> usize {
        let tracks: usize = self
            .nodes
            .iter()
            .map(|n| {
                usize::from(n.translation.is_some())
                    + usize::from(n.rotation.is_some())
                    + usize::from(n.scale.is_some())
            })
            .sum();
        tracks + self.weights.len()
    }
}

/// Switches every animation on (`clip` `None`) or only the one at index `clip` (the others
/// off). An index past the end switches every animation off.
pub fn play_only(animations: &[Animation], clip: Option<usize>) {
    for (i, a) in animations.iter().enumerate() {
        a.playing.set_playing(clip.is_none_or(|c| c == i));
    }
}

/// The per-node animations of the **playing** animations together (see [`ClipSwitch`]): where
/// two animations drive the same component of the same node, the later one in the list wins
/// (the whole track is replaced: tracks are not blended or added); components no animation
/// drives keep the rest pose. Nodes appear in order of first appearance.
pub fn merge_animations(animations: &[Animation]) -> Vec<NodeAnimation> {
    let mut out: Vec<NodeAnimation> = Vec::new();
    for a in animations.iter().filter(|a| a.playing.is_playing()) {
        for n in &a.nodes {
            match out.iter_mut().find(|m| m.node == n.node) {
                Some(m) => {
                    if n.translation.is_some() {
                        m.translation.clone_from(&n.translation);
                    }
                    if n.rotation.is_some() {
                        m.rotation.clone_from(&n.rotation);
                    }
                    if n.scale.is_some() {
                        m.scale.clone_from(&n.scale);
                    }
                }
                None => out.push(n.clone()),
            }
        }
    }
    out
}

/// Sets every animation to repeat by its own [`Animation::duration`] (`repeat`; a clip of
/// duration 0 holds), or to hold its ends (`!repeat`, the glTF default).
pub fn loop_clips(animations: &[Animation], repeat: bool) {
    for a in animations {
        a.playing.set_period(repeat.then(|| a.duration()));
    }
}

/// Poses `scene` at time `t` (seconds): every node the **playing** animations drive gets its
/// sampled local transform. Each animation's tracks are sampled at its own
/// [`ClipSwitch::clip_time`]; where two drive the same component of the same node, the later
/// one in the list wins (as in [`merge_animations`]); components no animation drives keep
/// the rest pose. World data is stale until the next [`Scene::update`].
///
/// # Errors
/// [`SceneError::StaleId`] if an animated node was removed; [`SceneError::ZeroRotation`] as
/// in [`NodeAnimation::sample`]. Nodes before the failing one are already posed.
pub fn apply_animations(
    scene: &mut Scene,
    animations: &[Animation],
    t: f32,
) -> Result<(), SceneError> {
    /// One node's pose so far, in order of first appearance.
    struct Pose {
        node: NodeId,
        translation: Vec3,
        rotation: Quat,
        scale: Vec3,
    }
    let mut poses: Vec<Pose> = Vec::new();
    for a in animations.iter().filter(|a| a.playing.is_playing()) {
        let ta = a.playing.clip_time(t);
        for n in &a.nodes {
            let at = match poses.iter().position(|p| p.node == n.node) {
                Some(at) => at,
                None => {
                    poses.push(Pose {
                        node: n.node,
                        translation: n.rest_translation,
                        rotation: n.rest_rotation,
                        scale: n.rest_scale,
                    });
                    poses.len() - 1
                }
            };
            let p = &mut poses[at];
            if let Some(k) = &n.translation {
                p.translation = k.sample(ta);
            }
            if let Some(k) = &n.rotation {
                p.rotation = k.sample(ta);
            }
            if let Some(k) = &n.scale {
                p.scale = k.sample(ta);
            }
        }
    }
    for p in poses {
        let local = trs(p.scale, p.rotation, p.translation)?;
        scene.set_local_transform(p.node, local)?;
    }
    Ok(())
}

/// Attaches the animations to `scene` as controllers (one per animated node), so that each
/// [`Scene::update`]`(time)` poses the nodes at `time` seconds. Returns how many were added.
///
/// # Errors
/// [`SceneError::StaleId`] if an animated node is not in `scene`.
///
/// Only the animations playing when this is called are attached ([`merge_animations`]);
/// switching one off later does not detach its transform controllers.
pub fn add_animation_controllers(
    scene: &mut Scene,
    animations: &[Animation],
) -> Result<usize, SceneError> {
    let merged = merge_animations(animations);
    let n = merged.len();
    for anim in merged {
        let node = anim.node;
        scene.add_controller(
            node,
            Box::new(move |time: f64, _: &Transform| anim.sample(time as f32).ok()),
        )?;
    }
    Ok(n)
}

#[cfg(feature = "internal-tests")]
pub(crate) mod tests {
    /// Every test of this module: `tests/unit.rs` runs each as one trial (an unlisted
    /// test fails the build as dead code).
    pub(crate) const TESTS: &[(&str, fn())] = &[
        ("step_holds_previous_key", step_holds_previous_key),
        ("linear_by_hand", linear_by_hand),
        ("slerp_by_hand", slerp_by_hand),
        ("cubic_spline_by_hand", cubic_spline_by_hand),
        ("bad_tracks_are_refused", bad_tracks_are_refused),
        (
            "only_playing_animations_merge_and_the_later_wins",
            only_playing_animations_merge_and_the_later_wins,
        ),
        ("controllers_and_apply_agree", controllers_and_apply_agree),
        (
            "each_clip_repeats_by_its_own_duration",
            each_clip_repeats_by_its_own_duration,
        ),
    ];

    use super::*;
    use core::f32::consts::{FRAC_1_SQRT_2, FRAC_PI_2};

    fn v(x: f32) -> Vec3 {
        Vec3::new(x, 2.0 * x, -x)
    }

    fn step_holds_previous_key() {
        let k = Track::new(
            Interpolation::Step,
            vec![1.0, 2.0, 4.0],
            vec![v(1.0), v(5.0), v(9.0)],
        )
        .unwrap();
        assert_eq!(k.sample(0.0), v(1.0)); // before the first key
        assert_eq!(k.sample(1.0), v(1.0));
        assert_eq!(k.sample(1.99), v(1.0));
        assert_eq!(k.sample(2.0), v(5.0));
        assert_eq!(k.sample(3.5), v(5.0));
        assert_eq!(k.sample(100.0), v(9.0)); // after the last key
        assert_eq!(k.sample(f32::NAN), v(1.0));
    }

    fn linear_by_hand() {
        let k = Track::new(Interpolation::Linear, vec![0.0, 2.0], vec![v(0.0), v(4.0)]).unwrap();
        // A quarter of the way: 1.0.
        assert_eq!(k.sample(0.5), v(1.0));
        assert_eq!(k.sample(1.0), v(2.0));
        let single = Track::new(Interpolation::Linear, vec![3.0], vec![v(7.0)]).unwrap();
        assert_eq!(single.sample(0.0), v(7.0));
        assert_eq!(single.sample(5.0), v(7.0));
    }

    fn slerp_by_hand() {
        // Identity to 90° about z; halfway is 45° about z: (0, 0, sin 22.5°, cos 22.5°).
        let a = Quat::IDENTITY;
        let b = Quat::from_xyzw(0.0, 0.0, FRAC_1_SQRT_2, FRAC_1_SQRT_2);
        let h = slerp(a, b, 0.5);
        let (s, c) = (0.382_683_43_f32, 0.923_879_5_f32); // sin, cos of 22.5°
        assert!(
            (Vec4::from(h) - Vec4::new(0.0, 0.0, s, c))
                .abs()
                .max_element()
                < 1e-6,
            "{h}"
        );
        // The shorter arc: -b is the same rotation, the result must match.
        let h2 = slerp(a, -b, 0.5);
        assert!((Vec4::from(h2) - Vec4::from(h)).abs().max_element() < 1e-6);
        // A third of the way through 90°: 30°.
        let k = Track::new(Interpolation::Linear, vec![0.0, 3.0], vec![a, b]).unwrap();
        let q = k.sample(1.0);
        let (s30, c30) = (0.258_819_04_f32, 0.965_925_8_f32); // sin, cos of 15°
        assert!(
            (Vec4::from(q) - Vec4::new(0.0, 0.0, s30, c30))
                .abs()
                .max_element()
                < 1e-6
        );
        // Nearly equal quaternions take the linear path without NaN.
        let e = Quat::from_xyzw(0.0, 0.0, 1e-5, 1.0).normalize();
        assert!(slerp(a, e, 0.5).is_finite());
        let _ = FRAC_PI_2;
    }

    fn cubic_spline_by_hand() {
        // Keys at t = 0 and 2 with values 0 and 1, out-tangent 3 at key 0, in-tangent −1 at
        // key 1 (per second). At s = 0.5 (t = 1): h00 = 0.5, h10 = 0.125, h01 = 0.5,
        // h11 = −0.125, Δ = 2: 0.5·0 + 0.125·2·3 + 0.5·1 + (−0.125)·2·(−1) = 1.5.
        let x = |a: f32| Vec3::new(a, 0.0, 0.0);
        let k = Track::new(
            Interpolation::CubicSpline,
            vec![0.0, 2.0],
            vec![x(9.0), x(0.0), x(3.0), x(-1.0), x(1.0), x(9.0)],
        )
        .unwrap();
        assert!((k.sample(1.0).x - 1.5).abs() < 1e-6);
        // At the keys, the values themselves (tangents of the outer ends are unused).
        assert_eq!(k.sample(0.0), x(0.0));
        assert_eq!(k.sample(2.0), x(1.0));
        // s = 0.25 (t = 0.5): h00 = 0.84375, h10 = 0.140625, h01 = 0.15625, h11 = −0.046875
        // → 0.140625·6 + 0.15625 + 0.046875·2 = 1.09375.
        assert!((k.sample(0.5).x - 1.093_75).abs() < 1e-6);
        // Rotations are normalized.
        let q = Track::new(
            Interpolation::CubicSpline,
            vec![0.0, 1.0],
            vec![
                Quat::from_xyzw(0.0, 0.0, 0.0, 0.0),
                Quat::IDENTITY,
                Quat::from_xyzw(0.0, 0.0, 0.0, 0.0),
                Quat::from_xyzw(0.0, 0.0, 0.0, 0.0),
                Quat::from_xyzw(0.0, 0.0, 1.0, 0.0),
                Quat::from_xyzw(0.0, 0.0, 0.0, 0.0),
            ],
        )
        .unwrap();
        // Halfway with zero tangents: (0, 0, 0.5, 0.5) normalized.
        let h = q.sample(0.5);
        assert!(
            (Vec4::from(h) - Vec4::new(0.0, 0.0, FRAC_1_SQRT_2, FRAC_1_SQRT_2))
                .abs()
                .max_element()
                < 1e-6
        );
    }

    fn bad_tracks_are_refused() {
        let lin = Interpolation::Linear;
        assert!(Track::<Vec3>::new(lin, vec![], vec![]).is_err());
        assert!(Track::new(lin, vec![0.0, 0.0], vec![v(0.0), v(1.0)]).is_err());
        assert!(Track::new(lin, vec![1.0, 0.5], vec![v(0.0), v(1.0)]).is_err());
        assert!(Track::new(lin, vec![-1.0], vec![v(0.0)]).is_err());
        assert!(Track::new(lin, vec![f32::NAN], vec![v(0.0)]).is_err());
        assert!(Track::new(lin, vec![0.0], vec![v(f32::INFINITY)]).is_err());
        assert!(Track::new(lin, vec![0.0, 1.0], vec![v(0.0)]).is_err());
        assert!(Track::new(Interpolation::CubicSpline, vec![0.0], vec![v(0.0)]).is_err());
    }

    fn only_playing_animations_merge_and_the_later_wins() {
        let mut scene = Scene::new();
        let a = scene.add_group(scene.root(), "a").unwrap();
        let at = |x: f32| {
            let track = Track::new(Interpolation::Step, vec![0.0], vec![Vec3::X * x]).unwrap();
            Animation::new(
                format!("x{x}"),
                vec![NodeAnimation {
                    node: a,
                    rest_translation: Vec3::ZERO,
                    rest_rotation: Quat::IDENTITY,
                    rest_scale: Vec3::ONE,
                    translation: Some(track),
                    rotation: None,
                    scale: None,
                }],
            )
        };
        let anims = [at(1.0), at(2.0)];
        assert_eq!(anims[0].channel_count(), 1);
        let x = |scene: &mut Scene| {
            apply_animations(scene, &anims, 0.0).unwrap();
            scene.local_transform(a).unwrap().translation().x
        };
        assert_eq!(x(&mut scene), 2.0); // both play: the later one wins
        play_only(&anims, Some(0));
        assert!(!anims[1].playing.is_playing());
        assert_eq!(x(&mut scene), 1.0);
        play_only(&anims, Some(1));
        assert_eq!(x(&mut scene), 2.0);
        play_only(&anims, Some(5));
        assert!(merge_animations(&anims).is_empty());
        play_only(&anims, None);
        assert!(anims.iter().all(|a| a.playing.is_playing()));
        // A clone shares the switch.
        let c = anims[0].clone();
        c.playing.set_playing(false);
        assert!(!anims[0].playing.is_playing());
    }

    /// `loop_clips(…, true)` wraps each clip by its own duration (three.js's `LoopRepeat`),
    /// not by the longest: a 1 s clip on node `a` and a 4 s clip on node `b`, both LINEAR
    /// from 0 to 10 × their duration.
    fn each_clip_repeats_by_its_own_duration() {
        let mut scene = Scene::new();
        let a = scene.add_group(scene.root(), "a").unwrap();
        let b = scene.add_group(scene.root(), "b").unwrap();
        let clip = |node, d: f32| {
            let track = Track::new(
                Interpolation::Linear,
                vec![0.0, d],
                vec![Vec3::ZERO, Vec3::X * 10.0 * d],
            )
            .unwrap();
            Animation::new(
                format!("{d} s"),
                vec![NodeAnimation {
                    node,
                    rest_translation: Vec3::ZERO,
                    rest_rotation: Quat::IDENTITY,
                    rest_scale: Vec3::ONE,
                    translation: Some(track),
                    rotation: None,
                    scale: None,
                }],
            )
        };
        let anims = [clip(a, 1.0), clip(b, 4.0)];
        let xs = |scene: &mut Scene, t: f32| {
            apply_animations(scene, &anims, t).unwrap();
            let x = |n| scene.local_transform(n).unwrap().translation().x;
            (x(a), x(b))
        };
        // Held ends (the glTF default): a stays at 10 past 1 s.
        assert_eq!(xs(&mut scene, 2.5), (10.0, 25.0));
        loop_clips(&anims, true);
        assert_eq!(anims[0].playing.period(), Some(1.0));
        assert_eq!(anims[1].playing.period(), Some(4.0));
        // a at 2.5 mod 1 = 0.5, b at 2.5; then a at 0.5, b at 5.5 mod 4 = 1.5.
        assert_eq!(xs(&mut scene, 2.5), (5.0, 25.0));
        assert_eq!(xs(&mut scene, 5.5), (5.0, 15.0));
        // Before 0: -0.25 wraps to 0.75 and 3.75.
        assert_eq!(xs(&mut scene, -0.25), (7.5, 37.5));
        loop_clips(&anims, false);
        assert_eq!(xs(&mut scene, 5.5), (10.0, 40.0));
        // A clip of duration 0 (one key) holds.
        let mut still = clip(a, 1.0);
        still.nodes[0].translation =
            Some(Track::new(Interpolation::Step, vec![0.0], vec![Vec3::ONE]).unwrap());
        let still = [still];
        loop_clips(&still, true);
        assert_eq!(still[0].playing.period(), None);
    }

    fn controllers_and_apply_agree() {
        let mut scene = Scene::new();
        let a = scene.add_group(scene.root(), "a").unwrap();
        let anim = Animation::new(
            "move".into(),
            vec![NodeAnimation {
                node: a,
                rest_translation: Vec3::ZERO,
                rest_rotation: Quat::IDENTITY,
                rest_scale: Vec3::splat(2.0),
                translation: Some(
                    Track::new(
                        Interpolation::Linear,
                        vec![0.0, 1.0],
                        vec![Vec3::ZERO, Vec3::X * 10.0],
                    )
                    .unwrap(),
                ),
                rotation: None,
                scale: None,
            }],
        );
        assert_eq!(anim.duration(), 1.0);
        apply_animations(&mut scene, std::slice::from_ref(&anim), 0.25).unwrap();
        assert_eq!(
            scene.local_transform(a).unwrap().translation(),
            Vec3::new(2.5, 0.0, 0.0)
        );
        assert_eq!(
            scene.local_transform(a).unwrap().scale(),
            Some(Vec3::splat(2.0))
        );
        assert_eq!(add_animation_controllers(&mut scene, &[anim]).unwrap(), 1);
        scene.update(0.5);
        assert_eq!(
            scene.world_transform(a).unwrap().translation(),
            Vec3::new(5.0, 0.0, 0.0)
        );
    }
}
