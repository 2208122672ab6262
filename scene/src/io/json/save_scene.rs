//! Saving a [`Scene`] — built in code, loaded from a scene file or imported from glTF/OBJ — as
//! a scene document ([`SceneDoc`]) plus the PNG images its textures need, so that
//! `load → save → load` gives a scene that draws the same bytes (the book's streaming,
//! `book-advanced.md` §3, on top of the JSON format).
//!
//! # Rules
//!
//! * **Order and ids.** Nodes are written in pre-order, children in order. Lights are
//!   written in light-table order, under their names ([`Scene::set_object_name`]) when every
//!   light has a name of its own, else as `light0, light1, …`; textures get `tex0, tex1, …` in the order
//!   the save first meets them (nodes in pre-order, then screen polygons), and two textures
//!   with equal texels are written once. No address reaches the file, so saving the same
//!   scene twice gives the same bytes.
//! * **Meshes** are written inline (positions, normals, colours, every uv set, indices), so
//!   a shared mesh is written once per node that uses it (and shared no more after loading).
//! * **Textures** are written as PNG files beside the scene file (`<stem>.tex<N>.png`), level
//!   0 only, in the texel format they were loaded from (grey, grey + alpha, RGB or RGBA); the
//!   loader rebuilds the mip chain, and the saver checks that the rebuilt chain equals the
//!   texture's (a texture with hand-made levels is refused).
//! * **Numbers** are written as the shortest decimal that reads back as the same `f32`.
//!   Transforms are written exactly: the translation, a rotation as a 3×3 `matrix`, the scale
//!   (`uniform_scale` when the uniform-scale hint is set), or a general linear part as
//!   `matrix`. Angles kept in radians (spot cones, camera fields of view) are written as the
//!   degrees that convert back to the same radians.
//! * **Cameras** of the [`Imported`] record are written as named cameras placed by their
//!   node's world transform. A camera's own group node as the loader makes it (a childless,
//!   plain group under the root with the camera's name) is not written again.
//! * **Motion controllers** (`spin`, `motion`, `point_motion`, particle motion) are written
//!   in the format's exact form (speeds along unit axes as the scene keeps them, radians for
//!   turns; see `motion`), a random particle system expanded particle by particle. An active
//!   motion is written at its rest state, which the loader makes the controller's rest again.
//! * **Refused, never dropped** ([`IoError::Unsupported`], naming the node): controllers
//!   that cannot describe themselves (closures, other types), motions whose timing the motion
//!   keys cannot hold, spins and motions starting from another transform than the node's
//!   other controllers, a discrete-LOD node whose ranges do not cover its first children in
//!   order, and effects that name nodes whose names are not unique.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use glam::{Mat3, Vec3, Vec4};
use plumb_raster::combine::ApplyMode;
use plumb_raster::math;
use plumb_raster::texture::{TexelFormat, Texture};

use super::doc::*;
use super::meshes::mesh_doc;
use super::motion;
use super::nodes;
use super::real::{re, re3 as r3, re4 as r4, Real};
use crate::graph::node::Culling;
use crate::graph::node::NodeData;
use crate::graph::{NodeId, Scene};
use crate::io::animation::{
    merge_animations, trs, AnimationController, Interpolation, NodeAnimation, Track,
};
use crate::io::error::IoError;
use crate::io::gltf::ClipMorph;
use crate::io::imported::{CameraProjection, Imported};
use crate::values::controller::{ControllerTiming, MeshController, RepeatType};
use crate::values::definition::Target;
use crate::values::effect::{Effect, TexCoords, TextureStage};
use crate::values::ik::{IkController, DEFAULT_IK_ITERATIONS};
use crate::values::light::{LightId, LightType, SceneLight};
use crate::values::morph::MorphController;
use crate::values::particles::{PointController, SystemMotion};
use crate::values::screen::{ScreenLayer, ScreenPolygon};
use crate::values::skin::SkinController;
use crate::values::state::{GlobalState, RenderStates};
use crate::values::transform::Transform;

/// A saved scene: the document and the PNG files it names (paths relative to the document).
#[derive(Debug, Clone, PartialEq)]
pub struct SavedScene {
    /// The document.
    pub doc: SceneDoc,
    /// `(file name, PNG bytes)` per texture, in `tex0, tex1, …` order.
    pub images: Vec<(String, Vec<u8>)>,
}

impl SavedScene {
    /// The document as text, as `io::json::save` writes it (pretty JSON, number arrays on
    /// one line, a final newline). Spelled out here: `save` lives in the parent module, which
    /// imports this one.
    pub fn text(&self) -> String {
        let pretty = serde_json::to_string_pretty(&self.doc)
            .unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"));
        plumb_raster::text::compact_number_arrays(&pretty)
    }
}

