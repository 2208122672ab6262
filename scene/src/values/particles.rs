//! Points and particles (Eberly's `Particles`, `PointController`, `ParticleController`;
//! book-advanced §1.2 and §1.15).
//!
//! # Particles
//!
//! A [`Particles`] system holds locations `C`, sizes `σ`, a size adjustment `α` (a multiplier
//! of every size, default 1), an **active count** (only the first `active` particles are drawn)
//! and optional per-particle colours. It is drawn as camera-facing squares: with the camera's
//! world right, up and view directions `R, U, D` taken into the system's local space by the
//! transpose of its world rotation (`R′ = Rᵀ·R`, …; scale and translation are not used), each
//! particle becomes the four corners (book L8640ff)
//!
//! ```text
//! V0 = C − ασ(U′ − R′)    V1 = C + ασ(U′ + R′)
//! V2 = C + ασ(U′ − R′)    V3 = C − ασ(U′ + R′)
//! ```
//!
//! with normals `−D′` and triangles `⟨0, 1, 2⟩, ⟨0, 2, 3⟩` (counter-clockwise seen from the
//! camera), per-particle colours copied to its four corners and uvs `(1, 0), (1, 1), (0, 1),
//! (0, 0)` (right-bottom, right-top, left-top, left-bottom). [`Particles::quads`] builds that
//! mesh; the scene rebuilds it for the camera of every [`Scene::draw`](crate::Scene::draw)
//! (see [`motion`](crate::graph::motion)).
//!
//! # Motion
//!
//! The book's controllers add `speed · control time` to the current state at every update,
//! so a frame depends on the history of updates. Here every motion is a **closed form** of
//! the controller time `t꜀` ([`ControllerTiming`]) and a rest state captured when the
//! controller is made, so a frame at time `t` is the same bytes whatever came before and
//! however many threads run:
//!
//! * **System motion** ([`SystemMotion`], a transform [`Controller`]): the local translation
//!   is `T₀ + (v·t꜀)·A` and the local rotation `Rot(B, ω·t꜀)·R₀` (linear speed `v` along unit
//!   axis `A`, angular speed `ω` in radians per second about unit axis `B`).
//! * **Point motion** ([`PointController`], a [`MeshController`] of a point mesh): vertex `i`
//!   is `Pᵢ + (vᵢ·t꜀)·Aᵢ`, its normal `Rot(Bᵢ, ωᵢ·t꜀)·Nᵢ`.
//! * **Particle motion** ([`ParticleController`], no angular motion — particles are
//!   billboards): location `i` is `Cᵢ + (vᵢ·t꜀)·Aᵢ`, folded back into an optional box (it
//!   bounces off the walls: a triangle wave per coordinate); size `σᵢ + sᵢ·t꜀` (never below
//!   0); the size adjustment `α + s·t꜀` (the system size change, never below 0).
//!
//! The book's samples move points randomly inside a cube. [`ParticleController::random`]
//! draws every speed, axis, start point, size and colour from a **seeded** generator
//! ([`SplitMix64`]), so the same seed gives the same system on every run and platform.

use glam::{Mat3, Vec2, Vec3, Vec4};

use crate::values::controller::{Controller, ControllerTiming, MeshController};
use crate::values::error::SceneError;
use crate::values::mesh::Mesh;
use crate::values::transform::{rotation_axis_angle, Transform};

/// The most particles a system may hold (the quads then have 4 times as many vertices).
pub const MAX_PARTICLES: usize = 1 << 20;

fn invalid(what: &'static str, message: String) -> SceneError {
    SceneError::InvalidArgument { what, message }
}

/// A small, seeded, platform-independent generator (Steele, Lea and Flood's SplitMix64).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    /// A generator starting from `seed`.
    pub fn new(seed: u64) -> Self {
        SplitMix64 { state: seed }
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A uniform `f32` in `[0, 1)` (24 random bits).
    pub fn next_f32(&mut self) -> f32 {
        (self.next_u64() >> 40) as f32 * (1.0 / (1u64 << 24) as f32)
    }

    /// A uniform `f32` in `[lo, hi)`.
    pub fn range(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * self.next_f32()
    }

    /// A unit vector, uniform on the sphere (rejection from the cube, so no trigonometry).
    pub fn unit_vector(&mut self) -> Vec3 {
        loop {
            let v = Vec3::new(
                self.range(-1.0, 1.0),
                self.range(-1.0, 1.0),
                self.range(-1.0, 1.0),
            );
            let len2 = v.length_squared();
            if len2 > 1e-4 && len2 <= 1.0 {
                return v / len2.sqrt();
            }
        }
    }
}

