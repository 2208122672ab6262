//! Intersection of linear components (lines, rays, segments) with triangles, spheres and
//! oriented boxes, and of triangles with triangles — Eberly's `Intersector` family (book
//! chapter 6, digested in `book-advanced.md` §4), each as a boolean **test** and a **find**
//! that says where.
//!
//! * **Linear components** ([`Linear`]) are `origin + t·direction` with a unit direction
//!   (so `t` is a distance) and a parameter range: all of ℝ for a line, `t ≥ 0` for a ray,
//!   `0 ≤ t ≤ length` for a segment from its first endpoint.
//! * **Triangle** ([`test_triangle`], [`find_triangle`]): solve `Q + t·D = b₁E₁ + b₂E₂` with
//!   `Q = P − V₀`, `N = E₁ × E₂`: `b₁ = D·(Q×E₂)/D·N`, `b₂ = D·(E₁×Q)/D·N`,
//!   `t = −Q·N/D·N`. The test scales by `sign(D·N)` instead of dividing. **Parallel or
//!   coplanar components never hit**, nor do degenerate (zero-area) triangles. Edges and
//!   vertices count as hits; both sides of the triangle hit.
//! * **Sphere** ([`test_sphere`], [`find_sphere`]): the quadratic `t² + 2a₁t + a₀` with
//!   `a₀ = |P − C|² − r²`, `a₁ = D·(P − C)`. The test asks whether the component meets the
//!   **solid** ball (distance from the centre to the closest point of the component, no
//!   square root); the find gives the points where it crosses the **surface** inside its
//!   range (a segment wholly inside the ball meets it but crosses nothing).
//! * **Oriented box** ([`test_box`], [`find_box`]): the test uses separating axes — for a
//!   line the three axes `Uᵢ × D`, for rays and segments also the three face axes; the find
//!   clips the parameter range against the three slabs in box coordinates (Liang–Barsky)
//!   and gives the part of the component inside the solid box.
//! * **Triangle–triangle** ([`test_triangles`], [`find_triangles`]): the test is the
//!   separating-axis test on 17 axes (the two normals, the nine edge–edge cross products and
//!   the six in-plane edge normals, which cover the coplanar case); the find gives the
//!   intersection set — a segment, a point, or for coplanar triangles a convex polygon of up
//!   to six vertices. Both order their arguments canonically first (by the bits of their
//!   coordinates), so swapping the triangles gives the same answer, bit for bit.
//!
//! Nothing here panics: constructors refuse non-finite input with
//! [`SceneError::NonFinite`], and the functions taking raw points report no hit for
//! non-finite or degenerate triangles.

use std::cmp::Ordering;

use glam::Vec3;

use crate::values::error::SceneError;
use crate::values::oriented_box::OrientedBox;
use crate::values::ray::{Ray, TriangleHit};

/// Which linear component a [`Linear`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LinearKind {
    /// Unbounded both ways.
    Line,
    /// `t ≥ 0`.
    Ray,
    /// `0 ≤ t ≤ length`.
    Segment,
}

/// A line, ray or segment: `origin + t·direction`, unit direction, `t` in [`Linear::range`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Linear {
    origin: Vec3,
    direction: Vec3,
    kind: LinearKind,
    length: f32,
}

fn unit(direction: Vec3, what: &'static str) -> Result<Vec3, SceneError> {
    let len = direction.length();
    if !direction.is_finite() || !len.is_finite() || len == 0.0 {
        return Err(SceneError::NonFinite { what });
    }
    Ok(direction / len)
}

impl Linear {
    /// A line through `origin` along `direction` (normalised here).
    ///
    /// # Errors
    /// [`SceneError::NonFinite`] for NaN/infinite input or a zero direction.
    pub fn line(origin: Vec3, direction: Vec3) -> Result<Self, SceneError> {
        if !origin.is_finite() {
            return Err(SceneError::NonFinite { what: "line" });
        }
        Ok(Linear {
            origin,
            direction: unit(direction, "line")?,
            kind: LinearKind::Line,
            length: f32::INFINITY,
        })
    }

    /// A ray from `origin` along `direction` (normalised here).
    ///
    /// # Errors
    /// As [`Linear::line`].
    pub fn ray(origin: Vec3, direction: Vec3) -> Result<Self, SceneError> {
        if !origin.is_finite() {
            return Err(SceneError::NonFinite { what: "ray" });
        }
        Ok(Linear {
            origin,
            direction: unit(direction, "ray")?,
            kind: LinearKind::Ray,
            length: f32::INFINITY,
        })
    }

