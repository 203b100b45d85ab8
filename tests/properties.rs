//! Properties of the fold and the window over random logs (`promptfold::testkit`):
//!
//! - states are immutable: folding later events (or a second branch) never changes an earlier one;
//! - D1: load, live append, and load + prepend of older pages give the same lines, views, states
//!   and inspections, and the change reports replayed into a map give exactly the chat cards;
//! - nothing panics on any input, and a failed call leaves the window exactly as it was.
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

use promptfold::testkit;
use promptfold::LoadOptions;
use promptfold::{
    inspect_request_prompt, inspect_system_prompt, parse_events, CardKey, CardSource, ChatCard,
    Conversation, ConversationChange, EventKind, PromptSnapshot, SessionEvent, SystemPromptState,
    TitleKey,
};
use proptest::prelude::*;
use proptest::sample::Index;
use serde::Serialize;
use serde_json::Value;

fn value<T: Serialize>(item: &T) -> Value {
    serde_json::to_value(item).expect("outputs serialize")
}

fn same(actual: &Value, expected: &Value, what: &str) -> Result<(), TestCaseError> {
    match common::first_difference(actual, expected) {
        None => Ok(()),
        Some(difference) => Err(TestCaseError::fail(format!("{what}: {difference}"))),
    }
}

/// Everything observable about a window.
#[derive(Debug, PartialEq)]
struct Snapshot {
    lines: Value,
    views: Value,
    events: Vec<SessionEvent>,
    window_start: Option<i64>,
    has_more: bool,
}

fn snapshot(conversation: &Conversation) -> Snapshot {
    Snapshot {
        lines: value(&conversation.lines()),
        views: value(&conversation.views()),
        events: conversation.events().to_vec(),
        window_start: conversation.window_start(),
        has_more: conversation.has_more(),
    }
}

/// D1: the window equals a fresh load of the events it holds.
fn equals_fresh_load(conversation: &Conversation, what: &str) -> Result<(), TestCaseError> {
    let mut fresh = Conversation::new();
    fresh
        .load(
            conversation.events().to_vec(),
            LoadOptions::default().with_has_more(conversation.has_more()),
        )
        .map_err(|err| TestCaseError::fail(format!("{what}: fresh load rejected: {err}")))?;
    same(
        &value(&conversation.lines()),
        &value(&fresh.lines()),
        &format!("{what}: lines vs fresh load"),
    )?;
    same(
        &value(&conversation.views()),
        &value(&fresh.views()),
        &format!("{what}: views vs fresh load"),
    )
}

/// Chat cards kept from change reports alone, checking that each report is consistent: removed
/// and changed cards existed, added ones did not, changed ones differ, and an unchanged
/// trajectory is indeed unchanged.
#[derive(Default)]
struct Replay {
    cards: BTreeMap<CardKey, ChatCard>,
    trajectory: Value,
}

impl Replay {
    fn apply(
        &mut self,
        change: &ConversationChange,
        conversation: &Conversation,
        what: &str,
    ) -> Result<(), TestCaseError> {
        for key in &change.chat.removed {
            prop_assert!(
                self.cards.remove(key).is_some(),
                "{what}: removed card {key} was not there"
            );
        }
        for card in &change.chat.added {
            prop_assert!(
                self.cards.insert(card.key, card.clone()).is_none(),
                "{what}: added card {} was already there",
                card.key
            );
        }
        for card in &change.chat.changed {
            let old = self.cards.insert(card.key, card.clone());
            prop_assert!(
                old.is_some(),
                "{what}: changed card {} was not there",
                card.key
            );
            prop_assert!(
                old.as_ref() != Some(card),
                "{what}: card {} reported changed but is equal",
                card.key
            );
        }
        let mut replayed: Vec<ChatCard> = self.cards.values().cloned().collect();
        replayed.sort_by_key(ChatCard::order);
        let views = conversation.views();
        same(
            &value(&replayed),
            &value(&views.chat),
            &format!("{what}: replayed change reports vs views().chat"),
        )?;
        let trajectory = value(&views.trajectory);
        if !change.trajectory_changed {
            same(
                &trajectory,
                &self.trajectory,
                &format!("{what}: trajectory changed but trajectoryChanged is false"),
            )?;
        }
        self.trajectory = trajectory;
        Ok(())
    }
}

/// The loaded window plus its replayed change reports.
struct Window {
    conversation: Conversation,
    replay: Replay,
}

