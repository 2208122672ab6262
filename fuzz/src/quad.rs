//! The GLB around a decoder target's input: a textured quad whose one image is the input
//! (`png_texture`, `webp_texture`, `ktx2_texture`), a primitive whose Draco stream is the
//! input (`draco`), a quad whose meshopt streams are (`meshopt`).
//!
//! Plain `std` (no fuzzing crate), so the workspace's tests include this very file
//! (`scene/tests/it/fuzz_seeds.rs`, through `#[path]`) and run each decoder target's seeds
//! through the same GLB and the same import: a wrapper that fails glTF validation — as the
//! quad did until issue 50, naming accessors 1, 2, 3 of a list of three, so ten million runs
//! of three targets never decoded an image, and as the Draco wrapper did once unused
//! accessors without data were refused — fails the workspace's test suite, not only a fuzz
//! run nobody reads.

/// A GLB container around `json` and an optional `bin` chunk, each padded to 4 bytes as the
/// format requires (so the fuzzer spends its time on the content, not the framing).
pub fn glb(json: &[u8], bin: Option<&[u8]>) -> Vec<u8> {
    fn padded(b: &[u8], pad: u8) -> Vec<u8> {
        let mut v = b.to_vec();
        while !v.len().is_multiple_of(4) {
            v.push(pad);
        }
        v
    }
    let json = padded(json, b' ');
    let bin = bin.map(|b| padded(b, 0));
    let total = 12 + 8 + json.len() + bin.as_ref().map_or(0, |b| 8 + b.len());
    let mut out = Vec::with_capacity(total);
    out.extend_from_slice(b"glTF");
    out.extend_from_slice(&2u32.to_le_bytes());
    out.extend_from_slice(&(total as u32).to_le_bytes());
    out.extend_from_slice(&(json.len() as u32).to_le_bytes());
    out.extend_from_slice(b"JSON");
    out.extend_from_slice(&json);
    if let Some(bin) = bin {
        out.extend_from_slice(&(bin.len() as u32).to_le_bytes());
        out.extend_from_slice(b"BIN\0");
        out.extend_from_slice(&bin);
    }
    out
}

/// A textured quad's glTF JSON; the placeholders are filled by [`textured_quad`].
const QUAD: &str = r#"{"asset":{"version":"2.0"},"scene":0,"scenes":[{"nodes":[0]}],
"nodes":[{"mesh":0}],
"meshes":[{"primitives":[{"attributes":{"POSITION":0,"TEXCOORD_0":1},"indices":2,"material":0}]}],
"materials":[{"pbrMetallicRoughness":{"baseColorTexture":{"index":0}}}],
"textures":[TEXTURE],
"samplers":[{"magFilter":9729,"minFilter":9987}],
"images":[{"bufferView":0,"mimeType":"MIME"}],
"accessors":[
 {"bufferView":1,"componentType":5126,"count":4,"type":"VEC3","min":[0,0,0],"max":[1,1,0]},
 {"bufferView":2,"componentType":5126,"count":4,"type":"VEC2"},
 {"bufferView":3,"componentType":5123,"count":6,"type":"SCALAR"}],
"bufferViews":[
 {"buffer":0,"byteOffset":0,"byteLength":IMGLEN},
 {"buffer":0,"byteOffset":IMGPAD,"byteLength":48},
 {"buffer":0,"byteOffset":IMGPAD48,"byteLength":32},
 {"buffer":0,"byteOffset":IMGPAD80,"byteLength":12}],
"buffers":[{"byteLength":TOTAL}]}"#;

