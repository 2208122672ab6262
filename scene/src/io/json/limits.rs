//! The limits a scene file is held to: its size in bytes, its node count and its nesting
//! depth, checked before anything is built; and the size-limited file read textures use too.

use std::path::Path;

use super::doc::NodeDoc;
use crate::io::error::IoError;
use crate::io::uri;

/// Largest scene file read, in bytes (the smaller of this and
/// [`ImportOptions::max_file_bytes`](crate::io::ImportOptions::max_file_bytes) applies).
pub const MAX_FILE_BYTES: u64 = 256 << 20;
/// Most nodes a scene file may hold (counted before anything is built).
pub const MAX_NODES: usize = 1 << 20;
/// Deepest node nesting a scene file may have (the root is depth 0). Deeper JSON is already
/// refused by the parser's recursion limit of 128 nested arrays and objects (each node level
/// takes two: the node object and its `children` array).
pub const MAX_NODE_DEPTH: usize = 60;

/// Counts nodes and depth without recursion.
pub(super) fn check_tree(file: &Path, root: &NodeDoc) -> Result<(), IoError> {
    let mut stack = vec![(root, 0usize)];
    let mut count = 0usize;
    while let Some((node, depth)) = stack.pop() {
        count += 1;
        if count > MAX_NODES {
            return Err(IoError::Limit {
                file: file.to_owned(),
                what: "nodes",
                max: MAX_NODES,
            });
        }
        if depth > MAX_NODE_DEPTH {
            return Err(IoError::Limit {
                file: file.to_owned(),
                what: "levels of node nesting",
                max: MAX_NODE_DEPTH,
            });
        }
        stack.extend(node.children.iter().map(|c| (c, depth + 1)));
    }
    Ok(())
}

/// Reads `path` with a size limit.
pub(crate) fn read_limited(path: &Path, max: u64) -> Result<Vec<u8>, IoError> {
    let size = std::fs::metadata(path)
        .map_err(|e| IoError::Read {
            file: path.to_owned(),
            reason: e.to_string(),
        })?
        .len();
    if size > max {
        return Err(IoError::FileTooLarge {
            file: path.to_owned(),
            size,
            max,
        });
    }
    uri::read_file(path, max).map_err(|reason| IoError::Read {
        file: path.to_owned(),
        reason,
    })
}
