//! The pixel history's values ([`PixelHistory`], [`Fragment`], [`Stage`], [`Value`]) and
//! the probe the fragment stage writes them to: below the context and the fragment stage,
//! which both use them; [`super::Explainer`] sits above the context.

use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use glam::Vec4;

use crate::state::Rect;

/// A state value in words, as histories print them: `LessEqual` → `less_equal`.
pub fn words<T: fmt::Debug>(t: T) -> String {
    let mut out = String::new();
    for (i, c) in format!("{t:?}").chars().enumerate() {
        if c.is_ascii_uppercase() {
            if i > 0 {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// A value a stage read or wrote.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum Value {
    /// A test's outcome or a flag.
    Bool(bool),
    /// A count, an index or a stencil value.
    Int(i64),
    /// A scalar (depth, alpha, λ, a fog factor).
    Float(f32),
    /// A vector (colour, coordinates, barycentrics).
    Floats(Vec<f32>),
    /// A stored colour, 0–255 per channel.
    Rgba8([u8; 4]),
    /// A state value in words (`"less"`, `"src_alpha"`).
    Text(String),
    /// Texture taps: one entry per texel read.
    Taps(Vec<crate::texture::Tap>),
}

impl From<bool> for Value {
    fn from(v: bool) -> Value {
        Value::Bool(v)
    }
}
impl From<f32> for Value {
    fn from(v: f32) -> Value {
        Value::Float(v)
    }
}
impl From<u8> for Value {
    fn from(v: u8) -> Value {
        Value::Int(i64::from(v))
    }
}
impl From<u32> for Value {
    fn from(v: u32) -> Value {
        Value::Int(i64::from(v))
    }
}
impl From<Vec4> for Value {
    fn from(v: Vec4) -> Value {
        Value::Floats(v.to_array().to_vec())
    }
}
impl From<[u8; 4]> for Value {
    fn from(v: [u8; 4]) -> Value {
        Value::Rgba8(v)
    }
}
impl From<&str> for Value {
    fn from(v: &str) -> Value {
        Value::Text(v.to_owned())
    }
}
impl From<String> for Value {
    fn from(v: String) -> Value {
        Value::Text(v)
    }
}

/// One stage a fragment went through: its name, what it read and what it produced.
#[derive(Clone, Debug, PartialEq)]
pub struct Stage {
    /// `rasterize`, `depth_test`, `unit0_sample`, `blend`, … (docs/explain.md lists them).
    pub name: String,
    /// What it read, by name.
    pub inputs: Vec<(String, Value)>,
    /// What it produced, by name.
    pub outputs: Vec<(String, Value)>,
}

impl Stage {
    pub(crate) fn new(name: impl Into<String>) -> Stage {
        Stage {
            name: name.into(),
            inputs: Vec::new(),
            outputs: Vec::new(),
        }
    }
    pub(crate) fn input(mut self, name: &str, v: impl Into<Value>) -> Stage {
        self.inputs.push((name.to_owned(), v.into()));
        self
    }
    pub(crate) fn output(mut self, name: &str, v: impl Into<Value>) -> Stage {
        self.outputs.push((name.to_owned(), v.into()));
        self
    }
    /// An output by name.
    pub fn get(&self, name: &str) -> Option<&Value> {
        self.outputs.iter().find(|(n, _)| n == name).map(|(_, v)| v)
    }
}

/// What discarded a fragment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Discard {
    /// The alpha test failed.
    Alpha,
    /// The stencil test failed.
    Stencil,
    /// The depth test failed.
    Depth,
    /// A user clip plane cut the primitive away from the pixel.
    Clip,
    /// The scissor rectangle excludes the pixel.
    Scissor,
}

impl Discard {
    /// The name in `--json` output.
    pub fn name(self) -> &'static str {
        match self {
            Discard::Alpha => "alpha",
            Discard::Stencil => "stencil",
            Discard::Depth => "depth",
            Discard::Clip => "clip",
            Discard::Scissor => "scissor",
        }
    }
}

impl fmt::Display for Discard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One fragment at the pixel.
#[derive(Clone, Debug, PartialEq)]
pub struct Fragment {
    /// Index of the command in the target's call order (clears and draws).
    pub command: u32,
    /// Index of the draw (draws only, from 0).
    pub draw: u32,
    /// What the caller said the draw is (a scene node and pass), if anything.
    pub label: Option<String>,
    /// Primitive of the draw (triangle, line or point, in the topology's order).
    pub primitive: u32,
    /// Whether the primitive faces the viewer.
    pub front: bool,
    /// Screen-space barycentrics of the pixel centre in the triangle set up for it (a clipped
    /// or split primitive's piece; a line or point quad's half).
    pub barycentric: [f32; 3],
    /// Window depth of the fragment (after polygon offset and the depth range clamp).
    pub depth: f32,
    /// The stages in order.
    pub stages: Vec<Stage>,
    /// The test that discarded it, or `None` if it reached the write stage.
    pub discarded_by: Option<Discard>,
}

/// A command that set the pixel without a primitive.
#[derive(Clone, Debug, PartialEq)]
pub struct Clear {
    /// Index of the command in the target's call order.
    pub command: u32,
    /// `None` for a whole-target clear.
    pub rect: Option<Rect>,
    /// The colour it wrote (`None`: left as it was).
    pub color: Option<[u8; 4]>,
    /// The depth it wrote.
    pub depth: Option<f32>,
    /// The stencil value it wrote.
    pub stencil: Option<u8>,
}

/// One entry of a pixel history.
#[derive(Clone, Debug, PartialEq)]
pub enum Event {
    /// A clear or rectangle clear that covered the pixel.
    Clear(Clear),
    /// A fragment at the pixel (kept or discarded).
    Fragment(Fragment),
}

/// Everything that happened at one pixel, in order, and the pixel's final values.
#[derive(Clone, Debug, PartialEq)]
pub struct PixelHistory {
    /// The pixel's column (0 at the left).
    pub x: u32,
    /// The pixel's row (0 at the top).
    pub y: u32,
    /// The target's width.
    pub width: u32,
    /// The target's height.
    pub height: u32,
    /// Clears and fragments, in command order.
    pub events: Vec<Event>,
    /// The final colour, read from the target.
    pub color: [u8; 4],
    /// The final depth.
    pub depth: f32,
    /// The final stencil value.
    pub stencil: u8,
    /// Fragments at the pixel past the explainer's budget
    /// ([`Explainer::set_max_fragments`](crate::explain::Explainer::set_max_fragments)):
    /// drawn, counted, not recorded (0 when every fragment is in `events`).
    pub skipped_fragments: u64,
}

impl PixelHistory {
    /// The fragments, in order.
    pub fn fragments(&self) -> impl Iterator<Item = &Fragment> {
        self.events.iter().filter_map(|e| match e {
            Event::Fragment(f) => Some(f),
            Event::Clear(_) => None,
        })
    }
}

/// What the probe hands the fragment stage of a probed draw.
#[derive(Clone)]
pub(crate) struct ProbeTag {
    pub probe: Arc<Probe>,
    /// `(draw, variant)`: which draw and which of its runs the fragments belong to.
    pub tag: (u32, Variant),
}

/// Which run of a draw: as given, or again without its clip planes, its scissor, or both.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Variant {
    AsGiven,
    NoClipPlanes,
    NoScissor,
    Neither,
}

