//! Controllers (book-advanced §1.12–§1.16) and discrete LOD (§1.3). Every expected value is
//! worked out by hand in the comments, from the book's formulas.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use glam::{Mat3, Quat, Vec3};
use plumb_scene::{
    rotation_axis_angle, Bound, BoundKind, Camera, ControllerTiming, KeyframeController, Mesh,
    MorphController, Ray, RepeatType, Scene, SceneError, SkinController, SoftRenderer, Transform,
};

fn close(a: Vec3, b: Vec3, tol: f32) -> bool {
    (a - b).abs().max_element() <= tol
}

// ----- §1.12 controller time -----

/// `t꜀ = f·tₐ + p` with f = 2, p = 0.5 over [min, max] = [1, 3], so `(t꜀ − 1)/2` is the
/// multiple `m` of the range: Clamp clamps t꜀; Wrap gives `1 + frac(m)·2`; Cycle gives that when
/// `⌊m⌋` is even and `3 − frac(m)·2` when odd.
#[test]
fn time_mapping_table() {
    // (tₐ, clamp, wrap, cycle)
    let rows: [(f64, f64, f64, f64); 11] = [
        // t꜀ = −1.5, m = −1.25: ⌊m⌋ = −2 (even), frac 0.75 → 1 + 1.5
        (-1.0, 1.0, 2.5, 2.5),
        // t꜀ = −1, m = −1 exactly: frac 0, ⌊m⌋ odd → cycle at max
        (-0.75, 1.0, 1.0, 3.0),
        // t꜀ = −0.25, m = −0.625: ⌊m⌋ = −1 (odd), frac 0.375 → wrap 1.75, cycle 3 − 0.75
        (-0.375, 1.0, 1.75, 2.25),
        // t꜀ = 0, m = −0.5: ⌊m⌋ = −1, frac 0.5
        (-0.25, 1.0, 2.0, 2.0),
        // t꜀ = 1 = min exactly
        (0.25, 1.0, 1.0, 1.0),
        // t꜀ = 1.5 inside
        (0.5, 1.5, 1.5, 1.5),
        // t꜀ = 3 = max exactly: m = 1, frac 0 → wrap to min, cycle (odd) stays at max
        (1.25, 3.0, 1.0, 3.0),
        // t꜀ = 3.5, m = 1.25 → wrap 1.5, cycle 3 − 0.5
        (1.5, 3.0, 1.5, 2.5),
        // t꜀ = 5, m = 2 (even) → both at min
        (2.25, 3.0, 1.0, 1.0),
        // t꜀ = 5.5, m = 2.25
        (2.5, 3.0, 1.5, 1.5),
        // t꜀ = 7.5, m = 3.25 (odd) → cycle 3 − 0.5
        (3.5, 3.0, 1.5, 2.5),
    ];
    let base = ControllerTiming::over(1.0, 3.0)
        .unwrap()
        .with_frequency(2.0)
        .unwrap()
        .with_phase(0.5)
        .unwrap();
    for (ta, clamp, wrap, cycle) in rows {
        for (repeat, want) in [
            (RepeatType::Clamp, clamp),
            (RepeatType::Wrap, wrap),
            (RepeatType::Cycle, cycle),
        ] {
            let got = base.with_repeat(repeat).control_time(ta);
            assert_eq!(got, want, "tₐ = {ta}, {repeat:?}");
        }
    }
}

#[test]
fn time_mapping_defaults_and_edges() {
    // The book's defaults: clamp to [0, 0], so every time maps to 0.
    let d = ControllerTiming::default();
    assert_eq!(d.repeat(), RepeatType::Clamp);
    assert_eq!(
        (d.min_time(), d.max_time(), d.phase(), d.frequency()),
        (0.0, 0.0, 0.0, 1.0)
    );
    assert!(d.active());
    assert_eq!(d.control_time(5.0), 0.0);
    assert_eq!(d.control_time(-5.0), 0.0);
    // Negative frequency: f = −1 over [0, 2], wrap: tₐ = 0.5 → t꜀ = −0.5, m = −0.25,
    // ⌊m⌋ = −1, frac 0.75 → 1.5.
    let back = ControllerTiming::over(0.0, 2.0)
        .unwrap()
        .with_repeat(RepeatType::Wrap)
        .with_frequency(-1.0)
        .unwrap();
    assert_eq!(back.control_time(0.5), 1.5);
    // Degenerate ranges and times are documented, not NaN.
    let wrap0 = ControllerTiming::over(2.0, 2.0)
        .unwrap()
        .with_repeat(RepeatType::Wrap);
    assert_eq!(wrap0.control_time(7.0), 2.0);
    let clamp = ControllerTiming::over(1.0, 3.0).unwrap();
    assert_eq!(clamp.control_time(f64::INFINITY), 3.0);
    assert_eq!(clamp.control_time(f64::NEG_INFINITY), 1.0);
    assert_eq!(clamp.control_time(f64::NAN), 1.0);
    let cycle = clamp.with_repeat(RepeatType::Cycle);
    assert_eq!(cycle.control_time(f64::NAN), 1.0);
    assert_eq!(cycle.control_time(f64::INFINITY), 1.0);
    // Bad parameters are typed errors.
    assert!(matches!(
        ControllerTiming::over(3.0, 1.0),
        Err(SceneError::InvalidArgument { .. })
    ));
    assert!(matches!(
        ControllerTiming::over(f64::NAN, 1.0),
        Err(SceneError::NonFinite { .. })
    ));
    assert!(d.with_phase(f64::INFINITY).is_err());
    assert!(d.with_frequency(f64::NAN).is_err());
}

