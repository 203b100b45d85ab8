//! `show` of each example session equals what the library's `views()` and `cache_ledger()` give
//! for it, loaded whole with `load_json_bytes` (the command reads it in chunks through `feed`).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::arithmetic_side_effects
)]

mod common;

use common::{example, repo, run};
use promptfold::{CacheOptions, Conversation, Prices};
use serde_json::Value;

const PRICES: &str = "cli/tests/data/prices.json";

fn library(text: &[u8], options: &CacheOptions) -> (Value, Value, Option<Value>) {
    let mut conversation = Conversation::new();
    conversation
        .load_json(text, promptfold::LoadOptions::default())
        .unwrap();
    let views = serde_json::to_value(conversation.views()).unwrap();
    let ledger = serde_json::to_value(conversation.cache_ledger(options).unwrap()).unwrap();
    let session = conversation
        .session()
        .map(|s| serde_json::to_value(s).unwrap());
    (views, ledger, session)
}

fn check(file: &str, text: &[u8]) {
    let prices: Prices =
        serde_json::from_slice(&std::fs::read(repo().join(PRICES)).unwrap()).unwrap();
    for (args, options) in [
        (vec![], CacheOptions::default()),
        (
            vec!["--prices", PRICES, "--cache-ttl-ms", "1000"],
            CacheOptions::default()
                .with_prices(Some(prices.clone()))
                .with_cache_ttl_ms(Some(1000.0)),
        ),
    ] {
        let path = format!("examples/sessions/{file}");
        let mut command = vec!["show", path.as_str(), "--json"];
        command.extend(args.iter().copied());
        let out = run(&command);
        let shown: Value = serde_json::from_str(&out.stdout).unwrap();
        let (views, ledger, session) = library(text, &options);
        assert_eq!(shown["schemaVersion"], 1);
        assert_eq!(shown["views"], views, "{file}: views");
        assert_eq!(
            shown["cacheLedger"], ledger,
            "{file}: cache ledger {args:?}"
        );
        assert_eq!(
            shown["session"],
            session.unwrap_or(Value::Null),
            "{file}: header"
        );
        assert!(
            !ledger["requests"].as_array().unwrap().is_empty(),
            "{file}: a real session"
        );

        let text_out = run(&command[..2]);
        assert_eq!(text_out.code, out.code);
        // One line per request, numbered, in the text output.
        let requests = views["trajectory"]["requests"].as_array().unwrap();
        for (index, request) in requests.iter().enumerate() {
            let seq = request["startSeq"].as_i64().unwrap();
            let line = format!("  {:>3} {:>6}", index + 1, seq);
            assert!(
                text_out.stdout.contains(&line),
                "{file}: {line:?} in\n{}",
                text_out.stdout
            );
        }
    }
}

#[test]
fn show_session_equals_the_library() {
    check("session.jsonl", &example("session.jsonl"));
}

#[test]
fn show_cache_breaks_equals_the_library() {
    check("cache-breaks.jsonl", &example("cache-breaks.jsonl"));
    // A break of each kind, idle with a TTL: every cause is named on its request's line.
    let out = run(&[
        "show",
        "examples/sessions/cache-breaks.jsonl",
        "--cache-ttl-ms",
        "300000",
    ]);
    // The timeline: the initial prompt, an in-history update and a rewrite, with sections.
    for line in [
        "  seq 2      step 1.1    initial prompt\n",
        "  seq 16     step 1.3    in-history update  sections: ~Style, +Task\n",
        "  seq 34     step 2.3    rewrite of 2..2  sections: Rules, Review, Style, Task\n",
    ] {
        assert!(out.stdout.contains(line), "{line:?} in\n{}", out.stdout);
    }
    for cause in [
        "prune (",
        "system-rewrite (",
        "tools +",
        "route ",
        "idle (",
        "replacement by",
        "compaction (",
    ] {
        assert!(out.stdout.contains(cause), "{cause} in\n{}", out.stdout);
    }
}

#[test]
fn show_notifications_equals_the_library() {
    check("notifications.jsonl", &example("notifications.jsonl"));
}

#[test]
fn show_seqless_equals_the_library() {
    check("seqless.jsonl", &example("seqless.jsonl"));
}

#[test]
fn show_torn_equals_the_library_and_notes_the_tail() {
    check("torn.jsonl", &example("torn.jsonl"));
    let out = run(&["show", "examples/sessions/torn.jsonl"]);
    assert_eq!(out.code, 0);
    assert!(
        out.stdout
            .contains("Torn tail: the last line (67 bytes) is cut short"),
        "{}",
        out.stdout
    );
    let json: Value =
        serde_json::from_str(&run(&["show", "examples/sessions/torn.jsonl", "--json"]).stdout)
            .unwrap();
    assert_eq!(json["problem"]["kind"], "torn-tail");
}

#[test]
fn show_zstd_equals_the_library() {
    let text = zstd::decode_all(&example("session.jsonl.zst")[..]).unwrap();
    assert_eq!(text, example("session.jsonl"));
    check("session.jsonl.zst", &text);
}

#[test]
fn show_format2_is_refused() {
    let out = run(&["show", "examples/sessions/format2.jsonl"]);
    assert_eq!(out.code, 1);
    assert!(out.stdout.is_empty());
    assert!(out.stderr.contains("unsupported-version"), "{}", out.stderr);
    // One file given: there is no batch to skip it from.
    assert!(!out.stderr.contains("skipped"), "{}", out.stderr);
    assert!(
        out.stderr
            .contains("examples/sessions/format2.jsonl: unsupported-version: "),
        "{}",
        out.stderr
    );
}

/// The text output of the example session, checked by hand against SPEC 11's rules (see
/// cli/tests/data/README.md).
#[test]
fn show_text_of_the_example_session() {
    let out = run(&[
        "show",
        "examples/sessions/session.jsonl",
        "--prices",
        PRICES,
    ]);
    let expected = std::fs::read_to_string(repo().join("cli/tests/data/show-session.txt")).unwrap();
    assert_eq!(out.stdout, expected);
}

/// The summary line of a session whose one request has no request before it: no kept, new or
/// broken tokens are known, so they print as unknown (`-`, as in the rows), not as 0, and the
/// count agrees with its noun.
#[test]
fn show_summary_of_no_known_request_says_unknown() {
    let text = example("session.jsonl");
    let lines: Vec<&[u8]> = text.split_inclusive(|&byte| byte == b'\n').collect();
    // The header and the events up to the first request's answer: one request.
    let one_request: Vec<u8> = lines[..9].concat();
    let dir = tempfile::tempdir().unwrap();
    common::put(dir.path(), "one.jsonl", &one_request);
    let out = common::run_in(dir.path(), &["show", "one.jsonl"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stdout.contains(
            "  1 request (0 known): kept -, new -, broken -; expected hit rate -, observed -\n"
        ),
        "{}",
        out.stdout
    );
}
