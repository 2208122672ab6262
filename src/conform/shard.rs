//! Sharding the corpus across CI jobs: which shard this job is (`--partition auto`, from the
//! CI system's own variables), and which cases each shard runs — by count, or balanced by
//! the last run's per-case times (`--partition weighted:K/N --timings junit.xml`).
//!
//! # Conventions `auto` reads
//!
//! | system | variables | counts from |
//! |---|---|---|
//! | plumb | `PLUMB_SHARD=K/N` | 1 |
//! | GitLab CI (`parallel:`) | `CI_NODE_INDEX`, `CI_NODE_TOTAL` | 1 |
//! | CircleCI (`parallelism:`) | `CIRCLE_NODE_INDEX`, `CIRCLE_NODE_TOTAL` | 0 |
//! | Buildkite (`parallelism:`) | `BUILDKITE_PARALLEL_JOB`, `BUILDKITE_PARALLEL_JOB_COUNT` | 0 |
//! | Kubernetes Indexed Job | `JOB_COMPLETION_INDEX`, `JOB_COMPLETIONS` (set it from `.spec.completions`: Kubernetes does not) | 0 |
//!
//! GitHub Actions has no such variables: set `PLUMB_SHARD: ${{ matrix.shard }}/N`.
//! A pair with one variable missing, an index outside its total, two conventions that
//! disagree, or none at all is a one-line error.
//!
//! # Weighted shards
//!
//! Each case weighs its time in the timing file (a JUnit XML the kit wrote: `testcase`
//! `classname` = area, `name` = case, `time` = seconds); a case the file does not have weighs
//! the median of those it has (every case 1 when it has none: shards by count). Cases are
//! dealt heaviest first (ties by id) to the shard with the least total so far (ties to the
//! lowest shard): every job computes the same deal from the same corpus and file.

use std::collections::BTreeMap;
use std::path::Path;

use super::{Case, ConformError};

/// Which cases a shard runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Split {
    /// Case `i` (sorted by id, from 0) to shard `i mod N + 1`.
    Count,
    /// Balanced by per-case times ([`weighted`]).
    Weighted,
}

/// A `--partition` value: how to split, and shard `K` of `N` (`None`: from the environment).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PartitionSpec {
    /// By count or by weight.
    pub split: Split,
    /// `(K, N)`, 1-based; `None` for `auto`.
    pub shard: Option<(usize, usize)>,
}

/// Parses `K/N`, `count:K/N`, `auto`, `weighted:K/N` or `weighted:auto`.
///
/// # Errors
/// A one-line message.
pub fn parse_spec(s: &str) -> Result<PartitionSpec, String> {
    let (split, rest) = match s.split_once(':') {
        Some(("count", rest)) => (Split::Count, rest),
        Some(("weighted", rest)) => (Split::Weighted, rest),
        Some((other, _)) => {
            return Err(format!(
                "'{other}:': expected count:K/N, weighted:K/N, weighted:auto, K/N or auto"
            ))
        }
        None => (Split::Count, s),
    };
    // One kind only (issue 50: `count:count:1/2` was read as `count:1/2`).
    if rest.contains(':') {
        return Err(format!(
            "'{s}': one kind only: expected count:K/N, weighted:K/N, weighted:auto, K/N or auto"
        ));
    }
    let shard = if rest.trim() == "auto" {
        None
    } else {
        Some(super::parse_partition(rest)?)
    };
    Ok(PartitionSpec { split, shard })
}

/// Where `auto` found the shard, for the run's first line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Found {
    /// 1-based shard.
    pub k: usize,
    /// Shard count.
    pub n: usize,
    /// `GitLab CI (CI_NODE_INDEX=2, CI_NODE_TOTAL=4, from 1)`.
    pub source: String,
}

/// One convention: its name, its two variables (or one `K/N` variable) and where it counts
/// from.
struct Convention {
    name: &'static str,
    index: &'static str,
    total: Option<&'static str>,
    base: usize,
}

