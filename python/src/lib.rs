//! `plumb._plumb`: the native half of the `plumb` Python package. It renders through the
//! same library calls as `plumb render` (so the bytes are the CLI's), releases the GIL while
//! it works, and turns every error into a `plumb.PlumbError` subclass carrying the CLI's
//! one-line message. Images cross as `bytearray`s (RGBA8 rows, or little-endian `f32`
//! depth); `plumb/__init__.py` wraps them as NumPy arrays without copying.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

use glam::{Vec3, Vec4};
use image::RgbaImage;
use plumb::diff::{compare, DiffOptions};
use plumb::model::arrays::{ArrayScene, MeshArrays};
use plumb::model::camera::{CameraArgs, PoseConvention};
use plumb::model::depth::NormalSpace;
use plumb::model::environment::EnvironmentChoice;
use plumb::model::{
    pbr_output, ErrorKind, LoadedModel, LoopMode, Mapping, ModelError, OutputEncodingMode,
    ShadingMode, ToneMapMode,
};
use plumb::raster::pbr::PbrOutput;
use plumb::raster::target::MAX_TARGET_SIZE;
use plumb::raster::trace::{self, Trace};
use plumb::raster::{Context, ContextOptions};
use plumb::scene::SoftRenderer;
use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use pyo3::types::PyByteArray;

create_exception!(
    _plumb,
    PlumbError,
    PyException,
    "Any error of plumb: bad input, a limit, I/O."
);
create_exception!(
    _plumb,
    BadInputError,
    PlumbError,
    "Malformed or inconsistent input, or a bad argument."
);
create_exception!(
    _plumb,
    LimitError,
    PlumbError,
    "A documented limit or work budget was passed."
);
create_exception!(
    _plumb,
    PlumbIOError,
    PlumbError,
    "A file could not be read or written."
);

/// Largest image `render` makes unless told otherwise: 8192 × 8192 pixels (a 256 MiB RGBA
/// array; the renderer needs about 9 bytes a pixel besides).
const DEFAULT_MAX_PIXELS: u64 = 1 << 26;

fn err(kind: ErrorKind, message: impl Into<String>) -> PyErr {
    let m = message.into();
    match kind {
        ErrorKind::Io => PlumbIOError::new_err(m),
        ErrorKind::Limit => LimitError::new_err(m),
        _ => BadInputError::new_err(m),
    }
}

fn bad(message: impl Into<String>) -> PyErr {
    err(ErrorKind::BadInput, message)
}

impl From<Failure> for PyErr {
    fn from(f: Failure) -> PyErr {
        err(f.0.kind, f.0.message)
    }
}

/// A model error on its way to Python.
struct Failure(ModelError);

impl From<ModelError> for Failure {
    fn from(e: ModelError) -> Failure {
        Failure(e)
    }
}

impl From<String> for Failure {
    fn from(m: String) -> Failure {
        Failure(ModelError::bad_input(m))
    }
}

/// Runs `f` with the GIL released; a panic becomes a `PlumbError` (none should happen: the
/// library never panics on input, and this keeps that promise at the Python boundary).
fn detached<T: Send>(py: Python<'_>, f: impl FnOnce() -> Result<T, Failure> + Send) -> PyResult<T> {
    py.detach(move || catch_unwind(AssertUnwindSafe(f)))
        .map_err(|p| {
            let what = p
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| p.downcast_ref::<&str>().map(|s| (*s).to_owned()))
                .unwrap_or_default();
            PlumbError::new_err(format!("internal error (please report): {what}"))
        })?
        .map_err(PyErr::from)
}

/// Checks a size against the side limit and `max_pixels`.
/// Most pixels `Scene.render_views` renders in one call, all views together (by default):
/// 2^28, a 1 GiB RGBA result.
const DEFAULT_MAX_VIEW_PIXELS: u64 = 1 << 28;

fn check_size(width: u32, height: u32, max_pixels: u64) -> PyResult<()> {
    let max = MAX_TARGET_SIZE;
    if width == 0 || height == 0 || width > max || height > max {
        return Err(bad(format!(
            "size {width}x{height}: each side must be 1..={max}"
        )));
    }
    let pixels = u64::from(width) * u64::from(height);
    if pixels > max_pixels {
        return Err(err(
            ErrorKind::Limit,
            format!(
                "size {width}x{height} is {pixels} pixels, more than max_pixels={max_pixels} \
                 (pass a larger max_pixels, at most {}, to allow it)",
                u64::from(max) * u64::from(max)
            ),
        ));
    }
    Ok(())
}

/// The camera options, from Python values.
#[allow(clippy::too_many_arguments, reason = "the render options, one each")]
fn camera_args(
    camera: Option<String>,
    eye: Option<[f32; 3]>,
    target: Option<[f32; 3]>,
    up: Option<[f32; 3]>,
    fov: Option<f32>,
    near: Option<f32>,
    far: Option<f32>,
) -> PyResult<CameraArgs> {
    let finite3 = |name: &str, v: Option<[f32; 3]>| -> PyResult<Option<Vec3>> {
        match v {
            Some(a) if a.iter().all(|x| x.is_finite()) => Ok(Some(Vec3::from(a))),
            Some(a) => Err(bad(format!("{name} {a:?} is not finite"))),
            None => Ok(None),
        }
    };
    if let Some(f) = fov.filter(|f| !(f.is_finite() && *f > 0.0 && *f < 180.0)) {
        return Err(bad(format!("fov must be in (0, 180) degrees, got {f}")));
    }
    for (name, v) in [("near", near), ("far", far)] {
        if let Some(x) = v.filter(|x| !(x.is_finite() && *x > 0.0)) {
            return Err(bad(format!("{name} must be a positive number, got {x}")));
        }
    }
    Ok(CameraArgs {
        camera,
        eye: finite3("eye", eye)?,
        target: finite3("target", target)?,
        up: finite3("up", up)?,
        fov,
        near,
        far,
        ..CameraArgs::default()
    })
}

