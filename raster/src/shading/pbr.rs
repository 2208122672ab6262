//! glTF 2.0's metallic-roughness material, lit per pixel (the specification's Appendix B),
//! in eye space: the draw's inputs ([`PbrDraw`]) and the formulas, per pixel
//! ([`shade_pixel`], the scalar definition) and eight pixels at a time (`shade_lanes`,
//! which computes the same bits in every lane).
//!
//! # The BRDF
//!
//! With base colour `C` (linear), metallic `m`, perceptual roughness `r` (both clamped to
//! 0..1), `α = r²`, unit normal `N`, unit view vector `V`, and per light the unit vector `L`
//! towards it and `H = normalize(L + V)`:
//!
//! ```text
//! c_diff = C·(1 − m)                      F0 = 0.04·(1 − m) + C·m
//! F      = F0 + (1 − F0)·(1 − V·H)⁵       (Schlick)
//! D      = α² / (π·((N·H)²·(α² − 1) + 1)²) (GGX / Trowbridge–Reitz)
//! Vis    = 0.5 / (N·L·√((N·V)²·(1 − α²) + α²) + N·V·√((N·L)²·(1 − α²) + α²))
//!                                          (height-correlated Smith; 0 if the sum is 0)
//! f      = (1 − F)·c_diff/π + F·D·Vis
//! Lo     = Σ_lights f · E_l · (N·L)        (lights with N·L > 0)
//!        + occ · A · (FssEss + FmsEms + k_D) (A: the draw's ambient lights, below)
//!        + emissive
//! ```
//!
//! # The ambient light: a uniform environment
//!
//! The ambient colour `A` of the draw's lights is a uniform environment of that radiance,
//! integrated as the split sum does for image-based light, which for a uniform environment
//! is exact but for the table: `(a, b)` = [`env_brdf`]`(N·V, r)`, the directional albedo
//! of the specular lobe split into its `F0` scale and bias (a 32 × 32 table integrated
//! once, deterministically: 512 GGX samples per entry on a Hammersley set, read bilinearly),
//! and Fdez-Agüera's single- and multiple-scattering terms, for the dielectric lobe
//! (`F0 = 0.04`, `c_diff = C`) and the metal lobe (`F0 = C`, `c_diff = 0`) mixed by `m`, as
//! the specification's `mix(dielectric_brdf, metal_brdf, metallic)`:
//!
//! ```text
//! k_S    = F0 + (max(1 − r, F0) − F0)·(1 − N·V)⁵
//! FssEss = k_S·a + b                 Ems = 1 − (a + b)
//! F_avg  = F0 + (1 − F0)/21          FmsEms = Ems·FssEss·F_avg / (1 − F_avg·Ems)
//! k_D    = c_diff·(1 − FssEss − FmsEms)
//! ```
//!
//! A white surface under a white uniform environment so reflects all of it, rough or
//! smooth, metal or not (the white furnace test); `occ` is the occlusion texture's factor.
//! (The direct term mixes `F0` and `c_diff` instead, as the specification's sample
//! implementation and the glTF Sample Viewer do.)
//!
//! `N·V`, `N·H` and `V·H` are clamped to 0..1. `α²` is at least `10⁻⁶`, so a roughness of 0
//! gives a very small, very bright highlight instead of `0 / 0`.
//!
//! # Lights
//!
//! [`PbrDraw::lights`] are [`Light`]s in eye space, any number of them. A light's irradiance
//! `E_l` is `intensity × diffuse` (not clamped: glTF's lux and candela), times for point and
//! spot lights `1 / (c + l·d + q·d²)` (glTF's inverse square is `(0, 0, 1)` with intensity in
//! candela) and the spot cone ([`Light::spot_inner_deg`]'s smooth edge, as the fixed-function
//! lights), and with a [`Light::range`] `R` the specification's recommended window
//! `clamp(1 − (d/R)⁴, 0, 1)` (not squared, unlike the fixed-function lights' window).
//! `ambient × intensity` of every light that is on sums to `A`, the uniform environment
//! above.
//!
//! # Colour
//!
//! Textures hold 8-bit values. The base colour and emissive textures are sRGB: each is
//! **filtered first and decoded after** ([`srgb_to_linear`] of the filtered value), where a
//! GPU's sRGB formats decode each texel before filtering; the two differ only where texels
//! of very different brightness are blended. Vertex colours and factors are linear. The lit
//! colour is multiplied by [`PbrOutput::exposure`], tone mapped ([`ToneMap`]) and encoded
//! ([`OutputEncoding`]) before it reaches the framebuffer, so blending happens on encoded
//! values, as on a GPU without an sRGB framebuffer. The sRGB curves' power segments are
//! tables of 4,097 values (computed once through [`math::powf`]) read linearly: within
//! 3·10⁻⁶ (decode) and 2·10⁻⁵ (encode, 1/200 of an 8-bit level) of the curves, at a few
//! operations instead of a `powf` per channel.

use std::sync::Arc;

use glam::{Mat4, Vec3, Vec4};

use crate::base::math;
use crate::shading::environment::PbrEnvironment;
use crate::shading::light::{Light, LightKind, PreparedLight};
use crate::texture::{Sampler, Texture};

/// `1/π` as the shaders use it.
const INV_PI: f32 = core::f32::consts::FRAC_1_PI;
// The smallest `α²` is defined with the environment's prefiltering, which this builds on.
use crate::shading::environment::MIN_ALPHA2;

/// One of a material's textures: the texture, its sampler, the UV set it reads and the
/// matrix applied to `(u, v, 0, 1)` (glTF's `KHR_texture_transform`).
#[derive(Clone, Debug, PartialEq)]
pub struct PbrTexture {
    /// The texture (8-bit texels).
    pub texture: Arc<Texture>,
    /// Filtering and wrapping.
    pub sampler: Sampler,
    /// The UV set.
    pub uv_set: usize,
    /// Texture matrix; the texture is sampled at `(s/q, t/q)`.
    pub matrix: Mat4,
}

