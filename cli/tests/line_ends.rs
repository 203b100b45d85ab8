//! Session files as editors and other platforms save them: CRLF line ends and a UTF-8 byte order
//! mark, plain and zstd, small and over the command's 1 MiB read block, give the rows the plain
//! file gives.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects
)]

mod common;

use common::{example, json, put, run_in, zstd};
use promptfold::testkit::log::{build, Plan};
use serde_json::Value;

/// A generated session of `events` events, over one read block when `events` is large.
fn generated(events: usize) -> Vec<u8> {
    let mut text =
        b"{\"type\":\"session\",\"version\":4,\"id\":\"gen\",\"createdAt\":1790000000000}\n"
            .to_vec();
    for event in build(&Plan::seeded(11, events)) {
        text.extend_from_slice(serde_json::to_string(&event).unwrap().as_bytes());
        text.push(b'\n');
    }
    text
}

fn crlf(text: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len() + text.len() / 16);
    for byte in text {
        if *byte == b'\n' {
            out.push(b'\r');
        }
        out.push(*byte);
    }
    out
}

fn bom(text: &[u8]) -> Vec<u8> {
    let mut out = "\u{feff}".as_bytes().to_vec();
    out.extend_from_slice(text);
    out
}

/// The session row of a one-file report, without the members that name the file.
fn row(dir: &std::path::Path, relative: &str, bytes: &[u8]) -> Value {
    put(dir, relative, bytes);
    let out = run_in(dir, &["report", relative, "--format", "json", "--quiet"]);
    assert_eq!(out.code, 0, "{relative}: {}", out.stderr);
    let report = json(&out);
    assert_eq!(report["errors"], Value::Array(Vec::new()), "{relative}");
    let mut row = report["sessions"][0].clone();
    let members = row.as_object_mut().unwrap();
    members.remove("path");
    members.remove("bytes");
    row
}

#[test]
fn crlf_and_a_byte_order_mark_read_as_the_plain_file() {
    let dir = tempfile::tempdir().unwrap();
    let large = generated(6000);
    assert!(large.len() > 1 << 20, "{} bytes", large.len());
    for (name, text) in [
        ("cache-breaks", example("cache-breaks.jsonl")),
        ("large", large),
    ] {
        let plain = row(dir.path(), &format!("{name}/lf.jsonl"), &text);
        assert!(plain["requests"].as_u64().unwrap() > 0, "{name}: {plain}");
        for (variant, bytes) in [
            ("crlf.jsonl", crlf(&text)),
            ("bom.jsonl", bom(&text)),
            ("bom-crlf.jsonl", bom(&crlf(&text))),
            ("bom-crlf.jsonl.zst", zstd(&bom(&crlf(&text)))),
        ] {
            let other = row(dir.path(), &format!("{name}/{variant}"), &bytes);
            assert_eq!(other, plain, "{name}/{variant}");
        }
    }
}
