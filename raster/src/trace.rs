//! Draw traces (feature `trace`): a frame's draw calls written down as a file pair and played
//! back — the raster-level counterpart of a scene file.
//!
//! A trace is `<name>.json` (format `"plumb-draws"`, version 1: the target size, the textures
//! and the commands with every pipeline and fixed-function state spelled out) plus
//! `<name>.bin`, a little-endian buffer holding the vertex, index and texel arrays the JSON
//! points into. Floats are stored as their exact bits, so playing a trace back into a
//! [`Context`](crate::Context) draws exactly what the recorded calls drew — on any thread count, and on any
//! other renderer that implements the documented conventions (a GPU backend can replay the
//! same stream and compare against plumb's pixels).
//!
//! Recording: anything that draws through [`DrawTarget`] can draw into a [`Recorder`]
//! instead of a [`Context`](crate::Context); [`Recorder::finish`] gives the [`Trace`], [`Trace::save`] writes
//! the pair, [`Trace::load`] reads it back (every view and index checked, typed errors, no
//! panics) and [`Trace::replay`] draws it.
//!
//! # The JSON
//!
//! ```text
//! { "format": "plumb-draws", "version": 1, "size": [w, h], "buffer": "name.bin",
//!   "textures": [ { "format": "rgba8" | "rgb8" | "l8" | "la8",
//!                   "levels": [ { "width", "height", "texels": view } ] } ],
//!   "commands": [ { "clear": { "color": [r, g, b, a], "depth": d, "stencil": s } },
//!                 { "draw": { "state", "positions", "colors"?, "uvs", "fog"?, "indices"?,
//!                             "topology" } },
//!                 { "draw_fixed": { "state", "fixed", "transforms", "positions",
//!                                   "normals"?, "colors"?, "uvs", "indices"?,
//!                                   "topology" } } ] }
//! ```
//!
//! A view is `{ "offset": bytes, "count": elements }` into the buffer; the element type
//! follows from the field: clip positions and colours are 4 × f32, object positions and
//! normals 3 × f32, uvs 2 × f32, fog coordinates f32, texels 4 × u8 (RGBA), and indices are
//! `{ "u16": view }` or `{ "u32": view }`. States are the serde forms of [`PipelineState`],
//! [`LightingState`], [`FogState`], [`Transforms`] … with snake_case names; a texture unit
//! names its texture by index.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use glam::{Mat4, Vec2, Vec3, Vec4};
use serde::{Deserialize, Serialize};

use crate::combine::ApplyMode;
pub use crate::draw_target::DrawTarget;
use crate::fixed_function::{FixedFunction, MeshInput, TexGen, TextureUnit, Transforms};
use crate::fog::FogState;
use crate::light::LightingState;
use crate::state::{PipelineState, Rect};
use crate::texture::{Sampler, TexelFormat, Texture, MAX_TEXTURE_SIZE};
use crate::vertex::{Indices, Topology, VertexInput};
use crate::{DrawStats, Error};

/// The value of the JSON's `format`.
pub const FORMAT: &str = "plumb-draws";
/// The format version this plumb reads and writes.
pub const VERSION: u32 = 1;
/// Largest `.json` part read (bytes).
pub const MAX_JSON_BYTES: u64 = 64 << 20;
/// Largest `.bin` part read (bytes).
pub const MAX_BUFFER_BYTES: u64 = 1 << 30;
/// Largest total of texel bytes a trace's textures may decode to (4 bytes per texel, every
/// level of every texture). Textures are views into the buffer and may overlap, so a small
/// buffer could otherwise name gigabytes of textures; the sum is checked before any is decoded.
pub const MAX_TEXTURE_BYTES: u64 = 1 << 30;

/// A run of elements in the buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct View {
    /// Byte offset.
    pub offset: u64,
    /// Number of elements.
    pub count: u64,
}

/// An index buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum IndexView {
    /// 16-bit indices.
    U16(View),
    /// 32-bit indices.
    U32(View),
}

/// One mip level of a texture.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LevelDoc {
    /// Width in texels.
    pub width: u32,
    /// Height in texels.
    pub height: u32,
    /// RGBA8 texels, row 0 first.
    pub texels: View,
}

/// A texture: the format its texels came from and every level.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TextureDoc {
    /// Source format (decides [`ApplyMode::for_format`]).
    pub format: TexelFormat,
    /// Levels, 0 first.
    pub levels: Vec<LevelDoc>,
}

