//! The texel probe's pixel format: where texture unit 0 sampled a fragment.

/// sampled the fragment stored there.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TexelProbe {
    /// The level of detail `λ = ½·log₂ ρ²` before bias and clamping, to 1/1024.
    pub lambda: f32,
    /// Distance from the sample point to the nearest texel edge of level 0, in texels, to
    /// 1/510 and at most 0.5: where nearest filtering switches texels.
    pub edge: f32,
    /// Distance to the nearest line through level-0 texel centres, in texels, to 1/510 and
    /// at most 0.5: where bilinear filtering switches texel pairs.
    pub pair: f32,
}

impl TexelProbe {
    /// Reads a probe pixel: `None` where the surface seen is untextured (white).
    pub fn decode(px: [u8; 4]) -> Option<TexelProbe> {
        let (lambda, [edge, pair]) = decode(px)?;
        Some(TexelProbe { lambda, edge, pair })
    }
}

/// Both probes' pixel layout: λ in red and green (`(λ + 32)·1024`), two distances in blue and
/// alpha (in 1/510); `None` for white, "no textured fragment here".
fn decode(px: [u8; 4]) -> Option<(f32, [f32; 2])> {
    if px == [255; 4] {
        return None;
    }
    let q = u32::from(px[0]) * 256 + u32::from(px[1]);
    Some((
        q as f32 / 1024.0 - 32.0,
        [f32::from(px[2]) / 510.0, f32::from(px[3]) / 510.0],
    ))
}

/// What the weight probe ([`WgpuTarget::set_weight_probe`](crate::WgpuTarget::set_weight_probe))
/// wrote for a fragment: how near texture unit 0's 8-bit filter weights (`⌊256·α⌋`, plumb's
/// sampler definition) were to changing by one step.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WeightProbe {
    /// The level of detail after bias and clamps (isotropic), to 1/1024.
    pub lambda: f32,
    /// Distance of `256·(u·w − ½)` or `256·(v·h − ½)` to the nearest integer, the smaller,
    /// over the linear levels the sample reads, in weight steps, to 1/510 and at most 0.5.
    pub sub: f32,
    /// Distance of `256·(λ − ⌊λ⌋)` to the nearest integer where two levels are blended, in
    /// steps, to 1/510; 0.5 without a blend.
    pub mip: f32,
}

impl WeightProbe {
    /// Reads a weight probe pixel: `None` where the surface seen is untextured (white).
    pub fn decode(px: [u8; 4]) -> Option<WeightProbe> {
        let (lambda, [sub, mip]) = decode(px)?;
        Some(WeightProbe { lambda, sub, mip })
    }

    /// The nearer of the two distances: a weight this close to its step may round to the
    /// neighbouring step under a slightly different coordinate or λ.
    pub fn nearest_step(&self) -> f32 {
        self.sub.min(self.mip)
    }
}
