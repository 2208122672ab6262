//! The device and what every target on it shares: one per process, opened on first use.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use plumb_raster::Error;
use wgpu::util::DeviceExt;

use crate::{backend, CLEAR_SHADER, COLOR_FORMAT, SHADER, UNITS};

/// The device and everything shared by the targets on it: one per process, so shaders are
/// compiled and pipelines built once, not per target.
pub(crate) struct Gpu {
    pub(crate) device: wgpu::Device,
    pub(crate) queue: wgpu::Queue,
    pub(crate) adapter_name: String,
    pub(crate) max_size: u32,
    pub(crate) depth_format: wgpu::TextureFormat,
    pub(crate) shader: wgpu::ShaderModule,
    pub(crate) clear_shader: wgpu::ShaderModule,
    pub(crate) layout: wgpu::PipelineLayout,
    pub(crate) bgl: wgpu::BindGroupLayout,
    /// The layout of physically based draws: `bgl`'s bindings and pbr.wgsl's (11–13).
    pub(crate) pbr_layout: wgpu::PipelineLayout,
    pub(crate) pbr_bgl: wgpu::BindGroupLayout,
    pub(crate) clear_layout: wgpu::PipelineLayout,
    pub(crate) clear_bgl: wgpu::BindGroupLayout,
    pipelines: Mutex<HashMap<String, wgpu::RenderPipeline>>,
    pub(crate) dummy: wgpu::TextureView,
    errors: Arc<Mutex<Vec<String>>>,
}

static GPU: OnceLock<Result<Arc<Gpu>, Error>> = OnceLock::new();

pub(crate) fn gpu() -> Result<Arc<Gpu>, Error> {
    GPU.get_or_init(|| Gpu::new().map(Arc::new)).clone()
}

/// The adapter a [`WgpuTarget`](crate::WgpuTarget) would use: its name, or an error saying why there
/// is none.
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
            uniform_entry(0, vis),
            storage_entry(1, wgpu::ShaderStages::VERTEX),
            storage_entry(2, wgpu::ShaderStages::VERTEX),
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
        let fragment = wgpu::ShaderStages::FRAGMENT;
        entries.push(uniform_entry(11, fragment));
        entries.push(storage_entry(12, fragment));
        entries.push(storage_entry(13, fragment));
        let pbr_bgl = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("plumb PBR draw"),
            entries: &entries,
        });
        let pbr_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("plumb PBR draw"),
            bind_group_layouts: &[Some(&pbr_bgl)],
            immediate_size: 0,
        });
        let clear_bgl = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("plumb clear"),
            entries: &[uniform_entry(0, vis)],
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
            pbr_layout,
            pbr_bgl,
            clear_layout,
            clear_bgl,
            pipelines: Mutex::new(HashMap::new()),
            errors,
        };
        gpu.check_errors()?;
        Ok(gpu)
    }

    pub(crate) fn check_errors(&self) -> Result<(), Error> {
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
    pub(crate) fn cached(
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

/// A read-only storage buffer seen by `visibility`.
fn storage_entry(binding: u32, visibility: wgpu::ShaderStages) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Storage { read_only: true },
            has_dynamic_offset: false,
            min_binding_size: None,
        },
        count: None,
    }
}

/// A uniform buffer seen by `visibility`.
fn uniform_entry(binding: u32, visibility: wgpu::ShaderStages) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Uniform,
            has_dynamic_offset: false,
            min_binding_size: None,
        },
        count: None,
    }
}
