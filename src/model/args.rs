//! Value parsers for command-line arguments, shared by the subcommands (`render`, its camera
//! options, `view`): image sizes, thread counts, finite and positive numbers, vectors and
//! colours. Each returns a one-line message clap prints as `error: ...`.

use crate::raster::target::MAX_TARGET_SIZE;
use glam::{Vec3, Vec4};

/// Largest accepted `--threads` (0 = all cores).
pub const MAX_THREADS: usize = 1024;

/// A render size in pixels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Size {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
}

/// Parses `WxH` with both sides in `1..=MAX_TARGET_SIZE`.
pub fn parse_size(s: &str) -> Result<Size, String> {
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
pub fn parse_threads(s: &str) -> Result<usize, String> {
    let n: usize = s
        .trim()
        .parse()
        .map_err(|_| format!("'{s}' is not a whole number"))?;
    if n > MAX_THREADS {
        return Err(format!("at most {MAX_THREADS} threads, got {n}"));
    }
    Ok(n)
}

/// Parses a finite number.
pub fn parse_finite(s: &str) -> Result<f32, String> {
    let v: f32 = s
        .trim()
        .parse()
        .map_err(|_| format!("'{s}' is not a number"))?;
    if !v.is_finite() {
        return Err(format!("'{s}' is not a finite number"));
    }
    Ok(v)
}

/// Parses a finite number > 0.
pub fn parse_positive(s: &str) -> Result<f32, String> {
    let v = parse_finite(s)?;
    if v <= 0.0 {
        return Err(format!("'{s}' must be greater than 0"));
    }
    Ok(v)
}

/// Parses `n` comma-separated finite numbers.
pub fn parse_numbers(s: &str, n: usize) -> Result<Vec<f32>, String> {
    let parts: Vec<&str> = s.split(',').collect();
    if parts.len() != n {
        return Err(format!("expected {n} comma-separated numbers, got '{s}'"));
    }
    parts.iter().map(|p| parse_finite(p)).collect()
}

/// Parses `X,Y,Z`.
pub fn parse_vec3(s: &str) -> Result<Vec3, String> {
    let v = parse_numbers(s, 3)?;
    Ok(Vec3::new(v[0], v[1], v[2]))
}

/// Parses `R,G,B,A` (or `R,G,B` with alpha 1), each in 0..=1.
pub fn parse_color(s: &str) -> Result<Vec4, String> {
    let n = s.split(',').count();
    let v = parse_numbers(s, if n == 3 { 3 } else { 4 })?;
    if v.iter().any(|c| !(0.0..=1.0).contains(c)) {
        return Err(format!("colour components must be in 0..=1, got '{s}'"));
    }
    Ok(Vec4::new(
        v[0],
        v[1],
        v[2],
        v.get(3).copied().unwrap_or(1.0),
    ))
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
    fn vectors_and_colors() {
        assert_eq!(parse_vec3("1,2.5,-3"), Ok(Vec3::new(1.0, 2.5, -3.0)));
        assert!(parse_vec3("1,2").is_err());
        assert!(parse_vec3("1,2,NaN").is_err());
        assert!(parse_vec3("1,2,inf").is_err());
        assert!(parse_vec3("1,x,3").is_err());
        assert_eq!(parse_color("0,0.5,1"), Ok(Vec4::new(0.0, 0.5, 1.0, 1.0)));
        assert_eq!(parse_color("0,0,0,0"), Ok(Vec4::ZERO));
        assert!(parse_color("0,0,2,1").is_err());
        assert!(parse_color("0,0").is_err());
        assert!(parse_positive("0").is_err());
        assert!(parse_finite("nan").is_err());
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
