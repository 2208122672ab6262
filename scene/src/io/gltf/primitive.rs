//! One glTF mesh primitive → one [`Mesh`].
//!
//! * Modes: `POINTS`, `LINES`, `LINE_LOOP`, `LINE_STRIP` and `TRIANGLES` map to the topology
//!   of the same name. `TRIANGLE_STRIP` and `TRIANGLE_FAN` are expanded to triangle lists in
//!   the order the glTF specification gives (strip triangle `i`: `(i, i+1, i+2)` for even
//!   `i`, `(i, i+2, i+1)` for odd `i`, so all keep the first triangle's winding; fan triangle
//!   `i`: `(i+1, i+2, 0)`).
//! * Non-indexed primitives draw their vertices in order.
//! * Attributes: `POSITION` (required, `VEC3`), `NORMAL`, `TEXCOORD_0..3` (sets stop at the
//!   first missing one), `COLOR_0` (`VEC3` or `VEC4`; `VEC3` gets alpha 1): float, or
//!   integers — normalized ones map to 0..1 / −1..1, others convert exactly, which is what
//!   `KHR_mesh_quantization` allows. Further colour sets are ignored.
//! * Tangents, only for a primitive whose material has a normal texture: `TANGENT` (`VEC4`,
//!   float or normalized integers; one per vertex, finite, else [`IoError::Invalid`] /
//!   [`IoError::NonFinite`]; `w`'s sign is the handedness), else generated from the normals
//!   and the normal texture's uv set by the `tangent` submodule's MikkTSpace rule (vertices on
//!   mirror seams are split). A primitive without normals gets flat normals and generated
//!   tangents, its `TANGENT` ignored, as the specification says. When the uv set is missing
//!   no tangents are made (the material is then drawn without its normal map).
//! * Skinning: every `JOINTS_n`/`WEIGHTS_n` pair (`n = 0, 1, …` up to the first missing set,
//!   so more than four influences per vertex work): joints unsigned `u8`/`u16` `VEC4`,
//!   weights float or normalized `u8`/`u16` `VEC4`. A weight that is not finite is
//!   [`IoError::NonFinite`]; one below 0 or above `1 + 10⁻³`, a set without its partner, or a
//!   vertex whose weights sum to 0 is [`IoError::Invalid`]. Each vertex's weights are then
//!   **normalized** (divided by their sum), so files whose weights do not sum exactly to 1
//!   still skin without shrinking; zero weights are dropped. Joint indices are checked
//!   against the skin of each node that uses the mesh (`gltf.rs`).
//! * Morph targets: `POSITION` and `NORMAL` deltas (`VEC3`, float or quantized integers), one
//!   per vertex; a target without one has zero deltas. `TANGENT` deltas are ignored.
//! * A triangle primitive without `NORMAL` gets **flat** normals, as the specification
//!   requires: its triangles are split apart (3 vertices each) and every corner gets the
//!   face normal.
//! * Every index must address a vertex; every value must be finite.

use ::gltf::accessor::Dimensions;
use ::gltf::mesh::{Mode, Semantic};
use glam::{Vec2, Vec3, Vec4};

use super::ctx::Ctx;
use super::draco::Source;
use crate::io::error::IoError;
use crate::values::mesh::{Mesh, MeshTopology, MAX_UV_SETS};

/// The triangle list of a strip.
pub(crate) fn strip_to_list(idx: &[u32]) -> Vec<u32> {
    let n = idx.len().saturating_sub(2);
    let mut out = Vec::with_capacity(3 * n);
    for i in 0..n {
        if i % 2 == 0 {
            out.extend_from_slice(&[idx[i], idx[i + 1], idx[i + 2]]);
        } else {
            out.extend_from_slice(&[idx[i], idx[i + 2], idx[i + 1]]);
        }
    }
    out
}

