//! Decoding texture images (PNG, JPEG) into [`Texture`]s with a full mip chain.
//!
//! The size is checked from the image header before any texel is decoded, so an oversized
//! image costs nothing: each side must be at most [`crate::io::ImportOptions::max_texture_size`]
//! (default [`crate::io::DEFAULT_MAX_TEXTURE_SIZE`]), and the decoded bytes (mips included)
//! are charged to the load's [`TextureBudget`]
//! ([`crate::io::ImportOptions::max_texture_bytes`]) before any texel is allocated. Texels
//! are stored as they are in the file (no colour-space conversion: plumb does no colour
//! management). A KTX2 file's declared sizes are checked and its transcoder's scratch memory
//! charged too, before it is transcoded ([`ktx2_index`]). Row 0 of the image is `v = 0`, which is glTF's convention (uv origin at the
//! top left of the image).

use std::io::Cursor;
use std::path::Path;

use ::image::{ImageFormat, ImageReader, Limits};
use plumb_raster::texture::Texture;

use super::error::IoError;
use super::ktx2_index;

/// Decoded bytes of a `width × height` RGBA8 texture with its full mip chain.
pub(crate) fn mip_chain_bytes(width: u32, height: u32) -> u64 {
    let (mut w, mut h, mut total) = (u64::from(width.max(1)), u64::from(height.max(1)), 0u64);
    loop {
        total = total.saturating_add(w * h * 4);
        if w == 1 && h == 1 {
            return total;
        }
        w = (w / 2).max(1);
        h = (h / 2).max(1);
    }
}

/// Decoded bytes a texture holds (every level, RGBA8).
pub(crate) fn texture_bytes(t: &Texture) -> u64 {
    (0..t.level_count())
        .filter_map(|i| t.level(i))
        .map(|l| u64::from(l.width()) * u64::from(l.height()) * 4)
        .sum()
}

/// The decoded-texture memory of one load ([`crate::io::ImportOptions::max_texture_bytes`]),
/// charged before texels are allocated.
#[derive(Debug, Clone, Copy)]
pub(crate) struct TextureBudget {
    pub(crate) used: u64,
    pub(crate) max: u64,
}

impl TextureBudget {
    pub(crate) fn new(max: u64) -> TextureBudget {
        TextureBudget { used: 0, max }
    }

    /// What is left.
    pub(crate) fn remaining(&self) -> u64 {
        self.max.saturating_sub(self.used)
    }

    /// Charges `needed` bytes for `image` (referenced by `file`).
    ///
    /// # Errors
    /// [`IoError::TextureMemory`] past the limit (nothing is charged then).
    pub(crate) fn charge(&mut self, file: &Path, image: &str, needed: u64) -> Result<(), IoError> {
        if needed > self.remaining() {
            return Err(IoError::TextureMemory {
                file: file.to_owned(),
                image: image.to_owned(),
                needed,
                used: self.used,
                max: self.max,
            });
        }
        self.used += needed;
        Ok(())
    }
}

/// The format a MIME type names, if it is one we decode.
fn format_from_mime(mime: &str) -> Option<ImageFormat> {
    match mime {
        "image/png" => Some(ImageFormat::Png),
        "image/jpeg" | "image/jpg" => Some(ImageFormat::Jpeg),
        "image/webp" => Some(ImageFormat::WebP),
        _ => None,
    }
}

/// Decodes `bytes` into a mipmapped texture.
///
/// `file` is the scene file (for messages), `name` the image's URI or name, `mime` the
/// declared type when the file gave one (otherwise the format is sniffed from the bytes).
///
/// # Errors
/// [`IoError::ImageTooLarge`] past `max_side`, [`IoError::Image`] for undecodable data.
pub(crate) fn decode(
    file: &Path,
    name: &str,
    bytes: &[u8],
    mime: Option<&str>,
    max_side: u32,
    budget: &mut TextureBudget,
) -> Result<Texture, IoError> {
    let probed = probe(file, name, bytes, mime, max_side, budget)?;
    decode_probed(file, name, bytes, probed, max_side)
}

/// What [`probe`] found: a KTX2 container (Basis Universal), or the format the `image` crate
/// decodes it with (`None`: sniff) and the size its header declares.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Probed {
    Ktx2,
    Image {
        format: Option<ImageFormat>,
        width: u32,
        height: u32,
    },
}

/// Bytes the `image` crate's decoders may allocate for a `width × height` image: its pixels
/// at the widest layout they produce (RGBA, 16 bits a channel) and 16 MiB for metadata
/// (an ICC profile, text). Set as the decoder's `max_alloc` (issue 50: a 4 × 4 PNG whose
/// compressed iCCP and zTXt chunks declared 400 MB each took 420 MB; the default ceiling is
/// 512 MiB whatever the image's size).
fn decoder_ceiling(width: u32, height: u32) -> u64 {
    (u64::from(width) * u64::from(height) * 8).saturating_add(METADATA_BYTES)
}

