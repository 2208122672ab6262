//! Calibrated cameras as vision tools give them (issue 54, item 2): `--pose` a camera-to-world
//! matrix in the OpenGL or OpenCV convention, `--intrinsics FX,FY,CX,CY` in pixels. The
//! projection is exact for the intrinsics: a point lands where OpenCV's `projectPoints`
//! formula puts it, `u = FX·X/Z + CX`, `v = FY·Y/Z + CY` with `(0, 0)` the centre of the
//! top-left pixel — plumb's window coordinates `(u + 0.5, v + 0.5)`.

use std::path::Path;

use glam::{Mat3, Vec3, Vec4Swizzles};
use plumb::model::camera::{intrinsics_frustum, pose_frame, PoseConvention};
use plumb::scene::Camera;
use serde_json::json;

use crate::cli_common::{assert_bad_input, assert_success, plumb, temp_dir};

/// Non-square pixels, an off-centre principal point, a 64 × 48 image.
const K: [f32; 4] = [40.0, 50.0, 30.0, 20.0];
const SIZE: (u32, u32) = (64, 48);

/// An OpenCV camera at `(1, 2, −3)`, turned 30° about the world's y axis: its camera-to-world
/// rotation (columns: the camera's x, y, z in the world) and position.
fn opencv_pose() -> (Mat3, Vec3) {
    (
        Mat3::from_rotation_y(30f32.to_radians()),
        Vec3::new(1.0, 2.0, -3.0),
    )
}

/// The pose as `--pose` takes it: 16 numbers, row-major.
fn pose_arg(r: Mat3, t: Vec3) -> String {
    let rows = [
        [r.x_axis.x, r.y_axis.x, r.z_axis.x, t.x],
        [r.x_axis.y, r.y_axis.y, r.z_axis.y, t.y],
        [r.x_axis.z, r.y_axis.z, r.z_axis.z, t.z],
        [0.0, 0.0, 0.0, 1.0],
    ];
    let v: Vec<String> = rows.iter().flatten().map(|x| format!("{x:?}")).collect();
    v.join(",")
}

/// OpenCV's pixel of the camera-space point `p` (OpenCV axes).
fn project([fx, fy, cx, cy]: [f32; 4], p: Vec3) -> (f32, f32) {
    (fx * p.x / p.z + cx, fy * p.y / p.z + cy)
}

/// The frame and frustum put together as `choose_camera` does, then its clip transform:
/// every point lands within 10⁻³ pixel of OpenCV's pixel + 0.5, in both conventions.
#[test]
fn the_projection_is_opencv_exact() {
    let (r, t) = opencv_pose();
    let near = 0.1;
    for (convention, r_given) in [
        (PoseConvention::OpenCv, r),
        // The same camera in OpenGL axes: y and z flipped.
        (
            PoseConvention::OpenGl,
            Mat3::from_cols(r.x_axis, -r.y_axis, -r.z_axis),
        ),
    ] {
        let pose: Vec<f32> = pose_arg(r_given, t)
            .split(',')
            .map(|x| x.parse().unwrap())
            .collect();
        let (location, rotation) = pose_frame(&pose.try_into().unwrap(), convention).unwrap();
        let mut camera = Camera::perspective(1.0, 1.0, near, 100.0).unwrap();
        camera.set_axes(location, rotation).unwrap();
        let (l, rt, b, tp) = intrinsics_frustum(K, SIZE.0, SIZE.1, near);
        camera.set_frustum(l, rt, b, tp, near, 100.0).unwrap();
        let clip = camera.clip_from_world();
        for (i, cam) in [
            Vec3::new(0.0, 0.0, 5.0),
            Vec3::new(-2.0, 1.0, 4.0),
            Vec3::new(3.5, -2.5, 9.0),
            Vec3::new(0.3, 0.7, 0.5),
        ]
        .into_iter()
        .enumerate()
        {
            let world = r * cam + t;
            let c = clip * world.extend(1.0);
            let ndc = c.xyz() / c.w;
            let (x, y) = (
                (ndc.x + 1.0) * 0.5 * SIZE.0 as f32,
                (1.0 - ndc.y) * 0.5 * SIZE.1 as f32,
            );
            let (u, v) = project(K, cam);
            assert!(
                (x - (u + 0.5)).abs() < 1e-3 && (y - (v + 0.5)).abs() < 1e-3,
                "{convention:?} point {i}: window ({x}, {y}), OpenCV ({u}, {v}) + 0.5"
            );
        }
    }
}