    /// The segment from `p0` to `p1` (`t = 0` at `p0`, `t = |p1 − p0|` at `p1`).
    ///
    /// # Errors
    /// [`SceneError::NonFinite`] for non-finite endpoints or a length that overflows;
    /// [`SceneError::InvalidArgument`] when the endpoints coincide.
    pub fn segment(p0: Vec3, p1: Vec3) -> Result<Self, SceneError> {
        let d = p1 - p0;
        let length = d.length();
        if !p0.is_finite() || !p1.is_finite() || !length.is_finite() {
            return Err(SceneError::NonFinite { what: "segment" });
        }
        if length == 0.0 {
            return Err(SceneError::InvalidArgument {
                what: "segment",
                message: format!("endpoints coincide at {p0}"),
            });
        }
        Ok(Linear {
            origin: p0,
            direction: d / length,
            kind: LinearKind::Segment,
            length,
        })
    }

    /// Origin (a segment's first endpoint).
    pub fn origin(&self) -> Vec3 {
        self.origin
    }

    /// Unit direction.
    pub fn direction(&self) -> Vec3 {
        self.direction
    }

    /// Line, ray or segment.
    pub fn kind(&self) -> LinearKind {
        self.kind
    }

    /// The parameter range `(t_min, t_max)`: `(−∞, ∞)`, `(0, ∞)` or `(0, length)`.
    pub fn range(&self) -> (f32, f32) {
        match self.kind {
            LinearKind::Line => (f32::NEG_INFINITY, f32::INFINITY),
            LinearKind::Ray => (0.0, f32::INFINITY),
            LinearKind::Segment => (0.0, self.length),
        }
    }

    /// The point at parameter `t`.
    pub fn at(&self, t: f32) -> Vec3 {
        self.origin + self.direction * t
    }

    /// The parameter of the point of the component closest to `p`.
    pub fn closest_parameter(&self, p: Vec3) -> f32 {
        let (lo, hi) = self.range();
        (p - self.origin).dot(self.direction).clamp(lo, hi)
    }
}

impl From<Ray> for Linear {
    fn from(ray: Ray) -> Self {
        Linear {
            origin: ray.origin(),
            direction: ray.direction(),
            kind: LinearKind::Ray,
            length: f32::INFINITY,
        }
    }
}

/// A solid sphere for the intersection queries.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sphere {
    center: Vec3,
    radius: f32,
}

impl Sphere {
    /// A sphere of `radius ≥ 0` about `center`.
    ///
    /// # Errors
    /// [`SceneError::NonFinite`]; [`SceneError::InvalidArgument`] for a negative radius.
    pub fn new(center: Vec3, radius: f32) -> Result<Self, SceneError> {
        if !center.is_finite() || !radius.is_finite() {
            return Err(SceneError::NonFinite { what: "sphere" });
        }
        if radius < 0.0 {
            return Err(SceneError::InvalidArgument {
                what: "sphere radius",
                message: format!("{radius} is negative"),
            });
        }
        Ok(Sphere { center, radius })
    }

    /// Centre.
    pub fn center(&self) -> Vec3 {
        self.center
    }

    /// Radius.
    pub fn radius(&self) -> f32 {
        self.radius
    }
}

fn finite3(v0: Vec3, v1: Vec3, v2: Vec3) -> bool {
    v0.is_finite() && v1.is_finite() && v2.is_finite()
}

/// The sign-scaled quantities of the linear/triangle solve: `(D·N, D·(Q×E₂), D·(E₁×Q),
/// −Q·N)` all multiplied by `sign(D·N)`, or `None` when parallel, degenerate or non-finite.
fn triangle_terms(l: &Linear, v0: Vec3, v1: Vec3, v2: Vec3) -> Option<(f32, f32, f32, f32)> {
    if !finite3(v0, v1, v2) {
        return None;
    }
    let e1 = v1 - v0;
    let e2 = v2 - v0;
    let n = e1.cross(e2);
    let q = l.origin - v0;
    let ddn = l.direction.dot(n);
    let sign = if ddn > 0.0 {
        1.0
    } else if ddn < 0.0 {
        -1.0
    } else {
        // Parallel or coplanar (or NaN): no hit.
        return None;
    };
    let ddn = ddn * sign;
    if !ddn.is_finite() {
        return None;
    }
    let b1 = sign * l.direction.dot(q.cross(e2));
    let b2 = sign * l.direction.dot(e1.cross(q));
    let qdn = -sign * q.dot(n);
    Some((ddn, b1, b2, qdn))
}

