//! Issue 50, class 4: writers never follow links out or over inputs. A shard image that was
//! a link to a file outside the shard was copied into the merged report (which then
//! published it); a report folder whose `results.json` was a link into a shard overwrote
//! that shard's results (exit 0); `--calibrated` naming a golden replaced it (exit 0); and
//! `plumb render -o` (or a frame, or `--depth-out`) naming a link to the model wrote the
//! image over the model.

#![cfg(unix)]

use std::os::unix::fs::symlink;
use std::path::Path;

use plumb::conform::report::merge;

use crate::cli_common::{assert_bad_input, plumb, temp_dir};

/// A shard folder with one failed case whose expected image is `img/x.png`.
fn shard(dir: &Path, id: &str) {
    std::fs::create_dir_all(dir.join("img")).unwrap();
    let rec = format!(
        r#"{{"id":"{id}","area":"a","kind":"scene","status":"fail","message":"m","tolerance":{{"threshold":0,"max_pixels":0,"max_flip_mean":0.0,"reason":"r"}},"metrics":{{"pixels_over":1,"max_delta":2,"flip_mean":0.5}},"seconds":0.5,"images":["img/x.png",null,null]}}"#
    );
    std::fs::write(
        dir.join("results.json"),
        format!(
            r#"{{"format":"plumb-conform-results","version":1,"backend":"soft","cases":[{rec}]}}"#
        ),
    )
    .unwrap();
}

#[test]
fn merge_copies_no_link_out_of_a_shard() {
    let dir = temp_dir("merge-link-out");
    let secret = dir.join("secret.txt");
    std::fs::write(&secret, "private").unwrap();
    let s = dir.join("s1");
    shard(&s, "a/x");
    symlink(&secret, s.join("img/x.png")).unwrap();
    let out = dir.join("merged");
    let e = merge(std::slice::from_ref(&s), &out)
        .unwrap_err()
        .to_string();
    assert!(e.contains("img/x.png: not a regular file"), "{e}");
    assert!(!out.join("img/x.png").exists());
    // A linked folder on the way that leads out is refused too.
    let s2 = dir.join("s2");
    shard(&s2, "a/x");
    std::fs::remove_dir(s2.join("img")).unwrap();
    let outside = dir.join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("x.png"), "private").unwrap();
    symlink(&outside, s2.join("img")).unwrap();
    let e = merge(&[s2], &dir.join("merged2")).unwrap_err().to_string();
    assert!(e.contains("outside the shard"), "{e}");
    // The shard's own regular file is copied.
    std::fs::remove_file(s.join("img/x.png")).unwrap();
    std::fs::write(s.join("img/x.png"), "png").unwrap();
    merge(&[s], &out).unwrap();
    assert_eq!(std::fs::read(out.join("img/x.png")).unwrap(), b"png");
}

#[test]
fn merge_never_writes_into_a_shard_through_a_link() {
    let dir = temp_dir("merge-link-in");
    let s = dir.join("s1");
    shard(&s, "a/x");
    std::fs::write(s.join("img/x.png"), "png").unwrap();
    let before = std::fs::read(s.join("results.json")).unwrap();
    let out = dir.join("merged");
    std::fs::create_dir_all(&out).unwrap();
    symlink(s.join("results.json"), out.join("results.json")).unwrap();
    let e = merge(std::slice::from_ref(&s), &out)
        .unwrap_err()
        .to_string();
    assert!(e.contains("an input"), "{e}");
    assert_eq!(std::fs::read(s.join("results.json")).unwrap(), before);
    // An `img` folder that is a link into the shard: refused before anything is copied.
    let out2 = dir.join("merged2");
    std::fs::create_dir_all(&out2).unwrap();
    symlink(s.join("img"), out2.join("img")).unwrap();
    let e = merge(std::slice::from_ref(&s), &out2)
        .unwrap_err()
        .to_string();
    assert!(e.contains("an input"), "{e}");
    assert_eq!(std::fs::read(s.join("results.json")).unwrap(), before);
}

