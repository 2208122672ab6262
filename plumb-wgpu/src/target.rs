//! A render target on the shared device: colour, depth and stencil textures, the queued
//! commands, the uploaded textures, and plumb's `DrawTarget` calls.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use glam::Vec4;
use image::RgbaImage;
use plumb_raster::environment::Environment;
use plumb_raster::fixed_function::{check_fixed_input, check_pbr_input};
use plumb_raster::pbr::PbrDraw;
use plumb_raster::texture::Texture;
use plumb_raster::{
    DrawStats, DrawTarget, Error, FixedFunction, Indices, MeshInput, PipelineState, Rect, Topology,
    Transforms, VertexInput,
};
use wgpu::util::DeviceExt;

use crate::gpu::{gpu, Gpu};
use crate::pipeline::{gpu_blend_constant, scissor_rect, PipeKey};
use crate::primitives::{primitives, PrimKind};
use crate::uniforms::{
    build_pbr, build_uniforms, env_data, ClearUniforms, Draw, GpuBytes, Light, Pbr,
};
use crate::{backend, COLOR_FORMAT, UNITS};

/// Longest a read-back waits for the device. The device is shared by every target of the
/// process, so a wait covers other threads' submissions too; lavapipe on a loaded 2-core
/// machine has taken more than two minutes for one such wait (the conformance corpus with
/// its 2048² KTX2 model rendering beside it), so the bound is for hangs, not for slowness.
const WAIT: Duration = Duration::from_secs(600);

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
    /// pbr.wgsl's `env` buffer per environment (keyed by the `Arc`, kept alive by the
    /// cache), and the one without an environment (the split-sum table only).
    environments: HashMap<usize, (Arc<Environment>, wgpu::Buffer)>,
    no_environment: Option<wgpu::Buffer>,
    encoder: Option<wgpu::CommandEncoder>,
    draws: u64,
    probe: bool,
    /// The probe writes the weight probe ([`WeightProbe`](crate::WeightProbe)), not the
    /// texel probe.
    weights: bool,
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
            environments: HashMap::new(),
            no_environment: None,
            encoder: None,
            draws: 0,
            probe: false,
            weights: false,
        };
        t.gpu.check_errors()?;
        Ok(t)
    }

    /// Turns the texel probe on or off (a diagnostic; off by default). While on, each
    /// textured fragment that passes the alpha test writes, instead of its colour and with
    /// blending off, where texture unit 0 sampled it ([`TexelProbe::decode`](crate::TexelProbe::decode) reads a pixel
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
        self.weights = false;
    }

    /// Turns the weight probe on or off: the texel probe's rules (which fragments write, with
    /// blending off), but each textured fragment writes how near unit 0's 8-bit filter weights
    /// are to their next 1/256 step ([`WeightProbe::decode`](crate::WeightProbe::decode)).
    /// This is how `refimages/conform.json` shows which differing pixels sit where a tiny
    /// difference of the interpolated coordinates or λ changes a weight by one step.
    pub fn set_weight_probe(&mut self, on: bool) {
        self.probe = on;
        self.weights = on;
    }

    /// `state` as the probe draws it (blending off, so the probe's bytes are stored as is),
    /// and the shader's probe mode: 0 off, 1 on for an unblended draw (its untextured
    /// fragments cover what was below: white), 2 on for a blended one (its untextured
    /// fragments only tint what was below: discarded); 3 and 4 the same for the weight probe.
    fn probe_state(&self, state: &PipelineState) -> (PipelineState, f32) {
        let mut s = *state;
        if !self.probe {
            return (s, 0.0);
        }
        let mode = if s.blend.enabled { 2.0 } else { 1.0 } + if self.weights { 2.0 } else { 0.0 };
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
                    &l.to_bytes(),
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

    /// An object-space mesh through the fixed-function vertex stage (inputs checked): `ff`'s
    /// fragment stage, or with `pbr` the PBR stage (lighting mode 3: eye position, normal
    /// and, with `tangents`, the tangent per pixel) with `ff`'s units as the material's
    /// textures.
    fn draw_mesh(
        &mut self,
        state: &PipelineState,
        ff: &FixedFunction,
        transforms: &Transforms,
        (mesh, tangents): (&MeshInput<'_>, Option<&[Vec4]>),
        (indices, topology): (Indices<'_>, Topology),
        pbr: Option<&PbrDraw>,
    ) -> Result<DrawStats, Error> {
        let (vdata, attr, tangent_off) = mesh_data(mesh, tangents);
        let clip_from_model = transforms.clip_from_view * transforms.view_from_model;
        let clip = |i: usize| clip_from_model * mesh.positions[i].extend(1.0);
        let (prims, kind, count) =
            primitives(state, indices, mesh.positions.len(), topology, &clip);
        let (state, probe) = self.probe_state(state);
        let state = &state;
        let mut uniforms = build_uniforms(
            state,
            probe,
            (self.width, self.height),
            kind,
            Some((ff, transforms)),
            attr,
        );
        let pbr = pbr.map(|draw| {
            uniforms.f0[1] = 3.0;
            uniforms.attr2[2] = tangent_off;
            let ortho = transforms.clip_from_view.row(3) == Vec4::W;
            let env = self.environment_buffer(draw.environment.as_ref().map(|e| &e.map));
            (build_pbr(draw, ortho), env)
        });
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
            pbr.as_ref()
                .map(|((uniforms, lights), environment)| PbrBindings {
                    uniforms,
                    lights,
                    environment,
                }),
        )?;
        Ok(DrawStats::default())
    }

    /// pbr.wgsl's `env` buffer for `env` (uploaded once per environment, keyed by the `Arc`
    /// as textures are) or for none.
    fn environment_buffer(&mut self, env: Option<&Arc<Environment>>) -> wgpu::Buffer {
        let cached = match env {
            Some(e) => self
                .environments
                .get(&(Arc::as_ptr(e) as usize))
                .map(|(_, b)| b.clone()),
            None => self.no_environment.clone(),
        };
        if let Some(b) = cached {
            return b;
        }
        let data = f32_bytes(&env_data(env.map(|e| &**e)));
        let buf = self
            .gpu
            .device
            .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("plumb PBR environment"),
                contents: &data,
                usage: wgpu::BufferUsages::STORAGE,
            });
        match env {
            Some(e) => {
                self.environments
                    .insert(Arc::as_ptr(e) as usize, (Arc::clone(e), buf.clone()));
            }
            None => self.no_environment = Some(buf.clone()),
        }
        buf
    }

    /// One draw: uniforms, vertex data and the primitive list are ready.
    #[allow(
        clippy::too_many_arguments,
        reason = "internal: the pieces of one draw"
    )]
    fn submit_draw(
        &mut self,
        state: &PipelineState,
        uniforms: &Draw,
        vdata: &[f32],
        prims: &[u32],
        kind: PrimKind,
        vertex_count: u32,
        units: &[Arc<Texture>],
        blend_constant: Vec4,
        pbr: Option<PbrBindings<'_>>,
    ) -> Result<(), Error> {
        if vertex_count == 0 {
            return Ok(());
        }
        let Some(rect) = scissor_rect(state, self.width, self.height, kind) else {
            return Ok(());
        };
        let mut key = PipeKey::new(state, kind, units.len());
        key.pbr = pbr.is_some();
        let pipeline = self.gpu.draw_pipeline(&key);
        let views: Vec<wgpu::TextureView> = units.iter().map(|t| self.texture_view(t)).collect();
        let ubuf = self
            .gpu
            .device
            .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("plumb draw uniforms"),
                contents: &uniforms.to_bytes(),
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
        let pbr_buffers = pbr.map(|p| {
            let init = |label, contents: &[u8], usage| {
                self.gpu
                    .device
                    .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                        label: Some(label),
                        contents,
                        usage,
                    })
            };
            let mut lights = Vec::new();
            for l in p.lights {
                l.put(&mut lights);
            }
            // A runtime-sized array binds at least one element.
            lights.resize(lights.len().max(std::mem::size_of::<Light>()), 0);
            [
                init(
                    "plumb PBR uniforms",
                    &p.uniforms.to_bytes(),
                    wgpu::BufferUsages::UNIFORM,
                ),
                init("plumb PBR lights", &lights, wgpu::BufferUsages::STORAGE),
                p.environment.clone(),
            ]
        });
        if let Some(bufs) = &pbr_buffers {
            for (k, b) in bufs.iter().enumerate() {
                entries.push(wgpu::BindGroupEntry {
                    binding: 11 + k as u32,
                    resource: b.as_entire_binding(),
                });
            }
        }
        let bind = self
            .gpu
            .device
            .create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("plumb draw"),
                layout: if pbr.is_some() {
                    &self.gpu.pbr_bgl
                } else {
                    &self.gpu.bgl
                },
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

