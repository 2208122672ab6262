//! `EXT_meshopt_compression`: buffer views stored compressed, decoded once at load from the
//! extension's public specification (Appendix A, the bitstreams; Appendix B, the filters).
//!
//! A view's `extensions.EXT_meshopt_compression` names a byte range of some buffer (the
//! compressed data), the element `count` and `byteStride`, a `mode` and a `filter`:
//! * `ATTRIBUTES` (header `0xa0`): per-byte deltas from the previous element, in blocks of
//!   16-element groups with 0/2/4/8-bit delta widths; the first element's baseline is the
//!   stream's last `byteStride` bytes.
//! * `TRIANGLES` (header `0xe1`): one code byte per triangle against a 16-entry edge FIFO and
//!   vertex FIFO, extra bytes (LEB128, zigzag deltas) where the code says, and a 16-byte
//!   lookup table at the end.
//! * `INDICES` (header `0xd1`): LEB128 zigzag deltas against two baselines.
//! * Filters on `ATTRIBUTES`: `OCTAHEDRAL` (unit vectors, 8- or 16-bit), `QUATERNION`
//!   (16-bit, largest component dropped), `EXPONENTIAL` (a signed 8-bit exponent and a
//!   24-bit mantissa per 32-bit value), in `f32` arithmetic as the specification writes them
//!   (`sqrt` and division are exactly rounded, so the bytes are the same everywhere; the
//!   specification allows decoders one unit in the last place).
//!
//! The decoded bytes replace the view's: every reader (accessors, Draco streams, images) sees
//! the view as if it were stored uncompressed. The parent view's own buffer may be a
//! placeholder without data (`fallback`), which is then never loaded. Every read is bounds
//! checked; a stream that is too short, too long, has the wrong header or breaks a rule of
//! the extension (strides, counts, a filter on indices) is an error naming the view. The
//! decoded size (`count × byteStride`) is charged to the load's geometry budget before it is
//! allocated.
//!
//! `exponential` exponents outside the specification's valid range −100..=100 (its result is
//! unspecified there) are clamped to −126..=127.

use std::collections::BTreeMap;

use super::ctx::Ctx;
use crate::io::error::IoError;

/// The extension's name.
pub(crate) const EXT: &str = "EXT_meshopt_compression";

/// Whether the document lists the extension in `extensionsUsed`.
pub(crate) fn used(doc: &::gltf::Document) -> bool {
    doc.extensions_used().any(|e| e == EXT)
}

/// Whether `buffer` is marked as the extension's fallback (`"fallback": true`).
pub(crate) fn is_fallback(buffer: &::gltf::Buffer<'_>) -> bool {
    buffer
        .extension_value(EXT)
        .and_then(|e| e.get("fallback"))
        .and_then(serde_json::Value::as_bool)
        .unwrap_or(false)
}

