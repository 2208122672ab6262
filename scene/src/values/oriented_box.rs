//! Oriented bounding boxes (Eberly's `Box3`, book §6 "Hierarchical collision"): a bounding
//! volume next to the sphere ([`crate::Bound`]), fitted to points along the eigenvectors of
//! their covariance (`ContOrientedBox`), tested against each other with separating axes.
//!
//! * [`OrientedBox::from_points`]: the axes are the eigenvectors of the covariance matrix of
//!   the points (cyclic Jacobi, [`symmetric_eigen`]; only `sqrt`, so the fit is bit-for-bit
//!   deterministic), sorted by decreasing eigenvalue and made right-handed
//!   (`U₂ = U₀ × U₁`); the extents are half the spread of the projections on each axis and
//!   the centre is the middle of that spread (not the mean).
//! * [`OrientedBox::intersects`]: Gottschalk's 15 separating axes. It also works on boxes
//!   taken through any affine map ([`OrientedBox::transformed_axes`] keeps the images of the
//!   axes unnormalised), which is how the collision trees of [`crate::passes::collide`] test boxes
//!   under non-uniform scale without refitting.
//! * Non-finite numbers: the constructors refuse them; the tests treat a non-finite quantity
//!   as "not separated" (conservative).

use glam::{Mat3, Vec3};

use crate::values::error::SceneError;
use crate::values::transform::Transform;

/// Sweeps of the cyclic Jacobi method before [`symmetric_eigen`] gives up (it converges in a
/// handful for 3×3 matrices; the cap only bounds the loop).
pub const JACOBI_MAX_SWEEPS: usize = 32;

/// An oriented box: `centre + Σ tᵢ·axisᵢ` with `|tᵢ| ≤ extentᵢ`; the axes are orthonormal
/// and right-handed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OrientedBox {
    center: Vec3,
    axes: [Vec3; 3],
    extents: Vec3,
}

impl OrientedBox {
    /// A box from its centre, three orthonormal right-handed axes and non-negative extents.
    ///
    /// # Errors
    /// [`SceneError::NonFinite`] for NaN or infinite input; [`SceneError::NotARotation`] when
    /// the axes are not orthonormal and right-handed (within
    /// [`crate::values::transform::ROTATION_TOLERANCE`]); [`SceneError::InvalidArgument`] for a
    /// negative extent.
    pub fn new(center: Vec3, axes: [Vec3; 3], extents: Vec3) -> Result<Self, SceneError> {
        if !center.is_finite() || !extents.is_finite() || axes.iter().any(|a| !a.is_finite()) {
            return Err(SceneError::NonFinite {
                what: "oriented box",
            });
        }
        if !crate::values::transform::is_rotation(&Mat3::from_cols(axes[0], axes[1], axes[2])) {
            return Err(SceneError::NotARotation);
        }
        if extents.min_element() < 0.0 {
            return Err(SceneError::InvalidArgument {
                what: "oriented box extents",
                message: format!("{extents} has a negative component"),
            });
        }
        Ok(OrientedBox {
            center,
            axes,
            extents,
        })
    }

    /// An axis-aligned box from its corners (`min ≤ max`).
    ///
    /// # Errors
    /// As [`OrientedBox::new`] (a `min` above `max` is a negative extent).
    pub fn from_min_max(min: Vec3, max: Vec3) -> Result<Self, SceneError> {
        OrientedBox::new(
            (min + max) * 0.5,
            [Vec3::X, Vec3::Y, Vec3::Z],
            (max - min) * 0.5,
        )
    }

