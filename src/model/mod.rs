//! Drawing a model or scene file the way `plumb render` does, through any scene
//! [`Renderer`]: the binary's render path and the conformance kit's model cases share it.
//!
//! [`LoadedModel::load`]: [`io::load`], the library's one load path (materials and lights
//! mapped by [`io::apply`](crate::scene::io::apply()), the default light rig only when the file
//! has no light; `unlit` draws base colour × vertex colour × texture), the glTF scene chosen
//! by [`scene_select`], the clip by [`clip`], the background replaced if asked. Then per
//! frame, [`LoadedModel::draw_at`]: sample animations at the frame's time, update, choose the
//! camera ([`camera`]), place the lights, draw.
//!
//! [`ModelView`] is one such view as data (the conformance kit's `refimages/models/cases.json`
//! and the model-golden test read it): the `plumb render` options that decide the image.

pub mod args;
pub mod arrays;
pub mod budget;
pub mod camera;
pub mod clip;
pub mod depth;
pub mod environment;
pub mod scene_select;

use std::path::Path;
use std::sync::Arc;

use glam::{Vec3, Vec4};
use plumb_raster::pbr::{OutputEncoding, PbrOutput, ToneMap};
use serde::{Deserialize, Serialize};

use crate::scene::io::{self, framing, ApplyOptions, ImportOptions, Shading, WorkBudget};
use crate::scene::{Bound, Renderer, Scene, SceneDrawStats};

use camera::{choose_camera, CameraArgs};

/// A scene file loaded for drawing as `plumb render` draws it.
pub struct LoadedModel {
    /// The scene.
    pub scene: Scene,
    /// What the import found (cameras, lights, animations).
    pub imported: io::Imported,
    /// How materials and lights were mapped.
    pub applied: io::Applied,
    /// The box of the scene's vertices as stored in the file, before any animation: what a
    /// camera without one frames, the same for every frame of a sequence.
    pub rest_bound: Bound,
    /// The camera of the last frame [`LoadedModel::draw_at`] drew (for [`depth::metric_depth`]).
    pub last_camera: Option<crate::scene::Camera>,
    /// Loaded from a plumb scene file (`.json`): its lights and environment are the
    /// author's, so `--environment auto` adds nothing to it.
    pub scene_file: bool,
}

/// Whether `path` names a plumb scene file (`.json`), not a model.
fn is_scene_file(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("json"))
}

/// What a clip does past its end (`plumb render --loop`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum LoopMode {
    /// Hold the last pose (glTF defines no looping; `--time` is the pose's own time).
    #[default]
    Clamp,
    /// Play again from the start: each clip's time modulo its own duration.
    Repeat,
}

/// How lit materials are drawn (`plumb render --shading`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ShadingMode {
    /// The fixed-function approximation: Blinn–Phong colours, the book's bump map.
    Classic,
    /// glTF's metallic-roughness BRDF per pixel (the specification's Appendix B): the
    /// default.
    #[default]
    Pbr,
}

impl From<ShadingMode> for Shading {
    fn from(m: ShadingMode) -> Shading {
        match m {
            ShadingMode::Classic => Shading::Classic,
            ShadingMode::Pbr => Shading::Pbr,
        }
    }
}

/// The tone map of PBR draws (`plumb render --tone-map`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum ToneMapMode {
    /// None: the linear colour clamped to 0..1.
    #[default]
    None,
    /// ACES filmic (Hill's fit, as three.js and the glTF Sample Viewer).
    Aces,
    /// Khronos PBR Neutral.
    PbrNeutral,
}

/// How PBR draws write their colour (`plumb render --output-encoding`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum OutputEncodingMode {
    /// sRGB-encoded.
    #[default]
    Srgb,
    /// Linear values.
    Linear,
}

