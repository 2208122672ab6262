//! Importing a glTF or OBJ file under a node of an existing scene, the reader chosen by the
//! file's extension ([`Format`]).

use std::path::Path;

use super::error::IoError;
use super::imported::Imported;
use super::options::ImportOptions;
use super::{gltf, obj};
use crate::graph::{NodeId, Scene};

/// The formats the importers read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// glTF 2.0, JSON or binary.
    Gltf,
    /// Wavefront OBJ (with MTL).
    Obj,
}

impl Format {
    /// The format a file name's extension names (case-insensitive): `.gltf` / `.glb` / `.obj`.
    pub fn from_path(path: &Path) -> Option<Format> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        match ext.as_str() {
            "gltf" | "glb" => Some(Format::Gltf),
            "obj" => Some(Format::Obj),
            _ => None,
        }
    }
}

/// Imports a glTF or OBJ file under `parent`, chosen by extension. On error the scene is
/// unchanged.
///
/// # Errors
/// [`IoError::Unsupported`] for a `.json` scene file (only [`load`](super::load) reads
/// those),
/// [`IoError::UnsupportedFormat`] for another extension; any error of the importer.
pub fn import(
    scene: &mut Scene,
    parent: NodeId,
    path: &Path,
    options: &ImportOptions,
) -> Result<Imported, IoError> {
    let options = options.clamped();
    let is_json = path
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("json"));
    if is_json {
        return Err(IoError::Unsupported {
            file: path.to_owned(),
            context: "import under a node".to_owned(),
            feature: "plumb scene files (load them with `load`)",
        });
    }
    match Format::from_path(path) {
        Some(Format::Gltf) => gltf::import_gltf(scene, parent, path, &options),
        Some(Format::Obj) => obj::import_obj(scene, parent, path, &options),
        None => Err(IoError::UnsupportedFormat {
            file: path.to_owned(),
        }),
    }
}
