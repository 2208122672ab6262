//! Where the integration tests find the shared third-party assets (`conform`,
//! `conform_wgpu`, `save_roundtrip`, and the model goldens in `tests/refimages/`).

use std::path::{Path, PathBuf};

/// A copy of the shared assets: `$PLUMB_ASSETS`, else `../shared/assets` beside the
/// repository; `None` when neither holds the Khronos models (the caller skips and says so).
pub fn shared_assets() -> Option<PathBuf> {
    let candidates = [
        std::env::var_os("PLUMB_ASSETS").map(PathBuf::from),
        Some(Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/assets")),
    ];
    candidates
        .into_iter()
        .flatten()
        .find(|p| p.join("gltf/khronos").is_dir())
}
