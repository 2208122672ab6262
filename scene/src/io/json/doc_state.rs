//! Document model, part two: render states, lights, textures, samplers and effects, with
//! the vocabularies (blend factors, compare functions, …) as snake_case names.

use serde::{Deserialize, Serialize};

use super::real::{r3, r4, Real, Real3, Real4};
use crate::values::effect::TexCoords;
use crate::values::state::{
    AlphaState, BlendEquation, BlendFactor, ClipPlaneState, CompareFunc, CullFace, Fog, FogApply,
    FogDensity, FogDistance, FrontFace, MaterialState, PointLineState, ShadeState, StencilOp,
    StencilState, ZBufferState,
};
use plumb_raster::combine::{CombineFn, CombineState, Operand, Source};
use plumb_raster::texture::{MagFilter, MinFilter, Sampler, Wrap};

/// A snake_case mirror of an engine enum, converting both ways.
macro_rules! mirror {
    ($(#[$m:meta])* $doc:ident => $eng:ident { $($v:ident),* $(,)? }) => {
        $(#[$m])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
        #[serde(rename_all = "snake_case")]
        pub enum $doc {
            $(#[doc = concat!("`", stringify!($eng), "::", stringify!($v), "`")] $v),*
        }
        impl From<$doc> for $eng {
            fn from(d: $doc) -> $eng {
                match d { $($doc::$v => $eng::$v),* }
            }
        }
        impl From<$eng> for $doc {
            fn from(e: $eng) -> $doc {
                match e { $($eng::$v => $doc::$v),* }
            }
        }
    };
}

mirror!(
    /// Blend factor names (`src_alpha`, `one_minus_src_alpha`, …).
    BlendDoc => BlendFactor { Zero, One, SrcColor, OneMinusSrcColor, DstColor, OneMinusDstColor,
    SrcAlpha, OneMinusSrcAlpha, DstAlpha, OneMinusDstAlpha, ConstantColor, OneMinusConstantColor,
    ConstantAlpha, OneMinusConstantAlpha, SrcAlphaSaturate }
);
mirror!(
    /// Comparison names (`never`, `less`, `equal`, `less_equal`, …, `always`).
    CompareDoc => CompareFunc { Never, Less, Equal, LessEqual, Greater, NotEqual, GreaterEqual,
    Always }
);
mirror!(
    /// Stencil operation names.
    StencilOpDoc => StencilOp { Keep, Zero, Replace, Incr, Decr, Invert, IncrWrap, DecrWrap }
);
mirror!(
    /// Front-face winding.
    FrontFaceDoc => FrontFace { Ccw, Cw }
);
mirror!(
    /// Which faces a cull state removes.
    CullFaceDoc => CullFace { Front, Back }
);
mirror!(
    /// Fog density function.
    FogFunctionDoc => FogDensity { Linear, Exp, ExpSquared }
);
mirror!(
    /// Where fog is evaluated.
    FogApplyDoc => FogApply { PerVertex, PerPixel }
);
mirror!(
    /// Which distance fog is a function of: `eye_depth` (`|z_eye|`, GL's) or `radial`
    /// (`|p_eye|`, NV_fog_distance).
    FogDistanceDoc => FogDistance { EyeDepth, Radial }
);
mirror!(
    /// Blend equation names (`add`, `subtract`, `reverse_subtract`, `min`, `max`).
    BlendEquationDoc => BlendEquation { Add, Subtract, ReverseSubtract, Min, Max }
);
mirror!(
    /// Shading model.
    ShadeDoc => ShadeState { Flat, Smooth, PerPixel }
);
mirror!(
    /// Magnification filter.
    MagDoc => MagFilter { Nearest, Linear }
);
mirror!(
    /// Minification filter.
    MinDoc => MinFilter { Nearest, Linear, NearestMipmapNearest, LinearMipmapNearest,
    NearestMipmapLinear, LinearMipmapLinear }
);
mirror!(
    /// Texture wrap mode (`clamp` is GL 1.x `CLAMP` / Wild Magic's `WM_CLAMP`).
    WrapDoc => Wrap { Repeat, MirroredRepeat, ClampToEdge, ClampToBorder, Clamp }
);

fn yes() -> bool {
    true
}

fn is_true(b: &bool) -> bool {
    *b
}

/// The global render states of a node; each one left out is not set there (it inherits).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StatesDoc {
    /// Alpha blending and alpha test.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alpha: Option<AlphaDoc>,
    /// Face culling.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cull: Option<CullDoc>,
    /// Dithering (a documented no-op in plumb).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dither: Option<EnableDoc>,
    /// Fog.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fog: Option<FogDoc>,
    /// Material colours.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub material: Option<MaterialDoc>,
    /// Flat or smooth shading.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shade: Option<ShadeDoc>,
    /// Wireframe.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wireframe: Option<EnableDoc>,
    /// Depth buffer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub zbuffer: Option<ZBufferDoc>,
    /// Stencil buffer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stencil: Option<StencilDoc>,
    /// Polygon offset.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub polygon_offset: Option<PolygonOffsetDoc>,
    /// Point size and line width.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub point_line: Option<PointLineDoc>,
    /// User clip planes `[a, b, c, d]` in world space (at most six; `[]` turns them off).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clip_planes: Option<Vec<Real4>>,
}

/// Alpha state (defaults: the engine's opaque state).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct AlphaDoc {
    /// Blending on (default false).
    pub blend: bool,
    /// Source factor (default `src_alpha`).
    pub src: BlendDoc,
    /// Destination factor (default `one_minus_src_alpha`).
    pub dst: BlendDoc,
    /// Alpha test on (default false).
    pub test: bool,
    /// Alpha test function (default `always`).
    pub compare: CompareDoc,
    /// Alpha test reference (default 0).
    pub reference: Real,
    /// Blend constant colour (default `[0, 0, 0, 0]`).
    pub constant_color: Real4,
    /// Source factor for the alpha channel alone (default: `src`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub alpha_src: Option<BlendDoc>,
    /// Destination factor for the alpha channel alone (default: `dst`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub alpha_dst: Option<BlendDoc>,
    /// Blend equation (default `add`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub equation: Option<BlendEquationDoc>,
    /// Blend equation for the alpha channel alone (default: `equation`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub alpha_equation: Option<BlendEquationDoc>,
}

impl Default for AlphaDoc {
    fn default() -> Self {
        let a = AlphaState::OPAQUE;
        AlphaDoc {
            blend: a.blend_enabled,
            src: a.src_blend.into(),
            dst: a.dst_blend.into(),
            test: a.test_enabled,
            compare: a.test.into(),
            reference: Real::lit(a.reference),
            constant_color: r4(0.0, 0.0, 0.0, 0.0),
            alpha_src: None,
            alpha_dst: None,
            equation: None,
            alpha_equation: None,
        }
    }
}

/// The document form of an engine blend equation pair (engine → doc; `build` maps back):
/// `(equation, alpha_equation)`, each left out (`None`) when it is the default.
// The engine → doc half, for the scene saver (issue 14); tested below.
#[cfg_attr(
    not(test),
    allow(
        dead_code,
        reason = "the engine → doc half, for the scene saver (issue 14)"
    )
)]
pub(crate) fn blend_equations_doc(
    a: &AlphaState,
) -> (Option<BlendEquationDoc>, Option<BlendEquationDoc>) {
    (
        (a.equation != BlendEquation::Add).then(|| a.equation.into()),
        a.alpha_equation.map(Into::into),
    )
}

