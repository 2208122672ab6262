//! Helpers shared by the CLI test binaries (`tests/cli.rs`, `tests/cli_render.rs`): run the
//! built `plumb` binary in a fresh directory and check its exit status and messages.

#![allow(dead_code, reason = "each test binary uses a different subset")]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The `plumb` binary under test.
pub const BIN: &str = env!("CARGO_BIN_EXE_plumb");

/// A fresh, empty directory for one test under cargo's integration-test temp dir (one
/// subdirectory per test binary).
pub fn temp_dir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("plumb-{}", env!("CARGO_CRATE_NAME")))
        .join(format!("{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs `plumb args...` with `dir` as the working directory.
pub fn plumb(dir: &Path, args: &[&str]) -> Output {
    Command::new(BIN)
        .args(args)
        .current_dir(dir)
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
