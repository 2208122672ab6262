//! Materials as the importers read them: glTF-shaped plain data, not yet render state.
//!
//! An [`ImportedMaterial`] keeps what the file said (glTF's metallic-roughness material, or
//! an OBJ/MTL material translated into the same shape) so that the step that maps it onto
//! plumb's fixed-function render state can be written, tested and changed on its own. The
//! mapping this data is meant for:
//!
//! | field | fixed-function target |
//! |---|---|
//! | [`base_color`](ImportedMaterial::base_color) × [`base_color_texture`](ImportedMaterial::base_color_texture) | material diffuse (and ambient) colour; texture unit 0 in *modulate* mode |
//! | [`alpha_mode`](ImportedMaterial::alpha_mode) | `Opaque`: no blending, alpha ignored; `Mask(c)`: alpha test `≥ c`, depth write on; `Blend`: source-over blending, depth write off, drawn after opaque geometry sorted back to front |
//! | [`double_sided`](ImportedMaterial::double_sided) | culling off (and two-sided lighting); otherwise back faces culled |
//! | [`emissive`](ImportedMaterial::emissive) × [`emissive_texture`](ImportedMaterial::emissive_texture) | material emissive colour (glTF `emissiveFactor` × `KHR_materials_emissive_strength`'s `emissiveStrength`, so it may exceed 1 and is clamped when lit); the texture as an *add* stage |
//! | [`normal_texture`](ImportedMaterial::normal_texture), [`normal_scale`](ImportedMaterial::normal_scale) | the book's dot3 bump map ([`Effect::BumpMap`](crate::values::effect::Effect::BumpMap)): per-vertex light vectors in tangent space (`TANGENT`, else generated tangents) `DOT3` the normal map, whose texels are rewritten with x and y scaled by `scale` and renormalized (glTF's `normalize((2t − 1) · (scale, scale, 1))`) |
//! | [`occlusion_texture`](ImportedMaterial::occlusion_texture), [`occlusion_strength`](ImportedMaterial::occlusion_strength) | a dark map: a *modulate* stage with the grey texture `1 + strength · (occ − 1)` (`occ` = the red channel) |
//! | [`unlit`](ImportedMaterial::unlit) | lighting off: colour = base colour × texture × vertex colour |
//! | [`metallic`](ImportedMaterial::metallic), [`roughness`](ImportedMaterial::roughness) | diffuse / specular / shininess by the rule of [`ImportedMaterial::fixed_function_approximation`] |
//! | [`specular_glossiness`](ImportedMaterial::specular_glossiness) | `KHR_materials_pbrSpecularGlossiness`: diffuse factor × texture as the base colour; specular colour and shininess (from glossiness) as given, by the same rule |
//! | [`metallic_roughness_texture`](ImportedMaterial::metallic_roughness_texture) | (lit) diffuse `× (1 − m/2)` per texel as a *modulate* stage; the texture's mean metallic and roughness for the specular colour and shininess (the `apply` module's rule) |
//! | [`TextureBinding::sampler`], [`TextureBinding::uv_transform`], [`TextureBinding::tex_coord`] | the texture unit's sampler, texture matrix and coordinate set |

use std::sync::Arc;

use glam::{Mat3, Vec2, Vec3, Vec4};
use plumb_raster::texture::{Sampler, Texture};

/// How a material's alpha is used (glTF `alphaMode`).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub enum AlphaMode {
    /// Alpha is ignored; the surface is fully opaque.
    #[default]
    Opaque,
    /// Alpha test: fragments with alpha below the cutoff are discarded, the rest are opaque.
    Mask {
        /// glTF `alphaCutoff` (default 0.5).
        cutoff: f32,
    },
    /// Alpha blending (source over).
    Blend,
}

/// A texture as a material uses it: decoded texels, sampler, coordinate set and transform.
#[derive(Debug, Clone, PartialEq)]
pub struct TextureBinding {
    /// The decoded texture with its full mip chain, shared between materials that use the
    /// same image.
    pub texture: Arc<Texture>,
    /// Filter and wrap modes mapped from the file (default: trilinear, repeat).
    pub sampler: Sampler,
    /// Which uv set of the mesh to read (glTF `texCoord`, or the `KHR_texture_transform`
    /// override).
    pub tex_coord: u32,
    /// `KHR_texture_transform` as a 3×3 matrix on `(u, v, 1)` (column vectors): `T·R·S` with
    /// the extension's offset, rotation and scale. Identity when absent.
    pub uv_transform: Mat3,
    /// The image's URI or name, for messages and dumps.
    pub source: String,
}