/// Cull state.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CullDoc {
    /// Culling on (default true).
    pub enabled: bool,
    /// Front-face winding (default `ccw`).
    pub front_face: FrontFaceDoc,
    /// Faces removed (default `back`).
    pub cull_face: CullFaceDoc,
}

impl Default for CullDoc {
    fn default() -> Self {
        CullDoc {
            enabled: true,
            front_face: FrontFaceDoc::Ccw,
            cull_face: CullFaceDoc::Back,
        }
    }
}

/// A state that is only on or off (dither, wireframe).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EnableDoc {
    /// On (default true).
    #[serde(default = "yes")]
    pub enabled: bool,
}

impl Default for EnableDoc {
    fn default() -> Self {
        EnableDoc { enabled: true }
    }
}

/// Fog state.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct FogDoc {
    /// Fog on (default true).
    pub enabled: bool,
    /// Linear fog start distance (default 0).
    pub start: Real,
    /// Linear fog end distance (default 1).
    pub end: Real,
    /// Exponential density (default 1).
    pub density: Real,
    /// Fog colour (default `[0, 0, 0, 1]`).
    pub color: Real4,
    /// `linear`, `exp` or `exp_squared` (default `linear`).
    pub function: FogFunctionDoc,
    /// `per_vertex` or `per_pixel` (default `per_vertex`).
    pub apply: FogApplyDoc,
    /// `eye_depth` or `radial` (default `eye_depth`).
    #[serde(skip_serializing_if = "is_eye_depth")]
    pub distance: FogDistanceDoc,
}

