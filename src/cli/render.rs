//! `plumb render`: draw a scene file (.gltf, .glb, .obj, and whatever else `io::load`
//! reads) or, without one, the built-in showcase, into a PNG.
//!
//! The scene path ([`plumb::model`], shared with the conformance kit's model cases):
//! [`io::load`](plumb::scene::io::load()), the library's one load path
//! (materials and lights mapped by [`io::apply`](plumb::scene::io::apply()), the default light
//! rig only when the file has no light; `--unlit` draws base colour × vertex colour × texture),
//! so a library user who loads the file and draws it from
//! [`default_camera`](plumb::scene::io::ImportedScene::default_camera) gets the same image →
//! per frame:
//! sample animations at the frame's time, choose the camera, place the lights, draw with the
//! soft renderer, write the PNG (and the depth PNG). See [`camera`](super::camera) for how the
//! camera is chosen and [`plumb::scene::io::framing`] for the framing rule.
//!
//! The `--max-*` flags set the work budget ([`plumb::model::budget`]): the load's totals
//! are charged as the file is built, each frame's clears before the frame is drawn.
//!
//! `--frames N --fps F` writes `OUT_0000.png` … at `t = time + i/F` (F defaults to 24), with a
//! progress bar on stderr only when stderr is a terminal; the files are encoded while the next
//! frames draw ([`frame_writer`](super::frame_writer)). `--clip` chooses the one glTF
//! animation to play (see [`clip`](super::clip) for the rule and for how clips combine
//! without it); `--loop repeat|clamp` what a clip does past its end
//! ([`LoadedModel::set_loop`]); `--scene` the glTF scene to draw (see
//! [`scene_select`](super::scene_select)).

use std::io::IsTerminal as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Args;
use glam::Vec4;
use plumb::model::environment::EnvironmentChoice;
use plumb::model::{
    pbr_output, LoadedModel, LoopMode, Mapping, OutputEncodingMode, ShadingMode, ToneMapMode,
};
use plumb::raster::trace::{self, Recorder, Trace};
use plumb::raster::{Context, ContextOptions};
use plumb::scene::{FixedRenderer, SoftRenderer};

use super::args::{parse_color, parse_finite, parse_positive, parse_size, parse_threads, Size};
use super::budget::BudgetArgs;
use super::camera::CameraArgs;
use super::frame_writer::{self, Image};
use super::{say, CliResult};

/// Largest accepted `--frames`.
pub const MAX_FRAMES: u32 = 100_000;
/// Frames per second when `--frames` is given without `--fps`.
pub const DEFAULT_FPS: f32 = 24.0;

