//! Cyclic scene definitions (seed 003, "Dynamic 3D Scene Graphs", `small-seeds.md` §S3,
//! R31): a finite graph of **symbols** whose productions place terminal **models** and other
//! symbols — the symbol itself or an ancestor included — each through an affine edge
//! transform, written in the seed's notation (S3 L23–33)
//!
//! ```text
//! Man -> (ManModel, I), (Man, M1), (Man, M2)
//! ```
//!
//! A definition is only data; [`instancing`](crate::passes::instancing) turns it into an ordinary
//! instance tree of scene nodes (the seed's *explicit* instancing, L45–52).
//!
//! # Productions and random choices
//!
//! A symbol has one or more productions, each with a positive weight. When a symbol is
//! instanced, one production is chosen with probability `weight / Σ weights` by a hash of the
//! instancing seed and the **instance path** (the edge indices from the instancing root), so
//! the choice is the same every time the same path is instanced — across frames, and after a
//! subtree is de-instanced and instanced again (S3 L113: "we must remember the choice"). See
//! [`Definitions::choose`].
//!
//! # Bounds
//!
//! Instancing tests the screen area of a symbol's bound, which must cover the symbol's whole
//! (possibly infinite) expansion. [`Definitions::new`] computes one local axis-aligned box per
//! symbol as the least fixed point of `B(X) = ∪ₑ Mₑ·B(Yₑ)` (model boxes fixed, symbols
//! starting empty), iterating at most [`BOUND_ITERATIONS`] times. When every cycle contracts
//! (the whole linear operator, not one axis — the digest's pitfall) the iteration converges
//! and the boxes hold the expansion; a symbol whose box was still growing is reported by
//! [`Definitions::is_contracting`] and keeps its last box, which does **not** hold the
//! expansion. Instancing therefore does not use these boxes: it takes its own from
//! [`Definitions::bounds_within`], the same iteration run to its depth cap (the exact box of
//! everything it can place), and applies its hard caps as well.
//!
//! # Errors
//! [`Definitions::new`] checks everything up front and returns a
//! [`SceneError::Definition`] with a [`DefinitionFault`]: an edge naming an undefined symbol
//! or model, a duplicate name, a symbol without productions or a production without edges,
//! a symbol from which no model is reachable (a cycle that never draws), a singular or
//! non-finite edge transform, a weight that is not positive and finite. All checks are
//! linear walks over the definition; nothing recurses.

use std::collections::BTreeMap;
use std::sync::Arc;

use glam::{DMat4, DVec3};

use crate::values::bound::{Bound, BoundKind};
use crate::values::error::{DefinitionFault, SceneError};
use crate::values::mesh::Mesh;
use crate::values::transform::Transform;

/// Iterations of the bound fixed point (see the [module docs](self)).
pub const BOUND_ITERATIONS: usize = 64;

/// Levels of [`Definitions::deep_bounds`]: the deepest instancing allowed
/// (`instancing::MAX_INSTANCE_DEPTH`).
pub const MAX_BOUND_LEVELS: usize = 4096;

/// The most edge transforms [`Definitions::new`] spends on [`Definitions::deep_bounds`]
/// (levels × edges); past it there are none.
pub const MAX_BOUND_WORK: usize = 1 << 22;

/// At most this many symbols plus models in one definition graph.
pub const MAX_SYMBOLS: usize = 4096;

/// What an edge places.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// A terminal model (index into [`Definitions::models`]).
    Model(usize),
    /// A symbol (index into [`Definitions::symbols`]).
    Symbol(usize),
}

/// One child of a production: what it places and where (`target` placed by `transform`,
/// relative to the symbol's frame).
#[derive(Debug, Clone, PartialEq)]
pub struct Edge {
    /// The placed model or symbol.
    pub target: Target,
    /// Its local transform in the symbol's frame.
    pub transform: Transform,
}

/// One production of a symbol.
#[derive(Debug, Clone, PartialEq)]
pub struct Production {
    /// Relative weight (positive).
    pub weight: f64,
    /// Its children in order.
    pub edges: Vec<Edge>,
}

/// A terminal model: a mesh drawn by a geometry leaf.
#[derive(Debug, Clone)]
pub struct Model {
    /// Its name.
    pub name: String,
    /// The mesh.
    pub mesh: Arc<Mesh>,
    /// Local box of the mesh (min, max).
    pub bound: (DVec3, DVec3),
}

/// A symbol: a name, its productions and the bound of its expansion.
#[derive(Debug, Clone)]
pub struct Symbol {
    /// Its name.
    pub name: String,
    /// Its productions (at least one).
    pub productions: Vec<Production>,
    /// Local box covering its expansion (see the [module docs](self)); `None` when it is
    /// empty (cannot happen after validation: every symbol reaches a model).
    pub bound: Option<(DVec3, DVec3)>,
    /// Whether the bound iteration converged for it.
    pub contracting: bool,
}

