//! **plumb** — a deterministic CPU reference renderer and scene graph.
//!
//! This crate is the facade: it re-exports [`raster`] (`plumb-raster`, the fixed-function
//! tiled rasterizer) and [`scene`] (`plumb-scene`, the scene graph), and holds the built-in
//! showcase scene and small geometry helpers used by the `plumb` binary, the examples and
//! the golden-image tests.

pub use plumb_raster as raster;
pub use plumb_scene as scene;

pub mod conform;
pub mod diff;
pub mod explain;
pub mod mesh;
pub mod model;
pub mod orbit;
pub mod safe_write;
pub mod showcase;
