//! `report` on the example sessions (every format against its expected file) and on generated
//! folders (every row against the library's own ledger of the file, `--since`, `--until`,
//! `--top`, `--prices`).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::arithmetic_side_effects
)]

mod common;

use std::path::Path;

use common::{json, put, repo, run, run_in, zstd};
use promptfold::testkit::log::{build, Plan};
use promptfold::{CacheOptions, Conversation, Prices};
use serde_json::Value;

const PRICES: &str = "cli/tests/data/prices.json";

/// Compares a run's output with an expected file; `UPDATE_EXPECTED=1` rewrites the file (to be
/// checked by hand before it is committed).
fn expect(name: &str, actual: &str) {
    let path = repo().join("cli/tests/data").join(name);
    if std::env::var_os("UPDATE_EXPECTED").is_some() {
        std::fs::write(&path, actual).unwrap();
    }
    let expected = std::fs::read_to_string(&path).unwrap();
    assert_eq!(actual, expected, "{name} differs from the output");
}

#[test]
fn examples_in_every_format_match_their_expected_files() {
    for (format, file) in [
        ("table", "report-examples.txt"),
        ("json", "report-examples.json"),
        ("jsonl", "report-examples.jsonl"),
        ("csv", "report-examples.csv"),
    ] {
        let out = run(&[
            "report",
            "examples/sessions",
            "--prices",
            PRICES,
            "--format",
            format,
        ]);
        // format2.jsonl cannot be read: exit 1, the rest reported.
        assert_eq!(out.code, 1, "{format}: {}", out.stderr);
        expect(file, &out.stdout);
        // Machine output never holds the progress bar or the summary line.
        if format != "table" {
            assert!(!out.stdout.contains("promptfold:"), "{format}");
        }
    }
}

#[test]
fn the_table_fits_100_columns() {
    let out = run(&["report", "examples/sessions", "--prices", PRICES]);
    for line in out.stdout.lines() {
        assert!(
            line.chars().count() <= 100,
            "{} columns: {line}",
            line.chars().count()
        );
    }
}

/// A header row for a generated log.
fn header(index: u64, created: i64) -> String {
    format!(
        "{{\"type\":\"session\",\"version\":4,\"id\":\"gen-{index}\",\"createdAt\":{created},\"cwd\":\"/w\"}}\n"
    )
}

const DAY: i64 = 86_400_000;
const T0: i64 = 1_790_000_000_000;

/// A folder of generated sessions in the harness's layout (every third one zstd), and the text
/// of each by its path.
fn generated(root: &Path, count: u64) -> Vec<(String, Vec<u8>)> {
    let mut files = Vec::new();
    for index in 0..count {
        let mut text = header(index, T0 + i64::try_from(index).unwrap() * DAY).into_bytes();
        for event in build(&Plan::seeded(index + 1, 120)) {
            text.extend_from_slice(serde_json::to_string(&event).unwrap().as_bytes());
            text.push(b'\n');
        }
        let relative = if index % 3 == 2 {
            let path = format!(
                "fleet/scope-{}/gen-{index}/session.v4.jsonl.zstd",
                index % 2
            );
            put(root, &path, &zstd(&text));
            path
        } else {
            let path = format!("fleet/scope-{}/gen-{index}/session.v4.jsonl", index % 2);
            put(root, &path, &text);
            path
        };
        files.push((relative, text));
    }
    files
}

/// The library's ledger summary of a whole file.
fn ledger(text: &[u8], options: &CacheOptions) -> Value {
    let mut conversation = Conversation::new();
    conversation
        .load_json(text, promptfold::LoadOptions::default())
        .unwrap();
    serde_json::to_value(conversation.cache_ledger(options).unwrap().summary).unwrap()
}

fn rows(report: &Value) -> &Vec<Value> {
    report["sessions"].as_array().unwrap()
}

fn row<'a>(report: &'a Value, path: &str) -> &'a Value {
    rows(report).iter().find(|row| row["path"] == path).unwrap()
}