/// Whether the component meets the triangle `v0 v1 v2` (see the module docs).
pub fn test_triangle(l: &Linear, v0: Vec3, v1: Vec3, v2: Vec3) -> bool {
    let Some((ddn, b1, b2, qdn)) = triangle_terms(l, v0, v1, v2) else {
        return false;
    };
    if !(b1 >= 0.0 && b2 >= 0.0 && b1 + b2 <= ddn) {
        return false;
    }
    match l.kind {
        LinearKind::Line => true,
        LinearKind::Ray => qdn >= 0.0,
        // t = qdn/ddn ≤ length ⇔ qdn ≤ length·ddn (ddn > 0).
        LinearKind::Segment => qdn >= 0.0 && qdn <= l.length * ddn,
    }
}

/// Where the component meets the triangle: its parameter `t` and the barycentric weights
/// `(b₀, b₁, b₂)` of the hit (`point = b₀v₀ + b₁v₁ + b₂v₂`). `None` exactly when
/// [`test_triangle`] is false.
pub fn find_triangle(l: &Linear, v0: Vec3, v1: Vec3, v2: Vec3) -> Option<TriangleHit> {
    if !test_triangle(l, v0, v1, v2) {
        return None;
    }
    let (ddn, b1, b2, qdn) = triangle_terms(l, v0, v1, v2)?;
    let inv = 1.0 / ddn;
    let (b1, b2) = (b1 * inv, b2 * inv);
    let (lo, hi) = l.range();
    Some(TriangleHit {
        t: (qdn * inv).clamp(lo, hi),
        barycentric: [1.0 - b1 - b2, b1, b2],
    })
}

/// Whether the component meets the solid sphere (see the module docs).
pub fn test_sphere(l: &Linear, s: &Sphere) -> bool {
    let t = l.closest_parameter(s.center);
    let d = l.at(t) - s.center;
    d.length_squared() <= s.radius * s.radius
}

/// Where the component crosses a sphere's surface: up to two parameters, increasing.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SphereHit {
    /// Number of crossings in the component's range (0, 1 or 2).
    pub count: usize,
    /// The parameters; the first `count` are meaningful.
    pub t: [f32; 2],
}

impl SphereHit {
    /// The crossing parameters.
    pub fn parameters(&self) -> &[f32] {
        &self.t[..self.count]
    }
}

/// The crossings of the sphere's surface inside the component's range, or `None` when there
/// are none (a tangent line touches once; a segment inside the ball crosses nothing).
pub fn find_sphere(l: &Linear, s: &Sphere) -> Option<SphereHit> {
    let diff = l.origin - s.center;
    let a0 = diff.dot(diff) - s.radius * s.radius;
    let a1 = l.direction.dot(diff);
    let discr = a1 * a1 - a0;
    // NaN is no hit, as a negative discriminant.
    if discr.is_nan() || discr < 0.0 {
        return None;
    }
    let root = discr.sqrt();
    let roots = if root == 0.0 {
        vec![-a1]
    } else {
        vec![-a1 - root, -a1 + root]
    };
    let (lo, hi) = l.range();
    let mut out = SphereHit {
        count: 0,
        t: [0.0; 2],
    };
    for t in roots.into_iter().filter(|t| *t >= lo && *t <= hi) {
        out.t[out.count] = t;
        out.count += 1;
    }
    (out.count > 0).then_some(out)
}

/// Whether the component meets the solid oriented box (separating axes, see the module
/// docs).
pub fn test_box(l: &Linear, b: &OrientedBox) -> bool {
    let axes = b.axes();
    let e = b.extents().to_array();
    // A segment is tested about its midpoint with half its length, a ray about its origin.
    let (center, half) = match l.kind {
        LinearKind::Segment => (l.at(0.5 * l.length), 0.5 * l.length),
        _ => (l.origin, 0.0),
    };
    let delta = center - b.center();
    let dd = axes.map(|u| l.direction.dot(u));
    let add = dd.map(f32::abs);
    let wd = axes.map(|u| delta.dot(u));
    match l.kind {
        LinearKind::Line => {}
        LinearKind::Ray => {
            for i in 0..3 {
                if wd[i].abs() > e[i] && wd[i] * dd[i] >= 0.0 {
                    return false;
                }
            }
        }
        LinearKind::Segment => {
            for i in 0..3 {
                if wd[i].abs() > e[i] + half * add[i] {
                    return false;
                }
            }
        }
    }
    let wxd = l.direction.cross(delta);
    let a = axes.map(|u| wxd.dot(u).abs());
    !(a[0] > e[1] * add[2] + e[2] * add[1]
        || a[1] > e[0] * add[2] + e[2] * add[0]
        || a[2] > e[0] * add[1] + e[1] * add[0])
}

