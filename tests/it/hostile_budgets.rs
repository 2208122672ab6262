//! Issue 29, class 1 through the command line: small hostile scene files that ask for
//! unbounded work — each ran past 20 s or aborted the process before the work budget — are
//! refused by `plumb render` **and** `plumb info` (the same budgets) with exit 2 and one
//! `error:` line naming the file, the object, the budget and its flag; the flags raise the
//! budgets; `plumb convert` writes no file past its output limit. Every refusal here happens
//! before the work, so each test takes well under a second.

use std::path::Path;

use serde_json::{json, Value};

use crate::cli_common::{assert_bad_input, assert_success, plumb, stderr, temp_dir};

/// Writes a scene document with `children` under the root and the `extra` top-level fields
/// to `dir/name`.
fn scene(dir: &Path, name: &str, children: Value, extra: Value) {
    let mut d = json!({"format": "plumb-scene", "version": 1, "root": {"children": children}});
    if let Value::Object(m) = extra {
        for (k, v) in m {
            d[k] = v;
        }
    }
    std::fs::write(dir.join(name), d.to_string()).unwrap();
}

fn named(prefix: &str, n: usize, mesh: Value) -> Value {
    Value::Array(
        (0..n)
            .map(|i| json!({"name": format!("{prefix}{i}"), "mesh": mesh.clone()}))
            .collect(),
    )
}

fn camera() -> Value {
    json!([{"name": "main", "eye": [0, 0, 5], "target": [0, 0, 0]}])
}

/// `plumb info FILE flags…` and `plumb render FILE -o out.png --size 32x32 flags…` both
/// refuse `file` with one line holding every string of `expect`.
fn both_refuse(dir: &Path, file: &str, flags: &[&str], expect: &[&str]) {
    let mut info = vec!["info", file];
    info.extend_from_slice(flags);
    let mut render = vec!["render", file, "-o", "out.png", "--size", "32x32"];
    render.extend_from_slice(flags);
    for args in [info, render] {
        let o = plumb(dir, &args);
        assert_bad_input(&o, expect[0]);
        let err = stderr(&o);
        for e in expect {
            assert!(err.contains(e), "{args:?}: '{e}' not in {err}");
        }
        assert!(err.contains(file), "{args:?}: the file is not named: {err}");
    }
    assert!(!dir.join("out.png").exists(), "nothing drawn");
}

#[test]
fn a_clod_of_a_big_sphere_and_nested_clods_are_refused_before_they_are_built() {
    let dir = temp_dir("budget-clod");
    let big = json!({"sphere": {"stacks": 1024, "slices": 1024}});
    // One CLOD of the 2²¹-triangle sphere (118 s before), eight of them.
    scene(
        &dir,
        "one.json",
        json!([{"name": "sphere", "mesh": {"clod": {"mesh": big}}}]),
        json!({}),
    );
    both_refuse(
        &dir,
        "one.json",
        &[],
        &[
            "--max-clod-triangles",
            "root/sphere",
            "a CLOD of 2097152 triangles",
        ],
    );
    scene(
        &dir,
        "eight.json",
        named("s", 8, json!({"clod": {"mesh": big}})),
        json!({}),
    );
    both_refuse(
        &dir,
        "eight.json",
        &[],
        &["--max-clod-triangles", "root/s0"],
    );
    // 55 nested builds of a modest sphere.
    let mut m = json!({"sphere": {"stacks": 32, "slices": 64}});
    for _ in 0..55 {
        m = json!({"clod": {"mesh": m}});
    }
    scene(
        &dir,
        "nested.json",
        json!([{"name": "nest", "mesh": m}]),
        json!({}),
    );
    both_refuse(
        &dir,
        "nested.json",
        &[],
        &[
            "--max-clod-triangles",
            "55 nested CLOD builds of up to 4096 triangles",
        ],
    );
    // Many small CLODs add up.
    let small = json!({"clod": {"mesh": {"sphere": {"stacks": 4, "slices": 8}}}});
    scene(&dir, "many.json", named("c", 20, small), json!({}));
    both_refuse(
        &dir,
        "many.json",
        &["--max-clod-triangles", "500"],
        &["--max-clod-triangles", "root/c7", "brings the total to 512"],
    );
    let o = plumb(&dir, &["info", "many.json", "--max-clod-triangles", "1280"]);
    assert_success(&o);
}

