//! The loaded window of a session log: load, live append, load earlier, and what each changed.

use crate::analysis::{Analysis, Delta};
use crate::chat::{sort_cards, ChatCard};
use crate::compare::compare;
use crate::error::Error;
use crate::event::{EventKind, Seq, SessionEvent, TurnField};
use crate::fold::SystemPromptState;
use crate::front_vec::{FrontVec, Spare};
use crate::intern::JsonInterner;
use crate::parse::parse_events_with;
use crate::request::RequestPromptInspection;
use crate::views::context::{Context, ContextBreakdown, ContextTotals};
use crate::views::{ChatChange, ConversationChange, EventLine, Views};

/// A window of a session log: the newest page first, live events at the tail, older pages
/// prepended on demand. Every output equals a fresh load of the same events (D1), and the fold
/// starts at the window's first seq (D2).
///
/// ```
/// use promptfold::Conversation;
///
/// let log = r#"[
///   {"seq":1,"time":1,"type":"system/message","surfaceOp":"append",
///    "data":{"turn":1,"step":1,"message":{"role":"system","content":[{"type":"text","text":"Be brief."}]}}},
///   {"seq":2,"time":2,"type":"request/header","data":{"reason":"initial","header":{"config":{},"tools":[]}}}
/// ]"#;
/// let mut conversation = Conversation::new();
/// let change = conversation.load_json(log, false)?;
/// assert_eq!(change.chat.added.len(), 1);
/// let state = conversation.state_at(2).expect("a prompt is in force");
/// assert_eq!(state.effective().map(|node| &*node.text), Some("Be brief."));
/// # Ok::<(), promptfold::Error>(())
/// ```
#[derive(Clone, Debug, Default)]
pub struct Conversation {
    events: FrontVec<SessionEvent>,
    has_more: bool,
    analysis: Analysis,
    interner: JsonInterner,
}

impl Conversation {
    /// An empty window.
    pub fn new() -> Conversation {
        Conversation::default()
    }

    /// Replaces the window with `events` (ascending by seq); `has_more` tells whether older
    /// events exist. Returns what changed against the previous window.
    pub fn load(
        &mut self,
        events: Vec<SessionEvent>,
        has_more: bool,
    ) -> Result<ConversationChange, Error> {
        check_ascending(&events, None)?;
        let analysis = Analysis::of_window(&events);
        let change = compare(&self.analysis, &analysis);
        self.events = FrontVec::from(events);
        self.analysis = analysis;
        self.has_more = has_more;
        Ok(change)
    }

    /// Appends live events after the window's last event. On an empty window this starts the
    /// window (with no older events). Returns what changed.
    pub fn append(&mut self, events: Vec<SessionEvent>) -> Result<ConversationChange, Error> {
        check_ascending(&events, self.events.last().map(|event| event.seq))?;
        if self.events.is_empty() {
            return self.load(events, self.has_more);
        }
        let delta = self.analysis.extend(&events);
        self.events.extend(events);
        Ok(self.report(&delta))
    }

    /// Prepends an older page ("load earlier"): every event must be older than the window
    /// start. `has_more` tells whether still older events exist. Returns what changed.
    ///
    /// The window's events are walked again only until the new walk carries what the old one
    /// carried after the same event (typically: from the next replacement that reaches before
    /// the page, both withhold the prompt); the rest is kept, so the cost grows with the page
    /// (the events go into spare room before the window's, amortized, and the room is given
    /// back when `has_more` is false), plus one move in memory of the analysis's kept
    /// per-event lists (the two large ones as pointers).
    pub fn prepend(
        &mut self,
        events: Vec<SessionEvent>,
        has_more: bool,
    ) -> Result<ConversationChange, Error> {
        check_ascending(&events, None)?;
        if let Some(window_start) = self.window_start() {
            if let Some((index, event)) = events
                .iter()
                .enumerate()
                .find(|(_, event)| event.seq >= window_start)
            {
                return Err(Error::PrependNotOlder {
                    index,
                    seq: event.seq,
                    window_start,
                });
            }
        }
        if events.is_empty() {
            self.has_more = has_more;
            return Ok(ConversationChange::default());
        }
        let change = self.analysis.prepend(&events, &self.events);
        self.events.prepend(events);
        if !has_more {
            // The session start is in: no page will come before it.
            self.events.release_room();
        }
        self.has_more = has_more;
        Ok(change)
    }

    /// The shared config and tools values to read a batch with; `new_session`: the batch is to
    /// replace the window, so the values of the old one are dropped first.
    #[cfg(target_arch = "wasm32")]
    pub(crate) fn batch_interner(&mut self, new_session: bool) -> &mut JsonInterner {
        if new_session {
            self.interner.forget();
        }
        &mut self.interner
    }

    /// [`Conversation::load`] from JSON text (a JSON array or JSON lines).
    pub fn load_json(&mut self, text: &str, has_more: bool) -> Result<ConversationChange, Error> {
        self.interner.forget();
        let events = parse_events_with(text, &mut self.interner)?;
        self.load(events, has_more)
    }

