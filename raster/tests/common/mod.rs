//! Helpers shared by the raster integration tests.
#![allow(dead_code, reason = "each test binary uses a different subset")]

use glam::Vec4;
use plumb_raster::{Context, ContextOptions, Indices, PipelineState, Topology, VertexInput};

/// A context of `w × h` with `threads` workers, cleared to opaque black, depth 1, stencil 0.
pub fn ctx(w: u32, h: u32, threads: usize) -> Context {
    let mut c = Context::new(
        w,
        h,
        ContextOptions {
            threads: Some(threads),
        },
    )
    .unwrap();
    c.clear(Vec4::new(0.0, 0.0, 0.0, 1.0), 1.0, 0);
    c
}

/// Clip-space position of window point `(x, y)` (pixels, y down) at depth `z`, `w = 1`.
pub fn win(c: &Context, x: f32, y: f32, z: f32) -> Vec4 {
    Vec4::new(
        2.0 * x / c.width() as f32 - 1.0,
        1.0 - 2.0 * y / c.height() as f32,
        z,
        1.0,
    )
}

/// Draws a triangle list with one colour.
pub fn tris(c: &mut Context, st: &PipelineState, pos: &[Vec4], color: Vec4) {
    let col = vec![color; pos.len()];
    c.draw(
        st,
        &VertexInput::colored(pos, &col),
        Indices::None,
        Topology::TriangleList,
    )
    .unwrap();
}

/// Draws a full-screen triangle (overshooting the target) at depth `z` in `color`.
pub fn full_screen(c: &mut Context, st: &PipelineState, z: f32, color: Vec4) {
    let pos = [
        Vec4::new(-1.0, -1.0, z, 1.0),
        Vec4::new(3.0, -1.0, z, 1.0),
        Vec4::new(-1.0, 3.0, z, 1.0),
    ];
    tris(c, st, &pos, color);
}

/// Coverage map: '#' where the red channel is non-zero, '.' elsewhere, one row per line.
pub fn coverage(c: &mut Context) -> String {
    let img = c.color_image();
    let mut s = String::new();
    for y in 0..img.height() {
        for x in 0..img.width() {
            s.push(if img.get_pixel(x, y).0[0] != 0 {
                '#'
            } else {
                '.'
            });
        }
        s.push('\n');
    }
    s
}

/// Turns an ASCII-art literal into the [`coverage`] format (trims indentation).
pub fn art(s: &str) -> String {
    s.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(|l| format!("{l}\n"))
        .collect()
}

/// The colour at `(x, y)`.
pub fn px(c: &mut Context, x: u32, y: u32) -> [u8; 4] {
    c.target().pixel(x, y).unwrap()
}
