//! glTF JSON → a validated [`Document`].
//!
//! Syntax errors carry the line and column. Validation is the `gltf` crate's, with two
//! additions that keep its accessors from panicking on malformed files (it assumes these
//! hold): bounds of the POSITION accessor index (its own validator indexes without a
//! check), and the shape of images (a `bufferView` needs a `mimeType`, otherwise a `uri`),
//! cameras (the object their `type` names) and spot lights (a `spot` object), and animation
//! channels (`gltf-json` validates none of a channel's fields, and the `gltf` reader unwraps
//! its target node and path). A missing
//! POSITION `min`/`max`, which the specification requires, is tolerated: plumb computes its
//! own bounds and many exporters omit them.
//!
//! Then what the specification forbids and the Khronos glTF-Validator reports as an
//! **error** although the `gltf` crate accepts it ([`check_spec`], each with the validator's
//! issue code): an asset version other than 2.x, zero-length buffers and buffer views,
//! strides outside 4..=252 or not a multiple of 4, accessors of no elements, meshes without
//! primitives, a node with both `matrix` and TRS, a node with two parents or in a cycle
//! (anywhere in the file, used by a scene or not), and scene nodes that are not roots or are
//! listed twice. `scene/tests/gltf_spec/invalid/` holds a file per class (and `valid/` files
//! the validator accepts); `scripts/gltf-validator-check.mjs` runs the validator itself on
//! them, as a cross-check.

use std::path::Path;

use ::gltf::json::validation::Checked;
use ::gltf::Document;

use crate::io::error::IoError;

fn invalid(file: &Path, context: String, message: &str) -> IoError {
    IoError::Invalid {
        file: file.to_owned(),
        location: None,
        context,
        message: message.to_owned(),
    }
}

/// The structural checks the `gltf` crate's accessors rely on.
fn check_shapes(file: &Path, root: &::gltf::json::Root) -> Result<(), IoError> {
    for (i, img) in root.images.iter().enumerate() {
        let ok = match img.buffer_view {
            Some(_) => img.mime_type.is_some(),
            None => img.uri.is_some(),
        };
        if !ok {
            return Err(invalid(
                file,
                format!("images[{i}]"),
                "needs a uri, or a bufferView with a mimeType",
            ));
        }
    }
    for (i, cam) in root.cameras.iter().enumerate() {
        let ok = match cam.type_ {
            Checked::Valid(::gltf::json::camera::Type::Perspective) => cam.perspective.is_some(),
            Checked::Valid(::gltf::json::camera::Type::Orthographic) => cam.orthographic.is_some(),
            Checked::Invalid => true, // reported by validation
        };
        if !ok {
            return Err(invalid(
                file,
                format!("cameras[{i}]"),
                "lacks the projection object its type names",
            ));
        }
    }
    let lights = root
        .extensions
        .as_ref()
        .and_then(|e| e.khr_lights_punctual.as_ref())
        .map_or(&[][..], |l| l.lights.as_slice());
    for (i, l) in lights.iter().enumerate() {
        use ::gltf::json::extensions::scene::khr_lights_punctual::Type;
        if l.type_ == Checked::Valid(Type::Spot) && l.spot.is_none() {
            return Err(invalid(
                file,
                format!("KHR_lights_punctual.lights[{i}]"),
                "is a spot light without a spot object",
            ));
        }
    }
    check_channels(file, root)?;
    check_spec(file, root)
}

