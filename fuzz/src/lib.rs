//! What the fuzz targets share: splitting one input into several files, and drawing what a
//! loader produced, so that every target also runs the scene's update, cull and draw on the
//! data it accepted.

use std::path::Path;

use plumb_scene::io::{apply, framing, ApplyOptions, ImportedScene};
use plumb_scene::{Camera, SoftRenderer};

/// Splits `data` at the first occurrence of `sep` (the separator is dropped); the second part
/// is empty when there is none.
///
/// It scans for the separator's first byte and compares the rest only there: comparing every
/// window as a slice calls `memcmp` at each byte, which libFuzzer intercepts and records, and
/// that made splitting two thirds of the trace target's time.
pub fn split<'a>(data: &'a [u8], sep: &[u8]) -> (&'a [u8], &'a [u8]) {
    let Some((&first, rest)) = sep.split_first() else {
        return (data, &[]);
    };
    let mut from = 0;
    while let Some(i) = data[from..].iter().position(|&b| b == first) {
        let at = from + i;
        let tail = &data[at + 1..];
        if tail.len() >= rest.len() && tail.iter().zip(rest).all(|(a, b)| a == b) {
            return (&data[..at], &tail[rest.len()..]);
        }
        from = at + 1;
    }
    (data, &[])
}

#[cfg(test)]
mod tests {
    use super::split;

    #[test]
    fn split_at_the_first_separator() {
        let sep: &[u8] = b"\xFF\xFE";
        assert_eq!(
            split(b"ab\xFF\xFEcd\xFF\xFEe", sep),
            (&b"ab"[..], &b"cd\xFF\xFEe"[..])
        );
        assert_eq!(split(b"\xFF\xFF\xFEx", sep), (&b"\xFF"[..], &b"x"[..]));
        assert_eq!(split(b"ab\xFF", sep), (&b"ab\xFF"[..], &b""[..]));
        assert_eq!(split(b"\xFF\xFE", sep), (&b""[..], &b""[..]));
        assert_eq!(split(b"abc", sep), (&b"abc"[..], &b""[..]));
        assert_eq!(split(b"abc", b""), (&b"abc"[..], &b""[..]));
    }
}

/// Applies the imported materials, frames the geometry (or uses the first imported camera)
/// and draws a 16 × 12 frame on one thread. Errors are fine; panics are what the fuzzer looks
/// for.
pub fn draw_imported(loaded: ImportedScene) {
    let ImportedScene {
        mut scene,
        imported,
    } = loaded;
    let Ok(applied) = apply(&mut scene, &imported, &ApplyOptions::default()) else {
        return;
    };
    let aspect = 16.0 / 12.0;
    let camera = match imported.cameras.first() {
        Some(c) => c.to_camera(&scene, aspect),
        None => framing::geometry_box(&scene).and_then(|b| framing::frame_bound(&b, 0.8, aspect)),
    };
    let camera = match camera {
        Ok(c) => c,
        Err(_) => match Camera::perspective(0.8, aspect, 0.1, 100.0) {
            Ok(c) => c,
            Err(_) => return,
        },
    };
    if applied
        .place_lights(&mut scene, &imported, &camera)
        .is_err()
    {
        return;
    }
    let Ok(mut renderer) = SoftRenderer::new(16, 12, Some(1)) else {
        return;
    };
    let _ = scene.draw(&camera, &mut renderer);
}

/// A folder of its own for targets that must write files (OBJ + MTL, PNG pairs): one per
/// process, under the system's temporary folder.
pub fn scratch_dir() -> &'static Path {
    use std::sync::OnceLock;
    static DIR: OnceLock<std::path::PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("plumb-fuzz-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temporary folder");
        dir
    })
}

/// Reads bytes as small values for structured targets; past the end it yields zeros.
pub struct Bytes<'a> {
    data: &'a [u8],
}

impl<'a> Bytes<'a> {
    /// Reads from `data`.
    pub fn new(data: &'a [u8]) -> Self {
        Bytes { data }
    }

    /// Whether everything has been read.
    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    /// The next byte.
    pub fn u8(&mut self) -> u8 {
        match self.data.split_first() {
            Some((&b, rest)) => {
                self.data = rest;
                b
            }
            None => 0,
        }
    }

    /// The next two bytes, little-endian.
    pub fn u16(&mut self) -> u16 {
        u16::from_le_bytes([self.u8(), self.u8()])
    }

    /// One of `n` choices.
    pub fn choose(&mut self, n: usize) -> usize {
        usize::from(self.u8()) % n.max(1)
    }

