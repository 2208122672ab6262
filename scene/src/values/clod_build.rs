//! Building continuous-LOD records offline (Eberly's `CreateClodMesh`, book-advanced §1.4,
//! book L8990–9125): repeated edge collapses, cheapest first, then a reordering of vertices
//! and triangles so that the first removed goes last.
//!
//! # The collapse
//!
//! An edge `⟨keep, throw⟩` collapses by deleting the triangles that share it and renaming
//! `throw` to `keep` in every other triangle (book L9035). The edges live in a min-heap keyed
//! by `(weight, edge)`: equal weights go to the edge with the smaller `(min, max)` vertex
//! pair, so the build is deterministic. After a collapse every edge touching a vertex of a
//! triangle around `keep` is re-weighted in place.
//!
//! # Infinite weights (never collapsed)
//!
//! The book's three rules (L9016–9020), plus the two that keep the result a valid mesh:
//!
//! * **fold-over**: a collapse that would turn a triangle around `throw` over (its normal
//!   after the collapse points against its normal before, or it loses all its area) — the
//!   book's look-ahead;
//! * **boundary**: an edge with one triangle, and (so the boundary does not move: the book's
//!   "stops shrinking") a `throw` vertex on a boundary edge of the original mesh;
//! * **non-manifold**: an edge with three or more triangles (and, likewise, a `throw` vertex
//!   on one);
//! * **link condition**: the two vertices have other common neighbours than the opposite
//!   corners of the edge's two triangles (the collapse would glue the surface to itself);
//! * **duplicate**: a renamed triangle would repeat one that already exists.
//!
//! # The weight (plumb's choice)
//!
//! The book gives a weight formula only for polylines (eq. 4.1) and leaves the triangle
//! weight to the source. plumb uses, for edge length `ℓ`, unit normals `n₀, n₁` of the two
//! triangles on the edge, and `c` the largest `1 − cos` of the normal change of a triangle
//! renamed by the collapse: `w = ℓ · (1/20 + (1 − n₀·n₁) + c)`. Flat regions lose their
//! shortest edges first; creases and curved regions last. Of the two directions, the one
//! with the smaller `c` is taken (ties throw the larger vertex index); a direction refused by
//! the rules above is not considered.
//!
//! # Reordering
//!
//! Vertices: those never thrown (in their original order), then the thrown ones, last thrown
//! first — so record `k`'s throw vertex is index `n − k`. Triangles: the survivors in their
//! original order, then the deleted ones, last deleted first. [`CreateClodMesh::reorder`]
//! applies the vertex permutation to any attribute array (the book's `Reorder<T>`).

use std::collections::BTreeMap;

use glam::{DVec3, Vec3};

use crate::values::clod::{ClodMesh, CollapseRecord, IndexedHeap};
use crate::values::error::SceneError;
use crate::values::mesh::{Mesh, MeshTopology};

/// The most triangles [`CreateClodMesh::new`] accepts (memory and time stay bounded:
/// `O(t log t)` for `t` triangles).
pub const MAX_CLOD_TRIANGLES: usize = 1 << 21;

/// Collapse records and the reordering of one triangle mesh (see the [module docs](self)).
#[derive(Debug, Clone, PartialEq)]
pub struct CreateClodMesh {
    /// `order[new] = old`: the vertex permutation.
    vertex_order: Vec<u32>,
    /// The reordered index array (full detail).
    indices: Vec<u32>,
    /// Record 0 (the full mesh) and one record per collapse.
    records: Vec<CollapseRecord>,
}

#[derive(Debug, Clone)]
struct EdgeRec {
    tris: Vec<u32>,
    slot: u32,
}

type Key = (u32, u32);

fn key(a: u32, b: u32) -> Key {
    if a < b {
        (a, b)
    } else {
        (b, a)
    }
}

struct Builder<'a> {
    p: &'a [Vec3],
    tris: Vec<[u32; 3]>,
    alive: Vec<bool>,
    vert_tris: Vec<Vec<u32>>,
    edges: BTreeMap<Key, EdgeRec>,
    slot_keys: Vec<Key>,
    locked: Vec<bool>,
    heap: IndexedHeap,
}

fn normal(p: &[Vec3], t: [u32; 3]) -> DVec3 {
    let a = p[t[0] as usize].as_dvec3();
    let b = p[t[1] as usize].as_dvec3();
    let c = p[t[2] as usize].as_dvec3();
    (b - a).cross(c - a)
}

