//! The motion controllers of the scene format both ways: `spin`, `motion`, `point_motion`
//! and particle `motion` as the loader builds them, and as the saver writes them back.
//!
//! Each has a convenience form (`velocity` / `velocities` vectors, `spins` and
//! `degrees_per_second`) that the loader turns into a speed along a unit axis, and an
//! **exact** form (`speed` + `direction`, `angular_speed` + `angular_axis`, and their
//! per-vertex arrays) that holds the controller's state as it is: a unit axis is kept bit for
//! bit and angular speeds are in radians, as the scene keeps them. The saver writes the exact
//! form, so `load → save → load` rebuilds the same controllers.

use glam::{Mat3, Vec3};
use plumb_raster::math;

use super::ctx::{v3, Ctx};
use super::doc::*;
use super::real::Real;
use crate::graph::{NodeId, Scene};
use crate::io::error::IoError;
use crate::values::controller::{Controller, ControllerTiming, RepeatType};
use crate::values::error::SceneError;
use crate::values::particles::{
    unit_axis, ParticleController, Particles, PointController, SystemMotion,
};
use crate::values::transform::{rotation_axis_angle, Transform};

/// A `spin` controller: the node's transform `base` turned by `degrees_per_second·t` about
/// `axis` after its own rotation (the axis as the file gives it; it is normalized at every
/// use). A type rather than a closure so that the saver can write it back.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Spin {
    base: Transform,
    axis: Vec3,
    degrees_per_second: f32,
}

impl Spin {
    /// # Errors
    /// The scene's error for an axis `rotation_axis_angle` refuses (zero, non-finite).
    pub(super) fn new(
        base: Transform,
        axis: Vec3,
        degrees_per_second: f32,
    ) -> Result<Self, SceneError> {
        rotation_axis_angle(axis, 0.0)?;
        Ok(Spin {
            base,
            axis,
            degrees_per_second,
        })
    }

    /// The transform the spin starts from.
    pub(super) fn base(&self) -> &Transform {
        &self.base
    }

    /// The `spin` document that builds this spin again.
    pub(super) fn doc(&self) -> SpinDoc {
        SpinDoc {
            axis: [
                Real::lit(self.axis.x),
                Real::lit(self.axis.y),
                Real::lit(self.axis.z),
            ],
            degrees_per_second: Real::lit(self.degrees_per_second),
        }
    }
}

impl Controller for Spin {
    fn update(&mut self, time: f64, _local: &Transform) -> Option<Transform> {
        let speed = f64::from(self.degrees_per_second);
        let degrees = (speed * time).rem_euclid(360.0) as f32;
        let r = rotation_axis_angle(self.axis, math::to_radians(degrees)).ok()?;
        let base_rotation = self.base.rotation().unwrap_or(Mat3::IDENTITY);
        self.base.with_rotation(r * base_rotation).ok()
    }

    fn describe(&self) -> String {
        format!(
            "spin: {} °/s about ({}, {}, {})",
            self.degrees_per_second, self.axis.x, self.axis.y, self.axis.z
        )
    }

    fn as_any(&self) -> Option<&dyn std::any::Any> {
        Some(self)
    }
}

/// The time mapping of the motion controllers: `t꜀ = max(0, frequency·t + phase)` over
/// `[0, ∞)`, defaults 0 and 1, active unless `false`.
pub(super) fn motion_timing(
    phase: Option<Real>,
    frequency: Option<Real>,
    active: Option<bool>,
) -> Result<ControllerTiming, SceneError> {
    Ok(ControllerTiming::over(0.0, f64::MAX)?
        .with_phase(f64::from(phase.map_or(0.0, Real::get)))?
        .with_frequency(f64::from(frequency.map_or(1.0, Real::get)))?
        .with_active(active.unwrap_or(true)))
}

/// `phase`, `frequency` and `active` of a motion document, each `None` at its default.
type MotionTimingDoc = (Option<Real>, Option<Real>, Option<bool>);

