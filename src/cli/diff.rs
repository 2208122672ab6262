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

use std::fs::File;
use std::io::{BufWriter, Write};

use clap::Args;
use plumb::diff::{
    compare_rows, heat_color, working_set_bytes, DiffError, DiffOptions, PngRows, RowSource,
};

use super::{say, CliResult, EXIT_COMPARISON_FAILED};

/// Default for `--max-image-pixels`: 16384 × 16384. The comparison streams (memory grows
/// with the width, not the area), so the limit bounds time; memory has its own limit.
pub const DEFAULT_MAX_IMAGE_PIXELS: u64 = 16384 * 16384;

/// Default for `--max-memory`: 1 GiB.
pub const DEFAULT_MAX_MEMORY: u64 = 1 << 30;

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
    /// anything is decoded.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_IMAGE_PIXELS)]
    pub max_image_pixels: u64,
    /// Most bytes the comparison may hold, estimated from the headers before anything is
    /// decoded: about 150 bytes per pixel of width (at the default ppd) for the streamed rows,
    /// plus the whole image for an interlaced PNG (its rows do not arrive in order).
    #[arg(long, value_name = "BYTES", default_value_t = DEFAULT_MAX_MEMORY)]
    pub max_memory: u64,
    /// Pixels per degree of visual angle for the perceptual metric.
    #[arg(long, value_name = "PPD", default_value_t = DiffOptions::DEFAULT_PPD, value_parser = parse_ppd)]
    pub ppd: f32,
    /// Most filter taps the perceptual metric may spend, estimated from the headers and
    /// `--ppd` before anything is decoded (it bounds time: it grows with the area and the
    /// square of the ppd).
    #[arg(long, value_name = "N", default_value_t = plumb::diff::DEFAULT_MAX_FILTER_WORK)]
    pub max_filter_work: u64,
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

/// Compares the two images, prints the numbers, writes the heat map if asked. Both images
/// and the heat map are streamed row by row (see [`plumb::diff::compare_rows`]).
pub fn run(args: &DiffArgs) -> CliResult {
    let mut a = PngRows::open(&args.a, args.max_image_pixels)?;
    let mut b = PngRows::open(&args.b, args.max_image_pixels)?;
    let options = DiffOptions {
        threshold: args.threshold,
        pixels_per_degree: args.ppd,
    };
    let (w, h) = a.size();
    let work = plumb::diff::filter_work(w, h, args.ppd);
    if work > args.max_filter_work {
        return Err(format!(
            "{} vs {}: comparing {w}x{h} images at {} ppd needs about {work} filter taps, more \
             than the limit of {} (--max-filter-work)",
            args.a.display(),
            args.b.display(),
            args.ppd,
            args.max_filter_work
        ));
    }
    let needed = working_set_bytes(w, args.ppd) + a.held_bytes() + b.held_bytes();
    if needed > args.max_memory {
        return Err(format!(
            "{} vs {}: comparing {w}x{h} images needs about {needed} bytes, more than the \
             limit of {} (--max-memory)",
            args.a.display(),
            args.b.display(),
            args.max_memory
        ));
    }
    let mut heat = match &args.out {
        Some(out) if a.size() == b.size() => Some(HeatMap::create(out, w, h)?),
        _ => None,
    };
    let report = compare_rows(&mut a, &mut b, &options, &mut |_, errors| match &mut heat {
        Some(heat) => heat.write_row(errors),
        None => Ok(()),
    })
    .map_err(|e| match e {
        DiffError::Read(message) => message,
        e => format!("{} vs {}: {e}", args.a.display(), args.b.display()),
    })?;
    let r = report;

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

    if let (Some(heat), Some(out)) = (heat, &args.out) {
        heat.finish()?;
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

/// The heat map, written as its rows are computed.
struct HeatMap {
    name: String,
    writer: png::StreamWriter<'static, BufWriter<File>>,
    row: Vec<u8>,
}

impl HeatMap {
    fn create(path: &Path, width: u32, height: u32) -> Result<HeatMap, String> {
        let name = path.display().to_string();
        let err = |e: &dyn std::fmt::Display| format!("{name}: {e}");
        let file = File::create(path).map_err(|e| err(&e))?;
        let mut encoder = png::Encoder::new(BufWriter::new(file), width, height);
        encoder.set_color(png::ColorType::Rgba);
        encoder.set_depth(png::BitDepth::Eight);
        let writer = encoder.write_header().map_err(|e| err(&e))?;
        let writer = writer.into_stream_writer().map_err(|e| err(&e))?;
        Ok(HeatMap {
            name,
            writer,
            row: Vec::new(),
        })
    }

    fn write_row(&mut self, errors: &[f32]) -> Result<(), String> {
        self.row.clear();
        self.row
            .extend(errors.iter().flat_map(|&e| heat_color(e).0));
        self.writer
            .write_all(&self.row)
            .map_err(|e| format!("{}: {e}", self.name))
    }

    fn finish(self) -> Result<(), String> {
        let name = self.name;
        self.writer.finish().map_err(|e| format!("{name}: {e}"))
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