/// `view` with a calibrated camera's `pose` (16 numbers, row-major), its axes'
/// `pose_convention` and the `intrinsics` `[fx, fy, cx, cy]`, as `plumb render --pose
/// --pose-convention --intrinsics` take them.
fn calibrated(
    mut view: CameraArgs,
    pose: Option<Vec<f32>>,
    pose_convention: &str,
    intrinsics: Option<[f32; 4]>,
) -> PyResult<CameraArgs> {
    view.pose_convention = match pose_convention {
        "opengl" => PoseConvention::OpenGl,
        "opencv" => PoseConvention::OpenCv,
        other => {
            return Err(bad(format!(
                "pose_convention must be \"opengl\" or \"opencv\", got {other:?}"
            )))
        }
    };
    if let Some(p) = pose {
        if view.eye.is_some() || view.target.is_some() || view.up.is_some() {
            return Err(bad("pose replaces eye/target/up: give one or the other"));
        }
        let n = p.len();
        let m: [f32; 16] = p.try_into().map_err(|_| {
            bad(format!(
                "pose must be a 4x4 matrix (16 numbers), got {n} numbers"
            ))
        })?;
        if !m.iter().all(|x| x.is_finite()) {
            return Err(bad("pose is not finite"));
        }
        view.pose = Some(m);
    }
    if let Some(k) = intrinsics {
        if view.fov.is_some() {
            return Err(bad("intrinsics replace fov: give one or the other"));
        }
        if !(k.iter().all(|x| x.is_finite()) && k[0] > 0.0 && k[1] > 0.0) {
            return Err(bad(format!(
                "intrinsics must be finite with focal lengths > 0, got {k:?}"
            )));
        }
        view.intrinsics = Some(k);
    }
    Ok(view)
}

/// The PBR options of `render`, `Scene.load` and `explain`: `shading` (`"classic"` or
/// `"pbr"`), `exposure`, `tone_map` (`"none"`, `"aces"`, `"pbr-neutral"`) and
/// `output_encoding` (`"srgb"`, `"linear"`), as `plumb render`'s flags.
fn parse_pbr(
    shading: &str,
    exposure: f32,
    tone_map: &str,
    output_encoding: &str,
) -> PyResult<(ShadingMode, PbrOutput)> {
    let shading = match shading {
        "classic" => ShadingMode::Classic,
        "pbr" => ShadingMode::Pbr,
        other => {
            return Err(bad(format!(
                "shading must be 'classic' or 'pbr', got '{other}'"
            )))
        }
    };
    if !exposure.is_finite() {
        return Err(bad(format!("exposure must be finite, got {exposure}")));
    }
    let tone = match tone_map {
        "none" => ToneMapMode::None,
        "aces" => ToneMapMode::Aces,
        "pbr-neutral" => ToneMapMode::PbrNeutral,
        other => {
            return Err(bad(format!(
                "tone_map must be 'none', 'aces' or 'pbr-neutral', got '{other}'"
            )))
        }
    };
    let encoding = match output_encoding {
        "srgb" => OutputEncodingMode::Srgb,
        "linear" => OutputEncodingMode::Linear,
        other => {
            return Err(bad(format!(
                "output_encoding must be 'srgb' or 'linear', got '{other}'"
            )))
        }
    };
    Ok((shading, pbr_output(exposure, tone, encoding)))
}

/// `environment` (`"auto"`, `"none"`, `"studio"` or an `.hdr` path) and its intensity.
fn parse_environment(environment: &str, intensity: f32) -> PyResult<(EnvironmentChoice, f32)> {
    let choice =
        EnvironmentChoice::parse(environment).map_err(|e| bad(format!("environment: {e}")))?;
    if !(intensity.is_finite() && intensity >= 0.0) {
        return Err(bad(format!(
            "environment_intensity must be finite and not negative, got {intensity}"
        )));
    }
    Ok((choice, intensity))
}

fn parse_loop(s: &str) -> PyResult<LoopMode> {
    match s {
        "clamp" => Ok(LoopMode::Clamp),
        "repeat" => Ok(LoopMode::Repeat),
        other => Err(bad(format!(
            "loop must be 'clamp' or 'repeat', got '{other}'"
        ))),
    }
}

fn background(v: Option<Vec<f32>>) -> PyResult<Option<Vec4>> {
    match v.as_deref() {
        None => Ok(None),
        Some([r, g, b]) => Ok(Some(Vec4::new(*r, *g, *b, 1.0))),
        Some([r, g, b, a]) => Ok(Some(Vec4::new(*r, *g, *b, *a))),
        Some(other) => Err(bad(format!(
            "background must be 3 or 4 numbers in 0..=1, got {} numbers",
            other.len()
        ))),
    }
}

/// An RGBA image and, if asked for, its depth, id and normal planes (little-endian f32, u32
/// and 3 × f32 bytes).
struct Rendered {
    size: (u32, u32),
    rgba: Vec<u8>,
    depth: Option<Vec<u8>>,
    ids: Option<Vec<u8>>,
    normals: Option<Vec<u8>>,
}

impl Rendered {
    /// Appends `other`'s planes (a view of `render_views`) to these.
    fn extend(&mut self, other: Rendered) {
        self.rgba.extend_from_slice(&other.rgba);
        for (all, one) in [
            (&mut self.depth, other.depth),
            (&mut self.ids, other.ids),
            (&mut self.normals, other.normals),
        ] {
            if let (Some(all), Some(one)) = (all.as_mut(), one) {
                all.extend_from_slice(&one);
            }
        }
    }
}

/// What a render returns besides colour.
#[derive(Clone, Copy, Default)]
struct Outputs {
    depth: bool,
    /// Metric depth rather than window depth.
    metric: bool,
    ids: bool,
    normals: Option<NormalSpace>,
}

impl Outputs {
    fn new((depth, metric): (bool, bool), ids: bool, normals: Option<&str>) -> PyResult<Outputs> {
        let normals = normals.map(str::parse).transpose().map_err(bad)?;
        Ok(Outputs {
            depth,
            metric,
            ids,
            normals,
        })
    }

