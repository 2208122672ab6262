//! The document model of a JSON scene file: plain serde data that round-trips exactly
//! (`parse → save → parse` gives an equal [`SceneDoc`]). Building a [`crate::Scene`] from it
//! is a separate step ([`super::build`]). Field names, defaults and examples are in
//! `docs/scene-format.md`.

use serde::{Deserialize, Serialize};

pub use super::doc_state::*;
use super::real::r3;
pub use super::real::{Real, Real3, Real4};

/// The value of [`SceneDoc::format`].
pub const FORMAT: &str = "plumb-scene";
/// The format version this plumb reads and writes.
pub const VERSION: u32 = 1;

fn is_default<T: Default + PartialEq>(t: &T) -> bool {
    *t == T::default()
}

/// A whole scene file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SceneDoc {
    /// Always [`FORMAT`].
    pub format: String,
    /// Always [`VERSION`].
    pub version: u32,
    /// Clear colour (default opaque black).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub background: Option<Real4>,
    /// Global ambient light (default black).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub global_ambient: Option<Real3>,
    /// Named textures, referenced by effects.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub textures: Vec<TextureDoc>,
    /// Named lights, attached to nodes by name.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub lights: Vec<LightDoc>,
    /// Named cameras (also projectors of projected textures).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cameras: Vec<CameraDoc>,
    /// Collisions computed at load (the book's Collision sample), in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub collisions: Vec<CollisionDoc>,
    /// Screen-space polygons: backgrounds drawn before the scene, overlays after it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub screen_polygons: Vec<ScreenPolygonDoc>,
    /// Cyclic definitions: models and symbols, instanced by nodes with an `instance`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub definitions: Option<DefinitionsDoc>,
    /// The (uniquely named) node frames are drawn relative to; the cameras are in its frame.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reference_node: Option<String>,
    /// Layered depth: a node whose scale relative to its layer drops below this step (0..1)
    /// starts a new depth layer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub depth_layers: Option<Real>,
    /// The image-based light of `pbr` effects (default: none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub environment: Option<EnvironmentDoc>,
    /// The scene's root node (a group).
    #[serde(default, skip_serializing_if = "is_default")]
    pub root: NodeDoc,
}

/// `environment`: the image-based light of physically based effects.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EnvironmentDoc {
    /// `"studio"`: the built-in studio (`plumb_raster::environment::Environment::studio`).
    pub map: String,
    /// Multiplies its radiance (default 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub intensity: Option<Real>,
}

impl Default for SceneDoc {
    fn default() -> Self {
        SceneDoc {
            format: FORMAT.to_owned(),
            version: VERSION,
            background: None,
            global_ambient: None,
            textures: Vec::new(),
            lights: Vec::new(),
            cameras: Vec::new(),
            collisions: Vec::new(),
            screen_polygons: Vec::new(),
            definitions: None,
            reference_node: None,
            depth_layers: None,
            environment: None,
            root: NodeDoc::default(),
        }
    }
}

/// A collision between two geometry leaves, computed once at load with bounding-volume trees
/// (`crate::passes::collide`): the triangles that intersect get `hit_uv` on their vertices in uv set
/// 0 (how the book's Collision sample recolours them).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CollisionDoc {
    /// The two geometry leaves, by name.
    pub objects: [String; 2],
    /// The trees' bounding volumes: `box` (oriented boxes, the default) or `sphere`.
    #[serde(default)]
    pub bound: CollisionBoundDoc,
    /// Every intersecting pair (`all`, the default) or stop at the `first`.
    #[serde(default)]
    pub mode: CollisionModeDoc,
    /// The uv every vertex of a hit triangle gets in uv set 0.
    pub hit_uv: [Real; 2],
}

/// [`CollisionDoc::bound`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CollisionBoundDoc {
    /// Oriented boxes.
    #[default]
    Box,
    /// Spheres.
    Sphere,
}

/// [`CollisionDoc::mode`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CollisionModeDoc {
    /// Every intersecting triangle pair.
    #[default]
    All,
    /// Stop at the first.
    First,
}

/// What a node is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NodeKindDoc {
    /// A group (children, no geometry).
    Group,
    /// A geometry leaf (needs `mesh`).
    Geometry,
    /// A switch: draws only its `active` child.
    Switch,
    /// A billboard group: turns about its y axis to face the camera.
    Billboard,
    /// A discrete-LOD switch: draws the child whose `lod` distance interval holds the camera's
    /// distance to the LOD centre.
    Lod,
    /// A BSP node (needs `bsp`): draws its positive, coplanar and negative children back to
    /// front from the eye.
    Bsp,
    /// A convex-region manager (needs `bsp`): a BSP node whose leaves are `region`s; its
    /// coplanar child is the outside scene, drawn when the eye is in no region.
    RegionManager,
    /// A convex region: a room, with outgoing `portals` to other regions.
    Region,
}

impl From<NodeKindDoc> for crate::graph::NodeKind {
    fn from(kind: NodeKindDoc) -> Self {
        use crate::graph::NodeKind;
        match kind {
            NodeKindDoc::Group => NodeKind::Group,
            NodeKindDoc::Geometry => NodeKind::Geometry,
            NodeKindDoc::Switch => NodeKind::Switch,
            NodeKindDoc::Billboard => NodeKind::Billboard,
            NodeKindDoc::Lod => NodeKind::Lod,
            NodeKindDoc::Bsp => NodeKind::Bsp,
            NodeKindDoc::RegionManager => NodeKind::RegionManager,
            NodeKindDoc::Region => NodeKind::Region,
        }
    }
}

