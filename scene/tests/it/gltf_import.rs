//! glTF import on small hand-written documents: primitive modes, strides, sparse accessors,
//! uv sets and colours, hierarchy and mirroring, shared meshes, scenes, materials and
//! samplers, cameras, lights, animations — each checked against values worked out by hand.

use crate::gltf_builder;

use std::sync::Arc;

use glam::{Mat3, Quat, Vec2, Vec3, Vec4};
use gltf_builder::{png, temp_dir, triangle, write, Builder};
use plumb_raster::texture::{MagFilter, MinFilter, Sampler, Wrap};
use plumb_scene::io::{
    self, apply_animations, AlphaMode, CameraProjection, ImportOptions, ImportedLightKind,
    ImportedScene,
};
use plumb_scene::{MeshTopology, NodeId, Scene};
use serde_json::{json, Value};

fn load_text(name: &str, text: &str) -> ImportedScene {
    let dir = temp_dir(name);
    let p = write(&dir, &format!("{name}.gltf"), text);
    // The importer's own output: materials recorded, not yet mapped onto render state.
    let raw = ImportOptions {
        apply: None,
        ..ImportOptions::default()
    };
    io::load(&p, &raw).unwrap_or_else(|e| panic!("{e}"))
}

fn child(scene: &Scene, of: NodeId, i: usize) -> NodeId {
    scene.children(of).unwrap()[i]
}

#[test]
fn indexed_triangle_gets_flat_normals() {
    let mut b = Builder::default();
    let doc = triangle(&mut b);
    let s = load_text("tri", &b.gltf(doc));
    let tri = s.scene.find("tri").unwrap();
    let geom = child(&s.scene, tri, 0);
    assert_eq!(s.scene.name(geom).unwrap(), "m[0]");
    let mesh = s.scene.mesh(geom).unwrap();
    assert_eq!(mesh.topology(), MeshTopology::Triangles);
    assert_eq!(mesh.triangle_count(), 1);
    // Counter-clockwise seen from +z: the flat normal is +z at every corner.
    assert_eq!(mesh.normals().unwrap(), &[Vec3::Z; 3]);
    assert_eq!(s.imported.roots, vec![tri]);
    // No material in the file: glTF's default (white, metallic 1, roughness 1, opaque).
    let m = s.imported.material(geom).unwrap();
    assert_eq!(
        (m.base_color, m.metallic, m.roughness),
        (Vec4::ONE, 1.0, 1.0)
    );
    assert_eq!(m.alpha_mode, AlphaMode::Opaque);
}

#[test]
fn glb_with_bin_chunk_equals_gltf() {
    let mut b = Builder::default();
    let doc = triangle(&mut b);
    let dir = temp_dir("glb");
    let a = io::load(
        &write(&dir, "t.gltf", b.gltf(doc.clone())),
        &ImportOptions::default(),
    )
    .unwrap();
    let g = io::load(&write(&dir, "t.glb", b.glb(doc)), &ImportOptions::default()).unwrap();
    assert_eq!(a.scene.dump(), g.scene.dump());
    let mesh = |s: &ImportedScene| {
        s.scene
            .mesh(child(&s.scene, s.imported.roots[0], 0))
            .unwrap()
            .clone()
    };
    assert_eq!(mesh(&a), mesh(&g));
}

