//! Differential test of the fold (BEHAVIOUR.md section 2) against a deliberately plain reference
//! written here: `Vec`s, linear searches, every state rebuilt from a copy of the previous one, and
//! the events read straight from their JSON (so text extraction is checked too).
//!
//! The reference is first checked against the conformance cases' `pure` and `window` lines, then
//! compared with the crate on random valid logs: whole logs, logs whose first relevant event is a
//! replace, and windows cut mid-log, with and without a window start.
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
use promptfold::{
    inspect_system_prompt, Conversation, SystemPromptNode, SystemPromptState, SystemPromptStateData,
};
use proptest::prelude::*;
use serde_json::{json, Value};

/// The reference: BEHAVIOUR.md section 2, one step at a time.
mod reference {
    use serde_json::{json, Value};

    #[derive(Clone, Debug, PartialEq)]
    pub struct Node {
        pub seq: i64,
        pub time: f64,
        pub turn: u64,
        pub step: u64,
        pub text: String,
        pub update: bool,
    }

    #[derive(Clone, Debug, PartialEq)]
    pub struct State {
        pub first_seq: i64,
        pub uncertain: bool,
        /// (position, node), kept sorted by position.
        pub nodes: Vec<(i64, Node)>,
        /// (replacement seq, inherited position), kept sorted by seq.
        pub replacements: Vec<(i64, i64)>,
        pub effective: Option<Node>,
        pub introduced: Option<Node>,
    }

    fn replace_of(event: &Value) -> Option<(i64, i64)> {
        let op = event.get("surfaceOp")?;
        if op.get("op")?.as_str()? != "replace" {
            return None;
        }
        Some((op.get("startSeq")?.as_i64()?, op.get("endSeq")?.as_i64()?))
    }

    fn is_system(event: &Value) -> bool {
        event["type"] == "system/message"
    }

    /// Every `{type: "text", text}` block of `data.message.content`, joined with "".
    fn system_text(event: &Value) -> String {
        let mut text = String::new();
        if let Some(blocks) = event["data"]["message"]["content"].as_array() {
            for block in blocks {
                if block["type"] == "text" {
                    if let Some(part) = block["text"].as_str() {
                        text.push_str(part);
                    }
                }
            }
        }
        text
    }

    fn lookup(replacements: &[(i64, i64)], seq: i64) -> Option<i64> {
        for (key, position) in replacements {
            if *key == seq {
                return Some(*position);
            }
        }
        None
    }

    /// The last nonempty node in surface order.
    fn last_nonempty(nodes: &[(i64, Node)]) -> Option<&Node> {
        let mut found = None;
        for (_, node) in nodes {
            if !node.text.is_empty() {
                found = Some(node);
            }
        }
        found
    }

    pub fn fold(
        previous: Option<&State>,
        event: &Value,
        window_start: Option<i64>,
    ) -> Option<State> {
        let replace = replace_of(event);
        if !is_system(event) && replace.is_none() {
            return previous.cloned();
        }
        let seq = event["seq"].as_i64().expect("valid seq");
        let time = event["time"].as_f64().unwrap_or(0.0);
        // Step 1.
        let first_seq = match (previous, window_start) {
            (Some(previous), _) => previous.first_seq,
            (None, Some(start)) => start,
            (None, None) => seq,
        };
        let empty = Vec::new();
        let empty_replacements = Vec::new();
        let (before_nodes, before_replacements) = match previous {
            Some(previous) => (&previous.nodes, &previous.replacements),
            None => (&empty, &empty_replacements),
        };
        // Steps 2 and 3.
        let unknown =
            |endpoint: i64| endpoint < first_seq && lookup(before_replacements, endpoint).is_none();
        let previous_uncertain = previous.is_some_and(|previous| previous.uncertain);
        let replace_unknown = replace.is_some_and(|(start, end)| unknown(start) || unknown(end));
        if previous_uncertain || replace_unknown {
            return Some(State {
                first_seq,
                uncertain: true,
                nodes: Vec::new(),
                replacements: Vec::new(),
                effective: None,
                introduced: None,
            });
        }
        // Step 4.
        let mut nodes = before_nodes.clone();
        let mut replacements = before_replacements.clone();
        let mut position = seq;
        if let Some((start, end)) = replace {
            position = lookup(before_replacements, start).unwrap_or(start);
            let end = lookup(before_replacements, end).unwrap_or(end);
            nodes.retain(|(at, _)| !(position <= *at && *at <= end));
            replacements.retain(|(_, at)| !(position <= *at && *at <= end));
            replacements.push((seq, position));
            replacements.sort_by_key(|(key, _)| *key);
        }
        // Step 5.
        let mut introduced = None;
        if is_system(event) {
            let data = &event["data"];
            let node = Node {
                seq,
                time,
                turn: data["turn"].as_u64().unwrap_or(0),
                step: data["step"].as_u64().unwrap_or(0),
                text: system_text(event),
                update: replace.is_none() && last_nonempty(before_nodes).is_some(),
            };
            nodes.push((position, node.clone()));
            nodes.sort_by_key(|(at, node)| (*at, node.seq));
            introduced = Some(node);
        }
        // Step 6.
        let before = last_nonempty(before_nodes).map(|node| node.seq);
        let surviving = last_nonempty(&nodes).cloned();
        let effective = if surviving.as_ref().map(|node| node.seq) == before {
            previous.and_then(|previous| previous.effective.clone())
        } else {
            match surviving {
                Some(node) if node.seq == seq => introduced.clone(),
                Some(node) => Some(Node {
                    seq,
                    time,
                    turn: node.turn,
                    step: node.step,
                    text: node.text,
                    update: false,
                }),
                None => Some(Node {
                    seq,
                    time,
                    turn: 0,
                    step: 0,
                    text: String::new(),
                    update: false,
                }),
            }
        };
        Some(State {
            first_seq,
            uncertain: false,
            nodes,
            replacements,
            effective,
            introduced,
        })
    }

