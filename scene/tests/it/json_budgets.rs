//! Issue 29, class 1: one budget for generated work. Hostile scene files that ask for
//! unbounded work or memory through many items at their per-item limits — generated meshes,
//! CLOD builds (nested too), particles, IK solves, collision pairs, instance trees, a heavy
//! mesh shared by many leaves, clears — are refused with a typed [`IoError::Budget`] (or
//! [`SceneError::ClearBudget`] for a frame's clears) before the work is done: totals, not
//! only items. Before the budget, each of these files ran for minutes or aborted the process
//! at the defaults (see the commit); here most use small budgets so that every test is quick.

use std::path::Path;

use crate::gltf_builder::{temp_dir, triangle, write, Builder};
use glam::Vec3;
use plumb_scene::io::budget::{DEFAULT_MAX_GENERATED_PRIMITIVES, DEFAULT_MAX_INSTANCE_NODES};
use plumb_scene::io::{self, json, Budget, ImportOptions, ImportedScene, IoError, WorkBudget};
use plumb_scene::{Camera, SceneError, SoftRenderer};
use serde_json::{json, Value};

/// A scene document with `children` under the root and the `extra` top-level fields.
fn doc(children: Value, extra: Value) -> String {
    let mut d = json!({"format": "plumb-scene", "version": 1, "root": {"children": children}});
    if let Value::Object(m) = extra {
        for (k, v) in m {
            d[k] = v;
        }
    }
    d.to_string()
}

/// Parses and builds `text` as `scene.json` with `budget`.
fn load(text: &str, budget: WorkBudget) -> Result<ImportedScene, IoError> {
    let file = Path::new("scene.json");
    let d = json::parse(file, text)?;
    let options = ImportOptions {
        budget,
        ..ImportOptions::default()
    };
    json::build(&d, file, &options)
}

/// The budget error of loading `text`: which budget, the object, its amount, the total and
/// the budget (the message is one line naming the file, the object and the flag).
fn refused(text: &str, budget: WorkBudget) -> (Budget, String, u64, u64, u64) {
    let e = load(text, budget).expect_err("refused");
    let msg = e.to_string();
    assert!(msg.starts_with("scene.json"), "{msg}");
    assert!(!msg.contains('\n'), "{msg}");
    match e {
        IoError::Budget(b) => {
            assert!(msg.contains(b.budget.flag()), "{msg}");
            assert!(msg.contains(&b.context), "{msg}");
            (b.budget, b.context, b.amount, b.total, b.max)
        }
        other => panic!("not a budget error: {other}"),
    }
}

fn budget(f: impl FnOnce(&mut WorkBudget)) -> WorkBudget {
    let mut b = WorkBudget::default();
    f(&mut b);
    b
}

fn named(prefix: &str, n: usize, mesh: Value) -> Value {
    Value::Array(
        (0..n)
            .map(|i| json!({"name": format!("{prefix}{i}"), "mesh": mesh.clone()}))
            .collect(),
    )
}

// ---- Generated meshes -------------------------------------------------------------------

#[test]
fn many_small_generated_meshes_add_up_past_the_total() {
    // 40 spheres of 8 × 16 × 2 = 256 triangles: the fourth passes 1000.
    let text = doc(
        named("s", 40, json!({"sphere": {"stacks": 8, "slices": 16}})),
        json!({}),
    );
    let (b, context, amount, total, max) =
        refused(&text, budget(|b| b.max_generated_primitives = 1000));
    assert_eq!(b, Budget::GeneratedPrimitives);
    assert_eq!(
        (context.as_str(), amount, total, max),
        ("root/s3", 256, 1024, 1000)
    );
    // Every generator counts: planes, boxes, tori, cylinders.
    for (mesh, triangles) in [
        (json!({"plane": {"divisions": 10}}), 200),
        (json!({"box": {}}), 12),
        (json!({"torus": {"rings": 10, "sides": 5}}), 100),
        (json!({"cylinder": {"slices": 10}}), 40),
        (json!({"cylinder": {"slices": 10, "caps": false}}), 20),
    ] {
        let text = doc(named("m", 2, mesh.clone()), json!({}));
        let (_, context, amount, total, _) =
            refused(&text, budget(|b| b.max_generated_primitives = triangles));
        assert_eq!(
            (context.as_str(), amount, total),
            ("root/m1", triangles, 2 * triangles),
            "{mesh}"
        );
        assert!(load(
            &text,
            budget(|b| b.max_generated_primitives = 2 * triangles)
        )
        .is_ok());
    }
}

