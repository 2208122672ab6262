//! Hierarchical collision between triangle meshes (book chapter 6, "Collision groups" and
//! "Hierarchical collision", `book-advanced.md` §4; the first-hit / all-hits recursion of Van
//! Verth & Bishop, seed 000 L185–220, requirement R29).
//!
//! * [`BvTree`]: a bounding-volume tree over a mesh's triangles, in the mesh's local space,
//!   built once. Each node bounds the vertices of its triangles with a sphere (mean centre,
//!   largest distance — Eberly's `ContSphereAverage`) or an [`OrientedBox`] (covariance
//!   eigenvectors, [`OrientedBox::from_points`]), per [`BvKind`]. A node with more than
//!   [`BvTreeOptions::max_triangles_per_leaf`] triangles splits them at the **median** of their
//!   centroids' projections on the centroids' principal axis (the axis of greatest spread;
//!   ties by triangle index), so the depth is `⌈log₂ n⌉` at most. Volumes are padded by a
//!   relative [`VOLUME_PAD`] so rounding never prunes a touching pair.
//! * [`Collider`]: a mesh, its tree and its world transform (the book's `CollisionRecord`).
//!   [`Collider::from_scene`] takes both from a geometry leaf of a [`Scene`].
//! * [`collide`] / [`collide_find`]: the recursive descent — volumes are taken to world space
//!   on the fly (a sphere's radius scaled by [`Transform::norm`], a box's axes as vectors,
//!   tested as parallelepipeds with [`boxes_overlap`], so non-uniform scale needs no refit);
//!   where both volumes overlap, descend tree A's children first, then tree B's; at two
//!   leaves test every triangle pair with [`test_triangles`] (the find adds
//!   [`find_triangles`]). Hits are sorted by `(triangle of A, triangle of B)`.
//! * **Modes** ([`CollideMode`]): `AllHits` reports every intersecting pair — exactly the pairs
//!   a brute-force loop over all triangle pairs finds with [`test_triangles`];
//!   `FirstHit` stops at the first pair the descent meets.
//! * **Symmetry**: `collide(a, b)` reports the pairs of `collide(b, a)` mirrored. For all
//!   hits this follows from the symmetric triangle test and conservative volumes; for the
//!   first hit the descent runs in a canonical order of the two colliders (by their content),
//!   so both calls walk the same way.
//! * [`CollisionGroup`]: colliders tested in all pairs `i < j`; each hit goes to the
//!   callback **twice**, once from each side ([`Contact::this`] / [`Contact::other`]), like
//!   the book's two record callbacks — mechanism, not policy.
//!
//! Nothing panics on user data: meshes are finite by construction, non-triangle meshes are
//! refused with a typed error, and non-finite world data makes volume tests conservative and
//! triangle tests report no hit.

use std::cmp::Ordering;
use std::sync::Arc;

use glam::Vec3;

use crate::graph::{NodeId, Scene};
use crate::values::error::SceneError;
use crate::values::intersect::{find_triangles, test_triangles, Sphere, TriangleContact};
use crate::values::mesh::{Mesh, MeshTopology};
use crate::values::oriented_box::{boxes_overlap, symmetric_eigen, OrientedBox};
use crate::values::transform::Transform;

/// Relative padding of bounding volumes (times the size of the coordinates involved), so
/// that rounding in fitting and transforming never makes a volume miss a triangle it holds.
pub const VOLUME_PAD: f32 = 1.0e-5;

/// Which volume a [`BvTree`] uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum BvKind {
    /// Spheres (`SphereBVTree`).
    #[default]
    Sphere,
    /// Oriented boxes (`BoxBVTree`).
    Box,
}

/// How a [`BvTree`] is built.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BvTreeOptions {
    /// Volume kind.
    pub kind: BvKind,
    /// A node with more triangles than this is split (≥ 1; the book's default is 1).
    pub max_triangles_per_leaf: usize,
}

