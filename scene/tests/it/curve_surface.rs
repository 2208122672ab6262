//! Curves and surfaces tessellated by subdivision (book-advanced §1.10): exact counts per
//! level (book L10150, L10187), new vertices at the parameter midpoints, averaged attributes,
//! dynamic change and the level caps. Expected values are derived by hand in the comments.

use glam::{Vec2, Vec3, Vec4};
use plumb_scene::curve::{BezierCurve, CurveMesh, CurveSegment, MAX_CURVE_VERTICES};
use plumb_scene::surface::{
    BezierRectangle, BezierTriangle, SurfaceMesh, SurfacePatch, MAX_SURFACE_TRIANGLES,
};
use plumb_scene::SceneError;

fn arch() -> BezierCurve {
    BezierCurve::new(vec![
        Vec3::ZERO,
        Vec3::new(1.0, 2.0, 0.0),
        Vec3::new(3.0, 2.0, 0.0),
        Vec3::new(4.0, 0.0, 0.0),
    ])
    .unwrap()
}

fn close(a: Vec3, b: Vec3) {
    assert!((a - b).length() < 1e-5, "{a} vs {b}");
}

#[test]
fn curve_counts_per_level() {
    // One segment: V_L = 2^L + 1, E_L = 2^L; two segments: 2·2^L + 1 and 2·2^L.
    let mut one = CurveMesh::new(vec![arch()], vec![[0.0, 1.0]]).unwrap();
    let mut two = CurveMesh::new(vec![arch(), arch()], vec![[0.0, 0.5], [0.5, 1.0]]).unwrap();
    for (level, v1, v2) in [(0, 2, 3), (1, 3, 5), (2, 5, 9), (3, 9, 17), (6, 65, 129)] {
        one.set_level(level).unwrap();
        two.set_level(level).unwrap();
        assert_eq!((one.vertices().len(), one.edge_count()), (v1, v1 - 1));
        assert_eq!((two.vertices().len(), two.edge_count()), (v2, v2 - 1));
        assert_eq!(one.polyline().len(), v1);
        assert_eq!(one.to_mesh().unwrap().positions().len(), v1);
    }
}

#[test]
fn curve_vertices_are_the_curve_at_parameter_midpoints() {
    let mut c = CurveMesh::new(vec![arch()], vec![[0.0, 1.0]]).unwrap();
    c.set_level(2).unwrap();
    // Level 0: P(0), P(1). Level 1 appends P(1/2) (vertex 2). Level 2 splits the edges
    // (0,2) and (2,1) into vertices 3 = P(1/4) and 4 = P(3/4); the polyline is 0, 3, 2, 4, 1.
    assert_eq!(c.polyline(), &[0, 3, 2, 4, 1]);
    let u: Vec<f32> = c.parameters().iter().map(|p| p.1).collect();
    assert_eq!(u, vec![0.0, 1.0, 0.5, 0.25, 0.75]);
    // Cubic Bernstein weights at 1/2: (1, 3, 3, 1)/8 → x = (3·1 + 3·3 + 4)/8 = 2,
    // y = (3·2 + 3·2)/8 = 1.5. At 1/4: (27, 27, 9, 1)/64 → x = (27 + 27 + 4)/64,
    // y = (54 + 18)/64.
    let v = c.vertices();
    close(v[0], Vec3::ZERO);
    close(v[1], Vec3::new(4.0, 0.0, 0.0));
    close(v[2], Vec3::new(2.0, 1.5, 0.0));
    close(v[3], Vec3::new(58.0 / 64.0, 72.0 / 64.0, 0.0));
    // By symmetry P(3/4) mirrors P(1/4) about x = 2.
    close(v[4], Vec3::new(4.0 - 58.0 / 64.0, 72.0 / 64.0, 0.0));
    // The derivative at 1/2: 3·((P1 − P0)/4 + 2·(P2 − P1)/4 + (P3 − P2)/4) = (4.5, 0, 0).
    close(arch().pu(0.5), Vec3::new(4.5, 0.0, 0.0));
    close(arch().tangent(0.5), Vec3::X);
}

#[test]
fn curve_attributes_average_their_parents() {
    let mut c = CurveMesh::new(vec![arch()], vec![[0.0, 1.0]]).unwrap();
    c.set_level(2).unwrap();
    let red = Vec4::new(1.0, 0.0, 0.0, 1.0);
    let blue = Vec4::new(0.0, 0.0, 1.0, 1.0);
    let col = c.attributes(&[red, blue]).unwrap();
    assert_eq!(col.len(), 5);
    assert_eq!(col[2], Vec4::new(0.5, 0.0, 0.5, 1.0));
    assert_eq!(col[3], Vec4::new(0.75, 0.0, 0.25, 1.0));
    assert_eq!(col[4], Vec4::new(0.25, 0.0, 0.75, 1.0));
    assert_eq!(c.vertex_tree()[3], [0, 2]);
    assert!(matches!(
        c.attributes(&[red]),
        Err(SceneError::AttributeLength { .. })
    ));
}

