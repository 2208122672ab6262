//! glTF materials, textures and samplers → [`ImportedMaterial`].
//!
//! Sampler mapping: `magFilter` NEAREST / LINEAR → [`MagFilter`]; `minFilter`'s six modes →
//! the [`MinFilter`] of the same name; an absent filter is linear (mag) and
//! linear-mipmap-linear (min), i.e. trilinear; `wrapS`/`wrapT` REPEAT, MIRRORED_REPEAT,
//! CLAMP_TO_EDGE → [`Wrap`] of the same name. Images are decoded once per glTF image
//! (the texture is shared by `Arc`), always with a full mip chain. The base colour,
//! metallic-roughness, emissive, normal and occlusion textures are decoded. Each texture
//! reads its own uv set: its `texCoord`, or `KHR_texture_transform`'s `texCoord` when the
//! extension gives one (on the normal and occlusion textures too). `KHR_materials_emissive_strength` multiplies `emissiveFactor`.

use std::sync::Arc;

use ::gltf::texture::{MagFilter as GMag, MinFilter as GMin, WrappingMode};
use glam::{Mat3, Vec2, Vec3, Vec4};
use plumb_raster::texture::{MagFilter, MinFilter, Sampler, Texture, Wrap};

use super::ctx::Ctx;
use crate::io::error::IoError;
use crate::io::material::{
    uv_transform_matrix, AlphaMode, ImportedMaterial, SpecularGlossiness, TextureBinding,
};
use crate::io::{texture_image, uri};

/// The plumb sampler for a glTF sampler.
pub(crate) fn sampler(s: &::gltf::texture::Sampler<'_>) -> Sampler {
    let wrap = |w: WrappingMode| match w {
        WrappingMode::ClampToEdge => Wrap::ClampToEdge,
        WrappingMode::MirroredRepeat => Wrap::MirroredRepeat,
        WrappingMode::Repeat => Wrap::Repeat,
    };
    let mut out = Sampler::TRILINEAR;
    out.mag = match s.mag_filter() {
        Some(GMag::Nearest) => MagFilter::Nearest,
        Some(GMag::Linear) | None => MagFilter::Linear,
    };
    out.min = match s.min_filter() {
        Some(GMin::Nearest) => MinFilter::Nearest,
        Some(GMin::Linear) => MinFilter::Linear,
        Some(GMin::NearestMipmapNearest) => MinFilter::NearestMipmapNearest,
        Some(GMin::LinearMipmapNearest) => MinFilter::LinearMipmapNearest,
        Some(GMin::NearestMipmapLinear) => MinFilter::NearestMipmapLinear,
        Some(GMin::LinearMipmapLinear) | None => MinFilter::LinearMipmapLinear,
    };
    out.wrap_u = wrap(s.wrap_s());
    out.wrap_v = wrap(s.wrap_t());
    out
}

fn image_label(img: &::gltf::image::Image<'_>) -> String {
    match (img.source(), img.name()) {
        (::gltf::image::Source::Uri { uri: u, .. }, _) => uri::display_uri(u),
        (_, Some(name)) => name.to_owned(),
        (_, None) => format!("image {}", img.index()),
    }
}

