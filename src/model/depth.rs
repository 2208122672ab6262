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
    let mut header =
        format!("{{'descr': '<f4', 'fortran_order': False, 'shape': ({height}, {width}), }}");
    // Magic (6) + version (2) + header length (2) + header, padded with spaces to a multiple
    // of 64 and ended by a newline.
    let unpadded = 10 + header.len() + 1;
    header.push_str(&" ".repeat(unpadded.next_multiple_of(64) - unpadded));
    header.push('\n');
    let mut out = Vec::with_capacity(10 + header.len() + 4 * values.len());
    out.extend_from_slice(b"\x93NUMPY\x01\x00");
    out.extend_from_slice(&(header.len() as u16).to_le_bytes());
    out.extend_from_slice(header.as_bytes());
    for v in values {
        out.extend_from_slice(&v.to_le_bytes());
    }
    out
}