#[test]
fn every_primitive_mode() {
    let mut b = Builder::default();
    // A zig-zag strip: every strip triangle is counter-clockwise seen from +z.
    let p = [
        [0.0, 0.0],
        [1.0, 0.0],
        [0.0, 1.0],
        [1.0, 1.0],
        [0.0, 2.0],
        [1.0, 2.0],
    ];
    let flat: Vec<f32> = p.iter().flat_map(|q| [q[0], q[1], 0.0]).collect();
    let pos = b.f32s(&flat, "VEC3");
    let prims: Vec<_> = (0..7)
        .map(|mode| json!({"attributes": {"POSITION": pos}, "mode": mode}))
        .collect();
    let doc = json!({"nodes": [{"name": "n", "mesh": 0}], "meshes": [{"name": "m", "primitives": prims}]});
    let s = load_text("modes", &b.gltf(doc));
    let n = s.scene.find("n").unwrap();
    let mesh = |k: usize| s.scene.mesh(child(&s.scene, n, k)).unwrap().clone();
    let v = |i: usize| Vec3::new(p[i][0], p[i][1], 0.0);
    assert_eq!(mesh(0).topology(), MeshTopology::Points);
    assert_eq!(mesh(0).indices(), &[0, 1, 2, 3, 4, 5]);
    assert_eq!(mesh(1).topology(), MeshTopology::Lines);
    assert_eq!(mesh(2).topology(), MeshTopology::LineLoop);
    assert_eq!(mesh(3).topology(), MeshTopology::LineStrip);
    assert_eq!(mesh(4).triangle_count(), 2);
    // Strip: (0,1,2) (1,3,2) (2,3,4) (3,5,4), split apart for flat normals.
    let strip = mesh(5);
    assert_eq!(strip.triangle_count(), 4);
    assert_eq!(strip.triangle(1).unwrap(), [v(1), v(3), v(2)]);
    assert_eq!(strip.triangle(3).unwrap(), [v(3), v(5), v(4)]);
    assert!(
        strip.normals().unwrap().iter().all(|&n| n == Vec3::Z),
        "strip winding is consistent"
    );
    // Fan: (1,2,0) (2,3,0) (3,4,0) (4,5,0).
    let fan = mesh(6);
    assert_eq!(fan.triangle_count(), 4);
    assert_eq!(fan.triangle(0).unwrap(), [v(1), v(2), v(0)]);
    assert_eq!(fan.triangle(3).unwrap(), [v(4), v(5), v(0)]);
}

#[test]
fn interleaved_byte_stride() {
    let mut b = Builder::default();
    // position, normal per vertex: stride 24.
    let verts: [[f32; 6]; 3] = [
        [0.0, 0.0, 0.0, 0.0, 0.0, 1.0],
        [1.0, 0.0, 0.0, 0.0, 1.0, 0.0],
        [0.0, 1.0, 0.0, 1.0, 0.0, 0.0],
    ];
    let bytes: Vec<u8> = verts
        .iter()
        .flatten()
        .flat_map(|x| x.to_le_bytes())
        .collect();
    let view = b.view(&bytes, Some(24));
    let pos =
        b.accessor(json!({"bufferView": view, "componentType": 5126, "count": 3, "type": "VEC3"}));
    let nrm = b.accessor(json!({"bufferView": view, "byteOffset": 12, "componentType": 5126, "count": 3, "type": "VEC3"}));
    let doc = json!({"nodes": [{"name": "n", "mesh": 0}], "meshes": [{"primitives": [{"attributes": {"POSITION": pos, "NORMAL": nrm}}]}]});
    let s = load_text("stride", &b.gltf(doc));
    let m = s
        .scene
        .mesh(child(&s.scene, s.scene.find("n").unwrap(), 0))
        .unwrap();
    assert_eq!(m.positions(), &[Vec3::ZERO, Vec3::X, Vec3::Y]);
    assert_eq!(m.normals().unwrap(), &[Vec3::Z, Vec3::Y, Vec3::X]);
}

#[test]
fn sparse_accessors() {
    let mut b = Builder::default();
    let base = b.f32s(
        &[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 2.0, 0.0, 0.0, 3.0, 0.0, 0.0],
        "VEC3",
    );
    let idx: Vec<u8> = [1u16, 3].iter().flat_map(|x| x.to_le_bytes()).collect();
    let iv = b.view(&idx, None);
    let vals: Vec<u8> = [9.0f32, 9.0, 9.0, 7.0, 7.0, 7.0]
        .iter()
        .flat_map(|x| x.to_le_bytes())
        .collect();
    let vv = b.view(&vals, None);
    let mut a = b.accessors[base].clone();
    a["sparse"] = json!({"count": 2, "indices": {"bufferView": iv, "componentType": 5123}, "values": {"bufferView": vv}});
    let sparse = b.accessor(a);
    // No bufferView: zeros, with one substituted element.
    let one: Vec<u8> = [1.0f32, 2.0, 3.0]
        .iter()
        .flat_map(|x| x.to_le_bytes())
        .collect();
    let ov = b.view(&one, None);
    let idx2: Vec<u8> = 2u32.to_le_bytes().to_vec();
    let iv2 = b.view(&idx2, None);
    let zeros = b.accessor(json!({"componentType": 5126, "count": 3, "type": "VEC3",
        "sparse": {"count": 1, "indices": {"bufferView": iv2, "componentType": 5125}, "values": {"bufferView": ov}}}));
    let doc = json!({"nodes": [{"name": "n", "mesh": 0}], "meshes": [{"primitives": [
        {"attributes": {"POSITION": sparse}, "mode": 0},
        {"attributes": {"POSITION": zeros}, "mode": 0}]}]});
    let s = load_text("sparse", &b.gltf(doc));
    let n = s.scene.find("n").unwrap();
    let m0 = s.scene.mesh(child(&s.scene, n, 0)).unwrap();
    assert_eq!(
        m0.positions(),
        &[
            Vec3::ZERO,
            Vec3::splat(9.0),
            Vec3::new(2.0, 0.0, 0.0),
            Vec3::splat(7.0)
        ]
    );
    let m1 = s.scene.mesh(child(&s.scene, n, 1)).unwrap();
    assert_eq!(
        m1.positions(),
        &[Vec3::ZERO, Vec3::ZERO, Vec3::new(1.0, 2.0, 3.0)]
    );
}

