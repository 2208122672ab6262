//! The raster pipeline with arbitrary state and vertices: `Context::draw` (clip-space
//! vertices, vertex colours) and `Context::draw_fixed` (object space, lighting, one texture
//! unit, texgen, fog), chosen by the first byte; a small target and one or two threads.
#![no_main]

use std::sync::Arc;

use glam::{Mat4, Vec2, Vec3, Vec4};
use libfuzzer_sys::fuzz_target;
use plumb_fuzz::Bytes;
use plumb_raster::combine::ApplyMode;
use plumb_raster::fog::{FogDistance, FogMode, FogState};
use plumb_raster::light::{Light, LightKind, LightingState};
use plumb_raster::texture::{MagFilter, MinFilter, Sampler, Texture, Wrap};
use plumb_raster::*;

fn vec3(b: &mut Bytes) -> Vec3 {
    Vec3::new(b.f32(), b.f32(), b.f32())
}

fn vec4(b: &mut Bytes) -> Vec4 {
    Vec4::new(b.f32(), b.f32(), b.f32(), b.f32())
}

fn state(b: &mut Bytes, w: u32, h: u32) -> PipelineState {
    let mut s = PipelineState::new(w, h);
    if b.u8() % 4 == 0 {
        s.viewport = Viewport {
            x: b.f32() * 16.0,
            y: b.f32() * 16.0,
            width: b.f32() * 64.0,
            height: b.f32() * 64.0,
            min_depth: b.f32(),
            max_depth: b.f32(),
        };
    }
    if b.u8() % 4 == 0 {
        s.scissor = Some(Rect {
            x: u32::from(b.u8()),
            y: u32::from(b.u8()),
            width: u32::from(b.u8()),
            height: u32::from(b.u8()),
        });
    }
    s.cull = [CullMode::None, CullMode::Back, CullMode::Front][b.choose(3)];
    s.front_face = [FrontFace::Ccw, FrontFace::Cw][b.choose(2)];
    s.polygon_mode = [PolygonMode::Fill, PolygonMode::Line, PolygonMode::Point][b.choose(3)];
    s.shade = [ShadeModel::Smooth, ShadeModel::Flat][b.choose(2)];
    s.depth.func = CompareFunc::ALL[b.choose(8)];
    s.depth.write = b.u8() % 2 == 0;
    if b.u8() % 3 == 0 {
        s.polygon_offset.factor = b.f32();
        s.polygon_offset.units = b.f32();
    }
    if b.u8() % 3 == 0 {
        s.stencil.enabled = true;
        s.stencil.func = CompareFunc::ALL[b.choose(8)];
        s.stencil.reference = b.u8();
        s.stencil.read_mask = b.u8();
        s.stencil.write_mask = b.u8();
        s.stencil.fail = StencilOp::ALL[b.choose(8)];
        s.stencil.depth_fail = StencilOp::ALL[b.choose(8)];
        s.stencil.pass = StencilOp::ALL[b.choose(8)];
    }
    if b.u8() % 3 == 0 {
        s.alpha_test.func = CompareFunc::ALL[b.choose(8)];
        s.alpha_test.reference = b.f32();
    }
    if b.u8() % 2 == 0 {
        s.blend.enabled = true;
        s.blend.src_rgb = BlendFactor::ALL[b.choose(15)];
        s.blend.dst_rgb = BlendFactor::ALL[b.choose(15)];
        s.blend.src_alpha = BlendFactor::ALL[b.choose(15)];
        s.blend.dst_alpha = BlendFactor::ALL[b.choose(15)];
        s.blend.eq_rgb = BlendEquation::ALL[b.choose(5)];
        s.blend.eq_alpha = BlendEquation::ALL[b.choose(5)];
        s.blend.constant = vec4(b);
    }
    let mask = b.u8();
    s.color_mask = [mask & 1 != 0, mask & 2 != 0, mask & 4 != 0, mask & 8 != 0];
    for i in 0..s.clip_planes.len() {
        if b.u8() % 8 == 0 {
            s.clip_planes[i] = Some(vec4(b));
        }
    }
    if b.u8() % 3 == 0 {
        s.point_size = b.f32() * 8.0;
        s.line_width = b.f32() * 8.0;
    }
    s
}

