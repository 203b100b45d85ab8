//! Session logs as the harness writes them (BEHAVIOUR.md section 10): the same log in every
//! framing (header row, SDK notifications, seq-less rows, CRLF, a byte order mark, a torn last
//! line, fed in pieces) must give the lines and views of its plain events, and each kind of bad
//! input a typed error that leaves the window (and what `feed` keeps) as it was.
#![cfg(not(target_arch = "wasm32"))]
// Not library code: the panic lints of Cargo.toml's `[lints]` table do not apply here.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::unreachable,
    clippy::todo,
    clippy::arithmetic_side_effects
)]

mod common;

use promptfold::testkit;
use promptfold::LoadOptions;
use promptfold::{Conversation, Error};
use proptest::prelude::*;
use serde_json::{json, Value};

/// Lines and views only.
fn shown(conversation: &Conversation) -> Value {
    json!({
        "lines": serde_json::to_value(conversation.lines()).unwrap(),
        "views": serde_json::to_value(conversation.views()).unwrap(),
    })
}

fn header(version: i64) -> Value {
    json!({"type": "session", "version": version, "id": "s-7", "createdAt": 1_790_000_000_000_i64,
           "cwd": "/work/é", "isSeeded": false, "delegationDepth": 0,
           "agentPreset": {"name": "coder"}, "parentSession": null, "origin": "cli"})
}

fn system(seq: i64, turn: i64, step: i64, text: &str, op: Value) -> Value {
    json!({"seq": seq, "time": 1000 + seq, "type": "system/message", "surfaceOp": op,
           "data": {"turn": turn, "step": step,
                    "message": {"role": "system", "content": [{"type": "text", "text": text}]}}})
}

fn replace(start: i64, end: i64) -> Value {
    json!({"op": "replace", "startSeq": start, "endSeq": end})
}

/// A log of the shapes the harness writes, seqs from 0: appended prompts, a user message, a
/// pruned tool result, a compaction that shadows the latest prompt, a `developer/message`
/// replacement (relevant) and append (not relevant), and unicode text.
fn base_log() -> Vec<Value> {
    vec![
        json!({"seq": 0, "time": 1000, "type": "turn/start", "data": {"turn": 1}}),
        json!({"seq": 1, "time": 1001, "type": "step/start", "data": {"turn": 1, "step": 1}}),
        system(2, 1, 1, "# System\n\nBe brief. ✓", json!("append")),
        json!({"seq": 3, "time": 1003, "type": "request/header",
               "data": {"reason": "initial", "header": {"config": {"model": "m"}, "tools": [{"name": "read"}]}}}),
        json!({"seq": 4, "time": 1004, "type": "user/message", "surfaceOp": "append",
               "data": {"role": "user", "content": [{"type": "text", "text": "naïve 😀 question"}]}}),
        json!({"seq": 5, "time": 1005, "type": "tool/result", "surfaceOp": "append",
               "data": {"turn": 1, "step": 1, "message": {"role": "user", "content": []}}}),
        json!({"seq": 6, "time": 1006, "type": "step/start", "data": {"turn": 1, "step": 2}}),
        system(7, 1, 2, "# System v2\n\nBe very brief.", json!("append")),
        json!({"seq": 8, "time": 1008, "type": "tool/result", "surfaceOp": replace(5, 5),
               "data": {"turn": 1, "step": 2, "message": {"role": "user", "content": [{"type": "text", "text": "[pruned]"}]}}}),
        json!({"seq": 9, "time": 1009, "type": "developer/message", "surfaceOp": "append",
               "data": {"turn": 1, "step": 2, "message": {"role": "developer", "content": []}}}),
        json!({"seq": 10, "time": 1010, "type": "developer/message", "surfaceOp": replace(9, 9),
               "data": {"turn": 1, "step": 2, "message": {"role": "developer", "content": []}}}),
        json!({"seq": 11, "time": 1011, "type": "request/header",
               "data": {"reason": "change", "header": {"config": {"model": "m"}, "tools": [{"name": "read"}]}}}),
        json!({"seq": 12, "time": 1012, "type": "user/message", "surfaceOp": replace(7, 11),
               "data": {"role": "user", "content": [{"type": "text", "text": "summary"}]}}),
        json!({"seq": 13, "time": 1013, "type": "step/end", "data": {"turn": 1, "step": 2}}),
        json!({"seq": 14, "time": 1014, "type": "turn/end", "data": {"turn": 1}}),
    ]
}

