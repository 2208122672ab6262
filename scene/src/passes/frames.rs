//! Reference frames and layered depth (seed 003, `small-seeds.md` §S3, R11, R12, R25 O, R34).
//!
//! # The relation matrix
//!
//! [`Scene::relative_transform`]`(a, b)` is the matrix that maps points in `a`'s local frame
//! to points in `b`'s local frame: `rel(a, b) = W_b⁻¹ · W_a` with `W` the node's
//! world-from-local matrix. It is composed in `f64` **through the lowest common ancestor**
//! `c` of the two nodes, never through the root:
//!
//! ```text
//! rel(a, b) = (L_b⁻¹ · … · L_{b₁}⁻¹) · (L_{a₁} · … · L_a)
//!              b_from_c                 c_from_a
//! ```
//!
//! where `a₁ … a` and `b₁ … b` are the nodes strictly below `c` on the paths to `a` and `b`
//! and `L` their local transforms (each inverted on its own, in `f64`). The seed's
//! `FindRelationMatrix` (S3 L77–79) returns `rootToDest · sourceToRoot = W_dest · W_src⁻¹` with
//! column-vector local transforms — not a change of frame (the digest's caution) — and it
//! composes through the root, which brings back the magnitudes it is meant to avoid. Laws:
//! `rel(a, a) = I`, `rel(a, b) · rel(b, a) = I`, `rel(a, b) = W_b⁻¹ · W_a`.
//!
//! # Drawing relative to a reference node
//!
//! With [`Scene::set_reference_node`]`(Some(r))` the camera handed to
//! [`Scene::draw`](crate::Scene::draw) is **in `r`'s local frame**, and every leaf is drawn
//! with `r_from_leaf = rel(leaf, r)` composed in `f64` (top-down from the reference node's
//! ancestors, so each product runs through the lowest common ancestor) and converted to `f32`
//! last; lights are carried into `r`'s frame the same way (point positions, directions;
//! attenuation and range rescaled with the frame). A tiny object under a chain of scales that
//! multiplies to 10⁹ thus keeps its `f32` precision relative to `r`, where world-space `f32`
//! collapses its vertices (S3 L68–79, L93). [`Scene::camera_in_frame`] re-expresses a camera
//! from one frame to another (position, axes, and the frustum scaled with the frame), so
//! switching the reference node with the re-expressed camera draws the same image (up to
//! rounding).
//!
//! # Layered depth
//!
//! With [`Scene::set_depth_layers`]`(Some(step))` (`0 < step < 1`) the frame is drawn in
//! depth **layers** (S3 L82–86): walking the tree, a node whose scale relative to the frame of
//! its current layer has dropped below `step` **and whose world bound contains the eye**
//! starts a new layer — the seed starts one "every time we enter a child that also contains
//! the camera" — unless its parent is flagged to share depth with its children
//! ([`Scene::set_share_depth`]). A small node the eye is outside of stays in its parent's
//! layer (so a wall in front of it still hides it, and a small far moon is not pushed past
//! the far plane by its layer's scale). The test reads the node's stored world bound, which
//! is `f32` in world space: where world coordinates are too large for `f32` to resolve the
//! node (the case reference nodes are for), a layer may fail to start there. A layer started
//! at a node of accumulated scale `s` is drawn **scaled about the eye by `1/s`**: a uniform
//! scale about the centre of projection changes no pixel position, only depths, so the
//! camera's near and far distances apply in the layer's own units (a layer of scale 10⁻⁶ sees
//! from `10⁻⁶·near` to `10⁻⁶·far`). This is the seed's "reset the rendering reference frame
//! and adjust the camera", without handing the renderer a second camera. Layers are drawn
//! **breadth first** (by the depth of their start node, then tree order): the base layer, then
//! each layer after a full depth clear
//! ([`Renderer::clear_region`](crate::Renderer::clear_region) with
//! [`ClearRegion::DEPTH`](crate::ClearRegion::DEPTH)). As in the seed, a smaller layer is drawn
//! over everything larger: the layers nest along the camera's path, each inside the one
//! before; siblings whose boxes overlap should share depth with their parent.
//!
//! # What this path draws
//!
//! Reference-frame and layered drawing walk the tree themselves (active switch children,
//! [`Culling`] honoured, each leaf's mesh bound tested against the frustum in
//! the drawn frame) and draw leaves in tree order, transparent ones back to front within each
//! layer. Billboards, particles and LOD switches are updated with the camera carried into
//! world space. Not supported there, and refused with [`SceneError::InvalidArgument`]: layer
//! nodes with clear regions ([`layer`](crate::graph::layer)) and planar shadow / reflection effects.
//! BSP nodes and portals are drawn as plain groups (no BSP order, no portal culling).
//! Billboards turn to the eye in the drawn frame (in `f64`, by the same rule as in world
//! space) — except a billboard on the path from the root to the reference node itself, whose
//! frame is taken unturned — and world-space user clip planes are carried into the frame with
//! the leaves. With
//! neither a reference node nor depth layers set, [`Scene::draw`](crate::Scene::draw) is
//! unchanged.

