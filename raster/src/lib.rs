//! plumb-raster: a deterministic, tiled, fixed-function software rasterizer.
//! (crate docs are written in full below the module list)

pub mod error;
pub mod math;

// Reserved for the texturing / lighting / fog work (issue 3); see each module's docs.
pub mod combine;
pub mod fog;
pub mod light;
pub mod texture;

pub use error::Error;

mod bin;
pub mod clip;
pub mod context;
pub mod fixed;
pub mod fixed_function;
mod fragment;
pub mod setup;
pub mod state;
pub mod target;
pub mod vertex;

pub use fixed_function::{FixedFunction, MeshInput, TexGen, TextureUnit, Transforms};
pub use context::{Context, ContextOptions, DrawStats, FrameStats};
pub use setup::GeometryStats;
pub use state::*;
pub use target::RenderTarget;
pub use vertex::{Indices, Topology, VertexInput};
