//! From an import to a drawable scene: imported materials become render states and texture
//! effects, imported punctual lights become scene lights, and a scene without lights gets a
//! default light rig. [`load`](super::load) runs it (see
//! [`ImportOptions::apply`](super::ImportOptions::apply)); `plumb render` loads through that
//! same path, so a file draws the same in both.
//!
//! [`apply`] is the one entry point; it changes only the geometry leaves that have an
//! [`ImportedMaterial`] (their global states, effect and, where vertex colours must carry the
//! base colour, their mesh) and adds lights. The rules, per geometry leaf with material `M`:
//!
//! | glTF | render state |
//! |---|---|
//! | lit (default) | [`MaterialState`] from [`ImportedMaterial::fixed_function_approximation`]: ambient, diffuse, specular, shininess, emissive |
//! | `baseColorTexture` | texture unit 0 with the binding's sampler, uv set (`texCoord`) and `KHR_texture_transform` as the stage's texture matrix; apply *modulate* (for `OPAQUE`, a combiner that modulates RGB and keeps the incoming alpha) |
//! | `COLOR_0` | lit: the vertex colours × the diffuse colour (RGB and alpha) become the mesh colours and [`MaterialState::color_material`] is on, so they replace ambient and diffuse; the material is then approximated with metallic 0 (a metal's highlight would need the vertex colour, and the specular colour is one per material); unlit: vertex colours × base colour become the primary colour |
//! | `alphaMode` `OPAQUE` | no blending, no test; the alpha that reaches the framebuffer is forced to 1 (diffuse / vertex alpha 1, texture alpha ignored) |
//! | `alphaMode` `MASK` | alpha test `α ≥ alphaCutoff`; colour written as is (blend factors `ONE, ZERO`, so the leaf stays in the opaque group), alpha composited "over"; depth writes on |
//! | `alphaMode` `BLEND` | source-over blending ([`AlphaState::BLEND_OVER`]: colour `as·src + (1 − as)·dst`, alpha `as + (1 − as)·ad`) and depth writes off ([`ZBufferState::READ_ONLY`]), so [`Scene::draw`] sorts the leaf back to front with the other transparent leaves |
//! | `doubleSided` | culling off ([`CullState::NONE`]) and two-sided lighting ([`MaterialState::two_sided`]) |
//! | `emissiveFactor` | the material's emissive colour (lit only) |
//! | `emissiveTexture` | (lit only, when the factor is not black) an *add* stage after the base colour texture, with a copy of the texture whose RGB texels are multiplied by the factor (`⌊t·f + ½⌋` per 8-bit channel, mips rebuilt; one copy per image and factor, and none when the factor is white); the material's emissive colour is then black |
//! | `emissiveFactor` × `KHR_materials_emissive_strength` | the emissive colour above (a strength past 1 saturates: the lit colour is clamped to 1) |
//! | `occlusionTexture` | (lit only) a **dark map**: a *modulate* stage after the base colour texture with a grey copy of the texture, `1 + strength · (occ − 1)` per texel (`occ` = red channel; `⌊v·255 + ½⌋`, mips rebuilt, one copy per image and strength). Fixed-function lighting has no separate indirect term, so it darkens the whole lit colour (ambient, diffuse, specular and the emissive *colour*), not only the ambient as glTF intends; the emissive *texture* stage comes after it and is not darkened |
//! | `metallicRoughnessTexture` | (lit only, without `COLOR_0`) a **metal map**: the approximation's diffuse `Kd = C·(1 − m/2)` per texel, as the material's `Kd = C` (metallic 0) and a *modulate* stage after the occlusion map with a grey copy of the texture, `1 − metallicFactor · blue / 2` (`⌊v·255 + ½⌋`, mips rebuilt, one copy per image and factor); the specular colour and shininess, one per material, use the texture's mean: metallic `metallicFactor · mean(blue)`, roughness `roughnessFactor · mean(green)` (means over level 0's texels, exact integer sums). With separate specular the stage scales the primary colour (ambient, diffuse, emissive colour), not the highlight |
//! | `normalTexture` | (lit only) the book's **dot3 bump map** ([`Effect::BumpMap`]), see below |
//! | `texCoord` (every texture) | each stage reads its own binding's uv set (`KHR_texture_transform`'s `texCoord` wins); a set the mesh lacks drops that stage with a warning in [`Applied::warnings`] (the surface keeps the rest) |
//! | `KHR_materials_unlit`, or [`ApplyOptions::unlit`] | no lights attached to the leaf: the colour is base colour × vertex colour × texture, with no lighting and no emission (normal and occlusion maps unused) |
//!
//! The glTF alpha of a lit surface is the diffuse alpha (base colour alpha) or, with vertex
//! colours, the vertex alpha × base alpha; the texture's alpha multiplies it (modulate).
//!
//! # Normal maps: the book's bump map
//!
//! A lit leaf whose material has a `normalTexture` is drawn with [`Effect::BumpMap`]: one
//! unlit pass whose primary colour is the per-vertex light vector in tangent space (computed
//! at draw time from the light and the leaf's world transform; tangents from `TANGENT` or
//! generated, see the glTF importer's `tangent` module), then these stages:
//!
//! 1. the normal map, `DOT3(normal, light vector)` = `max(0, n·l)`; with `scale ≠ 1` a copy
//!    of the map whose texels are decoded (`2t − 1`), x and y multiplied by `scale`,
//!    renormalized and encoded again (glTF's rule, per texel before filtering; mips rebuilt);
//! 2. the base: the base colour texture (white 1×1 without one) × `Kd · Ld` — the
//!    approximation's diffuse colour times the bump light's diffuse colour × intensity — as a
//!    copy (*modulate*; `OPAQUE` keeps alpha 1, otherwise alpha × base alpha);
//! 3. the ambient: the same texture × `Ka · A` added (`A` = the sum of the ambient colours of
//!    the lights considered, below; no stage when black);
//! 4. the occlusion dark map and the metal map (above), when there are;
//! 5. the emission: the emissive texture stage, or a 1×1 texture of the emissive colour
//!    added, when not black.
//!
//! So a bump-mapped surface shows `occ · (Kd·Ld·T·max(0, n·l) + Ka·A·T) + E`, the lit
//! diffuse and ambient terms of the material with the normal map's normal. There is **no
//! specular** term (the book's bump map has none) and no vertex colour (the primary colour
//! carries the light vector).
//!
//! **The light the bump map encodes**: among the lights that light the leaf — the imported
//! lights, else the default rig, else (an import into a scene file with lights of its own)
//! the scene's lights in table order — the first directional light that is on, else the
//! first point or spot light that is on. The default rig's key light is that directional
//! light, so a bump-mapped import is lit from the headlight like the rest. With no such
//! light, no uv set for the normal map or no normals, the normal map is dropped (with a
//! warning) and the leaf drawn by the rules above.
//!
//! **Framebuffer alpha** (what a PNG's alpha channel shows): `OPAQUE` writes 1; a `BLEND`
//! surface composites its alpha "over" the stored one (separate alpha factors, as
//! `glBlendFuncSeparate(…, ONE, ONE_MINUS_SRC_ALPHA)`), so over an opaque background the
//! alpha stays 1; so does a `MASK` surface's (its kept fragments composite alpha the same way).
//!
//! # Lights
//!
//! Every `KHR_lights_punctual` light becomes a scene [`SceneLight`] (file order, at most
//! [`MAX_LIGHTS`]; the rest are ignored), placed by its node's world transform when
//! [`Applied::place_lights`] runs (position: the node's origin; direction: its local −z):
//!
//! * **colour**: diffuse and specular = the light's colour; ambient black.
//! * **directional**: `intensity` (lux) is the scene light's intensity, so colour × intensity
//!   is clamped to 1 per channel (1 lux of white light lights a white surface facing it fully).
//! * **point / spot**: glTF's inverse-square falloff `I/d²` (candela) becomes the attenuation
//!   `(constant, linear, quadratic) = (0, 0, 1/I)` with intensity 1; an intensity of 0 turns
//!   the light off. `range` becomes the light's range: glTF's recommended window
//!   `clamp(1 − (d/range)⁴, 0, 1)²` multiplies the attenuation (an extension of the
//!   fixed-function model, `plumb_raster::light`).
//! * **spot**: the cone is `outer_cone_angle` with exponent 0, fading smoothly from the outer
//!   to the inner angle as glTF specifies (`t²`, `t` linear in the cosine between them).
//!
//! The lights are attached to every **lit** geometry leaf (not to the root), which is how an
//! unlit material is drawn without lighting while the rest of the scene is lit.
//!
//! When the import has no lights, the scene it goes into has none either (a scene file's own
//! lights, or the caller's, light the import instead), and [`ApplyOptions::default_lights`]
//! is on, a **default rig** is used, placed relative to the camera by
//! [`Applied::place_lights`]: a white *key* directional light (diffuse
//! [`DEFAULT_KEY_DIFFUSE`], specular [`DEFAULT_KEY_SPECULAR`]) travelling along
//! `normalize(D − 0.35·U)` — the view direction `D`, tilted so the light comes from slightly
//! above the eye (camera up `U`), a headlight — and an ambient *fill* light of
//! [`DEFAULT_FILL_AMBIENT`] grey, which shows every surface's ambient (= diffuse) colour at
//! that fraction even where the key does not reach. With [`Shading::Pbr`] and
//! [`ApplyOptions::default_environment`] (the default) such an import is lit instead by the
//! built-in studio environment ([`Environment::studio`], `plumb render --environment auto`),
//! unless the scene has an environment already.

