//! Resolving the URIs a scene file uses for its buffers and images: `data:` URIs (base64)
//! and relative file paths (percent-decoded, relative to the scene file's folder).
//!
//! Files are read whole, after a size check against the import limit. Nothing here touches
//! the network: a URI with a scheme other than `data:` (`http:`, `file:`) is refused.
//!
//! **Staying inside the asset**: a referenced file (glTF buffer or image, OBJ `mtllib`, MTL
//! texture map, a scene file's `import` or texture `file`) resolves inside the folder of the
//! file that references it. Absolute paths, and `..` components that climb above that
//! folder, are refused ([`inside`]); so is a path whose symbolic links, once resolved, lead
//! out of that folder. Only regular files are read ([`read_file`]): a FIFO, a device or a
//! directory is refused from its metadata, before it is opened.

use std::path::{Path, PathBuf};

use base64::Engine as _;

/// A resource's bytes plus the MIME type a data URI declared (if any).
pub(crate) struct Resource {
    pub(crate) bytes: Vec<u8>,
    pub(crate) mime: Option<String>,
}

/// How a URI is shown in messages: data URIs are cut after their header.
pub(crate) fn display_uri(uri: &str) -> String {
    if uri.starts_with("data:") {
        let head = uri.split(',').next().unwrap_or(uri);
        let head: String = head.chars().take(48).collect();
        format!("{head},…")
    } else {
        uri.to_owned()
    }
}

/// Decodes `%XX` escapes (glTF URIs are RFC 3986 references). Malformed escapes are kept as
/// written; the result must be UTF-8.
fn percent_decode(s: &str) -> Result<String, String> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' && i + 2 < b.len() {
            let hex = |c: u8| (c as char).to_digit(16);
            if let (Some(h), Some(l)) = (hex(b[i + 1]), hex(b[i + 2])) {
                out.push((h * 16 + l) as u8);
                i += 3;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8(out).map_err(|_| "percent-decoded path is not UTF-8".to_owned())
}

/// `base` joined with the relative path `rel`, which must stay inside `base`: absolute
/// paths (and Windows drive or UNC prefixes) are refused, and so is a `..` that climbs
/// above `base`. A `..` that comes back down (`a/../b`) is fine.
///
/// Symbolic links are resolved before the check: when the path exists, its canonical form
/// must lie inside `base`'s canonical form, so neither a link that points out of the folder
/// nor a `..` taken after a linked directory (`link/../../x`, which the lexical check alone
/// would pass) reaches a file outside. A path that does not exist is returned unchanged;
/// reading it then fails with the operating system's "not found".
///
/// # Errors
/// Why the path was refused, for a message.
pub(crate) fn inside(base: &Path, rel: &str) -> Result<PathBuf, String> {
    let joined = inside_lexically(base, rel)?;
    let Ok(real) = std::fs::canonicalize(&joined) else {
        return Ok(joined);
    };
    let base = if base.as_os_str().is_empty() {
        Path::new(".")
    } else {
        base
    };
    let real_base = std::fs::canonicalize(base).map_err(|e| {
        format!(
            "the referencing file's folder {} cannot be resolved: {e}",
            base.display()
        )
    })?;
    if real.starts_with(&real_base) {
        Ok(joined)
    } else {
        Err(format!(
            "resolves through a symbolic link to {}, outside the referencing file's folder \
             (refused)",
            real.display()
        ))
    }
}

/// The lexical half of [`inside`]: no absolute path, no `..` above `base`.
fn inside_lexically(base: &Path, rel: &str) -> Result<PathBuf, String> {
    use std::path::Component;
    let p = Path::new(rel);
    let mut depth = 0usize;
    for c in p.components() {
        match c {
            Component::Prefix(_) | Component::RootDir => {
                return Err(
                    "absolute paths are refused (referenced files must be inside the \
                     referencing file's folder)"
                        .to_owned(),
                )
            }
            Component::CurDir => {}
            Component::ParentDir => {
                depth = depth.checked_sub(1).ok_or_else(|| {
                    "'..' climbs out of the referencing file's folder (refused)".to_owned()
                })?;
            }
            Component::Normal(_) => depth += 1,
        }
    }
    Ok(base.join(p))
}

