//! plumb's pipeline state mapped onto the GPU's fixed stages: the pixel rectangle a draw may
//! touch, the render-pipeline key (everything a pipeline depends on) and its descriptor, and
//! the per-device pipeline cache.

use glam::Vec4;
use plumb_raster::{
    BlendEquation, BlendFactor, CompareFunc, CullMode, FrontFace, PipelineState, PolygonMode, Rect,
    ShadeModel, StencilOp,
};

use crate::gpu::Gpu;
use crate::primitives::PrimKind;
use crate::COLOR_FORMAT;

impl Gpu {
    /// The render pipeline of `key`, built on first use.
    pub(crate) fn draw_pipeline(&self, key: &PipeKey) -> wgpu::RenderPipeline {
        let g = self;
        g.cached(format!("{key:?}"), || {
            let layout = if key.pbr { &g.pbr_layout } else { &g.layout };
            build_pipeline(&g.device, layout, &g.shader, g.depth_format, key)
        })
    }

    /// The pipeline of a rectangle clear writing the given buffers, built on first use.
    pub(crate) fn clear_pipeline(
        &self,
        color: bool,
        depth: bool,
        stencil: bool,
    ) -> wgpu::RenderPipeline {
        let name = format!("clear {color} {depth} {stencil}");
        let g = self;
        let st = wgpu::StencilFaceState {
            compare: wgpu::CompareFunction::Always,
            fail_op: wgpu::StencilOperation::Replace,
            depth_fail_op: wgpu::StencilOperation::Replace,
            pass_op: wgpu::StencilOperation::Replace,
        };
        g.cached(name, || {
            g.device
                .create_render_pipeline(&wgpu::RenderPipelineDescriptor {
                    label: Some("plumb clear_rect"),
                    layout: Some(&g.clear_layout),
                    vertex: wgpu::VertexState {
                        module: &g.clear_shader,
                        entry_point: Some("vs_clear"),
                        buffers: &[],
                        compilation_options: Default::default(),
                    },
                    fragment: Some(wgpu::FragmentState {
                        module: &g.clear_shader,
                        entry_point: Some("fs_clear"),
                        targets: &[Some(wgpu::ColorTargetState {
                            format: COLOR_FORMAT,
                            blend: None,
                            write_mask: if color {
                                wgpu::ColorWrites::ALL
                            } else {
                                wgpu::ColorWrites::empty()
                            },
                        })],
                        compilation_options: Default::default(),
                    }),
                    primitive: wgpu::PrimitiveState::default(),
                    depth_stencil: Some(wgpu::DepthStencilState {
                        format: g.depth_format,
                        depth_write_enabled: Some(depth),
                        depth_compare: Some(wgpu::CompareFunction::Always),
                        stencil: wgpu::StencilState {
                            front: st,
                            back: st,
                            read_mask: 0xff,
                            write_mask: if stencil { 0xff } else { 0 },
                        },
                        bias: wgpu::DepthBiasState::default(),
                    }),
                    multisample: wgpu::MultisampleState::default(),
                    multiview_mask: None,
                    cache: None,
                })
        })
    }
}

/// The pixel rectangle a draw may touch (plumb's `clip_rect` for filled polygons,
/// `quad_rect` for point and line quads); `None` when it is empty.
pub(crate) fn scissor_rect(
    state: &PipelineState,
    width: u32,
    height: u32,
    kind: PrimKind,
) -> Option<Rect> {
    let mut r = [0i64, 0, i64::from(width), i64::from(height)];
    if let Some(s) = state.scissor {
        r = [
            i64::from(s.x.min(width)),
            i64::from(s.y.min(height)),
            i64::from(s.x.saturating_add(s.width).min(width)),
            i64::from(s.y.saturating_add(s.height).min(height)),
        ];
    }
    if kind == PrimKind::Tri {
        let vp = &state.viewport;
        let first = |a: f32| (f64::from(a) - 0.5).ceil() as i64;
        let end = |a: f32, len: f32| (f64::from(a) + f64::from(len) - 0.5).ceil() as i64;
        r = [
            r[0].max(first(vp.x)),
            r[1].max(first(vp.y)),
            r[2].min(end(vp.x, vp.width)),
            r[3].min(end(vp.y, vp.height)),
        ];
    }
    if r[2] <= r[0] || r[3] <= r[1] {
        return None;
    }
    Some(Rect {
        x: r[0] as u32,
        y: r[1] as u32,
        width: (r[2] - r[0]) as u32,
        height: (r[3] - r[1]) as u32,
    })
}

