//! The request part of the surface fold: each request's read point, answer, tools and whether it
//! started a new series, its context read from the node fold.

use std::borrow::Cow;
use std::rc::Rc;

use super::nodes::NodeFold;
use super::{Answer, RequestState, SurfaceSums};
use crate::error::Error;
use crate::front_vec::{FrontVec, Spare};
use crate::input::event::{EventKind, HeaderReason, MessageRole, Seq, SessionEvent, SurfaceOp};
use crate::input::tokens::tools_tokens;

/// The requests of one window.
#[derive(Clone, Debug, Default)]
pub(super) struct Requests {
    /// Each request header's seq and the tokens of its tools, ascending by seq.
    headers: FrontVec<(Seq, u32)>,
    /// The tools text of the latest request header.
    tools_text: Option<Rc<str>>,
    /// The seq of the last event folded.
    last_seq: Option<Seq>,
    /// The context of each request whose read point has passed, in order. A request's context
    /// is resolved when its read point is reached (see [`RequestState`]), so that the views read
    /// every request's context with no search.
    resolved: FrontVec<RequestState>,
    /// The step start of the request not resolved yet.
    open: Option<Seq>,
    /// What happened after the read point of the last resolved request.
    since: Since,
}

/// What decides whether the next request starts a new series, gathered since the read point of
/// the last resolved request.
#[derive(Clone, Debug, Default)]
struct Since {
    /// A replace was folded.
    replaced: bool,
    /// A header had reason `series` or `startsSeries`.
    series: bool,
    /// The tools text of the latest header at the last read point.
    tools_text: Option<Rc<str>>,
}

impl Requests {
    /// Room for `headers` more request headers and `steps` more requests
    /// ([`Error::OutOfMemory`] when the memory cannot give it).
    pub fn reserve(&mut self, headers: usize, steps: usize) -> Result<(), Error> {
        self.headers.try_reserve(headers)?;
        self.resolved.try_reserve(steps)
    }

    /// Adds what the requests keep on the heap to `profile`.
    #[cfg(feature = "testkit")]
    pub fn heap_profile(&self, profile: &mut crate::heap::HeapProfile) {
        profile.list("surface request headers", self.headers.slots());
        profile.list("surface requests", self.resolved.slots());
    }

    /// Folds `event`, which follows every event folded; `nodes` has folded every event before
    /// it.
    pub fn fold(&mut self, event: &SessionEvent, nodes: &NodeFold) {
        if self.open.is_some() {
            let answer = match &event.kind {
                EventKind::Message(message) if message.role == MessageRole::Assistant => {
                    Some(Some((event.seq, message.usage.clone())))
                }
                EventKind::StepStart => Some(None),
                _ => None,
            };
            if let Some(answer) = answer {
                // The state in force just before this event.
                let request = self.resolve(event.seq.saturating_sub(1), answer, nodes);
                self.resolved.push(request);
                self.open = None;
            }
        }
        self.last_seq = Some(event.seq);
        if let EventKind::StepStart = event.kind {
            self.open = Some(event.seq);
        }
        if let Some(header) = event.header() {
            let same = (self.tools_text.as_ref())
                .is_some_and(|tools| Rc::ptr_eq(tools, &header.tools_text));
            let tools = match self.headers.last() {
                Some((_, tools)) if same => *tools,
                _ => tools_tokens(&header.tools_text),
            };
            self.headers.push((event.seq, tools));
            self.tools_text = Some(Rc::clone(&header.tools_text));
            self.since.series |= header.starts_series || header.reason == HeaderReason::Series;
        }
        if let Some(SurfaceOp::Replace { .. }) = event.surface_op() {
            self.since.replaced = true;
        }
    }

    /// The context of the open request, read at `seq` (the tip) and answered by `answer`; the
    /// series facts start again for the next request.
    fn resolve(&mut self, seq: Seq, answer: Option<Answer>, nodes: &NodeFold) -> RequestState {
        let request = self.open_state(seq, answer, nodes.sums_at(seq));
        self.since = Since {
            tools_text: self.tools_text.clone(),
            ..Since::default()
        };
        request
    }

    /// The open request's context read at the tip (at `seq`), whose node sums are `sums`.
    fn open_state(&self, seq: Seq, answer: Option<Answer>, sums: SurfaceSums) -> RequestState {
        let since = &self.since;
        let tools_changed =
            !crate::input::shared::same_optional(&since.tools_text, &self.tools_text);
        RequestState {
            seq,
            sums: SurfaceSums {
                tools: self.headers.last().map_or(0, |(_, tools)| *tools),
                ..sums
            },
            answer,
            new_series: self.resolved.is_empty() || since.series || since.replaced || tools_changed,
        }
    }