/// Arguments of `plumb render`.
#[derive(Clone, Debug, Args)]
pub struct RenderArgs {
    /// Scene file (.gltf, .glb, .obj; any format the loader knows). Without it the built-in
    /// showcase is rendered.
    #[arg(value_name = "SCENE")]
    pub scene: Option<PathBuf>,
    /// Output PNG file.
    #[arg(
        short = 'o',
        long = "out",
        value_name = "OUT.png",
        default_value = "plumb.png"
    )]
    pub out: PathBuf,
    /// What the image is: size, camera, time, animation, scene and variant, budget.
    #[command(flatten)]
    pub image: ImageArgs,
    /// Worker threads (0 or absent: all cores). The image is identical for every count. With
    /// more than one, a sequence's PNG files are encoded on as many more (at most 8) while the
    /// next frames draw; with `--threads 1` each file is written after its frame.
    #[arg(long, value_name = "N", value_parser = parse_threads)]
    pub threads: Option<usize>,
    /// Also write the depth buffer: `DEPTH.png` as 16-bit grey window depth (0 = near,
    /// 65535 = far); `DEPTH.npy` as float32 metric depth, the distance along the camera's
    /// viewing axis in scene units (metres for glTF), 0 where nothing was drawn (scene files
    /// only: a draw trace has no camera).
    #[arg(long, value_name = "DEPTH.png|DEPTH.npy")]
    pub depth_out: Option<PathBuf>,
    /// Also write the object-id plane (segmentation): per pixel the id of the mesh node whose
    /// fragment wrote the depth there, 0 where nothing was drawn. `IDS.npy`: uint32
    /// (height, width); `IDS.png`: 16-bit grey (ids up to 65,535). Ids are the scene file's
    /// `object_id`s, else each geometry node's index + 1. Scene files only.
    #[arg(long, value_name = "IDS.npy|IDS.png")]
    pub ids_out: Option<PathBuf>,
    /// Also write the normal plane: `NORMALS.npy`: float32 (height, width, 3) unit normals
    /// of the surface the depth holds, 0 where nothing was drawn; `NORMALS.png`: (n + 1) / 2
    /// as RGB for looking at, transparent where nothing was drawn. Scene files only.
    #[arg(long, value_name = "NORMALS.npy|NORMALS.png")]
    pub normals_out: Option<PathBuf>,
    /// The frame `--normals-out` writes in: `camera` (x right, y up, z towards the viewer) or
    /// `world`.
    #[arg(long, value_name = "camera|world", default_value = "camera")]
    pub normals_space: plumb::model::depth::NormalSpace,
    /// Render a sequence of N frames: OUT_0000.png, OUT_0001.png, ...
    #[arg(long, value_name = "N", value_parser = parse_frames)]
    pub frames: Option<u32>,
    /// Render frames A to B of such a sequence, numbered and timed exactly as `--frames`
    /// numbers them (frame i is OUT_{i:04}.png at time + i/fps): `A..B` is A up to B
    /// excluded, `A..=B` includes B. For render farms and indexed jobs that hand out ranges.
    #[arg(long, value_name = "A..B", value_parser = parse_frame_range, conflicts_with = "frames")]
    pub frame_range: Option<std::ops::Range<u32>>,
    /// Frames per second of the sequence (default 24).
    #[arg(long, value_name = "F", value_parser = parse_positive)]
    pub fps: Option<f32>,
    /// Also record the frame's draw calls as a draw trace (`TRACE.json` + `TRACE.bin`):
    /// what the scene graph hands the rasteriser, replayable by `plumb render TRACE.json`
    /// (same bytes) or by another backend's `DrawTarget`. One frame only.
    #[arg(long, value_name = "TRACE.json", conflicts_with_all = ["frames", "frame_range"])]
    pub trace_out: Option<PathBuf>,
}

