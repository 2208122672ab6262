//! Goldens of real glTF sample models (Khronos glTF Sample Assets), rendered the way a user
//! renders them: by the built `plumb render` binary, with the command lines in [`CASES`].
//! Each render is made with `--threads 1` and `--threads 2` (the files must be identical) and
//! compared with `refimages/models/<case>.png` by `plumb diff` at threshold 0 (bit for bit).
//!
//! The models are third-party files that may not be committed (`shared/assets/LICENSES.md`:
//! fetched data stays in `shared/`), so a fresh clone cannot run this test and it is ignored
//! by default. The goldens are plumb's own renders, committed with the models' attribution
//! (`refimages/models/ATTRIBUTION.md`). Run it with a copy of the assets:
//!
//! ```text
//! PLUMB_ASSETS=../shared/assets cargo test --profile ci --test model_goldens -- --ignored
//! ```
//!
//! `PLUMB_BLESS=1` writes the goldens instead of comparing: open each one beside the model's
//! `screenshot/` image before committing it. A missing model fails with the paths tried.

mod cli_common;

use std::path::{Path, PathBuf};

use cli_common::*;

/// A golden: its name (`refimages/models/<name>.png`), the model (a folder of
/// `gltf/khronos/`) and the `plumb render` options.
struct ModelCase {
    name: &'static str,
    model: &'static str,
    args: &'static [&'static str],
}

/// The view of both normal-map tests: from the upper left, so the headlight has both an x
/// and a y component in every cell's tangent frame.
const NORMAL_TANGENT_VIEW: &[&str] = &[
    "--size",
    "480x360",
    "--eye",
    "-2.2,1.3,3.6",
    "--target",
    "-0.3,0,0",
    "--fov",
    "42",
    "--background",
    "0.2,0.2,0.3,1",
];

