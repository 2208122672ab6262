//! The fixed-function vertex stage: per-vertex transform, lighting, texgen and fog, one
//! vertex at a time ([`VertexStage::run`]) or eight in lanes.

use fearless_simd::{f32x8, prelude::*, Level};
use glam::{Mat3, Mat4, Vec3, Vec4};

use crate::base::vec_lanes::{self as vl, LANES};
use crate::shading::fog::{fog_factor, FogDistance, FogMode};
use crate::shading::light::{LightingState, PreparedLighting};
use crate::vertex::MAX_VARYINGS;

use super::types::*;

/// Where each value sits in a fixed-function vertex's varyings.
#[derive(Clone, Copy, Debug)]
pub(super) struct Layout {
    /// Colour block (flat-shaded as a whole): primary RGBA, then secondary RGB if separate
    /// specular, then the back-face copies if two-sided vertex lighting.
    pub(super) colors: usize,
    pub(super) secondary: Option<usize>,
    pub(super) back: Option<usize>,
    /// `(s, t, q)` per unit.
    pub(super) units: usize,
    /// Fog factor (per vertex) or distance (per pixel).
    pub(super) fog: Option<usize>,
    /// Eye position and eye normal (Phong).
    pub(super) phong: Option<usize>,
    /// The eye-space normal for the target's normal plane (zero for a mesh without
    /// normals).
    pub(super) normal: Option<usize>,
    /// The eye-space unit tangent and its handedness `w` (PBR normal maps).
    pub(super) tangent: Option<usize>,
    pub(super) count: usize,
}

impl Layout {
    /// The layout of `ff`'s varyings, with the normal-plane normal when `normal_plane`.
    pub(super) fn new(ff: &FixedFunction, normal_plane: bool) -> Layout {
        let lit = ff.lighting.as_ref().is_some_and(LightingState::is_lit);
        let l = ff.lighting.unwrap_or_default();
        let vertex_lit = lit && !ff.per_pixel_lighting;
        let mut n = 4;
        let secondary = (vertex_lit && l.separate_specular).then(|| {
            n += 3;
            n - 3
        });
        let per_face = n;
        let back = (vertex_lit && l.two_sided).then(|| {
            n += per_face;
            n - per_face
        });
        let colors = n;
        let units = n;
        n += 3 * ff.units.len();
        let fog = ff.fog.map(|_| {
            n += 1;
            n - 1
        });
        let phong = (lit && ff.per_pixel_lighting).then(|| {
            n += 6;
            n - 6
        });
        let normal = normal_plane.then(|| {
            n += 3;
            n - 3
        });
        Layout {
            colors,
            secondary,
            back,
            units,
            fog,
            phong,
            normal,
            tangent: None,
            count: n,
        }
    }

    /// The layout of a PBR draw whose textures are `ff`'s units (and `ff` has no lighting
    /// and no fog): the colour, the units' `(s, t, q)`, the normal-plane normal, then the eye
    /// position and normal, then the tangent when `tangents`.
    pub(super) fn pbr(ff: &FixedFunction, normal_plane: bool, tangents: bool) -> Layout {
        let mut l = Layout::new(ff, normal_plane);
        l.phong = Some(l.count);
        l.count += 6;
        if tangents {
            l.tangent = Some(l.count);
            l.count += 4;
        }
        l
    }
}

/// Per-vertex work shared by all vertices of a draw.
pub(super) struct VertexStage<'a> {
    pub(super) mesh: &'a MeshInput<'a>,
    pub(super) ff: &'a FixedFunction,
    pub(super) layout: Layout,
    pub(super) clip_from_model: Mat4,
    pub(super) view_from_model: Mat4,
    pub(super) normal_matrix: Mat3,
    pub(super) lighting: Option<PreparedLighting>,
    /// Object-space tangents and handedness (PBR normal maps), transformed by the upper 3×3
    /// of `view_from_model` and normalised.
    pub(super) tangents: Option<&'a [Vec4]>,
}

