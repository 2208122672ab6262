//! The book's Collision sample (`book-advanced.md` §5: "two cylinders on a 2×2 colour
//! texture; intersecting triangles recoloured (blue→cyan, red→yellow) via UV edits in the
//! callback") as the scene file behind the golden `refimages/json/collision_cylinders.json`.
//!
//! The file holds two cylinders as inline geometry with one vertex triple per triangle, so
//! each triangle has its own uv: `(0.25, 0.25)` picks the first texel of its 2×2 checker
//! (blue or red), `(0.75, 0.25)` the second (cyan or yellow). Every triangle is written with
//! the first; the file's `collisions` entry makes the loader collide the two cylinders and
//! give the hit triangles the second. This test loads the committed file, builds box BV trees
//! from the loaded meshes and world transforms itself, collides them with [`collide`], and
//! checks that exactly the hit triangles carry the hit uv — so the image shows what the
//! library computes. `PLUMB_BLESS=1` rewrites the file from [`scene_text`] (then re-bless the
//! golden with `tests/refimages/main.rs` and open it).

use std::fmt::Write as _;
use std::path::PathBuf;

use glam::{Vec2, Vec3};
use plumb_raster::math;
use plumb_scene::collide::collide;
use plumb_scene::io::{self, ImportOptions};
use plumb_scene::{BvKind, BvTreeOptions, CollideMode, Collider, TrianglePair};

const BASE_UV: Vec2 = Vec2::new(0.25, 0.25);
const HIT_UV: Vec2 = Vec2::new(0.75, 0.25);

fn path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../refimages/json/collision_cylinders.json")
}

/// Rounds to 4 decimals, so the file stays small (the value written is the `f32` read back).
fn r4(x: f32) -> f32 {
    let v = (x * 10000.0).round() / 10000.0;
    if v == 0.0 {
        0.0
    } else {
        v
    }
}

/// A closed cylinder along y (radius 0.5, height 3, 20 slices, 6 stacks, capped), one vertex
/// triple per triangle: (positions, normals).
fn cylinder() -> Vec<([Vec3; 3], [Vec3; 3])> {
    let (slices, stacks, r, h) = (20u32, 6u32, 0.5f32, 3.0f32);
    let ring = |j: u32| {
        let (s, c) = math::sin_cos(j as f32 / slices as f32 * std::f32::consts::TAU);
        Vec3::new(r4(c), 0.0, r4(-s))
    };
    let y = |i: u32| r4(h * 0.5 - h * i as f32 / stacks as f32);
    let mut tris = Vec::new();
    for i in 0..stacks {
        for j in 0..slices {
            let (n0, n1) = (ring(j), ring(j + 1));
            let p = |n: Vec3, yy: f32| Vec3::new(r4(n.x * r), yy, r4(n.z * r));
            let (a, b) = (p(n0, y(i)), p(n1, y(i)));
            let (c, d) = (p(n0, y(i + 1)), p(n1, y(i + 1)));
            // Counter-clockwise seen from outside.
            tris.push(([a, c, b], [n0, n0, n1]));
            tris.push(([b, c, d], [n1, n0, n1]));
        }
    }
    for (yy, n) in [(h * 0.5, Vec3::Y), (-h * 0.5, Vec3::NEG_Y)] {
        for j in 0..slices {
            let p = |m: Vec3| Vec3::new(r4(m.x * r), yy, r4(m.z * r));
            let (a, b) = (p(ring(j)), p(ring(j + 1)));
            let centre = Vec3::new(0.0, yy, 0.0);
            let t = if n.y > 0.0 {
                [centre, a, b]
            } else {
                [centre, b, a]
            };
            tris.push((t, [n; 3]));
        }
    }
    tris
}

fn v3(v: Vec3) -> String {
    format!("[{}, {}, {}]", v.x, v.y, v.z)
}

