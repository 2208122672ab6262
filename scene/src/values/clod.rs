//! Continuous level of detail (Eberly's `ClodMesh` and `CollapseRecord`, book-advanced §1.4):
//! a triangle mesh whose vertices and triangles are ordered so that any level of detail is a
//! prefix of both arrays, plus a list of collapse records that move between levels by
//! rewriting a few indices in place — no reallocation.
//!
//! The records are built offline by [`CreateClodMesh`](crate::values::clod_build::CreateClodMesh)
//! (edge collapses taken cheapest first from a heap; see [`clod_build`](crate::values::clod_build)).
//! Record 0 is the full mesh; record `k ≥ 1` says that edge `⟨keep, throw⟩` collapsed, that
//! `vertices` vertices and `triangles` triangles remain, and which positions of the index
//! array held `throw` and now hold `keep`. Because the first vertex removed is stored last,
//! record `k`'s `throw` is always the vertex just past the active ones (`throw == vertices`).
//!
//! At run time a [`ClodMesh`] holds a **target record**. Going down one record writes `keep`
//! at the record's index positions; going up writes `throw` back, so moving down and then up
//! again restores the index array exactly. The target is set directly
//! ([`ClodMesh::set_target_record`]) or from a view depth with the book's sample rule
//! ([`target_record_for_depth`], book L9178–9196: the depth between near and far maps to
//! `ratio^0.5` of the record range).
//!
//! The polyline warm-up of the book (L8769–8990) is here too, because it is the book's worked
//! example: [`polyline_weight`] (eq. 4.1), [`polyline_removal_order`] (the heap of Figures
//! 4.3–4.21) and [`PolylineClod`] (the edge array and mapping indices of Tables 4.1 and 4.2).

use glam::Vec3;

use crate::values::error::SceneError;
use crate::values::mesh::Mesh;

/// The weight of eq. 4.1 (book L8776): `dist²(X, segment(L, R)) / |R − L|²`, the squared
/// distance from `x` to the segment from `left` to `right` over the squared length of that
/// segment. `+∞` when the segment has zero length (the two neighbours coincide).
pub fn polyline_weight(left: Vec3, x: Vec3, right: Vec3) -> f64 {
    let (l, x, r) = (left.as_dvec3(), x.as_dvec3(), right.as_dvec3());
    let d = r - l;
    let len2 = d.length_squared();
    if len2 <= 0.0 || !len2.is_finite() {
        return f64::INFINITY;
    }
    let t = ((x - l).dot(d) / len2).clamp(0.0, 1.0);
    let q = l + d * t;
    (x - q).length_squared() / len2
}

/// An indexed binary min-heap of items keyed by `(weight, tie)`: the root has the smallest
/// weight, equal weights by the smaller `tie`. Besides push and pop it updates the weight of
/// any item in place (the book's back-pointers, L8795), moving it up or down. Items are
/// `0..capacity` (a vertex or an edge slot).
#[derive(Debug, Clone)]
pub(crate) struct IndexedHeap {
    /// `(weight, tie, item)` in heap order.
    nodes: Vec<(f64, u64, u32)>,
    /// Position of each item in `nodes`, `u32::MAX` if absent.
    pos: Vec<u32>,
}

impl IndexedHeap {
    pub(crate) fn new(capacity: usize) -> Self {
        IndexedHeap {
            nodes: Vec::with_capacity(capacity),
            pos: vec![u32::MAX; capacity],
        }
    }

