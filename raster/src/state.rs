//! All fixed-function pipeline state as plain `Copy` data with named presets.
//!
//! A draw takes one [`PipelineState`]; it is turned into a fragment path once per draw
//! (see `fragment`), so nothing here is re-examined per pixel.

use glam::Vec4;

use crate::base::error::Error;

/// A comparison used by the depth, stencil and alpha tests: `incoming OP stored`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "trace", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "trace", serde(rename_all = "snake_case"))]
pub enum CompareFunc {
    /// Never passes.
    Never,
    /// Passes if incoming < stored.
    #[default]
    Less,
    /// Passes if incoming = stored.
    Equal,
    /// Passes if incoming ≤ stored.
    LessEqual,
    /// Passes if incoming > stored.
    Greater,
    /// Passes if incoming ≠ stored.
    NotEqual,
    /// Passes if incoming ≥ stored.
    GreaterEqual,
    /// Always passes.
    Always,
}

impl CompareFunc {
    /// All eight functions, in GL enum order.
    pub const ALL: [CompareFunc; 8] = [
        CompareFunc::Never,
        CompareFunc::Less,
        CompareFunc::Equal,
        CompareFunc::LessEqual,
        CompareFunc::Greater,
        CompareFunc::NotEqual,
        CompareFunc::GreaterEqual,
        CompareFunc::Always,
    ];

    /// Evaluates `a OP b` (for tests and for per-draw decisions; the pixel loops use
    /// monomorphised versions).
    #[inline]
    pub fn test<T: PartialOrd>(self, a: T, b: T) -> bool {
        match self {
            CompareFunc::Never => false,
            CompareFunc::Less => a < b,
            CompareFunc::Equal => a == b,
            CompareFunc::LessEqual => a <= b,
            CompareFunc::Greater => a > b,
            CompareFunc::NotEqual => a != b,
            CompareFunc::GreaterEqual => a >= b,
            CompareFunc::Always => true,
        }
    }
}

/// Depth test and depth writes. A disabled depth test is `func: Always, write: false`
/// ([`DepthState::DISABLED`]), exactly as in GL.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "trace", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "trace", serde(deny_unknown_fields))]
pub struct DepthState {
    /// Comparison of the fragment depth against the stored depth.
    pub func: CompareFunc,
    /// Whether passing fragments write their depth.
    pub write: bool,
}

impl DepthState {
    /// No test, no writes.
    pub const DISABLED: DepthState = DepthState {
        func: CompareFunc::Always,
        write: false,
    };
    /// `LESS` with writes (the usual opaque setting).
    pub const LESS_WRITE: DepthState = DepthState {
        func: CompareFunc::Less,
        write: true,
    };
    /// `LEQUAL` with writes (Wild Magic's default z-buffer state).
    pub const LEQUAL_WRITE: DepthState = DepthState {
        func: CompareFunc::LessEqual,
        write: true,
    };
    /// `LEQUAL`, read only (transparent geometry after opaque).
    pub const LEQUAL_READ: DepthState = DepthState {
        func: CompareFunc::LessEqual,
        write: false,
    };
}

impl Default for DepthState {
    fn default() -> Self {
        DepthState::LEQUAL_WRITE
    }
}

/// Polygon offset: `z += factor·max(|∂z/∂x|, |∂z/∂y|) + units·r`, where `r` is the smallest
/// resolvable depth difference of an `f32` depth buffer at the polygon's largest depth
/// (`2^(e − 23)` for exponent `e`), as GL specifies for floating-point depth buffers.
///
/// As GL 1.4 §3.5.5: computed once per polygon from the polygon's own depth slope and added
/// to every fragment it makes, whatever the [`PolygonMode`]; point and line primitives are
/// never offset. GL has three enables (`POLYGON_OFFSET_FILL`, `_LINE`, `_POINT`); plumb has
/// this one setting, so a non-zero offset acts as all three enabled (the scene crate's single
/// `enabled` flag maps onto it the same way).
#[derive(Clone, Copy, Debug, PartialEq, Default)]
#[cfg_attr(feature = "trace", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "trace", serde(deny_unknown_fields))]
pub struct PolygonOffset {
    /// Slope factor.
    pub factor: f32,
    /// Constant units.
    pub units: f32,
}

