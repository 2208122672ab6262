//! The `plumb` command-line tool.
//!
//! Exit status: 0 on success, 1 when a comparison (`plumb diff`) fails its tolerance, 2 on bad
//! input (arguments, unreadable or malformed files, absurd sizes), always with a one-line
//! `error: ...` message on stderr. Each subcommand lives in its own module under `src/cli/`.

mod cli;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

use cli::conform::ConformArgs;
use cli::convert::ConvertArgs;
use cli::diff::DiffArgs;
use cli::explain::ExplainArgs;
use cli::info::InfoArgs;
use cli::render::RenderArgs;
use cli::view::ViewArgs;

/// plumb — a deterministic CPU reference renderer.
///
/// With no subcommand, `plumb [OPTIONS]` is `plumb render [OPTIONS]`.
#[derive(Debug, Parser)]
#[command(name = "plumb", version, args_conflicts_with_subcommands = true)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    /// Options of `render`, accepted without the subcommand name.
    #[command(flatten)]
    render: RenderArgs,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Render a scene file (.gltf, .glb, .obj) or the built-in showcase to a PNG (the default
    /// subcommand).
    Render(Box<RenderArgs>),
    /// Compare two images; exit 1 past the tolerance.
    ///
    /// Prints the pixels over a per-channel threshold, the max channel delta, PSNR and a
    /// perceptual (FLIP-style) mean, and writes a heat map with `--out`.
    Diff(DiffArgs),
    /// Explain one pixel: every clear and fragment that reached it, in draw order, each
    /// stage's inputs and outputs (texture taps, tests, blend), and its final colour, depth
    /// and stencil; `--json` for tools.
    Explain(Box<ExplainArgs>),
    /// Run the golden corpus through a backend (plumb itself, `--exec CMD` per case, or
    /// `--actual DIR` of PNGs) and write an HTML report, JUnit XML and results.json.
    ///
    /// Every case compares all four channels, RGBA: each golden stores the alpha the
    /// pipeline wrote (what `plumb render` writes). Pixels over the threshold count any
    /// channel, the FLIP mean is of RGB, heat maps show alpha differences too.
    Conform(ConformArgs),
    /// Save a scene file (.gltf, .glb, .obj, .json) as a plumb scene file, textures as PNG
    /// beside it; `--time`/`--clip` choose the pose of glTF animations.
    Convert(ConvertArgs),
    /// Print a scene file's tree (.gltf, .glb, .obj): names, transforms, bounds, materials,
    /// cameras, lights, animations; `--json` for one object per node in tree order.
    Info(InfoArgs),
    /// Open a scene file in a window: drag to orbit, right-drag to pan, wheel to zoom; keys W
    /// (wireframe), L (lighting), B (bounds), A (animation), R (reset), S (screenshot), Esc.
    /// Only in builds with `--features viewer`.
    View(ViewArgs),
}

fn main() -> ExitCode {
    // A panic inside a decoder that plumb contains (plumb_scene::io::contain) is reported as
    // a one-line error; the default hook would print its message first.
    let default_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if !plumb_scene::io::is_containing() {
            default_hook(info);
        }
    }));
    let parsed = match Cli::try_parse() {
        Ok(parsed) => parsed,
        Err(e) => return cli::report_clap_error(&e),
    };
    let result = match parsed.command {
        Some(Command::Render(args)) => cli::render::run(&args),
        Some(Command::Diff(args)) => cli::diff::run(&args),
        Some(Command::Explain(args)) => cli::explain::run(&args),
        Some(Command::Conform(args)) => cli::conform::run(&args),
        Some(Command::Convert(args)) => cli::convert::run(&args),
        Some(Command::Info(args)) => cli::info::run(&args),
        Some(Command::View(args)) => cli::view::run(&args),
        None => cli::render::run(&parsed.render),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            // One line whatever the error quotes (names and paths from the input files).
            eprintln!("error: {}", plumb_scene::io::escape_control(&e.to_string()));
            ExitCode::from(cli::EXIT_BAD_INPUT)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cli_definition_is_consistent() {
        use clap::CommandFactory;
        Cli::command().debug_assert();
    }

    #[test]
    fn no_subcommand_means_render() {
        let c = Cli::try_parse_from(["plumb", "-o", "x.png", "--size", "4x3"]).unwrap();
        assert!(c.command.is_none());
        assert_eq!(c.render.out.to_str(), Some("x.png"));
        assert_eq!(
            (c.render.image.size().width, c.render.image.size().height),
            (4, 3)
        );
    }
}