#[test]
fn one_generated_mesh_past_the_default_is_refused_before_it_is_made() {
    // The largest sphere is exactly the default; anything more passes it.
    assert_eq!(DEFAULT_MAX_GENERATED_PRIMITIVES, 2 * 1024 * 1024);
    let big = json!({"sphere": {"stacks": 1024, "slices": 1024}});
    let text = doc(
        json!([{"name": "big", "mesh": big}, {"name": "one_more", "mesh": {"box": {}}}]),
        json!({}),
    );
    let (b, context, amount, total, _) = refused(&text, WorkBudget::default());
    assert_eq!(b, Budget::GeneratedPrimitives);
    assert_eq!(
        (context.as_str(), amount, total),
        ("root/one_more", 12, (1 << 21) + 12)
    );
    // Model meshes of definitions and screen polygons count too.
    let text = doc(
        json!([]),
        json!({
            "definitions": {"models": [{"name": "M", "mesh": {"plane": {"divisions": 20}}}]},
            "screen_polygons": [{"mesh": {"plane": {"divisions": 20}}}]
        }),
    );
    let (_, context, ..) = refused(&text, budget(|b| b.max_generated_primitives = 1000));
    assert_eq!(context, "screen polygon 0");
}

#[test]
fn curves_and_surfaces_at_high_levels_add_up() {
    let curve = json!({"curve": {"degree": 1, "level": 10, "points": [[0, 0, 0], [1, 0, 0]]}});
    let (b, context, amount, total, _) = refused(
        &doc(named("c", 300, curve), json!({})),
        budget(|b| b.max_generated_primitives = 3000),
    );
    assert_eq!(b, Budget::GeneratedPrimitives);
    assert_eq!((context.as_str(), amount, total), ("root/c2", 1024, 3072));
    let surface = json!({"surface": {"degree": 1, "level": 4, "points": [[0, 0, 0], [1, 0, 0], [0, 1, 0], [1, 1, 0]]}});
    let (_, context, amount, ..) = refused(
        &doc(named("s", 600, surface), json!({})),
        budget(|b| b.max_generated_primitives = 5000),
    );
    // A rectangle at level 4: 2 · 4⁴ triangles; the tenth passes 5000.
    assert_eq!((context.as_str(), amount), ("root/s9", 512));
    // A level past the item's own limit keeps its own error.
    let e = load(
        &doc(json!([{"name": "c", "mesh": {"curve": {"degree": 1, "level": 40, "points": [[0, 0, 0], [1, 0, 0]]}}}]), json!({})),
        budget(|b| b.max_generated_primitives = 1),
    )
    .err()
    .unwrap();
    assert!(matches!(e, IoError::Scene { .. }), "{e}");
}

// ---- CLOD -------------------------------------------------------------------------------

#[test]
fn a_clod_of_a_big_mesh_is_refused_before_it_is_built() {
    // The 2²¹-triangle sphere itself fits the generated budget; its CLOD build (minutes of
    // work) does not fit the CLOD budget, and is refused before it starts.
    let text = doc(
        json!([{"name": "sphere", "mesh": {"clod": {"mesh": {"sphere": {"stacks": 1024, "slices": 1024}}}}}]),
        json!({}),
    );
    let (b, context, amount, ..) = refused(&text, WorkBudget::default());
    assert_eq!(
        (b, context.as_str(), amount),
        (Budget::ClodTriangles, "root/sphere", 1 << 21)
    );
}

#[test]
fn nested_clods_are_charged_once_each_before_any_is_built() {
    let mut m = json!({"sphere": {"stacks": 16, "slices": 32}});
    for _ in 0..50 {
        m = json!({"clod": {"mesh": m}});
    }
    let text = doc(json!([{"name": "nest", "mesh": m}]), json!({}));
    let (b, context, amount, ..) = refused(&text, WorkBudget::default());
    assert_eq!(
        (b, context.as_str(), amount),
        (Budget::ClodTriangles, "root/nest", 50 * 1024)
    );
    let e = load(&text, budget(|b| b.max_clod_triangles = 1000))
        .err()
        .unwrap();
    assert!(
        e.to_string()
            .contains("50 nested CLOD builds of up to 1024 triangles"),
        "{e}"
    );
    // Two nested builds of a small mesh fit.
    let two = json!({"clod": {"mesh": {"clod": {"mesh": {"sphere": {"stacks": 4, "slices": 8}}, "fraction": 0.5}}}});
    assert!(load(
        &doc(json!([{"name": "two", "mesh": two}]), json!({})),
        WorkBudget::default()
    )
    .is_ok());
}

