//! The derived data of a window, built by walking its events once in seq order: fold states,
//! request inspections, chat cards and trajectory facts. Appending events continues the walk.

use crate::error::Error;
use crate::fold::request::{inspect_header, RequestPromptInspection};
use crate::fold::surface::{RequestState, SurfaceFold};
use crate::fold::{inspect_system_prompt, SystemPromptState};
use crate::input::event::{Seq, SessionEvent};
use crate::room::{headroom, try_room};
use crate::views::cache::{CacheOptions, CacheSummary, LedgerInput, LedgerSink};
use crate::views::chat::{CardKey, ChatBuilder, ChatCard};
use crate::views::context::{
    Context, ContextBreakdown, ContextSummary, ContextTotals, RequestContext,
};
use crate::views::location::Locator;
use crate::views::observe::Census;
use crate::views::observe::Observed;
use crate::views::splice::ListSplice;
use crate::views::trajectory::{HeaderFact, Trajectory, TrajectoryBuilder};
use crate::views::{EventLine, Views};

pub(crate) mod compare;
pub(crate) mod prepend;
mod slices;

/// What a run of events changed: cards added, cards whose anchor moved, and the trajectory.
#[derive(Clone, Debug, Default)]
pub(crate) struct Delta {
    pub added: Vec<usize>,
    pub moved: Vec<usize>,
    pub trajectory_changed: bool,
    /// How the cards in chat order changed.
    pub cards: ListSplice,
}

/// `census` with room for the live events after it (see [`crate::room::live_room`]).
fn with_live_room(census: Census) -> Census {
    let room = |count: usize| count.saturating_add(crate::room::live_room(count));
    Census {
        relevant: room(census.relevant),
        headers: room(census.headers),
        system_appends: room(census.system_appends),
        turn_starts: room(census.turn_starts),
        step_starts: room(census.step_starts),
        surface: room(census.surface),
    }
}

/// The derived data of a window whose first seq is `window_start`.
#[derive(Clone, Debug, Default)]
pub(crate) struct Analysis {
    window_start: Option<Seq>,
    locator: Locator,
    /// The seq of each relevant event, ascending: searched apart from the states, so that a
    /// search reads half the memory (`stateAt` of random seqs in a window of 32,000 states
    /// spent a fifth of its time in the search).
    state_seqs: Vec<Seq>,
    /// The state after each relevant event, at the index of its seq in `state_seqs`.
    states: Vec<SystemPromptState>,
    /// The inspection of each header against the previous loaded header, with the header's seq;
    /// boxed, so that a prepend moves a pointer per kept inspection, not the inspection (and
    /// the seq in the box: a list item of 4 bytes in wasm32 instead of 16).
    #[allow(clippy::vec_box)]
    inspections: Vec<Box<Inspected>>,
    chat: ChatBuilder,
    trajectory: TrajectoryBuilder,
    /// The context after every surface event.
    surface: SurfaceFold,
}

impl Analysis {
    /// Analyses a whole window: `events` ascending by seq, the first being the window start;
    /// [`Error::OutOfMemory`] when the memory cannot hold it.
    pub fn of_window(events: &[SessionEvent]) -> Result<Analysis, Error> {
        let mut analysis = Analysis::new(events.first().map(|event| event.seq));
        analysis.reserve(&with_live_room(Census::of(events)))?;
        analysis.walk_all(events);
        analysis.chat.shrink_to_fit();
        analysis.trajectory.shrink_to_fit();
        Ok(analysis)
    }

    /// An empty analysis of a window that starts at `window_start`.
    pub fn new(window_start: Option<Seq>) -> Analysis {
        Analysis {
            window_start,
            surface: SurfaceFold::new(window_start),
            ..Analysis::default()
        }
    }

    /// The window start this analysis folds with.
    pub fn window_start(&self) -> Option<Seq> {
        self.window_start
    }