impl From<crate::graph::NodeKind> for NodeKindDoc {
    fn from(kind: crate::graph::NodeKind) -> Self {
        use crate::graph::NodeKind;
        match kind {
            NodeKind::Group => NodeKindDoc::Group,
            NodeKind::Geometry => NodeKindDoc::Geometry,
            NodeKind::Switch => NodeKindDoc::Switch,
            NodeKind::Billboard => NodeKindDoc::Billboard,
            NodeKind::Lod => NodeKindDoc::Lod,
            NodeKind::Bsp => NodeKindDoc::Bsp,
            NodeKind::RegionManager => NodeKindDoc::RegionManager,
            NodeKind::Region => NodeKindDoc::Region,
        }
    }
}

/// Which slot of a BSP node a child fills.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BspSideDoc {
    /// The side the normal points to.
    Positive,
    /// In the plane (walls; a region manager's outside scene).
    Coplanar,
    /// The other side.
    Negative,
}

/// The plane `normal · X = constant` (local space) of a `bsp` or `region_manager` node and
/// which slot each child fills.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BspDoc {
    /// Plane normal (non-zero, need not be unit length; the constant is scaled with it).
    pub normal: Real3,
    /// Plane constant `c` of `normal · X = c`.
    #[serde(default, skip_serializing_if = "is_default")]
    pub constant: Real,
    /// The slot of each child, in child order, each slot at most once (default `positive`,
    /// `coplanar`, `negative`; children past the list are in no slot and not drawn).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sides: Option<Vec<BspSideDoc>>,
}

/// An outgoing portal of a `region`: a planar convex polygon in the region's local space,
/// counter-clockwise seen from inside the region, leading to the region named `to`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PortalDoc {
    /// At least 3 vertices.
    pub vertices: Vec<Real3>,
    /// Name of the adjacent region (unique in the file; may be the region itself).
    pub to: String,
    /// Whether the view passes (default true; a closed portal blocks).
    #[serde(default = "yes", skip_serializing_if = "is_true")]
    pub open: bool,
}

fn yes() -> bool {
    true
}

fn is_true(b: &bool) -> bool {
    *b
}

/// The LOD centre and per-child distance intervals of a `lod` node.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LodDoc {
    /// LOD centre in the node's local space (default the origin).
    #[serde(default, skip_serializing_if = "is_default")]
    pub center: Real3,
    /// One local distance interval `[min, max)` per child, in child order (children past the
    /// end are never drawn).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ranges: Vec<[Real; 2]>,
}

/// One node of the tree.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NodeDoc {
    /// Name (default empty; names referenced by effects must be unique).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub name: String,
    /// Kind; default `geometry` when `mesh` is given, otherwise `group`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<NodeKindDoc>,
    /// Local transform (default identity).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transform: Option<TransformDoc>,
    /// Geometry of a geometry leaf.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mesh: Option<MeshDoc>,
    /// A glTF / OBJ file (relative to the scene file) imported under this group, after its
    /// `children`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub import: Option<String>,
    /// A switch's active child (index into its children; default none drawn).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub active: Option<usize>,
    /// A `lod` node's centre and distance intervals.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lod: Option<LodDoc>,
    /// A `bsp` or `region_manager` node's plane and child slots.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bsp: Option<BspDoc>,
    /// A `region`'s outgoing portals, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub portals: Vec<PortalDoc>,
    /// The object id this node's geometry, and geometry below it that sets none, writes to
    /// an id plane (`--ids-out`; default: the nearest ancestor's, else the node's index + 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub object_id: Option<u32>,
    /// How frustum culling treats this node and its subtree (default `dynamic`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cull_mode: Option<CullingDoc>,
    /// A layer node: depth and/or stencil cleared in a screen rectangle before this subtree is
    /// drawn, which is drawn after everything outside it (`crate::graph::layer`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clear: Option<ClearDoc>,
    /// Global render states set on this node.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub states: Option<StatesDoc>,
    /// Names of lights attached here (they light this subtree).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub lights: Vec<String>,
    /// An effect on this node.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub effect: Option<EffectDoc>,
    /// Controllers animating this node's local transform.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub controllers: Vec<ControllerDoc>,
    /// Instances a definition symbol under this group (no `children` or `import`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instance: Option<InstanceDoc>,
    /// Layered depth: this node shares its depth layer with its children.
    #[serde(default, skip_serializing_if = "is_false")]
    pub share_depth: bool,
    /// Child nodes, in draw order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub children: Vec<NodeDoc>,
}

/// Per-node frustum culling (`crate::Culling`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CullingDoc {
    /// Test the node's world bound against the camera's planes (the default).
    Dynamic,
    /// Never drawn, with its subtree.
    Always,
    /// Always drawn: the subtree skips the plane tests.
    Never,
}

impl From<CullingDoc> for crate::graph::node::Culling {
    fn from(d: CullingDoc) -> Self {
        match d {
            CullingDoc::Dynamic => crate::graph::node::Culling::Dynamic,
            CullingDoc::Always => crate::graph::node::Culling::Always,
            CullingDoc::Never => crate::graph::node::Culling::Never,
        }
    }
}

/// What a layer node clears (`crate::ClearRegion`). `{}` clears depth to 1 over the whole
/// target; with `stencil` alone only stencil is cleared.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClearDoc {
    /// `[x, y, width, height]` normalized over the target, origin top-left, y down (as a
    /// camera `viewport`); default the whole target.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rect: Option<[Real; 4]>,
    /// Depth written (0..1); default 1 unless only `stencil` is given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub depth: Option<Real>,
    /// Stencil value written (0..255); default: stencil kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stencil: Option<u8>,
}

