//! Controllers run before the world update; the text dump stays linear on deep trees.

use std::sync::Arc;

use glam::Vec3;
use plumb_scene::{Mesh, Scene, Transform};

#[test]
fn controllers_run_first_in_insertion_order() {
    let mut s = Scene::new();
    let spinner = s.add_group(s.root(), "spinner").unwrap();
    let child = s
        .add_geometry(spinner, "child", Arc::new(Mesh::cube()))
        .unwrap();
    s.set_translation(child, Vec3::new(1.0, 0.0, 0.0)).unwrap();
    // Translate the spinner by time; a second controller on the same node doubles it.
    s.add_controller(
        spinner,
        Box::new(|t: f64, _: &Transform| {
            Transform::from_translation(Vec3::new(0.0, t as f32, 0.0)).ok()
        }),
    )
    .unwrap();
    s.add_controller(
        spinner,
        Box::new(|_: f64, l: &Transform| Transform::from_translation(l.translation() * 2.0).ok()),
    )
    .unwrap();
    let stats = s.update(3.0);
    assert_eq!(stats.controllers, 2);
    // The world data already reflects this update's controllers.
    assert_eq!(
        s.world_transform(child).unwrap().translation(),
        Vec3::new(1.0, 6.0, 0.0)
    );
    // A controller returning None leaves the node clean.
    let idle = s.add_group(s.root(), "idle").unwrap();
    s.add_controller(idle, Box::new(|_: f64, _: &Transform| None))
        .unwrap();
    s.update(3.0);
    assert_eq!(s.controller_count(), 3);
    s.remove(spinner).unwrap();
    assert_eq!(s.controller_count(), 1, "controllers go with their node");
    let stats = s.update(4.0);
    assert_eq!((stats.controllers, stats.transforms), (1, 0));
}

#[test]
fn dump_of_a_deep_chain_caps_indentation() {
    let mut s = Scene::new();
    let mut last = s.root();
    for i in 0..100 {
        last = s.add_group(last, format!("g{i}")).unwrap();
    }
    s.update(0.0);
    let dump = s.dump();
    assert_eq!(dump.lines().count(), 101 * 4);
    let longest = dump.lines().map(str::len).max().unwrap();
    assert!(
        longest < 2 * plumb_scene::print::MAX_INDENT + 80,
        "{longest}"
    );
    assert!(dump.contains("@99 g98 [group]"));
}

/// The dump shows what each node carries (issue 14, "the text dump shows render state"): a
/// LOD switch with its ranges and chosen child, a billboard, states, lights, controllers, a
/// skin with its bones and the identity world it pins, and the scene-wide background.
#[test]
fn dump_shows_what_nodes_carry() {
    use plumb_scene::{GlobalState, SceneLight, ShadeState, SkinController};
    let mut s = Scene::new();
    s.set_background(glam::Vec4::new(0.5, 0.25, 0.0, 1.0))
        .unwrap();
    let lod = s.add_dlod(s.root(), "lod", Vec3::ZERO).unwrap();
    let near = s.add_group(lod, "near").unwrap();
    let far = s.add_group(lod, "far").unwrap();
    s.set_lod_range(lod, near, 0.0, 10.0).unwrap();
    s.set_lod_range(lod, far, 10.0, f32::INFINITY).unwrap();
    let bb = s.add_billboard(s.root(), "sign").unwrap();
    s.set_global_state(bb, GlobalState::Shade(ShadeState::Flat))
        .unwrap();
    let light = s.add_light(SceneLight::ambient(Vec3::splat(0.25))).unwrap();
    s.attach_light(bb, light).unwrap();
    let bone = s.add_group(s.root(), "bone").unwrap();
    s.add_controller(bone, Box::new(|_: f64, _: &Transform| None))
        .unwrap();
    let tri = Mesh::triangles(vec![Vec3::ZERO, Vec3::X, Vec3::Y], vec![0, 1, 2]).unwrap();
    let skinned = s.add_geometry(s.root(), "skinned", Arc::new(tri)).unwrap();
    let skin = SkinController::new(
        vec![bone],
        vec![vec![1.0]; 3],
        vec![vec![Vec3::ZERO], vec![Vec3::X], vec![Vec3::Y]],
    )
    .unwrap();
    s.add_mesh_controller(skinned, Box::new(skin)).unwrap();
    s.update(0.0);
    // The eye 20 units from the centre selects `far`.
    s.select_levels_of_detail(Vec3::new(0.0, 0.0, 20.0));
    let dump = s.dump();
    let has = |line: &str| dump.lines().any(|l| l.trim_start() == line);
    assert!(
        dump.starts_with("# background: (0.5, 0.25, 0, 1)\n"),
        "{dump}"
    );
    assert!(
        has("lod [lod centre=(0, 0, 0) ranges=[near [0, 10), far [10, inf)] active=far]"),
        "{dump}"
    );
    assert!(has("sign [billboard]"), "{dump}");
    assert!(has("state: shade Flat"), "{dump}");
    assert!(
        has("light #0: ambient, ambient (0.25, 0.25, 0.25, 1), diffuse (0, 0, 0, 1), specular (0, 0, 0, 1)"),
        "{dump}"
    );
    // A closure cannot describe itself.
    assert!(
        has("controller: opaque (a closure or another type)"),
        "{dump}"
    );
    assert!(
        has("skinned [geometry triangles vertices=3 indices=3 world=identity]"),
        "{dump}"
    );
    assert!(
        has("mesh controller: skin: 1 bones, 3 vertices, bones [bone]"),
        "{dump}"
    );
}
