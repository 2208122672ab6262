//! The conformance kit: plumb's golden cases as a test corpus for **other** backends.
//!
//! A team writing a GPU backend runs every golden case through it, compares each image with
//! plumb's golden ([`crate::diff`]) under a per-case tolerance with a reason, and gets a
//! report ([`report`]): an HTML folder, JUnit XML and a `results.json` that shards merge
//! from. Three ways in:
//!
//! 1. **In process** — [`InProcess`]: any type implementing the scene
//!    [`Renderer`] (scene cases) and the raster
//!    [`DrawTarget`] (trace cases), plus [`ReadBack`].
//!    [`soft`] is plumb itself, held to exact equality.
//! 2. **Out of process** — [`Exec`]: a command per case, `{input} {output} {width} {height}
//!    {kind} {view}` substituted (`plumb conform --exec`).
//! 3. **Offline** — [`Actual`]: PNGs rendered elsewhere, `DIR/<area>/<case>.png`
//!    (`plumb conform --actual`).
//!
//! # The corpus
//!
//! Every `refimages/<area>/<case>.json` with its `<case>.png`: a scene file (format
//! `plumb-scene`: loaded, drawn from its first camera at the golden's size — exactly how the
//! goldens are made, alpha as the pipeline wrote it) or a draw trace (format `plumb-draws` with its `.bin`, replayed into a target of
//! the trace's size). Cases the golden test draws from Rust code only have no file and are
//! not in the corpus.
//!
//! With a copy of the shared assets ([`model_corpus`], `plumb conform --assets DIR`), the
//! model goldens join: `refimages/models/cases.json` lists each `models/<name>.png` with its
//! glTF model and the `plumb render` view that made it ([`ModelView`]: size, time, clip,
//! camera overrides, background); a backend draws it as `plumb render` does
//! ([`crate::model`]: imported materials mapped, the default light rig, the framing rule).
//! Cases are sorted by id (`area/case`).
//!
//! # Tolerances
//!
//! `refimages/conform.json` ([`Tolerances`]) holds rules `{cases, threshold, max_pixels,
//! max_flip_mean, reason}`; the first rule whose glob (`*` matches any run of characters)
//! matches a case's id applies, else the file's `default`. A case **passes** when at most
//! `max_pixels` pixels have a channel differing by more than `threshold` **and**, when any
//! pixel does, the FLIP-style perceptual mean is at most `max_flip_mean`: an image whose every
//! pixel is within the threshold passes whatever its mean (rounding spread over many pixels,
//! which GL and Vulkan allow, must not fail a case). An exact backend (plumb itself) ignores
//! the file: every pixel must be equal.
//!
//! # Sharding
//!
//! [`partition`] splits the sorted corpus as `cargo nextest --partition count:K/N` does:
//! the i-th case (from 0) goes to shard `i mod N + 1`. [`report::merge`] joins the shards'
//! `results.json` into one report.

pub mod calibrate;
pub mod report;
pub mod shard;

/// The wgpu backend (feature `wgpu`).
#[cfg(feature = "wgpu")]
pub mod gpu;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use image::RgbaImage;
use serde::{Deserialize, Serialize};

use crate::diff::{compare, DiffOptions};
use crate::model::ModelView;
use crate::raster::trace::{is_trace_file, DrawTarget, Trace};
use crate::raster::{Context, ContextOptions};
use crate::scene::io::{self, ImportOptions};
use crate::scene::{FixedRenderer, Renderer, SoftRenderer};

/// What a case's input file is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CaseKind {
    /// A scene file, drawn through the scene [`Renderer`].
    Scene,
    /// A draw trace, replayed into a [`DrawTarget`].
    Trace,
    /// A third-party model (glTF) drawn as `plumb render` draws it with the case's
    /// [`ModelView`] ([`crate::model`]).
    Model,
}

impl CaseKind {
    /// `scene`, `trace` or `model` (the `{kind}` of [`Exec`]).
    pub fn as_str(self) -> &'static str {
        match self {
            CaseKind::Scene => "scene",
            CaseKind::Trace => "trace",
            CaseKind::Model => "model",
        }
    }
}

/// How close a backend's image must be to the golden.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Tolerance {
    /// A pixel is over when one channel differs by more than this (0..=255).
    pub threshold: u8,
    /// How many pixels may be over.
    pub max_pixels: u64,
    /// Largest allowed FLIP-style perceptual mean (0 = identical, 1 = everything wrong).
    pub max_flip_mean: f64,
    /// Why this tolerance: which rule of the other backend's API makes pixels differ.
    pub reason: String,
}

impl Tolerance {
    /// Exact equality (plumb itself).
    pub fn exact() -> Tolerance {
        Tolerance {
            threshold: 0,
            max_pixels: 0,
            max_flip_mean: 0.0,
            reason: "plumb itself: bit-exact".to_owned(),
        }
    }
}

/// One tolerance rule of `conform.json`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ToleranceRule {
    /// Glob over case ids (`area/case`); `*` matches any run of characters.
    pub cases: String,
    /// The tolerance of the matching cases.
    #[serde(flatten)]
    pub tolerance: Tolerance,
}

/// The tolerance file (`refimages/conform.json`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Tolerances {
    /// Always `plumb-conform`.
    pub format: String,
    /// Always 1.
    pub version: u32,
    /// For cases no rule matches.
    pub default: Tolerance,
    /// First match wins.
    #[serde(default)]
    pub rules: Vec<ToleranceRule>,
    /// What cases need beyond the baseline (the fixed-function pipeline of GL 1.x with
    /// plumb's documented conventions); every rule that matches a case adds its features.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub needs: Vec<NeedsRule>,
}

/// One rule of `conform.json`'s `needs`: the cases of a glob use these features.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NeedsRule {
    /// Glob over case ids.
    pub cases: String,
    /// Features, each one of [`FEATURES`].
    pub features: Vec<String>,
}

/// The features a case may need beyond the baseline, with what each is. A backend that
/// lacks one skips the cases that need it ([`Backend::supports`], [`Status::Skip`]).
pub const FEATURES: &[(&str, &str)] = &[
    (
        "pbr",
        "glTF's metallic-roughness BRDF per pixel (plumb render --shading pbr; DrawTarget::draw_pbr)",
    ),
    (
        "per_pixel_lighting",
        "the fixed-function lighting equation per pixel (FixedFunction::per_pixel_lighting); GL 1.x lights vertices",
    ),
    (
        "light_range",
        "a point or spot light's range with its smooth window (Light::range, glTF's range); GL lights reach everywhere",
    ),
    (
        "spot_inner_cone",
        "a spot light's inner cone with a smooth ramp (Light::spot_inner_deg, glTF's); GL's cone is hard",
    ),
    (
        "spot_cutoff_over_90",
        "a spot cutoff between 90° and 180° (GL allows 0–90 or 180)",
    ),
    (
        "spot_exponent_over_128",
        "a spot exponent over 128 (GL allows 0–128)",
    ),
    (
        "shininess_over_128",
        "a specular exponent over 128 (GL allows 0–128)",
    ),
    (
        "combine_scale",
        "a combiner scale other than 1, 2 or 4 (GL allows only those)",
    ),
    (
        "dot3_alpha",
        "DOT3 as the alpha combiner's function (GL allows it for RGB only)",
    ),
];

