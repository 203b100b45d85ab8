//! The surface fold: every surface node (system, user, assistant, tool and developer messages)
//! through appends and replacements in surface order, with the state after every event kept.
//!
//! The rules are the system fold's (SPEC section 2, steps 2 and 4) for every node: a node sits
//! at its own seq, a replace drops every entry whose position is in the range of its endpoints'
//! positions and puts its node at the start's position. A replace with an endpoint before the
//! window start that the fold does not know (D2) cannot be placed exactly: the fold goes on as
//! well as it can (such an endpoint sits before every known node) and marks every later state
//! incomplete; a prepend, which folds again from the new window start, resolves it.
//!
//! States share one [`Record`]: a state is a version, its token sums are kept apart (a dozen
//! bytes), so a breakdown costs one search, and its nodes are read back from the record.

mod record;

pub use record::NodeType;
use record::Record;
pub(crate) use record::{Sums, Survivor};

use std::rc::Rc;

use crate::input::event::{EventKind, HeaderReason, MessageRole, Seq, SessionEvent, SurfaceOp};
use crate::input::json::JsonValue;
use crate::input::tokens::{system_tokens, tools_tokens};

/// The surface fold of one window.
#[derive(Clone, Debug, Default)]
pub(crate) struct SurfaceFold {
    window_start: Option<Seq>,
    record: Record,
    /// The seq of each folded event, ascending; the state after it is version `index + 1`.
    seqs: Vec<Seq>,
    /// The token sums after each folded event.
    sums: Vec<Sums>,
    /// The index in `seqs` of the first incomplete state, when there is one.
    incomplete_from: Option<usize>,
    /// Each request header's seq and the tokens of its tools, ascending by seq.
    headers: Vec<(Seq, u32)>,
    /// The tools text of the latest request header.
    tools_text: Option<Rc<str>>,
    /// The seq of the last event folded.
    last_seq: Option<Seq>,
    /// The context of each request whose read point has passed, in order. A request's context
    /// is resolved when its read point is reached (see [`RequestState`]), so that the views read
    /// every request's context with no search.
    requests: Vec<RequestState>,
    /// The step start of the request not resolved yet.
    open: Option<Seq>,
    /// What happened after the read point of the last resolved request.
    since: Since,
    /// System prompts appended while a nonempty one survived, and system prompts that replaced.
    prompts_appended: u32,
    prompts_rewritten: u32,
}

/// An `assistant/message`'s seq and usage.
pub(crate) type Answer = (Seq, Option<Rc<JsonValue>>);

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

/// The context of one trajectory request (one loaded step start) and its cache facts. Its
/// context is read just before the step's answer (the first `assistant/message` after the step
/// start and before the next one) or, unanswered, just before the next step start, or at the
/// window's last event for the last step.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct RequestState {
    /// The seq the context is read at.
    pub seq: Seq,
    /// The sums of the context there.
    pub sums: SurfaceSums,
    /// The answer, when one is loaded.
    pub answer: Option<Answer>,
    /// Whether the request started a new series: the first request of the window, or a header
    /// with reason `series` or `startsSeries`, a replacement or a changed tool set since the
    /// previous request's read point.
    pub new_series: bool,
}

/// One state of the fold, as read from it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct SurfaceSums {
    /// The node sums.
    pub sums: Sums,
    /// The tools of the latest request header.
    pub tools: u32,
    /// Whether an endpoint before the window start was unknown.
    pub incomplete: bool,
}

/// The surface node an event makes, with its token cost; `None` for an event that is no
/// surface node.
pub(crate) fn node_of(event: &SessionEvent) -> Option<(NodeType, u32)> {
    match &event.kind {
        EventKind::SystemMessage { text } => Some((NodeType::System, system_tokens(text))),
        EventKind::Message(message) => Some((
            match message.role {
                MessageRole::User => NodeType::User,
                MessageRole::Assistant => NodeType::Assistant,
                MessageRole::Tool => NodeType::Tool,
                MessageRole::Developer => NodeType::Developer,
            },
            message.tokens,
        )),
        _ => None,
    }
}

impl SurfaceFold {
    /// An empty fold of a window that starts at `window_start`.
    pub fn new(window_start: Option<Seq>) -> SurfaceFold {
        SurfaceFold {
            window_start,
            ..SurfaceFold::default()
        }
    }