/// What a decoder may allocate for an image's metadata (ICC profile, text): 16 MiB.
const METADATA_BYTES: u64 = 16 << 20;

/// A KTX2 file's base size and the transcoder's scratch bytes: its declared sizes checked
/// first ([`ktx2_index::check`]), then the transcoder's own reading of the header, checked to
/// be one 2D image (not a cubemap, an array or a video).
fn ktx2_size(bytes: &[u8]) -> Result<(u32, u32, u64), String> {
    let index = ktx2_index::check(bytes)?;
    let t = super::contain::contain(|| {
        basisu::Transcoder::new(bytes).map(|t| {
            let one = t.layer_count() <= 1 && t.face_count() == 1 && !t.is_video();
            (t.base_dimensions(), t.level_count(), one)
        })
    })
    .map_err(|()| "the KTX2 reader failed on malformed data".to_owned())?
    .map_err(|e| format!("not a Basis Universal KTX2 file ({e:?})"))?;
    let ((w, h), levels, one) = t;
    if !one {
        return Err("a KTX2 cubemap, array or video is not a 2D texture".to_owned());
    }
    if (w, h, levels) != (index.width, index.height, index.levels) {
        return Err(format!(
            "the transcoder reads a {w}x{h} KTX2 file of {levels} levels, the header says {}x{} and {}",
            index.width, index.height, index.levels
        ));
    }
    Ok((w, h, index.scratch_bytes))
}

/// Every level of a Basis Universal KTX2 file, transcoded to RGBA8: the file's own mip
/// levels when it has more than one (they must halve down as a mip chain does), else level 0
/// with a generated chain.
fn ktx2_texture(bytes: &[u8]) -> Result<Texture, String> {
    let levels = super::contain::contain(|| -> Result<Vec<(u32, u32, Vec<u8>)>, String> {
        let t = basisu::Transcoder::new(bytes).map_err(|e| format!("{e:?}"))?;
        let mut levels = Vec::new();
        for level in 0..t.level_count() {
            let info = t
                .image_level_info(level)
                .map_err(|e| format!("level {level}: {e:?}"))?;
            let rgba = t
                .transcode(
                    level,
                    basisu::TargetFormat::Rgba32,
                    basisu::DecodeFlags::NONE,
                )
                .map_err(|e| format!("level {level}: {e:?}"))?;
            levels.push((info.width, info.height, rgba));
        }
        Ok(levels)
    })
    .map_err(|()| "the Basis Universal transcoder failed on malformed data".to_owned())??;
    let tex = Texture::from_levels(levels).map_err(|e| e.to_string())?;
    Ok(if tex.level_count() == 1 {
        tex.with_generated_mips()
    } else {
        tex
    })
}

/// [`IoError::Image`] for image `name` of `file`, from a reason.
fn image_error<'a>(file: &'a Path, name: &'a str) -> impl Fn(String) -> IoError + 'a {
    move |reason| IoError::Image {
        file: file.to_owned(),
        image: name.to_owned(),
        reason,
    }
}

/// The cheap half of [`decode`]: reads the header, checks the size against `max_side` and
/// charges the mip chain to `budget`, before anything is decoded. Callers that decode several
/// images at once probe them all first, in a fixed order, so the budget is charged the same
/// way whatever the decoding order.
///
/// # Errors
/// As [`decode`]: [`IoError::ImageTooLarge`], [`IoError::Image`], a budget error.
pub(crate) fn probe(
    file: &Path,
    name: &str,
    bytes: &[u8],
    mime: Option<&str>,
    max_side: u32,
    budget: &mut TextureBudget,
) -> Result<Probed, IoError> {
    let image_err = image_error(file, name);
    let ktx2 = mime == Some("image/ktx2") || bytes.starts_with(&ktx2_index::MAGIC);
    let format = mime.and_then(format_from_mime);
    // Bytes the decoder allocates besides the texture: a KTX2 file's inflated levels.
    let mut scratch = 0;
    let (width, height) = if ktx2 {
        let (w, h, s) = ktx2_size(bytes).map_err(&image_err)?;
        scratch = s;
        (w, h)
    } else {
        let mut probe = reader(bytes, format).map_err(&image_err)?;
        // Reading the header reads the metadata before it (a PNG's compressed iCCP): it
        // gets the metadata allowance only, not the default 512 MiB (issue 50).
        let mut limits = Limits::default();
        limits.max_alloc = Some(METADATA_BYTES);
        probe.limits(limits);
        if probe.format().is_none() {
            return Err(image_err("unknown image format".to_owned()));
        }
        probe
            .into_dimensions()
            .map_err(|e| image_err(e.to_string()))?
    };
    if width > max_side || height > max_side {
        return Err(IoError::ImageTooLarge {
            file: file.to_owned(),
            image: name.to_owned(),
            width,
            height,
            max: max_side,
        });
    }
    budget.charge(
        file,
        name,
        mip_chain_bytes(width, height).saturating_add(scratch),
    )?;
    Ok(if ktx2 {
        Probed::Ktx2
    } else {
        Probed::Image {
            format,
            width,
            height,
        }
    })
}

