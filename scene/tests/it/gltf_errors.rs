//! Every class of bad glTF input gives a typed error naming the file (and the node, mesh or
//! accessor), never a panic — and leaves the scene imported into unchanged.

use crate::gltf_builder;

use std::path::PathBuf;

use gltf_builder::{glb_bytes, png, temp_dir, triangle, write, Builder};
use plumb_scene::io::{self, ImportOptions, IoError, Location};
use plumb_scene::Scene;
use serde_json::{json, Value};

fn load(name: &str, file: &str, bytes: impl AsRef<[u8]>) -> (PathBuf, IoError) {
    let dir = temp_dir(name);
    let p = write(&dir, file, bytes);
    let e = io::load(&p, &ImportOptions::default()).expect_err("must fail");
    assert_eq!(e.file(), p.as_path(), "{e}");
    assert!(e.to_string().starts_with(&p.display().to_string()), "{e}");
    (p, e)
}

fn tri_doc() -> (Builder, Value) {
    let mut b = Builder::default();
    let d = triangle(&mut b);
    (b, d)
}

#[test]
fn garbage_and_truncated_gltf() {
    let (_, e) = load("garbage-gltf", "g.gltf", "this is not json");
    assert!(
        matches!(
            e,
            IoError::Parse {
                location: Some(Location { line: 1, .. }),
                ..
            }
        ),
        "{e}"
    );
    let (b, d) = tri_doc();
    let text = b.gltf(d);
    let (_, e) = load("trunc-gltf", "t.gltf", &text[..text.len() / 2]);
    let IoError::Parse {
        location: Some(loc),
        ..
    } = &e
    else {
        panic!("{e}")
    };
    assert!(loc.line > 1, "{e}");
    // Valid JSON, not glTF.
    let (_, e) = load("json-not-gltf", "j.gltf", "[1, 2, 3]");
    assert!(matches!(e, IoError::Parse { .. }), "{e}");
}

#[test]
fn garbage_and_truncated_glb() {
    let (_, e) = load("garbage-glb", "g.glb", b"glTF\x02\0\0\0garbage garbage");
    assert!(matches!(e, IoError::Parse { .. }), "{e}");
    let (b, d) = tri_doc();
    let g = b.glb(d);
    let (_, e) = load("trunc-glb", "t.glb", &g[..g.len() - 10]);
    assert!(e.to_string().contains("truncated GLB"), "{e}");
    // JSON chunk with garbage inside.
    let (_, e) = load("glb-bad-json", "j.glb", glb_bytes("{\"asset\": ", None));
    assert!(matches!(e, IoError::Parse { .. }), "{e}");
    // A BIN buffer without BIN chunk.
    let (_, e) = load(
        "glb-no-bin",
        "n.glb",
        glb_bytes(
            &serde_json::to_string(
                &json!({"asset": {"version": "2.0"}, "buffers": [{"byteLength": 4}]}),
            )
            .unwrap(),
            None,
        ),
    );
    assert!(
        matches!(e, IoError::MissingResource { kind: "buffer", .. }),
        "{e}"
    );
}

#[test]
fn missing_buffer_and_image_files() {
    let (b, d) = tri_doc();
    let (_, e) = load("no-bin", "m.gltf", b.gltf_external(d.clone(), "nope.bin"));
    assert!(
        matches!(&e, IoError::MissingResource { kind: "buffer", uri, .. } if uri == "nope.bin"),
        "{e}"
    );
    assert!(e.to_string().contains("nope.bin"));
    let mut d2 = d;
    d2["meshes"][0]["primitives"][0]["material"] = json!(0);
    d2["materials"] = json!([{"pbrMetallicRoughness": {"baseColorTexture": {"index": 0}}}]);
    d2["textures"] = json!([{"source": 0}]);
    d2["images"] = json!([{"uri": "missing.png"}]);
    let (_, e) = load("no-img", "i.gltf", b.gltf(d2.clone()));
    assert!(
        matches!(&e, IoError::MissingResource { kind: "image", uri, .. } if uri == "missing.png"),
        "{e}"
    );
    // A present but corrupt image.
    let dir = temp_dir("bad-img");
    write(&dir, "missing.png", b"\x89PNG\r\n\x1a\n truncated");
    let p = write(&dir, "i.gltf", b.gltf(d2));
    let e = io::load(&p, &ImportOptions::default()).unwrap_err();
    assert!(matches!(e, IoError::Image { .. }), "{e}");
}