impl<'a> VertexStage<'a> {
    /// The stage of one draw: its transforms, per-vertex lighting (`None` for none or per
    /// pixel) and, for a PBR normal map, the tangents.
    pub(super) fn new(
        mesh: &'a MeshInput<'a>,
        ff: &'a FixedFunction,
        layout: Layout,
        transforms: &Transforms,
        (lighting, tangents): (Option<PreparedLighting>, Option<&'a [Vec4]>),
    ) -> VertexStage<'a> {
        VertexStage {
            mesh,
            ff,
            layout,
            clip_from_model: transforms.clip_from_view * transforms.view_from_model,
            view_from_model: transforms.view_from_model,
            normal_matrix: Mat3::from_mat4(transforms.view_from_model)
                .inverse()
                .transpose(),
            lighting,
            tangents,
        }
    }
}

impl VertexStage<'_> {
    /// The scalar definition of one vertex: what [`VertexStage::run_lanes`] computes in
    /// every lane (the unit test holds every SIMD level to it).
    #[cfg(feature = "internal-tests")]
    pub(super) fn run(&self, i: usize, out: &mut crate::vertex::ClipVertex) {
        let m = self.mesh;
        let p = m.positions[i];
        let pos_eye = self.view_from_model.transform_point3(p);
        out.pos = self.clip_from_model * p.extend(1.0);
        let color = m.colors.map_or(Vec4::ONE, |c| c[i]);
        let normal = m
            .normals
            .map(|n| (self.normal_matrix * n[i]).normalize_or_zero());
        let v = &mut out.var;
        let l = &self.layout;
        match (&self.lighting, l.phong) {
            (Some(pl), None) => {
                let n = normal.unwrap_or(Vec3::Z);
                let front = pl.shade(pos_eye, n, color, true);
                v[..4].copy_from_slice(&front.primary.to_array());
                if let Some(o) = l.secondary {
                    v[o..o + 3].copy_from_slice(&front.secondary.to_array());
                }
                if let Some(b) = l.back {
                    let back = pl.shade(pos_eye, n, color, false);
                    v[b..b + 4].copy_from_slice(&back.primary.to_array());
                    if let Some(o) = l.secondary {
                        v[b + o..b + o + 3].copy_from_slice(&back.secondary.to_array());
                    }
                }
            }
            _ => v[..4].copy_from_slice(&color.to_array()),
        }
        for (k, u) in self.ff.units.iter().enumerate() {
            let stq = match u.texgen {
                TexGen::None => {
                    let uv = m.uvs[u.uv_set][i];
                    Vec4::new(uv.x, uv.y, 0.0, 1.0)
                }
                TexGen::ObjectLinear { planes } => {
                    let h = p.extend(1.0);
                    Vec4::new(
                        crate::base::math::dot4(planes[0], h),
                        crate::base::math::dot4(planes[1], h),
                        crate::base::math::dot4(planes[2], h),
                        crate::base::math::dot4(planes[3], h),
                    )
                }
                TexGen::EyeLinear { planes } => {
                    let h = pos_eye.extend(1.0);
                    Vec4::new(
                        crate::base::math::dot4(planes[0], h),
                        crate::base::math::dot4(planes[1], h),
                        crate::base::math::dot4(planes[2], h),
                        crate::base::math::dot4(planes[3], h),
                    )
                }
                TexGen::SphereMap => {
                    let u_eye = pos_eye.normalize_or_zero();
                    let n = normal.unwrap_or(Vec3::Z);
                    let r = u_eye - n * (2.0 * n.dot(u_eye));
                    let mm = 2.0 * (r.x * r.x + r.y * r.y + (r.z + 1.0) * (r.z + 1.0)).sqrt();
                    let mm = if mm > 0.0 { mm } else { 1.0 };
                    Vec4::new(r.x / mm + 0.5, r.y / mm + 0.5, 0.0, 1.0)
                }
            };
            let t = u.matrix * stq;
            let o = l.units + 3 * k;
            v[o] = t.x;
            v[o + 1] = t.y;
            v[o + 2] = t.w;
        }
        if let (Some(o), Some(fog)) = (l.fog, &self.ff.fog) {
            let d = fog.distance.distance(pos_eye);
            v[o] = if fog.per_pixel {
                d
            } else {
                fog_factor(&fog.mode, d)
            };
        }
        if let Some(o) = l.phong {
            v[o..o + 3].copy_from_slice(&pos_eye.to_array());
            v[o + 3..o + 6].copy_from_slice(&normal.unwrap_or(Vec3::Z).to_array());
            v[..4].copy_from_slice(&color.to_array());
        }
        if let Some(o) = l.normal {
            v[o..o + 3].copy_from_slice(&normal.unwrap_or(Vec3::ZERO).to_array());
        }
        if let (Some(o), Some(t)) = (l.tangent, self.tangents) {
            let t = t[i];
            let e = (Mat3::from_mat4(self.view_from_model) * t.truncate()).normalize_or_zero();
            v[o..o + 4].copy_from_slice(&e.extend(t.w).to_array());
        }
    }
}

