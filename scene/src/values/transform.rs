//! Eberly's `Transformation`: scale, rotation, translation, with the fast paths of Wild Magic 3
//! and the general-matrix fallback of its later versions (`IsRSMatrix`).
//!
//! A [`Transform`] maps a point `X` to `Y = M·X + T` (column vectors). In *rotation–scale form*
//! `M = R·S` with `R` a proper rotation and `S = diag(sx, sy, sz)` (scale first, then rotate, then
//! translate); in *general form* `M` is any 3×3 matrix. Composition keeps rotation–scale form
//! when the left operand has uniform scale (Eberly eq. 3.5: `R = Ra·Rb`, `S = σa·Sb`,
//! `T = σa·Ra·Tb + Ta`) and otherwise falls back to the general product `M = Ma·Mb`,
//! `T = Ma·Tb + Ta`, which is exact for non-uniform and negative scale, where the book's
//! rotation–scale algebra is not.
//!
//! Negative scale is allowed and mirrors space: [`Transform::is_mirror`] says when the
//! determinant is negative, so a renderer can flip triangle winding.
//!
//! Invariant: every component of every `Transform` built through this API is finite. Setters
//! and constructors reject NaN and infinity with [`SceneError::NonFinite`]. (Composition of
//! huge but finite transforms can still overflow; world data is then non-finite and culling and
//! picking treat such nodes conservatively.)

use glam::{Mat3, Mat4, Quat, Vec3, Vec4};

use crate::values::error::SceneError;
use crate::values::plane::Plane;

/// Tolerance for accepting a matrix as a rotation (per entry of `RᵀR − I`, and `|det − 1|`).
pub const ROTATION_TOLERANCE: f32 = 1e-4;

/// An affine transform `Y = M·X + T`, kept in rotation–scale form when possible.
///
/// See the [module docs](self) for the representation and composition rules.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Transform {
    /// Rotation `R` in rotation–scale form; the whole linear part `M` in general form.
    mat: Mat3,
    /// Scale in rotation–scale form; `ONE` in general form.
    scale: Vec3,
    translate: Vec3,
    is_identity: bool,
    is_uniform: bool,
    is_rs: bool,
}

impl Default for Transform {
    fn default() -> Self {
        Self::IDENTITY
    }
}

fn check_vec(v: Vec3, what: &'static str) -> Result<Vec3, SceneError> {
    if v.is_finite() {
        Ok(v)
    } else {
        Err(SceneError::NonFinite { what })
    }
}

fn check_mat(m: &Mat3, what: &'static str) -> Result<(), SceneError> {
    if m.is_finite() {
        Ok(())
    } else {
        Err(SceneError::NonFinite { what })
    }
}

/// `v / |v|` without overflow or underflow: when `|v|` is not a usable positive finite
/// number (components near `f32::MAX` or subnormal), `v` is first divided by its largest
/// component. `None` for a zero vector.
fn normalize4(v: Vec4) -> Option<Vec4> {
    let len = v.length();
    if len > 0.0 && len.is_finite() {
        return Some(v / len);
    }
    let m = v.abs().max_element();
    if m == 0.0 || !m.is_finite() {
        return None;
    }
    let s = v / m;
    Some(s / s.length())
}

/// The unit quaternion of `q` (any finite non-zero length, also near `f32::MAX`).
///
/// # Errors
/// [`SceneError::NonFinite`] for NaN or infinity, [`SceneError::ZeroRotation`] for zero.
pub(crate) fn unit_quat(q: Quat) -> Result<Quat, SceneError> {
    if !q.is_finite() {
        return Err(SceneError::NonFinite { what: "rotation" });
    }
    normalize4(Vec4::from(q))
        .map(Quat::from_vec4)
        .ok_or(SceneError::ZeroRotation("rotation quaternion"))
}

/// Whether `m` is a proper rotation within [`ROTATION_TOLERANCE`].
pub fn is_rotation(m: &Mat3) -> bool {
    if !m.is_finite() {
        return false;
    }
    let e = m.transpose() * *m - Mat3::IDENTITY;
    let max_err = e
        .to_cols_array()
        .iter()
        .fold(0.0f32, |acc, x| acc.max(x.abs()));
    max_err <= ROTATION_TOLERANCE && (m.determinant() - 1.0).abs() <= ROTATION_TOLERANCE
}

