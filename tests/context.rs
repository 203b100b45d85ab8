//! The surface fold and `context_at` against a naive reference written here: for every seq,
//! the whole window is folded again from nothing (a `Vec` of nodes, linear searches, no
//! sharing), and every token cost is computed from the event's JSON value. Checked on every seq
//! of random logs (richer message contents mixed in), the shared and framed conformance cases,
//! with the properties D1 (any load / append / prepend order equals a fresh load) and D2
//! (endpoints before the window start mark the context incomplete; a prepend resolves it), and
//! a few breakdowns computed by hand.
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

use promptfold::testkit as gen;
use promptfold::testkit::js_number_text;
use promptfold::LoadOptions;
use promptfold::{parse_events, Context, Conversation, SessionEvent};
use proptest::prelude::*;
use serde_json::{json, Value};

/// JavaScript's `s.length`.
fn units(text: &str) -> u64 {
    text.encode_utf16().count() as u64
}

/// `JSON.stringify(value).length`, written out here.
fn json_len(value: &Value) -> u64 {
    match value {
        Value::Null | Value::Bool(true) => 4,
        Value::Bool(false) => 5,
        Value::Number(number) => js_number_text(number.as_f64().unwrap()).len() as u64,
        Value::String(text) => string_len(text),
        Value::Array(items) => {
            2 + items.iter().map(json_len).sum::<u64>() + (items.len() as u64).saturating_sub(1)
        }
        Value::Object(members) => {
            2 + members
                .iter()
                .map(|(key, value)| string_len(key) + 1 + json_len(value))
                .sum::<u64>()
                + (members.len() as u64).saturating_sub(1)
        }
    }
}

fn string_len(text: &str) -> u64 {
    2 + text
        .encode_utf16()
        .map(|unit| match unit {
            0x22 | 0x5C | 0x08 | 0x0C | 0x0A | 0x0D | 0x09 => 2,
            0..=0x1F => 6,
            _ => 1,
        })
        .sum::<u64>()
}

fn ceil4(n: u64) -> u64 {
    n.div_ceil(4)
}

fn block_cost(block: &Value) -> u64 {
    let kind = block.get("type").and_then(Value::as_str);
    let text = block.get("text").and_then(Value::as_str);
    match (kind, text) {
        (Some("text" | "reasoning"), Some(text)) => ceil4(units(text)) + 4,
        (Some("tool-call"), _) => {
            let name = block.get("name").and_then(Value::as_str).map_or(0, units);
            let arguments = match block.get("arguments") {
                None => 0,
                Some(Value::String(text)) => units(text),
                Some(other) => json_len(other),
            };
            ceil4(name) + ceil4(arguments) + 4
        }
        _ => 4 + ceil4(json_len(block)),
    }
}

fn content_cost(content: &Value) -> u64 {
    match content {
        Value::Array(blocks) => blocks.iter().map(block_cost).sum(),
        Value::String(text) => ceil4(units(text)) + 4,
        _ => 0,
    }
}

/// The node an event makes: its type and cost.
fn node_of(event: &Value) -> Option<(&'static str, u64)> {
    let data = &event["data"];
    let kind = event["type"].as_str()?;
    match kind {
        "system/message" => {
            // Upstream `estimateSystemMessage`: a text block counts its text, any other block
            // its JSON length; no block, no cost.
            let blocks = data["message"]["content"]
                .as_array()
                .map_or(&[][..], Vec::as_slice);
            let length: u64 = blocks
                .iter()
                .map(
                    |block| match (block["type"].as_str(), block["text"].as_str()) {
                        (Some("text"), Some(text)) => units(text),
                        _ => json_len(block),
                    },
                )
                .sum();
            Some((
                "system/message",
                if blocks.is_empty() {
                    0
                } else {
                    ceil4(length) + 4
                },
            ))
        }
        "user/message" => Some(("user/message", content_cost(&data["content"]) + 4)),
        "assistant/message" | "tool/result" | "developer/message" => {
            let name = match kind {
                "assistant/message" => "assistant/message",
                "tool/result" => "tool/result",
                _ => "developer/message",
            };
            Some((name, content_cost(&data["message"]["content"]) + 4))
        }
        _ => None,
    }
}

