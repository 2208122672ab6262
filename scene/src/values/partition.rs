//! Space partitions as plain data (book-advanced §1.6–§1.7): the sides of a BSP plane, the
//! back-to-front order of a BSP node's children, which side of a plane a camera's frustum lies
//! on, convex portals and the culling planes they push. The scene-side behaviour (BSP nodes,
//! convex regions and their manager) is in [`nodes`](crate::nodes);
//! the culling walk that uses it is in [`cull`](crate::passes::cull).

use glam::Vec3;

use crate::values::camera::{Camera, Projection};
use crate::values::error::SceneError;
use crate::values::id::NodeId;
use crate::values::plane::{Plane, Side};

/// The three child slots of a BSP node (Eberly's child indices 0, 1, 2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum BspSide {
    /// The half space the plane's normal points into (`N·X > c`).
    Positive,
    /// Geometry lying in the plane (walls); for a region manager, the outside scene.
    Coplanar,
    /// The other half space (`N·X < c`).
    Negative,
}

impl BspSide {
    /// All three, in slot order.
    pub const ALL: [BspSide; 3] = [BspSide::Positive, BspSide::Coplanar, BspSide::Negative];

    /// The slot index (0 positive, 1 coplanar, 2 negative).
    pub fn index(self) -> usize {
        match self {
            BspSide::Positive => 0,
            BspSide::Coplanar => 1,
            BspSide::Negative => 2,
        }
    }

    /// The lower-case name used in scene files and the text dump.
    pub fn name(self) -> &'static str {
        match self {
            BspSide::Positive => "positive",
            BspSide::Coplanar => "coplanar",
            BspSide::Negative => "negative",
        }
    }
}

/// A portal: a planar convex polygon in the local space of the region that owns it, counter-
/// clockwise as seen from inside that region looking through it, leading to `adjacent`.
/// Portals are one-way (Eberly): a doorway seen from both sides is two portals.
#[derive(Debug, Clone, PartialEq)]
pub struct Portal {
    vertices: Vec<Vec3>,
    adjacent: NodeId,
    open: bool,
}

impl Portal {
    /// A portal with at least 3 finite vertices, not all on one line.
    ///
    /// # Errors
    /// [`SceneError::NonFinite`] for a NaN or infinite vertex; [`SceneError::InvalidArgument`]
    /// for fewer than 3 vertices or a polygon with zero area.
    pub fn new(vertices: Vec<Vec3>, adjacent: NodeId, open: bool) -> Result<Portal, SceneError> {
        if vertices.iter().any(|v| !v.is_finite()) {
            return Err(SceneError::NonFinite {
                what: "portal vertex",
            });
        }
        if vertices.len() < 3 {
            return Err(SceneError::InvalidArgument {
                what: "portal",
                message: format!("{} vertices; a portal needs at least 3", vertices.len()),
            });
        }
        if polygon_normal(&vertices) == Vec3::ZERO {
            return Err(SceneError::InvalidArgument {
                what: "portal",
                message: "its vertices enclose no area (all on one line)".to_owned(),
            });
        }
        Ok(Portal {
            vertices,
            adjacent,
            open,
        })
    }

    /// The vertices, in the owning region's local space.
    pub fn vertices(&self) -> &[Vec3] {
        &self.vertices
    }

    /// The region this portal leads to.
    pub fn adjacent(&self) -> NodeId {
        self.adjacent
    }

    /// Whether the portal lets the view through (a closed portal blocks).
    pub fn is_open(&self) -> bool {
        self.open
    }

    pub(crate) fn set_open(&mut self, open: bool) {
        self.open = open;
    }
}

/// Newell's normal of a polygon (zero when it has no area).
fn polygon_normal(v: &[Vec3]) -> Vec3 {
    let mut n = Vec3::ZERO;
    for (i, a) in v.iter().enumerate() {
        let b = v[(i + 1) % v.len()];
        n += a.cross(b);
    }
    if n.is_finite() {
        n
    } else {
        Vec3::ZERO
    }
}

/// Where the eye is relative to a BSP plane (Eberly's `Plane3::WhichSide` of a point).
fn point_side(plane: &Plane, p: Vec3) -> Side {
    plane.which_side(p)
}