impl PolygonOffset {
    /// No offset.
    pub const NONE: PolygonOffset = PolygonOffset {
        factor: 0.0,
        units: 0.0,
    };
}

/// What a stencil test outcome does to the stored stencil value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "trace", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "trace", serde(rename_all = "snake_case"))]
pub enum StencilOp {
    /// Keep the stored value.
    #[default]
    Keep,
    /// Set to 0.
    Zero,
    /// Set to the reference value.
    Replace,
    /// Increment, clamping at 255.
    Incr,
    /// Decrement, clamping at 0.
    Decr,
    /// Bitwise invert.
    Invert,
    /// Increment with wrap-around.
    IncrWrap,
    /// Decrement with wrap-around.
    DecrWrap,
}

impl StencilOp {
    /// All eight operations.
    pub const ALL: [StencilOp; 8] = [
        StencilOp::Keep,
        StencilOp::Zero,
        StencilOp::Replace,
        StencilOp::Incr,
        StencilOp::Decr,
        StencilOp::Invert,
        StencilOp::IncrWrap,
        StencilOp::DecrWrap,
    ];

    /// The new stencil value (before the write mask is applied).
    #[inline]
    pub fn apply(self, stored: u8, reference: u8) -> u8 {
        match self {
            StencilOp::Keep => stored,
            StencilOp::Zero => 0,
            StencilOp::Replace => reference,
            StencilOp::Incr => stored.saturating_add(1),
            StencilOp::Decr => stored.saturating_sub(1),
            StencilOp::Invert => !stored,
            StencilOp::IncrWrap => stored.wrapping_add(1),
            StencilOp::DecrWrap => stored.wrapping_sub(1),
        }
    }
}

/// The stencil test (GL semantics): passes when `(reference & read_mask) FUNC (stored &
/// read_mask)`; the three ops are applied for stencil fail, depth fail and depth pass;
/// only bits in `write_mask` are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "trace", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "trace", serde(deny_unknown_fields))]
pub struct StencilState {
    /// Whether the stencil test runs at all (disabled: always passes, never writes).
    pub enabled: bool,
    /// Comparison function.
    pub func: CompareFunc,
    /// Reference value.
    pub reference: u8,
    /// Mask applied to both sides of the comparison.
    pub read_mask: u8,
    /// Bits that may be written.
    pub write_mask: u8,
    /// Op when the stencil test fails.
    pub fail: StencilOp,
    /// Op when the stencil test passes and the depth test fails.
    pub depth_fail: StencilOp,
    /// Op when both pass.
    pub pass: StencilOp,
}

impl StencilState {
    /// Stencil test off.
    pub const DISABLED: StencilState = StencilState {
        enabled: false,
        func: CompareFunc::Always,
        reference: 0,
        read_mask: 0xff,
        write_mask: 0xff,
        fail: StencilOp::Keep,
        depth_fail: StencilOp::Keep,
        pass: StencilOp::Keep,
    };
}

impl Default for StencilState {
    fn default() -> Self {
        StencilState::DISABLED
    }
}

/// Alpha test: the fragment survives when `alpha FUNC reference`. `func: Always` disables it.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "trace", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "trace", serde(deny_unknown_fields))]
pub struct AlphaTest {
    /// Comparison.
    pub func: CompareFunc,
    /// Reference in `[0, 1]`.
    pub reference: f32,
}

impl AlphaTest {
    /// Disabled.
    pub const DISABLED: AlphaTest = AlphaTest {
        func: CompareFunc::Always,
        reference: 0.0,
    };
}

impl Default for AlphaTest {
    fn default() -> Self {
        AlphaTest::DISABLED
    }
}