use glam::{DMat3, DMat4, DVec3, Mat4};

use crate::graph::node::{Culling, Geometry, NodeData, Visit};
use crate::graph::{NodeId, Scene};
use crate::values::bound::Bound;
use crate::values::camera::{Camera, Projection};
use crate::values::error::SceneError;
use crate::values::light::SceneLight;
use crate::values::plane::Plane;
use crate::values::state::ClipPlaneState;
use crate::values::transform::Transform;

/// A local transform as an `f64` matrix.
fn dmat(t: &Transform) -> DMat4 {
    t.to_mat4().as_dmat4()
}

/// The inverse of a local transform, in `f64`.
fn dinv(t: &Transform) -> Result<DMat4, SceneError> {
    let m = dmat(t);
    let det = m.determinant();
    if det == 0.0 || !det.is_finite() {
        return Err(SceneError::SingularTransform);
    }
    Ok(m.inverse())
}

/// The largest column length of the linear part (the scale of a similarity).
pub fn linear_norm(m: &DMat4) -> f64 {
    m.x_axis
        .truncate()
        .length()
        .max(m.y_axis.truncate().length())
        .max(m.z_axis.truncate().length())
}

/// `Some(σ)` when the linear part is `σ·R` with `R` a rotation (relative tolerance 1e-6).
fn similarity_scale(m: &DMat4) -> Option<f64> {
    let l = DMat3::from_mat4(*m);
    let (a, b, c) = (l.x_axis, l.y_axis, l.z_axis);
    let s = (a.length() + b.length() + c.length()) / 3.0;
    let tol = 1e-6 * s;
    let ok = s > 0.0
        && s.is_finite()
        && (a.length() - s).abs() <= tol
        && (b.length() - s).abs() <= tol
        && (c.length() - s).abs() <= tol
        && a.dot(b).abs() <= tol * s
        && a.dot(c).abs() <= tol * s
        && b.dot(c).abs() <= tol * s
        && l.determinant() > 0.0;
    ok.then_some(s)
}

/// One leaf of a relative frame: its matrix in the drawn frame (scaled about the eye for its
/// layer) and whether it mirrors.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RelItem {
    pub(crate) id: NodeId,
    pub(crate) matrix: Mat4,
    pub(crate) mirror: bool,
}

/// One depth layer: its scale about the eye and its leaves.
#[derive(Debug, Clone, Default)]
pub(crate) struct RelLayer {
    /// `1/s` of the layer's start node (1 for the base layer).
    pub(crate) k: f64,
    pub(crate) opaque: Vec<RelItem>,
    pub(crate) transparent: Vec<RelItem>,
}

/// What a relative frame draws: its layers in order and how to carry lights into it.
#[derive(Debug, Clone)]
pub(crate) struct RelPlan {
    pub(crate) layers: Vec<RelLayer>,
    /// The drawn frame from world space.
    pub(crate) frame_from_world: DMat4,
    /// The eye in the drawn frame.
    pub(crate) eye: DVec3,
    /// Nodes visited and leaves culled.
    pub(crate) visited: usize,
    pub(crate) culled: usize,
}

impl Scene {
    /// The world-from-local matrix of `id` composed in `f64` from the local transforms
    /// (root first). A skinned leaf whose world is the identity gets the identity.
    ///
    /// # Errors
    /// [`SceneError::StaleId`].
    pub fn world_from_local_f64(&self, id: NodeId) -> Result<DMat4, SceneError> {
        let mut m = DMat4::IDENTITY;
        let mut at = Some(id);
        while let Some(n) = at {
            let node = self.node(n)?;
            if node.data.world_identity() {
                return Ok(m);
            }
            m = dmat(&node.local) * m;
            at = node.parent;
        }
        Ok(m)
    }

