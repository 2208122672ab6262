//! Inverse kinematics (book-advanced §1.17): the book's 2-joint sample — one joint sliding
//! along x, one turning about z — with one goal. Expected values are worked out by hand.

use glam::Vec3;
use plumb_raster::math;
use plumb_scene::{IkController, IkGoal, IkJoint, NodeId, Scene, SceneError};

struct Rig {
    scene: Scene,
    slider: NodeId,
    pivot: NodeId,
    tip: NodeId,
    goal: NodeId,
}

/// slider (at the origin) → pivot (at the slider) → tip at (1.5, 0, 0) in the pivot's frame;
/// a goal node at `target`.
fn rig(target: Vec3) -> Rig {
    let mut scene = Scene::new();
    let root = scene.root();
    let slider = scene.add_group(root, "slider").unwrap();
    let pivot = scene.add_group(slider, "pivot").unwrap();
    let tip = scene.add_group(pivot, "tip").unwrap();
    scene
        .set_translation(tip, Vec3::new(1.5, 0.0, 0.0))
        .unwrap();
    let goal = scene.add_group(root, "goal").unwrap();
    scene.set_translation(goal, target).unwrap();
    Rig {
        scene,
        slider,
        pivot,
        tip,
        goal,
    }
}

fn controller(r: &Rig, angle: (f32, f32)) -> IkController {
    let joints = vec![
        IkJoint::new(r.slider)
            .with_translation(0, -2.0, 2.0)
            .unwrap(),
        IkJoint::new(r.pivot)
            .with_rotation(2, angle.0, angle.1)
            .unwrap(),
    ];
    let goals = vec![IkGoal::new(r.goal, r.tip, 1.0).unwrap()];
    IkController::new(joints, goals).unwrap()
}

/// The pivot's angle about z, from its local rotation's x column.
fn angle(scene: &Scene, pivot: NodeId) -> f32 {
    let x = scene.local_transform(pivot).unwrap().rotation().unwrap() * Vec3::X;
    math::atan2(x.y, x.x)
}

/// Goal (1, 1, 0), rod 1.5: the tip is (t + 1.5 cos θ, 1.5 sin θ, 0), so sin θ = 2/3,
/// θ = asin(2/3) ≈ 0.72973 (the other root, π − θ ≈ 2.41, is outside [−π/2, π/2]), and
/// t = 1 − 1.5·√5/3 = 1 − √5/2 ≈ −0.11803. Both inside the limits.
#[test]
fn two_joint_sample_reaches_its_goal_within_limits() {
    let mut r = rig(Vec3::new(1.0, 1.0, 0.0));
    let half_pi = std::f32::consts::FRAC_PI_2;
    let c = controller(&r, (-half_pi, half_pi));
    assert_eq!(c.iterations(), 128);
    assert!(c.order_end_to_root);
    r.scene.add_ik_controller(c).unwrap();
    r.scene.update(0.0);

    let tip = r.scene.world_transform(r.tip).unwrap().translation();
    let d = (tip - Vec3::new(1.0, 1.0, 0.0)).length();
    assert!(d < 1e-4, "tip {tip} is {d} from the goal");
    let theta = angle(&r.scene, r.pivot);
    let t = r.scene.local_transform(r.slider).unwrap().translation().x;
    assert!((theta - 0.729_728).abs() < 1e-3, "θ = {theta}");
    assert!((t - (1.0 - 5f32.sqrt() / 2.0)).abs() < 1e-3, "t = {t}");
    assert!((-half_pi..=half_pi).contains(&theta));
    assert!((-2.0..=2.0).contains(&t));
    // Only x slides.
    let trn = r.scene.local_transform(r.slider).unwrap().translation();
    assert_eq!((trn.y, trn.z), (0.0, 0.0));
}

/// The same goal with θ limited to [−0.5, 0.5]: the tip's height is at most 1.5 sin 0.5 ≈
/// 0.71914, so the best the chain can do is θ = 0.5 and t = 1 − 1.5 cos 0.5 ≈ −0.31637, at
/// distance 1 − 0.71914 = 0.28086 from the goal. The angle never leaves its limits.
#[test]
fn limits_hold_when_the_goal_is_out_of_reach() {
    let mut r = rig(Vec3::new(1.0, 1.0, 0.0));
    let c = controller(&r, (-0.5, 0.5));
    r.scene.add_ik_controller(c).unwrap();
    r.scene.update(0.0);
    let theta = angle(&r.scene, r.pivot);
    assert!((-0.5 - 1e-6..=0.5 + 1e-6).contains(&theta), "θ = {theta}");
    assert!((theta - 0.5).abs() < 1e-4, "θ = {theta}");
    let t = r.scene.local_transform(r.slider).unwrap().translation().x;
    assert!((t + 0.316_374).abs() < 1e-3, "t = {t}");
    let tip = r.scene.world_transform(r.tip).unwrap().translation();
    let d = (tip - Vec3::new(1.0, 1.0, 0.0)).length();
    assert!((d - 0.280_86).abs() < 1e-3, "d = {d}");
}

/// The result does not depend on anything but the inputs: two scenes give the same bits, and
/// root-to-end order reaches the same goal.
#[test]
fn solve_is_deterministic_and_order_independent_here() {
    let solve = |end_to_root: bool| {
        let mut r = rig(Vec3::new(0.5, -1.2, 0.0));
        let mut c = controller(&r, (-1.5, 1.5));
        c.order_end_to_root = end_to_root;
        r.scene.add_ik_controller(c).unwrap();
        r.scene.update(0.0);
        let tip = r.scene.world_transform(r.tip).unwrap().translation();
        (tip, *r.scene.local_transform(r.pivot).unwrap())
    };
    let a = solve(true);
    let b = solve(true);
    assert_eq!(a, b);
    let c = solve(false);
    assert!((a.0 - c.0).length() < 1e-4);
    assert!((a.0 - Vec3::new(0.5, -1.2, 0.0)).length() < 1e-4);
}

#[test]
fn bad_ik_input_is_a_typed_error() {
    let mut r = rig(Vec3::ONE);
    assert!(matches!(
        IkGoal::new(r.goal, r.tip, 0.0),
        Err(SceneError::InvalidArgument { .. })
    ));
    assert!(matches!(
        IkGoal::new(r.goal, r.tip, f32::NAN),
        Err(SceneError::NonFinite { .. })
    ));
    assert!(IkJoint::new(r.slider)
        .with_translation(3, 0.0, 1.0)
        .is_err());
    assert!(IkJoint::new(r.slider).with_rotation(2, 1.0, -1.0).is_err());
    assert!(IkController::new(vec![], vec![]).is_err());
    // The pivot's child is the tip, not the goal: not a chain.
    let broken = IkController::new(
        vec![IkJoint::new(r.pivot), IkJoint::new(r.goal)],
        vec![IkGoal::new(r.goal, r.tip, 1.0).unwrap()],
    )
    .unwrap();
    assert!(matches!(
        r.scene.add_ik_controller(broken),
        Err(SceneError::InvalidArgument { .. })
    ));
}
