//! glTF skins and morph targets, on small hand-built files with values worked out by hand.

use crate::gltf_builder;

use glam::Vec3;
use gltf_builder::{temp_dir, write, Builder};
use plumb_scene::io::{self, ImportOptions, ImportedScene, IoError};
use plumb_scene::{NodeId, NodeKind, Scene};
use serde_json::{json, Value};

const H: f32 = std::f32::consts::FRAC_1_SQRT_2;

fn load_doc(name: &str, b: &Builder, d: Value) -> Result<ImportedScene, IoError> {
    let dir = temp_dir(name);
    let p = write(&dir, "d.gltf", b.gltf(d));
    io::load(&p, &ImportOptions::default())
}

fn leaf(scene: &Scene) -> NodeId {
    let mut stack = vec![scene.root()];
    while let Some(n) = stack.pop() {
        if scene.kind(n).unwrap() == NodeKind::Geometry {
            return n;
        }
        stack.extend(scene.children(n).unwrap().iter().rev());
    }
    panic!("no geometry");
}

fn close(a: Vec3, b: Vec3) -> bool {
    (a - b).abs().max_element() < 1e-5
}

/// A triangle skinned to two joints: joint 0 at the origin, joint 1 its child at (0, 1, 0)
/// rotated 90° about z. Vertex 0 (0,0,0) follows joint 0, vertex 1 (0,2,0) joint 1, vertex 2
/// (0,2,0) both half and half — given as weights 1 and 1 in two sets (JOINTS_0 and JOINTS_1),
/// which must be normalized. The skinned node sits under a parent moved by (100, 0, 0), which
/// glTF says to ignore.
fn two_joint_skin(b: &mut Builder) -> Value {
    let pos = b.f32s(&[0.0, 0.0, 0.0, 0.0, 2.0, 0.0, 0.0, 2.0, 0.0], "VEC3");
    let nrm = b.f32s(&[0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 1.0, 0.0, 0.0], "VEC3");
    let j0 = b.u8s(&[0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0], "VEC4");
    let w0 = b.f32s(
        &[1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0],
        "VEC4",
    );
    let j1 = b.u8s(&[0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0], "VEC4");
    let w1 = b.f32s(
        &[0.0; 8]
            .iter()
            .copied()
            .chain([1.0, 0.0, 0.0, 0.0])
            .collect::<Vec<_>>(),
        "VEC4",
    );
    // Inverse bind matrices (column-major): identity, and translation (0, −1, 0).
    let mut ibm = vec![
        1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0,
    ];
    ibm.extend([
        1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, -1.0, 0.0, 1.0,
    ]);
    let ibm = b.f32s(&ibm, "MAT4");
    json!({
        "scene": 0,
        "scenes": [{"nodes": [0, 3]}],
        "nodes": [
            {"name": "j0", "children": [1]},
            {"name": "j1", "translation": [0, 1, 0], "rotation": [0, 0, H, H]},
            {"name": "skinned", "mesh": 0, "skin": 0},
            {"name": "moved", "translation": [100, 0, 0], "children": [2]}
        ],
        "skins": [{"joints": [0, 1], "inverseBindMatrices": ibm}],
        "meshes": [{"name": "m", "primitives": [{"attributes": {
            "POSITION": pos, "NORMAL": nrm,
            "JOINTS_0": j0, "WEIGHTS_0": w0, "JOINTS_1": j1, "WEIGHTS_1": w1
        }}]}]
    })
}

