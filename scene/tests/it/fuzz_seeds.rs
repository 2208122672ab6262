//! Issue 50, class 8: every texture fuzz target reaches its image decoder.
//!
//! The targets wrap their input in a textured quad (`fuzz/src/quad.rs`, included here as is)
//! and import it. Until issue 50 the quad named accessors 1, 2, 3 of a list of three, so every
//! input of `png_texture`, `webp_texture` and `ktx2_texture` failed glTF validation before an
//! image was decoded. This runs each target's committed seeds (`fuzz/seeds/<target>`) and
//! corpus (`fuzz/corpus/<target>`) through the same quad and the same import, and asserts
//! that each input reached the image path — it decoded, or the image itself was refused
//! (an image, size or texture-memory error), never the glTF around it — and that each seed,
//! named `…-WxH.ext`, decoded to a texture of that size.

#[path = "../../../fuzz/src/quad.rs"]
#[allow(
    dead_code,
    reason = "the fuzz crate's module: this test uses its quad only"
)]
mod quad;

use std::path::{Path, PathBuf};

use plumb_scene::io::{gltf::import_gltf_bytes, ImportOptions, IoError};
use plumb_scene::Scene;

/// What an input became.
#[derive(Debug, PartialEq, Eq)]
enum Reached {
    /// A texture of this size.
    Decoded(u32, u32),
    /// The image was refused (its bytes, its size or the texture budget).
    Refused,
}

/// Imports `image` as `target` does, and says whether it reached the image decoder; `Err`
/// when it did not (the error that stopped it before).
fn run(image: &[u8], mime: &str, extension: Option<&str>) -> Result<Reached, IoError> {
    let glb = quad::textured_quad(image, mime, extension);
    let file = Path::new("/nonexistent-plumb-fuzz/texture.glb");
    let mut scene = Scene::new();
    let root = scene.root();
    match import_gltf_bytes(&mut scene, root, &glb, file, &ImportOptions::default()) {
        Ok(imported) => {
            let t = imported
                .materials
                .values()
                .find_map(|m| m.base_color_texture.as_ref())
                .map(|b| (b.texture.width(), b.texture.height()));
            Ok(t.map_or(Reached::Refused, |(w, h)| Reached::Decoded(w, h)))
        }
        Err(
            IoError::Image { .. } | IoError::ImageTooLarge { .. } | IoError::TextureMemory { .. },
        ) => Ok(Reached::Refused),
        Err(e) => Err(e),
    }
}

fn files(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|d| d.filter_map(|e| e.ok()).map(|e| e.path()).collect())
        .unwrap_or_default();
    v.sort();
    v
}

/// The `W x H` in a seed's name (`lossless-17x5.webp`).
fn named_size(p: &Path) -> (u32, u32) {
    let stem = p.file_stem().and_then(|s| s.to_str()).unwrap_or_default();
    let size = stem.rsplit('-').next().unwrap_or_default();
    let (w, h) = size.split_once('x').unwrap_or(("", ""));
    match (w.parse(), h.parse()) {
        (Ok(w), Ok(h)) => (w, h),
        _ => panic!("seed {} has no -WxH in its name", p.display()),
    }
}

/// Runs `target`'s seeds and corpus; returns how many inputs decoded.
fn check_target(target: &str, mime: &str, extension: Option<&str>) -> usize {
    let fuzz = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz");
    let seeds = files(&fuzz.join("seeds").join(target));
    assert!(!seeds.is_empty(), "{target}: no committed seeds");
    let mut decoded = 0;
    for p in &seeds {
        let bytes = std::fs::read(p).unwrap();
        let (w, h) = named_size(p);
        match run(&bytes, mime, extension) {
            Ok(Reached::Decoded(dw, dh)) => assert_eq!((dw, dh), (w, h), "{}", p.display()),
            other => panic!("{target} seed {} did not decode: {other:?}", p.display()),
        }
        decoded += 1;
    }
    for p in files(&fuzz.join("corpus").join(target)) {
        let bytes = std::fs::read(&p).unwrap();
        match run(&bytes, mime, extension) {
            Ok(Reached::Decoded(..)) => decoded += 1,
            Ok(Reached::Refused) => {}
            Err(e) => panic!(
                "{target} input {} never reached the image decoder: {e}",
                p.display()
            ),
        }
    }
    decoded
}

#[test]
fn png_texture_inputs_reach_the_png_decoder() {
    assert!(check_target("png_texture", "image/png", None) >= 2);
}

#[test]
fn webp_texture_inputs_reach_the_webp_decoder() {
    assert!(check_target("webp_texture", "image/webp", Some("EXT_texture_webp")) >= 4);
}

#[test]
fn ktx2_texture_inputs_reach_the_basis_transcoder() {
    assert!(check_target("ktx2_texture", "image/ktx2", Some("KHR_texture_basisu")) >= 2);
}
