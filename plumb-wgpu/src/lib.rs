//! # plumb-wgpu
//!
//! A GPU [`DrawTarget`]: plumb's fixed-function pipeline (transforms, the 8 lights, texture
//! units with plumb's samplers, apply modes and combiners, texgen, fog, alpha test) emulated
//! in WGSL on [wgpu](https://wgpu.rs), with blending, depth, stencil, polygon offset, culling
//! and scissor done by the GPU's fixed stages. It runs on any Vulkan adapter, including
//! Mesa's lavapipe (a CPU Vulkan), so the conformance kit can check it where there is no GPU.
//!
//! ```no_run
//! use glam::Vec4;
//! use plumb_raster::{DrawTarget, Indices, Topology, VertexInput};
//! let mut t = plumb_wgpu::WgpuTarget::new(64, 64)?;
//! t.clear(Vec4::new(0.0, 0.0, 0.0, 1.0), 1.0, 0);
//! let pos = [Vec4::new(-1.0, -1.0, 0.5, 1.0), Vec4::new(3.0, -1.0, 0.5, 1.0), Vec4::new(-1.0, 3.0, 0.5, 1.0)];
//! let col = [Vec4::new(0.2, 0.4, 0.6, 1.0); 3];
//! let state = t.default_state();
//! t.draw(&state, &VertexInput::colored(&pos, &col), Indices::None, Topology::TriangleList)?;
//! let img = t.read_back()?;
//! assert_eq!(img.get_pixel(10, 10).0, [51, 102, 153, 255]);
//! # Ok::<(), plumb_raster::Error>(())
//! ```
//!
//! ## How plumb's rules map onto the GPU
//!
//! - **Vertex stage in the shader, vertices pulled from storage buffers.** Each draw uploads
//!   its vertex attributes and a primitive list; the vertex shader fetches by index, so one
//!   shader draws triangles, lines and points.
//! - **Viewport.** plumb's viewport may reach past the target (±16384); the shader maps it
//!   onto a full-target GPU viewport, and the scissor cuts filled polygons at target ∩
//!   scissor ∩ viewport (plumb's `clip_rect`), points and lines at target ∩ scissor.
//!   Depth range and user clip planes are clip distances (plumb clips at `0 ≤ z ≤ w`
//!   before the depth range maps z).
//! - **Flat shading.** The first vertex of each primitive, as plumb and Vulkan: the primitive
//!   list puts plumb's provoking vertex first, and every corner of a flat primitive carries
//!   the provoking vertex's colours.
//! - **Points, lines, wireframe.** Expanded to quads in the vertex shader exactly as plumb's
//!   setup does (x-major lines widened vertically, points as squares), so any width works
//!   without the API's wide lines or polygon-mode features; wireframe edges and points are
//!   generated from the triangles (culled and faced on the CPU from the clip positions).
//! - **Textures.** Sampled in the shader with `textureLoad` by plumb's own rules (texel
//!   centres, wrap modes including GL `CLAMP` and border colours, mip selection with the
//!   GL switch point, anisotropic probes), so no sampler feature is needed. λ follows
//!   plumb's analytic per-pixel rule: `u = S/Q` with `S, T, Q = (s, t, q)/w` linear in screen
//!   space and `∂u/∂x = (S_x − u·Q_x)/Q`, the quad differences taken of the linear `S, T, Q`
//!   (exact plane slopes), not of `u` (secants of a non-linear function, the usual GPU
//!   rule, which picks other mip levels than plumb). Level sizes come from level 0: lavapipe
//!   (Mesa 22.3) answered `textureDimensions(t, level)` with another pixel's size when the
//!   level varied within one SIMD group, which read zeros (black streaks where λ crossed an
//!   integer).
//! - **Blending.** The GPU blender; `CONSTANT_ALPHA` factors use a constant of `(a, a, a, a)`.
//!   lavapipe blends in 8-bit fixed point, plumb in `f32`: one level apart in about a quarter
//!   of blended channels (`tests/direct.rs`).
//!
//! Render pipelines are cached by their state key (a lookup, never iterated).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use glam::{Mat3, Mat4, Vec3, Vec4};
use image::RgbaImage;
use plumb_raster::combine::{ApplyMode, CombineFn, Operand, Source};
use plumb_raster::fog::{FogDistance, FogMode};
use plumb_raster::light::LightKind;
use plumb_raster::texture::{MagFilter, MinFilter, Texture, Wrap};
use plumb_raster::{
    BlendEquation, BlendFactor, CompareFunc, CullMode, DrawStats, DrawTarget, Error, FixedFunction,
    FrontFace, Indices, MeshInput, PipelineState, PolygonMode, Rect, ShadeModel, StencilOp, TexGen,
    Topology, Transforms, VertexInput,
};
use wgpu::util::DeviceExt;

const SHADER: &str = include_str!("fixed.wgsl");
const CLEAR_SHADER: &str = include_str!("clear.wgsl");
const COLOR_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8Unorm;
/// Longest a read-back waits for the device. The device is shared by every target of the
/// process, so a wait covers other threads' submissions too; lavapipe on a loaded 2-core
/// machine has taken more than two minutes for one such wait (the conformance corpus with
/// its 2048² KTX2 model rendering beside it), so the bound is for hangs, not for slowness.
const WAIT: Duration = Duration::from_secs(600);
/// Texture bindings (plumb's `MAX_TEXTURE_UNITS`).
const UNITS: usize = plumb_raster::fixed_function::MAX_TEXTURE_UNITS;

fn backend(what: &str, e: impl std::fmt::Display) -> Error {
    Error::Backend(format!("wgpu: {what}: {e}"))
}

/// A render target on a wgpu device: RGBA8 colour, 32-bit float depth and 8-bit stencil,
/// drawn through [`DrawTarget`] and read back with [`WgpuTarget::read_back`].
pub struct WgpuTarget {
    gpu: Arc<Gpu>,
    width: u32,
    height: u32,
    color: wgpu::Texture,
    color_view: wgpu::TextureView,
    depth_view: wgpu::TextureView,
    textures: HashMap<usize, (Arc<Texture>, wgpu::TextureView)>,
    encoder: Option<wgpu::CommandEncoder>,
    draws: u64,
    probe: bool,
}

/// The device and everything shared by the targets on it: one per process, so shaders are
/// compiled and pipelines built once, not per target.
struct Gpu {
    device: wgpu::Device,
    queue: wgpu::Queue,
    adapter_name: String,
    max_size: u32,
    depth_format: wgpu::TextureFormat,
    shader: wgpu::ShaderModule,
    clear_shader: wgpu::ShaderModule,
    layout: wgpu::PipelineLayout,
    bgl: wgpu::BindGroupLayout,
    clear_layout: wgpu::PipelineLayout,
    clear_bgl: wgpu::BindGroupLayout,
    pipelines: Mutex<HashMap<String, wgpu::RenderPipeline>>,
    dummy: wgpu::TextureView,
    errors: Arc<Mutex<Vec<String>>>,
}