/// What the glTF 2.0 specification forbids and the `gltf` crate accepts; the
/// glTF-Validator's issue code for each is in the message's comment.
fn check_spec(file: &Path, root: &::gltf::json::Root) -> Result<(), IoError> {
    let bad = |context: String, message: String| IoError::Invalid {
        file: file.to_owned(),
        location: None,
        context,
        message,
    };
    // UNKNOWN_ASSET_MAJOR_VERSION / PATTERN_MISMATCH: "<major>.<minor>", major 2.
    let parse_version = |v: &str| -> Option<(u32, u32)> {
        let (major, minor) = v.split_once('.')?;
        let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
        if !digits(major) || !digits(minor) {
            return None;
        }
        Some((major.parse().ok()?, minor.parse().ok()?))
    };
    let version = &root.asset.version;
    match parse_version(version) {
        Some((2, _)) => {}
        Some((major, _)) => {
            return Err(bad(
                "asset.version".to_owned(),
                format!("\"{version}\" is glTF {major}, not glTF 2"),
            ))
        }
        None => {
            return Err(bad(
                "asset.version".to_owned(),
                format!("\"{version}\" is not a version of the form \"2.0\""),
            ))
        }
    }
    // ASSET_MIN_VERSION_GREATER_THAN_VERSION.
    if let Some(min) = &root.asset.min_version {
        match (parse_version(min), parse_version(version)) {
            (Some(m), Some(v)) if m <= v => {}
            _ => {
                return Err(bad(
                    "asset.minVersion".to_owned(),
                    format!("\"{min}\" is not a version at most asset.version \"{version}\""),
                ))
            }
        }
    }
    // VALUE_NOT_IN_RANGE (schema minimum 1).
    for (i, b) in root.buffers.iter().enumerate() {
        if b.byte_length.0 == 0 {
            return Err(bad(
                format!("buffers[{i}].byteLength"),
                "is 0; a buffer holds at least one byte".to_owned(),
            ));
        }
    }
    for (i, v) in root.buffer_views.iter().enumerate() {
        if v.byte_length.0 == 0 {
            return Err(bad(
                format!("bufferViews[{i}].byteLength"),
                "is 0; a buffer view holds at least one byte".to_owned(),
            ));
        }
        // VALUE_NOT_IN_RANGE / VALUE_MULTIPLE_OF.
        if let Some(stride) = v.byte_stride {
            let stride = stride.0;
            if !(4..=252).contains(&stride) || stride % 4 != 0 {
                return Err(bad(
                    format!("bufferViews[{i}].byteStride"),
                    format!("is {stride}; a stride is a multiple of 4 in 4..=252"),
                ));
            }
        }
    }
    for (i, a) in root.accessors.iter().enumerate() {
        if a.count.0 == 0 {
            return Err(bad(
                format!("accessors[{i}].count"),
                "is 0; an accessor holds at least one element".to_owned(),
            ));
        }
    }
    for (i, m) in root.meshes.iter().enumerate() {
        // EMPTY_ENTITY / schema minItems 1.
        if m.primitives.is_empty() {
            return Err(bad(
                format!("meshes[{i}].primitives"),
                "is empty; a mesh has at least one primitive".to_owned(),
            ));
        }
    }
    check_node_graph(file, root)?;
    Ok(())
}

/// The node graph is a forest: no node has two parents (NODE_PARENT_OVERRIDE), there are no
/// cycles (NODE_LOOP), no node lists a child twice or a missing node, and every node a scene
/// lists is a root (SCENE_NON_ROOT_NODE), listed once. Checked over every node, used or not,
/// in linear time.
fn check_node_graph(file: &Path, root: &::gltf::json::Root) -> Result<(), IoError> {
    let bad = |context: String, message: String| IoError::Invalid {
        file: file.to_owned(),
        location: None,
        context,
        message,
    };
    let n = root.nodes.len();
    let mut parent: Vec<Option<usize>> = vec![None; n];
    for (i, node) in root.nodes.iter().enumerate() {
        // Node matrix with TRS: NODE_MATRIX_TRS.
        if node.matrix.is_some()
            && (node.translation.is_some() || node.rotation.is_some() || node.scale.is_some())
        {
            return Err(bad(
                format!("nodes[{i}]"),
                "has both a matrix and translation/rotation/scale".to_owned(),
            ));
        }
        for c in node.children.iter().flatten() {
            let c = c.value();
            if c >= n {
                return Err(bad(
                    format!("nodes[{i}].children"),
                    format!("names node {c}, which does not exist ({n} nodes)"),
                ));
            }
            if c == i {
                return Err(bad(
                    format!("nodes[{i}].children"),
                    "lists the node itself (a cycle)".to_owned(),
                ));
            }
            if let Some(p) = parent[c] {
                return Err(bad(
                    format!("nodes[{c}]"),
                    format!("is a child of both node {p} and node {i} (a node has one parent)"),
                ));
            }
            parent[c] = Some(i);
        }
    }
    // With one parent each, a cycle is a parent chain that never reaches a root. Walk each
    // chain once: 0 unvisited, 1 on the current chain, 2 known to reach a root.
    let mut state = vec![0u8; n];
    for start in 0..n {
        let mut chain = Vec::new();
        let mut at = Some(start);
        while let Some(i) = at {
            match state[i] {
                2 => break,
                1 => {
                    return Err(bad(
                        format!("nodes[{i}]"),
                        "is its own ancestor (the node hierarchy has a cycle)".to_owned(),
                    ))
                }
                _ => {
                    state[i] = 1;
                    chain.push(i);
                    at = parent[i];
                }
            }
        }
        for i in chain {
            state[i] = 2;
        }
    }
    for (s, scene) in root.scenes.iter().enumerate() {
        let mut listed = vec![false; n];
        for node in &scene.nodes {
            let i = node.value();
            if i >= n {
                continue; // reported by the validation that follows
            }
            if let Some(p) = parent[i] {
                return Err(bad(
                    format!("scenes[{s}].nodes"),
                    format!("lists node {i}, which is not a root (its parent is node {p})"),
                ));
            }
            if std::mem::replace(&mut listed[i], true) {
                return Err(bad(
                    format!("scenes[{s}].nodes"),
                    format!("lists node {i} twice"),
                ));
            }
        }
    }
    Ok(())
}

