//! `clod`, `curve` and `surface` meshes in scene files: the goldens' models, counts from the
//! file, and typed errors with their location.

use std::path::{Path, PathBuf};

use glam::Vec4;
use plumb_scene::io::{self, ImportOptions, IoError};
use plumb_scene::{Mesh, Scene};

fn refimages() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../refimages/json")
}

fn load_case(name: &str) -> Scene {
    io::load(&refimages().join(name), &ImportOptions::default())
        .unwrap_or_else(|e| panic!("{name}: {e}"))
        .scene
}

fn mesh_of(scene: &Scene, name: &str) -> Mesh {
    let id = scene.find(name).unwrap_or_else(|| panic!("no node {name}"));
    (**scene.mesh(id).unwrap()).clone()
}

/// Writes `root` into a scene file in a scratch directory and loads it.
fn load_root(test: &str, root: &str) -> Result<Scene, IoError> {
    let dir = std::env::temp_dir().join(format!("plumb-json-clod-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{test}.json"));
    let text = format!("{{\n\"format\": \"plumb-scene\",\n\"version\": 1,\n\"root\": {root}\n}}\n");
    std::fs::write(&path, text).unwrap();
    io::load(&path, &ImportOptions::default()).map(|s| s.scene)
}

fn leaf(mesh: &str) -> String {
    format!("{{\"children\": [\n{{\"name\": \"m\", \"mesh\": {mesh}}}]}}")
}

#[test]
fn clod_goldens_show_the_same_hill_at_three_records() {
    // A 12×12-quad height field: 169 vertices, 288 triangles at full detail.
    let full = mesh_of(&load_case("clod_full.json"), "hill");
    let half = mesh_of(&load_case("clod_half.json"), "hill");
    let min = mesh_of(&load_case("clod_min.json"), "hill");
    assert_eq!((full.positions().len(), full.triangle_count()), (169, 288));
    assert!(half.triangle_count() < full.triangle_count());
    assert!(min.triangle_count() < half.triangle_count());
    // The 48 border vertices lie on boundary edges: none is ever thrown, so the outline of
    // the hill is intact at the last record (the book's "does not shrink", L9020, L9196).
    let on_border = |m: &Mesh| {
        m.positions()
            .iter()
            .filter(|p| p.x.abs() == 1.2 || p.z.abs() == 1.2)
            .count()
    };
    assert_eq!(on_border(&full), 48);
    assert_eq!(on_border(&min), 48);
    // The last record keeps no interior vertex that a collapse could still remove: a flat
    // fan of the border (every triangle's corners in range).
    assert!(min
        .indices()
        .iter()
        .all(|&i| (i as usize) < min.positions().len()));
}

#[test]
fn surface_golden_has_the_counts_of_level_4() {
    let scene = load_case("surface_patch.json");
    // One rectangle patch at level 4: (2^4 + 1)² = 289 vertices, 2·4^4 = 512 triangles.
    let patch = mesh_of(&scene, "patch");
    assert_eq!(
        (patch.positions().len(), patch.triangle_count()),
        (289, 512)
    );
    assert_eq!(patch.normals().map(<[_]>::len), Some(289));
    // One cubic segment at level 5: 2^5 + 1 = 33 vertices, colours from red to yellow.
    let arc = mesh_of(&scene, "arc");
    assert_eq!(arc.positions().len(), 33);
    let c = arc.colors().unwrap();
    assert_eq!(c[0], Vec4::new(1.0, 0.2, 0.1, 1.0));
    assert_eq!(c[1], Vec4::new(1.0, 0.9, 0.1, 1.0));
    // Vertex 2 (u = 1/2) averages the two ends.
    assert!((c[2] - Vec4::new(1.0, 0.55, 0.1, 1.0)).abs().max_element() < 1e-6);
}

