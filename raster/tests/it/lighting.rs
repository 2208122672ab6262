//! The lighting equation for each light type, with attenuation, spot falloff, specular,
//! two-sided lighting and colour material, against hand-computed colours (eye space;
//! `direction` is where the light travels).

use glam::{Vec3, Vec4};
use plumb_raster::light::{
    shade, Light, LightKind, LightingState, Material, PreparedLighting, MAX_LIGHTS,
};
use plumb_raster::Error;

const MD: Vec3 = Vec3::new(1.0, 0.5, 0.25);

fn close3(a: Vec3, b: Vec3) -> bool {
    (a - b).abs().max_element() < 1e-5
}

/// Material with diffuse `MD` only (no ambient, emissive or specular).
fn diffuse_only() -> LightingState {
    LightingState {
        material: Material {
            ambient: Vec3::ZERO,
            diffuse: MD,
            ..Material::DEFAULT
        },
        ..LightingState::DEFAULT
    }
}

fn with(mut s: LightingState, l: Light) -> LightingState {
    s.push_light(l).unwrap();
    s
}

fn rgb(s: &LightingState, pos: Vec3, n: Vec3) -> Vec3 {
    shade(s, pos, n, Vec4::ONE, true).primary.truncate()
}

#[test]
fn directional_lambert() {
    // N = +y. The light travels along −(√3, 1, 0)/2, so L = (√3/2, ½, 0) and N·L = ½:
    // colour = ½·Md∘Ld = ½·(1, 0.5, 0.25) = (0.5, 0.25, 0.125).
    let dir = Vec3::new(-(3f32.sqrt()), -1.0, 0.0); // not unit: normalised by shade
    let l = Light::new(LightKind::Directional { direction: dir }).with_diffuse(Vec3::ONE);
    let s = with(diffuse_only(), l);
    assert!(close3(
        rgb(&s, Vec3::ZERO, Vec3::Y),
        Vec3::new(0.5, 0.25, 0.125)
    ));
    // The position does not matter for a directional light.
    assert!(close3(
        rgb(&s, Vec3::new(5.0, -3.0, -9.0), Vec3::Y),
        Vec3::new(0.5, 0.25, 0.125)
    ));
    // Head-on: N·L = 1 → Md. Grazing: N·L = 0 → 0. From behind: N·L < 0 → 0.
    let rows: [(Vec3, Vec3); 3] = [
        (Vec3::NEG_Y, MD),
        (Vec3::X, Vec3::ZERO),
        (Vec3::Y, Vec3::ZERO),
    ];
    for (direction, want) in rows {
        let l = Light::new(LightKind::Directional { direction }).with_diffuse(Vec3::ONE);
        let got = rgb(&with(diffuse_only(), l), Vec3::ZERO, Vec3::Y);
        assert!(close3(got, want), "{direction}: {got} vs {want}");
    }
    // Normals are normalised: (0, 5, 0) acts as +y.
    assert!(close3(
        rgb(&s, Vec3::ZERO, Vec3::new(0.0, 5.0, 0.0)),
        Vec3::new(0.5, 0.25, 0.125)
    ));
}

#[test]
fn ambient_terms_and_emissive() {
    // Me = (0.1, 0, 0), Ma = 0.2, G = 0.5, one ambient light La = 0.25 (diffuse ignored):
    // Me + Ma∘G + Ma∘La = (0.1 + 0.1 + 0.05, 0.15, 0.15) = (0.25, 0.15, 0.15).
    let mut s = LightingState {
        material: Material {
            emissive: Vec3::new(0.1, 0.0, 0.0),
            ..Material::DEFAULT
        },
        global_ambient: Vec3::splat(0.5),
        ..LightingState::DEFAULT
    };
    let amb = Light::new(LightKind::Ambient)
        .with_ambient(Vec3::splat(0.25))
        .with_diffuse(Vec3::ONE)
        .with_specular(Vec3::ONE);
    s.push_light(amb).unwrap();
    let got = shade(&s, Vec3::ZERO, Vec3::Y, Vec4::ONE, true);
    assert!(
        close3(got.primary.truncate(), Vec3::new(0.25, 0.15, 0.15)),
        "{got:?}"
    );
    assert_eq!(got.primary.w, 1.0); // material alpha
                                    // Per-light ambient is scaled by attenuation: point light 4 away, att (1, ½, ¼) →
                                    // 1/(1 + 2 + 4) = 1/7; La = 0.7, Ma = 0.2 → 0.14/7 = 0.02 (plus the 0.25/0.15 above).
    let pt = Light::new(LightKind::Point {
        position: Vec3::new(0.0, 4.0, 0.0),
    })
    .with_ambient(Vec3::splat(0.7))
    .with_attenuation([1.0, 0.5, 0.25]);
    s.push_light(pt).unwrap();
    // The point light sits on the normal side but has no diffuse colour, so only ambient.
    let got = rgb(&s, Vec3::ZERO, Vec3::Y);
    assert!(close3(got, Vec3::new(0.27, 0.17, 0.17)), "{got}");
}

