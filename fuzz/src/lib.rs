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
    let mut scene = plumb_scene::Scene::new();
    let root = scene.root();
    let options = plumb_scene::io::ImportOptions::default();
    let Ok(imported) =
        plumb_scene::io::gltf::import_gltf_bytes(&mut scene, root, data, file, &options)
    else {
        return;
    };
    scene.update(0.0);
    draw_imported(ImportedScene { scene, imported });
}

pub mod quad;
pub use quad::{glb, textured_quad};

/// `EXT_meshopt_compression` inputs for the `meshopt` target.
pub mod meshopt {
    /// meshoptimizer's test vector `kVertexDataV0` (`demo/tests.cpp`, MIT licence, © Arseny
    /// Kapoulkine): 4 vertices of 12 bytes as an `ATTRIBUTES` stream.
    pub const VERTICES: [u8; 85] = [
        0xa0, 0x01, 0x3f, 0x00, 0x00, 0x00, 0x58, 0x57, 0x58, 0x01, 0x26, 0x00, 0x00, 0x00,
        0x01, 0x0c, 0x00, 0x00, 0x00, 0x58, 0x01, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x00, 0x01, 0x3f, 0x00, 0x00, 0x00, 0x17, 0x18, 0x17, 0x01, 0x26, 0x00, 0x00, 0x00,
        0x01, 0x0c, 0x00, 0x00, 0x00, 0x17, 0x01, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x00,
    ];

    /// Triangles (0, 1, 2), (2, 1, 3) as a `TRIANGLES` stream (the table of the same file's
    /// `kIndexDataV1`).
    pub const TRIANGLES: [u8; 19] = [
        0xe1, 0xf0, 0x10, 0x00, 0x76, 0x87, 0x56, 0x67, 0x78, 0xa9, 0x86, 0x65, 0x89, 0x68,
        0x98, 0x01, 0x69, 0x00, 0x00,
    ];

    /// A GLB of a quad: 4 vertices of 12 bytes from `vertices`, 6 indices (16-bit) from
    /// `indices` in `index_mode`, and a `TEXCOORD_1` of 8-byte elements from `extra` under
    /// `filter` (floats for `EXPONENTIAL`, normalized shorts otherwise). Streams live in the
    /// BIN chunk; the parent views in a fallback buffer without data.
    pub fn quad(
        vertices: &[u8],
        indices: &[u8],
        index_mode: &str,
        extra: &[u8],
        filter: &str,
    ) -> Vec<u8> {
        let mut bin = Vec::new();
        let mut place = |s: &[u8]| {
            let at = bin.len();
            bin.extend_from_slice(s);
            while bin.len() % 4 != 0 {
                bin.push(0);
            }
            (at, s.len())
        };
        let (v, i, x) = (place(vertices), place(indices), place(extra));
        let extra_type = if filter == "EXPONENTIAL" {
            r#""componentType": 5126"#
        } else {
            r#""componentType": 5122, "normalized": true"#
        };
        let json = format!(
            r#"{{"asset": {{"version": "2.0"}},
  "extensionsUsed": ["EXT_meshopt_compression", "KHR_mesh_quantization"],
  "extensionsRequired": ["EXT_meshopt_compression", "KHR_mesh_quantization"],
  "scene": 0, "scenes": [{{"nodes": [0]}}], "nodes": [{{"mesh": 0}}],
  "meshes": [{{"primitives": [{{"attributes": {{"POSITION": 0, "TEXCOORD_0": 1, "TEXCOORD_1": 3}}, "indices": 2}}]}}],
  "buffers": [{{"byteLength": {bl}}}, {{"byteLength": 96, "extensions": {{"EXT_meshopt_compression": {{"fallback": true}}}}}}],
  "bufferViews": [
    {{"buffer": 1, "byteOffset": 0, "byteLength": 48, "byteStride": 12, "extensions": {{"EXT_meshopt_compression":
      {{"buffer": 0, "byteOffset": {vo}, "byteLength": {vl}, "byteStride": 12, "count": 4, "mode": "ATTRIBUTES"}}}}}},
    {{"buffer": 1, "byteOffset": 48, "byteLength": 12, "extensions": {{"EXT_meshopt_compression":
      {{"buffer": 0, "byteOffset": {io}, "byteLength": {il}, "byteStride": 2, "count": 6, "mode": "{index_mode}"}}}}}},
    {{"buffer": 1, "byteOffset": 64, "byteLength": 32, "byteStride": 8, "extensions": {{"EXT_meshopt_compression":
      {{"buffer": 0, "byteOffset": {xo}, "byteLength": {xl}, "byteStride": 8, "count": 4, "mode": "ATTRIBUTES", "filter": "{filter}"}}}}}}],
  "accessors": [
    {{"bufferView": 0, "componentType": 5123, "count": 4, "type": "VEC3"}},
    {{"bufferView": 0, "byteOffset": 8, "componentType": 5123, "normalized": true, "count": 4, "type": "VEC2"}},
    {{"bufferView": 1, "componentType": 5123, "count": 6, "type": "SCALAR"}},
    {{"bufferView": 2, {extra_type}, "count": 4, "type": "VEC2"}}]}}"#,
            bl = bin.len().max(1),
            vo = v.0,
            vl = v.1,
            io = i.0,
            il = i.1,
            xo = x.0,
            xl = x.1,
        );
        super::glb(json.as_bytes(), Some(&bin))
    }
}
