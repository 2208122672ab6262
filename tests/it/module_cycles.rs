//! No import cycles between the modules of a crate (STYLE.md, "Layers").
//!
//! Reads every `src/` file of a crate, following its `mod` declarations from the crate root,
//! and turns each path into the module that defines the item it names: `use` trees
//! (`use crate::a::{b::C, d}`, `use super::*`, relative `use child::X`) and paths written in
//! code (`crate::a::f()`, `super::B`, `child::g()`). Re-exports are followed to the module that
//! defines the item, so `use crate::Scene` depends on `graph`, not on the crate root. Comments,
//! string and character literals are skipped (intra-doc links are not dependencies); inline
//! modules (`mod tests { … }`) count as part of their file's module. The test fails on a cycle
//! and prints each one with the line that makes every edge.
//!
//! For plumb-scene it also checks the layer order of its module map (`SCENE_LAYERS`): a
//! module imports only from its own layer and the layers below.
//!
//! Plain Rust, no dependencies: `cargo test --test it -- module_cycles::` (it also runs as part of
//! `cargo test --workspace`). `cargo-modules dependencies --acyclic` was tried instead (0.27;
//! 0.28 needs a newer rustc): it checks rust-analyzer's item-level graph and stopped on a false
//! cycle between `glam::Vec3` and a trait implementation in plumb-scene, and it takes a long
//! install — so this test, which needs nothing, is the check.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// One crate root to check.
struct Checked {
    /// Name in messages.
    name: &'static str,
    /// The crate root file, relative to the workspace root.
    root: &'static str,
    /// `Some(reason)`: the crate's cycles are printed but do not fail the test (yet).
    skip: Option<&'static str>,
}

/// Every crate root of the workspace. A skipped entry must say why and what tracks the fix.
const CHECKED: &[Checked] = &[
    Checked {
        name: "plumb-scene",
        root: "scene/src/lib.rs",
        skip: None,
    },
    Checked {
        name: "plumb (library)",
        root: "src/lib.rs",
        skip: None,
    },
    Checked {
        name: "plumb (CLI binary)",
        root: "src/main.rs",
        skip: None,
    },
    Checked {
        name: "plumb-raster",
        root: "raster/src/lib.rs",
        skip: None,
    },
];

/// plumb-scene's layers, bottom first (its crate docs have the module map), one folder each:
/// a module may import from its own layer and the layers below, never from above. A new
/// top-level module must be added to one.
const SCENE_LAYERS: &[(&str, &[&str])] = &[
    ("value types", &["values"]),
    ("graph", &["graph"]),
    ("node kinds", &["nodes"]),
    ("passes", &["passes"]),
    ("frame", &["frame"]),
    ("file I/O", &["io"]),
];

#[test]
fn scene_layers_import_only_downwards() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("scene/src/lib.rs");
    let graph = ModuleGraph::read(&root);
    let layer_of = |m: &Module| -> Option<usize> {
        let top = m.first()?;
        SCENE_LAYERS
            .iter()
            .position(|(_, mods)| mods.contains(&top.as_str()))
    };
    let mut problems = Vec::new();
    for m in graph.files.keys() {
        if let Some(top) = m.first() {
            if layer_of(m).is_none() {
                problems.push(format!(
                    "module `{top}` is in no layer: add it to SCENE_LAYERS"
                ));
            }
        }
    }
    for (from, targets) in graph.edges() {
        let (Some(a), Some(file)) = (layer_of(&from), graph.files.get(&from)) else {
            continue;
        };
        for (to, (line, path)) in targets {
            if let Some(b) = layer_of(&to) {
                if b > a {
                    problems.push(format!(
                        "{}:{line} ({}, layer {}) uses {path} ({}, layer {})",
                        graph.relative(file),
                        from.join("::"),
                        SCENE_LAYERS[a].0,
                        to.join("::"),
                        SCENE_LAYERS[b].0
                    ));
                }
            }
        }
    }
    problems.sort();
    problems.dedup();
    assert!(
        problems.is_empty(),
        "plumb-scene imports against its layers:\n{}",
        problems.join("\n")
    );
}

/// plumb-raster's floors, bottom first (its crate docs have the module map): a module imports
/// from its own floor and the floors below, never from above, and only from an item's home
/// (`ModuleGraph::import_rules`). A new top-level module must be added to one.
const RASTER_LAYERS: &[(&str, &[&str])] = &[
    ("base", &["base"]),
    ("plain data", &["state", "vertex", "target"]),
    ("texture", &["texture"]),
    ("shading", &["shading"]),
    ("probe vocabulary", &["history"]),
    ("geometry", &["geometry"]),
    ("fragment", &["fragment"]),
    ("context", &["context"]),
    ("fixed function", &["fixed_function"]),
    ("draw target", &["draw_target"]),
    ("explain and trace", &["explain", "trace"]),
];

/// plumb-raster as written: imports only down its floors, no import through the crate root
/// or a relay, no cycle between files or folders (re-exports not followed).
#[test]
fn raster_floors_import_only_downwards_from_homes() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join(
        std::env::var("PLUMB_RASTER_ROOT").unwrap_or_else(|_| "raster/src/lib.rs".to_owned()),
    );
    let graph = ModuleGraph::read(&root);
    let mut problems = graph.upward_imports("plumb-raster", RASTER_LAYERS);
    problems.extend(graph.import_rules());
    problems.extend(graph.written_cycles());
    assert!(
        problems.is_empty(),
        "plumb-raster against its floors ({} problems):\n{}",
        problems.len(),
        problems.join("\n")
    );
}

