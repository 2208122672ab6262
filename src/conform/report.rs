//! The kit's outputs, all in one folder a CI system can publish:
//!
//! - `index.html` — self-contained (no network): a summary per feature area, then per case
//!   the expected, actual and heat-map images side by side with the metrics, the tolerance
//!   and its reason; a check box shows failures only.
//! - `junit.xml` — one `<testsuite>` per area, one `<testcase>` per case, a `<failure>` or
//!   `<error>` with the one-line message.
//! - `results.json` — everything above as data (format `plumb-conform-results`), which
//!   [`merge`] joins from several shards.
//! - `img/<area>__<case>.{expected,actual,heat}.png`.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::{CaseKind, CaseResult, ConformError, DiffClass, Metrics, Status, Tolerance};

/// Largest `results.json` a merge reads from a shard: 256 MiB. The file must be a regular
/// file, checked on the opened handle (a FIFO or a device is refused at once).
pub const MAX_RESULTS_BYTES: u64 = 256 << 20;

/// One case in `results.json`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Record {
    /// `area/case`.
    pub id: String,
    /// The area.
    pub area: String,
    /// Scene or trace.
    pub kind: CaseKind,
    /// Pass, fail or error.
    pub status: Status,
    /// What went wrong (empty on a pass).
    pub message: String,
    /// The tolerance applied.
    pub tolerance: Tolerance,
    /// The comparison, when there was one.
    pub metrics: Option<Metrics>,
    /// Seconds the backend took.
    pub seconds: f64,
    /// Image files relative to the report folder: expected, actual, heat map.
    pub images: [Option<String>; 3],
    /// For a failed comparison: the `plumb explain` command of its worst pixel (what plumb
    /// did there, stage by stage).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub explain: Option<String>,
}

/// `results.json`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Results {
    /// Always `plumb-conform-results`.
    pub format: String,
    /// Always 1.
    pub version: u32,
    /// The backend's name.
    pub backend: String,
    /// Every case run, sorted by id.
    pub cases: Vec<Record>,
}

impl Results {
    /// Counts of (pass, fail, error).
    pub fn counts(&self) -> (usize, usize, usize) {
        let n = |s: Status| self.cases.iter().filter(|c| c.status == s).count();
        (n(Status::Pass), n(Status::Fail), n(Status::Error))
    }

    /// Failing cases per [`DiffClass`] (a failure without a comparison, e.g. a size
    /// mismatch, counts in none), in the class order.
    pub fn failures_by_class(&self) -> BTreeMap<DiffClass, usize> {
        self.failures_by_class_in(None)
    }

    /// [`Results::failures_by_class`] of one area (`None`: every area).
    fn failures_by_class_in(&self, area: Option<&str>) -> BTreeMap<DiffClass, usize> {
        let mut out = BTreeMap::new();
        let cases = self
            .cases
            .iter()
            .filter(|c| area.is_none_or(|a| c.area == a));
        for c in cases.filter(|c| c.status == Status::Fail) {
            if let Some(class) = c.metrics.and_then(|m| m.class) {
                *out.entry(class).or_default() += 1;
            }
        }
        out
    }

    /// Cases skipped for a feature the backend lacks.
    pub fn skipped(&self) -> usize {
        self.cases
            .iter()
            .filter(|c| c.status == Status::Skip)
            .count()
    }
}

fn io_err(path: &Path, e: impl std::fmt::Display) -> ConformError {
    ConformError(format!("{}: {e}", path.display()))
}