fn replace_of(event: &Value) -> Option<(i64, i64)> {
    let op = event.get("surfaceOp")?;
    (op.get("op")? == "replace")
        .then(|| Some((op["startSeq"].as_i64()?, op["endSeq"].as_i64()?)))
        .flatten()
}

/// The reference context after `events[..=last]`, for a window starting at `events[0]`:
/// `(nodes as (seq, type, position, tokens), [system, superseded, tools, messages, total],
/// incomplete)`.
type Reference = (Vec<(i64, String, i64, u64)>, [u64; 5], bool);

fn reference(events: &[Value], last: usize) -> Reference {
    let window_start = events[0]["seq"].as_i64().unwrap();
    // (position, seq, node type, tokens), sorted by (position, seq).
    let mut nodes: Vec<(i64, i64, Option<&str>, u64)> = Vec::new();
    let mut incomplete = false;
    let mut tools = 0;
    for event in &events[..=last] {
        let seq = event["seq"].as_i64().unwrap();
        if event["type"] == "request/header" {
            let list = &event["data"]["header"]["tools"];
            tools = match list.as_array() {
                Some(items) if !items.is_empty() => ceil4(json_len(list)) + 4,
                _ => 0,
            };
        }
        let node = node_of(event);
        let replace = replace_of(event);
        if node.is_none() && replace.is_none() {
            continue;
        }
        let mut position = seq;
        if let Some((start, end)) = replace {
            let moved = |x: i64| {
                nodes
                    .iter()
                    .find(|(position, seq, _, _)| *seq == x && position != seq)
                    .map(|(position, _, _, _)| *position)
            };
            for endpoint in [start, end] {
                if endpoint < window_start && moved(endpoint).is_none() {
                    incomplete = true;
                }
            }
            let (from, to) = (moved(start).unwrap_or(start), moved(end).unwrap_or(end));
            nodes.retain(|(position, _, _, _)| !(from <= *position && *position <= to));
            position = from;
        }
        nodes.push((
            position,
            seq,
            node.map(|(kind, _)| kind),
            node.map_or(0, |n| n.1),
        ));
        nodes.sort_by_key(|(position, seq, _, _)| (*position, *seq));
    }
    let visible: Vec<(i64, String, i64, u64)> = nodes
        .iter()
        .filter_map(|(position, seq, kind, tokens)| {
            Some((*seq, (*kind)?.to_owned(), *position, *tokens))
        })
        .collect();
    let systems: Vec<u64> = visible
        .iter()
        .filter(|node| node.1 == "system/message")
        .map(|node| node.3)
        .collect();
    let system = systems
        .iter()
        .rev()
        .find(|cost| **cost > 0)
        .copied()
        .unwrap_or(0);
    let superseded = systems.iter().sum::<u64>() - system;
    let messages: u64 = visible
        .iter()
        .filter(|node| node.1 != "system/message")
        .map(|node| node.3)
        .sum();
    let total = system + superseded + tools + messages;
    (
        visible,
        [system, superseded, tools, messages, total],
        incomplete,
    )
}

fn actual(context: &Context) -> Reference {
    let b = &context.breakdown;
    let parts = [
        b.system_tokens,
        b.superseded_system_tokens,
        b.tools_tokens,
        b.message_tokens,
        b.total_tokens,
    ]
    .map(u64::from);
    let nodes = context
        .nodes
        .iter()
        .map(|node| {
            (
                node.seq,
                node.kind.to_owned(),
                node.position,
                u64::from(node.tokens),
            )
        })
        .collect();
    (nodes, parts, context.incomplete)
}