impl Default for BvTreeOptions {
    fn default() -> Self {
        BvTreeOptions {
            kind: BvKind::Sphere,
            max_triangles_per_leaf: 1,
        }
    }
}

/// One node's volume, in the mesh's local space.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum BoundingVolume {
    /// A sphere.
    Sphere(Sphere),
    /// An oriented box.
    Box(OrientedBox),
}

/// One node of a [`BvTree`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BvNode {
    /// The volume of its triangles' vertices.
    pub volume: BoundingVolume,
    /// Its triangles: `BvTree::triangles()[first..first + count]`.
    pub first: u32,
    /// Number of triangles under it.
    pub count: u32,
    /// Indices of the two children, or `None` for a leaf.
    pub children: Option<[u32; 2]>,
}

/// A bounding-volume tree over a triangle mesh (see the [module docs](self)). Node 0 is the
/// root; a mesh without triangles has no nodes.
#[derive(Debug, Clone, PartialEq)]
pub struct BvTree {
    options: BvTreeOptions,
    nodes: Vec<BvNode>,
    triangles: Vec<u32>,
}

fn pad_for(v: Vec3, size: f32) -> f32 {
    VOLUME_PAD * (v.abs().max_element() + size)
}

fn fit(kind: BvKind, points: &[Vec3]) -> Result<BoundingVolume, SceneError> {
    Ok(match kind {
        BvKind::Sphere => {
            let n = points.len().max(1) as f32;
            let center = points.iter().fold(Vec3::ZERO, |a, &p| a + p) / n;
            let r2 = points
                .iter()
                .fold(0.0f32, |a, &p| a.max((p - center).length_squared()));
            let r = r2.sqrt();
            BoundingVolume::Sphere(Sphere::new(center, r + pad_for(center, r))?)
        }
        BvKind::Box => {
            let b = OrientedBox::from_points(points)?;
            let pad = pad_for(b.center(), b.extents().max_element());
            BoundingVolume::Box(b.padded(pad))
        }
    })
}

impl BvTree {
    /// Builds the tree of `mesh`'s triangles.
    ///
    /// # Errors
    /// [`SceneError::InvalidArgument`] when the mesh is not a triangle mesh or
    /// `max_triangles_per_leaf` is 0.
    pub fn new(mesh: &Mesh, options: BvTreeOptions) -> Result<Self, SceneError> {
        if mesh.topology() != MeshTopology::Triangles {
            return Err(SceneError::InvalidArgument {
                what: "collision mesh",
                message: format!("{:?} mesh; collision needs triangles", mesh.topology()),
            });
        }
        if options.max_triangles_per_leaf == 0 {
            return Err(SceneError::InvalidArgument {
                what: "max_triangles_per_leaf",
                message: "must be at least 1".to_owned(),
            });
        }
        let n = mesh.triangle_count();
        let mut tree = BvTree {
            options,
            nodes: Vec::new(),
            triangles: (0..n as u32).collect(),
        };
        if n > 0 {
            tree.build(mesh, 0, n)?;
        }
        Ok(tree)
    }

    fn corners(mesh: &Mesh, t: u32) -> [Vec3; 3] {
        let idx = mesh.indices();
        let p = mesh.positions();
        let k = t as usize * 3;
        [
            p[idx[k] as usize],
            p[idx[k + 1] as usize],
            p[idx[k + 2] as usize],
        ]
    }

