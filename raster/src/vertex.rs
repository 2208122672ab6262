//! Vertex input: clip-space positions plus attributes, optional indices, topologies, and
//! primitive assembly.
//!
//! Internally every vertex becomes a [`ClipVertex`]: a clip-space position and a flat array of
//! *varyings* (colour, UV sets, fog coordinate, …) that the rasteriser interpolates without
//! knowing what they mean. The [`VaryingLayout`] says where each attribute lives.

use glam::{Vec2, Vec4};

use crate::base::error::Error;

/// Most UV sets a vertex can carry.
pub const MAX_UV_SETS: usize = 4;
/// Most interpolated scalars per vertex.
pub const MAX_VARYINGS: usize = 48;

/// How vertices form primitives. Triangle windings and provoking vertices follow Vulkan with
/// `provokingVertexMode = FIRST`: strip triangle `i` is `(i, i+1, i+2)` for even `i` and
/// `(i, i+2, i+1)` for odd `i`; fan triangle `i` is `(i+1, i+2, 0)`; the first vertex of each
/// primitive is the provoking vertex for flat shading.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "trace", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "trace", serde(rename_all = "snake_case"))]
pub enum Topology {
    /// Independent triangles.
    TriangleList,
    /// Triangle strip.
    TriangleStrip,
    /// Triangle fan.
    TriangleFan,
    /// Independent lines.
    LineList,
    /// Connected lines.
    LineStrip,
    /// Points.
    PointList,
}

impl Topology {
    /// Number of primitives made from `n` vertices.
    pub fn primitive_count(self, n: usize) -> usize {
        match self {
            Topology::TriangleList => n / 3,
            Topology::TriangleStrip | Topology::TriangleFan => n.saturating_sub(2),
            Topology::LineList => n / 2,
            Topology::LineStrip => n.saturating_sub(1),
            Topology::PointList => n,
        }
    }

    /// Vertices per primitive.
    pub fn vertices_per_primitive(self) -> usize {
        match self {
            Topology::TriangleList | Topology::TriangleStrip | Topology::TriangleFan => 3,
            Topology::LineList | Topology::LineStrip => 2,
            Topology::PointList => 1,
        }
    }

    /// The element positions (into the index stream) of primitive `p`.
    #[inline]
    pub fn primitive(self, p: usize) -> [usize; 3] {
        match self {
            Topology::TriangleList => [3 * p, 3 * p + 1, 3 * p + 2],
            Topology::TriangleStrip => {
                if p.is_multiple_of(2) {
                    [p, p + 1, p + 2]
                } else {
                    [p, p + 2, p + 1]
                }
            }
            Topology::TriangleFan => [p + 1, p + 2, 0],
            Topology::LineList => [2 * p, 2 * p + 1, 0],
            Topology::LineStrip => [p, p + 1, 0],
            Topology::PointList => [p, 0, 0],
        }
    }
}