/// A texture unit with its texture given by index into the trace's textures.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UnitDoc {
    /// Index into [`TraceDoc::textures`].
    pub texture: usize,
    /// As [`TextureUnit::sampler`].
    pub sampler: Sampler,
    /// As [`TextureUnit::apply`].
    pub apply: ApplyMode,
    /// As [`TextureUnit::constant`].
    pub constant: Vec4,
    /// As [`TextureUnit::uv_set`].
    pub uv_set: usize,
    /// As [`TextureUnit::texgen`].
    pub texgen: TexGen,
    /// As [`TextureUnit::matrix`].
    pub matrix: Mat4,
}

/// [`FixedFunction`] with units by texture index.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FixedDoc {
    /// As [`FixedFunction::lighting`].
    pub lighting: Option<LightingState>,
    /// As [`FixedFunction::per_pixel_lighting`].
    pub per_pixel_lighting: bool,
    /// As [`FixedFunction::fog`].
    pub fog: Option<FogState>,
    /// As [`FixedFunction::units`].
    pub units: Vec<UnitDoc>,
}

/// A [`Context::draw`](crate::Context::draw) call.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DrawDoc {
    /// Pipeline state.
    pub state: PipelineState,
    /// Clip positions (4 × f32).
    pub positions: View,
    /// Colours (4 × f32).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub colors: Option<View>,
    /// Uv sets (2 × f32 each).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub uvs: Vec<View>,
    /// Fog coordinates (f32).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fog: Option<View>,
    /// Indices (none: in order).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub indices: Option<IndexView>,
    /// Topology.
    pub topology: Topology,
}

/// A [`Context::draw_fixed`](crate::Context::draw_fixed) call.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DrawFixedDoc {
    /// Pipeline state.
    pub state: PipelineState,
    /// Fixed-function state.
    pub fixed: FixedDoc,
    /// Model-view and projection.
    pub transforms: Transforms,
    /// Object positions (3 × f32).
    pub positions: View,
    /// Normals (3 × f32).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub normals: Option<View>,
    /// Colours (4 × f32).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub colors: Option<View>,
    /// Uv sets (2 × f32 each).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub uvs: Vec<View>,
    /// Indices (none: in order).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub indices: Option<IndexView>,
    /// Topology.
    pub topology: Topology,
}

/// One recorded command.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum CommandDoc {
    /// [`Context::clear`](crate::Context::clear).
    Clear {
        /// Colour.
        color: Vec4,
        /// Depth.
        depth: f32,
        /// Stencil.
        stencil: u8,
    },
    /// [`Context::clear_rect`](crate::Context::clear_rect): absent planes are left as they are.
    ClearRect {
        /// The rectangle, pixels from the top-left.
        rect: Rect,
        /// Colour, if cleared.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        color: Option<Vec4>,
        /// Depth, if cleared.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        depth: Option<f32>,
        /// Stencil, if cleared.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        stencil: Option<u8>,
    },
    /// [`Context::draw`](crate::Context::draw).
    Draw(Box<DrawDoc>),
    /// [`Context::draw_fixed`](crate::Context::draw_fixed).
    DrawFixed(Box<DrawFixedDoc>),
}

/// The JSON part of a trace.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TraceDoc {
    /// Always [`FORMAT`].
    pub format: String,
    /// Always [`VERSION`].
    pub version: u32,
    /// Target width and height.
    pub size: [u32; 2],
    /// The binary part's file name, relative to the JSON.
    pub buffer: String,
    /// Textures used by fixed-function draws.
    #[serde(default)]
    pub textures: Vec<TextureDoc>,
    /// Commands in order.
    pub commands: Vec<CommandDoc>,
}

/// A recorded frame: the document, its buffer and the textures decoded from it. The
/// textures are decoded once, by [`Recorder::finish`] or [`Trace::from_parts`]; after editing
/// `doc.textures` or the texels in `buffer`, rebuild the trace with [`Trace::from_parts`] so
/// that [`Trace::replay`] sees the change.
#[derive(Clone, Debug)]
pub struct Trace {
    /// The JSON part.
    pub doc: TraceDoc,
    /// The binary part.
    pub buffer: Vec<u8>,
    textures: Vec<Arc<Texture>>,
    /// The JSON file it was read from (for messages; empty for a recorded trace).
    file: String,
}

fn err(message: impl Into<String>) -> Error {
    Error::Trace(message.into())
}

