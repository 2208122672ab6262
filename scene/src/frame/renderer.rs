//! The backend-neutral [`Renderer`] trait (DESIGN §5) and the plain data it carries.
//!
//! The scene graph never touches pixels. [`Scene::draw`](crate::Scene::draw) resolves
//! everything a backend needs into plain data and hands it over in a fixed order:
//!
//! 1. [`Renderer::begin_frame`] with a [`Frame`]: the camera (frame, frustum, viewport, depth
//!    range), the clear values and the global ambient light. The backend clears colour, depth
//!    and stencil.
//! 2. [`Renderer::draw`] once per geometry (and per extra geometry a multipass scene effect
//!    needs), each a [`Draw`]: the mesh (positions, normals, colours, uv sets, indices,
//!    topology — [`Mesh`] is plain vectors), where it is ([`Space`]), whether its world
//!    transform mirrors, the active lights (world space, ≤ [`MAX_LIGHTS`], root first) and
//!    a **pass list**: each [`Pass`] is a complete recipe — resolved global states, which
//!    lighting terms are on, where the primary colour comes from, texture stages (texture
//!    image data + sampler description + apply/combine + coordinate source), an optional extra
//!    world transform (shadow / reflection matrices), an optional world clip plane, a cull
//!    flip, a depth range and a colour mask. The backend executes the passes in order.
//! 3. [`Renderer::end_frame`], which returns [`BackendStats`].
//!
//! Nothing here is CPU-specific: no raster context, tile or bin type appears, and every value
//! is either a `glam` value, a scene type ([`Camera`], [`Mesh`], [`SceneLight`], [`RenderStates`])
//! or a plain enum shared with plumb-raster's vocabulary (blend factors, compare functions,
//! sampler and combiner descriptions). Texture image data is a
//! [`Texture`](plumb_raster::texture::Texture): immutable RGBA8 levels a GPU backend can
//! upload as they are ([`Texture::level`](plumb_raster::texture::Texture::level)). A test-only
//! recording backend (`scene/tests/it/recording_renderer.rs`) implements the trait to prove it.

use std::sync::Arc;

use glam::{Mat4, Vec3, Vec4};

use crate::values::camera::Camera;
use crate::values::clear::ClearRegion;
use crate::values::effect::{PbrSurface, TextureStage};
use crate::values::error::SceneError;
use crate::values::id::NodeId;
use crate::values::light::{SceneLight, MAX_LIGHTS};
use crate::values::mesh::Mesh;
use crate::values::state::RenderStates;

/// What a frame starts with.
#[derive(Debug, Clone, Copy)]
pub struct Frame<'a> {
    /// The camera (view, projection, viewport, depth range).
    pub camera: &'a Camera,
    /// Colour clear value (the book's background colour; alpha 1 unless set otherwise).
    pub clear_color: Vec4,
    /// Depth clear value (1 = far).
    pub clear_depth: f32,
    /// Stencil clear value.
    pub clear_stencil: u8,
    /// Global ambient light `L⁽⁰⁾` (book: "automatically exists"; default black).
    pub global_ambient: Vec3,
    /// Exposure, tone map and encoding of physically based passes.
    pub pbr_output: plumb_raster::pbr::PbrOutput,
    /// The image-based light of physically based passes (world space) and its intensity.
    pub pbr_environment: Option<(&'a Arc<plumb_raster::environment::Environment>, f32)>,
}

/// Where a draw's vertex positions live.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Space {
    /// Model space, placed by `world_from_local` and seen through the frame's camera.
    World {
        /// The node's world transform as a column-vector matrix.
        world_from_local: Mat4,
    },
    /// Screen space (the book's `SetScreenTransformation`): `x, y` in [0, 1] with the origin at
    /// the **top-left** of the viewport and y down; `z` is ignored and replaced by `depth`
    /// (window depth in [0, 1]). No camera, no lighting position effects.
    Screen {
        /// Window depth of every vertex.
        depth: f32,
    },
}