/// Every model case; described in `refimages/README.md` (section `models/`).
const CASES: &[ModelCase] = &[
    // The file's own camera (yfov 0.66, aspect 1.5).
    ModelCase {
        name: "Duck",
        model: "Duck",
        args: &["--size", "320x240"],
    },
    // No camera in the file: the framing rule.
    ModelCase {
        name: "BoxTextured",
        model: "BoxTextured",
        args: &["--size", "256x256"],
    },
    ModelCase {
        name: "CesiumMilkTruck",
        model: "CesiumMilkTruck",
        args: &["--size", "320x240"],
    },
    ModelCase {
        name: "AlphaBlendModeTest",
        model: "AlphaBlendModeTest",
        args: &[
            "--size",
            "480x240",
            "--eye",
            "0,1.5,6.5",
            "--target",
            "0,0.9,0",
            "--fov",
            "40",
            "--background",
            "0.2,0.2,0.3,1",
        ],
    },
    ModelCase {
        name: "TextureSettingsTest",
        model: "TextureSettingsTest",
        args: &[
            "--size", "320x320", "--eye", "0,0,15.5", "--target", "0,0,0", "--fov", "40",
        ],
    },
    ModelCase {
        name: "OrientationTest",
        model: "OrientationTest",
        args: &["--size", "320x320"],
    },
    // Skinned (issue 12): the figure's walk at two times; framing rule.
    ModelCase {
        name: "RiggedFigure-t0.3",
        model: "RiggedFigure",
        args: &["--size", "320x320", "--time", "0.3"],
    },
    ModelCase {
        name: "RiggedFigure-t0.9",
        model: "RiggedFigure",
        args: &["--size", "320x320", "--time", "0.9"],
    },
    // Morphed (issue 12): weights animation at two times; framing rule.
    ModelCase {
        name: "AnimatedMorphCube-t0.5",
        model: "AnimatedMorphCube",
        args: &["--size", "320x320", "--time", "0.5"],
    },
    ModelCase {
        name: "AnimatedMorphCube-t1.5",
        model: "AnimatedMorphCube",
        args: &["--size", "320x320", "--time", "1.5"],
    },
    // Its third time: the "angle" target alone (weights 0, 1).
    ModelCase {
        name: "AnimatedMorphCube-t3.4",
        model: "AnimatedMorphCube",
        args: &["--size", "320x320", "--time", "3.4"],
    },
    // KHR_mesh_quantization: the same morph as AnimatedMorphCube-t1.5 from integer data.
    ModelCase {
        name: "AnimatedMorphCube-Quantized-t1.5",
        model: "AnimatedMorphCube/glTF-Quantized",
        args: &["--size", "320x320", "--time", "1.5"],
    },
    // Skinned (issue 12): the glTF tutorial's two-joint strip, seen face on, bent +90° and −45°.
    ModelCase {
        name: "SimpleSkin-t1.5",
        model: "SimpleSkin",
        args: &[
            "--size", "240x240", "--time", "1.5", "--eye", "0,1,4.5", "--target", "0,1,0", "--fov",
            "45",
        ],
    },
    ModelCase {
        name: "SimpleSkin-t3.5",
        model: "SimpleSkin",
        args: &[
            "--size", "240x240", "--time", "3.5", "--eye", "0,1,4.5", "--target", "0,1,0", "--fov",
            "45",
        ],
    },
    // A skinned cylinder bending at its middle joint; framing rule.
    ModelCase {
        name: "RiggedSimple-t0.5",
        model: "RiggedSimple",
        args: &["--size", "240x240", "--time", "0.5"],
    },
    ModelCase {
        name: "RiggedSimple-t1.5",
        model: "RiggedSimple",
        args: &["--size", "240x240", "--time", "1.5"],
    },
    // One mesh, 84 skins on four twisting skeletons; framing rule.
    ModelCase {
        name: "RecursiveSkeletons-t1",
        model: "RecursiveSkeletons",
        args: &["--size", "320x320", "--time", "1"],
    },
    // Morphed (issue 12): one triangle, two targets, weights (0, 1) at t = 1 and (1, 0) at 3.
    ModelCase {
        name: "SimpleMorph-t1",
        model: "SimpleMorph",
        args: &[
            "--size", "240x240", "--time", "1", "--eye", "0.5,1,4", "--target", "0.5,1,0", "--fov",
            "45",
        ],
    },
    ModelCase {
        name: "SimpleMorph-t3",
        model: "SimpleMorph",
        args: &[
            "--size", "240x240", "--time", "3", "--eye", "0.5,1,4", "--target", "0.5,1,0", "--fov",
            "45",
        ],
    },
    // Two primitives, each with a target, mesh weights [0.5]: the centre raised.
    ModelCase {
        name: "MorphPrimitivesTest",
        model: "MorphPrimitivesTest",
        args: &[
            "--size",
            "320x240",
            "--eye",
            "0,0.45,1.4",
            "--target",
            "0,0.02,0",
            "--fov",
            "45",
        ],
    },
    // Eight targets with POSITION and NORMAL; the "TheWave" clip of three (--clip).
    // Normal maps as the book's bump map (issue 14), seen from the upper left so the
    // headlight has both an x and a y component in every cell's tangent frame: generated
    // tangents (NormalTangentTest) and file tangents with mirrored uvs (the Mirror test).
    ModelCase {
        name: "NormalTangentTest",
        model: "NormalTangentTest",
        args: NORMAL_TANGENT_VIEW,
    },
    ModelCase {
        name: "NormalTangentMirrorTest",
        model: "NormalTangentMirrorTest",
        args: NORMAL_TANGENT_VIEW,
    },
    // KHR_materials_emissive_strength: five black cubes emitting (0.1, 0.5, 0.9) × 1, 2, 4,
    // 8, 16, face on.
    ModelCase {
        name: "EmissiveStrengthTest",
        model: "EmissiveStrengthTest",
        args: &[
            "--size",
            "480x200",
            "--eye",
            "0,0,16",
            "--target",
            "0,0,0",
            "--fov",
            "30",
            "--background",
            "0.2,0.2,0.3,1",
        ],
    },
    ModelCase {
        name: "MorphStressTest-TheWave-t0.8",
        model: "MorphStressTest",
        args: &["--size", "320x240", "--clip", "TheWave", "--time", "0.8"],
    },
];

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `gltf/khronos/<model>/glTF/<model>.gltf` under `$PLUMB_ASSETS`, else under
/// `../shared/assets` beside the repository. `<model>/<variant>` (e.g.
/// `AnimatedMorphCube/glTF-Quantized`) takes that variant folder instead of `glTF`.
fn model_path(model: &str) -> Result<PathBuf, String> {
    let (name, variant) = model.split_once('/').unwrap_or((model, "glTF"));
    let rel = Path::new("gltf/khronos")
        .join(name)
        .join(variant)
        .join(format!("{name}.gltf"));
    let mut tried = Vec::new();
    if let Ok(dir) = std::env::var("PLUMB_ASSETS") {
        tried.push(Path::new(&dir).join(&rel));
    }
    tried.push(repo().join("../shared/assets").join(&rel));
    // Absolute, because `plumb` runs in a scratch directory.
    tried.iter().find_map(|p| p.canonicalize().ok()).ok_or_else(|| {
        format!("{model}: model not found; tried {tried:?} (set PLUMB_ASSETS to a copy of shared/assets)")
    })
}

