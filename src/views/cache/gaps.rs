//! One walk over the window's events that gathers, for every request, what lies between the
//! previous request's read point (exclusive) and its own (inclusive): headers, replaces,
//! in-history updates, and where the replaces broke the previous request's prefix. Each
//! request is handed on as soon as its read point has passed, so the walk keeps one gap and the
//! previous one, not a list of them.

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
    /// In-history updates (system appends with `update` true) in the gap.
    pub updates: u32,
    /// Where the gap's replaces broke the previous request's prefix.
    pub brk: Option<Break>,
    /// Whether [`Positions`] lost track of the surface by this request (compare node lists).
    pub lost: bool,
}

/// A request whose read point has passed, as the walk hands it on.
pub(super) struct Closed<'a> {
    /// Its context.
    pub request: &'a RequestState,
    /// The previous request's gap (its answer time set), none for the first request.
    pub before: Option<&'a Gap>,
    /// Its own gap.
    pub gap: &'a Gap,
    /// The replaces in its gap, in seq order.
    pub replaces: &'a [Replace],
}

/// Walks the window's events once and hands on every request, in order, with its gap.
pub(super) fn walk(input: &LedgerInput<'_>, each: &mut dyn FnMut(Closed<'_>)) {
    let window_start = input.events.first().map_or(0, |event| event.seq);
    let last = input.events.last().map_or(window_start, |event| event.seq);
    let span =
        usize::try_from(last.saturating_sub(window_start)).map_or(0, |d| d.saturating_add(1));
    let mut walk = Walk {
        positions: Positions::new(window_start, input.events.len(), span),
        gaps: [Gap::default(), Gap::default()],
        second_open: false,
        closed_any: false,
        replaces: Vec::new(),
        start: None,
        header: None,
        route: None,
        last_time: 0.0,
        lost: false,
    };
    let mut pending = input.surface.each_request();
    let mut next = pending.next();
    // The next request's read point (`Seq::MAX`: none), read once per event.
    let mut read = next.as_ref().map_or(Seq::MAX, |request| request.seq);
    // The answer of the request closed last, which comes before the next read point.
    let mut answer: Option<Seq> = None;
    for event in input.events {
        if read < event.seq {
            while let Some(request) = next.take_if(|request| request.seq < event.seq) {
                walk.close(&request, each);
                answer = request.answer.as_ref().map(|(seq, _)| *seq);
                next = pending.next();
            }
            read = next.as_ref().map_or(Seq::MAX, |request| request.seq);
        }
        if answer == Some(event.seq) {
            if walk.closed_any {
                walk.gaps_mut().1.answer_time = Some(event.time);
            }
            answer = None;
        }
        walk.fold(event, input);
    }
    for request in next.into_iter().chain(pending) {
        walk.close(&request, each);
    }
    debug_assert!(walk.start.is_none(), "one request per step start");
}

/// The walk's state between events.
struct Walk {
    positions: Positions,
    /// The gap of the request whose read point has not passed (the open one) and the gap of
    /// the request closed last, which trade places as requests close (no gap is moved).
    gaps: [Gap; 2],
    /// Whether `gaps[1]` is the open gap.
    second_open: bool,
    /// Whether a request was closed (the closed gap is meaningful).
    closed_any: bool,
    /// The replaces in `gap`.
    replaces: Vec<Replace>,
    /// The step start of the request not closed yet (a request's read point comes before the
    /// next step start, so there is at most one).
    start: Option<Seq>,
    header: Option<Rc<RequestHeader>>,
    route: Option<Rc<Route>>,
    last_time: Time,
    lost: bool,
}

impl Walk {
    /// The open gap and the gap of the request closed last.
    fn gaps_mut(&mut self) -> (&mut Gap, &mut Gap) {
        open_and_closed(&mut self.gaps, self.second_open)
    }

    /// The open gap.
    fn gap(&mut self) -> &mut Gap {
        self.gaps_mut().0
    }