/// Which screen layer a screen polygon is drawn in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ScreenLayerDoc {
    /// Before the scene, at the far depth (never writes depth).
    Background,
    /// After the scene, on top of it (the default).
    #[default]
    Overlay,
}

/// A polygon in screen space: `(x, y)` in `[0, 1]`, origin at the top-left of the viewport.
/// Exactly one of `points` (a convex polygon in one `color`, uvs equal to the points) and
/// `mesh` (any geometry; its positions' `x, y` are screen coordinates, `z` is ignored).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScreenPolygonDoc {
    /// `background` or `overlay` (default).
    #[serde(default, skip_serializing_if = "is_default")]
    pub layer: ScreenLayerDoc,
    /// Corners of a convex polygon, in order (drawn as a fan from the first).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub points: Option<Vec<[Real; 2]>>,
    /// The colour of a `points` polygon (default opaque white).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub color: Option<Real4>,
    /// Geometry in screen coordinates (instead of `points`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mesh: Option<MeshDoc>,
    /// States on top of the screen defaults (depth test and culling off).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub states: Option<StatesDoc>,
    /// `textures` or `vertex_colors` (the other effects need a node).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub effect: Option<EffectDoc>,
}

/// A local transform: scale, then rotation, then translation.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TransformDoc {
    /// Translation (default 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub translation: Option<Real3>,
    /// Rotation (default none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rotation: Option<RotationDoc>,
    /// Per-axis scale; may be non-uniform or negative (mirroring). Default 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scale: Option<Real3>,
    /// One scale for all three axes (instead of `scale`; sets the uniform-scale hint).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uniform_scale: Option<Real>,
    /// A general linear part, 9 numbers column-major (instead of `rotation` and `scale`;
    /// written by the scene saver for transforms that are not rotation × scale).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub matrix: Option<[Real; 9]>,
}

/// A rotation: `axis` + `degrees` (or `radians`), or a `quaternion` `[x, y, z, w]` (normalized on load).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RotationDoc {
    /// Rotation axis (any non-zero length).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub axis: Option<Real3>,
    /// Angle about `axis`, degrees, right-hand rule.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub degrees: Option<Real>,
    /// Angle about `axis` in radians (instead of `degrees`; exact for values that code
    /// computes in radians, such as `π/2` or `0.6`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub radians: Option<Real>,
    /// Quaternion `x, y, z, w`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quaternion: Option<Real4>,
    /// A rotation matrix, 9 numbers column-major (orthonormal, determinant +1; exact, which
    /// is why the scene saver writes rotations this way).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub matrix: Option<[Real; 9]>,
}

/// Geometry of a leaf: a built-in generator or inline data.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum MeshDoc {
    /// Square in the xz plane, normal +y.
    Plane(PlaneDoc),
    /// Axis-aligned box (`"cube"` is accepted as another name).
    #[serde(alias = "cube")]
    Box(BoxDoc),
    /// Uv sphere.
    Sphere(SphereDoc),
    /// Torus around y.
    Torus(TorusDoc),
    /// Cylinder along y.
    Cylinder(CylinderDoc),
    /// Vertex and index arrays.
    Inline(InlineMeshDoc),
    /// A particle system drawn as camera-facing squares (geometry nodes only).
    Particles(ParticlesDoc),
    /// A triangle mesh decimated by edge collapses, at a target record (continuous LOD).
    Clod(ClodDoc),
    /// Bézier segments tessellated by subdivision (a line strip).
    Curve(CurveDoc),
    /// A Bézier patch tessellated by subdivision.
    Surface(SurfaceDoc),
}

/// `clod`: a triangle mesh decimated by edge collapses (Eberly's `ClodMesh`), drawn at one
/// collapse record. Give `record` or `fraction`, not both (default: record 0, full detail).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClodDoc {
    /// The full-detail triangle mesh (a generator or inline triangles).
    pub mesh: Box<MeshDoc>,
    /// The target record: 0 is full detail, each record one edge collapse more.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub record: Option<u32>,
    /// The target as a fraction of the record range: 0 is full detail, 1 the last record
    /// (record `⌊fraction · (records − 1)⌋`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fraction: Option<Real>,
    /// Choose the record per view from the eye's depth instead (the book's
    /// `SelectLevelOfDetail`); `record`/`fraction` are then the record before the first view.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub select: Option<SelectDoc>,
}

/// `select`: the level of a `clod` or `curve` mesh chosen per view
/// (`plumb_scene::levels`): the finest up to depth `near`, the coarsest from `far` on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SelectDoc {
    /// Up to this depth along the view direction: the finest level.
    pub near: Real,
    /// From this depth on: the coarsest level.
    pub far: Real,
    /// A curve's coarsest level (default 0; its `level` is the finest). Not for `clod`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_level: Option<u32>,
}

/// `curve`: Bézier segments of one degree joined end to end, tessellated to a level (a line
/// strip).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CurveDoc {
    /// Control points: `degree · n + 1` for `n` segments (consecutive segments share their end
    /// point).
    pub points: Vec<Real3>,
    /// Degree of every segment (1 to 15; default 3).
    #[serde(default = "three_u32", skip_serializing_if = "is_three_u32")]
    pub degree: u32,
    /// Subdivision level: `n · 2^level + 1` vertices (at most 2^20).
    #[serde(default)]
    pub level: u32,
    /// RGBA colours of the `n + 1` segment end points, averaged down the levels.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub colors: Option<Vec<Real4>>,
    /// Choose the level per view, from `select.min_level` (far) to `level` (near).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub select: Option<SelectDoc>,
}