#[test]
fn point_light_attenuation() {
    // Light at (0, 4, 0), vertex at the origin, N = +y: d = 4, N·L = 1.
    // (c, l, q) → α = 1/(c + 4l + 16q); colour = α·Md.
    let rows: [([f32; 3], f32); 4] = [
        ([1.0, 0.0, 0.0], 1.0),        // no attenuation
        ([1.0, 0.5, 0.25], 1.0 / 7.0), // 1 + 2 + 4
        ([0.0, 0.25, 0.0], 1.0),       // 0 + 1 + 0
        ([2.0, 0.0, 0.125], 0.25),     // 2 + 0 + 2
    ];
    for (att, alpha) in rows {
        let l = Light::new(LightKind::Point {
            position: Vec3::new(0.0, 4.0, 0.0),
        })
        .with_diffuse(Vec3::ONE)
        .with_attenuation(att);
        let got = rgb(&with(diffuse_only(), l), Vec3::ZERO, Vec3::Y);
        assert!(close3(got, MD * alpha), "{att:?}: {got} vs {}", MD * alpha);
    }
    // Off-axis: light at (3, 4, 0): d = 5, L = (0.6, 0.8, 0), N·L = 0.8; att (0, 0, 1/25)
    // → α = 1/(25/25) = 1 → 0.8·Md.
    let l = Light::new(LightKind::Point {
        position: Vec3::new(3.0, 4.0, 0.0),
    })
    .with_diffuse(Vec3::ONE)
    .with_attenuation([0.0, 0.0, 0.04]);
    let got = rgb(&with(diffuse_only(), l), Vec3::ZERO, Vec3::Y);
    assert!(close3(got, MD * 0.8), "{got}");
    // Attenuation does not apply to directional lights.
    let l = Light::new(LightKind::Directional {
        direction: Vec3::NEG_Y,
    })
    .with_diffuse(Vec3::ONE)
    .with_attenuation([4.0, 0.0, 0.0]);
    assert!(close3(
        rgb(&with(diffuse_only(), l), Vec3::ZERO, Vec3::Y),
        MD
    ));
    // A light exactly at the vertex lights nothing diffusely and yields no NaN.
    let l = Light::new(LightKind::Point {
        position: Vec3::ZERO,
    })
    .with_diffuse(Vec3::ONE);
    let got = rgb(&with(diffuse_only(), l), Vec3::ZERO, Vec3::Y);
    assert_eq!(got, Vec3::ZERO);
}

#[test]
fn intensity_scales_and_clamps_light_colours() {
    // Intensity ½ on diffuse 1 → 0.5·Md. Intensity 2 on diffuse 0.75 → 1.5 clamped to 1 → Md.
    let base = Light::new(LightKind::Directional {
        direction: Vec3::NEG_Y,
    });
    let l = base.with_diffuse(Vec3::ONE).with_intensity(0.5);
    assert!(close3(
        rgb(&with(diffuse_only(), l), Vec3::ZERO, Vec3::Y),
        MD * 0.5
    ));
    let l = base.with_diffuse(Vec3::splat(0.75)).with_intensity(2.0);
    assert!(close3(
        rgb(&with(diffuse_only(), l), Vec3::ZERO, Vec3::Y),
        MD
    ));
}