    fn fold(&mut self, event: &crate::input::event::SessionEvent, input: &LedgerInput<'_>) {
        self.last_time = event.time;
        let op = event.surface_op();
        let replace = matches!(op, Some(SurfaceOp::Replace { .. }));
        match &event.kind {
            // Most events append a message: their node's tokens are all the walk needs of them.
            EventKind::Message(message) if !replace => {
                self.lost |= !self.positions.append(event.seq, message.tokens);
                return;
            }
            EventKind::StepStart => {
                debug_assert!(
                    self.start.is_none(),
                    "a request closes before the next step"
                );
                self.start = Some(event.seq);
            }
            EventKind::RequestHeader(found) => self.read_header(found),
            _ => {}
        }
        // What is left to do is for replaces and system prompts (the only other nodes).
        if !replace && !matches!(event.kind, EventKind::SystemMessage { .. }) {
            debug_assert!(node_of(event).is_none(), "every other node is handled");
            return;
        }
        let node = node_of(event);
        match op {
            Some(SurfaceOp::Replace { start, end }) => {
                let replaced = self
                    .positions
                    .replace(event.seq, (start, end), node.map(|n| n.1));
                self.lost |= replaced.lost;
                if let Some(at) = replaced.at {
                    let gap = self.gap();
                    if gap.brk.is_none_or(|brk| at.position < brk.position) {
                        gap.brk = Some(at);
                    }
                }
                self.replaces.push(Replace {
                    seq: event.seq,
                    kind: replace_kind(&event.kind),
                    start,
                    end,
                });
            }
            _ => {
                if let Some((_, tokens)) = node {
                    self.lost |= !self.positions.append(event.seq, tokens);
                }
                if event.is_system_append() {
                    let update = (input.state_at)(event.seq)
                        .and_then(|state| state.introduced())
                        .is_some_and(|node| node.update && node.seq == event.seq);
                    let gap = self.gap();
                    gap.updates = gap.updates.saturating_add(u32::from(update));
                }
            }
        }
    }

    fn read_header(&mut self, found: &Rc<RequestHeader>) {
        self.gap().series |= found.starts_series || found.reason == HeaderReason::Series;
        // A header that repeats the config (shared by the interner) or the route shares the
        // previous one's.
        let same_config =
            self.header
                .as_deref()
                .is_some_and(|last| match (&last.config, &found.config) {
                    (Some(a), Some(b)) => Rc::ptr_eq(a, b),
                    (None, None) => true,
                    _ => false,
                });
        if !same_config {
            let found_route = Route::of(found);
            if self.route.as_deref() != Some(&found_route) {
                self.route = Some(Rc::new(found_route));
            }
        }
        self.header = Some(Rc::clone(found));
    }

    /// Ends the gap of `request`, hands it on, and starts the next one.
    fn close(&mut self, request: &RequestState, each: &mut dyn FnMut(Closed<'_>)) {
        let start = self.start.take();
        debug_assert!(start.is_some(), "a request has its step start");
        let (last_time, lost, closed_any) = (self.last_time, self.lost, self.closed_any);
        let (gap, before) = open_and_closed(&mut self.gaps, self.second_open);
        gap.start_seq = start.unwrap_or(request.seq);
        gap.read_seq = request.seq;
        gap.read_time = last_time;
        gap.incomplete = request.sums.incomplete;
        share(&mut gap.route, self.route.as_ref());
        share(&mut gap.header, self.header.as_ref());
        gap.lost = lost;
        each(Closed {
            request,
            before: closed_any.then_some(&*before),
            gap,
            replaces: &self.replaces,
        });
        self.replaces.clear();
        // The closed gap becomes the previous one; the old previous one opens afresh.
        before.answer_time = None;
        before.series = false;
        before.updates = 0;
        before.brk = None;
        self.second_open = !self.second_open;
        self.closed_any = true;
    }
}

/// The open gap of `gaps` and the closed one: the second is open when `second_open`.
fn open_and_closed(gaps: &mut [Gap; 2], second_open: bool) -> (&mut Gap, &mut Gap) {
    let [first, second] = gaps;
    if second_open {
        (second, first)
    } else {
        (first, second)
    }
}

/// Points `into` at `from`, leaving the counts alone when it already does (the gap held the
/// same header two requests ago, most of the time).
fn share<T>(into: &mut Option<Rc<T>>, from: Option<&Rc<T>>) {
    let same = match (into.as_ref(), from) {
        (Some(a), Some(b)) => Rc::ptr_eq(a, b),
        (None, None) => true,
        _ => false,
    };
    if !same {
        *into = from.cloned();
    }
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