fn texture(b: &mut Bytes) -> Option<Texture> {
    let (w, h) = (1 + u32::from(b.u8() % 8), 1 + u32::from(b.u8() % 8));
    let texels: Vec<u8> = (0..w * h * 4).map(|_| b.u8()).collect();
    let t = Texture::from_rgba8(w, h, texels).ok()?;
    Some(if b.u8() % 2 == 0 {
        t.with_generated_mips()
    } else {
        t
    })
}

fn sampler(b: &mut Bytes) -> Sampler {
    let wraps = Wrap::ALL_WITH_CLAMP;
    Sampler {
        mag: [MagFilter::Nearest, MagFilter::Linear][b.choose(2)],
        min: [
            MinFilter::Nearest,
            MinFilter::Linear,
            MinFilter::NearestMipmapNearest,
            MinFilter::LinearMipmapNearest,
            MinFilter::NearestMipmapLinear,
            MinFilter::LinearMipmapLinear,
        ][b.choose(6)],
        wrap_u: wraps[b.choose(wraps.len())],
        wrap_v: wraps[b.choose(wraps.len())],
        border: vec4(b),
        lod_bias: b.f32(),
        min_lod: b.f32(),
        max_lod: b.f32(),
        max_anisotropy: b.u8() % 17,
    }
}

fn indices(b: &mut Bytes, n: usize) -> Option<Vec<u32>> {
    if b.u8() % 2 == 0 {
        return None;
    }
    let count = usize::from(b.u8() % 48);
    // Mostly in range; sometimes past the end (an error the draw must report).
    Some(
        (0..count)
            .map(|_| u32::from(b.u16()) % (n as u32 + 2).max(1))
            .collect(),
    )
}

const TOPOLOGIES: [Topology; 6] = [
    Topology::TriangleList,
    Topology::TriangleStrip,
    Topology::TriangleFan,
    Topology::LineList,
    Topology::LineStrip,
    Topology::PointList,
];