#[test]
fn out_of_range_accessors_and_indices() {
    // An accessor reading past its buffer view.
    let (mut b, mut d) = tri_doc();
    b.accessors[0]["count"] = json!(100);
    let (_, e) = load("acc-range", "a.gltf", b.gltf(d.clone()));
    assert!(
        matches!(e, IoError::Invalid { .. })
            && e.to_string().contains("run past the end of buffer view"),
        "{e}"
    );
    // An index past the vertices.
    let (mut b, _) = tri_doc();
    let bad = b.u16s(&[0, 1, 7]);
    d["meshes"][0]["primitives"][0]["indices"] = json!(bad);
    let (_, e) = load("idx-range", "i.gltf", b.gltf(d.clone()));
    assert!(
        e.to_string()
            .contains("index 7 at position 2 is out of range for 3 vertices"),
        "{e}"
    );
    // An accessor index that does not exist.
    let (b, mut d) = tri_doc();
    d["meshes"][0]["primitives"][0]["attributes"]["POSITION"] = json!(99);
    let (_, e) = load("idx-json", "j.gltf", b.gltf(d));
    assert!(
        matches!(&e, IoError::Invalid { context, .. } if context.contains("POSITION")),
        "{e}"
    );
    // A buffer view past its buffer.
    let (mut b, d) = tri_doc();
    b.views[0]["byteLength"] = json!(4000);
    let (_, e) = load("view-range", "v.gltf", b.gltf(d));
    assert!(
        e.to_string().contains("lie past the end of buffer 0"),
        "{e}"
    );
    // A sparse index past the element count.
    let (mut b, d) = tri_doc();
    let iv = b.view(&9u16.to_le_bytes(), None);
    let vv = b.view(&[0u8; 12], None);
    b.accessors[0]["sparse"] = json!({"count": 1, "indices": {"bufferView": iv, "componentType": 5123}, "values": {"bufferView": vv}});
    let (_, e) = load("sparse-range", "s.gltf", b.gltf(d));
    assert!(e.to_string().contains("sparse index 9 out of range"), "{e}");
    // Wrong accessor type.
    let (mut b, d) = tri_doc();
    b.accessors[0]["type"] = json!("VEC2");
    b.accessors[0]["count"] = json!(4);
    let (_, e) = load("acc-type", "t.gltf", b.gltf(d));
    assert!(e.to_string().contains("is VEC2, expected VEC3"), "{e}");
}

#[test]
fn non_finite_transform_and_positions() {
    // 1e39 does not fit an f32: infinite.
    let (b, mut d) = tri_doc();
    d["nodes"][0]["translation"] = json!([1e39, 0.0, 0.0]);
    let (_, e) = load("nan-trs", "n.gltf", b.gltf(d.clone()));
    assert!(
        matches!(&e, IoError::NonFinite { context, what: "translation", .. } if context == "node 0 'tri'"),
        "{e}"
    );
    d["nodes"][0].as_object_mut().unwrap().remove("translation");
    d["nodes"][0]["matrix"] =
        json!([1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1e39, 0.0, 0.0, 0.0, 0.0, 1.0]);
    let (_, e) = load("nan-mat", "m.gltf", b.gltf(d.clone()));
    assert!(
        matches!(e, IoError::NonFinite { what: "matrix", .. }),
        "{e}"
    );
    // A projective matrix is refused.
    d["nodes"][0]["matrix"] =
        json!([1.0, 0.0, 0.0, 0.5, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0]);
    let (_, e) = load("proj-mat", "p.gltf", b.gltf(d));
    assert!(e.to_string().contains("not affine"), "{e}");
    // NaN in the binary positions.
    let mut b = Builder::default();
    let pos = b.f32s(&[0.0, 0.0, 0.0, f32::NAN, 0.0, 0.0, 0.0, 1.0, 0.0], "VEC3");
    let d = json!({"nodes": [{"mesh": 0}], "meshes": [{"name": "bad", "primitives": [{"attributes": {"POSITION": pos}}]}]});
    let (_, e) = load("nan-pos", "p.gltf", b.gltf(d));
    assert!(
        matches!(&e, IoError::NonFinite { context, what: "positions", .. } if context.contains("mesh 0 'bad' primitive 0")),
        "{e}"
    );
}

