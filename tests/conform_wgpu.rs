//! The whole conformance corpus through plumb-wgpu (feature `wgpu`), with the model cases when
//! the shared assets are present (`$PLUMB_ASSETS`, else `../shared/assets`): every case must
//! pass its tolerance from `refimages/conform.json`. Writes the report to `target/conform-wgpu/` and
//! prints the pass rate and each case's FLIP mean. Skips with a message when there is no
//! Vulkan adapter, unless `PLUMB_REQUIRE_GPU=1` (CI), where it fails.

use std::path::{Path, PathBuf};

use plumb::conform::{self, corpus, model_corpus, report, run_case, Backend, Status, Tolerances};

#[test]
fn every_case_passes_its_tolerance_on_wgpu() {
    if let Err(e) = plumb_wgpu::adapter_info() {
        // Only a missing adapter skips; a shader or device failure fails.
        assert!(e.to_string().contains("no Vulkan adapter"), "wgpu: {e}");
        if std::env::var("PLUMB_REQUIRE_GPU").is_ok_and(|v| v == "1") {
            panic!("PLUMB_REQUIRE_GPU=1 but no adapter: {e}");
        }
        eprintln!("SKIPPED: no Vulkan adapter ({e}); set PLUMB_REQUIRE_GPU=1 to fail instead");
        return;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let refimages = root.join("refimages");
    let tolerances = Tolerances::load(&refimages.join("conform.json")).expect("tolerances");
    let mut cases = corpus(&refimages, &tolerances).expect("corpus");
    match assets() {
        Some(assets) => {
            let (models, missing) =
                model_corpus(&refimages, &assets, &tolerances).expect("model corpus");
            assert!(missing.is_empty(), "models missing from {assets:?}: {missing:?}");
            cases.extend(models);
        }
        None => eprintln!("model cases skipped: no shared assets (set PLUMB_ASSETS)"),
    }
    if let Ok(f) = std::env::var("PLUMB_CONFORM_FILTER") {
        cases.retain(|c| c.id.contains(f.as_str()));
    }
    assert!(!cases.is_empty(), "empty corpus");
    let mut backend = conform::gpu::wgpu();
    let results: Vec<_> = cases.iter().map(|c| run_case(c, &mut backend)).collect();
    let dir: PathBuf = root.join("target/conform-wgpu");
    let _ = std::fs::remove_dir_all(&dir);
    let written = report::write(&dir, &backend.name(), &results).expect("report");
    let (pass, fail, error) = written.counts();
    println!("backend: {}", backend.name());
    for r in &results {
        let m = r.metrics.map_or_else(
            || "no image".to_owned(),
            |m| {
                format!(
                    "flip mean {:.5}, max delta {:3}, over {}",
                    m.flip_mean, m.max_delta, m.pixels_over
                )
            },
        );
        println!(
            "{:<7} {:<48} {m}  {}",
            format!("{:?}", r.status),
            r.case.id,
            r.message
        );
    }
    let total = results.len();
    println!(
        "wgpu conformance: {pass}/{total} passed ({:.1}%), {fail} failed, {error} errors; report in {}",
        100.0 * pass as f64 / total as f64,
        dir.join("index.html").display()
    );
    let bad: Vec<_> = results
        .iter()
        .filter(|r| r.status != Status::Pass)
        .map(|r| format!("{} ({})", r.case.id, r.message))
        .collect();
    assert!(
        bad.is_empty(),
        "{} case(s) fail on wgpu:\n{}",
        bad.len(),
        bad.join("\n")
    );
}

/// A copy of the shared assets: `$PLUMB_ASSETS`, else `../shared/assets` beside the
/// repository.
fn assets() -> Option<PathBuf> {
    let candidates = [
        std::env::var_os("PLUMB_ASSETS").map(PathBuf::from),
        Some(Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/assets")),
    ];
    candidates
        .into_iter()
        .flatten()
        .find(|p| p.join("gltf/khronos").is_dir())
}