fn is_eye_depth(d: &FogDistanceDoc) -> bool {
    *d == FogDistanceDoc::EyeDepth
}

impl Default for FogDoc {
    fn default() -> Self {
        let f = Fog::OFF;
        FogDoc {
            enabled: true,
            start: Real::lit(f.start),
            end: Real::lit(f.end),
            density: Real::lit(f.density),
            color: r4(0.0, 0.0, 0.0, 1.0),
            function: f.density_function.into(),
            apply: f.apply.into(),
            distance: f.distance.into(),
        }
    }
}

/// Material state (defaults: the book's material).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct MaterialDoc {
    /// Emissive (default `[0, 0, 0, 1]`).
    pub emissive: Real4,
    /// Ambient (default `[0.2, 0.2, 0.2, 1]`).
    pub ambient: Real4,
    /// Diffuse (default `[0.8, 0.8, 0.8, 1]`; its alpha is the surface's alpha).
    pub diffuse: Real4,
    /// Specular (default `[0, 0, 0, 1]`).
    pub specular: Real4,
    /// Specular exponent (default 1).
    pub shininess: Real,
    /// Vertex colours replace ambient, diffuse and alpha (GL colour material; default false).
    pub color_material: bool,
    /// Light back faces with the flipped normal (GL two-sided lighting; default false).
    pub two_sided: bool,
}

impl Default for MaterialDoc {
    fn default() -> Self {
        let m = MaterialState::DEFAULT;
        MaterialDoc {
            emissive: r4(m.emissive.x, m.emissive.y, m.emissive.z, m.emissive.w),
            ambient: r4(m.ambient.x, m.ambient.y, m.ambient.z, m.ambient.w),
            diffuse: r4(m.diffuse.x, m.diffuse.y, m.diffuse.z, m.diffuse.w),
            specular: r4(m.specular.x, m.specular.y, m.specular.z, m.specular.w),
            shininess: Real::lit(m.shininess),
            color_material: m.color_material,
            two_sided: m.two_sided,
        }
    }
}

/// Depth-buffer state.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ZBufferDoc {
    /// Depth test on (default true).
    pub enabled: bool,
    /// Depth writes on (default true).
    pub writable: bool,
    /// Depth test (default `less_equal`).
    pub compare: CompareDoc,
}

impl Default for ZBufferDoc {
    fn default() -> Self {
        let z = ZBufferState::DEFAULT;
        ZBufferDoc {
            enabled: z.enabled,
            writable: z.writable,
            compare: z.compare.into(),
        }
    }
}

/// Stencil state.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct StencilDoc {
    /// Stencil test on (default true).
    pub enabled: bool,
    /// Test (default `always`).
    pub compare: CompareDoc,
    /// Reference value 0–255 (default 0).
    pub reference: u8,
    /// Test mask (default 255).
    pub mask: u8,
    /// Write mask (default 255).
    pub write_mask: u8,
    /// On stencil fail (default `keep`).
    pub on_fail: StencilOpDoc,
    /// On depth fail (default `keep`).
    pub on_z_fail: StencilOpDoc,
    /// On pass (default `keep`).
    pub on_z_pass: StencilOpDoc,
}

impl Default for StencilDoc {
    fn default() -> Self {
        let s = StencilState::DISABLED;
        StencilDoc {
            enabled: true,
            compare: s.func.into(),
            reference: s.reference,
            mask: s.read_mask,
            write_mask: s.write_mask,
            on_fail: s.fail.into(),
            on_z_fail: s.depth_fail.into(),
            on_z_pass: s.pass.into(),
        }
    }
}

/// Point size and line width in pixels (each in `(0, 1024]`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PointLineDoc {
    /// Point size (default 1).
    pub point_size: Real,
    /// Line width (default 1).
    pub line_width: Real,
}

impl Default for PointLineDoc {
    fn default() -> Self {
        PointLineDoc::from(PointLineState::DEFAULT)
    }
}

impl From<PointLineState> for PointLineDoc {
    fn from(p: PointLineState) -> Self {
        PointLineDoc {
            point_size: Real::lit(p.point_size),
            line_width: Real::lit(p.line_width),
        }
    }
}

