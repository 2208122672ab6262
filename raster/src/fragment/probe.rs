//! The probe's side of a batch ([`crate::explain`]): `FragmentPath::staged` tells a
//! [`Recorder`] what each of its stages did. An unprobed batch's recorder is [`Unprobed`],
//! whose calls compile to nothing; a probed batch's is [`Rec`], which copies the probed
//! pixels' values out of the batch's scratch arrays.

use std::ops::Range;

use fearless_simd::Level;
use glam::Vec4;

use crate::base::fixed::SUBPIXEL_ONE;
use crate::fragment::scratch::{color_at, FragmentShader, Scratch, SpanCtx};
use crate::geometry::setup::TriSetup;
use crate::history::{words, Discard, Fragment, ProbeTag, Stage, Value};
use crate::state::PipelineState;

/// The probed pixels' fragments of one batch, in the making.
pub(crate) struct Rec {
    /// Depth and stencil of the probed pixels before the depth/stencil test, their colour
    /// before the write and their blend source: what [`Recorder`] holds between two calls.
    before_test: Vec<(f32, u8)>,
    before_write: Vec<[u8; 4]>,
    source: Vec<Vec4>,
    nvar: usize,
    state: PipelineState,
    /// The set-up triangle's window vertices, for the first stage.
    vertices: Vec<f32>,
    lanes: Vec<Lane>,
}

/// One probed pixel of the batch.
struct Lane {
    lane: usize,
    pixel: (u32, u32),
    /// Still live (no test has discarded it).
    alive: bool,
    fragment: Fragment,
}

impl Lane {
    fn discard(&mut self, why: Discard) {
        self.alive = false;
        self.fragment.discarded_by = Some(why);
    }
    fn push(&mut self, stage: Stage) {
        self.fragment.stages.push(stage);
    }
}

impl Rec {
    /// The records of the probed pixels this batch holds, if any.
    pub fn new(
        probe: &(ProbeTag, PipelineState),
        tri: &TriSetup,
        planes: &[f32],
        nvar: usize,
        live: usize,
        s: &Scratch,
    ) -> Option<Rec> {
        let (tag, state) = probe;
        let primitive = planes.get(3 * (2 + nvar)).map_or(u32::MAX, |p| p.to_bits());
        let one = f64::from(SUBPIXEL_ONE);
        let v = |i: usize| (f64::from(tri.xs[i]) / one, f64::from(tri.ys[i]) / one);
        let mut lanes = Vec::new();
        for i in 0..live {
            // Offsets are exact (multiples of 1/256 below 2¹⁵): this is the pixel centre.
            let (px, py) = (s.dxp[i] + tri.ref_x, s.dyp[i] + tri.ref_y);
            if !tag.probe.holds(px, py) {
                continue;
            }
            let (p, q) = (f64::from(px), f64::from(py));
            let edge = |a: (f64, f64), b: (f64, f64)| (a.0 - p) * (b.1 - q) - (b.0 - p) * (a.1 - q);
            let area = edge(v(0), v(1)) + edge(v(1), v(2)) + edge(v(2), v(0));
            let bary =
                [edge(v(1), v(2)), edge(v(2), v(0)), edge(v(0), v(1))].map(|e| (e / area) as f32);
            lanes.push(Lane {
                lane: i,
                pixel: ((px - 0.5) as u32, (py - 0.5) as u32),
                alive: true,
                fragment: Fragment {
                    command: 0,
                    draw: tag.tag.0,
                    label: None,
                    primitive,
                    front: tri.front,
                    barycentric: bary,
                    depth: 0.0,
                    stages: Vec::new(),
                    discarded_by: None,
                },
            });
        }
        if lanes.is_empty() {
            return None;
        }
        Some(Rec {
            before_test: Vec::new(),
            before_write: Vec::new(),
            source: Vec::new(),
            nvar,
            state: *state,
            vertices: (0..3)
                .flat_map(|i| [v(i).0 as f32, v(i).1 as f32])
                .collect(),
            lanes,
        })
    }

    /// Hands the fragments to the probe.
    pub fn finish(self, tag: &ProbeTag) {
        for l in self.lanes {
            tag.probe.push((tag.tag, l.pixel, l.fragment));
        }
    }

    /// The stored depth and stencil of each probed pixel before a test.
    fn stored(&self, depth: &[f32], stencil: &[u8]) -> Vec<(f32, u8)> {
        self.lanes
            .iter()
            .map(|l| (depth[l.lane], stencil[l.lane]))
            .collect()
    }

