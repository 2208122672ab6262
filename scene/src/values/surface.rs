//! Parametric surfaces tessellated by subdivision (Eberly's `SurfacePatch` and `SurfaceMesh`,
//! book-advanced §1.10, book L9989–10283).
//!
//! A [`SurfaceMesh`] starts from a triangle mesh in parameter space: `N` triangles, each with
//! a patch and one `(u, v)` per corner (`3N`); the vertices are the patch evaluated there.
//! Each level splits every triangle into four at the parameter midpoints of its edges; an
//! edge shared by two triangles is split once (the book uses a hash set of edges with share
//! counts; plumb an ordered map, so the numbering of new vertices follows the triangle order
//! and is deterministic). With `V₀, E₀, T₀` the counts of level 0 (book L10187):
//! `V_{L+1} = V_L + E_L`, `E_{L+1} = 2·E_L + 3·T_L`, `T_{L+1} = 4·T_L`. A rectangle patch
//! split into two triangles (`V₀ = 4, E₀ = 5, T₀ = 2`) has `(2^L + 1)²` vertices and
//! `2·4^L` triangles at level `L`.
//!
//! As for curves, new vertices are appended after their two parents (the vertex tree, for
//! [`SurfaceMesh::attributes`]), each vertex keeps its patch and parameter (the book's
//! `SurfaceInfo`, for [`SurfaceMesh::on_dynamic_change`]), and [`SurfaceMesh::set_level`]
//! always subdivides from level 0. Normals come from the patch (`Pu × Pv`, normalised).
//! Levels are capped so that a level has at most [`MAX_SURFACE_TRIANGLES`] triangles.

use std::collections::BTreeMap;
use std::ops::{Add, Mul};

use glam::{Vec2, Vec3};

use crate::values::curve::{average_tree, bernstein, bernstein_derivative, MAX_BEZIER_DEGREE};
use crate::values::error::SceneError;
use crate::values::mesh::Mesh;

/// The most triangles a [`SurfaceMesh`] level may have (`T₀·4^L`).
pub const MAX_SURFACE_TRIANGLES: usize = 1 << 18;

/// A parametric surface patch `P(u, v)` (the book's `SurfacePatch`).
pub trait SurfacePatch {
    /// Position.
    fn p(&self, uv: Vec2) -> Vec3;
    /// Partial derivatives `(Pu, Pv)`.
    fn derivatives(&self, uv: Vec2) -> (Vec3, Vec3);
    /// Unit normal `Pu × Pv / |Pu × Pv|` (zero where the tangents are parallel).
    fn normal(&self, uv: Vec2) -> Vec3 {
        let (pu, pv) = self.derivatives(uv);
        pu.cross(pv).normalize_or_zero()
    }
    /// Whether the domain is the rectangle `[0,1]²` (else the triangle `u, v ≥ 0, u + v ≤ 1`).
    fn is_rectangular(&self) -> bool;
}

fn check_points(what: &'static str, points: &[Vec3], expected: usize) -> Result<(), SceneError> {
    if points.iter().any(|p| !p.is_finite()) {
        return Err(SceneError::NonFinite { what });
    }
    if points.len() != expected {
        return Err(SceneError::InvalidArgument {
            what,
            message: format!("{} control points; expected {expected}", points.len()),
        });
    }
    Ok(())
}

/// A tensor-product Bézier patch of degrees `(du, dv)` on `[0,1]²`; control point `(i, j)`
/// (`i ≤ du` along u, `j ≤ dv` along v) is `points[j·(du+1) + i]`.
#[derive(Debug, Clone, PartialEq)]
pub struct BezierRectangle {
    degree: [usize; 2],
    points: Vec<Vec3>,
}

impl BezierRectangle {
    /// A rectangle patch of degrees `degree = [du, dv]` (1 to [`MAX_BEZIER_DEGREE`]) with
    /// `(du+1)·(dv+1)` control points.
    ///
    /// # Errors
    /// [`SceneError::NonFinite`]; [`SceneError::InvalidArgument`] for a degree out of range or
    /// the wrong number of points.
    pub fn new(degree: [usize; 2], points: Vec<Vec3>) -> Result<Self, SceneError> {
        if degree.iter().any(|&d| d == 0 || d > MAX_BEZIER_DEGREE) {
            return Err(SceneError::InvalidArgument {
                what: "Bézier rectangle",
                message: format!("degrees {degree:?}; each is 1 to {MAX_BEZIER_DEGREE}"),
            });
        }
        check_points(
            "Bézier rectangle",
            &points,
            (degree[0] + 1) * (degree[1] + 1),
        )?;
        Ok(BezierRectangle { degree, points })
    }

