//! Homogeneous clipping of triangles and lines.
//!
//! Primitives are clipped in clip space against: the near plane `z ≥ 0`, the far plane
//! `z ≤ w`, four x/y planes and the user clip planes. Near and far together imply `w ≥ 0`, so
//! nothing behind the eye survives, and a vertex with `w = 0` can only remain as a degenerate
//! point (rejected at snapping).
//!
//! **The x/y planes depend on the primitive** (GL 1.4 §2.11, "the view volume"):
//! - *filled polygons* ([`ClipPlanes::new`]) are clipped only to a guard band (so snapped
//!   window coordinates stay inside [`crate::base::fixed::GUARD_BAND_PX`]); the rest of the view
//!   volume is cut in window space, where it is the viewport rectangle: setup clamps every
//!   triangle's pixel box to target ∩ scissor ∩ viewport. For a filled polygon that is exactly
//!   GL's clip to `−w ≤ x, y ≤ w`, and much cheaper.
//! - *points, lines, and polygons drawn in `Line` or `Point` mode* ([`ClipPlanes::view`]) are
//!   clipped to the view volume itself, `−w ≤ x, y ≤ w`: a point whose centre is outside is
//!   discarded, a line is cut where it leaves the volume, and a polygon's vertices and edges
//!   outside it are not drawn — as GL does. Their quads (`point_size`, `line_width`) are then
//!   only cut at target ∩ scissor, so a wide point or line whose centre is inside may spill
//!   past the viewport edge, as in GL (§3.3, §3.4).
//!
//! **Watertightness across shared edges.** Where an edge crosses a plane the new vertex is
//! always computed from the inside end towards the outside end, `v = in + t·(out − in)` with
//! `t = d_in / (d_in − d_out)`. Two triangles that share an edge therefore produce the same
//! new vertex bit for bit, whichever direction they traverse it.

use glam::Vec4;

use crate::base::fixed::GUARD_BAND_PX;
use crate::state::{Viewport, MAX_CLIP_PLANES};
use crate::vertex::ClipVertex;

/// Most planes a primitive is clipped against: near, far, 4 guard band, user planes.
pub const MAX_PLANES: usize = 6 + MAX_CLIP_PLANES;
/// Most vertices of a clipped triangle.
pub const MAX_POLY: usize = 3 + MAX_PLANES;

/// The set of planes for one draw.
#[derive(Clone, Debug)]
pub struct ClipPlanes {
    planes: [Vec4; MAX_PLANES],
    count: usize,
    /// The guard band's `(x_lo, x_hi, y_lo, y_hi)` in NDC (planes 2 to 5).
    band: [f32; 4],
}

impl ClipPlanes {
    /// Near, far, guard band for `viewport`, then the user planes (for filled polygons).
    pub fn new(viewport: &Viewport, user: &[Option<Vec4>]) -> ClipPlanes {
        // window x = vx + (ndc + 1)·vw/2 must stay in [−G, G]:
        //   ndc ≥ lo = (−G − vx)·2/vw − 1   and   ndc ≤ hi = (G − vx)·2/vw − 1.
        // Window y = vy + (1 − ndc)·vh/2 gives the mirrored bounds for y.
        let g = GUARD_BAND_PX;
        let x_lo = (-g - viewport.x) * 2.0 / viewport.width - 1.0;
        let x_hi = (g - viewport.x) * 2.0 / viewport.width - 1.0;
        let y_lo = 1.0 - (g - viewport.y) * 2.0 / viewport.height;
        let y_hi = 1.0 - (-g - viewport.y) * 2.0 / viewport.height;
        Self::with_band([x_lo, x_hi, y_lo, y_hi], user)
    }

    /// Near, far, the view volume's `−w ≤ x ≤ w`, `−w ≤ y ≤ w`, then the user planes (for
    /// points, lines and polygons drawn in `Line` or `Point` mode; GL 1.4 §2.11). The view
    /// volume lies inside every guard band, so these planes also keep snapping in range.
    pub fn view(user: &[Option<Vec4>]) -> ClipPlanes {
        Self::with_band([-1.0, 1.0, -1.0, 1.0], user)
    }

    /// Near, far, the x/y planes `x_lo·w ≤ x ≤ x_hi·w`, `y_lo·w ≤ y ≤ y_hi·w`, user planes.
    fn with_band([x_lo, x_hi, y_lo, y_hi]: [f32; 4], user: &[Option<Vec4>]) -> ClipPlanes {
        let mut planes = [Vec4::ZERO; MAX_PLANES];
        planes[0] = Vec4::new(0.0, 0.0, 1.0, 0.0); // z ≥ 0
        planes[1] = Vec4::new(0.0, 0.0, -1.0, 1.0); // z ≤ w
        planes[2] = Vec4::new(1.0, 0.0, 0.0, -x_lo); // x ≥ lo·w
        planes[3] = Vec4::new(-1.0, 0.0, 0.0, x_hi); // x ≤ hi·w
        planes[4] = Vec4::new(0.0, 1.0, 0.0, -y_lo);
        planes[5] = Vec4::new(0.0, -1.0, 0.0, y_hi);
        let mut count = 6;
        for p in user.iter().flatten() {
            planes[count] = *p;
            count += 1;
        }
        ClipPlanes {
            planes,
            count,
            band: [x_lo, x_hi, y_lo, y_hi],
        }
    }

