//! What an import produces besides nodes: the material table, cameras, lights and
//! animations, each tied to the scene node it belongs to.

use std::collections::BTreeMap;
use std::sync::Arc;

use glam::Vec3;

use super::animation::Animation;
use super::material::ImportedMaterial;
use crate::graph::{NodeId, Scene};
use crate::values::camera::{Camera, CameraViewport};
use crate::values::error::SceneError;

/// A camera's projection as the file gives it (glTF `camera`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum CameraProjection {
    /// A perspective projection.
    Perspective {
        /// Vertical field of view, radians.
        yfov: f32,
        /// Width / height, when the file fixes it (otherwise the viewport's).
        aspect_ratio: Option<f32>,
        /// Near plane distance (> 0).
        znear: f32,
        /// Far plane distance; `None` means an infinite projection.
        zfar: Option<f32>,
    },
    /// An orthographic projection.
    Orthographic {
        /// Half the width of the view volume.
        xmag: f32,
        /// Half the height of the view volume.
        ymag: f32,
        /// Near plane distance.
        znear: f32,
        /// Far plane distance.
        zfar: f32,
    },
}

/// How far an infinite glTF projection ([`CameraProjection::Perspective`] without `zfar`)
/// reaches when turned into a [`Camera`]: this many times the near distance.
pub const INFINITE_FAR_FACTOR: f32 = 10_000.0;

/// A camera attached to a node. Like glTF and plumb, it looks down the node's local −z with
/// +y up.
#[derive(Debug, Clone, PartialEq)]
pub struct ImportedCamera {
    /// The node carrying the camera (its world transform places the camera).
    pub node: NodeId,
    /// The camera's name in the file (may be empty).
    pub name: String,
    /// Its projection.
    pub projection: CameraProjection,
    /// The part of the target it draws to ([`CameraViewport::FULL`] for glTF cameras).
    pub viewport: CameraViewport,
    /// Window depth range `(near, far)` in `[0, 1]` (`(0, 1)` for glTF cameras).
    pub depth_range: (f32, f32),
}

impl ImportedCamera {
    /// A plumb [`Camera`] for this camera, placed by the node's world transform (computed
    /// fresh from the local transforms; a rotation with positive scale gives the frame exactly
    /// by its rotation's columns, see [`Camera::set_axes`]) and with `viewport_aspect`
    /// (the target's width / height, times the viewport's own width / height when it is not
    /// the whole target) used when the file fixes none; with the camera's viewport and depth
    /// range. An infinite far plane becomes
    /// [`INFINITE_FAR_FACTOR`]` × znear`. Scale in the node's transform moves the eye but
    /// does not change the frustum.
    ///
    /// # Errors
    /// [`SceneError::StaleId`] for a removed node, [`SceneError::InvalidFrustum`] /
    /// [`SceneError::DegenerateFrame`] / [`SceneError::NonFinite`] for unusable values.
    pub fn to_camera(&self, scene: &Scene, viewport_aspect: f32) -> Result<Camera, SceneError> {
        let world = scene.compute_world(self.node)?;
        let mut camera = match self.projection {
            CameraProjection::Perspective {
                yfov,
                aspect_ratio,
                znear,
                zfar,
            } => Camera::perspective(
                yfov,
                aspect_ratio.unwrap_or_else(|| {
                    let (_, _, w, h) = self.viewport.rect();
                    viewport_aspect * (w / h)
                }),
                znear,
                zfar.unwrap_or(znear * INFINITE_FAR_FACTOR),
            )?,
            CameraProjection::Orthographic {
                xmag,
                ymag,
                znear,
                zfar,
            } => Camera::orthographic(-xmag, xmag, -ymag, ymag, znear, zfar)?,
        };
        camera.set_viewport(self.viewport);
        camera.set_depth_range(self.depth_range.0, self.depth_range.1)?;
        match (world.rotation(), world.scale()) {
            // Rotation and positive scale: the rotation's columns are the frame, used as they
            // are so a camera written from a `look_at` frame comes back bit for bit. (A
            // negative or zero scale mirrors or collapses the axes: re-derived below.)
            (Some(r), Some(s)) if s.cmpgt(Vec3::ZERO).all() => {
                camera.set_axes(world.translation(), r)?;
            }
            _ => camera.set_frame(
                world.translation(),
                world.apply_vector(Vec3::NEG_Z),
                world.apply_vector(Vec3::Y),
            )?,
        }
        Ok(camera)
    }
}

/// Former name of [`ImportedLightKind`] (plumb-raster's `light::LightKind` is another concept).
#[deprecated(
    note = "renamed to `ImportedLightKind`; plumb_raster::light::LightKind is another type"
)]
pub type LightKind = ImportedLightKind;

