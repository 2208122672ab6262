//! The optional planes (`plumb_raster::target`): an object id and an eye-space normal per
//! pixel, written by exactly the fragments that write depth. Checked against analytic
//! expectations at every SIMD level, for every size class of the tile walk (row spans, the
//! scanned block and the lanes block), and against the same frame drawn without the planes
//! (whose colour and depth bytes they must not change).

use glam::{Mat3, Mat4, Vec3, Vec4};
use plumb_raster::*;

use crate::common::{at_every_level, finish_frame, win};

const W: u32 = 96;
const H: u32 = 80;

/// Two triangles covering the pixels `[x0, x1) × [y0, y1)` at window depth `z` (clip z, with
/// `w = 1`: the depth stored is `(z + 1) / 2`).
fn rect(c: &Context, [x0, y0, x1, y1]: [f32; 4], z: f32) -> Vec<Vec4> {
    let p = |x, y| win(c, x, y, z);
    vec![
        p(x0, y0),
        p(x0, y1),
        p(x1, y0),
        p(x1, y0),
        p(x0, y1),
        p(x1, y1),
    ]
}

/// The same rectangle as many small triangles (two per `cell × cell` square), so that the
/// tile walk takes its block classes.
fn small_rects(c: &Context, [x0, y0, x1, y1]: [f32; 4], cell: f32, z: f32) -> Vec<Vec4> {
    let mut out = Vec::new();
    let mut y = y0;
    while y < y1 {
        let mut x = x0;
        while x < x1 {
            out.extend(rect(c, [x, y, x + cell, y + cell], z));
            x += cell;
        }
        y += cell;
    }
    out
}

/// The scene of [`ids_name_the_surface_the_depth_test_kept`], drawn at `level` with `threads`
/// workers, with or without the planes: its frame and, with them, the id plane.
fn scene(level: SimdLevel, threads: usize, planes: bool) -> (crate::common::Frame, Vec<u32>) {
    let mut c = crate::common::ctx(W, H, threads);
    c.set_simd_level(level).unwrap();
    if planes {
        c.enable_planes(Planes {
            ids: true,
            normals: true,
        });
    }
    let st = c.default_state();
    let draw = |c: &mut Context, id: u32, st: &PipelineState, pos: &[Vec4], rgb: Vec3| {
        c.set_object_id(id);
        crate::common::tris(c, st, pos, rgb.extend(1.0));
    };
    // A (id 7) and B (id 9, nearer) overlap in x 40..60: B wins there, whichever comes first.
    let a = rect(&c, [10.0, 5.0, 60.0, 45.0], 0.5);
    let b = rect(&c, [40.0, 20.0, 90.0, 60.0], 0.2);
    draw(&mut c, 9, &st, &b, Vec3::X);
    draw(&mut c, 7, &st, &a, Vec3::Y);
    // C (id 11) behind everything fills only what is still at the cleared depth.
    let all = rect(&c, [0.0, 0.0, W as f32, H as f32], 0.9);
    draw(&mut c, 11, &st, &all, Vec3::Z);
    // D (id 13) is nearest but writes no depth: colour changes, ids do not.
    let no_write = PipelineState {
        depth: DepthState {
            func: CompareFunc::Less,
            write: false,
        },
        ..st
    };
    let d = rect(&c, [0.0, 60.0, 30.0, 80.0], -0.5);
    draw(&mut c, 13, &no_write, &d, Vec3::ONE);
    // E (id 15): small triangles, 2×2 and 5×5 pixel cells (the lanes and scanned blocks).
    let e = small_rects(&c, [64.0, 64.0, 96.0, 80.0], 2.0, 0.1);
    draw(&mut c, 15, &st, &e, Vec3::new(1.0, 1.0, 0.0));
    let f = small_rects(&c, [0.0, 45.0, 30.0, 60.0], 5.0, 0.1);
    draw(&mut c, 17, &st, &f, Vec3::new(0.0, 1.0, 1.0));
    let frame = finish_frame(&mut c);
    let ids = c.target().id_values().unwrap_or_default();
    (frame, ids)
}

