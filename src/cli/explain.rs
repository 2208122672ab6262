//! `plumb explain INPUT X Y`: the history of one pixel of the image `plumb render INPUT`
//! makes with the same options — every clear and fragment that reached it, in draw order,
//! with each stage's inputs and outputs, and the final colour, depth and stencil
//! ([`plumb::explain`]; `docs/explain.md` walks through examples and the JSON schema).

use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

use plumb::explain::{
    explain_within, skipped_text, to_text, write_json_within, Input, DEFAULT_MAX_FRAGMENTS,
};
use plumb::raster::trace::{self, Trace};

use super::args::Size;
use super::render::ImageArgs;
use super::{say, CliResult};

/// Arguments of `plumb explain`.
#[derive(Clone, Debug, Args)]
pub struct ExplainArgs {
    /// What `plumb render` would draw: a scene file (.json, .gltf, .glb, .obj) or a draw
    /// trace (.json of format `plumb-draws`).
    #[arg(value_name = "INPUT")]
    pub input: PathBuf,
    /// Pixel column, 0 at the left.
    #[arg(value_name = "X")]
    pub x: u32,
    /// Pixel row, 0 at the top (the image's first row).
    #[arg(value_name = "Y")]
    pub y: u32,
    /// The image's options, as `plumb render` takes them.
    #[command(flatten)]
    pub image: ImageArgs,
    /// Print the history as JSON (format `plumb-pixel-history`, docs/explain.md).
    #[arg(long)]
    pub json: bool,
    /// The most fragments recorded at the pixel. Each draw is charged, before it is drawn,
    /// the most it can leave there (primitives × runs); from the first that does not fit on,
    /// commands are drawn but not recorded, and the history says how many were left out.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_FRAGMENTS)]
    pub max_fragments: u64,
}

/// Explains the pixel and prints the history.
pub fn run(args: &ExplainArgs) -> CliResult {
    if let Some(image) = args.image.with_view_file()? {
        return run(&ExplainArgs {
            image,
            ..args.clone()
        });
    }
    let path = &args.input;
    let history = if trace::is_trace_file(path) {
        if let Some(name) = args.image.scene_only_option() {
            return Err(format!(
                "{name} does not apply to a draw trace (it is played back as recorded)"
            ));
        }
        let trace = Trace::load(path).map_err(|e| e.to_string())?;
        let (w, h) = trace.size();
        args.image.check_trace_size(w, h)?;
        args.image.check_trace_primitives(&trace, path)?;
        check_pixel(args, w, h)?;
        explain_within(
            Input::Trace(&trace),
            (w, h),
            (args.x, args.y),
            None,
            args.max_fragments,
        )?
    } else {
        let Size { width, height } = args.image.size();
        check_pixel(args, width, height)?;
        let mut model = args.image.load(path)?;
        let time = args.image.frame_time(0, 1.0);
        let input = Input::Model {
            model: &mut model,
            time,
            view: &args.image.view,
        };
        explain_within(
            input,
            (width, height),
            (args.x, args.y),
            None,
            args.max_fragments,
        )
        .map_err(|e| format!("{}: {e}", path.display()))?
    };
    let (history, skipped) = history;
    if args.json {
        // Streamed: one fragment's JSON at a time (issue 50).
        let stdout = std::io::stdout();
        let mut out = std::io::BufWriter::new(stdout.lock());
        let _ = write_json_within(&mut out, &history, skipped.as_ref(), args.max_fragments)
            .and_then(|()| writeln!(out))
            .and_then(|()| out.flush());
    } else {
        say!("{}", to_text(&history).trim_end());
        if let Some(s) = &skipped {
            say!("{}", skipped_text(s, args.max_fragments));
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Refuses a pixel outside the image before anything is loaded or drawn.
fn check_pixel(args: &ExplainArgs, width: u32, height: u32) -> Result<(), String> {
    if args.x >= width || args.y >= height {
        return Err(format!(
            "pixel ({}, {}) is outside the {width}x{height} image (x must be below {width}, y below {height})",
            args.x, args.y
        ));
    }
    Ok(())
}