/// Blend factors of OpenGL 1.4 (with `GL_ARB_imaging` constant colour).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "trace", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "trace", serde(rename_all = "snake_case"))]
pub enum BlendFactor {
    /// (0, 0, 0, 0)
    Zero,
    /// (1, 1, 1, 1)
    One,
    /// source colour
    SrcColor,
    /// 1 − source colour
    OneMinusSrcColor,
    /// destination colour
    DstColor,
    /// 1 − destination colour
    OneMinusDstColor,
    /// source alpha
    SrcAlpha,
    /// 1 − source alpha
    OneMinusSrcAlpha,
    /// destination alpha
    DstAlpha,
    /// 1 − destination alpha
    OneMinusDstAlpha,
    /// constant colour
    ConstantColor,
    /// 1 − constant colour
    OneMinusConstantColor,
    /// constant alpha
    ConstantAlpha,
    /// 1 − constant alpha
    OneMinusConstantAlpha,
    /// (f, f, f, 1) with f = min(As, 1 − Ad)
    SrcAlphaSaturate,
}

impl BlendFactor {
    /// All fifteen factors.
    pub const ALL: [BlendFactor; 15] = [
        BlendFactor::Zero,
        BlendFactor::One,
        BlendFactor::SrcColor,
        BlendFactor::OneMinusSrcColor,
        BlendFactor::DstColor,
        BlendFactor::OneMinusDstColor,
        BlendFactor::SrcAlpha,
        BlendFactor::OneMinusSrcAlpha,
        BlendFactor::DstAlpha,
        BlendFactor::OneMinusDstAlpha,
        BlendFactor::ConstantColor,
        BlendFactor::OneMinusConstantColor,
        BlendFactor::ConstantAlpha,
        BlendFactor::OneMinusConstantAlpha,
        BlendFactor::SrcAlphaSaturate,
    ];
}

/// Blend equations.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "trace", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "trace", serde(rename_all = "snake_case"))]
pub enum BlendEquation {
    /// `s·S + d·D`
    #[default]
    Add,
    /// `s·S − d·D`
    Subtract,
    /// `d·D − s·S`
    ReverseSubtract,
    /// `min(S, D)` (factors ignored)
    Min,
    /// `max(S, D)` (factors ignored)
    Max,
}

impl BlendEquation {
    /// All five equations.
    pub const ALL: [BlendEquation; 5] = [
        BlendEquation::Add,
        BlendEquation::Subtract,
        BlendEquation::ReverseSubtract,
        BlendEquation::Min,
        BlendEquation::Max,
    ];
}

/// Blending of the fragment colour with the framebuffer (separate RGB and alpha factors and
/// equations). Result is clamped to `[0, 1]` before conversion to 8 bits.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "trace", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "trace", serde(deny_unknown_fields))]
pub struct BlendState {
    /// Whether blending happens (disabled: the fragment colour replaces the stored one).
    pub enabled: bool,
    /// Source factor for RGB.
    pub src_rgb: BlendFactor,
    /// Destination factor for RGB.
    pub dst_rgb: BlendFactor,
    /// Source factor for alpha.
    pub src_alpha: BlendFactor,
    /// Destination factor for alpha.
    pub dst_alpha: BlendFactor,
    /// Equation for RGB.
    pub eq_rgb: BlendEquation,
    /// Equation for alpha.
    pub eq_alpha: BlendEquation,
    /// The constant blend colour.
    pub constant: Vec4,
}

impl BlendState {
    /// Blending off.
    pub const REPLACE: BlendState = BlendState::new(BlendFactor::One, BlendFactor::Zero, false);
    /// Classic transparency: `src·α + dst·(1 − α)`.
    pub const ALPHA: BlendState =
        BlendState::new(BlendFactor::SrcAlpha, BlendFactor::OneMinusSrcAlpha, true);
    /// Additive: `src + dst`.
    pub const ADDITIVE: BlendState = BlendState::new(BlendFactor::One, BlendFactor::One, true);
    /// Modulate: `src·dst`.
    pub const MULTIPLY: BlendState =
        BlendState::new(BlendFactor::DstColor, BlendFactor::Zero, true);
    /// Premultiplied alpha: `src + dst·(1 − α)`.
    pub const PREMULTIPLIED: BlendState =
        BlendState::new(BlendFactor::One, BlendFactor::OneMinusSrcAlpha, true);