/// Animation channels: `gltf-json`'s validator skips them, and the `gltf` reader panics on a
/// target node out of range or an unknown `path`.
fn check_channels(file: &Path, root: &::gltf::json::Root) -> Result<(), IoError> {
    for (a, anim) in root.animations.iter().enumerate() {
        for (c, ch) in anim.channels.iter().enumerate() {
            let context = format!("animations[{a}].channels[{c}]");
            let node = ch.target.node.value();
            if node >= root.nodes.len() {
                return Err(IoError::Invalid {
                    file: file.to_owned(),
                    location: None,
                    context,
                    message: format!(
                        "target node {node} does not exist ({} nodes)",
                        root.nodes.len()
                    ),
                });
            }
            if ch.target.path == Checked::Invalid {
                return Err(invalid(
                    file,
                    format!("{context}.target.path"),
                    "is not one of translation, rotation, scale, weights",
                ));
            }
            if ch.sampler.value() >= anim.samplers.len() {
                return Err(IoError::Invalid {
                    file: file.to_owned(),
                    location: None,
                    context: format!("{context}.sampler"),
                    message: format!(
                        "sampler {} does not exist ({} samplers)",
                        ch.sampler.value(),
                        anim.samplers.len()
                    ),
                });
            }
        }
    }
    Ok(())
}

/// `accessors[i].bufferView` for every accessor a `KHR_draco_mesh_compression` primitive uses
/// (its attributes and indices): their data is in the Draco stream, so they have no buffer
/// view, which the `gltf-json` validator reports as missing.
fn draco_accessor_paths(root: &::gltf::json::Root) -> std::collections::BTreeSet<String> {
    let mut out = std::collections::BTreeSet::new();
    for prim in root.meshes.iter().flat_map(|m| &m.primitives) {
        let draco = prim
            .extensions
            .as_ref()
            .is_some_and(|e| e.others.contains_key(super::draco::EXT));
        if draco {
            let accessors = prim.attributes.values().chain(prim.indices.as_ref());
            out.extend(accessors.map(|a| format!("accessors[{}].bufferView", a.value())));
        }
    }
    out
}

/// The texture extensions whose image replaces the texture's `source`.
const PREFERRED_SOURCES: [&str; 2] = ["EXT_texture_webp", "KHR_texture_basisu"];

/// `EXT_texture_webp` and `KHR_texture_basisu`: plumb decodes WebP and Basis Universal KTX2,
/// so a texture's `extensions.<ext>.source` replaces its `source` (the fallback, which a file
/// requiring the extension may omit) before the document is read; everything after sees an
/// ordinary texture. A malformed extension object is left for validation to report as the
/// texture's `source`.
fn prefer_extension_sources(doc: &mut serde_json::Value) {
    let Some(textures) = doc.get_mut("textures").and_then(|t| t.as_array_mut()) else {
        return;
    };
    for texture in textures {
        let preferred = PREFERRED_SOURCES.iter().find_map(|ext| {
            texture
                .get("extensions")
                .and_then(|e| e.get(ext))
                .and_then(|w| w.get("source"))
                .cloned()
        });
        if let (Some(source), Some(t)) = (preferred, texture.as_object_mut()) {
            t.insert("source".to_owned(), source);
        }
    }
}

