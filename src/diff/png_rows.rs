//! [`PngRows`]: a PNG file read row by row, for the streaming comparison.

use std::fs::File;
use std::io::{BufReader, Seek, SeekFrom};
use std::path::Path;

use png::{ColorType, Transformations};

use super::rows::RowSource;

/// A PNG file decoded one row at a time into RGBA8 (grey, grey + alpha, RGB, palette and
/// 16-bit images are converted as the `image` crate converts them: 16-bit samples keep their
/// high byte, missing alpha is opaque).
///
/// Memory: one row, plus the decoder's own state, for a non-interlaced image. An
/// **interlaced** (Adam7) image delivers its rows in seven passes, not top to bottom, so it is
/// decoded whole on [`PngRows::open`]: 4 bytes per pixel, reported by
/// [`PngRows::held_bytes`] so callers can refuse it under a memory limit before decoding.
pub struct PngRows {
    name: String,
    width: u32,
    height: u32,
    color: ColorType,
    source: Source,
    row: Vec<u8>,
}

enum Source {
    /// Non-interlaced: decoded as it is read (boxed: the decoder is large).
    Stream(Box<png::Reader<BufReader<File>>>),
    /// Interlaced: decoded on the first row, then copied out.
    Whole {
        reader: Option<Box<png::Reader<BufReader<File>>>>,
        frame: Vec<u8>,
        next: usize,
    },
}

impl std::fmt::Debug for PngRows {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PngRows")
            .field("file", &self.name)
            .field("width", &self.width)
            .field("height", &self.height)
            .finish_non_exhaustive()
    }
}

/// Runs a decoder call, turning a panic inside the `png` crate into an error. Containment:
/// the decoder is not panic-free on malformed data (a ragged PLTE is checked before, in
/// `check_png_chunks_in`, but fuzzing finds such places faster than they can be listed).
fn contained<T>(f: impl FnOnce() -> Result<T, png::DecodingError>) -> Result<T, String> {
    match plumb_scene::io::contain(f) {
        Ok(r) => r.map_err(|e| e.to_string()),
        Err(_) => Err("the PNG decoder failed on malformed data".to_owned()),
    }
}

impl PngRows {
    /// Opens `path` and reads its header. Only regular files are read (a FIFO or a device
    /// would block or never end); images over `max_pixels` (width × height) are refused
    /// from the header, before anything is decoded.
    ///
    /// # Errors
    /// A one-line message that names the file.
    pub fn open(path: &Path, max_pixels: u64) -> Result<PngRows, String> {
        let name = plumb_scene::io::escape_control(&path.display().to_string()).into_owned();
        let err = |e: &dyn std::fmt::Display| format!("{name}: {e}");
        // Checked on the opened handle, not the path (issue 50).
        let (file, _) = plumb_scene::io::open_regular(path).map_err(|e| err(&e))?;
        let mut file = BufReader::new(file);
        plumb_scene::io::check_png_chunks_in(&mut file).map_err(|e| err(&e))?;
        file.seek(SeekFrom::Start(0)).map_err(|e| err(&e))?;
        let mut decoder = png::Decoder::new(file);
        decoder.set_transformations(Transformations::EXPAND | Transformations::STRIP_16);
        decoder.set_ignore_text_chunk(true);
        let reader = contained(move || decoder.read_info()).map_err(|e| err(&e))?;
        let info = reader.info();
        let (width, height, interlaced) = (info.width, info.height, info.interlaced);
        let pixels = u64::from(width) * u64::from(height);
        if pixels > max_pixels {
            return Err(err(&format!(
                "{width}x{height} is {pixels} pixels, more than the limit of {max_pixels} \
                 (--max-image-pixels)"
            )));
        }
        let (color, depth) = reader.output_color_type();
        if depth != png::BitDepth::Eight {
            return Err(err(&format!(
                "unsupported bit depth {depth:?} after expansion"
            )));
        }
        let reader = Box::new(reader);
        let source = if interlaced {
            Source::Whole {
                reader: Some(reader),
                frame: Vec::new(),
                next: 0,
            }
        } else {
            Source::Stream(reader)
        };
        Ok(PngRows {
            name,
            width,
            height,
            color,
            source,
            row: Vec::new(),
        })
    }

    /// Bytes held beyond one row: the whole decoded image for an interlaced file (its
    /// samples, before conversion to RGBA8), 0 otherwise.
    pub fn held_bytes(&self) -> u64 {
        match self.source {
            Source::Stream(_) => 0,
            Source::Whole { .. } => {
                u64::from(self.width) * u64::from(self.height) * self.color.samples() as u64
            }
        }
    }

    fn samples(&self) -> usize {
        self.color.samples()
    }
}

impl RowSource for PngRows {
    fn size(&self) -> (u32, u32) {
        (self.width, self.height)
    }

    fn next_row(&mut self, out: &mut [u8]) -> Result<(), String> {
        let n = self.samples();
        let line = self.width as usize * n;
        let name = &self.name;
        let err = |e: &dyn std::fmt::Display| format!("{name}: {e}");
        match &mut self.source {
            Source::Stream(reader) => {
                let buf = &mut self.row;
                buf.resize(line, 0);
                contained(|| reader.read_row(buf))
                    .map_err(|e| err(&e))?
                    .ok_or_else(|| err(&"the image data ends early"))?;
            }
            Source::Whole {
                reader,
                frame,
                next,
            } => {
                if let Some(mut r) = reader.take() {
                    let size = r
                        .output_buffer_size()
                        .ok_or_else(|| err(&"the image is too large to decode"))?;
                    frame.resize(size, 0);
                    contained(|| r.next_frame(frame)).map_err(|e| err(&e))?;
                }
                let row = frame
                    .get(*next..*next + line)
                    .ok_or_else(|| err(&"the image data ends early"))?;
                self.row.clear();
                self.row.extend_from_slice(row);
                *next += line;
            }
        }
        if self.row.len() < line {
            return Err(err(&"a row is shorter than the image width"));
        }
        for (px, s) in out.chunks_exact_mut(4).zip(self.row.chunks_exact(n)) {
            let rgba = match *s {
                [g] => [g, g, g, 255],
                [g, a] => [g, g, g, a],
                [r, g, b] => [r, g, b, 255],
                [r, g, b, a] => [r, g, b, a],
                _ => [0, 0, 0, 255],
            };
            px.copy_from_slice(&rgba);
        }
        Ok(())
    }
}
