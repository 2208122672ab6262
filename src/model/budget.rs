//! The work-budget flags of `plumb render`, `info`, `convert` and `view`: one per field of
//! [`WorkBudget`], each replacing its default (see [`plumb_scene::io::budget`] for what each
//! counts). A scene file cannot set its own budget: it is the input the budget guards
//! against, so only the command line (or a library caller's
//! [`ImportOptions::budget`](crate::scene::io::ImportOptions::budget)) raises or lowers one.

use clap::Args;

use crate::scene::io::budget::{
    DEFAULT_MAX_CLEAR_PIXELS, DEFAULT_MAX_CLOD_TRIANGLES, DEFAULT_MAX_COLLISION_PAIRS,
    DEFAULT_MAX_DRAWN_PRIMITIVES, DEFAULT_MAX_GENERATED_PRIMITIVES, DEFAULT_MAX_INSTANCE_NODES,
    DEFAULT_MAX_PARTICLES, DEFAULT_MAX_SOLVER_STEPS,
};
use crate::scene::io::WorkBudget;

/// The work budget of a load, each flag replacing one default.
#[derive(Debug, Default, Clone, Args)]
#[command(next_help_heading = "Work budget (totals a scene may ask for; docs: README, limits)")]
pub struct BudgetArgs {
    /// Triangles of generated meshes and segments of curves, per load.
    #[arg(long, value_name = "N", help = help(DEFAULT_MAX_GENERATED_PRIMITIVES, "Triangles of generated meshes (generators, surfaces) and segments of curves, per load"))]
    pub max_generated_primitives: Option<u64>,
    /// Source triangles of CLOD builds (nested ones counted each), per load.
    #[arg(long, value_name = "N", help = help(DEFAULT_MAX_CLOD_TRIANGLES, "Source triangles of CLOD builds (each nested build counted), per load"))]
    pub max_clod_triangles: Option<u64>,
    /// Particles of all particle systems, per load.
    #[arg(long, value_name = "N", help = help(DEFAULT_MAX_PARTICLES, "Particles of all particle systems, per load"))]
    pub max_particles: Option<u64>,
    /// Primitives of every leaf (a shared mesh once per leaf): the most a frame draws.
    #[arg(long, value_name = "N", help = help(DEFAULT_MAX_DRAWN_PRIMITIVES, "Primitives of every geometry leaf, a shared mesh once per leaf: the most one frame draws"))]
    pub max_drawn_primitives: Option<u64>,
    /// IK solver steps per update: iterations × joint axes × (joints + goals), summed.
    #[arg(long, value_name = "N", help = help(DEFAULT_MAX_SOLVER_STEPS, "IK solver steps per update: iterations × joint axes × (joints + goals), summed"))]
    pub max_solver_steps: Option<u64>,
    /// Triangle pairs of all `collisions` entries, per load.
    #[arg(long, value_name = "N", help = help(DEFAULT_MAX_COLLISION_PAIRS, "Triangle pairs of all collisions entries, per load"))]
    pub max_collision_pairs: Option<u64>,
    /// Nodes all `instance` nodes may create (their `max_nodes` summed), per load.
    #[arg(long, value_name = "N", help = help(DEFAULT_MAX_INSTANCE_NODES, "Nodes all instance nodes may create (their max_nodes summed), per load"))]
    pub max_instance_nodes: Option<u64>,
    /// Pixels one frame's layer and depth-layer clears write, at the image size.
    #[arg(long, value_name = "N", help = help(DEFAULT_MAX_CLEAR_PIXELS, "Pixels one frame's layer and depth-layer clears write, at the image size"))]
    pub max_clear_pixels: Option<u64>,
}

/// A flag's help line with its default.
fn help(default: u64, text: &str) -> String {
    format!("{text} [default: {default}]")
}

impl BudgetArgs {
    /// The budget: the given flags over the defaults.
    pub fn budget(&self) -> WorkBudget {
        let d = WorkBudget::default();
        WorkBudget {
            max_generated_primitives: self
                .max_generated_primitives
                .unwrap_or(d.max_generated_primitives),
            max_clod_triangles: self.max_clod_triangles.unwrap_or(d.max_clod_triangles),
            max_particles: self.max_particles.unwrap_or(d.max_particles),
            max_drawn_primitives: self.max_drawn_primitives.unwrap_or(d.max_drawn_primitives),
            max_solver_steps: self.max_solver_steps.unwrap_or(d.max_solver_steps),
            max_collision_pairs: self.max_collision_pairs.unwrap_or(d.max_collision_pairs),
            max_instance_nodes: self.max_instance_nodes.unwrap_or(d.max_instance_nodes),
            max_clear_pixels: self.max_clear_pixels.unwrap_or(d.max_clear_pixels),
        }
    }

    /// The first budget flag given other than `--max-drawn-primitives`, which also bounds a
    /// draw trace (for draw traces, where no other applies).
    pub fn first_given_but_drawn(&self) -> Option<&'static str> {
        BudgetArgs {
            max_drawn_primitives: None,
            ..self.clone()
        }
        .first_given()
    }

    /// The first budget flag given, if any (for commands where none applies).
    pub fn first_given(&self) -> Option<&'static str> {
        [
            (self.max_generated_primitives, "--max-generated-primitives"),
            (self.max_clod_triangles, "--max-clod-triangles"),
            (self.max_particles, "--max-particles"),
            (self.max_drawn_primitives, "--max-drawn-primitives"),
            (self.max_solver_steps, "--max-solver-steps"),
            (self.max_collision_pairs, "--max-collision-pairs"),
            (self.max_instance_nodes, "--max-instance-nodes"),
            (self.max_clear_pixels, "--max-clear-pixels"),
        ]
        .into_iter()
        .find_map(|(v, name)| v.map(|_| name))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::io::Budget;

    #[test]
    fn flags_name_the_budgets_they_set() {
        assert_eq!(BudgetArgs::default().budget(), WorkBudget::default());
        let args = BudgetArgs {
            max_particles: Some(7),
            ..BudgetArgs::default()
        };
        assert_eq!(args.budget().max_particles, 7);
        assert_eq!(args.first_given(), Some(Budget::Particles.flag()));
        // Every budget's flag is one of these flags, in field order.
        let all = BudgetArgs {
            max_generated_primitives: Some(1),
            max_clod_triangles: Some(2),
            max_particles: Some(3),
            max_drawn_primitives: Some(4),
            max_solver_steps: Some(5),
            max_collision_pairs: Some(6),
            max_instance_nodes: Some(7),
            max_clear_pixels: Some(8),
        };
        let b = all.budget();
        for (i, kind) in Budget::ALL.into_iter().enumerate() {
            assert_eq!(kind.max(&b), i as u64 + 1, "{}", kind.flag());
        }
    }
}
