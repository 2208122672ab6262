//! The physically based fragment shader (`shading::pbr`): per batch, the material's
//! textures are sampled by the same 8-lane kernels as the fixed-function units (each into
//! its own scratch rows, sRGB ones decoded after filtering), then the surface normal, the
//! view vector and the lights are evaluated eight pixels at a time ([`lit_lanes`] computes
//! [`pbr::shade_pixel`]'s bits in every lane), and the colour is finished per pixel
//! ([`pbr::finish`]: exposure, tone map, encoding).

use std::sync::Arc;

use fearless_simd::{f32x8, prelude::*, Level, Simd};
use glam::{Vec3, Vec4};

use crate::base::vec_lanes::{self as vl, LANES, V3};
use crate::fragment::fixed_stages::{coords, sample_aniso_lanes, sample_lanes};
use crate::fragment::scratch::{FragmentShader, Scratch, SpanCtx, SPAN};
use crate::history::{Stage as ExplainStage, Value};
use crate::shading::environment::{PbrEnvironment, MIN_ALPHA2};
use crate::shading::light::PreparedLight;
use crate::shading::pbr::{self, PbrLight, PbrMaterial, PbrOutput};
use crate::texture::lanes::{lod_batch, LaneFilter};
use crate::texture::{Sampler, Texture};

/// A material texture as the shader samples it.
pub(crate) struct PbrUnit {
    pub texture: Arc<Texture>,
    pub sampler: Sampler,
    pub filter: LaneFilter,
    /// The first of its `(s, t, q)` planes.
    pub plane: usize,
}

/// Rows of `Scratch::pbr`.
const METALLIC: usize = 0;
const ROUGHNESS: usize = 1;
const NORMAL: usize = 2;
const OCCLUSION: usize = 5;
const EMISSIVE: usize = 6;

/// The material's textures, in the order the shader samples them.
pub(crate) struct PbrUnits {
    pub base: Option<PbrUnit>,
    pub metallic_roughness: Option<PbrUnit>,
    pub normal: Option<PbrUnit>,
    pub occlusion: Option<PbrUnit>,
    pub emissive: Option<PbrUnit>,
}

/// The PBR shader of one draw.
pub(crate) struct PbrShader {
    pub material: PbrMaterial,
    pub units: PbrUnits,
    pub lights: Vec<PbrLight>,
    pub ambient: Vec3,
    pub output: PbrOutput,
    /// Image-based light.
    pub environment: Option<PbrEnvironment>,
    /// Eye position (3) then eye normal (3) in the varyings.
    pub at: usize,
    /// Eye tangent and handedness (4), when there is a normal map.
    pub tangent: Option<usize>,
    /// Orthographic projection: the view vector is `+z` everywhere.
    pub ortho: bool,
    /// The units' `(s, t, q)` varyings (never interpolated: their planes are read).
    pub skip: std::ops::Range<usize>,
}

impl PbrShader {
    /// Samples `u` for the batch's first `np` pixels into `s.tex`.
    #[inline(always)]
    fn sample<S: Simd>(simd: S, u: &PbrUnit, span: &SpanCtx<'_>, np: usize, s: &mut Scratch) {
        let planes = &span.planes[u.plane..u.plane + 9];
        if u.sampler.max_anisotropy > 1 {
            sample_aniso_lanes(simd, (&u.texture, &u.sampler, u.filter), planes, np, s);
        } else {
            coords(planes, u.texture.base_size(), np, s);
            lod_batch(simd, &u.sampler, &mut s.tl[..np]);
            sample_lanes(simd, &u.texture, u.filter, np, s);
        }
    }

