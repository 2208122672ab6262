//! Global render states (Eberly's `GlobalState` family, book §3.5), plus two extensions the
//! book does not have: stencil and polygon offset.
//!
//! Every state is plain `Copy` data whose `Default` is the book's default (the tables of
//! `shared/spec/book-ch3.md` §5). A node carries at most one state of each [`StateKind`]
//! ([`Scene::set_global_state`](crate::Scene::set_global_state) replaces one of the same
//! kind); `update` resolves, for every geometry leaf, the **deepest** state of each kind on
//! the path from the root (or the default), into a [`RenderStates`] — see
//! [`render_state`](crate::render_state).
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
//! * Fog distance is eye-space depth `|z_eye|` (the GL choice the book leaves open).
//! * The dither state is a documented no-op: the framebuffer is RGBA8 with exact rounding.
//! * The alpha state carries the blend constant colour (`constant_color`), which the book
//!   misplaces in `Texture` (Appendix A, L6129).

use glam::{Vec3, Vec4};
pub use plumb_raster::{BlendFactor, CompareFunc, FrontFace, StencilOp, StencilState};

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
}

impl StateKind {
    /// Number of kinds.
    pub const COUNT: usize = 10;
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
    ];
}

/// Blending and alpha test (book `AlphaState`). `Default`: blending off with the classic
/// factors `SRC_ALPHA` / `ONE_MINUS_SRC_ALPHA`, test off with `ALWAYS` and reference 0,
/// constant colour (0, 0, 0, 0).
///
/// Blending is `F = σ∘Src + δ∘Dst` (book eq. 3.6), clamped to [0, 1]. A fragment that fails the
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
    /// is on and the colour factors are not `(ONE, ZERO)` (a blend that replaces the colour,
    /// used to give the alpha channel its own factors, hides what is behind).
    pub fn is_transparent(&self) -> bool {
        self.blend_enabled
            && !(self.src_blend == BlendFactor::One && self.dst_blend == BlendFactor::Zero)
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
/// vertex. The blend is `C = f·C + (1 − f)·fog` on RGB (the book's printed formula swaps the
/// terms; Appendix A); `z` is the eye-space depth `|z_eye|`.
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
/// the last).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum ShadeState {
    /// One colour per primitive.
    Flat,
    /// Gouraud interpolation.
    #[default]
    Smooth,
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
        }
    }
}