/// A particle system (see the [module docs](self)).
#[derive(Debug, Clone, PartialEq)]
pub struct Particles {
    locations: Vec<Vec3>,
    sizes: Vec<f32>,
    size_adjust: f32,
    active: usize,
    colors: Option<Vec<Vec4>>,
}

impl Particles {
    /// Particles at `locations` with one size each, all active, size adjustment 1.
    ///
    /// # Errors
    /// [`SceneError::AttributeLength`] when the counts differ, [`SceneError::NonFinite`] for
    /// a non-finite location or size, [`SceneError::InvalidArgument`] for a negative size or
    /// more than [`MAX_PARTICLES`] particles.
    pub fn new(locations: Vec<Vec3>, sizes: Vec<f32>) -> Result<Self, SceneError> {
        if locations.len() > MAX_PARTICLES {
            return Err(invalid(
                "particles",
                format!("{} particles (at most {MAX_PARTICLES})", locations.len()),
            ));
        }
        if sizes.len() != locations.len() {
            return Err(SceneError::AttributeLength {
                attribute: "particle sizes",
                expected: locations.len(),
                actual: sizes.len(),
            });
        }
        if locations.iter().any(|p| !p.is_finite()) {
            return Err(SceneError::NonFinite {
                what: "particle locations",
            });
        }
        check_sizes(&sizes)?;
        let active = locations.len();
        Ok(Particles {
            locations,
            sizes,
            size_adjust: 1.0,
            active,
            colors: None,
        })
    }

    /// `self` with one colour per particle (copied to its four corners).
    ///
    /// # Errors
    /// [`SceneError::AttributeLength`], [`SceneError::NonFinite`].
    pub fn with_colors(mut self, colors: Vec<Vec4>) -> Result<Self, SceneError> {
        if colors.len() != self.locations.len() {
            return Err(SceneError::AttributeLength {
                attribute: "particle colors",
                expected: self.locations.len(),
                actual: colors.len(),
            });
        }
        if colors.iter().any(|c| !c.is_finite()) {
            return Err(SceneError::NonFinite {
                what: "particle colors",
            });
        }
        self.colors = Some(colors);
        Ok(self)
    }

    /// `self` with another size adjustment `α`.
    ///
    /// # Errors
    /// As [`Particles::set_size_adjust`].
    pub fn with_size_adjust(mut self, alpha: f32) -> Result<Self, SceneError> {
        self.set_size_adjust(alpha)?;
        Ok(self)
    }

    /// `self` with another active count.
    ///
    /// # Errors
    /// As [`Particles::set_active`].
    pub fn with_active(mut self, active: usize) -> Result<Self, SceneError> {
        self.set_active(active)?;
        Ok(self)
    }

    /// The locations (all of them, active or not).
    pub fn locations(&self) -> &[Vec3] {
        &self.locations
    }

    /// The sizes `σ` (half the side of each square before adjustment).
    pub fn sizes(&self) -> &[f32] {
        &self.sizes
    }

    /// The per-particle colours, if any.
    pub fn colors(&self) -> Option<&[Vec4]> {
        self.colors.as_deref()
    }

    /// The size adjustment `α`.
    pub fn size_adjust(&self) -> f32 {
        self.size_adjust
    }

    /// How many particles (from the first) are drawn.
    pub fn active(&self) -> usize {
        self.active
    }

    /// Number of particles, active or not.
    pub fn len(&self) -> usize {
        self.locations.len()
    }

    /// Whether the system holds no particle.
    pub fn is_empty(&self) -> bool {
        self.locations.is_empty()
    }

    /// Sets the size adjustment.
    ///
    /// # Errors
    /// [`SceneError::NonFinite`], or [`SceneError::InvalidArgument`] when negative.
    pub fn set_size_adjust(&mut self, alpha: f32) -> Result<(), SceneError> {
        if !alpha.is_finite() {
            return Err(SceneError::NonFinite {
                what: "particle size adjustment",
            });
        }
        if alpha < 0.0 {
            return Err(invalid(
                "particle size adjustment",
                format!("{alpha} is negative"),
            ));
        }
        self.size_adjust = alpha;
        Ok(())
    }

    /// Sets how many particles are drawn.
    ///
    /// # Errors
    /// [`SceneError::InvalidArgument`] when more than the particle count.
    pub fn set_active(&mut self, active: usize) -> Result<(), SceneError> {
        if active > self.locations.len() {
            return Err(invalid(
                "particle active count",
                format!("{active} active of {} particles", self.locations.len()),
            ));
        }
        self.active = active;
        Ok(())
    }