fn rows_text(rows: &[Value], line_end: &str) -> String {
    rows.iter()
        .map(|row| format!("{row}{line_end}"))
        .collect::<String>()
}

fn envelope(event: &Value) -> Value {
    json!({"jsonrpc": "2.0", "method": "session.event", "params": {"sessionId": "s-7", "event": event}})
}

fn status(state: &str) -> Value {
    json!({"jsonrpc": "2.0", "method": "session.status", "params": {"sessionId": "s-7", "status": state}})
}

fn seqless(event: &Value) -> Value {
    let mut event = event.clone();
    let object = event.as_object_mut().unwrap();
    object.remove("seq");
    object.remove("time");
    event
}

/// The plain log loaded, the reference every framing must match.
fn reference(events: &[Value]) -> Conversation {
    let mut conversation = Conversation::new();
    conversation
        .load_json(&testkit::array_text(events), LoadOptions::default())
        .unwrap();
    conversation
}

/// The base log with its times dropped, as a seq-less log reads it (time 0).
fn without_times(events: &[Value]) -> Vec<Value> {
    events
        .iter()
        .map(|event| {
            let mut event = event.clone();
            event["time"] = json!(0);
            event
        })
        .collect()
}

/// Loads `text` with `load_json`, as bytes fed in pieces of `sizes`, and checks lines and views
/// against `expected`, the session header against `session`, and the torn tail.
fn same_everywhere(
    text: &[u8],
    expected: &Conversation,
    session: Option<&Value>,
    torn: Option<(usize, usize)>,
) {
    let mut loaded = Conversation::new();
    let change = loaded.load_json(text, LoadOptions::default()).unwrap();
    assert_eq!(shown(&loaded), shown(expected));
    assert_eq!(
        loaded
            .session()
            .map(|header| serde_json::to_value(header).unwrap())
            .as_ref(),
        session
    );
    assert_eq!(change.torn_tail.map(|tail| (tail.line, tail.bytes)), torn);
    for size in [1, 2, 3, 5, 8, 64, 4096] {
        let mut fed = Conversation::new();
        for piece in text.chunks(size) {
            fed.feed(piece).unwrap();
        }
        assert_eq!(shown(&fed), shown(expected), "pieces of {size}");
        assert_eq!(fed.session(), loaded.session(), "pieces of {size}");
        let kept = torn.map_or(0, |(_, bytes)| bytes);
        assert_eq!(fed.unfinished_line().len(), kept, "pieces of {size}");
    }
}

#[test]
fn a_header_with_extra_members_is_kept_whole_and_shows_nowhere() {
    let log = base_log();
    let mut rows = vec![header(4)];
    rows.extend(log.iter().cloned());
    let session = header(4);
    same_everywhere(
        rows_text(&rows, "\n").as_bytes(),
        &reference(&log),
        Some(&session),
        None,
    );
    // As a JSON array too, and with the header as the oldest page's first row.
    let mut array = Conversation::new();
    array
        .load_json(&testkit::array_text(&rows), LoadOptions::default())
        .unwrap();
    assert_eq!(shown(&array), shown(&reference(&log)));
    let mut paged = Conversation::new();
    paged
        .load_json(
            &rows_text(&log[8..], "\n"),
            LoadOptions::default().with_has_more(true),
        )
        .unwrap();
    assert!(paged.session().is_none());
    paged
        .prepend_json(&rows_text(&rows[..9], "\n"), LoadOptions::default())
        .unwrap();
    assert_eq!(shown(&paged), shown(&reference(&log)));
    assert_eq!(
        serde_json::to_value(paged.session().unwrap()).unwrap(),
        session
    );
}

#[test]
fn a_notification_stream_with_status_rows_reads_as_its_events() {
    let log = base_log();
    let mut rows = vec![status("running")];
    for (index, event) in log.iter().enumerate() {
        rows.push(envelope(event));
        if index % 4 == 0 {
            rows.push(status("busy"));
        }
    }
    rows.push(status("idle"));
    same_everywhere(
        rows_text(&rows, "\n").as_bytes(),
        &reference(&log),
        None,
        None,
    );
}

