//! PNG textures through the importer's real path: a GLB whose one image is the input (a
//! buffer view with `image/png`), on a textured quad, imported (chunk checks, size limits,
//! decode, mip chain) and drawn.
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;

const QUAD: &str = r#"{"asset":{"version":"2.0"},"scene":0,"scenes":[{"nodes":[0]}],
"nodes":[{"mesh":0}],
"meshes":[{"primitives":[{"attributes":{"POSITION":1,"TEXCOORD_0":2},"indices":3,"material":0}]}],
"materials":[{"pbrMetallicRoughness":{"baseColorTexture":{"index":0}}}],
"textures":[{"source":0,"sampler":0}],
"samplers":[{"magFilter":9729,"minFilter":9987}],
"images":[{"bufferView":0,"mimeType":"image/png"}],
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

fuzz_target!(|data: &[u8]| {
    let pad = data.len().div_ceil(4) * 4;
    let mut bin = data.to_vec();
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
    let json = QUAD
        .replace("IMGLEN", &data.len().max(1).to_string())
        .replace("IMGPAD48", &(pad + 48).to_string())
        .replace("IMGPAD80", &(pad + 80).to_string())
        .replace("IMGPAD", &pad.to_string())
        .replace("TOTAL", &bin.len().to_string());
    let file = Path::new("/nonexistent-plumb-fuzz/texture.glb");
    plumb_fuzz::import_and_draw(&plumb_fuzz::glb(json.as_bytes(), Some(&bin)), file);
});