/// The raster's output transform for the three options.
pub fn pbr_output(exposure: f32, tone_map: ToneMapMode, encoding: OutputEncodingMode) -> PbrOutput {
    PbrOutput {
        exposure,
        tone_map: match tone_map {
            ToneMapMode::None => ToneMap::None,
            ToneMapMode::Aces => ToneMap::AcesFilmic,
            ToneMapMode::PbrNeutral => ToneMap::PbrNeutral,
        },
        encoding: match encoding {
            OutputEncodingMode::Srgb => OutputEncoding::Srgb,
            OutputEncodingMode::Linear => OutputEncoding::Linear,
        },
    }
}

impl LoadedModel {
    /// Sets what each clip does past its end: with [`LoopMode::Repeat`], every clip plays
    /// again from its start, wrapped by **its own** duration (three.js's `LoopRepeat`: a
    /// 1 s clip and a 3 s clip at `t` = 2.5 s are at 0.5 s and 2.5 s), its node tracks and
    /// its morph weights alike; with [`LoopMode::Clamp`] each holds its last key
    /// ([`io::loop_clips`]).
    pub fn set_loop(&self, mode: LoopMode) {
        io::loop_clips(&self.imported.animations, mode == LoopMode::Repeat);
    }

    /// Lights PBR draws by `choice`'s environment ([`environment`]) times `intensity`
    /// (`plumb render --environment`, `--environment-intensity`); classic shading ignores it.
    /// Load with [`Mapping::environment`] = [`EnvironmentChoice::replaces_rig`] so a file
    /// without lights is lit by the environment alone.
    ///
    /// # Errors
    /// An `.hdr` file that cannot be read, or an intensity that is not finite and ≥ 0.
    ///
    /// [`EnvironmentChoice::replaces_rig`]: environment::EnvironmentChoice::replaces_rig
    pub fn set_environment(
        &mut self,
        shading: Shading,
        choice: &environment::EnvironmentChoice,
        intensity: f32,
    ) -> Result<(), String> {
        // Classic shading has no use for it. `auto`: the import lit a dark model by the
        // studio already (`ApplyOptions::default_environment`), which only takes the
        // intensity; a scene file's environment, or its absence, is its author's.
        let map = match choice {
            _ if shading != Shading::Pbr => return Ok(()),
            environment::EnvironmentChoice::Auto if self.scene_file => return Ok(()),
            environment::EnvironmentChoice::Auto => match self.scene.pbr_environment() {
                Some((map, _)) => Some(Arc::clone(map)),
                None => return Ok(()),
            },
            other => other.resolve(!self.imported.lights.is_empty())?,
        };
        self.scene
            .set_pbr_environment(map.map(|m| (m, intensity)))
            .map_err(|e| format!("--environment-intensity: {e}"))
    }

    /// What the file asks for that plumb draws without (a required material extension it
    /// does not model), then what the mapping left out: one line each, for `warning:`
    /// lines.
    pub fn warnings(&self) -> Vec<String> {
        let extensions = self.imported.extensions.iter().filter_map(|e| e.warning());
        extensions
            .chain(self.applied.warnings.iter().cloned())
            .collect()
    }
}

impl std::fmt::Debug for LoadedModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LoadedModel")
            .field("rest_bound", &self.rest_bound)
            .finish_non_exhaustive()
    }
}

/// Loads `path` with imported materials mapped onto render state (`unlit`: base colour ×
/// vertex colour × texture) and, for a file without lights, the default light rig or, for
/// PBR with [`Mapping::environment`], the built-in studio environment (`plumb render
/// --environment auto`, [`io::ApplyOptions::default_environment`]); glTF scene and material
/// variant by index (`None`: the file's default scene, each primitive's own material); held
/// to the work `budget`.
///
/// # Errors
/// The loader's message, one line.
pub fn load_mapped(
    path: &Path,
    mapping: impl Into<Mapping>,
    (gltf_scene, gltf_variant): (Option<usize>, Option<usize>),
    budget: &WorkBudget,
) -> Result<(Scene, io::Imported, io::Applied), String> {
    let options = import_options(mapping.into(), (gltf_scene, gltf_variant), budget);
    let io::ImportedScene { scene, imported } =
        io::load(path, &options).map_err(|e| ModelError::from(&e).message)?;
    let applied = imported.applied.clone();
    Ok((scene, imported, applied))
}