/// The options that decide what an image shows, shared by `plumb render` and
/// `plumb explain` (which answers for one pixel of the same image).
#[derive(Clone, Debug, Args)]
pub struct ImageArgs {
    /// Take the view from a model view file (`plumb::model::ModelView` JSON: size, time,
    /// clip, scene, camera and overrides, background, unlit), as `plumb conform --exec`
    /// passes it in `{view}` for model cases. An empty value means none (the other cases'
    /// `{view}`). The view's options must not be given as flags too; `--size`, if given, must
    /// be the view's.
    #[arg(long = "view", value_name = "VIEW.json", value_parser = clap::value_parser!(std::ffi::OsString))]
    pub view_file: Option<std::ffi::OsString>,
    /// Image size, each side 1..=16384 [default: 800x600; a draw trace: its recorded size].
    #[arg(long, value_name = "WxH", value_parser = parse_size)]
    pub size: Option<Size>,
    /// Camera choice and overrides.
    #[command(flatten)]
    pub view: CameraArgs,
    /// Animation time in seconds (of the first frame).
    #[arg(
        long,
        value_name = "SECONDS",
        default_value = "0",
        value_parser = parse_finite,
        allow_hyphen_values = true
    )]
    pub time: f32,
    /// Play only this glTF animation: by name, else by 0-based index (`plumb info` lists
    /// them). Default: every animation, the later one winning where two drive the same
    /// property.
    #[arg(long, value_name = "NAME|INDEX")]
    pub clip: Option<String>,
    /// What a clip does past its end: `clamp` holds its last pose (the default: `--time` is
    /// then the pose's own time, as `plumb info` lists durations); `repeat` plays it again
    /// from its start, as three.js does: each playing clip at the time modulo its own
    /// duration.
    #[arg(long = "loop", value_name = "MODE", value_enum, default_value_t = LoopMode::Clamp)]
    pub loop_mode: LoopMode,
    /// Draw this scene of a glTF file: by name, else by 0-based index (`plumb info` lists
    /// them). Default: the file's default scene.
    #[arg(long = "scene", value_name = "NAME|INDEX")]
    pub gltf_scene: Option<String>,
    /// Draw this `KHR_materials_variants` variant of a glTF file: by name, else by 0-based
    /// index (`plumb info` lists them). Default: each primitive's own material.
    #[arg(long, value_name = "NAME|INDEX")]
    pub variant: Option<String>,
    /// Draw without lighting: base colour × vertex colour × texture.
    #[arg(long)]
    pub unlit: bool,
    /// How lit materials are drawn: `pbr` (the default), glTF's metallic-roughness BRDF per
    /// pixel with the file's punctual lights and the environment (see the README);
    /// `classic`, the fixed-function approximation (Blinn–Phong colours, the book's bump
    /// map), which any GL 1.x driver can draw.
    #[arg(long, value_name = "MODE", value_enum)]
    pub shading: Option<ShadingMode>,
    /// PBR: multiplies the linear colour before the tone map.
    #[arg(long, value_name = "F", default_value = "1", value_parser = parse_finite)]
    pub exposure: f32,
    /// PBR: the tone map after exposure.
    #[arg(long = "tone-map", value_name = "MAP", value_enum, default_value_t = ToneMapMode::None)]
    pub tone_map: ToneMapMode,
    /// PBR: how the colour is written, `srgb` (what viewers expect) or `linear`.
    #[arg(long = "output-encoding", value_name = "ENC", value_enum, default_value_t = OutputEncodingMode::Srgb)]
    pub output_encoding: OutputEncodingMode,
    /// PBR: the image-based light. `auto` (default): a built-in studio for a file without
    /// lights (instead of the default rig), none for a file with lights; `studio`; `none`;
    /// or an equirectangular Radiance `.hdr` file (top row +Y, centre column +X).
    #[arg(long, value_name = "auto|none|studio|FILE.hdr", default_value = "auto", value_parser = EnvironmentChoice::parse)]
    pub environment: EnvironmentChoice,
    /// PBR: multiplies the environment's radiance.
    #[arg(long = "environment-intensity", value_name = "F", default_value = "1", value_parser = parse_finite)]
    pub environment_intensity: f32,
    /// Clear colour, four numbers in 0..=1 (three: alpha 1).
    #[arg(long, value_name = "R,G,B,A", value_parser = parse_color)]
    pub background: Option<Vec4>,
    /// The work budget of the load (and of each frame).
    #[command(flatten)]
    pub budget: BudgetArgs,
}

/// Largest `--view` file read (bytes).
pub const MAX_VIEW_BYTES: u64 = 1 << 20;

/// The size used when `--size` is left out.
pub const DEFAULT_SIZE: Size = Size {
    width: 800,
    height: 600,
};

impl ImageArgs {
    /// `--size`, or [`DEFAULT_SIZE`].
    pub fn size(&self) -> Size {
        self.size.unwrap_or(DEFAULT_SIZE)
    }

