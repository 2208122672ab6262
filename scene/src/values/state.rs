//! Global render states (Eberly's `GlobalState` family, book §3.5), plus two extensions the
//! book does not have: stencil and polygon offset.
//!
//! Every state is plain `Copy` data whose `Default` is the book's default (the tables of
//! `shared/spec/book-ch3.md` §5). A node carries at most one state of each [`StateKind`]
//! ([`Scene::set_global_state`](crate::Scene::set_global_state) replaces one of the same
//! kind); `update` resolves, for every geometry leaf, the **deepest** state of each kind on
//! the path from the root (or the default), into a [`RenderStates`] — see
//! [`render_state`](crate::passes::render_state).
//!
//! The comparison, blend-factor and stencil vocabularies are shared with plumb-raster (plain
//! data, no CPU machinery): [`CompareFunc`], [`BlendFactor`], [`StencilOp`], and the stencil
//! state itself, [`StencilState`] (an extension: the book has no stencil state; its renderer
//! uses the stencil buffer internally for planar shadows and reflections). GL semantics: the
//! test passes when `(reference & read_mask) FUNC (stored & read_mask)`; `Default`: off.
//!
//! # Book deviations (all documented at the type)
//! * Blend factors: one enum for source and destination (GL's); the book's split enums are
//!   subsets of it.
//! * Fog distance is eye-space depth `|z_eye|` by default (the GL choice the book leaves
//!   open); [`Fog::distance`] can make it the radial eye distance (NV_fog_distance).
//! * Four more GL 1.x switches the book's fixed-function model lacks, reachable because
//!   plumb-raster has them: blend equations ([`AlphaState::equation`]), per-pixel lighting
//!   ([`ShadeState::PerPixel`]), point size and line width ([`PointLineState`]) and user clip
//!   planes ([`ClipPlaneState`]).
//! * The dither state is a documented no-op: the framebuffer is RGBA8 with exact rounding.
//! * The alpha state carries the blend constant colour (`constant_color`), which the book
//!   misplaces in `Texture` (Appendix A, L6129).

use glam::{Vec3, Vec4};
pub use plumb_raster::fog::FogDistance;
pub use plumb_raster::{
    BlendEquation, BlendFactor, CompareFunc, FrontFace, StencilOp, StencilState, MAX_CLIP_PLANES,
};

/// The kinds of global state, in the book's enum order followed by the two extensions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum StateKind {
    /// [`AlphaState`] (book `ALPHA = 0`).
    Alpha = 0,
    /// [`CullState`].
    Cull = 1,
    /// [`DitherState`].
    Dither = 2,
    /// [`Fog`].
    Fog = 3,
    /// [`MaterialState`].
    Material = 4,
    /// [`ShadeState`].
    Shade = 5,
    /// [`WireframeState`].
    Wireframe = 6,
    /// [`ZBufferState`] (book `ZBUFFER = 7`).
    ZBuffer = 7,
    /// [`StencilState`] (extension; not in the book).
    Stencil = 8,
    /// [`PolygonOffsetState`] (extension; not in the book).
    PolygonOffset = 9,
    /// [`PointLineState`] (extension; not in the book).
    PointLine = 10,
    /// [`ClipPlaneState`] (extension; not in the book).
    ClipPlanes = 11,
}

impl StateKind {
    /// Number of kinds.
    pub const COUNT: usize = 12;
    /// Every kind, in enum order.
    pub const ALL: [StateKind; StateKind::COUNT] = [
        StateKind::Alpha,
        StateKind::Cull,
        StateKind::Dither,
        StateKind::Fog,
        StateKind::Material,
        StateKind::Shade,
        StateKind::Wireframe,
        StateKind::ZBuffer,
        StateKind::Stencil,
        StateKind::PolygonOffset,
        StateKind::PointLine,
        StateKind::ClipPlanes,
    ];
}