/// Rotation by `angle` radians about `axis` (right-hand rule), computed with
/// `plumb_raster::math` so it is bit-identical on every platform.
///
/// # Errors
/// [`SceneError::NonFinite`] for a non-finite angle or axis, [`SceneError::ZeroRotation`] for a
/// zero axis.
pub fn rotation_axis_angle(axis: Vec3, angle: f32) -> Result<Mat3, SceneError> {
    check_vec(axis, "rotation axis")?;
    if !angle.is_finite() {
        return Err(SceneError::NonFinite {
            what: "rotation angle",
        });
    }
    let a = normalize4(axis.extend(0.0))
        .ok_or(SceneError::ZeroRotation("rotation axis"))?
        .truncate();
    let (s, c) = plumb_raster::math::sin_cos(angle);
    let t = 1.0 - c;
    Ok(Mat3::from_cols(
        Vec3::new(
            t * a.x * a.x + c,
            t * a.x * a.y + s * a.z,
            t * a.x * a.z - s * a.y,
        ),
        Vec3::new(
            t * a.x * a.y - s * a.z,
            t * a.y * a.y + c,
            t * a.y * a.z + s * a.x,
        ),
        Vec3::new(
            t * a.x * a.z + s * a.y,
            t * a.y * a.z - s * a.x,
            t * a.z * a.z + c,
        ),
    ))
}

impl Transform {
    /// The identity transform.
    pub const IDENTITY: Transform = Transform {
        mat: Mat3::IDENTITY,
        scale: Vec3::ONE,
        translate: Vec3::ZERO,
        is_identity: true,
        is_uniform: true,
        is_rs: true,
    };

    /// A pure translation.
    ///
    /// # Errors
    /// [`SceneError::NonFinite`] if `t` has a NaN or infinite component.
    pub fn from_translation(t: Vec3) -> Result<Self, SceneError> {
        Self::IDENTITY.with_translation(t)
    }

    /// A pure rotation.
    ///
    /// # Errors
    /// [`SceneError::NonFinite`] or [`SceneError::NotARotation`].
    pub fn from_rotation(r: Mat3) -> Result<Self, SceneError> {
        Self::IDENTITY.with_rotation(r)
    }

    /// A pure (possibly non-uniform, possibly negative) scale.
    ///
    /// # Errors
    /// [`SceneError::NonFinite`].
    pub fn from_scale(s: Vec3) -> Result<Self, SceneError> {
        Self::IDENTITY.with_scale(s)
    }

    /// A pure uniform scale.
    ///
    /// # Errors
    /// [`SceneError::NonFinite`].
    pub fn from_uniform_scale(s: f32) -> Result<Self, SceneError> {
        Self::IDENTITY.with_uniform_scale(s)
    }

    /// A general affine transform `Y = linear·X + translation` (general form: no rotation–scale
    /// fast paths).
    ///
    /// # Errors
    /// [`SceneError::NonFinite`].
    pub fn from_affine(linear: Mat3, translation: Vec3) -> Result<Self, SceneError> {
        let mut t = Self::IDENTITY;
        t.set_matrix(linear)?;
        t.set_translation(translation)?;
        Ok(t)
    }

    /// Scale, then rotate by the (normalized) quaternion, then translate.
    ///
    /// # Errors
    /// [`SceneError::NonFinite`], or [`SceneError::ZeroRotation`] for a zero quaternion.
    pub fn from_srt(scale: Vec3, rotation: Quat, translation: Vec3) -> Result<Self, SceneError> {
        let unit = unit_quat(rotation)?;
        Self::IDENTITY
            .with_scale(scale)?
            .with_rotation(Mat3::from_quat(unit))?
            .with_translation(translation)
    }