    /// Moves control point `(i, j)` (call [`SurfaceMesh::on_dynamic_change`] afterwards).
    ///
    /// # Errors
    /// [`SceneError::NonFinite`]; [`SceneError::InvalidArgument`] out of range.
    pub fn set_control_point(&mut self, i: usize, j: usize, p: Vec3) -> Result<(), SceneError> {
        if !p.is_finite() {
            return Err(SceneError::NonFinite {
                what: "patch control point",
            });
        }
        if i > self.degree[0] || j > self.degree[1] {
            return Err(SceneError::InvalidArgument {
                what: "control point",
                message: format!("({i}, {j}) outside degrees {:?}", self.degree),
            });
        }
        self.points[j * (self.degree[0] + 1) + i] = p;
        Ok(())
    }

    fn sum(&self, bu: &[f32], bv: &[f32]) -> Vec3 {
        let mut s = Vec3::ZERO;
        for (j, wv) in bv.iter().enumerate() {
            for (i, wu) in bu.iter().enumerate() {
                s += self.points[j * (self.degree[0] + 1) + i] * (*wu * *wv);
            }
        }
        s
    }
}

impl SurfacePatch for BezierRectangle {
    fn p(&self, uv: Vec2) -> Vec3 {
        self.sum(
            &bernstein(self.degree[0], uv.x),
            &bernstein(self.degree[1], uv.y),
        )
    }
    fn derivatives(&self, uv: Vec2) -> (Vec3, Vec3) {
        let (bu, bv) = (
            bernstein(self.degree[0], uv.x),
            bernstein(self.degree[1], uv.y),
        );
        let (du, dv) = (
            bernstein_derivative(self.degree[0], uv.x),
            bernstein_derivative(self.degree[1], uv.y),
        );
        (self.sum(&du, &bv), self.sum(&bu, &dv))
    }
    fn is_rectangular(&self) -> bool {
        true
    }
}

/// A triangular Bézier patch of degree `d` on `u, v ≥ 0, u + v ≤ 1`, with `w = 1 − u − v`.
/// Control point `b_{i,j,k}` (`i + j + k = d`, weights `u^i v^j w^k`) is stored row by row:
/// for `j = 0..=d`, for `i = 0..=d−j`.
#[derive(Debug, Clone, PartialEq)]
pub struct BezierTriangle {
    degree: usize,
    points: Vec<Vec3>,
}

impl BezierTriangle {
    /// A triangle patch of degree `d` (1 to [`MAX_BEZIER_DEGREE`]) with `(d+1)(d+2)/2`
    /// control points.
    ///
    /// # Errors
    /// [`SceneError::NonFinite`]; [`SceneError::InvalidArgument`] for a degree out of range or
    /// the wrong number of points.
    pub fn new(degree: usize, points: Vec<Vec3>) -> Result<Self, SceneError> {
        if degree == 0 || degree > MAX_BEZIER_DEGREE {
            return Err(SceneError::InvalidArgument {
                what: "Bézier triangle",
                message: format!("degree {degree}; 1 to {MAX_BEZIER_DEGREE}"),
            });
        }
        check_points("Bézier triangle", &points, (degree + 1) * (degree + 2) / 2)?;
        Ok(BezierTriangle { degree, points })
    }

    fn index(&self, i: usize, j: usize) -> usize {
        // Rows j' < j hold (d − j' + 1) points each.
        let before: usize = (0..j).map(|jj| self.degree - jj + 1).sum();
        before + i
    }

    /// De Casteljau down to degree `stop`: the points of that level, indexed like the
    /// control net of degree `stop`.
    fn casteljau(&self, uv: Vec2, stop: usize) -> Vec<Vec3> {
        let (u, v) = (uv.x, uv.y);
        let w = 1.0 - u - v;
        let mut d = self.degree;
        let mut net = self.points.clone();
        while d > stop {
            let idx = |i: usize, j: usize, d: usize| -> usize {
                let before: usize = (0..j).map(|jj| d - jj + 1).sum();
                before + i
            };
            let mut next = Vec::with_capacity(d * (d + 1) / 2);
            for j in 0..d {
                for i in 0..d - j {
                    // b_{i,j,k} with k = d−1−i−j: u·b_{i+1,j,k} + v·b_{i,j+1,k} + w·b_{i,j,k+1}.
                    next.push(
                        net[idx(i + 1, j, d)] * u
                            + net[idx(i, j + 1, d)] * v
                            + net[idx(i, j, d)] * w,
                    );
                }
            }
            net = next;
            d -= 1;
        }
        net
    }
}

