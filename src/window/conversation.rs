//! The loaded window of a session log: load, live append, load earlier, and what each changed.

use std::ops::Range;

use crate::error::Error;
use crate::fold::request::RequestPromptInspection;
use crate::fold::SystemPromptState;
use crate::front_vec::{FrontVec, Spare};
use crate::input::event::{EventKind, Seq, SessionEvent, TurnField};
use crate::input::intern::JsonInterner;
use crate::input::json::JsonValue;
use crate::input::parse::fed::{complete_lines, copy_bytes, keep_bytes};
use crate::input::parse::framing::{Framing, Numbering, Rows};
use crate::input::parse::row_lines::{locate, Layout};
use crate::input::parse::{parse_fed_lines, parse_rows, parse_text_rows};
use crate::input::text::JsonText;
use crate::room::{headroom, try_room};
use crate::views::cache::{CacheLedger, CacheOptions, CacheSummary, LedgerRows, LedgerSink};
use crate::views::chat::{sort_cards, ChatCard};
use crate::views::context::{Context, ContextSummary, ContextTotals};
use crate::views::slices::{clamp, CardsSlice, LinesSlice, RequestsSlice, SeqIndex, ViewCounts};
use crate::views::splice::{ListSplice, ViewSplices};
use crate::views::{ChatChange, ConversationChange, EventLine, Views};
use crate::window::analysis::compare::compare;
use crate::window::analysis::{Analysis, Delta};
use crate::window::options::LoadOptions;

mod diffs;
// Only the wasm API reads text in pieces (a native caller holds the whole text anyway).
#[cfg(any(feature = "wasm", test))]
mod fed_load;

#[cfg(any(feature = "wasm", test))]
pub(crate) use fed_load::{Piece, PieceLoad};

/// A window of a session log: the newest page first, live events at the tail, older pages
/// prepended on demand. Every output equals a fresh load of the same events (D1), and the fold
/// starts at the window's first seq (D2).
///
/// Not `Send`: it and its results share prompt texts through `Rc` (the crate docs, "Threads").
///
/// ```
/// use promptfold::{Conversation, LoadOptions};
///
/// let log = r#"[
///   {"seq":1,"time":1,"type":"system/message","surfaceOp":"append",
///    "data":{"turn":1,"step":1,"message":{"role":"system","content":[{"type":"text","text":"Be brief."}]}}},
///   {"seq":2,"time":2,"type":"request/header","data":{"reason":"initial","header":{"config":{},"tools":[]}}}
/// ]"#;
/// let mut conversation = Conversation::new();
/// let change = conversation.load_json(log, LoadOptions::default())?;
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
    /// The session header, when a batch began with one.
    session: Option<JsonValue>,
    /// How the window's events are numbered (a seq-less log numbers them itself).
    numbering: Numbering,
    /// The incomplete last line of the text read so far, kept for [`Conversation::feed`].
    unfinished: Vec<u8>,
    /// Lines of JSON lines text read since the window was loaded, or since the last text whose
    /// lines were not counted (for line numbers in errors of [`Conversation::feed`]).
    lines_read: usize,
    /// Whether a text read since the window was loaded has lines not counted (a JSON array):
    /// errors of [`Conversation::feed`] then name no row's line.
    lines_unknown: bool,
    /// Rows of text read since the window was loaded (for row indexes in errors of
    /// [`Conversation::feed`]).
    rows_read: usize,
    /// Prompt diffs computed for card and header keys (see `card_diff`, `change_diff`).
    diffs: diffs::DiffCache,
}

/// Which call a batch comes with: what its framing allows and what it does to the window.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Call {
    /// Replaces the window.
    Load,
    /// Goes after the window's last event.
    Append,
    /// Goes before the window's first event.
    Prepend,
    /// Complete lines of a growing file, after the window's last event.
    Feed,
}

/// The window's counts before events are appended (see [`Conversation::walk_appended`]).
pub(crate) struct AppendedMark {
    /// Events (lines) of the window.
    lines: usize,
    /// Trajectory requests.
    requests: usize,
    /// Trajectory header facts.
    facts: usize,
    /// The context of the last request.
    last_context: Option<crate::views::context::RequestContext>,
}