/// A value stored in the buffer as little-endian bytes: floats and vectors of floats, indices
/// and RGBA8 texels.
trait Element: Copy {
    /// Bytes per element.
    const SIZE: usize;
    /// Appends the value's bytes.
    fn put(self, out: &mut Vec<u8>);
    /// Reads a value from exactly [`Element::SIZE`] bytes.
    fn get(b: &[u8]) -> Self;
}

fn f32_at(b: &[u8], i: usize) -> f32 {
    f32::from_le_bytes([b[4 * i], b[4 * i + 1], b[4 * i + 2], b[4 * i + 3]])
}

macro_rules! float_vector {
    ($t:ty, $n:literal) => {
        impl Element for $t {
            const SIZE: usize = 4 * $n;
            fn put(self, out: &mut Vec<u8>) {
                for x in self.to_array() {
                    out.extend_from_slice(&x.to_le_bytes());
                }
            }
            fn get(b: &[u8]) -> Self {
                <$t>::from_array(std::array::from_fn(|i| f32_at(b, i)))
            }
        }
    };
}
float_vector!(Vec2, 2);
float_vector!(Vec3, 3);
float_vector!(Vec4, 4);

impl Element for f32 {
    const SIZE: usize = 4;
    fn put(self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.to_le_bytes());
    }
    fn get(b: &[u8]) -> Self {
        f32_at(b, 0)
    }
}

impl Element for u16 {
    const SIZE: usize = 2;
    fn put(self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.to_le_bytes());
    }
    fn get(b: &[u8]) -> Self {
        u16::from_le_bytes([b[0], b[1]])
    }
}

impl Element for u32 {
    const SIZE: usize = 4;
    fn put(self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.to_le_bytes());
    }
    fn get(b: &[u8]) -> Self {
        u32::from_le_bytes([b[0], b[1], b[2], b[3]])
    }
}

impl Element for [u8; 4] {
    const SIZE: usize = 4;
    fn put(self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self);
    }
    fn get(b: &[u8]) -> Self {
        [b[0], b[1], b[2], b[3]]
    }
}

/// Appends elements to the buffer and returns their views; every view starts 4-byte aligned
/// (readers may map the buffer).
#[derive(Default)]
struct Writer {
    bytes: Vec<u8>,
}

impl Writer {
    fn put<T: Element>(&mut self, items: &[T]) -> View {
        let offset = self.bytes.len() as u64;
        for &x in items {
            x.put(&mut self.bytes);
        }
        while !self.bytes.len().is_multiple_of(4) {
            self.bytes.push(0);
        }
        View {
            offset,
            count: items.len() as u64,
        }
    }
    fn indices(&mut self, i: Indices<'_>) -> Option<IndexView> {
        match i {
            Indices::None => None,
            Indices::U16(v) => Some(IndexView::U16(self.put(v))),
            Indices::U32(v) => Some(IndexView::U32(self.put(v))),
        }
    }
}

/// Records draw calls (validating them as a [`Context`](crate::Context) would) instead of drawing them.
pub struct Recorder {
    size: [u32; 2],
    commands: Vec<CommandDoc>,
    writer: Writer,
    textures: Vec<Arc<Texture>>,
}

impl Recorder {
    /// A recorder for a `width × height` target.
    ///
    /// # Errors
    /// [`Error::InvalidSize`] as for [`Context::new`](crate::Context::new).
    pub fn new(width: u32, height: u32) -> Result<Recorder, Error> {
        crate::target::check_size(width, height)?;
        Ok(Recorder {
            size: [width, height],
            commands: Vec::new(),
            writer: Writer::default(),
            textures: Vec::new(),
        })
    }

    /// The trace, whose buffer part will be called `buffer_name` when saved. Textures go to
    /// the end of the buffer, every level as RGBA8 texels.
    pub fn finish(self, buffer_name: &str) -> Trace {
        let mut writer = self.writer;
        let textures_doc: Vec<TextureDoc> = self
            .textures
            .iter()
            .map(|t| TextureDoc {
                format: t.format(),
                levels: (0..t.level_count())
                    .filter_map(|i| t.level(i))
                    .map(|l| LevelDoc {
                        width: l.width(),
                        height: l.height(),
                        texels: writer.put(l.texels()),
                    })
                    .collect(),
            })
            .collect();
        Trace {
            doc: TraceDoc {
                format: FORMAT.to_owned(),
                version: VERSION,
                size: self.size,
                buffer: buffer_name.to_owned(),
                textures: textures_doc,
                commands: self.commands,
            },
            file: String::new(),
            buffer: writer.bytes,
            textures: self.textures,
        }
    }