/// The document form of a clip-plane state (engine → doc; `build` maps back): the enabled
/// planes in slot order (disabled slots between them are closed up, which draws the same).
// The engine → doc half, for the scene saver (issue 14); tested below.
#[cfg_attr(
    not(test),
    allow(
        dead_code,
        reason = "the engine → doc half, for the scene saver (issue 14)"
    )
)]
pub(crate) fn clip_planes_doc(c: &ClipPlaneState) -> Vec<Real4> {
    c.enabled().map(|p| r4(p.x, p.y, p.z, p.w)).collect()
}

/// Polygon offset state.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PolygonOffsetDoc {
    /// Offset on (default true).
    pub enabled: bool,
    /// Slope factor (default 0).
    pub factor: Real,
    /// Constant units (default 0).
    pub units: Real,
}

impl Default for PolygonOffsetDoc {
    fn default() -> Self {
        PolygonOffsetDoc {
            enabled: true,
            factor: Real::lit(0.0),
            units: Real::lit(0.0),
        }
    }
}

/// Light type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LightTypeDoc {
    /// Ambient only.
    Ambient,
    /// Parallel light along `direction`.
    Directional,
    /// From `position` in every direction.
    Point,
    /// A cone from `position` along `direction`.
    Spot,
}

/// A named light. Position and direction are in world space.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LightDoc {
    /// Name (unique).
    pub name: String,
    /// Type.
    #[serde(rename = "type")]
    pub kind: LightTypeDoc,
    /// Ambient colour (default white for ambient lights, black otherwise).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ambient: Option<Real4>,
    /// Diffuse colour (default black for ambient lights, white otherwise).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub diffuse: Option<Real4>,
    /// Specular colour (default black for ambient lights, white otherwise).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub specular: Option<Real4>,
    /// Colour multiplier (default 1).
    #[serde(default = "one")]
    pub intensity: Real,
    /// Constant attenuation (default 1).
    #[serde(default = "one")]
    pub constant: Real,
    /// Linear attenuation (default 0).
    #[serde(default)]
    pub linear: Real,
    /// Quadratic attenuation (default 0).
    #[serde(default)]
    pub quadratic: Real,
    /// Attenuation on (default false).
    #[serde(default)]
    pub attenuate: bool,
    /// Light on (default true).
    #[serde(default = "yes", skip_serializing_if = "is_true")]
    pub on: bool,
    /// Spot exponent (default 0).
    #[serde(default)]
    pub exponent: Real,
    /// Spot cone half-angle, degrees, 0–180 (default 180: no cone).
    #[serde(default = "half_turn")]
    pub angle_degrees: Real,
    /// Spot: half-angle in degrees of full strength; the cone fades smoothly from
    /// `angle_degrees` to it (default none: a hard cone).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inner_angle_degrees: Option<Real>,
    /// Point and spot: no light beyond this distance, fading smoothly before it (default
    /// none: unlimited).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub range: Option<Real>,
    /// World position (point and spot; default origin).
    #[serde(default = "origin")]
    pub position: Real3,
    /// World direction of travel (directional and spot; default `[0, 0, −1]`).
    #[serde(default = "down_z")]
    pub direction: Real3,
}

fn one() -> Real {
    Real::lit(1.0)
}
fn half_turn() -> Real {
    Real::lit(180.0)
}
fn origin() -> Real3 {
    r3(0.0, 0.0, 0.0)
}
fn down_z() -> Real3 {
    r3(0.0, 0.0, -1.0)
}

/// A named texture: exactly one of `file`, `checker`, `gradient`, `solid`. Every texture
/// gets a full mip chain; the sampler's `min` filter decides whether it is used.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TextureDoc {
    /// Name (unique).
    pub name: String,
    /// PNG or JPEG file, relative to the scene file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// Procedural checkerboard.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checker: Option<CheckerDoc>,
    /// Procedural two-colour gradient.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gradient: Option<GradientDoc>,
    /// A single colour (1×1 texel).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub solid: Option<Real4>,
}

/// Checkerboard parameters.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CheckerDoc {
    /// Width and height in texels (default `[64, 64]`).
    pub size: [u32; 2],
    /// Squares across and down (default `[8, 8]`).
    pub cells: [u32; 2],
    /// The two colours; the top-left square has the first (default black, white).
    pub colors: [Real4; 2],
}