impl SurfacePatch for BezierTriangle {
    fn p(&self, uv: Vec2) -> Vec3 {
        self.casteljau(uv, 0)[0]
    }
    fn derivatives(&self, uv: Vec2) -> (Vec3, Vec3) {
        // At degree 1 the net is b_{0,0,1} (w), b_{1,0,0} (u), b_{0,1,0} (v).
        let net = self.casteljau(uv, 1);
        let (bw, bu, bv) = (net[0], net[1], net[2]);
        let d = self.degree as f32;
        ((bu - bw) * d, (bv - bw) * d)
    }
    fn is_rectangular(&self) -> bool {
        false
    }
}

impl BezierTriangle {
    /// Control point `b_{i,j,k}` (`k = d − i − j`), if it exists.
    pub fn control_point(&self, i: usize, j: usize) -> Option<Vec3> {
        (i + j <= self.degree).then(|| self.points[self.index(i, j)])
    }
}

#[derive(Debug, Clone, Copy)]
struct ParamTri {
    v: [u32; 3],
    uv: [Vec2; 3],
    patch: u32,
}

/// A surface of patches tessellated by parameter midpoints (see the [module docs](self)).
#[derive(Debug, Clone)]
pub struct SurfaceMesh<P: SurfacePatch = BezierRectangle> {
    patches: Vec<P>,
    base: Vec<ParamTri>,
    base_vertices: usize,
    base_info: Vec<(u32, Vec2)>,
    level: u32,
    vertices: Vec<Vec3>,
    normals: Vec<Vec3>,
    info: Vec<(u32, Vec2)>,
    tree: Vec<[u32; 2]>,
    indices: Vec<u32>,
    edges: usize,
}

impl<P: SurfacePatch> SurfaceMesh<P> {
    /// A surface mesh at level 0: triangles `indices` (3N, over vertices `0..V₀`, every one
    /// used), the patch of each triangle `patch_of` (N) and the parameters of each corner
    /// `params` (3N). A vertex takes the patch and parameter of its first corner.
    ///
    /// # Errors
    /// [`SceneError::InvalidArgument`] for no triangles, mismatched lengths, a patch index out
    /// of range, an unused vertex or a triangle repeating a vertex; [`SceneError::NonFinite`]
    /// for a non-finite parameter or evaluated point.
    pub fn new(
        patches: Vec<P>,
        indices: &[u32],
        patch_of: &[u32],
        params: &[Vec2],
    ) -> Result<Self, SceneError> {
        let bad = |message: String| SceneError::InvalidArgument {
            what: "surface mesh",
            message,
        };
        let n = indices.len() / 3;
        if n == 0 || !indices.len().is_multiple_of(3) {
            return Err(bad(format!(
                "{} indices is no whole triangles",
                indices.len()
            )));
        }
        if n > MAX_SURFACE_TRIANGLES {
            return Err(bad(format!(
                "{n} triangles; at most {MAX_SURFACE_TRIANGLES}"
            )));
        }
        if patch_of.len() != n || params.len() != 3 * n {
            return Err(bad(format!(
                "{n} triangles need {n} patch indices and {} parameters, not {} and {}",
                3 * n,
                patch_of.len(),
                params.len()
            )));
        }
        if params.iter().any(|p| !p.is_finite()) {
            return Err(SceneError::NonFinite {
                what: "surface parameters",
            });
        }
        if let Some(&p) = patch_of.iter().find(|&&p| p as usize >= patches.len()) {
            return Err(bad(format!("patch {p} of {}", patches.len())));
        }
        let nv = indices.iter().map(|&i| i as usize + 1).max().unwrap_or(0);
        let mut info: Vec<Option<(u32, Vec2)>> = vec![None; nv];
        let mut base = Vec::with_capacity(n);
        for t in 0..n {
            let v = [indices[3 * t], indices[3 * t + 1], indices[3 * t + 2]];
            if v[0] == v[1] || v[1] == v[2] || v[0] == v[2] {
                return Err(bad(format!("triangle {t} repeats a vertex")));
            }
            let uv = [params[3 * t], params[3 * t + 1], params[3 * t + 2]];
            for c in 0..3 {
                info[v[c] as usize].get_or_insert((patch_of[t], uv[c]));
            }
            base.push(ParamTri {
                v,
                uv,
                patch: patch_of[t],
            });
        }
        let base_info: Vec<(u32, Vec2)> = info
            .iter()
            .enumerate()
            .map(|(i, x)| x.ok_or_else(|| bad(format!("vertex {i} is in no triangle"))))
            .collect::<Result<_, _>>()?;
        let mut m = SurfaceMesh {
            patches,
            base,
            base_vertices: nv,
            base_info,
            level: 0,
            vertices: Vec::new(),
            normals: Vec::new(),
            info: Vec::new(),
            tree: Vec::new(),
            indices: Vec::new(),
            edges: 0,
        };
        m.subdivide()?;
        Ok(m)
    }

