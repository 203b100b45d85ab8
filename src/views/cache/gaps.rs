//! One walk over the window's events that gathers, for every request, what lies between the
//! previous request's read point (exclusive) and its own (inclusive): headers, replaces,
//! in-history updates, and where the replaces broke the previous request's prefix.

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
    /// The route of that header.
    pub route: Option<Route>,
    /// A header with reason `series` or `startsSeries` in the gap.
    pub series: bool,
    /// The replaces in the gap, in seq order.
    pub replaces: Vec<Replace>,
    /// In-history updates (system appends with `update` true) in the gap.
    pub updates: u32,
    /// Where the gap's replaces broke the previous request's prefix.
    pub brk: Option<Break>,
    /// Whether [`Positions`] lost track of the surface by this request (compare node lists).
    pub lost: bool,
}

/// The gap of every request, in order.
pub(super) fn scan(input: &LedgerInput<'_>, requests: &[RequestState]) -> Vec<Gap> {
    let window_start = input.events.first().map_or(0, |event| event.seq);
    let mut positions = Positions::new(window_start, input.events.len());
    let mut gaps = Vec::with_capacity(requests.len());
    let mut gap = Gap::default();
    let mut lost = false;
    let mut starts = Vec::with_capacity(requests.len());
    let mut header: Option<Rc<RequestHeader>> = None;
    let mut last_time = 0.0;
    let mut pending = requests.iter();
    let mut next = pending.next();
    // The answer of the request closed last, which comes before the next read point.
    let mut answer: Option<Seq> = None;
    for event in input.events {
        while let Some(request) = next.filter(|request| request.seq < event.seq) {
            gaps.push(close(&mut gap, request, &header, last_time, lost));
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
            header = Some(Rc::clone(found));
        }
        let node = node_of(event);
        match event.surface_op {
            Some(SurfaceOp::Replace { start, end }) => {
                let replaced = positions.replace(event.seq, (start, end), node.map(|n| n.1));
                lost |= replaced.lost;
                if let Some(at) = replaced.at {
                    if gap.brk.is_none_or(|brk| at.position < brk.position) {
                        gap.brk = Some(at);
                    }
                }
                gap.replaces.push(Replace {
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
        gaps.push(close(&mut gap, request, &header, last_time, lost));
    }
    debug_assert_eq!(starts.len(), gaps.len(), "one request per step start");
    for (gap, start) in gaps.iter_mut().zip(starts) {
        gap.start_seq = start;
    }
    gaps
}

/// Ends the gap of `request` and starts the next one.
fn close(
    gap: &mut Gap,
    request: &RequestState,
    header: &Option<Rc<RequestHeader>>,
    read_time: Time,
    lost: bool,
) -> Gap {
    let mut done = std::mem::take(gap);
    done.read_seq = request.seq;
    done.read_time = read_time;
    done.incomplete = request.sums.incomplete;
    done.route = header.as_deref().map(Route::of);
    done.header = header.clone();
    done.lost = lost;
    done
}

fn replace_kind(kind: &EventKind) -> ReplaceKind {
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
