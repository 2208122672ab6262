//! Intersection tests (`plumb_scene::intersect`), oriented boxes and hierarchical collision
//! (`plumb_scene::collide`): analytic vectors worked out by hand, brute force over all
//! triangle pairs as the independent oracle for the bounding-volume trees, and symmetry.

use std::sync::Arc;

use glam::{Mat3, Quat, Vec3};
use plumb_scene::collide::{collide, collide_find, collide_with_stats, CollideStats};
use plumb_scene::intersect::{
    find_box, find_sphere, find_triangle, find_triangles, test_box, test_sphere, test_triangle,
    test_triangles, Linear, Sphere,
};
use plumb_scene::{
    shapes, BvKind, BvTreeOptions, CollideMode, Collider, CollisionGroup, Mesh, OrientedBox, Scene,
    SceneError, Transform, TrianglePair,
};

const UNIT: [Vec3; 3] = [Vec3::ZERO, Vec3::X, Vec3::Y];

fn close(a: f32, b: f32) -> bool {
    (a - b).abs() <= 1e-6
}

// ---------------------------------------------------------------- linear vs triangle

/// A ray down the z axis through the unit triangle's centroid (1/3, 1/3) hits at t = 2 with
/// barycentric (1/3, 1/3, 1/3).
#[test]
fn ray_through_centroid() {
    let c = Vec3::new(1.0 / 3.0, 1.0 / 3.0, 2.0);
    let ray = Linear::ray(c, -Vec3::Z).unwrap();
    assert!(test_triangle(&ray, UNIT[0], UNIT[1], UNIT[2]));
    let hit = find_triangle(&ray, UNIT[0], UNIT[1], UNIT[2]).unwrap();
    assert!(close(hit.t, 2.0), "{hit:?}");
    for b in hit.barycentric {
        assert!(close(b, 1.0 / 3.0), "{hit:?}");
    }
    // Reversed, the ray points away: no hit; the line through it hits at t = −2.
    let away = Linear::ray(c, Vec3::Z).unwrap();
    assert!(!test_triangle(&away, UNIT[0], UNIT[1], UNIT[2]));
    let line = Linear::line(c, Vec3::Z).unwrap();
    assert!(close(
        find_triangle(&line, UNIT[0], UNIT[1], UNIT[2]).unwrap().t,
        -2.0
    ));
}

/// A segment ending exactly on the edge x + y = 1 (at (0.5, 0.5, 0)) grazes it: a hit with
/// b₀ = 0; stopping short of the plane or passing just outside the edge misses.
#[test]
fn segment_grazing_an_edge() {
    let on_edge = Linear::segment(Vec3::new(0.5, 0.5, 1.0), Vec3::new(0.5, 0.5, 0.0)).unwrap();
    let hit = find_triangle(&on_edge, UNIT[0], UNIT[1], UNIT[2]).unwrap();
    assert!(
        close(hit.t, 1.0) && close(hit.barycentric[0], 0.0),
        "{hit:?}"
    );
    assert!(close(hit.barycentric[1], 0.5) && close(hit.barycentric[2], 0.5));
    let short = Linear::segment(Vec3::new(0.25, 0.25, 1.0), Vec3::new(0.25, 0.25, 0.01)).unwrap();
    assert!(!test_triangle(&short, UNIT[0], UNIT[1], UNIT[2]));
    let outside =
        Linear::segment(Vec3::new(0.5, 0.5001, 1.0), Vec3::new(0.5, 0.5001, -1.0)).unwrap();
    assert!(!test_triangle(&outside, UNIT[0], UNIT[1], UNIT[2]));
}

/// Parallel and coplanar components never hit (the book's rule), nor degenerate triangles.
#[test]
fn parallel_coplanar_and_degenerate_miss() {
    let above = Linear::line(Vec3::new(0.0, 0.0, 1.0), Vec3::X).unwrap();
    let inside = Linear::line(Vec3::new(0.1, 0.1, 0.0), Vec3::X).unwrap();
    for l in [above, inside] {
        assert!(!test_triangle(&l, UNIT[0], UNIT[1], UNIT[2]));
        assert!(find_triangle(&l, UNIT[0], UNIT[1], UNIT[2]).is_none());
    }
    let down = Linear::line(Vec3::new(0.5, 0.0, 1.0), -Vec3::Z).unwrap();
    assert!(!test_triangle(&down, Vec3::ZERO, Vec3::X, Vec3::X * 2.0));
}