/// A reader of `bytes` as `format`, or of the format its first bytes show.
fn reader(bytes: &[u8], format: Option<ImageFormat>) -> Result<ImageReader<Cursor<&[u8]>>, String> {
    let r = ImageReader::new(Cursor::new(bytes));
    match format {
        Some(f) => Ok(ImageReader::with_format(r.into_inner(), f)),
        None => r.with_guessed_format().map_err(|e| e.to_string()),
    }
}

/// The expensive half of [`decode`], after [`probe`]: decodes and builds the mip chain. Pure
/// (no shared state), so several images may be decoded at once.
///
/// # Errors
/// [`IoError::Image`] for undecodable data.
pub(crate) fn decode_probed(
    file: &Path,
    name: &str,
    bytes: &[u8],
    probed: Probed,
    max_side: u32,
) -> Result<Texture, IoError> {
    let image_err = image_error(file, name);
    let (format, width, height) = match probed {
        Probed::Ktx2 => return ktx2_texture(bytes).map_err(&image_err),
        Probed::Image {
            format,
            width,
            height,
        } => (format, width, height),
    };
    let mut r = reader(bytes, format).map_err(&image_err)?;
    let mut limits = Limits::default();
    limits.max_image_width = Some(max_side);
    limits.max_image_height = Some(max_side);
    limits.max_alloc = Some(decoder_ceiling(width, height));
    r.limits(limits);
    if let Err(reason) = check_png_chunks(bytes).and_then(|()| check_riff(bytes)) {
        return Err(image_err(reason));
    }
    // Containment: the decoders are not panic-free on malformed data (`png` 0.18 indexes
    // past a PLTE whose length is not a multiple of 3; that case is refused above, but
    // mutation fuzzing finds such places faster than they can be listed). A panic inside
    // the decoder becomes a typed error rather than taking the process down.
    let img = super::contain::contain(move || r.decode())
        .map_err(|_| image_err("the decoder failed on malformed data".to_owned()))?
        .map_err(|e| image_err(e.to_string()))?;
    let tex = Texture::from_image(&img).map_err(|e| image_err(e.to_string()))?;
    Ok(tex.with_generated_mips())
}

/// Structural checks on a WebP file's RIFF container, which the decoder does not make
/// (issue 50): the RIFF size is even (every chunk is padded to an even length) and inside the
/// file, and the chunks it holds end exactly at its end, none running past it. Bytes that are
/// not RIFF WebP pass.
///
/// # Errors
/// The reason, for [`IoError::Image`].
fn check_riff(bytes: &[u8]) -> Result<(), String> {
    if bytes.len() < 12 || &bytes[0..4] != b"RIFF" || &bytes[8..12] != b"WEBP" {
        return Ok(());
    }
    let size = u64::from(u32::from_le_bytes([bytes[4], bytes[5], bytes[6], bytes[7]]));
    if size % 2 == 1 {
        return Err(format!(
            "the RIFF size {size} is odd (chunks are padded to even lengths)"
        ));
    }
    let end = 8 + size;
    if end > bytes.len() as u64 {
        return Err(format!(
            "the RIFF size {size} runs past the file's {} bytes",
            bytes.len()
        ));
    }
    let mut at = 12u64;
    while at < end {
        let h = at as usize;
        if at + 8 > end {
            return Err(format!(
                "a chunk header at byte {at} runs past the RIFF end"
            ));
        }
        let len = u64::from(u32::from_le_bytes([
            bytes[h + 4],
            bytes[h + 5],
            bytes[h + 6],
            bytes[h + 7],
        ]));
        let next = at + 8 + len + len % 2;
        if next > end {
            let kind = String::from_utf8_lossy(&bytes[h..h + 4]).into_owned();
            return Err(format!(
                "chunk {kind:?} at byte {at} ({len} bytes) runs past the RIFF end at {end}"
            ));
        }
        at = next;
    }
    Ok(())
}

/// Structural checks on a PNG's chunks that the `png` decoder relies on without checking:
/// a `PLTE` chunk holds whole RGB entries (its length is a multiple of 3). Bytes that are
/// not a PNG pass (other decoders, or the decoder's own errors, handle them).
///
/// # Errors
/// The reason, for [`IoError::Image`].
pub fn check_png_chunks(bytes: &[u8]) -> Result<(), String> {
    check_png_chunks_in(&mut std::io::Cursor::new(bytes))
}

