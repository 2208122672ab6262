//! The render target: RGBA8 colour, `f32` depth and `u8` stencil planes, stored tile-major,
//! and two optional planes for datasets ([`RenderTarget::enable_planes`]): a `u32` object id
//! and an `f32` eye-space normal per pixel.
//!
//! The optional planes are written by the same fragments as the depth plane and only by
//! them: a fragment that passes every test of a draw that writes depth stores the draw's
//! object id ([`crate::Context::set_object_id`]) and its interpolated eye-space normal
//! (normalised; zero for a mesh without normals or a draw without a normal attribute). So
//! the id plane always names the surface whose depth the depth plane holds. Clearing depth
//! clears them to 0.
//!
//! Pixels are stored in square tiles of [`TILE_SIZE`]² (row-major inside a tile, tiles
//! row-major across the target) so that each tile is one contiguous block that one worker
//! owns while it rasterises. Edge tiles are padded; padding is never read back.

use image::{GrayImage, ImageBuffer, Luma, RgbaImage};

use crate::base::error::Error;

/// log2 of the tile side.
pub const TILE_SHIFT: u32 = 6;
/// Tile side in pixels.
pub const TILE_SIZE: u32 = 1 << TILE_SHIFT;
/// Pixels per tile.
pub const TILE_PIXELS: usize = (TILE_SIZE * TILE_SIZE) as usize;
/// Largest render-target side (pixels).
pub const MAX_TARGET_SIZE: u32 = 16384;

/// Colour, depth and stencil planes of one `width × height` image.
#[derive(Clone, Debug)]
pub struct RenderTarget {
    width: u32,
    height: u32,
    tiles_x: u32,
    tiles_y: u32,
    pub(crate) color: Vec<[u8; 4]>,
    pub(crate) depth: Vec<f32>,
    pub(crate) stencil: Vec<u8>,
    /// The object-id plane (empty when off).
    pub(crate) ids: Vec<u32>,
    /// The eye-space normal plane (empty when off).
    pub(crate) normals: Vec<[f32; 3]>,
}

/// Which optional planes a target keeps (see the [module docs](self)).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Planes {
    /// A `u32` object id per pixel.
    pub ids: bool,
    /// An `f32` eye-space normal per pixel.
    pub normals: bool,
}

/// Mutable view of one tile's planes (what one worker owns). `ids` and `normals` are empty
/// when the target does not keep them.
pub(crate) struct TileMut<'a> {
    pub color: &'a mut [[u8; 4]],
    pub depth: &'a mut [f32],
    pub stencil: &'a mut [u8],
    pub ids: &'a mut [u32],
    pub normals: &'a mut [[f32; 3]],
}

impl TileMut<'_> {
    /// Sets every pixel of the tile (edge tiles' padding too) to `color`, `depth` and
    /// `stencil`, in vector stores at `level`: the clear, once per tile and frame.
    pub(crate) fn fill(&mut self, level: fearless_simd::Level, value: ([u8; 4], f32, u8)) {
        crate::base::simd::dispatch!(level, simd => fill_at(simd, self, value))
    }
}

/// [`TileMut::fill`] at one instruction set: a tile row (`TILE_SIZE` pixels) at a time, so
/// each row is a run of whole-vector stores (the plain `fill`s compiled to 16-byte stores,
/// two per loop trip: 1.3 instructions per pixel of a frame's clear, now about 0.4).
#[inline(always)]
fn fill_at<S: fearless_simd::Simd>(
    simd: S,
    tile: &mut TileMut<'_>,
    (color, depth, stencil): ([u8; 4], f32, u8),
) {
    use fearless_simd::{prelude::*, u8x32};
    const ROW: usize = TILE_SIZE as usize;
    let c: u8x32<S> = simd.splat_u32x8(u32::from_le_bytes(color)).bitcast();
    let d = simd.splat_f32x8(depth);
    let mut rows = tile.color.chunks_exact_mut(ROW);
    for row in &mut rows {
        for px in row.as_flattened_mut().chunks_exact_mut(32) {
            c.store_slice(px);
        }
    }
    rows.into_remainder().fill(color);
    let mut rows = tile.depth.chunks_exact_mut(ROW);
    for row in &mut rows {
        for px in row.chunks_exact_mut(8) {
            d.store_slice(px);
        }
    }
    rows.into_remainder().fill(depth);
    tile.stencil.fill(stencil);
    tile.ids.fill(0);
    tile.normals.fill([0.0; 3]);
}

/// [`Error::InvalidSize`] unless both sides are in `1..=MAX_TARGET_SIZE`.
pub(crate) fn check_size(width: u32, height: u32) -> Result<(), Error> {
    if width == 0 || height == 0 || width > MAX_TARGET_SIZE || height > MAX_TARGET_SIZE {
        return Err(Error::InvalidSize {
            width,
            height,
            max: MAX_TARGET_SIZE,
        });
    }
    Ok(())
}

