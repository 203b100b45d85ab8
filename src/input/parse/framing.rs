//! Session-log framing (BEHAVIOUR.md section 10): which rows of a batch are events. The first
//! row of a batch that starts a window or a page may be the session header; an SDK notification
//! row stands for the event it carries, or for nothing; a seq-less log numbers its events; a
//! torn last line of JSON lines is reported, not read.

use serde::Serialize;

use super::Kind;
use crate::error::Error;
use crate::input::binary::binary_error;
use crate::input::event::{Seq, SessionEvent};
use crate::input::json::JsonValue;

/// The oldest session-log format version the rules read: older logs keep the prompt in request
/// headers and spell replace endpoints differently (the harness migrates them when it opens them).
pub const OLDEST_FORMAT_VERSION: i64 = 3;

/// How the events of a window are numbered.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Numbering {
    /// No event read yet: the first event decides.
    #[default]
    Undecided,
    /// Every event carries its seq.
    Given,
    /// A seq-less log: each event's seq is its index among the log's events; the next event
    /// gets this one.
    Index(Seq),
}

/// A last line of JSON lines that is not JSON and has no line end after it: a writer stopped
/// mid-line. The rows before it load; it is left out.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[non_exhaustive]
pub struct TornTail {
    /// Its 1-based line number in the text.
    pub line: usize,
    /// Its length in UTF-8 bytes.
    pub bytes: usize,
}

/// What the window tells the reader of a batch.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Framing {
    /// The batch's first row may be the session header.
    pub header: bool,
    /// How the batch's events are numbered, as the window stands.
    pub numbering: Numbering,
    /// A torn last line of JSON lines text is reported instead of failing the batch.
    pub torn_tail: bool,
    /// The batch's rows start at this row of what the caller gave (rows taken off before).
    pub first_row: usize,
}

impl Framing {
    /// The framing of a batch that starts a log: a header may come first, the first event
    /// decides the numbering, and a torn tail fails.
    pub fn log_start() -> Framing {
        Framing {
            header: true,
            ..Framing::default()
        }
    }
}

/// A batch as the rules of framing read it.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Rows {
    /// The events, in batch order.
    pub events: Vec<SessionEvent>,
    /// The session header, when the batch's first row is one.
    pub session: Option<JsonValue>,
    /// The numbering after the batch.
    pub numbering: Numbering,
    /// The torn last line, when there is one (and the framing allows it).
    pub torn_tail: Option<TornTail>,
    /// The rows of the batch as given that are not events (the header, notifications without an
    /// event), ascending.
    pub skipped: Vec<usize>,
    /// The torn last line's bytes (empty without one).
    pub torn_text: Vec<u8>,
    /// The line ends in the text read (0 for a batch of JS values).
    pub lines: usize,
}

impl Rows {
    /// The row of the batch as given where event `index` stands.
    pub fn row_of(&self, index: usize) -> usize {
        let mut row = index;
        for skipped in &self.skipped {
            if *skipped <= row {
                row = row.saturating_add(1);
            } else {
                break;
            }
        }
        row
    }

    /// The rows of the batch as given: its events and the rows that are none.
    pub fn given(&self) -> usize {
        self.events.len().saturating_add(self.skipped.len())
    }

    /// `error`, found by the window at event `index` of this batch, pointing at the row as given.
    pub fn at_row(&self, error: Error) -> Error {
        error.with_index(|index| self.row_of(index))
    }
}

/// The framing state of a batch being read: rows counted as given, the header found, the
/// numbering so far.
#[derive(Debug, Default)]
pub(crate) struct Frame {
    framing: Framing,
    /// Rows read so far (after `framing.first_row`).
    rows: usize,
    pub session: Option<JsonValue>,
    pub numbering: Numbering,
    pub skipped: Vec<usize>,
}

/// What a row is.
pub(crate) enum Row<T> {
    /// An event (the row itself, or the event a notification carries).
    Event(T),
    /// Not an event: the header, or a notification that carries none.
    Skipped,
}

impl Frame {
    /// The state at the start of a batch read with `framing`.
    pub fn new(framing: Framing) -> Frame {
        Frame {
            framing,
            rows: 0,
            session: None,
            numbering: framing.numbering,
            skipped: Vec::new(),
        }
    }

    /// The index, as given, of the next row; counts it.
    pub fn next_row(&mut self) -> usize {
        let row = self.framing.first_row.saturating_add(self.rows);
        self.rows = self.rows.saturating_add(1);
        row
    }

    /// Whether the row just counted is the batch's first and may be the header.
    pub fn may_be_header(&self) -> bool {
        self.framing.header && self.rows == 1 && self.session.is_none()
    }

    /// Keeps `header` (the JSON of row `row`) as the session header, unless its format version
    /// is too old.
    pub fn header(&mut self, row: usize, header: JsonValue) -> Result<(), Error> {
        check_version(row, &header)?;
        self.session = Some(header);
        self.skip(row);
        Ok(())
    }

    /// Counts row `row` as no event.
    pub fn skip(&mut self, row: usize) {
        self.skipped.push(row);
    }