/// `Scene::draw` used to re-run `update` at the last time, so every controller ran twice per
/// frame; a controller with state (here: move 1 along x per call) shows it.
#[test]
fn controllers_run_once_per_update_not_again_in_draw() {
    let mut scene = Scene::new();
    let leaf = scene
        .add_geometry(scene.root(), "cube", Arc::new(Mesh::cube()))
        .unwrap();
    let calls = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&calls);
    scene
        .add_controller(
            leaf,
            Box::new(move |_: f64, local: &Transform| {
                counter.fetch_add(1, Ordering::SeqCst);
                local.with_translation(local.translation() + Vec3::X).ok()
            }),
        )
        .unwrap();
    let stats = scene.update(1.0);
    assert_eq!(stats.controllers, 1);
    assert_eq!(calls.load(Ordering::SeqCst), 1);
    let mut camera = Camera::perspective(1.0, 1.0, 0.1, 100.0).unwrap();
    camera
        .look_at(Vec3::new(0.0, 0.0, 5.0), Vec3::ZERO, Vec3::Y)
        .unwrap();
    let mut renderer = SoftRenderer::new(8, 8, Some(1)).unwrap();
    let drawn = scene.draw(&camera, &mut renderer).unwrap();
    assert_eq!(drawn.update.controllers, 0);
    scene.draw(&camera, &mut renderer).unwrap();
    assert_eq!(calls.load(Ordering::SeqCst), 1);
    assert_eq!(scene.world_transform(leaf).unwrap().translation(), Vec3::X);
    scene.update(2.0);
    assert_eq!(calls.load(Ordering::SeqCst), 2);
    assert_eq!(
        scene.world_transform(leaf).unwrap().translation(),
        Vec3::new(2.0, 0.0, 0.0)
    );
}

// ----- §1.13 keyframes -----

/// `docs/examples/controllers.json`: `pendulum` has keys y = −2 at 0 and y = 2 at 2, cycle
/// repeat over [0, 2], frequency 2.
#[test]
fn scene_file_keyframes_repeat() {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/examples/controllers.json");
    let mut s = plumb_scene::io::load(&path, &Default::default()).unwrap();
    let node = s.scene.find("pendulum").unwrap();
    // (t, y): t꜀ = 2t; t = 0.25 → t꜀ 0.5 → u 0.25 → y −1; t = 1 → t꜀ 2 (m = 1, odd, frac 0)
    // → 2 → y 2; t = 1.25 → t꜀ 2.5 → m 1.25 (odd) → 2 − 0.5 = 1.5 → y 1; t = 2 → t꜀ 4
    // (m = 2, even) → 0 → y −2; t = −0.25 → t꜀ −0.5 → m −0.25 (⌊m⌋ = −1, odd, frac 0.75)
    // → 2 − 1.5 = 0.5 → y −1.
    for (t, y) in [
        (0.25, -1.0),
        (1.0, 2.0),
        (1.25, 1.0),
        (2.0, -2.0),
        (-0.25, -1.0),
    ] {
        s.scene.update(t);
        let got = s.scene.local_transform(node).unwrap().translation();
        assert_eq!(got, Vec3::new(-3.0, y, 0.0), "t = {t}");
    }
}

/// Translation keys at t = 0, 1, 3: (0,0,0), (2,0,0), (2,4,0). Rotation keys about +z at
/// t = 0, 2: 0° and 90°. Uniform-scale keys at t = 1, 2: 1 and 3. Timing over [0, 3].
fn keyframes(repeat: RepeatType) -> KeyframeController {
    let q90 = Quat::from_xyzw(
        0.0,
        0.0,
        std::f32::consts::FRAC_1_SQRT_2,
        std::f32::consts::FRAC_1_SQRT_2,
    );
    KeyframeController::new(
        ControllerTiming::over(0.0, 3.0)
            .unwrap()
            .with_repeat(repeat),
    )
    .with_translations(
        vec![0.0, 1.0, 3.0],
        vec![
            Vec3::ZERO,
            Vec3::new(2.0, 0.0, 0.0),
            Vec3::new(2.0, 4.0, 0.0),
        ],
    )
    .unwrap()
    .with_rotations(vec![0.0, 2.0], vec![Quat::IDENTITY, q90])
    .unwrap()
    .with_scales(vec![1.0, 2.0], vec![1.0, 3.0])
    .unwrap()
}

/// Rotation about +z by `deg` degrees (0, 22.5, 45, 67.5 or 90), from tabulated cosines.
fn rot_z(deg: f64) -> Mat3 {
    const C22: f32 = 0.923_879_5; // cos 22.5° = sin 67.5°
    const S22: f32 = 0.382_683_43; // sin 22.5° = cos 67.5°
    const H: f32 = std::f32::consts::FRAC_1_SQRT_2;
    let (c, s) = match (deg * 2.0) as u32 {
        0 => (1.0, 0.0),
        45 => (C22, S22),
        90 => (H, H),
        135 => (S22, C22),
        180 => (0.0, 1.0),
        _ => unreachable!("no tabulated angle {deg}"),
    };
    Mat3::from_cols(Vec3::new(c, s, 0.0), Vec3::new(-s, c, 0.0), Vec3::Z)
}