static GPU: OnceLock<Result<Arc<Gpu>, Error>> = OnceLock::new();

fn gpu() -> Result<Arc<Gpu>, Error> {
    GPU.get_or_init(|| Gpu::new().map(Arc::new)).clone()
}

impl std::fmt::Debug for WgpuTarget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WgpuTarget")
            .field("adapter", &self.gpu.adapter_name)
            .field("width", &self.width)
            .field("height", &self.height)
            .finish_non_exhaustive()
    }
}

/// One pixel of a texel-probe image ([`WgpuTarget::set_texel_probe`]): where texture unit 0
/// sampled the fragment stored there.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TexelProbe {
    /// The level of detail `λ = ½·log₂ ρ²` before bias and clamping, to 1/1024.
    pub lambda: f32,
    /// Distance from the sample point to the nearest texel edge of level 0, in texels, to
    /// 1/510 and at most 0.5: where nearest filtering switches texels.
    pub edge: f32,
    /// Distance to the nearest line through level-0 texel centres, in texels, to 1/510 and
    /// at most 0.5: where bilinear filtering switches texel pairs.
    pub pair: f32,
}

impl TexelProbe {
    /// Reads a probe pixel: `None` where the surface seen is untextured (white).
    pub fn decode(px: [u8; 4]) -> Option<TexelProbe> {
        if px == [255; 4] {
            return None;
        }
        let q = u32::from(px[0]) * 256 + u32::from(px[1]);
        Some(TexelProbe {
            lambda: q as f32 / 1024.0 - 32.0,
            edge: f32::from(px[2]) / 510.0,
            pair: f32::from(px[3]) / 510.0,
        })
    }
}

/// The adapter a [`WgpuTarget`] would use: its name, or an error saying why there is none.
///
/// # Errors
/// [`Error::Backend`] when no Vulkan adapter is found.
pub fn adapter_info() -> Result<String, Error> {
    Ok(gpu()?.adapter_name.clone())
}

fn instance() -> wgpu::Instance {
    let mut desc = wgpu::InstanceDescriptor::new_without_display_handle();
    desc.backends = wgpu::Backends::VULKAN;
    wgpu::Instance::new(desc)
}

fn request_adapter(instance: &wgpu::Instance) -> Result<wgpu::Adapter, Error> {
    pollster::block_on(instance.request_adapter(&wgpu::RequestAdapterOptions {
        power_preference: wgpu::PowerPreference::default(),
        force_fallback_adapter: false,
        compatible_surface: None,
        apply_limit_buckets: false,
    }))
    .map_err(|e| {
        Error::Backend(format!(
            "wgpu: no Vulkan adapter ({e}); install a Vulkan driver (on Debian, Mesa's lavapipe: \
             mesa-vulkan-drivers and libvulkan1)"
        ))
    })
}

impl Gpu {
    fn new() -> Result<Gpu, Error> {
        let instance = instance();
        let adapter = request_adapter(&instance)?;
        let info = adapter.get_info();
        let adapter_name = format!("{} ({:?}, {})", info.name, info.backend, info.driver);
        let have = adapter.features();
        if !have.contains(wgpu::Features::CLIP_DISTANCES) {
            return Err(Error::Backend(format!(
                "wgpu: adapter {adapter_name} lacks CLIP_DISTANCES (needed for depth range and user clip planes)"
            )));
        }
        let mut features = wgpu::Features::CLIP_DISTANCES;
        let depth_format = if have.contains(wgpu::Features::DEPTH32FLOAT_STENCIL8) {
            features |= wgpu::Features::DEPTH32FLOAT_STENCIL8;
            wgpu::TextureFormat::Depth32FloatStencil8
        } else {
            wgpu::TextureFormat::Depth24PlusStencil8
        };
        let alimits = adapter.limits();
        let limits = wgpu::Limits {
            max_texture_dimension_2d: alimits.max_texture_dimension_2d,
            max_storage_buffer_binding_size: alimits.max_storage_buffer_binding_size,
            max_buffer_size: alimits.max_buffer_size,
            ..wgpu::Limits::default()
        };
        let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
            label: Some("plumb-wgpu"),
            required_features: features,
            required_limits: limits,
            ..Default::default()
        }))
        .map_err(|e| backend("request_device", e))?;
        let errors = Arc::new(Mutex::new(Vec::new()));
        let sink = Arc::clone(&errors);
        device.on_uncaptured_error(Arc::new(move |e: wgpu::Error| {
            if let Ok(mut v) = sink.lock() {
                v.push(e.to_string());
            }
        }));
        let shader = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("plumb fixed function"),
            source: wgpu::ShaderSource::Wgsl(SHADER.into()),
        });
        let clear_shader = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("plumb clear"),
            source: wgpu::ShaderSource::Wgsl(CLEAR_SHADER.into()),
        });
        let vis = wgpu::ShaderStages::VERTEX | wgpu::ShaderStages::FRAGMENT;
        let mut entries = vec![
            wgpu::BindGroupLayoutEntry {
                binding: 0,
                visibility: vis,
                ty: wgpu::BindingType::Buffer {
                    ty: wgpu::BufferBindingType::Uniform,
                    has_dynamic_offset: false,
                    min_binding_size: None,
                },
                count: None,
            },
            storage_entry(1),
            storage_entry(2),
        ];
        for k in 0..UNITS {
            entries.push(wgpu::BindGroupLayoutEntry {
                binding: 3 + k as u32,
                visibility: wgpu::ShaderStages::FRAGMENT,
                ty: wgpu::BindingType::Texture {
                    sample_type: wgpu::TextureSampleType::Float { filterable: false },
                    view_dimension: wgpu::TextureViewDimension::D2,
                    multisampled: false,
                },
                count: None,
            });
        }
        let bgl = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("plumb draw"),
            entries: &entries,
        });
        let layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("plumb draw"),
            bind_group_layouts: &[Some(&bgl)],
            immediate_size: 0,
        });
        let clear_bgl = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("plumb clear"),
            entries: &[wgpu::BindGroupLayoutEntry {
                binding: 0,
                visibility: vis,
                ty: wgpu::BindingType::Buffer {
                    ty: wgpu::BufferBindingType::Uniform,
                    has_dynamic_offset: false,
                    min_binding_size: None,
                },
                count: None,
            }],
        });
        let clear_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("plumb clear"),
            bind_group_layouts: &[Some(&clear_bgl)],
            immediate_size: 0,
        });
        let dummy_tex = device.create_texture_with_data(
            &queue,
            &wgpu::TextureDescriptor {
                label: Some("plumb unused unit"),
                size: wgpu::Extent3d {
                    width: 1,
                    height: 1,
                    depth_or_array_layers: 1,
                },
                mip_level_count: 1,
                sample_count: 1,
                dimension: wgpu::TextureDimension::D2,
                format: COLOR_FORMAT,
                usage: wgpu::TextureUsages::TEXTURE_BINDING,
                view_formats: &[],
            },
            wgpu::util::TextureDataOrder::LayerMajor,
            &[255, 255, 255, 255],
        );
        let gpu = Gpu {
            dummy: dummy_tex.create_view(&wgpu::TextureViewDescriptor::default()),
            device,
            queue,
            adapter_name,
            max_size: alimits.max_texture_dimension_2d,
            depth_format,
            shader,
            clear_shader,
            layout,
            bgl,
            clear_layout,
            clear_bgl,
            pipelines: Mutex::new(HashMap::new()),
            errors,
        };
        gpu.check_errors()?;
        Ok(gpu)
    }

    fn check_errors(&self) -> Result<(), Error> {
        let mut v = self
            .errors
            .lock()
            .map_err(|_| Error::Backend("wgpu: error sink poisoned".into()))?;
        if v.is_empty() {
            return Ok(());
        }
        let msg = v.join("; ");
        v.clear();
        Err(Error::Backend(format!("wgpu: {msg}")))
    }

    /// The cached pipeline called `name`, built by `make` the first time.
    fn cached(
        &self,
        name: String,
        make: impl FnOnce() -> wgpu::RenderPipeline,
    ) -> wgpu::RenderPipeline {
        if let Ok(map) = self.pipelines.lock() {
            if let Some(p) = map.get(&name) {
                return p.clone();
            }
        }
        let p = make();
        if let Ok(mut map) = self.pipelines.lock() {
            map.insert(name, p.clone());
        }
        p
    }
}