/// Writes the report of `results` (from [`super::run_case`]) into `dir`.
///
/// # Errors
/// [`ConformError`] when a file cannot be written.
pub fn write(dir: &Path, backend: &str, results: &[CaseResult]) -> Result<Results, ConformError> {
    let img = dir.join("img");
    std::fs::create_dir_all(&img).map_err(|e| io_err(&img, e))?;
    let mut cases = Vec::new();
    for r in results {
        let stem = format!("{}__{}", r.case.area, r.case.name);
        let mut images: [Option<String>; 3] = [None, None, None];
        // Images only where they tell something: a pass of an exact backend needs none.
        let compared = !matches!(r.status, Status::Pass | Status::Skip);
        if compared || r.metrics.is_some_and(|m| m.max_delta > 0) {
            // Every image through a new file renamed into place: a link at its name is
            // replaced, not written through (issue 50).
            let expected = format!("img/{stem}.expected.png");
            let golden = plumb_scene::io::read_regular(&r.case.golden, MAX_IMAGE_FILE_BYTES)
                .map_err(|e| io_err(&r.case.golden, e))?;
            crate::safe_write::write_replacing(&dir.join(&expected), &golden)
                .map_err(ConformError)?;
            images[0] = Some(expected);
            for (slot, kind, image) in [(1, "actual", &r.actual), (2, "heat", &r.heat)] {
                if let Some(image) = image {
                    let name = format!("img/{stem}.{kind}.png");
                    let path = dir.join(&name);
                    let mut png = std::io::Cursor::new(Vec::new());
                    image
                        .write_to(&mut png, image::ImageFormat::Png)
                        .map_err(|e| io_err(&path, e))?;
                    crate::safe_write::write_replacing(&path, png.get_ref())
                        .map_err(ConformError)?;
                    images[slot] = Some(name);
                }
            }
        }
        cases.push(Record {
            id: r.case.id.clone(),
            area: r.case.area.clone(),
            kind: r.case.kind,
            status: r.status,
            message: r.message.clone(),
            tolerance: r.tolerance.clone(),
            metrics: r.metrics,
            seconds: r.seconds,
            images,
            explain: match (r.status, r.metrics.and_then(|m| m.worst), &r.actual) {
                (Status::Fail, Some(p), Some(a)) => {
                    Some(super::explain_command(&r.case, p, a.width(), a.height()))
                }
                _ => None,
            },
        });
    }
    cases.sort_by(|a, b| a.id.cmp(&b.id));
    let results = Results {
        format: "plumb-conform-results".to_owned(),
        version: 1,
        backend: backend.to_owned(),
        cases,
    };
    write_files(dir, &results)?;
    Ok(results)
}

/// Writes `results.json`, `index.html` and `junit.xml`.
fn write_files(dir: &Path, results: &Results) -> Result<(), ConformError> {
    let json = serde_json::to_string_pretty(results).map_err(|e| io_err(dir, e))?;
    for (name, text) in [
        ("results.json", json + "\n"),
        ("index.html", html(results)),
        ("junit.xml", junit(results)),
    ] {
        let path = dir.join(name);
        // A new file renamed into place: an existing link at `path` is replaced, never
        // written through (issue 50).
        crate::safe_write::write_replacing(&path, text.as_bytes()).map_err(ConformError)?;
    }
    Ok(())
}

/// Joins the `results.json` of each shard folder into one report in `out` (images copied).
/// A case present in two shards is an error (shards overlap).
///
/// # Errors
/// [`ConformError`] for unreadable or malformed shard results, overlapping shards, or
/// different backends.
pub fn merge(shards: &[PathBuf], out: &Path) -> Result<Results, ConformError> {
    let mut by_id: BTreeMap<String, Record> = BTreeMap::new();
    let mut duplicates: Vec<String> = Vec::new();
    let mut backend: Option<String> = None;
    // Never write over an input: the report folder may not be one of the shards.
    if let Ok(out_real) = out.canonicalize() {
        for shard in shards {
            if shard.canonicalize().is_ok_and(|s| s == out_real) {
                return Err(io_err(
                    out,
                    format!(
                        "the report folder is the shard {}: merge into a new folder",
                        shard.display()
                    ),
                ));
            }
        }
    }
    // Nor through a link (issue 50): no output may lead into a shard — the report folder,
    // its `img/` and the three files, whatever links they are.
    let roots: Vec<PathBuf> = shards
        .iter()
        .map(|s| s.canonicalize().map_err(|e| io_err(s, e)))
        .collect::<Result<_, _>>()?;
    let into_shard = |to: &Path| -> Result<(), ConformError> {
        for (shard, _) in shards.iter().zip(&roots) {
            crate::safe_write::refuse_inside(to, shard, "the shard").map_err(ConformError)?;
        }
        Ok(())
    };
    for name in ["", "img", "results.json", "index.html", "junit.xml"] {
        into_shard(&out.join(name))?;
    }
    std::fs::create_dir_all(out.join("img")).map_err(|e| io_err(out, e))?;
    for shard in shards {
        let path = shard.join("results.json");
        let text = plumb_scene::io::read_regular_to_string(&path, MAX_RESULTS_BYTES)
            .map_err(|e| io_err(&path, e))?;
        let r: Results = serde_json::from_str(&text)
            .map_err(|e| io_err(&path, format!("{}:{}: {e}", e.line(), e.column())))?;
        if r.format != "plumb-conform-results" || r.version != 1 {
            return Err(io_err(
                &path,
                "not a plumb-conform-results file of version 1",
            ));
        }
        match &backend {
            Some(b) if *b != r.backend => {
                return Err(io_err(
                    &path,
                    format!("backend '{}' differs from '{b}'", r.backend),
                ))
            }
            _ => backend = Some(r.backend.clone()),
        }
        for rec in r.cases {
            for name in rec.images.iter().flatten() {
                if !is_safe_relative(name) {
                    return Err(io_err(
                        &path,
                        format!("image path '{name}' is not a relative path inside the shard"),
                    ));
                }
                let (from, to) = (shard.join(name), out.join(name));
                if let (Ok(a), Ok(b)) = (from.canonicalize(), to.canonicalize()) {
                    if a == b {
                        return Err(io_err(&to, "would be copied onto itself"));
                    }
                }
                copy_from_shard(&from, shard, &to)?;
                into_shard(&to)?;
            }
            if by_id.contains_key(&rec.id) {
                duplicates.push(rec.id.clone());
                continue;
            }
            by_id.insert(rec.id.clone(), rec);
        }
    }
    if !duplicates.is_empty() {
        duplicates.sort();
        duplicates.dedup();
        return Err(ConformError(format!(
            "{} case(s) are in more than one shard: {}",
            duplicates.len(),
            duplicates.join(", ")
        )));
    }
    let results = Results {
        format: "plumb-conform-results".to_owned(),
        version: 1,
        backend: backend.unwrap_or_default(),
        cases: by_id.into_values().collect(),
    };
    write_files(out, &results)?;
    Ok(results)
}