impl VertexStage<'_> {
    /// The vertices `first..` into `out` (packed: clip position, then the layout's
    /// varyings, `4 + count` floats per vertex), eight at a time at `level`.
    pub(super) fn run_block(&self, level: Level, first: usize, out: &mut [f32]) {
        crate::base::simd::dispatch!(level, simd => self.run_lanes(simd, first, out));
    }

    /// [`VertexStage::run`] in lanes: transform, normal, lighting, texgen and the texture
    /// matrix, fog, each by `vec_lanes`' glam-order expressions. A last partial group
    /// computes on zeros in its empty lanes and writes only the real vertices.
    #[inline(always)]
    fn run_lanes<S: Simd>(&self, simd: S, first: usize, out: &mut [f32]) {
        let m = self.mesh;
        let l = &self.layout;
        let stride = 4 + l.count;
        let zero = simd.splat_f32x8(0.0);
        let one = simd.splat_f32x8(1.0);
        // Rows of the output: row k is float k of each of the eight vertices. Every row
        // below `stride` is written for every group.
        let mut rows = [[0.0f32; LANES]; 4 + MAX_VARYINGS];
        for (b, chunk) in out.chunks_mut(LANES * stride).enumerate() {
            let base = first + b * LANES;
            let live = chunk.len() / stride;
            let p = gather3(simd, m.positions, base, live);
            let color: [f32x8<S>; 4] = match m.colors {
                Some(c) => {
                    let mut x = [[0.0f32; LANES]; 4];
                    for (i, v) in c[base..base + live].iter().enumerate() {
                        (x[0][i], x[1][i], x[2][i], x[3][i]) = (v.x, v.y, v.z, v.w);
                    }
                    [
                        f32x8::from_slice(simd, &x[0]),
                        f32x8::from_slice(simd, &x[1]),
                        f32x8::from_slice(simd, &x[2]),
                        f32x8::from_slice(simd, &x[3]),
                    ]
                }
                None => [one; 4],
            };
            let normal = match m.normals {
                Some(n) => {
                    let n = vl::mat3_mul(simd, &self.normal_matrix, gather3(simd, n, base, live));
                    vl::normalize_or_zero3(simd, n)
                }
                None => [zero, zero, one],
            };
            let pos_eye = vl::mat4_transform_point3(simd, &self.view_from_model, p);
            let clip = vl::mat4_mul(simd, &self.clip_from_model, [p[0], p[1], p[2], one]);
            put(&mut rows, 0, &clip);
            let v = 4;
            match (&self.lighting, l.phong) {
                (Some(pl), None) => {
                    let (prim, sec) = pl.shade_lanes(simd, pos_eye, normal, color, true);
                    put(&mut rows, v, &prim);
                    if let Some(o) = l.secondary {
                        put(&mut rows, v + o, &sec);
                    }
                    if let Some(bk) = l.back {
                        let (prim, sec) = pl.shade_lanes(simd, pos_eye, normal, color, false);
                        put(&mut rows, v + bk, &prim);
                        if let Some(o) = l.secondary {
                            put(&mut rows, v + bk + o, &sec);
                        }
                    }
                }
                _ => put(&mut rows, v, &color),
            }
            for (k, u) in self.ff.units.iter().enumerate() {
                let stq = self.texgen_lanes(simd, k, (p, pos_eye, normal), (base, live));
                let t = vl::mat4_mul(simd, &u.matrix, stq);
                let o = v + l.units + 3 * k;
                put(&mut rows, o, &[t[0], t[1], t[3]]);
            }
            if let (Some(o), Some(fog)) = (l.fog, &self.ff.fog) {
                let d = match fog.distance {
                    FogDistance::EyeDepth => pos_eye[2].abs(),
                    FogDistance::Radial => vl::length3(pos_eye),
                };
                let f = if fog.per_pixel {
                    d
                } else {
                    fog_factor_lanes(simd, &fog.mode, d)
                };
                put(&mut rows, v + o, &[f]);
            }
            if let Some(o) = l.phong {
                put(&mut rows, v + o, &pos_eye);
                put(&mut rows, v + o + 3, &normal);
                put(&mut rows, v, &color);
            }
            if let Some(o) = l.normal {
                let n = if m.normals.is_some() {
                    normal
                } else {
                    [zero; 3]
                };
                put(&mut rows, v + o, &n);
            }
            if let (Some(o), Some(t)) = (l.tangent, self.tangents) {
                put(&mut rows, v + o, &self.tangent_lanes(simd, t, (base, live)));
            }
            for (i, vert) in chunk.chunks_exact_mut(stride).enumerate() {
                for (k, x) in vert.iter_mut().enumerate() {
                    *x = rows[k][i];
                }
            }
        }
    }

    /// The eye-space unit tangents (upper 3×3 of `view_from_model`, normalised) and
    /// handedness of vertices `base..base + live`.
    #[inline(always)]
    fn tangent_lanes<S: Simd>(
        &self,
        simd: S,
        t: &[Vec4],
        (base, live): (usize, usize),
    ) -> [f32x8<S>; 4] {
        let mut x = [[0.0f32; LANES]; 4];
        for (i, t) in t[base..base + live].iter().enumerate() {
            (x[0][i], x[1][i], x[2][i], x[3][i]) = (t.x, t.y, t.z, t.w);
        }
        let xyz = vl::load3(simd, &[x[0], x[1], x[2]]);
        let m = Mat3::from_mat4(self.view_from_model);
        let [a, b, c] = vl::normalize_or_zero3(simd, vl::mat3_mul(simd, &m, xyz));
        [a, b, c, f32x8::from_slice(simd, &x[3])]
    }

    /// Unit `k`'s `(s, t, r, q)` before its texture matrix, for eight vertices: its UV set,
    /// or texgen from the object position `p`, the eye position or the eye normal.
    #[inline(always)]
    fn texgen_lanes<S: Simd>(
        &self,
        simd: S,
        k: usize,
        (p, pos_eye, normal): (vl::V3<S>, vl::V3<S>, vl::V3<S>),
        (base, live): (usize, usize),
    ) -> vl::V4<S> {
        let m = self.mesh;
        let u = &self.ff.units[k];
        let (zero, one) = (simd.splat_f32x8(0.0), simd.splat_f32x8(1.0));
        match u.texgen {
            TexGen::None => {
                let mut x = [[0.0f32; LANES]; 2];
                for (i, uv) in m.uvs[u.uv_set][base..base + live].iter().enumerate() {
                    (x[0][i], x[1][i]) = (uv.x, uv.y);
                }
                let s = f32x8::from_slice(simd, &x[0]);
                [s, f32x8::from_slice(simd, &x[1]), zero, one]
            }
            TexGen::ObjectLinear { planes } => planes4(simd, &planes, [p[0], p[1], p[2], one]),
            TexGen::EyeLinear { planes } => {
                planes4(simd, &planes, [pos_eye[0], pos_eye[1], pos_eye[2], one])
            }
            TexGen::SphereMap => {
                let u_eye = vl::normalize_or_zero3(simd, pos_eye);
                let n = normal;
                let two_d = simd.splat_f32x8(2.0) * vl::dot3(n, u_eye);
                let r = vl::sub3(u_eye, [n[0] * two_d, n[1] * two_d, n[2] * two_d]);
                let rz1 = r[2] + 1.0;
                let len = (r[0] * r[0] + r[1] * r[1] + rz1 * rz1).sqrt();
                let mm = simd.splat_f32x8(2.0) * len;
                let mm = mm.simd_gt(zero).select(mm, one);
                [r[0] / mm + 0.5, r[1] / mm + 0.5, zero, one]
            }
        }
    }
}

