//! `plumb explain`: why a pixel has its colour. The in-process API behind the command
//! ([`explain`], [`explain_region`]) and its two printed forms, text for people ([`to_text`])
//! and JSON for tools ([`to_json`], schema in `docs/explain.md`).
//!
//! The history comes from [`plumb_raster::explain`]: the rasteriser's own stages, probed at
//! the pixel, so its final colour, depth and stencil are the rendered ones (tested for every
//! pixel of a golden and samples of others, at every SIMD level).

use std::fmt::Write as _;

use plumb_raster::explain::{Clear, Event, Explainer, Fragment, Stage, Value};
use plumb_raster::state::Rect;
use plumb_raster::trace::Trace;
use plumb_raster::SimdLevel;
use plumb_scene::FixedRenderer;
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
    json!({
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
    })
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
