//! The texels a sample reads, with their weights: the addressing of [`super::filter`]
//! (the same `wrap`, `index_frac`, level choice and border rule) written out tap by tap,
//! for pixel histories ([`crate::explain`]).
//!
//! The weights are the products the filter's 8-bit lerps stand for: with `a, b, w` the
//! 8-bit weights of `α`, `β` and `t` ([`weight8`]), bilinear `(256−a)(256−b), a(256−b),
//! (256−a)b, ab` over 256², times `(256−w)/256` and `w/256` for the two levels of a
//! mipmap-linear filter, divided by `N` over anisotropic probes. The filter itself evaluates
//! them as rounded byte lerps (its rounding, not this sum's, is the colour);
//! [`Texture::taps`] returns that colour too, from the filter, and tests hold the lanes
//! kernels to it.

use glam::{Vec2, Vec4};

use super::chain::Texture;
use super::filter::{
    clamp_coord, floor_index, index_frac, nearest_mode, rgba8_to_f32, texel_at, weight8, wrap,
};
use super::sampler::{MagFilter, MinFilter, Sampler};

/// A fraction's 8-bit weight as a share: `weight8(f) / 256`.
fn share8(f: f32) -> f32 {
    weight8(f) as f32 / 256.0
}

/// One texel a sample reads.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tap {
    /// Mip level.
    pub level: usize,
    /// Texel column after wrapping; `None` reads the border colour.
    pub x: Option<u32>,
    /// Texel row after wrapping; `None` reads the border colour.
    pub y: Option<u32>,
    /// The texel (or border) value, RGBA in 0..1.
    pub texel: Vec4,
    /// Its share of the sample.
    pub weight: f32,
}

/// What one sample did: the λ it used, its taps and the filtered colour.
#[derive(Clone, Debug, PartialEq)]
pub struct Sample {
    /// λ after bias and clamps (for anisotropic sampling: per probe).
    pub lambda: f32,
    /// Anisotropic probes (1 without anisotropy).
    pub probes: u32,
    /// Every texel read, in the filter's order.
    pub taps: Vec<Tap>,
    /// The filter's result ([`Texture::sample_lod`] / [`Texture::sample_grad`]).
    pub color: Vec4,
}

impl Texture {
    /// The taps of [`Texture::sample_lod`] at an already adjusted λ (bias and clamps applied):
    /// what the fragment stage samples with the λ it computed.
    pub fn taps(&self, s: &Sampler, uv: Vec2, lambda: f32) -> Sample {
        let s = self.in_format(s);
        let mut taps = Vec::new();
        self.taps_in_format(&s, uv, lambda, 1.0, &mut taps);
        Sample {
            lambda,
            probes: 1,
            taps,
            color: self.sample_adjusted(&s, uv, lambda),
        }
    }

    /// The taps of [`Texture::sample_grad`]`(s, uv, duv_dx, duv_dy)`.
    pub fn grad_taps(&self, s: &Sampler, uv: Vec2, duv_dx: Vec2, duv_dy: Vec2) -> Sample {
        let s = self.in_format(s);
        let color = self.sample_grad_in_format(&s, uv, duv_dx, duv_dy);
        let p = self.probes(&s, duv_dx, duv_dy);
        let mut taps = Vec::new();
        let share = 1.0 / p.count as f32;
        for k in 0..p.count {
            let at = if p.count == 1 { uv } else { uv + p.offset(k) };
            self.taps_in_format(&s, at, p.lambda, share, &mut taps);
        }
        Sample {
            lambda: p.lambda,
            probes: p.count,
            taps,
            color,
        }
    }

    /// The level choice of `sample_in_format`, each level's taps weighted by `w` and the
    /// level's share.
    fn taps_in_format(&self, s: &Sampler, uv: Vec2, lambda: f32, w: f32, out: &mut Vec<Tap>) {
        let minified = lambda > s.switch_point();
        if !minified {
            return self.level_taps(0, s, uv, s.mag == MagFilter::Linear, w, out);
        }
        let q = self.levels.len() - 1;
        match s.min {
            MinFilter::Nearest => self.level_taps(0, s, uv, false, w, out),
            MinFilter::Linear => self.level_taps(0, s, uv, true, w, out),
            MinFilter::NearestMipmapNearest | MinFilter::LinearMipmapNearest => {
                let d = if lambda <= 0.5 {
                    0
                } else {
                    ((lambda + 0.5).ceil() as usize - 1).min(q)
                };
                let linear = s.min == MinFilter::LinearMipmapNearest;
                self.level_taps(d, s, uv, linear, w, out);
            }
            MinFilter::NearestMipmapLinear | MinFilter::LinearMipmapLinear => {
                let linear = s.min == MinFilter::LinearMipmapLinear;
                if lambda >= q as f32 {
                    return self.level_taps(q, s, uv, linear, w, out);
                }
                let (d, t) = index_frac(lambda);
                let (d, t) = (d as usize, share8(t));
                self.level_taps(d, s, uv, linear, w * (1.0 - t), out);
                self.level_taps(d + 1, s, uv, linear, w * t, out);
            }
        }
    }

