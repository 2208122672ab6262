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
    backend(false)
}

/// The wgpu backend with its texel probe on ([`WgpuTarget::set_texel_probe`]): each case's
/// "actual" image holds, per pixel, where texture unit 0 sampled it
/// ([`plumb_wgpu::TexelProbe::decode`]), lined up with [`wgpu`]'s image of the same case.
/// A diagnostic for explaining differences, not a backend to hold to tolerances.
pub fn wgpu_texel_probe() -> InProcess<FixedRenderer<WgpuTarget>, WgpuTarget> {
    backend(true)
}

fn backend(probe: bool) -> InProcess<FixedRenderer<WgpuTarget>, WgpuTarget> {
    let name = match plumb_wgpu::adapter_info() {
        Ok(a) => format!("plumb-wgpu on {a}"),
        Err(_) => "plumb-wgpu (no adapter)".to_owned(),
    };
    let target = move |w, h| {
        WgpuTarget::new(w, h)
            .map(|mut t| {
                t.set_texel_probe(probe);
                t
            })
            .map_err(|e| e.to_string())
    };
    InProcess {
        name: if probe {
            format!("{name}, texel probe")
        } else {
            name
        },
        exact: false,
        renderer: Box::new(move |w, h| target(w, h).map(FixedRenderer::with_target)),
        target: Box::new(target),
    }
}