/// How a load maps imported materials: unlit (base colour × vertex colour × texture), or
/// lit with a [`Shading`]. A `bool` converts as `unlit` with the default (PBR) shading and
/// the environment's `auto` rule (a file without lights is lit by the studio, not the rig),
/// as `plumb render` without options.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Mapping {
    /// Draw without lighting.
    pub unlit: bool,
    /// How lit materials are drawn.
    pub shading: Shading,
    /// PBR draws are lit by an environment ([`environment`]), so a file without lights
    /// gets no default rig.
    pub environment: bool,
}

impl From<bool> for Mapping {
    fn from(unlit: bool) -> Mapping {
        Mapping {
            unlit,
            shading: Shading::Pbr,
            environment: true,
        }
    }
}

/// `plumb render`'s import options: materials and lights mapped (the default light rig when
/// the file has none), the glTF scene and variant chosen, held to `budget`.
fn import_options(
    mapping: Mapping,
    (gltf_scene, gltf_variant): (Option<usize>, Option<usize>),
    budget: &WorkBudget,
) -> ImportOptions {
    ImportOptions {
        apply: Some(ApplyOptions {
            unlit: mapping.unlit,
            default_lights: true,
            // The studio lights a PBR file without lights instead of the rig.
            default_environment: mapping.environment,
            shading: mapping.shading,
        }),
        gltf_scene,
        gltf_variant,
        budget: *budget,
        ..ImportOptions::default()
    }
}

/// What kind of failure a load was: for callers that sort errors (the Python package's
/// exception classes); the message is the one line the CLI prints.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ErrorKind {
    /// A file could not be read (missing, a folder, no permission, a resource it names).
    Io,
    /// A documented limit or work budget was passed.
    Limit,
    /// Anything else about the input: malformed, inconsistent, unsupported, a bad option.
    BadInput,
}

/// A load's one-line message and its [`ErrorKind`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModelError {
    /// How to sort it.
    pub kind: ErrorKind,
    /// The one line `plumb render` prints after `error: `.
    pub message: String,
}

impl ModelError {
    /// A bad-input error with `message`.
    pub fn bad_input(message: impl Into<String>) -> ModelError {
        ModelError {
            kind: ErrorKind::BadInput,
            message: message.into(),
        }
    }
}

impl std::fmt::Display for ModelError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl From<ModelError> for String {
    fn from(e: ModelError) -> String {
        e.message
    }
}

impl From<String> for ModelError {
    fn from(message: String) -> ModelError {
        ModelError::bad_input(message)
    }
}

impl From<&io::IoError> for ModelError {
    fn from(e: &io::IoError) -> ModelError {
        let kind = match e {
            io::IoError::Read { .. } | io::IoError::MissingResource { .. } => ErrorKind::Io,
            io::IoError::FileTooLarge { .. }
            | io::IoError::Limit { .. }
            | io::IoError::ImageTooLarge { .. }
            | io::IoError::TextureMemory { .. }
            | io::IoError::Budget(_) => ErrorKind::Limit,
            _ => ErrorKind::BadInput,
        };
        ModelError {
            kind,
            message: e.to_string(),
        }
    }
}

impl LoadedModel {
    /// Like [`LoadedModel::load`], with the error's [`ErrorKind`].
    ///
    /// # Errors
    /// As [`LoadedModel::load`].
    pub fn load_typed(
        path: &Path,
        mapping: impl Into<Mapping>,
        (scene, variant): (Option<&str>, Option<&str>),
        clip: Option<&str>,
        background: Option<Vec4>,
        budget: &WorkBudget,
    ) -> Result<LoadedModel, ModelError> {
        let gltf_scene = scene_select::select(path, scene)?;
        let gltf_variant = scene_select::select_variant(path, variant)?;
        let options = import_options(mapping.into(), (gltf_scene, gltf_variant), budget);
        let io::ImportedScene { scene, imported } =
            io::load(path, &options).map_err(|e| ModelError::from(&e))?;
        let applied = imported.applied.clone();
        LoadedModel::finish(path, scene, imported, applied, clip, background)
            .map_err(ModelError::from)
    }