#[test]
fn spot_cutoff_and_exponent() {
    // Spot at (0, 2, 0) pointing down, cutoff 45° (cos = 0.7071), no attenuation, N = +y.
    let spot = |exponent: f32| {
        Light::new(LightKind::Spot {
            position: Vec3::new(0.0, 2.0, 0.0),
            direction: Vec3::NEG_Y,
            cutoff_deg: 45.0,
            exponent,
        })
        .with_diffuse(Vec3::ONE)
    };
    let inv_sqrt5 = 1.0 / 5f32.sqrt();
    // (vertex, exponent, factor): factor = spot·(N·L).
    let rows: [(Vec3, f32, f32); 5] = [
        // On the axis: cos = 1 → spot 1; N·L = 1.
        (Vec3::ZERO, 2.0, 1.0),
        // (1,0,0): light→vertex (1, −2, 0)/√5, cos = 2/√5 = 0.894 > 0.707 → inside;
        // exponent 2 → spot = 4/5; N·L = 2/√5 → 0.8·2/√5 = 1.6/√5 = 0.71554.
        (Vec3::X, 2.0, 1.6 * inv_sqrt5),
        // Exponent 0: spot = 1 inside → N·L = 2/√5 = 0.89443.
        (Vec3::X, 0.0, 2.0 * inv_sqrt5),
        // (3,0,0): cos = 2/√13 = 0.5547 < 0.7071 → outside → 0.
        (Vec3::new(3.0, 0.0, 0.0), 0.0, 0.0),
        (Vec3::new(-3.0, 0.0, 0.0), 2.0, 0.0),
    ];
    for (pos, e, factor) in rows {
        let got = rgb(&with(diffuse_only(), spot(e)), pos, Vec3::Y);
        assert!(
            close3(got, MD * factor),
            "{pos} e={e}: {got} vs {}",
            MD * factor
        );
    }
    // Spot with attenuation: at (1,0,0), d = √5, att (0, 0, 1) → 1/5; exponent 2 →
    // (1/5)·0.71554 = 0.14311.
    let l = spot(2.0).with_attenuation([0.0, 0.0, 1.0]);
    let got = rgb(&with(diffuse_only(), l), Vec3::X, Vec3::Y);
    assert!(close3(got, MD * (0.32 * inv_sqrt5)), "{got}");
    // Cutoff 180: no cone (spot = 1, exponent unused) even behind the light's axis.
    let l = Light::new(LightKind::Spot {
        position: Vec3::new(0.0, 2.0, 0.0),
        direction: Vec3::Y, // pointing away from the vertex
        cutoff_deg: 180.0,
        exponent: 8.0,
    })
    .with_diffuse(Vec3::ONE);
    assert!(close3(
        rgb(&with(diffuse_only(), l), Vec3::ZERO, Vec3::Y),
        MD
    ));
}

/// Specular-only material: Ms = 1, shininess 2, no diffuse/ambient.
fn specular_only() -> LightingState {
    LightingState {
        material: Material {
            ambient: Vec3::ZERO,
            diffuse: Vec3::ZERO,
            specular: Vec3::ONE,
            shininess: 2.0,
            ..Material::DEFAULT
        },
        ..LightingState::DEFAULT
    }
}

#[test]
fn specular_infinite_and_local_viewer() {
    // N = +z (facing the eye). L = (√3/2, 0, ½) (light travels along −L), E = (0,0,1)
    // (infinite viewer): H = normalize(√3/2, 0, 3/2) = (½, 0, √3/2), N·H = √3/2, squared
    // (shininess 2) = 0.75. N·L = ½ > 0 so the term counts.
    let l_dir = Vec3::new(3f32.sqrt() / 2.0, 0.0, 0.5);
    let light = Light::new(LightKind::Directional { direction: -l_dir }).with_specular(Vec3::ONE);
    let s = with(specular_only(), light);
    let pos = Vec3::new(0.0, 0.0, -5.0);
    assert!(close3(rgb(&s, pos, Vec3::Z), Vec3::splat(0.75)));
    // Separate specular: primary has none, secondary has it.
    let sep = LightingState {
        separate_specular: true,
        ..s
    };
    let c = shade(&sep, pos, Vec3::Z, Vec4::ONE, true);
    assert!(close3(c.primary.truncate(), Vec3::ZERO));
    assert!(close3(c.secondary, Vec3::splat(0.75)));
    assert_eq!(
        shade(&s, pos, Vec3::Z, Vec4::ONE, true).secondary,
        Vec3::ZERO
    );

    // Local viewer: light straight on (L = +z); vertex at (−√3, 0, −1) so E = −V/|V| =
    // (√3/2, 0, ½); H = normalize(√3/2, 0, 3/2) = (½, 0, √3/2) → N·H² = 0.75.
    // With the infinite viewer at the same vertex, H = N → 1.
    let light = Light::new(LightKind::Directional {
        direction: Vec3::NEG_Z,
    })
    .with_specular(Vec3::ONE);
    let s = with(specular_only(), light);
    let v = Vec3::new(-(3f32.sqrt()), 0.0, -1.0);
    assert!(close3(rgb(&s, v, Vec3::Z), Vec3::ONE));
    let local = LightingState {
        local_viewer: true,
        ..s
    };
    assert!(close3(rgb(&local, v, Vec3::Z), Vec3::splat(0.75)));

    // No specular when the light is behind the surface (N·L ≤ 0), even if N·H > 0.
    let light = Light::new(LightKind::Directional { direction: Vec3::Z }).with_specular(Vec3::ONE);
    assert_eq!(rgb(&with(specular_only(), light), pos, Vec3::Z), Vec3::ZERO);
}