/// Saves `scene` (and the cameras of `imported`, if given) as a document whose textures are
/// files named `<image_stem>.tex<N>.png`. `file` names the output in errors.
///
/// # Errors
/// [`IoError::Unsupported`] for what the format cannot hold (listed in `docs/scene-format.md`, "Saving a scene");
/// [`IoError::Invalid`] for a texture that cannot be written as a PNG.
pub fn save_scene(
    scene: &Scene,
    imported: Option<&Imported>,
    file: &Path,
    image_stem: &str,
) -> Result<SavedScene, IoError> {
    let mut s = Saver {
        scene,
        file,
        stem: image_stem,
        textures: Vec::new(),
        images: Vec::new(),
        names: BTreeMap::new(),
        light_names: Vec::new(),
        animations: Vec::new(),
        locals: Vec::new(),
        instances: Vec::new(),
    };
    for id in scene.preorder(scene.root()).map_err(s.scene_err("root"))? {
        if let Ok(name) = scene.name(id) {
            *s.names.entry(name.to_owned()).or_insert(0) += 1;
        }
    }
    for c in &scene.ik_controllers {
        if let Some(start) = c.last_start() {
            for (j, local) in c.joints().iter().zip(start) {
                s.locals.push((j.node(), *local));
            }
        }
    }
    if let Some(imp) = imported {
        let mirrored = |n: NodeId| {
            scene.controllers.iter().any(|(m, c)| {
                *m == n
                    && c.as_any()
                        .is_some_and(|a| a.downcast_ref::<AnimationController>().is_some())
            })
        };
        s.animations = merge_animations(&imp.animations)
            .into_iter()
            .filter(|a| !mirrored(a.node))
            .collect();
    }
    let mut doc = SceneDoc::default();
    if scene.background != Vec4::new(0.0, 0.0, 0.0, 1.0) {
        doc.background = Some(r4(scene.background));
    }
    if scene.global_ambient != Vec3::ZERO {
        doc.global_ambient = Some(r3(scene.global_ambient));
    }
    if let Some(step) = scene.depth_layers {
        let f = step as f32;
        if f64::from(f).to_bits() != step.to_bits() {
            return Err(s.unsupported(
                "depth_layers",
                "layered-depth steps that are not 32-bit floats",
            ));
        }
        doc.depth_layers = Some(re(f));
    }
    if let Some((map, k)) = &scene.pbr_environment {
        if !std::sync::Arc::ptr_eq(map, &plumb_raster::environment::Environment::studio()) {
            return Err(s.unsupported("environment", "environment maps other than the studio"));
        }
        doc.environment = Some(EnvironmentDoc {
            map: "studio".to_owned(),
            intensity: (*k != 1.0).then(|| re(*k)),
        });
    }
    if let Some(r) = scene.reference {
        doc.reference_node = Some(s.unique_name(r, "reference_node")?);
    }
    let named: Vec<Option<&String>> = (0..scene.lights.len())
        .map(|i| {
            let id = LightId(u32::try_from(i).unwrap_or(u32::MAX));
            scene
                .object_names
                .get(&crate::values::id::ObjectRef::Light(id))
        })
        .collect();
    let unique: std::collections::BTreeSet<&String> = named.iter().flatten().copied().collect();
    if unique.len() == scene.lights.len() {
        s.light_names = named.into_iter().flatten().cloned().collect();
    } else {
        s.light_names = (0..scene.lights.len())
            .map(|i| format!("light{i}"))
            .collect();
    }
    for (i, l) in scene.lights.iter().enumerate() {
        doc.lights.push(s.light(i, l)?);
    }
    let mut skip = Vec::new();
    if let Some(imp) = imported {
        for cam in &imp.cameras {
            doc.cameras.push(s.camera(cam)?);
            if s.is_plain_camera_node(cam.node, &cam.name) {
                skip.push(cam.node);
            }
        }
    }
    if let Some(imp) = imported {
        doc.definitions = s.definitions(&imp.instancings)?;
    }
    doc.root = s.node(scene.root(), "root", &skip)?;
    for (i, c) in scene.ik_controllers.iter().enumerate() {
        let ik = s.ik(c, &format!("IK controller {i}"))?;
        doc.root.controllers.push(ControllerDoc::Ik(ik));
    }
    for (i, p) in scene.screen_polygons.iter().enumerate() {
        doc.screen_polygons
            .push(s.screen_polygon(p, &format!("screen polygon {i}"))?);
    }
    doc.textures = (0..s.textures.len())
        .map(|i| TextureDoc {
            name: format!("tex{i}"),
            file: Some(s.image_name(i)),
            checker: None,
            gradient: None,
            solid: None,
        })
        .collect();
    Ok(SavedScene {
        doc,
        images: s.images,
    })
}

fn m9(m: Mat3) -> [Real; 9] {
    m.to_cols_array().map(re)
}

/// Degrees `d` with `to_radians(d) == rad` exactly, searched near the nearest decimal.
fn degrees_for(rad: f32) -> Option<f32> {
    let d0 = (f64::from(rad) * (180.0 / std::f64::consts::PI)) as f32;
    if !d0.is_finite() {
        return None;
    }
    (0..=32u32).find_map(|k| {
        let step = (k / 2) as i64 * if k % 2 == 0 { 1 } else { -1 } + i64::from(k % 2);
        let bits = i64::from(d0.to_bits()) + step;
        let d = f32::from_bits(u32::try_from(bits).ok()?);
        (math::to_radians(d).to_bits() == rad.to_bits()).then_some(d)
    })
}

struct Saver<'a> {
    scene: &'a Scene,
    file: &'a Path,
    stem: &'a str,
    textures: Vec<Arc<Texture>>,
    images: Vec<(String, Vec<u8>)>,
    /// How many nodes carry each name (references need unique names).
    names: BTreeMap<String, usize>,
    /// The name of each light in the document, by light index.
    light_names: Vec<String>,
    /// The playing glTF node animations, merged per node (written as `keyframes`), except
    /// on nodes whose own keyframes controllers they mirror.
    animations: Vec<NodeAnimation>,
    /// Local transforms written instead of the current ones: IK joints at the pose their
    /// last solve started from.
    locals: Vec<(NodeId, Transform)>,
    /// Instancing roots and the `instance` each is written as (its expanded tree is not).
    instances: Vec<(NodeId, InstanceDoc)>,
}

