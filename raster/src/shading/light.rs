//! Fixed-function lighting (OpenGL 1.x / Wild Magic 3, book eq. 3.9), in eye space.
//!
//! One function, [`shade`], serves per-vertex (Gouraud) and per-pixel (Phong) lighting. For
//! many calls with the same state, build a [`PreparedLighting`] once per draw (it normalises
//! directions, takes spot cosines and clamps light colours) and call
//! [`PreparedLighting::shade`]; `shade` is exactly `PreparedLighting::new(state).shade(..)`.
//!
//! # Conventions
//!
//! - Everything is in **eye space** (eye at the origin looking down −z); the caller transforms
//!   light positions and directions.
//! - `direction` (directional and spot lights) is the direction the light **travels**, from
//!   the light into the scene — the book's `U`/`D` and GL's `SPOT_DIRECTION`. A directional
//!   light shining down has `direction = (0, −1, 0)`; GL's `POSITION` for it is `(−direction, 0)`.
//!   Directions need not be unit length (they are normalised; a zero one lights nothing).
//! - Light colours are `clamp(intensity × colour, 0, 1)` (the WM3 renderer's rule). Ambient
//!   lights contribute only their ambient term.
//! - The surface normal is normalised here (so scaled transforms need no care); a zero normal
//!   gives no diffuse or specular light. With `two_sided` and `front == false` it is negated.
//!   Both faces use the one material.
//!
//! # The equation
//!
//! With `N` the unit normal, `V` the vertex, `L` the unit vector from `V` towards the light
//! (`−direction` for directional lights), `E` the unit vector from `V` to the eye (`(0,0,1)`,
//! or `−V/|V|` with `local_viewer`), `H = normalize(L + E)`:
//!
//! ```text
//! primary.rgb = Me + Ma∘G + Σ_i att_i·spot_i·( Ma∘La_i + max(N·L, 0)·Md∘Ld_i + spec_i )
//! spec_i      = (N·L > 0) ? max(N·H, 0)^shininess · Ms∘Ls_i : 0
//! att_i       = 1 / (c + l·d + q·d²), d = |P_i − V|   (point and spot; 1 otherwise;
//!               0 if the denominator is not positive)
//! spot_i      = 0 if (−L)·S < cos(cutoff), else max((−L)·S, 0)^exponent   (S = unit spot
//!               direction; cutoff ≥ 180° means no cone and spot_i = 1)
//! primary.a   = Md.a (the material alpha)
//! ```
//!
//! Two extensions carry glTF's `KHR_lights_punctual` (both off by default, giving GL):
//!
//! ```text
//! smooth cone (Light::spot_inner_deg = inner):  spot_i ·= t²,
//!     t = clamp(((−L)·S − cos(cutoff)) / max(cos(inner) − cos(cutoff), 10⁻³), 0, 1)
//! range (Light::range = R, point and spot):     att_i ·= clamp(1 − (d/R)⁴, 0, 1)²
//! ```
//!
//! `Ma`, `Md` are the material's ambient and diffuse, or the vertex colour with
//! `color_material` (GL `AMBIENT_AND_DIFFUSE`; then the alpha is the vertex alpha too). With
//! `separate_specular` the `spec_i` terms go to [`LitColor::secondary`] (added after
//! texturing) instead of `primary`. Both outputs are clamped to [0, 1]. Sums run in light
//! slot order, so results are deterministic.
//!
//! The book's rule "no lights → the material is ignored and the vertex colour is used" is the
//! caller's decision ([`LightingState::is_lit`]); `shade` always evaluates the equation.

use fearless_simd::{f32x8, prelude::*};
use glam::{Vec3, Vec4};

use crate::base::math::{saturate, saturate3};
use crate::base::vec_lanes::{self as vl, V3, V4};
use crate::base::{error::Error, math};

/// Maximum number of lights (GL's minimum guarantee and WM3's `m_iMaxLights`).
pub const MAX_LIGHTS: usize = 8;