#[test]
fn no_module_cycles() {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut failures = String::new();
    for c in CHECKED {
        let graph = ModuleGraph::read(&workspace.join(c.root));
        let cycles = graph.cycles();
        if cycles.is_empty() {
            if let Some(reason) = c.skip {
                eprintln!(
                    "note: {} is skipped ({reason}) but has no module cycle now: remove its skip",
                    c.name
                );
            }
            continue;
        }
        let mut report = format!("{}: {} module cycle(s)\n", c.name, cycles.len());
        for cycle in &cycles {
            report.push_str(&graph.describe(cycle));
        }
        match c.skip {
            Some(reason) => eprintln!("skipped ({reason}):\n{report}"),
            None => failures.push_str(&report),
        }
    }
    assert!(
        failures.is_empty(),
        "import cycles between modules:\n{failures}"
    );
}

/// A module path from the crate root (`[]` is the root).
type Module = Vec<String>;
/// A path named in a file module: the module it is written in (file or inline), the absolute
/// path, the line.
type Use = (Module, Module, usize);
/// Edges between file modules: from → to → (line, path) of the first use.
type Edges = BTreeMap<Module, BTreeMap<Module, (usize, String)>>;

/// The modules of one crate and the `use` edges between them.
struct ModuleGraph {
    /// File modules by path (`[]` is the crate root), with their file.
    files: BTreeMap<Vec<String>, PathBuf>,
    /// Every module path (file and inline) → the file module it belongs to.
    owner: BTreeMap<Vec<String>, Vec<String>>,
    /// Items defined in each module (file or inline).
    defined: BTreeMap<Vec<String>, BTreeSet<String>>,
    /// Names brought in by `use` in each module: name → absolute source path.
    imports: BTreeMap<Vec<String>, BTreeMap<String, Vec<String>>>,
    /// Glob imports of each module (absolute module paths).
    globs: BTreeMap<Vec<String>, Vec<Vec<String>>>,
    /// Paths each file module names: (module the path is written in, absolute path, line).
    uses: BTreeMap<Module, Vec<Use>>,
    /// The same paths with how they were written (for the as-written rules).
    written: BTreeMap<Module, Vec<Written>>,
}

/// A path as written in a file module, for [`ModuleGraph::import_rules`].
struct Written {
    /// Absolute path.
    abs: Module,
    line: usize,
    /// For a `use` leaf, its re-export visibility ([`RawPath::reexport`]).
    reexport: Option<bool>,
}

/// A path as written: its first segment decides how it resolves.
#[derive(Debug, Clone)]
struct RawPath {
    segments: Vec<String>,
    glob: bool,
    alias: Option<String>,
    line: usize,
    /// For a `use` leaf: `Some(true)` in a `pub use`, `Some(false)` in a restricted one
    /// (`pub(crate) use`, `pub(super) use`), `None` in a private one.
    reexport: Option<bool>,
}

impl ModuleGraph {
    fn read(root: &Path) -> ModuleGraph {
        let mut g = ModuleGraph {
            files: BTreeMap::new(),
            owner: BTreeMap::new(),
            defined: BTreeMap::new(),
            imports: BTreeMap::new(),
            globs: BTreeMap::new(),
            uses: BTreeMap::new(),
            written: BTreeMap::new(),
        };
        // Pass 1: discover modules, items, imports and raw paths.
        let mut raw: Vec<(Vec<String>, Vec<String>, RawPath, bool)> = Vec::new();
        let mut queue = VecDeque::from([(Vec::<String>::new(), root.to_path_buf())]);
        while let Some((module, file)) = queue.pop_front() {
            let text = std::fs::read_to_string(&file)
                .unwrap_or_else(|e| panic!("cannot read {}: {e}", file.display()));
            g.files.insert(module.clone(), file.clone());
            let parsed = parse_file(&strip(&text));
            for (inline, _) in &parsed.inline_modules {
                let mut path = module.clone();
                path.extend(inline.iter().cloned());
                g.owner.insert(path, module.clone());
            }
            g.owner.insert(module.clone(), module.clone());
            for (inline, name) in &parsed.items {
                let mut path = module.clone();
                path.extend(inline.iter().cloned());
                g.defined.entry(path).or_default().insert(name.clone());
            }
            let dir = module_dir(&file, module.is_empty());
            for (inline, name) in &parsed.file_modules {
                let mut path = module.clone();
                path.extend(inline.iter().cloned());
                let mut child_dir = dir.clone();
                for m in inline {
                    child_dir.push(m);
                }
                let flat = child_dir.join(format!("{name}.rs"));
                let nested = child_dir.join(name).join("mod.rs");
                let child_file = if flat.exists() { flat } else { nested };
                path.push(name.clone());
                queue.push_back((path, child_file));
            }
            for (inline, path, is_use) in parsed.paths {
                let mut at = module.clone();
                at.extend(inline.iter().cloned());
                raw.push((module.clone(), at, path, is_use));
            }
        }
        // Child modules are items of their parent too.
        let modules: Vec<Vec<String>> = g.owner.keys().cloned().collect();
        for m in &modules {
            if let Some((last, parent)) = m.split_last() {
                g.defined
                    .entry(parent.to_vec())
                    .or_default()
                    .insert(last.clone());
            }
        }
        // Pass 2: absolute paths; `use` statements bind names.
        let mut resolved = Vec::new();
        for (file_module, at, path, is_use) in raw {
            let Some(abs) = g.absolute(&at, &path.segments) else {
                continue;
            };
            if is_use {
                if path.glob {
                    g.globs.entry(at.clone()).or_default().push(abs.clone());
                } else if let Some(last) = abs.last() {
                    let name = path.alias.clone().unwrap_or_else(|| last.clone());
                    if name != "self" && name != "_" {
                        g.imports
                            .entry(at.clone())
                            .or_default()
                            .insert(name, abs.clone());
                    }
                }
            }
            g.written
                .entry(file_module.clone())
                .or_default()
                .push(Written {
                    abs: abs.clone(),
                    line: path.line,
                    reexport: path.reexport,
                });
            resolved.push((file_module, at, abs, path.line));
        }
        for (file_module, at, abs, line) in resolved {
            g.uses.entry(file_module).or_default().push((at, abs, line));
        }
        g
    }

