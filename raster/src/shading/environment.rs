//! Image-based light for the PBR stage: an environment map of linear radiance made, once,
//! into what a pixel reads — a diffuse irradiance as nine spherical-harmonic coefficients
//! and a chain of GGX-prefiltered radiance maps, one per roughness step — and the lookups.
//!
//! # Layout
//!
//! Equirectangular, as three.js reads it: row 0 is the top (+Y), the centre column faces +X,
//! and +Z is a quarter turn right of it. A world direction `d` maps to
//! `u = atan2(d.z, d.x)/2π + ½` (columns, wrapping) and `v = ½ − asin(d.y)/π` (rows,
//! clamped); the map is in world space, so a draw gives the rotation from its eye space
//! ([`PbrEnvironment::world_from_eye`]).
//!
//! # What is computed, deterministically
//!
//! Every sum runs in a fixed order (rows, then columns, then samples) in `f64` where it
//! accumulates, and every transcendental goes through [`math`], so the same map gives the
//! same bits on every machine, thread count and SIMD level.
//!
//! - **Diffuse**: the radiance projected on the real spherical harmonics of order 2, each
//!   texel weighted by its exact solid angle, then convolved with the clamped cosine (Ramamoorthi
//!   and Hanrahan's `π, 2π/3, π/4`) and divided by π: [`Environment::diffuse`] is the
//!   cosine-weighted mean radiance around a normal (for a constant map, that constant).
//! - **Specular**: [`LEVELS`] maps for perceptual roughness `k/(LEVELS − 1)`. Level 0 is the
//!   map itself (box-filtered to at most [`BASE_WIDTH`] columns); level `k` has half the
//!   previous level's size (at least 16 × 8) and each texel integrates the map around its
//!   direction `R` under the GGX lobe with `N = V = R` (the split sum's assumption), at
//!   [`SAMPLES`] Hammersley points, each read from the source's box-filtered mip chain at
//!   the level its sample's solid angle covers (filtered importance sampling), weighted by
//!   `N·L`. [`Environment::specular`] reads the two levels around the roughness and blends
//!   them, each bilinear.
//!
//! The PBR stage (`super::pbr`) combines them with its split-sum table and Fdez-Agüera's
//! multiple-scattering terms: `FssEss` times the specular radiance, `FmsEms` and `k_D` times
//! the diffuse.

use std::sync::Arc;

use glam::{Mat3, Vec3};

use crate::base::error::Error;
use crate::base::math;

/// Roughness steps of the specular chain (roughness `0, 0.2, …, 1`).
pub const LEVELS: usize = 6;
/// Columns of the chain's level 0 at most (a wider map is box-filtered down first).
pub const BASE_WIDTH: u32 = 256;
/// GGX samples per prefiltered texel.
pub const SAMPLES: u32 = 64;
/// The smallest `α²` of the GGX lobe, here and in the BRDF (`pbr`): a roughness of 0 gives
/// a very small, very bright lobe instead of `0 / 0`.
pub const MIN_ALPHA2: f32 = 1e-6;
/// Largest map [`Environment::from_equirect`] takes: 16384 × 8192 texels.
pub const MAX_TEXELS: u64 = 16384 * 8192;

/// One equirectangular map of linear RGB radiance.
#[derive(Clone, Debug, PartialEq)]
struct Equirect {
    width: u32,
    height: u32,
    texels: Vec<Vec3>,
}

impl Equirect {
    fn at(&self, x: u32, y: u32) -> Vec3 {
        self.texels[(y * self.width + x) as usize]
    }

    /// Half the size (at least 1 × 1), each texel the mean of the 2 × 2 (or fewer) it covers.
    fn half(&self) -> Equirect {
        let (w, h) = ((self.width / 2).max(1), (self.height / 2).max(1));
        let mut texels = Vec::with_capacity((w * h) as usize);
        for y in 0..h {
            for x in 0..w {
                let (x0, y0) = (2 * x, 2 * y);
                let x1 = (x0 + 1).min(self.width - 1);
                let y1 = (y0 + 1).min(self.height - 1);
                let s = self.at(x0, y0) + self.at(x1, y0) + self.at(x0, y1) + self.at(x1, y1);
                texels.push(s * 0.25);
            }
        }
        Equirect {
            width: w,
            height: h,
            texels,
        }
    }