impl Default for CheckerDoc {
    fn default() -> Self {
        CheckerDoc {
            size: [64, 64],
            cells: [8, 8],
            colors: [r4(0.0, 0.0, 0.0, 1.0), r4(1.0, 1.0, 1.0, 1.0)],
        }
    }
}

/// Gradient direction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GradientDirection {
    /// `from` on the left, `to` on the right.
    #[default]
    Horizontal,
    /// `from` on the top row, `to` on the bottom row.
    Vertical,
}

/// Gradient parameters.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct GradientDoc {
    /// Width and height in texels (default `[64, 64]`).
    pub size: [u32; 2],
    /// First colour (default black).
    pub from: Real4,
    /// Last colour (default white).
    pub to: Real4,
    /// Direction (default `horizontal`).
    pub direction: GradientDirection,
}

impl Default for GradientDoc {
    fn default() -> Self {
        GradientDoc {
            size: [64, 64],
            from: r4(0.0, 0.0, 0.0, 1.0),
            to: r4(1.0, 1.0, 1.0, 1.0),
            direction: GradientDirection::Horizontal,
        }
    }
}

/// Sampler (defaults: trilinear, repeat).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SamplerDoc {
    /// Magnification filter (default `linear`).
    pub mag: MagDoc,
    /// Minification filter (default `linear_mipmap_linear`).
    pub min: MinDoc,
    /// Wrap along u (default `repeat`).
    pub wrap_u: WrapDoc,
    /// Wrap along v (default `repeat`).
    pub wrap_v: WrapDoc,
    /// Border colour for `clamp_to_border` (default `[0, 0, 0, 0]`).
    pub border: Real4,
    /// Level-of-detail bias (default 0).
    pub lod_bias: Real,
    /// Smallest level of detail (default −1000).
    pub min_lod: Real,
    /// Largest level of detail (default 1000).
    pub max_lod: Real,
    /// Maximum anisotropy 1–16 (default 1: off).
    pub anisotropy: u8,
}

impl Default for SamplerDoc {
    fn default() -> Self {
        SamplerDoc::from(Sampler::TRILINEAR)
    }
}

impl From<Sampler> for SamplerDoc {
    fn from(s: Sampler) -> Self {
        SamplerDoc {
            mag: s.mag.into(),
            min: s.min.into(),
            wrap_u: s.wrap_u.into(),
            wrap_v: s.wrap_v.into(),
            border: r4(s.border.x, s.border.y, s.border.z, s.border.w),
            lod_bias: Real::lit(s.lod_bias),
            min_lod: Real::lit(s.min_lod),
            max_lod: Real::lit(s.max_lod),
            anisotropy: s.max_anisotropy,
        }
    }
}

/// Texture apply mode: the fixed modes, or a named combiner preset.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ApplyDoc {
    /// `C = Ct`, `A = At`.
    Replace,
    /// `C = (1 − At)·Cf + At·Ct`.
    Decal,
    /// `C = Ct·Cf`, `A = At·Af`.
    #[default]
    Modulate,
    /// `C = (1 − Ct)·Cf + Ct·Cc` (`Cc`: the stage's `constant`).
    Blend,
    /// `C = Ct + Cf`.
    Add,
    /// Combiner preset: modulate.
    CombineModulate,
    /// Combiner preset: replace RGB, keep the previous alpha.
    CombineReplaceRgb,
    /// Combiner preset: soft add `Cs + Cd·(1 − Cs)` (needs a white `constant`).
    CombineSoftAdd,
    /// Combiner preset: dot3 (bump maps).
    CombineDot3,
}

mirror!(
    /// Combiner function names (`replace`, `modulate`, `add`, `add_signed`, `interpolate`,
    /// `subtract`, `dot3_rgb`, `dot3_rgba`).
    CombineFnDoc => CombineFn { Replace, Modulate, Add, AddSigned, Interpolate, Subtract,
    Dot3Rgb, Dot3Rgba }
);
mirror!(
    /// Combiner argument sources.
    SourceDoc => Source { Texture, Constant, Primary, Previous }
);
mirror!(
    /// Combiner argument operands.
    OperandDoc => Operand { Color, OneMinusColor, Alpha, OneMinusAlpha }
);

