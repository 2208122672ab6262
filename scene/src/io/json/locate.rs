//! Where each JSON object of a scene file starts, by JSON pointer (`/root/children/0`,
//! `/textures/2`), so that errors found while building the scene can give a line and column
//! too. A single pass over text that already parsed, with an explicit stack (no recursion).

use std::collections::BTreeMap;

use crate::io::error::Location;

/// Start positions of the objects of a document, by JSON pointer (the document itself is "").
#[derive(Debug, Default)]
pub(crate) struct Locations(BTreeMap<String, Location>);

impl Locations {
    /// The position of the object at `pointer`, if there is one.
    pub(crate) fn get(&self, pointer: &str) -> Option<Location> {
        self.0.get(pointer).copied()
    }
}

enum Frame {
    Object {
        pointer: String,
        key: Option<String>,
        expect_key: bool,
    },
    Array {
        pointer: String,
        index: usize,
    },
}

/// Scans `text` (valid JSON) and records where every object starts.
pub(crate) fn locate(text: &str) -> Locations {
    let mut out = BTreeMap::new();
    let mut stack: Vec<Frame> = Vec::new();
    let (mut line, mut column) = (1usize, 1usize);
    let mut chars = text.chars().peekable();
    // The pointer of a value starting now, under the innermost frame.
    let child = |stack: &[Frame]| -> String {
        match stack.last() {
            None => String::new(),
            Some(Frame::Object { pointer, key, .. }) => {
                format!("{pointer}/{}", key.as_deref().unwrap_or(""))
            }
            Some(Frame::Array { pointer, index }) => format!("{pointer}/{index}"),
        }
    };
    while let Some(c) = chars.next() {
        let here = Location {
            line,
            column: Some(column),
        };
        if c == '\n' {
            line += 1;
            column = 1;
        } else {
            column += 1;
        }
        match c {
            '{' => {
                let pointer = child(&stack);
                out.insert(pointer.clone(), here);
                stack.push(Frame::Object {
                    pointer,
                    key: None,
                    expect_key: true,
                });
            }
            '[' => {
                let pointer = child(&stack);
                stack.push(Frame::Array { pointer, index: 0 });
            }
            '}' | ']' => {
                stack.pop();
            }
            ',' => match stack.last_mut() {
                Some(Frame::Object { expect_key, .. }) => *expect_key = true,
                Some(Frame::Array { index, .. }) => *index += 1,
                None => {}
            },
            ':' => {
                if let Some(Frame::Object { expect_key, .. }) = stack.last_mut() {
                    *expect_key = false;
                }
            }
            '"' => {
                let mut s = String::new();
                while let Some(d) = chars.next() {
                    column += 1;
                    match d {
                        '"' => break,
                        '\\' => {
                            if let Some(e) = chars.next() {
                                column += 1;
                                s.push(e);
                            }
                        }
                        _ => s.push(d),
                    }
                }
                if let Some(Frame::Object {
                    key, expect_key, ..
                }) = stack.last_mut()
                {
                    if *expect_key {
                        *key = Some(s);
                    }
                }
            }
            _ => {}
        }
    }
    Locations(out)
}

#[cfg(feature = "internal-tests")]
pub(crate) mod tests {
    /// Every test of this module: `tests/unit.rs` runs each as one trial (an unlisted
    /// test fails the build as dead code).
    pub(crate) const TESTS: &[(&str, fn())] = &[("objects_by_pointer", objects_by_pointer)];

    use super::*;

    fn objects_by_pointer() {
        let text = "{\"root\": {\"children\": [\n  {\"name\": \"a{\"},\n  {\"x\": [1, {}]}]},\n \"textures\": [{}]}";
        let l = locate(text);
        let at = |p: &str| l.get(p).map(|l| (l.line, l.column.unwrap_or(0)));
        assert_eq!(at(""), Some((1, 1)));
        assert_eq!(at("/root"), Some((1, 10)));
        assert_eq!(at("/root/children/0"), Some((2, 3)));
        assert_eq!(at("/root/children/1"), Some((3, 3)));
        assert_eq!(at("/root/children/1/x/1"), Some((3, 13)));
        assert_eq!(at("/textures/0"), Some((4, 15)));
        assert_eq!(at("/nothing"), None);
    }
}
