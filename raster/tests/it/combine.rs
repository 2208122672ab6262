//! Apply modes and the combiner against hand-computed values (all inputs are short binary
//! fractions, so the arithmetic below is exact in f32).

use crate::common;

use common::{at_every_level, fixed_pixel};
use glam::Vec4;
use plumb_raster::combine::{apply, ApplyMode, CombineFn, CombineState, Operand, Source};
use plumb_raster::texture::TexelFormat;

const PREV: Vec4 = Vec4::new(0.5, 0.25, 1.0, 0.5); // Cf, Af
const TEX: Vec4 = Vec4::new(0.25, 0.75, 0.5, 0.25); // Ct, At
const CONST: Vec4 = Vec4::new(1.0, 0.5, 0.0, 0.75); // Cc, Ac
const PRIM: Vec4 = Vec4::new(0.75, 0.5, 0.25, 1.0);

fn close(a: Vec4, b: Vec4) -> bool {
    (a - b).abs().max_element() < 1e-6
}

#[test]
fn apply_modes_rgba_texture() {
    let rows: [(ApplyMode, Vec4); 5] = [
        // Replace: (Ct, At).
        (ApplyMode::Replace, Vec4::new(0.25, 0.75, 0.5, 0.25)),
        // Decal: (1 − ¼)·Cf + ¼·Ct = (0.375 + 0.0625, 0.1875 + 0.1875, 0.75 + 0.125); A = Af.
        (ApplyMode::Decal, Vec4::new(0.4375, 0.375, 0.875, 0.5)),
        // Modulate: Ct·Cf = (0.125, 0.1875, 0.5); At·Af = 0.125.
        (ApplyMode::Modulate, Vec4::new(0.125, 0.1875, 0.5, 0.125)),
        // Blend: (1 − Ct)·Cf + Ct·Cc = (0.75·0.5 + 0.25·1, 0.25·0.25 + 0.75·0.5,
        //        0.5·1 + 0.5·0) = (0.625, 0.4375, 0.5); A = At·Af = 0.125.
        (ApplyMode::Blend, Vec4::new(0.625, 0.4375, 0.5, 0.125)),
        // Add: Ct + Cf = (0.75, 1.0, 1.5 → 1); A = 0.125.
        (ApplyMode::Add, Vec4::new(0.75, 1.0, 1.0, 0.125)),
    ];
    for (mode, want) in rows {
        let got = apply(&mode, PREV, TEX, PRIM, CONST);
        assert!(close(got, want), "{mode:?}: {got} vs {want}");
        // for_format leaves every mode alone on an RGBA texture.
        assert_eq!(mode.for_format(TexelFormat::Rgba8), mode);
    }
}

#[test]
fn apply_modes_rgb_texture_match_gls_rgb_row() {
    // An RGB (or L) texture is stored with At = 1. GL's RGB row: every alpha is Af (= 0.5).
    let tex = TEX.truncate().extend(1.0);
    let rows: [(ApplyMode, Vec4); 5] = [
        (ApplyMode::Replace, Vec4::new(0.25, 0.75, 0.5, 0.5)), // (Ct, Af)
        (ApplyMode::Decal, Vec4::new(0.25, 0.75, 0.5, 0.5)),   // (Ct, Af)
        (ApplyMode::Modulate, Vec4::new(0.125, 0.1875, 0.5, 0.5)),
        (ApplyMode::Blend, Vec4::new(0.625, 0.4375, 0.5, 0.5)),
        (ApplyMode::Add, Vec4::new(0.75, 1.0, 1.0, 0.5)),
    ];
    for format in [TexelFormat::Rgb8, TexelFormat::L8] {
        for (mode, want) in rows {
            let got = apply(&mode.for_format(format), PREV, tex, PRIM, CONST);
            assert!(close(got, want), "{format:?} {mode:?}: {got} vs {want}");
        }
    }
    // Without the per-format rewrite, Replace takes At = 1 (the RGBA row).
    assert_eq!(apply(&ApplyMode::Replace, PREV, tex, PRIM, CONST).w, 1.0);
}

