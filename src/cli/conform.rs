//! `plumb conform`: runs the golden corpus through a backend and writes a report (see
//! [`plumb::conform`]). Exit 0 when every case passes, 1 when one fails or errors, 2 on bad
//! input (a missing corpus, a malformed tolerance file, bad arguments).

use std::io::IsTerminal as _;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::Args;
use plumb::conform::shard::{self, PartitionSpec, Split};
use plumb::conform::{
    self, corpus, model_corpus, partition, report, run_case_with, Actual, Backend, Caps, Case,
    Exec, Status, Tolerance, Tolerances, MAX_GOLDEN_PIXELS,
};

use super::args::parse_threads;
use super::{say, CliResult, EXIT_COMPARISON_FAILED};

/// Arguments of `plumb conform`.
#[derive(Debug, Args)]
pub struct ConformArgs {
    /// The golden corpus: `<DIR>/<area>/<case>.json` + `.png`.
    #[arg(long, value_name = "DIR", default_value = "refimages")]
    pub refimages: PathBuf,
    /// The tolerance file (default `<refimages>/conform.json`; without one every case must
    /// be exact). plumb's own backend is always held to exact equality.
    #[arg(long, value_name = "FILE")]
    pub tolerances: Option<PathBuf>,
    /// Run each case through this command (`sh -c`); it writes a PNG to `{output}`.
    /// Placeholders: `{input}`, `{output}`, `{width}`, `{height}`, `{kind}` (scene, trace or
    /// model) and `{view}` (a model case's view as a JSON file, else empty). Each becomes a
    /// quoted reference to an environment variable ("$PLUMB_INPUT", "$PLUMB_OUTPUT", …), never
    /// the value itself, so no case or folder name is ever run as shell code; write
    /// placeholders unquoted, each is one argument. At `--timeout` the command's whole
    /// process group is killed.
    #[arg(long, value_name = "CMD", conflicts_with = "actual")]
    pub exec: Option<String>,
    /// The `--exec` program's capabilities file: `{"lacks": [FEATURE, …]}`. Cases needing a
    /// feature it lacks are skipped, not run. (A program can also answer per case: exit
    /// status 77 with `unsupported: FEATURE` as its last stderr line.)
    #[arg(long, value_name = "FILE", requires = "exec")]
    pub caps: Option<PathBuf>,
    /// Compare PNGs rendered elsewhere: `<DIR>/<area>/<case>.png`.
    #[arg(long, value_name = "DIR")]
    pub actual: Option<PathBuf>,
    /// Seconds an `--exec` command may run per case before it is killed.
    #[arg(long, value_name = "S", default_value_t = 300)]
    pub timeout: u64,
    /// Run only one shard. `K/N` or `count:K/N`: case i (sorted by id, from 0) goes to shard
    /// i mod N + 1, as `cargo nextest --partition count:K/N`. `auto`: K and N from the CI
    /// system's variables (PLUMB_SHARD=K/N; GitLab CI_NODE_INDEX/CI_NODE_TOTAL; CircleCI
    /// CIRCLE_NODE_INDEX/CIRCLE_NODE_TOTAL; Buildkite BUILDKITE_PARALLEL_JOB/
    /// BUILDKITE_PARALLEL_JOB_COUNT; Kubernetes JOB_COMPLETION_INDEX/JOB_COMPLETIONS).
    /// `weighted:K/N` or `weighted:auto`: shards balanced by the times in `--timings`.
    #[arg(long, value_name = "SPEC", value_parser = shard::parse_spec)]
    pub partition: Option<PartitionSpec>,
    /// The junit.xml of an earlier run, for `--partition weighted:…`: each case weighs its
    /// time there (a case it lacks weighs the median).
    #[arg(long, value_name = "JUNIT.xml")]
    pub timings: Option<PathBuf>,
    /// Measure instead of compare: render each case N times with the backend and write a
    /// tolerance file calibrated to it (`--calibrated`): per case the pixels over its
    /// threshold and the FLIP mean measured, with a margin, the numbers in each rule's reason;
    /// an exact match gives an exact rule. Then run the kit with `--tolerances` that file.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=100), conflicts_with_all = ["merge", "actual"])]
    pub calibrate: Option<u32>,
    /// Where `--calibrate` writes the tolerance file [default: <report>/conform.calibrated.json].
    #[arg(long, value_name = "FILE", requires = "calibrate")]
    pub calibrated: Option<PathBuf>,
    /// With `--merge`: the shards ran part of the corpus (`--filter`), so cases no shard ran
    /// are not an error. Without it a merge names the corpus's cases no shard ran and exits 1.
    #[arg(long, requires = "merge")]
    pub partial: bool,
    /// Run only the cases whose id (`area/case`) contains this.
    #[arg(long, value_name = "TEXT")]
    pub filter: Option<String>,
    /// Where the report goes (index.html, junit.xml, results.json, img/).
    #[arg(long, value_name = "DIR", default_value = "conform-report")]
    pub report: PathBuf,
    /// Merge the reports of these shard folders into `--report` instead of running.
    #[arg(long, value_name = "DIR", num_args = 1.., conflicts_with_all = ["exec", "actual", "partition", "filter", "timings"])]
    pub merge: Vec<PathBuf>,
    /// A copy of the shared assets (default: `$PLUMB_ASSETS`): the model goldens of
    /// `<refimages>/models/cases.json` whose model is there join the corpus.
    #[arg(long, value_name = "DIR")]
    pub assets: Option<PathBuf>,
    /// The in-process backend: `soft` (plumb itself, held to exact equality) or `wgpu`
    /// (plumb-wgpu on a Vulkan adapter; needs a build with `--features wgpu`).
    #[arg(long, value_name = "NAME", default_value = "soft", conflicts_with_all = ["exec", "actual"])]
    pub backend: String,
    /// Worker threads of plumb's own backend (0 or absent: all cores).
    #[arg(long, value_name = "N", value_parser = parse_threads)]
    pub threads: Option<usize>,
    /// Largest golden, in pixels: a case is drawn at its golden's size, so a larger golden is
    /// an error for its case, found from the PNG header before anything is drawn. At most
    /// 16384 x 16384.
    #[arg(long, value_name = "N", default_value_t = MAX_GOLDEN_PIXELS)]
    pub max_golden_pixels: u64,
}