#[test]
fn two_joint_skin_by_hand() {
    let mut b = Builder::default();
    let d = two_joint_skin(&mut b);
    let s = load_doc("skin2", &b, d).unwrap();
    let g = leaf(&s.scene);
    // The leaf's world is the identity despite the (100, 0, 0) parent.
    let w = s.scene.world_transform(g).unwrap();
    assert_eq!(w.apply_point(Vec3::ONE), Vec3::ONE);
    let m = s.scene.mesh(g).unwrap();
    let p = m.positions();
    // Joint 1 maps (0,2,0): IBM → (0,1,0), Rz90 → (−1,0,0), + (0,1,0) → (−1,1,0).
    assert!(close(p[0], Vec3::ZERO), "{p:?}");
    assert!(close(p[1], Vec3::new(-1.0, 1.0, 0.0)), "{p:?}");
    // Half of (0,2,0) and half of (−1,1,0).
    assert!(close(p[2], Vec3::new(-0.5, 1.5, 0.0)), "{p:?}");
    // Normals skinned: Rz90 (1,0,0) = (0,1,0); half and half normalized to (1,1,0)/√2.
    let n = m.normals().unwrap();
    assert!(close(n[0], Vec3::Z), "{n:?}");
    assert!(close(n[1], Vec3::Y), "{n:?}");
    assert!(close(n[2], Vec3::new(H, H, 0.0)), "{n:?}");
    // The bound follows the posed mesh: it holds (−1, 1, 0).
    let bound = s.scene.world_bound(g).unwrap();
    assert!(
        bound.contains_point(Vec3::new(-1.0, 1.0, 0.0), 1e-5),
        "{bound:?}"
    );
}

#[test]
fn skinned_bones_animate_with_time() {
    // Joint 1 rotates from 0° (t = 0) to 90° (t = 1) about z; at t = 1 vertex 1 is at (−1,1,0).
    let mut b = Builder::default();
    let mut d = two_joint_skin(&mut b);
    d["nodes"][1]["rotation"] = json!([0, 0, 0, 1]);
    let t = b.f32s(&[0.0, 1.0], "SCALAR");
    let q = b.f32s(&[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, H, H], "VEC4");
    d["animations"] = json!([{"samplers": [{"input": t, "output": q}],
        "channels": [{"sampler": 0, "target": {"node": 1, "path": "rotation"}}]}]);
    let mut s = load_doc("skin-anim", &b, d).unwrap();
    let g = leaf(&s.scene);
    assert!(close(
        s.scene.mesh(g).unwrap().positions()[1],
        Vec3::new(0.0, 2.0, 0.0)
    ));
    io::apply_animations(&mut s.scene, &s.imported.animations, 1.0).unwrap();
    s.scene.update(1.0);
    let p = s.scene.mesh(g).unwrap().positions()[1];
    assert!(close(p, Vec3::new(-1.0, 1.0, 0.0)), "{p}");
}

fn expect_invalid(name: &str, b: &Builder, d: Value, needle: &str) {
    match load_doc(name, b, d) {
        Err(IoError::Invalid { message, .. }) if message.contains(needle) => {}
        Err(e) => panic!("{name}: wrong error {e}"),
        Ok(_) => panic!("{name}: loaded"),
    }
}

