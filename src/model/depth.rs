//! The planes a frame leaves besides colour, for datasets — metric depth, object ids, normals —
//! and the NumPy `.npy` files that hold them.
//!
//! Metric depth: the window depth a frame's fragments left, turned back into the distance
//! along the camera's viewing axis (eye-space `−z`, in scene units: metres for glTF), and the
//! NumPy `.npy` file that holds it (`plumb render --depth-out DEPTH.npy`, `depth="metric"`
//! in Python).
//!
//! The projection maps eye-space `z` to window depth through its matrix `P` and the camera's
//! depth range; solving `d = (P₂₂·z + P₂₃) / (P₃₂·z + P₃₃)` for `z` (in `f64`) inverts it for
//! perspective and orthographic cameras alike. A pixel no fragment wrote keeps the cleared
//! depth, 1: it is 0 here (nothing drawn). Precision: the depth buffer holds `f32`, so the
//! distance's relative error grows with `z · (far − near) / (near · far)`; about 3·10⁻⁶ at
//! 5 m with near 0.1 and far 100.

use crate::scene::Camera;

/// The distance along the viewing axis of each pixel of `window` (window depth as
/// [`crate::scene::SoftRenderer::depth`] gives it), for the `camera` the frame was drawn
/// with; 0 where nothing was drawn.
pub fn metric_depth(window: &[f32], camera: &Camera) -> Vec<f32> {
    let p = camera.clip_from_view();
    let (zz, wz) = (f64::from(p.z_axis.z), f64::from(p.w_axis.z));
    let (zw, ww) = (f64::from(p.z_axis.w), f64::from(p.w_axis.w));
    let (near_depth, far_depth) = camera.depth_range();
    let (dn, span) = (f64::from(near_depth), f64::from(far_depth - near_depth));
    window
        .iter()
        .map(|&w| {
            if w >= 1.0 || span == 0.0 {
                return 0.0;
            }
            let d = (f64::from(w) - dn) / span;
            // d = (zz·z + wz) / (zw·z + ww)  ⇒  z = (wz − d·ww) / (d·zw − zz).
            let z = (wz - d * ww) / (d * zw - zz);
            let distance = -z;
            if distance.is_finite() {
                distance as f32
            } else {
                0.0
            }
        })
        .collect()
}

/// A NumPy `.npy` file (format 1.0) of `width × height` little-endian `float32` values, row
/// 0 at the top: `numpy.load` gives a `(height, width)` array.
pub fn npy_f32(width: u32, height: u32, values: &[f32]) -> Vec<u8> {
    npy(
        "<f4",
        &[height, width],
        values.iter().map(|v| v.to_le_bytes()),
    )
}

/// A NumPy `.npy` file (format 1.0) of `width × height` little-endian `uint32` values (an id
/// plane), row 0 at the top: a `(height, width)` array.
pub fn npy_u32(width: u32, height: u32, values: &[u32]) -> Vec<u8> {
    npy(
        "<u4",
        &[height, width],
        values.iter().map(|v| v.to_le_bytes()),
    )
}

/// A NumPy `.npy` file (format 1.0) of `width × height` `float32` 3-vectors (a normal plane),
/// row 0 at the top: a `(height, width, 3)` array.
pub fn npy_f32x3(width: u32, height: u32, values: &[[f32; 3]]) -> Vec<u8> {
    let scalars = values.as_flattened().iter().map(|v| v.to_le_bytes());
    npy("<f4", &[height, width, 3], scalars)
}

/// A NumPy `.npy` file (format 1.0): C order, `descr` a 4-byte little-endian type, `shape`
/// the dimensions, `items` the values' bytes in order.
fn npy(descr: &str, shape: &[u32], items: impl ExactSizeIterator<Item = [u8; 4]>) -> Vec<u8> {
    let dims: Vec<String> = shape.iter().map(u32::to_string).collect();
    let mut header = format!(
        "{{'descr': '{descr}', 'fortran_order': False, 'shape': ({}), }}",
        dims.join(", ")
    );
    // Magic (6) + version (2) + header length (2) + header, padded with spaces to a multiple
    // of 64 and ended by a newline.
    let unpadded = 10 + header.len() + 1;
    header.push_str(&" ".repeat(unpadded.next_multiple_of(64) - unpadded));
    header.push('\n');
    let mut out = Vec::with_capacity(10 + header.len() + 4 * items.len());
    out.extend_from_slice(b"\x93NUMPY\x01\x00");
    out.extend_from_slice(&(header.len() as u16).to_le_bytes());
    out.extend_from_slice(header.as_bytes());
    for v in items {
        out.extend_from_slice(&v);
    }
    out
}

/// Where a normal plane's vectors are expressed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum NormalSpace {
    /// The camera's frame, OpenGL's convention: x right, y up, z towards the viewer.
    #[default]
    Camera,
    /// The scene's world frame.
    World,
}

impl std::str::FromStr for NormalSpace {
    type Err = String;
    fn from_str(s: &str) -> Result<NormalSpace, String> {
        match s {
            "camera" => Ok(NormalSpace::Camera),
            "world" => Ok(NormalSpace::World),
            _ => Err(format!("'{s}' is not a normal space: camera or world")),
        }
    }
}

/// The eye-space `normals` of a frame drawn with `camera`, in `space`: unit vectors, zero where
/// nothing was drawn (or the mesh had no normals).
pub fn normals_in(normals: Vec<[f32; 3]>, camera: &Camera, space: NormalSpace) -> Vec<[f32; 3]> {
    if space == NormalSpace::Camera {
        return normals;
    }
    // Normals go from view to world space by the inverse transpose of world-from-view's
    // linear part: the transpose of view-from-world's.
    let m = glam::Mat3::from_mat4(camera.view_from_world()).transpose();
    normals
        .into_iter()
        .map(|n| {
            let v = glam::Vec3::from_array(n);
            if v == glam::Vec3::ZERO {
                return n;
            }
            let w = m * v;
            let l = w.dot(w).sqrt();
            if l > 0.0 && l.is_finite() {
                (w / l).to_array()
            } else {
                [0.0; 3]
            }
        })
        .collect()
}

/// An id plane as 16-bit grey PNG pixels, or a message naming the first id above 65,535
/// (write `.npy` for those).
pub fn ids_u16(ids: &[u32]) -> Result<Vec<u16>, String> {
    ids.iter()
        .map(|&i| {
            u16::try_from(i)
                .map_err(|_| format!("object id {i} does not fit a 16-bit PNG: write .npy"))
        })
        .collect()
}

/// A normal plane as RGBA8 for looking at: `(n + 1) / 2` per channel, alpha 255; transparent
/// black where nothing was drawn.
pub fn normals_rgba8(normals: &[[f32; 3]]) -> Vec<u8> {
    let mut out = Vec::with_capacity(4 * normals.len());
    for n in normals {
        if *n == [0.0; 3] {
            out.extend_from_slice(&[0; 4]);
        } else {
            for c in n {
                out.push(((c.clamp(-1.0, 1.0) + 1.0) * 127.5 + 0.5) as u8);
            }
            out.push(255);
        }
    }
    out
}
