//! Clipping against the view volume (GL 1.4 §2.11) with hand-derived coverage: the viewport
//! as the x/y clip for every primitive kind, the far plane, and each of the six user clip
//! planes alone and together.
//!
//! Window coordinates on an `n × n` target with the full viewport and `w = 1`:
//! `x_w = n/2·(x + 1)`, `y_w = n/2·(1 − y)`; pixel `(i, j)` has its centre at
//! `(i + ½, j + ½)`. Every clip edge below is placed at least ¼ pixel from any pixel centre,
//! so the fill rule never decides and the expected coverage follows from the plane alone.

use crate::common;

use common::*;
use glam::{Mat4, Vec4};
use plumb_raster::*;

const RED: Vec4 = Vec4::new(1.0, 0.0, 0.0, 1.0);

fn state(c: &Context) -> PipelineState {
    PipelineState {
        depth: DepthState::DISABLED,
        ..c.default_state()
    }
}

/// Draws `pos` as `topology` in red.
fn draw(c: &mut Context, st: &PipelineState, pos: &[Vec4], topology: Topology) -> DrawStats {
    let col = vec![RED; pos.len()];
    c.draw(
        st,
        &VertexInput::colored(pos, &col),
        Indices::None,
        topology,
    )
    .unwrap()
}

/// Asserts that pixel `(i, j)` is red exactly where `want(i, j)`, and returns how many are.
fn assert_coverage(c: &mut Context, what: &str, want: impl Fn(i32, i32) -> bool) -> usize {
    let img = c.color_image();
    let mut n = 0;
    for (i, j, p) in img.enumerate_pixels() {
        let w = want(i as i32, j as i32);
        assert_eq!(p.0[0] == 255, w, "{what}: pixel ({i}, {j})");
        n += usize::from(w);
    }
    n
}

/// The viewport of (8, 8)–(24, 24) on a 32×32 target (`small`), and the clip position of
/// window point `(x, y)` through it at depth `z`.
fn small(c: &Context) -> (PipelineState, impl Fn(f32, f32, f32) -> Vec4) {
    let st = PipelineState {
        viewport: Viewport {
            x: 8.0,
            y: 8.0,
            width: 16.0,
            height: 16.0,
            min_depth: 0.0,
            max_depth: 1.0,
        },
        ..state(c)
    };
    let at =
        |x: f32, y: f32, z: f32| Vec4::new((x - 8.0) / 8.0 - 1.0, 1.0 - (y - 8.0) / 8.0, z, 1.0);
    (st, at)
}

/// GL 1.4 §2.11 and §4.1.2: the view volume and the scissor both cut, so a filled polygon
/// covers target ∩ scissor ∩ viewport. Viewport [8, 24)², scissor x ∈ [0, 12), y ∈ [20, 32):
/// pixels 8..12 × 20..24, 16 of them — through the unindexed path and the indexed one (whose
/// per-vertex screen tests run before any triangle is assembled).
#[test]
fn filled_polygons_cover_target_scissor_and_viewport_only() {
    for indexed in [false, true] {
        let mut c = ctx(32, 32, 1);
        let (st, at) = small(&c);
        let st = PipelineState {
            scissor: Some(Rect {
                x: 0,
                y: 20,
                width: 12,
                height: 12,
            }),
            ..st
        };
        // A quad four times the viewport's size around it.
        let quad = [
            at(-8.0, -8.0, 0.5),
            at(40.0, -8.0, 0.5),
            at(40.0, 40.0, 0.5),
            at(-8.0, 40.0, 0.5),
        ];
        let col = [RED; 4];
        let idx = [0u16, 1, 2, 0, 2, 3];
        if indexed {
            c.draw(
                &st,
                &VertexInput::colored(&quad, &col),
                Indices::U16(&idx),
                Topology::TriangleList,
            )
            .unwrap();
        } else {
            let pos = idx.map(|i| quad[usize::from(i)]);
            draw(&mut c, &st, &pos, Topology::TriangleList);
        }
        let n = assert_coverage(&mut c, "quad", |i, j| {
            (8..12).contains(&i) && (20..24).contains(&j)
        });
        assert_eq!(n, 16);
        assert_eq!(c.stats().fragments_written, 16, "indexed: {indexed}");
    }
}

