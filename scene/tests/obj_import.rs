//! OBJ + MTL import: objects and material runs, polygon triangulation, generated normals,
//! materials and textures, and the bad-input classes (each with its line number).

mod gltf_builder;

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