/// The features of [`FEATURES`] a recorded frame uses, found from its draw calls: what a
/// GL 1.x backend cannot express (the same tests `backends/gl/plumb_gl.py` makes per draw).
/// The corpus declares each case's needs once, in `conform.json`; a test checks that every
/// scene and trace case declares exactly what its draws use. (`pbr` draws cannot be
/// recorded yet, so `pbr` is never found here.)
pub fn features_of(
    doc: &crate::raster::trace::TraceDoc,
) -> std::collections::BTreeSet<&'static str> {
    use crate::raster::combine::{ApplyMode, CombineFn};
    use crate::raster::light::LightKind;
    use crate::raster::trace::CommandDoc;
    let mut out = std::collections::BTreeSet::new();
    for cmd in &doc.commands {
        let CommandDoc::DrawFixed(d) = cmd else {
            continue;
        };
        if let Some(lighting) = &d.fixed.lighting {
            if d.fixed.per_pixel_lighting {
                out.insert("per_pixel_lighting");
            }
            for light in lighting.lights.iter().flatten().filter(|l| l.on) {
                if light.range.is_some() {
                    out.insert("light_range");
                }
                if let LightKind::Spot {
                    cutoff_deg,
                    exponent,
                    ..
                } = light.kind
                {
                    if light.spot_inner_deg.is_some() {
                        out.insert("spot_inner_cone");
                    }
                    if cutoff_deg > 90.0 && cutoff_deg < 180.0 {
                        out.insert("spot_cutoff_over_90");
                    }
                    if exponent > 128.0 {
                        out.insert("spot_exponent_over_128");
                    }
                }
            }
            if lighting.material.shininess > 128.0 {
                out.insert("shininess_over_128");
            }
        }
        for unit in &d.fixed.units {
            if let ApplyMode::Combine(c) = &unit.apply {
                if ![1.0, 2.0, 4.0].contains(&c.rgb_scale)
                    || ![1.0, 2.0, 4.0].contains(&c.alpha_scale)
                {
                    out.insert("combine_scale");
                }
                if matches!(c.alpha, CombineFn::Dot3Rgb | CombineFn::Dot3Rgba) {
                    out.insert("dot3_alpha");
                }
            }
        }
    }
    out
}

/// Whether `name` is one of [`FEATURES`].
pub fn is_feature(name: &str) -> bool {
    FEATURES.iter().any(|(f, _)| *f == name)
}

impl Tolerances {
    /// Reads and checks a tolerance file.
    ///
    /// # Errors
    /// [`ConformError`] naming the file, and the line and column of a syntax error.
    pub fn load(path: &Path) -> Result<Tolerances, ConformError> {
        let t: Tolerances = read_json_list(path)?;
        let bad = |m: String| Err(ConformError(format!("{}: {m}", path.display())));
        if t.format != "plumb-conform" || t.version != 1 {
            return bad(format!(
                "expected format \"plumb-conform\" version 1, got \"{}\" version {}",
                t.format, t.version
            ));
        }
        for (what, tol) in std::iter::once(("default", &t.default))
            .chain(t.rules.iter().map(|r| (r.cases.as_str(), &r.tolerance)))
        {
            if !(tol.max_flip_mean.is_finite() && (0.0..=1.0).contains(&tol.max_flip_mean)) {
                return bad(format!("{what}: max_flip_mean must be in [0, 1]"));
            }
            if tol.reason.trim().is_empty() {
                return bad(format!("{what}: every tolerance needs a reason"));
            }
        }
        for r in &t.needs {
            if let Some(f) = r
                .features
                .iter()
                .find(|f| !FEATURES.iter().any(|k| k.0 == *f))
            {
                let known: Vec<&str> = FEATURES.iter().map(|k| k.0).collect();
                return bad(format!(
                    "needs {}: unknown feature {f:?} (known: {})",
                    r.cases,
                    known.join(", ")
                ));
            }
        }
        Ok(t)
    }

    /// The features case `id` needs by the `needs` rules, sorted, without repeats.
    pub fn needs_of(&self, id: &str) -> Vec<String> {
        let mut f: Vec<String> = self
            .needs
            .iter()
            .filter(|r| glob(&r.cases, id))
            .flat_map(|r| r.features.iter().cloned())
            .collect();
        f.sort();
        f.dedup();
        f
    }

    /// The tolerance of case `id`.
    pub fn for_case(&self, id: &str) -> &Tolerance {
        self.rules
            .iter()
            .find(|r| glob(&r.cases, id))
            .map_or(&self.default, |r| &r.tolerance)
    }
}

/// `*` matches any run of characters (including none); everything else matches itself.
pub fn glob(pattern: &str, text: &str) -> bool {
    let parts: Vec<&str> = pattern.split('*').collect();
    let (first, rest) = parts.split_first().unwrap_or((&"", &[]));
    let Some(mut left) = text.strip_prefix(first) else {
        return false;
    };
    let Some((last, middle)) = rest.split_last() else {
        return left.is_empty();
    };
    for part in middle {
        match left.find(part) {
            Some(i) => left = &left[i + part.len()..],
            None => return false,
        }
    }
    left.len() >= last.len() && left.ends_with(last)
}

/// A kit error: bad input (a missing corpus, a malformed tolerance file, bad arguments).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConformError(pub String);

impl ConformError {
    fn io(path: &Path, e: &std::io::Error) -> ConformError {
        ConformError(format!("{}: {e}", path.display()))
    }
}

impl std::fmt::Display for ConformError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ConformError {}

/// One case of the corpus.
#[derive(Clone, Debug, PartialEq)]
pub struct Case {
    /// `area/case`.
    pub id: String,
    /// The folder under `refimages/`.
    pub area: String,
    /// The file stem.
    pub name: String,
    /// Scene file or draw trace.
    pub kind: CaseKind,
    /// The scene file or trace JSON.
    pub input: PathBuf,
    /// The golden PNG.
    pub golden: PathBuf,
    /// The tolerance for non-exact backends.
    pub tolerance: Tolerance,
    /// A model case's view (`None` for scene files and traces).
    pub view: Option<ModelView>,
    /// Features beyond the baseline ([`FEATURES`]): from `conform.json`'s `needs`, and for
    /// a model case from its view (`"shading": "pbr"` needs `pbr`).
    pub needs: Vec<String>,
}

/// The corpus under `refimages` (sorted by id), with tolerances from `tolerances`.
///
/// # Errors
/// [`ConformError`] when the folder cannot be read.
pub fn corpus(refimages: &Path, tolerances: &Tolerances) -> Result<Vec<Case>, ConformError> {
    let mut cases = Vec::new();
    let read = |p: &Path| std::fs::read_dir(p).map_err(|e| ConformError::io(p, &e));
    for area in read(refimages)? {
        let area = area.map_err(|e| ConformError::io(refimages, &e))?.path();
        if !area.is_dir() {
            continue;
        }
        let Some(area_name) = area.file_name().and_then(|n| n.to_str()) else {
            continue;
        };
        for file in read(&area)? {
            let input = file.map_err(|e| ConformError::io(&area, &e))?.path();
            let golden = input.with_extension("png");
            if input.extension().and_then(|e| e.to_str()) != Some("json") || !golden.is_file() {
                continue;
            }
            let Some(name) = input.file_stem().and_then(|n| n.to_str()) else {
                continue;
            };
            let id = format!("{area_name}/{name}");
            let kind = if is_trace_file(&input) {
                CaseKind::Trace
            } else {
                CaseKind::Scene
            };
            cases.push(Case {
                tolerance: tolerances.for_case(&id).clone(),
                needs: tolerances.needs_of(&id),
                id,
                area: area_name.to_owned(),
                name: name.to_owned(),
                kind,
                input,
                golden,
                view: None,
            });
        }
    }
    cases.sort_by(|a, b| a.id.cmp(&b.id));
    Ok(cases)
}

