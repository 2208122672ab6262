//! The book's Collision sample (`book-advanced.md` §5: "two cylinders on a 2×2 colour
//! texture; intersecting triangles recoloured (blue→cyan, red→yellow) via UV edits in the
//! callback") as the scene file behind the golden `refimages/json/collision_cylinders.json`.
//!
//! The file holds two cylinders as inline geometry with one vertex triple per triangle, so
//! each triangle has its own uv: `(0.25, 0.25)` picks the first texel of its 2×2 checker
//! (blue or red), `(0.75, 0.25)` the second (cyan or yellow). This test loads the committed
//! file, builds box BV trees from the loaded meshes and world transforms, collides them with
//! [`collide`], and checks that exactly the hit triangles carry the hit uv — so the image shows
//! what the library computes. `PLUMB_BLESS=1` rewrites the file from [`scene_text`] (then
//! re-bless the golden with `tests/refimages.rs` and open it).

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

/// The scene file, with the triangles of `hits[k]` recoloured on cylinder `k`.
fn scene_text(hits: [&[u32]; 2]) -> String {
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
    for (k, (name, texture, transform)) in placements.iter().enumerate() {
        let (mut pos, mut nrm, mut uv) = (Vec::new(), Vec::new(), Vec::new());
        for (t, (p, n)) in tris.iter().enumerate() {
            let u = if hits[k].contains(&(t as u32)) {
                HIT_UV
            } else {
                BASE_UV
            };
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
  "root": {{
    "lights": ["fill", "sun"],
    "states": {{ "material": {{ "ambient": [1, 1, 1, 1], "diffuse": [1, 1, 1, 1] }} }},
    "children": [
{}
    ]
  }}
}}
"#,
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
        // Positions do not depend on the uvs: collide the plain file, then write the hits.
        std::fs::write(&file, scene_text([&[], &[]])).unwrap();
        let (pairs, _) = collide_file(&file);
        let mut ha: Vec<u32> = pairs.iter().map(|p| p.a).collect();
        let mut hb: Vec<u32> = pairs.iter().map(|p| p.b).collect();
        ha.dedup();
        hb.sort();
        hb.dedup();
        std::fs::write(&file, scene_text([&ha, &hb])).unwrap();
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
    // The file's text is what the generator writes for these hits.
    let mut ha: Vec<u32> = pairs.iter().map(|p| p.a).collect();
    let mut hb: Vec<u32> = pairs.iter().map(|p| p.b).collect();
    ha.dedup();
    hb.sort();
    hb.dedup();
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        scene_text([&ha, &hb])
    );
}