/// NaN anywhere: a typed error from the constructor, or no hit — never a panic.
#[test]
fn nan_inputs() {
    assert!(matches!(
        Linear::ray(Vec3::NAN, Vec3::Z),
        Err(SceneError::NonFinite { .. })
    ));
    assert!(Linear::line(Vec3::ZERO, Vec3::new(f32::NAN, 0.0, 1.0)).is_err());
    assert!(Linear::segment(Vec3::ZERO, Vec3::INFINITY).is_err());
    assert!(Linear::ray(Vec3::ZERO, Vec3::ZERO).is_err());
    assert!(Sphere::new(Vec3::ZERO, f32::NAN).is_err());
    assert!(Sphere::new(Vec3::ZERO, -1.0).is_err());
    let ray = Linear::ray(Vec3::new(0.2, 0.2, 1.0), -Vec3::Z).unwrap();
    let nan = Vec3::splat(f32::NAN);
    assert!(!test_triangle(&ray, nan, UNIT[1], UNIT[2]));
    assert!(find_triangle(&ray, UNIT[0], nan, UNIT[2]).is_none());
    assert!(!test_triangles(&[nan, UNIT[1], UNIT[2]], &UNIT));
    assert!(find_triangles(&UNIT, &[UNIT[0], nan, UNIT[2]]).is_none());
    let inf = Vec3::new(f32::INFINITY, 0.0, 0.0);
    assert!(!test_triangles(&[inf, UNIT[1], UNIT[2]], &UNIT));
}

// ---------------------------------------------------------------- linear vs sphere

/// Unit sphere at the origin. The x axis as a line crosses at t = −1 and 1 (from the origin);
/// a ray from inside crosses once (the exit); a segment inside crosses nothing but meets the
/// ball; the line y = 1 is tangent (one crossing at x = 0); y = 1.001 misses.
#[test]
fn linear_vs_sphere() {
    let s = Sphere::new(Vec3::ZERO, 1.0).unwrap();
    let line = Linear::line(Vec3::new(-3.0, 0.0, 0.0), Vec3::X).unwrap();
    let hit = find_sphere(&line, &s).unwrap();
    assert_eq!(hit.parameters(), &[2.0, 4.0]);
    let ray = Linear::ray(Vec3::ZERO, Vec3::X).unwrap();
    assert_eq!(find_sphere(&ray, &s).unwrap().parameters(), &[1.0]);
    assert!(test_sphere(&ray, &s));
    let seg = Linear::segment(Vec3::new(-0.5, 0.0, 0.0), Vec3::new(0.5, 0.0, 0.0)).unwrap();
    assert!(test_sphere(&seg, &s) && find_sphere(&seg, &s).is_none());
    let tangent = Linear::line(Vec3::new(-2.0, 1.0, 0.0), Vec3::X).unwrap();
    assert_eq!(find_sphere(&tangent, &s).unwrap().parameters(), &[2.0]);
    let miss = Linear::line(Vec3::new(-2.0, 1.001, 0.0), Vec3::X).unwrap();
    assert!(!test_sphere(&miss, &s) && find_sphere(&miss, &s).is_none());
    // A ray pointing away from a sphere ahead of its origin misses; a segment stopping short too.
    let away = Linear::ray(Vec3::new(3.0, 0.0, 0.0), Vec3::X).unwrap();
    assert!(!test_sphere(&away, &s) && find_sphere(&away, &s).is_none());
    let short = Linear::segment(Vec3::new(-3.0, 0.0, 0.0), Vec3::new(-1.5, 0.0, 0.0)).unwrap();
    assert!(!test_sphere(&short, &s) && find_sphere(&short, &s).is_none());
}

// ---------------------------------------------------------------- linear vs box

