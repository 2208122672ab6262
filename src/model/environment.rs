//! The image-based light of PBR renders (`plumb render --environment`): which environment
//! lights a model, the Radiance `.hdr` reader, and the per-file cache.
//!
//! - `auto` (the default): the built-in studio ([`Environment::studio`]) for a file without
//!   lights — instead of the default light rig, so that metals have something to reflect —
//!   and none for a file with lights of its own;
//! - `studio`: the studio, with the file's lights if any;
//! - `none`: no environment (a file without lights gets the default rig);
//! - a path: an equirectangular Radiance RGBE image (three.js's layout: top row +Y, the
//!   centre column facing +X), with the file's lights if any.
//!
//! Classic shading ignores the environment. A map is prepared once per file and process
//! (keyed by its path, size and modification time), so a sequence, a Python loop or the
//! conformance kit pays for the prefiltering once.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use glam::Vec3;

use crate::raster::environment::{Environment, MAX_TEXELS};

/// Largest `.hdr` file read: 256 MiB.
pub const MAX_HDR_BYTES: u64 = 256 << 20;

/// Which environment lights PBR draws (module docs).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum EnvironmentChoice {
    /// The studio for files without lights, none for files with lights.
    #[default]
    Auto,
    /// No environment.
    None,
    /// The built-in studio.
    Studio,
    /// An equirectangular `.hdr` file.
    File(PathBuf),
}

impl EnvironmentChoice {
    /// Parses `auto`, `none`, `studio` or a path.
    ///
    /// # Errors
    /// An empty value.
    pub fn parse(s: &str) -> Result<EnvironmentChoice, String> {
        Ok(match s {
            "" => return Err("expected auto, none, studio or an .hdr file".to_owned()),
            "auto" => EnvironmentChoice::Auto,
            "none" => EnvironmentChoice::None,
            "studio" => EnvironmentChoice::Studio,
            path => EnvironmentChoice::File(PathBuf::from(path)),
        })
    }

    /// Whether a PBR load with this choice lights a file without lights by an environment
    /// (so the default rig is left out).
    pub fn replaces_rig(&self) -> bool {
        *self != EnvironmentChoice::None
    }

    /// The map for a file that has (`file_has_lights`) or has not lights of its own.
    ///
    /// # Errors
    /// A one-line message naming the `.hdr` file that cannot be read.
    pub fn resolve(&self, file_has_lights: bool) -> Result<Option<Arc<Environment>>, String> {
        match self {
            EnvironmentChoice::Auto if file_has_lights => Ok(None),
            EnvironmentChoice::None => Ok(None),
            EnvironmentChoice::Auto | EnvironmentChoice::Studio => Ok(Some(Environment::studio())),
            EnvironmentChoice::File(path) => cached(path).map(Some),
        }
    }
}

/// Prepared maps by (path, length, modification time), the most recent last; at most 4.
type Cache = Vec<(
    (PathBuf, u64, Option<std::time::SystemTime>),
    Arc<Environment>,
)>;
static CACHE: Mutex<Cache> = Mutex::new(Vec::new());

fn cached(path: &Path) -> Result<Arc<Environment>, String> {
    let meta =
        std::fs::metadata(path).map_err(|e| format!("--environment {}: {e}", path.display()))?;
    let key = (path.to_path_buf(), meta.len(), meta.modified().ok());
    if let Ok(cache) = CACHE.lock() {
        if let Some((_, env)) = cache.iter().find(|(k, _)| *k == key) {
            return Ok(Arc::clone(env));
        }
    }
    let env = Arc::new(load_hdr(path)?);
    if let Ok(mut cache) = CACHE.lock() {
        if cache.len() >= 4 {
            cache.remove(0);
        }
        cache.push((key, Arc::clone(&env)));
    }
    Ok(env)
}

/// Reads an equirectangular Radiance `.hdr` file and prepares it: the size is read from the
/// header and refused past [`MAX_TEXELS`] before any pixel is decoded.
///
/// # Errors
/// A one-line message naming the file: unreadable, over [`MAX_HDR_BYTES`], not a Radiance
/// image, too large, or holding texels that are not finite and ≥ 0.
pub fn load_hdr(path: &Path) -> Result<Environment, String> {
    let shown = path.display();
    let bytes = plumb_scene::io::read_regular(path, MAX_HDR_BYTES)
        .map_err(|e| format!("--environment {shown}: {e}"))?;
    decode_hdr(&bytes).map_err(|e| format!("--environment {shown}: {e}"))
}

/// [`load_hdr`] of bytes in memory (the fuzz target's entry): decodes and prepares them.
///
/// # Errors
/// A one-line message: not a Radiance image, over [`MAX_TEXELS`], a decoding failure, or
/// texels that are not finite and ≥ 0.
pub fn decode_hdr(bytes: &[u8]) -> Result<Environment, String> {
    let decoder = image::codecs::hdr::HdrDecoder::new(std::io::Cursor::new(bytes))
        .map_err(|e| format!("not a Radiance .hdr image: {e}"))?;
    let meta = decoder.metadata();
    let (w, h) = (meta.width, meta.height);
    if u64::from(w) * u64::from(h) > MAX_TEXELS {
        return Err(format!("{w}x{h} is over the limit of {MAX_TEXELS} texels"));
    }
    let img = image::DynamicImage::from_decoder(decoder)
        .map_err(|e| e.to_string())?
        .into_rgb32f();
    let texels = img.pixels().map(|p| Vec3::from(p.0)).collect();
    Environment::from_equirect(w, h, texels).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The hand-made seeds decode; thousands of mutations of them (bytes flipped, cut,
    /// repeated) are each a map or an error, never a panic (the fuzz target `hdr_environment`
    /// explores further).
    #[test]
    fn mutated_hdr_files_are_maps_or_errors() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/seeds/hdr_environment");
        let seeds: Vec<Vec<u8>> = ["flat-16x8.hdr", "rle-32x16.hdr"]
            .iter()
            .map(|f| std::fs::read(dir.join(f)).unwrap())
            .collect();
        for s in &seeds {
            decode_hdr(s).unwrap();
        }
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for k in 0..3000 {
            let mut b = seeds[k % 2].clone();
            for _ in 0..1 + next() % 4 {
                let i = (next() % b.len() as u64) as usize;
                match next() % 4 {
                    0 => b[i] = next() as u8,
                    1 => b.truncate(i),
                    2 => b[i] ^= 1 << (next() % 8),
                    _ => {
                        let tail = b[i..].to_vec();
                        b.extend_from_slice(&tail);
                    }
                }
                if b.is_empty() {
                    break;
                }
            }
            let r = std::panic::catch_unwind(|| decode_hdr(&b));
            assert!(r.is_ok(), "input {k} panicked: {b:?}");
        }
    }
}
