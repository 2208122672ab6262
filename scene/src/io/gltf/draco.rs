//! `KHR_draco_mesh_compression`: a primitive whose vertex data is one Draco stream.
//!
//! The primitive's `extensions.KHR_draco_mesh_compression` names a buffer view (the stream)
//! and, for each compressed attribute, its unique id in the stream (`{"POSITION": 1, …}`).
//! The stream is decoded once per primitive by the pure-Rust `draco-core` decoder, on the
//! calling thread, inside [`contain`](crate::io::contain::contain) (a decoder panic becomes
//! an error naming the file and the primitive), with ceilings from the import's limits: at
//! most [`MAX_ACCESSOR_ELEMENTS`] points and faces, and no more decoded attribute bytes than
//! a fifth of what the load's geometry budget has left (the decoder's scratch, up to four
//! times the attribute, is held beside it: [`DECODE_PEAK_FACTOR`]).
//!
//! What the loader then reads, as the extension specifies:
//! * **Compressed attributes** come from the stream. The primitive's accessor for the same
//!   semantic still gives the type (its `type` must match the stream's component count) and
//!   the conversion: a `normalized` integer accessor maps the stream's integers to 0..1 or
//!   −1..1 exactly as an uncompressed accessor would; `JOINTS_n` stay integers. Its `count`
//!   must be the stream's point count (the vertex count) and the indices accessor's must be
//!   three per face; its `bufferView` is not used. `POSITION` must be compressed, each
//!   attribute id used once, and the stream's version one the decoder knows (issue 50).
//! * **Indices** are the stream's faces (mode `TRIANGLES`), or none (mode `POINTS`, a
//!   Draco point cloud). Other modes are refused.
//! * **Attributes the extension does not list**, and morph targets, are read from their
//!   accessors as usual and must have the stream's vertex count. (Draco may reorder
//!   vertices; an encoder that compresses some attributes and not others must keep the
//!   order, which the count check cannot prove.)
//!
//! Draco quantizes: positions and texture coordinates come back on the encoder's grid
//! (Box's ±0.5 corners decode as ±0.50049), so a Draco file is drawn close to, not
//! identical with, its uncompressed original.

use std::collections::BTreeMap;

use ::gltf::accessor::{Accessor, DataType, Dimensions};
use ::gltf::mesh::Mode;
use draco_core::{DecodeLimits, DecoderBuffer, Mesh as DracoMesh, MeshDecoder};

use super::accessor::MAX_ACCESSOR_ELEMENTS;
use super::ctx::Ctx;
use crate::io::error::IoError;

/// The extension's name.
pub(crate) const EXT: &str = "KHR_draco_mesh_compression";

/// One decoded attribute: `components` values per point, as `f32` (integers exactly).
struct Attr {
    values: Vec<f32>,
    components: usize,
}

/// A primitive's decoded stream.
pub(crate) struct Decoded {
    /// By glTF semantic name (`TEXCOORD_0`).
    attributes: BTreeMap<String, Attr>,
    /// The faces, flattened; `None` for a point cloud.
    indices: Option<Vec<u32>>,
    /// Points in the stream: the primitive's vertex count.
    points: usize,
}

/// The buffer view and attribute ids the extension names.
fn parse_extension(
    ctx: &Ctx<'_>,
    ext: &::gltf::json::Value,
    label: &str,
) -> Result<(usize, Vec<(String, u32)>), IoError> {
    let view = ext
        .get("bufferView")
        .and_then(|v| v.as_u64())
        .and_then(|v| usize::try_from(v).ok())
        .ok_or_else(|| ctx.invalid(label, "has no bufferView index".to_owned()))?;
    let Some(attributes) = ext.get("attributes").and_then(|a| a.as_object()) else {
        return Err(ctx.invalid(label, "has no attributes object".to_owned()));
    };
    let mut ids: Vec<(String, u32)> = Vec::with_capacity(attributes.len());
    for (name, id) in attributes {
        let id = id
            .as_u64()
            .and_then(|i| u32::try_from(i).ok())
            .ok_or_else(|| {
                ctx.invalid(
                    &format!("{label}.attributes.{name}"),
                    format!("{id} is not a Draco attribute id"),
                )
            })?;
        // One stream attribute per semantic (issue 50: two semantics read the same one).
        if let Some((other, _)) = ids.iter().find(|(_, i)| *i == id) {
            return Err(ctx.invalid(
                &format!("{label}.attributes.{name}"),
                format!("Draco attribute id {id} is {other}'s too"),
            ));
        }
        ids.push((name.clone(), id));
    }
    // The stream's point count is the vertex count: its positions come from the stream.
    if !ids.iter().any(|(name, _)| name == "POSITION") {
        return Err(ctx.invalid(
            &format!("{label}.attributes"),
            "has no POSITION: a Draco primitive's positions come from its stream".to_owned(),
        ));
    }
    Ok((view, ids))
}