/// The unit cube turned 45° about z: its corners along ±x reach √2. The line y = 0 enters at
/// x = −√2 and leaves at √2; y = 1.4 cuts the tip (|x| ≤ √2 − 1.4); y = 1.42 misses (> √2).
#[test]
fn box_rotated_45_degrees() {
    let r = Mat3::from_rotation_z(std::f32::consts::FRAC_PI_4);
    let b = OrientedBox::new(Vec3::ZERO, [r.x_axis, r.y_axis, r.z_axis], Vec3::ONE).unwrap();
    let s2 = std::f32::consts::SQRT_2;
    let line = Linear::line(Vec3::new(-5.0, 0.0, 0.0), Vec3::X).unwrap();
    assert!(test_box(&line, &b));
    let (t0, t1) = find_box(&line, &b).unwrap();
    assert!((t0 - (5.0 - s2)).abs() < 1e-5 && (t1 - (5.0 + s2)).abs() < 1e-5);
    let tip = Linear::line(Vec3::new(-5.0, 1.4, 0.0), Vec3::X).unwrap();
    let (t0, t1) = find_box(&tip, &b).unwrap();
    assert!(test_box(&tip, &b));
    assert!(((t1 - t0) - 2.0 * (s2 - 1.4)).abs() < 1e-4, "{t0} {t1}");
    let miss = Linear::line(Vec3::new(-5.0, 1.42, 0.0), Vec3::X).unwrap();
    assert!(!test_box(&miss, &b) && find_box(&miss, &b).is_none());
    // A ray from inside: enters at 0. A ray pointing away misses; a segment stopping short too.
    let inside = Linear::ray(Vec3::ZERO, Vec3::X).unwrap();
    assert_eq!(find_box(&inside, &b).unwrap().0, 0.0);
    assert!(test_box(&inside, &b));
    let away = Linear::ray(Vec3::new(3.0, 0.0, 0.0), Vec3::X).unwrap();
    assert!(!test_box(&away, &b) && find_box(&away, &b).is_none());
    let short = Linear::segment(Vec3::new(-5.0, 0.0, 0.0), Vec3::new(-1.5, 0.0, 0.0)).unwrap();
    assert!(!test_box(&short, &b) && find_box(&short, &b).is_none());
    let reach = Linear::segment(Vec3::new(-5.0, 0.0, 0.0), Vec3::new(-1.3, 0.0, 0.0)).unwrap();
    assert!(test_box(&reach, &b) && find_box(&reach, &b).is_some());
}

/// Test and find agree for random lines, rays and segments against random boxes, spheres
/// and triangles (the test uses separating axes or a distance, the find clips or solves, so
/// they are independent computations). Near-tangent cases are skipped.
#[test]
fn test_and_find_agree_on_random_queries() {
    let mut rng = Rng::new(0x5eed_0001);
    let mut agreed = [0usize; 2];
    for _ in 0..3000 {
        let o = rand_vec(&mut rng, 3.0);
        let d = rand_vec(&mut rng, 1.0);
        let Ok(base) = Linear::ray(o, d) else {
            continue;
        };
        let comps = [
            Linear::line(o, d).unwrap(),
            base,
            Linear::segment(o, o + d * 2.0).unwrap(),
        ];
        let q = Quat::from_axis_angle(rand_vec(&mut rng, 1.0).normalize(), rng.next_f32() * 6.0);
        let r = Mat3::from_quat(q);
        let ext = Vec3::new(
            rng.next_f32() + 0.1,
            rng.next_f32() + 0.1,
            rng.next_f32() + 0.1,
        );
        let b =
            OrientedBox::new(rand_vec(&mut rng, 1.0), [r.x_axis, r.y_axis, r.z_axis], ext).unwrap();
        let s = Sphere::new(rand_vec(&mut rng, 1.0), rng.next_f32() + 0.1).unwrap();
        let t = [
            rand_vec(&mut rng, 2.0),
            rand_vec(&mut rng, 2.0),
            rand_vec(&mut rng, 2.0),
        ];
        for l in comps {
            if let Some((t0, t1)) = find_box(&l, &b) {
                if t1 - t0 < 1e-3 {
                    continue;
                }
            }
            assert_eq!(test_box(&l, &b), find_box(&l, &b).is_some(), "{l:?} {b:?}");
            // A component meets the ball iff it crosses the surface or lies inside.
            let inside = l.kind() == plumb_scene::intersect::LinearKind::Segment
                && (l.at(0.0) - s.center()).length() < s.radius();
            assert_eq!(
                test_sphere(&l, &s),
                find_sphere(&l, &s).is_some() || inside,
                "{l:?} {s:?}"
            );
            assert_eq!(
                test_triangle(&l, t[0], t[1], t[2]),
                find_triangle(&l, t[0], t[1], t[2]).is_some()
            );
            if let Some(h) = find_triangle(&l, t[0], t[1], t[2]) {
                let p = t[0] * h.barycentric[0] + t[1] * h.barycentric[1] + t[2] * h.barycentric[2];
                assert!((p - l.at(h.t)).length() < 1e-3, "{h:?}");
                agreed[1] += 1;
            }
            agreed[0] += 1;
        }
    }
    assert!(agreed[0] > 5000 && agreed[1] > 100, "{agreed:?}");
}

