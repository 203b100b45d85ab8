//! The cache ledger of a session file read once, forward: bytes in as [`Conversation::feed`]
//! takes them, each request's [`CacheEntry`] out as soon as its read point has passed, and no
//! event or per-event state kept.
//!
//! [`Conversation::feed`]: crate::Conversation::feed

use crate::error::Error;
use crate::input::event::{EventKind, Seq};
use crate::input::intern::JsonInterner;
use crate::input::json::JsonValue;
use crate::input::parse::fed::{complete_lines, copy_bytes, keep_bytes};
use crate::input::parse::framing::{Framing, Numbering};
use crate::input::parse::parse_fed_lines;
use crate::input::parse::row_lines::{locate, Layout};
use crate::input::text::JsonText;
use crate::views::cache::forward::Forward;
use crate::views::cache::{CacheEntry, CacheLedger, CacheOptions};
use crate::window::conversation::check_ascending;

/// The cache ledger of a session log read forward only, in pieces, from its first line: what
/// [`Conversation::cache_ledger`] gives for the same text fed to [`Conversation::feed`], without
/// the window. It keeps the surface nodes that survive at the latest event (with their token
/// sums), the latest request header, what happened since the last request's read point and
/// that request's facts; its memory follows the live context (a compaction shrinks it), not
/// the file (docs/cache.md, "Reading forward only").
///
/// ```
/// use promptfold::{CacheOptions, Conversation, LedgerStream};
///
/// let log = "{\"type\":\"session\",\"version\":4,\"id\":\"s-1\"}\n\
///   {\"seq\":1,\"time\":1,\"type\":\"step/start\",\"data\":{\"turn\":1,\"step\":1}}\n\
///   {\"seq\":2,\"time\":2,\"type\":\"user/message\",\"surfaceOp\":\"append\",\
///    \"data\":{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"Hi\"}]}}\n\
///   {\"seq\":3,\"time\":3,\"type\":\"step/start\",\"data\":{\"turn\":1,\"step\":2}}\n";
/// let options = CacheOptions::default();
/// let mut stream = LedgerStream::new(&options)?;
/// let mut entries = Vec::new();
/// for piece in log.as_bytes().chunks(16) {
///     stream.feed(piece)?;
///     // The first request's entry is out once step 2 has started.
///     entries.extend(stream.take_entries());
/// }
/// assert_eq!(entries.len(), 1);
/// let rest = stream.finish();
/// entries.extend(rest.requests);
/// assert_eq!(rest.summary.requests, 2);
///
/// // The same as the window's ledger of the same text.
/// let mut conversation = Conversation::new();
/// conversation.feed(log)?;
/// assert_eq!(entries, conversation.cache_ledger(&options)?.requests);
/// # Ok::<(), promptfold::Error>(())
/// ```
///
/// [`Conversation::cache_ledger`]: crate::Conversation::cache_ledger
/// [`Conversation::feed`]: crate::Conversation::feed
#[derive(Clone, Debug)]
pub struct LedgerStream {
    ledger: Forward,
    interner: JsonInterner,
    session: Option<JsonValue>,
    numbering: Numbering,
    /// The incomplete last line of the text read so far.
    unfinished: Vec<u8>,
    /// Lines read so far (for line numbers in errors).
    lines_read: usize,
    /// Rows read so far (for row indexes in errors).
    rows_read: usize,
    last_seq: Option<Seq>,
    events: u64,
    known_events: u64,
}

impl LedgerStream {
    /// An empty stream whose entries follow `options`; an invalid option (a negative or
    /// non-finite price or TTL) is an `INVALID_ARGUMENT` error.
    pub fn new(options: &CacheOptions) -> Result<LedgerStream, Error> {
        options.check()?;
        Ok(LedgerStream {
            ledger: Forward::new(options),
            interner: JsonInterner::default(),
            session: None,
            numbering: Numbering::default(),
            unfinished: Vec::new(),
            lines_read: 0,
            rows_read: 0,
            last_seq: None,
            events: 0,
            known_events: 0,
        })
    }

    /// Reads the next piece of the log's text (JSON lines; a string, or bytes as [`JsonText`]
    /// takes them), cut anywhere, as [`Conversation::feed`] reads it: the events of the lines
    /// it completes are folded (the first row may be the session header), the incomplete rest
    /// is kept for the next call. All or nothing: on an error (the errors of
    /// [`Conversation::feed`], at the same rows) nothing of the piece is folded.
    ///
    /// [`Conversation::feed`]: crate::Conversation::feed
    pub fn feed<'a>(&mut self, chunk: impl Into<JsonText<'a>>) -> Result<(), Error> {
        let chunk = chunk.into();
        let chunk = chunk.as_bytes();
        let Some((lines, rest)) = complete_lines(&self.unfinished, chunk)? else {
            keep_bytes(&mut self.unfinished, chunk)?;
            return Ok(());
        };
        let rest = copy_bytes(rest)?;
        let framing = Framing {
            header: self.events == 0 && self.session.is_none(),
            numbering: self.numbering,
            torn_tail: false,
            first_row: 0,
        };
        // Errors point at the row and line counted from the first byte fed.
        let (lines_before, rows_before) = (self.lines_read, self.rows_read);
        let locate = |error| locate(error, &lines, Layout::Lines).after(lines_before, rows_before);
        let rows = parse_fed_lines(&lines, &mut self.interner, framing).map_err(locate)?;
        check_ascending(&rows.events, self.last_seq).map_err(|error| locate(rows.at_row(error)))?;
        for event in &rows.events {
            self.ledger.fold(event);
            if !matches!(event.kind, EventKind::Other) {
                self.known_events = self.known_events.saturating_add(1);
            }
        }
        if let Some(last) = rows.events.last() {
            self.last_seq = Some(last.seq);
        }
        self.events = self.events.saturating_add(rows.events.len() as u64);
        self.rows_read = self.rows_read.saturating_add(rows.given());
        if rows.session.is_some() {
            self.session = rows.session;
        }
        self.numbering = rows.numbering;
        self.lines_read = self.lines_read.saturating_add(rows.lines);

        self.unfinished = rest;
        Ok(())
    }

    /// Takes the entries made so far and not taken yet, in request order: every request whose
    /// read point has passed (its answer, or the next step start, has been read). The entries
    /// are taken when the call is made: those the iterator is dropped before giving are gone.
    pub fn take_entries(&mut self) -> impl Iterator<Item = CacheEntry> + '_ {
        self.ledger.ready().drain(..)
    }

    /// Ends the log: the last request is read at the last event, and the ledger holds the
    /// entries not taken by [`LedgerStream::take_entries`] and the summary over every request.
    /// The incomplete last line, if any, is left out (feed `"\n"` first to read it).
    pub fn finish(mut self) -> CacheLedger {
        let summary = self.ledger.finish();
        CacheLedger {
            requests: std::mem::take(self.ledger.ready()),
            summary,
        }
    }

    /// The session header the log began with, if it had one.
    pub fn session(&self) -> Option<&JsonValue> {
        self.session.as_ref()
    }

    /// The bytes of the incomplete last line kept for the next [`LedgerStream::feed`].
    pub fn unfinished_line(&self) -> &[u8] {
        &self.unfinished
    }

    /// The number of events read.
    pub fn events_read(&self) -> u64 {
        self.events
    }

    /// The number of events read whose type the rules know (not `EventKind::Other`).
    pub fn known_events_read(&self) -> u64 {
        self.known_events
    }
}