    /// Each probed lane with the stages recorded so far (taken out, for the shader to add
    /// its own: `FragmentShader::shade_probed`).
    fn take_stages(&mut self) -> Vec<(usize, Vec<Stage>)> {
        self.lanes
            .iter_mut()
            .map(|l| (l.lane, std::mem::take(&mut l.fragment.stages)))
            .collect()
    }

    /// Puts back what [`Rec::take_stages`] took, with the shader's stages added.
    fn put_stages(&mut self, stages: Vec<(usize, Vec<Stage>)>) {
        for (l, (_, s)) in self.lanes.iter_mut().zip(stages) {
            l.fragment.stages = s;
        }
    }

    /// The stored colours before the write.
    fn stored_color(&self, color: &[[u8; 4]]) -> Vec<[u8; 4]> {
        self.lanes.iter().map(|l| color[l.lane]).collect()
    }

    /// The colours entering the blend.
    fn source(&self, s: &Scratch) -> Vec<Vec4> {
        self.lanes
            .iter()
            .map(|l| color_at(&s.color, l.lane))
            .collect()
    }
}

/// What the fragment path tells a recorder between its stages (`FragmentPath::staged`,
/// generic over it). Every method's default does nothing, so [`Unprobed`] costs nothing.
pub(crate) trait Recorder {
    /// After the depth plane: where each fragment is.
    fn rasterized(&mut self, _s: &Scratch) {}
    /// Before the depth/stencil test, with the target's values.
    fn testing(&mut self, _depth: &[f32], _stencil: &[u8]) {}
    /// After the depth/stencil test.
    fn tested(&mut self, _s: &Scratch, _depth: &[f32], _stencil: &[u8]) {}
    /// After interpolation (the first `nflat` varyings flat, `skip` not interpolated).
    fn interpolated(&mut self, _s: &Scratch, _nflat: usize, _skip: &Range<usize>) {}
    /// Runs the shader (recording its stages when probed).
    #[inline(always)]
    fn shade(
        &mut self,
        shader: &dyn FragmentShader,
        level: Level,
        span: &SpanCtx<'_>,
        s: &mut Scratch,
    ) {
        shader.shade(level, span, s);
    }
    /// The vertex colour is the fragment colour (no shader).
    fn vertex_color(&mut self, _s: &Scratch) {}
    /// After the alpha test of the alphas `a`.
    fn alpha_tested(&mut self, _a: &[f32], _mask: &[i32]) {}
    /// Before blending and the write, with the target's colours.
    fn writing(&mut self, _s: &Scratch, _color: &[[u8; 4]], _blending: bool) {}
    /// After blending.
    fn blended(&mut self, _s: &Scratch) {}
    /// After the colour write (`from_var`: the colour came from the varyings).
    fn written(&mut self, _s: &Scratch, _color: &[[u8; 4]], _from_var: bool) {}
}

/// The recorder of an unprobed batch: records nothing.
pub(crate) struct Unprobed;

impl Recorder for Unprobed {}

