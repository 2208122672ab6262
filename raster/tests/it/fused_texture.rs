//! The fused fixed-function path (`fragment::fused_texture`: the colour (vertex colours, or
//! lit per vertex with a separate specular colour), modulated or replaced by one texture
//! unit or neither, plus the secondary colour, then vertex fog, per-pixel linear fog or none, early depth test;
//! depth, coordinates, λ, sample, colour, fog, pack and store per group of 8 lanes)
//! against the scalar level, which always
//! runs the staged path, bit for bit: colour bytes, depth values and fragments written.
//! Every depth function it takes (less, less-or-equal, always) with and without writes, and
//! one it leaves to the staged path (greater); samplers of every kind (trilinear, bilinear,
//! nearest mipmaps, clamp to edge and to border, mirrored repeat, a bias), power-of-two and
//! other texture sizes, and no texture; no fog, linear and exponential vertex fog, linear
//! per-pixel fog (also with `start == end`) and exponential per-pixel fog (the staged path
//! again); colours past both ends of 0..1; no blending, the source-alpha blend the fused
//! path has, and the premultiplied one it leaves to the staged path.

use std::sync::Arc;

use glam::{Mat4, Vec2, Vec3, Vec4};
use plumb_raster::combine::ApplyMode;
use plumb_raster::fog::{FogMode, FogState};
use plumb_raster::light::{Light, LightKind, LightingState, Material};
use plumb_raster::texture::{MagFilter, MinFilter, Sampler, Texture, Wrap};
use plumb_raster::{
    BlendState, CompareFunc, DepthState, FixedFunction, Indices, MeshInput, PipelineState,
    TextureUnit, Topology, Transforms,
};

use crate::common::{at_every_level, ctx, finish_frame, Frame};

fn texture(w: u32, h: u32, seed: u64) -> Arc<Texture> {
    let mut rng = plumb_raster::rng::XorShift64::new(seed);
    let px = (0..w * h * 4)
        .map(|_| (rng.next_f32() * 255.0) as u8)
        .collect();
    Arc::new(Texture::from_rgba8(w, h, px).unwrap().with_generated_mips())
}

/// `n` random triangles in front of the camera (perspective: depths 1..9), their colours
/// past both ends of 0..1, UVs over several repeats and below 0.
fn mesh(n: usize, seed: u64) -> (Vec<Vec3>, Vec<Vec4>, Vec<Vec2>) {
    let mut rng = plumb_raster::rng::XorShift64::new(seed);
    let mut next = move || rng.next_f32();
    let (mut p, mut c, mut uv) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..n {
        let centre = Vec3::new(next() * 8.0 - 4.0, next() * 5.0 - 2.5, -1.0 - 8.0 * next());
        let size = 0.3 + 3.0 * next();
        for _ in 0..3 {
            let d = Vec3::new(next() - 0.5, next() - 0.5, next() - 0.5) * size;
            p.push(centre + d);
            c.push(Vec4::new(
                next() * 1.6 - 0.3,
                next() * 1.6 - 0.3,
                next() * 1.6 - 0.3,
                next() * 1.6 - 0.3,
            ));
            uv.push(Vec2::new(next() * 6.0 - 2.0, next() * 6.0 - 2.0));
        }
    }
    (p, c, uv)
}

