//! Parametric curves tessellated by subdivision (Eberly's `CurveSegment` and `CurveMesh`,
//! book-advanced §1.10, book L9919–10160).
//!
//! A [`CurveMesh`] holds `n` segments ordered end to end, each with a parameter interval
//! `[aᵢ, bᵢ]` (continuity `Pᵢ(bᵢ) = Pᵢ₊₁(aᵢ₊₁)` is assumed, as in the book). Level 0 is the
//! polyline `P₀(a₀), P₁(a₁), …, P_{n−1}(a_{n−1}), P_{n−1}(b_{n−1})` (eq. 4.2); each level
//! splits every parameter interval at its midpoint, so with `V₀ = n + 1`, `E₀ = n`:
//! `V_{L+1} = V_L + E_L`, `E_{L+1} = 2·E_L`, i.e. `E_L = n·2^L` and `V_L = n·2^L + 1`.
//! [`CurveMesh::set_level`] always subdivides from level 0, splitting the edge array back to
//! front in place (book L10140–10160). New vertices are appended after the old ones, and each
//! remembers the two vertices it was made from (the book's vertex tree), so
//! [`CurveMesh::attributes`] can average any per-vertex attribute of level 0 down to the
//! current level. [`CurveMesh::on_dynamic_change`] re-evaluates every vertex at its stored
//! segment and parameter after the segments changed (e.g. a moved control point).
//!
//! Levels are capped so that a curve has at most [`MAX_CURVE_VERTICES`] vertices.

use std::ops::{Add, Mul};

use glam::Vec3;

use crate::values::error::SceneError;
use crate::values::mesh::{Mesh, MeshTopology};

/// The most vertices a [`CurveMesh`] level may have (`n·2^L + 1`).
pub const MAX_CURVE_VERTICES: usize = 1 << 20;

/// The highest Bézier degree accepted for curves and patches.
pub const MAX_BEZIER_DEGREE: usize = 15;

/// A parametric curve segment `P(u)`, `u ∈ [u_min, u_max]` (the book's `CurveSegment`).
pub trait CurveSegment {
    /// Smallest parameter.
    fn u_min(&self) -> f32;
    /// Largest parameter.
    fn u_max(&self) -> f32;
    /// Position.
    fn p(&self, u: f32) -> Vec3;
    /// First derivative.
    fn pu(&self, u: f32) -> Vec3;
    /// Unit tangent `P′/|P′|` (zero where `P′` vanishes).
    fn tangent(&self, u: f32) -> Vec3 {
        self.pu(u).normalize_or_zero()
    }
}

/// Bernstein polynomials `B_i^n(t)`, `i = 0..=n`.
pub(crate) fn bernstein(n: usize, t: f32) -> Vec<f32> {
    let mut b = vec![0.0f32; n + 1];
    b[0] = 1.0;
    let s = 1.0 - t;
    for k in 1..=n {
        let mut prev = 0.0;
        for item in b.iter_mut().take(k + 1) {
            let cur = *item;
            *item = s * cur + t * prev;
            prev = cur;
        }
    }
    b
}

/// Derivatives `d/dt B_i^n(t) = n·(B_{i−1}^{n−1} − B_i^{n−1})`.
pub(crate) fn bernstein_derivative(n: usize, t: f32) -> Vec<f32> {
    if n == 0 {
        return vec![0.0];
    }
    let lower = bernstein(n - 1, t);
    (0..=n)
        .map(|i| {
            let a = if i > 0 { lower[i - 1] } else { 0.0 };
            let b = if i < n { lower[i] } else { 0.0 };
            n as f32 * (a - b)
        })
        .collect()
}

/// A Bézier curve segment of degree `points − 1` on `[0, 1]`.
#[derive(Debug, Clone, PartialEq)]
pub struct BezierCurve {
    points: Vec<Vec3>,
}