/// The domain of a `surface` patch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PatchDoc {
    /// Tensor-product Bézier patch on `[0,1]²`.
    #[default]
    Rectangle,
    /// Triangular Bézier patch on `u, v ≥ 0, u + v ≤ 1`.
    Triangle,
}

/// `surface`: one Bézier patch tessellated to a level (triangles with the patch's normals).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SurfaceDoc {
    /// `rectangle` (default) or `triangle`.
    #[serde(default, skip_serializing_if = "is_rectangle")]
    pub patch: PatchDoc,
    /// Degree (1 to 15; default 3): of both directions of a rectangle unless `degree_v` is
    /// given.
    #[serde(default = "three_u32", skip_serializing_if = "is_three_u32")]
    pub degree: u32,
    /// A rectangle's degree along v (default `degree`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub degree_v: Option<u32>,
    /// Control points: a rectangle's `(du+1)·(dv+1)` row by row (u fastest); a triangle's
    /// `(d+1)(d+2)/2` row by row (`b_{i,j,d−i−j}` for `j = 0..=d`, `i = 0..=d−j`).
    pub points: Vec<Real3>,
    /// Subdivision level: a rectangle has `2·4^level` triangles, a triangle `4^level` (at
    /// most 2^18).
    #[serde(default)]
    pub level: u32,
    /// RGBA colours of the domain's corners — a rectangle's at `(0,0), (1,0), (1,1), (0,1)`,
    /// a triangle's at `(0,0), (1,0), (0,1)` — averaged down the levels.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub colors: Option<Vec<Real4>>,
    /// Choose the level per view, from `select.min_level` (far) to `level` (near).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub select: Option<SelectDoc>,
}

fn three_u32() -> u32 {
    3
}

fn is_three_u32(x: &u32) -> bool {
    *x == 3
}

fn is_rectangle(p: &PatchDoc) -> bool {
    *p == PatchDoc::Rectangle
}

/// `particles` parameters: exactly one of `locations` (with `sizes`) and `random`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ParticlesDoc {
    /// Particle centres (local space).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub locations: Option<Vec<Real3>>,
    /// One size (half the square's side) per location, ≥ 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sizes: Option<Vec<Real>>,
    /// One RGBA colour per particle (default none: the material's colour).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub colors: Option<Vec<Real4>>,
    /// A seeded random system moving inside a cube (instead of `locations`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub random: Option<RandomParticlesDoc>,
    /// Multiplier of every size (default 1, ≥ 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size_adjust: Option<Real>,
    /// How many particles, from the first, are drawn (default all).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub active: Option<u32>,
    /// Per-particle motion of a `locations` system (default none: they stay put).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub motion: Option<ParticleMotionDoc>,
}

/// Point motion of `locations` particles (Eberly's `ParticleController`): each particle moves
/// at its own constant velocity and changes size at its own rate, as a closed form of the
/// controller time `t꜀ = max(0, frequency·t + phase)`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ParticleMotionDoc {
    /// One velocity per particle, units per second (speed `|v|` along `v/|v|`). Required
    /// unless `speeds` and `directions` are given.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub velocities: Vec<Real3>,
    /// Instead of `velocities`, the exact state: one speed per particle (units per second,
    /// any sign) along its `directions` entry.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub speeds: Option<Vec<Real>>,
    /// With `speeds`: one unit direction per particle, kept as given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub directions: Option<Vec<Real3>>,
    /// One size change per particle, units per second (default 0; sizes stop at 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size_changes: Option<Vec<Real>>,
    /// Change of `size_adjust` per second (default 0; it stops at 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size_adjust_change: Option<Real>,
    /// `[min, max]` corners of a box the particles bounce inside (default none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bounds: Option<[Real3; 2]>,
    /// `p` in `t꜀ = f·t + p` (default 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phase: Option<Real>,
    /// `f` in `t꜀ = f·t + p` (default 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frequency: Option<Real>,
    /// Whether the particles move (default true).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub active: Option<bool>,
}

/// `random` particles: every value drawn from a seeded generator.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RandomParticlesDoc {
    /// Generator seed (default 0).
    pub seed: u64,
    /// Number of particles (default 100, at most `plumb_scene::particles::MAX_PARTICLES`).
    pub count: u32,
    /// Half the side of the cube `[−h, h]³` they start in and bounce inside (default 1).
    pub half_extent: Real,
    /// Sizes uniform in `[min, max)` (default `[0.05, 0.1]`).
    pub size: [Real; 2],
    /// Speeds uniform in `[min, max)`, each along a random direction (default `[0, 1]`).
    pub speed: [Real; 2],
    /// Colours uniform per channel between `color_min` and `color_max` (default white).
    pub color_min: Real4,
    /// See `color_min`.
    pub color_max: Real4,
    /// `p` in controller time `t꜀ = t + p`: the system shown at load is the one at time `p`
    /// (default 0).
    pub phase: Real,
    /// `false` keeps the particles at their start (default true).
    pub moving: bool,
}

impl Default for RandomParticlesDoc {
    fn default() -> Self {
        RandomParticlesDoc {
            seed: 0,
            count: 100,
            half_extent: Real::lit(1.0),
            size: [Real::lit(0.05), Real::lit(0.1)],
            speed: [Real::lit(0.0), Real::lit(1.0)],
            color_min: super::real::r4(1.0, 1.0, 1.0, 1.0),
            color_max: super::real::r4(1.0, 1.0, 1.0, 1.0),
            phase: Real::lit(0.0),
            moving: true,
        }
    }
}

/// `plane` parameters.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PlaneDoc {
    /// Side length (default 2).
    pub size: Real,
    /// Quads per side (default 1).
    pub divisions: u32,
}