    /// The first option given that needs a scene file (a draw trace and the showcase are
    /// fixed), by its flag.
    pub fn scene_only_option(&self) -> Option<&'static str> {
        let v = &self.view;
        [
            (v.camera.is_some(), "--camera"),
            (v.eye.is_some(), "--eye"),
            (v.target.is_some(), "--target"),
            (v.up.is_some(), "--up"),
            (v.fov.is_some(), "--fov"),
            (v.near.is_some(), "--near"),
            (v.far.is_some(), "--far"),
            (self.time != 0.0, "--time"),
            (self.clip.is_some(), "--clip"),
            (self.loop_mode != LoopMode::Clamp, "--loop"),
            (self.gltf_scene.is_some(), "--scene"),
            (self.variant.is_some(), "--variant"),
            (self.unlit, "--unlit"),
            (self.shading.is_some(), "--shading"),
            (self.exposure != 1.0, "--exposure"),
            (self.tone_map != ToneMapMode::None, "--tone-map"),
            (self.environment != EnvironmentChoice::Auto, "--environment"),
            (self.environment_intensity != 1.0, "--environment-intensity"),
            (
                self.output_encoding != OutputEncodingMode::Srgb,
                "--output-encoding",
            ),
            (self.background.is_some(), "--background"),
        ]
        .into_iter()
        .find_map(|(given, name)| given.then_some(name))
        .or(self.budget.first_given_but_drawn())
    }

    /// Refuses a draw trace whose draws have more primitives together than
    /// `--max-drawn-primitives` (default 2²⁴, as for a scene's frame), counted from the
    /// trace's document before anything is replayed (issue 50: 1,000 draws of 600,000
    /// vertices replayed for over a minute).
    pub fn check_trace_primitives(&self, trace: &Trace, path: &Path) -> Result<(), String> {
        use plumb::raster::trace::{CommandDoc, IndexView};
        let max = self.budget.budget().max_drawn_primitives;
        let mut total = 0u64;
        for (i, command) in trace.doc.commands.iter().enumerate() {
            let (positions, indices, topology) = match command {
                CommandDoc::Draw(d) => (d.positions.count, d.indices, d.topology),
                CommandDoc::DrawFixed(d) => (d.positions.count, d.indices, d.topology),
                CommandDoc::Clear { .. } | CommandDoc::ClearRect { .. } => continue,
            };
            let elements = match indices {
                Some(IndexView::U16(v) | IndexView::U32(v)) => v.count,
                None => positions,
            };
            let n =
                topology.primitive_count(usize::try_from(elements).unwrap_or(usize::MAX)) as u64;
            total = total.saturating_add(n);
            if total > max {
                return Err(format!(
                    "{}: command {i}: a draw of {n} primitives brings the trace to {total}, past the budget of {max} drawn primitives (--max-drawn-primitives)",
                    path.display()
                ));
            }
        }
        Ok(())
    }

    /// Refuses a `--size` that differs from a draw trace's recorded size.
    pub fn check_trace_size(&self, width: u32, height: u32) -> Result<(), String> {
        match self.size.filter(|s| (s.width, s.height) != (width, height)) {
            Some(s) => Err(format!(
                "--size {}x{}: a draw trace renders at its recorded size {width}x{height}",
                s.width, s.height
            )),
            None => Ok(()),
        }
    }

    /// These options with the `--view` file's applied, or `None` without one. The file's
    /// fields go through the same parsers as the flags (they are turned back into flags).
    pub fn with_view_file(&self) -> Result<Option<ImageArgs>, String> {
        let Some(path) = self
            .view_file
            .as_ref()
            .filter(|p| !p.is_empty())
            .map(PathBuf::from)
        else {
            return Ok(None);
        };
        let shown = path.display();
        if let Some(flag) = self
            .scene_only_option()
            .filter(|f| !f.starts_with("--max-"))
        {
            return Err(format!("--view {shown} sets the view: drop {flag}"));
        }
        // A regular file, checked on the opened handle, read no further than the limit: a
        // FIFO or a device (`/dev/zero`) is refused at once (issue 50).
        let text = plumb::scene::io::read_regular_to_string(&path, MAX_VIEW_BYTES)
            .map_err(|e| format!("--view {shown}: {e}"))?;
        let view: plumb::model::ModelView = serde_json::from_str(&text)
            .map_err(|e| format!("--view {shown}:{}:{}: {e}", e.line(), e.column()))?;
        #[derive(clap::Parser)]
        struct ViewFlags {
            #[command(flatten)]
            image: ImageArgs,
        }
        let flags = std::iter::once("view".to_owned()).chain(view.cli_args());
        let parsed = <ViewFlags as clap::Parser>::try_parse_from(flags)
            .map_err(|e| format!("--view {shown}: {}", e.kind()))?;
        let mut image = parsed.image;
        if let Some(s) = self.size.filter(|s| image.size != Some(*s)) {
            return Err(format!(
                "--size {}x{} differs from --view {shown}'s {}x{}",
                s.width, s.height, view.size[0], view.size[1]
            ));
        }
        image.budget = self.budget.clone();
        Ok(Some(image))
    }

    /// Loads and maps a scene file as these options say, printing the loader's warnings.
    pub fn load(&self, path: &Path) -> Result<LoadedModel, String> {
        let mapping = Mapping {
            unlit: self.unlit,
            shading: self.shading.unwrap_or_default().into(),
            environment: self.environment.replaces_rig(),
        };
        let mut model = LoadedModel::load(
            path,
            mapping,
            (self.gltf_scene.as_deref(), self.variant.as_deref()),
            self.clip.as_deref(),
            self.background,
            &self.budget.budget(),
        )?;
        model
            .scene
            .set_pbr_output(pbr_output(
                self.exposure,
                self.tone_map,
                self.output_encoding,
            ))
            .map_err(|e| e.to_string())?;
        model.set_environment(
            mapping.shading,
            &self.environment,
            self.environment_intensity,
        )?;
        model.set_loop(self.loop_mode);
        for w in model.warnings() {
            use std::io::Write as _;
            let _ = writeln!(std::io::stderr(), "warning: {}: {w}", path.display());
        }
        Ok(model)
    }

    /// The animation time of frame `i` of a sequence at `fps` (`--time` for frame 0); each
    /// clip wraps it by its own duration under `--loop repeat` (set on the model by
    /// [`LoadedModel::set_loop`] when it is loaded).
    pub fn frame_time(&self, i: u32, fps: f32) -> f32 {
        self.time + i as f32 / fps
    }
}

