//! The seed-002 CubeRobot (Newcastle tutorial 6): the hierarchy gives the tutorial's world
//! positions; mirroring from negative model scale; one shared mesh; the text dump.
//!
//! The tutorial's per-node `modelScale` (not inherited) is a geometry leaf under each joint
//! node whose local transform is that scale; joints carry the tutorial's translations.

use std::sync::Arc;

use glam::Vec3;
use plumb_scene::{rotation_axis_angle, Camera, Mesh, NodeId, Scene};

struct Robot {
    root: NodeId,
    body: NodeId,
    head: NodeId,
    left_arm: NodeId,
    right_arm: NodeId,
    left_leg: NodeId,
    right_leg: NodeId,
    body_mesh: NodeId,
    left_arm_mesh: NodeId,
    meshes: Vec<NodeId>,
}

/// The tutorial's cube "sits on the origin": x, z in [-1, 1]... here [-0.5, 0.5], y in [0, 1].
fn cube_on_origin() -> Mesh {
    let c = Mesh::cube();
    let p = c
        .positions()
        .iter()
        .map(|p| *p + Vec3::new(0.0, 0.5, 0.0))
        .collect();
    Mesh::triangles(p, c.indices().to_vec()).unwrap()
}

fn robot(scene: &mut Scene, cube: &Arc<Mesh>) -> Robot {
    let parent = scene.root();
    let root = scene.add_group(parent, "robot").unwrap();
    let mut meshes = Vec::new();
    let mut part = |scene: &mut Scene, parent: NodeId, name: &str, t: Vec3, s: Vec3| {
        let joint = scene.add_group(parent, name).unwrap();
        scene.set_translation(joint, t).unwrap();
        let mesh = scene
            .add_geometry(joint, format!("{name}-mesh"), cube.clone())
            .unwrap();
        scene.set_scale(mesh, s).unwrap();
        meshes.push(mesh);
        (joint, mesh)
    };
    let (body, body_mesh) = part(
        scene,
        root,
        "body",
        Vec3::new(0.0, 35.0, 0.0),
        Vec3::new(10.0, 15.0, 5.0),
    );
    let (head, _) = part(
        scene,
        body,
        "head",
        Vec3::new(0.0, 30.0, 0.0),
        Vec3::splat(5.0),
    );
    let (left_arm, left_arm_mesh) = part(
        scene,
        body,
        "leftArm",
        Vec3::new(-12.0, 30.0, -1.0),
        Vec3::new(3.0, -18.0, 3.0),
    );
    let (right_arm, _) = part(
        scene,
        body,
        "rightArm",
        Vec3::new(12.0, 30.0, -1.0),
        Vec3::new(3.0, -18.0, 3.0),
    );
    let (left_leg, _) = part(
        scene,
        body,
        "leftLeg",
        Vec3::new(-8.0, 0.0, 0.0),
        Vec3::new(3.0, -17.5, 3.0),
    );
    let (right_leg, _) = part(
        scene,
        body,
        "rightLeg",
        Vec3::new(8.0, 0.0, 0.0),
        Vec3::new(3.0, -17.5, 3.0),
    );
    Robot {
        root,
        body,
        head,
        left_arm,
        right_arm,
        left_leg,
        right_leg,
        body_mesh,
        left_arm_mesh,
        meshes,
    }
}

fn pos(s: &Scene, id: NodeId) -> Vec3 {
    s.world_transform(id).unwrap().translation()
}

#[test]
fn cube_robot_world_positions_match_the_tutorial() {
    let mut s = Scene::new();
    let cube = Arc::new(cube_on_origin());
    let r = robot(&mut s, &cube);
    s.update(0.0);
    assert_eq!(pos(&s, r.body), Vec3::new(0.0, 35.0, 0.0));
    assert_eq!(pos(&s, r.head), Vec3::new(0.0, 65.0, 0.0));
    assert_eq!(pos(&s, r.left_arm), Vec3::new(-12.0, 65.0, -1.0));
    assert_eq!(pos(&s, r.right_arm), Vec3::new(12.0, 65.0, -1.0));
    assert_eq!(pos(&s, r.left_leg), Vec3::new(-8.0, 35.0, 0.0));
    assert_eq!(pos(&s, r.right_leg), Vec3::new(8.0, 35.0, 0.0));
    // Negative model scale mirrors: arms and legs flip winding, body and head do not.
    let mirrored: Vec<bool> = r
        .meshes
        .iter()
        .map(|&m| s.world_transform(m).unwrap().is_mirror())
        .collect();
    assert_eq!(mirrored, [false, false, true, true, true, true]);
    // The arm hangs down from its shoulder: the mesh spans y in [65 − 18, 65].
    let arm = s.world_transform(r.left_arm_mesh).unwrap();
    assert_eq!(
        arm.apply_point(Vec3::new(0.0, 1.0, 0.0)),
        Vec3::new(-12.0, 47.0, -1.0)
    );
    // Model scale is not inherited: the head's world has no body scale.
    assert_eq!(s.world_transform(r.head).unwrap().scale(), Some(Vec3::ONE));
}

