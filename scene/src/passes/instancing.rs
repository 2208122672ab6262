//! Explicit, incremental instancing of a cyclic [`Definitions`] graph into the scene (seed
//! 003, `small-seeds.md` §S3, R31–R34): the (possibly infinite) expansion of a symbol becomes
//! an ordinary subtree of real nodes — one group per symbol instance, one geometry leaf per
//! model edge — so culling, drawing, picking and the text dump need nothing new.
//!
//! # Which instances exist
//!
//! An instance is **relevant** for a camera when its symbol's bound, placed by the instance's
//! world matrix (composed in `f64` from the instancing root's world transform and the
//! definition's edge transforms), is
//!
//! 1. not rejected by the frustum: the 8 projected corners are not all outside the same clip
//!    plane (`x < −w`, `x > w`, `y < −w`, `y > w`, `z < 0`, `z > w`; the test is linear in
//!    homogeneous coordinates, so it holds for corners behind the eye too), and
//! 2. at least [`InstanceOptions::min_area`] pixels² on screen: the area of the 2D box around
//!    the 8 projected corners in pixels of [`InstanceOptions::resolution`] (the seed's upper
//!    bound, S3 L57). A box with a corner at or behind the eye (`w ≤ 0`) is treated as
//!    arbitrarily large — never divided by `w ≤ 0`.
//!
//! The bound is [`Definitions::deep_bounds`], computed once per definition: the box of
//! everything an instance can place down to [`MAX_INSTANCE_DEPTH`] levels (so down to any
//! instancing's depth cap) — exact for the truncated expansion, so a cycle that contracts
//! slowly (edge scale 0.97) or not at all (a translation chain) is never culled by a box that
//! was still growing, as the definition's 64-step box was. When that took more than
//! [`MAX_BOUND_WORK`] edge transforms, no bound is trusted and every instance counts as
//! relevant (the caps below still stop it).
//!
//! A relevant instance above the depth cap has its children instanced: one leaf per model
//! edge and one (childless) instance group per symbol edge of its production, in edge order;
//! an instance that is not relevant has its children removed. So an instance's own models are
//! drawn exactly when it is relevant, as in the seed's recursive instancing (S3 L47, L59).
//!
//! # Termination
//!
//! The seed's area rule alone need not stop (the digest: near a contraction's fixed point
//! projected size need not shrink with depth, and non-contracting cycles never shrink), so
//! two hard caps always apply: instances at depth [`InstanceOptions::max_depth`] below the
//! instancing root are never expanded, and an expansion that would take the instance tree
//! past [`InstanceOptions::max_nodes`] scene nodes (or the scene's own [`Limits`](crate::Limits))
//! is refused whole; so is one that would place a node whose world transform leaves `f32`'s
//! range — an entry past [`MAX_INSTANCE_EXTENT`], or a scale that underflows — (a growing
//! cycle: the levels that fit are drawn, [`Caps::range`]). Expansion is
//! **breadth first**, so a node cap trims the deepest level
//! first, and every update visits at most `max_nodes` instances: [`Instancing::update`] is
//! O(`max_nodes`) whatever the definition.
//!
//! # Incremental updates
//!
//! [`Instancing::update`] keeps the tree between frames (S3 L102–113) and repeats nothing:
//!
//! 1. a depth-first pass removes the children of every instance that is no longer relevant;
//! 2. a breadth-first pass instances the children of every relevant, unexpanded instance and
//!    descends into the existing ones — in the same pass, so one update reaches the fixed
//!    point (the digest's pitfall: the seed's pseudocode grows the tree one level per frame).
//!
//! With a still camera the second update creates and removes nothing. Random production
//! choices come from the seed and the instance path ([`Definitions::choose`]), so a subtree
//! removed and instanced again makes the same choices.
//!
//! **Unforgettable** instances ([`Instancing::set_unforgettable`], S3 L105–109) and all their
//! ancestors are never removed (their models may be, when they are not relevant); the number
//! of unforgettable instances is bounded by the node cap like everything else.
//!
//! Relevance uses the definition's edge transforms, not the nodes' local transforms: editing
//! an instance node's transform moves what is drawn but not what is instanced. The instancing
//! root's own transform (and its ancestors') is read from the scene at each update.

