//! Reading glTF accessors with every offset, length and index checked: byte strides,
//! normalized integer components and sparse substitution, into `f32` or `u32` values.
//!
//! The `gltf` crate's own reader assumes valid files (it can panic on some bad ones), so
//! the bytes are gathered here: first the dense elements (tightly repacked from a possibly
//! strided buffer view, or zeros when the accessor has no view), then the sparse values
//! written over them, then the conversion of each component.

use ::gltf::accessor::sparse::IndexType;
use ::gltf::accessor::{Accessor, DataType, Dimensions};

use super::ctx::Ctx;
use crate::io::error::IoError;

/// Most elements one accessor may hold (2²⁶): a bound on what a file can make us allocate.
pub const MAX_ACCESSOR_ELEMENTS: usize = 1 << 26;

fn component_size(t: DataType) -> usize {
    match t {
        DataType::I8 | DataType::U8 => 1,
        DataType::I16 | DataType::U16 => 2,
        DataType::U32 | DataType::F32 => 4,
    }
}

/// An accessor type as the specification names it (`VEC3`).
pub(super) fn dims_name(d: Dimensions) -> &'static str {
    match d {
        Dimensions::Scalar => "SCALAR",
        Dimensions::Vec2 => "VEC2",
        Dimensions::Vec3 => "VEC3",
        Dimensions::Vec4 => "VEC4",
        Dimensions::Mat2 => "MAT2",
        Dimensions::Mat3 => "MAT3",
        Dimensions::Mat4 => "MAT4",
    }
}

/// A component type as the specification names it (`UNSIGNED_BYTE`).
pub(super) fn component_name(t: DataType) -> &'static str {
    match t {
        DataType::I8 => "BYTE",
        DataType::U8 => "UNSIGNED_BYTE",
        DataType::I16 => "SHORT",
        DataType::U16 => "UNSIGNED_SHORT",
        DataType::U32 => "UNSIGNED_INT",
        DataType::F32 => "FLOAT",
    }
}