#[test]
fn uv_sets_and_vertex_colours() {
    let mut b = Builder::default();
    let pos = b.f32s(&[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0], "VEC3");
    let nrm = b.f32s(&[0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0], "VEC3");
    let uv0 = b.f32s(&[0.0, 0.0, 1.0, 0.0, 0.0, 1.0], "VEC2");
    let uv1 = b.u8n(&[0, 255, 255, 0, 51, 102], "VEC2");
    let c4 = b.u16n(
        &[65535, 0, 0, 65535, 0, 65535, 0, 0, 0, 0, 65535, 13107],
        "VEC4",
    );
    let c3 = b.f32s(&[0.5, 0.25, 1.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0], "VEC3");
    let doc = json!({"nodes": [{"name": "n", "mesh": 0}], "meshes": [{"primitives": [
        {"attributes": {"POSITION": pos, "NORMAL": nrm, "TEXCOORD_0": uv0, "TEXCOORD_1": uv1, "COLOR_0": c4}},
        {"attributes": {"POSITION": pos, "NORMAL": nrm, "COLOR_0": c3}}]}]});
    let s = load_text("uvs", &b.gltf(doc));
    let n = s.scene.find("n").unwrap();
    let m = s.scene.mesh(child(&s.scene, n, 0)).unwrap();
    assert_eq!(m.uv_sets().len(), 2);
    assert_eq!(m.uv_sets()[0][1], Vec2::new(1.0, 0.0));
    // 51/255 = 0.2, 102/255 = 0.4.
    assert_eq!(
        m.uv_sets()[1],
        vec![
            Vec2::new(0.0, 1.0),
            Vec2::new(1.0, 0.0),
            Vec2::new(0.2, 0.4)
        ]
    );
    // 13107/65535 = 0.2.
    assert_eq!(m.colors().unwrap()[0], Vec4::new(1.0, 0.0, 0.0, 1.0));
    assert_eq!(m.colors().unwrap()[2], Vec4::new(0.0, 0.0, 1.0, 0.2));
    let m = s.scene.mesh(child(&s.scene, n, 1)).unwrap();
    assert_eq!(m.colors().unwrap()[0], Vec4::new(0.5, 0.25, 1.0, 1.0));
}

#[test]
fn hierarchy_matrices_mirroring_and_shared_meshes() {
    let mut b = Builder::default();
    let mut doc = triangle(&mut b);
    let h = core::f32::consts::FRAC_1_SQRT_2;
    doc["scenes"] = json!([{"nodes": [0]}]);
    doc["nodes"] = json!([
        {"name": "parent", "translation": [1.0, 2.0, 3.0], "scale": [2.0, 2.0, 2.0], "children": [1, 2]},
        {"name": "child", "mesh": 0, "matrix": [-1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 5.0, 1.0]},
        {"name": "other", "mesh": 0, "rotation": [0.0, h, 0.0, h]}
    ]);
    let s = load_text("hier", &b.gltf(doc));
    let sc = &s.scene;
    let parent = sc.find("parent").unwrap();
    let (c, o) = (sc.find("child").unwrap(), sc.find("other").unwrap());
    assert_eq!(sc.children(parent).unwrap(), &[c, o]);
    let (gc, go) = (child(sc, c, 0), child(sc, o, 0));
    // child: x ↦ 2·(diag(−1,1,1)·x + (0,0,5)) + (1,2,3); (1,0,0) ↦ (−1, 2, 13).
    let wc = sc.world_transform(gc).unwrap();
    assert!((wc.apply_point(Vec3::X) - Vec3::new(-1.0, 2.0, 13.0)).length() < 1e-5);
    assert!(wc.is_mirror(), "negative determinant is kept");
    // other: 90° about +y turns +x into −z; (1,0,0) ↦ 2·(0,0,−1) + (1,2,3) = (1, 2, 1).
    let wo = sc.world_transform(go).unwrap();
    assert!((wo.apply_point(Vec3::X) - Vec3::new(1.0, 2.0, 1.0)).length() < 1e-5);
    assert!(!wo.is_mirror());
    assert!(
        Arc::ptr_eq(sc.mesh(gc).unwrap(), sc.mesh(go).unwrap()),
        "one mesh, shared"
    );
    assert!(Arc::ptr_eq(
        &s.imported.materials[&gc],
        &s.imported.materials[&go]
    ));
}

