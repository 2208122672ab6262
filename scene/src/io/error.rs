//! The one error type of the importers, [`IoError`].
//!
//! Every message starts with the file it is about (the scene file, or the buffer / image /
//! material library it references), then the line and column where the format has them
//! (`file.gltf:3:14: …` for JSON syntax errors, `file.obj:12: …` for OBJ), then the place in
//! the document (`node 'wheel'`, `accessor 3`, `meshes[0].primitives[1].indices`) and what is
//! wrong. Messages are one line, so a command-line tool can print them as they are: control
//! characters in names, paths and quoted text are escaped ([`escape_control`]).

use std::borrow::Cow;
use std::fmt;
use std::path::{Path, PathBuf};

use crate::io::budget::Budget;
use crate::values::error::SceneError;

/// Where in a file an error was found: a line and, when known, a column (both 1-based).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Location {
    /// Line, 1-based.
    pub line: usize,
    /// Column, 1-based, when the parser reports one.
    pub column: Option<usize>,
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.column {
            Some(c) => write!(f, "{}:{c}", self.line),
            None => write!(f, "{}", self.line),
        }
    }
}

/// `file` or `file:line[:column]`.
fn at(file: &Path, location: &Option<Location>) -> String {
    match location {
        Some(l) => format!("{}:{l}", esc_path(file)),
        None => esc_path(file).into_owned(),
    }
}

/// `s` with control characters (newline, carriage return, escape, …) written as Rust
/// escapes (`\n`, `\r`, `\u{1b}`), so a message stays on one line and cannot move the
/// terminal's cursor whatever names and paths the files hold. Other text is unchanged.
pub fn escape_control(s: &str) -> Cow<'_, str> {
    if !s.chars().any(char::is_control) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if c.is_control() {
            out.extend(c.escape_debug());
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

fn esc(s: &str) -> Cow<'_, str> {
    escape_control(s)
}

fn esc_path(p: &Path) -> Cow<'_, str> {
    match p.to_string_lossy() {
        Cow::Borrowed(s) => escape_control(s),
        Cow::Owned(s) => Cow::Owned(escape_control(&s).into_owned()),
    }
}