/// The model goldens' list, `refimages/models/cases.json`: each golden of a third-party
/// model with the `plumb render` view that made it (`tests/refimages/models.rs` renders them
/// through the binary; the kit through any backend).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelCases {
    /// Always `plumb-model-cases`.
    pub format: String,
    /// Always 1.
    pub version: u32,
    /// The cases, in file order.
    pub cases: Vec<ModelCase>,
}

/// One model golden: `refimages/models/<name>.png`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelCase {
    /// The golden's file stem.
    pub name: String,
    /// The model: a folder of `gltf/khronos/` in the assets (`<model>/<variant>`, e.g.
    /// `AnimatedMorphCube/glTF-Quantized`, picks a variant folder instead of `glTF`).
    pub model: String,
    /// Why the case exists (what it shows).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// How it is drawn.
    pub view: ModelView,
}

impl ModelCases {
    /// Reads and checks the list.
    ///
    /// # Errors
    /// [`ConformError`] naming the file, and the line and column of a syntax error.
    pub fn load(path: &Path) -> Result<ModelCases, ConformError> {
        let text = read_list(path)?;
        let m: ModelCases = serde_json::from_str(&text).map_err(|e| {
            ConformError(format!(
                "{}:{}:{}: {e}",
                path.display(),
                e.line(),
                e.column()
            ))
        })?;
        if m.format != "plumb-model-cases" || m.version != 1 {
            return Err(ConformError(format!(
                "{}: expected format \"plumb-model-cases\" version 1",
                path.display()
            )));
        }
        for c in &m.cases {
            let parts: Vec<&str> = c.model.split('/').collect();
            if parts.len() > 2 || !parts.iter().all(|p| is_plain_name(p)) || !is_plain_name(&c.name)
            {
                return Err(ConformError(format!(
                    "{}: case {:?} (model {:?}): names must be plain file names (`Model` or \
                     `Model/variant`; no `..`, `/`, `\\`, `:`, control characters)",
                    path.display(),
                    c.name,
                    c.model
                )));
            }
            let [w, h] = c.view.size;
            if w == 0 || h == 0 || w > 16384 || h > 16384 {
                return Err(ConformError(format!(
                    "{}: case {}: size {w}x{h} out of range",
                    path.display(),
                    c.name
                )));
            }
        }
        Ok(m)
    }

    /// The glTF file of `model` under the assets folder:
    /// `gltf/khronos/<name>/<variant>/<name>.gltf` (variant `glTF` unless `model` names one;
    /// a variant folder holding only `<name>.glb`, as `glTF-Binary` does, gives that file).
    pub fn model_path(assets: &Path, model: &str) -> PathBuf {
        let (name, variant) = model.split_once('/').unwrap_or((model, "glTF"));
        let dir = assets.join("gltf/khronos").join(name).join(variant);
        let gltf = dir.join(format!("{name}.gltf"));
        let glb = dir.join(format!("{name}.glb"));
        if !gltf.exists() && glb.exists() {
            glb
        } else {
            gltf
        }
    }
}

/// A name `cases.json` may use as one path component: not empty, not `.` or `..`, without
/// `/`, `\\`, `:` (URL schemes, drives) or control characters.
fn is_plain_name(s: &str) -> bool {
    !s.is_empty()
        && s != "."
        && s != ".."
        && !s
            .chars()
            .any(|c| matches!(c, '/' | '\\' | ':') || c.is_control())
}

/// The model cases of `refimages/models/cases.json` whose model is under `assets` (a copy of
/// the shared assets), as corpus cases `models/<name>` with tolerances from `tolerances`,
/// sorted by id; and the ids of cases skipped because their model is missing.
///
/// # Errors
/// [`ConformError`] for an unreadable or malformed list.
pub fn model_corpus(
    refimages: &Path,
    assets: &Path,
    tolerances: &Tolerances,
) -> Result<(Vec<Case>, Vec<String>), ConformError> {
    let dir = refimages.join("models");
    let list = ModelCases::load(&dir.join("cases.json"))?;
    let (mut cases, mut missing) = (Vec::new(), Vec::new());
    for c in list.cases {
        let id = format!("models/{}", c.name);
        let input = ModelCases::model_path(assets, &c.model);
        let golden = dir.join(format!("{}.png", c.name));
        if !input.is_file() || !golden.is_file() {
            missing.push(id);
            continue;
        }
        // Names are plain (checked by `load`), but a symbolic link inside the assets could
        // still lead out: the resolved file must lie under the resolved assets folder.
        let inside = match (input.canonicalize(), assets.canonicalize()) {
            (Ok(file), Ok(root)) => file.starts_with(root),
            _ => false,
        };
        if !inside {
            return Err(ConformError(format!(
                "{}: case {}: the model resolves outside {}",
                input.display(),
                c.name,
                assets.display()
            )));
        }
        let mut needs = tolerances.needs_of(&id);
        // A lit view draws glTF's materials with the PBR stage unless it asks for `classic`.
        let pbr = c.view.shading == crate::model::ShadingMode::Pbr && !c.view.unlit;
        if pbr && !needs.iter().any(|f| f == "pbr") {
            needs.push("pbr".to_owned());
            needs.sort();
        }
        cases.push(Case {
            tolerance: tolerances.for_case(&id).clone(),
            needs,
            id,
            area: "models".to_owned(),
            name: c.name,
            kind: CaseKind::Model,
            input,
            golden,
            view: Some(c.view),
        });
    }
    cases.sort_by(|a, b| a.id.cmp(&b.id));
    Ok((cases, missing))
}

/// Shard `k` of `n` (1-based): the i-th case goes to shard `i mod n + 1`, as
/// `cargo nextest --partition count:k/n`.
///
/// # Errors
/// [`ConformError`] unless `1 ≤ k ≤ n`.
pub fn partition(cases: Vec<Case>, k: usize, n: usize) -> Result<Vec<Case>, ConformError> {
    if n == 0 || k == 0 || k > n {
        return Err(ConformError(format!(
            "--partition {k}/{n}: expected K/N with 1 <= K <= N"
        )));
    }
    Ok(cases
        .into_iter()
        .enumerate()
        .filter(|(i, _)| i % n + 1 == k)
        .map(|(_, c)| c)
        .collect())
}

/// Parses `K/N` (also `count:K/N`).
///
/// # Errors
/// A one-line message.
pub fn parse_partition(s: &str) -> Result<(usize, usize), String> {
    let s = s.strip_prefix("count:").unwrap_or(s);
    let (k, n) = s
        .split_once('/')
        .ok_or_else(|| format!("'{s}': expected K/N, e.g. 1/4"))?;
    let num = |v: &str| {
        v.trim()
            .parse::<usize>()
            .map_err(|_| format!("'{v}' is not a whole number"))
    };
    let (k, n) = (num(k)?, num(n)?);
    if n == 0 || k == 0 || k > n {
        return Err(format!("{k}/{n}: expected 1 <= K <= N"));
    }
    Ok((k, n))
}

/// Reading the finished colour image back from an in-process backend.
pub trait ReadBack {
    /// The colour image, row 0 at the top, RGBA8.
    ///
    /// # Errors
    /// A backend-specific message.
    fn read_back(&mut self) -> Result<RgbaImage, String>;
}

