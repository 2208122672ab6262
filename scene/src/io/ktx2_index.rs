//! A KTX2 file's declared sizes, read and checked before the Basis Universal transcoder sees
//! the file.
//!
//! The transcoder trusts what a KTX2 file declares: a Zstandard-supercompressed level is
//! inflated into a buffer of the level's `uncompressedByteLength`, allocated before a byte
//! is decoded, so a 1 KB file declaring 2⁶² bytes aborts the process, and one declaring
//! 1 GiB over a stream that really yields it takes gigabytes. So plumb reads the header and
//! the level index itself first ([`check`]) and refuses, with the field named, anything that
//! is not what `KHR_texture_basisu` allows or that does not add up:
//!
//! * the container: the KTX2 identifier (a `.basis` file is refused), `vkFormat` 0,
//!   `typeSize` 1, a 2D image (`pixelDepth` 0, at most one layer, one face), and
//!   `levelCount` from 1 to the length of a full mip chain of the base size;
//! * the codec (the data format descriptor's colour model) and its scheme: ETC1S with
//!   BasisLZ, or UASTC (LDR, 4×4 blocks) uncompressed or with Zstandard — no HDR, raw ASTC
//!   or intermediate formats, which the extension does not allow;
//! * every level's `byteOffset + byteLength` inside the file;
//! * a UASTC level's size is not a declaration but a consequence: 16 bytes per 4×4 block of
//!   the level. `uncompressedByteLength` (and, uncompressed, `byteLength`) must be exactly
//!   that, so the inflate buffer is bounded by the base size, which `max_texture_size`
//!   bounds;
//! * a Zstandard level is one frame (the magic first); the sizes its header declares — the
//!   content size when present, which must equal `uncompressedByteLength`, and the window
//!   the decoder reserves — are read too.
//!
//! What the transcode then allocates besides the RGBA8 output, [`Ktx2Index::scratch_bytes`]
//! (every Zstandard level's uncompressed length plus its frame's window), is charged to the
//! load's texture budget with the output, before anything is decoded. A stream that produces
//! more than its level declares is refused by the transcoder (it reads one byte past the
//! declared length and fails if there is one).

/// The twelve bytes a KTX2 file starts with.
pub(crate) const MAGIC: [u8; 12] = [
    0xAB, b'K', b'T', b'X', b' ', b'2', b'0', 0xBB, 0x0D, 0x0A, 0x1A, 0x0A,
];

/// The data format descriptor's colour model of ETC1S (`KHR_DF_MODEL_ETC1S`).
const MODEL_ETC1S: u32 = 163;
/// The data format descriptor's colour model of UASTC (`KHR_DF_MODEL_UASTC`).
const MODEL_UASTC: u32 = 166;
/// The Zstandard frame magic number, little-endian.
const ZSTD_MAGIC: [u8; 4] = [0x28, 0xB5, 0x2F, 0xFD];
/// Bytes of one UASTC 4×4 block.
const UASTC_BLOCK_BYTES: u64 = 16;

/// What [`check`] found: the base size and the transcoder's scratch memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Ktx2Index {
    /// Base width and height.
    pub(crate) width: u32,
    pub(crate) height: u32,
    /// Levels in the file.
    pub(crate) levels: u32,
    /// Bytes the transcoder allocates besides its RGBA8 output: every Zstandard level's
    /// uncompressed length and its frame's window.
    pub(crate) scratch_bytes: u64,
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    let mut w = [0u8; 4];
    w.copy_from_slice(&b[at..at + 4]);
    u32::from_le_bytes(w)
}

fn u64_at(b: &[u8], at: usize) -> u64 {
    let mut w = [0u8; 8];
    w.copy_from_slice(&b[at..at + 8]);
    u64::from_le_bytes(w)
}

/// Levels of a full mip chain of a `width × height` base (halving, floor, down to 1 × 1).
fn chain_levels(width: u32, height: u32) -> u32 {
    32 - width.max(height).max(1).leading_zeros()
}

