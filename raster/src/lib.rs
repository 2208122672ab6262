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
//!   0.5)` to store, `d / 255` to read (texels: `d · (1/255)`, [`texture`]). No colour
//!   management: values are used as stored.
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
//! ## Module map
//!
//! The crate is a stack of floors, in the order a draw runs through them; a module imports
//! only from its own floor and the floors below, and every item from its home (never through
//! this root or a sibling's re-export) — `tests/it/module_cycles.rs` in the workspace checks
//! it. The public paths (`plumb_raster::math`, `::light`, `::clip`, …) are re-exports here.
//!
//! | floor | folder / file | what lives there |
//! |---|---|---|
//! | 1 | `base/` | [`error`], [`math`] (the one home of transcendental functions), [`regular_file`] (reading an input within a limit), [`rng`], [`simd`] (the level and its dispatch), [`fixed`] (sub-pixel fixed point), `unorm` (the colour storage rule), `vec_lanes` (8-wide vector lanes), [`text`] |
//! | 2 | [`state`], [`vertex`], [`target`] | the plain data of a draw and of its pixels |
//! | 3 | [`texture`] | texels, mip chains, samplers, scalar filters, the 8-lane sampling kernels |
//! | 4 | `shading/` | [`light`], [`fog`], [`combine`]: GL's formulas, used by the vertex stage and the fragment shader |
//! | 5 | `history` | the probe's vocabulary (re-exported by [`explain`]) |
//! | 6 | `geometry/` | [`clip`], `screen` (screen-space tests), [`setup`], `assemble` (primitive assembly of one chunk of a draw), `bin` (binning to tiles) |
//! | 7 | `fragment/` | `tile` (the tile walk and its three size classes), `scratch`, `path` (the fragment path), `lanes` (its kernels), `fixed_shader` and `fixed_stages` (the fixed-function shader and its stage kinds), `probe` (the recorder `explain` uses) |
//! | 8 | [`context`] | [`Context`]: the draw queue and the tile workers |
//! | 9 | [`fixed_function`] | [`Context::draw_fixed`]: its inputs, the vertex stage, the draw |
//! | 10 | [`draw_target`] | [`DrawTarget`] |
//! | 11 | [`explain`], `trace` | [`explain::Explainer`]; draw traces (feature `trace`) |
//!
//! ## Threads
//!
//! Each [`Context`] owns a rayon pool ([`ContextOptions::threads`], default all cores).

// The module map, floor by floor, bottom first (see "Module map" above). A module imports
// only from its own floor and the floors below it (`tests/it/module_cycles.rs`).
mod base; // 1
pub mod context; // 8
pub mod draw_target; // 10
pub mod explain; // 11
pub mod fixed_function; // 9
mod fragment; // 7
mod geometry; // 6
mod history; // 5
mod shading; // 4
pub mod state; // 2
pub mod target; // 2
pub mod texture; // 3
#[cfg(feature = "trace")]
pub mod trace;
pub mod vertex; // 2 // 11

// Public paths of modules that live inside a floor's folder.
pub use base::{error, fixed, math, regular_file, rng, simd, text};
pub use geometry::{clip, setup};
pub use shading::{combine, environment, fog, light, pbr};

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
    let modules: [(&str, UnitTests); 18] = [
        ("base::fixed", base::fixed::tests::TESTS),
        ("base::math", base::math::tests::TESTS),
        ("base::rng", base::rng::tests::TESTS),
        ("base::simd", base::simd::tests::TESTS),
        ("base::text", base::text::tests::TESTS),
        ("target", target::tests::TESTS),
        ("vertex", vertex::tests::TESTS),
        ("shading::combine", shading::combine::tests::TESTS),
        ("shading::environment", shading::environment::tests::TESTS),
        ("shading::pbr", shading::pbr::tests::TESTS),
        ("fragment::pbr_shader", fragment::pbr_shader::tests::TESTS),
        ("geometry::assemble", geometry::assemble::tests::TESTS),
        ("geometry::clip", geometry::clip::tests::TESTS),
        ("geometry::screen", geometry::screen::tests::TESTS),
        ("fragment::path", fragment::path::tests::TESTS),
        ("fragment::lanes", fragment::lanes::tests::TESTS),
        ("context", context::tests::TESTS),
        (
            "fixed_function::vertex_stage",
            fixed_function::vertex_stage::tests::TESTS,
        ),
    ];
    let mut all = Vec::new();
    for (module, tests) in modules.into_iter().chain(texture::internal_tests()) {
        for &(name, test) in tests {
            all.push((format!("{module}::tests::{name}"), test));
        }
    }
    all
}

pub use base::error::Error;
pub use base::simd::SimdLevel;
pub use context::{Context, ContextOptions, DrawStats, FrameStats};
pub use draw_target::DrawTarget;
pub use fixed_function::{FixedFunction, MeshInput, TexGen, TextureUnit, Transforms};
pub use geometry::setup::GeometryStats;
pub use state::*;
pub use target::{Planes, RenderTarget};
pub use vertex::{Indices, Topology, VertexInput};