impl TextureBinding {
    /// Applies [`TextureBinding::uv_transform`] to a texture coordinate.
    pub fn transform_uv(&self, uv: Vec2) -> Vec2 {
        (self.uv_transform * uv.extend(1.0)).truncate()
    }
}

/// `KHR_texture_transform` as a matrix: `T(offset) · R(rotation) · S(scale)` where, as the
/// extension specifies, `R` turns `(u, v)` into `(cos·u + sin·v, −sin·u + cos·v)` (a
/// counter-clockwise rotation of the uvs in the image's v-down frame). Sine and cosine come
/// from `plumb_raster::math`.
pub fn uv_transform_matrix(offset: Vec2, rotation: f32, scale: Vec2) -> Mat3 {
    let (s, c) = plumb_raster::math::sin_cos(rotation);
    Mat3::from_cols(
        Vec3::new(c * scale.x, -s * scale.x, 0.0),
        Vec3::new(s * scale.y, c * scale.y, 0.0),
        Vec3::new(offset.x, offset.y, 1.0),
    )
}

/// A material as read from a glTF or MTL file (see the [module docs](self) for how each field
/// is meant to map onto render state).
#[derive(Debug, Clone, PartialEq)]
pub struct ImportedMaterial {
    /// Name in the file (may be empty).
    pub name: String,
    /// Linear RGBA factor (glTF `baseColorFactor`; MTL `Kd` with `d` as alpha).
    pub base_color: Vec4,
    /// Base colour texture (glTF `baseColorTexture`; MTL `map_Kd`).
    pub base_color_texture: Option<TextureBinding>,
    /// Alpha usage.
    pub alpha_mode: AlphaMode,
    /// Whether back faces are drawn (and lit with the flipped normal).
    pub double_sided: bool,
    /// Emitted RGB (glTF `emissiveFactor`; MTL `Ke`).
    pub emissive: Vec3,
    /// Emissive texture (glTF `emissiveTexture`).
    pub emissive_texture: Option<TextureBinding>,
    /// Tangent-space normal map (glTF `normalTexture`; RGB = `0.5·(n + 1)`, +x along `u`,
    /// +y towards the top of the image, OpenGL's convention).
    pub normal_texture: Option<TextureBinding>,
    /// glTF `normalTexture.scale`: the normal map's x and y are multiplied by it (default 1).
    pub normal_scale: f32,
    /// Ambient occlusion map (glTF `occlusionTexture`; the red channel is used).
    pub occlusion_texture: Option<TextureBinding>,
    /// glTF `occlusionTexture.strength` in 0..1: `1 + strength · (occ − 1)` (default 1).
    pub occlusion_strength: f32,
    /// `KHR_materials_unlit`: no lighting, colour is base colour × texture × vertex colour.
    pub unlit: bool,
    /// glTF `metallicFactor` in 0..1 (MTL materials: 0).
    pub metallic: f32,
    /// glTF `roughnessFactor` in 0..1 (MTL materials: from `Ns`, see the OBJ importer).
    pub roughness: f32,
    /// glTF `metallicRoughnessTexture`: blue = metallic, green = roughness, each multiplying
    /// its factor (see the `apply` rule: a per-texel diffuse scale and the texture's mean for
    /// the specular colour and shininess).
    pub metallic_roughness_texture: Option<TextureBinding>,
    /// `KHR_materials_pbrSpecularGlossiness` (it replaces the metallic-roughness parameters:
    /// [`base_color`](Self::base_color) and its texture are then the diffuse factor and
    /// texture); see [`ImportedMaterial::fixed_function_approximation`].
    pub specular_glossiness: Option<SpecularGlossiness>,
}

/// The specular-glossiness parameters of `KHR_materials_pbrSpecularGlossiness` that the
/// fixed-function approximation uses (its `specularGlossinessTexture` is not used).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SpecularGlossiness {
    /// `specularFactor`: the specular (F0) colour, RGB in 0..1.
    pub specular: Vec3,
    /// `glossinessFactor` in 0..1 (roughness `1 − glossiness`).
    pub glossiness: f32,
}