    /// The box of `points` along the eigenvectors of their covariance (see the module docs).
    ///
    /// # Errors
    /// [`SceneError::InvalidArgument`] for no points; [`SceneError::NonFinite`] for a
    /// non-finite point (or a spread that overflows).
    pub fn from_points(points: &[Vec3]) -> Result<Self, SceneError> {
        if points.is_empty() {
            return Err(SceneError::InvalidArgument {
                what: "oriented box points",
                message: "no points to fit".to_owned(),
            });
        }
        if points.iter().any(|p| !p.is_finite()) {
            return Err(SceneError::NonFinite {
                what: "oriented box points",
            });
        }
        let n = points.len() as f32;
        let mean = points.iter().fold(Vec3::ZERO, |a, &p| a + p) / n;
        let mut c = [[0.0f32; 3]; 3];
        for &p in points {
            let d = (p - mean).to_array();
            for (i, row) in c.iter_mut().enumerate() {
                for (j, v) in row.iter_mut().enumerate() {
                    *v += d[i] * d[j];
                }
            }
        }
        for row in &mut c {
            for v in row {
                *v /= n;
            }
        }
        let (_, vectors) = symmetric_eigen(c);
        let u0 = vectors[0];
        let u1 = vectors[1];
        let u2 = u0.cross(u1).normalize_or_zero();
        let axes = if u2 == Vec3::ZERO {
            [Vec3::X, Vec3::Y, Vec3::Z]
        } else {
            [u0, u1, u2]
        };
        let mut lo = Vec3::splat(f32::INFINITY);
        let mut hi = Vec3::splat(f32::NEG_INFINITY);
        for &p in points {
            let d = p - mean;
            let q = Vec3::new(d.dot(axes[0]), d.dot(axes[1]), d.dot(axes[2]));
            lo = lo.min(q);
            hi = hi.max(q);
        }
        let mid = (lo + hi) * 0.5;
        let center = mean + axes[0] * mid.x + axes[1] * mid.y + axes[2] * mid.z;
        let extents = (hi - lo) * 0.5;
        if !center.is_finite() || !extents.is_finite() {
            return Err(SceneError::NonFinite {
                what: "oriented box points",
            });
        }
        Ok(OrientedBox {
            center,
            axes,
            extents,
        })
    }

    /// Centre.
    pub fn center(&self) -> Vec3 {
        self.center
    }

    /// The three unit axes (right-handed).
    pub fn axes(&self) -> [Vec3; 3] {
        self.axes
    }

    /// Half-lengths along the axes.
    pub fn extents(&self) -> Vec3 {
        self.extents
    }

    /// The box with each extent grown by `pad` (≥ 0; used to keep fitted volumes
    /// conservative under rounding).
    pub fn padded(mut self, pad: f32) -> Self {
        if pad.is_finite() && pad > 0.0 {
            self.extents += Vec3::splat(pad);
        }
        self
    }

    /// The eight corners, in the order of the sign bits `(x, y, z)` of `±extent`.
    pub fn corners(&self) -> [Vec3; 8] {
        let mut out = [Vec3::ZERO; 8];
        for (k, c) in out.iter_mut().enumerate() {
            let s = |bit: usize| if k & (1 << bit) == 0 { -1.0 } else { 1.0 };
            *c = self.center
                + self.axes[0] * (s(0) * self.extents.x)
                + self.axes[1] * (s(1) * self.extents.y)
                + self.axes[2] * (s(2) * self.extents.z);
        }
        out
    }

    /// Whether `p` lies in the box (boundary included), up to `tolerance` per axis.
    pub fn contains(&self, p: Vec3, tolerance: f32) -> bool {
        let d = p - self.center;
        (0..3).all(|i| d.dot(self.axes[i]).abs() <= self.extents[i] + tolerance)
    }

    /// Centre and axes taken through `transform`: the centre as a point, each axis as a vector
    /// (not renormalised, so a scale stays in it). The image of the box is the set
    /// `centre' + Σ tᵢ·axisᵢ'` with `|tᵢ| ≤ extentᵢ` — a parallelepiped, a box again when the
    /// transform is a rotation with uniform scale. [`OrientedBox::intersects`] accepts these.
    pub fn transformed_axes(&self, transform: &Transform) -> (Vec3, [Vec3; 3]) {
        (
            transform.apply_point(self.center),
            self.axes.map(|a| transform.apply_vector(a)),
        )
    }

