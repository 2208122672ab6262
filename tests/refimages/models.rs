//! Goldens of real glTF sample models (Khronos glTF Sample Assets), rendered the way a user
//! renders them: by the built `plumb render` binary, with the views listed in
//! `refimages/models/cases.json` (as `plumb render` options, [`plumb::model::ModelView`]).
//! Each render is made with `--threads 1` and `--threads 2` (the files must be identical) and
//! compared with `refimages/models/<case>.png` by `plumb diff` at threshold 0 (bit for bit).
//! One trial per case, `models::<case>`, plus `models::every_golden_has_a_case`.
//!
//! The models are third-party files that may not be committed (`shared/assets/LICENSES.md`:
//! fetched data stays in `shared/`). The trials look for them in `$PLUMB_ASSETS`, else in
//! `../shared/assets` beside the repository; where neither holds them the trials are
//! *ignored* (a fresh clone has no models), and `-- --ignored models::` then fails each one
//! with the paths it tried. The goldens are plumb's own renders, committed with the models'
//! attribution (`refimages/models/ATTRIBUTION.md`):
//!
//! ```text
//! PLUMB_ASSETS=../shared/assets cargo test --profile ci --test refimages -- models::
//! ```
//!
//! `PLUMB_BLESS=1` writes the goldens instead of comparing: open each one beside the model's
//! `screenshot/` image before committing it.

use std::path::{Path, PathBuf};

use libtest_mimic::{Failed, Trial};

use crate::assets_common::shared_assets;
use crate::cli_common::*;
use plumb::conform::{ModelCase, ModelCases};

/// Every model case (`refimages/models/cases.json`, the list the conformance kit reads too);
/// each is described in `refimages/README.md` (section `models/`).
fn cases() -> Vec<ModelCase> {
    ModelCases::load(&repo().join("refimages/models/cases.json"))
        .expect("refimages/models/cases.json is valid")
        .cases
}

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The model's glTF file ([`ModelCases::model_path`]) under `$PLUMB_ASSETS`, else under
/// `../shared/assets` beside the repository.
fn model_path(model: &str) -> Result<PathBuf, String> {
    let mut tried = Vec::new();
    if let Ok(dir) = std::env::var("PLUMB_ASSETS") {
        tried.push(ModelCases::model_path(Path::new(&dir), model));
    }
    tried.push(ModelCases::model_path(
        &repo().join("../shared/assets"),
        model,
    ));
    // Absolute, because `plumb` runs in a scratch directory.
    tried.iter().find_map(|p| p.canonicalize().ok()).ok_or_else(|| {
        format!("{model}: model not found; tried {tried:?} (set PLUMB_ASSETS to a copy of shared/assets)")
    })
}

