//! `plumb explain`: why a pixel has its colour. The in-process API behind the command
//! ([`explain`], [`explain_region`]) and its two printed forms, text for people ([`to_text`])
//! and JSON for tools ([`to_json`], schema in `docs/explain.md`).
//!
//! The history comes from [`plumb_raster::explain`]: the rasteriser's own stages, probed at
//! the pixel, so its final colour, depth and stencil are the rendered ones (tested for every
//! pixel of a golden and samples of others, at every SIMD level).

use std::fmt::Write as _;

use glam::Vec4;
use plumb_raster::explain::{Clear, Event, Explainer, Fragment, Stage, Value};
use plumb_raster::pbr::PbrDraw;
use plumb_raster::state::{PipelineState, PolygonMode, Rect};
use plumb_raster::trace::Trace;
use plumb_raster::{
    DrawStats, DrawTarget, Error, FixedFunction, Indices, MeshInput, SimdLevel, Topology,
    Transforms, VertexInput,
};
use plumb_scene::FixedRenderer;
use serde::Serialize as _;
use serde_json::{json, Map, Value as Json};

pub use plumb_raster::explain::{Discard, PixelHistory};

use crate::model::camera::CameraArgs;
use crate::model::LoadedModel;

/// What is drawn: a draw trace as recorded, or a loaded scene file at a time and view.
pub enum Input<'a> {
    /// A draw trace (its recorded size).
    Trace(&'a Trace),
    /// A scene file as `plumb render` draws it: `time` (already through the clip's loop
    /// mode) and the camera options.
    Model {
        /// The loaded, mapped scene.
        model: &'a mut LoadedModel,
        /// Animation time in seconds.
        time: f32,
        /// Camera choice and overrides.
        view: &'a CameraArgs,
    },
}

/// The history of pixel `(x, y)` of the `width × height` image of `input`, drawn at `simd`
/// (`None`: the level `plumb render` would use).
///
/// # Errors
/// A one-line message: the pixel outside the image, a trace whose size differs, or the
/// input's own draw error.
pub fn explain(
    input: Input<'_>,
    (width, height): (u32, u32),
    (x, y): (u32, u32),
    simd: Option<SimdLevel>,
) -> Result<PixelHistory, String> {
    let rect = Rect {
        x,
        y,
        width: 1,
        height: 1,
    };
    let mut all = explain_region(input, (width, height), rect, simd, Some(1))?;
    all.pop().ok_or_else(|| "no history".to_owned())
}

/// The histories of every pixel of `rect` (row by row), from one draw of `input` with
/// `threads` workers: what [`explain`] gives for each pixel, at the cost of one render.
///
/// # Errors
/// As [`explain`].
pub fn explain_region(
    input: Input<'_>,
    (width, height): (u32, u32),
    rect: Rect,
    simd: Option<SimdLevel>,
    threads: Option<usize>,
) -> Result<Vec<PixelHistory>, String> {
    let mut ex = Explainer::region(width, height, rect, threads).map_err(|e| e.to_string())?;
    if let Some(level) = simd {
        ex.context_mut()
            .set_simd_level(level)
            .map_err(|e| e.to_string())?;
    }
    let ex = match input {
        Input::Trace(trace) => {
            if trace.size() != (width, height) {
                let (w, h) = trace.size();
                return Err(format!(
                    "--size {width}x{height}: a draw trace renders at its recorded size {w}x{h}"
                ));
            }
            trace.replay(&mut ex).map_err(|e| e.to_string())?;
            ex
        }
        Input::Model { model, time, view } => {
            let mut renderer = FixedRenderer::with_target(ex);
            model.draw_at(time, view, &mut renderer)?;
            renderer.into_target()
        }
    };
    ex.finish_histories().map_err(|e| e.to_string())
}

/// Default of `plumb explain --max-fragments`: 2¹⁴ fragments recorded at the pixel (a few
/// hundred bytes to a few kilobytes each, with their stages).
pub const DEFAULT_MAX_FRAGMENTS: u64 = 1 << 14;