/// A scene renderer reads back what its draw target holds.
impl<T: DrawTarget + ReadBack> ReadBack for FixedRenderer<T> {
    fn read_back(&mut self) -> Result<RgbaImage, String> {
        self.target_mut().read_back()
    }
}

impl ReadBack for Context {
    fn read_back(&mut self) -> Result<RgbaImage, String> {
        Ok(self.color_image())
    }
}

/// A backend the kit can run a case through.
pub trait Backend {
    /// Shown in the report.
    fn name(&self) -> String;
    /// Whether every case must match exactly (plumb itself) instead of within its tolerance.
    fn exact(&self) -> bool {
        false
    }
    /// Whether the backend draws `feature` ([`FEATURES`]); a case needing one it lacks is
    /// skipped, with the feature as the reason. The default: every feature.
    fn supports(&self, feature: &str) -> bool {
        let _ = feature;
        true
    }
    /// Renders `case` at `width × height`.
    ///
    /// # Errors
    /// Any failure of the backend, as a one-line message (the case fails with it).
    fn render(&mut self, case: &Case, width: u32, height: u32) -> Result<RgbaImage, String>;
    /// After [`Backend::render`] failed: the feature the backend answered it lacks for that
    /// case, if that was the failure (an `--exec` command's exit status
    /// [`EXEC_UNSUPPORTED`]); the case is then skipped, not errored. Taking it clears it.
    fn take_unsupported(&mut self) -> Option<String> {
        None
    }
}

/// Makes a renderer or a draw target of a size.
pub type Factory<T> = Box<dyn FnMut(u32, u32) -> Result<T, String>>;

/// An in-process backend: a scene [`Renderer`] for scene cases and a [`DrawTarget`] for
/// traces, each made fresh per case and read back with [`ReadBack`].
pub struct InProcess<R, T> {
    /// Shown in the report.
    pub name: String,
    /// Hold every case to exact equality.
    pub exact: bool,
    /// Makes the renderer for a scene case.
    pub renderer: Factory<R>,
    /// Makes the target for a trace case.
    pub target: Factory<T>,
    /// Features ([`FEATURES`]) the backend does not draw.
    pub lacks: Vec<&'static str>,
}

impl<R: Renderer + ReadBack, T: DrawTarget + ReadBack> Backend for InProcess<R, T> {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn exact(&self) -> bool {
        self.exact
    }

    fn supports(&self, feature: &str) -> bool {
        !self.lacks.contains(&feature)
    }

    fn render(&mut self, case: &Case, width: u32, height: u32) -> Result<RgbaImage, String> {
        match case.kind {
            CaseKind::Scene => {
                let mut r = (self.renderer)(width, height)?;
                draw_scene_case(&case.input, width, height, &mut r)?;
                r.read_back()
            }
            CaseKind::Trace => {
                let trace = Trace::load(&case.input).map_err(|e| e.to_string())?;
                let mut t = (self.target)(width, height)?;
                trace.replay(&mut t).map_err(|e| e.to_string())?;
                t.read_back()
            }
            CaseKind::Model => {
                let view = case
                    .view
                    .as_ref()
                    .ok_or_else(|| format!("{}: a model case without a view", case.id))?;
                let mut r = (self.renderer)(width, height)?;
                view.draw(&case.input, &mut r)?;
                r.read_back()
            }
        }
    }
}

/// plumb's own renderer and rasteriser on `threads` workers, held to exact equality.
pub fn soft(threads: Option<usize>) -> InProcess<SoftRenderer, Context> {
    InProcess {
        name: "plumb (SoftRenderer)".to_owned(),
        exact: true,
        renderer: Box::new(move |w, h| SoftRenderer::new(w, h, threads).map_err(|e| e.to_string())),
        target: Box::new(move |w, h| {
            Context::new(w, h, ContextOptions { threads }).map_err(|e| e.to_string())
        }),
        lacks: Vec::new(),
    }
}

/// Draws a scene case as its golden was drawn: loaded with the default options, seen from
/// its first camera at the image's aspect — the image `plumb render` makes of the file, alpha
/// included (every case compares RGBA: the stored alpha is what the pipeline wrote).
///
/// # Errors
/// A one-line message (load failure, no camera, renderer failure).
pub fn draw_scene_case(
    input: &Path,
    width: u32,
    height: u32,
    renderer: &mut dyn Renderer,
) -> Result<(), String> {
    let loaded = io::load(input, &ImportOptions::default()).map_err(|e| e.to_string())?;
    let mut scene = loaded.scene;
    let cam = loaded
        .imported
        .cameras
        .first()
        .ok_or_else(|| format!("{}: the scene file has no camera", input.display()))?;
    let camera = cam
        .to_camera(&scene, width as f32 / height as f32)
        .map_err(|e| e.to_string())?;
    scene.draw(&camera, renderer).map_err(|e| e.to_string())?;
    Ok(())
}

/// An out-of-process backend: runs `template` through `sh -c` per case, then reads the PNG the
/// command wrote to `{output}`.
///
/// **No value is ever shell code.** The placeholders `{input}`, `{output}`, `{width}`,
/// `{height}`, `{kind}` and `{view}` (a model case's [`ModelView`] as a JSON file, else
/// empty) are replaced in one pass by `"$PLUMB_INPUT"`, `"$PLUMB_OUTPUT"`, … — quoted
/// references to environment variables the command gets — never by the values themselves,
/// and a value is never scanned for placeholders. So a case or folder named
/// `x{output};touch y` or `$(…)` reaches the command as one argument, as written. Write a
/// placeholder unquoted (`mytool {input}`): it becomes exactly one argument. The command runs
/// in its own process group, which is killed as a whole at the timeout; its stderr is read
/// as it is written (the last [`EXEC_STDERR_KEEP`] bytes are kept for the message).
pub struct Exec {
    /// The command line.
    pub template: String,
    /// Where outputs are written (`<area>__<case>.png`).
    pub work: PathBuf,
    /// A case whose command runs longer is killed and fails.
    pub timeout: Duration,
    /// Features ([`FEATURES`]) the program declared it lacks (`plumb conform --caps`): the
    /// cases that need one are skipped without running it.
    pub lacks: Vec<String>,
    /// The feature the last case's command answered it lacks ([`EXEC_UNSUPPORTED`]).
    pub unsupported: Option<String>,
}

/// The exit status by which an `--exec` command says it cannot draw a case, with
/// `unsupported: FEATURE` (one of [`FEATURES`]) as the last line of its stderr: the case is
/// skipped with that reason. 77 is the "skipped" status of Automake's test driver.
pub const EXEC_UNSUPPORTED: i32 = 77;

/// A backend's capabilities file (`plumb conform --caps FILE`): `{"lacks": [FEATURE, …]}`,
/// optionally with a `"backend"` name, each feature one of [`FEATURES`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Caps {
    /// What the backend is (shown nowhere; for the file's reader).
    #[serde(default)]
    pub backend: String,
    /// The features it does not draw.
    pub lacks: Vec<String>,
}

impl Caps {
    /// Reads and checks a capabilities file.
    ///
    /// # Errors
    /// [`ConformError`] naming the file (and line and column of a syntax error), or an unknown
    /// feature.
    pub fn load(path: &Path) -> Result<Caps, ConformError> {
        let caps: Caps = read_json_list(path)?;
        if let Some(f) = caps.lacks.iter().find(|f| !is_feature(f)) {
            return Err(ConformError(format!(
                "{}: unknown feature \"{f}\" (known: {})",
                path.display(),
                FEATURES
                    .iter()
                    .map(|(f, _)| *f)
                    .collect::<Vec<_>>()
                    .join(", ")
            )));
        }
        Ok(caps)
    }
}