#[test]
fn default_scene_is_imported() {
    let mut b = Builder::default();
    let mut doc = triangle(&mut b);
    doc["nodes"] = json!([{"name": "first", "mesh": 0}, {"name": "second", "mesh": 0}]);
    doc["scenes"] = json!([{"nodes": [0]}, {"nodes": [1]}]);
    doc["scene"] = json!(1);
    let s = load_text("scenes", &b.gltf(doc.clone()));
    assert!(s.scene.find("first").is_none());
    assert!(s.scene.find("second").is_some());
    // Without `scene`, the first scene.
    doc.as_object_mut().unwrap().remove("scene");
    let s = load_text("scenes2", &b.gltf(doc));
    assert!(s.scene.find("first").is_some());
    assert!(s.scene.find("second").is_none());
}

#[test]
fn materials_textures_samplers_and_transform() {
    let dir = temp_dir("mat");
    let mut b = Builder::default();
    let pos = b.f32s(&[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0], "VEC3");
    let uv = b.f32s(&[0.0, 0.0, 1.0, 0.0, 0.0, 1.0], "VEC2");
    let doc = json!({
        "extensionsUsed": ["KHR_texture_transform", "KHR_materials_unlit"],
        "nodes": [{"name": "n", "mesh": 0}],
        "meshes": [{"primitives": [
            {"attributes": {"POSITION": pos, "TEXCOORD_0": uv, "TEXCOORD_1": uv}, "material": 0},
            {"attributes": {"POSITION": pos, "TEXCOORD_0": uv}, "material": 1}]}],
        "materials": [
            {"name": "cut", "alphaMode": "MASK", "alphaCutoff": 0.3, "doubleSided": true,
             "emissiveFactor": [0.1, 0.2, 0.3],
             "extensions": {"KHR_materials_unlit": {}},
             "pbrMetallicRoughness": {"baseColorFactor": [0.5, 1.0, 1.0, 0.25], "metallicFactor": 0.25, "roughnessFactor": 0.75,
                "baseColorTexture": {"index": 0, "extensions": {"KHR_texture_transform": {"offset": [0.5, 0.0], "scale": [2.0, 2.0], "texCoord": 1}}}},
             "emissiveTexture": {"index": 1}},
            {"name": "glass", "alphaMode": "BLEND"}],
        "textures": [{"sampler": 0, "source": 0}, {"source": 0}],
        "samplers": [{"magFilter": 9728, "minFilter": 9984, "wrapS": 33071, "wrapT": 33648}],
        "images": [{"uri": "te%78.png"}]
    });
    write(&dir, "tex.png", png(4, 2, [255, 128, 0, 255]));
    write(&dir, "m.bin", &b.bin);
    let p = write(&dir, "m.gltf", b.gltf_external(doc, "m.bin"));
    let s = io::load(&p, &ImportOptions::default()).unwrap();
    let n = s.scene.find("n").unwrap();
    let m = s.imported.material(child(&s.scene, n, 0)).unwrap();
    assert_eq!(m.name, "cut");
    assert_eq!(m.base_color, Vec4::new(0.5, 1.0, 1.0, 0.25));
    assert_eq!(m.alpha_mode, AlphaMode::Mask { cutoff: 0.3 });
    assert!(m.double_sided && m.unlit);
    assert_eq!(m.emissive, Vec3::new(0.1, 0.2, 0.3));
    assert_eq!((m.metallic, m.roughness), (0.25, 0.75));
    let t = m.base_color_texture.as_ref().unwrap();
    assert_eq!(
        (
            t.texture.width(),
            t.texture.height(),
            t.texture.level_count()
        ),
        (4, 2, 3)
    );
    assert_eq!(
        t.texture.level(0).unwrap().texel(0, 0),
        Some([255, 128, 0, 255])
    );
    assert_eq!(t.tex_coord, 1, "the transform's texCoord overrides");
    assert_eq!(t.sampler.mag, MagFilter::Nearest);
    assert_eq!(t.sampler.min, MinFilter::NearestMipmapNearest);
    assert_eq!(
        (t.sampler.wrap_u, t.sampler.wrap_v),
        (Wrap::ClampToEdge, Wrap::MirroredRepeat)
    );
    // uv' = 2·uv + (0.5, 0).
    assert_eq!(t.transform_uv(Vec2::new(1.0, 1.0)), Vec2::new(2.5, 2.0));
    // The emissive texture shares the decoded image; its texture has no sampler: trilinear.
    let e = m.emissive_texture.as_ref().unwrap();
    assert!(Arc::ptr_eq(&e.texture, &t.texture));
    assert_eq!(e.sampler, Sampler::TRILINEAR);
    assert_eq!(e.uv_transform, Mat3::IDENTITY);
    let g = s.imported.material(child(&s.scene, n, 1)).unwrap();
    assert_eq!(
        (g.alpha_mode, g.double_sided, g.unlit),
        (AlphaMode::Blend, false, false)
    );
    // Textures can be skipped.
    let opts = ImportOptions {
        textures: false,
        ..ImportOptions::default()
    };
    let s = io::load(&p, &opts).unwrap();
    let m = s
        .imported
        .material(child(&s.scene, s.scene.find("n").unwrap(), 0))
        .unwrap();
    assert!(m.base_color_texture.is_none());
}