#[test]
fn bad_skins_are_typed_errors() {
    // Joint index 2 for a skin of 2 joints.
    let mut b = Builder::default();
    let mut d = two_joint_skin(&mut b);
    let j = b.u8s(&[0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0], "VEC4");
    d["meshes"][0]["primitives"][0]["attributes"]["JOINTS_0"] = json!(j);
    expect_invalid("joint-oob", &b, d, "joint index 2 is out of range");
    // One inverse bind matrix for two joints.
    let mut b = Builder::default();
    let mut d = two_joint_skin(&mut b);
    let one = b.f32s(
        &[
            1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0,
        ],
        "MAT4",
    );
    d["skins"][0]["inverseBindMatrices"] = json!(one);
    expect_invalid("ibm-count", &b, d, "has 1 matrices for 2 joints");
    // A NaN weight.
    let mut b = Builder::default();
    let mut d = two_joint_skin(&mut b);
    let w = b.f32s(
        &[
            f32::NAN,
            0.0,
            0.0,
            0.0,
            1.0,
            0.0,
            0.0,
            0.0,
            1.0,
            0.0,
            0.0,
            0.0,
        ],
        "VEC4",
    );
    d["meshes"][0]["primitives"][0]["attributes"]["WEIGHTS_0"] = json!(w);
    match load_doc("nan-weight", &b, d) {
        Err(IoError::NonFinite { .. }) => {}
        other => panic!("{:?}", other.err()),
    }
    // A negative weight, and a vertex whose weights sum to 0.
    let mut b = Builder::default();
    let mut d = two_joint_skin(&mut b);
    let w = b.f32s(
        &[-0.5, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0],
        "VEC4",
    );
    d["meshes"][0]["primitives"][0]["attributes"]["WEIGHTS_0"] = json!(w);
    expect_invalid("neg-weight", &b, d, "outside 0..=1");
    let mut b = Builder::default();
    let mut d = two_joint_skin(&mut b);
    let w = b.f32s(
        &[0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0],
        "VEC4",
    );
    d["meshes"][0]["primitives"][0]["attributes"]["WEIGHTS_0"] = json!(w);
    expect_invalid("zero-sum", &b, d, "sum to 0");
    // JOINTS_1 without WEIGHTS_1.
    let mut b = Builder::default();
    let mut d = two_joint_skin(&mut b);
    d["meshes"][0]["primitives"][0]["attributes"]
        .as_object_mut()
        .unwrap()
        .remove("WEIGHTS_1");
    expect_invalid("no-weights1", &b, d, "JOINTS_1 without WEIGHTS_1");
    // A joint outside the imported scene.
    let mut b = Builder::default();
    let mut d = two_joint_skin(&mut b);
    d["scenes"][0]["nodes"] = json!([3]);
    expect_invalid("joint-outside", &b, d, "is not in the imported scene");
}

/// A triangle with one morph target moving vertex 0 by (0, 0, 2) and turning its normal
/// (0,0,1) by the delta (1, 0, −1).
fn morph_triangle(b: &mut Builder) -> Value {
    let pos = b.f32s(&[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0], "VEC3");
    let nrm = b.f32s(&[0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0], "VEC3");
    let dp = b.f32s(&[0.0, 0.0, 2.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], "VEC3");
    let dn = b.f32s(&[1.0, 0.0, -1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], "VEC3");
    json!({
        "scene": 0,
        "scenes": [{"nodes": [0]}],
        "nodes": [{"name": "tri", "mesh": 0}],
        "meshes": [{"name": "m", "weights": [0.5], "primitives": [{
            "attributes": {"POSITION": pos, "NORMAL": nrm},
            "targets": [{"POSITION": dp, "NORMAL": dn}]
        }]}]
    })
}

fn vertex0(s: &ImportedScene) -> (Vec3, Vec3) {
    let g = leaf(&s.scene);
    let m = s.scene.mesh(g).unwrap();
    let w = s.scene.world_transform(g).unwrap();
    (w.apply_point(m.positions()[0]), m.normals().unwrap()[0])
}

#[test]
fn morph_weights_of_mesh_and_node() {
    // Mesh weight 0.5: half way, z = 1; normal (0.5, 0, 0.5) normalized.
    let mut b = Builder::default();
    let d = morph_triangle(&mut b);
    let s = load_doc("morph-mesh", &b, d).unwrap();
    let (p, n) = vertex0(&s);
    assert!(close(p, Vec3::new(0.0, 0.0, 1.0)), "{p}");
    assert!(close(n, Vec3::new(H, 0.0, H)), "{n}");
    // The node's weights override the mesh's: weight 1, z = 2, normal (1, 0, 0).
    let mut b = Builder::default();
    let mut d = morph_triangle(&mut b);
    d["nodes"][0]["weights"] = json!([1.0]);
    let s = load_doc("morph-node", &b, d).unwrap();
    let (p, n) = vertex0(&s);
    assert!(close(p, Vec3::new(0.0, 0.0, 2.0)), "{p}");
    assert!(close(n, Vec3::X), "{n}");
    // The bound follows: it reaches z = 2.
    let g = leaf(&s.scene);
    assert!(s
        .scene
        .world_bound(g)
        .unwrap()
        .contains_point(Vec3::new(0.0, 0.0, 2.0), 1e-5));
    // Wrong weight count.
    let mut b = Builder::default();
    let mut d = morph_triangle(&mut b);
    d["meshes"][0]["weights"] = json!([0.5, 0.5]);
    expect_invalid("morph-count", &b, d, "has 2 weights for 1 morph targets");
}