/// glTF's metallic-roughness material as the PBR stage draws it (factors in linear values).
#[derive(Clone, Debug, PartialEq)]
pub struct PbrMaterial {
    /// `baseColorFactor` (linear RGBA).
    pub base_color: Vec4,
    /// `metallicFactor`.
    pub metallic: f32,
    /// `roughnessFactor`.
    pub roughness: f32,
    /// `emissiveFactor × KHR_materials_emissive_strength` (linear, may exceed 1).
    pub emissive: Vec3,
    /// `normalTexture.scale`.
    pub normal_scale: f32,
    /// Base colour texture (sRGB RGBA), multiplying the factor.
    pub base_color_texture: Option<PbrTexture>,
    /// Metallic (blue) and roughness (green), multiplying the factors.
    pub metallic_roughness_texture: Option<PbrTexture>,
    /// Tangent-space normals `2t − 1`; needs tangents.
    pub normal_texture: Option<PbrTexture>,
    /// Occlusion (red): darkens the ambient term, `1 + strength·(occ − 1)`.
    pub occlusion_texture: Option<PbrTexture>,
    /// `occlusionTexture.strength`.
    pub occlusion_strength: f32,
    /// Emissive texture (sRGB RGB), multiplying the factor.
    pub emissive_texture: Option<PbrTexture>,
    /// glTF `OPAQUE`: the alpha written is 1. Otherwise the alpha is base colour alpha ×
    /// vertex alpha × texture alpha (for `MASK` the pipeline's alpha test cuts it).
    pub opaque: bool,
    /// `doubleSided`: back faces are lit with the normal (and tangent frame) reversed.
    pub double_sided: bool,
}

impl PbrMaterial {
    /// The textures in the order a draw binds them as units: base colour,
    /// metallic-roughness, normal, occlusion, emissive (`None` for one the material lacks;
    /// those present take units 0, 1, … in this order).
    pub fn textures(&self) -> [Option<&PbrTexture>; 5] {
        [
            self.base_color_texture.as_ref(),
            self.metallic_roughness_texture.as_ref(),
            self.normal_texture.as_ref(),
            self.occlusion_texture.as_ref(),
            self.emissive_texture.as_ref(),
        ]
    }
}

impl Default for PbrMaterial {
    /// glTF's default material: white, fully metallic and rough, opaque, single-sided.
    fn default() -> PbrMaterial {
        PbrMaterial {
            base_color: Vec4::ONE,
            metallic: 1.0,
            roughness: 1.0,
            emissive: Vec3::ZERO,
            normal_scale: 1.0,
            base_color_texture: None,
            metallic_roughness_texture: None,
            normal_texture: None,
            occlusion_texture: None,
            occlusion_strength: 1.0,
            emissive_texture: None,
            opaque: true,
            double_sided: false,
        }
    }
}

/// The tone map applied after exposure.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ToneMap {
    /// None: the linear colour is clamped to 0..1.
    #[default]
    None,
    /// ACES filmic as Stephen Hill's fit (the one three.js and the glTF Sample Viewer use):
    /// `x/0.6`, the input matrix, `(x(x + 0.0245786) − 0.000090537) / (x(0.983729x +
    /// 0.432951) + 0.238081)`, the output matrix, clamp.
    AcesFilmic,
    /// Khronos PBR Neutral (start of compression 0.76, desaturation 0.15).
    PbrNeutral,
}

/// How the tone-mapped colour is written.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum OutputEncoding {
    /// sRGB-encoded ([`linear_to_srgb`]), what image viewers expect.
    #[default]
    Srgb,
    /// Linear values, for comparison with renderers that write them.
    Linear,
}

/// What happens to the lit colour before the framebuffer.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PbrOutput {
    /// Multiplies the linear colour (1: none).
    pub exposure: f32,
    /// The tone map.
    pub tone_map: ToneMap,
    /// The encoding.
    pub encoding: OutputEncoding,
}

impl Default for PbrOutput {
    fn default() -> PbrOutput {
        PbrOutput {
            exposure: 1.0,
            tone_map: ToneMap::None,
            encoding: OutputEncoding::Srgb,
        }
    }
}

/// A physically based draw: the material, the lights (eye space, any number) and the output
/// transform.
#[derive(Clone, Debug, Default)]
pub struct PbrDraw {
    /// The material.
    pub material: PbrMaterial,
    /// Lights in eye space; those that are off are skipped.
    pub lights: Vec<Light>,
    /// Exposure, tone map and encoding.
    pub output: PbrOutput,
    /// Image-based light ([`crate::environment`]), added to the uniform ambient light.
    pub environment: Option<PbrEnvironment>,
}

/// Side of the split-sum table ([`env_brdf`]).
pub const LUT_N: usize = 32;
/// GGX samples per table entry.
const LUT_SAMPLES: u32 = 512;

static ENV_BRDF: std::sync::OnceLock<Vec<[f32; 2]>> = std::sync::OnceLock::new();

/// The split sum's `(a, b)` at `N·V` and perceptual roughness `r` (both clamped to 0..1):
/// the directional albedo of the specular lobe is `F0·a + b`. Bilinear in a table whose
/// nodes are at `i/31` in each coordinate (module docs).
pub fn env_brdf(n_v: f32, roughness: f32) -> [f32; 2] {
    let t = env_brdf_table();
    let at = |x: f32| {
        let f = math::saturate(x) * (LUT_N - 1) as f32;
        let i = (f as usize).min(LUT_N - 2);
        (i, f - i as f32)
    };
    let (i, fx) = at(n_v);
    let (j, fy) = at(roughness);
    let e = |i: usize, j: usize| t[j * LUT_N + i];
    let mut out = [0.0; 2];
    for (k, o) in out.iter_mut().enumerate() {
        let top = e(i, j)[k] + (e(i + 1, j)[k] - e(i, j)[k]) * fx;
        let bottom = e(i, j + 1)[k] + (e(i + 1, j + 1)[k] - e(i, j + 1)[k]) * fx;
        *o = top + (bottom - top) * fy;
    }
    out
}