#[test]
fn a_seqless_log_with_compactions_and_prunes_is_numbered_from_zero() {
    let log = base_log();
    let mut rows = vec![header(6)];
    rows.extend(log.iter().map(seqless));
    let expected = reference(&without_times(&log));
    same_everywhere(
        rows_text(&rows, "\n").as_bytes(),
        &expected,
        Some(&header(6)),
        None,
    );
    // Appending and feeding continue the numbering.
    let mut split = Conversation::new();
    split
        .load_json(&rows_text(&rows[..10], "\n"), LoadOptions::default())
        .unwrap();
    split.append_json(&rows_text(&rows[10..13], "\n")).unwrap();
    split.feed(rows_text(&rows[13..], "\n").as_bytes()).unwrap();
    assert_eq!(shown(&split), shown(&expected));
}

#[test]
fn parse_events_reads_bytes_as_it_reads_the_same_text() {
    let mut rows = vec![header(4)];
    rows.extend(base_log());
    let text = rows_text(&rows, "\n");
    let from_text = promptfold::parse_events(&text).unwrap();
    assert_eq!(from_text.len(), base_log().len());
    assert_eq!(
        promptfold::parse_events(text.as_bytes()).unwrap(),
        from_text
    );
    let mut broken = text.into_bytes();
    broken.insert(1, 0xff);
    assert!(matches!(
        promptfold::parse_events(&broken),
        Err(Error::MalformedJson { .. })
    ));
}

#[test]
fn crlf_and_a_byte_order_mark_are_read_as_plain_lines() {
    let log = base_log();
    let mut rows = vec![header(5)];
    rows.extend(log.iter().cloned());
    let text = format!("\u{feff}{}\r\n\r\n", rows_text(&rows, "\r\n"));
    same_everywhere(text.as_bytes(), &reference(&log), Some(&header(5)), None);
}

#[test]
fn a_torn_line_cut_inside_a_character_is_reported_and_kept_for_feed() {
    let log = base_log();
    let mut rows = vec![header(7)];
    rows.extend(log.iter().cloned());
    let whole = rows_text(&rows, "\n");
    let last = json!({"seq": 15, "time": 1015, "type": "user/message", "surfaceOp": "append",
                      "data": {"role": "user", "content": [{"type": "text", "text": "😀 later"}]}})
    .to_string();
    // Cut inside the emoji's four bytes.
    let at = last.find('😀').unwrap() + 2;
    let mut text = whole.clone().into_bytes();
    text.extend_from_slice(&last.as_bytes()[..at]);
    let torn = Some((rows.len() + 1, at));
    same_everywhere(&text, &reference(&log), Some(&header(7)), torn);
    // The rest of the line, fed after the load, completes the event.
    let mut followed = Conversation::new();
    followed.load_json(&text, LoadOptions::default()).unwrap();
    followed.feed(&last.as_bytes()[at..]).unwrap();
    assert_eq!(followed.len(), log.len());
    followed.feed(b"\n").unwrap();
    let mut all = log.clone();
    all.push(serde_json::from_str(&last).unwrap());
    assert_eq!(shown(&followed), shown(&reference(&all)));
    // A torn line is a last line only: prepend and JSON arrays have none.
    let mut conversation = Conversation::new();
    let error = conversation
        .prepend_json(&text, LoadOptions::default())
        .unwrap_err();
    assert_eq!(error.code(), "MALFORMED_JSON");
}

/// Every call that reads text fails with `code` on `text` and leaves the window as it was; `feed`
/// counts its index from the first of the `rows_read` rows the window was read from.
fn rejected(
    window: &mut Conversation,
    text: &[u8],
    code: &str,
    index: Option<usize>,
    rows_read: usize,
) {
    let before = testkit::observed_window(window);
    type Call = fn(&mut Conversation, &[u8]) -> Result<promptfold::ConversationChange, Error>;
    let calls: [(&str, Call); 3] = [
        ("append_json", |c, t| c.append_json(t)),
        ("feed", |c, t| c.feed(t)),
        ("load_json", |c, t| c.load_json(t, LoadOptions::default())),
    ];
    for (name, call) in calls {
        if name == "load_json" && !window.is_empty() && code == "INVALID_SEQ" {
            continue;
        }
        let error = call(window, text).unwrap_err();
        assert_eq!(error.code(), code, "{name}: {error}");
        let index = match name {
            "feed" => index.map(|index| index + rows_read),
            _ => index,
        };
        assert_eq!(error.index(), index, "{name}: {error}");
        assert!(!error.to_string().is_empty());
        assert_eq!(
            testkit::observed_window(window),
            before,
            "{name} changed the window"
        );
    }
}