/// Decodes every compressed buffer view of `doc`, by view index. Each view's decoded size is
/// charged to the geometry budget before it is allocated.
///
/// # Errors
/// [`IoError::Invalid`] naming the view for a malformed extension object, compressed bytes
/// outside their buffer, a parent view whose length is not `count × byteStride`, or a stream
/// that does not decode.
pub(crate) fn decode_views(
    ctx: &Ctx<'_>,
    doc: &::gltf::Document,
) -> Result<BTreeMap<usize, Vec<u8>>, IoError> {
    let mut out = BTreeMap::new();
    for view in doc.views() {
        let Some(ext) = view.extension_value(EXT) else {
            continue;
        };
        let what = format!("bufferViews[{}].extensions.{EXT}", view.index());
        let int = |key: &str, default: Option<usize>| -> Result<usize, IoError> {
            match ext.get(key) {
                None => default.ok_or_else(|| ctx.invalid(&what, format!("has no {key}"))),
                Some(v) => v
                    .as_u64()
                    .and_then(|v| usize::try_from(v).ok())
                    .ok_or_else(|| ctx.invalid(&what, format!("{key} {v} is not a count"))),
            }
        };
        let (buffer, offset, length) = (
            int("buffer", None)?,
            int("byteOffset", Some(0))?,
            int("byteLength", None)?,
        );
        let (stride, count) = (int("byteStride", None)?, int("count", None)?);
        let text = |key: &str, default: &str| -> String {
            ext.get(key)
                .map_or(default.to_owned(), |v| v.as_str().unwrap_or("?").to_owned())
        };
        let mode = match text("mode", "?").as_str() {
            "ATTRIBUTES" => Mode::Attributes,
            "TRIANGLES" => Mode::Triangles,
            "INDICES" => Mode::Indices,
            m => {
                return Err(ctx.invalid(
                    &what,
                    format!("mode {m:?} is not ATTRIBUTES, TRIANGLES or INDICES"),
                ))
            }
        };
        let filter = match text("filter", "NONE").as_str() {
            "NONE" => Filter::None,
            "OCTAHEDRAL" => Filter::Octahedral,
            "QUATERNION" => Filter::Quaternion,
            "EXPONENTIAL" => Filter::Exponential,
            f => {
                return Err(ctx.invalid(
                    &what,
                    format!("filter {f:?} is not NONE, OCTAHEDRAL, QUATERNION or EXPONENTIAL"),
                ))
            }
        };
        let size = count.checked_mul(stride).filter(|&n| n == view.length());
        let Some(size) = size else {
            return Err(ctx.invalid(
                &what,
                format!(
                    "count {count} × byteStride {stride} is not the view's byteLength {}",
                    view.length()
                ),
            ));
        };
        if view.stride().is_some_and(|s| s != stride) {
            return Err(ctx.invalid(
                &what,
                format!("byteStride {stride} differs from the view's"),
            ));
        }
        ctx.charge_geometry(&what, size.div_ceil(4), 1)?;
        let data = ctx
            .buffers
            .get(buffer)
            .and_then(|b| b.get(offset..offset.checked_add(length)?))
            .ok_or_else(|| {
                ctx.invalid(
                    &what,
                    format!("bytes {offset}..+{length} of buffer {buffer} are not loaded data"),
                )
            })?;
        let bytes = decode(data, count, stride, mode, filter)
            .map_err(|e| ctx.invalid(&what, format!("the stream does not decode: {e}")))?;
        out.insert(view.index(), bytes);
    }
    Ok(out)
}

/// What the view's extension asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    Attributes,
    Triangles,
    Indices,
}

/// The post-decoding filter of an `ATTRIBUTES` view.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Filter {
    None,
    Octahedral,
    Quaternion,
    Exponential,
}

/// Decodes `data` into `count` elements of `stride` bytes, as `mode` and `filter` say.
///
/// # Errors
/// A message saying what is wrong with the stream or the parameters.
pub(crate) fn decode(
    data: &[u8],
    count: usize,
    stride: usize,
    mode: Mode,
    filter: Filter,
) -> Result<Vec<u8>, String> {
    check(count, stride, mode, filter)?;
    let mut out = match mode {
        Mode::Attributes => attributes(data, count, stride)?,
        Mode::Triangles => write_indices(&triangles(data, count)?, stride),
        Mode::Indices => write_indices(&indices(data, count)?, stride),
    };
    match filter {
        Filter::None => {}
        Filter::Octahedral if stride == 4 => out.chunks_exact_mut(4).for_each(octahedral8),
        Filter::Octahedral => out.chunks_exact_mut(8).for_each(octahedral16),
        Filter::Quaternion => out.chunks_exact_mut(8).for_each(quaternion),
        Filter::Exponential => out.chunks_exact_mut(4).for_each(exponential),
    }
    Ok(out)
}