/// The split-sum table [`env_brdf`] reads: `LUT_N × LUT_N` entries `(a, b)`, row `j` at
/// roughness `j/(LUT_N − 1)`, column `i` at `N·V = i/(LUT_N − 1)`. For a backend that reads
/// it itself (plumb-wgpu uploads it).
pub fn env_brdf_table() -> &'static [[f32; 2]] {
    ENV_BRDF.get_or_init(integrate_env_brdf_table)
}

/// The table of [`env_brdf`]: row `j` (roughness `j/31`), column `i` (`N·V = i/31`, at
/// least 10⁻³).
fn integrate_env_brdf_table() -> Vec<[f32; 2]> {
    let mut t = Vec::with_capacity(LUT_N * LUT_N);
    for j in 0..LUT_N {
        let r = j as f32 / (LUT_N - 1) as f32;
        for i in 0..LUT_N {
            let n_v = (i as f32 / (LUT_N - 1) as f32).max(1e-3);
            t.push(integrate_env_brdf(n_v, r));
        }
    }
    t
}

/// `(a, b)` by importance-sampling GGX at `LUT_SAMPLES` Hammersley points, `N = +z`.
fn integrate_env_brdf(n_v: f32, r: f32) -> [f32; 2] {
    let a = r * r;
    let a2 = (a * a).max(MIN_ALPHA2);
    let v = Vec3::new((1.0 - n_v * n_v).sqrt(), 0.0, n_v);
    let (mut sa, mut sb) = (0.0f64, 0.0f64);
    for k in 0..LUT_SAMPLES {
        let u1 = (k as f32 + 0.5) / LUT_SAMPLES as f32;
        let u2 = k.reverse_bits() as f32 * (1.0 / 4_294_967_296.0);
        let (sp, cp) = math::sin_cos(core::f32::consts::TAU * u1);
        let ct = ((1.0 - u2) / (1.0 + (a2 - 1.0) * u2)).sqrt();
        let st = (1.0 - ct * ct).max(0.0).sqrt();
        let h = Vec3::new(st * cp, st * sp, ct);
        let v_h = v.dot(h);
        let l = h * (2.0 * v_h) - v;
        if l.z <= 0.0 || v_h <= 0.0 {
            continue;
        }
        let t = brdf([l.z, n_v, ct, v_h], Vec3::ONE, 1.0, r);
        let g_vis = 4.0 * t.visibility * l.z * v_h / ct;
        let x = 1.0 - v_h;
        let fc = x * x * x * x * x;
        sa += f64::from((1.0 - fc) * g_vis);
        sb += f64::from(fc * g_vis);
    }
    let n = f64::from(LUT_SAMPLES);
    [(sa / n) as f32, (sb / n) as f32]
}

/// The uniform environment's light for one channel (module docs): `a_env` the
/// environment's radiance, `f0`, `c_diff` the channel's, `fw = (1 − N·V)⁵`, `r` the clamped
/// roughness, `[a, b]` from [`env_brdf`].
#[inline]
pub fn ambient_channel(a_env: f32, f0: f32, c_diff: f32, fw: f32, r: f32, ab: [f32; 2]) -> f32 {
    let [fss_ess, fms_ems, k_d] = ambient_terms(f0, c_diff, fw, r, ab);
    a_env * (fss_ess + fms_ems + k_d)
}

/// The split sum's `FssEss`, `FmsEms` and `k_D` for one channel (module docs).
#[inline]
fn ambient_terms(f0: f32, c_diff: f32, fw: f32, r: f32, [a, b]: [f32; 2]) -> [f32; 3] {
    let k_s = f0 + ((1.0 - r).max(f0) - f0) * fw;
    let fss_ess = k_s * a + b;
    let ems = 1.0 - (a + b);
    let f_avg = f0 + (1.0 - f0) * (1.0 / 21.0);
    let fms_ems = ems * fss_ess * f_avg / (1.0 - f_avg * ems);
    let k_d = c_diff * (1.0 - fss_ess - fms_ems);
    [fss_ess, fms_ems, k_d]
}

/// The image-based light for one channel: [`ambient_channel`]'s terms with the specular
/// radiance `spec` on the single-scattering lobe and the diffuse radiance `diff` on the
/// multiple-scattering and diffuse ones (for a uniform environment both are its radiance).
#[inline]
pub fn ibl_channel(
    spec: f32,
    diff: f32,
    f0: f32,
    c_diff: f32,
    fw: f32,
    r: f32,
    ab: [f32; 2],
) -> f32 {
    let [fss_ess, fms_ems, k_d] = ambient_terms(f0, c_diff, fw, r, ab);
    fss_ess * spec + (fms_ems + k_d) * diff
}

/// The environment's diffuse radiance around `n` and specular radiance along the reflection
/// of `view` at clamped roughness `r`.
pub fn ibl_radiance(env: &PbrEnvironment, n: Vec3, view: Vec3, r: f32) -> (Vec3, Vec3) {
    let reflected = n * (2.0 * n.dot(view)) - view;
    env.light(n, reflected, r)
}

