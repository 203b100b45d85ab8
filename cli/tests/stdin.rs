//! `-` stands for standard input in `show` and `report`: a log piped in (plain or zstd) gives
//! what the same file gives.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod common;

use std::io::Write;
use std::process::{Command, Stdio};

use common::{example, put, run_in, zstd, Run};

/// Runs `promptfold args...` in `dir` with `input` on its standard input.
fn piped(dir: &std::path::Path, args: &[&str], input: &[u8]) -> Run {
    let mut child = Command::new(env!("CARGO_BIN_EXE_promptfold"))
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_vec();
    let writer = std::thread::spawn(move || {
        // The command may stop reading early (an error): a broken pipe here is its business.
        let _ = stdin.write_all(&input);
    });
    let output = child.wait_with_output().unwrap();
    writer.join().unwrap();
    Run {
        stdout: String::from_utf8(output.stdout).unwrap(),
        stderr: String::from_utf8(output.stderr).unwrap(),
        code: output.status.code().unwrap_or(-1),
    }
}

/// `value` without its `path` members (they name the file or `-`).
fn without_paths(mut value: serde_json::Value) -> serde_json::Value {
    match &mut value {
        serde_json::Value::Object(members) => {
            members.remove("path");
            for member in members.values_mut() {
                *member = without_paths(member.take());
            }
        }
        serde_json::Value::Array(items) => {
            for item in items.iter_mut() {
                *item = without_paths(item.take());
            }
        }
        _ => {}
    }
    value
}

#[test]
fn a_dash_reads_standard_input_plain_or_zstd() {
    let dir = tempfile::tempdir().unwrap();
    let text = example("session.jsonl");
    put(dir.path(), "s.jsonl", &text);
    let json = |run: &Run| serde_json::from_str::<serde_json::Value>(&run.stdout).unwrap();

    let file = run_in(dir.path(), &["show", "s.jsonl", "--json"]);
    for input in [text.clone(), zstd(&text)] {
        let dash = piped(dir.path(), &["show", "-", "--json"], &input);
        assert_eq!(dash.code, 0, "{}", dash.stderr);
        assert_eq!(json(&dash)["path"], "-");
        assert_eq!(without_paths(json(&dash)), without_paths(json(&file)));
    }

    let file = run_in(dir.path(), &["report", "s.jsonl", "--format", "json", "-q"]);
    let dash = piped(
        dir.path(),
        &["report", "-", "--format", "json", "-q"],
        &zstd(&text),
    );
    assert_eq!(dash.code, 0, "{}", dash.stderr);
    assert_eq!(json(&dash)["sessions"][0]["path"], "-");
    assert_eq!(without_paths(json(&dash)), without_paths(json(&file)));
    // Given twice, standard input is read once.
    let twice = piped(
        dir.path(),
        &["report", "-", "-", "--format", "json", "-q"],
        &text,
    );
    assert_eq!(json(&twice)["counts"]["files"], 1, "{}", twice.stderr);
    // Nothing piped in is an empty file.
    let empty = piped(dir.path(), &["report", "-", "-q"], b"");
    assert_eq!(empty.code, 1);
    assert!(
        empty.stderr.contains("-: not-a-session-log"),
        "{}",
        empty.stderr
    );
    assert!(
        empty.stderr.contains("the file is empty"),
        "{}",
        empty.stderr
    );
}

#[cfg(target_os = "linux")]
#[test]
fn a_pipe_named_on_the_command_line_is_read() {
    // `report <(zstdcat s.jsonl.zst)` names a pipe (/dev/fd/63): not a regular file, yet given.
    let dir = tempfile::tempdir().unwrap();
    let text = example("session.jsonl");
    let run = piped(
        dir.path(),
        &["report", "/dev/stdin", "--format", "json", "-q"],
        &text,
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let report: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(report["counts"]["sessions"], 1, "{}", run.stderr);
    assert_eq!(report["sessions"][0]["path"], "/dev/stdin");
}