use std::collections::{BTreeMap, VecDeque};
use std::sync::Arc;

use glam::{DMat4, DVec4};

use crate::graph::{NodeId, Scene};
use crate::values::camera::Camera;
use crate::values::definition::{child_path, to_dmat4, Definitions, Target};
use crate::values::error::{DefinitionFault, SceneError};

/// The largest [`InstanceOptions::max_nodes`] accepted.
pub const MAX_INSTANCE_NODES: usize = 1 << 22;
/// The largest [`InstanceOptions::max_depth`] accepted (the levels the definitions' deep
/// bounds cover).
pub const MAX_INSTANCE_DEPTH: usize = crate::values::definition::MAX_BOUND_LEVELS;
/// The largest [`InstanceOptions::resolution`] side accepted.
pub const MAX_RESOLUTION: u32 = 1 << 15;
/// The largest entry of an instance's world matrix (2⁶⁰): squared lengths of such
/// coordinates (bounds, culling) still fit `f32`, which overflows near 2¹²⁸.
pub const MAX_INSTANCE_EXTENT: f64 = 1_152_921_504_606_846_976.0;
pub use crate::values::definition::MAX_BOUND_WORK;

/// How far instancing goes (see the [module docs](self)).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct InstanceOptions {
    /// Screen-area threshold in pixels² (positive, finite).
    pub min_area: f64,
    /// Instances at this depth below the instancing root (root = 0) are never expanded
    /// (1..=[`MAX_INSTANCE_DEPTH`]).
    pub max_depth: usize,
    /// At most this many scene nodes in the instance tree, its root included
    /// (1..=[`MAX_INSTANCE_NODES`]).
    pub max_nodes: usize,
    /// Seed of the random production choices.
    pub seed: u64,
    /// The target size in pixels the area is measured in (each side 1..=[`MAX_RESOLUTION`]).
    pub resolution: (u32, u32),
}

impl Default for InstanceOptions {
    fn default() -> Self {
        InstanceOptions {
            min_area: 16.0,
            max_depth: 32,
            max_nodes: 20_000,
            seed: 0,
            resolution: (640, 480),
        }
    }
}

impl InstanceOptions {
    /// Checks the ranges documented on the fields.
    ///
    /// # Errors
    /// [`SceneError::Definition`] with [`DefinitionFault::BadOption`].
    pub fn validate(&self) -> Result<(), SceneError> {
        let bad = |what: &str, message: String| SceneError::Definition {
            symbol: what.to_owned(),
            fault: DefinitionFault::BadOption,
            message,
        };
        if !(self.min_area.is_finite() && self.min_area > 0.0) {
            return Err(bad(
                "min_area",
                format!("{} is not a positive area in pixels²", self.min_area),
            ));
        }
        if !(1..=MAX_INSTANCE_DEPTH).contains(&self.max_depth) {
            return Err(bad(
                "max_depth",
                format!("{} is outside 1..={MAX_INSTANCE_DEPTH}", self.max_depth),
            ));
        }
        if !(1..=MAX_INSTANCE_NODES).contains(&self.max_nodes) {
            return Err(bad(
                "max_nodes",
                format!("{} is outside 1..={MAX_INSTANCE_NODES}", self.max_nodes),
            ));
        }
        let (w, h) = self.resolution;
        if !(1..=MAX_RESOLUTION).contains(&w) || !(1..=MAX_RESOLUTION).contains(&h) {
            return Err(bad(
                "resolution",
                format!("{w}×{h} is outside 1..={MAX_RESOLUTION} per side"),
            ));
        }
        Ok(())
    }
}

/// Which cap stopped an update.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Caps {
    /// A relevant instance sat at [`InstanceOptions::max_depth`].
    pub depth: bool,
    /// An expansion would have passed [`InstanceOptions::max_nodes`].
    pub nodes: bool,
    /// An expansion would have passed the scene's [`Limits`](crate::Limits).
    pub scene: bool,
    /// An expansion would have placed a node whose world transform leaves the range an
    /// instance may have ([`MAX_INSTANCE_EXTENT`]; a cycle that grows).
    pub range: bool,
}

