//! The node limit, checked before the document is parsed.
//!
//! The `gltf` crate parses the whole JSON into its own structures (a few hundred bytes per
//! node) and plumb then builds scene nodes from them, so a 1 GiB file of empty nodes would
//! need tens of gigabytes before any check on the parsed document could run. This pass reads
//! the JSON once with `serde`'s ignoring visitor, keeping nothing but the length of the
//! top-level `nodes` array, and refuses the file when it passes
//! [`ImportOptions::max_nodes`](crate::io::ImportOptions::max_nodes).
//!
//! JSON this pass cannot read is left to the real parser, which reports it with its line and
//! column.

use std::fmt;
use std::path::Path;

use serde::de::{Deserialize, Deserializer, IgnoredAny, SeqAccess, Visitor};

use crate::io::IoError;

/// The top-level arrays whose lengths are limited (every other member is skipped).
#[derive(serde::Deserialize)]
struct Counts {
    #[serde(default)]
    nodes: Length,
}

/// The length of a JSON array, counted without keeping its elements.
#[derive(Default)]
struct Length(usize);

impl<'de> Deserialize<'de> for Length {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Count;
        impl<'de> Visitor<'de> for Count {
            type Value = Length;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an array")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Length, A::Error> {
                let mut n = 0usize;
                while seq.next_element::<IgnoredAny>()?.is_some() {
                    n += 1;
                }
                Ok(Length(n))
            }
        }
        d.deserialize_seq(Count)
    }
}

/// Refuses `json` when its top-level `nodes` array has more than `max_nodes` elements.
pub(super) fn check_node_count(file: &Path, json: &[u8], max_nodes: usize) -> Result<(), IoError> {
    let Ok(counts) = serde_json::from_slice::<Counts>(json) else {
        return Ok(());
    };
    if counts.nodes.0 > max_nodes {
        return Err(IoError::Limit {
            file: file.to_owned(),
            what: "glTF nodes (ImportOptions::max_nodes)",
            max: max_nodes,
        });
    }
    Ok(())
}

#[cfg(feature = "internal-tests")]
pub(crate) mod tests {
    /// Every test of this module: `tests/unit.rs` runs each as one trial (an unlisted
    /// test fails the build as dead code).
    pub(crate) const TESTS: &[(&str, fn())] = &[
        ("counts_the_nodes_array_only", counts_the_nodes_array_only),
        (
            "leaves_bad_json_to_the_parser",
            leaves_bad_json_to_the_parser,
        ),
    ];

    use super::*;

    fn nodes(n: usize) -> Vec<u8> {
        let list = vec!["{}"; n].join(",");
        format!(
            r#"{{"asset":{{"version":"2.0"}},"buffers":[{{"uri":"data:,x"}}],"nodes":[{list}]}}"#
        )
        .into_bytes()
    }

    fn counts_the_nodes_array_only() {
        let f = Path::new("n.gltf");
        assert!(check_node_count(f, &nodes(3), 3).is_ok());
        let e = check_node_count(f, &nodes(4), 3).unwrap_err();
        assert_eq!(
            e.to_string(),
            "n.gltf: more than 3 glTF nodes (ImportOptions::max_nodes)"
        );
        // Other arrays and nested "nodes" members (a scene's list) do not count.
        let doc = br#"{"scenes":[{"nodes":[0,1,2,3,4]}],"nodes":[{},{}],"meshes":[1,2,3,4]}"#;
        assert!(check_node_count(f, doc, 2).is_ok());
    }

    fn leaves_bad_json_to_the_parser() {
        let f = Path::new("n.gltf");
        assert!(check_node_count(f, b"{\"nodes\": [", 0).is_ok());
        assert!(check_node_count(f, b"{\"nodes\": 7}", 0).is_ok());
    }
}