    /// The textures' values per pixel: base colour (linear RGBA) into `color`, metallic,
    /// roughness, tangent-space normal, occlusion and emission into `pbr`.
    #[inline(always)]
    fn textures<S: Simd>(&self, simd: S, span: &SpanCtx<'_>, np: usize, s: &mut Scratch) {
        let u = &self.units;
        if let Some(t) = &u.base {
            Self::sample(simd, t, span, np, s);
            for c in 0..3 {
                for (x, &t) in s.color[c][..np].iter_mut().zip(&s.tex[c][..np]) {
                    *x = pbr::srgb_to_linear(t);
                }
            }
            s.color[3][..np].copy_from_slice(&s.tex[3][..np]);
        } else {
            for c in &mut s.color {
                c[..np].fill(1.0);
            }
        }
        if let Some(t) = &u.metallic_roughness {
            Self::sample(simd, t, span, np, s);
            s.pbr[METALLIC][..np].copy_from_slice(&s.tex[2][..np]);
            s.pbr[ROUGHNESS][..np].copy_from_slice(&s.tex[1][..np]);
        } else {
            s.pbr[METALLIC][..np].fill(1.0);
            s.pbr[ROUGHNESS][..np].fill(1.0);
        }
        if let Some(t) = &u.normal {
            Self::sample(simd, t, span, np, s);
            let k = self.material.normal_scale;
            for c in 0..3 {
                let scale = if c < 2 { k } else { 1.0 };
                for (x, &t) in s.pbr[NORMAL + c][..np].iter_mut().zip(&s.tex[c][..np]) {
                    *x = (t * 2.0 - 1.0) * scale;
                }
            }
        }
        if let Some(t) = &u.occlusion {
            Self::sample(simd, t, span, np, s);
            let k = self.material.occlusion_strength;
            for (x, &t) in s.pbr[OCCLUSION][..np].iter_mut().zip(&s.tex[0][..np]) {
                *x = 1.0 + k * (t - 1.0);
            }
        } else {
            s.pbr[OCCLUSION][..np].fill(1.0);
        }
        if let Some(t) = &u.emissive {
            Self::sample(simd, t, span, np, s);
            for c in 0..3 {
                for (x, &t) in s.pbr[EMISSIVE + c][..np].iter_mut().zip(&s.tex[c][..np]) {
                    *x = pbr::srgb_to_linear(t);
                }
            }
        } else {
            for c in 0..3 {
                s.pbr[EMISSIVE + c][..np].fill(1.0);
            }
        }
    }