/// GL 1.4 §2.11, §3.5.4: a polygon drawn in `Line` mode is clipped to the view volume before
/// its edges are rasterised, so an edge running outside the viewport is not drawn there.
/// Triangle (4, 10.5)–(28, 10.5)–(16, 22.5) in window space, 1-px lines: its top edge is
/// the row of centres y = 10.5, cut at the viewport to pixels 8..=23 of row 10 (outside,
/// columns 4..8 and 24..28, nothing).
#[test]
fn line_mode_polygons_are_cut_at_the_viewport() {
    let mut c = ctx(32, 32, 1);
    let (st, at) = small(&c);
    let st = PipelineState {
        polygon_mode: PolygonMode::Line,
        ..st
    };
    let pos = [at(4.0, 10.5, 0.5), at(28.0, 10.5, 0.5), at(16.0, 22.5, 0.5)];
    draw(&mut c, &st, &pos, Topology::TriangleList);
    let img = c.color_image();
    for x in 0..32 {
        assert_eq!(
            img.get_pixel(x, 10).0[0] == 255,
            (8..24).contains(&x),
            "row 10, x = {x}"
        );
    }
    // Nothing at all outside the viewport (the slanted edges leave it too).
    for (x, y, p) in img.enumerate_pixels() {
        if !((8..24).contains(&x) && (8..24).contains(&y)) {
            assert_eq!(p.0[0], 0, "({x}, {y}) outside the viewport");
        }
    }
}

/// GL 1.4 §2.11: the view volume includes `0 ≤ z ≤ w` (plumb's depth range), so a point in
/// the middle of the viewport but beyond the far plane (z = 1.5) or before the near plane
/// (z = −0.5) is not drawn, while one at z = 0.5 is.
#[test]
fn points_outside_the_depth_range_are_not_drawn() {
    let mut c = ctx(32, 32, 1);
    let (st, at) = small(&c);
    let st = PipelineState {
        point_size: 3.0,
        ..st
    };
    for z in [1.5, -0.5] {
        let s = draw(&mut c, &st, &[at(16.5, 16.5, z)], Topology::PointList);
        assert_eq!(s.geometry.clipped_away, 1, "z = {z}");
    }
    assert!(c.color_image().pixels().all(|p| p.0[0] == 0));
    draw(&mut c, &st, &[at(16.5, 16.5, 0.5)], Topology::PointList);
    // A 3-px point centred on (16.5, 16.5) covers [15, 18)²: 9 pixels.
    let n = assert_coverage(&mut c, "point", |i, j| {
        (15..18).contains(&i) && (15..18).contains(&j)
    });
    assert_eq!(n, 9);
}

