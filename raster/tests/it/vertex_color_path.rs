//! The fused vertex-colour path (`fragment::lanes::vertex_color`: interpolate, depth test,
//! pack and store per group, 8 lanes at every level and 16 lanes on AVX-512's whole groups)
//! against the scalar level, bit for bit: colour bytes, depth values and the count of
//! fragments written, for every depth function it takes (less, less-or-equal, always) with
//! and without depth writes, and for one it leaves to the staged path (greater).

use glam::Vec4;
use plumb_raster::{CompareFunc, DepthState, Indices, PipelineState, Topology, VertexInput};

use crate::common::{at_every_level, ctx};

/// What one frame leaves behind: colour bytes, depth bits, fragments written.
type Frame = (Vec<u8>, Vec<u32>, u64);

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
    c.finish();
    let written = c.stats().fragments_written;
    let t = c.target();
    let depth = t.depth_values().iter().map(|d| d.to_bits()).collect();
    (t.to_rgba_image().into_raw(), depth, written)
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
