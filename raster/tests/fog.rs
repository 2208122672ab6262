//! Fog factors at known distances and the fog blend, against hand-computed values.

mod common;

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
