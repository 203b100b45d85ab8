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
    /// Each request header, ascending by seq.
    headers: Vec<HeaderMark>,
    /// The seq of each replace, ascending.
    replaces: Vec<Seq>,
    /// Each `assistant/message` with its usage, ascending by seq.
    answers: Vec<Answer>,
    /// The seq of the last event folded.
    last_seq: Option<Seq>,
    /// The seq of each `step/start` (one trajectory request each), ascending.
    steps: Vec<Seq>,
    /// System prompts appended while a nonempty one survived, and system prompts that replaced.
    prompts_appended: u32,
    prompts_rewritten: u32,
}

/// An `assistant/message`'s seq and usage.
type Answer = (Seq, Option<Rc<JsonValue>>);

/// What the cache facts need of a request header.
#[derive(Clone, Debug)]
struct HeaderMark {
    seq: Seq,
    tools: u32,
    tools_text: Rc<str>,
    /// Reason `series`, or `startsSeries`.
    series: bool,
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
        self.last_seq = Some(event.seq);
        if let EventKind::StepStart = event.kind {
            self.steps.push(event.seq);
        }
        if let Some(header) = event.header() {
            self.headers.push(HeaderMark {
                seq: event.seq,
                tools: tools_tokens(&header.tools_text),
                tools_text: Rc::clone(&header.tools_text),
                series: header.starts_series || header.reason == HeaderReason::Series,
            });
        }
        if let EventKind::Message(message) = &event.kind {
            if message.role == MessageRole::Assistant {
                self.answers.push((event.seq, message.usage.clone()));
            }
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
                self.replaces.push(event.seq);
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
        let tools = self.header_at(seq).map_or(0, |header| header.tools);
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

    /// The latest request header at or before `seq`.
    fn header_at(&self, seq: Seq) -> Option<&HeaderMark> {
        let at = self.headers.partition_point(|header| header.seq <= seq);
        self.headers.get(at.checked_sub(1)?)
    }

    /// The counts of system prompts appended as updates and written as replacements.
    pub fn prompt_changes(&self) -> (u32, u32) {
        (self.prompts_appended, self.prompts_rewritten)
    }

    /// The number of requests (loaded step starts).
    pub fn request_count(&self) -> usize {
        self.steps.len()
    }

    /// The facts of request `index` (the request of the `index`-th loaded step start).
    pub fn request(&self, index: usize) -> Option<RequestFacts> {
        let start = *self.steps.get(index)?;
        let previous = index
            .checked_sub(1)
            .and_then(|previous| self.request_seq(previous));
        Some(self.request_facts(start, self.next_step(index), previous))
    }

    fn next_step(&self, index: usize) -> Option<Seq> {
        self.steps.get(index.saturating_add(1)).copied()
    }

    /// The seq the context of request `index` is read at.
    fn request_seq(&self, index: usize) -> Option<Seq> {
        let start = *self.steps.get(index)?;
        Some(self.answer_and_seq(start, self.next_step(index)).1)
    }

    /// The answer of the step starting at `start`, and the seq its request's context is read at.
    fn answer_and_seq(&self, start: Seq, next: Option<Seq>) -> (Option<&Answer>, Seq) {
        let first = self.answers.partition_point(|(seq, _)| *seq <= start);
        let answer = self
            .answers
            .get(first)
            .filter(|(seq, _)| next.is_none_or(|next| *seq < next));
        let seq = match (answer, next) {
            (Some((answer, _)), _) => answer.saturating_sub(1),
            (None, Some(next)) => next.saturating_sub(1),
            (None, None) => self.last_seq.unwrap_or(start).max(start),
        };
        (answer, seq)
    }

    /// The context of the request of the step that starts at `start` (the next step starting
    /// at `next`), whose previous request's context was read at `previous`: the seq to read it
    /// at, the answer and its usage, and whether the request started a new series.
    fn request_facts(&self, start: Seq, next: Option<Seq>, previous: Option<Seq>) -> RequestFacts {
        let (answer, seq) = self.answer_and_seq(start, next);
        let new_series = previous.is_none_or(|previous| {
            let from = self.replaces.partition_point(|folded| *folded <= previous);
            let replaced = self.replaces.get(from).is_some_and(|folded| *folded <= seq);
            let series = self
                .headers
                .iter()
                .skip(
                    self.headers
                        .partition_point(|header| header.seq <= previous),
                )
                .take_while(|header| header.seq <= seq)
                .any(|header| header.series);
            let tools = |at: Seq| self.header_at(at).map(|header| &header.tools_text);
            let tools_changed = match (tools(previous), tools(seq)) {
                (Some(before), Some(after)) => !crate::input::shared::same(before, after),
                (None, None) => false,
                _ => true,
            };
            series || tools_changed || replaced
        });
        RequestFacts {
            seq,
            answer: answer.cloned(),
            new_series,
        }
    }
}

/// What the fold knows of one request.
pub(crate) struct RequestFacts {
    pub seq: Seq,
    pub answer: Option<Answer>,
    pub new_series: bool,
}