    /// The nodes from `id` up to its root, `id` first.
    fn chain(&self, id: NodeId) -> Result<Vec<NodeId>, SceneError> {
        let mut out = Vec::new();
        let mut at = Some(id);
        while let Some(n) = at {
            out.push(n);
            at = self.node(n)?.parent;
        }
        Ok(out)
    }

    /// `rel(a, b)`: maps `a`'s local frame to `b`'s, `W_b⁻¹ · W_a`, composed in `f64`
    /// through the lowest common ancestor (see the [module docs](self)). Nodes of different
    /// trees (a detached subtree) relate through their roots' common world frame.
    ///
    /// # Errors
    /// [`SceneError::StaleId`]; [`SceneError::SingularTransform`] when a local transform on
    /// `b`'s side of the path cannot be inverted.
    pub fn relative_transform(&self, a: NodeId, b: NodeId) -> Result<DMat4, SceneError> {
        let ca = self.chain(a)?;
        let cb = self.chain(b)?;
        // Common suffix (root end) of the two chains.
        let mut common = 0;
        while common < ca.len()
            && common < cb.len()
            && ca[ca.len() - 1 - common] == cb[cb.len() - 1 - common]
        {
            common += 1;
        }
        let mut c_from_a = DMat4::IDENTITY;
        for &n in &ca[..ca.len() - common] {
            c_from_a = dmat(&self.node(n)?.local) * c_from_a;
        }
        let mut b_from_c = DMat4::IDENTITY;
        for &n in &cb[..cb.len() - common] {
            b_from_c *= dinv(&self.node(n)?.local)?;
        }
        Ok(b_from_c * c_from_a)
    }

    /// The matrix from `from`'s frame to `to`'s (`None`: world space), as
    /// [`Scene::relative_transform`].
    ///
    /// # Errors
    /// As [`Scene::relative_transform`].
    pub fn frame_transform(
        &self,
        from: Option<NodeId>,
        to: Option<NodeId>,
    ) -> Result<DMat4, SceneError> {
        match (from, to) {
            (Some(a), Some(b)) => self.relative_transform(a, b),
            (Some(a), None) => self.world_from_local_f64(a),
            (None, Some(b)) => {
                let mut m = DMat4::IDENTITY;
                for n in self.chain(b)? {
                    m *= dinv(&self.node(n)?.local)?;
                }
                Ok(m)
            }
            (None, None) => Ok(DMat4::IDENTITY),
        }
    }

    /// `camera` (given in `from`'s frame; `None`: world) re-expressed in `to`'s frame: its
    /// eye and axes mapped by [`Scene::frame_transform`], its frustum (and user planes) scaled
    /// with the frame, so it sees the same image.
    ///
    /// # Errors
    /// As [`Scene::relative_transform`]; [`SceneError::InvalidArgument`] when the frames do
    /// not differ by a similarity (rotation, uniform scale, translation — a camera cannot be
    /// sheared or mirrored); a camera error when the result is not finite.
    pub fn camera_in_frame(
        &self,
        camera: &Camera,
        from: Option<NodeId>,
        to: Option<NodeId>,
    ) -> Result<Camera, SceneError> {
        let m = self.frame_transform(from, to)?;
        map_camera(camera, &m)
    }

    /// Sets (or clears) the reference node frames are drawn relative to; the camera handed
    /// to [`Scene::draw`](crate::Scene::draw) is then in its frame (see the
    /// [module docs](self)).
    ///
    /// # Errors
    /// [`SceneError::StaleId`].
    pub fn set_reference_node(&mut self, node: Option<NodeId>) -> Result<(), SceneError> {
        if let Some(n) = node {
            self.node(n)?;
        }
        self.reference = node;
        Ok(())
    }

    /// The reference node, if any.
    pub fn reference_node(&self) -> Option<NodeId> {
        self.reference
    }

    /// Turns layered depth on with a scale step in `(0, 1)`, or off with `None` (see the
    /// [module docs](self)).
    ///
    /// # Errors
    /// [`SceneError::InvalidArgument`] for a step that is not in `(0, 1)` (NaN included).
    pub fn set_depth_layers(&mut self, step: Option<f64>) -> Result<(), SceneError> {
        if let Some(s) = step {
            if !(s > 0.0 && s < 1.0) {
                return Err(SceneError::InvalidArgument {
                    what: "depth layer step",
                    message: format!("{s} is not in (0, 1)"),
                });
            }
        }
        self.depth_layers = step;
        Ok(())
    }