/// Largest frame index `--frame-range` accepts (its end, exclusive).
pub const MAX_FRAME_INDEX: u32 = 100_000_000;

/// Parses `A..B` (B excluded) or `A..=B` into a non-empty range of at most [`MAX_FRAMES`]
/// frames ending at most at [`MAX_FRAME_INDEX`].
fn parse_frame_range(s: &str) -> Result<std::ops::Range<u32>, String> {
    let num = |v: &str| {
        v.trim()
            .parse::<u32>()
            .map_err(|_| format!("'{v}' is not a frame number (expected A..B or A..=B)"))
    };
    let (a, b, inclusive) = match s.split_once("..") {
        Some((a, b)) => match b.strip_prefix('=') {
            Some(b) => (num(a)?, num(b)?, true),
            None => (num(a)?, num(b)?, false),
        },
        None => return Err(format!("'{s}': expected A..B (B excluded) or A..=B")),
    };
    let end = if inclusive { b.checked_add(1) } else { Some(b) };
    let Some(end) = end.filter(|&e| e > a) else {
        return Err(format!("'{s}': the range is empty"));
    };
    if end > MAX_FRAME_INDEX {
        return Err(format!("'{s}': frame numbers end below {MAX_FRAME_INDEX}"));
    }
    if end - a > MAX_FRAMES {
        return Err(format!(
            "'{s}': {} frames, at most {MAX_FRAMES} in one run",
            end - a
        ));
    }
    Ok(a..end)
}

/// Parses a frame count in `1..=MAX_FRAMES`.
fn parse_frames(s: &str) -> Result<u32, String> {
    let n: u32 = s
        .trim()
        .parse()
        .map_err(|_| format!("'{s}' is not a whole number"))?;
    if n == 0 || n > MAX_FRAMES {
        return Err(format!("frames must be 1..={MAX_FRAMES}, got {n}"));
    }
    Ok(n)
}

/// `OUT.png` → `OUT_0007.png` (the index before the extension, four digits at least).
pub fn frame_path(out: &Path, index: u32) -> PathBuf {
    let stem = out
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let name = match out.extension() {
        Some(ext) => format!("{stem}_{index:04}.{}", ext.to_string_lossy()),
        None => format!("{stem}_{index:04}"),
    };
    out.with_file_name(name)
}

/// Refuses, before anything is loaded or drawn, an output (`-o`, `--depth-out`, every frame
/// of a sequence, `--trace-out` and its `.bin`) that resolves to the scene file being
/// rendered (issue 50): through a link too.
fn refuse_outputs_onto_input(args: &RenderArgs) -> Result<(), String> {
    let Some(input) = &args.scene else {
        return Ok(());
    };
    let refuse = |out: &Path| plumb::safe_write::refuse_inside(out, input, "the scene file");
    let sequence = args.frame_range.clone().or(args.frames.map(|n| 0..n));
    let outputs = [&args.depth_out, &args.ids_out, &args.normals_out];
    for out in std::iter::once(&args.out).chain(outputs.into_iter().flatten()) {
        match &sequence {
            Some(frames) => frames
                .clone()
                .try_for_each(|i| refuse(&frame_path(out, i)))?,
            None => refuse(out)?,
        }
    }
    if let Some(t) = &args.trace_out {
        refuse(t)?;
        refuse(&t.with_extension("bin"))?;
    }
    Ok(())
}