    /// Folds `events`, which follow every event already folded.
    pub fn extend<'a>(&mut self, events: impl IntoIterator<Item = &'a SessionEvent>) {
        for event in events {
            self.fold(event);
        }
    }

    fn fold(&mut self, event: &SessionEvent) {
        if self.open.is_some() {
            let answer = match &event.kind {
                EventKind::Message(message) if message.role == MessageRole::Assistant => {
                    Some((event.seq, message.usage.clone()))
                }
                EventKind::StepStart => None,
                _ => return self.fold_node(event),
            };
            // The state in force just before this event is the tip.
            let seq = event.seq.saturating_sub(1);
            let request = self.resolve(seq, answer);
            self.requests.push(request);
            self.open = None;
        }
        self.fold_node(event);
    }

    /// The context of the open request, read at `seq` (the tip) and answered by `answer`; the
    /// series facts start again for the next request.
    fn resolve(&mut self, seq: Seq, answer: Option<Answer>) -> RequestState {
        let request = self.open_state(seq, answer);
        self.since = Since {
            tools_text: self.tools_text.clone(),
            ..Since::default()
        };
        request
    }

    /// The open request's context read at the tip (at `seq`).
    fn open_state(&self, seq: Seq, answer: Option<Answer>) -> RequestState {
        let since = &self.since;
        let tools_changed =
            !crate::input::shared::same_optional(&since.tools_text, &self.tools_text);
        RequestState {
            seq,
            sums: self.tip_sums(),
            answer,
            new_series: self.requests.is_empty() || since.series || since.replaced || tools_changed,
        }
    }

    /// The sums of the tip.
    fn tip_sums(&self) -> SurfaceSums {
        SurfaceSums {
            sums: self.record.sums(),
            tools: self.headers.last().map_or(0, |(_, tools)| *tools),
            incomplete: self.incomplete_from.is_some(),
        }
    }

    /// Folds `event` into the tip (its request facts taken care of).
    fn fold_node(&mut self, event: &SessionEvent) {
        self.last_seq = Some(event.seq);
        if let EventKind::StepStart = event.kind {
            self.open = Some(event.seq);
        }
        if let Some(header) = event.header() {
            let same = self
                .tools_text
                .as_ref()
                .is_some_and(|tools| Rc::ptr_eq(tools, &header.tools_text));
            let tools = match self.headers.last() {
                Some((_, tools)) if same => *tools,
                _ => tools_tokens(&header.tools_text),
            };
            self.headers.push((event.seq, tools));
            self.tools_text = Some(Rc::clone(&header.tools_text));
            self.since.series |= header.starts_series || header.reason == HeaderReason::Series;
        }
        let node = node_of(event);
        let replace = match event.surface_op {
            Some(SurfaceOp::Replace { start, end }) => Some((start, end)),
            _ => None,
        };
        if node.is_none() && replace.is_none() {
            return;
        }
        self.record.advance();
        let (node, tokens) = match node {
            Some((node, tokens)) => (Some(node), tokens),
            None => (None, 0),
        };
        if let EventKind::SystemMessage { .. } = event.kind {
            let count = match replace {
                Some(_) => &mut self.prompts_rewritten,
                None if self.record.sums().latest_system > 0 => &mut self.prompts_appended,
                None => &mut 0,
            };
            *count = count.saturating_add(1);
        }
        let position = match replace {
            Some((start, end)) => {
                self.since.replaced = true;
                let first = self.window_start.unwrap_or(Seq::MIN);
                let unknown = |seq: Seq| seq < first && self.record.moved(seq).is_none();
                if (unknown(start) || unknown(end)) && self.incomplete_from.is_none() {
                    self.incomplete_from = Some(self.seqs.len());
                }
                let position = self.record.moved(start).unwrap_or(start);
                let end = self.record.moved(end).unwrap_or(end);
                self.record.drop_range(position, end);
                position
            }
            None => event.seq,
        };
        self.record.add(position, event.seq, node, tokens);
        self.seqs.push(event.seq);
        self.sums.push(self.record.sums());
    }

    /// The index of the state in force at `seq` (after every folded event with seq `<= seq`).
    fn index(&self, seq: Seq) -> Option<usize> {
        self.seqs
            .partition_point(|folded| *folded <= seq)
            .checked_sub(1)
    }

    /// The sums of the context at `seq`.
    pub fn sums_at(&self, seq: Seq) -> SurfaceSums {
        let index = self.index(seq);
        let at = self.headers.partition_point(|(header, _)| *header <= seq);
        let tools = at
            .checked_sub(1)
            .and_then(|at| self.headers.get(at))
            .map_or(0, |(_, tools)| *tools);
        SurfaceSums {
            sums: index
                .and_then(|index| self.sums.get(index))
                .copied()
                .unwrap_or_default(),
            tools,
            incomplete: index
                .zip(self.incomplete_from)
                .is_some_and(|(index, from)| index >= from),
        }
    }

    /// The nodes of the context at `seq`, in surface order.
    pub fn nodes_at(&self, seq: Seq) -> Vec<Survivor> {
        match self.index(seq) {
            // Version `index + 1`: states count from version 1.
            Some(index) => u32::try_from(index)
                .ok()
                .map(|index| self.record.nodes_at(index.saturating_add(1)))
                .unwrap_or_default(),
            None => Vec::new(),
        }
    }

    /// The counts of system prompts appended as updates and written as replacements.
    pub fn prompt_changes(&self) -> (u32, u32) {
        (self.prompts_appended, self.prompts_rewritten)
    }

    /// The number of requests (loaded step starts).
    pub fn request_count(&self) -> usize {
        self.requests
            .len()
            .saturating_add(usize::from(self.open.is_some()))
    }

    /// The context of request `index` (the request of the `index`-th loaded step start).
    pub fn request(&self, index: usize) -> Option<RequestState> {
        match self.requests.get(index) {
            Some(request) => Some(request.clone()),
            None if index == self.requests.len() => self.open_request(),
            None => None,
        }
    }

    /// Every request's context, in order.
    pub fn requests(&self) -> impl Iterator<Item = RequestState> + '_ {
        self.requests.iter().cloned().chain(self.open_request())
    }

    /// The open request's context: read at the last event folded.
    fn open_request(&self) -> Option<RequestState> {
        let start = self.open?;
        let seq = self.last_seq.unwrap_or(start).max(start);
        Some(self.open_state(seq, None))
    }
}
