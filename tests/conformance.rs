//! Runs every conformance case under `CONFORMANCE_DIR` (default: `tests/conformance/`) through
//! the native core: the plain fold (`expected.pure`), the window's lines (`expected.window`) and
//! views (`expected.final`), load-earlier stages (`expected.stages`), and D1 by feeding the same
//! window live, one event at a time, replaying every change report on the way.
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

use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;

use promptfold::LoadOptions;
use promptfold::{
    inspect_request_prompt, inspect_system_prompt, parse_events, ChatCard, Conversation,
    ConversationChange, PromptSnapshot, SessionEvent, SystemPromptState,
};
use serde::Serialize;
use serde_json::Value;

/// Counts checks and collects failures, one (the first) per case and section.
#[derive(Default)]
struct Tally {
    checks: usize,
    failures: Vec<String>,
}

impl Tally {
    fn check<T: Serialize>(
        &mut self,
        case: &str,
        section: &str,
        actual: &T,
        expected: &Value,
    ) -> bool {
        self.checks += 1;
        let actual = match serde_json::to_value(actual) {
            Ok(mut actual) => {
                if let Err(message) = strip_request_contexts(&mut actual) {
                    self.failures.push(format!("{case}: {section}: {message}"));
                    return false;
                }
                actual
            }
            Err(err) => {
                self.failures
                    .push(format!("{case}: {section}: cannot serialize: {err}"));
                return false;
            }
        };
        match common::first_difference(&actual, expected) {
            None => true,
            Some(difference) => {
                self.failures
                    .push(format!("{case}: {section}: {difference}"));
                false
            }
        }
    }

    fn fail(&mut self, case: &str, message: String) {
        self.checks += 1;
        self.failures.push(format!("{case}: {message}"));
    }
}

#[derive(Serialize)]
struct PureLine {
    seq: i64,
    system: Option<promptfold::SystemPromptStateData>,
    #[serde(skip_serializing_if = "Option::is_none")]
    request: Option<promptfold::RequestPromptInspection>,
}

/// The plain fold without a window start, and request inspection along the loaded headers.
fn pure_lines(events: &[SessionEvent]) -> Vec<PureLine> {
    let mut state: Option<SystemPromptState> = None;
    let mut previous: Option<PromptSnapshot> = None;
    events
        .iter()
        .map(|event| {
            let request = event.header().and_then(|_| {
                let system = state.as_ref().and_then(|state| state.effective());
                inspect_request_prompt(previous.as_ref(), event, system).ok()
            });
            if let Some(request) = &request {
                previous = Some(request.prompt.clone());
            }
            state = inspect_system_prompt(state.as_ref(), event, None);
            PureLine {
                seq: event.seq,
                system: state.as_ref().map(SystemPromptState::to_json),
                request,
            }
        })
        .collect()
}

/// Chat cards kept up to date from change reports alone, as a UI would.
#[derive(Default)]
struct ReplayedChat(BTreeMap<promptfold::CardKey, ChatCard>);

impl ReplayedChat {
    fn apply(&mut self, change: &ConversationChange) {
        for key in &change.chat.removed {
            self.0.remove(key);
        }
        for card in change.chat.added.iter().chain(&change.chat.changed) {
            self.0.insert(card.key, card.clone());
        }
    }

    fn cards(&self) -> Vec<ChatCard> {
        let mut cards: Vec<ChatCard> = self.0.values().cloned().collect();
        cards.sort_by_key(ChatCard::order);
        cards
    }
}

/// Removes the members FORMAT.md's Request does not have (each request's `context`, checked
/// apart: see `check_request_contexts` and tests/context.rs) after checking that its breakdown's
/// parts sum to its total.
fn strip_request_contexts(views: &mut Value) -> Result<(), String> {
    let Some(requests) = views
        .pointer_mut("/trajectory/requests")
        .and_then(Value::as_array_mut)
    else {
        return Ok(());
    };
    for request in requests {
        let Some(context) = request.as_object_mut().and_then(|r| r.remove("context")) else {
            return Err("a request has no context".to_owned());
        };
        let part = |name: &str| context[name].as_u64().unwrap_or(u64::MAX / 8);
        let parts = [
            "systemTokens",
            "supersededSystemTokens",
            "toolsTokens",
            "messageTokens",
        ]
        .map(part)
        .iter()
        .sum::<u64>();
        if parts != part("totalTokens") {
            return Err(format!("context parts do not sum to the total: {context}"));
        }
    }
    Ok(())
}

/// Each request's breakdown is the breakdown of the context at its seq.
fn check_request_contexts(name: &str, conversation: &Conversation, tally: &mut Tally) {
    for request in conversation.views().trajectory.requests {
        let context = &request.context;
        let summary = conversation.context_summary_at(context.seq);
        let (breakdown, incomplete) = (summary.breakdown, summary.incomplete);
        if (breakdown, incomplete) != (context.breakdown, context.incomplete) {
            tally.fail(
                name,
                format!(
                    "request {} context differs from contextAt",
                    request.start_seq
                ),
            );
        }
    }
}