#[test]
fn many_small_clods_add_up() {
    let clod = json!({"clod": {"mesh": {"sphere": {"stacks": 4, "slices": 8}}, "fraction": 0.5}});
    let (b, context, amount, total, max) = refused(
        &doc(named("c", 8, clod), json!({})),
        budget(|b| b.max_clod_triangles = 200),
    );
    assert_eq!(b, Budget::ClodTriangles);
    assert_eq!(
        (context.as_str(), amount, total, max),
        ("root/c3", 64, 256, 200)
    );
}

// ---- Particles --------------------------------------------------------------------------

#[test]
fn particle_systems_add_up_instead_of_aborting() {
    // 40 systems of 10⁶ particles aborted the process (allocation failure) before.
    let p = json!({"particles": {"random": {"count": 1_000_000}}});
    let (b, context, amount, ..) =
        refused(&doc(named("p", 40, p), json!({})), WorkBudget::default());
    assert_eq!(
        (b, context.as_str(), amount),
        (Budget::Particles, "root/p0", 1_000_000)
    );
    // Small systems add up, random and explicit alike.
    let random = json!({"particles": {"random": {"count": 300}}});
    let (_, context, _, total, _) = refused(
        &doc(named("r", 10, random), json!({})),
        budget(|b| b.max_particles = 1000),
    );
    assert_eq!((context.as_str(), total), ("root/r3", 1200));
    let explicit =
        json!({"particles": {"locations": [[0, 0, 0], [1, 0, 0], [2, 0, 0]], "sizes": [1, 1, 1]}});
    let (_, context, ..) = refused(
        &doc(named("e", 5, explicit), json!({})),
        budget(|b| b.max_particles = 10),
    );
    assert_eq!(context, "root/e3");
}

// ---- IK ---------------------------------------------------------------------------------

/// A chain of `n` joints turning about z, `iterations` passes, and `goals` goals.
fn ik_chain(n: usize, iterations: u32, goals: usize) -> Value {
    fn link(i: usize, n: usize) -> Value {
        let mut node = json!({"name": format!("j{i}"), "transform": {"translation": [0.1, 0, 0]}});
        node["children"] = if i + 1 < n {
            json!([link(i + 1, n)])
        } else {
            json!([{"name": "tip", "transform": {"translation": [0.1, 0, 0]}}])
        };
        node
    }
    let mut root = link(0, n);
    let joints: Vec<Value> = (0..n)
        .map(|i| json!({"node": format!("j{i}"), "rotate": [{"axis": 2}]}))
        .collect();
    let goals: Vec<Value> = (0..goals)
        .map(|_| json!({"target": "goal", "effector": "tip"}))
        .collect();
    root["controllers"] =
        json!([{"ik": {"joints": joints, "goals": goals, "iterations": iterations}}]);
    root
}

#[test]
fn an_ik_chain_solved_at_load_is_refused_before_it_is_solved() {
    // 58 joints × 65,536 iterations took minutes at load (and in `plumb info`).
    let goal = json!({"name": "goal", "transform": {"translation": [1, 3, 0]}});
    let text = doc(json!([goal, ik_chain(58, 65_536, 1)]), json!({}));
    let (b, context, amount, ..) = refused(&text, WorkBudget::default());
    assert_eq!(b, Budget::SolverSteps);
    assert_eq!(context, "root/j0 controller 0");
    assert_eq!(amount, 65_536 * 58 * 59);
    // Many goals multiply the work of every step too.
    let text = doc(json!([goal, ik_chain(2, 128, 20_000)]), json!({}));
    let (_, _, amount, ..) = refused(&text, WorkBudget::default());
    assert_eq!(amount, 128 * 2 * 20_002);
    // The book's default chain loads.
    assert!(load(
        &doc(json!([goal, ik_chain(2, 128, 1)]), json!({})),
        WorkBudget::default()
    )
    .is_ok());
}