/// The kind of a light and its geometry (eye space).
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "trace", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "trace", serde(rename_all = "snake_case"))]
pub enum LightKind {
    /// Ambient only: contributes `Ma∘La`, no attenuation or cone.
    Ambient,
    /// Infinitely far away; `direction` is where the light travels.
    Directional {
        /// Direction of travel (need not be unit length).
        direction: Vec3,
    },
    /// A point light at `position`.
    Point {
        /// Eye-space position.
        position: Vec3,
    },
    /// A point light restricted to a cone.
    Spot {
        /// Eye-space position.
        position: Vec3,
        /// Cone axis, the direction of travel (need not be unit length).
        direction: Vec3,
        /// Half-angle of the cone in degrees, from the axis (GL `SPOT_CUTOFF`); ≥ 180 means
        /// no cone.
        cutoff_deg: f32,
        /// Falloff exponent (GL `SPOT_EXPONENT`); 0 = uniform inside the cone.
        exponent: f32,
    },
}

/// One light. `Light::new` gives the book's defaults: black colours, intensity 1,
/// attenuation `(1, 0, 0)` (none), on.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "trace", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "trace", serde(deny_unknown_fields))]
pub struct Light {
    /// Kind and geometry.
    pub kind: LightKind,
    /// Ambient colour.
    pub ambient: Vec3,
    /// Diffuse colour.
    pub diffuse: Vec3,
    /// Specular colour.
    pub specular: Vec3,
    /// Multiplies all three colours (the products are clamped to [0, 1]).
    pub intensity: f32,
    /// Constant, linear, quadratic attenuation (point and spot lights only). `(1, 0, 0)` is
    /// no attenuation (the book's `Attenuate = false`).
    pub attenuation: [f32; 3],
    /// Lights that are off are skipped (they still occupy their slot).
    pub on: bool,
    /// Spot lights only, an extension for glTF's `KHR_lights_punctual`: the half-angle in
    /// degrees inside which the cone is at full strength. With `Some(inner)` the cone factor
    /// ramps smoothly from 0 at `cutoff_deg` to 1 at `inner` (see the [module docs](self));
    /// `None` is GL's hard cone.
    pub spot_inner_deg: Option<f32>,
    /// Point and spot lights only, an extension for glTF's `range`: beyond this eye-space
    /// distance the light contributes nothing, with a smooth window before it (see the
    /// [module docs](self)). `None`: unlimited, as in GL.
    pub range: Option<f32>,
}

impl Light {
    /// Whether every number of the light is finite (its range may also be `None`, its inner
    /// cone anything: a non-finite one is ignored).
    pub fn is_finite(&self) -> bool {
        let geometry = match self.kind {
            LightKind::Ambient => true,
            LightKind::Directional { direction } => direction.is_finite(),
            LightKind::Point { position } => position.is_finite(),
            LightKind::Spot {
                position,
                direction,
                cutoff_deg,
                exponent,
            } => {
                position.is_finite()
                    && direction.is_finite()
                    && cutoff_deg.is_finite()
                    && exponent.is_finite()
            }
        };
        geometry
            && self.ambient.is_finite()
            && self.diffuse.is_finite()
            && self.specular.is_finite()
            && self.intensity.is_finite()
            && self.attenuation.iter().all(|x| x.is_finite())
            && self.range.is_none_or(f32::is_finite)
    }

    /// A light of the given kind with the book's defaults.
    pub const fn new(kind: LightKind) -> Light {
        Light {
            kind,
            ambient: Vec3::ZERO,
            diffuse: Vec3::ZERO,
            specular: Vec3::ZERO,
            intensity: 1.0,
            attenuation: [1.0, 0.0, 0.0],
            on: true,
            spot_inner_deg: None,
            range: None,
        }
    }

    /// The same light with the given ambient colour.
    #[must_use]
    pub const fn with_ambient(mut self, c: Vec3) -> Light {
        self.ambient = c;
        self
    }

    /// The same light with the given diffuse colour.
    #[must_use]
    pub const fn with_diffuse(mut self, c: Vec3) -> Light {
        self.diffuse = c;
        self
    }

    /// The same light with the given specular colour.
    #[must_use]
    pub const fn with_specular(mut self, c: Vec3) -> Light {
        self.specular = c;
        self
    }

    /// The same light with the given intensity.
    #[must_use]
    pub const fn with_intensity(mut self, intensity: f32) -> Light {
        self.intensity = intensity;
        self
    }

