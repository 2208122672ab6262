//! Reading a trace back (every view and index checked) and playing it into a target.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use glam::{Vec2, Vec3, Vec4};
use serde::Deserialize;

use super::document::*;
use crate::base::error::Error;
use crate::base::regular_file::{read_regular, read_regular_to_string};
use crate::draw_target::DrawTarget;
use crate::fixed_function::{FixedFunction, MeshInput, TextureUnit};
use crate::texture::{Texture, MAX_TEXTURE_SIZE};
use crate::vertex::{Indices, VertexInput};

/// Reads typed elements out of the buffer, checking every view.
struct Reader<'a> {
    bytes: &'a [u8],
}

impl Reader<'_> {
    fn slice(&self, v: View, elem: usize, what: &str) -> Result<&[u8], Error> {
        let len = v
            .count
            .checked_mul(elem as u64)
            .ok_or_else(|| err(format!("{what}: view too large")))?;
        let end = v
            .offset
            .checked_add(len)
            .ok_or_else(|| err(format!("{what}: view too large")))?;
        if end > self.bytes.len() as u64 {
            return Err(err(format!(
                "{what}: bytes {}..{end} are past the end of the {}-byte buffer",
                v.offset,
                self.bytes.len()
            )));
        }
        Ok(&self.bytes[v.offset as usize..end as usize])
    }
    fn get<T: Element>(&self, v: View, what: &str) -> Result<Vec<T>, Error> {
        Ok(self
            .slice(v, T::SIZE, what)?
            .chunks_exact(T::SIZE)
            .map(T::get)
            .collect())
    }
    fn uv_sets(&self, views: &[View]) -> Result<Vec<Vec<Vec2>>, Error> {
        views.iter().map(|v| self.get(*v, "uvs")).collect()
    }
    fn indices(&self, i: Option<IndexView>) -> Result<OwnedIndices, Error> {
        Ok(match i {
            None => OwnedIndices::None,
            Some(IndexView::U16(v)) => OwnedIndices::U16(self.get(v, "indices")?),
            Some(IndexView::U32(v)) => OwnedIndices::U32(self.get(v, "indices")?),
        })
    }
}

enum OwnedIndices {
    None,
    U16(Vec<u16>),
    U32(Vec<u32>),
}

impl OwnedIndices {
    fn borrow(&self) -> Indices<'_> {
        match self {
            OwnedIndices::None => Indices::None,
            OwnedIndices::U16(v) => Indices::U16(v),
            OwnedIndices::U32(v) => Indices::U32(v),
        }
    }
}

/// Reads a regular file of at most `max` bytes, checked on the opened handle and read to
/// `max + 1` bytes at most ([`crate::regular_file`]): a FIFO, a device or a file that grows
/// is refused, never waited on or read without end.
fn read_limited(path: &Path, max: u64) -> Result<Vec<u8>, Error> {
    read_regular(path, max).map_err(|e| err(format!("{}: {e}", path.display())))
}

/// Whether `path` holds a draw trace: JSON (at most [`MAX_JSON_BYTES`]) whose `format` is
/// [`FORMAT`]. Tools that take both scene files and traces use it to choose a loader; an
/// unreadable file is not a trace (the other loader reports why).
pub fn is_trace_file(path: &Path) -> bool {
    #[derive(Deserialize)]
    struct Format {
        format: String,
    }
    read_regular_to_string(path, MAX_JSON_BYTES)
        .ok()
        .filter(|t| may_name_format(t))
        .and_then(|t| serde_json::from_str::<Format>(&t).ok())
        .is_some_and(|f| f.format == FORMAT)
}

/// Whether JSON `text` can hold the string [`FORMAT`] at all: it must appear literally, or be
/// spelled with `\u` escapes. Checking this first spares parsing a large scene file (a 50 MB
/// glTF took 170 ms to parse only to learn it is not a trace).
fn may_name_format(text: &str) -> bool {
    text.contains(FORMAT) || text.contains("\\u")
}

