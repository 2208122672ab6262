//! Issue 50, class 8: every decoder fuzz target reaches its decoder.
//!
//! The targets wrap their input in a textured quad (`fuzz/src/quad.rs`, included here as is)
//! and import it. Until issue 50 the quad named accessors 1, 2, 3 of a list of three, so every
//! input of `png_texture`, `webp_texture` and `ktx2_texture` failed glTF validation before an
//! image was decoded. This runs each target's committed seeds (`fuzz/seeds/<target>`) and
//! corpus (`fuzz/corpus/<target>`) through the same quad and the same import, and asserts
//! that each input reached the image path — it decoded, or the image itself was refused
//! (an image, size or texture-memory error), never the glTF around it — and that each seed,
//! named `…-WxH.ext`, decoded to a texture of that size. The same for the `draco` target
//! (its committed corpus and the shared models' Draco streams, which must import) and the
//! `meshopt` target (its committed seeds, each of which must import).

#[path = "../../../fuzz/src/quad.rs"]
#[allow(
    dead_code,
    reason = "the fuzz crate's module: a test may use one of its wrappers only"
)]
mod quad;

use std::path::{Path, PathBuf};

use plumb_scene::io::{gltf::import_gltf_bytes, ImportOptions, IoError};
use plumb_scene::Scene;

/// What an input became.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Reached {
    /// A texture of this size.
    Decoded(u32, u32),
    /// The image was refused (its bytes, its size or the texture budget).
    Refused,
}

