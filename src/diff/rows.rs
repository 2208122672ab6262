//! Row sources for the streaming comparison: the trait, and an image in memory.

use image::RgbaImage;

/// Rows of an RGBA8 image, top to bottom: what [`compare_rows`](super::compare_rows) reads. [`ImageRows`] reads
/// an image in memory, [`PngRows`](super::PngRows) a PNG file row by row.
pub trait RowSource {
    /// `(width, height)` in pixels.
    fn size(&self) -> (u32, u32);
    /// Fills `out` (`4 · width` bytes, RGBA8) with the next row.
    ///
    /// # Errors
    /// A message saying why the row could not be read (it names the file, if any).
    fn next_row(&mut self, out: &mut [u8]) -> Result<(), String>;
}

/// The rows of an image in memory.
#[derive(Clone, Debug)]
pub struct ImageRows<'a> {
    image: &'a RgbaImage,
    y: u32,
}

impl<'a> ImageRows<'a> {
    /// Reads `image` from its top row.
    pub fn new(image: &'a RgbaImage) -> Self {
        ImageRows { image, y: 0 }
    }
}

impl RowSource for ImageRows<'_> {
    fn size(&self) -> (u32, u32) {
        self.image.dimensions()
    }

    fn next_row(&mut self, out: &mut [u8]) -> Result<(), String> {
        let stride = 4 * self.image.width() as usize;
        let start = self.y as usize * stride;
        let row = self
            .image
            .as_raw()
            .get(start..start + stride)
            .ok_or_else(|| "read past the last row".to_owned())?;
        out.copy_from_slice(row);
        self.y += 1;
        Ok(())
    }
}