use std::sync::Arc;

use glam::{Vec3, Vec4};
use plumb_raster::combine::{ApplyMode, CombineFn, CombineState, Source};
use plumb_raster::environment::Environment;
use plumb_raster::texture::Texture;

use std::path::Path;

use super::error::IoError;
use super::framing::{frame_bound, geometry_box, DEFAULT_FOV_Y};
use super::imported::{Imported, ImportedLightKind, ImportedScene};
use super::material::{AlphaMode, ImportedMaterial, TextureBinding};
use crate::graph::{NodeId, Scene};
use crate::values::camera::Camera;
use crate::values::effect::{Effect, PbrSurface, TextureStage};
use crate::values::error::SceneError;
use crate::values::id::LightId;
use crate::values::light::{LightType, SceneLight, MAX_LIGHTS};
use crate::values::mesh::Mesh;
use crate::values::state::{
    AlphaState, BlendFactor, CompareFunc, CullState, GlobalState, MaterialState, ZBufferState,
};

/// Diffuse (grey level) of the default rig's key light.
pub const DEFAULT_KEY_DIFFUSE: f32 = 0.85;
/// Specular (grey level) of the default rig's key light.
pub const DEFAULT_KEY_SPECULAR: f32 = 0.4;
/// Ambient (grey level) of the default rig's fill light.
pub const DEFAULT_FILL_AMBIENT: f32 = 0.3;
/// How far the default key light is tilted down from the view direction (times camera up).
pub const DEFAULT_KEY_TILT: f32 = 0.35;

pub use super::imported::{Applied, LightSource};
pub use super::options::{ApplyOptions, Shading};

impl Applied {
    /// Places the lights for a frame: imported lights from their nodes' current world
    /// transforms (computed fresh, so after animations no update is needed), the default rig
    /// from `camera` (see the [module docs](self)).
    ///
    /// # Errors
    /// [`SceneError::StaleId`] for a removed light node, [`SceneError::UnknownLight`],
    /// [`SceneError::NonFinite`] for a non-finite transform.
    pub fn place_lights(
        &self,
        scene: &mut Scene,
        imported: &Imported,
        camera: &Camera,
    ) -> Result<(), SceneError> {
        for &(id, source) in &self.lights {
            let mut light = *scene.light(id)?;
            match source {
                LightSource::Imported(i) => {
                    let Some(l) = imported.lights.get(i) else {
                        continue;
                    };
                    let world = scene.compute_world(l.node)?;
                    light.position = world.translation();
                    light.direction = world.apply_vector(Vec3::NEG_Z).normalize_or_zero();
                    if light.direction == Vec3::ZERO {
                        light.direction = Vec3::NEG_Z;
                    }
                }
                LightSource::Key => {
                    light.direction =
                        (camera.direction() - DEFAULT_KEY_TILT * camera.up()).normalize_or_zero();
                }
                LightSource::Fill => {}
            }
            scene.set_light(id, light)?;
        }
        Ok(())
    }
}

impl ImportedScene {
    /// The camera `plumb render` uses for this scene without camera options: the first
    /// imported camera (following its node), else the box of the scene's vertices framed by
    /// the rule of [`framing`](super::framing) with [`DEFAULT_FOV_Y`], for an image of the
    /// given `aspect` (width / height).
    ///
    /// # Errors
    /// [`SceneError`] for a camera node that is gone, a non-finite transform or bound, or a
    /// non-positive aspect.
    pub fn default_camera(&self, aspect: f32) -> Result<Camera, SceneError> {
        match self.imported.cameras.first() {
            Some(c) => c.to_camera(&self.scene, aspect),
            None => {
                let rest = match &self.imported.rest_box {
                    Some(b) => *b,
                    None => geometry_box(&self.scene)?,
                };
                frame_bound(&rest, DEFAULT_FOV_Y, aspect)
            }
        }
    }

    /// [`Applied::place_lights`] for this scene's applied import: call it after moving the
    /// camera or animating light nodes ([`load`](super::load) places the lights once, for the
    /// [`default_camera`](Self::default_camera)).
    ///
    /// # Errors
    /// As [`Applied::place_lights`].
    pub fn place_lights(&mut self, camera: &Camera) -> Result<(), SceneError> {
        self.imported
            .applied
            .place_lights(&mut self.scene, &self.imported, camera)
    }
}

/// What [`load`](super::load) does after reading a file when
/// [`ImportOptions::apply`](super::ImportOptions::apply) is set:
/// [`apply`] (the record goes to [`Imported::applied`]), then the lights placed for the
/// [`default camera`](ImportedScene::default_camera) (or [`Camera::default`] when the scene
/// cannot be framed).
pub(super) fn finish_load(
    loaded: &mut ImportedScene,
    path: &Path,
    options: &ApplyOptions,
) -> Result<(), IoError> {
    let err = |source| IoError::Scene {
        file: path.to_owned(),
        context: "mapping materials and lights".to_owned(),
        source,
    };
    loaded.imported.applied = apply(&mut loaded.scene, &loaded.imported, options).map_err(err)?;
    if loaded.imported.applied.lights.is_empty() {
        return Ok(());
    }
    // The rig's key light depends only on the camera's direction and up, which no aspect
    // changes. A scene that cannot be framed (a finite extent too large for f32) still loads;
    // its key light then follows the default camera's view down −z.
    let camera = loaded.default_camera(1.0).unwrap_or_default();
    loaded.place_lights(&camera).map_err(err)
}