/// Eight vertices' `a[base..base + live]` as lanes (zeros past `live`).
#[inline(always)]
fn gather3<S: Simd>(simd: S, a: &[Vec3], base: usize, live: usize) -> vl::V3<S> {
    let mut x = [[0.0f32; LANES]; 3];
    for (i, v) in a[base..base + live].iter().enumerate() {
        (x[0][i], x[1][i], x[2][i]) = (v.x, v.y, v.z);
    }
    vl::load3(simd, &x)
}

/// Stores lanes `x` as output rows `at..at + x.len()`.
#[inline(always)]
fn put<S: Simd>(rows: &mut [[f32; LANES]], at: usize, x: &[f32x8<S>]) {
    for (row, v) in rows[at..at + x.len()].iter_mut().zip(x) {
        v.store_slice(row);
    }
}

/// The texgen planes' `dot4` with eight homogeneous points.
#[inline(always)]
fn planes4<S: Simd>(simd: S, planes: &[Vec4; 4], h: vl::V4<S>) -> vl::V4<S> {
    [
        vl::dot4_plane(simd, planes[0], h),
        vl::dot4_plane(simd, planes[1], h),
        vl::dot4_plane(simd, planes[2], h),
        vl::dot4_plane(simd, planes[3], h),
    ]
}