/// Blending and alpha test (book `AlphaState`). `Default`: blending off with the classic
/// factors `SRC_ALPHA` / `ONE_MINUS_SRC_ALPHA`, test off with `ALWAYS` and reference 0,
/// constant colour (0, 0, 0, 0).
///
/// Blending is `F = σ∘Src + δ∘Dst` (book eq. 3.6), clamped to [0, 1], with the default
/// [`equation`](Self::equation) `ADD`; GL's other blend equations (`glBlendEquation`, an
/// extension of the book's state) combine the two terms differently: `SUBTRACT` `σ∘Src − δ∘Dst`,
/// `REVERSE_SUBTRACT` `δ∘Dst − σ∘Src`, `MIN` / `MAX` `min(Src, Dst)` / `max(Src, Dst)` per
/// channel (factors ignored). A fragment that fails the
/// alpha test (`test(A_src, reference)` false) is not drawn and does not touch depth.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AlphaState {
    /// Blending on.
    pub blend_enabled: bool,
    /// Source factor σ.
    pub src_blend: BlendFactor,
    /// Destination factor δ.
    pub dst_blend: BlendFactor,
    /// Alpha test on.
    pub test_enabled: bool,
    /// Alpha test comparison `A_src OP reference`.
    pub test: CompareFunc,
    /// Alpha test reference in [0, 1].
    pub reference: f32,
    /// The blend constant colour (`CONSTANT_COLOR` / `CONSTANT_ALPHA` factors).
    pub constant_color: Vec4,
    /// Separate source and destination factors for the **alpha channel**
    /// (`glBlendFuncSeparate`, an extension of the book's state); `None` blends alpha with
    /// [`src_blend`](Self::src_blend) and [`dst_blend`](Self::dst_blend) like RGB.
    pub alpha_factors: Option<(BlendFactor, BlendFactor)>,
    /// How the weighted source and destination combine (`glBlendEquation`; default `Add`).
    pub equation: BlendEquation,
    /// A separate equation for the **alpha channel** (`glBlendEquationSeparate`); `None`
    /// uses [`equation`](Self::equation).
    pub alpha_equation: Option<BlendEquation>,
}

impl AlphaState {
    /// The book's default: opaque (no blending, no test).
    pub const OPAQUE: AlphaState = AlphaState {
        blend_enabled: false,
        src_blend: BlendFactor::SrcAlpha,
        dst_blend: BlendFactor::OneMinusSrcAlpha,
        test_enabled: false,
        test: CompareFunc::Always,
        reference: 0.0,
        constant_color: Vec4::ZERO,
        alpha_factors: None,
        equation: BlendEquation::Add,
        alpha_equation: None,
    };
    /// Classic transparency `as·src + (1 − as)·dst` (the enum semantics; the book's printed
    /// eq. 3.5 swaps the roles).
    pub const BLEND: AlphaState =
        AlphaState::blend(BlendFactor::SrcAlpha, BlendFactor::OneMinusSrcAlpha);
    /// Additive `src + dst`.
    pub const ADDITIVE: AlphaState = AlphaState::blend(BlendFactor::One, BlendFactor::One);
    /// Multiplicative `src·dst` (`DST_COLOR`, `ZERO`).
    pub const MULTIPLY: AlphaState = AlphaState::blend(BlendFactor::DstColor, BlendFactor::Zero);
    /// The book's soft addition, eq. 3.7: `(1 − dst)·src + dst`.
    pub const SOFT_ADD: AlphaState =
        AlphaState::blend(BlendFactor::OneMinusDstColor, BlendFactor::One);
    /// Premultiplied alpha `src + (1 − as)·dst`.
    pub const PREMULTIPLIED: AlphaState =
        AlphaState::blend(BlendFactor::One, BlendFactor::OneMinusSrcAlpha);
    /// [`AlphaState::BLEND`] for colour, with the alpha channel composited "over"
    /// (`as + (1 − as)·ad`): a translucent surface over an opaque background leaves the
    /// stored alpha at 1 instead of `as² + (1 − as)·ad`. Used for glTF `BLEND` materials.
    pub const BLEND_OVER: AlphaState = AlphaState {
        alpha_factors: Some((BlendFactor::One, BlendFactor::OneMinusSrcAlpha)),
        ..AlphaState::BLEND
    };

    /// Blending on with the given factors; no alpha test.
    pub const fn blend(src: BlendFactor, dst: BlendFactor) -> AlphaState {
        AlphaState {
            blend_enabled: true,
            src_blend: src,
            dst_blend: dst,
            ..AlphaState::OPAQUE
        }
    }

    /// Alpha test on (`A_src test reference`), blending off.
    pub const fn alpha_test(test: CompareFunc, reference: f32) -> AlphaState {
        AlphaState {
            test_enabled: true,
            test,
            reference,
            ..AlphaState::OPAQUE
        }
    }

