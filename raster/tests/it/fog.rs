//! Fog factors at known distances and the fog blend, against hand-computed values.

use crate::common;

use common::{at_every_level, fixed_pixel};
use glam::{Vec3, Vec4};
use plumb_raster::fog::{apply_fog, fog_factor, FogDistance, FogMode, FogState};

#[test]
fn linear_fog_at_known_depths() {
    // start 10, end 30: f = (30 − z)/20, clamped.
    let m = FogMode::Linear {
        start: 10.0,
        end: 30.0,
    };
    let rows: [(f32, f32); 7] = [
        (0.0, 1.0),   // 1.5 → 1
        (10.0, 1.0),  // 20/20
        (15.0, 0.75), // 15/20
        (20.0, 0.5),
        (25.0, 0.25),
        (30.0, 0.0),
        (40.0, 0.0), // −0.5 → 0
    ];
    for (z, f) in rows {
        assert_eq!(fog_factor(&m, z), f, "z = {z}");
    }
    // The terrain bench: start 15, end 45 at depth 30 → 15/30 = ½.
    assert_eq!(
        fog_factor(
            &FogMode::Linear {
                start: 15.0,
                end: 45.0
            },
            30.0
        ),
        0.5
    );
    // Degenerate range: a step at `start`.
    let step = FogMode::Linear {
        start: 5.0,
        end: 5.0,
    };
    assert_eq!((fog_factor(&step, 4.0), fog_factor(&step, 5.0)), (1.0, 0.0));
}

#[test]
fn exp_fog_at_known_depths() {
    // density 0.1: f = e^(−0.1z). e^0 = 1, e^−1 = 0.36787944, e^−2 = 0.13533528;
    // z = 10·ln 2 ≈ 6.931472 → ½.
    let m = FogMode::Exp { density: 0.1 };
    let rows: [(f32, f32); 4] = [
        (0.0, 1.0),
        (10.0, 0.367_879_44),
        (20.0, 0.135_335_28),
        (6.931_472, 0.5),
    ];
    for (z, f) in rows {
        assert!(
            (fog_factor(&m, z) - f).abs() < 1e-6,
            "z = {z}: {}",
            fog_factor(&m, z)
        );
    }
}

#[test]
fn exp2_fog_at_known_depths() {
    // density 0.05: f = e^(−(0.05z)²). z = 10 → e^−0.25 = 0.77880078; z = 20 → e^−1 =
    // 0.36787944; z = 40 → e^−4 = 0.01831564.
    let m = FogMode::Exp2 { density: 0.05 };
    let rows: [(f32, f32); 4] = [
        (0.0, 1.0),
        (10.0, 0.778_800_8),
        (20.0, 0.367_879_44),
        (40.0, 0.018_315_64),
    ];
    for (z, f) in rows {
        assert!(
            (fog_factor(&m, z) - f).abs() < 1e-6,
            "z = {z}: {}",
            fog_factor(&m, z)
        );
    }
}

#[test]
fn fog_blend() {
    // c = (1, 0.5, 0, 0.8), fog = (0, 0.5, 1, 1), f = ¼:
    // ¼·c + ¾·fog = (0.25, 0.125 + 0.375, 0.75) = (0.25, 0.5, 0.75); alpha stays 0.8.
    let c = Vec4::new(1.0, 0.5, 0.0, 0.8);
    let fog = Vec4::new(0.0, 0.5, 1.0, 1.0);
    assert_eq!(apply_fog(c, 0.25, fog), Vec4::new(0.25, 0.5, 0.75, 0.8));
    // f = 1 keeps the colour; f = 0 gives the fog colour (alpha untouched).
    assert_eq!(apply_fog(c, 1.0, fog), c);
    assert_eq!(apply_fog(c, 0.0, fog), Vec4::new(0.0, 0.5, 1.0, 0.8));
}

#[test]
fn distances_and_state() {
    // (3, 4, −12): eye depth |z| = 12; radial √(9 + 16 + 144) = 13.
    let p = Vec3::new(3.0, 4.0, -12.0);
    assert_eq!(FogDistance::EyeDepth.distance(p), 12.0);
    assert_eq!(FogDistance::Radial.distance(p), 13.0);
    let mut s = FogState {
        mode: FogMode::Linear {
            start: 10.0,
            end: 14.0,
        },
        ..FogState::default()
    };
    // Eye depth 12 → (14 − 12)/4 = ½; radial 13 → ¼.
    assert_eq!(s.factor_at(p), 0.5);
    s.distance = FogDistance::Radial;
    assert_eq!(s.factor_at(p), 0.25);
    // Book defaults: linear 0..1, colour (0,0,0,1), eye depth, per vertex.
    let d = FogState::default();
    assert_eq!(
        d.mode,
        FogMode::Linear {
            start: 0.0,
            end: 1.0
        }
    );
    assert_eq!(
        (d.color, d.distance, d.per_pixel),
        (Vec4::new(0.0, 0.0, 0.0, 1.0), FogDistance::EyeDepth, false)
    );
    // NaN distance → full fog, never NaN.
    assert_eq!(fog_factor(&FogMode::Exp { density: 1.0 }, f32::NAN), 0.0);
}