/// A combiner with sources (Texture, Previous, Constant), colour/alpha operands, scale 1.
fn comb(rgb: CombineFn, alpha: CombineFn) -> CombineState {
    CombineState {
        rgb,
        alpha,
        src_rgb: [Source::Texture, Source::Previous, Source::Constant],
        op_rgb: [Operand::Color; 3],
        src_alpha: [Source::Texture, Source::Previous, Source::Constant],
        op_alpha: [Operand::Alpha; 3],
        rgb_scale: 1.0,
        alpha_scale: 1.0,
    }
}

#[test]
fn combine_functions() {
    // V0 = Ct = (0.25, 0.75, 0.5), V1 = Cf = (0.5, 0.25, 1.0), V2 = Cc = (1.0, 0.5, 0.0).
    // a0 = At = 0.25, a1 = Af = 0.5, a2 = Ac = 0.75.
    let rows: [(CombineFn, [f32; 3], f32); 6] = [
        (CombineFn::Replace, [0.25, 0.75, 0.5], 0.25),
        // V0·V1; a0·a1 = 0.125.
        (CombineFn::Modulate, [0.125, 0.1875, 0.5], 0.125),
        // V0 + V1 = (0.75, 1.0, 1.5 → 1); 0.75.
        (CombineFn::Add, [0.75, 1.0, 1.0], 0.75),
        // V0 + V1 − ½ = (0.25, 0.5, 1.0); 0.25 + 0.5 − 0.5 = 0.25.
        (CombineFn::AddSigned, [0.25, 0.5, 1.0], 0.25),
        // V0·V2 + V1·(1 − V2) = (0.25·1 + 0.5·0, 0.75·0.5 + 0.25·0.5, 0.5·0 + 1·1)
        //   = (0.25, 0.5, 1.0); 0.25·0.75 + 0.5·0.25 = 0.3125.
        (CombineFn::Interpolate, [0.25, 0.5, 1.0], 0.3125),
        // V0 − V1 = (−0.25 → 0, 0.5, −0.5 → 0); 0.25 − 0.5 → 0.
        (CombineFn::Subtract, [0.0, 0.5, 0.0], 0.0),
    ];
    for (f, rgb, a) in rows {
        let got = apply(&ApplyMode::Combine(comb(f, f)), PREV, TEX, PRIM, CONST);
        let want = Vec4::new(rgb[0], rgb[1], rgb[2], a);
        assert!(close(got, want), "{f:?}: {got} vs {want}");
    }
}

#[test]
fn combine_dot3_and_scales() {
    // Dot3 of T = (0.75, 0.5, 0.75) and P = (0.75, 0.5, 0.5):
    // 4·(0.25·0.25 + 0·0 + 0.25·0) = 0.25.
    let t = Vec4::new(0.75, 0.5, 0.75, 0.25);
    let p = Vec4::new(0.75, 0.5, 0.5, 1.0);
    let mut c = CombineState::DOT3; // Dot3Rgb(Texture, Primary), alpha = previous alpha
    let got = apply(&ApplyMode::Combine(c), PREV, t, p, CONST);
    assert!(close(got, Vec4::new(0.25, 0.25, 0.25, 0.5)), "{got}");
    // Scale 2 → 0.5, scale 4 → 1.0.
    for (scale, v) in [(2.0, 0.5), (4.0, 1.0)] {
        c.rgb_scale = scale;
        let got = apply(&ApplyMode::Combine(c), PREV, t, p, CONST);
        assert!(close(got, Vec4::new(v, v, v, 0.5)), "scale {scale}: {got}");
    }
    // Dot3Rgba writes all four channels (scaled by rgb_scale = 2 → 0.5) and ignores alpha.
    c.rgb = CombineFn::Dot3Rgba;
    c.rgb_scale = 2.0;
    assert!(close(
        apply(&ApplyMode::Combine(c), PREV, t, p, CONST),
        Vec4::splat(0.5)
    ));
    // Scales with clamping: Modulate (0.125, 0.1875, 0.5) ×2 = (0.25, 0.375, 1.0),
    // ×4 = (0.5, 0.75, 2 → 1); alpha 0.125 ×2 = 0.25, ×4 = 0.5.
    let mut m = comb(CombineFn::Modulate, CombineFn::Modulate);
    m.rgb_scale = 2.0;
    m.alpha_scale = 2.0;
    let got = apply(&ApplyMode::Combine(m), PREV, TEX, PRIM, CONST);
    assert!(close(got, Vec4::new(0.25, 0.375, 1.0, 0.25)), "{got}");
    m.rgb_scale = 4.0;
    m.alpha_scale = 4.0;
    let got = apply(&ApplyMode::Combine(m), PREV, TEX, PRIM, CONST);
    assert!(close(got, Vec4::new(0.5, 0.75, 1.0, 0.5)), "{got}");
}

