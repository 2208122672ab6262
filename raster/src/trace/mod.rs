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
//! instead of a [`Context`](crate::Context); [`Recorder::finish`](crate::trace::Recorder::finish) gives the [`Trace`], [`Trace::save`] writes
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
//! `{ "u16": view }` or `{ "u32": view }`. States are the serde forms of [`PipelineState`](crate::PipelineState),
//! [`LightingState`](crate::light::LightingState), [`FogState`](crate::fog::FogState), [`Transforms`](crate::Transforms) … with snake_case names; a texture unit
//! names its texture by index.

mod document;
mod recorder;
mod replay;

pub use self::document::*;
pub use self::recorder::Recorder;
pub use self::replay::is_trace_file;
/// The trait a trace records from and plays into (also at the crate root).
pub use crate::draw_target::DrawTarget;