impl Saver<'_> {
    /// What a node kind's save needs of the saver.
    fn cx(&self) -> nodes::SaveCx<'_> {
        nodes::SaveCx {
            scene: self.scene,
            file: self.file,
            names: &self.names,
        }
    }

    fn unsupported(&self, context: &str, feature: &'static str) -> IoError {
        self.cx().unsupported(context, feature)
    }

    fn invalid(&self, context: &str, message: String) -> IoError {
        IoError::Invalid {
            file: self.file.to_owned(),
            location: None,
            context: context.to_owned(),
            message,
        }
    }

    fn scene_err<'c>(&self, context: &'c str) -> impl Fn(crate::SceneError) -> IoError + 'c {
        self.cx().scene_err(context)
    }

    fn image_name(&self, i: usize) -> String {
        format!("{}.tex{i}.png", self.stem)
    }

    fn light_name(&self, id: LightId) -> String {
        self.light_names
            .get(id.index() as usize)
            .cloned()
            .unwrap_or_else(|| format!("light{}", id.index()))
    }

    fn light(&self, i: usize, l: &SceneLight) -> Result<LightDoc, IoError> {
        let name = self.light_name(LightId(u32::try_from(i).unwrap_or(u32::MAX)));
        let angle = if l.angle == core::f32::consts::PI {
            180.0
        } else {
            degrees_for(l.angle).ok_or_else(|| self.unsupported(&name, "spot angles"))?
        };
        let inner = match l.inner_angle {
            None => None,
            Some(a) => {
                Some(re(degrees_for(a).ok_or_else(|| {
                    self.unsupported(&name, "spot inner angles")
                })?))
            }
        };
        Ok(LightDoc {
            kind: match l.kind {
                LightType::Ambient => LightTypeDoc::Ambient,
                LightType::Directional => LightTypeDoc::Directional,
                LightType::Point => LightTypeDoc::Point,
                LightType::Spot => LightTypeDoc::Spot,
            },
            name,
            ambient: Some(r4(l.ambient)),
            diffuse: Some(r4(l.diffuse)),
            specular: Some(r4(l.specular)),
            intensity: re(l.intensity),
            constant: re(l.constant),
            linear: re(l.linear),
            quadratic: re(l.quadratic),
            attenuate: l.attenuate,
            on: l.on,
            exponent: re(l.exponent),
            angle_degrees: re(angle),
            inner_angle_degrees: inner,
            range: l.range.map(re),
            position: r3(l.position),
            direction: r3(l.direction),
        })
    }

    /// The `definitions` of the scene's instancings (all of one definition graph), and the
    /// `instance` each root is written as; `None` without instancings.
    fn definitions(
        &mut self,
        instancings: &[crate::io::imported::SceneInstancing],
    ) -> Result<Option<DefinitionsDoc>, IoError> {
        let Some(first) = instancings.first() else {
            return Ok(None);
        };
        let defs = first.instancing.definitions();
        if instancings
            .iter()
            .any(|i| !Arc::ptr_eq(i.instancing.definitions(), defs))
        {
            return Err(self.unsupported(
                "definitions",
                "instancings of more than one definition graph",
            ));
        }
        let exact = |x: f64| {
            let f = x as f32;
            (f64::from(f).to_bits() == x.to_bits()).then(|| re(f))
        };
        let name = |t: Target| match t {
            Target::Model(m) => defs.models()[m].name.clone(),
            Target::Symbol(s) => defs.symbols()[s].name.clone(),
        };
        let mut symbols = Vec::new();
        for s in defs.symbols() {
            let mut productions = Vec::new();
            for p in &s.productions {
                productions.push(ProductionDoc {
                    weight: if p.weight == 1.0 {
                        None
                    } else {
                        Some(exact(p.weight).ok_or_else(|| {
                            self.unsupported(
                                "definitions",
                                "production weights that are not 32-bit floats",
                            )
                        })?)
                    },
                    edges: p
                        .edges
                        .iter()
                        .map(|e| EdgeDoc {
                            to: name(e.target),
                            transform: transform_doc(&e.transform),
                        })
                        .collect(),
                });
            }
            symbols.push(SymbolDoc {
                name: s.name.clone(),
                productions,
            });
        }
        for i in instancings {
            let o = i.instancing.options();
            let doc = InstanceDoc {
                symbol: defs.symbols()[i.instancing.symbol()].name.clone(),
                min_area: exact(o.min_area).ok_or_else(|| {
                    self.unsupported("definitions", "instance areas that are not 32-bit floats")
                })?,
                max_depth: u32::try_from(o.max_depth).unwrap_or(u32::MAX),
                max_nodes: u32::try_from(o.max_nodes).unwrap_or(u32::MAX),
                seed: (o.seed != 0).then_some(o.seed),
                camera: i.camera.clone(),
                resolution: (o.resolution != (256, 256))
                    .then_some([o.resolution.0, o.resolution.1]),
            };
            self.instances.push((i.instancing.root(), doc));
        }
        Ok(Some(DefinitionsDoc {
            models: defs
                .models()
                .iter()
                .map(|m| ModelDoc {
                    name: m.name.clone(),
                    mesh: MeshDoc::Inline(mesh_doc(&m.mesh)),
                })
                .collect(),
            symbols,
        }))
    }

    fn camera(&self, cam: &crate::io::ImportedCamera) -> Result<CameraDoc, IoError> {
        let context = format!("camera '{}'", cam.name);
        // The frame `plumb render` uses (`ImportedCamera::to_camera`), written twice: as
        // `eye`, `target` and `up` for people, and exactly as `axes`, which the loader takes
        // while they agree (so the camera reloads bit for bit, and saving again gives the same
        // file).
        let frame = cam
            .to_camera(self.scene, 1.0)
            .map_err(self.scene_err(&context))?;
        let (eye, dir) = (frame.location(), frame.direction());
        // The target far enough out that `target − eye` keeps the direction to ~2⁻¹⁸ however
        // large the eye's coordinates (so `axes` still agree and `look_at` is not degenerate).
        let reach = (eye.abs().max_element() / 64.0).max(1.0);
        let mut doc = CameraDoc {
            name: cam.name.clone(),
            eye: r3(eye),
            target: r3(eye + dir * reach),
            up: r3(frame.up()),
            axes: Some([r3(frame.right()), r3(frame.up()), r3(-dir)]),
            ..CameraDoc::default()
        };
        (doc.viewport, doc.depth_range) = camera_view_doc(cam.viewport, cam.depth_range);
        match cam.projection {
            CameraProjection::Perspective {
                yfov,
                aspect_ratio,
                znear,
                zfar,
            } => {
                doc.projection = ProjectionDoc::Perspective;
                let deg = degrees_for(yfov)
                    .unwrap_or((f64::from(yfov) * (180.0 / std::f64::consts::PI)) as f32);
                doc.fov_y_degrees = re(deg);
                doc.aspect = aspect_ratio.map(re);
                doc.near = re(znear);
                doc.far = re(zfar.unwrap_or(znear * 1000.0));
            }
            CameraProjection::Orthographic {
                xmag,
                ymag,
                znear,
                zfar,
            } => {
                doc.projection = ProjectionDoc::Orthographic;
                doc.half_width = re(xmag);
                doc.half_height = re(ymag);
                doc.near = re(znear);
                doc.far = re(zfar);
            }
        }
        Ok(doc)
    }

    /// The group node the loader makes for a named camera: under the root, no children, no
    /// states, lights, effect or controllers, named after the camera.
    fn is_plain_camera_node(&self, id: NodeId, name: &str) -> bool {
        let Ok(node) = self.scene.node(id) else {
            return false;
        };
        node.parent == Some(self.scene.root())
            && node.children.is_empty()
            && node.name == name
            && matches!(node.data, NodeData::Group)
            && node.intent.is_none()
            && node.cull == Culling::Dynamic
            && !self.scene.controllers.iter().any(|(n, _)| *n == id)
    }

    fn node(&mut self, id: NodeId, path: &str, skip: &[NodeId]) -> Result<NodeDoc, IoError> {
        let scene = self.scene;
        let err = self.scene_err(path);
        let node = scene.node(id).map_err(&err)?;
        let mut controllers = Vec::new();
        // The pose the node's animation starts from, written as its transform so that a
        // reloaded scene saves to the same file (the animation replaces it at every update).
        let mut rest = None;
        // The transforms `spin` and `motion` controllers start from: the loader gives each
        // the node's `transform`, so they must agree with each other and with `rest`.
        let mut bases: Vec<Transform> = Vec::new();
        for (_, c) in scene.controllers.iter().filter(|(n, _)| *n == id) {
            let any = c.as_any();
            if let Some(spin) = any.and_then(|a| a.downcast_ref::<motion::Spin>()) {
                bases.push(*spin.base());
                controllers.push(ControllerDoc::Spin(spin.doc()));
                continue;
            }
            if let Some(m) = any.and_then(|a| a.downcast_ref::<SystemMotion>()) {
                if m.timing().active() {
                    bases.push(*m.rest());
                }
                controllers.push(ControllerDoc::Motion(
                    motion::motion_doc(m).map_err(|f| self.unsupported(path, f))?,
                ));
                continue;
            }
            let Some(a) = any.and_then(|a| a.downcast_ref::<AnimationController>()) else {
                return Err(self.unsupported(
                    path,
                    "transform controllers other than keyframes, spin and motion (closures and other types that cannot describe themselves)",
                ));
            };
            if a.timing.active() {
                rest = Some(&a.animation);
            }
            controllers.push(ControllerDoc::Keyframes(
                keyframes_doc(&a.animation, Some(&a.timing))
                    .map_err(|f| self.unsupported(path, f))?,
            ));
        }
        if let Some(a) = self.animations.iter().find(|a| a.node == id) {
            rest = Some(a);
            controllers.push(ControllerDoc::Keyframes(
                keyframes_doc(a, None).map_err(|f| self.unsupported(path, f))?,
            ));
        }
        let mut world_identity = false;
        for (_, c) in scene.mesh_controllers.iter().filter(|(n, _)| *n == id) {
            world_identity |= c.world_is_identity();
            controllers.push(self.mesh_controller(c.as_ref(), path)?);
        }
        if node.data.world_identity() && !world_identity {
            return Err(self.unsupported(path, "world-space (skinned) leaves"));
        }
        let local = match (rest, bases.first()) {
            (Some(a), _) => trs(a.rest_scale, a.rest_rotation, a.rest_translation)
                .map_err(self.scene_err(path))?,
            (None, Some(base)) => *base,
            (None, None) => self
                .locals
                .iter()
                .find(|(n, _)| *n == id)
                .map_or(node.local, |(_, t)| *t),
        };
        if bases.iter().any(|b| *b != local) {
            return Err(self.unsupported(
                path,
                "spin or motion controllers that start from another transform than the node's other controllers",
            ));
        }
        let mut doc = NodeDoc {
            name: node.name.clone(),
            transform: transform_doc(&local),
            controllers,
            ..NodeDoc::default()
        };
        nodes::save(&self.cx(), id, path, &mut doc)?;
        doc.object_id = node.object_id;
        doc.cull_mode = match node.cull {
            Culling::Dynamic => None,
            Culling::Always => Some(CullingDoc::Always),
            Culling::Never => Some(CullingDoc::Never),
        };
        doc.clear = scene.clears.get(&id).map(|c| {
            let (x, y, w, h) = c.rect.rect();
            ClearDoc {
                rect: (c.rect != crate::values::camera::CameraViewport::FULL)
                    .then(|| [re(x), re(y), re(w), re(h)]),
                depth: c.depth.map(re),
                stencil: c.stencil,
            }
        });
        if let Some(intent) = &node.intent {
            if !intent.states.is_empty() {
                doc.states =
                    Some(states_doc(intent.states.iter()).map_err(|f| self.unsupported(path, f))?);
            }
            // `attach_light` puts each light in front: list them last first.
            doc.lights = intent
                .lights
                .iter()
                .rev()
                .map(|l| self.light_name(*l))
                .collect();
            if let Some(e) = &intent.effect {
                doc.effect = Some(self.effect(e, path)?);
            }
        }
        let instance = self
            .instances
            .iter()
            .find(|(n, _)| *n == id)
            .map(|(_, d)| d.clone());
        let generated = instance.is_some();
        doc.instance = instance;
        for (i, &child) in node.children.iter().enumerate() {
            // An instance node's children are its expansion, made again at load.
            if skip.contains(&child) || generated {
                continue;
            }
            let name = scene.name(child).map_err(&err)?;
            let child_path = if name.is_empty() {
                format!("{path}/#{i}")
            } else {
                format!("{path}/{name}")
            };
            doc.children.push(self.node(child, &child_path, skip)?);
        }
        Ok(doc)
    }

    fn texture(&mut self, t: &Arc<Texture>, context: &str) -> Result<String, IoError> {
        if let Some(i) = self
            .textures
            .iter()
            .position(|k| Arc::ptr_eq(k, t) || **k == **t)
        {
            return Ok(format!("tex{i}"));
        }
        let i = self.textures.len();
        let png = png_of(t).map_err(|m| self.invalid(context, format!("texture: {m}")))?;
        // The loader rebuilds the chain from level 0: refuse what it would not give back.
        let back = ::image::load_from_memory(&png)
            .map_err(|e| e.to_string())
            .and_then(|img| Texture::from_image(&img).map_err(|e| e.to_string()))
            .map(Texture::with_generated_mips)
            .map_err(|m| self.invalid(context, format!("texture: {m}")))?;
        if back != **t {
            return Err(self.unsupported(
                context,
                "textures whose mip levels are not the box-filtered chain of level 0",
            ));
        }
        self.textures.push(t.clone());
        self.images.push((self.image_name(i), png));
        Ok(format!("tex{i}"))
    }

    fn stage(&mut self, s: &TextureStage, context: &str) -> Result<StageDoc, IoError> {
        let coords = match s.coords {
            TexCoords::Uv(i) => CoordsDoc::Uv(i),
            TexCoords::SphereMap => CoordsDoc::SphereMap,
            TexCoords::Projected { tex_from_world } => {
                CoordsDoc::Projected(Box::new(tex_from_world.to_cols_array().map(re)))
            }
            ref other => super::doc_state::linear_coords_doc(other).ok_or_else(|| {
                self.unsupported(
                    context,
                    "texture coordinate generation modes the scene format lacks",
                )
            })?,
        };
        let (apply, combine) = match s.apply {
            ApplyMode::Replace => (Some(ApplyDoc::Replace), None),
            ApplyMode::Decal => (Some(ApplyDoc::Decal), None),
            ApplyMode::Modulate => (Some(ApplyDoc::Modulate), None),
            ApplyMode::Blend => (Some(ApplyDoc::Blend), None),
            ApplyMode::Add => (Some(ApplyDoc::Add), None),
            ApplyMode::Combine(c) => (None, Some(CombineDoc::from(&c))),
        };
        Ok(StageDoc {
            texture: self.texture(&s.texture, context)?,
            sampler: SamplerDoc::from(s.sampler),
            apply,
            combine,
            constant: r4(s.constant),
            coords,
            matrix: (s.matrix != Mat3::IDENTITY).then(|| m9(s.matrix)),
        })
    }

    fn unique_name(&self, id: NodeId, context: &str) -> Result<String, IoError> {
        let name = self.scene.name(id).map_err(self.scene_err(context))?;
        if name.is_empty() || self.names.get(name) != Some(&1) {
            return Err(self.unsupported(
                context,
                "effects or controllers naming nodes without a unique name (rename them before saving)",
            ));
        }
        Ok(name.to_owned())
    }

    fn effect(&mut self, e: &Effect, context: &str) -> Result<EffectDoc, IoError> {
        Ok(match e {
            Effect::Textures(stages) => EffectDoc::Textures(
                stages
                    .iter()
                    .map(|s| self.stage(s, context))
                    .collect::<Result<_, _>>()?,
            ),
            Effect::VertexColors(c) => EffectDoc::VertexColors(c.iter().copied().map(r4).collect()),
            Effect::GlossMap(s) => EffectDoc::GlossMap(self.stage(s, context)?),
            Effect::BumpMap {
                base,
                normal_map,
                light,
                extra,
            } => EffectDoc::BumpMap(Box::new(BumpMapDoc {
                base: self.stage(base, context)?,
                normal_map: self.stage(normal_map, context)?,
                light: self.light_name(*light),
                extra: extra
                    .iter()
                    .map(|s| self.stage(s, context))
                    .collect::<Result<_, _>>()?,
            })),
            Effect::Pbr(p) => {
                let mut tex = |t: &Option<TextureStage>| -> Result<Option<StageDoc>, IoError> {
                    t.as_ref().map(|t| self.stage(t, context)).transpose()
                };
                EffectDoc::Pbr(Box::new(PbrDoc {
                    base_color: r4(p.base_color),
                    metallic: re(p.metallic),
                    roughness: re(p.roughness),
                    emissive: r3(p.emissive),
                    normal_scale: re(p.normal_scale),
                    occlusion_strength: re(p.occlusion_strength),
                    base_color_texture: tex(&p.base_color_texture)?,
                    metallic_roughness_texture: tex(&p.metallic_roughness_texture)?,
                    normal_texture: tex(&p.normal_texture)?,
                    occlusion_texture: tex(&p.occlusion_texture)?,
                    emissive_texture: tex(&p.emissive_texture)?,
                    opaque: p.opaque,
                    double_sided: p.double_sided,
                }))
            }
            Effect::PlanarShadow {
                planes,
                light,
                color,
            } => EffectDoc::PlanarShadow(PlanarShadowDoc {
                planes: planes
                    .iter()
                    .map(|p| self.unique_name(*p, context))
                    .collect::<Result<_, _>>()?,
                light: self.light_name(*light),
                color: r4(*color),
            }),
            Effect::PlanarReflection { planes } => {
                EffectDoc::PlanarReflection(PlanarReflectionDoc {
                    planes: planes
                        .iter()
                        .map(|(p, r)| {
                            Ok(MirrorDoc {
                                node: self.unique_name(*p, context)?,
                                reflectance: re(*r),
                            })
                        })
                        .collect::<Result<_, IoError>>()?,
                })
            }
        })
    }

    /// The document of a mesh controller (skin, morph, a glTF clip morph).
    fn mesh_controller(
        &self,
        c: &dyn MeshController,
        path: &str,
    ) -> Result<ControllerDoc, IoError> {
        let any = c.as_any();
        if let Some(skin) = any.and_then(|a| a.downcast_ref::<SkinController>()) {
            let bones = skin
                .bones()
                .iter()
                .map(|b| self.unique_name(*b, path))
                .collect::<Result<_, _>>()?;
            let influences = skin
                .influences()
                .iter()
                .map(|row| {
                    row.iter()
                        .map(|i| SkinInfluenceDoc {
                            bone: u32::try_from(i.bone).unwrap_or(u32::MAX),
                            weight: re(i.weight),
                            offset: r3(i.offset),
                            normal: i.normal.map(r3),
                        })
                        .collect()
                })
                .collect();
            return Ok(ControllerDoc::Skin(SkinDoc {
                bones,
                weights: Vec::new(),
                offsets: None,
                influences: Some(influences),
                active: (!skin.active()).then_some(false),
            }));
        }
        if let Some(p) = any.and_then(|a| a.downcast_ref::<PointController>()) {
            return motion::point_motion_doc(p)
                .map(ControllerDoc::PointMotion)
                .map_err(|f| self.unsupported(path, f));
        }
        let clip = any
            .and_then(|a| a.downcast_ref::<ClipMorph>())
            .and_then(ClipMorph::playing);
        let morph = match (&clip, any.and_then(|a| a.downcast_ref::<MorphController>())) {
            (Some(m), _) | (None, Some(m)) => m,
            (None, None) => return Err(self.unsupported(
                path,
                "mesh controllers other than skin, morph and point motion (a glTF leaf both skinned \
                 and morphed, closures, other types)",
            )),
        };
        morph_doc(morph)
            .map(ControllerDoc::Morph)
            .map_err(|f| self.unsupported(path, f))
    }

    /// The document of an IK controller (its nodes by their unique names).
    fn ik(&self, c: &IkController, context: &str) -> Result<IkDoc, IoError> {
        let full = math::to_radians(180.0);
        let degrees = |rad: f32| {
            degrees_for(rad).ok_or_else(|| self.unsupported(context, "IK rotation limits"))
        };
        let mut joints = Vec::with_capacity(c.joints().len());
        for j in c.joints() {
            let mut doc = IkJointDoc {
                node: self.unique_name(j.node(), context)?,
                ..IkJointDoc::default()
            };
            for axis in 0..3 {
                let (min, max) = j.translation_limits(axis).unwrap_or_default();
                if j.allow_translation[axis] {
                    doc.translate.push(IkAxisDoc {
                        axis: axis as u32,
                        min: min.is_finite().then(|| re(min)),
                        max: max.is_finite().then(|| re(max)),
                    });
                }
                let (min, max) = j.rotation_limits(axis).unwrap_or_default();
                if j.allow_rotation[axis] {
                    doc.rotate.push(IkAxisDoc {
                        axis: axis as u32,
                        min: if min == -full {
                            None
                        } else {
                            Some(re(degrees(min)?))
                        },
                        max: if max == full {
                            None
                        } else {
                            Some(re(degrees(max)?))
                        },
                    });
                }
            }
            joints.push(doc);
        }
        let goals = c
            .goals()
            .iter()
            .map(|g| {
                Ok(IkGoalDoc {
                    target: self.unique_name(g.target(), context)?,
                    effector: self.unique_name(g.effector(), context)?,
                    weight: re(g.weight()),
                })
            })
            .collect::<Result<_, IoError>>()?;
        Ok(IkDoc {
            joints,
            goals,
            iterations: (c.iterations() != DEFAULT_IK_ITERATIONS).then_some(c.iterations()),
            end_to_root: (!c.order_end_to_root).then_some(false),
            active: (!c.active).then_some(false),
        })
    }

    fn screen_polygon(
        &mut self,
        p: &ScreenPolygon,
        context: &str,
    ) -> Result<ScreenPolygonDoc, IoError> {
        let defaults = ScreenPolygon::new(p.mesh.clone(), p.layer).states;
        let changed = changed_states(&defaults, &p.states);
        Ok(ScreenPolygonDoc {
            layer: match p.layer {
                ScreenLayer::Background => ScreenLayerDoc::Background,
                ScreenLayer::Overlay => ScreenLayerDoc::Overlay,
            },
            points: None,
            color: None,
            mesh: Some(MeshDoc::Inline(mesh_doc(&p.mesh))),
            states: if changed.is_empty() {
                None
            } else {
                Some(states_doc(changed.iter()).map_err(|f| self.unsupported(context, f))?)
            },
            effect: match &p.effect {
                None => None,
                Some(e) => Some(self.effect(e, context)?),
            },
        })
    }
}

