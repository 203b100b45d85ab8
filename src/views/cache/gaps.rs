//! One walk over the window's events that gathers, for every request, what lies between the
//! previous request's read point (exclusive) and its own (inclusive): headers, replaces,
//! in-history updates, and where the replaces broke the previous request's prefix.

use std::ops::Range;
use std::rc::Rc;

use super::causes::Route;
use super::prefix::{Break, Positions};
use crate::fold::surface::{node_of, RequestState};
use crate::input::event::{EventKind, HeaderReason, RequestHeader, Seq, SurfaceOp, Time};

use super::LedgerInput;

/// A replace between two read points.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Replace {
    /// The replacing event's seq.
    pub seq: Seq,
    /// Its event type.
    pub kind: ReplaceKind,
    /// Its endpoints as given.
    pub start: Seq,
    pub end: Seq,
}

/// The event type of a replace.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum ReplaceKind {
    /// A `system/message`: a rewrite, with its text.
    System(Rc<str>),
    /// A `user/message`: a compaction.
    User,
    /// A `tool/result`: a prune.
    Tool,
    /// Any other type.
    Other(&'static str),
}

/// What one request's gap holds, and its own facts.
#[derive(Clone, Debug, Default)]
pub(super) struct Gap {
    /// The request's `step/start` seq.
    pub start_seq: Seq,
    /// Its read point.
    pub read_seq: Seq,
    /// The time of the last event at or before the read point.
    pub read_time: Time,
    /// The time of its answer, when one is loaded.
    pub answer_time: Option<Time>,
    /// Whether its context is incomplete.
    pub incomplete: bool,
    /// The latest request header at the read point.
    pub header: Option<Rc<RequestHeader>>,
    /// The route of that header (one per header, shared by the requests that read it).
    pub route: Option<Rc<Route>>,
    /// A header with reason `series` or `startsSeries` in the gap.
    pub series: bool,
    /// The replaces in the gap, in seq order: a range of [`Scan::replaces`].
    pub replaces: Range<usize>,
    /// In-history updates (system appends with `update` true) in the gap.
    pub updates: u32,
    /// Where the gap's replaces broke the previous request's prefix.
    pub brk: Option<Break>,
    /// Whether [`Positions`] lost track of the surface by this request (compare node lists).
    pub lost: bool,
}

/// The gaps of a window's requests and the replaces they hold (one list, so that a gap costs
/// no allocation of its own).
pub(super) struct Scan {
    /// The gap of every request, in order.
    pub gaps: Vec<Gap>,
    /// Every replace of the window, in seq order.
    pub replaces: Vec<Replace>,
}

impl Scan {
    /// The replaces in `gap`.
    pub fn replaces_of(&self, gap: &Gap) -> &[Replace] {
        let found = self.replaces.get(gap.replaces.clone());
        debug_assert!(found.is_some(), "a gap's replaces are in the list");
        found.unwrap_or_default()
    }
}

