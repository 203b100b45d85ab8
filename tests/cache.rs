//! The cache ledger (SPEC section 11): hand-computed ledgers of small logs (SPEC 11's example,
//! each cause alone and several at once, usage that is missing or malformed, idle), bad options,
//! and a naive reference (the ledger recomputed from `context_at` node lists and the events'
//! JSON) on random logs loaded whole and in pieces and on the shared conformance cases.
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
use promptfold::{
    parse_events, CacheCause, CacheEntry, CacheLedger, CacheOptions, Conversation, Error,
    HeaderReason, LoadOptions, Prices, Route, SessionEvent, TokenPrices,
};
use proptest::prelude::*;
use serde_json::{json, Value};

/// Text of `tokens` tokens as a system prompt (`ceil(len / 4) + 4`).
fn system_text(tokens: usize) -> String {
    "s".repeat((tokens - 4) * 4)
}

/// Text that makes a message of `tokens` tokens (one text block: `ceil(len / 4) + 4 + 4`).
fn message_text(tokens: usize) -> String {
    "m".repeat((tokens - 8) * 4)
}

fn step_start(seq: i64, step: i64) -> Value {
    json!({ "seq": seq, "time": seq * 1000, "type": "step/start", "data": { "turn": 1, "step": step } })
}

fn system(seq: i64, tokens: usize, op: Value) -> Value {
    json!({ "seq": seq, "time": seq * 1000, "type": "system/message", "surfaceOp": op,
        "data": { "turn": 1, "message": { "role": "system",
            "content": [{ "type": "text", "text": system_text(tokens) }] } } })
}

fn user(seq: i64, tokens: usize, op: Value) -> Value {
    json!({ "seq": seq, "time": seq * 1000, "type": "user/message", "surfaceOp": op,
        "data": { "role": "user", "content": [{ "type": "text", "text": message_text(tokens) }] } })
}

fn answer(seq: i64, tokens: usize, usage: Value) -> Value {
    json!({ "seq": seq, "time": seq * 1000, "type": "assistant/message", "surfaceOp": "append",
        "data": { "turn": 1, "message": { "role": "assistant",
            "content": [{ "type": "text", "text": message_text(tokens) }], "usage": usage } } })
}

fn tool_result(seq: i64, tokens: usize, op: Value) -> Value {
    json!({ "seq": seq, "time": seq * 1000, "type": "tool/result", "surfaceOp": op,
        "data": { "turn": 1, "message": { "role": "tool",
            "content": [{ "type": "text", "text": message_text(tokens) }] } } })
}

fn header(seq: i64, tools: Value, config: Value, reason: &str, starts_series: bool) -> Value {
    let mut data = json!({ "header": { "config": config, "tools": tools }, "reason": reason });
    if starts_series {
        data["startsSeries"] = json!(true);
    }
    json!({ "seq": seq, "time": seq * 1000, "type": "request/header", "data": data })
}

fn replace(start: i64, end: i64) -> Value {
    json!({ "op": "replace", "startSeq": start, "endSeq": end })
}

fn read_tool() -> Value {
    json!([{ "name": "read", "parameters": {} }])
}

fn route() -> Value {
    json!({ "provider": "deepseek", "model": "deepseek-chat" })
}

fn parsed(events: &[Value]) -> Vec<SessionEvent> {
    parse_events(&Value::Array(events.to_vec()).to_string()).unwrap()
}

fn ledger_of(events: &[Value], options: &CacheOptions) -> CacheLedger {
    let mut conversation = Conversation::new();
    conversation
        .load(parsed(events), LoadOptions::default())
        .unwrap();
    conversation.cache_ledger(options).unwrap()
}

/// SPEC 11's example: one turn of three steps.
fn spec_example() -> Vec<Value> {
    vec![
        step_start(1, 1),
        system(2, 17, json!("append")),
        user(3, 19, json!("append")),
        header(4, read_tool(), route(), "initial", false),
        answer(
            5,
            14,
            json!({ "inputTokens": 60, "outputTokens": 9, "cacheReadTokens": 0 }),
        ),
        step_start(6, 2),
        system(7, 24, json!("append")),
        answer(
            8,
            14,
            json!({ "inputTokens": 84, "outputTokens": 12, "cacheReadTokens": 64 }),
        ),
        step_start(9, 3),
        user(10, 20, replace(3, 8)),
        header(11, read_tool(), route(), "series", true),
        answer(12, 14, json!({ "inputTokens": 52, "outputTokens": 5 })),
    ]
}

/// One row of SPEC 11's example table.
struct Row {
    read: i64,
    total: u32,
    kept: Option<u32>,
    new: Option<u32>,
    broken: Option<u32>,
    causes: Vec<CacheCause>,
    input: Option<f64>,
    cache_read: Option<f64>,
    saved: Option<u32>,
    shortfall: Option<f64>,
    superseded: u32,
}

fn check_row(entry: &CacheEntry, row: &Row) {
    assert_eq!(entry.read_seq, row.read, "read seq");
    assert_eq!(entry.total_tokens, row.total, "total at {}", row.read);
    assert_eq!(entry.kept_tokens, row.kept, "kept at {}", row.read);
    assert_eq!(entry.new_tokens, row.new, "new at {}", row.read);
    assert_eq!(entry.broken_tokens, row.broken, "broken at {}", row.read);
    assert_eq!(entry.causes, row.causes, "causes at {}", row.read);
    assert_eq!(
        entry.observed.input_tokens, row.input,
        "input at {}",
        row.read
    );
    assert_eq!(
        entry.observed.cache_read_tokens, row.cache_read,
        "read at {}",
        row.read
    );
    assert_eq!(entry.saved_tokens, row.saved, "saved at {}", row.read);
    assert_eq!(
        entry.shortfall_tokens, row.shortfall,
        "shortfall at {}",
        row.read
    );
    assert_eq!(
        entry.superseded_system_tokens, row.superseded,
        "superseded at {}",
        row.read
    );
}