/// The scene light for an imported punctual light (see the [module docs](self) for the
/// rule), not yet placed.
fn scene_light(
    kind: ImportedLightKind,
    color: Vec3,
    intensity: f32,
    range: Option<f32>,
) -> SceneLight {
    let color4 = color.extend(1.0);
    let base = SceneLight {
        diffuse: color4,
        specular: color4,
        ..SceneLight::default()
    };
    let positional = SceneLight {
        intensity: 1.0,
        constant: 0.0,
        linear: 0.0,
        quadratic: if intensity > 0.0 {
            1.0 / intensity
        } else {
            0.0
        },
        attenuate: true,
        on: intensity > 0.0 && intensity.is_finite(),
        range: range.filter(|r| *r > 0.0 && r.is_finite()),
        ..base
    };
    match kind {
        ImportedLightKind::Directional => SceneLight {
            kind: LightType::Directional,
            intensity: intensity.max(0.0),
            ..base
        },
        ImportedLightKind::Point => SceneLight {
            kind: LightType::Point,
            ..positional
        },
        ImportedLightKind::Spot {
            inner_cone_angle,
            outer_cone_angle,
        } => SceneLight {
            kind: LightType::Spot,
            angle: outer_cone_angle,
            inner_angle: Some(inner_cone_angle.min(outer_cone_angle)),
            exponent: 0.0,
            ..positional
        },
    }
}

/// Combiner for an `OPAQUE` base colour texture: RGB modulated, alpha kept from the previous
/// stage (the texture's alpha is ignored).
const MODULATE_RGB_KEEP_ALPHA: CombineState = CombineState {
    alpha: CombineFn::Replace,
    src_alpha: [Source::Previous, Source::Previous, Source::Constant],
    ..CombineState::MODULATE
};

/// A texture stage for a binding, or `None` when the mesh lacks the binding's uv set (the
/// texture cannot be placed; the surface keeps its untextured colour).
fn stage(binding: &TextureBinding, mesh: &Mesh, apply: ApplyMode) -> Option<TextureStage> {
    let set = usize::try_from(binding.tex_coord).ok()?;
    if set >= mesh.uv_sets().len() {
        return None;
    }
    Some(
        TextureStage::new(Arc::clone(&binding.texture), binding.sampler, apply, set)
            .with_matrix(binding.uv_transform),
    )
}

/// Turns an import into a drawable scene (see the [module docs](self) for every rule).
/// [`load`](super::load) calls it (unless
/// [`ImportOptions::apply`](super::ImportOptions::apply) is `None`); call it once
/// yourself after [`import`](super::import) or a raw load; then, per frame,
/// [`Applied::place_lights`] with the camera before [`Scene::draw`].
///
/// # Errors
/// [`SceneError::StaleId`] if a material's node is not in `scene`, [`SceneError::NonFinite`]
/// for non-finite material or light values.
pub fn apply(
    scene: &mut Scene,
    imported: &Imported,
    options: &ApplyOptions,
) -> Result<Applied, SceneError> {
    let mut applied = Applied::default();
    let mut derived = DerivedTextures::default();
    let any_lit = imported
        .materials
        .values()
        .any(|m| !(options.unlit || m.unlit));
    if any_lit {
        if imported.lights.is_empty() {
            // The scene's own lights (a scene file's, or the caller's) light the import; the
            // rig (or, for PBR, the studio) is only for an import that would otherwise be dark.
            let dark = scene.lights.is_empty();
            if dark && options.shading == Shading::Pbr && options.default_environment {
                if scene.pbr_environment().is_none() {
                    scene.set_pbr_environment(Some((Environment::studio(), 1.0)))?;
                }
            } else if options.default_lights && dark {
                let key = SceneLight {
                    diffuse: Vec3::splat(DEFAULT_KEY_DIFFUSE).extend(1.0),
                    specular: Vec3::splat(DEFAULT_KEY_SPECULAR).extend(1.0),
                    // PBR's Lambert term is `c/π`: π lux show a facing white surface at
                    // the key's diffuse level, as the classic mapping does.
                    intensity: match options.shading {
                        Shading::Classic => 1.0,
                        Shading::Pbr => core::f32::consts::PI,
                    },
                    ..SceneLight::directional(Vec3::NEG_Z)
                };
                let fill = SceneLight::ambient(Vec3::splat(DEFAULT_FILL_AMBIENT));
                applied
                    .lights
                    .push((scene.add_light(key)?, LightSource::Key));
                applied
                    .lights
                    .push((scene.add_light(fill)?, LightSource::Fill));
            }
        } else {
            for (i, l) in imported.lights.iter().take(MAX_LIGHTS).enumerate() {
                let id = scene.add_light(scene_light(l.kind, l.color, l.intensity, l.range))?;
                applied.lights.push((id, LightSource::Imported(i)));
            }
        }
    }
    let candidates: Vec<LightId> = if applied.lights.is_empty() {
        (0..scene.lights.len() as u32).map(LightId).collect()
    } else {
        applied.lights.iter().map(|l| l.0).collect()
    };
    let bump = bump_light(scene, &candidates);
    for (&node, material) in &imported.materials {
        let unlit = options.unlit || material.unlit;
        let mut ctx = MaterialCtx {
            derived: &mut derived,
            bump,
            warnings: &mut applied.warnings,
        };
        if !unlit && options.shading == Shading::Pbr {
            apply_pbr_material(scene, node, material, &mut ctx)?;
        } else {
            apply_material(scene, node, material, unlit, &mut ctx)?;
        }
        if unlit {
            applied.unlit.push(node);
        } else {
            applied.lit.push(node);
        }
    }
    if !applied.lit.is_empty() {
        // `attach_light` puts a light at the front of the node's list: attach in reverse
        // so each leaf's list is in file order.
        for &node in &applied.lit {
            for &(id, _) in applied.lights.iter().rev() {
                scene.attach_light(node, id)?;
            }
        }
    }
    Ok(applied)
}

/// The light a bump map encodes, with the colours its stages bake in (see the
/// [module docs](self)).
#[derive(Debug, Clone, Copy)]
struct BumpLight {
    id: LightId,
    /// `clamp(diffuse × intensity)` of the bump light.
    diffuse: Vec3,
    /// Sum of `clamp(ambient × intensity)` over the lights considered, clamped to 1.
    ambient: Vec3,
}

/// The bump light among `candidates`: the first directional light that is on, else the first
/// point or spot light that is on.
fn bump_light(scene: &Scene, candidates: &[LightId]) -> Option<BumpLight> {
    let lights: Vec<(LightId, &SceneLight)> = candidates
        .iter()
        .filter_map(|&id| scene.light(id).ok().map(|l| (id, l)))
        .filter(|(_, l)| l.on)
        .collect();
    let sat = |c: Vec4, i: f32| (c.truncate() * i).clamp(Vec3::ZERO, Vec3::ONE);
    let mut ambient = Vec3::ZERO;
    for (_, l) in &lights {
        ambient += sat(l.ambient, l.intensity);
    }
    let pick = |kinds: &[LightType]| lights.iter().find(|(_, l)| kinds.contains(&l.kind));
    let (id, l) =
        pick(&[LightType::Directional]).or_else(|| pick(&[LightType::Point, LightType::Spot]))?;
    Some(BumpLight {
        id: *id,
        diffuse: sat(l.diffuse, l.intensity),
        ambient: ambient.clamp(Vec3::ZERO, Vec3::ONE),
    })
}

