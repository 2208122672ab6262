//! Seeded mutations of the documented scene-file examples (bytes flipped, cut or duplicated):
//! parsing, building and drawing never panic — each mutant is either drawn or refused with an
//! error. `PLUMB_JSON_FUZZ_CASES=N` runs more.

use std::path::{Path, PathBuf};

use glam::Vec3;
use plumb_scene::io::json;
use plumb_scene::io::ImportOptions;
use plumb_scene::{Camera, SoftRenderer};

fn examples() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/examples");
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    v.sort();
    v
}

/// Parses, builds and draws one text; `true` when it drew.
fn run(path: &Path, text: &str) -> bool {
    let Ok(doc) = json::parse(path, text) else {
        return false;
    };
    let Ok(loaded) = json::build(&doc, path, &ImportOptions::default()) else {
        return false;
    };
    let mut scene = loaded.scene;
    let camera = match loaded.imported.cameras.first() {
        Some(c) => match c.to_camera(&scene, 4.0 / 3.0) {
            Ok(c) => c,
            Err(_) => return false,
        },
        None => {
            let mut c = Camera::perspective(0.8, 4.0 / 3.0, 0.1, 100.0).unwrap();
            c.look_at(Vec3::new(3.0, 4.0, 8.0), Vec3::ZERO, Vec3::Y)
                .unwrap();
            c
        }
    };
    let mut r = SoftRenderer::new(16, 12, Some(1)).unwrap();
    scene.draw(&camera, &mut r).is_ok()
}

#[test]
fn mutated_scene_files_never_panic() {
    let cases: u64 = std::env::var("PLUMB_JSON_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(40);
    let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let (mut drawn, mut refused) = (0, 0);
    for path in examples() {
        let original = std::fs::read(&path).unwrap();
        for _ in 0..cases {
            let mut bytes = original.clone();
            for _ in 0..1 + next() % 2 {
                let at = (next() % bytes.len() as u64) as usize;
                match next() % 4 {
                    // Digits are where values live: bias the flips towards them.
                    0 | 1 => bytes[at] = b"0123456789-.e,]}\"x"[(next() % 18) as usize],
                    2 => bytes.truncate(at.max(1)),
                    _ => {
                        let b = bytes[at];
                        bytes.insert(at, b);
                    }
                }
            }
            if run(&path, &String::from_utf8_lossy(&bytes)) {
                drawn += 1;
            } else {
                refused += 1;
            }
        }
    }
    assert!(drawn > 0 && refused > 0, "drawn {drawn}, refused {refused}");
}