impl Trace {
    /// Parses a trace from its JSON text and buffer bytes; `file` names the JSON in
    /// messages.
    ///
    /// # Errors
    /// [`Error::Trace`] for malformed JSON (with line and column), a wrong format or version,
    /// a view past the buffer's end or a texture index out of range; [`Error::Texture`] /
    /// [`Error::InvalidSize`] for unusable textures.
    pub fn from_parts(file: &str, json: &str, buffer: Vec<u8>) -> Result<Trace, Error> {
        let doc: TraceDoc = serde_json::from_str(json).map_err(|e| {
            err(format!(
                "{file}:{}:{}: {}",
                e.line(),
                e.column(),
                strip_position(&e.to_string())
            ))
        })?;
        if doc.format != FORMAT || doc.version != VERSION {
            return Err(err(format!(
                "{file}: format \"{}\" version {} is not \"{FORMAT}\" version {VERSION}",
                doc.format, doc.version
            )));
        }
        crate::target::check_size(doc.size[0], doc.size[1])?;
        let texel_bytes = doc
            .textures
            .iter()
            .flat_map(|t| &t.levels)
            .try_fold(0u64, |sum, l| {
                let level = u64::from(l.width)
                    .checked_mul(u64::from(l.height))?
                    .checked_mul(4)?;
                sum.checked_add(level)
            });
        if texel_bytes.is_none_or(|b| b > MAX_TEXTURE_BYTES) {
            return Err(err(format!(
                "{file}: the {} textures hold more than the limit of {MAX_TEXTURE_BYTES} bytes \
                 of texels (plumb_raster::trace::MAX_TEXTURE_BYTES)",
                doc.textures.len()
            )));
        }
        let reader = Reader { bytes: &buffer };
        let mut textures = Vec::with_capacity(doc.textures.len());
        for (i, t) in doc.textures.iter().enumerate() {
            let mut levels = Vec::with_capacity(t.levels.len());
            for l in &t.levels {
                if l.width == 0
                    || l.height == 0
                    || l.width > MAX_TEXTURE_SIZE
                    || l.height > MAX_TEXTURE_SIZE
                {
                    return Err(Error::InvalidSize {
                        width: l.width,
                        height: l.height,
                        max: MAX_TEXTURE_SIZE,
                    });
                }
                if l.texels.count != u64::from(l.width) * u64::from(l.height) {
                    return Err(err(format!(
                        "{file}: texture {i}: {}x{} level with {} texels",
                        l.width, l.height, l.texels.count
                    )));
                }
                let bytes = reader.slice(l.texels, 4, &format!("texture {i}"))?;
                levels.push((l.width, l.height, bytes.to_vec()));
            }
            textures.push(Arc::new(
                Texture::from_levels(levels)?.with_format(t.format),
            ));
        }
        for c in &doc.commands {
            let units = match c {
                CommandDoc::DrawFixed(d) => d.fixed.units.as_slice(),
                _ => &[],
            };
            if let Some(u) = units.iter().find(|u| u.texture >= textures.len()) {
                return Err(err(format!(
                    "{file}: texture {} does not exist ({} textures)",
                    u.texture,
                    textures.len()
                )));
            }
        }
        Ok(Trace {
            doc,
            buffer,
            textures,
            file: file.to_owned(),
        })
    }

    /// Reads `<name>.json` and the buffer it names (relative to it).
    ///
    /// # Errors
    /// As [`Trace::from_parts`], and [`Error::Trace`] for files that cannot be read or are
    /// larger than [`MAX_JSON_BYTES`] / [`MAX_BUFFER_BYTES`].
    pub fn load(json_path: &Path) -> Result<Trace, Error> {
        let text = read_limited(json_path, MAX_JSON_BYTES)?;
        let text = String::from_utf8(text)
            .map_err(|_| err(format!("{}: not UTF-8", json_path.display())))?;
        #[derive(Deserialize)]
        struct BufferName {
            buffer: String,
        }
        let name: BufferName = serde_json::from_str(&text).map_err(|e| {
            err(format!(
                "{}:{}:{}: {}",
                json_path.display(),
                e.line(),
                e.column(),
                strip_position(&e.to_string())
            ))
        })?;
        if name.buffer.contains(['/', '\\']) || name.buffer == ".." {
            return Err(err(format!(
                "{}: buffer \"{}\" must be a file name beside the JSON",
                json_path.display(),
                name.buffer.escape_debug()
            )));
        }
        let bin = json_path.with_file_name(&name.buffer);
        let buffer = read_limited(&bin, MAX_BUFFER_BYTES)?;
        Trace::from_parts(&json_path.display().to_string(), &text, buffer)
    }

    /// Writes `json_path` ([`Trace::to_json`]) and the buffer beside it (named as
    /// [`TraceDoc::buffer`]).
    ///
    /// # Errors
    /// [`Error::Trace`] when a file cannot be written or a value cannot be written as JSON
    /// (non-finite numbers).
    pub fn save(&self, json_path: &Path) -> Result<(), Error> {
        std::fs::write(json_path, self.to_json()?)
            .map_err(|e| err(format!("{}: {e}", json_path.display())))?;
        let bin: PathBuf = json_path.with_file_name(&self.doc.buffer);
        std::fs::write(&bin, &self.buffer).map_err(|e| err(format!("{}: {e}", bin.display())))
    }

    /// The JSON part as written by [`Trace::save`]: pretty-printed, arrays of numbers on one
    /// line, ending with a newline.
    ///
    /// # Errors
    /// [`Error::Trace`] for values JSON cannot hold (a non-finite number in a state; vertex
    /// data is binary and keeps any bits).
    pub fn to_json(&self) -> Result<String, Error> {
        let pretty = serde_json::to_string_pretty(&self.doc).map_err(|e| err(e.to_string()))?;
        // serde_json writes a non-finite float as `null`, which would not read back: refuse
        // here rather than write a file that cannot be loaded.
        if serde_json::from_str::<TraceDoc>(&pretty).is_err() {
            return Err(err(
                "a state holds a non-finite number, which a trace cannot store".to_owned(),
            ));
        }
        Ok(crate::base::text::compact_number_arrays(&pretty))
    }

