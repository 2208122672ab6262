//! `Wrap::Clamp`, GL 1.x `CLAMP` / Wild Magic's `WM_CLAMP` (GL 1.4 §3.8.7): the coordinate
//! is clamped to [0, 1]; with LINEAR the texel pair around `u·n − ½` at an edge includes
//! index −1 or n, which reads the border colour, so the filter mixes the border in over the
//! last half texel; with NEAREST it is clamp-to-edge. Every expectation is worked out by
//! hand in the comments (texel `i` of `n` covers `[i, i+1)/n`; linear filters around
//! `u·n − ½` with weight `α = frac(u·n − ½)` on the upper texel).

use glam::{Vec2, Vec4};
use plumb_raster::texture::{MagFilter, MinFilter, Sampler, Texture, Wrap};
use plumb_raster::SimdLevel;

/// `tex.sample_lod(s, uv, l)`, held to the same bits by the fragment stage's batch sampler at
/// every SIMD level this machine has.
fn sample_lod(tex: &Texture, s: &Sampler, uv: Vec2, l: f32) -> Vec4 {
    let scalar = tex.sample_lod(s, uv, l);
    for level in SimdLevel::available() {
        let got = tex.sample_lod_batch(level, s, &[uv], &[l]).unwrap()[0];
        assert_eq!(
            got.to_array().map(f32::to_bits),
            scalar.to_array().map(f32::to_bits),
            "{level}: {s:?} at {uv} λ {l}"
        );
    }
    scalar
}

fn close(a: Vec4, b: Vec4) -> bool {
    (a - b).abs().max_element() < 1e-6
}

/// A sample of the 8-bit filter (`texture/filter.rs`: weights `⌊256·α⌋`, every lerp rounded
/// to a byte) against the exact weighted sum `want`: each channel is a byte read as
/// `c × 1/255`, with `c` within 1 of `want·255`. The tests below use weights whose 8-bit
/// values are exact (multiples of 1/8), so only the lerps' roundings remain: at most ½ from
/// the row lerps, carried through the column lerp, plus its own ½.
fn close8(got: Vec4, want: Vec4) -> bool {
    got.to_array().iter().zip(want.to_array()).all(|(&g, w)| {
        let c = (g * 255.0).round();
        c * (1.0 / 255.0) == g && (c - w * 255.0).abs() <= 1.0
    })
}

/// Float colour → bytes with the framebuffer rule `floor(clamp(x)·255 + 0.5)`.
fn bytes(v: Vec4) -> [u8; 4] {
    let f = |x: f32| (x.clamp(0.0, 1.0) * 255.0 + 0.5).floor() as u8;
    [f(v.x), f(v.y), f(v.z), f(v.w)]
}

/// 2×1: texel 0 = (0, 200, 0, 255), texel 1 = (0, 100, 0, 255).
fn two_wide() -> Texture {
    Texture::from_rgba8(2, 1, vec![0, 200, 0, 255, 0, 100, 0, 255]).unwrap()
}

const T0: Vec4 = Vec4::new(0.0, 200.0 / 255.0, 0.0, 1.0);
const T1: Vec4 = Vec4::new(0.0, 100.0 / 255.0, 0.0, 1.0);
const BORDER: Vec4 = Vec4::new(1.0, 0.0, 0.0, 1.0);

/// LINEAR along u with `Clamp`, v clamped to the edge (one row): the analytic ramp.
fn linear_u(wrap: Wrap) -> Sampler {
    let mut s = Sampler::BILINEAR.with_border(BORDER);
    s.wrap_u = wrap;
    s.wrap_v = Wrap::ClampToEdge;
    s
}

#[test]
fn linear_at_the_edges_is_half_edge_texel_half_border() {
    let tex = two_wide();
    let s = linear_u(Wrap::Clamp);
    // s = 1: x = 1·2 − ½ = 1.5 → taps 1 and 2 (border), α = ½.
    let right = sample_lod(&tex, &s, Vec2::new(1.0, 0.5), 0.0);
    assert!(close8(right, 0.5 * T1 + 0.5 * BORDER), "{right}");
    assert_eq!(bytes(right), [128, 50, 0, 255]);
    // s = 0: x = −½ → taps −1 (border) and 0, α = ½.
    let left = sample_lod(&tex, &s, Vec2::new(0.0, 0.5), 0.0);
    assert!(close8(left, 0.5 * BORDER + 0.5 * T0), "{left}");
    assert_eq!(bytes(left), [128, 100, 0, 255]);
}