#[test]
fn curves_and_surfaces_at_their_limits_add_up() {
    let dir = temp_dir("budget-tessellation");
    // 300 curves of 2¹⁹ segments, 600 surfaces of 2¹⁷ triangles (15–35 s before).
    let curve = json!({"curve": {"degree": 1, "level": 19, "points": [[0, 0, 0], [1, 0, 0]]}});
    scene(&dir, "curves.json", named("c", 300, curve), json!({}));
    both_refuse(
        &dir,
        "curves.json",
        &["--max-generated-primitives", "1000000"],
        &[
            "--max-generated-primitives",
            "root/c1",
            "a curve of 524288 segments",
        ],
    );
    let surface = json!({"surface": {"degree": 1, "level": 8, "points": [[0, 0, 0], [1, 0, 0], [0, 1, 0], [1, 1, 0]]}});
    scene(&dir, "surfaces.json", named("s", 600, surface), json!({}));
    both_refuse(
        &dir,
        "surfaces.json",
        &["--max-generated-primitives", "300000"],
        &[
            "--max-generated-primitives",
            "root/s2",
            "a surface of 131072 triangles",
        ],
    );
    // The generators count too: the default fits one largest sphere, not a box more.
    scene(
        &dir,
        "spheres.json",
        json!([{"name": "big", "mesh": {"sphere": {"stacks": 1024, "slices": 1024}}}, {"name": "more", "mesh": {"box": {}}}]),
        json!({}),
    );
    both_refuse(
        &dir,
        "spheres.json",
        &[],
        &[
            "--max-generated-primitives",
            "root/more",
            "a box of 12 triangles",
            "past the budget of 2097152",
        ],
    );
}

#[test]
fn particles_neither_abort_nor_rebuild_a_million_per_frame() {
    let dir = temp_dir("budget-particles");
    // 40 systems of 10⁶ particles: an allocator abort before.
    let p = json!({"particles": {"random": {"count": 1_000_000}}});
    scene(&dir, "forty.json", named("p", 40, p.clone()), json!({}));
    both_refuse(
        &dir,
        "forty.json",
        &[],
        &[
            "--max-particles",
            "root/p0",
            "a particle system of 1000000 particles",
        ],
    );
    // One system of 10⁶ rebuilt every frame of a sequence: refused before the first frame.
    scene(
        &dir,
        "frames.json",
        named("p", 1, p),
        json!({"cameras": camera()}),
    );
    let o = plumb(
        &dir,
        &[
            "render",
            "frames.json",
            "-o",
            "f.png",
            "--size",
            "32x32",
            "--frames",
            "100",
        ],
    );
    assert_bad_input(&o, "--max-particles");
    assert!(!dir.join("f_0000.png").exists());
    // Small systems add up.
    let small = json!({"particles": {"random": {"count": 1000}}});
    scene(&dir, "small.json", named("p", 10, small), json!({}));
    both_refuse(
        &dir,
        "small.json",
        &["--max-particles", "5500"],
        &["root/p5", "brings the total to 6000"],
    );
}