    /// Same factors for RGB and alpha, equation `Add`, constant colour 0.
    pub const fn new(src: BlendFactor, dst: BlendFactor, enabled: bool) -> BlendState {
        BlendState {
            enabled,
            src_rgb: src,
            dst_rgb: dst,
            src_alpha: src,
            dst_alpha: dst,
            eq_rgb: BlendEquation::Add,
            eq_alpha: BlendEquation::Add,
            constant: Vec4::ZERO,
        }
    }
}

impl Default for BlendState {
    fn default() -> Self {
        BlendState::REPLACE
    }
}

/// Which faces are discarded.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "trace", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "trace", serde(rename_all = "snake_case"))]
pub enum CullMode {
    /// Draw both faces.
    #[default]
    None,
    /// Discard back faces.
    Back,
    /// Discard front faces.
    Front,
}

/// Which winding (as seen on screen, NDC y up) is the front face.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "trace", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "trace", serde(rename_all = "snake_case"))]
pub enum FrontFace {
    /// Counter-clockwise is front (GL default).
    #[default]
    Ccw,
    /// Clockwise is front.
    Cw,
}

/// How triangles are rasterised.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "trace", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "trace", serde(rename_all = "snake_case"))]
pub enum PolygonMode {
    /// Filled.
    #[default]
    Fill,
    /// Edges only (wireframe); edges created by clipping are not drawn.
    Line,
    /// Vertices only.
    Point,
}

/// Flat (provoking = first vertex of the primitive) or smooth (Gouraud) shading.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "trace", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "trace", serde(rename_all = "snake_case"))]
pub enum ShadeModel {
    /// Every fragment takes the attributes of the provoking vertex.
    Flat,
    /// Perspective-correct interpolation.
    #[default]
    Smooth,
}

/// The mapping from NDC to window coordinates.
///
/// `x_w = x + (x_ndc + 1)·width/2`, `y_w = y + (1 − y_ndc)·height/2` (window y points down),
/// `z_w = min_depth + z_ndc·(max_depth − min_depth)`.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "trace", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "trace", serde(deny_unknown_fields))]
pub struct Viewport {
    /// Left edge, pixels.
    pub x: f32,
    /// Top edge, pixels.
    pub y: f32,
    /// Width, pixels (> 0).
    pub width: f32,
    /// Height, pixels (> 0).
    pub height: f32,
    /// Window depth of NDC z = 0.
    pub min_depth: f32,
    /// Window depth of NDC z = 1.
    pub max_depth: f32,
}

/// Largest viewport side or offset, pixels.
pub const MAX_VIEWPORT: f32 = 16384.0;

impl Viewport {
    /// The full `width × height` target with depth range 0..1.
    pub fn full(width: u32, height: u32) -> Viewport {
        Viewport {
            x: 0.0,
            y: 0.0,
            width: width as f32,
            height: height as f32,
            min_depth: 0.0,
            max_depth: 1.0,
        }
    }

    /// Checks the documented limits (finite, positive size, within ±16384, depth in 0..1).
    ///
    /// # Errors
    /// [`Error::InvalidState`] naming the bad field.
    pub fn validate(&self) -> Result<(), Error> {
        let ok = |v: f32| v.is_finite() && v.abs() <= MAX_VIEWPORT;
        if !(ok(self.x) && ok(self.y) && ok(self.width) && ok(self.height)) {
            return Err(Error::InvalidState(format!(
                "viewport {self:?} outside ±{MAX_VIEWPORT}"
            )));
        }
        if self.width <= 0.0 || self.height <= 0.0 {
            return Err(Error::InvalidState(format!(
                "viewport {self:?} has no area"
            )));
        }
        let d = |v: f32| (0.0..=1.0).contains(&v);
        if !(d(self.min_depth) && d(self.max_depth)) {
            return Err(Error::InvalidState(format!(
                "viewport depth range {self:?} not in 0..1"
            )));
        }
        Ok(())
    }
}

/// An integer rectangle (scissor).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "trace", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "trace", serde(deny_unknown_fields))]
pub struct Rect {
    /// Left, pixels.
    pub x: u32,
    /// Top, pixels.
    pub y: u32,
    /// Width.
    pub width: u32,
    /// Height.
    pub height: u32,
}

