//! `EXT_mesh_gpu_instancing`: every instance becomes a group `<node>#<i>` with its `T·R·S`
//! under the node, holding the mesh's leaves (one shared mesh); malformed extensions,
//! instanced skins and morphs, and instance counts past the budget are typed errors.

use crate::gltf_builder;

use std::sync::Arc;

use glam::{Quat, Vec3};
use gltf_builder::{temp_dir, triangle, write, Builder};
use plumb_scene::io::{self, Budget, ImportOptions, IoError, WorkBudget};
use plumb_scene::NodeKind;
use serde_json::{json, Value};

/// The triangle document with `ext` as the node's instancing extension.
fn instanced(b: &mut Builder, ext: Value) -> Value {
    let mut d = triangle(b);
    d["nodes"][0]["translation"] = json!([0.0, 0.0, -5.0]);
    d["nodes"][0]["extensions"] = json!({ "EXT_mesh_gpu_instancing": ext });
    d["extensionsUsed"] = json!(["EXT_mesh_gpu_instancing"]);
    d
}

fn load(
    name: &str,
    b: &Builder,
    d: Value,
    options: &ImportOptions,
) -> Result<io::ImportedScene, IoError> {
    let dir = temp_dir(name);
    let p = write(&dir, "i.gltf", b.gltf(d));
    io::load(&p, options)
}

#[test]
fn each_instance_is_a_group_with_its_trs_sharing_the_mesh() {
    let mut b = Builder::default();
    let t = b.f32s(&[0.0, 0.0, 0.0, 10.0, 0.0, 0.0, 0.0, 20.0, 0.0], "VEC3");
    let q = Quat::from_rotation_z(std::f32::consts::FRAC_PI_2);
    let r = b.f32s(
        &[0.0, 0.0, 0.0, 1.0, q.x, q.y, q.z, q.w, 0.0, 0.0, 0.0, 1.0],
        "VEC4",
    );
    let s = b.f32s(&[1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 3.0, 3.0, 3.0], "VEC3");
    let attrs = json!({"attributes": {"TRANSLATION": t, "ROTATION": r, "SCALE": s, "_ID": t}});
    let d = instanced(&mut b, attrs);
    let loaded = load("inst-ok", &b, d, &ImportOptions::default()).expect("loads");
    let scene = &loaded.scene;
    let node = loaded.imported.roots[0];
    let groups = scene.children(node).unwrap().to_vec();
    assert_eq!(groups.len(), 3);
    let mut meshes = Vec::new();
    for (i, &g) in groups.iter().enumerate() {
        assert_eq!(scene.name(g).unwrap(), format!("tri#{i}"));
        let leaves = scene.children(g).unwrap();
        assert_eq!(leaves.len(), 1);
        assert_eq!(scene.kind(leaves[0]).unwrap(), NodeKind::Geometry);
        meshes.push(Arc::clone(scene.mesh(leaves[0]).unwrap()));
        assert!(loaded.imported.material(leaves[0]).is_some());
    }
    assert!(Arc::ptr_eq(&meshes[0], &meshes[1]) && Arc::ptr_eq(&meshes[1], &meshes[2]));
    // World = node (translation z −5) × instance T·R·S, applied to the triangle's vertices
    // (0,0,0), (1,0,0), (0,1,0).
    let world = |i: usize, p: Vec3| scene.world_transform(groups[i]).unwrap().apply_point(p);
    let close = |a: Vec3, e: Vec3| (a - e).abs().max_element() < 1e-5;
    assert!(close(world(0, Vec3::X), Vec3::new(1.0, 0.0, -5.0)));
    // Instance 1: rotated 90° about z, then moved by (10, 0, 0): x → y.
    assert!(close(world(1, Vec3::X), Vec3::new(10.0, 1.0, -5.0)));
    // Instance 2: scaled by 3, moved by (0, 20, 0).
    assert!(close(world(2, Vec3::Y), Vec3::new(0.0, 23.0, -5.0)));
    // The node's bound holds every instance.
    let bound = scene.world_bound(node).unwrap();
    for p in [
        Vec3::new(10.0, 1.0, -5.0),
        Vec3::new(0.0, 23.0, -5.0),
        Vec3::new(3.0, 20.0, -5.0),
    ] {
        assert!(
            bound.center().distance(p) <= bound.radius() + 1e-4,
            "{p} outside {bound:?}"
        );
    }
}

