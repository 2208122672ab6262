//! plumb-scene: the scene graph of plumb — hierarchy, transforms, bounds, incremental update,
//! camera, culling and picking — after Eberly's Wild Magic 3 (`Spatial` / `Node` /
//! `Geometry`), in an arena with typed ids instead of reference-counted pointers.
//!
//! # Module map
//!
//! The crate is a stack of six layers, one folder each (`src/values/`, `src/graph/`,
//! `src/nodes/`, `src/passes/`, `src/frame/`, `src/io/`), so listing `src/` reads as this
//! table; every module keeps its former top-level path (`plumb_scene::bound`, …) through a
//! re-export. **A module imports only from its own layer and the layers below it**, so
//! nothing reaches up and no two modules import each other (`tests/it/module_cycles.rs` in
//! the workspace fails on any import cycle and on an import that reaches up a layer). A type lives in the lowest layer that needs it.
//!
//! | layer | modules | what lives there |
//! |---|---|---|
//! | 1. value types, [`values`] | [`id`], [`error`], [`plane`], [`ray`], [`transform`], [`bound`], [`mesh`], [`shapes`], [`state`], [`light`], [`camera`], [`clear`], [`effect`], [`screen`], [`controller`], [`keyframe`], [`morph`], [`skin`], [`particles`], [`ik`], [`partition`], [`intersect`], [`oriented_box`], [`clod`], [`clod_build`], [`curve`], [`surface`], [`definition`] | plain data with no scene behind it: typed ids, the error type, geometry, meshes and generators, continuous-LOD meshes and their collapse records, curves and surfaces tessellated by subdivision, render states, lights, the camera, layer clear regions, effects and texture stages, screen polygons, the controller traits and timing, keyframe, morph and skin controllers, particles and point/particle motion, the IK solver, BSP sides and order, portals, intersection tests of lines, rays, segments, triangles, spheres and oriented boxes, cyclic definition graphs |
//! | 2. the graph, [`graph`] | [`node`], [`graph`] itself, [`hierarchy`], [`intent`], [`layer`], [`lookup`], [`motion`] | node storage (the arena, [`NodeId`]s), one node's data — the sum type of node kinds, [`NodeKind`] its discriminant — and its dirty flags (set in one place, [`node`]), the [`Scene`] and its hierarchy edits, what the user sets on nodes (states, lights, effects), layer nodes and their draw order, finding nodes and named objects, particle systems and IK controllers on the scene |
//! | 3. the node kinds, [`nodes`] | `group`, `geometry`, `switch`, `lod`, `billboard`, `bsp`, `region_manager`, `region` | one file per kind: its `impl Scene` API and the hooks the passes call for it (see [adding a node kind](nodes#adding-a-node-kind)) |
//! | 4. passes over the graph, [`passes`] | [`update`], [`render_state`], [`view`], [`cull`], [`pick`], [`print`](mod@print), [`collide`], [`frames`], [`copy`], [`instancing`] | world transforms and bounds, resolved render state, the view of a camera (billboard eye, particle facing, LOD choice), the visible set of a view, picking, the text dump, bounding-volume trees and mesh collision, relation matrices and reference-frame / layered-depth layouts, deep copies of subtrees, definitions instanced into subtrees |
//! | 5. the frame, [`frame`] | [`renderer`], [`multipass`], [`draw`], [`deferred`], [`soft`] | the backend-neutral [`Renderer`] trait and its plain data, pass lists of effects (multipass recipes), update → cull → sort → draw, deferred drawing through a pluggable draw function, [`FixedRenderer`] over any plumb-raster `DrawTarget` ([`SoftRenderer`] on the CPU) |
//! | 6. file I/O, [`io`] | [`io`] | scene files (JSON), glTF, OBJ, materials, animations, framing |
//!
//! What the user set (intent) and what `update` computed live on the nodes; what one view
//! computes — the visible set, the frame settings handed to a renderer — lives with the pass
//! that computes it and is not stored in the [`Scene`].
//!
//! ## Names shared with plumb-raster
//!
//! One concept has one public name across the two crates. Where they mean the same, the scene
//! re-exports plumb-raster's: [`StencilState`], [`CompareFunc`], [`BlendFactor`],
//! [`StencilOp`], [`FrontFace`], [`MAX_LIGHTS`], [`MAX_UV_SETS`]. Where the scene has a concept
//! of its own, it has a name of its own:
//!
//! | plumb-scene | plumb-raster's name, for its own concept |
//! |---|---|
//! | [`Culling`] (per-node view culling) | `CullMode` (face culling; the scene's is [`CullState`]) |
//! | [`MeshTopology`] (incl. line loops) | `Topology` (one draw call's primitives) |
//! | [`CameraViewport`] (fractions of the target) | `Viewport` (pixels and depth range) |
//! | [`SceneDrawStats`] (one frame of [`Scene::draw`]) | `DrawStats` (one draw call) |
//! | [`Fog`] (the book's fog state) | `FogState` (the pipeline's fog) |
//! | [`SceneLight`] (world space, in the light table) | `light::Light` (eye space, one draw) |
//! | [`io::ImportedLightKind`] (glTF punctual lights) | `light::LightKind` |
//!
//! The former scene names stay as aliases so existing code compiles; they are deprecated,
//! except `Light` and `FogState`, which in-tree examples still use.
//!
//! # Conventions
//!
//! * **Math**: `glam` `f32` types, **column vectors** (`p' = M·p`, translation in column 3),
//!   right-handed world. Matrix names say their frames: `world_from_local`,
//!   `view_from_world`, `clip_from_view`, so
//!   `clip_from_local = clip_from_view * view_from_world * world_from_local`.
//! * **Frames**: a node's own frame is **local** space (never "model" or "object": meshes
//!   are in local space, [`Mesh::local_bound`]). Getters of a [`Transform`] say so
//!   ([`Scene::local_transform`], [`Scene::world_transform`]); getters of a matrix are named
//!   by its frames ([`Scene::world_from_local`]).
//! * **Hierarchy**: `world = parent.world ∘ local` ([`Transform::compose`]); a node's local
//!   transform applies to its own geometry and to its children. Geometry lives on leaves.
//! * **Mirroring**: negative scale is allowed; a world transform with negative determinant
//!   ([`Transform::is_mirror`], [`DrawItem::mirror`]) reverses triangle winding, so the
//!   renderer must swap front and back faces for that draw.
//! * **Camera**: looks down −z in view space (frame D → −z, U → +y, R = D × U → +x). Clip depth
//!   is 0..1 (near → 0, far → 1, like glam's `perspective_rh`); NDC y up. Window coordinates
//!   have their origin top-left, y down, pixel centres at `(x + 0.5, y + 0.5)`.
//! * **Bounds**: spheres by default ([`BoundKind`]), merged with Van Verth & Bishop's formula in
//!   child order; the empty bound is the identity of merge.
//! * **Determinism**: no transcendental function from `std` (they go through
//!   `plumb_raster::math`), no hash-map iteration order in any output, fixed traversal orders
//!   (pre-order, child order) everywhere; the same edits give the same bits.
//!
//! # Staleness
//!
//! World transforms and world bounds are computed only by [`Scene::update`]. Between a local
//! edit and the next update they are **stale**; culling, picking and the text dump read them
//! as stored. Edits mark the node dirty and its ancestors as having a dirty descendant; the
//! update walks only dirty paths and recomputes each world transform and bound at most once
//! (see [`update`]).
//!
//! # Render state, lights, effects and drawing
//!
//! Nodes carry **intent**: global states ([`Scene::set_global_state`], the book's eight plus
//! stencil and polygon offset), lights ([`Scene::attach_light`]) and an [`Effect`]
//! ([`Scene::set_effect`]). [`Scene::update`] resolves, per geometry leaf, the deepest state of
//! each kind on its root path and its lights root first ([`Scene::resolved`]; see
//! [`render_state`]). [`Scene::draw`] = update → cull → sort (opaque in tree order, then
//! transparent back to front, stable) → draw through any [`Renderer`]; [`SoftRenderer`] is the
//! CPU backend over plumb-raster. The trait only carries plain data (see [`renderer`]).
//!
//! ```
//! use std::sync::Arc;
//! use glam::{Vec3, Vec4};
//! use plumb_scene::{Camera, GlobalState, MaterialState, Mesh, Scene, SceneLight, SoftRenderer};
//!
//! # fn main() -> Result<(), plumb_scene::SceneError> {
//! let mut scene = Scene::new();
//! let root = scene.root();
//! let p = vec![Vec3::new(-1.0, -1.0, 0.0), Vec3::new(1.0, -1.0, 0.0), Vec3::new(0.0, 1.0, 0.0)];
//! let tri = Mesh::triangles(p, vec![0, 1, 2])?.with_normals(vec![Vec3::Z; 3])?;
//! let leaf = scene.add_geometry(root, "triangle", Arc::new(tri))?;
//! let red = MaterialState::matte(Vec4::new(1.0, 0.0, 0.0, 1.0));
//! scene.set_global_state(root, GlobalState::Material(red))?;
//! let sun = scene.add_light(SceneLight::directional(Vec3::new(0.0, 0.0, -1.0)))?;
//! scene.attach_light(root, sun)?;
//!
//! let mut camera = Camera::perspective(1.0, 1.0, 0.1, 100.0)?;
//! camera.look_at(Vec3::new(0.0, 0.0, 3.0), Vec3::ZERO, Vec3::Y)?;
//! let mut renderer = SoftRenderer::new(32, 32, Some(1))?;
//! let stats = scene.draw(&camera, &mut renderer)?;
//! assert_eq!(stats.opaque, 1);
//! assert_eq!(scene.resolved(leaf)?.states.material, red);
//! // Lit head-on (N·L = 1) with diffuse (1, 0, 0), no ambient: pure red at the centre.
//! assert_eq!(renderer.image().get_pixel(16, 16).0, [255, 0, 0, 255]);
//! # Ok(())
//! # }
//! ```
//!
//! # Limits and errors
//!
//! One error type, [`SceneError`]. Non-finite input is rejected at the setter. A scene holds at
//! most [`Limits::max_nodes`] nodes and nests at most [`Limits::max_depth`] levels (defaults
//! [`DEFAULT_MAX_NODES`], [`DEFAULT_MAX_DEPTH`]); every walk is iterative, so a million-deep
//! chain neither overflows the stack nor aborts. Nothing panics on user data.
//!
//! # Example
//!
//! ```
//! use std::sync::Arc;
//! use glam::Vec3;
//! use plumb_scene::{Camera, Mesh, Scene};
//!
//! # fn main() -> Result<(), plumb_scene::SceneError> {
//! let mut scene = Scene::new();
//! let cube = Arc::new(Mesh::cube());
//! let arm = scene.add_group(scene.root(), "arm")?;
//! scene.set_translation(arm, Vec3::new(0.0, 0.0, -5.0))?;
//! let hand = scene.add_geometry(arm, "hand", cube.clone())?;
//! scene.set_scale(hand, Vec3::new(1.0, -2.0, 1.0))?; // mirrored
//! scene.update(0.0);
//!
//! let camera = Camera::perspective(1.0, 4.0 / 3.0, 0.1, 100.0)?;
//! let visible = scene.cull(&camera);
//! for item in visible.draw_items(&scene) {
//!     // A renderer draws item.mesh with item.world_from_local, swapping faces if mirrored.
//!     assert!(item.mirror);
//!     assert_eq!(item.world_from_local.w_axis.z, -5.0);
//! }
//! let ray = camera.pick_ray(320, 240, 640, 480).expect("inside the viewport");
//! let hit = scene.pick_closest(&ray).expect("the cube is straight ahead");
//! assert_eq!(hit.node, hand);
//! assert!((hit.distance - 4.5).abs() < 1e-5);
//! # Ok(())
//! # }
//! ```

