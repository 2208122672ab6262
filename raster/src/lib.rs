//! # plumb-raster
//!
//! A deterministic, tiled, parallel software rasterizer implementing the OpenGL 1.x /
//! Wild Magic 3 fixed-function pipeline. It knows nothing of scene graphs or files: give it
//! vertices and plain-data state, get pixels.
//!
//! ```
//! use glam::Vec4;
//! use plumb_raster::{Context, ContextOptions, DepthState, Indices, PipelineState, Topology, VertexInput};
//!
//! let mut ctx = Context::new(64, 64, ContextOptions { threads: Some(2) })?;
//! ctx.clear(Vec4::new(0.0, 0.0, 0.0, 1.0), 1.0, 0);
//! let state = PipelineState { depth: DepthState::LESS_WRITE, ..ctx.default_state() };
//! let pos = [Vec4::new(-1.0, -1.0, 0.5, 1.0), Vec4::new(3.0, -1.0, 0.5, 1.0), Vec4::new(-1.0, 3.0, 0.5, 1.0)];
//! let col = [Vec4::new(0.2, 0.4, 0.6, 1.0); 3];
//! ctx.draw(&state, &VertexInput::colored(&pos, &col), Indices::None, Topology::TriangleList)?;
//! assert_eq!(ctx.target().pixel(10, 10), Some([51, 102, 153, 255]));
//! # Ok::<(), plumb_raster::Error>(())
//! ```
//!
//! Two entry points: [`Context::draw`] takes clip-space positions and attributes (colour, UV
//! sets, fog coordinate); [`Context::draw_fixed`] takes object-space meshes and runs the
//! fixed-function vertex stage (transform, lighting, texgen, fog) and fragment stage
//! (texture units with mipmapping and combiners, separate specular, fog) — see
//! [`fixed_function`].
//!
//! ## Conventions
//!
//! - **Spaces.** Right-handed, column vectors (`p' = M·p`), camera looking down −z in eye
//!   space. Clip space keeps `−w ≤ x, y ≤ w` and `0 ≤ z ≤ w` (depth 0..1, as Vulkan, D3D,
//!   wgpu and glam's `perspective_rh`). NDC y points up.
//! - **Window.** Origin at the top-left, y down, pixel centres at `(x + 0.5, y + 0.5)`;
//!   row 0 is the top row of images. See [`Viewport`] for the mapping.
//! - **Rasterization.** Vertices snap to 1/256 pixel ([`fixed`]); 64-bit integer edge
//!   functions; **top-left fill rule** (a pixel centre on a shared edge belongs to exactly one
//!   triangle). Near and far planes are clipped exactly; x/y of filled polygons against a
//!   guard band, then cut at target ∩ scissor ∩ viewport; points, lines and polygons in line
//!   or point mode against the view volume `−w ≤ x, y ≤ w` (GL 1.4 §2.11; [`clip`]);
//!   coordinates are never wrapped.
//! - **Interpolation.** Depth linear in screen space; every other attribute
//!   perspective-correct. Flat shading takes the first vertex of each primitive (Vulkan's
//!   `provokingVertexMode = FIRST`; strips and fans as [`Topology`] documents).
//! - **Lines and points** are rasterized as quads: lines as parallelograms `line_width` thick
//!   (the GL wide-line rule), points as `point_size` squares, both under the fill rule. A
//!   point whose centre is outside the view volume is discarded; a wide point or line that is
//!   kept may spill past the viewport edge, as in GL. Polygon offset applies to polygons only
//!   (in any polygon mode), once per polygon ([`PolygonOffset`]).
//! - **Colour.** RGBA8 unorm framebuffer, `f32` fragment math, `floor(clamp(x, 0, 1)·255 +
//!   0.5)` to store, `d / 255` to read. No colour management: values are used as stored.
//! - **Depth and stencil.** `f32` depth cleared to 1, `u8` stencil; GL semantics for every
//!   test and op ([`state`]).
//! - **Textures.** Texel `i` covers `[i, i+1)/n`; mip chains by box filter; λ from exact
//!   per-pixel derivatives ([`texture`]).
//!
//! ## Determinism
//!
//! The same input gives the same bytes with any thread count, in debug or release, on every
//! run: each screen tile is owned by one worker and sees its triangles in submission order;
//! attribute values are computed by one fixed expression per pixel, independent of tiling;
//! transcendental functions go only through [`math`] (the `libm` crate; `clippy.toml` bans
//! the std versions); no fused multiply-add. Tests render the same draw lists with 1, 2 and
//! 7 threads and compare bytes.
//!
//! The instruction set does not matter either: the fragment kernels run at a
//! [`SimdLevel`] chosen at run time (or forced with `PLUMB_SIMD` /
//! [`Context::set_simd_level`]) and compute the scalar formula in every lane — no
//! approximate reciprocals, no FMA, compare-and-select where NaN can reach a min/max, float→int
//! only after clamping, no width-dependent reductions — so every level gives the same bytes
//! ([`simd`]; the goldens run at every level the machine has).
//!
//! ## Errors and limits
//!
//! Targets and textures are 1..=16384 per side ([`target::MAX_TARGET_SIZE`],
//! [`texture::MAX_TEXTURE_SIZE`]); violations are typed [`Error`]s. Draw calls validate
//! buffers and state before touching a pixel; primitives with NaN/∞ positions or zero area
//! are skipped and counted in [`DrawStats`]. Nothing here panics on user data or exits the
//! process.
//!
//! ## Threads
//!
//! Each [`Context`] owns a rayon pool ([`ContextOptions::threads`], default all cores).