/// The extension's rules on strides, counts and filters.
fn check(count: usize, stride: usize, mode: Mode, filter: Filter) -> Result<(), String> {
    let rule = match mode {
        Mode::Attributes if stride == 0 || !stride.is_multiple_of(4) || stride > 256 => {
            "ATTRIBUTES needs a byteStride that is a multiple of 4, at most 256"
        }
        Mode::Triangles if !count.is_multiple_of(3) => "TRIANGLES needs a count divisible by 3",
        Mode::Triangles | Mode::Indices if stride != 2 && stride != 4 => {
            "TRIANGLES and INDICES need a byteStride of 2 or 4"
        }
        Mode::Triangles | Mode::Indices if filter != Filter::None => {
            "TRIANGLES and INDICES take no filter"
        }
        _ => match filter {
            Filter::Octahedral if stride != 4 && stride != 8 => {
                "OCTAHEDRAL needs a byteStride of 4 or 8"
            }
            Filter::Quaternion if stride != 8 => "QUATERNION needs a byteStride of 8",
            _ => return Ok(()),
        },
    };
    Err(format!("{rule} (byteStride {stride}, count {count})"))
}

/// A bounds-checked reader over `data[..end]`.
struct Reader<'a> {
    data: &'a [u8],
    pos: usize,
    end: usize,
}

impl Reader<'_> {
    fn byte(&mut self) -> Result<u8, String> {
        if self.pos >= self.end {
            return Err(format!("the stream ends early (at byte {})", self.pos));
        }
        self.pos += 1;
        Ok(self.data[self.pos - 1])
    }

    fn bytes(&mut self, n: usize) -> Result<&[u8], String> {
        if self.end - self.pos < n {
            return Err(format!("the stream ends early (at byte {})", self.pos));
        }
        self.pos += n;
        Ok(&self.data[self.pos - n..self.pos])
    }

    /// An unsigned LEB128 value of at most 5 bytes (32 bits).
    fn varint(&mut self) -> Result<u32, String> {
        let mut value = 0u32;
        for k in 0..5 {
            let b = self.byte()?;
            value |= u32::from(b & 0x7f).wrapping_shl(7 * k);
            if b < 0x80 {
                return Ok(value);
            }
        }
        Err(format!(
            "a varint longer than 5 bytes (at byte {})",
            self.pos
        ))
    }

    /// That the stream was read up to its tail, as the specification requires.
    fn finish(&self) -> Result<(), String> {
        if self.pos == self.end {
            Ok(())
        } else {
            Err(format!(
                "{} bytes left over before the tail (the stream is longer than its data)",
                self.end - self.pos
            ))
        }
    }
}

fn unzigzag8(v: u8) -> u8 {
    (v >> 1) ^ 0u8.wrapping_sub(v & 1)
}

fn unzigzag32(v: u32) -> u32 {
    (v >> 1) ^ 0u32.wrapping_sub(v & 1)
}

/// Mode 0.
fn attributes(data: &[u8], count: usize, stride: usize) -> Result<Vec<u8>, String> {
    let tail = stride.max(32);
    if data.len() < 1 + tail {
        return Err(format!(
            "{} bytes are too few for an ATTRIBUTES stream of stride {stride}",
            data.len()
        ));
    }
    if data[0] != 0xa0 {
        return Err(format!("header byte {:#04x}, expected 0xa0", data[0]));
    }
    let mut last = [0u8; 256];
    last[..stride].copy_from_slice(&data[data.len() - stride..]);
    let mut r = Reader {
        data,
        pos: 1,
        end: data.len() - tail,
    };
    let mut out = vec![0u8; count * stride];
    let max_block = ((8192 / stride) & !15).min(256);
    let mut deltas = [0u8; 256];
    for block in out.chunks_mut(max_block * stride) {
        let elements = block.len() / stride;
        let groups = elements.div_ceil(16);
        for (k, previous) in last.iter_mut().enumerate().take(stride) {
            let header = r.bytes(groups.div_ceil(4))?.to_vec();
            for g in 0..groups {
                let bits = (header[g / 4] >> (2 * (g % 4))) & 3;
                group(&mut r, bits, &mut deltas[16 * g..16 * g + 16])?;
            }
            let mut p = *previous;
            for (i, &d) in deltas.iter().take(elements).enumerate() {
                p = p.wrapping_add(unzigzag8(d));
                block[i * stride + k] = p;
            }
            *previous = p;
        }
    }
    r.finish()?;
    Ok(out)
}