#[test]
fn spec_example_as_its_table() {
    let ledger = ledger_of(&spec_example(), &CacheOptions::default());
    let rows = [
        Row {
            read: 4,
            total: 49,
            kept: None,
            new: None,
            broken: None,
            causes: vec![],
            input: Some(60.0),
            cache_read: Some(0.0),
            saved: None,
            shortfall: None,
            superseded: 0,
        },
        Row {
            read: 7,
            total: 87,
            kept: Some(13 + 36),
            new: Some(38),
            broken: Some(0),
            causes: vec![],
            input: Some(84.0),
            cache_read: Some(64.0),
            saved: Some(36),
            shortfall: Some(49.0 - 64.0),
            superseded: 17,
        },
        Row {
            read: 11,
            total: 50,
            kept: Some(13 + 17),
            new: Some(20),
            broken: Some(57),
            causes: vec![CacheCause::Compaction {
                seq: 10,
                start_seq: 3,
                end_seq: 8,
            }],
            input: Some(52.0),
            cache_read: None,
            saved: None,
            shortfall: None,
            superseded: 0,
        },
    ];
    assert_eq!(ledger.requests.len(), rows.len());
    for (entry, row) in ledger.requests.iter().zip(&rows) {
        check_row(entry, row);
    }
    assert_eq!(
        ledger.requests.iter().map(|e| e.seq).collect::<Vec<_>>(),
        [1, 6, 9]
    );
    let route = route_of_parts(Some("deepseek".into()), Some("deepseek-chat".into()));
    assert!(ledger
        .requests
        .iter()
        .all(|e| e.route.as_ref() == Some(&route)));
    let summary = &ledger.summary;
    assert_eq!((summary.requests, summary.known_requests), (3, 2));
    assert_eq!(summary.total_tokens, 49.0 + 87.0 + 50.0);
    assert_eq!(
        (
            summary.kept_tokens,
            summary.new_tokens,
            summary.broken_tokens
        ),
        (79.0, 58.0, 57.0)
    );
    assert_eq!(summary.expected_hit_rate, Some(79.0 / 137.0));
    // Cache reads over all input, by the disjoint convention, where both are known.
    assert_eq!(
        summary.observed_hit_rate,
        Some(64.0 / (60.0 + 0.0 + 84.0 + 64.0))
    );
    assert_eq!(summary.observed.counts.cache_read_tokens, 2);
    assert_eq!(summary.observed.input_tokens, 196.0);
    assert_eq!(summary.breaks.len(), 1);
    assert_eq!(summary.breaks[0].kind, "compaction");
    assert_eq!(
        (summary.breaks[0].requests, summary.breaks[0].broken_tokens),
        (1, 57.0)
    );
    assert_eq!(summary.trade.saved_tokens, 36.0);
    assert_eq!(summary.trade.superseded_tokens, 17.0);
    assert_eq!(summary.trade.balance, None);
    assert_eq!(summary.cost, None);
}

fn prices(input: f64, cache_read: f64, output: f64) -> TokenPrices {
    TokenPrices::new(input, cache_read, output)
}

/// A route of a provider and a model (the crate builds routes; tests compare with them).
fn route_of_parts(provider: Option<String>, model: Option<String>) -> Route {
    let mut route = Route::default();
    route.provider = provider;
    route.model = model;
    route
}

#[test]
fn spec_example_priced() {
    let options = CacheOptions::default().with_prices(Some(
        Prices::default()
            .with_default(Some(prices(100.0, 100.0, 100.0)))
            .with_model("deepseek-chat", prices(2.0, 0.5, 8.0)),
    ));
    let ledger = ledger_of(&spec_example(), &options);
    let cost = |i: usize| ledger.requests[i].cost.clone().unwrap();
    // Step 1: observed 60 input at 2, 0 read, 9 output at 8.
    assert_eq!(cost(0).total, (60.0 * 2.0 + 9.0 * 8.0) / 1e6);
    assert!(!cost(0).estimated);
    assert_eq!(cost(0).model.as_deref(), Some("deepseek-chat"));
    // Step 2: 84 input, 64 read at 0.5, 12 output.
    assert_eq!(cost(1).cache_read, 64.0 * 0.5 / 1e6);
    assert_eq!(cost(1).total, (84.0 * 2.0 + 64.0 * 0.5 + 12.0 * 8.0) / 1e6);
    // Step 3: input known, cache read unknown (none read), output known.
    assert_eq!(cost(2).total, (52.0 * 2.0 + 5.0 * 8.0) / 1e6);
    let summary = &ledger.summary;
    let total: f64 = (0..3).map(|i| cost(i).total).sum();
    assert_eq!(summary.cost.unwrap().total, total);
    assert_eq!(summary.breaks[0].cost, Some(57.0 * (2.0 - 0.5) / 1e6));
    assert_eq!(summary.trade.saved_cost, Some(36.0 * 1.5 / 1e6));
    assert_eq!(summary.trade.carried_cost, Some(17.0 * 0.5 / 1e6));
    assert_eq!(
        summary.trade.balance,
        Some(36.0 * 1.5 / 1e6 - 17.0 * 0.5 / 1e6)
    );
}

// ---------------------------------------------------------------------------------------------
// The naive reference: the ledger recomputed from `context_at` node lists and the events' JSON.
// ---------------------------------------------------------------------------------------------

fn seq_of(event: &Value) -> i64 {
    event["seq"].as_i64().unwrap()
}

/// The latest request header at or before `at`.
fn header_at(events: &[Value], at: i64) -> Option<&Value> {
    events
        .iter()
        .rev()
        .find(|event| event["type"] == "request/header" && seq_of(event) <= at)
}

fn route_of(header: Option<&Value>) -> Option<Route> {
    let config = &header?["data"]["header"]["config"];
    let member = |name: &str| config[name].as_str().map(str::to_owned);
    Some(route_of_parts(member("provider"), member("model")))
}

/// `(name, JSON text)` of each tool of a header (none without a header or an array).
fn tools_of(header: Option<&Value>) -> Vec<(String, String)> {
    let Some(tools) = header.and_then(|h| h["data"]["header"]["tools"].as_array()) else {
        return Vec::new();
    };
    tools
        .iter()
        .map(|tool| {
            // `JSON.stringify(tool)`, as the crate writes it: a header of that tool alone.
            let one = promptfold::JsonValue::parse(&format!("[{tool}]")).unwrap();
            let header =
                promptfold::RequestHeader::new(None, Some(one), HeaderReason::Other, false);
            let text = header.tools_text[1..header.tools_text.len() - 1].to_owned();
            // The crate's one tool-name rule: `name`, `function.name`, a plain string.
            let name = (tool["name"].as_str())
                .or_else(|| tool["function"]["name"].as_str())
                .or_else(|| tool.as_str())
                .map_or_else(|| text.clone(), str::to_owned);
            (name, text)
        })
        .collect()
}