    /// An absolute path (from the crate root) for `segments` written in module `at`, or `None`
    /// for a path into another crate (or a local name that is not a module).
    fn absolute(&self, at: &[String], segments: &[String]) -> Option<Vec<String>> {
        let first = segments.first()?;
        let mut out: Vec<String>;
        let mut rest = &segments[1..];
        match first.as_str() {
            "crate" => out = Vec::new(),
            "self" => out = at.to_vec(),
            "super" => {
                out = at.to_vec();
                out.pop();
                while rest.first().is_some_and(|s| s == "super") {
                    out.pop();
                    rest = &rest[1..];
                }
            }
            name => {
                let mut child = at.to_vec();
                child.push(name.to_owned());
                if self.owner.contains_key(&child) {
                    out = at.to_vec();
                    rest = segments;
                } else {
                    return None;
                }
            }
        }
        out.extend(rest.iter().filter(|s| *s != "self").cloned());
        Some(out)
    }

    /// The file module defining the item an absolute path names.
    fn target(&self, abs: &[String], depth: usize) -> Option<Vec<String>> {
        if depth > 32 {
            return None;
        }
        // The longest prefix that is a module.
        let mut k = abs.len();
        while k > 0 && !self.owner.contains_key(&abs[..k]) {
            k -= 1;
        }
        let module = abs[..k].to_vec();
        let Some(name) = abs.get(k) else {
            return self.owner.get(&module).cloned();
        };
        if self.defined.get(&module).is_some_and(|d| d.contains(name)) {
            return self.owner.get(&module).cloned();
        }
        if let Some(source) = self.imports.get(&module).and_then(|i| i.get(name)) {
            let mut next = source.clone();
            next.extend(abs[k + 1..].iter().cloned());
            if next != abs {
                return self.target(&next, depth + 1);
            }
        }
        for glob in self.globs.get(&module).into_iter().flatten() {
            let mut next = glob.clone();
            next.extend(abs[k..].iter().cloned());
            if let Some(t) = self.target(&next, depth + 1) {
                let mut m = glob.clone();
                m.push(name.clone());
                let defines = self.defined.get(glob).is_some_and(|d| d.contains(name))
                    || self.imports.get(glob).is_some_and(|i| i.contains_key(name))
                    || self.owner.contains_key(&m);
                if defines || self.globs.contains_key(glob) {
                    return Some(t);
                }
            }
        }
        // Not found (a prelude name, an enum variant path, …): the module itself.
        self.owner.get(&module).cloned()
    }

    /// Edges between file modules: from → to → (line, path) of the first use.
    fn edges(&self) -> Edges {
        let mut edges: BTreeMap<_, BTreeMap<_, _>> = BTreeMap::new();
        for (from, uses) in &self.uses {
            for (_, abs, line) in uses {
                let Some(to) = self.target(abs, 0) else {
                    continue;
                };
                if &to != from {
                    edges
                        .entry(from.clone())
                        .or_default()
                        .entry(to)
                        .or_insert_with(|| (*line, format!("crate::{}", abs.join("::"))));
                }
            }
        }
        edges
    }

    /// The module a path is written through (its longest prefix that is a module) and the
    /// item it names there, if any.
    fn written_module(&self, abs: &[String]) -> (Module, Option<String>) {
        let mut k = abs.len();
        while k > 0 && !self.owner.contains_key(&abs[..k]) {
            k -= 1;
        }
        (abs[..k].to_vec(), abs.get(k).cloned())
    }

    /// Edges between file modules as the paths are written: to the file of the module a path
    /// goes through, re-exports not followed (`use crate::Error` is an edge to the crate root).
    fn written_edges(&self) -> Edges {
        let mut edges: Edges = BTreeMap::new();
        for (from, paths) in &self.written {
            for w in paths {
                let (through, _) = self.written_module(&w.abs);
                let Some(to) = self.owner.get(&through) else {
                    continue;
                };
                if to != from {
                    edges
                        .entry(from.clone())
                        .or_default()
                        .entry(to.clone())
                        .or_insert_with(|| (w.line, format!("crate::{}", w.abs.join("::"))));
                }
            }
        }
        edges
    }

