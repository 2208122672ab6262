//! Writing outputs without following a link out of a folder or over an input (issue 50):
//! the conformance kit's reports and calibrated files, `plumb render`'s images and frames.
//!
//! - [`write_replacing`] writes a new file beside the target (created exclusively, so a link
//!   planted at its name is not followed) and renames it over the target: a target that is a
//!   symbolic link is replaced, never written through, and a reader never sees half a file.
//! - [`resolve`] is where a path leads once its links are followed (for a file that does not
//!   exist yet: its folder's real path and its name), and [`refuse_inside`] refuses an output
//!   that leads to an input or into an input folder (a shard, the corpus of goldens).

use std::fs::OpenOptions;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Where `path` leads: its canonical path, or for a path that does not exist, its nearest
/// existing ancestor's canonical path joined with the rest (a link anywhere on the way is
/// followed).
pub fn resolve(path: &Path) -> PathBuf {
    if let Ok(p) = path.canonicalize() {
        return p;
    }
    match (path.parent(), path.file_name()) {
        (Some(parent), Some(name)) => {
            let parent = if parent.as_os_str().is_empty() {
                Path::new(".")
            } else {
                parent
            };
            resolve(parent).join(name)
        }
        _ => path.to_owned(),
    }
}

/// Refuses `out` (an output `what` is written to) when it leads to `input` or inside it
/// (`input` a file or a folder: a shard, the corpus, a tolerance file).
///
/// # Errors
/// One line naming both: `OUT: resolves to R, inside the shard S, an input: …`.
pub fn refuse_inside(out: &Path, input: &Path, input_what: &str) -> Result<(), String> {
    let (o, i) = (resolve(out), resolve(input));
    if o == i || o.starts_with(&i) {
        return Err(format!(
            "{}: resolves to {}, {} {input_what} {}, an input: write it elsewhere",
            out.display(),
            o.display(),
            if o == i { "which is" } else { "inside" },
            input.display()
        ));
    }
    Ok(())
}

/// Writes `bytes` to `path` through a temporary file in the same folder and a rename: a
/// `path` that is a symbolic link is replaced by the new file, not followed.
///
/// # Errors
/// The I/O error, naming `path`.
pub fn write_replacing(path: &Path, bytes: &[u8]) -> Result<(), String> {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let shown = |e: std::io::Error| format!("{}: {e}", path.display());
    let name = path
        .file_name()
        .ok_or_else(|| format!("{}: not a file name", path.display()))?;
    let tmp = path.with_file_name(format!(
        ".{}.{}-{}.tmp",
        name.to_string_lossy(),
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ));
    let written = OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&tmp)
        .and_then(|mut f| f.write_all(bytes))
        .and_then(|()| std::fs::rename(&tmp, path));
    if let Err(e) = written {
        let _ = std::fs::remove_file(&tmp);
        return Err(shown(e));
    }
    Ok(())
}