pub mod clip;
pub mod combine;
pub mod context;
pub mod draw_target;
pub mod error;
pub mod explain;
pub mod fixed;
pub mod fixed_function;
pub mod fog;
pub mod light;
pub mod math;
pub mod rng;
pub mod setup;
pub mod simd;
pub mod state;
pub mod target;
pub mod text;
pub mod texture;
#[cfg(feature = "trace")]
pub mod trace;
pub mod vertex;

mod bin;
mod fixed_shader;
mod fragment;
mod fragment_lanes;
mod fragment_probe;
mod scratch;
mod screen;
mod vec_lanes;

/// One module's unit tests, `(name, test)` (see [`internal_tests`]).
#[cfg(feature = "internal-tests")]
pub(crate) type UnitTests = &'static [(&'static str, fn())];

/// The crate's unit tests, each `(module::tests::name, test)`. They are compiled into the
/// library, behind the feature `internal-tests` that only plumb-raster's own test targets
/// turn on, and run by `tests/unit.rs` (one trial each): the test build then compiles this
/// crate once, not a second time as a unit-test harness (measured: the harness was 93 s of
/// a 382 s fresh build of the README's test command). Not an API.
#[cfg(feature = "internal-tests")]
#[doc(hidden)]
pub fn internal_tests() -> Vec<(String, fn())> {
    let modules: [(&str, UnitTests); 14] = [
        ("clip", clip::tests::TESTS),
        ("combine", combine::tests::TESTS),
        ("context", context::tests::TESTS),
        ("fixed", fixed::tests::TESTS),
        ("fixed_function", fixed_function::tests::TESTS),
        ("fragment", fragment::tests::TESTS),
        ("fragment_lanes", fragment_lanes::tests::TESTS),
        ("math", math::tests::TESTS),
        ("rng", rng::tests::TESTS),
        ("screen", screen::tests::TESTS),
        ("simd", simd::tests::TESTS),
        ("target", target::tests::TESTS),
        ("text", text::tests::TESTS),
        ("vertex", vertex::tests::TESTS),
    ];
    let mut all = Vec::new();
    for (module, tests) in modules.into_iter().chain(texture::internal_tests()) {
        for &(name, test) in tests {
            all.push((format!("{module}::tests::{name}"), test));
        }
    }
    all
}

pub use context::{Context, ContextOptions, DrawStats, FrameStats};
pub use draw_target::DrawTarget;
pub use error::Error;
pub use fixed_function::{FixedFunction, MeshInput, TexGen, TextureUnit, Transforms};
pub use setup::GeometryStats;
pub use simd::SimdLevel;
pub use state::*;
pub use target::RenderTarget;
pub use vertex::{Indices, Topology, VertexInput};