/// JSON → validated document, with line/column for syntax errors.
pub(super) fn parse(file: &Path, json: &[u8]) -> Result<Document, IoError> {
    let sources = |ext: &str| json.windows(ext.len()).any(|w| w == ext.as_bytes());
    let root = if PREFERRED_SOURCES.iter().any(|e| sources(e)) {
        let mut value: serde_json::Value = serde_json::from_slice(json)
            .map_err(|e| IoError::from_json(file, &e, "invalid glTF JSON: "))?;
        prefer_extension_sources(&mut value);
        serde_json::from_value(value)
            .map_err(|e| IoError::from_json(file, &e, "invalid glTF JSON: "))?
    } else {
        ::gltf::json::Root::from_slice(json)
            .map_err(|e| IoError::from_json(file, &e, "invalid glTF JSON: "))?
    };
    super::extensions::check_required(file, &root)?;
    check_shapes(file, &root)?;
    // Validation as the `gltf` crate does it, except that a missing POSITION `min`/`max`
    // is tolerated (plumb computes its own bounds; many exporters omit them).
    use ::gltf::json::validation::{Error as VError, Validate};
    // The `gltf-json` validator indexes the POSITION accessor without a bounds check
    // (it panics on a bad index), so check that first.
    for (i, mesh) in root.meshes.iter().enumerate() {
        for (j, prim) in mesh.primitives.iter().enumerate() {
            let pos = ::gltf::json::validation::Checked::Valid(::gltf::Semantic::Positions);
            if let Some(a) = prim.attributes.get(&pos) {
                if a.value() >= root.accessors.len() {
                    return Err(IoError::Invalid {
                        file: file.to_owned(),
                        location: None,
                        context: format!("meshes[{i}].primitives[{j}].attributes[\"POSITION\"]"),
                        message: format!(
                            "accessor {} does not exist ({} accessors)",
                            a.value(),
                            root.accessors.len()
                        ),
                    });
                }
            }
        }
    }
    let draco_views = draco_accessor_paths(&root);
    let mut errors: Vec<(String, VError)> = Vec::new();
    // Containment, not validation: `gltf-json`'s validator indexes the document without
    // bounds checks in places (the POSITION case above is one found by fuzzing). The checks
    // above cover the known cases; should another one slip through, its panic becomes a
    // typed error here instead of taking the process down.
    let validated = crate::io::contain::contain(|| {
        root.validate(&root, ::gltf::json::Path::new, &mut |path, error| {
            let path = path().to_string();
            // A file may require an extension the `gltf` crate does not list when plumb
            // honours it itself (KHR_mesh_quantization: the accessor reader's integer
            // conversions) or draws the base material without it (`extensions`).
            let required_ok = || {
                path.starts_with("extensionsRequired")
                    && path
                        .rsplit('"')
                        .nth(1)
                        .is_some_and(super::extensions::may_be_required)
            };
            let tolerated = (error == VError::Missing
                && (path.ends_with(".min")
                    || path.ends_with(".max")
                    || draco_views.contains(&path)))
                || (error == VError::Unsupported && required_ok());
            if !tolerated {
                errors.push((path, error));
            }
        });
    });
    if validated.is_err() {
        return Err(IoError::Invalid {
            file: file.to_owned(),
            location: None,
            context: "document".to_owned(),
            message: "the glTF validator failed on this document (malformed references)".to_owned(),
        });
    }
    if let Some((path, what)) = errors.first() {
        let more = if errors.len() > 1 {
            format!(" (and {} more)", errors.len() - 1)
        } else {
            String::new()
        };
        return Err(IoError::Invalid {
            file: file.to_owned(),
            location: None,
            context: path.clone(),
            message: format!("{}{more}", what.to_string().to_lowercase()),
        });
    }
    check_attribute_formats(file, &root)?;
    Ok(Document::from_json_without_validation(root))
}