/// A full `COMBINE` setup (`GL_ARB_texture_env_combine`): separate RGB and alpha functions on
/// arguments `V0, V1, V2`. Defaults: GL's initial combiner state (modulate texture × previous).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CombineDoc {
    /// RGB function.
    pub rgb: CombineFnDoc,
    /// Alpha function.
    pub alpha: CombineFnDoc,
    /// Sources of the RGB arguments.
    pub src_rgb: [SourceDoc; 3],
    /// Operands of the RGB arguments.
    pub op_rgb: [OperandDoc; 3],
    /// Sources of the alpha arguments.
    pub src_alpha: [SourceDoc; 3],
    /// Operands of the alpha arguments (`color` reads as `alpha`).
    pub op_alpha: [OperandDoc; 3],
    /// RGB scale (1, 2 or 4 in GL).
    pub rgb_scale: Real,
    /// Alpha scale.
    pub alpha_scale: Real,
}

impl Default for CombineDoc {
    fn default() -> Self {
        CombineDoc::from(&CombineState::MODULATE)
    }
}

/// Engine → doc (the scene saver).
impl From<&CombineState> for CombineDoc {
    fn from(c: &CombineState) -> Self {
        CombineDoc {
            rgb: c.rgb.into(),
            alpha: c.alpha.into(),
            src_rgb: c.src_rgb.map(Into::into),
            op_rgb: c.op_rgb.map(Into::into),
            src_alpha: c.src_alpha.map(Into::into),
            op_alpha: c.op_alpha.map(Into::into),
            rgb_scale: Real::lit(c.rgb_scale),
            alpha_scale: Real::lit(c.alpha_scale),
        }
    }
}

impl From<&CombineDoc> for CombineState {
    fn from(d: &CombineDoc) -> CombineState {
        CombineState {
            rgb: d.rgb.into(),
            alpha: d.alpha.into(),
            src_rgb: d.src_rgb.map(Into::into),
            op_rgb: d.op_rgb.map(Into::into),
            src_alpha: d.src_alpha.map(Into::into),
            op_alpha: d.op_alpha.map(Into::into),
            rgb_scale: d.rgb_scale.get(),
            alpha_scale: d.alpha_scale.get(),
        }
    }
}

/// Where a stage's texture coordinates come from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum CoordsDoc {
    /// The mesh's uv set with this index (`{"uv": 1}`).
    Uv(usize),
    /// Sphere map from the eye-space reflection vector (`"sphere_map"`).
    SphereMap,
    /// Projected from the named camera (`{"projector": "slide"}`).
    Projector(String),
    /// GL object-linear texgen: 1 to 4 planes `[a, b, c, d]` for s, t, r, q dotted with the
    /// model-space position (`{"object_linear": [[1, 0, 0, 0], [0, 0, 1, 0]]}`); planes left
    /// out are s `[1,0,0,0]`, t `[0,1,0,0]`, r `[0,0,0,0]`, q `[0,0,0,1]`.
    ObjectLinear(Vec<Real4>),
    /// GL eye-linear texgen: as `object_linear` with the view-space position.
    EyeLinear(Vec<Real4>),
    /// Projected with a world → texture matrix, 16 numbers column-major
    /// (`{"projected": [...]}`): `(s, t, r, q) = M·(x, y, z, 1)` of the world position,
    /// sampled at `(s/q, t/q)`; what `projector` computes from a camera (bias · clip · view),
    /// written exactly by the scene saver.
    Projected(Box<[Real; 16]>),
}

/// The document form of linear texgen coordinates (engine → doc; `None` for the other
/// kinds, which name uv sets or cameras). Always four planes.
// The engine → doc half, for the scene saver (issue 14); tested below.
#[cfg_attr(
    not(test),
    allow(
        dead_code,
        reason = "the engine → doc half, for the scene saver (issue 14)"
    )
)]
pub(crate) fn linear_coords_doc(c: &TexCoords) -> Option<CoordsDoc> {
    let doc = |planes: &[glam::Vec4; 4]| planes.iter().map(|p| r4(p.x, p.y, p.z, p.w)).collect();
    match c {
        TexCoords::ObjectLinear { planes } => Some(CoordsDoc::ObjectLinear(doc(planes))),
        TexCoords::EyeLinear { planes } => Some(CoordsDoc::EyeLinear(doc(planes))),
        _ => None,
    }
}

impl Default for CoordsDoc {
    fn default() -> Self {
        CoordsDoc::Uv(0)
    }
}