/// The image-based light at one pixel, before occlusion, from the environment's radiances
/// ([`ibl_radiance`]): what [`ibl_channel`]'s dielectric and metal lobes, mixed by `m`, make
/// of specular radiance `spec` and diffuse radiance `diff`. `m`, `r` are the clamped
/// metallic and roughness; `fw = (1 − N·V)⁵` and `ab` = [`env_brdf`]`(N·V, r)` are the
/// ambient term's, computed once per pixel for both. Linear in `spec` and `diff`, so
/// `explain` shows the two parts apart by passing zero for the other. The lanes call this
/// per lane, so both agree bit for bit.
pub fn ibl_combine(
    base: Vec3,
    [m, r]: [f32; 2],
    fw: f32,
    ab: [f32; 2],
    spec: Vec3,
    diff: Vec3,
) -> Vec3 {
    let lobe = |s: f32, d: f32, c: f32| {
        let dielectric = ibl_channel(s, d, 0.04, c, fw, r, ab);
        let metal = ibl_channel(s, d, c, 0.0, fw, r, ab);
        dielectric + (metal - dielectric) * m
    };
    Vec3::new(
        lobe(spec.x, diff.x, base.x),
        lobe(spec.y, diff.y, base.y),
        lobe(spec.z, diff.z, base.z),
    )
}

/// The most lights one PBR draw takes: more is [`Error::TooMany`](crate::Error::TooMany).
pub const MAX_PBR_LIGHTS: usize = 256;

/// Intervals of the transfer-function tables over 0..1.
const CURVE_N: usize = 4096;

/// The power segments of the sRGB transfer functions at `k/4096`, `k = 0..=4096`: decode
/// `((x + 0.055)/1.055)^2.4`, encode `1.055·x^(1/2.4) − 0.055` (through [`math::powf`]).
static SRGB_CURVES: std::sync::OnceLock<(Vec<f32>, Vec<f32>)> = std::sync::OnceLock::new();

fn srgb_curves() -> &'static (Vec<f32>, Vec<f32>) {
    SRGB_CURVES.get_or_init(|| {
        let at = |k: usize| k as f32 / CURVE_N as f32;
        let decode = (0..=CURVE_N)
            .map(|k| math::powf((at(k) + 0.055) * (1.0 / 1.055), 2.4))
            .collect();
        let encode = (0..=CURVE_N)
            .map(|k| 1.055 * math::powf(at(k), 1.0 / 2.4) - 0.055)
            .collect();
        (decode, encode)
    })
}

/// `table` read linearly at `x` in 0..1.
#[inline]
fn lerp_curve(table: &[f32], x: f32) -> f32 {
    let f = x * CURVE_N as f32;
    let i = (f as usize).min(CURVE_N - 1);
    let t = f - i as f32;
    table[i] + (table[i + 1] - table[i]) * t
}

/// `x` (clamped to 0..1) from sRGB to linear: `x/12.92` up to 0.04045, else
/// `((x + 0.055)/1.055)^2.4`, the power segment read linearly from a table of 4,097 exact
/// values (within 3·10⁻⁶ of the curve; a few operations instead of a `powf` per channel).
#[inline]
pub fn srgb_to_linear(x: f32) -> f32 {
    let x = math::saturate(x);
    if x <= 0.04045 {
        x * (1.0 / 12.92)
    } else {
        lerp_curve(&srgb_curves().0, x)
    }
}

/// `x` (clamped to 0..1) from linear to sRGB: `12.92·x` up to 0.0031308, else
/// `1.055·x^(1/2.4) − 0.055`, the power segment read linearly from a table of 4,097 exact
/// values (within 2·10⁻⁵ of the curve, 1/200 of an 8-bit level).
#[inline]
pub fn linear_to_srgb(x: f32) -> f32 {
    let x = math::saturate(x);
    if x <= 0.003_130_8 {
        x * 12.92
    } else {
        lerp_curve(&srgb_curves().1, x)
    }
}

/// The terms of the BRDF for one light at one point (module docs), per colour channel:
/// `diffuse = (1 − F)·c_diff/π`, `specular = F·D·Vis`, and the scalars `D`, `Vis` and the
/// Fresnel weight `(1 − V·H)⁵`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BrdfTerms {
    /// `(1 − F)·c_diff/π`.
    pub diffuse: Vec3,
    /// `F·D·Vis`.
    pub specular: Vec3,
    /// `F`.
    pub fresnel: Vec3,
    /// `D`.
    pub distribution: f32,
    /// `Vis = G / (4·N·L·N·V)`.
    pub visibility: f32,
}

/// The BRDF at clamped cosines `n_l`, `n_v`, `n_h`, `v_h` for base colour `base`, metallic
/// and roughness (module docs; the lanes compute these same expressions).
pub fn brdf(
    [n_l, n_v, n_h, v_h]: [f32; 4],
    base: Vec3,
    metallic: f32,
    roughness: f32,
) -> BrdfTerms {
    let (m, r) = (math::saturate(metallic), math::saturate(roughness));
    let a = r * r;
    let a2 = (a * a).max(MIN_ALPHA2);
    let c_diff = base * (1.0 - m);
    let f0 = Vec3::splat(0.04 * (1.0 - m)) + base * m;
    let x = 1.0 - v_h;
    let x2 = x * x;
    let fw = x2 * x2 * x;
    let fresnel = f0 + (Vec3::ONE - f0) * fw;
    let d = n_h * n_h * (a2 - 1.0) + 1.0;
    let distribution = a2 / (core::f32::consts::PI * (d * d));
    let gv = n_l * (n_v * n_v * (1.0 - a2) + a2).sqrt();
    let gl = n_v * (n_l * n_l * (1.0 - a2) + a2).sqrt();
    let sum = gv + gl;
    let visibility = if sum > 0.0 { 0.5 / sum } else { 0.0 };
    BrdfTerms {
        diffuse: (Vec3::ONE - fresnel) * c_diff * INV_PI,
        specular: fresnel * (distribution * visibility),
        fresnel,
        distribution,
        visibility,
    }
}