impl Default for PlaneDoc {
    fn default() -> Self {
        PlaneDoc {
            size: Real::lit(2.0),
            divisions: 1,
        }
    }
}

/// `box` parameters.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct BoxDoc {
    /// Full extents (default `[2, 2, 2]`: the cube `[−1, 1]³`).
    pub size: Real3,
}

impl Default for BoxDoc {
    fn default() -> Self {
        BoxDoc {
            size: r3(2.0, 2.0, 2.0),
        }
    }
}

/// `sphere` parameters.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SphereDoc {
    /// Radius (default 1).
    pub radius: Real,
    /// Rings pole to pole (default 16).
    pub stacks: u32,
    /// Segments around (default 32).
    pub slices: u32,
}

impl Default for SphereDoc {
    fn default() -> Self {
        SphereDoc {
            radius: Real::lit(1.0),
            stacks: 16,
            slices: 32,
        }
    }
}

/// `torus` parameters.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TorusDoc {
    /// Ring radius (default 1).
    pub major: Real,
    /// Tube radius (default 0.25).
    pub minor: Real,
    /// Segments around the axis (default 32).
    pub rings: u32,
    /// Segments around the tube (default 16).
    pub sides: u32,
}

impl Default for TorusDoc {
    fn default() -> Self {
        TorusDoc {
            major: Real::lit(1.0),
            minor: Real::lit(0.25),
            rings: 32,
            sides: 16,
        }
    }
}

/// `cylinder` parameters.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CylinderDoc {
    /// Radius (default 1).
    pub radius: Real,
    /// Height (default 2).
    pub height: Real,
    /// Segments around (default 32).
    pub slices: u32,
    /// Closed ends (default true).
    pub caps: bool,
}

impl Default for CylinderDoc {
    fn default() -> Self {
        CylinderDoc {
            radius: Real::lit(1.0),
            height: Real::lit(2.0),
            slices: 32,
            caps: true,
        }
    }
}

/// Primitive kind of inline geometry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TopologyDoc {
    /// Points.
    Points,
    /// Line segments (index pairs).
    Lines,
    /// Connected polyline.
    LineStrip,
    /// Closed polyline.
    LineLoop,
    /// Triangles (index triples).
    #[default]
    Triangles,
}

/// Inline vertex and index arrays.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InlineMeshDoc {
    /// Primitive kind (default `triangles`).
    #[serde(default, skip_serializing_if = "is_default")]
    pub topology: TopologyDoc,
    /// Positions.
    pub positions: Vec<Real3>,
    /// Normals, one per position (default none; `generate_normals` computes them).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub normals: Option<Vec<Real3>>,
    /// Compute area-weighted vertex normals (triangles only; default false).
    #[serde(default, skip_serializing_if = "is_default")]
    pub generate_normals: bool,
    /// RGBA colours, one per position.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub colors: Option<Vec<Real4>>,
    /// Uv sets (set 0 first), each one uv per position.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub uvs: Vec<Vec<[Real; 2]>>,
    /// Tangents `[x, y, z, w]` (w = ±1, the handedness), one per position, for bump maps
    /// (default none: generated when a bump map needs them).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tangents: Option<Vec<Real4>>,
    /// Indices (default `0, 1, …, n−1`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub indices: Option<Vec<u32>>,
    /// Points and polylines: draw only the first `active` points / segments (Wild Magic's
    /// `SetActiveQuantity`; clamped to what the mesh holds; default all).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub active: Option<u32>,
}

/// Camera projection kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ProjectionDoc {
    /// Perspective (`fov_y_degrees`, `aspect`).
    #[default]
    Perspective,
    /// Orthographic (`half_width`, `half_height`).
    Orthographic,
}

/// A named camera placed by `eye`, `target` and `up`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CameraDoc {
    /// Name (unique; `plumb render --camera NAME`).
    pub name: String,
    /// Projection kind (default perspective).
    pub projection: ProjectionDoc,
    /// Vertical field of view, degrees (perspective; default 45).
    pub fov_y_degrees: Real,
    /// Width / height (perspective; default: the image's).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub aspect: Option<Real>,
    /// Half the view volume's width (orthographic; default 1).
    pub half_width: Real,
    /// Half the view volume's height (orthographic; default 1).
    pub half_height: Real,
    /// Near plane distance (default 0.1).
    pub near: Real,
    /// Far plane distance (default 100).
    pub far: Real,
    /// Eye position (default `[0, 0, 5]`).
    pub eye: Real3,
    /// Point looked at (default origin).
    pub target: Real3,
    /// Up direction (default +y).
    pub up: Real3,
    /// The exact frame, as `plumb convert` and the saver write it: the unit right, up and
    /// backward axes (the columns of the camera node's rotation). `look_at(eye, target, up)`
    /// rounds, so this lets a saved camera reload bit for bit. Used only while it is the
    /// frame `eye`, `target` and `up` describe (each component within 10⁻⁴) and is a
    /// rotation; otherwise (after an edit of `target` or `up`, say) they take over.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub axes: Option<[Real3; 3]>,
    /// The part of the image it draws to, `[x, y, width, height]` as fractions of the image,
    /// origin top-left, y down (default: the whole image `[0, 0, 1, 1]`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub viewport: Option<Real4>,
    /// Window depth range `[near, far]`, each in `[0, 1]` (default `[0, 1]`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub depth_range: Option<[Real; 2]>,
}