    fn less(a: &(f64, u64, u32), b: &(f64, u64, u32)) -> bool {
        a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)).is_lt()
    }

    fn swap(&mut self, i: usize, j: usize) {
        self.nodes.swap(i, j);
        self.pos[self.nodes[i].2 as usize] = i as u32;
        self.pos[self.nodes[j].2 as usize] = j as u32;
    }

    fn up(&mut self, mut i: usize) {
        while i > 0 {
            let p = (i - 1) / 2;
            if Self::less(&self.nodes[i], &self.nodes[p]) {
                self.swap(i, p);
                i = p;
            } else {
                break;
            }
        }
    }

    fn down(&mut self, mut i: usize) {
        let n = self.nodes.len();
        loop {
            let l = 2 * i + 1;
            if l >= n {
                break;
            }
            let mut c = l;
            if l + 1 < n && Self::less(&self.nodes[l + 1], &self.nodes[l]) {
                c = l + 1;
            }
            if Self::less(&self.nodes[c], &self.nodes[i]) {
                self.swap(c, i);
                i = c;
            } else {
                break;
            }
        }
    }

    /// Builds the heap from items in array order, processing parents from the last one up to
    /// the root (book L8806–8850).
    pub(crate) fn build(capacity: usize, items: Vec<(f64, u64, u32)>) -> Self {
        let mut h = IndexedHeap::new(capacity);
        for (i, it) in items.iter().enumerate() {
            h.pos[it.2 as usize] = i as u32;
        }
        h.nodes = items;
        for i in (0..h.nodes.len() / 2).rev() {
            h.down(i);
        }
        h
    }

    pub(crate) fn push(&mut self, weight: f64, tie: u64, item: u32) {
        if item as usize >= self.pos.len() {
            self.pos.resize(item as usize + 1, u32::MAX);
        }
        self.nodes.push((weight, tie, item));
        let i = self.nodes.len() - 1;
        self.pos[item as usize] = i as u32;
        self.up(i);
    }

    pub(crate) fn peek(&self) -> Option<(f64, u32)> {
        self.nodes.first().map(|n| (n.0, n.2))
    }

    pub(crate) fn contains(&self, item: u32) -> bool {
        self.pos.get(item as usize).is_some_and(|&p| p != u32::MAX)
    }

    /// Removes `item` (at the root or anywhere): the last node takes its place and moves up or
    /// down.
    pub(crate) fn remove(&mut self, item: u32) {
        let Some(&p) = self.pos.get(item as usize) else {
            return;
        };
        if p == u32::MAX {
            return;
        }
        let p = p as usize;
        let last = self.nodes.len() - 1;
        if p != last {
            self.swap(p, last);
        }
        self.nodes.pop();
        self.pos[item as usize] = u32::MAX;
        if p < self.nodes.len() {
            self.up(p);
            self.down(self.pos[self.nodes[p].2 as usize] as usize);
        }
    }

    /// Changes the weight of `item` and restores the heap (up if smaller than its parent,
    /// else down).
    pub(crate) fn update(&mut self, item: u32, weight: f64) {
        let Some(&p) = self.pos.get(item as usize) else {
            return;
        };
        if p == u32::MAX {
            return;
        }
        let p = p as usize;
        self.nodes[p].0 = weight;
        self.up(p);
        let p = self.pos[item as usize] as usize;
        self.down(p);
    }
}