fn interpolation_doc(i: Interpolation) -> InterpolationDoc {
    match i {
        Interpolation::Step => InterpolationDoc::Step,
        Interpolation::Linear => InterpolationDoc::Linear,
        Interpolation::CubicSpline => InterpolationDoc::CubicSpline,
    }
}

/// An `f64` of a controller's timing as the `f32` the format holds, if exact.
fn exact_f32(x: f64) -> Result<f32, &'static str> {
    let f = x as f32;
    if f64::from(f) == x {
        Ok(f)
    } else {
        Err("controller times that are not exact 32-bit floats")
    }
}

/// The timing fields of a keyed controller (`repeat, [min, max, phase, frequency], active`),
/// each left out where it is the loader's default (`min`/`max` default to `first`/`last`).
type TimingDoc = (RepeatDoc, [Option<Real>; 4], Option<bool>);

fn timing_doc(t: &ControllerTiming, first: f32, last: f32) -> Result<TimingDoc, &'static str> {
    let repeat = match t.repeat() {
        RepeatType::Clamp => RepeatDoc::Clamp,
        RepeatType::Wrap => RepeatDoc::Wrap,
        RepeatType::Cycle => RepeatDoc::Cycle,
    };
    let min = exact_f32(t.min_time())?;
    let max = exact_f32(t.max_time())?;
    let phase = exact_f32(t.phase())?;
    let frequency = exact_f32(t.frequency())?;
    Ok((
        repeat,
        [
            (min.to_bits() != first.to_bits()).then(|| re(min)),
            (max.to_bits() != last.to_bits()).then(|| re(max)),
            (phase != 0.0 || phase.is_sign_negative()).then(|| re(phase)),
            (frequency != 1.0).then(|| re(frequency)),
        ],
        (!t.active()).then_some(false),
    ))
}

