//! The GLB around a texture target's input: a textured quad whose one image is the input.
//!
//! Plain `std` (no fuzzing crate), so the workspace's tests include this very file
//! (`scene/tests/it/fuzz_seeds.rs`, through `#[path]`) and run each texture target's seeds
//! through the same GLB and the same import: a quad that fails glTF validation — as this one
//! did until issue 50, naming accessors 1, 2, 3 of a list of three, so ten million runs of
//! three targets never decoded an image — fails the workspace's test suite, not only a fuzz
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