#[test]
fn ik_controllers_add_up_per_update() {
    let goal = json!({"name": "goal", "transform": {"translation": [1, 3, 0]}});
    let mut a = ik_chain(3, 100, 1);
    let mut b = a.clone();
    // Two chains on differently named nodes.
    let rename = |v: &mut Value, p: &str| {
        let mut s = v.to_string().replace("\"tip\"", &format!("\"{p}tip\""));
        for d in 0..10 {
            s = s.replace(&format!("\"j{d}"), &format!("\"{p}j{d}"));
        }
        *v = serde_json::from_str(&s).unwrap();
    };
    rename(&mut a, "a");
    rename(&mut b, "b");
    // 100 × 3 × 4 = 1200 steps each.
    let text = doc(json!([goal, a, b]), json!({}));
    let (kind, context, amount, total, _) = refused(&text, budget(|b| b.max_solver_steps = 2000));
    assert_eq!((kind, amount, total), (Budget::SolverSteps, 1200, 2400));
    assert_eq!(context, "root/bj0 controller 0");
    assert!(load(&text, budget(|b| b.max_solver_steps = 2400)).is_ok());
}

// ---- Collisions -------------------------------------------------------------------------

/// A fan of `n` long, thin triangles through the origin (each from `-dir` to `dir`, at an
/// angle of its own), in the xy plane or, `upright`, in the xz plane: every triangle's bound
/// holds the origin, so no tree prunes a pair, and each of one fan crosses each of the other.
fn fan(n: usize, upright: bool) -> Value {
    let mut positions = Vec::with_capacity(3 * n);
    for i in 0..n {
        let t = std::f64::consts::PI * i as f64 / n as f64;
        let (c, s) = (
            plumb_raster::math::cos_f64(t),
            plumb_raster::math::sin_f64(t),
        );
        let p = |a: f64, b: f64| {
            if upright {
                json!([a, 0.0, b])
            } else {
                json!([a, b, 0.0])
            }
        };
        positions.push(p(c, s));
        positions.push(p(-c, -s));
        positions.push(p(-c - 0.01 * s, -s + 0.01 * c));
    }
    let uvs = vec![json!([0, 0]); 3 * n];
    json!({"inline": {"positions": positions, "uvs": [uvs]}})
}

/// Issue 50, class 6: every entry is charged before any is tested. Twenty all-hits entries
/// crossing two fans of 4050 slivers (16,402,500 pairs each, under the per-entry limit, none
/// prunable): before the fix the first was tested in full before the second was refused;
/// now the second is refused before anything is tested.
#[test]
fn collision_entries_are_all_charged_before_any_is_tested() {
    let text = doc(
        json!([
            {"name": "a", "mesh": fan(4050, false)},
            {"name": "b", "mesh": fan(4050, true)}
        ]),
        json!({"collisions": (0..20).map(|_| json!({"objects": ["a", "b"], "mode": "all", "hit_uv": [1, 1]})).collect::<Vec<_>>()}),
    );
    let start = std::time::Instant::now();
    let (b, context, amount, total, max) =
        refused(&text, budget(|b| b.max_collision_pairs = 1 << 24));
    assert_eq!(b, Budget::CollisionPairs);
    assert_eq!(
        (context.as_str(), amount, total, max),
        ("collision 1", 4050 * 4050, 2 * 4050 * 4050, 1 << 24)
    );
    assert!(
        start.elapsed() < std::time::Duration::from_secs(5),
        "{:?}",
        start.elapsed()
    );
}

#[test]
fn collision_entries_add_up() {
    // Planes of 4 × 4 × 2 = 32 triangles: 1024 pairs per entry.
    let text = doc(
        named("a", 6, json!({"plane": {"divisions": 4}})),
        json!({"collisions": (0..5).map(|i| json!({"objects": [format!("a{i}"), format!("a{}", i + 1)], "hit_uv": [0, 0]})).collect::<Vec<_>>()}),
    );
    let (b, context, amount, total, _) = refused(&text, budget(|b| b.max_collision_pairs = 3000));
    assert_eq!(b, Budget::CollisionPairs);
    assert_eq!(
        (context.as_str(), amount, total),
        ("collision 2", 1024, 3072)
    );
    // At the defaults (2²⁰ pairs, issue 50), an entry of 4050 × 4050 passes the total.
    let text = doc(
        named("a", 3, json!({"plane": {"divisions": 45}})),
        json!({"collisions": [
            {"objects": ["a0", "a1"], "mode": "first", "hit_uv": [0, 0]},
            {"objects": ["a1", "a2"], "mode": "first", "hit_uv": [0, 0]}
        ]}),
    );
    let (_, context, amount, ..) = refused(&text, WorkBudget::default());
    assert_eq!((context.as_str(), amount), ("collision 0", 4050 * 4050));
}