    /// The import rules of a layered crate, as the paths are written: nothing inside the
    /// crate imports through the crate root; an item is imported from its home, or through
    /// the facade of a folder it lives in (its `mod.rs` re-export) from outside that folder;
    /// no module re-exports another's item for the crate (`pub(crate) use` of an item from
    /// outside its own subtree: a relay). Each problem, with file and line.
    fn import_rules(&self) -> Vec<String> {
        let within = |m: &[String], folder: &[String]| m.starts_with(folder);
        let mut problems = Vec::new();
        for (from, paths) in &self.written {
            if from.is_empty() {
                continue; // the crate root is the module map: it may name anything
            }
            let file = self.relative(&self.files[from]);
            for w in paths {
                let (through, item) = self.written_module(&w.abs);
                let path = format!("crate::{}", w.abs.join("::"));
                let Some(item) = item else {
                    continue; // a module itself
                };
                let home = self.target(&w.abs, 0).unwrap_or_default();
                let defined = self
                    .defined
                    .get(&through)
                    .is_some_and(|d| d.contains(&item));
                // A folder's facade: its `mod.rs` re-exports an item of its own subtree, for
                // importers outside the folder.
                let facade = within(&home, &through) && !within(from, &through);
                if through.is_empty() {
                    problems.push(format!(
                        "{file}:{} imports {path} through the crate root; its home is `{}`",
                        w.line,
                        home.join("::")
                    ));
                } else if !defined && !facade {
                    problems.push(format!(
                        "{file}:{} imports {path} through `{}`, which relays it; its home is `{}`",
                        w.line,
                        through.join("::"),
                        home.join("::")
                    ));
                }
                if w.reexport == Some(false) && !within(&home, from) {
                    problems.push(format!(
                        "{file}:{} re-exports {path} for the crate (a relay): import it from `{}` where it is used",
                        w.line,
                        home.join("::")
                    ));
                }
            }
        }
        problems.sort();
        problems.dedup();
        problems
    }

    /// Imports that reach up `layers` (bottom first; each a list of top-level modules), as
    /// written, and top-level modules in no layer.
    fn upward_imports(&self, crate_name: &str, layers: &[(&str, &[&str])]) -> Vec<String> {
        let layer_of = |m: &Module| -> Option<usize> {
            let top = m.first()?;
            layers
                .iter()
                .position(|(_, mods)| mods.contains(&top.as_str()))
        };
        let mut problems = Vec::new();
        for m in self.files.keys() {
            if let (Some(top), None) = (m.first(), layer_of(m)) {
                problems.push(format!("{crate_name}: module `{top}` is in no layer"));
            }
        }
        for (from, targets) in self.written_edges() {
            let Some(a) = layer_of(&from) else { continue };
            for (to, (line, path)) in targets {
                if let Some(b) = layer_of(&to) {
                    if b > a {
                        problems.push(format!(
                            "{}:{line} ({}, layer {}) uses {path} ({}, layer {})",
                            self.relative(&self.files[&from]),
                            from.join("::"),
                            layers[a].0,
                            to.join("::"),
                            layers[b].0
                        ));
                    }
                }
            }
        }
        problems.sort();
        problems.dedup();
        problems
    }

    /// Cycles of the as-written edges between files, and between top-level folders (each
    /// folder or root file one node; edges inside a folder left out).
    fn written_cycles(&self) -> Vec<String> {
        let edges = self.written_edges();
        let nodes: Vec<Module> = self.files.keys().cloned().collect();
        let mut out = Vec::new();
        for c in strongly_connected(&nodes, &edges) {
            if c.len() > 1 {
                let names: Vec<String> = c.iter().map(|m| m.join("::")).collect();
                out.push(format!("file cycle: {}", names.join(", ")));
            }
        }
        let top = |m: &Module| -> Module { m.iter().take(1).cloned().collect() };
        let mut folder_edges: Edges = BTreeMap::new();
        for (from, targets) in &edges {
            for (to, site) in targets {
                let (a, b) = (top(from), top(to));
                if a != b && !a.is_empty() && !b.is_empty() {
                    folder_edges
                        .entry(a)
                        .or_default()
                        .entry(b)
                        .or_insert_with(|| site.clone());
                }
            }
        }
        let folders: Vec<Module> = nodes
            .iter()
            .map(top)
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
        for c in strongly_connected(&folders, &folder_edges) {
            if c.len() > 1 {
                let names: Vec<String> = c.iter().map(|m| m.join("::")).collect();
                out.push(format!("folder cycle: {}", names.join(", ")));
            }
        }
        out
    }

