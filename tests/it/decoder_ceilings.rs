//! Issue 50, class 1: a decoder is given an output ceiling from what the image declares. A
//! 4 × 4 PNG whose compressed iCCP and zTXt chunks inflate to hundreds of megabytes was read
//! with the `image` crate's default ceiling (512 MiB, whatever the image's size): 400 MB of
//! profile for a 64-byte image, at header time. The header is now read with a 16 MiB
//! allowance for metadata, and the decode with the image's pixels (at 8 bytes each) plus that.

use std::path::Path;
use std::process::Command;

use crate::cli_common::{png_bytes, temp_dir, BIN};

/// A zlib stream of `n` zero bytes in a few bytes per 258 (fixed Huffman codes: one literal,
/// then length-258, distance-1 matches).
fn zlib_zeros(n: usize) -> Vec<u8> {
    struct Bits {
        out: Vec<u8>,
        acc: u64,
        n: u32,
    }
    impl Bits {
        fn put(&mut self, v: u64, bits: u32) {
            self.acc |= v << self.n;
            self.n += bits;
            while self.n >= 8 {
                self.out.push(self.acc as u8);
                self.acc >>= 8;
                self.n -= 8;
            }
        }
        /// A Huffman code, most significant bit first.
        fn code(&mut self, code: u64, len: u32) {
            let rev = (0..len).fold(0, |r, i| (r << 1) | ((code >> i) & 1));
            self.put(rev, len);
        }
    }
    let mut b = Bits {
        out: vec![0x78, 0x01],
        acc: 0,
        n: 0,
    };
    b.put(1, 1); // final block
    b.put(1, 2); // fixed Huffman codes
    b.code(0x30, 8); // literal 0
    let mut left = n - 1;
    while left >= 258 {
        b.code(0xC5, 8); // length 258 (symbol 285)
        b.code(0, 5); // distance 1
        left -= 258;
    }
    for _ in 0..left {
        b.code(0x30, 8);
    }
    b.code(0, 7); // end of block
    b.put(0, 7); // flush to a byte
    let mut out = b.out;
    let adler = ((n % 65521) as u32) << 16 | 1;
    out.extend(adler.to_be_bytes());
    out
}

/// Peak resident memory, in KiB, of `plumb args…` run in `dir` (through `/usr/bin/time`),
/// and whether it succeeded; `None` where there is no `/usr/bin/time`.
fn peak_kib(dir: &Path, args: &[&str]) -> Option<(u64, bool)> {
    let out = Command::new("/usr/bin/time")
        .args(["-f", "peak %M"])
        .arg(BIN)
        .args(args)
        .current_dir(dir)
        .output()
        .ok()?;
    let err = String::from_utf8_lossy(&out.stderr);
    let kib = err.lines().rev().find_map(|l| l.strip_prefix("peak "))?;
    Some((kib.trim().parse().ok()?, out.status.success()))
}

#[test]
fn png_metadata_is_inflated_within_a_ceiling() {
    let dir = temp_dir("png-iccp-bomb");
    let mut icc = b"icc\0\0".to_vec();
    icc.extend(zlib_zeros(200 << 20));
    let mut ztxt = b"k\0\0".to_vec();
    ztxt.extend(zlib_zeros(200 << 20));
    let pixels: Vec<u8> = (0..4)
        .flat_map(|_| [0u8].into_iter().chain([0x80; 16]))
        .collect();
    let png = png_bytes::png(
        &png_bytes::ihdr(4, 4, 8, 6, 0),
        &[(b"iCCP", &icc), (b"zTXt", &ztxt)],
        &png_bytes::zlib_stored(&pixels),
    );
    assert!(png.len() < 3 << 20, "{}", png.len());
    std::fs::write(dir.join("bomb.png"), &png).unwrap();
    let gltf = r#"{"asset":{"version":"2.0"},"scene":0,"scenes":[{"nodes":[0]}],"nodes":[{"mesh":0}],
"meshes":[{"primitives":[{"attributes":{"POSITION":0},"material":0}]}],
"materials":[{"pbrMetallicRoughness":{"baseColorTexture":{"index":0}}}],
"textures":[{"source":0}],"images":[{"uri":"bomb.png"}],
"accessors":[{"bufferView":0,"componentType":5126,"count":3,"type":"VEC3","min":[0,0,0],"max":[1,1,0]}],
"bufferViews":[{"buffer":0,"byteLength":36}],
"buffers":[{"byteLength":36,"uri":"data:application/octet-stream;base64,AAAAAAAAAAAAAAAAAACAPwAAAAAAAAAAAAAAAAAAgD8AAAAA"}]}"#;
    std::fs::write(dir.join("m.gltf"), gltf).unwrap();
    let Some((kib, ok)) = peak_kib(&dir, &["info", "m.gltf"]) else {
        eprintln!("no /usr/bin/time: peak memory not measured");
        return;
    };
    // The image still loads (the oversized profile is dropped, as plumb does no colour
    // management), in a few tens of megabytes, not the 200 MB each chunk declares.
    assert!(ok, "plumb info failed");
    assert!(kib < 100 << 10, "peak {kib} KiB");
}