fn weights_anim(interp: &str, out: &[f32]) -> (Builder, Value) {
    let mut b = Builder::default();
    let mut d = morph_triangle(&mut b);
    let t = b.f32s(&[0.0, 1.0], "SCALAR");
    let o = b.f32s(out, "SCALAR");
    d["animations"] = json!([{"samplers": [{"input": t, "output": o, "interpolation": interp}],
        "channels": [{"sampler": 0, "target": {"node": 0, "path": "weights"}}]}]);
    (b, d)
}

fn z_at(s: &mut ImportedScene, t: f64) -> f32 {
    s.scene.update(t);
    vertex0(s).0.z
}

#[test]
fn morph_weight_channels() {
    // LINEAR 0 → 1 over one second: at 0.25, weight 0.25, z = 0.5; the mesh weight is replaced.
    let (b, d) = weights_anim("LINEAR", &[0.0, 1.0]);
    let mut s = load_doc("w-linear", &b, d).unwrap();
    assert!((z_at(&mut s, 0.25) - 0.5).abs() < 1e-6);
    assert!((z_at(&mut s, 0.0)).abs() < 1e-6);
    assert!((z_at(&mut s, 5.0) - 2.0).abs() < 1e-6);
    // STEP holds key 0 until t = 1.
    let (b, d) = weights_anim("STEP", &[0.0, 1.0]);
    let mut s = load_doc("w-step", &b, d).unwrap();
    assert_eq!(z_at(&mut s, 0.99), 0.0);
    assert!((z_at(&mut s, 1.0) - 2.0).abs() < 1e-6);
    // CUBICSPLINE (in, value, out) per key: values 0 and 1, out-tangent 2 at key 0, in-tangent
    // 0 at key 1. At s = 0.5: h01 = 0.5, h10·Δ·2 = 0.125·2 = 0.25, so weight 0.75, z = 1.5.
    let (b, d) = weights_anim("CUBICSPLINE", &[9.0, 0.0, 2.0, 0.0, 1.0, 9.0]);
    let mut s = load_doc("w-cubic", &b, d).unwrap();
    assert!((z_at(&mut s, 0.5) - 1.5).abs() < 1e-5);
    // Wrong number of outputs, and NaN keys.
    let (b, d) = weights_anim("LINEAR", &[0.0, 1.0, 1.0]);
    expect_invalid("w-count", &b, d, "output values");
    let (b, d) = weights_anim("LINEAR", &[0.0, f32::NAN]);
    match load_doc("w-nan", &b, d) {
        Err(IoError::NonFinite { .. }) => {}
        other => panic!("{:?}", other.err()),
    }
}

/// The skinned leaf's positions after loading `d`.
fn skinned_positions(name: &str, b: &Builder, d: Value) -> Vec<Vec3> {
    let s = load_doc(name, b, d).unwrap();
    s.scene.mesh(leaf(&s.scene)).unwrap().positions().to_vec()
}