    /// Target width and height.
    pub fn size(&self) -> (u32, u32) {
        (self.doc.size[0], self.doc.size[1])
    }

    /// Plays the commands into `target` (any size; the recorded viewport is in the states).
    ///
    /// # Errors
    /// [`Error::TraceCommand`], naming the file and the command, around [`Error::Trace`] for
    /// a view past the buffer's end or a missing texture, or whatever the draw returned.
    pub fn replay(&self, target: &mut dyn DrawTarget) -> Result<(), Error> {
        for (index, c) in self.doc.commands.iter().enumerate() {
            self.play(c, target).map_err(|e| Error::TraceCommand {
                file: if self.file.is_empty() {
                    String::new()
                } else {
                    format!("{}: ", self.file)
                },
                index,
                kind: match c {
                    CommandDoc::Clear { .. } => "clear",
                    CommandDoc::ClearRect { .. } => "clear_rect",
                    CommandDoc::Draw(_) => "draw",
                    CommandDoc::DrawFixed(_) => "draw_fixed",
                },
                source: Box::new(e),
            })?;
        }
        Ok(())
    }

    /// Plays one command.
    fn play(&self, c: &CommandDoc, target: &mut dyn DrawTarget) -> Result<(), Error> {
        let r = Reader {
            bytes: &self.buffer,
        };
        {
            match c {
                CommandDoc::Clear {
                    color,
                    depth,
                    stencil,
                } => target.clear(*color, *depth, *stencil),
                CommandDoc::ClearRect {
                    rect,
                    color,
                    depth,
                    stencil,
                } => target.clear_rect(*rect, *color, *depth, *stencil),
                CommandDoc::Draw(d) => {
                    let positions: Vec<Vec4> = r.get(d.positions, "positions")?;
                    let colors: Option<Vec<Vec4>> =
                        d.colors.map(|v| r.get(v, "colors")).transpose()?;
                    let uvs = r.uv_sets(&d.uvs)?;
                    let uv_refs: Vec<&[Vec2]> = uvs.iter().map(Vec::as_slice).collect();
                    let fog: Option<Vec<f32>> = d.fog.map(|v| r.get(v, "fog")).transpose()?;
                    let indices = r.indices(d.indices)?;
                    let input = VertexInput {
                        positions: &positions,
                        colors: colors.as_deref(),
                        uvs: &uv_refs,
                        fog: fog.as_deref(),
                    };
                    target.draw(&d.state, &input, indices.borrow(), d.topology)?;
                }
                CommandDoc::DrawFixed(d) => {
                    let positions: Vec<Vec3> = r.get(d.positions, "positions")?;
                    let normals: Option<Vec<Vec3>> =
                        d.normals.map(|v| r.get(v, "normals")).transpose()?;
                    let colors: Option<Vec<Vec4>> =
                        d.colors.map(|v| r.get(v, "colors")).transpose()?;
                    let uvs = r.uv_sets(&d.uvs)?;
                    let uv_refs: Vec<&[Vec2]> = uvs.iter().map(Vec::as_slice).collect();
                    let indices = r.indices(d.indices)?;
                    let ff = FixedFunction {
                        lighting: d.fixed.lighting,
                        per_pixel_lighting: d.fixed.per_pixel_lighting,
                        fog: d.fixed.fog,
                        units: d
                            .fixed
                            .units
                            .iter()
                            .map(|u| {
                                let texture = self.textures.get(u.texture).ok_or_else(|| {
                                    err(format!("texture {} does not exist", u.texture))
                                })?;
                                Ok(TextureUnit {
                                    texture: Arc::clone(texture),
                                    sampler: u.sampler,
                                    apply: u.apply,
                                    constant: u.constant,
                                    uv_set: u.uv_set,
                                    texgen: u.texgen,
                                    matrix: u.matrix,
                                })
                            })
                            .collect::<Result<_, Error>>()?,
                    };
                    let mesh = MeshInput {
                        positions: &positions,
                        normals: normals.as_deref(),
                        colors: colors.as_deref(),
                        uvs: &uv_refs,
                    };
                    target.draw_fixed(
                        &d.state,
                        &ff,
                        &d.transforms,
                        &mesh,
                        indices.borrow(),
                        d.topology,
                    )?;
                }
            }
        }
        Ok(())
    }
}

/// serde_json's message without its trailing " at line L column C" (the caller puts the
/// position first).
fn strip_position(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(i) => message[..i].to_owned(),
        None => message.to_owned(),
    }
}
