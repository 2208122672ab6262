//! The JSON scene format: every documented example loads and round-trips, the features land
//! in the scene graph, and every class of bad input is a clean error with file, line and
//! column.

use std::path::{Path, PathBuf};

use glam::Vec3;
use plumb_scene::io::json::{self, SceneDoc};
use plumb_scene::io::{self, ImportOptions, IoError, Location};
use plumb_scene::{GlobalState, NodeKind, Scene, StateKind};

fn examples_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/examples")
}

fn examples() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(examples_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    v.sort();
    v
}

fn load_example(name: &str) -> io::ImportedScene {
    io::load(&examples_dir().join(name), &ImportOptions::default())
        .unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// A scratch directory for files written by one test.
fn scratch(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("plumb-json-{}-{test}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn parse(text: &str) -> Result<SceneDoc, IoError> {
    json::parse(Path::new("test.json"), text)
}

fn wrap(root: &str) -> String {
    format!("{{\"format\": \"plumb-scene\", \"version\": 1, \"root\": {root}}}")
}

fn find(scene: &Scene, name: &str) -> plumb_scene::NodeId {
    scene
        .find(name)
        .unwrap_or_else(|| panic!("no node '{name}'"))
}

fn close(a: Vec3, b: Vec3) -> bool {
    (a - b).abs().max_element() < 1e-5
}

#[test]
fn every_documented_example_loads_and_round_trips() {
    let files = examples();
    assert!(files.len() >= 10, "examples found: {files:?}");
    for path in files {
        let loaded = io::load(&path, &ImportOptions::default())
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert!(loaded.scene.node_count() > 1, "{}", path.display());
        let text = std::fs::read_to_string(&path).unwrap();
        let doc = json::parse(&path, &text).unwrap();
        let saved = json::save(&doc);
        let again = json::parse(&path, &saved).unwrap();
        assert_eq!(doc, again, "{}", path.display());
        assert_eq!(
            saved,
            json::save(&again),
            "{}: save is stable",
            path.display()
        );
    }
}

#[test]
fn example_features_reach_the_scene() {
    let s = load_example("minimal.json");
    let cube = find(&s.scene, "cube");
    assert_eq!(s.scene.mesh(cube).unwrap().triangle_count(), 12);
    assert_eq!(s.scene.resolved(cube).unwrap().lights.len(), 1);
    assert_eq!(s.imported.cameras.len(), 1);
    assert_eq!(s.imported.cameras[0].name, "main");
    let cam = s.imported.cameras[0].to_camera(&s.scene, 1.0).unwrap();
    assert!(close(cam.location(), Vec3::new(3.0, 2.0, 5.0)));
    // Looking at the origin from (3, 2, 5).
    assert!(close(
        cam.direction(),
        -Vec3::new(3.0, 2.0, 5.0).normalize()
    ));

    // hand = arm(T(0,1,0)·R_z(30°)) · T(2,0,0): (2cos30°, 1 + 2sin30°, 0).
    let s = load_example("transforms.json");
    let hand = find(&s.scene, "hand");
    let w = s.scene.world_transform(hand).unwrap();
    assert!(close(w.translation(), Vec3::new(3f32.sqrt(), 2.0, 0.0)));
    assert!(s
        .scene
        .world_transform(find(&s.scene, "mirrored"))
        .unwrap()
        .is_mirror());
    // A quarter turn about +y takes +x to −z.
    let q = s
        .scene
        .world_transform(find(&s.scene, "quaternion"))
        .unwrap();
    assert!(close(q.apply_vector(Vec3::X), Vec3::NEG_Z));

    let s = load_example("switch_billboard.json");
    let sw = find(&s.scene, "level_of_detail");
    assert_eq!(s.scene.kind(sw).unwrap(), NodeKind::Switch);
    assert_eq!(
        s.scene.active_child(sw).unwrap(),
        Some(find(&s.scene, "fine"))
    );
    assert!(s.scene.is_billboard(find(&s.scene, "sign")).unwrap());

    let s = load_example("cameras.json");
    let names: Vec<&str> = s.imported.cameras.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["front", "wide", "top"]);

    let s = load_example("states.json");
    let ball = find(&s.scene, "ball");
    let r = s.scene.resolved(ball).unwrap();
    assert!(r.states.alpha.blend_enabled);
    assert!(r.states.fog.enabled && r.states.fog.end == 30.0);
    assert_eq!(r.states.stencil.reference, 1);
    assert!(!r.states.zbuffer.writable);
    assert!(r.states.polygon_offset.enabled && r.states.polygon_offset.units == -2.0);
    assert_eq!(
        s.scene.global_states(s.scene.root()).unwrap().len(),
        StateKind::COUNT
    );

    let s = load_example("import.json");
    let imported = find(&s.scene, "imported");
    assert_eq!(s.scene.children(imported).unwrap().len(), 1);
    assert_eq!(s.imported.materials.len(), 1);

    let s = load_example("lights.json");
    let floor = find(&s.scene, "floor");
    assert_eq!(s.scene.resolved(floor).unwrap().lights.len(), 4);
}

#[test]
fn controllers_animate_on_update() {
    let mut s = load_example("controllers.json");
    s.scene.update(1.0);
    // 45°/s for 1 s about +y.
    let spin = s.scene.local_transform(find(&s.scene, "spinner")).unwrap();
    let h = core::f32::consts::FRAC_1_SQRT_2;
    assert!(close(spin.apply_vector(Vec3::X), Vec3::new(h, 0.0, -h)));
    // The second key of the keyframes.
    let b = s.scene.local_transform(find(&s.scene, "bouncer")).unwrap();
    assert!(close(b.translation(), Vec3::new(3.0, 2.0, 0.0)));
    s.scene.update(0.5);
    let b = s.scene.local_transform(find(&s.scene, "bouncer")).unwrap();
    assert!(close(b.translation(), Vec3::new(3.0, 1.0, 0.0)));
}

#[test]
fn a_built_document_round_trips_through_save() {
    let text = wrap(
        r#"{"name": "r", "states": {"shade": "flat", "material": {"shininess": 8}},
            "children": [{"name": "a", "transform": {"scale": [1, -2, 3]}, "mesh": {"cube": {}}}]}"#,
    );
    let doc = parse(&text).unwrap();
    let saved = json::save(&doc);
    assert_eq!(parse(&saved).unwrap(), doc);
    // The alias "cube" is written as "box"; every default of a given state is written out.
    assert!(saved.contains("\"box\""));
    assert!(saved.contains("\"diffuse\""));
    // Scenes built from the two documents agree.
    let a = json::build(&doc, Path::new("a.json"), &ImportOptions::default()).unwrap();
    let b = json::build(
        &parse(&saved).unwrap(),
        Path::new("b.json"),
        &Default::default(),
    )
    .unwrap();
    let (na, nb) = (find(&a.scene, "a"), find(&b.scene, "a"));
    assert_eq!(
        a.scene.local_transform(na).unwrap(),
        b.scene.local_transform(nb).unwrap()
    );
    assert_eq!(
        a.scene
            .global_state(a.scene.root(), StateKind::Shade)
            .unwrap(),
        Some(GlobalState::Shade(plumb_scene::ShadeState::Flat))
    );
}