/// [`check_png_chunks`] on a seekable reader, reading only the 8-byte chunk headers (the
/// chunk data is skipped), so a large file is checked without being loaded. The reader is
/// left at an unspecified position.
///
/// # Errors
/// The reason; also a read or seek failure.
pub fn check_png_chunks_in<R: std::io::Read + std::io::Seek>(r: &mut R) -> Result<(), String> {
    use std::io::SeekFrom;
    const SIGNATURE: &[u8] = b"\x89PNG\r\n\x1a\n";
    let end = r.seek(SeekFrom::End(0)).map_err(|e| e.to_string())?;
    r.seek(SeekFrom::Start(0)).map_err(|e| e.to_string())?;
    let mut signature = [0u8; 8];
    if end < 8 || r.read_exact(&mut signature).is_err() || signature != SIGNATURE {
        return Ok(());
    }
    let mut pos = 8u64;
    let mut head = [0u8; 8];
    while pos.saturating_add(8) <= end {
        r.seek(SeekFrom::Start(pos)).map_err(|e| e.to_string())?;
        r.read_exact(&mut head).map_err(|e| e.to_string())?;
        let len = u32::from_be_bytes([head[0], head[1], head[2], head[3]]);
        let kind = &head[4..8];
        if kind == b"PLTE" && len % 3 != 0 {
            return Err(format!(
                "PLTE chunk is {len} bytes long, not a whole number of RGB entries"
            ));
        }
        if kind == b"IEND" {
            break;
        }
        // length + type + data + CRC
        pos = pos.saturating_add(12).saturating_add(u64::from(len));
    }
    Ok(())
}

#[cfg(feature = "internal-tests")]
pub(crate) mod tests {
    /// Every test of this module: `tests/unit.rs` runs each as one trial (an unlisted
    /// test fails the build as dead code).
    pub(crate) const TESTS: &[(&str, fn())] = &[
        (
            "budget_is_charged_before_decoding",
            budget_is_charged_before_decoding,
        ),
        ("decodes_png_with_mips", decodes_png_with_mips),
        ("size_limit_and_garbage", size_limit_and_garbage),
    ];

    use super::*;

    fn png(w: u32, h: u32) -> Vec<u8> {
        let img = ::image::RgbaImage::from_pixel(w, h, ::image::Rgba([10, 20, 30, 255]));
        let mut out = Cursor::new(Vec::new());
        img.write_to(&mut out, ImageFormat::Png).unwrap();
        out.into_inner()
    }

    fn big() -> TextureBudget {
        TextureBudget::new(u64::MAX)
    }

    fn budget_is_charged_before_decoding() {
        assert_eq!(mip_chain_bytes(4, 2), (8 + 2 + 1) * 4);
        assert_eq!(mip_chain_bytes(1, 1), 4);
        let mut b = TextureBudget::new(2 * mip_chain_bytes(4, 2));
        for _ in 0..2 {
            decode(Path::new("s.gltf"), "a.png", &png(4, 2), None, 16, &mut b).unwrap();
        }
        let e = decode(Path::new("s.gltf"), "a.png", &png(4, 2), None, 16, &mut b).unwrap_err();
        assert!(
            matches!(
                e,
                IoError::TextureMemory {
                    needed: 44,
                    used: 88,
                    max: 88,
                    ..
                }
            ),
            "{e}"
        );
    }

    fn decodes_png_with_mips() {
        let t = decode(
            Path::new("s.gltf"),
            "a.png",
            &png(4, 2),
            None,
            16,
            &mut big(),
        )
        .unwrap();
        assert_eq!((t.width(), t.height(), t.level_count()), (4, 2, 3));
        assert_eq!(t.level(0).unwrap().texel(3, 1), Some([10, 20, 30, 255]));
    }

    fn size_limit_and_garbage() {
        let e = decode(
            Path::new("s.gltf"),
            "big.png",
            &png(9, 2),
            None,
            8,
            &mut big(),
        )
        .unwrap_err();
        assert_eq!(
            e,
            IoError::ImageTooLarge {
                file: "s.gltf".into(),
                image: "big.png".into(),
                width: 9,
                height: 2,
                max: 8
            }
        );
        let e = decode(
            Path::new("s.gltf"),
            "x.png",
            b"not an image",
            None,
            8,
            &mut big(),
        )
        .unwrap_err();
        assert!(matches!(e, IoError::Image { .. }), "{e}");
        let mut truncated = png(4, 4);
        truncated.truncate(truncated.len() / 2);
        let e = decode(
            Path::new("s.gltf"),
            "t.png",
            &truncated,
            Some("image/png"),
            8,
            &mut big(),
        );
        assert!(matches!(e, Err(IoError::Image { .. })), "{e:?}");
    }
}