    /// Whether geometry under this state is drawn in the transparent (sorted) group: blending
    /// is on and the colour is not simply replaced (factors `(ONE, ZERO)` with equation `ADD`
    /// or `SUBTRACT`, used to give the alpha channel its own factors, hide what is behind).
    pub fn is_transparent(&self) -> bool {
        let replaces = self.src_blend == BlendFactor::One
            && self.dst_blend == BlendFactor::Zero
            && matches!(self.equation, BlendEquation::Add | BlendEquation::Subtract);
        self.blend_enabled && !replaces
    }
}

impl Default for AlphaState {
    fn default() -> Self {
        AlphaState::OPAQUE
    }
}

/// Which faces the cull state discards (book `CullFace`, `CT_FRONT, CT_BACK`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum CullFace {
    /// Discard front faces.
    Front,
    /// Discard back faces.
    #[default]
    Back,
}

/// Face culling (book `CullState`). `Default`: enabled, front faces counter-clockwise, cull
/// back faces. Disabled means double-sided. Edge-on triangles count as back faces (they have no
/// area and are never drawn).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CullState {
    /// Culling on.
    pub enabled: bool,
    /// Winding of front faces as seen on screen.
    pub front_face: FrontFace,
    /// Which faces are discarded.
    pub cull_face: CullFace,
}

impl CullState {
    /// The book's default: cull back faces, CCW front.
    pub const BACK: CullState = CullState {
        enabled: true,
        front_face: FrontFace::Ccw,
        cull_face: CullFace::Back,
    };
    /// Cull front faces, CCW front.
    pub const FRONT: CullState = CullState {
        enabled: true,
        front_face: FrontFace::Ccw,
        cull_face: CullFace::Front,
    };
    /// No culling (double-sided).
    pub const NONE: CullState = CullState {
        enabled: false,
        front_face: FrontFace::Ccw,
        cull_face: CullFace::Back,
    };
}

impl Default for CullState {
    fn default() -> Self {
        CullState::BACK
    }
}

/// Dithering (book `DitherState`, default off). **A documented no-op** in plumb: the
/// framebuffer is RGBA8 with exact `floor(x·255 + 0.5)` rounding, so there is nothing to
/// dither; the state is carried so scenes and other backends keep it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct DitherState {
    /// Dithering requested.
    pub enabled: bool,
}

/// The fog density function (book `DensityFunction`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum FogDensity {
    /// `f = (end − z)/(end − start)`.
    #[default]
    Linear,
    /// `f = exp(−density·z)`.
    Exp,
    /// `f = exp(−(density·z)²)`.
    ExpSquared,
}

/// Where the fog factor is computed (book `ApplyFunction`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum FogApply {
    /// At the vertices, interpolated.
    #[default]
    PerVertex,
    /// At every pixel.
    PerPixel,
}

/// Fog (book `FogState`; plumb-raster's `FogState` is the pipeline's, which the renderer
/// builds from this). `Default`: off, linear 0..1, density 1, colour (0, 0, 0, 1), per
/// vertex, eye-depth distance. The blend is `C = f·C + (1 − f)·fog` on RGB (the book's printed
/// formula swaps the terms; Appendix A); `z` is the eye-space depth `|z_eye|` (GL's), or with
/// [`FogDistance::Radial`] the Euclidean eye distance `|p_eye|` (NV_fog_distance
/// `EYE_RADIAL_NV`, range-based fog: constant on a sphere about the eye).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Fog {
    /// Fog on.
    pub enabled: bool,
    /// Linear start.
    pub start: f32,
    /// Linear end.
    pub end: f32,
    /// Exp / exp² density.
    pub density: f32,
    /// Fog colour (alpha unused).
    pub color: Vec4,
    /// Density function.
    pub density_function: FogDensity,
    /// Per vertex or per pixel.
    pub apply: FogApply,
    /// Which distance the density function takes (extension; default `EyeDepth`).
    pub distance: FogDistance,
}

impl Fog {
    /// The book's default (off).
    pub const OFF: Fog = Fog {
        enabled: false,
        start: 0.0,
        end: 1.0,
        density: 1.0,
        color: Vec4::new(0.0, 0.0, 0.0, 1.0),
        density_function: FogDensity::Linear,
        apply: FogApply::PerVertex,
        distance: FogDistance::EyeDepth,
    };

    /// Linear fog on from `start` to `end` in `color`, per vertex.
    pub const fn linear(start: f32, end: f32, color: Vec4) -> Fog {
        Fog {
            enabled: true,
            start,
            end,
            color,
            ..Fog::OFF
        }
    }
}

impl Default for Fog {
    fn default() -> Self {
        Fog::OFF
    }
}