impl Window {
    fn new() -> Window {
        let conversation = Conversation::new();
        let replay = Replay {
            cards: BTreeMap::new(),
            trajectory: value(&conversation.views().trajectory),
        };
        Window {
            conversation,
            replay,
        }
    }

    fn load(&mut self, events: &[SessionEvent], has_more: bool) -> Result<(), TestCaseError> {
        let change = self
            .conversation
            .load(
                events.to_vec(),
                LoadOptions::default().with_has_more(has_more),
            )
            .map_err(|err| TestCaseError::fail(format!("load rejected: {err}")))?;
        self.replay.apply(&change, &self.conversation, "load")
    }

    fn append(&mut self, events: &[SessionEvent]) -> Result<(), TestCaseError> {
        let change = self
            .conversation
            .append(events.to_vec())
            .map_err(|err| TestCaseError::fail(format!("append rejected: {err}")))?;
        self.replay.apply(&change, &self.conversation, "append")
    }

    fn prepend(&mut self, events: &[SessionEvent], has_more: bool) -> Result<(), TestCaseError> {
        let change = self
            .conversation
            .prepend(
                events.to_vec(),
                LoadOptions::default().with_has_more(has_more),
            )
            .map_err(|err| TestCaseError::fail(format!("prepend rejected: {err}")))?;
        self.replay.apply(&change, &self.conversation, "prepend")
    }

    /// Prepends `events` (older than the window) as pages, newest page first.
    fn prepend_pages(
        &mut self,
        events: &[SessionEvent],
        sizes: &mut impl Iterator<Item = usize>,
        has_more: bool,
    ) -> Result<(), TestCaseError> {
        let mut end = events.len();
        while end > 0 {
            let start = end.saturating_sub(sizes.next().unwrap_or(3));
            self.prepend(&events[start..end], has_more || start > 0)?;
            equals_fresh_load(&self.conversation, "after a prepend")?;
            end = start;
        }
        Ok(())
    }

    /// Appends `events` in chunks.
    fn append_chunks(
        &mut self,
        events: &[SessionEvent],
        sizes: &mut impl Iterator<Item = usize>,
    ) -> Result<(), TestCaseError> {
        let mut start = 0;
        while start < events.len() {
            let end = (start + sizes.next().unwrap_or(3)).min(events.len());
            self.append(&events[start..end])?;
            start = end;
        }
        Ok(())
    }
}

/// Compares two windows of the same events: lines, views, and per-seq states and inspections.
fn same_window(
    actual: &Conversation,
    expected: &Conversation,
    probes: &[i64],
    what: &str,
) -> Result<(), TestCaseError> {
    same(
        &value(&actual.lines()),
        &value(&expected.lines()),
        &format!("{what}: lines"),
    )?;
    same(
        &value(&actual.views()),
        &value(&expected.views()),
        &format!("{what}: views"),
    )?;
    for &seq in probes {
        same(
            &value(&actual.state_at(seq).map(SystemPromptState::to_json)),
            &value(&expected.state_at(seq).map(SystemPromptState::to_json)),
            &format!("{what}: state_at({seq})"),
        )?;
        same(
            &value(&actual.request_at(seq)),
            &value(&expected.request_at(seq)),
            &format!("{what}: request_at({seq})"),
        )?;
    }
    Ok(())
}