/// What a fragment budget left out of a history ([`explain_within`]): from command
/// `from_command` on, nothing was recorded; the draws were still drawn (at the pixel only), so
/// the final colour, depth and stencil are the rendered ones.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Skipped {
    /// The first command (clear or draw) not recorded.
    pub from_command: u32,
    /// Draws not recorded.
    pub draws: u64,
    /// Clears not recorded.
    pub clears: u64,
    /// Their primitives.
    pub primitives: u64,
    /// Fragments of those draws written to the pixel (that passed every test).
    pub fragments_written: u64,
}

/// [`explain`] with a fragment budget: each draw is charged, **before** it is drawn, the most
/// fragments it can leave at the pixel — its primitives × the runs the explainer makes of it
/// (as given, then without clip planes and without the scissor where those apply) × 3 in a
/// line or point polygon mode. The first draw that does not fit, and every command after it,
/// is drawn without being recorded, cut to the pixel: the history's memory is bounded by
/// `max_fragments` whatever the overdraw, and [`Skipped`] says what was left out.
///
/// # Errors
/// As [`explain`].
pub fn explain_within(
    input: Input<'_>,
    (width, height): (u32, u32),
    (x, y): (u32, u32),
    simd: Option<SimdLevel>,
    max_fragments: u64,
) -> Result<(PixelHistory, Option<Skipped>), String> {
    let pixel = Rect {
        x,
        y,
        width: 1,
        height: 1,
    };
    let mut ex = Explainer::region(width, height, pixel, Some(1)).map_err(|e| e.to_string())?;
    // The budget below charges every primitive before it is drawn, so the explainer's own
    // per-pixel cap (the same number) is never what stops it.
    ex.set_max_fragments(max_fragments);
    if let Some(level) = simd {
        ex.context_mut()
            .set_simd_level(level)
            .map_err(|e| e.to_string())?;
    }
    let mut target = Budgeted {
        ex,
        pixel,
        max: max_fragments,
        charged: 0,
        commands: 0,
        skipped: None,
    };
    let target = match input {
        Input::Trace(trace) => {
            if trace.size() != (width, height) {
                let (w, h) = trace.size();
                return Err(format!(
                    "--size {width}x{height}: a draw trace renders at its recorded size {w}x{h}"
                ));
            }
            trace.replay(&mut target).map_err(|e| e.to_string())?;
            target
        }
        Input::Model { model, time, view } => {
            let mut renderer = FixedRenderer::with_target(target);
            model.draw_at(time, view, &mut renderer)?;
            renderer.into_target()
        }
    };
    target.finish_history().map_err(|e| e.to_string())
}

/// An [`Explainer`] behind a fragment budget (see [`explain_within`]).
struct Budgeted {
    ex: Explainer,
    pixel: Rect,
    max: u64,
    charged: u64,
    /// Commands seen (the explainer's numbering).
    commands: u32,
    skipped: Option<Skipped>,
}

impl Budgeted {
    /// Charges a draw of `elements` vertices or indices; `false` when it does not fit (from
    /// then on nothing is recorded).
    fn charge(&mut self, state: &PipelineState, elements: usize, topology: Topology) -> bool {
        let primitives = topology.primitive_count(elements) as u64;
        if self.skipped.is_none() {
            let clipped = u64::from(state.clip_planes.iter().any(Option::is_some));
            let in_scissor = state
                .scissor
                .is_none_or(|s| s.intersect(&self.pixel) == Some(self.pixel));
            let runs = 1 + clipped + u64::from(!in_scissor) * (1 + clipped);
            let per = if state.polygon_mode == PolygonMode::Fill {
                1
            } else {
                3
            };
            let cost = primitives.saturating_mul(runs).saturating_mul(per);
            match self.charged.checked_add(cost).filter(|&t| t <= self.max) {
                Some(total) => {
                    self.charged = total;
                    self.commands += 1;
                    return true;
                }
                None => {
                    // Everything recorded so far is drawn first, so the counters below are
                    // the unrecorded draws' alone.
                    let ctx = self.ex.context_mut();
                    ctx.finish();
                    ctx.reset_stats();
                    self.skipped = Some(Skipped {
                        from_command: self.commands,
                        ..Skipped::default()
                    });
                }
            }
        }
        self.commands += 1;
        if let Some(s) = &mut self.skipped {
            s.draws += 1;
            s.primitives = s.primitives.saturating_add(primitives);
        }
        false
    }

