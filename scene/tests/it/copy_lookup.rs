//! Deep copy of subtrees and name look-up across nodes, lights, effects and controllers
//! (issue 14; book §3 "Names / IDs" and "Cloning"). Expected values are the scenes built by
//! hand here, not read back from the code under test.

use std::sync::Arc;

use glam::{Vec3, Vec4};
use plumb_scene::{
    Camera, CopyOptions, Effect, GlobalState, MaterialState, Mesh, NodeKind, ObjectRef, Scene,
    SceneLight, SoftRenderer,
};

fn tri() -> Arc<Mesh> {
    let p = vec![
        Vec3::new(-1.0, -1.0, 0.0),
        Vec3::new(1.0, -1.0, 0.0),
        Vec3::new(0.0, 1.0, 0.0),
    ];
    Arc::new(
        Mesh::triangles(p, vec![0, 1, 2])
            .and_then(|m| m.with_normals(vec![Vec3::Z; 3]))
            .expect("valid triangle"),
    )
}

/// root ─ arm (translated 1 in x, red material, light "sun")
///          ├ hand (geometry, shared mesh)
///          └ mirror (geometry)        arm has a planar reflection in "mirror"
fn arm_scene() -> (Scene, [plumb_scene::NodeId; 3], plumb_scene::LightId) {
    let mut s = Scene::new();
    let root = s.root();
    let arm = s.add_group(root, "arm").expect("group");
    s.set_translation(arm, Vec3::new(1.0, 0.0, 0.0)).expect("t");
    let hand = s.add_geometry(arm, "hand", tri()).expect("leaf");
    let mirror = s.add_geometry(arm, "mirror", tri()).expect("leaf");
    let red = MaterialState::matte(Vec4::new(1.0, 0.0, 0.0, 1.0));
    s.set_global_state(arm, GlobalState::Material(red))
        .expect("state");
    let sun = s
        .add_light(SceneLight::directional(Vec3::new(0.0, 0.0, -1.0)))
        .expect("light");
    s.attach_light(arm, sun).expect("attach");
    s.set_object_name(ObjectRef::Light(sun), "sun")
        .expect("name");
    s.set_effect(
        arm,
        Some(Effect::PlanarReflection {
            planes: vec![(mirror, 0.5)],
        }),
    )
    .expect("effect");
    s.set_object_name(ObjectRef::Effect(arm), "shine")
        .expect("name");
    (s, [arm, hand, mirror], sun)
}

#[test]
fn deep_copy_copies_nodes_states_lights_and_retargets_effects() {
    let (mut s, [arm, hand, mirror], sun) = arm_scene();
    let root = s.root();
    let before = s.node_count();
    let copy = s.deep_copy(arm, root).expect("copies");
    // Three nodes copied, appended as the root's last child.
    assert_eq!(s.node_count(), before + 3);
    assert_eq!(s.children(root).expect("root").last(), Some(&copy));
    assert_eq!(s.name(copy).expect("name"), "arm#");
    let kids = s.children(copy).expect("kids").to_vec();
    assert_eq!(kids.len(), 2);
    assert_eq!(s.name(kids[0]).expect("name"), "hand#");
    assert_eq!(s.name(kids[1]).expect("name"), "mirror#");
    assert_eq!(s.kind(kids[0]).expect("kind"), NodeKind::Geometry);
    // Transform and states copied.
    assert_eq!(
        s.local_transform(copy).expect("t").translation(),
        Vec3::new(1.0, 0.0, 0.0)
    );
    assert_eq!(
        s.global_states(copy).expect("states"),
        s.global_states(arm).expect("states")
    );
    // The mesh is shared, not duplicated.
    assert!(Arc::ptr_eq(
        s.mesh(kids[0]).expect("mesh"),
        s.mesh(hand).expect("mesh")
    ));
    // The light is a new entry with the same parameters and a suffixed name.
    let copied_lights = s.attached_lights(copy).expect("lights").to_vec();
    assert_eq!(copied_lights.len(), 1);
    assert_ne!(copied_lights[0], sun);
    assert_eq!(
        s.light(copied_lights[0]).expect("light"),
        s.light(sun).expect("light")
    );
    assert_eq!(
        s.object_name(ObjectRef::Light(copied_lights[0])),
        Some("sun#")
    );
    // The reflection now names the copied mirror, not the original.
    match s.effect(copy).expect("effect") {
        Some(Effect::PlanarReflection { planes }) => {
            assert_eq!(planes, &vec![(kids[1], 0.5)]);
            assert_ne!(kids[1], mirror);
        }
        other => panic!("expected a planar reflection, got {other:?}"),
    }
    assert_eq!(s.object_name(ObjectRef::Effect(copy)), Some("shine#"));
    // The original is untouched.
    assert_eq!(s.attached_lights(arm).expect("lights"), &[sun]);
    assert_eq!(s.name(arm).expect("name"), "arm");
}