// ---------------------------------------------------------------- oriented boxes

/// Points of a box 4 × 2 × 0.5 turned by a known rotation and moved: the fit finds its axes
/// (up to sign), extents and centre.
#[test]
fn box_fit_recovers_a_turned_box() {
    let q = Quat::from_euler(glam::EulerRot::XYZ, 0.3, -0.7, 1.1);
    let r = Mat3::from_quat(q);
    let c = Vec3::new(1.0, -2.0, 3.0);
    let e = Vec3::new(2.0, 1.0, 0.25);
    let mut pts = Vec::new();
    for i in 0..=4 {
        for j in 0..=4 {
            for k in 0..=4 {
                let u = Vec3::new(i as f32, j as f32, k as f32) / 2.0 - Vec3::ONE;
                pts.push(c + r * (u * e));
            }
        }
    }
    let b = OrientedBox::from_points(&pts).unwrap();
    assert!((b.center() - c).length() < 1e-4, "{b:?}");
    assert!((b.extents() - e).abs().max_element() < 1e-4, "{b:?}");
    for (axis, want) in b.axes().iter().zip([r.x_axis, r.y_axis, r.z_axis]) {
        assert!(axis.dot(want).abs() > 1.0 - 1e-5, "{b:?}");
    }
    assert!(pts.iter().all(|&p| b.contains(p, 1e-4)));
}

/// Two unit cubes: apart along x by 2.1 they are separated; the second turned 45° about z
/// reaches √2 towards the first, so at 2.3 (< 1 + √2) they overlap, at 2.5 not.
#[test]
fn box_box_separating_axes() {
    let a = OrientedBox::from_min_max(-Vec3::ONE, Vec3::ONE).unwrap();
    let at = |x: f32, turn: bool| {
        let r = if turn {
            Mat3::from_rotation_z(std::f32::consts::FRAC_PI_4)
        } else {
            Mat3::IDENTITY
        };
        OrientedBox::new(
            Vec3::new(x, 0.0, 0.0),
            [r.x_axis, r.y_axis, r.z_axis],
            Vec3::ONE * 0.5,
        )
        .unwrap()
    };
    assert!(at(1.4, false).intersects(&a) && !at(1.6, false).intersects(&a));
    let reach = 1.0 + 0.5 * std::f32::consts::SQRT_2;
    assert!(at(reach - 0.01, true).intersects(&a) && !at(reach + 0.01, true).intersects(&a));
    assert!(a.intersects(&at(reach - 0.01, true)) && !a.intersects(&at(reach + 0.01, true)));
}

// ---------------------------------------------------------------- triangle vs triangle