    /// `state` cut to the pixel, or `None` when its scissor misses it.
    fn at_pixel(&self, state: &PipelineState) -> Option<PipelineState> {
        let mut s = *state;
        s.scissor = Some(match state.scissor {
            None => self.pixel,
            Some(r) => r.intersect(&self.pixel)?,
        });
        Some(s)
    }

    /// A clear: recorded, or drawn unrecorded once over budget.
    fn clear_skipped(&mut self) -> bool {
        self.commands += 1;
        match &mut self.skipped {
            Some(s) => {
                s.clears += 1;
                true
            }
            None => false,
        }
    }

    fn finish_history(mut self) -> Result<(PixelHistory, Option<Skipped>), Error> {
        if let Some(s) = &mut self.skipped {
            let ctx = self.ex.context_mut();
            ctx.finish();
            s.fragments_written = ctx.stats().fragments_written;
        }
        Ok((self.ex.finish_history()?, self.skipped))
    }
}

impl DrawTarget for Budgeted {
    fn width(&self) -> u32 {
        self.ex.width()
    }
    fn height(&self) -> u32 {
        self.ex.height()
    }
    fn clear(&mut self, color: Vec4, depth: f32, stencil: u8) {
        if self.clear_skipped() {
            self.ex.context_mut().clear(color, depth, stencil);
        } else {
            self.ex.clear(color, depth, stencil);
        }
    }
    fn clear_rect(
        &mut self,
        rect: Rect,
        color: Option<Vec4>,
        depth: Option<f32>,
        stencil: Option<u8>,
    ) {
        if self.clear_skipped() {
            self.ex
                .context_mut()
                .clear_rect(rect, color, depth, stencil);
        } else {
            self.ex.clear_rect(rect, color, depth, stencil);
        }
    }
    fn draw(
        &mut self,
        state: &PipelineState,
        vertices: &VertexInput<'_>,
        indices: Indices<'_>,
        topology: Topology,
    ) -> Result<DrawStats, Error> {
        let n = indices.len(vertices.positions.len());
        if self.charge(state, n, topology) {
            return self.ex.draw(state, vertices, indices, topology);
        }
        match self.at_pixel(state) {
            Some(s) => self.ex.context_mut().draw(&s, vertices, indices, topology),
            None => Ok(DrawStats::default()),
        }
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
        let n = indices.len(mesh.positions.len());
        if self.charge(state, n, topology) {
            return self
                .ex
                .draw_fixed(state, ff, transforms, mesh, indices, topology);
        }
        match self.at_pixel(state) {
            Some(s) => self
                .ex
                .context_mut()
                .draw_fixed(&s, ff, transforms, mesh, indices, topology),
            None => Ok(DrawStats::default()),
        }
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
        let n = indices.len(mesh.positions.len());
        if self.charge(state, n, topology) {
            return self
                .ex
                .draw_pbr(state, draw, transforms, mesh, tangents, indices, topology);
        }
        match self.at_pixel(state) {
            Some(s) => self
                .ex
                .context_mut()
                .draw_pbr(&s, draw, transforms, mesh, tangents, indices, topology),
            None => Ok(DrawStats::default()),
        }
    }
    fn finish(&mut self) -> Result<(), Error> {
        self.ex.finish()
    }
    fn wants_labels(&self) -> bool {
        true
    }
    fn label(&mut self, label: &str) {
        if self.skipped.is_none() {
            self.ex.label(label);
        }
    }
}

/// The line [`to_text`] ends with, and the `"skipped"` member of [`to_json`]'s form, when a
/// budget left commands out.
pub fn skipped_text(s: &Skipped, max_fragments: u64) -> String {
    format!(
        "not recorded from command #{} on (--max-fragments {max_fragments}): {} draw(s) of {} primitive(s) and {} clear(s), drawn at the pixel: {} more fragment(s) written",
        s.from_command, s.draws, s.primitives, s.clears, s.fragments_written
    )
}