// The layers of the module map, one folder each; every module keeps its former top-level
// path (`plumb_scene::bound`, `plumb_scene::cull`, …) through the re-exports beside it.

// Layer 1 — value types.
pub mod values;
pub use values::{
    bound, camera, clear, clod, clod_build, controller, curve, definition, effect, error, id, ik,
    intersect, keyframe, levels, light, mesh, morph, oriented_box, particles, partition, plane,
    ray, screen, shapes, skin, state, surface, transform,
};

// Layer 2 — the graph.
pub mod graph;
pub use graph::{hierarchy, intent, layer, lookup, motion, node};

// Layer 3 — the node kinds.
pub mod nodes;

// The kind modules' former paths (they were top-level before `nodes/`).
pub use nodes::{billboard, bsp, lod as dlod, region as portal, switch};

// Layer 4 — passes over the graph.
pub mod passes;
pub use passes::{
    collide, copy, cull, frames, instancing, pick, print, render_state, update, view,
};

// Layer 5 — the frame.
pub mod frame;
pub use frame::{deferred, draw, multipass, renderer, soft};

// Layer 6 — file I/O.
pub mod io;

/// One module's unit tests, `(name, test)` (see [`internal_tests`]).
#[cfg(feature = "internal-tests")]
pub(crate) type UnitTests = &'static [(&'static str, fn())];

