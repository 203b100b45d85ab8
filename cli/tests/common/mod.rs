//! Helpers of the command's integration tests: run the binary, build folders of session files.

#![allow(
    dead_code,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing
)]

use std::path::{Path, PathBuf};
use std::process::Command;

/// The repository's root (the library's checkout).
pub fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// An example session file's bytes.
pub fn example(name: &str) -> Vec<u8> {
    std::fs::read(repo().join("examples/sessions").join(name)).unwrap()
}

/// What a run of the command gave.
pub struct Run {
    pub stdout: String,
    pub stderr: String,
    pub code: i32,
}

/// Runs `promptfold args...` in `dir`.
pub fn run_in(dir: &Path, args: &[&str]) -> Run {
    let output = Command::new(env!("CARGO_BIN_EXE_promptfold"))
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    Run {
        stdout: String::from_utf8(output.stdout).unwrap(),
        stderr: String::from_utf8(output.stderr).unwrap(),
        code: output.status.code().unwrap_or(-1),
    }
}

/// Runs `promptfold args...` at the repository's root.
pub fn run(args: &[&str]) -> Run {
    run_in(&repo(), args)
}

/// Writes `bytes` at `dir/relative`, making the folders.
pub fn put(dir: &Path, relative: &str, bytes: &[u8]) -> PathBuf {
    let path = dir.join(relative);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, bytes).unwrap();
    path
}

/// `bytes` as one zstd frame.
pub fn zstd(bytes: &[u8]) -> Vec<u8> {
    zstd::encode_all(bytes, 3).unwrap()
}

/// The JSON document of a `--format json` run.
pub fn json(run: &Run) -> serde_json::Value {
    serde_json::from_str(&run.stdout).unwrap()
}
