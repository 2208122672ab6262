//! The plumb package's integration tests (CLI, conformance kit, save round trips, text
//! goldens, layering), one module per topic in one binary: `cargo test --test it`, one
//! module with `-- cli_render::`. The image goldens have their own binary
//! (`tests/refimages/`, one libtest-mimic trial per case). `conform_wgpu` needs the
//! `wgpu` feature: `cargo test --profile ci --features wgpu --test it -- conform_wgpu::`.

mod assets_common;
mod cli;
mod cli_clip;
mod cli_common;
mod cli_render;
mod cli_scene;
mod cli_worlds;
mod conform;
mod conform_fill_rule;
mod conform_links;
#[cfg(feature = "wgpu")]
mod conform_wgpu;
mod decoder_ceilings;
mod environment;
mod explain;
mod explain_budget;
mod hostile_budgets;
mod intrinsics;
mod linear_parsing;
mod load_path;
mod module_cycles;
mod save_roundtrip;
mod special_files;
mod text_goldens;
