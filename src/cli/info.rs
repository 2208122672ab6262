//! `plumb info`: load a scene file and print its tree — as text (the scene graph's dump plus
//! materials, cameras, lights and animations), or as JSON for other tools. A draw trace
//! (`plumb-draws`) is summarised as text: its size and one line per command.
//!
//! JSON shape (`--json`): `{"file", "nodes": [...], "cameras", "lights", "animations",
//! "extensions", "variants", "reference_node", "depth_layers", "instances"}`. `instances`:
//! each `instance` node (`node` index, `symbol`, `min_area`, `max_depth`, `max_nodes`, `seed`,
//! and `nodes`, the size of its tree now); the text form prints them one line each.
//! `animations` lists the clips in file order (their index is what `render --clip` takes):
//! `name`, `duration` (seconds, the last key of any channel), `channels` (translation,
//! rotation, scale and morph-weights channels) and `nodes` (indices of the nodes whose
//! transforms it drives). The text form prints one line per clip:
//! `animation INDEX 'NAME': DURATION s, N channels, M nodes`. For a glTF file it then lists
//! the file's scenes, one line each, `scene INDEX 'NAME'` with ` (default)` after the one
//! drawn without `render --scene` (the index or name is what `--scene` takes).
//! `nodes` holds one object per node in tree order (pre-order, children in order, the
//! scene root first): `name`, `kind` (`group`, `geometry`, `switch`, `lod`, `billboard`,
//! `bsp`, `region_manager` or `region`: the names scene files use), `parent` (index into
//! `nodes`, `null` for the root), `local` and `world` (4×4 matrices, column-major, 16
//! numbers: translation at 12..14), `bound` (`{"center": [x,y,z], "radius": r}` or `null` when
//! empty), for geometry `vertices`, `triangles` and `material` (its name), and `carries`: what
//! the node carries, the text dump's lines (shared depth, states, lights in words, effect,
//! each controller with its type, keys and timing, mesh controllers, particles).

use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use plumb::raster::trace::{self, CommandDoc, IndexView, Trace};
use plumb::scene::io::{
    self, AlphaMode, CameraProjection, ImportOptions, ImportedLightKind, ImportedScene,
};
use plumb::scene::{InstanceOptions, NodeId, Scene};
use serde::Serialize;

use super::budget::BudgetArgs;
use super::{say, CliResult};

/// Arguments of `plumb info`.
#[derive(Debug, Args)]
pub struct InfoArgs {
    /// Scene file: a plumb scene file (.json), .gltf, .glb or .obj, or a draw trace.
    #[arg(value_name = "SCENE")]
    pub scene: PathBuf,
    /// Print JSON (one object per node in tree order) instead of text.
    #[arg(long)]
    pub json: bool,
    /// The work budget of the load: the same as `plumb render`'s (per-frame clears are
    /// checked at render's default size, 800x600).
    #[command(flatten)]
    pub budget: BudgetArgs,
}

#[derive(Serialize)]
struct JsonBound {
    center: [f32; 3],
    radius: f32,
}

#[derive(Serialize)]
struct JsonNode {
    name: String,
    kind: &'static str,
    parent: Option<usize>,
    local: [f32; 16],
    world: [f32; 16],
    bound: Option<JsonBound>,
    #[serde(skip_serializing_if = "Option::is_none")]
    vertices: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    triangles: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    material: Option<String>,
    /// What the node carries, as the text dump prints it: shared depth, states, lights,
    /// effect, controllers, mesh controllers, particles.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    carries: Vec<String>,
}

#[derive(Serialize)]
struct JsonInstance {
    node: usize,
    symbol: String,
    min_area: f64,
    max_depth: usize,
    max_nodes: usize,
    seed: u64,
    nodes: usize,
}

#[derive(Serialize)]
struct JsonRef {
    name: String,
    node: usize,
    kind: String,
}

#[derive(Serialize)]
struct JsonAnimation {
    name: String,
    duration: f32,
    channels: usize,
    nodes: Vec<usize>,
}

#[derive(Serialize)]
struct JsonExtension {
    name: String,
    required: bool,
    handling: &'static str,
    note: &'static str,
}

#[derive(Serialize)]
struct JsonInfo {
    file: String,
    nodes: Vec<JsonNode>,
    cameras: Vec<JsonRef>,
    lights: Vec<JsonRef>,
    animations: Vec<JsonAnimation>,
    extensions: Vec<JsonExtension>,
    variants: Vec<String>,
    reference_node: Option<String>,
    depth_layers: Option<f64>,
    instances: Vec<JsonInstance>,
}