fn sample(k: &mut KeyframeController, t: f64) -> (Vec3, Mat3, f32) {
    let out = k.sample(t, &Transform::IDENTITY).unwrap();
    (
        out.translation(),
        out.rotation().unwrap(),
        out.uniform_scale().unwrap(),
    )
}

fn mat_close(a: Mat3, b: Mat3) -> bool {
    (0..3).all(|i| close(a.col(i), b.col(i), 1e-6))
}

#[test]
fn keyframes_at_and_between_keys() {
    let mut k = keyframes(RepeatType::Clamp);
    // (t, translation, rotation degrees, scale)
    let rows = [
        // Before/at the first keys: first values.
        (-1.0, Vec3::ZERO, 0.0, 1.0),
        (0.0, Vec3::ZERO, 0.0, 1.0),
        // u = 0.5 between translation keys 0 and 1; u = 0.25 of 90° = 22.5°; scale before its
        // first key.
        (0.5, Vec3::new(1.0, 0.0, 0.0), 22.5, 1.0),
        // At translation key 1 exactly; rotation halfway; scale at its first key.
        (1.0, Vec3::new(2.0, 0.0, 0.0), 45.0, 1.0),
        // u = 0.25 between t = 1 and 3 → y = 1; rotation 67.5°; scale halfway 1 → 3 = 2.
        (1.5, Vec3::new(2.0, 1.0, 0.0), 67.5, 2.0),
        // At the last rotation and scale keys.
        (2.0, Vec3::new(2.0, 2.0, 0.0), 90.0, 3.0),
        (3.0, Vec3::new(2.0, 4.0, 0.0), 90.0, 3.0),
        // Clamped past the end.
        (10.0, Vec3::new(2.0, 4.0, 0.0), 90.0, 3.0),
    ];
    // Forward, then backward (the key search starts from the last pair either way).
    for (t, tr, deg, s) in rows.iter().chain(rows.iter().rev()) {
        let (got_t, got_r, got_s) = sample(&mut k, *t);
        assert_eq!(got_t, *tr, "translation at t = {t}");
        assert!(
            mat_close(got_r, rot_z(*deg)),
            "rotation at t = {t}: {got_r:?}"
        );
        assert_eq!(got_s, *s, "scale at t = {t}");
    }
}

#[test]
fn keyframes_repeat_modes() {
    // Over [0, 3]: tₐ = 3.5 wraps to 0.5, cycles back to 2.5.
    let (t, _, _) = sample(&mut keyframes(RepeatType::Wrap), 3.5);
    assert_eq!(t, Vec3::new(1.0, 0.0, 0.0));
    let (t, r, s) = sample(&mut keyframes(RepeatType::Cycle), 3.5);
    // 2.5: u = 0.75 between t = 1 and 3 → y = 3; rotation and scale held at their last keys.
    assert_eq!(t, Vec3::new(2.0, 3.0, 0.0));
    assert!(mat_close(r, rot_z(90.0)));
    assert_eq!(s, 3.0);
    // tₐ = −0.5 wraps to 2.5 as well (frac(−1/6) = 5/6 of 3); the clamp holds the start.
    let (t, _, _) = sample(&mut keyframes(RepeatType::Wrap), -0.5);
    assert_eq!(t, Vec3::new(2.0, 3.0, 0.0));
    let (t, _, _) = sample(&mut keyframes(RepeatType::Clamp), -0.5);
    assert_eq!(t, Vec3::ZERO);
}

#[test]
fn keyframes_drive_the_local_transform_and_respect_active() {
    let mut scene = Scene::new();
    let node = scene.add_group(scene.root(), "mover").unwrap();
    // A channel left out keeps the node's own value: the translation set here.
    scene
        .set_translation(node, Vec3::new(0.0, 0.0, -7.0))
        .unwrap();
    let k = KeyframeController::new(ControllerTiming::over(0.0, 2.0).unwrap())
        .with_scales(vec![0.0, 2.0], vec![1.0, 5.0])
        .unwrap();
    scene.add_controller(node, Box::new(k.clone())).unwrap();
    scene.update(1.0);
    let w = *scene.world_transform(node).unwrap();
    assert_eq!(w.uniform_scale(), Some(3.0));
    assert_eq!(w.translation(), Vec3::new(0.0, 0.0, -7.0));

    let mut off = Scene::new();
    let n = off.add_group(off.root(), "still").unwrap();
    let mut k = k;
    k.set_timing(k.timing().with_active(false));
    off.add_controller(n, Box::new(k)).unwrap();
    off.update(1.0);
    assert_eq!(off.world_transform(n).unwrap().uniform_scale(), Some(1.0));
}

#[test]
fn keyframe_errors() {
    let k = || KeyframeController::new(ControllerTiming::default());
    assert!(matches!(
        k().with_translations(vec![0.0, f32::NAN], vec![Vec3::ZERO; 2]),
        Err(SceneError::NonFinite { .. })
    ));
    assert!(matches!(
        k().with_translations(vec![1.0, 1.0], vec![Vec3::ZERO; 2]),
        Err(SceneError::InvalidArgument { .. })
    ));
    assert!(matches!(
        k().with_scales(vec![0.0, 1.0], vec![1.0]),
        Err(SceneError::InvalidArgument { .. })
    ));
    assert!(matches!(
        k().with_scales(vec![], vec![]),
        Err(SceneError::InvalidArgument { .. })
    ));
    assert!(matches!(
        k().with_translations(vec![0.0], vec![Vec3::new(f32::INFINITY, 0.0, 0.0)]),
        Err(SceneError::NonFinite { .. })
    ));
    assert!(matches!(
        k().with_rotations(vec![0.0], vec![Quat::from_xyzw(0.0, 0.0, 0.0, 0.0)]),
        Err(SceneError::ZeroRotation(_))
    ));
}