#[test]
fn combine_sources_and_operands() {
    // Replace(V0) with each source / operand.
    let rows: [(Source, Operand, Vec4); 8] = [
        (
            Source::Texture,
            Operand::Color,
            Vec4::new(0.25, 0.75, 0.5, 0.25),
        ),
        (
            Source::Constant,
            Operand::Color,
            Vec4::new(1.0, 0.5, 0.0, 0.75),
        ),
        (
            Source::Primary,
            Operand::Color,
            Vec4::new(0.75, 0.5, 0.25, 1.0),
        ),
        (
            Source::Previous,
            Operand::Color,
            Vec4::new(0.5, 0.25, 1.0, 0.5),
        ),
        // 1 − Ct = (0.75, 0.25, 0.5); alpha operand OneMinusColor reads 1 − At = 0.75.
        (
            Source::Texture,
            Operand::OneMinusColor,
            Vec4::new(0.75, 0.25, 0.5, 0.75),
        ),
        // At replicated = 0.25; alpha 0.25.
        (
            Source::Texture,
            Operand::Alpha,
            Vec4::new(0.25, 0.25, 0.25, 0.25),
        ),
        // 1 − At = 0.75.
        (
            Source::Texture,
            Operand::OneMinusAlpha,
            Vec4::new(0.75, 0.75, 0.75, 0.75),
        ),
        // 1 − Ac = 0.25.
        (
            Source::Constant,
            Operand::OneMinusAlpha,
            Vec4::new(0.25, 0.25, 0.25, 0.25),
        ),
    ];
    for (src, op, want) in rows {
        let c = CombineState {
            src_rgb: [src; 3],
            op_rgb: [op; 3],
            src_alpha: [src; 3],
            op_alpha: [op; 3],
            ..comb(CombineFn::Replace, CombineFn::Replace)
        };
        let got = apply(&ApplyMode::Combine(c), PREV, TEX, PRIM, CONST);
        assert!(close(got, want), "{src:?} {op:?}: {got} vs {want}");
    }
}

#[test]
fn combine_presets() {
    // Soft add with a white constant: Ct + Cp·(1 − Ct) =
    // (0.25 + 0.5·0.75, 0.75 + 0.25·0.25, 0.5 + 1·0.5) = (0.625, 0.8125, 1.0); A = Af = 0.5.
    let got = apply(
        &ApplyMode::Combine(CombineState::SOFT_ADD),
        PREV,
        TEX,
        PRIM,
        Vec4::ONE,
    );
    assert!(close(got, Vec4::new(0.625, 0.8125, 1.0, 0.5)), "{got}");
    // The default combiner is GL's, equal to Modulate on an RGBA texture.
    assert_eq!(
        apply(
            &ApplyMode::Combine(CombineState::default()),
            PREV,
            TEX,
            PRIM,
            CONST
        ),
        apply(&ApplyMode::Modulate, PREV, TEX, PRIM, CONST)
    );
    // Unit 0: previous = primary, so Previous and Primary agree.
    let mut c = comb(CombineFn::Replace, CombineFn::Replace);
    c.src_rgb[0] = Source::Previous;
    let a = apply(&ApplyMode::Combine(c), PRIM, TEX, PRIM, CONST);
    c.src_rgb[0] = Source::Primary;
    assert_eq!(a, apply(&ApplyMode::Combine(c), PRIM, TEX, PRIM, CONST));
    assert_eq!(ApplyMode::default(), ApplyMode::Modulate);
}