/// The document form of a camera's viewport and depth range (engine → doc; `build` maps
/// back): each left out (`None`) when it is the default.
pub(crate) fn camera_view_doc(
    viewport: crate::values::camera::CameraViewport,
    depth_range: (f32, f32),
) -> (Option<Real4>, Option<[Real; 2]>) {
    let (x, y, w, h) = viewport.rect();
    (
        (viewport != crate::values::camera::CameraViewport::FULL)
            .then(|| super::real::r4(x, y, w, h)),
        (depth_range != (0.0, 1.0)).then(|| [Real::lit(depth_range.0), Real::lit(depth_range.1)]),
    )
}

impl Default for CameraDoc {
    fn default() -> Self {
        CameraDoc {
            name: String::new(),
            projection: ProjectionDoc::Perspective,
            fov_y_degrees: Real::lit(45.0),
            aspect: None,
            half_width: Real::lit(1.0),
            half_height: Real::lit(1.0),
            near: Real::lit(0.1),
            far: Real::lit(100.0),
            eye: r3(0.0, 0.0, 5.0),
            target: r3(0.0, 0.0, 0.0),
            up: r3(0.0, 1.0, 0.0),
            axes: None,
            viewport: None,
            depth_range: None,
        }
    }
}

/// A data-driven controller of a node's local transform.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum ControllerDoc {
    /// Constant rotation about an axis, applied after the node's own rotation.
    Spin(SpinDoc),
    /// Keyframed translation / rotation / scale.
    Keyframes(KeyframesDoc),
    /// Keyed blending of morph targets (geometry nodes only).
    Morph(MorphDoc),
    /// Inverse kinematics over a chain of named joints (any node; it runs for the scene).
    Ik(IkDoc),
    /// Skin and bones: the node's mesh follows the world transforms of named bone nodes
    /// (geometry nodes only).
    Skin(SkinDoc),
    /// System motion: the node moves at a constant velocity and turns at a constant rate.
    Motion(MotionDoc),
    /// Point motion (Eberly's `PointController`): each vertex of the node's mesh moves at its
    /// own velocity and its normal turns at its own rate (geometry nodes only).
    PointMotion(PointMotionDoc),
}

/// `point_motion` parameters (`plumb_scene::PointController`): with
/// `t꜀ = max(0, frequency·t + phase)`, vertex `i` is at `rest_i + velocities[i]·t꜀` and its
/// normal (if the mesh has normals) is turned by `|spins[i]|·t꜀` degrees about
/// `spins[i]/|spins[i]|`. The rest shape is the mesh as the file gives it.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PointMotionDoc {
    /// One velocity per vertex, units per second. Required unless `speeds` and `directions`
    /// are given.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub velocities: Vec<Real3>,
    /// Instead of `velocities`, the exact state: one speed per vertex (units per second, any
    /// sign) along its `directions` entry.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub speeds: Option<Vec<Real>>,
    /// With `speeds`: one unit direction per vertex, kept as given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub directions: Option<Vec<Real3>>,
    /// One angular velocity per vertex for its normal: axis × degrees per second (default
    /// none: normals keep their direction).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spins: Option<Vec<Real3>>,
    /// Instead of `spins`, the exact state: one angular speed per vertex in radians per second
    /// about its `angular_axes` entry.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub angular_speeds: Option<Vec<Real>>,
    /// With `angular_speeds`: one unit axis per vertex, kept as given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub angular_axes: Option<Vec<Real3>>,
    /// `p` in `t꜀ = f·t + p` (default 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phase: Option<Real>,
    /// `f` in `t꜀ = f·t + p` (default 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frequency: Option<Real>,
    /// Whether the points move (default true).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub active: Option<bool>,
}

/// `motion` parameters (Eberly's `PointController` system motion, `plumb_scene::SystemMotion`):
/// with `t꜀ = max(0, frequency·t + phase)`, the local transform is the node's own turned by
/// `degrees_per_second·t꜀` about `axis` (after its own rotation) and moved by `velocity·t꜀`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MotionDoc {
    /// Linear velocity, units per second (default 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub velocity: Option<Real3>,
    /// Rotation axis (default +y).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub axis: Option<Real3>,
    /// Angular speed about `axis`, degrees per second (default 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub degrees_per_second: Option<Real>,
    /// Instead of `velocity`, the exact state: the linear speed (units per second, any sign)
    /// along `direction`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub speed: Option<Real>,
    /// With `speed`: the unit direction, kept as given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub direction: Option<Real3>,
    /// Instead of `axis` and `degrees_per_second`, the exact state: the angular speed in
    /// radians per second about `angular_axis`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub angular_speed: Option<Real>,
    /// With `angular_speed`: the unit rotation axis, kept as given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub angular_axis: Option<Real3>,
    /// `p` in `t꜀ = f·t + p` (default 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phase: Option<Real>,
    /// `f` in `t꜀ = f·t + p` (default 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frequency: Option<Real>,
    /// Whether the controller runs (default true).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub active: Option<bool>,
}

/// `skin` parameters (Eberly's `SkinController`, `plumb_scene::skin`): per vertex `j` and
/// bone `k` a weight `w_jk` and an offset `Θ_jk` in the bone's space; the skinned vertex is
/// `Σ_k w_jk·W_k(Θ_jk)` with `W_k` the bone's world transform.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SkinDoc {
    /// Names of the bone nodes (each unique in the file, none twice), in bone order.
    pub bones: Vec<String>,
    /// One row per mesh vertex with one weight per bone (`weights[j][k]`), each in `[0, 1]`,
    /// each row summing to 1. Required unless `influences` is given.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub weights: Vec<Vec<Real>>,
    /// Instead of `weights` and `offsets`: per mesh vertex, the bones that influence it, each
    /// with its weight, offset and (for all influences of the skin, or none) normal offset,
    /// summed in the order given (what glTF skins and the scene saver give).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub influences: Option<Vec<Vec<SkinInfluenceDoc>>>,
    /// One row per mesh vertex with one offset per bone (`offsets[j][k]`, the vertex in bone
    /// `k`'s space). Default: derived from the bind pose (the mesh as placed by the file's
    /// transforms, before any controller runs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offsets: Option<Vec<Vec<Real3>>>,
    /// Whether the controller runs (default true; an inactive skin keeps its last shape).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub active: Option<bool>,
}