// ----- §1.14 morphing -----

/// Three targets of a triangle: X₀ = (0,0,0), (1,0,0), (0,1,0); X₁ = X₀ lifted by z = 1;
/// X₂ = 2·X₀. Keys at t = 0, 1, 2 with weights (w₁, w₂) = (0, 0), (1, 0), (0.5, 0.5).
fn morph() -> MorphController {
    let x0 = vec![Vec3::ZERO, Vec3::X, Vec3::Y];
    let x1: Vec<Vec3> = x0.iter().map(|p| *p + Vec3::Z).collect();
    let x2: Vec<Vec3> = x0.iter().map(|p| *p * 2.0).collect();
    MorphController::from_targets(
        ControllerTiming::over(0.0, 2.0).unwrap(),
        vec![x0, x1, x2],
        vec![0.0, 1.0, 2.0],
        vec![vec![0.0, 0.0], vec![1.0, 0.0], vec![0.5, 0.5]],
    )
    .unwrap()
}

fn triangle() -> Mesh {
    Mesh::triangles(vec![Vec3::ZERO, Vec3::X, Vec3::Y], vec![0, 1, 2])
        .unwrap()
        .with_normals(vec![Vec3::X; 3])
        .unwrap()
}

#[test]
fn morph_at_and_between_keys() {
    let mut m = morph();
    assert_eq!((m.vertex_count(), m.target_count()), (3, 3));
    // t = 0: X₀.
    assert_eq!(m.positions_at(0.0), vec![Vec3::ZERO, Vec3::X, Vec3::Y]);
    // t = 0.5: c = (0.5, 0) → X₀ + 0.5·(0,0,1).
    assert_eq!(
        m.positions_at(0.5),
        vec![
            Vec3::new(0.0, 0.0, 0.5),
            Vec3::new(1.0, 0.0, 0.5),
            Vec3::new(0.0, 1.0, 0.5)
        ]
    );
    // t = 1: c = (1, 0) → X₁.
    assert_eq!(
        m.positions_at(1.0),
        vec![Vec3::Z, Vec3::new(1.0, 0.0, 1.0), Vec3::new(0.0, 1.0, 1.0)]
    );
    // t = 1.5: c = (0.75, 0.25) → X₀ + 0.75·(0,0,1) + 0.25·X₀ = 1.25·X₀ + (0,0,0.75).
    assert_eq!(m.weights_at(1.5), vec![0.75, 0.25]);
    assert_eq!(
        m.positions_at(1.5),
        vec![
            Vec3::new(0.0, 0.0, 0.75),
            Vec3::new(1.25, 0.0, 0.75),
            Vec3::new(0.0, 1.25, 0.75)
        ]
    );
    // t = 2 (and clamped after): c = (0.5, 0.5) → 1.5·X₀ + (0,0,0.5).
    for t in [2.0, 9.0] {
        assert_eq!(
            m.positions_at(t),
            vec![
                Vec3::new(0.0, 0.0, 0.5),
                Vec3::new(1.5, 0.0, 0.5),
                Vec3::new(0.0, 1.5, 0.5)
            ]
        );
    }
}

#[test]
fn morph_updates_the_mesh_and_its_bound() {
    let mut scene = Scene::new();
    scene.set_bound_kind(BoundKind::Aabb);
    let parent = scene.add_group(scene.root(), "parent").unwrap();
    scene
        .set_translation(parent, Vec3::new(10.0, 0.0, 0.0))
        .unwrap();
    let leaf = scene
        .add_geometry(parent, "face", Arc::new(triangle()))
        .unwrap();
    scene.add_mesh_controller(leaf, Box::new(morph())).unwrap();
    scene.update(2.0);
    let mesh = scene.mesh(leaf).unwrap();
    assert_eq!(mesh.positions()[1], Vec3::new(1.5, 0.0, 0.5));
    // The triangle stays parallel to z = 0, counter-clockwise: the regenerated normal is +z.
    assert_eq!(mesh.normals().unwrap(), &[Vec3::Z; 3]);
    // Local AABB (0,0,0.5)–(1.5,1.5,0.5), moved by the parent's (10,0,0).
    assert_eq!(
        *scene.world_bound(leaf).unwrap(),
        Bound::aabb(Vec3::new(10.0, 0.0, 0.5), Vec3::new(11.5, 1.5, 0.5))
    );
    assert_eq!(
        *scene.world_bound(parent).unwrap(),
        *scene.world_bound(leaf).unwrap()
    );
    // Back at t = 0 the bound shrinks again.
    scene.update(0.0);
    assert_eq!(
        *scene.world_bound(leaf).unwrap(),
        Bound::aabb(Vec3::new(10.0, 0.0, 0.0), Vec3::new(11.0, 1.0, 0.0))
    );
}