    /// `self` with the translation replaced. See [`Transform::set_translation`].
    ///
    /// # Errors
    /// [`SceneError::NonFinite`].
    pub fn with_translation(mut self, t: Vec3) -> Result<Self, SceneError> {
        self.set_translation(t)?;
        Ok(self)
    }

    /// `self` with the rotation replaced. See [`Transform::set_rotation`].
    ///
    /// # Errors
    /// [`SceneError::NonFinite`] or [`SceneError::NotARotation`].
    pub fn with_rotation(mut self, r: Mat3) -> Result<Self, SceneError> {
        self.set_rotation(r)?;
        Ok(self)
    }

    /// `self` with the scale replaced. See [`Transform::set_scale`].
    ///
    /// # Errors
    /// [`SceneError::NonFinite`].
    pub fn with_scale(mut self, s: Vec3) -> Result<Self, SceneError> {
        self.set_scale(s)?;
        Ok(self)
    }

    /// `self` with a uniform scale. See [`Transform::set_uniform_scale`].
    ///
    /// # Errors
    /// [`SceneError::NonFinite`].
    pub fn with_uniform_scale(mut self, s: f32) -> Result<Self, SceneError> {
        self.set_uniform_scale(s)?;
        Ok(self)
    }

    /// Sets the translation `T`. The transform is no longer flagged identity (as in Eberly,
    /// even when `t` is zero).
    ///
    /// # Errors
    /// [`SceneError::NonFinite`]; the transform is unchanged on error.
    pub fn set_translation(&mut self, t: Vec3) -> Result<(), SceneError> {
        self.translate = check_vec(t, "translation")?;
        self.is_identity = false;
        Ok(())
    }

    /// Sets the rotation `R`. A general-form transform returns to rotation–scale form with unit
    /// scale.
    ///
    /// # Errors
    /// [`SceneError::NonFinite`], or [`SceneError::NotARotation`] when `r` is not orthonormal
    /// with determinant +1 within [`ROTATION_TOLERANCE`] (use negative scale to mirror).
    pub fn set_rotation(&mut self, r: Mat3) -> Result<(), SceneError> {
        check_mat(&r, "rotation")?;
        if !is_rotation(&r) {
            return Err(SceneError::NotARotation);
        }
        if !self.is_rs {
            self.scale = Vec3::ONE;
            self.is_uniform = true;
            self.is_rs = true;
        }
        self.mat = r;
        self.is_identity = false;
        Ok(())
    }

    /// Sets a per-axis scale `S` (zero and negative components are allowed; a negative
    /// determinant mirrors). Clears the uniform-scale hint even when the components are equal,
    /// as in Eberly. A general-form transform returns to rotation–scale form with identity
    /// rotation.
    ///
    /// # Errors
    /// [`SceneError::NonFinite`].
    pub fn set_scale(&mut self, s: Vec3) -> Result<(), SceneError> {
        self.scale = check_vec(s, "scale")?;
        if !self.is_rs {
            self.mat = Mat3::IDENTITY;
            self.is_rs = true;
        }
        self.is_uniform = false;
        self.is_identity = false;
        Ok(())
    }

    /// Sets a uniform scale `s` on all three axes and the uniform-scale hint (the fast
    /// composition path).
    ///
    /// # Errors
    /// [`SceneError::NonFinite`].
    pub fn set_uniform_scale(&mut self, s: f32) -> Result<(), SceneError> {
        if !s.is_finite() {
            return Err(SceneError::NonFinite {
                what: "uniform scale",
            });
        }
        if !self.is_rs {
            self.mat = Mat3::IDENTITY;
            self.is_rs = true;
        }
        self.scale = Vec3::splat(s);
        self.is_uniform = true;
        self.is_identity = false;
        Ok(())
    }

    /// Replaces the linear part with a general matrix (general form: rotation and scale are no
    /// longer available separately).
    ///
    /// # Errors
    /// [`SceneError::NonFinite`].
    pub fn set_matrix(&mut self, m: Mat3) -> Result<(), SceneError> {
        check_mat(&m, "matrix")?;
        self.mat = m;
        self.scale = Vec3::ONE;
        self.is_rs = false;
        self.is_uniform = false;
        self.is_identity = false;
        Ok(())
    }