impl Ctx<'_> {
    /// The bytes and declared MIME type of a glTF image (its URI loaded, or its view).
    fn image_bytes(
        &self,
        img: &::gltf::image::Image<'_>,
        label: &str,
    ) -> Result<(Vec<u8>, Option<String>), IoError> {
        Ok(match img.source() {
            ::gltf::image::Source::Uri { uri: u, mime_type } => {
                let r = uri::load(self.base, u, self.options.max_file_bytes).map_err(|reason| {
                    IoError::MissingResource {
                        file: self.file.to_owned(),
                        kind: "image",
                        uri: label.to_owned(),
                        reason,
                    }
                })?;
                (r.bytes, mime_type.map(str::to_owned).or(r.mime))
            }
            ::gltf::image::Source::View { view, mime_type } => {
                let bytes = self.view_bytes(&view).ok_or_else(|| {
                    self.invalid(
                        &format!("image {}", img.index()),
                        format!(
                            "buffer view {} lies past the end of its buffer",
                            view.index()
                        ),
                    )
                })?;
                (bytes.to_vec(), Some(mime_type.to_owned()))
            }
        })
    }

    /// The decoded texture of a glTF image (cached).
    fn texture(&mut self, img: &::gltf::image::Image<'_>) -> Result<Arc<Texture>, IoError> {
        if let Some(t) = self.images.get(&img.index()) {
            return Ok(t.clone());
        }
        let label = image_label(img);
        let (bytes, mime) = self.image_bytes(img, &label)?;
        let tex = Arc::new(texture_image::decode(
            self.file,
            &label,
            &bytes,
            mime.as_deref(),
            self.options.max_texture_size,
            &mut self.texture_budget,
        )?);
        self.images.insert(img.index(), tex.clone());
        Ok(tex)
    }

    /// Decodes, all at once on the import's thread pool, the images of the core textures
    /// (base colour, metallic-roughness, normal, occlusion, emissive) of every material a
    /// primitive uses by default, into the cache [`Ctx::texture`] reads. Each image is fetched, probed and charged to the texture
    /// budget in image order on this thread first, so the budget, the errors and the bytes
    /// are the same whatever the number of threads; then the decodes and mip chains (the
    /// expensive part: JPEG entropy decoding, downsampling) run in parallel. The first error,
    /// in image order, is returned.
    pub(crate) fn prefetch_images(&mut self, doc: &::gltf::Document) -> Result<(), IoError> {
        if !self.options.textures {
            return Ok(());
        }
        let mut wanted = std::collections::BTreeSet::new();
        let used: std::collections::BTreeSet<usize> = doc
            .meshes()
            .flat_map(|m| m.primitives())
            .filter_map(|p| p.material().index())
            .collect();
        for m in doc
            .materials()
            .filter(|m| m.index().is_some_and(|i| used.contains(&i)))
        {
            let pbr = m.pbr_metallic_roughness();
            let infos = [
                pbr.base_color_texture().map(|i| i.texture()),
                pbr.metallic_roughness_texture().map(|i| i.texture()),
                m.normal_texture().map(|i| i.texture()),
                m.occlusion_texture().map(|i| i.texture()),
                m.emissive_texture().map(|i| i.texture()),
            ];
            wanted.extend(infos.into_iter().flatten().map(|t| t.source().index()));
        }
        let mut jobs = Vec::new();
        for img in doc.images().filter(|i| wanted.contains(&i.index())) {
            let label = image_label(&img);
            let (bytes, mime) = self.image_bytes(&img, &label)?;
            let probed = texture_image::probe(
                self.file,
                &label,
                &bytes,
                mime.as_deref(),
                self.options.max_texture_size,
                &mut self.texture_budget,
            )?;
            jobs.push((img.index(), label, bytes, probed));
        }
        use rayon::prelude::*;
        let (file, max_side) = (self.file, self.options.max_texture_size);
        let decoded: Vec<Result<(usize, Texture), IoError>> = jobs
            .into_par_iter()
            .map(|(index, label, bytes, probed)| {
                texture_image::decode_probed(file, &label, &bytes, probed, max_side)
                    .map(|t| (index, t))
            })
            .collect();
        for d in decoded {
            let (index, t) = d?;
            self.images.insert(index, Arc::new(t));
        }
        Ok(())
    }

    fn binding(
        &mut self,
        info: &::gltf::texture::Info<'_>,
        what: &str,
    ) -> Result<Option<TextureBinding>, IoError> {
        let transform = info.texture_transform().map(|t| UvTransform {
            offset: t.offset(),
            rotation: t.rotation(),
            scale: t.scale(),
            tex_coord: t.tex_coord(),
        });
        self.binding_of(&info.texture(), info.tex_coord(), transform, what)
    }

    /// The binding of `tex` read through uv set `tex_coord`, or `transform`'s override.
    fn binding_of(
        &mut self,
        tex: &::gltf::texture::Texture<'_>,
        tex_coord: u32,
        transform: Option<UvTransform>,
        what: &str,
    ) -> Result<Option<TextureBinding>, IoError> {
        if !self.options.textures {
            return Ok(None);
        }
        let img = tex.source();
        let texture = self.texture(&img)?;
        let (uv_transform, tex_coord) = match transform {
            Some(t) => {
                let (o, r, s) = (
                    Vec2::from_array(t.offset),
                    t.rotation,
                    Vec2::from_array(t.scale),
                );
                if !(o.is_finite() && r.is_finite() && s.is_finite()) {
                    return Err(self.non_finite(what, "KHR_texture_transform"));
                }
                (
                    uv_transform_matrix(o, r, s),
                    t.tex_coord.unwrap_or(tex_coord),
                )
            }
            None => (Mat3::IDENTITY, tex_coord),
        };
        Ok(Some(TextureBinding {
            texture,
            sampler: sampler(&tex.sampler()),
            tex_coord,
            uv_transform,
            source: image_label(&img),
        }))
    }
}