    /// Builds the node over `triangles[first..first + count]` and returns its index.
    fn build(&mut self, mesh: &Mesh, first: usize, count: usize) -> Result<u32, SceneError> {
        let tris = &self.triangles[first..first + count];
        let points: Vec<Vec3> = tris.iter().flat_map(|&t| Self::corners(mesh, t)).collect();
        let volume = fit(self.options.kind, &points)?;
        let index = self.nodes.len() as u32;
        self.nodes.push(BvNode {
            volume,
            first: first as u32,
            count: count as u32,
            children: None,
        });
        if count <= self.options.max_triangles_per_leaf {
            return Ok(index);
        }
        // Principal axis of the centroids, then the median of their projections.
        let centroids: Vec<Vec3> = tris
            .iter()
            .map(|&t| {
                let c = Self::corners(mesh, t);
                (c[0] + c[1] + c[2]) / 3.0
            })
            .collect();
        let mean = centroids.iter().fold(Vec3::ZERO, |a, &p| a + p) / count as f32;
        let mut cov = [[0.0f32; 3]; 3];
        for &c in &centroids {
            let d = (c - mean).to_array();
            for (i, row) in cov.iter_mut().enumerate() {
                for (j, v) in row.iter_mut().enumerate() {
                    *v += d[i] * d[j];
                }
            }
        }
        let axis = symmetric_eigen(cov).1[0];
        let mut keyed: Vec<(f32, u32)> = tris
            .iter()
            .zip(&centroids)
            .map(|(&t, &c)| ((c - mean).dot(axis), t))
            .collect();
        keyed.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        for (slot, (_, t)) in self.triangles[first..first + count].iter_mut().zip(&keyed) {
            *slot = *t;
        }
        let half = count / 2;
        let left = self.build(mesh, first, half)?;
        let right = self.build(mesh, first + half, count - half)?;
        self.nodes[index as usize].children = Some([left, right]);
        Ok(index)
    }

    /// The options it was built with.
    pub fn options(&self) -> BvTreeOptions {
        self.options
    }

    /// The nodes, root first (empty for a mesh without triangles).
    pub fn nodes(&self) -> &[BvNode] {
        &self.nodes
    }

    /// Triangle indices in tree order; a node owns a contiguous range of them.
    pub fn triangles(&self) -> &[u32] {
        &self.triangles
    }

    /// Number of levels (0 for an empty tree, 1 for a single leaf).
    pub fn depth(&self) -> usize {
        let mut best = 0;
        let mut stack = Vec::new();
        if !self.nodes.is_empty() {
            stack.push((0u32, 1usize));
        }
        while let Some((i, d)) = stack.pop() {
            best = best.max(d);
            if let Some([l, r]) = self.nodes[i as usize].children {
                stack.push((l, d + 1));
                stack.push((r, d + 1));
            }
        }
        best
    }
}

/// A mesh with its tree and world transform: one participant in a collision (the book's
/// `CollisionRecord`).
#[derive(Debug, Clone)]
pub struct Collider {
    mesh: Arc<Mesh>,
    tree: BvTree,
    world_from_local: Transform,
}

impl Collider {
    /// A collider for `mesh` at the identity transform.
    ///
    /// # Errors
    /// As [`BvTree::new`].
    pub fn new(mesh: Arc<Mesh>, options: BvTreeOptions) -> Result<Self, SceneError> {
        let tree = BvTree::new(&mesh, options)?;
        Ok(Collider {
            mesh,
            tree,
            world_from_local: Transform::IDENTITY,
        })
    }

    /// A collider for the geometry leaf `node` of `scene`, placed at its world transform (as
    /// of the last [`Scene::update`]).
    ///
    /// # Errors
    /// [`SceneError::StaleId`], [`SceneError::NotAGeometry`], and as [`BvTree::new`].
    pub fn from_scene(
        scene: &Scene,
        node: NodeId,
        options: BvTreeOptions,
    ) -> Result<Self, SceneError> {
        let mesh = scene.mesh(node)?.clone();
        let mut c = Collider::new(mesh, options)?;
        c.world_from_local = *scene.world_transform(node)?;
        Ok(c)
    }

    /// The same collider at `world_from_local` (builder form of
    /// [`Collider::set_world_from_local`]).
    pub fn with_world_from_local(mut self, world_from_local: Transform) -> Self {
        self.world_from_local = world_from_local;
        self
    }

    /// Moves the collider (the tree stays: it is in local space).
    pub fn set_world_from_local(&mut self, world_from_local: Transform) {
        self.world_from_local = world_from_local;
    }