/// [`fog_factor`] in lanes: linear by its expression, the exponential modes per lane; then
/// `sat`.
#[inline(always)]
fn fog_factor_lanes<S: Simd>(simd: S, mode: &FogMode, d: f32x8<S>) -> f32x8<S> {
    let f = match *mode {
        FogMode::Linear { start, end } if end == start => d
            .simd_lt(simd.splat_f32x8(start))
            .select(simd.splat_f32x8(1.0), simd.splat_f32x8(0.0)),
        FogMode::Linear { start, end } => {
            (simd.splat_f32x8(end) - d) / simd.splat_f32x8(end - start)
        }
        FogMode::Exp { .. } | FogMode::Exp2 { .. } => {
            return vl::per_lane(simd, d, |d| fog_factor(mode, d));
        }
    };
    vl::sat(simd, f)
}

#[cfg(feature = "internal-tests")]
pub(crate) mod tests {
    /// Every test of this module: `tests/unit.rs` runs each as one trial (an unlisted
    /// test fails the build as dead code).
    pub(crate) const TESTS: &[(&str, fn())] = &[(
        "lanes_match_the_scalar_vertex_stage",
        lanes_match_the_scalar_vertex_stage,
    )];

    use std::sync::Arc;

    use glam::Vec2;

    use super::*;
    use crate::base::simd::SimdLevel;
    use crate::shading::fog::FogState;
    use crate::shading::light::{Light, LightKind, Material};
    use crate::texture::{Sampler, Texture};
    use crate::vertex::ClipVertex;

