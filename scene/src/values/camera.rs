//! Eberly's camera: a frame (location E, direction D, up U, right R = D × U), a perspective or
//! orthographic frustum, a viewport and a depth range; plus the matrices of DESIGN §3 and
//! pick rays.
//!
//! * `view_from_world` maps the frame to view space: R → +x, U → +y, D → −z (right-handed,
//!   camera looks down −z).
//! * `clip_from_view` maps the frustum to clip space with depth 0..1 (near → 0, far → 1), as
//!   glam's `perspective_rh` / `orthographic_rh`; off-centre frusta (`l ≠ −r`) are supported.
//! * The viewport is a rectangle in **normalized window coordinates**, origin top-left, y down
//!   (unlike Wild Magic's bottom-left). [`CameraViewport::to_pixels`] rounds its edges to pixels.
//! * [`Camera::pick_ray`] shoots through a pixel centre `(x + 0.5, y + 0.5)` of the window,
//!   remapped into the viewport; pixels outside the viewport give `None`. Perspective rays
//!   start at the eye E (Eberly); orthographic rays start on the plane through E and all point
//!   along D. Either way the ray parameter is a world-space distance.
//! * Culling planes point **into** the frustum, in Eberly's order: left, right, bottom, top,
//!   near, far; up to [`MAX_USER_PLANES`] user planes follow.

use glam::{Mat3, Mat4, Vec2, Vec3, Vec4};

use crate::values::error::SceneError;
use crate::values::plane::Plane;
use crate::values::ray::Ray;

/// Number of frustum planes (left, right, bottom, top, near, far).
pub const FRUSTUM_PLANES: usize = 6;
/// Eberly's `CAM_MAX_WORLD_PLANES − CAM_FRUSTUM_PLANES`: at most 26 user culling planes.
pub const MAX_USER_PLANES: usize = 26;

/// Perspective or orthographic projection.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Projection {
    /// Rays through the eye; `left..top` are view-plane extents at the near distance.
    #[default]
    Perspective,
    /// Parallel rays; `left..top` are view-volume extents.
    Orthographic,
}

/// Frustum parameters in Eberly's / `glFrustum` order.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Frustum {
    /// `rmin`: smallest right-coordinate (at the near plane for perspective).
    pub left: f32,
    /// `rmax`.
    pub right: f32,
    /// `umin`.
    pub bottom: f32,
    /// `umax`.
    pub top: f32,
    /// `dmin`: near distance along D.
    pub near: f32,
    /// `dmax`: far distance along D.
    pub far: f32,
}

/// The camera's viewport: a rectangle of the render target in normalized window coordinates
/// (origin top-left, y down, `[0,1]²` is the whole target). The renderer turns it into
/// plumb-raster's `Viewport` (pixels and a depth range) with [`CameraViewport::to_pixels`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CameraViewport {
    x: f32,
    y: f32,
    width: f32,
    height: f32,
}

/// A viewport in whole pixels (origin top-left).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PixelRect {
    /// Left column.
    pub x: u32,
    /// Top row.
    pub y: u32,
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
}

impl CameraViewport {
    /// The whole target.
    pub const FULL: CameraViewport = CameraViewport {
        x: 0.0,
        y: 0.0,
        width: 1.0,
        height: 1.0,
    };

    /// A normalized viewport.
    ///
    /// # Errors
    /// [`SceneError::InvalidViewport`] unless finite, `width, height > 0` and inside `[0,1]²`.
    pub fn normalized(x: f32, y: f32, width: f32, height: f32) -> Result<Self, SceneError> {
        let ok = [x, y, width, height].iter().all(|v| v.is_finite())
            && x >= 0.0
            && y >= 0.0
            && width > 0.0
            && height > 0.0
            && x + width <= 1.0
            && y + height <= 1.0;
        if !ok {
            return Err(SceneError::InvalidViewport(
                "rectangle outside [0,1]² or empty",
            ));
        }
        Ok(CameraViewport {
            x,
            y,
            width,
            height,
        })
    }