const CONVENTIONS: [Convention; 5] = [
    Convention {
        name: "plumb",
        index: "PLUMB_SHARD",
        total: None,
        base: 1,
    },
    Convention {
        name: "GitLab CI",
        index: "CI_NODE_INDEX",
        total: Some("CI_NODE_TOTAL"),
        base: 1,
    },
    Convention {
        name: "CircleCI",
        index: "CIRCLE_NODE_INDEX",
        total: Some("CIRCLE_NODE_TOTAL"),
        base: 0,
    },
    Convention {
        name: "Buildkite",
        index: "BUILDKITE_PARALLEL_JOB",
        total: Some("BUILDKITE_PARALLEL_JOB_COUNT"),
        base: 0,
    },
    Convention {
        name: "Kubernetes Indexed Job",
        index: "JOB_COMPLETION_INDEX",
        total: Some("JOB_COMPLETIONS"),
        base: 0,
    },
];

/// The shard the environment names (`env` reads a variable: `std::env::var` in the CLI).
///
/// # Errors
/// A one-line message: no convention found, a half-set pair, a value that is not a whole
/// number, an index outside its total, or two conventions that disagree.
pub fn detect(env: &dyn Fn(&str) -> Option<String>) -> Result<Found, String> {
    let mut found: Vec<Found> = Vec::new();
    for c in &CONVENTIONS {
        let index = env(c.index).filter(|v| !v.trim().is_empty());
        let Some(total_var) = c.total else {
            if let Some(v) = index {
                let (k, n) = super::parse_partition(&v).map_err(|e| format!("{}: {e}", c.index))?;
                found.push(Found {
                    k,
                    n,
                    source: format!("{} ({}={v})", c.name, c.index),
                });
            }
            continue;
        };
        let total = env(total_var).filter(|v| !v.trim().is_empty());
        let (index, total) = match (index, total) {
            (None, None) => continue,
            (Some(_), None) => {
                return Err(format!(
                    "{} is set but {total_var} is not ({})",
                    c.index, c.name
                ))
            }
            (None, Some(_)) => {
                return Err(format!(
                    "{total_var} is set but {} is not ({})",
                    c.index, c.name
                ))
            }
            (Some(i), Some(t)) => (i, t),
        };
        let num = |var: &str, v: &str| {
            v.trim()
                .parse::<usize>()
                .map_err(|_| format!("{var}={v}: not a whole number ({})", c.name))
        };
        let (i, n) = (num(c.index, &index)?, num(total_var, &total)?);
        if n == 0 || i < c.base || i - c.base >= n {
            return Err(format!(
                "{}={index} is outside {total_var}={total} ({} counts from {})",
                c.index, c.name, c.base
            ));
        }
        found.push(Found {
            k: i - c.base + 1,
            n,
            source: format!(
                "{} ({}={index}, {total_var}={total}, from {})",
                c.name, c.index, c.base
            ),
        });
    }
    let Some(first) = found.first().cloned() else {
        let names: Vec<String> = CONVENTIONS
            .iter()
            .map(|c| match c.total {
                Some(t) => format!("{}/{t}", c.index),
                None => format!("{}=K/N", c.index),
            })
            .collect();
        return Err(format!(
            "--partition auto: no shard variables set (looked for {})",
            names.join(", ")
        ));
    };
    if let Some(other) = found.iter().find(|f| (f.k, f.n) != (first.k, first.n)) {
        return Err(format!(
            "--partition auto: {} says shard {}/{}, {} says {}/{}",
            first.source, first.k, first.n, other.source, other.k, other.n
        ));
    }
    Ok(first)
}

/// Largest timing file read (bytes).
pub const MAX_TIMINGS_BYTES: u64 = 64 << 20;