/// Former name of [`Fog`] (plumb-raster's `FogState` is the pipeline's fog). Kept for existing
/// code; new code names [`Fog`].
pub type FogState = Fog;

/// Surface material (book `MaterialState`). `Default`: emissive (0,0,0,1), ambient
/// (0.2,0.2,0.2,1), diffuse (0.8,0.8,0.8,1), specular (0,0,0,1), shininess 1, no colour
/// material, one-sided lighting. Used only when the geometry has at least one light; the lit
/// alpha is the diffuse alpha (the vertex alpha with `color_material`).
///
/// Two extensions over the book, both GL 1.x lighting-model switches that imported materials
/// need: `color_material` (GL `COLOR_MATERIAL` with `AMBIENT_AND_DIFFUSE`: the vertex colour
/// replaces the ambient and diffuse reflectance and the alpha) and `two_sided` (GL
/// `LIGHT_MODEL_TWO_SIDE`: back faces are lit with the negated normal).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MaterialState {
    /// Emissive colour.
    pub emissive: Vec4,
    /// Ambient reflectance.
    pub ambient: Vec4,
    /// Diffuse reflectance; its alpha is the lit alpha.
    pub diffuse: Vec4,
    /// Specular reflectance.
    pub specular: Vec4,
    /// Specular exponent.
    pub shininess: f32,
    /// Vertex colours replace ambient and diffuse (and the alpha) when lit (extension).
    pub color_material: bool,
    /// Back faces are lit with the negated normal (extension).
    pub two_sided: bool,
}

impl MaterialState {
    /// The book's default.
    pub const DEFAULT: MaterialState = MaterialState {
        emissive: Vec4::new(0.0, 0.0, 0.0, 1.0),
        ambient: Vec4::new(0.2, 0.2, 0.2, 1.0),
        diffuse: Vec4::new(0.8, 0.8, 0.8, 1.0),
        specular: Vec4::new(0.0, 0.0, 0.0, 1.0),
        shininess: 1.0,
        color_material: false,
        two_sided: false,
    };

    /// A matte material: ambient = diffuse = `color` (alpha from `color`), no specular.
    pub fn matte(color: Vec4) -> MaterialState {
        MaterialState {
            ambient: color,
            diffuse: color,
            ..MaterialState::DEFAULT
        }
    }

    /// The same material with specular colour `specular` and exponent `shininess`.
    #[must_use]
    pub fn with_specular(mut self, specular: Vec3, shininess: f32) -> MaterialState {
        self.specular = specular.extend(1.0);
        self.shininess = shininess;
        self
    }
}

impl Default for MaterialState {
    fn default() -> Self {
        MaterialState::DEFAULT
    }
}

/// Flat or smooth shading (book `ShadeState`, default smooth). Flat takes the provoking vertex,
/// which in plumb is the **first** vertex of each triangle (plumb-raster's convention; GL uses
/// the last). `PerPixel` (an extension; Phong shading) is smooth shading with the lighting
/// equation evaluated at every pixel from the interpolated eye-space normal and position
/// instead of at the vertices; it changes only lit geometry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum ShadeState {
    /// One colour per primitive.
    Flat,
    /// Gouraud interpolation.
    #[default]
    Smooth,
    /// Smooth, lit per pixel (extension).
    PerPixel,
}

/// Wireframe (book `WireframeState`, default off): only triangle edges are drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct WireframeState {
    /// Edges only.
    pub enabled: bool,
}

/// Depth buffering (book `ZBufferState`). `Default`: enabled, writable, `LEQUAL`. Disabled
/// means no test and no writes (the GL renderer disables `GL_DEPTH_TEST`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ZBufferState {
    /// Depth test on.
    pub enabled: bool,
    /// Depth writes on (when enabled).
    pub writable: bool,
    /// Comparison `incoming OP stored`.
    pub compare: CompareFunc,
}

impl ZBufferState {
    /// The book's default: `LEQUAL`, writable.
    pub const DEFAULT: ZBufferState = ZBufferState {
        enabled: true,
        writable: true,
        compare: CompareFunc::LessEqual,
    };
    /// Test `LEQUAL`, no writes (the usual setting for transparent geometry).
    pub const READ_ONLY: ZBufferState = ZBufferState {
        enabled: true,
        writable: false,
        compare: CompareFunc::LessEqual,
    };
    /// No test, no writes.
    pub const DISABLED: ZBufferState = ZBufferState {
        enabled: false,
        writable: false,
        compare: CompareFunc::Always,
    };
}

