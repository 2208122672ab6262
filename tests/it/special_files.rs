//! Issue 50, class 3: special files defeat size limits no more. `--view` (1 MiB) and
//! `conform --timings` (64 MiB) checked the size from the path's metadata and then read the
//! path: a FIFO blocked forever, `/dev/zero` was read until 4.2 GB. Every input is now opened
//! without blocking, checked on the opened handle to be a regular file, and read no further
//! than its limit plus one byte (`plumb_scene::io::read_regular`).

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use crate::cli_common::{assert_bad_input, temp_dir, BIN};

/// A FIFO in `dir` (made by `mkfifo`, which nothing ever writes to).
fn fifo(dir: &Path) -> PathBuf {
    let p = dir.join("pipe");
    let made = Command::new("mkfifo")
        .arg(&p)
        .status()
        .expect("mkfifo runs");
    assert!(made.success());
    p
}

/// Runs `f` on a thread; a call that has not returned after `secs` fails the test (instead
/// of hanging it, as a FIFO did before the fix).
fn within<T: Send + 'static>(what: &str, secs: u64, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(Duration::from_secs(secs))
        .unwrap_or_else(|_| panic!("{what}: still running after {secs} s"))
}

/// Runs `plumb args…` in `dir`, killed after 20 s.
fn plumb_within(dir: &Path, args: &[&str]) -> Output {
    let mut child = Command::new(BIN)
        .args(args)
        .current_dir(dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("plumb runs");
    let start = Instant::now();
    while child.try_wait().expect("wait").is_none() {
        if start.elapsed() > Duration::from_secs(20) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("plumb {args:?}: still running after 20 s");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().expect("output")
}

/// A one-triangle glTF with its buffer inline.
const TRIANGLE: &str = r#"{"asset":{"version":"2.0"},"scene":0,"scenes":[{"nodes":[0]}],
"nodes":[{"mesh":0}],"meshes":[{"primitives":[{"attributes":{"POSITION":0}}]}],
"accessors":[{"bufferView":0,"componentType":5126,"count":3,"type":"VEC3","min":[0,0,0],"max":[1,1,0]}],
"bufferViews":[{"buffer":0,"byteLength":36}],
"buffers":[{"byteLength":36,"uri":"data:application/octet-stream;base64,AAAAAAAAAAAAAAAAAACAPwAAAAAAAAAAAAAAAAAAgD8AAAAA"}]}"#;

#[cfg(unix)]
#[test]
fn view_flag_refuses_fifos_and_devices_at_once() {
    let dir = temp_dir("view-special");
    std::fs::write(dir.join("t.gltf"), TRIANGLE).unwrap();
    let pipe = fifo(&dir);
    for (view, kind) in [
        (pipe.to_str().unwrap(), "a FIFO"),
        ("/dev/zero", "a character device"),
        ("/dev/urandom", "a character device"),
        (".", "a directory"),
    ] {
        let start = Instant::now();
        let out = plumb_within(&dir, &["render", "t.gltf", "--view", view, "-o", "o.png"]);
        assert_bad_input(&out, &format!("--view {view}: not a regular file ({kind})"));
        assert!(start.elapsed() < Duration::from_secs(5), "{view}");
    }
}

#[cfg(unix)]
#[test]
fn timings_refuse_fifos_and_devices_at_once() {
    let dir = temp_dir("timings-special");
    let pipe = fifo(&dir);
    for (path, kind) in [
        (pipe, "a FIFO"),
        (PathBuf::from("/dev/zero"), "a character device"),
    ] {
        let shown = path.display().to_string();
        let e = within(&shown, 10, move || {
            plumb::conform::shard::read_timings(&path).expect_err("refused")
        })
        .to_string();
        assert_eq!(e, format!("{shown}: not a regular file ({kind})"));
    }
}

#[cfg(unix)]
#[test]
fn list_files_and_goldens_refuse_fifos() {
    let dir = temp_dir("lists-special");
    let pipe = fifo(&dir);
    let p = pipe.clone();
    let e = within("tolerances", 10, move || {
        plumb::conform::Tolerances::load(&p).expect_err("refused")
    });
    assert!(e.to_string().contains("not a regular file (a FIFO)"), "{e}");
    let p = pipe.clone();
    let e = within("cases", 10, move || {
        plumb::conform::ModelCases::load(&p).expect_err("refused")
    });
    assert!(e.to_string().contains("not a regular file (a FIFO)"), "{e}");
    // `plumb diff` opens its images on the handle too.
    let out = plumb_within(&dir, &["diff", "pipe", "/dev/zero"]);
    assert_bad_input(&out, "not a regular file (a FIFO)");
}

#[test]
fn reads_stop_at_the_limit_plus_one_byte() {
    use plumb::scene::io::{read_regular, ReadRefusal};
    let dir = temp_dir("read-limit");
    let p = dir.join("f");
    std::fs::write(&p, [7u8; 100]).unwrap();
    assert_eq!(read_regular(&p, 100).unwrap().len(), 100);
    assert_eq!(
        read_regular(&p, 99),
        Err(ReadRefusal::TooLarge {
            size: Some(100),
            max: 99
        })
    );
    assert!(matches!(
        read_regular(&dir.join("missing"), 9),
        Err(ReadRefusal::Io(_))
    ));
}