/// [`to_json`] with the [`Skipped`] record (`null` when nothing was left out).
pub fn to_json_within(h: &PixelHistory, skipped: Option<&Skipped>, max_fragments: u64) -> Json {
    let mut j = to_json(h);
    if let Json::Object(m) = &mut j {
        m.insert("max_fragments".to_owned(), json!(max_fragments));
        m.insert(
            "skipped".to_owned(),
            skipped.map_or(Json::Null, |s| {
                json!({
                    "from_command": s.from_command,
                    "draws": s.draws,
                    "clears": s.clears,
                    "primitives": s.primitives,
                    "fragments_written": s.fragments_written,
                })
            }),
        );
    }
    j
}

/// [`to_json_within`], written to `out` as pretty JSON without building the document: one
/// fragment's JSON exists at a time, so the memory does not grow with the fragments. The
/// bytes are those of `serde_json::to_writer_pretty(out, &to_json_within(…))` (keys sorted).
///
/// # Errors
/// The writer's.
pub fn write_json_within(
    out: &mut dyn std::io::Write,
    h: &PixelHistory,
    skipped: Option<&Skipped>,
    max_fragments: u64,
) -> std::io::Result<()> {
    let mut ser = serde_json::Serializer::pretty(out);
    Streamed {
        h,
        skipped,
        max_fragments,
    }
    .serialize(&mut ser)
    .map_err(std::io::Error::other)
}

/// [`to_json_within`]'s document, serialised member by member (see [`write_json_within`]).
struct Streamed<'a> {
    h: &'a PixelHistory,
    skipped: Option<&'a Skipped>,
    max_fragments: u64,
}

/// A history's fragments, serialised one at a time.
struct Fragments<'a>(&'a PixelHistory);

impl serde::Serialize for Fragments<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.0.fragments().map(fragment_json))
    }
}

impl serde::Serialize for Streamed<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        // Everything but the fragments, as `to_json_within` makes it (small).
        let mut rest = match to_json_within(
            &PixelHistory {
                x: self.h.x,
                y: self.h.y,
                width: self.h.width,
                height: self.h.height,
                events: Vec::new(),
                color: self.h.color,
                depth: self.h.depth,
                stencil: self.h.stencil,
                skipped_fragments: self.h.skipped_fragments,
            },
            self.skipped,
            self.max_fragments,
        ) {
            Json::Object(m) => m,
            _ => Map::new(),
        };
        rest.insert(
            "clears".to_owned(),
            Json::Array(
                self.h
                    .events
                    .iter()
                    .filter_map(|e| match e {
                        Event::Clear(c) => Some(clear_json(c)),
                        Event::Fragment(_) => None,
                    })
                    .collect(),
            ),
        );
        rest.remove("fragments");
        // Sorted keys, as serde_json's map writes them: "fragments" in its place.
        let mut m = s.serialize_map(Some(rest.len() + 1))?;
        let mut fragments_done = false;
        for (k, v) in &rest {
            if !fragments_done && k.as_str() > "fragments" {
                m.serialize_entry("fragments", &Fragments(self.h))?;
                fragments_done = true;
            }
            m.serialize_entry(k, v)?;
        }
        if !fragments_done {
            m.serialize_entry("fragments", &Fragments(self.h))?;
        }
        m.end()
    }
}

/// The JSON form (format `plumb-pixel-history`, version 1; `docs/explain.md`).
pub fn to_json(h: &PixelHistory) -> Json {
    let clears: Vec<Json> = h
        .events
        .iter()
        .filter_map(|e| match e {
            Event::Clear(c) => Some(clear_json(c)),
            Event::Fragment(_) => None,
        })
        .collect();
    let fragments: Vec<Json> = h.fragments().map(fragment_json).collect();
    let mut j = json!({
        "format": "plumb-pixel-history",
        "version": 1,
        "pixel": [h.x, h.y],
        "size": [h.width, h.height],
        "final": {
            "color": h.color,
            "color_float": h.color.map(|c| f32::from(c) / 255.0).map(float),
            "depth": float(h.depth),
            "stencil": h.stencil,
        },
        "clears": clears,
        "fragments": fragments,
    });
    // Only past the library's per-pixel budget (`Explainer::set_max_fragments`).
    if h.skipped_fragments > 0 {
        if let Json::Object(m) = &mut j {
            m.insert("skipped_fragments".to_owned(), json!(h.skipped_fragments));
        }
    }
    j
}