#[test]
fn skins_and_morph_targets_need_their_data() {
    // A skin on a mesh without JOINTS_0/WEIGHTS_0.
    let (b, mut d) = tri_doc();
    d["nodes"][0]["skin"] = json!(0);
    d["skins"] = json!([{"joints": [0]}]);
    let (_, e) = load("skin", "s.gltf", b.gltf(d));
    assert!(
        matches!(&e, IoError::Invalid { message, .. } if message.contains("no JOINTS_0/WEIGHTS_0")),
        "{e}"
    );
    // A weights animation channel on a node whose mesh has no morph targets.
    let (mut b, mut d) = tri_doc();
    let t = b.f32s(&[0.0], "SCALAR");
    d["animations"] = json!([{"samplers": [{"input": t, "output": t}], "channels": [{"sampler": 0, "target": {"node": 0, "path": "weights"}}]}]);
    let (_, e) = load("weights", "w.gltf", b.gltf(d));
    assert!(
        matches!(&e, IoError::Invalid { message, .. } if message.contains("no morph targets")),
        "{e}"
    );
}

#[test]
fn bad_animations_and_hierarchies() {
    let (mut b, mut d) = tri_doc();
    let t = b.f32s(&[1.0, 0.5], "SCALAR");
    let v = b.f32s(&[0.0; 6], "VEC3");
    d["animations"] = json!([{"samplers": [{"input": t, "output": v}], "channels": [{"sampler": 0, "target": {"node": 0, "path": "translation"}}]}]);
    let (_, e) = load("anim-times", "a.gltf", b.gltf(d.clone()));
    assert!(
        e.to_string()
            .contains("animation 0 channel 0: keyframe times must increase strictly"),
        "{e}"
    );
    // A node that is its own grandchild.
    let (b, mut d) = tri_doc();
    d["nodes"] = json!([{"name": "a", "children": [1]}, {"name": "b", "children": [0]}]);
    let (_, e) = load("cycle", "c.gltf", b.gltf(d));
    assert!(
        e.to_string()
            .contains("is its own ancestor (the node hierarchy has a cycle)"),
        "{e}"
    );
}

#[test]
fn oversized_textures() {
    let (b, mut d) = tri_doc();
    d["meshes"][0]["primitives"][0]["material"] = json!(0);
    d["materials"] = json!([{"pbrMetallicRoughness": {"baseColorTexture": {"index": 0}}}]);
    d["textures"] = json!([{"source": 0}]);
    d["images"] = json!([{"uri": "wide.png"}]);
    let dir = temp_dir("big-tex");
    // One texel wider than the default limit (8192).
    write(
        &dir,
        "wide.png",
        png(io::DEFAULT_MAX_TEXTURE_SIZE + 1, 1, [0, 0, 0, 255]),
    );
    let p = write(&dir, "w.gltf", b.gltf(d));
    let e = io::load(&p, &ImportOptions::default()).unwrap_err();
    assert_eq!(
        e,
        IoError::ImageTooLarge {
            file: p.clone(),
            image: "wide.png".into(),
            width: 8193,
            height: 1,
            max: 8192
        }
    );
    // A configured, smaller limit.
    write(&dir, "wide.png", png(4, 2, [0, 0, 0, 255]));
    let opts = ImportOptions {
        max_texture_size: 2,
        ..ImportOptions::default()
    };
    assert!(matches!(
        io::load(&p, &opts),
        Err(IoError::ImageTooLarge {
            width: 4,
            max: 2,
            ..
        })
    ));
    assert!(io::load(&p, &ImportOptions::default()).is_ok());
}

