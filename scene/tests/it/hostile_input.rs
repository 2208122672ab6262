//! Issue 11 slice: crafted inputs that used to panic inside a dependency (`gltf`, `tobj`,
//! `png`), escape the asset's folder, print multi-line or misleading errors, or load in
//! quadratic time. Each gives a typed, one-line error naming the file — never a panic.

use crate::gltf_builder;

use std::path::{Path, PathBuf};

use gltf_builder::{png, temp_dir, triangle, write, Builder};
use plumb_scene::io::{self, ImportOptions, IoError};
use serde_json::json;

/// Loads `dir/file` (written with `bytes`) and expects a one-line error naming the file.
fn load_err(name: &str, file: &str, bytes: impl AsRef<[u8]>) -> (PathBuf, IoError) {
    let dir = temp_dir(name);
    let p = write(&dir, file, bytes);
    let e = load_at(&p);
    (p, e)
}

fn load_at(p: &Path) -> IoError {
    load_naming(p, p)
}

/// Loads `p`, expecting a one-line error that starts with `named` (the file it is about).
fn load_naming(p: &Path, named: &Path) -> IoError {
    let e = io::load(p, &ImportOptions::default()).expect_err("must fail");
    let text = e.to_string();
    assert!(text.starts_with(&named.display().to_string()), "{text}");
    assert!(!text.contains(['\n', '\r']), "one line: {text:?}");
    e
}

// ---- 1. Panics inside dependencies ------------------------------------------------------

/// A triangle document with one animation channel targeting `target`.
fn anim_doc(target: serde_json::Value) -> String {
    let mut b = Builder::default();
    let mut d = triangle(&mut b);
    let t = b.f32s(&[0.0, 1.0], "SCALAR");
    let v = b.f32s(&[0.0; 6], "VEC3");
    d["animations"] = json!([{
        "samplers": [{"input": t, "output": v}],
        "channels": [{"sampler": 0, "target": target}]
    }]);
    b.gltf(d)
}

#[test]
fn animation_channel_on_missing_node_is_invalid() {
    let (_, e) = load_err(
        "anim-node-oob",
        "a.gltf",
        anim_doc(json!({"node": 7, "path": "translation"})),
    );
    assert!(matches!(e, IoError::Invalid { .. }), "{e}");
    assert!(e.to_string().contains("animations[0].channels[0]"), "{e}");
    assert!(e.to_string().contains("node 7"), "{e}");
}

#[test]
fn animation_channel_with_unknown_path_is_invalid() {
    let (_, e) = load_err(
        "anim-path",
        "a.gltf",
        anim_doc(json!({"node": 0, "path": "colour"})),
    );
    assert!(matches!(e, IoError::Invalid { .. }), "{e}");
    assert!(e.to_string().contains("animations[0].channels[0]"), "{e}");
}

const TRI_OBJ: &str = "mtllib m.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nusemtl a\nf 1 2 3\n";

#[test]
fn mtl_colour_with_too_few_numbers_is_a_parse_error() {
    for (k, line) in [
        "Kd 1 1",
        "Ka 1",
        "Ks",
        "Ke 0.5 0.5",
        "Tf 1 1",
        "Ns",
        "Ni",
        "d",
    ]
    .iter()
    .enumerate()
    {
        let dir = temp_dir(&format!("mtl-short-{k}"));
        let mtl = write(&dir, "m.mtl", format!("newmtl a\n\n{line}\n"));
        let p = write(&dir, "s.obj", TRI_OBJ);
        let e = load_naming(&p, &mtl);
        let text = e.to_string();
        assert!(matches!(e, IoError::Parse { .. }), "{text}");
        assert!(
            text.starts_with(&format!("{}:3: ", mtl.display())),
            "names the MTL file and line: {text}"
        );
    }
}

/// Found by the `obj` fuzz target in CI: a short `Kd` above a line that is not UTF-8. `tobj`
/// reads line by line, so it reached its `Kd` panic before its UTF-8 error.
#[test]
fn mtl_not_utf8_below_a_short_colour_is_a_parse_error() {
    let dir = temp_dir("mtl-not-utf8");
    let mtl = write(&dir, "m.mtl", b"newmtl a\nKd 0\n\x9ct 0 0\n");
    let p = write(&dir, "s.obj", TRI_OBJ);
    let e = load_naming(&p, &mtl);
    let text = e.to_string();
    assert!(matches!(e, IoError::Parse { .. }), "{text}");
    assert!(
        text.starts_with(&format!("{}:3: ", mtl.display())),
        "names the MTL file and the bad line: {text}"
    );
}