    fn planes(self) -> plumb::raster::Planes {
        plumb::raster::Planes {
            ids: self.ids,
            normals: self.normals.is_some(),
        }
    }
}

/// [`Rendered`] as Python sees it: `(width, height, rgba, depth, ids, normals)`, bytearrays.
type PyRendered = (
    u32,
    u32,
    Py<PyByteArray>,
    Option<Py<PyByteArray>>,
    Option<Py<PyByteArray>>,
    Option<Py<PyByteArray>>,
);

/// `plumb.diff`'s numbers: pixels over, max delta, PSNR, FLIP mean and max, heat map.
type PyDiff = (u64, u8, f64, f64, f32, Option<Py<PyByteArray>>);

/// `values` as little-endian bytes (`bytes` gives one value's): on a little-endian machine a
/// copy of their memory. (Collecting a `flat_map` pushed byte by byte and took 45 % of a
/// 640×480 frame with depth, ids and normals, perf.)
fn le_bytes<T: bytemuck::Pod, const N: usize>(
    values: &[T],
    bytes: impl Fn(T) -> [u8; N],
) -> Vec<u8> {
    if cfg!(target_endian = "little") {
        return bytemuck::cast_slice(values).to_vec();
    }
    let mut out = vec![0; N * values.len()];
    for (o, &v) in out.chunks_exact_mut(N).zip(values) {
        o.copy_from_slice(&bytes(v));
    }
    out
}

fn depth_bytes(depth: &[f32]) -> Vec<u8> {
    le_bytes(depth, f32::to_le_bytes)
}

fn into_py(py: Python<'_>, r: Rendered) -> PyRendered {
    let b = |d: Option<Vec<u8>>| d.map(|d| PyByteArray::new(py, &d).unbind());
    let (w, h) = r.size;
    let rgba = PyByteArray::new(py, &r.rgba).unbind();
    (w, h, rgba, b(r.depth), b(r.ids), b(r.normals))
}

/// The load options `render`, `Scene.load` and `explain` share.
struct Load {
    unlit: bool,
    /// `shading`, with `exposure`, `tone_map` and `output_encoding` for PBR.
    shading: ShadingMode,
    output: PbrOutput,
    /// `environment` and `environment_intensity` (PBR).
    environment: (EnvironmentChoice, f32),
    scene: Option<String>,
    variant: Option<String>,
    clip: Option<String>,
    background: Option<Vec4>,
}

impl Load {
    /// Loads `path` as `plumb render` does (the default work budget).
    fn model(&self, path: &Path) -> Result<LoadedModel, Failure> {
        let (environment, intensity) = &self.environment;
        let mapping = Mapping {
            unlit: self.unlit,
            shading: self.shading.into(),
            environment: environment.replaces_rig(),
        };
        let mut model = LoadedModel::load_typed(
            path,
            mapping,
            (self.scene.as_deref(), self.variant.as_deref()),
            self.clip.as_deref(),
            self.background,
            &plumb::scene::io::WorkBudget::default(),
        )?;
        model
            .scene
            .set_pbr_output(self.output)
            .map_err(|e| Failure::from(e.to_string()))?;
        model
            .set_environment(mapping.shading, environment, *intensity)
            .map_err(Failure::from)?;
        Ok(model)
    }
}

/// Reads a draw trace and checks a requested size against its recorded one.
fn load_trace(path: &Path, size: Option<(u32, u32)>) -> Result<Trace, Failure> {
    let trace = Trace::load(path).map_err(|e| {
        let kind = if matches!(e, plumb::raster::Error::Trace(ref m) if m.contains("cannot read")) {
            ErrorKind::Io
        } else {
            ErrorKind::BadInput
        };
        Failure(ModelError {
            kind,
            message: e.to_string(),
        })
    })?;
    let (w, h) = trace.size();
    if let Some((sw, sh)) = size.filter(|s| *s != (w, h)) {
        return Err(
            format!("size {sw}x{sh}: a draw trace renders at its recorded size {w}x{h}").into(),
        );
    }
    Ok(trace)
}

/// A draw trace played back at its recorded size.
fn render_trace(
    path: &Path,
    size: Option<(u32, u32)>,
    threads: Option<usize>,
    depth: bool,
) -> Result<Rendered, Failure> {
    let trace = load_trace(path, size)?;
    let (w, h) = trace.size();
    let mut ctx = Context::new(w, h, ContextOptions { threads }).map_err(|e| e.to_string())?;
    trace.replay(&mut ctx).map_err(|e| e.to_string())?;
    let rgba = ctx.color_image().into_raw();
    let d = depth.then(|| depth_bytes(&ctx.target().depth_values()));
    Ok(Rendered {
        size: (w, h),
        rgba,
        depth: d,
        ids: None,
        normals: None,
    })
}

/// One frame of a loaded model, as `plumb render` draws it, with a new renderer.
fn render_model(
    model: &mut LoadedModel,
    (w, h): (u32, u32),
    time: f32,
    mode: LoopMode,
    view: &CameraArgs,
    threads: Option<usize>,
    out: Outputs,
) -> Result<Rendered, Failure> {
    let mut renderer = SoftRenderer::new(w, h, threads).map_err(|e| e.to_string())?;
    renderer.context().enable_planes(out.planes());
    render_with(model, &mut renderer, time, mode, view, out)
}

/// One frame of a loaded model drawn by `renderer` (whose planes `out` asks for).
fn render_with(
    model: &mut LoadedModel,
    renderer: &mut SoftRenderer,
    time: f32,
    mode: LoopMode,
    view: &CameraArgs,
    out: Outputs,
) -> Result<Rendered, Failure> {
    model.set_loop(mode);
    model.draw_at(time, view, renderer)?;
    let rgba = renderer.image().into_raw();
    let camera = model.last_camera.as_ref();
    let depth = match (out.depth, camera) {
        (false, _) => None,
        (true, Some(camera)) if out.metric => Some(depth_bytes(
            &plumb::model::depth::metric_depth(&renderer.depth(), camera),
        )),
        (true, _) => Some(depth_bytes(&renderer.depth())),
    };
    let target = renderer.context().target();
    let size = (target.width(), target.height());
    let ids = out
        .ids
        .then(|| target.id_values())
        .flatten()
        .map(|i| le_bytes(&i, u32::to_le_bytes));
    let normals = match (out.normals, target.normal_values(), camera) {
        (Some(space), Some(n), Some(camera)) => {
            let n = plumb::model::depth::normals_in(n, camera, space);
            Some(le_bytes(n.as_flattened(), f32::to_le_bytes))
        }
        (Some(_), _, _) => return Err("normals: the frame has no camera".to_owned().into()),
        _ => None,
    };
    Ok(Rendered {
        size,
        rgba,
        depth,
        ids,
        normals,
    })
}

