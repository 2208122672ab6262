//! A default camera for a scene that brings none: [`frame_bound`] frames a bound — best the
//! tight box of the scene's vertices, [`geometry_box`].
//!
//! # The framing rule
//!
//! * **what is framed**: [`geometry_box`], the world-space axis-aligned box of every vertex
//!   that can be drawn (active switch children only, no force-culled subtrees, finite
//!   positions; as of the last update); a scene without such vertices frames the unit sphere
//!   at the origin.
//! * **direction**: the eye looks at the box's centre `c` from [`FRAMING_DIRECTION`] =
//!   `(1, 0.6, 1.4)` normalised — front-right and a little above, so a model authored +y up,
//!   facing +z (glTF's convention) is seen three-quarter from the front. Up is +y.
//! * **distance**: the smallest `d` at which all eight corners of the box, grown about `c` by
//!   [`FRAMING_MARGIN`] (1.1), lie inside both the vertical field of view `fov_y` and the
//!   horizontal one (`tan(fov_x/2) = a · tan(fov_y/2)`, `a = width / height`): with the
//!   camera's right `R`, up `U` and the unit vector `B` from `c` towards the eye, corner
//!   offset `q` needs `d ≥ q·B + max(|q·R| / tan(fov_x/2), |q·U| / tan(fov_y/2))`. So the box
//!   itself — not a sphere around it — fills the narrower direction of the image (up to the
//!   margin), and flat or long models are not shown small. The distance is at least
//!   [`RELATIVE_MIN_DISTANCE`] times the centre's largest coordinate.
//! * **a sphere bound** (given to [`frame_bound`] directly; an empty bound is the unit sphere
//!   at the origin, and a radius below [`MIN_FRAMING_RADIUS`] is raised to it): `d =
//!   FRAMING_MARGIN · r / sin(h)` with `h = min(fov_y/2, fov_x/2)`, so the grown sphere fits
//!   both fields of view.
//! * **near / far**: with `r` the bound's radius (half the box's diagonal), `near = max(d − 2r,
//!   d/1000)`, `far = d + 2r` — the bound lies well inside the depth range whatever the
//!   direction.
//!
//! All trigonometry goes through `plumb_raster::math`.

use glam::Vec3;
use plumb_raster::math;

use crate::graph::{NodeKind, Scene};
use crate::passes::cull::Culling;
use crate::values::bound::Bound;
use crate::values::camera::Camera;
use crate::values::error::SceneError;

/// The direction the framing eye sits in, from the bound's centre (normalised before use).
pub const FRAMING_DIRECTION: Vec3 = Vec3::new(1.0, 0.6, 1.4);
/// The bounding sphere's radius is multiplied by this before fitting it to the view.
pub const FRAMING_MARGIN: f32 = 1.1;
/// Smallest radius framed (a point or an empty scene still gets a usable camera).
pub const MIN_FRAMING_RADIUS: f32 = 1e-3;
/// The framing distance is at least this fraction of the box centre's largest coordinate,
/// so a tiny box far from the origin still gets an eye distinct from its centre.
pub const RELATIVE_MIN_DISTANCE: f32 = 1e-5;
/// The vertical field of view used when none is given: 45°.
pub const DEFAULT_FOV_Y: f32 = core::f32::consts::FRAC_PI_4;

/// The world-space axis-aligned box of every vertex that can be drawn: geometry leaves
/// reachable from the root, following only the active child of a switch and skipping
/// subtrees whose cull mode is `Always`, with the world transforms of the last update. A
/// vertex whose world position is not finite is left out. [`Bound::Empty`] when nothing is
/// left.
///
/// # Errors
/// None in practice: every id walked comes from the tree itself.
pub fn geometry_box(scene: &Scene) -> Result<Bound, SceneError> {
    let (mut lo, mut hi) = (Vec3::splat(f32::INFINITY), Vec3::splat(f32::NEG_INFINITY));
    let mut stack = vec![scene.root()];
    while let Some(id) = stack.pop() {
        if scene.culling(id)? == Culling::Always {
            continue;
        }
        match scene.kind(id)? {
            NodeKind::Geometry => {
                let world = scene.world_transform(id)?;
                for &p in scene.mesh(id)?.positions() {
                    let w = world.apply_point(p);
                    if w.is_finite() {
                        lo = lo.min(w);
                        hi = hi.max(w);
                    }
                }
            }
            k if k.is_switch() => stack.extend(scene.active_child(id)?),
            _ => stack.extend_from_slice(scene.children(id)?),
        }
    }
    Ok(if lo.cmple(hi).all() {
        Bound::aabb(lo, hi)
    } else {
        Bound::Empty
    })
}