    /// The translation `T`.
    pub fn translation(&self) -> Vec3 {
        self.translate
    }

    /// The rotation `R`, or `None` in general form.
    pub fn rotation(&self) -> Option<Mat3> {
        self.is_rs.then_some(self.mat)
    }

    /// The per-axis scale `S`, or `None` in general form.
    pub fn scale(&self) -> Option<Vec3> {
        self.is_rs.then_some(self.scale)
    }

    /// The uniform scale, when the uniform-scale hint is set.
    pub fn uniform_scale(&self) -> Option<f32> {
        (self.is_rs && self.is_uniform).then_some(self.scale.x)
    }

    /// The linear part `M` (`R·S` in rotation–scale form).
    pub fn matrix(&self) -> Mat3 {
        if self.is_rs {
            Mat3::from_cols(
                self.mat.x_axis * self.scale.x,
                self.mat.y_axis * self.scale.y,
                self.mat.z_axis * self.scale.z,
            )
        } else {
            self.mat
        }
    }

    /// The identity hint (set only by [`Transform::IDENTITY`]; any setter clears it).
    pub fn is_identity(&self) -> bool {
        self.is_identity
    }

    /// The uniform-scale hint.
    pub fn is_uniform_scale(&self) -> bool {
        self.is_rs && self.is_uniform
    }

    /// Whether the transform is in rotation–scale form (Eberly's later `IsRSMatrix`).
    pub fn is_rotation_scale(&self) -> bool {
        self.is_rs
    }

    /// Determinant of the linear part.
    pub fn determinant(&self) -> f32 {
        if self.is_rs {
            self.mat.determinant() * (self.scale.x * self.scale.y * self.scale.z)
        } else {
            self.mat.determinant()
        }
    }

    /// Whether the transform mirrors space (determinant < 0), which reverses the winding of
    /// triangles: a renderer must swap front and back faces for such a draw. In rotation–scale
    /// form the answer is exact (the sign of `sx·sy·sz`).
    pub fn is_mirror(&self) -> bool {
        if self.is_rs {
            (self.scale.x * self.scale.y * self.scale.z) < 0.0
        } else {
            self.mat.determinant() < 0.0
        }
    }

    /// An upper bound on how much the linear part can stretch a length: `max |s_i|` in
    /// rotation–scale form (Eberly's `GetMaximumScale`), and `min(‖M‖_F, √(‖M‖₁‖M‖∞))` in
    /// general form (both bound the spectral norm; Eberly's row-sum `GetNorm` does not). Used to
    /// transform sphere radii.
    pub fn norm(&self) -> f32 {
        if self.is_rs {
            let a = self.scale.abs();
            a.x.max(a.y).max(a.z)
        } else {
            let m = self.mat;
            let frob =
                (m.x_axis.length_squared() + m.y_axis.length_squared() + m.z_axis.length_squared())
                    .sqrt();
            let t = m.transpose();
            let col_sum = |v: Vec3| v.abs().element_sum();
            let n1 = col_sum(m.x_axis)
                .max(col_sum(m.y_axis))
                .max(col_sum(m.z_axis));
            let ninf = col_sum(t.x_axis)
                .max(col_sum(t.y_axis))
                .max(col_sum(t.z_axis));
            frob.min((n1 * ninf).sqrt())
        }
    }

    /// Applies the transform to a point: `M·p + T` (Eberly's `ApplyForward`).
    #[inline]
    pub fn apply_point(&self, p: Vec3) -> Vec3 {
        if self.is_identity {
            p
        } else if self.is_rs {
            self.mat * (self.scale * p) + self.translate
        } else {
            self.mat * p + self.translate
        }
    }

    /// Applies the linear part to a direction vector: `M·v` (no translation).
    #[inline]
    pub fn apply_vector(&self, v: Vec3) -> Vec3 {
        if self.is_identity {
            v
        } else if self.is_rs {
            self.mat * (self.scale * v)
        } else {
            self.mat * v
        }
    }

