//! `KHR_draco_mesh_compression`: the input's first byte picks a primitive (mode TRIANGLES or
//! POINTS; which attributes the extension lists, with which Draco ids and accessor formats:
//! float, normalized shorts, skin sets); the rest is the Draco stream, the only buffer view.
//! The GLB around them is fixed and well-formed, so every input reaches the decoder and what
//! plumb does with its output: the checks on ids, component counts and point counts, the
//! geometry budget, and the draw. Seeds: the shared models' Draco streams (`seed.sh`).
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;

/// Accessors: 0 indices, 1 POSITION, 2 NORMAL, 3 TEXCOORD_0 (float), 4 TEXCOORD_0
/// (normalized unsigned shorts), 5 JOINTS_0, 6 WEIGHTS_0, 7 COLOR_0. None has a buffer view:
/// the data is the stream's.
const ACCESSORS: &str = r#"[
  {"componentType": 5125, "count": 3, "type": "SCALAR"},
  {"componentType": 5126, "count": 3, "type": "VEC3"},
  {"componentType": 5126, "count": 3, "type": "VEC3"},
  {"componentType": 5126, "count": 3, "type": "VEC2"},
  {"componentType": 5123, "normalized": true, "count": 3, "type": "VEC2"},
  {"componentType": 5121, "count": 3, "type": "VEC4"},
  {"componentType": 5126, "count": 3, "type": "VEC4"},
  {"componentType": 5126, "count": 3, "type": "VEC4"}
]"#;

fuzz_target!(|data: &[u8]| {
    let Some((&pick, stream)) = data.split_first() else {
        return;
    };
    // Draco ids as the shared files number them (Duck: NORMAL 0, POSITION 1, TEXCOORD_0 2),
    // or the other way round.
    let (pos, nrm, uv) = if pick & 1 == 0 { (1, 0, 2) } else { (0, 1, 2) };
    let mode = if pick & 2 == 0 { 4 } else { 0 };
    let uv_accessor = if pick & 4 == 0 { 3 } else { 4 };
    let mut attributes = format!(r#""POSITION": 1, "NORMAL": 2, "TEXCOORD_0": {uv_accessor}"#);
    let mut ids = format!(r#""POSITION": {pos}, "NORMAL": {nrm}, "TEXCOORD_0": {uv}"#);
    if pick & 8 != 0 {
        attributes.push_str(r#", "JOINTS_0": 5, "WEIGHTS_0": 6"#);
        ids.push_str(r#", "JOINTS_0": 3, "WEIGHTS_0": 4"#);
    }
    if pick & 16 != 0 {
        attributes.push_str(r#", "COLOR_0": 7"#);
        ids.push_str(r#", "COLOR_0": 5"#);
    }
    let skin = if pick & 8 != 0 { r#", "skin": 0"# } else { "" };
    let json = format!(
        r#"{{"asset": {{"version": "2.0"}},
  "extensionsUsed": ["KHR_draco_mesh_compression"],
  "extensionsRequired": ["KHR_draco_mesh_compression"],
  "scene": 0, "scenes": [{{"nodes": [0, 1]}}],
  "nodes": [{{"mesh": 0{skin}}}, {{"name": "joint"}}],
  "skins": [{{"joints": [1]}}],
  "meshes": [{{"primitives": [{{"attributes": {{{attributes}}}, "indices": 0, "mode": {mode},
    "extensions": {{"KHR_draco_mesh_compression": {{"bufferView": 0, "attributes": {{{ids}}}}}}}}}]}}],
  "accessors": {ACCESSORS},
  "buffers": [{{"byteLength": {len}}}],
  "bufferViews": [{{"buffer": 0, "byteOffset": 0, "byteLength": {len}}}]}}"#,
        len = stream.len()
    );
    let file = Path::new("/nonexistent-plumb-fuzz/draco.glb");
    plumb_fuzz::import_and_draw(&plumb_fuzz::glb(json.as_bytes(), Some(stream)), file);
});