impl WgpuTarget {
    /// A `width × height` target on the process's Vulkan device (the first adapter, opened
    /// once and shared by every target).
    ///
    /// # Errors
    /// [`Error::InvalidSize`] for a side outside `1..=16384` or the device's limit;
    /// [`Error::Backend`] when there is no adapter, it lacks a needed feature
    /// (`CLIP_DISTANCES`), or the device cannot be created.
    pub fn new(width: u32, height: u32) -> Result<WgpuTarget, Error> {
        let max = plumb_raster::target::MAX_TARGET_SIZE;
        if width == 0 || height == 0 || width > max || height > max {
            return Err(Error::InvalidSize { width, height, max });
        }
        let gpu = gpu()?;
        if width > gpu.max_size || height > gpu.max_size {
            return Err(Error::InvalidSize {
                width,
                height,
                max: gpu.max_size,
            });
        }
        let size = wgpu::Extent3d {
            width,
            height,
            depth_or_array_layers: 1,
        };
        let color = gpu.device.create_texture(&wgpu::TextureDescriptor {
            label: Some("plumb colour"),
            size,
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: COLOR_FORMAT,
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC,
            view_formats: &[],
        });
        let depth = gpu.device.create_texture(&wgpu::TextureDescriptor {
            label: Some("plumb depth"),
            size,
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: gpu.depth_format,
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT,
            view_formats: &[],
        });
        let t = WgpuTarget {
            color_view: color.create_view(&wgpu::TextureViewDescriptor::default()),
            depth_view: depth.create_view(&wgpu::TextureViewDescriptor::default()),
            gpu,
            width,
            height,
            color,
            textures: HashMap::new(),
            encoder: None,
            draws: 0,
            probe: false,
        };
        t.gpu.check_errors()?;
        Ok(t)
    }

    /// Turns the texel probe on or off (a diagnostic; off by default). While on, each
    /// textured fragment that passes the alpha test writes, instead of its colour and with
    /// blending off, where texture unit 0 sampled it ([`TexelProbe::decode`] reads a pixel
    /// back): the level of detail λ and the distances from the sample point to the nearest
    /// texel edge and to the nearest texel-centre line, in level-0 texels. Clears and
    /// untextured fragments of unblended draws write white ("no texture here"); untextured
    /// fragments of blended draws, which only tint what is below, are discarded. Coverage,
    /// depth and stencil work as usual, so a probe image lines up with the normal one pixel
    /// for pixel.
    /// This is how `refimages/conform.json` shows which differing pixels sit on a texel
    /// boundary or in an undersampled texture.
    pub fn set_texel_probe(&mut self, on: bool) {
        self.probe = on;
    }

    /// `state` as the probe draws it (blending off, so the probe's bytes are stored as is),
    /// and the shader's probe mode: 0 off, 1 on for an unblended draw (its untextured
    /// fragments cover what was below: white), 2 on for a blended one (its untextured
    /// fragments only tint what was below: discarded).
    fn probe_state(&self, state: &PipelineState) -> (PipelineState, f32) {
        let mut s = *state;
        if !self.probe {
            return (s, 0.0);
        }
        let mode = if s.blend.enabled { 2.0 } else { 1.0 };
        s.blend.enabled = false;
        (s, mode)
    }

    /// The adapter's name, backend and driver.
    pub fn adapter_name(&self) -> &str {
        &self.gpu.adapter_name
    }

