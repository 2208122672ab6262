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
