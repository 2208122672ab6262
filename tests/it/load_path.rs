//! One load path, one image (issue 14, fix 3): `plumb_scene::io::load` yields the scene
//! `plumb render` draws — imported materials applied, the default light rig only when neither
//! the import nor the scene file has a light — and drawing it from
//! `ImportedScene::default_camera` gives the CLI's bytes.

use crate::cli_common;

use std::path::Path;

use cli_common::*;
use plumb::scene::io::{self, ApplyOptions, ImportOptions, LightSource, Shading};
use plumb::scene::SoftRenderer;

const W: u32 = 64;
const H: u32 = 48;

/// A unit cube with face normals and a red MTL material (`Kd 0.8 0.2 0.1`).
fn write_cube(dir: &Path) {
    std::fs::write(
        dir.join("cube.mtl"),
        "newmtl red\nKd 0.8 0.2 0.1\nKa 0.8 0.2 0.1\nKs 0 0 0\n",
    )
    .unwrap();
    let mut obj = String::from("mtllib cube.mtl\no cube\nusemtl red\n");
    for z in [-0.5f32, 0.5] {
        for y in [-0.5f32, 0.5] {
            for x in [-0.5f32, 0.5] {
                obj.push_str(&format!("v {x} {y} {z}\n"));
            }
        }
    }
    // Vertex k = x + 2y + 4z (bits); faces counter-clockwise seen from outside.
    for n in ["1 0 0", "-1 0 0", "0 1 0", "0 -1 0", "0 0 1", "0 0 -1"] {
        obj.push_str(&format!("vn {n}\n"));
    }
    for (f, n) in [
        ([2, 4, 8, 6], 1),
        ([1, 5, 7, 3], 2),
        ([3, 7, 8, 4], 3),
        ([1, 2, 6, 5], 4),
        ([5, 6, 8, 7], 5),
        ([1, 3, 4, 2], 6),
    ] {
        obj.push_str(&format!(
            "f {0}//{n} {1}//{n} {2}//{n} {3}//{n}\n",
            f[0], f[1], f[2], f[3]
        ));
    }
    std::fs::write(dir.join("cube.obj"), obj).unwrap();
}

/// A scene file importing the cube, with one light of its own (a green point light).
fn write_scene(dir: &Path) {
    std::fs::write(
        dir.join("scene.json"),
        r#"{
  "format": "plumb-scene",
  "version": 1,
  "background": [0.1, 0.1, 0.1, 1],
  "lights": [{ "name": "lamp", "type": "point", "position": [2, 3, 4], "diffuse": [0, 1, 0, 1] }],
  "root": {
    "lights": ["lamp"],
    "children": [{ "name": "imported", "transform": { "translation": [0, 0.2, 0] }, "import": "cube.obj" }]
  }
}"#,
    )
    .unwrap();
}

/// `plumb render FILE` at W × H on one thread, decoded.
fn cli_render(dir: &Path, file: &str) -> image::RgbaImage {
    let out = format!("{file}.cli.png");
    let w = format!("{W}x{H}");
    let o = plumb(
        dir,
        &["render", file, "-o", &out, "--size", &w, "--threads", "1"],
    );
    assert_success(&o);
    image::open(dir.join(out)).unwrap().to_rgba8()
}

/// The library: `io::load` with default options, drawn from the default camera.
fn library_render(path: &Path) -> image::RgbaImage {
    let loaded = io::load(path, &ImportOptions::default()).unwrap();
    let camera = loaded.default_camera(W as f32 / H as f32).unwrap();
    let mut scene = loaded.scene;
    let mut r = SoftRenderer::new(W, H, Some(1)).unwrap();
    scene.draw(&camera, &mut r).unwrap();
    r.image()
}

/// The classic mapping (materials as fixed-function render state, the rig for a dark file).
fn classic() -> ImportOptions {
    ImportOptions {
        apply: Some(ApplyOptions {
            shading: Shading::Classic,
            ..ApplyOptions::default()
        }),
        ..ImportOptions::default()
    }
}

#[test]
fn scene_file_lights_replace_the_default_rig_and_materials_apply() {
    let dir = temp_dir("own-light");
    write_cube(&dir);
    write_scene(&dir);
    let loaded = io::load(&dir.join("scene.json"), &classic()).unwrap();
    let leaf = loaded.scene.find("cube[0]").expect("the imported leaf");
    let resolved = loaded.scene.resolved(leaf).unwrap();
    // Only the file's lamp lights the cube: no key or fill light was added.
    assert_eq!(resolved.lights.len(), 1, "{:?}", resolved.lights);
    assert!(
        !loaded
            .imported
            .applied
            .lights
            .iter()
            .any(|(_, s)| matches!(s, LightSource::Key | LightSource::Fill)),
        "{:?}",
        loaded.imported.applied.lights
    );
    assert_eq!(loaded.imported.applied.lit, vec![leaf]);
    // The MTL's red reached the render state (the default material is grey).
    let d = resolved.states.material.diffuse;
    assert!(d.x > 2.0 * d.y && d.x > 2.0 * d.z, "diffuse {d}");

    // Without a light anywhere the rig is still added, as before.
    let bare = io::load(&dir.join("cube.obj"), &classic()).unwrap();
    let sources: Vec<LightSource> = bare.imported.applied.lights.iter().map(|l| l.1).collect();
    assert_eq!(sources, vec![LightSource::Key, LightSource::Fill]);
    assert!(bare.scene.pbr_environment().is_none());
    // Under the default PBR mapping the studio environment lights it instead (issue 53).
    let bare = io::load(&dir.join("cube.obj"), &ImportOptions::default()).unwrap();
    assert!(bare.imported.applied.lights.is_empty());
    assert!(bare.scene.pbr_environment().is_some());
    // A file with a light of its own is not given the studio.
    let lit = io::load(&dir.join("scene.json"), &ImportOptions::default()).unwrap();
    assert!(lit.scene.pbr_environment().is_none());

    // The opt-out leaves the import raw: no light added, the material only recorded.
    let raw = io::load(
        &dir.join("cube.obj"),
        &ImportOptions {
            apply: None,
            ..ImportOptions::default()
        },
    )
    .unwrap();
    let leaf = raw.scene.find("cube[0]").unwrap();
    assert!(raw.scene.resolved(leaf).unwrap().lights.is_empty());
    assert!(raw.imported.material(leaf).is_some());
    assert!(raw.imported.applied.lights.is_empty());
}

#[test]
fn library_load_and_draw_gives_the_cli_image() {
    let dir = temp_dir("same-image");
    write_cube(&dir);
    write_scene(&dir);
    for file in ["scene.json", "cube.obj"] {
        let cli = cli_render(&dir, file);
        let lib = library_render(&dir.join(file));
        let differing = cli
            .pixels()
            .zip(lib.pixels())
            .filter(|(a, b)| a != b)
            .count();
        assert_eq!(
            differing, 0,
            "{file}: the library's image differs from plumb render's in {differing} pixels"
        );
        // Not a blank frame: the cube is drawn, lit (more than one shade).
        let mut shades: Vec<[u8; 4]> = cli.pixels().map(|p| p.0).collect();
        shades.sort_unstable();
        shades.dedup();
        assert!(shades.len() > 3, "{file}: {} shades", shades.len());
    }
    // The scene file's green lamp lights the cube without the white rig: its lit faces are
    // green-dominated (red material × green light; the white key light would make them red).
    let lit = cli_render(&dir, "scene.json");
    let green = lit.pixels().filter(|p| p.0[1] > p.0[0] + 20).count();
    assert!(green > 20, "{green} green-lit pixels");
}