/// A minimal valid paletted PNG (1×1, 8-bit, index 0) with a PLTE chunk of `plte` bytes.
fn paletted_png(plte: &[u8]) -> Vec<u8> {
    fn chunk(out: &mut Vec<u8>, kind: &[u8; 4], data: &[u8]) {
        out.extend_from_slice(&(data.len() as u32).to_be_bytes());
        let start = out.len();
        out.extend_from_slice(kind);
        out.extend_from_slice(data);
        let crc = crc32(&out[start..]);
        out.extend_from_slice(&crc.to_be_bytes());
    }
    let mut out = b"\x89PNG\r\n\x1a\n".to_vec();
    // 1x1, bit depth 8, colour type 3 (palette).
    chunk(&mut out, b"IHDR", &[0, 0, 0, 1, 0, 0, 0, 1, 8, 3, 0, 0, 0]);
    chunk(&mut out, b"PLTE", plte);
    // zlib stream of the one scanline [filter 0, index 0], stored (no compression).
    let raw = [0u8, 0];
    let mut z = vec![0x78, 0x01, 1, 2, 0, 0xfd, 0xff];
    z.extend_from_slice(&raw);
    let (mut a, mut b) = (1u32, 0u32);
    for &x in &raw {
        a = (a + x as u32) % 65521;
        b = (b + a) % 65521;
    }
    z.extend_from_slice(&((b << 16) | a).to_be_bytes());
    chunk(&mut out, b"IDAT", &z);
    chunk(&mut out, b"IEND", &[]);
    out
}

fn crc32(data: &[u8]) -> u32 {
    let mut c = 0xffff_ffffu32;
    for &b in data {
        c ^= b as u32;
        for _ in 0..8 {
            c = if c & 1 != 0 {
                0xedb8_8320 ^ (c >> 1)
            } else {
                c >> 1
            };
        }
    }
    !c
}

/// A textured triangle glTF whose image is `img.png` next to it.
fn textured_gltf() -> String {
    let mut b = Builder::default();
    let mut d = triangle(&mut b);
    let uv = b.f32s(&[0.0, 0.0, 1.0, 0.0, 0.0, 1.0], "VEC2");
    d["meshes"][0]["primitives"][0]["attributes"]["TEXCOORD_0"] = json!(uv);
    d["meshes"][0]["primitives"][0]["material"] = json!(0);
    d["materials"] = json!([{"pbrMetallicRoughness": {"baseColorTexture": {"index": 0}}}]);
    d["textures"] = json!([{"source": 0}]);
    d["images"] = json!([{"uri": "img.png"}]);
    b.gltf(d)
}

#[test]
fn palette_png_with_ragged_plte_is_an_image_error() {
    // The well-formed palette decodes (the test image itself is right)...
    let dir = temp_dir("plte-ok");
    write(&dir, "img.png", paletted_png(&[1, 2, 3]));
    let p = write(&dir, "s.gltf", textured_gltf());
    io::load(&p, &ImportOptions::default()).expect("a valid paletted PNG loads");
    // ...and a PLTE whose length is not a multiple of 3 is refused, not a panic.
    for (k, plte) in [&[1u8, 2, 3, 4][..], &[1, 2, 3, 4, 5, 6, 7]]
        .iter()
        .enumerate()
    {
        let dir = temp_dir(&format!("plte-ragged-{k}"));
        write(&dir, "img.png", paletted_png(plte));
        let p = write(&dir, "s.gltf", textured_gltf());
        let e = load_at(&p);
        assert!(matches!(e, IoError::Image { .. }), "{e}");
        assert!(e.to_string().contains("PLTE"), "{e}");
    }
}

// ---- 2. Staying inside the asset --------------------------------------------------------

/// A folder `name` with `secret.bin` beside it (outside) and `asset/` inside, returning
/// `(asset dir, secret path)`.
fn asset_and_secret(name: &str) -> (PathBuf, PathBuf) {
    let top = temp_dir(name);
    let secret = write(&top, "secret.bin", [0u8; 64]);
    let asset = top.join("asset");
    std::fs::create_dir_all(&asset).unwrap();
    (asset, secret)
}

#[test]
fn gltf_uris_outside_the_folder_are_refused() {
    let (asset, secret) = asset_and_secret("escape-gltf");
    let mut b = Builder::default();
    let d = triangle(&mut b);
    for uri in [
        "../secret.bin".to_owned(),
        "sub/../../secret.bin".to_owned(),
        "%2E%2E/secret.bin".to_owned(),
        secret.display().to_string(),
    ] {
        let p = write(&asset, "m.gltf", b.gltf_external(d.clone(), &uri));
        let e = load_at(&p);
        assert!(
            matches!(&e, IoError::MissingResource { kind: "buffer", .. }),
            "{uri}: {e}"
        );
        let text = e.to_string();
        assert!(
            text.contains("refused") && (text.contains("..") || text.contains("absolute")),
            "{uri}: {text}"
        );
    }
    // An image URI is held to the same rule.
    let mut d2 = d.clone();
    d2["meshes"][0]["primitives"][0]["material"] = json!(0);
    d2["materials"] = json!([{"pbrMetallicRoughness": {"baseColorTexture": {"index": 0}}}]);
    d2["textures"] = json!([{"source": 0}]);
    d2["images"] = json!([{"uri": "../img.png"}]);
    write(asset.parent().unwrap(), "img.png", png(2, 2, [1, 2, 3, 4]));
    let p = write(&asset, "i.gltf", b.gltf(d2));
    let e = load_at(&p);
    assert!(
        matches!(&e, IoError::MissingResource { kind: "image", .. }),
        "{e}"
    );
    // A `..` that comes back down stays inside and loads.
    std::fs::create_dir_all(asset.join("sub")).unwrap();
    // (`gltf_external` writes no .bin: take the bytes from the embedded data URI.)
    let embedded = b.gltf(d);
    let doc: serde_json::Value = serde_json::from_str(&embedded).unwrap();
    let data_uri = doc["buffers"][0]["uri"].as_str().unwrap().to_owned();
    let bytes = base64_decode(data_uri.split(',').nth(1).unwrap());
    write(&asset, "m.bin", bytes);
    let p = write(
        &asset,
        "ok.gltf",
        b.gltf_external(triangle_doc(), "sub/../m.bin"),
    );
    io::load(&p, &ImportOptions::default()).expect("a '..' that stays inside loads");
}