impl Recorder for Rec {
    fn rasterized(&mut self, s: &Scratch) {
        for l in &mut self.lanes {
            let z = s.z[l.lane];
            l.fragment.depth = z;
            let (x, y) = l.pixel;
            let stage = Stage::new("rasterize")
                .input(
                    "pixel_centre",
                    Value::Floats(vec![x as f32 + 0.5, y as f32 + 0.5]),
                )
                .input("triangle_xy", Value::Floats(self.vertices.clone()))
                .input("front_facing", l.fragment.front)
                .output(
                    "barycentric",
                    Value::Floats(l.fragment.barycentric.to_vec()),
                )
                .output("depth", z);
            l.push(stage);
        }
    }
    fn testing(&mut self, depth: &[f32], stencil: &[u8]) {
        self.before_test = self.stored(depth, stencil);
    }
    fn tested(&mut self, s: &Scratch, depth: &[f32], stencil: &[u8]) {
        let before = std::mem::take(&mut self.before_test);
        let st = self.state.stencil;
        let d = self.state.depth;
        for (l, (d0, st0)) in self.lanes.iter_mut().zip(before) {
            if !l.alive {
                continue;
            }
            let i = l.lane;
            if st.enabled {
                let pass = s.spass[i] != 0;
                let op = match (pass, s.dmask[i] != 0) {
                    (false, _) => st.fail,
                    (true, false) => st.depth_fail,
                    (true, true) => st.pass,
                };
                l.push(
                    Stage::new("stencil_test")
                        .input("stored", st0)
                        .input("reference", st.reference)
                        .input("read_mask", st.read_mask)
                        .input("func", words(st.func))
                        .output("pass", pass)
                        .output("op", words(op))
                        .output("write_mask", st.write_mask)
                        .output("stencil", stencil[i]),
                );
                if !pass {
                    l.discard(Discard::Stencil);
                    continue;
                }
            }
            let pass = if st.enabled {
                s.dmask[i] != 0
            } else {
                s.mask[i] != 0
            };
            l.push(
                Stage::new("depth_test")
                    .input("fragment", s.z[i])
                    .input("stored", d0)
                    .input("func", words(d.func))
                    .input("write", d.write)
                    .output("pass", pass)
                    .output("depth", depth[i]),
            );
            if !pass {
                l.discard(Discard::Depth);
            }
        }
    }
    fn interpolated(&mut self, s: &Scratch, nflat: usize, skip: &Range<usize>) {
        let nvar = self.nvar;
        for l in &mut self.lanes {
            let i = l.lane;
            let vars: Vec<f32> = (0..nvar)
                .filter(|k| !skip.contains(k))
                .map(|k| s.var[k][i])
                .collect();
            l.push(
                Stage::new("interpolate")
                    .input("flat_varyings", nflat as u32)
                    .output("w", s.w[i])
                    .output("varyings", Value::Floats(vars)),
            );
        }
    }
    fn shade(
        &mut self,
        shader: &dyn FragmentShader,
        level: Level,
        span: &SpanCtx<'_>,
        s: &mut Scratch,
    ) {
        let mut lanes = self.take_stages();
        shader.shade_probed(level, span, s, &mut lanes);
        self.put_stages(lanes);
    }
    fn vertex_color(&mut self, s: &Scratch) {
        for l in &mut self.lanes {
            let c = color_at(&s.var[..4], l.lane);
            l.push(Stage::new("vertex_color").output("color", c));
        }
    }
    fn alpha_tested(&mut self, a: &[f32], mask: &[i32]) {
        let t = self.state.alpha_test;
        for l in self.lanes.iter_mut().filter(|l| l.alive) {
            let pass = mask[l.lane] != 0;
            l.push(
                Stage::new("alpha_test")
                    .input("alpha", a[l.lane])
                    .input("reference", t.reference)
                    .input("func", words(t.func))
                    .output("pass", pass),
            );
            if !pass {
                l.discard(Discard::Alpha);
            }
        }
    }
    fn writing(&mut self, s: &Scratch, color: &[[u8; 4]], blending: bool) {
        self.before_write = self.stored_color(color);
        if blending {
            self.source = self.source(s);
        }
    }
    fn blended(&mut self, s: &Scratch) {
        let src = std::mem::take(&mut self.source);
        let b = self.state.blend;
        let factors = format!(
            "rgb {} {} {}, alpha {} {} {}",
            words(b.src_rgb),
            words(b.eq_rgb),
            words(b.dst_rgb),
            words(b.src_alpha),
            words(b.eq_alpha),
            words(b.dst_alpha)
        );
        for (l, src) in self.lanes.iter_mut().zip(src) {
            if !l.alive {
                continue;
            }
            let i = l.lane;
            l.push(
                Stage::new("blend")
                    .input("source", src)
                    .input("destination", color_at(&s.dst, i))
                    .input("equation", factors.as_str())
                    .output("source_factor", color_at(&s.sf, i))
                    .output("destination_factor", color_at(&s.df, i))
                    .output("color", color_at(&s.color, i)),
            );
        }
    }
    fn written(&mut self, s: &Scratch, color: &[[u8; 4]], from_var: bool) {
        let before = std::mem::take(&mut self.before_write);
        let mask: String = ['r', 'g', 'b', 'a']
            .iter()
            .zip(self.state.color_mask)
            .map(|(&c, on)| if on { c } else { '-' })
            .collect();
        for (l, before) in self.lanes.iter_mut().zip(before) {
            if !l.alive {
                continue;
            }
            let i = l.lane;
            let c = if from_var {
                color_at(&s.var[..4], i)
            } else {
                color_at(&s.color, i)
            };
            l.push(
                Stage::new("write")
                    .input("color", c)
                    .input("color_mask", mask.as_str())
                    .input("stored", before)
                    .output("stored", color[i]),
            );
        }
    }
}