impl RenderTarget {
    /// A target cleared to transparent black, depth 1, stencil 0.
    ///
    /// # Errors
    /// [`Error::InvalidSize`] if a side is 0 or larger than [`MAX_TARGET_SIZE`].
    pub fn new(width: u32, height: u32) -> Result<RenderTarget, Error> {
        check_size(width, height)?;
        let tiles_x = width.div_ceil(TILE_SIZE);
        let tiles_y = height.div_ceil(TILE_SIZE);
        let n = (tiles_x * tiles_y) as usize * TILE_PIXELS;
        Ok(RenderTarget {
            width,
            height,
            tiles_x,
            tiles_y,
            color: vec![[0; 4]; n],
            depth: vec![1.0; n],
            stencil: vec![0; n],
            ids: Vec::new(),
            normals: Vec::new(),
        })
    }

    /// Keeps (or drops) the optional planes: each kept plane starts at 0 (see the
    /// [module docs](self)).
    pub fn enable_planes(&mut self, planes: Planes) {
        if planes == self.planes() {
            self.ids.fill(0);
            self.normals.fill([0.0; 3]);
            return;
        }
        let n = self.depth.len();
        self.ids = if planes.ids { vec![0; n] } else { Vec::new() };
        self.normals = if planes.normals {
            vec![[0.0; 3]; n]
        } else {
            Vec::new()
        };
    }

    /// The optional planes the target keeps.
    pub fn planes(&self) -> Planes {
        Planes {
            ids: !self.ids.is_empty(),
            normals: !self.normals.is_empty(),
        }
    }

    /// Width in pixels.
    pub fn width(&self) -> u32 {
        self.width
    }

    /// Height in pixels.
    pub fn height(&self) -> u32 {
        self.height
    }

    /// Number of tile columns.
    pub fn tiles_x(&self) -> u32 {
        self.tiles_x
    }

    /// Number of tile rows.
    pub fn tiles_y(&self) -> u32 {
        self.tiles_y
    }

    #[inline]
    fn index(&self, x: u32, y: u32) -> usize {
        let tile = (y >> TILE_SHIFT) * self.tiles_x + (x >> TILE_SHIFT);
        tile as usize * TILE_PIXELS
            + ((y & (TILE_SIZE - 1)) * TILE_SIZE + (x & (TILE_SIZE - 1))) as usize
    }

    /// Sets every colour pixel.
    pub fn clear_color(&mut self, rgba: [u8; 4]) {
        self.color.fill(rgba);
    }

    /// Sets every depth value (clamped to 0..1; NaN becomes 1), and the id and normal
    /// planes to 0.
    pub fn clear_depth(&mut self, depth: f32) {
        self.depth.fill(clear_depth_value(depth));
        self.ids.fill(0);
        self.normals.fill([0.0; 3]);
    }

    /// Sets every stencil value.
    pub fn clear_stencil(&mut self, stencil: u8) {
        self.stencil.fill(stencil);
    }

    /// Clears the planes that have a value inside `rect ∩ target` (colour as RGBA8, depth
    /// clamped to 0..1 with NaN as 1, stencil as is); the rest of the target is untouched.
    /// An empty or off-target rectangle clears nothing.
    pub fn clear_rect(
        &mut self,
        rect: crate::state::Rect,
        color: Option<[u8; 4]>,
        depth: Option<f32>,
        stencil: Option<u8>,
    ) {
        let depth = depth.map(clear_depth_value);
        let x1 = rect.x.saturating_add(rect.width).min(self.width);
        let y1 = rect.y.saturating_add(rect.height).min(self.height);
        for y in rect.y.min(y1)..y1 {
            for x in rect.x.min(x1)..x1 {
                let i = self.index(x, y);
                if let Some(c) = color {
                    self.color[i] = c;
                }
                if let Some(d) = depth {
                    self.depth[i] = d;
                    if let Some(id) = self.ids.get_mut(i) {
                        *id = 0;
                    }
                    if let Some(n) = self.normals.get_mut(i) {
                        *n = [0.0; 3];
                    }
                }
                if let Some(s) = stencil {
                    self.stencil[i] = s;
                }
            }
        }
    }

    /// Colour of pixel `(x, y)` (row 0 at the top), or `None` outside.
    pub fn pixel(&self, x: u32, y: u32) -> Option<[u8; 4]> {
        (x < self.width && y < self.height).then(|| self.color[self.index(x, y)])
    }

    /// Depth of pixel `(x, y)`, or `None` outside.
    pub fn depth_at(&self, x: u32, y: u32) -> Option<f32> {
        (x < self.width && y < self.height).then(|| self.depth[self.index(x, y)])
    }

    /// Stencil of pixel `(x, y)`, or `None` outside.
    pub fn stencil_at(&self, x: u32, y: u32) -> Option<u8> {
        (x < self.width && y < self.height).then(|| self.stencil[self.index(x, y)])
    }