// ---- Instancing and shared meshes -------------------------------------------------------

fn instance_doc(instances: usize, max_nodes: u32, model: Value, depth: u32) -> String {
    let children: Vec<Value> = (0..instances)
        .map(|i| json!({"name": format!("i{i}"), "instance": {"symbol": "S", "min_area": 0.001, "max_depth": depth, "max_nodes": max_nodes}}))
        .collect();
    doc(
        Value::Array(children),
        json!({
            "cameras": [{"name": "main", "eye": [0, 0, 5], "target": [0, 0, 0]}],
            "definitions": {
                "models": [{"name": "M", "mesh": model}],
                "symbols": [{"name": "S", "productions": [{"edges": [{"to": "M"}, {"to": "S"}, {"to": "S"}]}]}]
            }
        }),
    )
}

#[test]
fn instance_nodes_are_charged_as_declared_before_expansion() {
    // 16 instances of up to 10⁶ nodes: the second passes the default, before it expands.
    assert_eq!(DEFAULT_MAX_INSTANCE_NODES, 1 << 20);
    let text = instance_doc(16, 1_000_000, json!({"box": {}}), 2);
    let (b, context, amount, total, _) = refused(&text, WorkBudget::default());
    assert_eq!(b, Budget::InstanceNodes);
    assert_eq!(
        (context.as_str(), amount, total),
        ("root/i1", 1_000_000, 2_000_000)
    );
    // Small instances add up too.
    let text = instance_doc(10, 100, json!({"box": {}}), 2);
    let (_, context, ..) = refused(&text, budget(|b| b.max_instance_nodes = 450));
    assert_eq!(context, "root/i4");
}

#[test]
fn a_heavy_mesh_shared_by_many_leaves_is_charged_once_per_leaf() {
    // A 2²¹-triangle model on 1023 leaves: 2 · 10⁹ triangles per frame before.
    let big = json!({"sphere": {"stacks": 1024, "slices": 1024}});
    let (b, context, amount, total, max) =
        refused(&instance_doc(1, 5000, big, 9), WorkBudget::default());
    assert_eq!(b, Budget::DrawnPrimitives);
    assert!(context.starts_with("root/i0/S/"), "{context}");
    assert_eq!((amount, max), (1 << 21, 1 << 24));
    assert!(total > max);
    // A small model shared by many leaves.
    let (_, _, amount, total, _) = refused(
        &instance_doc(1, 5000, json!({"box": {}}), 9),
        budget(|b| b.max_drawn_primitives = 1000),
    );
    assert_eq!((amount, total), (12, 1008));
    // Deep paths keep their ends.
    let e = load(
        &instance_doc(1, 100_000, json!({"box": {}}), 14),
        budget(|b| b.max_drawn_primitives = 120),
    )
    .err()
    .unwrap();
    assert!(e.to_string().contains(" levels…/"), "{e}");
}

#[test]
fn a_gltf_mesh_shared_by_many_nodes_is_charged_once_per_node() {
    let mut b = Builder::default();
    let mut d = triangle(&mut b);
    let nodes: Vec<Value> = (0..500)
        .map(|i| json!({"name": format!("n{i}"), "mesh": 0}))
        .collect();
    d["nodes"] = Value::Array(nodes);
    d["scenes"] = json!([{"nodes": (0..500).collect::<Vec<_>>()}]);
    let dir = temp_dir("budget-gltf-shared");
    let p = write(&dir, "shared.gltf", b.gltf(d));
    let options = ImportOptions {
        budget: budget(|b| b.max_drawn_primitives = 300),
        ..ImportOptions::default()
    };
    let e = io::load(&p, &options).expect_err("refused");
    assert!(e.to_string().starts_with(&p.display().to_string()), "{e}");
    assert!(
        matches!(&e, IoError::Budget(b) if b.budget == Budget::DrawnPrimitives && b.context == "root/n300/m[0]" && b.total == 301),
        "{e}"
    );
    // Imported into a scene file, the scene file's check sees it too.
    let scene = write(
        &dir,
        "s.json",
        doc(json!([{"name": "g", "import": "shared.gltf"}]), json!({})),
    );
    let e = io::load(&scene, &options).expect_err("refused");
    assert!(
        matches!(&e, IoError::Budget(b) if b.budget == Budget::DrawnPrimitives),
        "{e}"
    );
    assert!(io::load(&scene, &ImportOptions::default()).is_ok());
}

