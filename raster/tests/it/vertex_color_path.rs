//! The fused vertex-colour path (`fragment::lanes::vertex_color`: interpolate, depth test,
//! pack and store per group, 8 lanes at every level and 16 lanes on AVX-512's whole groups)
//! against the scalar level, bit for bit: colour bytes, depth values and the count of
//! fragments written, for every depth function it takes (less, less-or-equal, always) with
//! and without depth writes, and for one it leaves to the staged path (greater).

use glam::Vec4;
use plumb_raster::{CompareFunc, DepthState, Indices, PipelineState, Topology, VertexInput};

use crate::common::{at_every_level, ctx, finish_frame, Frame};

/// `n` random triangles (xorshift, fixed seed) with varying `w` (perspective) and colours
/// past both ends of 0..1, some spilling off the target.
fn triangles(n: usize, seed: u64) -> (Vec<Vec4>, Vec<Vec4>) {
    let mut rng = plumb_raster::rng::XorShift64::new(seed);
    let mut next = move || rng.next_f32();
    let (mut pos, mut col) = (Vec::new(), Vec::new());
    for _ in 0..3 * n {
        let w = 0.5 + 2.0 * next();
        pos.push(Vec4::new(
            (next() * 2.6 - 1.3) * w,
            (next() * 2.6 - 1.3) * w,
            (next() * 2.2 - 1.1) * w,
            w,
        ));
        col.push(Vec4::new(
            next() * 1.6 - 0.3,
            next() * 1.6 - 0.3,
            next() * 1.6 - 0.3,
            next() * 1.6 - 0.3,
        ));
    }
    (pos, col)
}

fn frame(level: plumb_raster::SimdLevel, func: CompareFunc, write: bool) -> Frame {
    // 133 × 71: rows that are not a multiple of 16 or 8 wide, so spans end in partial groups.
    let mut c = ctx(133, 71, 1);
    c.set_simd_level(level).unwrap();
    // `greater` starts from the near plane, the others from the far one.
    let clear = if func == CompareFunc::Greater {
        0.0
    } else {
        1.0
    };
    c.clear(Vec4::new(0.0, 0.0, 0.0, 1.0), clear, 0);
    let st = PipelineState {
        depth: DepthState { func, write },
        ..c.default_state()
    };
    // Large triangles (long row spans) and small ones (the 8×8 block path).
    for (n, seed, scale) in [
        (60, 0x9e37_79b9_7f4a_7c15, 1.0),
        (400, 0x2545_f491_4f6c_dd1d, 0.08),
    ] {
        let (mut pos, col) = triangles(n, seed);
        for tri in pos.chunks_mut(3) {
            let c0 = tri[0];
            for v in &mut tri[1..] {
                *v = c0 + (*v - c0) * Vec4::new(scale, scale, 1.0, 1.0);
            }
        }
        c.draw(
            &st,
            &VertexInput::colored(&pos, &col),
            Indices::None,
            Topology::TriangleList,
        )
        .unwrap();
    }
    finish_frame(&mut c)
}

#[test]
fn vertex_color_path_matches_the_scalar_level_everywhere() {
    for func in [
        CompareFunc::Less,
        CompareFunc::LessEqual,
        CompareFunc::Always,
        CompareFunc::Greater,
    ] {
        for write in [true, false] {
            let (rgba, _, written) = at_every_level(|l| frame(l, func, write));
            // Not a vacuous comparison: the frame is drawn, and the depth test rejects some
            // fragments.
            assert!(
                written > 5_000,
                "{func:?} write={write}: {written} fragments"
            );
            let lit = rgba.chunks(4).filter(|p| p[..3] != [0, 0, 0]).count();
            assert!(lit > 4_000, "{func:?} write={write}: {lit} lit pixels");
        }
    }
}

