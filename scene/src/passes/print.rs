//! A deterministic text dump of the tree (Eberly's `ScenePrinter`, book §3 "String trees"):
//! the second oracle beside images. One block per node in pre-order from the given node: name
//! (`(unnamed)` for an empty one) and kind (`group`, `switch`, `lod` with its centre and
//! ranges, `billboard`, `bsp` / `region manager` with its plane and slots, `region` with its
//! portals, `geometry`), then local transform, world transform and world bound,
//! then what the node carries, one line each and only when present: `shares depth with its
//! children` (layered depth), the global states set on it (`state:`), the lights attached to
//! it (`light #i 'name':` with type, vectors and colours), its effect (`effect:`), each
//! transform controller (`controller:` with its type, keys or speeds and timing), mesh
//! controllers (`mesh controller:`, a skin with its bones) and its particle system
//! (`particles:`). A layer node's clear
//! ([`layer`](crate::graph::layer)) comes right after the bound (`clear: depth=… stencil=… rect=…`,
//! `kept` for a plane it leaves alone). Indented two spaces per level.
//!
//! A whole-tree [`Scene::dump`] starts with the scene-wide data that differs from a new
//! scene's: background, global ambient, reference node, depth layers, IK controllers, screen
//! polygons.
//!
//! Lights and states are printed in words (the stencil state in Rust's `Debug` form); effects
//! in `Debug` form (every field named, floats exact), except node references, which are
//! printed by name, and per-vertex colour arrays, which are counted.
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

/// A light in words: its type, the vectors it uses, its colours and what differs from the
/// defaults (attenuation, spot cone, range, off). Floats exact.
fn light_text(l: &crate::values::light::SceneLight) -> String {
    use crate::values::light::LightType;
    let mut s = match l.kind {
        LightType::Ambient => "ambient".to_owned(),
        LightType::Directional => format!("directional direction {}", v3(l.direction)),
        LightType::Point => format!("point at {}", v3(l.position)),
        LightType::Spot => format!(
            "spot at {} direction {} angle {} exponent {}",
            v3(l.position),
            v3(l.direction),
            l.angle,
            l.exponent
        ),
    };
    let _ = write!(
        s,
        ", ambient {}, diffuse {}, specular {}",
        v4(l.ambient),
        v4(l.diffuse),
        v4(l.specular)
    );
    if l.intensity != 1.0 {
        let _ = write!(s, ", intensity {}", l.intensity);
    }
    if l.attenuate {
        let _ = write!(
            s,
            ", attenuation {} {} {}",
            l.constant, l.linear, l.quadratic
        );
    }
    if let Some(inner) = l.inner_angle {
        let _ = write!(s, ", inner angle {inner}");
    }
    if let Some(r) = l.range {
        let _ = write!(s, ", range {r}");
    }
    if !l.on {
        s.push_str(", off");
    }
    s
}

/// A global state in words (the stencil state in `Debug` form, every field named); what is
/// off says so, floats exact.
fn state_text(st: &crate::values::state::GlobalState) -> String {
    use crate::values::state::GlobalState;
    match st {
        GlobalState::Material(m) => {
            let mut s = format!(
                "material emissive {}, ambient {}, diffuse {}, specular {}, shininess {}",
                v4(m.emissive),
                v4(m.ambient),
                v4(m.diffuse),
                v4(m.specular),
                m.shininess
            );
            if m.color_material {
                s.push_str(", colour material");
            }
            if m.two_sided {
                s.push_str(", two-sided");
            }
            s
        }
        GlobalState::Alpha(a) => {
            let mut s = if a.blend_enabled {
                format!(
                    "blend {:?} × source + {:?} × destination",
                    a.src_blend, a.dst_blend
                )
            } else {
                "no blending".to_owned()
            };
            if a.blend_enabled {
                if let Some((src, dst)) = a.alpha_factors {
                    let _ = write!(s, " (alpha channel {src:?}, {dst:?})");
                }
                let _ = write!(s, ", equation {:?}", a.equation);
                if let Some(e) = a.alpha_equation {
                    let _ = write!(s, " (alpha channel {e:?})");
                }
                if a.constant_color != Vec4::ZERO {
                    let _ = write!(s, ", constant {}", v4(a.constant_color));
                }
            }
            if a.test_enabled {
                let _ = write!(s, ", test alpha {:?} {}", a.test, a.reference);
            }
            s
        }
        GlobalState::Cull(c) if c.enabled => {
            format!("cull {:?} faces, front {:?}", c.cull_face, c.front_face)
        }
        GlobalState::Cull(_) => "cull off".to_owned(),
        GlobalState::ZBuffer(z) if z.enabled => format!(
            "depth test {:?}, {}",
            z.compare,
            if z.writable { "writes" } else { "read only" }
        ),
        GlobalState::ZBuffer(_) => "depth test off".to_owned(),
        GlobalState::Shade(s) => format!("shade {s:?}"),
        GlobalState::Wireframe(w) => format!("wireframe {}", if w.enabled { "on" } else { "off" }),
        GlobalState::Dither(d) => format!("dither {}", if d.enabled { "on" } else { "off" }),
        GlobalState::Fog(f) if f.enabled => format!(
            "fog {:?} {:?} from {} to {}, density {}, colour {}, by {:?}",
            f.density_function,
            f.apply,
            f.start,
            f.end,
            f.density,
            v4(f.color),
            f.distance
        ),
        GlobalState::Fog(_) => "fog off".to_owned(),
        GlobalState::PolygonOffset(o) if o.enabled => {
            format!("polygon offset factor {}, units {}", o.factor, o.units)
        }
        GlobalState::PolygonOffset(_) => "polygon offset off".to_owned(),
        GlobalState::PointLine(p) => {
            format!("point size {}, line width {}", p.point_size, p.line_width)
        }
        GlobalState::ClipPlanes(c) => {
            let planes: Vec<String> = c
                .planes
                .iter()
                .enumerate()
                .filter_map(|(i, p)| p.map(|p| format!("#{i} {}", v4(p))))
                .collect();
            if planes.is_empty() {
                "clip planes none".to_owned()
            } else {
                format!("clip planes {}", planes.join(", "))
            }
        }
        other => format!("{other:?}"),
    }
}