fn frame(level: plumb_raster::SimdLevel, case: usize, func: CompareFunc, write: bool) -> Frame {
    // 133 × 71: rows that are not a multiple of 8 wide, so spans end in partial groups.
    let mut c = ctx(133, 71, 1);
    c.set_simd_level(level).unwrap();
    let clear = if func == CompareFunc::Greater {
        0.0
    } else {
        1.0
    };
    c.clear(Vec4::new(0.1, 0.2, 0.3, 1.0), clear, 0);
    let samplers = [
        Sampler::TRILINEAR,
        Sampler::BILINEAR.with_wrap(Wrap::ClampToEdge),
        Sampler::NEAREST_MIPMAP_NEAREST,
        Sampler::TRILINEAR
            .with_wrap(Wrap::ClampToBorder)
            .with_border(Vec4::new(1.0, 0.5, 0.0, 0.25)),
        Sampler {
            mag: MagFilter::Nearest,
            min: MinFilter::LinearMipmapNearest,
            lod_bias: 0.75,
            ..Sampler::TRILINEAR.with_wrap(Wrap::MirroredRepeat)
        },
    ];
    let fogs = [
        None,
        Some(FogState {
            mode: FogMode::Linear {
                start: 1.5,
                end: 9.0,
            },
            color: Vec4::new(0.8, 0.7, 0.2, 1.0),
            ..FogState::DEFAULT
        }),
        Some(FogState {
            mode: FogMode::Exp { density: 0.3 },
            ..FogState::DEFAULT
        }),
        Some(FogState {
            mode: FogMode::Linear {
                start: 2.0,
                end: 7.5,
            },
            color: Vec4::new(0.3, 0.9, 0.6, 1.0),
            per_pixel: true,
            ..FogState::DEFAULT
        }),
        Some(FogState {
            mode: FogMode::Linear {
                start: 4.0,
                end: 4.0,
            },
            per_pixel: true,
            ..FogState::DEFAULT
        }),
        Some(FogState {
            mode: FogMode::Exp2 { density: 0.2 },
            per_pixel: true,
            ..FogState::DEFAULT
        }),
    ];
    let tex = if case.is_multiple_of(2) {
        texture(64, 32, 7)
    } else {
        texture(37, 19, 11)
    };
    // Every fourth case lit per vertex with separate specular (a secondary colour), the
    // normals facing the eye more or less.
    let lighting = (case % 4 == 3).then(|| {
        let light = Light::new(LightKind::Directional {
            direction: Vec3::new(0.3, -0.5, -1.0).normalize(),
        })
        .with_diffuse(Vec3::new(0.9, 0.8, 0.7))
        .with_specular(Vec3::ONE);
        let mut st = LightingState {
            material: Material {
                specular: Vec3::splat(0.8),
                shininess: 12.0,
                ..Material::DEFAULT
            },
            separate_specular: true,
            ..LightingState::DEFAULT
        };
        st.lights[0] = Some(light);
        st
    });
    let ff = FixedFunction {
        lighting,
        fog: fogs[case % fogs.len()],
        // Every seventh case without a texture.
        units: if case % 7 == 6 {
            Vec::new()
        } else {
            // Every third case replaces the colour instead of modulating it.
            let apply = if case % 3 == 1 {
                ApplyMode::Replace
            } else {
                ApplyMode::Modulate
            };
            vec![TextureUnit {
                apply,
                ..TextureUnit::new(tex, samplers[case % samplers.len()])
            }]
        },
        ..Default::default()
    };
    let t = Transforms {
        view_from_model: Mat4::IDENTITY,
        clip_from_view: Mat4::perspective_rh(1.1, 133.0 / 71.0, 0.5, 20.0),
    };
    // Every fifth case from the second blends with source alpha (the fused path's blend),
    // every fifth from the fifth premultiplied (the staged path's).
    let blend = match case % 5 {
        1 => BlendState::ALPHA,
        4 => BlendState::PREMULTIPLIED,
        _ => BlendState::REPLACE,
    };
    let st = PipelineState {
        depth: DepthState { func, write },
        blend,
        ..c.default_state()
    };
    let (p, col, uv) = mesh(80, 0x9e37_79b9_7f4a_7c15 ^ case as u64);
    let uvs = [&uv[..]];
    let normals: Vec<Vec3> = p
        .iter()
        .enumerate()
        .map(|(i, q)| {
            (Vec3::new((i % 5) as f32 * 0.1, (i % 3) as f32 * 0.2, 1.0) - *q * 0.05).normalize()
        })
        .collect();
    let m = MeshInput {
        positions: &p,
        normals: Some(&normals),
        colors: Some(&col),
        uvs: &uvs,
    };
    c.draw_fixed(&st, &ff, &t, &m, Indices::None, Topology::TriangleList)
        .unwrap();
    finish_frame(&mut c)
}

#[test]
fn fused_texture_path_matches_the_scalar_level_everywhere() {
    for case in 0..24 {
        for func in [
            CompareFunc::Less,
            CompareFunc::LessEqual,
            CompareFunc::Always,
            CompareFunc::Greater,
        ] {
            for write in [true, false] {
                let (rgba, _, written) = at_every_level(|l| frame(l, case, func, write));
                // Not a vacuous comparison: the frame is drawn and textured.
                assert!(written > 600, "case {case} {func:?}: {written} fragments");
                let mut colours: Vec<&[u8]> = rgba.chunks(4).collect();
                colours.sort_unstable();
                colours.dedup();
                assert!(
                    colours.len() > 100,
                    "case {case} {func:?}: {} colours",
                    colours.len()
                );
            }
        }
    }
}
