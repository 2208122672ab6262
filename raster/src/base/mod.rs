//! Floor 1, the base: what every other floor uses and that uses nothing of plumb-raster —
//! the error type, deterministic math, reading an input file within a limit, the seeded generator, the SIMD level and its dispatch,
//! sub-pixel fixed point, the colour storage rule, vector lanes and text helpers.

pub mod error;
pub mod fixed;
pub mod math;
pub mod regular_file;
pub mod rng;
pub mod simd;
pub mod text;
pub(crate) mod unorm;
pub(crate) mod vec_lanes;