/// The bytes of buffer view `index`, checked against its buffer.
fn view_bytes<'c>(
    ctx: &'c Ctx<'_>,
    doc: &::gltf::Document,
    index: usize,
    what: &str,
) -> Result<&'c [u8], IoError> {
    let view = doc.views().nth(index).ok_or_else(|| {
        ctx.invalid(
            what,
            format!(
                "buffer view {index} does not exist ({} views)",
                doc.views().len()
            ),
        )
    })?;
    ctx.view_bytes(&view).ok_or_else(|| {
        ctx.invalid(
            what,
            format!(
                "buffer view {index} ({} bytes at {}) runs past its buffer",
                view.length(),
                view.offset(),
            ),
        )
    })
}

/// How much memory a Draco decode holds at its peak per decoded attribute byte: the
/// attribute itself, and the decoder's scratch of one `i32` per component alongside it (four
/// times a `u8` attribute). Measured: a 38-byte stream declaring one `u8` attribute of
/// 201 MB held 1,007 MB in the decoder (massif) when the decoded bytes alone were charged.
/// So a stream may decode to a fifth of the geometry budget left, and its peak stays within
/// the budget.
const DECODE_PEAK_FACTOR: u64 = 5;

/// Decodes `prim`'s Draco stream, or `None` when it has no `KHR_draco_mesh_compression`.
///
/// # Errors
/// [`IoError::Invalid`] for a malformed extension, a stream the decoder refuses (its reason
/// is in the message), a stream past the limits, or a mode other than triangles or points.
pub(crate) fn decode(
    ctx: &Ctx<'_>,
    doc: &::gltf::Document,
    prim: &::gltf::Primitive<'_>,
    label: &str,
) -> Result<Option<Decoded>, IoError> {
    let Some(ext) = prim.extension_value(EXT) else {
        return Ok(None);
    };
    let label = format!("{label} {EXT}");
    let points_only = match prim.mode() {
        Mode::Triangles => false,
        Mode::Points => true,
        mode => {
            return Err(ctx.invalid(
                &label,
                format!("needs mode TRIANGLES or POINTS, the primitive's is {mode:?}"),
            ))
        }
    };
    let (view, ids) = parse_extension(ctx, ext, &label)?;
    let bytes = view_bytes(ctx, doc, view, &label)?;
    check_version(bytes).map_err(|m| ctx.invalid(&label, m))?;
    let limits = DecodeLimits::default()
        .with_max_points(MAX_ACCESSOR_ELEMENTS as u64)
        .with_max_faces(MAX_ACCESSOR_ELEMENTS as u64)
        .with_max_decoded_bytes(ctx.geometry_left.get() / DECODE_PEAK_FACTOR);
    let decoded = crate::io::contain::contain(|| {
        let mut mesh = DracoMesh::new();
        let mut buffer = DecoderBuffer::new(bytes).with_limits(limits);
        MeshDecoder::new()
            .decode(&mut buffer, &mut mesh)
            .map(|()| mesh)
    });
    let mesh = match decoded {
        Ok(Ok(mesh)) => mesh,
        Ok(Err(e)) => {
            return Err(ctx.invalid(&label, format!("the Draco stream does not decode: {e}")))
        }
        Err(()) => {
            return Err(ctx.invalid(
                &label,
                "the Draco decoder failed on this stream (it panicked)".to_owned(),
            ))
        }
    };
    let points = mesh.num_points();
    // The primitive's accessors must agree with the stream (issue 50): each compressed
    // attribute's accessor counts the stream's points, and the indices accessor its faces.
    for (name, _) in &ids {
        let accessor = prim
            .attributes()
            .find(|(semantic, _)| semantic.to_string() == *name)
            .map(|(_, a)| a)
            .ok_or_else(|| {
                ctx.invalid(
                    &format!("{label}.attributes.{name}"),
                    "is not one of the primitive's attributes".to_owned(),
                )
            })?;
        if accessor.count() != points {
            return Err(ctx.invalid(
                &format!("{label}.attributes.{name}"),
                format!(
                    "accessor {} counts {} elements, the Draco stream has {points} points",
                    accessor.index(),
                    accessor.count()
                ),
            ));
        }
    }
    if let Some(a) = prim.indices().filter(|_| !points_only) {
        let want = 3 * mesh.faces().len();
        if a.count() != want {
            return Err(ctx.invalid(
                &label,
                format!(
                    "indices accessor {} counts {}, the Draco stream has {want} ({} faces)",
                    a.index(),
                    a.count(),
                    mesh.faces().len()
                ),
            ));
        }
    }
    let indices = if points_only {
        None
    } else {
        let faces = mesh.faces();
        ctx.charge_geometry(&label, faces.len(), 3)?;
        let mut out = Vec::with_capacity(3 * faces.len());
        for face in faces {
            out.extend(face.iter().map(|p| p.0));
        }
        Some(out)
    };
    let mut attributes = BTreeMap::new();
    for (name, id) in ids {
        let attr = mesh.attribute_by_unique_id(id).ok_or_else(|| {
            ctx.invalid(
                &format!("{label}.attributes.{name}"),
                format!("the Draco stream has no attribute with id {id}"),
            )
        })?;
        let components = usize::from(attr.num_components());
        if components == 0 || components > 4 {
            return Err(ctx.invalid(
                &format!("{label}.attributes.{name}"),
                format!("the Draco attribute has {components} components"),
            ));
        }
        ctx.charge_geometry(&label, points, components)?;
        let values = attr.read_f32s(points, components);
        attributes.insert(name, Attr { values, components });
    }
    Ok(Some(Decoded {
        attributes,
        indices,
        points,
    }))
}