/// An edge as given to [`Definitions::new`]: the name of a model or symbol and a transform.
#[derive(Debug, Clone)]
pub struct EdgeSpec {
    /// The model or symbol placed.
    pub to: String,
    /// Where (the symbol's frame).
    pub transform: Transform,
}

impl EdgeSpec {
    /// An edge to `to` placed by `transform`.
    pub fn new(to: impl Into<String>, transform: Transform) -> EdgeSpec {
        EdgeSpec {
            to: to.into(),
            transform,
        }
    }
}

/// A production as given to [`Definitions::new`].
#[derive(Debug, Clone)]
pub struct ProductionSpec {
    /// Relative weight (positive, finite).
    pub weight: f64,
    /// Its edges in order.
    pub edges: Vec<EdgeSpec>,
}

/// A finite definition graph, cycles allowed (see the [module docs](self)).
#[derive(Debug, Clone)]
pub struct Definitions {
    models: Vec<Model>,
    symbols: Vec<Symbol>,
    names: BTreeMap<String, Target>,
    /// [`Definitions::bounds_within`] to [`MAX_BOUND_LEVELS`], computed once.
    deep: Option<Vec<Option<(DVec3, DVec3)>>>,
}

fn fault(symbol: &str, fault: DefinitionFault, message: impl Into<String>) -> SceneError {
    SceneError::Definition {
        symbol: symbol.to_owned(),
        fault,
        message: message.into(),
    }
}

/// The box of `b` transformed by the affine `m` (centre and absolute-value extents).
pub(crate) fn transform_box(m: &DMat4, b: (DVec3, DVec3)) -> (DVec3, DVec3) {
    let c = (b.0 + b.1) * 0.5;
    let e = (b.1 - b.0) * 0.5;
    let c2 = m.transform_point3(c);
    let ext = m.x_axis.truncate().abs() * e.x
        + m.y_axis.truncate().abs() * e.y
        + m.z_axis.truncate().abs() * e.z;
    (c2 - ext, c2 + ext)
}

fn union(a: Option<(DVec3, DVec3)>, b: (DVec3, DVec3)) -> (DVec3, DVec3) {
    match a {
        Some(a) => (a.0.min(b.0), a.1.max(b.1)),
        None => b,
    }
}

/// A transform as an `f64` matrix (exact: every `f32` is an `f64`).
pub fn to_dmat4(t: &Transform) -> DMat4 {
    t.to_mat4().as_dmat4()
}

impl Definitions {
    /// Builds and checks a definition graph from named models and symbols (each symbol with
    /// its productions); edges name models or symbols in either list, in any order.
    ///
    /// # Errors
    /// [`SceneError::Definition`] as listed in the [module docs](self).
    pub fn new(
        models: Vec<(String, Arc<Mesh>)>,
        symbols: Vec<(String, Vec<ProductionSpec>)>,
    ) -> Result<Definitions, SceneError> {
        if models.len() + symbols.len() > MAX_SYMBOLS {
            return Err(fault(
                "",
                DefinitionFault::BadOption,
                format!("more than {MAX_SYMBOLS} symbols and models"),
            ));
        }
        let mut names = BTreeMap::new();
        for (i, (name, _)) in models.iter().enumerate() {
            if names.insert(name.clone(), Target::Model(i)).is_some() {
                return Err(fault(name, DefinitionFault::DuplicateName, "defined twice"));
            }
        }
        for (i, (name, _)) in symbols.iter().enumerate() {
            if names.insert(name.clone(), Target::Symbol(i)).is_some() {
                return Err(fault(name, DefinitionFault::DuplicateName, "defined twice"));
            }
        }
        let models: Vec<Model> = models
            .into_iter()
            .map(|(name, mesh)| {
                let bound = match mesh.local_bound(BoundKind::Aabb).to_aabb() {
                    Bound::Aabb { min, max } => (min.as_dvec3(), max.as_dvec3()),
                    _ => (DVec3::ZERO, DVec3::ZERO),
                };
                Model { name, mesh, bound }
            })
            .collect();
        let mut out = Vec::with_capacity(symbols.len());
        for (name, productions) in symbols {
            if productions.is_empty() {
                return Err(fault(&name, DefinitionFault::Empty, "it has no production"));
            }
            let mut prods = Vec::with_capacity(productions.len());
            for (p, prod) in productions.into_iter().enumerate() {
                if !(prod.weight.is_finite() && prod.weight > 0.0) {
                    return Err(fault(
                        &name,
                        DefinitionFault::BadOption,
                        format!(
                            "production {p} has weight {}; weights must be positive",
                            prod.weight
                        ),
                    ));
                }
                if prod.edges.is_empty() {
                    return Err(fault(
                        &name,
                        DefinitionFault::Empty,
                        format!("production {p} has no edge"),
                    ));
                }
                let mut edges = Vec::with_capacity(prod.edges.len());
                for (e, edge) in prod.edges.into_iter().enumerate() {
                    let Some(&target) = names.get(&edge.to) else {
                        return Err(fault(
                            &name,
                            DefinitionFault::MissingSymbol,
                            format!(
                                "production {p} edge {e} places '{}', which is not defined",
                                edge.to
                            ),
                        ));
                    };
                    let det = f64::from(edge.transform.determinant());
                    if !edge.transform.is_finite() || !det.is_finite() || det == 0.0 {
                        return Err(fault(
                            &name,
                            DefinitionFault::SingularEdge,
                            format!(
                                "production {p} edge {e} (to '{}') is singular (determinant {det})",
                                edge.to
                            ),
                        ));
                    }
                    edges.push(Edge {
                        target,
                        transform: edge.transform,
                    });
                }
                prods.push(Production {
                    weight: prod.weight,
                    edges,
                });
            }
            out.push(Symbol {
                name,
                productions: prods,
                bound: None,
                contracting: false,
            });
        }
        let mut defs = Definitions {
            models,
            symbols: out,
            names,
            deep: None,
        };
        defs.check_productive()?;
        defs.compute_bounds();
        defs.deep = defs.bounds_within(MAX_BOUND_LEVELS, MAX_BOUND_WORK);
        Ok(defs)
    }