/// The crate's unit tests, each `(module::tests::name, test)`. They are compiled into the
/// library, behind the feature `internal-tests` that only plumb-scene's own test targets
/// turn on, and run by `tests/unit.rs` (one trial each), so the test build compiles this
/// crate once, not a second time as a unit-test harness. Not an API.
#[cfg(feature = "internal-tests")]
#[doc(hidden)]
pub fn internal_tests() -> Vec<(String, fn())> {
    let modules: [(&str, UnitTests); 20] = [
        ("bound", values::bound::tests::TESTS),
        ("controller", values::controller::tests::TESTS),
        ("ik", values::ik::tests::TESTS),
        ("intersect", values::intersect::tests::TESTS),
        ("io::animation", io::animation::tests::TESTS),
        ("io::apply", io::apply::tests::TESTS),
        ("io::budget", io::budget::tests::TESTS),
        ("io::contain", io::contain::tests::TESTS),
        ("io::error", io::error::tests::TESTS),
        ("io::framing", io::framing::tests::TESTS),
        ("io::imported", io::imported::tests::TESTS),
        ("io::json::doc", io::json::doc::tests::TESTS),
        ("io::material", io::material::tests::TESTS),
        ("io::obj", io::obj::tests::TESTS),
        ("mesh", values::mesh::tests::TESTS),
        ("oriented_box", values::oriented_box::tests::TESTS),
        ("particles", values::particles::tests::TESTS),
        ("ray", values::ray::tests::TESTS),
        ("shapes", values::shapes::tests::TESTS),
        ("transform", values::transform::tests::TESTS),
    ];
    let mut all = Vec::new();
    for (module, tests) in modules
        .into_iter()
        .chain(io::gltf::internal_tests())
        .chain(io::json::internal_tests())
        .chain(io::internal_tests())
    {
        for &(name, test) in tests {
            all.push((format!("{module}::tests::{name}"), test));
        }
    }
    all
}

