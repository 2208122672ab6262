//! glTF normal, occlusion and emissive-strength mappings (issue 14) of the classic shading
//! (`Shading::Classic`; the PBR stage reads the textures as they are), each texture's uv set,
//! and the bad inputs around them: typed errors or a documented fallback with a warning,
//! never a panic.

use crate::gltf_builder;

use gltf_builder::{png, temp_dir, write, Builder};
use plumb_raster::combine::{ApplyMode, CombineState};
use plumb_scene::effect::{Effect, TexCoords};
use plumb_scene::io::{self, ApplyOptions, ImportOptions, ImportedScene, IoError, Shading};
use serde_json::{json, Value};

/// A quad in z = 0 facing +z, corners (0,0) (1,0) (1,1) (0,1), with normals, two uv sets
/// (set 0: glTF's usual layout, u = x and v = 1 − y; set 1: u mirrored) and `material`.
fn quad(b: &mut Builder, material: Value, extra: &[(&str, usize)]) -> Value {
    let pos = b.f32s(
        &[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 1.0, 0.0],
        "VEC3",
    );
    let nrm = b.f32s(&[0.0, 0.0, 1.0].repeat(4), "VEC3");
    let uv0 = b.f32s(&[0.0, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0], "VEC2");
    let uv1 = b.f32s(&[1.0, 1.0, 0.0, 1.0, 0.0, 0.0, 1.0, 0.0], "VEC2");
    let idx = b.u16s(&[0, 1, 2, 0, 2, 3]);
    let mut attributes =
        json!({"POSITION": pos, "NORMAL": nrm, "TEXCOORD_0": uv0, "TEXCOORD_1": uv1});
    for (k, v) in extra {
        attributes[*k] = json!(v);
    }
    let img = png(2, 2, [128, 128, 255, 255]);
    let grey = png(2, 2, [64, 200, 30, 255]);
    let (iv, gv) = (b.view(&img, None), b.view(&grey, None));
    json!({
        "asset": {"version": "2.0"},
        "scene": 0,
        "scenes": [{"nodes": [0]}],
        "nodes": [{"name": "quad", "mesh": 0}],
        "meshes": [{"name": "m", "primitives": [{"attributes": attributes, "indices": idx, "material": 0}]}],
        "materials": [material],
        "textures": [{"source": 0}, {"source": 1}],
        "images": [
            {"bufferView": iv, "mimeType": "image/png"},
            {"bufferView": gv, "mimeType": "image/png"}
        ],
        "extensionsUsed": ["KHR_materials_emissive_strength", "KHR_texture_transform"]
    })
}

fn load_doc(name: &str, b: &Builder, d: Value) -> Result<ImportedScene, IoError> {
    let dir = temp_dir(name);
    let p = write(&dir, "m.glb", b.glb(d));
    let classic = ApplyOptions {
        shading: Shading::Classic,
        ..ApplyOptions::default()
    };
    io::load(
        &p,
        &ImportOptions {
            apply: Some(classic),
            ..ImportOptions::default()
        },
    )
}

fn leaf(s: &ImportedScene) -> plumb_scene::NodeId {
    s.scene.find("m[0]").expect("the primitive's leaf")
}

#[test]
fn emissive_strength_multiplies_the_factor() {
    let mut b = Builder::default();
    let d = quad(
        &mut b,
        json!({"emissiveFactor": [0.1, 0.5, 0.25],
               "extensions": {"KHR_materials_emissive_strength": {"emissiveStrength": 4.0}}}),
        &[],
    );
    let s = load_doc("emissive-strength", &b, d).unwrap();
    let m = s.imported.material(leaf(&s)).unwrap();
    // 4 × (0.1, 0.5, 0.25).
    assert_eq!(m.emissive, glam::Vec3::new(0.4, 2.0, 1.0));
    let mut b = Builder::default();
    let d = quad(
        &mut b,
        json!({"emissiveFactor": [1, 1, 1],
               "extensions": {"KHR_materials_emissive_strength": {"emissiveStrength": -1.0}}}),
        &[],
    );
    let e = load_doc("emissive-negative", &b, d).expect_err("negative strength");
    assert!(matches!(e, IoError::Invalid { .. }), "{e}");
    assert!(e.to_string().contains("emissiveStrength"), "{e}");
}