/// Tools compared by name, the n-th of a name with the n-th: (added, removed, changed).
fn tool_changes(old: &[(String, String)], new: &[(String, String)]) -> [Vec<String>; 3] {
    let mut used = vec![false; old.len()];
    let (mut added, mut changed) = (Vec::new(), Vec::new());
    for (name, text) in new {
        match (0..old.len()).find(|&i| !used[i] && old[i].0 == *name) {
            Some(i) => {
                used[i] = true;
                if old[i].1 != *text {
                    changed.push(name.clone());
                }
            }
            None => added.push(name.clone()),
        }
    }
    let removed = (0..old.len())
        .filter(|&i| !used[i])
        .map(|i| old[i].0.clone())
        .collect();
    [added, removed, changed]
}

fn usage_count(usage: &Value, name: &str) -> Option<f64> {
    usage
        .get(name)?
        .as_f64()
        .filter(|v| v.is_finite() && *v >= 0.0)
}

/// The ledger entries the rules give, without costs.
fn reference(conversation: &Conversation, events: &[Value], ttl: Option<f64>) -> Vec<CacheEntry> {
    let requests = conversation.views().trajectory.requests;
    let by_seq = |seq: i64| events.iter().find(|event| seq_of(event) == seq);
    let time_at = |at: i64| {
        events
            .iter()
            .rev()
            .find(|event| seq_of(event) <= at)
            .map_or(0.0, |event| event["time"].as_f64().unwrap_or(0.0))
    };
    let mut entries: Vec<CacheEntry> = Vec::new();
    for (index, request) in requests.iter().enumerate() {
        let context = &request.context;
        let read = context.seq;
        let header = header_at(events, read);
        let usage = context.answer_seq.and_then(by_seq).map(|answer| {
            let data = &answer["data"];
            if data["message"]["usage"].is_null() {
                data["usage"].clone()
            } else {
                data["message"]["usage"].clone()
            }
        });
        let usage = usage.filter(Value::is_object).unwrap_or(Value::Null);
        let mut entry = CacheEntry::default();
        entry.seq = request.start_seq;
        entry.read_seq = read;
        entry.route = route_of(header);
        entry.total_tokens = context.breakdown.total_tokens;
        entry.superseded_system_tokens = context.breakdown.superseded_system_tokens;
        entry.tools_tokens = context.breakdown.tools_tokens;
        entry.observed.input_tokens = usage_count(&usage, "inputTokens");
        entry.observed.output_tokens = usage_count(&usage, "outputTokens");
        entry.observed.cache_read_tokens = usage_count(&usage, "cacheReadTokens");
        entry.observed.cache_write_tokens = usage_count(&usage, "cacheWriteTokens");
        entry.observed.uncached_input_tokens = entry.observed.input_tokens;
        if index > 0 {
            let before = &requests[index - 1].context;
            let gap: Vec<&Value> = events
                .iter()
                .filter(|event| seq_of(event) > before.seq && seq_of(event) <= read)
                .collect();
            let old_header = header_at(events, before.seq);
            let series = gap.iter().find(|event| {
                event["type"] == "request/header"
                    && (event["data"]["reason"] == "series"
                        || event["data"]["startsSeries"] == true)
            });
            let [added, removed, changed] = tool_changes(&tools_of(old_header), &tools_of(header));
            let old_route = route_of(old_header);
            if !before.incomplete && !context.incomplete {
                let kept = if old_route != entry.route
                    || !removed.is_empty()
                    || !changed.is_empty()
                    || (!added.is_empty() && series.is_some())
                {
                    0
                } else {
                    let old = conversation.context_at(before.seq).nodes;
                    let new = conversation.context_at(read).nodes;
                    let common: u32 = old
                        .iter()
                        .zip(&new)
                        .take_while(|(a, b)| a.seq == b.seq)
                        .map(|(a, _)| a.tokens)
                        .sum();
                    before.breakdown.tools_tokens + common
                };
                entry.kept_tokens = Some(kept);
                entry.new_tokens = Some(context.breakdown.total_tokens - kept);
                let broken = before.breakdown.total_tokens - kept;
                entry.broken_tokens = Some(broken);
                if broken > 0 {
                    if old_route != entry.route {
                        entry.causes.push(CacheCause::Route {
                            from: old_route.clone().unwrap_or_default(),
                            to: entry.route.clone().unwrap_or_default(),
                        });
                    }
                    if !(added.is_empty() && removed.is_empty() && changed.is_empty()) {
                        entry.causes.push(CacheCause::Tools {
                            added,
                            removed,
                            changed,
                        });
                    }
                    for event in &gap {
                        let op = &event["surfaceOp"];
                        if op["op"] != "replace" {
                            continue;
                        }
                        let (seq, start_seq, end_seq) = (
                            seq_of(event),
                            op["startSeq"].as_i64().unwrap(),
                            op["endSeq"].as_i64().unwrap(),
                        );
                        entry
                            .causes
                            .push(match event["type"].as_str().unwrap_or("") {
                                "system/message" => {
                                    let old = conversation
                                        .state_at(seq - 1)
                                        .and_then(|state| {
                                            state.effective().map(|node| node.text.to_string())
                                        })
                                        .unwrap_or_default();
                                    let new = conversation.state_at(seq).map(|_| {
                                        event["data"]["message"]["content"]
                                            .as_array()
                                            .into_iter()
                                            .flatten()
                                            .filter(|block| block["type"] == "text")
                                            .filter_map(|block| block["text"].as_str())
                                            .collect::<String>()
                                    });
                                    let prompt = |text: &str| {
                                        promptfold::PromptSnapshot::new(
                                            None,
                                            text,
                                            promptfold::JsonValue::Array(Vec::new()),
                                        )
                                    };
                                    let sections = promptfold::diff_prompts(
                                        &prompt(&old),
                                        &prompt(&new.unwrap_or_default()),
                                    )
                                    .system
                                    .sections
                                    .into_iter()
                                    .filter(|s| s.status != promptfold::SectionStatus::Unchanged)
                                    .map(|s| s.title)
                                    .collect();
                                    CacheCause::SystemRewrite {
                                        seq,
                                        start_seq,
                                        end_seq,
                                        sections,
                                    }
                                }
                                "user/message" => CacheCause::Compaction {
                                    seq,
                                    start_seq,
                                    end_seq,
                                },
                                "tool/result" => CacheCause::Prune {
                                    seq,
                                    start_seq,
                                    end_seq,
                                },
                                other => CacheCause::Replacement {
                                    seq,
                                    start_seq,
                                    end_seq,
                                    kind: match other {
                                        "assistant/message" | "developer/message"
                                        | "request/header" | "turn/start" | "turn/end"
                                        | "step/start" | "step/end" => other.to_owned(),
                                        _ => "other".to_owned(),
                                    },
                                },
                            });
                    }
                    if entry.causes.is_empty() {
                        if let Some(series) = series {
                            entry.causes.push(CacheCause::Series {
                                seq: seq_of(series),
                            });
                        }
                    }
                    assert!(
                        !entry.causes.is_empty(),
                        "a break without a cause at {read}"
                    );
                }
                let update = gap.iter().any(|event| {
                    event["type"] == "system/message"
                        && event["surfaceOp"] == "append"
                        && conversation
                            .state_at(seq_of(event))
                            .and_then(|state| {
                                state
                                    .introduced()
                                    .map(|node| node.update && node.seq == seq_of(event))
                            })
                            .unwrap_or(false)
                });
                if update && entry.causes.is_empty() {
                    entry.saved_tokens = Some(kept - before.breakdown.tools_tokens);
                }
            }
            entry.shortfall_tokens = entry
                .kept_tokens
                .zip(entry.observed.cache_read_tokens)
                .map(|(kept, read)| f64::from(kept) - read);
            if let (Some(ttl), Some(shortfall), Some(answer)) =
                (ttl, entry.shortfall_tokens, before.answer_seq)
            {
                let gap_ms =
                    time_at(read) - by_seq(answer).unwrap()["time"].as_f64().unwrap_or(0.0);
                if shortfall > 0.0 && gap_ms > ttl {
                    entry.causes.push(CacheCause::Idle { gap_ms });
                }
            }
        }
        entries.push(entry);
    }
    entries
}