#[test]
fn counts_from_scene_files() {
    // Two cubic segments (7 points) at level 3: 2·8 + 1 = 17 vertices.
    let s = load_root(
        "curve2",
        &leaf(
            r#"{"curve": {"level": 3, "points": [[0,0,0],[1,1,0],[2,1,0],[3,0,0],[4,-1,0],[5,-1,0],[6,0,0]],
                "colors": [[1,0,0,1],[0,1,0,1],[0,0,1,1]]}}"#,
        ),
    )
    .unwrap();
    let m = mesh_of(&s, "m");
    assert_eq!(m.positions().len(), 17);
    assert_eq!(m.colors().map(<[_]>::len), Some(17));
    // A degree-2 triangle patch at level 2: 15 vertices, 16 triangles.
    let s = load_root(
        "tri",
        &leaf(
            r#"{"surface": {"patch": "triangle", "degree": 2, "level": 2,
                "points": [[0,0,0],[0.5,0,0],[1,0,0],[0,0.5,0],[0.5,0.5,1],[0,1,0]]}}"#,
        ),
    )
    .unwrap();
    let m = mesh_of(&s, "m");
    assert_eq!((m.positions().len(), m.triangle_count()), (15, 16));
    // A clod of a 2×2 plane at record 0 is the plane (9 vertices, 8 triangles).
    let s = load_root(
        "plane",
        &leaf(r#"{"clod": {"mesh": {"plane": {"divisions": 2}}, "record": 0}}"#),
    )
    .unwrap();
    let m = mesh_of(&s, "m");
    assert_eq!(m.triangle_count(), 8);
}

fn invalid(test: &str, mesh: &str, needle: &str) {
    let e = load_root(test, &leaf(mesh)).unwrap_err();
    let text = e.to_string();
    assert!(text.contains(needle), "{test}: '{needle}' not in: {text}");
    // The node's path and location (line 5, column 1 of the written file) are in the
    // message (as `file:5:1: root/m` or `root/m (at 5:1)`, depending on the error kind).
    assert!(
        text.contains("root/m") && text.contains("5:1"),
        "{test}: no location in: {text}"
    );
}

