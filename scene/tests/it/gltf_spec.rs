//! What the glTF specification forbids is refused, what it allows is imported: every file in
//! `gltf_spec/invalid/` (one per glTF-Validator error class the `gltf` crate lets through)
//! fails with a typed error naming the file and the offending object, and every file in
//! `gltf_spec/valid/` loads. `scripts/gltf-validator-check.mjs` runs the Khronos validator on
//! the same two folders, so the two agree file by file.

use std::path::{Path, PathBuf};

use plumb_scene::io::{self, ImportOptions, IoError};

fn files(kind: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/gltf_spec")
        .join(kind);
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "gltf"))
        .collect();
    v.sort();
    v
}

/// The object each invalid file's error must name, and a phrase of its message.
const EXPECTED: &[(&str, &str, &str)] = &[
    (
        "accessor-count-0",
        "accessors[2].count",
        "at least one element",
    ),
    (
        "asset-min-version-greater",
        "asset.minVersion",
        "at most asset.version",
    ),
    ("asset-version-3", "asset.version", "not glTF 2"),
    ("asset-version-pattern", "asset.version", "not a version"),
    ("buffer-byte-length-0", "buffers[1].byteLength", "is 0"),
    (
        "buffer-view-byte-length-0",
        "bufferViews[2].byteLength",
        "is 0",
    ),
    (
        "buffer-view-stride-6",
        "bufferViews[0].byteStride",
        "multiple of 4",
    ),
    (
        "mesh-without-primitives",
        "meshes[1].primitives",
        "is empty",
    ),
    ("node-matrix-and-trs", "nodes[0]", "both a matrix and"),
    ("node-own-child", "nodes[1].children", "the node itself"),
    (
        "normalized-float-position",
        "accessors[0].normalized",
        "only bytes and shorts",
    ),
    (
        "quantized-position-without-extension",
        "meshes[0].primitives[0].attributes.POSITION",
        "which extensionsUsed does not list",
    ),
    (
        "node-two-parents",
        "nodes[3]",
        "child of both node 1 and node 2",
    ),
    (
        "scene-node-listed-twice",
        "scenes[0].nodes",
        "lists node 0 twice",
    ),
    ("scene-non-root-node", "scenes[0].nodes", "not a root"),
    (
        "ubyte-normal-with-quantization",
        "meshes[0].primitives[0].attributes.NORMAL",
        "VEC3 normalized UNSIGNED_BYTE",
    ),
    (
        "uint-position-with-quantization",
        "meshes[0].primitives[0].attributes.POSITION",
        "VEC3 UNSIGNED_INT",
    ),
    ("unused-node-cycle", "nodes[", "own ancestor"),
];

#[test]
fn every_invalid_file_is_refused_with_its_reason() {
    let invalid = files("invalid");
    assert_eq!(
        invalid.len(),
        EXPECTED.len(),
        "a case without an expectation"
    );
    for path in &invalid {
        let stem = path.file_stem().unwrap().to_str().unwrap();
        let &(_, object, phrase) = EXPECTED
            .iter()
            .find(|(name, ..)| *name == stem)
            .unwrap_or_else(|| panic!("no expectation for {stem}"));
        let e = io::load(path, &ImportOptions::default()).expect_err(stem);
        let IoError::Invalid {
            file,
            context,
            message,
            ..
        } = &e
        else {
            panic!("{stem}: not an Invalid error: {e}");
        };
        assert_eq!(file, path, "{e}");
        assert!(context.starts_with(object), "{stem}: {e}");
        assert!(message.contains(phrase), "{stem}: {e}");
        assert!(!e.to_string().contains('\n'), "{stem}: one line: {e}");
    }
}

#[test]
fn every_valid_file_loads() {
    let valid = files("valid");
    assert!(valid.len() >= 3);
    for path in &valid {
        let loaded = io::load(path, &ImportOptions::default())
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert!(loaded.scene.find("tri").is_some(), "{}", path.display());
    }
}

/// Cycles and shared children are found in linear time, whatever the file's size: a chain of
/// 200 000 nodes closed into a loop is refused at once.
#[test]
fn a_long_unused_cycle_is_refused() {
    let n = 200_000;
    let nodes: Vec<String> = (0..n)
        .map(|i| format!("{{\"children\":[{}]}}", (i + 1) % n))
        .collect();
    let text = format!(
        "{{\"asset\":{{\"version\":\"2.0\"}},\"scenes\":[{{\"nodes\":[]}}],\"nodes\":[{}]}}",
        nodes.join(",")
    );
    let dir = std::env::temp_dir().join(format!("plumb-gltf-spec-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("loop.gltf");
    std::fs::write(&path, text).unwrap();
    let e = io::load(&path, &ImportOptions::default()).expect_err("a cycle");
    assert!(e.to_string().contains("own ancestor"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}
