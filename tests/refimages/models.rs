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

/// One trial per model case (ignored where the models are not at hand, see the module
/// docs), and one that fails on a golden no case renders (stale), which needs no models.
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