/// A `keyframes` document of a node animation played with `timing` (every track with its
/// own keys, and the rest pose, so that the loader rebuilds it exactly); `None`: as
/// [`apply_animations`](crate::io::apply_animations) plays it, at the application time
/// itself (the loader's default timing, clamp over the keys, which the tracks hold anyway).
fn keyframes_doc(
    a: &NodeAnimation,
    timing: Option<&ControllerTiming>,
) -> Result<KeyframesDoc, &'static str> {
    let keys = |i: Interpolation, times: &[f32]| TrackKeysDoc {
        interpolation: interpolation_doc(i),
        times: times.iter().copied().map(re).collect(),
    };
    let tracks = [
        a.translation.as_ref().map(Track::times),
        a.rotation.as_ref().map(Track::times),
        a.scale.as_ref().map(Track::times),
    ];
    let first = tracks
        .iter()
        .flatten()
        .filter_map(|t| t.first().copied())
        .reduce(f32::min)
        .unwrap_or(0.0);
    let last = tracks
        .iter()
        .flatten()
        .filter_map(|t| t.last().copied())
        .reduce(f32::max)
        .unwrap_or(0.0);
    let (repeat, [min_time, max_time, phase, frequency], active) = match timing {
        Some(t) => timing_doc(t, first, last)?,
        None => (RepeatDoc::Clamp, [None; 4], None),
    };
    let q = a.rest_rotation;
    Ok(KeyframesDoc {
        translations: a
            .translation
            .as_ref()
            .map(|t| t.values().iter().copied().map(r3).collect()),
        translation_keys: a
            .translation
            .as_ref()
            .map(|t| keys(t.interpolation(), t.times())),
        rotations: a.rotation.as_ref().map(|t| {
            t.values()
                .iter()
                .map(|q| [re(q.x), re(q.y), re(q.z), re(q.w)])
                .collect()
        }),
        rotation_keys: a
            .rotation
            .as_ref()
            .map(|t| keys(t.interpolation(), t.times())),
        scales: a
            .scale
            .as_ref()
            .map(|t| t.values().iter().copied().map(r3).collect()),
        scale_keys: a.scale.as_ref().map(|t| keys(t.interpolation(), t.times())),
        rest: Some(RestPoseDoc {
            translation: r3(a.rest_translation),
            rotation: [re(q.x), re(q.y), re(q.z), re(q.w)],
            scale: r3(a.rest_scale),
        }),
        repeat,
        min_time,
        max_time,
        phase,
        frequency,
        active,
        ..KeyframesDoc::default()
    })
}