    /// Bilinear at the direction `d` (unit, world space): columns wrap, rows clamp.
    fn sample(&self, d: Vec3) -> Vec3 {
        self.sample_uv(uv_of(d))
    }

    /// Bilinear at `(u, v)` ([`uv_of`]).
    fn sample_uv(&self, (u, v): (f32, f32)) -> Vec3 {
        let fx = u * self.width as f32 - 0.5;
        let fy = (v * self.height as f32 - 0.5).clamp(0.0, (self.height - 1) as f32);
        let (x0, y0) = (fx.floor(), fy.floor());
        let (tx, ty) = (fx - x0, fy - y0);
        let w = self.width as i64;
        let col = |x: i64| x.rem_euclid(w) as u32;
        let (xa, xb) = (col(x0 as i64), col(x0 as i64 + 1));
        let ya = y0 as u32;
        let yb = (ya + 1).min(self.height - 1);
        let top = self.at(xa, ya).lerp(self.at(xb, ya), tx);
        let bottom = self.at(xa, yb).lerp(self.at(xb, yb), tx);
        top.lerp(bottom, ty)
    }
}

/// `(u, v)` of a unit direction (module docs).
fn uv_of(d: Vec3) -> (f32, f32) {
    let u = math::atan2(d.z, d.x) * (0.5 / core::f32::consts::PI) + 0.5;
    let v = 0.5 - math::asin(d.y.clamp(-1.0, 1.0)) / core::f32::consts::PI;
    (u, v)
}

/// The unit direction through the centre of texel `(x, y)` of a `w × h` map, and the
/// cosine of its latitude.
fn direction_of(x: u32, y: u32, w: u32, h: u32) -> (Vec3, f32) {
    let phi = ((x as f32 + 0.5) / w as f32 - 0.5) * core::f32::consts::TAU;
    let lat = (0.5 - (y as f32 + 0.5) / h as f32) * core::f32::consts::PI;
    let (sl, cl) = math::sin_cos(lat);
    let (sp, cp) = math::sin_cos(phi);
    (Vec3::new(cl * cp, sl, cl * sp), cl)
}

/// The nine real spherical harmonics of order ≤ 2 at a unit direction.
fn sh_basis(d: Vec3) -> [f32; 9] {
    let (x, y, z) = (d.x, d.y, d.z);
    [
        0.282_095,
        0.488_603 * y,
        0.488_603 * z,
        0.488_603 * x,
        1.092_548 * x * y,
        1.092_548 * y * z,
        0.315_392 * (3.0 * z * z - 1.0),
        1.092_548 * x * z,
        0.546_274 * (x * x - y * y),
    ]
}

/// An environment ready for the PBR stage (module docs).
#[derive(Clone, Debug, PartialEq)]
pub struct Environment {
    /// Cosine-convolved SH coefficients over π: `diffuse(n) = Σ sh[k]·Y_k(n)`.
    sh: [Vec3; 9],
    /// The specular chain, roughness `k/(LEVELS − 1)`.
    levels: Vec<Equirect>,
}