#[test]
fn two_sided_lighting() {
    // N = +z; the light travels along +z, i.e. comes from behind: N·L = −1.
    let l = Light::new(LightKind::Directional { direction: Vec3::Z }).with_diffuse(Vec3::ONE);
    let one = with(diffuse_only(), l);
    let two = LightingState {
        two_sided: true,
        ..one
    };
    let lit = |s: &LightingState, front| {
        shade(s, Vec3::ZERO, Vec3::Z, Vec4::ONE, front)
            .primary
            .truncate()
    };
    assert_eq!(lit(&one, false), Vec3::ZERO); // one-sided ignores `front`
    assert_eq!(lit(&two, true), Vec3::ZERO); // front face, light behind
    assert!(close3(lit(&two, false), MD)); // back face: N flipped, N·L = 1
}

#[test]
fn color_material_uses_vertex_colour() {
    // Vertex colour (0.5, 0.25, 1, 0.75) replaces Ma and Md; G = 0.2, head-on Ld = 0.5:
    // vc·0.2 + 1·vc·0.5 = 0.7·vc = (0.35, 0.175, 0.7); alpha = 0.75.
    let vc = Vec4::new(0.5, 0.25, 1.0, 0.75);
    let l = Light::new(LightKind::Directional {
        direction: Vec3::NEG_Y,
    })
    .with_diffuse(Vec3::splat(0.5));
    let s = LightingState {
        global_ambient: Vec3::splat(0.2),
        color_material: true,
        ..with(diffuse_only(), l)
    };
    let c = shade(&s, Vec3::ZERO, Vec3::Y, vc, true);
    assert!(
        close3(c.primary.truncate(), Vec3::new(0.35, 0.175, 0.7)),
        "{c:?}"
    );
    assert_eq!(c.primary.w, 0.75);
    // Without colour material the vertex colour is ignored: Md·0.5 + 0·G, alpha = 1.
    let c = shade(
        &LightingState {
            color_material: false,
            ..s
        },
        Vec3::ZERO,
        Vec3::Y,
        vc,
        true,
    );
    assert!(close3(c.primary.truncate(), MD * 0.5));
    assert_eq!(c.primary.w, 1.0);
}

#[test]
fn eight_lights_sum_and_off_lights_are_skipped() {
    // Md = 1; eight head-on lights of diffuse 0.1 → 0.8; turning slot 3 off → 0.7.
    let mut s = LightingState {
        material: Material {
            ambient: Vec3::ZERO,
            diffuse: Vec3::ONE,
            ..Material::DEFAULT
        },
        ..LightingState::DEFAULT
    };
    let l = Light::new(LightKind::Directional {
        direction: Vec3::NEG_Y,
    })
    .with_diffuse(Vec3::splat(0.1));
    for i in 0..MAX_LIGHTS {
        assert_eq!(s.push_light(l).unwrap(), i);
    }
    assert!(matches!(
        s.push_light(l),
        Err(Error::TooMany { max: 8, .. })
    ));
    assert!(close3(rgb(&s, Vec3::ZERO, Vec3::Y), Vec3::splat(0.8)));
    s.lights[3].as_mut().unwrap().on = false;
    assert!(close3(rgb(&s, Vec3::ZERO, Vec3::Y), Vec3::splat(0.7)));
    assert!(s.is_lit());
    assert!(!LightingState::DEFAULT.is_lit());
    // Results clamp at 1: sixteen times the light would be 1.6.
    s.lights[3].as_mut().unwrap().on = true;
    for slot in s.lights.iter_mut().flatten() {
        slot.diffuse = Vec3::splat(0.2);
    }
    assert_eq!(rgb(&s, Vec3::ZERO, Vec3::Y), Vec3::ONE);
}

