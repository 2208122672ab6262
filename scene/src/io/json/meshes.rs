//! Meshes in scene files: the generators (plane, box, sphere, torus, cylinder, each charged
//! against the primitive budget before it is made), inline meshes, and the continuous-LOD,
//! curve and surface meshes of [`clod`](super::clod).

use glam::{Vec2, Vec3};

use super::clod;
use super::ctx::{v3, v4, Ctx};
use super::doc::*;
use super::real::{re, re3 as r3, re4 as r4};
use crate::io::budget::Budget;
use crate::io::error::IoError;
use crate::values::mesh::{Mesh, MeshTopology};
use crate::values::shapes;

/// The triangles a generator of valid parameters makes (`None` for other meshes, and for
/// parameters the generator refuses, so that its own error comes first).
fn generated_triangles(m: &MeshDoc) -> Option<(&'static str, u64)> {
    let ok = |n: u32, min: u32| (min..=shapes::MAX_SEGMENTS).contains(&n);
    let n = u64::from;
    match m {
        MeshDoc::Plane(p) if ok(p.divisions, 1) => Some(("plane", 2 * n(p.divisions).pow(2))),
        MeshDoc::Box(_) => Some(("box", 12)),
        MeshDoc::Sphere(s) if ok(s.stacks, 2) && ok(s.slices, 3) => {
            Some(("sphere", 2 * n(s.stacks) * n(s.slices)))
        }
        MeshDoc::Torus(t) if ok(t.rings, 3) && ok(t.sides, 3) => {
            Some(("torus", 2 * n(t.rings) * n(t.sides)))
        }
        MeshDoc::Cylinder(c) if ok(c.slices, 3) => {
            Some(("cylinder", if c.caps { 4 } else { 2 } * n(c.slices)))
        }
        _ => None,
    }
}

pub(super) fn mesh(ctx: &Ctx, context: &str, m: &MeshDoc) -> Result<Mesh, IoError> {
    let err = ctx.scene_err(context);
    if let Some((shape, triangles)) = generated_triangles(m) {
        ctx.charge(context, Budget::GeneratedPrimitives, triangles, || {
            format!("a {shape} of {triangles} triangles")
        })?;
    }
    let mesh = match m {
        MeshDoc::Plane(p) => shapes::plane(p.size.get(), p.divisions),
        MeshDoc::Box(b) => shapes::cuboid(v3(&b.size)),
        MeshDoc::Sphere(s) => shapes::sphere(s.radius.get(), s.stacks, s.slices),
        MeshDoc::Torus(t) => shapes::torus(t.major.get(), t.minor.get(), t.rings, t.sides),
        MeshDoc::Cylinder(c) => shapes::cylinder(c.radius.get(), c.height.get(), c.slices, c.caps),
        MeshDoc::Inline(i) => return inline(ctx, context, i),
        MeshDoc::Clod(c) => return clod::clod_chain(ctx, context, c, mesh),
        MeshDoc::Curve(c) => return clod::curve(ctx, context, c),
        MeshDoc::Surface(s) => return clod::surface(ctx, context, s),
        MeshDoc::Particles(_) => {
            return Err(ctx.invalid(context, "\"particles\" is the mesh of a geometry node only"))
        }
    };
    mesh.map_err(err)
}

fn inline(ctx: &Ctx, context: &str, m: &InlineMeshDoc) -> Result<Mesh, IoError> {
    let err = ctx.scene_err(context);
    let topology = match m.topology {
        TopologyDoc::Points => MeshTopology::Points,
        TopologyDoc::Lines => MeshTopology::Lines,
        TopologyDoc::LineStrip => MeshTopology::LineStrip,
        TopologyDoc::LineLoop => MeshTopology::LineLoop,
        TopologyDoc::Triangles => MeshTopology::Triangles,
    };
    let positions: Vec<Vec3> = m.positions.iter().map(v3).collect();
    let n =
        u32::try_from(positions.len()).map_err(|_| ctx.invalid(context, "too many positions"))?;
    let indices = m.indices.clone().unwrap_or_else(|| (0..n).collect());
    let mut mesh = Mesh::new(topology, positions, indices).map_err(&err)?;
    match (&m.normals, m.generate_normals) {
        (Some(_), true) => {
            return Err(ctx.invalid(
                context,
                "give \"normals\" or \"generate_normals\", not both",
            ))
        }
        (Some(normals), false) => {
            mesh = mesh
                .with_normals(normals.iter().map(v3).collect())
                .map_err(&err)?;
        }
        (None, true) => mesh = mesh.with_generated_normals(),
        (None, false) => {}
    }
    if let Some(colors) = &m.colors {
        mesh = mesh
            .with_colors(colors.iter().map(v4).collect())
            .map_err(&err)?;
    }
    for set in &m.uvs {
        let uvs = set
            .iter()
            .map(|p| Vec2::new(p[0].get(), p[1].get()))
            .collect();
        mesh = mesh.with_uv_set(uvs).map_err(&err)?;
    }
    if let Some(t) = &m.tangents {
        mesh = mesh
            .with_tangents(t.iter().map(v4).collect())
            .map_err(&err)?;
    }
    if let Some(a) = m.active {
        mesh = mesh.with_active_count(Some(a as usize)).map_err(&err)?;
    }
    Ok(mesh)
}

/// The inline document of a mesh (the reverse of [`mesh`] for inline meshes; indices left
/// out when they are `0, 1, 2, …`).
pub(super) fn mesh_doc(m: &Mesh) -> InlineMeshDoc {
    let n = m.positions().len();
    let identity = m.indices().len() == n
        && m.indices()
            .iter()
            .enumerate()
            .all(|(i, &k)| usize::try_from(k).is_ok_and(|k| k == i));
    InlineMeshDoc {
        topology: match m.topology() {
            MeshTopology::Points => TopologyDoc::Points,
            MeshTopology::Lines => TopologyDoc::Lines,
            MeshTopology::LineStrip => TopologyDoc::LineStrip,
            MeshTopology::LineLoop => TopologyDoc::LineLoop,
            MeshTopology::Triangles => TopologyDoc::Triangles,
        },
        positions: m.positions().iter().copied().map(r3).collect(),
        normals: m.normals().map(|v| v.iter().copied().map(r3).collect()),
        generate_normals: false,
        colors: m.colors().map(|v| v.iter().copied().map(r4).collect()),
        uvs: m
            .uv_sets()
            .iter()
            .map(|set| set.iter().map(|p: &Vec2| [re(p.x), re(p.y)]).collect())
            .collect(),
        indices: (!identity).then(|| m.indices().to_vec()),
        tangents: m.tangents().map(|v| v.iter().copied().map(r4).collect()),
        active: m
            .active_count()
            .map(|a| u32::try_from(a).unwrap_or(u32::MAX)),
    }
}
