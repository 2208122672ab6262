//! Tangents for normal-mapped primitives without a `TANGENT` attribute.
//!
//! glTF asks for MikkTSpace tangents computed from the positions, normals and the normal
//! texture's uv set. This is plumb's own implementation of MikkTSpace's per-vertex rule (not
//! the reference code, and without its welding of equal vertices across indices or its
//! special cases for degenerate triangles):
//!
//! * per triangle, the direction of increasing `u`, `dP/du = (Δv₂·e₁ − Δv₁·e₂) / area` with
//!   `area = Δu₁·Δv₂ − Δv₁·Δu₂` of the uv triangle, normalized;
//! * per corner, that direction made orthogonal to the corner's vertex normal and weighted
//!   by the corner's angle (`acos` via `plumb_raster::math`);
//! * per vertex, the weighted sum **over the triangles of the same uv orientation** (sign of
//!   `area`), normalized. A vertex used by triangles of both orientations (a mirror seam) is
//!   split in two, one per orientation, as MikkTSpace does; the caller duplicates every other
//!   attribute of it.
//! * the handedness `w`: glTF's bitangent is `w · (N × T)` and points to the top of the image
//!   (+y of the normal map), which with glTF's uv origin at the top-left is the direction of
//!   **decreasing** `v`. A triangle whose uv area is negative (the usual, unmirrored layout
//!   with `v` down) gets `w = +1`, a positive area `w = −1`. (MikkTSpace run on glTF's uvs
//!   as stored gives the opposite sign; viewers that use it negate `w`, or flip `v` first.)
//!
//! A vertex no usable triangle reaches (zero uv area, zero-length edges or normal) gets some
//! unit vector orthogonal to its normal and `w = +1`.

use glam::{Vec2, Vec3, Vec4};

/// Tangents for every vertex, and the vertex split when mirror seams needed one.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Generated {
    /// One tangent per (new) vertex, `w` = ±1.
    pub(crate) tangents: Vec<Vec4>,
    /// When vertices were split: for every new vertex the index of the vertex it copies,
    /// and the rewritten index list. `None` when the vertices are unchanged.
    pub(crate) split: Option<(Vec<u32>, Vec<u32>)>,
}

/// Some unit vector orthogonal to `n` (x when `n` is zero).
fn orthogonal(n: Vec3) -> Vec3 {
    let axis = if n.x.abs() < 0.9 { Vec3::X } else { Vec3::Y };
    let t = n.cross(axis).normalize_or_zero();
    if t == Vec3::ZERO {
        Vec3::X
    } else {
        t
    }
}

/// Orientation slot of a triangle: 0 for a positive uv area (glTF `w = −1`), 1 for a
/// negative one (`w = +1`).
fn w_of(slot: usize) -> f32 {
    if slot == 0 {
        -1.0
    } else {
        1.0
    }
}