#[test]
fn coordinates_past_the_edge_are_clamped_first() {
    let tex = two_wide();
    let clamp = linear_u(Wrap::Clamp);
    // Past 1 (or below 0) the coordinate is clamped, so the sample is the s = 1 (s = 0) one,
    // never the pure border of CLAMP_TO_BORDER nor the pure edge of CLAMP_TO_EDGE.
    for (s, expect) in [
        (1.7, 0.5 * T1 + 0.5 * BORDER),
        (1e30, 0.5 * T1 + 0.5 * BORDER),
        (f32::INFINITY, 0.5 * T1 + 0.5 * BORDER),
        (-0.3, 0.5 * BORDER + 0.5 * T0),
        (-1e30, 0.5 * BORDER + 0.5 * T0),
        // NaN is clamped to 0.
        (f32::NAN, 0.5 * BORDER + 0.5 * T0),
    ] {
        let got = sample_lod(&tex, &clamp, Vec2::new(s, 0.5), 0.0);
        assert!(close8(got, expect), "s = {s}: {got}");
    }
    let border = sample_lod(
        &tex,
        &linear_u(Wrap::ClampToBorder),
        Vec2::new(1.7, 0.5),
        0.0,
    );
    assert_eq!(border, BORDER);
    let edge = sample_lod(&tex, &linear_u(Wrap::ClampToEdge), Vec2::new(1.7, 0.5), 0.0);
    assert!(close(edge, T1));
}

#[test]
fn the_border_fades_in_over_the_last_half_texel() {
    let tex = two_wide();
    let s = linear_u(Wrap::Clamp);
    // s = 0.9: x = 1.3 → taps 1 and 2 (border), α = 0.3, 8-bit ⌊76.8⌋ = 76: red
    // (255·76 + 128) >> 8 = 76, green (100·180 + 128) >> 8 = 70 (exactly 76.5 and 70).
    let got = sample_lod(&tex, &s, Vec2::new(0.9, 0.5), 0.0);
    assert_eq!(bytes(got), [76, 70, 0, 255], "{got}");
    // s = 0.1: x = −0.3 → taps −1 (border) and 0, α = 0.7, 8-bit ⌊179.2⌋ = 179: red
    // (255·77 + 128) >> 8 = 77, green (200·179 + 128) >> 8 = 140 (exactly 76.5 and 140).
    let got = sample_lod(&tex, &s, Vec2::new(0.1, 0.5), 0.0);
    assert_eq!(bytes(got), [77, 140, 0, 255], "{got}");
    // Between the two texel centres (s in [¼, ¾]) no border tap: the same as the other
    // clamps. s = 0.5: x = ½ → taps 0 and 1, α = ½.
    for wrap in [Wrap::Clamp, Wrap::ClampToEdge, Wrap::ClampToBorder] {
        let got = sample_lod(&tex, &linear_u(wrap), Vec2::new(0.5, 0.5), 0.0);
        assert!(close8(got, 0.5 * T0 + 0.5 * T1), "{wrap:?}: {got}");
    }
}

#[test]
fn both_axes_clamp_at_a_corner_is_a_quarter_texel() {
    // 2×2 solid (0, 200, 0, 255): at (1, 1) three of the four taps are border, weights ¼.
    let tex = Texture::from_rgba8(2, 2, [0, 200, 0, 255].repeat(4)).unwrap();
    let s = Sampler::BILINEAR.with_wrap(Wrap::Clamp).with_border(BORDER);
    // By hand: the top row lerp8(T0, B, 128) = (128, 100), the bottom row the border, the
    // column (128·128 + 255·128 + 128) >> 8 = 192 and (100·128 + 128) >> 8 = 50.
    let got = sample_lod(&tex, &s, Vec2::new(1.0, 1.0), 0.0);
    assert!(close8(got, 0.25 * T0 + 0.75 * BORDER), "{got}");
    assert_eq!(bytes(got), [192, 50, 0, 255]);
    // At (1, 0.5) only the u pair leaves the texture: half and half.
    let got = sample_lod(&tex, &s, Vec2::new(1.0, 0.5), 0.0);
    assert!(close8(got, 0.5 * T0 + 0.5 * BORDER), "{got}");
}

