//! Builds small glTF documents in tests: binary data, buffer views and accessors, then the
//! file as `.gltf` text (one data-URI or external buffer) or as `.glb`.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use base64::Engine as _;
use serde_json::{json, Value};

/// Float, unsigned short, unsigned byte component types.
pub const F32: u32 = 5126;
pub const U16: u32 = 5123;
pub const U8: u32 = 5121;

#[derive(Default)]
pub struct Builder {
    pub bin: Vec<u8>,
    pub views: Vec<Value>,
    pub accessors: Vec<Value>,
}

fn comps(ty: &str) -> usize {
    match ty {
        "SCALAR" => 1,
        "VEC2" => 2,
        "VEC3" => 3,
        "VEC4" => 4,
        "MAT4" => 16,
        _ => panic!("type {ty}"),
    }
}

impl Builder {
    /// Appends `bytes` (4-byte aligned) as a buffer view; returns its index.
    pub fn view(&mut self, bytes: &[u8], stride: Option<usize>) -> usize {
        while !self.bin.len().is_multiple_of(4) {
            self.bin.push(0);
        }
        let off = self.bin.len();
        self.bin.extend_from_slice(bytes);
        let mut v = json!({"buffer": 0, "byteOffset": off, "byteLength": bytes.len()});
        if let Some(s) = stride {
            v["byteStride"] = json!(s);
        }
        self.views.push(v);
        self.views.len() - 1
    }

    pub fn accessor(&mut self, a: Value) -> usize {
        self.accessors.push(a);
        self.accessors.len() - 1
    }

    pub fn f32s(&mut self, data: &[f32], ty: &str) -> usize {
        let bytes: Vec<u8> = data.iter().flat_map(|x| x.to_le_bytes()).collect();
        let view = self.view(&bytes, None);
        self.accessor(json!({"bufferView": view, "componentType": F32, "count": data.len() / comps(ty), "type": ty}))
    }

    pub fn u16s(&mut self, data: &[u16]) -> usize {
        let bytes: Vec<u8> = data.iter().flat_map(|x| x.to_le_bytes()).collect();
        let view = self.view(&bytes, None);
        self.accessor(json!({"bufferView": view, "componentType": U16, "count": data.len(), "type": "SCALAR"}))
    }

    /// Unsigned bytes (not normalized: skin joints).
    pub fn u8s(&mut self, data: &[u8], ty: &str) -> usize {
        let view = self.view(data, None);
        self.accessor(json!({"bufferView": view, "componentType": U8, "count": data.len() / comps(ty), "type": ty}))
    }

    /// Normalized unsigned bytes.
    pub fn u8n(&mut self, data: &[u8], ty: &str) -> usize {
        let view = self.view(data, None);
        self.accessor(json!({"bufferView": view, "componentType": U8, "normalized": true, "count": data.len() / comps(ty), "type": ty}))
    }

    /// Normalized unsigned shorts.
    pub fn u16n(&mut self, data: &[u16], ty: &str) -> usize {
        let bytes: Vec<u8> = data.iter().flat_map(|x| x.to_le_bytes()).collect();
        let view = self.view(&bytes, None);
        self.accessor(json!({"bufferView": view, "componentType": U16, "normalized": true, "count": data.len() / comps(ty), "type": ty}))
    }

    fn merged(&self, mut doc: Value, buffer: Value) -> Value {
        doc["asset"] = json!({"version": "2.0"});
        if !self.bin.is_empty() {
            doc["buffers"] = json!([buffer]);
            doc["bufferViews"] = json!(self.views);
        }
        if !self.accessors.is_empty() {
            doc["accessors"] = json!(self.accessors);
        }
        doc
    }

    /// The document with its buffer as a data URI.
    pub fn gltf(&self, doc: Value) -> String {
        let b64 = base64::engine::general_purpose::STANDARD.encode(&self.bin);
        let buffer = json!({"byteLength": self.bin.len(), "uri": format!("data:application/octet-stream;base64,{b64}")});
        serde_json::to_string_pretty(&self.merged(doc, buffer)).unwrap()
    }

    /// The document with its buffer in an external file `uri` (not written).
    pub fn gltf_external(&self, doc: Value, uri: &str) -> String {
        let buffer = json!({"byteLength": self.bin.len(), "uri": uri});
        serde_json::to_string_pretty(&self.merged(doc, buffer)).unwrap()
    }

    /// The document as a GLB with a BIN chunk.
    pub fn glb(&self, doc: Value) -> Vec<u8> {
        let buffer = json!({"byteLength": self.bin.len()});
        let json = serde_json::to_string(&self.merged(doc, buffer)).unwrap();
        glb_bytes(&json, Some(&self.bin))
    }
}

/// A GLB container from JSON text and an optional BIN chunk.
pub fn glb_bytes(json: &str, bin: Option<&[u8]>) -> Vec<u8> {
    let mut j = json.as_bytes().to_vec();
    while !j.len().is_multiple_of(4) {
        j.push(b' ');
    }
    let mut out = Vec::new();
    out.extend_from_slice(b"glTF");
    out.extend_from_slice(&2u32.to_le_bytes());
    out.extend_from_slice(&0u32.to_le_bytes());
    out.extend_from_slice(&(j.len() as u32).to_le_bytes());
    out.extend_from_slice(b"JSON");
    out.extend_from_slice(&j);
    if let Some(b) = bin {
        let mut b = b.to_vec();
        while b.len() % 4 != 0 {
            b.push(0);
        }
        out.extend_from_slice(&(b.len() as u32).to_le_bytes());
        out.extend_from_slice(b"BIN\0");
        out.extend_from_slice(&b);
    }
    let n = out.len() as u32;
    out[8..12].copy_from_slice(&n.to_le_bytes());
    out
}

/// A fresh directory for one test.
pub fn temp_dir(name: &str) -> PathBuf {
    // One process runs every module of the test binary: the counter keeps two tests that
    // pass the same `name` apart.
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("plumb-io")
        .join(format!("{name}-{}-{n}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Writes `contents` to `dir/name` and returns the path.
pub fn write(dir: &Path, name: &str, contents: impl AsRef<[u8]>) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, contents).unwrap();
    p
}

/// A PNG of `w×h` filled with one colour.
pub fn png(w: u32, h: u32, c: [u8; 4]) -> Vec<u8> {
    let img = image::RgbaImage::from_pixel(w, h, image::Rgba(c));
    let mut out = std::io::Cursor::new(Vec::new());
    img.write_to(&mut out, image::ImageFormat::Png).unwrap();
    out.into_inner()
}

/// The unit right triangle in z = 0 (counter-clockwise seen from +z), indexed.
pub fn triangle(b: &mut Builder) -> Value {
    let pos = b.f32s(&[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0], "VEC3");
    let idx = b.u16s(&[0, 1, 2]);
    json!({
        "scene": 0,
        "scenes": [{"nodes": [0]}],
        "nodes": [{"name": "tri", "mesh": 0}],
        "meshes": [{"name": "m", "primitives": [{"attributes": {"POSITION": pos}, "indices": idx}]}]
    })
}