fn clear_json(c: &Clear) -> Json {
    json!({
        "command": c.command,
        "rect": c.rect.map(|r| [r.x, r.y, r.width, r.height]),
        "color": c.color,
        "depth": c.depth.map(float),
        "stencil": c.stencil,
    })
}

fn fragment_json(f: &Fragment) -> Json {
    let stages: Vec<Json> = f
        .stages
        .iter()
        .map(|s| {
            json!({
                "name": s.name,
                "inputs": values_json(&s.inputs),
                "outputs": values_json(&s.outputs),
            })
        })
        .collect();
    json!({
        "command": f.command,
        "draw": f.draw,
        "label": f.label,
        "primitive": f.primitive,
        "front_facing": f.front,
        "barycentric": f.barycentric.map(float),
        "depth": float(f.depth),
        "stages": stages,
        "discarded_by": f.discarded_by.map(Discard::name),
    })
}

fn values_json(values: &[(String, Value)]) -> Json {
    let mut m = Map::new();
    for (name, v) in values {
        m.insert(name.clone(), value_json(v));
    }
    Json::Object(m)
}

/// A float as JSON: a number (the `f32` exactly), or the strings `"NaN"`, `"inf"`, `"-inf"`,
/// which JSON has no numbers for.
fn float(x: f32) -> Json {
    if x.is_finite() {
        // The f32's shortest decimal, so the JSON number reads back as the same f32.
        x.to_string()
            .parse::<f64>()
            .ok()
            .and_then(serde_json::Number::from_f64)
            .map_or(Json::Null, Json::Number)
    } else if x.is_nan() {
        json!("NaN")
    } else if x > 0.0 {
        json!("inf")
    } else {
        json!("-inf")
    }
}

fn value_json(v: &Value) -> Json {
    match v {
        Value::Bool(b) => json!(b),
        Value::Int(i) => json!(i),
        Value::Float(x) => float(*x),
        Value::Floats(xs) => Json::Array(xs.iter().copied().map(float).collect()),
        Value::Rgba8(c) => json!(c),
        Value::Text(t) => json!(t),
        Value::Taps(taps) => Json::Array(
            taps.iter()
                .map(|t| {
                    json!({
                        "level": t.level,
                        "x": t.x,
                        "y": t.y,
                        "texel": t.texel.to_array().map(float),
                        "weight": float(t.weight),
                    })
                })
                .collect(),
        ),
        _ => Json::Null,
    }
}

/// `[r g b a]` in 0–255 (the framebuffer's rounding) and the floats.
fn color_text(c: &[f32]) -> String {
    let bytes: Vec<String> = c
        .iter()
        .map(|&x| (x.clamp(0.0, 1.0) * 255.0 + 0.5).floor().to_string())
        .collect();
    let floats: Vec<String> = c.iter().map(|x| format!("{x:.4}")).collect();
    format!("[{}] ({})", bytes.join(" "), floats.join(" "))
}

/// Names whose four floats are a colour.
fn is_color(name: &str) -> bool {
    [
        "color",
        "source",
        "destination",
        "texture",
        "primary",
        "fog_color",
        "reference",
    ]
    .contains(&name)
}

fn value_text(name: &str, v: &Value) -> String {
    match v {
        Value::Bool(b) => if *b { "yes" } else { "no" }.to_owned(),
        Value::Int(i) => i.to_string(),
        Value::Float(x) => x.to_string(),
        Value::Floats(xs) if xs.len() == 4 && is_color(name) => color_text(xs),
        Value::Floats(xs) => {
            let s: Vec<String> = xs.iter().map(f32::to_string).collect();
            s.join(" ")
        }
        Value::Rgba8(c) => {
            let f = c.map(|c| f32::from(c) / 255.0);
            format!(
                "[{} {} {} {}] ({:.4} {:.4} {:.4} {:.4})",
                c[0], c[1], c[2], c[3], f[0], f[1], f[2], f[3]
            )
        }
        Value::Text(t) => t.clone(),
        Value::Taps(taps) => format!("{} texel(s), below", taps.len()),
        _ => String::new(),
    }
}