/// Everything a render pipeline depends on (hashed through its `Debug` text: a lookup key,
/// never iterated).
#[derive(Debug)]
pub(crate) struct PipeKey {
    cull: CullMode,
    front_face: FrontFace,
    depth: CompareFunc,
    depth_write: bool,
    bias: Option<(i32, u32)>,
    stencil: Option<(CompareFunc, u8, u8, StencilOp, StencilOp, StencilOp)>,
    blend: Option<(
        BlendFactor,
        BlendFactor,
        BlendFactor,
        BlendFactor,
        BlendEquation,
        BlendEquation,
    )>,
    mask: [bool; 4],
    /// Texture units: the shader's `UNITS` constant.
    units: u32,
    /// Triangles drawn indexed (the shader's `INDEXED` constant): the GPU then shades each
    /// vertex once and reuses it. Flat shading needs the primitive's first vertex, which an
    /// indexed vertex shader cannot find, so it is drawn corner by corner.
    pub(crate) indexed: bool,
    /// A physically based draw: fragment entry `fs_pbr` (pbr.wgsl) and the layout with its
    /// bindings.
    pub(crate) pbr: bool,
}

impl PipeKey {
    pub(crate) fn new(s: &PipelineState, kind: PrimKind, units: usize) -> PipeKey {
        let st = &s.stencil;
        let b = &s.blend;
        let o = &s.polygon_offset;
        let polygon = kind == PrimKind::Tri || s.polygon_mode != PolygonMode::Fill;
        PipeKey {
            // Lines and points (and wireframe, culled on the CPU) are never culled here.
            cull: if kind == PrimKind::Tri {
                s.cull
            } else {
                CullMode::None
            },
            front_face: s.front_face,
            depth: s.depth.func,
            depth_write: s.depth.write,
            bias: (polygon && (o.factor != 0.0 || o.units != 0.0))
                .then(|| (o.units.round() as i32, o.factor.to_bits())),
            stencil: st.enabled.then_some((
                st.func,
                st.read_mask,
                st.write_mask,
                st.fail,
                st.depth_fail,
                st.pass,
            )),
            blend: b.enabled.then_some((
                b.src_rgb,
                b.dst_rgb,
                b.src_alpha,
                b.dst_alpha,
                b.eq_rgb,
                b.eq_alpha,
            )),
            mask: s.color_mask,
            units: units as u32,
            indexed: kind == PrimKind::Tri && s.shade != ShadeModel::Flat,
            pbr: false,
        }
    }
}

fn compare(f: CompareFunc) -> wgpu::CompareFunction {
    match f {
        CompareFunc::Never => wgpu::CompareFunction::Never,
        CompareFunc::Less => wgpu::CompareFunction::Less,
        CompareFunc::Equal => wgpu::CompareFunction::Equal,
        CompareFunc::LessEqual => wgpu::CompareFunction::LessEqual,
        CompareFunc::Greater => wgpu::CompareFunction::Greater,
        CompareFunc::NotEqual => wgpu::CompareFunction::NotEqual,
        CompareFunc::GreaterEqual => wgpu::CompareFunction::GreaterEqual,
        CompareFunc::Always => wgpu::CompareFunction::Always,
    }
}

fn stencil_op(o: StencilOp) -> wgpu::StencilOperation {
    match o {
        StencilOp::Keep => wgpu::StencilOperation::Keep,
        StencilOp::Zero => wgpu::StencilOperation::Zero,
        StencilOp::Replace => wgpu::StencilOperation::Replace,
        StencilOp::Incr => wgpu::StencilOperation::IncrementClamp,
        StencilOp::Decr => wgpu::StencilOperation::DecrementClamp,
        StencilOp::Invert => wgpu::StencilOperation::Invert,
        StencilOp::IncrWrap => wgpu::StencilOperation::IncrementWrap,
        StencilOp::DecrWrap => wgpu::StencilOperation::DecrementWrap,
    }
}

fn blend_factor(f: BlendFactor) -> wgpu::BlendFactor {
    use wgpu::BlendFactor as W;
    match f {
        BlendFactor::Zero => W::Zero,
        BlendFactor::One => W::One,
        BlendFactor::SrcColor => W::Src,
        BlendFactor::OneMinusSrcColor => W::OneMinusSrc,
        BlendFactor::DstColor => W::Dst,
        BlendFactor::OneMinusDstColor => W::OneMinusDst,
        BlendFactor::SrcAlpha => W::SrcAlpha,
        BlendFactor::OneMinusSrcAlpha => W::OneMinusSrcAlpha,
        BlendFactor::DstAlpha => W::DstAlpha,
        BlendFactor::OneMinusDstAlpha => W::OneMinusDstAlpha,
        // The blend constant is (a, a, a, a) when a constant-alpha factor is used.
        BlendFactor::ConstantColor | BlendFactor::ConstantAlpha => W::Constant,
        BlendFactor::OneMinusConstantColor | BlendFactor::OneMinusConstantAlpha => {
            W::OneMinusConstant
        }
        BlendFactor::SrcAlphaSaturate => W::SrcAlphaSaturated,
    }
}