#[test]
fn a_seq_in_a_seqless_log_is_invalid_seq() {
    let log = base_log();
    let mut window = Conversation::new();
    let rows: Vec<Value> = std::iter::once(header(6))
        .chain(log[..6].iter().map(seqless))
        .collect();
    window
        .load_json(&rows_text(&rows, "\n"), LoadOptions::default())
        .unwrap();
    let text = rows_text(&[seqless(&log[6]), log[7].clone()], "\n");
    rejected(
        &mut window,
        text.as_bytes(),
        "INVALID_SEQ",
        Some(1),
        rows.len(),
    );
    // A prepend into a seq-less window: nothing comes before its start.
    let before = testkit::observed_window(&window);
    let error = window
        .prepend_json(&rows_text(&log[..2], "\n"), LoadOptions::default())
        .unwrap_err();
    assert_eq!(error.code(), "PREPEND_NOT_OLDER");
    assert_eq!(testkit::observed_window(&window), before);
}

#[test]
fn a_header_of_format_two_or_older_is_unsupported() {
    for version in [0, 1, 2] {
        let rows = vec![header(version), base_log()[0].clone()];
        let text = rows_text(&rows, "\n");
        let mut empty = Conversation::new();
        rejected(
            &mut empty,
            text.as_bytes(),
            "UNSUPPORTED_FORMAT_VERSION",
            Some(0),
            0,
        );
        let mut rows = vec![header(version)];
        rows.extend(base_log());
        let error = promptfold::parse_events(&testkit::array_text(&rows)).unwrap_err();
        assert_eq!(error.code(), "UNSUPPORTED_FORMAT_VERSION");
    }
    // Versions newer than known, or not integers, are read like the newest.
    for version in [json!(3), json!(99), json!(2.5), json!("4")] {
        let mut row = header(4);
        row["version"] = version;
        let mut conversation = Conversation::new();
        conversation
            .load_json(
                &rows_text(&[row, base_log()[0].clone()], "\n"),
                LoadOptions::default(),
            )
            .unwrap();
        assert_eq!(conversation.len(), 1);
    }
}

#[test]
fn a_line_cut_anywhere_is_a_torn_tail() {
    let log = base_log();
    let text = rows_text(&log, "\n");
    let last_start = text[..text.len() - 1].rfind('\n').unwrap() + 1;
    let last = text.len() - 1;
    // Literals too: `{"turn":nu` fails where `nu` starts, not at the end.
    let cut_literal = "{\"seq\":15,\"data\":{\"turn\":nu";
    for cut in (last_start + 1)..last {
        let mut conversation = Conversation::new();
        let change = conversation
            .load_json(&text[..cut], LoadOptions::default())
            .unwrap();
        assert_eq!(
            change.torn_tail.map(|tail| tail.bytes),
            Some(cut - last_start),
            "cut at {cut}"
        );
        assert_eq!(conversation.len(), log.len() - 1);
    }
    let mut conversation = Conversation::new();
    let change = conversation
        .load_json(&format!("{text}{cut_literal}"), LoadOptions::default())
        .unwrap();
    assert_eq!(
        change.torn_tail.map(|tail| tail.bytes),
        Some(cut_literal.len())
    );
}

#[test]
fn a_torn_line_in_the_middle_is_malformed() {
    let log = base_log();
    let mut text = rows_text(&log[..3], "\n");
    text.push_str("{\"seq\":3,\"type\":\n");
    text.push_str(&rows_text(&log[3..5], "\n"));
    let mut window = reference(&log[..0]);
    rejected(&mut window, text.as_bytes(), "MALFORMED_JSON", None, 0);
    let error = Conversation::new()
        .load_json(&text, LoadOptions::default())
        .unwrap_err();
    assert!(
        matches!(error, Error::MalformedJson { line: 4, .. }),
        "{error:?}"
    );
}