    /// The tokens of the tools of the latest header at `seq`.
    pub fn tools_at(&self, seq: Seq) -> u32 {
        let at = self.headers.partition_point(|(header, _)| *header <= seq);
        at.checked_sub(1)
            .and_then(|at| self.headers.get(at))
            .map_or(0, |(_, tools)| *tools)
    }

    /// The number of requests (loaded step starts).
    pub fn count(&self) -> usize {
        self.resolved
            .len()
            .saturating_add(usize::from(self.open.is_some()))
    }

    /// The context of request `index` (the request of the `index`-th loaded step start).
    pub fn request(&self, index: usize, nodes: &NodeFold) -> Option<RequestState> {
        match self.resolved.get(index) {
            Some(request) => Some(request.clone()),
            None if index == self.resolved.len() => self.open_request(nodes),
            None => None,
        }
    }

    /// Every request's context, in order, the resolved ones borrowed.
    pub fn each<'a>(
        &'a self,
        nodes: &'a NodeFold,
    ) -> impl Iterator<Item = Cow<'a, RequestState>> + 'a {
        (self.resolved.iter().map(Cow::Borrowed)).chain(self.open_request(nodes).map(Cow::Owned))
    }

    /// Every request's context, in order.
    pub fn all<'a>(&'a self, nodes: &'a NodeFold) -> impl Iterator<Item = RequestState> + 'a {
        self.resolved
            .iter()
            .cloned()
            .chain(self.open_request(nodes))
    }

    /// The open request's context: read at the last event folded.
    pub fn open_request(&self, nodes: &NodeFold) -> Option<RequestState> {
        let start = self.open?;
        let seq = self.last_seq.unwrap_or(start).max(start);
        Some(self.open_state(seq, None, nodes.sums_at(seq)))
    }

    /// Makes these the requests of `page` followed by `window` (every event folded), `nodes`
    /// being the node fold of both, and returns whether any request's context changed, the
    /// open one having been `old_open`.
    ///
    /// The page is walked, then the window until both walks have resolved a request read after
    /// the window's first header: from there on, both carry the same facts to the next event
    /// (the read point's series facts and the latest tools), so the later requests are kept in
    /// place, their node sums read again.
    pub fn prepend(
        &mut self,
        page: &[SessionEvent],
        window: &[SessionEvent],
        nodes: &NodeFold,
        old_open: Option<RequestState>,
    ) -> bool {
        let mut old = std::mem::take(self);
        for event in page {
            self.fold(event, nodes);
        }
        // The first request read after the window's first header: when it is resolved (at
        // the event after its read point), both walks have the same tools to compare with.
        let first_header = old.headers.first().map(|(seq, _)| *seq);
        let first_read = first_header.and_then(|header| {
            let at = old.resolved.partition_point(|request| request.seq < header);
            old.resolved.get(at).map(|request| request.seq)
        });
        let mut joined = None;
        for event in window {
            self.fold(event, nodes);
            if first_read.is_some_and(|read| read < event.seq) {
                joined = Some(event.seq);
                break;
            }
        }
        let Some(through) = joined else {
            let new_open = self.open_request(nodes);
            return *self.resolved != *old.resolved || new_open != old_open;
        };
        let kept_from = old
            .resolved
            .partition_point(|request| request.seq < through);
        let walked = old.resolved.get(..kept_from).unwrap_or_default();
        let mut changed = *self.resolved != *walked;
        let mut state = 0;
        for request in old.resolved.get_mut(kept_from..).unwrap_or_default() {
            let (next, sums) = nodes.sums_from(state, request.seq);
            state = next;
            let sums = SurfaceSums {
                tools: request.sums.tools,
                ..sums
            };
            changed |= request.sums != sums;
            request.sums = sums;
        }
        old.resolved.drop_front(kept_from);
        old.resolved
            .prepend(std::mem::take(&mut self.resolved).into_vec());
        let headers_from = old.headers.partition_point(|(seq, _)| *seq <= through);
        old.headers.drop_front(headers_from);
        old.headers
            .prepend(std::mem::take(&mut self.headers).into_vec());
        *self = old;
        changed || self.open_request(nodes) != old_open
    }
}

impl Spare for RequestState {
    fn spare() -> RequestState {
        RequestState::default()
    }
}

impl Spare for (Seq, u32) {
    fn spare() -> (Seq, u32) {
        (0, 0)
    }
}