    /// Walks `events`, which follow every event already walked, and returns what they changed;
    /// [`Error::OutOfMemory`], with nothing changed, when the memory cannot hold them.
    pub fn extend(&mut self, events: &[SessionEvent]) -> Result<Delta, Error> {
        self.reserve(&Census::of(events))?;
        Ok(self.walk_all(events))
    }

    /// Walks `events` (room for them reserved) and returns what they changed.
    fn walk_all(&mut self, events: &[SessionEvent]) -> Delta {
        let mut delta = Delta::default();
        for event in events {
            self.walk(event, &mut delta);
        }
        // Only the last request's context can change when events follow it.
        let before = self.last_request_context();
        let requests = self.surface.request_count();
        self.surface.extend(events);
        delta.trajectory_changed |= self.surface.request_count() != requests
            || self.surface.request_count() > 0 && self.last_request_context() != before;
        delta.cards = self.chat.settle();
        delta
    }

    /// Room for `census` more events in every list a walk grows, and for what else they
    /// allocate (see [`headroom`]); [`Error::OutOfMemory`] when the memory cannot give it (the
    /// lists only gain capacity).
    fn reserve(&mut self, census: &Census) -> Result<(), Error> {
        try_room(&mut self.state_seqs, census.relevant)?;
        try_room(&mut self.states, census.relevant)?;
        try_room(&mut self.inspections, census.headers)?;
        self.chat.reserve(census)?;
        self.trajectory.reserve(census)?;
        (self.surface).reserve(census.surface, census.headers, census.step_starts)?;
        headroom(walk_allocations(census))
    }

    /// Walks the next event, adding what it changed to `delta`.
    fn walk(&mut self, event: &SessionEvent, delta: &mut Delta) {
        let location = self.locator.locate(event);
        let before = self.states.last();
        let inspection = event.header().map(|header| {
            let previous = self.inspections.last().map(|last| &last.inspection.prompt);
            let system = before.and_then(|state| state.effective());
            // Boxed where it is made: moved into a box when pushed, it was copied twice.
            Box::new(Inspected {
                seq: event.seq,
                inspection: inspect_header(previous, event.seq, event.time, header, system),
            })
        });
        let folded = event
            .is_relevant()
            .then(|| inspect_system_prompt(before, event, self.window_start))
            .flatten();
        let seen = Observed {
            event,
            location,
            before,
            after: folded.as_ref().or(before),
            inspection: inspection.as_deref().map(|inspected| &inspected.inspection),
        };
        let cards = self.chat.observe(&seen);
        delta.added.extend(cards.added);
        delta.moved.extend(cards.moved);
        delta.trajectory_changed |= self.trajectory.observe(&seen);
        if let Some(after) = folded {
            self.state_seqs.push(event.seq);
            self.states.push(after);
        }
        if let Some(inspection) = inspection {
            self.inspections.push(inspection);
        }
    }

    /// The state after every relevant event with seq `<= seq`; `None` before the first.
    pub fn state_at(&self, seq: Seq) -> Option<&SystemPromptState> {
        self.state_by_index(self.state_index(seq)?)
    }

    /// The index of the state [`Analysis::state_at`] returns for `seq`. A state keeps its index
    /// while the window only grows at its end.
    pub fn state_index(&self, seq: Seq) -> Option<usize> {
        self.state_seqs
            .partition_point(|state_seq| *state_seq <= seq)
            .checked_sub(1)
    }

    /// The state at `index` (see [`Analysis::state_index`]).
    pub fn state_by_index(&self, index: usize) -> Option<&SystemPromptState> {
        self.states.get(index)
    }

    /// The context at `seq`: after every event with seq `<= seq`.
    pub fn context_at(&self, seq: Seq) -> Context {
        Context::of(&self.surface.nodes_at(seq), &self.surface.sums_at(seq))
    }

    /// The breakdown of the context at `seq` and whether it is incomplete.
    pub fn context_summary_at(&self, seq: Seq) -> ContextSummary {
        let sums = self.surface.sums_at(seq);
        ContextSummary {
            breakdown: ContextBreakdown::of(&sums),
            incomplete: sums.incomplete,
        }
    }