    /// A time as JSON: integral values as integers, as JavaScript writes them.
    fn time_json(time: f64) -> Value {
        if time.fract() == 0.0 && time.abs() < 9_007_199_254_740_992.0 {
            json!(time as i64)
        } else {
            json!(time)
        }
    }

    fn node_json(node: &Node) -> Value {
        json!({
            "seq": node.seq, "time": time_json(node.time), "turn": node.turn, "step": node.step,
            "text": node.text, "update": node.update,
        })
    }

    /// FORMAT.md's `SystemPromptState`.
    pub fn to_json(state: &State) -> Value {
        json!({
            "firstSeq": state.first_seq,
            "uncertain": state.uncertain,
            "nodes": state.nodes.iter()
                .map(|(position, node)| json!({ "position": position, "node": node_json(node) }))
                .collect::<Vec<_>>(),
            "replacements": state.replacements.iter()
                .map(|(seq, position)| json!([seq, position]))
                .collect::<Vec<_>>(),
            "effective": state.effective.as_ref().map(node_json),
            "introduced": state.introduced.as_ref().map(node_json),
        })
    }

    /// The state after each event of `events` (`None` before the first relevant one).
    pub fn states(events: &[Value], window_start: Option<i64>) -> Vec<Option<State>> {
        let mut state = None;
        let mut states = Vec::new();
        for event in events {
            state = fold(state.as_ref(), event, window_start);
            states.push(state.clone());
        }
        states
    }

    /// [`states`] as JSON lines' `system` members (`null` before the first relevant event).
    pub fn lines(events: &[Value], window_start: Option<i64>) -> Vec<Value> {
        states(events, window_start)
            .iter()
            .map(|state| state.as_ref().map_or(Value::Null, to_json))
            .collect()
    }
}

/// A crate state in the reference's terms, so that states compare without building JSON.
fn from_crate(state: &SystemPromptStateData) -> reference::State {
    let node = |node: &SystemPromptNode| reference::Node {
        seq: node.seq,
        time: node.time,
        turn: node.turn,
        step: node.step,
        text: node.text.to_string(),
        update: node.update,
    };
    reference::State {
        first_seq: state.first_seq,
        uncertain: state.uncertain,
        nodes: state
            .nodes
            .iter()
            .map(|positioned| (positioned.position, node(&positioned.node)))
            .collect(),
        replacements: state.replacements.clone(),
        effective: state.effective.as_ref().map(node),
        introduced: state.introduced.as_ref().map(node),
    }
}

/// The crate's state after each event, folded with `inspect_system_prompt`.
fn crate_states(events: &[Value], window_start: Option<i64>) -> Vec<Option<SystemPromptStateData>> {
    let parsed = testkit::parse(events, false);
    let mut state: Option<SystemPromptState> = None;
    parsed
        .iter()
        .map(|event| {
            state = inspect_system_prompt(state.as_ref(), event, window_start);
            state.as_ref().map(SystemPromptState::to_json)
        })
        .collect()
}

fn same_lines(
    actual: &[Value],
    expected: &[Value],
    events: &[Value],
    what: &str,
) -> Result<(), String> {
    if actual.len() != expected.len() {
        return Err(format!(
            "{what}: {} lines, expected {}",
            actual.len(),
            expected.len()
        ));
    }
    for (i, (a, e)) in actual.iter().zip(expected).enumerate() {
        if let Some(difference) = common::first_difference(a, e) {
            return Err(format!(
                "{what}: event {i} (seq {}): {difference}\nevent: {}",
                events[i]["seq"], events[i]
            ));
        }
    }
    Ok(())
}

/// Compares crate states with reference states; on a difference, reports it as JSON.
fn same_states(
    actual: &[Option<SystemPromptStateData>],
    expected: &[Option<reference::State>],
    events: &[Value],
    what: &str,
) -> Result<(), TestCaseError> {
    let converted: Vec<Option<reference::State>> = actual
        .iter()
        .map(|state| state.as_ref().map(from_crate))
        .collect();
    if converted == expected {
        return Ok(());
    }
    let as_json = |states: &[Option<reference::State>]| -> Vec<Value> {
        states
            .iter()
            .map(|state| state.as_ref().map_or(Value::Null, reference::to_json))
            .collect()
    };
    let actual_json: Vec<Value> = actual
        .iter()
        .map(|state| serde_json::to_value(state).expect("serializable"))
        .collect();
    same_lines(&actual_json, &as_json(expected), events, what).map_err(TestCaseError::fail)?;
    // Equal as JSON but not as data (say, a time of -0 against 0): still a difference.
    Err(TestCaseError::fail(format!(
        "{what}: states differ: {converted:?} != {expected:?}"
    )))
}