/// What [`apply_material`] shares across leaves.
struct MaterialCtx<'a> {
    derived: &'a mut DerivedTextures,
    bump: Option<BumpLight>,
    warnings: &'a mut Vec<String>,
}

/// How a derived texture is made from its source.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Derive {
    /// RGBA multiplied by the factor (clamped to [0, 1]).
    Scale(Vec4),
    /// Grey `1 + strength · (red − 1)`, alpha 1 (an occlusion dark map).
    Occlusion(f32),
    /// Grey `1 − metallic · blue / 2`, alpha 1 (a metal map: the diffuse scale of the
    /// approximation per texel).
    Metal(f32),
    /// Normal map with x and y scaled and renormalized.
    NormalScale(f32),
}

impl Derive {
    fn key(self) -> [u32; 5] {
        match self {
            Derive::Scale(f) => {
                let [a, b, c, d] = f.to_array().map(f32::to_bits);
                [0, a, b, c, d]
            }
            Derive::Occlusion(s) => [1, s.to_bits(), 0, 0, 0],
            Derive::NormalScale(s) => [2, s.to_bits(), 0, 0, 0],
            Derive::Metal(m) => [3, m.to_bits(), 0, 0, 0],
        }
    }

    /// For the rules whose every output channel `c` depends on one input channel `from[c]`
    /// alone (all but [`Derive::NormalScale`]): `from` and the 256-entry table of each output
    /// channel, made by [`Derive::texel`] itself, so a lookup gives its bytes exactly.
    fn tables(self) -> Option<([usize; 4], [[u8; 256]; 4])> {
        let from = match self {
            Derive::Scale(_) => [0, 1, 2, 3],
            Derive::Occlusion(_) => [0, 0, 0, 0],
            Derive::Metal(_) => [2, 2, 2, 2],
            Derive::NormalScale(_) => return None,
        };
        let mut table = [[0u8; 256]; 4];
        for x in 0..=255u8 {
            let out = self.texel([x; 4]);
            for c in 0..4 {
                table[c][usize::from(x)] = out[c];
            }
        }
        Some((from, table))
    }

    fn texel(self, [r, g, b, a]: [u8; 4]) -> [u8; 4] {
        let unorm = |x: f32| (x.clamp(0.0, 1.0) * 255.0 + 0.5).floor() as u8;
        let f = |c: u8| f32::from(c) / 255.0;
        match self {
            Derive::Scale(k) => {
                let k = k.clamp(Vec4::ZERO, Vec4::ONE);
                let s = |c: u8, f: f32| (f32::from(c) * f + 0.5).floor() as u8;
                [s(r, k.x), s(g, k.y), s(b, k.z), s(a, k.w)]
            }
            Derive::Occlusion(s) => {
                let v = unorm(1.0 + s * (f(r) - 1.0));
                [v, v, v, 255]
            }
            Derive::Metal(m) => {
                let v = unorm(1.0 - 0.5 * (m.clamp(0.0, 1.0) * f(b)));
                [v, v, v, 255]
            }
            Derive::NormalScale(s) => {
                let n = Vec3::new(2.0 * f(r) - 1.0, 2.0 * f(g) - 1.0, 2.0 * f(b) - 1.0)
                    * Vec3::new(s, s, 1.0);
                let n = n.normalize_or_zero();
                let e = |x: f32| unorm(0.5 * (x + 1.0));
                [e(n.x), e(n.y), e(n.z), a]
            }
        }
    }
}

/// Textures derived from imported ones (emission × factor, occlusion dark maps, scaled
/// normal maps, base × light colours), one per (source, rule), so leaves that share a material
/// share the copy.
#[derive(Default)]
struct DerivedTextures(Vec<(Arc<Texture>, [u32; 5], Arc<Texture>)>);

impl DerivedTextures {
    /// `texture` with its RGB multiplied by `factor` (clamped to [0, 1]); the texture itself
    /// for a white factor.
    fn scaled(&mut self, texture: &Arc<Texture>, factor: Vec3) -> Arc<Texture> {
        self.derived(texture, Derive::Scale(factor.extend(1.0)))
    }

    /// `texture` made by `rule` from every texel of level 0 (same size and format; mips
    /// rebuilt when the source has them). The source itself when the rule changes nothing.
    fn derived(&mut self, texture: &Arc<Texture>, rule: Derive) -> Arc<Texture> {
        let identity = match rule {
            Derive::Scale(f) => f.clamp(Vec4::ZERO, Vec4::ONE) == Vec4::ONE,
            Derive::NormalScale(s) => s == 1.0,
            Derive::Occlusion(_) | Derive::Metal(_) => false,
        };
        if identity {
            return Arc::clone(texture);
        }
        let key = rule.key();
        if let Some((_, _, t)) = self
            .0
            .iter()
            .find(|(src, k, _)| Arc::ptr_eq(src, texture) && *k == key)
        {
            return Arc::clone(t);
        }
        let Some(level) = texture.level(0) else {
            return Arc::clone(texture);
        };
        let bytes: Vec<u8> = match rule.tables() {
            // Output channel c is table c at input channel `from[c]`: the same bytes as
            // `texel`, without its float work per texel (a third of a load's CPU, measured).
            Some((from, table)) => level
                .to_texels()
                .iter()
                .flat_map(|t| {
                    std::array::from_fn::<u8, 4, _>(|c| table[c][usize::from(t[from[c]])])
                })
                .collect(),
            None => level
                .to_texels()
                .iter()
                .flat_map(|&t| rule.texel(t))
                .collect(),
        };
        let format = match rule {
            Derive::Occlusion(_) | Derive::Metal(_) => plumb_raster::texture::TexelFormat::Rgb8,
            _ => texture.format(),
        };
        let made = match Texture::from_rgba8(level.width(), level.height(), bytes)
            .map(|t| t.with_format(format))
        {
            Ok(t) if texture.level_count() > 1 => Arc::new(t.with_generated_mips()),
            Ok(t) => Arc::new(t),
            // Same size as a texture that exists: cannot fail; keep the source if it does.
            Err(_) => Arc::clone(texture),
        };
        self.0.push((Arc::clone(texture), key, Arc::clone(&made)));
        made
    }
}

/// The mean of level 0's blue and green channels in 0..1 (a metallic-roughness texture's
/// metallic and roughness), from exact integer sums; `(1, 1)` for a texture without texels.
fn mean_blue_green(texture: &Texture) -> (f32, f32) {
    let Some(level) = texture.level(0) else {
        return (1.0, 1.0);
    };
    let texels = level.to_texels();
    if texels.is_empty() {
        return (1.0, 1.0);
    }
    let (b, g) = texels.iter().fold((0u64, 0u64), |(b, g), t| {
        (b + u64::from(t[2]), g + u64::from(t[1]))
    });
    let n = 255.0 * texels.len() as f64;
    ((b as f64 / n) as f32, (g as f64 / n) as f32)
}

/// A 1×1 texture of one colour (RGBA; `None` only if a 1×1 texture were refused).
fn solid(color: Vec4) -> Option<Arc<Texture>> {
    let c = color
        .clamp(Vec4::ZERO, Vec4::ONE)
        .to_array()
        .map(|x| (x * 255.0 + 0.5).floor() as u8);
    Texture::from_rgba8(1, 1, c.to_vec()).ok().map(Arc::new)
}

