//! plumb's JSON scene format (`.json`, `"format": "plumb-scene"`, version 1), documented
//! field by field in `docs/scene-format.md`.
//!
//! Two steps, so that files round-trip exactly:
//! * [`parse`] / [`read`] turn text into a [`SceneDoc`] (plain serde data; `save(doc)` and
//!   `parse` again give an equal document), and [`save`] writes one back (deterministic:
//!   fields in declaration order, two-space indentation).
//! * [`build`] turns a document into a [`Scene`] plus an [`Imported`] record whose
//!   `cameras` are the file's named cameras (each placed on an empty group node named after
//!   it, appended under the root) and whose materials, lights and animations come from the
//!   glTF / OBJ files it imports. [`load`] does both ([`crate::io::load`] calls it for
//!   `.json`).
//!
//! # Errors and limits
//!
//! Syntax errors, unknown fields (`deny_unknown_fields` everywhere), wrong types, numbers
//! outside the `f32` range and strings where numbers belong are [`IoError::Parse`] with the
//! file, line and column. Semantic errors found while building (a texture name nobody
//! defined, a bad index, a missing file) are [`IoError::Invalid`] / [`IoError::MissingResource`]
//! naming the node path (`root/arm/hand`) and, through [`load`], the line and column where the
//! object concerned starts. Limits: the file is at most [`MAX_FILE_BYTES`]
//! and [`ImportOptions::max_file_bytes`](super::ImportOptions::max_file_bytes); JSON nests at most
//! 128 levels (serde_json's recursion limit, a clean parse error — so node trees nest at most
//! [`MAX_NODE_DEPTH`] levels); at most [`MAX_NODES`] nodes ([`IoError::Limit`]). The work a
//! file generates — meshes, CLOD builds, particles, IK steps, collision pairs, instance
//! nodes, drawn primitives — is charged against
//! [`ImportOptions::budget`](super::ImportOptions::budget) before it is done
//! ([`IoError::Budget`], naming the object and the flag that raises the budget; see
//! [`crate::io::budget`]).

pub(crate) mod build;
mod clod;
mod collisions;
mod ctx;
mod definitions;
pub mod doc;
mod doc_state;
mod effects;
mod limits;
mod locate;
mod meshes;
mod motion;
mod nodes;
mod real;
mod save_bound;
mod save_scene;
mod skin;
mod textures;