    /// The world transform.
    pub fn world_from_local(&self) -> &Transform {
        &self.world_from_local
    }

    /// The mesh.
    pub fn mesh(&self) -> &Arc<Mesh> {
        &self.mesh
    }

    /// The tree.
    pub fn tree(&self) -> &BvTree {
        &self.tree
    }

    /// Triangle `t` in world space.
    pub fn world_triangle(&self, t: u32) -> Option<[Vec3; 3]> {
        self.mesh
            .triangle(t as usize)
            .map(|c| c.map(|p| self.world_from_local.apply_point(p)))
    }

    fn world_positions(&self) -> Vec<Vec3> {
        self.mesh
            .positions()
            .iter()
            .map(|&p| self.world_from_local.apply_point(p))
            .collect()
    }

    /// A total order on colliders by content (triangle count, world transform, positions,
    /// indices), used to walk first-hit descents the same way whichever argument comes first.
    fn content_cmp(&self, other: &Collider) -> Ordering {
        let bits = |v: Vec3| v.to_array().map(f32::to_bits);
        let t = |c: &Collider| {
            let w = c.world_from_local;
            let m = w.matrix();
            [m.x_axis, m.y_axis, m.z_axis, w.translation()].map(bits)
        };
        self.mesh
            .triangle_count()
            .cmp(&other.mesh.triangle_count())
            .then_with(|| t(self).cmp(&t(other)))
            .then_with(|| {
                let (a, b) = (self.mesh.positions(), other.mesh.positions());
                a.iter().map(|&p| bits(p)).cmp(b.iter().map(|&p| bits(p)))
            })
            .then_with(|| self.mesh.indices().cmp(other.mesh.indices()))
    }
}

/// Stop at the first hit, or report them all.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CollideMode {
    /// Stop at the first intersecting triangle pair (per pair of colliders).
    FirstHit,
    /// Every intersecting triangle pair.
    #[default]
    AllHits,
}

/// An intersecting pair: a triangle of the first collider and one of the second.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TrianglePair {
    /// Triangle index in the first collider's mesh.
    pub a: u32,
    /// Triangle index in the second collider's mesh.
    pub b: u32,
}

impl TrianglePair {
    /// The pair seen from the other side.
    pub fn mirrored(self) -> TrianglePair {
        TrianglePair {
            a: self.b,
            b: self.a,
        }
    }
}

/// Work done by one collision query.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CollideStats {
    /// Pairs of volumes tested.
    pub volume_tests: usize,
    /// Pairs of triangles tested.
    pub triangle_tests: usize,
}

/// A volume taken to world space.
enum WorldVolume {
    Sphere(Vec3, f32),
    Box(Vec3, [Vec3; 3], Vec3),
}

fn world_volume(v: &BoundingVolume, t: &Transform) -> WorldVolume {
    match v {
        BoundingVolume::Sphere(s) => {
            WorldVolume::Sphere(t.apply_point(s.center()), s.radius() * t.norm())
        }
        BoundingVolume::Box(b) => {
            let (c, axes) = b.transformed_axes(t);
            WorldVolume::Box(c, axes, b.extents())
        }
    }
}

/// Conservative overlap of two world volumes (non-finite data overlaps).
fn volumes_overlap(a: &WorldVolume, b: &WorldVolume) -> bool {
    let sphere_of = |v: &WorldVolume| match *v {
        WorldVolume::Sphere(c, r) => (c, r),
        WorldVolume::Box(c, d, e) => (
            c,
            e.x * d[0].length() + e.y * d[1].length() + e.z * d[2].length(),
        ),
    };
    match (a, b) {
        (&WorldVolume::Box(ca, da, ea), &WorldVolume::Box(cb, db, eb)) => {
            let size = |d: &[Vec3; 3], e: Vec3| {
                e.x * d[0].length() + e.y * d[1].length() + e.z * d[2].length()
            };
            let pad = pad_for(ca, size(&da, ea)) + pad_for(cb, size(&db, eb));
            boxes_overlap((ca, da, ea), (cb, db, eb), pad)
        }
        _ => {
            let ((ca, ra), (cb, rb)) = (sphere_of(a), sphere_of(b));
            let r = ra + rb + pad_for(ca, ra) + pad_for(cb, rb);
            // NaN is not separated.
            let d2 = (ca - cb).length_squared();
            d2.is_nan() || r.is_nan() || d2 <= r * r
        }
    }
}