    #[inline(always)]
    fn run<S: Simd, const PROBE: bool>(&self, simd: S, span: &SpanCtx<'_>, s: &mut Scratch) {
        let np = span.len.next_multiple_of(LANES).min(SPAN);
        self.textures(simd, span, np, s);
        if PROBE {
            // The textured base colour, kept for `describe` (`color` is overwritten).
            for c in 0..4 {
                let (prim, color) = (&mut s.prim[c], &s.color[c]);
                prim[..np].copy_from_slice(&color[..np]);
            }
        }
        let m = &self.material;
        let flip = m.double_sided && !span.tri.front;
        let zero = simd.splat_f32x8(0.0);
        let one = simd.splat_f32x8(1.0);
        let ld = |rows: &[[f32; SPAN]], k: usize, g: usize| {
            f32x8::from_slice(simd, &rows[k][g..g + LANES])
        };
        for g in (0..np).step_by(LANES) {
            let (var, col, p) = (&s.var, &s.color, &s.pbr);
            let mut base = [zero; 4];
            for (c, b) in base.iter_mut().enumerate() {
                *b = simd.splat_f32x8(m.base_color[c]) * ld(var, c, g) * ld(col, c, g);
            }
            let mut emissive = [zero; 3];
            for (c, e) in emissive.iter_mut().enumerate() {
                *e = simd.splat_f32x8(m.emissive[c]) * ld(p, EMISSIVE + c, g);
            }
            let at = self.at;
            let pos = [ld(var, at, g), ld(var, at + 1, g), ld(var, at + 2, g)];
            let n0 = vl::normalize_or_zero3(
                simd,
                [ld(var, at + 3, g), ld(var, at + 4, g), ld(var, at + 5, g)],
            );
            let mut n = n0;
            if let (Some(tg), true) = (self.tangent, self.units.normal.is_some()) {
                let t0 = [ld(var, tg, g), ld(var, tg + 1, g), ld(var, tg + 2, g)];
                let w = ld(var, tg + 3, g);
                // Gram–Schmidt: T ⟂ N, B = (N × T)·sign(w).
                let t =
                    vl::normalize_or_zero3(simd, vl::sub3(t0, vl::scale3(vl::dot3(n0, t0), n0)));
                let sign = w.simd_lt(zero).select(-one, one);
                let b = vl::scale3(sign, cross3(n0, t));
                let nt = [ld(p, NORMAL, g), ld(p, NORMAL + 1, g), ld(p, NORMAL + 2, g)];
                let pert = vl::add3(
                    vl::add3(vl::scale3(nt[0], t), vl::scale3(nt[1], b)),
                    vl::scale3(nt[2], n0),
                );
                n = vl::normalize_or_zero3(simd, pert);
            }
            if flip {
                n = vl::neg3(n);
            }
            let view = if self.ortho {
                [zero, zero, one]
            } else {
                vl::normalize_or_zero3(simd, vl::neg3(pos))
            };
            let surface = SurfaceLanes {
                pos,
                normal: n,
                base: [base[0], base[1], base[2]],
                metallic: simd.splat_f32x8(m.metallic) * ld(p, METALLIC, g),
                roughness: simd.splat_f32x8(m.roughness) * ld(p, ROUGHNESS, g),
                occlusion: ld(p, OCCLUSION, g),
                emissive,
            };
            let lit = lit_lanes(
                simd,
                &surface,
                view,
                &self.lights,
                self.ambient,
                self.environment.as_ref(),
            );
            let alpha = if m.opaque {
                one
            } else {
                vl::sat(simd, base[3])
            };
            for (c, x) in lit.iter().enumerate() {
                x.store_slice(&mut s.color[c][g..g + LANES]);
            }
            alpha.store_slice(&mut s.color[3][g..g + LANES]);
        }
        for i in 0..np {
            let c = Vec3::new(s.color[0][i], s.color[1][i], s.color[2][i]);
            let out = pbr::finish(&self.output, c);
            (s.color[0][i], s.color[1][i], s.color[2][i]) = (out.x, out.y, out.z);
        }
    }
}

/// `a × b` in glam's order.
#[inline(always)]
fn cross3<S: Simd>(a: V3<S>, b: V3<S>) -> V3<S> {
    [
        a[1] * b[2] - b[1] * a[2],
        a[2] * b[0] - b[2] * a[0],
        a[0] * b[1] - b[0] * a[1],
    ]
}

/// [`pbr::SurfacePoint`] for eight pixels.
pub(crate) struct SurfaceLanes<S: Simd> {
    pub pos: V3<S>,
    pub normal: V3<S>,
    pub base: V3<S>,
    pub metallic: f32x8<S>,
    pub roughness: f32x8<S>,
    pub occlusion: f32x8<S>,
    pub emissive: V3<S>,
}