    /// Replaces locations and sizes (same count; the active count and colours stay).
    ///
    /// # Errors
    /// As [`Particles::new`], and [`SceneError::AttributeLength`] for another count.
    pub fn set_locations_and_sizes(
        &mut self,
        locations: Vec<Vec3>,
        sizes: Vec<f32>,
    ) -> Result<(), SceneError> {
        if locations.len() != self.locations.len() {
            return Err(SceneError::AttributeLength {
                attribute: "particle locations",
                expected: self.locations.len(),
                actual: locations.len(),
            });
        }
        let fresh = Particles::new(locations, sizes)?;
        self.locations = fresh.locations;
        self.sizes = fresh.sizes;
        Ok(())
    }

    /// The four corners of particle `i` for camera axes `right`, `up` already in the system's
    /// local space (`R′`, `U′`), in the order `V0 … V3` of the [module docs](self).
    pub fn corners(&self, i: usize, right: Vec3, up: Vec3) -> Option<[Vec3; 4]> {
        let c = *self.locations.get(i)?;
        let k = self.size_adjust * self.sizes[i];
        let (upr, umr) = (up + right, up - right);
        Some([c - k * umr, c + k * upr, c + k * umr, c - k * upr])
    }

    /// The quad mesh of the active particles for a camera with world axes `right`, `up`,
    /// `direction`, seen by a system whose world rotation (scale removed) is `rotation`
    /// (see the [module docs](self)).
    ///
    /// # Errors
    /// [`SceneError::NonFinite`] when the corners overflow.
    pub fn quads(
        &self,
        rotation: Mat3,
        right: Vec3,
        up: Vec3,
        direction: Vec3,
    ) -> Result<Mesh, SceneError> {
        let rt = rotation.transpose();
        let (r, u, d) = (rt * right, rt * up, rt * direction);
        let n = self.active;
        let mut positions = Vec::with_capacity(4 * n);
        let mut indices = Vec::with_capacity(6 * n);
        let mut uvs = Vec::with_capacity(4 * n);
        for i in 0..n {
            if let Some(c) = self.corners(i, r, u) {
                positions.extend_from_slice(&c);
            }
            let b = (4 * i) as u32;
            indices.extend_from_slice(&[b, b + 1, b + 2, b, b + 2, b + 3]);
            uvs.extend_from_slice(&[
                Vec2::new(1.0, 0.0),
                Vec2::new(1.0, 1.0),
                Vec2::new(0.0, 1.0),
                Vec2::new(0.0, 0.0),
            ]);
        }
        let mut mesh = Mesh::triangles(positions, indices)?
            .with_normals(vec![-d; 4 * n])?
            .with_uv_set(uvs)?;
        if let Some(colors) = &self.colors {
            let quad: Vec<Vec4> = colors[..n].iter().flat_map(|&c| [c; 4]).collect();
            mesh = mesh.with_colors(quad)?;
        }
        Ok(mesh)
    }
}

fn check_sizes(sizes: &[f32]) -> Result<(), SceneError> {
    if sizes.iter().any(|s| !s.is_finite()) {
        return Err(SceneError::NonFinite {
            what: "particle sizes",
        });
    }
    if let Some(s) = sizes.iter().find(|&&s| s < 0.0) {
        return Err(invalid("particle sizes", format!("size {s} is negative")));
    }
    Ok(())
}

/// A unit axis, or an error naming `what`.
pub(crate) fn unit_axis(axis: Vec3, what: &'static str) -> Result<Vec3, SceneError> {
    if !axis.is_finite() {
        return Err(SceneError::NonFinite { what });
    }
    let len = axis.length();
    if !len.is_finite() || len <= 1e-12 {
        return Err(SceneError::ZeroRotation(what));
    }
    Ok(axis / len)
}

/// How far from 1 the length of an axis given as unit ([`SystemMotion::with_unit_axes`] and
/// the other `with_unit_axes`) may be.
pub const UNIT_AXIS_TOLERANCE: f32 = 1e-5;

/// `axis` itself, bit for bit, when it is of unit length (within [`UNIT_AXIS_TOLERANCE`]);
/// else an error naming `what`.
fn given_unit_axis(axis: Vec3, what: &'static str) -> Result<Vec3, SceneError> {
    if !axis.is_finite() {
        return Err(SceneError::NonFinite { what });
    }
    let len = axis.length();
    if !len.is_finite() || len <= 1e-12 {
        return Err(SceneError::ZeroRotation(what));
    }
    if (len - 1.0).abs() > UNIT_AXIS_TOLERANCE {
        return Err(invalid(
            what,
            format!("axis {axis} is not of unit length (length {len})"),
        ));
    }
    Ok(axis)
}