    /// A float: mostly small "nice" values (so geometry lands on screen), sometimes any
    /// bit pattern (NaN, infinities, huge, denormal).
    pub fn f32(&mut self) -> f32 {
        match self.u8() % 8 {
            0 => f32::from_bits(u32::from_le_bytes([
                self.u8(),
                self.u8(),
                self.u8(),
                self.u8(),
            ])),
            1 => [0.0, 1.0, -1.0, f32::NAN, f32::INFINITY, 1e30, -1e-30, 0.5][self.choose(8)],
            _ => (f32::from(self.u16() as i16)) / 4096.0,
        }
    }
}

/// Imports glTF or GLB bytes as if read from `file` and draws them.
pub fn import_and_draw(data: &[u8], file: &Path) {
    import_and_draw_with(data, file, &plumb_scene::io::ImportOptions::default());
}

/// [`import_and_draw`] with `options`.
pub fn import_and_draw_with(data: &[u8], file: &Path, options: &plumb_scene::io::ImportOptions) {
    let mut scene = plumb_scene::Scene::new();
    let root = scene.root();
    let Ok(imported) =
        plumb_scene::io::gltf::import_gltf_bytes(&mut scene, root, data, file, options)
    else {
        return;
    };
    scene.update(0.0);
    draw_imported(ImportedScene { scene, imported });
}

/// The point and face counts of a Draco stream, or 3 points and 1 face when it does not
/// decode within [`DRACO_FUZZ_GEOMETRY_BYTES`] (2¹⁶ points and faces): what the `draco`
/// target's accessors declare, so a stream that decodes is not refused for its counts and
/// goes on to the draw.
pub fn draco_counts(stream: &[u8]) -> (usize, usize) {
    use draco_core::{DecodeLimits, DecoderBuffer, Mesh, MeshDecoder};
    let limits = DecodeLimits::default()
        .with_max_points(1 << 16)
        .with_max_faces(1 << 16)
        .with_max_decoded_bytes(DRACO_FUZZ_GEOMETRY_BYTES);
    let decoded = plumb_scene::io::contain(|| {
        let mut mesh = Mesh::new();
        let mut buffer = DecoderBuffer::new(stream).with_limits(limits);
        MeshDecoder::new()
            .decode(&mut buffer, &mut mesh)
            .map(|()| (mesh.num_points(), mesh.num_faces()))
    });
    match decoded {
        Ok(Ok(counts)) => counts,
        _ => (3, 1),
    }
}

/// The `draco` target's geometry budget (`ImportOptions::max_geometry_bytes`): 16 MiB, not
/// the default 512 MiB. A 38-byte point-cloud stream makes the decoder allocate heavily
/// (1.9 s and 990 MB through `plumb info` at the default budget), which passed libFuzzer's
/// 10 s timeout in the fuzz build (overflow checks on) and ended CI's 15 s run. At 16 MiB the
/// target still decodes the shared models' streams (Box, Duck) and stays fast.
pub const DRACO_FUZZ_GEOMETRY_BYTES: u64 = 16 << 20;

/// The `webp_texture` and `ktx2_texture` targets' import options: textures of at most 1,024
/// texels a side and 16 MiB of decoded texels, not the defaults (8,192 and 1 GiB). A 26-byte
/// lossless WebP can declare a 16,384-texel side and take 1.3 s to decode within the
/// defaults, and a third of the WebP corpus declared more than 1,024: the targets ran 375 and
/// 600 executions a second. Larger images are refused from their headers before anything is
/// decoded (the checks the defaults use, at another value); every decoder path is reached at
/// these sizes.
pub fn texture_fuzz_options() -> plumb_scene::io::ImportOptions {
    plumb_scene::io::ImportOptions {
        max_texture_size: 1024,
        max_texture_bytes: 16 << 20,
        ..plumb_scene::io::ImportOptions::default()
    }
}

pub mod mutate;
pub mod quad;
pub use quad::{draco_glb, glb, meshopt, textured_quad};

/// A `fuzz_mutator!` body: `structured` (one of [`mutate`]'s) on a copy of the input, with
/// libFuzzer's own mutator for the bytes it hands over; returns the new size.
pub fn libfuzzer_mutate(
    data: &mut [u8],
    size: usize,
    max_size: usize,
    seed: u32,
    structured: fn(&mut Vec<u8>, usize, &mut mutate::Rng, &mut mutate::ByteMutator),
) -> usize {
    let mut rng = mutate::Rng::new(seed);
    let mut input = data[..size].to_vec();
    structured(
        &mut input,
        max_size,
        &mut rng,
        &mut |v: &mut Vec<u8>, max: usize| {
            let n = v.len();
            if max == 0 {
                v.clear();
                return;
            }
            v.resize(n.max(max), 0);
            let new = libfuzzer_sys::fuzzer_mutate(v, n, max);
            v.truncate(new);
        },
    );
    let n = input.len().min(max_size).min(data.len());
    data[..n].copy_from_slice(&input[..n]);
    n
}