impl Builder<'_> {
    fn add_edge_tri(&mut self, k: Key, t: u32) {
        if let Some(e) = self.edges.get_mut(&k) {
            e.tris.push(t);
            return;
        }
        let slot = self.slot_keys.len() as u32;
        self.slot_keys.push(k);
        self.edges.insert(
            k,
            EdgeRec {
                tris: vec![t],
                slot,
            },
        );
        self.heap
            .push(f64::INFINITY, (u64::from(k.0) << 32) | u64::from(k.1), slot);
    }

    fn insert_triangle(&mut self, t: u32) {
        let v = self.tris[t as usize];
        self.alive[t as usize] = true;
        for i in 0..3 {
            self.vert_tris[v[i] as usize].push(t);
            self.add_edge_tri(key(v[i], v[(i + 1) % 3]), t);
        }
    }

    fn remove_triangle(&mut self, t: u32) {
        let v = self.tris[t as usize];
        self.alive[t as usize] = false;
        for i in 0..3 {
            let list = &mut self.vert_tris[v[i] as usize];
            if let Some(p) = list.iter().position(|&x| x == t) {
                list.swap_remove(p);
            }
            let k = key(v[i], v[(i + 1) % 3]);
            let mut gone = None;
            if let Some(e) = self.edges.get_mut(&k) {
                if let Some(p) = e.tris.iter().position(|&x| x == t) {
                    e.tris.swap_remove(p);
                }
                if e.tris.is_empty() {
                    gone = Some(e.slot);
                }
            }
            if let Some(slot) = gone {
                self.edges.remove(&k);
                self.heap.remove(slot);
            }
        }
    }

    fn neighbours(&self, v: u32) -> Vec<u32> {
        let mut n: Vec<u32> = self.vert_tris[v as usize]
            .iter()
            .flat_map(|&t| self.tris[t as usize])
            .filter(|&x| x != v)
            .collect();
        n.sort_unstable();
        n.dedup();
        n
    }

    /// The largest `1 − cos` of the normal change of a triangle renamed by `throw → keep`, or
    /// `None` when the collapse in that direction is refused.
    fn direction_cost(&self, throw: u32, keep: u32) -> Option<f64> {
        if self.locked[throw as usize] {
            return None;
        }
        let mut worst = 0.0f64;
        for &t in &self.vert_tris[throw as usize] {
            let before = self.tris[t as usize];
            if before.contains(&keep) {
                continue;
            }
            let after = before.map(|x| if x == throw { keep } else { x });
            let (nb, na) = (normal(self.p, before), normal(self.p, after));
            let (lb, la) = (nb.length(), na.length());
            if la <= 1e-12 * lb.max(1e-300) || !la.is_finite() {
                return None;
            }
            let cos = if lb > 0.0 {
                nb.dot(na) / (lb * la)
            } else {
                1.0
            };
            if cos <= 0.0 {
                return None;
            }
            worst = worst.max(1.0 - cos);
            // A renamed triangle must not repeat a triangle already around `keep`.
            let mut s = after;
            s.sort_unstable();
            for &u in &self.vert_tris[keep as usize] {
                let mut o = self.tris[u as usize];
                o.sort_unstable();
                if o == s {
                    return None;
                }
            }
        }
        Some(worst)
    }

    /// The weight of edge `k` and its collapse `(throw, keep)`, or `+∞` and `None`.
    fn weigh(&self, k: Key) -> (f64, Option<(u32, u32)>) {
        const REFUSED: (f64, Option<(u32, u32)>) = (f64::INFINITY, None);
        let Some(e) = self.edges.get(&k) else {
            return REFUSED;
        };
        if e.tris.len() != 2 {
            return REFUSED;
        }
        let (a, b) = k;
        let na = self.neighbours(a);
        let nb = self.neighbours(b);
        let common = na.iter().filter(|x| nb.binary_search(x).is_ok()).count();
        if common != 2 {
            return REFUSED;
        }
        let (n0, n1) = (
            normal(self.p, self.tris[e.tris[0] as usize]),
            normal(self.p, self.tris[e.tris[1] as usize]),
        );
        let (l0, l1) = (n0.length(), n1.length());
        let dihedral = if l0 > 0.0 && l1 > 0.0 {
            1.0 - n0.dot(n1) / (l0 * l1)
        } else {
            1.0
        };
        let len = (self.p[a as usize].as_dvec3() - self.p[b as usize].as_dvec3()).length();
        let throw_b = self.direction_cost(b, a);
        let throw_a = self.direction_cost(a, b);
        let (cost, dir) = match (throw_b, throw_a) {
            (Some(cb), Some(ca)) if ca < cb => (ca, (a, b)),
            (Some(cb), _) => (cb, (b, a)),
            (None, Some(ca)) => (ca, (a, b)),
            (None, None) => return REFUSED,
        };
        let w = len * (0.05 + dihedral + cost);
        if w.is_finite() {
            (w, Some(dir))
        } else {
            REFUSED
        }
    }

    fn reweigh(&mut self, k: Key) {
        let (w, _) = self.weigh(k);
        if let Some(e) = self.edges.get(&k) {
            let slot = e.slot;
            self.heap.update(slot, w);
        }
    }
}