/// Nodes in tree order with their parent's position in that order.
fn tree_order(scene: &Scene) -> Vec<(NodeId, Option<usize>)> {
    let mut out = Vec::new();
    let mut stack = vec![(scene.root(), None)];
    while let Some((id, parent)) = stack.pop() {
        let me = out.len();
        out.push((id, parent));
        let children = scene.children(id).unwrap_or(&[]);
        stack.extend(children.iter().rev().map(|&c| (c, Some(me))));
    }
    out
}

fn camera_kind(p: &CameraProjection) -> String {
    match p {
        CameraProjection::Perspective { yfov, .. } => format!("perspective yfov={yfov}"),
        CameraProjection::Orthographic { xmag, ymag, .. } => {
            format!("orthographic xmag={xmag} ymag={ymag}")
        }
    }
}

fn light_kind(k: &ImportedLightKind) -> String {
    match k {
        ImportedLightKind::Directional => "directional".to_owned(),
        ImportedLightKind::Point => "point".to_owned(),
        ImportedLightKind::Spot {
            inner_cone_angle,
            outer_cone_angle,
        } => format!("spot inner={inner_cone_angle} outer={outer_cone_angle}"),
    }
}

fn to_json(args: &InfoArgs, loaded: &ImportedScene) -> Result<String, String> {
    let scene = &loaded.scene;
    let order = tree_order(scene);
    let positions: std::collections::BTreeMap<NodeId, usize> = order
        .iter()
        .enumerate()
        .map(|(i, &(n, _))| (n, i))
        .collect();
    let index_of = |id: NodeId| positions.get(&id).copied().unwrap_or(usize::MAX);
    let mut carries = scene.node_descriptions();
    let mut nodes = Vec::with_capacity(order.len());
    for &(id, parent) in &order {
        let e = |e: plumb::scene::SceneError| e.to_string();
        let kind = scene.kind(id).map_err(e)?;
        let bound = scene.world_bound(id).map_err(e)?;
        let mesh = scene.mesh(id).ok();
        nodes.push(JsonNode {
            name: scene.name(id).map_err(e)?.to_owned(),
            kind: kind.name(),
            parent,
            local: scene
                .local_transform(id)
                .map_err(e)?
                .to_mat4()
                .to_cols_array(),
            world: scene
                .world_transform(id)
                .map_err(e)?
                .to_mat4()
                .to_cols_array(),
            bound: (!bound.is_empty()).then(|| JsonBound {
                center: bound.center().to_array(),
                radius: bound.radius(),
            }),
            vertices: mesh.map(|m| m.positions().len()),
            triangles: mesh.map(|m| m.triangle_count()),
            material: loaded.imported.material(id).map(|m| m.name.clone()),
            carries: carries.remove(&id).unwrap_or_default(),
        });
    }
    let info = JsonInfo {
        file: args.scene.display().to_string(),
        nodes,
        cameras: loaded
            .imported
            .cameras
            .iter()
            .map(|c| JsonRef {
                name: c.name.clone(),
                node: index_of(c.node),
                kind: camera_kind(&c.projection),
            })
            .collect(),
        lights: loaded
            .imported
            .lights
            .iter()
            .map(|l| JsonRef {
                name: l.name.clone(),
                node: index_of(l.node),
                kind: light_kind(&l.kind),
            })
            .collect(),
        animations: loaded
            .imported
            .animations
            .iter()
            .map(|a| JsonAnimation {
                name: a.name.clone(),
                duration: a.duration(),
                channels: a.channel_count(),
                nodes: a.nodes.iter().map(|n| index_of(n.node)).collect(),
            })
            .collect(),
        extensions: loaded
            .imported
            .extensions
            .iter()
            .map(|e| JsonExtension {
                name: e.name.clone(),
                required: e.required,
                handling: e.handling.word(),
                note: e.note,
            })
            .collect(),
        variants: loaded.imported.variants.clone(),
        reference_node: scene
            .reference_node()
            .map(|r| scene.name(r).unwrap_or("").to_owned()),
        depth_layers: scene.depth_layers(),
        instances: instances(loaded)
            .into_iter()
            .map(|(node, symbol, o, n)| JsonInstance {
                node: index_of(node),
                symbol,
                min_area: o.min_area,
                max_depth: o.max_depth,
                max_nodes: o.max_nodes,
                seed: o.seed,
                nodes: n,
            })
            .collect(),
    };
    // One line per node (and per camera, light, animation): readable and greppable, and
    // still one JSON document.
    fn lines<T: Serialize>(items: &[T]) -> Result<String, String> {
        let rows: Result<Vec<String>, _> = items.iter().map(serde_json::to_string).collect();
        let rows = rows.map_err(|e| e.to_string())?;
        if rows.is_empty() {
            return Ok("[]".to_owned());
        }
        Ok(format!("[\n    {}\n  ]", rows.join(",\n    ")))
    }
    let file = serde_json::to_string(&info.file).map_err(|e| e.to_string())?;
    fn json<T: Serialize>(v: &T) -> Result<String, String> {
        serde_json::to_string(v).map_err(|e| e.to_string())
    }
    Ok(format!(
        "{{\n  \"file\": {file},\n  \"nodes\": {},\n  \"cameras\": {},\n  \"lights\": {},\n  \"animations\": {},\n  \"extensions\": {},\n  \"variants\": {},\n  \"reference_node\": {},\n  \"depth_layers\": {},\n  \"instances\": {}\n}}",
        lines(&info.nodes)?,
        lines(&info.cameras)?,
        lines(&info.lights)?,
        lines(&info.animations)?,
        lines(&info.extensions)?,
        json(&info.variants)?,
        json(&info.reference_node)?,
        json(&info.depth_layers)?,
        lines(&info.instances)?,
    ))
}

