//! Invalid or hostile input for the property tests: mutated valid logs (dangling, reversed and
//! too-new endpoints, duplicate or decreasing seqs, wrong shapes for every field, non-objects,
//! huge numbers, floats as seq), broken JSON, random JSON trees and random text.

use proptest::prelude::*;
use serde_json::{json, Value};

use super::log::MAX_SAFE;
use super::log::{array_text, build, lines_text, plan};
use super::random::{pick, Pick};

/// One change to a valid log that makes it invalid, odd or hostile.
#[derive(Clone, Debug)]
pub struct Mutation {
    pub at: Pick,
    pub kind: u8,
    pub param: u16,
}

fn mutation() -> impl Strategy<Value = Mutation> {
    (pick(), any::<u8>(), any::<u16>()).prop_map(|(at, kind, param)| Mutation { at, kind, param })
}

fn choose(values: Vec<Value>, param: u16) -> Value {
    let i = usize::from(param) % values.len();
    values[i].clone()
}

/// A value nested `depth` arrays deep.
fn nested(depth: usize) -> Value {
    let mut value = json!(1);
    for _ in 0..depth {
        value = json!([value, { "seq": 1 }]);
    }
    value
}

/// Applies one mutation. Every kind is hostile in its own way; some still parse.
pub fn mutate(events: &mut Vec<Value>, m: &Mutation) {
    if events.is_empty() {
        events.push(json!({ "seq": 1 }));
    }
    let i = m.at.index(events.len());
    let seq = events[i]["seq"].as_i64().unwrap_or(0);
    let before = if i > 0 {
        events[i - 1]["seq"].as_i64().unwrap_or(0)
    } else {
        seq
    };
    let p = m.param;
    let set = |events: &mut Vec<Value>, key: &str, value: Value| {
        if let Some(object) = events[i].as_object_mut() {
            object.insert(key.to_owned(), value);
        }
    };
    let set_data = |events: &mut Vec<Value>, key: &str, value: Value| {
        if !events[i].is_object() {
            return;
        }
        if !events[i]["data"].is_object() {
            events[i]["data"] = json!({});
        }
        events[i]["data"][key] = value;
    };
    let replace =
        |start: Value, end: Value| json!({ "op": "replace", "startSeq": start, "endSeq": end });
    match m.kind % 32 {
        0 => {
            if let Some(object) = events[i].as_object_mut() {
                object.remove("seq");
            }
        }
        1 => set(events, "seq", json!(before)),
        2 => set(events, "seq", json!(before - 1 - i64::from(p % 3))),
        3 => set(events, "seq", json!(seq as f64 + 0.5)),
        4 => set(events, "seq", json!(seq.to_string())),
        5 => set(events, "seq", json!(1e300)),
        6 => set(events, "seq", json!(9_007_199_254_740_992u64)),
        7 => set(events, "seq", json!(-9_007_199_254_740_992.0f64)),
        8 => set(
            events,
            "seq",
            choose(vec![Value::Null, json!(true), json!([]), json!({})], p),
        ),
        // Dangling endpoints: seqs that name no live surface node.
        9 => {
            let dangling = choose(
                vec![
                    json!(seq - 1),
                    json!(before - 1000),
                    json!(-MAX_SAFE),
                    json!(seq - 1 - i64::from(p % 40)),
                ],
                p / 4,
            );
            let other = json!(seq - 1 - i64::from(p % 7));
            let op = if p % 2 == 0 {
                replace(dangling, other)
            } else {
                replace(other, dangling)
            };
            set(events, "surfaceOp", op);
        }
        // Endpoints at or after the event's own seq.
        10 => {
            let at = json!(seq + i64::from(p % 3));
            let op = if p % 2 == 0 {
                replace(at, json!(seq - 1))
            } else {
                replace(json!(seq - 1), at)
            };
            set(events, "surfaceOp", op);
        }
        // Reversed endpoints.
        11 => {
            let op = match events[i].get("surfaceOp") {
                Some(Value::Object(op)) => replace(
                    op.get("endSeq").cloned().unwrap_or(Value::Null),
                    op.get("startSeq").cloned().unwrap_or(Value::Null),
                ),
                _ => replace(json!(before), json!(before - 1 - i64::from(p % 9))),
            };
            set(events, "surfaceOp", op);
        }
        12 => set(
            events,
            "surfaceOp",
            choose(
                vec![
                    json!(5),
                    json!("replace"),
                    json!("prepend"),
                    json!(""),
                    json!("Append"),
                    json!({ "op": "append" }),
                    json!({ "op": "replace" }),
                    json!({ "op": "replace", "startSeq": before }),
                    json!({ "op": "replace", "startSeq": "1", "endSeq": before }),
                    json!({ "op": "replace", "startSeq": before, "endSeq": 1.5 }),
                    json!({ "op": "Replace", "startSeq": before, "endSeq": before }),
                    json!({ "startSeq": before, "endSeq": before }),
                    json!({ "op": "replace", "startSeq": 1e300, "endSeq": before }),
                    json!({ "op": "replace", "startSeq": -9_007_199_254_740_993.0f64, "endSeq": before }),
                    json!({ "op": "replace", "startSeq": null, "endSeq": [] }),
                    json!([]),
                    json!(true),
                    json!({}),
                    Value::Null,
                ],
                p,
            ),
        ),
        13 => set(
            events,
            "data",
            choose(
                vec![
                    json!(5),
                    json!("x"),
                    json!([]),
                    Value::Null,
                    json!(true),
                    json!({}),
                ],
                p,
            ),
        ),
        14 | 15 => {
            let key = if m.kind % 32 == 14 { "turn" } else { "step" };
            let value = choose(
                vec![
                    json!(-1),
                    json!(1.5),
                    json!("1"),
                    json!(1e300),
                    Value::Null,
                    json!([]),
                    json!(true),
                    json!(9_007_199_254_740_993u64),
                    json!(u64::MAX),
                    json!(0),
                    json!(2.0),
                ],
                p,
            );
            set_data(events, key, value);
        }
        16 => {
            let value = choose(
                vec![
                    json!("x"),
                    json!([]),
                    Value::Null,
                    json!({ "content": 5 }),
                    json!({ "content": {} }),
                    json!({ "content": [5, "x", null, [], { "type": "text", "text": 5 },
                        { "type": 5, "text": "a" }, { "type": "text" }, { "text": "b" }] }),
                    json!({ "role": "system" }),
                ],
                p,
            );
            set_data(events, "message", value);
        }
        17 => {
            let value = choose(
                vec![
                    json!(5),
                    json!([]),
                    Value::Null,
                    json!({ "config": 5, "tools": {} }),
                    json!({ "tools": "x" }),
                    json!({ "config": [1, 2], "tools": [1.0, 1e21, 1.5e-7, { "b": 1, "1": 2, "0": [] }] }),
                    json!({ "config": null, "tools": null }),
                ],
                p,
            );
            set_data(events, "header", value);
        }
        18 => {
            let value = choose(
                vec![
                    json!(5),
                    Value::Null,
                    json!("weird"),
                    json!(["initial"]),
                    json!("INITIAL"),
                ],
                p,
            );
            set_data(events, "reason", value);
            set_data(
                events,
                "startsSeries",
                choose(
                    vec![json!("yes"), json!(1), Value::Null, json!(false)],
                    p / 8,
                ),
            );
        }
        19 => set(
            events,
            "type",
            choose(
                vec![
                    json!(5),
                    Value::Null,
                    json!(""),
                    json!("system/message"),
                    json!("request/header"),
                    json!("turn/start"),
                    json!("step/start"),
                    json!("step/end"),
                    json!("turn/end"),
                    json!("SYSTEM/MESSAGE"),
                    json!(["system/message"]),
                ],
                p,
            ),
        ),
        20 => set(
            events,
            "time",
            choose(
                vec![
                    json!("x"),
                    json!(1e308),
                    json!(-1),
                    json!(1.5),
                    Value::Null,
                    json!(-0.0),
                    json!([]),
                    json!(1e-320),
                    json!(9_007_199_254_740_993u64),
                ],
                p,
            ),
        ),
        21 => {
            events[i] = choose(
                vec![
                    json!(5),
                    json!("x"),
                    Value::Null,
                    json!([]),
                    json!(true),
                    json!(1e300),
                    json!([{ "seq": seq }]),
                ],
                p,
            )
        }
        22 => {
            if let Some(object) = events[i].as_object_mut() {
                object.remove("data");
            }
        }
        23 => set(
            events,
            "extra",
            json!({ "sourceEventSeqs": [1, 2], "ignorable": true, "": null, "seq": "shadow" }),
        ),
        24 => {
            if i + 1 < events.len() {
                events.swap(i, i + 1);
            }
        }
        25 => {
            let copy = events[i].clone();
            events.insert(i, copy);
        }
        26 => {
            events.remove(i);
        }
        27 => {
            let text = "x".repeat(usize::from(p % 4096));
            set_data(
                events,
                "message",
                json!({ "content": [{ "type": "text", "text": text }] }),
            );
        }
        28 => set(events, "extra", nested(usize::from(p % 300))),
        29 => set_data(events, "turn", Value::Null),
        30 => {
            // A replace on a type that is not a surface type (still relevant to the fold).
            set(events, "type", json!("step/end"));
            set(events, "surfaceOp", replace(json!(before), json!(before)));
        }
        _ => {
            // Seqs far apart: huge gaps, negative, near the safe limits.
            let value = choose(
                vec![
                    json!(MAX_SAFE),
                    json!(-MAX_SAFE),
                    json!(seq + 1_000_000_000),
                    json!(0),
                ],
                p,
            );
            set(events, "seq", value);
        }
    }
}