/// GL 1.4 §2.11: primitives are clipped against the far plane `z ≤ w` exactly. On 16×16,
/// A = (−1, −1, z = 2), B = (1, −1, 0), C = (−1, 1, 0), w = 1: z = −x − y, which at pixel
/// `(i, j)` is `(j − i)/8`. The far plane z = 1 cuts AB and AC at their midpoints, so the kept
/// region is `0 ≤ x_w ≤ y_w`, `y_w − x_w ≤ 8` (window units); the diagonal is a right edge
/// (centres on it out), the far cut a left edge (in): pixel `(i, j)` is covered iff
/// `0 < j − i ≤ 8`, and its depth is `(j − i)/8` (depth range 0..1).
#[test]
fn far_plane_clipping_exact_coverage_and_depth() {
    let mut c = ctx(16, 16, 1);
    let st = PipelineState {
        depth: DepthState {
            func: CompareFunc::Always,
            write: true,
        },
        ..c.default_state()
    };
    let pos = [
        Vec4::new(-1.0, -1.0, 2.0, 1.0),
        Vec4::new(1.0, -1.0, 0.0, 1.0),
        Vec4::new(-1.0, 1.0, 0.0, 1.0),
    ];
    let s = draw(&mut c, &st, &pos, Topology::TriangleList);
    assert_eq!(s.geometry.clipped, 1);
    let n = assert_coverage(&mut c, "far cut", |i, j| (1..=8).contains(&(j - i)));
    assert_eq!(n, 15 + 14 + 13 + 12 + 11 + 10 + 9 + 8);
    for (i, j) in [(0, 1), (3, 7), (0, 8), (7, 15)] {
        let want = (j - i) as f32 / 8.0;
        let got = c.target().depth_at(i, j).unwrap();
        assert!(
            (got - want).abs() < 1e-6,
            "depth at ({i}, {j}): {got}, want {want}"
        );
    }
    // Entirely beyond the far plane: nothing, counted as clipped away.
    let mut c = ctx(16, 16, 1);
    let beyond = pos.map(|p| Vec4::new(p.x, p.y, 1.25, 1.0));
    let s = draw(&mut c, &st, &beyond, Topology::TriangleList);
    assert_eq!(s.geometry.clipped_away, 1);
    assert!(c.color_image().pixels().all(|p| p.0[0] == 0));
}

/// The far plane under a perspective projection: a floor y = −1 from eye depth 2 to 50,
/// seen through `perspective_rh(90°, 1, near 1, far 10)` on 20×20. A floor point at eye depth
/// `d` projects to `y_ndc = −1/d` (f = 1/tan 45° = 1), window `y_w = 10·(1 + 1/d)`: the far
/// plane (d = 10) at `y_w = 11`, the floor's near end (d = 2) at `y_w = 15`. So rows 11..=14
/// are floor (centres 11.5..14.5) and rows 0..=10 — floor beyond the far plane, and sky —
/// stay clear; the floor is ±100 wide, so every column is covered.
#[test]
fn far_plane_cuts_a_perspective_floor() {
    let mut c = ctx(20, 20, 2);
    let st = state(&c);
    let proj = Mat4::perspective_rh(std::f32::consts::FRAC_PI_2, 1.0, 1.0, 10.0);
    let p = |x: f32, z: f32| proj * Vec4::new(x, -1.0, z, 1.0);
    let pos = [
        p(-100.0, -2.0),
        p(100.0, -2.0),
        p(100.0, -50.0),
        p(-100.0, -2.0),
        p(100.0, -50.0),
        p(-100.0, -50.0),
    ];
    draw(&mut c, &st, &pos, Topology::TriangleList);
    let n = assert_coverage(&mut c, "floor", |_, j| (11..=14).contains(&j));
    assert_eq!(n, 4 * 20);
}