/// Hand cases: the unit triangle against a vertical triangle through it gives the segment
/// where it crosses the plane z = 0; a coplanar overlapping copy gives a polygon; shifted off
/// the plane by 1e-3 nothing; touching at one vertex a single point.
#[test]
fn triangle_pairs_by_hand() {
    // The vertical triangle spans x ∈ [−1, 2] at y = 0.25, z ∈ [−1, 1]: it crosses z = 0
    // along y = 0.25 from x = −0.5 to 1.25, clipped by the unit triangle to x ∈ [0, 0.75].
    let v = [
        Vec3::new(-1.0, 0.25, -1.0),
        Vec3::new(2.0, 0.25, -1.0),
        Vec3::new(0.5, 0.25, 1.0),
    ];
    assert!(test_triangles(&UNIT, &v) && test_triangles(&v, &UNIT));
    let c = find_triangles(&UNIT, &v).unwrap();
    assert_eq!(c.count, 2, "{c:?}");
    let mut xs: Vec<f32> = c.points().iter().map(|p| p.x).collect();
    xs.sort_by(f32::total_cmp);
    assert!(close(xs[0], 0.0) && close(xs[1], 0.75), "{c:?}");
    assert!(c
        .points()
        .iter()
        .all(|p| close(p.y, 0.25) && close(p.z, 0.0)));
    assert_eq!(find_triangles(&v, &UNIT), Some(c), "symmetric, bit for bit");
    // Coplanar: the unit triangle moved by (0.5, 0, 0) overlaps in the triangle
    // (0.5,0) (1,0) (0.5,0.5) (area 1/8).
    let moved = UNIT.map(|p| p + Vec3::new(0.5, 0.0, 0.0));
    let c = find_triangles(&UNIT, &moved).unwrap();
    assert!(test_triangles(&UNIT, &moved));
    let area = polygon_area(c.points());
    assert!(close(area, 0.125), "{c:?} area {area}");
    // Parallel, 1e-3 apart: no hit.
    let lifted = UNIT.map(|p| p + Vec3::new(0.0, 0.0, 1e-3));
    assert!(!test_triangles(&UNIT, &lifted) && find_triangles(&UNIT, &lifted).is_none());
    // Coplanar but apart (across the hypotenuse).
    let across = [
        Vec3::new(1.0, 1.0, 0.0),
        Vec3::new(2.0, 1.0, 0.0),
        Vec3::new(1.0, 2.0, 0.0),
    ];
    assert!(!test_triangles(&UNIT, &across));
    // Touching at a vertex: a tetrahedron-like pair sharing (1, 0, 0).
    let touch = [Vec3::X, Vec3::new(2.0, 0.0, 1.0), Vec3::new(2.0, 1.0, -1.0)];
    assert!(test_triangles(&UNIT, &touch));
    let c = find_triangles(&UNIT, &touch).unwrap();
    assert!(
        c.points().iter().all(|p| (*p - Vec3::X).length() < 1e-6),
        "{c:?}"
    );
    // Degenerate triangles hit nothing.
    assert!(!test_triangles(
        &UNIT,
        &[Vec3::ZERO, Vec3::X, Vec3::X * 0.5]
    ));
}

fn polygon_area(p: &[Vec3]) -> f32 {
    let mut n = Vec3::ZERO;
    for i in 1..p.len().saturating_sub(1) {
        n += (p[i] - p[0]).cross(p[i + 1] - p[0]);
    }
    0.5 * n.length()
}

/// On random pairs, the SAT test agrees with a brute-force edge–triangle check (two
/// triangles in general position intersect iff an edge of one crosses the other), and
/// swapping the arguments changes nothing.
#[test]
fn triangle_test_matches_edge_crossings() {
    let mut rng = Rng::new(0x5eed_0002);
    let mut hits = 0;
    for _ in 0..20000 {
        let a = [
            rand_vec(&mut rng, 1.0),
            rand_vec(&mut rng, 1.0),
            rand_vec(&mut rng, 1.0),
        ];
        let off = rand_vec(&mut rng, 1.0);
        let b = [
            rand_vec(&mut rng, 1.0) + off,
            rand_vec(&mut rng, 1.0) + off,
            rand_vec(&mut rng, 1.0) + off,
        ];
        let edges_cross = |s: &[Vec3; 3], t: &[Vec3; 3]| {
            (0..3).any(|i| {
                let (p, q) = (s[i], s[(i + 1) % 3]);
                Linear::segment(p, q)
                    .map(|l| test_triangle(&l, t[0], t[1], t[2]))
                    .unwrap_or(false)
            })
        };
        let brute = edges_cross(&a, &b) || edges_cross(&b, &a);
        let sat = test_triangles(&a, &b);
        assert_eq!(sat, test_triangles(&b, &a));
        assert_eq!(find_triangles(&a, &b), find_triangles(&b, &a));
        if sat != brute {
            // Only within rounding of touching: check the pair is nearly touching.
            let grow = |t: &[Vec3; 3]| {
                let c = (t[0] + t[1] + t[2]) / 3.0;
                t.map(|p| c + (p - c) * 1.001)
            };
            let shrink = |t: &[Vec3; 3]| {
                let c = (t[0] + t[1] + t[2]) / 3.0;
                t.map(|p| c + (p - c) * 0.999)
            };
            assert!(
                test_triangles(&grow(&a), &grow(&b)) && !test_triangles(&shrink(&a), &shrink(&b)),
                "sat {sat} brute {brute}: {a:?} {b:?}"
            );
        }
        if sat {
            hits += 1;
            let c = find_triangles(&a, &b).expect("find agrees with test");
            // Every point of the intersection set lies in both triangles.
            for &p in c.points() {
                assert!(in_triangle(p, &a) && in_triangle(p, &b), "{p} {a:?} {b:?}");
            }
        }
    }
    assert!(hits > 1000, "{hits}");
}

