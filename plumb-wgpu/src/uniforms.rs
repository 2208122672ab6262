//! The uniform blocks: `#[repr(C)]` mirrors of the WGSL structs (`Draw`, `Light` and `Unit` in
//! fixed.wgsl, `ClearU` in clear.wgsl), field for field, and how one draw fills them.
//!
//! Every field is a run of `f32` (a `vec4<f32>`, a `mat4x4<f32>` or an array of either), so
//! the Rust layout has no padding and equals WGSL's uniform layout; the `layout` tests read
//! the shaders' reflected layout (naga) and compare every member's name, offset and size.
//! Lights come from plumb-raster's [`PreparedLighting`], the form its own per-pixel lighting
//! reads, so the two backends start from the same numbers.

use glam::{Mat3, Mat4, Vec3, Vec4};
use plumb_raster::combine::{ApplyMode, CombineFn, Operand, Source};
use plumb_raster::environment::{self, Environment};
use plumb_raster::fog::{FogDistance, FogMode};
use plumb_raster::light::{PreparedLight, PreparedLighting};
use plumb_raster::pbr::{self, OutputEncoding, PbrDraw, ToneMap};
use plumb_raster::texture::{MagFilter, MinFilter, Wrap};
use plumb_raster::{CompareFunc, FixedFunction, PipelineState, ShadeModel, TexGen, Transforms};

use crate::primitives::PrimKind;

/// A `vec4<f32>`.
type V4 = [f32; 4];
/// A `mat4x4<f32>`, column by column.
type M4 = [[f32; 4]; 4];

/// A uniform value written to a buffer exactly as its `#[repr(C)]` memory (little-endian
/// `f32`s in field order).
pub(crate) trait GpuBytes {
    /// Appends the value's bytes.
    fn put(&self, out: &mut Vec<u8>);

    /// The value's bytes.
    fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        self.put(&mut out);
        out
    }
}

impl GpuBytes for f32 {
    fn put(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.to_le_bytes());
    }
}

impl<T: GpuBytes, const N: usize> GpuBytes for [T; N] {
    fn put(&self, out: &mut Vec<u8>) {
        for x in self {
            x.put(out);
        }
    }
}

/// One member of a mirrored struct: its name, byte offset and size.
#[cfg(test)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Field {
    pub(crate) name: &'static str,
    pub(crate) offset: usize,
    pub(crate) size: usize,
}