fn triangle_doc() -> serde_json::Value {
    triangle(&mut Builder::default())
}

fn base64_decode(s: &str) -> Vec<u8> {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = Vec::new();
    let (mut acc, mut bits) = (0u32, 0);
    for c in s.bytes().filter(|&c| c != b'=') {
        let v = ALPHABET.iter().position(|&a| a == c).unwrap() as u32;
        acc = (acc << 6) | v;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
        }
    }
    out
}

#[test]
fn obj_mtllib_and_texture_outside_the_folder_are_refused() {
    let (asset, secret) = asset_and_secret("escape-obj");
    write(asset.parent().unwrap(), "up.mtl", "newmtl a\nKd 1 0 0\n");
    for lib in ["../up.mtl".to_owned(), secret.display().to_string()] {
        let p = write(
            &asset,
            "s.obj",
            format!("mtllib {lib}\nv 0 0 0\nv 1 0 0\nv 0 1 0\nusemtl a\nf 1 2 3\n"),
        );
        let e = load_at(&p);
        assert!(
            matches!(
                &e,
                IoError::MissingResource {
                    kind: "material library",
                    ..
                }
            ),
            "{lib}: {e}"
        );
        assert!(e.to_string().contains("refused"), "{e}");
    }
    write(asset.parent().unwrap(), "t.png", png(2, 2, [1, 2, 3, 4]));
    write(&asset, "m.mtl", "newmtl a\nKd 1 0 0\nmap_Kd ../t.png\n");
    let p = write(&asset, "s.obj", TRI_OBJ);
    let e = load_at(&p);
    assert!(e.to_string().contains("refused"), "{e}");
}

#[test]
fn scene_file_import_and_texture_outside_the_folder_are_refused() {
    let (asset, _) = asset_and_secret("escape-json");
    write(
        asset.parent().unwrap(),
        "up.obj",
        "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n",
    );
    write(asset.parent().unwrap(), "up.png", png(2, 2, [1, 2, 3, 4]));
    let abs = asset.parent().unwrap().join("up.obj").display().to_string();
    for rel in ["../up.obj", abs.as_str()] {
        let doc = json!({"format": "plumb-scene", "version": 1,
            "root": {"children": [{"name": "i", "import": rel}]}});
        let p = write(&asset, "s.json", doc.to_string());
        let e = load_at(&p);
        assert!(
            matches!(
                &e,
                IoError::MissingResource {
                    kind: "imported scene",
                    ..
                }
            ),
            "{rel}: {e}"
        );
        assert!(e.to_string().contains("refused"), "{e}");
    }
    let doc = json!({"format": "plumb-scene", "version": 1,
        "textures": [{"name": "t", "file": "../up.png"}],
        "root": {"children": []}});
    let p = write(&asset, "t.json", doc.to_string());
    let e = load_at(&p);
    assert!(
        matches!(&e, IoError::MissingResource { kind: "image", .. }),
        "{e}"
    );
    assert!(e.to_string().contains("refused"), "{e}");
}