    /// The layered-depth scale step, if on.
    pub fn depth_layers(&self) -> Option<f64> {
        self.depth_layers
    }

    /// Whether `node` shares its depth layer with its children (no layer starts at them).
    ///
    /// # Errors
    /// [`SceneError::StaleId`].
    pub fn set_share_depth(&mut self, node: NodeId, share: bool) -> Result<(), SceneError> {
        self.node(node)?;
        if share {
            self.shared_depth.insert(node);
        } else {
            self.shared_depth.remove(&node);
        }
        Ok(())
    }

    /// Whether `node` shares depth with its children.
    pub fn shares_depth(&self, node: NodeId) -> bool {
        self.shared_depth.contains(&node)
    }

    /// Whether [`Scene::draw`](crate::Scene::draw) takes the relative path.
    pub(crate) fn draws_relative(&self) -> bool {
        self.reference.is_some() || self.depth_layers.is_some()
    }

    /// Walks the drawn tree and lays out a relative frame for `camera` (in the reference
    /// node's frame; see the [module docs](self)).
    pub(crate) fn relative_plan(&self, camera: &Camera) -> Result<RelPlan, SceneError> {
        if self.has_layers() {
            return Err(SceneError::InvalidArgument {
                what: "reference-frame drawing",
                message: "layer nodes with clear regions are not supported with a reference \
                          node or depth layers"
                    .into(),
            });
        }
        if self.has_scene_effects {
            return Err(SceneError::InvalidArgument {
                what: "reference-frame drawing",
                message: "planar shadow / reflection effects are not supported with a \
                          reference node or depth layers"
                    .into(),
            });
        }
        let reference = self.reference;
        // The reference node's ancestors with their frame_from_node matrices, composed from
        // the reference side (each a product of inverses up to that ancestor).
        let mut on_path: Vec<(NodeId, DMat4)> = Vec::new();
        let mut frame_from_world = DMat4::IDENTITY;
        if let Some(r) = reference {
            let mut m = DMat4::IDENTITY;
            for n in self.chain(r)? {
                on_path.push((n, m));
                m *= dinv(&self.node(n)?.local)?;
            }
            frame_from_world = m;
        }
        let eye = camera.location().as_dvec3();
        let planes = camera.frustum_planes();
        let step = self.depth_layers;
        // The eye in world space, where the nodes' bounds are kept.
        let world_eye = frame_from_world.inverse().transform_point3(eye);

        struct Layer {
            depth: usize,
            order: usize,
            k: f64,
            items: Vec<(NodeId, DMat4)>,
        }
        let mut layers = vec![Layer {
            depth: 0,
            order: 0,
            k: 1.0,
            items: Vec::new(),
        }];
        // (node, frame_from_node, layer index, layer start scale, culling tested, depth)
        let mut stack: Vec<(NodeId, DMat4, usize, f64, bool, usize)> = Vec::new();
        let root = self.root();
        let root_m = match on_path.iter().find(|(n, _)| *n == root) {
            Some((_, m)) => *m,
            None => frame_from_world * dmat(&self.node(root)?.local),
        };
        stack.push((root, root_m, 0, 1.0, true, 0));
        let (mut visited, mut culled) = (0usize, 0usize);
        let mut order = 0usize;
        while let Some((id, m, mut layer, mut start, test, depth)) = stack.pop() {
            let node = self.node(id)?;
            visited += 1;
            if node.cull == Culling::Always {
                continue;
            }
            let test = test && node.cull != Culling::Never;
            if let (Some(step), Some(parent)) = (step, node.parent) {
                let s = linear_norm(&m);
                if s < start * step
                    && !self.shared_depth.contains(&parent)
                    && bound_holds(&node.world_bound, world_eye)
                {
                    order += 1;
                    layers.push(Layer {
                        depth,
                        order,
                        k: 1.0 / s,
                        items: Vec::new(),
                    });
                    layer = layers.len() - 1;
                    start = s;
                }
            }
            match node.data.visit() {
                Visit::Leaf(Geometry {
                    mesh,
                    world_identity,
                    ..
                }) => {
                    let m = if *world_identity { frame_from_world } else { m };
                    let k = layers[layer].k;
                    let scaled = DMat4::from_translation(eye)
                        * DMat4::from_scale(DVec3::splat(k))
                        * DMat4::from_translation(-eye)
                        * m;
                    if test {
                        let b = mesh.local_bound(crate::values::bound::BoundKind::Sphere);
                        if !b.is_empty() {
                            let c = scaled.transform_point3(b.center().as_dvec3()).as_vec3();
                            let r = (linear_norm(&scaled) * f64::from(b.radius())) as f32;
                            if planes.iter().any(|p: &Plane| p.distance(c) < -r) {
                                culled += 1;
                                continue;
                            }
                        }
                    }
                    layers[layer].items.push((id, scaled));
                }
                Visit::Active(active) => {
                    if let Some(c) = active {
                        let cm = self.child_matrix(&on_path, &m, c, eye)?;
                        stack.push((c, cm, layer, start, test, depth + 1));
                    }
                }
                Visit::Children => {
                    for &c in node.children.iter().rev() {
                        let cm = self.child_matrix(&on_path, &m, c, eye)?;
                        stack.push((c, cm, layer, start, test, depth + 1));
                    }
                }
            }
        }
        // Breadth first: by the depth of the start node, then tree order.
        layers.sort_by_key(|l| (l.depth, l.order));
        let dir = camera.direction().as_dvec3();
        let mut out = Vec::with_capacity(layers.len());
        for l in layers {
            if l.items.is_empty() && l.order != 0 {
                continue;
            }
            let mut rl = RelLayer {
                k: l.k,
                ..RelLayer::default()
            };
            let mut transparent = Vec::new();
            for (id, m) in l.items {
                let item = RelItem {
                    id,
                    matrix: m.as_mat4(),
                    mirror: DMat3::from_mat4(m).determinant() < 0.0,
                };
                if self.resolved(id)?.states.alpha.is_transparent() {
                    let c = match self.node(id)?.data.mesh() {
                        Some(mesh) => mesh
                            .local_bound(crate::values::bound::BoundKind::Sphere)
                            .center()
                            .as_dvec3(),
                        None => DVec3::ZERO,
                    };
                    transparent.push((item, dir.dot(m.transform_point3(c) - eye)));
                } else {
                    rl.opaque.push(item);
                }
            }
            transparent.sort_by(|a, b| b.1.total_cmp(&a.1));
            rl.transparent = transparent.into_iter().map(|t| t.0).collect();
            out.push(rl);
        }
        Ok(RelPlan {
            layers: out,
            frame_from_world,
            eye,
            visited,
            culled,
        })
    }