/// Declares a `#[repr(C)]` mirror of a WGSL struct: the struct, its [`GpuBytes`] writer (field
/// by field) and, for the layout tests, its `FIELDS`.
macro_rules! gpu_struct {
    ($(#[$m:meta])* $name:ident { $($(#[$fm:meta])* $field:ident : $ty:ty,)* }) => {
        $(#[$m])*
        #[repr(C)]
        #[derive(Clone, Copy, Debug, Default, PartialEq)]
        pub(crate) struct $name {
            $($(#[$fm])* pub(crate) $field: $ty,)*
        }

        impl $name {
            /// Members in declaration order, with the offsets and sizes Rust gave them.
            #[cfg(test)]
            pub(crate) const FIELDS: &'static [Field] = &[$(Field {
                name: stringify!($field),
                offset: std::mem::offset_of!($name, $field),
                size: std::mem::size_of::<$ty>(),
            },)*];
        }

        impl GpuBytes for $name {
            fn put(&self, out: &mut Vec<u8>) {
                $(self.$field.put(out);)*
            }
        }
    };
}

gpu_struct! {
    /// fixed.wgsl's `Light`.
    Light {
        /// Kind (0 ambient, 1 directional, 2 point, 3 spot), has cone, cos cutoff, exponent.
        k: V4,
        /// Directional: unit vector towards the light; else position.
        vector: V4,
        /// xyz unit axis, w: has smooth edge.
        spot_dir: V4,
        ambient: V4,
        diffuse: V4,
        specular: V4,
        /// Constant, linear, quadratic, has range.
        atten: V4,
        /// Smooth scale, smooth offset, 1 / range.
        extra: V4,
    }
}

gpu_struct! {
    /// fixed.wgsl's `Unit`: one texture unit.
    Unit {
        matrix: M4,
        planes: [V4; 4],
        constant: V4,
        border: V4,
        /// Mag (0 nearest, 1 linear), min (0..5 in `MinFilter` order), wrap u, wrap v.
        samp0: V4,
        /// LOD bias, min LOD, max LOD, level count.
        samp1: V4,
        /// Texgen (0 uv, 1 object, 2 eye, 3 sphere), uv set, apply, switch point.
        samp2: V4,
        /// Max anisotropy.
        samp3: V4,
        /// RGB fn, alpha fn, RGB scale, alpha scale.
        comb0: V4,
        /// RGB sources.
        comb1: V4,
        /// RGB operands.
        comb2: V4,
        /// Alpha sources.
        comb3: V4,
        /// Alpha operands.
        comb4: V4,
    }
}

gpu_struct! {
    /// fixed.wgsl's `Draw`: the uniform block of one draw.
    Draw {
        clip_from_model: M4,
        view_from_model: M4,
        normal_mat: M4,
        vp_scale: V4,
        vp_offset: V4,
        /// Fixed draw, lighting (0 none, 1 vertex, 2 pixel), unit count, primitive.
        f0: V4,
        /// Flat, two-sided, separate specular, colour material.
        f1: V4,
        /// Local viewer, light count, shininess, material alpha.
        f2: V4,
        /// Mode (0 none, 1 linear, 2 exp, 3 exp2), per pixel, radial.
        fog0: V4,
        /// Start, end, density.
        fog1: V4,
        fog_color: V4,
        /// Alpha func, reference, quantise (blending off), texel probe mode.
        alpha: V4,
        /// Target width, height, point half size, line half width.
        sizes: V4,
        /// Stride, normal offset, colour offset, first uv offset (-1: none).
        attr: V4,
        /// Fog offset (-1: none), uv set count.
        attr2: V4,
        global_ambient: V4,
        emissive: V4,
        m_ambient: V4,
        m_diffuse: V4,
        m_specular: V4,
        planes: [V4; 6],
        plane_on: [V4; 2],
        lights: [Light; 8],
        units: [Unit; 8],
    }
}

gpu_struct! {
    /// pbr.wgsl's `Pbr`: a physically based draw's material, output and environment.
    Pbr {
        /// `baseColorFactor` (linear RGBA).
        base: V4,
        /// Emissive factor × strength, normal scale.
        emissive: V4,
        /// Metallic, roughness, occlusion strength, light count.
        params: V4,
        /// Opaque, double-sided, orthographic, has environment.
        flags: V4,
        /// Unit of base colour, metallic-roughness, normal, occlusion (-1: none).
        units_a: V4,
        /// Unit of emissive, tone map (0 none, 1 ACES, 2 neutral), encoding (0 sRGB, 1
        /// linear), exposure.
        units_b: V4,
        /// The lights' ambient sum, environment intensity.
        ambient: V4,
        /// The environment's rotation from eye space (upper 3×3).
        world_from_eye: M4,
        /// The environment's diffuse SH coefficients.
        sh: [V4; 9],
        /// The specular chain's levels: first texel in the environment buffer, width, height.
        levels: [V4; 6],
        /// First entry of the split-sum table in the environment buffer, its side.
        table: V4,
    }
}

gpu_struct! {
    /// clear.wgsl's `ClearU`: a rectangle clear's colour and depth.
    ClearUniforms {
        color: V4,
        /// x: depth.
        depth: V4,
    }
}

fn b(x: bool) -> f32 {
    if x {
        1.0
    } else {
        0.0
    }
}

fn v3(v: Vec3, w: f32) -> V4 {
    [v.x, v.y, v.z, w]
}

/// The `Draw` block of one draw. `fixed`: the fixed-function draw's parts, or `None` for a
/// pre-transformed draw; `attr`: stride and offsets of the vertex data.
pub(crate) fn build_uniforms(
    state: &PipelineState,
    probe: f32,
    size: (u32, u32),
    kind: PrimKind,
    fixed: Option<(&FixedFunction, &Transforms)>,
    attr: V4,
) -> Draw {
    let (w, h) = (size.0 as f32, size.1 as f32);
    let ff_default = FixedFunction::default();
    let (ff, tr) = match fixed {
        Some((ff, tr)) => (ff, Some(tr)),
        None => (&ff_default, None),
    };
    let (clip_from_model, view_from_model) = match tr {
        Some(t) => (t.clip_from_view * t.view_from_model, t.view_from_model),
        None => (Mat4::IDENTITY, Mat4::IDENTITY),
    };
    let nm = Mat3::from_mat4(view_from_model).inverse().transpose();
    let vp = &state.viewport;
    let lighting = ff.lighting.filter(|l| l.is_lit());
    let lit = match (&lighting, ff.per_pixel_lighting) {
        (None, _) => 0.0,
        (Some(_), false) => 1.0,
        (Some(_), true) => 2.0,
    };
    let nunits = if fixed.is_some() { ff.units.len() } else { 0 };
    // The same compiled form raster's own lighting reads (lights that are off dropped, slot
    // order kept).
    let l = PreparedLighting::new(&lighting.unwrap_or_default());
    let [local_viewer, two_sided, color_material, separate_specular] = l.flags();
    let m = l.material();
    let mut u = Draw {
        clip_from_model: clip_from_model.to_cols_array_2d(),
        view_from_model: view_from_model.to_cols_array_2d(),
        normal_mat: Mat4::from_mat3(nm).to_cols_array_2d(),
        vp_scale: [
            vp.width / w,
            vp.height / h,
            vp.max_depth - vp.min_depth,
            0.0,
        ],
        vp_offset: [
            (2.0 * vp.x + vp.width) / w - 1.0,
            1.0 - (2.0 * vp.y + vp.height) / h,
            vp.min_depth,
            0.0,
        ],
        f0: [b(fixed.is_some()), lit, nunits as f32, kind.code()],
        f1: [
            b(state.shade == ShadeModel::Flat),
            b(two_sided),
            b(separate_specular),
            b(color_material),
        ],
        f2: [
            b(local_viewer),
            l.lights().len() as f32,
            m.shininess,
            m.alpha,
        ],
        alpha: [
            CompareFunc::ALL
                .iter()
                .position(|f| *f == state.alpha_test.func)
                .unwrap_or(7) as f32,
            state.alpha_test.reference,
            b(!state.blend.enabled),
            probe,
        ],
        sizes: [w, h, state.point_size * 0.5, state.line_width * 0.5],
        attr,
        attr2: [-1.0, 0.0, -1.0, 0.0],
        global_ambient: v3(l.global_ambient(), 0.0),
        emissive: v3(m.emissive, 0.0),
        m_ambient: v3(m.ambient, 0.0),
        m_diffuse: v3(m.diffuse, 0.0),
        m_specular: v3(m.specular, 0.0),
        ..Draw::default()
    };
    if let Some(f) = ff.fog.filter(|_| fixed.is_some()) {
        let (mode, p) = match f.mode {
            FogMode::Linear { start, end } => (1.0, [start, end, 0.0, 0.0]),
            FogMode::Exp { density } => (2.0, [0.0, 0.0, density, 0.0]),
            FogMode::Exp2 { density } => (3.0, [0.0, 0.0, density, 0.0]),
        };
        u.fog0 = [
            mode,
            b(f.per_pixel),
            b(f.distance == FogDistance::Radial),
            0.0,
        ];
        u.fog1 = p;
        u.fog_color = f.color.to_array();
    }
    for (i, (slot, p)) in u.planes.iter_mut().zip(&state.clip_planes).enumerate() {
        *slot = p.unwrap_or(Vec4::ZERO).to_array();
        u.plane_on[i / 4][i % 4] = b(p.is_some());
    }
    for (slot, light) in u.lights.iter_mut().zip(l.lights()) {
        *slot = light_uniform(light);
    }
    if fixed.is_some() {
        for (slot, unit) in u.units.iter_mut().zip(&ff.units) {
            *slot = unit_uniform(unit);
        }
    }
    for slot in &mut u.units[nunits.min(8)..] {
        slot.matrix = Mat4::IDENTITY.to_cols_array_2d();
    }
    u
}

/// A physically based draw's `Pbr` block and its lights (pbr.wgsl). The material's
/// textures are bound as units in `PbrMaterial::textures`' order (those present take units
/// 0, 1, …, as `check_pbr_input` makes them); `ortho`: the projection is orthographic (the
/// view vector is +z everywhere).
pub(crate) fn build_pbr(draw: &PbrDraw, ortho: bool) -> (Pbr, Vec<Light>) {
    let m = &draw.material;
    let (lights, ambient) = pbr::prepare_lights(&draw.lights);
    let mut next = 0.0;
    let units = m.textures().map(|t| {
        t.map_or(-1.0, |_| {
            next += 1.0;
            next - 1.0
        })
    });
    let unit = |k: usize| units[k];
    let o = &draw.output;
    let tone = match o.tone_map {
        ToneMap::None => 0.0,
        ToneMap::AcesFilmic => 1.0,
        ToneMap::PbrNeutral => 2.0,
    };
    let env = draw.environment.as_ref();
    let (levels, table) = env_layout(env.map(|e| &*e.map));
    let mut u = Pbr {
        base: m.base_color.to_array(),
        emissive: v3(m.emissive, m.normal_scale),
        params: [
            m.metallic,
            m.roughness,
            m.occlusion_strength,
            lights.len() as f32,
        ],
        flags: [b(m.opaque), b(m.double_sided), b(ortho), b(env.is_some())],
        units_a: [unit(0), unit(1), unit(2), unit(3)],
        units_b: [
            unit(4),
            tone,
            b(o.encoding == OutputEncoding::Linear),
            o.exposure,
        ],
        ambient: v3(ambient, env.map_or(0.0, |e| e.intensity)),
        world_from_eye: Mat4::IDENTITY.to_cols_array_2d(),
        levels,
        table,
        ..Pbr::default()
    };
    if let Some(e) = env {
        u.world_from_eye = Mat4::from_mat3(e.world_from_eye).to_cols_array_2d();
        for (slot, c) in u.sh.iter_mut().zip(e.map.sh()) {
            *slot = v3(*c, 0.0);
        }
    }
    let lights = lights
        .iter()
        .map(|l| {
            let mut g = light_uniform(&l.light);
            g.diffuse = v3(l.irradiance, 0.0);
            g.extra[3] = l.inv_range.unwrap_or(0.0);
            g
        })
        .collect();
    (u, lights)
}

// pbr.wgsl's `levels` has one entry per level of the chain.
const _: () = assert!(environment::LEVELS == 6);

/// Where pbr.wgsl's `env` buffer holds what: the split-sum table first (`[first, side]`),
/// then the environment's specular chain, level by level (`[first, width, height]`).
fn env_layout(env: Option<&Environment>) -> ([V4; 6], V4) {
    let side = pbr::LUT_N;
    let mut first = side * side;
    let mut levels = [[0.0; 4]; environment::LEVELS];
    for (k, slot) in levels.iter_mut().enumerate() {
        if let Some((w, h, texels)) = env.and_then(|e| e.level(k)) {
            *slot = [first as f32, w as f32, h as f32, 0.0];
            first += texels.len();
        }
    }
    (levels, [0.0, side as f32, 0.0, 0.0])
}

/// pbr.wgsl's `env` buffer as `f32`s (four per entry), laid out as [`env_layout`] says.
pub(crate) fn env_data(env: Option<&Environment>) -> Vec<f32> {
    let mut out: Vec<f32> = pbr::env_brdf_table()
        .iter()
        .flat_map(|[a, b]| [*a, *b, 0.0, 0.0])
        .collect();
    for k in 0..environment::LEVELS {
        if let Some((_, _, texels)) = env.and_then(|e| e.level(k)) {
            out.extend(texels.iter().flat_map(|t| [t.x, t.y, t.z, 0.0]));
        }
    }
    out
}

/// A prepared light as the shader's `Light`.
fn light_uniform(l: &PreparedLight) -> Light {
    let (sc, so) = l.spot_smooth.unwrap_or((0.0, 0.0));
    Light {
        k: [
            f32::from(l.kind),
            b(l.spot_cos.is_some()),
            l.spot_cos.unwrap_or(0.0),
            l.spot_exponent,
        ],
        vector: v3(l.vector, 0.0),
        spot_dir: v3(l.spot_dir, b(l.spot_smooth.is_some())),
        ambient: v3(l.ambient, 0.0),
        diffuse: v3(l.diffuse, 0.0),
        specular: v3(l.specular, 0.0),
        atten: [
            l.attenuation[0],
            l.attenuation[1],
            l.attenuation[2],
            b(l.inv_range.is_some()),
        ],
        extra: [sc, so, l.inv_range.unwrap_or(0.0), 0.0],
    }
}

fn wrap_code(w: Wrap) -> f32 {
    match w {
        Wrap::Repeat => 0.0,
        Wrap::MirroredRepeat => 1.0,
        Wrap::ClampToEdge => 2.0,
        Wrap::ClampToBorder => 3.0,
        Wrap::Clamp => 4.0,
    }
}

/// A texture unit as the shader's `Unit`.
fn unit_uniform(t: &plumb_raster::TextureUnit) -> Unit {
    let (gen, planes) = match t.texgen {
        TexGen::None => (0.0, [Vec4::ZERO; 4]),
        TexGen::ObjectLinear { planes } => (1.0, planes),
        TexGen::EyeLinear { planes } => (2.0, planes),
        TexGen::SphereMap => (3.0, [Vec4::ZERO; 4]),
    };
    let s = &t.sampler;
    let format = t.texture.format();
    let min = MinFilter::ALL.iter().position(|m| *m == s.min).unwrap_or(0) as f32;
    let (code, c) = match t.apply.for_format(format) {
        ApplyMode::Replace => (0.0, None),
        ApplyMode::Decal => (1.0, None),
        ApplyMode::Modulate => (2.0, None),
        ApplyMode::Blend => (3.0, None),
        ApplyMode::Add => (4.0, None),
        ApplyMode::Combine(c) => (5.0, Some(c)),
    };
    let c = c.unwrap_or_default();
    let f = |x: CombineFn| CombineFn::ALL.iter().position(|y| *y == x).unwrap_or(0) as f32;
    let src = |x: [Source; 3]| {
        x.map(|x| match x {
            Source::Texture => 0.0,
            Source::Constant => 1.0,
            Source::Primary => 2.0,
            Source::Previous => 3.0,
        })
    };
    let op = |x: [Operand; 3]| {
        x.map(|x| match x {
            Operand::Color => 0.0,
            Operand::OneMinusColor => 1.0,
            Operand::Alpha => 2.0,
            Operand::OneMinusAlpha => 3.0,
        })
    };
    let v = |x: [f32; 3]| [x[0], x[1], x[2], 0.0];
    Unit {
        matrix: t.matrix.to_cols_array_2d(),
        planes: planes.map(|p| p.to_array()),
        constant: t.constant.to_array(),
        border: format.convert_border(s.border).to_array(),
        samp0: [
            b(s.mag == MagFilter::Linear),
            min,
            wrap_code(s.wrap_u),
            wrap_code(s.wrap_v),
        ],
        samp1: [
            s.lod_bias,
            s.min_lod,
            s.max_lod,
            t.texture.level_count().max(1) as f32,
        ],
        samp2: [gen, t.uv_set as f32, code, s.switch_point()],
        samp3: [f32::from(s.max_anisotropy.clamp(1, 16)), 0.0, 0.0, 0.0],
        comb0: [f(c.rgb), f(c.alpha), c.rgb_scale, c.alpha_scale],
        comb1: v(src(c.src_rgb)),
        comb2: v(op(c.op_rgb)),
        comb3: v(src(c.src_alpha)),
        comb4: v(op(c.op_alpha)),
    }
}

#[cfg(test)]
mod layout {
    use super::*;

    /// `(name, offset, size)` of each member of the WGSL struct `name` in `source`, and the
    /// struct's size, as naga lays it out for a uniform buffer.
    fn reflected(source: &str, name: &str) -> (Vec<(String, usize, usize)>, usize) {
        let module = naga::front::wgsl::parse_str(source).expect("the shader parses");
        let mut layouter = naga::proc::Layouter::default();
        layouter
            .update(module.to_ctx())
            .expect("the shader's types lay out");
        let (_, ty) = module
            .types
            .iter()
            .find(|(_, t)| t.name.as_deref() == Some(name))
            .unwrap_or_else(|| panic!("no struct {name} in the shader"));
        let naga::TypeInner::Struct { members, span } = &ty.inner else {
            panic!("{name} is not a struct");
        };
        let fields = members
            .iter()
            .map(|m| {
                (
                    m.name.clone().unwrap_or_default(),
                    m.offset as usize,
                    layouter[m.ty].size as usize,
                )
            })
            .collect();
        (fields, *span as usize)
    }

    fn mirrored(fields: &[Field]) -> Vec<(String, usize, usize)> {
        fields
            .iter()
            .map(|f| (f.name.to_owned(), f.offset, f.size))
            .collect()
    }

    /// The Rust struct has no padding, so writing its fields in order (`GpuBytes`) gives its
    /// memory: each field starts where the one before ends, and the last ends at its size.
    fn assert_packed(fields: &[Field], size: usize) {
        let mut end = 0;
        for f in fields {
            assert_eq!(f.offset, end, "padding before {}", f.name);
            end += f.size;
        }
        assert_eq!(end, size, "padding at the end");
    }

    fn assert_mirrors(source: &str, name: &str, fields: &[Field], size: usize, bytes: usize) {
        let (wgsl, span) = reflected(source, name);
        assert_eq!(mirrored(fields), wgsl, "{name}: Rust vs WGSL members");
        assert_eq!(size, span, "{name}: Rust vs WGSL size");
        assert_packed(fields, size);
        assert_eq!(bytes, size, "{name}: bytes written");
    }

    #[test]
    fn draw_light_and_unit_mirror_fixed_wgsl() {
        use std::mem::size_of;
        let src = crate::SHADER;
        let n = |v: &dyn GpuBytes| v.to_bytes().len();
        assert_mirrors(
            src,
            "Light",
            Light::FIELDS,
            size_of::<Light>(),
            n(&Light::default()),
        );
        assert_mirrors(
            src,
            "Unit",
            Unit::FIELDS,
            size_of::<Unit>(),
            n(&Unit::default()),
        );
        assert_mirrors(
            src,
            "Pbr",
            Pbr::FIELDS,
            size_of::<Pbr>(),
            n(&Pbr::default()),
        );
        assert_mirrors(
            src,
            "Draw",
            Draw::FIELDS,
            size_of::<Draw>(),
            n(&Draw::default()),
        );
    }

    #[test]
    fn clear_uniforms_mirror_clear_wgsl() {
        let size = std::mem::size_of::<ClearUniforms>();
        let bytes = ClearUniforms::default().to_bytes().len();
        assert_mirrors(
            crate::CLEAR_SHADER,
            "ClearU",
            ClearUniforms::FIELDS,
            size,
            bytes,
        );
    }

    /// A changed member is caught: the check compares names, offsets and sizes, not counts.
    #[test]
    fn a_mismatch_is_reported() {
        let (wgsl, _) = reflected(crate::SHADER, "Light");
        let mut fields = mirrored(Light::FIELDS);
        fields.swap(1, 2);
        assert_ne!(fields, wgsl);
    }

    /// Lights reach the shader as raster prepared them: one directional and one spot light,
    /// field by field.
    #[test]
    fn lights_are_packed_from_prepared_lighting() {
        use plumb_raster::light::{Light as L, LightKind, LightingState};
        let mut state = LightingState::default();
        let mut spot = L::new(LightKind::Spot {
            position: Vec3::new(1.0, 2.0, 3.0),
            direction: Vec3::new(0.0, 0.0, -2.0),
            cutoff_deg: 30.0,
            exponent: 4.0,
        });
        spot.spot_inner_deg = Some(20.0);
        spot.range = Some(8.0);
        let dir = L::new(LightKind::Directional {
            direction: Vec3::new(0.0, -3.0, 0.0),
        });
        state.lights[1] = Some(spot);
        state.lights[4] = Some(dir);
        let p = PreparedLighting::new(&state);
        assert_eq!(p.lights().len(), 2);
        let s = light_uniform(&p.lights()[0]);
        let cos30 = plumb_raster::math::cos(plumb_raster::math::to_radians(30.0));
        assert_eq!(s.k, [3.0, 1.0, cos30, 4.0]);
        assert_eq!(s.vector, [1.0, 2.0, 3.0, 0.0]);
        assert_eq!(s.spot_dir, [0.0, 0.0, -1.0, 1.0]);
        assert_eq!(s.atten[3], 1.0);
        assert_eq!(s.extra[2], 0.125);
        let d = light_uniform(&p.lights()[1]);
        assert_eq!(d.k, [1.0, 0.0, 0.0, 0.0]);
        assert_eq!(d.vector, [0.0, 1.0, 0.0, 0.0]);
        assert_eq!(d.atten, [1.0, 0.0, 0.0, 0.0]);
    }
}