    /// The shared generator with a share of special values.
    struct Rng(crate::base::rng::XorShift64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0.next_u64()
        }
        fn f(&mut self) -> f32 {
            const SPECIAL: [f32; 8] = [0.0, -0.0, 1.0, f32::NAN, f32::INFINITY, 1e30, 1e-30, -1.0];
            let r = self.next();
            if r.is_multiple_of(23) {
                SPECIAL[(r >> 8) as usize % SPECIAL.len()]
            } else {
                ((r >> 11) as f32 / (1u64 << 53) as f32) * 8.0 - 4.0
            }
        }
        fn v3(&mut self) -> Vec3 {
            Vec3::new(self.f(), self.f(), self.f())
        }
        fn v4(&mut self) -> Vec4 {
            Vec4::new(self.f(), self.f(), self.f(), self.f())
        }
        fn bit(&mut self) -> bool {
            self.next() & 1 == 1
        }
        fn m4(&mut self) -> Mat4 {
            Mat4::from_cols(self.v4(), self.v4(), self.v4(), self.v4())
        }
    }

    fn lights(r: &mut Rng, case: usize) -> LightingState {
        let mut s = LightingState {
            material: Material {
                emissive: r.v3().abs() * 0.1,
                ambient: r.v3().abs(),
                diffuse: r.v3().abs(),
                specular: if case.is_multiple_of(2) {
                    r.v3().abs()
                } else {
                    Vec3::ZERO
                },
                shininess: [1.0, 7.5, 64.0][case % 3],
                alpha: r.f(),
            },
            global_ambient: r.v3().abs(),
            local_viewer: r.bit(),
            two_sided: r.bit(),
            color_material: r.bit(),
            separate_specular: r.bit(),
            ..LightingState::default()
        };
        let kinds = [
            LightKind::Ambient,
            LightKind::Directional { direction: r.v3() },
            LightKind::Point { position: r.v3() },
            LightKind::Spot {
                position: r.v3(),
                direction: r.v3(),
                cutoff_deg: [30.0, 90.0, 180.0][case % 3],
                exponent: [0.0, 2.0, 17.0][(case / 3) % 3],
            },
        ];
        for (k, kind) in kinds.into_iter().enumerate() {
            if (case >> k) & 1 == 1 || k == 1 {
                let mut l = Light::new(kind)
                    .with_ambient(r.v3().abs())
                    .with_diffuse(r.v3().abs())
                    .with_specular(r.v3().abs())
                    .with_attenuation([1.0, r.f().abs(), r.f().abs()]);
                l.spot_inner_deg = r.bit().then_some(20.0);
                l.range = r.bit().then_some(5.0);
                s.push_light(l).unwrap();
            }
        }
        s
    }

    /// Every SIMD level's vertex stage gives the scalar definition's bits, over lighting
    /// (every light kind, spot cones and ranges, two-sided, colour material, local viewer,
    /// separate specular, per-pixel), every texgen, every fog mode and distance, with and
    /// without normals and colours, partial groups, and NaN, infinite and huge inputs.
    fn lanes_match_the_scalar_vertex_stage() {
        let texture = Arc::new(Texture::from_rgba8(1, 1, vec![255; 4]).unwrap());
        let mut r = Rng(crate::base::rng::XorShift64::new(0x9e37_79b9_7f4a_7c15));
        let mut checked = 0;
        for case in 0..96 {
            let n = 37 + case % 8;
            let positions: Vec<Vec3> = (0..n).map(|_| r.v3()).collect();
            let normals: Vec<Vec3> = (0..n).map(|_| r.v3()).collect();
            let colors: Vec<Vec4> = (0..n).map(|_| r.v4()).collect();
            let tangents: Vec<Vec4> = (0..n).map(|_| r.v4()).collect();
            let uv0: Vec<Vec2> = (0..n).map(|_| Vec2::new(r.f(), r.f())).collect();
            let uv1: Vec<Vec2> = (0..n).map(|_| Vec2::new(r.f(), r.f())).collect();
            let uvs = [&uv0[..], &uv1[..]];
            let lit = case % 4 != 3;
            let planes = [r.v4(), r.v4(), r.v4(), r.v4()];
            let texgens = [
                TexGen::None,
                TexGen::ObjectLinear { planes },
                TexGen::EyeLinear { planes },
                TexGen::SphereMap,
            ];
            let units = (0..case % 3)
                .map(|k| TextureUnit {
                    uv_set: k % 2,
                    texgen: texgens[(case + k) % 4],
                    matrix: if r.bit() { Mat4::IDENTITY } else { r.m4() },
                    ..TextureUnit::new(Arc::clone(&texture), Sampler::default())
                })
                .collect();
            let modes = [
                FogMode::Linear {
                    start: 1.0,
                    end: 3.0,
                },
                FogMode::Linear {
                    start: 2.0,
                    end: 2.0,
                },
                FogMode::Exp { density: 0.7 },
                FogMode::Exp2 { density: 0.4 },
            ];
            let ff = FixedFunction {
                lighting: lit.then(|| lights(&mut r, case)),
                per_pixel_lighting: case.is_multiple_of(5),
                fog: (case % 6 != 0).then(|| FogState {
                    mode: modes[case % 4],
                    distance: if case % 7 < 3 {
                        FogDistance::Radial
                    } else {
                        FogDistance::EyeDepth
                    },
                    per_pixel: case.is_multiple_of(9),
                    ..FogState::default()
                }),
                units,
            };
            let needs_normals = lit || ff.units.iter().any(|u| u.texgen == TexGen::SphereMap);
            let mesh = MeshInput {
                positions: &positions,
                normals: (needs_normals || r.bit()).then_some(&normals[..]),
                colors: r.bit().then_some(&colors[..]),
                uvs: &uvs,
            };
            let view_from_model = if case.is_multiple_of(8) {
                r.m4()
            } else {
                Mat4::from_rotation_translation(glam::Quat::from_rotation_y(0.3), r.v3())
            };
            // Unlit cases also run as a PBR draw's layout (eye position, normal, tangent).
            let layout = if !lit {
                Layout::pbr(&ff, case % 3 == 0, case % 8 == 3)
            } else {
                Layout::new(&ff, case % 3 == 0)
            };
            let stage = VertexStage {
                mesh: &mesh,
                ff: &ff,
                layout,
                clip_from_model: r.m4() * view_from_model,
                view_from_model,
                normal_matrix: Mat3::from_mat4(view_from_model).inverse().transpose(),
                lighting: ff
                    .lighting
                    .as_ref()
                    .filter(|l| l.is_lit())
                    .map(PreparedLighting::new),
                tangents: Some(&tangents),
            };
            let stride = 4 + layout.count;
            let first = case % 3;
            let count = n - first;
            let mut want = vec![0.0f32; count * stride];
            let mut v = ClipVertex::default();
            for (j, out) in want.chunks_exact_mut(stride).enumerate() {
                stage.run(first + j, &mut v);
                out[..4].copy_from_slice(&v.pos.to_array());
                out[4..].copy_from_slice(&v.var[..layout.count]);
            }
            for level in SimdLevel::available() {
                let mut got = vec![0.0f32; count * stride];
                stage.run_block(level.to_level().unwrap(), first, &mut got);
                for (k, (a, b)) in want.iter().zip(&got).enumerate() {
                    // Equal bits, or NaN both: Rust leaves the sign and payload of a NaN
                    // result unspecified (LLVM may swap an addition's operands, and x86
                    // returns the first of two NaNs), so no path can promise them; no
                    // stage reads them (a NaN colour saturates to 0, a NaN position is
                    // rejected).
                    assert!(
                        a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan()),
                        "case {case}, level {level}, vertex {}, float {}: scalar {a:?} ({:#x}), \
                         lanes {b:?} ({:#x})",
                        first + k / stride,
                        k % stride,
                        a.to_bits(),
                        b.to_bits()
                    );
                }
                checked += got.len();
            }
        }
        assert!(checked > 10_000, "{checked}");
    }
}