/// The part of the component inside the solid box, as its parameter interval
/// `(t_enter, t_exit)` (equal when it only touches), or `None` when it misses.
pub fn find_box(l: &Linear, b: &OrientedBox) -> Option<(f32, f32)> {
    let axes = b.axes();
    let e = b.extents().to_array();
    let delta = l.origin - b.center();
    let (mut t0, mut t1) = l.range();
    for i in 0..3 {
        let p = delta.dot(axes[i]);
        let d = l.direction.dot(axes[i]);
        if d == 0.0 {
            if p.abs() > e[i] || p.is_nan() {
                return None;
            }
            continue;
        }
        // −e ≤ p + t·d ≤ e.
        let (a, c) = ((-e[i] - p) / d, (e[i] - p) / d);
        let (lo, hi) = if a <= c { (a, c) } else { (c, a) };
        t0 = t0.max(lo);
        t1 = t1.min(hi);
        if t0.is_nan() || t1.is_nan() || t0 > t1 {
            return None;
        }
    }
    Some((t0, t1))
}

/// The canonical order of a pair of triangles: by the bits of their coordinates.
fn canonical<'a>(a: &'a [Vec3; 3], b: &'a [Vec3; 3]) -> (&'a [Vec3; 3], &'a [Vec3; 3]) {
    let key = |t: &[Vec3; 3]| t.map(|v| v.to_array()).concat();
    let (ka, kb) = (key(a), key(b));
    let ord = ka
        .iter()
        .zip(&kb)
        .map(|(x, y)| x.total_cmp(y))
        .find(|o| *o != Ordering::Equal)
        .unwrap_or(Ordering::Equal);
    if ord == Ordering::Greater {
        (b, a)
    } else {
        (a, b)
    }
}

fn usable(t: &[Vec3; 3]) -> Option<Vec3> {
    if !finite3(t[0], t[1], t[2]) {
        return None;
    }
    let n = (t[1] - t[0]).cross(t[2] - t[0]);
    (n.length_squared() > 0.0 && n.is_finite()).then_some(n)
}

/// Whether two triangles intersect (touching counts); see the module docs. Degenerate or
/// non-finite triangles intersect nothing. Symmetric: `test_triangles(a, b) ==
/// test_triangles(b, a)`.
pub fn test_triangles(a: &[Vec3; 3], b: &[Vec3; 3]) -> bool {
    let (a, b) = canonical(a, b);
    let (Some(na), Some(nb)) = (usable(a), usable(b)) else {
        return false;
    };
    let ea = [a[1] - a[0], a[2] - a[1], a[0] - a[2]];
    let eb = [b[1] - b[0], b[2] - b[1], b[0] - b[2]];
    let separated = |axis: Vec3| {
        if axis == Vec3::ZERO || !axis.is_finite() {
            return false;
        }
        let pa = a.map(|v| v.dot(axis));
        let pb = b.map(|v| v.dot(axis));
        let (amin, amax) = (pa[0].min(pa[1]).min(pa[2]), pa[0].max(pa[1]).max(pa[2]));
        let (bmin, bmax) = (pb[0].min(pb[1]).min(pb[2]), pb[0].max(pb[1]).max(pb[2]));
        amax < bmin || bmax < amin
    };
    if separated(na) || separated(nb) {
        return false;
    }
    for u in ea {
        for v in eb {
            if separated(u.cross(v)) {
                return false;
            }
        }
    }
    for u in ea {
        if separated(na.cross(u)) {
            return false;
        }
    }
    for v in eb {
        if separated(nb.cross(v)) {
            return false;
        }
    }
    true
}

/// The intersection set of two triangles: its vertices (2 for a segment, 1 for a point, up
/// to 6 for the polygon of two coplanar triangles).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TriangleContact {
    /// Number of vertices.
    pub count: usize,
    /// The vertices; the first `count` are meaningful.
    pub points: [Vec3; 6],
}

impl TriangleContact {
    /// The vertices of the intersection set.
    pub fn points(&self) -> &[Vec3] {
        &self.points[..self.count]
    }

    fn from_slice(pts: &[Vec3]) -> Option<Self> {
        if pts.is_empty() || pts.len() > 6 {
            return None;
        }
        let mut points = [Vec3::ZERO; 6];
        points[..pts.len()].copy_from_slice(pts);
        Some(TriangleContact {
            count: pts.len(),
            points,
        })
    }
}