/// One texture stage.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StageDoc {
    /// Texture name.
    pub texture: String,
    /// Sampler (default trilinear, repeat).
    #[serde(default)]
    pub sampler: SamplerDoc,
    /// Apply mode (default `modulate`; left out when `combine` is given).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub apply: Option<ApplyDoc>,
    /// A full combiner setup instead of `apply` (which must then be left out).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub combine: Option<CombineDoc>,
    /// Constant colour (default `[0, 0, 0, 1]`).
    #[serde(default = "black")]
    pub constant: Real4,
    /// Coordinates (default `{"uv": 0}`).
    #[serde(default)]
    pub coords: CoordsDoc,
    /// Texture matrix on `(s, t, 1)`, 9 numbers column-major (default identity).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub matrix: Option<[Real; 9]>,
}

fn black() -> Real4 {
    r4(0.0, 0.0, 0.0, 1.0)
}

/// An effect (see `docs/scene-format.md` for where each may sit).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum EffectDoc {
    /// Texture stages (leaf: local; group: appended to its leaves' stages).
    Textures(Vec<StageDoc>),
    /// Per-vertex colours replacing the mesh's (leaf).
    VertexColors(Vec<Real4>),
    /// Gloss map: the stage's alpha masks the specular highlight (leaf).
    GlossMap(StageDoc),
    /// Dot3 bump map (leaf).
    BumpMap(Box<BumpMapDoc>),
    /// Dark map: `primary` replace on uv 0, `secondary` modulate on uv 1 (leaf or group).
    DarkMap(TwoTexturesDoc),
    /// Light map: `primary` replace on uv 0, `secondary` added on uv 1 (leaf or group).
    LightMap(TwoTexturesDoc),
    /// Sphere environment map (leaf or group).
    EnvironmentMap(EnvironmentMapDoc),
    /// Projected texture from a named camera (leaf or group).
    ProjectedTexture(ProjectedTextureDoc),
    /// Planar shadows of the group's subtree on named geometry leaves (group).
    PlanarShadow(PlanarShadowDoc),
    /// Planar reflections of the group's subtree in named geometry leaves (group).
    PlanarReflection(PlanarReflectionDoc),
    /// glTF's metallic-roughness material, lit per pixel (leaf).
    Pbr(Box<PbrDoc>),
}

/// `pbr` parameters: glTF's metallic-roughness material (linear factors; the base colour and
/// emissive textures hold sRGB values; each texture a stage reading a uv set, its apply mode
/// unused).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PbrDoc {
    /// `baseColorFactor` (default white).
    #[serde(default = "white")]
    pub base_color: Real4,
    /// `metallicFactor` (default 1).
    #[serde(default = "one")]
    pub metallic: Real,
    /// `roughnessFactor` (default 1).
    #[serde(default = "one")]
    pub roughness: Real,
    /// Emission (default black).
    #[serde(default = "black3")]
    pub emissive: Real3,
    /// `normalTexture.scale` (default 1).
    #[serde(default = "one")]
    pub normal_scale: Real,
    /// `occlusionTexture.strength` (default 1).
    #[serde(default = "one")]
    pub occlusion_strength: Real,
    /// Base colour texture.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base_color_texture: Option<StageDoc>,
    /// Metallic (blue) and roughness (green) texture.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metallic_roughness_texture: Option<StageDoc>,
    /// Tangent-space normal texture (the mesh needs tangents).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub normal_texture: Option<StageDoc>,
    /// Occlusion texture (red).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub occlusion_texture: Option<StageDoc>,
    /// Emissive texture.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub emissive_texture: Option<StageDoc>,
    /// glTF `OPAQUE`: alpha 1 written (default true).
    #[serde(default = "yes")]
    pub opaque: bool,
    /// Back faces lit with the normal reversed (default false).
    #[serde(default)]
    pub double_sided: bool,
}

fn black3() -> Real3 {
    r3(0.0, 0.0, 0.0)
}

/// `bump_map` parameters.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BumpMapDoc {
    /// Base stage (modulated onto the bump shading).
    pub base: StageDoc,
    /// Normal map stage (apply `combine_dot3`).
    pub normal_map: StageDoc,
    /// Name of the light whose direction is encoded.
    pub light: String,
    /// Stages applied after the base (e.g. an imported material's ambient, occlusion and
    /// emission stages; default none).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub extra: Vec<StageDoc>,
}

/// `dark_map` / `light_map` parameters.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TwoTexturesDoc {
    /// Base texture (uv set 0).
    pub primary: String,
    /// Dark or light texture (uv set 1).
    pub secondary: String,
    /// Sampler of both (default trilinear, repeat).
    #[serde(default)]
    pub sampler: SamplerDoc,
    /// Light map only: hard add instead of soft add (default false).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub hard: bool,
}