// ---- Clears -----------------------------------------------------------------------------

#[test]
fn full_clears_of_a_large_target_pass_the_frame_budget() {
    // 58 full depth clears of a 16384² target: 1.6 · 10¹⁰ pixels per frame.
    let layers: Vec<Value> = (0..58)
        .map(|i| json!({"name": format!("l{i}"), "clear": {}}))
        .collect();
    let text = doc(Value::Array(layers), json!({}));
    let loaded = load(&text, WorkBudget::default()).unwrap();
    assert_eq!(loaded.scene.max_clear_pixels(), Some(1 << 30));
    // At 800 × 600 they fit; at 16384² the fifth passes the default.
    assert_eq!(loaded.scene.check_clears(800, 600), Ok(58 * 800 * 600));
    let e = loaded.scene.check_clears(16384, 16384).unwrap_err();
    assert!(
        matches!(&e, SceneError::ClearBudget { what, pixels: 268_435_456, total, .. } if what == "layer node `root/l4`" && *total == 5 * 268_435_456),
        "{e}"
    );
    assert!(e.to_string().contains("--max-clear-pixels"), "{e}");
    // The draw checks before anything is cleared.
    let small = load(&text, budget(|b| b.max_clear_pixels = 3 * 16 * 16)).unwrap();
    let mut scene = small.scene;
    let mut camera = Camera::perspective(0.8, 1.0, 0.1, 10.0).unwrap();
    camera
        .look_at(Vec3::new(0.0, 0.0, 5.0), Vec3::ZERO, Vec3::Y)
        .unwrap();
    let mut r = SoftRenderer::new(16, 16, Some(1)).unwrap();
    let e = scene.draw(&camera, &mut r).unwrap_err();
    assert!(
        matches!(e, SceneError::ClearBudget { ref what, .. } if what == "layer node `root/l3`"),
        "{e}"
    );
}

#[test]
fn depth_layers_are_charged_when_their_frame_is_planned() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/examples/layered_depth.json");
    let options = ImportOptions {
        budget: budget(|b| b.max_clear_pixels = 100),
        ..ImportOptions::default()
    };
    let mut loaded = io::load(&path, &options).unwrap();
    let camera = loaded.default_camera(1.0).unwrap();
    // Two depth layers: one full clear of 16 × 16 = 256 pixels passes 100.
    let mut r = SoftRenderer::new(16, 16, Some(1)).unwrap();
    let e = loaded.scene.draw(&camera, &mut r).unwrap_err();
    assert!(
        matches!(&e, SceneError::ClearBudget { what, pixels: 256, total: 256, max: 100, .. } if what == "2 depth layers"),
        "{e}"
    );
    let mut r = SoftRenderer::new(8, 8, Some(1)).unwrap();
    assert!(loaded.scene.draw(&camera, &mut r).is_ok());
}

// ---- Messages ---------------------------------------------------------------------------

#[test]
fn budget_errors_name_the_file_line_object_and_flag() {
    let dir = temp_dir("budget-message");
    let p = write(
        &dir,
        "scene.json",
        "{\n  \"format\": \"plumb-scene\", \"version\": 1,\n  \"root\": { \"children\": [\n    { \"name\": \"sphere\", \"mesh\": { \"clod\": { \"mesh\": { \"sphere\": {} } } } }\n  ] }\n}\n",
    );
    let options = ImportOptions {
        budget: budget(|b| b.max_clod_triangles = 100),
        ..ImportOptions::default()
    };
    let e = io::load(&p, &options).err().unwrap();
    assert_eq!(
        e.to_string(),
        format!(
            "{}:4:5: root/sphere: a CLOD of 1024 triangles passes the budget of 100 CLOD source \
             triangles per load (--max-clod-triangles)",
            p.display()
        )
    );
    assert_eq!(e.file(), p.as_path());
    // A budget of u64::MAX never overflows.
    let all = WorkBudget {
        max_generated_primitives: u64::MAX,
        max_clod_triangles: u64::MAX,
        max_particles: u64::MAX,
        max_drawn_primitives: u64::MAX,
        max_solver_steps: u64::MAX,
        max_collision_pairs: u64::MAX,
        max_instance_nodes: u64::MAX,
        max_clear_pixels: u64::MAX,
    };
    assert!(load(&doc(named("s", 3, json!({"box": {}})), json!({})), all).is_ok());
}
