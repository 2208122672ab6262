//! [`Texture`]: a mip chain of RGBA8 levels and the format they were loaded from. Its
//! sampling methods live with the filters that compute them (`filter`, `lanes`), which
//! import this module, never the other way round.

#[cfg(doc)]
use super::image::MAX_TEXTURE_SIZE;
use super::image::{self, MipLevel, TexelFormat};
use super::mip;
use crate::base::error::Error;

/// An RGBA8 texture with an optional mip chain. Immutable once built, `Send + Sync`; share it
/// between draws with an `Arc`.
#[derive(Clone, PartialEq)]
pub struct Texture {
    /// Level 0 first; never empty; each level is the floor half of the previous one.
    pub(super) levels: Vec<MipLevel>,
    /// The format the texels were loaded from (they are stored as RGBA8 regardless).
    pub(super) format: TexelFormat,
}

impl core::fmt::Debug for Texture {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Texture")
            .field("width", &self.width())
            .field("height", &self.height())
            .field("levels", &self.levels.len())
            .field("format", &self.format)
            .finish()
    }
}

impl Texture {
    /// A single-level texture from `width·height·4` RGBA8 bytes (row 0 first).
    ///
    /// # Errors
    /// [`Error::InvalidSize`] if a side is 0 or above [`MAX_TEXTURE_SIZE`];
    /// [`Error::BufferLength`] if `rgba.len() != width·height·4`.
    pub fn from_rgba8(width: u32, height: u32, rgba: Vec<u8>) -> Result<Texture, Error> {
        Texture::from_format(TexelFormat::Rgba8, width, height, &rgba)
    }

    /// A single-level texture from bytes in `format` (see [`TexelFormat`] for the conversion
    /// to RGBA8).
    ///
    /// # Errors
    /// [`Error::InvalidSize`] if a side is 0 or above [`MAX_TEXTURE_SIZE`];
    /// [`Error::BufferLength`] if `data.len() != width·height·format.bytes_per_texel()`.
    pub fn from_format(
        format: TexelFormat,
        width: u32,
        height: u32,
        data: &[u8],
    ) -> Result<Texture, Error> {
        Ok(Texture {
            levels: vec![MipLevel::from_format(format, width, height, data)?],
            format,
        })
    }

    /// A single-level texture from a decoded image (e.g. `image::load_from_memory`).
    ///
    /// 8-bit luminance, luminance-alpha, RGB and RGBA images map to [`TexelFormat::L8`],
    /// `La8`, `Rgb8` and `Rgba8`. Other images (16-bit, float) are first converted to RGBA8
    /// by the `image` crate (`to_rgba8`, an integer conversion) and reported as `Rgba8`.
    /// Row 0 of the image (its top row) is `v = 0`.
    ///
    /// # Errors
    /// [`Error::InvalidSize`] if a side is 0 or above [`MAX_TEXTURE_SIZE`].
    pub fn from_image(img: &::image::DynamicImage) -> Result<Texture, Error> {
        use ::image::DynamicImage as D;
        let (w, h) = (img.width(), img.height());
        match img {
            D::ImageLuma8(b) => Texture::from_format(TexelFormat::L8, w, h, b.as_raw()),
            D::ImageLumaA8(b) => Texture::from_format(TexelFormat::La8, w, h, b.as_raw()),
            D::ImageRgb8(b) => Texture::from_format(TexelFormat::Rgb8, w, h, b.as_raw()),
            D::ImageRgba8(b) => Texture::from_format(TexelFormat::Rgba8, w, h, b.as_raw()),
            other => {
                image::check_size(w, h)?;
                Texture::from_format(TexelFormat::Rgba8, w, h, other.to_rgba8().as_raw())
            }
        }
    }

