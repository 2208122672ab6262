//! The kit on plumb-wgpu (feature `wgpu`): plumb's fixed-function pipeline and PBR stage in WGSL,
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
    backend(Probe::Off)
}

/// The wgpu backend with its texel probe on ([`WgpuTarget::set_texel_probe`]): each case's
/// "actual" image holds, per pixel, where texture unit 0 sampled it
/// ([`plumb_wgpu::TexelProbe::decode`]), lined up with [`wgpu`]'s image of the same case.
/// A diagnostic for explaining differences, not a backend to hold to tolerances.
pub fn wgpu_texel_probe() -> InProcess<FixedRenderer<WgpuTarget>, WgpuTarget> {
    backend(Probe::Texel)
}

/// The wgpu backend with its weight probe on ([`WgpuTarget::set_weight_probe`]): per pixel,
/// how near texture unit 0's 8-bit filter weights were to their next step
/// ([`plumb_wgpu::WeightProbe::decode`]). A diagnostic, as [`wgpu_texel_probe`].
pub fn wgpu_weight_probe() -> InProcess<FixedRenderer<WgpuTarget>, WgpuTarget> {
    backend(Probe::Weights)
}

/// Which probe a backend draws, if any.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Probe {
    Off,
    Texel,
    Weights,
}

fn backend(probe: Probe) -> InProcess<FixedRenderer<WgpuTarget>, WgpuTarget> {
    let name = match plumb_wgpu::adapter_info() {
        Ok(a) => format!("plumb-wgpu on {a}"),
        Err(_) => "plumb-wgpu (no adapter)".to_owned(),
    };
    let target = move |w, h| {
        WgpuTarget::new(w, h)
            .map(|mut t| {
                match probe {
                    Probe::Off => t.set_texel_probe(false),
                    Probe::Texel => t.set_texel_probe(true),
                    Probe::Weights => t.set_weight_probe(true),
                }
                t
            })
            .map_err(|e| e.to_string())
    };
    InProcess {
        name: match probe {
            Probe::Off => name,
            Probe::Texel => format!("{name}, texel probe"),
            Probe::Weights => format!("{name}, weight probe"),
        },
        exact: false,
        renderer: Box::new(move |w, h| target(w, h).map(FixedRenderer::with_target)),
        target: Box::new(target),
        // Every feature, the physically based stage included (pbr.wgsl).
        lacks: Vec::new(),
    }
}
