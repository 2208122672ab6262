//! Bounding volumes: spheres (the default, as in Wild Magic) and axis-aligned boxes.
//!
//! * [`Bound::from_points`]: a sphere is Eberly's `ContSphereAverage` (centre = mean of the
//!   points, radius = largest distance to it, not the minimal sphere); a box is min/max.
//! * [`Bound::transformed`]: a sphere's centre goes through the transform and its radius is
//!   scaled by [`Transform::norm`] (the largest axis scale, so non-uniform scale stays
//!   conservative); a box is re-bounded (`centre' = M·c + T`, `extent' = |M|·e`, Arvo).
//! * [`Bound::merge`]: sphere ∪ sphere is exactly the formula of Van Verth & Bishop
//!   (seed 000, [`merge_spheres`]); box ∪ box is min/max. [`Bound::Empty`] is the identity of
//!   merge and transform. A node's world bound merges its children **in child order**, so the
//!   (order-dependent) sphere result is reproducible. Mixing kinds converts the right operand
//!   to the kind of the left one.
//! * [`Bound::which_side`]: Eberly's `WhichSide` (`d = N·C − c`; `d ≤ −r` negative,
//!   `d ≥ r` positive, else both).
//! * [`Bound::intersects_ray`]: Eberly's ray–sphere test (Ch. 6) or the slab test for boxes.

use glam::Vec3;

use crate::values::plane::{Plane, Side};
use crate::values::ray::Ray;
use crate::values::transform::Transform;

/// Which bounding volume a scene computes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum BoundKind {
    /// Spheres (Wild Magic's default).
    #[default]
    Sphere,
    /// Axis-aligned boxes.
    Aabb,
}

/// Epsilon under which the distance between two sphere centres counts as zero in
/// [`merge_spheres`] (Van Verth & Bishop's `IsZero`, `kEpsilon = 1e-6`).
pub const MERGE_EPSILON: f32 = 1.0e-6;

/// A bounding volume, possibly empty.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub enum Bound {
    /// Bounds nothing: the identity for [`Bound::merge`].
    #[default]
    Empty,
    /// A sphere.
    Sphere {
        /// Centre.
        center: Vec3,
        /// Radius (≥ 0).
        radius: f32,
    },
    /// An axis-aligned box, `min ≤ max` componentwise.
    Aabb {
        /// Smallest corner.
        min: Vec3,
        /// Largest corner.
        max: Vec3,
    },
}

/// Merges two spheres exactly as Van Verth & Bishop's `Merge` (seed 000):
///
/// ```text
/// diff = c1 − c0;  distsq = diff·diff;  rd = r1 − r0
/// if distsq ≤ rd²:  return (r0 > r1) ? s0 : s1          // one inside the other
/// dist = √distsq;   r = ½(r0 + r1 + dist)
/// c = c0;  if |dist| ≥ ε:  c += ((r − r0)/dist)·diff
/// ```
pub fn merge_spheres(c0: Vec3, r0: f32, c1: Vec3, r1: f32) -> (Vec3, f32) {
    let diff = c1 - c0;
    let distsq = diff.dot(diff);
    let radiusdiff = r1 - r0;
    if distsq <= radiusdiff * radiusdiff {
        return if r0 > r1 { (c0, r0) } else { (c1, r1) };
    }
    let dist = distsq.sqrt();
    let new_radius = 0.5 * (r0 + r1 + dist);
    let mut new_center = c0;
    if dist.abs() >= MERGE_EPSILON {
        new_center += ((new_radius - r0) / dist) * diff;
    }
    (new_center, new_radius)
}

impl Bound {
    /// A sphere bound.
    pub fn sphere(center: Vec3, radius: f32) -> Bound {
        Bound::Sphere { center, radius }
    }

    /// A box bound.
    pub fn aabb(min: Vec3, max: Vec3) -> Bound {
        Bound::Aabb { min, max }
    }