#[test]
fn weights_not_summing_to_one_are_renormalized() {
    // Vertex 1 weighs 0.25 on joint 1 and vertex 2 0.1 + 0.1 on joints 0 and 1 (sums 0.25
    // and 0.2): renormalized to 1 and 0.5 + 0.5, they pose exactly as the weights 1 and
    // 1 + 1 of `two_joint_skin` (vertex 1 at (−1, 1, 0), vertex 2 at (−0.5, 1.5, 0)).
    let mut b = Builder::default();
    let mut d = two_joint_skin(&mut b);
    let w0 = b.f32s(
        &[1.0, 0.0, 0.0, 0.0, 0.25, 0.0, 0.0, 0.0, 0.1, 0.0, 0.0, 0.0],
        "VEC4",
    );
    let w1 = b.f32s(
        &[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.1, 0.0, 0.0, 0.0],
        "VEC4",
    );
    let attrs = &mut d["meshes"][0]["primitives"][0]["attributes"];
    attrs["WEIGHTS_0"] = json!(w0);
    attrs["WEIGHTS_1"] = json!(w1);
    let p = skinned_positions("renorm", &b, d);
    assert!(close(p[0], Vec3::ZERO), "{p:?}");
    assert!(close(p[1], Vec3::new(-1.0, 1.0, 0.0)), "{p:?}");
    assert!(close(p[2], Vec3::new(-0.5, 1.5, 0.0)), "{p:?}");
}

#[test]
fn weights_out_of_range_and_bad_inverse_bind_matrices_are_typed_errors() {
    // A weight above 1.
    let mut b = Builder::default();
    let mut d = two_joint_skin(&mut b);
    let w = b.f32s(
        &[1.5, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0],
        "VEC4",
    );
    d["meshes"][0]["primitives"][0]["attributes"]["WEIGHTS_0"] = json!(w);
    expect_invalid("big-weight", &b, d, "outside 0..=1");
    // An infinite weight.
    let mut b = Builder::default();
    let mut d = two_joint_skin(&mut b);
    let w = b.f32s(
        &[
            f32::INFINITY,
            0.0,
            0.0,
            0.0,
            1.0,
            0.0,
            0.0,
            0.0,
            1.0,
            0.0,
            0.0,
            0.0,
        ],
        "VEC4",
    );
    d["meshes"][0]["primitives"][0]["attributes"]["WEIGHTS_0"] = json!(w);
    assert!(
        matches!(
            load_doc("inf-weight", &b, d),
            Err(IoError::NonFinite { .. } | IoError::Invalid { .. })
        ),
        "an infinite weight must be refused"
    );
    // Three inverse bind matrices for two joints.
    let id: [f32; 16] = [
        1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0,
    ];
    let mut b = Builder::default();
    let mut d = two_joint_skin(&mut b);
    let three = b.f32s(&id.repeat(3), "MAT4");
    d["skins"][0]["inverseBindMatrices"] = json!(three);
    expect_invalid("ibm-three", &b, d, "has 3 matrices for 2 joints");
    // A NaN in an inverse bind matrix.
    let mut b = Builder::default();
    let mut d = two_joint_skin(&mut b);
    let mut m = id.repeat(2);
    m[17] = f32::NAN;
    let nan = b.f32s(&m, "MAT4");
    d["skins"][0]["inverseBindMatrices"] = json!(nan);
    assert!(
        matches!(load_doc("ibm-nan", &b, d), Err(IoError::NonFinite { .. })),
        "a NaN inverse bind matrix must be refused"
    );
    // A projective inverse bind matrix (last row not 0 0 0 1).
    let mut b = Builder::default();
    let mut d = two_joint_skin(&mut b);
    let mut m = id.repeat(2);
    m[3] = 0.5;
    let proj = b.f32s(&m, "MAT4");
    d["skins"][0]["inverseBindMatrices"] = json!(proj);
    expect_invalid("ibm-proj", &b, d, "not affine");
}