/// Everything that can go wrong while importing a scene file.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum IoError {
    /// A file could not be opened or read (missing, a directory, no permission).
    #[error("{}: cannot read: {}", esc_path(file), esc(reason))]
    Read {
        /// The file.
        file: PathBuf,
        /// The operating system's reason.
        reason: String,
    },
    /// The file extension names no format the importers know.
    #[error(
        "{}: unsupported scene format (expected .json, .gltf, .glb or .obj)",
        esc_path(file)
    )]
    UnsupportedFormat {
        /// The file.
        file: PathBuf,
    },
    /// A file is larger than [`crate::io::ImportOptions::max_file_bytes`].
    #[error("{}: {size} bytes exceeds the limit of {max} bytes", esc_path(file))]
    FileTooLarge {
        /// The file.
        file: PathBuf,
        /// Its size.
        size: u64,
        /// The limit in force.
        max: u64,
    },
    /// A document limit was exceeded (nodes or nesting of a JSON scene file).
    #[error("{}: more than {max} {what}", esc_path(file))]
    Limit {
        /// The file.
        file: PathBuf,
        /// What was counted (`"nodes"`, `"levels of node nesting"`).
        what: &'static str,
        /// The limit in force.
        max: usize,
    },
    /// The file is not well-formed (JSON syntax, GLB container, OBJ statement).
    #[error("{}: {}", at(file, location), esc(message))]
    Parse {
        /// The file.
        file: PathBuf,
        /// Line and column, when the format has them.
        location: Option<Location>,
        /// What is wrong.
        message: String,
    },
    /// A buffer, image or material library the scene refers to could not be loaded.
    #[error(
        "{}: {kind} '{}' could not be loaded: {}",
        esc_path(file),
        esc(uri),
        esc(reason)
    )]
    MissingResource {
        /// The scene file holding the reference.
        file: PathBuf,
        /// `"buffer"`, `"image"` or `"material library"`.
        kind: &'static str,
        /// The reference as written in the file (data URIs are shortened).
        uri: String,
        /// Why it could not be loaded.
        reason: String,
    },
    /// Well-formed but inconsistent content: out-of-range accessors or indices, wrong
    /// accessor types, bad keyframe times, hierarchy cycles.
    #[error("{}: {}: {}", at(file, location), esc(context), esc(message))]
    Invalid {
        /// The file.
        file: PathBuf,
        /// Line and column, when the format has them.
        location: Option<Location>,
        /// Where in the document (`accessor 3`, `node 'wheel'`).
        context: String,
        /// What is wrong.
        message: String,
    },
    /// A NaN or infinite number where a finite one is needed (positions, transforms, …).
    #[error("{}: {}: non-finite value in {what}", at(file, location), esc(context))]
    NonFinite {
        /// The file.
        file: PathBuf,
        /// Line and column, when the format has them.
        location: Option<Location>,
        /// Where in the document.
        context: String,
        /// Which quantity.
        what: &'static str,
    },
    /// A feature plumb does not import (skins, morph targets): refused rather than drawn
    /// wrongly.
    #[error("{}: {}: {feature} are not supported", esc_path(file), esc(context))]
    Unsupported {
        /// The file.
        file: PathBuf,
        /// The node or mesh using the feature.
        context: String,
        /// The feature (plural: `"skins"`, `"morph targets"`).
        feature: &'static str,
    },
    /// A texture image larger than [`crate::io::ImportOptions::max_texture_size`] on a side.
    #[error(
        "{}: image '{}' is {width}x{height}; the limit is {max} texels per side",
        esc_path(file),
        esc(image)
    )]
    ImageTooLarge {
        /// The scene file.
        file: PathBuf,
        /// The image's URI or name.
        image: String,
        /// Its width.
        width: u32,
        /// Its height.
        height: u32,
        /// The limit in force.
        max: u32,
    },
    /// Decoding a texture would pass [`crate::io::ImportOptions::max_texture_bytes`].
    #[error(
        "{}: image '{}' needs {needed} bytes decoded (with mips); with {used} bytes of \
         textures already decoded that passes the limit of {max} bytes \
         (ImportOptions::max_texture_bytes)",
        esc_path(file),
        esc(image)
    )]
    TextureMemory {
        /// The file referencing the image.
        file: PathBuf,
        /// The image's URI or name.
        image: String,
        /// Decoded bytes this image needs.
        needed: u64,
        /// Decoded bytes already used by the load.
        used: u64,
        /// The limit in force.
        max: u64,
    },
    /// A work budget of the load ([`crate::io::WorkBudget`]) would be passed: charged before
    /// the work is done. The message names the object, what it asks for, the total and the
    /// budget, and the `plumb` flag that raises it.
    #[error("{0}")]
    Budget(Box<BudgetError>),
    /// Saving a scene would write a scene file larger than the limit (its meshes are
    /// written inline, a shared mesh once per leaf): refused before anything is written.
    #[error(
        "{}: {}: the saved scene file would take at least {bytes} bytes here, past the \
         limit of {max} bytes (--max-output-bytes; meshes are written inline, a shared mesh \
         once per leaf)",
        esc_path(file),
        esc(context)
    )]
    SaveTooLarge {
        /// The scene file being written.
        file: PathBuf,
        /// The leaf at which the estimate passes the limit, or `scene file` for the text.
        context: String,
        /// The bytes counted so far (at least what would be written).
        bytes: u64,
        /// The limit in force.
        max: u64,
    },
    /// A texture image could not be decoded.
    #[error(
        "{}: image '{}' could not be decoded: {}",
        esc_path(file),
        esc(image),
        esc(reason)
    )]
    Image {
        /// The scene file.
        file: PathBuf,
        /// The image's URI or name.
        image: String,
        /// The decoder's reason.
        reason: String,
    },
    /// The scene graph refused an edit (node or depth limit, invalid mesh).
    #[error(
        "{}: {}: {}",
        esc_path(file),
        esc(context),
        esc(&source.to_string())
    )]
    Scene {
        /// The file.
        file: PathBuf,
        /// Where in the document.
        context: String,
        /// The scene graph's error.
        source: SceneError,
    },
}