/// One group of 16 byte deltas (still zigzagged) of width `bits` (0: zeros; 1: 2-bit; 2:
/// 4-bit, each with full-byte escapes for the all-ones value; 3: bytes).
fn group(r: &mut Reader<'_>, bits: u8, out: &mut [u8]) -> Result<(), String> {
    match bits {
        0 => out.fill(0),
        3 => out.copy_from_slice(r.bytes(16)?),
        _ => {
            let width = if bits == 1 { 2 } else { 4 };
            let packed = r.bytes(2 * width)?.to_vec();
            let per_byte = 8 / width;
            let mask = (1u8 << width) - 1;
            for (i, slot) in out.iter_mut().enumerate() {
                let shift = 8 - width * (i % per_byte + 1);
                let v = (packed[i / per_byte] >> shift) & mask;
                *slot = if v == mask { r.byte()? } else { v };
            }
        }
    }
    Ok(())
}

/// Mode 1: `count` indices (a multiple of 3).
fn triangles(data: &[u8], count: usize) -> Result<Vec<u32>, String> {
    let triangles = count / 3;
    if data.len() < 1 + triangles + 16 {
        return Err(format!(
            "{} bytes are too few for a TRIANGLES stream of {triangles} triangles",
            data.len()
        ));
    }
    if data[0] != 0xe1 {
        return Err(format!("header byte {:#04x}, expected 0xe1", data[0]));
    }
    let codes = &data[1..1 + triangles];
    let aux = &data[data.len() - 16..];
    let mut r = Reader {
        data,
        pos: 1 + triangles,
        end: data.len() - 16,
    };
    let mut edges = [[0u32; 2]; 16];
    let mut verts = [0u32; 16];
    let (mut eo, mut vo) = (0usize, 0usize);
    let (mut next, mut last) = (0u32, 0u32);
    let mut out = Vec::with_capacity(count);
    let push_edge = |edges: &mut [[u32; 2]; 16], eo: &mut usize, a: u32, b: u32| {
        edges[*eo & 15] = [a, b];
        *eo += 1;
    };
    let push_vertex = |verts: &mut [u32; 16], vo: &mut usize, v: u32| {
        verts[*vo & 15] = v;
        *vo += 1;
    };
    // `decodeIndex`: a zigzag delta from `last`.
    let free = |r: &mut Reader<'_>, last: &mut u32| -> Result<u32, String> {
        *last = last.wrapping_add(unzigzag32(r.varint()?));
        Ok(*last)
    };
    for &code in codes {
        if code < 0xf0 {
            let [a, b] = edges[eo.wrapping_sub(1 + usize::from(code >> 4)) & 15];
            let y = code & 15;
            let c = match y {
                0 => {
                    next = next.wrapping_add(1);
                    next.wrapping_sub(1)
                }
                1..=12 => verts[vo.wrapping_sub(1 + usize::from(y)) & 15],
                13 | 14 => {
                    last = if y == 13 {
                        last.wrapping_sub(1)
                    } else {
                        last.wrapping_add(1)
                    };
                    last
                }
                _ => free(&mut r, &mut last)?,
            };
            if !(1..=12).contains(&y) {
                push_vertex(&mut verts, &mut vo, c);
            }
            push_edge(&mut edges, &mut eo, c, b);
            push_edge(&mut edges, &mut eo, a, c);
            out.extend([a, b, c]);
        } else {
            let (explicit, zw) = if code < 0xfe {
                (false, aux[usize::from(code & 15)])
            } else {
                (true, r.byte()?)
            };
            if explicit && zw == 0 {
                next = 0;
            }
            let (z, w) = (zw >> 4, zw & 15);
            let a = if code == 0xff {
                free(&mut r, &mut last)?
            } else {
                next = next.wrapping_add(1);
                next.wrapping_sub(1)
            };
            let mut pick = |f: u8, r: &mut Reader<'_>| -> Result<u32, String> {
                Ok(match f {
                    0 => {
                        next = next.wrapping_add(1);
                        next.wrapping_sub(1)
                    }
                    15 if explicit => free(r, &mut last)?,
                    _ => verts[vo.wrapping_sub(usize::from(f)) & 15],
                })
            };
            let b = pick(z, &mut r)?;
            let c = pick(w, &mut r)?;
            push_vertex(&mut verts, &mut vo, a);
            if z == 0 || (explicit && z == 15) {
                push_vertex(&mut verts, &mut vo, b);
            }
            if w == 0 || (explicit && w == 15) {
                push_vertex(&mut verts, &mut vo, c);
            }
            push_edge(&mut edges, &mut eo, b, a);
            push_edge(&mut edges, &mut eo, c, b);
            push_edge(&mut edges, &mut eo, a, c);
            out.extend([a, b, c]);
        }
    }
    r.finish()?;
    Ok(out)
}

