//! Effects (Eberly's `Effect` family, book §3.7 and chapter 5), expressed as pass lists.
//!
//! An effect on a **geometry leaf** is local; an effect on a **group** is global:
//!
//! | effect | where | passes |
//! |---|---|---|
//! | [`Effect::Textures`] (texture, dark map, light map, environment map, projected texture) | leaf: its own units; group: units **appended** after each leaf's own (`EnableTextures` order) | 1 |
//! | [`Effect::VertexColors`] | leaf | 1 (colours replace the mesh's) |
//! | [`Effect::GlossMap`] | leaf | 2: specular only, no texture; then ambient + diffuse × texture blended `ONE, SRC_ALPHA` |
//! | [`Effect::BumpMap`] | leaf | 1: light vectors (CPU, per vertex, tangent space) as colours, `DOT3(normal map, primary)`, then the base texture modulated, then any extra stages (e.g. an imported material's ambient, occlusion and emission) |
//! | [`Effect::Pbr`] | leaf | 1: glTF's metallic-roughness material, lit per pixel by all the leaf's lights (the textures and material state of the leaf are not used) |
//! | [`Effect::PlanarShadow`] | group | per plane: plane into stencil; casters flattened by the shadow matrix, stencil-equal, blended in the shadow colour |
//! | [`Effect::PlanarReflection`] | group | per plane: plane into stencil; depth reset to far under it; casters reflected, clipped by the plane, culling reversed; plane blended over with the reflectance |
//!
//! A leaf takes the global texture effect of its **nearest** ancestor that has one (nested
//! global effects overwrite each other in the book's renderer; here the deepest wins, like
//! states). Planar shadows and reflections are drawn after the opaque geometry and before the
//! transparent geometry; their casters are every geometry leaf of the group's subtree (active
//! switch children only, `Culling::Always` subtrees skipped) except the planes.
//!
//! Texture stage defaults follow the book's `Texture` where plumb has the same notion: apply
//! `Replace` for the first stage of a texture effect, `Modulate` elsewhere — each constructor
//! says which.

use std::sync::Arc;

use glam::{Mat3, Mat4, Vec2, Vec3, Vec4};
use plumb_raster::combine::{ApplyMode, CombineState};
use plumb_raster::texture::{MagFilter, MinFilter, Sampler, Texture, Wrap};

use crate::values::camera::Camera;
use crate::values::id::{LightId, NodeId};
use crate::values::light::{LightType, SceneLight};
use crate::values::mesh::Mesh;
use crate::values::transform::Transform;

/// Where a texture stage's coordinates come from (book `Texgen` + the effect's UV arrays).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum TexCoords {
    /// The mesh's uv set with this index.
    Uv(usize),
    /// GL sphere map from the eye-space reflection vector (book `TG_ENVIRONMENT_MAP`; the GL
    /// formula, which the book's OpenGL renderer uses, not the latitude-longitude text).
    SphereMap,
    /// Projected texture (book `TG_PROJECTED_TEXTURE`): `(s, t, r, q) = tex_from_world · p`,
    /// sampled at `(s/q, t/q)`. Build it with [`TexCoords::projector`].
    Projected {
        /// World → texture matrix (bias · projector clip · projector view).
        tex_from_world: Mat4,
    },
    /// GL `OBJECT_LINEAR` texgen (an extension; the book's `Texgen` has no linear modes):
    /// `(s, t, r, q) = (P_s·p, P_t·p, P_r·p, P_q·p)` with `p = (x, y, z, 1)` the vertex's
    /// **model-space** position, sampled at `(s/q, t/q)`. The texture sticks to the object.
    ObjectLinear {
        /// Planes for s, t, r, q.
        planes: [Vec4; 4],
    },
    /// GL `EYE_LINEAR` texgen (an extension): as [`ObjectLinear`](Self::ObjectLinear) with
    /// `p` the vertex's **view-space** position (the camera's frame: x right, y up, looking
    /// down −z), as GL computes it for planes given while the model-view is the identity. The
    /// texture stays fixed to the camera while objects move through it.
    EyeLinear {
        /// Planes for s, t, r, q.
        planes: [Vec4; 4],
    },
}