fn check_reference(
    conversation: &Conversation,
    events: &[Value],
    ttl: Option<f64>,
) -> Result<(), String> {
    let options = CacheOptions::default().with_cache_ttl_ms(ttl);
    let ledger = conversation.cache_ledger(&options).unwrap();
    let expected = reference(conversation, events, ttl);
    if ledger.requests.len() != expected.len() {
        return Err(format!(
            "{} entries, expected {}",
            ledger.requests.len(),
            expected.len()
        ));
    }
    for (found, expected) in ledger.requests.iter().zip(&expected) {
        if found != expected {
            return Err(format!("found {found:#?}\nexpected {expected:#?}"));
        }
    }
    Ok(())
}

/// Usage of every shape on the answers: complete, partial, `null`, negative, strings; times
/// stretched so that some answers come long before the next request.
fn with_usage(events: &mut [Value], choices: &[u8]) {
    let usages = [
        json!({ "inputTokens": 10, "outputTokens": 3, "cacheReadTokens": 0 }),
        json!({ "inputTokens": 7, "outputTokens": 2, "cacheReadTokens": 90, "cacheWriteTokens": 4 }),
        json!({ "inputTokens": null, "outputTokens": "5", "cacheReadTokens": -1 }),
        json!({ "outputTokens": 1 }),
        json!({ "inputTokens": 3.5, "cacheReadTokens": 1e9 }),
        json!("not an object"),
    ];
    let mut time = 0.0;
    for (event, choice) in events.iter_mut().zip(choices.iter().cycle()) {
        time += if choice % 4 == 0 { 100_000.0 } else { 10.0 };
        event["time"] = json!(time);
        if event["type"] == "assistant/message" {
            let usage = usages[usize::from(*choice) % usages.len()].clone();
            if choice % 2 == 0 {
                event["data"]["message"]["usage"] = usage;
            } else {
                event["data"]["usage"] = usage;
            }
        }
    }
}

/// Replace endpoints moved to other seqs of the log (nodes or not, in any order): logs the
/// harness does not write, which the ledger must still get right.
fn scramble(events: &mut [Value], choices: &[u8]) {
    let seqs: Vec<i64> = events.iter().map(seq_of).collect();
    let mut picks = choices.iter().cycle();
    for index in 0..events.len() {
        if events[index]["surfaceOp"]["op"] != "replace" || *picks.next().unwrap() % 3 != 0 {
            continue;
        }
        let below: Vec<i64> = seqs[..index].to_vec();
        if below.is_empty() {
            continue;
        }
        let a = below[usize::from(*picks.next().unwrap()) % below.len()];
        let b = below[usize::from(*picks.next().unwrap()) % below.len()];
        events[index]["surfaceOp"]["startSeq"] = json!(a);
        events[index]["surfaceOp"]["endSeq"] = json!(b);
    }
}

fn loaded(events: &[Value]) -> Conversation {
    let mut conversation = Conversation::new();
    conversation
        .load(parsed(events), LoadOptions::default())
        .unwrap();
    conversation
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// The ledger agrees with the reference on random windows (whole logs and logs cut
    /// mid-way, whose first requests are incomplete).
    #[test]
    fn random_windows_agree_with_the_reference(
        (mut log, cut) in gen::log_and_cut(60),
        choices in prop::collection::vec(any::<u8>(), 1..20),
        ttl in prop::option::of(0.0..200_000.0f64),
        scrambled in any::<bool>(),
    ) {
        with_usage(&mut log, &choices);
        if scrambled {
            scramble(&mut log, &choices);
        }
        let window = &log[cut.min(log.len())..];
        check_reference(&loaded(window), window, ttl).map_err(TestCaseError::fail)?;
    }

    /// D1: built by appends and prepends, the ledger is a fresh load's, and agrees with the
    /// reference; the cut window's unknowns are filled in by the prepends.
    #[test]
    fn any_order_gives_a_fresh_loads_ledger(
        (mut log, cut) in gen::log_and_cut(50),
        choices in prop::collection::vec(any::<u8>(), 1..20),
        live in 1usize..7,
        page in 1usize..9,
    ) {
        with_usage(&mut log, &choices);
        let events = parsed(&log);
        let fresh = loaded(&log);
        let pieces = common::by_pieces(&events, cut.min(events.len()), live, page);
        let options = CacheOptions::default().with_cache_ttl_ms(Some(1000.0));
        let expected = fresh.cache_ledger(&options).unwrap();
        prop_assert_eq!(&pieces.cache_ledger(&options).unwrap(), &expected);
        // Fed as JSON lines in pieces cut anywhere, the ledger is the fresh load's after each
        // piece that completes the log.
        let text = gen::lines_text(&log) + "\n";
        let mut fed = Conversation::new();
        let size = live * 97 + page;
        for piece in text.as_bytes().chunks(size) {
            fed.feed(piece).unwrap();
        }
        prop_assert_eq!(&fed.cache_ledger(&options).unwrap(), &expected);
        check_reference(&fresh, &log, Some(1000.0)).map_err(TestCaseError::fail)?;
    }
}

