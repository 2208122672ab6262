//! Fog (OpenGL 1.x / Wild Magic `FogState`, with the book's blend misprint corrected).
//!
//! The fog factor `f` (1 = no fog, 0 = all fog) comes from a distance `z`:
//!
//! | mode | f |
//! |---|---|
//! | `Linear { start, end }` | `(end − z) / (end − start)` |
//! | `Exp { density }` | `exp(−density·z)` |
//! | `Exp2 { density }` | `exp(−(density·z)²)` |
//!
//! clamped to [0, 1], and the colour becomes `f·c + (1 − f)·fog` on RGB; alpha is left
//! alone (GL; the book's formula also fogs alpha). `z` is the eye-space depth `|z_eye|`
//! ([`FogDistance::EyeDepth`], GL's usual choice) or the radial distance `|pos_eye|`
//! ([`FogDistance::Radial`], an option). `exp` goes through [`crate::base::math`].

use glam::{Vec3, Vec4};

use crate::base::math;

/// The fog density function.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "trace", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "trace", serde(rename_all = "snake_case"))]
pub enum FogMode {
    /// `f = (end − z)/(end − start)`. If `end == start`, `f` is 1 for `z < start`, else 0.
    Linear {
        /// Distance where fog begins (f = 1).
        start: f32,
        /// Distance where fog is total (f = 0).
        end: f32,
    },
    /// `f = exp(−density·z)`.
    Exp {
        /// Density.
        density: f32,
    },
    /// `f = exp(−(density·z)²)`.
    Exp2 {
        /// Density.
        density: f32,
    },
}

/// Which distance feeds the fog factor.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "trace", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "trace", serde(rename_all = "snake_case"))]
pub enum FogDistance {
    /// `|z_eye|` (GL).
    #[default]
    EyeDepth,
    /// `|pos_eye|`, the distance to the eye (range-based fog).
    Radial,
}

impl FogDistance {
    /// The distance of an eye-space position under this rule.
    #[inline]
    pub fn distance(self, pos_eye: Vec3) -> f32 {
        match self {
            FogDistance::EyeDepth => pos_eye.z.abs(),
            FogDistance::Radial => pos_eye.length(),
        }
    }
}

/// Fog state. Plain data; whether fog is on at all is the pipeline's business.
/// `Default` is the book's `FogState`: linear 0..1, colour (0, 0, 0, 1), eye depth, per
/// vertex.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "trace", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "trace", serde(deny_unknown_fields))]
pub struct FogState {
    /// Density function.
    pub mode: FogMode,
    /// Fog colour (its alpha is unused).
    pub color: Vec4,
    /// Distance rule.
    pub distance: FogDistance,
    /// Compute `f` per pixel (`true`) or per vertex and interpolate (`false`).
    pub per_pixel: bool,
}

impl FogState {
    /// The book's defaults.
    pub const DEFAULT: FogState = FogState {
        mode: FogMode::Linear {
            start: 0.0,
            end: 1.0,
        },
        color: Vec4::new(0.0, 0.0, 0.0, 1.0),
        distance: FogDistance::EyeDepth,
        per_pixel: false,
    };

    /// The fog factor at an eye-space position: `fog_factor(mode, distance(pos_eye))`.
    #[inline]
    pub fn factor_at(&self, pos_eye: Vec3) -> f32 {
        fog_factor(&self.mode, self.distance.distance(pos_eye))
    }

    /// Fogs `c` with factor `f`: [`apply_fog`]`(c, f, self.color)`.
    #[inline]
    pub fn apply(&self, c: Vec4, f: f32) -> Vec4 {
        apply_fog(c, f, self.color)
    }
}

impl Default for FogState {
    fn default() -> FogState {
        FogState::DEFAULT
    }
}

/// The fog factor for distance `dist`, clamped to [0, 1] (NaN → 0, i.e. full fog).
///
/// ```
/// use plumb_raster::fog::{fog_factor, FogMode};
/// assert_eq!(fog_factor(&FogMode::Linear { start: 10.0, end: 20.0 }, 15.0), 0.5);
/// ```
#[inline]
pub fn fog_factor(mode: &FogMode, dist: f32) -> f32 {
    let f = match *mode {
        FogMode::Linear { start, end } => {
            if end == start {
                if dist < start {
                    1.0
                } else {
                    0.0
                }
            } else {
                (end - dist) / (end - start)
            }
        }
        FogMode::Exp { density } => math::exp(-(density * dist)),
        FogMode::Exp2 { density } => {
            let x = density * dist;
            math::exp(-(x * x))
        }
    };
    // Comparisons, so NaN gives 0 (`clamp` would keep NaN).
    if f > 0.0 {
        if f < 1.0 {
            f
        } else {
            1.0
        }
    } else {
        0.0
    }
}

/// `f·c + (1 − f)·fog` on RGB; alpha is `c.w` unchanged. `f = 1` returns `c` exactly and
/// `f = 0` returns the fog RGB exactly.
#[inline]
pub fn apply_fog(c: Vec4, f: f32, fog: Vec4) -> Vec4 {
    (c.truncate() * f + fog.truncate() * (1.0 - f)).extend(c.w)
}