/// A recorded fragment: its draw and run, its pixel, and what happened to it.
pub(crate) type Record = ((u32, Variant), (u32, u32), Fragment);

/// The probed pixels (a rectangle) and the fragments recorded so far (in the order the
/// tiles' workers met them: submission order within each pixel), at most `max` per pixel:
/// past that a pixel's fragments are only counted. Each pixel's fragments come from one
/// worker in submission order, so which ones are kept never depends on the threads.
pub(crate) struct Probe {
    pub rect: Rect,
    pub max: AtomicU64,
    pub(crate) records: Mutex<Records>,
}

/// What a [`Probe`] holds: the kept records, and per pixel (row by row in the rectangle)
/// how many were kept and how many were not.
#[derive(Default)]
pub(crate) struct Records {
    pub kept: Vec<Record>,
    pub count: Vec<u64>,
    pub skipped: Vec<u64>,
}

impl Probe {
    /// A probe of `rect` keeping at most `max` fragments per pixel.
    pub(crate) fn new(rect: Rect, max: u64) -> Probe {
        let n = rect.width as usize * rect.height as usize;
        Probe {
            rect,
            max: AtomicU64::new(max),
            records: Mutex::new(Records {
                kept: Vec::new(),
                count: vec![0; n],
                skipped: vec![0; n],
            }),
        }
    }

    /// Whether the pixel whose centre is `(x, y)` is probed.
    pub(crate) fn holds(&self, x: f32, y: f32) -> bool {
        let r = &self.rect;
        x >= r.x as f32
            && y >= r.y as f32
            && x < (r.x + r.width) as f32
            && y < (r.y + r.height) as f32
    }

    pub(crate) fn push(&self, record: Record) {
        // A poisoned lock only means another record's thread panicked: keep recording.
        let mut r = self.records.lock().unwrap_or_else(|e| e.into_inner());
        let (x, y) = record.1;
        let r_ = &self.rect;
        let i = (y.wrapping_sub(r_.y) as usize) * r_.width as usize + x.wrapping_sub(r_.x) as usize;
        let Some(&n) = r.count.get(i) else { return };
        if n < self.max.load(Ordering::Relaxed) {
            r.count[i] = n + 1;
            r.kept.push(record);
        } else {
            r.skipped[i] = r.skipped[i].saturating_add(1);
        }
    }

    pub(crate) fn take(&self) -> Records {
        std::mem::take(&mut *self.records.lock().unwrap_or_else(|e| e.into_inner()))
    }
}