/// Keeps the part of the convex polygon `poly` where `n·x ≤ d` (Sutherland–Hodgman).
fn clip_polygon(poly: &[Vec3], n: Vec3, d: f32) -> Vec<Vec3> {
    let mut out = Vec::with_capacity(poly.len() + 1);
    if poly.len() == 1 {
        if n.dot(poly[0]) <= d {
            out.push(poly[0]);
        }
        return out;
    }
    let closed = poly.len() > 2;
    let edges = if closed { poly.len() } else { 1 };
    if !closed {
        // A segment: clip it as an interval.
        let (p, q) = (poly[0], poly[1]);
        let (sp, sq) = (n.dot(p) - d, n.dot(q) - d);
        match (sp <= 0.0, sq <= 0.0) {
            (true, true) => out.extend([p, q]),
            (false, false) => {}
            (true, false) => out.extend([p, p + (q - p) * (sp / (sp - sq))]),
            (false, true) => out.extend([p + (q - p) * (sp / (sp - sq)), q]),
        }
        return out;
    }
    for i in 0..edges {
        let p = poly[i];
        let q = poly[(i + 1) % poly.len()];
        let (sp, sq) = (n.dot(p) - d, n.dot(q) - d);
        if sp <= 0.0 {
            out.push(p);
        }
        if (sp < 0.0 && sq > 0.0) || (sp > 0.0 && sq < 0.0) {
            out.push(p + (q - p) * (sp / (sp - sq)));
        }
    }
    out
}

/// Removes consecutive duplicates (and a closing duplicate) from a clipped polygon.
fn dedup(mut pts: Vec<Vec3>) -> Vec<Vec3> {
    pts.dedup();
    while pts.len() > 1 && pts.first() == pts.last() {
        pts.pop();
    }
    pts
}

/// The intersection set of two triangles, or `None` when [`test_triangles`] is false (or
/// the computed set is empty after rounding). Symmetric in its arguments, bit for bit. See
/// the module docs.
pub fn find_triangles(a: &[Vec3; 3], b: &[Vec3; 3]) -> Option<TriangleContact> {
    if !test_triangles(a, b) {
        return None;
    }
    let (a, b) = canonical(a, b);
    let nb = usable(b)?;
    let db = nb.dot(b[0]);
    let dist = a.map(|v| nb.dot(v) - db);
    // Coplanar when every vertex of `a` is within rounding of b's plane.
    let scale = a
        .iter()
        .chain(b.iter())
        .fold(0.0f32, |m, v| m.max(v.abs().max_element()));
    let tol = nb.length() * scale * 8.0 * f32::EPSILON;
    let mut poly: Vec<Vec3> = if dist.iter().all(|d| d.abs() <= tol) {
        a.to_vec()
    } else {
        // The part of `a` in b's plane: the vertices on it and the crossings of its edges.
        let mut pts = Vec::with_capacity(3);
        for i in 0..3 {
            let (p, q) = (a[i], a[(i + 1) % 3]);
            let (sp, sq) = (dist[i], dist[(i + 1) % 3]);
            if sp == 0.0 {
                pts.push(p);
            }
            if (sp < 0.0 && sq > 0.0) || (sp > 0.0 && sq < 0.0) {
                pts.push(p + (q - p) * (sp / (sp - sq)));
            }
        }
        dedup(pts)
    };
    // Clip by b's three edge half-spaces (planes through its edges, perpendicular to it).
    for i in 0..3 {
        if poly.is_empty() {
            break;
        }
        let (p, q) = (b[i], b[(i + 1) % 3]);
        let outward = (q - p).cross(nb);
        poly = dedup(clip_polygon(&poly, outward, outward.dot(p)));
    }
    TriangleContact::from_slice(&poly)
}

#[cfg(feature = "internal-tests")]
pub(crate) mod tests {
    /// Every test of this module: `tests/unit.rs` runs each as one trial (an unlisted
    /// test fails the build as dead code).
    pub(crate) const TESTS: &[(&str, fn())] = &[
        ("segment_endpoints_and_range", segment_endpoints_and_range),
        ("clip_segment_interval", clip_segment_interval),
    ];

    use super::*;

    fn segment_endpoints_and_range() {
        let s = Linear::segment(Vec3::ZERO, Vec3::new(0.0, 0.0, 2.0)).unwrap();
        assert_eq!(s.range(), (0.0, 2.0));
        assert_eq!(s.at(2.0), Vec3::new(0.0, 0.0, 2.0));
        assert!(Linear::segment(Vec3::ONE, Vec3::ONE).is_err());
    }

    fn clip_segment_interval() {
        let out = clip_polygon(&[Vec3::ZERO, Vec3::new(2.0, 0.0, 0.0)], Vec3::X, 1.0);
        assert_eq!(out, vec![Vec3::ZERO, Vec3::X]);
    }
}
