//! The one error type of the crate.

use crate::seq::Seq;

/// What went wrong with a batch of events. A failed call leaves the window exactly as it was.
///
/// `index` is the position of the offending row in the batch passed to the call (0-based, the
/// session header and skipped rows included); `line` is the 1-based line of the text where that
/// row starts, when the batch was given as text (`None` for events given as values); `seq` is
/// its seq when it has a usable one. For [`Conversation::feed`](crate::Conversation::feed)
/// both count from the start of the text the window was read from (every piece fed so far).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The text is not valid JSON (or a line of JSON lines is not).
    #[error("malformed JSON at line {line}, column {column}: {message}")]
    MalformedJson {
        /// 1-based line of the error.
        line: usize,
        /// 1-based column of the error.
        column: usize,
        /// The parser's description.
        message: String,
    },
    /// The input is valid JSON but not an array of events (nor JSON lines of event objects).
    #[error("expected an array of events, found {found}")]
    NotAnArray {
        /// What was found instead (`object`, `string`, ...).
        found: String,
    },
    /// An element of the batch is not an object.
    #[error("{}event {index}: expected an event object, found {found}", AtLine(*.line))]
    NotAnObject {
        /// Position in the batch.
        index: usize,
        /// The 1-based line of the text the caller gave where the row starts; `None` for
        /// events given as values.
        line: Option<usize>,
        /// What was found instead.
        found: String,
    },
    /// An event has no `seq`.
    #[error("{}event {index}: missing seq", AtLine(*.line))]
    MissingSeq {
        /// Position in the batch.
        index: usize,
        /// The 1-based line of the text the caller gave where the row starts; `None` for
        /// events given as values.
        line: Option<usize>,
    },
    /// An event's `seq` is not a safe integer.
    #[error("{}event {index}: seq must be an integer between -(2^53-1) and 2^53-1, found {found}", AtLine(*.line))]
    InvalidSeq {
        /// Position in the batch.
        index: usize,
        /// The 1-based line of the text the caller gave where the row starts; `None` for
        /// events given as values.
        line: Option<usize>,
        /// The offending value, as text.
        found: String,
    },
    /// An event's `seq` is not greater than the one before it.
    #[error("{}event {index} (seq {seq}): seq must be greater than the previous seq {previous}", AtLine(*.line))]
    NonIncreasingSeq {
        /// Position in the batch.
        index: usize,
        /// The 1-based line of the text the caller gave where the row starts; `None` for
        /// events given as values.
        line: Option<usize>,
        /// The event's seq.
        seq: Seq,
        /// The seq it must exceed.
        previous: Seq,
    },
    /// A prepended page reaches the window: its events must all be older than the window start.
    #[error("{}event {index} (seq {seq}): a prepended page must end before the window start {window_start}", AtLine(*.line))]
    PrependNotOlder {
        /// Position in the batch.
        index: usize,
        /// The 1-based line of the text the caller gave where the row starts; `None` for
        /// events given as values.
        line: Option<usize>,
        /// The event's seq.
        seq: Seq,
        /// The window's first seq.
        window_start: Seq,
    },
    /// An event's `surfaceOp` is neither `"append"` nor `{op: "replace", startSeq, endSeq}` with
    /// integer endpoints older than the event.
    #[error("{}event {index} (seq {seq}): invalid surfaceOp: {reason}", AtLine(*.line))]
    InvalidSurfaceOp {
        /// Position in the batch.
        index: usize,
        /// The 1-based line of the text the caller gave where the row starts; `None` for
        /// events given as values.
        line: Option<usize>,
        /// The event's seq.
        seq: Seq,
        /// What is wrong with it.
        reason: String,
    },
    /// A member of an event that is read holds a value JSON cannot write: a BigInt, a cycle,
    /// or a getter that throws (a function or a symbol is left out, as `JSON.stringify` leaves
    /// it). Only the JS calls that take objects return it (the `wasm` feature); Rust's calls
    /// take text or parsed events.
    #[error("{}event {index}: unsupported value: {message}", AtLine(*.line))]
    UnsupportedValue {
        /// Position in the batch.
        index: usize,
        /// The 1-based line of the text the caller gave where the row starts; `None` for
        /// events given as values.
        line: Option<usize>,
        /// What the reader said.
        message: String,
    },
    /// An argument other than the events has the wrong shape.
    #[error("invalid argument `{argument}`: {message}")]
    InvalidArgument {
        /// The argument's name.
        argument: String,
        /// What is wrong with it.
        message: String,
    },
    /// The session header names a log format older than the rules read (format 0 to 2: the
    /// prompt sits in request headers and replace endpoints are spelled differently; the harness
    /// migrates such logs when it opens them).
    #[error("{}row {index}: session log format version {version} is not supported (versions 3 and later are; open the session with the harness once to migrate it)", AtLine(*.line))]
    UnsupportedFormatVersion {
        /// Position of the header row in the batch.
        index: usize,
        /// The 1-based line of the text the caller gave where the row starts; `None` for
        /// events given as values.
        line: Option<usize>,
        /// The header's `version`.
        version: i64,
    },
    /// A source opened as a session log (the npm package's `openSession`) held neither a session
    /// header nor an event: not a session log at all, e.g. one JSON object cut off on its only
    /// line. Only JS's `openSession` returns it; no Rust call does.
    #[error("not a session log: {bytes} bytes read, with no session header and no complete event (a session log is JSON lines, one event a line, after a `type: \"session\"` header)")]
    NotASessionLog {
        /// The bytes of text read.
        bytes: u64,
    },
    /// The memory cannot hold what the call needs (wasm32 addresses 4 GiB at most); the
    /// window is unchanged and stays usable.
    #[error("out of memory: the call needs about {bytes} more bytes than the memory can give (wasm32 holds at most 4 GiB); the window is unchanged")]
    OutOfMemory {
        /// The bytes that could not be had, as one block.
        bytes: u64,
    },
    /// `inspect_request_prompt` was given an event that is not a `request/header`.
    #[error("event seq {seq} is not a request/header")]
    NotARequestHeader {
        /// The event's seq.
        seq: Seq,
    },
}