fn in_triangle(p: Vec3, t: &[Vec3; 3]) -> bool {
    let n = (t[1] - t[0]).cross(t[2] - t[0]);
    let tol = 1e-4 * (1.0 + n.length());
    if (p - t[0]).dot(n).abs() > tol * n.length() {
        return false;
    }
    (0..3).all(|i| (t[(i + 1) % 3] - t[i]).cross(p - t[i]).dot(n) >= -tol * n.length())
}

// ---------------------------------------------------------------- bounding-volume trees

/// plumb's seeded xorshift.
use plumb_raster::rng::XorShift64 as Rng;

/// A vector uniform in the cube of half-size `scale`.
fn rand_vec(rng: &mut Rng, scale: f32) -> Vec3 {
    Vec3::new(
        rng.next_f32() - 0.5,
        rng.next_f32() - 0.5,
        rng.next_f32() - 0.5,
    ) * (2.0 * scale)
}

/// A random soup of `n` small triangles in a cube of half-size 2.
fn soup(rng: &mut Rng, n: usize) -> Mesh {
    let mut p = Vec::new();
    for _ in 0..n {
        let c = rand_vec(rng, 2.0);
        for _ in 0..3 {
            p.push(c + rand_vec(rng, 0.4));
        }
    }
    Mesh::triangles(p, (0..3 * n as u32).collect()).unwrap()
}

/// The oracle: every pair of world triangles, tested directly.
fn brute_force(a: &Collider, b: &Collider) -> Vec<TrianglePair> {
    let mut out = Vec::new();
    for i in 0..a.mesh().triangle_count() as u32 {
        let ta = a.world_triangle(i).unwrap();
        for j in 0..b.mesh().triangle_count() as u32 {
            if test_triangles(&ta, &b.world_triangle(j).unwrap()) {
                out.push(TrianglePair { a: i, b: j });
            }
        }
    }
    out
}

fn random_transform(rng: &mut Rng, general: bool) -> Transform {
    let q = Quat::from_axis_angle(rand_vec(rng, 1.0).normalize(), rng.next_f32() * 6.0);
    let t = rand_vec(rng, 0.7);
    if general {
        let s = Vec3::new(
            0.5 + rng.next_f32(),
            0.5 + rng.next_f32(),
            0.5 + rng.next_f32(),
        );
        Transform::from_srt(s, q, t).unwrap()
    } else {
        Transform::from_srt(Vec3::splat(0.5 + rng.next_f32()), q, t).unwrap()
    }
}