/// The line ends of `rows` of a text batch, when they place the text that follows it: JSON lines
/// count theirs; a JSON array counts none though its text may hold some, and so does a text
/// without a line end (`None`: not counted).
pub(crate) fn text_lines(rows: &Rows) -> Option<usize> {
    (rows.lines > 0).then_some(rows.lines)
}

impl Conversation {
    /// An empty window.
    pub fn new() -> Conversation {
        Conversation::default()
    }

    /// Replaces the window with `events` (ascending by seq); `options.has_more` tells whether
    /// older events exist. Returns what changed against the previous window.
    pub fn load(
        &mut self,
        events: Vec<SessionEvent>,
        options: LoadOptions,
    ) -> Result<ConversationChange, Error> {
        let rows = self.given_rows(events, Call::Load);
        let given = rows.given();
        let change = self.apply(Call::Load, rows, options.has_more)?;
        // Values are rows of the log with no line of text, as the wasm build counts them.
        self.text_read(Call::Load, Some(0), given);
        Ok(change)
    }

    /// Appends live events after the window's last event. On an empty window this starts the
    /// window (with no older events). Returns what changed.
    pub fn append(&mut self, events: Vec<SessionEvent>) -> Result<ConversationChange, Error> {
        let rows = self.given_rows(events, Call::Append);
        let given = rows.given();
        let change = self.apply(Call::Append, rows, self.has_more)?;
        self.text_read(Call::Append, Some(0), given);
        Ok(change)
    }

    /// Events built by the caller (each with its seq) as the rows of a batch for `call`.
    fn given_rows(&self, events: Vec<SessionEvent>, call: Call) -> Rows {
        let numbering = match (self.framing(call, false).numbering, events.last()) {
            (Numbering::Index(_), Some(last)) => Numbering::Index(last.seq.saturating_add(1)),
            (numbering, None) => numbering,
            (_, Some(_)) => Numbering::Given,
        };
        Rows {
            events,
            numbering,
            ..Rows::default()
        }
    }

    /// The rules of framing for a batch given with `call` (`text`: as JSON text) to this window.
    pub(crate) fn framing(&self, call: Call, text: bool) -> Framing {
        let starts_window = self.events.is_empty() && self.session.is_none();
        let (header, numbering) = match call {
            Call::Load => (true, Numbering::Undecided),
            Call::Append | Call::Feed => (starts_window, self.numbering),
            Call::Prepend => (
                true,
                match self.numbering {
                    // Read as a log of its own: any event is then not older than the window.
                    Numbering::Index(_) => Numbering::Undecided,
                    numbering => numbering,
                },
            ),
        };
        Framing {
            header,
            numbering,
            torn_tail: text && matches!(call, Call::Load | Call::Append),
            first_row: 0,
        }
    }

    /// Applies `rows`, read under [`Conversation::framing`] for `call`, to the window; errors
    /// point at the rows as given. A failed call leaves the window as it was.
    pub(crate) fn apply(
        &mut self,
        call: Call,
        rows: Rows,
        has_more: bool,
    ) -> Result<ConversationChange, Error> {
        let torn_tail = rows.torn_tail;
        let mut change = match call {
            Call::Load => self.load_rows(rows, has_more)?,
            Call::Append | Call::Feed if self.events.is_empty() => {
                let session = self.session.take();
                let loaded = self.load_rows(rows, self.has_more);
                if self.session.is_none() {
                    self.session = session;
                }
                loaded?
            }
            Call::Append | Call::Feed => {
                let torn_text = rows.torn_tail.map(|_| rows.torn_text.clone());
                let change = self.append_rows(rows)?;
                if let Some(torn_text) = torn_text {
                    self.unfinished = torn_text;
                }
                change
            }
            Call::Prepend => self.prepend_rows(rows, has_more)?,
        };
        change.torn_tail = torn_tail;
        Ok(change)
    }

    fn load_rows(&mut self, rows: Rows, has_more: bool) -> Result<ConversationChange, Error> {
        check_ascending(&rows.events, None).map_err(|error| rows.at_row(error))?;
        let Rows {
            events,
            session,
            numbering,
            torn_text,
            ..
        } = rows;
        let mut events = events;
        // Room for live events (see `live_room`); events read from text have it already.
        let room = crate::room::live_room(events.len());
        try_room(&mut events, room)?;
        let analysis = Analysis::of_window(&events)?;
        let mut change = compare(&self.analysis, &analysis);
        change.splices.lines = ListSplice::replaced(self.events.len(), events.len());
        self.events = FrontVec::from(events);
        self.analysis = analysis;
        self.diffs.clear();
        self.has_more = has_more;
        self.session = session;
        self.numbering = numbering;
        self.unfinished = torn_text;
        Ok(change)
    }