/// A light as the PBR stage uses it: the fixed-function light's vector, attenuation and
/// spot factor (without its window), the unclamped irradiance and the glTF range window.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PbrLight {
    /// Direction, position, attenuation and spot cone (its `inv_range` is `None`).
    pub light: PreparedLight,
    /// `intensity × diffuse`.
    pub irradiance: Vec3,
    /// `1 / range` for point and spot lights with a range.
    pub inv_range: Option<f32>,
}

/// The draw's lights compiled: those that are on and not ambient, and the ambient sum `A`.
pub fn prepare_lights(lights: &[Light]) -> (Vec<PbrLight>, Vec3) {
    let mut out = Vec::new();
    let mut ambient = Vec3::ZERO;
    for l in lights.iter().filter(|l| l.on) {
        ambient += l.ambient * l.intensity;
        if matches!(l.kind, LightKind::Ambient) {
            continue;
        }
        let mut p = PreparedLight::new(l);
        let inv_range = p.inv_range.take();
        out.push(PbrLight {
            light: p,
            irradiance: l.diffuse * l.intensity,
            inv_range,
        });
    }
    (out, ambient)
}

impl PbrLight {
    /// The unit vector towards the light from `pos_eye` and its irradiance there.
    pub fn incident(&self, pos_eye: Vec3) -> (Vec3, Vec3) {
        let (l, mut factor) = self.light.towards(pos_eye);
        if let Some(inv) = self.inv_range {
            factor *= range_window((self.light.vector - pos_eye).length() * inv);
        }
        (l, self.irradiance * factor)
    }
}

/// glTF's recommended range window at `d/R`: `clamp(1 − (d/R)⁴, 0, 1)`.
#[inline]
pub fn range_window(r: f32) -> f32 {
    let r2 = r * r;
    (1.0 - r2 * r2).clamp(0.0, 1.0)
}

/// What one pixel's material evaluates to before lighting.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SurfacePoint {
    /// Eye-space position.
    pub position: Vec3,
    /// Unit shading normal (after the normal map and the back-face flip).
    pub normal: Vec3,
    /// Linear base colour (RGB) and alpha.
    pub base: Vec4,
    /// Metallic (not yet clamped).
    pub metallic: f32,
    /// Perceptual roughness (not yet clamped).
    pub roughness: f32,
    /// The occlusion factor `1 + strength·(occ − 1)`.
    pub occlusion: f32,
    /// Linear emission.
    pub emissive: Vec3,
}

/// The linear lit colour of one pixel (module docs): `view` is the unit vector to the eye;
/// `env_light` the image-based light, if any ([`ibl_combine`], added to the ambient term).
pub fn shade_pixel(
    p: &SurfacePoint,
    view: Vec3,
    lights: &[PbrLight],
    ambient: Vec3,
    env_light: Option<&PbrEnvironment>,
) -> Vec3 {
    let n = p.normal;
    let base = p.base.truncate();
    let n_v = math::saturate(n.dot(view));
    let mut lo = Vec3::ZERO;
    for l in lights {
        let (to_light, e) = l.incident(p.position);
        let n_l = n.dot(to_light);
        if n_l > 0.0 {
            let h = (to_light + view).normalize_or_zero();
            let cos = [
                math::saturate(n_l),
                n_v,
                math::saturate(n.dot(h)),
                math::saturate(view.dot(h)),
            ];
            let t = brdf(cos, base, p.metallic, p.roughness);
            lo += (t.diffuse + t.specular) * (e * cos[0]);
        }
    }
    let m = math::saturate(p.metallic);
    let r = math::saturate(p.roughness);
    let x = 1.0 - n_v;
    let x2 = x * x;
    let fw = x2 * x2 * x;
    let ab = env_brdf(n_v, r);
    let env = |a: f32, c: f32| {
        let dielectric = ambient_channel(a, 0.04, c, fw, r, ab);
        let metal = ambient_channel(a, c, 0.0, fw, r, ab);
        dielectric + (metal - dielectric) * m
    };
    let amb = Vec3::new(
        env(ambient.x, base.x),
        env(ambient.y, base.y),
        env(ambient.z, base.z),
    );
    let amb = match env_light {
        Some(e) => {
            let (diff, spec) = ibl_radiance(e, n, view, r);
            amb + ibl_combine(base, [m, r], fw, ab, spec, diff)
        }
        None => amb,
    };
    lo + amb * p.occlusion + p.emissive
}

/// The colour written for linear colour `c`: exposure, tone map, encoding, clamped to 0..1.
pub fn finish(out: &PbrOutput, c: Vec3) -> Vec3 {
    let c = c * out.exposure;
    let c = match out.tone_map {
        ToneMap::None => c,
        ToneMap::AcesFilmic => aces_filmic(c),
        ToneMap::PbrNeutral => pbr_neutral(c),
    };
    let c = Vec3::new(
        math::saturate(c.x),
        math::saturate(c.y),
        math::saturate(c.z),
    );
    match out.encoding {
        OutputEncoding::Srgb => Vec3::new(
            linear_to_srgb(c.x),
            linear_to_srgb(c.y),
            linear_to_srgb(c.z),
        ),
        OutputEncoding::Linear => c,
    }
}