    /// A viewport given in pixels of a `target_width × target_height` target.
    ///
    /// # Errors
    /// [`SceneError::InvalidViewport`] if the rectangle is empty or leaves the target.
    pub fn from_pixels(
        rect: PixelRect,
        target_width: u32,
        target_height: u32,
    ) -> Result<Self, SceneError> {
        if target_width == 0 || target_height == 0 {
            return Err(SceneError::InvalidViewport("empty target"));
        }
        let (w, h) = (target_width as f32, target_height as f32);
        CameraViewport::normalized(
            rect.x as f32 / w,
            rect.y as f32 / h,
            rect.width as f32 / w,
            rect.height as f32 / h,
        )
    }

    /// `(x, y, width, height)`, normalized.
    pub fn rect(&self) -> (f32, f32, f32, f32) {
        (self.x, self.y, self.width, self.height)
    }

    /// The viewport in pixels of a `width × height` target: each edge is rounded to the
    /// nearest pixel boundary.
    pub fn to_pixels(&self, width: u32, height: u32) -> PixelRect {
        let (w, h) = (width as f32, height as f32);
        let x0 = (self.x * w).round() as u32;
        let y0 = (self.y * h).round() as u32;
        let x1 = ((self.x + self.width) * w).round() as u32;
        let y1 = ((self.y + self.height) * h).round() as u32;
        PixelRect {
            x: x0.min(width),
            y: y0.min(height),
            width: x1.min(width).saturating_sub(x0),
            height: y1.min(height).saturating_sub(y0),
        }
    }
}

/// Former name of [`CameraViewport`] (plumb-raster's `Viewport` is in pixels).
#[deprecated(note = "renamed to `CameraViewport`; plumb_raster::Viewport is in pixels")]
pub type Viewport = CameraViewport;

/// A camera: frame, projection, viewport, depth range and user culling planes.
#[derive(Debug, Clone, PartialEq)]
pub struct Camera {
    location: Vec3,
    direction: Vec3,
    up: Vec3,
    right: Vec3,
    projection: Projection,
    frustum: Frustum,
    viewport: CameraViewport,
    depth_range: (f32, f32),
    user_planes: Vec<Plane>,
}

impl Default for Camera {
    /// Wild Magic's defaults: E = 0, D = −z, U = +y, R = +x, perspective frustum
    /// `(−0.5, 0.5, −0.5, 0.5, 1, 2)`, full viewport, depth range 0..1.
    fn default() -> Self {
        Camera {
            location: Vec3::ZERO,
            direction: Vec3::NEG_Z,
            up: Vec3::Y,
            right: Vec3::X,
            projection: Projection::Perspective,
            frustum: Frustum {
                left: -0.5,
                right: 0.5,
                bottom: -0.5,
                top: 0.5,
                near: 1.0,
                far: 2.0,
            },
            viewport: CameraViewport::FULL,
            depth_range: (0.0, 1.0),
            user_planes: Vec::new(),
        }
    }
}

fn finite(values: &[f32], what: &'static str) -> Result<(), SceneError> {
    if values.iter().all(|v| v.is_finite()) {
        Ok(())
    } else {
        Err(SceneError::NonFinite { what })
    }
}

impl Camera {
    /// A perspective camera with vertical field of view `fov_y` (radians, in (0, π)), aspect
    /// ratio width/height, and near/far distances, at the default frame.
    ///
    /// # Errors
    /// See [`Camera::set_perspective`].
    pub fn perspective(fov_y: f32, aspect: f32, near: f32, far: f32) -> Result<Self, SceneError> {
        let mut c = Camera::default();
        c.set_perspective(fov_y, aspect, near, far)?;
        Ok(c)
    }

    /// An orthographic camera at the default frame.
    ///
    /// # Errors
    /// See [`Camera::set_orthographic`].
    pub fn orthographic(
        left: f32,
        right: f32,
        bottom: f32,
        top: f32,
        near: f32,
        far: f32,
    ) -> Result<Self, SceneError> {
        let mut c = Camera::default();
        c.set_orthographic(left, right, bottom, top, near, far)?;
        Ok(c)
    }