    /// One shortest cycle through every strongly connected component with more than one module.
    fn cycles(&self) -> Vec<Vec<Vec<String>>> {
        let edges = self.edges();
        let nodes: Vec<Vec<String>> = self.files.keys().cloned().collect();
        let mut out = Vec::new();
        for component in strongly_connected(&nodes, &edges) {
            if component.len() < 2 {
                continue;
            }
            let inside: BTreeSet<&Vec<String>> = component.iter().collect();
            // Shortest cycle through the component's first module (breadth-first).
            let start = &component[0];
            let mut prev: BTreeMap<&Vec<String>, &Vec<String>> = BTreeMap::new();
            let mut queue = VecDeque::from([start]);
            let mut closing = None;
            'search: while let Some(n) = queue.pop_front() {
                for next in edges.get(n).into_iter().flat_map(|e| e.keys()) {
                    if !inside.contains(next) {
                        continue;
                    }
                    if next == start {
                        closing = Some(n);
                        break 'search;
                    }
                    if !prev.contains_key(next) {
                        prev.insert(next, n);
                        queue.push_back(next);
                    }
                }
            }
            let mut middle = Vec::new();
            let mut cur = closing.expect("a component of two or more modules has a cycle");
            while cur != start {
                middle.push(cur.clone());
                cur = prev[cur];
            }
            middle.reverse();
            let mut cycle = vec![start.clone()];
            cycle.extend(middle);
            cycle.push(start.clone());
            // The component's other members, for the report.
            let mut all = cycle.clone();
            all.extend(component.iter().filter(|m| !cycle.contains(m)).cloned());
            out.push(all);
        }
        out
    }

    /// `file` relative to the workspace root.
    fn relative(&self, file: &Path) -> String {
        let workspace = Path::new(env!("CARGO_MANIFEST_DIR"));
        file.strip_prefix(workspace)
            .unwrap_or(file)
            .display()
            .to_string()
    }

    /// `a → b → a`, one line per edge with the file, line and path that make it.
    fn describe(&self, cycle_and_rest: &[Vec<String>]) -> String {
        let edges = self.edges();
        let name = |m: &Vec<String>| {
            if m.is_empty() {
                "crate".to_owned()
            } else {
                m.join("::")
            }
        };
        let len = cycle_and_rest[1..]
            .iter()
            .position(|m| *m == cycle_and_rest[0])
            .map_or(cycle_and_rest.len(), |p| p + 2);
        let (cycle, rest) = cycle_and_rest.split_at(len);
        let mut s = format!(
            "  cycle: {}\n",
            cycle.iter().map(name).collect::<Vec<_>>().join(" -> ")
        );
        for pair in cycle.windows(2) {
            let (line, path) = &edges[&pair[0]][&pair[1]];
            let _ = writeln!(
                s,
                "    {}:{line} uses {path}",
                self.relative(&self.files[&pair[0]])
            );
        }
        if !rest.is_empty() {
            let _ = writeln!(
                s,
                "  in the same cycle group: {}; its other edges:",
                rest.iter().map(name).collect::<Vec<_>>().join(", ")
            );
            let mut group: Vec<&Vec<String>> = cycle.iter().chain(rest).collect();
            group.sort();
            group.dedup();
            for from in &group {
                for (to, (line, path)) in edges.get(*from).into_iter().flatten() {
                    let on_cycle = cycle.windows(2).any(|w| &w[0] == *from && &w[1] == to);
                    if group.contains(&to) && !on_cycle {
                        let _ = writeln!(
                            s,
                            "    {}:{line} uses {path}",
                            self.relative(&self.files[*from])
                        );
                    }
                }
            }
        }
        s
    }
}

/// The directory holding a module's child files.
fn module_dir(file: &Path, is_root: bool) -> PathBuf {
    let parent = file.parent().unwrap_or(Path::new(".")).to_path_buf();
    let stem = file.file_stem().and_then(|s| s.to_str()).unwrap_or("");
    if is_root || stem == "mod" {
        parent
    } else {
        parent.join(stem)
    }
}

/// Tarjan's strongly connected components (iterative).
fn strongly_connected(nodes: &[Vec<String>], edges: &Edges) -> Vec<Vec<Vec<String>>> {
    let index_of: BTreeMap<&Vec<String>, usize> =
        nodes.iter().enumerate().map(|(i, n)| (n, i)).collect();
    let succ: Vec<Vec<usize>> = nodes
        .iter()
        .map(|n| {
            edges
                .get(n)
                .into_iter()
                .flat_map(|e| e.keys())
                .filter_map(|t| index_of.get(t).copied())
                .collect()
        })
        .collect();
    let n = nodes.len();
    let (mut index, mut low, mut on_stack) = (vec![usize::MAX; n], vec![0; n], vec![false; n]);
    let (mut stack, mut out, mut next) = (Vec::new(), Vec::new(), 0);
    for start in 0..n {
        if index[start] != usize::MAX {
            continue;
        }
        let mut work = vec![(start, 0usize)];
        while let Some(&mut (v, ref mut i)) = work.last_mut() {
            if *i == 0 {
                index[v] = next;
                low[v] = next;
                next += 1;
                stack.push(v);
                on_stack[v] = true;
            }
            if let Some(&w) = succ[v].get(*i) {
                *i += 1;
                if index[w] == usize::MAX {
                    work.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            work.pop();
            if let Some(&(parent, _)) = work.last() {
                low[parent] = low[parent].min(low[v]);
            }
            if low[v] == index[v] {
                let mut component = Vec::new();
                while let Some(w) = stack.pop() {
                    on_stack[w] = false;
                    component.push(nodes[w].clone());
                    if w == v {
                        break;
                    }
                }
                component.sort();
                out.push(component);
            }
        }
    }
    out.sort();
    out
}

/// Source text with comments, strings and character literals blanked out (newlines kept, so
/// line numbers stay right).
fn strip(text: &str) -> String {
    let c: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    let blank = |out: &mut String, ch: char| out.push(if ch == '\n' { '\n' } else { ' ' });
    let ident = |ch: char| ch.is_alphanumeric() || ch == '_';
    while i < c.len() {
        let prev_ident = i > 0 && ident(c[i - 1]);
        if c[i] == '/' && c.get(i + 1) == Some(&'/') {
            while i < c.len() && c[i] != '\n' {
                i += 1;
            }
        } else if c[i] == '/' && c.get(i + 1) == Some(&'*') {
            let mut depth = 0;
            while i < c.len() {
                if c[i] == '/' && c.get(i + 1) == Some(&'*') {
                    depth += 1;
                    blank(&mut out, ' ');
                    i += 1;
                } else if c[i] == '*' && c.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    blank(&mut out, ' ');
                    i += 1;
                    if depth == 0 {
                        blank(&mut out, ' ');
                        i += 1;
                        break;
                    }
                }
                blank(&mut out, c[i]);
                i += 1;
            }
        } else if !prev_ident && (c[i] == 'r' || (c[i] == 'b' && c.get(i + 1) == Some(&'r'))) && {
            let mut j = i + if c[i] == 'b' { 2 } else { 1 };
            while c.get(j) == Some(&'#') {
                j += 1;
            }
            c.get(j) == Some(&'"')
        } {
            // Raw string: r#"…"#.
            let mut j = i + if c[i] == 'b' { 2 } else { 1 };
            let mut hashes = 0;
            while c[j] == '#' {
                hashes += 1;
                j += 1;
            }
            j += 1;
            while j < c.len() {
                if c[j] == '"' && (0..hashes).all(|h| c.get(j + 1 + h) == Some(&'#')) {
                    j += 1 + hashes;
                    break;
                }
                j += 1;
            }
            for &ch in &c[i..j.min(c.len())] {
                blank(&mut out, ch);
            }
            i = j;
        } else if c[i] == '"' {
            blank(&mut out, ' ');
            i += 1;
            while i < c.len() && c[i] != '"' {
                if c[i] == '\\' {
                    blank(&mut out, c[i]);
                    i += 1;
                }
                if i < c.len() {
                    blank(&mut out, c[i]);
                    i += 1;
                }
            }
            blank(&mut out, ' ');
            i += 1;
        } else if c[i] == '\'' && (!prev_ident || (c[i - 1] == 'b' && (i < 2 || !ident(c[i - 2]))))
        {
            // A character literal ('a', '\n', '\u{1F600}') or a lifetime ('a).
            let end = if c.get(i + 1) == Some(&'\\') {
                (i + 3..c.len()).find(|&j| c[j] == '\'')
            } else if c.get(i + 2) == Some(&'\'') {
                Some(i + 2)
            } else {
                None
            };
            match end {
                Some(e) => {
                    for &ch in &c[i..=e] {
                        blank(&mut out, ch);
                    }
                    i = e + 1;
                }
                None => {
                    out.push(c[i]);
                    i += 1;
                }
            }
        } else {
            out.push(c[i]);
            i += 1;
        }
    }
    out
}

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Ident(String),
    Colons,
    Punct(char),
}

