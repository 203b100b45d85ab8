//! Slices of the views (`cards_slice`, `requests_slice`, `lines_slice`), `view_counts`,
//! `index_of_seq` and the change reports' splices, over random logs taken in any order of load,
//! append, prepend and feed:
//!
//! - any slice equals the same index range of `views()` or `lines()`, clamped;
//! - the counts are the lengths of those lists, and `index_of_seq` finds each event;
//! - every change report's splices, applied to the lists before the call, give the lists after.
#![cfg(not(target_arch = "wasm32"))]
// Not library code: the panic lints of Cargo.toml's `[lints]` table do not apply here.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::arithmetic_side_effects
)]

use std::ops::Range;

use promptfold::testkit;
use promptfold::{Conversation, ConversationChange, Error, ListSplice, LoadOptions, SessionEvent};
use proptest::prelude::*;
use proptest::sample::Index;
use serde::Serialize;
use serde_json::Value;

fn rows<T: Serialize>(items: &[T]) -> Vec<Value> {
    items
        .iter()
        .map(|item| serde_json::to_value(item).unwrap())
        .collect()
}

/// The three lists of a window, each row as JSON.
#[derive(Clone, Debug, PartialEq)]
struct Lists {
    cards: Vec<Value>,
    requests: Vec<Value>,
    lines: Vec<Value>,
}

fn lists(conversation: &Conversation) -> Lists {
    let views = conversation.views();
    Lists {
        cards: rows(&views.chat),
        requests: rows(&views.trajectory.requests),
        lines: rows(&conversation.lines()),
    }
}

/// `range` clamped to `len` rows.
fn clamped(range: &Range<usize>, len: usize) -> Range<usize> {
    range.start.min(len)..range.end.min(len)
}

/// Every slice of `ranges` equals the same range of the lists; the counts are their lengths.
fn slices_agree(
    conversation: &Conversation,
    now: &Lists,
    ranges: &[Range<usize>],
    what: &str,
) -> Result<(), TestCaseError> {
    let counts = conversation.view_counts();
    prop_assert_eq!(
        (counts.cards, counts.requests, counts.lines),
        (now.cards.len(), now.requests.len(), now.lines.len()),
        "{}: counts",
        what
    );
    for range in ranges {
        let cards = conversation.cards_slice(range.clone()).unwrap();
        let expected = clamped(range, now.cards.len());
        prop_assert_eq!(
            (cards.total, cards.start),
            (now.cards.len(), expected.start)
        );
        prop_assert_eq!(
            &rows(&cards.cards),
            &now.cards[expected.clone()].to_vec(),
            "{}: cards {:?}",
            what,
            range
        );
        let requests = conversation.requests_slice(range.clone()).unwrap();
        let expected = clamped(range, now.requests.len());
        prop_assert_eq!(
            (requests.total, requests.start),
            (now.requests.len(), expected.start)
        );
        prop_assert_eq!(
            &rows(&requests.requests),
            &now.requests[expected.clone()].to_vec(),
            "{}: requests {:?}",
            what,
            range
        );
        let lines = conversation.lines_slice(range.clone()).unwrap();
        let expected = clamped(range, now.lines.len());
        prop_assert_eq!(
            (lines.total, lines.start),
            (now.lines.len(), expected.start)
        );
        prop_assert_eq!(
            &rows(&lines.lines),
            &now.lines[expected.clone()].to_vec(),
            "{}: lines {:?}",
            what,
            range
        );
    }
    Ok(())
}

/// `index_of_seq` of every loaded event (and of seqs that are not loaded) against the lists.
fn indices_agree(conversation: &Conversation, what: &str) -> Result<(), TestCaseError> {
    let views = conversation.views();
    let events = conversation.events();
    for (line, event) in events.iter().enumerate() {
        let found = conversation.index_of_seq(event.seq).unwrap();
        prop_assert_eq!(found.line, line, "{}: line of {}", what, event.seq);
        let shown = views
            .chat
            .iter()
            .filter(|card| card.anchor_seq <= event.seq)
            .count();
        prop_assert_eq!(
            found.card,
            shown.checked_sub(1),
            "{}: card of {}",
            what,
            event.seq
        );
        let started = views
            .trajectory
            .requests
            .iter()
            .filter(|request| request.start_seq <= event.seq)
            .count();
        prop_assert_eq!(
            found.request,
            started.checked_sub(1),
            "{}: request of {}",
            what,
            event.seq
        );
        if line + 1 == events.len() || events[line + 1].seq > event.seq + 1 {
            prop_assert!(conversation.index_of_seq(event.seq + 1).is_none());
        }
    }
    if let Some(first) = events.first() {
        prop_assert!(conversation.index_of_seq(first.seq - 1).is_none());
    }
    Ok(())
}