/// [`pbr::shade_pixel`] in lanes: the same expressions in the same order.
#[inline(always)]
pub(crate) fn lit_lanes<S: Simd>(
    simd: S,
    p: &SurfaceLanes<S>,
    view: V3<S>,
    lights: &[PbrLight],
    ambient: Vec3,
    env_light: Option<&PbrEnvironment>,
) -> V3<S> {
    let zero = simd.splat_f32x8(0.0);
    let one = simd.splat_f32x8(1.0);
    let n = p.normal;
    let m = vl::sat(simd, p.metallic);
    let r = vl::sat(simd, p.roughness);
    let a = r * r;
    let a2 = vl::max_or(a * a, simd.splat_f32x8(MIN_ALPHA2));
    let one_m = one - m;
    let c_diff = vl::scale3(one_m, p.base);
    let f0s = simd.splat_f32x8(0.04) * one_m;
    let f0 = [
        f0s + p.base[0] * m,
        f0s + p.base[1] * m,
        f0s + p.base[2] * m,
    ];
    let n_v = vl::sat(simd, vl::dot3(n, view));
    let a2m1 = a2 - one;
    let one_a2 = one - a2;
    let gv_root = (n_v * n_v * one_a2 + a2).sqrt();
    let mut lo = [zero; 3];
    for l in lights {
        let (to_light, factor) = if l.light.kind == PreparedLight::DIRECTIONAL {
            (vl::splat3(simd, l.light.vector), one)
        } else {
            let (v, mut f) = l.light.attenuation_lanes(simd, p.pos);
            if let Some(inv) = l.inv_range {
                let d = vl::length3(vl::sub3(vl::splat3(simd, l.light.vector), p.pos));
                f *= vl::per_lane(simd, d * simd.splat_f32x8(inv), pbr::range_window);
            }
            (v, f)
        };
        let e = vl::scale3(factor, vl::splat3(simd, l.irradiance));
        let n_l_raw = vl::dot3(n, to_light);
        let lit = n_l_raw.simd_gt(zero);
        let h = vl::normalize_or_zero3(simd, vl::add3(to_light, view));
        let n_l = vl::sat(simd, n_l_raw);
        let n_h = vl::sat(simd, vl::dot3(n, h));
        let v_h = vl::sat(simd, vl::dot3(view, h));
        let x = one - v_h;
        let x2 = x * x;
        let fw = x2 * x2 * x;
        let d = n_h * n_h * a2m1 + one;
        let dist = a2 / (simd.splat_f32x8(core::f32::consts::PI) * (d * d));
        let gv = n_l * gv_root;
        let gl = n_v * (n_l * n_l * one_a2 + a2).sqrt();
        let sum = gv + gl;
        let vis = sum.simd_gt(zero).select(simd.splat_f32x8(0.5) / sum, zero);
        let dv = dist * vis;
        for c in 0..3 {
            let f = f0[c] + (one - f0[c]) * fw;
            let diffuse = (one - f) * c_diff[c] * simd.splat_f32x8(core::f32::consts::FRAC_1_PI);
            let spec = f * dv;
            let add = lo[c] + (diffuse + spec) * (e[c] * n_l);
            lo[c] = lit.select(add, lo[c]);
        }
    }
    // The uniform environment (`pbr::ambient_channel`).
    let env = EnvLanes::new(simd, n_v, r);
    let amb = vl::splat3(simd, ambient);
    let f0_dielectric = simd.splat_f32x8(0.04);
    let ibl = env_light.map(|e| ibl_lanes(simd, e, &env, [n, view, p.base], [m, r]));
    // A loop, not `array::map`: its closure was compiled outside the dispatch's target
    // features, every lane operation a call (callgrind).
    let mut out = [zero; 3];
    for (c, o) in out.iter_mut().enumerate() {
        let dielectric = env.lobe(amb[c], f0_dielectric, p.base[c]);
        let metal = env.lobe(amb[c], p.base[c], zero);
        let mut env = dielectric + (metal - dielectric) * m;
        if let Some(ibl) = &ibl {
            env += ibl[c];
        }
        *o = lo[c] + env * p.occlusion + p.emissive[c];
    }
    out
}