    /// A bound of `kind` around `points` (empty for no points). See the module docs.
    pub fn from_points(kind: BoundKind, points: &[Vec3]) -> Bound {
        if points.is_empty() {
            return Bound::Empty;
        }
        match kind {
            BoundKind::Sphere => {
                let sum = points.iter().fold(Vec3::ZERO, |a, &p| a + p);
                let center = sum / points.len() as f32;
                let r2 = points
                    .iter()
                    .fold(0.0f32, |a, &p| a.max((p - center).length_squared()));
                Bound::Sphere {
                    center,
                    radius: r2.sqrt(),
                }
            }
            BoundKind::Aabb => {
                let (min, max) = points.iter().fold((points[0], points[0]), |(lo, hi), &p| {
                    (lo.min(p), hi.max(p))
                });
                Bound::Aabb { min, max }
            }
        }
    }

    /// Whether this is [`Bound::Empty`].
    pub fn is_empty(&self) -> bool {
        matches!(self, Bound::Empty)
    }

    /// The kind, or `None` when empty.
    pub fn kind(&self) -> Option<BoundKind> {
        match self {
            Bound::Empty => None,
            Bound::Sphere { .. } => Some(BoundKind::Sphere),
            Bound::Aabb { .. } => Some(BoundKind::Aabb),
        }
    }

    /// Centre of the bounding-sphere view (box centre for a box; zero when empty).
    pub fn center(&self) -> Vec3 {
        match *self {
            Bound::Empty => Vec3::ZERO,
            Bound::Sphere { center, .. } => center,
            Bound::Aabb { min, max } => {
                let c = (min + max) * 0.5;
                if c.is_finite() {
                    c
                } else {
                    // `min + max` overflowed (a box near ±f32::MAX): halve first.
                    min * 0.5 + max * 0.5
                }
            }
        }
    }

    /// Radius of the bounding-sphere view (half-diagonal for a box; zero when empty).
    pub fn radius(&self) -> f32 {
        match *self {
            Bound::Empty => 0.0,
            Bound::Sphere { radius, .. } => radius,
            Bound::Aabb { min, max } => {
                let r = ((max - min) * 0.5).length();
                if r.is_finite() {
                    r
                } else {
                    // `max - min` or the squares overflowed: halve and scale first. The
                    // result is infinite only when the radius itself exceeds f32::MAX.
                    let h = max * 0.5 - min * 0.5;
                    let m = h.abs().max_element();
                    if m > 0.0 && m.is_finite() {
                        m * (h / m).length()
                    } else {
                        r
                    }
                }
            }
        }
    }

    /// The same region as a sphere (a box becomes its circumscribed sphere).
    pub fn to_sphere(&self) -> Bound {
        match *self {
            Bound::Aabb { .. } => Bound::Sphere {
                center: self.center(),
                radius: self.radius(),
            },
            other => other,
        }
    }

    /// The same region as a box (a sphere becomes its circumscribed cube).
    pub fn to_aabb(&self) -> Bound {
        match *self {
            Bound::Sphere { center, radius } => Bound::Aabb {
                min: center - Vec3::splat(radius),
                max: center + Vec3::splat(radius),
            },
            other => other,
        }
    }

    /// This bound converted to `kind` (empty stays empty).
    pub fn to_kind(&self, kind: BoundKind) -> Bound {
        match kind {
            BoundKind::Sphere => self.to_sphere(),
            BoundKind::Aabb => self.to_aabb(),
        }
    }

    /// The bound of the transformed region (conservative; see the module docs).
    pub fn transformed(&self, t: &Transform) -> Bound {
        if t.is_identity() {
            return *self;
        }
        match *self {
            Bound::Empty => Bound::Empty,
            Bound::Sphere { center, radius } => Bound::Sphere {
                center: t.apply_point(center),
                radius: t.norm() * radius,
            },
            Bound::Aabb { min, max } => {
                let c = t.apply_point((min + max) * 0.5);
                let e = (max - min) * 0.5;
                let m = t.matrix();
                let ext = m.x_axis.abs() * e.x + m.y_axis.abs() * e.y + m.z_axis.abs() * e.z;
                Bound::Aabb {
                    min: c - ext,
                    max: c + ext,
                }
            }
        }
    }

