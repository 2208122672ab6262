//! Integration tests of the `plumb` binary: every subcommand, every exit code, thread-count
//! determinism and one test per bad-input class (each must give exit 2 and a one-line
//! `error: ...` on stderr, never a panic).

use std::path::{Path, PathBuf};

use image::{Rgba, RgbaImage};

use crate::cli_common;
use cli_common::*;

fn solid(w: u32, h: u32, c: [u8; 4]) -> RgbaImage {
    RgbaImage::from_pixel(w, h, Rgba(c))
}

fn save(img: &RgbaImage, dir: &Path, name: &str) -> PathBuf {
    let p = dir.join(name);
    img.save(&p).unwrap();
    p
}

// ---------------------------------------------------------------------------------------------
// render
// ---------------------------------------------------------------------------------------------

#[test]
fn no_arguments_renders_plumb_png() {
    let dir = temp_dir("default");
    let o = plumb(&dir, &[]);
    assert_success(&o);
    assert_eq!(stdout(&o).trim(), "wrote plumb.png (800x600)");
    let img = image::open(dir.join("plumb.png")).unwrap();
    assert_eq!((img.width(), img.height()), (800, 600));
}

#[test]
fn render_with_size_and_out() {
    let dir = temp_dir("size");
    let o = plumb(&dir, &["render", "--size", "64x48", "-o", "small.png"]);
    assert_success(&o);
    assert!(stdout(&o).contains("small.png (64x48)"));
    let img = image::open(dir.join("small.png")).unwrap();
    assert_eq!((img.width(), img.height()), (64, 48));
    // Same options without the subcommand name: the same file.
    assert_success(&plumb(&dir, &["--size", "64x48", "--out", "again.png"]));
    assert_eq!(
        std::fs::read(dir.join("small.png")).unwrap(),
        std::fs::read(dir.join("again.png")).unwrap()
    );
}

#[test]
fn threads_1_and_2_give_identical_files() {
    let dir = temp_dir("threads");
    let args = |t: &'static str, out: &'static str| {
        ["render", "--size", "160x120", "--threads", t, "-o", out]
    };
    assert_success(&plumb(&dir, &args("1", "t1.png")));
    assert_success(&plumb(&dir, &args("2", "t2.png")));
    let a = std::fs::read(dir.join("t1.png")).unwrap();
    let b = std::fs::read(dir.join("t2.png")).unwrap();
    assert!(!a.is_empty());
    assert!(a == b, "--threads 1 and --threads 2 wrote different bytes");
}

#[test]
fn help_and_version_exit_0() {
    let dir = temp_dir("help");
    for args in [
        &["--help"][..],
        &["diff", "--help"],
        &["render", "--help"],
        &["--version"],
    ] {
        let o = plumb(&dir, args);
        assert_success(&o);
        assert!(!stdout(&o).is_empty());
    }
}

// ---------------------------------------------------------------------------------------------
// diff
// ---------------------------------------------------------------------------------------------

#[test]
fn diff_identical_exits_0() {
    let dir = temp_dir("diff-same");
    assert_success(&plumb(&dir, &["render", "--size", "64x48", "-o", "a.png"]));
    assert_success(&plumb(&dir, &["render", "--size", "64x48", "-o", "b.png"]));
    let o = plumb(&dir, &["diff", "a.png", "b.png", "--out", "heat.png"]);
    assert_success(&o);
    let out = stdout(&o);
    assert!(out.contains("pixels over T=0    0 "), "{out}");
    assert!(out.contains("max channel delta: 0"), "{out}");
    assert!(out.contains("PSNR (RGB):        inf"), "{out}");
    assert!(out.contains("perceptual mean:   0.000000"), "{out}");
    assert!(out.contains("result: pass"), "{out}");
    let heat = image::open(dir.join("heat.png")).unwrap().to_rgba8();
    assert_eq!(heat.dimensions(), (64, 48));
    assert!(heat.pixels().all(|p| p.0 == [0, 0, 0, 255]));
}