/// Links resolve before the containment check (issue 29, class 5): a `..` taken after a linked
/// folder, a link to a file outside, and a linked folder that leads outside are refused for
/// every kind of referenced file; a link that stays inside still loads.
#[cfg(unix)]
#[test]
fn symbolic_links_that_lead_out_of_the_folder_are_refused() {
    use std::os::unix::fs::symlink;
    let (asset, secret) = asset_and_secret("escape-links");
    let top = asset.parent().unwrap().to_path_buf();
    // `deep/a/b` is outside the asset and `asset/hop` links to it: `hop/../x.bin` is
    // lexically `asset/x.bin`, but the system resolves it to `deep/a/x.bin`.
    let deep = top.join("deep/a/b");
    std::fs::create_dir_all(&deep).unwrap();
    let mut b = Builder::default();
    let d = triangle(&mut b);
    let embedded: serde_json::Value = serde_json::from_str(&b.gltf(d.clone())).unwrap();
    let data_uri = embedded["buffers"][0]["uri"].as_str().unwrap().to_owned();
    let bytes = base64_decode(data_uri.split(',').nth(1).unwrap());
    write(&top.join("deep/a"), "x.bin", &bytes);
    symlink(&deep, asset.join("hop")).unwrap();
    symlink(&secret, asset.join("linked.bin")).unwrap();
    symlink(&top, asset.join("up")).unwrap();
    for uri in ["hop/../x.bin", "linked.bin", "up/secret.bin"] {
        let p = write(&asset, "m.gltf", b.gltf_external(d.clone(), uri));
        let e = load_at(&p);
        assert!(
            matches!(&e, IoError::MissingResource { kind: "buffer", .. }),
            "{uri}: {e}"
        );
        assert!(e.to_string().contains("symbolic link"), "{uri}: {e}");
    }
    // Images, OBJ material libraries, scene-file imports and texture files alike.
    write(&top, "up.png", png(2, 2, [1, 2, 3, 4]));
    write(&top, "up.obj", TRI_OBJ);
    let mut d2 = d.clone();
    d2["meshes"][0]["primitives"][0]["material"] = json!(0);
    d2["materials"] = json!([{"pbrMetallicRoughness": {"baseColorTexture": {"index": 0}}}]);
    d2["textures"] = json!([{"source": 0}]);
    d2["images"] = json!([{"uri": "up/up.png"}]);
    let e = load_at(&write(&asset, "i.gltf", b.gltf(d2)));
    assert!(e.to_string().contains("symbolic link"), "{e}");
    write(&top, "up.mtl", "newmtl a\nKd 1 0 0\n");
    let e = load_at(&write(
        &asset,
        "s.obj",
        "mtllib up/up.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nusemtl a\nf 1 2 3\n",
    ));
    assert!(e.to_string().contains("symbolic link"), "{e}");
    let doc = json!({"format": "plumb-scene", "version": 1,
        "root": {"children": [{"name": "i", "import": "up/up.obj"}]}});
    let e = load_at(&write(&asset, "s.json", doc.to_string()));
    assert!(e.to_string().contains("symbolic link"), "{e}");
    let doc = json!({"format": "plumb-scene", "version": 1,
        "textures": [{"name": "t", "file": "up/up.png"}],
        "root": {"children": []}});
    let e = load_at(&write(&asset, "t.json", doc.to_string()));
    assert!(e.to_string().contains("symbolic link"), "{e}");
    // A link that stays inside the folder is followed.
    std::fs::create_dir_all(asset.join("real")).unwrap();
    write(&asset.join("real"), "m.bin", &bytes);
    symlink(asset.join("real"), asset.join("alias")).unwrap();
    let p = write(
        &asset,
        "ok.gltf",
        b.gltf_external(triangle_doc(), "alias/m.bin"),
    );
    io::load(&p, &ImportOptions::default()).expect("a link inside the folder loads");
}

#[cfg(unix)]
#[test]
fn fifo_and_directory_buffers_are_refused_without_blocking() {
    let dir = temp_dir("fifo-buffer");
    let fifo = dir.join("pipe.bin");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("mkfifo runs");
    assert!(made.success());
    std::fs::create_dir_all(dir.join("folder.bin")).unwrap();
    let mut b = Builder::default();
    let d = triangle(&mut b);
    for uri in ["pipe.bin", "folder.bin"] {
        let p = write(&dir, "m.gltf", b.gltf_external(d.clone(), uri));
        // Run on a thread so a regression fails the test instead of hanging it.
        let (tx, rx) = std::sync::mpsc::channel();
        let q = p.clone();
        std::thread::spawn(move || {
            let r = io::load(&q, &ImportOptions::default()).map(|_| ());
            let _ = tx.send(r);
        });
        let r = rx
            .recv_timeout(std::time::Duration::from_secs(20))
            .unwrap_or_else(|_| panic!("{uri}: loading blocked"));
        let e = r.expect_err("must fail");
        assert!(e.to_string().contains("not a regular file"), "{uri}: {e}");
    }
}

// ---- 3. One-line, true errors -----------------------------------------------------------

/// A triangle document whose one node is `node` (with `"mesh": 0` added).
fn one_node(mut node: serde_json::Value) -> String {
    let mut b = Builder::default();
    let mut d = triangle(&mut b);
    node["mesh"] = json!(0);
    d["nodes"] = json!([node]);
    b.gltf(d)
}

#[test]
fn control_characters_in_names_and_paths_are_escaped() {
    let (_, e) = load_err(
        "ctl-node",
        "n.gltf",
        one_node(json!({"name": "wheel\nerror: fake\r\u{1b}[2J", "translation": [1e39, 0, 0]})),
    );
    let text = e.to_string();
    assert!(matches!(e, IoError::NonFinite { .. }), "{text}");
    assert!(
        text.contains(r"'wheel\nerror: fake\r\u{1b}[2J'"),
        "escaped: {text}"
    );
    // A path with a newline and a carriage return in a folder name.
    let dir = temp_dir("ctl-path").join("odd\nname\r");
    std::fs::create_dir_all(&dir).unwrap();
    let p = write(&dir, "g.gltf", "not json");
    let e = io::load(&p, &ImportOptions::default()).expect_err("garbage");
    let text = e.to_string();
    assert!(!text.contains(['\n', '\r']), "one line: {text:?}");
    assert!(text.contains(r"odd\nname\r/g.gltf"), "{text}");
    // A scene file whose node name holds a tab and a newline (JSON escapes them).
    let doc = json!({"format": "plumb-scene", "version": 1, "root": {"children": [
        {"name": "a\tb\nc", "mesh": {"box": {}},
         "transform": {"rotation": {"quaternion": [0, 0, 0, 0]}}}]}});
    let (_, e) = load_err("ctl-json", "s.json", doc.to_string());
    assert!(e.to_string().contains(r"a\tb\nc"), "{e}");
}