#[test]
fn results_are_clamped_and_nan_free() {
    let big = Vec4::splat(3.0);
    let got = apply(&ApplyMode::Add, big, big, big, big);
    assert_eq!(got, Vec4::new(1.0, 1.0, 1.0, 1.0));
    let nan = Vec4::splat(f32::NAN);
    for mode in [ApplyMode::Replace, ApplyMode::Modulate, ApplyMode::Add] {
        let got = apply(&mode, nan, nan, nan, nan);
        assert!(!got.is_nan(), "{mode:?}");
    }
}

/// The apply and combine stages of the fragment pipeline, drawn at every SIMD level: each
/// level gives the bytes of the reference `apply` above (itself checked by hand in the
/// tests above), rounded by the framebuffer rule.
#[test]
fn apply_stages_through_the_pipeline_at_every_level() {
    use plumb_raster::texture::{Sampler, Texture};
    use plumb_raster::{FixedFunction, TextureUnit};
    use std::sync::Arc;
    // Texel bytes (64, 191, 128, 64) ≈ TEX; a 1×1 texture reads the same texel everywhere.
    let texel = [64u8, 191, 128, 64];
    let t = Vec4::from_array(texel.map(|b| f32::from(b) / 255.0));
    let unorm = |v: Vec4| {
        v.to_array()
            .map(|x| (x.clamp(0.0, 1.0) * 255.0 + 0.5).floor() as u8)
    };
    let modes = [
        ApplyMode::Replace,
        ApplyMode::Decal,
        ApplyMode::Modulate,
        ApplyMode::Blend,
        ApplyMode::Add,
        ApplyMode::Combine(CombineState::SOFT_ADD),
        ApplyMode::Combine(CombineState::DOT3),
        ApplyMode::Combine(comb(CombineFn::Interpolate, CombineFn::AddSigned)),
    ];
    for format in [TexelFormat::Rgba8, TexelFormat::Rgb8] {
        // RGB textures are stored with alpha 1 (`TexelFormat`).
        let bytes = &texel[..format.bytes_per_texel()];
        let tex = Arc::new(Texture::from_format(format, 1, 1, bytes).unwrap());
        let t = if format.has_alpha() {
            t
        } else {
            t.truncate().extend(1.0)
        };
        for mode in modes {
            let ff = FixedFunction {
                units: vec![TextureUnit {
                    apply: mode,
                    constant: CONST,
                    ..TextureUnit::new(Arc::clone(&tex), Sampler::TRILINEAR)
                }],
                ..Default::default()
            };
            let want = unorm(apply(&mode.for_format(format), PREV, t, PREV, CONST));
            let got = at_every_level(|l| fixed_pixel(l, &ff, PREV, -2.0));
            assert_eq!(got, want, "{format:?} {mode:?}");
        }
    }
}