/// BV trees (spheres and boxes, leaf sizes 1 and 4, uniform and non-uniform scale) report
/// exactly the pairs brute force finds, on seeded random soups and on a sphere against a
/// torus; first-hit reports one of them; swapping the arguments mirrors the result.
#[test]
fn trees_equal_brute_force() {
    let mut rng = Rng::new(0x5eed_0003);
    let mut total = 0;
    for round in 0..12 {
        let (ma, mb) = if round % 3 == 2 {
            (
                shapes::sphere(1.0, 10, 14).unwrap(),
                shapes::torus(1.0, 0.3, 16, 8).unwrap(),
            )
        } else {
            (soup(&mut rng, 150), soup(&mut rng, 120))
        };
        let (ma, mb) = (Arc::new(ma), Arc::new(mb));
        let ta = random_transform(&mut rng, round % 2 == 1);
        let tb = random_transform(&mut rng, round % 4 == 1);
        for kind in [BvKind::Sphere, BvKind::Box] {
            for leaf in [1, 4] {
                let opts = BvTreeOptions {
                    kind,
                    max_triangles_per_leaf: leaf,
                };
                let a = Collider::new(ma.clone(), opts)
                    .unwrap()
                    .with_world_from_local(ta);
                let b = Collider::new(mb.clone(), opts)
                    .unwrap()
                    .with_world_from_local(tb);
                let want = brute_force(&a, &b);
                let (got, stats) = collide_with_stats(&a, &b, CollideMode::AllHits);
                assert_eq!(got, want, "round {round} {kind:?} leaf {leaf}");
                let n_pairs = a.mesh().triangle_count() * b.mesh().triangle_count();
                assert!(stats.triangle_tests < n_pairs, "{stats:?} of {n_pairs}");
                let back: Vec<TrianglePair> = collide(&b, &a, CollideMode::AllHits)
                    .into_iter()
                    .map(TrianglePair::mirrored)
                    .collect();
                let mut back = back;
                back.sort();
                assert_eq!(back, want, "symmetry");
                let first = collide(&a, &b, CollideMode::FirstHit);
                let first_back = collide(&b, &a, CollideMode::FirstHit);
                assert_eq!(first.len(), usize::from(!want.is_empty()));
                assert_eq!(
                    first,
                    first_back.iter().map(|p| p.mirrored()).collect::<Vec<_>>()
                );
                if let Some(p) = first.first() {
                    assert!(want.contains(p));
                }
                let found = collide_find(&a, &b, CollideMode::AllHits);
                assert_eq!(found.iter().map(|h| h.0).collect::<Vec<_>>(), want);
                total += want.len();
            }
        }
    }
    assert!(total > 200, "the rounds must collide: {total}");
}

/// Trees are built by median splits: depth ⌈log₂ n⌉ + 1 for leaves of one triangle, every
/// node's volume holds its triangles' vertices, and the leaves partition the triangles.
#[test]
fn tree_shape_and_containment() {
    let mut rng = Rng::new(0x5eed_0004);
    let mesh = soup(&mut rng, 1000);
    for kind in [BvKind::Sphere, BvKind::Box] {
        let opts = BvTreeOptions {
            kind,
            max_triangles_per_leaf: 1,
        };
        let c = Collider::new(Arc::new(mesh.clone()), opts).unwrap();
        let tree = c.tree();
        assert_eq!(tree.depth(), 11); // ⌈log₂ 1000⌉ = 10 splits
        assert_eq!(tree.nodes().len(), 2 * 1000 - 1);
        let mut seen = tree.triangles().to_vec();
        seen.sort();
        assert_eq!(seen, (0..1000).collect::<Vec<u32>>());
        for node in tree.nodes() {
            let tris = &tree.triangles()[node.first as usize..(node.first + node.count) as usize];
            for &t in tris {
                for p in mesh.triangle(t as usize).unwrap() {
                    let inside = match node.volume {
                        plumb_scene::collide::BoundingVolume::Sphere(s) => {
                            (p - s.center()).length() <= s.radius()
                        }
                        plumb_scene::collide::BoundingVolume::Box(b) => b.contains(p, 0.0),
                    };
                    assert!(inside, "{kind:?} {node:?} {p}");
                }
            }
            if let Some([l, r]) = node.children {
                let (l, r) = (&tree.nodes()[l as usize], &tree.nodes()[r as usize]);
                assert_eq!(l.count + r.count, node.count);
                assert!(l.count.abs_diff(r.count) <= 1, "median split");
            }
        }
    }
}

/// Seed 000: hierarchies whose root volumes are apart report nothing and visit no children —
/// one volume test, no triangle test.
#[test]
fn apart_roots_visit_no_children() {
    let m = Arc::new(shapes::sphere(1.0, 8, 8).unwrap());
    for kind in [BvKind::Sphere, BvKind::Box] {
        let opts = BvTreeOptions {
            kind,
            max_triangles_per_leaf: 1,
        };
        let a = Collider::new(m.clone(), opts).unwrap();
        let b = Collider::new(m.clone(), opts)
            .unwrap()
            .with_world_from_local(Transform::from_translation(Vec3::new(2.5, 0.0, 0.0)).unwrap());
        let (hits, stats) = collide_with_stats(&a, &b, CollideMode::AllHits);
        assert!(hits.is_empty());
        assert_eq!(
            stats,
            CollideStats {
                volume_tests: 1,
                triangle_tests: 0
            }
        );
    }
}