    fn encoder(&mut self) -> &mut wgpu::CommandEncoder {
        let device = &self.gpu.device;
        self.encoder.get_or_insert_with(|| {
            device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("plumb frame"),
            })
        })
    }

    fn submit(&mut self) {
        if let Some(e) = self.encoder.take() {
            self.gpu.queue.submit([e.finish()]);
        }
    }

    fn wait(&self) -> Result<(), Error> {
        self.gpu
            .device
            .poll(wgpu::PollType::Wait {
                submission_index: None,
                timeout: Some(WAIT),
            })
            .map(|_| ())
            .map_err(|e| backend("waiting for the device", e))
    }

    /// Submits everything queued, waits, and copies the colour image back (row 0 at the top).
    ///
    /// # Errors
    /// [`Error::Backend`] when the device fails, a command was invalid, or the device does
    /// not finish within ten minutes.
    pub fn read_back(&mut self) -> Result<RgbaImage, Error> {
        let (w, h) = (self.width, self.height);
        let row = (w * 4).next_multiple_of(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT);
        let buf = self.gpu.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("plumb read-back"),
            size: u64::from(row) * u64::from(h),
            usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::MAP_READ,
            mapped_at_creation: false,
        });
        let color = self.color.clone();
        self.encoder().copy_texture_to_buffer(
            color.as_image_copy(),
            wgpu::TexelCopyBufferInfo {
                buffer: &buf,
                layout: wgpu::TexelCopyBufferLayout {
                    offset: 0,
                    bytes_per_row: Some(row),
                    rows_per_image: Some(h),
                },
            },
            wgpu::Extent3d {
                width: w,
                height: h,
                depth_or_array_layers: 1,
            },
        );
        self.submit();
        let (tx, rx) = std::sync::mpsc::channel();
        buf.slice(..).map_async(wgpu::MapMode::Read, move |r| {
            let _ = tx.send(r);
        });
        // The device is shared by every target of the process: another thread's poll may be
        // the one that runs this callback, possibly after our own poll has returned, so wait
        // for the callback itself (polling again meanwhile), not just for the device.
        let deadline = std::time::Instant::now() + WAIT;
        let mapped = loop {
            self.wait()?;
            match rx.recv_timeout(Duration::from_millis(5)) {
                Ok(r) => break r,
                Err(std::sync::mpsc::RecvTimeoutError::Timeout)
                    if std::time::Instant::now() < deadline => {}
                Err(_) => return Err(Error::Backend("wgpu: read-back buffer never mapped".into())),
            }
        };
        self.gpu.check_errors()?;
        mapped.map_err(|e| backend("mapping the read-back buffer", e))?;
        let data = buf
            .slice(..)
            .get_mapped_range()
            .map_err(|e| backend("reading the mapped buffer", e))?;
        let mut out = Vec::with_capacity((w * h * 4) as usize);
        for y in 0..h as usize {
            let start = y * row as usize;
            out.extend_from_slice(&data[start..start + (w * 4) as usize]);
        }
        drop(data);
        buf.unmap();
        RgbaImage::from_raw(w, h, out)
            .ok_or_else(|| Error::Backend("wgpu: read-back size mismatch".into()))
    }

    /// The GPU view of `tex`, uploaded once per texture (keyed by the `Arc`, which the cache
    /// keeps alive so its address cannot be reused).
    fn texture_view(&mut self, tex: &Arc<Texture>) -> wgpu::TextureView {
        let key = Arc::as_ptr(tex) as usize;
        if let Some((_, v)) = self.textures.get(&key) {
            return v.clone();
        }
        let levels = tex.level_count().max(1) as u32;
        let gpu = self.gpu.device.create_texture(&wgpu::TextureDescriptor {
            label: Some("plumb texture"),
            size: wgpu::Extent3d {
                width: tex.width(),
                height: tex.height(),
                depth_or_array_layers: 1,
            },
            mip_level_count: levels,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: COLOR_FORMAT,
            usage: wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::COPY_DST,
            view_formats: &[],
        });
        for i in 0..levels {
            if let Some(l) = tex.level(i as usize) {
                self.gpu.queue.write_texture(
                    wgpu::TexelCopyTextureInfo {
                        texture: &gpu,
                        mip_level: i,
                        origin: wgpu::Origin3d::ZERO,
                        aspect: wgpu::TextureAspect::All,
                    },
                    l.as_bytes(),
                    wgpu::TexelCopyBufferLayout {
                        offset: 0,
                        bytes_per_row: Some(l.width() * 4),
                        rows_per_image: Some(l.height()),
                    },
                    wgpu::Extent3d {
                        width: l.width(),
                        height: l.height(),
                        depth_or_array_layers: 1,
                    },
                );
            }
        }
        let view = gpu.create_view(&wgpu::TextureViewDescriptor::default());
        self.textures.insert(key, (Arc::clone(tex), view.clone()));
        view
    }

    fn pipeline(&mut self, key: &PipeKey) -> wgpu::RenderPipeline {
        let g = &self.gpu;
        g.cached(format!("{key:?}"), || {
            build_pipeline(&g.device, &g.layout, &g.shader, g.depth_format, key)
        })
    }

    fn clear_pipeline(&mut self, color: bool, depth: bool, stencil: bool) -> wgpu::RenderPipeline {
        let name = format!("clear {color} {depth} {stencil}");
        let g = &self.gpu;
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

    /// One draw: uniforms, vertex data and the primitive list are ready.
    #[allow(
        clippy::too_many_arguments,
        reason = "internal: the pieces of one draw"
    )]
    fn submit_draw(
        &mut self,
        state: &PipelineState,
        uniforms: &[f32],
        vdata: &[f32],
        prims: &[u32],
        kind: PrimKind,
        vertex_count: u32,
        units: &[Arc<Texture>],
        blend_constant: Vec4,
    ) -> Result<(), Error> {
        if vertex_count == 0 {
            return Ok(());
        }
        let Some(rect) = scissor_rect(state, self.width, self.height, kind) else {
            return Ok(());
        };
        let key = PipeKey::new(state, kind, units.len());
        let pipeline = self.pipeline(&key);
        let views: Vec<wgpu::TextureView> = units.iter().map(|t| self.texture_view(t)).collect();
        let ubuf = self
            .gpu
            .device
            .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("plumb draw uniforms"),
                contents: f32_bytes(uniforms).as_slice(),
                usage: wgpu::BufferUsages::UNIFORM,
            });
        let mut vbytes = f32_bytes(vdata);
        vbytes.resize(vbytes.len().max(16), 0);
        let vbuf = self
            .gpu
            .device
            .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("plumb vertices"),
                contents: &vbytes,
                usage: wgpu::BufferUsages::STORAGE,
            });
        let mut ibytes: Vec<u8> = prims.iter().flat_map(|i| i.to_le_bytes()).collect();
        ibytes.resize(ibytes.len().max(16), 0);
        let ibuf = self
            .gpu
            .device
            .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("plumb primitives"),
                contents: &ibytes,
                usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::INDEX,
            });
        let mut entries = vec![
            wgpu::BindGroupEntry {
                binding: 0,
                resource: ubuf.as_entire_binding(),
            },
            wgpu::BindGroupEntry {
                binding: 1,
                resource: vbuf.as_entire_binding(),
            },
            wgpu::BindGroupEntry {
                binding: 2,
                resource: ibuf.as_entire_binding(),
            },
        ];
        for k in 0..UNITS {
            entries.push(wgpu::BindGroupEntry {
                binding: 3 + k as u32,
                resource: wgpu::BindingResource::TextureView(
                    views.get(k).unwrap_or(&self.gpu.dummy),
                ),
            });
        }
        let bind = self
            .gpu
            .device
            .create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("plumb draw"),
                layout: &self.gpu.bgl,
                entries: &entries,
            });
        let color_view = self.color_view.clone();
        let depth_view = self.depth_view.clone();
        let enc = self.encoder();
        {
            let mut pass = begin_load_pass(enc, &color_view, &depth_view);
            pass.set_pipeline(&pipeline);
            pass.set_bind_group(0, &bind, &[]);
            pass.set_scissor_rect(rect.x, rect.y, rect.width, rect.height);
            pass.set_stencil_reference(u32::from(state.stencil.reference));
            pass.set_blend_constant(wgpu::Color {
                r: f64::from(blend_constant.x),
                g: f64::from(blend_constant.y),
                b: f64::from(blend_constant.z),
                a: f64::from(blend_constant.w),
            });
            if key.indexed {
                pass.set_index_buffer(ibuf.slice(..), wgpu::IndexFormat::Uint32);
                pass.draw_indexed(0..vertex_count, 0, 0..1);
            } else {
                pass.draw(0..vertex_count, 0..1);
            }
        }
        self.draws += 1;
        // Bound the queued work (and the memory of its buffers) on long frames.
        if self.draws.is_multiple_of(256) {
            self.submit();
        }
        self.gpu.check_errors()
    }
}