/// GL 2.1 §3.8.8 (and Table 3.15): the border colour is converted to the texture's base
/// format like a texel before it reaches the texture environment, so in `MODULATE` an RGB
/// texture's border contributes alpha 1 (the fragment keeps its own alpha) and a luminance
/// texture's border is grey `(R, R, R, 1)`. Drawn through the pipeline: a quad whose texture
/// coordinates are all (−0.5, −0.5), so with `ClampToBorder` every tap is the border
/// (0.25, 0.75, 0.5, 0) — vertex colour (0.5, 0.25, 1, 0.5):
///
/// | format | border as texel | modulated | bytes |
/// |---|---|---|---|
/// | RGBA | (0.25, 0.75, 0.5, 0) | (0.125, 0.1875, 0.5, 0) | (32, 48, 128, 0) |
/// | RGB | (0.25, 0.75, 0.5, 1) | (0.125, 0.1875, 0.5, 0.5) | (32, 48, 128, 128) |
/// | L | (0.25, 0.25, 0.25, 1) | (0.125, 0.0625, 0.25, 0.5) | (32, 16, 64, 128) |
/// | LA | (0.25, 0.25, 0.25, 0) | (0.125, 0.0625, 0.25, 0) | (32, 16, 64, 0) |
///
/// (0.125·255 = 31.9 → 32, 0.1875·255 = 47.8 → 48, 0.0625·255 = 15.9 → 16, 0.25·255 =
/// 63.75 → 64, 0.5·255 + 0.5 = 128.)
#[test]
fn border_colour_reaches_modulate_in_the_textures_format() {
    use glam::{Mat4, Vec2, Vec3};
    use plumb_raster::texture::{Sampler, Texture, Wrap};
    use plumb_raster::*;
    use std::sync::Arc;
    let draw = |level: SimdLevel, format: TexelFormat, mag: texture::MagFilter| {
        let mut c = common::ctx(4, 4, 1);
        c.set_simd_level(level).unwrap();
        let texels = vec![200u8; 4 * format.bytes_per_texel()];
        let tex = Arc::new(Texture::from_format(format, 2, 2, &texels).unwrap());
        let sampler = Sampler {
            mag,
            ..Sampler::NEAREST
                .with_wrap(Wrap::ClampToBorder)
                .with_border(Vec4::new(0.25, 0.75, 0.5, 0.0))
        };
        let ff = FixedFunction {
            units: vec![TextureUnit::new(tex, sampler)],
            ..Default::default()
        };
        let p = [
            Vec3::new(-1.0, -1.0, 0.0),
            Vec3::new(1.0, -1.0, 0.0),
            Vec3::new(1.0, 1.0, 0.0),
            Vec3::new(-1.0, 1.0, 0.0),
        ];
        let col = [Vec4::new(0.5, 0.25, 1.0, 0.5); 4];
        let uv = [Vec2::splat(-0.5); 4];
        let uvs = [&uv[..]];
        let mesh = MeshInput {
            positions: &p,
            normals: None,
            colors: Some(&col),
            uvs: &uvs,
        };
        let t = Transforms {
            view_from_model: Mat4::from_translation(Vec3::new(0.0, 0.0, -2.0)),
            clip_from_view: Mat4::orthographic_rh(-1.0, 1.0, -1.0, 1.0, 1.0, 10.0),
        };
        let st = PipelineState {
            depth: DepthState::DISABLED,
            ..c.default_state()
        };
        c.draw_fixed(
            &st,
            &ff,
            &t,
            &mesh,
            Indices::U16(&[0, 1, 2, 0, 2, 3]),
            Topology::TriangleList,
        )
        .unwrap();
        common::px(&mut c, 1, 2)
    };
    let rows = [
        (TexelFormat::Rgba8, [32, 48, 128, 0]),
        (TexelFormat::Rgb8, [32, 48, 128, 128]),
        (TexelFormat::L8, [32, 16, 64, 128]),
        (TexelFormat::La8, [32, 16, 64, 0]),
    ];
    for (format, want) in rows {
        for mag in [texture::MagFilter::Nearest, texture::MagFilter::Linear] {
            let got = at_every_level(|l| draw(l, format, mag));
            assert_eq!(got, want, "{format:?}, mag {mag:?}");
        }
    }
}