/// Each request's (read seq, answer seq, new series), from the events alone: request `i` is the
/// `i`-th step start; its answer the first assistant message after it and before the next step
/// start; its context read just before the answer, else just before the next step start, else
/// at the last event; a new series when it is the first, or when a header with reason `series`
/// or `startsSeries`, a replace, or a different tools JSON than at the previous read point lies
/// after the previous read point and up to its own.
fn reference_requests(events: &[Value]) -> Vec<(i64, Option<i64>, bool)> {
    let seq = |event: &Value| event["seq"].as_i64().unwrap();
    let starts: Vec<usize> = (0..events.len())
        .filter(|&i| events[i]["type"] == "step/start")
        .collect();
    let last = events.last().map_or(0, seq);
    let tools_at = |at: i64| {
        events
            .iter()
            .rev()
            .find(|event| event["type"] == "request/header" && seq(event) <= at)
            .map(|event| {
                let tools = &event["data"]["header"]["tools"];
                if tools.is_array() {
                    tools.to_string()
                } else {
                    "[]".to_owned()
                }
            })
    };
    let mut requests = Vec::new();
    let mut previous: Option<i64> = None;
    for (n, &start) in starts.iter().enumerate() {
        let next = starts.get(n + 1).map(|&i| seq(&events[i]));
        let answer = events[start + 1..]
            .iter()
            .take_while(|event| next.is_none_or(|next| seq(event) < next))
            .find(|event| event["type"] == "assistant/message")
            .map(seq);
        let at = match (answer, next) {
            (Some(answer), _) => answer - 1,
            (None, Some(next)) => next - 1,
            (None, None) => last.max(seq(&events[start])),
        };
        let new_series = previous.is_none_or(|previous| {
            let between = events
                .iter()
                .filter(|event| seq(event) > previous && seq(event) <= at);
            let mut changed = false;
            for event in between {
                let data = &event["data"];
                changed |= event["type"] == "request/header"
                    && (data["reason"] == "series" || data["startsSeries"] == true);
                changed |= event["surfaceOp"]["op"] == "replace";
            }
            changed || tools_at(previous) != tools_at(at)
        });
        requests.push((at, answer, new_series));
        previous = Some(at);
    }
    requests
}

/// Checks every seq of `events` (and the seqs between and around them) against the reference.
fn check_every_seq(conversation: &Conversation, events: &[Value]) -> Result<(), String> {
    let mut last = None;
    for (index, event) in events.iter().enumerate() {
        let seq = event["seq"].as_i64().unwrap();
        if let Some((previous, context)) = last.take() {
            // A seq between two events sees the earlier one's context.
            if seq > previous + 1 {
                let between = conversation.context_at(seq - 1);
                if between != context {
                    return Err(format!("context at {} differs from {previous}'s", seq - 1));
                }
            }
        }
        let context = conversation.context_at(seq);
        let expected = reference(events, index);
        let found = actual(&context);
        if found != expected {
            return Err(format!("seq {seq}: found {found:?}\nexpected {expected:?}"));
        }
        let parts = found.1;
        let node_sum: u64 = found.0.iter().map(|node| node.3).sum();
        if parts[0] + parts[1] + parts[2] + parts[3] != parts[4] || node_sum + parts[2] != parts[4]
        {
            return Err(format!(
                "seq {seq}: parts {parts:?} and nodes {node_sum} disagree"
            ));
        }
        last = Some((seq, context));
    }
    let requests: Vec<_> = conversation
        .views()
        .trajectory
        .requests
        .iter()
        .map(|request| {
            let context = &request.context;
            (context.seq, context.answer_seq, context.new_series)
        })
        .collect();
    if requests != reference_requests(events) {
        return Err(format!(
            "request contexts {requests:?}\nexpected {:?}",
            reference_requests(events)
        ));
    }
    if let Some(first) = events.first() {
        let before = conversation.context_at(first["seq"].as_i64().unwrap() - 1);
        if before != Context::default() {
            return Err(format!("before the window: {before:?}"));
        }
    }
    Ok(())
}

fn parsed(events: &[Value]) -> Vec<SessionEvent> {
    parse_events(&Value::Array(events.to_vec()).to_string()).unwrap()
}

fn loaded(events: &[Value]) -> Conversation {
    let mut conversation = Conversation::new();
    conversation
        .load(parsed(events), LoadOptions::default())
        .unwrap();
    conversation
}