#[test]
fn unsupported_extension_and_required_extensions() {
    let (b, d) = tri_doc();
    let (_, e) = load("ext", "scene.fbx", b.gltf(d.clone()));
    assert!(matches!(e, IoError::UnsupportedFormat { .. }), "{e}");
    let mut d = d;
    d["extensionsRequired"] = json!(["KHR_materials_volume_future"]);
    d["extensionsUsed"] = json!(["KHR_materials_volume_future"]);
    let (_, e) = load("ext-req", "r.gltf", b.gltf(d.clone()));
    assert!(e.to_string().contains("unsupported extension"), "{e}");
    // A required extension whose data plumb cannot decode is named, with what it carries,
    // even when its accessors have no buffer view, which validation would report first as
    // "missing data".
    {
        let (ext, what) = ("EXT_texture_avif", "AVIF");
        let mut d = d.clone();
        d["extensionsRequired"] = json!(["KHR_mesh_quantization", ext]);
        d["extensionsUsed"] = json!(["KHR_mesh_quantization", ext]);
        let mut d: Value = serde_json::from_str(&b.gltf(d)).expect("builder JSON");
        d["accessors"][0]
            .as_object_mut()
            .expect("accessor")
            .remove("bufferView");
        let (_, e) = load("ext-undecodable", "d.gltf", d.to_string());
        let m = e.to_string();
        assert!(
            m.contains("extensionsRequired[1]")
                && m.contains(&format!("requires {ext}"))
                && m.contains(what)
                && m.contains("cannot decode")
                && m.contains("d.gltf"),
            "{m}"
        );
    }
    let dir = temp_dir("nofile");
    let e = io::load(&dir.join("absent.gltf"), &ImportOptions::default()).unwrap_err();
    assert!(matches!(e, IoError::Read { .. }), "{e}");
}

/// `KHR_draco_mesh_compression` with a bad stream or a bad extension object: one error
/// naming the file, the primitive and the extension, and what is wrong (issue 28). The
/// decoder's own refusals (not a Draco stream, a truncated one, one claiming more points
/// than the load may hold) come through with its reason.
#[test]
fn bad_draco_streams_are_named() {
    let mut b = Builder::default();
    let pos = b.accessor(json!({"componentType": 5126, "count": 3, "type": "VEC3"}));
    let idx = b.accessor(json!({"componentType": 5123, "count": 3, "type": "SCALAR"}));
    let garbage = b.view(b"this is not a Draco stream at all", None);
    // A Draco header (magic, version 2.2, mesh, EdgeBreaker, no flags) and nothing after it.
    let truncated = b.view(b"DRACO\x02\x02\x01\x01\x00\x00", None);
    // The header again, then a sequential mesh claiming 2^32 - 1 faces and points.
    let huge = b.view(
        b"DRACO\x02\x02\x01\x00\x00\x00\xff\xff\xff\xff\x0f\xff\xff\xff\xff\x0f\x00",
        None,
    );
    let doc = |ext: Value, mode: u32| {
        json!({
            "scene": 0,
            "scenes": [{"nodes": [0]}],
            "nodes": [{"name": "tri", "mesh": 0}],
            "meshes": [{"name": "m", "primitives": [{
                "attributes": {"POSITION": pos}, "indices": idx, "mode": mode,
                "extensions": {"KHR_draco_mesh_compression": ext}
            }]}],
            "extensionsUsed": ["KHR_draco_mesh_compression"],
            "extensionsRequired": ["KHR_draco_mesh_compression"]
        })
    };
    let cases = [
        (
            json!({"bufferView": garbage, "attributes": {"POSITION": 0}}),
            4,
            "does not decode",
        ),
        (
            json!({"bufferView": truncated, "attributes": {"POSITION": 0}}),
            4,
            "does not decode",
        ),
        (
            json!({"bufferView": huge, "attributes": {"POSITION": 0}}),
            4,
            "does not decode",
        ),
        (
            json!({"bufferView": 99, "attributes": {"POSITION": 0}}),
            4,
            "buffer view 99 does not exist",
        ),
        (
            json!({"attributes": {"POSITION": 0}}),
            4,
            "has no bufferView",
        ),
        (json!({"bufferView": garbage}), 4, "has no attributes"),
        (
            json!({"bufferView": garbage, "attributes": {"POSITION": "x"}}),
            4,
            "not a Draco attribute id",
        ),
        (
            json!({"bufferView": garbage, "attributes": {"POSITION": 0}}),
            1,
            "needs mode TRIANGLES or POINTS",
        ),
    ];
    for (k, (ext, mode, want)) in cases.into_iter().enumerate() {
        let (_, e) = load(&format!("draco-{k}"), "d.gltf", b.gltf(doc(ext, mode)));
        let m = e.to_string();
        assert!(
            m.contains("mesh 0 'm' primitive 0")
                && m.contains("KHR_draco_mesh_compression")
                && m.contains(want)
                && !m.contains('\n'),
            "case {k}: {m}"
        );
    }
}

