//! How `plumb render` chooses its camera for a scene file.
//!
//! 1. **Base camera**: `--camera NAME|INDEX` picks an imported camera — by exact name first,
//!    else by 0-based index in node order; otherwise the first imported camera; otherwise the
//!    box of the scene's vertices **as stored in the file** (before animation,
//!    `framing::geometry_box`) is framed by the rule of
//!    [`crate::scene::io::framing`] with `--fov` (default 45°) and the image's aspect.
//!    Imported cameras follow their (animated) nodes; a fixed aspect ratio in the file is
//!    kept.
//! 2. **Frame overrides**: if any of `--eye`, `--target`, `--up` is given, the camera looks
//!    from `--eye` (default: the base camera's eye) at `--target` (default: the centre of that
//!    box) with up `--up` (default +y).
//! 3. **Projection overrides**: if any of `--fov`, `--near`, `--far` is given (or the framed
//!    camera's eye was moved), the projection is rebuilt as a symmetric perspective with the
//!    image's aspect: the field of view is `--fov` or the base camera's vertical one; near and
//!    far are `--near` / `--far`, else — for a framed camera — the framing rule's range for
//!    the eye's distance to the bound centre, else the base camera's. An orthographic base
//!    camera stays orthographic (only near / far change) unless `--fov` is given.
//! 4. **Calibrated cameras**, as vision tools give them: `--pose` a 4 × 4 camera-to-world
//!    matrix (16 numbers, row-major, as numpy's `pose.flatten()`), in the convention
//!    `--pose-convention` names — `opengl` (the camera looks down its −z, y up; pyrender's) or
//!    `opencv` (+z forward, y down) — replaces the frame (no `--eye/--target/--up` with it);
//!    `--intrinsics FX,FY,CX,CY` (pixels of the output image) replaces the projection by the
//!    off-centre frustum that puts a camera-space point `(X, Y, Z)` (OpenCV axes) at
//!    OpenCV's pixel `u = FX·X/Z + CX`, `v = FY·Y/Z + CY`, where `(0, 0)` is the **centre** of
//!    the top-left pixel — plumb's window coordinates `(u + 0.5, v + 0.5)` (no `--fov` with
//!    it). Near and far are `--near` / `--far`, else as in step 3.

use crate::raster::math::{atan2, to_radians};
use crate::scene::io::framing::{clip_range, frame_bound, DEFAULT_FOV_Y};
use crate::scene::io::{Imported, ImportedCamera};
use crate::scene::{Bound, Camera, Projection, Scene};
use clap::Args;
use glam::{Mat3, Vec3};

use super::args::{parse_positive, parse_vec3};

/// Camera choice and overrides of `plumb render`.
#[derive(Clone, Debug, Default, Args)]
pub struct CameraArgs {
    /// Imported camera by name, or by 0-based index when no camera has that name.
    #[arg(long, value_name = "NAME|INDEX")]
    pub camera: Option<String>,
    /// Eye position.
    #[arg(long, value_name = "X,Y,Z", value_parser = parse_vec3, allow_hyphen_values = true)]
    pub eye: Option<Vec3>,
    /// Point looked at.
    #[arg(long, value_name = "X,Y,Z", value_parser = parse_vec3, allow_hyphen_values = true)]
    pub target: Option<Vec3>,
    /// Up vector.
    #[arg(long, value_name = "X,Y,Z", value_parser = parse_vec3, allow_hyphen_values = true)]
    pub up: Option<Vec3>,
    /// Vertical field of view in degrees, in (0, 180).
    #[arg(long, value_name = "DEG", value_parser = parse_fov, allow_hyphen_values = true)]
    pub fov: Option<f32>,
    /// Near plane distance (> 0).
    #[arg(long, value_name = "N", value_parser = parse_positive, allow_hyphen_values = true)]
    pub near: Option<f32>,
    /// Far plane distance (> near).
    #[arg(long, value_name = "F", value_parser = parse_positive, allow_hyphen_values = true)]
    pub far: Option<f32>,
    /// Camera-to-world pose: a 4×4 matrix as 16 numbers, row-major (numpy's
    /// `pose.flatten()`), its last row 0,0,0,1 and its 3×3 part a rotation. Replaces the
    /// frame; see `--pose-convention`.
    #[arg(
        long,
        value_name = "M00,M01,…,M33",
        value_parser = parse_pose,
        allow_hyphen_values = true,
        conflicts_with_all = ["eye", "target", "up"]
    )]
    pub pose: Option<[f32; 16]>,
    /// The camera axes `--pose` gives: `opengl` (looks down −z, y up: pyrender, Blender,
    /// glTF) or `opencv` (looks down +z, y down).
    #[arg(long, value_name = "CONVENTION", value_enum, default_value_t = PoseConvention::OpenGl)]
    pub pose_convention: PoseConvention,
    /// Pinhole intrinsics in pixels of the output image, as OpenCV's camera matrix gives
    /// them: focal lengths and principal point, `(0, 0)` the centre of the top-left pixel.
    /// Replaces the projection by the exact off-centre frustum.
    #[arg(
        long,
        value_name = "FX,FY,CX,CY",
        value_parser = parse_intrinsics,
        allow_hyphen_values = true,
        conflicts_with = "fov"
    )]
    pub intrinsics: Option<[f32; 4]>,
}