#[test]
fn diff_different_exits_1_with_numbers() {
    let dir = temp_dir("diff-differ");
    // One pixel off by 10 in green on 10×10: MSE = 10²/300, PSNR = 10·log10(195075) = 52.90.
    let a = solid(10, 10, [100, 100, 100, 255]);
    let mut b = a.clone();
    b.put_pixel(2, 7, Rgba([100, 110, 100, 255]));
    save(&a, &dir, "a.png");
    save(&b, &dir, "b.png");

    let o = plumb(&dir, &["diff", "a.png", "b.png", "--out", "heat.png"]);
    assert_eq!(o.status.code(), Some(1), "{}{}", stdout(&o), stderr(&o));
    let out = stdout(&o);
    assert!(
        out.contains("size:              10x10 (100 pixels)"),
        "{out}"
    );
    assert!(out.contains("pixels over T=0    1 (1.000%)"), "{out}");
    assert!(out.contains("max channel delta: 10"), "{out}");
    assert!(out.contains("PSNR (RGB):        52.90 dB"), "{out}");
    assert!(out.contains("perceptual mean:   0.0"), "{out}");
    assert!(
        out.contains("result: FAIL (1 pixels over threshold 0 (allowed 0))"),
        "{out}"
    );
    assert!(stderr(&o).is_empty(), "{}", stderr(&o));
    let heat = image::open(dir.join("heat.png")).unwrap().to_rgba8();
    assert_eq!(heat.dimensions(), (10, 10));
    assert_ne!(heat.get_pixel(2, 7).0, [0, 0, 0, 255]);

    // T equal to the delta is not over; T one below is.
    assert_eq!(
        plumb(&dir, &["diff", "a.png", "b.png", "-t", "10"])
            .status
            .code(),
        Some(0)
    );
    assert_eq!(
        plumb(&dir, &["diff", "a.png", "b.png", "--threshold", "9"])
            .status
            .code(),
        Some(1)
    );
    // One pixel over is allowed with --max-pixels 1.
    assert_eq!(
        plumb(&dir, &["diff", "a.png", "b.png", "--max-pixels", "1"])
            .status
            .code(),
        Some(0)
    );
}

#[test]
fn diff_max_mean_tolerance() {
    let dir = temp_dir("diff-mean");
    save(&solid(16, 16, [0, 0, 0, 255]), &dir, "black.png");
    save(&solid(16, 16, [255, 255, 255, 255]), &dir, "white.png");
    let mut near = solid(16, 16, [0, 0, 0, 255]);
    near.put_pixel(5, 5, Rgba([3, 3, 3, 255]));
    save(&near, &dir, "near.png");

    // Perceptual mean only (threshold 255 disables the pixel criterion).
    let mean_only = |b: &str| {
        plumb(
            &dir,
            &["diff", "black.png", b, "-t", "255", "--max-mean", "0.05"],
        )
        .status
        .code()
    };
    assert_eq!(mean_only("near.png"), Some(0));
    assert_eq!(mean_only("white.png"), Some(1));
    let o = plumb(
        &dir,
        &[
            "diff",
            "black.png",
            "white.png",
            "-t",
            "255",
            "--max-mean",
            "0.05",
        ],
    );
    let out = stdout(&o);
    assert!(out.contains("PSNR (RGB):        0.00 dB"), "{out}");
    assert!(out.contains("result: FAIL (perceptual mean 0.9"), "{out}");
}

// ---------------------------------------------------------------------------------------------
// bad input: exit 2, one `error:` line
// ---------------------------------------------------------------------------------------------

#[test]
fn diff_missing_file() {
    let dir = temp_dir("bad-missing");
    save(&solid(4, 4, [0; 4]), &dir, "a.png");
    assert_bad_input(
        &plumb(&dir, &["diff", "a.png", "missing.png"]),
        "missing.png",
    );
    assert_bad_input(
        &plumb(&dir, &["diff", "missing.png", "a.png"]),
        "missing.png",
    );
}

#[test]
fn diff_garbage_png() {
    let dir = temp_dir("bad-garbage");
    save(&solid(4, 4, [0; 4]), &dir, "a.png");
    std::fs::write(
        dir.join("garbage.png"),
        b"this is not a png at all, just bytes",
    )
    .unwrap();
    assert_bad_input(
        &plumb(&dir, &["diff", "a.png", "garbage.png"]),
        "garbage.png",
    );
    std::fs::write(dir.join("empty.png"), b"").unwrap();
    assert_bad_input(&plumb(&dir, &["diff", "empty.png", "a.png"]), "empty.png");
}

#[test]
fn diff_truncated_png() {
    let dir = temp_dir("bad-truncated");
    let img = RgbaImage::from_fn(64, 64, |x, y| Rgba([(x * 4) as u8, (y * 4) as u8, 7, 255]));
    let full = save(&img, &dir, "full.png");
    let bytes = std::fs::read(&full).unwrap();
    std::fs::write(dir.join("truncated.png"), &bytes[..bytes.len() / 2]).unwrap();
    assert_bad_input(
        &plumb(&dir, &["diff", "full.png", "truncated.png"]),
        "truncated.png",
    );
    // Header only: signature and IHDR, no image data.
    std::fs::write(dir.join("header.png"), &bytes[..33]).unwrap();
    assert_bad_input(
        &plumb(&dir, &["diff", "header.png", "full.png"]),
        "header.png",
    );
}