#[test]
fn cameras_and_lights() {
    let doc = json!({
        "extensionsUsed": ["KHR_lights_punctual"],
        "extensions": {"KHR_lights_punctual": {"lights": [
            {"name": "spot", "type": "spot", "color": [1.0, 0.5, 0.0], "intensity": 3.0, "range": 20.0,
             "spot": {"innerConeAngle": 0.2, "outerConeAngle": 0.5}},
            {"type": "directional"}]}},
        "nodes": [
            {"name": "cam", "camera": 0, "translation": [0.0, 0.0, 10.0]},
            {"name": "ortho", "camera": 1},
            {"name": "lamp", "extensions": {"KHR_lights_punctual": {"light": 0}}},
            {"name": "sun", "extensions": {"KHR_lights_punctual": {"light": 1}}}],
        "cameras": [
            {"type": "perspective", "perspective": {"yfov": 0.8, "znear": 0.1, "aspectRatio": 1.5}},
            {"type": "orthographic", "orthographic": {"xmag": 2.0, "ymag": 1.0, "znear": 0.01, "zfar": 100.0}}]
    });
    let b = Builder::default();
    let s = load_text("cams", &b.gltf(doc));
    let cams = &s.imported.cameras;
    assert_eq!(cams.len(), 2);
    assert_eq!(cams[0].node, s.scene.find("cam").unwrap());
    assert_eq!(
        cams[0].projection,
        CameraProjection::Perspective {
            yfov: 0.8,
            aspect_ratio: Some(1.5),
            znear: 0.1,
            zfar: None
        }
    );
    let c = cams[0].to_camera(&s.scene, 2.0).unwrap();
    assert_eq!(c.location(), Vec3::new(0.0, 0.0, 10.0));
    assert_eq!(c.direction(), Vec3::NEG_Z);
    assert_eq!(c.up(), Vec3::Y);
    assert!(
        matches!(cams[1].projection, CameraProjection::Orthographic { xmag, ymag, .. } if xmag == 2.0 && ymag == 1.0)
    );
    assert!(cams[1].to_camera(&s.scene, 1.0).is_ok());
    let l = &s.imported.lights;
    assert_eq!(l.len(), 2);
    assert_eq!(l[0].node, s.scene.find("lamp").unwrap());
    assert_eq!(
        l[0].kind,
        ImportedLightKind::Spot {
            inner_cone_angle: 0.2,
            outer_cone_angle: 0.5
        }
    );
    assert_eq!(
        (l[0].color, l[0].intensity, l[0].range),
        (Vec3::new(1.0, 0.5, 0.0), 3.0, Some(20.0))
    );
    // Defaults: white, intensity 1, no range.
    assert_eq!(
        (l[1].kind, l[1].color, l[1].intensity, l[1].range),
        (ImportedLightKind::Directional, Vec3::ONE, 1.0, None)
    );
}

