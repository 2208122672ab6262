//! `KHR_materials_variants`: named material sets. The root lists the variants' names; a
//! primitive's `mappings` say which material it takes under which variants. Without a
//! choice each primitive keeps its own `material` (the extension's default);
//! [`ImportOptions::gltf_variant`](crate::io::ImportOptions::gltf_variant) picks one by
//! index (`plumb render --variant` resolves a name first), and a primitive with no mapping
//! for it keeps its default. [`Imported::variants`](crate::io::Imported::variants) lists the names
//! (`plumb info`).

use ::gltf::json::Value;
use ::gltf::Document;

use super::ctx::Ctx;
use crate::io::error::IoError;

const EXT: &str = "KHR_materials_variants";

/// The variants' names in file order (`variant<i>` for an unnamed one).
///
/// # Errors
/// [`IoError::Invalid`] for a malformed `variants` list.
pub(super) fn names(ctx: &Ctx<'_>, doc: &Document) -> Result<Vec<String>, IoError> {
    let Some(ext) = doc.extension_value(EXT) else {
        return Ok(Vec::new());
    };
    let context = format!("extensions.{EXT}.variants");
    let Some(list) = ext.get("variants").and_then(Value::as_array) else {
        return Err(ctx.invalid(&context, "is not a list".to_owned()));
    };
    list.iter()
        .enumerate()
        .map(|(i, v)| match v.get("name") {
            None => Ok(format!("variant{i}")),
            Some(Value::String(s)) => Ok(s.clone()),
            Some(_) => Err(ctx.invalid(
                &format!("{context}[{i}].name"),
                "is not a string".to_owned(),
            )),
        })
        .collect()
}

/// Checks that variant `index` exists.
///
/// # Errors
/// [`IoError::Invalid`] naming the index and listing the file's variants.
pub(super) fn check(ctx: &Ctx<'_>, names: &[String], index: usize) -> Result<usize, IoError> {
    if index < names.len() {
        return Ok(index);
    }
    let listed = if names.is_empty() {
        "the file has no variants".to_owned()
    } else {
        let all: Vec<String> = names
            .iter()
            .enumerate()
            .map(|(i, n)| format!("{i} '{n}'"))
            .collect();
        format!("the file's variants: {}", all.join(", "))
    };
    Err(ctx.invalid(EXT, format!("no variant {index}; {listed}")))
}

/// The material index `prim` takes under variant `selected` (`None`: no variant chosen, or
/// no mapping for it: the primitive's own material). Every mapping is checked, whether or not
/// a variant is chosen (issue 50): its `variants` are indices of the file's `count` variants
/// and its `material` one of the file's materials.
///
/// # Errors
/// [`IoError::Invalid`] for malformed mappings, a variant or a material that does not exist.
pub(super) fn material(
    ctx: &Ctx<'_>,
    doc: &Document,
    prim: &::gltf::Primitive<'_>,
    (selected, count): (Option<usize>, usize),
    label: &str,
) -> Result<Option<usize>, IoError> {
    let own = prim.material().index();
    let Some(ext) = prim.extension_value(EXT) else {
        return Ok(own);
    };
    let context = format!("{label} {EXT}.mappings");
    let Some(mappings) = ext.get("mappings").and_then(Value::as_array) else {
        return Err(ctx.invalid(&context, "is not a list".to_owned()));
    };
    let mut chosen = None;
    for (k, m) in mappings.iter().enumerate() {
        let bad = |what: &str| ctx.invalid(&format!("{context}[{k}]"), what.to_owned());
        let variants = m
            .get("variants")
            .and_then(Value::as_array)
            .ok_or_else(|| bad("has no variants list"))?;
        let mut hit = false;
        for v in variants {
            let i = v
                .as_u64()
                .and_then(|i| usize::try_from(i).ok())
                .filter(|&i| i < count)
                .ok_or_else(|| {
                    bad(&format!(
                        "variant {v} is not one of the file's {count} variants"
                    ))
                })?;
            hit |= Some(i) == selected;
        }
        let material = m
            .get("material")
            .and_then(Value::as_u64)
            .and_then(|i| usize::try_from(i).ok())
            .filter(|&i| i < doc.materials().len())
            .ok_or_else(|| {
                bad(&format!(
                    "material is not one of the file's {} materials",
                    doc.materials().len()
                ))
            })?;
        if hit && chosen.is_none() {
            chosen = Some(material);
        }
    }
    Ok(chosen.or(own))
}