/// Reads and checks `bytes`' KTX2 header and level index (see the [module docs](self)).
///
/// # Errors
/// The reason, one line naming the field (`level 0 uncompressedByteLength …`), for
/// [`IoError::Image`](super::IoError::Image).
pub(crate) fn check(bytes: &[u8]) -> Result<Ktx2Index, String> {
    if !bytes.starts_with(&MAGIC) {
        return Err("not a KTX2 file (no KTX2 identifier)".to_owned());
    }
    if bytes.len() < 80 {
        return Err(format!(
            "a KTX2 header is 80 bytes, the file has {}",
            bytes.len()
        ));
    }
    let field = |at: usize| u32_at(bytes, at);
    let (vk_format, type_size) = (field(12), field(16));
    let (width, height, depth) = (field(20), field(24), field(28));
    let (layers, faces, levels, scheme) = (field(32), field(36), field(40), field(44));
    let (dfd_offset, dfd_length) = (field(48) as usize, field(52) as usize);
    if vk_format != 0 {
        return Err(format!(
            "vkFormat is {vk_format}; a Basis Universal texture's is 0 (VK_FORMAT_UNDEFINED)"
        ));
    }
    if type_size != 1 {
        return Err(format!("typeSize is {type_size}, not 1"));
    }
    if width == 0 || height == 0 || depth != 0 || layers > 1 || faces != 1 {
        return Err(format!(
            "a KTX2 image of {width}x{height}x{depth}, {layers} layers, {faces} faces is not one 2D texture"
        ));
    }
    let most = chain_levels(width, height);
    if levels == 0 || levels > most {
        return Err(format!(
            "levelCount is {levels}; a {width}x{height} texture has 1 to {most}"
        ));
    }
    let index_end = 80 + 24 * levels as usize;
    if index_end > bytes.len() {
        return Err(format!(
            "the level index of {levels} levels runs past the file's {} bytes",
            bytes.len()
        ));
    }
    let model = dfd_offset
        .checked_add(16)
        .filter(|&end| end <= bytes.len() && dfd_length >= 16)
        .map(|_| field(dfd_offset + 12) & 0xFF)
        .ok_or_else(|| {
            format!(
                "the data format descriptor ({dfd_length} bytes at {dfd_offset}) runs past the file"
            )
        })?;
    let uastc = match (model, scheme) {
        (MODEL_ETC1S, 1) => false,
        (MODEL_UASTC, 0 | 2) => true,
        (MODEL_ETC1S | MODEL_UASTC, s) => {
            return Err(format!(
                "supercompressionScheme {s} is not allowed for {} (KHR_texture_basisu)",
                if model == MODEL_ETC1S {
                    "ETC1S"
                } else {
                    "UASTC"
                }
            ))
        }
        (m, _) => {
            return Err(format!(
                "colour model {m} is neither ETC1S ({MODEL_ETC1S}) nor UASTC ({MODEL_UASTC})"
            ))
        }
    };
    let mut scratch = 0u64;
    for level in 0..levels {
        let at = 80 + 24 * level as usize;
        let (offset, length, uncompressed) = (
            u64_at(bytes, at),
            u64_at(bytes, at + 8),
            u64_at(bytes, at + 16),
        );
        let end = offset.checked_add(length);
        if end.is_none_or(|end| end > bytes.len() as u64) {
            return Err(format!(
                "level {level} byteOffset {offset} + byteLength {length} runs past the file's {} bytes",
                bytes.len()
            ));
        }
        if !uastc {
            continue;
        }
        let (w, h) = ((width >> level).max(1), (height >> level).max(1));
        // Saturating: a 2³²−1 square's 2⁶⁰ blocks of 16 bytes do not fit 64 bits (issue 50:
        // an overflow the structure-aware mutator found; no level declares that size).
        let size = u64::from(w.div_ceil(4))
            .saturating_mul(u64::from(h.div_ceil(4)))
            .saturating_mul(UASTC_BLOCK_BYTES);
        if uncompressed != size {
            return Err(format!(
                "level {level} uncompressedByteLength is {uncompressed}; a {w}x{h} UASTC level is {size} bytes"
            ));
        }
        if scheme == 0 {
            if length != size {
                return Err(format!(
                    "level {level} byteLength is {length}; a {w}x{h} UASTC level is {size} bytes"
                ));
            }
            continue;
        }
        let frame = &bytes[offset as usize..(offset + length) as usize];
        let window = zstd_window(frame, uncompressed).map_err(|e| format!("level {level}: {e}"))?;
        scratch = scratch.saturating_add(uncompressed).saturating_add(window);
    }
    check_kvd(bytes, u64::from(field(56)), u64::from(field(60)))?;
    let (sgd_offset, sgd_length) = (u64_at(bytes, 64), u64_at(bytes, 72));
    if sgd_offset
        .checked_add(sgd_length)
        .is_none_or(|end| end > bytes.len() as u64)
    {
        return Err(format!(
            "sgdByteOffset {sgd_offset} + sgdByteLength {sgd_length} runs past the file's {} bytes",
            bytes.len()
        ));
    }
    Ok(Ktx2Index {
        width,
        height,
        levels,
        scratch_bytes: scratch,
    })
}