#[test]
fn skeleton_cycles_are_typed_errors() {
    // Joint 1 lists joint 0 as its child: the joint hierarchy loops (0 → 1 → 0).
    let mut b = Builder::default();
    let mut d = two_joint_skin(&mut b);
    d["nodes"][1]["children"] = json!([0]);
    expect_invalid("joint-loop", &b, d, "has a cycle");
    // A joint that is its own child.
    let mut b = Builder::default();
    let mut d = two_joint_skin(&mut b);
    d["nodes"][1]["children"] = json!([1]);
    expect_invalid("joint-self", &b, d, "lists the node itself (a cycle)");
    // The skin's joints form a cycle no scene root reaches (0 ↔ 1, neither a root): the
    // document check finds it before the scene or the skin is read.
    let mut b = Builder::default();
    let mut d = two_joint_skin(&mut b);
    d["nodes"][1]["children"] = json!([0]);
    d["scenes"][0]["nodes"] = json!([3]);
    expect_invalid("joint-cycle-apart", &b, d, "cycle");
    // No scene at all (the roots would be the nodes nobody has as a child, which leaves the
    // cycle out): the same document error.
    let mut b = Builder::default();
    let mut d = two_joint_skin(&mut b);
    d["nodes"][1]["children"] = json!([0]);
    let o = d.as_object_mut().unwrap();
    o.remove("scene");
    o.remove("scenes");
    expect_invalid("joint-cycle-noscene", &b, d, "cycle");
}

#[test]
fn non_finite_animation_keys_are_typed_errors() {
    // The two-joint skin with a rotation channel on joint 1 whose input (times) or output
    // (values) holds `bad`.
    let with_channel = |name: &str, times: &[f32], values: &[f32]| {
        let mut b = Builder::default();
        let mut d = two_joint_skin(&mut b);
        let t = b.f32s(times, "SCALAR");
        let q = b.f32s(values, "VEC4");
        d["animations"] = json!([{"samplers": [{"input": t, "output": q}],
            "channels": [{"sampler": 0, "target": {"node": 1, "path": "rotation"}}]}]);
        load_doc(name, &b, d)
    };
    let ok = [0.0, 0.0, 0.0, 1.0, 0.0, 0.0, H, H];
    assert!(with_channel("anim-ok", &[0.0, 1.0], &ok).is_ok());
    for (name, times, values) in [
        ("anim-nan-time", [0.0, f32::NAN], ok),
        ("anim-inf-time", [0.0, f32::INFINITY], ok),
        (
            "anim-nan-value",
            [0.0, 1.0],
            [0.0, 0.0, 0.0, 1.0, 0.0, f32::NAN, H, H],
        ),
    ] {
        match with_channel(name, &times, &values) {
            Err(IoError::Invalid { .. } | IoError::NonFinite { .. }) => {}
            Err(e) => panic!("{name}: wrong error {e}"),
            Ok(_) => panic!("{name}: loaded"),
        }
    }
    // A NaN key time in a morph `weights` channel.
    let mut b = Builder::default();
    let mut d = morph_triangle(&mut b);
    let t = b.f32s(&[0.0, f32::NAN], "SCALAR");
    let o = b.f32s(&[0.0, 1.0], "SCALAR");
    d["animations"] = json!([{"samplers": [{"input": t, "output": o}],
        "channels": [{"sampler": 0, "target": {"node": 0, "path": "weights"}}]}]);
    match load_doc("w-nan-time", &b, d) {
        Err(IoError::Invalid { .. } | IoError::NonFinite { .. }) => {}
        Err(e) => panic!("w-nan-time: wrong error {e}"),
        Ok(_) => panic!("w-nan-time: loaded"),
    }
}