/// Runs `plumb conform`.
pub fn run(args: &ConformArgs) -> CliResult {
    if !args.merge.is_empty() {
        return merge(args);
    }
    // The report (and an --exec backend's work folder under it) may not lead into the corpus
    // it is checked against (issue 50).
    plumb::safe_write::refuse_inside(&args.report, &args.refimages, "the corpus")?;
    let mut cases = load_corpus(args)?;
    if let Some(f) = &args.filter {
        cases.retain(|c| c.id.contains(f.as_str()));
    }
    if args.timings.is_some() && args.partition.is_none_or(|p| p.split != Split::Weighted) {
        return Err("--timings applies to --partition weighted:K/N or weighted:auto".to_owned());
    }
    if let Some(spec) = args.partition {
        cases = shard_cases(args, spec, cases)?;
    }
    if cases.is_empty() {
        return Err(format!(
            "{}: no cases to run (a case is <area>/<case>.json with its .png)",
            args.refimages.display()
        ));
    }
    let mut backend: Box<dyn Backend> = match (&args.exec, &args.actual) {
        (Some(cmd), _) => Box::new(Exec {
            template: cmd.clone(),
            work: args.report.join("actual"),
            timeout: Duration::from_secs(args.timeout.max(1)),
            lacks: match &args.caps {
                Some(path) => Caps::load(path).map_err(|e| e.to_string())?.lacks,
                None => Vec::new(),
            },
            unsupported: None,
        }),
        (None, Some(dir)) => Box::new(Actual { dir: dir.clone() }),
        (None, None) => in_process(&args.backend, args.threads)?,
    };
    if let Some(runs) = args.calibrate {
        return calibrate(args, backend.as_mut(), &cases, runs as usize);
    }
    let progress = std::io::stderr().is_terminal().then(|| {
        let bar = indicatif::ProgressBar::new(cases.len() as u64);
        bar.set_style(
            indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} cases {msg}")
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        bar
    });
    let mut results = Vec::with_capacity(cases.len());
    for case in &cases {
        if let Some(bar) = &progress {
            bar.set_message(case.id.clone());
        }
        results.push(run_case_with(
            case,
            backend.as_mut(),
            args.max_golden_pixels,
        ));
        if let Some(bar) = &progress {
            bar.inc(1);
        }
    }
    if let Some(bar) = progress {
        bar.finish_and_clear();
    }
    let written =
        report::write(&args.report, &backend.name(), &results).map_err(|e| e.to_string())?;
    for r in results.iter().filter(|r| r.status != Status::Pass) {
        let class = match (r.status, r.metrics.and_then(|m| m.class)) {
            (Status::Fail, Some(k)) => format!(" [{}]", k.as_str()),
            _ => String::new(),
        };
        say!(
            "{} {}{class}: {}",
            status_word(r.status),
            r.case.id,
            r.message
        );
    }
    Ok(summary(args, &written))
}