    /// Symmetric perspective frustum (`gluPerspective`): `top = near·tan(fov_y/2)`,
    /// `right = aspect·top` (tangent from `plumb_raster::math`).
    ///
    /// # Errors
    /// [`SceneError::NonFinite`] or [`SceneError::InvalidFrustum`] unless
    /// `0 < fov_y < π`, `aspect > 0`, `0 < near < far`.
    pub fn set_perspective(
        &mut self,
        fov_y: f32,
        aspect: f32,
        near: f32,
        far: f32,
    ) -> Result<(), SceneError> {
        finite(&[fov_y, aspect, near, far], "perspective")?;
        if !(fov_y > 0.0 && fov_y < std::f32::consts::PI && aspect > 0.0) {
            return Err(SceneError::InvalidFrustum(
                "fov must be in (0, π), aspect > 0",
            ));
        }
        let top = near * plumb_raster::math::tan(0.5 * fov_y);
        let right = aspect * top;
        self.set_frustum(-right, right, -top, top, near, far)
    }

    /// General (possibly off-centre) perspective frustum, `glFrustum(l, r, b, t, n, f)`.
    ///
    /// # Errors
    /// [`SceneError::NonFinite`] or [`SceneError::InvalidFrustum`] unless `left < right`,
    /// `bottom < top`, `0 < near < far`.
    pub fn set_frustum(
        &mut self,
        left: f32,
        right: f32,
        bottom: f32,
        top: f32,
        near: f32,
        far: f32,
    ) -> Result<(), SceneError> {
        finite(&[left, right, bottom, top, near, far], "frustum")?;
        if !(left < right && bottom < top && near > 0.0 && near < far) {
            return Err(SceneError::InvalidFrustum(
                "need left < right, bottom < top, 0 < near < far",
            ));
        }
        self.projection = Projection::Perspective;
        self.frustum = Frustum {
            left,
            right,
            bottom,
            top,
            near,
            far,
        };
        Ok(())
    }

    /// Orthographic view volume (`glOrtho` extents; `near` may be zero or negative).
    ///
    /// # Errors
    /// [`SceneError::NonFinite`] or [`SceneError::InvalidFrustum`] unless `left < right`,
    /// `bottom < top`, `near < far`.
    pub fn set_orthographic(
        &mut self,
        left: f32,
        right: f32,
        bottom: f32,
        top: f32,
        near: f32,
        far: f32,
    ) -> Result<(), SceneError> {
        finite(&[left, right, bottom, top, near, far], "orthographic")?;
        if !(left < right && bottom < top && near < far) {
            return Err(SceneError::InvalidFrustum(
                "need left < right, bottom < top, near < far",
            ));
        }
        self.projection = Projection::Orthographic;
        self.frustum = Frustum {
            left,
            right,
            bottom,
            top,
            near,
            far,
        };
        Ok(())
    }

    /// Sets the frame from a location, a view direction and an approximate up vector:
    /// `D = normalize(direction)`, `R = normalize(D × up)`, `U = R × D`.
    ///
    /// # Errors
    /// [`SceneError::NonFinite`], or [`SceneError::DegenerateFrame`] for a zero direction or
    /// an up vector parallel to it.
    pub fn set_frame(
        &mut self,
        location: Vec3,
        direction: Vec3,
        up: Vec3,
    ) -> Result<(), SceneError> {
        if !(location.is_finite() && direction.is_finite() && up.is_finite()) {
            return Err(SceneError::NonFinite {
                what: "camera frame",
            });
        }
        let d = direction.normalize_or_zero();
        if d == Vec3::ZERO {
            return Err(SceneError::DegenerateFrame("zero direction"));
        }
        let r = d.cross(up).normalize_or_zero();
        if r == Vec3::ZERO {
            return Err(SceneError::DegenerateFrame("up is parallel to direction"));
        }
        self.location = location;
        self.direction = d;
        self.right = r;
        self.up = r.cross(d);
        Ok(())
    }