/// What one file declares and names.
#[derive(Default)]
struct Parsed {
    /// Inline modules (`mod x { … }`), as paths relative to the file module.
    inline_modules: Vec<(Vec<String>, ())>,
    /// `mod x;` declarations: (inline module path they sit in, name).
    file_modules: Vec<(Vec<String>, String)>,
    /// Items defined: (inline module path, name).
    items: Vec<(Vec<String>, String)>,
    /// Paths: (inline module path, path, written in a `use`).
    paths: Vec<(Vec<String>, RawPath, bool)>,
}

fn tokenize(text: &str) -> Vec<(Tok, usize)> {
    let mut toks = Vec::new();
    let mut line = 1;
    let c: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < c.len() {
        let ch = c[i];
        if ch == '\n' {
            line += 1;
            i += 1;
        } else if ch.is_whitespace() {
            i += 1;
        } else if ch.is_alphabetic() || ch == '_' || (ch == '$' && c.get(i + 1) == Some(&'c')) {
            let start = i;
            i += 1;
            while i < c.len() && (c[i].is_alphanumeric() || c[i] == '_') {
                i += 1;
            }
            let word: String = c[start..i].iter().collect();
            let word = if word == "$crate" {
                "crate".to_owned()
            } else {
                word
            };
            // `r#ident`
            if word == "r" && c.get(i) == Some(&'#') {
                i += 1;
                continue;
            }
            toks.push((Tok::Ident(word), line));
        } else if ch.is_ascii_digit() {
            while i < c.len() && (c[i].is_alphanumeric() || c[i] == '_' || c[i] == '.') {
                if c[i] == '.' && c.get(i + 1) == Some(&'.') {
                    break;
                }
                i += 1;
            }
        } else if ch == ':' && c.get(i + 1) == Some(&':') {
            toks.push((Tok::Colons, line));
            i += 2;
        } else {
            toks.push((Tok::Punct(ch), line));
            i += 1;
        }
    }
    toks
}

const ITEM_KEYWORDS: &[&str] = &[
    "fn", "struct", "enum", "trait", "type", "const", "static", "union",
];