#[test]
fn animations_step_linear_cubic() {
    let mut b = Builder::default();
    let h = core::f32::consts::FRAC_1_SQRT_2;
    let t2 = b.f32s(&[0.0, 2.0], "SCALAR");
    let t1 = b.f32s(&[0.0, 1.0], "SCALAR");
    let tr = b.f32s(&[0.0, 0.0, 0.0, 4.0, 0.0, 0.0], "VEC3");
    let rot = b.f32s(&[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, h, h], "VEC4");
    // in, value, out per key: values 1 and 3, zero tangents.
    let sc = b.f32s(
        &[
            0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 3.0, 3.0, 3.0, 0.0, 0.0,
            0.0,
        ],
        "VEC3",
    );
    let doc = json!({
        "nodes": [{"name": "a"}, {"name": "b", "translation": [0.0, 5.0, 0.0]}],
        "animations": [{"name": "go",
            "samplers": [
                {"input": t2, "output": tr},
                {"input": t1, "output": rot, "interpolation": "STEP"},
                {"input": t2, "output": sc, "interpolation": "CUBICSPLINE"}],
            "channels": [
                {"sampler": 0, "target": {"node": 0, "path": "translation"}},
                {"sampler": 1, "target": {"node": 0, "path": "rotation"}},
                {"sampler": 2, "target": {"node": 0, "path": "scale"}},
                {"sampler": 0, "target": {"node": 1, "path": "scale"}}]}]
    });
    let mut s = load_text("anim", &b.gltf(doc));
    let anims = &s.imported.animations;
    assert_eq!(anims.len(), 1);
    assert_eq!(anims[0].name, "go");
    assert_eq!(anims[0].duration(), 2.0);
    let a = s.scene.find("a").unwrap();
    let bn = s.scene.find("b").unwrap();
    let anims = anims.clone();
    apply_animations(&mut s.scene, &anims, 1.0).unwrap();
    // t = 1: translation (2,0,0); rotation 90° about z (STEP at key 1); scale (2,2,2).
    // (1,0,0) ↦ T + R·(S·x) = (2,0,0) + R·(2,0,0) = (2,2,0).
    let la = *s.scene.local_transform(a).unwrap();
    assert!(
        (la.apply_point(Vec3::X) - Vec3::new(2.0, 2.0, 0.0)).length() < 1e-5,
        "{la:?}"
    );
    // Node b: only its scale is animated; its rest translation stays. Scale (2,0,0) at t = 1.
    let lb = *s.scene.local_transform(bn).unwrap();
    assert_eq!(lb.translation(), Vec3::new(0.0, 5.0, 0.0));
    assert_eq!(lb.scale(), Some(Vec3::new(2.0, 0.0, 0.0)));
    // Before the first key: the first values (identity rotation, scale 1).
    apply_animations(&mut s.scene, &anims, 0.0).unwrap();
    assert!((s.scene.local_transform(a).unwrap().apply_point(Vec3::X) - Vec3::X).length() < 1e-6);
    // Rotation quaternion from the file at t ≥ 1 is exactly the second key.
    assert_eq!(
        anims[0].nodes[0].rotation.as_ref().unwrap().sample(1.5),
        Quat::from_xyzw(0.0, 0.0, h, h)
    );
    // As controllers: update(t) poses the scene.
    io::add_animation_controllers(&mut s.scene, &anims).unwrap();
    s.scene.update(2.0);
    assert!(
        (s.scene.world_transform(a).unwrap().translation() - Vec3::new(4.0, 0.0, 0.0)).length()
            < 1e-6
    );
}

#[test]
fn import_into_existing_scene() {
    let mut b = Builder::default();
    let doc = triangle(&mut b);
    let dir = temp_dir("into");
    let p = write(&dir, "t.gltf", b.gltf(doc));
    let mut scene = Scene::new();
    let holder = scene.add_group(scene.root(), "holder").unwrap();
    let imp = io::import(&mut scene, holder, &p, &ImportOptions::default()).unwrap();
    assert_eq!(scene.children(holder).unwrap(), imp.roots.as_slice());
    assert_eq!(scene.name(imp.roots[0]).unwrap(), "tri");
    // root, holder, tri, m[0]
    assert_eq!(scene.node_count(), 4);
}

