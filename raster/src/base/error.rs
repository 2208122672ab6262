//! The one error type of plumb-raster.

use thiserror::Error;

/// Everything that can go wrong when building targets, buffers or textures.
///
/// Draw calls themselves never fail: primitives with non-finite or degenerate input are
/// skipped and counted in [`crate::DrawStats`].
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum Error {
    /// A render target or texture dimension is zero or larger than the documented limit.
    #[error("invalid size {width}x{height}: each side must be between 1 and {max}")]
    InvalidSize {
        /// Requested width.
        width: u32,
        /// Requested height.
        height: u32,
        /// The largest allowed side.
        max: u32,
    },
    /// A buffer has the wrong number of elements.
    #[error("{what}: expected {expected} elements, got {actual}")]
    BufferLength {
        /// Which buffer.
        what: &'static str,
        /// Expected element count.
        expected: usize,
        /// Actual element count.
        actual: usize,
    },
    /// An index refers past the end of the vertex buffer.
    #[error("index {index} at position {position} is out of range for {vertex_count} vertices")]
    IndexOutOfRange {
        /// The offending index value.
        index: u32,
        /// Its position in the index buffer.
        position: usize,
        /// Number of vertices.
        vertex_count: usize,
    },
    /// Too many attribute sets (e.g. more UV sets than supported).
    #[error("{what}: at most {max} supported, got {actual}")]
    TooMany {
        /// Which resource.
        what: &'static str,
        /// The limit.
        max: usize,
        /// What was asked for.
        actual: usize,
    },
    /// A texture image could not be used (bad mip level sizes, unsupported format …).
    #[error("texture: {0}")]
    Texture(String),
    /// Pipeline state that no draw can use (non-finite values, empty viewport …).
    #[error("invalid pipeline state: {0}")]
    InvalidState(String),
    /// An unknown SIMD level, or one this CPU does not have (`PLUMB_SIMD`,
    /// [`crate::Context::set_simd_level`]).
    #[error("SIMD level: {0}")]
    Simd(String),
    /// A pixel asked about ([`crate::explain`]) is not in the target.
    #[error("pixel ({x}, {y}) is outside the {width}x{height} target (x must be below {width}, y below {height})")]
    PixelOutside {
        /// Column asked for.
        x: u32,
        /// Row asked for.
        y: u32,
        /// Target width.
        width: u32,
        /// Target height.
        height: u32,
    },
    /// Building the worker thread pool failed.
    #[error("thread pool: {0}")]
    ThreadPool(String),
    /// A backend other than the CPU context failed (a GPU device lost, out of memory, a
    /// shader that did not compile): the backend's own message.
    #[error("backend: {0}")]
    Backend(String),
    /// The target does not draw what was asked of it (say, a physically based draw on a
    /// fixed-function-only backend).
    #[error("unsupported by this target: {0}")]
    Unsupported(String),
    /// A draw trace could not be read, written or played back (module `trace`).
    #[error("trace: {0}")]
    Trace(String),
    /// One command of a draw trace failed on playback: which file, which command (0-based,
    /// in the file's `commands` array) and what went wrong.
    #[error("trace: {file}command {index} ({kind}): {source}")]
    TraceCommand {
        /// The trace's JSON file followed by `": "`, or empty for a trace not read from one.
        file: String,
        /// Position in the `commands` array.
        index: usize,
        /// `clear`, `clear_rect`, `draw` or `draw_fixed`.
        kind: &'static str,
        /// The command's own error.
        source: Box<Error>,
    },
}