    /// Every symbol must reach a model: the least fixed point of "some production has an
    /// edge to a model or to a productive symbol", iterated at most once per symbol.
    fn check_productive(&self) -> Result<(), SceneError> {
        let n = self.symbols.len();
        let mut productive = vec![false; n];
        for _ in 0..=n {
            let mut changed = false;
            for (i, s) in self.symbols.iter().enumerate() {
                if productive[i] {
                    continue;
                }
                let ok = s.productions.iter().any(|p| {
                    p.edges.iter().any(|e| match e.target {
                        Target::Model(_) => true,
                        Target::Symbol(j) => productive[j],
                    })
                });
                if ok {
                    productive[i] = true;
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        match productive.iter().position(|p| !p) {
            Some(i) => Err(fault(
                &self.symbols[i].name,
                DefinitionFault::NoModelReachable,
                "no model is reachable from it (its productions only place symbols that never \
                 draw)",
            )),
            None => Ok(()),
        }
    }

    /// One step of the bound iteration, `B'(X) = ∪ₑ Mₑ·B(Yₑ)`: the new boxes and, per
    /// symbol, whether its box grew (by more than 10⁻⁹ of its size).
    fn bound_step(
        &self,
        bounds: &[Option<(DVec3, DVec3)>],
    ) -> (Vec<Option<(DVec3, DVec3)>>, Vec<bool>) {
        let mut next = bounds.to_vec();
        let mut growing = vec![false; bounds.len()];
        for (i, s) in self.symbols.iter().enumerate() {
            let mut b: Option<(DVec3, DVec3)> = None;
            for p in &s.productions {
                for e in &p.edges {
                    let child = match e.target {
                        Target::Model(m) => Some(self.models[m].bound),
                        Target::Symbol(j) => bounds[j],
                    };
                    if let Some(c) = child {
                        b = Some(union(b, transform_box(&to_dmat4(&e.transform), c)));
                    }
                }
            }
            growing[i] = match (bounds[i], b) {
                (None, Some(_)) => true,
                (Some(old), Some(new)) => {
                    let size = (old.1 - old.0).length().max(1e-300);
                    (new.0 - old.0).length() + (new.1 - old.1).length() > 1e-9 * size
                }
                _ => false,
            };
            next[i] = b;
        }
        (next, growing)
    }

    /// Edge transforms one [`Definitions::bound_step`] applies.
    fn edge_count(&self) -> usize {
        self.symbols
            .iter()
            .flat_map(|s| &s.productions)
            .map(|p| p.edges.len())
            .sum()
    }

    /// A local box per symbol holding everything an instance of it places within `levels`
    /// levels below it (instancing's depth cap): the bound iteration run `levels` times — each
    /// step adds the models one level deeper, so this is the exact box of the truncated
    /// expansion, however slowly (or not at all) the cycles contract — or until no box grows,
    /// when it is the least fixed point, then widened by 10⁻⁶ of its size for the tail the
    /// tolerance stops short of. `None` when that would take more than `max_work` edge
    /// transforms (the caller then cannot trust a bound). A box may be infinite when a cycle
    /// grows past `f64`'s range.
    pub fn bounds_within(
        &self,
        levels: usize,
        max_work: usize,
    ) -> Option<Vec<Option<(DVec3, DVec3)>>> {
        let per_step = self.edge_count().max(1);
        let mut bounds: Vec<Option<(DVec3, DVec3)>> = vec![None; self.symbols.len()];
        let mut work = 0usize;
        for _ in 0..levels {
            work = work.saturating_add(per_step);
            if work > max_work {
                return None;
            }
            let (next, growing) = self.bound_step(&bounds);
            bounds = next;
            if !growing.iter().any(|&g| g) {
                for (lo, hi) in bounds.iter_mut().flatten() {
                    let pad = DVec3::splat((*hi - *lo).length() * 1e-6);
                    (*lo, *hi) = (*lo - pad, *hi + pad);
                }
                break;
            }
        }
        Some(bounds)
    }

    fn compute_bounds(&mut self) {
        let n = self.symbols.len();
        let mut bounds: Vec<Option<(DVec3, DVec3)>> = vec![None; n];
        let mut growing = vec![true; n];
        for _ in 0..BOUND_ITERATIONS {
            let (next, grew) = self.bound_step(&bounds);
            bounds = next;
            growing = grew;
            if !growing.iter().any(|&g| g) {
                break;
            }
        }
        for (i, s) in self.symbols.iter_mut().enumerate() {
            s.bound = bounds[i];
            s.contracting =
                !growing[i] && bounds[i].is_some_and(|b| b.0.is_finite() && b.1.is_finite());
        }
    }

    /// Per symbol, a local box holding everything an instance of it places down to
    /// [`MAX_BOUND_LEVELS`] levels (or the least fixed point, when every cycle contracts):
    /// [`Definitions::bounds_within`], computed once by [`Definitions::new`]. The boxes only
    /// grow with the levels, so they hold any instancing's truncated expansion. `None` when
    /// that took more than [`MAX_BOUND_WORK`] edge transforms: no bound is then trusted.
    pub fn deep_bounds(&self) -> Option<&[Option<(DVec3, DVec3)>]> {
        self.deep.as_deref()
    }

    /// The models.
    pub fn models(&self) -> &[Model] {
        &self.models
    }

    /// The symbols.
    pub fn symbols(&self) -> &[Symbol] {
        &self.symbols
    }

    /// The model or symbol called `name`.
    pub fn lookup(&self, name: &str) -> Option<Target> {
        self.names.get(name).copied()
    }

    /// The index of the symbol called `name`.
    ///
    /// # Errors
    /// [`SceneError::Definition`] ([`DefinitionFault::MissingSymbol`]) when there is none.
    pub fn symbol(&self, name: &str) -> Result<usize, SceneError> {
        match self.lookup(name) {
            Some(Target::Symbol(i)) => Ok(i),
            Some(Target::Model(_)) => Err(fault(
                name,
                DefinitionFault::MissingSymbol,
                "is a model, not a symbol",
            )),
            None => Err(fault(
                name,
                DefinitionFault::MissingSymbol,
                "is not defined",
            )),
        }
    }

    /// Whether the bound iteration converged for symbol `i` (see the [module docs](self)).
    pub fn is_contracting(&self, i: usize) -> bool {
        self.symbols.get(i).is_some_and(|s| s.contracting)
    }

    /// The production chosen for symbol `symbol` at the instance path hashed to `path`, with
    /// `seed`: production `k` with `Σ_{j<k} w_j ≤ u·Σw < Σ_{j≤k} w_j`, `u ∈ [0, 1)` from
    /// [`mix`]`(seed ^ path)`. One production: always 0.
    pub fn choose(&self, symbol: usize, seed: u64, path: u64) -> usize {
        let Some(s) = self.symbols.get(symbol) else {
            return 0;
        };
        if s.productions.len() <= 1 {
            return 0;
        }
        let total: f64 = s.productions.iter().map(|p| p.weight).sum();
        // 53 random bits → [0, 1).
        let u = (mix(seed ^ path) >> 11) as f64 / (1u64 << 53) as f64;
        let mut acc = 0.0;
        for (k, p) in s.productions.iter().enumerate() {
            acc += p.weight;
            if u * total < acc {
                return k;
            }
        }
        s.productions.len() - 1
    }
}

/// SplitMix64's finaliser: a bijective 64-bit mix.
pub fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The path hash of the `edge`-th child of an instance whose path hashes to `parent`.
pub fn child_path(parent: u64, edge: usize) -> u64 {
    mix(parent
        ^ (edge as u64)
            .wrapping_add(1)
            .wrapping_mul(0xD6E8_FEB8_6659_FD93))
}