/// The image-based light per lane, through the scalar definition ([`pbr::ibl_radiance`],
/// [`pbr::ibl_combine`] with the ambient term's `fw` and table values from `env`), so the
/// lanes give its bits: `mr` the clamped metallic and roughness.
#[inline(always)]
fn ibl_lanes<S: Simd>(
    simd: S,
    e: &PbrEnvironment,
    env: &EnvLanes<S>,
    [n, view, base]: [V3<S>; 3],
    [m, r]: [f32x8<S>; 2],
) -> V3<S> {
    let lane = |v: f32x8<S>| -> [f32; LANES] { v.into() };
    let v3 = |v: V3<S>| [lane(v[0]), lane(v[1]), lane(v[2])];
    let (n, view, base) = (v3(n), v3(view), v3(base));
    let (ml, rl) = (lane(m), lane(r));
    let (fw, ta, tb) = (lane(env.fw), lane(env.ta), lane(env.tb));
    let at = |v: &[[f32; LANES]; 3], i: usize| Vec3::new(v[0][i], v[1][i], v[2][i]);
    let mut out = [[0.0f32; LANES]; 3];
    for i in 0..LANES {
        let (diff, spec) = pbr::ibl_radiance(e, at(&n, i), at(&view, i), rl[i]);
        let c = pbr::ibl_combine(
            at(&base, i),
            [ml[i], rl[i]],
            fw[i],
            [ta[i], tb[i]],
            spec,
            diff,
        );
        [out[0][i], out[1][i], out[2][i]] = c.to_array();
    }
    out.map(|c| f32x8::from_slice(simd, &c))
}

/// The per-pixel terms of the uniform environment shared by its two lobes.
struct EnvLanes<S: Simd> {
    one: f32x8<S>,
    fw: f32x8<S>,
    one_r: f32x8<S>,
    ta: f32x8<S>,
    tb: f32x8<S>,
    ems: f32x8<S>,
    inv21: f32x8<S>,
}

impl<S: Simd> EnvLanes<S> {
    /// The terms at clamped `N·V` and roughness, the split-sum table read per lane.
    #[inline(always)]
    fn new(simd: S, n_v: f32x8<S>, r: f32x8<S>) -> EnvLanes<S> {
        let one = simd.splat_f32x8(1.0);
        let nv: [f32; LANES] = n_v.into();
        let rr: [f32; LANES] = r.into();
        let (mut ta, mut tb) = ([0.0f32; LANES], [0.0f32; LANES]);
        for i in 0..LANES {
            [ta[i], tb[i]] = pbr::env_brdf(nv[i], rr[i]);
        }
        let (ta, tb) = (f32x8::from_slice(simd, &ta), f32x8::from_slice(simd, &tb));
        let x = one - n_v;
        let x2 = x * x;
        let fw = x2 * x2 * x;
        EnvLanes {
            one,
            fw,
            one_r: one - r,
            ta,
            tb,
            ems: one - (ta + tb),
            inv21: simd.splat_f32x8(1.0 / 21.0),
        }
    }

    /// [`pbr::ambient_channel`] in lanes, the same expressions in the same order.
    #[inline(always)]
    fn lobe(&self, a: f32x8<S>, f0: f32x8<S>, c_diff: f32x8<S>) -> f32x8<S> {
        let one = self.one;
        let k_s = f0 + (vl::max_or(self.one_r, f0) - f0) * self.fw;
        let fss_ess = k_s * self.ta + self.tb;
        let f_avg = f0 + (one - f0) * self.inv21;
        let fms_ems = self.ems * fss_ess * f_avg / (one - f_avg * self.ems);
        let k_d = c_diff * (one - fss_ess - fms_ems);
        a * (fss_ess + fms_ems + k_d)
    }
}

impl FragmentShader for PbrShader {
    fn uses_varyings(&self) -> bool {
        true
    }

    fn skip_varyings(&self) -> std::ops::Range<usize> {
        self.skip.clone()
    }

    fn shade(&self, level: Level, span: &SpanCtx<'_>, s: &mut Scratch) {
        crate::base::simd::dispatch_shader!(level, simd => self.run::<_, false>(simd, span, s));
    }