/// The placeholders of an `--exec` template and the environment variable each stands for.
pub const EXEC_PLACEHOLDERS: [(&str, &str); 6] = [
    ("{input}", "PLUMB_INPUT"),
    ("{output}", "PLUMB_OUTPUT"),
    ("{width}", "PLUMB_WIDTH"),
    ("{height}", "PLUMB_HEIGHT"),
    ("{kind}", "PLUMB_KIND"),
    ("{view}", "PLUMB_VIEW"),
];

/// How much of an `--exec` command's stderr is kept (its last bytes) for the failure message.
pub const EXEC_STDERR_KEEP: usize = 64 * 1024;

/// The shell text of an `--exec` template: each placeholder, in one left-to-right pass,
/// becomes a double-quoted reference to its environment variable ([`EXEC_PLACEHOLDERS`]).
/// Anything else, unknown `{…}` included, is kept as written.
pub fn exec_command_text(template: &str) -> String {
    let mut out = String::with_capacity(template.len() + 64);
    let mut rest = template;
    'scan: while let Some(i) = rest.find('{') {
        out.push_str(&rest[..i]);
        rest = &rest[i..];
        for (ph, var) in EXEC_PLACEHOLDERS {
            if let Some(after) = rest.strip_prefix(ph) {
                out.push_str(&format!("\"${var}\""));
                rest = after;
                continue 'scan;
            }
        }
        out.push('{');
        rest = &rest[1..];
    }
    out.push_str(rest);
    out
}

/// Kills the process group `pgid` (the `--exec` command and every child it started), without
/// `unsafe`: through the system's `kill`.
fn kill_group(pgid: u32) {
    let _ = Command::new("kill")
        .args(["-KILL", "--", &format!("-{pgid}")])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
}

/// Reads `r` to its end on a thread, keeping the last [`EXEC_STDERR_KEEP`] bytes; the text
/// arrives on the returned channel.
fn read_tail(mut r: impl std::io::Read + Send + 'static) -> std::sync::mpsc::Receiver<String> {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut kept: Vec<u8> = Vec::new();
        let mut buf = [0u8; 8192];
        loop {
            match r.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    kept.extend_from_slice(&buf[..n]);
                    if kept.len() > 2 * EXEC_STDERR_KEEP {
                        kept.drain(..kept.len() - EXEC_STDERR_KEEP);
                    }
                }
            }
        }
        let start = kept.len().saturating_sub(EXEC_STDERR_KEEP);
        let _ = tx.send(String::from_utf8_lossy(&kept[start..]).into_owned());
    });
    rx
}

impl Backend for Exec {
    fn name(&self) -> String {
        format!("exec: {}", self.template)
    }

    fn supports(&self, feature: &str) -> bool {
        !self.lacks.iter().any(|f| f == feature)
    }

    fn take_unsupported(&mut self) -> Option<String> {
        self.unsupported.take()
    }

    fn render(&mut self, case: &Case, width: u32, height: u32) -> Result<RgbaImage, String> {
        std::fs::create_dir_all(&self.work).map_err(|e| format!("{}: {e}", self.work.display()))?;
        let output = self.work.join(format!("{}__{}.png", case.area, case.name));
        let _ = std::fs::remove_file(&output);
        // A model case's view as a file the command can read (`{view}`; '' otherwise).
        let view = match &case.view {
            Some(v) => {
                let path = self
                    .work
                    .join(format!("{}__{}.view.json", case.area, case.name));
                let text = serde_json::to_string_pretty(v).map_err(|e| e.to_string())?;
                std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))?;
                path.into_os_string()
            }
            None => std::ffi::OsString::new(),
        };
        let mut command = Command::new("sh");
        command
            .arg("-c")
            .arg(exec_command_text(&self.template))
            .env("PLUMB_INPUT", &case.input)
            .env("PLUMB_OUTPUT", &output)
            .env("PLUMB_WIDTH", width.to_string())
            .env("PLUMB_HEIGHT", height.to_string())
            .env("PLUMB_KIND", case.kind.as_str())
            .env("PLUMB_VIEW", &view)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        #[cfg(unix)]
        std::os::unix::process::CommandExt::process_group(&mut command, 0);
        let mut child = command.spawn().map_err(|e| format!("cannot run sh: {e}"))?;
        let stderr = child.stderr.take().map(read_tail);
        let start = Instant::now();
        let status = loop {
            match child.try_wait() {
                Ok(Some(status)) => break status,
                Ok(None) if start.elapsed() > self.timeout => {
                    kill_group(child.id());
                    let _ = child.kill();
                    let _ = child.wait();
                    return Err(format!(
                        "the command ran longer than {} s and was killed",
                        self.timeout.as_secs()
                    ));
                }
                Ok(None) => std::thread::sleep(Duration::from_millis(5)),
                Err(e) => return Err(format!("waiting for the command: {e}")),
            }
        };
        // What the command left running in its group would keep stderr open: end it, then
        // wait a bounded time for the rest of the text.
        kill_group(child.id());
        let err = stderr
            .and_then(|rx| rx.recv_timeout(Duration::from_secs(2)).ok())
            .unwrap_or_default();
        if status.code() == Some(EXEC_UNSUPPORTED) {
            let last = err
                .lines()
                .rev()
                .find(|l| !l.trim().is_empty())
                .unwrap_or("");
            match last.trim().strip_prefix("unsupported:").map(str::trim) {
                Some(f) if is_feature(f) => {
                    self.unsupported = Some(f.to_owned());
                    return Err(format!("unsupported: {f}"));
                }
                _ => {
                    return Err(format!(
                        "the command exited with {EXEC_UNSUPPORTED} (unsupported) but its last \
                         stderr line is not \"unsupported: FEATURE\" with a known feature: {}",
                        last.trim().chars().take(200).collect::<String>()
                    ))
                }
            }
        }
        if !status.success() {
            let last = err
                .lines()
                .rev()
                .find(|l| !l.trim().is_empty())
                .unwrap_or("")
                .trim()
                .chars()
                .take(500)
                .collect::<String>();
            return Err(format!("the command failed ({status}): {last}"));
        }
        if !output.is_file() {
            return Err(format!(
                "the command succeeded but no image was written to {}",
                output.display()
            ));
        }
        read_png(&output, Some((width, height)), MAX_IMAGE_PIXELS)
    }
}

/// An offline backend: PNGs rendered elsewhere, `dir/<area>/<case>.png`.
pub struct Actual {
    /// The folder.
    pub dir: PathBuf,
}

impl Backend for Actual {
    fn name(&self) -> String {
        format!("actual: {}", self.dir.display())
    }

    fn render(&mut self, case: &Case, width: u32, height: u32) -> Result<RgbaImage, String> {
        read_png(
            &self.dir.join(&case.area).join(format!("{}.png", case.name)),
            Some((width, height)),
            MAX_IMAGE_PIXELS,
        )
    }
}

/// Largest list file the kit reads (a tolerance file, a `cases.json`): 64 MiB.
pub const MAX_LIST_BYTES: u64 = 64 << 20;