/// A chain of `n` joints turning about z with `iterations` passes, under the root.
fn ik_scene(dir: &Path, name: &str, n: usize, iterations: u32) {
    fn link(i: usize, n: usize) -> Value {
        let mut node = json!({"name": format!("j{i}"), "transform": {"translation": [0.1, 0, 0]}});
        node["children"] = if i + 1 < n {
            json!([link(i + 1, n)])
        } else {
            json!([{"name": "tip", "transform": {"translation": [0.1, 0, 0]}}])
        };
        node
    }
    let mut chain = link(0, n);
    let joints: Vec<Value> = (0..n)
        .map(|i| json!({"node": format!("j{i}"), "rotate": [{"axis": 2}]}))
        .collect();
    chain["controllers"] = json!([{"ik": {
        "joints": joints,
        "goals": [{"target": "goal", "effector": "tip"}],
        "iterations": iterations
    }}]);
    let goal = json!({"name": "goal", "transform": {"translation": [1, 3, 0]}});
    scene(dir, name, json!([goal, chain]), json!({}));
}

#[test]
fn an_ik_chain_solved_at_load_is_refused_by_info_too() {
    let dir = temp_dir("budget-ik");
    // 58 joints × 65,536 iterations: 216 s at load, in `plumb info` as in `render`.
    ik_scene(&dir, "ik.json", 58, 65_536);
    both_refuse(
        &dir,
        "ik.json",
        &[],
        &[
            "--max-solver-steps",
            "root/j0 controller 0",
            "65536 iterations × 58 joint axes × 59 joints and goals",
        ],
    );
    // The flag raises the budget: a shorter solve of the same chain loads.
    ik_scene(&dir, "short.json", 58, 1300);
    both_refuse(
        &dir,
        "short.json",
        &[],
        &["--max-solver-steps", "= 4448600 steps"],
    );
    assert_success(&plumb(
        &dir,
        &["info", "short.json", "--max-solver-steps", "4500000"],
    ));
}

#[test]
fn collision_entries_add_up_past_the_total() {
    let dir = temp_dir("budget-collisions");
    // Entries of 4050 × 4050 pairs each, under the per-entry limit: the first passes the
    // total (2²⁰ pairs by default, issue 50).
    let entries: Vec<Value> = (0..12)
        .map(|i| json!({"objects": [format!("a{i}"), format!("a{}", i + 1)], "mode": "first", "hit_uv": [0, 0]}))
        .collect();
    scene(
        &dir,
        "pairs.json",
        named("a", 13, json!({"plane": {"divisions": 45}})),
        json!({"collisions": entries}),
    );
    both_refuse(
        &dir,
        "pairs.json",
        &[],
        &["--max-collision-pairs", "collision 0", "4050 × 4050"],
    );
}

/// A file whose `count` instance nodes each instance `S → M, S, S` with `max_nodes` and
/// `max_depth` `depth`, `M` being `model`.
fn instance_scene(dir: &Path, name: &str, count: usize, max_nodes: u32, depth: u32, model: Value) {
    let children: Vec<Value> = (0..count)
        .map(|i| json!({"name": format!("i{i}"), "instance": {"symbol": "S", "min_area": 0.001, "max_depth": depth, "max_nodes": max_nodes}}))
        .collect();
    scene(
        dir,
        name,
        Value::Array(children),
        json!({
            "cameras": camera(),
            "definitions": {
                "models": [{"name": "M", "mesh": model}],
                "symbols": [{"name": "S", "productions": [{"edges": [{"to": "M"}, {"to": "S"}, {"to": "S"}]}]}]
            }
        }),
    );
}

#[test]
fn instance_trees_and_shared_heavy_meshes_are_bounded() {
    let dir = temp_dir("budget-instances");
    // 16 instance nodes of up to 10⁶ nodes (an abort before): the second passes.
    instance_scene(&dir, "sixteen.json", 16, 1_000_000, 2, json!({"box": {}}));
    both_refuse(
        &dir,
        "sixteen.json",
        &[],
        &[
            "--max-instance-nodes",
            "root/i1",
            "an instance of up to 1000000 nodes",
        ],
    );
    assert_success(&plumb(
        &dir,
        &["info", "sixteen.json", "--max-instance-nodes", "16000000"],
    ));
    // A 2²¹-triangle model shared by ~500 leaves (drawn hundreds of times per frame).
    let big = json!({"sphere": {"stacks": 1024, "slices": 1024}});
    instance_scene(&dir, "shared.json", 1, 5000, 9, big);
    both_refuse(
        &dir,
        "shared.json",
        &[],
        &[
            "--max-drawn-primitives",
            "root/i0/S/",
            "a mesh of 2097152 primitives",
        ],
    );
}