    /// Whether a torn last line is reported.
    pub fn allows_torn_tail(&self) -> bool {
        self.framing.torn_tail
    }

    /// The seq of the event at `row` whose `seq` member is `given`, under the numbering so far
    /// (a seq-less log numbers its events; its first event decides).
    pub fn seq(&mut self, row: usize, given: &Kind) -> Result<Seq, Error> {
        let read = |given: &Kind| {
            given.safe_integer().ok_or_else(|| Error::InvalidSeq {
                index: row,
                line: None,
                found: given.describe(),
            })
        };
        match (given, self.numbering) {
            (Kind::Absent, Numbering::Given) => Err(Error::MissingSeq {
                index: row,
                line: None,
            }),
            (Kind::Absent, Numbering::Undecided) => {
                self.numbering = Numbering::Index(1);
                Ok(0)
            }
            (Kind::Absent, Numbering::Index(next)) => {
                self.numbering = Numbering::Index(next.saturating_add(1));
                Ok(next)
            }
            (given, Numbering::Given) => read(given),
            (given, Numbering::Undecided) => {
                let seq = read(given)?;
                self.numbering = Numbering::Given;
                Ok(seq)
            }
            (given, Numbering::Index(_)) => Err(Error::InvalidSeq {
                index: row,
                line: None,
                found: format!(
                    "{} in a seq-less log (its events have none)",
                    given.describe()
                ),
            }),
        }
    }

    /// The framing found, with `events` and the torn last line (its place and its bytes).
    pub fn finish(self, events: Vec<SessionEvent>, torn: Option<(TornTail, Vec<u8>)>) -> Rows {
        let (torn_tail, torn_text) = match torn {
            Some((tail, text)) => (Some(tail), text),
            None => (None, Vec::new()),
        };
        Rows {
            events,
            session: self.session,
            numbering: self.numbering,
            torn_tail,
            skipped: self.skipped,
            torn_text,
            lines: 0,
        }
    }
}

/// Fails when `header`'s `version` is an integer below [`OLDEST_FORMAT_VERSION`].
pub(crate) fn check_version(row: usize, header: &JsonValue) -> Result<(), Error> {
    let version = header
        .as_object()
        .and_then(|members| members.get("version"))
        .and_then(|version| match version {
            JsonValue::Number(number) => crate::input::event::safe_integer(*number),
            _ => None,
        });
    match version {
        Some(version) if version < OLDEST_FORMAT_VERSION => Err(Error::UnsupportedFormatVersion {
            index: row,
            line: None,
            version,
        }),
        _ => Ok(()),
    }
}

/// The byte order mark a text may start with.
pub(crate) const BOM: &str = "\u{feff}";

/// `text` without a leading byte order mark.
pub(crate) fn without_bom(text: &str) -> &str {
    text.strip_prefix(BOM).unwrap_or(text)
}

/// `bytes` as UTF-8 text for a JSON batch. When the text is not UTF-8 only in its last line (a
/// writer stopped inside a character) and `torn_tail` allows it, the text before that line and
/// the torn tail; any other bytes that are not UTF-8 are [`Error::MalformedJson`].
pub(crate) fn text_of_bytes(
    bytes: &[u8],
    torn_tail: bool,
) -> Result<(&str, Option<TornTail>), Error> {
    let error = match std::str::from_utf8(bytes) {
        Ok(text) => return Ok((text, None)),
        Err(error) => error,
    };
    let valid = error.valid_up_to();
    let line_start = bytes
        .iter()
        .rposition(|byte| *byte == b'\n')
        .map_or(0, |newline| newline.saturating_add(1));
    let prefix = bytes.get(..line_start).unwrap_or_default();
    let newlines = prefix.iter().filter(|byte| **byte == b'\n').count();
    let starts_lines = bytes
        .strip_prefix(BOM.as_bytes())
        .unwrap_or(bytes)
        .iter()
        .find(|byte| !matches!(byte, b' ' | b'\n' | b'\r' | b'\t'))
        .is_some_and(|first| *first == b'{');
    if torn_tail && valid >= line_start && starts_lines {
        if let Ok(text) = std::str::from_utf8(prefix) {
            let tail = TornTail {
                line: newlines.saturating_add(1),
                bytes: bytes.len().saturating_sub(line_start),
            };
            return Ok((text, Some(tail)));
        }
    }
    let valid_prefix = bytes.get(..valid).unwrap_or_default();
    let line = valid_prefix
        .iter()
        .filter(|byte| **byte == b'\n')
        .count()
        .saturating_add(1);
    // Binary data (a gzip or PNG file) says so rather than "invalid UTF-8".
    let failing_line = valid_prefix
        .iter()
        .rposition(|byte| *byte == b'\n')
        .map_or(0, |newline| newline.saturating_add(1));
    if let Some(error) = binary_error(
        bytes.get(failing_line..).unwrap_or_default(),
        line,
        Some(valid.saturating_sub(failing_line)),
    ) {
        return Err(error);
    }
    Err(Error::MalformedJson {
        line,
        column: 0,
        message: format!("invalid UTF-8: {error}"),
    })
}