/// The scene file: every triangle at the base uv, and the collision that marks the hits.
fn scene_text() -> String {
    let tris = cylinder();
    let mut nodes = Vec::new();
    let placements = [
        ("blue_cylinder", "blue_cyan", "\"translation\": [0, 0, 0]"),
        (
            "red_cylinder",
            "red_yellow",
            "\"translation\": [0.1, 0.35, 0.6], \"rotation\": { \"axis\": [0.3, 0.4, 1], \"degrees\": 80 }",
        ),
    ];
    for (name, texture, transform) in placements {
        let (mut pos, mut nrm, mut uv) = (Vec::new(), Vec::new(), Vec::new());
        for (p, n) in &tris {
            let u = BASE_UV;
            for i in 0..3 {
                pos.push(v3(p[i]));
                nrm.push(v3(n[i]));
                uv.push(format!("[{}, {}]", u.x, u.y));
            }
        }
        let mut node = String::new();
        write!(
            node,
            "      {{ \"name\": \"{name}\",\n        \"transform\": {{ {transform} }},\n        \
             \"effect\": {{ \"textures\": [{{ \"texture\": \"{texture}\", \"sampler\": {{ \"mag\": \
             \"nearest\", \"min\": \"nearest\" }}, \"apply\": \"modulate\" }}] }},\n        \
             \"mesh\": {{ \"inline\": {{\n          \"positions\": [{}],\n          \"normals\": \
             [{}],\n          \"uvs\": [[{}]] }} }} }}",
            pos.join(", "),
            nrm.join(", "),
            uv.join(", ")
        )
        .unwrap();
        nodes.push(node);
    }
    format!(
        r#"{{
  "format": "plumb-scene",
  "version": 1,
  "background": [0.12, 0.12, 0.14, 1],
  "textures": [
    {{ "name": "blue_cyan", "checker": {{ "size": [2, 2], "cells": [2, 2], "colors": [[0.15, 0.3, 1, 1], [0.2, 1, 1, 1]] }} }},
    {{ "name": "red_yellow", "checker": {{ "size": [2, 2], "cells": [2, 2], "colors": [[1, 0.15, 0.1, 1], [1, 0.95, 0.2, 1]] }} }}
  ],
  "lights": [
    {{ "name": "fill", "type": "ambient", "ambient": [0.35, 0.35, 0.35, 1] }},
    {{ "name": "sun", "type": "directional", "direction": [-1, -1.5, -2], "diffuse": [0.75, 0.75, 0.75, 1] }}
  ],
  "cameras": [{{ "name": "main", "eye": [4.6, 1.6, -0.4], "target": [0, 0.1, 0.3], "fov_y_degrees": 45 }}],
  "collisions": [{{ "objects": ["blue_cylinder", "red_cylinder"], "bound": "box", "hit_uv": [{}, {}] }}],
  "root": {{
    "lights": ["fill", "sun"],
    "states": {{ "material": {{ "ambient": [1, 1, 1, 1], "diffuse": [1, 1, 1, 1] }} }},
    "children": [
{}
    ]
  }}
}}
"#,
        HIT_UV.x,
        HIT_UV.y,
        nodes.join(",\n")
    )
}

/// The pairs the library finds between the two cylinders of the file at `path`, and each
/// cylinder's triangle uvs as loaded.
fn collide_file(text_path: &std::path::Path) -> (Vec<TrianglePair>, [Vec<Vec2>; 2]) {
    let mut loaded = io::load(text_path, &ImportOptions::default()).unwrap();
    let scene = &mut loaded.scene;
    scene.update(0.0);
    let opts = BvTreeOptions {
        kind: BvKind::Box,
        max_triangles_per_leaf: 2,
    };
    let ids = ["blue_cylinder", "red_cylinder"].map(|n| scene.find(n).unwrap());
    let [a, b] = ids.map(|id| Collider::from_scene(scene, id, opts).unwrap());
    let uvs = ids.map(|id| {
        let mesh = scene.mesh(id).unwrap();
        (0..mesh.triangle_count())
            .map(|t| mesh.uv_sets()[0][mesh.indices()[3 * t] as usize])
            .collect()
    });
    (collide(&a, &b, CollideMode::AllHits), uvs)
}