    /// One patch on its whole domain: a rectangle as two triangles over the corners
    /// `(0,0), (1,0), (1,1), (0,1)`, a triangle as one over `(0,0), (1,0), (0,1)`.
    ///
    /// # Errors
    /// As [`SurfaceMesh::new`].
    pub fn single(patch: P) -> Result<Self, SceneError> {
        if patch.is_rectangular() {
            let c = [
                Vec2::new(0.0, 0.0),
                Vec2::new(1.0, 0.0),
                Vec2::new(1.0, 1.0),
                Vec2::new(0.0, 1.0),
            ];
            SurfaceMesh::new(
                vec![patch],
                &[0, 1, 2, 0, 2, 3],
                &[0, 0],
                &[c[0], c[1], c[2], c[0], c[2], c[3]],
            )
        } else {
            SurfaceMesh::new(
                vec![patch],
                &[0, 1, 2],
                &[0],
                &[Vec2::ZERO, Vec2::X, Vec2::Y],
            )
        }
    }

    /// The triangle count of level `level` (`T₀·4^level`), or `None` past
    /// [`MAX_SURFACE_TRIANGLES`].
    pub fn triangle_count_at(&self, level: u32) -> Option<usize> {
        if level >= 16 {
            return None;
        }
        let t = (self.base.len() as u64) << (2 * level);
        (t <= MAX_SURFACE_TRIANGLES as u64).then_some(t as usize)
    }