    /// The same light with the given constant, linear, quadratic attenuation.
    #[must_use]
    pub const fn with_attenuation(mut self, attenuation: [f32; 3]) -> Light {
        self.attenuation = attenuation;
        self
    }
}

/// Surface material. `Default` is the book's `MaterialState`: emissive 0, ambient 0.2,
/// diffuse 0.8, specular 0, shininess 1, alpha 1.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "trace", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "trace", serde(deny_unknown_fields))]
pub struct Material {
    /// Emitted colour `Me`.
    pub emissive: Vec3,
    /// Ambient reflectance `Ma`.
    pub ambient: Vec3,
    /// Diffuse reflectance `Md`.
    pub diffuse: Vec3,
    /// Specular reflectance `Ms`.
    pub specular: Vec3,
    /// Specular exponent.
    pub shininess: f32,
    /// The lit alpha (GL's diffuse alpha).
    pub alpha: f32,
}

impl Material {
    /// The book's defaults.
    pub const DEFAULT: Material = Material {
        emissive: Vec3::ZERO,
        ambient: Vec3::splat(0.2),
        diffuse: Vec3::splat(0.8),
        specular: Vec3::ZERO,
        shininess: 1.0,
        alpha: 1.0,
    };
}

impl Default for Material {
    fn default() -> Material {
        Material::DEFAULT
    }
}

/// Everything lighting needs. Plain data; `Default` is no lights, the default material,
/// black global ambient (WM3's GL renderer; GL's own default is 0.2), infinite viewer,
/// one-sided, no colour material, specular in the primary colour.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "trace", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "trace", serde(deny_unknown_fields))]
pub struct LightingState {
    /// Up to [`MAX_LIGHTS`] lights, by slot.
    pub lights: [Option<Light>; MAX_LIGHTS],
    /// The material.
    pub material: Material,
    /// Global ambient light `G`.
    pub global_ambient: Vec3,
    /// Eye vector from the vertex to the eye (`true`) or the constant `(0, 0, 1)`.
    pub local_viewer: bool,
    /// Back faces are lit with the negated normal.
    pub two_sided: bool,
    /// The vertex colour replaces the material's ambient and diffuse (and alpha).
    pub color_material: bool,
    /// Specular goes to [`LitColor::secondary`], added after texturing.
    pub separate_specular: bool,
}

impl LightingState {
    /// No lights, default material (see the type docs).
    pub const DEFAULT: LightingState = LightingState {
        lights: [None; MAX_LIGHTS],
        material: Material::DEFAULT,
        global_ambient: Vec3::ZERO,
        local_viewer: false,
        two_sided: false,
        color_material: false,
        separate_specular: false,
    };

    /// Puts `light` in the first free slot and returns the slot index.
    ///
    /// # Errors
    /// [`Error::TooMany`] if all [`MAX_LIGHTS`] slots are taken.
    pub fn push_light(&mut self, light: Light) -> Result<usize, Error> {
        match self.lights.iter().position(Option::is_none) {
            Some(i) => {
                self.lights[i] = Some(light);
                Ok(i)
            }
            None => Err(Error::TooMany {
                what: "lights",
                max: MAX_LIGHTS,
                actual: MAX_LIGHTS + 1,
            }),
        }
    }

    /// Whether any slot holds a light (on or off): the book's condition for lighting to be
    /// enabled at all.
    pub fn is_lit(&self) -> bool {
        self.lights.iter().any(Option::is_some)
    }
}

impl Default for LightingState {
    fn default() -> LightingState {
        LightingState::DEFAULT
    }
}

/// The result of lighting.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LitColor {
    /// Colour fed to texturing (RGBA, clamped).
    pub primary: Vec4,
    /// Specular colour added after texturing (zero unless `separate_specular`; clamped).
    pub secondary: Vec3,
}