    /// Whether the two boxes overlap (separating-axis test, boundary contact counts as
    /// overlap). See [`boxes_overlap`] for boxes taken through transforms.
    pub fn intersects(&self, other: &OrientedBox) -> bool {
        boxes_overlap(
            (self.center, self.axes, self.extents),
            (other.center, other.axes, other.extents),
            0.0,
        )
    }
}

/// One box or parallelepiped for [`boxes_overlap`]: centre, three edge directions (any
/// length, e.g. from [`OrientedBox::transformed_axes`]) and the extents along them.
pub type BoxFrame = (Vec3, [Vec3; 3], Vec3);

/// Whether two parallelepipeds `cᵢ + Σ tⱼ·dirⱼ`, `|tⱼ| ≤ eⱼ`, overlap, by separating axes:
/// the face normals of each (`dir₁ × dir₂`, …) and the nine cross products of their edge
/// directions. `pad` (≥ 0) is added to the sum of the projected radii on each unit axis, so
/// a positive pad only ever turns "separated" into "overlap". An axis with a non-finite
/// projection separates nothing, so NaN input overlaps (conservative).
pub fn boxes_overlap(a: BoxFrame, b: BoxFrame, pad: f32) -> bool {
    let (ca, da, ea) = a;
    let (cb, db, eb) = b;
    let delta = cb - ca;
    let radius = |d: &[Vec3; 3], e: Vec3, axis: Vec3| {
        e.x * d[0].dot(axis).abs() + e.y * d[1].dot(axis).abs() + e.z * d[2].dot(axis).abs()
    };
    let separated = |axis: Vec3| {
        let len2 = axis.length_squared();
        if len2 == 0.0 || !len2.is_finite() {
            return false;
        }
        let r = radius(&da, ea, axis) + radius(&db, eb, axis) + pad * len2.sqrt();
        delta.dot(axis).abs() > r
    };
    let faces = |d: &[Vec3; 3]| [d[1].cross(d[2]), d[2].cross(d[0]), d[0].cross(d[1])];
    if faces(&da).into_iter().any(separated) || faces(&db).into_iter().any(separated) {
        return false;
    }
    for u in da {
        for v in db {
            if separated(u.cross(v)) {
                return false;
            }
        }
    }
    true
}