    /// Subdivides from level 0 to `level`.
    ///
    /// # Errors
    /// [`SceneError::InvalidArgument`] past [`MAX_SURFACE_TRIANGLES`] (the mesh is
    /// unchanged); [`SceneError::NonFinite`] for a non-finite evaluated point.
    pub fn set_level(&mut self, level: u32) -> Result<(), SceneError> {
        if self.triangle_count_at(level).is_none() {
            return Err(SceneError::InvalidArgument {
                what: "surface level",
                message: format!(
                    "level {level} of {} triangles exceeds {MAX_SURFACE_TRIANGLES} triangles",
                    self.base.len()
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
        let mut info = self.base_info.clone();
        let mut tree: Vec<[u32; 2]> = (0..self.base_vertices as u32).map(|i| [i, i]).collect();
        let mut tris = self.base.clone();
        for _ in 0..self.level {
            let mut mids: BTreeMap<(u32, u32), u32> = BTreeMap::new();
            let mut next = Vec::with_capacity(4 * tris.len());
            for t in &tris {
                let mut m = [0u32; 3];
                let mut mu = [Vec2::ZERO; 3];
                for e in 0..3 {
                    let (a, b) = (t.v[e], t.v[(e + 1) % 3]);
                    let k = (a.min(b), a.max(b));
                    mu[e] = (t.uv[e] + t.uv[(e + 1) % 3]) * 0.5;
                    m[e] = *mids.entry(k).or_insert_with(|| {
                        info.push((t.patch, mu[e]));
                        tree.push([k.0, k.1]);
                        (info.len() - 1) as u32
                    });
                }
                let [v0, v1, v2] = t.v;
                let [u0, u1, u2] = t.uv;
                let p = t.patch;
                next.push(ParamTri {
                    v: [v0, m[0], m[2]],
                    uv: [u0, mu[0], mu[2]],
                    patch: p,
                });
                next.push(ParamTri {
                    v: [m[0], v1, m[1]],
                    uv: [mu[0], u1, mu[1]],
                    patch: p,
                });
                next.push(ParamTri {
                    v: [m[2], m[1], v2],
                    uv: [mu[2], mu[1], u2],
                    patch: p,
                });
                next.push(ParamTri {
                    v: [m[0], m[1], m[2]],
                    uv: [mu[0], mu[1], mu[2]],
                    patch: p,
                });
            }
            tris = next;
        }
        let mut edges: Vec<(u32, u32)> = tris
            .iter()
            .flat_map(|t| {
                (0..3).map(move |e| (t.v[e].min(t.v[(e + 1) % 3]), t.v[e].max(t.v[(e + 1) % 3])))
            })
            .collect();
        edges.sort_unstable();
        edges.dedup();
        let (vertices, normals) = self.evaluate(&info)?;
        self.vertices = vertices;
        self.normals = normals;
        self.info = info;
        self.tree = tree;
        self.indices = tris.iter().flat_map(|t| t.v).collect();
        self.edges = edges.len();
        Ok(())
    }

    fn evaluate(&self, info: &[(u32, Vec2)]) -> Result<(Vec<Vec3>, Vec<Vec3>), SceneError> {
        let mut v = Vec::with_capacity(info.len());
        let mut n = Vec::with_capacity(info.len());
        for &(p, uv) in info {
            let patch = &self.patches[p as usize];
            v.push(patch.p(uv));
            n.push(patch.normal(uv));
        }
        if v.iter().chain(&n).any(|p| !p.is_finite()) {
            return Err(SceneError::NonFinite {
                what: "surface points",
            });
        }
        Ok((v, n))
    }

    /// The current level.
    pub fn level(&self) -> u32 {
        self.level
    }

    /// Vertices, level-0 vertices first, each later one after its parents.
    pub fn vertices(&self) -> &[Vec3] {
        &self.vertices
    }

    /// Unit normals from the patches (zero where a patch's tangents are parallel).
    pub fn normals(&self) -> &[Vec3] {
        &self.normals
    }

    /// Triangle indices.
    pub fn indices(&self) -> &[u32] {
        &self.indices
    }

    /// Distinct edges of the current level.
    pub fn edge_count(&self) -> usize {
        self.edges
    }

    /// Patch and parameter of every vertex.
    pub fn parameters(&self) -> &[(u32, Vec2)] {
        &self.info
    }

    /// Parents of every vertex (`[i, i]` for level-0 vertices).
    pub fn vertex_tree(&self) -> &[[u32; 2]] {
        &self.tree
    }

    /// Attributes of the current level from those of level 0 (one per level-0 vertex), each
    /// new vertex the average of its parents'.
    ///
    /// # Errors
    /// [`SceneError::AttributeLength`] for a base that is not one per level-0 vertex.
    pub fn attributes<T>(&self, base: &[T]) -> Result<Vec<T>, SceneError>
    where
        T: Copy + Add<Output = T> + Mul<f32, Output = T>,
    {
        if base.len() != self.base_vertices {
            return Err(SceneError::AttributeLength {
                attribute: "surface vertex attribute",
                expected: self.base_vertices,
                actual: base.len(),
            });
        }
        Ok(average_tree(base, &self.tree))
    }

    /// A patch to change; call [`SurfaceMesh::on_dynamic_change`] afterwards.
    pub fn patch_mut(&mut self, i: usize) -> Option<&mut P> {
        self.patches.get_mut(i)
    }

    /// Re-evaluates every vertex and normal at its patch and parameter.
    ///
    /// # Errors
    /// [`SceneError::NonFinite`] for a non-finite evaluated point.
    pub fn on_dynamic_change(&mut self) -> Result<(), SceneError> {
        let (v, n) = self.evaluate(&self.info)?;
        self.vertices = v;
        self.normals = n;
        Ok(())
    }

    /// The current tessellation as a triangle mesh with the patch normals.
    ///
    /// # Errors
    /// Mesh construction errors pass through.
    pub fn to_mesh(&self) -> Result<Mesh, SceneError> {
        Mesh::triangles(self.vertices.clone(), self.indices.clone())?
            .with_normals(self.normals.clone())
    }
}