impl Ctx<'_> {
    /// `count` elements of `elem` bytes from buffer view `view_index` at `offset`, with
    /// the view's stride (or tightly packed), repacked tightly.
    fn gather(
        &self,
        what: &str,
        view: Option<::gltf::buffer::View<'_>>,
        offset: usize,
        count: usize,
        elem: usize,
    ) -> Result<Vec<u8>, IoError> {
        if count > MAX_ACCESSOR_ELEMENTS {
            return Err(self.invalid(
                what,
                format!("{count} elements exceed the limit of {MAX_ACCESSOR_ELEMENTS}"),
            ));
        }
        let total = count * elem;
        let Some(view) = view else {
            return Ok(vec![0; total]);
        };
        let Some(bytes) = self.view_bytes(&view) else {
            let len = self.buffers.get(view.buffer().index()).map_or(0, Vec::len);
            return Err(self.invalid(
                &format!("buffer view {}", view.index()),
                format!(
                    "bytes {}..{} lie past the end of buffer {} ({len} bytes)",
                    view.offset(),
                    view.offset().saturating_add(view.length()),
                    view.buffer().index(),
                ),
            ));
        };
        let stride = view.stride().unwrap_or(elem);
        if stride < elem {
            return Err(self.invalid(
                what,
                format!("byte stride {stride} is smaller than the element size {elem}"),
            ));
        }
        if count == 0 {
            return Ok(Vec::new());
        }
        let need = (count - 1)
            .checked_mul(stride)
            .and_then(|x| x.checked_add(elem))
            .and_then(|x| x.checked_add(offset));
        match need {
            Some(n) if n <= bytes.len() => {}
            _ => {
                return Err(self.invalid(
                    what,
                    format!(
                        "{count} elements of {elem} bytes at offset {offset} with stride {stride} \
                         run past the end of buffer view {} ({} bytes)",
                        view.index(),
                        bytes.len()
                    ),
                ))
            }
        }
        let mut out = Vec::with_capacity(total);
        for i in 0..count {
            let at = offset + i * stride;
            out.extend_from_slice(&bytes[at..at + elem]);
        }
        Ok(out)
    }

    /// The accessor's element bytes, tightly packed, with sparse values applied.
    fn packed(&self, what: &str, a: &Accessor<'_>) -> Result<(Vec<u8>, usize), IoError> {
        let csize = component_size(a.data_type());
        let elem = csize * a.dimensions().multiplicity();
        let count = a.count();
        self.charge_geometry(what, count, a.dimensions().multiplicity())?;
        let mut data = self.gather(what, a.view(), a.offset(), count, elem)?;
        if let Some(sparse) = a.sparse() {
            let n = sparse.count();
            if n > count {
                return Err(self.invalid(what, format!("{n} sparse values for {count} elements")));
            }
            let idx = sparse.indices();
            let isize = match idx.index_type() {
                IndexType::U8 => 1,
                IndexType::U16 => 2,
                IndexType::U32 => 4,
            };
            let ibytes = self.gather(
                &format!("{what} (sparse indices)"),
                Some(idx.view()),
                idx.offset(),
                n,
                isize,
            )?;
            let vals = sparse.values();
            let vbytes = self.gather(
                &format!("{what} (sparse values)"),
                Some(vals.view()),
                vals.offset(),
                n,
                elem,
            )?;
            for (k, ib) in ibytes.chunks_exact(isize).enumerate() {
                let i = match isize {
                    1 => usize::from(ib[0]),
                    2 => usize::from(u16::from_le_bytes([ib[0], ib[1]])),
                    _ => u32::from_le_bytes([ib[0], ib[1], ib[2], ib[3]]) as usize,
                };
                if i >= count {
                    return Err(self.invalid(
                        what,
                        format!("sparse index {i} out of range for {count} elements"),
                    ));
                }
                data[i * elem..(i + 1) * elem].copy_from_slice(&vbytes[k * elem..(k + 1) * elem]);
            }
        }
        Ok((data, csize))
    }

    /// Charges `count` elements of `components` 4-byte values against
    /// [`ImportOptions::max_geometry_bytes`](crate::io::ImportOptions::max_geometry_bytes),
    /// before anything is allocated.
    pub(crate) fn charge_geometry(
        &self,
        what: &str,
        count: usize,
        components: usize,
    ) -> Result<(), IoError> {
        let bytes = (count as u64)
            .saturating_mul(components as u64)
            .saturating_mul(4);
        let left = self.geometry_left.get();
        if bytes > left {
            let max = self.options.max_geometry_bytes;
            return Err(self.invalid(
                what,
                format!(
                    "{count} elements ({bytes} bytes decoded) exceed what is left ({left} bytes) \
                     of the load's limit of {max} bytes of geometry (max_geometry_bytes)"
                ),
            ));
        }
        self.geometry_left.set(left - bytes);
        Ok(())
    }

    pub(super) fn check_dims(
        &self,
        what: &str,
        a: &Accessor<'_>,
        allowed: &[Dimensions],
    ) -> Result<(), IoError> {
        if allowed.contains(&a.dimensions()) {
            return Ok(());
        }
        let want: Vec<&str> = allowed.iter().map(|&d| dims_name(d)).collect();
        Err(self.invalid(
            what,
            format!(
                "accessor {} is {}, expected {}",
                a.index(),
                dims_name(a.dimensions()),
                want.join(" or ")
            ),
        ))
    }

    /// Reads an accessor as `f32` components (normalized integers map to 0..1 or −1..1 as
    /// glTF specifies; other integers convert exactly). Returns the values and the number of
    /// components per element.
    ///
    /// # Errors
    /// [`IoError::Invalid`] for a type outside `allowed` or any out-of-range read.
    pub(crate) fn read_f32(
        &self,
        what: &str,
        a: &Accessor<'_>,
        allowed: &[Dimensions],
    ) -> Result<(Vec<f32>, usize), IoError> {
        self.check_dims(what, a, allowed)?;
        let (data, csize) = self.packed(what, a)?;
        let norm = a.normalized();
        let t = a.data_type();
        let out = data
            .chunks_exact(csize)
            .map(|b| match (t, norm) {
                (DataType::F32, _) => f32::from_le_bytes([b[0], b[1], b[2], b[3]]),
                (DataType::U8, true) => f32::from(b[0]) / 255.0,
                (DataType::U8, false) => f32::from(b[0]),
                (DataType::I8, true) => (f32::from(b[0] as i8) / 127.0).max(-1.0),
                (DataType::I8, false) => f32::from(b[0] as i8),
                (DataType::U16, true) => f32::from(u16::from_le_bytes([b[0], b[1]])) / 65535.0,
                (DataType::U16, false) => f32::from(u16::from_le_bytes([b[0], b[1]])),
                (DataType::I16, true) => {
                    (f32::from(i16::from_le_bytes([b[0], b[1]])) / 32767.0).max(-1.0)
                }
                (DataType::I16, false) => f32::from(i16::from_le_bytes([b[0], b[1]])),
                (DataType::U32, _) => u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as f32,
            })
            .collect();
        Ok((out, a.dimensions().multiplicity()))
    }

    /// Reads an unsigned `u8`/`u16` accessor of `dims` that is not normalized (skin joint
    /// indices), flattened.
    ///
    /// # Errors
    /// [`IoError::Invalid`] for another type or any out-of-range read.
    pub(crate) fn read_uints(
        &self,
        what: &str,
        a: &Accessor<'_>,
        dims: Dimensions,
    ) -> Result<Vec<u32>, IoError> {
        self.check_dims(what, a, &[dims])?;
        if !matches!(a.data_type(), DataType::U8 | DataType::U16) || a.normalized() {
            return Err(self.invalid(
                what,
                format!(
                    "accessor {} must hold unsigned bytes or shorts (not normalized)",
                    a.index()
                ),
            ));
        }
        let (data, csize) = self.packed(what, a)?;
        Ok(data
            .chunks_exact(csize)
            .map(|b| match csize {
                1 => u32::from(b[0]),
                _ => u32::from(u16::from_le_bytes([b[0], b[1]])),
            })
            .collect())
    }

    /// Reads a scalar unsigned-integer accessor (indices).
    ///
    /// # Errors
    /// [`IoError::Invalid`] for a non-scalar, signed, float or normalized accessor, or any
    /// out-of-range read.
    pub(crate) fn read_u32(&self, what: &str, a: &Accessor<'_>) -> Result<Vec<u32>, IoError> {
        self.check_dims(what, a, &[Dimensions::Scalar])?;
        let t = a.data_type();
        if !matches!(t, DataType::U8 | DataType::U16 | DataType::U32) || a.normalized() {
            return Err(self.invalid(
                what,
                format!("accessor {} must hold unsigned integers", a.index()),
            ));
        }
        let (data, csize) = self.packed(what, a)?;
        Ok(data
            .chunks_exact(csize)
            .map(|b| match csize {
                1 => u32::from(b[0]),
                2 => u32::from(u16::from_le_bytes([b[0], b[1]])),
                _ => u32::from_le_bytes([b[0], b[1], b[2], b[3]]),
            })
            .collect())
    }
}