/// The kind of a punctual light (`KHR_lights_punctual`) as imported. (The scene's light type
/// is [`LightType`](crate::values::light::LightType); plumb-raster's `light::LightKind` is the
/// pipeline's.)
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ImportedLightKind {
    /// Parallel light shining along the node's local −z.
    Directional,
    /// Light from the node's origin in all directions.
    Point,
    /// A cone along the node's local −z.
    Spot {
        /// Angle from the axis where the falloff starts (radians).
        inner_cone_angle: f32,
        /// Angle from the axis where the light ends (radians).
        outer_cone_angle: f32,
    },
}

/// A light attached to a node.
#[derive(Debug, Clone, PartialEq)]
pub struct ImportedLight {
    /// The node carrying the light (position: its origin; direction: its local −z).
    pub node: NodeId,
    /// The light's name in the file (may be empty).
    pub name: String,
    /// Directional, point or spot.
    pub kind: ImportedLightKind,
    /// Linear RGB colour.
    pub color: Vec3,
    /// Intensity (lux for directional lights, candela for point and spot lights).
    pub intensity: f32,
    /// Distance where the light's influence ends (`None`: unlimited).
    pub range: Option<f32>,
}

/// What plumb does with a glTF extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Handling {
    /// Read and drawn as specified.
    Honoured,
    /// A material refinement plumb does not model: the base material is drawn.
    RefinesMaterial,
    /// Known but not used by plumb (or not yet): the file's core data is drawn.
    Ignored,
    /// Data plumb cannot decode: a file that requires it is refused.
    CannotDecode,
    /// Not known to plumb.
    Unknown,
}

impl Handling {
    /// A word for listings: `honoured`, `ignored`, `not decoded` or `unknown`.
    pub fn word(self) -> &'static str {
        match self {
            Handling::Honoured => "honoured",
            Handling::RefinesMaterial | Handling::Ignored => "ignored",
            Handling::CannotDecode => "not decoded",
            Handling::Unknown => "unknown",
        }
    }
}

/// One extension a file uses (`extensionsUsed` or `extensionsRequired`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExtensionUse {
    /// The extension's name.
    pub name: String,
    /// Whether `extensionsRequired` lists it.
    pub required: bool,
    /// What plumb does with it.
    pub handling: Handling,
    /// What it carries and what plumb draws instead, for listings (`plumb info`).
    pub note: &'static str,
}

impl ExtensionUse {
    /// The warning for an extension the file requires but plumb draws without (a material
    /// refinement), else `None`.
    pub fn warning(&self) -> Option<String> {
        (self.required && self.handling == Handling::RefinesMaterial).then(|| {
            format!(
                "the file requires {}, which plumb does not model: {}",
                self.name, self.note
            )
        })
    }
}

/// A scene file's `instance` node: its instance tree and the camera the file named for it.
#[derive(Debug, Clone)]
pub struct SceneInstancing {
    /// The instance tree (its root is the `instance` node).
    pub instancing: crate::passes::instancing::Instancing,
    /// The camera the file instanced it for, when it named one (else the first camera).
    pub camera: Option<String>,
}

/// Everything an import adds to a scene besides the nodes themselves.
#[derive(Debug, Clone, Default)]
pub struct Imported {
    /// The top-level nodes created, in file order (children of the node imported into).
    pub roots: Vec<NodeId>,
    /// The material of every geometry node created, keyed by node (geometry sharing one
    /// material in the file share one `Arc`).
    pub materials: BTreeMap<NodeId, Arc<ImportedMaterial>>,
    /// Cameras in node order.
    pub cameras: Vec<ImportedCamera>,
    /// Lights in node order.
    pub lights: Vec<ImportedLight>,
    /// Animations in file order (only channels whose node was imported).
    pub animations: Vec<Animation>,
    /// What [`apply`](super::apply()) added, when [`load`](super::load) applied the import
    /// ([`ImportOptions::apply`](super::ImportOptions::apply)); empty otherwise.
    pub applied: Applied,
    /// The glTF extensions the file uses and what plumb did with each (empty for OBJ), in
    /// `extensionsUsed` order; [`ExtensionUse::warning`] gives the lines `plumb render`
    /// prints.
    pub extensions: Vec<ExtensionUse>,
    /// The names of the file's `KHR_materials_variants` in file order (empty without them).
    pub variants: Vec<String>,
    /// Bytes of decoded geometry counted against
    /// [`ImportOptions::max_geometry_bytes`](super::ImportOptions::max_geometry_bytes): glTF
    /// accessor data as 4-byte components, OBJ's parsed arrays.
    pub geometry_bytes: u64,
    /// A scene file's `instance` nodes, expanded at load for their camera; call
    /// [`Imported::reinstance`] with the camera a frame is drawn from (as `plumb render`
    /// does) so the instance trees follow it. The saver writes them back as `instance`
    /// nodes and `definitions`, not as their expanded trees.
    pub instancings: Vec<SceneInstancing>,
    /// The box of every vertex with the scene **at rest** — nodes at their file transforms,
    /// controllers not yet run ([`Scene::update_at_rest`]) — which frames a camera-less file
    /// ([`ImportedScene::default_camera`](super::ImportedScene::default_camera), `plumb
    /// render`); set by [`load`](super::load).
    pub rest_box: Option<crate::values::bound::Bound>,
}