/// The eight corners of the camera's frustum in world space (near corners first).
pub fn frustum_corners(camera: &Camera) -> [Vec3; 8] {
    let (e, d, u, r) = (
        camera.location(),
        camera.direction(),
        camera.up(),
        camera.right(),
    );
    let f = camera.frustum();
    let mut out = [Vec3::ZERO; 8];
    let mut k = 0;
    for (dist, ratio) in [(f.near, 1.0), (f.far, f.far / f.near)] {
        let ratio = match camera.projection() {
            Projection::Perspective => ratio,
            Projection::Orthographic => 1.0,
        };
        for (a, b) in [
            (f.left, f.bottom),
            (f.right, f.bottom),
            (f.right, f.top),
            (f.left, f.top),
        ] {
            out[k] = e + d * dist + r * (a * ratio) + u * (b * ratio);
            k += 1;
        }
    }
    out
}

/// Which side of `plane` the camera's frustum lies on (Eberly's `Camera::WhichSide`: all eight
/// corners strictly positive → `Positive`, all strictly negative → `Negative`, else `Both`).
pub fn frustum_side(camera: &Camera, plane: &Plane) -> Side {
    let (mut pos, mut neg) = (0, 0);
    for c in frustum_corners(camera) {
        let d = plane.distance(c);
        if d > 0.0 {
            pos += 1;
        } else if d < 0.0 {
            neg += 1;
        }
    }
    if pos == 8 {
        Side::Positive
    } else if neg == 8 {
        Side::Negative
    } else {
        Side::Both
    }
}

/// The order a BSP node draws its slots in, back to front (Eberly's `BspNode::Draw`), for a
/// plane in world space and a camera. Slots that cannot be seen are left out:
///
/// * eye on the positive side: negative (if the frustum is not all positive), coplanar (if
///   the frustum straddles), positive (if the frustum is not all negative);
/// * eye on the negative side: the mirror image;
/// * eye on the plane: all three, starting with the half space the view direction points
///   into (`N·D ≥ 0` → positive, coplanar, negative; else negative, coplanar, positive).
pub fn bsp_draw_order(plane: &Plane, camera: &Camera) -> Vec<BspSide> {
    let eye = point_side(plane, camera.location());
    let fru = frustum_side(camera, plane);
    let mut out = Vec::with_capacity(3);
    let (near, far) = match eye {
        Side::Positive => (BspSide::Positive, BspSide::Negative),
        Side::Negative => (BspSide::Negative, BspSide::Positive),
        Side::Both => {
            return if plane.normal().dot(camera.direction()) >= 0.0 {
                BspSide::ALL.to_vec()
            } else {
                vec![BspSide::Negative, BspSide::Coplanar, BspSide::Positive]
            };
        }
    };
    // The far half space is visible unless the frustum lies wholly on the near side.
    let near_only = |s: Side| match near {
        BspSide::Positive => s == Side::Positive,
        _ => s == Side::Negative,
    };
    let far_only = |s: Side| match far {
        BspSide::Positive => s == Side::Positive,
        _ => s == Side::Negative,
    };
    if !near_only(fru) {
        out.push(far);
    }
    if fru == Side::Both {
        out.push(BspSide::Coplanar);
    }
    if !far_only(fru) {
        out.push(near);
    }
    out
}

/// The plane through the eye and the portal edge from `v_prev` to `v`, normal pointing into
/// the view through the portal when the portal is counter-clockwise as seen from the eye
/// (Eberly's `Plane3(E, V[i0], V[i1])`). `None` when the three points are collinear.
pub fn portal_edge_plane(eye: Vec3, v: Vec3, v_prev: Vec3) -> Option<Plane> {
    let n = (v - eye).cross(v_prev - eye);
    let len = n.length();
    if len == 0.0 || !len.is_finite() {
        return None;
    }
    let n = n / len;
    Plane::new(n, n.dot(eye)).ok()
}

/// Whether a convex polygon is outside the planes (Eberly's `Camera::Culled` for portals): all
/// vertices strictly on the negative side of one plane. Tested from the last plane (the most
/// recently pushed) down; the plane at index `skip` (the near plane for portals) is ignored.
pub fn polygon_culled(planes: &[Plane], vertices: &[Vec3], skip: Option<usize>) -> bool {
    planes
        .iter()
        .enumerate()
        .rev()
        .any(|(i, p)| Some(i) != skip && vertices.iter().all(|&v| p.distance(v) < 0.0))
}