/// The gap of every request, in order.
pub(super) fn scan(input: &LedgerInput<'_>, requests: &[RequestState]) -> Scan {
    let window_start = input.events.first().map_or(0, |event| event.seq);
    let last = input.events.last().map_or(window_start, |event| event.seq);
    let span =
        usize::try_from(last.saturating_sub(window_start)).map_or(0, |d| d.saturating_add(1));
    let replace_count = (input.events.iter())
        .filter(|event| matches!(event.surface_op(), Some(SurfaceOp::Replace { .. })))
        .count();
    let mut positions = Positions::new(window_start, input.events.len(), span, replace_count);
    let mut gaps = Vec::with_capacity(requests.len());
    let mut gap = Gap::default();
    let mut replaces = Vec::with_capacity(replace_count);
    let mut lost = false;
    let mut starts = Vec::with_capacity(requests.len());
    let mut header: Option<Rc<RequestHeader>> = None;
    let mut route: Option<Rc<Route>> = None;
    let mut last_time = 0.0;
    let mut pending = requests.iter();
    let mut next = pending.next();
    // The answer of the request closed last, which comes before the next read point.
    let mut answer: Option<Seq> = None;
    for event in input.events {
        while let Some(request) = next.filter(|request| request.seq < event.seq) {
            gaps.push(close(
                &mut gap,
                request,
                (&header, &route),
                (last_time, lost),
                replaces.len(),
            ));
            answer = request.answer.as_ref().map(|(seq, _)| *seq);
            next = pending.next();
        }
        if answer == Some(event.seq) {
            if let Some(closed) = gaps.last_mut() {
                closed.answer_time = Some(event.time);
            }
            answer = None;
        }
        last_time = event.time;
        if let EventKind::StepStart = event.kind {
            starts.push(event.seq);
        }
        if let Some(found) = event.header() {
            gap.series |= found.starts_series || found.reason == HeaderReason::Series;
            // A header that repeats the config (shared by the interner) or the route shares
            // the previous one's.
            let same_config =
                header
                    .as_deref()
                    .is_some_and(|last| match (&last.config, &found.config) {
                        (Some(a), Some(b)) => Rc::ptr_eq(a, b),
                        (None, None) => true,
                        _ => false,
                    });
            if !same_config {
                let found_route = Route::of(found);
                if route.as_deref() != Some(&found_route) {
                    route = Some(Rc::new(found_route));
                }
            }
            header = Some(Rc::clone(found));
        }
        let node = node_of(event);
        match event.surface_op() {
            Some(SurfaceOp::Replace { start, end }) => {
                let replaced = positions.replace(event.seq, (start, end), node.map(|n| n.1));
                lost |= replaced.lost;
                if let Some(at) = replaced.at {
                    if gap.brk.is_none_or(|brk| at.position < brk.position) {
                        gap.brk = Some(at);
                    }
                }
                replaces.push(Replace {
                    seq: event.seq,
                    kind: replace_kind(&event.kind),
                    start,
                    end,
                });
            }
            _ => {
                if let Some((_, tokens)) = node {
                    lost |= !positions.append(event.seq, tokens);
                }
                if event.is_system_append() {
                    let update = (input.state_at)(event.seq)
                        .and_then(|state| state.introduced())
                        .is_some_and(|node| node.update && node.seq == event.seq);
                    gap.updates = gap.updates.saturating_add(u32::from(update));
                }
            }
        }
    }
    for request in next.into_iter().chain(pending) {
        gaps.push(close(
            &mut gap,
            request,
            (&header, &route),
            (last_time, lost),
            replaces.len(),
        ));
    }
    debug_assert_eq!(starts.len(), gaps.len(), "one request per step start");
    for (gap, start) in gaps.iter_mut().zip(starts) {
        gap.start_seq = start;
    }
    Scan { gaps, replaces }
}

/// Ends the gap of `request` and starts the next one.
fn close(
    gap: &mut Gap,
    request: &RequestState,
    (header, route): (&Option<Rc<RequestHeader>>, &Option<Rc<Route>>),
    (read_time, lost): (Time, bool),
    replaces_end: usize,
) -> Gap {
    let mut done = std::mem::take(gap);
    done.replaces.end = replaces_end;
    gap.replaces = replaces_end..replaces_end;
    done.read_seq = request.seq;
    done.read_time = read_time;
    done.incomplete = request.sums.incomplete;
    done.route = route.clone();
    done.header = header.clone();
    done.lost = lost;
    done
}

pub(super) fn replace_kind(kind: &EventKind) -> ReplaceKind {
    match kind {
        EventKind::SystemMessage { text, .. } => ReplaceKind::System(Rc::clone(text)),
        EventKind::Message(message) => match message.role {
            crate::input::event::MessageRole::User => ReplaceKind::User,
            crate::input::event::MessageRole::Tool => ReplaceKind::Tool,
            crate::input::event::MessageRole::Assistant => ReplaceKind::Other("assistant/message"),
            crate::input::event::MessageRole::Developer => ReplaceKind::Other("developer/message"),
        },
        EventKind::RequestHeader(_) => ReplaceKind::Other("request/header"),
        EventKind::TurnStart => ReplaceKind::Other("turn/start"),
        EventKind::TurnEnd => ReplaceKind::Other("turn/end"),
        EventKind::StepStart => ReplaceKind::Other("step/start"),
        EventKind::StepEnd => ReplaceKind::Other("step/end"),
        EventKind::Other => ReplaceKind::Other("other"),
    }
}