/// Mode 2: `count` indices.
fn indices(data: &[u8], count: usize) -> Result<Vec<u32>, String> {
    if data.len() < 1 + 4 {
        return Err(format!(
            "{} bytes are too few for an INDICES stream",
            data.len()
        ));
    }
    if data[0] != 0xd1 {
        return Err(format!("header byte {:#04x}, expected 0xd1", data[0]));
    }
    let mut r = Reader {
        data,
        pos: 1,
        end: data.len() - 4,
    };
    let mut last = [0u32; 2];
    let mut out = Vec::with_capacity(count);
    for _ in 0..count {
        let v = r.varint()?;
        let base = &mut last[(v & 1) as usize];
        *base = base.wrapping_add(unzigzag32(v >> 1));
        out.push(*base);
    }
    r.finish()?;
    Ok(out)
}

/// Indices as 16- or 32-bit little-endian integers (16-bit ones truncated, as the stream's
/// encoder wrote them).
fn write_indices(idx: &[u32], stride: usize) -> Vec<u8> {
    if stride == 2 {
        idx.iter().flat_map(|&i| (i as u16).to_le_bytes()).collect()
    } else {
        idx.iter().flat_map(|&i| i.to_le_bytes()).collect()
    }
}

/// The octahedral decode of Appendix B on `x, y, one` (the K-bit 1.0), to unit `x, y, z`
/// scaled by `max` and rounded.
fn octahedral(x: f32, y: f32, one: f32, max: f32) -> [f32; 3] {
    let (mut x, mut y) = (x / one, y / one);
    let z = 1.0 - x.abs() - y.abs();
    let t = z.min(0.0);
    x -= t.copysign(x);
    y -= t.copysign(y);
    let len = (x * x + y * y + z * z).sqrt();
    [
        (x / len * max).round(),
        (y / len * max).round(),
        (z / len * max).round(),
    ]
}

fn octahedral8(e: &mut [u8]) {
    let c = |i: usize| f32::from(e[i] as i8);
    let v = octahedral(c(0), c(1), c(2), 127.0);
    for (slot, v) in e.iter_mut().zip(v) {
        *slot = (v as i8) as u8;
    }
}

fn i16_at(e: &[u8], i: usize) -> i16 {
    i16::from_le_bytes([e[2 * i], e[2 * i + 1]])
}

fn set_i16(e: &mut [u8], i: usize, v: f32) {
    e[2 * i..2 * i + 2].copy_from_slice(&(v as i16).to_le_bytes());
}

fn octahedral16(e: &mut [u8]) {
    let c = |i: usize| f32::from(i16_at(e, i));
    let v = octahedral(c(0), c(1), c(2), 32767.0);
    for (i, v) in v.into_iter().enumerate() {
        set_i16(e, i, v);
    }
}

fn quaternion(e: &mut [u8]) {
    let range = 1.0 / 2.0f32.sqrt();
    let w3 = i16_at(e, 3);
    let one = f32::from(w3 | 3);
    let [x, y, z] = [0, 1, 2].map(|i| f32::from(i16_at(e, i)) / one * range);
    let w = (1.0 - x * x - y * y - z * z).max(0.0).sqrt();
    let max = (w3 & 3) as usize;
    for (k, v) in [(1, x), (2, y), (3, z), (0, w)] {
        set_i16(e, (max + k) % 4, (v * 32767.0).round());
    }
}