/// The axes normalized ([`unit_axis`]) or, `exact`, kept as given ([`given_unit_axis`]).
fn axes(axes: Vec<Vec3>, exact: bool, what: &'static str) -> Result<Vec<Vec3>, SceneError> {
    axes.into_iter()
        .map(|a| {
            if exact {
                given_unit_axis(a, what)
            } else {
                unit_axis(a, what)
            }
        })
        .collect()
}

fn check_finite(values: &[f32], what: &'static str) -> Result<(), SceneError> {
    if values.iter().any(|v| !v.is_finite()) {
        return Err(SceneError::NonFinite { what });
    }
    Ok(())
}

/// `x` folded into `[lo, hi]` as a ball bouncing between the walls (a triangle wave).
fn bounce(x: f32, lo: f32, hi: f32) -> f32 {
    let w = f64::from(hi) - f64::from(lo);
    if w <= 0.0 {
        return lo;
    }
    let u = (f64::from(x) - f64::from(lo)).rem_euclid(2.0 * w);
    let u = if u > w { 2.0 * w - u } else { u };
    (f64::from(lo) + u) as f32
}

/// The motion of a whole point or particle system: it moves the node's local transform (see
/// the [module docs](self)). A transform [`Controller`].
#[derive(Debug, Clone, PartialEq)]
pub struct SystemMotion {
    timing: ControllerTiming,
    rest: Transform,
    linear_speed: f32,
    linear_axis: Vec3,
    angular_speed: f32,
    angular_axis: Vec3,
}

impl SystemMotion {
    /// A motion from the rest transform `rest` (the node's local transform at control time 0):
    /// `linear_speed` units per second along `linear_axis`, `angular_speed` radians per second
    /// about `angular_axis` (axes are normalized).
    ///
    /// # Errors
    /// [`SceneError::NonFinite`], or [`SceneError::ZeroRotation`] for a zero axis.
    pub fn new(
        timing: ControllerTiming,
        rest: Transform,
        linear_speed: f32,
        linear_axis: Vec3,
        angular_speed: f32,
        angular_axis: Vec3,
    ) -> Result<Self, SceneError> {
        let linear_axis = unit_axis(linear_axis, "system linear axis")?;
        let angular_axis = unit_axis(angular_axis, "system angular axis")?;
        Self::with_unit_axes(
            timing,
            rest,
            linear_speed,
            linear_axis,
            angular_speed,
            angular_axis,
        )
    }

    /// As [`SystemMotion::new`], but the axes are kept bit for bit: each must already be of
    /// unit length (within [`UNIT_AXIS_TOLERANCE`]). This is the exact state the accessors
    /// give back, so a motion rebuilt from them is the same motion.
    ///
    /// # Errors
    /// [`SceneError::NonFinite`], [`SceneError::ZeroRotation`] for a zero axis,
    /// [`SceneError::InvalidArgument`] for an axis of another length.
    pub fn with_unit_axes(
        timing: ControllerTiming,
        rest: Transform,
        linear_speed: f32,
        linear_axis: Vec3,
        angular_speed: f32,
        angular_axis: Vec3,
    ) -> Result<Self, SceneError> {
        check_finite(&[linear_speed, angular_speed], "system speed")?;
        if !rest.is_finite() {
            return Err(SceneError::NonFinite {
                what: "system rest transform",
            });
        }
        Ok(SystemMotion {
            timing,
            rest,
            linear_speed,
            linear_axis: given_unit_axis(linear_axis, "system linear axis")?,
            angular_speed,
            angular_axis: given_unit_axis(angular_axis, "system angular axis")?,
        })
    }

    /// The time mapping and active flag.
    pub fn timing(&self) -> &ControllerTiming {
        &self.timing
    }

    /// The local transform at control time 0.
    pub fn rest(&self) -> &Transform {
        &self.rest
    }

    /// The linear speed `v` (units per second) and unit axis `A`.
    pub fn linear(&self) -> (f32, Vec3) {
        (self.linear_speed, self.linear_axis)
    }

    /// The angular speed `ω` (radians per second) and unit axis `B`.
    pub fn angular(&self) -> (f32, Vec3) {
        (self.angular_speed, self.angular_axis)
    }

    /// The local transform at application time `app_time` (`None` when inactive or when the
    /// result is not a valid transform).
    pub fn local_at(&self, app_time: f64) -> Option<Transform> {
        if !self.timing.active() {
            return None;
        }
        let t = self.timing.control_time(app_time);
        let distance = (f64::from(self.linear_speed) * t) as f32;
        let angle = (f64::from(self.angular_speed) * t).rem_euclid(std::f64::consts::TAU) as f32;
        let rot = rotation_axis_angle(self.angular_axis, angle).ok()?;
        let base = self.rest.rotation().unwrap_or(Mat3::IDENTITY);
        self.rest
            .with_rotation(rot * base)
            .ok()?
            .with_translation(self.rest.translation() + distance * self.linear_axis)
            .ok()
    }
}