/// The triangle list of a fan.
pub(crate) fn fan_to_list(idx: &[u32]) -> Vec<u32> {
    let n = idx.len().saturating_sub(2);
    let mut out = Vec::with_capacity(3 * n);
    for i in 0..n {
        out.extend_from_slice(&[idx[i + 1], idx[i + 2], idx[0]]);
    }
    out
}

fn vec3s(v: &[f32]) -> Vec<Vec3> {
    v.chunks_exact(3).map(Vec3::from_slice).collect()
}

/// The most a single skin weight may exceed 1 (rounding in exporters) before it is refused.
pub(crate) const WEIGHT_TOLERANCE: f32 = 1e-3;

/// One morph target's deltas (zeros where the file gives none).
#[derive(Debug, Clone)]
pub(crate) struct MorphDeltas {
    pub(crate) positions: Vec<Vec3>,
    pub(crate) normals: Vec<Vec3>,
}

/// Per-vertex data read from the primitive, before building the mesh.
struct Attributes {
    positions: Vec<Vec3>,
    normals: Option<Vec<Vec3>>,
    colors: Option<Vec<Vec4>>,
    uvs: Vec<Vec<Vec2>>,
    tangents: Option<Vec<Vec4>>,
    /// Per vertex, `(joint, weight)` with normalized non-zero weights, when skinned.
    influences: Option<Vec<Vec<(u32, f32)>>>,
    targets: Vec<MorphDeltas>,
}

impl Attributes {
    /// One vertex per index (for flat normals): no normals, no tangents.
    fn unweld(&self, indices: &[u32]) -> Attributes {
        Attributes {
            normals: None,
            tangents: None,
            ..self.remap(indices)
        }
    }

    /// New vertex `k` is a copy of vertex `indices[k]`, every attribute kept.
    fn remap(&self, indices: &[u32]) -> Attributes {
        let pick = |i: &u32| *i as usize;
        let each = |v: &Vec<Vec3>| indices.iter().map(|i| v[pick(i)]).collect();
        Attributes {
            positions: each(&self.positions),
            normals: self.normals.as_ref().map(each),
            tangents: self
                .tangents
                .as_ref()
                .map(|t| indices.iter().map(|i| t[pick(i)]).collect()),
            colors: self
                .colors
                .as_ref()
                .map(|c| indices.iter().map(|i| c[pick(i)]).collect()),
            uvs: self
                .uvs
                .iter()
                .map(|s| indices.iter().map(|i| s[pick(i)]).collect())
                .collect(),
            influences: self
                .influences
                .as_ref()
                .map(|f| indices.iter().map(|i| f[pick(i)].clone()).collect()),
            targets: self
                .targets
                .iter()
                .map(|t| MorphDeltas {
                    positions: each(&t.positions),
                    normals: each(&t.normals),
                })
                .collect(),
        }
    }
}

/// A converted primitive: the mesh and what skins and morph targets need.
#[derive(Debug, Clone)]
pub(crate) struct Converted {
    pub(crate) mesh: std::sync::Arc<Mesh>,
    /// Whether the normals came from the file (not generated flat).
    pub(crate) file_normals: bool,
    /// Per vertex, `(joint, weight)`: weights normalized, zero weights dropped.
    pub(crate) influences: Option<Vec<Vec<(u32, f32)>>>,
    /// The largest joint index any `JOINTS_n` holds (zero weights included).
    pub(crate) max_joint: Option<u32>,
    pub(crate) targets: Vec<MorphDeltas>,
}