    fn shade_probed(
        &self,
        level: Level,
        span: &SpanCtx<'_>,
        s: &mut Scratch,
        out: &mut [(usize, Vec<ExplainStage>)],
    ) {
        crate::base::simd::dispatch_shader!(level, simd => self.run::<_, true>(simd, span, s));
        for (lane, stages) in out {
            stages.extend(self.describe(span, s, *lane));
        }
    }
}

impl PbrShader {
    /// Lane `i`'s surface point and view vector, by the scalar definition of what `run`
    /// computes in lanes (the same expressions in the same order).
    fn point_at(&self, span: &SpanCtx<'_>, s: &Scratch, i: usize) -> (pbr::SurfacePoint, Vec3) {
        let m = &self.material;
        let (v, p) = (|k: usize| s.var[k][i], |k: usize| s.pbr[k][i]);
        let v3 = |k: usize| Vec3::new(v(k), v(k + 1), v(k + 2));
        let pos = v3(self.at);
        let n0 = v3(self.at + 3).normalize_or_zero();
        let mut n = n0;
        if let (Some(tg), true) = (self.tangent, self.units.normal.is_some()) {
            let t0 = v3(tg);
            let t = (t0 - n0 * n0.dot(t0)).normalize_or_zero();
            let b = n0.cross(t) * if v(tg + 3) < 0.0 { -1.0 } else { 1.0 };
            let nt = Vec3::new(p(NORMAL), p(NORMAL + 1), p(NORMAL + 2));
            n = (t * nt.x + b * nt.y + n0 * nt.z).normalize_or_zero();
        }
        if m.double_sided && !span.tri.front {
            n = -n;
        }
        let view = if self.ortho {
            Vec3::Z
        } else {
            (-pos).normalize_or_zero()
        };
        let tex = |c: usize| s.prim[c][i];
        let base = Vec4::new(
            m.base_color.x * v(0) * tex(0),
            m.base_color.y * v(1) * tex(1),
            m.base_color.z * v(2) * tex(2),
            m.base_color.w * v(3) * tex(3),
        );
        let point = pbr::SurfacePoint {
            position: pos,
            normal: n,
            base,
            metallic: m.metallic * p(METALLIC),
            roughness: m.roughness * p(ROUGHNESS),
            occlusion: p(OCCLUSION),
            emissive: m.emissive * Vec3::new(p(EMISSIVE), p(EMISSIVE + 1), p(EMISSIVE + 2)),
        };
        (point, view)
    }