/// Culling sees the morphed bound: a target 100 units away takes the leaf out of the view.
#[test]
fn morph_moves_the_leaf_out_of_view() {
    let mut scene = Scene::new();
    let leaf = scene
        .add_geometry(scene.root(), "tri", Arc::new(triangle()))
        .unwrap();
    let x0 = vec![Vec3::ZERO, Vec3::X, Vec3::Y];
    let far: Vec<Vec3> = x0.iter().map(|p| *p + Vec3::new(100.0, 0.0, 0.0)).collect();
    let m = MorphController::from_targets(
        ControllerTiming::over(0.0, 1.0).unwrap(),
        vec![x0, far],
        vec![0.0, 1.0],
        vec![vec![0.0], vec![1.0]],
    )
    .unwrap();
    scene.add_mesh_controller(leaf, Box::new(m)).unwrap();
    let mut camera = Camera::perspective(1.0, 1.0, 0.1, 50.0).unwrap();
    camera
        .look_at(Vec3::new(0.0, 0.0, 5.0), Vec3::ZERO, Vec3::Y)
        .unwrap();
    scene.update(0.0);
    assert_eq!(scene.cull(&camera).items(), &[leaf]);
    scene.update(1.0);
    assert!(scene.cull(&camera).is_empty());
}

#[test]
fn morph_errors() {
    let t = ControllerTiming::default();
    let x = vec![Vec3::ZERO; 3];
    assert!(matches!(
        MorphController::from_targets(
            t,
            vec![x.clone(), vec![Vec3::ZERO; 2]],
            vec![0.0],
            vec![vec![1.0]]
        ),
        Err(SceneError::InvalidArgument { .. })
    ));
    assert!(matches!(
        MorphController::from_targets(
            t,
            vec![x.clone(), x.clone()],
            vec![0.0],
            vec![vec![1.0, 2.0]]
        ),
        Err(SceneError::InvalidArgument { .. })
    ));
    assert!(matches!(
        MorphController::from_targets(
            t,
            vec![x.clone(), x.clone()],
            vec![0.0],
            vec![vec![f32::NAN]]
        ),
        Err(SceneError::NonFinite { .. })
    ));
    assert!(matches!(
        MorphController::from_targets(t, vec![], vec![0.0], vec![vec![]]),
        Err(SceneError::InvalidArgument { .. })
    ));
    // Four vertices against a three-vertex mesh.
    let mut scene = Scene::new();
    let leaf = scene
        .add_geometry(scene.root(), "tri", Arc::new(triangle()))
        .unwrap();
    let four = MorphController::from_targets(t, vec![vec![Vec3::ZERO; 4]], vec![0.0], vec![vec![]])
        .unwrap();
    assert!(matches!(
        scene.add_mesh_controller(leaf, Box::new(four)),
        Err(SceneError::AttributeLength { .. })
    ));
    let group = scene.add_group(scene.root(), "g").unwrap();
    assert!(matches!(
        scene.add_mesh_controller(group, Box::new(morph())),
        Err(SceneError::NotAGeometry(_))
    ));
}

// ----- §1.16 skinning -----

/// The book's Fig. 4.42 layout: two bones, five vertices — V0, V1 on bone 0 only, V2 shared
/// half and half, V3, V4 on bone 1 only. Bone 0 at the origin; bone 1 its child at (2,0,0),
/// rotated 90° about +z, so `W₁(x, y, z) = (2 − y, x, z)`.
///
/// * V0 = W₀(0,1,0) = (0,1,0)
/// * V1 = W₀(1,1,0) = (1,1,0)
/// * V2 = ½·W₀(2,1,0) + ½·W₁(0,1,0) = ½·(2,1,0) + ½·(1,0,0) = (1.5, 0.5, 0)
/// * V3 = W₁(1,1,0) = (1,1,0)
/// * V4 = W₁(2,1,0) = (1,2,0)
fn skin_scene() -> (Scene, [plumb_scene::NodeId; 3]) {
    let mut scene = Scene::new();
    scene.set_bound_kind(BoundKind::Aabb);
    // The skin sits *before* its bones, under a moved group: neither matters.
    let holder = scene.add_group(scene.root(), "holder").unwrap();
    scene
        .set_translation(holder, Vec3::new(10.0, 0.0, 0.0))
        .unwrap();
    let rest = vec![Vec3::ZERO; 5];
    let mesh = Mesh::triangles(rest, vec![0, 2, 1, 2, 4, 3])
        .unwrap()
        .with_normals(vec![Vec3::X; 5])
        .unwrap();
    let skin = scene.add_geometry(holder, "skin", Arc::new(mesh)).unwrap();
    let b0 = scene.add_group(scene.root(), "bone0").unwrap();
    let b1 = scene.add_group(b0, "bone1").unwrap();
    scene.set_translation(b1, Vec3::new(2.0, 0.0, 0.0)).unwrap();
    scene
        .set_rotation(
            b1,
            rotation_axis_angle(Vec3::Z, std::f32::consts::FRAC_PI_2).unwrap(),
        )
        .unwrap();
    let o = Vec3::new;
    let controller = SkinController::new(
        vec![b0, b1],
        vec![
            vec![1.0, 0.0],
            vec![1.0, 0.0],
            vec![0.5, 0.5],
            vec![0.0, 1.0],
            vec![0.0, 1.0],
        ],
        vec![
            vec![o(0.0, 1.0, 0.0), Vec3::ZERO],
            vec![o(1.0, 1.0, 0.0), Vec3::ZERO],
            vec![o(2.0, 1.0, 0.0), o(0.0, 1.0, 0.0)],
            vec![Vec3::ZERO, o(1.0, 1.0, 0.0)],
            vec![Vec3::ZERO, o(2.0, 1.0, 0.0)],
        ],
    )
    .unwrap();
    scene
        .add_mesh_controller(skin, Box::new(controller))
        .unwrap();
    (scene, [skin, b0, b1])
}