/// Every `JOINTS_n`/`WEIGHTS_n` set, as normalized influences per vertex, and the largest
/// joint index; `None` when the primitive has no sets.
#[allow(clippy::type_complexity, reason = "a private pair read once")]
fn read_skin_sets(
    src: &Source<'_, '_>,
    prim: &::gltf::Primitive<'_>,
    label: &str,
    n: usize,
) -> Result<Option<(Vec<Vec<(u32, f32)>>, u32)>, IoError> {
    let ctx = src.ctx;
    let mut per_vertex: Vec<Vec<(u32, f32)>> = Vec::new();
    let mut max_joint = 0;
    for set in 0u32.. {
        let (j, w) = (
            prim.get(&Semantic::Joints(set)),
            prim.get(&Semantic::Weights(set)),
        );
        let (j, w) = match (j, w) {
            (None, None) => break,
            (Some(j), Some(w)) => (j, w),
            (Some(_), None) => {
                return Err(ctx.invalid(label, format!("has JOINTS_{set} without WEIGHTS_{set}")))
            }
            (None, Some(_)) => {
                return Err(ctx.invalid(label, format!("has WEIGHTS_{set} without JOINTS_{set}")))
            }
        };
        if set == 0 {
            per_vertex = vec![Vec::new(); n];
        }
        let jwhat = format!("{label} JOINTS_{set}");
        let joints = src.read_uints(&jwhat, &format!("JOINTS_{set}"), &j, Dimensions::Vec4)?;
        if joints.len() != 4 * n {
            return Err(ctx.invalid(
                &jwhat,
                format!("has {} elements, POSITION has {n}", joints.len() / 4),
            ));
        }
        let wwhat = format!("{label} WEIGHTS_{set}");
        use ::gltf::accessor::DataType;
        let ok_type = match w.data_type() {
            DataType::F32 => true,
            DataType::U8 | DataType::U16 => w.normalized(),
            _ => false,
        };
        if !ok_type {
            return Err(ctx.invalid(
                &wwhat,
                format!(
                    "accessor {} must hold floats or normalized unsigned bytes or shorts",
                    w.index()
                ),
            ));
        }
        let (weights, _) =
            src.read_f32(&wwhat, &format!("WEIGHTS_{set}"), &w, &[Dimensions::Vec4])?;
        if weights.len() != 4 * n {
            return Err(ctx.invalid(
                &wwhat,
                format!("has {} elements, POSITION has {n}", weights.len() / 4),
            ));
        }
        if weights.iter().any(|x| !x.is_finite()) {
            return Err(ctx.non_finite(&wwhat, "skin weights"));
        }
        if let Some((at, bad)) = weights
            .iter()
            .enumerate()
            .find(|(_, &x)| !(0.0..=1.0 + WEIGHT_TOLERANCE).contains(&x))
        {
            return Err(ctx.invalid(
                &wwhat,
                format!("weight {bad} of vertex {} is outside 0..=1", at / 4),
            ));
        }
        for (v, (jv, wv)) in joints
            .chunks_exact(4)
            .zip(weights.chunks_exact(4))
            .enumerate()
        {
            for (&joint, &weight) in jv.iter().zip(wv) {
                max_joint = max_joint.max(joint);
                if weight > 0.0 {
                    per_vertex[v].push((joint, weight));
                }
            }
        }
    }
    if per_vertex.is_empty() {
        return Ok(None);
    }
    for (v, row) in per_vertex.iter_mut().enumerate() {
        let mut sum = 0.0;
        for &(_, w) in row.iter() {
            sum += w;
        }
        if sum <= 0.0 {
            return Err(ctx.invalid(
                &format!("{label} WEIGHTS_0"),
                format!("the weights of vertex {v} sum to 0"),
            ));
        }
        if sum != 1.0 {
            for (_, w) in row.iter_mut() {
                *w /= sum;
            }
        }
    }
    Ok(Some((per_vertex, max_joint)))
}