/// `v` as the little-endian bytes of a storage buffer.
fn f32_bytes(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// A mesh's vertex data as the vertex shader pulls it: per vertex the position, then the
/// normal, colour, UV sets and tangent that are present; the `attr` uniform (stride and
/// offsets of normal, colour and first UV set, -1 for none) and the tangent's offset.
fn mesh_data(mesh: &MeshInput<'_>, tangents: Option<&[Vec4]>) -> (Vec<f32>, [f32; 4], f32) {
    let n = mesh.positions.len();
    let mut stride = 3;
    let mut offset = |present: bool, len: usize| {
        present.then(|| {
            stride += len;
            (stride - len) as f32
        })
    };
    let normal_off = offset(mesh.normals.is_some(), 3);
    let color_off = offset(mesh.colors.is_some(), 4);
    let uv_off = offset(true, 2 * mesh.uvs.len()).unwrap_or(-1.0);
    let tangent_off = offset(tangents.is_some(), 4);
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
        if let Some(t) = tangents {
            vdata.extend_from_slice(&t[i].to_array());
        }
    }
    let attr = [
        stride as f32,
        normal_off.unwrap_or(-1.0),
        color_off.unwrap_or(-1.0),
        uv_off,
    ];
    (vdata, attr, tangent_off.unwrap_or(-1.0))
}