fn stage_text(out: &mut String, s: &Stage) {
    let list = |vs: &[(String, Value)]| {
        vs.iter()
            .filter(|(_, v)| !matches!(v, Value::Taps(_)))
            .map(|(n, v)| format!("{n} {}", value_text(n, v)))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let (i, o) = (list(&s.inputs), list(&s.outputs));
    let _ = match (i.is_empty(), o.is_empty()) {
        (true, _) => writeln!(out, "    {:<16} → {o}", s.name),
        (false, true) => writeln!(out, "    {:<16} {i}", s.name),
        (false, false) => writeln!(out, "    {:<16} {i} → {o}", s.name),
    };
    for (_, v) in &s.outputs {
        if let Value::Taps(taps) = v {
            for t in taps {
                let at = |c: Option<u32>| c.map_or("border".to_owned(), |c| c.to_string());
                let _ = writeln!(
                    out,
                    "    {:<16}   level {} ({}, {}) weight {} texel {}",
                    "",
                    t.level,
                    at(t.x),
                    at(t.y),
                    t.weight,
                    color_text(&t.texel.to_array())
                );
            }
        }
    }
}

/// The text form: one line per clear and fragment, the stages indented below each fragment,
/// the final values first.
pub fn to_text(h: &PixelHistory) -> String {
    let mut out = String::new();
    let final_color = h.color.map(|c| f32::from(c) / 255.0);
    let _ = writeln!(
        out,
        "pixel ({}, {}) of {}x{}: color {}, depth {}, stencil {}",
        h.x,
        h.y,
        h.width,
        h.height,
        color_text(&final_color),
        h.depth,
        h.stencil
    );
    if h.skipped_fragments > 0 {
        let _ = writeln!(
            out,
            "{} more fragment(s) drawn here past the explainer's per-pixel budget, not recorded",
            h.skipped_fragments
        );
    }
    let fragments = h.fragments().count();
    let kept = h.fragments().filter(|f| f.discarded_by.is_none()).count();
    if fragments == 0 {
        let clears = h.events.len();
        let _ = writeln!(
            out,
            "no fragment reached this pixel: {}",
            if clears == 0 {
                "nothing was drawn here, and no clear covered it"
            } else {
                "only the clear reached it"
            }
        );
    } else {
        let _ = writeln!(out, "{fragments} fragment(s), {kept} written");
    }
    for e in &h.events {
        match e {
            Event::Clear(c) => {
                let what = match c.rect {
                    None => "clear".to_owned(),
                    Some(r) => format!("clear_rect {}x{} at ({}, {})", r.width, r.height, r.x, r.y),
                };
                let mut parts = Vec::new();
                if let Some(col) = c.color {
                    parts.push(format!("color {}", value_text("color", &Value::Rgba8(col))));
                }
                if let Some(d) = c.depth {
                    parts.push(format!("depth {d}"));
                }
                if let Some(s) = c.stencil {
                    parts.push(format!("stencil {s}"));
                }
                let _ = writeln!(out, "#{:<4} {what}: {}", c.command, parts.join(", "));
            }
            Event::Fragment(f) => {
                let label = f
                    .label
                    .as_deref()
                    .map(|l| format!(" {l}"))
                    .unwrap_or_default();
                let outcome = match f.discarded_by {
                    None => "written".to_owned(),
                    Some(d) => format!("discarded by {d}"),
                };
                let b = f.barycentric;
                let _ = writeln!(
                    out,
                    "#{:<4} draw {}{label}, primitive {} ({}), barycentric {} {} {}, depth {}: {outcome}",
                    f.command,
                    f.draw,
                    f.primitive,
                    if f.front { "front" } else { "back" },
                    b[0],
                    b[1],
                    b[2],
                    f.depth
                );
                for s in &f.stages {
                    stage_text(&mut out, s);
                }
            }
        }
    }
    out
}