/// Combiner adding the texture's RGB and keeping the incoming alpha.
const ADD_RGB_KEEP_ALPHA: CombineState = CombineState {
    rgb: CombineFn::Add,
    alpha: CombineFn::Replace,
    src_alpha: [Source::Previous, Source::Previous, Source::Constant],
    ..CombineState::MODULATE
};

/// The alpha mode's blend and test states and `doubleSided`'s culling (module docs).
fn alpha_and_culling(
    scene: &mut Scene,
    node: NodeId,
    m: &ImportedMaterial,
) -> Result<(), SceneError> {
    match m.alpha_mode {
        AlphaMode::Opaque => {}
        // The test, then the colour replaces (`ONE, ZERO`: still drawn as opaque) while the
        // alpha composites "over", so a kept fragment leaves an opaque background opaque.
        AlphaMode::Mask { cutoff } => scene.set_global_state(
            node,
            GlobalState::Alpha(AlphaState {
                blend_enabled: true,
                src_blend: BlendFactor::One,
                dst_blend: BlendFactor::Zero,
                alpha_factors: AlphaState::BLEND_OVER.alpha_factors,
                ..AlphaState::alpha_test(CompareFunc::GreaterEqual, cutoff)
            }),
        )?,
        AlphaMode::Blend => {
            scene.set_global_state(node, GlobalState::Alpha(AlphaState::BLEND_OVER))?;
            scene.set_global_state(node, GlobalState::ZBuffer(ZBufferState::READ_ONLY))?;
        }
    }
    if m.double_sided {
        scene.set_global_state(node, GlobalState::Cull(CullState::NONE))?;
    }
    Ok(())
}

/// A lit leaf drawn with glTF's BRDF ([`Shading::Pbr`]): its alpha and culling states and an
/// [`Effect::Pbr`] of the material's factors and textures (a texture whose uv set the mesh
/// lacks is dropped with a warning; so is a normal texture on a mesh without tangents).
/// `KHR_materials_pbrSpecularGlossiness` is drawn as a dielectric of its diffuse colour with
/// roughness `1 − glossiness`.
fn apply_pbr_material(
    scene: &mut Scene,
    node: NodeId,
    m: &ImportedMaterial,
    ctx: &mut MaterialCtx<'_>,
) -> Result<(), SceneError> {
    let mesh = Arc::clone(scene.mesh(node)?);
    alpha_and_culling(scene, node, m)?;
    let name = scene.node(node)?.name.clone();
    let mut placed = |b: &Option<TextureBinding>, what: &str| {
        let b = b.as_ref()?;
        let s = stage(b, &mesh, ApplyMode::Modulate);
        if s.is_none() {
            ctx.warnings.push(format!(
                "'{name}': {what} reads TEXCOORD_{}, which the mesh lacks; drawn without it",
                b.tex_coord
            ));
        }
        s
    };
    let (metallic, roughness, mr_texture) = match m.specular_glossiness {
        Some(sg) => (0.0, 1.0 - sg.glossiness, None),
        None => (
            m.metallic,
            m.roughness,
            placed(&m.metallic_roughness_texture, "metallicRoughnessTexture"),
        ),
    };
    let mut normal_texture = placed(&m.normal_texture, "normalTexture");
    let base_color_texture = placed(&m.base_color_texture, "baseColorTexture");
    let occlusion_texture = placed(&m.occlusion_texture, "occlusionTexture");
    let emissive_texture = placed(&m.emissive_texture, "emissiveTexture");
    if normal_texture.is_some() && (mesh.tangents().is_none() || mesh.normals().is_none()) {
        ctx.warnings.push(format!(
            "'{name}': normalTexture not drawn: the mesh has no tangents or no normals"
        ));
        normal_texture = None;
    }
    let surface = PbrSurface {
        base_color: m.base_color,
        metallic,
        roughness,
        emissive: m.emissive,
        normal_scale: m.normal_scale,
        occlusion_strength: m.occlusion_strength,
        base_color_texture,
        metallic_roughness_texture: mr_texture,
        normal_texture,
        occlusion_texture,
        emissive_texture,
        opaque: m.alpha_mode == AlphaMode::Opaque,
        double_sided: m.double_sided,
    };
    scene.set_effect(node, Some(Effect::Pbr(Arc::new(surface))))?;
    Ok(())
}