impl TexCoords {
    /// GL's default texgen planes for `(s, t, r, q)` when only the first `planes.len()` are
    /// given: s `(1, 0, 0, 0)`, t `(0, 1, 0, 0)`, r `(0, 0, 0, 0)`, q `(0, 0, 0, 1)` (q
    /// differs from GL's zero plane so that an unset q samples at `(s, t)`, as with texgen
    /// off for q). Extra planes past four are ignored.
    pub fn linear_planes(planes: &[Vec4]) -> [Vec4; 4] {
        let mut out = [Vec4::X, Vec4::Y, Vec4::ZERO, Vec4::W];
        for (o, p) in out.iter_mut().zip(planes) {
            *o = *p;
        }
        out
    }

    /// Projected coordinates from a projector camera: `Bias · clip_from_world` with
    /// `Bias = T(½, ½, 0) · S(½, −½, 1)` (clip y up → texture row 0 at the top of the slide).
    pub fn projector(projector: &Camera) -> TexCoords {
        let bias = Mat4::from_translation(Vec3::new(0.5, 0.5, 0.0))
            * Mat4::from_scale(Vec3::new(0.5, -0.5, 1.0));
        TexCoords::Projected {
            tex_from_world: bias * projector.clip_from_world(),
        }
    }
}

/// One texture unit's worth of description: image data, sampler, apply mode, constant colour
/// and coordinate source. Plain data a GPU backend can turn into a bound texture + sampler +
/// texture environment.
#[derive(Debug, Clone, PartialEq)]
pub struct TextureStage {
    /// Image data (RGBA8 levels; shared).
    pub texture: Arc<Texture>,
    /// Filtering and wrapping.
    pub sampler: Sampler,
    /// Apply mode (book `Apply`, including `Combine`).
    pub apply: ApplyMode,
    /// Constant colour (book `BlendColor`).
    pub constant: Vec4,
    /// Coordinate source.
    pub coords: TexCoords,
    /// Texture matrix on `(s, t, 1)` (column vectors) applied to the coordinates before
    /// sampling (GL's texture matrix, restricted to 2D affine maps; e.g. glTF
    /// `KHR_texture_transform`). Identity by default.
    pub matrix: Mat3,
}

/// glTF's metallic-roughness material ([`Effect::Pbr`]; the formulas are
/// [`plumb_raster::pbr`]'s). Factors are linear; the base colour and emissive textures hold
/// sRGB values. Each texture is a stage reading a uv set ([`TexCoords::Uv`]) through its
/// matrix; its apply mode and constant colour are not used.
#[derive(Debug, Clone, PartialEq)]
pub struct PbrSurface {
    /// `baseColorFactor` (linear RGBA).
    pub base_color: Vec4,
    /// `metallicFactor`.
    pub metallic: f32,
    /// `roughnessFactor`.
    pub roughness: f32,
    /// `emissiveFactor` × emissive strength (linear).
    pub emissive: Vec3,
    /// `normalTexture.scale`.
    pub normal_scale: f32,
    /// `occlusionTexture.strength`.
    pub occlusion_strength: f32,
    /// Base colour (sRGB RGBA).
    pub base_color_texture: Option<TextureStage>,
    /// Metallic (blue) and roughness (green).
    pub metallic_roughness_texture: Option<TextureStage>,
    /// Tangent-space normals (needs the mesh's tangents).
    pub normal_texture: Option<TextureStage>,
    /// Occlusion (red).
    pub occlusion_texture: Option<TextureStage>,
    /// Emission (sRGB RGB).
    pub emissive_texture: Option<TextureStage>,
    /// glTF `OPAQUE`: alpha 1 is written.
    pub opaque: bool,
    /// Back faces lit with the normal reversed.
    pub double_sided: bool,
}

impl Default for PbrSurface {
    /// glTF's default material: white, fully metallic and rough, opaque, single-sided.
    fn default() -> PbrSurface {
        PbrSurface {
            base_color: Vec4::ONE,
            metallic: 1.0,
            roughness: 1.0,
            emissive: Vec3::ZERO,
            normal_scale: 1.0,
            occlusion_strength: 1.0,
            base_color_texture: None,
            metallic_roughness_texture: None,
            normal_texture: None,
            occlusion_texture: None,
            emissive_texture: None,
            opaque: true,
            double_sided: false,
        }
    }
}

impl TextureStage {
    /// A stage reading uv set `uv_set` with `sampler` and `apply`, constant colour (0,0,0,1).
    pub fn new(texture: Arc<Texture>, sampler: Sampler, apply: ApplyMode, uv_set: usize) -> Self {
        TextureStage {
            texture,
            sampler,
            apply,
            constant: Vec4::new(0.0, 0.0, 0.0, 1.0),
            coords: TexCoords::Uv(uv_set),
            matrix: Mat3::IDENTITY,
        }
    }

