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
    check_channels(file, root)
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

/// JSON → validated document, with line/column for syntax errors.
pub(super) fn parse(file: &Path, json: &[u8]) -> Result<Document, IoError> {
    let root = ::gltf::json::Root::from_slice(json)
        .map_err(|e| IoError::from_json(file, &e, "invalid glTF JSON: "))?;
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
    let mut errors: Vec<(String, VError)> = Vec::new();
    // Containment, not validation: `gltf-json`'s validator indexes the document without
    // bounds checks in places (the POSITION case above is one found by fuzzing). The checks
    // above cover the known cases; should another one slip through, its panic becomes a
    // typed error here instead of taking the process down.
    let validated = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        root.validate(&root, ::gltf::json::Path::new, &mut |path, error| {
            let path = path().to_string();
            let tolerated =
                error == VError::Missing && (path.ends_with(".min") || path.ends_with(".max"));
            if !tolerated {
                errors.push((path, error));
            }
        });
    }));
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
    Ok(Document::from_json_without_validation(root))
}