    /// Maps a plane `N0·X = c0` given in this transform's source frame to the target frame:
    /// `N1 = M⁻ᵀN0 / |M⁻ᵀN0|`, `c1 = c0/|M⁻ᵀN0| + N1·T` (Eberly `ApplyForward(Plane)`).
    ///
    /// Returns `None` when the transform is singular.
    pub fn apply_plane(&self, plane: &Plane) -> Option<Plane> {
        let n0 = plane.normal();
        let n = if self.is_identity {
            return Some(*plane);
        } else if self.is_rs {
            if self.scale.cmpeq(Vec3::ZERO).any() {
                return None;
            }
            self.mat * (n0 / self.scale)
        } else {
            let inv = self.try_inverse()?;
            inv.mat.transpose() * n0
        };
        let len = n.length();
        if len == 0.0 || !len.is_finite() {
            return None;
        }
        let n1 = n / len;
        let c1 = plane.constant() / len + n1.dot(self.translate);
        Plane::new(n1, c1).ok()
    }

    /// Composition `self ∘ other`: the transform that applies `other` first, then `self`
    /// (as matrices, `[self]·[other]`). World transforms are `parent.world.compose(&local)`.
    pub fn compose(&self, other: &Transform) -> Transform {
        if self.is_identity {
            return *other;
        }
        if other.is_identity {
            return *self;
        }
        if self.is_rs && other.is_rs && self.is_uniform {
            let s = self.scale.x;
            Transform {
                mat: self.mat * other.mat,
                scale: other.scale * s,
                translate: self.mat * (other.translate * s) + self.translate,
                is_identity: false,
                is_uniform: other.is_uniform,
                is_rs: true,
            }
        } else {
            let ma = self.matrix();
            let mb = other.matrix();
            Transform {
                mat: ma * mb,
                scale: Vec3::ONE,
                translate: ma * other.translate + self.translate,
                is_identity: false,
                is_uniform: false,
                is_rs: false,
            }
        }
    }

    /// The inverse transform, or `None` when it does not exist (a zero scale, a singular
    /// matrix) or is not finite. A uniform-scale transform inverts to rotation–scale form
    /// (`Rᵀ`, `1/s`, `−(1/s)RᵀT`); otherwise the result is in general form, which — unlike
    /// Eberly's `Inverse` — is a usable transform.
    pub fn try_inverse(&self) -> Option<Transform> {
        if self.is_identity {
            return Some(*self);
        }
        let out = if self.is_rs && self.is_uniform {
            let s = self.scale.x;
            if s == 0.0 {
                return None;
            }
            let inv_s = 1.0 / s;
            let rt = self.mat.transpose();
            Transform {
                mat: rt,
                scale: Vec3::splat(inv_s),
                translate: -(rt * self.translate) * inv_s,
                is_identity: false,
                is_uniform: true,
                is_rs: true,
            }
        } else {
            let m_inv = if self.is_rs {
                if self.scale.cmpeq(Vec3::ZERO).any() {
                    return None;
                }
                let inv_s = Vec3::ONE / self.scale;
                let rt = self.mat.transpose();
                // S⁻¹·Rᵀ: scale the rows of Rᵀ.
                Mat3::from_cols(rt.x_axis * inv_s, rt.y_axis * inv_s, rt.z_axis * inv_s)
            } else {
                let det = self.mat.determinant();
                if det == 0.0 || !det.is_finite() {
                    return None;
                }
                self.mat.inverse()
            };
            Transform {
                mat: m_inv,
                scale: Vec3::ONE,
                translate: -(m_inv * self.translate),
                is_identity: false,
                is_uniform: false,
                is_rs: false,
            }
        };
        (out.mat.is_finite() && out.scale.is_finite() && out.translate.is_finite()).then_some(out)
    }

    /// Whether every component is finite (always true for transforms built through setters;
    /// compositions of huge transforms can overflow).
    pub fn is_finite(&self) -> bool {
        self.mat.is_finite() && self.scale.is_finite() && self.translate.is_finite()
    }