fuzz_target!(|data: &[u8]| {
    let mut b = Bytes::new(data);
    let fixed = b.u8() % 2 == 0;
    let (w, h) = (1 + u32::from(b.u8() % 48), 1 + u32::from(b.u8() % 48));
    let threads = 1 + b.choose(2);
    let Ok(mut ctx) = Context::new(
        w,
        h,
        ContextOptions {
            threads: Some(threads),
        },
    ) else {
        return;
    };
    ctx.clear(vec4(&mut b), b.f32(), b.u8());
    for _ in 0..1 + b.choose(3) {
        let state = state(&mut b, w, h);
        let topology = TOPOLOGIES[b.choose(6)];
        let n = usize::from(b.u8() % 24);
        let idx = indices(&mut b, n);
        let idx = match &idx {
            Some(v) => Indices::U32(v),
            None => Indices::None,
        };
        if fixed {
            let positions: Vec<Vec3> = (0..n).map(|_| vec3(&mut b)).collect();
            let normals: Vec<Vec3> = (0..n).map(|_| vec3(&mut b)).collect();
            let colors: Vec<Vec4> = (0..n).map(|_| vec4(&mut b)).collect();
            let uv: Vec<Vec2> = (0..n).map(|_| Vec2::new(b.f32(), b.f32())).collect();
            let uvs = [uv.as_slice()];
            let mut ff = FixedFunction::default();
            if b.u8() % 2 == 0 {
                let mut l = LightingState::DEFAULT;
                let kind = match b.choose(4) {
                    0 => LightKind::Ambient,
                    1 => LightKind::Directional {
                        direction: vec3(&mut b),
                    },
                    2 => LightKind::Point {
                        position: vec3(&mut b),
                    },
                    _ => LightKind::Spot {
                        position: vec3(&mut b),
                        direction: vec3(&mut b),
                        cutoff_deg: b.f32() * 90.0,
                        exponent: b.f32() * 32.0,
                    },
                };
                l.lights[b.choose(l.lights.len())] = Some(Light {
                    kind,
                    ambient: vec3(&mut b),
                    diffuse: vec3(&mut b),
                    specular: vec3(&mut b),
                    intensity: b.f32(),
                    attenuation: [b.f32(), b.f32(), b.f32()],
                    on: b.u8() % 4 != 0,
                    spot_inner_deg: None,
                    range: None,
                });
                l.material.shininess = b.f32() * 128.0;
                l.local_viewer = b.u8() % 2 == 0;
                l.two_sided = b.u8() % 2 == 0;
                l.color_material = b.u8() % 2 == 0;
                ff.lighting = Some(l);
                ff.per_pixel_lighting = b.u8() % 2 == 0;
            }
            if b.u8() % 2 == 0 {
                let mode = match b.choose(3) {
                    0 => FogMode::Linear {
                        start: b.f32(),
                        end: b.f32(),
                    },
                    1 => FogMode::Exp { density: b.f32() },
                    _ => FogMode::Exp2 { density: b.f32() },
                };
                ff.fog = Some(FogState {
                    mode,
                    color: vec4(&mut b),
                    distance: [FogDistance::EyeDepth, FogDistance::Radial][b.choose(2)],
                    per_pixel: b.u8() % 2 == 0,
                });
            }
            if b.u8() % 2 == 0 {
                if let Some(t) = texture(&mut b) {
                    let mut unit = TextureUnit::new(Arc::new(t), sampler(&mut b));
                    unit.apply = [
                        ApplyMode::Replace,
                        ApplyMode::Decal,
                        ApplyMode::Modulate,
                        ApplyMode::Blend,
                        ApplyMode::Add,
                    ][b.choose(5)];
                    unit.constant = vec4(&mut b);
                    unit.uv_set = b.choose(2);
                    unit.texgen = match b.choose(4) {
                        0 => TexGen::None,
                        1 => TexGen::SphereMap,
                        2 => TexGen::ObjectLinear {
                            planes: [vec4(&mut b), vec4(&mut b), vec4(&mut b), vec4(&mut b)],
                        },
                        _ => TexGen::EyeLinear {
                            planes: [vec4(&mut b), vec4(&mut b), vec4(&mut b), vec4(&mut b)],
                        },
                    };
                    if b.u8() % 4 == 0 {
                        unit.matrix =
                            Mat4::from_cols(vec4(&mut b), vec4(&mut b), vec4(&mut b), vec4(&mut b));
                    }
                    ff.units.push(unit);
                }
            }
            let view_from_model = if b.u8() % 4 == 0 {
                Mat4::from_cols(vec4(&mut b), vec4(&mut b), vec4(&mut b), vec4(&mut b))
            } else {
                Mat4::from_translation(Vec3::new(0.0, 0.0, -3.0 + b.f32()))
            };
            let clip_from_view = if b.u8() % 4 == 0 {
                Mat4::from_cols(vec4(&mut b), vec4(&mut b), vec4(&mut b), vec4(&mut b))
            } else {
                Mat4::perspective_rh(0.9, w as f32 / h as f32, 0.1, 20.0)
            };
            let transforms = Transforms {
                view_from_model,
                clip_from_view,
            };
            let mesh = MeshInput {
                positions: &positions,
                normals: (b.u8() % 4 != 0).then_some(normals.as_slice()),
                colors: (b.u8() % 2 == 0).then_some(colors.as_slice()),
                uvs: if b.u8() % 4 != 0 { &uvs } else { &[] },
            };
            let _ = ctx.draw_fixed(&state, &ff, &transforms, &mesh, idx, topology);
        } else {
            let positions: Vec<Vec4> = (0..n).map(|_| vec4(&mut b)).collect();
            let colors: Vec<Vec4> = (0..n).map(|_| vec4(&mut b)).collect();
            let input = VertexInput {
                positions: &positions,
                colors: (b.u8() % 2 == 0).then_some(colors.as_slice()),
                ..Default::default()
            };
            let _ = ctx.draw(&state, &input, idx, topology);
        }
        if b.is_empty() {
            break;
        }
    }
    let _ = ctx.target();
});