#[test]
fn normal_map_becomes_a_bump_map_with_its_own_uv_set() {
    let mut b = Builder::default();
    // Normal map on uv set 1 (texCoord 1), occlusion on set 0 with strength 0.5.
    let d = quad(
        &mut b,
        json!({"normalTexture": {"index": 0, "texCoord": 1},
               "occlusionTexture": {"index": 1, "strength": 0.25},
               "pbrMetallicRoughness": {"metallicFactor": 0.0}}),
        &[],
    );
    let s = load_doc("bump", &b, d).unwrap();
    let id = leaf(&s);
    let m = s.imported.material(id).unwrap();
    assert_eq!(m.normal_texture.as_ref().unwrap().tex_coord, 1);
    assert_eq!(m.occlusion_texture.as_ref().unwrap().tex_coord, 0);
    assert_eq!(m.occlusion_strength, 0.25);
    let Some(Effect::BumpMap {
        base,
        normal_map,
        extra,
        ..
    }) = s.scene.effect(id).unwrap()
    else {
        panic!("{:?}", s.scene.effect(id));
    };
    assert_eq!(normal_map.coords, TexCoords::Uv(1));
    assert_eq!(normal_map.apply, ApplyMode::Combine(CombineState::DOT3));
    // Without a base texture the base is a 1×1 read on the normal map's set.
    assert_eq!(base.coords, TexCoords::Uv(1));
    // Default rig: ambient (fill 0.3) added, then the occlusion dark map on set 0.
    assert_eq!(extra.len(), 2, "{extra:?}");
    let occ = &extra[1];
    assert_eq!(occ.coords, TexCoords::Uv(0));
    // Red 64: 1 + 0.25·(64/255 − 1) = 207.25/255, ⌊207.25 + ½⌋ = 207, grey.
    let t = occ.texture.level(0).unwrap().to_texels()[0];
    assert_eq!(t, [207, 207, 207, 255]);
    // Set 1 mirrors u: the generated tangents run along −x with w = −1.
    let mesh = s.scene.mesh(id).unwrap();
    for t in mesh.tangents().expect("generated tangents") {
        assert!((t.truncate() - glam::Vec3::NEG_X).length() < 1e-6, "{t}");
        assert_eq!(t.w, -1.0);
    }
    assert!(s.imported.applied.warnings.is_empty());
}

#[test]
fn texture_transform_tex_coord_overrides_on_normal_and_occlusion() {
    let mut b = Builder::default();
    let d = quad(
        &mut b,
        json!({"normalTexture": {"index": 0, "texCoord": 0,
                  "extensions": {"KHR_texture_transform": {"texCoord": 1, "scale": [2, 2]}}},
               "occlusionTexture": {"index": 1, "texCoord": 1,
                  "extensions": {"KHR_texture_transform": {"texCoord": 0}}}}),
        &[],
    );
    let s = load_doc("transform", &b, d).unwrap();
    let m = s.imported.material(leaf(&s)).unwrap();
    let n = m.normal_texture.as_ref().unwrap();
    assert_eq!(n.tex_coord, 1);
    // Scale 2: u' = 2u.
    assert_eq!(
        n.transform_uv(glam::Vec2::new(0.25, 0.5)),
        glam::Vec2::new(0.5, 1.0)
    );
    assert_eq!(m.occlusion_texture.as_ref().unwrap().tex_coord, 0);
}

