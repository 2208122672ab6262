//! OBJ + MTL import: objects and material runs, polygon triangulation, generated normals,
//! materials and textures, and the bad-input classes (each with its line number).

use crate::gltf_builder;

use glam::{Vec2, Vec3, Vec4};
use gltf_builder::{png, temp_dir, write};
use plumb_scene::io::{self, AlphaMode, ImportOptions, IoError, Location};
use plumb_scene::MeshTopology;

const SCENE: &str = "\
mtllib m.mtl
o quad
v 0 0 0
v 1 0 0
v 1 1 0
v 0 1 0
vt 0 0
vt 1 0
vt 1 1
vt 0 1
usemtl red
f 1/1 2/2 3/3 4/4
o tent
v 0 0 5
v 1 0 5
v 0 1 5
v 0 3 5
v 0 0 6
usemtl glass
f 5 6 7
usemtl red
f 5 8 9
";

const MTL: &str = "\
newmtl red
Kd 1 0 0
Ns 30
Ke 0.5 0.25 0
map_Kd tex/red.png
newmtl glass
Kd 0 0 1
d 0.25
";

#[test]
fn objects_materials_and_normals() {
    let dir = temp_dir("obj");
    std::fs::create_dir_all(dir.join("tex")).unwrap();
    write(&dir, "tex/red.png", png(2, 2, [255, 0, 0, 255]));
    write(&dir, "m.mtl", MTL);
    let p = write(&dir, "s.obj", SCENE);
    let s = io::load(&p, &ImportOptions::default()).unwrap();
    let sc = &s.scene;
    let quad = sc.find("quad").unwrap();
    let tent = sc.find("tent").unwrap();
    assert_eq!(s.imported.roots, vec![quad, tent]);
    assert_eq!(sc.children(quad).unwrap().len(), 1);
    // The tent's faces use two materials: two geometry leaves.
    assert_eq!(sc.children(tent).unwrap().len(), 2);
    let q = sc.find("quad[0]").unwrap();
    let m = sc.mesh(q).unwrap();
    assert_eq!(m.topology(), MeshTopology::Triangles);
    assert_eq!(m.triangle_count(), 2, "the quad is triangulated");
    // Flat quad: every generated normal is +z. vt (0,0) becomes (0,1): v is flipped.
    assert!(m
        .normals()
        .unwrap()
        .iter()
        .all(|&n| (n - Vec3::Z).length() < 1e-6));
    let i0 = m.positions().iter().position(|&p| p == Vec3::ZERO).unwrap();
    assert_eq!(m.uv_sets()[0][i0], Vec2::new(0.0, 1.0));
    let red = s.imported.material(q).unwrap();
    assert_eq!(red.name, "red");
    assert_eq!(red.base_color, Vec4::new(1.0, 0.0, 0.0, 1.0));
    assert_eq!(red.alpha_mode, AlphaMode::Opaque);
    assert_eq!(red.emissive, Vec3::new(0.5, 0.25, 0.0));
    // Ns 30 → roughness (2/32)^¼ = 0.5.
    assert!((red.roughness - 0.5).abs() < 1e-6);
    assert!(red.double_sided);
    let tex = red.base_color_texture.as_ref().unwrap();
    assert_eq!((tex.texture.width(), tex.texture.level_count()), (2, 2));
    let glass_node = sc.find("tent[0]").unwrap();
    let glass = s.imported.material(glass_node).unwrap();
    assert_eq!(glass.base_color, Vec4::new(0.0, 0.0, 1.0, 0.25));
    assert_eq!(glass.alpha_mode, AlphaMode::Blend);
    // The second tent face (area 1.5 in the plane x = 0) uses "red" again and shares it.
    let t1 = sc.find("tent[1]").unwrap();
    assert!(std::sync::Arc::ptr_eq(
        &s.imported.materials[&q],
        &s.imported.materials[&t1]
    ));
}

#[test]
fn smooth_area_weighted_normals() {
    // Vertex 1 is shared by a triangle of area 0.5 in z = 0 (normal +z) and one of area
    // 1.5 in x = 0 (normal +x): the sum (3, 0, 1), normalized.
    let dir = temp_dir("obj-normals");
    let p = write(
        &dir,
        "n.obj",
        "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 3 0\nv 0 0 1\nf 1 2 3\nf 1 4 5\n",
    );
    let s = io::load(&p, &ImportOptions::default()).unwrap();
    let g = s.scene.find("n[0]").unwrap();
    let m = s.scene.mesh(g).unwrap();
    let i = m.positions().iter().position(|&p| p == Vec3::ZERO).unwrap();
    let n = m.normals().unwrap()[i];
    assert!(
        (n - Vec3::new(3.0, 0.0, 1.0).normalize()).length() < 1e-6,
        "{n}"
    );
    // No material: the white double-sided default.
    let d = s.imported.material(g).unwrap();
    assert_eq!(
        (d.base_color, d.double_sided, d.metallic),
        (Vec4::ONE, true, 0.0)
    );
}