/// `(phase, frequency, active)` of a motion timing, each left out at its default; `Err`
/// names what the motion keys cannot hold (another interval or repeat, times that are not
/// exact 32-bit floats).
fn motion_timing_doc(t: &ControllerTiming) -> Result<MotionTimingDoc, &'static str> {
    const OTHER: &str = "motion controllers whose timing is not max(0, frequency·t + phase) with 32-bit phase and frequency";
    if t.min_time() != 0.0 || t.max_time() != f64::MAX || t.repeat() != RepeatType::Clamp {
        return Err(OTHER);
    }
    let exact = |x: f64| {
        let f = x as f32;
        (f64::from(f).to_bits() == x.to_bits()).then_some(f)
    };
    let phase = exact(t.phase()).ok_or(OTHER)?;
    let frequency = exact(t.frequency()).ok_or(OTHER)?;
    Ok((
        (phase.to_bits() != 0).then(|| Real::lit(phase)),
        (frequency != 1.0).then(|| Real::lit(frequency)),
        (!t.active()).then_some(false),
    ))
}

/// A vector as a speed along a unit axis (+x for a zero vector, which does not move); a
/// length that overflows is an invalid-file error naming `what`.
fn speed_and_axis(ctx: &Ctx, context: &str, v: Vec3, what: &str) -> Result<(f32, Vec3), IoError> {
    let speed = v.length();
    if !speed.is_finite() {
        return Err(ctx.invalid(context, format!("{what} {v} is too large")));
    }
    Ok((speed, if speed > 0.0 { v / speed } else { Vec3::X }))
}

/// Per-item speeds and unit axes from the convenience vectors `vectors` or the exact
/// `speeds` + `axes` (`names`: a vector in messages, then the three keys), for `n` items called `items`. The vectors'
/// axes are normalized as the scene's constructors normalize them (`what_axis`), so the
/// result is what the convenience form always gave; the exact axes are checked later by
/// `with_unit_axes`.
#[allow(
    clippy::too_many_arguments,
    reason = "the keys of one form, spelled out"
)]
fn speeds_and_axes(
    ctx: &Ctx,
    context: &str,
    vectors: Option<&[Real3]>,
    speeds: Option<&[Real]>,
    axes: Option<&[Real3]>,
    names: [&str; 4],
    n: usize,
    items: &str,
    what_axis: &'static str,
) -> Result<(Vec<f32>, Vec<Vec3>), IoError> {
    let [one, vkey, skey, akey] = names;
    match (vectors, speeds, axes) {
        (Some(_), Some(_), _) | (Some(_), _, Some(_)) => Err(ctx.invalid(
            context,
            format!("give \"{vkey}\" or \"{skey}\" with \"{akey}\", not both"),
        )),
        (None, Some(_), None) | (None, None, Some(_)) => {
            Err(ctx.invalid(context, format!("\"{skey}\" and \"{akey}\" go together")))
        }
        (None, Some(s), Some(a)) => {
            for (key, len) in [(skey, s.len()), (akey, a.len())] {
                if len != n {
                    return Err(
                        ctx.invalid(context, format!("{len} \"{key}\" entries for {n} {items}"))
                    );
                }
            }
            Ok((
                s.iter().map(|x| x.get()).collect(),
                a.iter().map(v3).collect(),
            ))
        }
        (vectors, None, None) => {
            let Some(vectors) = vectors else {
                return Ok((vec![0.0; n], vec![Vec3::X; n]));
            };
            let (mut speeds, mut axes) = (Vec::with_capacity(n), Vec::with_capacity(n));
            for v in vectors {
                let (s, a) = speed_and_axis(ctx, context, v3(v), one)?;
                speeds.push(s);
                axes.push(unit_axis(a, what_axis).map_err(ctx.scene_err(context))?);
            }
            Ok((speeds, axes))
        }
    }
}