fn parse_file(text: &str) -> Parsed {
    let toks = tokenize(text);
    let mut p = Parsed::default();
    // Inline module stack: (name, brace depth inside it).
    let mut inline: Vec<(String, usize)> = Vec::new();
    let mut depth = 0usize;
    let here = |inline: &Vec<(String, usize)>| -> Vec<String> {
        inline.iter().map(|(n, _)| n.clone()).collect()
    };
    let ident = |i: usize| match toks.get(i) {
        Some((Tok::Ident(s), _)) => Some(s.as_str()),
        _ => None,
    };
    let mut i = 0;
    while i < toks.len() {
        let (tok, line) = (&toks[i].0, toks[i].1);
        match tok {
            Tok::Punct('{') => depth += 1,
            Tok::Punct('}') => {
                depth = depth.saturating_sub(1);
                if inline.last().is_some_and(|(_, d)| *d > depth) {
                    inline.pop();
                }
            }
            Tok::Ident(w) if w == "mod" => {
                if let Some(name) = ident(i + 1) {
                    match toks.get(i + 2).map(|t| &t.0) {
                        Some(Tok::Punct(';')) => {
                            p.file_modules.push((here(&inline), name.to_owned()));
                        }
                        Some(Tok::Punct('{')) => {
                            let mut path = here(&inline);
                            path.push(name.to_owned());
                            p.inline_modules.push((path, ()));
                            depth += 1;
                            inline.push((name.to_owned(), depth));
                            i += 3;
                            continue;
                        }
                        _ => {}
                    }
                }
            }
            Tok::Ident(w) if w == "macro_rules" => {
                if let (Some((Tok::Punct('!'), _)), Some(name)) = (toks.get(i + 1), ident(i + 2)) {
                    p.items.push((here(&inline), name.to_owned()));
                }
            }
            Tok::Ident(w) if ITEM_KEYWORDS.contains(&w.as_str()) => {
                if let Some(name) = ident(i + 1) {
                    p.items.push((here(&inline), name.to_owned()));
                }
            }
            // `pub(in path)` says where an item is visible, not what it uses.
            Tok::Ident(w)
                if w == "in"
                    && i >= 2
                    && toks[i - 1].0 == Tok::Punct('(')
                    && matches!(&toks[i - 2].0, Tok::Ident(v) if v == "pub") =>
            {
                while i < toks.len() && toks[i].0 != Tok::Punct(')') {
                    i += 1;
                }
                continue;
            }
            Tok::Ident(w) if w == "use" => {
                let reexport = reexport_before(&toks, i);
                let mut j = i + 1;
                let mut leaves = Vec::new();
                if matches!(toks.get(j), Some((Tok::Colons, _))) {
                    // `use ::extern_crate::…`
                    while j < toks.len() && toks[j].0 != Tok::Punct(';') {
                        j += 1;
                    }
                } else {
                    j = use_tree(&toks, j, &mut Vec::new(), &mut leaves);
                }
                for leaf in leaves {
                    p.paths.push((
                        here(&inline),
                        RawPath {
                            line,
                            reexport,
                            ..leaf
                        },
                        true,
                    ));
                }
                i = j;
                continue;
            }
            Tok::Ident(w) => {
                // A path in code: `a::b::c`, not preceded by `::` (that is a continuation).
                let after_colons = i > 0 && toks[i - 1].0 == Tok::Colons;
                if !after_colons && matches!(toks.get(i + 1), Some((Tok::Colons, _))) {
                    let mut segments = vec![w.clone()];
                    let mut j = i + 1;
                    while let (Some((Tok::Colons, _)), Some(next)) = (toks.get(j), ident(j + 1)) {
                        segments.push(next.to_owned());
                        j += 2;
                    }
                    p.paths.push((
                        here(&inline),
                        RawPath {
                            segments,
                            glob: false,
                            alias: None,
                            line,
                            reexport: None,
                        },
                        false,
                    ));
                    i = j;
                    continue;
                }
            }
            _ => {}
        }
        i += 1;
    }
    p
}

/// The visibility of the `use` at `toks[i]`: `Some(true)` after `pub`, `Some(false)` after
/// `pub(…)`, `None` for a private `use`.
fn reexport_before(toks: &[(Tok, usize)], i: usize) -> Option<bool> {
    let is = |k: usize, w: &str| matches!(toks.get(k), Some((Tok::Ident(v), _)) if v == w);
    if i >= 1 && is(i - 1, "pub") {
        return Some(true);
    }
    if i >= 1 && toks[i - 1].0 == Tok::Punct(')') {
        let open = (0..i - 1).rev().find(|&k| toks[k].0 == Tok::Punct('('))?;
        if open >= 1 && is(open - 1, "pub") {
            return Some(false);
        }
    }
    None
}

/// Parses a use tree at `toks[i]` with `prefix`; pushes its leaves; returns the index after it
/// (past the `;` at the top level).
fn use_tree(
    toks: &[(Tok, usize)],
    mut i: usize,
    prefix: &mut Vec<String>,
    out: &mut Vec<RawPath>,
) -> usize {
    let base = prefix.len();
    loop {
        match toks.get(i).map(|t| &t.0) {
            Some(Tok::Ident(s)) if s == "as" => {
                if let Some((Tok::Ident(alias), _)) = toks.get(i + 1) {
                    if let Some(last) = out.last_mut() {
                        last.alias = Some(alias.clone());
                    }
                }
                i += 2;
            }
            Some(Tok::Ident(s)) => {
                prefix.push(s.clone());
                i += 1;
                if !matches!(toks.get(i).map(|t| &t.0), Some(Tok::Colons)) {
                    out.push(RawPath {
                        segments: prefix.clone(),
                        glob: false,
                        alias: None,
                        line: 0,
                        reexport: None,
                    });
                    prefix.truncate(base);
                }
            }
            Some(Tok::Colons) => i += 1,
            Some(Tok::Punct('*')) => {
                out.push(RawPath {
                    segments: prefix.clone(),
                    glob: true,
                    alias: None,
                    line: 0,
                    reexport: None,
                });
                prefix.truncate(base);
                i += 1;
            }
            Some(Tok::Punct('{')) => {
                i = use_tree(toks, i + 1, prefix, out);
                prefix.truncate(base);
            }
            Some(Tok::Punct(',')) => {
                prefix.truncate(base);
                i += 1;
            }
            Some(Tok::Punct('}')) => return i + 1,
            Some(Tok::Punct(';')) | None => return i + 1,
            Some(_) => i += 1,
        }
    }
}