/// ACES filmic (Hill's fit, [`ToneMap::AcesFilmic`]).
fn aces_filmic(c: Vec3) -> Vec3 {
    let c = c * (1.0 / 0.6);
    let row = |a: f32, b: f32, d: f32, v: Vec3| a * v.x + b * v.y + d * v.z;
    let i = Vec3::new(
        row(0.59719, 0.35458, 0.04823, c),
        row(0.07600, 0.90834, 0.01566, c),
        row(0.02840, 0.13383, 0.83777, c),
    );
    let fit = |v: f32| {
        (v * (v + 0.024_578_6) - 0.000_090_537) / (v * (0.983_729 * v + 0.432_951) + 0.238_081)
    };
    let f = Vec3::new(fit(i.x), fit(i.y), fit(i.z));
    Vec3::new(
        row(1.60475, -0.53108, -0.07367, f),
        row(-0.10208, 1.10813, -0.00605, f),
        row(-0.00327, -0.07276, 1.07602, f),
    )
}

/// Khronos PBR Neutral ([`ToneMap::PbrNeutral`]).
fn pbr_neutral(c: Vec3) -> Vec3 {
    const START: f32 = 0.8 - 0.04;
    const DESATURATION: f32 = 0.15;
    let x = c.x.min(c.y).min(c.z);
    let offset = if x < 0.08 { x - 6.25 * x * x } else { 0.04 };
    let c = c - Vec3::splat(offset);
    let peak = c.x.max(c.y).max(c.z);
    if peak < START {
        return c;
    }
    let d = 1.0 - START;
    let new_peak = 1.0 - d * d / (peak + d - START);
    let c = c * (new_peak / peak);
    let g = 1.0 - 1.0 / (DESATURATION * (peak - new_peak) + 1.0);
    c + (Vec3::splat(new_peak) - c) * g
}

#[cfg(feature = "internal-tests")]
pub(crate) mod tests {
    /// Every test of this module (run by `tests/unit.rs`).
    pub(crate) const TESTS: &[(&str, fn())] = &[
        (
            "brdf_matches_hand_worked_values",
            brdf_matches_hand_worked_values,
        ),
        ("energy_at_grazing_angles", energy_at_grazing_angles),
        (
            "the_split_sum_table_matches_a_grid_integral",
            the_split_sum_table_matches_a_grid_integral,
        ),
        (
            "a_white_surface_reflects_a_white_environment",
            a_white_surface_reflects_a_white_environment,
        ),
        (
            "point_light_falloff_follows_the_range_formula",
            point_light_falloff_follows_the_range_formula,
        ),
        (
            "srgb_round_trips_and_matches_the_standard_points",
            srgb_round_trips_and_matches_the_standard_points,
        ),
        (
            "tone_maps_keep_black_and_map_bright_into_range",
            tone_maps_keep_black_and_map_bright_into_range,
        ),
    ];

    use super::*;

    fn close(a: f32, b: f32, tol: f32) -> bool {
        (a - b).abs() <= tol * b.abs().max(1e-6)
    }

    /// Hand-worked values (module docs' formulas with the cosines given, worked on paper
    /// to 6 digits) at five points.
    fn brdf_matches_hand_worked_values() {
        // 1. Dielectric, roughness 0.5 (α = 0.25, α² = 0.0625), all cosines 1 (mirror
        //    direction): F = 0.04, D = α²/(π·α⁴) = 1/(π·0.0625) = 5.092958,
        //    Vis = 0.5/(1·√1 + 1·√1) = 0.25, spec = 0.04·5.092958·0.25 = 0.0509296,
        //    diffuse = 0.96·0.8/π = 0.244462.
        let t = brdf([1.0, 1.0, 1.0, 1.0], Vec3::splat(0.8), 0.0, 0.5);
        assert!(close(t.distribution, 5.092_958, 1e-5));
        assert!(close(t.visibility, 0.25, 1e-6));
        assert!(close(t.specular.x, 0.050_929_6, 1e-5));
        assert!(close(t.diffuse.x, 0.244_462, 1e-5));
        // 2. Metal (m = 1, base 1, 0.5, 0): no diffuse, F0 = base; at V·H = 0.5 the Fresnel
        //    weight is 0.5⁵ = 0.03125, so F.z = 0 + 1·0.03125, F.y = 0.5 + 0.5·0.03125.
        let t = brdf([0.7, 0.6, 0.9, 0.5], Vec3::new(1.0, 0.5, 0.0), 1.0, 0.3);
        assert_eq!(t.diffuse, Vec3::ZERO);
        assert!(close(t.fresnel.z, 0.031_25, 1e-6));
        assert!(close(t.fresnel.y, 0.515_625, 1e-6));
        assert!(close(t.fresnel.x, 1.0, 1e-6));
        //    α = 0.09, α² = 0.0081; N·H = 0.9: d = 0.81·(−0.9919) + 1 = 0.196561,
        //    D = 0.0081/(π·0.0386362) = 0.0667325.
        assert!(close(t.distribution, 0.066_732_5, 1e-4));
        //    Vis: 0.7·√(0.36·0.9919 + 0.0081) + 0.6·√(0.49·0.9919 + 0.0081)
        //       = 0.7·0.604304 + 0.6·0.702944 = 0.423013 + 0.421767 = 0.844780 → 0.591870.
        assert!(close(t.visibility, 0.591_870, 2e-5));
        // 3. Fully rough dielectric (α = α² = 1): D = 1/π everywhere, Vis = 0.5/(n_l + n_v).
        let t = brdf([0.5, 0.25, 0.3, 0.8], Vec3::ONE, 0.0, 1.0);
        assert!(close(t.distribution, INV_PI, 1e-6));
        assert!(close(t.visibility, 0.5 / 0.75, 1e-6));
        //    F = 0.04 + 0.96·0.2⁵ = 0.04 + 0.96·0.00032 = 0.0403072.
        assert!(close(t.fresnel.x, 0.040_307_2, 1e-6));
        // 4. Half metal, roughness 0.8 (α = 0.64, α² = 0.4096), base (0.2, 0.4, 0.6),
        //    cosines (1, 1, 1, 1): F0 = 0.02 + 0.5·base = (0.12, 0.22, 0.32), F = F0;
        //    D = 1/(π·0.4096) = 0.777130; Vis = 0.25;
        //    specular.y = 0.22·0.777130·0.25 = 0.0427422;
        //    diffuse.z = (1 − 0.32)·0.3/π = 0.0649352.
        let t = brdf([1.0; 4], Vec3::new(0.2, 0.4, 0.6), 0.5, 0.8);
        assert!(close(t.distribution, 0.777_130, 1e-5));
        assert!(close(t.specular.y, 0.042_742_2, 1e-5));
        assert!(close(t.diffuse.z, 0.064_935_2, 1e-5));
        // 5. Grazing view (N·V = 0), N·L = 1: Vis = 0.5/(1·α + 0) = 0.5/α; roughness 0.5,
        //    α = 0.25: Vis = 2. V·H = cos 45° = 0.707107: the Fresnel weight is
        //    0.292893⁵ = 0.00215549, F = 0.04 + 0.96·0.00215549 = 0.0420693.
        let c45 = core::f32::consts::FRAC_1_SQRT_2;
        let t = brdf([1.0, 0.0, c45, c45], Vec3::ONE, 0.0, 0.5);
        assert!(close(t.visibility, 2.0, 1e-5));
        assert!(close(t.fresnel.x, 0.042_069_3, 1e-5));
    }