#[test]
fn given_normals_are_kept() {
    let dir = temp_dir("obj-given");
    let p = write(
        &dir,
        "g.obj",
        "v 0 0 0\nv 1 0 0\nv 0 1 0\nvn 0 1 0\nf 1//1 2//1 3//1\n",
    );
    let s = io::load(&p, &ImportOptions::default()).unwrap();
    let m = s.scene.mesh(s.scene.find("g[0]").unwrap()).unwrap();
    assert_eq!(m.normals().unwrap(), &[Vec3::Y; 3]);
}

fn fails(name: &str, text: &[u8]) -> IoError {
    let dir = temp_dir(name);
    let p = write(&dir, "bad.obj", text);
    let e = io::load(&p, &ImportOptions::default()).expect_err("must fail");
    assert!(e.to_string().starts_with(&p.display().to_string()), "{e}");
    e
}

fn line_of(e: &IoError) -> Option<usize> {
    match e {
        IoError::Parse { location, .. }
        | IoError::Invalid { location, .. }
        | IoError::NonFinite { location, .. } => location.map(|l: Location| l.line),
        _ => None,
    }
}

#[test]
fn bad_obj_files() {
    // Garbage: binary, and text that is no OBJ at all.
    let e = fails("obj-bin", b"v 0 0 0\n\xff\xfe\x00garbage");
    assert_eq!(line_of(&e), Some(2), "{e}");
    let e = fails("obj-text", b"hello world\nthis is not a model\n");
    assert!(e.to_string().contains("not an OBJ file"), "{e}");
    // Truncated inside a face: two vertices left.
    let e = fails("obj-trunc", b"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\nf 1 2");
    assert_eq!(line_of(&e), Some(5), "{e}");
    assert!(e.to_string().contains("at least 3"), "{e}");
    // Out-of-range indices, positive and negative.
    let e = fails("obj-range", b"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 9\n");
    assert_eq!(line_of(&e), Some(4));
    assert!(
        e.to_string()
            .contains("vertex index 9 is out of range (3 defined)"),
        "{e}"
    );
    let e = fails("obj-neg", b"v 0 0 0\nf -1 -2 -3\nv 1 0 0\nv 0 1 0\n");
    assert_eq!(line_of(&e), Some(2), "{e}");
    let e = fails(
        "obj-vt",
        b"v 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nf 1/1 2/2 3/1\n",
    );
    assert!(e.to_string().contains("texture coordinate index 2"), "{e}");
    // Non-finite numbers.
    let e = fails("obj-nan", b"v 0 0 0\nv nan 0 0\nv 0 1 0\nf 1 2 3\n");
    assert!(
        matches!(
            e,
            IoError::NonFinite {
                location: Some(Location { line: 2, .. }),
                ..
            }
        ),
        "{e}"
    );
    let e = fails(
        "obj-inf",
        b"v 0 0 0\nv 1 0 0\nv 0 1 0\nvn 0 inf 0\nf 1 2 3\n",
    );
    assert_eq!(line_of(&e), Some(4), "{e}");
    // A statement the parser rejects, with its line.
    let e = fails("obj-parse", b"v 0 0 0\nv 1 0 0\nv 0 zz 0\nf 1 2 3\n");
    assert_eq!(line_of(&e), Some(3), "{e}");
}

#[test]
fn missing_material_library_and_texture() {
    let e = fails(
        "obj-nomtl",
        b"mtllib absent.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n",
    );
    assert!(
        matches!(&e, IoError::MissingResource { kind: "material library", uri, .. } if uri == "absent.mtl"),
        "{e}"
    );
    let dir = temp_dir("obj-notex");
    write(&dir, "m.mtl", "newmtl a\nmap_Kd gone.png\n");
    let p = write(
        &dir,
        "t.obj",
        "mtllib m.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nusemtl a\nf 1 2 3\n",
    );
    let e = io::load(&p, &ImportOptions::default()).unwrap_err();
    assert!(
        matches!(&e, IoError::MissingResource { kind: "image", uri, .. } if uri == "gone.png"),
        "{e}"
    );
    // An oversized texture.
    write(&dir, "gone.png", png(8, 1, [0, 0, 0, 255]));
    let opts = ImportOptions {
        max_texture_size: 4,
        ..ImportOptions::default()
    };
    assert!(matches!(
        io::load(&p, &opts),
        Err(IoError::ImageTooLarge { width: 8, .. })
    ));
    assert!(io::load(&p, &ImportOptions::default()).is_ok());
}