/// The fog stages of the fragment pipeline, drawn at every SIMD level (one expectation).
#[test]
fn fog_through_the_pipeline_at_every_level() {
    use plumb_raster::FixedFunction;
    let white = Vec4::new(1.0, 1.0, 1.0, 1.0);
    let fog = |mode, per_pixel| FixedFunction {
        fog: Some(FogState {
            mode,
            color: Vec4::new(0.0, 0.2, 0.4, 1.0),
            distance: FogDistance::EyeDepth,
            per_pixel,
        }),
        ..Default::default()
    };
    // Linear 10..30 at depth 15: f = ¾ → rgb = ¾·1 + ¼·fog = (0.75, 0.8, 0.85):
    // 191.25, 204, 216.75 → 191, 204, 217.
    let linear = FogMode::Linear {
        start: 10.0,
        end: 30.0,
    };
    for per_pixel in [false, true] {
        let got = at_every_level(|l| fixed_pixel(l, &fog(linear, per_pixel), white, -15.0));
        assert_eq!(got, [191, 204, 217, 255], "per pixel: {per_pixel}");
    }
    // Exp, density ln2/10 at depth 10: f = ½ → (0.5, 0.6, 0.7) → 128, 153, 179 (178.5 up).
    let exp = FogMode::Exp {
        density: core::f32::consts::LN_2 / 10.0,
    };
    let got = at_every_level(|l| fixed_pixel(l, &fog(exp, true), white, -10.0));
    for (g, w) in got.iter().zip([128u8, 153, 178]) {
        assert!(g.abs_diff(w) <= 1, "{got:?}");
    }
    // Exp2, density 0.1 at depth 10: f = e^−1 = 0.3679 → r = 93.8 → 94.
    let exp2 = FogMode::Exp2 { density: 0.1 };
    let got = at_every_level(|l| fixed_pixel(l, &fog(exp2, true), white, -10.0));
    assert_eq!(got[0], 94, "{got:?}");
}

/// Per-vertex fog (GL 1.4 §3.10: the fog factor may be computed per vertex and interpolated),
/// for `EXP` and `EXP2`: the factor is evaluated at each vertex and interpolated, not
/// recomputed from the interpolated depth. A white quad under an orthographic projection
/// (so interpolation is linear in screen space) on 4×4, its left edge at x_ndc = −0.75
/// (eye depth `near`), its right edge at 0.25 (eye depth `far`); pixel column 1 (centre
/// x_ndc = −0.25) sits half way. Fog colour black, so the red byte is `f·255`.
///
/// - `EXP`, density ln 2/10, depths 10 and 30: f = ½ and ⅛ at the vertices, ½·(½ + ⅛) =
///   0.3125 half way → 79.7 → 80 (per pixel: f(20) = ¼ → 63.75 → 64).
/// - `EXP2`, density √(ln 2)/10, depths 10 and 20: f = 2^−1 and 2^−4, half way 9/32 =
///   0.28125 → 71.7 → 72 (per pixel: f(15) = 2^−2.25 = 0.2102 → 53.6 → 54).
#[test]
fn per_vertex_exp_and_exp2_fog_interpolate_the_factor() {
    use glam::{Mat4, Vec3};
    use plumb_raster::{
        FixedFunction, Indices, MeshInput, PipelineState, SimdLevel, Topology, Transforms,
    };
    let pixel = |level: SimdLevel, mode: FogMode, per_pixel: bool, near: f32, far: f32| {
        let mut c = common::ctx(4, 4, 1);
        c.set_simd_level(level).unwrap();
        let ff = FixedFunction {
            fog: Some(FogState {
                mode,
                color: Vec4::new(0.0, 0.0, 0.0, 1.0),
                distance: FogDistance::EyeDepth,
                per_pixel,
            }),
            ..Default::default()
        };
        let p = [
            Vec3::new(-0.75, -1.0, -near),
            Vec3::new(0.25, -1.0, -far),
            Vec3::new(0.25, 1.0, -far),
            Vec3::new(-0.75, 1.0, -near),
        ];
        let t = Transforms {
            view_from_model: Mat4::IDENTITY,
            clip_from_view: Mat4::orthographic_rh(-1.0, 1.0, -1.0, 1.0, 1.0, 100.0),
        };
        let mesh = MeshInput {
            positions: &p,
            ..Default::default()
        };
        let st = PipelineState {
            depth: plumb_raster::DepthState::DISABLED,
            ..c.default_state()
        };
        c.draw_fixed(
            &st,
            &ff,
            &t,
            &mesh,
            Indices::U16(&[0, 1, 2, 0, 2, 3]),
            Topology::TriangleList,
        )
        .unwrap();
        common::px(&mut c, 1, 1)
    };
    let exp = FogMode::Exp {
        density: core::f32::consts::LN_2 / 10.0,
    };
    let exp2 = FogMode::Exp2 {
        density: 0.832_554_6 / 10.0, // √(ln 2) = 0.83255461
    };
    let rows = [
        (exp, 10.0, 30.0, false, 80),
        (exp, 10.0, 30.0, true, 64),
        (exp2, 10.0, 20.0, false, 72),
        (exp2, 10.0, 20.0, true, 54),
    ];
    for (mode, near, far, per_pixel, want) in rows {
        let got = at_every_level(|l| pixel(l, mode, per_pixel, near, far));
        assert_eq!(
            got,
            [want, want, want, 255],
            "{mode:?}, per pixel {per_pixel}"
        );
    }
}