/// The Draco bitstream versions the decoder knows, as the reference decoder accepts them: a
/// mesh of version 1.x or 2.0 to 2.2, a point cloud of 1.x or 2.0 to 2.3.
///
/// # Errors
/// The reason, for a version outside them (issue 50: unknown versions were decoded as if
/// known). A stream too short to have a header passes (the decoder reports it).
fn check_version(bytes: &[u8]) -> Result<(), String> {
    let (Some(&major), Some(&minor), Some(&kind)) = (bytes.get(5), bytes.get(6), bytes.get(7))
    else {
        return Ok(());
    };
    if !bytes.starts_with(b"DRACO") {
        return Ok(());
    }
    let latest_minor = if kind == 0 { 3 } else { 2 };
    if major == 1 || (major == 2 && minor <= latest_minor) {
        return Ok(());
    }
    Err(format!(
        "Draco bitstream version {major}.{minor} is not one the decoder knows (1.x, 2.0 to 2.{latest_minor})"
    ))
}

/// Where a primitive's vertex data comes from: its accessors, or its Draco stream first.
pub(crate) struct Source<'c, 'a> {
    pub(crate) ctx: &'c Ctx<'a>,
    pub(crate) draco: Option<Decoded>,
}

/// `value`, an integer decoded from the stream, as a normalized accessor of type `t` maps it.
fn normalize(t: DataType, value: f32) -> f32 {
    match t {
        DataType::U8 => value / 255.0,
        DataType::I8 => (value / 127.0).max(-1.0),
        DataType::U16 => value / 65535.0,
        DataType::I16 => (value / 32767.0).max(-1.0),
        DataType::U32 | DataType::F32 => value,
    }
}

impl Source<'_, '_> {
    /// The decoded attribute `name`, when the stream has it, checked against the accessor's
    /// type.
    fn compressed(
        &self,
        what: &str,
        name: &str,
        a: &Accessor<'_>,
        allowed: &[Dimensions],
    ) -> Result<Option<&Attr>, IoError> {
        let Some(attr) = self.draco.as_ref().and_then(|d| d.attributes.get(name)) else {
            return Ok(None);
        };
        self.ctx.check_dims(what, a, allowed)?;
        let want = a.dimensions().multiplicity();
        if attr.components != want {
            return Err(self.ctx.invalid(
                what,
                format!(
                    "accessor {} is {}, the Draco attribute has {} components",
                    a.index(),
                    super::accessor::dims_name(a.dimensions()),
                    attr.components
                ),
            ));
        }
        Ok(Some(attr))
    }

    /// [`Ctx::read_f32`], from the stream when it holds attribute `name`.
    pub(crate) fn read_f32(
        &self,
        what: &str,
        name: &str,
        a: &Accessor<'_>,
        allowed: &[Dimensions],
    ) -> Result<(Vec<f32>, usize), IoError> {
        let Some(attr) = self.compressed(what, name, a, allowed)? else {
            return self.ctx.read_f32(what, a, allowed);
        };
        let values = if a.normalized() {
            let t = a.data_type();
            attr.values.iter().map(|&v| normalize(t, v)).collect()
        } else {
            attr.values.clone()
        };
        Ok((values, attr.components))
    }

    /// [`Ctx::read_uints`] (skin joints), from the stream when it holds attribute `name`.
    pub(crate) fn read_uints(
        &self,
        what: &str,
        name: &str,
        a: &Accessor<'_>,
        dims: Dimensions,
    ) -> Result<Vec<u32>, IoError> {
        let Some(attr) = self.compressed(what, name, a, &[dims])? else {
            return self.ctx.read_uints(what, a, dims);
        };
        attr.values
            .iter()
            .map(|&v| {
                if v.fract() == 0.0 && (0.0..=65535.0).contains(&v) {
                    Ok(v as u32)
                } else {
                    Err(self.ctx.invalid(
                        what,
                        format!("the Draco attribute holds {v}, not a joint index"),
                    ))
                }
            })
            .collect()
    }

    /// The primitive's indices: the stream's faces (`Some(None)` for a Draco point cloud,
    /// which has none), or `None` to read the indices accessor as usual.
    pub(crate) fn indices(&self) -> Option<Option<&[u32]>> {
        self.draco.as_ref().map(|d| d.indices.as_deref())
    }

    /// The stream's point count, when there is a stream.
    pub(crate) fn points(&self) -> Option<usize> {
        self.draco.as_ref().map(|d| d.points)
    }
}