/// Every shared conformance case (and each stage's window) agrees with the reference.
#[test]
fn conformance_cases_agree_with_the_reference() {
    let files = common::case_files(&common::conformance_dir());
    assert!(files.len() > 100, "cases not found");
    let mut checked = 0;
    for file in files {
        let case: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
        let Some(events) = case["events"].as_array() else {
            continue;
        };
        if events.is_empty() {
            continue;
        }
        let mut windows = vec![events.clone()];
        for stage in case["stages"].as_array().into_iter().flatten() {
            let from = stage["fromSeq"].as_i64().unwrap();
            let window: Vec<Value> = events
                .iter()
                .filter(|e| seq_of(e) >= from)
                .cloned()
                .collect();
            if !window.is_empty() {
                windows.push(window);
            }
        }
        for window in windows {
            if let Err(error) = check_reference(&loaded(&window), &window, Some(0.0)) {
                panic!("{}: {error}", file.display());
            }
            checked += 1;
        }
    }
    assert!(checked > 100);
}

// ---------------------------------------------------------------------------------------------
// Each cause alone and several at once, computed by hand.
// ---------------------------------------------------------------------------------------------

/// Step 1 of SPEC 11's example: prompt (2, 17 tokens), user (3, 19), header (4, tools 13),
/// answer (5, 14). Its request totals 49.
fn first_step() -> Vec<Value> {
    spec_example()[..5].to_vec()
}

fn second_request(events: Vec<Value>) -> CacheEntry {
    let ledger = ledger_of(&events, &CacheOptions::default());
    assert_eq!(ledger.requests[0].total_tokens, 49);
    ledger.requests[1].clone()
}

#[test]
fn a_route_appears_when_a_header_gains_a_config() {
    // Step 1's header has no config (no route); step 2's names one: the route changed.
    let mut events = first_step();
    events[3]["data"]["header"]
        .as_object_mut()
        .unwrap()
        .remove("config");
    events.push(step_start(6, 2));
    events.push(header(7, read_tool(), route(), "change", false));
    events.push(answer(8, 14, json!({})));
    let entry = second_request(events);
    assert_eq!(entry.kept_tokens, Some(0));
    let chat = route_of_parts(Some("deepseek".into()), Some("deepseek-chat".into()));
    assert_eq!(
        entry.causes,
        [CacheCause::Route {
            from: Route::default(),
            to: chat
        }]
    );
}

#[test]
fn a_route_change_keeps_nothing() {
    let mut events = first_step();
    events.push(step_start(6, 2));
    let reasoner = json!({ "provider": "deepseek", "model": "deepseek-reasoner" });
    events.push(header(7, read_tool(), reasoner, "change", false));
    events.push(answer(8, 14, json!({})));
    let entry = second_request(events);
    // 13 tools + 17 + 19 + 14: the answer of step 1 joined the prompt.
    assert_eq!(entry.total_tokens, 63);
    assert_eq!(
        (entry.kept_tokens, entry.new_tokens, entry.broken_tokens),
        (Some(0), Some(63), Some(49))
    );
    let chat = route_of_parts(Some("deepseek".into()), Some("deepseek-chat".into()));
    let reasoner = route_of_parts(Some("deepseek".into()), Some("deepseek-reasoner".into()));
    assert_eq!(
        entry.causes,
        [CacheCause::Route {
            from: chat,
            to: reasoner
        }]
    );
}

#[test]
fn a_removed_tool_keeps_nothing() {
    let mut events = first_step();
    events.push(step_start(6, 2));
    events.push(header(7, json!([]), route(), "change", false));
    events.push(answer(8, 14, json!({})));
    let entry = second_request(events);
    assert_eq!((entry.tools_tokens, entry.total_tokens), (0, 50));
    assert_eq!(
        (entry.kept_tokens, entry.new_tokens, entry.broken_tokens),
        (Some(0), Some(50), Some(49))
    );
    let removed = CacheCause::Tools {
        added: vec![],
        removed: vec!["read".into()],
        changed: vec![],
    };
    assert_eq!(entry.causes, [removed]);
}

fn with_web_tool(series: bool) -> CacheEntry {
    let mut events = first_step();
    events.push(step_start(6, 2));
    let tools = json!([{ "name": "read", "parameters": {} }, { "name": "web", "parameters": {} }]);
    events.push(header(7, tools, route(), "change", series));
    events.push(answer(8, 14, json!({})));
    second_request(events)
}

#[test]
fn an_added_tool_keeps_the_prefix_unless_a_series_starts() {
    // `[{"name":"read","parameters":{}},{"name":"web","parameters":{}}]`: 64 units, 20 tokens.
    let deferred = with_web_tool(false);
    assert_eq!((deferred.tools_tokens, deferred.total_tokens), (20, 70));
    assert_eq!(
        (
            deferred.kept_tokens,
            deferred.new_tokens,
            deferred.broken_tokens
        ),
        (Some(13 + 36), Some(21), Some(0))
    );
    assert!(deferred.causes.is_empty());
    let series = with_web_tool(true);
    assert_eq!(
        (series.kept_tokens, series.new_tokens, series.broken_tokens),
        (Some(0), Some(70), Some(49))
    );
    let added = CacheCause::Tools {
        added: vec!["web".into()],
        removed: vec![],
        changed: vec![],
    };
    assert_eq!(series.causes, [added], "series is not listed: tools holds");
}