/// The morph targets' deltas, each with one value per vertex.
fn read_targets(
    ctx: &Ctx<'_>,
    prim: &::gltf::Primitive<'_>,
    label: &str,
    n: usize,
) -> Result<Vec<MorphDeltas>, IoError> {
    let mut out = Vec::new();
    for (k, t) in prim.morph_targets().enumerate() {
        let read = |a: Option<::gltf::Accessor<'_>>, attr: &str| -> Result<Vec<Vec3>, IoError> {
            let Some(a) = a else {
                return Ok(vec![Vec3::ZERO; n]);
            };
            let what = format!("{label} target {k} {attr}");
            let (v, _) = ctx.read_f32(&what, &a, &[Dimensions::Vec3])?;
            if v.iter().any(|x| !x.is_finite()) {
                return Err(ctx.non_finite(&what, "morph target deltas"));
            }
            if v.len() != 3 * n {
                return Err(ctx.invalid(
                    &what,
                    format!("has {} elements, POSITION has {n}", v.len() / 3),
                ));
            }
            Ok(vec3s(&v))
        };
        let positions = read(t.positions(), "POSITION")?;
        let normals = read(t.normals(), "NORMAL")?;
        out.push(MorphDeltas { positions, normals });
    }
    Ok(out)
}

fn read_attributes(
    src: &Source<'_, '_>,
    prim: &::gltf::Primitive<'_>,
    label: &str,
) -> Result<Option<(Attributes, Option<u32>)>, IoError> {
    let ctx = src.ctx;
    let Some(pos) = prim.get(&Semantic::Positions) else {
        return Ok(None);
    };
    let what = format!("{label} POSITION");
    let (p, _) = src.read_f32(&what, "POSITION", &pos, &[Dimensions::Vec3])?;
    if p.iter().any(|x| !x.is_finite()) {
        return Err(ctx.non_finite(&what, "positions"));
    }
    let positions = vec3s(&p);
    let n = positions.len();
    if let Some(points) = src.points().filter(|&m| m != n) {
        return Err(ctx.invalid(
            &what,
            format!("has {n} elements, the Draco stream has {points} points"),
        ));
    }
    let same_count = |what: &str, count: usize| -> Result<(), IoError> {
        if count == n {
            Ok(())
        } else {
            Err(ctx.invalid(what, format!("has {count} elements, POSITION has {n}")))
        }
    };
    let normals = match prim.get(&Semantic::Normals) {
        Some(a) => {
            let what = format!("{label} NORMAL");
            let (v, _) = src.read_f32(&what, "NORMAL", &a, &[Dimensions::Vec3])?;
            if v.iter().any(|x| !x.is_finite()) {
                return Err(ctx.non_finite(&what, "normals"));
            }
            same_count(&what, v.len() / 3)?;
            Some(vec3s(&v))
        }
        None => None,
    };
    let colors = match prim.get(&Semantic::Colors(0)) {
        Some(a) => {
            let what = format!("{label} COLOR_0");
            let (v, k) =
                src.read_f32(&what, "COLOR_0", &a, &[Dimensions::Vec3, Dimensions::Vec4])?;
            if v.iter().any(|x| !x.is_finite()) {
                return Err(ctx.non_finite(&what, "colours"));
            }
            same_count(&what, v.len() / k)?;
            Some(
                v.chunks_exact(k)
                    .map(|c| {
                        if k == 3 {
                            Vec3::from_slice(c).extend(1.0)
                        } else {
                            Vec4::from_slice(c)
                        }
                    })
                    .collect(),
            )
        }
        None => None,
    };
    let mut uvs = Vec::new();
    for set in 0..MAX_UV_SETS as u32 {
        let Some(a) = prim.get(&Semantic::TexCoords(set)) else {
            break;
        };
        let what = format!("{label} TEXCOORD_{set}");
        let (v, _) = src.read_f32(&what, &format!("TEXCOORD_{set}"), &a, &[Dimensions::Vec2])?;
        if v.iter().any(|x| !x.is_finite()) {
            return Err(ctx.non_finite(&what, "texture coordinates"));
        }
        same_count(&what, v.len() / 2)?;
        uvs.push(v.chunks_exact(2).map(Vec2::from_slice).collect());
    }
    let tangents = match prim.get(&Semantic::Tangents) {
        Some(a) if super::material::normal_uv_set(ctx, &prim.material())?.is_some() => {
            let what = format!("{label} TANGENT");
            let (v, _) = src.read_f32(&what, "TANGENT", &a, &[Dimensions::Vec4])?;
            if v.iter().any(|x| !x.is_finite()) {
                return Err(ctx.non_finite(&what, "tangents"));
            }
            same_count(&what, v.len() / 4)?;
            Some(v.chunks_exact(4).map(Vec4::from_slice).collect())
        }
        _ => None,
    };
    let skin = read_skin_sets(src, prim, label, n)?;
    let targets = read_targets(ctx, prim, label, n)?;
    Ok(Some((
        Attributes {
            positions,
            normals,
            colors,
            uvs,
            tangents,
            influences: skin.as_ref().map(|s| s.0.clone()),
            targets,
        },
        skin.map(|s| s.1),
    )))
}