/// Largest image a merge copies from a shard: 1 GiB.
pub const MAX_IMAGE_FILE_BYTES: u64 = 1 << 30;

/// Copies `from`, an image a record of `shard` names, to `to` — only a regular file (not a
/// link) whose real path is inside the shard (a linked folder on the way that leads out is
/// refused too), written through [`crate::safe_write::write_replacing`] (issue 50: a shard
/// image that was a link to a file outside was copied into, and published by, the report).
fn copy_from_shard(from: &Path, shard: &Path, to: &Path) -> Result<(), ConformError> {
    let meta = from.symlink_metadata().map_err(|e| io_err(from, e))?;
    if !meta.is_file() {
        return Err(io_err(
            from,
            "not a regular file (a link, a folder or a device): only the shard's own files are copied",
        ));
    }
    let (real, root) = (
        from.canonicalize().map_err(|e| io_err(from, e))?,
        shard.canonicalize().map_err(|e| io_err(shard, e))?,
    );
    if !real.starts_with(&root) {
        return Err(io_err(
            from,
            format!(
                "resolves to {}, outside the shard {}",
                real.display(),
                shard.display()
            ),
        ));
    }
    let bytes =
        plumb_scene::io::read_regular(&real, MAX_IMAGE_FILE_BYTES).map_err(|e| io_err(from, e))?;
    if let Some(parent) = to.parent() {
        std::fs::create_dir_all(parent).map_err(|e| io_err(parent, e))?;
    }
    crate::safe_write::write_replacing(to, &bytes).map_err(ConformError)
}

/// Escapes text for HTML text and attributes and for XML 1.0 text and attributes alike:
/// markup characters become entities; tab, line feed and carriage return become character
/// references (so attribute values keep them); every character XML 1.0 forbids, even as a
/// reference (the other C0 controls, U+FFFE, U+FFFF), is written visibly as `\u{…}` text,
/// so `junit.xml` stays well-formed whatever a case name or a tool's stderr holds.
pub fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            '\t' | '\n' | '\r' => {
                let _ = write!(out, "&#{};", u32::from(c));
            }
            '\u{0}'..='\u{1f}' | '\u{fffe}' | '\u{ffff}' => {
                let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out
}

/// Whether `name` is a plain relative path a report may link to and copy: not empty, no URL
/// scheme or drive (`:`), not absolute, no backslash, no `..` or empty component.
pub fn is_safe_relative(name: &str) -> bool {
    !name.is_empty()
        && !name.contains(':')
        && !name.contains('\\')
        && !name.starts_with('/')
        && name.split('/').all(|part| !part.is_empty() && part != "..")
}

/// `2 rounding, 1 area` (or `none`), in the class order.
pub fn class_counts(classes: &BTreeMap<DiffClass, usize>) -> String {
    if classes.is_empty() {
        return "none".to_owned();
    }
    classes
        .iter()
        .map(|(k, n)| format!("{n} {}", k.as_str()))
        .collect::<Vec<_>>()
        .join(", ")
}

fn status_word(s: Status) -> &'static str {
    match s {
        Status::Pass => "pass",
        Status::Fail => "fail",
        Status::Error => "error",
        Status::Skip => "skip",
    }
}

