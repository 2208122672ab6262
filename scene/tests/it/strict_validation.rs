//! Issue 50, class 7: malformed inputs that loaded (exit 0) are one-line errors naming the
//! file and the field: variant mappings to variants or materials that do not exist,
//! spec-gloss factors outside [0, 1] and a spec-gloss texture index past the textures,
//! `"fallback": false` on a meshopt buffer without data, and a WebP file whose RIFF size is
//! odd, and Draco extensions naming one stream attribute twice, lacking POSITION, or of an
//! unknown bitstream version.

use serde_json::{json, Value};

use crate::gltf_builder::{temp_dir, triangle, write, Builder};
use plumb_scene::io::{self, ImportOptions};

/// Loads `doc` (a `.gltf` with its buffer inline) and returns the one-line error.
fn refused(name: &str, doc: String) -> String {
    let dir = temp_dir(name);
    let p = write(&dir, "m.gltf", doc);
    let e = io::load(&p, &ImportOptions::default())
        .err()
        .unwrap_or_else(|| panic!("{name}: loaded"));
    let m = e.to_string();
    assert!(m.starts_with(&p.display().to_string()), "{m}");
    assert!(!m.contains(['\n', '\r']), "{m}");
    m
}

fn with_material(b: &mut Builder) -> Value {
    let mut d = triangle(b);
    d["materials"] = json!([{"name": "m0"}]);
    d["meshes"][0]["primitives"][0]["material"] = json!(0);
    d
}

#[test]
fn variant_mappings_must_name_existing_variants_and_materials() {
    for (k, (variants, material, expect)) in [
        (
            json!([99]),
            json!(0),
            "variant 99 is not one of the file's 1 variants",
        ),
        (
            json!([-1]),
            json!(0),
            "variant -1 is not one of the file's 1 variants",
        ),
        (
            json!([0]),
            json!(99),
            "material is not one of the file's 1 materials",
        ),
    ]
    .into_iter()
    .enumerate()
    {
        let mut b = Builder::default();
        let mut d = with_material(&mut b);
        d["extensionsUsed"] = json!(["KHR_materials_variants"]);
        d["extensions"] = json!({"KHR_materials_variants": {"variants": [{"name": "red"}]}});
        d["meshes"][0]["primitives"][0]["extensions"] = json!({"KHR_materials_variants": {
            "mappings": [{"variants": variants, "material": material}]}});
        let m = refused(&format!("variants-{k}"), b.gltf(d));
        assert!(
            m.contains("KHR_materials_variants.mappings[0]") && m.contains(expect),
            "{m}"
        );
    }
}

#[test]
fn spec_gloss_factors_and_textures_are_checked() {
    for (k, (ext, expect)) in [
        (
            json!({"glossinessFactor": 1.5}),
            "glossinessFactor holds 1.5, outside [0, 1]",
        ),
        (
            json!({"specularFactor": [0.1, -0.2, 0.3]}),
            "specularFactor holds -0.2",
        ),
        (
            json!({"diffuseFactor": [1, 1, 2, 1]}),
            "diffuseFactor holds 2",
        ),
        (
            json!({"specularGlossinessTexture": {"index": 99}}),
            "specularGlossinessTexture: index 99 is not a texture (0 textures)",
        ),
    ]
    .into_iter()
    .enumerate()
    {
        let mut b = Builder::default();
        let mut d = with_material(&mut b);
        d["extensionsUsed"] = json!(["KHR_materials_pbrSpecularGlossiness"]);
        d["materials"][0]["extensions"] = json!({"KHR_materials_pbrSpecularGlossiness": ext});
        let m = refused(&format!("spec-gloss-{k}"), b.gltf(d));
        assert!(m.contains(expect), "{m}");
    }
}

