//! Continuous LOD (book-advanced §1.4): the book's 16-gon, collapse records on hand-checked
//! and random meshes, the run-time target record.
//!
//! Book values cite `/work/shared/seeds/001_73a16da8e1100462.txt` by line.

use glam::{Vec2, Vec3, Vec4};
use plumb_raster::math;
use plumb_scene::clod::{
    polyline_removal_order, polyline_weight, target_record_for_depth, ClodMesh, PolylineClod,
};
use plumb_scene::clod_build::CreateClodMesh;
use plumb_scene::{Mesh, SceneError};
use proptest::prelude::*;

/// The amplitudes of the book's 16-gon (L8800; the book writes 115.4370 and 116.1420).
const AMPLITUDES: [f32; 16] = [
    75.0626, 103.1793, 84.6652, 115.437, 104.2505, 98.9937, 92.5146, 119.7981, 116.142, 112.3302,
    83.7054, 117.9472, 110.5251, 100.6768, 90.1997, 75.7492,
];

fn sixteen_gon() -> Vec<Vec3> {
    (0..16)
        .map(|k| {
            let a = 2.0 * std::f32::consts::PI * k as f32 / 16.0;
            let (s, c) = math::sin_cos(a);
            Vec3::new(AMPLITUDES[k] * c, AMPLITUDES[k] * s, 0.0)
        })
        .collect()
}

#[test]
fn sixteen_gon_removal_order_is_the_books() {
    // L8909: V15, V4, V0, V14, V6, V5, V8, V12, V2, V13, V10, V9, V1; V7, V3, V11 remain.
    let order = polyline_removal_order(&sixteen_gon(), true).unwrap();
    assert_eq!(&order[..13], &[15, 4, 0, 14, 6, 5, 8, 12, 2, 13, 10, 9, 1]);
    let mut rest = order[13..].to_vec();
    rest.sort_unstable();
    assert_eq!(rest, vec![3, 7, 11]);
    // L8973: the vertex indices ordered from last removed to first removed.
    let c = PolylineClod::closed(&sixteen_gon()).unwrap().collapse;
    assert_eq!(
        c,
        vec![3, 11, 7, 1, 9, 10, 13, 2, 12, 8, 5, 6, 14, 0, 4, 15]
    );
}

#[test]
fn sixteen_gon_weights_match_the_books_figures() {
    // The book's figures print eq. 4.1's weights times 10⁴ (L8866: V14 187.79 → 164.52 and
    // V0 52.65 → 52.77 after V15 goes; L8876: V3 1435.54 → 1492.74, V5 120.11 → 157.11
    // after V4; L8886–8888: V14 164.52 → 65.80, V1 2258.57 → 791.10 after V0).
    let x = sixteen_gon();
    let w = |l: usize, i: usize, r: usize| polyline_weight(x[l], x[i], x[r]) * 1e4;
    // The book prints two decimals of its own float arithmetic (1435.54 where f64 gives
    // 1435.5305): agree within 0.02.
    let close =
        |got: f64, want: f64| assert!((got - want).abs() < 0.02, "{got} vs the book's {want}");
    close(w(13, 14, 15), 187.79);
    close(w(13, 14, 0), 164.52);
    close(w(15, 0, 1), 52.65);
    close(w(14, 0, 1), 52.77);
    close(w(2, 3, 4), 1435.54);
    close(w(2, 3, 5), 1492.74);
    close(w(4, 5, 6), 120.11);
    close(w(3, 5, 6), 157.11);
    close(w(13, 14, 1), 65.80);
    close(w(0, 1, 2), 2258.57);
    close(w(14, 1, 2), 791.10);
}