/// Per area: (pass, fail, error, skip), sorted by area.
fn by_area(results: &Results) -> BTreeMap<&str, [usize; 4]> {
    let mut areas: BTreeMap<&str, [usize; 4]> = BTreeMap::new();
    for c in &results.cases {
        let slot = match c.status {
            Status::Pass => 0,
            Status::Fail => 1,
            Status::Error => 2,
            Status::Skip => 3,
        };
        areas.entry(c.area.as_str()).or_default()[slot] += 1;
    }
    areas
}

/// The HTML report: no dates, failures first then passes, each in id order; only the
/// per-case seconds (the backend's wall time, also in JUnit's `time`) vary between runs.
pub fn html(results: &Results) -> String {
    let (pass, fail, error) = results.counts();
    let skipped = results.skipped();
    let mut h = String::new();
    let _ = writeln!(
        h,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <title>plumb conform: {backend}</title>\n<style>\
         body{{font-family:sans-serif;margin:1.5em}}table{{border-collapse:collapse}}\
         td,th{{border:1px solid #ccc;padding:.3em .6em;text-align:left;vertical-align:top}}\
         .pass{{color:#176317}}.fail,.error{{color:#a01818;font-weight:bold}}\
         img{{image-rendering:pixelated;max-width:256px;border:1px solid #888}}\
         .case{{margin:1em 0;padding:.5em;border-top:2px solid #ddd}}\
         body.failures-only .case.case-pass{{display:none}}</style></head>\n<body>\n\
         <h1>plumb conform</h1>\n<p>Backend: <code>{backend}</code></p>\n\
         <p id=\"summary\">{total} cases: <span class=\"pass\">{pass} passed</span>, \
         <span class=\"fail\">{fail} failed</span>, <span class=\"error\">{error} errors</span>, \
         <span class=\"skip\">{skipped} skipped</span></p>\n\
         <p id=\"classes\">failures by class: {classes}</p>\n\
         <p id=\"rule\">{rule}</p>",
        classes = class_counts(&results.failures_by_class()),
        rule = esc(super::COMPARISON_RULE),
        backend = esc(&results.backend),
        total = results.cases.len(),
    );
    h.push_str("<table id=\"areas\"><tr><th>area</th><th>pass</th><th>fail</th><th>error</th><th>skip</th><th>failures by class</th><th></th></tr>\n");
    for (area, [p, f, e, s]) in by_area(results) {
        let verdict = if f + e == 0 { "pass" } else { "fail" };
        let classes = results.failures_by_class_in(Some(area));
        let _ = writeln!(
            h,
            "<tr><td>{}</td><td>{p}</td><td>{f}</td><td>{e}</td><td>{s}</td><td>{}</td><td class=\"{verdict}\">{verdict}</td></tr>",
            esc(area),
            class_counts(&classes)
        );
    }
    // The filter is also on when the address ends in `#failures` (a link to failures only).
    h.push_str(
        "</table>\n<p><label><input type=\"checkbox\" id=\"failures-only\" \
         onchange=\"document.body.classList.toggle('failures-only', this.checked)\"> \
         show failures only</label></p>\n<script>if (location.hash === '#failures') {\
         document.getElementById('failures-only').checked = true;\
         document.body.classList.add('failures-only');}</script>\n",
    );
    // Failures and errors first, then skips, then passes; each group in id order.
    let mut order: Vec<&Record> = results.cases.iter().collect();
    order.sort_by_key(|c| match c.status {
        Status::Fail | Status::Error => 0,
        Status::Skip => 1,
        Status::Pass => 2,
    });
    for c in order {
        let word = status_word(c.status);
        let _ = writeln!(
            h,
            "<div class=\"case case-{word}\" id=\"{id}\"><h3>{id} <span class=\"{word}\">{word}</span></h3>",
            id = esc(&c.id)
        );
        if !c.message.is_empty() {
            let _ = writeln!(h, "<p class=\"message\">{}</p>", esc(&c.message));
        }
        let t = &c.tolerance;
        let _ = writeln!(
            h,
            "<p>tolerance: threshold {}, {} pixels over it allowed, FLIP mean ≤ {} — {}</p>",
            t.threshold,
            t.max_pixels,
            t.max_flip_mean,
            esc(&t.reason)
        );
        if let Some(m) = c.metrics {
            let class = m
                .class
                .map(|k| format!(" (<span class=\"class\">{}</span>)", k.as_str()))
                .unwrap_or_default();
            let _ = writeln!(
                h,
                "<p>metrics: {} pixels over{class}, max delta {}, FLIP mean {:.5}; {:.3} s</p>",
                m.pixels_over, m.max_delta, m.flip_mean, c.seconds
            );
        }
        if let (Some(cmd), Some(m)) = (&c.explain, c.metrics) {
            let [x, y] = m.worst.unwrap_or_default();
            let _ = writeln!(
                h,
                "<p>worst pixel ({x}, {y}), max delta {}: what plumb did there, stage by stage: \
                 <code class=\"explain\">{}</code></p>",
                m.max_delta,
                esc(cmd)
            );
        }
        if c.images.iter().any(Option::is_some) {
            h.push_str("<table><tr><th>expected</th><th>actual</th><th>heat map</th></tr><tr>");
            for img in &c.images {
                match img {
                    Some(src) if is_safe_relative(src) => {
                        let _ = write!(
                            h,
                            "<td><a href=\"{0}\"><img src=\"{0}\" alt=\"{0}\"></a></td>",
                            esc(src)
                        );
                    }
                    // Never a link to anything but a file of the report.
                    Some(src) => {
                        let _ = write!(h, "<td>{}</td>", esc(src));
                    }
                    None => h.push_str("<td>—</td>"),
                }
            }
            h.push_str("</tr></table>\n");
        }
        h.push_str("</div>\n");
    }
    h.push_str("</body></html>\n");
    h
}

/// The JUnit XML report.
pub fn junit(results: &Results) -> String {
    let (_, fail, error) = results.counts();
    let skipped = results.skipped();
    let mut x = String::new();
    let _ = writeln!(
        x,
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"plumb conform: {}\" tests=\"{}\" failures=\"{fail}\" errors=\"{error}\" skipped=\"{skipped}\">",
        esc(&results.backend),
        results.cases.len()
    );
    for (area, [p, f, e, s]) in by_area(results) {
        let _ = writeln!(
            x,
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{f}\" errors=\"{e}\" skipped=\"{s}\">",
            esc(area),
            p + f + e + s
        );
        for c in results.cases.iter().filter(|c| c.area == area) {
            let name = c.id.split_once('/').map_or(c.id.as_str(), |(_, n)| n);
            let _ = write!(
                x,
                "    <testcase classname=\"{}\" name=\"{}\" time=\"{:.3}\"",
                esc(area),
                esc(name),
                c.seconds
            );
            match c.status {
                Status::Pass => x.push_str("/>\n"),
                Status::Fail | Status::Error | Status::Skip => {
                    let tag = match c.status {
                        Status::Fail => "failure",
                        Status::Skip => "skipped",
                        _ => "error",
                    };
                    // A failure's class as JUnit's `type` (rounding, edge coverage, area).
                    let class = match (c.status, c.metrics.and_then(|m| m.class)) {
                        (Status::Fail, Some(k)) => format!(" type=\"{}\"", k.as_str()),
                        _ => String::new(),
                    };
                    let _ = writeln!(
                        x,
                        ">\n      <{tag} message=\"{}\"{class}/>\n    </testcase>",
                        esc(&c.message)
                    );
                }
            }
        }
        x.push_str("  </testsuite>\n");
    }
    x.push_str("</testsuites>\n");
    x
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_markup_and_control_characters() {
        assert_eq!(
            esc("a<b>&\"'\u{1}\u{1b}\u{fffe}\u{ffff}\n\t\u{7f}é"),
            "a&lt;b&gt;&amp;&quot;&#39;\\u{1}\\u{1b}\\u{fffe}\\u{ffff}&#10;&#9;\u{7f}é"
        );
    }

    /// Every character XML 1.0 allows (its `Char` production), checked over all of Unicode:
    /// what `esc` writes never holds another.
    #[test]
    fn escaped_text_holds_only_xml_characters() {
        let xml_char = |c: char| matches!(u32::from(c), 0x9 | 0xA | 0xD | 0x20..=0xD7FF | 0xE000..=0xFFFD | 0x10000..);
        let all: String = (0..=0x10FFFFu32).filter_map(char::from_u32).collect();
        let e = esc(&all);
        assert!(e.chars().all(xml_char));
    }

    #[test]
    fn only_plain_relative_paths_are_linked() {
        for ok in ["img/a__b.png", "img/x y.png", "a"] {
            assert!(is_safe_relative(ok), "{ok}");
        }
        for bad in [
            "",
            "javascript:alert(1)",
            "JAVASCRIPT:x",
            "data:text/html,x",
            "/etc/passwd",
            "img/../../x",
            "..",
            "C:\\x",
            "img\\..\\x",
            "img//x",
        ] {
            assert!(!is_safe_relative(bad), "{bad}");
        }
    }
}