#[test]
fn deep_copy_draws_the_same_picture_shifted() {
    // One lit triangle at x = 0; its copy moved to x = 3 under a group. Drawn from a camera
    // that sees only x ≥ 1.5 (looking at x = 3), the copy must give exactly the image of the
    // original seen from a camera looking at x = 0.
    let mut s = Scene::new();
    let root = s.root();
    let a = s.add_group(root, "a").expect("group");
    let leaf = s.add_geometry(a, "tri", tri()).expect("leaf");
    s.set_global_state(
        leaf,
        GlobalState::Material(MaterialState::matte(Vec4::new(0.2, 0.6, 1.0, 1.0))),
    )
    .expect("state");
    let sun = s
        .add_light(SceneLight::directional(-Vec3::Z))
        .expect("light");
    s.attach_light(a, sun).expect("attach");
    let b = s.add_group(root, "b").expect("group");
    s.set_translation(b, Vec3::new(30.0, 0.0, 0.0)).expect("t");
    s.deep_copy(a, b).expect("copy");
    let shot = |s: &mut Scene, x: f32| {
        let mut cam = Camera::perspective(0.8, 1.0, 0.1, 100.0).expect("camera");
        cam.look_at(Vec3::new(x, 0.0, 4.0), Vec3::new(x, 0.0, 0.0), Vec3::Y)
            .expect("look");
        let mut r = SoftRenderer::new(32, 32, Some(1)).expect("renderer");
        s.draw(&cam, &mut r).expect("draw");
        r.image()
    };
    let original = shot(&mut s, 0.0);
    let copied = shot(&mut s, 30.0);
    assert_eq!(original, copied);
    // And the picture is not empty: the centre pixel is the lit blue (N·L = 1).
    assert_eq!(original.get_pixel(16, 16).0, [51, 153, 255, 255]);
}

#[test]
fn deep_copy_keeps_names_and_shares_lights_when_asked() {
    let (mut s, [arm, ..], sun) = arm_scene();
    let root = s.root();
    let options = CopyOptions {
        name_suffix: String::new(),
        copy_lights: false,
    };
    let copy = s.deep_copy_with(arm, root, &options).expect("copies");
    assert_eq!(s.name(copy).expect("name"), "arm");
    assert_eq!(s.attached_lights(copy).expect("lights"), &[sun]);
    assert_eq!(s.find_all("arm").len(), 2);
}

#[test]
fn deep_copy_into_its_own_subtree_and_refusals() {
    let (mut s, [arm, hand, _], _) = arm_scene();
    // Into itself: the subtree is read first, so the copy holds the three original nodes only.
    let copy = s.deep_copy(arm, arm).expect("copies");
    assert_eq!(s.preorder(copy).expect("walk").len(), 3);
    // A geometry leaf cannot take children.
    assert!(s.deep_copy(arm, hand).is_err());
    // The root is refused.
    assert!(s.deep_copy(s.root(), arm).is_err());
    // A controller is refused before anything is created.
    let keep = Box::new(|_t: f64, l: &plumb_scene::Transform| Some(*l));
    s.add_controller(hand, keep).expect("controller");
    let n = s.node_count();
    let err = s.deep_copy(arm, s.root()).expect_err("refused");
    assert!(err.to_string().contains("controller"), "{err}");
    assert_eq!(s.node_count(), n);
}

#[test]
fn find_object_searches_nodes_controllers_effects_and_lights_in_book_order() {
    let (mut s, [arm, hand, _], sun) = arm_scene();
    assert_eq!(s.find_object("arm"), Some(ObjectRef::Node(arm)));
    assert_eq!(s.find_object("sun"), Some(ObjectRef::Light(sun)));
    assert_eq!(s.find_light("sun"), Some(sun));
    assert_eq!(s.find_object("shine"), Some(ObjectRef::Effect(arm)));
    assert_eq!(s.find_object("nothing"), None);
    assert_eq!(s.find_object(""), None);
    // A node and a light with one name: `sun` is attached to `arm`, whose members are
    // searched before its child `hand`, so the light comes first; find_all gives both.
    s.set_name(hand, "sun").expect("rename");
    assert_eq!(s.find_object("sun"), Some(ObjectRef::Light(sun)));
    assert_eq!(
        s.find_all_objects("sun"),
        vec![ObjectRef::Light(sun), ObjectRef::Node(hand)]
    );
    // An unattached light is found after the walk.
    let lamp = s
        .add_light(SceneLight::directional(Vec3::Y))
        .expect("light");
    s.set_object_name(ObjectRef::Light(lamp), "lamp")
        .expect("name");
    assert_eq!(s.find_object("lamp"), Some(ObjectRef::Light(lamp)));
    // Naming errors: an effect that does not exist, a controller index past the end.
    assert!(s.set_object_name(ObjectRef::Effect(hand), "x").is_err());
    assert!(s.set_object_name(ObjectRef::Controller(0), "x").is_err());
    // Controllers: named, found.
    let spin = Box::new(|_t: f64, l: &plumb_scene::Transform| Some(*l));
    s.add_controller(hand, spin).expect("controller");
    s.set_object_name(ObjectRef::Controller(0), "spin")
        .expect("name");
    assert_eq!(s.find_object("spin"), Some(ObjectRef::Controller(0)));
    // Removing a name.
    s.set_object_name(ObjectRef::Controller(0), "")
        .expect("unname");
    assert_eq!(s.find_object("spin"), None);
}