#[test]
fn skin_two_bones_five_vertices() {
    let (mut scene, [skin, b0, _]) = skin_scene();
    scene.update(0.0);
    let want = [
        Vec3::new(0.0, 1.0, 0.0),
        Vec3::new(1.0, 1.0, 0.0),
        Vec3::new(1.5, 0.5, 0.0),
        Vec3::new(1.0, 1.0, 0.0),
        Vec3::new(1.0, 2.0, 0.0),
    ];
    let got = scene.mesh(skin).unwrap().positions().to_vec();
    for (g, w) in got.iter().zip(&want) {
        assert!(close(*g, *w, 1e-6), "{got:?}");
    }
    // The skin is in world space: its world transform is the identity despite `holder`.
    assert!(scene.world_transform(skin).unwrap().is_identity());
    // Both triangles (V0 V2 V1), (V2 V4 V3) are counter-clockwise seen from +z.
    for n in scene.mesh(skin).unwrap().normals().unwrap() {
        assert!(close(*n, Vec3::Z, 1e-6), "{n:?}");
    }
    // The bound follows: AABB of the five vertices, (0, 0.5, 0)–(1.5, 2, 0).
    let Bound::Aabb { min, max } = *scene.world_bound(skin).unwrap() else {
        panic!("aabb expected");
    };
    assert!(
        close(min, Vec3::new(0.0, 0.5, 0.0), 1e-6) && close(max, Vec3::new(1.5, 2.0, 0.0), 1e-6)
    );

    // Moving the root bone moves the skin in the same update (the bones are current first,
    // though the skin comes before them in the tree). Bone 0 at (0,0,5), turned 90° about +x:
    // W₀(x, y, z) = (x, −z, y) + (0,0,5), so every vertex (x, y, 0) ↦ (x, 0, y + 5), and the
    // +z normals turn to −y.
    scene.set_translation(b0, Vec3::new(0.0, 0.0, 5.0)).unwrap();
    scene
        .set_rotation(
            b0,
            rotation_axis_angle(Vec3::X, std::f32::consts::FRAC_PI_2).unwrap(),
        )
        .unwrap();
    scene.update(1.0);
    let mesh = scene.mesh(skin).unwrap();
    for (g, w) in mesh.positions().iter().zip(&want) {
        assert!(
            close(*g, Vec3::new(w.x, 0.0, w.y + 5.0), 1e-5),
            "{g:?} for {w:?}"
        );
    }
    for n in mesh.normals().unwrap() {
        assert!(close(*n, -Vec3::Y, 1e-5), "{n:?}");
    }
    assert!(scene
        .world_bound(skin)
        .unwrap()
        .contains_point(Vec3::new(1.0, 0.0, 7.0), 1e-5));
}

#[test]
fn skin_errors() {
    let (mut scene, [skin, b0, _]) = skin_scene();
    assert!(matches!(
        SkinController::new(vec![b0], vec![vec![f32::NAN]], vec![vec![Vec3::ZERO]]),
        Err(SceneError::NonFinite { .. })
    ));
    assert!(matches!(
        SkinController::new(vec![b0], vec![vec![1.0, 0.0]], vec![vec![Vec3::ZERO]]),
        Err(SceneError::InvalidArgument { .. })
    ));
    assert!(matches!(
        SkinController::new(vec![], vec![], vec![]),
        Err(SceneError::InvalidArgument { .. })
    ));
    // One vertex against the five-vertex skin mesh.
    let one = SkinController::new(vec![b0], vec![vec![1.0]], vec![vec![Vec3::ZERO]]).unwrap();
    assert!(matches!(
        scene.add_mesh_controller(skin, Box::new(one)),
        Err(SceneError::AttributeLength { .. })
    ));
    // A bone that is gone.
    let gone = scene.add_group(scene.root(), "gone").unwrap();
    scene.remove(gone).unwrap();
    let stale =
        SkinController::new(vec![gone], vec![vec![1.0]; 5], vec![vec![Vec3::ZERO]; 5]).unwrap();
    assert!(matches!(
        scene.add_mesh_controller(skin, Box::new(stale)),
        Err(SceneError::StaleId(_))
    ));
}

// ----- §1.3 discrete LOD -----

/// A LOD switch at (0,0,−10) with centre (0,0,0) and three cubes: [0, 5), [5, 20), [20, 50).
fn lod_scene(scale: f32) -> (Scene, plumb_scene::NodeId, [plumb_scene::NodeId; 3]) {
    let mut scene = Scene::new();
    let lod = scene.add_dlod(scene.root(), "lod", Vec3::ZERO).unwrap();
    scene
        .set_translation(lod, Vec3::new(0.0, 0.0, -10.0))
        .unwrap();
    scene.set_uniform_scale(lod, scale).unwrap();
    let cube = Arc::new(Mesh::cube());
    let kids = ["high", "mid", "low"].map(|n| scene.add_geometry(lod, n, cube.clone()).unwrap());
    for (c, (min, max)) in kids.iter().zip([(0.0, 5.0), (5.0, 20.0), (20.0, 50.0)]) {
        scene.set_lod_range(lod, *c, min, max).unwrap();
    }
    scene.update(0.0);
    (scene, lod, kids)
}