impl BezierCurve {
    /// A Bézier curve through its control points (2 to [`MAX_BEZIER_DEGREE`] + 1 of them).
    ///
    /// # Errors
    /// [`SceneError::NonFinite`]; [`SceneError::InvalidArgument`] for a wrong point count.
    pub fn new(points: Vec<Vec3>) -> Result<Self, SceneError> {
        if points.iter().any(|p| !p.is_finite()) {
            return Err(SceneError::NonFinite {
                what: "curve control points",
            });
        }
        if points.len() < 2 || points.len() > MAX_BEZIER_DEGREE + 1 {
            return Err(SceneError::InvalidArgument {
                what: "Bézier curve",
                message: format!(
                    "{} control points; a segment has 2 to {}",
                    points.len(),
                    MAX_BEZIER_DEGREE + 1
                ),
            });
        }
        Ok(BezierCurve { points })
    }

    /// The control points.
    pub fn control_points(&self) -> &[Vec3] {
        &self.points
    }

    /// Moves control point `i` (call [`CurveMesh::on_dynamic_change`] afterwards).
    ///
    /// # Errors
    /// [`SceneError::NonFinite`]; [`SceneError::InvalidArgument`] for `i` out of range.
    pub fn set_control_point(&mut self, i: usize, p: Vec3) -> Result<(), SceneError> {
        if !p.is_finite() {
            return Err(SceneError::NonFinite {
                what: "curve control point",
            });
        }
        let n = self.points.len();
        let slot = self
            .points
            .get_mut(i)
            .ok_or_else(|| SceneError::InvalidArgument {
                what: "control point",
                message: format!("index {i} of {n}"),
            })?;
        *slot = p;
        Ok(())
    }
}

impl CurveSegment for BezierCurve {
    fn u_min(&self) -> f32 {
        0.0
    }
    fn u_max(&self) -> f32 {
        1.0
    }
    fn p(&self, u: f32) -> Vec3 {
        let b = bernstein(self.points.len() - 1, u);
        self.points
            .iter()
            .zip(&b)
            .fold(Vec3::ZERO, |acc, (p, w)| acc + *p * *w)
    }
    fn pu(&self, u: f32) -> Vec3 {
        let b = bernstein_derivative(self.points.len() - 1, u);
        self.points
            .iter()
            .zip(&b)
            .fold(Vec3::ZERO, |acc, (p, w)| acc + *p * *w)
    }
}

/// Averages level-0 attributes down a vertex tree: `out[i] = base[i]` for `i < base.len()`,
/// then `out[i] = (out[a] + out[b]) / 2` for the parents `[a, b]` of each later vertex.
pub(crate) fn average_tree<T>(base: &[T], tree: &[[u32; 2]]) -> Vec<T>
where
    T: Copy + Add<Output = T> + Mul<f32, Output = T>,
{
    let mut out: Vec<T> = base.to_vec();
    out.reserve(tree.len().saturating_sub(base.len()));
    for &[a, b] in &tree[base.len().min(tree.len())..] {
        let v = (out[a as usize] + out[b as usize]) * 0.5;
        out.push(v);
    }
    out
}

#[derive(Debug, Clone, Copy)]
struct CurveEdge {
    segment: u32,
    v: [u32; 2],
    u: [f32; 2],
}

/// A curve of segments tessellated by parameter midpoints (see the [module docs](self)).
#[derive(Debug, Clone)]
pub struct CurveMesh<S: CurveSegment = BezierCurve> {
    segments: Vec<S>,
    params: Vec<[f32; 2]>,
    level: u32,
    vertices: Vec<Vec3>,
    /// Segment and parameter of each vertex (the book's `CurveInfo`).
    info: Vec<(u32, f32)>,
    /// Parents of each vertex (level-0 vertices are their own: `[i, i]`).
    tree: Vec<[u32; 2]>,
    /// The polyline as a walk over the edges.
    strip: Vec<u32>,
}