/// `splice` applied to `before` gives `after`.
fn splice_applies(
    splice: &ListSplice,
    before: &[Value],
    after: &[Value],
    what: &str,
) -> Result<(), TestCaseError> {
    prop_assert_eq!(splice.total, after.len(), "{}: total", what);
    prop_assert!(
        splice.start + splice.removed <= before.len() && splice.start + splice.added <= after.len(),
        "{}: {:?} out of the lists ({} -> {})",
        what,
        splice,
        before.len(),
        after.len()
    );
    let mut spliced = before.to_vec();
    spliced.splice(
        splice.start..splice.start + splice.removed,
        after[splice.start..splice.start + splice.added]
            .iter()
            .cloned(),
    );
    prop_assert!(
        spliced == after,
        "{}: {:?} does not turn the rows before into those after",
        what,
        splice
    );
    Ok(())
}

fn splices_apply(
    change: &ConversationChange,
    before: &Lists,
    after: &Lists,
    what: &str,
) -> Result<(), TestCaseError> {
    let splices = &change.splices;
    splice_applies(
        &splices.cards,
        &before.cards,
        &after.cards,
        &format!("{what}: cards"),
    )?;
    splice_applies(
        &splices.requests,
        &before.requests,
        &after.requests,
        &format!("{what}: requests"),
    )?;
    splice_applies(
        &splices.lines,
        &before.lines,
        &after.lines,
        &format!("{what}: lines"),
    )
}

/// One call on the window.
#[derive(Clone, Copy, Debug)]
enum Step {
    /// Load events `lo..hi` of the log (replacing the window).
    Load,
    /// Append the next events.
    Append,
    /// Feed the next events as JSON lines text, cut in two anywhere.
    Feed,
    /// Prepend the events before the window.
    Prepend,
}

/// A window over `events` (the log's events, `log` their JSON) driven by steps, checking slices
/// and splices after each.
struct Driver<'a> {
    log: &'a [Value],
    events: &'a [SessionEvent],
    conversation: Conversation,
    /// The window holds events `lo..hi`.
    lo: usize,
    hi: usize,
    lists: Lists,
}

impl Driver<'_> {
    fn run(
        &mut self,
        step: Step,
        size: usize,
        at: Index,
        ranges: &[Range<usize>],
    ) -> Result<(), TestCaseError> {
        let len = self.events.len();
        let change = match step {
            Step::Load => {
                let lo = at.index(len + 1);
                let hi = lo.saturating_add(size).min(len);
                let change = self
                    .conversation
                    .load(
                        self.events[lo..hi].to_vec(),
                        LoadOptions::default().with_has_more(lo > 0),
                    )
                    .unwrap();
                (self.lo, self.hi) = (lo, hi);
                change
            }
            Step::Append if self.hi < len => {
                let hi = self.hi.saturating_add(size).min(len);
                let change = self
                    .conversation
                    .append(self.events[self.hi..hi].to_vec())
                    .unwrap();
                self.hi = hi;
                change
            }
            Step::Feed if self.hi < len => {
                let hi = self.hi.saturating_add(size).min(len);
                let text = testkit::lines_text(&self.log[self.hi..hi]);
                let cut = at.index(text.len() + 1);
                let first = self.conversation.feed(&text.as_bytes()[..cut]).unwrap();
                let before = lists(&self.conversation);
                splices_apply(&first, &self.lists, &before, "feed, first piece")?;
                self.lists = before;
                self.hi = hi;
                self.conversation.feed(&text.as_bytes()[cut..]).unwrap()
            }
            Step::Prepend if self.lo > 0 => {
                let lo = self.lo.saturating_sub(size);
                let change = self
                    .conversation
                    .prepend(
                        self.events[lo..self.lo].to_vec(),
                        LoadOptions::default().with_has_more(lo > 0),
                    )
                    .unwrap();
                self.lo = lo;
                change
            }
            _ => return Ok(()),
        };
        let what = format!("{step:?} to {}..{}", self.lo, self.hi);
        prop_assert_eq!(
            self.conversation.len(),
            self.hi - self.lo,
            "{}: window",
            &what
        );
        let now = lists(&self.conversation);
        splices_apply(&change, &self.lists, &now, &what)?;
        slices_agree(&self.conversation, &now, ranges, &what)?;
        indices_agree(&self.conversation, &what)?;
        self.lists = now;
        Ok(())
    }
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        1 => Just(Step::Load),
        3 => Just(Step::Append),
        2 => Just(Step::Feed),
        3 => Just(Step::Prepend),
    ]
}

