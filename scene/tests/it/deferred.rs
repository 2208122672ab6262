//! Deferred drawing (book-advanced §1.9; issue 15): the collected list, and deferred output
//! equal to immediate output byte for byte.

use std::path::{Path, PathBuf};

use glam::Vec3;
use plumb_scene::io::{self, ImportOptions};
use plumb_scene::{Camera, Culling, DeferredDraw, DeferredList, Scene, SoftRenderer};

fn golden(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../refimages/json")
        .join(name)
}

fn load(name: &str) -> (Scene, Camera) {
    let loaded = io::load(&golden(name), &ImportOptions::default()).unwrap();
    let camera = loaded.imported.cameras[0]
        .to_camera(&loaded.scene, 1.0)
        .unwrap();
    (loaded.scene, camera)
}

fn immediate(s: &mut Scene, c: &Camera) -> Vec<u8> {
    let mut r = SoftRenderer::new(96, 96, Some(1)).unwrap();
    s.draw(c, &mut r).unwrap();
    r.image().as_raw().clone()
}

fn deferred(s: &mut Scene, c: &Camera, mode: DeferredDraw<'_>) -> (Vec<u8>, DeferredList) {
    let mut r = SoftRenderer::new(96, 96, Some(1)).unwrap();
    let (list, _) = s.draw_deferred(c, &mut r, mode).unwrap();
    (r.image().as_raw().clone(), list)
}

#[test]
fn sorted_deferred_equals_immediate_with_transparency() {
    for case in [
        "transparent_sorted.json",
        "portals_level.json",
        "bsp_depth_off.json",
    ] {
        let (mut s, c) = load(case);
        let a = immediate(&mut s, &c);
        let (b, list) = deferred(&mut s, &c, DeferredDraw::Sorted);
        assert_eq!(a, b, "{case}");
        assert!(!list.geometry.is_empty());
    }
}

#[test]
fn no_sort_equals_immediate_without_transparency() {
    // The portal level and the BSP sample are opaque: their traversal order is the draw order.
    for case in ["portals_level.json", "bsp_depth_off.json"] {
        let (mut s, c) = load(case);
        let a = immediate(&mut s, &c);
        let (b, _) = deferred(&mut s, &c, DeferredDraw::NoSort);
        assert_eq!(a, b, "{case}");
    }
}

#[test]
fn no_draw_leaves_the_cleared_frame() {
    let (mut s, c) = load("bsp_depth_off.json");
    let (img, list) = deferred(&mut s, &c, DeferredDraw::NoDraw);
    // Background (0.55, 0.7, 0.85, 1) → floor(x·255 + 0.5).
    let bg = [140u8, 179, 217, 255];
    assert!(img.chunks(4).all(|p| p == bg));
    // The BSP sample's 10 leaves, all in view.
    assert_eq!(list.geometry.len(), 10);
}

/// A custom function that keeps one leaf draws what the immediate path draws when every other
/// leaf is force-culled.
#[test]
fn custom_function_reorders_and_filters() {
    let (mut s, c) = load("bsp_depth_off.json");
    let cube = s.find("Cube").unwrap();
    let mut seen = 0;
    let mut keep_cube = |_: &Scene, _: &Camera, list: &mut DeferredList| {
        seen = list.geometry.len();
        list.geometry.retain(|&g| g == cube);
    };
    let (b, _) = deferred(&mut s, &c, DeferredDraw::Custom(&mut keep_cube));
    assert_eq!(seen, 10);
    let leaves: Vec<_> = ["Ground", "Sphere", "Torus", "Tetrahedron", "Octahedron"]
        .iter()
        .chain(["Plane0", "Plane1", "Plane2", "Plane3"].iter())
        .map(|n| s.find(n).unwrap())
        .collect();
    for l in leaves {
        s.set_culling(l, Culling::Always).unwrap();
    }
    let a = immediate(&mut s, &c);
    assert_eq!(a, b);
    let _ = Vec3::ZERO;
}