    /// At grazing angles the BRDF stays finite and the reflected energy bounded: for every
    /// roughness and N·L = N·V → 0 the specular term times N·L stays finite and
    /// non-negative, and the directional albedo (Monte Carlo over a fixed grid) is at most 1.
    fn energy_at_grazing_angles() {
        for &r in &[0.0f32, 0.05, 0.2, 0.5, 1.0] {
            for &c in &[1e-4f32, 1e-2, 0.1] {
                let t = brdf([c, c, 1.0, 1.0], Vec3::ONE, 1.0, r);
                let e = t.specular.x * c;
                assert!(e.is_finite() && e >= 0.0, "r {r} cos {c}: {e}");
            }
        }
        // Directional albedo of a white metal: ∫ f·cos θl dω over the hemisphere, by a
        // fixed 512×512 grid in (cos θ, φ), for views down to 85° from the normal.
        for &r in &[0.4f32, 0.7, 1.0] {
            for &nv in &[1.0f32, 0.5, 0.087] {
                let v = Vec3::new((1.0 - nv * nv).sqrt(), 0.0, nv);
                let n = 512;
                let mut sum = 0.0f64;
                for i in 0..n {
                    let ct = (i as f32 + 0.5) / n as f32;
                    let st = (1.0 - ct * ct).sqrt();
                    for j in 0..n {
                        let phi = (j as f32 + 0.5) / n as f32 * core::f32::consts::TAU;
                        let (s, c) = math::sin_cos(phi);
                        let l = Vec3::new(st * c, st * s, ct);
                        let h = (l + v).normalize();
                        let t = brdf(
                            [ct, nv, h.z.clamp(0.0, 1.0), v.dot(h).clamp(0.0, 1.0)],
                            Vec3::ONE,
                            1.0,
                            r,
                        );
                        sum += (t.specular.x * ct) as f64;
                    }
                }
                let albedo = sum * core::f64::consts::TAU / (n * n) as f64;
                assert!(albedo <= 1.0 + 1e-2, "r {r} n·v {nv}: albedo {albedo}");
                // Single scattering loses energy at high roughness, never all of it.
                assert!(albedo > 0.2, "r {r} n·v {nv}: albedo {albedo}");
            }
        }
    }

    /// `env_brdf`'s `a + b` (importance-sampled, tabled, interpolated) is the white
    /// metal's directional albedo, which the grid integral of `energy_at_grazing_angles`
    /// computes independently; and `b` alone is the albedo weighted by the Fresnel term.
    fn the_split_sum_table_matches_a_grid_integral() {
        for &r in &[0.3f32, 0.5, 0.8, 1.0] {
            for &nv in &[0.2f32, 0.5, 0.9] {
                let v = Vec3::new((1.0 - nv * nv).sqrt(), 0.0, nv);
                let n = 768;
                let (mut ess, mut fb) = (0.0f64, 0.0f64);
                for i in 0..n {
                    let ct = (i as f32 + 0.5) / n as f32;
                    let st = (1.0 - ct * ct).sqrt();
                    for j in 0..n {
                        let phi = (j as f32 + 0.5) / n as f32 * core::f32::consts::TAU;
                        let (s, c) = math::sin_cos(phi);
                        let l = Vec3::new(st * c, st * s, ct);
                        let h = (l + v).normalize();
                        let vh = v.dot(h).clamp(0.0, 1.0);
                        let t = brdf([ct, nv, h.z.clamp(0.0, 1.0), vh], Vec3::ONE, 1.0, r);
                        let x = 1.0 - vh;
                        let w = (t.distribution * t.visibility * ct) as f64;
                        ess += w;
                        fb += w * (x * x * x * x * x) as f64;
                    }
                }
                let k = core::f64::consts::TAU / (n * n) as f64;
                let (ess, fb) = (ess * k, fb * k);
                let [a, b] = env_brdf(nv, r);
                let got = f64::from(a + b);
                assert!(
                    (got - ess).abs() < 0.02 * ess + 2e-3,
                    "r {r} n·v {nv}: {got} vs {ess}"
                );
                assert!(
                    (f64::from(b) - fb).abs() < 0.05 * fb + 2e-3,
                    "r {r} n·v {nv}: b {b} vs {fb}"
                );
            }
        }
    }

