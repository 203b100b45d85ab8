//! A reader that goes away (`promptfold ... | head`) ends the run quietly with status 0, in every
//! output format (docs/cli.md, "Exit status").

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::path::Path;
use std::process::{Command, Stdio};

use common::{example, put, repo};

/// Runs `promptfold args...` in `dir` with its standard output a pipe whose reader is closed at
/// once; returns the exit status and the standard error.
fn run_into_closed_pipe(dir: &Path, args: &[&str]) -> (i32, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_promptfold"))
        .args(args)
        .current_dir(dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Every output below is larger than a pipe's buffer (64 KiB), so the command meets the
    // closed reader whether it writes before or after this drop.
    drop(child.stdout.take());
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8(output.stderr).unwrap();
    (output.status.code().unwrap_or(-1), stderr)
}

#[test]
fn a_reader_that_goes_away_ends_every_output_with_status_0() {
    let dir = tempfile::tempdir().unwrap();
    let log = example("session.jsonl");
    // 600 sessions: over 100 KB of rows in every format of `report`.
    for i in 0..600 {
        put(dir.path(), &format!("s/{i}/session.v4.jsonl"), &log);
    }
    for format in ["table", "json", "jsonl", "csv"] {
        let args = ["report", "s", "--quiet", "--format", format];
        let (code, stderr) = run_into_closed_pipe(dir.path(), &args);
        assert_eq!((code, stderr.as_str()), (0, ""), "report --format {format}");
    }
    // `show --json` of the cache session: about 96 KB.
    let session = repo().join("examples/sessions/cache-breaks.jsonl");
    let session = session.to_str().unwrap();
    for args in [vec!["show", session, "--json"], vec!["show", session]] {
        let (code, stderr) = run_into_closed_pipe(dir.path(), &args);
        assert_eq!((code, stderr.as_str()), (0, ""), "{args:?}");
    }
}