/// A `motion` controller (system motion) from the node's transform `base`.
pub(super) fn system_motion(
    ctx: &Ctx,
    context: &str,
    base: Transform,
    m: &MotionDoc,
) -> Result<SystemMotion, IoError> {
    let err = ctx.scene_err(context);
    let linear = match (&m.velocity, m.speed, &m.direction) {
        (Some(_), None, None) | (None, None, None) => {
            let velocity = m.velocity.as_ref().map_or(Vec3::ZERO, v3);
            let (speed, direction) = speed_and_axis(ctx, context, velocity, "velocity")?;
            (
                speed,
                unit_axis(direction, "system linear axis").map_err(&err)?,
            )
        }
        (None, Some(s), Some(d)) => (s.get(), v3(d)),
        (Some(_), _, _) => {
            return Err(ctx.invalid(
                context,
                "give \"velocity\" or \"speed\" with \"direction\", not both",
            ))
        }
        _ => return Err(ctx.invalid(context, "\"speed\" and \"direction\" go together")),
    };
    let legacy = m.axis.is_some() || m.degrees_per_second.is_some();
    let angular = match (m.angular_speed, &m.angular_axis) {
        (None, None) => {
            let axis = m.axis.as_ref().map_or(Vec3::Y, v3);
            (
                math::to_radians(m.degrees_per_second.map_or(0.0, Real::get)),
                unit_axis(axis, "system angular axis").map_err(&err)?,
            )
        }
        (Some(_), Some(_)) if legacy => {
            return Err(ctx.invalid(
                context,
                "give \"axis\" and \"degrees_per_second\" or \"angular_speed\" with \"angular_axis\", not both",
            ))
        }
        (Some(s), Some(a)) => (s.get(), v3(a)),
        _ => {
            return Err(ctx.invalid(
                context,
                "\"angular_speed\" and \"angular_axis\" go together",
            ))
        }
    };
    let timing = motion_timing(m.phase, m.frequency, m.active).map_err(&err)?;
    SystemMotion::with_unit_axes(timing, base, linear.0, linear.1, angular.0, angular.1)
        .map_err(&err)
}

/// The `motion` document of a system motion (the exact form); its rest transform is the
/// node's `transform`.
pub(super) fn motion_doc(m: &SystemMotion) -> Result<MotionDoc, &'static str> {
    let (phase, frequency, active) = motion_timing_doc(m.timing())?;
    let r3 = |v: Vec3| [Real::lit(v.x), Real::lit(v.y), Real::lit(v.z)];
    let (speed, direction) = m.linear();
    let (angular_speed, angular_axis) = m.angular();
    Ok(MotionDoc {
        speed: Some(Real::lit(speed)),
        direction: Some(r3(direction)),
        angular_speed: Some(Real::lit(angular_speed)),
        angular_axis: Some(r3(angular_axis)),
        phase,
        frequency,
        active,
        ..MotionDoc::default()
    })
}

/// The particle `motion` of explicit particles (see `docs/scene-format.md`): per-particle
/// velocities or speeds and directions, size changes, an optional box, and the time mapping.
pub(super) fn particle_motion(
    ctx: &Ctx,
    context: &str,
    system: &Particles,
    m: &ParticleMotionDoc,
) -> Result<ParticleController, IoError> {
    let err = ctx.scene_err(context);
    let n = system.len();
    let exact = m.speeds.is_some() || m.directions.is_some();
    if !exact && m.velocities.len() != n {
        return Err(ctx.invalid(
            context,
            format!("{} velocities for {n} particles", m.velocities.len()),
        ));
    }
    let size_changes = match &m.size_changes {
        Some(c) if c.len() != n => {
            return Err(ctx.invalid(
                context,
                format!("{} size changes for {n} particles", c.len()),
            ))
        }
        Some(c) => c.iter().map(|x| x.get()).collect(),
        None => vec![0.0; n],
    };
    let (speeds, axes) = speeds_and_axes(
        ctx,
        context,
        (!m.velocities.is_empty() || !exact).then_some(m.velocities.as_slice()),
        m.speeds.as_deref(),
        m.directions.as_deref(),
        ["velocity", "velocities", "speeds", "directions"],
        n,
        "particles",
        "particle linear axis",
    )?;
    let bounds = m.bounds.as_ref().map(|[lo, hi]| (v3(lo), v3(hi)));
    let timing = motion_timing(m.phase, m.frequency, m.active).map_err(&err)?;
    ParticleController::with_unit_axes(
        timing,
        system.clone(),
        speeds,
        axes,
        size_changes,
        m.size_adjust_change.map_or(0.0, Real::get),
        bounds,
    )
    .map_err(&err)
}