fn run_case(path: &Path, tally: &mut Tally) {
    let name = path.display().to_string();
    let case: Value = match std::fs::read_to_string(path)
        .map_err(|err| err.to_string())
        .and_then(|text| serde_json::from_str(&text).map_err(|err| err.to_string()))
    {
        Ok(case) => case,
        Err(err) => return tally.fail(&name, format!("cannot read case: {err}")),
    };
    let name = case["name"].as_str().map_or(name, str::to_owned);
    let events = match parse_events(&case["events"].to_string()) {
        Ok(events) => events,
        Err(err) => return tally.fail(&name, format!("events rejected: {err}")),
    };
    let expected = &case["expected"];
    let has_more = case["hasMore"].as_bool().unwrap_or(false);

    tally.check(&name, "pure", &pure_lines(&events), &expected["pure"]);

    let mut loaded = Conversation::new();
    let mut replay = ReplayedChat::default();
    match loaded.load(
        events.clone(),
        LoadOptions::default().with_has_more(has_more),
    ) {
        Ok(change) => replay.apply(&change),
        Err(err) => return tally.fail(&name, format!("load failed: {err}")),
    }
    tally.check(&name, "window", &loaded.lines(), &expected["window"]);
    check_request_contexts(&name, &loaded, tally);
    tally.check(&name, "final", &loaded.views(), &expected["final"]);
    tally.check(
        &name,
        "load change report",
        &replay.cards(),
        &expected["final"]["chat"],
    );

    let mut live = Conversation::new();
    let mut replay = ReplayedChat::default();
    for event in &events {
        match live.append(vec![event.clone()]) {
            Ok(change) => replay.apply(&change),
            Err(err) => return tally.fail(&name, format!("live append failed: {err}")),
        }
    }
    tally.check(&name, "D1 live window", &live.lines(), &expected["window"]);
    if live.views() != loaded.views() {
        tally.fail(
            &name,
            "D1 live views (request contexts included) differ".to_owned(),
        );
    }
    tally.check(&name, "D1 live final", &live.views(), &expected["final"]);
    tally.check(
        &name,
        "D1 live change reports",
        &replay.cards(),
        &expected["final"]["chat"],
    );

    if let (Some(stages), Some(stage_views)) =
        (case["stages"].as_array(), expected["stages"].as_array())
    {
        run_stages(&name, &events, stages, stage_views, tally);
    }
}

fn run_stages(
    name: &str,
    events: &[SessionEvent],
    stages: &[Value],
    stage_views: &[Value],
    tally: &mut Tally,
) {
    let mut conversation = Conversation::new();
    let mut replay = ReplayedChat::default();
    let mut loaded_from: Option<i64> = None;
    for (i, (stage, views)) in stages.iter().zip(stage_views).enumerate() {
        let Some(from) = stage["fromSeq"].as_i64() else {
            return tally.fail(name, format!("stage {i}: no fromSeq"));
        };
        let has_more = stage["hasMore"].as_bool().unwrap_or(false);
        let page: Vec<SessionEvent> = events
            .iter()
            .filter(|event| event.seq >= from && loaded_from.is_none_or(|end| event.seq < end))
            .cloned()
            .collect();
        let result = match loaded_from {
            None => conversation.load(page, LoadOptions::default().with_has_more(has_more)),
            Some(_) => conversation.prepend(page, LoadOptions::default().with_has_more(has_more)),
        };
        match result {
            Ok(change) => replay.apply(&change),
            Err(err) => return tally.fail(name, format!("stage {i} rejected: {err}")),
        }
        loaded_from = Some(from);
        tally.check(name, &format!("stages[{i}]"), &conversation.views(), views);
        tally.check(
            name,
            &format!("stages[{i}] change reports"),
            &replay.cards(),
            &views["chat"],
        );
    }
    if stages.len() != stage_views.len() {
        tally.fail(
            name,
            format!(
                "{} stages, {} expected views",
                stages.len(),
                stage_views.len()
            ),
        );
    }
}

#[test]
fn conformance_cases() {
    let dir = common::conformance_dir();
    let files = common::case_files(&dir);
    assert!(
        !files.is_empty(),
        "no conformance cases under {}",
        dir.display()
    );
    let mut tally = Tally::default();
    for path in &files {
        run_case(path, &mut tally);
    }
    let mut report = String::new();
    for failure in &tally.failures {
        report.push_str(&format!("FAILED {failure}\n"));
    }
    report.push_str(&format!(
        "conformance: {} cases, {} checks, {} failed\n",
        files.len(),
        tally.checks,
        tally.failures.len()
    ));
    // Written past the test harness's capture, so the summary shows on every run.
    let _ = std::io::stdout().write_all(report.as_bytes());
    assert!(
        tally.failures.is_empty(),
        "{} conformance checks failed",
        tally.failures.len()
    );
}