/// Per-case seconds (`area/case` → time) from a JUnit XML file the kit wrote (or any with
/// `<testcase classname="AREA" name="CASE" time="SECONDS">`). Cases listed twice keep
/// the last time.
///
/// # Errors
/// The file unreadable or too large, or a `testcase` without a readable name or time
/// (with its line).
pub fn read_timings(path: &Path) -> Result<BTreeMap<String, f64>, ConformError> {
    let err = |m: String| ConformError(format!("{}: {m}", path.display()));
    // A regular file, checked on the opened handle, read no further than the limit (issue
    // 50: a FIFO blocked, /dev/zero was read to 4 GB).
    let text = plumb_scene::io::read_regular_to_string(path, MAX_TIMINGS_BYTES)
        .map_err(|e| err(e.to_string()))?;
    // Linear in the file (issue 50: a 500,000-case file ran past 150 s): a tag ends at its
    // `>` or at the next `<`, whichever comes first, so no byte is scanned twice, and the line
    // of a testcase is counted only for an error.
    let line_of = |pos: usize| text[..pos].matches('\n').count() + 1;
    if !text.contains("<testsuite") && !text.contains("<testcase") {
        return Err(err(
            "not JUnit XML: no <testsuite> or <testcase> element".to_owned()
        ));
    }
    let mut out = BTreeMap::new();
    let mut rest = text.as_str();
    while let Some(at) = rest.find("<testcase") {
        let pos = text.len() - rest.len() + at;
        rest = &rest[at + "<testcase".len()..];
        let tag = &rest[..rest.find(['>', '<']).unwrap_or(rest.len())];
        let attr = |name: &str| attribute(tag, name);
        let (Some(area), Some(case)) = (attr("classname"), attr("name")) else {
            return Err(err(format!(
                "line {}: a testcase without classname and name",
                line_of(pos)
            )));
        };
        let time = attr("time")
            .and_then(|t| t.parse::<f64>().ok())
            .filter(|t| t.is_finite() && *t >= 0.0)
            .ok_or_else(|| {
                err(format!(
                    "line {}: testcase {area}/{case} has no time in seconds",
                    line_of(pos)
                ))
            })?;
        out.insert(format!("{area}/{case}"), time);
    }
    Ok(out)
}

/// The value of attribute `name` in a tag's text, entities decoded.
fn attribute(tag: &str, name: &str) -> Option<String> {
    let mut from = 0;
    while let Some(i) = tag[from..].find(name) {
        let at = from + i;
        from = at + name.len();
        let before_ok = at == 0 || tag[..at].ends_with(char::is_whitespace);
        let after = tag[from..].trim_start();
        if !before_ok || !after.starts_with('=') {
            continue;
        }
        let after = after[1..].trim_start();
        let quote = after.chars().next().filter(|c| *c == '"' || *c == '\'')?;
        let body = &after[1..];
        let end = body.find(quote)?;
        return Some(unescape(&body[..end]));
    }
    None
}

fn unescape(s: &str) -> String {
    s.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&apos;", "'")
        .replace("&amp;", "&")
}

/// The cases of shard `k` of `n` when `cases` (sorted by id) are dealt by weight: see the
/// module docs. Every case goes to exactly one shard.
///
/// # Errors
/// `k`/`n` out of range.
pub fn weighted(
    cases: Vec<Case>,
    k: usize,
    n: usize,
    timings: &BTreeMap<String, f64>,
) -> Result<Vec<Case>, ConformError> {
    let shards = deal(&cases, n, timings)?;
    let mine = k
        .checked_sub(1)
        .and_then(|i| shards.get(i))
        .ok_or_else(|| {
            ConformError(format!(
                "--partition {k}/{n}: expected K/N with 1 <= K <= N"
            ))
        })?;
    Ok(cases
        .into_iter()
        .enumerate()
        .filter(|(i, _)| mine.contains(i))
        .map(|(_, c)| c)
        .collect())
}