impl Caps {
    /// Whether any cap stopped the update.
    pub fn any(&self) -> bool {
        self.depth || self.nodes || self.scene || self.range
    }
}

/// What one [`Instancing::update`] did (counts of scene nodes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct InstanceReport {
    /// Nodes created.
    pub created: usize,
    /// Nodes removed.
    pub removed: usize,
    /// Nodes that existed before and still do.
    pub kept: usize,
    /// Nodes in the instance tree afterwards (root included).
    pub total: usize,
    /// Relevance tests run.
    pub tested: usize,
    /// The caps that stopped it.
    pub capped: Caps,
}

#[derive(Debug, Clone)]
struct Inst {
    node: NodeId,
    symbol: usize,
    production: usize,
    path: u64,
    depth: usize,
    parent: Option<usize>,
    /// Edge index in the parent's production (0 for the root).
    edge: usize,
    /// The edge transform (identity for the root).
    local: DMat4,
    /// Children of the production are instanced.
    expanded: bool,
    /// Symbol-edge child instances.
    children: Vec<usize>,
    /// Model-edge leaves.
    leaves: Vec<NodeId>,
    unforgettable: bool,
    /// Unforgettable instances in this subtree, self included.
    pins: usize,
}

/// An instance tree of a definition kept in a scene (see the [module docs](self)).
#[derive(Debug, Clone)]
pub struct Instancing {
    defs: Arc<Definitions>,
    options: InstanceOptions,
    insts: Vec<Option<Inst>>,
    free: Vec<usize>,
    by_node: BTreeMap<NodeId, usize>,
    root: usize,
    total: usize,
    root_scene_depth: usize,
}

impl Instancing {
    /// Creates the instancing root — a group named `name` appended under `parent`, the
    /// instance of `symbol` — without expanding it (the first [`Instancing::update`] does).
    ///
    /// # Errors
    /// [`SceneError::Definition`] for an unknown symbol or bad options; as
    /// [`Scene::add_group`].
    pub fn new(
        scene: &mut Scene,
        parent: NodeId,
        name: impl Into<String>,
        defs: Arc<Definitions>,
        symbol: &str,
        options: InstanceOptions,
    ) -> Result<Instancing, SceneError> {
        options.validate()?;
        let s = defs.symbol(symbol)?;
        let node = scene.add_group(parent, name)?;
        Self::with_root(scene, node, defs, s, options)
    }

    /// Uses the existing childless group `node` as the instancing root of symbol index `s`.
    ///
    /// # Errors
    /// [`SceneError::Definition`] for bad options or symbol index, [`SceneError::StaleId`],
    /// [`SceneError::NotAGroup`] for a node that is not an empty group.
    pub fn with_root(
        scene: &mut Scene,
        node: NodeId,
        defs: Arc<Definitions>,
        s: usize,
        options: InstanceOptions,
    ) -> Result<Instancing, SceneError> {
        options.validate()?;
        if s >= defs.symbols().len() {
            return Err(SceneError::Definition {
                symbol: format!("#{s}"),
                fault: DefinitionFault::MissingSymbol,
                message: "no such symbol index".into(),
            });
        }
        let kind = scene.kind(node)?;
        if kind.is_leaf() || kind.is_switch() || !scene.children(node)?.is_empty() {
            return Err(SceneError::NotAGroup(scene.name(node)?.to_owned()));
        }
        let root_scene_depth = scene.depth(node)?;
        let path = 0;
        let inst = Inst {
            node,
            symbol: s,
            production: defs.choose(s, options.seed, path),
            path,
            depth: 0,
            parent: None,
            edge: 0,
            local: DMat4::IDENTITY,
            expanded: false,
            children: Vec::new(),
            leaves: Vec::new(),
            unforgettable: false,
            pins: 0,
        };
        let mut by_node = BTreeMap::new();
        by_node.insert(node, 0);
        Ok(Instancing {
            defs,
            options,
            insts: vec![Some(inst)],
            free: Vec::new(),
            by_node,
            root: 0,
            total: 1,
            root_scene_depth,
        })
    }