/// What the id plane must hold: the nearest depth-writing rectangle covering each pixel
/// centre.
fn expected_ids() -> Vec<u32> {
    let inside =
        |[x0, y0, x1, y1]: [u32; 4], x: u32, y: u32| x0 <= x && x < x1 && y0 <= y && y < y1;
    let mut out = Vec::new();
    for y in 0..H {
        for x in 0..W {
            // Nearest first.
            let id = if inside([64, 64, 96, 80], x, y) {
                15
            } else if inside([0, 45, 30, 60], x, y) {
                17
            } else if inside([40, 20, 90, 60], x, y) {
                9
            } else if inside([10, 5, 60, 45], x, y) {
                7
            } else {
                11
            };
            out.push(id);
        }
    }
    out
}

#[test]
fn ids_name_the_surface_the_depth_test_kept() {
    let (frame, ids) = at_every_level(|level| scene(level, 1, true));
    let expected = expected_ids();
    for y in 0..H as usize {
        for x in 0..W as usize {
            let i = y * W as usize + x;
            assert_eq!(ids[i], expected[i], "id at ({x}, {y})");
        }
    }
    // The same frame without the planes: the same colour and depth bytes.
    let (plain, none) = at_every_level(|level| scene(level, 1, false));
    assert!(none.is_empty());
    assert!(
        frame == plain,
        "the planes changed the colour or depth bytes"
    );
    for threads in [2, 7] {
        assert!(scene(SimdLevel::available()[0], threads, true) == (frame.clone(), ids.clone()));
    }
}

/// A quad facing +Y in model space, seen through a view that rotates it: its eye-space normal
/// is the view's rotation of +Y, in every pixel it covers, unit length; a mesh without
/// normals writes zero; ids and normals are cleared with depth.
#[test]
fn normals_are_the_eye_space_normals_of_the_surface() {
    let rot = Mat4::from_rotation_x(-0.9) * Mat4::from_rotation_y(0.4);
    let expected = Mat3::from_mat4(rot) * Vec3::Y;
    let run = |level: SimdLevel, per_pixel: bool, normals: bool| {
        let mut c = crate::common::ctx(32, 32, 1);
        c.set_simd_level(level).unwrap();
        c.enable_planes(Planes {
            ids: false,
            normals: true,
        });
        let p = [
            Vec3::new(-3.0, 0.0, -3.0),
            Vec3::new(3.0, 0.0, -3.0),
            Vec3::new(3.0, 0.0, 3.0),
            Vec3::new(-3.0, 0.0, 3.0),
        ];
        let n = [Vec3::Y; 4];
        let mut lighting = light::LightingState::DEFAULT;
        lighting.lights[0] = Some(light::Light::new(light::LightKind::Directional {
            direction: Vec3::new(0.0, -1.0, -1.0),
        }));
        let ff = FixedFunction {
            lighting: normals.then_some(lighting),
            per_pixel_lighting: per_pixel,
            fog: None,
            units: Vec::new(),
        };
        let mesh = MeshInput {
            positions: &p,
            normals: normals.then_some(&n[..]),
            colors: None,
            uvs: &[],
        };
        let t = Transforms {
            view_from_model: Mat4::from_translation(Vec3::new(0.0, 0.0, -4.0)) * rot,
            clip_from_view: Mat4::perspective_rh(1.2, 1.0, 0.1, 50.0),
        };
        let idx = [0u16, 1, 2, 0, 2, 3];
        c.draw_fixed(
            &c.default_state(),
            &ff,
            &t,
            &mesh,
            Indices::U16(&idx),
            Topology::TriangleList,
        )
        .unwrap();
        let depth = c.target().depth_values();
        let normals = c.target().normal_values().unwrap();
        c.clear(Vec4::ZERO, 1.0, 0);
        let cleared = c.target().normal_values().unwrap();
        assert!(cleared.iter().all(|n| *n == [0.0; 3]));
        (depth, normals)
    };
    for per_pixel in [false, true] {
        let (depth, normals) = at_every_level(|l| run(l, per_pixel, true));
        let drawn = depth.iter().filter(|d| **d < 1.0).count();
        assert!(drawn > 100, "only {drawn} pixels drawn");
        for (d, n) in depth.iter().zip(&normals) {
            if *d < 1.0 {
                let n = Vec3::from_array(*n);
                assert!((n - expected).length() < 1e-6, "{n} against {expected}");
            } else {
                assert_eq!(*n, [0.0; 3], "a normal where nothing was drawn");
            }
        }
    }
    let (depth, normals) = at_every_level(|l| run(l, false, false));
    assert!(depth.iter().any(|d| *d < 1.0));
    assert!(normals.iter().all(|n| *n == [0.0; 3]));
}