/// The descent over two trees; `visit` is called for every intersecting pair in descent
/// order and returns `false` to stop.
fn descend(
    a: &Collider,
    b: &Collider,
    stats: &mut CollideStats,
    mut visit: impl FnMut(TrianglePair, &[Vec3; 3], &[Vec3; 3]) -> bool,
) {
    let (ta, tb) = (&a.tree, &b.tree);
    if ta.nodes.is_empty() || tb.nodes.is_empty() {
        return;
    }
    let wa = |i: u32| world_volume(&ta.nodes[i as usize].volume, &a.world_from_local);
    let wb = |i: u32| world_volume(&tb.nodes[i as usize].volume, &b.world_from_local);
    stats.volume_tests += 1;
    if !volumes_overlap(&wa(0), &wb(0)) {
        return;
    }
    let (pa, pb) = (a.world_positions(), b.world_positions());
    let tri = |pos: &[Vec3], mesh: &Mesh, t: u32| {
        let idx = mesh.indices();
        let k = t as usize * 3;
        [
            pos[idx[k] as usize],
            pos[idx[k + 1] as usize],
            pos[idx[k + 2] as usize],
        ]
    };
    let mut stack = vec![(0u32, 0u32)];
    while let Some((i, j)) = stack.pop() {
        let (na, nb) = (&ta.nodes[i as usize], &tb.nodes[j as usize]);
        if let Some([l, r]) = na.children {
            for c in [r, l] {
                stats.volume_tests += 1;
                if volumes_overlap(&wa(c), &wb(j)) {
                    stack.push((c, j));
                }
            }
        } else if let Some([l, r]) = nb.children {
            for c in [r, l] {
                stats.volume_tests += 1;
                if volumes_overlap(&wa(i), &wb(c)) {
                    stack.push((i, c));
                }
            }
        } else {
            let ra = &ta.triangles[na.first as usize..(na.first + na.count) as usize];
            let rb = &tb.triangles[nb.first as usize..(nb.first + nb.count) as usize];
            for &x in ra {
                let tx = tri(&pa, &a.mesh, x);
                for &y in rb {
                    let ty = tri(&pb, &b.mesh, y);
                    stats.triangle_tests += 1;
                    if test_triangles(&tx, &ty) && !visit(TrianglePair { a: x, b: y }, &tx, &ty) {
                        return;
                    }
                }
            }
        }
    }
}

/// Runs the descent in the canonical order for first-hit, mirrors back.
fn run(
    a: &Collider,
    b: &Collider,
    mode: CollideMode,
    stats: &mut CollideStats,
    mut on_hit: impl FnMut(TrianglePair, &[Vec3; 3], &[Vec3; 3]),
) {
    match mode {
        CollideMode::AllHits => descend(a, b, stats, |p, x, y| {
            on_hit(p, x, y);
            true
        }),
        CollideMode::FirstHit => {
            let swap = a.content_cmp(b) == Ordering::Greater;
            let (first, second) = if swap { (b, a) } else { (a, b) };
            descend(first, second, stats, |p, x, y| {
                if swap {
                    on_hit(p.mirrored(), y, x);
                } else {
                    on_hit(p, x, y);
                }
                false
            });
        }
    }
}

/// The intersecting triangle pairs of two colliders, sorted (see the [module docs](self)):
/// all of them, or at most one for [`CollideMode::FirstHit`].
pub fn collide(a: &Collider, b: &Collider, mode: CollideMode) -> Vec<TrianglePair> {
    collide_with_stats(a, b, mode).0
}