#[test]
fn one_node_change_moves_and_scales_the_whole_robot() {
    let mut s = Scene::new();
    let cube = Arc::new(cube_on_origin());
    let r = robot(&mut s, &cube);
    s.update(0.0);
    let head_before = *s.world_transform(r.head).unwrap();
    // modelScale of the body leaf does not touch the head.
    s.set_scale(r.body_mesh, Vec3::new(20.0, 1.0, 1.0)).unwrap();
    s.update(0.0);
    assert_eq!(*s.world_transform(r.head).unwrap(), head_before);

    // 10× bigger with one change.
    s.set_uniform_scale(r.root, 10.0).unwrap();
    s.update(0.0);
    assert_eq!(pos(&s, r.head), Vec3::new(0.0, 650.0, 0.0));
    assert_eq!(pos(&s, r.left_arm), Vec3::new(-120.0, 650.0, -10.0));

    // Spin a quarter turn about y: (x, z) → (z, −x).
    s.set_uniform_scale(r.root, 1.0).unwrap();
    s.set_rotation(
        r.root,
        rotation_axis_angle(Vec3::Y, std::f32::consts::FRAC_PI_2).unwrap(),
    )
    .unwrap();
    s.update(0.0);
    let p = pos(&s, r.left_arm);
    assert!((p - Vec3::new(-1.0, 65.0, 12.0)).length() < 1e-5, "{p}");
    let p = pos(&s, r.right_leg);
    assert!((p - Vec3::new(0.0, 35.0, -8.0)).length() < 1e-5, "{p}");
}

#[test]
fn ten_robots_share_one_mesh_and_draw_in_preorder() {
    let mut s = Scene::new();
    let cube = Arc::new(cube_on_origin());
    let robots: Vec<Robot> = (0..10)
        .map(|i| {
            let r = robot(&mut s, &cube);
            s.set_translation(r.root, Vec3::new(40.0 * i as f32 - 180.0, 0.0, 0.0))
                .unwrap();
            r
        })
        .collect();
    assert_eq!(Arc::strong_count(&cube), 1 + 60);
    s.update(0.0);
    // The tutorial's camera: (0,30,175), fov 45°, 800×600, near 1, far 10000.
    let mut cam = Camera::perspective(45f32.to_radians(), 800.0 / 600.0, 1.0, 10000.0).unwrap();
    cam.set_frame(Vec3::new(0.0, 30.0, 175.0), -Vec3::Z, Vec3::Y)
        .unwrap();
    let visible = s.cull(&cam);
    // Visible leaves come in tree pre-order (child order).
    let order = s.preorder(s.root()).unwrap();
    let rank = |id: &NodeId| order.iter().position(|o| o == id).unwrap();
    assert!(visible
        .items()
        .windows(2)
        .all(|w| rank(&w[0]) < rank(&w[1])));
    // The outermost robots (x = ±180) are out of view; their meshes are culled.
    for m in robots[0].meshes.iter().chain(&robots[9].meshes) {
        assert!(!visible.items().contains(m));
    }
    // The middle robots are fully in view.
    for r in &robots[3..7] {
        for m in &r.meshes {
            assert!(visible.items().contains(m));
        }
    }
    // Removing a robot keeps the shared mesh alive.
    s.remove(robots[0].root).unwrap();
    assert_eq!(Arc::strong_count(&cube), 1 + 54);
}

#[test]
fn text_dump_of_the_robot() {
    let mut s = Scene::new();
    let cube = Arc::new(cube_on_origin());
    let r = robot(&mut s, &cube);
    assert!(s.dump().starts_with("# world data stale"));
    s.update(0.0);
    let dump = s.dump_from(r.body).unwrap();
    let expected = "\
body [group]
  local: T=(0, 35, 0)
  world: T=(0, 35, 0)
  bound: sphere c=(-1.91764, 45.133396, -0.3072228) r=36.487034
  body-mesh [geometry triangles vertices=8 indices=36]
    local: T=(0, 0, 0) S=(10, 15, 5)
    world: T=(0, 35, 0) S=(10, 15, 5)
    bound: sphere c=(0, 42.5, 0) r=12.990381
  head [group]
    local: T=(0, 30, 0)
    world: T=(0, 65, 0)
    bound: sphere c=(0, 67.5, 0) r=4.330127
    head-mesh [geometry triangles vertices=8 indices=36]
      local: T=(0, 0, 0) S=(5, 5, 5)
      world: T=(0, 65, 0) S=(5, 5, 5)
      bound: sphere c=(0, 67.5, 0) r=4.330127
  leftArm [group]
    local: T=(-12, 30, -1)
    world: T=(-12, 65, -1)
    bound: sphere c=(-12, 56, -1) r=15.588457
    leftArm-mesh [geometry triangles vertices=8 indices=36]
      local: T=(0, 0, 0) S=(3, -18, 3) mirror
      world: T=(-12, 65, -1) S=(3, -18, 3) mirror
      bound: sphere c=(-12, 56, -1) r=15.588457
";
    assert!(dump.starts_with(expected), "{dump}");
    assert!(dump.ends_with(
        "    rightLeg-mesh [geometry triangles vertices=8 indices=36]
      local: T=(0, 0, 0) S=(3, -17.5, 3) mirror
      world: T=(8, 35, 0) S=(3, -17.5, 3) mirror
      bound: sphere c=(8, 26.25, 0) r=15.155444
"
    ));
    assert_eq!(s.dump(), s.dump(), "deterministic");
}
