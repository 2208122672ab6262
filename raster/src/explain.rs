//! Pixel histories: why a pixel has its colour. An [`Explainer`] is a [`DrawTarget`] that
//! draws everything it is given into a [`Context`] and writes down, in draw order, every
//! fragment that reached one pixel, with each stage's inputs and outputs, every clear that
//! covered it, and the pixel's final colour, depth and stencil ([`PixelHistory`]).
//!
//! # Exact by construction
//!
//! The history is not a second renderer. The context runs its own stage functions — the
//! same interpolation, shader stage list, texture kernels, tests and blend, at its
//! [`crate::SimdLevel`] — on the pixel's fragments and the probe copies values out between
//! the stages. Two things make that cheap and leave every value as the render has it:
//!
//! - **One pixel.** Each draw's scissor is cut down to the pixel. A pixel's values never
//!   depend on which other pixels a batch holds (every attribute is one expression of the
//!   pixel's position, the crate's determinism contract), so the pixel's fragments are the
//!   ones a full render computes, bit for bit; the rest are never rasterised.
//! - **Off costs nothing.** Without a probe the fragment stage takes one extra branch per
//!   batch, and setup one per primitive; the stage loops are compiled without the probe
//!   (its copies exist only for probed batches).
//!
//! Fragments that never came to exist are found by drawing again, every write off: a draw
//! with user clip planes once more without them, a draw whose scissor excludes the pixel
//! once more without the scissor (and, with clip planes too, without both). A primitive
//! that reaches the pixel only then was discarded by the clip planes ([`Discard::Clip`],
//! also when the scissor would have refused it as well: clipping comes first) or by the
//! scissor ([`Discard::Scissor`]).
//!
//! Texture taps (addresses, texel values, weights) come from [`Texture::taps`]
//! (the scalar filter's addressing); the filtered colour is the kernel's, and a history whose
//! kernel and scalar filter disagree says so (`"reference"` output), which the tests rule out.
//!
//! ```
//! use glam::Vec4;
//! use plumb_raster::explain::Explainer;
//! use plumb_raster::{DrawTarget, Indices, Topology, VertexInput};
//!
//! let mut ex = Explainer::new(16, 16, 8, 8)?;
//! ex.clear(Vec4::new(0.0, 0.0, 0.0, 1.0), 1.0, 0);
//! let pos = [Vec4::new(-1.0, -1.0, 0.5, 1.0), Vec4::new(3.0, -1.0, 0.5, 1.0), Vec4::new(-1.0, 3.0, 0.5, 1.0)];
//! let state = ex.default_state();
//! ex.draw(&state, &VertexInput::colored(&pos, &[Vec4::new(1.0, 0.5, 0.0, 1.0); 3]), Indices::None, Topology::TriangleList)?;
//! let history = ex.finish_history()?;
//! assert_eq!(history.color, [255, 128, 0, 255]);
//! assert_eq!(history.fragments().count(), 1);
//! # Ok::<(), plumb_raster::Error>(())
//! ```
//!
//! [`Texture::taps`]: crate::texture::Texture::taps

use std::sync::atomic::Ordering;
use std::sync::Arc;

use glam::Vec4;

use crate::base::error::Error;
use crate::context::{Context, ContextOptions, DrawStats};
use crate::draw_target::DrawTarget;
use crate::fixed_function::{FixedFunction, MeshInput, Transforms};
use crate::state::{PipelineState, Rect};
use crate::vertex::{Indices, Topology, VertexInput};

pub use crate::history::{words, Clear, Discard, Event, Fragment, PixelHistory, Stage, Value};
use crate::history::{Probe, ProbeTag, Variant};

/// Default of [`Explainer::set_max_fragments`]: fragments recorded per pixel (a fragment's
/// record is about a kilobyte, so about 16 MiB per pixel at most).
pub const DEFAULT_MAX_FRAGMENTS: u64 = 1 << 14;