    /// [`Conversation::append`] from JSON text (a JSON array or JSON lines).
    pub fn append_json(&mut self, text: &str) -> Result<ConversationChange, Error> {
        let events = parse_events_with(text, &mut self.interner)?;
        self.append(events)
    }

    /// [`Conversation::prepend`] from JSON text (a JSON array or JSON lines).
    pub fn prepend_json(
        &mut self,
        text: &str,
        has_more: bool,
    ) -> Result<ConversationChange, Error> {
        let events = parse_events_with(text, &mut self.interner)?;
        self.prepend(events, has_more)
    }

    /// The fold state in force at `seq`: after every loaded relevant event with seq `<= seq`.
    /// `None` before the first relevant event of the window.
    pub fn state_at(&self, seq: Seq) -> Option<&SystemPromptState> {
        self.analysis.state_at(seq)
    }

    /// The index of the state [`Conversation::state_at`] returns for `seq`, `None` when there
    /// is none. Indices stay while the window only grows at its end.
    #[cfg(target_arch = "wasm32")]
    pub(crate) fn state_index(&self, seq: Seq) -> Option<usize> {
        self.analysis.state_index(seq)
    }

    /// The state at `index` (see [`Conversation::state_index`]).
    #[cfg(target_arch = "wasm32")]
    pub(crate) fn state_by_index(&self, index: usize) -> Option<SystemPromptState> {
        self.analysis.state_by_index(index).cloned()
    }

    /// The inspection of the loaded `request/header` at exactly `seq`.
    pub fn request_at(&self, seq: Seq) -> Option<&RequestPromptInspection> {
        self.analysis.request_at(seq)
    }

    /// One line per loaded event (FORMAT.md's window lines).
    pub fn lines(&self) -> Vec<EventLine> {
        self.analysis.lines(&self.events)
    }

    /// What the model's context held at `seq` (after every event with seq `<= seq`): the
    /// surviving surface nodes in surface order, their estimated tokens and breakdown.
    pub fn context_at(&self, seq: Seq) -> Context {
        self.analysis.context_at(seq)
    }

    /// The breakdown of the context at `seq` and whether it is incomplete, without its nodes.
    pub fn context_summary_at(&self, seq: Seq) -> (ContextBreakdown, bool) {
        self.analysis.context_summary_at(seq)
    }

    /// Totals over the window: requests, new series, prompt changes appended and rewritten,
    /// superseded-prompt tokens summed over all requests, cache reads observed.
    pub fn context_totals(&self) -> ContextTotals {
        self.analysis.context_totals()
    }

    /// Chat cards and trajectory of the window.
    pub fn views(&self) -> Views {
        self.analysis.views()
    }

    /// The first loaded seq, `None` for an empty window.
    pub fn window_start(&self) -> Option<Seq> {
        self.analysis.window_start()
    }

    /// Whether older events exist that are not loaded.
    pub fn has_more(&self) -> bool {
        self.has_more
    }

    /// Number of loaded events.
    pub fn len(&self) -> usize {
        self.events.len()
    }

    /// Whether no event is loaded.
    pub fn is_empty(&self) -> bool {
        self.events.is_empty()
    }

    /// The loaded events, ascending by seq.
    pub fn events(&self) -> &[SessionEvent] {
        &self.events
    }

    fn report(&self, delta: &Delta) -> ConversationChange {
        let cards = |indices: &[usize]| -> Vec<ChatCard> {
            let mut cards: Vec<ChatCard> = indices
                .iter()
                .filter_map(|index| self.analysis.card(*index))
                .cloned()
                .collect();
            sort_cards(&mut cards);
            cards.dedup_by_key(|card| card.key);
            cards
        };
        // Cards added in this call are reported once, as added, with their final anchor.
        let moved: Vec<usize> = delta
            .moved
            .iter()
            .copied()
            .filter(|index| delta.added.binary_search(index).is_err())
            .collect();
        ConversationChange {
            chat: ChatChange {
                added: cards(&delta.added),
                changed: cards(&moved),
                removed: Vec::new(),
            },
            trajectory_changed: delta.trajectory_changed,
        }
    }
}

impl Spare for SessionEvent {
    fn spare() -> SessionEvent {
        SessionEvent {
            seq: 0,
            time: 0.0,
            kind: EventKind::Other,
            surface_op: None,
            turn: TurnField::Absent,
            step: None,
        }
    }
}

/// Checks that seqs strictly increase through `events`, after `after` when given.
fn check_ascending(events: &[SessionEvent], after: Option<Seq>) -> Result<(), Error> {
    let mut previous = after;
    for (index, event) in events.iter().enumerate() {
        if let Some(previous) = previous {
            if event.seq <= previous {
                return Err(Error::NonIncreasingSeq {
                    index,
                    seq: event.seq,
                    previous,
                });
            }
        }
        previous = Some(event.seq);
    }
    Ok(())
}