    /// Loads `path` as `plumb render` does: `scene` picks a glTF scene by name or index
    /// ([`scene_select`]), `variant` a `KHR_materials_variants` variant the same way,
    /// `clip` the one animation to play ([`clip`]), `background` replaces the scene's; the
    /// load is held to `budget`.
    ///
    /// # Errors
    /// A one-line message (unreadable or malformed file, unknown scene or clip, a
    /// background that is not finite, a budget passed).
    pub fn load(
        path: &Path,
        mapping: impl Into<Mapping>,
        (scene, variant): (Option<&str>, Option<&str>),
        clip: Option<&str>,
        background: Option<Vec4>,
        budget: &WorkBudget,
    ) -> Result<LoadedModel, String> {
        LoadedModel::load_typed(path, mapping, (scene, variant), clip, background, budget)
            .map_err(String::from)
    }

    /// The load's last steps: the clip chosen, the background set, the rest bound taken.
    fn finish(
        path: &Path,
        mut scene: Scene,
        imported: io::Imported,
        applied: io::Applied,
        clip: Option<&str>,
        background: Option<Vec4>,
    ) -> Result<LoadedModel, String> {
        clip::select(path, &imported.animations, clip)?;
        if let Some(bg) = background {
            scene.set_background(bg).map_err(|e| e.to_string())?;
        }
        // The shape at rest, before controllers posed it (`Imported::rest_box`).
        let rest_bound = match &imported.rest_box {
            Some(b) => *b,
            None => framing::geometry_box(&scene).map_err(|e| e.to_string())?,
        };
        Ok(LoadedModel {
            scene,
            imported,
            applied,
            rest_bound,
            last_camera: None,
            scene_file: is_scene_file(path),
        })
    }

    /// Draws the frame at time `t` (seconds) into `renderer` (whose size is the image's):
    /// animations sampled and the scene updated at `t`, the camera chosen by `view`
    /// ([`choose_camera`]), instance trees re-instanced and the lights placed for that camera.
    ///
    /// # Errors
    /// A one-line message (time not finite, no valid camera, renderer failure).
    pub fn draw_at(
        &mut self,
        t: f32,
        view: &CameraArgs,
        renderer: &mut dyn Renderer,
    ) -> Result<SceneDrawStats, String> {
        if !t.is_finite() {
            return Err("time is not finite".to_owned());
        }
        let (width, height) = renderer.size();
        io::apply_animations(&mut self.scene, &self.imported.animations, t)
            .map_err(|e| e.to_string())?;
        self.scene.update(f64::from(t));
        let camera = choose_camera(
            &self.scene,
            &self.imported,
            view,
            &self.rest_bound,
            width,
            height,
        )?;
        // Instance trees follow the camera drawn from, not the one the file was loaded for.
        self.imported
            .reinstance(&mut self.scene, &camera)
            .map_err(|e| e.to_string())?;
        self.applied
            .place_lights(&mut self.scene, &self.imported, &camera)
            .map_err(|e| e.to_string())?;
        let stats = self
            .scene
            .draw(&camera, renderer)
            .map_err(|e| e.to_string());
        self.last_camera = Some(camera);
        stats
    }
}

