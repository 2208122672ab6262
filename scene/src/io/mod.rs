//! Scene files in: plumb's JSON scene format (`.json`, see [`json`]), glTF 2.0 (`.gltf`,
//! `.glb`) and Wavefront OBJ + MTL (`.obj`).
//!
//! [`load`] reads a file into a new [`Scene`] (updated at time 0); [`import`] adds one under a
//! node of an existing scene, all or nothing. Both return, besides the nodes, an [`Imported`]
//! record: a material per geometry node, cameras, lights and animations.
//!
//! # Conventions
//!
//! glTF is right-handed with +y up, and cameras and spot/directional lights look down their
//! node's local −z — the same as plumb (see the crate docs), so nothing is converted:
//! positions, normals and transforms are used as stored. Texture coordinates keep glTF's
//! origin at the top-left of the image, which is also plumb's (row 0 of a texture is
//! `v = 0`); OBJ's `vt` has its origin at the bottom-left, so the OBJ importer stores
//! `v' = 1 − v`. Colours, including texels, are used as stored: plumb does no colour
//! management, so sRGB textures and linear factors are multiplied as they are (as an
//! OpenGL 1.x pipeline would).
//!
//! Node structure: every glTF node becomes a group node, and its mesh's primitives become
//! geometry leaves under it (see [`gltf`]); an OBJ file becomes one group per object with
//! one geometry leaf per material used (see [`obj`]).
//!
//! # Materials
//!
//! The importers do not set render state. Each geometry node gets an [`ImportedMaterial`]:
//! plain data shaped like glTF's metallic-roughness material. [`apply()`] turns them into
//! render states, texture effects and lights (its module, [`apply`](mod@apply), lists every
//! rule); the metallic-roughness → Blinn–Phong rule is
//! [`ImportedMaterial::fixed_function_approximation`]. A scene without a camera is framed by
//! [`frame_bound`] (rule in [`framing`]).
//!
//! # Modules
//!
//! The file-I/O layer sits on top of the crate (see the crate's module map) and has an order
//! of its own, from the bottom: [`error`] and the import options; file and image reading;
//! the records an import returns ([`material`], [`animation`], [`imported`]); all-or-nothing
//! staging; [`framing`] and [`apply`](mod@apply); the readers ([`gltf`], [`obj`]);
//! [`import()`], which picks a reader by extension; the scene-file format ([`json`], which
//! may import glTF and OBJ files); and [`load`], which picks JSON or [`import()`].
//!
//! # Determinism
//!
//! Imports are deterministic: nodes are created in file order (pre-order, child order),
//! the material table is a `BTreeMap` keyed by [`NodeId`], no hash-map iteration reaches any
//! output, and trigonometry (texture-transform rotation, slerp) goes through
//! `plumb_raster::math`.
//!
//! # Errors and limits
//!
//! One error type, [`IoError`]; every message names the file, and the line and column where
//! the format has them. Nothing panics on bad files: all lengths, offsets, strides and
//! indices are checked, and non-finite numbers are rejected. Limits ([`ImportOptions`]):
//! files and referenced resources of at most [`DEFAULT_MAX_FILE_BYTES`], textures of at most
//! [`DEFAULT_MAX_TEXTURE_SIZE`] texels per side (checked from the image header before
//! decoding), accessors of at most [`gltf::MAX_ACCESSOR_ELEMENTS`] elements.
//!
//! ```
//! use plumb_scene::io::{self, ImportOptions};
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let dir = std::env::temp_dir().join(format!("plumb-io-doc-{}", std::process::id()));
//! std::fs::create_dir_all(&dir)?;
//! let path = dir.join("quad.obj");
//! std::fs::write(&path, "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nf 1 2 3 4\n")?;
//! let loaded = io::load(&path, &ImportOptions::default())?;
//! let quad = loaded.scene.find("quad[0]").expect("one geometry node");
//! assert_eq!(loaded.scene.mesh(quad)?.triangle_count(), 2);
//! assert!(loaded.imported.material(quad).is_some());
//! # std::fs::remove_dir_all(&dir)?;
//! # Ok(())
//! # }
//! ```

pub mod animation;
pub mod apply;
pub mod budget;
pub mod contain;
pub mod error;
pub mod framing;
pub mod gltf;
mod import;
pub mod imported;
pub mod json;
mod ktx2_index;
pub mod material;
pub mod obj;
mod options;
mod staged;
mod texture_image;
mod uri;