/// Optional index buffer.
#[derive(Clone, Copy, Debug, Default)]
pub enum Indices<'a> {
    /// Vertices are used in order.
    #[default]
    None,
    /// 16-bit indices.
    U16(&'a [u16]),
    /// 32-bit indices.
    U32(&'a [u32]),
}

impl Indices<'_> {
    /// Number of elements in the stream given `vertex_count` vertices.
    pub fn len(&self, vertex_count: usize) -> usize {
        match self {
            Indices::None => vertex_count,
            Indices::U16(i) => i.len(),
            Indices::U32(i) => i.len(),
        }
    }

    /// True when the stream has no elements.
    pub fn is_empty(&self, vertex_count: usize) -> bool {
        self.len(vertex_count) == 0
    }

    /// The vertex index of element `e` (caller guarantees `e < len`).
    #[inline]
    pub fn get(&self, e: usize) -> usize {
        match self {
            Indices::None => e,
            Indices::U16(i) => usize::from(i[e]),
            Indices::U32(i) => i[e] as usize,
        }
    }

    /// Checks every index against `vertex_count`.
    ///
    /// # Errors
    /// [`Error::IndexOutOfRange`] for the first offending index.
    pub fn validate(&self, vertex_count: usize) -> Result<(), Error> {
        let bad = |position: usize, index: u32| Error::IndexOutOfRange {
            index,
            position,
            vertex_count,
        };
        // The largest index first (a pass without early exit, which vectorises: a draw's
        // indices are checked at memory speed), the first offender only when there is one.
        let first_bad = |max: u32, i: &mut dyn Iterator<Item = u32>| {
            if (max as usize) < vertex_count {
                return Ok(());
            }
            match i.enumerate().find(|&(_, v)| v as usize >= vertex_count) {
                Some((p, v)) => Err(bad(p, v)),
                None => Ok(()),
            }
        };
        match self {
            Indices::None => Ok(()),
            Indices::U16(i) => {
                let max = i.iter().fold(0, |m, &v| m.max(v));
                first_bad(u32::from(max), &mut i.iter().map(|&v| u32::from(v)))
            }
            Indices::U32(i) => {
                let max = i.iter().fold(0, |m, &v| m.max(v));
                first_bad(max, &mut i.iter().copied())
            }
        }
    }
}

/// Per-vertex input to a draw: clip-space positions and optional attributes, all slices of
/// the same length.
#[derive(Clone, Copy, Debug, Default)]
pub struct VertexInput<'a> {
    /// Clip-space positions `(x, y, z, w)`; visible volume `−w ≤ x, y ≤ w`, `0 ≤ z ≤ w`.
    pub positions: &'a [Vec4],
    /// RGBA colours (default opaque white).
    pub colors: Option<&'a [Vec4]>,
    /// Up to [`MAX_UV_SETS`] texture coordinate sets.
    pub uvs: &'a [&'a [Vec2]],
    /// Fog coordinates (eye distance), if the caller computes fog per vertex.
    pub fog: Option<&'a [f32]>,
}

impl<'a> VertexInput<'a> {
    /// Positions only.
    pub fn positions(positions: &'a [Vec4]) -> Self {
        VertexInput {
            positions,
            ..Default::default()
        }
    }

    /// Positions and colours.
    pub fn colored(positions: &'a [Vec4], colors: &'a [Vec4]) -> Self {
        VertexInput {
            positions,
            colors: Some(colors),
            ..Default::default()
        }
    }

    /// Checks that every attribute has one entry per position and the UV-set limit.
    ///
    /// # Errors
    /// [`Error::BufferLength`] or [`Error::TooMany`].
    pub fn validate(&self) -> Result<(), Error> {
        let n = self.positions.len();
        let check = |what: &'static str, len: usize| {
            if len == n {
                Ok(())
            } else {
                Err(Error::BufferLength {
                    what,
                    expected: n,
                    actual: len,
                })
            }
        };
        if let Some(c) = self.colors {
            check("colors", c.len())?;
        }
        if self.uvs.len() > MAX_UV_SETS {
            return Err(Error::TooMany {
                what: "uv sets",
                max: MAX_UV_SETS,
                actual: self.uvs.len(),
            });
        }
        for uv in self.uvs {
            check("uvs", uv.len())?;
        }
        if let Some(f) = self.fog {
            check("fog", f.len())?;
        }
        Ok(())
    }

    /// The varying layout this input produces.
    pub fn layout(&self) -> VaryingLayout {
        VaryingLayout {
            uv_sets: self.uvs.len() as u8,
            fog: self.fog.is_some(),
        }
    }

    /// Fetches vertex `i` into `out`.
    #[inline]
    pub(crate) fn fetch(&self, i: usize, out: &mut ClipVertex) {
        out.pos = self.positions[i];
        let c = self.colors.map_or(Vec4::ONE, |c| c[i]);
        out.var[..4].copy_from_slice(&c.to_array());
        let mut k = 4;
        for uv in self.uvs {
            out.var[k] = uv[i].x;
            out.var[k + 1] = uv[i].y;
            k += 2;
        }
        if let Some(f) = self.fog {
            out.var[k] = f[i];
        }
    }
}

