//! Texel storage: one RGBA8 image (a mip level) and the input formats accepted at load.
//!
//! Every level is stored as RGBA8 whatever the input format; the conversion happens once at
//! load ([`TexelFormat`] documents it). Row 0 of the data is the row at `v ∈ [0, 1/h)`; nothing
//! is flipped (for a PNG that is its top row, as in glTF and D3D).

use glam::Vec4;

use crate::base::error::Error;

/// Largest allowed texture side, in texels.
pub const MAX_TEXTURE_SIZE: u32 = 16384;

/// The layout of texel bytes handed to [`Texture::from_format`](super::Texture::from_format).
///
/// Conversion to the stored RGBA8 (OpenGL's rules for missing components):
///
/// | format | bytes | stored as |
/// |---|---|---|
/// | `Rgba8` | r g b a | (r, g, b, a) |
/// | `Rgb8`  | r g b   | (r, g, b, 255) |
/// | `L8`    | l       | (l, l, l, 255) |
/// | `La8`   | l a     | (l, l, l, a) |
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "trace", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "trace", serde(rename_all = "snake_case"))]
pub enum TexelFormat {
    /// Four bytes per texel: red, green, blue, alpha.
    #[default]
    Rgba8,
    /// Three bytes per texel: red, green, blue (alpha is 1).
    Rgb8,
    /// One byte per texel: luminance (alpha is 1).
    L8,
    /// Two bytes per texel: luminance, alpha.
    La8,
}

impl TexelFormat {
    /// Bytes per texel in the input data.
    #[inline]
    pub const fn bytes_per_texel(self) -> usize {
        match self {
            TexelFormat::Rgba8 => 4,
            TexelFormat::Rgb8 => 3,
            TexelFormat::L8 => 1,
            TexelFormat::La8 => 2,
        }
    }

    /// Whether the format carries its own alpha (`Rgba8`, `La8`). Formats without one are
    /// stored with alpha 1; see [`ApplyMode::for_format`](crate::shading::combine::ApplyMode::for_format)
    /// for the one place where GL treats them differently.
    #[inline]
    pub const fn has_alpha(self) -> bool {
        matches!(self, TexelFormat::Rgba8 | TexelFormat::La8)
    }

    /// The border colour `c` (RGBA, as set on the sampler) converted through this base
    /// format like a texel (GL 2.1 §3.8.8 and Table 3.15: `L = R`, `A = A`, components the
    /// format lacks read as in the table above — RGB and L have alpha 1):
    ///
    /// | format | border read as |
    /// |---|---|
    /// | `Rgba8` | (r, g, b, a) |
    /// | `Rgb8`  | (r, g, b, 1) |
    /// | `L8`    | (r, r, r, 1) |
    /// | `La8`   | (r, r, r, a) |
    #[inline]
    pub fn convert_border(self, c: Vec4) -> Vec4 {
        match self {
            TexelFormat::Rgba8 => c,
            TexelFormat::Rgb8 => Vec4::new(c.x, c.y, c.z, 1.0),
            TexelFormat::L8 => Vec4::new(c.x, c.x, c.x, 1.0),
            TexelFormat::La8 => Vec4::new(c.x, c.x, c.x, c.w),
        }
    }

    /// Converts one input texel (exactly `bytes_per_texel` bytes) to RGBA8.
    #[inline]
    fn to_rgba(self, t: &[u8]) -> [u8; 4] {
        match self {
            TexelFormat::Rgba8 => [t[0], t[1], t[2], t[3]],
            TexelFormat::Rgb8 => [t[0], t[1], t[2], 255],
            TexelFormat::L8 => [t[0], t[0], t[0], 255],
            TexelFormat::La8 => [t[0], t[0], t[0], t[1]],
        }
    }
}

/// Checks a texture side pair against `1..=MAX_TEXTURE_SIZE`.
pub(crate) fn check_size(width: u32, height: u32) -> Result<(), Error> {
    if width == 0 || height == 0 || width > MAX_TEXTURE_SIZE || height > MAX_TEXTURE_SIZE {
        return Err(Error::InvalidSize {
            width,
            height,
            max: MAX_TEXTURE_SIZE,
        });
    }
    Ok(())
}