/// `EXT_texture_webp` (issue 28 item 3): the WebP image replaces the texture's fallback
/// `source`, lossless texels come back exactly, and a file that requires the extension may
/// omit the fallback. The WebP bytes are encoded here by the `image` crate's lossless
/// encoder (a 3 × 2 image of six distinct colours); the PNG fallback is another colour.
#[test]
fn webp_textures_replace_the_fallback() {
    let colors: [[u8; 4]; 6] = [
        [255, 0, 0, 255],
        [0, 255, 0, 255],
        [0, 0, 255, 255],
        [10, 20, 30, 255],
        [200, 100, 50, 128],
        [1, 2, 3, 4],
    ];
    let img = image::RgbaImage::from_fn(3, 2, |x, y| image::Rgba(colors[(y * 3 + x) as usize]));
    let mut webp = std::io::Cursor::new(Vec::new());
    img.write_to(&mut webp, image::ImageFormat::WebP).unwrap();
    let webp = webp.into_inner();
    assert_eq!(&webp[8..12], b"WEBP");
    for required in [false, true] {
        let mut b = Builder::default();
        let mut doc = triangle(&mut b);
        let png_view = b.view(&png(1, 1, [9, 9, 9, 255]), None);
        let webp_view = b.view(&webp, None);
        doc["materials"] = json!([{"pbrMetallicRoughness": {"baseColorTexture": {"index": 0}}}]);
        doc["meshes"][0]["primitives"][0]["material"] = json!(0);
        doc["images"] = json!([
            {"bufferView": png_view, "mimeType": "image/png"},
            {"bufferView": webp_view, "mimeType": "image/webp"}
        ]);
        doc["textures"] = json!([{"source": 0, "extensions": {"EXT_texture_webp": {"source": 1}}}]);
        doc["extensionsUsed"] = json!(["EXT_texture_webp"]);
        if required {
            doc["extensionsRequired"] = json!(["EXT_texture_webp"]);
            doc["textures"][0].as_object_mut().unwrap().remove("source");
        }
        let dir = temp_dir(&format!("webp-{required}"));
        let p = write(&dir, "w.gltf", b.gltf(doc));
        let s = io::load(&p, &ImportOptions::default()).unwrap_or_else(|e| panic!("{e}"));
        let g = child(&s.scene, s.scene.find("tri").unwrap(), 0);
        let t = s
            .imported
            .material(g)
            .unwrap()
            .base_color_texture
            .as_ref()
            .unwrap();
        assert_eq!(
            (t.texture.width(), t.texture.height()),
            (3, 2),
            "required {required}"
        );
        let level = t.texture.level(0).unwrap();
        for (k, c) in colors.iter().enumerate() {
            let (x, y) = (k as u32 % 3, k as u32 / 3);
            assert_eq!(
                level.texel(x, y),
                Some(*c),
                "texel ({x}, {y}), required {required}"
            );
        }
    }
}

/// meshoptimizer's test vector `kVertexDataV0` (MIT licence, © Arseny Kapoulkine): 4
/// vertices of 12 bytes (u16 px py pz, u8 nu nv, u16 tx ty) — (0,0,0) (300,0,0) (0,300,0)
/// (300,300,0), texture coordinates 0 or 500 — as an `ATTRIBUTES` stream.
pub(crate) const MESHOPT_VERTICES: [u8; 85] = [
    0xa0, 0x01, 0x3f, 0x00, 0x00, 0x00, 0x58, 0x57, 0x58, 0x01, 0x26, 0x00, 0x00, 0x00, 0x01, 0x0c,
    0x00, 0x00, 0x00, 0x58, 0x01, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x3f, 0x00,
    0x00, 0x00, 0x17, 0x18, 0x17, 0x01, 0x26, 0x00, 0x00, 0x00, 0x01, 0x0c, 0x00, 0x00, 0x00, 0x17,
    0x01, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00,
];