    fn append_rows(&mut self, rows: Rows) -> Result<ConversationChange, Error> {
        check_ascending(&rows.events, self.events.last().map(|event| event.seq))
            .map_err(|error| rows.at_row(error))?;
        debug_assert!(
            rows.session.is_none(),
            "a header was read into a started window"
        );
        let (before, numbering) = (self.appended_mark(), rows.numbering);
        // Room first: a call the memory cannot hold changes nothing.
        self.events.try_reserve(rows.events.len())?;
        self.events.extend(rows.events);
        let change = self.walk_appended(&before);
        if change.is_err() {
            self.events.truncate(before.lines);
        } else {
            self.numbering = numbering;
        }
        change
    }

    /// What [`Conversation::walk_appended`] needs of the window before events are appended.
    pub(crate) fn appended_mark(&self) -> AppendedMark {
        let requests = self.analysis.request_count();
        let last_context = requests
            .checked_sub(1)
            .and_then(|last| self.analysis.request_context_of(last));
        AppendedMark {
            lines: self.events.len(),
            requests,
            facts: self.analysis.fact_count(),
            last_context,
        }
    }

    /// Walks the events appended since `before` was taken (already in the window's events) and
    /// reports what they changed; on an error ([`Error::OutOfMemory`]) the analysis is as it
    /// was, and the caller takes the events off again.
    pub(crate) fn walk_appended(
        &mut self,
        before: &AppendedMark,
    ) -> Result<ConversationChange, Error> {
        let appended = self.events.get(before.lines..).unwrap_or_default();
        let added = appended.len();
        let delta = self.analysis.extend(appended)?;
        let mut change = self.report(&delta);
        let requests = before.requests;
        // Only the last request's context can change; facts change the requests of their step.
        let mut first = self.analysis.first_request_touched(before.facts, requests);
        if let Some(last) = requests.checked_sub(1) {
            if self.analysis.request_context_of(last) != before.last_context {
                first = first.min(last);
            }
        }
        let total = self.analysis.request_count();
        change.splices = ViewSplices {
            cards: delta.cards,
            requests: ListSplice {
                start: first,
                removed: requests.saturating_sub(first),
                added: total.saturating_sub(first),
                total,
            },
            lines: ListSplice::appended(before.lines, added),
        };
        Ok(change)
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
        options: LoadOptions,
    ) -> Result<ConversationChange, Error> {
        let rows = self.given_rows(events, Call::Prepend);
        self.apply(Call::Prepend, rows, options.has_more)
    }

    fn prepend_rows(&mut self, rows: Rows, has_more: bool) -> Result<ConversationChange, Error> {
        check_ascending(&rows.events, None).map_err(|error| rows.at_row(error))?;
        if let Some(window_start) = self.window_start() {
            // A seq-less log is read from its start: nothing comes before it.
            let seqless = matches!(self.numbering, Numbering::Index(_));
            if let Some((index, event)) = rows
                .events
                .iter()
                .enumerate()
                .find(|(_, event)| seqless || event.seq >= window_start)
            {
                return Err(Error::PrependNotOlder {
                    index: rows.row_of(index),
                    line: None,
                    seq: event.seq,
                    window_start,
                });
            }
        }
        if rows.session.is_some() {
            self.session = rows.session;
        }
        let events = rows.events;
        if events.is_empty() {
            self.has_more = has_more;
            return Ok(self.unchanged());
        }
        // The page's walk allocates as a load of it does; the events may move once.
        let page_bytes = prepend_allocations(events.len());
        let moved = if has_more {
            self.events.prepend_bytes(events.len())
        } else {
            self.events.prepend_last_bytes(events.len())
        };
        headroom(page_bytes.saturating_add(moved))?;
        if self.events.is_empty() {
            self.numbering = rows.numbering;
        }
        let lines = self.events.len();
        let mut change = self.analysis.prepend(&events, &self.events);
        change.splices.lines = ListSplice::replaced(lines, lines.saturating_add(events.len()));
        if has_more {
            self.events.prepend(events);
        } else {
            // The session start is in: no page will come before it.
            self.events.prepend_last(events);
        }
        self.has_more = has_more;
        Ok(change)
    }

