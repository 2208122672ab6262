//! Layer 4 of the [module map](crate#module-map): passes over the graph — update, render-state
//! resolution, the view of a camera, culling, picking, the text dump, collision, reference frames, deep copies and
//! instancing.

pub mod collide;
pub mod copy;
pub mod cull;
pub mod frames;
pub mod instancing;
pub mod pick;
pub mod print;
pub mod render_state;
pub mod update;
pub mod view;
