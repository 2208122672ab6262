//! Lights (Eberly's `Light`, book §3.6) and how they attach to nodes.
//!
//! A light lives in the scene's light table ([`Scene::add_light`](crate::Scene::add_light) →
//! [`LightId`]) and is **attached** to nodes with
//! [`Scene::attach_light`](crate::Scene::attach_light): it lights every geometry leaf in that
//! node's subtree. Attaching the same light twice to one node is ignored; a new light goes to the
//! **front** of the node's list (the book's `SetLight`).
//!
//! `update` resolves each geometry leaf's lights: the union of the lists on the path from the
//! root, **root first**, each node's list in its own order (most recently attached first). The
//! renderer uses the first [`MAX_LIGHTS`] of them; lights that are off are skipped but still use
//! up their slot (book `EnableLighting`), so a ninth light is always ignored.
//!
//! Because lights are referenced by id, editing a light
//! ([`Scene::set_light`](crate::Scene::set_light)) shows up at the next draw without any update
//! (the book's shared-pointer rule); attaching or detaching needs the update that `Scene::draw`
//! runs.
//!
//! Positions and directions are in **world space** (the light is not itself a node).

use glam::{Vec3, Vec4};

pub use crate::values::id::LightId;

/// The renderer's light limit (book `m_iMaxLights`, 8 for OpenGL): plumb-raster's, the
/// fixed-function pipeline's.
pub use plumb_raster::light::MAX_LIGHTS;

/// The type of a light (book `LT_AMBIENT, LT_DIRECTIONAL, LT_POINT, LT_SPOT`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum LightType {
    /// Ambient only.
    #[default]
    Ambient,
    /// Infinitely far; [`SceneLight::direction`] is where the light travels.
    Directional,
    /// At [`SceneLight::position`], radiating.
    Point,
    /// At [`SceneLight::position`], in a cone about [`SceneLight::direction`].
    Spot,
}

/// One light of a scene's light table, in world space, with the book's fields. (The renderer
/// turns it into plumb-raster's `light::Light`, an eye-space light of one draw.) `Default`
/// (= `SceneLight::new(LightType::Ambient)`) is the book's: black colours, intensity 1,
/// attenuation (1, 0, 0) off, on, spot exponent 0 and angle π (no cone), at the origin shining
/// down −z.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SceneLight {
    /// Type.
    pub kind: LightType,
    /// Ambient colour.
    pub ambient: Vec4,
    /// Diffuse colour.
    pub diffuse: Vec4,
    /// Specular colour.
    pub specular: Vec4,
    /// Multiplies the three colours (products clamped to [0, 1]).
    pub intensity: f32,
    /// Constant attenuation C.
    pub constant: f32,
    /// Linear attenuation L.
    pub linear: f32,
    /// Quadratic attenuation Q.
    pub quadratic: f32,
    /// Attenuation `1/(C + L·d + Q·d²)` applies only when set.
    pub attenuate: bool,
    /// Off lights are skipped (they keep their slot).
    pub on: bool,
    /// Spot exponent.
    pub exponent: f32,
    /// Spot cone half-angle from the axis, radians; π means no cone.
    pub angle: f32,
    /// Spot only (an extension for glTF): the half-angle in radians inside which the cone is
    /// at full strength; the cone fades smoothly from `angle` to it
    /// (`plumb_raster::light` docs). `None`: the book's hard cone.
    pub inner_angle: Option<f32>,
    /// Point and spot only (an extension for glTF): no light beyond this distance, with a
    /// smooth window before it (`plumb_raster::light` docs). `None`: unlimited.
    pub range: Option<f32>,
    /// World position (point and spot).
    pub position: Vec3,
    /// World direction of travel (directional and spot); need not be unit length.
    pub direction: Vec3,
}

impl Default for SceneLight {
    fn default() -> Self {
        SceneLight::new(LightType::Ambient)
    }
}

impl SceneLight {
    /// A light of the given type with the book's defaults.
    pub const fn new(kind: LightType) -> SceneLight {
        SceneLight {
            kind,
            ambient: Vec4::new(0.0, 0.0, 0.0, 1.0),
            diffuse: Vec4::new(0.0, 0.0, 0.0, 1.0),
            specular: Vec4::new(0.0, 0.0, 0.0, 1.0),
            intensity: 1.0,
            constant: 1.0,
            linear: 0.0,
            quadratic: 0.0,
            attenuate: false,
            on: true,
            exponent: 0.0,
            angle: core::f32::consts::PI,
            inner_angle: None,
            range: None,
            position: Vec3::ZERO,
            direction: Vec3::NEG_Z,
        }
    }

    /// An ambient light of colour `c`.
    pub fn ambient(c: Vec3) -> SceneLight {
        SceneLight {
            ambient: c.extend(1.0),
            ..SceneLight::new(LightType::Ambient)
        }
    }

    /// A white directional light (diffuse and specular 1) travelling along `direction`.
    pub fn directional(direction: Vec3) -> SceneLight {
        SceneLight {
            diffuse: Vec4::ONE,
            specular: Vec4::ONE,
            direction,
            ..SceneLight::new(LightType::Directional)
        }
    }

    /// A white point light (diffuse and specular 1) at `position`.
    pub fn point(position: Vec3) -> SceneLight {
        SceneLight {
            diffuse: Vec4::ONE,
            specular: Vec4::ONE,
            position,
            ..SceneLight::new(LightType::Point)
        }
    }

    /// A white spot light at `position` shining along `direction`, half-angle `angle`
    /// (radians), exponent `exponent`.
    pub fn spot(position: Vec3, direction: Vec3, angle: f32, exponent: f32) -> SceneLight {
        SceneLight {
            diffuse: Vec4::ONE,
            specular: Vec4::ONE,
            position,
            direction,
            angle,
            exponent,
            ..SceneLight::new(LightType::Spot)
        }
    }

    /// Whether every number is finite.
    pub fn is_finite(&self) -> bool {
        self.ambient.is_finite()
            && self.diffuse.is_finite()
            && self.specular.is_finite()
            && [
                self.intensity,
                self.constant,
                self.linear,
                self.quadratic,
                self.exponent,
                self.angle,
            ]
            .iter()
            .all(|v| v.is_finite())
            && self.position.is_finite()
            && self.direction.is_finite()
            && self.inner_angle.is_none_or(f32::is_finite)
            && self.range.is_none_or(f32::is_finite)
    }
}

/// Former name of [`SceneLight`] (plumb-raster's `light::Light` is the eye-space light of one
/// draw). Kept for existing code; new code names [`SceneLight`].
pub type Light = SceneLight;