/// One bone's influence on one vertex of a `skin` (its `influences` form).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SkinInfluenceDoc {
    /// Index into the skin's `bones`.
    pub bone: u32,
    /// The weight `w_jk` (finite; rows need not sum to 1).
    pub weight: Real,
    /// The vertex in the bone's space, `Θ_jk`.
    pub offset: Real3,
    /// The vertex normal in the bone's space, `η_jk` (skinned normals; all influences of a
    /// skin have one, or none has).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub normal: Option<Real3>,
}

/// `ik` parameters (Eberly's `IKController`).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IkDoc {
    /// The joints, root first; each is a child of the one before it.
    pub joints: Vec<IkJointDoc>,
    /// The goals (at least one).
    pub goals: Vec<IkGoalDoc>,
    /// CCD passes per update (default 128).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub iterations: Option<u32>,
    /// Visit the joints from the end of the chain to the root (default true).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end_to_root: Option<bool>,
    /// Whether the controller runs (default true).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub active: Option<bool>,
}

/// One joint of an `ik` chain: a node name and its degrees of freedom.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IkJointDoc {
    /// Name of the node (unique in the file).
    pub node: String,
    /// Axes (of the parent's world frame) it may slide along, with limits.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub translate: Vec<IkAxisDoc>,
    /// Axes it may turn about, with limits in degrees.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rotate: Vec<IkAxisDoc>,
}

/// One free axis of a joint.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IkAxisDoc {
    /// 0 (x), 1 (y) or 2 (z).
    pub axis: u32,
    /// Lower limit (default none for translations, −180° for rotations).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min: Option<Real>,
    /// Upper limit (default none for translations, 180° for rotations).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max: Option<Real>,
}

/// One goal: the effector node should reach the target node.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IkGoalDoc {
    /// Name of the target node.
    pub target: String,
    /// Name of the effector node.
    pub effector: String,
    /// Weight, > 0 (default 1).
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub weight: Real,
}

fn one() -> Real {
    Real::lit(1.0)
}

fn is_one(r: &Real) -> bool {
    r.get() == 1.0
}

/// `morph` parameters: the node's mesh blended between absolute targets.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MorphDoc {
    /// Key times (controller time), strictly increasing.
    pub times: Vec<Real>,
    /// Targets, each one position per mesh vertex; the first is target 0 (absolute), the
    /// others absolute too unless `relative`.
    pub targets: Vec<Vec<Real3>>,
    /// The targets after the first are the differences `Xᵢ − X₀`, as glTF stores them
    /// (default false: absolute).
    #[serde(default, skip_serializing_if = "is_default")]
    pub relative: bool,
    /// Normal targets, one per target with one normal per vertex, stored as `targets` are
    /// (default none: normals regenerated from the morphed triangles).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub normals: Option<Vec<Vec<Real3>>>,
    /// Interpolation of the weights (default linear).
    #[serde(default, skip_serializing_if = "is_default")]
    pub interpolation: InterpolationDoc,
    /// One array per key of the weights of targets 1, 2, … (target 0's is implied); three
    /// per key for `cubic_spline` (in-tangent, value, out-tangent).
    pub weights: Vec<Vec<Real>>,
    /// What happens outside `[min_time, max_time]` (default clamp).
    #[serde(default, skip_serializing_if = "is_default")]
    pub repeat: RepeatDoc,
    /// Start of the controller-time interval (default: the first key time).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_time: Option<Real>,
    /// End of the controller-time interval (default: the last key time).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_time: Option<Real>,
    /// Phase of `controller time = frequency·time + phase` (default 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phase: Option<Real>,
    /// Frequency of `controller time = frequency·time + phase` (default 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frequency: Option<Real>,
    /// Whether the controller runs (default true).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub active: Option<bool>,
}

/// `spin` parameters.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SpinDoc {
    /// Axis (default +y).
    pub axis: Real3,
    /// Angular speed, degrees per second (default 90).
    pub degrees_per_second: Real,
}

impl Default for SpinDoc {
    fn default() -> Self {
        SpinDoc {
            axis: r3(0.0, 1.0, 0.0),
            degrees_per_second: Real::lit(90.0),
        }
    }
}

/// Keyframe interpolation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum InterpolationDoc {
    /// Hold the previous key.
    Step,
    /// Linear (slerp for rotations).
    #[default]
    Linear,
    /// Cubic Hermite with (in-tangent, value, out-tangent) triples per key.
    CubicSpline,
}