/// Renders one case and checks it; `Err` describes the failure.
fn check(case: &ModelCase, dir: &Path, bless: bool) -> Result<(), String> {
    let model = model_path(&case.model)?;
    let model = model.to_string_lossy().into_owned();
    let mut outs = Vec::new();
    for threads in ["1", "2"] {
        let out = dir.join(format!("{}-{threads}.png", case.name));
        let out_s = out.to_string_lossy().into_owned();
        let view = case.view.cli_args();
        let mut args = vec!["render", model.as_str(), "-o", &out_s, "--threads", threads];
        args.extend(view.iter().map(String::as_str));
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

/// Compressed files against their uncompressed originals (issue 28): the case's view rendered
/// from the case's model and from the original, compared by `plumb diff` with these
/// arguments. Why each tolerance is what it is:
/// * Box-Draco: bit for bit. Draco puts the corners at ±0.50049 instead of ±0.5, a uniform
///   scale that the framing rule (which frames the model's bounds) takes out again.
/// * Duck-Draco: the file's own camera, so the scale stays, and the stream's positions,
///   normals and texture coordinates are quantized. Measured: 1,278 of 76,800 pixels differ,
///   all but 6 by at most 16 levels (shading and texel lookups moved a little); those 6
///   are specular highlight pixels (up to 167 levels); mean perceptual error 0.00095. The
///   bounds allow about three times the highlight pixels and twice the mean.
const AGAINST_THE_ORIGINAL: &[(&str, &str, &[&str])] = &[
    ("Box-Draco", "Box", &["--threshold", "0"]),
    (
        "Duck-Draco",
        "Duck",
        &[
            "--threshold",
            "16",
            "--max-pixels",
            "20",
            "--max-mean",
            "0.002",
        ],
    ),
];

/// Renders `case`'s view of its model and of `original`, and diffs them with `diff_args`.
fn against_the_original(
    case: &ModelCase,
    original: &str,
    diff_args: &[&str],
    dir: &Path,
) -> Result<(), String> {
    let mut outs = Vec::new();
    for model in [case.model.as_str(), original] {
        let path = model_path(model)?.to_string_lossy().into_owned();
        let out = dir
            .join(format!("{}.png", model.replace('/', "-")))
            .to_string_lossy()
            .into_owned();
        let view = case.view.cli_args();
        let mut args = vec!["render", path.as_str(), "-o", &out];
        args.extend(view.iter().map(String::as_str));
        let o = plumb(dir, &args);
        if o.status.code() != Some(0) {
            return Err(format!("{model}: plumb render failed: {}", stderr(&o)));
        }
        outs.push(out);
    }
    let heat = dir.join("heat.png").to_string_lossy().into_owned();
    let mut args = vec!["diff", outs[1].as_str(), outs[0].as_str(), "--out", &heat];
    args.extend_from_slice(diff_args);
    let o = plumb(dir, &args);
    match o.status.code() {
        Some(0) => Ok(()),
        _ => Err(format!(
            "{}: differs from {original} beyond {diff_args:?}; heat map {heat}\n{}{}",
            case.model,
            stdout(&o),
            stderr(&o)
        )),
    }
}

/// One trial per model case (ignored where the models are not at hand, see the module
/// docs), one per compressed file against its original ([`AGAINST_THE_ORIGINAL`]), and one
/// that fails on a golden no case renders (stale), which needs no models.
pub fn trials() -> Vec<Trial> {
    let cases = cases();
    let have_models = shared_assets().is_some();
    let mut trials: Vec<Trial> = cases
        .iter()
        .map(|case| {
            let case = case.clone();
            let name = format!("models::{}", case.name);
            Trial::test(name, move || {
                let dir = temp_dir(&format!("models-{}", case.name));
                check(&case, &dir, bless()).map_err(Failed::from)
            })
            .with_ignored_flag(!have_models)
        })
        .collect();
    for &(name, original, diff_args) in AGAINST_THE_ORIGINAL {
        let case = cases
            .iter()
            .find(|c| c.name == name)
            .cloned()
            .expect("AGAINST_THE_ORIGINAL names a case");
        let trial = format!("models::{name}::against_the_original");
        trials.push(
            Trial::test(trial, move || {
                let dir = temp_dir(&format!("models-{name}-original"));
                against_the_original(&case, original, diff_args, &dir).map_err(Failed::from)
            })
            .with_ignored_flag(!have_models),
        );
    }
    trials.push(Trial::test("models::every_golden_has_a_case", move || {
        let mut names: Vec<String> = std::fs::read_dir(repo().join("refimages/models"))
            .map_err(|e| format!("refimages/models: {e}"))?
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".png"))
            .collect();
        names.sort();
        let stale: Vec<String> = names
            .into_iter()
            .filter(|n| !cases.iter().any(|c| format!("{}.png", c.name) == *n))
            .map(|n| format!("refimages/models/{n}: golden without a case"))
            .collect();
        if stale.is_empty() {
            Ok(())
        } else {
            Err(stale.join("\n").into())
        }
    }));
    trials
}

fn bless() -> bool {
    std::env::var("PLUMB_BLESS").is_ok_and(|v| v == "1")
}