impl Controller for SystemMotion {
    fn update(&mut self, time: f64, _local: &Transform) -> Option<Transform> {
        self.local_at(time)
    }

    fn describe(&self) -> String {
        format!(
            "motion: {} /s along ({}, {}, {}), {} rad/s about ({}, {}, {}); {}",
            self.linear_speed,
            self.linear_axis.x,
            self.linear_axis.y,
            self.linear_axis.z,
            self.angular_speed,
            self.angular_axis.x,
            self.angular_axis.y,
            self.angular_axis.z,
            self.timing
        )
    }

    fn as_any(&self) -> Option<&dyn std::any::Any> {
        Some(self)
    }
}

/// Per-point motion of a point mesh (Eberly's `PointController` point motion; see the
/// [module docs](self)). A [`MeshController`]: attach it to a geometry leaf with
/// [`Scene::add_mesh_controller`](crate::Scene::add_mesh_controller), and the system part
/// ([`SystemMotion`]) with [`Scene::add_controller`](crate::Scene::add_controller).
#[derive(Debug, Clone, PartialEq)]
pub struct PointController {
    timing: ControllerTiming,
    rest: Vec<Vec3>,
    rest_normals: Option<Vec<Vec3>>,
    linear_speed: Vec<f32>,
    linear_axis: Vec<Vec3>,
    angular_speed: Vec<f32>,
    angular_axis: Vec<Vec3>,
}

impl PointController {
    /// Point motion of `mesh` (its positions and normals are the rest state), one linear
    /// speed and axis and one angular speed (radians per second) and axis per vertex.
    ///
    /// # Errors
    /// [`SceneError::AttributeLength`] for arrays of another length than the vertex count,
    /// [`SceneError::NonFinite`], [`SceneError::ZeroRotation`] for a zero axis.
    pub fn new(
        timing: ControllerTiming,
        mesh: &Mesh,
        linear_speed: Vec<f32>,
        linear_axis: Vec<Vec3>,
        angular_speed: Vec<f32>,
        angular_axis: Vec<Vec3>,
    ) -> Result<Self, SceneError> {
        Self::build(
            timing,
            mesh,
            [linear_speed, angular_speed],
            [linear_axis, angular_axis],
            false,
        )
    }

    /// As [`PointController::new`], but the axes are kept bit for bit: each must already be of
    /// unit length (within [`UNIT_AXIS_TOLERANCE`]), so a controller rebuilt from the
    /// accessors is the same controller.
    ///
    /// # Errors
    /// As [`PointController::new`]; [`SceneError::InvalidArgument`] for an axis of another
    /// length.
    pub fn with_unit_axes(
        timing: ControllerTiming,
        mesh: &Mesh,
        linear_speed: Vec<f32>,
        linear_axis: Vec<Vec3>,
        angular_speed: Vec<f32>,
        angular_axis: Vec<Vec3>,
    ) -> Result<Self, SceneError> {
        Self::build(
            timing,
            mesh,
            [linear_speed, angular_speed],
            [linear_axis, angular_axis],
            true,
        )
    }

    fn build(
        timing: ControllerTiming,
        mesh: &Mesh,
        [linear_speed, angular_speed]: [Vec<f32>; 2],
        [linear_axis, angular_axis]: [Vec<Vec3>; 2],
        exact: bool,
    ) -> Result<Self, SceneError> {
        let n = mesh.positions().len();
        for (attribute, len) in [
            ("point linear speeds", linear_speed.len()),
            ("point linear axes", linear_axis.len()),
            ("point angular speeds", angular_speed.len()),
            ("point angular axes", angular_axis.len()),
        ] {
            if len != n {
                return Err(SceneError::AttributeLength {
                    attribute,
                    expected: n,
                    actual: len,
                });
            }
        }
        check_finite(&linear_speed, "point linear speeds")?;
        check_finite(&angular_speed, "point angular speeds")?;
        let linear_axis = axes(linear_axis, exact, "point linear axis")?;
        let angular_axis = axes(angular_axis, exact, "point angular axis")?;
        Ok(PointController {
            timing,
            rest: mesh.positions().to_vec(),
            rest_normals: mesh.normals().map(<[Vec3]>::to_vec),
            linear_speed,
            linear_axis,
            angular_speed,
            angular_axis,
        })
    }

    /// The time mapping and active flag.
    pub fn timing(&self) -> &ControllerTiming {
        &self.timing
    }