/// Renders the scene file or the showcase and writes the PNG(s).
pub fn run(args: &RenderArgs) -> CliResult {
    if let Some(image) = args.image.with_view_file()? {
        return run(&RenderArgs {
            image,
            ..args.clone()
        });
    }
    refuse_outputs_onto_input(args)?;
    match &args.scene {
        Some(path) if trace::is_trace_file(path) => run_trace(args, path),
        Some(path) => run_scene(args, path),
        None => run_showcase(args),
    }
}

/// Plays a draw trace back at its recorded size and writes the PNG.
fn run_trace(args: &RenderArgs, path: &Path) -> CliResult {
    if let Some(name) = scene_only_options(args) {
        return Err(format!(
            "{name} does not apply to a draw trace (it is played back as recorded)"
        ));
    }
    let trace = Trace::load(path).map_err(|e| e.to_string())?;
    let (width, height) = trace.size();
    args.image.check_trace_size(width, height)?;
    args.image.check_trace_primitives(&trace, path)?;
    draw_direct(args, width, height, |ctx| {
        trace.replay(ctx).map_err(|e| e.to_string())
    })
}

/// Draws straight into a `plumb-raster` context of `width × height` (the showcase, a draw
/// trace) and writes the PNG and, with `--depth-out`, the depth image.
fn draw_direct(
    args: &RenderArgs,
    width: u32,
    height: u32,
    draw: impl FnOnce(&mut Context) -> Result<(), String>,
) -> CliResult {
    let mut ctx = Context::new(
        width,
        height,
        ContextOptions {
            threads: args.threads,
        },
    )
    .map_err(|e| e.to_string())?;
    draw(&mut ctx)?;
    save_png(&ctx.color_image(), &args.out)?;
    if let Some(depth) = &args.depth_out {
        if is_npy(depth) {
            return Err(format!(
                "--depth-out {}: metric depth needs a scene's camera; a draw trace has none (write a .png)",
                depth.display()
            ));
        }
        save_png(&ctx.target().depth_image16(), depth)?;
    }
    say!("wrote {} ({width}x{height})", args.out.display());
    Ok(ExitCode::SUCCESS)
}

/// The id and normal planes of the frame `renderer` finished, as the files `ids` and
/// `normals` (`--ids-out`, `--normals-out`) name: NumPy arrays or PNG images.
fn plane_images(
    renderer: &mut SoftRenderer,
    model: &plumb::model::LoadedModel,
    args: &RenderArgs,
    (ids, normals): (Option<PathBuf>, Option<PathBuf>),
) -> Result<Vec<(PathBuf, Image)>, String> {
    use plumb::model::depth;
    let target = renderer.context().target();
    let (w, h) = (target.width(), target.height());
    let mut out = Vec::new();
    if let (Some(p), Some(values)) = (ids, target.id_values()) {
        let image = if is_npy(&p) {
            Image::Bytes(depth::npy_u32(w, h, &values))
        } else {
            let grey =
                depth::ids_u16(&values).map_err(|e| format!("--ids-out {}: {e}", p.display()))?;
            Image::Depth(image::ImageBuffer::from_raw(w, h, grey).ok_or("id plane size")?)
        };
        out.push((p, image));
    }
    if let (Some(p), Some(values)) = (normals, target.normal_values()) {
        let camera = model
            .last_camera
            .as_ref()
            .ok_or("--normals-out: no camera")?;
        let values = depth::normals_in(values, camera, args.normals_space);
        let image = if is_npy(&p) {
            Image::Bytes(depth::npy_f32x3(w, h, &values))
        } else {
            let rgba = depth::normals_rgba8(&values);
            Image::Color(image::RgbaImage::from_raw(w, h, rgba).ok_or("normal plane size")?)
        };
        out.push((p, image));
    }
    Ok(out)
}