/// Each shard's case indices and the weight each case was given.
///
/// # Errors
/// `n` is 0.
pub fn deal(
    cases: &[Case],
    n: usize,
    timings: &BTreeMap<String, f64>,
) -> Result<Vec<Vec<usize>>, ConformError> {
    if n == 0 {
        return Err(ConformError("--partition: N must be at least 1".to_owned()));
    }
    let mut known: Vec<f64> = cases
        .iter()
        .filter_map(|c| timings.get(&c.id).copied())
        .collect();
    known.sort_by(f64::total_cmp);
    let fallback = known.get(known.len() / 2).copied().unwrap_or(1.0);
    let weight = |c: &Case| timings.get(&c.id).copied().unwrap_or(fallback);
    let mut order: Vec<usize> = (0..cases.len()).collect();
    // Heaviest first; `cases` is sorted by id, and the sort is stable.
    order.sort_by(|&a, &b| weight(&cases[b]).total_cmp(&weight(&cases[a])));
    let mut totals = vec![0.0f64; n];
    let mut shards = vec![Vec::new(); n];
    for i in order {
        let (s, _) = totals
            .iter()
            .enumerate()
            .fold(
                (0, f64::INFINITY),
                |best, (s, &t)| if t < best.1 { (s, t) } else { best },
            );
        totals[s] += weight(&cases[i]);
        shards[s].push(i);
    }
    for s in &mut shards {
        s.sort_unstable();
    }
    Ok(shards)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let map: BTreeMap<String, String> = pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        move |k: &str| map.get(k).cloned()
    }

    #[test]
    fn each_convention_names_the_same_shard() {
        let third_of_four: [&[(&str, &str)]; 5] = [
            &[("PLUMB_SHARD", "3/4")],
            &[("CI_NODE_INDEX", "3"), ("CI_NODE_TOTAL", "4")],
            &[("CIRCLE_NODE_INDEX", "2"), ("CIRCLE_NODE_TOTAL", "4")],
            &[
                ("BUILDKITE_PARALLEL_JOB", "2"),
                ("BUILDKITE_PARALLEL_JOB_COUNT", "4"),
            ],
            &[("JOB_COMPLETION_INDEX", "2"), ("JOB_COMPLETIONS", "4")],
        ];
        for vars in third_of_four {
            let f = detect(&env(vars)).unwrap();
            assert_eq!((f.k, f.n), (3, 4), "{vars:?}");
        }
        // Two conventions that agree are fine.
        let both = [
            ("PLUMB_SHARD", "3/4"),
            ("CI_NODE_INDEX", "3"),
            ("CI_NODE_TOTAL", "4"),
        ];
        assert_eq!(detect(&env(&both)).unwrap().k, 3);
    }

    #[test]
    fn half_sets_and_contradictions_are_refused() {
        let cases: [(&[(&str, &str)], &str); 7] = [
            (&[], "no shard variables set"),
            (
                &[("CI_NODE_INDEX", "1")],
                "CI_NODE_INDEX is set but CI_NODE_TOTAL is not",
            ),
            (
                &[("CIRCLE_NODE_TOTAL", "4")],
                "CIRCLE_NODE_TOTAL is set but CIRCLE_NODE_INDEX is not",
            ),
            (
                &[("CI_NODE_INDEX", "0"), ("CI_NODE_TOTAL", "4")],
                "outside CI_NODE_TOTAL=4 (GitLab CI counts from 1)",
            ),
            (
                &[
                    ("BUILDKITE_PARALLEL_JOB", "4"),
                    ("BUILDKITE_PARALLEL_JOB_COUNT", "4"),
                ],
                "counts from 0",
            ),
            (
                &[("JOB_COMPLETION_INDEX", "x"), ("JOB_COMPLETIONS", "4")],
                "not a whole number",
            ),
            (
                &[
                    ("PLUMB_SHARD", "1/2"),
                    ("CIRCLE_NODE_INDEX", "1"),
                    ("CIRCLE_NODE_TOTAL", "2"),
                ],
                "says shard 1/2",
            ),
        ];
        for (vars, msg) in cases {
            let e = detect(&env(vars)).unwrap_err();
            assert!(e.contains(msg), "{vars:?}: {e}");
            assert!(!e.contains('\n'));
        }
    }

    #[test]
    fn specs() {
        let s = |t: &str| parse_spec(t).unwrap();
        assert_eq!(
            s("2/4"),
            PartitionSpec {
                split: Split::Count,
                shard: Some((2, 4))
            }
        );
        assert_eq!(s("count:2/4"), s("2/4"));
        assert_eq!(
            s("auto"),
            PartitionSpec {
                split: Split::Count,
                shard: None
            }
        );
        assert_eq!(
            s("weighted:auto"),
            PartitionSpec {
                split: Split::Weighted,
                shard: None
            }
        );
        assert_eq!(s("weighted:1/3").shard, Some((1, 3)));
        assert!(parse_spec("hash:1/2").is_err());
        for doubled in [
            "count:count:1/2",
            "weighted:count:1/2",
            "count:weighted:auto",
        ] {
            let e = parse_spec(doubled).unwrap_err();
            assert!(e.contains("one kind only"), "{e}");
        }
        assert!(parse_spec("5/4").is_err());
    }

    #[test]
    fn attributes_decode_entities() {
        let tag = r#" classname="a&amp;b" name='x &lt;1&gt;' time="0.250""#;
        assert_eq!(attribute(tag, "classname").as_deref(), Some("a&b"));
        assert_eq!(attribute(tag, "name").as_deref(), Some("x <1>"));
        assert_eq!(attribute(tag, "time").as_deref(), Some("0.250"));
        assert_eq!(attribute(tag, "ame"), None);
    }
}
