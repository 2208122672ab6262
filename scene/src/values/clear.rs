//! [`ClearRegion`]: depth and/or stencil cleared in a screen rectangle between the layers of a
//! frame — Wild Magic's `Renderer::ClearZBuffer` / `ClearStencilBuffer` and
//! `ClearSubZBuffer(x, y, w, h)` / `ClearSubStencilBuffer`, as plain data.
//!
//! A node carrying one ([`Scene::set_clear`](crate::Scene::set_clear)) starts a *layer*: the
//! region is cleared after everything outside the layer is drawn and before the layer's own
//! geometry (see [`layer`](crate::graph::layer) for the order). Backends receive it through
//! [`Renderer::clear_region`](crate::Renderer::clear_region).

use crate::values::camera::CameraViewport;
use crate::values::error::SceneError;

/// What a layer clears before it is drawn: depth and/or stencil in a rectangle of the target.
///
/// The rectangle is normalized like a [`CameraViewport`] (origin top-left, y down, `[0, 1]²`
/// is the whole target) and turned into pixels the same way
/// ([`CameraViewport::to_pixels`]: each edge rounded to the nearest pixel boundary). It is
/// **not** relative to the camera's viewport, so an inset keeps its place whatever view the
/// frame is drawn with.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ClearRegion {
    /// The rectangle (normalized, of the whole target).
    pub rect: CameraViewport,
    /// Depth written into the rectangle (0..1; 1 is far), or `None` to keep depth.
    pub depth: Option<f32>,
    /// Stencil value written into the rectangle, or `None` to keep stencil.
    pub stencil: Option<u8>,
}

impl ClearRegion {
    /// Depth cleared to far (1) over the whole target: Wild Magic's `ClearZBuffer` — a HUD
    /// layer drawn over the scene.
    pub const DEPTH: ClearRegion = ClearRegion {
        rect: CameraViewport::FULL,
        depth: Some(1.0),
        stencil: None,
    };

    /// Depth cleared to far (1) in a rectangle: Wild Magic's `ClearSubZBuffer` — an inset.
    ///
    /// # Errors
    /// [`SceneError::InvalidViewport`] unless the rectangle is finite, non-empty and inside
    /// `[0, 1]²` ([`CameraViewport::normalized`]).
    pub fn depth_in(x: f32, y: f32, width: f32, height: f32) -> Result<ClearRegion, SceneError> {
        Ok(ClearRegion {
            rect: CameraViewport::normalized(x, y, width, height)?,
            ..ClearRegion::DEPTH
        })
    }

    /// The same region also clearing stencil to `value`.
    pub const fn with_stencil(mut self, value: u8) -> ClearRegion {
        self.stencil = Some(value);
        self
    }

    /// The same region clearing depth to `value`, or keeping depth with `None`.
    pub const fn with_depth(mut self, value: Option<f32>) -> ClearRegion {
        self.depth = value;
        self
    }

    /// Checks the values a renderer will use.
    ///
    /// # Errors
    /// [`SceneError::InvalidArgument`] for a depth outside 0..1 (or NaN), or a region that
    /// clears nothing (neither depth nor stencil).
    pub fn validate(&self) -> Result<(), SceneError> {
        let bad = |message: String| {
            Err(SceneError::InvalidArgument {
                what: "clear region",
                message,
            })
        };
        if let Some(d) = self.depth {
            if !(0.0..=1.0).contains(&d) {
                return bad(format!("depth {d} is outside 0..1"));
            }
        }
        if self.depth.is_none() && self.stencil.is_none() {
            return bad("it clears neither depth nor stencil".into());
        }
        Ok(())
    }
}