/// Generates tangents (see the [module docs](self)). `normals` and `uvs` have one entry per
/// position; `indices` is a triangle list whose indices are all in range.
pub(crate) fn generate(
    positions: &[Vec3],
    normals: &[Vec3],
    uvs: &[Vec2],
    indices: &[u32],
) -> Generated {
    let n = positions.len();
    let mut acc = vec![[Vec3::ZERO; 2]; n];
    let mut used = vec![[false; 2]; n];
    let mut corner_slot: Vec<Option<usize>> = Vec::with_capacity(indices.len());
    for tri in indices.chunks_exact(3) {
        let v = [tri[0] as usize, tri[1] as usize, tri[2] as usize];
        let p = [positions[v[0]], positions[v[1]], positions[v[2]]];
        let t = [uvs[v[0]], uvs[v[1]], uvs[v[2]]];
        let (e1, e2) = (p[1] - p[0], p[2] - p[0]);
        let (t21, t31) = (t[1] - t[0], t[2] - t[0]);
        let area = t21.x * t31.y - t21.y * t31.x;
        let os = if area != 0.0 && area.is_finite() {
            ((e1 * t31.y - e2 * t21.y) * area.signum()).normalize_or_zero()
        } else {
            Vec3::ZERO
        };
        if os == Vec3::ZERO || !os.is_finite() {
            corner_slot.extend([None; 3]);
            continue;
        }
        let slot = if area > 0.0 { 0 } else { 1 };
        for k in 0..3 {
            let nrm = normals[v[k]].normalize_or_zero();
            let tan = (os - nrm * nrm.dot(os)).normalize_or_zero();
            let a = (p[(k + 1) % 3] - p[k]).normalize_or_zero();
            let b = (p[(k + 2) % 3] - p[k]).normalize_or_zero();
            let angle = plumb_raster::math::acos(a.dot(b).clamp(-1.0, 1.0));
            acc[v[k]][slot] += angle * tan;
            used[v[k]][slot] = true;
        }
        corner_slot.extend([Some(slot); 3]);
    }
    // Vertex slots: the vertex keeps the unmirrored orientation (slot 1, w = +1) when it is
    // used with both; the mirrored one then becomes a new vertex at the end.
    let mut source: Vec<u32> = (0..n as u32).collect();
    let mut index_of = vec![[u32::MAX; 2]; n];
    for (i, u) in used.iter().enumerate() {
        let keep = if u[1] || !u[0] { 1 } else { 0 };
        index_of[i][keep] = i as u32;
        if u[0] && u[1] {
            index_of[i][0] = source.len() as u32;
            source.push(i as u32);
        }
    }
    let tangent = |i: usize, slot: usize| -> Vec4 {
        let nrm = normals[i].normalize_or_zero();
        let t = acc[i][slot];
        let t = (t - nrm * nrm.dot(t)).normalize_or_zero();
        if t == Vec3::ZERO || !t.is_finite() {
            return orthogonal(nrm).extend(1.0);
        }
        t.extend(if used[i][slot] { w_of(slot) } else { 1.0 })
    };
    let mut tangents: Vec<Vec4> = (0..n)
        .map(|i| tangent(i, if index_of[i][1] == i as u32 { 1 } else { 0 }))
        .collect();
    tangents.extend(source[n..].iter().map(|&i| tangent(i as usize, 0)));
    if source.len() == n {
        return Generated {
            tangents,
            split: None,
        };
    }
    let new_indices = indices
        .iter()
        .zip(&corner_slot)
        .map(|(&i, slot)| {
            let slots = index_of[i as usize];
            match slot {
                Some(s) if slots[*s] != u32::MAX => slots[*s],
                _ => {
                    if slots[1] != u32::MAX {
                        slots[1]
                    } else {
                        slots[0]
                    }
                }
            }
        })
        .collect();
    Generated {
        tangents,
        split: Some((source, new_indices)),
    }
}

#[cfg(feature = "internal-tests")]
pub(crate) mod tests {
    /// Every test of this module: `tests/unit.rs` runs each as one trial (an unlisted
    /// test fails the build as dead code).
    pub(crate) const TESTS: &[(&str, fn())] = &[
        (
            "unmirrored_quad_has_u_along_x_and_w_plus_one",
            unmirrored_quad_has_u_along_x_and_w_plus_one,
        ),
        (
            "mirrored_u_flips_tangent_and_handedness",
            mirrored_u_flips_tangent_and_handedness,
        ),
        (
            "a_vertex_on_a_mirror_seam_is_split",
            a_vertex_on_a_mirror_seam_is_split,
        ),
        (
            "tangent_is_orthogonal_to_a_tilted_normal_and_degenerate_uvs_fall_back",
            tangent_is_orthogonal_to_a_tilted_normal_and_degenerate_uvs_fall_back,
        ),
    ];

    use super::*;

    fn close(a: Vec4, b: Vec4) -> bool {
        (a - b).abs().max_element() < 1e-6
    }

    /// A unit quad in z = 0 facing +z: corners (0,0) (1,0) (1,1) (0,1), two triangles.
    fn quad() -> (Vec<Vec3>, Vec<Vec3>, Vec<u32>) {
        (
            vec![
                Vec3::new(0.0, 0.0, 0.0),
                Vec3::new(1.0, 0.0, 0.0),
                Vec3::new(1.0, 1.0, 0.0),
                Vec3::new(0.0, 1.0, 0.0),
            ],
            vec![Vec3::Z; 4],
            vec![0, 1, 2, 0, 2, 3],
        )
    }