/// Every index below `vertices`.
fn check_range(ctx: &Ctx<'_>, what: &str, idx: &[u32], vertices: u32) -> Result<(), IoError> {
    match idx.iter().enumerate().find(|(_, &i)| i >= vertices) {
        Some((at, bad)) => Err(ctx.invalid(
            what,
            format!("index {bad} at position {at} is out of range for {vertices} vertices"),
        )),
        None => Ok(()),
    }
}

/// Converts a primitive; `None` when it has no positions (nothing to draw).
///
/// # Errors
/// [`IoError::Invalid`] for bad accessors, index counts or out-of-range indices;
/// [`IoError::NonFinite`] for NaN or infinite attribute values.
pub(crate) fn convert(
    ctx: &Ctx<'_>,
    doc: &::gltf::Document,
    prim: &::gltf::Primitive<'_>,
    label: &str,
) -> Result<Option<Converted>, IoError> {
    let src = Source {
        ctx,
        draco: super::draco::decode(ctx, doc, prim, label)?,
    };
    let Some((attrs, max_joint)) = read_attributes(&src, prim, label)? else {
        return Ok(None);
    };
    let n = attrs.positions.len();
    let vertex_count =
        u32::try_from(n).map_err(|_| ctx.invalid(label, format!("{n} vertices are too many")))?;
    let indices: Vec<u32> = match (src.indices(), prim.indices()) {
        (Some(Some(faces)), _) => {
            let what = format!("{label} {}", super::draco::EXT);
            check_range(ctx, &what, faces, vertex_count)?;
            faces.to_vec()
        }
        (Some(None), _) | (None, None) => (0..vertex_count).collect(),
        (None, Some(a)) => {
            let what = format!("{label} indices");
            let idx = ctx.read_u32(&what, &a)?;
            check_range(ctx, &what, &idx, vertex_count)?;
            idx
        }
    };
    let (topology, indices) = match prim.mode() {
        Mode::Points => (MeshTopology::Points, indices),
        Mode::Lines => (MeshTopology::Lines, indices),
        Mode::LineLoop => (MeshTopology::LineLoop, indices),
        Mode::LineStrip => (MeshTopology::LineStrip, indices),
        Mode::Triangles => (MeshTopology::Triangles, indices),
        Mode::TriangleStrip => (MeshTopology::Triangles, strip_to_list(&indices)),
        Mode::TriangleFan => (MeshTopology::Triangles, fan_to_list(&indices)),
    };
    let whole = match topology {
        MeshTopology::Triangles => indices.len() % 3 == 0,
        MeshTopology::Lines => indices.len() % 2 == 0,
        _ => true,
    };
    if !whole {
        return Err(ctx.invalid(
            label,
            format!(
                "{} indices do not form whole primitives of mode {:?}",
                indices.len(),
                prim.mode()
            ),
        ));
    }
    let flat = topology == MeshTopology::Triangles && attrs.normals.is_none();
    let (attrs, indices) = if flat {
        let count = u32::try_from(indices.len())
            .map_err(|_| ctx.invalid(label, "too many indices".to_owned()))?;
        (attrs.unweld(&indices), (0..count).collect())
    } else {
        (attrs, indices)
    };
    let (attrs, indices) = with_tangents(ctx, prim, attrs, indices, topology)?;
    let err = |e| ctx.scene_err(label, e);
    let file_normals = attrs.normals.is_some();
    let (influences, targets) = (attrs.influences, attrs.targets);
    let mut mesh = Mesh::new(topology, attrs.positions, indices).map_err(err)?;
    if let Some(nrm) = attrs.normals {
        mesh = mesh.with_normals(nrm).map_err(err)?;
    } else if flat {
        mesh = mesh.with_generated_normals();
    }
    if let Some(c) = attrs.colors {
        mesh = mesh.with_colors(c).map_err(err)?;
    }
    if let Some(t) = attrs.tangents {
        mesh = mesh.with_tangents(t).map_err(err)?;
    }
    for set in attrs.uvs {
        mesh = mesh.with_uv_set(set).map_err(err)?;
    }
    Ok(Some(Converted {
        mesh: std::sync::Arc::new(mesh),
        file_normals,
        influences,
        max_joint,
        targets,
    }))
}

