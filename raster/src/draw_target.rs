//! [`DrawTarget`]: where draw calls go.
//!
//! The raster vocabulary — [`PipelineState`], [`FixedFunction`], [`VertexInput`],
//! [`MeshInput`] — is backend-neutral: a [`Context`] rasterises it on the CPU, the trace
//! `Recorder` writes it down, and another backend (a GPU emulating the fixed-function
//! pipeline) can draw it. Code written against this trait — trace replay, plumb-scene's
//! `FixedRenderer` — runs unchanged on all of them.
//!
//! The contract every target keeps: commands take effect in call order (a clear between two
//! draws is seen by the second and not by the first); results are read back only after
//! [`DrawTarget::finish`].

use glam::Vec4;

use crate::base::error::Error;
use crate::context::{Context, DrawStats, FrameStats};
use crate::fixed_function::{FixedFunction, MeshInput, Transforms};
use crate::shading::pbr::PbrDraw;
use crate::state::{PipelineState, Rect};
use crate::vertex::{Indices, Topology, VertexInput};

/// Where draw calls go: a [`Context`] draws them, the trace `Recorder` writes them down, a
/// GPU backend submits them. Code written against this trait can render and record with the
/// same body.
pub trait DrawTarget {
    /// Target width in pixels.
    fn width(&self) -> u32;
    /// Target height in pixels.
    fn height(&self) -> u32;
    /// [`PipelineState::new`] for the target's size.
    fn default_state(&self) -> PipelineState {
        PipelineState::new(self.width(), self.height())
    }
    /// As [`Context::clear`]: the whole target.
    fn clear(&mut self, color: Vec4, depth: f32, stencil: u8);
    /// As [`Context::clear_rect`]: a rectangle of some planes (`None` leaves a plane as it
    /// is), clipped to the target.
    fn clear_rect(
        &mut self,
        rect: Rect,
        color: Option<Vec4>,
        depth: Option<f32>,
        stencil: Option<u8>,
    );
    /// As [`Context::draw`].
    ///
    /// # Errors
    /// As [`Context::draw`]; a GPU backend also reports device failures as
    /// [`Error::Backend`].
    fn draw(
        &mut self,
        state: &PipelineState,
        vertices: &VertexInput<'_>,
        indices: Indices<'_>,
        topology: Topology,
    ) -> Result<DrawStats, Error>;
    /// As [`Context::draw_fixed`].
    ///
    /// # Errors
    /// As [`Context::draw_fixed`]; a GPU backend also reports device failures as
    /// [`Error::Backend`].
    fn draw_fixed(
        &mut self,
        state: &PipelineState,
        ff: &FixedFunction,
        transforms: &Transforms,
        mesh: &MeshInput<'_>,
        indices: Indices<'_>,
        topology: Topology,
    ) -> Result<DrawStats, Error>;
    /// As [`Context::draw_pbr`]. The default refuses it with [`Error::Unsupported`]: a
    /// target draws glTF's physically based materials only when it says so.
    ///
    /// # Errors
    /// As [`Context::draw_pbr`]; [`Error::Unsupported`] from a target without it.
    #[allow(
        clippy::too_many_arguments,
        reason = "draw_fixed's arguments and the tangents"
    )]
    fn draw_pbr(
        &mut self,
        state: &PipelineState,
        draw: &PbrDraw,
        transforms: &Transforms,
        mesh: &MeshInput<'_>,
        tangents: Option<&[glam::Vec4]>,
        indices: Indices<'_>,
        topology: Topology,
    ) -> Result<DrawStats, Error> {
        let _ = (state, draw, transforms, mesh, tangents, indices, topology);
        Err(Error::Unsupported(
            "physically based (PBR) draws: this target draws the fixed-function pipeline only"
                .into(),
        ))
    }
    /// Finishes every queued command (a CPU target rasterises its bins, a GPU target submits
    /// and waits). The default does nothing.
    ///
    /// # Errors
    /// [`Error::Backend`] when the device fails.
    fn finish(&mut self) -> Result<(), Error> {
        Ok(())
    }
    /// Totals since the last [`DrawTarget::reset_stats`], after [`DrawTarget::finish`], if the
    /// target counts them (a GPU target may not: `None`).
    fn frame_stats(&self) -> Option<FrameStats> {
        None
    }
    /// Restarts the counters of [`DrawTarget::frame_stats`].
    fn reset_stats(&mut self) {}
    /// Whether the target keeps [`DrawTarget::label`]s (a pixel history does): callers
    /// build a label only when it does. The default is `false`.
    fn wants_labels(&self) -> bool {
        false
    }
    /// Names the next draw (a scene node and pass) for the target's records. The default
    /// ignores it.
    fn label(&mut self, _label: &str) {}
    /// The object id later draws write to the target's id plane, as
    /// [`Context::set_object_id`]. The default ignores it (a target without an id plane).
    fn set_object_id(&mut self, _id: u32) {}
}

impl DrawTarget for Context {
    fn width(&self) -> u32 {
        Context::width(self)
    }
    fn height(&self) -> u32 {
        Context::height(self)
    }
    fn clear(&mut self, color: Vec4, depth: f32, stencil: u8) {
        Context::clear(self, color, depth, stencil);
    }
    fn clear_rect(
        &mut self,
        rect: Rect,
        color: Option<Vec4>,
        depth: Option<f32>,
        stencil: Option<u8>,
    ) {
        Context::clear_rect(self, rect, color, depth, stencil);
    }
    fn draw(
        &mut self,
        state: &PipelineState,
        vertices: &VertexInput<'_>,
        indices: Indices<'_>,
        topology: Topology,
    ) -> Result<DrawStats, Error> {
        Context::draw(self, state, vertices, indices, topology)
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
        Context::draw_fixed(self, state, ff, transforms, mesh, indices, topology)
    }
    fn draw_pbr(
        &mut self,
        state: &PipelineState,
        draw: &PbrDraw,
        transforms: &Transforms,
        mesh: &MeshInput<'_>,
        tangents: Option<&[glam::Vec4]>,
        indices: Indices<'_>,
        topology: Topology,
    ) -> Result<DrawStats, Error> {
        Context::draw_pbr(
            self, state, draw, transforms, mesh, tangents, indices, topology,
        )
    }
    fn finish(&mut self) -> Result<(), Error> {
        Context::finish(self);
        Ok(())
    }
    fn frame_stats(&self) -> Option<FrameStats> {
        Some(Context::stats(self))
    }
    fn reset_stats(&mut self) {
        Context::reset_stats(self);
    }
    fn set_object_id(&mut self, id: u32) {
        Context::set_object_id(self, id);
    }
}