/// A `morph` document (relative targets, as the controller stores them).
fn morph_doc(m: &MorphController) -> Result<MorphDoc, &'static str> {
    let arrays = |t: &[Vec<Vec3>]| -> Vec<Vec<Real3>> {
        t.iter()
            .map(|t| t.iter().copied().map(r3).collect())
            .collect()
    };
    let times = m.times();
    let first = times.first().copied().unwrap_or(0.0);
    let last = times.last().copied().unwrap_or(first);
    let (repeat, [min_time, max_time, phase, frequency], active) =
        timing_doc(m.timing(), first, last)?;
    Ok(MorphDoc {
        times: times.iter().copied().map(re).collect(),
        targets: arrays(m.targets()),
        relative: true,
        normals: m.normal_targets().map(arrays),
        interpolation: interpolation_doc(m.interpolation()),
        weights: m
            .key_weights()
            .iter()
            .map(|w| w.iter().copied().map(re).collect())
            .collect(),
        repeat,
        min_time,
        max_time,
        phase,
        frequency,
        active,
    })
}

/// The states of `states` that differ from `defaults`, as global states.
fn changed_states(defaults: &RenderStates, states: &RenderStates) -> Vec<GlobalState> {
    let all = |s: &RenderStates| {
        [
            GlobalState::Alpha(s.alpha),
            GlobalState::Cull(s.cull),
            GlobalState::Dither(s.dither),
            GlobalState::Fog(s.fog),
            GlobalState::Material(s.material),
            GlobalState::Shade(s.shade),
            GlobalState::Wireframe(s.wireframe),
            GlobalState::ZBuffer(s.zbuffer),
            GlobalState::Stencil(s.stencil),
            GlobalState::PolygonOffset(s.polygon_offset),
        ]
    };
    all(defaults)
        .into_iter()
        .zip(all(states))
        .filter(|(d, s)| d != s)
        .map(|(_, s)| s)
        .collect()
}