/// What the scene-wide tables attach to one node (see `Scene::attached`).
#[derive(Default)]
struct Attached {
    controllers: Vec<usize>,
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
        if let Some(r) = self.reference {
            let _ = writeln!(out, "# reference node: {}", display_name(self, r));
        }
        if let Some(step) = self.depth_layers {
            let _ = writeln!(out, "# depth layers: step {step}");
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
        for (i, (n, _)) in self.controllers.iter().enumerate() {
            map.entry(*n).or_default().controllers.push(i);
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
        if let crate::graph::node::NodeData::Geometry(g) = &node.data {
            if let Some(l) = &g.levels {
                let rule = l.select();
                let shown = match l.source() {
                    crate::values::levels::LevelSource::Clod { .. } => {
                        format!("record {} of 0..={}", l.current(), l.count() - 1)
                    }
                    crate::values::levels::LevelSource::Curve { min, max, .. } => {
                        format!("curve level {} of {min}..={max}", *max - l.current() as u32)
                    }
                    crate::values::levels::LevelSource::Surface { min, max, .. } => {
                        format!(
                            "surface level {} of {min}..={max}",
                            *max - l.current() as u32
                        )
                    }
                };
                let _ = writeln!(
                    out,
                    "{pad}  levels: {shown}, chosen per view (near {}, far {})",
                    rule.near, rule.far
                );
            }
        }
        if let Some(intent) = &node.intent {
            for st in &intent.states {
                let _ = writeln!(out, "{pad}  state: {}", state_text(st));
            }
            for l in &intent.lights {
                match self.lights.get(l.index() as usize) {
                    Some(light) => {
                        let name = self
                            .object_names
                            .get(&crate::values::id::ObjectRef::Light(*l))
                            .map(|n| format!(" '{n}'"))
                            .unwrap_or_default();
                        let _ = writeln!(
                            out,
                            "{pad}  light #{}{name}: {}",
                            l.index(),
                            light_text(light)
                        );
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
        for &i in &attached.controllers {
            if let Some((_, c)) = self.controllers.get(i) {
                let _ = writeln!(out, "{pad}  controller: {}", c.describe());
            }
        }
        let mesh_controllers = attached
            .mesh_controllers
            .iter()
            .filter_map(|&i| self.mesh_controllers.get(i));
        for (_, mc) in mesh_controllers {
            let bones: Vec<&str> = mc.bones().iter().map(|b| display_name(self, *b)).collect();
            if bones.is_empty() {
                let _ = writeln!(out, "{pad}  mesh controller: {}", mc.describe());
            } else {
                let _ = writeln!(
                    out,
                    "{pad}  mesh controller: {}, bones [{}]",
                    mc.describe(),
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
            if self.shared_depth.contains(&id) {
                let _ = writeln!(out, "{pad}  shares depth with its children");
            }
            self.node_extras(node, attached.get(&id), &pad, &mut out);
            stack.extend(node.children.iter().rev());
        }
        Ok(out)
    }

    /// What each node under the root carries, as the dump prints it (without indentation):
    /// `shares depth`, states, lights, effect, controllers, mesh controllers and particles,
    /// one line each; nodes that carry nothing are left out. For tools (`plumb info --json`);
    /// linear in nodes plus table entries.
    pub fn node_descriptions(&self) -> BTreeMap<NodeId, Vec<String>> {
        let attached = self.attached();
        let mut all = BTreeMap::new();
        let Ok(order) = self.preorder(self.root()) else {
            return all;
        };
        for id in order {
            let Ok(node) = self.node(id) else {
                continue;
            };
            let mut out = String::new();
            if self.shared_depth.contains(&id) {
                out.push_str("shares depth with its children\n");
            }
            self.node_extras(node, attached.get(&id), "", &mut out);
            if !out.is_empty() {
                all.insert(id, out.lines().map(|l| l.trim_start().to_owned()).collect());
            }
        }
        all
    }
}