/// Imports `image` as `target` does, and says whether it reached the image decoder; `Err`
/// when it did not (the error that stopped it before).
pub(crate) fn run(image: &[u8], mime: &str, extension: Option<&str>) -> Result<Reached, IoError> {
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
        // A running fuzzer may remove a corpus file between the listing and the read.
        let Ok(bytes) = std::fs::read(&p) else {
            continue;
        };
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

/// The committed and shared-model inputs of the `draco` target: a selector byte, the stream.
fn draco_inputs() -> Vec<(String, Vec<u8>)> {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    // A running fuzzer may remove a corpus file between the listing and the read.
    let mut inputs: Vec<(String, Vec<u8>)> = files(&repo.join("fuzz/corpus/draco"))
        .into_iter()
        .filter_map(|p| Some((p.display().to_string(), std::fs::read(&p).ok()?)))
        .collect();
    let assets = std::env::var("PLUMB_ASSETS")
        .map(PathBuf::from)
        .unwrap_or_else(|_| repo.join("../shared/assets"));
    for model in ["Box", "Duck"] {
        let p = assets.join(format!("gltf/khronos/{model}/glTF-Draco/{model}.bin"));
        if let Ok(stream) = std::fs::read(&p) {
            // Ids as the file numbers them and swapped; with and without TEXCOORD_0.
            for pick in [0u8, 1, 0x20, 0x21] {
                let mut input = vec![pick];
                input.extend(&stream);
                inputs.push((format!("{} (selector {pick})", p.display()), input));
            }
        }
    }
    inputs
}

/// A Draco stream's point and face counts, as the `draco` target reads them first.
fn draco_counts(stream: &[u8]) -> Option<(usize, usize)> {
    let mut mesh = draco_core::Mesh::new();
    let mut buffer = draco_core::DecoderBuffer::new(stream);
    draco_core::MeshDecoder::new()
        .decode(&mut buffer, &mut mesh)
        .ok()
        .map(|()| (mesh.num_points(), mesh.num_faces()))
}

#[test]
fn draco_inputs_reach_the_draco_decoder() {
    let file = Path::new("/nonexistent-plumb-fuzz/draco.glb");
    let mut imported = Vec::new();
    for (name, input) in draco_inputs() {
        let (&pick, stream) = input.split_first().unwrap();
        let counts = draco_counts(stream);
        let (points, faces) = counts.unwrap_or((3, 1));
        let glb = quad::draco_glb(pick, stream, points, faces);
        let mut scene = Scene::new();
        let root = scene.root();
        match import_gltf_bytes(&mut scene, root, &glb, file, &ImportOptions::default()) {
            Ok(_) => imported.push(name),
            // Refused by plumb's Draco stage (the stream, its ids, its counts), or by the
            // mesh checks after it (what it decoded to: `mesh 0 primitive 0 NORMAL: …`). Not
            // by the glTF validation before it (`accessors[0].count: …`).
            Err(e)
                if e.to_string().contains("KHR_draco_mesh_compression")
                    || e.to_string().contains("mesh 0 primitive 0 ") => {}
            Err(e) => panic!("draco input {name} never reached the Draco decoder: {e}"),
        }
    }
    // The shared models' streams decode to meshes that import, under the selector that names
    // their attributes as their files do (Box: no TEXCOORD_0) and with POSITION and NORMAL
    // swapped (CI has the models).
    let shared = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/assets");
    if std::env::var_os("PLUMB_ASSETS").is_some() || shared.is_dir() {
        for want in [
            "Box.bin (selector 32)",
            "Box.bin (selector 33)",
            "Duck.bin (selector 0)",
            "Duck.bin (selector 1)",
        ] {
            assert!(
                imported.iter().any(|n| n.ends_with(want)),
                "{want}: imported {imported:?}"
            );
        }
    }
}

#[test]
fn meshopt_seeds_reach_the_meshopt_decoder_and_import() {
    let fuzz = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz");
    let seeds = files(&fuzz.join("seeds/meshopt"));
    assert!(seeds.len() >= 7, "{seeds:?}");
    let file = Path::new("/nonexistent-plumb-fuzz/meshopt.glb");
    for p in seeds {
        let data = std::fs::read(&p).unwrap();
        let glb = quad::meshopt::target_glb(&data).unwrap();
        let mut scene = Scene::new();
        let root = scene.root();
        if let Err(e) = import_gltf_bytes(&mut scene, root, &glb, file, &ImportOptions::default()) {
            panic!("meshopt seed {} did not import: {e}", p.display());
        }
    }
}

/// Issue 50, class 1: a 38-byte Draco stream (a fuzz find, `fuzz/corpus/draco/8e52221f…`)
/// declares one `u8` attribute of 201 MB. Only the decoded bytes were held to the geometry
/// budget, and they passed it; the decoder's `i32` scratch beside them (805 MB) did not, so
/// `plumb info` peaked at 990 MB before the stream failed. The decoded bytes are now held to
/// a fifth of the budget left, so the peak stays within it: the limit refuses the stream.
#[test]
fn a_38_byte_draco_stream_cannot_make_the_decoder_hold_a_gigabyte() {
    let input: Vec<u8> = (0..78)
        .step_by(2)
        .map(|i| {
            let hex =
                "ac445241434f020100ef000000000004020101010303e0120100000000000101000003007f3e00";
            u8::from_str_radix(&hex[i..i + 2], 16).unwrap()
        })
        .collect();
    let (&pick, stream) = input.split_first().unwrap();
    let glb = quad::draco_glb(pick, stream, 3, 1);
    let mut scene = Scene::new();
    let root = scene.root();
    let file = Path::new("/nonexistent-plumb-fuzz/draco.glb");
    let e = import_gltf_bytes(&mut scene, root, &glb, file, &ImportOptions::default())
        .expect_err("refused");
    assert!(e.to_string().contains("decoded attribute bytes"), "{e}");
}

/// Issue 50: a 150-byte fuzz input (selector and Draco stream; 948 bytes as a GLB) whose corner
/// table makes a vertex's fan walk in the multi-parallelogram decoder enter a cycle that never
/// returns to its start. draco-core 2.3.3 looped there forever (`plumb info` ran for 300 s and
/// more); the vendored copy (`vendor/draco-core/PLUMB-PATCHES.md`) ends the walk after one
/// step per corner with an error. Run on a thread, so a regression fails here rather than
/// hanging the suite.
#[test]
fn a_draco_fan_that_never_closes_is_an_error_not_a_hang() {
    use base64::Engine as _;
    let input = base64::engine::general_purpose::STANDARD
        .decode(
            "tkRSQUNPAgIBAQAAAGJ1AG5lAFb/1bv+YWNmb2Vzc2/a2tox2tra2traxdra2trabQAAANra2tra2tra\
             Adpyc38AAAIBAQAAAPoMAQsAAANfWwpVAQEQBAEBAgICAgICAgICAgICAmEBAQEBAQEBAQEBAQEBAQEB\
             AgAAAAEBAQEBAQEBAQEBAQEBAQEAKAAAAGZlcgEA",
        )
        .unwrap();
    assert_eq!(input.len(), 150);
    let (&pick, stream) = input.split_first().unwrap();
    let glb = quad::draco_glb(pick, stream, 3, 1);
    let (done, result) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut scene = Scene::new();
        let root = scene.root();
        let file = Path::new("/nonexistent-plumb-fuzz/draco.glb");
        let r = import_gltf_bytes(&mut scene, root, &glb, file, &ImportOptions::default());
        let _ = done.send(r.map(|_| ()).map_err(|e| e.to_string()));
    });
    let e = result
        .recv_timeout(std::time::Duration::from_secs(120))
        .expect("the Draco decoder still running after 120 s: a fan walk that never ends")
        .expect_err("refused");
    assert!(
        e.contains("KHR_draco_mesh_compression") && e.contains("Corner fan does not close"),
        "{e}"
    );
}
