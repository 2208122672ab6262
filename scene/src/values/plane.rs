//! Planes `N·X = c` with a unit normal (Eberly's `Plane3`), and which-side classification.

use glam::Vec3;

use crate::values::error::SceneError;

/// Where something lies relative to a plane (Eberly's `WhichSide`: +1, −1, 0).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// Entirely on the side the normal points away from (`N·X − c ≤ −r`).
    Negative,
    /// Straddles the plane.
    Both,
    /// Entirely on the side the normal points to (`N·X − c ≥ r`).
    Positive,
}

/// The plane `normal · X = constant`, normal of unit length. The positive side is the side the
/// normal points to; culling planes point *into* the visible volume.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Plane {
    normal: Vec3,
    constant: f32,
}

impl Plane {
    /// The plane `normal · X = constant`; `normal` need not be unit length (both are divided by
    /// its length).
    ///
    /// # Errors
    /// [`SceneError::NonFinite`] or [`SceneError::DegeneratePlane`] for a zero normal.
    pub fn new(normal: Vec3, constant: f32) -> Result<Self, SceneError> {
        if !normal.is_finite() || !constant.is_finite() {
            return Err(SceneError::NonFinite { what: "plane" });
        }
        let len = normal.length();
        if len == 0.0 || !len.is_finite() {
            return Err(SceneError::DegeneratePlane);
        }
        let (normal, constant) = if len == 1.0 {
            (normal, constant)
        } else {
            (normal / len, constant / len)
        };
        if !constant.is_finite() {
            return Err(SceneError::NonFinite { what: "plane" });
        }
        Ok(Plane { normal, constant })
    }

    /// A plane from an already unit normal, without checks (internal: camera planes).
    pub(crate) fn from_raw(normal: Vec3, constant: f32) -> Plane {
        Plane { normal, constant }
    }

    /// The plane through `point` with the given normal.
    ///
    /// # Errors
    /// As [`Plane::new`].
    pub fn from_point_normal(point: Vec3, normal: Vec3) -> Result<Self, SceneError> {
        let len = normal.length();
        if len == 0.0 || !len.is_finite() {
            return Err(SceneError::DegeneratePlane);
        }
        let n = normal / len;
        Plane::new(n, n.dot(point))
    }

    /// Unit normal `N`.
    pub fn normal(&self) -> Vec3 {
        self.normal
    }

    /// Constant `c`.
    pub fn constant(&self) -> f32 {
        self.constant
    }

    /// Signed distance `N·p − c` (positive on the normal's side).
    #[inline]
    pub fn distance(&self, p: Vec3) -> f32 {
        self.normal.dot(p) - self.constant
    }

    /// Side of a point (exactly on the plane counts as [`Side::Both`]).
    pub fn which_side(&self, p: Vec3) -> Side {
        let d = self.distance(p);
        if d > 0.0 {
            Side::Positive
        } else if d < 0.0 {
            Side::Negative
        } else {
            Side::Both
        }
    }
}