/// Richer message contents than the generator writes: unicode, escapes, tool calls, images,
/// reasoning, string content, numbers JavaScript writes differently; some assistant messages
/// become developer messages.
fn enrich(events: &mut [Value], choices: &[u8]) {
    let contents = [
        json!([{ "type": "text", "text": "ünï ✓ 😀 \"q\" \\ \n\t\u{1}" }]),
        json!([
            { "type": "text", "text": "calling" },
            { "type": "tool-call", "id": "c1", "name": "read", "arguments": "{\"path\":\"a.rs\"}" },
            { "type": "tool-call", "id": "c2", "name": "wrïte", "arguments": { "n": 1.50, "big": 1e21, "neg": -0.0 } }
        ]),
        json!([
            { "type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png" },
            { "type": "reasoning", "text": "thinking…" },
            "a bare\tstring", 12, null
        ]),
        json!("plain string content"),
        json!({ "not": "an array" }),
        json!([]),
    ];
    for (event, choice) in events.iter_mut().zip(choices.iter().cycle()) {
        let kind = event["type"].as_str().unwrap_or_default().to_owned();
        let content = contents[usize::from(*choice) % contents.len()].clone();
        match kind.as_str() {
            "user/message" if choice % 3 == 0 => event["data"]["content"] = content,
            "assistant/message" | "tool/result" if choice % 3 != 2 => {
                event["data"]["message"]["content"] = content;
                if kind == "assistant/message" && choice % 5 == 0 {
                    event["type"] = json!("developer/message");
                }
            }
            _ => {}
        }
    }
}