    /// The homogeneous 4×4 matrix `[[M, T], [0, 1]]` for column vectors (translation in
    /// column 3). For a world transform this is `world_from_local`.
    pub fn to_mat4(&self) -> Mat4 {
        let m = self.matrix();
        Mat4::from_cols(
            m.x_axis.extend(0.0),
            m.y_axis.extend(0.0),
            m.z_axis.extend(0.0),
            self.translate.extend(1.0),
        )
    }
}

impl std::ops::Mul for Transform {
    type Output = Transform;
    /// `a * b` is `a.compose(&b)`: `b` first, then `a`.
    fn mul(self, rhs: Transform) -> Transform {
        self.compose(&rhs)
    }
}

#[cfg(feature = "internal-tests")]
pub(crate) mod tests {
    /// Every test of this module: `tests/unit.rs` runs each as one trial (an unlisted
    /// test fails the build as dead code).
    pub(crate) const TESTS: &[(&str, fn())] = &[
        ("identity_hints", identity_hints),
        ("rejects_non_finite", rejects_non_finite),
        (
            "forward_inverse_round_trip_non_uniform",
            forward_inverse_round_trip_non_uniform,
        ),
        ("composition_matches_matrices", composition_matches_matrices),
        (
            "plane_transform_maps_points_on_plane",
            plane_transform_maps_points_on_plane,
        ),
        ("inverse_of_singular_is_none", inverse_of_singular_is_none),
        ("norm_bounds_stretch", norm_bounds_stretch),
        ("mat4_is_column_vector", mat4_is_column_vector),
    ];

    use super::*;

    fn close(a: Vec3, b: Vec3) -> bool {
        (a - b).abs().max_element() <= 1e-4 * (1.0 + a.abs().max_element())
    }

    fn identity_hints() {
        let t = Transform::IDENTITY;
        assert!(t.is_identity() && t.is_uniform_scale());
        let t = Transform::from_translation(Vec3::ZERO).unwrap();
        assert!(!t.is_identity());
        let t = Transform::from_scale(Vec3::ONE).unwrap();
        assert!(!t.is_uniform_scale());
    }

    fn rejects_non_finite() {
        let mut t = Transform::IDENTITY;
        assert_eq!(
            t.set_translation(Vec3::new(f32::NAN, 0.0, 0.0)),
            Err(SceneError::NonFinite {
                what: "translation"
            })
        );
        assert!(t.set_scale(Vec3::splat(f32::INFINITY)).is_err());
        assert!(t.set_uniform_scale(f32::NEG_INFINITY).is_err());
        assert!(t.set_rotation(Mat3::from_diagonal(Vec3::NAN)).is_err());
        assert!(t.set_matrix(Mat3::from_diagonal(Vec3::INFINITY)).is_err());
        assert_eq!(
            t,
            Transform::IDENTITY,
            "failed setters leave the transform alone"
        );
        assert_eq!(
            t.set_rotation(Mat3::from_diagonal(Vec3::new(1.0, 1.0, -1.0))),
            Err(SceneError::NotARotation)
        );
        assert!(rotation_axis_angle(Vec3::ZERO, 1.0).is_err());
        assert!(rotation_axis_angle(Vec3::X, f32::NAN).is_err());
    }

    fn forward_inverse_round_trip_non_uniform() {
        let r = rotation_axis_angle(Vec3::new(1.0, 2.0, 3.0), 0.7).unwrap();
        let t = Transform::IDENTITY
            .with_scale(Vec3::new(2.0, -0.5, 3.0))
            .unwrap()
            .with_rotation(r)
            .unwrap()
            .with_translation(Vec3::new(1.0, -2.0, 5.0))
            .unwrap();
        let inv = t.try_inverse().unwrap();
        let x = Vec3::new(0.3, -4.0, 2.5);
        assert!(close(inv.apply_point(t.apply_point(x)), x));
        assert!(close(inv.apply_vector(t.apply_vector(x)), x));
        assert!(t.is_mirror());
        assert!(t.determinant() < 0.0);
        assert!(close(Vec3::splat(t.determinant()), Vec3::splat(-3.0)));
    }

