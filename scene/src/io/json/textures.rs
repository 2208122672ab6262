//! Textures of a scene file: PNG / JPEG files and procedural images (checker, gradient,
//! solid), each with a full mip chain.

use std::path::Path;
use std::sync::Arc;

use plumb_raster::texture::{Texture, MAX_TEXTURE_SIZE};

use super::doc::{GradientDirection, Real4, TextureDoc};
use super::limits::read_limited;
use crate::io::error::{IoError, Location};
use crate::io::texture_image::{mip_chain_bytes, TextureBudget};
use crate::io::{texture_image, uri, ImportOptions};

/// Largest side of a procedural texture, in texels.
pub const MAX_PROCEDURAL_SIZE: u32 = 4096;

fn byte(c: f32) -> u8 {
    (c.clamp(0.0, 1.0) * 255.0 + 0.5) as u8
}

fn rgba(c: &Real4) -> [u8; 4] {
    [
        byte(c[0].get()),
        byte(c[1].get()),
        byte(c[2].get()),
        byte(c[3].get()),
    ]
}

fn lerp(a: &Real4, b: &Real4, t: f32) -> [u8; 4] {
    let mut out = [0u8; 4];
    for (i, o) in out.iter_mut().enumerate() {
        *o = byte(a[i].get() + (b[i].get() - a[i].get()) * t);
    }
    out
}

/// Builds one named texture. `file` is the scene file, `dir` its directory.
pub(super) fn build_texture(
    t: &TextureDoc,
    file: &Path,
    dir: &Path,
    options: &ImportOptions,
    location: Option<Location>,
    budget: &mut TextureBudget,
) -> Result<Arc<Texture>, IoError> {
    let context = format!("texture '{}'", t.name);
    let invalid = |message: String| IoError::Invalid {
        file: file.to_owned(),
        location,
        context: context.clone(),
        message,
    };
    let sources = [
        t.file.is_some(),
        t.checker.is_some(),
        t.gradient.is_some(),
        t.solid.is_some(),
    ];
    if sources.iter().filter(|s| **s).count() != 1 {
        return Err(invalid(
            "needs exactly one of \"file\", \"checker\", \"gradient\", \"solid\"".to_owned(),
        ));
    }
    let check_size = |size: [u32; 2]| {
        if size[0] == 0 || size[1] == 0 || size[0].max(size[1]) > MAX_PROCEDURAL_SIZE {
            Err(invalid(format!(
                "size {}x{} is outside 1..={MAX_PROCEDURAL_SIZE} per side",
                size[0], size[1]
            )))
        } else {
            Ok(size)
        }
    };
    let texture = if let Some(rel) = &t.file {
        let path = uri::inside(dir, rel).map_err(|reason| IoError::MissingResource {
            file: file.to_owned(),
            kind: "image",
            uri: rel.clone(),
            reason,
        })?;
        let max_side = options.max_texture_size.min(MAX_TEXTURE_SIZE);
        let bytes =
            read_limited(&path, options.max_file_bytes).map_err(|e| IoError::MissingResource {
                file: file.to_owned(),
                kind: "image",
                uri: rel.clone(),
                reason: match e {
                    IoError::Read { reason, .. } => reason,
                    other => other.to_string(),
                },
            })?;
        texture_image::decode(file, rel, &bytes, None, max_side, budget)?
    } else {
        let (w, h, data) = if let Some(c) = &t.checker {
            let [w, h] = check_size(c.size)?;
            budget.charge(file, &t.name, mip_chain_bytes(w, h))?;
            let [cx, cy] = c.cells;
            if cx == 0 || cy == 0 || cx > w || cy > h {
                return Err(invalid(format!(
                    "checker cells {cx}x{cy} must be 1..=size per side"
                )));
            }
            let (a, b) = (rgba(&c.colors[0]), rgba(&c.colors[1]));
            let mut data = Vec::with_capacity((w * h * 4) as usize);
            for y in 0..h {
                for x in 0..w {
                    let odd = (u64::from(x) * u64::from(cx) / u64::from(w)
                        + u64::from(y) * u64::from(cy) / u64::from(h))
                        % 2;
                    data.extend_from_slice(if odd == 0 { &a } else { &b });
                }
            }
            (w, h, data)
        } else if let Some(g) = &t.gradient {
            let [w, h] = check_size(g.size)?;
            budget.charge(file, &t.name, mip_chain_bytes(w, h))?;
            let mut data = Vec::with_capacity((w * h * 4) as usize);
            for y in 0..h {
                for x in 0..w {
                    let (i, n) = match g.direction {
                        GradientDirection::Horizontal => (x, w),
                        GradientDirection::Vertical => (y, h),
                    };
                    let s = if n > 1 {
                        i as f32 / (n - 1) as f32
                    } else {
                        0.0
                    };
                    data.extend_from_slice(&lerp(&g.from, &g.to, s));
                }
            }
            (w, h, data)
        } else {
            let c = t.solid.as_ref().map(rgba).unwrap_or([255; 4]);
            (1, 1, c.to_vec())
        };
        Texture::from_rgba8(w, h, data)
            .map_err(|e| invalid(format!("image data: {e}")))?
            .with_generated_mips()
    };
    Ok(Arc::new(texture))
}