/// The order in which the book's polyline reduction removes the vertices of a polyline
/// (book L8790–8909): every vertex weighted by [`polyline_weight`] with its current
/// neighbours, the minimum removed from a heap and its two neighbours re-weighted (the left
/// one first). An open polyline's end points weigh `+∞`; a closed one wraps around. The
/// reduction runs to the last vertex, so the result is a permutation of `0..n`; the book's
/// Table 4.1 stops once three vertices (closed) or two (open) remain.
///
/// # Errors
/// [`SceneError::NonFinite`] for a non-finite point; [`SceneError::InvalidArgument`] for
/// fewer than 3 points or more than `u32::MAX`.
pub fn polyline_removal_order(points: &[Vec3], closed: bool) -> Result<Vec<usize>, SceneError> {
    let n = points.len();
    if points.iter().any(|p| !p.is_finite()) {
        return Err(SceneError::NonFinite {
            what: "polyline points",
        });
    }
    if n < 3 || u32::try_from(n).is_err() {
        return Err(SceneError::InvalidArgument {
            what: "polyline",
            message: format!("{n} points; the reduction needs 3 or more"),
        });
    }
    let mut left: Vec<usize> = (0..n).map(|i| (i + n - 1) % n).collect();
    let mut right: Vec<usize> = (0..n).map(|i| (i + 1) % n).collect();
    let weight = |i: usize, left: &[usize], right: &[usize]| -> f64 {
        if !closed && (i == 0 || i == n - 1) {
            return f64::INFINITY;
        }
        let (l, r) = (left[i], right[i]);
        if l == r || l == i {
            return f64::INFINITY;
        }
        polyline_weight(points[l], points[i], points[r])
    };
    let items = (0..n)
        .map(|i| (weight(i, &left, &right), 0, i as u32))
        .collect();
    let mut heap = IndexedHeap::build(n, items);
    let mut order = Vec::with_capacity(n);
    while let Some((_, v)) = heap.peek() {
        let v = v as usize;
        heap.remove(v as u32);
        order.push(v);
        let (l, r) = (left[v], right[v]);
        if l == v {
            continue;
        }
        if !closed && v == 0 {
            left[r] = r;
        } else if !closed && v == n - 1 {
            right[l] = l;
        } else {
            right[l] = r;
            left[r] = l;
        }
        for u in [l, r] {
            if heap.contains(u as u32) {
                let w = weight(u, &left, &right);
                heap.update(u as u32, w);
            }
        }
    }
    Ok(order)
}

/// The book's dynamic change of level of detail for a closed polyline (book L8930–8990): the
/// edge array sorted so that the last edge is the first removed, and one mapping index per
/// removal.
#[derive(Debug, Clone, PartialEq)]
pub struct PolylineClod {
    /// `c`: the vertices ordered from last removed to first removed.
    pub collapse: Vec<usize>,
    /// The initial edge array `⟨c₀, c₀+1⟩ … ⟨c_{n−1}, c_{n−1}+1⟩` (sums mod n), flattened.
    pub initial_edges: Vec<u32>,
    /// `m_k` for `k = n−1` down to 3: the position in the edge array whose value `c_k` is
    /// replaced when `c_k` is removed (the book's "Map" column).
    pub maps: Vec<usize>,
    edges: Vec<u32>,
    quantity: usize,
}

impl PolylineClod {
    /// Builds the edge array of a closed polyline from its removal order
    /// ([`polyline_removal_order`]).
    ///
    /// # Errors
    /// As [`polyline_removal_order`].
    pub fn closed(points: &[Vec3]) -> Result<Self, SceneError> {
        let order = polyline_removal_order(points, true)?;
        let n = points.len();
        let collapse: Vec<usize> = order.into_iter().rev().collect();
        let mut edges: Vec<u32> = Vec::with_capacity(2 * n);
        for &c in &collapse {
            edges.push(c as u32);
            edges.push(((c + 1) % n) as u32);
        }
        let initial_edges = edges.clone();
        let mut maps = Vec::new();
        for k in (3..n).rev() {
            let ck = collapse[k] as u32;
            let m = edges[..2 * k]
                .iter()
                .position(|&e| e == ck)
                .ok_or_else(|| SceneError::InvalidArgument {
                    what: "polyline",
                    message: format!("vertex {ck} has no left edge"),
                })?;
            maps.push(m);
            edges[m] = edges[2 * k + 1];
        }
        Ok(PolylineClod {
            collapse,
            initial_edges: initial_edges.clone(),
            maps,
            edges: initial_edges,
            quantity: n,
        })
    }

    /// The active edges (also the active vertex count: a closed polyline has as many edges as
    /// vertices), flattened.
    pub fn edges(&self) -> &[u32] {
        &self.edges[..2 * self.quantity]
    }

    /// The number of active vertices (= edges).
    pub fn quantity(&self) -> usize {
        self.quantity
    }