#[test]
fn zero_rotations_are_called_zero() {
    let (_, e) = load_err(
        "zero-q",
        "z.gltf",
        one_node(json!({"rotation": [0, 0, 0, 0]})),
    );
    let text = e.to_string();
    assert!(text.contains("rotation quaternion is zero"), "{text}");
    assert!(!text.contains("matrix"), "{text}");
    for (k, rotation) in [
        json!({"quaternion": [0, 0, 0, 0]}),
        json!({"axis": [0, 0, 0], "degrees": 30}),
    ]
    .into_iter()
    .enumerate()
    {
        let doc = json!({"format": "plumb-scene", "version": 1, "root": {"children": [
            {"name": "n", "mesh": {"box": {}}, "transform": {"rotation": rotation}}]}});
        let (_, e) = load_err(&format!("zero-json-{k}"), "s.json", doc.to_string());
        let text = e.to_string();
        assert!(text.contains("is zero"), "{text}");
        assert!(!text.contains("matrix is not a rotation"), "{text}");
        assert!(!text.contains("usable length"), "{text}");
    }
    // A finite quaternion near f32::MAX is not zero: it normalizes.
    let dir = temp_dir("big-q");
    let p = write(
        &dir,
        "b.gltf",
        one_node(json!({"rotation": [3e38, 3e38, 0, 0]})),
    );
    io::load(&p, &ImportOptions::default()).expect("a large finite quaternion normalizes");
    let doc = json!({"format": "plumb-scene", "version": 1, "root": {"children": [
        {"name": "n", "mesh": {"box": {}},
         "transform": {"rotation": {"axis": [3e38, 3e38, 0], "degrees": 30}}}]}});
    let p = write(&dir, "s.json", doc.to_string());
    io::load(&p, &ImportOptions::default()).expect("a large finite axis normalizes");
}

#[test]
fn zero_rotation_keyframes_are_called_zero() {
    let mut b = Builder::default();
    let mut d = triangle(&mut b);
    let t = b.f32s(&[0.0, 1.0], "SCALAR");
    let q = b.f32s(&[0.0; 8], "VEC4");
    d["animations"] = json!([{
        "samplers": [{"input": t, "output": q}],
        "channels": [{"sampler": 0, "target": {"node": 0, "path": "rotation"}}]
    }]);
    let dir = temp_dir("zero-keys");
    let p = write(&dir, "k.gltf", b.gltf(d));
    match io::load(&p, &ImportOptions::default()) {
        Err(e) => assert!(e.to_string().contains("zero"), "{e}"),
        Ok(mut s) => {
            let e = io::apply_animations(&mut s.scene, &s.imported.animations, 0.5)
                .expect_err("a zero rotation cannot be posed");
            assert!(e.to_string().contains("rotation quaternion is zero"), "{e}");
        }
    }
}

#[test]
fn a_finite_far_scene_is_not_called_non_finite() {
    for (k, t) in [[3e38f32, 0.0, 0.0], [3e38, 3e38, 3e38], [-3e38, 0.0, 0.0]]
        .into_iter()
        .enumerate()
    {
        let dir = temp_dir(&format!("far-{k}"));
        let p = write(&dir, "f.gltf", one_node(json!({"translation": t})));
        let s = io::load(&p, &ImportOptions::default()).expect("finite translations load");
        let bound = plumb_scene::io::framing::geometry_box(&s.scene).unwrap();
        let e = io::frame_bound(&bound, 0.8, 1.0).expect_err("cannot be framed in f32");
        let text = e.to_string();
        assert!(!text.contains("non-finite"), "{text}");
        assert!(text.contains("single precision"), "{text}");
    }
    // Two far-apart objects: a box from -3e38 to 3e38 (its extent overflows f32).
    let mut b = Builder::default();
    let mut d = triangle(&mut b);
    d["scenes"] = json!([{"nodes": [0, 1]}]);
    d["nodes"] = json!([
        {"name": "l", "mesh": 0, "translation": [-3e38, -3e38, -3e38]},
        {"name": "r", "mesh": 0, "translation": [3e38, 3e38, 3e38]}
    ]);
    let dir = temp_dir("far-apart");
    let p = write(&dir, "f.gltf", b.gltf(d));
    let s = io::load(&p, &ImportOptions::default()).expect("finite translations load");
    let bound = plumb_scene::io::framing::geometry_box(&s.scene).unwrap();
    let e = io::frame_bound(&bound, 0.8, 1.0).expect_err("too large to frame");
    let text = e.to_string();
    assert!(!text.contains("non-finite"), "{text}");
    assert!(text.contains("too large"), "{text}");
}

// ---- 4. Linear loading ------------------------------------------------------------------