/// Every event seq, the seqs in between and around, and a few random ones.
fn probe_seqs(events: &[SessionEvent], random: &[Index]) -> Vec<i64> {
    let (Some(first), Some(last)) = (events.first(), events.last()) else {
        return vec![0, -1, 1];
    };
    let mut probes: Vec<i64> = events.iter().map(|event| event.seq).collect();
    probes.extend([
        first.seq - 1,
        first.seq - 100,
        last.seq + 1,
        i64::MIN,
        i64::MAX,
    ]);
    let span = usize::try_from(last.seq - first.seq + 7).unwrap_or(usize::MAX);
    probes.extend(
        random
            .iter()
            .map(|index| first.seq - 3 + index.index(span) as i64),
    );
    probes
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// The test kit's plans drawn outside proptest (a bench's seed, a fuzzer's bytes) are valid
    /// logs too: they parse, load, and a load of their newer part plus a prepend of the rest
    /// equals the load of the whole.
    #[test]
    fn seeded_and_byte_drawn_plans_are_valid_logs(
        seed in any::<u64>(),
        bytes in prop::collection::vec(any::<u8>(), 0..400),
        cut in any::<Index>(),
    ) {
        for log in [
            testkit::build(&testkit::Plan::seeded(seed, 120)),
            testkit::build(&testkit::Plan::from_bytes(&bytes, 120)),
        ] {
            let events = testkit::parse(&log, false);
            prepend_then_append_is_load(&events, cut.index(events.len() + 1), events.len());
        }
    }

    /// Every state handle kept along a fold stays as it was, after the rest of the log is folded
    /// and after a second branch is folded from a middle state. Irrelevant events return the very
    /// same state.
    #[test]
    fn earlier_states_never_change(
        log in testkit::valid_log(80),
        as_lines in any::<bool>(),
        windowed in any::<bool>(),
        branch_at in any::<Index>(),
    ) {
        let events = testkit::parse(&log, as_lines);
        let window_start = if windowed { events.first().map(|event| event.seq) } else { None };
        let mut state: Option<SystemPromptState> = None;
        let mut kept: Vec<(Option<SystemPromptState>, Value)> = Vec::new();
        for event in &events {
            let next = inspect_system_prompt(state.as_ref(), event, window_start);
            if !event.is_relevant() {
                prop_assert_eq!(next.is_some(), state.is_some());
                if let (Some(next), Some(previous)) = (&next, &state) {
                    prop_assert!(next.ptr_eq(previous), "an irrelevant event made a new state");
                }
            }
            state = next;
            kept.push((state.clone(), value(&state.as_ref().map(SystemPromptState::to_json))));
        }
        // A second branch from a middle state: the same tail again, then the tail reversed.
        if !events.is_empty() {
            let at = branch_at.index(events.len());
            let mut branch = kept[at].0.clone();
            for (offset, event) in events[at + 1..].iter().enumerate() {
                branch = inspect_system_prompt(branch.as_ref(), event, window_start);
                same(
                    &value(&branch.as_ref().map(SystemPromptState::to_json)),
                    &kept[at + 1 + offset].1,
                    "the same tail folded again",
                )?;
            }
            let mut branch = kept[at].0.clone();
            for event in events[at + 1..].iter().rev() {
                branch = inspect_system_prompt(branch.as_ref(), event, window_start);
            }
        }
        for (i, (state, snapshot)) in kept.iter().enumerate() {
            same(
                &value(&state.as_ref().map(SystemPromptState::to_json)),
                snapshot,
                &format!("state after event {i}"),
            )?;
        }
    }

    /// State handles taken from a Conversation stay valid and unchanged through later appends, a
    /// prepend (which re-folds with another window start) and a reload.
    #[test]
    fn conversation_states_survive_later_calls(
        (log, cut) in testkit::log_and_cut(60),
        sizes in prop::collection::vec(1usize..8, 1..30),
    ) {
        let events = testkit::parse(&log, false);
        let (older, window) = events.split_at(cut);
        let mut conversation = Conversation::new();
        let mut kept: Vec<(i64, SystemPromptState, Value)> = Vec::new();
        let mut sizes = sizes.into_iter().cycle();
        let mut start = 0;
        while start < window.len() {
            let end = (start + sizes.next().unwrap_or(1)).min(window.len());
            conversation.append(window[start..end].to_vec()).map_err(|err| TestCaseError::fail(err.to_string()))?;
            for event in &window[start..end] {
                if let Some(state) = conversation.state_at(event.seq) {
                    kept.push((event.seq, state.clone(), value(&state.to_json())));
                }
            }
            start = end;
        }
        conversation.prepend(older.to_vec(), LoadOptions::default()).map_err(|err| TestCaseError::fail(err.to_string()))?;
        conversation.load(Vec::new(), LoadOptions::default()).map_err(|err| TestCaseError::fail(err.to_string()))?;
        for (seq, state, snapshot) in &kept {
            same(&value(&state.to_json()), snapshot, &format!("state kept at seq {seq}"))?;
        }
    }

    /// D1: load, one-event appends, load + prepended pages, load + chunked appends + prepended
    /// pages, and a reload over another window all end in the same window; every change report
    /// replays to exactly the chat cards.
    #[test]
    fn load_append_and_prepend_agree(
        (log, cut) in testkit::log_and_cut(80),
        as_lines in any::<bool>(),
        has_more in any::<bool>(),
        split in (any::<Index>(), any::<Index>()),
        sizes in prop::collection::vec(1usize..12, 1..20),
        random_probes in prop::collection::vec(any::<Index>(), 0..12),
    ) {
        let events = testkit::parse(&log[cut..], as_lines);
        let probes = probe_seqs(&events, &random_probes);
        let mut sizes = sizes.into_iter().cycle();
        let (a, b) = (split.0.index(events.len() + 1), split.1.index(events.len() + 1));
        let (j, k) = (a.min(b), a.max(b));

        let mut loaded = Window::new();
        loaded.load(&events, has_more)?;

        let mut live = Window::new();
        for event in &events {
            live.append(std::slice::from_ref(event))?;
        }
        same_window(&live.conversation, &loaded.conversation, &probes, "one-event appends")?;

        let mut earlier = Window::new();
        earlier.load(&events[k..], k > 0 || has_more)?;
        earlier.prepend_pages(&events[..k], &mut sizes, has_more)?;
        same_window(&earlier.conversation, &loaded.conversation, &probes, "load + prepends")?;
        prop_assert_eq!(earlier.conversation.has_more(), has_more);

        let mut mixed = Window::new();
        mixed.load(&events[j..k], j > 0 || has_more)?;
        mixed.append_chunks(&events[k..], &mut sizes)?;
        mixed.prepend_pages(&events[..j], &mut sizes, has_more)?;
        same_window(&mixed.conversation, &loaded.conversation, &probes, "load + appends + prepends")?;

        let mut reloaded = Window::new();
        reloaded.load(&events[..j], false)?;
        reloaded.load(&events, has_more)?;
        same_window(&reloaded.conversation, &loaded.conversation, &probes, "reload")?;
    }

    /// System cards follow BEHAVIOUR.md section 5's anchor rules (an update at its own seq; an
    /// initial card at its turn start for step 1, else its step start, else its own seq), belong to
    /// nonempty appends folded while certain, and the views are in their documented orders.
    #[test]
    fn system_cards_are_anchored_by_the_step_rules((log, cut) in testkit::log_and_cut(80)) {
        let events = testkit::parse(&log[cut..], false);
        let mut conversation = Conversation::new();
        conversation.load(events.clone(), LoadOptions::default().with_has_more(cut > 0)).map_err(|err| TestCaseError::fail(err.to_string()))?;
        let mut turn_starts = BTreeMap::new();
        let mut step_starts = BTreeMap::new();
        for event in &events {
            match (&event.kind, event.turn().value(), event.step()) {
                (EventKind::TurnStart, Some(turn), _) => {
                    turn_starts.entry(turn).or_insert(event.seq);
                }
                (EventKind::StepStart, Some(turn), Some(step)) => {
                    step_starts.entry((turn, step)).or_insert(event.seq);
                }
                _ => {}
            }
        }
        let views = conversation.views();
        for card in views.chat.iter().filter(|card| card.source == CardSource::System) {
            let expected = match (card.update, card.turn, card.step) {
                (true, _, _) => card.seq,
                (false, Some(turn), Some(1)) => turn_starts
                    .get(&turn)
                    .or_else(|| step_starts.get(&(turn, 1)))
                    .copied()
                    .unwrap_or(card.seq),
                (false, Some(turn), Some(step)) => {
                    step_starts.get(&(turn, step)).copied().unwrap_or(card.seq)
                }
                (false, _, _) => card.seq,
            };
            prop_assert_eq!(card.anchor_seq, expected, "anchor of {}", &card.key);
            prop_assert_eq!(card.key.to_string(), format!("system:{}", card.seq));
            let title = if card.update { TitleKey::SystemPromptUpdate } else { TitleKey::SystemPrompt };
            prop_assert_eq!(card.title_key, title);
            let event = events.iter().find(|event| event.seq == card.seq);
            prop_assert!(event.is_some_and(|event| event.is_system_append()
                && event.system_text().is_some_and(|text| **text == *card.text)
                && !card.text.is_empty()));
            let state = conversation.state_at(card.seq);
            prop_assert!(state.is_some_and(|state| !state.is_uncertain()));
        }
        prop_assert!(views.chat.windows(2).all(|pair| pair[0].order() < pair[1].order()));
        let headers = &views.trajectory.headers;
        prop_assert!(headers.windows(2).all(|pair| pair[0].seq <= pair[1].seq));
        let requests = &views.trajectory.requests;
        prop_assert!(requests.windows(2).all(|pair| pair[0].start_seq < pair[1].start_seq));
        let step_start_count = events.iter().filter(|event| event.kind == EventKind::StepStart).count();
        prop_assert_eq!(requests.len(), step_start_count);
    }

    /// Hostile text never panics, and a rejected call leaves the window exactly as it was; an
    /// accepted one leaves a window equal to a fresh load of what it holds (D1 on odd input).
    #[test]
    fn hostile_text_never_panics_and_failures_change_nothing(
        text in testkit::hostile_text(),
        base in testkit::valid_log(20),
        has_more in any::<bool>(),
    ) {
        let parsed = parse_events(&text);
        let mut start = Conversation::new();
        start.load(testkit::parse(&base, false), LoadOptions::default()).map_err(|err| TestCaseError::fail(err.to_string()))?;
        for conversation in [Conversation::new(), start] {
            let before = snapshot(&conversation);
            type Call = fn(&mut Conversation, &str, bool) -> Result<ConversationChange, promptfold::Error>;
            let calls: [(&str, Call); 3] = [
                ("load_json", |c, t, m| c.load_json(t, LoadOptions::default().with_has_more(m))),
                ("append_json", |c, t, _| c.append_json(t)),
                ("prepend_json", |c, t, m| c.prepend_json(t, LoadOptions::default().with_has_more(m))),
            ];
            for (name, call) in calls {
                let mut target = conversation.clone();
                match call(&mut target, &text, has_more) {
                    Err(err) => {
                        prop_assert!(snapshot(&target) == before, "{name} failed ({err}) but changed the window");
                        prop_assert!(!err.code().is_empty() && !err.to_string().is_empty());
                        // parse_events reads the text as a log from its start, as a load does (a
                        // started window numbers appended or prepended events as it does its own).
                        // A torn last line that parse_events rejects is not read by load_json and
                        // append_json, which may then fail later on.
                        let torn_last_line = name != "prepend_json"
                            && !text.ends_with('\n')
                            && matches!(&parsed, Err(promptfold::Error::MalformedJson { line, .. }) if *line == text.split('\n').count());
                        if let (Err(parse_error), true, false) = (&parsed, name == "load_json" || conversation.is_empty(), torn_last_line) {
                            prop_assert_eq!(parse_error, &err);
                        }
                    }
                    Ok(change) => {
                        // A torn last line is reported by load_json and append_json, not read.
                        prop_assert!(
                            parsed.is_ok() || change.torn_tail.is_some(),
                            "{name} accepted text that parse_events rejects"
                        );
                        equals_fresh_load(&target, name)?;
                        let _ = target.lines();
                    }
                }
            }
        }
        if let Ok(events) = parsed {
            fold_everything(&events);
        }
    }

    /// Random sequences of calls on one window, with valid slices (often out of order) and
    /// hostile text: nothing panics, failures change nothing, successes keep D1 and consistent
    /// change reports.
    #[test]
    fn random_operations_never_panic(
        log in testkit::valid_log(40),
        ops in prop::collection::vec(operation(), 1..10),
    ) {
        let events = testkit::parse(&log, false);
        let mut window = Window::new();
        for op in &ops {
            let before = snapshot(&window.conversation);
            let slice = |a: &Index, b: &Index| {
                let (a, b) = (a.index(events.len() + 1), b.index(events.len() + 1));
                events[a.min(b)..a.max(b)].to_vec()
            };
            let result = match op {
                Operation::LoadText(text, more) => window.conversation.load_json(text, LoadOptions::default().with_has_more(*more)),
                Operation::AppendText(text) => window.conversation.append_json(text),
                Operation::PrependText(text, more) => window.conversation.prepend_json(text, LoadOptions::default().with_has_more(*more)),
                Operation::Load(a, b, more) => window.conversation.load(slice(a, b), LoadOptions::default().with_has_more(*more)),
                Operation::Append(a, b) => window.conversation.append(slice(a, b)),
                Operation::Prepend(a, b, more) => window.conversation.prepend(slice(a, b), LoadOptions::default().with_has_more(*more)),
                Operation::Probe(index) => {
                    let seq = events.get(index.index(events.len().max(1))).map_or(0, |e| e.seq);
                    let _ = window.conversation.state_at(seq).map(SystemPromptState::to_json);
                    let _ = window.conversation.request_at(seq);
                    prop_assert!(snapshot(&window.conversation) == before, "a query changed the window");
                    continue;
                }
            };
            match result {
                Err(err) => {
                    prop_assert!(snapshot(&window.conversation) == before, "{op:?} failed ({err}) but changed the window");
                }
                Ok(change) => {
                    window.replay.apply(&change, &window.conversation, "random operation")?;
                    equals_fresh_load(&window.conversation, "random operation")?;
                }
            }
        }
        fold_everything(window.conversation.events());
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// Prepending pages one by one gives, after each page, exactly what loading the whole window
    /// over the previous one gives: the same change report, lines, views, and state and
    /// inspection at every seq; live events appended between the pages and after them land as
    /// in a fresh load. Long logs with compactions, so that a page's walk often joins the
    /// window's own walk where both withhold the prompt.
    #[test]
    fn prepended_pages_agree_with_one_load(
        log in testkit::valid_log(300),
        cuts in (any::<Index>(), any::<Index>()),
        sizes in prop::collection::vec(1usize..40, 1..20),
        has_more in any::<bool>(),
    ) {
        let events = testkit::parse(&log, false);
        let probes = probe_seqs(&events, &[]);
        let (a, b) = (cuts.0.index(events.len() + 1), cuts.1.index(events.len() + 1));
        let (start, live) = (a.min(b), a.max(b));
        let mut sizes = sizes.into_iter().cycle();
        let mut window = Conversation::new();
        window
            .load(events[start..live].to_vec(), LoadOptions::default().with_has_more(start > 0 || has_more))
            .map_err(|err| TestCaseError::fail(err.to_string()))?;
        let (mut end, mut appended) = (start, live);
        while end > 0 {
            let begin = end.saturating_sub(sizes.next().unwrap_or(3));
            let page = &events[begin..end];
            let more = begin > 0 || has_more;
            let mut expected = window.clone();
            let mut whole = page.to_vec();
            whole.extend_from_slice(window.events());
            let expected_change = expected
                .load(whole, LoadOptions::default().with_has_more(more))
                .map_err(|err| TestCaseError::fail(err.to_string()))?;
            let change = window
                .prepend(page.to_vec(), LoadOptions::default().with_has_more(more))
                .map_err(|err| TestCaseError::fail(err.to_string()))?;
            let what = format!("page {begin}..{end}");
            same(&value(&change), &value(&expected_change), &format!("{what}: change report"))?;
            same_window(&window, &expected, &probes, &what)?;
            prop_assert_eq!(window.events(), expected.events());
            if appended < events.len() {
                let next = (appended + sizes.next().unwrap_or(3)).min(events.len());
                window
                    .append(events[appended..next].to_vec())
                    .map_err(|err| TestCaseError::fail(err.to_string()))?;
                appended = next;
                equals_fresh_load(&window, &format!("{what}, then an append"))?;
            }
            end = begin;
        }
        window
            .append(events[appended..].to_vec())
            .map_err(|err| TestCaseError::fail(err.to_string()))?;
        equals_fresh_load(&window, "the last append")?;
    }
}

/// Events from compact descriptions: `(seq, type, data, surfaceOp)`, a null op for none.
fn events_of(list: &[(i64, &str, Value, Value)]) -> Vec<SessionEvent> {
    list.iter()
        .map(|(seq, kind, data, op)| {
            let mut event =
                serde_json::json!({"seq": seq, "time": seq, "type": kind, "data": data});
            if !op.is_null() {
                event["surfaceOp"] = op.clone();
            }
            parse_events(&event.to_string())
                .expect("valid event")
                .remove(0)
        })
        .collect()
}

fn message(role: &str, text: &str, turn: u64, step: u64) -> Value {
    let content = serde_json::json!([{"type": "text", "text": text}]);
    serde_json::json!({"turn": turn, "step": step, "message": {"role": role, "content": content}})
}

fn replace(start: i64, end: i64) -> Value {
    serde_json::json!({"op": "replace", "startSeq": start, "endSeq": end})
}

/// Loads `events[page..live]`, prepends `events[..page]`, appends the rest: the views equal a
/// load of all the events.
fn prepend_then_append_is_load(events: &[SessionEvent], page: usize, live: usize) {
    let mut window = Conversation::new();
    window
        .load(
            events[page..live].to_vec(),
            LoadOptions::default().with_has_more(true),
        )
        .expect("loads");
    window
        .prepend(
            events[..page].to_vec(),
            LoadOptions::default().with_has_more(true),
        )
        .expect("prepends");
    window.append(events[live..].to_vec()).expect("appends");
    let mut fresh = Conversation::new();
    fresh
        .load(events.to_vec(), LoadOptions::default().with_has_more(true))
        .expect("loads");
    assert_eq!(value(&window.views()), value(&fresh.views()));
}

/// A card that only the old walk made (the page makes the prompt withheld before it) leaves
/// nothing behind: a step start appended later re-anchors no other card.
#[test]
fn a_card_only_the_old_walk_made_is_forgotten() {
    let append = || serde_json::json!("append");
    let events = events_of(&[
        // The page: a card in step 1 of turn 1, then a replacement reaching before the page.
        (2, "system/message", message("system", "A", 1, 1), append()),
        (3, "user/message", message("user", "u", 1, 1), append()),
        (4, "user/message", message("user", "u", 1, 1), replace(1, 3)),
        // The window: a card in step 2 of turn 2 before its start, then a replacement reaching
        // before the window; the step start comes live.
        (5, "system/message", message("system", "B", 2, 2), append()),
        (6, "user/message", serde_json::json!({}), replace(1, 5)),
        (
            7,
            "step/start",
            serde_json::json!({"turn": 2, "step": 2}),
            Value::Null,
        ),
    ]);
    prepend_then_append_is_load(&events, 3, 5);
}

/// A card of the page whose step starts after the walks joined is anchored at that start.
#[test]
fn a_step_start_after_the_join_anchors_the_page_cards() {
    let append = || serde_json::json!("append");
    let events = events_of(&[
        // The page: a card in step 2 of turn 2 before its start, then a replacement reaching
        // before the page.
        (2, "system/message", message("system", "A", 2, 2), append()),
        (3, "user/message", message("user", "u", 2, 2), replace(1, 2)),
        // The window: a replacement reaching before it, then the step start.
        (4, "user/message", message("user", "u", 2, 2), replace(1, 3)),
        (
            5,
            "step/start",
            serde_json::json!({"turn": 2, "step": 2}),
            Value::Null,
        ),
    ]);
    prepend_then_append_is_load(&events, 2, 4);
}

/// Folds and inspects parsed (possibly hostile) events every way the API allows: no panic.
fn fold_everything(events: &[SessionEvent]) {
    let starts = [
        None,
        events.first().map(|event| event.seq),
        Some(i64::MIN),
        Some(i64::MAX),
        Some(0),
    ];
    for window_start in starts {
        let mut state: Option<SystemPromptState> = None;
        let mut previous: Option<PromptSnapshot> = None;
        for event in events {
            let system = state.as_ref().and_then(SystemPromptState::effective);
            if let Ok(inspection) = inspect_request_prompt(previous.as_ref(), event, system) {
                previous = Some(inspection.prompt);
            }
            let _ = inspect_request_prompt(None, event, system);
            state = inspect_system_prompt(state.as_ref(), event, window_start);
            if let Some(state) = &state {
                let _ = value(&state.to_json());
                let _ = state.nodes().count() + state.replacement_count();
            }
        }
    }
}

#[derive(Clone, Debug)]
enum Operation {
    LoadText(String, bool),
    AppendText(String),
    PrependText(String, bool),
    Load(Index, Index, bool),
    Append(Index, Index),
    Prepend(Index, Index, bool),
    Probe(Index),
}

fn operation() -> impl Strategy<Value = Operation> {
    prop_oneof![
        1 => (testkit::hostile_text(), any::<bool>()).prop_map(|(t, m)| Operation::LoadText(t, m)),
        1 => testkit::hostile_text().prop_map(Operation::AppendText),
        1 => (testkit::hostile_text(), any::<bool>()).prop_map(|(t, m)| Operation::PrependText(t, m)),
        3 => (any::<Index>(), any::<Index>(), any::<bool>()).prop_map(|(a, b, m)| Operation::Load(a, b, m)),
        4 => (any::<Index>(), any::<Index>()).prop_map(|(a, b)| Operation::Append(a, b)),
        4 => (any::<Index>(), any::<Index>(), any::<bool>()).prop_map(|(a, b, m)| Operation::Prepend(a, b, m)),
        1 => any::<Index>().prop_map(Operation::Probe),
    ]
}