#[test]
fn collision_sample_file_shows_the_hits() {
    let file = path();
    if std::env::var("PLUMB_BLESS").is_ok_and(|v| v == "1") {
        std::fs::write(&file, scene_text()).unwrap();
    }
    let (pairs, uvs) = collide_file(&file);
    assert!(!pairs.is_empty(), "the cylinders must cross");
    for (k, uv) in uvs.iter().enumerate() {
        let hit: Vec<u32> = pairs
            .iter()
            .map(|p| if k == 0 { p.a } else { p.b })
            .collect();
        let mut recoloured = 0;
        for (t, u) in uv.iter().enumerate() {
            let want = if hit.contains(&(t as u32)) {
                HIT_UV
            } else {
                BASE_UV
            };
            assert_eq!(*u, want, "cylinder {k} triangle {t}");
            recoloured += usize::from(want == HIT_UV);
        }
        // A band, not the whole cylinder.
        assert!(
            recoloured > 4 && recoloured < uv.len() / 3,
            "{k}: {recoloured}"
        );
    }
    // The file's text is what the generator writes.
    assert_eq!(std::fs::read_to_string(&file).unwrap(), scene_text());
}

/// A scene file with two quads crossing at right angles (`a` in z = 0, `b` in x = 0.2), an
/// extra group, a line mesh, a mesh without uvs and a third quad far away, and `collisions`.
fn crossing(collisions: &str) -> Result<plumb_scene::Scene, String> {
    let quad = |uvs: bool| {
        format!(
            r#"{{ "inline": {{ "positions": [[-1, -1, 0], [1, -1, 0], [1, 1, 0], [-1, -1, 0], [1, 1, 0], [-1, 1, 0]]{} }} }}"#,
            if uvs {
                r#", "uvs": [[[0, 0], [0, 0], [0, 0], [0, 0], [0, 0], [0, 0]]]"#
            } else {
                ""
            }
        )
    };
    let text = format!(
        r#"{{ "format": "plumb-scene", "version": 1, "collisions": {collisions},
  "root": {{ "children": [
    {{ "name": "a", "mesh": {q} }},
    {{ "name": "b", "transform": {{ "translation": [0.2, 0, 0], "rotation": {{ "axis": [0, 1, 0], "degrees": 90 }} }}, "mesh": {q} }},
    {{ "name": "far", "transform": {{ "translation": [10, 0, 0] }}, "mesh": {q} }},
    {{ "name": "bare", "transform": {{ "translation": [0, 0, 0.5] }}, "mesh": {bare} }},
    {{ "name": "wire", "mesh": {{ "inline": {{ "topology": "lines", "positions": [[0, 0, 0], [1, 0, 0]], "uvs": [[[0, 0], [0, 0]]] }} }} }},
    {{ "name": "group", "children": [] }}
  ] }} }}"#,
        q = quad(true),
        bare = quad(false)
    );
    let dir = std::env::temp_dir().join(format!("plumb-collisions-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("crossing.json");
    std::fs::write(&path, text).unwrap();
    io::load(&path, &ImportOptions::default())
        .map(|l| l.scene)
        .map_err(|e| e.to_string())
}

fn uvs_of(scene: &plumb_scene::Scene, name: &str) -> Vec<Vec2> {
    scene.mesh(scene.find(name).unwrap()).unwrap().uv_sets()[0].clone()
}

#[test]
fn collisions_in_scene_files_mark_hits_and_refuse_bad_entries() {
    // Both quads of `a` cross the plane of `b` at x = 0.2 (each triangle reaches it): with
    // every hit reported, every vertex of both meshes is marked; `far` touches nothing.
    let s = crossing(
        r#"[{ "objects": ["a", "b"], "hit_uv": [0.5, 1] },
           { "objects": ["a", "far"], "bound": "sphere", "hit_uv": [0.25, 0.25] }]"#,
    )
    .unwrap();
    let hit = Vec2::new(0.5, 1.0);
    assert!(uvs_of(&s, "a").iter().all(|&u| u == hit));
    assert!(uvs_of(&s, "b").iter().all(|&u| u == hit));
    assert!(uvs_of(&s, "far").iter().all(|&u| u == Vec2::ZERO));
    // First hit: one pair, so one triangle of each (three vertices) marked.
    let s =
        crossing(r#"[{ "objects": ["a", "b"], "mode": "first", "hit_uv": [0.5, 1] }]"#).unwrap();
    for name in ["a", "b"] {
        let marked = uvs_of(&s, name).iter().filter(|&&u| u == hit).count();
        assert_eq!(marked, 3, "{name}");
    }
    // 4097 × 4096 triangle pairs: over the limit, refused before any test.
    let many = (0..4097)
        .map(|i| format!("[{i}, 0, 0], [{i}, 1, 0], [{i}, 0, 1]"))
        .collect::<Vec<_>>()
        .join(", ");
    let many_uv = vec!["[0, 0]"; 3 * 4097].join(", ");
    let few = (0..4096)
        .map(|i| format!("[0, {i}, 0], [1, {i}, 0], [0, {i}, 1]"))
        .collect::<Vec<_>>()
        .join(", ");
    let few_uv = vec!["[0, 0]"; 3 * 4096].join(", ");
    let dir = std::env::temp_dir().join(format!("plumb-collisions-big-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("big.json");
    std::fs::write(
        &path,
        format!(
            r#"{{ "format": "plumb-scene", "version": 1,
  "collisions": [{{ "objects": ["m", "n"], "hit_uv": [1, 1] }}],
  "root": {{ "children": [
    {{ "name": "m", "mesh": {{ "inline": {{ "positions": [{many}], "uvs": [[{many_uv}]] }} }} }},
    {{ "name": "n", "mesh": {{ "inline": {{ "positions": [{few}], "uvs": [[{few_uv}]] }} }} }}
  ] }} }}"#
        ),
    )
    .unwrap();
    let e = io::load(&path, &ImportOptions::default())
        .err()
        .unwrap()
        .to_string();
    assert!(
        e.contains("4097 × 4096 triangles is more than the limit"),
        "{e}"
    );
    for (entry, message) in [
        (
            r#"[{ "objects": ["a", "nope"], "hit_uv": [0, 0] }]"#,
            "unknown node 'nope'",
        ),
        (
            r#"[{ "objects": ["a", "a"], "hit_uv": [0, 0] }]"#,
            "two different objects",
        ),
        (
            r#"[{ "objects": ["a", "group"], "hit_uv": [0, 0] }]"#,
            "'group' is not a geometry leaf",
        ),
        (
            r#"[{ "objects": ["wire", "a"], "hit_uv": [0, 0] }]"#,
            "'wire' is not a triangle mesh",
        ),
        (
            r#"[{ "objects": ["a", "bare"], "hit_uv": [0, 0] }]"#,
            "'bare' has no uv set",
        ),
        (
            r#"[{ "objects": ["a", "b"], "hit_uv": [0, 1e39] }]"#,
            "crossing.json:",
        ),
        (
            r#"[{ "objects": ["a", "b"], "hit_uv": [0, 0], "bound": "capsule" }]"#,
            "capsule",
        ),
    ] {
        let e = crossing(entry)
            .err()
            .unwrap_or_else(|| panic!("{entry} loaded"));
        assert!(e.contains(message), "{entry}: {e}");
        if !entry.contains("1e39") && !entry.contains("capsule") {
            assert!(e.contains("collision 0"), "{entry}: {e}");
        }
    }
}