    /// What the shader did at lane `i` of a probed batch, recomputed by the scalar
    /// definition (`pbr::shade_pixel` and its terms) from the lane's varyings and texture
    /// values: the material, each light's BRDF terms and contribution, the uniform
    /// environment's, and the output transform.
    fn describe(&self, span: &SpanCtx<'_>, s: &Scratch, i: usize) -> Vec<ExplainStage> {
        let m = &self.material;
        let floats = |x: Vec3| Value::Floats(x.to_array().to_vec());
        let (point, view) = self.point_at(span, s, i);
        let (pos, n, base) = (point.position, point.normal, point.base);
        let mut stages = vec![ExplainStage::new("pbr_material")
            .input("base_color_linear", base)
            .input("metallic", point.metallic)
            .input("roughness", point.roughness)
            .input("occlusion", point.occlusion)
            .input("emissive", floats(point.emissive))
            .output("normal", floats(n))
            .output("view", floats(view))];
        let n_v = crate::base::math::saturate(n.dot(view));
        for (k, l) in self.lights.iter().enumerate() {
            let (to_light, e) = l.incident(pos);
            let n_l = n.dot(to_light);
            let mut st = ExplainStage::new(format!("pbr_light{k}"))
                .input("to_light", floats(to_light))
                .input("irradiance", floats(e))
                .input("n_dot_l", n_l);
            if n_l > 0.0 {
                let h = (to_light + view).normalize_or_zero();
                let sat = crate::base::math::saturate;
                let cos = [sat(n_l), n_v, sat(n.dot(h)), sat(view.dot(h))];
                let t = pbr::brdf(cos, base.truncate(), point.metallic, point.roughness);
                st = st
                    .output("D", t.distribution)
                    .output("F", floats(t.fresnel))
                    .output("V", t.visibility)
                    .output("diffuse", floats(t.diffuse))
                    .output("specular", floats(t.specular))
                    .output("radiance", floats((t.diffuse + t.specular) * (e * cos[0])));
            } else {
                st = st.output("lit", false);
            }
            stages.push(st);
        }
        let env = self.environment.as_ref();
        let none = pbr::shade_pixel(
            &pbr::SurfacePoint {
                occlusion: 0.0,
                ..point
            },
            view,
            &self.lights,
            self.ambient,
            env,
        );
        let lit = pbr::shade_pixel(&point, view, &self.lights, self.ambient, env);
        let sat = crate::base::math::saturate;
        let mut st = ExplainStage::new("pbr_environment")
            .input("ambient", floats(self.ambient))
            .input("n_dot_v", n_v)
            .input("split_sum", {
                let [a, b] = pbr::env_brdf(n_v, sat(point.roughness));
                Value::Floats(vec![a, b])
            });
        if let Some(e) = env {
            // The map's radiance around N and along the reflection, and what the lobes make
            // of each (before occlusion): the specular part, then the diffuse part.
            let mr = [sat(point.metallic), sat(point.roughness)];
            let b = base.truncate();
            let (diff, spec) = pbr::ibl_radiance(e, n, view, mr[1]);
            let (x, x2) = (1.0 - n_v, (1.0 - n_v) * (1.0 - n_v));
            let fw = x2 * x2 * x;
            let ab = pbr::env_brdf(n_v, mr[1]);
            st = st
                .input("environment_diffuse", floats(diff))
                .input("environment_specular", floats(spec))
                .output(
                    "environment_specular_part",
                    floats(pbr::ibl_combine(b, mr, fw, ab, spec, Vec3::ZERO)),
                )
                .output(
                    "environment_diffuse_part",
                    floats(pbr::ibl_combine(b, mr, fw, ab, Vec3::ZERO, diff)),
                );
        }
        stages.push(st.output("radiance", floats(lit - none)));
        let alpha = if m.opaque {
            1.0
        } else {
            crate::base::math::saturate(base.w)
        };
        stages.push(
            ExplainStage::new("pbr_output")
                .input("linear", floats(lit))
                .input("exposure", self.output.exposure)
                .input("tone_map", format!("{:?}", self.output.tone_map))
                .input("encoding", format!("{:?}", self.output.encoding))
                .output("color", pbr::finish(&self.output, lit).extend(alpha)),
        );
        stages
    }
}

/// The lanes and the scalar definition agree bit for bit at every level.
#[cfg(feature = "internal-tests")]
pub(crate) mod tests {
    /// Every test of this module (run by `tests/unit.rs`).
    pub(crate) const TESTS: &[(&str, fn())] = &[(
        "lit_lanes_equal_shade_pixel_at_every_level",
        lit_lanes_equal_shade_pixel_at_every_level,
    )];

    use super::*;
    use crate::base::rng::XorShift64;
    use crate::base::simd::SimdLevel;
    use crate::shading::environment::Environment;
    use crate::shading::light::{Light, LightKind};
    use crate::shading::pbr::{prepare_lights, shade_pixel, SurfacePoint};

