//! Layer 5 of the [module map](crate#module-map): the frame — the backend-neutral
//! [`Renderer`](renderer::Renderer) trait, multipass recipes, update → cull → sort → draw, deferred
//! drawing and the CPU renderer.

pub mod deferred;
pub mod draw;
pub mod multipass;
pub mod renderer;
pub mod soft;
