//! Table tests with hand-derived answers: fill rule, compare functions, stencil ops,
//! blending, clipping, interpolation, lines and points, bad input.

use crate::common;

use common::*;
use glam::Vec4;
use plumb_raster::*;

const RED: Vec4 = Vec4::new(1.0, 0.0, 0.0, 1.0);

fn state(c: &Context) -> PipelineState {
    PipelineState {
        depth: DepthState::DISABLED,
        ..c.default_state()
    }
}

// ---------------------------------------------------------------- fill rule

#[test]
fn top_left_rule_vertical_shared_edge() {
    // Two triangles share the vertical edge x = 2.5, which passes through the centres of
    // column 2. That edge is the *right* edge of the left triangle and the *left* edge of the
    // right one, so column 2 belongs to the right triangle only. Left triangle: region
    // 0.625·y ≤ x < 2.5 (diagonal from (0,0) to (2.5,4)); row y = 1.5 keeps x ≥ 0.9375,
    // i.e. only the centre 1.5. Right triangle: 2.5 ≤ x ≤ 6 − 0.875·y.
    let mut c = ctx(6, 4, 1);
    let st = state(&c);
    let l = [
        win(&c, 0.0, 0.0, 0.5),
        win(&c, 2.5, 0.0, 0.5),
        win(&c, 2.5, 4.0, 0.5),
    ];
    let r = [
        win(&c, 2.5, 0.0, 0.5),
        win(&c, 6.0, 0.0, 0.5),
        win(&c, 2.5, 4.0, 0.5),
    ];
    tris(&mut c, &st, &l, RED);
    assert_eq!(
        coverage(&mut c),
        art("
            ##....
            .#....
            ......
            ......
        "),
        "left triangle: centres on its right edge (x = 2.5) are excluded"
    );
    let mut c2 = ctx(6, 4, 1);
    tris(&mut c2, &st, &r, RED);
    assert_eq!(
        coverage(&mut c2),
        art("
            ..####
            ..###.
            ..##..
            ..#...
        ")
    );
}

#[test]
fn top_left_rule_horizontal_shared_edge() {
    // A square [0,4]² split by the horizontal line y = 1.5 (through row 1's centres) into a
    // top and a bottom rectangle. Row 1 lies on the top rectangle's bottom edge (excluded)
    // and on the bottom rectangle's top edge (included).
    let mut c = ctx(4, 4, 1);
    let st = state(&c);
    let p = |x, y| win(&c, x, y, 0.5);
    let top = [
        p(0.0, 0.0),
        p(4.0, 0.0),
        p(4.0, 1.5),
        p(0.0, 0.0),
        p(4.0, 1.5),
        p(0.0, 1.5),
    ];
    let bottom = [
        p(0.0, 1.5),
        p(4.0, 1.5),
        p(4.0, 4.0),
        p(0.0, 1.5),
        p(4.0, 4.0),
        p(0.0, 4.0),
    ];
    tris(&mut c, &st, &top, RED);
    assert_eq!(
        coverage(&mut c),
        art("#### .... .... ....".replace(' ', "\n").as_str())
    );
    let mut c = ctx(4, 4, 1);
    tris(&mut c, &st, &bottom, RED);
    assert_eq!(
        coverage(&mut c),
        art(".... #### #### ####".replace(' ', "\n").as_str())
    );
}

#[test]
fn top_left_rule_single_triangle_edges() {
    // Triangle (0.5,0.5) (3.5,0.5) (0.5,3.5): its top edge y = 0.5 and left edge x = 0.5 pass
    // through pixel centres and are included; its hypotenuse x + y = 4 passes through the
    // centres of (0,3), (1,2), (2,1), (3,0) and is a right edge: excluded.
    let mut c = ctx(4, 4, 1);
    let st = state(&c);
    let t = [
        win(&c, 0.5, 0.5, 0.5),
        win(&c, 3.5, 0.5, 0.5),
        win(&c, 0.5, 3.5, 0.5),
    ];
    tris(&mut c, &st, &t, RED);
    assert_eq!(
        coverage(&mut c),
        art("###. ##.. #... ....".replace(' ', "\n").as_str())
    );
    // Same triangle, every vertex order and both windings: identical coverage.
    let orders = [
        [0, 1, 2],
        [1, 2, 0],
        [2, 0, 1],
        [0, 2, 1],
        [2, 1, 0],
        [1, 0, 2],
    ];
    for o in orders {
        let mut c2 = ctx(4, 4, 1);
        tris(&mut c2, &st, &[t[o[0]], t[o[1]], t[o[2]]], RED);
        assert_eq!(coverage(&mut c2), coverage(&mut c), "order {o:?}");
    }
}

// ---------------------------------------------------------------- compare functions

#[test]
fn depth_compare_functions() {
    // Stored depth 0.5; fragments at 0.25, 0.5, 0.75. Expected pass flags written out by hand.
    use CompareFunc::*;
    let table: [(CompareFunc, [bool; 3]); 8] = [
        (Never, [false, false, false]),
        (Less, [true, false, false]),
        (Equal, [false, true, false]),
        (LessEqual, [true, true, false]),
        (Greater, [false, false, true]),
        (NotEqual, [true, false, true]),
        (GreaterEqual, [false, true, true]),
        (Always, [true, true, true]),
    ];
    for (func, expect) in table {
        for (z, pass) in [0.25, 0.5, 0.75].into_iter().zip(expect) {
            for write in [false, true] {
                let mut c = ctx(4, 4, 1);
                c.clear(Vec4::new(0.0, 0.0, 0.0, 1.0), 0.5, 0);
                let st = PipelineState {
                    depth: DepthState { func, write },
                    ..c.default_state()
                };
                full_screen(&mut c, &st, z, RED);
                assert_eq!(px(&mut c, 1, 2)[0] == 255, pass, "{func:?} z={z}");
                let stored = c.target().depth_at(1, 2).unwrap();
                let expect_depth = if pass && write { z } else { 0.5 };
                assert_eq!(stored, expect_depth, "{func:?} z={z} write={write}");
            }
        }
    }
}

#[test]
fn alpha_test_functions() {
    // Fragment alpha 0.5 against references 0.25, 0.5, 0.75 (the test is `alpha FUNC ref`).
    use CompareFunc::*;
    let table: [(CompareFunc, [bool; 3]); 8] = [
        (Never, [false, false, false]),
        (Less, [false, false, true]),
        (Equal, [false, true, false]),
        (LessEqual, [false, true, true]),
        (Greater, [true, false, false]),
        (NotEqual, [true, false, true]),
        (GreaterEqual, [true, true, false]),
        (Always, [true, true, true]),
    ];
    for (func, expect) in table {
        for (reference, pass) in [0.25, 0.5, 0.75].into_iter().zip(expect) {
            let mut c = ctx(4, 4, 1);
            let st = PipelineState {
                alpha_test: AlphaTest { func, reference },
                ..state(&c)
            };
            full_screen(&mut c, &st, 0.5, Vec4::new(1.0, 0.0, 0.0, 0.5));
            assert_eq!(px(&mut c, 2, 1)[0] == 255, pass, "{func:?} ref={reference}");
        }
    }
}

#[test]
fn stencil_compare_functions() {
    // Stored stencil 5; references 3, 5, 7. GL: passes when `ref FUNC stored`.
    use CompareFunc::*;
    let table: [(CompareFunc, [bool; 3]); 8] = [
        (Never, [false, false, false]),
        (Less, [true, false, false]),
        (Equal, [false, true, false]),
        (LessEqual, [true, true, false]),
        (Greater, [false, false, true]),
        (NotEqual, [true, false, true]),
        (GreaterEqual, [false, true, true]),
        (Always, [true, true, true]),
    ];
    for (func, expect) in table {
        for (reference, pass) in [3u8, 5, 7].into_iter().zip(expect) {
            let mut c = ctx(4, 4, 1);
            c.clear(Vec4::new(0.0, 0.0, 0.0, 1.0), 1.0, 5);
            let stencil = StencilState {
                enabled: true,
                func,
                reference,
                ..StencilState::DISABLED
            };
            let st = PipelineState {
                stencil,
                ..state(&c)
            };
            full_screen(&mut c, &st, 0.5, RED);
            assert_eq!(px(&mut c, 0, 0)[0] == 255, pass, "{func:?} ref={reference}");
        }
    }
}

#[test]
fn stencil_ops_and_masks() {
    use StencilOp::*;
    // (op, stored, expected) with reference 9.
    let table: [(StencilOp, u8, u8); 14] = [
        (Keep, 5, 5),
        (Zero, 5, 0),
        (Replace, 5, 9),
        (Incr, 5, 6),
        (Incr, 255, 255),
        (Decr, 5, 4),
        (Decr, 0, 0),
        (Invert, 5, 250),
        (IncrWrap, 5, 6),
        (IncrWrap, 255, 0),
        (DecrWrap, 5, 4),
        (DecrWrap, 0, 255),
        (Invert, 0, 255),
        (Replace, 0, 9),
    ];
    // Each op reached through each of the three outcomes: stencil fail, depth fail, pass.
    for (op, stored, expect) in table {
        for outcome in 0..3 {
            let mut c = ctx(4, 4, 1);
            c.clear(Vec4::new(0.0, 0.0, 0.0, 1.0), 0.5, stored);
            let mut s = StencilState {
                enabled: true,
                reference: 9,
                ..StencilState::DISABLED
            };
            let mut depth = DepthState::LESS_WRITE;
            match outcome {
                0 => {
                    s.func = CompareFunc::Never;
                    s.fail = op;
                }
                1 => {
                    s.func = CompareFunc::Always;
                    s.depth_fail = op;
                    depth.func = CompareFunc::Never;
                }
                _ => {
                    s.func = CompareFunc::Always;
                    s.pass = op;
                }
            }
            let st = PipelineState {
                stencil: s,
                depth,
                ..c.default_state()
            };
            full_screen(&mut c, &st, 0.25, RED);
            assert_eq!(
                c.target().stencil_at(3, 3),
                Some(expect),
                "{op:?} stored={stored} outcome={outcome}"
            );
        }
    }
    // Write mask 0x0f: Replace with 0xab over 0x35 gives 0x3b. Read mask 0x0f: ref 0x17
    // vs stored 0x27 compare equal (both 7 under the mask).
    let mut c = ctx(2, 2, 1);
    c.clear(Vec4::new(0.0, 0.0, 0.0, 1.0), 1.0, 0x35);
    let s = StencilState {
        enabled: true,
        func: CompareFunc::Always,
        reference: 0xab,
        write_mask: 0x0f,
        pass: Replace,
        ..StencilState::DISABLED
    };
    let st = PipelineState {
        stencil: s,
        ..state(&c)
    };
    full_screen(&mut c, &st, 0.5, RED);
    assert_eq!(c.target().stencil_at(0, 0), Some(0x3b));
    let mut c = ctx(2, 2, 1);
    c.clear(Vec4::new(0.0, 0.0, 0.0, 1.0), 1.0, 0x27);
    let s = StencilState {
        enabled: true,
        func: CompareFunc::Equal,
        reference: 0x17,
        read_mask: 0x0f,
        ..StencilState::DISABLED
    };
    let st = PipelineState {
        stencil: s,
        ..state(&c)
    };
    full_screen(&mut c, &st, 0.5, RED);
    assert_eq!(px(&mut c, 1, 1)[0], 255);
}

// ---------------------------------------------------------------- blending

/// Source (0.8, 0.4, 0.2, 0.6) over destination bytes (51, 153, 255, 102) = (0.2, 0.6, 1.0,
/// 0.4), constant (0.2, 0.4, 0.6, 0.8).
/// Drawn at every SIMD level (all must agree).
fn blend_result(src: BlendFactor, dst: BlendFactor, eq: BlendEquation) -> [u8; 4] {
    at_every_level(|level| blend_at(level, src, dst, eq))
}

fn blend_at(level: SimdLevel, src: BlendFactor, dst: BlendFactor, eq: BlendEquation) -> [u8; 4] {
    let mut c = ctx(2, 2, 1);
    c.set_simd_level(level).unwrap();
    c.clear(Vec4::new(0.2, 0.6, 1.0, 0.4), 1.0, 0);
    let blend = BlendState {
        eq_rgb: eq,
        eq_alpha: eq,
        constant: Vec4::new(0.2, 0.4, 0.6, 0.8),
        ..BlendState::new(src, dst, true)
    };
    let st = PipelineState { blend, ..state(&c) };
    full_screen(&mut c, &st, 0.5, Vec4::new(0.8, 0.4, 0.2, 0.6));
    px(&mut c, 0, 0)
}

fn unorm(v: [f32; 4]) -> [u8; 4] {
    v.map(|x| (x.clamp(0.0, 1.0) * 255.0 + 0.5).floor() as u8)
}

#[test]
fn every_blend_factor() {
    use BlendFactor::*;
    let s = [0.8f32, 0.4, 0.2, 0.6];
    let d = [0.2f32, 0.6, 1.0, 0.4];
    let k = [0.2f32, 0.4, 0.6, 0.8];
    // The factor each GL 1.4 blend factor yields for (r, g, b, a), written from the spec.
    let table: [(BlendFactor, [f32; 4]); 15] = [
        (Zero, [0.0; 4]),
        (One, [1.0; 4]),
        (SrcColor, s),
        (OneMinusSrcColor, [0.2, 0.6, 0.8, 0.4]),
        (DstColor, d),
        (OneMinusDstColor, [0.8, 0.4, 0.0, 0.6]),
        (SrcAlpha, [0.6; 4]),
        (OneMinusSrcAlpha, [0.4; 4]),
        (DstAlpha, [0.4; 4]),
        (OneMinusDstAlpha, [0.6; 4]),
        (ConstantColor, k),
        (OneMinusConstantColor, [0.8, 0.6, 0.4, 0.2]),
        (ConstantAlpha, [0.8; 4]),
        (OneMinusConstantAlpha, [0.2; 4]),
        // min(As, 1 − Ad) = min(0.6, 0.6) = 0.6 for RGB; 1 for alpha.
        (SrcAlphaSaturate, [0.6, 0.6, 0.6, 1.0]),
    ];
    for (f, fv) in table {
        // As source factor (destination factor Zero): result = S·f.
        let want = unorm([s[0] * fv[0], s[1] * fv[1], s[2] * fv[2], s[3] * fv[3]]);
        let got = blend_result(f, Zero, BlendEquation::Add);
        assert!(
            close(got, want),
            "src factor {f:?}: got {got:?} want {want:?}"
        );
        // As destination factor (source factor Zero): result = D·f.
        let want = unorm([d[0] * fv[0], d[1] * fv[1], d[2] * fv[2], d[3] * fv[3]]);
        let got = blend_result(Zero, f, BlendEquation::Add);
        assert!(
            close(got, want),
            "dst factor {f:?}: got {got:?} want {want:?}"
        );
    }
}

/// Equal, or one step apart where the exact value sits on a .5 rounding boundary and the
/// f32 product lands on either side (e.g. 0.8·0.6·255 = 122.4 is safe, 0.5·255 = 127.5 is not).
fn close(a: [u8; 4], b: [u8; 4]) -> bool {
    a.iter().zip(&b).all(|(x, y)| x.abs_diff(*y) <= 1)
        && a.iter().zip(&b).filter(|(x, y)| x != y).count() <= 1
}

#[test]
fn every_blend_equation() {
    use BlendEquation::*;
    use BlendFactor::One;
    // Factors One/One. S = (0.8, 0.4, 0.2, 0.6), D = (0.2, 0.6, 1.0, 0.4).
    let table: [(BlendEquation, [f32; 4]); 5] = [
        (Add, [1.0, 1.0, 1.2, 1.0]),               // clamps to 1
        (Subtract, [0.6, -0.2, -0.8, 0.2]),        // S − D, clamps to 0
        (ReverseSubtract, [-0.6, 0.2, 0.8, -0.2]), // D − S
        (Min, [0.2, 0.4, 0.2, 0.4]),
        (Max, [0.8, 0.6, 1.0, 0.6]),
    ];
    for (eq, v) in table {
        let got = blend_result(One, One, eq);
        assert!(
            close(got, unorm(v)),
            "{eq:?}: got {got:?} want {:?}",
            unorm(v)
        );
    }
}

#[test]
fn alpha_blend_preset_exact() {
    // 0.8·0.6 + 0.2·0.4 = 0.56 → 142.8 → 143; 0.4·0.6 + 0.6·0.4 = 0.48 → 122.4 → 122;
    // 0.2·0.6 + 1.0·0.4 = 0.52 → 132.6 → 133; alpha 0.6·0.6 + 0.4·0.4 = 0.52 → 133.
    assert_eq!(
        blend_result(
            BlendFactor::SrcAlpha,
            BlendFactor::OneMinusSrcAlpha,
            BlendEquation::Add
        ),
        [143, 122, 133, 133]
    );
}

#[test]
fn color_mask_and_scissor() {
    let mut c = ctx(8, 8, 1);
    c.clear(Vec4::new(0.2, 0.2, 0.2, 0.2), 1.0, 0);
    let st = PipelineState {
        color_mask: [true, false, true, false],
        scissor: Some(Rect {
            x: 2,
            y: 3,
            width: 3,
            height: 2,
        }),
        ..state(&c)
    };
    full_screen(&mut c, &st, 0.5, Vec4::ONE);
    for y in 0..8 {
        for x in 0..8 {
            let inside = (2..5).contains(&x) && (3..5).contains(&y);
            let want = if inside { [255, 51, 255, 51] } else { [51; 4] };
            assert_eq!(px(&mut c, x, y), want, "({x}, {y})");
        }
    }
}

// ---------------------------------------------------------------- whole-target cases

#[test]
fn constant_colour_full_screen_triangle() {
    // (0.2, 0.4, 0.6, 1.0) → bytes (51, 102, 153, 255) everywhere, for odd and tile-crossing
    // sizes.
    for (w, h) in [(1, 1), (37, 19), (64, 64), (130, 70)] {
        let mut c = ctx(w, h, 2);
        let st = state(&c);
        full_screen(&mut c, &st, 0.5, Vec4::new(0.2, 0.4, 0.6, 1.0));
        let img = c.color_image();
        assert!(img.pixels().all(|p| p.0 == [51, 102, 153, 255]), "{w}x{h}");
        assert_eq!(c.stats().fragments_written, u64::from(w * h));
    }
}

/// A 16×16 viewport at (8, 8) of a 32×32 target, and the clip position of window point
/// `(x, y)` through it.
fn small_viewport(c: &Context) -> (PipelineState, impl Fn(f32, f32) -> Vec4) {
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
    let at = |x: f32, y: f32| Vec4::new((x - 8.0) / 8.0 - 1.0, 1.0 - (y - 8.0) / 8.0, 0.5, 1.0);
    (st, at)
}

/// GL 1.4 §2.11: primitives are clipped to the view volume `−w ≤ x, y ≤ w`, i.e. nothing of
/// a filled polygon lands outside the viewport, even where the target extends past it.
#[test]
fn triangle_larger_than_the_viewport_is_cut_at_it() {
    let mut c = ctx(128, 128, 2);
    let st = PipelineState {
        viewport: Viewport {
            x: 32.0,
            y: 32.0,
            width: 64.0,
            height: 64.0,
            min_depth: 0.0,
            max_depth: 1.0,
        },
        ..state(&c)
    };
    full_screen(&mut c, &st, 0.5, RED);
    let img = c.color_image();
    for (x, y, p) in img.enumerate_pixels() {
        let inside = (32..96).contains(&x) && (32..96).contains(&y);
        assert_eq!(p.0[0] == 255, inside, "pixel ({x}, {y})");
    }
    assert_eq!(c.stats().fragments_written, 64 * 64);
    // A fractional viewport takes the pixels whose centres lie in [x, x + width): 10.5..20.5
    // holds the centres of pixels 10..=19.
    let mut c = ctx(32, 32, 1);
    let st = PipelineState {
        viewport: Viewport {
            x: 10.5,
            y: 0.0,
            width: 10.0,
            height: 32.0,
            min_depth: 0.0,
            max_depth: 1.0,
        },
        ..state(&c)
    };
    full_screen(&mut c, &st, 0.5, RED);
    let img = c.color_image();
    for x in 0..32 {
        assert_eq!(
            img.get_pixel(x, 5).0[0] == 255,
            (10..20).contains(&x),
            "x = {x}"
        );
    }
}

/// GL 1.4 §2.11: a point whose centre is outside the view volume is discarded, and a line is
/// cut where it leaves it; wide points and lines kept by that rule may spill past the
/// viewport edge (GL rasterises their full width, §3.3–§3.4), and plumb does the same.
#[test]
fn points_and_lines_are_clipped_to_the_view_volume() {
    let mut c = ctx(32, 32, 1);
    let (st, at) = small_viewport(&c);
    let wide = PipelineState {
        point_size: 6.0,
        line_width: 4.0,
        ..st
    };
    let draw = |c: &mut Context, st: &PipelineState, pos: &[Vec4], t: Topology| {
        let col = vec![RED; pos.len()];
        c.draw(st, &VertexInput::colored(pos, &col), Indices::None, t)
            .unwrap();
    };
    // Centre 1.5 px right of the viewport (x = 24): discarded although 3 px wide.
    draw(&mut c, &wide, &[at(25.5, 16.5)], Topology::PointList);
    // A 4-wide horizontal line 1 px below the viewport (y = 24): discarded.
    draw(
        &mut c,
        &wide,
        &[at(10.0, 25.0), at(20.0, 25.0)],
        Topology::LineList,
    );
    assert!(c.color_image().pixels().all(|p| p.0[0] == 0));
    // A 1-px line through the whole target is cut at the viewport: pixels 8..=23 of row 12.
    draw(
        &mut c,
        &st,
        &[at(0.0, 12.5), at(32.0, 12.5)],
        Topology::LineList,
    );
    let img = c.color_image();
    for x in 0..32 {
        assert_eq!(
            img.get_pixel(x, 12).0[0] == 255,
            (8..24).contains(&x),
            "x = {x}"
        );
    }
    // A 6-px point centred inside, 1.5 px from the right edge (x = 24), covers [19.5, 25.5):
    // pixels 19..=24, spilling into pixel 24 outside the viewport.
    let mut c = ctx(32, 32, 1);
    draw(&mut c, &wide, &[at(22.5, 16.5)], Topology::PointList);
    let img = c.color_image();
    for x in 0..32 {
        assert_eq!(
            img.get_pixel(x, 16).0[0] == 255,
            (19..25).contains(&x),
            "x = {x}"
        );
    }
}

#[test]
fn huge_coordinates_render_like_full_screen() {
    // Vertices at ±1e6 in clip space (w = 1) are guard-band clipped, not wrapped.
    let mut c = ctx(50, 30, 2);
    let st = state(&c);
    let pos = [
        Vec4::new(-1e6, -1e6, 0.5, 1.0),
        Vec4::new(1e6, -1e6, 0.5, 1.0),
        Vec4::new(0.0, 1e6, 0.5, 1.0),
    ];
    tris(&mut c, &st, &pos, RED);
    assert!(c.color_image().pixels().all(|p| p.0 == [255, 0, 0, 255]));
    assert_eq!(c.stats().geometry.clipped, 1);
}

#[test]
fn near_plane_clipping_exact_coverage() {
    // A = (−1,−1, z=−1), B = (1,−1, 1), C = (−1, 1, 1), w = 1, on 16×16. z is linear, so
    // the near plane z = 0 cuts AB and AC at their midpoints. In window pixels
    // (x_w = 8(x+1), y_w = 8(1−y)): A = (0,16), B = (16,16), C = (0,0); the kept region is
    // 0 ≤ x ≤ y, y − x ≤ 8. The diagonal x = y is a right edge (centres on it excluded), the
    // cut y − x = 8 is a left edge (included): pixel (i, j) is covered iff 0 < j − i ≤ 8.
    let mut c = ctx(16, 16, 1);
    let st = state(&c);
    let pos = [
        Vec4::new(-1.0, -1.0, -1.0, 1.0),
        Vec4::new(1.0, -1.0, 1.0, 1.0),
        Vec4::new(-1.0, 1.0, 1.0, 1.0),
    ];
    tris(&mut c, &st, &pos, RED);
    let img = c.color_image();
    let mut count = 0;
    for j in 0..16i32 {
        for i in 0..16i32 {
            let want = (1..=8).contains(&(j - i));
            assert_eq!(
                img.get_pixel(i as u32, j as u32).0[0] == 255,
                want,
                "pixel ({i}, {j})"
            );
            count += i32::from(want);
        }
    }
    assert_eq!(count, 15 + 14 + 13 + 12 + 11 + 10 + 9 + 8);
    assert_eq!(c.stats().geometry.clipped, 1);
}

#[test]
fn triangles_behind_the_eye_and_across_w_zero() {
    // A perspective ground plane y = −1 reaching behind the camera (z from +5 to −50 in view
    // space). With correct clipping nothing lands above the horizon (the top half of the
    // image); a missing near clip would smear the part behind the eye across the sky.
    let mut c = ctx(32, 32, 2);
    let st = state(&c);
    let proj = glam::Mat4::perspective_rh(1.2, 1.0, 0.1, 100.0);
    let p = |x: f32, z: f32| proj * Vec4::new(x, -1.0, z, 1.0);
    let pos = [
        p(-20.0, 5.0),
        p(20.0, 5.0),
        p(20.0, -50.0),
        p(-20.0, 5.0),
        p(20.0, -50.0),
        p(-20.0, -50.0),
    ];
    tris(&mut c, &st, &pos, RED);
    let img = c.color_image();
    for y in 0..16 {
        for x in 0..32 {
            assert_eq!(img.get_pixel(x, y).0[0], 0, "sky pixel ({x}, {y}) drawn");
        }
    }
    assert!(
        img.get_pixel(16, 31).0[0] == 255,
        "ground under the camera missing"
    );
    // Entirely behind the eye: nothing, counted as clipped away.
    let mut c = ctx(32, 32, 1);
    let behind = [p(-1.0, 1.0), p(1.0, 1.0), p(0.0, 2.0)];
    tris(&mut c, &st, &behind, RED);
    assert!(c.color_image().pixels().all(|p| p.0[0] == 0));
    assert_eq!(c.stats().geometry.clipped_away, 1);
}

#[test]
fn non_finite_and_degenerate_primitives_are_skipped_and_counted() {
    let mut c = ctx(8, 8, 1);
    let st = state(&c);
    let good = [
        Vec4::new(-1.0, -1.0, 0.5, 1.0),
        Vec4::new(3.0, -1.0, 0.5, 1.0),
        Vec4::new(-1.0, 3.0, 0.5, 1.0),
    ];
    let mut pos = Vec::new();
    pos.extend_from_slice(&[Vec4::new(f32::NAN, 0.0, 0.5, 1.0), good[1], good[2]]);
    pos.extend_from_slice(&[good[0], Vec4::new(0.0, f32::INFINITY, 0.5, 1.0), good[2]]);
    pos.extend_from_slice(&[
        good[0],
        good[1],
        Vec4::new(0.0, 0.0, 0.5, f32::NEG_INFINITY),
    ]);
    pos.extend_from_slice(&[good[0], good[0], good[0]]); // zero area
    let stats = c
        .draw(
            &st,
            &VertexInput::positions(&pos),
            Indices::None,
            Topology::TriangleList,
        )
        .unwrap();
    assert_eq!(stats.geometry.primitives, 4);
    assert_eq!(stats.geometry.non_finite, 3);
    assert_eq!(stats.geometry.degenerate, 1);
    assert!(c.color_image().pixels().all(|p| p.0 == [0, 0, 0, 255]));
}

#[test]
fn bad_buffers_and_targets_are_typed_errors() {
    assert!(matches!(
        Context::new(0, 10, ContextOptions::default()),
        Err(Error::InvalidSize { .. })
    ));
    assert!(matches!(
        Context::new(16385, 1, ContextOptions::default()),
        Err(Error::InvalidSize { .. })
    ));
    let mut c = ctx(4, 4, 1);
    let st = state(&c);
    let pos = [Vec4::ZERO; 3];
    let col = [Vec4::ONE; 2];
    let r = c.draw(
        &st,
        &VertexInput::colored(&pos, &col),
        Indices::None,
        Topology::TriangleList,
    );
    assert_eq!(
        r,
        Err(Error::BufferLength {
            what: "colors",
            expected: 3,
            actual: 2
        })
    );
    let r = c.draw(
        &st,
        &VertexInput::positions(&pos),
        Indices::U32(&[0, 1, 3]),
        Topology::TriangleList,
    );
    assert_eq!(
        r,
        Err(Error::IndexOutOfRange {
            index: 3,
            position: 2,
            vertex_count: 3
        })
    );
    let bad = PipelineState {
        viewport: Viewport {
            width: 0.0,
            ..st.viewport
        },
        ..st
    };
    assert!(matches!(
        c.draw(
            &bad,
            &VertexInput::positions(&pos),
            Indices::None,
            Topology::TriangleList
        ),
        Err(Error::InvalidState(_))
    ));
    let bad = PipelineState {
        point_size: f32::NAN,
        ..st
    };
    assert!(c
        .draw(
            &bad,
            &VertexInput::positions(&pos),
            Indices::None,
            Topology::PointList
        )
        .is_err());
}

// ---------------------------------------------------------------- interpolation

#[test]
fn perspective_correct_interpolation() {
    // Edge from A (w = 1, red 0) to B (w = 3, red 1), both at the same NDC x-extent: in screen
    // space the midpoint between them corresponds to the parameter
    //   t = (½·1/3) / (½·1/1 + ½·1/3) = 1/4,
    // so the colour there is 0.25 → 64 (63.75 + 0.5 → 64). Linear (wrong) interpolation
    // would give 128.
    let mut c = ctx(8, 2, 1);
    let st = state(&c);
    // NDC x from −1 to +1 across the 8-pixel row; the screen midpoint x_w = 4 is between
    // pixel centres 3.5 and 4.5, so sample x_ndc(3.5) = −0.125 → t = (7/16·1/3)/(9/16 + 7/48).
    let a = 1.0f32;
    let b = 3.0f32;
    let pos = [
        Vec4::new(-a, -a, 0.0, a),
        Vec4::new(b, -b, 0.0, b),
        Vec4::new(b, b, 0.0, b),
        Vec4::new(-a, -a, 0.0, a),
        Vec4::new(b, b, 0.0, b),
        Vec4::new(-a, a, 0.0, a),
    ];
    let col = [
        Vec4::new(0.0, 0.0, 0.0, 1.0),
        RED,
        RED,
        Vec4::new(0.0, 0.0, 0.0, 1.0),
        RED,
        Vec4::new(0.0, 0.0, 0.0, 1.0),
    ];
    c.draw(
        &st,
        &VertexInput::colored(&pos, &col),
        Indices::None,
        Topology::TriangleList,
    )
    .unwrap();
    for i in 0..8u32 {
        // Screen parameter s of pixel centre i along the edge: s = (i + 0.5)/8.
        // Perspective-correct t = (s/b) / ((1 − s)/a + s/b).
        let s = (i as f32 + 0.5) / 8.0;
        let t = (s / b) / ((1.0 - s) / a + s / b);
        let want = (t * 255.0 + 0.5).floor() as i32;
        let got = i32::from(px(&mut c, i, 0)[0]);
        assert!((got - want).abs() <= 1, "pixel {i}: got {got}, want {want}");
    }
    // s = 0.5 (between pixels 3 and 4): t = 1/4 — the two neighbours straddle 64.
    assert!(px(&mut c, 3, 0)[0] < 64 && px(&mut c, 4, 0)[0] > 64);
}

#[test]
fn flat_shading_uses_the_first_vertex() {
    let mut c = ctx(8, 8, 1);
    let st = PipelineState {
        shade: ShadeModel::Flat,
        ..state(&c)
    };
    let pos = [
        Vec4::new(-1.0, -1.0, 0.5, 1.0),
        Vec4::new(3.0, -1.0, 0.5, 1.0),
        Vec4::new(-1.0, 3.0, 0.5, 1.0),
    ];
    let col = [
        Vec4::new(0.0, 1.0, 0.0, 1.0),
        RED,
        Vec4::new(0.0, 0.0, 1.0, 1.0),
    ];
    c.draw(
        &st,
        &VertexInput::colored(&pos, &col),
        Indices::None,
        Topology::TriangleList,
    )
    .unwrap();
    assert!(c.color_image().pixels().all(|p| p.0 == [0, 255, 0, 255]));
}

#[test]
fn polygon_offset_moves_depth() {
    // A constant-depth triangle (slope 0) with units = 2: z = 0.5 + 2·r, r = 2^(e−23) with
    // 0.5 = 2^−1 → r = 2^−24.
    let mut c = ctx(4, 4, 1);
    let st = PipelineState {
        polygon_offset: PolygonOffset {
            factor: 1.0,
            units: 2.0,
        },
        depth: DepthState {
            func: CompareFunc::Always,
            write: true,
        },
        ..c.default_state()
    };
    full_screen(&mut c, &st, 0.5, RED);
    assert_eq!(
        c.target().depth_at(1, 1),
        Some(0.5 + 2.0 * f32::from_bits((127 - 24) << 23))
    );
}

/// GL 1.4 §3.5.5, the slope term: `o = factor·m + units·r` with `m = max(|∂z/∂x|, |∂z/∂y|)`
/// (the spec's allowed approximation of `√((∂z/∂x)² + (∂z/∂y)²)`, which plumb uses) and
/// `r = 2^(e − 23)` for the largest `|z|` of the polygon (exponent `e`). Depths are window
/// depths (default depth range), vertices at window points, so every value is dyadic and the
/// expected depths are exact.
///
/// - z = 0.75 − x/64 − y/128 on (0, 0), (16, 0), (0, 16): m = 1/64 (the √ form would give
///   0.0175), max |z| = 0.75 → r = 2⁻²⁴. factor 2, units 4: o = 1/32 + 2⁻²². At pixel (2, 3),
///   centre (2.5, 3.5): z = 0.68359375, so 0.71484375 + 2⁻²².
/// - z = 0.125 + x/256 + y/64: m = 1/64 (the y slope), max |z| = 0.375 → r = 2⁻²⁵.
///   factor 3, units −8: o = 3/64 − 2⁻²². At (5, 6), centre (5.5, 6.5): z = 0.248046875, so
///   0.294921875 − 2⁻²².
#[test]
fn polygon_offset_slope_and_units_terms() {
    // 2⁻²², exactly.
    let two_m22 = f32::from_bits((127 - 22) << 23);
    let cases = [
        (
            [0.75, 0.5, 0.625],
            (2.0, 4.0),
            (2, 3),
            0.714_843_75 + two_m22,
        ),
        (
            [0.125, 0.1875, 0.375],
            (3.0, -8.0),
            (5, 6),
            151.0 / 512.0 - two_m22, // 0.294921875
        ),
    ];
    for (z, (factor, units), (i, j), want) in cases {
        let mut c = ctx(16, 16, 1);
        let st = PipelineState {
            polygon_offset: PolygonOffset { factor, units },
            depth: DepthState {
                func: CompareFunc::Always,
                write: true,
            },
            ..c.default_state()
        };
        let pos = [
            win(&c, 0.0, 0.0, z[0]),
            win(&c, 16.0, 0.0, z[1]),
            win(&c, 0.0, 16.0, z[2]),
        ];
        tris(&mut c, &st, &pos, RED);
        assert_eq!(
            c.target().depth_at(i, j),
            Some(want),
            "z {z:?}, factor {factor}, units {units}"
        );
    }
}

/// GL 1.4 §3.5.5: polygon offset applies to polygons only, in whatever mode they are
/// drawn — never to point and line primitives. plumb has one offset (no separate
/// `POLYGON_OFFSET_FILL/LINE/POINT` enables): a non-zero [`PolygonOffset`] acts as all three
/// enabled, so polygons drawn in `Line` or `Point` mode are offset too.
#[test]
fn polygon_offset_applies_to_polygons_only() {
    // Slope 0, units = 2 at depth 0.5: offset 2·2^−24 (see `polygon_offset_moves_depth`).
    let offset = 0.5 + 2.0 * f32::from_bits((127 - 24) << 23);
    let depth_of = |topology: Topology, mode: PolygonMode| {
        let mut c = ctx(8, 8, 1);
        let st = PipelineState {
            polygon_offset: PolygonOffset {
                factor: 1.0,
                units: 2.0,
            },
            polygon_mode: mode,
            depth: DepthState {
                func: CompareFunc::Always,
                write: true,
            },
            ..c.default_state()
        };
        let pos = [
            win(&c, 2.5, 2.5, 0.5),
            win(&c, 6.5, 2.5, 0.5),
            win(&c, 2.5, 6.5, 0.5),
        ];
        let n = topology.vertices_per_primitive();
        c.draw(
            &st,
            &VertexInput::colored(&pos[..n], &[RED; 3][..n]),
            Indices::None,
            topology,
        )
        .unwrap();
        c.target().depth_at(2, 2).unwrap()
    };
    assert_eq!(depth_of(Topology::PointList, PolygonMode::Fill), 0.5);
    assert_eq!(depth_of(Topology::LineList, PolygonMode::Fill), 0.5);
    assert_eq!(depth_of(Topology::TriangleList, PolygonMode::Fill), offset);
    assert_eq!(depth_of(Topology::TriangleList, PolygonMode::Line), offset);
    assert_eq!(depth_of(Topology::TriangleList, PolygonMode::Point), offset);
}

/// GL 1.4 §3.5.5: the offset is computed once per polygon, from the polygon's depth slope,
/// and applied to all its fragments — in `Line` mode to every edge. A triangle whose depth
/// changes only down the screen, drawn filled and then as an outline pulled forward by
/// `factor = −1` under `LESS`: the top edge has no depth slope of its own, but it must still
/// move by the polygon's slope (0.6 / 10 px) and win.
#[test]
fn polygon_offset_in_line_mode_uses_the_polygon_slope() {
    let mut c = ctx(16, 16, 1);
    let fill = PipelineState {
        depth: DepthState::LESS_WRITE,
        ..c.default_state()
    };
    let pos = [
        win(&c, 2.5, 2.5, 0.2),
        win(&c, 12.5, 2.5, 0.2),
        win(&c, 2.5, 12.5, 0.8),
    ];
    tris(&mut c, &fill, &pos, Vec4::new(0.0, 0.0, 1.0, 1.0));
    let lines = PipelineState {
        polygon_mode: PolygonMode::Line,
        polygon_offset: PolygonOffset {
            factor: -1.0,
            units: 0.0,
        },
        ..fill
    };
    tris(&mut c, &lines, &pos, RED);
    for x in 3..12 {
        assert_eq!(px(&mut c, x, 2), [255, 0, 0, 255], "top edge, x = {x}");
    }
    for y in 3..12 {
        assert_eq!(px(&mut c, 2, y), [255, 0, 0, 255], "left edge, y = {y}");
    }
}

/// GL 1.4 §2.13.7 and §3.5.4: in polygon mode `Point` with flat shading every point of a
/// polygon takes the provoking vertex's colour (plumb: the first), not its own.
#[test]
fn flat_shading_in_point_mode_uses_the_provoking_vertex() {
    let mut c = ctx(8, 8, 1);
    let st = PipelineState {
        shade: ShadeModel::Flat,
        polygon_mode: PolygonMode::Point,
        ..state(&c)
    };
    let pos = [
        win(&c, 1.5, 1.5, 0.5),
        win(&c, 6.5, 1.5, 0.5),
        win(&c, 1.5, 6.5, 0.5),
    ];
    let col = [
        Vec4::new(0.0, 1.0, 0.0, 1.0),
        RED,
        Vec4::new(0.0, 0.0, 1.0, 1.0),
    ];
    c.draw(
        &st,
        &VertexInput::colored(&pos, &col),
        Indices::None,
        Topology::TriangleList,
    )
    .unwrap();
    for (x, y) in [(1, 1), (6, 1), (1, 6)] {
        assert_eq!(px(&mut c, x, y), [0, 255, 0, 255], "point ({x}, {y})");
    }
}

// ---------------------------------------------------------------- lines and points

#[test]
fn points_cover_their_square() {
    // A 3-pixel point centred on (4.5, 4.5) covers [3, 6)² → pixels 3..=5; a 1-pixel point at
    // (1.5, 1.5) covers pixel (1, 1) only.
    let mut c = ctx(8, 8, 1);
    let st = PipelineState {
        point_size: 3.0,
        ..state(&c)
    };
    let pos = [win(&c, 4.5, 4.5, 0.5)];
    c.draw(
        &st,
        &VertexInput::colored(&pos, &[RED]),
        Indices::None,
        Topology::PointList,
    )
    .unwrap();
    let st1 = PipelineState {
        point_size: 1.0,
        ..st
    };
    let pos = [win(&c, 1.5, 1.5, 0.5)];
    c.draw(
        &st1,
        &VertexInput::colored(&pos, &[RED]),
        Indices::None,
        Topology::PointList,
    )
    .unwrap();
    assert_eq!(
        coverage(&mut c),
        art("
            ........
            .#......
            ........
            ...###..
            ...###..
            ...###..
            ........
            ........
        ")
    );
}

#[test]
fn line_strip_is_one_pixel_thick_without_double_hits() {
    // A horizontal line through row 2's centres from x = 0.5 to 6.5, then down to (6.5, 6.5);
    // drawn with additive blending so a double hit would show as 2.
    let mut c = ctx(8, 8, 1);
    c.clear(Vec4::new(0.0, 0.0, 0.0, 1.0), 1.0, 0);
    let st = PipelineState {
        blend: BlendState::ADDITIVE,
        ..state(&c)
    };
    let pos = [
        win(&c, 0.5, 2.5, 0.5),
        win(&c, 6.5, 2.5, 0.5),
        win(&c, 6.5, 6.5, 0.5),
    ];
    let col = [Vec4::new(1.0 / 255.0, 0.0, 0.0, 0.0); 3];
    c.draw(
        &st,
        &VertexInput::colored(&pos, &col),
        Indices::None,
        Topology::LineStrip,
    )
    .unwrap();
    let img = c.color_image();
    let mut hits = String::new();
    for y in 0..8 {
        for x in 0..8 {
            hits.push(char::from(b'0' + img.get_pixel(x, y).0[0]));
        }
        hits.push('\n');
    }
    // x-major segment: the parallelogram spans y ∈ [2, 3], x ∈ [0.5, 6.5): centres 0.5..5.5
    // (the end edge x = 6.5 is a right edge). y-major segment: x ∈ [6, 7], y ∈ [2.5, 6.5):
    // rows 2..=5 of column 6 (row 2's centre lies on its top edge: included).
    assert_eq!(
        hits,
        art("
            00000000
            00000000
            11111110
            00000010
            00000010
            00000010
            00000000
            00000000
        ")
    );
}

#[test]
fn wireframe_draws_original_edges_only() {
    // A quad as two triangles in line mode: 4 outer edges plus the shared diagonal (drawn by
    // both triangles).
    let mut c = ctx(16, 16, 1);
    let st = PipelineState {
        polygon_mode: PolygonMode::Line,
        ..state(&c)
    };
    let p = |x, y| win(&c, x, y, 0.5);
    let pos = [
        p(2.5, 2.5),
        p(12.5, 2.5),
        p(12.5, 12.5),
        p(2.5, 2.5),
        p(12.5, 12.5),
        p(2.5, 12.5),
    ];
    tris(&mut c, &st, &pos, RED);
    let img = c.color_image();
    assert_eq!(img.get_pixel(7, 2).0[0], 255, "top edge");
    assert_eq!(img.get_pixel(2, 7).0[0], 255, "left edge");
    assert_eq!(img.get_pixel(7, 7).0[0], 255, "diagonal");
    assert_eq!(img.get_pixel(9, 5).0[0], 0, "interior");
}