/// A light with everything per-draw precomputed: what [`PreparedLighting::shade`] reads, and
/// what a backend that evaluates the lighting equation elsewhere (plumb-wgpu's shader)
/// uploads, so both start from the same numbers.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PreparedLight {
    /// [`PreparedLight::AMBIENT`], [`DIRECTIONAL`](PreparedLight::DIRECTIONAL),
    /// [`POINT`](PreparedLight::POINT) or [`SPOT`](PreparedLight::SPOT).
    pub kind: u8,
    /// Directional: unit vector towards the light. Point/spot: position.
    pub vector: Vec3,
    /// Spot: unit axis.
    pub spot_dir: Vec3,
    /// Spot: cosine of the cutoff (through [`math::cos`]); `None` = no cone.
    pub spot_cos: Option<f32>,
    /// Spot: the exponent of `cos`; 0 otherwise.
    pub spot_exponent: f32,
    /// Spot: the smooth edge as `t = cos·scale + offset` (glTF), if any.
    pub spot_smooth: Option<(f32, f32)>,
    /// Point / spot: `1 / range`, if any.
    pub inv_range: Option<f32>,
    /// `intensity × ambient`, clamped to 0..1.
    pub ambient: Vec3,
    /// `intensity × diffuse`, clamped (zero for an ambient light).
    pub diffuse: Vec3,
    /// `intensity × specular`, clamped (zero for an ambient light).
    pub specular: Vec3,
    /// Constant, linear and quadratic attenuation (`[1, 0, 0]` unless point or spot).
    pub attenuation: [f32; 3],
}

impl PreparedLight {
    /// `l` compiled (whether it is on is the caller's test): directions normalised,
    /// `intensity × colour` clamped, the spot cosines taken (via [`math::cos`]).
    pub fn new(l: &Light) -> PreparedLight {
        let mut p = UNUSED;
        p.ambient = saturate3(l.ambient * l.intensity);
        match l.kind {
            LightKind::Ambient => p.kind = KIND_AMBIENT,
            LightKind::Directional { direction } => {
                p.kind = KIND_DIRECTIONAL;
                p.vector = -direction.normalize_or_zero();
            }
            LightKind::Point { position } => {
                p.kind = KIND_POINT;
                p.vector = position;
            }
            LightKind::Spot {
                position,
                direction,
                cutoff_deg,
                exponent,
            } => {
                p.kind = KIND_SPOT;
                p.vector = position;
                p.spot_dir = direction.normalize_or_zero();
                p.spot_cos = (cutoff_deg < 180.0).then(|| math::cos(math::to_radians(cutoff_deg)));
                p.spot_exponent = exponent;
                p.spot_smooth = match (p.spot_cos, l.spot_inner_deg) {
                    (Some(cos_outer), Some(inner)) if inner.is_finite() => {
                        let cos_inner = math::cos(math::to_radians(inner.min(cutoff_deg)));
                        let scale = 1.0 / (cos_inner - cos_outer).max(1e-3);
                        Some((scale, -cos_outer * scale))
                    }
                    _ => None,
                };
            }
        }
        if p.kind != KIND_AMBIENT {
            p.diffuse = saturate3(l.diffuse * l.intensity);
            p.specular = saturate3(l.specular * l.intensity);
        }
        if p.kind == KIND_POINT || p.kind == KIND_SPOT {
            p.attenuation = l.attenuation;
            p.inv_range = l
                .range
                .filter(|r| *r > 0.0 && r.is_finite())
                .map(|r| 1.0 / r);
        }
        p
    }
}

impl PreparedLight {
    /// The unit vector from `pos_eye` towards the light and the light's attenuation × spot
    /// factor there (1 for a directional light): [`PreparedLighting::shade`]'s expressions.
    pub(crate) fn towards(&self, pos_eye: Vec3) -> (Vec3, f32) {
        let l = self;
        if l.kind == KIND_DIRECTIONAL {
            return (l.vector, 1.0);
        }
        let d = l.vector - pos_eye;
        let dist = d.length();
        let to_light = d.normalize_or_zero();
        let [c, lin, q] = l.attenuation;
        let denom = c + lin * dist + q * (dist * dist);
        let mut factor = if denom > 0.0 { 1.0 / denom } else { 0.0 };
        if let Some(cos_cut) = l.spot_cos {
            let cos_a = -to_light.dot(l.spot_dir);
            factor *= if cos_a < cos_cut {
                0.0
            } else {
                math::powf(cos_a.max(0.0), l.spot_exponent)
            };
            if let Some((scale, offset)) = l.spot_smooth {
                let t = (cos_a * scale + offset).clamp(0.0, 1.0);
                factor *= t * t;
            }
        }
        if let Some(inv) = l.inv_range {
            let r = dist * inv;
            let w = (1.0 - (r * r) * (r * r)).clamp(0.0, 1.0);
            factor *= w * w;
        }
        (to_light, factor)
    }
}