impl Default for ZBufferState {
    fn default() -> Self {
        ZBufferState::DEFAULT
    }
}

/// Polygon offset (extension; GL `glPolygonOffset`): depth `+= factor·slope + units·r`.
/// `Default`: off.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct PolygonOffsetState {
    /// Offset on.
    pub enabled: bool,
    /// Slope factor.
    pub factor: f32,
    /// Constant units.
    pub units: f32,
}

/// Point size and line width in pixels (extension; GL `glPointSize`, `glLineWidth`).
/// `Default`: 1 and 1. Points are squares `point_size` pixels wide centred on the vertex; lines
/// are `line_width` pixels wide (GL's non-antialiased rules, as plumb-raster draws them). Both
/// must be finite and positive.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PointLineState {
    /// Point size in pixels.
    pub point_size: f32,
    /// Line width in pixels.
    pub line_width: f32,
}

impl PointLineState {
    /// GL's default: one pixel each.
    pub const DEFAULT: PointLineState = PointLineState {
        point_size: 1.0,
        line_width: 1.0,
    };
}

impl Default for PointLineState {
    fn default() -> Self {
        PointLineState::DEFAULT
    }
}

/// User clip planes (extension; GL `glClipPlane` / `GL_CLIP_PLANEi`). Each plane is
/// `(a, b, c, d)` in **world** space: a point `p` is kept where `a·x + b·y + c·z + d ≥ 0`, and
/// primitives are clipped exactly at the plane (unlike the camera's extra planes, which only
/// cull whole nodes). At most [`MAX_CLIP_PLANES`] planes; `Default`: none. A multipass effect
/// that needs a clip plane of its own (planar reflection) uses a slot the user's planes leave
/// free.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct ClipPlaneState {
    /// The planes, in slot order; `None` is a disabled slot.
    pub planes: [Option<Vec4>; MAX_CLIP_PLANES],
}

impl ClipPlaneState {
    /// No plane.
    pub const NONE: ClipPlaneState = ClipPlaneState {
        planes: [None; MAX_CLIP_PLANES],
    };

    /// The given planes in the first slots (extra planes past [`MAX_CLIP_PLANES`] are
    /// dropped).
    pub fn new(planes: &[Vec4]) -> ClipPlaneState {
        let mut s = ClipPlaneState::NONE;
        for (slot, p) in s.planes.iter_mut().zip(planes) {
            *slot = Some(*p);
        }
        s
    }

    /// The enabled planes in slot order.
    pub fn enabled(&self) -> impl Iterator<Item = Vec4> + '_ {
        self.planes.iter().flatten().copied()
    }
}

/// One global state of any kind (what a node carries).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum GlobalState {
    /// Blending and alpha test.
    Alpha(AlphaState),
    /// Face culling.
    Cull(CullState),
    /// Dithering (no-op).
    Dither(DitherState),
    /// Fog.
    Fog(Fog),
    /// Material.
    Material(MaterialState),
    /// Shading.
    Shade(ShadeState),
    /// Wireframe.
    Wireframe(WireframeState),
    /// Depth buffer.
    ZBuffer(ZBufferState),
    /// Stencil (extension).
    Stencil(StencilState),
    /// Polygon offset (extension).
    PolygonOffset(PolygonOffsetState),
    /// Point size and line width (extension).
    PointLine(PointLineState),
    /// User clip planes (extension).
    ClipPlanes(ClipPlaneState),
}

impl GlobalState {
    /// The kind of this state.
    pub fn kind(&self) -> StateKind {
        match self {
            GlobalState::Alpha(_) => StateKind::Alpha,
            GlobalState::Cull(_) => StateKind::Cull,
            GlobalState::Dither(_) => StateKind::Dither,
            GlobalState::Fog(_) => StateKind::Fog,
            GlobalState::Material(_) => StateKind::Material,
            GlobalState::Shade(_) => StateKind::Shade,
            GlobalState::Wireframe(_) => StateKind::Wireframe,
            GlobalState::ZBuffer(_) => StateKind::ZBuffer,
            GlobalState::Stencil(_) => StateKind::Stencil,
            GlobalState::PolygonOffset(_) => StateKind::PolygonOffset,
            GlobalState::PointLine(_) => StateKind::PointLine,
            GlobalState::ClipPlanes(_) => StateKind::ClipPlanes,
        }
    }