/// The accessor formats the specification allows for each vertex attribute (glTF 2.0,
/// "Meshes", and `KHR_mesh_quantization` when `extensionsUsed` lists it), and
/// `normalized` only on 8- and 16-bit integers (the validator's ACCESSOR_NORMALIZED_INVALID,
/// MESH_PRIMITIVE_ATTRIBUTES_ACCESSOR_INVALID_FORMAT). Runs after validation, so every
/// accessor index is in range.
fn check_attribute_formats(file: &Path, root: &::gltf::json::Root) -> Result<(), IoError> {
    use super::accessor::{component_name, dims_name};
    use ::gltf::json::accessor::{ComponentType as C, Type as T};
    use ::gltf::json::validation::Checked::Valid;
    use ::gltf::Semantic as S;
    let bad = |context: String, message: String| IoError::Invalid {
        file: file.to_owned(),
        location: None,
        context,
        message,
    };
    for (i, a) in root.accessors.iter().enumerate() {
        if let Valid(ct) = &a.component_type {
            if a.normalized && !matches!(ct.0, C::I8 | C::U8 | C::I16 | C::U16) {
                return Err(bad(
                    format!("accessors[{i}].normalized"),
                    format!(
                        "is true on {} components; only bytes and shorts can be normalized",
                        component_name(ct.0)
                    ),
                ));
            }
        }
    }
    let quantized = root
        .extensions_used
        .iter()
        .any(|e| e == "KHR_mesh_quantization");
    // (types, integer formats allowed without the extension, extra ones with it). Integer
    // formats: (component, normalized). Float is always allowed.
    type Formats = &'static [(C, bool)];
    const NORM8_16: Formats = &[(C::U8, true), (C::U16, true)];
    const SNORM: Formats = &[(C::I8, true), (C::I16, true)];
    const ANY8_16: Formats = &[
        (C::I8, false),
        (C::I8, true),
        (C::U8, false),
        (C::U8, true),
        (C::I16, false),
        (C::I16, true),
        (C::U16, false),
        (C::U16, true),
    ];
    const SIGNED8_16: Formats = &[
        (C::I8, false),
        (C::I8, true),
        (C::I16, false),
        (C::I16, true),
    ];
    const JOINTS: Formats = &[(C::U8, false), (C::U16, false)];
    let rule = |sem: &S, target: bool| -> Option<(&'static [T], bool, Formats, Formats)> {
        Some(match (sem, target) {
            (S::Positions, false) => (&[T::Vec3], true, &[], ANY8_16),
            (S::Normals, false) => (&[T::Vec3], true, &[], SNORM),
            (S::Tangents, false) => (&[T::Vec4], true, &[], SNORM),
            (S::TexCoords(_), false) => (&[T::Vec2], true, NORM8_16, ANY8_16),
            (S::Colors(_), false) => (&[T::Vec3, T::Vec4], true, NORM8_16, &[]),
            (S::Joints(_), false) => (&[T::Vec4], false, JOINTS, &[]),
            (S::Weights(_), false) => (&[T::Vec4], true, NORM8_16, &[]),
            (S::Positions, true) => (&[T::Vec3], true, &[], SIGNED8_16),
            (S::Normals | S::Tangents, true) => (&[T::Vec3], true, &[], SNORM),
            _ => return None,
        })
    };
    for (m, mesh) in root.meshes.iter().enumerate() {
        for (p, prim) in mesh.primitives.iter().enumerate() {
            let targets = prim
                .targets
                .iter()
                .flatten()
                .enumerate()
                .flat_map(|(t, tg)| {
                    [
                        (tg.positions.as_ref(), S::Positions),
                        (tg.normals.as_ref(), S::Normals),
                        (tg.tangents.as_ref(), S::Tangents),
                    ]
                    .into_iter()
                    .filter_map(move |(a, sem)| {
                        a.map(|a| (format!("targets[{t}]"), sem, a.value(), true))
                    })
                });
            let attributes = prim.attributes.iter().filter_map(|(sem, a)| match sem {
                Valid(sem) => Some(("attributes".to_owned(), sem.clone(), a.value(), false)),
                _ => None,
            });
            for (place, sem, index, target) in attributes.chain(targets) {
                let Some((types, float, core, extra)) = rule(&sem, target) else {
                    continue;
                };
                let Some(a) = root.accessors.get(index) else {
                    continue;
                };
                let (Valid(ty), Valid(ct)) = (&a.type_, &a.component_type) else {
                    continue;
                };
                let context = format!("meshes[{m}].primitives[{p}].{place}.{}", sem_name(&sem));
                if !types.contains(ty) {
                    let expected: Vec<&str> = types.iter().map(|t| dims_name(*t)).collect();
                    return Err(bad(
                        context,
                        format!(
                            "accessor {index} is {}, expected {}",
                            dims_name(*ty),
                            expected.join(" or ")
                        ),
                    ));
                }
                let format = (ct.0, a.normalized);
                if (float && ct.0 == C::F32)
                    || core.contains(&format)
                    || (quantized && extra.contains(&format))
                {
                    continue;
                }
                let with = if !quantized && extra.contains(&format) {
                    " without KHR_mesh_quantization, which extensionsUsed does not list"
                } else {
                    ""
                };
                return Err(bad(
                    context,
                    format!(
                        "accessor {index} is {} {}{}, which the specification does not allow \
                         for this attribute{with}",
                        dims_name(*ty),
                        if a.normalized { "normalized " } else { "" },
                        component_name(ct.0),
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// An attribute semantic as the file spells it.
fn sem_name(s: &::gltf::Semantic) -> String {
    use ::gltf::Semantic as S;
    match s {
        S::Positions => "POSITION".to_owned(),
        S::Normals => "NORMAL".to_owned(),
        S::Tangents => "TANGENT".to_owned(),
        S::Colors(n) => format!("COLOR_{n}"),
        S::TexCoords(n) => format!("TEXCOORD_{n}"),
        S::Joints(n) => format!("JOINTS_{n}"),
        S::Weights(n) => format!("WEIGHTS_{n}"),
    }
}