const KIND_AMBIENT: u8 = PreparedLight::AMBIENT;
const KIND_DIRECTIONAL: u8 = PreparedLight::DIRECTIONAL;
const KIND_POINT: u8 = PreparedLight::POINT;
const KIND_SPOT: u8 = PreparedLight::SPOT;

impl PreparedLight {
    /// [`PreparedLight::kind`] of an ambient light.
    pub const AMBIENT: u8 = 0;
    /// [`PreparedLight::kind`] of a directional light.
    pub const DIRECTIONAL: u8 = 1;
    /// [`PreparedLight::kind`] of a point light.
    pub const POINT: u8 = 2;
    /// [`PreparedLight::kind`] of a spot light.
    pub const SPOT: u8 = 3;
}

const UNUSED: PreparedLight = PreparedLight {
    kind: KIND_AMBIENT,
    vector: Vec3::ZERO,
    spot_dir: Vec3::ZERO,
    spot_cos: None,
    spot_exponent: 0.0,
    spot_smooth: None,
    inv_range: None,
    ambient: Vec3::ZERO,
    diffuse: Vec3::ZERO,
    specular: Vec3::ZERO,
    attenuation: [1.0, 0.0, 0.0],
};

/// A [`LightingState`] compiled for many [`shade`](PreparedLighting::shade) calls.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PreparedLighting {
    lights: [PreparedLight; MAX_LIGHTS],
    count: usize,
    material: Material,
    global_ambient: Vec3,
    local_viewer: bool,
    two_sided: bool,
    color_material: bool,
    separate_specular: bool,
}

impl PreparedLighting {
    /// Compiles `state`: drops lights that are off (keeping slot order), normalises
    /// directions, clamps `intensity × colour`, takes the spot cosines (via [`math::cos`]).
    pub fn new(state: &LightingState) -> PreparedLighting {
        let mut lights = [UNUSED; MAX_LIGHTS];
        let mut count = 0;
        for l in state.lights.iter().flatten().filter(|l| l.on) {
            lights[count] = PreparedLight::new(l);
            count += 1;
        }
        PreparedLighting {
            lights,
            count,
            material: state.material,
            global_ambient: state.global_ambient,
            local_viewer: state.local_viewer,
            two_sided: state.two_sided,
            color_material: state.color_material,
            separate_specular: state.separate_specular,
        }
    }

    /// The lights that are on, in slot order.
    pub fn lights(&self) -> &[PreparedLight] {
        &self.lights[..self.count]
    }

    /// The material.
    pub fn material(&self) -> &Material {
        &self.material
    }

    /// The global ambient light.
    pub fn global_ambient(&self) -> Vec3 {
        self.global_ambient
    }

    /// The state's `local_viewer`, `two_sided`, `color_material` and `separate_specular`,
    /// in that order.
    pub fn flags(&self) -> [bool; 4] {
        [
            self.local_viewer,
            self.two_sided,
            self.color_material,
            self.separate_specular,
        ]
    }