/// One RGBA8 image of a texture's mip chain.
///
/// Stored as **texel pairs**: entry `y·w + x` holds texel `(x, y)` and its right neighbour
/// `((x + 1) mod w, y)` (each as little-endian RGBA8 in a `u32`), 8 bytes per texel. A
/// bilinear row is then one 8-byte load per lane instead of two 4-byte ones, at any `x`
/// and any wrap mode (the neighbour is the repeat wrap's; the other modes select between
/// the two halves), and every index is `< w·h`, so for a power-of-two level a mask by
/// `w·h − 1` proves each load in range. The cost is twice the memory of dense RGBA8.
#[derive(Clone, PartialEq)]
pub struct MipLevel {
    width: u32,
    height: u32,
    /// Row-major texel pairs, row 0 first: `[t(x, y), t((x + 1) mod w, y)]`.
    pairs: Vec<[u32; 2]>,
    /// `width` and `height` as `f32` (exact: both ≤ 16384), precomputed for the samplers.
    pub(crate) size_f: glam::Vec2,
}

impl core::fmt::Debug for MipLevel {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("MipLevel")
            .field("width", &self.width)
            .field("height", &self.height)
            .finish_non_exhaustive()
    }
}

impl MipLevel {
    /// Builds a level from texels already in RGBA8. The caller has checked the size and that
    /// `texels.len() == width·height`.
    pub(crate) fn from_texels(width: u32, height: u32, texels: Vec<[u8; 4]>) -> MipLevel {
        debug_assert_eq!(texels.len(), width as usize * height as usize);
        let w = width as usize;
        let pairs = texels
            .chunks_exact(w.max(1))
            .flat_map(|row| {
                (0..row.len()).map(move |x| {
                    let next = if x + 1 == row.len() { 0 } else { x + 1 };
                    [u32::from_le_bytes(row[x]), u32::from_le_bytes(row[next])]
                })
            })
            .collect();
        MipLevel {
            width,
            height,
            pairs,
            size_f: glam::Vec2::new(width as f32, height as f32),
        }
    }

    /// Validates size and length, then converts `data` from `format` to RGBA8.
    pub(crate) fn from_format(
        format: TexelFormat,
        width: u32,
        height: u32,
        data: &[u8],
    ) -> Result<MipLevel, Error> {
        check_size(width, height)?;
        let bpp = format.bytes_per_texel();
        let expected = width as usize * height as usize * bpp;
        if data.len() != expected {
            return Err(Error::BufferLength {
                what: "texture data (bytes)",
                expected,
                actual: data.len(),
            });
        }
        let texels = data.chunks_exact(bpp).map(|t| format.to_rgba(t)).collect();
        Ok(MipLevel::from_texels(width, height, texels))
    }

    /// Width in texels.
    #[inline]
    pub fn width(&self) -> u32 {
        self.width
    }

    /// Height in texels.
    #[inline]
    pub fn height(&self) -> u32 {
        self.height
    }

    /// All texels, row-major, row 0 first (a copy: the level stores texel pairs).
    pub fn to_texels(&self) -> Vec<[u8; 4]> {
        self.pairs.iter().map(|p| p[0].to_le_bytes()).collect()
    }

    /// The texels as `width·height·4` bytes (RGBA, row-major; a copy).
    pub fn to_bytes(&self) -> Vec<u8> {
        self.pairs.iter().flat_map(|p| p[0].to_le_bytes()).collect()
    }

    /// The stored texel pairs ([`MipLevel`]), for the samplers.
    #[inline(always)]
    pub(crate) fn pairs(&self) -> &[[u32; 2]] {
        &self.pairs
    }

    /// The texel at column `x`, row `y`, or `None` outside the level.
    #[inline]
    pub fn texel(&self, x: u32, y: u32) -> Option<[u8; 4]> {
        if x < self.width && y < self.height {
            Some(self.pairs[y as usize * self.width as usize + x as usize][0].to_le_bytes())
        } else {
            None
        }
    }

    /// The texel at `(x, y)`, RGBA bytes. Both must be in range (the wrap functions
    /// guarantee it).
    #[inline(always)]
    pub(crate) fn fetch8(&self, x: u32, y: u32) -> [u8; 4] {
        self.pairs[y as usize * self.width as usize + x as usize][0].to_le_bytes()
    }
}