/// Crate vs reference on one window, with the given window starts, and the Conversation's lines
/// (window start = first seq) too.
fn check_window(events: &[Value], window_starts: &[Option<i64>]) -> Result<(), TestCaseError> {
    let first = events.first().and_then(|event| event["seq"].as_i64());
    let mut window_states = None;
    for &window_start in window_starts {
        let expected = reference::states(events, window_start);
        same_states(
            &crate_states(events, window_start),
            &expected,
            events,
            &format!("inspect_system_prompt with window start {window_start:?}"),
        )?;
        if window_start == first {
            window_states = Some(expected);
        }
    }
    let mut conversation = Conversation::new();
    conversation
        .load(testkit::parse(events, true), LoadOptions::default())
        .map_err(|err| TestCaseError::fail(err.to_string()))?;
    let window: Vec<Option<SystemPromptStateData>> = conversation
        .lines()
        .into_iter()
        .map(|line| line.system)
        .collect();
    same_states(
        &window,
        &window_states.unwrap_or_else(|| reference::states(events, first)),
        events,
        "Conversation lines",
    )
}

/// The reference itself reproduces the conformance cases' `pure` and `window` system states.
#[test]
fn reference_agrees_with_conformance_cases() {
    let files = common::case_files(&common::conformance_dir());
    assert!(!files.is_empty());
    let mut failures = Vec::new();
    for path in &files {
        let case: Value =
            serde_json::from_str(&std::fs::read_to_string(path).expect("readable case"))
                .expect("a JSON case");
        let events = case["events"].as_array().expect("events").clone();
        let first = events.first().and_then(|event| event["seq"].as_i64());
        for (section, window_start) in [("pure", None), ("window", first)] {
            let expected: Vec<Value> = case["expected"][section]
                .as_array()
                .expect("lines")
                .iter()
                .map(|line| line["system"].clone())
                .collect();
            let actual = reference::lines(&events, window_start);
            if let Err(err) = same_lines(&actual, &expected, &events, section) {
                failures.push(format!("{}: {err}", path.display()));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// Whole logs, folded without a window start (upstream rule) and with one.
    #[test]
    fn fold_matches_reference_on_whole_logs(log in testkit::valid_log(120)) {
        let first = log.first().and_then(|event| event["seq"].as_i64());
        check_window(&log, &[None, first])?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    /// Logs whose first relevant event is a replace: uncertain at once without a window start,
    /// known endpoints with one.
    #[test]
    fn fold_matches_reference_when_the_first_relevant_event_is_a_replace(
        log in testkit::replace_first_log(80),
    ) {
        let first_relevant = log.iter().find(|event| {
            event["type"] == "system/message" || event["surfaceOp"].get("op").is_some()
        });
        prop_assert!(first_relevant.is_some_and(|event| event["surfaceOp"]["op"] == "replace"));
        let first = log.first().and_then(|event| event["seq"].as_i64());
        check_window(&log, &[None, first])?;
    }

    /// Windows cut mid-log: the window start makes endpoints at or after it known; endpoints
    /// before it are unknown unless a loaded replacement took their place. Also a window start
    /// some way before the first loaded event.
    #[test]
    fn fold_matches_reference_on_windows_cut_mid_log(
        (log, cut) in testkit::log_and_cut(120),
        back in 0i64..20,
    ) {
        let window = &log[cut..];
        let first = window.first().and_then(|event| event["seq"].as_i64());
        check_window(window, &[None, first, first.map(|seq| seq - back)])?;
    }
}

/// BEHAVIOUR.md section 2: a chain of 97 single-node replacements leaves one entry (built by
/// hand).
#[test]
fn chained_replacements_leave_one_entry() {
    let mut events = vec![json!({
        "seq": 1, "time": 1, "type": "system/message", "surfaceOp": "append",
        "data": { "turn": 1, "step": 1, "message": { "content": [{ "type": "text", "text": "A" }] } }
    })];
    for seq in 2..=98 {
        events.push(json!({
            "seq": seq, "time": seq, "type": "system/message",
            "surfaceOp": { "op": "replace", "startSeq": seq - 1, "endSeq": seq - 1 },
            "data": { "turn": 1, "step": seq, "message": { "content": [{ "type": "text", "text": "C" }] } }
        }));
    }
    let states = crate_states(&events, None);
    let last = states.last().unwrap().as_ref().unwrap();
    assert_eq!(last.replacements, vec![(98, 1)]);
    assert_eq!(last.nodes.len(), 1);
    same_states(&states, &reference::states(&events, None), &events, "chain").unwrap();
}