/// Small triangles (sizes `lo..hi` pixels: up to 8 gives boxes of up to 8×8 pixels, the
/// block class; 8 to 16, the 16×16 class of up to four blocks) crowded against tile edges
/// and the target's edges: the right edge of a tile (where the direct block moves left to
/// stay inside the tile row), its bottom rows, the partial tiles of a 203 × 137 target.
fn small_triangles(
    n: usize,
    seed: u64,
    (w, h): (f32, f32),
    (lo, hi): (f32, f32),
) -> (Vec<Vec4>, Vec<Vec4>) {
    let mut rng = plumb_raster::rng::XorShift64::new(seed);
    let mut next = move || rng.next_f32();
    let (mut pos, mut col) = (Vec::new(), Vec::new());
    for i in 0..n {
        // Centres near a tile's right or bottom edge (tiles are 64 pixels), or anywhere.
        let near = |v: f32, edge: f32| (v / 64.0).floor() * 64.0 + edge;
        let (mut cx, mut cy) = (next() * w, next() * h);
        match i % 4 {
            0 => cx = near(cx, 61.0 + 3.0 * next()),
            1 => cy = near(cy, 61.0 + 3.0 * next()),
            2 => (cx, cy) = (near(cx, 60.0 + 4.0 * next()), near(cy, 60.0 + 4.0 * next())),
            _ => {}
        }
        let size = lo + (hi - lo) * next();
        for _ in 0..3 {
            let (x, y) = (cx + (next() - 0.5) * size, cy + (next() - 0.5) * size);
            let ww = 0.5 + 2.0 * next();
            pos.push(Vec4::new(
                (2.0 * x / w - 1.0) * ww,
                (1.0 - 2.0 * y / h) * ww,
                (next() * 1.1 - 0.05) * ww,
                ww,
            ));
            col.push(Vec4::new(
                next() * 1.6 - 0.3,
                next() * 1.6 - 0.3,
                next() * 1.6 - 0.3,
                next() * 1.6 - 0.3,
            ));
        }
    }
    (pos, col)
}

/// [`small_triangles`] drawn at `level`, through the fused path, or (`staged`) through the
/// staged path on gathered pixels: a stencil test that always passes and keeps every value
/// turns the fused kernels off without changing a pixel.
fn small_frame(
    level: plumb_raster::SimdLevel,
    func: CompareFunc,
    write: bool,
    staged: bool,
    sizes: (f32, f32),
) -> Frame {
    let (w, h) = (203, 137);
    let mut c = ctx(w, h, 2);
    c.set_simd_level(level).unwrap();
    let mut st = PipelineState {
        depth: DepthState { func, write },
        ..c.default_state()
    };
    st.stencil.enabled = staged;
    for (n, seed) in [(3000, 0x243f_6a88_85a3_08d3), (3000, 0x1319_8a2e_0370_7344)] {
        let (pos, col) = small_triangles(n, seed, (w as f32, h as f32), sizes);
        c.draw(
            &st,
            &VertexInput::colored(&pos, &col),
            Indices::None,
            Topology::TriangleList,
        )
        .unwrap();
    }
    finish_frame(&mut c)
}

/// The small-triangle blocks written straight into the tile (`FragmentPath::run_blocks`)
/// against the same pixels gathered, shaded by the staged path and scattered back, bit for
/// bit at every level: colour bytes, depth values, fragments written. Both classes: one
/// block (sizes up to 8 pixels) and up to four (8 to 16, which the staged path takes as
/// gathered pixels or row spans).
#[test]
fn small_blocks_in_place_match_the_gathered_path() {
    for (func, sizes) in [
        (CompareFunc::Less, (1.0, 8.0)),
        (CompareFunc::LessEqual, (1.0, 8.0)),
        (CompareFunc::Always, (1.0, 8.0)),
        (CompareFunc::Less, (8.0, 16.0)),
        (CompareFunc::LessEqual, (8.0, 16.0)),
        (CompareFunc::Always, (8.0, 16.0)),
    ] {
        for write in [true, false] {
            let staged = at_every_level(|l| small_frame(l, func, write, true, sizes));
            let fused = at_every_level(|l| small_frame(l, func, write, false, sizes));
            assert!(
                fused == staged,
                "{func:?} write={write} sizes {sizes:?}: the direct blocks differ from the \
                 gathered path"
            );
            assert!(
                fused.2 > 5_000,
                "{func:?} write={write}: {} fragments",
                fused.2
            );
        }
    }
}
