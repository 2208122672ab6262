//! Shared fixtures and proptest strategies for the integration tests.

use std::sync::Arc;

use glam::{Mat3, Vec3};
use plumb_scene::{Bound, Mesh, NodeId, Scene, Transform};
use proptest::prelude::*;

/// Proptest case count: `PLUMB_PROPTEST_CASES` or 256.
pub fn cases() -> u32 {
    std::env::var("PLUMB_PROPTEST_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(256)
}

/// A few shared meshes of different topologies (one empty).
pub fn meshes() -> Vec<Arc<Mesh>> {
    vec![
        Arc::new(Mesh::cube()),
        Arc::new(
            Mesh::triangles(
                vec![
                    Vec3::new(0.0, 0.0, 0.0),
                    Vec3::new(3.0, 0.0, 1.0),
                    Vec3::new(0.0, 2.0, -1.0),
                ],
                vec![0, 1, 2],
            )
            .unwrap(),
        ),
        Arc::new(Mesh::points(vec![Vec3::new(5.0, 1.0, 0.0), Vec3::new(-2.0, 4.0, 3.0)]).unwrap()),
        Arc::new(Mesh::polyline(vec![Vec3::ZERO, Vec3::X * 4.0, Vec3::Y * 4.0], true).unwrap()),
        Arc::new(Mesh::triangles(vec![], vec![]).unwrap()),
    ]
}

/// How a random local transform is built.
#[derive(Debug, Clone)]
pub struct TransformSpec {
    pub translation: [f32; 3],
    pub axis: [f32; 3],
    pub angle: f32,
    pub scale_mode: u8,
    pub scale: [f32; 3],
    pub signs: [bool; 3],
}

impl TransformSpec {
    pub fn build(&self) -> Transform {
        let t = Vec3::from(self.translation);
        let axis = Vec3::from(self.axis) + Vec3::new(0.0, 0.0, 0.01);
        let r = plumb_scene::rotation_axis_angle(axis, self.angle).unwrap();
        let sign = |i: usize| if self.signs[i] { -1.0 } else { 1.0 };
        let s = Vec3::new(
            self.scale[0] * sign(0),
            self.scale[1] * sign(1),
            self.scale[2] * sign(2),
        );
        match self.scale_mode % 5 {
            0 => Transform::IDENTITY,
            1 => Transform::from_translation(t).unwrap(),
            2 => Transform::from_rotation(r)
                .unwrap()
                .with_uniform_scale(s.x)
                .unwrap()
                .with_translation(t)
                .unwrap(),
            3 => Transform::from_rotation(r)
                .unwrap()
                .with_scale(s)
                .unwrap()
                .with_translation(t)
                .unwrap(),
            _ => {
                // General form: rotation · scale · rotationᵀ-ish shear.
                let r2 = plumb_scene::rotation_axis_angle(Vec3::new(1.0, 0.3, -0.2), 0.7).unwrap();
                let m = r * Mat3::from_diagonal(s) * r2;
                Transform::from_affine(m, t).unwrap()
            }
        }
    }
}

pub fn transform_spec() -> impl Strategy<Value = TransformSpec> {
    (
        prop::array::uniform3(-10.0f32..10.0),
        prop::array::uniform3(-1.0f32..1.0),
        -3.2f32..3.2,
        0u8..5,
        prop::array::uniform3(0.5f32..2.0),
        prop::array::uniform3(prop::bool::weighted(0.2)),
    )
        .prop_map(
            |(translation, axis, angle, scale_mode, scale, signs)| TransformSpec {
                translation,
                axis,
                angle,
                scale_mode,
                scale,
                signs,
            },
        )
}

/// A node of a random tree: parent choice among earlier group nodes, kind, mesh, transform.
#[derive(Debug, Clone)]
pub struct NodeSpec {
    pub parent: usize,
    pub kind: u8,
    pub mesh: usize,
    pub local: TransformSpec,
}

pub fn tree_spec(max: usize) -> impl Strategy<Value = Vec<NodeSpec>> {
    prop::collection::vec(
        (any::<usize>(), 0u8..3, any::<usize>(), transform_spec()).prop_map(
            |(parent, kind, mesh, local)| NodeSpec {
                parent,
                kind,
                mesh,
                local,
            },
        ),
        1..max,
    )
}

/// Builds a random tree under the root. Parents are chosen among group/switch nodes whose depth
/// is below `max_depth`. Returns every created id (root first).
pub fn build_tree(scene: &mut Scene, spec: &[NodeSpec], max_depth: usize) -> Vec<NodeId> {
    let meshes = meshes();
    let mut ids = vec![scene.root()];
    let mut groups = vec![scene.root()];
    for (i, n) in spec.iter().enumerate() {
        let parent = groups[n.parent % groups.len()];
        let name = format!("n{i}");
        let id = match n.kind {
            0 => scene.add_group(parent, name).unwrap(),
            1 => scene.add_switch(parent, name).unwrap(),
            _ => scene
                .add_geometry(parent, name, meshes[n.mesh % meshes.len()].clone())
                .unwrap(),
        };
        scene.set_local_transform(id, n.local.build()).unwrap();
        if n.kind < 2 && scene.depth(id).unwrap() < max_depth {
            groups.push(id);
        }
        ids.push(id);
    }
    ids
}

/// Exact bit pattern of a transform's matrix (for bit-identity checks).
pub fn transform_bits(t: &Transform) -> Vec<u32> {
    t.to_mat4()
        .to_cols_array()
        .iter()
        .map(|x| x.to_bits())
        .collect()
}

/// Exact bit pattern of a bound.
pub fn bound_bits(b: &Bound) -> Vec<u32> {
    match *b {
        Bound::Empty => vec![0],
        Bound::Sphere { center, radius } => {
            vec![
                1,
                center.x.to_bits(),
                center.y.to_bits(),
                center.z.to_bits(),
                radius.to_bits(),
            ]
        }
        Bound::Aabb { min, max } => [2]
            .into_iter()
            .chain(
                min.to_array()
                    .iter()
                    .chain(max.to_array().iter())
                    .map(|x| x.to_bits()),
            )
            .collect(),
    }
}

/// `|a − b| ≤ tol·(1 + max |a|, |b|)` componentwise.
pub fn near(a: Vec3, b: Vec3, tol: f32) -> bool {
    let scale = 1.0 + a.abs().max_element().max(b.abs().max_element());
    (a - b).abs().max_element() <= tol * scale
}