#[test]
fn a_meshopt_buffer_without_data_must_be_the_fallback() {
    let mut b = Builder::default();
    let mut d = triangle(&mut b);
    d["extensionsUsed"] = json!(["EXT_meshopt_compression"]);
    let mut doc: Value = serde_json::from_str(&b.gltf(d)).unwrap();
    doc["buffers"].as_array_mut().unwrap().push(
        json!({"byteLength": 64, "extensions": {"EXT_meshopt_compression": {"fallback": false}}}),
    );
    let m = refused("meshopt-fallback", doc.to_string());
    assert!(
        m.contains("buffer 1 EXT_meshopt_compression")
            && m.contains("fallback must be true, not false"),
        "{m}"
    );
}

#[test]
fn a_webp_riff_size_must_be_even_and_inside_the_file() {
    let seed = std::fs::read(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../fuzz/seeds/webp_texture/lossless-8x8.webp"),
    )
    .unwrap();
    let size = u32::from_le_bytes([seed[4], seed[5], seed[6], seed[7]]);
    let mut odd = seed.clone();
    odd[4..8].copy_from_slice(&(size - 1).to_le_bytes());
    let mut past = seed.clone();
    past[4..8].copy_from_slice(&(size + 2).to_le_bytes());
    for (k, (webp, expect)) in [
        (odd, format!("the RIFF size {} is odd", size - 1)),
        (
            past,
            format!("the RIFF size {} runs past the file's", size + 2),
        ),
    ]
    .into_iter()
    .enumerate()
    {
        let mut b = Builder::default();
        let mut d = triangle(&mut b);
        let view = b.view(&webp, None);
        d["images"] = json!([{"bufferView": view, "mimeType": "image/webp"}]);
        d["textures"] = json!([{"extensions": {"EXT_texture_webp": {"source": 0}}}]);
        d["materials"] = json!([{"pbrMetallicRoughness": {"baseColorTexture": {"index": 0}}}]);
        d["meshes"][0]["primitives"][0]["material"] = json!(0);
        d["extensionsUsed"] = json!(["EXT_texture_webp"]);
        d["extensionsRequired"] = json!(["EXT_texture_webp"]);
        let m = refused(&format!("webp-riff-{k}"), b.gltf(d));
        assert!(m.contains(&expect), "{m}");
    }
}

#[test]
fn draco_extensions_and_versions_are_checked_before_decoding() {
    let mut b = Builder::default();
    let pos = b.accessor(json!({"componentType": 5126, "count": 3, "type": "VEC3"}));
    let uv = b.accessor(json!({"componentType": 5126, "count": 3, "type": "VEC2"}));
    let idx = b.accessor(json!({"componentType": 5123, "count": 3, "type": "SCALAR"}));
    // A header of an unknown version (9.9), and one of 2.2 (decoded: it is truncated).
    let unknown = b.view(b"DRACO\x09\x09\x01\x01\x00\x00", None);
    let known = b.view(b"DRACO\x02\x02\x01\x01\x00\x00", None);
    let doc = |ext: Value| {
        json!({
            "scene": 0,
            "scenes": [{"nodes": [0]}],
            "nodes": [{"name": "tri", "mesh": 0}],
            "meshes": [{"name": "m", "primitives": [{
                "attributes": {"POSITION": pos, "TEXCOORD_0": uv}, "indices": idx,
                "extensions": {"KHR_draco_mesh_compression": ext}
            }]}],
            "extensionsUsed": ["KHR_draco_mesh_compression"],
            "extensionsRequired": ["KHR_draco_mesh_compression"]
        })
    };
    for (k, (ext, expect)) in [
        (
            json!({"bufferView": unknown, "attributes": {"POSITION": 0}}),
            "Draco bitstream version 9.9 is not one the decoder knows",
        ),
        (
            json!({"bufferView": known, "attributes": {"POSITION": 0, "TEXCOORD_0": 0}}),
            "attributes.TEXCOORD_0: Draco attribute id 0 is POSITION's too",
        ),
        (
            json!({"bufferView": known, "attributes": {"TEXCOORD_0": 1}}),
            "attributes: has no POSITION",
        ),
    ]
    .into_iter()
    .enumerate()
    {
        let m = refused(&format!("draco-strict-{k}"), b.gltf(doc(ext)));
        assert!(m.contains(expect), "{m}");
    }
}
