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

use crate::event::{EventKind, MessageRole, Seq, SessionEvent, SurfaceOp};
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
    /// The tools cost of each request header, by its seq, ascending.
    tools: Vec<(Seq, u32)>,
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
        if let Some(header) = event.header() {
            self.tools
                .push((event.seq, tools_tokens(&header.tools_text)));
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
        let position = match replace {
            Some((start, end)) => {
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
        let tools = self
            .tools
            .partition_point(|(header, _)| *header <= seq)
            .checked_sub(1)
            .and_then(|at| self.tools.get(at))
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
}