/// The corpus: every scene and trace case under `--refimages` with its tolerance, and the
/// model cases whose model is under `--assets` (or `$PLUMB_ASSETS`), sorted by id.
fn load_corpus(args: &ConformArgs) -> Result<Vec<Case>, String> {
    let tolerances = load_tolerances(args)?;
    let mut cases = corpus(&args.refimages, &tolerances).map_err(|e| e.to_string())?;
    let assets = args
        .assets
        .clone()
        .or_else(|| std::env::var_os("PLUMB_ASSETS").map(PathBuf::from));
    if let Some(assets) = assets {
        if !assets.is_dir() {
            return Err(format!("--assets {}: not a folder", assets.display()));
        }
        let (models, missing) =
            model_corpus(&args.refimages, &assets, &tolerances).map_err(|e| e.to_string())?;
        if !missing.is_empty() {
            say!(
                "{} model case(s) skipped, model not under {}: {}",
                missing.len(),
                assets.display(),
                missing.join(", ")
            );
        }
        cases.extend(models);
        cases.sort_by(|a, b| a.id.cmp(&b.id));
    }
    Ok(cases)
}

/// `--tolerances`, else `<refimages>/conform.json`, else exact equality for every case.
fn load_tolerances(args: &ConformArgs) -> Result<Tolerances, String> {
    let tolerance_file = args
        .tolerances
        .clone()
        .unwrap_or_else(|| args.refimages.join("conform.json"));
    if tolerance_file.is_file() || args.tolerances.is_some() {
        return Tolerances::load(&tolerance_file).map_err(|e| e.to_string());
    }
    Ok(Tolerances {
        format: "plumb-conform".to_owned(),
        version: 1,
        default: Tolerance {
            reason: "no tolerance file: exact".to_owned(),
            ..Tolerance::exact()
        },
        rules: Vec::new(),
        needs: Vec::new(),
    })
}

/// This job's shard of `cases` (`--partition`), saying where `auto` found it.
fn shard_cases(
    args: &ConformArgs,
    spec: PartitionSpec,
    cases: Vec<Case>,
) -> Result<Vec<Case>, String> {
    let (k, n) = match spec.shard {
        Some(kn) => kn,
        None => {
            let found = shard::detect(&|v| std::env::var(v).ok())?;
            say!("shard {}/{} from {}", found.k, found.n, found.source);
            (found.k, found.n)
        }
    };
    match spec.split {
        Split::Count => partition(cases, k, n).map_err(|e| e.to_string()),
        Split::Weighted => {
            let Some(path) = &args.timings else {
                return Err(
                    "--partition weighted:… needs --timings JUNIT.xml (an earlier run's report)"
                        .to_owned(),
                );
            };
            let times = shard::read_timings(path).map_err(|e| e.to_string())?;
            shard::weighted(cases, k, n, &times).map_err(|e| e.to_string())
        }
    }
}

/// `--merge`: one report from the shard folders, checked against the corpus — every case
/// in exactly one shard (a case in two is an error from the merge itself); cases no shard
/// ran fail the merge (exit 1) unless `--partial`.
fn merge(args: &ConformArgs) -> CliResult {
    let results = report::merge(&args.merge, &args.report).map_err(|e| e.to_string())?;
    let code = summary(args, &results);
    let corpus = match load_corpus(args) {
        Ok(c) => c,
        Err(_) if args.partial => return Ok(code),
        Err(e) => {
            return Err(format!(
                "{e} (the merge checks that the shards covered the corpus; pass --partial to skip)"
            ))
        }
    };
    let ran: std::collections::BTreeSet<&str> =
        results.cases.iter().map(|c| c.id.as_str()).collect();
    let known: std::collections::BTreeSet<&str> = corpus.iter().map(|c| c.id.as_str()).collect();
    let extra: Vec<&str> = ran.difference(&known).copied().collect();
    if !extra.is_empty() {
        say!(
            "{} case(s) of the shards are not in the corpus at {}: {}",
            extra.len(),
            args.refimages.display(),
            extra.join(", ")
        );
    }
    let missing: Vec<&str> = known.difference(&ran).copied().collect();
    if missing.is_empty() {
        say!(
            "coverage: every one of the corpus's {} cases ran in exactly one shard",
            known.len()
        );
        return Ok(code);
    }
    say!(
        "coverage: {} of the corpus's {} cases ran in no shard: {}",
        missing.len(),
        known.len(),
        missing.join(", ")
    );
    if args.partial {
        say!("(--partial: not an error)");
        Ok(code)
    } else {
        Ok(ExitCode::from(EXIT_COMPARISON_FAILED))
    }
}