    fn composition_matches_matrices() {
        let ra = rotation_axis_angle(Vec3::Y, 0.4).unwrap();
        let rb = rotation_axis_angle(Vec3::X, -1.1).unwrap();
        let a = Transform::from_rotation(ra)
            .unwrap()
            .with_uniform_scale(2.0)
            .unwrap()
            .with_translation(Vec3::new(1.0, 2.0, 3.0))
            .unwrap();
        let b = Transform::from_rotation(rb)
            .unwrap()
            .with_scale(Vec3::new(1.0, -3.0, 0.5))
            .unwrap()
            .with_translation(Vec3::new(-1.0, 0.0, 4.0))
            .unwrap();
        for (x, y) in [(a, b), (b, a), (b, b), (a, a)] {
            let c = x.compose(&y);
            let m = x.to_mat4() * y.to_mat4();
            let p = Vec3::new(0.5, -1.5, 2.0);
            assert!(close(c.apply_point(p), x.apply_point(y.apply_point(p))));
            assert!(close(c.apply_point(p), m.transform_point3(p)));
            assert_eq!(c.is_mirror(), m.determinant() < 0.0);
        }
        // Uniform parent keeps rotation–scale form (Eberly's fast path).
        assert!(a.compose(&b).is_rotation_scale());
        // Non-uniform parent under a rotated child needs the general form.
        assert!(!b.compose(&a).is_rotation_scale());
    }

    fn plane_transform_maps_points_on_plane() {
        let r = rotation_axis_angle(Vec3::new(0.0, 1.0, 1.0), 0.9).unwrap();
        let t = Transform::from_rotation(r)
            .unwrap()
            .with_scale(Vec3::new(2.0, 0.5, -1.5))
            .unwrap()
            .with_translation(Vec3::new(3.0, 1.0, -2.0))
            .unwrap();
        let p0 = Plane::new(Vec3::new(1.0, 2.0, -0.5), 1.5).unwrap();
        let p1 = t.apply_plane(&p0).unwrap();
        assert!((p1.normal().length() - 1.0).abs() < 1e-5);
        // Points on the local plane.
        let n = p0.normal();
        let base = n * p0.constant();
        let u = n.any_orthonormal_vector();
        let v = n.cross(u);
        for (a, b) in [(0.0, 0.0), (1.0, 2.0), (-3.0, 0.5)] {
            let x = base + u * a + v * b;
            let y = t.apply_point(x);
            assert!(p1.distance(y).abs() < 1e-4, "{}", p1.distance(y));
        }
        let g = Transform::from_affine(t.matrix(), t.translation()).unwrap();
        let p2 = g.apply_plane(&p0).unwrap();
        assert!(close(p1.normal(), p2.normal()));
        assert!(Transform::from_scale(Vec3::new(1.0, 0.0, 1.0))
            .unwrap()
            .apply_plane(&p0)
            .is_none());
    }

    fn inverse_of_singular_is_none() {
        assert!(Transform::from_uniform_scale(0.0)
            .unwrap()
            .try_inverse()
            .is_none());
        assert!(Transform::from_affine(Mat3::ZERO, Vec3::ZERO)
            .unwrap()
            .try_inverse()
            .is_none());
    }

    fn norm_bounds_stretch() {
        let t = Transform::from_affine(
            Mat3::from_cols(Vec3::new(1.0, 1.0, 0.0), Vec3::ZERO, Vec3::ZERO),
            Vec3::ZERO,
        )
        .unwrap();
        // The spectral norm is √2; Eberly's row-sum norm would say 1.
        assert!(t.norm() >= 2f32.sqrt() - 1e-6);
        let s = Transform::from_scale(Vec3::new(1.0, -4.0, 2.0)).unwrap();
        assert_eq!(s.norm(), 4.0);
    }

    fn mat4_is_column_vector() {
        let t = Transform::from_translation(Vec3::new(1.0, 2.0, 3.0)).unwrap();
        let m = t.to_mat4();
        assert_eq!(m.w_axis, glam::Vec4::new(1.0, 2.0, 3.0, 1.0));
        assert_eq!(m.transform_point3(Vec3::ZERO), Vec3::new(1.0, 2.0, 3.0));
    }
}