/// The document of a local transform, exact (see the module docs): `None` for the identity.
fn transform_doc(t: &Transform) -> Option<TransformDoc> {
    if t.is_identity() {
        return None;
    }
    let mut doc = TransformDoc {
        translation: Some(r3(t.translation())),
        ..TransformDoc::default()
    };
    match (t.rotation(), t.scale()) {
        (Some(r), Some(s)) => {
            if t.is_uniform_scale() {
                if s != Vec3::ONE {
                    doc.uniform_scale = Some(re(s.x));
                }
            } else {
                doc.scale = Some(r3(s));
            }
            if r != Mat3::IDENTITY {
                doc.rotation = Some(RotationDoc {
                    matrix: Some(m9(r)),
                    ..RotationDoc::default()
                });
            }
        }
        _ => doc.matrix = Some(m9(t.matrix())),
    }
    Some(doc)
}

/// The document of a node's global states (the last of each kind wins, as when setting them);
/// `Err` names a state the format cannot hold yet.
fn states_doc<'s>(
    states: impl Iterator<Item = &'s GlobalState>,
) -> Result<StatesDoc, &'static str> {
    let mut doc = StatesDoc::default();
    for s in states {
        match s {
            GlobalState::Alpha(a) => {
                let (equation, alpha_equation) = super::doc_state::blend_equations_doc(a);
                doc.alpha = Some(AlphaDoc {
                    blend: a.blend_enabled,
                    src: a.src_blend.into(),
                    dst: a.dst_blend.into(),
                    test: a.test_enabled,
                    compare: a.test.into(),
                    reference: re(a.reference),
                    constant_color: r4(a.constant_color),
                    alpha_src: a.alpha_factors.map(|(s, _)| s.into()),
                    alpha_dst: a.alpha_factors.map(|(_, d)| d.into()),
                    equation,
                    alpha_equation,
                })
            }
            GlobalState::Cull(c) => {
                doc.cull = Some(CullDoc {
                    enabled: c.enabled,
                    front_face: c.front_face.into(),
                    cull_face: c.cull_face.into(),
                })
            }
            GlobalState::Dither(d) => doc.dither = Some(EnableDoc { enabled: d.enabled }),
            GlobalState::Fog(f) => {
                doc.fog = Some(FogDoc {
                    enabled: f.enabled,
                    start: re(f.start),
                    end: re(f.end),
                    density: re(f.density),
                    color: r4(f.color),
                    function: f.density_function.into(),
                    apply: f.apply.into(),
                    distance: f.distance.into(),
                })
            }
            GlobalState::Material(m) => {
                doc.material = Some(MaterialDoc {
                    emissive: r4(m.emissive),
                    ambient: r4(m.ambient),
                    diffuse: r4(m.diffuse),
                    specular: r4(m.specular),
                    shininess: re(m.shininess),
                    color_material: m.color_material,
                    two_sided: m.two_sided,
                })
            }
            GlobalState::Shade(s) => doc.shade = Some((*s).into()),
            GlobalState::Wireframe(w) => doc.wireframe = Some(EnableDoc { enabled: w.enabled }),
            GlobalState::ZBuffer(z) => {
                doc.zbuffer = Some(ZBufferDoc {
                    enabled: z.enabled,
                    writable: z.writable,
                    compare: z.compare.into(),
                })
            }
            GlobalState::Stencil(s) => {
                doc.stencil = Some(StencilDoc {
                    enabled: s.enabled,
                    compare: s.func.into(),
                    reference: s.reference,
                    mask: s.read_mask,
                    write_mask: s.write_mask,
                    on_fail: s.fail.into(),
                    on_z_fail: s.depth_fail.into(),
                    on_z_pass: s.pass.into(),
                })
            }
            GlobalState::PolygonOffset(p) => {
                doc.polygon_offset = Some(PolygonOffsetDoc {
                    enabled: p.enabled,
                    factor: re(p.factor),
                    units: re(p.units),
                })
            }
            GlobalState::PointLine(p) => doc.point_line = Some((*p).into()),
            GlobalState::ClipPlanes(c) => {
                doc.clip_planes = Some(super::doc_state::clip_planes_doc(c))
            }
            #[allow(unreachable_patterns, reason = "states the format gains later")]
            _ => return Err("render states the scene format lacks"),
        }
    }
    Ok(doc)
}