/// A perspective camera framing `bound` by the rule in the [module docs](self): a box by its
/// corners, a sphere (or nothing) by its sphere.
///
/// # Errors
/// [`SceneError::NonFinite`] for a non-finite bound, [`SceneError::InvalidFrustum`] for a
/// field of view outside (0, π) or a non-positive aspect.
pub fn frame_bound(bound: &Bound, fov_y: f32, aspect: f32) -> Result<Camera, SceneError> {
    let (center, radius) = if bound.is_empty() {
        (Vec3::ZERO, 1.0)
    } else {
        (bound.center(), bound.radius())
    };
    if !(center.is_finite() && radius.is_finite()) {
        let finite_input = match *bound {
            Bound::Aabb { min, max } => min.is_finite() && max.is_finite(),
            Bound::Sphere { center, radius } => center.is_finite() && radius.is_finite(),
            Bound::Empty => true,
        };
        if finite_input {
            // Finite coordinates whose extent does not fit in an f32 (a box from -3e38 to
            // 3e38): say so, rather than calling finite numbers non-finite.
            return Err(SceneError::InvalidArgument {
                what: "world bound",
                message: format!(
                    "the scene's extent is too large to frame (its radius exceeds {:e})",
                    f32::MAX
                ),
            });
        }
        return Err(SceneError::NonFinite {
            what: "world bound",
        });
    }
    if !(fov_y > 0.0 && fov_y < core::f32::consts::PI && aspect > 0.0 && aspect.is_finite()) {
        return Err(SceneError::InvalidFrustum(
            "fov must be in (0, π), aspect > 0",
        ));
    }
    let r = radius.max(MIN_FRAMING_RADIUS);
    let half_y = 0.5 * fov_y;
    let (tan_y, tan_x) = (math::tan(half_y), aspect * math::tan(half_y));
    let back = FRAMING_DIRECTION.normalize();
    // The view frame `look_at` will build: right R = D × up, up U = R × D, with D = −back.
    let right = (-back).cross(Vec3::Y).normalize();
    let up = right.cross(-back);
    let d = match *bound {
        Bound::Aabb { min, max } => {
            let mut d: f32 = 0.0;
            for corner in corners(min, max) {
                let q = (corner - center) * FRAMING_MARGIN;
                let need = q.dot(back) + (q.dot(right).abs() / tan_x).max(q.dot(up).abs() / tan_y);
                d = d.max(need);
            }
            // A point-like box still gets a usable distance, also far from the origin
            // (where the minimum would vanish in the centre's rounding).
            let floor = MIN_FRAMING_RADIUS / math::sin(half_y.min(math::atan2(tan_x, 1.0)));
            d.max(floor)
                .max(center.abs().max_element() * RELATIVE_MIN_DISTANCE)
        }
        _ => {
            let half = half_y.min(math::atan2(tan_x, 1.0));
            FRAMING_MARGIN * r / math::sin(half)
        }
    };
    let (near, far) = clip_range(d, r);
    if !(near < far && far.is_finite()) {
        // Finite, but single precision cannot hold a depth range around a bound this small
        // for its distance from the origin (or this large): a true message, not "non-finite".
        return Err(SceneError::InvalidArgument {
            what: "world bound",
            message: format!(
                "a scene of radius {radius} centred {:e} from the origin cannot be framed in \
                 single precision",
                center.abs().max_element()
            ),
        });
    }
    let mut camera = Camera::perspective(fov_y, aspect, near, far)?;
    let eye = center + back * d;
    camera.look_at(eye, center, Vec3::Y)?;
    Ok(camera)
}