/// How many top-level nodes / objects the load tests use (10^5 by default; timing is the
/// benchmark's business, this only checks they load and keep their order).
fn many() -> usize {
    std::env::var("PLUMB_MANY_NODES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(100_000)
}

#[test]
fn many_top_level_gltf_nodes_load() {
    let n = many();
    let mut b = Builder::default();
    let mut d = triangle(&mut b);
    let nodes: Vec<serde_json::Value> = (0..n)
        .map(|i| json!({"name": format!("n{i}"), "translation": [i as f32, 0.0, 0.0]}))
        .collect();
    d["nodes"] = serde_json::Value::Array(nodes);
    d["scenes"] = json!([{"nodes": (0..n).collect::<Vec<_>>()}]);
    let dir = temp_dir("many-gltf");
    let p = write(&dir, "many.gltf", b.gltf(d));
    let start = std::time::Instant::now();
    let s = io::load(&p, &ImportOptions::default()).expect("loads");
    eprintln!("{n} glTF nodes loaded in {:?}", start.elapsed());
    assert_eq!(s.imported.roots.len(), n);
    let root = s.scene.root();
    let kids = s.scene.children(root).unwrap();
    assert_eq!(kids.len(), n);
    assert_eq!(s.scene.name(kids[0]).unwrap(), "n0");
    assert_eq!(s.scene.name(kids[n - 1]).unwrap(), format!("n{}", n - 1));
}

#[test]
fn many_obj_objects_load() {
    let n = many();
    let mut text = String::with_capacity(n * 48);
    for i in 0..n {
        let v = 3 * i;
        text.push_str(&format!(
            "o obj{i}\nv {i} 0 0\nv {i} 1 0\nv {i} 0 1\nf {} {} {}\n",
            v + 1,
            v + 2,
            v + 3
        ));
    }
    let dir = temp_dir("many-obj");
    let p = write(&dir, "many.obj", text);
    let start = std::time::Instant::now();
    let s = io::load(&p, &ImportOptions::default()).expect("loads");
    eprintln!("{n} OBJ objects loaded in {:?}", start.elapsed());
    assert_eq!(s.imported.roots.len(), n);
    let kids = s.scene.children(s.scene.root()).unwrap();
    assert_eq!(s.scene.name(kids[n - 1]).unwrap(), format!("obj{}", n - 1));
}

// ---- 5. Decoded texture memory ----------------------------------------------------------

/// Decoded bytes of a 64×64 RGBA texture with its mips.
const TEX64: u64 = (64 * 64 + 32 * 32 + 16 * 16 + 8 * 8 + 4 * 4 + 2 * 2 + 1) * 4;

fn with_texture_limit(max: u64) -> ImportOptions {
    ImportOptions {
        max_texture_bytes: max,
        ..ImportOptions::default()
    }
}

#[test]
fn one_image_referenced_many_times_is_held_to_the_texture_limit() {
    // Forty glTF images naming one PNG: each is decoded, and each decode is charged.
    let mut b = Builder::default();
    let mut d = triangle(&mut b);
    let uv = b.f32s(&[0.0, 0.0, 1.0, 0.0, 0.0, 1.0], "VEC2");
    let n = 40u32;
    d["meshes"][0]["primitives"] = json!((0..n)
        .map(|i| json!({"attributes": {"POSITION": 0, "TEXCOORD_0": uv}, "indices": 1, "material": i}))
        .collect::<Vec<_>>());
    d["materials"] = json!((0..n)
        .map(|i| json!({"pbrMetallicRoughness": {"baseColorTexture": {"index": i}}}))
        .collect::<Vec<_>>());
    d["textures"] = json!((0..n).map(|i| json!({"source": i})).collect::<Vec<_>>());
    d["images"] = json!((0..n)
        .map(|_| json!({"uri": "big.png"}))
        .collect::<Vec<_>>());
    let dir = temp_dir("tex-amplify");
    write(&dir, "big.png", png(64, 64, [9, 9, 9, 255]));
    let p = write(&dir, "a.gltf", b.gltf(d));
    io::load(&p, &with_texture_limit(u64::from(n) * TEX64)).expect("fits exactly");
    let e = io::load(&p, &with_texture_limit(3 * TEX64)).expect_err("past the limit");
    assert!(
        matches!(e, IoError::TextureMemory { needed: TEX64, used, max, .. }
            if used == 3 * TEX64 && max == 3 * TEX64),
        "{e}"
    );
    let text = e.to_string();
    assert!(text.contains("max_texture_bytes"), "{text}");
    assert!(!text.contains('\n'), "{text}");
}

#[test]
fn procedural_and_imported_textures_share_one_limit() {
    let dir = temp_dir("tex-json");
    // Procedural textures are charged before their texels are made.
    let checker = |name: &str| {
        json!({"name": name, "checker": {"size": [64, 64], "cells": [2, 2],
        "colors": [[0, 0, 0, 1], [1, 1, 1, 1]]}})
    };
    let doc = json!({"format": "plumb-scene", "version": 1,
        "textures": [checker("a"), checker("b"), checker("c")], "root": {"children": []}});
    let p = write(&dir, "p.json", doc.to_string());
    io::load(&p, &with_texture_limit(3 * TEX64)).expect("fits");
    let e = io::load(&p, &with_texture_limit(2 * TEX64)).expect_err("third one passes it");
    assert!(matches!(e, IoError::TextureMemory { .. }), "{e}");
    // A scene file's own textures and those of the OBJ it imports count together.
    write(&dir, "t.png", png(64, 64, [1, 2, 3, 255]));
    write(&dir, "m.mtl", "newmtl a\nKd 1 1 1\nmap_Kd t.png\n");
    write(
        &dir,
        "m.obj",
        "mtllib m.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nusemtl a\nf 1/1 2/1 3/1\n",
    );
    let doc = json!({"format": "plumb-scene", "version": 1,
        "textures": [checker("a")],
        "root": {"children": [{"name": "i", "import": "m.obj"}]}});
    let p = write(&dir, "i.json", doc.to_string());
    io::load(&p, &with_texture_limit(2 * TEX64)).expect("fits");
    let e = io::load(&p, &with_texture_limit(2 * TEX64 - 1)).expect_err("import passes it");
    assert!(
        matches!(&e, IoError::TextureMemory { used: 0, max, .. } if *max == TEX64 - 1),
        "the import gets what is left: {e}"
    );
    // Two imports of textured files: the second is charged with the first's textures.
    let doc = json!({"format": "plumb-scene", "version": 1,
        "root": {"children": [{"name": "i", "import": "m.obj"}, {"name": "j", "import": "m.obj"}]}});
    let p = write(&dir, "ii.json", doc.to_string());
    io::load(&p, &with_texture_limit(2 * TEX64)).expect("fits");
    let e = io::load(&p, &with_texture_limit(2 * TEX64 - 1)).expect_err("second import");
    assert!(matches!(e, IoError::TextureMemory { .. }), "{e}");
}

// ---- Geometry amplification ---------------------------------------------------------------

/// A document whose mesh has one primitive per entry of `counts`, each with a POSITION
/// accessor of that many VEC3 elements with no buffer view (all zeros, by the specification)
/// and one sparse value: a few hundred bytes of JSON that declare gigabytes.
fn zero_positions(counts: &[u64]) -> String {
    // One sparse index (u8 0, padded) and one VEC3 value (0, 1, 0).
    let mut bin = vec![0u8; 4];
    for v in [0.0f32, 1.0, 0.0] {
        bin.extend_from_slice(&v.to_le_bytes());
    }
    let uri = format!(
        "data:application/octet-stream;base64,{}",
        base64_encode(&bin)
    );
    let accessors: Vec<_> = counts
        .iter()
        .map(|&n| {
            json!({"componentType": 5126, "count": n, "type": "VEC3",
                "sparse": {"count": 1,
                    "indices": {"bufferView": 0, "componentType": 5121},
                    "values": {"bufferView": 1}}})
        })
        .collect();
    let primitives: Vec<_> = (0..counts.len())
        .map(|i| json!({"attributes": {"POSITION": i}, "mode": 0}))
        .collect();
    json!({
        "asset": {"version": "2.0"},
        "scenes": [{"nodes": [0]}],
        "nodes": [{"mesh": 0}],
        "meshes": [{"primitives": primitives}],
        "accessors": accessors,
        "bufferViews": [
            {"buffer": 0, "byteOffset": 0, "byteLength": 1},
            {"buffer": 0, "byteOffset": 4, "byteLength": 12}],
        "buffers": [{"byteLength": 16, "uri": uri}]
    })
    .to_string()
}

fn base64_encode(bytes: &[u8]) -> String {
    const A: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for c in bytes.chunks(3) {
        let n = (u32::from(c[0]) << 16)
            | (u32::from(*c.get(1).unwrap_or(&0)) << 8)
            | u32::from(*c.get(2).unwrap_or(&0));
        for k in 0..4 {
            if k <= c.len() {
                out.push(A[(n >> (18 - 6 * k) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[test]
fn declared_geometry_is_held_to_the_limit_before_allocating() {
    // 2²⁶ − 1 VEC3 elements: 805 MB of f32 from 150 bytes of JSON, over the 512 MiB default.
    let (_, e) = load_err("geom-one", "g.gltf", zero_positions(&[(1 << 26) - 1]));
    let text = e.to_string();
    assert!(text.contains("max_geometry_bytes"), "{text}");
    assert!(text.contains("805306356 bytes decoded"), "{text}");
    // Each accessor under the limit, together over it: the second is refused, and the
    // message says how much was left.
    let (_, e) = load_err(
        "geom-sum",
        "g.gltf",
        zero_positions(&[25_000_000, 25_000_000]),
    );
    let text = e.to_string();
    // 25 000 000 · 3 · 4 = 300 000 000 bytes each; 536 870 912 − 300 000 000 left after one.
    assert!(text.contains("(236870912 bytes)"), "{text}");
    // The limit is an option: a smaller one refuses a small file, a larger one loads it.
    let dir = temp_dir("geom-option");
    let p = write(&dir, "g.gltf", zero_positions(&[1000]));
    let tight = ImportOptions {
        max_geometry_bytes: 11_999,
        ..ImportOptions::default()
    };
    assert!(io::load(&p, &tight).is_err());
    let enough = ImportOptions {
        max_geometry_bytes: 12_000,
        ..ImportOptions::default()
    };
    io::load(&p, &enough).unwrap();
}

/// glTF node count: checked in the JSON before the `gltf` crate parses it (issue 11, limits).
/// One node past the default is refused with a message naming the option; the option works
/// both ways.
#[test]
fn gltf_nodes_are_held_to_the_limit_before_parsing() {
    fn doc(n: usize) -> String {
        let nodes = vec!["{}"; n].join(",");
        format!(r#"{{"asset":{{"version":"2.0"}},"scenes":[{{"nodes":[0]}}],"nodes":[{nodes}]}}"#)
    }
    let dir = temp_dir("node-limit");
    let p = write(&dir, "n.gltf", doc(io::DEFAULT_MAX_NODES + 1));
    let e = io::load(&p, &ImportOptions::default()).expect_err("one node too many");
    assert!(matches!(e, IoError::Limit { .. }), "{e}");
    let text = e.to_string();
    assert!(
        text.ends_with(&format!(
            "more than {} glTF nodes (ImportOptions::max_nodes)",
            1 << 20
        )),
        "{text}"
    );
    let p = write(&dir, "small.gltf", doc(3));
    let tight = ImportOptions {
        max_nodes: 2,
        ..ImportOptions::default()
    };
    assert!(matches!(io::load(&p, &tight), Err(IoError::Limit { .. })));
    let enough = ImportOptions {
        max_nodes: 3,
        ..ImportOptions::default()
    };
    io::load(&p, &enough).unwrap();
}

/// A scene file that imports one file many times cannot multiply the per-load limits: the
/// imports share the node and geometry budgets (each import gets what the earlier ones left).
/// Before the budgets were shared, each import was checked against the full limit alone, so
/// the three imports below loaded under limits that fit only two.
#[test]
fn a_scene_file_imports_share_the_node_and_geometry_limits() {
    let dir = temp_dir("import-budget");
    // 1000 zero positions: 12 000 bytes of geometry, one glTF node with one primitive.
    write(&dir, "g.gltf", zero_positions(&[1000]));
    let doc = json!({"format": "plumb-scene", "version": 1,
        "root": {"children": [
            {"name": "a", "import": "g.gltf"},
            {"name": "b", "import": "g.gltf"},
            {"name": "c", "import": "g.gltf"}]}});
    let p = write(&dir, "s.json", doc.to_string());
    // The nodes one import creates, measured by importing it once.
    let one = json!({"format": "plumb-scene", "version": 1,
        "root": {"children": [{"name": "a", "import": "g.gltf"}]}});
    let p1 = write(&dir, "one.json", one.to_string());
    let base = io::load(&p1, &ImportOptions::default())
        .unwrap()
        .scene
        .node_count();
    let empty =
        json!({"format": "plumb-scene", "version": 1, "root": {"children": [{"name": "a"}]}});
    let p0 = write(&dir, "zero.json", empty.to_string());
    let per_import = base
        - io::load(&p0, &ImportOptions::default())
            .unwrap()
            .scene
            .node_count();
    assert!(per_import >= 1, "an import creates nodes");

    // Geometry: three imports need 36 000 bytes.
    let geometry = |max| ImportOptions {
        max_geometry_bytes: max,
        ..ImportOptions::default()
    };
    io::load(&p, &geometry(36_000)).expect("three imports fit 36 000 bytes");
    let e = io::load(&p, &geometry(35_999)).expect_err("the third import passes the limit");
    let text = e.to_string();
    assert!(text.contains("max_geometry_bytes"), "{text}");
    assert!(
        text.contains("(11999 bytes)"),
        "what is left after two: {text}"
    );

    // OBJ counts its parsed arrays: 3 positions (9 floats) and 3 indices, 48 bytes.
    write(&dir, "t.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n");
    let doc = json!({"format": "plumb-scene", "version": 1,
        "root": {"children": [{"name": "a", "import": "t.obj"}, {"name": "b", "import": "t.obj"}]}});
    let po = write(&dir, "o.json", doc.to_string());
    io::load(&po, &geometry(96)).expect("two OBJ imports fit 96 bytes");
    let e = io::load(&po, &geometry(95)).expect_err("the second OBJ import passes it");
    assert!(e.to_string().contains("max_geometry_bytes"), "{e}");

    // Nodes: three imports create 3 · per_import scene nodes.
    let nodes = |max| ImportOptions {
        max_nodes: max,
        ..ImportOptions::default()
    };
    io::load(&p, &nodes(3 * per_import)).expect("three imports fit");
    let e = io::load(&p, &nodes(3 * per_import - 1)).expect_err("the third import passes it");
    assert!(
        matches!(&e, IoError::Limit { file, .. } if file.ends_with("s.json")),
        "{e}"
    );
    let text = e.to_string();
    assert!(
        text.ends_with(&format!(
            "more than {} nodes created by the scene file's imports together \
             (ImportOptions::max_nodes)",
            3 * per_import - 1
        )),
        "{text}"
    );
}