/// `environment_map` parameters.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EnvironmentMapDoc {
    /// Sphere-map texture.
    pub texture: String,
    /// Apply mode (default `modulate`).
    #[serde(default)]
    pub apply: ApplyDoc,
}

/// `projected_texture` parameters.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProjectedTextureDoc {
    /// The slide.
    pub texture: String,
    /// Name of the projector camera.
    pub projector: String,
    /// Apply mode (default `modulate`).
    #[serde(default)]
    pub apply: ApplyDoc,
    /// Colour outside the slide (default `[1, 1, 1, 1]`: no change under modulate).
    #[serde(default = "white")]
    pub border: Real4,
}

fn white() -> Real4 {
    r4(1.0, 1.0, 1.0, 1.0)
}

/// `planar_shadow` parameters.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlanarShadowDoc {
    /// Names of the receiving geometry leaves.
    pub planes: Vec<String>,
    /// Name of the light casting the shadows.
    pub light: String,
    /// Shadow colour; alpha is the opacity (default `[0, 0, 0, 0.5]`).
    #[serde(default = "shadow")]
    pub color: Real4,
}

fn shadow() -> Real4 {
    r4(0.0, 0.0, 0.0, 0.5)
}

/// `planar_reflection` parameters.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlanarReflectionDoc {
    /// Mirrors.
    pub planes: Vec<MirrorDoc>,
}

/// One mirror of a planar reflection.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MirrorDoc {
    /// Name of the geometry leaf.
    pub node: String,
    /// Reflectance 0–1.
    pub reflectance: Real,
}

#[cfg(feature = "internal-tests")]
pub(crate) mod tests {
    /// Every test of this module: `tests/unit.rs` runs each as one trial (an unlisted
    /// test fails the build as dead code).
    pub(crate) const TESTS: &[(&str, fn())] = &[
        (
            "blend_equations_map_to_doc_names",
            blend_equations_map_to_doc_names,
        ),
        (
            "clip_planes_close_up_disabled_slots",
            clip_planes_close_up_disabled_slots,
        ),
        (
            "point_line_and_linear_coords_map_to_doc",
            point_line_and_linear_coords_map_to_doc,
        ),
    ];

    use glam::Vec4;

    use super::*;

    fn blend_equations_map_to_doc_names() {
        assert_eq!(blend_equations_doc(&AlphaState::OPAQUE), (None, None));
        let a = AlphaState {
            equation: BlendEquation::ReverseSubtract,
            alpha_equation: Some(BlendEquation::Max),
            ..AlphaState::ADDITIVE
        };
        assert_eq!(
            blend_equations_doc(&a),
            (
                Some(BlendEquationDoc::ReverseSubtract),
                Some(BlendEquationDoc::Max)
            )
        );
        let json = serde_json::to_string(&BlendEquationDoc::ReverseSubtract).unwrap();
        assert_eq!(json, "\"reverse_subtract\"");
    }

    fn clip_planes_close_up_disabled_slots() {
        let mut c = ClipPlaneState::NONE;
        c.planes[1] = Some(Vec4::new(1.0, 0.0, 0.0, 0.5));
        c.planes[4] = Some(Vec4::new(0.0, -1.0, 0.0, 2.0));
        assert_eq!(
            clip_planes_doc(&c),
            vec![r4(1.0, 0.0, 0.0, 0.5), r4(0.0, -1.0, 0.0, 2.0)]
        );
    }

    fn point_line_and_linear_coords_map_to_doc() {
        let d = PointLineDoc::from(PointLineState {
            point_size: 8.0,
            line_width: 2.5,
        });
        assert_eq!((d.point_size.get(), d.line_width.get()), (8.0, 2.5));
        let planes = TexCoords::linear_planes(&[Vec4::new(0.5, 0.0, 0.0, 0.5)]);
        let doc = linear_coords_doc(&TexCoords::ObjectLinear { planes }).unwrap();
        assert_eq!(
            doc,
            CoordsDoc::ObjectLinear(vec![
                r4(0.5, 0.0, 0.0, 0.5),
                r4(0.0, 1.0, 0.0, 0.0),
                r4(0.0, 0.0, 0.0, 0.0),
                r4(0.0, 0.0, 0.0, 1.0),
            ])
        );
        assert_eq!(linear_coords_doc(&TexCoords::SphereMap), None);
    }
}