impl<S: CurveSegment> CurveMesh<S> {
    /// A curve mesh at level 0 from segments and one parameter interval `[aᵢ, bᵢ]` per segment
    /// (inside the segment's domain, `aᵢ < bᵢ`).
    ///
    /// # Errors
    /// [`SceneError::InvalidArgument`] for no segments, a parameter count that differs from
    /// the segment count, or an interval that is empty or outside its segment's domain;
    /// [`SceneError::NonFinite`] for a non-finite parameter or an evaluated point.
    pub fn new(segments: Vec<S>, params: Vec<[f32; 2]>) -> Result<Self, SceneError> {
        let bad = |message: String| SceneError::InvalidArgument {
            what: "curve mesh",
            message,
        };
        if segments.is_empty() {
            return Err(bad("no segments".into()));
        }
        if params.len() != segments.len() {
            return Err(bad(format!(
                "{} parameter intervals for {} segments",
                params.len(),
                segments.len()
            )));
        }
        if u32::try_from(segments.len()).is_err() || segments.len() >= MAX_CURVE_VERTICES {
            return Err(bad(format!("{} segments is too many", segments.len())));
        }
        for (i, (s, [a, b])) in segments.iter().zip(&params).enumerate() {
            if !a.is_finite() || !b.is_finite() {
                return Err(SceneError::NonFinite {
                    what: "curve parameters",
                });
            }
            if a >= b || *a < s.u_min() || *b > s.u_max() {
                return Err(bad(format!(
                    "segment {i}: [{a}, {b}] is not an interval inside [{}, {}]",
                    s.u_min(),
                    s.u_max()
                )));
            }
        }
        let mut m = CurveMesh {
            segments,
            params,
            level: 0,
            vertices: Vec::new(),
            info: Vec::new(),
            tree: Vec::new(),
            strip: Vec::new(),
        };
        m.subdivide()?;
        Ok(m)
    }

    /// The vertex count of level `level`: `n·2^level + 1`, or `None` past
    /// [`MAX_CURVE_VERTICES`].
    pub fn vertex_count_at(&self, level: u32) -> Option<usize> {
        let e = (self.segments.len() as u64).checked_shl(level)?;
        if level >= 32 || e >= MAX_CURVE_VERTICES as u64 {
            return None;
        }
        Some(e as usize + 1)
    }

    /// Subdivides from level 0 to `level`.
    ///
    /// # Errors
    /// [`SceneError::InvalidArgument`] when the level would have more than
    /// [`MAX_CURVE_VERTICES`] vertices (the mesh is unchanged); [`SceneError::NonFinite`] when
    /// a segment evaluates to a non-finite point.
    pub fn set_level(&mut self, level: u32) -> Result<(), SceneError> {
        if self.vertex_count_at(level).is_none() {
            return Err(SceneError::InvalidArgument {
                what: "curve level",
                message: format!(
                    "level {level} of {} segments exceeds {MAX_CURVE_VERTICES} vertices",
                    self.segments.len()
                ),
            });
        }
        let old = self.level;
        self.level = level;
        if let Err(e) = self.subdivide() {
            self.level = old;
            self.subdivide()?;
            return Err(e);
        }
        Ok(())
    }