/// Eigenvalues and unit eigenvectors of a symmetric 3×3 matrix (`m[row][col]`; only the
/// upper triangle is read), by cyclic Jacobi rotations, sorted by decreasing eigenvalue (ties
/// keep the original order). Deterministic: basic arithmetic and `sqrt` only. Non-finite
/// input gives the identity basis.
pub fn symmetric_eigen(m: [[f32; 3]; 3]) -> ([f32; 3], [Vec3; 3]) {
    let mut a = [[0.0f32; 3]; 3];
    for i in 0..3 {
        for j in i..3 {
            a[i][j] = m[i][j];
            a[j][i] = m[i][j];
        }
    }
    let identity = ([a[0][0], a[1][1], a[2][2]], [Vec3::X, Vec3::Y, Vec3::Z]);
    if a.iter().flatten().any(|v| !v.is_finite()) {
        return identity;
    }
    // v[k] is the k-th eigenvector (a column of V).
    let mut v = [[1.0f32, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
    for _ in 0..JACOBI_MAX_SWEEPS {
        let off = a[0][1].abs() + a[0][2].abs() + a[1][2].abs();
        let diag = a[0][0].abs() + a[1][1].abs() + a[2][2].abs();
        if off == 0.0 || off <= diag * (f32::EPSILON * 0.25) {
            break;
        }
        for (p, q) in [(0usize, 1usize), (0, 2), (1, 2)] {
            let apq = a[p][q];
            if apq == 0.0 {
                continue;
            }
            let theta = (a[q][q] - a[p][p]) / (2.0 * apq);
            let t = if theta.is_finite() {
                let sign = if theta >= 0.0 { 1.0 } else { -1.0 };
                sign / (theta.abs() + (theta * theta + 1.0).sqrt())
            } else {
                0.0
            };
            if t == 0.0 {
                a[p][q] = 0.0;
                a[q][p] = 0.0;
                continue;
            }
            let c = 1.0 / (t * t + 1.0).sqrt();
            let s = t * c;
            // A ← Jᵀ·A·J with J the rotation in the (p, q) plane.
            for row in &mut a {
                let (akp, akq) = (row[p], row[q]);
                row[p] = c * akp - s * akq;
                row[q] = s * akp + c * akq;
            }
            let (rp, rq) = (a[p], a[q]);
            a[p] = std::array::from_fn(|k| c * rp[k] - s * rq[k]);
            a[q] = std::array::from_fn(|k| s * rp[k] + c * rq[k]);
            a[p][q] = 0.0;
            a[q][p] = 0.0;
            for row in &mut v {
                let vp = row[p];
                let vq = row[q];
                row[p] = c * vp - s * vq;
                row[q] = s * vp + c * vq;
            }
        }
    }
    let mut order = [0usize, 1, 2];
    order.sort_by(|&i, &j| a[j][j].total_cmp(&a[i][i]));
    let values = order.map(|k| a[k][k]);
    let vectors = order.map(|k| Vec3::new(v[0][k], v[1][k], v[2][k]).normalize_or_zero());
    if vectors.iter().any(|x| *x == Vec3::ZERO || !x.is_finite()) {
        return identity;
    }
    (values, vectors)
}

#[cfg(feature = "internal-tests")]
pub(crate) mod tests {
    /// Every test of this module: `tests/unit.rs` runs each as one trial (an unlisted
    /// test fails the build as dead code).
    pub(crate) const TESTS: &[(&str, fn())] = &[
        ("eigen_of_a_known_matrix", eigen_of_a_known_matrix),
        (
            "constructor_refuses_bad_input",
            constructor_refuses_bad_input,
        ),
    ];

    use super::*;

    fn eigen_of_a_known_matrix() {
        // [[2,1,0],[1,2,0],[0,0,5]]: eigenvalues 5, 3, 1 with vectors z, (1,1,0)/√2, (1,−1,0)/√2.
        let (vals, vecs) = symmetric_eigen([[2.0, 1.0, 0.0], [1.0, 2.0, 0.0], [0.0, 0.0, 5.0]]);
        assert!((vals[0] - 5.0).abs() < 1e-6 && (vals[1] - 3.0).abs() < 1e-6);
        assert!((vals[2] - 1.0).abs() < 1e-6, "{vals:?}");
        let h = std::f32::consts::FRAC_1_SQRT_2;
        assert!(vecs[0].dot(Vec3::Z).abs() > 1.0 - 1e-6);
        assert!(vecs[1].dot(Vec3::new(h, h, 0.0)).abs() > 1.0 - 1e-6);
        assert!(vecs[2].dot(Vec3::new(h, -h, 0.0)).abs() > 1.0 - 1e-6);
    }

    fn constructor_refuses_bad_input() {
        let axes = [Vec3::X, Vec3::Y, Vec3::Z];
        assert!(OrientedBox::new(Vec3::NAN, axes, Vec3::ONE).is_err());
        assert!(OrientedBox::new(Vec3::ZERO, [Vec3::X, Vec3::X, Vec3::Z], Vec3::ONE).is_err());
        assert!(OrientedBox::new(Vec3::ZERO, axes, -Vec3::ONE).is_err());
        assert!(OrientedBox::from_points(&[]).is_err());
        assert!(OrientedBox::from_points(&[Vec3::ZERO, Vec3::splat(f32::NAN)]).is_err());
    }
}