/// `c` as plumb stores it (`floor(clamp(x, 0, 1)·255 + 0.5)`), back in 0..1: the GPU then
/// stores exactly those bytes, whatever its own rounding.
fn unorm8(c: Vec4) -> Vec4 {
    let q = |x: f32| {
        let x = if x > 0.0 { x.min(1.0) } else { 0.0 };
        (x * 255.0 + 0.5).floor() / 255.0
    };
    Vec4::new(q(c.x), q(c.y), q(c.z), q(c.w))
}

fn storage_entry(binding: u32) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::VERTEX,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Storage { read_only: true },
            has_dynamic_offset: false,
            min_binding_size: None,
        },
        count: None,
    }
}

fn f32_bytes(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn begin_load_pass<'e>(
    enc: &'e mut wgpu::CommandEncoder,
    color: &wgpu::TextureView,
    depth: &wgpu::TextureView,
) -> wgpu::RenderPass<'e> {
    enc.begin_render_pass(&wgpu::RenderPassDescriptor {
        label: Some("plumb draw"),
        color_attachments: &[Some(wgpu::RenderPassColorAttachment {
            view: color,
            depth_slice: None,
            resolve_target: None,
            ops: wgpu::Operations {
                load: wgpu::LoadOp::Load,
                store: wgpu::StoreOp::Store,
            },
        })],
        depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
            view: depth,
            depth_ops: Some(wgpu::Operations {
                load: wgpu::LoadOp::Load,
                store: wgpu::StoreOp::Store,
            }),
            stencil_ops: Some(wgpu::Operations {
                load: wgpu::LoadOp::Load,
                store: wgpu::StoreOp::Store,
            }),
        }),
        timestamp_writes: None,
        occlusion_query_set: None,
        multiview_mask: None,
    })
}

/// What the vertex shader expands: triangles, segments or points.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum PrimKind {
    Tri,
    Line,
    Point,
}

impl PrimKind {
    fn code(self) -> f32 {
        match self {
            PrimKind::Tri => 0.0,
            PrimKind::Line => 1.0,
            PrimKind::Point => 2.0,
        }
    }
}