    fn texture_index(&mut self, t: &Arc<Texture>) -> usize {
        if let Some(i) = self.textures.iter().position(|u| Arc::ptr_eq(u, t)) {
            return i;
        }
        self.textures.push(Arc::clone(t));
        self.textures.len() - 1
    }
}

impl DrawTarget for Recorder {
    fn width(&self) -> u32 {
        self.size[0]
    }
    fn height(&self) -> u32 {
        self.size[1]
    }
    fn clear(&mut self, color: Vec4, depth: f32, stencil: u8) {
        self.commands.push(CommandDoc::Clear {
            color,
            depth,
            stencil,
        });
    }
    fn clear_rect(
        &mut self,
        rect: Rect,
        color: Option<Vec4>,
        depth: Option<f32>,
        stencil: Option<u8>,
    ) {
        self.commands.push(CommandDoc::ClearRect {
            rect,
            color,
            depth,
            stencil,
        });
    }
    fn draw(
        &mut self,
        state: &PipelineState,
        vertices: &VertexInput<'_>,
        indices: Indices<'_>,
        topology: Topology,
    ) -> Result<DrawStats, Error> {
        state.validate()?;
        vertices.validate()?;
        indices.validate(vertices.positions.len())?;
        let w = &mut self.writer;
        let doc = DrawDoc {
            state: *state,
            positions: w.put(vertices.positions),
            colors: vertices.colors.map(|c| w.put(c)),
            uvs: vertices.uvs.iter().map(|u| w.put(u)).collect(),
            fog: vertices.fog.map(|f| w.put(f)),
            indices: w.indices(indices),
            topology,
        };
        self.commands.push(CommandDoc::Draw(Box::new(doc)));
        Ok(DrawStats::default())
    }
    fn draw_fixed(
        &mut self,
        state: &PipelineState,
        ff: &FixedFunction,
        transforms: &Transforms,
        mesh: &MeshInput<'_>,
        indices: Indices<'_>,
        topology: Topology,
    ) -> Result<DrawStats, Error> {
        state.validate()?;
        crate::fixed_function::check_fixed_input(ff, transforms, mesh, indices)?;
        let units = ff
            .units
            .iter()
            .map(|u| UnitDoc {
                texture: self.texture_index(&u.texture),
                sampler: u.sampler,
                apply: u.apply,
                constant: u.constant,
                uv_set: u.uv_set,
                texgen: u.texgen,
                matrix: u.matrix,
            })
            .collect();
        let w = &mut self.writer;
        let doc = DrawFixedDoc {
            state: *state,
            fixed: FixedDoc {
                lighting: ff.lighting,
                per_pixel_lighting: ff.per_pixel_lighting,
                fog: ff.fog,
                units,
            },
            transforms: *transforms,
            positions: w.put(mesh.positions),
            normals: mesh.normals.map(|n| w.put(n)),
            colors: mesh.colors.map(|c| w.put(c)),
            uvs: mesh.uvs.iter().map(|u| w.put(u)).collect(),
            indices: w.indices(indices),
            topology,
        };
        self.commands.push(CommandDoc::DrawFixed(Box::new(doc)));
        Ok(DrawStats::default())
    }
}

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

/// Reads a regular file of at most `max` bytes. The metadata is checked before the file is
/// opened: a FIFO would block the read forever and a device (`/dev/zero`) never ends.
fn read_limited(path: &Path, max: u64) -> Result<Vec<u8>, Error> {
    let meta = std::fs::metadata(path).map_err(|e| err(format!("{}: {e}", path.display())))?;
    if !meta.is_file() {
        return Err(err(format!("{}: not a regular file", path.display())));
    }
    if meta.len() > max {
        return Err(err(format!(
            "{}: {} bytes is more than the limit of {max}",
            path.display(),
            meta.len()
        )));
    }
    std::fs::read(path).map_err(|e| err(format!("{}: {e}", path.display())))
}

/// Whether `path` holds a draw trace: JSON (at most [`MAX_JSON_BYTES`]) whose `format` is
/// [`FORMAT`]. Tools that take both scene files and traces use it to choose a loader; an
/// unreadable file is not a trace (the other loader reports why).
pub fn is_trace_file(path: &Path) -> bool {
    #[derive(Deserialize)]
    struct Format {
        format: String,
    }
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.len() <= MAX_JSON_BYTES)
        && std::fs::read_to_string(path)
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
        Ok(crate::text::compact_number_arrays(&pretty))
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