    /// The colour plane as an image (row 0 = top row), values as stored.
    pub fn to_rgba_image(&self) -> RgbaImage {
        RgbaImage::from_fn(self.width, self.height, |x, y| {
            image::Rgba(self.color[self.index(x, y)])
        })
    }

    /// The depth plane as a 16-bit greyscale image: `round(depth · 65535)`.
    pub fn depth_image16(&self) -> ImageBuffer<Luma<u16>, Vec<u16>> {
        ImageBuffer::from_fn(self.width, self.height, |x, y| {
            Luma([(self.depth[self.index(x, y)] * 65535.0 + 0.5) as u16])
        })
    }

    /// The depth plane as an 8-bit greyscale image: `round(depth · 255)` (for looking at).
    pub fn depth_image8(&self) -> GrayImage {
        GrayImage::from_fn(self.width, self.height, |x, y| {
            Luma([(self.depth[self.index(x, y)] * 255.0 + 0.5) as u8])
        })
    }

    /// The raw depth values, row-major, `width × height`.
    pub fn depth_values(&self) -> Vec<f32> {
        self.row_major(&self.depth)
    }

    /// The object ids, row-major, `width × height`, or `None` when the target does not keep
    /// them ([`RenderTarget::enable_planes`]).
    pub fn id_values(&self) -> Option<Vec<u32>> {
        (!self.ids.is_empty()).then(|| self.row_major(&self.ids))
    }

    /// The eye-space normals, row-major, `width × height`, or `None` when the target does not
    /// keep them.
    pub fn normal_values(&self) -> Option<Vec<[f32; 3]>> {
        (!self.normals.is_empty()).then(|| self.row_major(&self.normals))
    }

    /// A tile-major plane's values in row-major order.
    fn row_major<T: Copy>(&self, plane: &[T]) -> Vec<T> {
        let mut out = Vec::with_capacity((self.width * self.height) as usize);
        for y in 0..self.height {
            for x in 0..self.width {
                out.push(plane[self.index(x, y)]);
            }
        }
        out
    }

    /// Per-tile mutable views, in tile order (row-major over tiles).
    pub(crate) fn tiles_mut(&mut self) -> impl Iterator<Item = TileMut<'_>> {
        // An absent plane (empty) gives every tile an empty slice.
        let tiles = self.color.len() / TILE_PIXELS;
        let ids = optional_tiles(&mut self.ids);
        let normals = optional_tiles(&mut self.normals);
        self.color
            .chunks_mut(TILE_PIXELS)
            .zip(self.depth.chunks_mut(TILE_PIXELS))
            .zip(self.stencil.chunks_mut(TILE_PIXELS))
            .zip(ids.zip(normals))
            .take(tiles)
            .map(|(((color, depth), stencil), (ids, normals))| TileMut {
                color,
                depth,
                stencil,
                ids: ids.unwrap_or_default(),
                normals: normals.unwrap_or_default(),
            })
    }
}

/// A plane's tiles, then `None` for ever: an absent (empty) plane is `None` for every tile.
fn optional_tiles<T>(plane: &mut [T]) -> impl Iterator<Item = Option<&mut [T]>> {
    plane
        .chunks_mut(TILE_PIXELS)
        .map(Some)
        .chain(std::iter::repeat_with(|| None))
}

/// The depth a clear to `depth` stores: clamped to 0..1, NaN becomes 1.
pub(crate) fn clear_depth_value(depth: f32) -> f32 {
    if depth.is_nan() {
        1.0
    } else {
        depth.clamp(0.0, 1.0)
    }
}

#[cfg(feature = "internal-tests")]
pub(crate) mod tests {
    /// Every test of this module: `tests/unit.rs` runs each as one trial (an unlisted
    /// test fails the build as dead code).
    pub(crate) const TESTS: &[(&str, fn())] = &[
        ("sizes_are_checked", sizes_are_checked),
        ("tile_major_round_trip", tile_major_round_trip),
    ];

    use super::*;

    fn sizes_are_checked() {
        assert!(RenderTarget::new(0, 1).is_err());
        assert!(RenderTarget::new(1, 0).is_err());
        assert!(RenderTarget::new(16385, 1).is_err());
        assert!(RenderTarget::new(1, 1).is_ok());
        assert!(matches!(
            RenderTarget::new(100_000, 100_000),
            Err(Error::InvalidSize { width: 100_000, .. })
        ));
    }

    fn tile_major_round_trip() {
        let mut t = RenderTarget::new(130, 70).unwrap();
        for y in 0..70 {
            for x in 0..130 {
                let i = t.index(x, y);
                t.color[i] = [x as u8, y as u8, 0, 255];
            }
        }
        let img = t.to_rgba_image();
        assert_eq!(img.get_pixel(129, 69).0, [129, 69, 0, 255]);
        assert_eq!(img.get_pixel(64, 0).0, [64, 0, 0, 255]);
        assert_eq!(t.pixel(130, 0), None);
    }
}