impl Rect {
    /// The overlap of two rectangles, if they share a pixel.
    pub fn intersect(&self, other: &Rect) -> Option<Rect> {
        let end = |p: u32, len: u32| u64::from(p) + u64::from(len);
        let (x0, y0) = (self.x.max(other.x), self.y.max(other.y));
        let x1 = end(self.x, self.width).min(end(other.x, other.width));
        let y1 = end(self.y, self.height).min(end(other.y, other.height));
        (u64::from(x0) < x1 && u64::from(y0) < y1).then(|| Rect {
            x: x0,
            y: y0,
            width: (x1 - u64::from(x0)) as u32,
            height: (y1 - u64::from(y0)) as u32,
        })
    }
}

/// Maximum number of user clip planes.
pub const MAX_CLIP_PLANES: usize = 6;

/// Everything the fixed-function pipeline needs besides vertex data and textures.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "trace", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "trace", serde(deny_unknown_fields))]
pub struct PipelineState {
    /// NDC → window mapping.
    pub viewport: Viewport,
    /// Only pixels inside are touched (`None`: whole target).
    pub scissor: Option<Rect>,
    /// Face culling.
    pub cull: CullMode,
    /// Front-face winding.
    pub front_face: FrontFace,
    /// Fill / line / point.
    pub polygon_mode: PolygonMode,
    /// Flat / smooth.
    pub shade: ShadeModel,
    /// Depth test.
    pub depth: DepthState,
    /// Depth offset.
    pub polygon_offset: PolygonOffset,
    /// Stencil test.
    pub stencil: StencilState,
    /// Alpha test.
    pub alpha_test: AlphaTest,
    /// Blending.
    pub blend: BlendState,
    /// Which of R, G, B, A are written.
    pub color_mask: [bool; 4],
    /// User clip planes in **clip space**: a vertex `p` is kept when `plane · p ≥ 0`. (GL
    /// takes eye-space planes; transform with the inverse-transpose of the projection.)
    pub clip_planes: [Option<Vec4>; MAX_CLIP_PLANES],
    /// Point size in pixels (point lists and polygon mode `Point`).
    pub point_size: f32,
    /// Line width in pixels (line lists/strips and polygon mode `Line`).
    pub line_width: f32,
}

impl PipelineState {
    /// Defaults for a `width × height` target: full viewport, no culling, `LEQUAL` depth
    /// with writes, no blending, smooth shading, everything else off.
    pub fn new(width: u32, height: u32) -> PipelineState {
        PipelineState {
            viewport: Viewport::full(width, height),
            scissor: None,
            cull: CullMode::None,
            front_face: FrontFace::Ccw,
            polygon_mode: PolygonMode::Fill,
            shade: ShadeModel::Smooth,
            depth: DepthState::default(),
            polygon_offset: PolygonOffset::NONE,
            stencil: StencilState::DISABLED,
            alpha_test: AlphaTest::DISABLED,
            blend: BlendState::REPLACE,
            color_mask: [true; 4],
            clip_planes: [None; MAX_CLIP_PLANES],
            point_size: 1.0,
            line_width: 1.0,
        }
    }

    /// Checks values a draw cannot work with (bad viewport, non-finite planes or sizes).
    ///
    /// # Errors
    /// [`Error::InvalidState`] describing the field.
    pub fn validate(&self) -> Result<(), Error> {
        self.viewport.validate()?;
        for p in self.clip_planes.iter().flatten() {
            if !p.is_finite() {
                return Err(Error::InvalidState(format!("clip plane {p} is not finite")));
            }
        }
        let size_ok = |s: f32| s.is_finite() && s > 0.0 && s <= 1024.0;
        if !size_ok(self.point_size) || !size_ok(self.line_width) {
            return Err(Error::InvalidState(format!(
                "point size {} / line width {} must be in (0, 1024]",
                self.point_size, self.line_width
            )));
        }
        if !self.polygon_offset.factor.is_finite() || !self.polygon_offset.units.is_finite() {
            return Err(Error::InvalidState("polygon offset is not finite".into()));
        }
        if !self.blend.constant.is_finite() || !self.alpha_test.reference.is_finite() {
            return Err(Error::InvalidState(
                "blend constant / alpha reference not finite".into(),
            ));
        }
        Ok(())
    }
}