    /// The inspection of the header at exactly `seq`.
    pub fn request_at(&self, seq: Seq) -> Option<&RequestPromptInspection> {
        let index = self
            .inspections
            .binary_search_by_key(&seq, |inspected| inspected.seq)
            .ok()?;
        self.inspections
            .get(index)
            .map(|inspected| &inspected.inspection)
    }

    /// One line per event of `events`: the events this analysis walked, or a run of them.
    pub fn lines(&self, events: &[SessionEvent]) -> Vec<EventLine> {
        // The states of events before the run: the last of them is in force at its start.
        let before = events.first().map_or(0, |first| {
            self.state_seqs.partition_point(|seq| *seq < first.seq)
        });
        let mut states = self
            .state_seqs
            .get(before..)
            .unwrap_or_default()
            .iter()
            .zip(self.states.get(before..).unwrap_or_default())
            .peekable();
        let mut current: Option<&SystemPromptState> = before
            .checked_sub(1)
            .and_then(|index| self.states.get(index));
        events
            .iter()
            .map(|event| {
                while let Some((_, state)) = states.next_if(|(seq, _)| **seq <= event.seq) {
                    current = Some(state);
                }
                EventLine {
                    seq: event.seq,
                    system: current.map(SystemPromptState::to_json),
                    request: event
                        .header()
                        .and_then(|_| self.request_at(event.seq))
                        .cloned(),
                }
            })
            .collect()
    }

    /// The card at `index` of a [`Delta`].
    pub fn card(&self, index: usize) -> Option<&ChatCard> {
        self.chat.card(index)
    }

    /// The chat card with `key`, when there is one.
    pub fn card_by_key(&self, key: CardKey) -> Option<&ChatCard> {
        self.chat.card_by_key(key)
    }

    /// The header fact with `key`, when there is one.
    pub fn header_fact(&self, key: CardKey) -> Option<HeaderFact> {
        self.trajectory.header(key)
    }