    /// The same stage with texture matrix `matrix` (see [`TextureStage::matrix`]).
    #[must_use]
    pub fn with_matrix(mut self, matrix: Mat3) -> Self {
        self.matrix = matrix;
        self
    }

    /// The same stage with another apply mode.
    #[must_use]
    pub fn with_apply(mut self, apply: ApplyMode) -> Self {
        self.apply = apply;
        self
    }
}

/// An effect (see the [module docs](self) for where each may sit and what it draws).
#[derive(Debug, Clone, PartialEq)]
#[allow(
    clippy::large_enum_variant,
    reason = "an effect is stored once per node behind an Arc; boxing the bump map would only add an indirection"
)]
pub enum Effect {
    /// Texture stages (local on a leaf, appended on a group).
    Textures(Vec<TextureStage>),
    /// Per-vertex colours replacing the mesh's (local).
    VertexColors(Arc<[Vec4]>),
    /// Gloss map: the stage's **alpha** masks the specular highlight (local, two passes).
    GlossMap(TextureStage),
    /// Dot3 bump map (local).
    BumpMap {
        /// The base texture, modulated onto the bump shading.
        base: TextureStage,
        /// The normal map (tangent-space normals encoded as `0.5·(n + 1)`); its uv set also
        /// defines the tangent frames.
        normal_map: TextureStage,
        /// The light whose direction is encoded per vertex.
        light: LightId,
        /// Stages applied after the base, in order (empty for the book's effect; the glTF
        /// mapping adds an ambient, an occlusion and an emission stage, see
        /// `io::apply`).
        extra: Vec<TextureStage>,
    },
    /// Planar shadows of the group's subtree (global).
    PlanarShadow {
        /// Geometry leaves whose first world triangle defines each receiving plane.
        planes: Vec<NodeId>,
        /// The light casting the shadows (directional: along its direction; point/spot: from
        /// its position).
        light: LightId,
        /// Shadow colour; its alpha is the blend opacity.
        color: Vec4,
    },
    /// glTF's metallic-roughness material lit per pixel (local, one pass; see
    /// [`plumb_raster::pbr`]). The leaf's mesh gives normals, vertex colours, uv sets and,
    /// for a normal texture, tangents.
    Pbr(Arc<PbrSurface>),
    /// Planar reflections of the group's subtree (global).
    PlanarReflection {
        /// Geometry leaves whose first world triangle defines each mirror plane, with the
        /// plane's reflectance in [0, 1].
        planes: Vec<(NodeId, f32)>,
    },
}

impl Effect {
    /// A single texture in `Replace` mode on uv set 0 (the book's `TextureEffect`).
    pub fn texture(texture: Arc<Texture>, sampler: Sampler) -> Effect {
        Effect::Textures(vec![TextureStage::new(
            texture,
            sampler,
            ApplyMode::Replace,
            0,
        )])
    }

    /// Dark map (book `DarkMapEffect`): primary `Replace` on uv set 0, secondary `Modulate` on
    /// uv set 1.
    pub fn dark_map(primary: Arc<Texture>, secondary: Arc<Texture>, sampler: Sampler) -> Effect {
        Effect::Textures(vec![
            TextureStage::new(primary, sampler, ApplyMode::Replace, 0),
            TextureStage::new(secondary, sampler, ApplyMode::Modulate, 1),
        ])
    }

    /// Light map (book `LightMapEffect`): primary `Replace` on uv set 0, secondary on uv set 1
    /// added hard (`Add`) or soft (`Cs + Cd·(1 − Cs)`, combine `Interpolate` with a white
    /// constant).
    pub fn light_map(
        primary: Arc<Texture>,
        secondary: Arc<Texture>,
        sampler: Sampler,
        hard: bool,
    ) -> Effect {
        let mut light = TextureStage::new(secondary, sampler, ApplyMode::Add, 1);
        if !hard {
            light.apply = ApplyMode::Combine(CombineState::SOFT_ADD);
            light.constant = Vec4::ONE;
        }
        Effect::Textures(vec![
            TextureStage::new(primary, sampler, ApplyMode::Replace, 0),
            light,
        ])
    }