/// `--calibrate N`: measures every case N times and writes the calibrated tolerance file.
fn calibrate(
    args: &ConformArgs,
    backend: &mut dyn Backend,
    cases: &[Case],
    runs: usize,
) -> CliResult {
    let name = backend.name();
    let out = args
        .calibrated
        .clone()
        .unwrap_or_else(|| args.report.join("conform.calibrated.json"));
    // Refused before anything is measured: the file may not lead into the corpus (a golden,
    // a case file) or onto the tolerance file read (issue 50: `--calibrated` naming a golden
    // replaced it).
    plumb::safe_write::refuse_inside(&out, &args.refimages, "the corpus")?;
    if let Some(t) = &args.tolerances {
        plumb::safe_write::refuse_inside(&out, t, "the tolerance file")?;
    }
    let measured =
        conform::calibrate::measure(cases, backend, runs, args.max_golden_pixels, |_, _| {});
    let base = load_tolerances(args)?;
    let file = conform::calibrate::tolerances(&base, &measured, &name);
    if let Some(parent) = out.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
    }
    let text = serde_json::to_string_pretty(&file).map_err(|e| e.to_string())?;
    plumb::safe_write::write_replacing(&out, (text + "\n").as_bytes())?;
    let errors: Vec<&conform::calibrate::Measured> =
        measured.iter().filter(|m| m.error.is_some()).collect();
    for m in &errors {
        say!(
            "ERROR {}: {} (no rule: it keeps the file's)",
            m.id,
            m.error.as_deref().unwrap_or("")
        );
    }
    let exact = measured
        .iter()
        .filter(|m| m.error.is_none() && m.max_delta == 0)
        .count();
    say!(
        "calibrated {} cases from {runs} run(s) each of {name}: {exact} exact, {} within measured tolerances, {} failed to render; wrote {}",
        measured.len(),
        measured.len() - exact - errors.len(),
        errors.len(),
        out.display()
    );
    Ok(if errors.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(EXIT_COMPARISON_FAILED)
    })
}

/// The `--backend` by name.
fn in_process(name: &str, threads: Option<usize>) -> Result<Box<dyn Backend>, String> {
    match name {
        "soft" => Ok(Box::new(conform::soft(threads))),
        #[cfg(feature = "wgpu")]
        "wgpu" => {
            plumb_wgpu::adapter_info().map_err(|e| format!("--backend wgpu: {e}"))?;
            Ok(Box::new(conform::gpu::wgpu()))
        }
        #[cfg(not(feature = "wgpu"))]
        "wgpu" => Err(
            "--backend wgpu: this plumb was built without the GPU backend; build with \
             `cargo build --release --features wgpu`"
                .to_owned(),
        ),
        other => Err(format!("--backend {other}: expected soft or wgpu")),
    }
}

fn status_word(s: Status) -> &'static str {
    match s {
        Status::Pass => "PASS",
        Status::Fail => "FAIL",
        Status::Error => "ERROR",
        Status::Skip => "SKIP",
    }
}

fn summary(args: &ConformArgs, results: &report::Results) -> ExitCode {
    let (pass, fail, error) = results.counts();
    let skipped = results.skipped();
    let classes = results.failures_by_class();
    let classes = if classes.is_empty() {
        String::new()
    } else {
        format!(" ({})", report::class_counts(&classes))
    };
    say!(
        "{} cases: {pass} passed, {fail} failed{classes}, {error} errors, {skipped} skipped ({}); report in {}",
        results.cases.len(),
        results.backend,
        args.report.join("index.html").display()
    );
    if fail + error == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(EXIT_COMPARISON_FAILED)
    }
}