/// The camera axes of a `--pose` matrix.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum PoseConvention {
    /// The camera looks down its −z axis, y up (OpenGL, pyrender, Blender, glTF).
    #[default]
    #[value(name = "opengl")]
    OpenGl,
    /// The camera looks down its +z axis, y down, x right (OpenCV, COLMAP).
    #[value(name = "opencv")]
    OpenCv,
}

/// Parses 16 finite numbers, a row-major 4×4 matrix.
fn parse_pose(s: &str) -> Result<[f32; 16], String> {
    let v = super::args::parse_numbers(s, 16)?;
    let mut m = [0.0; 16];
    m.copy_from_slice(&v);
    Ok(m)
}

/// Parses `FX,FY,CX,CY`: focal lengths > 0, a finite principal point.
fn parse_intrinsics(s: &str) -> Result<[f32; 4], String> {
    let v = super::args::parse_numbers(s, 4)?;
    if !(v[0] > 0.0 && v[1] > 0.0) {
        return Err(format!("focal lengths must be > 0, got '{s}'"));
    }
    Ok([v[0], v[1], v[2], v[3]])
}

/// The frame of a camera-to-world `pose` (row-major) in `convention`: its location and the
/// rotation `[R U −D]` of a camera looking down its −z.
///
/// # Errors
/// A one-line message when the last row is not `0, 0, 0, 1` or the 3×3 part is not a
/// rotation (orthonormal, determinant +1, within 10⁻⁴).
pub fn pose_frame(pose: &[f32; 16], convention: PoseConvention) -> Result<(Vec3, Mat3), String> {
    let m = |r: usize, c: usize| pose[4 * r + c];
    if [m(3, 0), m(3, 1), m(3, 2), m(3, 3)] != [0.0, 0.0, 0.0, 1.0] {
        return Err("--pose: the last row must be 0,0,0,1".to_owned());
    }
    let column = |c: usize| Vec3::new(m(0, c), m(1, c), m(2, c));
    let (x, y, z) = (column(0), column(1), column(2));
    let rotation = match convention {
        PoseConvention::OpenGl => Mat3::from_cols(x, y, z),
        // OpenCV's y (down) and z (forward) are OpenGL's −y and −z.
        PoseConvention::OpenCv => Mat3::from_cols(x, -y, -z),
    };
    let orthonormal = (rotation.transpose() * rotation).abs_diff_eq(Mat3::IDENTITY, 1e-4);
    if !orthonormal || (rotation.determinant() - 1.0).abs() > 1e-4 {
        return Err(
            "--pose: the 3x3 part is not a rotation (orthonormal, determinant +1)".to_owned(),
        );
    }
    Ok((column(3), rotation))
}

/// The frustum `(left, right, bottom, top)` at distance `near` that puts OpenCV's pixel
/// `(u, v) = (fx·X/Z + cx, fy·Y/Z + cy)` at plumb's window coordinates `(u + 0.5, v + 0.5)`
/// in a `width × height` image (window origin top-left, y down; OpenCV's y is down too).
pub fn intrinsics_frustum(
    [fx, fy, cx, cy]: [f32; 4],
    width: u32,
    height: u32,
    near: f32,
) -> (f32, f32, f32, f32) {
    let (w, h) = (width as f32, height as f32);
    let left = -(cx + 0.5) * near / fx;
    let right = (w - cx - 0.5) * near / fx;
    let top = (cy + 0.5) * near / fy;
    let bottom = -(h - cy - 0.5) * near / fy;
    (left, right, bottom, top)
}

/// Parses a field of view in degrees in (0, 180).
fn parse_fov(s: &str) -> Result<f32, String> {
    let v = parse_positive(s)?;
    if v >= 180.0 {
        return Err(format!("field of view must be below 180 degrees, got {v}"));
    }
    Ok(v)
}