    /// Sets the frame from a rotation whose columns are the camera's right, up and backward
    /// axes (`[R U −D]`, the rotation of a camera node that looks down its local −z), taken
    /// **as is**: no re-normalisation, so a frame that came from [`Camera::look_at`] or
    /// [`Camera::set_frame`] is reproduced bit for bit. A scene file stores its camera as such
    /// a node; rebuilding it with `set_frame` would move the axes by an ulp or two.
    ///
    /// # Errors
    /// [`SceneError::NonFinite`], or [`SceneError::DegenerateFrame`] unless `rotation` is a
    /// proper rotation within [`crate::values::transform::ROTATION_TOLERANCE`].
    pub fn set_axes(&mut self, location: Vec3, rotation: Mat3) -> Result<(), SceneError> {
        if !(location.is_finite() && rotation.is_finite()) {
            return Err(SceneError::NonFinite {
                what: "camera frame",
            });
        }
        if !crate::values::transform::is_rotation(&rotation) {
            return Err(SceneError::DegenerateFrame(
                "the axes are not an orthonormal, right-handed frame",
            ));
        }
        self.location = location;
        self.right = rotation.x_axis;
        self.up = rotation.y_axis;
        self.direction = -rotation.z_axis;
        Ok(())
    }

    /// Places the eye at `eye` looking at `target`.
    ///
    /// # Errors
    /// As [`Camera::set_frame`].
    pub fn look_at(&mut self, eye: Vec3, target: Vec3, up: Vec3) -> Result<(), SceneError> {
        self.set_frame(eye, target - eye, up)
    }

    /// Sets the viewport.
    pub fn set_viewport(&mut self, viewport: CameraViewport) {
        self.viewport = viewport;
    }

    /// Sets the depth range window depths are mapped to (`near_depth + z_ndc·(far − near)`).
    ///
    /// # Errors
    /// [`SceneError::InvalidViewport`] unless both are in `[0,1]`.
    pub fn set_depth_range(&mut self, near_depth: f32, far_depth: f32) -> Result<(), SceneError> {
        if !((0.0..=1.0).contains(&near_depth) && (0.0..=1.0).contains(&far_depth)) {
            return Err(SceneError::InvalidViewport("depth range must lie in [0,1]"));
        }
        self.depth_range = (near_depth, far_depth);
        Ok(())
    }

    /// Adds a user culling plane (normal pointing into the kept half-space).
    ///
    /// # Errors
    /// [`SceneError::TooManyPlanes`] past [`MAX_USER_PLANES`].
    pub fn push_plane(&mut self, plane: Plane) -> Result<(), SceneError> {
        if self.user_planes.len() >= MAX_USER_PLANES {
            return Err(SceneError::TooManyPlanes {
                max: MAX_USER_PLANES,
            });
        }
        self.user_planes.push(plane);
        Ok(())
    }

    /// Removes the most recently pushed user plane (never a frustum plane).
    pub fn pop_plane(&mut self) -> Option<Plane> {
        self.user_planes.pop()
    }

    /// The user culling planes, in push order.
    pub fn user_planes(&self) -> &[Plane] {
        &self.user_planes
    }

    /// Eye location E.
    pub fn location(&self) -> Vec3 {
        self.location
    }
    /// View direction D (unit).
    pub fn direction(&self) -> Vec3 {
        self.direction
    }
    /// Up U (unit).
    pub fn up(&self) -> Vec3 {
        self.up
    }
    /// Right R = D × U (unit).
    pub fn right(&self) -> Vec3 {
        self.right
    }
    /// Projection type.
    pub fn projection(&self) -> Projection {
        self.projection
    }
    /// Frustum parameters.
    pub fn frustum(&self) -> Frustum {
        self.frustum
    }
    /// Viewport.
    pub fn viewport(&self) -> CameraViewport {
        self.viewport
    }
    /// Depth range `(near_depth, far_depth)`.
    pub fn depth_range(&self) -> (f32, f32) {
        self.depth_range
    }

    /// World → view: rows R, U, −D, translated so E goes to the origin.
    pub fn view_from_world(&self) -> Mat4 {
        let (e, r, u, d) = (self.location, self.right, self.up, self.direction);
        Mat4::from_cols(
            Vec4::new(r.x, u.x, -d.x, 0.0),
            Vec4::new(r.y, u.y, -d.y, 0.0),
            Vec4::new(r.z, u.z, -d.z, 0.0),
            Vec4::new(-r.dot(e), -u.dot(e), d.dot(e), 1.0),
        )
    }