#[test]
fn prepared_equals_one_shot_and_defaults() {
    let l = Light::new(LightKind::Spot {
        position: Vec3::new(1.0, 2.0, 3.0),
        direction: Vec3::new(-1.0, -2.0, -3.0),
        cutoff_deg: 30.0,
        exponent: 3.0,
    })
    .with_diffuse(Vec3::ONE)
    .with_specular(Vec3::ONE);
    let s = with(LightingState::default(), l);
    let p = PreparedLighting::new(&s);
    for pos in [Vec3::ZERO, Vec3::new(0.3, -0.2, 0.1)] {
        assert_eq!(
            p.shade(pos, Vec3::new(0.2, 0.5, 1.0), Vec4::ONE, true),
            shade(&s, pos, Vec3::new(0.2, 0.5, 1.0), Vec4::ONE, true)
        );
    }
    // Book defaults.
    let m = Material::default();
    assert_eq!(
        (m.ambient, m.diffuse, m.specular, m.shininess),
        (Vec3::splat(0.2), Vec3::splat(0.8), Vec3::ZERO, 1.0)
    );
    let l = Light::new(LightKind::Ambient);
    assert_eq!(
        (l.intensity, l.attenuation, l.on, l.diffuse),
        (1.0, [1.0, 0.0, 0.0], true, Vec3::ZERO)
    );
    assert_eq!(LightingState::default().global_ambient, Vec3::ZERO);
    // A zero normal gets ambient/emissive only and no NaN.
    let c = shade(&s, Vec3::ZERO, Vec3::ZERO, Vec4::ONE, true);
    assert!(!c.primary.is_nan());
}

/// glTF's smooth cone: full strength inside the inner angle, `t²` between inner and outer
/// (`t` linear in the cosine), nothing outside.
#[test]
fn smooth_spot_edge() {
    // Spot at (0, 2, 0) pointing down: outer 45°, inner 30°, exponent 0; N = +y, so
    // N·L = cos a = 2/√(4 + x²) at vertex (x, 0, 0).
    let l = Light {
        spot_inner_deg: Some(30.0),
        ..Light::new(LightKind::Spot {
            position: Vec3::new(0.0, 2.0, 0.0),
            direction: Vec3::NEG_Y,
            cutoff_deg: 45.0,
            exponent: 0.0,
        })
        .with_diffuse(Vec3::ONE)
    };
    let s = with(diffuse_only(), l);
    let (cos_out, cos_in) = (std::f64::consts::FRAC_1_SQRT_2, 3f64.sqrt() / 2.0); // 45°, 30°
    for x in [0.0f32, 1.0, 1.3, 1.5, 1.8, 1.99, 2.5, 3.0] {
        let cos_a = 2.0 / (4.0 + f64::from(x * x)).sqrt();
        let t = ((cos_a - cos_out) / (cos_in - cos_out)).clamp(0.0, 1.0);
        let factor = if cos_a < cos_out { 0.0 } else { t * t * cos_a } as f32;
        let got = rgb(&s, Vec3::new(x, 0.0, 0.0), Vec3::Y);
        assert!(close3(got, MD * factor), "x={x}: {got} vs {}", MD * factor);
    }
    // x = 1.5: cos a = 0.8, t = (0.8 − 0.707107)/(0.866025 − 0.707107) = 0.584534,
    // t²·0.8 = 0.273344.
    let got = rgb(&s, Vec3::new(1.5, 0.0, 0.0), Vec3::Y);
    assert!(close3(got, MD * 0.273_344), "{got}");
}

/// glTF's range window `clamp(1 − (d/R)⁴, 0, 1)²` on top of the attenuation.
#[test]
fn range_window() {
    let l = Light {
        range: Some(4.0),
        ..Light::new(LightKind::Point {
            position: Vec3::new(0.0, 2.0, 0.0),
        })
        .with_diffuse(Vec3::ONE)
    };
    let s = with(diffuse_only(), l);
    // d = 2: (1 − 0.5⁴)² = 0.9375² = 0.87890625; N·L = 1.
    assert!(close3(rgb(&s, Vec3::ZERO, Vec3::Y), MD * 0.878_906_25));
    // d = 5 > R: nothing (without a range the full MD).
    assert!(close3(
        rgb(&s, Vec3::new(0.0, -3.0, 0.0), Vec3::Y),
        Vec3::ZERO
    ));
    let unlimited = with(diffuse_only(), Light { range: None, ..l });
    assert!(close3(
        rgb(&unlimited, Vec3::new(0.0, -3.0, 0.0), Vec3::Y),
        MD
    ));
    // Directional lights ignore it.
    let sun = Light {
        range: Some(1e-3),
        ..Light::new(LightKind::Directional {
            direction: Vec3::NEG_Y,
        })
        .with_diffuse(Vec3::ONE)
    };
    assert!(close3(
        rgb(&with(diffuse_only(), sun), Vec3::ZERO, Vec3::Y),
        MD
    ));
}