impl Default for ImportedMaterial {
    /// glTF's default material: white, fully metallic and rough, opaque, single-sided.
    fn default() -> Self {
        ImportedMaterial {
            name: String::new(),
            base_color: Vec4::ONE,
            base_color_texture: None,
            alpha_mode: AlphaMode::Opaque,
            double_sided: false,
            emissive: Vec3::ZERO,
            emissive_texture: None,
            normal_texture: None,
            normal_scale: 1.0,
            occlusion_texture: None,
            occlusion_strength: 1.0,
            unlit: false,
            metallic: 1.0,
            roughness: 1.0,
            metallic_roughness_texture: None,
            specular_glossiness: None,
        }
    }
}

/// Largest shininess the approximation produces (OpenGL 1.x's limit for the specular
/// exponent).
pub const MAX_SHININESS: f32 = 128.0;

/// Fixed-function (Blinn–Phong) material colours derived from a metallic-roughness material
/// by [`ImportedMaterial::fixed_function_approximation`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FixedFunctionColors {
    /// Ambient reflectance (RGB; equal to diffuse).
    pub ambient: Vec3,
    /// Diffuse reflectance (RGB) and alpha.
    pub diffuse: Vec4,
    /// Specular reflectance (RGB).
    pub specular: Vec3,
    /// Specular exponent, 1..=[`MAX_SHININESS`].
    pub shininess: f32,
    /// Emitted colour (RGB).
    pub emissive: Vec3,
}

impl ImportedMaterial {
    /// The proposed rule for drawing a metallic-roughness material with fixed-function
    /// lighting (per-vertex or per-pixel Blinn–Phong, no environment map). With base colour
    /// `C` (RGB of [`base_color`](Self::base_color)), metallic `m` and roughness `r`, all
    /// clamped to 0..1:
    ///
    /// * **specular** `Ks = mix(0.04, C, m)` — the normal-incidence Fresnel reflectance `F0` of
    ///   the metallic-roughness model (4 % for dielectrics, the base colour for metals).
    /// * **diffuse** `Kd = C · (1 − m/2)`, alpha `C.a`. The model's true diffuse is
    ///   `C · (1 − m)`, which leaves a pure metal black except for its highlight, since
    ///   nothing here reflects an environment; keeping half the base colour stands in for the
    ///   missing environment reflection.
    /// * **ambient** `Ka = Kd`, so the global ambient light shows the base colour.
    /// * **shininess** `n = 2/α² − 2` with `α = r²` (the usual Blinn–Phong ↔ GGX/Beckmann
    ///   correspondence of the lobe widths), clamped to `1..=128`; `r = 1 → 1`,
    ///   `r = 0.5 → 30`, `r ≤ 0.35 → 128`.
    /// * **emissive** as given.
    ///
    /// A **specular-glossiness** material ([`specular_glossiness`](Self::specular_glossiness))
    /// takes its numbers from that model directly: `Kd = Ka =` the diffuse colour (in
    /// [`base_color`](Self::base_color)), `Ks = specularFactor`, and the shininess above with
    /// `r = 1 − glossinessFactor`.
    ///
    /// Unlit materials are not lit at all; the rule does not apply to them. No transcendental
    /// function is involved, so the numbers are the same everywhere.
    pub fn fixed_function_approximation(&self) -> FixedFunctionColors {
        let c = self.base_color.truncate().clamp(Vec3::ZERO, Vec3::ONE);
        let (m, r) = match self.specular_glossiness {
            Some(sg) => (0.0, 1.0 - sg.glossiness.clamp(0.0, 1.0)),
            None => (
                self.metallic.clamp(0.0, 1.0),
                self.roughness.clamp(0.0, 1.0),
            ),
        };
        let specular = match self.specular_glossiness {
            Some(sg) => sg.specular.clamp(Vec3::ZERO, Vec3::ONE),
            None => Vec3::splat(0.04) + (c - Vec3::splat(0.04)) * m,
        };
        let diffuse = c * (1.0 - 0.5 * m);
        let alpha2 = (r * r) * (r * r);
        let shininess = if alpha2 * (MAX_SHININESS + 2.0) <= 2.0 {
            MAX_SHININESS
        } else {
            (2.0 / alpha2 - 2.0).clamp(1.0, MAX_SHININESS)
        };
        FixedFunctionColors {
            ambient: diffuse,
            diffuse: diffuse.extend(self.base_color.w.clamp(0.0, 1.0)),
            specular,
            shininess,
            emissive: self.emissive,
        }
    }
}

