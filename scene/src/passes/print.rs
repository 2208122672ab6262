//! A deterministic text dump of the tree (Eberly's `ScenePrinter`, book §3 "String trees"):
//! the second oracle beside images. One block per node in pre-order from the given node: name
//! (`(unnamed)` for an empty one) and kind (`group`, `switch`, `lod` with its centre and
//! ranges, `billboard`, `bsp` / `region manager` with its plane and slots, `region` with its
//! portals, `geometry`), then local transform, world transform and world bound,
//! then what the node carries, one line each and only when present: the global states set on
//! it (`state:`), the lights attached to it (`light #i:`), its effect (`effect:`), its
//! transform controllers (`controllers:`), mesh controllers (`mesh controller:`, a skin with
//! its bones) and its particle system (`particles:`). A layer node's clear
//! ([`layer`](crate::graph::layer)) comes right after the bound (`clear: depth=… stencil=… rect=…`,
//! `kept` for a plane it leaves alone). Indented two spaces per level.
//!
//! A whole-tree [`Scene::dump`] starts with the scene-wide data that differs from a new
//! scene's: background, global ambient, IK controllers, screen polygons.
//!
//! States, lights and effects are printed in Rust's `Debug` form of their values (every field
//! named, floats exact), except node references, which are printed by name, and per-vertex
//! colour arrays, which are counted.
//!
//! Floats are printed with Rust's shortest round-trip formatting, so the dump is exact and the
//! same on every platform. World data is printed as stored (stale until `update`; the header
//! says when the scene is dirty). Indentation stops growing past [`MAX_INDENT`] levels (deeper
//! lines show their depth instead), so a very deep chain prints in linear size.

use std::collections::BTreeMap;
use std::fmt::Write;

use glam::{Mat3, Vec3, Vec4};

use crate::graph::node::Culling;
use crate::graph::{NodeId, Scene};
use crate::nodes::{display_name, hooks};
use crate::values::bound::Bound;
use crate::values::effect::Effect;
use crate::values::error::SceneError;
use crate::values::transform::Transform;

/// Indentation levels printed before depth is shown as a number.
pub const MAX_INDENT: usize = 32;

fn v3(v: Vec3) -> String {
    format!("({}, {}, {})", v.x, v.y, v.z)
}