/// A [`DrawTarget`] that renders like a [`Context`] and records the history of one pixel.
pub struct Explainer {
    ctx: Context,
    probe: Arc<Probe>,
    commands: u32,
    draws: u32,
    label: Option<String>,
    /// Clears, with the rectangle each covered (`None`: the whole target).
    clears: Vec<Clear>,
    /// Per draw: its command index and label.
    draw_info: Vec<(u32, Option<String>)>,
}

impl Explainer {
    /// An explainer of pixel `(x, y)` of a `width × height` target (one worker thread).
    ///
    /// # Errors
    /// [`Error::InvalidSize`] for a bad size; [`Error::PixelOutside`] when the pixel is
    /// outside the target.
    pub fn new(width: u32, height: u32, x: u32, y: u32) -> Result<Explainer, Error> {
        let pixel = Rect {
            x,
            y,
            width: 1,
            height: 1,
        };
        Explainer::region(width, height, pixel, Some(1))
    }

    /// An explainer of every pixel of `rect` (each gets its own history, as if explained
    /// alone: the pixels never see each other), drawing with `threads` workers (`None`: all
    /// cores). Memory grows with the pixels and their fragments: ask for rows, not targets.
    ///
    /// # Errors
    /// [`Error::InvalidSize`] for a bad size; [`Error::PixelOutside`] when `rect` is empty
    /// or reaches outside the target.
    pub fn region(
        width: u32,
        height: u32,
        rect: Rect,
        threads: Option<usize>,
    ) -> Result<Explainer, Error> {
        let ctx = Context::new(width, height, ContextOptions { threads })?;
        let (x1, y1) = (
            u64::from(rect.x) + u64::from(rect.width),
            u64::from(rect.y) + u64::from(rect.height),
        );
        if rect.width == 0 || rect.height == 0 || x1 > u64::from(width) || y1 > u64::from(height) {
            return Err(Error::PixelOutside {
                x: if x1 > u64::from(width) {
                    x1.saturating_sub(1) as u32
                } else {
                    rect.x
                },
                y: if y1 > u64::from(height) {
                    y1.saturating_sub(1) as u32
                } else {
                    rect.y
                },
                width,
                height,
            });
        }
        Ok(Explainer {
            ctx,
            probe: Arc::new(Probe::new(rect, DEFAULT_MAX_FRAGMENTS)),
            commands: 0,
            draws: 0,
            label: None,
            clears: Vec::new(),
            draw_info: Vec::new(),
        })
    }

    /// Records at most `max` fragments per pixel (default [`DEFAULT_MAX_FRAGMENTS`]); the
    /// rest are drawn and counted ([`PixelHistory::skipped_fragments`]) but not recorded, so
    /// memory stays bounded whatever the overdraw. Set it before the first draw: a budget
    /// set later applies to the fragments still to come.
    pub fn set_max_fragments(&mut self, max: u64) {
        // Draws already queued record under the budget they were given.
        self.ctx.finish();
        self.probe.max.store(max, Ordering::Relaxed);
    }

    /// The context the draws go to (to choose its [`crate::SimdLevel`]).
    pub fn context_mut(&mut self) -> &mut Context {
        &mut self.ctx
    }

    /// Finishes every draw and returns the history of the one pixel (of a region: its
    /// top-left pixel's; see [`Explainer::finish_histories`]).
    ///
    /// # Errors
    /// None today; kept for targets that can fail at finish.
    pub fn finish_history(self) -> Result<PixelHistory, Error> {
        let mut all = self.finish_histories()?;
        // A region is never empty (`Explainer::region`).
        Ok(all.swap_remove(0))
    }

