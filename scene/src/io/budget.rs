//! Work budgets: how much work and memory a load may generate from a few bytes of input.
//!
//! The per-item limits (`clod_build::MAX_CLOD_TRIANGLES`, `curve::MAX_CURVE_VERTICES`,
//! `surface::MAX_SURFACE_TRIANGLES`, `particles::MAX_PARTICLES`, `ik::MAX_IK_ITERATIONS`,
//! `instancing::MAX_INSTANCE_NODES`, `json::collisions::MAX_TRIANGLE_PAIRS`, …) bound one
//! object each; a file of a few hundred bytes can still ask for many objects at the limit, or
//! share one heavy mesh among many leaves. A [`WorkBudget`] caps the **total** of each kind
//! of generated work — for the whole load, or for one frame or update of the loaded scene —
//! and each object's share is charged **before** the work is done (before the mesh is
//! generated, the CLOD built, the particles allocated, the solver run, the triangle pairs
//! tested, the instance tree expanded), with checked arithmetic. Past a budget the load fails
//! with [`IoError::Budget`](super::IoError::Budget): one line naming the file, the object
//! (node path and, when known, line and column), the total and the budget, and the `plumb`
//! flag that raises it. Budgets are counts, never timers, so what is refused does not depend
//! on the machine or its load.
//!
//! | budget | counts | default |
//! |---|---|---|
//! | [`max_generated_primitives`](WorkBudget::max_generated_primitives) | triangles of generated meshes (plane, box, sphere, torus, cylinder, surface) and segments of curves, per load | 2²¹ |
//! | [`max_clod_triangles`](WorkBudget::max_clod_triangles) | source triangles of every CLOD build (a CLOD nested `n` deep is charged `n` times its innermost mesh, before any is built), per load | 2¹⁵ |
//! | [`max_particles`](WorkBudget::max_particles) | particles of all particle systems (each rebuilt for every frame), per load | 2¹⁸ |
//! | [`max_drawn_primitives`](WorkBudget::max_drawn_primitives) | primitives of every geometry leaf and screen polygon — a mesh shared by `n` leaves counts `n` times — the most one frame can draw | 2²⁴ |
//! | [`max_solver_steps`](WorkBudget::max_solver_steps) | IK work per update: Σ over controllers of iterations × free axes (at least one per joint) × (joints + goals) | 2²² |
//! | [`max_collision_pairs`](WorkBudget::max_collision_pairs) | triangle pairs of every `collisions` entry (`a × b`), per load, every entry charged before any is tested | 2²⁰ |
//! | [`max_instance_nodes`](WorkBudget::max_instance_nodes) | the `max_nodes` every `instance` node declares, summed, and the nodes glTF `EXT_mesh_gpu_instancing` creates, per load | 2²⁰ |
//! | [`max_clear_pixels`](WorkBudget::max_clear_pixels) | pixels the layer and depth-layer clears of one frame write, at the target's size | 2³⁰ |

use crate::graph::Scene;

/// Default of [`WorkBudget::max_generated_primitives`]: 2²¹ (the largest generated sphere,
/// 1024 × 1024 segments; sixteen surface patches at their limit, about a second of work).
pub const DEFAULT_MAX_GENERATED_PRIMITIVES: u64 = 1 << 21;
/// Default of [`WorkBudget::max_clod_triangles`]: 2¹⁵ (building collapse records takes
/// tens of microseconds per triangle: this is about two seconds of work).
pub const DEFAULT_MAX_CLOD_TRIANGLES: u64 = 1 << 15;
/// Default of [`WorkBudget::max_particles`]: 2¹⁸ (rebuilding their quads takes about a
/// second per frame).
pub const DEFAULT_MAX_PARTICLES: u64 = 1 << 18;
/// Default of [`WorkBudget::max_drawn_primitives`]: 2²⁴.
pub const DEFAULT_MAX_DRAWN_PRIMITIVES: u64 = 1 << 24;
/// Default of [`WorkBudget::max_solver_steps`]: 2²² (a quarter of a second per update: a
/// step takes about 60 ns).
pub const DEFAULT_MAX_SOLVER_STEPS: u64 = 1 << 22;
/// Default of [`WorkBudget::max_collision_pairs`]: 2²⁰ (about two seconds of testing when
/// every pair overlaps: one entry at the per-entry limit, 2²⁴ pairs, took 31 s — issue 50;
/// raise it with `--max-collision-pairs` for such entries).
pub const DEFAULT_MAX_COLLISION_PAIRS: u64 = 1 << 20;
/// Default of [`WorkBudget::max_instance_nodes`]: 2²⁰ (the scene-file node limit).
pub const DEFAULT_MAX_INSTANCE_NODES: u64 = 1 << 20;
/// Default of [`WorkBudget::max_clear_pixels`]: 2³⁰ (four full clears of a 16384² target,
/// 2236 of an 800 × 600 one).
pub const DEFAULT_MAX_CLEAR_PIXELS: u64 = 1 << 30;