/// The six user clip planes (GL 1.4 §2.11, "Clipping"; plumb takes them in clip space:
/// a point is kept where `plane · (x, y, z, w) ≥ 0`). On a 16×16 target, a quad covering the
/// viewport with z = (x + 1)/2 (0 at the left, 1 at the right), w = 1. At pixel `(i, j)`:
/// `x = (i + ½)/8 − 1`, `y = 1 − (j + ½)/8`, `z = (i + ½)/16`. Each plane, in its own slot:
///
/// | slot | plane | kept | at pixel centres |
/// |---|---|---|---|
/// | 0 | `x + 0.5 ≥ 0` | `x_w ≥ 4` | `i ≥ 4` |
/// | 1 | `−x + 0.75 ≥ 0` | `x_w ≤ 14` | `i ≤ 13` |
/// | 2 | `y + 0.5 ≥ 0` | `y_w ≤ 12` | `j ≤ 11` |
/// | 3 | `−y + 0.75 ≥ 0` | `y_w ≥ 2` | `j ≥ 2` |
/// | 4 | `−x − y + 0.5625 ≥ 0` | `(x_w − y_w)/8 ≤ 0.5625` | `i − j ≤ 4` (edge at 4.5) |
/// | 5 | `0.5·y + z − 0.28125 ≥ 0` | `(x_w − y_w)/16 + ½ ≥ 0.28125` | `j − i ≤ 3` (edge at 3.5) |
///
/// Plane 5 uses z (and therefore the interpolated depth) as well as y. All six together keep
/// the intersection.
#[test]
fn each_user_clip_plane_and_all_six_together() {
    let planes = [
        Vec4::new(1.0, 0.0, 0.0, 0.5),
        Vec4::new(-1.0, 0.0, 0.0, 0.75),
        Vec4::new(0.0, 1.0, 0.0, 0.5),
        Vec4::new(0.0, -1.0, 0.0, 0.75),
        Vec4::new(-1.0, -1.0, 0.0, 0.5625),
        Vec4::new(0.0, 0.5, 1.0, -0.28125),
    ];
    let kept: [fn(i32, i32) -> bool; 6] = [
        |i, _| i >= 4,
        |i, _| i <= 13,
        |_, j| j <= 11,
        |_, j| j >= 2,
        |i, j| i - j <= 4,
        |i, j| j - i <= 3,
    ];
    let quad = [
        Vec4::new(-1.0, -1.0, 0.0, 1.0),
        Vec4::new(1.0, -1.0, 1.0, 1.0),
        Vec4::new(1.0, 1.0, 1.0, 1.0),
        Vec4::new(-1.0, -1.0, 0.0, 1.0),
        Vec4::new(1.0, 1.0, 1.0, 1.0),
        Vec4::new(-1.0, 1.0, 0.0, 1.0),
    ];
    // Expected counts, by hand: 12·16, 14·16, 12·16, 14·16; plane 4 drops, per row j, the
    // columns i > j + 4 (11 + 10 + … + 1 = 66 for j = 0..=10) → 256 − 66 = 190; plane 5 drops
    // i < j − 3 (1 + 2 + … + 12 = 78 for j = 4..=15) → 178.
    let counts = [192, 224, 192, 224, 190, 178];
    for slot in 0..6 {
        let mut c = ctx(16, 16, 1);
        let mut st = state(&c);
        st.clip_planes[slot] = Some(planes[slot]);
        draw(&mut c, &st, &quad, Topology::TriangleList);
        let n = assert_coverage(&mut c, &format!("plane {slot}"), kept[slot]);
        assert_eq!(n, counts[slot], "plane {slot}");
    }
    let mut c = ctx(16, 16, 2);
    let st = PipelineState {
        clip_planes: planes.map(Some),
        ..state(&c)
    };
    draw(&mut c, &st, &quad, Topology::TriangleList);
    let n = assert_coverage(&mut c, "all six", |i, j| kept.iter().all(|k| k(i, j)));
    // Rows j = 2..=11 (planes 2, 3) keep columns max(4, j − 3)..=min(13, j + 4) (planes 0,
    // 5 and 1, 4): 4..=6, 4..=7, 4..=8, 4..=9, 4..=10, 4..=11, 5..=12, 6..=13, 7..=13, 8..=13.
    assert_eq!(n, 3 + 4 + 5 + 6 + 7 + 8 + 8 + 8 + 7 + 6);
    // Points and lines are clipped by the same planes: a point at pixel (2, 8), left of
    // plane 0, is not drawn; a line along row 8 is cut to columns 5..=12 (planes 0, 1, 4
    // and 5 at j = 8: i ≥ max(4, 5), i ≤ min(13, 12)).
    let mut c = ctx(16, 16, 1);
    let p = |x: f32, y: f32| Vec4::new(x / 8.0 - 1.0, 1.0 - y / 8.0, (x / 16.0).min(1.0), 1.0);
    draw(&mut c, &st, &[p(2.5, 8.5)], Topology::PointList);
    assert!(c.color_image().pixels().all(|p| p.0[0] == 0));
    draw(
        &mut c,
        &st,
        &[p(0.0, 8.5), p(16.0, 8.5)],
        Topology::LineList,
    );
    let n = assert_coverage(&mut c, "line", |i, j| j == 8 && (5..=12).contains(&i));
    assert_eq!(n, 8);
}
