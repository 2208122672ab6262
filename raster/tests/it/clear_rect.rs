//! `Context::clear_rect`: clearing a rectangle of depth and/or stencil (and colour) between
//! draws — GL's `glClear` under a scissor box, Wild Magic's `ClearSubZBuffer` /
//! `ClearSubStencilBuffer`. Expectations are counted by hand: the rectangle is
//! `[x, x + w) × [y, y + h)` clipped to the target, and nothing outside it changes.

use crate::common;

use common::{ctx, full_screen};
use glam::Vec4;
use plumb_raster::{DepthState, PipelineState, Rect};

const RED: Vec4 = Vec4::new(1.0, 0.0, 0.0, 1.0);
const GREEN: Vec4 = Vec4::new(0.0, 1.0, 0.0, 1.0);

fn depth_state(c: &plumb_raster::Context) -> PipelineState {
    PipelineState {
        depth: DepthState::LESS_WRITE,
        ..c.default_state()
    }
}

#[test]
fn depth_clear_inside_the_rectangle_only() {
    for threads in [1, 3] {
        let mut c = ctx(70, 66, threads);
        let st = depth_state(&c);
        // A near red plane: clip z = 0.25 at w = 1 is window depth 0.25 (depth range 0..1).
        full_screen(&mut c, &st, 0.25, RED);
        c.clear_rect(
            Rect {
                x: 60,
                y: 10,
                width: 20, // clipped to the target's 70 columns: 60..70
                height: 5,
            },
            None,
            Some(1.0),
            None,
        );
        // A farther green plane: only where depth was cleared does it pass LESS.
        full_screen(&mut c, &st, 0.5, GREEN);
        let img = c.color_image();
        let t = c.target();
        let mut inside = 0;
        for y in 0..66 {
            for x in 0..70 {
                let in_rect = (60..70).contains(&x) && (10..15).contains(&y);
                let p = img.get_pixel(x, y).0;
                if in_rect {
                    inside += 1;
                    assert_eq!(p, [0, 255, 0, 255], "({x}, {y})");
                    assert_eq!(t.depth_at(x, y), Some(0.5));
                } else {
                    assert_eq!(p, [255, 0, 0, 255], "({x}, {y})");
                    assert_eq!(t.depth_at(x, y), Some(0.25));
                }
                assert_eq!(t.stencil_at(x, y), Some(0));
            }
        }
        assert_eq!(inside, 10 * 5);
    }
}

#[test]
fn stencil_and_colour_planes_are_independent() {
    let mut c = ctx(8, 8, 2);
    c.clear(Vec4::new(0.0, 0.0, 1.0, 1.0), 0.75, 9);
    c.clear_rect(
        Rect {
            x: 2,
            y: 3,
            width: 2,
            height: 4,
        },
        None,
        None,
        Some(200),
    );
    c.clear_rect(
        Rect {
            x: 0,
            y: 0,
            width: 1,
            height: 1,
        },
        Some(Vec4::new(1.0, 0.5, 0.0, 1.0)),
        Some(f32::NAN), // NaN depth clears to 1, as a full clear
        None,
    );
    let img = c.color_image();
    let t = c.target();
    for y in 0..8 {
        for x in 0..8 {
            let s = if (2..4).contains(&x) && (3..7).contains(&y) {
                200
            } else {
                9
            };
            assert_eq!(t.stencil_at(x, y), Some(s), "({x}, {y})");
            let corner = x == 0 && y == 0;
            let d = if corner { 1.0 } else { 0.75 };
            assert_eq!(t.depth_at(x, y), Some(d), "({x}, {y})");
            // 0.5·255 + 0.5 = 128.
            let col = if corner {
                [255, 128, 0, 255]
            } else {
                [0, 0, 255, 255]
            };
            assert_eq!(img.get_pixel(x, y).0, col, "({x}, {y})");
        }
    }
}

#[test]
fn empty_and_off_target_rectangles_clear_nothing() {
    let mut c = ctx(16, 16, 1);
    for r in [
        Rect {
            x: 16,
            y: 0,
            width: 4,
            height: 4,
        },
        Rect {
            x: 3,
            y: 3,
            width: 0,
            height: 9,
        },
        Rect {
            x: u32::MAX,
            y: u32::MAX,
            width: u32::MAX,
            height: u32::MAX,
        },
    ] {
        c.clear_rect(r, Some(RED), Some(0.0), Some(1));
    }
    let t = c.target();
    assert!(t.depth_values().iter().all(|&d| d == 1.0));
    for y in 0..16 {
        for x in 0..16 {
            assert_eq!(t.stencil_at(x, y), Some(0));
            assert_eq!(t.pixel(x, y), Some([0, 0, 0, 255]));
        }
    }
}