/// Refusals: a line mesh, a zero leaf size.
#[test]
fn bad_collider_input_is_an_error() {
    let lines = Mesh::polyline(vec![Vec3::ZERO, Vec3::X], false).unwrap();
    assert!(matches!(
        Collider::new(Arc::new(lines), BvTreeOptions::default()),
        Err(SceneError::InvalidArgument { .. })
    ));
    let opts = BvTreeOptions {
        kind: BvKind::Box,
        max_triangles_per_leaf: 0,
    };
    assert!(Collider::new(Arc::new(Mesh::cube()), opts).is_err());
    // An empty mesh collides with nothing.
    let empty = Mesh::triangles(vec![], vec![]).unwrap();
    let e = Collider::new(Arc::new(empty), BvTreeOptions::default()).unwrap();
    let c = Collider::new(Arc::new(Mesh::cube()), BvTreeOptions::default()).unwrap();
    assert!(collide(&e, &c, CollideMode::AllHits).is_empty());
}

/// A group of three: a cube overlapping two others that are apart. Each hit pair reaches
/// the callback from both sides, mirrored, in pair order; first-hit gives one per pair.
#[test]
fn group_callbacks_fire_for_both_sides() {
    let cube = Arc::new(Mesh::cube());
    let at = |x: f32| {
        Collider::new(cube.clone(), BvTreeOptions::default())
            .unwrap()
            .with_world_from_local(Transform::from_translation(Vec3::new(x, 0.3, 0.2)).unwrap())
    };
    let mut group = CollisionGroup::new();
    group.add(at(0.0));
    group.add(at(0.7));
    group.add(at(-0.7));
    let mut seen = Vec::new();
    group.test(CollideMode::AllHits, |c| seen.push(*c));
    let n = |i: usize, j: usize| seen.iter().filter(|c| c.this == i && c.other == j).count();
    assert!(n(0, 1) > 0 && n(0, 1) == n(1, 0) && n(0, 2) == n(2, 0) && n(0, 2) > 0);
    assert_eq!(n(1, 2) + n(2, 1), 0, "cubes 1 and 2 are 1.4 apart");
    for pair in seen.chunks(2) {
        assert_eq!(pair[0].this, pair[1].other);
        assert_eq!(pair[0].this_triangle, pair[1].other_triangle);
        assert_eq!(pair[0].other_triangle, pair[1].this_triangle);
    }
    let direct = collide(
        &group.colliders()[0],
        &group.colliders()[1],
        CollideMode::AllHits,
    );
    assert_eq!(n(0, 1), direct.len());
    let mut first = Vec::new();
    group.find(CollideMode::FirstHit, |c| first.push(*c));
    assert_eq!(first.len(), 4, "one hit per colliding pair, reported twice");
    assert!(first.iter().all(|c| c.contact.is_some()));
}

/// A collider from a scene leaf takes the leaf's world transform.
#[test]
fn collider_from_scene_uses_world_transform() {
    let mut scene = Scene::new();
    let root = scene.root();
    let g = scene.add_group(root, "moved").unwrap();
    scene.set_translation(g, Vec3::new(5.0, 0.0, 0.0)).unwrap();
    let leaf = scene
        .add_geometry(g, "cube", Arc::new(Mesh::cube()))
        .unwrap();
    let other = scene
        .add_geometry(root, "origin", Arc::new(Mesh::cube()))
        .unwrap();
    scene.update(0.0);
    let a = Collider::from_scene(&scene, leaf, BvTreeOptions::default()).unwrap();
    let b = Collider::from_scene(&scene, other, BvTreeOptions::default()).unwrap();
    assert_eq!(a.world_from_local().translation(), Vec3::new(5.0, 0.0, 0.0));
    assert!(collide(&a, &b, CollideMode::AllHits).is_empty());
    assert!(Collider::from_scene(&scene, g, BvTreeOptions::default()).is_err());
}