#[test]
fn normal_scale_rewrites_the_map() {
    let mut b = Builder::default();
    // Texel (128, 128, 255) is (0.0039, 0.0039, 1): scaled by 0 it is exactly +z.
    let d = quad(
        &mut b,
        json!({"normalTexture": {"index": 1, "scale": 0.0}}),
        &[],
    );
    let s = load_doc("normal-scale", &b, d).unwrap();
    let Some(Effect::BumpMap { normal_map, .. }) = s.scene.effect(leaf(&s)).unwrap() else {
        panic!();
    };
    // Source (64, 200, 30): x, y scaled by 0 → (0, 0, 2·30/255 − 1 < 0) → (0, 0, −1),
    // encoded (128, 128, 0) (0.5·255 + ½ = 128).
    assert_eq!(
        normal_map.texture.level(0).unwrap().to_texels()[0],
        [128, 128, 0, 255]
    );
}

#[test]
fn file_tangents_are_used_and_bad_ones_refused() {
    let mut b = Builder::default();
    let tan = b.f32s(&[0.0, 1.0, 0.0, -1.0].repeat(4), "VEC4");
    let d = quad(
        &mut b,
        json!({"normalTexture": {"index": 0}}),
        &[("TANGENT", tan)],
    );
    let s = load_doc("tangents", &b, d).unwrap();
    let t = s.scene.mesh(leaf(&s)).unwrap().tangents().unwrap().to_vec();
    assert_eq!(t, vec![glam::Vec4::new(0.0, 1.0, 0.0, -1.0); 4]);

    let mut b = Builder::default();
    let tan = b.f32s(&[0.0, f32::NAN, 0.0, 1.0].repeat(4), "VEC4");
    let d = quad(
        &mut b,
        json!({"normalTexture": {"index": 0}}),
        &[("TANGENT", tan)],
    );
    let e = load_doc("tangent-nan", &b, d).expect_err("NaN tangent");
    assert!(matches!(e, IoError::NonFinite { .. }), "{e}");
    assert!(e.to_string().contains("TANGENT"), "{e}");

    let mut b = Builder::default();
    let tan = b.f32s(&[1.0, 0.0, 0.0, 1.0].repeat(3), "VEC4");
    let d = quad(
        &mut b,
        json!({"normalTexture": {"index": 0}}),
        &[("TANGENT", tan)],
    );
    let e = load_doc("tangent-count", &b, d).expect_err("3 tangents for 4 vertices");
    assert!(matches!(e, IoError::Invalid { .. }), "{e}");
    assert!(e.to_string().contains("TANGENT"), "{e}");
}

#[test]
fn missing_uv_set_drops_the_texture_with_a_warning() {
    let mut b = Builder::default();
    let d = quad(
        &mut b,
        json!({"normalTexture": {"index": 0, "texCoord": 3},
               "occlusionTexture": {"index": 1, "texCoord": 2},
               "pbrMetallicRoughness": {"baseColorTexture": {"index": 1, "texCoord": 1}}}),
        &[],
    );
    let s = load_doc("missing-uv", &b, d).unwrap();
    let w = &s.imported.applied.warnings;
    assert_eq!(w.len(), 2, "{w:?}");
    assert!(
        w[0].contains("occlusionTexture") && w[0].contains("TEXCOORD_2"),
        "{w:?}"
    );
    assert!(
        w[1].contains("normalTexture") && w[1].contains("TEXCOORD_3"),
        "{w:?}"
    );
    // The base colour texture (set 1 exists) stays, as a plain texture effect.
    let Some(Effect::Textures(stages)) = s.scene.effect(leaf(&s)).unwrap() else {
        panic!("{:?}", s.scene.effect(leaf(&s)));
    };
    assert_eq!(stages.len(), 1);
    assert_eq!(stages[0].coords, TexCoords::Uv(1));
    assert!(s.scene.mesh(leaf(&s)).unwrap().tangents().is_none());
}

