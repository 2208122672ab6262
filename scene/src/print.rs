//! A deterministic text dump of the tree (Eberly's `ScenePrinter`): the second oracle beside
//! images. One block per node in pre-order from the given node: name (`(unnamed)` for an
//! empty one) and kind, then local
//! transform, world transform and world bound, indented two spaces per level.
//!
//! Floats are printed with Rust's shortest round-trip formatting, so the dump is exact and the
//! same on every platform. World data is printed as stored (stale until `update`; the header
//! says when the scene is dirty). Indentation stops growing past [`MAX_INDENT`] levels (deeper
//! lines show their depth instead), so a very deep chain prints in linear size.

use std::fmt::Write;

use glam::{Mat3, Vec3};

use crate::bound::Bound;
use crate::error::SceneError;
use crate::graph::{NodeId, Scene};
use crate::mesh::MeshTopology;
use crate::node::{Culling, NodeData};
use crate::transform::Transform;

/// Indentation levels printed before depth is shown as a number.
pub const MAX_INDENT: usize = 32;

fn v3(v: Vec3) -> String {
    format!("({}, {}, {})", v.x, v.y, v.z)
}

fn m3(m: Mat3) -> String {
    // Row by row, as the matrix is written on paper.
    let t = m.transpose();
    format!("[{} {} {}]", v3(t.x_axis), v3(t.y_axis), v3(t.z_axis))
}

/// One-line form of a transform.
pub fn format_transform(t: &Transform) -> String {
    if t.is_identity() {
        return "identity".to_owned();
    }
    let mut s = format!("T={}", v3(t.translation()));
    match (t.rotation(), t.scale()) {
        (Some(r), Some(sc)) => {
            if r != Mat3::IDENTITY {
                let _ = write!(s, " R={}", m3(r));
            }
            match t.uniform_scale() {
                Some(u) if u != 1.0 => {
                    let _ = write!(s, " s={u}");
                }
                Some(_) => {}
                None => {
                    let _ = write!(s, " S={}", v3(sc));
                }
            }
        }
        _ => {
            let _ = write!(s, " M={}", m3(t.matrix()));
        }
    }
    if t.is_mirror() {
        s.push_str(" mirror");
    }
    s
}

/// One-line form of a bound.
pub fn format_bound(b: &Bound) -> String {
    match *b {
        Bound::Empty => "empty".to_owned(),
        Bound::Sphere { center, radius } => format!("sphere c={} r={radius}", v3(center)),
        Bound::Aabb { min, max } => format!("box min={} max={}", v3(min), v3(max)),
    }
}

impl Scene {
    /// The dump of the whole attached tree (see the [module docs](self)).
    pub fn dump(&self) -> String {
        self.dump_from(self.root()).unwrap_or_default()
    }

    /// The dump of the subtree at `from`.
    ///
    /// # Errors
    /// [`SceneError::StaleId`].
    pub fn dump_from(&self, from: NodeId) -> Result<String, SceneError> {
        let base = self.node(from)?.depth as usize;
        let mut out = String::new();
        if self.is_dirty() {
            out.push_str("# world data stale: update() pending\n");
        }
        let mut stack = vec![from];
        while let Some(id) = stack.pop() {
            let Ok(node) = self.node(id) else {
                continue;
            };
            let level = node.depth as usize - base.min(node.depth as usize);
            let pad = "  ".repeat(level.min(MAX_INDENT));
            let deep = if level > MAX_INDENT {
                format!("@{level} ")
            } else {
                String::new()
            };
            let kind = match &node.data {
                NodeData::Group => "group".to_owned(),
                NodeData::Switch { active } => match active {
                    Some(a) => format!("switch active={}", self.name(*a).unwrap_or("<stale>")),
                    None => "switch active=none".to_owned(),
                },
                NodeData::Geometry(m) => {
                    let topo = match m.topology() {
                        MeshTopology::Points => "points",
                        MeshTopology::Lines => "lines",
                        MeshTopology::LineStrip => "line strip",
                        MeshTopology::LineLoop => "line loop",
                        MeshTopology::Triangles => "triangles",
                    };
                    format!(
                        "geometry {topo} vertices={} indices={}",
                        m.positions().len(),
                        m.indices().len()
                    )
                }
            };
            let cull = match node.cull {
                Culling::Dynamic => "",
                Culling::Always => " cull=always",
                Culling::Never => " cull=never",
            };
            let name = if node.name.is_empty() {
                "(unnamed)"
            } else {
                node.name.as_str()
            };
            let _ = writeln!(out, "{pad}{deep}{name} [{kind}{cull}]");
            let _ = writeln!(out, "{pad}  local: {}", format_transform(&node.local));
            let _ = writeln!(out, "{pad}  world: {}", format_transform(&node.world));
            let _ = writeln!(out, "{pad}  bound: {}", format_bound(&node.world_bound));
            stack.extend(node.children.iter().rev());
        }
        Ok(out)
    }
}
