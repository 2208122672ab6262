pub mod effects;
pub mod fixed;
pub mod raster;
pub mod scene;
pub mod scene_more;