/// Rendered: squares of 3 × 3 pixels facing the camera, centred on points whose OpenCV
/// pixels are whole numbers, land on exactly those 3 × 3 pixels (the squares' edges lie half
/// a pixel from the nearest pixel centres, so a projection off by a pixel moves them).
#[test]
fn rendered_points_land_on_opencv_pixels() {
    let dir = temp_dir("intrinsics");
    let (r, t) = opencv_pose();
    let [fx, fy, cx, cy] = K;
    let pixels = [(10, 12, 4.0f32), (45, 30, 6.0), (30, 20, 5.0), (55, 5, 3.0)];
    let mut children = Vec::new();
    for (k, &(u, v, z)) in pixels.iter().enumerate() {
        let centre = Vec3::new((u as f32 - cx) * z / fx, (v as f32 - cy) * z / fy, z);
        let (hx, hy) = (1.5 * z / fx, 1.5 * z / fy);
        let corners = [(-hx, -hy), (hx, -hy), (hx, hy), (-hx, hy)]
            .map(|(dx, dy)| (r * (centre + Vec3::new(dx, dy, 0.0)) + t).to_array());
        children.push(json!({"name": format!("m{k}"), "mesh": {"inline": {
            "positions": corners, "colors": [[1, 1, 1, 1], [1, 1, 1, 1], [1, 1, 1, 1], [1, 1, 1, 1]],
            "indices": [0, 1, 2, 0, 2, 3, 0, 2, 1, 0, 3, 2]}}}));
    }
    let doc = json!({"format": "plumb-scene", "version": 1, "root": {"children": children}});
    std::fs::write(dir.join("m.json"), doc.to_string()).unwrap();
    let render = |out: &str, pose: &str, convention: &str| {
        let o = plumb(
            &dir,
            &[
                "render",
                "m.json",
                "-o",
                out,
                "--size",
                "64x48",
                "--background",
                "0,0,0,1",
                "--pose",
                pose,
                "--pose-convention",
                convention,
                "--intrinsics",
                "40,50,30,20",
                "--near",
                "0.1",
                "--far",
                "100",
            ],
        );
        assert_success(&o);
        image::open(dir.join(out)).unwrap().to_rgba8()
    };
    let gl = Mat3::from_cols(r.x_axis, -r.y_axis, -r.z_axis);
    for img in [
        render("cv.png", &pose_arg(r, t), "opencv"),
        render("gl.png", &pose_arg(gl, t), "opengl"),
    ] {
        let lit: Vec<(i32, i32)> = img
            .enumerate_pixels()
            .filter(|(_, _, p)| p.0[0] > 128)
            .map(|(x, y, _)| (x as i32, y as i32))
            .collect();
        let mut want: Vec<(i32, i32)> = pixels
            .iter()
            .flat_map(|&(u, v, _)| {
                (-1..=1).flat_map(move |dy| (-1..=1).map(move |dx| (u + dx, v + dy)))
            })
            .collect();
        want.sort_by_key(|&(x, y)| (y, x));
        assert_eq!(lit, want);
    }
}

#[test]
fn bad_poses_and_intrinsics_are_refused() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/examples");
    let run = |extra: &[&str]| {
        let mut args = vec!["render", "inline.json", "-o", "/nonexistent-plumb/x.png"];
        args.extend_from_slice(extra);
        plumb(&dir, &args)
    };
    let id = "1,0,0,0,0,1,0,0,0,0,1,5,0,0,0,1";
    assert_bad_input(
        &run(&["--pose", "1,0,0,0,0,1,0,0,0,0,1,5,0,0,1,1"]),
        "last row",
    );
    assert_bad_input(
        &run(&["--pose", "2,0,0,0,0,1,0,0,0,0,1,5,0,0,0,1"]),
        "not a rotation",
    );
    // A reflection (determinant −1).
    assert_bad_input(
        &run(&["--pose", "-1,0,0,0,0,1,0,0,0,0,1,5,0,0,0,1"]),
        "not a rotation",
    );
    assert_bad_input(&run(&["--pose", "1,0,0"]), "16");
    assert_bad_input(&run(&["--pose", id, "--eye", "0,0,5"]), "--eye");
    assert_bad_input(&run(&["--intrinsics", "0,50,30,20"]), "focal lengths");
    assert_bad_input(
        &run(&["--intrinsics", "40,50,30,20", "--fov", "40"]),
        "--fov",
    );
    assert_bad_input(&run(&["--pose-convention", "directx"]), "directx");
}