fn parse_err(text: &str) -> (Option<Location>, String) {
    match parse(text) {
        Err(IoError::Parse {
            location, message, ..
        }) => (location, message),
        other => panic!("expected a parse error, got {other:?}"),
    }
}

#[test]
fn unknown_field_names_field_line_and_column() {
    let text = "{\n  \"format\": \"plumb-scene\",\n  \"version\": 1,\n  \"root\": {\n    \"colour\": 1\n  }\n}";
    let e = parse(text).unwrap_err();
    let msg = e.to_string();
    assert!(msg.starts_with("test.json:5:"), "{msg}");
    assert!(msg.contains("unknown field `colour`"), "{msg}");
    // Nested deeper: a misspelt sampler field.
    let text = "{\"format\": \"plumb-scene\", \"version\": 1,\n\"textures\": [{\"name\": \"t\", \"solid\": [1,1,1,1]}],\n\"root\": {\"effect\": {\"textures\": [{\"texture\": \"t\",\n \"sampler\": {\"wrap\": \"repeat\"}}]}}}";
    let (loc, msg) = parse_err(text);
    assert_eq!(loc.map(|l| l.line), Some(4));
    assert!(msg.contains("unknown field `wrap`"), "{msg}");
}

#[test]
fn wrong_types_truncation_and_garbage_are_parse_errors() {
    let (loc, msg) = parse_err(&wrap(r#"{"transform": {"translation": [1, "two", 3]}}"#));
    assert!(
        loc.is_some() && msg.contains("invalid type: string \"two\""),
        "{msg}"
    );
    let (_, msg) = parse_err(&wrap(r#"{"kind": "portal"}"#));
    assert!(msg.contains("unknown variant `portal`"), "{msg}");
    let (_, msg) = parse_err(&wrap(r#"{"children": {}}"#));
    assert!(msg.contains("invalid type"), "{msg}");
    let full = wrap(r#"{"children": [{"mesh": {"sphere": {}}}]}"#);
    let (loc, _) = parse_err(&full[..full.len() - 7]);
    assert!(loc.is_some());
    let (loc, _) = parse_err("\u{1}\u{2}garbage");
    assert_eq!(loc.map(|l| l.line), Some(1));
    let (_, msg) = parse_err("");
    assert!(msg.contains("EOF"), "{msg}");
    // Not UTF-8 at all.
    let dir = scratch("garbage");
    let p = dir.join("bin.json");
    std::fs::write(&p, [0xff, 0xfe, 0x00, 0x9f]).unwrap();
    let e = io::load(&p, &ImportOptions::default()).unwrap_err();
    assert!(matches!(e, IoError::Parse { .. }), "{e}");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn non_finite_and_huge_numbers_are_refused_where_they_stand() {
    let (loc, msg) = parse_err(&wrap(r#"{"transform": {"scale": ["NaN", 1, 1]}}"#));
    assert!(loc.is_some() && msg.contains("\"NaN\""), "{msg}");
    // Fits f64 but not f32.
    let (loc, msg) = parse_err(&wrap(r#"{"transform": {"scale": [1e39, 1, 1]}}"#));
    assert!(loc.is_some() && msg.contains("finite number"), "{msg}");
    // Does not even fit f64.
    let (loc, msg) = parse_err(&wrap(r#"{"transform": {"scale": [1e400, 1, 1]}}"#));
    assert!(loc.is_some() && msg.contains("out of range"), "{msg}");
    let (_, msg) = parse_err(&wrap(r#"{"transform": {"scale": [NaN, 1, 1]}}"#));
    assert!(msg.contains("expected value"), "{msg}");
    // A u8 field past 255.
    let (_, msg) = parse_err(&wrap(r#"{"states": {"stencil": {"reference": 256}}}"#));
    assert!(msg.contains("256"), "{msg}");
}

#[test]
fn bad_format_or_version_is_named() {
    let e =
        parse(r#"{"format": "plumb-scene", "version": 2, "root": {"new_in_v2": 1}}"#).unwrap_err();
    assert!(e.to_string().contains("unsupported version 2"), "{e}");
    let e = parse(r#"{"format": "other", "version": 1}"#).unwrap_err();
    assert!(e.to_string().contains("\"format\""), "{e}");
    let e = parse(r#"{"version": 1}"#).unwrap_err();
    assert!(e.to_string().contains("missing \"format\""), "{e}");
    let e = parse(r#"{"format": "plumb-scene"}"#).unwrap_err();
    assert!(e.to_string().contains("missing \"version\""), "{e}");
}

#[test]
fn very_deep_nesting_is_a_clean_error() {
    let depth = 100_000;
    let mut text = String::from("{\"format\": \"plumb-scene\", \"version\": 1, \"root\": ");
    text.push_str(&"{\"children\": [".repeat(depth));
    text.push_str(&"]}".repeat(depth));
    text.push('}');
    let (loc, msg) = parse_err(&text);
    assert!(loc.is_some() && msg.contains("recursion limit"), "{msg}");
    // Just past the node-depth limit but within the parser's: the typed limit.
    let d = json::MAX_NODE_DEPTH + 1;
    let mut text = String::from("{\"format\": \"plumb-scene\", \"version\": 1, \"root\": ");
    text.push_str(&"{\"children\": [".repeat(d));
    text.push_str("{}");
    text.push_str(&"]}".repeat(d));
    text.push('}');
    match parse(&text) {
        Err(IoError::Limit { max, .. }) => assert_eq!(max, json::MAX_NODE_DEPTH),
        Err(IoError::Parse { message, .. }) => assert!(message.contains("recursion")),
        other => panic!("{other:?}"),
    }
}

#[test]
fn documents_made_in_code_are_bounded_too() {
    let mut node = json::NodeDoc::default();
    for _ in 0..json::MAX_NODE_DEPTH + 5 {
        node = json::NodeDoc {
            children: vec![node],
            ..json::NodeDoc::default()
        };
    }
    let doc = SceneDoc {
        root: node,
        ..SceneDoc::default()
    };
    let e = json::build(&doc, Path::new("code.json"), &ImportOptions::default()).unwrap_err();
    assert!(matches!(e, IoError::Limit { .. }), "{e}");
}

fn build_err(text: &str) -> String {
    let doc = parse(text).unwrap_or_else(|e| panic!("{e}"));
    json::build(&doc, Path::new("dir/s.json"), &ImportOptions::default())
        .map(|_| ())
        .unwrap_err()
        .to_string()
}

#[test]
fn missing_texture_and_import_files_are_named() {
    let e = build_err(
        r#"{"format": "plumb-scene", "version": 1, "textures": [{"name": "t", "file": "nope.png"}]}"#,
    );
    assert!(
        e.starts_with("dir/s.json: image 'nope.png' could not be loaded"),
        "{e}"
    );
    let e = build_err(&wrap(r#"{"children": [{"import": "gone.gltf"}]}"#));
    assert!(e.contains("imported scene 'gone.gltf'"), "{e}");
    let e = build_err(&wrap(r#"{"import": "other.json"}"#));
    assert!(e.contains("only .gltf, .glb and .obj"), "{e}");
    // An undecodable texture file.
    let dir = scratch("badpng");
    std::fs::write(dir.join("bad.png"), b"not a png").unwrap();
    std::fs::write(
        dir.join("s.json"),
        r#"{"format": "plumb-scene", "version": 1, "textures": [{"name": "t", "file": "bad.png"}]}"#,
    )
    .unwrap();
    let e = io::load(&dir.join("s.json"), &ImportOptions::default()).unwrap_err();
    assert!(matches!(e, IoError::Image { .. }), "{e}");
    let e = io::load(&dir.join("absent.json"), &ImportOptions::default()).unwrap_err();
    assert!(matches!(e, IoError::Read { .. }), "{e}");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn duplicate_names() {
    let e = build_err(
        r#"{"format": "plumb-scene", "version": 1, "textures": [{"name": "t", "solid": [1,1,1,1]}, {"name": "t", "checker": {}}]}"#,
    );
    assert!(e.contains("duplicate name 't'"), "{e}");
    let e = build_err(
        r#"{"format": "plumb-scene", "version": 1, "cameras": [{"name": "c"}, {"name": "c"}]}"#,
    );
    assert!(e.contains("duplicate name 'c'"), "{e}");
    // Duplicate node names are allowed, in document order...
    let text = wrap(r#"{"children": [{"name": "n", "mesh": {"box": {}}}, {"name": "n"}]}"#);
    let doc = parse(&text).unwrap();
    let s = json::build(&doc, Path::new("s.json"), &Default::default()).unwrap();
    let kids = s.scene.children(s.scene.root()).unwrap().to_vec();
    assert_eq!(kids.len(), 2);
    assert_eq!(s.scene.kind(kids[0]).unwrap(), NodeKind::Geometry);
    assert_eq!(s.scene.kind(kids[1]).unwrap(), NodeKind::Group);
    // ...but a name an effect refers to must be unique, every time.
    let text = format!(
        "{{\"format\": \"plumb-scene\", \"version\": 1, \"lights\": [{{\"name\": \"l\", \"type\": \"point\"}}], \"root\": {}}}",
        r#"{"effect": {"planar_shadow": {"planes": ["n"], "light": "l"}},
            "children": [{"name": "n", "mesh": {"plane": {}}}, {"name": "n", "mesh": {"plane": {}}}]}"#
    );
    let first = build_err(&text);
    assert!(first.contains("2 nodes are named 'n'"), "{first}");
    assert_eq!(first, build_err(&text));
}

#[test]
fn inline_geometry_is_checked() {
    let e = build_err(&wrap(
        r#"{"children": [{"name": "t", "mesh": {"inline": {"positions": [[0,0,0],[1,0,0],[0,1,0]], "indices": [0, 1, 3]}}}]}"#,
    ));
    assert!(
        e.contains("root/t") && e.contains("index 3 out of range for 3 vertices"),
        "{e}"
    );
    let e = build_err(&wrap(
        r#"{"children": [{"mesh": {"inline": {"positions": [[0,0,0],[1,0,0],[0,1,0]], "indices": [0, 1]}}}]}"#,
    ));
    assert!(e.contains("root/#0") && e.contains("indices"), "{e}");
    let e = build_err(&wrap(
        r#"{"children": [{"mesh": {"inline": {"positions": [[0,0,0],[1,0,0],[0,1,0]], "normals": [[0,0,1]]}}}]}"#,
    ));
    assert!(e.contains("normals"), "{e}");
    let e = build_err(&wrap(
        r#"{"children": [{"mesh": {"sphere": {"stacks": 100000}}}]}"#,
    ));
    assert!(e.contains("sphere stacks"), "{e}");
}

#[test]
fn misplaced_and_unknown_references_are_errors() {
    let e = build_err(&wrap(r#"{"children": [{"kind": "geometry"}]}"#));
    assert!(e.contains("needs a \"mesh\""), "{e}");
    let e = build_err(&wrap(
        r#"{"children": [{"kind": "switch", "active": 2, "children": [{}]}]}"#,
    ));
    assert!(e.contains("not a child"), "{e}");
    let e = build_err(&wrap(r#"{"lights": ["nobody"]}"#));
    assert!(e.contains("unknown light 'nobody'"), "{e}");
    let e = build_err(&wrap(
        r#"{"effect": {"environment_map": {"texture": "x"}}}"#,
    ));
    assert!(e.contains("unknown texture 'x'"), "{e}");
    let e = build_err(&wrap(r#"{"transform": {"rotation": {"axis": [0,1,0]}}}"#));
    assert!(e.contains("\"degrees\""), "{e}");
    let e = build_err(&wrap(
        r#"{"transform": {"rotation": {"axis": [0,0,0], "degrees": 5}}}"#,
    ));
    assert!(e.contains("rotation"), "{e}");
    let e = build_err(&wrap(
        r#"{"controllers": [{"keyframes": {"times": [0, 1], "translations": [[0,0,0],[1,0,0],[2,0,0]]}}]}"#,
    ));
    assert!(e.contains("root controller 0"), "{e}");
    let e = build_err(&wrap(
        r#"{"controllers": [{"keyframes": {"times": [1, 0], "scales": [[1,1,1],[2,2,2]]}}]}"#,
    ));
    assert!(e.contains("increase"), "{e}");
    // A leaf-only effect on a group.
    let e = build_err(&wrap(r#"{"effect": {"vertex_colors": []}}"#));
    assert!(e.contains("cannot be placed"), "{e}");
}

#[test]
fn node_limit_is_typed() {
    // MAX_NODES + 1 empty children would be a large file; check the limit through the
    // documented constant with a file just over it only when it is small enough.
    let n = json::MAX_NODES + 1;
    let mut text = String::with_capacity(n * 3 + 100);
    text.push_str("{\"format\": \"plumb-scene\", \"version\": 1, \"root\": {\"children\": [");
    for i in 0..n {
        if i > 0 {
            text.push(',');
        }
        text.push_str("{}");
    }
    text.push_str("]}}");
    match parse(&text) {
        Err(IoError::Limit { what, max, .. }) => {
            assert_eq!((what, max), ("nodes", json::MAX_NODES));
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn oversized_file_is_refused_before_reading() {
    let dir = scratch("big");
    let p = dir.join("s.json");
    std::fs::write(&p, wrap("{}")).unwrap();
    let opts = ImportOptions {
        max_file_bytes: 10,
        ..ImportOptions::default()
    };
    let e = io::load(&p, &opts).unwrap_err();
    assert!(matches!(e, IoError::FileTooLarge { .. }), "{e}");
    assert!(io::load(&p, &ImportOptions::default()).is_ok());
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn the_format_doc_shows_every_example_verbatim() {
    let md = std::fs::read_to_string(examples_dir().join("../scene-format.md")).unwrap();
    let blocks: Vec<&str> = md
        .split("```json\n")
        .skip(1)
        .map(|b| b.split("\n```").next().unwrap())
        .collect();
    let files = examples();
    assert_eq!(blocks.len(), files.len(), "one block per example file");
    for path in files {
        let text = std::fs::read_to_string(&path).unwrap();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        assert!(
            md.contains(&format!("docs/examples/{name}")),
            "{name} is not named in the doc"
        );
        assert!(
            blocks.contains(&text.trim_end()),
            "{name}: the doc's block differs from the file"
        );
    }
}

#[test]
fn saved_numbers_arrays_stay_on_one_line() {
    let path = examples_dir().join("inline.json");
    let doc = json::parse(&path, &std::fs::read_to_string(&path).unwrap()).unwrap();
    let saved = json::save(&doc);
    if std::env::var_os("PLUMB_SHOW_SAVE").is_some() {
        eprintln!("{saved}");
    }
    assert!(saved.contains("\"indices\": [0, 1, 2]"), "{saved}");
    assert!(
        saved.contains("\n              [-1.0, -1.0, 0.0],\n"),
        "{saved}"
    );
    assert!(saved.contains("\"name\": \"triangle\""), "{saved}");
    assert!(saved.ends_with("}\n"));
}

#[test]
fn build_errors_of_a_loaded_file_carry_line_and_column() {
    let dir = scratch("located");
    let p = dir.join("s.json");
    let text = "{\n  \"format\": \"plumb-scene\",\n  \"version\": 1,\n  \"lights\": [\n    {\"name\": \"l\", \"type\": \"spot\", \"angle_degrees\": 200}\n  ],\n  \"root\": {\n    \"children\": [\n      {\"name\": \"a\"},\n      {\"name\": \"b\", \"effect\": {\"environment_map\": {\"texture\": \"nope\"}}}\n    ]\n  }\n}\n";
    std::fs::write(&p, text).unwrap();
    let e = io::load(&p, &ImportOptions::default())
        .unwrap_err()
        .to_string();
    let file = p.display().to_string();
    assert!(
        e.starts_with(&format!("{file}:5:5: light 'l': angle_degrees 200")),
        "{e}"
    );
    std::fs::write(&p, text.replace("200", "20")).unwrap();
    let e = io::load(&p, &ImportOptions::default())
        .unwrap_err()
        .to_string();
    assert_eq!(e, format!("{file}:10:7: root/b: unknown texture 'nope'"));
    // A scene-graph refusal names the place too.
    let bad_camera = text.replace(
        "\"lights\": [\n    {\"name\": \"l\", \"type\": \"spot\", \"angle_degrees\": 200}\n  ]",
        "\"cameras\": [\n    {\"name\": \"c\", \"eye\": [0, 0, 0], \"target\": [0, 0, 0]}\n  ]",
    );
    std::fs::write(&p, bad_camera).unwrap();
    let e = io::load(&p, &ImportOptions::default())
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with(&format!("{file}: camera 'c' (at 5:5): ")),
        "{e}"
    );
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn every_documented_example_draws() {
    for path in examples() {
        let loaded = io::load(&path, &ImportOptions::default()).unwrap();
        let mut scene = loaded.scene;
        let camera = match loaded.imported.cameras.first() {
            Some(c) => c.to_camera(&scene, 4.0 / 3.0).unwrap(),
            None => {
                let mut c = plumb_scene::Camera::perspective(0.8, 4.0 / 3.0, 0.1, 100.0).unwrap();
                c.look_at(Vec3::new(3.0, 4.0, 8.0), Vec3::ZERO, Vec3::Y)
                    .unwrap();
                c
            }
        };
        let mut r = plumb_scene::SoftRenderer::new(64, 48, Some(1)).unwrap();
        let stats = scene
            .draw(&camera, &mut r)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert!(
            stats.opaque + stats.transparent > 0,
            "{}: nothing drawn",
            path.display()
        );
    }
}

#[test]
fn screen_polygons_cull_modes_and_radians_reach_the_scene() {
    let s = load_example("screen_polygons.json");
    let polys = s.scene.screen_polygons();
    assert_eq!(polys.len(), 2);
    assert_eq!(polys[0].layer, plumb_scene::ScreenLayer::Background);
    assert_eq!(polys[0].mesh.triangle_count(), 2);
    assert!(matches!(
        &polys[0].effect,
        Some(plumb_scene::Effect::Textures(st)) if st.len() == 1
    ));
    // The overlay: a fan of 4 corners, one colour, blending on top of the screen defaults
    // (depth test off stays off).
    assert_eq!(polys[1].layer, plumb_scene::ScreenLayer::Overlay);
    assert_eq!(polys[1].mesh.triangle_count(), 2);
    assert_eq!(
        polys[1].mesh.colors().unwrap()[3],
        glam::Vec4::new(0.0, 0.0, 0.0, 0.5)
    );
    assert!(polys[1].states.alpha.blend_enabled);
    assert!(!polys[1].states.zbuffer.enabled);
    assert!(!polys[1].states.cull.enabled);

    use plumb_scene::Culling;
    let always = find(&s.scene, "hidden");
    assert_eq!(s.scene.culling(always).unwrap(), Culling::Always);
    let never = find(&s.scene, "always_drawn");
    assert_eq!(s.scene.culling(never).unwrap(), Culling::Never);
    // 0.7853982 rad about y: the box's local x axis goes to (cos, 0, −sin) of π/4.
    let r = s.scene.local_transform(always).unwrap().rotation().unwrap();
    assert!(close(
        r.x_axis,
        Vec3::new(0.5f32.sqrt(), 0.0, -(0.5f32.sqrt()))
    ));
    // Drawn: the background, the torus, the overlay; the box is force-culled.
    let camera = s.imported.cameras[0].to_camera(&s.scene, 1.0).unwrap();
    let mut scene = s.scene;
    let mut r = plumb_scene::SoftRenderer::new(32, 32, Some(1)).unwrap();
    let stats = scene.draw(&camera, &mut r).unwrap();
    assert_eq!(stats.screen_polygons, 2);
    assert_eq!(stats.opaque, 1);
}

#[test]
fn bad_screen_polygons_are_named() {
    let doc = |poly: &str| {
        format!(
            r#"{{"format": "plumb-scene", "version": 1, "textures": [{{"name": "t", "solid": [1, 0, 0, 1]}}], "screen_polygons": [{{"points": [[0, 0], [1, 0], [1, 1]]}}, {poly}]}}"#
        )
    };
    let e = build_err(&doc(r#"{"points": [[0, 0], [1, 0]]}"#));
    assert!(
        e.contains("screen polygon 1: \"points\" needs at least 3 corners"),
        "{e}"
    );
    let e = build_err(&doc("{}"));
    assert!(
        e.contains("screen polygon 1: a screen polygon needs exactly one of"),
        "{e}"
    );
    let e = build_err(&doc(
        r#"{"points": [[0, 0], [1, 0], [1, 1]], "mesh": {"box": {}}}"#,
    ));
    assert!(e.contains("exactly one of \"points\" and \"mesh\""), "{e}");
    let e = build_err(&doc(r#"{"mesh": {"box": {}}, "color": [1, 1, 1, 1]}"#));
    assert!(e.contains("\"color\" is for \"points\""), "{e}");
    let e = build_err(&doc(
        r#"{"points": [[0, 0], [1, 0], [1, 1]], "effect": {"environment_map": {"texture": "t"}}}"#,
    ));
    assert!(
        e.contains("effect is \"textures\" or \"vertex_colors\""),
        "{e}"
    );
    let e = build_err(&doc(
        r#"{"points": [[0, 0], [1, 0], [1, 1]], "effect": {"vertex_colors": [[1, 0, 0, 1]]}}"#,
    ));
    assert!(e.contains("1 colours for 3 vertices"), "{e}");
    let e = build_err(&doc(
        r#"{"points": [[0, 0], [1, 0], [1, 1]], "effect": {"textures": [{"texture": "nope"}]}}"#,
    ));
    assert!(e.contains("unknown texture 'nope'"), "{e}");
    // Unknown fields and layers are parse errors with their place.
    let (loc, e) = parse_err(&doc(r#"{"points": [[0, 0], [1, 0], [1, 1]], "depth": 1}"#));
    assert!(loc.is_some() && e.contains("unknown field `depth`"), "{e}");
    let (_, e) = parse_err(&doc(r#"{"layer": "middle"}"#));
    assert!(e.contains("unknown variant `middle`"), "{e}");
    // Both angle units at once are refused.
    let e = build_err(&wrap(
        r#"{"children": [{"transform": {"rotation": {"axis": [0, 1, 0], "degrees": 90, "radians": 1}}}]}"#,
    ));
    assert!(
        e.contains("\"axis\" and \"degrees\" (or \"radians\")"),
        "{e}"
    );
    let (_, e) = parse_err(&wrap(r#"{"cull_mode": "sometimes"}"#));
    assert!(e.contains("unknown variant `sometimes`"), "{e}");
}

/// A scene-file camera is stored as a node whose rotation holds the `look_at` frame; it must
/// come back bit for bit (re-deriving it from the node moved goldens by a pixel).
#[test]
fn scene_file_cameras_reproduce_look_at_exactly() {
    let eyes = [
        (Vec3::new(0.0, -1.6, 2.2), Vec3::ZERO),
        (Vec3::new(0.5, 1.0, 5.0), Vec3::ZERO),
        (Vec3::new(2.0, 2.8, 5.0), Vec3::new(0.0, 0.7, 0.0)),
        (Vec3::new(-3.7, 0.3, -1.1), Vec3::new(0.2, -0.4, 9.0)),
    ];
    for (eye, target) in eyes {
        let text = format!(
            r#"{{"format": "plumb-scene", "version": 1, "cameras": [{{"name": "c", "eye": [{}, {}, {}], "target": [{}, {}, {}], "fov_y_degrees": 45, "aspect": 1}}]}}"#,
            eye.x, eye.y, eye.z, target.x, target.y, target.z
        );
        let doc = parse(&text).unwrap();
        let s = json::build(&doc, Path::new("c.json"), &ImportOptions::default()).unwrap();
        let got = s.imported.cameras[0].to_camera(&s.scene, 1.0).unwrap();
        let mut want =
            plumb_scene::Camera::perspective(plumb_raster::math::to_radians(45.0), 1.0, 0.1, 100.0)
                .unwrap();
        want.look_at(eye, target, Vec3::Y).unwrap();
        for (a, b) in [
            (got.location(), want.location()),
            (got.direction(), want.direction()),
            (got.up(), want.up()),
            (got.right(), want.right()),
        ] {
            assert_eq!(
                a.to_array().map(f32::to_bits),
                b.to_array().map(f32::to_bits),
                "eye {eye}"
            );
        }
    }
}

/// `alpha_src` / `alpha_dst` blend the alpha channel with their own factors: α 0.5 red over
/// opaque blue gives purple either way, but stored alpha 1 only when alpha composites "over".
#[test]
fn separate_alpha_factors_reach_the_pixels() {
    let pixel = |alpha: &str| {
        let text = format!(
            r#"{{"format": "plumb-scene", "version": 1, "background": [0, 0, 1, 1],
                "screen_polygons": [{{"points": [[0, 0], [1, 0], [1, 1], [0, 1]], "color": [1, 0, 0, 0.5],
                "states": {{"alpha": {alpha}}}}}]}}"#
        );
        let doc = parse(&text).unwrap();
        let s = json::build(&doc, Path::new("a.json"), &ImportOptions::default()).unwrap();
        let mut scene = s.scene;
        let camera = plumb_scene::Camera::perspective(1.0, 1.0, 0.1, 10.0).unwrap();
        let mut r = plumb_scene::SoftRenderer::new(4, 4, Some(1)).unwrap();
        scene.draw(&camera, &mut r).unwrap();
        r.image().get_pixel(2, 2).0
    };
    assert_eq!(pixel(r#"{"blend": true}"#), [128, 0, 128, 191]);
    assert_eq!(
        pixel(r#"{"blend": true, "alpha_src": "one"}"#),
        [128, 0, 128, 255]
    );
    assert_eq!(
        pixel(r#"{"blend": true, "alpha_src": "zero", "alpha_dst": "zero"}"#),
        [128, 0, 128, 0]
    );
}

#[test]
fn a_full_combiner_setup_reaches_the_stage() {
    use plumb_raster::combine::{ApplyMode, CombineFn, CombineState, Operand, Source};
    let s = load_example("effects_textures.json");
    let leaf = find(&s.scene, "combined");
    let Some(plumb_scene::Effect::Textures(stages)) = s.scene.effect(leaf).unwrap() else {
        panic!("no texture effect");
    };
    let want = CombineState {
        rgb: CombineFn::Interpolate,
        src_rgb: [Source::Texture, Source::Constant, Source::Constant],
        op_rgb: [Operand::Color, Operand::Color, Operand::OneMinusAlpha],
        alpha: CombineFn::Replace,
        src_alpha: [Source::Previous, Source::Previous, Source::Constant],
        ..CombineState::MODULATE
    };
    assert_eq!(stages[0].apply, ApplyMode::Combine(want));
    assert_eq!(stages[0].constant, glam::Vec4::new(0.2, 0.4, 1.0, 0.25));
    // "combine" and a non-default "apply" together are refused.
    let e = build_err(&format!(
        r#"{{"format": "plumb-scene", "version": 1, "textures": [{{"name": "t", "solid": [1, 1, 1, 1]}}], "root": {}}}"#,
        r#"{"children": [{"name": "q", "mesh": {"box": {}}, "effect": {"textures": [{"texture": "t", "apply": "add", "combine": {}}]}}]}"#
    ));
    assert!(e.contains("\"combine\" replaces \"apply\""), "{e}");
    let (_, e) = parse_err(
        r#"{"format": "plumb-scene", "version": 1, "root": {"effect": {"textures": [{"texture": "t", "combine": {"rgb": "blend"}}]}}}"#,
    );
    assert!(e.contains("unknown variant `blend`"), "{e}");
}

#[test]
fn smooth_spot_and_range_are_read_and_checked() {
    let light = |fields: &str| {
        format!(
            r#"{{"format": "plumb-scene", "version": 1, "lights": [{{"name": "s", "type": "spot", "angle_degrees": 40{fields}}}], "root": {{"lights": ["s"]}}}}"#
        )
    };
    let doc = parse(&light(r#", "inner_angle_degrees": 20, "range": 7.5"#)).unwrap();
    let s = json::build(&doc, Path::new("l.json"), &ImportOptions::default()).unwrap();
    let id = s.scene.attached_lights(s.scene.root()).unwrap()[0];
    let l = *s.scene.light(id).unwrap();
    assert_eq!(l.range, Some(7.5));
    let inner = l.inner_angle.unwrap();
    assert!((inner - 20f32.to_radians()).abs() < 1e-6, "{inner}");
    let e = build_err(&light(r#", "inner_angle_degrees": 41"#));
    assert!(
        e.contains("inner_angle_degrees 41 is outside 0..=angle_degrees (40)"),
        "{e}"
    );
    let e = build_err(&light(r#", "range": 0"#));
    assert!(e.contains("range 0 is not positive"), "{e}");
}