/// What [`IoError::Budget`] holds: the object that would pass a work budget, and by how much.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BudgetError {
    /// The file.
    pub file: PathBuf,
    /// Line and column of the object, when known.
    pub location: Option<Location>,
    /// The object (`root/arm/hand`, `collision 2`, `root/men controller 0`).
    pub context: String,
    /// What it asks for (`a CLOD of 2097152 triangles`).
    pub item: String,
    /// Which budget.
    pub budget: Budget,
    /// The object's share.
    pub amount: u64,
    /// The load's (or frame's, or update's) total with it, saturating.
    pub total: u64,
    /// The budget in force.
    pub max: u64,
}

impl fmt::Display for BudgetError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: {}: {} ",
            at(&self.file, &self.location),
            esc(&self.context),
            esc(&self.item)
        )?;
        let (max, unit, flag) = (self.max, self.budget.unit(), self.budget.flag());
        if self.total == self.amount {
            write!(f, "passes the budget of {max} {unit} ({flag})")
        } else {
            write!(
                f,
                "brings the total to {}, past the budget of {max} {unit} ({flag})",
                self.total
            )
        }
    }
}

impl IoError {
    /// A JSON syntax or type error (glTF or scene file) as [`IoError::Parse`]: serde's
    /// message without its trailing "at line L column C", which goes to the location instead.
    pub(crate) fn from_json(file: &Path, e: &serde_json::Error, prefix: &str) -> IoError {
        let text = e.to_string();
        let message = text
            .rsplit_once(" at line ")
            .map_or(text.as_str(), |(m, _)| m)
            .to_owned();
        IoError::Parse {
            file: file.to_owned(),
            location: (e.line() > 0).then_some(Location {
                line: e.line(),
                column: Some(e.column()),
            }),
            message: format!("{prefix}{message}"),
        }
    }

    /// The file the error is about.
    pub fn file(&self) -> &Path {
        match self {
            IoError::Read { file, .. }
            | IoError::UnsupportedFormat { file }
            | IoError::FileTooLarge { file, .. }
            | IoError::Limit { file, .. }
            | IoError::Parse { file, .. }
            | IoError::MissingResource { file, .. }
            | IoError::Invalid { file, .. }
            | IoError::NonFinite { file, .. }
            | IoError::Unsupported { file, .. }
            | IoError::ImageTooLarge { file, .. }
            | IoError::Image { file, .. }
            | IoError::TextureMemory { file, .. }
            | IoError::SaveTooLarge { file, .. }
            | IoError::Scene { file, .. } => file,
            IoError::Budget(b) => &b.file,
        }
    }
}

#[cfg(feature = "internal-tests")]
pub(crate) mod tests {
    /// Every test of this module: `tests/unit.rs` runs each as one trial (an unlisted
    /// test fails the build as dead code).
    pub(crate) const TESTS: &[(&str, fn())] = &[(
        "messages_name_file_and_position",
        messages_name_file_and_position,
    )];

    use super::*;

    fn messages_name_file_and_position() {
        let e = IoError::Parse {
            file: "a/b.gltf".into(),
            location: Some(Location {
                line: 3,
                column: Some(14),
            }),
            message: "expected value".into(),
        };
        assert_eq!(e.to_string(), "a/b.gltf:3:14: expected value");
        let e = IoError::Invalid {
            file: "m.obj".into(),
            location: Some(Location {
                line: 7,
                column: None,
            }),
            context: "face".into(),
            message: "vertex index 9 out of range".into(),
        };
        assert_eq!(e.to_string(), "m.obj:7: face: vertex index 9 out of range");
        assert_eq!(e.file(), Path::new("m.obj"));
        let e = IoError::Unsupported {
            file: "s.glb".into(),
            context: "node 'arm'".into(),
            feature: "skins",
        };
        assert_eq!(e.to_string(), "s.glb: node 'arm': skins are not supported");
    }
}