    /// Whether every number in the state is finite.
    pub fn is_finite(&self) -> bool {
        match self {
            GlobalState::Alpha(a) => a.reference.is_finite() && a.constant_color.is_finite(),
            GlobalState::Fog(f) => {
                f.start.is_finite()
                    && f.end.is_finite()
                    && f.density.is_finite()
                    && f.color.is_finite()
            }
            GlobalState::Material(m) => {
                m.emissive.is_finite()
                    && m.ambient.is_finite()
                    && m.diffuse.is_finite()
                    && m.specular.is_finite()
                    && m.shininess.is_finite()
            }
            GlobalState::PolygonOffset(p) => p.factor.is_finite() && p.units.is_finite(),
            GlobalState::PointLine(p) => p.point_size.is_finite() && p.line_width.is_finite(),
            GlobalState::ClipPlanes(c) => c.enabled().all(|p| p.is_finite()),
            _ => true,
        }
    }
}

/// One state of every kind: what a geometry leaf is drawn with. `Default` is every book default
/// (Eberly's `GlobalState::Default[]`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RenderStates {
    /// Blending and alpha test.
    pub alpha: AlphaState,
    /// Face culling.
    pub cull: CullState,
    /// Dithering (no-op).
    pub dither: DitherState,
    /// Fog.
    pub fog: Fog,
    /// Material.
    pub material: MaterialState,
    /// Shading.
    pub shade: ShadeState,
    /// Wireframe.
    pub wireframe: WireframeState,
    /// Depth buffer.
    pub zbuffer: ZBufferState,
    /// Stencil (extension).
    pub stencil: StencilState,
    /// Polygon offset (extension).
    pub polygon_offset: PolygonOffsetState,
    /// Point size and line width (extension).
    pub point_line: PointLineState,
    /// User clip planes (extension).
    pub clip_planes: ClipPlaneState,
}

impl Default for RenderStates {
    fn default() -> Self {
        RenderStates::DEFAULT
    }
}

impl RenderStates {
    /// The book defaults.
    pub const DEFAULT: RenderStates = RenderStates {
        alpha: AlphaState::OPAQUE,
        cull: CullState::BACK,
        dither: DitherState { enabled: false },
        fog: Fog::OFF,
        material: MaterialState::DEFAULT,
        shade: ShadeState::Smooth,
        wireframe: WireframeState { enabled: false },
        zbuffer: ZBufferState::DEFAULT,
        stencil: StencilState::DISABLED,
        polygon_offset: PolygonOffsetState {
            enabled: false,
            factor: 0.0,
            units: 0.0,
        },
        point_line: PointLineState::DEFAULT,
        clip_planes: ClipPlaneState::NONE,
    };

    /// Replaces the state of `s`'s kind with `s`.
    pub fn set(&mut self, s: GlobalState) {
        match s {
            GlobalState::Alpha(x) => self.alpha = x,
            GlobalState::Cull(x) => self.cull = x,
            GlobalState::Dither(x) => self.dither = x,
            GlobalState::Fog(x) => self.fog = x,
            GlobalState::Material(x) => self.material = x,
            GlobalState::Shade(x) => self.shade = x,
            GlobalState::Wireframe(x) => self.wireframe = x,
            GlobalState::ZBuffer(x) => self.zbuffer = x,
            GlobalState::Stencil(x) => self.stencil = x,
            GlobalState::PolygonOffset(x) => self.polygon_offset = x,
            GlobalState::PointLine(x) => self.point_line = x,
            GlobalState::ClipPlanes(x) => self.clip_planes = x,
        }
    }

    /// The state of one kind.
    pub fn get(&self, kind: StateKind) -> GlobalState {
        match kind {
            StateKind::Alpha => GlobalState::Alpha(self.alpha),
            StateKind::Cull => GlobalState::Cull(self.cull),
            StateKind::Dither => GlobalState::Dither(self.dither),
            StateKind::Fog => GlobalState::Fog(self.fog),
            StateKind::Material => GlobalState::Material(self.material),
            StateKind::Shade => GlobalState::Shade(self.shade),
            StateKind::Wireframe => GlobalState::Wireframe(self.wireframe),
            StateKind::ZBuffer => GlobalState::ZBuffer(self.zbuffer),
            StateKind::Stencil => GlobalState::Stencil(self.stencil),
            StateKind::PolygonOffset => GlobalState::PolygonOffset(self.polygon_offset),
            StateKind::PointLine => GlobalState::PointLine(self.point_line),
            StateKind::ClipPlanes => GlobalState::ClipPlanes(self.clip_planes),
        }
    }
}
