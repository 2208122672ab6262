//! `plumb render`: draw the built-in showcase into a PNG.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use plumb::raster::target::MAX_TARGET_SIZE;
use plumb::raster::{Context, ContextOptions};

use super::{say, CliResult};

/// Largest accepted `--threads` (0 = all cores).
pub const MAX_THREADS: usize = 1024;

/// Arguments of `plumb render`.
#[derive(Debug, Args)]
pub struct RenderArgs {
    // Future: a positional `scene: Option<PathBuf>` (SCENE: .json, .gltf, .glb or .obj) goes
    // here; without it, the built-in showcase is rendered. Scene loading is not implemented yet.
    /// Output PNG file.
    #[arg(
        short = 'o',
        long = "out",
        value_name = "OUT.png",
        default_value = "plumb.png"
    )]
    pub out: PathBuf,
    /// Image size, each side 1..=16384.
    #[arg(long, value_name = "WxH", default_value = "800x600", value_parser = parse_size)]
    pub size: Size,
    /// Worker threads (0 or absent: all cores). The image is identical for every count.
    #[arg(long, value_name = "N", value_parser = parse_threads)]
    pub threads: Option<usize>,
}

/// A render size in pixels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Size {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
}

/// Parses `WxH` with both sides in `1..=MAX_TARGET_SIZE`.
fn parse_size(s: &str) -> Result<Size, String> {
    let (w, h) = s
        .split_once(['x', 'X'])
        .ok_or_else(|| "expected WxH, e.g. 800x600".to_owned())?;
    let side = |v: &str, name: &str| -> Result<u32, String> {
        let n: u64 = v
            .trim()
            .parse()
            .map_err(|_| format!("{name} '{v}' is not a whole number"))?;
        if n == 0 || n > u64::from(MAX_TARGET_SIZE) {
            return Err(format!("{name} must be 1..={MAX_TARGET_SIZE}, got {n}"));
        }
        Ok(n as u32)
    };
    Ok(Size {
        width: side(w, "width")?,
        height: side(h, "height")?,
    })
}

/// Parses a thread count in `0..=MAX_THREADS`.
fn parse_threads(s: &str) -> Result<usize, String> {
    let n: usize = s
        .trim()
        .parse()
        .map_err(|_| format!("'{s}' is not a whole number"))?;
    if n > MAX_THREADS {
        return Err(format!("at most {MAX_THREADS} threads, got {n}"));
    }
    Ok(n)
}

/// Renders the showcase and writes the PNG.
pub fn run(args: &RenderArgs) -> CliResult {
    let Size { width, height } = args.size;
    let mut ctx = Context::new(
        width,
        height,
        ContextOptions {
            threads: args.threads,
        },
    )
    .map_err(|e| e.to_string())?;
    plumb::showcase::draw(&mut ctx).map_err(|e| e.to_string())?;
    ctx.color_image()
        .save(&args.out)
        .map_err(|e| format!("{}: {e}", args.out.display()))?;
    say!("wrote {} ({width}x{height})", args.out.display());
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        assert_eq!(
            parse_size("64x48"),
            Ok(Size {
                width: 64,
                height: 48
            })
        );
        assert_eq!(
            parse_size("16384x1"),
            Ok(Size {
                width: 16384,
                height: 1
            })
        );
        assert!(parse_size("0x0").is_err());
        assert!(parse_size("100000x100000").is_err());
        assert!(parse_size("16385x1").is_err());
        assert!(parse_size("64").is_err());
        assert!(parse_size("-1x5").is_err());
        assert!(parse_size("99999999999999999999x5").is_err());
    }

    #[test]
    fn threads() {
        assert_eq!(parse_threads("0"), Ok(0));
        assert_eq!(parse_threads("2"), Ok(2));
        assert!(parse_threads("-1").is_err());
        assert!(parse_threads("many").is_err());
        assert!(parse_threads("1025").is_err());
    }
}