/// Reads a whole regular file of at most `max_bytes` ([`plumb_raster::regular_file::read_regular`]:
/// checked on the opened handle, so a FIFO, a device or a socket is refused, and read no
/// further than the limit).
pub(crate) fn read_file(path: &Path, max_bytes: u64) -> Result<Vec<u8>, String> {
    plumb_raster::regular_file::read_regular(path, max_bytes).map_err(|e| e.to_string())
}

/// The path a relative URI names, under `base`.
pub(crate) fn uri_path(base: &Path, uri: &str) -> Result<PathBuf, String> {
    if let Some((scheme, _)) = uri.split_once(':') {
        // One-letter "schemes" are Windows drive letters; anything else is a real scheme.
        if scheme.len() > 1
            && scheme
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '+')
        {
            return Err(format!("URI scheme '{scheme}:' is not supported"));
        }
    }
    let decoded = percent_decode(uri)?;
    inside(base, &decoded)
}

/// Loads the bytes a URI refers to (a data URI or a file relative to `base`).
pub(crate) fn load(base: &Path, uri: &str, max_bytes: u64) -> Result<Resource, String> {
    if let Some(rest) = uri.strip_prefix("data:") {
        let (header, data) = rest
            .split_once(',')
            .ok_or_else(|| "data URI has no ','".to_owned())?;
        let Some(mime) = header.strip_suffix(";base64") else {
            return Err("only base64 data URIs are supported".to_owned());
        };
        if data.len() as u64 / 4 * 3 > max_bytes {
            return Err(format!("data URI exceeds the limit of {max_bytes} bytes"));
        }
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(data.trim_end())
            .map_err(|e| format!("bad base64: {e}"))?;
        let mime = (!mime.is_empty()).then(|| mime.to_owned());
        return Ok(Resource { bytes, mime });
    }
    let path = uri_path(base, uri)?;
    let bytes = read_file(&path, max_bytes).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(Resource { bytes, mime: None })
}

#[cfg(feature = "internal-tests")]
pub(crate) mod tests {
    /// Every test of this module: `tests/unit.rs` runs each as one trial (an unlisted
    /// test fails the build as dead code).
    pub(crate) const TESTS: &[(&str, fn())] =
        &[("data_uri_and_percent_escapes", data_uri_and_percent_escapes)];

    use super::*;

    fn data_uri_and_percent_escapes() {
        let r = load(
            Path::new("."),
            "data:application/octet-stream;base64,AAEC",
            100,
        )
        .unwrap();
        assert_eq!(r.bytes, vec![0, 1, 2]);
        assert_eq!(r.mime.as_deref(), Some("application/octet-stream"));
        assert!(load(Path::new("."), "data:text/plain,abc", 100).is_err());
        assert!(load(Path::new("."), "data:;base64,@@@", 100).is_err());
        assert_eq!(percent_decode("a%20b%2Fc").unwrap(), "a b/c");
        assert_eq!(percent_decode("100%").unwrap(), "100%");
        assert_eq!(percent_decode("%4").unwrap(), "%4");
        assert!(uri_path(Path::new("."), "http://example/x.bin").is_err());
        assert_eq!(
            uri_path(Path::new("m"), "tex%20a.png").unwrap(),
            Path::new("m").join("tex a.png")
        );
        assert!(uri_path(Path::new("m"), "/etc/hostname").is_err());
        assert!(uri_path(Path::new("m"), "../secret.bin").is_err());
        assert!(uri_path(Path::new("m"), "a/../../secret.bin").is_err());
        assert!(uri_path(Path::new("m"), "%2E%2E/secret.bin").is_err());
        assert_eq!(
            uri_path(Path::new("m"), "a/../b.bin").unwrap(),
            Path::new("m").join("a/../b.bin")
        );
        assert_eq!(
            display_uri("data:image/png;base64,AAAA"),
            "data:image/png;base64,…"
        );
    }
}