/// The runtimes' policy: a required extension that only refines a material loads with the
/// base material and a warning naming it; a required one plumb neither honours nor may draw
/// without is refused; what the file uses is listed with what plumb did.
#[test]
fn material_refinements_load_with_a_warning_and_are_listed() {
    let (b, d) = tri_doc();
    for ext in [
        "KHR_materials_clearcoat",
        "KHR_materials_iridescence",
        "KHR_materials_transmission",
        "KHR_materials_sheen",
    ] {
        let mut d = d.clone();
        d["extensionsRequired"] = json!([ext]);
        d["extensionsUsed"] = json!(["KHR_texture_transform", ext, "EXT_made_up"]);
        let dir = temp_dir("ext-refine");
        let p = write(&dir, "c.gltf", b.gltf(d));
        let loaded =
            io::load(&p, &ImportOptions::default()).unwrap_or_else(|e| panic!("{ext}: {e}"));
        let ext_uses = &loaded.imported.extensions;
        let names: Vec<&str> = ext_uses.iter().map(|e| e.name.as_str()).collect();
        assert_eq!(names, ["KHR_texture_transform", ext, "EXT_made_up"]);
        let words: Vec<(&str, bool)> = ext_uses
            .iter()
            .map(|e| (e.handling.word(), e.required))
            .collect();
        assert_eq!(
            words,
            [("honoured", false), ("ignored", true), ("unknown", false)]
        );
        let warnings: Vec<String> = ext_uses.iter().filter_map(|e| e.warning()).collect();
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert!(
            warnings[0].contains(ext) && warnings[0].contains("base material"),
            "{warnings:?}"
        );
    }
    // Used, not required: listed, no warning.
    let mut d2 = d.clone();
    d2["extensionsUsed"] = json!(["KHR_materials_clearcoat"]);
    let dir = temp_dir("ext-used");
    let p = write(&dir, "u.gltf", b.gltf(d2));
    let loaded = io::load(&p, &ImportOptions::default()).expect("loads");
    assert_eq!(loaded.imported.extensions.len(), 1);
    assert!(loaded.imported.extensions[0].warning().is_none());
    // Honoured extensions may be required, and say nothing.
    let mut d3 = d.clone();
    d3["extensionsUsed"] = json!(["EXT_mesh_gpu_instancing"]);
    d3["extensionsRequired"] = json!(["EXT_mesh_gpu_instancing"]);
    let p = write(&dir, "i.gltf", b.gltf(d3));
    let loaded = io::load(&p, &ImportOptions::default()).expect("loads");
    assert_eq!(loaded.imported.extensions[0].handling.word(), "honoured");
    assert!(loaded.imported.extensions[0].warning().is_none());
    // Required but neither honoured nor a refinement: refused, naming it.
    for ext in ["EXT_made_up", "KHR_animation_pointer", "KHR_xmp_json_ld"] {
        let mut d = d.clone();
        d["extensionsRequired"] = json!([ext]);
        d["extensionsUsed"] = json!([ext]);
        let (_, e) = load("ext-refused", "r.gltf", b.gltf(d));
        let m = e.to_string();
        assert!(
            m.contains("unsupported extension") && m.contains(ext),
            "{ext}: {m}"
        );
    }
}