/// Reads a list file the kit takes (tolerances, model cases): a regular file, checked on the
/// opened handle, of at most [`MAX_LIST_BYTES`] (a FIFO or a device is refused at once).
fn read_list(path: &Path) -> Result<String, ConformError> {
    plumb_scene::io::read_regular_to_string(path, MAX_LIST_BYTES)
        .map_err(|e| ConformError(format!("{}: {e}", path.display())))
}

/// A list file ([`read_list`]) parsed as JSON; a syntax error names the file, line and column.
fn read_json_list<T: serde::de::DeserializeOwned>(path: &Path) -> Result<T, ConformError> {
    let text = read_list(path)?;
    serde_json::from_str(&text).map_err(|e| {
        ConformError(format!(
            "{}:{}:{}: {e}",
            path.display(),
            e.line(),
            e.column()
        ))
    })
}

/// Largest image the kit decodes: 16384 × 16384 pixels (`plumb diff`'s default).
pub const MAX_IMAGE_PIXELS: u64 = 16384 * 16384;

/// Reads a PNG as RGBA8. The size comes from the header first: an image of another size than
/// `expected` (the golden's), or over `max_pixels` (never more than [`MAX_IMAGE_PIXELS`]), is
/// refused before decoding, so a backend's output cannot make the kit allocate more than a
/// golden's worth.
fn read_png(
    path: &Path,
    expected: Option<(u32, u32)>,
    max_pixels: u64,
) -> Result<RgbaImage, String> {
    let max_pixels = max_pixels.min(MAX_IMAGE_PIXELS);
    let shown = |e: &dyn std::fmt::Display| format!("{}: {e}", path.display());
    // A regular file, checked on the opened handle (issue 50); one handle for the header and
    // the decode.
    let (file, _) = plumb_scene::io::open_regular(path).map_err(|e| match e {
        plumb_scene::io::ReadRefusal::Io(_) => format!("{}: no such image", path.display()),
        e => shown(&e),
    })?;
    let decoder = image::ImageReader::new(std::io::BufReader::new(file))
        .with_guessed_format()
        .map_err(|e| shown(&e))?
        .into_decoder()
        .map_err(|e| shown(&e))?;
    let (w, h) = image::ImageDecoder::dimensions(&decoder);
    if let Some((ew, eh)) = expected.filter(|&e| e != (w, h)) {
        return Err(format!(
            "{}: the image is {w}x{h}, the golden {ew}x{eh}",
            path.display()
        ));
    }
    if u64::from(w) * u64::from(h) > max_pixels {
        return Err(format!(
            "{}: {w}x{h} is over the limit of {max_pixels} pixels (--max-golden-pixels)",
            path.display()
        ));
    }
    let img = image::DynamicImage::from_decoder(decoder).map_err(|e| shown(&e))?;
    Ok(img.to_rgba8())
}

/// How a case ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Within tolerance.
    Pass,
    /// Compared, outside tolerance (or a size mismatch).
    Fail,
    /// The backend could not render it.
    Error,
    /// Not run: the backend lacks a feature the case needs (the message names it).
    Skip,
}

/// The numbers of a comparison.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Metrics {
    /// Pixels over the tolerance's threshold.
    pub pixels_over: u64,
    /// Largest channel difference.
    pub max_delta: u8,
    /// FLIP-style perceptual mean of the differences: the error of the pixels over the
    /// threshold, over every pixel (a pixel within the threshold adds nothing).
    pub flip_mean: f64,
    /// The first pixel (row by row) with the largest channel difference, `[x, y]`, when the
    /// images differ: the pixel a report offers to explain (`plumb explain`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub worst: Option<[u32; 2]>,
    /// What kind of difference the pixels over the threshold are ([`classify`]); absent when
    /// no pixel is over.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub class: Option<DiffClass>,
}

/// What kind of difference an image has, from its pixels over the threshold ([`classify`]).
/// The report counts failing cases per class, so a team sees rounding apart from coverage
/// and from differences of whole areas.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DiffClass {
    /// Every pixel over the threshold is within [`ROUNDING_LEVELS`] in every channel: the
    /// arithmetic differs (filter weights, interpolation, fixed point), not what is drawn.
    Rounding,
    /// Every pixel over the threshold takes, within the threshold, the golden colour of a
    /// pixel at most [`EDGE_REACH`] away: coverage moved on primitive edges (fill rule, line
    /// ends, sub-pixel precision, edge-on faces), the inside of every primitive agreeing. Two
    /// pixels, not one, so that a pixel where several primitives meet at a vertex finds the
    /// colour of the primitive that took it. (A heuristic: a texture shifted by a texel also
    /// looks like this where texels are a pixel or two wide.)
    EdgeCoverage,
    /// Anything else: pixels inside primitives differ by more than rounding.
    Area,
}

impl DiffClass {
    /// Its name in reports.
    pub fn as_str(self) -> &'static str {
        match self {
            DiffClass::Rounding => "rounding",
            DiffClass::EdgeCoverage => "edge coverage",
            DiffClass::Area => "area",
        }
    }
}

/// The largest channel difference [`DiffClass::Rounding`] covers: 8 levels (3 %). GL and
/// Vulkan leave texture filtering's sub-texel precision and the level-of-detail computation
/// to the implementation; a few levels of such difference is the order they allow.
pub const ROUNDING_LEVELS: u8 = 8;

/// How far (in pixels, along each axis) [`DiffClass::EdgeCoverage`] looks for the colour a
/// pixel took.
pub const EDGE_REACH: u32 = 2;

/// The share of an image that may differ by rounding ([`DiffClass::Rounding`]) whatever the
/// case's pixel count allows: 1 %.
pub const ROUNDING_FRACTION: f64 = 0.01;

/// The rounding allowance, for every tolerance but an exact one (threshold 0): an image whose
/// every pixel over the threshold is within [`ROUNDING_LEVELS`] ([`DiffClass::Rounding`])
/// passes while those pixels are at most [`ROUNDING_FRACTION`] of it. The levels follow
/// Vulkan's minimum `subTexelPrecisionBits` of 4 (GL sets no minimum): filter weights in
/// steps of 1/16, so a weight off by half a step moves a sample by up to 1/32 of the texels'
/// contrast, 255/32 ≈ 8 levels; LOD and interpolation rounding stay within that on smooth
/// textures. A wrong feature (a missing fog, a mip level off, a swapped channel) moves pixels
/// by more, or moves more of them.
fn rounding_allowed(m: &Metrics, t: &Tolerance, pixels: u64) -> bool {
    t.threshold > 0
        && m.class == Some(DiffClass::Rounding)
        && m.pixels_over as f64 <= ROUNDING_FRACTION * pixels as f64
}

/// Classifies the difference of `actual` from `expected` (same size) by its pixels over
/// `threshold`: `None` when there are none, else [`DiffClass`]'s three cases in order.
pub fn classify(expected: &RgbaImage, actual: &RgbaImage, threshold: u8) -> Option<DiffClass> {
    let (w, h) = expected.dimensions();
    let mut max = None::<u8>;
    let mut edge_only = true;
    for (x, y, e) in expected.enumerate_pixels() {
        let a = actual.get_pixel(x, y);
        let d = pixel_delta(e, a);
        if d <= threshold {
            continue;
        }
        max = Some(max.map_or(d, |m| m.max(d)));
        if edge_only {
            let r = EDGE_REACH;
            let mut neighbours = (y.saturating_sub(r)..=(y + r).min(h - 1))
                .flat_map(|ny| (x.saturating_sub(r)..=(x + r).min(w - 1)).map(move |nx| (nx, ny)));
            edge_only = neighbours.any(|(nx, ny)| {
                (nx, ny) != (x, y) && pixel_delta(expected.get_pixel(nx, ny), a) <= threshold
            });
        }
    }
    let max = max?;
    Some(if max <= ROUNDING_LEVELS {
        DiffClass::Rounding
    } else if edge_only {
        DiffClass::EdgeCoverage
    } else {
        DiffClass::Area
    })
}

