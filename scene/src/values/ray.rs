//! Rays and the ray–triangle test used by picking.

use glam::Vec3;

use crate::values::error::SceneError;

/// A ray `origin + t·direction`, `t ≥ 0`, with a unit direction (so `t` is a distance).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Ray {
    origin: Vec3,
    direction: Vec3,
}

impl Ray {
    /// A ray from `origin` along `direction` (normalized here).
    ///
    /// # Errors
    /// [`SceneError::NonFinite`] for NaN/inf input or a zero direction.
    pub fn new(origin: Vec3, direction: Vec3) -> Result<Self, SceneError> {
        let len = direction.length();
        if !origin.is_finite() || !direction.is_finite() || len == 0.0 || !len.is_finite() {
            return Err(SceneError::NonFinite { what: "ray" });
        }
        Ok(Ray {
            origin,
            direction: direction / len,
        })
    }

    /// Origin.
    pub fn origin(&self) -> Vec3 {
        self.origin
    }

    /// Unit direction.
    pub fn direction(&self) -> Vec3 {
        self.direction
    }

    /// The point at parameter (distance) `t`.
    pub fn at(&self, t: f32) -> Vec3 {
        self.origin + self.direction * t
    }
}

/// A ray–triangle hit: parameter `t` and barycentric weights `(b0, b1, b2)` of the vertices
/// (`point = b0·v0 + b1·v1 + b2·v2`, the weights sum to 1).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TriangleHit {
    /// Ray parameter of the hit (`t ≥ 0`).
    pub t: f32,
    /// Barycentric weights of `v0, v1, v2`.
    pub barycentric: [f32; 3],
}

/// Two-sided ray–triangle intersection (Möller–Trumbore; Eberly's linear-component/triangle
/// find). `direction` need not be unit length: `t` is in units of `direction`. Parallel or
/// degenerate triangles never hit. Edges and vertices count as hits.
pub fn intersect_triangle(
    origin: Vec3,
    direction: Vec3,
    v0: Vec3,
    v1: Vec3,
    v2: Vec3,
) -> Option<TriangleHit> {
    let e1 = v1 - v0;
    let e2 = v2 - v0;
    let p = direction.cross(e2);
    let det = e1.dot(p);
    if det == 0.0 || !det.is_finite() {
        return None;
    }
    let inv = 1.0 / det;
    let s = origin - v0;
    let b1 = s.dot(p) * inv;
    if !(0.0..=1.0).contains(&b1) {
        return None;
    }
    let q = s.cross(e1);
    let b2 = direction.dot(q) * inv;
    if b2 < 0.0 || b1 + b2 > 1.0 {
        return None;
    }
    let t = e2.dot(q) * inv;
    if t < 0.0 || !t.is_finite() {
        return None;
    }
    Some(TriangleHit {
        t,
        barycentric: [1.0 - b1 - b2, b1, b2],
    })
}

#[cfg(feature = "internal-tests")]
pub(crate) mod tests {
    /// Every test of this module: `tests/unit.rs` runs each as one trial (an unlisted
    /// test fails the build as dead code).
    pub(crate) const TESTS: &[(&str, fn())] = &[("hits_and_misses", hits_and_misses)];

    use super::*;

    fn hits_and_misses() {
        let (a, b, c) = (Vec3::ZERO, Vec3::X, Vec3::Y);
        let h = intersect_triangle(Vec3::new(0.25, 0.25, 2.0), -Vec3::Z, a, b, c).unwrap();
        assert_eq!(h.t, 2.0);
        assert_eq!(h.barycentric, [0.5, 0.25, 0.25]);
        // Back side hits too (two-sided).
        assert!(intersect_triangle(Vec3::new(0.25, 0.25, -2.0), Vec3::Z, a, b, c).is_some());
        // Behind the origin.
        assert!(intersect_triangle(Vec3::new(0.25, 0.25, 2.0), Vec3::Z, a, b, c).is_none());
        // Outside.
        assert!(intersect_triangle(Vec3::new(0.8, 0.8, 2.0), -Vec3::Z, a, b, c).is_none());
        // Parallel.
        assert!(intersect_triangle(Vec3::new(0.0, 0.0, 1.0), Vec3::X, a, b, c).is_none());
        assert!(Ray::new(Vec3::ZERO, Vec3::ZERO).is_err());
    }
}
