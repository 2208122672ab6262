//! Hand-made Basis Universal KTX2 files (UASTC, 4×4 blocks): a solid-colour block per 4×4
//! texels, each level stored raw or as one Zstandard frame of raw or RLE blocks, and any
//! field overridable, so tests can declare what a hostile file would.

/// A UASTC block of one colour (mode 8, "solid colour": the 5-bit mode code `0x17`, then
/// r, g, b, a in 8 bits each, least significant bit first).
pub fn solid_block(c: [u8; 4]) -> [u8; 16] {
    let v: u128 = 0x17
        | (u128::from(c[0]) << 5)
        | (u128::from(c[1]) << 13)
        | (u128::from(c[2]) << 21)
        | (u128::from(c[3]) << 29);
    v.to_le_bytes()
}

/// How a level is stored.
#[derive(Clone, Copy, Debug)]
pub enum Level {
    /// The level's blocks, uncompressed (scheme 0).
    Raw,
    /// One Zstandard frame of raw blocks holding the level's blocks (scheme 2).
    Zstd,
    /// A Zstandard frame of `blocks` RLE blocks of 128 KiB of byte `byte`, declaring a
    /// content size of `blocks × 128 KiB`, with `uncompressed` as the level's
    /// `uncompressedByteLength` (scheme 2).
    ZstdRle {
        blocks: u32,
        byte: u8,
        uncompressed: u64,
    },
    /// A Zstandard frame of the level's blocks whose header declares `frame_content` (8
    /// bytes, single segment), with `uncompressed` as the level's `uncompressedByteLength`.
    ZstdDeclaring {
        frame_content: u64,
        uncompressed: u64,
    },
}

/// The bytes of a level of `w × h` texels: a solid block of `c` per 4×4 texels.
pub fn level_blocks(w: u32, h: u32, c: [u8; 4]) -> Vec<u8> {
    let n = (w.div_ceil(4) * h.div_ceil(4)) as usize;
    solid_block(c).repeat(n)
}

/// A Zstandard frame of `content` as raw blocks (single segment, 4-byte content size).
pub fn zstd_raw(content: &[u8]) -> Vec<u8> {
    let mut f = vec![0x28, 0xB5, 0x2F, 0xFD, 0xA0];
    f.extend((content.len() as u32).to_le_bytes());
    let chunks: Vec<&[u8]> = if content.is_empty() {
        vec![&[][..]]
    } else {
        content.chunks(1 << 17).collect()
    };
    for (i, chunk) in chunks.iter().enumerate() {
        let last = u32::from(i + 1 == chunks.len());
        let header = last | ((chunk.len() as u32) << 3);
        f.extend(&header.to_le_bytes()[..3]);
        f.extend(*chunk);
    }
    f
}

/// A Zstandard frame of `blocks` RLE blocks of 128 KiB of `byte` (a window of 128 KiB, a
/// 4-byte content size of what the blocks produce, saturated to 32 bits).
pub fn zstd_rle(blocks: u32, byte: u8) -> Vec<u8> {
    // Frame header: no single segment, a 4-byte content size; window 2^17.
    let mut f = vec![0x28, 0xB5, 0x2F, 0xFD, 0x80, 7 << 3];
    let content = (u64::from(blocks) << 17).min(u64::from(u32::MAX)) as u32;
    f.extend(content.to_le_bytes());
    for i in 0..blocks {
        let last = u32::from(i + 1 == blocks);
        let header = last | (1 << 1) | ((1u32 << 17) << 3);
        f.extend(&header.to_le_bytes()[..3]);
        f.push(byte);
    }
    f
}

/// A UASTC KTX2 file of a `width × height` base with one entry of `levels` per mip level
/// (level 0 first), solid colour `c`. Every level must use the same scheme.
pub fn uastc(width: u32, height: u32, levels: &[Level], c: [u8; 4]) -> Vec<u8> {
    let scheme = match levels.first() {
        Some(Level::Raw) | None => 0u32,
        _ => 2,
    };
    let mut data = Vec::new();
    for (i, level) in levels.iter().enumerate() {
        let (w, h) = ((width >> i).max(1), (height >> i).max(1));
        let blocks = level_blocks(w, h, c);
        let (bytes, uncompressed) = match level {
            Level::Raw => (blocks.clone(), blocks.len() as u64),
            Level::Zstd => (zstd_raw(&blocks), blocks.len() as u64),
            Level::ZstdRle {
                blocks,
                byte,
                uncompressed,
            } => (zstd_rle(*blocks, *byte), *uncompressed),
            Level::ZstdDeclaring {
                frame_content,
                uncompressed,
            } => {
                let mut f = vec![0x28, 0xB5, 0x2F, 0xFD, 0xE0];
                f.extend(frame_content.to_le_bytes());
                let header = 1 | ((blocks.len() as u32) << 3);
                f.extend(&header.to_le_bytes()[..3]);
                f.extend(&blocks);
                (f, *uncompressed)
            }
        };
        data.push((bytes, uncompressed));
    }
    let dfd_offset = 80 + 24 * levels.len();
    let dfd_length = 44;
    let mut out = Vec::new();
    out.extend([
        0xAB, b'K', b'T', b'X', b' ', b'2', b'0', 0xBB, 0x0D, 0x0A, 0x1A, 0x0A,
    ]);
    // vkFormat, typeSize, width, height, depth, layers, faces, levels, scheme.
    for v in [0, 1, width, height, 0, 0, 1, levels.len() as u32, scheme] {
        out.extend(v.to_le_bytes());
    }
    // DFD offset and length; key/value data: none; supercompression global data: none.
    for v in [dfd_offset as u32, dfd_length, 0, 0] {
        out.extend(v.to_le_bytes());
    }
    out.extend(0u64.to_le_bytes());
    out.extend(0u64.to_le_bytes());
    let mut at = (dfd_offset + dfd_length as usize) as u64;
    for (bytes, uncompressed) in &data {
        out.extend(at.to_le_bytes());
        out.extend((bytes.len() as u64).to_le_bytes());
        out.extend(uncompressed.to_le_bytes());
        at += bytes.len() as u64;
    }
    // Data format descriptor: total size, then one basic block (vendor 0, type 0; version
    // 2, block size 40); colour model UASTC (166), BT.709 primaries, sRGB transfer; 4×4
    // texel blocks; 16 bytes in plane 0; one sample, channel RGBA (3).
    out.extend(dfd_length.to_le_bytes());
    out.extend(0u32.to_le_bytes());
    out.extend((2u32 | (40 << 16)).to_le_bytes());
    out.extend((166u32 | (1 << 8) | (2 << 16)).to_le_bytes());
    out.extend(0x0303u32.to_le_bytes());
    out.extend(16u32.to_le_bytes());
    out.extend(0u32.to_le_bytes());
    out.extend((127u32 << 16 | 3 << 24).to_le_bytes());
    out.extend(0u32.to_le_bytes());
    out.extend(0u32.to_le_bytes());
    out.extend(u32::MAX.to_le_bytes());
    assert_eq!(out.len(), dfd_offset + dfd_length as usize);
    for (bytes, _) in data {
        out.extend(bytes);
    }
    out
}