/// The report's heat map: per pixel the larger of the perceptual (RGB) error and the alpha
/// difference (`|Δα| / 255`), through the diff's ramp — so a case whose images differ only in
/// alpha (every case compares RGBA) shows where.
fn heat_map(d: &crate::diff::Diff, expected: &RgbaImage, actual: &RgbaImage) -> RgbaImage {
    let errors = d.perceptual_errors();
    let w = expected.width();
    RgbaImage::from_fn(w, expected.height(), |x, y| {
        let e = errors[(y * w + x) as usize];
        let da = expected.get_pixel(x, y).0[3].abs_diff(actual.get_pixel(x, y).0[3]);
        crate::diff::heat_color(e.max(f32::from(da) / 255.0))
    })
}

/// The perceptual mean the kit judges: the FLIP-style error summed over the pixels whose
/// largest channel difference is over `threshold`, divided by every pixel — a pixel within
/// the threshold is not a difference and adds nothing. Summed in pixel order, in f64.
fn flip_mean_of_differences(
    d: &crate::diff::Diff,
    expected: &RgbaImage,
    actual: &RgbaImage,
    threshold: u8,
) -> f64 {
    let errors = d.perceptual_errors();
    let over = expected
        .pixels()
        .zip(actual.pixels())
        .zip(errors)
        .filter(|((a, b), _)| pixel_delta(a, b) > threshold)
        .map(|(_, &e)| f64::from(e))
        .sum::<f64>();
    over / errors.len().max(1) as f64
}

/// How every case is compared, as `--help`, the README and the report state it.
pub const COMPARISON_RULE: &str = "Every case compares all four channels, RGBA: each golden \
    stores the alpha the pipeline wrote (what `plumb render` writes), scene, trace and model \
    cases alike. Pixels over the threshold count any channel; the FLIP mean is of RGB, summed \
    over those pixels only (a pixel within the threshold is not a difference); heat \
    maps show the larger of the perceptual error and the alpha difference.";

/// A pixel's largest channel difference (R, G, B or A): what the threshold is held against.
fn pixel_delta(a: &image::Rgba<u8>, b: &image::Rgba<u8>) -> u8 {
    (0..4).map(|c| a.0[c].abs_diff(b.0[c])).max().unwrap_or(0)
}

/// The first pixel (row by row) whose largest channel difference is the largest.
fn worst_pixel(a: &RgbaImage, b: &RgbaImage) -> Option<[u32; 2]> {
    let mut best: Option<(u8, [u32; 2])> = None;
    for (x, y, pa) in a.enumerate_pixels() {
        let d = pixel_delta(pa, b.get_pixel(x, y));
        if d > 0 && best.is_none_or(|(m, _)| d > m) {
            best = Some((d, [x, y]));
        }
    }
    best.map(|(_, p)| p)
}

/// The `plumb explain` command for pixel `[x, y]` of `case` at `w × h`, for a report: the
/// case's input and options, each argument quoted for a POSIX shell.
pub fn explain_command(case: &Case, [x, y]: [u32; 2], w: u32, h: u32) -> String {
    let quote = |s: &str| {
        if !s.is_empty()
            && s.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"-_./,=:+".contains(&b))
        {
            s.to_owned()
        } else {
            format!("'{}'", s.replace('\'', "'\\''"))
        }
    };
    let mut args = vec![
        "plumb".to_owned(),
        "explain".to_owned(),
        case.input.to_string_lossy().into_owned(),
        x.to_string(),
        y.to_string(),
    ];
    match (&case.view, case.kind) {
        (Some(view), _) => args.extend(view.cli_args()),
        (None, CaseKind::Trace) => {}
        (None, _) => args.extend(["--size".to_owned(), format!("{w}x{h}")]),
    }
    args.iter().map(|a| quote(a)).collect::<Vec<_>>().join(" ")
}

/// One case's outcome, with the images for the report.
#[derive(Clone, Debug)]
pub struct CaseResult {
    /// The case.
    pub case: Case,
    /// The tolerance applied (exact for an exact backend).
    pub tolerance: Tolerance,
    /// Pass, fail or error.
    pub status: Status,
    /// What went wrong, one line (empty on a pass).
    pub message: String,
    /// The comparison, when there was one.
    pub metrics: Option<Metrics>,
    /// The backend's image, when it made one.
    pub actual: Option<RgbaImage>,
    /// The perceptual heat map, when the images differ.
    pub heat: Option<RgbaImage>,
    /// Seconds the backend took.
    pub seconds: f64,
}

/// Largest golden the kit runs by default: 4096 × 4096 pixels. A case is drawn at its
/// golden's size, so the golden's header decides how much work a case asks for; a larger one
/// is an error for that case, read from the header before anything is decoded or drawn.
/// `plumb conform --max-golden-pixels` raises it (up to [`MAX_IMAGE_PIXELS`]).
pub const MAX_GOLDEN_PIXELS: u64 = 4096 * 4096;

/// Runs one case through `backend` and compares it with its golden, with the default
/// [`MAX_GOLDEN_PIXELS`].
pub fn run_case(case: &Case, backend: &mut dyn Backend) -> CaseResult {
    run_case_with(case, backend, MAX_GOLDEN_PIXELS)
}