    /// The shared config and tools values to read a batch with; `new_session`: the batch is to
    /// replace the window, so the values of the old one are dropped first.
    pub(crate) fn batch_interner(&mut self, new_session: bool) -> &mut JsonInterner {
        if new_session {
            self.interner.forget();
        }
        &mut self.interner
    }

    /// [`Conversation::load`] from JSON text, a string or UTF-8 bytes ([`JsonText`]): a JSON
    /// array of events, or JSON lines (a session file as the harness writes it: a header row
    /// first, SDK notifications, seq-less rows, `\r\n`, a byte order mark; BEHAVIOUR.md
    /// section 10). A torn last line (bytes may end inside a character) is left out, reported
    /// in the change's `torn_tail`, and kept for [`Conversation::feed`].
    pub fn load_json<'a>(
        &mut self,
        text: impl Into<JsonText<'a>>,
        options: LoadOptions,
    ) -> Result<ConversationChange, Error> {
        self.apply_text(Call::Load, text.into(), options.has_more)
    }

    /// [`Conversation::append`] from JSON text, read as [`Conversation::load_json`] reads it.
    pub fn append_json<'a>(
        &mut self,
        text: impl Into<JsonText<'a>>,
    ) -> Result<ConversationChange, Error> {
        self.apply_text(Call::Append, text.into(), self.has_more)
    }

    /// [`Conversation::prepend`] from JSON text (a JSON array or JSON lines; the oldest page
    /// of a file may begin with its header row), read as [`Conversation::load_json`] reads it.
    pub fn prepend_json<'a>(
        &mut self,
        text: impl Into<JsonText<'a>>,
        options: LoadOptions,
    ) -> Result<ConversationChange, Error> {
        self.apply_text(Call::Prepend, text.into(), options.has_more)
    }

    fn apply_text(
        &mut self,
        call: Call,
        text: JsonText<'_>,
        has_more: bool,
    ) -> Result<ConversationChange, Error> {
        let framing = self.framing(call, true);
        let interner = self.batch_interner(call == Call::Load);
        let locate = |error| locate(error, text.as_bytes(), Layout::Detect);
        let rows = match text {
            // Already UTF-8.
            JsonText::Str(text) => parse_rows(text, interner, framing),
            JsonText::Bytes(bytes) => parse_text_rows(bytes, interner, framing),
        }
        .map_err(locate)?;
        let (lines, given) = (text_lines(&rows), rows.given());
        let change = self.apply(call, rows, has_more).map_err(locate)?;
        self.text_read(call, lines, given);
        Ok(change)
    }

    /// Counts the lines (`None`: not counted, see [`text_lines`]) and rows of a batch read with
    /// `call`, for the lines and indexes in errors of [`Conversation::feed`].
    pub(crate) fn text_read(&mut self, call: Call, lines: Option<usize>, rows: usize) {
        match call {
            Call::Prepend => return,
            Call::Load => (self.lines_read, self.rows_read, self.lines_unknown) = (0, 0, false),
            Call::Append | Call::Feed => {}
        }
        self.rows_read = self.rows_read.saturating_add(rows);
        match lines {
            Some(lines) => self.lines_read = self.lines_read.saturating_add(lines),
            // Lines count again from the end of the text not counted.
            None => (self.lines_read, self.lines_unknown) = (0, true),
        }
    }

    /// Counts `lines` (`None`: not counted) and `rows` of text read before the text counted so
    /// far.
    #[cfg(any(feature = "wasm", test))]
    pub(crate) fn read_before(&mut self, lines: Option<usize>, rows: usize) {
        self.rows_read = self.rows_read.saturating_add(rows);
        match lines {
            Some(lines) => self.lines_read = self.lines_read.saturating_add(lines),
            None => self.lines_unknown = true,
        }
    }

    /// The lines (`None` when not all were counted) and rows of text read since the window was
    /// loaded.
    #[cfg(any(feature = "wasm", test))]
    pub(crate) fn read_so_far(&self) -> (Option<usize>, usize) {
        let lines = (!self.lines_unknown).then_some(self.lines_read);
        (lines, self.rows_read)
    }

    /// Reads a growing session file: `chunk` is the next piece of its text (a string, or bytes
    /// as [`JsonText`] takes them), cut anywhere
    /// (inside a line, a string or a UTF-8 character). The events of the lines it completes are
    /// appended (the first rows may hold the header when the window is empty) and the
    /// incomplete rest is kept for the next call, so at most one line is ever held. All or
    /// nothing: on an error the window and the kept rest stay as they were. Returns what
    /// changed, as [`Conversation::append`] does.
    ///
    /// ```
    /// use promptfold::Conversation;
    ///
    /// let log = "{\"type\":\"session\",\"version\":4,\"id\":\"s-1\"}\n\
    ///   {\"seq\":1,\"time\":1,\"type\":\"system/message\",\"surfaceOp\":\"append\",\
    ///    \"data\":{\"message\":{\"role\":\"system\",\"content\":[{\"type\":\"text\",\"text\":\"Hi\"}]}}}\n";
    /// let mut conversation = Conversation::new();
    /// for piece in log.as_bytes().chunks(7) {
    ///     conversation.feed(piece)?;
    /// }
    /// assert_eq!(conversation.len(), 1);
    /// // A string is fed as its bytes are.
    /// conversation.feed("{\"seq\":2,\"time\":2,\"type\":\"user/message\"}\n")?;
    /// assert_eq!(conversation.len(), 2);
    /// assert!(conversation.session().is_some());
    /// # Ok::<(), promptfold::Error>(())
    /// ```
    pub fn feed<'a>(
        &mut self,
        chunk: impl Into<JsonText<'a>>,
    ) -> Result<ConversationChange, Error> {
        self.feed_bytes(chunk.into().as_bytes())
    }

    fn feed_bytes(&mut self, chunk: &[u8]) -> Result<ConversationChange, Error> {
        let Some((lines, rest)) = complete_lines(&self.unfinished, chunk)? else {
            keep_bytes(&mut self.unfinished, chunk)?;
            return Ok(self.unchanged());
        };
        let rest = copy_bytes(rest)?;
        let framing = self.framing(Call::Feed, true);
        let (lines_before, rows_before) = (self.lines_read, self.rows_read);
        // Errors point at the row and line counted from the first byte of the text read. After
        // text whose lines were not counted, a row's error names no line, and malformed JSON
        // (which always names one) the line counted from the end of that text.
        let unknown = self.lines_unknown;
        let locate = |error| match unknown {
            false => locate(error, &lines, Layout::Lines).after(lines_before, rows_before),
            true => Error::after(error, lines_before, rows_before),
        };
        let rows = parse_fed_lines(&lines, &mut self.interner, framing).map_err(locate)?;
        let (read, given) = (Some(rows.lines), rows.given());
        let change = self
            .apply(Call::Feed, rows, self.has_more)
            .map_err(locate)?;
        self.text_read(Call::Feed, read, given);
        self.unfinished = rest;
        Ok(change)
    }

    /// The session header the log began with (its first row, kept whole as given), if it had
    /// one.
    pub fn session(&self) -> Option<&JsonValue> {
        self.session.as_ref()
    }

    /// The bytes of an incomplete last line kept for the next [`Conversation::feed`] (a torn
    /// tail of [`Conversation::load_json`] or [`Conversation::append_json`] included).
    pub fn unfinished_line(&self) -> &[u8] {
        &self.unfinished
    }

    /// The fold state in force at `seq`: after every loaded relevant event with seq `<= seq`.
    /// `None` before the first relevant event of the window.
    pub fn state_at(&self, seq: Seq) -> Option<&SystemPromptState> {
        self.analysis.state_at(seq)
    }

    /// The index of the state [`Conversation::state_at`] returns for `seq`, `None` when there
    /// is none. Indices stay while the window only grows at its end.
    #[cfg(feature = "wasm")]
    pub(crate) fn state_index(&self, seq: Seq) -> Option<usize> {
        self.analysis.state_index(seq)
    }

    /// The state at `index` (see [`Conversation::state_index`]).
    #[cfg(feature = "wasm")]
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
    pub fn context_summary_at(&self, seq: Seq) -> ContextSummary {
        self.analysis.context_summary_at(seq)
    }

    /// Totals over the window: requests, new series, prompt changes appended and rewritten,
    /// superseded-prompt tokens summed over all requests, cache reads observed.
    pub fn context_totals(&self) -> ContextTotals {
        self.analysis.context_totals()
    }

    /// The cache ledger of the window (`docs/cache.md`): per trajectory
    /// request what it kept of the previous request's prefix cache, why the rest was lost, what
    /// the log says the provider read and what it cost; and a summary.
    ///
    /// Returns [`Error::InvalidArgument`] for a price or TTL that is not a finite number
    /// `>= 0`, and computes nothing then.
    pub fn cache_ledger(&self, options: &CacheOptions) -> Result<CacheLedger, Error> {
        Ok(self.cache_ledger_rows(options)?.into_ledger())
    }

    /// [`Conversation::cache_ledger`] with the routes and causes beside the entries.
    pub(crate) fn cache_ledger_rows(&self, options: &CacheOptions) -> Result<LedgerRows, Error> {
        let mut rows = LedgerRows::with_capacity(self.cache_ledger_len());
        rows.summary = self.cache_ledger_into(options, &mut rows)?;
        Ok(rows)
    }

    /// [`Conversation::cache_ledger`] handing each entry, with its route and causes, to `sink`
    /// as it is made (as many as [`Conversation::cache_ledger_len`]); returns the summary.
    pub(crate) fn cache_ledger_into(
        &self,
        options: &CacheOptions,
        sink: &mut dyn LedgerSink,
    ) -> Result<CacheSummary, Error> {
        options.check()?;
        Ok(self.analysis.cache_ledger_into(&self.events, options, sink))
    }

    /// The number of entries of the cache ledger (trajectory requests).
    pub(crate) fn cache_ledger_len(&self) -> usize {
        self.analysis.request_total()
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

    /// The change report of a call that changed nothing.
    fn unchanged(&self) -> ConversationChange {
        let counts = self.view_counts();
        ConversationChange {
            splices: ViewSplices {
                cards: ListSplice::unchanged(counts.cards),
                requests: ListSplice::unchanged(counts.requests),
                lines: ListSplice::unchanged(counts.lines),
            },
            ..ConversationChange::default()
        }
    }

    /// How many chat cards, trajectory requests and event lines the window has.
    pub fn view_counts(&self) -> ViewCounts {
        ViewCounts {
            cards: self.analysis.card_count(),
            requests: self.analysis.request_count(),
            lines: self.events.len(),
        }
    }

    /// The chat cards of `range`, an index range of `views().chat` clamped to the cards, with
    /// their total: the same cards as those of `views()`, at the cost of the range (the chat
    /// order is kept as cards come). [`Error::InvalidArgument`] when `range` ends before it
    /// starts.
    ///
    /// ```
    /// use promptfold::{Conversation, LoadOptions};
    ///
    /// let log = r#"[
    ///   {"seq":1,"time":1,"type":"system/message","surfaceOp":"append",
    ///    "data":{"turn":1,"step":1,"message":{"role":"system","content":[{"type":"text","text":"Be brief."}]}}},
    ///   {"seq":2,"time":2,"type":"step/start","data":{"turn":1,"step":1}}
    /// ]"#;
    /// let mut conversation = Conversation::new();
    /// conversation.load_json(log, LoadOptions::default())?;
    /// let slice = conversation.cards_slice(0..50)?;
    /// assert_eq!((slice.total, slice.start, slice.cards.len()), (1, 0, 1));
    /// assert_eq!(slice.cards, conversation.views().chat);
    /// assert_eq!(conversation.requests_slice(0..1)?.requests.len(), 1);
    /// assert_eq!(conversation.lines_slice(1..9)?.lines[0].seq, 2);
    /// # Ok::<(), promptfold::Error>(())
    /// ```
    pub fn cards_slice(&self, range: Range<usize>) -> Result<CardsSlice, Error> {
        let total = self.analysis.card_count();
        let range = clamp(range, total)?;
        Ok(CardsSlice {
            total,
            start: range.start,
            cards: self.analysis.cards_in(range),
        })
    }

    /// The trajectory requests of `range`, an index range of `views().trajectory.requests`
    /// clamped to the requests, with their total, at the cost of the range when every header
    /// fact located in a step lies between the starts of the steps before and after it (the
    /// harness writes a step's system message and header just before or after its
    /// `step/start`). Otherwise the first call links every request to its header facts (one
    /// pass over them); after a live append a call relinks only the requests from the first one
    /// whose step the new events reach (the last ones), after a load or prepend all of them.
    /// [`Error::InvalidArgument`] when `range` ends before it starts.
    pub fn requests_slice(&self, range: Range<usize>) -> Result<RequestsSlice, Error> {
        let total = self.analysis.request_count();
        let range = clamp(range, total)?;
        Ok(RequestsSlice {
            total,
            start: range.start,
            requests: self.analysis.requests_in(range),
        })
    }

    /// The event lines of `range`, an index range of [`Conversation::lines`] clamped to the
    /// window, with their total, at the cost of the range. [`Error::InvalidArgument`] when
    /// `range` ends before it starts.
    pub fn lines_slice(&self, range: Range<usize>) -> Result<LinesSlice, Error> {
        let total = self.events.len();
        let range = clamp(range, total)?;
        let start = range.start;
        let events = self.events.get(range).unwrap_or_default();
        Ok(LinesSlice {
            total,
            start,
            lines: self.analysis.lines(events),
        })
    }

    /// Where the loaded event `seq` sits in the lines, the chat cards and the requests, for a
    /// viewer to jump to it; `None` when no loaded event has that seq.
    pub fn index_of_seq(&self, seq: Seq) -> Option<SeqIndex> {
        let line = self
            .events
            .binary_search_by_key(&seq, |event| event.seq)
            .ok()?;
        Some(SeqIndex {
            line,
            card: self.analysis.card_shown_by(seq),
            request: self.analysis.request_holding(seq),
        })
    }

    /// What the window keeps on the heap, by structure: name, items and bytes (as this target
    /// lays them out; values shared between events are counted once, by their share).
    #[cfg(feature = "testkit")]
    pub fn heap_profile(&self) -> Vec<(&'static str, usize, usize)> {
        let mut profile = crate::heap::HeapProfile::default();
        profile.list("events", self.events.slots());
        for event in self.events.iter() {
            event_payload(event, &mut profile);
        }
        profile.add("unfinished line", 1, self.unfinished.capacity());
        self.analysis.heap_profile(&mut profile);
        profile.into_rows()
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
            torn_tail: None,
            splices: ViewSplices::default(),
        }
    }
}