#[test]
fn calibrated_file_may_not_replace_a_golden() {
    let dir = temp_dir("calibrated-golden");
    let refimages = dir.join("refimages");
    let area = refimages.join("raster");
    std::fs::create_dir_all(&area).unwrap();
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("refimages/raster");
    let case = std::fs::read_dir(&src)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "png"))
        .min()
        .expect("a raster golden");
    let stem = case.file_stem().unwrap().to_str().unwrap().to_owned();
    for ext in ["json", "png", "bin"] {
        let from = src.join(format!("{stem}.{ext}"));
        if from.exists() {
            std::fs::copy(&from, area.join(format!("{stem}.{ext}"))).unwrap();
        }
    }
    let golden = area.join(format!("{stem}.png"));
    let before = std::fs::read(&golden).unwrap();
    let out = plumb(
        &dir,
        &[
            "conform",
            "--refimages",
            "refimages",
            "--calibrate",
            "1",
            "--calibrated",
            &format!("refimages/raster/{stem}.png"),
        ],
    );
    assert_bad_input(&out, "the corpus");
    assert_eq!(std::fs::read(&golden).unwrap(), before);
}

/// A one-triangle glTF with its buffer inline.
const TRIANGLE: &str = r#"{"asset":{"version":"2.0"},"scene":0,"scenes":[{"nodes":[0]}],
"nodes":[{"mesh":0}],"meshes":[{"primitives":[{"attributes":{"POSITION":0}}]}],
"accessors":[{"bufferView":0,"componentType":5126,"count":3,"type":"VEC3","min":[0,0,0],"max":[1,1,0]}],
"bufferViews":[{"buffer":0,"byteLength":36}],
"buffers":[{"byteLength":36,"uri":"data:application/octet-stream;base64,AAAAAAAAAAAAAAAAAACAPwAAAAAAAAAAAAAAAAAAgD8AAAAA"}]}"#;

#[test]
fn render_outputs_never_replace_the_model() {
    let dir = temp_dir("render-onto-model");
    std::fs::write(dir.join("t.gltf"), TRIANGLE).unwrap();
    symlink(dir.join("t.gltf"), dir.join("link.png")).unwrap();
    symlink(dir.join("t.gltf"), dir.join("seq_0001.png")).unwrap();
    for args in [
        &["render", "t.gltf", "-o", "t.gltf"][..],
        &["render", "t.gltf", "-o", "link.png"],
        &["render", "t.gltf", "--frames", "3", "-o", "seq.png"],
        &[
            "render",
            "t.gltf",
            "-o",
            "ok.png",
            "--depth-out",
            "link.png",
        ],
    ] {
        let out = plumb(&dir, args);
        assert_bad_input(&out, "which is the scene file");
        assert_eq!(
            std::fs::read_to_string(dir.join("t.gltf")).unwrap(),
            TRIANGLE
        );
    }
    // A link to another file is replaced by the image, not written through.
    std::fs::write(dir.join("other.txt"), "keep").unwrap();
    symlink(dir.join("other.txt"), dir.join("out.png")).unwrap();
    let out = plumb(
        &dir,
        &["render", "t.gltf", "-o", "out.png", "--size", "8x8"],
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("other.txt")).unwrap(),
        "keep"
    );
    assert!(!std::fs::symlink_metadata(dir.join("out.png"))
        .unwrap()
        .is_symlink());
    assert!(image::open(dir.join("out.png")).is_ok());
}

#[test]
fn the_report_may_not_lead_into_the_corpus() {
    let dir = temp_dir("report-in-corpus");
    std::fs::create_dir_all(dir.join("refimages/raster")).unwrap();
    symlink(dir.join("refimages/raster"), dir.join("out")).unwrap();
    for report in ["refimages/report", "out"] {
        let o = plumb(
            &dir,
            &["conform", "--refimages", "refimages", "--report", report],
        );
        assert_bad_input(&o, "inside the corpus refimages, an input");
    }
}