impl Environment {
    /// Builds an environment from an equirectangular map of linear radiance, `width × height`
    /// texels, row 0 the top.
    ///
    /// # Errors
    /// [`Error::Texture`] for an empty map, a texel count other than `width × height`,
    /// more than [`MAX_TEXELS`], or a texel that is not finite and ≥ 0.
    pub fn from_equirect(width: u32, height: u32, texels: Vec<Vec3>) -> Result<Environment, Error> {
        let n = u64::from(width) * u64::from(height);
        if width == 0 || height == 0 || n > MAX_TEXELS || texels.len() as u64 != n {
            return Err(Error::Texture(format!(
                "environment map {width}x{height} with {} texels: expected width × height texels, \
                 at most {MAX_TEXELS}",
                texels.len()
            )));
        }
        if let Some(i) = texels
            .iter()
            .position(|t| !(t.is_finite() && t.min_element() >= 0.0))
        {
            return Err(Error::Texture(format!(
                "environment map texel {i} is {:?}: radiance must be finite and not negative",
                texels[i]
            )));
        }
        let mut base = Equirect {
            width,
            height,
            texels,
        };
        while base.width > BASE_WIDTH {
            base = base.half();
        }
        let sh = project_sh(&base);
        // The source's mip chain, for filtered importance sampling.
        let mut chain = vec![base];
        while chain.last().is_some_and(|m| m.width > 1 || m.height > 1) {
            let next = chain[chain.len() - 1].half();
            chain.push(next);
        }
        let mut levels = vec![chain[0].clone()];
        for k in 1..LEVELS {
            let prev = &levels[k - 1];
            let (w, h) = ((prev.width / 2).max(16), (prev.height / 2).max(8));
            let r = k as f32 / (LEVELS - 1) as f32;
            levels.push(prefilter(&chain, w, h, r));
        }
        Ok(Environment { sh, levels })
    }

    /// A constant environment of radiance `c` (what the uniform ambient light is, exactly).
    ///
    /// # Errors
    /// As [`Environment::from_equirect`].
    pub fn uniform(c: Vec3) -> Result<Environment, Error> {
        Environment::from_equirect(16, 8, vec![c; 128])
    }

    /// A neutral studio, generated: a soft grey dome brighter overhead, a darker floor, a
    /// large key light above and to the left of +Z, a fill to the right and a rim behind, so
    /// that metals have something to reflect. Radiance up to about 6, mean about 0.5.
    /// Prepared once per process; every call shares it.
    pub fn studio() -> Arc<Environment> {
        static STUDIO: std::sync::OnceLock<Arc<Environment>> = std::sync::OnceLock::new();
        let studio = STUDIO.get_or_init(|| {
            let (w, h) = (256u32, 128u32);
            let mut texels = Vec::with_capacity((w * h) as usize);
            for y in 0..h {
                for x in 0..w {
                    let (d, _) = direction_of(x, y, w, h);
                    texels.push(studio_radiance(d));
                }
            }
            Arc::new(Environment::from_equirect(w, h, texels).expect("the studio map is valid"))
        });
        Arc::clone(studio)
    }

    /// The prepared diffuse term: nine spherical-harmonic coefficients (cosine-convolved,
    /// over π) in the order `1, y, z, x, xy, yz, 3z² − 1, xz, x² − y²` (real SH, order ≤ 2),
    /// so [`Environment::diffuse`] is `max(Σ sh[k]·Y_k(n), 0)`. For a backend that evaluates
    /// the lookups itself (plumb-wgpu uploads these).
    pub fn sh(&self) -> &[Vec3; 9] {
        &self.sh
    }

    /// Level `k` of the specular chain (perceptual roughness `k/(LEVELS − 1)`): width,
    /// height and texels, row 0 the top; `None` past [`LEVELS`]. [`Environment::specular`]
    /// reads it bilinearly at texel centres, columns wrapping and rows clamped.
    pub fn level(&self, k: usize) -> Option<(u32, u32, &[Vec3])> {
        self.levels
            .get(k)
            .map(|l| (l.width, l.height, l.texels.as_slice()))
    }

    /// The cosine-weighted mean radiance around the unit world normal `n`.
    pub fn diffuse(&self, n: Vec3) -> Vec3 {
        let y = sh_basis(n);
        let mut out = Vec3::ZERO;
        for (c, b) in self.sh.iter().zip(y) {
            out += *c * b;
        }
        out.max(Vec3::ZERO)
    }