/// Sets one geometry leaf's states, effect and (when colours carry the material) mesh.
fn apply_material(
    scene: &mut Scene,
    node: NodeId,
    m: &ImportedMaterial,
    unlit: bool,
    ctx: &mut MaterialCtx<'_>,
) -> Result<(), SceneError> {
    let mesh = Arc::clone(scene.mesh(node)?);
    let opaque = m.alpha_mode == AlphaMode::Opaque;
    // A metal's highlight carries its colour (F0 = base colour), which per-vertex colours
    // would have to tint vertex by vertex; the fixed-function specular colour is one per
    // material, so vertex-coloured surfaces are approximated as dielectrics.
    let ff = if mesh.colors().is_some() {
        ImportedMaterial {
            metallic: 0.0,
            ..m.clone()
        }
        .fixed_function_approximation()
    } else {
        m.fixed_function_approximation()
    };
    // The metal map (module docs): diffuse and ambient at metallic 0 (the stage scales them
    // per texel), specular and shininess at the texture's mean metallic and roughness.
    let metal = m
        .metallic_roughness_texture
        .as_ref()
        .filter(|_| !unlit && mesh.colors().is_none());
    let ff = match metal {
        Some(b) => {
            let (blue, green) = mean_blue_green(&b.texture);
            let mean = ImportedMaterial {
                metallic: m.metallic.clamp(0.0, 1.0) * blue,
                roughness: m.roughness.clamp(0.0, 1.0) * green,
                ..m.clone()
            };
            let dielectric = ImportedMaterial {
                metallic: 0.0,
                ..mean.clone()
            }
            .fixed_function_approximation();
            super::material::FixedFunctionColors {
                ambient: dielectric.ambient,
                diffuse: dielectric.diffuse,
                ..mean.fixed_function_approximation()
            }
        }
        None => ff,
    };
    let alpha_of = |a: f32| if opaque { 1.0 } else { a };

    // The colour that multiplies each vertex colour: the base colour unlit, the diffuse
    // colour lit (colour material).
    let tint = if unlit {
        m.base_color.truncate().extend(alpha_of(m.base_color.w))
    } else {
        ff.diffuse.truncate().extend(alpha_of(ff.diffuse.w))
    };
    let needs_colors = mesh.colors().is_some() || (unlit && tint != Vec4::ONE);
    if needs_colors {
        let colors: Vec<Vec4> = match mesh.colors() {
            Some(c) => c
                .iter()
                .map(|&c| {
                    let c = c * tint;
                    c.truncate().extend(alpha_of(c.w))
                })
                .collect(),
            None => vec![tint; mesh.positions().len()],
        };
        let recolored = Mesh::clone(&mesh).with_colors(colors)?;
        scene.set_mesh(node, Arc::new(recolored))?;
    }

    let emissive_texture = m
        .emissive_texture
        .as_ref()
        .filter(|_| !unlit && m.emissive != Vec3::ZERO);
    if !unlit {
        let material = MaterialState {
            emissive: if emissive_texture.is_some() {
                Vec4::new(0.0, 0.0, 0.0, 1.0)
            } else {
                ff.emissive.extend(1.0)
            },
            ambient: ff.ambient.extend(1.0),
            diffuse: ff.diffuse.truncate().extend(alpha_of(ff.diffuse.w)),
            specular: ff.specular.extend(1.0),
            shininess: ff.shininess,
            color_material: mesh.colors().is_some(),
            two_sided: m.double_sided,
        };
        scene.set_global_state(node, GlobalState::Material(material))?;
    }
    alpha_and_culling(scene, node, m)?;

    let name = scene.node(node)?.name.clone();
    let mut warn = |what: &str, b: &TextureBinding| {
        ctx.warnings.push(format!(
            "'{name}': {what} reads TEXCOORD_{}, which the mesh lacks; drawn without it",
            b.tex_coord
        ));
    };
    let mut placed = |b: &TextureBinding, apply: ApplyMode, what: &str| {
        let s = stage(b, &mesh, apply);
        if s.is_none() {
            warn(what, b);
        }
        s
    };
    let base_apply = if opaque {
        ApplyMode::Combine(MODULATE_RGB_KEEP_ALPHA)
    } else {
        ApplyMode::Modulate
    };
    let base = m
        .base_color_texture
        .as_ref()
        .and_then(|b| placed(b, base_apply, "baseColorTexture"));
    let occlusion = match m.occlusion_texture.as_ref().filter(|_| !unlit) {
        Some(b) => {
            let dark = TextureBinding {
                texture: ctx
                    .derived
                    .derived(&b.texture, Derive::Occlusion(m.occlusion_strength)),
                ..b.clone()
            };
            placed(
                &dark,
                ApplyMode::Combine(MODULATE_RGB_KEEP_ALPHA),
                "occlusionTexture",
            )
        }
        None => None,
    };
    let metal = match metal {
        Some(b) => {
            let map = TextureBinding {
                texture: ctx.derived.derived(&b.texture, Derive::Metal(m.metallic)),
                ..b.clone()
            };
            placed(
                &map,
                ApplyMode::Combine(MODULATE_RGB_KEEP_ALPHA),
                "metallicRoughnessTexture",
            )
        }
        None => None,
    };
    let emission = match emissive_texture {
        Some(b) => {
            let scaled = TextureBinding {
                texture: ctx.derived.scaled(&b.texture, m.emissive),
                ..b.clone()
            };
            placed(&scaled, ApplyMode::Add, "emissiveTexture")
        }
        None => None,
    };
    let normal = match m.normal_texture.as_ref().filter(|_| !unlit) {
        Some(b) => {
            let scaled = TextureBinding {
                texture: ctx
                    .derived
                    .derived(&b.texture, Derive::NormalScale(m.normal_scale)),
                ..b.clone()
            };
            placed(
                &scaled,
                ApplyMode::Combine(CombineState::DOT3),
                "normalTexture",
            )
        }
        None => None,
    };
    if let Some(normal_map) = normal {
        let bump = match ctx.bump {
            None => Err("no directional, point or spot light is on"),
            Some(_) if mesh.normals().is_none() => Err("the mesh has no normals"),
            Some(l) => Ok(l),
        };
        match bump {
            Ok(light) => {
                let effect = bump_effect(
                    m,
                    &ff,
                    opaque,
                    light,
                    normal_map,
                    base,
                    [occlusion, metal].into_iter().flatten().collect(),
                    emission,
                    emissive_texture.is_some(),
                    ctx,
                );
                scene.set_effect(node, Some(effect))?;
                return Ok(());
            }
            Err(why) => ctx
                .warnings
                .push(format!("'{name}': normalTexture not drawn: {why}")),
        }
    }
    let stages: Vec<TextureStage> = [base, occlusion, metal, emission]
        .into_iter()
        .flatten()
        .collect();
    if !stages.is_empty() {
        scene.set_effect(node, Some(Effect::Textures(stages)))?;
    }
    Ok(())
}

/// The bump-map effect of a lit, normal-mapped leaf (stages in the [module docs](self)).
#[allow(
    clippy::too_many_arguments,
    reason = "one private call site; the parts of one leaf"
)]
fn bump_effect(
    m: &ImportedMaterial,
    ff: &super::material::FixedFunctionColors,
    opaque: bool,
    light: BumpLight,
    normal_map: TextureStage,
    base: Option<TextureStage>,
    dark_maps: Vec<TextureStage>,
    emission: Option<TextureStage>,
    has_emissive_texture: bool,
    ctx: &mut MaterialCtx<'_>,
) -> Effect {
    let alpha = if opaque { 1.0 } else { ff.diffuse.w };
    // The base texture and its coordinates, or a white 1×1 on the normal map's.
    let (texture, template) = match &base {
        Some(s) => (Arc::clone(&s.texture), s.clone()),
        None => (
            solid(Vec4::ONE).unwrap_or_else(|| Arc::clone(&normal_map.texture)),
            normal_map.clone(),
        ),
    };
    let base_apply = if opaque {
        ApplyMode::Combine(MODULATE_RGB_KEEP_ALPHA)
    } else {
        ApplyMode::Modulate
    };
    let lit = TextureStage {
        texture: ctx.derived.derived(
            &texture,
            Derive::Scale((ff.diffuse.truncate() * light.diffuse).extend(alpha)),
        ),
        apply: base_apply,
        constant: Vec4::new(0.0, 0.0, 0.0, 1.0),
        ..template.clone()
    };
    let mut extra = Vec::new();
    let ambient = ff.ambient * light.ambient;
    if ambient.max_element() > 0.0 {
        extra.push(TextureStage {
            texture: ctx
                .derived
                .derived(&texture, Derive::Scale(ambient.extend(1.0))),
            apply: ApplyMode::Combine(ADD_RGB_KEEP_ALPHA),
            constant: Vec4::new(0.0, 0.0, 0.0, 1.0),
            ..template
        });
    }
    extra.extend(dark_maps);
    match emission {
        Some(e) => extra.push(e),
        None if !has_emissive_texture && m.emissive.max_element() > 0.0 => {
            if let Some(t) = solid(m.emissive.extend(1.0)) {
                extra.push(TextureStage {
                    texture: t,
                    apply: ApplyMode::Combine(ADD_RGB_KEEP_ALPHA),
                    ..normal_map.clone()
                });
            }
        }
        None => {}
    }
    Effect::BumpMap {
        base: lit,
        normal_map,
        light: light.id,
        extra,
    }
}

#[cfg(feature = "internal-tests")]
pub(crate) mod tests {
    /// Every test of this module: `tests/unit.rs` runs each as one trial (an unlisted
    /// test fails the build as dead code).
    pub(crate) const TESTS: &[(&str, fn())] = &[
        (
            "alpha_modes_culling_and_lighting_states",
            alpha_modes_culling_and_lighting_states,
        ),
        (
            "vertex_colours_carry_the_material_colour",
            vertex_colours_carry_the_material_colour,
        ),
        (
            "texture_stage_sampler_uv_set_and_matrix",
            texture_stage_sampler_uv_set_and_matrix,
        ),
        (
            "emissive_texture_is_scaled_by_the_factor_once_per_image_and_factor",
            emissive_texture_is_scaled_by_the_factor_once_per_image_and_factor,
        ),
        (
            "unlit_option_attaches_no_lights",
            unlit_option_attaches_no_lights,
        ),
        ("punctual_light_rule", punctual_light_rule),
        ("key_light_follows_the_camera", key_light_follows_the_camera),
        (
            "derived_tables_equal_the_texel_rule",
            derived_tables_equal_the_texel_rule,
        ),
    ];

    use glam::{Mat3, Vec2};
    use plumb_raster::texture::{Sampler, Texture};

