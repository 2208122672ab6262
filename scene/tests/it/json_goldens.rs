//! The scene files behind the `json/` goldens of skins, discrete LOD and morphs
//! (`refimages/json/{skin_arm_*,dlod_*,morph_*}.json`), checked against values worked out by
//! hand, so the images are not the only record of what they should show.

use std::path::Path;

use glam::Vec3;
use plumb_scene::io::{self, ImportOptions, ImportedScene};

fn load(case: &str) -> ImportedScene {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../refimages/json")
        .join(format!("{case}.json"));
    io::load(&path, &ImportOptions::default()).unwrap()
}

fn close(a: Vec3, b: Vec3, tol: f32) -> bool {
    (a - b).abs().max_element() <= tol
}

/// `dlod_*`: the LOD centre is (0, 0, −1) + (0, 0, 1) = the origin; the cameras are 4, 9 and
/// 16 from it, inside [0, 6), [6, 12) and [12, 100): children 0, 1 and 2.
#[test]
fn dlod_goldens_choose_by_eye_distance() {
    for (case, distance, child) in [
        ("dlod_near", 4.0, "fine_red_sphere"),
        ("dlod_mid", 9.0, "coarse_green_sphere"),
        ("dlod_far", 16.0, "blue_box"),
    ] {
        let mut loaded = load(case);
        let scene = &mut loaded.scene;
        let camera = loaded.imported.cameras[0].to_camera(scene, 1.0).unwrap();
        let lod = scene.find("rock").unwrap();
        assert_eq!(scene.world_lod_center(lod).unwrap(), Vec3::ZERO, "{case}");
        assert!(
            (camera.location().length() - distance).abs() < 1e-6,
            "{case}"
        );
        scene.select_levels_of_detail(camera.location());
        assert_eq!(
            scene.active_child(lod).unwrap(),
            scene.find(child),
            "{case}"
        );
    }
}

/// `morph_*`: square (±1)², target 1 raises the top edge to y = 2, target 2 shifts it right by
/// 1; keys (0, 0) at 0, (1, 0) at 1, (0, 1) at 2. The top-left and top-right corners are
/// `(−1, 1) + w₁·(0, 1) + w₂·(1, 0)` and `(1, 1) + …`; the bottom stays.
#[test]
fn morph_goldens_at_and_between_keys() {
    for (case, [w1, w2]) in [
        ("morph_t0_5", [0.5, 0.0]),
        ("morph_t1", [1.0, 0.0]),
        ("morph_t1_5", [0.5, 0.5]),
    ] {
        let loaded = load(case);
        let panel = loaded.scene.find("panel").unwrap();
        let got = loaded.scene.mesh(panel).unwrap().positions().to_vec();
        let want = [
            Vec3::new(-1.0, -1.0, 0.0),
            Vec3::new(1.0, -1.0, 0.0),
            Vec3::new(1.0 + w2, 1.0 + w1, 0.0),
            Vec3::new(-1.0 + w2, 1.0 + w1, 0.0),
        ];
        for (g, w) in got.iter().zip(&want) {
            assert!(close(*g, *w, 1e-6), "{case}: {got:?}");
        }
    }
}

/// `skin_arm_*`: the elbow (`lower`, at the origin) turns 45° and 90° about z. The strip's
/// tip corners (2, ±0.25) lie on `lower` alone: at 45° they are ((2 ∓ 0.25)/√2, (2 ± 0.25)/√2),
/// at 90° (∓0.25, 2); the hand ball sits at the tip's centre line, (√2, √2) and (0, 2).
/// The middle column (0, ±0.25), half on each bone, goes at 90° to ½(0, ±0.25) + ½(∓0.25, 0).
#[test]
fn skin_goldens_follow_the_elbow() {
    let s = std::f32::consts::FRAC_1_SQRT_2;
    for (case, tip_bottom, tip_top, hand) in [
        (
            "skin_arm_t0_5",
            Vec3::new(2.25 * s, 1.75 * s, 0.0),
            Vec3::new(1.75 * s, 2.25 * s, 0.0),
            Vec3::new(2.0 * s, 2.0 * s, 0.3),
        ),
        (
            "skin_arm_t1",
            Vec3::new(0.25, 2.0, 0.0),
            Vec3::new(-0.25, 2.0, 0.0),
            Vec3::new(0.0, 2.0, 0.3),
        ),
    ] {
        let loaded = load(case);
        let scene = &loaded.scene;
        let arm = scene.find("arm").unwrap();
        let p = scene.mesh(arm).unwrap().positions();
        assert_eq!(p.len(), 18);
        // The shoulder end stays put.
        assert!(close(p[0], Vec3::new(-2.0, -0.25, 0.0), 1e-6), "{case}");
        assert!(close(p[16], tip_bottom, 1e-5), "{case}: {}", p[16]);
        assert!(close(p[17], tip_top, 1e-5), "{case}: {}", p[17]);
        let ball = scene.find("hand_ball").unwrap();
        let at = scene.world_transform(ball).unwrap().translation();
        assert!(close(at, hand, 1e-5), "{case}: {at}");
        if case == "skin_arm_t1" {
            assert!(close(p[8], Vec3::new(0.125, -0.125, 0.0), 1e-6), "{}", p[8]);
            assert!(close(p[9], Vec3::new(-0.125, 0.125, 0.0), 1e-6), "{}", p[9]);
        }
    }
}
