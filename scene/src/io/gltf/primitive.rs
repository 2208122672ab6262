//! One glTF mesh primitive → one [`Mesh`].
//!
//! * Modes: `POINTS`, `LINES`, `LINE_LOOP`, `LINE_STRIP` and `TRIANGLES` map to the topology
//!   of the same name. `TRIANGLE_STRIP` and `TRIANGLE_FAN` are expanded to triangle lists in
//!   the order the glTF specification gives (strip triangle `i`: `(i, i+1, i+2)` for even
//!   `i`, `(i, i+2, i+1)` for odd `i`, so all keep the first triangle's winding; fan triangle
//!   `i`: `(i+1, i+2, 0)`).
//! * Non-indexed primitives draw their vertices in order.
//! * Attributes: `POSITION` (required, float `VEC3`), `NORMAL`, `TEXCOORD_0..3` (float or
//!   normalized `u8`/`u16`; sets stop at the first missing one), `COLOR_0` (`VEC3` or `VEC4`,
//!   float or normalized `u8`/`u16`; `VEC3` gets alpha 1). Other attributes (tangents,
//!   joints, weights, further colour sets) are ignored.
//! * A triangle primitive without `NORMAL` gets **flat** normals, as the specification
//!   requires: its triangles are split apart (3 vertices each) and every corner gets the
//!   face normal.
//! * Every index must address a vertex; every value must be finite.

use ::gltf::accessor::Dimensions;
use ::gltf::mesh::{Mode, Semantic};
use glam::{Vec2, Vec3, Vec4};

use super::ctx::Ctx;
use crate::io::error::IoError;
use crate::mesh::{Mesh, MeshTopology, MAX_UV_SETS};

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

/// Per-vertex data read from the primitive, before building the mesh.
struct Attributes {
    positions: Vec<Vec3>,
    normals: Option<Vec<Vec3>>,
    colors: Option<Vec<Vec4>>,
    uvs: Vec<Vec<Vec2>>,
}

impl Attributes {
    /// One vertex per index (for flat normals).
    fn unweld(&self, indices: &[u32]) -> Attributes {
        let pick = |i: &u32| *i as usize;
        Attributes {
            positions: indices.iter().map(|i| self.positions[pick(i)]).collect(),
            normals: None,
            colors: self
                .colors
                .as_ref()
                .map(|c| indices.iter().map(|i| c[pick(i)]).collect()),
            uvs: self
                .uvs
                .iter()
                .map(|s| indices.iter().map(|i| s[pick(i)]).collect())
                .collect(),
        }
    }
}

fn read_attributes(
    ctx: &Ctx<'_>,
    prim: &::gltf::Primitive<'_>,
    label: &str,
) -> Result<Option<Attributes>, IoError> {
    let Some(pos) = prim.get(&Semantic::Positions) else {
        return Ok(None);
    };
    let what = format!("{label} POSITION");
    let (p, _) = ctx.read_f32(&what, &pos, &[Dimensions::Vec3])?;
    if p.iter().any(|x| !x.is_finite()) {
        return Err(ctx.non_finite(&what, "positions"));
    }
    let positions = vec3s(&p);
    let n = positions.len();
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
            let (v, _) = ctx.read_f32(&what, &a, &[Dimensions::Vec3])?;
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
            let (v, k) = ctx.read_f32(&what, &a, &[Dimensions::Vec3, Dimensions::Vec4])?;
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
        let (v, _) = ctx.read_f32(&what, &a, &[Dimensions::Vec2])?;
        if v.iter().any(|x| !x.is_finite()) {
            return Err(ctx.non_finite(&what, "texture coordinates"));
        }
        same_count(&what, v.len() / 2)?;
        uvs.push(v.chunks_exact(2).map(Vec2::from_slice).collect());
    }
    Ok(Some(Attributes {
        positions,
        normals,
        colors,
        uvs,
    }))
}

/// Converts a primitive; `None` when it has no positions (nothing to draw).
///
/// # Errors
/// [`IoError::Invalid`] for bad accessors, index counts or out-of-range indices;
/// [`IoError::NonFinite`] for NaN or infinite attribute values.
pub(crate) fn convert(
    ctx: &Ctx<'_>,
    prim: &::gltf::Primitive<'_>,
    label: &str,
) -> Result<Option<Mesh>, IoError> {
    let Some(attrs) = read_attributes(ctx, prim, label)? else {
        return Ok(None);
    };
    let n = attrs.positions.len();
    let vertex_count =
        u32::try_from(n).map_err(|_| ctx.invalid(label, format!("{n} vertices are too many")))?;
    let indices: Vec<u32> = match prim.indices() {
        Some(a) => {
            let what = format!("{label} indices");
            let idx = ctx.read_u32(&what, &a)?;
            if let Some((at, bad)) = idx.iter().enumerate().find(|(_, &i)| i >= vertex_count) {
                return Err(ctx.invalid(
                    &what,
                    format!("index {bad} at position {at} is out of range for {n} vertices"),
                ));
            }
            idx
        }
        None => (0..vertex_count).collect(),
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
    let err = |e| ctx.scene_err(label, e);
    let mut mesh = Mesh::new(topology, attrs.positions, indices).map_err(err)?;
    if let Some(nrm) = attrs.normals {
        mesh = mesh.with_normals(nrm).map_err(err)?;
    } else if flat {
        mesh = mesh.with_generated_normals();
    }
    if let Some(c) = attrs.colors {
        mesh = mesh.with_colors(c).map_err(err)?;
    }
    for set in attrs.uvs {
        mesh = mesh.with_uv_set(set).map_err(err)?;
    }
    Ok(Some(mesh))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
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