/// Each `instance` node of a scene file: the node, its symbol, options and the nodes its
/// tree has now.
fn instances(loaded: &ImportedScene) -> Vec<(NodeId, String, InstanceOptions, usize)> {
    loaded
        .imported
        .instancings
        .iter()
        .map(|i| {
            let inst = &i.instancing;
            let symbol = inst
                .definitions()
                .symbols()
                .get(inst.symbol())
                .map_or_else(String::new, |s| s.name.clone());
            (inst.root(), symbol, *inst.options(), inst.node_count())
        })
        .collect()
}

fn to_text(loaded: &ImportedScene) -> String {
    let scene = &loaded.scene;
    let imp = &loaded.imported;
    let name = |id: NodeId| scene.name(id).unwrap_or("<removed>").to_owned();
    let mut out = scene.dump();
    if !imp.materials.is_empty() {
        out.push_str("materials:\n");
        for (&node, m) in &imp.materials {
            let alpha = match m.alpha_mode {
                AlphaMode::Opaque => "opaque".to_owned(),
                AlphaMode::Mask { cutoff } => format!("mask({cutoff})"),
                AlphaMode::Blend => "blend".to_owned(),
            };
            let c = m.base_color;
            let _ = write!(
                out,
                "  {} -> '{}' base=({}, {}, {}, {}) alpha={alpha}",
                name(node),
                m.name,
                c.x,
                c.y,
                c.z,
                c.w
            );
            if let Some(t) = &m.base_color_texture {
                let _ = write!(
                    out,
                    " texture={} {}x{} uv{}",
                    t.source,
                    t.texture.width(),
                    t.texture.height(),
                    t.tex_coord
                );
            }
            if m.double_sided {
                out.push_str(" double-sided");
            }
            if m.unlit {
                out.push_str(" unlit");
            }
            out.push('\n');
        }
    }
    for c in &imp.cameras {
        let _ = writeln!(
            out,
            "camera '{}' at {}: {}",
            c.name,
            name(c.node),
            camera_kind(&c.projection)
        );
    }
    for l in &imp.lights {
        let _ = writeln!(
            out,
            "light '{}' at {}: {} colour=({}, {}, {}) intensity={}",
            l.name,
            name(l.node),
            light_kind(&l.kind),
            l.color.x,
            l.color.y,
            l.color.z,
            l.intensity
        );
    }
    for (i, a) in imp.animations.iter().enumerate() {
        let _ = writeln!(
            out,
            "animation {i} '{}': {} s, {} channels, {} nodes",
            a.name,
            a.duration(),
            a.channel_count(),
            a.nodes.len()
        );
    }
    for (i, v) in imp.variants.iter().enumerate() {
        let _ = writeln!(out, "variant {i} '{v}'");
    }
    for (node, symbol, o, n) in instances(loaded) {
        let _ = writeln!(
            out,
            "instance '{}': symbol '{symbol}', min area {} px² at {}x{}, depth cap {}, node cap {}, seed {}, {n} nodes now",
            name(node),
            o.min_area,
            o.resolution.0,
            o.resolution.1,
            o.max_depth,
            o.max_nodes,
            o.seed
        );
    }
    for e in &imp.extensions {
        let _ = writeln!(
            out,
            "extension {}{}: {} ({})",
            e.name,
            if e.required { " (required)" } else { "" },
            e.handling.word(),
            e.note
        );
    }
    out
}