    /// Evaluates the lighting equation (module docs) at eye-space `pos_eye` with normal
    /// `normal_eye` (normalised here). `vertex_color` is only read with `color_material`;
    /// `front` only with `two_sided`.
    pub fn shade(
        &self,
        pos_eye: Vec3,
        normal_eye: Vec3,
        vertex_color: Vec4,
        front: bool,
    ) -> LitColor {
        let m = &self.material;
        let mut n = normal_eye.normalize_or_zero();
        if self.two_sided && !front {
            n = -n;
        }
        let (m_amb, m_dif, alpha) = if self.color_material {
            (
                vertex_color.truncate(),
                vertex_color.truncate(),
                vertex_color.w,
            )
        } else {
            (m.ambient, m.diffuse, m.alpha)
        };
        let eye = if self.local_viewer {
            (-pos_eye).normalize_or_zero()
        } else {
            Vec3::Z
        };
        let mut color = m.emissive + m_amb * self.global_ambient;
        let mut spec = Vec3::ZERO;
        for l in &self.lights[..self.count] {
            if l.kind == KIND_AMBIENT {
                color += m_amb * l.ambient;
                continue;
            }
            let (to_light, factor) = l.towards(pos_eye);
            let ndotl = n.dot(to_light);
            let mut term = m_amb * l.ambient;
            if ndotl > 0.0 {
                term += ndotl * (m_dif * l.diffuse);
                let ms_ls = m.specular * l.specular;
                if ms_ls != Vec3::ZERO {
                    let h = (to_light + eye).normalize_or_zero();
                    let ndoth = n.dot(h).max(0.0);
                    spec += factor * (math::powf(ndoth, m.shininess) * ms_ls);
                }
            }
            color += factor * term;
        }
        if self.separate_specular {
            LitColor {
                primary: saturate3(color).extend(saturate(alpha)),
                secondary: saturate3(spec),
            }
        } else {
            LitColor {
                primary: saturate3(color + spec).extend(saturate(alpha)),
                secondary: Vec3::ZERO,
            }
        }
    }
}

impl PreparedLighting {
    /// [`PreparedLighting::shade`] of eight points at once (structure of arrays): every lane
    /// is the scalar function's result, bit for bit, at every SIMD level (the same
    /// operations in the same order; `ndotl > 0` as a select; the spot, range and specular
    /// powers by the scalar expressions per lane). Returns the primary RGBA and the
    /// secondary RGB.
    ///
    /// Not inlined (one copy per SIMD level, entered through `vectorize` so it keeps the
    /// level's target features): it has three call sites (the vertex stage's front and back
    /// faces, per-pixel lighting), and inlined at each it cost plumb-raster's build more than
    /// the call costs at run time (one call per eight vertices or pixels).
    #[inline(never)]
    pub(crate) fn shade_lanes<S: Simd>(
        &self,
        simd: S,
        pos_eye: V3<S>,
        normal_eye: V3<S>,
        vertex_color: V4<S>,
        front: bool,
    ) -> (V4<S>, V3<S>) {
        simd.vectorize(
            #[inline(always)]
            || self.shade_lanes_inline(simd, pos_eye, normal_eye, vertex_color, front),
        )
    }

    #[inline(always)]
    fn shade_lanes_inline<S: Simd>(
        &self,
        simd: S,
        pos_eye: V3<S>,
        normal_eye: V3<S>,
        vertex_color: V4<S>,
        front: bool,
    ) -> (V4<S>, V3<S>) {
        let m = &self.material;
        let zero = simd.splat_f32x8(0.0);
        let one = simd.splat_f32x8(1.0);
        let mut n = vl::normalize_or_zero3(simd, normal_eye);
        if self.two_sided && !front {
            n = vl::neg3(n);
        }
        let (m_amb, m_dif, alpha) = if self.color_material {
            let rgb = [vertex_color[0], vertex_color[1], vertex_color[2]];
            (rgb, rgb, vertex_color[3])
        } else {
            (
                vl::splat3(simd, m.ambient),
                vl::splat3(simd, m.diffuse),
                simd.splat_f32x8(m.alpha),
            )
        };
        let eye = if self.local_viewer {
            vl::normalize_or_zero3(simd, vl::neg3(pos_eye))
        } else {
            [zero, zero, one]
        };
        let mut color = vl::add3(
            vl::splat3(simd, m.emissive),
            vl::mul3(m_amb, vl::splat3(simd, self.global_ambient)),
        );
        let mut spec = [zero; 3];
        for l in &self.lights[..self.count] {
            if l.kind == KIND_AMBIENT {
                color = vl::add3(color, vl::mul3(m_amb, vl::splat3(simd, l.ambient)));
                continue;
            }
            let (to_light, factor) = if l.kind == KIND_DIRECTIONAL {
                (vl::splat3(simd, l.vector), one)
            } else {
                l.attenuation_lanes(simd, pos_eye)
            };
            let ndotl = vl::dot3(n, to_light);
            let lit = ndotl.simd_gt(zero);
            let ambient = vl::mul3(m_amb, vl::splat3(simd, l.ambient));
            let diffuse = vl::add3(
                ambient,
                vl::scale3(ndotl, vl::mul3(m_dif, vl::splat3(simd, l.diffuse))),
            );
            let term = vl::select3(lit, diffuse, ambient);
            let ms_ls = m.specular * l.specular;
            if ms_ls != Vec3::ZERO {
                let h = vl::normalize_or_zero3(simd, vl::add3(to_light, eye));
                let shininess = m.shininess;
                let p = vl::per_lane(simd, vl::dot3(n, h), |x| math::powf(x.max(0.0), shininess));
                let s = vl::add3(
                    spec,
                    vl::scale3(factor, vl::scale3(p, vl::splat3(simd, ms_ls))),
                );
                spec = vl::select3(lit, s, spec);
            }
            color = vl::add3(color, vl::scale3(factor, term));
        }
        let alpha = vl::sat(simd, alpha);
        if self.separate_specular {
            let [r, g, b] = vl::sat3(simd, color);
            ([r, g, b, alpha], vl::sat3(simd, spec))
        } else {
            let [r, g, b] = vl::sat3(simd, vl::add3(color, spec));
            ([r, g, b, alpha], [zero; 3])
        }
    }
}