/// The particle `motion` document of a particle controller (the exact form).
pub(super) fn particle_motion_doc(
    c: &ParticleController,
) -> Result<ParticleMotionDoc, &'static str> {
    let (phase, frequency, active) = motion_timing_doc(c.timing())?;
    let r3 = |v: &Vec3| [Real::lit(v.x), Real::lit(v.y), Real::lit(v.z)];
    let (speeds, directions) = c.linear();
    let sizes = c.size_changes();
    let change = c.system_size_change();
    Ok(ParticleMotionDoc {
        velocities: Vec::new(),
        speeds: Some(speeds.iter().map(|&s| Real::lit(s)).collect()),
        directions: Some(directions.iter().map(r3).collect()),
        size_changes: sizes
            .iter()
            .any(|s| s.to_bits() != 0)
            .then(|| sizes.iter().map(|&s| Real::lit(s)).collect()),
        size_adjust_change: (change.to_bits() != 0).then(|| Real::lit(change)),
        bounds: c.bounds().map(|(lo, hi)| [r3(&lo), r3(&hi)]),
        phase,
        frequency,
        active,
    })
}

/// A `point_motion` controller over the mesh of geometry node `node` (see
/// `docs/scene-format.md`).
pub(super) fn point_motion(
    scene: &Scene,
    ctx: &Ctx,
    node: NodeId,
    m: &PointMotionDoc,
    context: &str,
) -> Result<PointController, IoError> {
    let err = ctx.scene_err(context);
    let mesh = scene.mesh(node).map_err(&err)?;
    let n = mesh.positions().len();
    let exact = m.speeds.is_some() || m.directions.is_some();
    if !exact && m.velocities.len() != n {
        return Err(ctx.invalid(
            context,
            format!("{} velocities for {n} vertices", m.velocities.len()),
        ));
    }
    let (speeds, axes) = speeds_and_axes(
        ctx,
        context,
        (!m.velocities.is_empty() || !exact).then_some(m.velocities.as_slice()),
        m.speeds.as_deref(),
        m.directions.as_deref(),
        ["velocity", "velocities", "speeds", "directions"],
        n,
        "vertices",
        "point linear axis",
    )?;
    if let Some(s) = m.spins.as_ref().filter(|s| s.len() != n) {
        return Err(ctx.invalid(context, format!("{} spins for {n} vertices", s.len())));
    }
    let (degrees, turn_axes) = speeds_and_axes(
        ctx,
        context,
        m.spins.as_deref(),
        m.angular_speeds.as_deref(),
        m.angular_axes.as_deref(),
        ["spin", "spins", "angular_speeds", "angular_axes"],
        n,
        "vertices",
        "point angular axis",
    )?;
    let turns = if m.angular_speeds.is_some() {
        degrees
    } else {
        degrees.into_iter().map(math::to_radians).collect()
    };
    let timing = motion_timing(m.phase, m.frequency, m.active).map_err(&err)?;
    PointController::with_unit_axes(timing, mesh, speeds, axes, turns, turn_axes).map_err(&err)
}

/// The `point_motion` document of a point controller (the exact form).
pub(super) fn point_motion_doc(c: &PointController) -> Result<PointMotionDoc, &'static str> {
    let (phase, frequency, active) = motion_timing_doc(c.timing())?;
    let r3 = |v: &Vec3| [Real::lit(v.x), Real::lit(v.y), Real::lit(v.z)];
    let (speeds, directions) = c.linear();
    let (turns, turn_axes) = c.angular();
    Ok(PointMotionDoc {
        velocities: Vec::new(),
        speeds: Some(speeds.iter().map(|&s| Real::lit(s)).collect()),
        directions: Some(directions.iter().map(r3).collect()),
        spins: None,
        angular_speeds: Some(turns.iter().map(|&s| Real::lit(s)).collect()),
        angular_axes: Some(turn_axes.iter().map(r3).collect()),
        phase,
        frequency,
        active,
    })
}