/// The imported camera `selection` names (see the [module docs](self)), or the first one.
fn pick<'a>(
    imported: &'a Imported,
    selection: Option<&str>,
) -> Result<Option<&'a ImportedCamera>, String> {
    let cameras = &imported.cameras;
    let Some(sel) = selection else {
        return Ok(cameras.first());
    };
    if let Some(c) = cameras.iter().find(|c| c.name == sel) {
        return Ok(Some(c));
    }
    if let Ok(i) = sel.trim().parse::<usize>() {
        return cameras.get(i).map(Some).ok_or_else(|| {
            format!(
                "camera index {i} is out of range: the scene has {} camera(s)",
                cameras.len()
            )
        });
    }
    if cameras.is_empty() {
        return Err(format!("no camera named '{sel}': the scene has no cameras"));
    }
    let names: Vec<String> = cameras.iter().map(|c| format!("'{}'", c.name)).collect();
    Err(format!(
        "no camera named '{sel}' (cameras: {})",
        names.join(", ")
    ))
}

/// The camera for one frame (see the [module docs](self)). `rest_bound` is the vertex box
/// of the scene as loaded.
///
/// # Errors
/// A one-line message for an unknown camera, an out-of-range index, or overrides that give
/// no valid view (eye at the target, up along the view direction, near ≥ far).
pub fn choose_camera(
    scene: &Scene,
    imported: &Imported,
    view: &CameraArgs,
    rest_bound: &Bound,
    width: u32,
    height: u32,
) -> Result<Camera, String> {
    let aspect = width as f32 / height as f32;
    let fov = view.fov.map(to_radians);
    let (mut camera, framed) = match pick(imported, view.camera.as_deref())? {
        Some(c) => {
            let camera = c.to_camera(scene, aspect).map_err(|e| {
                let name = if c.name.is_empty() {
                    "(unnamed)"
                } else {
                    &c.name
                };
                format!("camera '{name}': {e}")
            })?;
            (camera, false)
        }
        None => (
            frame_bound(rest_bound, fov.unwrap_or(DEFAULT_FOV_Y), aspect)
                .map_err(|e| format!("framing the scene: {e}"))?,
            true,
        ),
    };
    let (center, radius) = if rest_bound.is_empty() {
        (Vec3::ZERO, 1.0)
    } else {
        (rest_bound.center(), rest_bound.radius())
    };
    let moved = view.eye.is_some() || view.target.is_some() || view.up.is_some();
    if moved {
        let eye = view.eye.unwrap_or(camera.location());
        let target = view.target.unwrap_or(center);
        let up = view.up.unwrap_or(Vec3::Y);
        camera
            .look_at(eye, target, up)
            .map_err(|e| format!("--eye/--target/--up: {e}"))?;
    }
    if let Some(pose) = &view.pose {
        let (location, rotation) = pose_frame(pose, view.pose_convention)?;
        camera
            .set_axes(location, rotation)
            .map_err(|e| format!("--pose: {e}"))?;
    }
    let moved = moved || view.pose.is_some();
    // `--near` / `--far`, else the framing rule's range for the eye's distance to the bound
    // centre (a framed camera), else the camera's own.
    let near_far = |camera: &Camera| {
        let f = camera.frustum();
        let (near, far) = if framed {
            clip_range(camera.location().distance(center), radius)
        } else {
            (f.near, f.far)
        };
        (view.near.unwrap_or(near), view.far.unwrap_or(far))
    };
    if let Some(k) = view.intrinsics {
        let (near, far) = near_far(&camera);
        let (l, r, b, t) = intrinsics_frustum(k, width, height, near);
        camera
            .set_frustum(l, r, b, t, near, far)
            .map_err(|e| format!("--intrinsics/--near/--far: {e}"))?;
        return Ok(camera);
    }
    let reproject =
        view.fov.is_some() || view.near.is_some() || view.far.is_some() || (framed && moved);
    if reproject {
        let f = camera.frustum();
        let (near, far) = near_far(&camera);
        let result = match (camera.projection(), fov) {
            (Projection::Orthographic, None) => {
                camera.set_orthographic(f.left, f.right, f.bottom, f.top, near, far)
            }
            (Projection::Perspective, None) => {
                let fov_y = 2.0 * atan2(0.5 * (f.top - f.bottom), f.near);
                camera.set_perspective(fov_y, aspect, near, far)
            }
            (_, Some(fov_y)) => camera.set_perspective(fov_y, aspect, near, far),
        };
        result.map_err(|e| format!("--fov/--near/--far: {e}"))?;
    }
    Ok(camera)
}
