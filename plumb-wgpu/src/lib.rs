//! # plumb-wgpu
//!
//! A GPU [`DrawTarget`](plumb_raster::DrawTarget): plumb's fixed-function pipeline
//! (transforms, the 8 lights, texture units with plumb's samplers, apply modes and combiners,
//! texgen, fog, alpha test) emulated in WGSL on [wgpu](https://wgpu.rs), with blending, depth,
//! stencil, polygon offset, culling and scissor done by the GPU's fixed stages. It runs on any
//! Vulkan adapter, including Mesa's lavapipe (a CPU Vulkan), so the conformance kit can check
//! it where there is no GPU.
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
//!
//! ## Layout
//!
//! One room per concern: `gpu` (the shared device, shaders and bind-group layouts),
//! `target` (the [`WgpuTarget`] and its `DrawTarget` calls), `pipeline` (plumb's state
//! mapped onto render-pipeline keys, cached per device), `primitives` (the primitive lists
//! the vertex shader pulls), `uniforms` (the `#[repr(C)]` mirrors of the WGSL
//! structs, checked against the shader's reflected layout) and `probe` (the texel probe).

use plumb_raster::Error;

mod gpu;
mod pipeline;
mod primitives;
mod probe;
mod target;
mod uniforms;

pub use gpu::adapter_info;
pub use probe::{TexelProbe, WeightProbe};
pub use target::WgpuTarget;

/// The fixed-function shader and the physically based fragment stage after it (their uniform
/// structs are mirrored in `uniforms`).
const SHADER: &str = concat!(include_str!("fixed.wgsl"), include_str!("pbr.wgsl"));
/// The rectangle-clear shader.
const CLEAR_SHADER: &str = include_str!("clear.wgsl");
const COLOR_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8Unorm;
/// Texture bindings (plumb's `MAX_TEXTURE_UNITS`).
const UNITS: usize = plumb_raster::fixed_function::MAX_TEXTURE_UNITS;

fn backend(what: &str, e: impl std::fmt::Display) -> Error {
    Error::Backend(format!("wgpu: {what}: {e}"))
}