#[test]
fn nearest_is_clamp_to_edge() {
    // 4×1 texels (60i, 0, 0, 255); nearest never reads the border: s = 1 is texel 3
    // (GL 1.4 eq. 3.19), s < 0 texel 0, s > 1 texel 3.
    let mut d = Vec::new();
    for i in 0..4u8 {
        d.extend_from_slice(&[60 * i, 0, 0, 255]);
    }
    let tex = Texture::from_rgba8(4, 1, d).unwrap();
    let s = Sampler::NEAREST.with_wrap(Wrap::Clamp).with_border(BORDER);
    let edge = Sampler::NEAREST
        .with_wrap(Wrap::ClampToEdge)
        .with_border(BORDER);
    for (u, texel) in [
        (1.0, 3u8),
        (0.999, 3),
        (1.5, 3),
        (0.0, 0),
        (-0.5, 0),
        (0.3, 1),
        (f32::NEG_INFINITY, 0),
    ] {
        let got = sample_lod(&tex, &s, Vec2::new(u, 0.5), 0.0);
        assert_eq!(bytes(got), [60 * texel, 0, 0, 255], "u = {u}");
    }
    // The same texel as clamp-to-edge everywhere, both axes, with the mipmap filters too.
    let tex = tex.with_generated_mips();
    for min in [
        MinFilter::Nearest,
        MinFilter::NearestMipmapNearest,
        MinFilter::NearestMipmapLinear,
    ] {
        for k in -40..=40 {
            let uv = Vec2::new(k as f32 * 0.037, 1.0 - k as f32 * 0.029);
            for l in [0.0, 0.7, 1.6, 5.0] {
                let a = sample_lod(&tex, &Sampler { min, ..s }, uv, l);
                let b = sample_lod(&tex, &Sampler { min, ..edge }, uv, l);
                assert_eq!(a.to_array(), b.to_array(), "{min:?} {uv} λ {l}");
            }
        }
    }
}

#[test]
fn every_mip_level_mixes_the_border_at_the_edge() {
    // An 8×8 solid texture with its chain: at s = 1 on any level of width w, x = w − ½, so
    // taps w − 1 and w (border) with α = ½; v = ½ stays inside (clamp-to-edge on v). The
    // blend between two levels of the same value keeps it: ½·T + ½·B at every λ.
    let tex = Texture::from_rgba8(8, 8, [0, 200, 0, 255].repeat(64))
        .unwrap()
        .with_generated_mips();
    for min in [
        MinFilter::Linear,
        MinFilter::LinearMipmapNearest,
        MinFilter::LinearMipmapLinear,
    ] {
        let mut s = Sampler {
            min,
            mag: MagFilter::Linear,
            ..Sampler::TRILINEAR
        }
        .with_border(BORDER);
        s.wrap_u = Wrap::Clamp;
        s.wrap_v = Wrap::ClampToEdge;
        for l in [-1.0, 0.0, 0.4, 1.0, 1.3, 2.5, 3.0, 9.0] {
            let got = sample_lod(&tex, &s, Vec2::new(1.0, 0.5), l);
            assert!(close8(got, 0.5 * T0 + 0.5 * BORDER), "{min:?} λ {l}: {got}");
        }
    }
}

#[test]
fn every_mode_is_listed() {
    assert_eq!(Wrap::ALL_WITH_CLAMP[..4], Wrap::ALL);
    assert_eq!(Wrap::ALL_WITH_CLAMP[4], Wrap::Clamp);
}

#[test]
fn batches_at_every_level_match_the_scalar_sampler() {
    // Many points across and around [0, 1]², every filter pair: `sample_lod` holds the batch
    // path at every SIMD level to the scalar result.
    let mut d = Vec::new();
    for y in 0..5u8 {
        for x in 0..7u8 {
            d.extend_from_slice(&[30 * x, 40 * y, 17 * (x ^ y), 200 + y]);
        }
    }
    let tex = Texture::from_rgba8(7, 5, d).unwrap().with_generated_mips();
    for mag in [MagFilter::Nearest, MagFilter::Linear] {
        for min in MinFilter::ALL {
            let s = Sampler {
                mag,
                min,
                ..Sampler::TRILINEAR
            }
            .with_wrap(Wrap::Clamp)
            .with_border(Vec4::new(0.25, 0.5, 0.75, 1.0));
            for k in 0..97 {
                let uv = Vec2::new(k as f32 * 0.0131 - 0.1, 1.1 - k as f32 * 0.0127);
                for l in [-0.5, 0.25, 0.75, 1.5, 4.0] {
                    let _ = sample_lod(&tex, &s, uv, l);
                }
            }
        }
    }
}