/// `KHR_texture_transform` as read from a texture reference.
struct UvTransform {
    offset: [f32; 2],
    rotation: f32,
    scale: [f32; 2],
    tex_coord: Option<u32>,
}

/// `KHR_texture_transform` on a normal or occlusion texture reference, which the `gltf`
/// crate leaves as raw JSON: absent members take the extension's defaults (offset 0,
/// rotation 0, scale 1, no texCoord override).
fn raw_uv_transform(
    ctx: &Ctx<'_>,
    value: Option<&::gltf::json::Value>,
    what: &str,
) -> Result<Option<UvTransform>, IoError> {
    use ::gltf::json::Value;
    let Some(v) = value else {
        return Ok(None);
    };
    let bad = |m: &str| ctx.invalid(what, format!("KHR_texture_transform: {m}"));
    let Value::Object(o) = v else {
        return Err(bad("is not an object"));
    };
    let num = |x: &Value| x.as_f64().map(|f| f as f32);
    let pair = |key: &str, default: [f32; 2]| -> Result<[f32; 2], IoError> {
        match o.get(key) {
            None => Ok(default),
            Some(Value::Array(a)) if a.len() == 2 => match (num(&a[0]), num(&a[1])) {
                (Some(x), Some(y)) => Ok([x, y]),
                _ => Err(bad(&format!("{key} must hold two numbers"))),
            },
            Some(_) => Err(bad(&format!("{key} must be an array of two numbers"))),
        }
    };
    let rotation = match o.get("rotation") {
        None => 0.0,
        Some(x) => num(x).ok_or_else(|| bad("rotation must be a number"))?,
    };
    let tex_coord = match o.get("texCoord") {
        None => None,
        Some(x) => Some(
            x.as_u64()
                .and_then(|t| u32::try_from(t).ok())
                .ok_or_else(|| bad("texCoord must be a non-negative integer"))?,
        ),
    };
    Ok(Some(UvTransform {
        offset: pair("offset", [0.0, 0.0])?,
        rotation,
        scale: pair("scale", [1.0, 1.0])?,
        tex_coord,
    }))
}

/// The uv set a material's normal texture reads (its `texCoord`, or the
/// `KHR_texture_transform` override), when it has one and textures are decoded: the set
/// tangents are generated from.
///
/// # Errors
/// [`IoError::Invalid`] for a malformed `KHR_texture_transform`.
pub(crate) fn normal_uv_set(
    ctx: &Ctx<'_>,
    m: &::gltf::Material<'_>,
) -> Result<Option<u32>, IoError> {
    let Some(n) = m.normal_texture().filter(|_| ctx.options.textures) else {
        return Ok(None);
    };
    let t = raw_uv_transform(
        ctx,
        n.extension_value("KHR_texture_transform"),
        "normalTexture",
    )?;
    Ok(Some(t.and_then(|t| t.tex_coord).unwrap_or(n.tex_coord())))
}