/// The key/value data (`kvdByteOffset`, `kvdByteLength`) lies inside the file and is a list
/// of entries as the KTX2 specification lays them out: a 32-bit `keyAndValueByteLength` (at
/// least 2: a key and its NUL), that many bytes, then padding to a 4-byte boundary, all
/// inside `kvdByteLength`. (The transcoder walks the entries itself and, on a length that
/// leaves out the last entry's padding, indexes past the file: issue 50's structure-aware
/// fuzzing found it.)
fn check_kvd(bytes: &[u8], offset: u64, length: u64) -> Result<(), String> {
    if length == 0 {
        return Ok(());
    }
    let end = offset
        .checked_add(length)
        .filter(|&end| end <= bytes.len() as u64)
        .ok_or_else(|| {
            format!(
                "kvdByteOffset {offset} + kvdByteLength {length} runs past the file's {} bytes",
                bytes.len()
            )
        })?;
    let mut at = offset;
    while at < end {
        if end - at < 4 {
            return Err(format!(
                "key/value data: {} bytes at byte {at} are not an entry (kvdByteLength {length})",
                end - at
            ));
        }
        let entry = u64::from(u32_at(bytes, at as usize));
        let next = (at + 4 + entry).next_multiple_of(4);
        if entry < 2 || next > end {
            return Err(format!(
                "key/value data: the entry at byte {at} of {entry} bytes (padded to 4) does not fit kvdByteLength {length}"
            ));
        }
        at = next;
    }
    Ok(())
}

/// The window a Zstandard frame's header declares (what the decoder reserves), checked
/// against the level: the frame's content size, when it gives one, must be `declared`.
fn zstd_window(frame: &[u8], declared: u64) -> Result<u64, String> {
    if !frame.starts_with(&ZSTD_MAGIC) || frame.len() < 6 {
        return Err("the level is not a Zstandard frame".to_owned());
    }
    let descriptor = frame[4];
    if descriptor & 0x08 != 0 {
        return Err("the Zstandard frame header sets its reserved bit".to_owned());
    }
    let single_segment = descriptor & 0x20 != 0;
    let dictionary_bytes = [0usize, 1, 2, 4][usize::from(descriptor & 3)];
    let content_bytes = match descriptor >> 6 {
        0 => usize::from(single_segment),
        1 => 2,
        2 => 4,
        _ => 8,
    };
    let mut at = 5;
    let window = if single_segment {
        None
    } else {
        let w = frame[at];
        at += 1;
        let log = 10 + u64::from(w >> 3);
        let base = 1u64 << log;
        Some(base + (base / 8) * u64::from(w & 7))
    };
    at += dictionary_bytes;
    let Some(field) = frame.get(at..at + content_bytes) else {
        return Err("the Zstandard frame header is truncated".to_owned());
    };
    let mut content = None;
    if content_bytes > 0 {
        let mut v = 0u64;
        for (i, b) in field.iter().enumerate() {
            v |= u64::from(*b) << (8 * i);
        }
        if content_bytes == 2 {
            v += 256;
        }
        content = Some(v);
    }
    if let Some(c) = content.filter(|&c| c != declared) {
        return Err(format!(
            "the Zstandard frame declares {c} bytes, the level's uncompressedByteLength {declared}"
        ));
    }
    // A single-segment frame's window is its content size.
    Ok(window.or(content).unwrap_or(0))
}

#[cfg(feature = "internal-tests")]
pub(crate) mod tests {
    /// Every test of this module: `tests/unit.rs` runs each as one trial (an unlisted
    /// test fails the build as dead code).
    pub(crate) const TESTS: &[(&str, fn())] = &[
        ("chain_levels_count_halvings", chain_levels_count_halvings),
        ("zstd_windows_are_read", zstd_windows_are_read),
    ];

    use super::*;

    fn chain_levels_count_halvings() {
        assert_eq!(chain_levels(1, 1), 1);
        assert_eq!(chain_levels(64, 64), 7);
        assert_eq!(chain_levels(65, 3), 7);
        assert_eq!(chain_levels(8192, 1), 14);
    }

    fn zstd_windows_are_read() {
        // Single segment, 8-byte content size 2^62: refused against a 4096-byte level.
        let mut f = ZSTD_MAGIC.to_vec();
        f.push(0xE0);
        f.extend((1u64 << 62).to_le_bytes());
        let e = zstd_window(&f, 4096).unwrap_err();
        assert!(e.contains("4611686018427387904"), "{e}");
        // Single segment, 1-byte content size: the window is the content.
        let mut f = ZSTD_MAGIC.to_vec();
        f.extend([0x20, 200]);
        assert_eq!(zstd_window(&f, 200), Ok(200));
        // A window descriptor of 2^20 + 2^17 and no content size.
        let mut f = ZSTD_MAGIC.to_vec();
        f.extend([0x00, (10 << 3) | 1]);
        assert_eq!(zstd_window(&f, 7), Ok((1 << 20) + (1 << 17)));
        assert!(zstd_window(b"PK\x03\x04xx", 1).is_err());
        assert!(zstd_window(&[0x28, 0xB5, 0x2F, 0xFD, 0xC0], 1).is_err());
    }
}