    /// The symbol instanced at the root.
    pub fn symbol(&self) -> usize {
        self.get(self.root).symbol
    }

    /// The instancing root node.
    pub fn root(&self) -> NodeId {
        self.get(self.root).node
    }

    /// The options.
    pub fn options(&self) -> &InstanceOptions {
        &self.options
    }

    /// The definition graph.
    pub fn definitions(&self) -> &Arc<Definitions> {
        &self.defs
    }

    /// Scene nodes in the instance tree (root included).
    pub fn node_count(&self) -> usize {
        self.total
    }

    /// Whether `node` is a symbol instance of this tree (not a model leaf).
    pub fn is_instance(&self, node: NodeId) -> bool {
        self.by_node.contains_key(&node)
    }

    /// The symbol name, chosen production, depth and path hash of a symbol instance.
    pub fn instance_info(&self, node: NodeId) -> Option<(&str, usize, usize, u64)> {
        let i = self.get(*self.by_node.get(&node)?);
        let name = self.defs.symbols().get(i.symbol)?.name.as_str();
        Some((name, i.production, i.depth, i.path))
    }

    /// Every symbol instance node, in the order of the instance tree (pre-order).
    pub fn instances(&self) -> Vec<NodeId> {
        let mut out = Vec::with_capacity(self.by_node.len());
        let mut stack = vec![self.root];
        while let Some(i) = stack.pop() {
            let inst = self.get(i);
            out.push(inst.node);
            stack.extend(inst.children.iter().rev());
        }
        out
    }

    /// Marks a symbol instance unforgettable (or not): it and its ancestors are never
    /// de-instanced (see the [module docs](self)).
    ///
    /// # Errors
    /// [`SceneError::InvalidArgument`] when `node` is not a symbol instance of this tree.
    pub fn set_unforgettable(&mut self, node: NodeId, on: bool) -> Result<(), SceneError> {
        let Some(&i) = self.by_node.get(&node) else {
            return Err(SceneError::InvalidArgument {
                what: "unforgettable node",
                message: format!("{node} is not a symbol instance of this instancing"),
            });
        };
        if self.get(i).unforgettable == on {
            return Ok(());
        }
        self.get_mut(i).unforgettable = on;
        let mut at = Some(i);
        while let Some(k) = at {
            let inst = self.get_mut(k);
            if on {
                inst.pins += 1;
            } else {
                inst.pins = inst.pins.saturating_sub(1);
            }
            at = inst.parent;
        }
        Ok(())
    }

    /// Whether a symbol instance is unforgettable.
    pub fn is_unforgettable(&self, node: NodeId) -> bool {
        self.by_node
            .get(&node)
            .is_some_and(|&i| self.get(i).unforgettable)
    }

    fn get(&self, i: usize) -> &Inst {
        // Indices come from the tree itself; a freed slot is never referenced.
        self.insts[i].as_ref().expect("live instance slot")
    }

    fn get_mut(&mut self, i: usize) -> &mut Inst {
        self.insts[i].as_mut().expect("live instance slot")
    }

