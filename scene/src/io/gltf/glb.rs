//! The binary glTF container (`.glb`): a 12-byte header, a JSON chunk, an optional BIN
//! chunk. Parsed here with every length checked against the data, so a truncated or forged
//! header is an error and never an out-of-bounds read.

use std::path::Path;

use crate::io::error::IoError;

/// `glTF` in little-endian.
pub(super) const MAGIC: u32 = 0x4654_6C67;
const CHUNK_JSON: u32 = 0x4E4F_534A;
const CHUNK_BIN: u32 = 0x004E_4942;

/// The chunks of a GLB file.
pub(super) struct Glb<'a> {
    /// The JSON chunk.
    pub(super) json: &'a [u8],
    /// The BIN chunk, if present.
    pub(super) bin: Option<&'a [u8]>,
}

fn u32_at(data: &[u8], at: usize) -> Option<u32> {
    let b = data.get(at..at.checked_add(4)?)?;
    Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

/// Whether `data` starts like a GLB file.
pub(super) fn is_glb(data: &[u8]) -> bool {
    u32_at(data, 0) == Some(MAGIC)
}

/// Splits a GLB file into its chunks.
///
/// # Errors
/// [`IoError::Parse`] for a short, truncated or malformed container.
pub(super) fn parse<'a>(file: &Path, data: &'a [u8]) -> Result<Glb<'a>, IoError> {
    let err = |message: String| IoError::Parse {
        file: file.to_owned(),
        location: None,
        message,
    };
    if data.len() < 12 {
        return Err(err(format!(
            "truncated GLB: {} bytes, the header alone needs 12",
            data.len()
        )));
    }
    if u32_at(data, 0) != Some(MAGIC) {
        return Err(err("not a GLB file (bad magic)".to_owned()));
    }
    let version = u32_at(data, 4).unwrap_or(0);
    if version != 2 {
        return Err(err(format!(
            "GLB version {version} is not supported (only 2)"
        )));
    }
    let length = u32_at(data, 8).unwrap_or(0) as usize;
    if length > data.len() {
        return Err(err(format!(
            "truncated GLB: the header says {length} bytes, the file has {}",
            data.len()
        )));
    }
    if length < 20 {
        return Err(err(format!(
            "GLB length {length} leaves no room for a JSON chunk"
        )));
    }
    let data = &data[..length];
    let mut chunks = Vec::new();
    let mut at = 12usize;
    while at < data.len() {
        let (Some(len), Some(kind)) = (u32_at(data, at), u32_at(data, at + 4)) else {
            return Err(err(format!("truncated GLB chunk header at byte {at}")));
        };
        let start = at + 8;
        let end = start
            .checked_add(len as usize)
            .filter(|&e| e <= data.len())
            .ok_or_else(|| {
                err(format!(
                    "GLB chunk at byte {at} claims {len} bytes, only {} remain",
                    data.len() - start.min(data.len())
                ))
            })?;
        chunks.push((kind, &data[start..end]));
        // Chunks are 4-byte aligned; their lengths include the padding, but be lenient.
        at = end.checked_add(3).map_or(usize::MAX, |e| e & !3);
    }
    match chunks.first() {
        Some(&(CHUNK_JSON, json)) => Ok(Glb {
            json,
            bin: chunks
                .get(1)
                .filter(|(kind, _)| *kind == CHUNK_BIN)
                .map(|&(_, b)| b),
        }),
        _ => Err(err("the first GLB chunk is not JSON".to_owned())),
    }
}

#[cfg(feature = "internal-tests")]
pub(crate) mod tests {
    /// Every test of this module: `tests/unit.rs` runs each as one trial (an unlisted
    /// test fails the build as dead code).
    pub(crate) const TESTS: &[(&str, fn())] =
        &[("round_trip_and_truncation", round_trip_and_truncation)];

    use super::*;

    /// A GLB file from a JSON text and an optional binary chunk (both padded to 4 bytes).
    pub(crate) fn make_glb(json: &str, bin: Option<&[u8]>) -> Vec<u8> {
        let mut j = json.as_bytes().to_vec();
        while !j.len().is_multiple_of(4) {
            j.push(b' ');
        }
        let mut out = Vec::new();
        out.extend_from_slice(&MAGIC.to_le_bytes());
        out.extend_from_slice(&2u32.to_le_bytes());
        out.extend_from_slice(&0u32.to_le_bytes());
        out.extend_from_slice(&(j.len() as u32).to_le_bytes());
        out.extend_from_slice(&CHUNK_JSON.to_le_bytes());
        out.extend_from_slice(&j);
        if let Some(b) = bin {
            let mut b = b.to_vec();
            while b.len() % 4 != 0 {
                b.push(0);
            }
            out.extend_from_slice(&(b.len() as u32).to_le_bytes());
            out.extend_from_slice(&CHUNK_BIN.to_le_bytes());
            out.extend_from_slice(&b);
        }
        let n = out.len() as u32;
        out[8..12].copy_from_slice(&n.to_le_bytes());
        out
    }

    fn round_trip_and_truncation() {
        let f = Path::new("t.glb");
        let g = make_glb("{}", Some(&[1, 2, 3]));
        let p = parse(f, &g).unwrap();
        assert_eq!(p.json, b"{}  ");
        assert_eq!(p.bin, Some(&[1u8, 2, 3, 0][..]));
        // Every truncation is an error, never a panic.
        for n in 0..g.len() {
            assert!(parse(f, &g[..n]).is_err(), "prefix of {n} bytes");
        }
        // A forged chunk length.
        let mut bad = g.clone();
        bad[12..16].copy_from_slice(&u32::MAX.to_le_bytes());
        let e = parse(f, &bad).err().unwrap().to_string();
        assert!(e.starts_with("t.glb: GLB chunk at byte 12 claims"), "{e}");
        let mut v1 = g.clone();
        v1[4] = 1;
        assert!(parse(f, &v1).is_err());
        let mut short = g;
        short[8..12].copy_from_slice(&4u32.to_le_bytes());
        assert!(parse(f, &short).is_err());
    }
}