fn exponential(e: &mut [u8]) {
    let input = i32::from_le_bytes([e[0], e[1], e[2], e[3]]);
    let exp = (input >> 24).clamp(-126, 127);
    let mantissa = (input << 8) >> 8;
    let scale = f32::from_bits(((exp + 127) as u32) << 23);
    e.copy_from_slice(&(scale * mantissa as f32).to_le_bytes());
}

#[cfg(feature = "internal-tests")]
pub(crate) mod tests {
    //! Bitstream vectors from meshoptimizer's own tests (`demo/tests.cpp`, MIT licence,
    //! © Arseny Kapoulkine): encoded bytes and the data they decode to.

    /// Every test of this module: `tests/unit.rs` runs each as one trial.
    pub(crate) const TESTS: &[(&str, fn())] = &[
        ("triangles_vector", triangles_vector),
        ("indices_vector", indices_vector),
        ("attributes_vector", attributes_vector),
        ("groups_of_every_width", groups_of_every_width),
        ("filters_by_hand", filters_by_hand),
        ("bad_streams_are_errors", bad_streams_are_errors),
    ];

    use super::*;

    fn triangles_vector() {
        // kIndexDataV1 → kIndexBufferTricky: a restart (0xfe with a zero byte), a free index
        // (varint 0x0a: +5) and `last − 1` (0x3d).
        let want = [0u32, 1, 2, 2, 1, 3, 0, 1, 2, 2, 1, 5, 2, 1, 4];
        let data = [
            0xe1, 0xf0, 0x10, 0xfe, 0x1f, 0x3d, 0x00, 0x0a, 0x00, 0x76, 0x87, 0x56, 0x67, 0x78,
            0xa9, 0x86, 0x65, 0x89, 0x68, 0x98, 0x01, 0x69, 0x00, 0x00,
        ];
        assert_eq!(triangles(&data, 15).unwrap(), want);
        let bytes = decode(&data, 15, 2, Mode::Triangles, Filter::None).unwrap();
        let back: Vec<u32> = bytes
            .chunks_exact(2)
            .map(|b| u32::from(u16::from_le_bytes([b[0], b[1]])))
            .collect();
        assert_eq!(back, want);
        // One byte more or less is refused.
        let mut long = data.to_vec();
        long.insert(8, 0);
        assert!(triangles(&long, 15).is_err());
        assert!(triangles(&data[..data.len() - 1], 15).is_err());
    }

    fn indices_vector() {
        // kIndexSequenceV1 → kIndexSequence.
        let data = [
            0xd1, 0x00, 0x04, 0xcd, 0x01, 0x04, 0x07, 0x98, 0x1f, 0x00, 0x00, 0x00, 0x00,
        ];
        assert_eq!(indices(&data, 6).unwrap(), [0, 1, 51, 2, 49, 1000]);
        let bytes = decode(&data, 6, 4, Mode::Indices, Filter::None).unwrap();
        assert_eq!(&bytes[8..12], &51u32.to_le_bytes());
    }

    fn attributes_vector() {
        // kVertexDataV0 → kVertexBuffer: 4 vertices of 12 bytes (u16 px py pz, u8 nu nv,
        // u16 tx ty): (0,0,0, 0,0, 0,0), (300,0,0, 0,0, 500,0), (0,300,0, 0,0, 0,500),
        // (300,300,0, 0,0, 500,500).
        let data: [u8; 85] = [
            0xa0, 0x01, 0x3f, 0x00, 0x00, 0x00, 0x58, 0x57, 0x58, 0x01, 0x26, 0x00, 0x00, 0x00,
            0x01, 0x0c, 0x00, 0x00, 0x00, 0x58, 0x01, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
            0x00, 0x01, 0x3f, 0x00, 0x00, 0x00, 0x17, 0x18, 0x17, 0x01, 0x26, 0x00, 0x00, 0x00,
            0x01, 0x0c, 0x00, 0x00, 0x00, 0x17, 0x01, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
            0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
            0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
            0x00,
        ];
        let mut want = Vec::new();
        for v in [
            [0u16, 0, 0, 0, 0, 0],
            [300, 0, 0, 0, 500, 0],
            [0, 300, 0, 0, 0, 500],
            [300, 300, 0, 0, 500, 500],
        ] {
            // nu, nv are the two bytes of the fourth u16 (both 0).
            want.extend(v.iter().flat_map(|x| x.to_le_bytes()));
        }
        assert_eq!(
            decode(&data, 4, 12, Mode::Attributes, Filter::None).unwrap(),
            want
        );
        // Truncated anywhere, or one byte too long: refused, never a panic.
        for n in 0..data.len() {
            assert!(attributes(&data[..n], 4, 12).is_err(), "length {n}");
        }
        let mut long = data.to_vec();
        long.push(0);
        assert!(attributes(&long, 4, 12).is_err());
    }