    /// Whether an instance with world matrix `world` is relevant (see the module docs).
    fn relevant(&self, clip_from_world: &DMat4, world: &DMat4, symbol: usize) -> bool {
        let Some(bounds) = self.defs.deep_bounds() else {
            // No bound is trusted: only the caps stop the expansion.
            return true;
        };
        let Some(b) = bounds.get(symbol).copied().flatten() else {
            return false;
        };
        let m = *clip_from_world * *world;
        let (w, h) = self.options.resolution;
        let mut outside = [true; 6];
        let mut behind = false;
        let (mut min_x, mut min_y, mut max_x, mut max_y) = (f64::MAX, f64::MAX, f64::MIN, f64::MIN);
        for k in 0..8 {
            let c = DVec4::new(
                if k & 1 == 0 { b.0.x } else { b.1.x },
                if k & 2 == 0 { b.0.y } else { b.1.y },
                if k & 4 == 0 { b.0.z } else { b.1.z },
                1.0,
            );
            let p = m * c;
            let tests = [
                p.x < -p.w,
                p.x > p.w,
                p.y < -p.w,
                p.y > p.w,
                p.z < 0.0,
                p.z > p.w,
            ];
            for (o, t) in outside.iter_mut().zip(tests) {
                *o &= t;
            }
            if p.w <= 0.0 || !p.w.is_finite() {
                behind = true;
            } else {
                let (x, y) = (p.x / p.w, p.y / p.w);
                min_x = min_x.min(x);
                max_x = max_x.max(x);
                min_y = min_y.min(y);
                max_y = max_y.max(y);
            }
        }
        if outside.iter().any(|&o| o) {
            return false;
        }
        if behind {
            return true;
        }
        let area = (max_x - min_x) * 0.5 * f64::from(w) * (max_y - min_y) * 0.5 * f64::from(h);
        // NaN (a non-finite world) counts as relevant; the caps still stop it.
        area.is_nan() || area >= self.options.min_area
    }

    /// Brings the instance tree up to date for `camera` (see the [module docs](self)).
    ///
    /// # Errors
    /// [`SceneError::StaleId`] when the instancing root was removed from the scene.
    pub fn update(
        &mut self,
        scene: &mut Scene,
        camera: &Camera,
    ) -> Result<InstanceReport, SceneError> {
        let root_node = self.root();
        let root_world = to_dmat4(&scene.compute_world(root_node)?);
        let clip = camera.clip_from_world().as_dmat4();
        let before = self.total;
        let mut report = InstanceReport::default();

        // 1. Collapse what is no longer relevant (depth first).
        let mut stack = vec![(self.root, root_world)];
        while let Some((i, world)) = stack.pop() {
            let inst = self.get(i);
            if !inst.expanded && inst.children.is_empty() {
                continue;
            }
            report.tested += 1;
            let keep = inst.expanded
                && inst.depth < self.options.max_depth
                && self.relevant(&clip, &world, inst.symbol);
            if !keep {
                report.removed += self.collapse(scene, i);
            }
            for &c in &self.get(i).children {
                stack.push((c, world * self.get(c).local));
            }
        }

        // 2. Expand what is relevant (breadth first).
        let mut queue = VecDeque::from([(self.root, root_world)]);
        while let Some((i, world)) = queue.pop_front() {
            let (depth, symbol, expanded) = {
                let inst = self.get(i);
                (inst.depth, inst.symbol, inst.expanded)
            };
            report.tested += 1;
            if self.relevant(&clip, &world, symbol) {
                if depth >= self.options.max_depth {
                    report.capped.depth = true;
                } else if !expanded {
                    report.created += self.expand(scene, i, &world, &mut report.capped)?;
                }
            }
            for &c in &self.get(i).children {
                queue.push_back((c, world * self.get(c).local));
            }
        }
        report.kept = before - report.removed;
        report.total = self.total;
        Ok(report)
    }

    /// Removes the leaves and the forgettable child subtrees of instance `i`; returns the
    /// number of scene nodes removed.
    fn collapse(&mut self, scene: &mut Scene, i: usize) -> usize {
        let mut removed = 0;
        let leaves = std::mem::take(&mut self.get_mut(i).leaves);
        for leaf in leaves {
            removed += scene.remove(leaf).unwrap_or(0);
        }
        let children = std::mem::take(&mut self.get_mut(i).children);
        let mut kept = Vec::new();
        for c in children {
            if self.get(c).pins > 0 {
                kept.push(c);
            } else {
                removed += scene.remove(self.get(c).node).unwrap_or(0);
                self.free_subtree(c);
            }
        }
        let inst = self.get_mut(i);
        inst.children = kept;
        inst.expanded = false;
        self.total -= removed.min(self.total);
        removed
    }