/// Whether `path` names a NumPy file (`--depth-out DEPTH.npy`: metric depth).
fn is_npy(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("npy"))
}

/// Options that only make sense with a scene file.
fn scene_only_options(args: &RenderArgs) -> Option<&'static str> {
    [
        (args.frames.is_some(), "--frames"),
        (args.frame_range.is_some(), "--frame-range"),
        (args.trace_out.is_some(), "--trace-out"),
        (args.ids_out.is_some(), "--ids-out"),
        (args.normals_out.is_some(), "--normals-out"),
    ]
    .into_iter()
    .find_map(|(given, name)| given.then_some(name))
    .or(args.image.scene_only_option())
}

/// Renders the showcase and writes the PNG.
fn run_showcase(args: &RenderArgs) -> CliResult {
    if let Some(name) = scene_only_options(args) {
        return Err(format!(
            "{name} needs a SCENE file (the built-in showcase is fixed)"
        ));
    }
    let Size { width, height } = args.image.size();
    draw_direct(args, width, height, |ctx| {
        plumb::showcase::draw(ctx).map_err(|e| e.to_string())
    })
}

/// Saves an image, with the path in the message on failure: encoded as `save` would (the
/// format from the extension), then written to a new file renamed over `path`, so a link at
/// `path` is replaced, not written through (issue 50).
fn save_png<P, C>(image: &image::ImageBuffer<P, C>, path: &Path) -> Result<(), String>
where
    P: image::PixelWithColorType,
    [P::Subpixel]: image::EncodableLayout,
    C: std::ops::Deref<Target = [P::Subpixel]>,
{
    frame_writer::save_replacing(path, |out, format| image.write_to(out, format))
}

pub(crate) use plumb::model::load_mapped;

/// Draws the frame at `--time` once more through [`FixedRenderer`] into a trace
/// [`Recorder`] and saves it: the same draw calls the soft renderer received (drawing is
/// deterministic), so replaying the trace gives the rendered bytes.
fn record_trace(
    model: &mut LoadedModel,
    args: &RenderArgs,
    path: &Path,
    width: u32,
    height: u32,
) -> Result<(), String> {
    let stem = match (path.extension(), path.file_stem()) {
        (Some(e), Some(stem)) if e == "json" => stem.to_string_lossy().into_owned(),
        _ => {
            return Err(format!(
                "--trace-out {}: name the trace's .json file (its .bin goes beside it)",
                path.display()
            ))
        }
    };
    let recorder = Recorder::new(width, height).map_err(|e| e.to_string())?;
    let mut renderer = FixedRenderer::with_target(recorder);
    let t = args.image.frame_time(0, 1.0);
    model.draw_at(t, &args.image.view, &mut renderer)?;
    let trace = renderer.into_target().finish(&format!("{stem}.bin"));
    trace.save(path).map_err(|e| e.to_string())?;
    say!(
        "wrote {} ({} commands)",
        path.display(),
        trace.doc.commands.len()
    );
    Ok(())
}