/// Level 0 of `t` as a PNG in the texel format it was loaded from.
fn png_of(t: &Texture) -> Result<Vec<u8>, String> {
    use ::image::{ExtendedColorType, ImageEncoder};
    let level = t.level(0).ok_or("no level 0")?;
    let texels = level.to_texels();
    let (data, color): (Vec<u8>, ExtendedColorType) = match t.format() {
        TexelFormat::L8 => (texels.iter().map(|p| p[0]).collect(), ExtendedColorType::L8),
        TexelFormat::La8 => (
            texels.iter().flat_map(|p| [p[0], p[3]]).collect(),
            ExtendedColorType::La8,
        ),
        TexelFormat::Rgb8 => (
            texels.iter().flat_map(|p| [p[0], p[1], p[2]]).collect(),
            ExtendedColorType::Rgb8,
        ),
        _ => (
            texels.iter().flatten().copied().collect(),
            ExtendedColorType::Rgba8,
        ),
    };
    let mut out = Vec::new();
    ::image::codecs::png::PngEncoder::new(&mut out)
        .write_image(&data, level.width(), level.height(), color)
        .map_err(|e| e.to_string())?;
    Ok(out)
}

#[cfg(feature = "internal-tests")]
pub(crate) mod tests {
    /// Every test of this module: `tests/unit.rs` runs each as one trial (an unlisted
    /// test fails the build as dead code).
    pub(crate) const TESTS: &[(&str, fn())] = &[
        (
            "reals_round_trip_through_text",
            reals_round_trip_through_text,
        ),
        ("degrees_round_trip", degrees_round_trip),
    ];

    use super::*;

    /// Every f32 written by serde_json reads back through [`Real`] as the same bits: a sweep
    /// of bit patterns across the whole finite range (both signs, subnormals included).
    fn reals_round_trip_through_text() {
        let mut checked = 0;
        for bits in (1..0x7f80_0000u32).step_by(2027) {
            for x in [f32::from_bits(bits), -f32::from_bits(bits)] {
                let text = serde_json::to_string(&re(x)).expect("finite");
                let back: Real = serde_json::from_str(&text).expect("parses");
                assert_eq!(back.get().to_bits(), x.to_bits(), "{x:e} written as {text}");
                checked += 1;
            }
        }
        assert!(checked > 100_000);
    }

    /// 45° and 90° are what the loader converts, and each finds its own degrees back.
    fn degrees_round_trip() {
        for d in [45.0f32, 90.0, 30.0, 12.5, 179.0, 0.0] {
            let rad = math::to_radians(d);
            let back = degrees_for(rad).expect("found");
            assert_eq!(math::to_radians(back).to_bits(), rad.to_bits());
        }
    }
}