    use super::*;
    use crate::io::material::uv_transform_matrix;
    use crate::values::effect::TexCoords;
    use crate::values::light::LightId;
    use crate::values::state::BlendFactor;

    /// The classic mapping these tests check (fixed-function render state, the rig).
    fn classic() -> ApplyOptions {
        ApplyOptions {
            shading: Shading::Classic,
            ..ApplyOptions::default()
        }
    }

    /// The lookup tables give what [`Derive::texel`] gives, for every rule but the normal
    /// scale and every value of every channel (each channel walks 0..=255 at its own stride,
    /// so every output channel meets every value of its source channel).
    fn derived_tables_equal_the_texel_rule() {
        let rules = [
            Derive::Scale(Vec4::new(0.3, 1.0, 0.77, 0.5)),
            Derive::Scale(Vec4::new(2.0, -1.0, 0.999, 0.0)),
            Derive::Occlusion(0.65),
            Derive::Occlusion(1.0),
            Derive::Metal(1.0),
            Derive::Metal(0.37),
        ];
        for rule in rules {
            let (from, table) = rule.tables().expect("a per-channel rule");
            for x in 0..=255u32 {
                let t = [x, x * 7 + 3, x * 13 + 5, x * 31 + 11].map(|v| (v % 256) as u8);
                let looked: [u8; 4] = std::array::from_fn(|c| table[c][usize::from(t[from[c]])]);
                assert_eq!(looked, rule.texel(t), "{rule:?} at {t:?}");
            }
        }
        assert!(Derive::NormalScale(0.5).tables().is_none());
    }

    fn quad(colors: Option<Vec4>) -> Mesh {
        let m = Mesh::triangles(
            vec![
                Vec3::new(-1.0, -1.0, 0.0),
                Vec3::new(1.0, -1.0, 0.0),
                Vec3::new(1.0, 1.0, 0.0),
            ],
            vec![0, 1, 2],
        )
        .unwrap()
        .with_normals(vec![Vec3::Z; 3])
        .unwrap()
        .with_uv_set(vec![Vec2::ZERO, Vec2::X, Vec2::ONE])
        .unwrap();
        match colors {
            Some(c) => m.with_colors(vec![c; 3]).unwrap(),
            None => m,
        }
    }

    fn binding(tex_coord: u32) -> TextureBinding {
        TextureBinding {
            texture: Arc::new(Texture::from_rgba8(1, 1, vec![255; 4]).unwrap()),
            sampler: Sampler::NEAREST,
            tex_coord,
            uv_transform: uv_transform_matrix(Vec2::new(0.5, 0.0), 0.0, Vec2::splat(2.0)),
            source: "t.png".into(),
        }
    }

    /// A scene with one leaf per material, and the matching import record.
    fn setup(materials: Vec<(ImportedMaterial, Option<Vec4>)>) -> (Scene, Imported, Vec<NodeId>) {
        let mut scene = Scene::new();
        let root = scene.root();
        let mut imported = Imported::default();
        let mut ids = Vec::new();
        for (i, (m, colors)) in materials.into_iter().enumerate() {
            let id = scene
                .add_geometry(root, format!("leaf{i}"), Arc::new(quad(colors)))
                .unwrap();
            imported.materials.insert(id, Arc::new(m));
            ids.push(id);
        }
        (scene, imported, ids)
    }

    fn alpha_modes_culling_and_lighting_states() {
        let (mut scene, imported, ids) = setup(vec![
            (ImportedMaterial::default(), None),
            (
                ImportedMaterial {
                    alpha_mode: AlphaMode::Mask { cutoff: 0.3 },
                    double_sided: true,
                    ..ImportedMaterial::default()
                },
                None,
            ),
            (
                ImportedMaterial {
                    alpha_mode: AlphaMode::Blend,
                    unlit: true,
                    ..ImportedMaterial::default()
                },
                None,
            ),
        ]);
        let applied = apply(&mut scene, &imported, &classic()).unwrap();
        scene.update(0.0);
        assert_eq!(applied.lit, vec![ids[0], ids[1]]);
        assert_eq!(applied.unlit, vec![ids[2]]);
        let key_fill: Vec<LightId> = applied.lights.iter().map(|l| l.0).collect();
        assert_eq!(
            applied.lights.iter().map(|l| l.1).collect::<Vec<_>>(),
            vec![LightSource::Key, LightSource::Fill]
        );

        let opaque = scene.resolved(ids[0]).unwrap();
        assert_eq!(opaque.states.alpha, AlphaState::OPAQUE);
        assert_eq!(opaque.states.cull, CullState::BACK);
        assert_eq!(opaque.lights, key_fill);
        assert!(!opaque.states.material.two_sided);
        // Default material (metallic 1): diffuse = half the white base colour, alpha 1.
        assert_eq!(
            opaque.states.material.diffuse,
            Vec4::new(0.5, 0.5, 0.5, 1.0)
        );

        let mask = scene.resolved(ids[1]).unwrap();
        assert!(mask.states.alpha.test_enabled && !mask.states.alpha.is_transparent());
        assert_eq!(
            mask.states.alpha.alpha_factors,
            Some((BlendFactor::One, BlendFactor::OneMinusSrcAlpha))
        );
        assert_eq!(mask.states.alpha.test, CompareFunc::GreaterEqual);
        assert_eq!(mask.states.alpha.reference, 0.3);
        assert_eq!(mask.states.cull, CullState::NONE);
        assert!(mask.states.material.two_sided);
        assert!(mask.states.zbuffer.writable);

        let blend = scene.resolved(ids[2]).unwrap();
        assert!(blend.states.alpha.blend_enabled);
        assert_eq!(blend.states.alpha.src_blend, BlendFactor::SrcAlpha);
        assert_eq!(blend.states.alpha.dst_blend, BlendFactor::OneMinusSrcAlpha);
        // Alpha composites "over": 0.5 over an opaque 1 stays 1 (0.5·1 + 0.5·1).
        assert_eq!(
            blend.states.alpha.alpha_factors,
            Some((BlendFactor::One, BlendFactor::OneMinusSrcAlpha))
        );
        assert_eq!(blend.states.zbuffer, ZBufferState::READ_ONLY);
        assert!(blend.lights.is_empty(), "unlit leaves get no lights");
    }

    fn vertex_colours_carry_the_material_colour() {
        let base = Vec4::new(1.0, 0.5, 0.25, 0.5);
        let vc = Vec4::new(0.5, 1.0, 1.0, 0.5);
        // Metallic 0.8, but vertex colours make it a dielectric (Kd = base, Ks = 0.04).
        let lit = ImportedMaterial {
            base_color: base,
            metallic: 0.8,
            alpha_mode: AlphaMode::Blend,
            ..ImportedMaterial::default()
        };
        let unlit = ImportedMaterial {
            unlit: true,
            alpha_mode: AlphaMode::Opaque,
            ..lit.clone()
        };
        let (mut scene, imported, ids) = setup(vec![(lit, Some(vc)), (unlit, Some(vc))]);
        apply(&mut scene, &imported, &classic()).unwrap();
        scene.update(0.0);
        // Lit, dielectric: Kd = base; colours = vc × Kd with alpha vc.a × base.a; colour
        // material on.
        let c = scene.mesh(ids[0]).unwrap().colors().unwrap()[0];
        assert_eq!(c, Vec4::new(0.5, 0.5, 0.25, 0.25));
        assert!(
            scene
                .resolved(ids[0])
                .unwrap()
                .states
                .material
                .color_material
        );
        // Unlit, opaque: colours = vc × base with alpha forced to 1.
        let c = scene.mesh(ids[1]).unwrap().colors().unwrap()[0];
        assert_eq!(c, Vec4::new(0.5, 0.5, 0.25, 1.0));
    }