/// Which lighting terms a pass evaluates (the book's `EnableLight` `EL_*` bits, used by gloss
/// mapping). A term that is off contributes nothing. With no lights the geometry is unlit
/// whatever the mask says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LightingTerms {
    /// Emissive + ambient (global and per light).
    pub ambient: bool,
    /// Diffuse.
    pub diffuse: bool,
    /// Specular.
    pub specular: bool,
}

impl LightingTerms {
    /// Every term.
    pub const ALL: LightingTerms = LightingTerms {
        ambient: true,
        diffuse: true,
        specular: true,
    };
    /// Specular only (gloss map pass 1).
    pub const SPECULAR: LightingTerms = LightingTerms {
        ambient: false,
        diffuse: false,
        specular: true,
    };
    /// Ambient and diffuse (gloss map pass 2).
    pub const AMBIENT_DIFFUSE: LightingTerms = LightingTerms {
        ambient: true,
        diffuse: true,
        specular: false,
    };
    /// No lighting at all: the primary colour is the pass's [`ColorSource`].
    pub const NONE: LightingTerms = LightingTerms {
        ambient: false,
        diffuse: false,
        specular: false,
    };

    /// Whether any term is on.
    pub fn any(&self) -> bool {
        self.ambient || self.diffuse || self.specular
    }
}

/// Where the unlit primary colour comes from.
#[derive(Debug, Clone, PartialEq)]
pub enum ColorSource {
    /// The mesh's vertex colours, or white without them.
    Mesh,
    /// Per-vertex colours replacing the mesh's (a vertex-colour effect, bump-map light
    /// vectors); one per vertex.
    Vertex(Arc<[Vec4]>),
    /// One colour for every vertex (planar shadows).
    Constant(Vec4),
}

/// One pass of a draw: a complete, backend-neutral recipe.
#[derive(Debug, Clone, PartialEq)]
pub struct Pass {
    /// The resolved global states for this pass.
    pub states: RenderStates,
    /// Lighting terms. Lighting happens only when the draw has lights and a term is on; then
    /// the material is used and vertex colours are ignored (the book has no colour material).
    pub lighting: LightingTerms,
    /// The unlit primary colour.
    pub color: ColorSource,
    /// Texture stages in unit order (local effect first, then the global effect's).
    pub textures: Vec<TextureStage>,
    /// Extra world-space transform applied after `world_from_local` (planar shadow projection,
    /// planar reflection); may be projective.
    pub transform: Option<Mat4>,
    /// World-space clip plane `(n, d)`: geometry with `n·p + d < 0` is clipped away.
    pub clip_plane: Option<Vec4>,
    /// Swap front and back faces (on top of [`Draw::mirror`]).
    pub reverse_cull: bool,
    /// Window depth range (normally the camera's; `(1, 1)` resets depth to far).
    pub depth_range: Option<(f32, f32)>,
    /// Which of R, G, B, A are written.
    pub color_mask: [bool; 4],
    /// Draw with glTF's metallic-roughness material, lit per pixel by every light of the
    /// draw ([`Effect::Pbr`](crate::values::effect::Effect::Pbr)); the pass's textures, lighting terms and material state
    /// are then unused (its colour source gives the vertex colours).
    pub pbr: Option<Arc<PbrSurface>>,
}

impl Pass {
    /// A single ordinary pass: all lighting terms, mesh colours, the given states and stages.
    pub fn new(states: RenderStates, textures: Vec<TextureStage>) -> Pass {
        Pass {
            states,
            lighting: LightingTerms::ALL,
            color: ColorSource::Mesh,
            textures,
            transform: None,
            clip_plane: None,
            reverse_cull: false,
            depth_range: None,
            color_mask: [true; 4],
            pbr: None,
        }
    }
}

/// Why a draw is issued (for statistics, recording and debugging; backends may ignore it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DrawRole {
    /// A screen polygon behind everything.
    Background,
    /// An opaque geometry leaf.
    Opaque,
    /// A transparent geometry leaf (sorted back to front).
    Transparent,
    /// A planar shadow or reflection pass of a scene effect.
    SceneEffect,
    /// A screen polygon in front of everything.
    Overlay,
}