/// `plumb.render`: see `plumb/__init__.py`.
#[pyfunction]
#[pyo3(signature = (path, size=None, *, camera=None, eye=None, target=None, up=None, fov=None,
    near=None, far=None, pose=None, pose_convention="opengl", intrinsics=None, time=0.0, clip=None, scene=None, variant=None, unlit=false,
    background=None, threads=None, depth=false, metric_depth=false, ids=false, normals=None,
    loop_mode="clamp", max_pixels=DEFAULT_MAX_PIXELS, shading="pbr", exposure=1.0,
    tone_map="none", output_encoding="srgb", environment="auto", environment_intensity=1.0))]
#[allow(
    clippy::too_many_arguments,
    reason = "Python keyword arguments, one per render option"
)]
fn render(
    py: Python<'_>,
    path: PathBuf,
    size: Option<(u32, u32)>,
    camera: Option<String>,
    eye: Option<[f32; 3]>,
    target: Option<[f32; 3]>,
    up: Option<[f32; 3]>,
    fov: Option<f32>,
    near: Option<f32>,
    far: Option<f32>,
    pose: Option<Vec<f32>>,
    pose_convention: &str,
    intrinsics: Option<[f32; 4]>,
    time: f32,
    clip: Option<String>,
    scene: Option<String>,
    variant: Option<String>,
    unlit: bool,
    background: Option<Vec<f32>>,
    threads: Option<usize>,
    depth: bool,
    metric_depth: bool,
    ids: bool,
    normals: Option<&str>,
    loop_mode: &str,
    max_pixels: u64,
    shading: &str,
    exposure: f32,
    tone_map: &str,
    output_encoding: &str,
    environment: &str,
    environment_intensity: f32,
) -> PyResult<PyRendered> {
    let out = Outputs::new((depth, metric_depth), ids, normals)?;
    let (shading, output) = parse_pbr(shading, exposure, tone_map, output_encoding)?;
    let environment = parse_environment(environment, environment_intensity)?;
    if let Some((w, h)) = size {
        check_size(w, h, max_pixels)?;
    }
    if !time.is_finite() {
        return Err(bad(format!("time must be finite, got {time}")));
    }
    if trace::is_trace_file(&path) {
        let scene_only = [
            (
                camera.is_some() || eye.is_some() || target.is_some() || up.is_some(),
                "camera",
            ),
            (
                fov.is_some() || near.is_some() || far.is_some(),
                "fov/near/far",
            ),
            (pose.is_some() || intrinsics.is_some(), "pose/intrinsics"),
            (metric_depth, "metric depth (a trace has no camera)"),
            (ids, "ids (a trace records no object ids)"),
            (normals.is_some(), "normals (a trace has no camera)"),
            (time != 0.0, "time"),
            (
                clip.is_some() || scene.is_some() || variant.is_some(),
                "clip/scene/variant",
            ),
            (unlit || background.is_some(), "unlit/background"),
            (
                shading != ShadingMode::Pbr
                    || output != PbrOutput::default()
                    || environment != (EnvironmentChoice::Auto, 1.0),
                "shading/exposure/tone_map/output_encoding/environment",
            ),
        ];
        if let Some((_, name)) = scene_only.iter().find(|(given, _)| *given) {
            return Err(bad(format!(
                "{name} does not apply to a draw trace (it is played back as recorded)"
            )));
        }
        let r = detached(py, || render_trace(&path, size, threads, depth))?;
        return Ok(into_py(py, r));
    }
    let view = calibrated(
        camera_args(camera, eye, target, up, fov, near, far)?,
        pose,
        pose_convention,
        intrinsics,
    )?;
    let mode = parse_loop(loop_mode)?;
    let load = Load {
        unlit,
        shading,
        output,
        environment: environment.clone(),
        scene,
        variant,
        clip,
        background: self::background(background)?,
    };
    let (w, h) = size.unwrap_or((800, 600));
    check_size(w, h, max_pixels)?;
    let r = detached(py, || {
        let mut model = load.model(&path)?;
        render_model(&mut model, (w, h), time, mode, &view, threads, out)
    })?;
    Ok(into_py(py, r))
}

/// A loaded scene or model, kept for repeated renders (`plumb.Scene`); or a scene built in
/// code from arrays (`built`), rebuilt for drawing when it changed (`stale`).
#[pyclass(module = "plumb._plumb")]
struct Scene {
    model: LoadedModel,
    path: PathBuf,
    built: Option<ArrayScene>,
    stale: bool,
    /// The renderer of the last render (its size and thread count), kept for the next one:
    /// its context, worker pool and planes are made once, not per frame.
    renderer: Option<Cached>,
}

/// A renderer made for `size` and `threads`.
struct Cached {
    size: (u32, u32),
    threads: Option<usize>,
    renderer: SoftRenderer,
}

/// The renderer in `slot` if it was made for `size` and `threads`, else a new one put there;
/// keeping the planes `out` asks for.
fn cached_renderer(
    slot: &mut Option<Cached>,
    size: (u32, u32),
    threads: Option<usize>,
    out: Outputs,
) -> Result<&mut SoftRenderer, Failure> {
    if !slot
        .as_ref()
        .is_some_and(|c| c.size == size && c.threads == threads)
    {
        *slot = None;
        let renderer = SoftRenderer::new(size.0, size.1, threads).map_err(|e| e.to_string())?;
        *slot = Some(Cached {
            size,
            threads,
            renderer,
        });
    }
    let cached = slot
        .as_mut()
        .ok_or_else(|| Failure::from("no renderer".to_owned()))?;
    cached.renderer.context().enable_planes(out.planes());
    Ok(&mut cached.renderer)
}

