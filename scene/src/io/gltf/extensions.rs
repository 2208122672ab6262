//! The glTF extensions plumb knows, and what it does with each: the policy of the runtimes
//! users compare with (three.js, Babylon.js, the Khronos sample viewer).
//!
//! * **Honoured** — read and drawn as the extension specifies (within fixed-function
//!   lighting, for the material ones).
//! * **Ignored: refines a material** — an extension that only adds to a material's look
//!   (clearcoat, sheen, transmission, …). The base material is drawn. A file may *require*
//!   one: it loads, and [`ExtensionUse::warning`] gives the one `warning:` line
//!   `plumb render` prints.
//! * **Ignored: other** — data plumb has no use for (or does not model yet); the file's core
//!   data is drawn. Required: refused as unsupported, since the file says its core data
//!   alone is wrong.
//! * **Refused: cannot decode** — image formats plumb has no decoder for (`EXT_texture_avif`). Used but not required: the fallback data loads. Required: refused naming the
//!   extension ([`check_required`]).
//!
//! An extension not in the table is ignored when only used and refused when required.

use std::path::Path;

use crate::io::error::IoError;
use crate::io::imported::{ExtensionUse, Handling};

/// Every extension plumb knows: name, handling, note.
const KNOWN: &[(&str, Handling, &str)] = &[
    (
        "KHR_lights_punctual",
        Handling::Honoured,
        "point, spot and directional lights",
    ),
    (
        "KHR_materials_unlit",
        Handling::Honoured,
        "drawn without lighting",
    ),
    (
        "KHR_texture_transform",
        Handling::Honoured,
        "texture matrices and uv sets",
    ),
    (
        "KHR_materials_emissive_strength",
        Handling::Honoured,
        "multiplies emissiveFactor",
    ),
    (
        "KHR_mesh_quantization",
        Handling::Honoured,
        "integer vertex attributes",
    ),
    (
        "KHR_draco_mesh_compression",
        Handling::Honoured,
        "Draco-compressed meshes, decoded (every attribute the stream holds)",
    ),
    (
        "EXT_meshopt_compression",
        Handling::Honoured,
        "compressed buffer views, decoded (every mode and filter)",
    ),
    (
        "KHR_texture_basisu",
        Handling::Honoured,
        "Basis Universal KTX2 textures, transcoded to RGBA8 with the file's own mip levels",
    ),
    (
        "EXT_texture_webp",
        Handling::Honoured,
        "WebP textures, decoded (preferred over the fallback source)",
    ),
    ("EXT_texture_avif", Handling::CannotDecode, "AVIF textures"),
    (
        "EXT_mesh_gpu_instancing",
        Handling::Honoured,
        "each instance drawn, sharing the mesh",
    ),
    (
        "KHR_materials_variants",
        Handling::Honoured,
        "each primitive's default material, or the chosen variant's (--variant)",
    ),
    (
        "KHR_materials_pbrSpecularGlossiness",
        Handling::Honoured,
        "diffuse factor and texture, specular and glossiness factors (the specularGlossinessTexture is not used)",
    ),
    (
        "KHR_animation_pointer",
        Handling::Ignored,
        "node transform and morph animation only",
    ),
    ("KHR_xmp_json_ld", Handling::Ignored, "metadata"),
    (
        "KHR_materials_clearcoat",
        Handling::RefinesMaterial,
        "the base material is drawn without its clear coat",
    ),
    (
        "KHR_materials_sheen",
        Handling::RefinesMaterial,
        "the base material is drawn without its sheen",
    ),
    (
        "KHR_materials_transmission",
        Handling::RefinesMaterial,
        "the base material is drawn opaque (no transmission)",
    ),
    (
        "KHR_materials_volume",
        Handling::RefinesMaterial,
        "the base material is drawn without volume attenuation",
    ),
    (
        "KHR_materials_ior",
        Handling::RefinesMaterial,
        "the base material is drawn with the default index of refraction",
    ),
    (
        "KHR_materials_specular",
        Handling::RefinesMaterial,
        "the base material is drawn with the default specular",
    ),
    (
        "KHR_materials_iridescence",
        Handling::RefinesMaterial,
        "the base material is drawn without iridescence",
    ),
    (
        "KHR_materials_anisotropy",
        Handling::RefinesMaterial,
        "the base material is drawn with isotropic highlights",
    ),
    (
        "KHR_materials_dispersion",
        Handling::RefinesMaterial,
        "the base material is drawn without dispersion",
    ),
    (
        "KHR_materials_diffuse_transmission",
        Handling::RefinesMaterial,
        "the base material is drawn without diffuse transmission",
    ),
];

/// Whether a file may require `name` and still load (honoured or a material refinement).
pub(crate) fn may_be_required(name: &str) -> bool {
    matches!(
        lookup(name).0,
        Handling::Honoured | Handling::RefinesMaterial
    )
}

fn lookup(name: &str) -> (Handling, &'static str) {
    KNOWN.iter().find(|(n, _, _)| *n == name).map_or(
        (Handling::Unknown, "not known to plumb"),
        |&(_, h, note)| (h, note),
    )
}

/// Every extension the file names, in `extensionsUsed` order, then any only in
/// `extensionsRequired` (a file should list them in both; not every exporter does).
pub(crate) fn uses(root: &::gltf::json::Root) -> Vec<ExtensionUse> {
    let mut names: Vec<&str> = root.extensions_used.iter().map(String::as_str).collect();
    for r in &root.extensions_required {
        if !names.contains(&r.as_str()) {
            names.push(r);
        }
    }
    names.dedup();
    names
        .into_iter()
        .map(|name| {
            let (handling, note) = lookup(name);
            ExtensionUse {
                name: name.to_owned(),
                required: root.extensions_required.iter().any(|r| r == name),
                handling,
                note,
            }
        })
        .collect()
}

/// Refuses a file that requires an extension whose data plumb cannot decode, naming it,
/// before validation (which would report only its consequences: a Draco mesh's accessors
/// have no buffer view, "missing data").
pub(crate) fn check_required(file: &Path, root: &::gltf::json::Root) -> Result<(), IoError> {
    for (i, ext) in root.extensions_required.iter().enumerate() {
        if let (Handling::CannotDecode, what) = lookup(ext) {
            return Err(IoError::Invalid {
                file: file.to_owned(),
                location: None,
                context: format!("extensionsRequired[{i}]"),
                message: format!("requires {ext} ({what}), which plumb cannot decode"),
            });
        }
    }
    Ok(())
}
