//! An orbit camera for interactive viewing: the eye circles a target point at a distance,
//! steered by yaw and pitch; panning moves the target in the view plane; zooming scales the
//! distance. Pure data and math (no window), so the viewer's controls are unit-tested.
//!
//! Conventions (DESIGN §3): right-handed, +Y up. At yaw 0 and pitch 0 the eye sits on the +Z
//! side of the target looking down −Z; positive yaw turns the eye towards +X, positive pitch
//! raises it. Pitch is kept inside ±89° so the view never flips over the pole.

use crate::raster::math;
use crate::scene::{Camera, SceneError};
use glam::Vec3;

/// Radians of yaw or pitch per pixel of mouse drag.
pub const ROTATE_PER_PIXEL: f32 = 0.01;
/// Distance factor per zoom step (a scroll notch): `distance × ZOOM_STEP^steps`.
pub const ZOOM_STEP: f32 = 0.9;
/// Pitch limit, just short of straight up or down.
pub const MAX_PITCH: f32 = 89.0 * core::f32::consts::PI / 180.0;

/// An orbiting viewpoint.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Orbit {
    /// The point looked at and orbited.
    pub target: Vec3,
    /// Eye-to-target distance, > 0.
    pub distance: f32,
    /// Rotation about +Y, radians.
    pub yaw: f32,
    /// Elevation above the target's horizontal plane, radians in ±[`MAX_PITCH`].
    pub pitch: f32,
    /// Vertical field of view, radians.
    pub fov_y: f32,
}

impl Orbit {
    /// A view of the sphere `(center, radius)` that fits it in the vertical and horizontal
    /// field of view with 10 % to spare, from 30° to the right and 20° above.
    pub fn framing(center: Vec3, radius: f32, fov_y: f32, aspect: f32) -> Orbit {
        let radius = if radius.is_finite() && radius > 0.0 {
            radius
        } else {
            1.0
        };
        // The narrower of the two half-angles decides the distance.
        let half_v = 0.5 * fov_y;
        let half_h = math::atan(math::tan(half_v) * aspect.max(1e-3));
        let half = half_v.min(half_h);
        let distance = 1.1 * radius / math::sin(half);
        Orbit {
            target: center,
            distance,
            yaw: math::to_radians(30.0),
            pitch: math::to_radians(20.0),
            fov_y,
        }
    }

    /// Unit vector from the target to the eye.
    pub fn offset_dir(&self) -> Vec3 {
        let (sy, cy) = math::sin_cos(self.yaw);
        let (sp, cp) = math::sin_cos(self.pitch);
        Vec3::new(sy * cp, sp, cy * cp)
    }

    /// The eye position.
    pub fn eye(&self) -> Vec3 {
        self.target + self.offset_dir() * self.distance
    }

    /// Turns the view by a mouse drag of `(dx, dy)` pixels: right drags move the eye to the
    /// left around the target (the scene turns with the mouse), down drags raise the eye.
    pub fn rotate(&mut self, dx: f32, dy: f32) {
        self.yaw -= dx * ROTATE_PER_PIXEL;
        self.pitch = (self.pitch + dy * ROTATE_PER_PIXEL).clamp(-MAX_PITCH, MAX_PITCH);
    }

    /// Moves the target in the view plane so that the point under the cursor follows a drag
    /// of `(dx, dy)` pixels in a viewport `height` pixels tall.
    pub fn pan(&mut self, dx: f32, dy: f32, height: f32) {
        let dir = -self.offset_dir();
        let right = dir.cross(Vec3::Y).normalize_or_zero();
        let up = right.cross(dir).normalize_or_zero();
        // World units per pixel at the target's depth.
        let per_pixel = 2.0 * self.distance * math::tan(0.5 * self.fov_y) / height.max(1.0);
        self.target += (-dx * right + dy * up) * per_pixel;
    }

    /// Zooms by `steps` scroll notches (positive = closer).
    pub fn zoom(&mut self, steps: f32) {
        let d = self.distance * math::powf(ZOOM_STEP, steps);
        if d.is_finite() && d > 1e-6 {
            self.distance = d;
        }
    }