    /// One level's taps: nearest's one texel or bilinear's four.
    fn level_taps(
        &self,
        d: usize,
        s: &Sampler,
        uv: Vec2,
        linear: bool,
        w: f32,
        out: &mut Vec<Tap>,
    ) {
        let level = &self.levels[d];
        let (width, height) = (level.width(), level.height());
        let mut push = |x: Option<u32>, y: Option<u32>, weight: f32| {
            out.push(Tap {
                level: d,
                x,
                y,
                texel: rgba8_to_f32(texel_at(level, s, x, y)),
                weight,
            });
        };
        if !linear {
            let p = uv * level.size_f;
            let x = wrap(nearest_mode(s.wrap_u), floor_index(p.x), width);
            let y = wrap(nearest_mode(s.wrap_v), floor_index(p.y), height);
            return push(x, y, w);
        }
        let uv = Vec2::new(clamp_coord(s.wrap_u, uv.x), clamp_coord(s.wrap_v, uv.y));
        let p = uv * level.size_f - Vec2::splat(0.5);
        let ((i0, a), (j0, b)) = (index_frac(p.x), index_frac(p.y));
        let (a, b) = (share8(a), share8(b));
        let (x0, x1) = (wrap(s.wrap_u, i0, width), wrap(s.wrap_u, i0 + 1, width));
        let (y0, y1) = (wrap(s.wrap_v, j0, height), wrap(s.wrap_v, j0 + 1, height));
        push(x0, y0, w * (1.0 - a) * (1.0 - b));
        push(x1, y0, w * a * (1.0 - b));
        push(x0, y1, w * (1.0 - a) * b);
        push(x1, y1, w * a * b);
    }
}

#[cfg(feature = "internal-tests")]
pub(crate) mod tests {
    /// Every test of this module: `tests/unit.rs` runs each as one trial.
    pub(crate) const TESTS: &[(&str, fn())] =
        &[("taps_rebuild_the_filter", taps_rebuild_the_filter)];

    use super::super::sampler::Wrap;
    use super::*;
    use crate::base::rng::XorShift64;

    /// The weighted sum of the taps equals the filter's colour to the filter's rounding (each
    /// byte lerp rounds by at most ½: a bilinear level is within 1 of the exact sum, the blend
    /// of two within 1½), the weights sum to 1, and every tap is a texel of its level or the
    /// border.
    fn taps_rebuild_the_filter() {
        let mut px = Vec::new();
        for i in 0..(16 * 8) {
            px.extend_from_slice(&[
                (i * 7 % 256) as u8,
                (i * 13 % 256) as u8,
                (i * 29 % 256) as u8,
                255,
            ]);
        }
        let tex = Texture::from_rgba8(16, 8, px)
            .unwrap()
            .with_generated_mips();
        let mut rng = XorShift64::new(7);
        let mut range = |lo: f32, hi: f32| {
            lo + (hi - lo) * ((rng.next_u64() >> 40) as f32 / (1u64 << 24) as f32)
        };
        let filters = [
            MinFilter::Nearest,
            MinFilter::Linear,
            MinFilter::NearestMipmapNearest,
            MinFilter::LinearMipmapNearest,
            MinFilter::NearestMipmapLinear,
            MinFilter::LinearMipmapLinear,
        ];
        let wraps = [
            Wrap::Repeat,
            Wrap::MirroredRepeat,
            Wrap::ClampToEdge,
            Wrap::ClampToBorder,
            Wrap::Clamp,
        ];
        for i in 0..4000 {
            let s = Sampler {
                min: filters[i % filters.len()],
                mag: if i % 2 == 0 {
                    MagFilter::Linear
                } else {
                    MagFilter::Nearest
                },
                wrap_u: wraps[i % wraps.len()],
                wrap_v: wraps[(i / 5) % wraps.len()],
                max_anisotropy: if i % 3 == 0 { 8 } else { 1 },
                border: Vec4::new(0.25, 0.5, 0.75, 1.0),
                ..Sampler::TRILINEAR
            };
            let uv = Vec2::new(range(-1.5, 2.5), range(-1.5, 2.5));
            let (dx, dy) = (
                Vec2::new(range(-0.2, 0.2), range(-0.02, 0.02)),
                Vec2::new(range(-0.02, 0.02), range(-0.3, 0.3)),
            );
            let samples = [
                tex.taps(&s, uv, range(-1.0, 5.0)),
                tex.grad_taps(&s, uv, dx, dy),
            ];
            for sample in samples {
                let sum: Vec4 = sample.taps.iter().map(|t| t.texel * t.weight).sum();
                let total: f32 = sample.taps.iter().map(|t| t.weight).sum();
                assert!((total - 1.0).abs() < 1e-5, "{s:?}: weights sum to {total}");
                assert!(
                    (sum - sample.color).abs().max_element() < 1.5 / 255.0 + 1e-5,
                    "{s:?} at {uv}: taps give {sum}, the filter {}",
                    sample.color
                );
                for t in &sample.taps {
                    let l = &tex.levels[t.level];
                    match (t.x, t.y) {
                        (Some(x), Some(y)) => {
                            assert!(x < l.width() && y < l.height());
                            assert_eq!(t.texel, rgba8_to_f32(l.fetch8(x, y)));
                        }
                        _ => assert_eq!(t.texel, tex.in_format(&s).border),
                    }
                }
            }
        }
    }
}