/// The eight corners of the box `min..max`.
fn corners(min: Vec3, max: Vec3) -> [Vec3; 8] {
    std::array::from_fn(|k| {
        Vec3::new(
            if k & 1 == 0 { min.x } else { max.x },
            if k & 2 == 0 { min.y } else { max.y },
            if k & 4 == 0 { min.z } else { max.z },
        )
    })
}

/// The framing rule's near and far distances for an eye `distance` from the centre of a
/// sphere of `radius`: `near = max(d − 2r, d/1000)`, `far = d + 2r` (see the
/// [module docs](self)); `distance` and `radius` are raised to [`MIN_FRAMING_RADIUS`].
pub fn clip_range(distance: f32, radius: f32) -> (f32, f32) {
    let d = distance.max(MIN_FRAMING_RADIUS);
    let r = radius.max(MIN_FRAMING_RADIUS);
    ((d - 2.0 * r).max(d / 1000.0), d + 2.0 * r)
}

#[cfg(feature = "internal-tests")]
pub(crate) mod tests {
    /// Every test of this module: `tests/unit.rs` runs each as one trial (an unlisted
    /// test fails the build as dead code).
    pub(crate) const TESTS: &[(&str, fn())] = &[
        ("sphere_fits_and_is_centred", sphere_fits_and_is_centred),
        ("box_corners_fit_tightly", box_corners_fit_tightly),
        (
            "geometry_box_is_the_world_vertex_box",
            geometry_box_is_the_world_vertex_box,
        ),
        (
            "geometry_box_follows_what_is_drawn",
            geometry_box_follows_what_is_drawn,
        ),
        (
            "tiny_boxes_far_away_still_frame",
            tiny_boxes_far_away_still_frame,
        ),
        (
            "empty_and_point_bounds_still_frame",
            empty_and_point_bounds_still_frame,
        ),
    ];

    use super::*;

    fn sphere_fits_and_is_centred() {
        let bound = Bound::sphere(Vec3::new(1.0, 2.0, 3.0), 2.0);
        for aspect in [0.5, 1.0, 2.0] {
            let cam = frame_bound(&bound, DEFAULT_FOV_Y, aspect).unwrap();
            // The centre projects to the middle of the view.
            let c = cam.clip_from_world() * Vec3::new(1.0, 2.0, 3.0).extend(1.0);
            assert!((c.x / c.w).abs() < 1e-5 && (c.y / c.w).abs() < 1e-5);
            // The sphere is inside every frustum plane with room to spare.
            for p in cam.frustum_planes() {
                assert_eq!(
                    bound.which_side(&p),
                    crate::values::plane::Side::Positive,
                    "{p:?}"
                );
            }
        }
    }

    /// Every corner of a framed box is inside the view, and the box fills the narrower
    /// direction: the corners of the box grown by the margin reach the edge (|ndc| = 1).
    fn box_corners_fit_tightly() {
        let boxes = [
            Bound::aabb(Vec3::new(-1.0, 0.0, -1.0), Vec3::new(1.0, 2.0, 1.0)),
            // A flat, wide panel (like a test board) and a long rod.
            Bound::aabb(Vec3::new(-4.0, 0.0, -0.1), Vec3::new(4.0, 1.5, 0.1)),
            Bound::aabb(Vec3::new(2.0, 3.0, -10.0), Vec3::new(2.5, 3.5, 10.0)),
        ];
        for bound in boxes {
            for aspect in [0.5, 1.0, 2.0] {
                let cam = frame_bound(&bound, DEFAULT_FOV_Y, aspect).unwrap();
                let Bound::Aabb { min, max } = bound else {
                    unreachable!()
                };
                let c = bound.center();
                let mut widest: f32 = 0.0;
                for p in corners(min, max) {
                    let ndc = |p: Vec3| {
                        let h = cam.clip_from_world() * p.extend(1.0);
                        assert!(h.w > 0.0);
                        h.truncate() / h.w
                    };
                    let real = ndc(p);
                    assert!((-1.0..=1.0).contains(&real.z), "{bound:?} {p}");
                    assert!(real.x.abs() < 1.0 && real.y.abs() < 1.0, "{bound:?} {p}");
                    let grown = ndc(c + (p - c) * FRAMING_MARGIN);
                    widest = widest.max(grown.x.abs()).max(grown.y.abs());
                }
                assert!((widest - 1.0).abs() < 1e-4, "{bound:?} {aspect}: {widest}");
            }
        }
    }