/// The attributes with tangents when the material has a normal texture: the file's (already
/// read, kept only with file normals) or generated ones (vertices split where needed).
fn with_tangents(
    ctx: &Ctx<'_>,
    prim: &::gltf::Primitive<'_>,
    mut attrs: Attributes,
    indices: Vec<u32>,
    topology: MeshTopology,
) -> Result<(Attributes, Vec<u32>), IoError> {
    let set = match super::material::normal_uv_set(ctx, &prim.material())? {
        Some(s) if topology == MeshTopology::Triangles => s,
        _ => {
            attrs.tangents = None;
            return Ok((attrs, indices));
        }
    };
    if attrs.tangents.is_some() && attrs.normals.is_some() {
        return Ok((attrs, indices));
    }
    let Some(uvs) = usize::try_from(set).ok().and_then(|s| attrs.uvs.get(s)) else {
        attrs.tangents = None;
        return Ok((attrs, indices));
    };
    // Without file normals the vertices are unwelded (one per corner): the face normals.
    let normals: Vec<Vec3> = match &attrs.normals {
        Some(n) => n.clone(),
        None => indices
            .chunks_exact(3)
            .flat_map(|t| {
                let p = |k: usize| attrs.positions[t[k] as usize];
                let n = (p(1) - p(0)).cross(p(2) - p(0)).normalize_or_zero();
                [n; 3]
            })
            .collect(),
    };
    if normals.len() != attrs.positions.len() {
        attrs.tangents = None;
        return Ok((attrs, indices));
    }
    let g = super::tangent::generate(&attrs.positions, &normals, uvs, &indices);
    let (mut attrs, indices) = match g.split {
        Some((source, new_indices)) => (attrs.remap(&source), new_indices),
        None => (attrs, indices),
    };
    attrs.tangents = Some(g.tangents);
    Ok((attrs, indices))
}

#[cfg(feature = "internal-tests")]
pub(crate) mod tests {
    /// Every test of this module: `tests/unit.rs` runs each as one trial (an unlisted
    /// test fails the build as dead code).
    pub(crate) const TESTS: &[(&str, fn())] =
        &[("strips_and_fans_by_hand", strips_and_fans_by_hand)];

    use super::*;

    fn strips_and_fans_by_hand() {
        // Strip 0 1 2 3 4: (0,1,2) (1,3,2) (2,3,4) — each counter-clockwise like the first.
        assert_eq!(
            strip_to_list(&[0, 1, 2, 3, 4]),
            vec![0, 1, 2, 1, 3, 2, 2, 3, 4]
        );
        // Fan 0 1 2 3: (1,2,0) (2,3,0).
        assert_eq!(fan_to_list(&[0, 1, 2, 3]), vec![1, 2, 0, 2, 3, 0]);
        assert!(strip_to_list(&[0, 1]).is_empty());
        assert!(fan_to_list(&[]).is_empty());
    }
}