impl PreparedLight {
    /// The unit vector towards a point or spot light and its attenuation × spot factor, in
    /// lanes: `shade`'s expressions, the spot and range terms per lane.
    #[inline(always)]
    pub(crate) fn attenuation_lanes<S: Simd>(&self, simd: S, pos_eye: V3<S>) -> (V3<S>, f32x8<S>) {
        let zero = simd.splat_f32x8(0.0);
        let d = vl::sub3(vl::splat3(simd, self.vector), pos_eye);
        let dist = vl::length3(d);
        let to_light = vl::normalize_or_zero3(simd, d);
        let [c, lin, q] = self.attenuation;
        let (c, lin, q) = (
            simd.splat_f32x8(c),
            simd.splat_f32x8(lin),
            simd.splat_f32x8(q),
        );
        let denom = c + lin * dist + q * (dist * dist);
        let mut factor = denom
            .simd_gt(zero)
            .select(simd.splat_f32x8(1.0) / denom, zero);
        if let Some(cos_cut) = self.spot_cos {
            let cos_a = -vl::dot3(to_light, vl::splat3(simd, self.spot_dir));
            let e = self.spot_exponent;
            let spot = vl::per_lane(simd, cos_a, |x| {
                if x < cos_cut {
                    0.0
                } else {
                    math::powf(x.max(0.0), e)
                }
            });
            factor *= spot;
            if let Some((scale, offset)) = self.spot_smooth {
                let t = vl::per_lane(simd, cos_a, |x| (x * scale + offset).clamp(0.0, 1.0));
                factor *= t * t;
            }
        }
        if let Some(inv) = self.inv_range {
            let w = vl::per_lane(simd, dist, |dist| {
                let r = dist * inv;
                (1.0 - (r * r) * (r * r)).clamp(0.0, 1.0)
            });
            factor *= w * w;
        }
        (to_light, factor)
    }
}

/// Lights one point: [`PreparedLighting::new`]`(state).shade(..)`. See the module docs for
/// the equation and conventions. Prefer a [`PreparedLighting`] per draw in loops.
///
/// ```
/// use glam::{Vec3, Vec4};
/// use plumb_raster::light::{shade, Light, LightKind, LightingState, Material};
/// let mut s = LightingState::default();
/// s.material = Material { ambient: Vec3::ZERO, diffuse: Vec3::ONE, ..Material::DEFAULT };
/// // Light travelling straight down onto an upward normal: full diffuse.
/// let down = LightKind::Directional { direction: Vec3::NEG_Y };
/// s.push_light(Light::new(down).with_diffuse(Vec3::splat(0.5))).unwrap();
/// let c = shade(&s, Vec3::ZERO, Vec3::Y, Vec4::ONE, true);
/// assert_eq!(c.primary, Vec4::new(0.5, 0.5, 0.5, 1.0));
/// ```
pub fn shade(
    state: &LightingState,
    pos_eye: Vec3,
    normal_eye: Vec3,
    vertex_color: Vec4,
    front: bool,
) -> LitColor {
    PreparedLighting::new(state).shade(pos_eye, normal_eye, vertex_color, front)
}