#[test]
fn dlod_selects_by_distance() {
    let (mut scene, lod, [high, mid, low]) = lod_scene(1.0);
    // (eye, distance to (0,0,−10), child)
    let rows = [
        (Vec3::new(0.0, 0.0, -10.0), Some(high)), // 0
        (Vec3::new(0.0, 3.0, -10.0), Some(high)), // 3
        (Vec3::new(0.0, 0.0, -5.0), Some(mid)),   // 5 exactly: [5, 20)
        (Vec3::new(0.0, 0.0, 0.0), Some(mid)),    // 10
        (Vec3::new(0.0, 0.0, 10.0), Some(low)),   // 20 exactly
        (Vec3::new(0.0, 0.0, 39.0), Some(low)),   // 49
        (Vec3::new(0.0, 0.0, 40.0), None),        // 50 exactly: past [20, 50)
        (Vec3::new(30.0, 0.0, 30.0), None),       // √(30² + 40²) = 50
        (Vec3::new(0.0, 4.0, -7.0), Some(mid)),   // √(4² + 3²) = 5
    ];
    for (eye, want) in rows {
        scene.select_levels_of_detail(eye);
        assert_eq!(scene.active_child(lod).unwrap(), want, "eye {eye}");
    }
    assert_eq!(
        scene.world_lod_center(lod).unwrap(),
        Vec3::new(0.0, 0.0, -10.0)
    );
}

#[test]
fn dlod_scales_its_intervals() {
    // Scale 2: intervals [0, 10), [10, 40), [40, 100). Eye at the origin, distance 10.
    let (mut scene, lod, [high, mid, _]) = lod_scene(2.0);
    scene.select_levels_of_detail(Vec3::ZERO);
    assert_eq!(scene.active_child(lod).unwrap(), Some(mid));
    // Distance 8: `high` at scale 2 ([0, 10)), `mid` at scale 1.
    scene.select_levels_of_detail(Vec3::new(0.0, 0.0, -2.0));
    assert_eq!(scene.active_child(lod).unwrap(), Some(high));
    let (mut unscaled, lod1, [_, mid1, _]) = lod_scene(1.0);
    unscaled.select_levels_of_detail(Vec3::new(0.0, 0.0, -2.0));
    assert_eq!(unscaled.active_child(lod1).unwrap(), Some(mid1));
}

#[test]
fn dlod_draw_and_pick_see_only_the_active_child() {
    let (mut scene, lod, [_, mid, _]) = lod_scene(1.0);
    let mut camera = Camera::perspective(1.0, 1.0, 0.1, 100.0).unwrap();
    camera
        .look_at(Vec3::ZERO, Vec3::new(0.0, 0.0, -1.0), Vec3::Y)
        .unwrap();
    let mut renderer = SoftRenderer::new(8, 8, Some(1)).unwrap();
    let stats = scene.draw(&camera, &mut renderer).unwrap();
    // Distance 10: only `mid` is drawn.
    assert_eq!(scene.active_child(lod).unwrap(), Some(mid));
    assert_eq!(stats.opaque, 1);
    assert_eq!(scene.cull(&camera).items(), &[mid]);
    let ray = Ray::new(Vec3::ZERO, Vec3::new(0.0, 0.0, -1.0)).unwrap();
    // The ray passes through all three cubes; only `mid` is hit (one record per triangle).
    let hits = scene.pick(&ray);
    assert!(!hits.is_empty());
    assert!(hits.iter().all(|h| h.node == mid));
    // The switch bound covers all children (all are updated).
    assert!(!scene.world_bound(lod).unwrap().is_empty());
}

/// A view is a value: computing one changes nothing, two cameras give two views of one scene,
/// and culling a view shows its own LOD choice whatever the last draw chose.
#[test]
fn views_of_one_scene_are_independent_values() {
    let (mut scene, lod, [high, mid, low]) = lod_scene(1.0);
    let camera_at = |eye: Vec3| {
        let mut c = Camera::perspective(1.0, 1.0, 0.1, 100.0).unwrap();
        c.look_at(eye, Vec3::new(0.0, 0.0, -10.0), Vec3::Y).unwrap();
        c
    };
    // Distances to the LOD centre (0, 0, −10): 2, 10 and 30.
    let (near, middle, far) = (
        camera_at(Vec3::new(0.0, 0.0, -8.0)),
        camera_at(Vec3::ZERO),
        camera_at(Vec3::new(0.0, 0.0, 20.0)),
    );
    let mut renderer = SoftRenderer::new(8, 8, Some(1)).unwrap();
    scene.draw(&middle, &mut renderer).unwrap();
    assert_eq!(scene.active_child(lod).unwrap(), Some(mid));
    let (v_near, v_far) = (scene.view(&near), scene.view(&far));
    assert_eq!(v_near.lod_child(lod), Some(high));
    assert_eq!(v_far.lod_child(lod), Some(low));
    assert_eq!(v_far.eye(), Vec3::new(0.0, 0.0, 20.0));
    assert_eq!(
        v_near.lod_choices().collect::<Vec<_>>(),
        vec![(lod, Some(high))]
    );
    // Computing views recorded nothing: the scene still shows the drawn view's child.
    assert_eq!(scene.active_child(lod).unwrap(), Some(mid));
    // Each view culls with its own choice; `cull(camera)` is the camera's own view.
    assert_eq!(scene.cull_view(&v_near).items(), &[high]);
    assert_eq!(scene.cull(&far).items(), &[low]);
    // Preparing a view records it (what picking sees between frames).
    let (view, _) = scene.prepare_view(&near);
    assert_eq!(view, v_near);
    assert_eq!(scene.active_child(lod).unwrap(), Some(high));
    // A node id the view does not know shows nothing.
    assert_eq!(view.lod_child(scene.root()), None);
}