    fn texture_stage_sampler_uv_set_and_matrix() {
        let with_tex = |tex_coord, alpha_mode| ImportedMaterial {
            base_color_texture: Some(binding(tex_coord)),
            alpha_mode,
            ..ImportedMaterial::default()
        };
        let (mut scene, imported, ids) = setup(vec![
            (with_tex(0, AlphaMode::Blend), None),
            (with_tex(0, AlphaMode::Opaque), None),
            (with_tex(3, AlphaMode::Blend), None),
        ]);
        apply(&mut scene, &imported, &classic()).unwrap();
        let Some(Effect::Textures(stages)) = scene.effect(ids[0]).unwrap() else {
            panic!("no texture effect");
        };
        assert_eq!(stages.len(), 1);
        let s = &stages[0];
        assert_eq!(s.apply, ApplyMode::Modulate);
        assert_eq!(s.coords, TexCoords::Uv(0));
        assert_eq!(s.sampler, Sampler::NEAREST);
        // scale 2 then offset (0.5, 0): u' = 2u + 0.5.
        assert_eq!(
            s.matrix * Vec3::new(0.25, 0.5, 1.0),
            Vec3::new(1.0, 1.0, 1.0)
        );
        assert_ne!(s.matrix, Mat3::IDENTITY);
        let Some(Effect::Textures(stages)) = scene.effect(ids[1]).unwrap() else {
            panic!("no texture effect");
        };
        assert_eq!(stages[0].apply, ApplyMode::Combine(MODULATE_RGB_KEEP_ALPHA));
        // uv set 3 does not exist: no stage.
        assert!(scene.effect(ids[2]).unwrap().is_none());
    }

    fn emissive_texture_is_scaled_by_the_factor_once_per_image_and_factor() {
        let texture = Arc::new(
            Texture::from_rgba8(2, 1, vec![200, 100, 50, 255, 10, 20, 30, 128])
                .unwrap()
                .with_generated_mips(),
        );
        let with_emission = |emissive| ImportedMaterial {
            emissive,
            emissive_texture: Some(TextureBinding {
                texture: Arc::clone(&texture),
                ..binding(0)
            }),
            ..ImportedMaterial::default()
        };
        let half = Vec3::new(0.5, 1.0, 0.0);
        let (mut scene, imported, ids) = setup(vec![
            (with_emission(half), None),
            (with_emission(half), None),
            (with_emission(Vec3::ONE), None),
        ]);
        apply(&mut scene, &imported, &classic()).unwrap();
        let emission = |id| match scene.effect(id).unwrap() {
            Some(Effect::Textures(stages)) => {
                assert_eq!(stages.len(), 1);
                assert_eq!(stages[0].apply, ApplyMode::Add);
                Arc::clone(&stages[0].texture)
            }
            other => panic!("{other:?}"),
        };
        let (a, b, white) = (emission(ids[0]), emission(ids[1]), emission(ids[2]));
        // ⌊t·f + ½⌋ on RGB, alpha kept: 200·0.5 = 100, 100·1, 50·0; 10·0.5 + ½ = 5.5 → 5.
        assert_eq!(
            a.level(0).unwrap().to_texels(),
            &[[100, 100, 0, 255], [5, 20, 0, 128]]
        );
        assert_eq!(a.level_count(), texture.level_count(), "mips rebuilt");
        assert!(Arc::ptr_eq(&a, &b), "one copy per image and factor");
        assert!(
            Arc::ptr_eq(&white, &texture),
            "a white factor uses the image"
        );
        // The emission comes from the texture, not from the material colour as well.
        let m = scene.resolved(ids[0]).unwrap().states.material;
        assert_eq!(m.emissive, Vec4::new(0.0, 0.0, 0.0, 1.0));
    }

    fn unlit_option_attaches_no_lights() {
        let (mut scene, imported, ids) = setup(vec![(ImportedMaterial::default(), None)]);
        let applied = apply(
            &mut scene,
            &imported,
            &ApplyOptions {
                unlit: true,
                default_lights: true,
                default_environment: true,
                shading: Shading::Classic,
            },
        )
        .unwrap();
        scene.update(0.0);
        assert!(applied.lights.is_empty());
        assert!(scene.resolved(ids[0]).unwrap().lights.is_empty());
        // Unlit white with no vertex colours: the mesh is left as it was.
        assert!(scene.mesh(ids[0]).unwrap().colors().is_none());
    }

    fn punctual_light_rule() {
        let c = Vec3::new(1.0, 0.5, 0.25);
        let d = scene_light(ImportedLightKind::Directional, c, 3.0, Some(5.0));
        assert_eq!(d.kind, LightType::Directional);
        assert_eq!(d.intensity, 3.0);
        assert_eq!(d.diffuse, c.extend(1.0));
        assert_eq!(d.specular, c.extend(1.0));
        assert_eq!(d.ambient.truncate(), Vec3::ZERO);
        assert_eq!(d.range, None, "a directional light has no range");
        let p = scene_light(ImportedLightKind::Point, c, 4.0, Some(10.0));
        assert_eq!(p.kind, LightType::Point);
        assert!(p.attenuate && p.on);
        assert_eq!((p.constant, p.linear, p.quadratic), (0.0, 0.0, 0.25));
        // At distance d = 2 the factor 1/(quadratic·d²) equals I/d² = 4/4 = 1.
        let (d2, intensity) = (4.0, 4.0);
        assert_eq!(1.0 / (p.quadratic * d2), intensity / d2);
        let s = scene_light(
            ImportedLightKind::Spot {
                inner_cone_angle: 0.2,
                outer_cone_angle: 0.6,
            },
            c,
            1.0,
            None,
        );
        assert_eq!(s.kind, LightType::Spot);
        // The cone: full strength inside 0.2 rad, fading out to 0.6 rad (glTF's smooth edge).
        assert_eq!((s.angle, s.inner_angle), (0.6, Some(0.2)));
        assert_eq!(s.exponent, 0.0);
        assert_eq!(s.range, None);
        assert_eq!(p.range, Some(10.0), "range kept for point and spot lights");
        assert_eq!(
            scene_light(ImportedLightKind::Point, c, 1.0, Some(f32::INFINITY)).range,
            None
        );
        assert!(!scene_light(ImportedLightKind::Point, c, 0.0, None).on);
    }

    fn key_light_follows_the_camera() {
        let (mut scene, imported, _) = setup(vec![(ImportedMaterial::default(), None)]);
        let applied = apply(&mut scene, &imported, &classic()).unwrap();
        let mut camera = Camera::default();
        camera
            .look_at(Vec3::new(0.0, 0.0, 5.0), Vec3::ZERO, Vec3::Y)
            .unwrap();
        applied
            .place_lights(&mut scene, &imported, &camera)
            .unwrap();
        let key = scene.light(applied.lights[0].0).unwrap();
        let want = Vec3::new(0.0, -DEFAULT_KEY_TILT, -1.0).normalize();
        assert!((key.direction - want).length() < 1e-6, "{}", key.direction);
        let fill = scene.light(applied.lights[1].0).unwrap();
        assert_eq!(fill.kind, LightType::Ambient);
        assert_eq!(fill.ambient.truncate(), Vec3::splat(DEFAULT_FILL_AMBIENT));
    }
}