/// The totals of generated work a load may ask for (see the [module docs](self)). Every
/// field has a `plumb` flag of the same name (`--max-generated-primitives N`, …) that
/// replaces its default for `render`, `info`, `convert` and `view`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WorkBudget {
    /// Triangles of the meshes the load generates (plane, box, sphere, torus, cylinder,
    /// surface patches, and the innermost mesh of a CLOD) and line segments of its curves.
    /// Inline and imported geometry is data, bounded by the file size and
    /// [`ImportOptions::max_geometry_bytes`](super::ImportOptions::max_geometry_bytes).
    pub max_generated_primitives: u64,
    /// Source triangles of the load's CLOD builds together.
    pub max_clod_triangles: u64,
    /// Particles of the load's particle systems together.
    pub max_particles: u64,
    /// Primitives (triangles, segments, points) of every geometry leaf and screen polygon
    /// of the loaded scene, a shared mesh once per leaf: the most one frame can draw.
    /// Checked once the scene is built, before it is first updated or drawn.
    pub max_drawn_primitives: u64,
    /// IK solver work per update: Σ over the IK controllers of iterations × free joint axes
    /// × (joints + goals) — each step of one axis recomputes the chain and the goals.
    pub max_solver_steps: u64,
    /// Triangle pairs of the load's `collisions` entries together (`a × b` each).
    pub max_collision_pairs: u64,
    /// Nodes the load's `instance` nodes may create together, as declared by their
    /// `max_nodes` (charged before the instance tree is expanded).
    pub max_instance_nodes: u64,
    /// Pixels one frame's clears may write: layer nodes' `clear` rectangles and the full
    /// clear before each depth layer after the first, at the size of the target drawn into.
    /// The loader sets it on the scene ([`Scene::set_max_clear_pixels`]); the scene checks
    /// it at each draw, before anything is cleared.
    pub max_clear_pixels: u64,
}

impl Default for WorkBudget {
    fn default() -> Self {
        WorkBudget {
            max_generated_primitives: DEFAULT_MAX_GENERATED_PRIMITIVES,
            max_clod_triangles: DEFAULT_MAX_CLOD_TRIANGLES,
            max_particles: DEFAULT_MAX_PARTICLES,
            max_drawn_primitives: DEFAULT_MAX_DRAWN_PRIMITIVES,
            max_solver_steps: DEFAULT_MAX_SOLVER_STEPS,
            max_collision_pairs: DEFAULT_MAX_COLLISION_PAIRS,
            max_instance_nodes: DEFAULT_MAX_INSTANCE_NODES,
            max_clear_pixels: DEFAULT_MAX_CLEAR_PIXELS,
        }
    }
}

/// One budget of a [`WorkBudget`]: what an [`IoError::Budget`](super::IoError::Budget) is
/// about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum Budget {
    /// [`WorkBudget::max_generated_primitives`].
    GeneratedPrimitives,
    /// [`WorkBudget::max_clod_triangles`].
    ClodTriangles,
    /// [`WorkBudget::max_particles`].
    Particles,
    /// [`WorkBudget::max_drawn_primitives`].
    DrawnPrimitives,
    /// [`WorkBudget::max_solver_steps`].
    SolverSteps,
    /// [`WorkBudget::max_collision_pairs`].
    CollisionPairs,
    /// [`WorkBudget::max_instance_nodes`].
    InstanceNodes,
    /// [`WorkBudget::max_clear_pixels`].
    ClearPixels,
}

impl Budget {
    /// Every budget, in [`WorkBudget`] field order.
    pub const ALL: [Budget; 8] = [
        Budget::GeneratedPrimitives,
        Budget::ClodTriangles,
        Budget::Particles,
        Budget::DrawnPrimitives,
        Budget::SolverSteps,
        Budget::CollisionPairs,
        Budget::InstanceNodes,
        Budget::ClearPixels,
    ];

    /// The `plumb` flag that sets it (`--max-generated-primitives`).
    pub const fn flag(self) -> &'static str {
        match self {
            Budget::GeneratedPrimitives => "--max-generated-primitives",
            Budget::ClodTriangles => "--max-clod-triangles",
            Budget::Particles => "--max-particles",
            Budget::DrawnPrimitives => "--max-drawn-primitives",
            Budget::SolverSteps => "--max-solver-steps",
            Budget::CollisionPairs => "--max-collision-pairs",
            Budget::InstanceNodes => "--max-instance-nodes",
            Budget::ClearPixels => "--max-clear-pixels",
        }
    }

    /// What it counts and over what (`generated primitives per load`).
    pub const fn unit(self) -> &'static str {
        match self {
            Budget::GeneratedPrimitives => "generated primitives per load",
            Budget::ClodTriangles => "CLOD source triangles per load",
            Budget::Particles => "particles per load",
            Budget::DrawnPrimitives => "drawn primitives per frame",
            Budget::SolverSteps => "IK solver steps per update",
            Budget::CollisionPairs => "collision triangle pairs per load",
            Budget::InstanceNodes => "instance nodes per load",
            Budget::ClearPixels => "cleared pixels per frame",
        }
    }

    /// Its value in `budget`.
    pub const fn max(self, budget: &WorkBudget) -> u64 {
        match self {
            Budget::GeneratedPrimitives => budget.max_generated_primitives,
            Budget::ClodTriangles => budget.max_clod_triangles,
            Budget::Particles => budget.max_particles,
            Budget::DrawnPrimitives => budget.max_drawn_primitives,
            Budget::SolverSteps => budget.max_solver_steps,
            Budget::CollisionPairs => budget.max_collision_pairs,
            Budget::InstanceNodes => budget.max_instance_nodes,
            Budget::ClearPixels => budget.max_clear_pixels,
        }
    }

    fn index(self) -> usize {
        match self {
            Budget::GeneratedPrimitives => 0,
            Budget::ClodTriangles => 1,
            Budget::Particles => 2,
            Budget::DrawnPrimitives => 3,
            Budget::SolverSteps => 4,
            Budget::CollisionPairs => 5,
            Budget::InstanceNodes => 6,
            Budget::ClearPixels => 7,
        }
    }
}