#[test]
fn a_fed_chunk_with_a_bad_row_changes_nothing_and_the_rest_can_follow() {
    let log = base_log();
    let mut window = Conversation::new();
    let text = rows_text(&log, "\n");
    let (good, rest) = text.split_at(text.find("\"seq\":9").unwrap() - 1);
    window.feed(good.as_bytes()).unwrap();
    window.feed(&rest.as_bytes()[..10]).unwrap();
    assert_eq!(window.unfinished_line(), &rest.as_bytes()[..10]);
    let before = testkit::observed_window(&window);
    // A chunk that completes the kept line with a row whose seq goes back.
    let bad = format!("{}\n{}\n", &rest[10..rest.find('\n').unwrap()], log[2]);
    let error = window.feed(bad.as_bytes()).unwrap_err();
    assert_eq!(error.code(), "NON_INCREASING_SEQ");
    // Rows and lines count from the first byte fed: the bad row is the file's eleventh.
    let rows_before = good.lines().count();
    assert_eq!(error.index(), Some(rows_before + 1));
    assert_eq!(error.line(), Some(rows_before + 2));
    assert_eq!(testkit::observed_window(&window), before);
    // A malformed row: the line is counted from the start of the text read.
    let error = window.feed(b"x\"}\n{oops}\n").unwrap_err();
    assert!(matches!(error, Error::MalformedJson { .. }), "{error:?}");
    assert_eq!(testkit::observed_window(&window), before);
    window.feed(&rest.as_bytes()[10..]).unwrap();
    assert_eq!(shown(&window), shown(&reference(&log)));
}

#[test]
fn errors_count_rows_as_given() {
    let log = base_log();
    let mut rows = vec![status("a"), envelope(&log[0]), status("b")];
    rows.push(json!({"type": "turn/start", "time": 5}));
    let mut conversation = Conversation::new();
    let error = conversation
        .load_json(&rows_text(&rows, "\n"), LoadOptions::default())
        .unwrap_err();
    assert_eq!((error.code(), error.index()), ("MISSING_SEQ", Some(3)));
    rows.pop();
    rows.push(envelope(&log[0]));
    let error = conversation
        .load_json(&rows_text(&rows, "\n"), LoadOptions::default())
        .unwrap_err();
    assert_eq!(
        (error.code(), error.index()),
        ("NON_INCREASING_SEQ", Some(3))
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Any log cut into any pieces and fed equals load_json of the whole; feed after a load
    /// equals append; the header and notifications never change a line or a view.
    #[test]
    fn feeding_in_any_pieces_equals_loading_the_whole(
        log in testkit::valid_log(30),
        cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..12),
        split in any::<prop::sample::Index>(),
        framed in any::<bool>(),
    ) {
        let mut rows = Vec::new();
        if framed {
            rows.push(header(4));
        }
        for (index, event) in log.iter().enumerate() {
            rows.push(if framed && index % 3 == 1 { envelope(event) } else { event.clone() });
            if framed && index % 5 == 2 {
                rows.push(status("busy"));
            }
        }
        let text = rows_text(&rows, if framed { "\r\n" } else { "\n" });
        let bytes = text.as_bytes();
        let whole = reference(&log);
        let mut positions: Vec<usize> = cuts.iter().map(|cut| cut.index(bytes.len() + 1)).collect();
        positions.sort_unstable();
        let mut fed = Conversation::new();
        let mut at = 0;
        for position in positions.into_iter().chain([bytes.len()]) {
            fed.feed(&bytes[at..position]).unwrap();
            at = position;
        }
        prop_assert_eq!(shown(&fed), shown(&whole));
        let mut loaded = Conversation::new();
        loaded.load_json(&text, LoadOptions::default()).unwrap();
        prop_assert_eq!(shown(&loaded), shown(&whole));
        // Feed after a load of the first rows equals an append of the rest.
        let mut line_ends: Vec<usize> = text.match_indices('\n').map(|(at, _)| at + 1).collect();
        line_ends.insert(0, 0);
        let cut = line_ends[split.index(line_ends.len())];
        let mut then_fed = Conversation::new();
        then_fed.load_json(&text[..cut], LoadOptions::default()).unwrap();
        let mut then_appended = then_fed.clone();
        then_fed.feed(&bytes[cut..]).unwrap();
        then_appended.append_json(&text[cut..]).unwrap();
        prop_assert_eq!(shown(&then_fed), shown(&then_appended));
        prop_assert_eq!(shown(&then_fed), shown(&whole));
    }
}