/// The checker itself: a cycle through a re-export is found, comments and strings are not
/// paths, and a layered crate passes.
#[test]
fn finds_cycles_through_reexports_only_in_code() {
    let dir = std::env::temp_dir().join(format!("plumb-module-cycles-{}", std::process::id()));
    let write = |name: &str, text: &str| {
        std::fs::create_dir_all(dir.join("src/io")).unwrap();
        std::fs::write(dir.join("src").join(name), text).unwrap();
    };
    write(
        "lib.rs",
        "pub mod a;\npub mod b;\npub mod io;\npub use a::A;\n",
    );
    write(
        "a.rs",
        "//! See crate::b::B.\npub struct A;\nconst S: &str = \"crate::b\";\npub(in crate::b) fn g() {}\n",
    );
    write("b.rs", "use crate::A;\npub struct B(A);\n");
    write("io/mod.rs", "mod json;\npub use json::load;\n");
    write("io/json.rs", "pub fn load() -> crate::b::B { todo!() }\n");
    let layered = ModuleGraph::read(&dir.join("src/lib.rs"));
    assert!(layered.cycles().is_empty(), "{:?}", layered.edges());
    // `b` reaches `a` through the crate root's re-export; now `a` reaches back.
    write(
        "a.rs",
        "pub struct A;\nfn f() -> Option<super::b::B> { None }\n",
    );
    let cyclic = ModuleGraph::read(&dir.join("src/lib.rs"));
    let cycles = cyclic.cycles();
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(cycles.len(), 1);
    let report = cyclic.describe(&cycles[0]);
    assert!(report.contains("cycle: a -> b -> a"), "{report}");
    assert!(report.contains("b.rs:1 uses crate::A"), "{report}");
}

/// Lines a function of plumb-raster may span (STYLE: a function says one thing).
const MAX_FUNCTION_LINES: usize = 100;

/// Every function of plumb-raster's `src/` spans at most [`MAX_FUNCTION_LINES`] lines, counted
/// from the line of its `fn` to the line of its closing brace (doc comments and attributes
/// not counted; comments and blank lines inside counted; a function inside another counts
/// in both). Unit tests (`mod tests`) are left out.
#[test]
fn raster_functions_are_short() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("raster/src");
    let mut long = Vec::new();
    let mut stack = vec![src.clone()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let text = std::fs::read_to_string(&path).unwrap();
                for (name, line, lines) in function_spans(&strip(&text)) {
                    if lines > MAX_FUNCTION_LINES {
                        let file = path.strip_prefix(&src).unwrap().display();
                        long.push(format!("raster/src/{file}:{line} fn {name}: {lines} lines"));
                    }
                }
            }
        }
    }
    long.sort();
    assert!(
        long.is_empty(),
        "functions over {MAX_FUNCTION_LINES} lines:\n{}",
        long.join("\n")
    );
}

/// `(name, first line, lines)` of every function with a body in `text` (comments and strings
/// blanked), outside `mod tests { … }`.
fn function_spans(text: &str) -> Vec<(String, usize, usize)> {
    let toks = tokenize(text);
    let mut out = Vec::new();
    let mut depth = 0usize;
    // Brace depth at which a `mod tests` body closes, while inside one.
    let mut in_tests: Option<usize> = None;
    // Open functions: (name, line, depth of their body).
    let mut open: Vec<(String, usize, usize)> = Vec::new();
    // A `fn` seen whose body has not opened yet.
    let mut pending: Option<(String, usize)> = None;
    let mut i = 0;
    while i < toks.len() {
        let (tok, line) = (&toks[i].0, toks[i].1);
        match tok {
            Tok::Ident(w) if w == "mod" => {
                let is_tests = matches!(toks.get(i + 1), Some((Tok::Ident(n), _)) if n == "tests");
                if is_tests && in_tests.is_none() {
                    in_tests = Some(depth + 1);
                }
            }
            Tok::Ident(w) if w == "fn" => {
                if let Some((Tok::Ident(name), _)) = toks.get(i + 1) {
                    pending = Some((name.clone(), line));
                }
            }
            Tok::Punct(';') if pending.is_some() && depth_is_item_level(&open, depth) => {
                pending = None; // a declaration without a body (trait method)
            }
            Tok::Punct('{') => {
                depth += 1;
                if let Some((name, l)) = pending.take() {
                    open.push((name, l, depth));
                }
            }
            Tok::Punct('}') => {
                if open.last().is_some_and(|(_, _, d)| *d == depth) {
                    let (name, l, _) = open.pop().unwrap();
                    if in_tests.is_none() {
                        out.push((name, l, line - l + 1));
                    }
                }
                if in_tests == Some(depth) {
                    in_tests = None;
                }
                depth = depth.saturating_sub(1);
            }
            _ => {}
        }
        i += 1;
    }
    out
}

/// Whether a `;` at `depth` ends an item (not a statement inside a function's signature
/// types, which have no braces before the body anyway).
fn depth_is_item_level(open: &[(String, usize, usize)], depth: usize) -> bool {
    open.last().is_none_or(|(_, _, d)| depth >= *d)
}