    /// Moves to `q` active vertices (clamped to `3..=n`), removing vertices by the book's rule
    /// (`e[m_k] ← e[2k+1]`) or restoring them (`e[m_k] ← c_k`).
    pub fn set_quantity(&mut self, q: usize) {
        let n = self.collapse.len();
        let q = q.clamp(3, n);
        while self.quantity > q {
            let k = self.quantity - 1;
            let m = self.maps[n - 1 - k];
            self.edges[m] = self.edges[2 * k + 1];
            self.quantity = k;
        }
        while self.quantity < q {
            let k = self.quantity;
            let m = self.maps[n - 1 - k];
            self.edges[m] = self.collapse[k] as u32;
            self.quantity = k + 1;
        }
    }

    /// The inverse permutation `d` (`d[c_i] = i`, book L8973) and the edge array reindexed by
    /// it (Table 4.2's first row, before any removal).
    pub fn reindexed(&self) -> (Vec<usize>, Vec<u32>) {
        let mut d = vec![0; self.collapse.len()];
        for (i, &c) in self.collapse.iter().enumerate() {
            d[c] = i;
        }
        let e = self.edges.iter().map(|&v| d[v as usize] as u32).collect();
        (d, e)
    }
}

/// One edge collapse (the book's `CollapseRecord`, L9101). Record 0 of a [`ClodMesh`] is the
/// full mesh: its `keep` and `throw` are 0 and its `indices` empty.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CollapseRecord {
    /// The vertex kept.
    pub keep: u32,
    /// The vertex thrown away (always equal to `vertices`: it is the first inactive one).
    pub throw: u32,
    /// Vertices remaining after the collapse.
    pub vertices: u32,
    /// Triangles remaining after the collapse.
    pub triangles: u32,
    /// Positions in the index array, all below `3·triangles`, that held `throw` before the
    /// collapse and hold `keep` after it.
    pub indices: Vec<u32>,
}

/// A triangle mesh with continuous level of detail (see the [module docs](self)).
#[derive(Debug, Clone, PartialEq)]
pub struct ClodMesh {
    mesh: Mesh,
    records: Vec<CollapseRecord>,
    indices: Vec<u32>,
    current: usize,
}

impl ClodMesh {
    /// A CLOD mesh from a reordered triangle mesh (full detail) and its records, at record 0.
    ///
    /// # Errors
    /// [`SceneError::InvalidArgument`] for a mesh that is not triangles, no records, or a
    /// record that does not fit the mesh (record 0 not the full mesh, counts that grow, a
    /// `throw` other than `vertices`, `keep ≥ vertices`, or an index position at or past
    /// `3·triangles`).
    pub fn new(mesh: Mesh, records: Vec<CollapseRecord>) -> Result<Self, SceneError> {
        let bad = |message: String| SceneError::InvalidArgument {
            what: "CLOD records",
            message,
        };
        if mesh.topology() != crate::values::mesh::MeshTopology::Triangles {
            return Err(bad("a CLOD mesh is a triangle mesh".into()));
        }
        let Some(first) = records.first() else {
            return Err(bad("no records (record 0 is the full mesh)".into()));
        };
        if first.vertices as usize != mesh.positions().len()
            || first.triangles as usize != mesh.triangle_count()
            || !first.indices.is_empty()
        {
            return Err(bad("record 0 must be the full mesh".into()));
        }
        for (k, w) in records.windows(2).enumerate() {
            let (a, r) = (&w[0], &w[1]);
            if r.vertices + 1 != a.vertices || r.triangles > a.triangles {
                return Err(bad(format!("record {} does not remove one vertex", k + 1)));
            }
            if r.throw != r.vertices || r.keep >= r.vertices {
                return Err(bad(format!("record {} has keep/throw out of range", k + 1)));
            }
            if r.indices.iter().any(|&i| i >= 3 * r.triangles) {
                return Err(bad(format!(
                    "record {} has an index past its triangles",
                    k + 1
                )));
            }
        }
        let indices = mesh.indices().to_vec();
        Ok(ClodMesh {
            mesh,
            records,
            indices,
            current: 0,
        })
    }

    /// The number of records (collapses + 1).
    pub fn record_count(&self) -> usize {
        self.records.len()
    }