#[test]
fn full_clears_of_a_large_target_are_refused_before_the_frame() {
    let dir = temp_dir("budget-clears");
    // 58 full depth clears: fine at 32 × 32, past the budget at a large size. (The budget is
    // lowered here instead of rendering 16384² in a test: the same check, at a small size.)
    let layers: Vec<Value> = (0..58)
        .map(|i| json!({"name": format!("l{i}"), "clear": {}}))
        .collect();
    scene(
        &dir,
        "clears.json",
        Value::Array(layers),
        json!({"cameras": camera()}),
    );
    assert_success(&plumb(
        &dir,
        &["render", "clears.json", "-o", "ok.png", "--size", "32x32"],
    ));
    let o = plumb(
        &dir,
        &[
            "render",
            "clears.json",
            "-o",
            "out.png",
            "--size",
            "64x64",
            "--max-clear-pixels",
            "40000",
        ],
    );
    assert_bad_input(&o, "clears.json: frame 0: layer node `root/l9`");
    assert!(stderr(&o).contains("(--max-clear-pixels)"));
    assert!(!dir.join("out.png").exists());
    // `info` checks the same clears at render's default size, 800 × 600.
    let o = plumb(
        &dir,
        &["info", "clears.json", "--max-clear-pixels", "4000000"],
    );
    assert_bad_input(&o, "clears.json: layer node `root/l8`");
    assert!(stderr(&o).contains("800x600"));
    // Depth layers: one full clear per layer after the first.
    let docs = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/examples/layered_depth.json");
    let o = plumb(
        &dir,
        &[
            "render",
            docs.to_str().unwrap(),
            "-o",
            "d.png",
            "--size",
            "64x64",
            "--max-clear-pixels",
            "4000",
        ],
    );
    assert_bad_input(&o, "2 depth layers");
}

#[test]
fn convert_output_is_bounded() {
    let dir = temp_dir("budget-convert");
    // A 440-byte instanced file within every load budget (10⁴ leaves of a 1024-triangle
    // sphere, 10⁷ drawn triangles) would write its mesh inline once per leaf: most of a
    // gigabyte.
    instance_scene(
        &dir,
        "inst.json",
        1,
        30_000,
        4096,
        json!({"sphere": {"stacks": 16, "slices": 32}}),
    );
    assert!(std::fs::metadata(dir.join("inst.json")).unwrap().len() < 500);
    let o = plumb(&dir, &["convert", "inst.json", "-o", "out.json"]);
    assert_bad_input(&o, "out.json: root/i0/");
    assert!(
        stderr(&o).contains("past the limit of 268435456 bytes (--max-output-bytes"),
        "{}",
        stderr(&o)
    );
    assert!(!dir.join("out.json").exists());
    // A small limit: refused before the document is built, or after, before writing.
    scene(
        &dir,
        "two.json",
        named("b", 2, json!({"sphere": {}})),
        json!({}),
    );
    let o = plumb(
        &dir,
        &[
            "convert",
            "two.json",
            "-o",
            "small.json",
            "--max-output-bytes",
            "80000",
        ],
    );
    assert_bad_input(
        &o,
        "small.json: root/b1: the saved scene file would take at least",
    );
    let o = plumb(
        &dir,
        &[
            "convert",
            "two.json",
            "-o",
            "small.json",
            "--max-output-bytes",
            "120000",
        ],
    );
    assert_bad_input(
        &o,
        "small.json: scene file: the saved scene file would take at least",
    );
    assert!(!dir.join("small.json").exists());
    assert_success(&plumb(&dir, &["convert", "two.json", "-o", "fits.json"]));
    // Past what the loader reads is not a limit convert takes.
    let o = plumb(
        &dir,
        &[
            "convert",
            "two.json",
            "-o",
            "x.json",
            "--max-output-bytes",
            "300000000",
        ],
    );
    assert_bad_input(&o, "a larger scene file would not load");
    // The load's budgets apply to convert too.
    let o = plumb(
        &dir,
        &[
            "convert",
            "two.json",
            "-o",
            "x.json",
            "--max-generated-primitives",
            "1000",
        ],
    );
    assert_bad_input(&o, "--max-generated-primitives");
}