#[test]
fn a_prune_breaks_at_the_pruned_result() {
    let mut events = first_step();
    events.push(tool_result(6, 10, json!("append")));
    events.push(step_start(7, 2));
    events.push(answer(8, 14, json!({})));
    events.push(step_start(9, 3));
    events.push(tool_result(10, 9, replace(6, 6)));
    events.push(answer(11, 14, json!({})));
    let ledger = ledger_of(&events, &CacheOptions::default());
    let (before, entry) = (&ledger.requests[1], &ledger.requests[2]);
    // Step 2 read at 7: 13 + 17 + 19 + 14 + 10.
    assert_eq!(before.total_tokens, 73);
    assert_eq!(before.broken_tokens, Some(0));
    // Step 3 read at 10: 2, 3 and 5 are kept (63); the result at 6 now costs 9, and step 2's
    // answer (8, 14) follows it.
    assert_eq!(entry.total_tokens, 63 + 9 + 14);
    assert_eq!(
        (entry.kept_tokens, entry.new_tokens, entry.broken_tokens),
        (Some(63), Some(23), Some(10))
    );
    assert_eq!(
        entry.causes,
        [CacheCause::Prune {
            seq: 10,
            start_seq: 6,
            end_seq: 6
        }]
    );
}

fn prompt(seq: i64, text: &str, op: Value) -> Value {
    json!({ "seq": seq, "time": seq * 1000, "type": "system/message", "surfaceOp": op,
        "data": { "turn": 1, "message": { "role": "system",
            "content": [{ "type": "text", "text": text }] } } })
}

#[test]
fn a_head_rewrite_loses_what_an_in_history_update_keeps() {
    let old = "# Rules\nbe brief\n# Tools\nuse read";
    let new = "# Rules\nbe brief\n# Tools\nuse read and web";
    let base = |second: Value| {
        vec![
            step_start(1, 1),
            prompt(2, old, json!("append")),
            user(3, 19, json!("append")),
            header(4, read_tool(), route(), "initial", false),
            answer(5, 14, json!({})),
            step_start(6, 2),
            second,
            answer(8, 14, json!({})),
        ]
    };
    // 33 units: 13 tokens; the request at 4 holds 13 + 13 + 19.
    let rewrite = ledger_of(
        &base(prompt(7, new, replace(2, 2))),
        &CacheOptions::default(),
    );
    let entry = &rewrite.requests[1];
    assert_eq!(rewrite.requests[0].total_tokens, 45);
    assert_eq!(
        (entry.kept_tokens, entry.broken_tokens),
        (Some(13), Some(32))
    );
    assert_eq!(entry.saved_tokens, None);
    let sections = match &entry.causes[..] {
        [CacheCause::SystemRewrite {
            seq: 7,
            start_seq: 2,
            end_seq: 2,
            sections,
        }] => sections.clone(),
        other => panic!("causes {other:?}"),
    };
    assert_eq!(sections, ["Tools"]);
    let update = ledger_of(
        &base(prompt(7, new, json!("append"))),
        &CacheOptions::default(),
    );
    let entry = &update.requests[1];
    assert_eq!(
        (entry.kept_tokens, entry.broken_tokens),
        (Some(45), Some(0))
    );
    assert!(entry.causes.is_empty());
    assert_eq!(entry.saved_tokens, Some(32));
    assert_eq!(entry.superseded_system_tokens, 13);
}

#[test]
fn several_causes_at_once_in_rule_order() {
    let mut events = spec_example();
    let reasoner = json!({ "provider": "deepseek", "model": "deepseek-reasoner" });
    events[10] = header(11, json!([]), reasoner, "series", true);
    let ledger = ledger_of(&events, &CacheOptions::default());
    let entry = &ledger.requests[2];
    assert_eq!(
        (entry.kept_tokens, entry.broken_tokens),
        (Some(0), Some(87))
    );
    let kinds: Vec<&str> = entry
        .causes
        .iter()
        .map(|cause| match cause {
            CacheCause::Route { .. } => "route",
            CacheCause::Tools { .. } => "tools",
            CacheCause::Compaction { .. } => "compaction",
            _ => "other",
        })
        .collect();
    assert_eq!(kinds, ["route", "tools", "compaction"]);
    let ranked: Vec<(&str, u32)> = ledger
        .summary
        .breaks
        .iter()
        .map(|b| (b.kind.as_str(), b.requests))
        .collect();
    assert_eq!(ranked, [("route", 1), ("tools", 1), ("compaction", 1)]);
}

#[test]
fn idle_needs_a_ttl_a_shortfall_and_a_long_gap() {
    let mut events = spec_example();
    // The provider read 10 of the 49 kept tokens at step 2, 2000 ms after answer 5.
    events[7] = answer(
        8,
        14,
        json!({ "inputTokens": 84, "outputTokens": 12, "cacheReadTokens": 10 }),
    );
    let at = |ttl: Option<f64>| {
        let options = CacheOptions::default().with_cache_ttl_ms(ttl);
        ledger_of(&events, &options).requests[1].clone()
    };
    assert_eq!(
        at(Some(1000.0)).causes,
        [CacheCause::Idle { gap_ms: 2000.0 }]
    );
    assert_eq!(at(Some(1000.0)).shortfall_tokens, Some(39.0));
    assert!(at(Some(2000.0)).causes.is_empty());
    assert!(at(None).causes.is_empty());
    // A negative shortfall (the provider read more) is never idle.
    let mut events = spec_example();
    events[7] = answer(8, 14, json!({ "inputTokens": 84, "cacheReadTokens": 64 }));
    let options = CacheOptions::default().with_cache_ttl_ms(Some(0.0));
    let entry = &ledger_of(&events, &options).requests[1];
    assert_eq!(entry.shortfall_tokens, Some(-15.0));
    assert!(entry.causes.is_empty());
}

#[test]
fn unknown_usage_is_absent_never_zero() {
    let mut events = spec_example();
    events[4] = answer(
        5,
        14,
        json!({ "inputTokens": null, "outputTokens": "9", "cacheReadTokens": -3 }),
    );
    events[7] = answer(8, 14, json!({ "outputTokens": 12 }));
    let ledger = ledger_of(&events, &CacheOptions::default());
    let first = &ledger.requests[0].observed;
    assert_eq!(
        (
            first.input_tokens,
            first.output_tokens,
            first.cache_read_tokens,
            first.uncached_input_tokens
        ),
        (None, None, None, None)
    );
    let second = &ledger.requests[1];
    assert_eq!(second.observed.output_tokens, Some(12.0));
    assert_eq!(second.shortfall_tokens, None);
    let counts = ledger.summary.observed.counts;
    assert_eq!(
        (
            counts.input_tokens,
            counts.output_tokens,
            counts.cache_read_tokens
        ),
        (1, 2, 0)
    );
    assert_eq!(ledger.summary.observed_hit_rate, None);
}