    /// The prefiltered radiance along the unit world direction `r` at perceptual roughness
    /// `roughness` (clamped to 0..1).
    pub fn specular(&self, r: Vec3, roughness: f32) -> Vec3 {
        let f = math::saturate(roughness) * (LEVELS - 1) as f32;
        let k = (f as usize).min(LEVELS - 2);
        let t = f - k as f32;
        // One direction, so its (u, v) once for both levels.
        let uv = uv_of(r);
        let a = self.levels[k].sample_uv(uv);
        let b = self.levels[k + 1].sample_uv(uv);
        a.lerp(b, t)
    }
}

/// Radiance of the built-in studio along the unit direction `d`.
fn studio_radiance(d: Vec3) -> Vec3 {
    // Dome: 0.6 overhead, 0.35 at the horizon, a 0.12 floor below a soft horizon line.
    let up = d.y;
    let dome = if up >= 0.0 {
        0.35 + 0.25 * up
    } else {
        0.12 + 0.23 * (1.0 + up * 8.0).max(0.0)
    };
    // Soft box lights: (direction, half-angle's cosine, radiance).
    let boxes = [
        (Vec3::new(-0.5, 0.6, 0.62), 0.93, 6.0),
        (Vec3::new(0.8, 0.25, 0.55), 0.95, 2.5),
        (Vec3::new(0.0, 0.35, -0.94), 0.97, 3.0),
    ];
    let mut l = dome;
    for (dir, cos_edge, radiance) in boxes {
        let c = d.dot(dir.normalize());
        // Full inside, a smooth edge over 0.01 of cosine.
        let t = math::saturate((c - cos_edge) / 0.01);
        l += radiance * t * t * (3.0 - 2.0 * t);
    }
    Vec3::splat(l)
}

/// The SH coefficients of `map`'s radiance, convolved with the clamped cosine and over π.
fn project_sh(map: &Equirect) -> [Vec3; 9] {
    // A small map is integrated on a finer grid of the same piecewise-constant function
    // (each texel split k × k), so the quadrature's error stays that of 64 rows or more.
    let k = 64u32.div_ceil(map.height).max(1);
    let fine;
    let map = if k > 1 {
        let (w, h) = (map.width * k, map.height * k);
        fine = Equirect {
            width: w,
            height: h,
            texels: (0..h)
                .flat_map(|y| (0..w).map(move |x| (x / k, y / k)))
                .map(|(x, y)| map.at(x, y))
                .collect(),
        };
        &fine
    } else {
        map
    };
    let mut acc = [[0.0f64; 3]; 9];
    let (w_f, h_f) = (f64::from(map.width), f64::from(map.height));
    // A texel's exact solid angle: (2π/w)·(sin of its top latitude − sin of its bottom's),
    // so the weights sum to 4π and a constant map projects exactly.
    let sin_lat = |row: u32| math::sin_f64((0.5 - f64::from(row) / h_f) * core::f64::consts::PI);
    for y in 0..map.height {
        let w = core::f64::consts::TAU / w_f * (sin_lat(y) - sin_lat(y + 1));
        for x in 0..map.width {
            let (d, _) = direction_of(x, y, map.width, map.height);
            let l = map.at(x, y);
            for (a, b) in acc.iter_mut().zip(sh_basis(d)) {
                let s = w * f64::from(b);
                a[0] += s * f64::from(l.x);
                a[1] += s * f64::from(l.y);
                a[2] += s * f64::from(l.z);
            }
        }
    }
    // Ramamoorthi–Hanrahan: A0 = π, A1 = 2π/3, A2 = π/4; over π.
    let band = [
        1.0,
        2.0 / 3.0,
        2.0 / 3.0,
        2.0 / 3.0,
        0.25,
        0.25,
        0.25,
        0.25,
        0.25,
    ];
    let mut sh = [Vec3::ZERO; 9];
    for k in 0..9 {
        sh[k] = Vec3::new(
            (acc[k][0] * band[k]) as f32,
            (acc[k][1] * band[k]) as f32,
            (acc[k][2] * band[k]) as f32,
        );
    }
    sh
}