    /// A bound containing `self` and `other` (Eberly's `GrowToContain`). Empty is the
    /// identity; otherwise the result has the kind of `self`.
    pub fn merge(&self, other: &Bound) -> Bound {
        match (*self, *other) {
            (Bound::Empty, o) => o,
            (s, Bound::Empty) => s,
            (
                Bound::Sphere {
                    center: c0,
                    radius: r0,
                },
                o,
            ) => {
                let (c1, r1) = (o.center(), o.radius());
                let (center, radius) = merge_spheres(c0, r0, c1, r1);
                Bound::Sphere { center, radius }
            }
            (Bound::Aabb { min, max }, o) => match o.to_aabb() {
                Bound::Aabb { min: lo, max: hi } => Bound::Aabb {
                    min: min.min(lo),
                    max: max.max(hi),
                },
                _ => Bound::Aabb { min, max },
            },
        }
    }

    /// Side of `plane` the bound lies on. An empty bound reports [`Side::Negative`], so culling
    /// discards it.
    pub fn which_side(&self, plane: &Plane) -> Side {
        let (d, r) = match *self {
            Bound::Empty => return Side::Negative,
            Bound::Sphere { center, radius } => (plane.distance(center), radius),
            Bound::Aabb { min, max } => {
                let e = (max - min) * 0.5;
                let n = plane.normal();
                (plane.distance((min + max) * 0.5), n.abs().dot(e))
            }
        };
        if d <= -r {
            Side::Negative
        } else if d >= r {
            Side::Positive
        } else {
            Side::Both
        }
    }

    /// Whether the ray meets the bound (an origin inside counts). Never true for empty.
    pub fn intersects_ray(&self, ray: &Ray) -> bool {
        match *self {
            Bound::Empty => false,
            Bound::Sphere { center, radius } => {
                let diff = ray.origin() - center;
                let a0 = diff.dot(diff) - radius * radius;
                if a0 <= 0.0 {
                    return true;
                }
                let a1 = ray.direction().dot(diff);
                if a1 >= 0.0 {
                    return false;
                }
                a1 * a1 >= a0
            }
            Bound::Aabb { min, max } => {
                let (o, d) = (ray.origin(), ray.direction());
                let (mut t0, mut t1) = (0.0f32, f32::INFINITY);
                for i in 0..3 {
                    if d[i] == 0.0 {
                        if o[i] < min[i] || o[i] > max[i] {
                            return false;
                        }
                        continue;
                    }
                    let inv = 1.0 / d[i];
                    let (mut a, mut b) = ((min[i] - o[i]) * inv, (max[i] - o[i]) * inv);
                    if a > b {
                        std::mem::swap(&mut a, &mut b);
                    }
                    t0 = t0.max(a);
                    t1 = t1.min(b);
                    if t0 > t1 {
                        return false;
                    }
                }
                true
            }
        }
    }

    /// Whether `p` lies inside, allowing `eps` of slack (for tests and tolerant queries).
    pub fn contains_point(&self, p: Vec3, eps: f32) -> bool {
        match *self {
            Bound::Empty => false,
            Bound::Sphere { center, radius } => (p - center).length() <= radius + eps,
            Bound::Aabb { min, max } => {
                p.cmpge(min - Vec3::splat(eps)).all() && p.cmple(max + Vec3::splat(eps)).all()
            }
        }
    }

