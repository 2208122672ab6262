pub mod raster;