#[test]
fn malformed_instancing_is_a_typed_error_naming_the_node() {
    /// Builds the extension object into the builder's accessors.
    type Ext = Box<dyn Fn(&mut Builder) -> Value>;
    let cases: Vec<(&str, Ext, &str)> = vec![
        ("no-attrs", Box::new(|_| json!({})), "attributes"),
        (
            "no-known",
            Box::new(|b| json!({"attributes": {"_ID": b.f32s(&[0.0], "SCALAR")}})),
            "none of TRANSLATION",
        ),
        (
            "bad-index",
            Box::new(|_| json!({"attributes": {"TRANSLATION": 99}})),
            "not an accessor",
        ),
        (
            "bad-type",
            Box::new(|b| json!({"attributes": {"TRANSLATION": b.f32s(&[0.0; 4], "VEC4")}})),
            "VEC4",
        ),
        (
            "bad-format",
            Box::new(|b| json!({"attributes": {"ROTATION": b.u8s(&[0; 4], "VEC4")}})),
            "component type",
        ),
        (
            "counts",
            Box::new(|b| {
                json!({"attributes": {
            "TRANSLATION": b.f32s(&[0.0; 6], "VEC3"),
            "SCALE": b.f32s(&[1.0; 9], "VEC3")}})
            }),
            "SCALE has 3 instances, TRANSLATION has 2",
        ),
        (
            "nan",
            Box::new(
                |b| json!({"attributes": {"TRANSLATION": b.f32s(&[0.0, f32::NAN, 0.0], "VEC3")}}),
            ),
            "non-finite",
        ),
        (
            "zero-quat",
            Box::new(|b| json!({"attributes": {"ROTATION": b.f32s(&[0.0; 4], "VEC4")}})),
            "instance 0",
        ),
    ];
    for (name, ext, expect) in cases {
        let mut b = Builder::default();
        let ext = ext(&mut b);
        let d = instanced(&mut b, ext);
        let e = load(name, &b, d, &ImportOptions::default()).expect_err(name);
        let m = e.to_string();
        assert!(
            m.contains("i.gltf") && m.contains("EXT_mesh_gpu_instancing") && m.contains(expect),
            "{name}: {m}"
        );
    }
}

#[test]
fn instanced_skins_are_refused_and_instances_are_budgeted() {
    // A skinned node with instances: refused, not drawn wrongly.
    let mut b = Builder::default();
    let t = b.f32s(&[0.0; 6], "VEC3");
    let mut d = instanced(&mut b, json!({"attributes": {"TRANSLATION": t}}));
    d["nodes"][0]["skin"] = json!(0);
    d["skins"] = json!([{"joints": [0]}]);
    let e = load("inst-skin", &b, d, &ImportOptions::default()).expect_err("skin");
    assert!(matches!(e, IoError::Unsupported { .. }), "{e}");

    // 1000 instances of one primitive are 2000 nodes: past a budget of 1999, within 2000.
    let mut b = Builder::default();
    let t = b.f32s(&vec![0.0; 3000], "VEC3");
    let d = instanced(&mut b, json!({"attributes": {"TRANSLATION": t}}));
    let tight = |max: u64| ImportOptions {
        budget: WorkBudget {
            max_instance_nodes: max,
            ..WorkBudget::default()
        },
        ..ImportOptions::default()
    };
    let e = load("inst-budget", &b, d.clone(), &tight(1999)).expect_err("over");
    let IoError::Budget(be) = &e else {
        panic!("{e}")
    };
    assert_eq!(
        (be.budget, be.amount, be.max),
        (Budget::InstanceNodes, 2000, 1999)
    );
    assert!(e.to_string().contains("--max-instance-nodes"), "{e}");
    let loaded = load("inst-budget-ok", &b, d, &tight(2000)).expect("within");
    assert_eq!(
        loaded
            .scene
            .children(loaded.imported.roots[0])
            .unwrap()
            .len(),
        1000
    );
}