    /// Forgets the records of the subtree of instance `c` (its nodes are already removed).
    fn free_subtree(&mut self, c: usize) {
        let mut stack = vec![c];
        while let Some(k) = stack.pop() {
            if let Some(inst) = self.insts[k].take() {
                self.by_node.remove(&inst.node);
                stack.extend(inst.children);
                self.free.push(k);
            }
        }
    }

    /// Instances the children of instance `i` (all or nothing); returns the nodes created.
    fn expand(
        &mut self,
        scene: &mut Scene,
        i: usize,
        world: &DMat4,
        capped: &mut Caps,
    ) -> Result<usize, SceneError> {
        let defs = Arc::clone(&self.defs);
        let (symbol, production, path, depth, node) = {
            let inst = self.get(i);
            (
                inst.symbol,
                inst.production,
                inst.path,
                inst.depth,
                inst.node,
            )
        };
        let Some(prod) = defs
            .symbols()
            .get(symbol)
            .and_then(|s| s.productions.get(production))
        else {
            return Ok(0);
        };
        let present: Vec<usize> = self
            .get(i)
            .children
            .iter()
            .map(|&c| self.get(c).edge)
            .collect();
        // A growing cycle: the children would not be finite in `f32` (every update, draw and
        // bound would fail), so this level is the last.
        if prod
            .edges
            .iter()
            .any(|e| !fits_f32(&(*world * to_dmat4(&e.transform))))
        {
            capped.range = true;
            return Ok(0);
        }
        let needed = prod.edges.len() - present.len().min(prod.edges.len());
        if self.total + needed > self.options.max_nodes {
            capped.nodes = true;
            return Ok(0);
        }
        let limits = scene.limits();
        if scene.node_count() + needed > limits.max_nodes
            || self.root_scene_depth + depth + 1 > limits.max_depth
        {
            capped.scene = true;
            return Ok(0);
        }
        let mut created = 0;
        for (e, edge) in prod.edges.iter().enumerate() {
            if present.contains(&e) {
                continue;
            }
            match edge.target {
                Target::Model(m) => {
                    let model = &defs.models()[m];
                    let leaf =
                        scene.add_geometry(node, model.name.clone(), Arc::clone(&model.mesh))?;
                    scene.set_local_transform(leaf, edge.transform)?;
                    self.get_mut(i).leaves.push(leaf);
                }
                Target::Symbol(s) => {
                    let child = scene.add_group(node, defs.symbols()[s].name.clone())?;
                    scene.set_local_transform(child, edge.transform)?;
                    let cpath = child_path(path, e);
                    let inst = Inst {
                        node: child,
                        symbol: s,
                        production: defs.choose(s, self.options.seed, cpath),
                        path: cpath,
                        depth: depth + 1,
                        parent: Some(i),
                        edge: e,
                        local: to_dmat4(&edge.transform),
                        expanded: false,
                        children: Vec::new(),
                        leaves: Vec::new(),
                        unforgettable: false,
                        pins: 0,
                    };
                    let k = match self.free.pop() {
                        Some(k) => {
                            self.insts[k] = Some(inst);
                            k
                        }
                        None => {
                            self.insts.push(Some(inst));
                            self.insts.len() - 1
                        }
                    };
                    self.by_node.insert(child, k);
                    self.get_mut(i).children.push(k);
                }
            }
            created += 1;
        }
        self.get_mut(i).expanded = true;
        self.total += created;
        Ok(created)
    }
}

/// Whether `m` can be an instance's world transform: every entry within
/// ±[`MAX_INSTANCE_EXTENT`] and invertible once rounded to `f32` (what the scene composes).
fn fits_f32(m: &DMat4) -> bool {
    if !m
        .to_cols_array()
        .iter()
        .all(|x| x.abs() <= MAX_INSTANCE_EXTENT)
    {
        return false;
    }
    let f = m.as_mat4();
    // The determinant in `f64` of the `f32` entries: a scale that underflowed to 0 is caught,
    // a large one whose cube passes `f32::MAX` is not refused.
    let d = glam::DMat3::from_mat4(f.as_dmat4()).determinant();
    d.is_finite() && d != 0.0
}