    /// The records, record 0 first.
    pub fn records(&self) -> &[CollapseRecord] {
        &self.records
    }

    /// The current target record.
    pub fn target_record(&self) -> usize {
        self.current
    }

    /// Moves to record `target`, one record at a time (down: `index[i] ← keep`; up:
    /// `index[i] ← throw`).
    ///
    /// # Errors
    /// [`SceneError::InvalidArgument`] for `target ≥ record_count()` (nothing changes).
    pub fn set_target_record(&mut self, target: usize) -> Result<(), SceneError> {
        if target >= self.records.len() {
            return Err(SceneError::InvalidArgument {
                what: "CLOD target record",
                message: format!(
                    "record {target} of {} (records 0..={})",
                    self.records.len(),
                    self.records.len() - 1
                ),
            });
        }
        while self.current < target {
            self.current += 1;
            let r = &self.records[self.current];
            for &i in &r.indices {
                self.indices[i as usize] = r.keep;
            }
        }
        while self.current > target {
            let r = &self.records[self.current];
            for &i in &r.indices {
                self.indices[i as usize] = r.throw;
            }
            self.current -= 1;
        }
        Ok(())
    }

    /// Active vertices at the current record (a prefix of the vertex array).
    pub fn active_vertex_count(&self) -> usize {
        self.records[self.current].vertices as usize
    }

    /// Active triangles at the current record (a prefix of the triangle array).
    pub fn active_triangle_count(&self) -> usize {
        self.records[self.current].triangles as usize
    }

    /// The active indices: `3 · active_triangle_count()` of them, all below
    /// `active_vertex_count()`.
    pub fn active_indices(&self) -> &[u32] {
        &self.indices[..3 * self.active_triangle_count()]
    }

    /// The whole index array in its current state (inactive triangles at the end).
    pub fn indices(&self) -> &[u32] {
        &self.indices
    }

    /// The full-detail mesh (reordered vertices and triangles, index array of record 0).
    pub fn full_mesh(&self) -> &Mesh {
        &self.mesh
    }

    /// A mesh of the current level: the active vertices with their attributes and the active
    /// triangles (for a scene leaf, which holds an immutable [`Mesh`]).
    ///
    /// # Errors
    /// None in practice (the records were validated); mesh construction errors pass through.
    pub fn to_mesh(&self) -> Result<Mesh, SceneError> {
        let v = self.active_vertex_count();
        let m = &self.mesh;
        let mut out = Mesh::triangles(m.positions()[..v].to_vec(), self.active_indices().to_vec())?;
        if let Some(n) = m.normals() {
            out = out.with_normals(n[..v].to_vec())?;
        }
        if let Some(c) = m.colors() {
            out = out.with_colors(c[..v].to_vec())?;
        }
        if let Some(t) = m.tangents() {
            out = out.with_tangents(t[..v].to_vec())?;
        }
        for uv in m.uv_sets() {
            out = out.with_uv_set(uv[..v].to_vec())?;
        }
        Ok(out)
    }
}

/// The book's sample rule for the target record (book L9178–9196): with `depth` the distance
/// along the view direction from the eye to the mesh's bound centre, record 0 at
/// `depth ≤ near`, the last record at `depth ≥ far`, and in between
/// `⌊(count − 1) · ((depth − near)/(far − near))^0.5⌋`. A NaN depth, `count = 0` or
/// `far ≤ near` give record 0.
pub fn target_record_for_depth(depth: f32, near: f32, far: f32, count: usize) -> usize {
    if count == 0 || depth.is_nan() || near.is_nan() || far.is_nan() || far <= near {
        return 0;
    }
    let max = count - 1;
    if depth <= near {
        0
    } else if depth >= far {
        max
    } else {
        // The book's `Pow(ratio, 0.5)`, as a correctly rounded square root.
        let ratio = ((depth - near) / (far - near)).sqrt();
        ((max as f32 * ratio) as usize).min(max)
    }
}