/// A charge that does not fit: the budget, the item's amount, the total it would bring the
/// load to (saturating) and the budget's value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Over {
    pub(crate) budget: Budget,
    pub(crate) amount: u64,
    pub(crate) total: u64,
    pub(crate) max: u64,
}

/// What one load has charged so far.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Spent {
    totals: [u64; 8],
}

impl Spent {
    /// Adds `amount` to `kind`'s total, or leaves the totals as they are and returns
    /// [`Over`] when the total would pass the budget (or overflow).
    pub(crate) fn charge(
        &mut self,
        budget: &WorkBudget,
        kind: Budget,
        amount: u64,
    ) -> Result<(), Over> {
        let i = kind.index();
        let max = kind.max(budget);
        match self.totals[i].checked_add(amount) {
            Some(total) if total <= max => {
                self.totals[i] = total;
                Ok(())
            }
            total => Err(Over {
                budget: kind,
                amount,
                total: total.unwrap_or(u64::MAX),
                max,
            }),
        }
    }
}

/// `a × b × …` in `u64`, saturating (a saturated product passes every budget).
pub(crate) fn product(factors: &[u64]) -> u64 {
    factors
        .iter()
        .try_fold(1u64, |p, &f| p.checked_mul(f))
        .unwrap_or(u64::MAX)
}

/// Charges every geometry leaf's primitives (a shared mesh once per leaf) and every screen
/// polygon's against [`WorkBudget::max_drawn_primitives`], leaves in tree pre-order; `Err`
/// gives the object that passes it (a node path as [`Scene::path_of`] writes it, or
/// `screen polygon N`), what it asks for and the charge.
pub(crate) fn drawn_over(scene: &Scene, budget: &WorkBudget) -> Result<(), (String, String, Over)> {
    let mut spent = Spent::default();
    let item = |n: u64| format!("a mesh of {n} primitives");
    for id in scene.preorder(scene.root()).unwrap_or_default() {
        let Ok(mesh) = scene.mesh(id) else { continue };
        let n = mesh.primitive_count() as u64;
        spent
            .charge(budget, Budget::DrawnPrimitives, n)
            .map_err(|o| (scene.path_of(id), item(n), o))?;
    }
    for (i, p) in scene.screen_polygons().iter().enumerate() {
        let n = p.mesh.primitive_count() as u64;
        spent
            .charge(budget, Budget::DrawnPrimitives, n)
            .map_err(|o| (format!("screen polygon {i}"), item(n), o))?;
    }
    Ok(())
}

#[cfg(feature = "internal-tests")]
pub(crate) mod tests {
    /// Every test of this module: `tests/unit.rs` runs each as one trial (an unlisted
    /// test fails the build as dead code).
    pub(crate) const TESTS: &[(&str, fn())] = &[(
        "charges_add_up_and_stop_at_the_budget",
        charges_add_up_and_stop_at_the_budget,
    )];

    use super::*;

    fn charges_add_up_and_stop_at_the_budget() {
        let budget = WorkBudget {
            max_particles: 10,
            ..WorkBudget::default()
        };
        let mut spent = Spent::default();
        assert!(spent.charge(&budget, Budget::Particles, 6).is_ok());
        assert!(spent.charge(&budget, Budget::Particles, 4).is_ok());
        let o = spent.charge(&budget, Budget::Particles, 1).unwrap_err();
        assert_eq!((o.amount, o.total, o.max), (1, 11, 10));
        // A refused charge leaves the total alone; overflow saturates.
        let o = spent
            .charge(&budget, Budget::Particles, u64::MAX)
            .unwrap_err();
        assert_eq!(o.total, u64::MAX);
        assert!(spent.charge(&budget, Budget::SolverSteps, 10).is_ok());
        assert_eq!(product(&[1 << 40, 1 << 30]), u64::MAX);
        assert_eq!(product(&[3, 4, 5]), 60);
        for b in Budget::ALL {
            assert!(b.flag().starts_with("--max-"));
            assert_eq!(Budget::ALL[b.index()], b);
        }
    }
}