/// A `w × h` level of the specular chain at perceptual roughness `r` (module docs).
fn prefilter(chain: &[Equirect], w: u32, h: u32, r: f32) -> Equirect {
    let a = r * r;
    let a2 = (a * a).max(MIN_ALPHA2);
    let base = &chain[0];
    // Solid angle of one texel of the base level at the equator.
    let texel_omega =
        (core::f32::consts::TAU / base.width as f32) * (core::f32::consts::PI / base.height as f32);
    let mut texels = Vec::with_capacity((w * h) as usize);
    for y in 0..h {
        for x in 0..w {
            let (n, _) = direction_of(x, y, w, h);
            // A frame around n.
            let up = if n.y.abs() < 0.999 { Vec3::Y } else { Vec3::X };
            let tx = up.cross(n).normalize();
            let ty = n.cross(tx);
            let (mut sum, mut weight) = (glam::DVec3::ZERO, 0.0f64);
            for k in 0..SAMPLES {
                let u1 = (k as f32 + 0.5) / SAMPLES as f32;
                let u2 = k.reverse_bits() as f32 * (1.0 / 4_294_967_296.0);
                let (sp, cp) = math::sin_cos(core::f32::consts::TAU * u1);
                let ct = ((1.0 - u2) / (1.0 + (a2 - 1.0) * u2)).sqrt();
                let st = (1.0 - ct * ct).max(0.0).sqrt();
                let hv = tx * (st * cp) + ty * (st * sp) + n * ct;
                let l = hv * (2.0 * n.dot(hv)) - n;
                let n_l = n.dot(l);
                if n_l <= 0.0 {
                    continue;
                }
                // pdf of l (N = V): D·(N·H)/(4·V·H) = D/4; the sample's solid angle 1/(S·pdf).
                let q = ct * ct * (a2 - 1.0) + 1.0;
                let d = a2 / (core::f32::consts::PI * q * q);
                let omega = 4.0 / (SAMPLES as f32 * d.max(1e-12));
                let lod = (0.5 * math::log2(omega / texel_omega)).max(0.0);
                let level = (lod.round() as usize).min(chain.len() - 1);
                let c = chain[level].sample(l.normalize());
                sum += glam::DVec3::new(c.x.into(), c.y.into(), c.z.into()) * f64::from(n_l);
                weight += f64::from(n_l);
            }
            let c = if weight > 0.0 {
                sum / weight
            } else {
                glam::DVec3::ZERO
            };
            texels.push(Vec3::new(c.x as f32, c.y as f32, c.z as f32));
        }
    }
    Equirect {
        width: w,
        height: h,
        texels,
    }
}

/// An environment as a draw uses it: the map, its strength and the rotation from the
/// draw's eye space to the map's world space.
#[derive(Clone, Debug)]
pub struct PbrEnvironment {
    /// The prepared map.
    pub map: Arc<Environment>,
    /// Multiplies its radiance.
    pub intensity: f32,
    /// Rotation from eye space to the map's world space (the inverse of the view
    /// matrix's rotation).
    pub world_from_eye: Mat3,
}

impl PbrEnvironment {
    /// The diffuse and specular radiance for a unit eye-space normal `n` and reflection
    /// vector `r` at perceptual roughness `roughness`.
    pub fn light(&self, n: Vec3, r: Vec3, roughness: f32) -> (Vec3, Vec3) {
        let nw = (self.world_from_eye * n).normalize_or_zero();
        let rw = (self.world_from_eye * r).normalize_or_zero();
        (
            self.map.diffuse(nw) * self.intensity,
            self.map.specular(rw, roughness) * self.intensity,
        )
    }
}

#[cfg(feature = "internal-tests")]
pub(crate) mod tests {
    use super::*;

    pub(crate) const TESTS: &[(&str, fn())] = &[
        (
            "a_constant_environment_lights_as_its_constant",
            a_constant_environment_lights_as_its_constant,
        ),
        (
            "the_diffuse_term_follows_a_sky_analytically",
            the_diffuse_term_follows_a_sky_analytically,
        ),
        (
            "rougher_levels_spread_a_bright_spot",
            rougher_levels_spread_a_bright_spot,
        ),
        ("bad_maps_are_refused", bad_maps_are_refused),
    ];

