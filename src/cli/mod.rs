//! Subcommands of the `plumb` binary, one module each, plus the shared exit-code rules; the
//! argument value parsers they share are in [`args`] (from `plumb::model`).

pub mod conform;
pub mod convert;
pub mod diff;
pub mod explain;
mod frame_writer;
pub mod info;
pub mod render;
pub mod view;

// The render path's option parsers, camera choice, clip and scene selection live in the
// library (`plumb::model`), shared with the conformance kit's model cases.
pub use plumb::model::{args, budget, camera, clip, scene_select};

use std::process::ExitCode;

use clap::error::ErrorKind;

/// Exit status when a comparison fails its tolerance.
pub const EXIT_COMPARISON_FAILED: u8 = 1;
/// Exit status for bad input: arguments, unreadable or malformed files, absurd sizes.
pub const EXIT_BAD_INPUT: u8 = 2;

/// A subcommand's outcome: `Ok(status)` (0 or [`EXIT_COMPARISON_FAILED`]), or a one-line
/// message for bad input (printed as `error: <message>`, exit [`EXIT_BAD_INPUT`]).
pub type CliResult = Result<ExitCode, String>;

/// Prints a clap parse error as one `error: ...` line (help and version go to stdout, exit 0).
pub fn report_clap_error(e: &clap::Error) -> ExitCode {
    match e.kind() {
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => {
            // Printing help can only fail on a closed stdout; nothing useful to do then.
            let _ = e.print();
            ExitCode::SUCCESS
        }
        _ => {
            let rendered = e.render().to_string();
            // clap's first paragraph is the message (a list of missing arguments continues
            // on indented lines); usage and tips follow a blank line.
            let first: Vec<&str> = rendered
                .lines()
                .skip_while(|l| l.trim().is_empty())
                .take_while(|l| !l.trim().is_empty())
                .map(str::trim)
                .collect();
            let first = first.join(" ");
            let first = first.trim();
            let msg = first.strip_prefix("error:").unwrap_or(first).trim();
            let msg = if msg.is_empty() {
                "invalid arguments"
            } else {
                msg
            };
            eprintln!("error: {msg} (see 'plumb --help')");
            ExitCode::from(EXIT_BAD_INPUT)
        }
    }
}

/// Prints a line to stdout, ignoring a closed pipe (`plumb diff a b | head -1` must not panic).
macro_rules! say {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stdout(), $($arg)*);
    }};
}
pub(crate) use say;

/// Hands a finished command's scene to the operating system instead of freeing it: the
/// process exits right after the command returns, and freeing a large scene node by node is
/// pure cost (a 10⁶-node glTF: about 7 % of `plumb render`'s run time). Called only on the
/// success path of a command, after every output is written; library code never leaks.
pub(crate) fn leak_at_exit<T>(value: T) {
    std::mem::forget(value);
}