/// [`collide`], also counting the volume and triangle tests done.
pub fn collide_with_stats(
    a: &Collider,
    b: &Collider,
    mode: CollideMode,
) -> (Vec<TrianglePair>, CollideStats) {
    let mut stats = CollideStats::default();
    let mut out = Vec::new();
    run(a, b, mode, &mut stats, |p, _, _| out.push(p));
    out.sort_unstable();
    (out, stats)
}

/// [`collide`] with the intersection set of each pair ([`find_triangles`]; `None` in the rare
/// case rounding leaves the set of a touching pair empty).
pub fn collide_find(
    a: &Collider,
    b: &Collider,
    mode: CollideMode,
) -> Vec<(TrianglePair, Option<TriangleContact>)> {
    let mut stats = CollideStats::default();
    let mut out = Vec::new();
    run(a, b, mode, &mut stats, |p, x, y| {
        out.push((p, find_triangles(x, y)))
    });
    out.sort_unstable_by_key(|h| h.0);
    out
}

/// One side of a hit, as a [`CollisionGroup`] callback sees it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Contact {
    /// Index of the collider this report is for.
    pub this: usize,
    /// Index of the collider it hit.
    pub other: usize,
    /// Triangle of `this`.
    pub this_triangle: u32,
    /// Triangle of `other`.
    pub other_triangle: u32,
    /// The intersection set ([`CollisionGroup::find`] only).
    pub contact: Option<TriangleContact>,
}

/// Colliders tested in all pairs (the book's `CollisionGroup`).
#[derive(Debug, Clone, Default)]
pub struct CollisionGroup {
    colliders: Vec<Collider>,
}

impl CollisionGroup {
    /// An empty group.
    pub fn new() -> Self {
        CollisionGroup::default()
    }

    /// Adds a collider and returns its index.
    pub fn add(&mut self, collider: Collider) -> usize {
        self.colliders.push(collider);
        self.colliders.len() - 1
    }

    /// The colliders, by index.
    pub fn colliders(&self) -> &[Collider] {
        &self.colliders
    }

    /// Collider `i`, to move it.
    pub fn collider_mut(&mut self, i: usize) -> Option<&mut Collider> {
        self.colliders.get_mut(i)
    }

    /// Tests every pair `i < j` (in that order) and calls `callback` for each hit twice —
    /// first from `i`'s side, then from `j`'s — in sorted pair order. Returns the work done.
    pub fn test(&self, mode: CollideMode, mut callback: impl FnMut(&Contact)) -> CollideStats {
        self.each(mode, false, &mut callback)
    }

    /// [`CollisionGroup::test`] with the intersection sets ([`Contact::contact`]).
    pub fn find(&self, mode: CollideMode, mut callback: impl FnMut(&Contact)) -> CollideStats {
        self.each(mode, true, &mut callback)
    }

    fn each(
        &self,
        mode: CollideMode,
        find: bool,
        callback: &mut dyn FnMut(&Contact),
    ) -> CollideStats {
        let mut stats = CollideStats::default();
        for i in 0..self.colliders.len() {
            for j in i + 1..self.colliders.len() {
                let (a, b) = (&self.colliders[i], &self.colliders[j]);
                let mut hits = Vec::new();
                run(a, b, mode, &mut stats, |p, x, y| {
                    hits.push((p, if find { find_triangles(x, y) } else { None }))
                });
                hits.sort_unstable_by_key(|h| h.0);
                for (p, contact) in hits {
                    callback(&Contact {
                        this: i,
                        other: j,
                        this_triangle: p.a,
                        other_triangle: p.b,
                        contact,
                    });
                    callback(&Contact {
                        this: j,
                        other: i,
                        this_triangle: p.b,
                        other_triangle: p.a,
                        contact,
                    });
                }
            }
        }
        stats
    }
}