/// Points and polylines (issue 14, "OBJ points and lines"): `p` gives one point per vertex,
/// `l v1 v2 v3` the segments v1–v2 and v2–v3 (tobj alone reads `l 1 2 3` as a triangle);
/// runs of one object and material are one leaf after the object's faces; colours come from
/// `v x y z r g b` (white where a vertex has none); indices may be relative.
#[test]
fn points_and_polylines() {
    let dir = temp_dir("obj-wires");
    let p = write(
        &dir,
        "w.obj",
        "o shape\n\
         v 0 0 0 1 0 0\n\
         v 1 0 0\n\
         v 1 1 0 0 0 1\n\
         v 0 1 0\n\
         vt 0 0\n\
         l 1 2 3\n\
         l 3/1 -1\n\
         p 4 2\n\
         o dots\n\
         p -4\n\
         o face\n\
         v 0 0 1 1 1 1\n\
         v 1 0 1 1 1 1\n\
         v 0 1 1 1 1 1\n\
         f -3 -2 -1\n",
    );
    let s = io::load(&p, &ImportOptions::default()).unwrap();
    let sc = &s.scene;
    let leaf = |name: &str| sc.find(name).unwrap();
    // Objects in order of their first leaf: faces (read by tobj) first, then wires.
    assert_eq!(
        s.imported.roots,
        vec![leaf("face"), leaf("shape"), leaf("dots")]
    );
    assert_eq!(
        sc.mesh(leaf("face[0]")).unwrap().topology(),
        MeshTopology::Triangles
    );
    assert_eq!(
        sc.children(leaf("shape")).unwrap().len(),
        2,
        "line run, point run"
    );
    let lines = sc.mesh(leaf("shape[0]")).unwrap();
    assert_eq!(lines.topology(), MeshTopology::Lines);
    // v1, v2, v3, v4 in first-use order; segments 1–2, 2–3, 3–4.
    assert_eq!(
        lines.positions(),
        &[Vec3::ZERO, Vec3::X, Vec3::new(1.0, 1.0, 0.0), Vec3::Y]
    );
    assert_eq!(lines.indices(), &[0, 1, 1, 2, 2, 3]);
    assert_eq!(
        lines.colors().unwrap(),
        &[
            Vec4::new(1.0, 0.0, 0.0, 1.0),
            Vec4::ONE,
            Vec4::new(0.0, 0.0, 1.0, 1.0),
            Vec4::ONE
        ]
    );
    let points = sc.mesh(leaf("shape[1]")).unwrap();
    assert_eq!(points.topology(), MeshTopology::Points);
    assert_eq!(points.positions(), &[Vec3::Y, Vec3::X]);
    assert_eq!(points.indices(), &[0, 1]);
    assert!(points.colors().is_none(), "neither vertex has a colour");
    // `p -4` in the next object: the first vertex, a leaf of its own object.
    let dots = sc.mesh(leaf("dots[0]")).unwrap();
    assert_eq!(dots.positions(), &[Vec3::ZERO]);
    assert!(s.imported.material(leaf("dots[0]")).is_some());
}

#[test]
fn bad_points_and_lines() {
    for (name, text, line, needle) in [
        ("obj-l1", "v 0 0 0\nl 1\n", 2, "line"),
        ("obj-p0", "v 0 0 0\n\np\n", 3, "point"),
        (
            "obj-lrange",
            "v 0 0 0\nv 1 0 0\nl 1 3\n",
            3,
            "vertex index 3 is out of range",
        ),
        (
            "obj-prel",
            "v 0 0 0\np -2\n",
            2,
            "vertex index -2 is out of range",
        ),
        (
            "obj-lword",
            "v 0 0 0\nl 1 x\n",
            2,
            "'x' is not a vertex reference",
        ),
    ] {
        let e = fails(name, text.as_bytes());
        assert_eq!(line_of(&e), Some(line), "{name}: {e}");
        assert!(e.to_string().contains(needle), "{name}: {e}");
    }
}

/// Colours on some vertices only: the others are white (tobj alone failed with "face vertex
/// color index out of bounds"); a homogeneous `w` still divides the position.
#[test]
fn vertex_colours_on_some_vertices() {
    let dir = temp_dir("obj-mixed-colours");
    let p = write(
        &dir,
        "c.obj",
        "v 0 0 0 1 0 0\nv 1 0 0\nv 0 1 0 2\nf 1 2 3\n",
    );
    let s = io::load(&p, &ImportOptions::default()).unwrap();
    let m = s.scene.mesh(s.scene.find("c[0]").unwrap()).unwrap();
    let at = |q: Vec3| m.positions().iter().position(|&p| p == q).unwrap();
    let colors = m.colors().unwrap();
    assert_eq!(colors[at(Vec3::ZERO)], Vec4::new(1.0, 0.0, 0.0, 1.0));
    assert_eq!(colors[at(Vec3::X)], Vec4::ONE);
    assert_eq!(colors[at(Vec3::new(0.0, 0.5, 0.0))], Vec4::ONE);
    // An unparsable or zero `w` is still refused (the rewrite never hides an error).
    let e = fails(
        "obj-mixed-w0",
        b"v 0 0 0 1 0 0\nv 1 0 0 0\nv 0 1 0\nf 1 2 3\n",
    );
    assert_eq!(line_of(&e), Some(2), "{e}");
    assert!(e.to_string().contains("by zero"), "{e}");
    let e = fails(
        "obj-mixed-nan",
        b"v 0 0 0 1 0 0\nv 1 x 0\nv 0 1 0\nf 1 2 3\n",
    );
    assert_eq!(line_of(&e), Some(2), "{e}");
    assert!(e.to_string().contains("position parse error"), "{e}");
}