    /// `frame_from_child`: taken from the reference path when the child is on it, else the
    /// parent's matrix times the child's local transform, turned to face `eye` (in the frame)
    /// when the child is a billboard.
    fn child_matrix(
        &self,
        on_path: &[(NodeId, DMat4)],
        parent: &DMat4,
        child: NodeId,
        eye: DVec3,
    ) -> Result<DMat4, SceneError> {
        if let Some((_, m)) = on_path.iter().find(|(n, _)| *n == child) {
            return Ok(*m);
        }
        let node = self.node(child)?;
        let m = *parent * dmat(&node.local);
        Ok(match node.data {
            NodeData::Billboard(_) => face_eye_f64(&m, eye),
            _ => m,
        })
    }
}

/// `m ∘ RotY(atan2(p.x, p.z))` with `p` the eye in `m`'s local space: the billboard rule of
/// [`billboard`](crate::nodes::billboard) in the relative frame's `f64` (the angle through
/// [`plumb_raster::math`], as in world space). A singular `m` is left as it is.
fn face_eye_f64(m: &DMat4, eye: DVec3) -> DMat4 {
    if m.determinant() == 0.0 || !m.is_finite() {
        return *m;
    }
    let p = m.inverse().transform_point3(eye);
    let angle = plumb_raster::math::atan2(p.x as f32, p.z as f32);
    let (s, c) = plumb_raster::math::sin_cos(angle);
    let (s, c) = (f64::from(s), f64::from(c));
    // RotY(angle): x → (c, 0, −s), z → (s, 0, c).
    let rot = DMat4::from_cols(
        glam::DVec4::new(c, 0.0, -s, 0.0),
        glam::DVec4::Y,
        glam::DVec4::new(s, 0.0, c, 0.0),
        glam::DVec4::W,
    );
    *m * rot
}