#[test]
fn bad_options_are_invalid_arguments_and_compute_nothing() {
    let conversation = loaded(&spec_example());
    let priced = |p: TokenPrices| {
        CacheOptions::default().with_prices(Some(Prices::default().with_default(Some(p))))
    };
    // Each with the value the message names: NaN and the infinities as JS writes them, not as
    // JSON would (`null`).
    let bad = [
        (priced(prices(-1.0, 0.0, 0.0)), "found -1"),
        (priced(prices(1.0, f64::NAN, 0.0)), "found NaN"),
        (priced(prices(1.0, 0.0, f64::INFINITY)), "found Infinity"),
        (
            priced(prices(1.0, 1.0, 1.0).with_cache_write(Some(-0.5))),
            "found -0.5",
        ),
        (
            priced(prices(f64::NEG_INFINITY, 0.0, 0.0)),
            "found -Infinity",
        ),
        (
            CacheOptions::default().with_cache_ttl_ms(Some(-1.0)),
            "found -1",
        ),
        (
            CacheOptions::default().with_cache_ttl_ms(Some(f64::NAN)),
            "found NaN",
        ),
        (
            CacheOptions::default().with_cache_ttl_ms(Some(f64::INFINITY)),
            "found Infinity",
        ),
    ];
    for (options, found) in bad {
        match conversation.cache_ledger(&options) {
            Err(error @ Error::InvalidArgument { .. }) => {
                assert_eq!(error.code(), "INVALID_ARGUMENT");
                assert!(error.to_string().ends_with(found), "{error}: {found}");
            }
            other => panic!("{options:?}: {other:?}"),
        }
    }
    let options = CacheOptions::default().with_prices(Some(
        Prices::default().with_model("m", prices(1.0, -2.0, 0.0)),
    ));
    assert!(conversation.cache_ledger(&options).is_err());
    assert!(conversation
        .cache_ledger(&priced(prices(0.0, 0.0, 0.0)))
        .is_ok());
}

// ---------------------------------------------------------------------------------------------
// Parity with the JS API: the ledgers of the conformance cases (usage added to their answers,
// prices and a TTL given) as Rust gives them, kept in `tests/cache/ledgers.json` for
// `tests/js/cache.test.mjs` to compare the JS API's with. `UPDATE_LEDGERS=1` rewrites it.
// ---------------------------------------------------------------------------------------------

/// The options of the parity ledgers (`tests/js/cache.test.mjs` passes the same).
fn parity_options() -> CacheOptions {
    CacheOptions::default()
        .with_prices(Some(
            Prices::default()
                .with_default(Some(prices(0.5, 0.1, 2.0).with_cache_write(Some(0.3))))
                .with_model("deepseek-chat", prices(0.27, 0.07, 1.1)),
        ))
        .with_cache_ttl_ms(Some(2500.0))
}

/// The usage each answer gets, by its place among the answers (`cache.test.mjs` does the same).
fn parity_usage(n: usize) -> Value {
    match n % 5 {
        0 => json!({ "inputTokens": 40 + n, "outputTokens": 7, "cacheReadTokens": 3 * n }),
        1 => {
            json!({ "inputTokens": 12, "outputTokens": 2, "cacheReadTokens": 0, "cacheWriteTokens": 9 })
        }
        2 => json!({ "inputTokens": null, "outputTokens": "3" }),
        3 => json!({ "outputTokens": 4, "cacheReadTokens": -2 }),
        _ => json!({ "inputTokens": 1, "outputTokens": 1, "cacheReadTokens": 100000 }),
    }
}

fn with_parity_usage(events: &[Value]) -> Vec<Value> {
    let mut answers = 0;
    events
        .iter()
        .map(|event| {
            let mut event = event.clone();
            if event["type"] == "assistant/message" && event["data"]["message"].is_object() {
                event["data"]["message"]["usage"] = parity_usage(answers);
                answers += 1;
            }
            event
        })
        .collect()
}

#[test]
fn parity_ledgers_are_current() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = common::conformance_dir();
    let mut ledgers = serde_json::Map::new();
    for file in common::case_files(&dir) {
        let case: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
        let Some(events) = case["events"]
            .as_array()
            .filter(|events| !events.is_empty())
        else {
            continue;
        };
        let ledger = loaded(&with_parity_usage(events))
            .cache_ledger(&parity_options())
            .unwrap();
        // The cases with a break, small enough to keep (the file stays under 250 kB).
        let breaks = ledger.requests.iter().any(|entry| !entry.causes.is_empty());
        if !breaks || serde_json::to_string(&ledger).unwrap().len() > 8000 {
            continue;
        }
        let name = file
            .strip_prefix(&dir)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        ledgers.insert(name, serde_json::to_value(&ledger).unwrap());
    }
    assert!(
        ledgers.len() > 20,
        "{} cases with two requests",
        ledgers.len()
    );
    let text = serde_json::to_string(&Value::Object(ledgers)).unwrap() + "\n";
    let path = root.join("tests/cache/ledgers.json");
    if std::env::var_os("UPDATE_LEDGERS").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &text).unwrap();
    }
    let kept = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        kept == text,
        "tests/cache/ledgers.json is stale: run with UPDATE_LEDGERS=1"
    );
}

// ---------------------------------------------------------------------------------------------
// The forward-only ledger (`LedgerStream`): the same entries and summary as the window's
// ledger of the same text, however the text is cut.
// ---------------------------------------------------------------------------------------------

/// The ledger of `text` read by a `LedgerStream` in pieces of `size` bytes, the entries taken
/// after every piece; or the first error.
fn streamed(text: &[u8], size: usize, options: &CacheOptions) -> Result<CacheLedger, Error> {
    let mut stream = promptfold::LedgerStream::new(options)?;
    let mut requests = Vec::new();
    for piece in text.chunks(size.max(1)) {
        stream.feed(piece)?;
        requests.extend(stream.take_entries());
    }
    let mut ledger = stream.finish();
    requests.append(&mut ledger.requests);
    ledger.requests = requests;
    Ok(ledger)
}