/// The `plumb render` options that decide an image, as data. Absent fields are the
/// command's defaults.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelView {
    /// `--size`: width and height.
    pub size: [u32; 2],
    /// `--time`, seconds.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub time: f32,
    /// `--clip`: the one animation to play (name or index).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clip: Option<String>,
    /// `--scene`: the glTF scene (name or index).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scene: Option<String>,
    /// `--unlit`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub unlit: bool,
    /// `--shading` (`pbr`, the default, or `classic`).
    #[serde(default, skip_serializing_if = "is_pbr")]
    pub shading: ShadingMode,
    /// `--environment` (PBR: `auto`, the default, `none`, `studio` or an `.hdr` file).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub environment: Option<String>,
    /// `--background`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub background: Option<[f32; 4]>,
    /// `--camera`: an imported camera by name or index.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub camera: Option<String>,
    /// `--eye`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub eye: Option<[f32; 3]>,
    /// `--target`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<[f32; 3]>,
    /// `--up`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub up: Option<[f32; 3]>,
    /// `--fov`, degrees.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fov: Option<f32>,
    /// `--near`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub near: Option<f32>,
    /// `--far`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub far: Option<f32>,
}

fn is_zero(t: &f32) -> bool {
    *t == 0.0
}

fn is_pbr(s: &ShadingMode) -> bool {
    *s == ShadingMode::Pbr
}

impl ModelView {
    /// The camera options.
    pub fn camera_args(&self) -> CameraArgs {
        CameraArgs {
            camera: self.camera.clone(),
            eye: self.eye.map(Vec3::from),
            target: self.target.map(Vec3::from),
            up: self.up.map(Vec3::from),
            fov: self.fov,
            near: self.near,
            far: self.far,
            ..CameraArgs::default()
        }
    }

    /// The same view as `plumb render` arguments (after the file and `-o OUT`).
    pub fn cli_args(&self) -> Vec<String> {
        let v3 = |v: [f32; 3]| format!("{},{},{}", v[0], v[1], v[2]);
        let mut a = vec![
            "--size".to_owned(),
            format!("{}x{}", self.size[0], self.size[1]),
        ];
        let mut opt = |flag: &str, value: Option<String>| {
            if let Some(v) = value {
                a.push(flag.to_owned());
                a.push(v);
            }
        };
        opt("--time", (self.time != 0.0).then(|| self.time.to_string()));
        opt("--clip", self.clip.clone());
        opt("--scene", self.scene.clone());
        opt(
            "--background",
            self.background
                .map(|c| format!("{},{},{},{}", c[0], c[1], c[2], c[3])),
        );
        opt("--camera", self.camera.clone());
        opt("--eye", self.eye.map(v3));
        opt("--target", self.target.map(v3));
        opt("--up", self.up.map(v3));
        opt("--fov", self.fov.map(|f| f.to_string()));
        opt("--near", self.near.map(|f| f.to_string()));
        opt("--far", self.far.map(|f| f.to_string()));
        if self.unlit {
            a.push("--unlit".to_owned());
        }
        // Always given: a backend's own `plumb` may be older, with another default.
        let shading = match self.shading {
            ShadingMode::Classic => "classic",
            ShadingMode::Pbr => "pbr",
        };
        a.extend(["--shading".to_owned(), shading.to_owned()]);
        if let Some(e) = &self.environment {
            a.extend(["--environment".to_owned(), e.clone()]);
        }
        a
    }

    /// Loads `path` and draws this view into `renderer` (sized `size`).
    ///
    /// # Errors
    /// A one-line message, as [`LoadedModel::load`] and [`LoadedModel::draw_at`].
    pub fn draw(&self, path: &Path, renderer: &mut dyn Renderer) -> Result<(), String> {
        let choice = match &self.environment {
            Some(e) => environment::EnvironmentChoice::parse(e)?,
            None => environment::EnvironmentChoice::Auto,
        };
        let mapping = Mapping {
            unlit: self.unlit,
            shading: self.shading.into(),
            environment: choice.replaces_rig(),
        };
        let mut model = LoadedModel::load(
            path,
            mapping,
            (self.scene.as_deref(), None),
            self.clip.as_deref(),
            self.background.map(Vec4::from),
            &WorkBudget::default(),
        )?;
        model.set_environment(mapping.shading, &choice, 1.0)?;
        model.draw_at(self.time, &self.camera_args(), renderer)?;
        Ok(())
    }
}