#[test]
fn clips_choose_the_morph_weights() {
    // Two clips drive the triangle's weight: clip 0 holds 0.25 (z = 0.5), clip 1 holds 1
    // (z = 2). Both play: the later (clip 1) wins. Clip 0 alone: 0.25. None: the mesh's
    // static weight 0.5 (z = 1).
    let mut b = Builder::default();
    let mut d = morph_triangle(&mut b);
    let t = b.f32s(&[0.0], "SCALAR");
    let quarter = b.f32s(&[0.25], "SCALAR");
    let one = b.f32s(&[1.0], "SCALAR");
    let clip = |name: &str, out: usize| {
        json!({"name": name, "samplers": [{"input": t, "output": out}],
               "channels": [{"sampler": 0, "target": {"node": 0, "path": "weights"}}]})
    };
    d["animations"] = json!([clip("quarter", quarter), clip("one", one)]);
    let mut s = load_doc("clips", &b, d).unwrap();
    let a = s.imported.animations.clone();
    assert_eq!(a.len(), 2);
    assert_eq!(a[0].channel_count(), 1);
    assert!((z_at(&mut s, 0.5) - 2.0).abs() < 1e-6);
    io::play_only(&a, Some(0));
    assert!((z_at(&mut s, 0.5) - 0.5).abs() < 1e-6);
    io::play_only(&a, Some(1));
    assert!((z_at(&mut s, 0.5) - 2.0).abs() < 1e-6);
    io::play_only(&a, Some(2));
    assert!((z_at(&mut s, 0.5) - 1.0).abs() < 1e-6);
    io::play_only(&a, None);
    assert!((z_at(&mut s, 0.5) - 2.0).abs() < 1e-6);
}

/// Skinned and morphed (issue 28 item 9): [`two_joint_skin`] with one morph target moving
/// vertex 1 by (0, 0, 1) and vertex 2 by (1, 0, 0), mesh weight 0.5 — morph first, then
/// skin, worked by hand:
/// * vertex 1 (joint 1): morphed (0, 2, 0.5); IBM → (0, 1, 0.5); Rz90 → (−1, 0, 0.5);
///   + (0, 1, 0) → (−1, 1, 0.5);
/// * vertex 2 (half each): morphed (0.5, 2, 0); joint 0 leaves it; joint 1 gives
///   (0.5, 1, 0) → (−1, 0.5, 0) → (−1, 1.5, 0); half and half (−0.25, 1.75, 0).
///
/// Updating again at the same time gives the same mesh (the skin never skins its own
/// output), and a `weights` channel moves the morph under the skin.
#[test]
fn skinned_and_morphed_primitive() {
    let mut b = Builder::default();
    let mut d = two_joint_skin(&mut b);
    let delta = b.f32s(&[0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0], "VEC3");
    d["meshes"][0]["primitives"][0]["targets"] = json!([{"POSITION": delta}]);
    d["meshes"][0]["weights"] = json!([0.5]);
    let mut s = load_doc("skin-morph", &b, d.clone()).unwrap();
    let g = leaf(&s.scene);
    for t in [0.0, 0.0, 1.0] {
        s.scene.update(t);
        let m = s.scene.mesh(g).unwrap();
        let p = m.positions();
        assert!(close(p[0], Vec3::ZERO), "{p:?}");
        assert!(close(p[1], Vec3::new(-1.0, 1.0, 0.5)), "{p:?}");
        assert!(close(p[2], Vec3::new(-0.25, 1.75, 0.0)), "{p:?}");
        // No NORMAL target: the normals are the skin's, as without the morph.
        let n = m.normals().unwrap();
        assert!(
            close(n[1], Vec3::Y) && close(n[2], Vec3::new(H, H, 0.0)),
            "{n:?}"
        );
    }
    // The weight animated 0 → 1 over a second: vertex 1's z follows it through the skin.
    let t = b.f32s(&[0.0, 1.0], "SCALAR");
    let w = b.f32s(&[0.0, 1.0], "SCALAR");
    d["animations"] = json!([{"samplers": [{"input": t, "output": w}],
        "channels": [{"sampler": 0, "target": {"node": 2, "path": "weights"}}]}]);
    let mut s = load_doc("skin-morph-anim", &b, d).unwrap();
    let g = leaf(&s.scene);
    for (t, z) in [(0.0, 0.0), (0.25, 0.25), (1.0, 1.0), (0.25, 0.25)] {
        s.scene.update(t);
        let p = s.scene.mesh(g).unwrap().positions()[1];
        assert!(close(p, Vec3::new(-1.0, 1.0, z)), "t {t}: {p}");
    }
}