/// Triangles (0, 1, 2), (2, 1, 3) as a `TRIANGLES` stream: codes 0xf0 (three new vertices
/// through table entry 0) and 0x10 (edge 1 of the FIFO, (2, 1), and the next vertex), then
/// the 16-byte table of the same test file's `kIndexDataV1`.
pub(crate) const MESHOPT_TRIANGLES: [u8; 19] = [
    0xe1, 0xf0, 0x10, 0x00, 0x76, 0x87, 0x56, 0x67, 0x78, 0xa9, 0x86, 0x65, 0x89, 0x68, 0x98, 0x01,
    0x69, 0x00, 0x00,
];

/// A quad whose vertex and index views are `EXT_meshopt_compression` streams (`vertices`,
/// `triangles`), their parent views in a fallback buffer without data.
pub(crate) fn meshopt_quad(vertices: &[u8], triangles: &[u8]) -> String {
    let mut b = Builder::default();
    let vstream = b.view(vertices, None);
    let tstream = b.view(triangles, None);
    let (voff, toff) = (
        b.views[vstream]["byteOffset"].clone(),
        b.views[tstream]["byteOffset"].clone(),
    );
    let ext = |off: Value, len: usize, stride: usize, count: usize, mode: &str| {
        json!({"EXT_meshopt_compression": {"buffer": 0, "byteOffset": off, "byteLength": len,
            "byteStride": stride, "count": count, "mode": mode}})
    };
    b.views = vec![
        json!({"buffer": 1, "byteOffset": 0, "byteLength": 48, "byteStride": 12,
            "extensions": ext(voff, vertices.len(), 12, 4, "ATTRIBUTES")}),
        json!({"buffer": 1, "byteOffset": 48, "byteLength": 12,
            "extensions": ext(toff, triangles.len(), 2, 6, "TRIANGLES")}),
    ];
    b.accessors = vec![
        json!({"bufferView": 0, "componentType": 5123, "count": 4, "type": "VEC3",
            "min": [0, 0, 0], "max": [300, 300, 0]}),
        json!({"bufferView": 0, "byteOffset": 8, "componentType": 5123, "normalized": true,
            "count": 4, "type": "VEC2"}),
        json!({"bufferView": 1, "componentType": 5123, "count": 6, "type": "SCALAR"}),
    ];
    let exts = json!(["EXT_meshopt_compression", "KHR_mesh_quantization"]);
    let doc = json!({
        "scene": 0, "scenes": [{"nodes": [0]}], "nodes": [{"name": "quad", "mesh": 0}],
        "meshes": [{"primitives": [{"attributes": {"POSITION": 0, "TEXCOORD_0": 1}, "indices": 2}]}],
        "extensionsUsed": exts.clone(), "extensionsRequired": exts
    });
    let mut doc: Value = serde_json::from_str(&b.gltf(doc)).unwrap();
    doc["buffers"].as_array_mut().unwrap().push(
        json!({"byteLength": 64, "extensions": {"EXT_meshopt_compression": {"fallback": true}}}),
    );
    doc.to_string()
}

/// `EXT_meshopt_compression` (issue 28 item 3): a quad from an `ATTRIBUTES` vertex stream
/// (meshoptimizer's own test vector) and a `TRIANGLES` index stream, with the uncompressed
/// views in a fallback buffer that has no data: the decoded vertices, texture coordinates
/// and indices are the vector's.
#[test]
fn meshopt_compressed_views() {
    let dir = temp_dir("meshopt");
    let p = write(
        &dir,
        "q.gltf",
        meshopt_quad(&MESHOPT_VERTICES, &MESHOPT_TRIANGLES),
    );
    let s = io::load(&p, &ImportOptions::default()).unwrap_or_else(|e| panic!("{e}"));
    let g = child(&s.scene, s.scene.find("quad").unwrap(), 0);
    let m = s.scene.mesh(g).unwrap();
    // No normals in the file: the mesh is unwelded for flat normals, one vertex per index
    // of (0, 1, 2), (2, 1, 3).
    let (p, t) = (
        [
            Vec3::ZERO,
            Vec3::new(300.0, 0.0, 0.0),
            Vec3::new(0.0, 300.0, 0.0),
            Vec3::new(300.0, 300.0, 0.0),
        ],
        500.0 / 65535.0,
    );
    let uv = [
        Vec2::ZERO,
        Vec2::new(t, 0.0),
        Vec2::new(0.0, t),
        Vec2::new(t, t),
    ];
    let order = [0, 1, 2, 2, 1, 3];
    assert_eq!(m.positions(), order.map(|i| p[i]));
    assert_eq!(m.uv_sets()[0], order.map(|i| uv[i]));
}