    fn geometry_box_is_the_world_vertex_box() {
        let mut scene = Scene::new();
        let root = scene.root();
        let m = crate::values::mesh::Mesh::triangles(
            vec![Vec3::ZERO, Vec3::X, Vec3::new(0.0, 2.0, 0.0)],
            vec![0, 1, 2],
        )
        .unwrap();
        let g = scene
            .add_geometry(root, "tri", std::sync::Arc::new(m))
            .unwrap();
        scene.set_translation(g, Vec3::new(0.0, 0.0, 5.0)).unwrap();
        scene.update(0.0);
        assert_eq!(
            geometry_box(&scene).unwrap(),
            Bound::aabb(Vec3::new(0.0, 0.0, 5.0), Vec3::new(1.0, 2.0, 5.0))
        );
    }

    fn geometry_box_follows_what_is_drawn() {
        use crate::values::mesh::Mesh;
        use std::sync::Arc;
        let tri = |z: f32| {
            Arc::new(
                Mesh::triangles(
                    vec![
                        Vec3::new(0.0, 0.0, z),
                        Vec3::new(1.0, 0.0, z),
                        Vec3::new(0.0, 1.0, z),
                    ],
                    vec![0, 1, 2],
                )
                .unwrap(),
            )
        };
        let mut scene = Scene::new();
        let root = scene.root();
        let sw = scene.add_switch(root, "sw").unwrap();
        scene.add_geometry(sw, "a", tri(1.0)).unwrap();
        scene.add_geometry(sw, "b", tri(50.0)).unwrap();
        let hidden = scene.add_geometry(root, "hidden", tri(-80.0)).unwrap();
        scene.set_culling(hidden, Culling::Always).unwrap();
        scene.update(0.0);
        // No active child, the other leaf force-culled: nothing to frame.
        assert_eq!(geometry_box(&scene).unwrap(), Bound::Empty);
        scene.set_active_index(sw, Some(0)).unwrap();
        scene.update(0.0);
        assert_eq!(
            geometry_box(&scene).unwrap(),
            Bound::aabb(Vec3::new(0.0, 0.0, 1.0), Vec3::new(1.0, 1.0, 1.0))
        );
        // An overflowing vertex is left out, the rest still framed.
        let mut inf = Scene::new();
        let root = inf.root();
        let m = Mesh::triangles(
            vec![Vec3::ZERO, Vec3::X, Vec3::new(0.0, 3e38, 0.0)],
            vec![0, 1, 2],
        )
        .unwrap();
        let g = inf.add_geometry(root, "big", Arc::new(m)).unwrap();
        inf.set_uniform_scale(g, 10.0).unwrap();
        inf.update(0.0);
        assert_eq!(
            geometry_box(&inf).unwrap(),
            Bound::aabb(Vec3::ZERO, Vec3::new(10.0, 0.0, 0.0))
        );
    }

    fn tiny_boxes_far_away_still_frame() {
        for c in [Vec3::splat(1e5), Vec3::new(1e7, -3.0, 2.0)] {
            for half in [0.0, 0.005] {
                let b = Bound::aabb(c - Vec3::splat(half), c + Vec3::splat(half));
                let cam = frame_bound(&b, DEFAULT_FOV_Y, 1.5)
                    .unwrap_or_else(|e| panic!("{c} {half}: {e}"));
                assert!(cam.location().distance(c) > 0.0);
                let f = cam.frustum();
                assert!(f.near < f.far && f.near > 0.0);
            }
        }
    }

    fn empty_and_point_bounds_still_frame() {
        assert!(frame_bound(&Bound::default(), DEFAULT_FOV_Y, 1.0).is_ok());
        assert!(frame_bound(&Bound::sphere(Vec3::ZERO, 0.0), DEFAULT_FOV_Y, 1.0).is_ok());
        assert!(frame_bound(&Bound::sphere(Vec3::ZERO, 1.0), 0.0, 1.0).is_err());
        assert!(frame_bound(&Bound::aabb(Vec3::ONE, Vec3::ONE), DEFAULT_FOV_Y, 1.0).is_ok());
    }
}
