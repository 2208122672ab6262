//! The context queues binned triangles and the state of each draw until `finish`, and flushes
//! early to bound memory. A flush must never change what is drawn.

use crate::common;

use common::{ctx, px, win};
use glam::Vec4;
use plumb_raster::{Indices, PipelineState, Topology, VertexInput};

/// One draw with more visible triangles than the queue holds (2²¹ binned copies), so the
/// context flushes in the middle of it: the triangles after the flush must still be drawn
/// with the draw's own state. Each triangle covers exactly one pixel centre of a 64×64 target;
/// the last pass over the target is green, every earlier one red, and all share one depth
/// (`LEQUAL` passes),
/// so every pixel must end green.
#[test]
fn a_draw_longer_than_the_queue_is_drawn_whole() {
    let mut c = ctx(64, 64, 2);
    let pixels = 64 * 64;
    let passes = (2 << 20) / pixels + 2; // more than the queue: at least one flush mid-draw
    let mut pos = Vec::with_capacity(passes * pixels * 3);
    let mut col = Vec::with_capacity(passes * pixels * 3);
    for pass in 0..passes {
        let colour = if pass + 1 == passes {
            Vec4::new(0.0, 1.0, 0.0, 1.0)
        } else {
            Vec4::new(1.0, 0.0, 0.0, 1.0)
        };
        for y in 0..64 {
            for x in 0..64 {
                let (x, y) = (x as f32, y as f32);
                pos.push(win(&c, x + 0.25, y + 0.25, 0.0));
                pos.push(win(&c, x + 0.9, y + 0.25, 0.0));
                pos.push(win(&c, x + 0.25, y + 0.9, 0.0));
                col.extend([colour; 3]);
            }
        }
    }
    let st = PipelineState::new(64, 64);
    let stats = c
        .draw(
            &st,
            &VertexInput::colored(&pos, &col),
            Indices::None,
            Topology::TriangleList,
        )
        .unwrap();
    assert_eq!(stats.geometry.primitives, (passes * pixels) as u64);
    for (x, y) in [(0, 0), (63, 0), (0, 63), (63, 63), (31, 17)] {
        assert_eq!(px(&mut c, x, y), [0, 255, 0, 255], "pixel ({x}, {y})");
    }
}
