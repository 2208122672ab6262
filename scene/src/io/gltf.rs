//! glTF 2.0 import (`.gltf` with external or data-URI buffers, `.glb`) through the `gltf`
//! crate's document model, with every buffer access checked here.
//!
//! # What becomes what
//!
//! * The **default scene** (`scene`, else the first of `scenes`, else every node nobody
//!   has as a child) is imported; other scenes are ignored.
//!   [`ImportOptions::gltf_scene`](super::ImportOptions::gltf_scene) picks another one by
//!   index (an index past the file's scenes is [`IoError::Invalid`]); [`gltf_scenes`] lists
//!   them (`plumb render --scene NAME|INDEX`, `plumb info`).
//! * Every glTF **node** becomes a group node with the node's name (or `node<i>`) and its
//!   local transform: TRS nodes in rotation–scale form (`Transform::from_srt`), `matrix` nodes
//!   in general form (`Transform::from_affine`, exact, so a negative determinant is kept and
//!   [`crate::Transform::is_mirror`] flips the winding). A node without any transform gets
//!   the identity. A matrix whose last row is not `0 0 0 1` is refused.
//! * Each **primitive** of the node's mesh becomes a geometry leaf under that group, named
//!   `<mesh>[<k>]`. The converted [`Mesh`](crate::Mesh) is built once per (mesh, primitive) and shared by
//!   `Arc` between all nodes using the mesh. Conversion rules are in the `primitive`
//!   submodule: strips and fans become triangle lists, missing normals are generated flat (as
//!   the glTF specification requires), up to [`crate::MAX_UV_SETS`] uv sets and `COLOR_0`
//!   are kept. Primitives without `POSITION` are skipped, as the specification allows.
//! * **`EXT_mesh_gpu_instancing`**: one group `<node>#<i>` per instance under the node, with
//!   the instance's `T·R·S` as its local transform and the primitives' leaves (sharing the
//!   mesh) under it; rules in the `instancing` submodule.
//! * **`KHR_materials_variants`**: each primitive takes its own material unless
//!   [`ImportOptions::gltf_variant`](super::ImportOptions::gltf_variant) picks a variant it
//!   maps; [`Imported::variants`] lists the names (the `variants` submodule).
//! * Each primitive's **material** becomes an [`ImportedMaterial`] (one `Arc` per glTF
//!   material, shared), recorded in [`Imported::materials`] under the geometry leaf.
//! * **Cameras** and **lights** (`KHR_lights_punctual`) are recorded with their node.
//! * **Animations** become [`crate::io::Animation`]s of the imported nodes' translation, rotation and
//!   scale, one per glTF animation in file order; channels on nodes outside the default scene
//!   are dropped. All play by default; [`play_only`](crate::io::animation::play_only) picks
//!   one (its [`ClipSwitch`](crate::io::animation::ClipSwitch) also drives the morph weights).
//! * **Skins** become [`SkinController`](crate::SkinController)s on the skinned node's
//!   geometry leaves: `joints`, `inverseBindMatrices` (identity when absent, one per joint),
//!   every `JOINTS_n`/`WEIGHTS_n` set (more than four influences per vertex), weights
//!   normalized to sum 1, normals skinned; the skinned leaf ignores its node's and parents'
//!   transforms (its world transform is the identity), the bones are updated before it and
//!   its bound is the posed mesh's. Animated joints use the transform animations, so
//!   `--time` and `--frames` pose the skin. Rules and errors: the `deform` and `primitive`
//!   submodules.
//! * **Morph targets** become [`MorphController`](crate::MorphController)s: `POSITION` and
//!   `NORMAL` deltas, the node's `weights` over the mesh's, and `weights` animation channels
//!   (STEP, LINEAR, CUBICSPLINE) as the controller's keys, driven by the update time. A
//!   primitive both skinned and morphed is morphed, then skinned.
//! * **`KHR_mesh_quantization`**: integer positions, normals, texture coordinates and morph
//!   deltas (normalized or not) are read as the extension specifies; a file may require it.
//!   Only when `extensionsUsed` lists it: otherwise each attribute must have one of the core
//!   specification's formats (float positions, normals and tangents; float or normalized
//!   unsigned texture coordinates, colours and weights), and `normalized` is refused on
//!   anything but bytes and shorts, as the Khronos validator does.
//! * **Extensions** ([`Imported::extensions`] lists each with what plumb did; the policy
//!   table is the `extensions` submodule): the ones plumb honours are above. One that only
//!   refines a material (`KHR_materials_clearcoat`, sheen, transmission, volume, ior,
//!   specular, iridescence, anisotropy, dispersion, diffuse transmission) is drawn as the
//!   base material, also when required
//!   ([`ExtensionUse::warning`](super::ExtensionUse::warning): the `warning:` line `plumb
//!   render` prints). `KHR_draco_mesh_compression` streams and `EXT_meshopt_compression`
//!   views are decoded (the `draco` and `meshopt` submodules), and `EXT_texture_webp` and
//!   `KHR_texture_basisu` images are decoded in place of the fallback. An extension plumb
//!   cannot decode (`EXT_texture_avif`): a file that requires it is refused with an error
//!   naming it; one that only uses it loads from its fallback data. Any other required
//!   extension is refused as unsupported.
//!
//! The import is all-or-nothing: nodes are built in a detached subtree and attached only
//! when everything succeeded.