    /// The rest positions and normals (the mesh's when the controller was made).
    pub fn rest(&self) -> (&[Vec3], Option<&[Vec3]>) {
        (&self.rest, self.rest_normals.as_deref())
    }

    /// The per-vertex linear speeds (units per second) and unit axes.
    pub fn linear(&self) -> (&[f32], &[Vec3]) {
        (&self.linear_speed, &self.linear_axis)
    }

    /// The per-vertex angular speeds of the normals (radians per second) and unit axes.
    pub fn angular(&self) -> (&[f32], &[Vec3]) {
        (&self.angular_speed, &self.angular_axis)
    }

    /// The positions and normals (if the rest mesh had them) at application time `app_time`.
    pub fn points_at(&self, app_time: f64) -> (Vec<Vec3>, Option<Vec<Vec3>>) {
        let t = self.timing.control_time(app_time);
        let positions = self
            .rest
            .iter()
            .zip(self.linear_speed.iter().zip(&self.linear_axis))
            .map(|(p, (&v, &a))| *p + ((f64::from(v) * t) as f32) * a)
            .collect();
        let normals = self.rest_normals.as_ref().map(|ns| {
            ns.iter()
                .enumerate()
                .map(|(i, n)| {
                    let angle = (f64::from(self.angular_speed[i]) * t)
                        .rem_euclid(std::f64::consts::TAU) as f32;
                    rotation_axis_angle(self.angular_axis[i], angle).map_or(*n, |r| r * *n)
                })
                .collect()
        });
        (positions, normals)
    }
}

impl MeshController for PointController {
    fn check(&self, mesh: &Mesh) -> Result<(), SceneError> {
        if mesh.positions().len() == self.rest.len() {
            Ok(())
        } else {
            Err(SceneError::AttributeLength {
                attribute: "point motion",
                expected: mesh.positions().len(),
                actual: self.rest.len(),
            })
        }
    }

    fn update(&mut self, time: f64, mesh: &Mesh, _bones: &[Transform]) -> Option<Mesh> {
        if !self.timing.active() || mesh.positions().len() != self.rest.len() {
            return None;
        }
        let (positions, normals) = self.points_at(time);
        let mut out = Mesh::new(mesh.topology(), positions, mesh.indices().to_vec()).ok()?;
        if let Some(n) = normals.or_else(|| mesh.normals().map(<[Vec3]>::to_vec)) {
            out = out.with_normals(n).ok()?;
        }
        if let Some(c) = mesh.colors() {
            out = out.with_colors(c.to_vec()).ok()?;
        }
        for set in mesh.uv_sets() {
            out = out.with_uv_set(set.clone()).ok()?;
        }
        Some(out)
    }

    fn describe(&self) -> String {
        format!("point motion: {} points; {}", self.rest.len(), self.timing)
    }

    fn as_any(&self) -> Option<&dyn std::any::Any> {
        Some(self)
    }
}

/// Per-particle motion (Eberly's `ParticleController` point motion and size changes; see the
/// [module docs](self)). Attach it with
/// [`Scene::add_particle_controller`](crate::Scene::add_particle_controller).
#[derive(Debug, Clone, PartialEq)]
pub struct ParticleController {
    timing: ControllerTiming,
    rest: Particles,
    linear_speed: Vec<f32>,
    linear_axis: Vec<Vec3>,
    size_change: Vec<f32>,
    system_size_change: f32,
    bounds: Option<(Vec3, Vec3)>,
}

/// The parameters of [`ParticleController::random`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RandomParticles {
    /// The generator's seed.
    pub seed: u64,
    /// Number of particles (at most [`MAX_PARTICLES`]).
    pub count: usize,
    /// Half the side of the cube `[−h, h]³` centred on the origin that the particles start
    /// in and bounce inside.
    pub half_extent: f32,
    /// Sizes are uniform in `[min, max)`.
    pub size: (f32, f32),
    /// Speeds are uniform in `[min, max)`, each along a uniform random direction.
    pub speed: (f32, f32),
    /// Colours are uniform per channel between these two (alpha included).
    pub color: (Vec4, Vec4),
}

impl ParticleController {
    /// Particle motion from the rest system `rest`: one linear speed and axis and one size
    /// change (units per second) per particle, the system size change, and an optional box
    /// `(min, max)` the particles bounce inside.
    ///
    /// # Errors
    /// [`SceneError::AttributeLength`], [`SceneError::NonFinite`],
    /// [`SceneError::ZeroRotation`] for a zero axis, [`SceneError::InvalidArgument`] for a box
    /// with `max < min`.
    pub fn new(
        timing: ControllerTiming,
        rest: Particles,
        linear_speed: Vec<f32>,
        linear_axis: Vec<Vec3>,
        size_change: Vec<f32>,
        system_size_change: f32,
        bounds: Option<(Vec3, Vec3)>,
    ) -> Result<Self, SceneError> {
        let linear_axis = axes(linear_axis, false, "particle linear axis")?;
        Self::with_unit_axes(
            timing,
            rest,
            linear_speed,
            linear_axis,
            size_change,
            system_size_change,
            bounds,
        )
    }

