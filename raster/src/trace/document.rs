//! The trace as data: the JSON document's types, the format's limits, the [`Trace`] that
//! holds a document with its buffer, and how elements are stored in the buffer.

use std::sync::Arc;

use glam::{Mat4, Vec2, Vec3, Vec4};
use serde::{Deserialize, Serialize};

use crate::base::error::Error;
use crate::fixed_function::{TexGen, Transforms};
use crate::shading::combine::ApplyMode;
use crate::shading::fog::FogState;
use crate::shading::light::LightingState;
use crate::state::{PipelineState, Rect};
use crate::texture::{Sampler, TexelFormat, Texture};
use crate::vertex::Topology;

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
    /// As [`TextureUnit::sampler`](crate::TextureUnit::sampler).
    pub sampler: Sampler,
    /// As [`TextureUnit::apply`](crate::TextureUnit::apply).
    pub apply: ApplyMode,
    /// As [`TextureUnit::constant`](crate::TextureUnit::constant).
    pub constant: Vec4,
    /// As [`TextureUnit::uv_set`](crate::TextureUnit::uv_set).
    pub uv_set: usize,
    /// As [`TextureUnit::texgen`](crate::TextureUnit::texgen).
    pub texgen: TexGen,
    /// As [`TextureUnit::matrix`](crate::TextureUnit::matrix).
    pub matrix: Mat4,
}

/// [`FixedFunction`](crate::FixedFunction) with units by texture index.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FixedDoc {
    /// As [`FixedFunction::lighting`](crate::FixedFunction::lighting).
    pub lighting: Option<LightingState>,
    /// As [`FixedFunction::per_pixel_lighting`](crate::FixedFunction::per_pixel_lighting).
    pub per_pixel_lighting: bool,
    /// As [`FixedFunction::fog`](crate::FixedFunction::fog).
    pub fog: Option<FogState>,
    /// As [`FixedFunction::units`](crate::FixedFunction::units).
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
/// textures are decoded once, by [`Recorder::finish`](crate::trace::Recorder::finish) or [`Trace::from_parts`]; after editing
/// `doc.textures` or the texels in `buffer`, rebuild the trace with [`Trace::from_parts`] so
/// that [`Trace::replay`] sees the change.
#[derive(Clone, Debug)]
pub struct Trace {
    /// The JSON part.
    pub doc: TraceDoc,
    /// The binary part.
    pub buffer: Vec<u8>,
    pub(crate) textures: Vec<Arc<Texture>>,
    /// The JSON file it was read from (for messages; empty for a recorded trace).
    pub(crate) file: String,
}

pub(crate) fn err(message: impl Into<String>) -> Error {
    Error::Trace(message.into())
}

/// A value stored in the buffer as little-endian bytes: floats and vectors of floats, indices
/// and RGBA8 texels.
pub(crate) trait Element: Copy {
    /// Bytes per element.
    const SIZE: usize;
    /// Appends the value's bytes.
    fn put(self, out: &mut Vec<u8>);
    /// Reads a value from exactly [`Element::SIZE`] bytes.
    fn get(b: &[u8]) -> Self;
}

pub(crate) fn f32_at(b: &[u8], i: usize) -> f32 {
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