/// Loads, maps and renders a scene file (one frame or a sequence).
fn run_scene(args: &RenderArgs, path: &Path) -> CliResult {
    let Size { width, height } = args.image.size();
    let mut model = args.image.load(path)?;
    let mut renderer = SoftRenderer::new(width, height, args.threads).map_err(|e| e.to_string())?;
    renderer.context().enable_planes(plumb_raster::Planes {
        ids: args.ids_out.is_some(),
        normals: args.normals_out.is_some(),
    });
    // `--frames N` is the range 0..N; one frame is frame 0, written to OUT itself.
    let sequence = args.frame_range.clone().or(args.frames.map(|n| 0..n));
    let frames = sequence.clone().unwrap_or(0..1);
    if args.fps.is_some() && sequence.is_none() {
        return Err("--fps needs --frames or --frame-range".to_owned());
    }
    let fps = args.fps.unwrap_or(DEFAULT_FPS);
    let progress = (sequence.is_some() && std::io::stderr().is_terminal()).then(|| {
        let bar = indicatif::ProgressBar::new(u64::from(frames.end - frames.start));
        bar.set_style(
            indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} frames, eta {eta}")
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        bar
    });
    // A sequence's files are encoded on other threads while the next frames draw
    // (`frame_writer`: same bytes, at most `encoders + 1` frames in memory); one frame, or
    // `--threads 1`, is written on this thread (no encoders).
    let depth_bytes = match &args.depth_out {
        Some(d) if is_npy(d) => 4,
        Some(_) => 2,
        None => 0,
    };
    let plane_bytes =
        4 * u64::from(args.ids_out.is_some()) + 12 * u64::from(args.normals_out.is_some());
    let frame_bytes = u64::from(width) * u64::from(height) * (4 + depth_bytes + plane_bytes);
    let encoders = match sequence {
        Some(ref r) if r.end - r.start > 1 => frame_writer::encoders(args.threads, frame_bytes),
        _ => 0,
    };
    frame_writer::with_encoders(encoders, |writer| {
        for i in frames.clone() {
            let t = args.image.frame_time(i, fps);
            let stats = model
                .draw_at(t, &args.image.view, &mut renderer)
                .map_err(|e| format!("{}: frame {i}: {e}", path.display()))?;
            if i == 0 && stats.lit_without_normals > 0 {
                use std::io::Write as _;
                let _ = writeln!(
                    std::io::stderr(),
                    "warning: {} lit mesh(es) have no normals; lit with the default normal (0, 0, 1)",
                    stats.lit_without_normals
                );
            }
            let (out, depth) = match sequence {
                Some(_) => (
                    frame_path(&args.out, i),
                    args.depth_out.as_deref().map(|d| frame_path(d, i)),
                ),
                None => (args.out.clone(), args.depth_out.clone()),
            };
            let color = Image::Color(renderer.image());
            let depth = match depth {
                Some(d) if is_npy(&d) => {
                    let camera = model
                        .last_camera
                        .as_ref()
                        .ok_or_else(|| format!("{}: frame {i}: no camera", path.display()))?;
                    let metric = plumb::model::depth::metric_depth(&renderer.depth(), camera);
                    let npy = plumb::model::depth::npy_f32(width, height, &metric);
                    Some((d, Image::Bytes(npy)))
                }
                Some(d) => Some((d, Image::Depth(renderer.context().target().depth_image16()))),
                None => None,
            };
            writer.write(out, color)?;
            if let Some((d, image)) = depth {
                writer.write(d, image)?;
            }
            let at = |p: &Option<PathBuf>| match sequence {
                Some(_) => p.as_deref().map(|p| frame_path(p, i)),
                None => p.clone(),
            };
            let planes = (at(&args.ids_out), at(&args.normals_out));
            for (p, image) in plane_images(&mut renderer, &model, args, planes)? {
                writer.write(p, image)?;
            }
            if let Some(bar) = &progress {
                bar.inc(1);
            }
        }
        Ok(())
    })?;
    if let Some(bar) = progress {
        bar.finish_and_clear();
    }
    if let Some(trace_path) = &args.trace_out {
        record_trace(&mut model, args, trace_path, width, height)?;
    }
    match sequence {
        Some(r) => say!(
            "wrote {} frames {} .. {} ({width}x{height})",
            r.end - r.start,
            frame_path(&args.out, r.start).display(),
            frame_path(&args.out, r.end - 1).display()
        ),
        None => say!("wrote {} ({width}x{height})", args.out.display()),
    }
    super::leak_at_exit(model);
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames() {
        assert!(parse_frames("0").is_err());
        assert_eq!(parse_frames("3"), Ok(3));
        assert!(parse_frames("100001").is_err());
        assert_eq!(parse_frame_range("10..20"), Ok(10..20));
        assert_eq!(parse_frame_range("10..=20"), Ok(10..21));
        assert_eq!(parse_frame_range(" 0 .. 1"), Ok(0..1));
        for bad in [
            "5..5",
            "6..5",
            "5..=4",
            "a..3",
            "3",
            "0..100001",
            "0..=4294967295",
        ] {
            assert!(parse_frame_range(bad).is_err(), "{bad}");
        }
        assert_eq!(
            frame_path(Path::new("dir/out.png"), 7),
            Path::new("dir/out_0007.png")
        );
        assert_eq!(frame_path(Path::new("x"), 12345), Path::new("x_12345"));
    }
}