#[test]
fn curve_dynamic_change_re_evaluates_every_vertex() {
    let mut c = CurveMesh::new(vec![arch()], vec![[0.0, 1.0]]).unwrap();
    c.set_level(1).unwrap();
    c.segment_mut(0)
        .unwrap()
        .set_control_point(1, Vec3::new(1.0, 4.0, 0.0))
        .unwrap();
    c.on_dynamic_change().unwrap();
    // y(1/2) = (3·4 + 3·2)/8 = 2.25; x unchanged.
    close(c.vertices()[2], Vec3::new(2.0, 2.25, 0.0));
    // Changing the level keeps the moved point.
    c.set_level(2).unwrap();
    close(c.vertices()[2], Vec3::new(2.0, 2.25, 0.0));
}

#[test]
fn curve_bad_input_and_level_cap() {
    assert!(BezierCurve::new(vec![Vec3::ZERO]).is_err());
    assert!(BezierCurve::new(vec![Vec3::ZERO; 17]).is_err());
    assert!(matches!(
        BezierCurve::new(vec![Vec3::ZERO, Vec3::splat(f32::INFINITY)]),
        Err(SceneError::NonFinite { .. })
    ));
    assert!(CurveMesh::new(vec![arch()], vec![]).is_err());
    assert!(CurveMesh::<BezierCurve>::new(vec![], vec![]).is_err());
    assert!(CurveMesh::new(vec![arch()], vec![[0.5, 0.5]]).is_err());
    assert!(CurveMesh::new(vec![arch()], vec![[0.0, 2.0]]).is_err());
    assert!(CurveMesh::new(vec![arch()], vec![[f32::NAN, 1.0]]).is_err());
    let mut c = CurveMesh::new(vec![arch()], vec![[0.0, 1.0]]).unwrap();
    // 2^20 edges would make 2^20 + 1 vertices > MAX_CURVE_VERTICES = 2^20.
    assert_eq!(MAX_CURVE_VERTICES, 1 << 20);
    for level in [20, 64, u32::MAX] {
        let e = c.set_level(level).unwrap_err();
        assert!(matches!(e, SceneError::InvalidArgument { .. }), "{e}");
    }
    assert_eq!(c.level(), 0);
    assert_eq!(c.vertices().len(), 2);
}

fn flat_square() -> BezierRectangle {
    // Bilinear: P(u, v) = (u, v, 0).
    BezierRectangle::new(
        [1, 1],
        vec![Vec3::ZERO, Vec3::X, Vec3::Y, Vec3::new(1.0, 1.0, 0.0)],
    )
    .unwrap()
}

#[test]
fn rectangle_counts_per_level() {
    // V₀ = 4, E₀ = 5, T₀ = 2; V' = V + E, E' = 2E + 3T, T' = 4T:
    // (4, 5, 2) → (9, 16, 8) → (25, 56, 32) → (81, 208, 128) → (289, 800, 512).
    let mut s = SurfaceMesh::single(flat_square()).unwrap();
    for (level, v, e, t) in [
        (0, 4, 5, 2),
        (1, 9, 16, 8),
        (2, 25, 56, 32),
        (3, 81, 208, 128),
        (4, 289, 800, 512),
    ] {
        s.set_level(level).unwrap();
        assert_eq!(
            (s.vertices().len(), s.edge_count(), s.indices().len() / 3),
            (v, e, t),
            "level {level}"
        );
    }
    // Level 3 of the bilinear square is the 9×9 grid of multiples of 1/8.
    s.set_level(3).unwrap();
    let mut grid: Vec<(i32, i32)> = s
        .vertices()
        .iter()
        .map(|p| ((p.x * 8.0) as i32, (p.y * 8.0) as i32))
        .collect();
    grid.sort_unstable();
    let want: Vec<(i32, i32)> = (0..9).flat_map(|x| (0..9).map(move |y| (x, y))).collect();
    assert_eq!(grid, want);
    assert!(s.normals().iter().all(|n| *n == Vec3::Z));
}

#[test]
fn triangle_patch_counts_per_level() {
    // V₀ = 3, E₀ = 3, T₀ = 1 → (6, 9, 4) → (15, 30, 16) → (45, 108, 64).
    let t = BezierTriangle::new(1, vec![Vec3::ZERO, Vec3::X, Vec3::Y]).unwrap();
    let mut s = SurfaceMesh::single(t).unwrap();
    for (level, v, e, tr) in [
        (0, 3, 3, 1),
        (1, 6, 9, 4),
        (2, 15, 30, 16),
        (3, 45, 108, 64),
    ] {
        s.set_level(level).unwrap();
        assert_eq!(
            (s.vertices().len(), s.edge_count(), s.indices().len() / 3),
            (v, e, tr)
        );
    }
}

fn bump() -> BezierRectangle {
    // Bicubic on a regular 4×4 net (so x = u, y = v), the four middle points lifted to z = 1.
    let mut p = Vec::new();
    for j in 0..4 {
        for i in 0..4 {
            let z = if (1..3).contains(&i) && (1..3).contains(&j) {
                1.0
            } else {
                0.0
            };
            p.push(Vec3::new(i as f32 / 3.0, j as f32 / 3.0, z));
        }
    }
    BezierRectangle::new([3, 3], p).unwrap()
}

