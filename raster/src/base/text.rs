//! Text helpers shared by plumb's file writers (scene files, draw traces).

/// Rewrites pretty-printed JSON (serde_json's `to_string_pretty`) so that every array whose
/// elements are all numbers sits on one line (`"translation": [0.0, 1.0, 0.0]`); everything
/// else is kept as it is. The result parses to the same value and ends with a newline.
pub fn compact_number_arrays(pretty: &str) -> String {
    let mut out = String::with_capacity(pretty.len());
    let lines: Vec<&str> = pretty.lines().collect();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        // A line ending in '[' opens an array (strings cannot hold raw newlines). Collapse it
        // when every element is a number.
        if line.ends_with('[') {
            let mut j = i + 1;
            let mut items = Vec::new();
            while j < lines.len() && is_number(lines[j].trim().trim_end_matches(',')) {
                items.push(lines[j].trim().trim_end_matches(','));
                j += 1;
            }
            if let Some(close) = lines.get(j).map(|l| l.trim()) {
                if !items.is_empty() && (close == "]" || close == "],") {
                    out.push_str(line);
                    out.push_str(&items.join(", "));
                    out.push_str(close);
                    out.push('\n');
                    i = j + 1;
                    continue;
                }
            }
        }
        out.push_str(line);
        out.push('\n');
        i += 1;
    }
    out
}

/// Whether a token is a JSON number as serde_json writes them.
fn is_number(t: &str) -> bool {
    !t.is_empty()
        && t.bytes()
            .all(|b| b.is_ascii_digit() || matches!(b, b'-' | b'+' | b'.' | b'e' | b'E'))
}

#[cfg(feature = "internal-tests")]
pub(crate) mod tests {
    /// Every test of this module: `tests/unit.rs` runs each as one trial (an unlisted
    /// test fails the build as dead code).
    pub(crate) const TESTS: &[(&str, fn())] = &[(
        "only_all_number_arrays_collapse",
        only_all_number_arrays_collapse,
    )];

    use super::*;

    fn only_all_number_arrays_collapse() {
        let pretty = "{\n  \"a\": [\n    1.0,\n    -2e-5\n  ],\n  \"b\": [\n    \"x\",\n    3\n  ],\n  \"c\": []\n}";
        assert_eq!(
            compact_number_arrays(pretty),
            "{\n  \"a\": [1.0, -2e-5],\n  \"b\": [\n    \"x\",\n    3\n  ],\n  \"c\": []\n}\n"
        );
    }
}