    /// The white furnace, per pixel: a white surface (base 1), dielectric or metal, rough
    /// or smooth, under a uniform white environment (ambient 1, no other light) reflects 1
    /// within 1 %, at every view angle; and the occlusion factor scales it. (Computing the
    /// half metal with `F0 = 0.52`, `c_diff = 0.5` in one lobe instead of mixing the two
    /// lost up to 37 % at grazing views.)
    fn a_white_surface_reflects_a_white_environment() {
        let fill = Light::new(LightKind::Ambient)
            .with_ambient(Vec3::ONE)
            .with_intensity(1.0);
        let (lights, ambient) = prepare_lights(&[fill]);
        assert!(lights.is_empty());
        for &m in &[0.0f32, 0.5, 1.0] {
            for &r in &[0.0f32, 0.25, 0.5, 0.75, 1.0] {
                for k in 0..=20 {
                    let nv = k as f32 / 20.0;
                    let view = Vec3::new((1.0 - nv * nv).sqrt(), 0.0, nv);
                    let p = SurfacePoint {
                        position: Vec3::new(0.0, 0.0, -3.0),
                        normal: Vec3::Z,
                        base: Vec4::ONE,
                        metallic: m,
                        roughness: r,
                        occlusion: 1.0,
                        emissive: Vec3::ZERO,
                    };
                    let c = shade_pixel(&p, view, &lights, ambient, None);
                    let off = (c - Vec3::ONE).abs().max_element();
                    assert!(off < 0.01, "m {m} r {r} n·v {nv}: {c}");
                    let half = shade_pixel(
                        &SurfacePoint {
                            occlusion: 0.5,
                            ..p
                        },
                        view,
                        &lights,
                        ambient,
                        None,
                    );
                    assert!((half - c * 0.5).abs().max_element() < 1e-6);
                }
            }
        }
    }

    /// The range window is the specification's `clamp(1 − (d/R)⁴, 0, 1)` over `d²`.
    fn point_light_falloff_follows_the_range_formula() {
        let light = Light {
            range: Some(10.0),
            ..Light::new(LightKind::Point {
                position: Vec3::ZERO,
            })
            .with_diffuse(Vec3::ONE)
            .with_intensity(100.0)
            .with_attenuation([0.0, 0.0, 1.0])
        };
        let (lights, _) = prepare_lights(&[light]);
        for &d in &[0.5f32, 1.0, 2.0, 5.0, 7.5, 9.9, 10.0, 12.0] {
            let (_, e) = lights[0].incident(Vec3::new(0.0, 0.0, -d));
            let want = 100.0
                * (1.0 - {
                    let q = d / 10.0;
                    (q * q) * (q * q)
                })
                .clamp(0.0, 1.0)
                / (d * d);
            assert!(
                (e.x - want).abs() <= 1e-5 * want.max(1e-3),
                "d {d}: {} vs {want}",
                e.x
            );
        }
    }

    /// The tables against the curves (`powf` per value, in f64) at 100,000 points each:
    /// within the documented errors, and the round trip of every 8-bit value.
    #[allow(
        clippy::disallowed_methods,
        reason = "the test's own f64 reference curve, not a path to pixels"
    )]
    fn srgb_round_trips_and_matches_the_standard_points() {
        assert_eq!(srgb_to_linear(0.0), 0.0);
        assert!((srgb_to_linear(1.0) - 1.0).abs() < 1e-6);
        assert!((srgb_to_linear(0.5) - 0.214_041).abs() < 1e-5);
        assert!((linear_to_srgb(0.214_041) - 0.5).abs() < 1e-5);
        let (mut worst_d, mut worst_e) = (0.0f64, 0.0f64);
        for k in 0..=100_000 {
            let x = k as f64 / 100_000.0;
            let d = if x <= 0.04045 {
                x / 12.92
            } else {
                ((x + 0.055) / 1.055).powf(2.4)
            };
            let e = if x <= 0.003_130_8 {
                x * 12.92
            } else {
                1.055 * x.powf(1.0 / 2.4) - 0.055
            };
            worst_d = worst_d.max((f64::from(srgb_to_linear(x as f32)) - d).abs());
            worst_e = worst_e.max((f64::from(linear_to_srgb(x as f32)) - e).abs());
        }
        assert!(worst_d < 3e-6, "decode {worst_d}");
        assert!(worst_e < 2e-5, "encode {worst_e}");
        for i in 0..=255 {
            let x = i as f32 / 255.0;
            assert!((linear_to_srgb(srgb_to_linear(x)) - x).abs() < 3e-5, "{i}");
        }
    }

    fn tone_maps_keep_black_and_map_bright_into_range() {
        for tm in [ToneMap::AcesFilmic, ToneMap::PbrNeutral] {
            let out = PbrOutput {
                tone_map: tm,
                encoding: OutputEncoding::Linear,
                ..PbrOutput::default()
            };
            assert!(finish(&out, Vec3::ZERO).max_element() < 1e-3, "{tm:?}");
            let hi = finish(&out, Vec3::splat(100.0));
            assert!(hi.min_element() > 0.9 && hi.max_element() <= 1.0, "{tm:?}");
            // Monotonic in brightness.
            let mut last = 0.0;
            for k in 0..100 {
                let y = finish(&out, Vec3::splat(k as f32 * 0.05)).x;
                assert!(y >= last, "{tm:?} at {k}");
                last = y;
            }
        }
        // PBR Neutral leaves dark colours as they are but for the small offset.
        let out = PbrOutput {
            tone_map: ToneMap::PbrNeutral,
            encoding: OutputEncoding::Linear,
            ..PbrOutput::default()
        };
        let c = finish(&out, Vec3::new(0.5, 0.3, 0.2));
        assert!((c - Vec3::new(0.46, 0.26, 0.16)).abs().max_element() < 1e-6);
    }
}