#[test]
fn surface_vertices_are_the_patch_at_midpoints() {
    let mut s = SurfaceMesh::single(bump()).unwrap();
    s.set_level(1).unwrap();
    // The centre (1/2, 1/2) is the midpoint of the diagonal (0, 2) of the two triangles.
    // z there = (3/8 + 3/8)² = 0.5625 (cubic Bernstein weights (1, 3, 3, 1)/8 each way).
    let centre = s
        .parameters()
        .iter()
        .position(|p| p.1 == Vec2::new(0.5, 0.5))
        .unwrap();
    assert_eq!(s.vertex_tree()[centre], [0, 2]);
    close(s.vertices()[centre], Vec3::new(0.5, 0.5, 0.5625));
    // The centre is the top of a symmetric bump: the normal is +z.
    close(s.normals()[centre], Vec3::Z);
    // Edge midpoint (1/2, 0): z = 0 (the v = 0 row is flat), y = 0, x = 1/2.
    let edge = s
        .parameters()
        .iter()
        .position(|p| p.1 == Vec2::new(0.5, 0.0))
        .unwrap();
    close(s.vertices()[edge], Vec3::new(0.5, 0.0, 0.0));
    // Colours: the centre averages corners 0 and 2.
    let c = [
        Vec4::new(1.0, 0.0, 0.0, 1.0),
        Vec4::ZERO,
        Vec4::new(0.0, 0.0, 1.0, 1.0),
        Vec4::ZERO,
    ];
    let col = s.attributes(&c).unwrap();
    assert_eq!(col[centre], Vec4::new(0.5, 0.0, 0.5, 1.0));
    assert_eq!(col.len(), 9);
}

#[test]
fn triangle_patch_position_and_derivatives() {
    // Degree 2 on a regular net (x = u, y = v), b₁₁₀ lifted to z = 1: z = 2·u·v.
    let t = BezierTriangle::new(
        2,
        vec![
            Vec3::ZERO,
            Vec3::new(0.5, 0.0, 0.0),
            Vec3::X,
            Vec3::new(0.0, 0.5, 0.0),
            Vec3::new(0.5, 0.5, 1.0),
            Vec3::Y,
        ],
    )
    .unwrap();
    let uv = Vec2::splat(1.0 / 3.0);
    close(t.p(uv), Vec3::new(1.0 / 3.0, 1.0 / 3.0, 2.0 / 9.0));
    let (pu, pv) = t.derivatives(uv);
    close(pu, Vec3::new(1.0, 0.0, 2.0 / 3.0));
    close(pv, Vec3::new(0.0, 1.0, 2.0 / 3.0));
    assert_eq!(t.control_point(1, 1), Some(Vec3::new(0.5, 0.5, 1.0)));
}

#[test]
fn surface_dynamic_change() {
    let mut s = SurfaceMesh::single(flat_square()).unwrap();
    s.set_level(1).unwrap();
    s.patch_mut(0)
        .unwrap()
        .set_control_point(1, 1, Vec3::new(1.0, 1.0, 4.0))
        .unwrap();
    s.on_dynamic_change().unwrap();
    // Bilinear: z(u, v) = 4·u·v → at the centre 1.
    let centre = s
        .parameters()
        .iter()
        .position(|p| p.1 == Vec2::new(0.5, 0.5))
        .unwrap();
    close(s.vertices()[centre], Vec3::new(0.5, 0.5, 1.0));
}

#[test]
fn surface_bad_input_and_level_cap() {
    assert!(BezierRectangle::new([3, 3], vec![Vec3::ZERO; 15]).is_err());
    assert!(BezierRectangle::new([0, 3], vec![Vec3::ZERO; 4]).is_err());
    assert!(BezierRectangle::new([1, 1], vec![Vec3::splat(f32::NAN); 4]).is_err());
    assert!(BezierTriangle::new(2, vec![Vec3::ZERO; 5]).is_err());
    let sq = || flat_square();
    assert!(SurfaceMesh::new(vec![sq()], &[0, 1], &[0], &[Vec2::ZERO; 3]).is_err());
    assert!(SurfaceMesh::new(vec![sq()], &[0, 1, 2], &[1], &[Vec2::ZERO; 3]).is_err());
    assert!(SurfaceMesh::new(vec![sq()], &[0, 1, 3], &[0], &[Vec2::ZERO; 3]).is_err());
    assert!(SurfaceMesh::new(vec![sq()], &[0, 1, 1], &[0], &[Vec2::ZERO; 3]).is_err());
    let mut s = SurfaceMesh::single(sq()).unwrap();
    // 2·4^L ≤ 2^18 holds up to L = 8.
    assert_eq!(MAX_SURFACE_TRIANGLES, 1 << 18);
    assert_eq!(s.triangle_count_at(8), Some(2 << 16));
    for level in [9, 40, u32::MAX] {
        assert!(s.set_level(level).is_err());
    }
    assert_eq!(s.level(), 0);
    assert_eq!(s.vertices().len(), 4);
}