/// Converts a glTF material (the default material when it has no index).
///
/// # Errors
/// [`IoError::NonFinite`] for non-finite factors; image errors from decoding.
pub(crate) fn convert(
    ctx: &mut Ctx<'_>,
    doc: &::gltf::Document,
    m: &::gltf::Material<'_>,
) -> Result<ImportedMaterial, IoError> {
    let label = match (m.index(), m.name()) {
        (Some(i), Some(n)) => format!("material {i} '{n}'"),
        (Some(i), None) => format!("material {i}"),
        (None, _) => "default material".to_owned(),
    };
    let pbr = m.pbr_metallic_roughness();
    let spec_gloss = m.extension_value(SPEC_GLOSS);
    let (base_color, specular_glossiness) = match spec_gloss {
        Some(v) => {
            let (diffuse, sg) = spec_gloss_factors(ctx, v, &label)?;
            (diffuse, Some(sg))
        }
        None => (Vec4::from_array(pbr.base_color_factor()), None),
    };
    let strength = m.emissive_strength().unwrap_or(1.0);
    if !strength.is_finite() {
        return Err(ctx.non_finite(&label, "KHR_materials_emissive_strength"));
    }
    if strength < 0.0 {
        return Err(ctx.invalid(
            &label,
            format!("KHR_materials_emissive_strength: emissiveStrength {strength} is negative"),
        ));
    }
    let emissive = Vec3::from_array(m.emissive_factor()) * strength;
    let (metallic, roughness) = (pbr.metallic_factor(), pbr.roughness_factor());
    let cutoff = m.alpha_cutoff().unwrap_or(0.5);
    if !(base_color.is_finite()
        && emissive.is_finite()
        && metallic.is_finite()
        && roughness.is_finite()
        && cutoff.is_finite())
    {
        return Err(ctx.non_finite(&label, "material factors"));
    }
    let alpha_mode = match m.alpha_mode() {
        ::gltf::material::AlphaMode::Opaque => AlphaMode::Opaque,
        ::gltf::material::AlphaMode::Mask => AlphaMode::Mask { cutoff },
        ::gltf::material::AlphaMode::Blend => AlphaMode::Blend,
    };
    let base_color_texture = match (spec_gloss, pbr.base_color_texture()) {
        (Some(v), _) => spec_gloss_texture(ctx, doc, v, &label)?,
        (None, Some(info)) => ctx.binding(&info, &label)?,
        (None, None) => None,
    };
    let metallic_roughness_texture = match pbr.metallic_roughness_texture() {
        Some(info) => ctx.binding(&info, &label)?,
        None => None,
    };
    let emissive_texture = match m.emissive_texture() {
        Some(info) => ctx.binding(&info, &label)?,
        None => None,
    };
    let (normal_texture, normal_scale) = match m.normal_texture() {
        Some(n) => {
            let what = format!("{label} normalTexture");
            let t = raw_uv_transform(ctx, n.extension_value("KHR_texture_transform"), &what)?;
            if !n.scale().is_finite() {
                return Err(ctx.non_finite(&what, "scale"));
            }
            (
                ctx.binding_of(&n.texture(), n.tex_coord(), t, &what)?,
                n.scale(),
            )
        }
        None => (None, 1.0),
    };
    let (occlusion_texture, occlusion_strength) = match m.occlusion_texture() {
        Some(o) => {
            let what = format!("{label} occlusionTexture");
            let t = raw_uv_transform(ctx, o.extension_value("KHR_texture_transform"), &what)?;
            if !o.strength().is_finite() {
                return Err(ctx.non_finite(&what, "strength"));
            }
            (
                ctx.binding_of(&o.texture(), o.tex_coord(), t, &what)?,
                o.strength().clamp(0.0, 1.0),
            )
        }
        None => (None, 1.0),
    };
    Ok(ImportedMaterial {
        name: m.name().unwrap_or_default().to_owned(),
        base_color,
        base_color_texture,
        alpha_mode,
        double_sided: m.double_sided(),
        emissive,
        emissive_texture,
        normal_texture,
        normal_scale,
        occlusion_texture,
        occlusion_strength,
        unlit: m.unlit(),
        metallic,
        roughness,
        metallic_roughness_texture,
        specular_glossiness,
    })
}

/// `KHR_materials_pbrSpecularGlossiness`, read from its raw JSON (the `gltf` crate is built
/// without it).
const SPEC_GLOSS: &str = "KHR_materials_pbrSpecularGlossiness";