/// [`run_case`] with a golden size limit in pixels.
pub fn run_case_with(case: &Case, backend: &mut dyn Backend, max_golden_pixels: u64) -> CaseResult {
    let tolerance = if backend.exact() {
        Tolerance::exact()
    } else {
        case.tolerance.clone()
    };
    let mut result = CaseResult {
        case: case.clone(),
        tolerance,
        status: Status::Error,
        message: String::new(),
        metrics: None,
        actual: None,
        heat: None,
        seconds: 0.0,
    };
    if let Some(f) = case.needs.iter().find(|f| !backend.supports(f)) {
        result.status = Status::Skip;
        result.message = format!("unsupported: {f}");
        return result;
    }
    let expected = match read_png(&case.golden, None, max_golden_pixels) {
        Ok(img) => img,
        Err(e) => {
            result.message = format!("golden: {e}");
            return result;
        }
    };
    let (w, h) = expected.dimensions();
    let start = Instant::now();
    let actual = backend.render(case, w, h);
    result.seconds = start.elapsed().as_secs_f64();
    let actual = match actual {
        Ok(img) => img,
        Err(e) => {
            if let Some(f) = backend.take_unsupported() {
                result.status = Status::Skip;
                result.message = format!("unsupported: {f}");
            } else {
                result.message = e;
            }
            return result;
        }
    };
    if actual.dimensions() != (w, h) {
        result.status = Status::Fail;
        result.message = format!(
            "the image is {}x{}, the golden {w}x{h}",
            actual.width(),
            actual.height()
        );
        result.actual = Some(actual);
        return result;
    }
    let t = &result.tolerance;
    let (metrics, heat) = if actual.as_raw() == expected.as_raw() {
        (
            Metrics {
                pixels_over: 0,
                max_delta: 0,
                flip_mean: 0.0,
                worst: None,
                class: None,
            },
            None,
        )
    } else {
        let options = DiffOptions {
            threshold: t.threshold,
            ..DiffOptions::default()
        };
        match compare(&expected, &actual, &options) {
            Ok(d) => (
                Metrics {
                    pixels_over: d.report.pixels_over,
                    max_delta: d.report.max_delta,
                    flip_mean: flip_mean_of_differences(&d, &expected, &actual, t.threshold),
                    worst: worst_pixel(&expected, &actual),
                    class: classify(&expected, &actual, t.threshold),
                },
                Some(heat_map(&d, &expected, &actual)),
            ),
            Err(e) => {
                result.status = Status::Fail;
                result.message = e.to_string();
                return result;
            }
        }
    };
    // The perceptual mean judges images that have pixels over the threshold, and only those
    // pixels count in it: a pixel within the threshold differs by rounding the APIs allow,
    // however many such pixels there are (issue 55: a GL driver's one-level differences on
    // 60 % of `raster/near_clip` gave a whole-image FLIP mean of 0.027; with one pixel of 3
    // levels beside them, `scene/billboard_view_a` failed on a mean of 0.020 that was all
    // rounding).
    let within = metrics.pixels_over <= t.max_pixels
        && (metrics.pixels_over == 0 || metrics.flip_mean <= t.max_flip_mean);
    let pass = within || rounding_allowed(&metrics, t, u64::from(w) * u64::from(h));
    result.status = if pass { Status::Pass } else { Status::Fail };
    if !pass {
        result.message = format!(
            "{} pixels over threshold {} (allowed {}), max delta {}, FLIP mean {:.5} (allowed {})",
            metrics.pixels_over,
            t.threshold,
            t.max_pixels,
            metrics.max_delta,
            metrics.flip_mean,
            t.max_flip_mean
        );
    }
    result.metrics = Some(metrics);
    result.actual = Some(actual);
    result.heat = heat;
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The three classes on small made-up images: a square of one colour on another.
    #[test]
    fn differences_are_classed_by_their_pixels() {
        let square = |x0: u32, y0: u32, c: [u8; 4]| {
            RgbaImage::from_fn(16, 16, |x, y| {
                let inside = (x0..x0 + 6).contains(&x) && (y0..y0 + 6).contains(&y);
                image::Rgba(if inside { c } else { [10, 20, 30, 255] })
            })
        };
        let golden = square(5, 5, [200, 100, 50, 255]);
        assert_eq!(classify(&golden, &golden, 2), None);
        // Inside the square, 6 levels off: rounding (and nothing over a threshold of 6).
        let warm = square(5, 5, [206, 100, 50, 255]);
        assert_eq!(classify(&golden, &warm, 2), Some(DiffClass::Rounding));
        assert_eq!(classify(&golden, &warm, 6), None);
        // The square one pixel right: every pixel over takes a neighbour's golden colour.
        let moved = square(6, 5, [200, 100, 50, 255]);
        assert_eq!(classify(&golden, &moved, 2), Some(DiffClass::EdgeCoverage));
        // Another colour inside: an area difference.
        let wrong = square(5, 5, [50, 100, 200, 255]);
        assert_eq!(classify(&golden, &wrong, 2), Some(DiffClass::Area));
    }

    #[test]
    fn glob_matches_runs() {
        assert!(glob("fixed/ground_*", "fixed/ground_linear"));
        assert!(glob("*", "a/b"));
        assert!(glob("*mip*", "fixed/ground_linear_mipmap_linear"));
        assert!(glob("a/b", "a/b"));
        assert!(!glob("a/b", "a/bc"));
        assert!(!glob("a*c", "abcd"));
        assert!(glob("a*c*", "abcd"));
        assert!(!glob("ab*ba", "aba"));
    }

    #[test]
    fn partition_is_round_robin_and_exact() {
        assert_eq!(parse_partition("2/3"), Ok((2, 3)));
        assert_eq!(parse_partition("count:1/2"), Ok((1, 2)));
        assert!(parse_partition("0/2").is_err());
        assert!(parse_partition("3/2").is_err());
        assert!(parse_partition("x").is_err());
    }

    #[test]
    fn model_case_names_are_plain() {
        for ok in ["Duck", "Box.With-Dots_1", "ünï"] {
            assert!(is_plain_name(ok), "{ok}");
        }
        for bad in [
            "", ".", "..", "a/b", "a\\b", "https:x", "C:", "a\u{0}", "a\nb",
        ] {
            assert!(!is_plain_name(bad), "{bad:?}");
        }
        let dir = std::env::temp_dir().join(format!("plumb-model-cases-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        for (model, name) in [
            ("../../etc", "x"),
            ("Duck/../../x", "x"),
            ("/abs", "x"),
            ("Duck", "../x"),
        ] {
            let path = dir.join("cases.json");
            let text = format!(
                r#"{{"format": "plumb-model-cases", "version": 1, "cases": [{{"name": {name:?}, "model": {model:?}, "view": {{"size": [8, 8]}}}}]}}"#
            );
            std::fs::write(&path, text).unwrap();
            let e = ModelCases::load(&path).expect_err(model).to_string();
            assert!(e.contains("names must be plain file names"), "{model}: {e}");
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[cfg(unix)]
    #[test]
    fn a_model_behind_a_link_out_of_the_assets_is_refused() {
        let dir = std::env::temp_dir().join(format!("plumb-model-link-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let (refimages, assets, outside) = (dir.join("ref"), dir.join("assets"), dir.join("out"));
        std::fs::create_dir_all(refimages.join("models")).unwrap();
        std::fs::create_dir_all(assets.join("gltf/khronos")).unwrap();
        std::fs::create_dir_all(outside.join("glTF")).unwrap();
        std::fs::write(outside.join("glTF/Evil.gltf"), "{}").unwrap();
        std::fs::write(refimages.join("models/evil.png"), "").unwrap();
        std::fs::write(
            refimages.join("models/cases.json"),
            r#"{"format": "plumb-model-cases", "version": 1, "cases": [{"name": "evil", "model": "Evil", "view": {"size": [8, 8]}}]}"#,
        )
        .unwrap();
        std::os::unix::fs::symlink(&outside, assets.join("gltf/khronos/Evil")).unwrap();
        let tol = Tolerances {
            format: "plumb-conform".to_owned(),
            version: 1,
            default: Tolerance::exact(),
            rules: Vec::new(),
            needs: Vec::new(),
        };
        let e = model_corpus(&refimages, &assets, &tol)
            .map(|_| ())
            .expect_err("link out");
        assert!(e.to_string().contains("resolves outside"), "{e}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn exec_templates_reference_variables_in_one_pass() {
        assert_eq!(
            exec_command_text("tool {input} -o {output} {width}x{height} {kind} {view}"),
            r#"tool "$PLUMB_INPUT" -o "$PLUMB_OUTPUT" "$PLUMB_WIDTH"x"$PLUMB_HEIGHT" "$PLUMB_KIND" "$PLUMB_VIEW""#
        );
        // Unknown and unbalanced braces stay; a placeholder's text is never rescanned.
        assert_eq!(
            exec_command_text("a {x} {{input}} {input"),
            r#"a {x} {"$PLUMB_INPUT"} {input"#
        );
        assert_eq!(
            exec_command_text("ünïcode {output}"),
            r#"ünïcode "$PLUMB_OUTPUT""#
        );
    }
}