    /// Finishes every draw and returns each pixel's history, row by row.
    ///
    /// # Errors
    /// None today; kept for targets that can fail at finish.
    pub fn finish_histories(mut self) -> Result<Vec<PixelHistory>, Error> {
        self.ctx.finish();
        let taken = self.probe.take();
        let records = taken.kept;
        let rect = self.probe.rect;
        let (width, height) = (self.ctx.width(), self.ctx.height());
        let target = self.ctx.target();
        let mut out = Vec::with_capacity((rect.width * rect.height) as usize);
        let mut by_pixel: Vec<Vec<((u32, Variant), Fragment)>> =
            (0..rect.width * rect.height).map(|_| Vec::new()).collect();
        for (tag, (x, y), f) in records {
            by_pixel[((y - rect.y) * rect.width + (x - rect.x)) as usize].push((tag, f));
        }
        for (i, (records, &skipped_fragments)) in
            by_pixel.into_iter().zip(&taken.skipped).enumerate()
        {
            let (x, y) = (
                rect.x + i as u32 % rect.width,
                rect.y + i as u32 / rect.width,
            );
            let covers = |c: &Clear| c.rect.is_none_or(|r| contains(&r, x, y));
            let mut events: Vec<Event> = self
                .clears
                .iter()
                .filter(|c| covers(c))
                .cloned()
                .map(Event::Clear)
                .collect();
            events.extend(
                merge(records, &self.draw_info)
                    .into_iter()
                    .map(Event::Fragment),
            );
            events.sort_by_key(|e| match e {
                Event::Clear(c) => c.command,
                Event::Fragment(f) => f.command,
            });
            out.push(PixelHistory {
                x,
                y,
                width,
                height,
                events,
                color: target.pixel(x, y).unwrap_or_default(),
                depth: target.depth_at(x, y).unwrap_or(1.0),
                stencil: target.stencil_at(x, y).unwrap_or(0),
                skipped_fragments,
            });
        }
        Ok(out)
    }

    /// Runs `draw` as given (scissor cut to the pixel), then the runs that find clipped and
    /// scissored fragments, each write off.
    fn run_draw(
        &mut self,
        state: &PipelineState,
        mut draw: impl FnMut(&mut Context, &PipelineState) -> Result<DrawStats, Error>,
    ) -> Result<DrawStats, Error> {
        state.validate()?;
        let index = self.draws;
        self.draws += 1;
        self.draw_info.push((self.commands, self.label.take()));
        self.commands += 1;
        let probed = self.probe.rect;
        let in_scissor = state
            .scissor
            .is_none_or(|s| s.intersect(&probed) == Some(probed));
        let mut given = *state;
        given.scissor = Some(match state.scissor {
            None => probed,
            Some(s) => s.intersect(&probed).unwrap_or(Rect {
                width: 0,
                height: 0,
                ..probed
            }),
        });
        let stats = self.with_probe((index, Variant::AsGiven), |ctx| draw(ctx, &given))?;
        let mut silent = given;
        silent.color_mask = [false; 4];
        silent.depth.write = false;
        silent.stencil.write_mask = 0;
        // Clipping comes before the scissor test: a fragment a clip plane removes is named
        // "clip" even where the scissor would have refused it too.
        let clipped = state.clip_planes.iter().any(Option::is_some);
        if clipped {
            let mut s = silent;
            s.clip_planes = Default::default();
            self.with_probe((index, Variant::NoClipPlanes), |ctx| draw(ctx, &s))?;
        }
        if !in_scissor {
            let mut s = silent;
            s.scissor = Some(probed);
            self.with_probe((index, Variant::NoScissor), |ctx| draw(ctx, &s))?;
            if clipped {
                s.clip_planes = Default::default();
                self.with_probe((index, Variant::Neither), |ctx| draw(ctx, &s))?;
            }
        }
        Ok(stats)
    }

    fn with_probe<R>(&mut self, tag: (u32, Variant), f: impl FnOnce(&mut Context) -> R) -> R {
        self.ctx.probe = Some(ProbeTag {
            probe: Arc::clone(&self.probe),
            tag,
        });
        let r = f(&mut self.ctx);
        self.ctx.probe = None;
        r
    }

    fn clear_event(
        &mut self,
        rect: Option<Rect>,
        color: Option<Vec4>,
        depth: Option<f32>,
        stencil: Option<u8>,
    ) {
        let command = self.commands;
        self.commands += 1;
        if rect.is_some_and(|r| r.intersect(&self.probe.rect).is_none()) {
            return;
        }
        self.clears.push(Clear {
            command,
            rect,
            color: color.map(|c| c.to_array().map(crate::base::unorm::to_unorm8)),
            depth: depth.map(crate::target::clear_depth_value),
            stencil,
        });
    }
}