impl Spare for SessionEvent {
    fn spare() -> SessionEvent {
        SessionEvent::packed(0, 0.0, EventKind::Other, None, TurnField::Absent, None)
    }
}

/// Checks that seqs strictly increase through `events`, after `after` when given.
pub(crate) fn check_ascending(events: &[SessionEvent], after: Option<Seq>) -> Result<(), Error> {
    let mut previous = after;
    for (index, event) in events.iter().enumerate() {
        if let Some(previous) = previous {
            if event.seq <= previous {
                return Err(Error::NonIncreasingSeq {
                    index,
                    line: None,
                    seq: event.seq,
                    previous,
                });
            }
        }
        previous = Some(event.seq);
    }
    Ok(())
}

/// About the bytes a prepend of `page` events allocates apart from the window's events: a new
/// analysis of the page (and of the window until the two walks converge), at most 64 MiB.
fn prepend_allocations(page: usize) -> usize {
    const PER_EVENT: usize = 512;
    const FIXED: usize = 4 << 20;
    const MOST: usize = 64 << 20;
    page.saturating_mul(PER_EVENT)
        .saturating_add(FIXED)
        .min(MOST)
}

/// The allocations of `event`'s payload, each counted by its share (an `Rc` shared by `n`
/// owners counts `1/n` of its bytes here).
#[cfg(feature = "testkit")]
fn event_payload(event: &SessionEvent, profile: &mut crate::heap::HeapProfile) {
    use std::mem::size_of;
    use std::rc::Rc;
    match &event.kind {
        EventKind::SystemMessage { text, .. } => {
            profile.shared("system texts", text.len(), Rc::strong_count(text));
        }
        EventKind::RequestHeader(header) => {
            let size = size_of::<crate::input::event::RequestHeader>();
            profile.shared("request headers", size, Rc::strong_count(header));
        }
        EventKind::Message(message) => {
            if let Some(usage) = &message.usage {
                profile.shared("usage", size_of::<JsonValue>(), Rc::strong_count(usage));
            }
        }
        _ => {}
    }
}
