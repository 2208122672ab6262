//! Analytic sampling tests: wrap modes at texel centres, bilinear weights, level of detail,
//! mip level selection and blend weights, LOD bias/clamps, anisotropy. Every expected value is
//! derived by hand in the comments (texel `i` of `n` covers `[i, i+1)/n`; nearest reads
//! `⌊u·n⌋`; linear filters around `u·n − 0.5`).

use glam::{Vec2, Vec4};
use plumb_raster::texture::{lod, MagFilter, MinFilter, Sampler, TexelFormat, Texture, Wrap};
use plumb_raster::SimdLevel;

/// `tex.sample_lod(s, uv, l)`, held to the same bits through the fragment stage's batch
/// sampler (`Texture::sample_lod_batch`: the 8-lane kernel where the sampler has one) at
/// every SIMD level this machine has, so each test's one expectation covers every level.
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

/// Float colour → bytes with the framebuffer rule `floor(clamp(x)·255 + 0.5)`.
fn bytes(v: Vec4) -> [u8; 4] {
    let f = |x: f32| (x.clamp(0.0, 1.0) * 255.0 + 0.5).floor() as u8;
    [f(v.x), f(v.y), f(v.z), f(v.w)]
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

/// A colour as the sampler stores a border colour: each channel rounded to a byte, read as
/// `c × 1/255`.
fn stored(v: Vec4) -> Vec4 {
    Vec4::from_array(bytes(v).map(|c| f32::from(c) * (1.0 / 255.0)))
}

/// 4×4 texture whose texel (x, y) is (60x, 60y, 7, 255).
fn grid4() -> Texture {
    let mut d = Vec::new();
    for y in 0..4u8 {
        for x in 0..4u8 {
            d.extend_from_slice(&[60 * x, 60 * y, 7, 255]);
        }
    }
    Texture::from_rgba8(4, 4, d).unwrap()
}

/// A texture of `levels` solid grey levels, level k = 40k, from a 2^(levels−1) square.
fn solid_levels(levels: usize) -> Texture {
    let mut v = Vec::new();
    let mut n = 1u32 << (levels - 1);
    for k in 0..levels {
        let g = 40 * k as u8;
        v.push((n, n, [g, g, g, 255].repeat((n * n) as usize)));
        n = (n / 2).max(1);
    }
    Texture::from_levels(v).unwrap()
}

#[test]
fn nearest_texel_centres_every_wrap_mode() {
    let tex = grid4();
    let border = Vec4::new(0.2, 0.4, 0.6, 0.8); // bytes 51, 102, 153, 204
                                                // u or v = (i + 0.5)/4 + whole periods; the index before wrapping is i = ⌊4u⌋.
                                                // Rows: (coordinate, raw index, repeat, mirrored, clamp-edge, border?)
                                                //   repeat: i mod 4; mirrored: m = i mod 8, m<4 ? m : 7−m; edge: clamp(i,0,3).
    let rows: [(f32, i32, u8, u8, u8, bool); 10] = [
        (0.125, 0, 0, 0, 0, false),
        (0.375, 1, 1, 1, 1, false),
        (0.875, 3, 3, 3, 3, false),
        (1.125, 4, 0, 3, 3, true),   // 4 mod 8 = 4 → 7−4 = 3
        (1.375, 5, 1, 2, 3, true),   // 5 → 7−5 = 2
        (1.875, 7, 3, 0, 3, true),   // 7 → 0
        (2.375, 9, 1, 1, 3, true),   // 9 mod 8 = 1
        (-0.125, -1, 3, 0, 0, true), // −1 mod 8 = 7 → 0
        (-0.875, -4, 0, 3, 0, true), // −4 mod 8 = 4 → 3
        (-1.125, -5, 3, 3, 0, true), // −5 mod 4 = 3; −5 mod 8 = 3
    ];
    for (c, i, rep, mir, edge, out) in rows {
        for (wrap, idx) in [
            (Wrap::Repeat, Some(rep)),
            (Wrap::MirroredRepeat, Some(mir)),
            (Wrap::ClampToEdge, Some(edge)),
            (Wrap::ClampToBorder, (!out).then_some(edge)),
        ] {
            let s = Sampler::NEAREST.with_wrap(wrap).with_border(border);
            // Along u (v at the centre of row 2), then along v (u at the centre of column 1).
            let got_u = bytes(sample_lod(&tex, &s, Vec2::new(c, 0.625), 0.0));
            let got_v = bytes(sample_lod(&tex, &s, Vec2::new(0.375, c), 0.0));
            let (eu, ev) = match idx {
                Some(k) => ([60 * k, 120, 7, 255], [60, 60 * k, 7, 255]),
                None => ([51, 102, 153, 204], [51, 102, 153, 204]),
            };
            assert_eq!(got_u, eu, "{wrap:?} u={c} (index {i})");
            assert_eq!(got_v, ev, "{wrap:?} v={c} (index {i})");
        }
    }
}

#[test]
fn wrap_modes_per_axis_are_independent() {
    let tex = grid4();
    let mut s = Sampler::NEAREST;
    s.wrap_u = Wrap::Repeat;
    s.wrap_v = Wrap::ClampToEdge;
    // u = 1.125 → index 4 → repeat 0; v = 1.125 → index 4 → clamp 3.
    assert_eq!(
        bytes(sample_lod(&tex, &s, Vec2::new(1.125, 1.125), 0.0)),
        [0, 180, 7, 255]
    );
}

#[test]
fn border_colour_is_its_stored_value_and_edge_never_uses_it() {
    let tex = grid4();
    let border = Vec4::new(0.3, 0.1, 0.9, 0.7);
    let s = Sampler::BILINEAR
        .with_wrap(Wrap::ClampToBorder)
        .with_border(border);
    // The border enters the filter as a texel would, a byte per channel: (77, 26, 230, 179).
    // Far outside, all four bilinear taps are border: lerp8(b, b, ·) = b exactly.
    assert_eq!(bytes(border), [77, 26, 230, 179]);
    assert_eq!(
        sample_lod(&tex, &s, Vec2::new(-3.0, 5.0), 0.0),
        stored(border)
    );
    let s = Sampler::NEAREST
        .with_wrap(Wrap::ClampToBorder)
        .with_border(border);
    assert_eq!(
        sample_lod(&tex, &s, Vec2::new(1.5, 0.5), 0.0),
        stored(border)
    );
    // Clamp-to-edge at the same place reads the edge texel column 3 / row 2: (180, 120).
    let s = Sampler::NEAREST
        .with_wrap(Wrap::ClampToEdge)
        .with_border(border);
    assert_eq!(
        bytes(sample_lod(&tex, &s, Vec2::new(1.5, 0.625), 0.0)),
        [180, 120, 7, 255]
    );
}

/// GL 2.1 §3.8.8: the border colour is converted through the texture's base internal format
/// like a texel (Table 3.15: L = R, A = A, missing components of RGB/L read as alpha 1), so a
/// luminance texture's border is grey and an RGB texture's border is opaque.
#[test]
fn border_colour_takes_the_texture_format() {
    let border = Vec4::new(0.2, 0.4, 0.6, 0.8);
    let outside = Vec2::new(-3.0, 5.0);
    let cases = [
        (TexelFormat::Rgba8, 4, border),
        (TexelFormat::Rgb8, 3, Vec4::new(0.2, 0.4, 0.6, 1.0)),
        (TexelFormat::L8, 1, Vec4::new(0.2, 0.2, 0.2, 1.0)),
        (TexelFormat::La8, 2, Vec4::new(0.2, 0.2, 0.2, 0.8)),
    ];
    for (format, bytes_per_texel, want) in cases {
        let tex = Texture::from_format(format, 2, 2, &vec![100; 4 * bytes_per_texel]).unwrap();
        for s in [Sampler::NEAREST, Sampler::BILINEAR] {
            let s = s.with_wrap(Wrap::ClampToBorder).with_border(border);
            let want = stored(want);
            assert_eq!(sample_lod(&tex, &s, outside, 0.0), want, "{format:?} {s:?}");
            assert_eq!(
                tex.sample_grad(&s, outside, Vec2::ZERO, Vec2::ZERO),
                want,
                "{format:?} {s:?}"
            );
        }
    }
}

/// 2×2 texture whose four texels are the four unit vectors, so a bilinear sample *is* the
/// weight vector (w00, w10, w01, w11).
fn weights_tex() -> Texture {
    #[rustfmt::skip]
    let d = vec![
        255, 0, 0, 0,    0, 255, 0, 0,   // row 0: T00, T10
        0, 0, 255, 0,    0, 0, 0, 255,   // row 1: T01, T11
    ];
    Texture::from_rgba8(2, 2, d).unwrap()
}

#[test]
fn bilinear_weights_at_known_positions() {
    let tex = weights_tex();
    let s = Sampler::BILINEAR.with_wrap(Wrap::ClampToEdge);
    // x = 2u − 0.5, α = x − ⌊x⌋; y likewise, β. Weights ((1−α)(1−β), α(1−β), (1−α)β, αβ),
    // to the 8-bit filter's rounding ([`close8`]).
    let rows: [(Vec2, Vec4); 6] = [
        // Texel centres: (0.25, 0.25) → x = 0, y = 0 → all weight on T00.
        (Vec2::new(0.25, 0.25), Vec4::new(1.0, 0.0, 0.0, 0.0)),
        (Vec2::new(0.75, 0.75), Vec4::new(0.0, 0.0, 0.0, 1.0)),
        // Centre of the texture: x = y = 0.5 → ¼ each.
        (Vec2::new(0.5, 0.5), Vec4::splat(0.25)),
        // u = 0.375 → x = 0.25 (α = ¼); v = 0.5 → β = ½:
        // (¾·½, ¼·½, ¾·½, ¼·½) = (0.375, 0.125, 0.375, 0.125).
        (Vec2::new(0.375, 0.5), Vec4::new(0.375, 0.125, 0.375, 0.125)),
        // u = 0.625 → α = ¾; v = 0.3125 → y = 0.125, β = ⅛:
        // (¼·⅞, ¾·⅞, ¼·⅛, ¾·⅛) = (0.21875, 0.65625, 0.03125, 0.09375).
        (
            Vec2::new(0.625, 0.3125),
            Vec4::new(0.21875, 0.65625, 0.03125, 0.09375),
        ),
        // Left edge, clamp-to-edge: u = 0 → x = −0.5, i0 = −1 → clamped to 0, i1 = 0:
        // both u taps are column 0; v = 0.25 → β = 0 → T00 only.
        (Vec2::new(0.0, 0.25), Vec4::new(1.0, 0.0, 0.0, 0.0)),
    ];
    for (uv, w) in rows {
        let got = sample_lod(&tex, &s, uv, 0.0);
        assert!(close8(got, w), "uv {uv}: got {got}, want {w}");
    }
    // By hand at the centre (a = b = 128): the row lerps give 128 = (255·128 + 128) >> 8 for
    // the texel on each row, and the column lerp (128·128 + 128) >> 8 = 64 per channel.
    assert_eq!(
        bytes(sample_lod(&tex, &s, Vec2::new(0.5, 0.5), 0.0)),
        [64; 4]
    );
}

#[test]
fn bilinear_at_the_edge_per_wrap_mode() {
    let tex = weights_tex();
    let border = Vec4::new(0.0, 0.0, 0.0, 0.0);
    // u = 0, v = 0.25: x = −0.5 → i0 = −1, i1 = 0, α = ½; y = 0 → row 0 only.
    let rows: [(Wrap, Vec4); 4] = [
        // repeat: −1 → 1: ½·T10 + ½·T00.
        (Wrap::Repeat, Vec4::new(0.5, 0.5, 0.0, 0.0)),
        // mirrored: −1 → 0: T00 twice.
        (Wrap::MirroredRepeat, Vec4::new(1.0, 0.0, 0.0, 0.0)),
        // edge: −1 → 0.
        (Wrap::ClampToEdge, Vec4::new(1.0, 0.0, 0.0, 0.0)),
        // border: ½·border + ½·T00.
        (Wrap::ClampToBorder, Vec4::new(0.5, 0.0, 0.0, 0.0)),
    ];
    for (wrap, want) in rows {
        let s = Sampler::BILINEAR.with_wrap(wrap).with_border(border);
        let got = sample_lod(&tex, &s, Vec2::new(0.0, 0.25), 0.0);
        assert!(close8(got, want), "{wrap:?}: got {got}, want {want}");
    }
}

#[test]
fn the_books_4x4_example_under_the_gl_convention() {
    // Book: (0.2, 0.8) on 4×4 gives i' = 0.6, j' = 2.4 and nearest (1, 2) under its u·(n−1)
    // convention. Under GL's: nearest = (⌊0.8⌋, ⌊3.2⌋) = (0, 3); bilinear x = 0.3, y = 2.7:
    // i0 = 0, α = 0.3, j0 = 2, β = 0.7.
    let tex = grid4();
    let s = Sampler::NEAREST.with_wrap(Wrap::ClampToEdge);
    assert_eq!(
        bytes(sample_lod(&tex, &s, Vec2::new(0.2, 0.8), 0.0)),
        [0, 180, 7, 255]
    );
    // Bilinear r = 60·(0.7·0 + 0.3·1) = 18; g = 60·(0.3·2 + 0.7·3) = 60·2.7 = 162.
    let s = Sampler::BILINEAR.with_wrap(Wrap::ClampToEdge);
    let c = sample_lod(&tex, &s, Vec2::new(0.2, 0.8), 0.0) * 255.0;
    assert!(
        (c.x - 18.0).abs() < 1e-3 && (c.y - 162.0).abs() < 1e-3,
        "{c}"
    );
}

#[test]
fn lod_for_known_screen_scales() {
    let size = Vec2::splat(256.0);
    // (duv/dx, duv/dy, λ): ρ = max(|duv/dx·256|, |duv/dy·256|), λ = log2 ρ.
    let rows: [(Vec2, Vec2, f32); 6] = [
        // 256² texture on a 64² quad: 4 texels per pixel → λ = 2.
        (Vec2::new(1.0 / 64.0, 0.0), Vec2::new(0.0, 1.0 / 64.0), 2.0),
        // 1:1 → λ = 0; 2× magnified → λ = −1.
        (
            Vec2::new(1.0 / 256.0, 0.0),
            Vec2::new(0.0, 1.0 / 256.0),
            0.0,
        ),
        (
            Vec2::new(1.0 / 512.0, 0.0),
            Vec2::new(0.0, 1.0 / 512.0),
            -1.0,
        ),
        // Anisotropic footprint 8 × 2 texels: ρ = max → 8 → λ = 3.
        (
            Vec2::new(8.0 / 256.0, 0.0),
            Vec2::new(0.0, 2.0 / 256.0),
            3.0,
        ),
        // Rotated 4-texel footprint: |(3, 4)/256·256| = 5 → log2 5.
        (
            Vec2::new(3.0 / 256.0, 4.0 / 256.0),
            Vec2::new(0.0, 1.0 / 256.0),
            2.321_928,
        ),
        // Derivatives (4,4)/256·256: |·| = 4√2 → λ = 2.5.
        (Vec2::new(4.0 / 256.0, 4.0 / 256.0), Vec2::ZERO, 2.5),
    ];
    for (dx, dy, want) in rows {
        let l = lod(size, dx, dy);
        assert!(
            (l - want).abs() < 1e-5,
            "dx {dx} dy {dy}: λ {l}, want {want}"
        );
    }
    assert_eq!(lod(size, Vec2::ZERO, Vec2::ZERO), f32::NEG_INFINITY);
}

#[test]
fn mip_level_chosen_for_a_256_texture_on_a_64_quad() {
    // 256² with 9 solid grey levels, level k = 20k (256, 128, …, 1).
    let mut v = Vec::new();
    let mut n = 256u32;
    for k in 0..9u32 {
        let g = (20 * k) as u8;
        v.push((n, n, [g, g, g, 255].repeat((n * n) as usize)));
        n = (n / 2).max(1);
    }
    let tex = Texture::from_levels(v).unwrap();
    let (dx, dy) = (Vec2::new(1.0 / 64.0, 0.0), Vec2::new(0.0, 1.0 / 64.0));
    assert_eq!(tex.lod(dx, dy), 2.0);
    // λ = 2 exactly: every mipmap filter reads level 2 only (value 40); trilinear's blend
    // weight for level 3 is λ − ⌊λ⌋ = 0.
    for s in [
        Sampler::NEAREST_MIPMAP_NEAREST,
        Sampler::BILINEAR_MIPMAP_NEAREST,
        Sampler::TRILINEAR,
    ] {
        let c = tex.sample_grad(&s, Vec2::new(0.3, 0.7), dx, dy);
        assert_eq!(bytes(c), [40, 40, 40, 255], "{:?}", s.min);
    }
    // A 48² quad: ρ = 256/48 = 5.333, λ = log2 5.333 = 2.415: trilinear blends level 2 (40)
    // and 3 (60) with t = 0.415, the 8-bit weight ⌊0.415·256⌋ = 106:
    // (40·150 + 60·106 + 128) >> 8 = 12488 >> 8 = 48 (exactly: 40 + 20·0.415 = 48.3).
    let d = 1.0 / 48.0;
    let c = tex.sample_grad(
        &Sampler::TRILINEAR,
        Vec2::splat(0.5),
        Vec2::new(d, 0.0),
        Vec2::new(0.0, d),
    );
    assert_eq!(bytes(c), [48, 48, 48, 255]);
    assert_eq!(c.x, 48.0 * (1.0 / 255.0));
}

#[test]
fn blend_weights_between_levels_and_nearest_level_rule() {
    // 8×8 with levels 8, 4, 2, 1 (q = 3), solid 0, 40, 80, 120.
    let tex = solid_levels(4);
    let uv = Vec2::new(0.4, 0.6);
    // (λ, linear-mipmap value, nearest-mipmap value), by hand:
    //   linear: d = ⌊λ⌋, t = λ − d, (1−t)·40d + t·40(d+1); λ ≥ q → level q.
    //   nearest: λ ≤ ½ → 0, else ⌈λ + ½⌉ − 1, clamped to q.
    //   λ ≤ 0: magnified → level 0 (value 0).
    let rows: [(f32, f32, f32); 12] = [
        (-1.0, 0.0, 0.0),
        (0.0, 0.0, 0.0),
        (0.25, 10.0, 0.0),  // ¾·0 + ¼·40; nearest: λ ≤ ½ → 0
        (0.5, 20.0, 0.0),   // nearest: λ = ½ → level 0
        (0.75, 30.0, 40.0), // ⌈1.25⌉ − 1 = 1
        (1.25, 50.0, 40.0), // ¾·40 + ¼·80; ⌈1.75⌉ − 1 = 1
        (1.5, 60.0, 40.0),  // ⌈2.0⌉ − 1 = 1 (halfway rounds down)
        (1.75, 70.0, 80.0), // ⌈2.25⌉ − 1 = 2
        (2.75, 110.0, 120.0),
        (3.0, 120.0, 120.0), // λ = q
        (3.5, 120.0, 120.0), // past q: level q; ⌈4⌉ − 1 = 3 = q
        (40.0, 120.0, 120.0),
    ];
    for (lambda, lin, near) in rows {
        for (min, want) in [
            (MinFilter::LinearMipmapLinear, lin),
            (MinFilter::NearestMipmapLinear, lin),
            (MinFilter::LinearMipmapNearest, near),
            (MinFilter::NearestMipmapNearest, near),
        ] {
            let s = Sampler {
                min,
                ..Sampler::TRILINEAR
            };
            // Mag `Linear` over min `NearestMipmapLinear` magnifies up to λ = ½ (GL 1.4
            // §3.8.8's switch point c = ½): level 0.
            let want = if min == MinFilter::NearestMipmapLinear && lambda <= 0.5 {
                0.0
            } else {
                want
            };
            let got = sample_lod(&tex, &s, uv, lambda).x * 255.0;
            assert!(
                (got - want).abs() < 1e-3,
                "{min:?} λ {lambda}: {got}, want {want}"
            );
        }
    }
    // Non-mipmap min filters ignore the chain: always level 0.
    for min in [MinFilter::Nearest, MinFilter::Linear] {
        let s = Sampler {
            min,
            ..Sampler::TRILINEAR
        };
        assert_eq!(sample_lod(&tex, &s, uv, 2.0).x, 0.0);
    }
}

#[test]
fn lod_bias_and_clamps() {
    let tex = solid_levels(4); // 0, 40, 80, 120
    let uv = Vec2::splat(0.5);
    let s = Sampler::NEAREST_MIPMAP_NEAREST;
    // λ_base 1 + bias 1 = 2 → level 2 (80).
    assert_eq!(
        bytes(sample_lod(&tex, &s.with_lod_bias(1.0), uv, 1.0))[0],
        80
    );
    // λ_base 2 − 1.5 = 0.5 → level 0.
    assert_eq!(
        bytes(sample_lod(&tex, &s.with_lod_bias(-1.5), uv, 2.0))[0],
        0
    );
    // min_lod 2: λ 0.3 → 2 (80); max_lod 1: λ 3 → 1 (40).
    assert_eq!(
        bytes(sample_lod(&tex, &s.with_lod_range(2.0, 10.0), uv, 0.3))[0],
        80
    );
    assert_eq!(
        bytes(sample_lod(&tex, &s.with_lod_range(-10.0, 1.0), uv, 3.0))[0],
        40
    );
    // Inverted range: max wins (no panic). NaN λ → min_lod → magnified → level 0.
    assert_eq!(
        bytes(sample_lod(&tex, &s.with_lod_range(3.0, 1.0), uv, 0.0))[0],
        40
    );
    assert_eq!(bytes(sample_lod(&tex, &s, uv, f32::NAN))[0], 0);
    assert_eq!(s.with_lod_bias(0.5).adjust_lod(1.0), 1.5);
}

#[test]
fn magnification_vs_minification_filter() {
    // 2×1: black, white. At u = 0.5 nearest reads ⌊1.0⌋ = texel 1 (white); linear reads
    // x = 0.5 → halfway: (255·128 + 128) >> 8 = 128.
    let tex = Texture::from_rgba8(2, 1, vec![0, 0, 0, 255, 255, 255, 255, 255]).unwrap();
    let s = Sampler {
        mag: MagFilter::Nearest,
        min: MinFilter::Linear,
        ..Sampler::BILINEAR
    };
    let uv = Vec2::new(0.5, 0.5);
    assert_eq!(sample_lod(&tex, &s, uv, 0.0).x, 1.0); // λ ≤ 0 → mag (nearest)
    assert_eq!(sample_lod(&tex, &s, uv, -3.0).x, 1.0);
    assert_eq!(bytes(sample_lod(&tex, &s, uv, 0.1))[0], 128); // λ > 0 → min (linear)
}

/// GL 1.4 §3.8.8 ("Texture Magnification"): with mag `LINEAR` and min
/// `NEAREST_MIPMAP_NEAREST` or `NEAREST_MIPMAP_LINEAR` the switch-over point is `c = 0.5`
/// (magnified for `λ ≤ 0.5`), otherwise `c = 0`. (Mesa switches at 0 for every pair.)
#[test]
fn magnification_switch_point_is_one_half_for_linear_over_nearest_mipmaps() {
    // Level 0, 2×1: black, white; level 1, 1×1: grey 100. At u = 0.5 linear reads 128
    // ((255·128 + 128) >> 8), nearest reads white, level 1 reads 100.
    let tex = Texture::from_levels(vec![
        (2, 1, vec![0, 0, 0, 255, 255, 255, 255, 255]),
        (1, 1, vec![100, 100, 100, 255]),
    ])
    .unwrap();
    let uv = Vec2::new(0.5, 0.5);
    let with = |mag, min| Sampler {
        mag,
        min,
        ..Sampler::BILINEAR
    };
    use MagFilter as G;
    use MinFilter as N;
    for min in [N::NearestMipmapNearest, N::NearestMipmapLinear] {
        let s = with(G::Linear, min);
        // λ = 0.25 and 0.5: magnified (c = ½): linear on level 0.
        assert_eq!(bytes(sample_lod(&tex, &s, uv, 0.25))[0], 128, "{min:?}");
        assert_eq!(bytes(sample_lod(&tex, &s, uv, 0.5))[0], 128, "{min:?}");
        // Past c: minified with the min filter (NEAREST_MIPMAP_NEAREST: level ⌈λ + ½⌉ − 1 = 1;
        // NEAREST_MIPMAP_LINEAR: levels 0 and 1 at weight t = 0.75, 8-bit 192:
        // (255·64 + 100·192 + 128) >> 8 = 35648 >> 8 = 139).
        let want = if min == N::NearestMipmapNearest {
            100
        } else {
            139
        };
        assert_eq!(bytes(sample_lod(&tex, &s, uv, 0.75))[0], want, "{min:?}");
        // The same through the anisotropic path (λ = log2 1.25 ≈ 0.32 from the gradient).
        let s = s.with_anisotropy(4);
        let g = Vec2::new(1.25 / 2.0, 0.0);
        assert_eq!(bytes(tex.sample_grad(&s, uv, g, g))[0], 128, "{min:?}");
    }
    // Every other pair switches at c = 0: λ = 0.25 is minified.
    let s = with(G::Nearest, N::Linear);
    assert_eq!(bytes(sample_lod(&tex, &s, uv, 0.25))[0], 128);
    let s = with(G::Linear, N::Nearest);
    assert_eq!(sample_lod(&tex, &s, uv, 0.25).x, 1.0);
    let s = with(G::Nearest, N::NearestMipmapNearest);
    assert_eq!(sample_lod(&tex, &s, uv, 0.25).x, 1.0);
}

#[test]
fn anisotropic_filtering_picks_n_and_lambda() {
    // 256² with solid levels 20k (as above).
    let mut v = Vec::new();
    let mut n = 256u32;
    for k in 0..9u32 {
        let g = (20 * k) as u8;
        v.push((n, n, [g, g, g, 255].repeat((n * n) as usize)));
        n = (n / 2).max(1);
    }
    let tex = Texture::from_levels(v).unwrap();
    // Footprint 8 × 2 texels: isotropic λ = log2 8 = 3 (60).
    // Aniso 16: N = min(⌈8/2⌉, 16) = 4, λ = log2(8/4) = 1 (20).
    // Aniso 2: N = 2, λ = log2(8/2) = 2 (40).
    let (dx, dy) = (Vec2::new(8.0 / 256.0, 0.0), Vec2::new(0.0, 2.0 / 256.0));
    let s = Sampler::NEAREST_MIPMAP_NEAREST;
    let uv = Vec2::splat(0.5);
    assert_eq!(bytes(tex.sample_grad(&s, uv, dx, dy))[0], 60);
    assert_eq!(
        bytes(tex.sample_grad(&s.with_anisotropy(16), uv, dx, dy))[0],
        20
    );
    assert_eq!(
        bytes(tex.sample_grad(&s.with_anisotropy(2), uv, dx, dy))[0],
        40
    );
    // The major axis may be y.
    assert_eq!(
        bytes(tex.sample_grad(&s.with_anisotropy(16), uv, dy, dx))[0],
        20
    );
    // An isotropic footprint is unchanged by anisotropy: N = 1.
    let d = Vec2::new(4.0 / 256.0, 0.0);
    assert_eq!(
        tex.sample_grad(&Sampler::TRILINEAR.with_anisotropy(16), uv, d, d.perp()),
        tex.sample_grad(&Sampler::TRILINEAR, uv, d, d.perp())
    );
}

#[test]
fn anisotropic_probe_positions() {
    // 8×1 texture, texel i has red 10i, single level, nearest filters.
    let d: Vec<u8> = (0..8u8).flat_map(|i| [10 * i, 0, 0, 255]).collect();
    let tex = Texture::from_rgba8(8, 1, d).unwrap();
    let s = Sampler::NEAREST.with_anisotropy(4);
    // duv/dx = (1, 0) → 8 texels; duv/dy = (0, 2) → 2 texels. N = ⌈8/2⌉ = 4, λ = log2 2 = 1
    // (minified). Probes at u = 0.5 + (k + ½)/4 − ½ = 0.125, 0.375, 0.625, 0.875 → texels
    // 1, 3, 5, 7 → red (10 + 30 + 50 + 70)/4 = 40.
    let c = tex.sample_grad(
        &s,
        Vec2::new(0.5, 0.5),
        Vec2::new(1.0, 0.0),
        Vec2::new(0.0, 2.0),
    );
    assert!((c.x * 255.0 - 40.0).abs() < 1e-3, "{}", c.x * 255.0);
    // Without anisotropy: one nearest sample at u = 0.5 → texel 4 → 40 as well, so check a
    // point where they differ: u = 0.25 → texel 2 (20) vs probes at −0.125, 0.125, 0.375,
    // 0.625 → texels 7 (repeat), 1, 3, 5 → (70 + 10 + 30 + 50)/4 = 40.
    let c1 = tex.sample_grad(
        &Sampler::NEAREST,
        Vec2::new(0.25, 0.5),
        Vec2::X,
        Vec2::new(0.0, 2.0),
    );
    let c4 = tex.sample_grad(&s, Vec2::new(0.25, 0.5), Vec2::X, Vec2::new(0.0, 2.0));
    assert!((c1.x * 255.0 - 20.0).abs() < 1e-3);
    assert!((c4.x * 255.0 - 40.0).abs() < 1e-3);
}

#[test]
fn no_panics_on_hostile_coordinates() {
    let tex = grid4().with_generated_mips();
    for wrap in Wrap::ALL {
        for min in MinFilter::ALL {
            let s = Sampler {
                min,
                ..Sampler::TRILINEAR.with_wrap(wrap).with_anisotropy(16)
            };
            for uv in [
                Vec2::new(f32::NAN, 0.5),
                Vec2::new(f32::INFINITY, f32::NEG_INFINITY),
                Vec2::new(1e30, -1e30),
                Vec2::new(-0.0, 1.0),
            ] {
                for d in [
                    Vec2::ZERO,
                    Vec2::splat(f32::NAN),
                    Vec2::splat(1e30),
                    Vec2::X,
                ] {
                    let _ = tex.sample_grad(&s, uv, d, d.perp());
                    let _ = sample_lod(&tex, &s, uv, d.x);
                }
            }
        }
    }
}

#[test]
fn sampling_is_deterministic_and_bytes_round_trip() {
    // Every byte value reads back as itself through the framebuffer rule.
    let d: Vec<u8> = (0..=255u8).flat_map(|i| [i, 255 - i, i / 2, 255]).collect();
    let tex = Texture::from_rgba8(256, 1, d).unwrap();
    for i in 0..256u32 {
        let u = (i as f32 + 0.5) / 256.0;
        let b = bytes(sample_lod(&tex, &Sampler::NEAREST, Vec2::new(u, 0.5), 0.0));
        assert_eq!(b, [i as u8, 255 - i as u8, i as u8 / 2, 255]);
    }
}

/// Batches of eight neighbouring points (so the lanes share a level, the kernel's
/// level-uniform path) against the scalar sampler, bit for bit at every SIMD level: every
/// wrap that never reads the border, on power-of-two and other sizes down to one texel, at
/// coordinates that put the bilinear pair on each edge (`i0 = −1`, `i0 = w − 1`, the repeat
/// seam, the mirror turns) and far outside, on every level of the chain.
#[test]
fn batches_match_the_scalar_sampler_at_every_edge() {
    let sizes = [
        (1, 1),
        (1, 4),
        (4, 1),
        (2, 2),
        (4, 4),
        (3, 5),
        (8, 2),
        (16, 16),
    ];
    let wraps = [Wrap::Repeat, Wrap::MirroredRepeat, Wrap::ClampToEdge];
    let lambdas = [-1.0, 0.0, 0.4, 1.0, 1.5, 2.75, 9.0];
    let mut checked = 0;
    for (w, h) in sizes {
        let px: Vec<u8> = (0..w * h * 4).map(|i| (i * 37 % 251) as u8).collect();
        let tex = Texture::from_rgba8(w, h, px).unwrap().with_generated_mips();
        for (wu, wv) in wraps.iter().flat_map(|&a| wraps.map(|b| (a, b))) {
            let s = Sampler::TRILINEAR.with_wrap(wu);
            let s = Sampler { wrap_v: wv, ..s };
            for &l in &lambdas {
                // Rows of 8 points, 1/16 of the base level apart, starting on both sides
                // of every edge and seam.
                for start in [
                    -2.03, -1.0, -0.51, -0.02, 0.0, 0.47, 0.93, 0.999, 1.0, 1.52, 7.9,
                ] {
                    let uv: Vec<Vec2> = (0..8)
                        .map(|k| {
                            let u = start + k as f32 / (16.0 * w as f32);
                            Vec2::new(u, 1.0 - u * 0.73)
                        })
                        .collect();
                    let lam = [l; 8];
                    let want: Vec<[u32; 4]> = uv
                        .iter()
                        .map(|&p| tex.sample_lod(&s, p, l).to_array().map(f32::to_bits))
                        .collect();
                    for level in SimdLevel::available() {
                        let got = tex.sample_lod_batch(level, &s, &uv, &lam).unwrap();
                        let got: Vec<[u32; 4]> =
                            got.iter().map(|c| c.to_array().map(f32::to_bits)).collect();
                        assert_eq!(
                            got, want,
                            "{level}: {w}x{h} {wu:?}/{wv:?} λ {l} from {start}"
                        );
                        checked += 1;
                    }
                }
            }
        }
    }
    assert!(checked >= 8 * 9 * 7 * 11, "{checked} batches");
}