#[test]
fn diff_size_mismatch() {
    let dir = temp_dir("bad-mismatch");
    save(&solid(4, 4, [0; 4]), &dir, "a.png");
    save(&solid(4, 5, [0; 4]), &dir, "b.png");
    assert_bad_input(&plumb(&dir, &["diff", "a.png", "b.png"]), "4x4 vs 4x5");
}

#[test]
fn diff_bad_options() {
    let dir = temp_dir("bad-diff-options");
    save(&solid(4, 4, [0; 4]), &dir, "a.png");
    assert_bad_input(&plumb(&dir, &["diff", "a.png"]), "B.png");
    assert_bad_input(
        &plumb(&dir, &["diff", "a.png", "a.png", "-t", "256"]),
        "256",
    );
    assert_bad_input(
        &plumb(&dir, &["diff", "a.png", "a.png", "--max-mean", "nan"]),
        "nan",
    );
    assert_bad_input(
        &plumb(
            &dir,
            &["diff", "a.png", "a.png", "--out", "no/such/dir/heat.png"],
        ),
        "heat.png",
    );
}

#[test]
fn render_size_zero() {
    let dir = temp_dir("bad-size-zero");
    assert_bad_input(&plumb(&dir, &["render", "--size", "0x0"]), "0x0");
    assert_bad_input(&plumb(&dir, &["--size", "10x0"]), "10x0");
    assert!(!dir.join("plumb.png").exists());
}

#[test]
fn render_size_huge() {
    let dir = temp_dir("bad-size-huge");
    assert_bad_input(
        &plumb(&dir, &["render", "--size", "100000x100000"]),
        "100000x100000",
    );
    assert_bad_input(&plumb(&dir, &["render", "--size", "64by48"]), "64by48");
}

#[test]
fn render_bad_threads() {
    let dir = temp_dir("bad-threads");
    assert_bad_input(&plumb(&dir, &["render", "--threads", "two"]), "two");
    assert_bad_input(&plumb(&dir, &["render", "--threads", "-1"]), "-1");
    assert_bad_input(&plumb(&dir, &["render", "--threads=-1"]), "-1");
    assert_bad_input(&plumb(&dir, &["render", "--threads", "100000"]), "100000");
}

#[test]
fn unknown_flag() {
    let dir = temp_dir("bad-flag");
    assert_bad_input(&plumb(&dir, &["--frobnicate"]), "--frobnicate");
    assert_bad_input(&plumb(&dir, &["render", "--frobnicate"]), "--frobnicate");
    assert_bad_input(
        &plumb(&dir, &["diff", "--frobnicate", "a", "b"]),
        "--frobnicate",
    );
    assert_bad_input(&plumb(&dir, &["frobnicate"]), "frobnicate");
}

#[test]
fn render_unwritable_output() {
    let dir = temp_dir("bad-out");
    assert_bad_input(
        &plumb(
            &dir,
            &["render", "--size", "8x8", "-o", "no/such/dir/out.png"],
        ),
        "out.png",
    );
}

// ---------------------------------------------------------------------------------------------
// info
// ---------------------------------------------------------------------------------------------

/// A glTF file `name` in `dir` with its buffer in `name.bin`: a group `p` at (1,2,3) holding a
/// node `c` scaled by 2 that draws the unit right triangle. `edit` changes the JSON first.
fn write_gltf(dir: &Path, name: &str, edit: impl FnOnce(&mut serde_json::Value)) -> PathBuf {
    let mut bin: Vec<u8> = [0.0f32, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0]
        .iter()
        .flat_map(|x| x.to_le_bytes())
        .collect();
    bin.extend([0u16, 1, 2, 0].iter().flat_map(|x| x.to_le_bytes()));
    std::fs::write(dir.join(format!("{name}.bin")), &bin).unwrap();
    let mut doc = serde_json::json!({
        "asset": {"version": "2.0"},
        "scenes": [{"nodes": [0]}],
        "nodes": [
            {"name": "p", "translation": [1.0, 2.0, 3.0], "children": [1]},
            {"name": "c", "scale": [2.0, 2.0, 2.0], "mesh": 0}],
        "meshes": [{"name": "m", "primitives": [{"attributes": {"POSITION": 0}, "indices": 1}]}],
        "buffers": [{"uri": format!("{name}.bin"), "byteLength": 44}],
        "bufferViews": [
            {"buffer": 0, "byteOffset": 0, "byteLength": 36},
            {"buffer": 0, "byteOffset": 36, "byteLength": 6}],
        "accessors": [
            {"bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3"},
            {"bufferView": 1, "componentType": 5123, "count": 3, "type": "SCALAR"}]
    });
    edit(&mut doc);
    let p = dir.join(format!("{name}.gltf"));
    std::fs::write(&p, serde_json::to_string(&doc).unwrap()).unwrap();
    p
}