/// Ranges over small lists: empty, inside, across the end, past the end, the whole list.
fn ranges() -> impl Strategy<Value = Vec<Range<usize>>> {
    prop::collection::vec((0usize..40, 0usize..40), 0..6).prop_map(|pairs| {
        let mut ranges: Vec<Range<usize>> =
            pairs.into_iter().map(|(a, b)| a.min(b)..a.max(b)).collect();
        ranges.extend([0..0, 0..usize::MAX, usize::MAX..usize::MAX]);
        ranges
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Any slice equals the same range of `views()` and `lines()`, and every change report's
    /// splices apply, after any order of load, append, feed and prepend.
    #[test]
    fn slices_equal_the_views_in_any_order(
        (log, cut) in testkit::log_and_cut(80),
        start in 0usize..30,
        steps in prop::collection::vec((step(), 1usize..12, any::<Index>()), 1..16),
        ranges in ranges(),
        last in any::<Index>(),
    ) {
        let events = testkit::parse(&log, false);
        let cut = cut.min(events.len());
        let hi = (cut + start).min(events.len());
        let mut driver = Driver {
            log: &log,
            events: &events,
            conversation: Conversation::new(),
            lo: cut,
            hi: cut,
            lists: Lists { cards: Vec::new(), requests: Vec::new(), lines: Vec::new() },
        };
        let change = driver
            .conversation
            .load(events[cut..hi].to_vec(), LoadOptions::default().with_has_more(cut > 0))
            .unwrap();
        driver.hi = hi;
        let now = lists(&driver.conversation);
        splices_apply(&change, &driver.lists, &now, "first load")?;
        slices_agree(&driver.conversation, &now, &ranges, "first load")?;
        driver.lists = now;
        for (step, size, at) in steps {
            driver.run(step, size, at, &ranges)?;
        }
        // Down to the log's start and up to its end: the same slices as a fresh load.
        driver.run(Step::Prepend, usize::MAX, last, &ranges)?;
        driver.run(Step::Append, usize::MAX, last, &ranges)?;
        prop_assert_eq!(driver.conversation.events(), &events[..]);
    }
}

/// A range that ends before it starts is an invalid argument, and changes nothing.
#[test]
fn backward_ranges_are_invalid_arguments() {
    let log = testkit::build(&testkit::Plan::seeded(7, 60));
    let events = testkit::parse(&log, false);
    let mut conversation = Conversation::new();
    conversation.load(events, LoadOptions::default()).unwrap();
    let before = lists(&conversation);
    let backwards = Range { start: 2, end: 1 };
    for result in [
        conversation.cards_slice(backwards.clone()).map(|_| ()),
        conversation.requests_slice(backwards.clone()).map(|_| ()),
        conversation.lines_slice(backwards).map(|_| ()),
    ] {
        assert!(
            matches!(result, Err(Error::InvalidArgument { .. })),
            "{result:?}"
        );
    }
    assert_eq!(lists(&conversation), before);
}

/// Live appends report only the rows near the end of the lists: on a typical log, a few rows
/// per append (a conservative report of whole lists would be hundreds).
#[test]
fn live_appends_splice_near_the_end() {
    let log = testkit::build(&testkit::Plan::seeded(11, 400));
    let events = testkit::parse(&log, false);
    let mut conversation = Conversation::new();
    let half = events.len() / 2;
    conversation
        .load(events[..half].to_vec(), LoadOptions::default())
        .unwrap();
    let (mut cards, mut requests) = (0, 0);
    for event in &events[half..] {
        let before = conversation.view_counts();
        let change = conversation.append(vec![event.clone()]).unwrap();
        let splices = change.splices;
        let lines = splices.lines;
        assert_eq!(
            (lines.start, lines.removed, lines.added, lines.total),
            (before.lines, 0, 1, before.lines + 1)
        );
        cards += splices.cards.removed + splices.cards.added;
        requests += splices.requests.removed + splices.requests.added;
    }
    let counts = conversation.view_counts();
    let appends = events.len() - half;
    assert!(counts.cards > 20 && counts.requests > 20, "{counts:?}");
    assert!(
        cards <= 3 * appends && requests <= 3 * appends,
        "{cards} {requests} over {appends} appends"
    );
}

/// Each request of a slice is linked by itself when the facts sit in their steps (the first
/// slice after a load or a prepend then costs its range): over windows of seeded logs taken
/// from any start and grown by prepends, every one-request slice equals that request of
/// `views()`, and both the requests linked by themselves and those of them whose change an
/// earlier request shows are many.
#[test]
fn requests_are_linked_by_themselves_and_equal_the_views() {
    let (linked, hidden) = testkit::placed_links();
    for seed in 0..40 {
        let log = testkit::build(&testkit::Plan::seeded(seed, 200));
        let events = testkit::parse(&log, false);
        for cut in [0, events.len() / 3, events.len() / 2] {
            let mut conversation = Conversation::new();
            conversation
                .load(events[cut..].to_vec(), LoadOptions::default())
                .unwrap();
            let mut lo = cut;
            loop {
                let expected = rows(&conversation.views().trajectory.requests);
                for (index, request) in expected.iter().enumerate() {
                    let slice = conversation.requests_slice(index..index + 1).unwrap();
                    assert_eq!(
                        &rows(&slice.requests),
                        std::slice::from_ref(request),
                        "seed {seed}, window {lo}.., request {index}"
                    );
                }
                if lo == 0 {
                    break;
                }
                let page = lo.saturating_sub(25);
                conversation
                    .prepend(events[page..lo].to_vec(), LoadOptions::default())
                    .unwrap();
                lo = page;
            }
        }
    }
    let (linked, hidden) = {
        let (now_linked, now_hidden) = testkit::placed_links();
        (now_linked - linked, now_hidden - hidden)
    };
    assert!(linked > 10_000 && hidden > 100, "{linked} {hidden}");
}

/// A slice of requests is made in a list of the range's length, reserved once: collected with
/// no lower bound on its length, the list grew by doubling and was left with spare room.
#[test]
fn requests_slices_are_reserved_for_their_range() {
    for seed in 0..10 {
        let log = testkit::build(&testkit::Plan::seeded(seed, 200));
        let events = testkit::parse(&log, false);
        let mut conversation = Conversation::new();
        conversation.load(events, LoadOptions::default()).unwrap();
        let total = conversation.view_counts().requests;
        assert!(total > 20, "seed {seed}: {total} requests");
        for range in [0..total, 3..total - 2, 0..total + 10] {
            let requests = conversation.requests_slice(range.clone()).unwrap().requests;
            assert_eq!(requests.len(), clamped(&range, total).len(), "seed {seed}");
            assert_eq!(
                requests.capacity(),
                requests.len(),
                "seed {seed}, {range:?}"
            );
        }
    }
}

/// `log` with the headers of every step after a turn's first written as located in the step
/// before theirs (`turn` and `step` in their data), as a log whose harness wrote a step's
/// header late would read: facts out of their steps, which no range of requests can be linked
/// by itself from.
fn headers_out_of_their_steps(mut log: Vec<Value>) -> Vec<Value> {
    let mut step = None;
    for event in &mut log {
        match event["type"].as_str() {
            Some("step/start") => {
                step = Some((
                    event["data"]["turn"].clone(),
                    event["data"]["step"].as_u64(),
                ))
            }
            Some("request/header") => {
                if let Some((turn, Some(number))) = &step {
                    if *number > 1 {
                        event["data"]["turn"] = turn.clone();
                        event["data"]["step"] = Value::from(number - 1);
                    }
                }
            }
            _ => {}
        }
    }
    log
}

/// The requests slices of a window whose header facts are out of their steps take the links
/// path (no request is linked by itself): each slice equals the same range of
/// `views().trajectory.requests`, after a load and after a live append relinks the last
/// requests, in a list reserved to its range.
#[test]
fn requests_slices_out_of_their_steps_are_linked_and_equal_the_views() {
    for seed in 0..10 {
        let log = headers_out_of_their_steps(testkit::build(&testkit::Plan::seeded(seed, 200)));
        let events = testkit::parse(&log, false);
        let split = events.len() * 2 / 3;
        let mut conversation = Conversation::new();
        conversation
            .load(events[..split].to_vec(), LoadOptions::default())
            .unwrap();
        for appended in [false, true] {
            if appended {
                conversation.append(events[split..].to_vec()).unwrap();
            }
            let expected = rows(&conversation.views().trajectory.requests);
            let total = expected.len();
            assert!(total > 10, "seed {seed}: {total} requests");
            let (linked, _) = testkit::placed_links();
            let singles = (0..total).step_by(7).map(|index| index..index + 1);
            let ranges = [0..total, 3..total - 2, total - 4..total + 10].into_iter();
            for range in ranges.chain(singles) {
                let requests = conversation.requests_slice(range.clone()).unwrap().requests;
                let at = format!("seed {seed}, appended {appended}, {range:?}");
                assert_eq!(rows(&requests), expected[clamped(&range, total)], "{at}");
                assert_eq!(requests.capacity(), requests.len(), "{at}");
            }
            assert_eq!(
                testkit::placed_links().0,
                linked,
                "seed {seed}: the requests were meant to be linked all at once"
            );
        }
    }
}