#[test]
fn each_row_of_a_generated_folder_equals_the_library_ledger() {
    let dir = tempfile::tempdir().unwrap();
    let files = generated(dir.path(), 12);
    let prices: Prices =
        serde_json::from_slice(&std::fs::read(repo().join(PRICES)).unwrap()).unwrap();
    let options = CacheOptions::default().with_prices(Some(prices));
    let prices_path = repo().join(PRICES);
    let out = run_in(
        dir.path(),
        &[
            "report",
            "fleet",
            "--format",
            "json",
            "--prices",
            prices_path.to_str().unwrap(),
        ],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    let report = json(&out);
    assert_eq!(rows(&report).len(), files.len());
    let mut broken_total = 0.0;
    let mut cost_total = 0.0;
    let mut some_breaks = false;
    for (path, text) in &files {
        let summary = ledger(text, &options);
        let row = row(&report, path);
        assert_eq!(
            row["sessionId"],
            format!(
                "gen-{}",
                path.split('/').nth(2).unwrap().trim_start_matches("gen-")
            )
        );
        assert_eq!(row["bytes"], text.len());
        assert_eq!(row["requests"], summary["requests"], "{path}");
        assert_eq!(row["knownRequests"], summary["knownRequests"], "{path}");
        for member in ["totalTokens", "keptTokens", "newTokens", "brokenTokens"] {
            let expected = summary[member].as_f64().unwrap();
            if member != "totalTokens" && summary["knownRequests"] == 0 {
                assert_eq!(row[member], Value::Null, "{path} {member}: unknown, not 0");
            } else {
                assert_eq!(row[member].as_f64().unwrap(), expected, "{path} {member}");
            }
        }
        assert_eq!(
            row["expectedHitRate"],
            summary
                .get("expectedHitRate")
                .cloned()
                .unwrap_or(Value::Null)
        );
        for group in summary["breaks"].as_array().unwrap() {
            let column = match group["kind"].as_str().unwrap() {
                "route" => "brokenRoute",
                "tools" => "brokenTools",
                "system-rewrite" => "brokenSystemRewrite",
                "compaction" => "brokenCompaction",
                "prune" => "brokenPrune",
                "replacement" => "brokenReplacement",
                "series" => "brokenSeries",
                other => panic!("cause {other}"),
            };
            assert_eq!(
                row[column].as_f64().unwrap(),
                group["brokenTokens"].as_f64().unwrap(),
                "{path} {column}"
            );
            some_breaks = true;
        }
        let cost = summary["cost"]["total"].as_f64().unwrap();
        assert!(
            (row["cost"].as_f64().unwrap() - cost).abs() < 1e-12,
            "{path} cost"
        );
        broken_total += summary["brokenTokens"].as_f64().unwrap();
        cost_total += cost;
    }
    assert!(some_breaks, "the generated logs break the cache somewhere");
    assert_eq!(
        report["totals"]["brokenTokens"].as_f64().unwrap(),
        broken_total
    );
    assert!((report["totals"]["cost"].as_f64().unwrap() - cost_total).abs() < 1e-9);
    assert_eq!(report["counts"]["files"], 12);
    assert_eq!(report["counts"]["problems"], 0);
}

#[test]
fn since_and_until_select_by_created_at() {
    let dir = tempfile::tempdir().unwrap();
    generated(dir.path(), 10);
    // Sessions 0..9 were created a day apart from T0: [T0 + 3 days, T0 + 7 days) holds 3..6.
    let since = (T0 + 3 * DAY).to_string();
    let until = (T0 + 7 * DAY).to_string();
    let out = run_in(
        dir.path(),
        &[
            "report", "fleet", "--format", "json", "--since", &since, "--until", &until,
        ],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    let report = json(&out);
    let mut ids: Vec<String> = rows(&report)
        .iter()
        .map(|row| row["sessionId"].as_str().unwrap().to_string())
        .collect();
    ids.sort();
    assert_eq!(ids, ["gen-3", "gen-4", "gen-5", "gen-6"]);
    assert_eq!(report["counts"]["filteredOut"], 6);
    assert_eq!(report["counts"]["files"], 10);
    // A date form: T0 is 2026-09-21T14:13:20Z, so 2026-09-25 (midnight UTC) admits gen-4 on.
    let out = run_in(
        dir.path(),
        &[
            "report",
            "fleet",
            "--format",
            "json",
            "--since",
            "2026-09-25",
        ],
    );
    let report = json(&out);
    assert_eq!(rows(&report).len(), 6);
    // Sessions without a header have no createdAt: a time window leaves them out.
    put(
        dir.path(),
        "fleet/loose.jsonl",
        &common::example("notifications.jsonl"),
    );
    let out = run_in(
        dir.path(),
        &[
            "report",
            "fleet/loose.jsonl",
            "--format",
            "json",
            "--since",
            "0",
        ],
    );
    assert_eq!(json(&out)["counts"]["filteredOut"], 1);
}

#[test]
fn top_keeps_the_sessions_that_lost_most_and_the_totals_of_all() {
    let dir = tempfile::tempdir().unwrap();
    let files = generated(dir.path(), 9);
    let all = json(&run_in(
        dir.path(),
        &["report", "fleet", "--format", "json"],
    ));
    let top = json(&run_in(
        dir.path(),
        &["report", "fleet", "--format", "json", "--top", "3"],
    ));
    let mut broken: Vec<(i64, String)> = files
        .iter()
        .map(|(path, text)| {
            let summary = ledger(text, &CacheOptions::default());
            let tokens = if summary["knownRequests"] == 0 {
                0
            } else {
                summary["brokenTokens"].as_f64().unwrap() as i64
            };
            (-tokens, path.clone())
        })
        .collect();
    broken.sort();
    let expected: Vec<String> = broken
        .iter()
        .take(3)
        .map(|(_, path)| path.clone())
        .collect();
    let got: Vec<String> = rows(&top)
        .iter()
        .map(|row| row["path"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(got, expected);
    assert_eq!(top["totals"], all["totals"]);
    assert_eq!(top["counts"]["sessions"], 9);
    let table = run_in(dir.path(), &["report", "fleet", "--top", "3"]);
    assert!(table.stdout.contains("TOTAL (3 of 9)"), "{}", table.stdout);
}

#[test]
fn prices_change_only_the_money_columns() {
    let dir = tempfile::tempdir().unwrap();
    generated(dir.path(), 4);
    let prices_path = repo().join(PRICES);
    let plain = json(&run_in(
        dir.path(),
        &["report", "fleet", "--format", "json"],
    ));
    let priced = json(&run_in(
        dir.path(),
        &[
            "report",
            "fleet",
            "--format",
            "json",
            "--prices",
            prices_path.to_str().unwrap(),
        ],
    ));
    assert_eq!(plain["totals"]["cost"], Value::Null);
    assert!(priced["totals"]["cost"].as_f64().unwrap() > 0.0);
    for (a, b) in rows(&plain).iter().zip(rows(&priced)) {
        assert_eq!(a["cost"], Value::Null);
        assert!(b["cost"].as_f64().is_some());
        for member in [
            "requests",
            "totalTokens",
            "keptTokens",
            "brokenTokens",
            "topCause",
        ] {
            assert_eq!(a[member], b[member], "{member}");
        }
    }
    // CSV: the same rows, one line each after the header, cost filled in.
    let csv = run_in(
        dir.path(),
        &[
            "report",
            "fleet",
            "--format",
            "csv",
            "--prices",
            prices_path.to_str().unwrap(),
        ],
    );
    let mut lines = csv.stdout.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let cost_at = header.iter().position(|name| *name == "cost").unwrap();
    let rows_csv: Vec<&str> = lines.collect();
    assert_eq!(rows_csv.len(), 4);
    for line in rows_csv {
        let cells: Vec<&str> = line.split(',').collect();
        assert_eq!(cells.len(), header.len());
        assert!(cells[cost_at].parse::<f64>().unwrap() > 0.0);
    }
}

/// A generated log as JSON lines, its seqs moved past `after`, its texts holding multi-byte
/// characters.
fn page(seed: u64, after: i64) -> Vec<u8> {
    let mut text = Vec::new();
    for mut event in build(&Plan::seeded(seed, 400)) {
        let seq = event["seq"].as_i64().unwrap() + after + 1;
        event["seq"] = Value::from(seq);
        let line = serde_json::to_string(&event).unwrap();
        text.extend_from_slice(line.replace("\"text\":\"", "\"text\":\"é—").as_bytes());
        text.push(b'\n');
    }
    text
}

#[test]
fn a_session_over_many_read_blocks_equals_the_library() {
    // Several MiB: the command reads 1 MiB blocks, so lines (and UTF-8 characters) straddle
    // block ends; the row must still equal the library's ledger of the whole text.
    let dir = tempfile::tempdir().unwrap();
    // A header line longer than a block (members vary: the library keeps it whole).
    let mut bytes = header(0, T0).into_bytes();
    let long = format!(",\"notes\":\"{}\"}}\n", "ü".repeat(900_000));
    bytes.truncate(bytes.len() - 2);
    bytes.extend_from_slice(long.as_bytes());
    let mut conversation = Conversation::new();
    conversation
        .load_json(&bytes, promptfold::LoadOptions::default())
        .unwrap();
    let mut seed = 1;
    while bytes.len() < 5 << 20 {
        let last = conversation.events().last().map_or(0, |event| event.seq);
        let page = page(seed, last);
        seed += 1;
        // Pages the library refuses to append (a time going back) are left out.
        if conversation.append_json(&page).is_ok() {
            bytes.extend_from_slice(&page);
        }
    }
    assert!(conversation.len() > 5_000, "{}", conversation.len());
    put(dir.path(), "big/s/session.v4.jsonl", &bytes);
    put(dir.path(), "big/z/session.v4.jsonl.zstd", &zstd(&bytes));
    let out = run_in(dir.path(), &["report", "big", "--format", "json"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let report = json(&out);
    let summary = ledger(&bytes, &CacheOptions::default());
    assert!(summary["requests"].as_u64().unwrap() > 100);
    for path in ["big/s/session.v4.jsonl", "big/z/session.v4.jsonl.zstd"] {
        let row = row(&report, path);
        assert_eq!(row["bytes"], bytes.len(), "{path}");
        assert_eq!(row["events"], conversation.len(), "{path}");
        assert_eq!(row["requests"], summary["requests"], "{path}");
        for member in ["totalTokens", "keptTokens", "newTokens", "brokenTokens"] {
            assert_eq!(
                row[member].as_f64(),
                summary[member].as_f64(),
                "{path} {member}"
            );
        }
    }
}