/// Where each attribute sits in a vertex's varyings: RGBA colour at 0..4, then `uv_sets`
/// pairs, then the fog coordinate.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct VaryingLayout {
    /// Number of UV sets.
    pub uv_sets: u8,
    /// Whether a fog coordinate follows.
    pub fog: bool,
}

impl VaryingLayout {
    /// Total number of scalars.
    pub fn count(&self) -> usize {
        4 + 2 * usize::from(self.uv_sets) + usize::from(self.fog)
    }

    /// Offset of UV set `k`.
    pub fn uv(&self, k: usize) -> usize {
        4 + 2 * k
    }

    /// Offset of the fog coordinate.
    pub fn fog_offset(&self) -> usize {
        4 + 2 * usize::from(self.uv_sets)
    }
}

/// A vertex in clip space with its varyings.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ClipVertex {
    /// Clip-space position.
    pub pos: Vec4,
    /// Interpolated scalars (only the first `count` of the layout are meaningful).
    pub var: [f32; MAX_VARYINGS],
}

impl Default for ClipVertex {
    fn default() -> Self {
        ClipVertex {
            pos: Vec4::ZERO,
            var: [0.0; MAX_VARYINGS],
        }
    }
}

impl ClipVertex {
    /// `a + t·(b − a)` for position and the first `n` varyings.
    #[inline]
    pub fn lerp(a: &ClipVertex, b: &ClipVertex, t: f32, n: usize) -> ClipVertex {
        let mut out = ClipVertex {
            pos: a.pos + (b.pos - a.pos) * t,
            var: [0.0; MAX_VARYINGS],
        };
        for k in 0..n {
            out.var[k] = a.var[k] + (b.var[k] - a.var[k]) * t;
        }
        out
    }
}

#[cfg(feature = "internal-tests")]
pub(crate) mod tests {
    /// Every test of this module: `tests/unit.rs` runs each as one trial (an unlisted
    /// test fails the build as dead code).
    pub(crate) const TESTS: &[(&str, fn())] = &[
        ("strip_and_fan_keep_winding", strip_and_fan_keep_winding),
        ("indices_are_validated", indices_are_validated),
    ];

    use super::*;

    fn strip_and_fan_keep_winding() {
        assert_eq!(Topology::TriangleStrip.primitive(0), [0, 1, 2]);
        assert_eq!(Topology::TriangleStrip.primitive(1), [1, 3, 2]);
        assert_eq!(Topology::TriangleFan.primitive(0), [1, 2, 0]);
        assert_eq!(Topology::TriangleStrip.primitive_count(2), 0);
        assert_eq!(Topology::LineStrip.primitive_count(5), 4);
    }

    fn indices_are_validated() {
        let i = [0u16, 1, 5];
        assert_eq!(
            Indices::U16(&i).validate(3),
            Err(Error::IndexOutOfRange {
                index: 5,
                position: 2,
                vertex_count: 3
            })
        );
        assert!(Indices::U32(&[0, 1, 2]).validate(3).is_ok());
        // The first offender is named, not the largest; long streams, both widths.
        let mut long: Vec<u32> = (0..10_000).map(|k| k % 1000).collect();
        assert!(Indices::U32(&long).validate(1000).is_ok());
        (long[7001], long[7002], long[9000]) = (4000, 1000, u32::MAX);
        let want = |index| {
            Err(Error::IndexOutOfRange {
                index,
                position: 7001,
                vertex_count: 1000,
            })
        };
        assert_eq!(Indices::U32(&long).validate(1000), want(4000));
        let short: Vec<u16> = long.iter().map(|&v| v.min(60_000) as u16).collect();
        assert_eq!(Indices::U16(&short).validate(1000), want(4000));
        assert!(Indices::U16(&short).validate(60_001).is_ok());
        assert!(Indices::U32(&[]).validate(0).is_ok());
        assert!(Indices::U16(&[0]).validate(0).is_err());
    }
}