#[test]
fn normal_texture_index_out_of_range_is_an_error() {
    let mut b = Builder::default();
    let d = quad(&mut b, json!({"normalTexture": {"index": 7}}), &[]);
    let e = load_doc("normal-index", &b, d).expect_err("texture 7 does not exist");
    assert!(matches!(e, IoError::Invalid { .. }), "{e}");
    assert!(!e.to_string().contains('\n'), "{e}");
    let mut b = Builder::default();
    let d = quad(
        &mut b,
        json!({"occlusionTexture": {"index": 0,
            "extensions": {"KHR_texture_transform": {"offset": [0, "x"]}}}}),
        &[],
    );
    let e = load_doc("bad-transform", &b, d).expect_err("offset is not two numbers");
    assert!(matches!(e, IoError::Invalid { .. }), "{e}");
    assert!(e.to_string().contains("KHR_texture_transform"), "{e}");
}

/// `KHR_materials_pbrSpecularGlossiness` replaces the metallic-roughness fallback: the
/// diffuse factor and texture become the base colour, and the approximation takes the
/// specular colour as given and the shininess from `r = 1 − glossiness` — computed here
/// from the rule's formula, `n = 2/α² − 2` with `α = r²`, clamped to 1..128.
#[test]
fn specular_glossiness_maps_diffuse_specular_and_glossiness() {
    let mut b = Builder::default();
    let material = json!({
        "pbrMetallicRoughness": {"baseColorFactor": [0.0, 1.0, 0.0, 1.0], "metallicFactor": 1.0},
        "extensions": {"KHR_materials_pbrSpecularGlossiness": {
            "diffuseFactor": [0.8, 0.4, 0.2, 0.5],
            "diffuseTexture": {"index": 1, "texCoord": 1},
            "specularFactor": [0.3, 0.2, 0.1],
            "glossinessFactor": 0.4
        }}
    });
    let mut d = quad(&mut b, material, &[]);
    d["extensionsUsed"] = json!(["KHR_materials_pbrSpecularGlossiness"]);
    d["extensionsRequired"] = json!(["KHR_materials_pbrSpecularGlossiness"]);
    let s = load_doc("spec-gloss", &b, d).expect("a required spec-gloss file loads");
    let m = s.imported.material(leaf(&s)).expect("material");
    assert_eq!(m.base_color.to_array(), [0.8, 0.4, 0.2, 0.5]);
    let t = m.base_color_texture.as_ref().expect("the diffuse texture");
    assert_eq!(
        (t.tex_coord, t.texture.level(0).unwrap().to_texels()[0]),
        (1, [64, 200, 30, 255])
    );
    let ff = m.fixed_function_approximation();
    assert_eq!(ff.diffuse.to_array(), [0.8, 0.4, 0.2, 0.5]);
    assert_eq!(ff.specular.to_array(), [0.3, 0.2, 0.1]);
    let r: f32 = 1.0 - 0.4;
    let alpha = r * r;
    let n = (2.0 / (alpha * alpha) - 2.0).clamp(1.0, 128.0);
    assert!((ff.shininess - n).abs() < 1e-4, "{} vs {n}", ff.shininess);
    assert!(s.imported.extensions.iter().all(|e| e.warning().is_none()));

    // Malformed: a wrong-length factor, a texture that does not exist.
    for (name, ext, expect) in [
        (
            "sg-len",
            json!({"diffuseFactor": [1.0, 1.0, 1.0]}),
            "diffuseFactor must be 4",
        ),
        (
            "sg-tex",
            json!({"diffuseTexture": {"index": 9}}),
            "index 9 is not a texture",
        ),
    ] {
        let mut b = Builder::default();
        let material = json!({"extensions": {"KHR_materials_pbrSpecularGlossiness": ext}});
        let d = quad(&mut b, material, &[]);
        let e = load_doc(name, &b, d).expect_err(name);
        let msg = e.to_string();
        assert!(
            msg.contains("KHR_materials_pbrSpecularGlossiness") && msg.contains(expect),
            "{msg}"
        );
    }
}