impl CreateClodMesh {
    /// Runs the decimation of a triangle mesh given by `positions` and `indices` (triples).
    ///
    /// # Errors
    /// [`SceneError::NonFinite`] for a non-finite position; [`SceneError::InvalidArgument`]
    /// for no triangles, an index count that is not a multiple of 3, an index out of range, a
    /// triangle that repeats a vertex, or more than [`MAX_CLOD_TRIANGLES`] triangles.
    pub fn new(positions: &[Vec3], indices: &[u32]) -> Result<Self, SceneError> {
        let bad = |message: String| SceneError::InvalidArgument {
            what: "CLOD mesh",
            message,
        };
        if positions.iter().any(|p| !p.is_finite()) {
            return Err(SceneError::NonFinite {
                what: "CLOD positions",
            });
        }
        if indices.is_empty() {
            return Err(bad("no triangles to decimate".into()));
        }
        if !indices.len().is_multiple_of(3) {
            return Err(bad(format!(
                "{} indices is not whole triangles",
                indices.len()
            )));
        }
        let nt = indices.len() / 3;
        if nt > MAX_CLOD_TRIANGLES {
            return Err(bad(format!("{nt} triangles; at most {MAX_CLOD_TRIANGLES}")));
        }
        let nv = positions.len();
        if u32::try_from(nv).is_err() {
            return Err(SceneError::TooManyVertices(nv));
        }
        if let Some(&i) = indices.iter().find(|&&i| i as usize >= nv) {
            return Err(bad(format!("index {i} past the {nv} vertices")));
        }
        let tris: Vec<[u32; 3]> = indices
            .chunks_exact(3)
            .map(|c| [c[0], c[1], c[2]])
            .collect();
        if let Some(t) = tris
            .iter()
            .position(|t| t[0] == t[1] || t[1] == t[2] || t[0] == t[2])
        {
            return Err(bad(format!("triangle {t} repeats a vertex")));
        }
        let mut b = Builder {
            p: positions,
            tris: tris.clone(),
            alive: vec![false; nt],
            vert_tris: vec![Vec::new(); nv],
            edges: BTreeMap::new(),
            slot_keys: Vec::new(),
            locked: vec![false; nv],
            heap: IndexedHeap::new(3 * nt),
        };
        for t in 0..nt as u32 {
            b.insert_triangle(t);
        }
        let odd: Vec<Key> = b
            .edges
            .iter()
            .filter(|(_, e)| e.tris.len() != 2)
            .map(|(k, _)| *k)
            .collect();
        for (x, y) in odd {
            b.locked[x as usize] = true;
            b.locked[y as usize] = true;
        }
        let keys: Vec<Key> = b.edges.keys().copied().collect();
        for k in keys {
            b.reweigh(k);
        }

        let mut thrown: Vec<u32> = Vec::new();
        let mut collapses: Vec<(u32, u32, Vec<u32>)> = Vec::new(); // (keep, throw, deleted tris)
        while let Some((w, slot)) = b.heap.peek() {
            if !w.is_finite() {
                break;
            }
            let k = b.slot_keys[slot as usize];
            let (_, dir) = b.weigh(k);
            let Some((throw, keep)) = dir else {
                b.heap.update(slot, f64::INFINITY);
                continue;
            };
            let on_edge = b.edges.get(&k).map(|e| e.tris.clone()).unwrap_or_default();
            for &t in &on_edge {
                b.remove_triangle(t);
            }
            let fan = b.vert_tris[throw as usize].clone();
            for t in fan {
                b.remove_triangle(t);
                for x in &mut b.tris[t as usize] {
                    if *x == throw {
                        *x = keep;
                    }
                }
                b.insert_triangle(t);
            }
            thrown.push(throw);
            collapses.push((keep, throw, on_edge));
            let mut touched: Vec<u32> = vec![keep];
            for &t in &b.vert_tris[keep as usize] {
                touched.extend(b.tris[t as usize]);
            }
            touched.sort_unstable();
            touched.dedup();
            let mut redo: Vec<Key> = Vec::new();
            for &v in &touched {
                for &t in &b.vert_tris[v as usize] {
                    let tv = b.tris[t as usize];
                    for i in 0..3 {
                        if tv[i] == v || tv[(i + 1) % 3] == v {
                            redo.push(key(tv[i], tv[(i + 1) % 3]));
                        }
                    }
                }
            }
            redo.sort_unstable();
            redo.dedup();
            for k in redo {
                b.reweigh(k);
            }
        }

        // Vertex order: never thrown (original order), then thrown, last thrown first.
        let mut is_thrown = vec![false; nv];
        for &t in &thrown {
            is_thrown[t as usize] = true;
        }
        let mut vertex_order: Vec<u32> =
            (0..nv as u32).filter(|&v| !is_thrown[v as usize]).collect();
        vertex_order.extend(thrown.iter().rev());
        let mut d = vec![0u32; nv];
        for (new, &old) in vertex_order.iter().enumerate() {
            d[old as usize] = new as u32;
        }
        // Triangle order: survivors, then deleted, last deleted first.
        let mut tri_order: Vec<u32> = (0..nt as u32).filter(|&t| b.alive[t as usize]).collect();
        for (_, _, del) in collapses.iter().rev() {
            tri_order.extend(del.iter().rev());
        }
        let full: Vec<u32> = tri_order
            .iter()
            .flat_map(|&t| tris[t as usize].map(|v| d[v as usize]))
            .collect();

        // Records, by replaying the collapses on the reordered index array.
        let mut at: Vec<Vec<u32>> = vec![Vec::new(); nv];
        for (i, &v) in full.iter().enumerate() {
            at[v as usize].push(i as u32);
        }
        let mut records = vec![CollapseRecord {
            keep: 0,
            throw: 0,
            vertices: nv as u32,
            triangles: nt as u32,
            indices: Vec::new(),
        }];
        let mut tq = nt as u32;
        for (i, (keep, throw, del)) in collapses.iter().enumerate() {
            tq -= del.len() as u32;
            let (keep, throw) = (d[*keep as usize], d[*throw as usize]);
            let moved: Vec<u32> = std::mem::take(&mut at[throw as usize])
                .into_iter()
                .filter(|&p| p < 3 * tq)
                .collect();
            at[keep as usize].extend(&moved);
            let mut sorted = moved;
            sorted.sort_unstable();
            records.push(CollapseRecord {
                keep,
                throw,
                vertices: (nv - 1 - i) as u32,
                triangles: tq,
                indices: sorted,
            });
        }
        Ok(CreateClodMesh {
            vertex_order,
            indices: full,
            records,
        })
    }