/// Turns text into broken text in one of a few ways (or leaves it).
fn mangle(text: String, how: u8, param: u16) -> String {
    let cut = |text: &str, at: usize| -> String {
        let mut at = at.min(text.len());
        while !text.is_char_boundary(at) {
            at -= 1;
        }
        text[..at].to_owned()
    };
    let at = if text.is_empty() {
        0
    } else {
        usize::from(param) % text.len()
    };
    match how % 16 {
        0 => cut(&text, at),
        1 => {
            let mut text = cut(&text, at);
            text.push_str(
                ["}", "]", ",", ":", "\"", "\\", "{", "nul", "\u{feff}"][usize::from(param % 9)],
            );
            text
        }
        2 => text.replacen("\"seq\":", "\"seq\":1e999,\"x\":", 1),
        3 => text.replacen(
            "\"seq\":",
            "\"seq\":123456789012345678901234567890,\"x\":",
            1,
        ),
        4 => text.replacen("\"seq\":", "\"seq\":-1e999,\"x\":", 1),
        5 => format!("{text} trailing"),
        6 => text.replace('\n', "\r\n"),
        7 => format!("\n\n  {text}"),
        _ => text,
    }
}

/// Invalid or hostile JSON text (some of it still accepted).
pub fn hostile_text() -> impl Strategy<Value = String> {
    let mutated = (
        plan(25),
        prop::collection::vec(mutation(), 0..4),
        any::<bool>(),
        any::<u8>(),
        any::<u16>(),
    )
        .prop_map(|(plan, mutations, as_lines, how, param)| {
            let mut events = build(&plan);
            for m in &mutations {
                mutate(&mut events, m);
            }
            let text = if as_lines {
                lines_text(&events)
            } else {
                array_text(&events)
            };
            mangle(text, how, param)
        });
    let top_level = prop::sample::select(vec![
        "42",
        "\"x\"",
        "null",
        "true",
        "{}",
        "[]",
        "",
        "   \n ",
        "[null]",
        "[[]]",
        "[1e999]",
        "{\"seq\":1}\n42",
        "{\"seq\":1}\n[]",
        "{\"seq\":1} {\"seq\":2}",
        "{\n\"seq\": 1\n}",
        "[{\"seq\":1}] x",
        "\u{feff}[]",
        "[{\"seq\":1,\"seq\":\"2\"}]",
        "[{\"seq\":1,\"surfaceOp\":{\"op\":\"replace\",\"startSeq\":0,\"endSeq\":0,\"op\":\"append\"}}]",
    ])
    .prop_map(str::to_owned);
    prop_oneof![
        6 => mutated,
        2 => json_tree().prop_map(|value| value.to_string()),
        1 => top_level,
        1 => ".{0,200}",
    ]
}

/// Random JSON trees built from the words events use, so they often look like events.
pub fn json_tree() -> impl Strategy<Value = Value> {
    let word = prop::sample::select(vec![
        "seq",
        "time",
        "type",
        "data",
        "surfaceOp",
        "op",
        "startSeq",
        "endSeq",
        "turn",
        "step",
        "message",
        "content",
        "text",
        "header",
        "tools",
        "config",
        "reason",
        "startsSeries",
        "system/message",
        "request/header",
        "user/message",
        "step/start",
        "turn/start",
        "append",
        "replace",
        "initial",
        "change",
        "x",
    ]);
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        (-5i64..50).prop_map(|n| json!(n)),
        any::<i64>().prop_map(|n| json!(n)),
        any::<f64>().prop_map(|x| json!(x)),
        word.clone().prop_map(|w| json!(w)),
    ];
    leaf.prop_recursive(4, 64, 6, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec((word.clone(), inner), 0..6).prop_map(|entries| Value::Object(
                entries
                    .into_iter()
                    .map(|(k, v)| (k.to_owned(), v))
                    .collect()
            )),
        ]
    })
}