    /// A constant map: the diffuse term and every specular level are that constant (within
    /// the quadrature's rounding), which is what the uniform ambient light assumes.
    fn a_constant_environment_lights_as_its_constant() {
        let c = Vec3::new(0.25, 0.5, 1.0);
        let env = Environment::uniform(c).unwrap();
        for n in [Vec3::X, Vec3::Y, -Vec3::Y, Vec3::new(0.6, 0.0, -0.8)] {
            let d = env.diffuse(n);
            assert!(
                (d - c).abs().max_element() < 5e-4 * c.max_element(),
                "{n} {d}"
            );
            for r in [0.0, 0.3, 0.7, 1.0] {
                let s = env.specular(n, r);
                assert!((s - c).abs().max_element() < 1e-5, "{n} {r} {s}");
            }
        }
    }

    /// A map bright above the horizon (radiance 1 for y > 0, 0 below): the cosine-weighted
    /// mean radiance is 1 facing up, 0 facing down and ½ at the horizon, and order-2
    /// harmonics get within 0.1 of it (their known ringing on a step).
    fn the_diffuse_term_follows_a_sky_analytically() {
        let (w, h) = (128u32, 64u32);
        let texels = (0..h)
            .flat_map(|y| (0..w).map(move |_| if y < h / 2 { Vec3::ONE } else { Vec3::ZERO }))
            .collect();
        let env = Environment::from_equirect(w, h, texels).unwrap();
        for (n, want) in [
            (Vec3::Y, 1.0),
            (-Vec3::Y, 0.0),
            (Vec3::X, 0.5),
            (Vec3::Z, 0.5),
        ] {
            let got = env.diffuse(n).x;
            assert!((got - want).abs() < 0.1, "{n}: {got} vs {want}");
        }
        // Symmetric about the vertical axis.
        assert!((env.diffuse(Vec3::X).x - env.diffuse(-Vec3::Z).x).abs() < 1e-3);
    }

    /// One bright texel: level 0 shows it sharply along its direction, rougher levels lower
    /// and wider, and the energy-weighted mean stays near the map's mean.
    fn rougher_levels_spread_a_bright_spot() {
        let (w, h) = (64u32, 32u32);
        let mut texels = vec![Vec3::splat(0.1); (w * h) as usize];
        texels[(16 * w + 32) as usize] = Vec3::splat(500.0); // towards +X at the equator
        let env = Environment::from_equirect(w, h, texels).unwrap();
        let at = |r: f32| env.specular(Vec3::X, r).x;
        let away = |r: f32| env.specular(Vec3::new(0.7, 0.0, 0.7).normalize(), r).x;
        assert!(at(0.0) > 50.0, "{}", at(0.0));
        assert!(
            at(0.0) > at(0.6) && at(0.6) > at(1.0),
            "{} {} {}",
            at(0.0),
            at(0.6),
            at(1.0)
        );
        assert!(
            away(0.0) < 0.2 && away(1.0) > away(0.0),
            "{} {}",
            away(0.0),
            away(1.0)
        );
    }

    fn bad_maps_are_refused() {
        assert!(Environment::from_equirect(0, 8, vec![]).is_err());
        assert!(Environment::from_equirect(2, 2, vec![Vec3::ONE; 3]).is_err());
        let mut t = vec![Vec3::ONE; 4];
        t[2] = Vec3::new(f32::NAN, 0.0, 0.0);
        assert!(Environment::from_equirect(2, 2, t.clone()).is_err());
        t[2] = Vec3::new(-1.0, 0.0, 0.0);
        assert!(Environment::from_equirect(2, 2, t).is_err());
        assert!(Environment::from_equirect(u32::MAX, u32::MAX, vec![]).is_err());
    }
}
