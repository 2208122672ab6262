//! `plumb render --environment` (issue 53): the image-based light end to end, from a Radiance
//! `.hdr` file the test writes. The expected pixels are the white furnace's: a white sphere,
//! rough or metal, under a constant environment of radiance 1 and no lights reflects all of
//! it, so it is written as sRGB 1.0 (within 1 %, the test's 252..=255); malformed files are
//! errors naming the file, never panics.

use std::path::Path;

use serde_json::json;

use crate::cli_common::*;

/// A constant equirectangular `.hdr` of radiance `c`.
fn write_hdr(path: &Path, w: u32, h: u32, c: f32) {
    let pixels = vec![image::Rgb([c, c, c]); (w * h) as usize];
    let f = std::fs::File::create(path).unwrap();
    image::codecs::hdr::HdrEncoder::new(std::io::BufWriter::new(f))
        .encode(&pixels, w as usize, h as usize)
        .unwrap();
}

/// A scene file without lights: one sphere of the given PBR material, seen from +z.
fn write_sphere(path: &Path, metallic: f32, roughness: f32) {
    let doc = json!({
        "format": "plumb-scene", "version": 1,
        "background": [0, 0, 0, 1],
        "cameras": [{"name": "main", "eye": [0, 0, 6], "target": [0, 0, 0],
                     "fov_y_degrees": 30, "near": 1, "far": 20}],
        "root": {"children": [{"name": "ball",
            "mesh": {"sphere": {"radius": 1.0, "stacks": 32, "slices": 64}},
            "effect": {"pbr": {"base_color": [1, 1, 1, 1],
                               "metallic": metallic, "roughness": roughness}}}]}
    });
    std::fs::write(path, serde_json::to_string_pretty(&doc).unwrap()).unwrap();
}

#[test]
fn a_white_sphere_in_a_constant_environment_file_is_white() {
    let dir = temp_dir("environment-furnace");
    write_hdr(&dir.join("one.hdr"), 64, 32, 1.0);
    for (name, metallic, roughness) in [("rough", 0.0, 1.0), ("metal", 1.0, 0.4), ("mid", 0.5, 0.6)]
    {
        let scene = format!("{name}.json");
        write_sphere(&dir.join(&scene), metallic, roughness);
        let out = format!("{name}.png");
        let o = plumb(
            &dir,
            &[
                "render",
                &scene,
                "-o",
                &out,
                "--size",
                "96x96",
                "--shading",
                "pbr",
                "--environment",
                "one.hdr",
            ],
        );
        assert_success(&o);
        let img = image::open(dir.join(&out)).unwrap().to_rgba8();
        // The sphere's middle half (the disc spans about 60 % of the image).
        for y in 34..62 {
            for x in 34..62 {
                let p = img.get_pixel(x, y).0;
                assert!(
                    p[..3].iter().all(|&c| c >= 252),
                    "{name} ({x}, {y}): {p:?}, expected white within 1 %"
                );
            }
        }
        // Without the environment and without lights the sphere is black.
        let dark = format!("{name}-none.png");
        let o = plumb(
            &dir,
            &[
                "render",
                &scene,
                "-o",
                &dark,
                "--size",
                "96x96",
                "--shading",
                "pbr",
                "--environment",
                "none",
            ],
        );
        assert_success(&o);
        let img = image::open(dir.join(&dark)).unwrap().to_rgba8();
        assert_eq!(img.get_pixel(48, 48).0, [0, 0, 0, 255], "{name}");
    }
}

#[test]
fn bad_environment_files_are_errors_naming_the_file() {
    let dir = temp_dir("environment-bad");
    write_sphere(&dir.join("s.json"), 1.0, 0.2);
    // Not an image, a truncated Radiance file, a huge declared size, a missing file.
    std::fs::write(dir.join("text.hdr"), "hello").unwrap();
    write_hdr(&dir.join("full.hdr"), 16, 8, 0.5);
    let full = std::fs::read(dir.join("full.hdr")).unwrap();
    std::fs::write(dir.join("cut.hdr"), &full[..full.len() / 2]).unwrap();
    std::fs::write(
        dir.join("huge.hdr"),
        b"#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n-Y 200000 +X 200000\n\x02\x02\x00\x00",
    )
    .unwrap();
    for file in ["text.hdr", "cut.hdr", "huge.hdr", "missing.hdr"] {
        let o = plumb(
            &dir,
            &[
                "render",
                "s.json",
                "-o",
                "x.png",
                "--size",
                "32x32",
                "--shading",
                "pbr",
                "--environment",
                file,
            ],
        );
        assert_bad_input(&o, file);
        assert!(stderr(&o).contains("--environment"), "{}", stderr(&o));
    }
    let o = plumb(
        &dir,
        &[
            "render",
            "s.json",
            "-o",
            "x.png",
            "--size",
            "32x32",
            "--shading",
            "pbr",
            "--environment",
            "studio",
            "--environment-intensity=-1",
        ],
    );
    assert_bad_input(&o, "negative");
}

/// `plumb explain` names the environment's radiance and what each lobe makes of it.
#[test]
fn explain_shows_the_environment_terms() {
    let dir = temp_dir("environment-explain");
    write_sphere(&dir.join("s.json"), 1.0, 0.3);
    let o = plumb(
        &dir,
        &[
            "explain",
            "s.json",
            "48",
            "48",
            "--size",
            "96x96",
            "--shading",
            "pbr",
            "--environment",
            "studio",
        ],
    );
    assert_success(&o);
    let text = stdout(&o);
    for term in [
        "pbr_environment",
        "environment_diffuse",
        "environment_specular",
        "environment_specular_part",
        "environment_diffuse_part",
    ] {
        assert!(text.contains(term), "{term} missing:\n{text}");
    }
}
