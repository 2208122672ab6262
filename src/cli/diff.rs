//! `plumb diff`: tolerant comparison of two images (see [`plumb::diff`] for the metrics).
//!
//! Tolerance rule: the comparison **fails** (exit 1) when more than `--max-pixels` pixels
//! (default 0) have a largest per-channel |Δ| (R, G, B, A) strictly greater than
//! `--threshold` (default 0), **or** when `--max-mean E` is given and the FLIP-style
//! perceptual mean exceeds `E`. Otherwise it passes (exit 0). To judge by the perceptual
//! mean alone, pass `--threshold 255` (no pixel can exceed it). Unreadable or malformed
//! images and size mismatches are bad input (exit 2).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Args;
use image::{ImageReader, RgbaImage};
use plumb::diff::{compare, DiffOptions};

use super::{say, CliResult, EXIT_COMPARISON_FAILED};

/// Default for `--max-image-pixels`: 4096 × 4096.
pub const DEFAULT_MAX_IMAGE_PIXELS: u64 = 4096 * 4096;

/// Arguments of `plumb diff`.
#[derive(Debug, Args)]
pub struct DiffArgs {
    /// The reference image (PNG).
    #[arg(value_name = "A.png")]
    pub a: PathBuf,
    /// The image to check against it (PNG, same size).
    #[arg(value_name = "B.png")]
    pub b: PathBuf,
    /// Write a heat map of the per-pixel perceptual error here
    /// (black → magenta → yellow → white as the error goes 0 → 1).
    #[arg(short = 'o', long = "out", value_name = "HEAT.png")]
    pub out: Option<PathBuf>,
    /// Per-channel threshold T (0..=255): a pixel is over when its largest channel |Δ| > T.
    #[arg(short = 't', long, value_name = "T", default_value_t = 0)]
    pub threshold: u8,
    /// How many pixels may exceed the threshold before the comparison fails.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub max_pixels: u64,
    /// Also fail when the perceptual (FLIP-style) mean exceeds E (0..=1). Default: not checked.
    #[arg(long, value_name = "E", value_parser = parse_mean)]
    pub max_mean: Option<f64>,
    /// Largest image accepted, in pixels (width × height), checked from the header before
    /// anything is decoded. The comparison holds about 92 bytes per pixel, so the default
    /// (4096 × 4096) peaks near 1.5 GB.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_IMAGE_PIXELS)]
    pub max_image_pixels: u64,
    /// Pixels per degree of visual angle for the perceptual metric.
    #[arg(long, value_name = "PPD", default_value_t = DiffOptions::DEFAULT_PPD, value_parser = parse_ppd)]
    pub ppd: f32,
}

fn parse_mean(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(v) if (0.0..=1.0).contains(&v) => Ok(v),
        _ => Err(format!("'{s}' is not a number in 0..=1")),
    }
}

fn parse_ppd(s: &str) -> Result<f32, String> {
    match s.trim().parse::<f32>() {
        Ok(v) if v.is_finite() && (1.0..=1000.0).contains(&v) => Ok(v),
        _ => Err(format!("'{s}' is not a number in 1..=1000")),
    }
}

/// Reads any image the `image` crate can decode (format guessed from the content) as RGBA8.
/// Only regular files are read (a FIFO or a device would block or never end), and PNG
/// chunk structure the `png` decoder relies on is checked first.
fn load(path: &Path, max_pixels: u64) -> Result<RgbaImage, String> {
    let err = |e: &dyn std::fmt::Display| format!("{}: {e}", path.display());
    let meta = std::fs::metadata(path).map_err(|e| err(&e))?;
    if !meta.is_file() {
        return Err(err(&"not a regular file"));
    }
    let bytes = std::fs::read(path).map_err(|e| err(&e))?;
    plumb_scene::io::check_png_chunks(&bytes).map_err(|e| err(&e))?;
    let reader = || {
        ImageReader::new(std::io::Cursor::new(bytes.as_slice()))
            .with_guessed_format()
            .map_err(|e| err(&e))
    };
    let (w, h) = reader()?.into_dimensions().map_err(|e| err(&e))?;
    let pixels = u64::from(w) * u64::from(h);
    if pixels > max_pixels {
        return Err(err(&format!(
            "{w}x{h} is {pixels} pixels, more than the limit of {max_pixels} \
             (--max-image-pixels)"
        )));
    }
    let reader = reader()?;
    // Containment: decoders are not panic-free on malformed data (see
    // `plumb_scene::io::check_png_chunks`); a panic here becomes bad input, not a crash.
    let img = std::panic::catch_unwind(std::panic::AssertUnwindSafe(move || reader.decode()))
        .map_err(|_| err(&"the image decoder failed on malformed data"))?
        .map_err(|e| err(&e))?;
    Ok(img.to_rgba8())
}

/// Compares the two images, prints the numbers, writes the heat map if asked.
pub fn run(args: &DiffArgs) -> CliResult {
    let a = load(&args.a, args.max_image_pixels)?;
    let b = load(&args.b, args.max_image_pixels)?;
    let options = DiffOptions {
        threshold: args.threshold,
        pixels_per_degree: args.ppd,
    };
    let diff = compare(&a, &b, &options)
        .map_err(|e| format!("{} vs {}: {e}", args.a.display(), args.b.display()))?;
    let r = diff.report;

    let total = r.pixel_count();
    let percent = if total == 0 {
        0.0
    } else {
        100.0 * r.pixels_over as f64 / total as f64
    };
    say!(
        "size:              {}x{} ({total} pixels)",
        r.width,
        r.height
    );
    say!(
        "pixels over T={:<3}  {} ({percent:.3}%)",
        r.threshold,
        r.pixels_over
    );
    say!("max channel delta: {}", r.max_delta);
    let db = if r.psnr.is_infinite() { "" } else { " dB" };
    say!("PSNR (RGB):        {}{db}", r.psnr_text());
    say!(
        "perceptual mean:   {:.6} (FLIP-style, {} ppd; max {:.4})",
        r.perceptual_mean,
        args.ppd,
        r.perceptual_max
    );

    if let Some(out) = &args.out {
        diff.heat_map()
            .save_with_format(out, image::ImageFormat::Png)
            .map_err(|e| format!("{}: {e}", out.display()))?;
        say!("wrote heat map {}", out.display());
    }

    let mut reasons = Vec::new();
    if r.pixels_over > args.max_pixels {
        reasons.push(format!(
            "{} pixels over threshold {} (allowed {})",
            r.pixels_over, r.threshold, args.max_pixels
        ));
    }
    if let Some(e) = args.max_mean {
        if r.perceptual_mean > e {
            reasons.push(format!("perceptual mean {:.6} > {e}", r.perceptual_mean));
        }
    }
    if reasons.is_empty() {
        say!("result: pass");
        Ok(ExitCode::SUCCESS)
    } else {
        say!("result: FAIL ({})", reasons.join("; "));
        Ok(ExitCode::from(EXIT_COMPARISON_FAILED))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tolerances_parse() {
        assert_eq!(parse_mean("0.05"), Ok(0.05));
        assert!(parse_mean("NaN").is_err());
        assert!(parse_mean("-0.1").is_err());
        assert!(parse_mean("2").is_err());
        assert_eq!(parse_ppd("67"), Ok(67.0));
        assert!(parse_ppd("0").is_err());
        assert!(parse_ppd("inf").is_err());
    }
}