    /// A perspective camera for this view with `aspect` = width / height; near and far
    /// planes bracket a sphere of `radius` around the target (near ≥ distance / 1000).
    ///
    /// # Errors
    /// [`SceneError`] for a degenerate view (non-finite numbers).
    pub fn camera(&self, aspect: f32, radius: f32) -> Result<Camera, SceneError> {
        let far = self.distance + 2.0 * radius.max(1e-3);
        let near = (self.distance - 2.0 * radius).max(self.distance * 1e-3);
        let mut camera = Camera::perspective(self.fov_y, aspect, near, far)?;
        camera.look_at(self.eye(), self.target, Vec3::Y)?;
        Ok(camera)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: Vec3, b: Vec3) -> bool {
        (a - b).abs().max_element() < 1e-4
    }

    #[test]
    fn framing_fits_the_sphere_in_the_narrower_fov() {
        // fov 60°, square: half-angle 30°, sin 30° = ½ → distance = 1.1·r/½ = 2.2·r.
        let o = Orbit::framing(Vec3::ZERO, 2.0, math::to_radians(60.0), 1.0);
        assert!((o.distance - 4.4).abs() < 1e-4, "{}", o.distance);
        // A tall image (aspect ½): horizontal half-angle atan(tan 30°·½) = 16.1°, which
        // decides: distance = 1.1·2 / sin 16.1° = 7.93.
        let o = Orbit::framing(Vec3::ZERO, 2.0, math::to_radians(60.0), 0.5);
        assert!((o.distance - 7.93).abs() < 0.01, "{}", o.distance);
        // Degenerate radius → 1.
        let o = Orbit::framing(Vec3::ONE, f32::NAN, math::to_radians(60.0), 1.0);
        assert!((o.distance - 2.2).abs() < 1e-4);
    }

    #[test]
    fn eye_follows_yaw_and_pitch() {
        let mut o = Orbit::framing(Vec3::new(1.0, 2.0, 3.0), 1.0, 1.0, 1.0);
        o.distance = 5.0;
        o.yaw = 0.0;
        o.pitch = 0.0;
        assert!(close(o.eye(), Vec3::new(1.0, 2.0, 8.0)));
        o.yaw = core::f32::consts::FRAC_PI_2; // towards +X
        assert!(close(o.eye(), Vec3::new(6.0, 2.0, 3.0)));
        o.yaw = 0.0;
        o.pitch = core::f32::consts::FRAC_PI_6; // 30° up: (0, 2.5, 4.33)
        assert!(close(o.eye(), Vec3::new(1.0, 4.5, 3.0 + 4.330127)));
    }

    #[test]
    fn rotate_clamps_pitch_and_zoom_scales_distance() {
        let mut o = Orbit::framing(Vec3::ZERO, 1.0, 1.0, 1.0);
        o.rotate(0.0, 1e6);
        assert_eq!(o.pitch, MAX_PITCH);
        o.rotate(0.0, -1e6);
        assert_eq!(o.pitch, -MAX_PITCH);
        let (yaw, d) = (o.yaw, o.distance);
        o.rotate(100.0, 0.0);
        assert!((o.yaw - (yaw - 1.0)).abs() < 1e-6);
        o.zoom(2.0);
        assert!((o.distance - d * 0.81).abs() < 1e-5);
        o.zoom(f32::INFINITY); // would collapse to 0: ignored
        assert!((o.distance - d * 0.81).abs() < 1e-5);
    }

    #[test]
    fn pan_moves_the_target_in_the_view_plane() {
        let mut o = Orbit::framing(Vec3::ZERO, 1.0, math::to_radians(90.0), 1.0);
        o.yaw = 0.0;
        o.pitch = 0.0;
        o.distance = 1.0;
        // 90° fov, 100 px tall at distance 1: 2·1·tan 45° / 100 = 0.02 units per pixel.
        o.pan(50.0, 0.0, 100.0); // drag right → target moves left (−X)
        assert!(close(o.target, Vec3::new(-1.0, 0.0, 0.0)), "{}", o.target);
        o.pan(0.0, 50.0, 100.0); // drag down → target moves up
        assert!(close(o.target, Vec3::new(-1.0, 1.0, 0.0)), "{}", o.target);
    }

    #[test]
    fn camera_looks_at_the_target() {
        let o = Orbit::framing(Vec3::new(0.0, 1.0, 0.0), 1.0, 1.0, 1.5);
        let c = o.camera(1.5, 1.0).unwrap();
        assert!(close(c.location(), o.eye()));
        assert!(close(c.direction(), -o.offset_dir()));
    }
}