#[cfg(feature = "internal-tests")]
pub(crate) mod tests {
    /// Every test of this module: `tests/unit.rs` runs each as one trial (an unlisted
    /// test fails the build as dead code).
    pub(crate) const TESTS: &[(&str, fn())] = &[
        ("approximation_by_hand", approximation_by_hand),
        ("uv_transform_by_hand", uv_transform_by_hand),
    ];

    use super::*;

    fn close(a: f32, b: f32) -> bool {
        (a - b).abs() < 1e-5
    }

    fn approximation_by_hand() {
        // A red dielectric, medium rough: Ks = 0.04, Kd = C, n = 2/0.0625 − 2 = 30.
        let m = ImportedMaterial {
            base_color: Vec4::new(1.0, 0.0, 0.0, 0.5),
            metallic: 0.0,
            roughness: 0.5,
            ..ImportedMaterial::default()
        };
        let f = m.fixed_function_approximation();
        assert_eq!(f.specular, Vec3::splat(0.04));
        assert_eq!(f.diffuse, Vec4::new(1.0, 0.0, 0.0, 0.5));
        assert_eq!(f.ambient, Vec3::new(1.0, 0.0, 0.0));
        assert!(close(f.shininess, 30.0));
        // A gold-ish metal, fully rough: Ks = C, Kd = C/2, n = 2/1 − 2 = 0 → clamped to 1.
        let m = ImportedMaterial {
            base_color: Vec4::new(1.0, 0.8, 0.4, 1.0),
            metallic: 1.0,
            roughness: 1.0,
            ..ImportedMaterial::default()
        };
        let f = m.fixed_function_approximation();
        assert!((f.specular - Vec3::new(1.0, 0.8, 0.4)).abs().max_element() < 1e-6);
        assert!(
            (f.diffuse.truncate() - Vec3::new(0.5, 0.4, 0.2))
                .abs()
                .max_element()
                < 1e-6
        );
        assert_eq!(f.shininess, 1.0);
        // Mirror-smooth: capped at 128. Half metal: Ks = (0.04 + C)/2.
        let m = ImportedMaterial {
            base_color: Vec4::new(0.0, 0.0, 1.0, 1.0),
            metallic: 0.5,
            roughness: 0.0,
            ..ImportedMaterial::default()
        };
        let f = m.fixed_function_approximation();
        assert_eq!(f.shininess, MAX_SHININESS);
        assert!(
            (f.specular - Vec3::new(0.02, 0.02, 0.52))
                .abs()
                .max_element()
                < 1e-6
        );
        assert!(
            (f.diffuse.truncate() - Vec3::new(0.0, 0.0, 0.75))
                .abs()
                .max_element()
                < 1e-6
        );
    }

    fn uv_transform_by_hand() {
        // Identity parameters give the identity.
        assert_eq!(
            uv_transform_matrix(Vec2::ZERO, 0.0, Vec2::ONE),
            Mat3::IDENTITY
        );
        // Offset only.
        let m = uv_transform_matrix(Vec2::new(0.5, 0.25), 0.0, Vec2::ONE);
        assert_eq!(
            (m * Vec3::new(0.1, 0.2, 1.0)).truncate(),
            Vec2::new(0.6, 0.45)
        );
        // A quarter turn: (u, v) → (cos·u + sin·v, −sin·u + cos·v) = (v, −u), after scaling
        // u by 2 and v by 3, then the offset (1, 1).
        let m = uv_transform_matrix(
            Vec2::new(1.0, 1.0),
            core::f32::consts::FRAC_PI_2,
            Vec2::new(2.0, 3.0),
        );
        let p = (m * Vec3::new(1.0, 1.0, 1.0)).truncate();
        // scaled (2, 3) → rotated (3, −2) → offset (4, −1)
        assert!((p - Vec2::new(4.0, -1.0)).length() < 1e-6, "{p}");
    }
}