    fn groups_of_every_width() {
        // The specification's 4-bit example: 8 bytes of nibbles, then the escapes for
        // elements 3 and 4; de-zigzagged deltas −1 −4 −3 26 −91 0 −6 6 −4 −4 5 −5 1 −1 0 0.
        let data = [0x17, 0x5f, 0xf0, 0xbc, 0x77, 0xa9, 0x21, 0x00, 0x34, 0xb5];
        let mut r = Reader {
            data: &data,
            pos: 0,
            end: data.len(),
        };
        let mut out = [0u8; 16];
        group(&mut r, 2, &mut out).unwrap();
        assert_eq!(r.pos, 10);
        let deltas: Vec<i8> = out.iter().map(|&v| unzigzag8(v) as i8).collect();
        assert_eq!(
            deltas,
            [-1, -4, -3, 26, -91, 0, -6, 6, -4, -4, 5, -5, 1, -1, 0, 0]
        );
    }

    fn filters_by_hand() {
        // Exponential: e = −2, m = 6 → 1.5.
        let mut e = ((-2i32 << 24) | 6).to_le_bytes();
        exponential(&mut e);
        assert_eq!(f32::from_le_bytes(e), 1.5);
        // Octahedral, 8-bit, K = 8: (0, 0, one) is +z.
        let mut e = [0, 0, 127, 9];
        octahedral8(&mut e);
        assert_eq!(e, [0, 0, 127, 9]);
        // (−127, 0, one): x = −1, z = 0 → −x axis.
        let mut e = [(-127i8) as u8, 0, 127, 0];
        octahedral8(&mut e);
        assert_eq!(e, [(-127i8) as u8, 0, 0, 0]);
        // Quaternion: all three stored components 0, max component index 2 → (0, 0, 1, 0)
        // with w... the dropped component (index 2) is sqrt(1) = 1.
        let mut e = [0u8; 8];
        e[6..8].copy_from_slice(&(0x7ffc_u16 as i16 | 2).to_le_bytes());
        quaternion(&mut e);
        let q: Vec<i16> = (0..4).map(|i| i16_at(&e, i)).collect();
        assert_eq!(q, [0, 0, 32767, 0]);
    }

    fn bad_streams_are_errors() {
        assert!(decode(&[0xa1; 64], 1, 4, Mode::Attributes, Filter::None)
            .unwrap_err()
            .contains("header"));
        assert!(decode(&[0xa0; 8], 1, 4, Mode::Attributes, Filter::None)
            .unwrap_err()
            .contains("too few"));
        assert!(decode(&[0xe1; 40], 4, 2, Mode::Triangles, Filter::None)
            .unwrap_err()
            .contains("divisible by 3"));
        assert!(decode(&[0xd1; 40], 3, 2, Mode::Indices, Filter::Octahedral)
            .unwrap_err()
            .contains("no filter"));
        assert!(
            decode(&[0xa0; 64], 1, 12, Mode::Attributes, Filter::Quaternion)
                .unwrap_err()
                .contains("QUATERNION")
        );
        // An INDICES stream whose varint runs into the tail.
        assert!(decode(
            &[0xd1, 0x80, 0x80, 0, 0, 0, 0],
            1,
            4,
            Mode::Indices,
            Filter::None
        )
        .is_err());
        // Trailing bytes before the tail.
        assert!(decode(
            &[0xd1, 0x00, 0x00, 0, 0, 0, 0],
            1,
            4,
            Mode::Indices,
            Filter::None
        )
        .unwrap_err()
        .contains("left over"));
    }
}