    /// The records: record 0 (the full mesh), then one per collapse.
    pub fn records(&self) -> &[CollapseRecord] {
        &self.records
    }

    /// The reordered index array at full detail.
    pub fn indices(&self) -> &[u32] {
        &self.indices
    }

    /// `order[new] = old`: where each reordered vertex came from.
    pub fn vertex_order(&self) -> &[u32] {
        &self.vertex_order
    }

    /// Applies the vertex permutation to an attribute array (the book's `Reorder<T>`).
    ///
    /// # Errors
    /// [`SceneError::AttributeLength`] when `attribute` does not have one entry per vertex.
    pub fn reorder<T: Clone>(&self, attribute: &[T]) -> Result<Vec<T>, SceneError> {
        if attribute.len() != self.vertex_order.len() {
            return Err(SceneError::AttributeLength {
                attribute: "CLOD vertex attribute",
                expected: self.vertex_order.len(),
                actual: attribute.len(),
            });
        }
        Ok(self
            .vertex_order
            .iter()
            .map(|&o| attribute[o as usize].clone())
            .collect())
    }
}

impl ClodMesh {
    /// Decimates a triangle mesh ([`CreateClodMesh::new`]) and reorders its positions,
    /// normals, colours, tangents and uv sets; the result is at record 0. Points and lines
    /// are refused.
    ///
    /// # Errors
    /// As [`CreateClodMesh::new`]; [`SceneError::InvalidArgument`] for a mesh that is not
    /// triangles.
    pub fn from_mesh(mesh: &Mesh) -> Result<Self, SceneError> {
        if mesh.topology() != MeshTopology::Triangles {
            return Err(SceneError::InvalidArgument {
                what: "CLOD mesh",
                message: "only triangle meshes decimate".into(),
            });
        }
        let c = CreateClodMesh::new(mesh.positions(), mesh.indices())?;
        let mut out = Mesh::triangles(c.reorder(mesh.positions())?, c.indices().to_vec())?;
        if let Some(n) = mesh.normals() {
            out = out.with_normals(c.reorder(n)?)?;
        }
        if let Some(col) = mesh.colors() {
            out = out.with_colors(c.reorder(col)?)?;
        }
        if let Some(t) = mesh.tangents() {
            out = out.with_tangents(c.reorder(t)?)?;
        }
        for uv in mesh.uv_sets() {
            out = out.with_uv_set(c.reorder(uv)?)?;
        }
        ClodMesh::new(out, c.records)
    }
}