/// Loading a window, then prepending the older events and appending the newer ones in turns,
/// in pieces of several sizes, gives every seq's context, the views and the totals of a fresh
/// load; and almost every prepend is taken apart without folding the surface again (the
/// fallback is counted by the test kit).
#[test]
fn prepends_between_appends_equal_a_fresh_load() {
    let mut prepends = 0u64;
    let refolds_before = gen::surface_refolds();
    for seed in 0..120 {
        let events = gen::parse(&gen::build(&gen::Plan::seeded(seed, 40)), false);
        let mut fresh = Conversation::new();
        fresh.load(events.clone(), LoadOptions::default()).unwrap();
        for cut in 1..events.len() {
            for page in [1, 3, 8] {
                let mut end = (cut + (events.len() - cut) / 2).max(cut + 1);
                let mut conversation = Conversation::new();
                conversation
                    .load(
                        events[cut..end].to_vec(),
                        LoadOptions::default().with_has_more(true),
                    )
                    .unwrap();
                let mut start = cut;
                while start > 0 || end < events.len() {
                    if start > 0 {
                        let from = start.saturating_sub(page);
                        conversation
                            .prepend(
                                events[from..start].to_vec(),
                                LoadOptions::default().with_has_more(from > 0),
                            )
                            .unwrap();
                        prepends += 1;
                        start = from;
                    }
                    let to = (end + page).min(events.len());
                    if to > end {
                        conversation.append(events[end..to].to_vec()).unwrap();
                    }
                    end = to;
                }
                let case = format!("seed {seed} cut {cut} page {page}");
                for event in &events {
                    assert_eq!(
                        conversation.context_at(event.seq),
                        fresh.context_at(event.seq),
                        "{case} seq {}",
                        event.seq
                    );
                }
                assert_eq!(conversation.views(), fresh.views(), "{case}");
                assert_eq!(
                    conversation.context_totals(),
                    fresh.context_totals(),
                    "{case}"
                );
            }
        }
    }
    let refolds = gen::surface_refolds() - refolds_before;
    eprintln!("{refolds} of {prepends} prepends folded the surface again");
    assert!(
        refolds * 20 < prepends,
        "{refolds} of {prepends} prepends folded again"
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(160))]

    /// The reference agrees on every seq of random windows (whole logs and logs cut mid-way).
    #[test]
    fn every_seq_agrees_with_the_reference(
        (mut log, cut) in gen::log_and_cut(60),
        choices in prop::collection::vec(any::<u8>(), 1..20),
    ) {
        enrich(&mut log, &choices);
        let window = &log[cut.min(log.len())..];
        let conversation = loaded(window);
        check_every_seq(&conversation, window).map_err(TestCaseError::fail)?;
    }

    /// D1: load, appends and prepends in any order give the contexts of a fresh load; D2: a
    /// window cut mid-log is incomplete exactly where the reference says so, and prepending
    /// the rest resolves it.
    #[test]
    fn any_order_equals_a_fresh_load(
        (mut log, cut) in gen::log_and_cut(50),
        choices in prop::collection::vec(any::<u8>(), 1..20),
        live in 1usize..7,
        page in 1usize..9,
    ) {
        enrich(&mut log, &choices);
        let events = parsed(&log);
        let fresh = loaded(&log);
        let pieces = common::by_pieces(&events, cut.min(events.len()), live, page);
        for event in &events {
            prop_assert_eq!(pieces.context_at(event.seq), fresh.context_at(event.seq));
            prop_assert!(!fresh.context_at(event.seq).incomplete);
        }
        prop_assert_eq!(pieces.views(), fresh.views());
        if cut > 0 && cut < log.len() {
            let window = loaded(&log[cut..]);
            check_every_seq(&window, &log[cut..]).map_err(TestCaseError::fail)?;
        }
    }

    /// Bad input leaves the window and its contexts as they were.
    #[test]
    fn failures_change_no_context(log in gen::valid_log(30), bad in 0usize..3) {
        prop_assume!(log.len() > 2);
        let mut conversation = loaded(&log[1..]);
        let before: Vec<Context> = log.iter().map(|e| conversation.context_at(e["seq"].as_i64().unwrap())).collect();
        let last = log.last().unwrap()["seq"].as_i64().unwrap();
        let failed = match bad {
            0 => conversation.append_json(&format!(r#"[{{"seq":{},"type":"user/message","data":{{"content":[]}}}}, {{"seq":{last}}}]"#, last + 1)).is_err(),
            1 => conversation.append_json(&format!(r#"[{{"seq":{},"type":"user/message","surfaceOp":{{"op":"replace","startSeq":{last},"endSeq":"x"}}}}]"#, last + 1)).is_err(),
            _ => conversation.prepend(parsed(&log[1..2]), LoadOptions::default()).is_err(),
        };
        prop_assert!(failed);
        let after: Vec<Context> = log.iter().map(|e| conversation.context_at(e["seq"].as_i64().unwrap())).collect();
        prop_assert_eq!(before, after);
    }
}

/// Every shared case, the framed ones included (their `events`), whole and as each stage's
/// window.
#[test]
fn conformance_cases_agree_with_the_reference() {
    let files = common::case_files(&common::conformance_dir());
    assert!(files.len() > 100, "cases not found");
    for file in files {
        let case: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
        let Some(events) = case["events"].as_array() else {
            continue;
        };
        if events.is_empty() {
            continue;
        }
        let conversation = loaded(events);
        if let Err(error) = check_every_seq(&conversation, events) {
            panic!("{}: {error}", file.display());
        }
        for stage in case["stages"].as_array().into_iter().flatten() {
            let from = stage["fromSeq"].as_i64().unwrap();
            let window: Vec<Value> = events
                .iter()
                .filter(|event| event["seq"].as_i64().unwrap() >= from)
                .cloned()
                .collect();
            if window.is_empty() {
                continue;
            }
            if let Err(error) = check_every_seq(&loaded(&window), &window) {
                panic!("{} from {from}: {error}", file.display());
            }
        }
    }
}

/// Every framed case's raw log, loaded whole (`load_json`) and fed in pieces (`feed`), gives the
/// contexts and request contexts of its `events` loaded as a window: framing changes none.
#[test]
fn framed_raw_logs_agree_with_their_events() {
    let files = common::case_files(&common::conformance_dir());
    let mut framed = 0;
    for file in files {
        let case: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
        let (Some(raw), Some(events)) = (case["rawLog"].as_str(), case["events"].as_array()) else {
            continue;
        };
        framed += 1;
        let expected = loaded(events);
        let mut whole = Conversation::new();
        whole.load_json(raw, LoadOptions::default()).unwrap();
        for piece in [1, 7, 64] {
            let mut fed = Conversation::new();
            for chunk in raw.as_bytes().chunks(piece) {
                fed.feed(chunk).unwrap();
            }
            for conversation in [&whole, &fed] {
                let name = file.display();
                assert_eq!(conversation.views(), expected.views(), "{name}: views");
                assert_eq!(
                    conversation.context_totals(),
                    expected.context_totals(),
                    "{name}"
                );
                for event in events {
                    let seq = event["seq"].as_i64().unwrap();
                    assert_eq!(
                        conversation.context_at(seq),
                        expected.context_at(seq),
                        "{name} at {seq}"
                    );
                }
            }
        }
        if let Err(error) = check_every_seq(&whole, events) {
            panic!("{}: {error}", file.display());
        }
    }
    assert!(framed > 10, "framed cases not found");
}

fn event(seq: i64, kind: &str, data: Value, op: Value) -> Value {
    json!({ "seq": seq, "time": seq, "type": kind, "data": data, "surfaceOp": op })
}

fn system(seq: i64, content: Value) -> Value {
    event(
        seq,
        "system/message",
        json!({ "turn": 1, "step": 1, "message": { "role": "system", "content": content } }),
        json!("append"),
    )
}

fn parts(context: &Context) -> [u32; 5] {
    let b = context.breakdown;
    [
        b.system_tokens,
        b.superseded_system_tokens,
        b.tools_tokens,
        b.message_tokens,
        b.total_tokens,
    ]
}

/// Breakdowns computed by hand.
#[test]
fn hand_computed_breakdowns() {
    let log = vec![
        // The token meter counts a system message's text blocks by their text and any other
        // block by its JSON length (upstream `estimateSystemMessage`): "Be " 3, the image
        // {"type":"image","url":"x"} 26, "brief." 6: 35 units, ceil(35 / 4) + 4 = 13.
        system(
            1,
            json!([{ "type": "text", "text": "Be " }, { "type": "image", "url": "x" }, { "type": "text", "text": "brief." }]),
        ),
        // Empty content: 0, and it does not become the system prompt.
        system(2, json!([])),
        json!({ "seq": 3, "type": "request/header", "data": { "reason": "initial", "header": { "config": {}, "tools": [{ "name": "read" }] } } }),
        // "日本語 😀" is 6 units: 2 + 4, plus 4 for the message = 10.
        event(
            4,
            "user/message",
            json!({ "role": "user", "content": [{ "type": "text", "text": "日本語 😀" }] }),
            json!("append"),
        ),
        // Tool call: name "read" 1, arguments "{\"p\":1}" 7 units -> 2, + 4 = 7; text "ok" 5;
        // the image block {"type":"image","url":"x.png"} is 30 units: 4 + 8 = 12; + 4.
        event(
            5,
            "assistant/message",
            json!({ "turn": 1, "step": 1, "message": { "role": "assistant", "content": [
            { "type": "text", "text": "ok" },
            { "type": "tool-call", "id": "c", "name": "read", "arguments": "{\"p\":1}" },
            { "type": "image", "url": "x.png" }
        ] } }),
            json!("append"),
        ),
        // A second prompt: "Be brief. Always." is 17 units: 5 + 4 = 9; the first is superseded.
        system(6, json!([{ "type": "text", "text": "Be brief. Always." }])),
        // A compaction shadowing both prompts and the messages, but not the latest prompt...
        event(
            7,
            "user/message",
            json!({ "role": "user", "content": [{ "type": "text", "text": "summary" }] }),
            json!({ "op": "replace", "startSeq": 1, "endSeq": 5 }),
        ),
    ];
    let conversation = loaded(&log);
    // Tools [{"name":"read"}] are 17 units: 5 + 4 = 9.
    assert_eq!(parts(&conversation.context_at(1)), [13, 0, 0, 0, 13]);
    assert_eq!(parts(&conversation.context_at(2)), [13, 0, 0, 0, 13]);
    assert_eq!(parts(&conversation.context_at(3)), [13, 0, 9, 0, 22]);
    assert_eq!(parts(&conversation.context_at(4)), [13, 0, 9, 10, 32]);
    assert_eq!(
        parts(&conversation.context_at(5)),
        [13, 0, 9, 10 + 5 + 7 + 12 + 4, 60]
    );
    assert_eq!(parts(&conversation.context_at(6)), [9, 13, 9, 38, 69]);
    // ... so the superseded prompt is gone: "summary" is 2 + 4 + 4 = 10.
    let compacted = conversation.context_at(7);
    assert_eq!(parts(&compacted), [9, 0, 9, 10, 28]);
    let nodes: Vec<(i64, &str, i64, u32)> = compacted
        .nodes
        .iter()
        .map(|node| (node.seq, node.kind, node.position, node.tokens))
        .collect();
    assert_eq!(
        nodes,
        [(7, "user/message", 1, 10), (6, "system/message", 6, 9)]
    );
    assert!(!compacted.incomplete);
    // The same window cut after the first prompt: the compaction reaches before it.
    let cut = loaded(&log[1..]);
    assert!(!cut.context_at(6).incomplete);
    assert!(cut.context_at(7).incomplete);
}

/// Request contexts, cache facts and totals, computed by hand.
#[test]
fn request_contexts_and_totals() {
    let step = |seq: i64, n: u64| {
        event(
            seq,
            "step/start",
            json!({ "turn": 1, "step": n }),
            Value::Null,
        )
    };
    let header = |seq: i64, reason: &str, tools: Value| json!({ "seq": seq, "type": "request/header", "data": { "reason": reason, "header": { "config": {}, "tools": tools } } });
    let answer = |seq: i64, usage: Value| {
        event(
            seq,
            "assistant/message",
            json!({ "turn": 1, "message": { "role": "assistant",
            "content": [{ "type": "text", "text": "ok" }], "usage": usage } }),
            json!("append"),
        )
    };
    let log = vec![
        system(1, json!([{ "type": "text", "text": "Be brief." }])),
        step(2, 1),
        header(3, "initial", json!([])),
        answer(4, json!({ "inputTokens": 20, "cacheReadTokens": 0 })),
        step(5, 2),
        // An in-history update: appended, so the cache survives.
        system(6, json!([{ "type": "text", "text": "Be brief. Always." }])),
        header(7, "change", json!([])),
        answer(8, json!({ "inputTokens": 30, "cacheReadTokens": 12 })),
        step(9, 3),
        // A rewrite at the head: a new series.
        event(
            10,
            "system/message",
            json!({ "message": { "content": [{ "type": "text", "text": "New." }] } }),
            json!({ "op": "replace", "startSeq": 1, "endSeq": 6 }),
        ),
        header(11, "series", json!([])),
        step(12, 4),
    ];
    let conversation = loaded(&log);
    let requests = conversation.views().trajectory.requests;
    let contexts: Vec<_> = requests
        .iter()
        .map(|r| (r.context.seq, r.context.answer_seq, r.context.new_series))
        .collect();
    // Answered requests read their context before the answer; the unanswered ones before the
    // next step start, the last at the window's end.
    assert_eq!(
        contexts,
        [
            (3, Some(4), true),
            (7, Some(8), false),
            (11, None, true),
            (12, None, false)
        ]
    );
    assert_eq!(
        requests[1].context.breakdown,
        conversation.context_summary_at(7).breakdown
    );
    // Step 2 carries the superseded prompt (7) beside the new one (9), and the answer (5 + 4).
    assert_eq!(parts(&conversation.context_at(7)), [9, 7, 0, 9, 25]);
    let usage = serde_json::to_value(&requests[1].context.usage).unwrap();
    assert_eq!(usage, json!({ "inputTokens": 30, "cacheReadTokens": 12 }));
    let totals = conversation.context_totals();
    assert_eq!((totals.requests, totals.new_series), (4, 2));
    assert_eq!((totals.prompts_appended, totals.prompts_rewritten), (1, 1));
    assert_eq!(totals.superseded_system_tokens, 7.0);
    assert_eq!(
        (totals.cache_read_tokens, totals.answers_with_cache_reads),
        (12.0, 2)
    );
    // A changed tool set starts a new series too.
    let mut changed = log[..9].to_vec();
    changed[6] = header(7, "change", json!([{ "name": "read" }]));
    let requests = loaded(&changed).views().trajectory.requests;
    assert!(requests[1].context.new_series);
}

/// A prompt appended while the only nonempty system node sits below the window start (a
/// rewrite of a prompt the window does not hold) counts as appended to a nonempty one, and
/// still does after each prepend: the count a prepend keeps equals a fresh load's.
#[test]
fn appends_over_a_prompt_placed_below_the_window_count_after_prepends() {
    let rewrite = |seq: i64, of: i64| {
        event(
            seq,
            "system/message",
            json!({ "turn": 1, "step": 1, "message": { "role": "system",
                "content": [{ "type": "text", "text": "Be terse." }] } }),
            json!({ "op": "replace", "startSeq": of, "endSeq": of }),
        )
    };
    let user = event(
        2,
        "user/message",
        json!({ "message": { "role": "user", "content": [{ "type": "text", "text": "hi" }] } }),
        json!("append"),
    );
    let log = vec![
        system(1, json!([{ "type": "text", "text": "Be brief." }])),
        user,
        rewrite(3, 1),
        system(4, json!([{ "type": "text", "text": "Also kind." }])),
    ];
    let events = parsed(&log);
    let mut conversation = Conversation::new();
    conversation
        .load(
            events[2..].to_vec(),
            LoadOptions::default().with_has_more(true),
        )
        .unwrap();
    for (from, more) in [(1, true), (0, false)] {
        let start = from + 1;
        conversation
            .prepend(
                events[from..start].to_vec(),
                LoadOptions::default().with_has_more(more),
            )
            .unwrap();
        let mut fresh = Conversation::new();
        fresh
            .load(
                events[from..].to_vec(),
                LoadOptions::default().with_has_more(more),
            )
            .unwrap();
        let totals = conversation.context_totals();
        assert_eq!(totals, fresh.context_totals(), "from {from}");
        assert_eq!(totals.prompts_appended, 1, "from {from}");
    }
}

/// A prepend whose walk becomes uncertain where the window's did (a rewrite of a prompt before
/// both starts) joins the window's walk there and keeps the rest: it walks two of the window's
/// events, not all of them, and the window equals a fresh load.
#[test]
fn a_prepend_joins_the_window_walk_where_both_are_uncertain() {
    let user = |seq: i64| {
        event(
            seq,
            "user/message",
            json!({ "message": { "role": "user", "content": [{ "type": "text", "text": "hi" }] } }),
            json!("append"),
        )
    };
    let mut log = vec![
        event(1, "turn/start", json!({ "turn": 1 }), Value::Null),
        system(2, json!([{ "type": "text", "text": "Be brief." }])),
        user(3),
        user(4),
        event(
            5,
            "system/message",
            json!({ "turn": 1, "step": 1, "message": { "role": "system",
                "content": [{ "type": "text", "text": "Be terse." }] } }),
            json!({ "op": "replace", "startSeq": 2, "endSeq": 2 }),
        ),
    ];
    log.extend((6..30).map(user));
    let events = parsed(&log);
    let mut conversation = Conversation::new();
    conversation
        .load(
            events[3..].to_vec(),
            LoadOptions::default().with_has_more(true),
        )
        .unwrap();
    let walked = gen::prepend_walked();
    conversation
        .prepend(
            events[2..3].to_vec(),
            LoadOptions::default().with_has_more(true),
        )
        .unwrap();
    assert_eq!(gen::prepend_walked() - walked, 2);
    let mut fresh = Conversation::new();
    fresh
        .load(
            events[2..].to_vec(),
            LoadOptions::default().with_has_more(true),
        )
        .unwrap();
    assert_eq!(conversation.views(), fresh.views());
    assert_eq!(conversation.context_totals(), fresh.context_totals());
}