    /// Sphere environment map (book `EnvironmentMapEffect`): bilinear, no mipmaps, sphere-map
    /// coordinates, the given apply mode.
    pub fn environment_map(image: Arc<Texture>, apply: ApplyMode) -> Effect {
        Effect::Textures(vec![TextureStage {
            texture: image,
            sampler: Sampler::BILINEAR.with_wrap(Wrap::ClampToEdge),
            apply,
            constant: Vec4::new(0.0, 0.0, 0.0, 1.0),
            coords: TexCoords::SphereMap,
            matrix: Mat3::IDENTITY,
        }])
    }

    /// Projected texture (book `ProjectedTextureEffect`): bilinear + trilinear mipmaps,
    /// clamp-to-border with a `border` colour, coordinates from `projector`.
    pub fn projected_texture(
        image: Arc<Texture>,
        projector: &Camera,
        apply: ApplyMode,
        border: Vec4,
    ) -> Effect {
        let sampler = Sampler {
            mag: MagFilter::Linear,
            min: MinFilter::LinearMipmapLinear,
            ..Sampler::TRILINEAR
        }
        .with_wrap(Wrap::ClampToBorder)
        .with_border(border);
        Effect::Textures(vec![TextureStage {
            texture: image,
            sampler,
            apply,
            constant: Vec4::new(0.0, 0.0, 0.0, 1.0),
            coords: TexCoords::projector(projector),
            matrix: Mat3::IDENTITY,
        }])
    }

    /// Gloss map (book `GlossMapEffect`): the texture `Modulate`s the ambient + diffuse pass;
    /// its alpha masks the specular pass.
    pub fn gloss_map(texture: Arc<Texture>, sampler: Sampler) -> Effect {
        Effect::GlossMap(TextureStage::new(texture, sampler, ApplyMode::Modulate, 0))
    }

    /// Dot3 bump map with base and normal map both on uv set 0.
    pub fn bump_map(
        base: Arc<Texture>,
        normal_map: Arc<Texture>,
        sampler: Sampler,
        light: LightId,
    ) -> Effect {
        Effect::BumpMap {
            base: TextureStage::new(base, sampler, ApplyMode::Modulate, 0),
            normal_map: TextureStage::new(
                normal_map,
                sampler,
                ApplyMode::Combine(CombineState::DOT3),
                0,
            ),
            light,
            extra: Vec::new(),
        }
    }

    /// Whether the effect may sit on a geometry leaf.
    pub fn is_local(&self) -> bool {
        !matches!(
            self,
            Effect::PlanarShadow { .. } | Effect::PlanarReflection { .. }
        )
    }

    /// Whether the effect may sit on a group node.
    pub fn is_global(&self) -> bool {
        matches!(
            self,
            Effect::Textures(_) | Effect::PlanarShadow { .. } | Effect::PlanarReflection { .. }
        )
    }

    /// A short name for dumps and errors.
    pub fn name(&self) -> &'static str {
        match self {
            Effect::Textures(_) => "textures",
            Effect::VertexColors(_) => "vertex colors",
            Effect::GlossMap(_) => "gloss map",
            Effect::BumpMap { .. } => "bump map",
            Effect::PlanarShadow { .. } => "planar shadow",
            Effect::PlanarReflection { .. } => "planar reflection",
            Effect::Pbr(_) => "pbr",
        }
    }
}

/// The plane `(n, d)` with `n·p + d = 0` (unit `n`, CCW-front side positive) of a mesh's first
/// triangle under `world`, or `None` for a degenerate or missing triangle.
pub fn world_plane(mesh: &Mesh, world: &Transform) -> Option<Vec4> {
    let [a, b, c] = mesh.triangle(0)?;
    let (a, b, c) = (
        world.apply_point(a),
        world.apply_point(b),
        world.apply_point(c),
    );
    let n = (b - a).cross(c - a);
    let len = n.length();
    if !(len > 0.0 && len.is_finite()) {
        return None;
    }
    let n = n / len;
    Some(n.extend(-n.dot(a)))
}

/// The shadow projection onto `plane` (`(n, d)`, `n·p + d = 0`) from `light`: `(π·L) I − L πᵀ`
/// with `L = (P, 1)` for point and spot lights and `(−direction, 0)` for directional lights.
/// `None` for ambient lights or a light parallel to / on the plane.
pub fn shadow_matrix(plane: Vec4, light: &SceneLight) -> Option<Mat4> {
    let l = match light.kind {
        LightType::Ambient => return None,
        LightType::Directional => (-light.direction).extend(0.0),
        LightType::Point | LightType::Spot => light.position.extend(1.0),
    };
    let dot = plumb_raster::math::dot4(plane, l);
    if dot.abs() < 1e-6 || !dot.is_finite() {
        return None;
    }
    let m = Mat4::from_diagonal(Vec4::splat(dot))
        - Mat4::from_cols(l * plane.x, l * plane.y, l * plane.z, l * plane.w);
    Some(m)
}