/// Loads the scene and prints it.
pub fn run(args: &InfoArgs) -> CliResult {
    if trace::is_trace_file(&args.scene) {
        if let Some(flag) = args.budget.first_given() {
            return Err(format!(
                "{flag} is for scene files; a draw trace is played back as recorded"
            ));
        }
        if args.json {
            return Err(format!(
                "{}: a draw trace is JSON already; --json is for scene files",
                args.scene.display()
            ));
        }
        let t = Trace::load(&args.scene).map_err(|e| e.to_string())?;
        say!(
            "{}",
            trace_text(&args.scene.display().to_string(), &t).trim_end()
        );
        return Ok(ExitCode::SUCCESS);
    }
    // Raw import (`apply: None`): `info` prints what the file holds; mapping materials and
    // lights onto render state would only cost memory (a 10⁶-node file: 1.78 GB with it).
    let options = ImportOptions {
        apply: None,
        budget: args.budget.budget(),
        ..ImportOptions::default()
    };
    let loaded = io::load(&args.scene, &options).map_err(|e| e.to_string())?;
    // The budgets `render` checks: the load's above, a frame's clears here (at render's
    // default image size; depth layers depend on the camera and are checked when drawn).
    let size = super::render::DEFAULT_SIZE;
    loaded
        .scene
        .check_clears(size.width, size.height)
        .map_err(|e| format!("{}: {e}", args.scene.display()))?;
    let text = if args.json {
        to_json(args, &loaded)?
    } else {
        let mut text = to_text(&loaded);
        if io::Format::from_path(&args.scene) == Some(io::Format::Gltf) {
            let scenes = io::gltf::gltf_scenes(&args.scene, &options).map_err(|e| e.to_string())?;
            for i in 0..scenes.names.len() {
                let _ = writeln!(text, "scene {}", super::scene_select::label(i, &scenes));
            }
        }
        text
    };
    say!("{}", text.trim_end());
    super::leak_at_exit(loaded);
    Ok(ExitCode::SUCCESS)
}

/// A draw trace as text: its size and one line per command.
fn trace_text(file: &str, t: &Trace) -> String {
    let d = &t.doc;
    let mut out = format!(
        "draw trace {file}: {}x{}, {} commands, {} textures, buffer {} ({} bytes)\n",
        d.size[0],
        d.size[1],
        d.commands.len(),
        d.textures.len(),
        d.buffer,
        t.buffer.len()
    );
    let indices = |i: &Option<IndexView>| match i {
        None => "none".to_owned(),
        Some(IndexView::U16(v)) => format!("{} u16", v.count),
        Some(IndexView::U32(v)) => format!("{} u32", v.count),
    };
    let states = |s: &plumb::raster::PipelineState| {
        format!(
            "cull={:?} polygon={:?} depth={:?}/{} blend={} stencil={}",
            s.cull,
            s.polygon_mode,
            s.depth.func,
            if s.depth.write { "write" } else { "read-only" },
            if s.blend.enabled { "on" } else { "off" },
            if s.stencil.enabled { "on" } else { "off" }
        )
    };
    for (i, c) in d.commands.iter().enumerate() {
        let _ = match c {
            CommandDoc::Clear {
                color,
                depth,
                stencil,
            } => writeln!(
                out,
                "  {i} clear color=({}, {}, {}, {}) depth={depth} stencil={stencil}",
                color.x, color.y, color.z, color.w
            ),
            CommandDoc::ClearRect {
                rect,
                color,
                depth,
                stencil,
            } => {
                let planes = [
                    color.map(|c| format!(" color=({}, {}, {}, {})", c.x, c.y, c.z, c.w)),
                    depth.map(|d| format!(" depth={d}")),
                    stencil.map(|s| format!(" stencil={s}")),
                ];
                writeln!(
                    out,
                    "  {i} clear_rect {}x{} at ({}, {}){}",
                    rect.width,
                    rect.height,
                    rect.x,
                    rect.y,
                    planes.iter().flatten().cloned().collect::<String>()
                )
            }
            CommandDoc::Draw(dr) => writeln!(
                out,
                "  {i} draw {:?} vertices={} indices={} uv_sets={} {}",
                dr.topology,
                dr.positions.count,
                indices(&dr.indices),
                dr.uvs.len(),
                states(&dr.state)
            ),
            CommandDoc::DrawFixed(dr) => writeln!(
                out,
                "  {i} draw_fixed {:?} vertices={} indices={} lights={} {}fog={} units={} {}",
                dr.topology,
                dr.positions.count,
                indices(&dr.indices),
                dr.fixed
                    .lighting
                    .map_or(0, |l| l.lights.iter().flatten().count()),
                if dr.fixed.per_pixel_lighting {
                    "per-pixel "
                } else {
                    ""
                },
                if dr.fixed.fog.is_some() { "on" } else { "off" },
                dr.fixed.units.len(),
                states(&dr.state)
            ),
        };
    }
    out
}