/// World-space user clip planes carried into a relative frame: `frame_from_world`, then
/// scaled by `k` about `eye` (a plane maps by the inverse transpose of the point map). A plane
/// the map makes non-finite is dropped, as the renderer drops one it cannot map.
pub(crate) fn clip_planes_in_frame(
    planes: &ClipPlaneState,
    frame_from_world: &DMat4,
    eye: DVec3,
    k: f64,
) -> ClipPlaneState {
    let g = DMat4::from_translation(eye)
        * DMat4::from_scale(DVec3::splat(k))
        * DMat4::from_translation(-eye)
        * *frame_from_world;
    let map = g.inverse().transpose();
    let mut out = *planes;
    for p in out.planes.iter_mut() {
        *p = p
            .map(|p| (map * p.as_dvec4()).as_vec4())
            .filter(|p| p.is_finite());
    }
    out
}

/// Whether the world-space bound `b` holds the point `p` (in `f64`, so a far or tiny bound is
/// not rounded away): a layer starts only at a node that contains the eye.
fn bound_holds(b: &Bound, p: DVec3) -> bool {
    match *b {
        Bound::Empty => false,
        Bound::Sphere { center, radius } => (p - center.as_dvec3()).length() <= f64::from(radius),
        Bound::Aabb { min, max } => p.cmpge(min.as_dvec3()).all() && p.cmple(max.as_dvec3()).all(),
    }
}

/// A light carried into a relative frame: `frame_from_world`, then scaled by `k` about `eye`.
pub(crate) fn light_in_frame(
    light: &SceneLight,
    frame_from_world: &DMat4,
    eye: DVec3,
    k: f64,
) -> SceneLight {
    let sigma = linear_norm(frame_from_world) * k;
    let p = frame_from_world.transform_point3(light.position.as_dvec3());
    let d = frame_from_world.transform_vector3(light.direction.as_dvec3());
    let len = light.direction.as_dvec3().length();
    let mut out = *light;
    out.position = (eye + (p - eye) * k).as_vec3();
    if d.length() > 0.0 {
        out.direction = (d.normalize() * len).as_vec3();
    }
    out.linear = (f64::from(light.linear) / sigma) as f32;
    out.quadratic = (f64::from(light.quadratic) / (sigma * sigma)) as f32;
    out.range = light.range.map(|r| (f64::from(r) * sigma) as f32);
    out
}

/// `camera` mapped by the similarity `m` (see [`Scene::camera_in_frame`]).
fn map_camera(camera: &Camera, m: &DMat4) -> Result<Camera, SceneError> {
    let Some(s) = similarity_scale(m) else {
        return Err(SceneError::InvalidArgument {
            what: "camera frame change",
            message: "the frames differ by more than rotation, uniform scale and translation"
                .into(),
        });
    };
    let mut c = camera.clone();
    let eye = m.transform_point3(camera.location().as_dvec3()).as_vec3();
    let d = m
        .transform_vector3(camera.direction().as_dvec3())
        .normalize()
        .as_vec3();
    let u = m
        .transform_vector3(camera.up().as_dvec3())
        .normalize()
        .as_vec3();
    c.set_frame(eye, d, u)?;
    let f = camera.frustum();
    let sc = |v: f32| (f64::from(v) * s) as f32;
    match camera.projection() {
        Projection::Perspective => c.set_frustum(
            sc(f.left),
            sc(f.right),
            sc(f.bottom),
            sc(f.top),
            sc(f.near),
            sc(f.far),
        )?,
        Projection::Orthographic => c.set_orthographic(
            sc(f.left),
            sc(f.right),
            sc(f.bottom),
            sc(f.top),
            sc(f.near),
            sc(f.far),
        )?,
    }
    let planes: Vec<Plane> = camera.user_planes().to_vec();
    while c.pop_plane().is_some() {}
    for p in planes {
        let n = p.normal().as_dvec3();
        let p0 = n * f64::from(p.constant());
        let n2 = m.transform_vector3(n).normalize();
        let c2 = n2.dot(m.transform_point3(p0));
        c.push_plane(Plane::new(n2.as_vec3(), c2 as f32)?)?;
    }
    Ok(c)
}