    /// The x/y planes' `(x_lo, x_hi, y_lo, y_hi)` in NDC (see [`ClipPlanes::outcode`]).
    pub(crate) fn band(&self) -> [f32; 4] {
        self.band
    }

    /// The active planes.
    pub fn planes(&self) -> &[Vec4] {
        &self.planes[..self.count]
    }

    /// Bit `i` set when `p` is outside plane `i`.
    ///
    /// For a finite `p`, the six fixed planes are tested as `z < 0`, `w − z < 0`,
    /// `x − x_lo·w < 0`, … — the values `math::dot4` gives for their plane vectors, whose
    /// zero terms only add signed zeros (which no `< 0` test sees), in two operations
    /// instead of seven.
    #[inline]
    pub fn outcode(&self, p: Vec4) -> u32 {
        let [x_lo, x_hi, y_lo, y_hi] = self.band;
        let mut code = u32::from(p.z < 0.0)
            | u32::from(p.w - p.z < 0.0) << 1
            | u32::from(p.x - x_lo * p.w < 0.0) << 2
            | u32::from(x_hi * p.w - p.x < 0.0) << 3
            | u32::from(p.y - y_lo * p.w < 0.0) << 4
            | u32::from(y_hi * p.w - p.y < 0.0) << 5;
        for (i, pl) in self.planes().iter().enumerate().skip(6) {
            if crate::base::math::dot4(*pl, p) < 0.0 {
                code |= 1 << i;
            }
        }
        code
    }
}

/// A clipped convex polygon with per-edge flags: `edge[i]` is true when the edge from vertex
/// `i` to `i + 1` lies on an edge of the original triangle (not one made by a clip plane).
pub struct Polygon {
    /// Vertices.
    pub v: [ClipVertex; MAX_POLY],
    /// Original-edge flags.
    pub edge: [bool; MAX_POLY],
    /// Vertex count.
    pub len: usize,
}

impl Polygon {
    fn new() -> Polygon {
        Polygon {
            v: [ClipVertex::default(); MAX_POLY],
            edge: [false; MAX_POLY],
            len: 0,
        }
    }
}

/// Clips a triangle against every plane whose bit is set in `mask`; returns the polygon
/// (possibly empty).
pub fn clip_triangle(tri: [&ClipVertex; 3], planes: &ClipPlanes, mask: u32, n: usize) -> Polygon {
    let mut a = Polygon::new();
    for (i, v) in tri.iter().enumerate() {
        a.v[i] = **v;
        a.edge[i] = true;
    }
    a.len = 3;
    let mut b = Polygon::new();
    for (pi, plane) in planes.planes().iter().enumerate() {
        if mask & (1 << pi) == 0 {
            continue;
        }
        b.len = 0;
        for i in 0..a.len {
            let j = if i + 1 == a.len { 0 } else { i + 1 };
            let (vi, vj) = (&a.v[i], &a.v[j]);
            let (di, dj) = (
                crate::base::math::dot4(*plane, vi.pos),
                crate::base::math::dot4(*plane, vj.pos),
            );
            let (in_i, in_j) = (di >= 0.0, dj >= 0.0);
            if in_i {
                b.v[b.len] = *vi;
                b.edge[b.len] = a.edge[i];
                b.len += 1;
            }
            if in_i != in_j {
                let (vin, vout, din, dout) = if in_i {
                    (vi, vj, di, dj)
                } else {
                    (vj, vi, dj, di)
                };
                let t = din / (din - dout);
                b.v[b.len] = ClipVertex::lerp(vin, vout, t, n);
                // Entering the plane: the new vertex starts a piece of the original edge i→j.
                // Leaving it: the new vertex starts an edge along the clip plane.
                b.edge[b.len] = !in_i && a.edge[i];
                b.len += 1;
            }
        }
        core::mem::swap(&mut a, &mut b);
        if a.len < 3 {
            a.len = 0;
            break;
        }
    }
    a
}

