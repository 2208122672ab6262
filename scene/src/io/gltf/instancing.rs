//! `EXT_mesh_gpu_instancing`: a node's mesh drawn once per instance.
//!
//! The node's `extensions.EXT_mesh_gpu_instancing.attributes` name accessors `TRANSLATION`
//! (VEC3), `ROTATION` (VEC4, a unit quaternion) and `SCALE` (VEC3), each optional, all of one
//! count `n` ≥ 1. Instance `i` is drawn with the node's world transform × `T·R·S` of instance
//! `i`, as the extension specifies; the node's children are not instanced. Each instance
//! becomes a group node `<node>#<i>` under the node, with one geometry leaf per primitive
//! sharing the node's converted mesh (`Arc`), so bounds, culling, picking and `plumb info`
//! see every instance. Other attributes (`_ID`, …) are ignored.
//!
//! Formats: float, or with `KHR_mesh_quantization` in `extensionsUsed` normalized or plain
//! bytes and shorts for `TRANSLATION` and `SCALE`; float or normalized signed bytes and
//! shorts for `ROTATION` (the extension's table). Instances of a skinned or morphed mesh are
//! refused ([`IoError::Unsupported`]). The nodes created count against
//! [`WorkBudget::max_instance_nodes`](crate::io::WorkBudget::max_instance_nodes) (one per
//! instance plus one per instance and primitive), charged before any is created.

use ::gltf::accessor::{DataType, Dimensions};
use ::gltf::Document;
use glam::{Quat, Vec3};

use super::ctx::{node_label, Ctx};
use crate::io::budget::{Budget, Spent};
use crate::io::error::{BudgetError, IoError};
use crate::values::error::SceneError;
use crate::values::transform::Transform;

const EXT: &str = "EXT_mesh_gpu_instancing";

/// The instance transforms of `node`, or `None` when it has no instancing extension (or no
/// mesh). Charges the nodes the instances will create (`primitives` leaves each) to `spent`.
///
/// # Errors
/// [`IoError::Invalid`] for a malformed extension (missing or unknown accessors, wrong
/// types, counts that differ, non-finite values, a zero rotation), [`IoError::Unsupported`]
/// for a skinned or morphed mesh, [`IoError::Budget`] past the instance-node budget.
pub(super) fn transforms(
    ctx: &Ctx<'_>,
    doc: &Document,
    node: &::gltf::Node<'_>,
    primitives: usize,
    spent: &mut Spent,
) -> Result<Option<Vec<Transform>>, IoError> {
    let Some(ext) = node.extension_value(EXT) else {
        return Ok(None);
    };
    let Some(mesh) = node.mesh() else {
        return Ok(None);
    };
    let label = format!("{} {EXT}", node_label(node));
    if node.skin().is_some() || mesh.primitives().any(|p| p.morph_targets().len() > 0) {
        return Err(IoError::Unsupported {
            file: ctx.file.to_owned(),
            context: label,
            feature: "instances of skinned or morphed meshes",
        });
    }
    let Some(attributes) = ext.get("attributes").and_then(|a| a.as_object()) else {
        return Err(ctx.invalid(&label, "has no attributes object".to_owned()));
    };
    let quantized = doc.extensions_used().any(|e| e == "KHR_mesh_quantization");
    let read = |name: &str, dims: Dimensions| -> Result<Option<Vec<f32>>, IoError> {
        let Some(v) = attributes.get(name) else {
            return Ok(None);
        };
        let what = format!("{label}.attributes.{name}");
        let accessor = v
            .as_u64()
            .and_then(|i| usize::try_from(i).ok())
            .and_then(|i| doc.accessors().nth(i))
            .ok_or_else(|| {
                ctx.invalid(
                    &what,
                    format!(
                        "{v} is not an accessor ({} accessors)",
                        doc.accessors().len()
                    ),
                )
            })?;
        let (t, norm) = (accessor.data_type(), accessor.normalized());
        let format_ok = match name {
            "ROTATION" => t == DataType::F32 || (norm && matches!(t, DataType::I8 | DataType::I16)),
            _ => {
                t == DataType::F32
                    || (quantized
                        && matches!(
                            t,
                            DataType::I8 | DataType::U8 | DataType::I16 | DataType::U16
                        ))
            }
        };
        if !format_ok {
            return Err(ctx.invalid(
                &what,
                format!(
                    "accessor {} has a component type the extension does not allow here",
                    accessor.index()
                ),
            ));
        }
        let (values, _) = ctx.read_f32(&what, &accessor, &[dims])?;
        if values.iter().any(|x| !x.is_finite()) {
            return Err(ctx.non_finite(&what, "instance attribute"));
        }
        Ok(Some(values))
    };
    let t = read("TRANSLATION", Dimensions::Vec3)?;
    let r = read("ROTATION", Dimensions::Vec4)?;
    let s = read("SCALE", Dimensions::Vec3)?;
    let counts: Vec<(&str, usize)> = [
        ("TRANSLATION", t.as_ref().map(|v| v.len() / 3)),
        ("ROTATION", r.as_ref().map(|v| v.len() / 4)),
        ("SCALE", s.as_ref().map(|v| v.len() / 3)),
    ]
    .into_iter()
    .filter_map(|(n, c)| c.map(|c| (n, c)))
    .collect();
    let Some(&(_, n)) = counts.first() else {
        return Err(ctx.invalid(
            &label,
            "names none of TRANSLATION, ROTATION, SCALE".to_owned(),
        ));
    };
    if let Some((name, c)) = counts.iter().find(|(_, c)| *c != n) {
        return Err(ctx.invalid(
            &label,
            format!("{name} has {c} instances, {} has {n}", counts[0].0),
        ));
    }
    if n == 0 {
        return Err(ctx.invalid(&label, "has no instances (count 0)".to_owned()));
    }
    // One group per instance and one leaf per instance and primitive, before any exists.
    let nodes = (n as u64).saturating_mul(1 + primitives as u64);
    spent
        .charge(&ctx.options.budget, Budget::InstanceNodes, nodes)
        .map_err(|over| {
            IoError::Budget(Box::new(BudgetError {
                file: ctx.file.to_owned(),
                location: None,
                context: label.clone(),
                item: format!("{n} instances of {primitives} primitive(s): {nodes} nodes"),
                budget: over.budget,
                amount: over.amount,
                total: over.total,
                max: over.max,
            }))
        })?;
    let mut out = Vec::with_capacity(n);
    for i in 0..n {
        let tr = t
            .as_ref()
            .map_or(Vec3::ZERO, |v| Vec3::from_slice(&v[3 * i..3 * i + 3]));
        let rot = r
            .as_ref()
            .map_or(Quat::IDENTITY, |v| Quat::from_slice(&v[4 * i..4 * i + 4]));
        let sc = s
            .as_ref()
            .map_or(Vec3::ONE, |v| Vec3::from_slice(&v[3 * i..3 * i + 3]));
        let transform = if tr == Vec3::ZERO && rot == Quat::IDENTITY && sc == Vec3::ONE {
            Transform::IDENTITY
        } else {
            crate::io::animation::trs(sc, rot, tr).map_err(|e| {
                let context = format!("{label} instance {i}");
                match e {
                    SceneError::ZeroRotation(_) => ctx.invalid(&context, e.to_string()),
                    e => ctx.scene_err(&context, e),
                }
            })?
        };
        out.push(transform);
    }
    Ok(Some(out))
}
