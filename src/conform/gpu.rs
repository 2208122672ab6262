//! The kit on plumb-wgpu (feature `wgpu`): plumb's fixed-function pipeline emulated in WGSL,
//! on any Vulkan adapter (Mesa's lavapipe where there is no GPU).

use image::RgbaImage;
use plumb_wgpu::WgpuTarget;

use super::{InProcess, ReadBack};
use crate::scene::FixedRenderer;

impl ReadBack for WgpuTarget {
    fn read_back(&mut self) -> Result<RgbaImage, String> {
        WgpuTarget::read_back(self).map_err(|e| e.to_string())
    }
}

/// The wgpu backend: scene cases through `FixedRenderer<WgpuTarget>`, traces straight into
/// a [`WgpuTarget`]; each case is held to its tolerance.
pub fn wgpu() -> InProcess<FixedRenderer<WgpuTarget>, WgpuTarget> {
    let name = match plumb_wgpu::adapter_info() {
        Ok(a) => format!("plumb-wgpu on {a}"),
        Err(_) => "plumb-wgpu (no adapter)".to_owned(),
    };
    InProcess {
        name,
        exact: false,
        renderer: Box::new(|w, h| {
            WgpuTarget::new(w, h)
                .map(FixedRenderer::with_target)
                .map_err(|e| e.to_string())
        }),
        target: Box::new(|w, h| WgpuTarget::new(w, h).map_err(|e| e.to_string())),
    }
}
