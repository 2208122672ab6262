pub mod fixed;
pub mod raster;