/// The reflection through `plane` (`(n, d)`, unit `n`): `p' = p − 2(n·p + d)n`.
pub fn reflection_matrix(plane: Vec4) -> Mat4 {
    let n = plane.truncate();
    let d = plane.w;
    let m = Mat3::IDENTITY - 2.0 * Mat3::from_cols(n * n.x, n * n.y, n * n.z);
    Mat4::from_cols(
        m.x_axis.extend(0.0),
        m.y_axis.extend(0.0),
        m.z_axis.extend(0.0),
        (-2.0 * d * n).extend(1.0),
    )
}

/// Bump-map light vectors (the book's `ComputeLightVectors`): one light vector for the whole
/// mesh — the direction towards a directional light, or from the mesh's world origin to a point
/// or spot light — taken into local space, then into each vertex's tangent frame (T from the uv
/// gradients of the first triangle that reaches the vertex, made orthogonal to N; B = N × T),
/// encoded as the colour `0.5·(v + 1)`. Vertices no triangle reaches, or without a usable frame,
/// are black. Needs normals and the uv set; returns `None` otherwise.
///
/// A mesh with [`tangents`](Mesh::tangents) uses them instead of the uv gradients, for every
/// vertex: `T` is the tangent made orthogonal to `N`, and `B = w · (N × T)` with the
/// tangent's handedness `w` (its sign), so mirrored uvs keep their frame (glTF's rule).
pub fn bump_light_vectors(
    mesh: &Mesh,
    uv_set: usize,
    world: &Transform,
    light: &SceneLight,
) -> Option<Vec<Vec4>> {
    let normals = mesh.normals()?;
    let uvs = mesh.uv_sets().get(uv_set)?;
    let to_light_world = match light.kind {
        LightType::Directional => -light.direction,
        LightType::Point | LightType::Spot => light.position - world.translation(),
        LightType::Ambient => Vec3::ZERO,
    };
    let inv = world.try_inverse()?;
    let l = inv.apply_vector(to_light_world).normalize_or_zero();
    let pos = mesh.positions();
    let mut out = vec![Vec4::new(0.0, 0.0, 0.0, 1.0); pos.len()];
    if let Some(tangents) = mesh.tangents() {
        for ((o, &n), &t) in out.iter_mut().zip(normals).zip(tangents) {
            let n = n.normalize_or_zero();
            let w = if t.w < 0.0 { -1.0 } else { 1.0 };
            let t = t.truncate();
            let t = (t - n * n.dot(t)).normalize_or_zero();
            if t == Vec3::ZERO || n == Vec3::ZERO {
                continue;
            }
            let b = w * n.cross(t);
            let v = Vec3::new(l.dot(t), l.dot(b), l.dot(n));
            *o = (0.5 * (v + Vec3::ONE)).extend(1.0);
        }
        return Some(out);
    }
    let mut seen = vec![false; pos.len()];
    for tri in mesh.indices().chunks_exact(3) {
        for k in 0..3 {
            let i0 = tri[k] as usize;
            if seen[i0] {
                continue;
            }
            let (i1, i2) = (tri[(k + 1) % 3] as usize, tri[(k + 2) % 3] as usize);
            let (e1, e2) = (pos[i1] - pos[i0], pos[i2] - pos[i0]);
            let (d1, d2): (Vec2, Vec2) = (uvs[i1] - uvs[i0], uvs[i2] - uvs[i0]);
            let det = d1.x * d2.y - d2.x * d1.y;
            if det == 0.0 || !det.is_finite() {
                continue;
            }
            let t = (e1 * d2.y - e2 * d1.y) / det;
            let n = normals[i0].normalize_or_zero();
            let t = (t - n * n.dot(t)).normalize_or_zero();
            if t == Vec3::ZERO || n == Vec3::ZERO {
                continue;
            }
            let b = n.cross(t);
            let v = Vec3::new(l.dot(t), l.dot(b), l.dot(n));
            out[i0] = (0.5 * (v + Vec3::ONE)).extend(1.0);
            seen[i0] = true;
        }
    }
    Some(out)
}