/// `--depth-out DEPTH.npy` is metric depth: a NumPy file of float32 distances along the
/// viewing axis, 0 where nothing was drawn. A square facing the camera at z = 7 reads 7
/// (within 10⁻⁵ relative) on its pixels; a draw trace has no camera and is refused.
#[test]
fn depth_out_npy_is_the_distance_along_the_axis() {
    let dir = temp_dir("metric-depth");
    let doc = json!({"format": "plumb-scene", "version": 1, "root": {"children": [
        {"name": "sq", "mesh": {"inline": {
            "positions": [[-1, -1, 7], [1, -1, 7], [1, 1, 7], [-1, 1, 7]],
            "indices": [0, 1, 2, 0, 2, 3, 0, 2, 1, 0, 3, 2]}}}]}});
    std::fs::write(dir.join("sq.json"), doc.to_string()).unwrap();
    let o = plumb(
        &dir,
        &[
            "render",
            "sq.json",
            "-o",
            "c.png",
            "--size",
            "32x24",
            "--depth-out",
            "d.npy",
            "--pose",
            "1,0,0,0,0,1,0,0,0,0,1,0,0,0,0,1",
            "--pose-convention",
            "opencv",
            "--intrinsics",
            "20,20,15.5,11.5",
            "--near",
            "0.5",
            "--far",
            "40",
        ],
    );
    assert_success(&o);
    let bytes = std::fs::read(dir.join("d.npy")).unwrap();
    assert!(bytes.starts_with(b"\x93NUMPY\x01\x00"));
    let header_len = usize::from(u16::from_le_bytes([bytes[8], bytes[9]]));
    let header = std::str::from_utf8(&bytes[10..10 + header_len]).unwrap();
    assert!(
        header.contains("'descr': '<f4'") && header.contains("'shape': (24, 32)"),
        "{header}"
    );
    assert_eq!((10 + header_len) % 64, 0);
    let values: Vec<f32> = bytes[10 + header_len..]
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    assert_eq!(values.len(), 32 * 24);
    // The square spans u = 15.5 ± 20/7·… : x in 15.5 ± 2.86, y in 11.5 ± 2.86.
    let at = |x: usize, y: usize| values[y * 32 + x];
    for (x, y) in [(15, 11), (14, 10), (17, 13)] {
        assert!(
            (at(x, y) - 7.0).abs() / 7.0 < 1e-5,
            "({x}, {y}): {}",
            at(x, y)
        );
    }
    assert_eq!(at(0, 0), 0.0);
    assert_eq!(
        values.iter().filter(|&&v| v > 0.0).count(),
        36,
        "6 x 6 pixels drawn"
    );
    let trace = Path::new(env!("CARGO_MANIFEST_DIR")).join("refimages/raster/blend_grid.json");
    let o = plumb(
        &dir,
        &[
            "render",
            trace.to_str().unwrap(),
            "-o",
            "t.png",
            "--depth-out",
            "t.npy",
        ],
    );
    assert_bad_input(&o, "metric depth needs a scene");
}

/// `--ids-out` and `--normals-out`: the object id (a scene file's `object_id`) and the normal
/// of the surface each pixel's depth holds, as 16-bit PNG / RGB PNG here (the `.npy` forms
/// are compared with Python's in `python/tests`). Ids a 16-bit PNG cannot hold, id 0 and a
/// draw trace are refused.
#[test]
fn ids_and_normals_out() {
    let dir = temp_dir("ids-normals");
    let scene = |id: u32| {
        json!({"format": "plumb-scene", "version": 1, "root": {"children": [
            {"name": "sq", "object_id": id, "mesh": {"inline": {
                "positions": [[-1, -1, 7], [1, -1, 7], [1, 1, 7], [-1, 1, 7]],
                "normals": [[0, 0, -1], [0, 0, -1], [0, 0, -1], [0, 0, -1]],
                "indices": [0, 1, 2, 0, 2, 3, 0, 2, 1, 0, 3, 2]}}}]}})
        .to_string()
    };
    let render = |file: &str, space: &str| {
        let args = [
            "render",
            file,
            "-o",
            "c.png",
            "--size",
            "32x24",
            "--ids-out",
            "i.png",
            "--normals-out",
            "n.png",
            "--normals-space",
            space,
            "--pose",
            "1,0,0,0,0,1,0,0,0,0,1,0,0,0,0,1",
            "--pose-convention",
            "opencv",
            "--intrinsics",
            "20,20,15.5,11.5",
        ];
        plumb(&dir, &args)
    };
    std::fs::write(dir.join("sq.json"), scene(300)).unwrap();
    for (space, normal) in [("camera", [128, 128, 255]), ("world", [128, 128, 0])] {
        assert_success(&render("sq.json", space));
        let ids = image::open(dir.join("i.png")).unwrap().into_luma16();
        let normals = image::open(dir.join("n.png")).unwrap().into_rgba8();
        assert_eq!(ids.get_pixel(15, 11).0, [300]);
        assert_eq!(ids.get_pixel(0, 0).0, [0]);
        assert_eq!(ids.pixels().filter(|p| p.0 == [300]).count(), 36);
        let n = normals.get_pixel(15, 11).0;
        assert_eq!(
            [n[0], n[1], n[2], n[3]],
            [normal[0], normal[1], normal[2], 255],
            "{space}"
        );
        assert_eq!(normals.get_pixel(0, 0).0, [0; 4]);
    }
    std::fs::write(dir.join("big.json"), scene(70_000)).unwrap();
    assert_bad_input(&render("big.json", "camera"), "does not fit a 16-bit PNG");
    std::fs::write(dir.join("zero.json"), scene(0)).unwrap();
    assert_bad_input(&render("zero.json", "camera"), "object_id 0");
    let trace = Path::new(env!("CARGO_MANIFEST_DIR")).join("refimages/raster/blend_grid.json");
    let o = plumb(
        &dir,
        &[
            "render",
            trace.to_str().unwrap(),
            "-o",
            "t.png",
            "--ids-out",
            "t.npy",
        ],
    );
    assert_bad_input(&o, "--ids-out");
}