/// The unit tests of this module's private children, for [`crate::internal_tests`].
#[cfg(feature = "internal-tests")]
#[allow(
    clippy::type_complexity,
    reason = "the type of crate::UnitTests, spelled out: no import of the crate root"
)]
pub(crate) fn internal_tests() -> [(&'static str, &'static [(&'static str, fn())]); 4] {
    [
        ("io::json::doc_state", doc_state::tests::TESTS),
        ("io::json::locate", locate::tests::TESTS),
        ("io::json::save_bound", save_bound::tests::TESTS),
        ("io::json::save_scene", save_scene::tests::TESTS),
    ]
}

use std::path::Path;

pub use build::build;
pub use doc::*;
pub use limits::{MAX_FILE_BYTES, MAX_NODES, MAX_NODE_DEPTH};
pub use save_bound::{check_saved_size, write_scene, write_scene_limited};
pub use save_scene::{save_scene, SavedScene};

use super::error::IoError;
#[allow(unused_imports, reason = "named in the module docs")]
use super::imported::Imported;
use super::imported::ImportedScene;
use super::ImportOptions;
#[allow(unused_imports, reason = "named in the module docs")]
use crate::graph::Scene;

/// Just the header, read leniently so that a newer version is reported as such rather than
/// as unknown fields.
#[derive(serde::Deserialize)]
#[serde(expecting = "a scene document (a JSON object)")]
struct Header {
    format: Option<serde_json::Value>,
    version: Option<serde_json::Value>,
}

/// Parses scene-file text. `file` names the file in errors.
///
/// # Errors
/// [`IoError::Parse`] (with line and column) for bad JSON, unknown fields, wrong types and
/// non-finite or out-of-range numbers; [`IoError::Invalid`] for another format or version;
/// [`IoError::Limit`] past [`MAX_NODES`] or [`MAX_NODE_DEPTH`].
pub fn parse(file: &Path, text: &str) -> Result<SceneDoc, IoError> {
    let header: Header = serde_json::from_str(text)
        .map_err(|e| IoError::from_json(file, &e, "invalid scene file: "))?;
    let invalid = |message: String| IoError::Invalid {
        file: file.to_owned(),
        location: None,
        context: "header".to_owned(),
        message,
    };
    match &header.format {
        Some(serde_json::Value::String(s)) if s == FORMAT => {}
        Some(other) => {
            return Err(invalid(format!(
                "\"format\" is {other}, expected \"{FORMAT}\""
            )))
        }
        None => return Err(invalid(format!("missing \"format\": \"{FORMAT}\""))),
    }
    match &header.version {
        Some(v) if v.as_u64() == Some(u64::from(VERSION)) => {}
        Some(v) => {
            return Err(invalid(format!(
                "unsupported version {v} (this plumb reads version {VERSION})"
            )))
        }
        None => return Err(invalid(format!("missing \"version\": {VERSION}"))),
    }
    let doc: SceneDoc = serde_json::from_str(text).map_err(|e| IoError::from_json(file, &e, ""))?;
    limits::check_tree(file, &doc.root)?;
    Ok(doc)
}

/// Reads and parses a scene file.
///
/// # Errors
/// [`IoError::Read`], [`IoError::FileTooLarge`], a non-UTF-8 file as [`IoError::Parse`], and
/// everything [`parse`] returns.
pub fn read(path: &Path, options: &ImportOptions) -> Result<SceneDoc, IoError> {
    parse(path, &read_text(path, options)?)
}

fn read_text(path: &Path, options: &ImportOptions) -> Result<String, IoError> {
    let bytes = limits::read_limited(path, options.max_file_bytes.min(MAX_FILE_BYTES))?;
    String::from_utf8(bytes).map_err(|e| IoError::Parse {
        file: path.to_owned(),
        location: None,
        message: format!("not UTF-8 text: {e}"),
    })
}

/// Writes a document as pretty-printed JSON (deterministic; ends with a newline). Arrays of
/// numbers stay on one line (`"translation": [0.0, 1.0, 0.0]`), one vertex per line.
pub fn save(doc: &SceneDoc) -> String {
    // Serializing plain data into a String cannot fail; keep a message rather than panic.
    let pretty =
        serde_json::to_string_pretty(doc).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"));
    plumb_raster::text::compact_number_arrays(&pretty)
}

/// Loads a scene file: [`read`] then [`build`], relative paths resolved against the file's
/// directory; the scene is updated at time 0. Unlike [`build`] alone, errors found while
/// building carry the line and column of the object they are about (a node, texture, light,
/// camera or controller).
///
/// # Errors
/// Everything [`read`] and [`build`] return.
pub fn load(path: &Path, options: &ImportOptions) -> Result<ImportedScene, IoError> {
    load_posed(path, options, build::Pose::TimeZero)
}

/// `doc` built as [`load_posed`] builds a file at rest (no source text: no line numbers).
pub(crate) fn build_at_rest(
    doc: &SceneDoc,
    path: &Path,
    options: &ImportOptions,
) -> Result<ImportedScene, IoError> {
    build::build_located(doc, path, options, &Default::default(), build::Pose::Rest)
}

/// [`load`], leaving the scene in `pose`.
pub(crate) fn load_posed(
    path: &Path,
    options: &ImportOptions,
    pose: build::Pose,
) -> Result<ImportedScene, IoError> {
    let text = read_text(path, options)?;
    let doc = parse(path, &text)?;
    build::build_located(&doc, path, options, &locate::locate(&text), pose)
}