/// The window's ledger of `text` fed whole to a `Conversation`; or the first error.
fn fed_whole(text: &[u8], options: &CacheOptions) -> Result<CacheLedger, Error> {
    let mut conversation = Conversation::new();
    conversation.feed(text)?;
    conversation.cache_ledger(options)
}

/// The stream and the window agree on `text` (an error included), cut into pieces of each size.
fn check_stream(text: &[u8], options: &CacheOptions, sizes: &[usize]) -> Result<(), String> {
    let expected = fed_whole(text, options);
    for size in sizes {
        let got = streamed(text, *size, options);
        match (&got, &expected) {
            (Ok(got), Ok(expected)) if got == expected => {}
            (Err(got), Err(expected)) if got.code() == expected.code() => {}
            _ => {
                return Err(format!(
                    "pieces of {size} bytes: streamed {got:?}\nwindow {expected:?}"
                ))
            }
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// Random logs (whole and cut mid-way, with usage of every shape and scrambled replace
    /// endpoints): the stream's ledger is the window's, cut into pieces anywhere.
    #[test]
    fn the_stream_gives_the_windows_ledger(
        (mut log, cut) in gen::log_and_cut(60),
        choices in prop::collection::vec(any::<u8>(), 1..20),
        ttl in prop::option::of(0.0..200_000.0f64),
        scrambled in any::<bool>(),
        size in 1usize..400,
    ) {
        with_usage(&mut log, &choices);
        if scrambled {
            scramble(&mut log, &choices);
        }
        let window = &log[cut.min(log.len())..];
        let text = gen::lines_text(window);
        let mut options = parity_options();
        options.cache_ttl_ms = ttl;
        check_stream(text.as_bytes(), &options, &[size, text.len() + 1])
            .map_err(TestCaseError::fail)?;
        // And the window's ledger is a load's of the same events (so the reference's too).
        if !window.is_empty() {
            prop_assert_eq!(
                fed_whole(text.as_bytes(), &options).unwrap(),
                loaded(window).cache_ledger(&options).unwrap()
            );
        }
    }
}

/// Every conformance case (each stage's window too, with usage on its answers) as JSON lines,
/// and every framed case's raw text as the harness wrote it: the stream's ledger is the
/// window's.
#[test]
fn the_stream_agrees_on_every_conformance_case() {
    let files = common::case_files(&common::conformance_dir());
    let options = parity_options();
    let mut checked = 0;
    let mut framed = 0;
    for file in files {
        let case: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
        let fail = |error: String| panic!("{}: {error}", file.display());
        if let Some(raw) = case["rawLog"].as_str() {
            check_stream(raw.as_bytes(), &options, &[1, 7, 64, raw.len() + 1]).unwrap_or_else(fail);
            let completed = format!("{raw}\n");
            check_stream(completed.as_bytes(), &options, &[13]).unwrap_or_else(fail);
            framed += 1;
        }
        let Some(events) = case["events"].as_array() else {
            continue;
        };
        let events = with_parity_usage(events);
        let mut windows = vec![events.clone()];
        for stage in case["stages"].as_array().into_iter().flatten() {
            let from = stage["fromSeq"].as_i64().unwrap();
            windows.push(
                events
                    .iter()
                    .filter(|e| seq_of(e) >= from)
                    .cloned()
                    .collect(),
            );
        }
        for window in windows {
            let text = gen::lines_text(&window);
            check_stream(text.as_bytes(), &options, &[5, 301, text.len() + 1]).unwrap_or_else(fail);
            checked += 1;
        }
    }
    assert!(
        checked > 100 && framed > 20,
        "{checked} cases, {framed} framed"
    );
}

#[test]
fn the_stream_checks_its_options_and_keeps_a_failed_piece_out() {
    let bad = CacheOptions::default().with_cache_ttl_ms(Some(-1.0));
    let error = promptfold::LedgerStream::new(&bad).unwrap_err();
    assert_eq!(error.code(), "INVALID_ARGUMENT");
    let options = CacheOptions::default();
    let text = gen::lines_text(&spec_example());
    let mut stream = promptfold::LedgerStream::new(&options).unwrap();
    stream.feed(text.as_bytes()).unwrap();
    // A seq that goes back fails the piece, and the stream goes on as it was.
    let back = "{\"seq\":3,\"time\":1,\"type\":\"user/message\"}\n";
    assert_eq!(stream.feed(back).unwrap_err().code(), "NON_INCREASING_SEQ");
    assert!(stream.unfinished_line().is_empty());
    let ledger = stream.finish();
    assert_eq!(ledger, fed_whole(text.as_bytes(), &options).unwrap());
    assert_eq!(ledger.summary.requests, 3);
}

/// A replace whose end names a node an earlier replace already dropped (the fold tolerates it;
/// SPEC 1 calls such a log invalid): the ledger still agrees with the reference afterwards,
/// when a later prune breaks after the dropped range.
#[test]
fn a_replace_ending_at_a_dropped_node_keeps_later_sums_exact() {
    let none = json!({});
    let events = vec![
        step_start(1, 1),
        system(2, 17, json!("append")),
        user(3, 13, json!("append")),
        answer(4, 14, none.clone()),
        tool_result(5, 10, json!("append")),
        tool_result(6, 11, json!("append")),
        tool_result(7, 12, json!("append")),
        step_start(8, 2),
        answer(9, 15, none.clone()),
        // Drops 5..=7 and takes 4's place.
        user(10, 20, replace(4, 7)),
        step_start(11, 3),
        tool_result(12, 16, json!("append")),
        answer(13, 18, none.clone()),
        // Ends at 6, dropped by 10: drops 3 and 10's entry.
        user(14, 9, replace(3, 6)),
        step_start(15, 4),
        answer(16, 19, none.clone()),
        // A prune after the dropped range: its prefix is the sums' below position 12.
        tool_result(17, 9, replace(12, 12)),
        step_start(18, 5),
        answer(19, 14, none),
    ];
    let conversation = loaded(&events);
    check_reference(&conversation, &events, None).unwrap();
    let text = gen::lines_text(&events) + "\n";
    check_stream(text.as_bytes(), &CacheOptions::default(), &[7, 64, 4096]).unwrap();
}