#[test]
fn bad_clod_curve_and_surface_files_are_typed_errors_with_location() {
    invalid(
        "record",
        r#"{"clod": {"mesh": {"plane": {"divisions": 2}}, "record": 99}}"#,
        "record 99 is out of range",
    );
    invalid(
        "both",
        r#"{"clod": {"mesh": {"plane": {}}, "record": 0, "fraction": 0.5}}"#,
        "not both",
    );
    invalid(
        "fraction",
        r#"{"clod": {"mesh": {"plane": {}}, "fraction": 1.5}}"#,
        "outside 0..=1",
    );
    invalid(
        "lines",
        r#"{"clod": {"mesh": {"inline": {"topology": "lines", "positions": [[0,0,0],[1,0,0]]}}}}"#,
        "triangles only",
    );
    invalid(
        "empty",
        r#"{"clod": {"mesh": {"inline": {"positions": [], "indices": []}}}}"#,
        "no triangles",
    );
    invalid(
        "curve_count",
        r#"{"curve": {"points": [[0,0,0],[1,0,0],[2,0,0]]}}"#,
        "3 control points",
    );
    invalid(
        "curve_level",
        r#"{"curve": {"level": 4000000000, "points": [[0,0,0],[1,0,0]], "degree": 1}}"#,
        "exceeds 1048576 vertices",
    );
    invalid(
        "curve_colors",
        r#"{"curve": {"points": [[0,0,0],[1,0,0]], "degree": 1, "colors": [[1,1,1,1]]}}"#,
        "1 colours for 2",
    );
    invalid(
        "surface_count",
        r#"{"surface": {"points": [[0,0,0],[1,0,0],[0,1,0]]}}"#,
        "needs 16",
    );
    invalid(
        "surface_level",
        r#"{"surface": {"degree": 1, "level": 9, "points": [[0,0,0],[1,0,0],[0,1,0],[1,1,0]]}}"#,
        "exceeds 262144 triangles",
    );
    invalid(
        "degree",
        r#"{"surface": {"degree": 40, "points": []}}"#,
        "degree 40",
    );
    invalid(
        "tri_degree_v",
        r#"{"surface": {"patch": "triangle", "degree": 1, "degree_v": 2, "points": [[0,0,0],[1,0,0],[0,1,0]]}}"#,
        "degree_v",
    );
    // Unknown fields and non-numbers are parse errors with line and column.
    let e = load_root("unknown", &leaf(r#"{"curve": {"points": [], "lod": 3}}"#)).unwrap_err();
    assert!(matches!(e, IoError::Parse { .. }), "{e}");
}

/// Run-time level selection (issue 31, the book's `SelectLevelOfDetail`): the goldens
/// `json/{clod,curve}_select_{near,far}` differ only in their camera. The index is
/// `⌊(count − 1)·√((depth − near)/(far − near))⌋`, worked out here by hand from each file.
#[test]
fn levels_are_chosen_per_view_by_depth() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../refimages/json");
    // (file, leaf, expected index, vertices of the mesh drawn)
    // CLOD sphere, 207 records (0..=206), near 4, far 20:
    //   eye at 4.5: ⌊206·√(0.5/16)⌋ = ⌊206·0.17678⌋ = 36; eye at 18: ⌊206·√(14/16)⌋ = 192.
    // Curve of 2 segments, levels 1..=6, near 3, far 15 (6 indices):
    //   eye at 4: ⌊5·√(1/12)⌋ = 1 → level 5, 2·2⁵ + 1 = 65 vertices;
    //   eye at 14: ⌊5·√(11/12)⌋ = 4 → level 2, 2·2² + 1 = 9 vertices.
    // Rectangle patch, levels 1..=5, near 3, far 15, its bounding-sphere centre at z = 0.333:
    //   eye at z = 4: depth 3.667, ⌊4·√(0.667/12)⌋ = ⌊0.94⌋ = 0 → level 5, (2⁵ + 1)² = 1089
    //   vertices; eye at z = 16: depth 15.67 ≥ far → 4 → level 1, (2 + 1)² = 9 vertices.
    for (file, leaf, index, vertices) in [
        ("clod_select_near.json", "ball", 36, None),
        ("clod_select_far.json", "ball", 192, None),
        ("curve_select_near.json", "loop", 1, Some(65)),
        ("curve_select_far.json", "loop", 4, Some(9)),
        ("surface_select_near.json", "sheet", 0, Some(1089)),
        ("surface_select_far.json", "sheet", 4, Some(9)),
    ] {
        let loaded = plumb_scene::io::load(&dir.join(file), &Default::default()).unwrap();
        let mut s = loaded.scene;
        let id = s.find(leaf).unwrap();
        let cam = loaded.imported.cameras[0].to_camera(&s, 1.0).unwrap();
        // A view is computed without changing the scene.
        let view = s.view(&cam);
        assert_eq!(view.level(id), Some(index), "{file}");
        assert_eq!(
            s.level_mesh(id).unwrap().unwrap().current(),
            0,
            "{file} before a draw"
        );
        let mut r = plumb_scene::SoftRenderer::new(64, 64, Some(1)).unwrap();
        s.draw(&cam, &mut r).unwrap();
        assert_eq!(
            s.level_mesh(id).unwrap().unwrap().current(),
            index,
            "{file}"
        );
        if let Some(v) = vertices {
            assert_eq!(s.mesh(id).unwrap().positions().len(), v, "{file}");
        }
    }
}

/// A `select` is refused where it cannot apply, with the node's place.
#[test]
fn level_selection_errors_name_the_node() {
    let path = std::path::Path::new("sel.json");
    let build = |mesh: &str| {
        let text = format!(
            r#"{{"format": "plumb-scene", "version": 1, "root": {{"children": [{{"name": "n", "mesh": {mesh}}}]}}}}"#
        );
        let doc = plumb_scene::io::json::parse(path, &text).unwrap();
        plumb_scene::io::json::build(&doc, path, &Default::default())
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default()
    };
    let e = build(r#"{"clod": {"mesh": {"sphere": {}}, "select": {"near": 5, "far": 2}}}"#);
    assert!(e.contains("root/n") && e.contains("near < far"), "{e}");
    let e = build(
        r#"{"clod": {"mesh": {"sphere": {}}, "select": {"near": 1, "far": 2, "min_level": 1}}}"#,
    );
    assert!(e.contains("min_level") && e.contains("curves"), "{e}");
    let e = build(
        r#"{"curve": {"points": [[0,0,0],[1,0,0]], "degree": 1, "level": 2, "select": {"near": 1, "far": 2, "min_level": 3}}}"#,
    );
    assert!(e.contains("above"), "{e}");
}