#[test]
fn failed_import_leaves_scene_unchanged() {
    let (b, mut d) = tri_doc();
    d["nodes"] =
        json!([{"name": "ok", "children": [1]}, {"name": "skinned", "mesh": 0, "skin": 0}]);
    d["skins"] = json!([{"joints": [0]}]);
    let dir = temp_dir("atomic");
    let p = write(&dir, "s.gltf", b.gltf(d));
    let mut scene = Scene::new();
    let before = scene.dump();
    let root = scene.root();
    assert!(io::import(&mut scene, root, &p, &ImportOptions::default()).is_err());
    assert_eq!(scene.node_count(), 1);
    assert_eq!(scene.dump(), before);
}

#[test]
fn mutated_files_never_panic() {
    let mut b = Builder::default();
    let mut d = triangle(&mut b);
    let uv = b.f32s(&[0.0, 0.0, 1.0, 0.0, 0.0, 1.0], "VEC2");
    d["meshes"][0]["primitives"][0]["attributes"]["TEXCOORD_0"] = json!(uv);
    d["meshes"][0]["primitives"][0]["material"] = json!(0);
    d["materials"] = json!([{"pbrMetallicRoughness": {"baseColorTexture": {"index": 0}}}]);
    d["textures"] = json!([{"source": 0}]);
    let img = png(2, 2, [1, 2, 3, 4]);
    let iv = b.view(&img, None);
    d["images"] = json!([{"bufferView": iv, "mimeType": "image/png"}]);
    let glb = b.glb(d.clone());
    let text = b.gltf(d).into_bytes();
    let dir = temp_dir("mutate");
    let mut rng = plumb_raster::rng::XorShift64::new(0x5eed);
    let (mut ok, mut failed) = (0, 0);
    // More with PLUMB_MUTATIONS=N (per file kind).
    let n: usize = std::env::var("PLUMB_MUTATIONS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(150);
    for (name, base) in [("m.glb", &glb), ("m.gltf", &text)] {
        for _ in 0..n {
            let mut m = base.clone();
            for _ in 0..1 + rng.next_u64() % 4 {
                let at = (rng.next_u64() as usize) % m.len();
                match rng.next_u64() % 3 {
                    0 => m[at] = rng.next_u64() as u8,
                    1 => m.truncate(at.max(1)),
                    _ => m[at] = b"0123456789-e.,[]{}\""[(rng.next_u64() % 19) as usize],
                }
            }
            let p = write(&dir, name, &m);
            match io::load(&p, &ImportOptions::default()) {
                Ok(_) => ok += 1,
                Err(e) => {
                    assert!(e.to_string().starts_with(&p.display().to_string()), "{e}");
                    assert!(!e.to_string().contains('\n'), "one line: {e}");
                    failed += 1;
                }
            }
        }
    }
    assert!(
        failed > 100,
        "most mutations must be rejected ({ok} loaded, {failed} failed)"
    );
}

/// `EXT_meshopt_compression` streams that are truncated, too long, of the wrong version or
/// of counts that do not fit their view: one error naming the file, the view and the
/// extension, and what is wrong (issue 28). Every truncation of the vertex stream is tried.
#[test]
fn bad_meshopt_streams_are_named() {
    use crate::gltf_import::{meshopt_quad, MESHOPT_TRIANGLES, MESHOPT_VERTICES};
    let v = &MESHOPT_VERTICES;
    let mut wrong_version = v.to_vec();
    wrong_version[0] = 0xa1;
    let mut long = v.to_vec();
    long.insert(40, 0);
    let mut cases: Vec<(Vec<u8>, Vec<u8>, &str)> = vec![
        (wrong_version, MESHOPT_TRIANGLES.to_vec(), "expected 0xa0"),
        (long, MESHOPT_TRIANGLES.to_vec(), "decode"),
        (v.to_vec(), MESHOPT_TRIANGLES[..10].to_vec(), "too few"),
    ];
    for n in [0, 1, 20, 33, 52, 84] {
        cases.push((v[..n].to_vec(), MESHOPT_TRIANGLES.to_vec(), "decode"));
    }
    for (k, (vertices, triangles, want)) in cases.into_iter().enumerate() {
        let (_, e) = load(
            &format!("meshopt-{k}"),
            "q.gltf",
            meshopt_quad(&vertices, &triangles),
        );
        let m = e.to_string();
        assert!(
            m.contains("bufferViews[") && m.contains("EXT_meshopt_compression") && m.contains(want),
            "case {k}: {m}"
        );
    }
    // A count that does not fill the parent view.
    let doc = meshopt_quad(&MESHOPT_VERTICES, &MESHOPT_TRIANGLES)
        .replace("\"count\":4,\"mode\"", "\"count\":3,\"mode\"");
    let (_, e) = load("meshopt-count", "q.gltf", doc);
    assert!(
        e.to_string().contains("is not the view's byteLength"),
        "{e}"
    );
}

/// `KHR_texture_basisu` images that are not Basis Universal KTX2 (garbage after the KTX2
/// magic, a truncated header, PNG bytes declared `image/ktx2`): one error naming the file
/// and the image, never a panic inside the transcoder (issue 28).
#[test]
fn bad_ktx2_images_are_named() {
    let magic: &[u8] = b"\xABKTX 20\xBB\r\n\x1A\n";
    let mut garbage = magic.to_vec();
    garbage.extend((0..200u32).map(|i| (i * 37 % 251) as u8));
    let mut huge_levels = magic.to_vec();
    // vkFormat 0, typeSize 1, 1x1, depth 0, layers 0, faces 1, 2^31 levels, BasisLZ.
    for v in [0u32, 1, 1, 1, 0, 0, 1, 0x8000_0000, 1] {
        huge_levels.extend(v.to_le_bytes());
    }
    huge_levels.resize(200, 0);
    for (k, image) in [
        garbage,
        magic.to_vec(),
        huge_levels,
        png(2, 2, [1, 2, 3, 4]),
    ]
    .into_iter()
    .enumerate()
    {
        let mut b = Builder::default();
        let mut d = triangle(&mut b);
        let view = b.view(&image, None);
        d["images"] = json!([{"bufferView": view, "mimeType": "image/ktx2"}]);
        d["textures"] = json!([{"extensions": {"KHR_texture_basisu": {"source": 0}}}]);
        d["materials"] = json!([{"pbrMetallicRoughness": {"baseColorTexture": {"index": 0}}}]);
        d["meshes"][0]["primitives"][0]["material"] = json!(0);
        d["extensionsUsed"] = json!(["KHR_texture_basisu"]);
        d["extensionsRequired"] = json!(["KHR_texture_basisu"]);
        let (_, e) = load(&format!("ktx2-{k}"), "k.gltf", b.gltf(d));
        let m = e.to_string();
        assert!(
            matches!(e, IoError::Image { .. }) && m.contains("image 0") && !m.contains('\n'),
            "case {k}: {m}"
        );
    }
}
