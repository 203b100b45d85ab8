//! The surface fold: every surface node (system, user, assistant, tool and developer messages)
//! through appends and replacements in surface order, with the state after every event kept.
//!
//! The rules are the system fold's (BEHAVIOUR.md section 2, steps 2 and 4) for every node: a node sits
//! at its own seq, a replace drops every entry whose position is in the range of its endpoints'
//! positions and puts its node at the start's position. A replace with an endpoint before the
//! window start that the fold does not know (D2) cannot be placed exactly: the fold goes on as
//! well as it can (such an endpoint sits before every known node) and marks every later state
//! incomplete; a prepend, which folds again from the new window start, resolves it.
//!
//! The nodes are kept in position segments ([`segments`]): a state is a version of each, its
//! token sums are kept apart (a dozen bytes), so a breakdown costs a search or two, and its
//! nodes are read back from the segments. A prepend rebuilds only the segment below the old
//! window start ([`nodes`]) and walks the requests only until they join the old walk
//! ([`requests`]).

mod nodes;
mod record;
mod requests;
mod segments;

use nodes::NodeFold;
pub use record::NodeType;
pub(crate) use record::{Sums, Survivor};
use requests::Requests;

use std::rc::Rc;

use crate::error::Error;
use crate::input::event::{EventKind, MessageRole, Seq, SessionEvent};
use crate::input::json::JsonValue;

#[cfg(feature = "testkit")]
thread_local! {
    /// The prepends on this thread that folded the whole surface again.
    pub(crate) static REFOLDS: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// The surface fold of one window.
#[derive(Clone, Debug, Default)]
pub(crate) struct SurfaceFold {
    nodes: NodeFold,
    requests: Requests,
}

/// An `assistant/message`'s seq and usage.
pub(crate) type Answer = (Seq, Option<Rc<JsonValue>>);

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
        EventKind::SystemMessage { tokens, .. } => Some((NodeType::System, *tokens)),
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
            nodes: NodeFold::new(window_start),
            requests: Requests::default(),
        }
    }

    /// Room in the lists the fold grows for `states` more surface nodes and replaces,
    /// `headers` request headers and `steps` step starts ([`Error::OutOfMemory`] when the memory
    /// cannot give it).
    pub fn reserve(&mut self, states: usize, headers: usize, steps: usize) -> Result<(), Error> {
        self.nodes.reserve(states)?;
        self.requests.reserve(headers, steps)
    }

    /// Folds `events`, which follow every event already folded.
    pub fn extend<'a>(&mut self, events: impl IntoIterator<Item = &'a SessionEvent>) {
        for event in events {
            self.requests.fold(event, &self.nodes);
            self.nodes.fold(event);
        }
    }

    /// Makes this the fold of `page` followed by `window` (every event folded, `page` ending
    /// before them), and returns whether any request's context changed.
    pub fn prepend(&mut self, page: &[SessionEvent], window: &[SessionEvent]) -> bool {
        let old_open = self.requests.open_request(&self.nodes);
        // An empty window (no start) or an empty page is folded again as a whole.
        let follows = match (page.last(), self.nodes.window_start()) {
            (Some(last), Some(start)) => {
                debug_assert!(last.seq < start, "a page ends before the window start");
                last.seq < start
            }
            _ => false,
        };
        if follows && self.nodes.prepend(page) {
            return self.requests.prepend(page, window, &self.nodes, old_open);
        }
        #[cfg(feature = "testkit")]
        REFOLDS.with(|count| count.set(count.get().saturating_add(1)));
        let old = std::mem::take(self);
        *self = SurfaceFold::new(page.first().or(window.first()).map(|event| event.seq));
        self.extend(page);
        self.extend(window);
        !old.requests().eq(self.requests())
    }

    /// Adds what this fold keeps on the heap to `profile`.
    #[cfg(feature = "testkit")]
    pub fn heap_profile(&self, profile: &mut crate::heap::HeapProfile) {
        self.nodes.heap_profile(profile);
        self.requests.heap_profile(profile);
    }

    /// The sums of the context at `seq`.
    pub fn sums_at(&self, seq: Seq) -> SurfaceSums {
        SurfaceSums {
            tools: self.requests.tools_at(seq),
            ..self.nodes.sums_at(seq)
        }
    }

    /// The nodes of the context at `seq`, in surface order.
    pub fn nodes_at(&self, seq: Seq) -> Vec<Survivor> {
        self.nodes.nodes_at(seq)
    }

    /// The counts of system prompts appended as updates and written as replacements.
    pub fn prompt_changes(&self) -> (u32, u32) {
        self.nodes.prompt_changes()
    }

    /// The number of requests (loaded step starts).
    pub fn request_count(&self) -> usize {
        self.requests.count()
    }

    /// The context of request `index` (the request of the `index`-th loaded step start).
    pub fn request(&self, index: usize) -> Option<RequestState> {
        self.requests.request(index, &self.nodes)
    }

    /// Every request's context, in order.
    pub fn requests(&self) -> impl Iterator<Item = RequestState> + '_ {
        self.requests.all(&self.nodes)
    }

    /// Every request's context, in order, borrowed where the fold keeps it (all but the open
    /// request's): what a reader of every request walks, with no copy of each.
    pub fn each_request(&self) -> impl Iterator<Item = std::borrow::Cow<'_, RequestState>> + '_ {
        self.requests.each(&self.nodes)
    }
}