#[test]
fn info_text_for_obj_and_gltf() {
    let dir = temp_dir("info-text");
    std::fs::write(
        dir.join("quad.obj"),
        "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nf 1 2 3 4\n",
    )
    .unwrap();
    let o = plumb(&dir, &["info", "quad.obj"]);
    assert_success(&o);
    let out = stdout(&o);
    assert!(out.contains("  quad [group]"), "{out}");
    assert!(
        out.contains("    quad[0] [geometry triangles vertices=4 indices=6]"),
        "{out}"
    );
    write_gltf(&dir, "t", |_| {});
    let o = plumb(&dir, &["info", "t.gltf"]);
    assert_success(&o);
    let out = stdout(&o);
    assert!(out.contains("  p [group]\n    local: T=(1, 2, 3)"), "{out}");
    assert!(out.contains("m[0] [geometry triangles"), "{out}");
    assert!(out.contains("materials:"), "{out}");
    // A scene file's root without a name is shown as such, not as an empty string.
    std::fs::write(
        dir.join("s.json"),
        r#"{"format": "plumb-scene", "version": 1, "root": {"children": [{"mesh": {"box": {}}}]}}"#,
    )
    .unwrap();
    let o = plumb(&dir, &["info", "s.json"]);
    assert_success(&o);
    let out = stdout(&o);
    assert!(out.starts_with("(unnamed) [group]\n"), "{out}");
    assert!(out.contains("\n  (unnamed) [geometry triangles"), "{out}");
}

