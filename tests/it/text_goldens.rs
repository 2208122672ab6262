//! Text goldens (book §3, "String trees"): the scene graph's text dump ([`Scene::dump`]) of
//! some image goldens' scene files, committed beside the image as `refimages/<area>/<case>.txt`
//! and compared exactly. The dump shows what an image cannot: the transforms, bounds, states,
//! lights, effects and controllers each node carries, and which child a `lod` node chose.
//!
//! Each scene is loaded as `tests/refimages/main.rs` loads it (`io::load`, default options) and
//! drawn once from its first camera at the golden's size before it is dumped, so billboards
//! face that camera and `lod` nodes show the child the image shows.
//!
//! `PLUMB_BLESS=1 cargo test --profile ci --test it -- text_goldens::` writes the files instead of
//! comparing: read every one you bless against its scene file.

use std::path::PathBuf;

use plumb::scene::io::{self, ImportOptions};
use plumb::scene::SoftRenderer;

/// `refimages/<area>/<case>`: cases whose dump shows each kind of line at least once.
const CASES: &[&str] = &[
    // States: fog, material, polygon offset, stencil.
    "scene/state_fog",
    "scene/state_material",
    "scene/state_polygon_offset",
    "scene/state_stencil",
    // Each light type.
    "scene/light_spot",
    "scene/light_point",
    // Screen polygons, billboards, switches.
    "scene/screen_polygons",
    "scene/billboard_view_a",
    "json/switch_billboard",
    // Effects: textures, bump map, planar shadow and reflection.
    "effects/dark_map",
    "effects/bump_map",
    "effects/planar_shadow",
    "effects/planar_reflection",
    // Controllers: keyframes on a robot, particles, IK.
    "scene/cube_robot",
    "json/particles_cloud",
    "json/ik_rod",
    // Which child a lod node chose at each eye distance; a skin and its keyframed bone.
    "json/dlod_near",
    "json/dlod_mid",
    "json/dlod_far",
    "json/skin_arm_t0_5",
    // A BSP tree: each node's plane and which child fills each slot.
    "json/bsp_depth_off",
];

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The dump of one case's scene after one frame drawn from its first camera.
fn dump(case: &str) -> Result<String, String> {
    let json = repo().join(format!("refimages/{case}.json"));
    let png = json.with_extension("png");
    let (w, h) = image::image_dimensions(&png).map_err(|e| format!("{}: {e}", png.display()))?;
    let loaded = io::load(&json, &ImportOptions::default()).map_err(|e| e.to_string())?;
    let mut scene = loaded.scene;
    let cam = loaded
        .imported
        .cameras
        .first()
        .ok_or_else(|| format!("{case}: no camera"))?;
    let camera = cam
        .to_camera(&scene, w as f32 / h as f32)
        .map_err(|e| e.to_string())?;
    let mut r = SoftRenderer::new(w, h, Some(1)).map_err(|e| e.to_string())?;
    scene.draw(&camera, &mut r).map_err(|e| e.to_string())?;
    Ok(scene.dump())
}

fn check(case: &str, bless: bool) -> Result<(), String> {
    let text = dump(case)?;
    let path = repo().join(format!("refimages/{case}.txt"));
    if bless {
        return std::fs::write(&path, &text).map_err(|e| format!("{}: {e}", path.display()));
    }
    let want = std::fs::read_to_string(&path)
        .map_err(|e| format!("{}: {e} (PLUMB_BLESS=1 writes it)", path.display()))?;
    if text == want {
        return Ok(());
    }
    let first = text
        .lines()
        .zip(want.lines())
        .position(|(a, b)| a != b)
        .unwrap_or_else(|| text.lines().count().min(want.lines().count()));
    Err(format!(
        "{case}: the dump differs from {} at line {}:\n  golden: {}\n  actual: {}",
        path.display(),
        first + 1,
        want.lines().nth(first).unwrap_or("<end>"),
        text.lines().nth(first).unwrap_or("<end>")
    ))
}

#[test]
fn text_goldens_match() {
    let bless = std::env::var_os("PLUMB_BLESS").is_some();
    let failures: Vec<String> = CASES.iter().filter_map(|c| check(c, bless).err()).collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Every text golden on disk belongs to a case (a renamed case leaves no stale file behind).
#[test]
fn every_text_golden_has_a_case() {
    let mut stale = Vec::new();
    for area in ["scene", "json", "effects", "raster", "fixed"] {
        let Ok(entries) = std::fs::read_dir(repo().join("refimages").join(area)) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.extension().is_some_and(|x| x == "txt") {
                let stem = p.file_stem().and_then(|s| s.to_str()).unwrap_or_default();
                if !CASES.contains(&format!("{area}/{stem}").as_str()) {
                    stale.push(p);
                }
            }
        }
    }
    assert!(stale.is_empty(), "text goldens without a case: {stale:?}");
}

/// The dump is a function of the scene alone: the same file dumps the same bytes twice.
#[test]
fn dumps_are_repeatable() {
    let a = dump(CASES[0]).unwrap();
    let b = dump(CASES[0]).unwrap();
    assert_eq!(a, b);
}