    /// View → clip, depth 0..1 (see the module docs).
    pub fn clip_from_view(&self) -> Mat4 {
        let Frustum {
            left: l,
            right: r,
            bottom: b,
            top: t,
            near: n,
            far: f,
        } = self.frustum;
        match self.projection {
            Projection::Perspective => Mat4::from_cols(
                Vec4::new(2.0 * n / (r - l), 0.0, 0.0, 0.0),
                Vec4::new(0.0, 2.0 * n / (t - b), 0.0, 0.0),
                Vec4::new((r + l) / (r - l), (t + b) / (t - b), f / (n - f), -1.0),
                Vec4::new(0.0, 0.0, n * f / (n - f), 0.0),
            ),
            Projection::Orthographic => Mat4::from_cols(
                Vec4::new(2.0 / (r - l), 0.0, 0.0, 0.0),
                Vec4::new(0.0, 2.0 / (t - b), 0.0, 0.0),
                Vec4::new(0.0, 0.0, 1.0 / (n - f), 0.0),
                Vec4::new(-(r + l) / (r - l), -(t + b) / (t - b), n / (n - f), 1.0),
            ),
        }
    }

    /// `clip_from_view · view_from_world`.
    pub fn clip_from_world(&self) -> Mat4 {
        self.clip_from_view() * self.view_from_world()
    }

    /// The six world-space frustum planes (inward normals), Eberly's order and formulas
    /// (eqs. 3.12–3.17 for perspective).
    pub fn frustum_planes(&self) -> [Plane; FRUSTUM_PLANES] {
        let (e, r, u, d) = (self.location, self.right, self.up, self.direction);
        let Frustum {
            left: rmin,
            right: rmax,
            bottom: umin,
            top: umax,
            near: n,
            far: f,
        } = self.frustum;
        // Frame vectors are unit and `n > 0`, so every normal below is non-zero.
        let plane = |normal: Vec3, c: f32| Plane::from_raw(normal, c);
        let through_eye = |normal: Vec3| {
            let nn = normal / normal.length();
            Plane::from_raw(nn, nn.dot(e))
        };
        let sides = match self.projection {
            Projection::Perspective => [
                through_eye(r * n - d * rmin),
                through_eye(-r * n + d * rmax),
                through_eye(u * n - d * umin),
                through_eye(-u * n + d * umax),
            ],
            Projection::Orthographic => [
                plane(r, r.dot(e) + rmin),
                plane(-r, -(r.dot(e) + rmax)),
                plane(u, u.dot(e) + umin),
                plane(-u, -(u.dot(e) + umax)),
            ],
        };
        let [a, b, c, dd] = sides;
        [
            a,
            b,
            c,
            dd,
            plane(d, d.dot(e) + n),
            plane(-d, -(d.dot(e) + f)),
        ]
    }

    /// The pick ray through the centre of pixel `(x, y)` of a `width × height` target (origin
    /// top-left), or `None` when the pixel lies outside the viewport.
    pub fn pick_ray(&self, x: u32, y: u32, width: u32, height: u32) -> Option<Ray> {
        self.pick_ray_at(Vec2::new(x as f32 + 0.5, y as f32 + 0.5), width, height)
    }

    /// The pick ray through window position `window` (pixels, origin top-left, pixel centres
    /// at `+0.5`), or `None` outside the viewport (half-open: the right and bottom edges are
    /// outside).
    pub fn pick_ray_at(&self, window: Vec2, width: u32, height: u32) -> Option<Ray> {
        let px = self.viewport.to_pixels(width, height);
        if px.width == 0 || px.height == 0 || !window.is_finite() {
            return None;
        }
        let (vx, vy) = (px.x as f32, px.y as f32);
        let (vw, vh) = (px.width as f32, px.height as f32);
        if window.x < vx || window.y < vy || window.x >= vx + vw || window.y >= vy + vh {
            return None;
        }
        let dx = (window.x - vx) / vw;
        let dy = (window.y - vy) / vh;
        let f = self.frustum;
        let xv = f.left + dx * (f.right - f.left);
        let yv = f.top - dy * (f.top - f.bottom);
        match self.projection {
            Projection::Perspective => Ray::new(
                self.location,
                self.direction * f.near + self.right * xv + self.up * yv,
            )
            .ok(),
            Projection::Orthographic => Ray::new(
                self.location + self.right * xv + self.up * yv,
                self.direction,
            )
            .ok(),
        }
    }
}