    /// Whether `other` lies inside, allowing `eps` of slack. Everything contains the empty
    /// bound.
    pub fn contains(&self, other: &Bound, eps: f32) -> bool {
        match (*self, *other) {
            (_, Bound::Empty) => true,
            (Bound::Empty, _) => false,
            (Bound::Sphere { center, radius }, o) => match o {
                Bound::Aabb { min, max } => (0..8).all(|i| {
                    let corner = Vec3::new(
                        if i & 1 == 0 { min.x } else { max.x },
                        if i & 2 == 0 { min.y } else { max.y },
                        if i & 4 == 0 { min.z } else { max.z },
                    );
                    (corner - center).length() <= radius + eps
                }),
                _ => (o.center() - center).length() + o.radius() <= radius + eps,
            },
            (Bound::Aabb { min, max }, o) => match o.to_aabb() {
                Bound::Aabb { min: lo, max: hi } => {
                    lo.cmpge(min - Vec3::splat(eps)).all() && hi.cmple(max + Vec3::splat(eps)).all()
                }
                _ => false,
            },
        }
    }
}

#[cfg(feature = "internal-tests")]
pub(crate) mod tests {
    /// Every test of this module: `tests/unit.rs` runs each as one trial (an unlisted
    /// test fails the build as dead code).
    pub(crate) const TESTS: &[(&str, fn())] = &[
        ("seed_000_merge_apart", seed_000_merge_apart),
        ("seed_000_merge_inside", seed_000_merge_inside),
        ("seed_000_merge_overlapping", seed_000_merge_overlapping),
        ("empty_is_identity", empty_is_identity),
        (
            "from_points_average_sphere_and_box",
            from_points_average_sphere_and_box,
        ),
        (
            "transform_scales_radius_by_max_scale",
            transform_scales_radius_by_max_scale,
        ),
        ("which_side_thresholds", which_side_thresholds),
        ("ray_tests", ray_tests),
    ];

    use super::*;

    fn s(c: [f32; 3], r: f32) -> Bound {
        Bound::sphere(Vec3::from(c), r)
    }

    fn seed_000_merge_apart() {
        // Disjoint spheres along x: (0,0,0),1 ∪ (10,0,0),2 → r = 6.5, C = (5.5,0,0).
        let m = s([0.0; 3], 1.0).merge(&s([10.0, 0.0, 0.0], 2.0));
        assert_eq!(m, s([5.5, 0.0, 0.0], 6.5));
        // Eberly's checklist: (0,0,0),1 ∪ (4,0,0),1 → (2,0,0), 3.
        let m = s([0.0; 3], 1.0).merge(&s([4.0, 0.0, 0.0], 1.0));
        assert_eq!(m, s([2.0, 0.0, 0.0], 3.0));
    }

    fn seed_000_merge_inside() {
        let big = s([1.0, 2.0, 3.0], 5.0);
        let small = s([2.0, 2.0, 3.0], 1.0);
        assert_eq!(big.merge(&small), big);
        assert_eq!(small.merge(&big), big);
        // Internally tangent: distsq == rd² still counts as inside.
        let tangent = s([5.0, 2.0, 3.0], 1.0);
        assert_eq!(big.merge(&tangent), big);
        // Equal spheres: the seed returns s1 (the test is r0 > r1).
        let twin = s([1.0, 2.0, 3.0], 5.0);
        assert_eq!(big.merge(&twin), twin);
        // Concentric: the larger.
        assert_eq!(s([0.0; 3], 2.0).merge(&s([0.0; 3], 3.0)), s([0.0; 3], 3.0));
    }

    fn seed_000_merge_overlapping() {
        // (0,0,0),2 ∪ (2,0,0),1: dist 2, r = ½(2+1+2) = 2.5, C = 0 + (0.5/2)·(2,0,0) = (0.5,0,0).
        let m = s([0.0; 3], 2.0).merge(&s([2.0, 0.0, 0.0], 1.0));
        assert_eq!(m, s([0.5, 0.0, 0.0], 2.5));
        // Diagonal: (0,0,0),1 ∪ (3,4,0),1: dist 5, r = 3.5, C = (2.5/5)·(3,4,0) = (1.5,2,0).
        let m = s([0.0; 3], 1.0).merge(&s([3.0, 4.0, 0.0], 1.0));
        assert_eq!(m, s([1.5, 2.0, 0.0], 3.5));
        let m2 = s([3.0, 4.0, 0.0], 1.0).merge(&s([0.0; 3], 1.0));
        assert!((m.center() - m2.center()).length() < 1e-6 && m.radius() == m2.radius());
    }