pub use frame::deferred::{DeferredDraw, DeferredList};
pub use frame::draw::{FrameSettings, SceneDrawStats};
pub use frame::renderer::{
    BackendStats, ColorSource, Draw, DrawRole, Frame, LightingTerms, Pass, Renderer, Space,
};
pub use frame::soft::{FixedRenderer, SoftRenderer};
pub use graph::{Limits, NodeId, NodeKind, Reparent, Scene, DEFAULT_MAX_DEPTH, DEFAULT_MAX_NODES};
pub use passes::collide::{
    BvKind, BvTree, BvTreeOptions, CollideMode, Collider, CollisionGroup, Contact, TrianglePair,
};
pub use passes::copy::CopyOptions;
pub use passes::cull::{
    CullStats, Culling, DrawItem, VisibleSet, MAX_CULL_PLANES, MAX_PORTAL_PASSAGES,
};
pub use passes::instancing::{Caps, InstanceOptions, InstanceReport, Instancing};
pub use passes::pick::PickRecord;
pub use passes::render_state::ResolvedRender;
pub use passes::update::UpdateStats;
pub use passes::view::View;
pub use values::bound::{merge_spheres, Bound, BoundKind};
pub use values::camera::{Camera, CameraViewport, Frustum, PixelRect, Projection, MAX_USER_PLANES};
pub use values::clear::ClearRegion;
pub use values::controller::{Controller, ControllerTiming, MeshController, RepeatType};
pub use values::definition::{Definitions, EdgeSpec, ProductionSpec};
pub use values::effect::{Effect, TexCoords, TextureStage};
pub use values::error::{DefinitionFault, SceneError};
pub use values::id::ObjectRef;
pub use values::ik::{IkController, IkGoal, IkJoint};
pub use values::keyframe::KeyframeController;
pub use values::levels::{LevelMesh, LevelSelect, LevelSource};
pub use values::light::{Light, LightId, LightType, SceneLight, MAX_LIGHTS};
pub use values::mesh::{Mesh, MeshTopology, MAX_UV_SETS};
pub use values::morph::MorphController;
pub use values::oriented_box::OrientedBox;
pub use values::particles::{ParticleController, Particles, PointController, SystemMotion};
pub use values::partition::{BspSide, Portal};
pub use values::plane::{Plane, Side};
pub use values::ray::Ray;
pub use values::screen::{ScreenLayer, ScreenPolygon};
pub use values::skin::{SkinController, SkinInfluence};
pub use values::state::{
    AlphaState, BlendEquation, BlendFactor, ClipPlaneState, CompareFunc, CullFace, CullState,
    DitherState, Fog, FogApply, FogDensity, FogDistance, FogState, FrontFace, GlobalState,
    MaterialState, PointLineState, PolygonOffsetState, RenderStates, ShadeState, StateKind,
    StencilOp, StencilState, WireframeState, ZBufferState,
};
pub use values::transform::{rotation_axis_angle, Transform};

// Former names, kept so existing code still compiles. Each names a concept plumb-raster
// names the same way for something else (see the module map above).

/// Former name of [`Culling`] (plumb-raster's `CullMode` is face culling).
#[deprecated(note = "renamed to `Culling`; plumb_raster::CullMode is face culling")]
pub type CullMode = Culling;
/// Former name of [`MeshTopology`] (plumb-raster's `Topology` is a draw call's topology).
#[deprecated(note = "renamed to `MeshTopology`; plumb_raster::Topology is a draw call's topology")]
pub type Topology = MeshTopology;
/// Former name of [`CameraViewport`] (plumb-raster's `Viewport` is in pixels).
#[deprecated(note = "renamed to `CameraViewport`; plumb_raster::Viewport is in pixels")]
pub type Viewport = CameraViewport;
/// Former name of [`SceneDrawStats`] (plumb-raster's `DrawStats` counts one draw call).
#[deprecated(note = "renamed to `SceneDrawStats`; plumb_raster::DrawStats counts one draw call")]
pub type DrawStats = SceneDrawStats;
