//! The primitive lists the vertex shader pulls: triangles, segments and points, with plumb's
//! provoking vertex first and wireframe and point-mode triangles culled on the CPU.

use glam::{Mat3, Vec3, Vec4};
use plumb_raster::{CullMode, FrontFace, Indices, PipelineState, PolygonMode, Topology};

/// What the vertex shader expands: triangles, segments or points.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum PrimKind {
    Tri,
    Line,
    Point,
}

impl PrimKind {
    pub(crate) fn code(self) -> f32 {
        match self {
            PrimKind::Tri => 0.0,
            PrimKind::Line => 1.0,
            PrimKind::Point => 2.0,
        }
    }
}

/// The sign of `det[x y w]` is the orientation of its visible part in NDC (y up).
fn facing(state: &PipelineState, c: [Vec4; 3]) -> Option<bool> {
    let m = Mat3::from_cols(
        Vec3::new(c[0].x, c[0].y, c[0].w),
        Vec3::new(c[1].x, c[1].y, c[1].w),
        Vec3::new(c[2].x, c[2].y, c[2].w),
    );
    let d = m.determinant();
    if d == 0.0 || !d.is_finite() {
        return None;
    }
    Some((d > 0.0) == (state.front_face == FrontFace::Ccw))
}

/// The primitive list for the shader and its vertex count: triangles as three indices
/// (plumb's provoking vertex first); segments as `(a, b, flat | back bit)`; points as
/// `(v, flat | back bit)`. Wireframe and point-mode triangles are culled here.
pub(crate) fn primitives(
    state: &PipelineState,
    indices: Indices<'_>,
    n: usize,
    topology: Topology,
    clip: &dyn Fn(usize) -> Vec4,
) -> (Vec<u32>, PrimKind, u32) {
    const BACK: u32 = 0x8000_0000;
    let elems = indices.len(n);
    let count = topology.primitive_count(elems);
    let mut out = Vec::new();
    let at = |e: usize| indices.get(e) as u32;
    match topology {
        Topology::TriangleList | Topology::TriangleStrip | Topology::TriangleFan => {
            match state.polygon_mode {
                PolygonMode::Fill => {
                    out.reserve(count * 3);
                    for p in 0..count {
                        for e in topology.primitive(p) {
                            out.push(at(e));
                        }
                    }
                    let v = out.len() as u32;
                    (out, PrimKind::Tri, v)
                }
                mode => {
                    for p in 0..count {
                        let v = topology.primitive(p).map(at);
                        let Some(front) = facing(state, v.map(|i| clip(i as usize))) else {
                            continue;
                        };
                        let keep = match state.cull {
                            CullMode::None => true,
                            CullMode::Back => front,
                            CullMode::Front => !front,
                        };
                        if !keep {
                            continue;
                        }
                        let flat = v[0] | if front { 0 } else { BACK };
                        if mode == PolygonMode::Line {
                            for k in 0..3 {
                                out.extend_from_slice(&[v[k], v[(k + 1) % 3], flat]);
                            }
                        } else {
                            for &x in &v {
                                out.extend_from_slice(&[x, flat]);
                            }
                        }
                    }
                    if mode == PolygonMode::Line {
                        let v = (out.len() / 3 * 6) as u32;
                        (out, PrimKind::Line, v)
                    } else {
                        let v = (out.len() / 2 * 6) as u32;
                        (out, PrimKind::Point, v)
                    }
                }
            }
        }
        Topology::LineList | Topology::LineStrip => {
            for p in 0..count {
                let [a, b, _] = topology.primitive(p);
                out.extend_from_slice(&[at(a), at(b), at(a)]);
            }
            let v = (count * 6) as u32;
            (out, PrimKind::Line, v)
        }
        Topology::PointList => {
            for p in 0..count {
                let v = at(topology.primitive(p)[0]);
                out.extend_from_slice(&[v, v]);
            }
            let v = (count * 6) as u32;
            (out, PrimKind::Point, v)
        }
    }
}