    fn lit_lanes_equal_shade_pixel_at_every_level() {
        let lights = [
            Light::new(LightKind::Directional {
                direction: Vec3::new(0.3, -1.0, -0.4),
            })
            .with_diffuse(Vec3::new(1.0, 0.9, 0.8))
            .with_intensity(3.0),
            Light {
                range: Some(6.0),
                ..Light::new(LightKind::Point {
                    position: Vec3::new(1.0, 2.0, -3.0),
                })
                .with_diffuse(Vec3::ONE)
                .with_intensity(1.0)
                .with_attenuation([0.0, 0.0, 1.0 / 40.0])
            },
            Light {
                spot_inner_deg: Some(10.0),
                ..Light::new(LightKind::Spot {
                    position: Vec3::new(-1.0, 1.0, 0.0),
                    direction: Vec3::new(0.2, -0.3, -1.0),
                    cutoff_deg: 30.0,
                    exponent: 0.0,
                })
                .with_diffuse(Vec3::new(0.2, 0.4, 1.0))
                .with_ambient(Vec3::splat(0.1))
                .with_intensity(5.0)
                .with_attenuation([0.0, 0.0, 0.2])
            },
        ];
        let (lights, ambient) = prepare_lights(&lights);
        let mut rng = XorShift64::new(53);
        let mut f = |lo: f32, hi: f32| lo + (hi - lo) * rng.next_f32();
        let points: Vec<SurfacePoint> = (0..64)
            .map(|k| SurfacePoint {
                position: Vec3::new(f(-2.0, 2.0), f(-2.0, 2.0), f(-8.0, -0.5)),
                normal: Vec3::new(f(-1.0, 1.0), f(-1.0, 1.0), f(-0.2, 1.0)).normalize_or_zero(),
                base: Vec4::new(f(0.0, 1.0), f(0.0, 1.0), f(0.0, 1.0), 1.0),
                metallic: if k % 4 == 0 { 1.0 } else { f(-0.1, 1.1) },
                roughness: if k % 5 == 0 { 0.0 } else { f(0.0, 1.0) },
                occlusion: f(0.0, 1.0),
                emissive: Vec3::new(f(0.0, 0.2), 0.0, f(0.0, 0.1)),
            })
            .collect();
        // Without and with an image-based light (the studio, turned, brighter).
        let studio = PbrEnvironment {
            map: Environment::studio(),
            intensity: 1.3,
            world_from_eye: glam::Mat3::from_rotation_y(0.7),
        };
        for (env, level) in [None, Some(&studio)]
            .into_iter()
            .flat_map(|e| SimdLevel::available().into_iter().map(move |l| (e, l)))
        {
            let level = level.to_level().unwrap();
            for chunk in points.chunks(LANES) {
                crate::base::simd::dispatch!(level, simd => {
                    let row = |f: &dyn Fn(&SurfacePoint) -> f32| {
                        let a: [f32; LANES] = core::array::from_fn(|i| f(&chunk[i]));
                        f32x8::from_slice(simd, &a)
                    };
                    let v3 = |f: &dyn Fn(&SurfacePoint) -> Vec3| {
                        [row(&|p| f(p).x), row(&|p| f(p).y), row(&|p| f(p).z)]
                    };
                    let lanes = SurfaceLanes {
                        pos: v3(&|p| p.position),
                        normal: v3(&|p| p.normal),
                        base: v3(&|p| p.base.truncate()),
                        metallic: row(&|p| p.metallic),
                        roughness: row(&|p| p.roughness),
                        occlusion: row(&|p| p.occlusion),
                        emissive: v3(&|p| p.emissive),
                    };
                    let view = vl::normalize_or_zero3(simd, vl::neg3(lanes.pos));
                    let got = lit_lanes(simd, &lanes, view, &lights, ambient, env);
                    for (i, p) in chunk.iter().enumerate() {
                        let want = shade_pixel(p, (-p.position).normalize_or_zero(), &lights, ambient, env);
                        let g: [[f32; LANES]; 3] = got.map(|x| x.into());
                        assert_eq!(
                            [g[0][i], g[1][i], g[2][i]].map(f32::to_bits),
                            want.to_array().map(f32::to_bits),
                            "{level:?} lane {i}: {p:?}"
                        );
                    }
                });
            }
        }
    }
}