fn blend_component(src: BlendFactor, dst: BlendFactor, eq: BlendEquation) -> wgpu::BlendComponent {
    let (operation, minmax) = match eq {
        BlendEquation::Add => (wgpu::BlendOperation::Add, false),
        BlendEquation::Subtract => (wgpu::BlendOperation::Subtract, false),
        BlendEquation::ReverseSubtract => (wgpu::BlendOperation::ReverseSubtract, false),
        BlendEquation::Min => (wgpu::BlendOperation::Min, true),
        BlendEquation::Max => (wgpu::BlendOperation::Max, true),
    };
    if minmax {
        // Min and max ignore the factors (the API requires One).
        return wgpu::BlendComponent {
            src_factor: wgpu::BlendFactor::One,
            dst_factor: wgpu::BlendFactor::One,
            operation,
        };
    }
    wgpu::BlendComponent {
        src_factor: blend_factor(src),
        dst_factor: blend_factor(dst),
        operation,
    }
}

/// The blend constant for the GPU: plumb's, or `(a, a, a, a)` when only constant-alpha
/// factors read it.
pub(crate) fn gpu_blend_constant(s: &PipelineState) -> Vec4 {
    let b = &s.blend;
    let fs = [b.src_rgb, b.dst_rgb, b.src_alpha, b.dst_alpha];
    let alpha_only = fs.iter().any(|f| {
        matches!(
            f,
            BlendFactor::ConstantAlpha | BlendFactor::OneMinusConstantAlpha
        )
    }) && !fs.iter().any(|f| {
        matches!(
            f,
            BlendFactor::ConstantColor | BlendFactor::OneMinusConstantColor
        )
    });
    if alpha_only {
        Vec4::splat(b.constant.w)
    } else {
        b.constant
    }
}

fn build_pipeline(
    device: &wgpu::Device,
    layout: &wgpu::PipelineLayout,
    shader: &wgpu::ShaderModule,
    depth_format: wgpu::TextureFormat,
    key: &PipeKey,
) -> wgpu::RenderPipeline {
    let face = |f: wgpu::CompareFunction,
                (fail, dfail, pass): (StencilOp, StencilOp, StencilOp)| {
        wgpu::StencilFaceState {
            compare: f,
            fail_op: stencil_op(fail),
            depth_fail_op: stencil_op(dfail),
            pass_op: stencil_op(pass),
        }
    };
    let stencil = match key.stencil {
        Some((func, rm, wm, fail, dfail, pass)) => {
            let f = face(compare(func), (fail, dfail, pass));
            wgpu::StencilState {
                front: f,
                back: f,
                read_mask: u32::from(rm),
                write_mask: u32::from(wm),
            }
        }
        None => wgpu::StencilState {
            front: wgpu::StencilFaceState::IGNORE,
            back: wgpu::StencilFaceState::IGNORE,
            read_mask: 0,
            write_mask: 0,
        },
    };
    let bias = match key.bias {
        Some((units, factor)) => wgpu::DepthBiasState {
            constant: units,
            slope_scale: f32::from_bits(factor),
            clamp: 0.0,
        },
        None => wgpu::DepthBiasState::default(),
    };
    let blend = key.blend.map(|(sr, dr, sa, da, er, ea)| wgpu::BlendState {
        color: blend_component(sr, dr, er),
        alpha: blend_component(sa, da, ea),
    });
    let mut write_mask = wgpu::ColorWrites::empty();
    for (on, bit) in key.mask.iter().zip([
        wgpu::ColorWrites::RED,
        wgpu::ColorWrites::GREEN,
        wgpu::ColorWrites::BLUE,
        wgpu::ColorWrites::ALPHA,
    ]) {
        if *on {
            write_mask |= bit;
        }
    }
    let constants = [
        ("UNITS", f64::from(key.units)),
        ("INDEXED", if key.indexed { 1.0 } else { 0.0 }),
    ];
    let options = wgpu::PipelineCompilationOptions {
        constants: &constants,
        ..Default::default()
    };
    device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
        label: Some("plumb fixed function"),
        layout: Some(layout),
        vertex: wgpu::VertexState {
            module: shader,
            entry_point: Some("vs"),
            buffers: &[],
            compilation_options: options.clone(),
        },
        fragment: Some(wgpu::FragmentState {
            module: shader,
            entry_point: Some(if key.pbr { "fs_pbr" } else { "fs" }),
            targets: &[Some(wgpu::ColorTargetState {
                format: COLOR_FORMAT,
                blend,
                write_mask,
            })],
            compilation_options: options,
        }),
        primitive: wgpu::PrimitiveState {
            topology: wgpu::PrimitiveTopology::TriangleList,
            strip_index_format: None,
            front_face: match key.front_face {
                FrontFace::Ccw => wgpu::FrontFace::Ccw,
                FrontFace::Cw => wgpu::FrontFace::Cw,
            },
            cull_mode: match key.cull {
                CullMode::None => None,
                CullMode::Back => Some(wgpu::Face::Back),
                CullMode::Front => Some(wgpu::Face::Front),
            },
            unclipped_depth: false,
            polygon_mode: wgpu::PolygonMode::Fill,
            conservative: false,
        },
        depth_stencil: Some(wgpu::DepthStencilState {
            format: depth_format,
            depth_write_enabled: Some(key.depth_write),
            depth_compare: Some(compare(key.depth)),
            stencil,
            bias,
        }),
        multisample: wgpu::MultisampleState::default(),
        multiview_mask: None,
        cache: None,
    })
}