    /// A texture from explicit levels `(width, height, rgba8 bytes)`, level 0 first.
    ///
    /// Each level after the first must be the floor half of the one before
    /// (`max(1, ⌊w/2⌋) × max(1, ⌊h/2⌋)`). The chain may stop before 1×1; sampling then
    /// clamps to the last level supplied (like GL's `TEXTURE_MAX_LEVEL`).
    ///
    /// # Errors
    /// [`Error::Texture`] if `levels` is empty, a level has the wrong size, or there are
    /// more levels than a chain to 1×1 has; [`Error::InvalidSize`] /
    /// [`Error::BufferLength`] as in [`Texture::from_rgba8`].
    pub fn from_levels(levels: Vec<(u32, u32, Vec<u8>)>) -> Result<Texture, Error> {
        if levels.is_empty() {
            return Err(Error::Texture("from_levels: no levels".into()));
        }
        let mut out: Vec<MipLevel> = Vec::with_capacity(levels.len());
        for (k, (w, h, data)) in levels.into_iter().enumerate() {
            if let Some(prev) = out.last() {
                let (pw, ph) = (prev.width(), prev.height());
                if pw == 1 && ph == 1 {
                    return Err(Error::Texture(format!(
                        "from_levels: level {k} follows a 1x1 level"
                    )));
                }
                let expected = (mip::half(pw), mip::half(ph));
                if (w, h) != expected {
                    return Err(Error::Texture(format!(
                        "from_levels: level {k} is {w}x{h}, expected {}x{}",
                        expected.0, expected.1
                    )));
                }
            }
            out.push(MipLevel::from_format(TexelFormat::Rgba8, w, h, &data)?);
        }
        Ok(Texture {
            levels: out,
            format: TexelFormat::Rgba8,
        })
    }

    /// The same texture with its mip chain (re)built from level 0 down to 1×1 by the
    /// documented box filter (module `mip`). Any previous levels above 0 are replaced.
    #[must_use]
    pub fn with_generated_mips(mut self) -> Texture {
        self.levels.truncate(1);
        loop {
            let last = &self.levels[self.levels.len() - 1];
            if last.width() == 1 && last.height() == 1 {
                break;
            }
            let next = mip::downsample(last);
            self.levels.push(next);
        }
        self
    }

    /// The same texels declared as loaded from `format`. Only [`ApplyMode::for_format`]
    /// reads it (e.g. `Replace` on an RGB texture keeps the incoming alpha), so a trace can
    /// rebuild a texture from its RGBA8 levels and its recorded format.
    ///
    /// [`ApplyMode::for_format`]: crate::shading::combine::ApplyMode::for_format
    #[must_use]
    pub fn with_format(mut self, format: TexelFormat) -> Texture {
        self.format = format;
        self
    }

    /// Width of level 0 in texels.
    #[inline]
    pub fn width(&self) -> u32 {
        self.levels[0].width()
    }

    /// Height of level 0 in texels.
    #[inline]
    pub fn height(&self) -> u32 {
        self.levels[0].height()
    }

    /// Number of levels (1 without mipmaps; `⌊log2 max(w, h)⌋ + 1` for a full chain).
    #[inline]
    pub fn level_count(&self) -> usize {
        self.levels.len()
    }

    /// Level `i`, or `None` past the last.
    #[inline]
    pub fn level(&self, i: usize) -> Option<&MipLevel> {
        self.levels.get(i)
    }

    /// The format the texels were loaded from (`Rgba8` for [`Texture::from_levels`]).
    #[inline]
    pub fn format(&self) -> TexelFormat {
        self.format
    }
}

#[cfg(feature = "internal-tests")]
pub(crate) mod tests {
    /// Every test of this module: `tests/unit.rs` runs each as one trial (an unlisted
    /// test fails the build as dead code).
    pub(crate) const TESTS: &[(&str, fn())] = &[
        ("texture_is_send_sync", texture_is_send_sync),
        ("full_chain_length", full_chain_length),
    ];

    use super::super::sampler::Sampler;
    use super::*;

    fn texture_is_send_sync() {
        fn check<T: Send + Sync>() {}
        check::<Texture>();
        check::<Sampler>();
    }

    fn full_chain_length() {
        let t = Texture::from_rgba8(5, 3, vec![0; 60])
            .unwrap()
            .with_generated_mips();
        assert_eq!(t.level_count(), 3); // 5x3, 2x1, 1x1
        let t = Texture::from_rgba8(1, 16, vec![0; 64])
            .unwrap()
            .with_generated_mips();
        assert_eq!(t.level_count(), 5);
    }
}
