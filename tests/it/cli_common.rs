//! Helpers shared by the CLI tests (the `cli*` modules of `tests/it/`, and the model goldens
//! in `tests/refimages/`): run the built `plumb` binary in a fresh directory and check its
//! exit status and messages.

#![allow(dead_code, reason = "the refimages binary uses a subset")]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicUsize, Ordering};

/// The `plumb` binary under test.
pub const BIN: &str = env!("CARGO_BIN_EXE_plumb");

/// A fresh, empty directory for one test under cargo's integration-test temp dir (one
/// subdirectory per test binary; a process-wide counter keeps two tests that pass the same
/// `name` apart, since every module of a binary shares its process).
pub fn temp_dir(name: &str) -> PathBuf {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("plumb-{}", env!("CARGO_CRATE_NAME")))
        .join(format!("{name}-{}-{n}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs `plumb args...` with `dir` as the working directory, without `$PLUMB_ASSETS`: an
/// asset path exported in the developer's shell would add the model cases to the small
/// corpora these tests build (and `conform` then wants their `models/cases.json`).
pub fn plumb(dir: &Path, args: &[&str]) -> Output {
    Command::new(BIN)
        .args(args)
        .current_dir(dir)
        .env_remove("PLUMB_ASSETS")
        .output()
        .expect("plumb binary runs")
}

/// Standard output as text.
pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Standard error as text.
pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Exit 0 (both streams shown otherwise).
pub fn assert_success(o: &Output) {
    assert_eq!(
        o.status.code(),
        Some(0),
        "stdout:\n{}\nstderr:\n{}",
        stdout(o),
        stderr(o)
    );
}

/// Exit 2, exactly one stderr line, starting with `error: ` and containing
/// `expect_in_message`, no panic.
pub fn assert_bad_input(o: &Output, expect_in_message: &str) {
    let err = stderr(o);
    assert_eq!(
        o.status.code(),
        Some(2),
        "stdout:\n{}\nstderr:\n{err}",
        stdout(o)
    );
    assert!(!err.contains("panicked"), "{err}");
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 1, "want one stderr line, got:\n{err}");
    assert!(lines[0].starts_with("error: "), "{err}");
    assert!(
        lines[0].contains(expect_in_message),
        "'{expect_in_message}' not in: {err}"
    );
}

/// Hand-built PNG files, byte by byte, for inputs no encoder writes: malformed chunks,
/// headers without data, Adam7 interlacing.
pub mod png_bytes {
    /// The PNG CRC-32 of `data`.
    pub fn crc32(data: &[u8]) -> u32 {
        let mut c = 0xffff_ffffu32;
        for &b in data {
            c ^= b as u32;
            for _ in 0..8 {
                c = if c & 1 != 0 {
                    0xedb8_8320 ^ (c >> 1)
                } else {
                    c >> 1
                };
            }
        }
        !c
    }

    /// Appends one chunk (length, type, data, CRC).
    pub fn chunk(out: &mut Vec<u8>, kind: &[u8; 4], data: &[u8]) {
        out.extend_from_slice(&(data.len() as u32).to_be_bytes());
        let start = out.len();
        out.extend_from_slice(kind);
        out.extend_from_slice(data);
        let crc = crc32(&out[start..]);
        out.extend_from_slice(&crc.to_be_bytes());
    }

    /// `data` as a zlib stream of stored (uncompressed) blocks.
    pub fn zlib_stored(data: &[u8]) -> Vec<u8> {
        let mut out = vec![0x78, 0x01];
        let blocks: Vec<&[u8]> = data.chunks(65_535).collect();
        if blocks.is_empty() {
            out.extend_from_slice(&[1, 0, 0, 0xff, 0xff]);
        }
        for (i, b) in blocks.iter().enumerate() {
            out.push(u8::from(i + 1 == blocks.len()));
            out.extend_from_slice(&(b.len() as u16).to_le_bytes());
            out.extend_from_slice(&(!(b.len() as u16)).to_le_bytes());
            out.extend_from_slice(b);
        }
        let (mut a, mut b) = (1u32, 0u32);
        for &x in data {
            a = (a + u32::from(x)) % 65_521;
            b = (b + a) % 65_521;
        }
        out.extend_from_slice(&((b << 16) | a).to_be_bytes());
        out
    }

    /// A PNG: signature, `IHDR` (13 bytes), the `extra` chunks, one `IDAT` holding `idat`
    /// as is, `IEND`.
    pub fn png(ihdr: &[u8; 13], extra: &[(&[u8; 4], &[u8])], idat: &[u8]) -> Vec<u8> {
        let mut out = b"\x89PNG\r\n\x1a\n".to_vec();
        chunk(&mut out, b"IHDR", ihdr);
        for (kind, data) in extra {
            chunk(&mut out, kind, data);
        }
        chunk(&mut out, b"IDAT", idat);
        chunk(&mut out, b"IEND", &[]);
        out
    }

    /// `IHDR` data: size, bit depth, colour type, interlace method.
    pub fn ihdr(w: u32, h: u32, depth: u8, color: u8, interlace: u8) -> [u8; 13] {
        let mut d = [0u8; 13];
        d[..4].copy_from_slice(&w.to_be_bytes());
        d[4..8].copy_from_slice(&h.to_be_bytes());
        d[8] = depth;
        d[9] = color;
        d[12] = interlace;
        d
    }

    /// An 8-bit RGBA image as an **Adam7-interlaced** PNG: the seven passes' scanlines
    /// (filter type 0) in order, stored uncompressed.
    pub fn interlaced_rgba(img: &image::RgbaImage) -> Vec<u8> {
        const PASSES: [(u32, u32, u32, u32); 7] = [
            (0, 0, 8, 8),
            (4, 0, 8, 8),
            (0, 4, 4, 8),
            (2, 0, 4, 4),
            (0, 2, 2, 4),
            (1, 0, 2, 2),
            (0, 1, 1, 2),
        ];
        let (w, h) = img.dimensions();
        let mut raw = Vec::new();
        for (x0, y0, dx, dy) in PASSES {
            if x0 >= w || y0 >= h {
                continue; // an empty pass has no scanlines
            }
            for y in (y0..h).step_by(dy as usize) {
                raw.push(0);
                for x in (x0..w).step_by(dx as usize) {
                    raw.extend_from_slice(&img.get_pixel(x, y).0);
                }
            }
        }
        png(&ihdr(w, h, 8, 6, 1), &[], &zlib_stored(&raw))
    }
}