/// Rows of `N` little-endian float32 values from `bytes` (what the Python side's
/// `np.ascontiguousarray(a, "<f4").tobytes()` gives).
fn f32_rows<const N: usize>(bytes: &[u8], what: &str) -> PyResult<Vec<[f32; N]>> {
    if !bytes.len().is_multiple_of(4 * N) {
        return Err(bad(format!(
            "{what}: {} bytes are not rows of {N} float32 values",
            bytes.len()
        )));
    }
    Ok(bytes
        .chunks_exact(4 * N)
        .map(|row| {
            std::array::from_fn(|i| {
                f32::from_le_bytes(row[4 * i..4 * i + 4].try_into().unwrap_or([0; 4]))
            })
        })
        .collect())
}

/// Index triples from little-endian uint32 `bytes`.
fn u32_triples(bytes: &[u8]) -> PyResult<Vec<[u32; 3]>> {
    if !bytes.len().is_multiple_of(12) {
        return Err(bad(format!(
            "triangles: {} bytes are not rows of 3 uint32 values",
            bytes.len()
        )));
    }
    Ok(bytes
        .chunks_exact(12)
        .map(|row| {
            std::array::from_fn(|i| {
                u32::from_le_bytes(row[4 * i..4 * i + 4].try_into().unwrap_or([0; 4]))
            })
        })
        .collect())
}

fn pose16(pose: Vec<f32>) -> PyResult<[f32; 16]> {
    let n = pose.len();
    pose.try_into().map_err(|_| {
        bad(format!(
            "pose must be a 4x4 matrix (16 numbers), got {n} numbers"
        ))
    })
}

impl Scene {
    /// The scene built in code, marked changed; an error for a loaded one.
    fn built_mut(&mut self) -> PyResult<&mut ArrayScene> {
        self.stale = true;
        self.built
            .as_mut()
            .ok_or_else(|| bad("a loaded scene cannot be edited: build one with plumb.Scene()"))
    }

    /// Rebuilds a changed built scene for drawing.
    fn refresh(&mut self) -> PyResult<()> {
        if let (true, Some(b)) = (self.stale, &self.built) {
            self.model = b.to_model(None).map_err(|e| err(e.kind, e.message))?;
            self.stale = false;
        }
        Ok(())
    }
}

#[pymethods]
impl Scene {
    /// An empty scene, built in code (`plumb.Scene()`).
    #[staticmethod]
    fn new() -> PyResult<Scene> {
        let built = ArrayScene::new();
        let model = built.to_model(None).map_err(|e| err(e.kind, e.message))?;
        Ok(Scene {
            model,
            path: PathBuf::from("<arrays>"),
            built: Some(built),
            stale: false,
            renderer: None,
        })
    }