/// The extension's `diffuseFactor` (default white) and its specular and glossiness factors
/// (defaults 1), each in 0..1; values outside, non-finite or malformed are errors.
fn spec_gloss_factors(
    ctx: &Ctx<'_>,
    v: &::gltf::json::Value,
    label: &str,
) -> Result<(Vec4, SpecularGlossiness), IoError> {
    use ::gltf::json::Value;
    let what = format!("{label} {SPEC_GLOSS}");
    let Value::Object(o) = v else {
        return Err(ctx.invalid(&what, "is not an object".to_owned()));
    };
    let numbers = |key: &str, default: &[f32]| -> Result<Vec<f32>, IoError> {
        let bad = || ctx.invalid(&what, format!("{key} must be {} number(s)", default.len()));
        match o.get(key) {
            None => Ok(default.to_vec()),
            Some(Value::Number(x)) if default.len() == 1 => {
                Ok(vec![x.as_f64().ok_or_else(bad)? as f32])
            }
            Some(Value::Array(a)) if a.len() == default.len() => a
                .iter()
                .map(|x| x.as_f64().map(|f| f as f32).ok_or_else(bad))
                .collect(),
            Some(_) => Err(bad()),
        }
    };
    let diffuse = numbers("diffuseFactor", &[1.0; 4])?;
    let specular = numbers("specularFactor", &[1.0; 3])?;
    let glossiness = numbers("glossinessFactor", &[1.0])?;
    if diffuse
        .iter()
        .chain(&specular)
        .chain(&glossiness)
        .any(|x| !x.is_finite())
    {
        return Err(ctx.non_finite(&what, "factors"));
    }
    // The extension's factors are in [0, 1]; one outside is refused, not clamped (issue 50).
    for (key, values) in [
        ("diffuseFactor", &diffuse),
        ("specularFactor", &specular),
        ("glossinessFactor", &glossiness),
    ] {
        if let Some(x) = values.iter().find(|x| !(0.0..=1.0).contains(*x)) {
            return Err(ctx.invalid(&what, format!("{key} holds {x}, outside [0, 1]")));
        }
    }
    Ok((
        Vec4::from_slice(&diffuse),
        SpecularGlossiness {
            specular: Vec3::from_slice(&specular),
            glossiness: glossiness[0],
        },
    ))
}

/// The extension's `diffuseTexture` (with its `texCoord` and `KHR_texture_transform`).
fn spec_gloss_texture(
    ctx: &mut Ctx<'_>,
    doc: &::gltf::Document,
    v: &::gltf::json::Value,
    label: &str,
) -> Result<Option<TextureBinding>, IoError> {
    // The specular-glossiness texture is not drawn, but it must name a texture (issue 50).
    if let Some(info) = v.get("specularGlossinessTexture") {
        let index = info.get("index");
        if index
            .and_then(|i| i.as_u64())
            .and_then(|i| usize::try_from(i).ok())
            .is_none_or(|i| i >= doc.textures().len())
        {
            return Err(ctx.invalid(
                &format!("{label} {SPEC_GLOSS} specularGlossinessTexture"),
                format!(
                    "index {} is not a texture ({} textures)",
                    index.map_or_else(|| "(none)".to_owned(), |i| i.to_string()),
                    doc.textures().len()
                ),
            ));
        }
    }
    let what = format!("{label} {SPEC_GLOSS} diffuseTexture");
    let Some(info) = v.get("diffuseTexture") else {
        return Ok(None);
    };
    let index = info
        .get("index")
        .and_then(|i| i.as_u64())
        .and_then(|i| usize::try_from(i).ok());
    let Some(texture) = index.and_then(|i| doc.textures().nth(i)) else {
        return Err(ctx.invalid(
            &what,
            format!(
                "index {} is not a texture ({} textures)",
                info.get("index")
                    .map_or_else(|| "(none)".to_owned(), |i| i.to_string()),
                doc.textures().len()
            ),
        ));
    };
    let tex_coord = match info.get("texCoord") {
        None => 0,
        Some(t) => t
            .as_u64()
            .and_then(|t| u32::try_from(t).ok())
            .ok_or_else(|| ctx.invalid(&what, format!("texCoord {t} is not a uv set")))?,
    };
    let transform = raw_uv_transform(
        ctx,
        info.get("extensions")
            .and_then(|e| e.get("KHR_texture_transform")),
        &what,
    )?;
    ctx.binding_of(&texture, tex_coord, transform, &what)
}