/// The unit tests of this module's private children, for [`crate::internal_tests`].
#[cfg(feature = "internal-tests")]
#[allow(
    clippy::type_complexity,
    reason = "the type of crate::UnitTests, spelled out: no import of the crate root"
)]
pub(crate) fn internal_tests() -> [(&'static str, &'static [(&'static str, fn())]); 3] {
    [
        ("io::ktx2_index", ktx2_index::tests::TESTS),
        ("io::texture_image", texture_image::tests::TESTS),
        ("io::uri", uri::tests::TESTS),
    ]
}

use std::path::Path;

pub use animation::{
    add_animation_controllers, apply_animations, loop_clips, play_only, Animation,
    AnimationController, ClipSwitch, Interpolation, NodeAnimation, Track, WeightsAnimation,
};
pub use apply::{apply, Applied, ApplyOptions, LightSource, Shading};
pub use budget::{Budget, WorkBudget};
pub use contain::{contain, is_containing};
pub use error::{escape_control, BudgetError, IoError, Location};
pub use framing::frame_bound;
pub use import::{import, Format};
pub use imported::{
    CameraProjection, ExtensionUse, Handling, Imported, ImportedCamera, ImportedLight,
    ImportedLightKind, ImportedScene, SceneInstancing,
};
/// Reading an input file: only a regular file, on the opened handle, never past a limit
/// (plumb-raster's, which its draw traces use too).
pub use plumb_raster::regular_file;
pub use regular_file::{open_regular, read_regular, read_regular_to_string, ReadRefusal};

/// Former name of [`ImportedLightKind`] (plumb-raster's `light::LightKind` is another concept).
#[deprecated(
    note = "renamed to `ImportedLightKind`; plumb_raster::light::LightKind is another type"
)]
pub type LightKind = ImportedLightKind;
pub use material::{
    AlphaMode, FixedFunctionColors, ImportedMaterial, SpecularGlossiness, TextureBinding,
};
pub use options::{
    ImportOptions, DEFAULT_MAX_FILE_BYTES, DEFAULT_MAX_GEOMETRY_BYTES, DEFAULT_MAX_NODES,
    DEFAULT_MAX_TEXTURE_BYTES, DEFAULT_MAX_TEXTURE_SIZE,
};
pub use texture_image::{check_png_chunks, check_png_chunks_in};

#[allow(unused_imports, reason = "named in the module docs")]
use crate::graph::NodeId;
use crate::graph::Scene;

/// Loads a scene file into a new scene, chosen by extension: `.json` (plumb's scene format,
/// see [`json`]) or a format of [`Format::from_path`] — the one load path, which `plumb
/// render` uses too: with the default [`ImportOptions::apply`], imported materials and lights
/// are mapped onto render state by [`apply()`] (the record goes to [`Imported::applied`]),
/// the default light rig is added only when neither the imported files nor the scene file
/// have any light, and the lights are placed for [`ImportedScene::default_camera`]. The scene
/// is updated at time 0 (after the default camera, lights and [`Imported::rest_box`] were taken
/// from it at rest, its controllers not yet run), so drawing it from that camera gives `plumb render`'s image of the
/// file (at `--time 0`, for a file without animations; sample those with
/// [`apply_animations`], then call [`ImportedScene::place_lights`]).
///
/// Every load is held to [`ImportOptions::budget`] (see [`budget`]): a scene file's
/// generated work as it is built, and for every format the primitives one frame draws (a
/// mesh shared by many nodes once per node) before the first update; the scene keeps
/// [`WorkBudget::max_clear_pixels`] for its draws ([`Scene::set_max_clear_pixels`]).
///
/// # Errors
/// [`IoError::UnsupportedFormat`] for another extension; any error of the importer;
/// [`IoError::Budget`] past a work budget; [`IoError::Scene`] when a mapped value is
/// refused.
pub fn load(path: &Path, options: &ImportOptions) -> Result<ImportedScene, IoError> {
    let is_json = path
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("json"));
    let loaded = if is_json {
        json::load_posed(path, &options.clamped(), json::build::Pose::Rest)?
    } else {
        let mut scene = Scene::new();
        let root = scene.root();
        let imported = import(&mut scene, root, path, options)?;
        // One mesh may be shared by many nodes: what a frame draws is bounded too.
        budget::drawn_over(&scene, &options.budget).map_err(|(context, item, o)| {
            IoError::Budget(Box::new(BudgetError {
                file: path.to_owned(),
                location: None,
                context,
                item,
                budget: o.budget,
                amount: o.amount,
                total: o.total,
                max: o.max,
            }))
        })?;
        scene.set_max_clear_pixels(Some(options.budget.max_clear_pixels));
        scene.update_at_rest();
        ImportedScene { scene, imported }
    };
    finish_load(loaded, path, options)
}

/// A scene file's document built as [`load`] builds the file `path` it would be (its folder
/// is where imports are found): the same scene, lights and framing.
///
/// # Errors
/// As [`load`].
pub fn load_doc(
    doc: &json::SceneDoc,
    path: &Path,
    options: &ImportOptions,
) -> Result<ImportedScene, IoError> {
    let loaded = json::build_at_rest(doc, path, &options.clamped())?;
    finish_load(loaded, path, options)
}

/// The steps of [`load`] after the build.
fn finish_load(
    mut loaded: ImportedScene,
    path: &Path,
    options: &ImportOptions,
) -> Result<ImportedScene, IoError> {
    // Both paths leave the scene at rest here (nodes at their file transforms): a glTF's
    // animations are no controllers, and a scene file is built at rest. Default lights are
    // placed, and a camera-less file is framed, from that shape, so a converted file frames
    // and lights as its source.
    if let Some(apply_options) = &options.apply {
        apply::finish_load(&mut loaded, path, apply_options)?;
        loaded.scene.update_at_rest();
    }
    loaded.imported.rest_box =
        Some(
            framing::geometry_box(&loaded.scene).map_err(|e| IoError::Scene {
                file: path.to_owned(),
                context: "the scene at rest".to_owned(),
                source: e,
            })?,
        );
    // Then posed at time 0 by its controllers, as before.
    loaded.scene.update(0.0);
    Ok(loaded)
}