    /// Adds a mesh from float32 / uint32 rows (see `plumb.Scene.add_mesh`); returns its name.
    #[pyo3(signature = (positions, triangles=None, normals=None, colors=None, uvs=None, *,
        color=None, pose=None, name=None, object_id=None))]
    #[allow(
        clippy::too_many_arguments,
        reason = "Python keyword arguments, one per array or option"
    )]
    fn add_mesh(
        &mut self,
        positions: &[u8],
        triangles: Option<&[u8]>,
        normals: Option<&[u8]>,
        colors: Option<&[u8]>,
        uvs: Option<&[u8]>,
        color: Option<[f32; 4]>,
        pose: Option<Vec<f32>>,
        name: Option<String>,
        object_id: Option<u32>,
    ) -> PyResult<String> {
        let mesh = MeshArrays {
            positions: f32_rows(positions, "positions")?,
            triangles: triangles.map(u32_triples).transpose()?,
            normals: normals.map(|b| f32_rows(b, "normals")).transpose()?,
            colors: colors.map(|b| f32_rows(b, "colors")).transpose()?,
            uvs: uvs.map(|b| f32_rows(b, "uvs")).transpose()?,
        };
        let pose = pose.map(pose16).transpose()?;
        self.built_mut()?
            .add_mesh(mesh, pose.as_ref(), (color, object_id), name)
            .map_err(bad)
    }

    /// Adds a glTF/GLB/OBJ file as one node (see `plumb.Scene.add_file`); returns its name.
    #[pyo3(signature = (path, *, pose=None, name=None, object_id=None))]
    fn add_file(
        &mut self,
        path: PathBuf,
        pose: Option<Vec<f32>>,
        name: Option<String>,
        object_id: Option<u32>,
    ) -> PyResult<String> {
        let pose = pose.map(pose16).transpose()?;
        let name = self
            .built_mut()?
            .add_file(&path, pose.as_ref(), object_id, name)
            .map_err(bad)?;
        // Loaded now, so that a broken file is this call's error, not the next render's.
        if let Err(e) = self.refresh() {
            if let Some(b) = self.built.as_mut() {
                let _ = b.remove(&name);
            }
            return Err(e);
        }
        Ok(name)
    }

    /// Writes the built scene as the scene file `path` (added files named relative to it).
    fn save(&self, path: PathBuf) -> PyResult<()> {
        match &self.built {
            Some(b) => b.save(&path).map_err(bad),
            None => Err(bad("a loaded scene has no document: it is its file")),
        }
    }

    /// The object id mesh `name` writes to the id plane.
    fn object_id(&self, name: &str) -> PyResult<u32> {
        match &self.built {
            Some(b) => b.object_id(name).map_err(bad),
            None => Err(bad("object_id(name) is for meshes added to a built scene")),
        }
    }

    /// Adds a light (see `plumb.Scene.add_light`); returns its name.
    #[pyo3(signature = (kind, *, color=[1.0, 1.0, 1.0], intensity=1.0, position=None,
        direction=None, name=None))]
    fn add_light(
        &mut self,
        kind: &str,
        color: [f32; 3],
        intensity: f32,
        position: Option<[f32; 3]>,
        direction: Option<[f32; 3]>,
        name: Option<String>,
    ) -> PyResult<String> {
        self.built_mut()?
            .add_light(kind, color, intensity, position, direction, name)
            .map_err(bad)
    }

    /// Moves mesh `name` to `pose` (16 numbers, row-major).
    fn set_pose(&mut self, name: &str, pose: Vec<f32>) -> PyResult<()> {
        let pose = pose16(pose)?;
        self.built_mut()?.set_pose(name, &pose).map_err(bad)
    }

    /// Removes the mesh or light `name`.
    fn remove(&mut self, name: &str) -> PyResult<()> {
        self.built_mut()?.remove(name).map_err(bad)
    }

    /// Sets the clear colour.
    fn set_background(&mut self, rgba: [f32; 4]) -> PyResult<()> {
        self.built_mut()?.set_background(rgba).map_err(bad)
    }

    /// Renders the scene from `poses` (N camera-to-world matrices, 16 numbers each,
    /// row-major, flattened) into one buffer of N images (see `plumb.Scene.render_views`):
    /// `(n, width, height, rgba, depth)`. One scene, one load; the GIL is released.
    #[pyo3(signature = (size, poses, *, pose_convention="opengl", intrinsics=None, fov=None,
        near=None, far=None, time=0.0, threads=None, depth=false, metric_depth=false, ids=false,
        normals=None, max_pixels=DEFAULT_MAX_PIXELS, max_total_pixels=DEFAULT_MAX_VIEW_PIXELS))]
    #[allow(
        clippy::too_many_arguments,
        reason = "Python keyword arguments, one per render option"
    )]
    fn render_views(
        &mut self,
        py: Python<'_>,
        size: (u32, u32),
        poses: Vec<f32>,
        pose_convention: &str,
        intrinsics: Option<[f32; 4]>,
        fov: Option<f32>,
        near: Option<f32>,
        far: Option<f32>,
        time: f32,
        threads: Option<usize>,
        depth: bool,
        metric_depth: bool,
        ids: bool,
        normals: Option<&str>,
        max_pixels: u64,
        max_total_pixels: u64,
    ) -> PyResult<(usize, PyRendered)> {
        let out = Outputs::new((depth, metric_depth), ids, normals)?;
        check_size(size.0, size.1, max_pixels)?;
        if !time.is_finite() {
            return Err(bad(format!("time must be finite, got {time}")));
        }
        if poses.is_empty() || !poses.len().is_multiple_of(16) {
            return Err(bad(format!(
                "poses must be N 4x4 matrices (N x 16 numbers, N >= 1), got {} numbers",
                poses.len()
            )));
        }
        let n = poses.len() / 16;
        let total = n as u64 * u64::from(size.0) * u64::from(size.1);
        if total > max_total_pixels {
            return Err(err(
                ErrorKind::Limit,
                format!(
                    "{n} views of {}x{} are {total} pixels, more than max_total_pixels={max_total_pixels}",
                    size.0, size.1
                ),
            ));
        }
        let views = poses
            .chunks_exact(16)
            .map(|p| {
                calibrated(
                    camera_args(None, None, None, None, fov, near, far)?,
                    Some(p.to_vec()),
                    pose_convention,
                    intrinsics,
                )
            })
            .collect::<PyResult<Vec<CameraArgs>>>()?;
        self.refresh()?;
        let Scene {
            model, renderer, ..
        } = self;
        // One renderer for every view (and kept for the next call).
        let all = detached(py, || {
            let renderer = cached_renderer(renderer, size, threads, out)?;
            let mut all: Option<Rendered> = None;
            for view in &views {
                let r = render_with(model, renderer, time, LoopMode::Clamp, view, out)?;
                match all.as_mut() {
                    Some(all) => all.extend(r),
                    None => all = Some(r),
                }
            }
            all.ok_or_else(|| Failure::from("no views".to_owned()))
        })?;
        Ok((n, into_py(py, all)))
    }

    /// The built scene as a scene file's text.
    fn to_json(&self) -> PyResult<String> {
        match &self.built {
            Some(b) => Ok(b.to_json()),
            None => Err(bad("a loaded scene has no document: it is its file")),
        }
    }

    /// Loads `path` as `plumb render` does.
    #[staticmethod]
    #[pyo3(signature = (path, *, unlit=false, scene=None, variant=None, clip=None, background=None,
        shading="pbr", exposure=1.0, tone_map="none", output_encoding="srgb", environment="auto", environment_intensity=1.0))]
    #[allow(
        clippy::too_many_arguments,
        reason = "Python keyword arguments, one per load option"
    )]
    fn load(
        py: Python<'_>,
        path: PathBuf,
        unlit: bool,
        scene: Option<String>,
        variant: Option<String>,
        clip: Option<String>,
        background: Option<Vec<f32>>,
        shading: &str,
        exposure: f32,
        tone_map: &str,
        output_encoding: &str,
        environment: &str,
        environment_intensity: f32,
    ) -> PyResult<Scene> {
        let (shading, output) = parse_pbr(shading, exposure, tone_map, output_encoding)?;
        let environment = parse_environment(environment, environment_intensity)?;
        if trace::is_trace_file(&path) {
            return Err(bad(format!(
                "{}: a draw trace is not a scene: use plumb.render for it",
                path.display()
            )));
        }
        let load = Load {
            unlit,
            shading,
            output,
            environment: environment.clone(),
            scene,
            variant,
            clip,
            background: self::background(background)?,
        };
        let model = detached(py, || load.model(&path))?;
        Ok(Scene {
            model,
            path,
            built: None,
            stale: false,
            renderer: None,
        })
    }

    /// Renders one frame; see `plumb.Scene.render`.
    #[pyo3(signature = (size, *, camera=None, eye=None, target=None, up=None, fov=None,
        near=None, far=None, pose=None, pose_convention="opengl", intrinsics=None, time=0.0, threads=None, depth=false, metric_depth=false, ids=false, normals=None,
        loop_mode="clamp", max_pixels=DEFAULT_MAX_PIXELS, frame=None, fps=24.0))]
    #[allow(
        clippy::too_many_arguments,
        reason = "Python keyword arguments, one per render option"
    )]
    fn render(
        &mut self,
        py: Python<'_>,
        size: (u32, u32),
        camera: Option<String>,
        eye: Option<[f32; 3]>,
        target: Option<[f32; 3]>,
        up: Option<[f32; 3]>,
        fov: Option<f32>,
        near: Option<f32>,
        far: Option<f32>,
        pose: Option<Vec<f32>>,
        pose_convention: &str,
        intrinsics: Option<[f32; 4]>,
        time: f32,
        threads: Option<usize>,
        depth: bool,
        metric_depth: bool,
        ids: bool,
        normals: Option<&str>,
        loop_mode: &str,
        max_pixels: u64,
        frame: Option<u32>,
        fps: f32,
    ) -> PyResult<PyRendered> {
        let out = Outputs::new((depth, metric_depth), ids, normals)?;
        check_size(size.0, size.1, max_pixels)?;
        let time = frame_time(time, frame, fps)?;
        let view = calibrated(
            camera_args(camera, eye, target, up, fov, near, far)?,
            pose,
            pose_convention,
            intrinsics,
        )?;
        let mode = parse_loop(loop_mode)?;
        self.refresh()?;
        let Scene {
            model, renderer, ..
        } = self;
        let r = detached(py, || {
            let renderer = cached_renderer(renderer, size, threads, out)?;
            render_with(model, renderer, time, mode, &view, out)
        })?;
        Ok(into_py(py, r))
    }

    /// The file it was loaded from.
    #[getter]
    fn path(&self) -> PathBuf {
        self.path.clone()
    }

    /// The glTF animations: `(name, duration in seconds)` each.
    #[getter]
    fn clips(&self) -> Vec<(String, f32)> {
        self.model
            .imported
            .animations
            .iter()
            .map(|a| (a.name.clone(), a.duration()))
            .collect()
    }
}