    /// As [`ParticleController::new`], but the axes are kept bit for bit: each must already
    /// be of unit length (within [`UNIT_AXIS_TOLERANCE`]), so a controller rebuilt from the
    /// accessors is the same controller.
    ///
    /// # Errors
    /// As [`ParticleController::new`]; [`SceneError::InvalidArgument`] for an axis of another
    /// length.
    pub fn with_unit_axes(
        timing: ControllerTiming,
        rest: Particles,
        linear_speed: Vec<f32>,
        linear_axis: Vec<Vec3>,
        size_change: Vec<f32>,
        system_size_change: f32,
        bounds: Option<(Vec3, Vec3)>,
    ) -> Result<Self, SceneError> {
        let n = rest.len();
        for (attribute, len) in [
            ("particle linear speeds", linear_speed.len()),
            ("particle linear axes", linear_axis.len()),
            ("particle size changes", size_change.len()),
        ] {
            if len != n {
                return Err(SceneError::AttributeLength {
                    attribute,
                    expected: n,
                    actual: len,
                });
            }
        }
        check_finite(&linear_speed, "particle linear speeds")?;
        check_finite(&size_change, "particle size changes")?;
        check_finite(&[system_size_change], "particle system size change")?;
        let linear_axis = axes(linear_axis, true, "particle linear axis")?;
        if let Some((lo, hi)) = bounds {
            if !lo.is_finite() || !hi.is_finite() {
                return Err(SceneError::NonFinite {
                    what: "particle box",
                });
            }
            if hi.cmplt(lo).any() {
                return Err(invalid(
                    "particle box",
                    format!("max {hi} is below min {lo}"),
                ));
            }
        }
        Ok(ParticleController {
            timing,
            rest,
            linear_speed,
            linear_axis,
            size_change,
            system_size_change,
            bounds,
        })
    }

    /// A random system and its motion from a seed (see [`RandomParticles`]): for each
    /// particle in order, its location (x, y, z), size, speed, direction and colour (r, g, b,
    /// a) are drawn in that order; sizes do not change.
    ///
    /// # Errors
    /// [`SceneError::InvalidArgument`] for more than [`MAX_PARTICLES`] particles, a negative
    /// half extent or size; [`SceneError::NonFinite`].
    pub fn random(timing: ControllerTiming, p: &RandomParticles) -> Result<Self, SceneError> {
        if p.count > MAX_PARTICLES {
            return Err(invalid(
                "particles",
                format!("{} particles (at most {MAX_PARTICLES})", p.count),
            ));
        }
        check_finite(
            &[p.half_extent, p.size.0, p.size.1, p.speed.0, p.speed.1],
            "random particles",
        )?;
        if !p.color.0.is_finite() || !p.color.1.is_finite() {
            return Err(SceneError::NonFinite {
                what: "random particles",
            });
        }
        if p.half_extent < 0.0 {
            return Err(invalid(
                "random particles",
                format!("half extent {} is negative", p.half_extent),
            ));
        }
        let h = p.half_extent;
        let mut rng = SplitMix64::new(p.seed);
        let n = p.count;
        let (mut locations, mut sizes, mut speeds, mut axes, mut colors) = (
            Vec::with_capacity(n),
            Vec::with_capacity(n),
            Vec::with_capacity(n),
            Vec::with_capacity(n),
            Vec::with_capacity(n),
        );
        for _ in 0..n {
            let x = rng.range(-h, h);
            let y = rng.range(-h, h);
            let z = rng.range(-h, h);
            locations.push(Vec3::new(x, y, z));
            sizes.push(rng.range(p.size.0, p.size.1));
            speeds.push(rng.range(p.speed.0, p.speed.1));
            axes.push(rng.unit_vector());
            let (c0, c1) = p.color;
            let r = rng.range(c0.x, c1.x);
            let g = rng.range(c0.y, c1.y);
            let b = rng.range(c0.z, c1.z);
            let a = rng.range(c0.w, c1.w);
            colors.push(Vec4::new(r, g, b, a));
        }
        let rest = Particles::new(locations, sizes)?.with_colors(colors)?;
        ParticleController::new(
            timing,
            rest,
            speeds,
            axes,
            vec![0.0; n],
            0.0,
            Some((Vec3::splat(-h), Vec3::splat(h))),
        )
    }