    fn empty_is_identity() {
        let a = s([1.0, 2.0, 3.0], 4.0);
        assert_eq!(Bound::Empty.merge(&a), a);
        assert_eq!(a.merge(&Bound::Empty), a);
        let b = Bound::aabb(Vec3::ZERO, Vec3::ONE);
        assert_eq!(Bound::Empty.merge(&b), b);
        let t = Transform::from_uniform_scale(3.0).unwrap();
        assert_eq!(Bound::Empty.transformed(&t), Bound::Empty);
        assert_eq!(Bound::from_points(BoundKind::Sphere, &[]), Bound::Empty);
    }

    fn from_points_average_sphere_and_box() {
        let pts = [
            Vec3::ZERO,
            Vec3::new(2.0, 0.0, 0.0),
            Vec3::new(1.0, 3.0, 0.0),
        ];
        let b = Bound::from_points(BoundKind::Sphere, &pts);
        assert_eq!(b.center(), Vec3::new(1.0, 1.0, 0.0));
        assert_eq!(b.radius(), 2.0);
        let b = Bound::from_points(BoundKind::Aabb, &pts);
        assert_eq!(b, Bound::aabb(Vec3::ZERO, Vec3::new(2.0, 3.0, 0.0)));
    }

    fn transform_scales_radius_by_max_scale() {
        let t = Transform::from_scale(Vec3::new(1.0, -3.0, 2.0))
            .unwrap()
            .with_translation(Vec3::X)
            .unwrap();
        let b = s([1.0, 1.0, 1.0], 2.0).transformed(&t);
        assert_eq!(b, s([2.0, -3.0, 2.0], 6.0));
        let r = crate::values::transform::rotation_axis_angle(Vec3::Z, std::f32::consts::FRAC_PI_4)
            .unwrap();
        let t = Transform::from_rotation(r).unwrap();
        let bb = Bound::aabb(-Vec3::ONE, Vec3::ONE).transformed(&t);
        let Bound::Aabb { max, .. } = bb else {
            panic!("box expected")
        };
        assert!((max.x - 2f32.sqrt()).abs() < 1e-5 && max.z == 1.0);
    }

    fn which_side_thresholds() {
        let p = Plane::new(Vec3::X, 0.0).unwrap();
        assert_eq!(s([2.0, 0.0, 0.0], 2.0).which_side(&p), Side::Positive);
        assert_eq!(s([-2.0, 0.0, 0.0], 2.0).which_side(&p), Side::Negative);
        assert_eq!(s([1.0, 0.0, 0.0], 2.0).which_side(&p), Side::Both);
        let b = Bound::aabb(Vec3::new(0.5, -1.0, -1.0), Vec3::new(1.0, 1.0, 1.0));
        assert_eq!(b.which_side(&p), Side::Positive);
        assert_eq!(Bound::Empty.which_side(&p), Side::Negative);
    }

    fn ray_tests() {
        let b = s([0.0, 0.0, -5.0], 1.0);
        let toward = Ray::new(Vec3::ZERO, -Vec3::Z).unwrap();
        let away = Ray::new(Vec3::ZERO, Vec3::Z).unwrap();
        let tangent = Ray::new(Vec3::new(1.0, 0.0, 0.0), -Vec3::Z).unwrap();
        let inside = Ray::new(Vec3::new(0.0, 0.0, -5.0), Vec3::Z).unwrap();
        assert!(b.intersects_ray(&toward));
        assert!(!b.intersects_ray(&away));
        assert!(b.intersects_ray(&tangent));
        assert!(b.intersects_ray(&inside));
        let bb = b.to_aabb();
        assert!(bb.intersects_ray(&toward) && !bb.intersects_ray(&away));
        assert!(bb.intersects_ray(&inside));
        assert!(!Bound::Empty.intersects_ray(&toward));
    }
}