/// One geometry to draw with its pass list.
#[derive(Debug, Clone, Copy)]
pub struct Draw<'a> {
    /// The geometry leaf (`None` for screen polygons).
    pub node: Option<NodeId>,
    /// The leaf's name (empty for screen polygons and unnamed leaves), for a backend's
    /// records (a pixel history names the node each fragment came from).
    pub name: &'a str,
    /// The id it writes to an id plane ([`Scene::object_id`](crate::Scene::object_id); 0 for
    /// screen polygons).
    pub object_id: u32,
    /// Why it is drawn.
    pub role: DrawRole,
    /// The mesh (plain vertex and index data); draw its
    /// [`active_indices`](Mesh::active_indices) (a points or polyline mesh may draw only its
    /// first primitives).
    pub mesh: &'a Mesh,
    /// Where its positions live.
    pub space: Space,
    /// The world transform mirrors (negative determinant): swap front and back faces.
    pub mirror: bool,
    /// Active lights, world space, at most [`MAX_LIGHTS`], root first; lights that are off
    /// are included (they keep their slot) and must be skipped.
    pub lights: &'a [SceneLight],
    /// The passes, executed in order.
    pub passes: &'a [Pass],
}

/// Counters a backend reports for a frame. A backend fills what it can; the soft renderer fills
/// everything.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BackendStats {
    /// `Renderer::draw` calls.
    pub draws: u64,
    /// Passes executed.
    pub passes: u64,
    /// Primitives submitted (summed over passes).
    pub primitives_in: u64,
    /// Primitives that needed geometric clipping.
    pub primitives_clipped: u64,
    /// Primitives entirely outside the view volume or a clip plane.
    pub primitives_clipped_away: u64,
    /// Primitives discarded by face culling.
    pub primitives_culled: u64,
    /// Triangles handed to the rasteriser after clipping.
    pub triangles_out: u64,
    /// Fragments written (passed every test).
    pub fragments: u64,
}

/// A rendering backend. See the [module docs](self) for the call order and the contract.
pub trait Renderer {
    /// Target size in pixels.
    fn size(&self) -> (u32, u32);

    /// Lights per draw the backend supports (the scene never passes more than
    /// `min(this, MAX_LIGHTS)`).
    fn max_lights(&self) -> usize {
        MAX_LIGHTS
    }

    /// Texture units per pass the backend supports (extra stages are dropped, local ones
    /// first kept).
    fn max_texture_units(&self) -> usize;

    /// Starts a frame: remembers the camera and clears colour, depth and stencil.
    ///
    /// # Errors
    /// A backend-specific failure, as [`SceneError::Renderer`].
    fn begin_frame(&mut self, frame: &Frame<'_>) -> Result<(), SceneError>;

    /// Draws one geometry with its passes.
    ///
    /// # Errors
    /// A backend-specific failure, as [`SceneError::Renderer`].
    fn draw(&mut self, draw: &Draw<'_>) -> Result<(), SceneError>;

    /// Clears depth and/or stencil in a rectangle of the target between draws (Wild Magic's
    /// `ClearZBuffer` / `ClearSubZBuffer` / `ClearStencilBuffer`): draws issued before see
    /// the old values, draws after the new ones. [`Scene::draw`](crate::Scene::draw) calls
    /// it before each layer ([`layer`](crate::graph::layer)); colour is never cleared here.
    ///
    /// # Errors
    /// A backend-specific failure, as [`SceneError::Renderer`].
    fn clear_region(&mut self, region: &ClearRegion) -> Result<(), SceneError>;

    /// Ends the frame (all drawing finished) and reports what it did.
    ///
    /// # Errors
    /// A backend-specific failure, as [`SceneError::Renderer`].
    fn end_frame(&mut self) -> Result<BackendStats, SceneError>;
}
