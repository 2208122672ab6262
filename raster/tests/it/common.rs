//! Helpers shared by the raster integration tests.

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

/// Runs `f` at every SIMD level this machine has (scalar first) and checks that every level
/// gives what the scalar path gives; returns that one result for the test's expectation.
pub fn at_every_level<T: PartialEq + std::fmt::Debug>(
    f: impl Fn(plumb_raster::SimdLevel) -> T,
) -> T {
    let levels = plumb_raster::SimdLevel::available();
    let first = f(levels[0]);
    for &level in &levels[1..] {
        assert_eq!(
            f(level),
            first,
            "SIMD level {level} differs from {}",
            levels[0]
        );
    }
    first
}

/// Draws, at SIMD level `level`, a flat-shaded quad of colour `color` filling a 4×4 target
/// at eye depth `z_eye` (< 0) through the fixed-function path with `ff` (UV (0.5, 0.5)
/// everywhere, normals +Z), and returns pixel (1, 1).
pub fn fixed_pixel(
    level: plumb_raster::SimdLevel,
    ff: &plumb_raster::FixedFunction,
    color: Vec4,
    z_eye: f32,
) -> [u8; 4] {
    use glam::{Mat4, Vec2, Vec3};
    use plumb_raster::{MeshInput, ShadeModel, Transforms};
    let mut c = ctx(4, 4, 1);
    c.set_simd_level(level).unwrap();
    let st = PipelineState {
        shade: ShadeModel::Flat,
        ..c.default_state()
    };
    // A 90° frustum: the square |x|, |y| ≤ |z| fills the view.
    let d = -z_eye * 1.5;
    let p = [
        Vec3::new(-d, -d, z_eye),
        Vec3::new(d, -d, z_eye),
        Vec3::new(d, d, z_eye),
        Vec3::new(-d, d, z_eye),
    ];
    let n = [Vec3::Z; 4];
    let col = [color; 4];
    let uv = [Vec2::splat(0.5); 4];
    let uvs = [&uv[..]];
    let mesh = MeshInput {
        positions: &p,
        normals: Some(&n),
        colors: Some(&col),
        uvs: &uvs,
    };
    let t = Transforms {
        view_from_model: Mat4::IDENTITY,
        clip_from_view: Mat4::perspective_rh(std::f32::consts::FRAC_PI_2, 1.0, 0.1, 1000.0),
    };
    c.draw_fixed(
        &st,
        ff,
        &t,
        &mesh,
        Indices::U16(&[0, 1, 2, 0, 2, 3]),
        Topology::TriangleList,
    )
    .unwrap();
    px(&mut c, 1, 1)
}

/// What one frame leaves behind: colour bytes, depth bits, fragments written.
pub type Frame = (Vec<u8>, Vec<u32>, u64);

/// Finishes `c`'s draws and returns its [`Frame`].
pub fn finish_frame(c: &mut Context) -> Frame {
    c.finish();
    let written = c.stats().fragments_written;
    let t = c.target();
    let depth = t.depth_values().iter().map(|d| d.to_bits()).collect();
    (t.to_rgba_image().into_raw(), depth, written)
}