    fn unmirrored_quad_has_u_along_x_and_w_plus_one() {
        // glTF's usual layout: u with x, v down the image = −y, so v = 1 − y.
        let (p, n, idx) = quad();
        let uv = vec![
            Vec2::new(0.0, 1.0),
            Vec2::new(1.0, 1.0),
            Vec2::new(1.0, 0.0),
            Vec2::new(0.0, 0.0),
        ];
        let g = generate(&p, &n, &uv, &idx);
        assert!(g.split.is_none());
        for t in &g.tangents {
            // T = +x; B = w·(N × T) = +y = towards v = 0, the image's top.
            assert!(close(*t, Vec4::new(1.0, 0.0, 0.0, 1.0)), "{t}");
        }
    }

    fn mirrored_u_flips_tangent_and_handedness() {
        // u runs against x: T = −x, and B must still point up (+y): w·(z × −x) = w·(−y) → w = −1.
        let (p, n, idx) = quad();
        let uv = vec![
            Vec2::new(1.0, 1.0),
            Vec2::new(0.0, 1.0),
            Vec2::new(0.0, 0.0),
            Vec2::new(1.0, 0.0),
        ];
        let g = generate(&p, &n, &uv, &idx);
        for t in &g.tangents {
            assert!(close(*t, Vec4::new(-1.0, 0.0, 0.0, -1.0)), "{t}");
            let b = t.w * Vec3::Z.cross(t.truncate());
            assert!((b - Vec3::Y).length() < 1e-6);
        }
    }

    fn a_vertex_on_a_mirror_seam_is_split() {
        // Two quads side by side sharing the edge x = 1; the right one mirrors u (the uvs of
        // the shared vertices are equal on both sides).
        let p = vec![
            Vec3::new(0.0, 0.0, 0.0),
            Vec3::new(1.0, 0.0, 0.0),
            Vec3::new(1.0, 1.0, 0.0),
            Vec3::new(0.0, 1.0, 0.0),
            Vec3::new(2.0, 0.0, 0.0),
            Vec3::new(2.0, 1.0, 0.0),
        ];
        let n = vec![Vec3::Z; 6];
        let uv = vec![
            Vec2::new(0.0, 1.0),
            Vec2::new(1.0, 1.0),
            Vec2::new(1.0, 0.0),
            Vec2::new(0.0, 0.0),
            Vec2::new(0.0, 1.0),
            Vec2::new(0.0, 0.0),
        ];
        let idx = vec![0, 1, 2, 0, 2, 3, 1, 4, 5, 1, 5, 2];
        let g = generate(&p, &n, &uv, &idx);
        let (source, new_idx) = g.split.expect("vertices 1 and 2 are split");
        // The seam vertices 1 and 2 get copies 6 and 7 for the mirrored side.
        assert_eq!(source, vec![0, 1, 2, 3, 4, 5, 1, 2]);
        assert_eq!(new_idx, vec![0, 1, 2, 0, 2, 3, 6, 4, 5, 6, 5, 7]);
        assert!(close(g.tangents[1], Vec4::new(1.0, 0.0, 0.0, 1.0)));
        assert!(close(g.tangents[6], Vec4::new(-1.0, 0.0, 0.0, -1.0)));
        assert!(close(g.tangents[4], Vec4::new(-1.0, 0.0, 0.0, -1.0)));
    }

    fn tangent_is_orthogonal_to_a_tilted_normal_and_degenerate_uvs_fall_back() {
        let (p, _, idx) = quad();
        let tilted = Vec3::new(1.0, 0.0, 1.0).normalize();
        let uv = vec![
            Vec2::new(0.0, 1.0),
            Vec2::new(1.0, 1.0),
            Vec2::new(1.0, 0.0),
            Vec2::new(0.0, 0.0),
        ];
        let g = generate(&p, &[tilted; 4], &uv, &idx);
        // x made orthogonal to (1, 0, 1)/√2: (1, 0, −1)/√2.
        let want = Vec3::new(1.0, 0.0, -1.0).normalize();
        for t in &g.tangents {
            assert!((t.truncate() - want).length() < 1e-6, "{t}");
            assert_eq!(t.w, 1.0);
        }
        // All uvs equal: no triangle has a uv area; every tangent is some unit vector ⟂ N.
        let g = generate(&p, &[Vec3::Z; 4], &[Vec2::ZERO; 4], &idx);
        for t in &g.tangents {
            assert!((t.truncate().length() - 1.0).abs() < 1e-6);
            assert!(t.truncate().dot(Vec3::Z).abs() < 1e-6);
            assert_eq!(t.w, 1.0);
        }
    }
}