fn image_of(bytes: &[u8], w: u32, h: u32, what: &str) -> PyResult<RgbaImage> {
    RgbaImage::from_raw(w, h, bytes.to_vec()).ok_or_else(|| {
        bad(format!(
            "{what}: {} bytes is not {w}x{h} RGBA8",
            bytes.len()
        ))
    })
}

/// `plumb.diff`: the metrics of `plumb diff` and, if asked, the heat map.
#[pyfunction]
#[pyo3(signature = (a, a_size, b, b_size, *, threshold=0, pixels_per_degree=DiffOptions::DEFAULT_PPD, heat=false))]
#[allow(
    clippy::too_many_arguments,
    reason = "two images with their sizes, and the options"
)]
fn diff(
    py: Python<'_>,
    a: Vec<u8>,
    a_size: (u32, u32),
    b: Vec<u8>,
    b_size: (u32, u32),
    threshold: u8,
    pixels_per_degree: f32,
    heat: bool,
) -> PyResult<PyDiff> {
    let (ia, ib) = (
        image_of(&a, a_size.0, a_size.1, "a")?,
        image_of(&b, b_size.0, b_size.1, "b")?,
    );
    let options = DiffOptions {
        threshold,
        pixels_per_degree,
    };
    let d = detached(py, move || {
        compare(&ia, &ib, &options).map_err(|e| Failure::from(e.to_string()))
    })?;
    let r = &d.report;
    let heat = heat.then(|| PyByteArray::new(py, d.heat_map().as_raw()).unbind());
    Ok((
        r.pixels_over,
        r.max_delta,
        r.psnr,
        r.perceptual_mean,
        r.perceptual_max,
        heat,
    ))
}

/// Reads a PNG as RGBA8: `(width, height, bytes)`.
#[pyfunction]
fn read_png(py: Python<'_>, path: PathBuf) -> PyResult<(u32, u32, Py<PyByteArray>)> {
    let img = detached(py, || {
        let img = image::open(&path).map_err(|e| {
            let kind = match e {
                image::ImageError::IoError(_) => ErrorKind::Io,
                _ => ErrorKind::BadInput,
            };
            Failure(ModelError {
                kind,
                message: format!("{}: {e}", path.display()),
            })
        })?;
        Ok(img.to_rgba8())
    })?;
    Ok((
        img.width(),
        img.height(),
        PyByteArray::new(py, img.as_raw()).unbind(),
    ))
}

/// Writes RGBA8 bytes as a PNG, with the encoder `plumb render` uses.
#[pyfunction]
fn write_png(py: Python<'_>, path: PathBuf, bytes: Vec<u8>, size: (u32, u32)) -> PyResult<()> {
    let img = image_of(&bytes, size.0, size.1, "image")?;
    detached(py, move || {
        img.save(&path).map_err(|e| {
            Failure(ModelError {
                kind: ErrorKind::Io,
                message: format!("{}: {e}", path.display()),
            })
        })
    })
}

/// `plumb.explain`: the pixel history as `plumb explain --json` prints it, within the same
/// fragment budget (`max_fragments`, the CLI's `--max-fragments` and its default).
#[pyfunction]
#[pyo3(signature = (path, x, y, size=None, *, camera=None, eye=None, target=None, up=None,
    fov=None, near=None, far=None, pose=None, pose_convention="opengl", intrinsics=None,
    time=0.0, clip=None, scene=None, variant=None, unlit=false,
    background=None, loop_mode="clamp", max_fragments=plumb::explain::DEFAULT_MAX_FRAGMENTS,
    shading="pbr", exposure=1.0, tone_map="none", output_encoding="srgb", environment="auto", environment_intensity=1.0))]