    /// All chat cards in the order their events came.
    pub fn cards_by_seq(&self) -> impl ExactSizeIterator<Item = &ChatCard> + '_ {
        self.chat.cards_by_seq()
    }

    /// Whether the trajectory view differs from `other`'s, request contexts included.
    pub fn trajectory_differs(&self, other: &Analysis) -> bool {
        self.trajectory_differs_apart_from_contexts(other) || self.request_contexts_differ(other)
    }

    /// Whether the trajectory view differs from `other`'s, request contexts left aside.
    pub fn trajectory_differs_apart_from_contexts(&self, other: &Analysis) -> bool {
        self.trajectory.differs(&other.trajectory)
    }

    /// All chat cards, in chat order.
    pub fn cards(&self) -> Vec<ChatCard> {
        self.chat.cards()
    }

    /// The trajectory view, each request with its context.
    pub fn trajectory(&self) -> Trajectory {
        let mut trajectory = self.trajectory.trajectory();
        let mut contexts = self.surface.requests();
        for request in &mut trajectory.requests {
            request.context = contexts.next().map(request_context).unwrap_or_default();
        }
        debug_assert!(
            contexts.next().is_none(),
            "a request context with no request"
        );
        trajectory
    }

    /// Whether any request's context differs from `other`'s (compared as they are read, with
    /// no list of either).
    pub(crate) fn request_contexts_differ(&self, other: &Analysis) -> bool {
        let mine = self.surface.requests().map(request_context);
        !mine.eq(other.surface.requests().map(request_context))
    }

    /// The context of the last request, which appended events may change.
    fn last_request_context(&self) -> Option<RequestContext> {
        let last = self.surface.request_count().checked_sub(1)?;
        self.surface.request(last).map(request_context)
    }

    /// Totals of the requests' contexts and of the prompt changes.
    pub fn context_totals(&self) -> ContextTotals {
        let (appended, rewritten) = self.surface.prompt_changes();
        let mut totals = ContextTotals {
            prompts_appended: appended,
            prompts_rewritten: rewritten,
            ..ContextTotals::default()
        };
        let count = |n: &mut u32, yes: bool| *n = n.saturating_add(u32::from(yes));
        for context in self.surface.requests().map(request_context) {
            count(&mut totals.requests, true);
            count(&mut totals.new_series, context.new_series);
            totals.superseded_system_tokens +=
                f64::from(context.breakdown.superseded_system_tokens);
            totals.total_tokens += f64::from(context.breakdown.total_tokens);
            let reads = context
                .usage
                .as_deref()
                .and_then(|usage| usage.get("cacheReadTokens"))
                .and_then(|reads| reads.as_f64());
            if let Some(reads) = reads {
                totals.cache_read_tokens += reads;
                count(&mut totals.answers_with_cache_reads, true);
            }
        }
        totals
    }

    /// The cache ledger of the window whose events are `events` (options checked), each entry
    /// handed to `sink` as it is made; returns the summary.
    pub fn cache_ledger_into(
        &self,
        events: &[SessionEvent],
        options: &CacheOptions,
        sink: &mut dyn LedgerSink,
    ) -> CacheSummary {
        let state_at = |seq: Seq| self.state_at(seq);
        let input = LedgerInput {
            events,
            surface: &self.surface,
            state_at: &state_at,
        };
        crate::views::cache::ledger_into(&input, options, sink)
    }

    /// The number of trajectory requests (ledger entries).
    pub fn request_total(&self) -> usize {
        self.surface.request_count()
    }

    /// Adds what this analysis keeps on the heap to `profile`.
    #[cfg(feature = "testkit")]
    pub fn heap_profile(&self, profile: &mut crate::heap::HeapProfile) {
        profile.list("state seqs", &self.state_seqs);
        profile.list("states", &self.states);
        SystemPromptState::heap_profile(&self.states, profile);
        profile.list("inspections", &self.inspections);
        let boxed = std::mem::size_of::<Inspected>();
        profile.add(
            "inspections (boxed)",
            self.inspections.len(),
            boxed.saturating_mul(self.inspections.len()),
        );
        self.chat.heap_profile(profile);
        self.trajectory.heap_profile(profile);
        self.surface.heap_profile(profile);
    }

    /// Chat cards and trajectory.
    pub fn views(&self) -> Views {
        Views {
            chat: self.cards(),
            trajectory: self.trajectory(),
        }
    }
}

/// A header's inspection with the header's seq, which the list of inspections is searched by.
#[derive(Clone, Debug)]
struct Inspected {
    seq: Seq,
    inspection: RequestPromptInspection,
}

/// About the bytes a walk of `census` allocates besides its lists (per header an inspection
/// and a fact, boxed, and a card of the change report; per relevant event a state and its fold
/// record's entries and index nodes; per surface event its record's tree nodes and
/// checkpoints; a fixed part for the rest), at most 64 MiB: the block [`headroom`] checks. The
/// lists, which hold most of a window, are reserved exactly; a larger block would stay in
/// wasm memory for nothing after a large load.
fn walk_allocations(census: &Census) -> usize {
    const PER_HEADER: usize = 320;
    const PER_RELEVANT: usize = 128;
    const PER_SURFACE: usize = 32;
    const FIXED: usize = 256 << 10;
    const MOST: usize = 64 << 20;
    (census.headers.saturating_mul(PER_HEADER))
        .saturating_add(census.relevant.saturating_mul(PER_RELEVANT))
        .saturating_add(census.surface.saturating_mul(PER_SURFACE))
        .saturating_add(FIXED)
        .min(MOST)
}

/// A request's context as the views show it.
fn request_context(state: RequestState) -> RequestContext {
    let (answer_seq, usage) = state.answer.unzip();
    RequestContext {
        seq: state.seq,
        breakdown: ContextBreakdown::of(&state.sums),
        incomplete: state.sums.incomplete,
        answer_seq,
        usage: usage.flatten(),
        new_series: state.new_series,
    }
}