type Row = (usize, usize, &'static [(u32, u32)]);

/// Table 4.1 (L8947–8960): removed vertex, mapping index, the active edges.
const TABLE_4_1: &[Row] = &[
    (
        15,
        25,
        &[
            (3, 4),
            (11, 12),
            (7, 8),
            (1, 2),
            (9, 10),
            (10, 11),
            (13, 14),
            (2, 3),
            (12, 13),
            (8, 9),
            (5, 6),
            (6, 7),
            (14, 0),
            (0, 1),
            (4, 5),
        ],
    ),
    (
        4,
        1,
        &[
            (3, 5),
            (11, 12),
            (7, 8),
            (1, 2),
            (9, 10),
            (10, 11),
            (13, 14),
            (2, 3),
            (12, 13),
            (8, 9),
            (5, 6),
            (6, 7),
            (14, 0),
            (0, 1),
        ],
    ),
    (
        0,
        25,
        &[
            (3, 5),
            (11, 12),
            (7, 8),
            (1, 2),
            (9, 10),
            (10, 11),
            (13, 14),
            (2, 3),
            (12, 13),
            (8, 9),
            (5, 6),
            (6, 7),
            (14, 1),
        ],
    ),
    (
        14,
        13,
        &[
            (3, 5),
            (11, 12),
            (7, 8),
            (1, 2),
            (9, 10),
            (10, 11),
            (13, 1),
            (2, 3),
            (12, 13),
            (8, 9),
            (5, 6),
            (6, 7),
        ],
    ),
    (
        6,
        21,
        &[
            (3, 5),
            (11, 12),
            (7, 8),
            (1, 2),
            (9, 10),
            (10, 11),
            (13, 1),
            (2, 3),
            (12, 13),
            (8, 9),
            (5, 7),
        ],
    ),
    (
        5,
        1,
        &[
            (3, 7),
            (11, 12),
            (7, 8),
            (1, 2),
            (9, 10),
            (10, 11),
            (13, 1),
            (2, 3),
            (12, 13),
            (8, 9),
        ],
    ),
    (
        8,
        5,
        &[
            (3, 7),
            (11, 12),
            (7, 9),
            (1, 2),
            (9, 10),
            (10, 11),
            (13, 1),
            (2, 3),
            (12, 13),
        ],
    ),
    (
        12,
        3,
        &[
            (3, 7),
            (11, 13),
            (7, 9),
            (1, 2),
            (9, 10),
            (10, 11),
            (13, 1),
            (2, 3),
        ],
    ),
    (
        2,
        7,
        &[(3, 7), (11, 13), (7, 9), (1, 3), (9, 10), (10, 11), (13, 1)],
    ),
    (13, 3, &[(3, 7), (11, 1), (7, 9), (1, 3), (9, 10), (10, 11)]),
    (10, 9, &[(3, 7), (11, 1), (7, 9), (1, 3), (9, 11)]),
    (9, 5, &[(3, 7), (11, 1), (7, 11), (1, 3)]),
    (1, 3, &[(3, 7), (11, 3), (7, 11)]),
];

/// Table 4.2 (L8985–9012): the same after reindexing by `d` (vertex `d[c_k] = k`; the OCR of
/// the vertex column is garbled in places, the values are 15 down to 3).
const TABLE_4_2: &[Row] = &[
    (
        15,
        25,
        &[
            (0, 14),
            (1, 8),
            (2, 9),
            (3, 7),
            (4, 5),
            (5, 1),
            (6, 12),
            (7, 0),
            (8, 6),
            (9, 4),
            (10, 11),
            (11, 2),
            (12, 13),
            (13, 3),
            (14, 10),
        ],
    ),
    (
        14,
        1,
        &[
            (0, 10),
            (1, 8),
            (2, 9),
            (3, 7),
            (4, 5),
            (5, 1),
            (6, 12),
            (7, 0),
            (8, 6),
            (9, 4),
            (10, 11),
            (11, 2),
            (12, 13),
            (13, 3),
        ],
    ),
    (
        13,
        25,
        &[
            (0, 10),
            (1, 8),
            (2, 9),
            (3, 7),
            (4, 5),
            (5, 1),
            (6, 12),
            (7, 0),
            (8, 6),
            (9, 4),
            (10, 11),
            (11, 2),
            (12, 3),
        ],
    ),
    (
        12,
        13,
        &[
            (0, 10),
            (1, 8),
            (2, 9),
            (3, 7),
            (4, 5),
            (5, 1),
            (6, 3),
            (7, 0),
            (8, 6),
            (9, 4),
            (10, 11),
            (11, 2),
        ],
    ),
    (
        11,
        21,
        &[
            (0, 10),
            (1, 8),
            (2, 9),
            (3, 7),
            (4, 5),
            (5, 1),
            (6, 3),
            (7, 0),
            (8, 6),
            (9, 4),
            (10, 2),
        ],
    ),
    (
        10,
        1,
        &[
            (0, 2),
            (1, 8),
            (2, 9),
            (3, 7),
            (4, 5),
            (5, 1),
            (6, 3),
            (7, 0),
            (8, 6),
            (9, 4),
        ],
    ),
    (
        9,
        5,
        &[
            (0, 2),
            (1, 8),
            (2, 4),
            (3, 7),
            (4, 5),
            (5, 1),
            (6, 3),
            (7, 0),
            (8, 6),
        ],
    ),
    (
        8,
        3,
        &[
            (0, 2),
            (1, 6),
            (2, 4),
            (3, 7),
            (4, 5),
            (5, 1),
            (6, 3),
            (7, 0),
        ],
    ),
    (
        7,
        7,
        &[(0, 2), (1, 6), (2, 4), (3, 0), (4, 5), (5, 1), (6, 3)],
    ),
    (6, 3, &[(0, 2), (1, 3), (2, 4), (3, 0), (4, 5), (5, 1)]),
    (5, 9, &[(0, 2), (1, 3), (2, 4), (3, 0), (4, 1)]),
    (4, 5, &[(0, 2), (1, 3), (2, 1), (3, 0)]),
    (3, 3, &[(0, 2), (1, 0), (2, 1)]),
];

fn flat(pairs: &[(u32, u32)]) -> Vec<u32> {
    pairs.iter().flat_map(|&(a, b)| [a, b]).collect()
}

#[test]
fn sixteen_gon_edge_table_4_1() {
    let mut p = PolylineClod::closed(&sixteen_gon()).unwrap();
    // L8975: the initial edge array.
    let initial = [
        (3, 4),
        (11, 12),
        (7, 8),
        (1, 2),
        (9, 10),
        (10, 11),
        (13, 14),
        (2, 3),
        (12, 13),
        (8, 9),
        (5, 6),
        (6, 7),
        (14, 15),
        (0, 1),
        (4, 5),
        (15, 0),
    ];
    assert_eq!(p.initial_edges, flat(&initial));
    assert_eq!(p.edges(), &flat(&initial)[..]);
    let maps: Vec<usize> = TABLE_4_1.iter().map(|r| r.1).collect();
    assert_eq!(p.maps, maps);
    for (k, &(vertex, _, edges)) in TABLE_4_1.iter().enumerate() {
        let q = 15 - k;
        assert_eq!(p.collapse[q], vertex, "row {k}");
        p.set_quantity(q);
        assert_eq!(p.quantity(), q);
        assert_eq!(
            p.edges(),
            &flat(edges)[..],
            "Table 4.1 row {k} (vertex {vertex})"
        );
    }
    // Back up to all 16: the initial array again, exactly.
    p.set_quantity(16);
    assert_eq!(p.edges(), &flat(&initial)[..]);
}

#[test]
fn sixteen_gon_reindexed_table_4_2() {
    let p = PolylineClod::closed(&sixteen_gon()).unwrap();
    let (d, e) = p.reindexed();
    // L8977: d = (13, 3, 7, 0, 14, 10, 11, 2, 9, 4, 5, 1, 8, 6, 12, 15).
    assert_eq!(
        d,
        vec![13, 3, 7, 0, 14, 10, 11, 2, 9, 4, 5, 1, 8, 6, 12, 15]
    );
    // L8981: the reindexed initial edge array.
    let initial = [
        (0, 14),
        (1, 8),
        (2, 9),
        (3, 7),
        (4, 5),
        (5, 1),
        (6, 12),
        (7, 0),
        (8, 6),
        (9, 4),
        (10, 11),
        (11, 2),
        (12, 15),
        (13, 3),
        (14, 10),
        (15, 13),
    ];
    assert_eq!(e, flat(&initial));
    // The mapping indices do not change under reindexing (L8979); replay the removals on the
    // reindexed array: removing vertex k sets e[m_k] to e[2k+1].
    let mut edges = e;
    for (k, &(vertex, map, rows)) in TABLE_4_2.iter().enumerate() {
        let q = 15 - k;
        assert_eq!(vertex, q);
        assert_eq!(p.maps[k], map);
        assert_eq!(edges[map], q as u32);
        edges[map] = edges[2 * q + 1];
        assert_eq!(&edges[..2 * q], &flat(rows)[..], "Table 4.2 row {k}");
    }
}

/// The 3×3 grid of unit squares split into a fan around the centre (vertex 4).
fn fan_grid() -> (Vec<Vec3>, Vec<u32>) {
    let p: Vec<Vec3> = (0..9)
        .map(|i| Vec3::new((i % 3) as f32, -((i / 3) as f32), 0.0))
        .collect();
    // The ring 0, 1, 2, 5, 8, 7, 6, 3 around the centre: t_k = (4, ring[k], ring[k+1]).
    let idx = vec![
        4, 0, 1, 4, 1, 2, 4, 2, 5, 4, 5, 8, 4, 8, 7, 4, 7, 6, 4, 6, 3, 4, 3, 0,
    ];
    (p, idx)
}

#[test]
fn fan_grid_collapses_the_centre_into_the_first_edge_midpoint() {
    // Every border vertex lies on a boundary edge, so only the centre can be thrown. Towards a
    // corner a renamed triangle would be collinear (zero area: refused); towards the four
    // edge midpoints 1, 3, 5, 7 the weight is ℓ·(1/20 + 0 + 0) = 0.05 for all four (flat,
    // unit length), and the tie goes to the smallest edge key (1, 4).
    let (p, idx) = fan_grid();
    let c = CreateClodMesh::new(&p, &idx).unwrap();
    // Never-thrown vertices in order, then the thrown centre.
    assert_eq!(c.vertex_order(), &[0, 1, 2, 3, 5, 6, 7, 8, 4]);
    // Survivors t2..t7 in order, then the deleted t1, t0 (first deleted last); d(4) = 8,
    // d(5..=8) = 4..=7.
    assert_eq!(
        c.indices(),
        &[8, 2, 4, 8, 4, 7, 8, 7, 6, 8, 6, 5, 8, 5, 3, 8, 3, 0, 8, 1, 2, 8, 0, 1]
    );
    let r = c.records();
    assert_eq!(r.len(), 2);
    assert_eq!((r[0].vertices, r[0].triangles), (9, 8));
    assert_eq!((r[1].keep, r[1].throw), (1, 8));
    assert_eq!((r[1].vertices, r[1].triangles), (8, 6));
    assert_eq!(r[1].indices, vec![0, 3, 6, 9, 12, 15]);

    let mesh = Mesh::triangles(p, idx).unwrap();
    let mut clod = ClodMesh::from_mesh(&mesh).unwrap();
    clod.set_target_record(1).unwrap();
    assert_eq!(
        clod.active_indices(),
        &[1, 2, 4, 1, 4, 7, 1, 7, 6, 1, 6, 5, 1, 5, 3, 1, 3, 0]
    );
    let m = clod.to_mesh().unwrap();
    assert_eq!(m.positions().len(), 8);
    assert_eq!(m.triangle_count(), 6);
    // The kept vertex 1 is the original vertex 1 at (1, 0, 0).
    assert_eq!(m.positions()[1], Vec3::new(1.0, 0.0, 0.0));
}

#[test]
fn reorder_moves_every_attribute_with_its_vertex() {
    let (p, idx) = fan_grid();
    let colors: Vec<Vec4> = (0..9).map(|i| Vec4::new(i as f32, 0.0, 0.0, 1.0)).collect();
    let uvs: Vec<Vec2> = p.iter().map(|q| q.truncate()).collect();
    let mesh = Mesh::triangles(p.clone(), idx)
        .unwrap()
        .with_colors(colors)
        .unwrap()
        .with_uv_set(uvs)
        .unwrap()
        .with_normals(vec![Vec3::Z; 9])
        .unwrap();
    let clod = ClodMesh::from_mesh(&mesh).unwrap();
    let full = clod.full_mesh();
    let order = [0, 1, 2, 3, 5, 6, 7, 8, 4];
    for (new, &old) in order.iter().enumerate() {
        assert_eq!(full.positions()[new], p[old]);
        assert_eq!(full.colors().unwrap()[new].x, old as f32);
        assert_eq!(full.uv_sets()[0][new], p[old].truncate());
    }
}

#[test]
fn target_record_follows_the_books_depth_rule() {
    // L9178–9196: ratio = (depth − near)/(far − near), index = ⌊(count − 1)·ratio^0.5⌋.
    assert_eq!(target_record_for_depth(0.5, 1.0, 5.0, 101), 0);
    assert_eq!(target_record_for_depth(1.0, 1.0, 5.0, 101), 0);
    assert_eq!(target_record_for_depth(2.0, 1.0, 5.0, 101), 50); // √0.25 = 0.5
    assert_eq!(target_record_for_depth(3.0, 1.0, 5.0, 101), 70); // √0.5 = 0.7071…
    assert_eq!(target_record_for_depth(5.0, 1.0, 5.0, 101), 100);
    assert_eq!(target_record_for_depth(9.0, 1.0, 5.0, 101), 100);
    assert_eq!(target_record_for_depth(f32::NAN, 1.0, 5.0, 101), 0);
    assert_eq!(target_record_for_depth(3.0, 5.0, 1.0, 101), 0);
    assert_eq!(target_record_for_depth(3.0, 1.0, 5.0, 0), 0);
}

#[test]
fn bad_input_is_a_typed_error() {
    let (p, idx) = fan_grid();
    let mesh = Mesh::triangles(p.clone(), idx.clone()).unwrap();
    let mut clod = ClodMesh::from_mesh(&mesh).unwrap();
    let err = clod.set_target_record(2).unwrap_err();
    assert!(matches!(err, SceneError::InvalidArgument { .. }), "{err}");
    assert!(err.to_string().contains("record 2 of 2"), "{err}");
    assert_eq!(clod.target_record(), 0);

    let mut nan = p.clone();
    nan[3].y = f32::NAN;
    assert!(matches!(
        CreateClodMesh::new(&nan, &idx),
        Err(SceneError::NonFinite { .. })
    ));
    assert!(CreateClodMesh::new(&p, &[]).is_err());
    assert!(CreateClodMesh::new(&p, &[0, 1]).is_err());
    assert!(CreateClodMesh::new(&p, &[0, 1, 9]).is_err());
    assert!(CreateClodMesh::new(&p, &[0, 1, 1]).is_err());
    let c = CreateClodMesh::new(&p, &idx).unwrap();
    assert!(matches!(
        c.reorder(&[1, 2, 3]),
        Err(SceneError::AttributeLength { .. })
    ));
    let lines = Mesh::polyline(p, false).unwrap();
    assert!(ClodMesh::from_mesh(&lines).is_err());
}

#[test]
fn an_edge_of_three_triangles_is_never_collapsed() {
    // Three fins around the edge 0–1: every edge touches the non-manifold edge's vertices or
    // lies on the boundary, so nothing collapses (book L9020).
    let p = vec![
        Vec3::ZERO,
        Vec3::X,
        Vec3::new(0.5, 1.0, 0.0),
        Vec3::new(0.5, -1.0, 0.0),
        Vec3::new(0.5, 0.0, 1.0),
    ];
    let c = CreateClodMesh::new(&p, &[0, 1, 2, 1, 0, 3, 0, 1, 4]).unwrap();
    assert_eq!(c.records().len(), 1);
}

/// A `n×n`-quad height field with heights from `h` (border fixed), split along alternating
/// diagonals.
fn height_field(n: usize, h: &[f32]) -> Mesh {
    let w = n + 1;
    let p: Vec<Vec3> = (0..w * w)
        .map(|i| {
            let (x, y) = (i % w, i / w);
            Vec3::new(x as f32, y as f32, h[i % h.len()])
        })
        .collect();
    let mut idx = Vec::new();
    for y in 0..n {
        for x in 0..n {
            let a = (y * w + x) as u32;
            let (b, c, d) = (a + 1, a + w as u32 + 1, a + w as u32);
            if (x + y) % 2 == 0 {
                idx.extend([a, b, c, a, c, d]);
            } else {
                idx.extend([a, b, d, b, c, d]);
            }
        }
    }
    Mesh::triangles(p, idx).unwrap()
}

/// A closed box-like surface: a uv sphere with radii from `r`.
fn bumpy_sphere(stacks: u32, slices: u32, r: &[f32]) -> Mesh {
    let s = plumb_scene::shapes::sphere(1.0, stacks, slices).unwrap();
    // Weld the seam and poles so the surface is closed: merge equal positions.
    let mut uniq: Vec<Vec3> = Vec::new();
    let mut map = Vec::new();
    for q in s.positions() {
        let k = uniq.iter().position(|u| (*u - *q).length() < 1e-5);
        map.push(match k {
            Some(k) => k as u32,
            None => {
                uniq.push(*q);
                (uniq.len() - 1) as u32
            }
        });
    }
    let mut idx: Vec<u32> = Vec::new();
    for t in s.indices().chunks_exact(3) {
        let v = [map[t[0] as usize], map[t[1] as usize], map[t[2] as usize]];
        if v[0] != v[1] && v[1] != v[2] && v[0] != v[2] {
            idx.extend(v);
        }
    }
    let p = uniq
        .iter()
        .enumerate()
        .map(|(i, q)| *q * (1.0 + r[i % r.len()]))
        .collect();
    Mesh::triangles(p, idx).unwrap()
}

fn check_every_record(mesh: &Mesh) {
    let mut clod = ClodMesh::from_mesh(mesh).unwrap();
    let full = clod.indices().to_vec();
    let n = clod.record_count();
    let area = |m: &Mesh, t: &[u32]| {
        let p = m.positions();
        let (a, b, c) = (p[t[0] as usize], p[t[1] as usize], p[t[2] as usize]);
        (b - a).cross(c - a).length()
    };
    let mut prev = (usize::MAX, usize::MAX);
    for r in 0..n {
        clod.set_target_record(r).unwrap();
        let (v, t) = (clod.active_vertex_count(), clod.active_triangle_count());
        if r > 0 {
            assert_eq!(v + 1, prev.0, "one vertex per record");
            assert!(t <= prev.1, "triangle counts never grow");
        }
        prev = (v, t);
        for tri in clod.active_indices().chunks_exact(3) {
            assert!(
                tri.iter().all(|&i| (i as usize) < v),
                "record {r}: {tri:?} ≥ {v}"
            );
            assert!(tri[0] != tri[1] && tri[1] != tri[2] && tri[0] != tri[2]);
            assert!(
                area(clod.full_mesh(), tri) > 0.0,
                "record {r}: zero-area {tri:?}"
            );
        }
    }
    // Down to the end and back up: the index array of record 0, exactly.
    clod.set_target_record(0).unwrap();
    assert_eq!(clod.indices(), &full[..]);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn down_then_up_restores_the_indices(
        n in 2usize..7,
        h in prop::collection::vec(-0.5f32..0.5, 1..40),
        a in 0usize..1000,
        b in 0usize..1000,
    ) {
        let mesh = height_field(n, &h);
        let mut clod = ClodMesh::from_mesh(&mesh).unwrap();
        let full = clod.indices().to_vec();
        let count = clod.record_count();
        let (a, b) = (a % count, b % count);
        clod.set_target_record(a).unwrap();
        let at_a = clod.indices().to_vec();
        clod.set_target_record(b).unwrap();
        clod.set_target_record(a).unwrap();
        prop_assert_eq!(clod.indices(), &at_a[..]);
        clod.set_target_record(count - 1).unwrap();
        clod.set_target_record(0).unwrap();
        prop_assert_eq!(clod.indices(), &full[..]);
        check_every_record(&mesh);
        // The border never moves: every border vertex is still active at the last record.
        clod.set_target_record(count - 1).unwrap();
        let w = n + 1;
        let border = (0..w * w).filter(|i| i % w == 0 || i % w == n || i / w == 0 || i / w == n).count();
        prop_assert!(clod.active_vertex_count() >= border);
        let active = &clod.full_mesh().positions()[..clod.active_vertex_count()];
        for i in 0..w * w {
            let q = mesh.positions()[i];
            if i % w == 0 || i % w == n || i / w == 0 || i / w == n {
                prop_assert!(active.contains(&q), "border vertex {} was thrown", i);
            }
        }
    }

    #[test]
    fn closed_surfaces_stay_valid(
        r in prop::collection::vec(-0.2f32..0.2, 1..30),
    ) {
        let mesh = bumpy_sphere(5, 7, &r);
        check_every_record(&mesh);
        let clod = ClodMesh::from_mesh(&mesh).unwrap();
        // A closed surface reduces a lot: at least half its vertices go.
        prop_assert!(clod.record_count() > mesh.positions().len() / 2);
    }
}