/// Renders one case and checks it; `Err` describes the failure.
fn check(case: &ModelCase, dir: &Path, bless: bool) -> Result<(), String> {
    let model = model_path(case.model)?;
    let model = model.to_string_lossy().into_owned();
    let mut outs = Vec::new();
    for threads in ["1", "2"] {
        let out = dir.join(format!("{}-{threads}.png", case.name));
        let out_s = out.to_string_lossy().into_owned();
        let mut args = vec!["render", model.as_str(), "-o", &out_s, "--threads", threads];
        args.extend_from_slice(case.args);
        let o = plumb(dir, &args);
        if o.status.code() != Some(0) {
            return Err(format!(
                "{}: plumb render failed: {}",
                case.model,
                stderr(&o)
            ));
        }
        outs.push(std::fs::read(&out).map_err(|e| format!("{}: {e}", out.display()))?);
    }
    if outs[0] != outs[1] {
        return Err(format!("{}: --threads 1 and 2 differ", case.model));
    }
    let golden = repo()
        .join("refimages/models")
        .join(format!("{}.png", case.name));
    let actual = dir.join(format!("{}-1.png", case.name));
    if bless {
        std::fs::copy(&actual, &golden).map_err(|e| format!("{}: {e}", golden.display()))?;
        eprintln!("blessed {}", golden.display());
        return Ok(());
    }
    let heat = dir.join(format!("{}.heat.png", case.name));
    let (g, a, h) = (
        golden.to_string_lossy().into_owned(),
        actual.to_string_lossy().into_owned(),
        heat.to_string_lossy().into_owned(),
    );
    let o = plumb(dir, &["diff", &g, &a, "--out", &h]);
    match o.status.code() {
        Some(0) => Ok(()),
        _ => Err(format!(
            "{}: differs from {g}; actual {a}, heat map {h}\n{}{}",
            case.model,
            stdout(&o),
            stderr(&o)
        )),
    }
}

#[test]
#[ignore = "needs the Khronos sample models: PLUMB_ASSETS=../shared/assets cargo test --profile ci --test model_goldens -- --ignored"]
fn model_goldens() {
    let dir = temp_dir("models");
    let bless = std::env::var("PLUMB_BLESS").is_ok_and(|v| v == "1");
    let mut failures: Vec<String> = CASES
        .iter()
        .filter_map(|c| check(c, &dir, bless).err())
        .collect();
    // A golden no case renders is stale.
    let mut names: Vec<String> = std::fs::read_dir(repo().join("refimages/models"))
        .expect("refimages/models exists")
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".png"))
        .collect();
    names.sort();
    for n in names {
        if !CASES.iter().any(|c| format!("{}.png", c.name) == n) {
            failures.push(format!("refimages/models/{n}: golden without a case"));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} model goldens failed:\n{}",
        failures.len(),
        CASES.len(),
        failures.join("\n")
    );
}