/// Where a scene light added by [`apply`](super::apply()) comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LightSource {
    /// `Imported::lights[i]`.
    Imported(usize),
    /// The default rig's key light (follows the camera).
    Key,
    /// The default rig's ambient fill light.
    Fill,
}

/// What [`apply`](super::apply()) added: the scene lights and where each comes from, and the
/// lit leaves.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Applied {
    /// Scene lights in attachment order (file order, or key then fill).
    pub lights: Vec<(crate::values::light::LightId, LightSource)>,
    /// Geometry leaves drawn with lighting (the lights are attached to each).
    pub lit: Vec<NodeId>,
    /// Geometry leaves drawn without lighting.
    pub unlit: Vec<NodeId>,
    /// What could not be mapped and was left out, one line each (a texture whose uv set the
    /// mesh lacks, a normal map without a light to encode); `plumb render` prints them.
    pub warnings: Vec<String>,
}

impl Imported {
    /// Brings every instance tree up to date for `camera` (in the reference node's frame, as
    /// [`Scene::draw`](crate::Scene::draw) takes it): instances that became relevant are
    /// expanded, those that are no longer collapsed (see
    /// [`instancing`](crate::passes::instancing)). A camera that has not moved changes nothing.
    ///
    /// # Errors
    /// As [`Scene::camera_in_frame`] and [`Instancing::update`](crate::passes::instancing::Instancing::update).
    pub fn reinstance(&mut self, scene: &mut Scene, camera: &Camera) -> Result<(), SceneError> {
        if self.instancings.is_empty() {
            return Ok(());
        }
        let world = scene.camera_in_frame(camera, scene.reference_node(), None)?;
        for inst in &mut self.instancings {
            inst.instancing.update(scene, &world)?;
        }
        Ok(())
    }

    /// The material of a geometry node.
    pub fn material(&self, node: NodeId) -> Option<&ImportedMaterial> {
        self.materials.get(&node).map(|m| m.as_ref())
    }
}

/// A freshly loaded scene and what came with it.
#[derive(Debug)]
pub struct ImportedScene {
    /// The scene (updated once at time 0, so world data is current).
    pub scene: Scene,
    /// Materials, cameras, lights and animations.
    pub imported: Imported,
}

#[cfg(feature = "internal-tests")]
pub(crate) mod tests {
    /// Every test of this module: `tests/unit.rs` runs each as one trial (an unlisted
    /// test fails the build as dead code).
    pub(crate) const TESTS: &[(&str, fn())] =
        &[("scale_signs_turn_the_camera", scale_signs_turn_the_camera)];

    use super::*;
    use crate::values::transform::Transform;

    fn camera_under(scale: Vec3) -> Camera {
        let mut scene = Scene::new();
        let root = scene.root();
        let node = scene.add_group(root, "cam").unwrap();
        let local = Transform::IDENTITY
            .with_scale(scale)
            .and_then(|t| t.with_translation(Vec3::new(1.0, 2.0, 3.0)))
            .unwrap();
        scene.set_local_transform(node, local).unwrap();
        let c = ImportedCamera {
            node,
            name: String::new(),
            projection: CameraProjection::Perspective {
                yfov: 0.8,
                aspect_ratio: None,
                znear: 0.1,
                zfar: Some(10.0),
            },
            viewport: CameraViewport::FULL,
            depth_range: (0.0, 1.0),
        };
        c.to_camera(&scene, 1.0).unwrap()
    }

    /// A camera looks down its node's −z with +y up — through the node's scale too, so a
    /// mirroring scale turns it around or upside down.
    fn scale_signs_turn_the_camera() {
        let c = camera_under(Vec3::splat(2.0));
        assert_eq!(c.location(), Vec3::new(1.0, 2.0, 3.0));
        assert_eq!((c.direction(), c.up()), (Vec3::NEG_Z, Vec3::Y));
        let c = camera_under(Vec3::new(1.0, 1.0, -1.0));
        assert_eq!((c.direction(), c.up()), (Vec3::Z, Vec3::Y));
        let c = camera_under(Vec3::new(1.0, -1.0, 1.0));
        assert_eq!((c.direction(), c.up()), (Vec3::NEG_Z, Vec3::NEG_Y));
    }
}