/// Clips a segment; returns the clipped endpoints or `None` if nothing remains.
pub fn clip_line(
    a: &ClipVertex,
    b: &ClipVertex,
    planes: &ClipPlanes,
    mask: u32,
    n: usize,
) -> Option<(ClipVertex, ClipVertex)> {
    let (mut a, mut b) = (*a, *b);
    for (pi, plane) in planes.planes().iter().enumerate() {
        if mask & (1 << pi) == 0 {
            continue;
        }
        let (da, db) = (
            crate::base::math::dot4(*plane, a.pos),
            crate::base::math::dot4(*plane, b.pos),
        );
        match (da >= 0.0, db >= 0.0) {
            (true, true) => {}
            (false, false) => return None,
            (true, false) => b = ClipVertex::lerp(&a, &b, da / (da - db), n),
            (false, true) => a = ClipVertex::lerp(&b, &a, db / (db - da), n),
        }
    }
    Some((a, b))
}

#[cfg(feature = "internal-tests")]
pub(crate) mod tests {
    /// Every test of this module: `tests/unit.rs` runs each as one trial (an unlisted
    /// test fails the build as dead code).
    pub(crate) const TESTS: &[(&str, fn())] = &[
        (
            "outcode_matches_plane_dot_products",
            outcode_matches_plane_dot_products,
        ),
        (
            "triangle_through_near_plane_becomes_quad",
            triangle_through_near_plane_becomes_quad,
        ),
        (
            "shared_edge_clips_identically_both_directions",
            shared_edge_clips_identically_both_directions,
        ),
        ("all_outside_gives_nothing", all_outside_gives_nothing),
    ];

    use super::*;

    fn v(x: f32, y: f32, z: f32, w: f32) -> ClipVertex {
        ClipVertex {
            pos: Vec4::new(x, y, z, w),
            ..Default::default()
        }
    }

    fn outcode_matches_plane_dot_products() {
        // The shortcut for the six fixed planes against `dot4` with every plane vector, on
        // points around and on the planes (signed zeros, tiny and huge values).
        let vp = Viewport {
            x: 3.5,
            y: -20.0,
            width: 333.0,
            height: 77.0,
            min_depth: 0.0,
            max_depth: 1.0,
        };
        let planes = ClipPlanes::new(&vp, &[Some(Vec4::new(0.3, -0.2, 0.1, 0.5))]);
        let by_dot = |p: Vec4| {
            let mut code = 0;
            for (i, pl) in planes.planes().iter().enumerate() {
                code |= u32::from(crate::base::math::dot4(*pl, p) < 0.0) << i;
            }
            code
        };
        let vals = [
            0.0, -0.0, 1e-30, -1e-30, 0.5, -0.5, 1.0, -1.0, 2.0, 197.0, -197.0, 1e6, -1e6, 3e38,
            -3e38,
        ];
        let [x_lo, x_hi, y_lo, y_hi] = planes.band;
        let mut n = 0;
        for &x in vals.iter().chain(&[x_lo, x_hi]) {
            for &y in vals.iter().chain(&[y_lo, y_hi]) {
                for &z in &vals {
                    for &w in &vals {
                        let p = Vec4::new(x, y, z, w);
                        assert_eq!(planes.outcode(p), by_dot(p), "{p}");
                        n += u32::from(planes.outcode(p) != 0);
                    }
                }
            }
        }
        assert!(n > 0);
    }

    fn triangle_through_near_plane_becomes_quad() {
        let planes = ClipPlanes::new(&Viewport::full(100, 100), &[]);
        let (a, b, c) = (
            v(0.0, 0.0, -1.0, 1.0),
            v(0.5, 0.0, 0.5, 1.0),
            v(0.0, 0.5, 0.5, 1.0),
        );
        let mask = planes.outcode(a.pos) | planes.outcode(b.pos) | planes.outcode(c.pos);
        let p = clip_triangle([&a, &b, &c], &planes, mask, 0);
        assert_eq!(p.len, 4);
        for i in 0..p.len {
            assert!(p.v[i].pos.z >= 0.0);
        }
        // The edge along the near plane is the only one not flagged as original.
        assert_eq!(p.edge[..4].iter().filter(|e| !**e).count(), 1);
    }

    fn shared_edge_clips_identically_both_directions() {
        let planes = ClipPlanes::new(&Viewport::full(100, 100), &[]);
        let (a, b) = (v(0.1, 0.2, -0.3, 1.0), v(0.7, -0.4, 0.9, 1.3));
        let (p, q) = clip_line(&a, &b, &planes, !0, 0).unwrap();
        let (q2, p2) = clip_line(&b, &a, &planes, !0, 0).unwrap();
        assert_eq!((p, q), (p2, q2));
    }

    fn all_outside_gives_nothing() {
        let planes = ClipPlanes::new(&Viewport::full(100, 100), &[]);
        let (a, b, c) = (
            v(0.0, 0.0, -1.0, 1.0),
            v(0.5, 0.0, -0.5, 1.0),
            v(0.0, 0.5, -2.0, 1.0),
        );
        assert_eq!(clip_triangle([&a, &b, &c], &planes, 1, 0).len, 0);
    }
}