#[allow(
    clippy::too_many_arguments,
    reason = "Python keyword arguments, one per render option"
)]
fn explain(
    py: Python<'_>,
    path: PathBuf,
    x: u32,
    y: u32,
    size: Option<(u32, u32)>,
    camera: Option<String>,
    eye: Option<[f32; 3]>,
    target: Option<[f32; 3]>,
    up: Option<[f32; 3]>,
    fov: Option<f32>,
    near: Option<f32>,
    far: Option<f32>,
    pose: Option<Vec<f32>>,
    pose_convention: &str,
    intrinsics: Option<[f32; 4]>,
    time: f32,
    clip: Option<String>,
    scene: Option<String>,
    variant: Option<String>,
    unlit: bool,
    background: Option<Vec<f32>>,
    loop_mode: &str,
    max_fragments: u64,
    shading: &str,
    exposure: f32,
    tone_map: &str,
    output_encoding: &str,
    environment: &str,
    environment_intensity: f32,
) -> PyResult<String> {
    let (shading, output) = parse_pbr(shading, exposure, tone_map, output_encoding)?;
    let environment = parse_environment(environment, environment_intensity)?;
    use plumb::explain::{explain_within as run, to_json_within, Input};
    let view = calibrated(
        camera_args(camera, eye, target, up, fov, near, far)?,
        pose,
        pose_convention,
        intrinsics,
    )?;
    let mode = parse_loop(loop_mode)?;
    let load = Load {
        unlit,
        shading,
        output,
        environment: environment.clone(),
        scene,
        variant,
        clip,
        background: self::background(background)?,
    };
    let history = detached(py, move || {
        if trace::is_trace_file(&path) {
            let trace = load_trace(&path, size)?;
            let (w, h) = trace.size();
            check_pixel(x, y, w, h)?;
            return Ok(run(
                Input::Trace(&trace),
                (w, h),
                (x, y),
                None,
                max_fragments,
            )?);
        }
        let (w, h) = size.unwrap_or((800, 600));
        check_pixel(x, y, w, h)?;
        let mut model = load.model(&path)?;
        model.set_loop(mode);
        let input = Input::Model {
            model: &mut model,
            time,
            view: &view,
        };
        Ok(run(input, (w, h), (x, y), None, max_fragments)?)
    })?;
    let (history, skipped) = history;
    Ok(to_json_within(&history, skipped.as_ref(), max_fragments).to_string())
}

/// The time of frame `frame` of a sequence at `fps` starting at `time`, in `f32` as `plumb
/// render --frames` computes it (`time + frame / fps`), or `time` itself.
fn frame_time(time: f32, frame: Option<u32>, fps: f32) -> PyResult<f32> {
    if !(fps.is_finite() && fps > 0.0) {
        return Err(bad(format!("fps must be a positive number, got {fps}")));
    }
    let t = match frame {
        Some(i) => time + i as f32 / fps,
        None => time,
    };
    if !t.is_finite() {
        return Err(bad(format!("time must be finite, got {t}")));
    }
    Ok(t)
}

fn check_pixel(x: u32, y: u32, w: u32, h: u32) -> Result<(), Failure> {
    if x >= w || y >= h {
        return Err(format!(
            "pixel ({x}, {y}) is outside the {w}x{h} image (x must be below {w}, y below {h})"
        )
        .into());
    }
    Ok(())
}

/// `plumb.conform`: plumb's own backend over a golden corpus, the report written to
/// `report`; returns `results.json`'s text.
#[pyfunction]
#[pyo3(signature = (refimages, report, *, filter=None, threads=None))]
fn conform(
    py: Python<'_>,
    refimages: PathBuf,
    report: PathBuf,
    filter: Option<String>,
    threads: Option<usize>,
) -> PyResult<String> {
    use plumb::conform::{corpus, report as rep, run_case, soft, Tolerances};
    detached(py, move || {
        // As `plumb conform`: the corpus's tolerance file, else exact equality (plumb's own
        // backend is held to exact equality either way).
        let file = refimages.join("conform.json");
        let tolerances = if file.is_file() {
            Tolerances::load(&file).map_err(|e| Failure::from(e.to_string()))?
        } else {
            Tolerances {
                format: "plumb-conform".to_owned(),
                version: 1,
                default: plumb::conform::Tolerance::exact(),
                rules: Vec::new(),
                needs: Vec::new(),
            }
        };
        let mut cases = corpus(&refimages, &tolerances).map_err(|e| e.to_string())?;
        if let Some(f) = &filter {
            cases.retain(|c| c.id.contains(f.as_str()));
        }
        if cases.is_empty() {
            return Err(format!("{}: no cases to run", refimages.display()).into());
        }
        let mut backend = soft(threads);
        let results: Vec<_> = cases.iter().map(|c| run_case(c, &mut backend)).collect();
        let name = plumb::conform::Backend::name(&backend);
        let written = rep::write(&report, &name, &results).map_err(|e| {
            Failure(ModelError {
                kind: ErrorKind::Io,
                message: e.to_string(),
            })
        })?;
        serde_json::to_string(&written).map_err(|e| Failure::from(e.to_string()))
    })
}

/// The native module.
#[pymodule]
fn _plumb(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("PlumbError", py.get_type::<PlumbError>())?;
    m.add("BadInputError", py.get_type::<BadInputError>())?;
    m.add("LimitError", py.get_type::<LimitError>())?;
    m.add("PlumbIOError", py.get_type::<PlumbIOError>())?;
    m.add("DEFAULT_MAX_PIXELS", DEFAULT_MAX_PIXELS)?;
    m.add("DEFAULT_MAX_VIEW_PIXELS", DEFAULT_MAX_VIEW_PIXELS)?;
    m.add("MAX_SIDE", MAX_TARGET_SIZE)?;
    m.add_function(wrap_pyfunction!(render, m)?)?;
    m.add_function(wrap_pyfunction!(diff, m)?)?;
    m.add_function(wrap_pyfunction!(read_png, m)?)?;
    m.add_function(wrap_pyfunction!(write_png, m)?)?;
    m.add_function(wrap_pyfunction!(explain, m)?)?;
    m.add_function(wrap_pyfunction!(conform, m)?)?;
    m.add_class::<Scene>()?;
    Ok(())
}
