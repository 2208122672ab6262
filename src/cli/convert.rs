//! `plumb convert IN -o OUT.json`: load a scene file (.gltf, .glb, .obj or .json) the way
//! `plumb render` does (imported materials mapped onto render state, the default light rig
//! when the file has no light; `--scene` picks a glTF file's scene as `plumb render --scene`
//! does, see [`scene_select`](super::scene_select)), and save the scene as a plumb scene file
//! with its textures as PNG files beside it (`OUT.tex0.png`, …; rules in
//! `plumb_scene::io::json::save_scene`). Rendering the output with `plumb render` at any
//! `--time` gives the same image as rendering the input from the same camera.
//!
//! Controllers are saved with their state: glTF animations as `keyframes` controllers (of the
//! clips playing: all, or the one `--clip` names), skins, morphs (with the playing clip's
//! weights), IK; the scene is saved as loaded, before any animation runs (`--time` poses
//! nothing, as the saved controllers pose the scene when it is rendered). What the format
//! cannot hold (controllers written as code, …) is refused with a one-line error naming the
//! node; nothing is dropped silently.
//!
//! The load is held to the work budget (`--max-*` flags, as `plumb render`), and the output
//! to `--max-output-bytes` (at most and by default the largest scene file the loader reads,
//! 256 MiB): meshes are written inline, a shared mesh once per leaf, so a small instanced
//! file could otherwise convert into gigabytes. The saver refuses before building the
//! document when the inline meshes alone pass the limit, and before writing anything when
//! the text does (`io::json::write_scene_limited`). Writing each shared mesh once would need
//! a mesh reference the format does not have; the limit bounds the output either way.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use plumb_scene::io;

use super::budget::BudgetArgs;
use super::CliResult;

/// Arguments of `plumb convert`.
#[derive(Debug, Args)]
pub struct ConvertArgs {
    /// Scene file: .gltf, .glb, .obj or .json.
    #[arg(value_name = "SCENE")]
    pub scene: PathBuf,
    /// Output scene file (.json); textures are written beside it.
    #[arg(short, long, value_name = "OUT")]
    pub out: PathBuf,
    /// Accepted for compatibility and ignored apart from a check that it is finite: the
    /// animations are saved as controllers, which pose the scene when it is rendered.
    #[arg(long, default_value_t = 0.0, value_name = "SECONDS")]
    pub time: f32,
    /// The one glTF animation to keep (index or name, as `plumb render --clip`).
    #[arg(long, value_name = "CLIP")]
    pub clip: Option<String>,
    /// Convert this scene of a glTF file: by name, else by 0-based index (`plumb info` lists
    /// them). Default: the file's default scene.
    #[arg(long = "scene", value_name = "NAME|INDEX")]
    pub gltf_scene: Option<String>,
    /// The most bytes the written scene file may have; at most (and by default) the largest
    /// scene file plumb reads (268435456), so that what convert writes loads again.
    #[arg(long, value_name = "BYTES", value_parser = parse_output_bytes)]
    pub max_output_bytes: Option<u64>,
    /// The work budget of the load.
    #[command(flatten)]
    pub budget: BudgetArgs,
}

/// Parses `--max-output-bytes`: 1..=[`io::json::MAX_FILE_BYTES`].
fn parse_output_bytes(s: &str) -> Result<u64, String> {
    let n: u64 = s
        .trim()
        .parse()
        .map_err(|_| format!("'{s}' is not a whole number"))?;
    if n == 0 || n > io::json::MAX_FILE_BYTES {
        return Err(format!(
            "the output limit must be 1..={} bytes (a larger scene file would not load), got {n}",
            io::json::MAX_FILE_BYTES
        ));
    }
    Ok(n)
}

/// Runs `plumb convert`.
///
/// # Errors
/// A one-line message: unreadable input, an output that is not `.json`, or what the format
/// cannot hold.
pub fn run(args: &ConvertArgs) -> CliResult {
    if !args
        .out
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("json"))
    {
        return Err(format!(
            "{}: the output is a plumb scene file and must end in .json",
            args.out.display()
        ));
    }
    if !args.time.is_finite() {
        return Err("--time is not finite".to_owned());
    }
    let gltf_scene = super::scene_select::select(&args.scene, args.gltf_scene.as_deref())?;
    let (scene, imported, _) = super::render::load_mapped(
        &args.scene,
        false,
        (gltf_scene, None),
        &args.budget.budget(),
    )?;
    super::clip::select(&args.scene, &imported.animations, args.clip.as_deref())?;
    let max = args.max_output_bytes.unwrap_or(io::json::MAX_FILE_BYTES);
    io::json::write_scene_limited(&scene, Some(&imported), &args.out, max)
        .map_err(|e| e.to_string())?;
    Ok(ExitCode::SUCCESS)
}