#[test]
fn info_json_one_object_per_node() {
    let dir = temp_dir("info-json");
    write_gltf(&dir, "t", |_| {});
    let o = plumb(&dir, &["info", "t.gltf", "--json"]);
    assert_success(&o);
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("valid JSON");
    let nodes = v["nodes"].as_array().unwrap();
    let names: Vec<&str> = nodes.iter().map(|n| n["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["root", "p", "c", "m[0]"]);
    let parents: Vec<Option<u64>> = nodes.iter().map(|n| n["parent"].as_u64()).collect();
    assert_eq!(parents, [None, Some(0), Some(1), Some(2)]);
    let f = |n: &serde_json::Value, k: &str| -> Vec<f64> {
        n[k].as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_f64().unwrap())
            .collect()
    };
    // Column-major: translation in elements 12..14.
    assert_eq!(f(&nodes[1], "local")[12..15], [1.0, 2.0, 3.0]);
    let world = f(&nodes[3], "world");
    assert_eq!(world.len(), 16);
    assert_eq!(
        (world[0], world[5], world[10], world[15]),
        (2.0, 2.0, 2.0, 1.0)
    );
    assert_eq!(world[12..15], [1.0, 2.0, 3.0]);
    assert_eq!(nodes[3]["kind"], "geometry");
    assert_eq!(nodes[3]["vertices"], 3);
    assert_eq!(nodes[3]["triangles"], 1);
    assert!(nodes[1].get("vertices").is_none());
    // World corners (1,2,3), (3,2,3), (1,4,3): the bound holds them, and no sphere smaller
    // than half the hypotenuse (√2) can.
    let c = f(&nodes[3]["bound"], "center");
    let r = nodes[3]["bound"]["radius"].as_f64().unwrap();
    for p in [[1.0, 2.0, 3.0], [3.0, 2.0, 3.0], [1.0, 4.0, 3.0]] {
        let d = (0..3)
            .map(|k| (p[k] - c[k]) * (p[k] - c[k]))
            .sum::<f64>()
            .sqrt();
        assert!(d <= r + 1e-5, "{p:?} outside {c:?} r={r}");
    }
    assert!(r >= 2f64.sqrt() - 1e-5 && r <= 2.0 * 2f64.sqrt(), "{r}");
    assert_eq!(v["cameras"], serde_json::json!([]));
}

#[test]
fn info_bad_inputs() {
    let dir = temp_dir("info-bad");
    std::fs::write(dir.join("garbage.gltf"), "not json at all").unwrap();
    assert_bad_input(&plumb(&dir, &["info", "garbage.gltf"]), "garbage.gltf:1:");
    std::fs::write(
        dir.join("trunc.glb"),
        b"glTF\x02\x00\x00\x00\xff\x00\x00\x00JSON",
    )
    .unwrap();
    assert_bad_input(&plumb(&dir, &["info", "trunc.glb"]), "truncated GLB");
    std::fs::write(dir.join("garbage.obj"), [0xffu8, 0xfe, 0, 1, 2]).unwrap();
    assert_bad_input(&plumb(&dir, &["info", "garbage.obj"]), "garbage.obj:1:");
    std::fs::write(
        dir.join("range.obj"),
        "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 4\n",
    )
    .unwrap();
    assert_bad_input(&plumb(&dir, &["info", "range.obj"]), "range.obj:4:");
    write_gltf(&dir, "nobuf", |d| {
        d["buffers"][0]["uri"] = "gone.bin".into()
    });
    assert_bad_input(&plumb(&dir, &["info", "nobuf.gltf"]), "buffer 'gone.bin'");
    write_gltf(&dir, "noimg", |d| {
        d["meshes"][0]["primitives"][0]["material"] = 0.into();
        d["materials"] =
            serde_json::json!([{"pbrMetallicRoughness": {"baseColorTexture": {"index": 0}}}]);
        d["textures"] = serde_json::json!([{"source": 0}]);
        d["images"] = serde_json::json!([{"uri": "gone.png"}]);
    });
    assert_bad_input(&plumb(&dir, &["info", "noimg.gltf"]), "image 'gone.png'");
    write_gltf(&dir, "acc", |d| d["accessors"][0]["count"] = 30.into());
    assert_bad_input(&plumb(&dir, &["info", "acc.gltf"]), "run past the end");
    write_gltf(&dir, "cnt", |d| {
        d["accessors"][1]["count"] = 4.into();
        d["bufferViews"][1]["byteLength"] = 8.into();
    });
    assert_bad_input(
        &plumb(&dir, &["info", "cnt.gltf"]),
        "4 indices do not form whole",
    );
    write_gltf(&dir, "idx", |_| {});
    let mut bin = std::fs::read(dir.join("idx.bin")).unwrap();
    bin[40..42].copy_from_slice(&7u16.to_le_bytes());
    std::fs::write(dir.join("idx.bin"), bin).unwrap();
    assert_bad_input(
        &plumb(&dir, &["info", "idx.gltf"]),
        "index 7 at position 2 is out of range",
    );
    write_gltf(&dir, "nan", |d| {
        d["nodes"][0]["translation"] = serde_json::json!([1e39, 0, 0])
    });
    assert_bad_input(
        &plumb(&dir, &["info", "nan.gltf"]),
        "node 0 'p': non-finite value in translation",
    );
    write_gltf(&dir, "skin", |d| {
        d["nodes"][1]["skin"] = 0.into();
        d["skins"] = serde_json::json!([{"joints": [0]}]);
    });
    assert_bad_input(
        &plumb(&dir, &["info", "skin.gltf"]),
        "is skinned but has no JOINTS_0/WEIGHTS_0",
    );
    assert_bad_input(
        &plumb(&dir, &["info", "absent.glb"]),
        "absent.glb: cannot read",
    );
    assert_bad_input(
        &plumb(&dir, &["info", "scene.fbx"]),
        "unsupported scene format",
    );
    assert_bad_input(&plumb(&dir, &["info"]), "SCENE");
}

#[test]
fn info_oversized_texture() {
    let dir = temp_dir("info-big-texture");
    save(&solid(8193, 1, [0, 0, 0, 255]), &dir, "wide.png");
    write_gltf(&dir, "big", |d| {
        d["meshes"][0]["primitives"][0]["material"] = 0.into();
        d["materials"] =
            serde_json::json!([{"pbrMetallicRoughness": {"baseColorTexture": {"index": 0}}}]);
        d["textures"] = serde_json::json!([{"source": 0}]);
        d["images"] = serde_json::json!([{"uri": "wide.png"}]);
    });
    assert_bad_input(
        &plumb(&dir, &["info", "big.gltf"]),
        "image 'wide.png' is 8193x1; the limit is 8192 texels per side",
    );
}

/// Default builds have no window: `plumb view` says how to get one, exit 2, one line. (With
/// `--features viewer` the subcommand opens a window instead.)
#[test]
#[cfg(not(feature = "viewer"))]
fn view_without_the_feature_explains_itself() {
    let dir = temp_dir("view");
    assert_bad_input(
        &plumb(&dir, &["view", "scene.gltf"]),
        "built without the viewer; rebuild with `cargo build --release --features viewer`",
    );
    assert_bad_input(&plumb(&dir, &["view"]), "SCENE");
}

#[test]
fn info_summarises_a_draw_trace() {
    let dir = temp_dir("info-trace");
    let trace = Path::new(env!("CARGO_MANIFEST_DIR")).join("refimages/raster/stencil_mask.json");
    let t = trace.to_string_lossy().into_owned();
    let o = plumb(&dir, &["info", &t]);
    assert_success(&o);
    let out = stdout(&o);
    assert!(
        out.contains(": 256x256, 4 commands, 0 textures, buffer stencil_mask.bin"),
        "{out}"
    );
    assert!(
        out.contains("\n  0 clear color=(0, 0, 0, 1) depth=1 stencil=0\n"),
        "{out}"
    );
    assert_eq!(out.matches(" draw ").count(), 3, "{out}");
    let o = plumb(&dir, &["info", &t, "--json"]);
    assert_bad_input(&o, "a draw trace is JSON already");
}

#[test]
fn bad_plumb_simd_is_a_one_line_error() {
    let dir = temp_dir("bad_simd");
    for (value, expect) in [("avx3", "unknown SIMD level"), ("neon", "neon")] {
        if value == "neon" && cfg!(target_arch = "aarch64") {
            continue;
        }
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_plumb"))
            .args(["render", "-o", "x.png", "--size", "8x8"])
            .env("PLUMB_SIMD", value)
            .current_dir(&dir)
            .output()
            .expect("plumb runs");
        assert_bad_input(&o, expect);
    }
    // A level this machine has renders the same bytes as the default.
    let a = std::process::Command::new(env!("CARGO_BIN_EXE_plumb"))
        .args(["render", "-o", "scalar.png", "--size", "64x48"])
        .env("PLUMB_SIMD", "scalar")
        .current_dir(&dir)
        .output()
        .expect("plumb runs");
    assert_success(&a);
    assert_success(&plumb(
        &dir,
        &["render", "-o", "auto.png", "--size", "64x48"],
    ));
    let read = |f: &str| std::fs::read(dir.join(f)).unwrap();
    assert!(
        read("scalar.png") == read("auto.png"),
        "scalar and default differ"
    );
}

// ---------------------------------------------------------------------------------------------
// hostile inputs (issue 11): decoder panics and files that are not regular files
// ---------------------------------------------------------------------------------------------

/// Runs `plumb args...` in `dir`, killing it (and failing) if it has not exited in 30 s.
fn plumb_within(dir: &Path, args: &[&str]) -> std::process::Output {
    use std::time::{Duration, Instant};
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_plumb"))
        .args(args)
        .current_dir(dir)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("plumb runs");
    let start = Instant::now();
    while child.try_wait().expect("wait").is_none() {
        if start.elapsed() > Duration::from_secs(30) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("plumb {args:?} did not exit within 30 s");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().expect("output")
}

/// A 1×1 paletted PNG whose PLTE chunk holds `plte` (valid when its length is 3·k).
fn paletted_png(plte: &[u8]) -> Vec<u8> {
    use png_bytes::{ihdr, png, zlib_stored};
    // The one scanline: filter 0, palette index 0.
    png(
        &ihdr(1, 1, 8, 3, 0),
        &[(b"PLTE", plte)],
        &zlib_stored(&[0, 0]),
    )
}

#[test]
fn diff_ragged_palette_png_is_bad_input_not_a_panic() {
    let dir = temp_dir("diff-plte");
    std::fs::write(dir.join("good.png"), paletted_png(&[10, 20, 30])).unwrap();
    std::fs::write(dir.join("ragged.png"), paletted_png(&[10, 20, 30, 40])).unwrap();
    assert_success(&plumb(&dir, &["diff", "good.png", "good.png"]));
    assert_bad_input(&plumb(&dir, &["diff", "good.png", "ragged.png"]), "PLTE");
}

#[cfg(unix)]
#[test]
fn fifo_inputs_are_refused_not_waited_on() {
    let dir = temp_dir("fifo-inputs");
    let fifo = |name: &str| {
        let ok = std::process::Command::new("mkfifo")
            .arg(dir.join(name))
            .status()
            .expect("mkfifo runs")
            .success();
        assert!(ok, "mkfifo {name}");
    };
    fifo("pipe.png");
    save(&solid(4, 4, [0; 4]), &dir, "a.png");
    assert_bad_input(
        &plumb_within(&dir, &["diff", "a.png", "pipe.png"]),
        "not a regular file",
    );
    // A draw trace whose buffer is a FIFO.
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(repo.join("refimages/raster/stencil_mask.json")).unwrap();
    std::fs::write(dir.join("stencil_mask.json"), text).unwrap();
    fifo("stencil_mask.bin");
    let o = plumb_within(&dir, &["info", "stencil_mask.json"]);
    assert_bad_input(&o, "not a regular file");
    let o = plumb_within(&dir, &["render", "stencil_mask.json", "-o", "t.png"]);
    assert_bad_input(&o, "not a regular file");
}

#[test]
fn errors_quoting_control_characters_stay_on_one_line() {
    let dir = temp_dir("ctl-chars");
    std::fs::write(
        dir.join("q.obj"),
        "mtllib gone\rerror: injected.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n",
    )
    .unwrap();
    let o = plumb(&dir, &["render", "q.obj", "-o", "x.png", "--size", "8x8"]);
    assert_bad_input(&o, r"gone\rerror: injected.mtl");
}

#[test]
fn a_finite_far_scene_is_not_reported_as_non_finite() {
    let dir = temp_dir("far-scene");
    std::fs::write(
        dir.join("far.obj"),
        "v 3e38 0 0\nv 3e38 1 0\nv 3e38 0 1\nf 1 2 3\n",
    )
    .unwrap();
    let o = plumb(&dir, &["render", "far.obj", "-o", "x.png", "--size", "8x8"]);
    assert_bad_input(&o, "cannot be framed in single precision");
    assert!(!stderr(&o).contains("non-finite"), "{}", stderr(&o));
}

#[test]
fn diff_refuses_images_past_the_pixel_limit_before_decoding() {
    let dir = temp_dir("diff-limit");
    // The header of a 1-bit 22000x22000 grey PNG (no image data): refused from its header,
    // before anything is decoded.
    let huge = png_bytes::png(
        &png_bytes::ihdr(22_000, 22_000, 1, 0, 0),
        &[],
        &[0x78, 0x01],
    );
    std::fs::write(dir.join("huge.png"), huge).unwrap();
    save(&solid(4, 4, [0; 4]), &dir, "a.png");
    assert_bad_input(
        &plumb(&dir, &["diff", "a.png", "huge.png"]),
        "22000x22000 is 484000000 pixels, more than the limit of 268435456 (--max-image-pixels)",
    );
    // The limit is an option.
    save(&solid(8, 8, [0; 4]), &dir, "b.png");
    save(&solid(8, 8, [0; 4]), &dir, "c.png");
    assert_success(&plumb(&dir, &["diff", "b.png", "c.png"]));
    assert_bad_input(
        &plumb(
            &dir,
            &["diff", "b.png", "c.png", "--max-image-pixels", "63"],
        ),
        "more than the limit of 63",
    );
}

#[test]
fn diff_reads_interlaced_pngs_as_their_pixels() {
    // The same 13×11 picture (every pass of Adam7 non-empty) written plainly and interlaced:
    // identical to plumb, and a changed copy differs from both by the same numbers.
    let dir = temp_dir("diff-interlaced");
    let img = RgbaImage::from_fn(13, 11, |x, y| {
        image::Rgba([
            (x * 19) as u8,
            (y * 23) as u8,
            ((x * y) % 256) as u8,
            255 - x as u8,
        ])
    });
    save(&img, &dir, "plain.png");
    std::fs::write(dir.join("adam7.png"), png_bytes::interlaced_rgba(&img)).unwrap();
    let o = plumb(&dir, &["diff", "plain.png", "adam7.png"]);
    assert_success(&o);
    assert!(
        stdout(&o).contains("max channel delta: 0"),
        "{}",
        stdout(&o)
    );
    let mut changed = img.clone();
    changed.put_pixel(12, 10, image::Rgba([0, 0, 0, 255]));
    changed.put_pixel(3, 5, image::Rgba([255, 255, 255, 255]));
    save(&changed, &dir, "changed.png");
    let numbers = |a: &str| {
        let o = plumb(&dir, &["diff", a, "changed.png"]);
        assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
        stdout(&o)
            .lines()
            .filter(|l| !l.starts_with("result"))
            .map(str::to_owned)
            .collect::<Vec<_>>()
    };
    let (plain, adam7) = (numbers("plain.png"), numbers("adam7.png"));
    assert!(
        plain.iter().any(|l| l.contains("pixels over T=0    2 ")),
        "{plain:?}"
    );
    assert_eq!(plain, adam7);
}

#[test]
fn diff_memory_limit_is_checked_from_the_headers() {
    let dir = temp_dir("diff-memory");
    let img = solid(300, 2, [9, 9, 9, 255]);
    save(&img, &dir, "a.png");
    std::fs::write(dir.join("b.png"), png_bytes::interlaced_rgba(&img)).unwrap();
    // The streamed rows of a 300-pixel-wide pair at 67 ppd: 2 images · (64 + 2·10) rows ·
    // 300 pixels · 76 bytes = 3 830 400 bytes; the interlaced one adds its 2 400 samples.
    assert_success(&plumb(
        &dir,
        &["diff", "a.png", "a.png", "--max-memory", "3830400"],
    ));
    assert_bad_input(
        &plumb(&dir, &["diff", "a.png", "a.png", "--max-memory", "3830399"]),
        "needs about 3830400 bytes, more than the limit of 3830399 (--max-memory)",
    );
    assert_success(&plumb(
        &dir,
        &["diff", "a.png", "b.png", "--max-memory", "3832800"],
    ));
    assert_bad_input(
        &plumb(&dir, &["diff", "a.png", "b.png", "--max-memory", "3832799"]),
        "needs about 3832800 bytes",
    );
}

#[test]
fn diff_heat_map_is_streamed_to_the_same_pixels() {
    // The heat map written row by row equals the library's in-memory one.
    let dir = temp_dir("diff-heat");
    let a = RgbaImage::from_fn(40, 150, |x, y| {
        image::Rgba([(x * 5) as u8, y as u8, 80, 255])
    });
    let mut b = a.clone();
    for (x, y) in [(0, 0), (39, 70), (20, 149), (5, 64)] {
        b.put_pixel(x, y, image::Rgba([255, 0, 255, 255]));
    }
    save(&a, &dir, "a.png");
    save(&b, &dir, "b.png");
    let o = plumb(&dir, &["diff", "a.png", "b.png", "-o", "heat.png"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let written = image::open(dir.join("heat.png")).unwrap().to_rgba8();
    let expected = plumb::diff::compare(&a, &b, &Default::default())
        .unwrap()
        .heat_map();
    assert_eq!(written.dimensions(), (40, 150));
    assert!(
        written == expected,
        "streamed heat map differs from the in-memory one"
    );
    assert!(expected.pixels().any(|p| p.0 != [0, 0, 0, 255]));
}

/// Issue 50, class 6: `plumb diff`'s filter cost is bounded up front. At the largest `--ppd`
/// (1000) the kernels are 15 to 30 times longer and the band windows 4 times taller than at
/// the default 67: 8192² images ran past 60 s. The cost is estimated from the headers and
/// refused past `--max-filter-work` (default: the largest default image at the default ppd)
/// before anything is decoded.
#[test]
fn diff_filter_work_is_bounded_from_the_headers() {
    assert_eq!(
        plumb::diff::filter_work(16384, 16384, 67.0),
        plumb::diff::DEFAULT_MAX_FILTER_WORK
    );
    let dir = temp_dir("diff-ppd");
    // Headers only: 8192 × 8192 RGBA, no image data (never read).
    let header = png_bytes::png(&png_bytes::ihdr(8192, 8192, 8, 6, 0), &[], &[]);
    std::fs::write(dir.join("a.png"), &header).unwrap();
    let start = std::time::Instant::now();
    let o = plumb(&dir, &["diff", "a.png", "a.png", "--ppd", "1000"]);
    assert_bad_input(
        &o,
        &format!(
            "comparing 8192x8192 images at 1000 ppd needs about {} filter taps, more than the limit of {} (--max-filter-work)",
            plumb::diff::filter_work(8192, 8192, 1000.0),
            plumb::diff::DEFAULT_MAX_FILTER_WORK
        ),
    );
    assert!(start.elapsed() < std::time::Duration::from_secs(5));
    // The default ppd on the same images is within the limit (it fails later, on the missing
    // data, not on the estimate).
    let o = plumb(&dir, &["diff", "a.png", "a.png"]);
    assert!(!stderr(&o).contains("--max-filter-work"), "{}", stderr(&o));
}