fn v4(v: Vec4) -> String {
    format!("({}, {}, {}, {})", v.x, v.y, v.z, v.w)
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

/// What the scene-wide tables attach to one node (see `Scene::attached`).
#[derive(Default)]
struct Attached {
    controllers: usize,
    mesh_controllers: Vec<usize>,
    particles: Vec<usize>,
}

impl Scene {
    /// The dump of the whole attached tree (see the [module docs](self)).
    pub fn dump(&self) -> String {
        let mut out = self.scene_wide();
        out.push_str(&self.dump_from(self.root()).unwrap_or_default());
        out
    }

    /// The scene-wide lines of [`Scene::dump`]: whatever differs from [`Scene::new`]'s.
    fn scene_wide(&self) -> String {
        let mut out = String::new();
        if self.background != Vec4::new(0.0, 0.0, 0.0, 1.0) {
            let _ = writeln!(out, "# background: {}", v4(self.background));
        }
        if self.global_ambient != Vec3::ZERO {
            let _ = writeln!(out, "# global ambient: {}", v3(self.global_ambient));
        }
        for ik in &self.ik_controllers {
            let joints: Vec<&str> = ik
                .joints()
                .iter()
                .map(|j| display_name(self, j.node()))
                .collect();
            let goals: Vec<String> = ik
                .goals()
                .iter()
                .map(|g| {
                    format!(
                        "{} -> {} weight {}",
                        display_name(self, g.effector()),
                        display_name(self, g.target()),
                        g.weight()
                    )
                })
                .collect();
            let _ = writeln!(
                out,
                "# ik: joints [{}] goals [{}] iterations {} end_to_root {} active {}",
                joints.join(", "),
                goals.join(", "),
                ik.iterations(),
                ik.order_end_to_root,
                ik.active
            );
        }
        for p in &self.screen_polygons {
            let _ = writeln!(
                out,
                "# screen polygon: layer {:?}, {} vertices, {} indices, states {:?}{}",
                p.layer,
                p.mesh.positions().len(),
                p.mesh.indices().len(),
                p.states,
                p.effect
                    .as_ref()
                    .map(|e| format!(", effect {}", self.effect_text(e)))
                    .unwrap_or_default()
            );
        }
        out
    }

    /// An effect for the dump: `Debug`, with node references by name and colour arrays
    /// counted.
    fn effect_text(&self, effect: &Effect) -> String {
        match effect {
            Effect::VertexColors(c) => format!("VertexColors({} colours)", c.len()),
            Effect::PlanarShadow {
                planes,
                light,
                color,
            } => {
                let planes: Vec<&str> = planes.iter().map(|p| display_name(self, *p)).collect();
                format!(
                    "PlanarShadow {{ planes: [{}], light: #{}, color: {} }}",
                    planes.join(", "),
                    light.index(),
                    v4(*color)
                )
            }
            Effect::PlanarReflection { planes } => {
                let planes: Vec<String> = planes
                    .iter()
                    .map(|(p, r)| format!("{} reflectance {r}", display_name(self, *p)))
                    .collect();
                format!("PlanarReflection {{ planes: [{}] }}", planes.join(", "))
            }
            Effect::BumpMap {
                base,
                normal_map,
                light,
                extra,
            } if extra.is_empty() => format!(
                "BumpMap {{ base: {base:?}, normal_map: {normal_map:?}, light: #{} }}",
                light.index()
            ),
            Effect::BumpMap {
                base,
                normal_map,
                light,
                extra,
            } => format!(
                "BumpMap {{ base: {base:?}, normal_map: {normal_map:?}, light: #{}, extra: {extra:?} }}",
                light.index()
            ),
            other => format!("{other:?}"),
        }
    }

    /// The lines of what one node carries (see the module docs), each prefixed by `pad`.
    /// Per node, what the scene-wide tables attach to it: the number of transform
    /// controllers and the indices of its mesh controllers and particle systems. Built once
    /// per dump, so the dump stays linear in nodes plus table entries.
    fn attached(&self) -> BTreeMap<NodeId, Attached> {
        let mut map: BTreeMap<NodeId, Attached> = BTreeMap::new();
        for (n, _) in &self.controllers {
            map.entry(*n).or_default().controllers += 1;
        }
        for (i, (n, _)) in self.mesh_controllers.iter().enumerate() {
            map.entry(*n).or_default().mesh_controllers.push(i);
        }
        for (i, p) in self.particle_systems.iter().enumerate() {
            map.entry(p.node).or_default().particles.push(i);
        }
        map
    }

    fn node_extras(
        &self,
        node: &crate::graph::node::Node,
        attached: Option<&Attached>,
        pad: &str,
        out: &mut String,
    ) {
        if let Some(intent) = &node.intent {
            for st in &intent.states {
                let _ = writeln!(out, "{pad}  state: {st:?}");
            }
            for l in &intent.lights {
                match self.lights.get(l.index() as usize) {
                    Some(light) => {
                        let _ = writeln!(out, "{pad}  light #{}: {light:?}", l.index());
                    }
                    None => {
                        let _ = writeln!(out, "{pad}  light #{}: <missing>", l.index());
                    }
                }
            }
            if let Some(e) = &intent.effect {
                let _ = writeln!(out, "{pad}  effect: {}", self.effect_text(e));
            }
        }
        let Some(attached) = attached else {
            return;
        };
        if attached.controllers > 0 {
            let _ = writeln!(out, "{pad}  controllers: {}", attached.controllers);
        }
        let mesh_controllers = attached
            .mesh_controllers
            .iter()
            .filter_map(|&i| self.mesh_controllers.get(i));
        for (_, mc) in mesh_controllers {
            let bones: Vec<&str> = mc.bones().iter().map(|b| display_name(self, *b)).collect();
            if bones.is_empty() {
                let _ = writeln!(out, "{pad}  mesh controller");
            } else {
                let _ = writeln!(
                    out,
                    "{pad}  mesh controller: skin, bones [{}]",
                    bones.join(", ")
                );
            }
        }
        let particles = attached
            .particles
            .iter()
            .filter_map(|&i| self.particle_systems.get(i));
        for p in particles {
            let _ = writeln!(
                out,
                "{pad}  particles: {} (active {}), size adjust {}{}{}",
                p.particles.len(),
                p.particles.active(),
                p.particles.size_adjust(),
                if p.particles.colors().is_some() {
                    ", coloured"
                } else {
                    ""
                },
                if p.controller.is_some() {
                    ", controlled"
                } else {
                    ""
                }
            );
        }
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
        let attached = self.attached();
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
            let kind = hooks(&node.data).describe(self, id);
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
            if let Some(c) = self.clears.get(&id) {
                let (x, y, w, h) = c.rect.rect();
                let depth = c.depth.map_or("kept".to_owned(), |d| format!("{d:?}"));
                let stencil = c.stencil.map_or("kept".to_owned(), |s| s.to_string());
                let _ = writeln!(
                    out,
                    "{pad}  clear: depth={depth} stencil={stencil} rect=[{x:?}, {y:?}, {w:?}, {h:?}]"
                );
            }
            self.node_extras(node, attached.get(&id), &pad, &mut out);
            stack.extend(node.children.iter().rev());
        }
        Ok(out)
    }
}