mod accessor;
mod channels;
mod counts;
mod ctx;
mod deform;
mod draco;
pub(crate) use deform::ClipMorph;
mod document;
mod extensions;
mod glb;
mod instancing;
mod material;
mod meshopt;
mod primitive;
mod tangent;
mod variants;

/// The unit tests of this module's private children, for [`crate::internal_tests`].
#[cfg(feature = "internal-tests")]
#[allow(
    clippy::type_complexity,
    reason = "the type of crate::UnitTests, spelled out: no import of the crate root"
)]
pub(crate) fn internal_tests() -> [(&'static str, &'static [(&'static str, fn())]); 5] {
    [
        ("io::gltf::counts", counts::tests::TESTS),
        ("io::gltf::glb", glb::tests::TESTS),
        ("io::gltf::meshopt", meshopt::tests::TESTS),
        ("io::gltf::primitive", primitive::tests::TESTS),
        ("io::gltf::tangent", tangent::tests::TESTS),
    ]
}

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use ::gltf::Document;
use glam::{Mat3, Quat, Vec3, Vec4};

pub use self::accessor::MAX_ACCESSOR_ELEMENTS;

use super::error::IoError;
use super::imported::{
    CameraProjection, Imported, ImportedCamera, ImportedLight, ImportedLightKind, ImportedScene,
};
use super::material::ImportedMaterial;
use super::{uri, ImportOptions};
use crate::graph::{NodeId, Scene};
use crate::values::error::SceneError;
use crate::values::transform::Transform;
use ctx::{node_label, Ctx};
use deform::Leaf;
use primitive::Converted;

/// `mesh 0 'body'` or `mesh 0`.
fn mesh_label(m: &::gltf::Mesh<'_>) -> String {
    match m.name() {
        Some(name) => format!("mesh {} '{name}'", m.index()),
        None => format!("mesh {}", m.index()),
    }
}

/// Loads a `.gltf` or `.glb` file into a new scene (updated at time 0).
///
/// # Errors
/// Any [`IoError`]; see the [module docs](self).
pub fn load_gltf(path: &Path, options: &ImportOptions) -> Result<ImportedScene, IoError> {
    let mut scene = Scene::new();
    let root = scene.root();
    let imported = import_gltf(&mut scene, root, path, options)?;
    scene.update(0.0);
    Ok(ImportedScene { scene, imported })
}

/// Imports a `.gltf` or `.glb` file under `parent` of an existing scene. On error the scene
/// is unchanged.
///
/// # Errors
/// Any [`IoError`]; see the [module docs](self).
pub fn import_gltf(
    scene: &mut Scene,
    parent: NodeId,
    path: &Path,
    options: &ImportOptions,
) -> Result<Imported, IoError> {
    let data = uri::read_file(path, options.max_file_bytes).map_err(|reason| IoError::Read {
        file: path.to_owned(),
        reason,
    })?;
    import_gltf_bytes(scene, parent, &data, path, options)
}

/// Imports glTF or GLB bytes under `parent`. `file` names them in messages, and its folder
/// is where relative URIs are resolved. On error the scene is unchanged.
///
/// # Errors
/// Any [`IoError`]; see the [module docs](self).
pub fn import_gltf_bytes(
    scene: &mut Scene,
    parent: NodeId,
    data: &[u8],
    file: &Path,
    options: &ImportOptions,
) -> Result<Imported, IoError> {
    let base = file.parent().unwrap_or(Path::new(""));
    let (json, bin) = if glb::is_glb(data) {
        let g = glb::parse(file, data)?;
        (g.json, g.bin)
    } else {
        (data, None)
    };
    counts::check_node_count(file, json, options.max_nodes)?;
    let doc = document::parse(file, json)?;
    let mut ctx = Ctx {
        file,
        base,
        options,
        buffers: Vec::new(),
        images: BTreeMap::new(),
        texture_budget: super::texture_image::TextureBudget::new(options.max_texture_bytes),
        geometry_left: std::cell::Cell::new(options.max_geometry_bytes),
        views: BTreeMap::new(),
    };
    ctx.buffers = load_buffers(&ctx, &doc, bin)?;
    ctx.views = meshopt::decode_views(&ctx, &doc)?;
    ctx.prefetch_images(&doc)?;
    // Build detached, attach at the end: all or nothing. (Errors about the staging and the
    // final attach need only the file, so they get a context without the loaded data.)
    let err_ctx = Ctx {
        buffers: Vec::new(),
        images: BTreeMap::new(),
        geometry_left: std::cell::Cell::new(0),
        views: BTreeMap::new(),
        ..ctx
    };
    let mut imported = super::staged::build_staged(
        scene,
        parent,
        "gltf import",
        |context, e| err_ctx.scene_err(context, e),
        |scene, staging| build(&mut ctx, &doc, scene, staging),
    )?;
    imported.geometry_bytes = options.max_geometry_bytes - ctx.geometry_left.get();
    imported.extensions = extensions::uses(doc.as_json());
    Ok(imported)
}

fn load_buffers(
    ctx: &Ctx<'_>,
    doc: &Document,
    bin: Option<&[u8]>,
) -> Result<Vec<Vec<u8>>, IoError> {
    let mut out = Vec::new();
    for b in doc.buffers() {
        // An `EXT_meshopt_compression` fallback buffer (marked, or without data outside the
        // GLB chunk): only compressed views point into it, and their bytes come from their
        // streams, so it is never loaded (its byteLength may be large).
        let placeholder =
            matches!(b.source(), ::gltf::buffer::Source::Bin) && (bin.is_none() || b.index() > 0);
        // A buffer without data that carries the extension must say it is the fallback
        // (issue 50: `"fallback": false` was loaded as a placeholder all the same).
        let declared = b
            .extension_value("EXT_meshopt_compression")
            .map(|e| e.get("fallback"));
        if let Some(f) =
            declared.filter(|f| placeholder && f.and_then(|f| f.as_bool()) != Some(true))
        {
            return Err(ctx.invalid(
                &format!("buffer {} EXT_meshopt_compression", b.index()),
                format!(
                    "the buffer has no data, so fallback must be true, not {}",
                    f.map_or_else(|| "absent".to_owned(), ToString::to_string)
                ),
            ));
        }
        if meshopt::is_fallback(&b) || (placeholder && meshopt::used(doc)) {
            out.push(Vec::new());
            continue;
        }
        let data = match b.source() {
            ::gltf::buffer::Source::Bin => bin
                .ok_or_else(|| IoError::MissingResource {
                    file: ctx.file.to_owned(),
                    kind: "buffer",
                    uri: format!("{} (GLB binary chunk)", b.index()),
                    reason: "the file has no BIN chunk".to_owned(),
                })?
                .to_vec(),
            ::gltf::buffer::Source::Uri(u) => {
                uri::load(ctx.base, u, ctx.options.max_file_bytes)
                    .map_err(|reason| IoError::MissingResource {
                        file: ctx.file.to_owned(),
                        kind: "buffer",
                        uri: uri::display_uri(u),
                        reason,
                    })?
                    .bytes
            }
        };
        if data.len() < b.length() {
            return Err(ctx.invalid(
                &format!("buffer {}", b.index()),
                format!(
                    "byteLength is {} but only {} bytes were loaded",
                    b.length(),
                    data.len()
                ),
            ));
        }
        out.push(data);
    }
    Ok(out)
}

/// A glTF node's local transform.
fn node_transform(ctx: &Ctx<'_>, node: &::gltf::Node<'_>) -> Result<Transform, IoError> {
    // Labels are formatted only on the error paths (a 10⁶-node file builds 10⁶ transforms).
    let label = || node_label(node);
    match node.transform() {
        ::gltf::scene::Transform::Matrix { matrix } => {
            let flat = matrix.iter().flatten();
            if flat.clone().any(|x| !x.is_finite()) {
                return Err(ctx.non_finite(&label(), "matrix"));
            }
            let c = |i: usize| Vec4::from_array(matrix[i]);
            if matrix[0][3] != 0.0
                || matrix[1][3] != 0.0
                || matrix[2][3] != 0.0
                || matrix[3][3] != 1.0
            {
                return Err(ctx.invalid(
                    &label(),
                    "matrix is not affine (last row is not 0 0 0 1)".to_owned(),
                ));
            }
            let linear = Mat3::from_cols(c(0).truncate(), c(1).truncate(), c(2).truncate());
            if linear == Mat3::IDENTITY && c(3).truncate() == Vec3::ZERO {
                return Ok(Transform::IDENTITY);
            }
            Transform::from_affine(linear, c(3).truncate()).map_err(|e| ctx.scene_err(&label(), e))
        }
        ::gltf::scene::Transform::Decomposed {
            translation,
            rotation,
            scale,
        } => {
            let (t, r, s) = (
                Vec3::from_array(translation),
                Quat::from_array(rotation),
                Vec3::from_array(scale),
            );
            if !t.is_finite() {
                return Err(ctx.non_finite(&label(), "translation"));
            }
            if !r.is_finite() {
                return Err(ctx.non_finite(&label(), "rotation"));
            }
            if !s.is_finite() {
                return Err(ctx.non_finite(&label(), "scale"));
            }
            if t == Vec3::ZERO && r == Quat::IDENTITY && s == Vec3::ONE {
                return Ok(Transform::IDENTITY);
            }
            super::animation::trs(s, r, t).map_err(|e| match e {
                SceneError::ZeroRotation(_) => ctx.invalid(&label(), e.to_string()),
                e => ctx.scene_err(&label(), e),
            })
        }
    }
}

fn camera_of(
    ctx: &Ctx<'_>,
    node: &::gltf::Node<'_>,
    id: NodeId,
) -> Result<Option<ImportedCamera>, IoError> {
    let Some(cam) = node.camera() else {
        return Ok(None);
    };
    let projection = match cam.projection() {
        ::gltf::camera::Projection::Perspective(p) => CameraProjection::Perspective {
            yfov: p.yfov(),
            aspect_ratio: p.aspect_ratio(),
            znear: p.znear(),
            zfar: p.zfar(),
        },
        ::gltf::camera::Projection::Orthographic(o) => CameraProjection::Orthographic {
            xmag: o.xmag(),
            ymag: o.ymag(),
            znear: o.znear(),
            zfar: o.zfar(),
        },
    };
    let finite = match projection {
        CameraProjection::Perspective {
            yfov,
            aspect_ratio,
            znear,
            zfar,
        } => {
            yfov.is_finite()
                && znear.is_finite()
                && aspect_ratio.is_none_or(f32::is_finite)
                && zfar.is_none_or(f32::is_finite)
        }
        CameraProjection::Orthographic {
            xmag,
            ymag,
            znear,
            zfar,
        } => xmag.is_finite() && ymag.is_finite() && znear.is_finite() && zfar.is_finite(),
    };
    if !finite {
        return Err(ctx.non_finite(&format!("camera {}", cam.index()), "projection"));
    }
    Ok(Some(ImportedCamera {
        node: id,
        name: cam.name().unwrap_or_default().to_owned(),
        projection,
        viewport: crate::values::camera::CameraViewport::FULL,
        depth_range: (0.0, 1.0),
    }))
}

fn light_of(
    ctx: &Ctx<'_>,
    node: &::gltf::Node<'_>,
    id: NodeId,
) -> Result<Option<ImportedLight>, IoError> {
    let Some(light) = node.light() else {
        return Ok(None);
    };
    let kind = match light.kind() {
        ::gltf::khr_lights_punctual::Kind::Directional => ImportedLightKind::Directional,
        ::gltf::khr_lights_punctual::Kind::Point => ImportedLightKind::Point,
        ::gltf::khr_lights_punctual::Kind::Spot {
            inner_cone_angle,
            outer_cone_angle,
        } => ImportedLightKind::Spot {
            inner_cone_angle,
            outer_cone_angle,
        },
    };
    let color = Vec3::from_array(light.color());
    let finite = color.is_finite()
        && light.intensity().is_finite()
        && light.range().is_none_or(f32::is_finite)
        && match kind {
            ImportedLightKind::Spot {
                inner_cone_angle,
                outer_cone_angle,
            } => inner_cone_angle.is_finite() && outer_cone_angle.is_finite(),
            _ => true,
        };
    if !finite {
        return Err(ctx.non_finite(&format!("light {}", light.index()), "light parameters"));
    }
    Ok(Some(ImportedLight {
        node: id,
        name: light.name().unwrap_or_default().to_owned(),
        kind,
        color,
        intensity: light.intensity(),
        range: light.range(),
    }))
}

/// The scenes of a glTF file: their names (empty when unnamed) in file order, and the one
/// imported without [`ImportOptions::gltf_scene`](super::ImportOptions::gltf_scene).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GltfScenes {
    /// Scene names in file order.
    pub names: Vec<String>,
    /// The scene imported by default (`scene`, else the first), `None` without scenes.
    pub default: Option<usize>,
    /// The `KHR_materials_variants` names in file order (empty without them).
    pub variants: Vec<String>,
}

/// Lists the scenes of a `.gltf` or `.glb` file (reads and validates the document, not its
/// buffers or images).
///
/// # Errors
/// [`IoError`] for an unreadable or invalid document.
pub fn gltf_scenes(path: &Path, options: &ImportOptions) -> Result<GltfScenes, IoError> {
    let data = uri::read_file(path, options.max_file_bytes).map_err(|reason| IoError::Read {
        file: path.to_owned(),
        reason,
    })?;
    let glb;
    let json: &[u8] = if glb::is_glb(&data) {
        glb = glb::parse(path, &data)?;
        glb.json
    } else {
        &data
    };
    counts::check_node_count(path, json, options.max_nodes)?;
    let doc = document::parse(path, json)?;
    let names: Vec<String> = doc
        .scenes()
        .map(|s| s.name().unwrap_or_default().to_owned())
        .collect();
    let default = doc
        .default_scene()
        .map(|s| s.index())
        .or((!names.is_empty()).then_some(0));
    let err_ctx = Ctx {
        file: path,
        base: Path::new(""),
        options,
        buffers: Vec::new(),
        images: BTreeMap::new(),
        texture_budget: super::texture_image::TextureBudget::new(0),
        geometry_left: std::cell::Cell::new(0),
        views: BTreeMap::new(),
    };
    let variants = variants::names(&err_ctx, &doc)?;
    Ok(GltfScenes {
        names,
        default,
        variants,
    })
}

/// Indices of the nodes at the top of the imported scene: scene `selected` when given
/// (`Err(scene count)` when it does not exist), else the default scene.
fn scene_roots(doc: &Document, selected: Option<usize>) -> Result<Vec<usize>, usize> {
    if let Some(i) = selected {
        return match doc.scenes().nth(i) {
            Some(s) => Ok(s.nodes().map(|n| n.index()).collect()),
            None => Err(doc.scenes().len()),
        };
    }
    Ok(match doc.default_scene().or_else(|| doc.scenes().next()) {
        Some(s) => s.nodes().map(|n| n.index()).collect(),
        None => {
            let mut child = vec![false; doc.nodes().len()];
            for n in doc.nodes() {
                for c in n.children() {
                    child[c.index()] = true;
                }
            }
            (0..child.len()).filter(|&i| !child[i]).collect()
        }
    })
}

/// Creates the node tree under `staging` and collects materials, cameras, lights and
/// animations.
fn build(
    ctx: &mut Ctx<'_>,
    doc: &Document,
    scene: &mut Scene,
    staging: NodeId,
) -> Result<Imported, IoError> {
    let nodes: Vec<::gltf::Node<'_>> = doc.nodes().collect();
    let mut ids: Vec<Option<NodeId>> = vec![None; nodes.len()];
    let mut meshes: BTreeMap<(usize, usize), Option<Arc<Converted>>> = BTreeMap::new();
    let mut leaves: Vec<Leaf> = Vec::new();
    let mut materials: BTreeMap<Option<usize>, Arc<ImportedMaterial>> = BTreeMap::new();
    let mut imported = Imported::default();
    let roots = scene_roots(doc, ctx.options.gltf_scene).map_err(|count| {
        ctx.invalid(
            "scenes",
            format!(
                "scene {} does not exist (the file has {count} scene(s))",
                ctx.options.gltf_scene.unwrap_or_default()
            ),
        )
    })?;
    let mut spent = super::budget::Spent::default();
    let variant_names = variants::names(ctx, doc)?;
    let variant = match ctx.options.gltf_variant {
        Some(i) => Some(variants::check(ctx, &variant_names, i)?),
        None => None,
    };
    imported.variants = variant_names;
    let mut stack: Vec<(usize, NodeId)> = roots.into_iter().rev().map(|i| (i, staging)).collect();
    while let Some((index, parent)) = stack.pop() {
        let node = &nodes[index];
        let label = || node_label(node);
        if ids[index].is_some() {
            return Err(ctx.invalid(
                &label(),
                "is reached twice in the hierarchy (a node may have one parent, and no cycles)"
                    .to_owned(),
            ));
        }
        let local = node_transform(ctx, node)?;
        let name = node
            .name()
            .map_or_else(|| format!("node{index}"), str::to_owned);
        let id = scene
            .add_group(parent, name)
            .map_err(|e| ctx.scene_err(&label(), e))?;
        scene
            .set_local_transform(id, local)
            .map_err(|e| ctx.scene_err(&label(), e))?;
        ids[index] = Some(id);
        if let Some(mesh) = node.mesh() {
            let mlabel = || mesh_label(&mesh);
            check_morph_counts(ctx, node, &mesh)?;
            let mesh_name = mesh
                .name()
                .map_or_else(|| format!("mesh{}", mesh.index()), str::to_owned);
            // The leaves' parents: the node, or one group per instance (`instancing`).
            let count = mesh.primitives().len();
            let parents = match instancing::transforms(ctx, doc, node, count, &mut spent)? {
                None => vec![id],
                Some(transforms) => {
                    let gname = scene.name(id).map_err(|e| ctx.scene_err(&label(), e))?;
                    let gname = gname.to_owned();
                    let mut groups = Vec::with_capacity(transforms.len());
                    for (i, t) in transforms.into_iter().enumerate() {
                        let g = scene
                            .add_group(id, format!("{gname}#{i}"))
                            .map_err(|e| ctx.scene_err(&label(), e))?;
                        scene
                            .set_local_transform(g, t)
                            .map_err(|e| ctx.scene_err(&label(), e))?;
                        groups.push(g);
                    }
                    groups
                }
            };
            for prim in mesh.primitives() {
                let key = (mesh.index(), prim.index());
                let converted = match meshes.get(&key) {
                    Some(m) => m.clone(),
                    None => {
                        let plabel = format!("{} primitive {}", mlabel(), prim.index());
                        let m = primitive::convert(ctx, doc, &prim, &plabel)?.map(Arc::new);
                        meshes.insert(key, m.clone());
                        m
                    }
                };
                let Some(c) = converted else { continue };
                let plabel = format!("{} primitive {}", mlabel(), prim.index());
                let mat_index = variants::material(
                    ctx,
                    doc,
                    &prim,
                    (variant, imported.variants.len()),
                    &plabel,
                )?;
                let mat = match materials.get(&mat_index) {
                    Some(m) => m.clone(),
                    None => {
                        let gm = match mat_index.and_then(|i| doc.materials().nth(i)) {
                            Some(gm) => gm,
                            None => prim.material(),
                        };
                        let m = Arc::new(material::convert(ctx, doc, &gm)?);
                        materials.insert(mat_index, m.clone());
                        m
                    }
                };
                for &parent in &parents {
                    let gname = format!("{mesh_name}[{}]", prim.index());
                    let geom = scene
                        .add_geometry(parent, gname, c.mesh.clone())
                        .map_err(|e| ctx.scene_err(&mlabel(), e))?;
                    // Instanced meshes are neither skinned nor morphed (`instancing`).
                    if node.skin().is_some() || !c.targets.is_empty() {
                        leaves.push(Leaf {
                            node: index,
                            geom,
                            label: format!("{} {} primitive {}", label(), mlabel(), prim.index()),
                            converted: c.clone(),
                        });
                    }
                    imported.materials.insert(geom, mat.clone());
                }
            }
        }
        if let Some(c) = camera_of(ctx, node, id)? {
            imported.cameras.push(c);
        }
        if let Some(l) = light_of(ctx, node, id)? {
            imported.lights.push(l);
        }
        let children: Vec<usize> = node.children().map(|c| c.index()).collect();
        stack.extend(children.into_iter().rev().map(|c| (c, id)));
    }
    let (animations, weights) = channels::read_animations(ctx, doc, &ids)?;
    let switches: Vec<_> = animations.iter().map(|a| a.playing.clone()).collect();
    imported.animations = animations;
    deform::attach(ctx, doc, scene, &ids, &leaves, &weights, &switches)?;
    Ok(imported)
}

/// Every primitive of a mesh has the same number of morph targets, and the mesh's and the
/// node's default `weights` have one weight per target.
fn check_morph_counts(
    ctx: &Ctx<'_>,
    node: &::gltf::Node<'_>,
    mesh: &::gltf::Mesh<'_>,
) -> Result<(), IoError> {
    let mlabel = mesh_label(mesh);
    let count = mesh
        .primitives()
        .next()
        .map_or(0, |p| p.morph_targets().len());
    if let Some(p) = mesh.primitives().find(|p| p.morph_targets().len() != count) {
        return Err(ctx.invalid(
            &mlabel,
            format!(
                "primitive {} has {} morph targets, primitive 0 has {count}",
                p.index(),
                p.morph_targets().len()
            ),
        ));
    }
    for (what, w) in [
        (mlabel.clone(), mesh.weights()),
        (node_label(node), node.weights()),
    ] {
        if let Some(w) = w {
            if w.len() != count {
                return Err(ctx.invalid(
                    &what,
                    format!("has {} weights for {count} morph targets", w.len()),
                ));
            }
            if w.iter().any(|x| !x.is_finite()) {
                return Err(ctx.non_finite(&what, "morph weights"));
            }
        }
    }
    Ok(())
}