/// `docs/examples/controllers.json`: `morpher` blends from (0,0,0), (1,0,0), (0,1,0) to twice
/// that over t ∈ [0, 1], wrapping.
#[test]
fn scene_file_morph() {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/examples/controllers.json");
    let mut s = plumb_scene::io::load(&path, &Default::default()).unwrap();
    let node = s.scene.find("morpher").unwrap();
    // t = 0.5: c = 0.5 → vertex 1 at 1 + 0.5·1 = 1.5; t = 1.25 wraps to 0.25 → 1.25.
    for (t, x) in [(0.5, 1.5), (1.25, 1.25)] {
        s.scene.update(t);
        let p = s.scene.mesh(node).unwrap().positions().to_vec();
        assert_eq!(
            p,
            vec![Vec3::ZERO, Vec3::new(x, 0.0, 0.0), Vec3::new(0.0, x, 0.0)]
        );
    }
}

/// `docs/examples/lod.json`: centre (0,0,−10), intervals [0,5), [5,20), [20,100).
#[test]
fn scene_file_lod() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/examples/lod.json");
    let mut s = plumb_scene::io::load(&path, &Default::default()).unwrap();
    let rock = s.scene.find("rock").unwrap();
    assert_eq!(s.scene.lod_center(rock).unwrap(), Vec3::ZERO);
    s.scene.update(0.0);
    for (eye, child) in [
        (Vec3::new(0.0, 0.0, -8.0), Some("fine")),   // 2
        (Vec3::ZERO, Some("medium")),                // 10
        (Vec3::new(0.0, 0.0, 50.0), Some("coarse")), // 60
        (Vec3::new(0.0, 0.0, 90.0), None),           // 100
    ] {
        s.scene.select_levels_of_detail(eye);
        let active = s.scene.active_child(rock).unwrap();
        assert_eq!(active, child.map(|c| s.scene.find(c).unwrap()), "eye {eye}");
    }
    // `lod` only on lod nodes, and not more ranges than children.
    let bad = r#"{"format": "plumb-scene", "version": 1, "root": {"children": [
        {"kind": "lod", "lod": {"ranges": [[0, 1], [1, 2]]}, "children": [{"mesh": {"box": {}}}]}]}}"#;
    assert!(plumb_scene::io::json::parse(&path, bad)
        .map(|d| plumb_scene::io::json::build(&d, &path, &Default::default()))
        .unwrap()
        .is_err());
    // Nor fewer: a child without a range would never be drawn, without a word.
    let bad = r#"{"format": "plumb-scene", "version": 1, "root": {"children": [
        {"kind": "lod", "lod": {"ranges": [[0, 1]]},
         "children": [{"mesh": {"box": {}}}, {"mesh": {"sphere": {}}}]}]}}"#;
    let e = plumb_scene::io::json::parse(&path, bad)
        .map(|d| plumb_scene::io::json::build(&d, &path, &Default::default()))
        .unwrap()
        .map(|_| ())
        .expect_err("fewer ranges than children");
    assert!(e.to_string().contains("1 LOD ranges for 2 children"), "{e}");
    let bad = r#"{"format": "plumb-scene", "version": 1, "root": {"children": [
        {"kind": "group", "lod": {}}]}}"#;
    assert!(plumb_scene::io::json::parse(&path, bad)
        .map(|d| plumb_scene::io::json::build(&d, &path, &Default::default()))
        .unwrap()
        .is_err());
}

#[test]
fn dlod_errors() {
    let (mut scene, lod, [high, ..]) = lod_scene(1.0);
    assert!(matches!(
        scene.set_lod_range(lod, high, 5.0, 1.0),
        Err(SceneError::InvalidArgument { .. })
    ));
    assert!(matches!(
        scene.set_lod_range(lod, high, -1.0, 1.0),
        Err(SceneError::InvalidArgument { .. })
    ));
    assert!(matches!(
        scene.set_lod_range(lod, high, f32::NAN, 1.0),
        Err(SceneError::NonFinite { .. })
    ));
    let plain = scene.add_switch(scene.root(), "plain").unwrap();
    let kid = scene.add_group(plain, "kid").unwrap();
    assert!(matches!(
        scene.set_lod_range(plain, kid, 0.0, 1.0),
        Err(SceneError::NotASwitch(_))
    ));
    assert!(matches!(
        scene.set_lod_range(lod, kid, 0.0, 1.0),
        Err(SceneError::NotAChild { .. })
    ));
    assert!(scene.add_dlod(scene.root(), "bad", Vec3::NAN).is_err());
    // An unbounded last interval is allowed.
    scene.set_lod_range(lod, high, 0.0, f32::INFINITY).unwrap();
}
