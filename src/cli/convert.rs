//! `plumb convert IN -o OUT.json`: load a scene file (.gltf, .glb, .obj or .json) the way
//! `plumb render` does (imported materials mapped onto render state, the default light rig
//! when the file has no light), optionally pose its glTF animations (`--clip`, `--time`), and
//! save the scene as a plumb scene file with its textures as PNG files beside it
//! (`OUT.tex0.png`, …; rules in `plumb_scene::io::json::save_scene`). Rendering the output
//! from the same camera gives the same image as rendering the scene it was saved from.
//!
//! What the scene-file format cannot hold (controllers — skins, morphs, keyframes —, IK,
//! projected texture coordinates, …) is refused with a one-line error naming the node; nothing
//! is dropped silently. Animated glTF files are saved in one pose (`--time`, default 0).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use plumb_scene::io::{self, ImportOptions};

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
    /// Animation time in seconds: the pose that is saved (glTF animations).
    #[arg(long, default_value_t = 0.0, value_name = "SECONDS")]
    pub time: f32,
    /// The one glTF animation to play (index or name, as `plumb render --clip`).
    #[arg(long, value_name = "CLIP")]
    pub clip: Option<String>,
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
    let io::ImportedScene {
        mut scene,
        imported,
    } = io::load(&args.scene, &ImportOptions::default()).map_err(|e| e.to_string())?;
    super::clip::select(&args.scene, &imported.animations, args.clip.as_deref())?;
    if !imported.animations.is_empty() {
        io::apply_animations(&mut scene, &imported.animations, args.time)
            .map_err(|e| e.to_string())?;
    }
    scene.update(f64::from(args.time));
    io::json::write_scene(&scene, Some(&imported), &args.out).map_err(|e| e.to_string())?;
    Ok(ExitCode::SUCCESS)
}
