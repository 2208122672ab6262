//! plumb-raster's integration tests, one module per topic in one binary (one link, not
//! fourteen): `cargo test -p plumb-raster --test it`, one module with `-- watertight::`.
//! `trace` needs the crate's `trace` feature (on whenever the workspace is tested).

mod clear_rect;
mod clipping;
mod combine;
mod common;
mod determinism;
mod fog;
mod fused_texture;
mod lighting;
mod pbr;
mod planes;
mod queue_limits;
mod rules;
mod texgen;
mod texture_mips;
mod texture_sampling;
#[cfg(feature = "trace")]
mod trace;
mod vertex_color_path;
mod watertight;
mod wrap_clamp;