/// Whether `r` holds pixel `(x, y)`.
fn contains(r: &Rect, x: u32, y: u32) -> bool {
    let inside =
        |p: u32, lo: u32, len: u32| p >= lo && u64::from(p) < u64::from(lo) + u64::from(len);
    inside(x, r.x, r.width) && inside(y, r.y, r.height)
}

/// One pixel's fragments: every fragment of the runs as given, then, per draw and
/// primitive, those only the run without clip planes produced (discarded by a clip plane),
/// then those only the run without the scissor produced (discarded by the scissor); in draw
/// and primitive order, each named by its draw's command and label.
fn merge(
    records: Vec<((u32, Variant), Fragment)>,
    draw_info: &[(u32, Option<String>)],
) -> Vec<Fragment> {
    let mut fragments: Vec<Fragment> = Vec::new();
    let mut seen: Vec<(u32, u32)> = Vec::new();
    for (variant, reason) in [
        (Variant::AsGiven, None),
        (Variant::NoClipPlanes, Some(Discard::Clip)),
        (Variant::NoScissor, Some(Discard::Scissor)),
        (Variant::Neither, Some(Discard::Clip)),
    ] {
        let before = seen.len();
        for ((draw, v), f) in &records {
            if *v != variant || seen[..before].contains(&(*draw, f.primitive)) {
                continue;
            }
            seen.push((*draw, f.primitive));
            let mut f = f.clone();
            if let Some(r) = reason {
                // Only where it would have been: its rasterisation, no tests.
                f.stages.truncate(1);
                f.discarded_by = Some(r);
            }
            if let Some((command, label)) = draw_info.get(*draw as usize) {
                f.command = *command;
                f.label.clone_from(label);
            }
            fragments.push(f);
        }
    }
    // Stable: a primitive's own fragments (a quad's halves, a polygon's edges) keep their
    // order.
    fragments.sort_by_key(|f| (f.draw, f.primitive));
    fragments
}

impl DrawTarget for Explainer {
    fn width(&self) -> u32 {
        self.ctx.width()
    }
    fn height(&self) -> u32 {
        self.ctx.height()
    }
    fn clear(&mut self, color: Vec4, depth: f32, stencil: u8) {
        self.clear_event(None, Some(color), Some(depth), Some(stencil));
        self.ctx.clear(color, depth, stencil);
    }
    fn clear_rect(
        &mut self,
        rect: Rect,
        color: Option<Vec4>,
        depth: Option<f32>,
        stencil: Option<u8>,
    ) {
        self.clear_event(Some(rect), color, depth, stencil);
        self.ctx.clear_rect(rect, color, depth, stencil);
    }
    fn draw(
        &mut self,
        state: &PipelineState,
        vertices: &VertexInput<'_>,
        indices: Indices<'_>,
        topology: Topology,
    ) -> Result<DrawStats, Error> {
        self.run_draw(state, |ctx, s| ctx.draw(s, vertices, indices, topology))
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
        self.run_draw(state, |ctx, s| {
            ctx.draw_fixed(s, ff, transforms, mesh, indices, topology)
        })
    }
    fn draw_pbr(
        &mut self,
        state: &PipelineState,
        draw: &crate::shading::pbr::PbrDraw,
        transforms: &Transforms,
        mesh: &MeshInput<'_>,
        tangents: Option<&[glam::Vec4]>,
        indices: Indices<'_>,
        topology: Topology,
    ) -> Result<DrawStats, Error> {
        self.run_draw(state, |ctx, s| {
            ctx.draw_pbr(s, draw, transforms, mesh, tangents, indices, topology)
        })
    }
    fn finish(&mut self) -> Result<(), Error> {
        self.ctx.finish();
        Ok(())
    }
    fn wants_labels(&self) -> bool {
        true
    }
    fn label(&mut self, label: &str) {
        self.label = Some(label.to_owned());
    }
}