#[test]
fn budget_flags_are_checked_and_only_for_scene_files() {
    let dir = temp_dir("budget-flags");
    let o = plumb(&dir, &["render", "-o", "s.png", "--max-particles", "5"]);
    assert_bad_input(&o, "--max-particles needs a SCENE file");
    let o = plumb(&dir, &["info", "x.json", "--max-particles", "many"]);
    assert_bad_input(&o, "--max-particles");
    // u64::MAX is a budget like any other: no overflow.
    scene(&dir, "s.json", named("b", 3, json!({"box": {}})), json!({}));
    let max = u64::MAX.to_string();
    assert_success(&plumb(
        &dir,
        &[
            "info",
            "s.json",
            "--max-drawn-primitives",
            &max,
            "--max-generated-primitives",
            &max,
        ],
    ));
    let o = plumb(&dir, &["info", "s.json", "--max-drawn-primitives", "0"]);
    assert_bad_input(
        &o,
        "root/b0: a mesh of 12 primitives passes the budget of 0 drawn primitives per frame",
    );
}

/// Issue 50, class 6: a draw trace's draws are charged before it is replayed. 1,000 draws
/// naming one view of 600,000 vertices (200,000 triangles each; views may overlap, so the
/// file stays at 9.6 MB) replayed for over a minute; the trace's primitives together are now
/// held to `--max-drawn-primitives` (2²⁴, as a scene's frame) before anything is drawn.
#[test]
fn a_trace_of_many_large_draws_is_refused_before_replay() {
    use glam::Vec4;
    use plumb::raster::trace::{CommandDoc, Recorder};
    use plumb::raster::{DrawTarget, Indices, PipelineState, Topology, VertexInput};
    let dir = temp_dir("budget-trace");
    let mut r = Recorder::new(16, 16).unwrap();
    let positions = vec![Vec4::new(0.0, 0.0, 0.5, 1.0); 600_000];
    let vertices = VertexInput {
        positions: &positions,
        colors: None,
        uvs: &[],
        fog: None,
    };
    r.draw(
        &PipelineState::new(16, 16),
        &vertices,
        Indices::None,
        Topology::TriangleList,
    )
    .unwrap();
    let mut trace = r.finish("t.bin");
    let draw = trace.doc.commands[0].clone();
    assert!(matches!(draw, CommandDoc::Draw(_)));
    trace.doc.commands = vec![draw; 1000];
    trace.save(&dir.join("t.json")).unwrap();
    let start = std::time::Instant::now();
    for args in [
        &["render", "t.json", "-o", "o.png"][..],
        &["explain", "t.json", "1", "1"],
    ] {
        let o = plumb(&dir, args);
        assert_bad_input(
            &o,
            "t.json: command 83: a draw of 200000 primitives brings the trace to 16800000, past the budget of 16777216 drawn primitives (--max-drawn-primitives)",
        );
    }
    assert!(start.elapsed() < std::time::Duration::from_secs(10));
    // The flag lowers (or raises) it; other budget flags still do not apply to a trace.
    let o = plumb(
        &dir,
        &[
            "render",
            "t.json",
            "-o",
            "o.png",
            "--max-drawn-primitives",
            "10",
        ],
    );
    assert_bad_input(&o, "command 0: a draw of 200000 primitives");
    let o = plumb(
        &dir,
        &["render", "t.json", "-o", "o.png", "--max-particles", "10"],
    );
    assert_bad_input(&o, "--max-particles does not apply to a draw trace");
}