    fn subdivide(&mut self) -> Result<(), SceneError> {
        let n = self.segments.len();
        let mut info: Vec<(u32, f32)> = (0..n).map(|i| (i as u32, self.params[i][0])).collect();
        info.push(((n - 1) as u32, self.params[n - 1][1]));
        let mut tree: Vec<[u32; 2]> = (0..=n as u32).map(|i| [i, i]).collect();
        let mut edges: Vec<CurveEdge> = (0..n)
            .map(|i| CurveEdge {
                segment: i as u32,
                v: [i as u32, i as u32 + 1],
                u: self.params[i],
            })
            .collect();
        for _ in 0..self.level {
            let e0 = edges.len();
            let v0 = info.len();
            edges.resize(2 * e0, edges[0]);
            info.resize(v0 + e0, (0, 0.0));
            tree.resize(v0 + e0, [0, 0]);
            // Back to front, E'_{2i+1} before E'_{2i}, so no unprocessed edge is overwritten.
            for i in (0..e0).rev() {
                let e = edges[i];
                let um = 0.5 * (e.u[0] + e.u[1]);
                let m = (v0 + i) as u32;
                info[m as usize] = (e.segment, um);
                tree[m as usize] = e.v;
                edges[2 * i + 1] = CurveEdge {
                    segment: e.segment,
                    v: [m, e.v[1]],
                    u: [um, e.u[1]],
                };
                edges[2 * i] = CurveEdge {
                    segment: e.segment,
                    v: [e.v[0], m],
                    u: [e.u[0], um],
                };
            }
        }
        let vertices: Vec<Vec3> = info
            .iter()
            .map(|&(s, u)| self.segments[s as usize].p(u))
            .collect();
        if vertices.iter().any(|p| !p.is_finite()) {
            return Err(SceneError::NonFinite {
                what: "curve points",
            });
        }
        let mut strip: Vec<u32> = Vec::with_capacity(edges.len() + 1);
        strip.push(edges[0].v[0]);
        strip.extend(edges.iter().map(|e| e.v[1]));
        self.vertices = vertices;
        self.info = info;
        self.tree = tree;
        self.strip = strip;
        Ok(())
    }

    /// The current level.
    pub fn level(&self) -> u32 {
        self.level
    }

    /// The vertices, level-0 vertices first, each later one after its parents.
    pub fn vertices(&self) -> &[Vec3] {
        &self.vertices
    }

    /// The edge count (`n·2^level`).
    pub fn edge_count(&self) -> usize {
        self.strip.len() - 1
    }

    /// The polyline: vertex indices from the curve's start to its end.
    pub fn polyline(&self) -> &[u32] {
        &self.strip
    }

    /// Segment index and parameter of every vertex.
    pub fn parameters(&self) -> &[(u32, f32)] {
        &self.info
    }

    /// Parents of every vertex (`[i, i]` for level-0 vertices).
    pub fn vertex_tree(&self) -> &[[u32; 2]] {
        &self.tree
    }

    /// Attributes of the current level from those of level 0 (`n + 1` of them): each new
    /// vertex gets the average of its parents' (the book's `GetAttributes`; renormalise
    /// normals yourself).
    ///
    /// # Errors
    /// [`SceneError::AttributeLength`] for a base that is not one per level-0 vertex.
    pub fn attributes<T>(&self, base: &[T]) -> Result<Vec<T>, SceneError>
    where
        T: Copy + Add<Output = T> + Mul<f32, Output = T>,
    {
        let n0 = self.segments.len() + 1;
        if base.len() != n0 {
            return Err(SceneError::AttributeLength {
                attribute: "curve vertex attribute",
                expected: n0,
                actual: base.len(),
            });
        }
        Ok(average_tree(base, &self.tree))
    }

    /// The segments.
    pub fn segments(&self) -> &[S] {
        &self.segments
    }

    /// A segment to change; call [`CurveMesh::on_dynamic_change`] afterwards.
    pub fn segment_mut(&mut self, i: usize) -> Option<&mut S> {
        self.segments.get_mut(i)
    }

    /// Re-evaluates every vertex at its segment and parameter (after the segments changed).
    ///
    /// # Errors
    /// [`SceneError::NonFinite`] when a segment evaluates to a non-finite point.
    pub fn on_dynamic_change(&mut self) -> Result<(), SceneError> {
        let v: Vec<Vec3> = self
            .info
            .iter()
            .map(|&(s, u)| self.segments[s as usize].p(u))
            .collect();
        if v.iter().any(|p| !p.is_finite()) {
            return Err(SceneError::NonFinite {
                what: "curve points",
            });
        }
        self.vertices = v;
        Ok(())
    }

    /// The current polyline as a line-strip mesh (vertices in tree order, indices along the
    /// curve).
    ///
    /// # Errors
    /// Mesh construction errors pass through.
    pub fn to_mesh(&self) -> Result<Mesh, SceneError> {
        Mesh::new(
            MeshTopology::LineStrip,
            self.vertices.clone(),
            self.strip.clone(),
        )
    }
}