/// A GLB of a textured quad whose one image is `image` (buffer view 0, declared as `mime`).
/// With `extension` (`EXT_texture_webp`, `KHR_texture_basisu`), the texture names it through
/// that extension (required, no fallback `source`); otherwise as its `source`. For the texture targets: every input reaches the
/// importer's real image path (chunk checks, size limits, decode, mip chain) and the draw.
pub fn textured_quad(image: &[u8], mime: &str, extension: Option<&str>) -> Vec<u8> {
    let pad = image.len().div_ceil(4) * 4;
    let mut bin = image.to_vec();
    bin.resize(pad, 0);
    for v in [[0f32, 0., 0.], [1., 0., 0.], [1., 1., 0.], [0., 1., 0.]] {
        for c in v {
            bin.extend_from_slice(&c.to_le_bytes());
        }
    }
    for v in [[0f32, 1.], [1., 1.], [1., 0.], [0., 0.]] {
        for c in v {
            bin.extend_from_slice(&c.to_le_bytes());
        }
    }
    for i in [0u16, 1, 2, 0, 2, 3] {
        bin.extend_from_slice(&i.to_le_bytes());
    }
    let texture = match extension {
        Some(ext) => format!(r#"{{"sampler":0,"extensions":{{"{ext}":{{"source":0}}}}}}"#),
        None => r#"{"source":0,"sampler":0}"#.to_owned(),
    };
    let mut json = QUAD
        .replace("IMGLEN", &image.len().max(1).to_string())
        .replace("IMGPAD48", &(pad + 48).to_string())
        .replace("IMGPAD80", &(pad + 80).to_string())
        .replace("IMGPAD", &pad.to_string())
        .replace("TOTAL", &bin.len().to_string())
        .replace("TEXTURE", &texture)
        .replace("MIME", mime);
    if let Some(ext) = extension {
        json = json.replacen(
            '{',
            &format!(r#"{{"extensionsUsed":["{ext}"],"extensionsRequired":["{ext}"],"#),
            1,
        );
    }
    glb(json.as_bytes(), Some(&bin))
}

/// The `draco` target's GLB: `pick` chooses the primitive (bit 0: the Draco ids as the shared
/// files number them — Duck: NORMAL 0, POSITION 1, TEXCOORD_0 2 — or POSITION and NORMAL
/// swapped; bit 1: TRIANGLES or POINTS; bit 2: TEXCOORD_0 as floats or normalized unsigned
/// shorts; bit 3: a skin set, JOINTS_0 and WEIGHTS_0; bit 4: COLOR_0; bit 5: no TEXCOORD_0,
/// as in the Box model), `stream` is the Draco
/// stream, the only buffer view. The compressed accessors (only those the primitive uses:
/// an accessor without data that nothing names is refused) count `points` and the indices
/// `3 × faces`, as the stream must, so a stream that decodes goes on to the draw.
pub fn draco_glb(pick: u8, stream: &[u8], points: usize, faces: usize) -> Vec<u8> {
    // A buffer holds at least one byte: an empty stream is given as one zero byte. An
    // accessor counts at least one element: a stream of no points or faces gets counts of 1,
    // which its Draco stage then refuses as disagreeing with the stream.
    let stream = if stream.is_empty() { &[0][..] } else { stream };
    let (points, faces) = (points.max(1), faces.max(1));
    let (pos, nrm) = if pick & 1 == 0 { (1, 0) } else { (0, 1) };
    let mode = if pick & 2 == 0 { 4 } else { 0 };
    let uv = if pick & 4 == 0 {
        r#""componentType": 5126, "type": "VEC2""#
    } else {
        r#""componentType": 5123, "normalized": true, "type": "VEC2""#
    };
    let mut used: Vec<(&str, u32, &str)> = vec![
        ("POSITION", pos, r#""componentType": 5126, "type": "VEC3""#),
        ("NORMAL", nrm, r#""componentType": 5126, "type": "VEC3""#),
    ];
    if pick & 32 == 0 {
        used.push(("TEXCOORD_0", 2, uv));
    }
    if pick & 8 != 0 {
        used.push(("JOINTS_0", 3, r#""componentType": 5121, "type": "VEC4""#));
        used.push(("WEIGHTS_0", 4, r#""componentType": 5126, "type": "VEC4""#));
    }
    if pick & 16 != 0 {
        used.push(("COLOR_0", 5, r#""componentType": 5126, "type": "VEC4""#));
    }
    let mut accessors = vec![format!(
        r#"{{"componentType": 5125, "count": {}, "type": "SCALAR"}}"#,
        faces.saturating_mul(3)
    )];
    let (mut attributes, mut ids) = (Vec::new(), Vec::new());
    for (name, id, format) in used {
        attributes.push(format!(r#""{name}": {}"#, accessors.len()));
        ids.push(format!(r#""{name}": {id}"#));
        accessors.push(format!(r#"{{{format}, "count": {points}}}"#));
    }
    let skin = if pick & 8 != 0 { r#", "skin": 0"# } else { "" };
    let json = format!(
        r#"{{"asset": {{"version": "2.0"}},
  "extensionsUsed": ["KHR_draco_mesh_compression"],
  "extensionsRequired": ["KHR_draco_mesh_compression"],
  "scene": 0, "scenes": [{{"nodes": [0, 1]}}],
  "nodes": [{{"mesh": 0{skin}}}, {{"name": "joint"}}],
  "skins": [{{"joints": [1]}}],
  "meshes": [{{"primitives": [{{"attributes": {{{attributes}}}, "indices": 0, "mode": {mode},
    "extensions": {{"KHR_draco_mesh_compression": {{"bufferView": 0, "attributes": {{{ids}}}}}}}}}]}}],
  "accessors": [{accessors}],
  "buffers": [{{"byteLength": {len}}}],
  "bufferViews": [{{"buffer": 0, "byteOffset": 0, "byteLength": {len}}}]}}"#,
        attributes = attributes.join(", "),
        ids = ids.join(", "),
        accessors = accessors.join(",\n  "),
        len = stream.len()
    );
    glb(json.as_bytes(), Some(stream))
}

/// `EXT_meshopt_compression` inputs for the `meshopt` target.
pub mod meshopt {
    /// meshoptimizer's test vector `kVertexDataV0` (`demo/tests.cpp`, MIT licence, © Arseny
    /// Kapoulkine): 4 vertices of 12 bytes as an `ATTRIBUTES` stream.
    pub const VERTICES: [u8; 85] = [
        0xa0, 0x01, 0x3f, 0x00, 0x00, 0x00, 0x58, 0x57, 0x58, 0x01, 0x26, 0x00, 0x00, 0x00, 0x01,
        0x0c, 0x00, 0x00, 0x00, 0x58, 0x01, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
        0x3f, 0x00, 0x00, 0x00, 0x17, 0x18, 0x17, 0x01, 0x26, 0x00, 0x00, 0x00, 0x01, 0x0c, 0x00,
        0x00, 0x00, 0x17, 0x01, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    ];

    /// Triangles (0, 1, 2), (2, 1, 3) as a `TRIANGLES` stream (the table of the same file's
    /// `kIndexDataV1`).
    pub const TRIANGLES: [u8; 19] = [
        0xe1, 0xf0, 0x10, 0x00, 0x76, 0x87, 0x56, 0x67, 0x78, 0xa9, 0x86, 0x65, 0x89, 0x68, 0x98,
        0x01, 0x69, 0x00, 0x00,
    ];

    /// An 8-byte `ATTRIBUTES` stream of 4 elements (the `extra-none` seed's): the
    /// `TEXCOORD_1` stream when the input is another stream.
    pub const EXTRA: [u8; 41] = [
        0xa0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x00, 0x00, 0x00, 0x64, 0x00, 0x38, 0xff, 0x2c, 0x01, 0x70, 0xfe,
    ];

    /// The `meshopt` target's GLB: the first byte of `data` picks which stream the rest is —
    /// the vertex stream (`ATTRIBUTES`), the index stream (`TRIANGLES` or `INDICES`), or the
    /// `TEXCOORD_1` stream under each filter — and the other streams are the test vectors.
    /// `None` for an empty input.
    pub fn target_glb(data: &[u8]) -> Option<Vec<u8>> {
        let (&pick, input) = data.split_first()?;
        let (vertices, indices, extra): (&[u8], &[u8], &[u8]) = match pick % 4 {
            0 => (input, &TRIANGLES, &EXTRA),
            1 | 2 => (&VERTICES, input, &EXTRA),
            _ => (&VERTICES, &TRIANGLES, input),
        };
        let index_mode = if pick % 4 == 2 {
            "INDICES"
        } else {
            "TRIANGLES"
        };
        let filter =
            ["NONE", "OCTAHEDRAL", "QUATERNION", "EXPONENTIAL"][usize::from(pick >> 2) % 4];
        Some(quad(vertices, indices, index_mode, extra, filter))
    }

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
