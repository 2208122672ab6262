//! Goldens of real glTF sample models (Khronos glTF Sample Assets), rendered the way a user
//! renders them: by the built `plumb render` binary, with the views listed in
//! `refimages/models/cases.json` (as `plumb render` options, [`plumb::model::ModelView`]).
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

#[test]
#[ignore = "needs the Khronos sample models: PLUMB_ASSETS=../shared/assets cargo test --profile ci --test model_goldens -- --ignored"]
fn model_goldens() {
    let dir = temp_dir("models");
    let bless = std::env::var("PLUMB_BLESS").is_ok_and(|v| v == "1");
    let cases = cases();
    let mut failures: Vec<String> = cases
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
        if !cases.iter().any(|c| format!("{}.png", c.name) == n) {
            failures.push(format!("refimages/models/{n}: golden without a case"));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} model goldens failed:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}