impl Error {
    /// A stable, machine-readable code for the error class (`"NON_INCREASING_SEQ"`, ...).
    pub fn code(&self) -> &'static str {
        match self {
            Error::MalformedJson { .. } => "MALFORMED_JSON",
            Error::NotAnArray { .. } => "NOT_AN_ARRAY",
            Error::NotAnObject { .. } => "NOT_AN_OBJECT",
            Error::MissingSeq { .. } => "MISSING_SEQ",
            Error::InvalidSeq { .. } => "INVALID_SEQ",
            Error::NonIncreasingSeq { .. } => "NON_INCREASING_SEQ",
            Error::PrependNotOlder { .. } => "PREPEND_NOT_OLDER",
            Error::InvalidSurfaceOp { .. } => "INVALID_SURFACE_OP",
            Error::UnsupportedValue { .. } => "UNSUPPORTED_VALUE",
            Error::InvalidArgument { .. } => "INVALID_ARGUMENT",
            Error::NotARequestHeader { .. } => "NOT_A_REQUEST_HEADER",
            Error::UnsupportedFormatVersion { .. } => "UNSUPPORTED_FORMAT_VERSION",
            Error::NotASessionLog { .. } => "NOT_A_SESSION_LOG",
            Error::OutOfMemory { .. } => "OUT_OF_MEMORY",
        }
    }

    /// The position of the offending event in the batch, when the error names one.
    pub fn index(&self) -> Option<usize> {
        match self {
            Error::NotAnObject { index, .. }
            | Error::MissingSeq { index, .. }
            | Error::InvalidSeq { index, .. }
            | Error::NonIncreasingSeq { index, .. }
            | Error::PrependNotOlder { index, .. }
            | Error::InvalidSurfaceOp { index, .. }
            | Error::UnsupportedValue { index, .. }
            | Error::UnsupportedFormatVersion { index, .. } => Some(*index),
            Error::MalformedJson { .. }
            | Error::NotAnArray { .. }
            | Error::InvalidArgument { .. }
            | Error::NotASessionLog { .. }
            | Error::OutOfMemory { .. }
            | Error::NotARequestHeader { .. } => None,
        }
    }

    /// The seq of the offending event, when it has a usable one.
    pub fn seq(&self) -> Option<Seq> {
        match self {
            Error::NonIncreasingSeq { seq, .. }
            | Error::PrependNotOlder { seq, .. }
            | Error::InvalidSurfaceOp { seq, .. }
            | Error::NotARequestHeader { seq } => Some(*seq),
            _ => None,
        }
    }

    /// The 1-based line of the text the error points at: where the offending row starts, or
    /// where the JSON is malformed. `None` for events given as values and for errors that name
    /// no row.
    pub fn line(&self) -> Option<usize> {
        match self {
            Error::MalformedJson { line, .. } => Some(*line),
            _ => self.row_line().and_then(|line| *line),
        }
    }

    /// The `line` field of a variant that names a row.
    fn row_line(&self) -> Option<&Option<usize>> {
        match self {
            Error::NotAnObject { line, .. }
            | Error::MissingSeq { line, .. }
            | Error::InvalidSeq { line, .. }
            | Error::NonIncreasingSeq { line, .. }
            | Error::PrependNotOlder { line, .. }
            | Error::InvalidSurfaceOp { line, .. }
            | Error::UnsupportedValue { line, .. }
            | Error::UnsupportedFormatVersion { line, .. } => Some(line),
            Error::MalformedJson { .. }
            | Error::NotAnArray { .. }
            | Error::InvalidArgument { .. }
            | Error::NotASessionLog { .. }
            | Error::OutOfMemory { .. }
            | Error::NotARequestHeader { .. } => None,
        }
    }

    /// The same error with the line of its row (when it names one) set to what `locate` finds
    /// for its index: the error path of a batch read from text.
    pub(crate) fn located(mut self, locate: impl FnOnce(usize) -> Option<usize>) -> Error {
        let index = self.index();
        match &mut self {
            Error::NotAnObject { line, .. }
            | Error::MissingSeq { line, .. }
            | Error::InvalidSeq { line, .. }
            | Error::NonIncreasingSeq { line, .. }
            | Error::PrependNotOlder { line, .. }
            | Error::InvalidSurfaceOp { line, .. }
            | Error::UnsupportedValue { line, .. }
            | Error::UnsupportedFormatVersion { line, .. } => *line = index.and_then(locate),
            Error::MalformedJson { .. }
            | Error::NotAnArray { .. }
            | Error::InvalidArgument { .. }
            | Error::NotASessionLog { .. }
            | Error::OutOfMemory { .. }
            | Error::NotARequestHeader { .. } => {}
        }
        self
    }

    /// The same error, found in text that starts after `lines` lines and `rows` rows of what
    /// the caller gave.
    pub(crate) fn after(mut self, lines: usize, rows: usize) -> Error {
        if let Error::MalformedJson { line, .. } = &mut self {
            *line = line.saturating_add(lines);
        }
        let line = self.line().map(|line| line.saturating_add(lines));
        self.located(|_| line)
            .with_index(|index| index.saturating_add(rows))
    }

    /// The same error with its `index` (when it has one) mapped by `map`.
    pub(crate) fn with_index(mut self, map: impl FnOnce(usize) -> usize) -> Error {
        match &mut self {
            Error::NotAnObject { index, .. }
            | Error::MissingSeq { index, .. }
            | Error::InvalidSeq { index, .. }
            | Error::NonIncreasingSeq { index, .. }
            | Error::PrependNotOlder { index, .. }
            | Error::InvalidSurfaceOp { index, .. }
            | Error::UnsupportedValue { index, .. }
            | Error::UnsupportedFormatVersion { index, .. } => *index = map(*index),
            Error::MalformedJson { .. }
            | Error::NotAnArray { .. }
            | Error::InvalidArgument { .. }
            | Error::NotASessionLog { .. }
            | Error::OutOfMemory { .. }
            | Error::NotARequestHeader { .. } => {}
        }
        self
    }
}

/// `line N: ` before the message of an error that names a row of text, nothing otherwise.
struct AtLine(Option<usize>);

impl std::fmt::Display for AtLine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.0 {
            Some(line) => write!(f, "line {line}: "),
            None => Ok(()),
        }
    }
}
