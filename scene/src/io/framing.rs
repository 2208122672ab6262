//! A default camera for a scene that brings none: [`frame_bound`] frames a bounding sphere.
//!
//! # The framing rule
//!
//! With the world bound's sphere (centre `c`, radius `r`; an empty bound is the unit sphere
//! at the origin, and a radius below [`MIN_FRAMING_RADIUS`] is raised to it), vertical field
//! of view `fov_y` and aspect `a = width / height`:
//!
//! * **direction**: the eye looks at `c` from [`FRAMING_DIRECTION`] = `(1, 0.6, 1.4)`
//!   normalised — front-right and a little above, so a model authored +y up, facing +z (glTF's
//!   convention) is seen three-quarter from the front. Up is +y.
//! * **distance**: `d = FRAMING_MARGIN · r / sin(h)` where `h = min(fov_y/2, fov_x/2)` and
//!   `tan(fov_x/2) = a · tan(fov_y/2)`: the sphere, grown by the margin (1.1), fits both the
//!   vertical and the horizontal field of view.
//! * **near / far**: `near = max(d − 2r, d/1000)`, `far = d + 2r` — the sphere lies well
//!   inside the depth range whatever the direction.
//!
//! All trigonometry goes through `plumb_raster::math`.

use glam::Vec3;
use plumb_raster::math;

use crate::bound::Bound;
use crate::camera::Camera;
use crate::error::SceneError;

/// The direction the framing eye sits in, from the bound's centre (normalised before use).
pub const FRAMING_DIRECTION: Vec3 = Vec3::new(1.0, 0.6, 1.4);
/// The bounding sphere's radius is multiplied by this before fitting it to the view.
pub const FRAMING_MARGIN: f32 = 1.1;
/// Smallest radius framed (a point or an empty scene still gets a usable camera).
pub const MIN_FRAMING_RADIUS: f32 = 1e-3;
/// The vertical field of view used when none is given: 45°.
pub const DEFAULT_FOV_Y: f32 = core::f32::consts::FRAC_PI_4;

/// A perspective camera framing `bound` by the rule in the [module docs](self).
///
/// # Errors
/// [`SceneError::NonFinite`] for a non-finite bound, [`SceneError::InvalidFrustum`] for a
/// field of view outside (0, π) or a non-positive aspect.
pub fn frame_bound(bound: &Bound, fov_y: f32, aspect: f32) -> Result<Camera, SceneError> {
    let (center, radius) = if bound.is_empty() {
        (Vec3::ZERO, 1.0)
    } else {
        let s = bound.to_sphere();
        (s.center(), s.radius())
    };
    if !(center.is_finite() && radius.is_finite()) {
        return Err(SceneError::NonFinite {
            what: "world bound",
        });
    }
    if !(fov_y > 0.0 && fov_y < core::f32::consts::PI && aspect > 0.0 && aspect.is_finite()) {
        return Err(SceneError::InvalidFrustum(
            "fov must be in (0, π), aspect > 0",
        ));
    }
    let r = radius.max(MIN_FRAMING_RADIUS);
    let half_y = 0.5 * fov_y;
    let half_x = math::atan2(aspect * math::tan(half_y), 1.0);
    let half = half_y.min(half_x);
    let d = FRAMING_MARGIN * r / math::sin(half);
    let (near, far) = clip_range(d, r);
    let mut camera = Camera::perspective(fov_y, aspect, near, far)?;
    let eye = center + FRAMING_DIRECTION.normalize() * d;
    camera.look_at(eye, center, Vec3::Y)?;
    Ok(camera)
}

/// The framing rule's near and far distances for an eye `distance` from the centre of a
/// sphere of `radius`: `near = max(d − 2r, d/1000)`, `far = d + 2r` (see the
/// [module docs](self)); `distance` and `radius` are raised to [`MIN_FRAMING_RADIUS`].
pub fn clip_range(distance: f32, radius: f32) -> (f32, f32) {
    let d = distance.max(MIN_FRAMING_RADIUS);
    let r = radius.max(MIN_FRAMING_RADIUS);
    ((d - 2.0 * r).max(d / 1000.0), d + 2.0 * r)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sphere_fits_and_is_centred() {
        let bound = Bound::sphere(Vec3::new(1.0, 2.0, 3.0), 2.0);
        for aspect in [0.5, 1.0, 2.0] {
            let cam = frame_bound(&bound, DEFAULT_FOV_Y, aspect).unwrap();
            // The centre projects to the middle of the view.
            let c = cam.clip_from_world() * Vec3::new(1.0, 2.0, 3.0).extend(1.0);
            assert!((c.x / c.w).abs() < 1e-5 && (c.y / c.w).abs() < 1e-5);
            // The sphere is inside every frustum plane with room to spare.
            for p in cam.frustum_planes() {
                assert_eq!(bound.which_side(&p), crate::plane::Side::Positive, "{p:?}");
            }
        }
    }

    #[test]
    fn empty_and_point_bounds_still_frame() {
        assert!(frame_bound(&Bound::default(), DEFAULT_FOV_Y, 1.0).is_ok());
        assert!(frame_bound(&Bound::sphere(Vec3::ZERO, 0.0), DEFAULT_FOV_Y, 1.0).is_ok());
        assert!(frame_bound(&Bound::sphere(Vec3::ZERO, 1.0), 0.0, 1.0).is_err());
    }
}