/// `keyframes` parameters; tracks left out keep the node's own transform.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KeyframesDoc {
    /// Interpolation (default linear).
    #[serde(default, skip_serializing_if = "is_default")]
    pub interpolation: InterpolationDoc,
    /// Key times, seconds, strictly increasing, ≥ 0 (required unless every track has its
    /// own).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub times: Vec<Real>,
    /// Translations, one per key (three for cubic splines).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub translations: Option<Vec<Real3>>,
    /// Quaternions `x, y, z, w`, one per key (three for cubic splines).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rotations: Option<Vec<Real4>>,
    /// Scales, one per key (three for cubic splines).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scales: Option<Vec<Real3>>,
    /// The translation track's own key times and interpolation (default `times`,
    /// `interpolation`), as a glTF channel has them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub translation_keys: Option<TrackKeysDoc>,
    /// The rotation track's own key times and interpolation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rotation_keys: Option<TrackKeysDoc>,
    /// The scale track's own key times and interpolation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scale_keys: Option<TrackKeysDoc>,
    /// The pose of the parts no track drives (default: the node's `transform`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rest: Option<RestPoseDoc>,
    /// What happens outside `[min_time, max_time]` (default clamp).
    #[serde(default, skip_serializing_if = "is_default")]
    pub repeat: RepeatDoc,
    /// Start of the controller-time interval (default: the first key time).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_time: Option<Real>,
    /// End of the controller-time interval (default: the last key time).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_time: Option<Real>,
    /// Phase `p` of `controller time = frequency·time + p` (default 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phase: Option<Real>,
    /// Frequency of `controller time = frequency·time + phase` (default 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frequency: Option<Real>,
    /// Whether the controller runs (default true).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub active: Option<bool>,
}

/// The key times and interpolation of one `keyframes` track.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TrackKeysDoc {
    /// Interpolation (default linear).
    #[serde(default, skip_serializing_if = "is_default")]
    pub interpolation: InterpolationDoc,
    /// Key times, seconds, strictly increasing, ≥ 0.
    pub times: Vec<Real>,
}

/// The rest pose of a `keyframes` controller: translation, unit quaternion `x, y, z, w` and
/// scale.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RestPoseDoc {
    /// Translation.
    pub translation: Real3,
    /// Rotation quaternion `x, y, z, w`.
    pub rotation: Real4,
    /// Scale.
    pub scale: Real3,
}

/// How controller time repeats outside its interval (the book's `RepeatType`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RepeatDoc {
    /// Hold the ends.
    #[default]
    Clamp,
    /// Start again at the interval's start.
    Wrap,
    /// Run forward, then backward (ping-pong).
    Cycle,
}

#[cfg(feature = "internal-tests")]
pub(crate) mod tests {
    /// Every test of this module: `tests/unit.rs` runs each as one trial (an unlisted
    /// test fails the build as dead code).
    pub(crate) const TESTS: &[(&str, fn())] = &[
        (
            "camera_view_defaults_are_left_out",
            camera_view_defaults_are_left_out,
        ),
        (
            "file_kinds_are_the_scene_kinds",
            file_kinds_are_the_scene_kinds,
        ),
    ];

    use super::*;
    use crate::io::json::real::r4;
    use crate::values::camera::CameraViewport;

    /// The file's `"kind"` names each of the scene's kinds once, by the scene's own name.
    fn file_kinds_are_the_scene_kinds() {
        use crate::graph::NodeKind;
        for kind in NodeKind::ALL {
            let doc = NodeKindDoc::from(kind);
            let json = serde_json::to_string(&doc).unwrap();
            assert_eq!(json, format!("\"{}\"", kind.name()));
            let back: NodeKindDoc = serde_json::from_str(&json).unwrap();
            assert_eq!(NodeKind::from(back), kind);
        }
    }

    fn camera_view_defaults_are_left_out() {
        assert_eq!(
            camera_view_doc(CameraViewport::FULL, (0.0, 1.0)),
            (None, None)
        );
        let v = CameraViewport::normalized(0.25, 0.5, 0.5, 0.25).unwrap();
        let (vp, dr) = camera_view_doc(v, (0.5, 1.0));
        assert_eq!(vp, Some(r4(0.25, 0.5, 0.5, 0.25)));
        assert_eq!(dr, Some([Real::lit(0.5), Real::lit(1.0)]));
    }
}

// ---- Cyclic definitions (`crate::values::definition`, `crate::passes::instancing`; built by `definitions.rs`).

fn is_false(b: &bool) -> bool {
    !*b
}

/// The `definitions` section: terminal models and symbols whose productions place models
/// and symbols (themselves and their ancestors included).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DefinitionsDoc {
    /// Terminal models, each a mesh.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub models: Vec<ModelDoc>,
    /// Symbols.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub symbols: Vec<SymbolDoc>,
}

/// A terminal model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelDoc {
    /// Unique among models and symbols.
    pub name: String,
    /// Its geometry (as a node's `mesh`).
    pub mesh: MeshDoc,
}

/// A symbol and its productions.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SymbolDoc {
    /// Unique among models and symbols.
    pub name: String,
    /// One or more productions; with several, one is chosen per instance by the seed.
    pub productions: Vec<ProductionDoc>,
}

/// One production: weighted edges.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProductionDoc {
    /// Relative weight (default 1; positive).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weight: Option<Real>,
    /// What it places, in order.
    pub edges: Vec<EdgeDoc>,
}

/// One edge: a model or symbol placed by a transform.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EdgeDoc {
    /// The model or symbol placed.
    pub to: String,
    /// Its transform in the symbol's frame (default identity; must not be singular).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transform: Option<TransformDoc>,
}

/// A group node's `instance`: the symbol instanced under it, and how far.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InstanceDoc {
    /// The symbol.
    pub symbol: String,
    /// Screen-area threshold in pixels² (positive).
    pub min_area: Real,
    /// Depth cap below this node (1..=4096).
    pub max_depth: u32,
    /// Node cap of the instance tree, this node included (1..=[`super::MAX_NODES`]).
    pub max_nodes: u32,
    /// Seed of the random production choices (default 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    /// The camera instanced for at load (default the file's first camera); `plumb render`
    /// re-instances for the camera it draws from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub camera: Option<String>,
    /// The target size the area is measured in (default `[256, 256]`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resolution: Option<[u32; 2]>,
}