/// The pixel rectangle a draw may touch (plumb's `clip_rect` for filled polygons,
/// `quad_rect` for point and line quads); `None` when it is empty.
fn scissor_rect(state: &PipelineState, width: u32, height: u32, kind: PrimKind) -> Option<Rect> {
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
struct PipeKey {
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
    indexed: bool,
}

impl PipeKey {
    fn new(s: &PipelineState, kind: PrimKind, units: usize) -> PipeKey {
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
fn gpu_blend_constant(s: &PipelineState) -> Vec4 {
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
            entry_point: Some("fs"),
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

// ------------------------------------------------------------------ primitive lists

/// Facing of a triangle from its clip positions: `Some(front)`, or `None` when degenerate.
/// The sign of `det[x y w]` is the orientation of its visible part in NDC (y up).
fn facing(state: &PipelineState, c: [Vec4; 3]) -> Option<bool> {
    let m = Mat3::from_cols(
        Vec3::new(c[0].x, c[0].y, c[0].w),
        Vec3::new(c[1].x, c[1].y, c[1].w),
        Vec3::new(c[2].x, c[2].y, c[2].w),
    );
    let d = m.determinant();
    if d == 0.0 || !d.is_finite() {
        return None;
    }
    Some((d > 0.0) == (state.front_face == FrontFace::Ccw))
}

/// The primitive list for the shader and its vertex count: triangles as three indices
/// (plumb's provoking vertex first); segments as `(a, b, flat | back bit)`; points as
/// `(v, flat | back bit)`. Wireframe and point-mode triangles are culled here.
fn primitives(
    state: &PipelineState,
    indices: Indices<'_>,
    n: usize,
    topology: Topology,
    clip: &dyn Fn(usize) -> Vec4,
) -> (Vec<u32>, PrimKind, u32) {
    const BACK: u32 = 0x8000_0000;
    let elems = indices.len(n);
    let count = topology.primitive_count(elems);
    let mut out = Vec::new();
    let at = |e: usize| indices.get(e) as u32;
    match topology {
        Topology::TriangleList | Topology::TriangleStrip | Topology::TriangleFan => {
            match state.polygon_mode {
                PolygonMode::Fill => {
                    out.reserve(count * 3);
                    for p in 0..count {
                        for e in topology.primitive(p) {
                            out.push(at(e));
                        }
                    }
                    let v = out.len() as u32;
                    (out, PrimKind::Tri, v)
                }
                mode => {
                    for p in 0..count {
                        let v = topology.primitive(p).map(at);
                        let Some(front) = facing(state, v.map(|i| clip(i as usize))) else {
                            continue;
                        };
                        let keep = match state.cull {
                            CullMode::None => true,
                            CullMode::Back => front,
                            CullMode::Front => !front,
                        };
                        if !keep {
                            continue;
                        }
                        let flat = v[0] | if front { 0 } else { BACK };
                        if mode == PolygonMode::Line {
                            for k in 0..3 {
                                out.extend_from_slice(&[v[k], v[(k + 1) % 3], flat]);
                            }
                        } else {
                            for &x in &v {
                                out.extend_from_slice(&[x, flat]);
                            }
                        }
                    }
                    if mode == PolygonMode::Line {
                        let v = (out.len() / 3 * 6) as u32;
                        (out, PrimKind::Line, v)
                    } else {
                        let v = (out.len() / 2 * 6) as u32;
                        (out, PrimKind::Point, v)
                    }
                }
            }
        }
        Topology::LineList | Topology::LineStrip => {
            for p in 0..count {
                let [a, b, _] = topology.primitive(p);
                out.extend_from_slice(&[at(a), at(b), at(a)]);
            }
            let v = (count * 6) as u32;
            (out, PrimKind::Line, v)
        }
        Topology::PointList => {
            for p in 0..count {
                let v = at(topology.primitive(p)[0]);
                out.extend_from_slice(&[v, v]);
            }
            let v = (count * 6) as u32;
            (out, PrimKind::Point, v)
        }
    }
}

// ------------------------------------------------------------------ uniforms

/// Builds the `Draw` uniform of fixed.wgsl, field by field.
struct Uniforms(Vec<f32>);

impl Uniforms {
    fn v4(&mut self, v: [f32; 4]) {
        self.0.extend_from_slice(&v);
    }
    fn v3(&mut self, v: Vec3, w: f32) {
        self.v4([v.x, v.y, v.z, w]);
    }
    fn mat(&mut self, m: Mat4) {
        self.0.extend_from_slice(&m.to_cols_array());
    }
}

fn b(x: bool) -> f32 {
    if x {
        1.0
    } else {
        0.0
    }
}

/// Floats in the `Draw` struct: 3 matrices, 17 vectors, 6 planes, 2 flag vectors, 8 lights
/// of 8 vectors and 8 units of 4 + 4 + 11 vectors.
const UNIFORM_FLOATS: usize = 48 + 17 * 4 + 24 + 8 + 8 * 32 + 8 * 76;

/// The uniform block of one draw. `fixed`: the fixed-function draw's parts, or `None` for a
/// pre-transformed draw; `attr`: stride and offsets of the vertex data.
fn build_uniforms(
    state: &PipelineState,
    probe: f32,
    size: (u32, u32),
    kind: PrimKind,
    fixed: Option<(&FixedFunction, &Transforms)>,
    attr: [f32; 4],
) -> Vec<f32> {
    let (w, h) = (size.0 as f32, size.1 as f32);
    let mut u = Uniforms(Vec::with_capacity(UNIFORM_FLOATS));
    let ff_default = FixedFunction::default();
    let (ff, tr) = match fixed {
        Some((ff, tr)) => (ff, Some(tr)),
        None => (&ff_default, None),
    };
    let (clip_from_model, view_from_model) = match tr {
        Some(t) => (t.clip_from_view * t.view_from_model, t.view_from_model),
        None => (Mat4::IDENTITY, Mat4::IDENTITY),
    };
    u.mat(clip_from_model);
    u.mat(view_from_model);
    let nm = Mat3::from_mat4(view_from_model).inverse().transpose();
    u.mat(Mat4::from_mat3(nm));
    let vp = &state.viewport;
    let dr = vp.max_depth - vp.min_depth;
    u.v4([vp.width / w, vp.height / h, dr, 0.0]);
    u.v4([
        (2.0 * vp.x + vp.width) / w - 1.0,
        1.0 - (2.0 * vp.y + vp.height) / h,
        vp.min_depth,
        0.0,
    ]);
    let lighting = ff.lighting.filter(|l| l.is_lit());
    let lit = match (&lighting, ff.per_pixel_lighting) {
        (None, _) => 0.0,
        (Some(_), false) => 1.0,
        (Some(_), true) => 2.0,
    };
    let nunits = if fixed.is_some() { ff.units.len() } else { 0 };
    u.v4([b(fixed.is_some()), lit, nunits as f32, kind.code()]);
    let l = lighting.unwrap_or_default();
    u.v4([
        b(state.shade == ShadeModel::Flat),
        b(l.two_sided),
        b(l.separate_specular),
        b(l.color_material),
    ]);
    // Lights: plumb's PreparedLighting (lights that are off dropped, slot order kept).
    let on: Vec<_> = l
        .lights
        .iter()
        .flatten()
        .filter(|x| x.on)
        .copied()
        .collect();
    u.v4([
        b(l.local_viewer),
        on.len() as f32,
        l.material.shininess,
        l.material.alpha,
    ]);
    match ff.fog.filter(|_| fixed.is_some()) {
        Some(f) => {
            let (mode, p) = match f.mode {
                FogMode::Linear { start, end } => (1.0, [start, end, 0.0, 0.0]),
                FogMode::Exp { density } => (2.0, [0.0, 0.0, density, 0.0]),
                FogMode::Exp2 { density } => (3.0, [0.0, 0.0, density, 0.0]),
            };
            u.v4([
                mode,
                b(f.per_pixel),
                b(f.distance == FogDistance::Radial),
                0.0,
            ]);
            u.v4(p);
            u.v4(f.color.to_array());
        }
        None => {
            u.v4([0.0; 4]);
            u.v4([0.0; 4]);
            u.v4([0.0; 4]);
        }
    }
    let alpha_func = CompareFunc::ALL
        .iter()
        .position(|f| *f == state.alpha_test.func)
        .unwrap_or(7) as f32;
    u.v4([
        alpha_func,
        state.alpha_test.reference,
        b(!state.blend.enabled),
        probe,
    ]);
    u.v4([w, h, state.point_size * 0.5, state.line_width * 0.5]);
    u.v4(attr);
    u.v4([-1.0, 0.0, 0.0, 0.0]);
    let m = &l.material;
    u.v3(l.global_ambient, 0.0);
    u.v3(m.emissive, 0.0);
    u.v3(m.ambient, 0.0);
    u.v3(m.diffuse, 0.0);
    u.v3(m.specular, 0.0);
    for p in &state.clip_planes {
        u.v4(p.unwrap_or(Vec4::ZERO).to_array());
    }
    let mut flags = [0.0f32; 8];
    for (i, p) in state.clip_planes.iter().enumerate() {
        flags[i] = b(p.is_some());
    }
    u.0.extend_from_slice(&flags);
    for i in 0..8 {
        push_light(&mut u, on.get(i));
    }
    for k in 0..8 {
        push_unit(&mut u, ff.units.get(k).filter(|_| fixed.is_some()));
    }
    debug_assert_eq!(u.0.len(), UNIFORM_FLOATS);
    u.0
}

fn push_light(u: &mut Uniforms, l: Option<&plumb_raster::light::Light>) {
    let Some(l) = l else {
        for _ in 0..8 {
            u.v4([0.0; 4]);
        }
        return;
    };
    let mut kind = 0.0;
    let mut vector = Vec3::ZERO;
    let mut spot_dir = Vec3::ZERO;
    let (mut has_cone, mut cos_cut, mut exponent) = (0.0, 0.0, 0.0);
    let mut smooth: Option<(f32, f32)> = None;
    match l.kind {
        LightKind::Ambient => {}
        LightKind::Directional { direction } => {
            kind = 1.0;
            vector = -direction.normalize_or_zero();
        }
        LightKind::Point { position } => {
            kind = 2.0;
            vector = position;
        }
        LightKind::Spot {
            position,
            direction,
            cutoff_deg,
            exponent: e,
        } => {
            kind = 3.0;
            vector = position;
            spot_dir = direction.normalize_or_zero();
            if cutoff_deg < 180.0 {
                has_cone = 1.0;
                cos_cut = plumb_raster::math::cos(plumb_raster::math::to_radians(cutoff_deg));
                if let Some(inner) = l.spot_inner_deg.filter(|x| x.is_finite()) {
                    let cos_inner = plumb_raster::math::cos(plumb_raster::math::to_radians(
                        inner.min(cutoff_deg),
                    ));
                    let scale = 1.0 / (cos_inner - cos_cut).max(1e-3);
                    smooth = Some((scale, -cos_cut * scale));
                }
            }
            exponent = e;
        }
    }
    let ambient = plumb_raster::math::saturate3(l.ambient * l.intensity);
    let (diffuse, specular) = if kind != 0.0 {
        (
            plumb_raster::math::saturate3(l.diffuse * l.intensity),
            plumb_raster::math::saturate3(l.specular * l.intensity),
        )
    } else {
        (Vec3::ZERO, Vec3::ZERO)
    };
    let (atten, inv_range) = if kind >= 2.0 {
        (
            l.attenuation,
            l.range
                .filter(|r| *r > 0.0 && r.is_finite())
                .map(|r| 1.0 / r),
        )
    } else {
        ([1.0, 0.0, 0.0], None)
    };
    u.v4([kind, has_cone, cos_cut, exponent]);
    u.v3(vector, 0.0);
    u.v3(spot_dir, b(smooth.is_some()));
    u.v3(ambient, 0.0);
    u.v3(diffuse, 0.0);
    u.v3(specular, 0.0);
    u.v4([atten[0], atten[1], atten[2], b(inv_range.is_some())]);
    let (sc, so) = smooth.unwrap_or((0.0, 0.0));
    u.v4([sc, so, inv_range.unwrap_or(0.0), 0.0]);
}

fn wrap_code(w: Wrap) -> f32 {
    match w {
        Wrap::Repeat => 0.0,
        Wrap::MirroredRepeat => 1.0,
        Wrap::ClampToEdge => 2.0,
        Wrap::ClampToBorder => 3.0,
        Wrap::Clamp => 4.0,
    }
}

fn push_unit(u: &mut Uniforms, unit: Option<&plumb_raster::TextureUnit>) {
    let Some(t) = unit else {
        u.mat(Mat4::IDENTITY);
        for _ in 0..(4 + 11) {
            u.v4([0.0; 4]);
        }
        return;
    };
    u.mat(t.matrix);
    let (gen, planes) = match t.texgen {
        TexGen::None => (0.0, [Vec4::ZERO; 4]),
        TexGen::ObjectLinear { planes } => (1.0, planes),
        TexGen::EyeLinear { planes } => (2.0, planes),
        TexGen::SphereMap => (3.0, [Vec4::ZERO; 4]),
    };
    for p in planes {
        u.v4(p.to_array());
    }
    let s = &t.sampler;
    let format = t.texture.format();
    u.v4(t.constant.to_array());
    u.v4(format.convert_border(s.border).to_array());
    let min = MinFilter::ALL.iter().position(|m| *m == s.min).unwrap_or(0) as f32;
    u.v4([
        b(s.mag == MagFilter::Linear),
        min,
        wrap_code(s.wrap_u),
        wrap_code(s.wrap_v),
    ]);
    u.v4([
        s.lod_bias,
        s.min_lod,
        s.max_lod,
        t.texture.level_count().max(1) as f32,
    ]);
    let apply = t.apply.for_format(format);
    let (code, c) = match apply {
        ApplyMode::Replace => (0.0, None),
        ApplyMode::Decal => (1.0, None),
        ApplyMode::Modulate => (2.0, None),
        ApplyMode::Blend => (3.0, None),
        ApplyMode::Add => (4.0, None),
        ApplyMode::Combine(c) => (5.0, Some(c)),
    };
    u.v4([gen, t.uv_set as f32, code, s.switch_point()]);
    u.v4([f32::from(s.max_anisotropy.clamp(1, 16)), 0.0, 0.0, 0.0]);
    let c = c.unwrap_or_default();
    let f = |x: CombineFn| CombineFn::ALL.iter().position(|y| *y == x).unwrap_or(0) as f32;
    let src = |x: Source| match x {
        Source::Texture => 0.0,
        Source::Constant => 1.0,
        Source::Primary => 2.0,
        Source::Previous => 3.0,
    };
    let op = |x: Operand| match x {
        Operand::Color => 0.0,
        Operand::OneMinusColor => 1.0,
        Operand::Alpha => 2.0,
        Operand::OneMinusAlpha => 3.0,
    };
    u.v4([f(c.rgb), f(c.alpha), c.rgb_scale, c.alpha_scale]);
    u.v4([src(c.src_rgb[0]), src(c.src_rgb[1]), src(c.src_rgb[2]), 0.0]);
    u.v4([op(c.op_rgb[0]), op(c.op_rgb[1]), op(c.op_rgb[2]), 0.0]);
    u.v4([
        src(c.src_alpha[0]),
        src(c.src_alpha[1]),
        src(c.src_alpha[2]),
        0.0,
    ]);
    u.v4([op(c.op_alpha[0]), op(c.op_alpha[1]), op(c.op_alpha[2]), 0.0]);
}

// ------------------------------------------------------------------ DrawTarget

impl DrawTarget for WgpuTarget {
    fn width(&self) -> u32 {
        self.width
    }

    fn height(&self) -> u32 {
        self.height
    }

    fn clear(&mut self, color: Vec4, depth: f32, stencil: u8) {
        // The probe's "no textured fragment here" is white.
        let color = unorm8(if self.probe { Vec4::ONE } else { color });
        let color_view = self.color_view.clone();
        let depth_view = self.depth_view.clone();
        let enc = self.encoder();
        enc.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some("plumb clear"),
            color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                view: &color_view,
                depth_slice: None,
                resolve_target: None,
                ops: wgpu::Operations {
                    load: wgpu::LoadOp::Clear(wgpu::Color {
                        r: f64::from(color.x),
                        g: f64::from(color.y),
                        b: f64::from(color.z),
                        a: f64::from(color.w),
                    }),
                    store: wgpu::StoreOp::Store,
                },
            })],
            depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                view: &depth_view,
                depth_ops: Some(wgpu::Operations {
                    load: wgpu::LoadOp::Clear(depth.clamp(0.0, 1.0)),
                    store: wgpu::StoreOp::Store,
                }),
                stencil_ops: Some(wgpu::Operations {
                    load: wgpu::LoadOp::Clear(u32::from(stencil)),
                    store: wgpu::StoreOp::Store,
                }),
            }),
            timestamp_writes: None,
            occlusion_query_set: None,
            multiview_mask: None,
        });
    }

    fn clear_rect(
        &mut self,
        rect: Rect,
        color: Option<Vec4>,
        depth: Option<f32>,
        stencil: Option<u8>,
    ) {
        let color = color.map(|c| if self.probe { Vec4::ONE } else { c });
        let x1 = rect.x.saturating_add(rect.width).min(self.width);
        let y1 = rect.y.saturating_add(rect.height).min(self.height);
        if rect.x >= x1 || rect.y >= y1 {
            return;
        }
        let pipeline = self.clear_pipeline(color.is_some(), depth.is_some(), stencil.is_some());
        let c = unorm8(color.unwrap_or(Vec4::ZERO));
        let d = depth.unwrap_or(0.0).clamp(0.0, 1.0);
        let data = [c.x, c.y, c.z, c.w, d, 0.0, 0.0, 0.0];
        let ubuf = self
            .gpu
            .device
            .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("plumb clear"),
                contents: &f32_bytes(&data),
                usage: wgpu::BufferUsages::UNIFORM,
            });
        let bind = self
            .gpu
            .device
            .create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("plumb clear"),
                layout: &self.gpu.clear_bgl,
                entries: &[wgpu::BindGroupEntry {
                    binding: 0,
                    resource: ubuf.as_entire_binding(),
                }],
            });
        let color_view = self.color_view.clone();
        let depth_view = self.depth_view.clone();
        let enc = self.encoder();
        let mut pass = begin_load_pass(enc, &color_view, &depth_view);
        pass.set_pipeline(&pipeline);
        pass.set_bind_group(0, &bind, &[]);
        pass.set_scissor_rect(rect.x, rect.y, x1 - rect.x, y1 - rect.y);
        pass.set_stencil_reference(u32::from(stencil.unwrap_or(0)));
        pass.draw(0..3, 0..1);
    }

    fn draw(
        &mut self,
        state: &PipelineState,
        vertices: &VertexInput<'_>,
        indices: Indices<'_>,
        topology: Topology,
    ) -> Result<DrawStats, Error> {
        vertices.validate()?;
        indices.validate(vertices.positions.len())?;
        state.validate()?;
        let n = vertices.positions.len();
        let has_color = vertices.colors.is_some();
        let nuv = vertices.uvs.len();
        let stride = 4 + if has_color { 4 } else { 0 } + 2 * nuv;
        let mut vdata = Vec::with_capacity(n * stride);
        for i in 0..n {
            vdata.extend_from_slice(&vertices.positions[i].to_array());
            if let Some(c) = vertices.colors {
                vdata.extend_from_slice(&c[i].to_array());
            }
            for uv in vertices.uvs {
                vdata.extend_from_slice(&uv[i].to_array());
            }
        }
        let clip = |i: usize| vertices.positions[i];
        let (prims, kind, count) = primitives(state, indices, n, topology, &clip);
        let attr = [
            stride as f32,
            -1.0,
            if has_color { 4.0 } else { -1.0 },
            (4 + if has_color { 4 } else { 0 }) as f32,
        ];
        let (state, probe) = self.probe_state(state);
        let state = &state;
        let uniforms = build_uniforms(state, probe, (self.width, self.height), kind, None, attr);
        self.submit_draw(
            state,
            &uniforms,
            &vdata,
            &prims,
            kind,
            count,
            &[],
            gpu_blend_constant(state),
        )?;
        Ok(DrawStats::default())
    }

    fn draw_fixed(
        &mut self,
        state: &PipelineState,
        ff: &FixedFunction,
        transforms: &Transforms,
        mesh: &MeshInput<'_>,
        indices: Indices<'_>,
        topology: Topology,
    ) -> Result<DrawStats, Error> {
        plumb_raster::fixed_function::check_fixed_input(ff, transforms, mesh, indices)?;
        state.validate()?;
        let n = mesh.positions.len();
        let nuv = mesh.uvs.len();
        let mut stride = 3;
        let normal_off = mesh.normals.map(|_| {
            stride += 3;
            (stride - 3) as f32
        });
        let color_off = mesh.colors.map(|_| {
            stride += 4;
            (stride - 4) as f32
        });
        let uv_off = stride as f32;
        stride += 2 * nuv;
        let mut vdata = Vec::with_capacity(n * stride);
        for i in 0..n {
            vdata.extend_from_slice(&mesh.positions[i].to_array());
            if let Some(x) = mesh.normals {
                vdata.extend_from_slice(&x[i].to_array());
            }
            if let Some(x) = mesh.colors {
                vdata.extend_from_slice(&x[i].to_array());
            }
            for uv in mesh.uvs {
                vdata.extend_from_slice(&uv[i].to_array());
            }
        }
        let clip_from_model = transforms.clip_from_view * transforms.view_from_model;
        let clip = |i: usize| clip_from_model * mesh.positions[i].extend(1.0);
        let (prims, kind, count) = primitives(state, indices, n, topology, &clip);
        let attr = [
            stride as f32,
            normal_off.unwrap_or(-1.0),
            color_off.unwrap_or(-1.0),
            uv_off,
        ];
        let (state, probe) = self.probe_state(state);
        let state = &state;
        let uniforms = build_uniforms(
            state,
            probe,
            (self.width, self.height),
            kind,
            Some((ff, transforms)),
            attr,
        );
        let textures: Vec<Arc<Texture>> = ff.units.iter().map(|u| Arc::clone(&u.texture)).collect();
        self.submit_draw(
            state,
            &uniforms,
            &vdata,
            &prims,
            kind,
            count,
            &textures,
            gpu_blend_constant(state),
        )?;
        Ok(DrawStats::default())
    }

    fn finish(&mut self) -> Result<(), Error> {
        self.submit();
        self.wait()?;
        // Textures nobody else holds any more can go.
        self.textures.retain(|_, (t, _)| Arc::strong_count(t) > 1);
        self.gpu.check_errors()
    }
}