    /// The rest system (at control time 0).
    pub fn rest(&self) -> &Particles {
        &self.rest
    }

    /// Replaces the rest system (same particle count): its locations, sizes and size
    /// adjustment are where the motion starts.
    ///
    /// # Errors
    /// [`SceneError::AttributeLength`] for another count.
    pub fn set_rest(&mut self, rest: Particles) -> Result<(), SceneError> {
        if rest.len() != self.rest.len() {
            return Err(SceneError::AttributeLength {
                attribute: "particle controller rest system",
                expected: self.rest.len(),
                actual: rest.len(),
            });
        }
        self.rest = rest;
        Ok(())
    }

    /// The time mapping and active flag.
    pub fn timing(&self) -> &ControllerTiming {
        &self.timing
    }

    /// The per-particle linear speeds (units per second) and unit axes.
    pub fn linear(&self) -> (&[f32], &[Vec3]) {
        (&self.linear_speed, &self.linear_axis)
    }

    /// The per-particle size changes (units per second).
    pub fn size_changes(&self) -> &[f32] {
        &self.size_change
    }

    /// The change of the size adjustment per second.
    pub fn system_size_change(&self) -> f32 {
        self.system_size_change
    }

    /// The box `(min, max)` the particles bounce inside, if any.
    pub fn bounds(&self) -> Option<(Vec3, Vec3)> {
        self.bounds
    }

    /// The system at application time `app_time`: the rest system with moved locations,
    /// changed sizes and size adjustment (active count and colours as `current`'s).
    pub fn particles_at(&self, app_time: f64, current: &Particles) -> Option<Particles> {
        if !self.timing.active() || current.len() != self.rest.len() {
            return None;
        }
        let t = self.timing.control_time(app_time);
        let scaled = |rate: f32| (f64::from(rate) * t) as f32;
        let locations = self
            .rest
            .locations
            .iter()
            .zip(self.linear_speed.iter().zip(&self.linear_axis))
            .map(|(c, (&v, &a))| {
                let p = *c + scaled(v) * a;
                match self.bounds {
                    Some((lo, hi)) => Vec3::new(
                        bounce(p.x, lo.x, hi.x),
                        bounce(p.y, lo.y, hi.y),
                        bounce(p.z, lo.z, hi.z),
                    ),
                    None => p,
                }
            })
            .collect();
        let sizes = self
            .rest
            .sizes
            .iter()
            .zip(&self.size_change)
            .map(|(&s, &ds)| (s + scaled(ds)).max(0.0))
            .collect();
        let alpha = (self.rest.size_adjust + scaled(self.system_size_change)).max(0.0);
        let mut out = current.clone();
        out.set_locations_and_sizes(locations, sizes).ok()?;
        out.set_size_adjust(alpha).ok()?;
        Some(out)
    }
}

/// A particle system on a geometry leaf, as the scene stores it: the particles, their
/// controller, and the camera frame its quad mesh was last built for.
#[derive(Debug, Clone)]
pub(crate) struct ParticleLeaf {
    pub(crate) node: crate::values::id::NodeId,
    pub(crate) particles: Particles,
    pub(crate) controller: Option<ParticleController>,
    /// `[rotation columns…, right, up, direction]` of the last build.
    pub(crate) frame: Option<[Vec3; 6]>,
}

#[cfg(feature = "internal-tests")]
pub(crate) mod tests {
    /// Every test of this module: `tests/unit.rs` runs each as one trial (an unlisted
    /// test fails the build as dead code).
    pub(crate) const TESTS: &[(&str, fn())] = &[
        ("bounce_folds_into_the_box", bounce_folds_into_the_box),
        ("splitmix_known_values", splitmix_known_values),
    ];

    use super::*;

    fn bounce_folds_into_the_box() {
        assert_eq!(bounce(0.5, -1.0, 1.0), 0.5);
        assert_eq!(bounce(1.5, -1.0, 1.0), 0.5);
        assert_eq!(bounce(3.5, -1.0, 1.0), -0.5);
        assert_eq!(bounce(-1.5, -1.0, 1.0), -0.5);
        assert_eq!(bounce(7.0, 2.0, 2.0), 2.0);
    }

    fn splitmix_known_values() {
        // First outputs of SplitMix64 seeded with 0 (Vigna's reference implementation).
        let mut r = SplitMix64::new(0);
        assert_eq!(r.next_u64(), 0xE220_A839_7B1D_CDAF);
        assert_eq!(r.next_u64(), 0x6E78_9E6A_A1B9_65F4);
    }
}