/// What a physically based draw binds beyond a fixed-function one (pbr.wgsl).
#[derive(Clone, Copy)]
pub(crate) struct PbrBindings<'a> {
    uniforms: &'a Pbr,
    lights: &'a [Light],
    environment: &'a wgpu::Buffer,
}

/// A render pass that keeps what the target holds (every draw after the frame's clear).
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
        let pipeline = self
            .gpu
            .clear_pipeline(color.is_some(), depth.is_some(), stencil.is_some());
        let c = unorm8(color.unwrap_or(Vec4::ZERO));
        let d = depth.unwrap_or(0.0).clamp(0.0, 1.0);
        let data = ClearUniforms {
            color: c.to_array(),
            depth: [d, 0.0, 0.0, 0.0],
        };
        let ubuf = self
            .gpu
            .device
            .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("plumb clear"),
                contents: &data.to_bytes(),
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
            None,
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
        check_fixed_input(ff, transforms, mesh, indices)?;
        state.validate()?;
        self.draw_mesh(
            state,
            ff,
            transforms,
            (mesh, None),
            (indices, topology),
            None,
        )
    }

    fn draw_pbr(
        &mut self,
        state: &PipelineState,
        draw: &PbrDraw,
        transforms: &Transforms,
        mesh: &MeshInput<'_>,
        tangents: Option<&[Vec4]>,
        indices: Indices<'_>,
        topology: Topology,
    ) -> Result<DrawStats, Error> {
        // The same checks and the same units as plumb-raster's draw: the material's textures
        // in the order base colour, metallic-roughness, normal, occlusion, emissive.
        let ff = check_pbr_input(draw, mesh, tangents)?;
        check_fixed_input(&ff, transforms, mesh, indices)?;
        state.validate()?;
        let tangents = tangents.filter(|_| draw.material.normal_texture.is_some());
        self.draw_mesh(
            state,
            &ff,
            transforms,
            (mesh, tangents),
            (indices, topology),
            Some(draw),
        )
    }

    fn finish(&mut self) -> Result<(), Error> {
        self.submit();
        self.wait()?;
        // Textures nobody else holds any more can go.
        self.textures.retain(|_, (t, _)| Arc::strong_count(t) > 1);
        self.environments
            .retain(|_, (e, _)| Arc::strong_count(e) > 1);
        self.gpu.check_errors()
    }
}
