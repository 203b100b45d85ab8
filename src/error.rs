//! The one error type of the crate.

use std::fmt;

use crate::seq::Seq;

/// What went wrong with a batch of events. A failed call leaves the window exactly as it was.
///
/// `index` is the position of the offending row in the batch passed to the call (0-based, the
/// session header and skipped rows included); `line` is the 1-based line of the text where that
/// row starts, when the batch was given as text (`None` for events given as values); `seq` is
/// its seq when it has a usable one. For [`Conversation::feed`](crate::Conversation::feed)
/// both count from the start of the text the window was read from (every piece fed so far).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Error {
    /// The text is not valid JSON (or a line of JSON lines is not).
    MalformedJson {
        /// 1-based line of the error.
        line: usize,
        /// 1-based column of the error.
        column: usize,
        /// The parser's description.
        message: String,
    },
    /// The input is valid JSON but not an array of events (nor JSON lines of event objects).
    NotAnArray {
        /// What was found instead (`object`, `string`, ...).
        found: String,
    },
    /// An element of the batch is not an object.
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
    MissingSeq {
        /// Position in the batch.
        index: usize,
        /// The 1-based line of the text the caller gave where the row starts; `None` for
        /// events given as values.
        line: Option<usize>,
    },
    /// An event's `seq` is not a safe integer.
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
    InvalidArgument {
        /// The argument's name.
        argument: String,
        /// What is wrong with it.
        message: String,
    },
    /// The session header names a log format older than the rules read (format 0 to 2: the
    /// prompt sits in request headers and replace endpoints are spelled differently; the harness
    /// migrates such logs when it opens them).
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
    NotASessionLog {
        /// The bytes of text read.
        bytes: u64,
    },
    /// The memory cannot hold what the call needs (wasm32 addresses 4 GiB at most); the
    /// window is unchanged and stays usable.
    OutOfMemory {
        /// The bytes that could not be had, as one block.
        bytes: u64,
    },
    /// `inspect_request_prompt` was given an event that is not a `request/header`.
    NotARequestHeader {
        /// The event's seq.
        seq: Seq,
    },
}

/// `Some((index, line))` of the variants that name a row, borrowed as `$error` is (shared or
/// mutable), `None` for the others: the one list of those variants, for `row` and `row_mut`.
macro_rules! row_fields {
    ($error:expr) => {
        match $error {
            Error::NotAnObject { index, line, .. }
            | Error::MissingSeq { index, line }
            | Error::InvalidSeq { index, line, .. }
            | Error::NonIncreasingSeq { index, line, .. }
            | Error::PrependNotOlder { index, line, .. }
            | Error::InvalidSurfaceOp { index, line, .. }
            | Error::UnsupportedValue { index, line, .. }
            | Error::UnsupportedFormatVersion { index, line, .. } => Some((index, line)),
            Error::MalformedJson { .. }
            | Error::NotAnArray { .. }
            | Error::InvalidArgument { .. }
            | Error::NotASessionLog { .. }
            | Error::OutOfMemory { .. }
            | Error::NotARequestHeader { .. } => None,
        }
    };
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
        self.row().map(|(index, _)| index)
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
            _ => self.row().and_then(|(_, line)| line),
        }
    }

    /// The `index` and `line` of a variant that names a row.
    fn row(&self) -> Option<(usize, Option<usize>)> {
        row_fields!(self).map(|(index, line)| (*index, *line))
    }

    /// The `index` and `line` of a variant that names a row, to change them.
    fn row_mut(&mut self) -> Option<(&mut usize, &mut Option<usize>)> {
        row_fields!(self)
    }

    /// The same error with the line of its row (when it names one) set to what `locate` finds
    /// for its index: the error path of a batch read from text.
    pub(crate) fn located(mut self, locate: impl FnOnce(usize) -> Option<usize>) -> Error {
        if let Some((index, line)) = self.row_mut() {
            *line = locate(*index);
        }
        self
    }

    /// The same error, found in text that starts after `lines` lines and `rows` rows of what
    /// the caller gave.
    pub(crate) fn after(mut self, lines: usize, rows: usize) -> Error {
        if let Error::MalformedJson { line, .. } = &mut self {
            *line = line.saturating_add(lines);
        }
        if let Some((index, line)) = self.row_mut() {
            *index = index.saturating_add(rows);
            *line = line.map(|line| line.saturating_add(lines));
        }
        self
    }

    /// The same error with its `index` (when it has one) mapped by `map`.
    pub(crate) fn with_index(mut self, map: impl FnOnce(usize) -> usize) -> Error {
        if let Some((index, _)) = self.row_mut() {
            *index = map(*index);
        }
        self
    }
}

impl std::error::Error for Error {}

// Written by hand rather than derived: the row's prefix (`line N: event I (seq S): `) is
// written once for the eight variants that name a row, not once in each of their messages; the
// release wasm is 60 bytes smaller for it (bench/notes/20-size.md).
impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some((index, line)) = self.row() {
            if let Some(line) = line {
                write!(f, "line {line}: ")?;
            }
            let noun = match self {
                Error::UnsupportedFormatVersion { .. } => "row",
                _ => "event",
            };
            match self.seq() {
                Some(seq) => write!(f, "{noun} {index} (seq {seq}): ")?,
                None => write!(f, "{noun} {index}: ")?,
            }
        }
        match self {
            Error::MalformedJson {
                line,
                column,
                message,
            } => write!(
                f,
                "malformed JSON at line {line}, column {column}: {message}"
            ),
            Error::NotAnArray { found } => write!(f, "expected an array of events, found {found}"),
            Error::NotAnObject { found, .. } => {
                write!(f, "expected an event object, found {found}")
            }
            Error::MissingSeq { .. } => f.write_str("missing seq"),
            Error::InvalidSeq { found, .. } => write!(
                f,
                "seq must be an integer between -(2^53-1) and 2^53-1, found {found}"
            ),
            Error::NonIncreasingSeq { previous, .. } => {
                write!(f, "seq must be greater than the previous seq {previous}")
            }
            Error::PrependNotOlder { window_start, .. } => write!(
                f,
                "a prepended page must end before the window start {window_start}"
            ),
            Error::InvalidSurfaceOp { reason, .. } => write!(f, "invalid surfaceOp: {reason}"),
            Error::UnsupportedValue { message, .. } => write!(f, "unsupported value: {message}"),
            Error::InvalidArgument { argument, message } => {
                write!(f, "invalid argument `{argument}`: {message}")
            }
            Error::UnsupportedFormatVersion { version, .. } => write!(
                f,
                "session log format version {version} is not supported (versions 3 and later \
                 are; open the session with the harness once to migrate it)"
            ),
            Error::NotASessionLog { bytes } => write!(
                f,
                "not a session log: {bytes} bytes read, with no session header and no complete \
                 event (a session log is JSON lines, one event a line, after a `type: \"session\"` \
                 header)"
            ),
            Error::OutOfMemory { bytes } => write!(
                f,
                "out of memory: the call needs about {bytes} more bytes than the memory can give \
                 (wasm32 holds at most 4 GiB); the window is unchanged"
            ),
            Error::NotARequestHeader { seq } => {
                write!(f, "event seq {seq} is not a request/header")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Error;

    /// Every variant that names a row, with `line` as given.
    fn rows(line: Option<usize>) -> Vec<Error> {
        vec![
            Error::NotAnObject {
                index: 4,
                line,
                found: "string".to_owned(),
            },
            Error::MissingSeq { index: 4, line },
            Error::InvalidSeq {
                index: 4,
                line,
                found: "1.5".to_owned(),
            },
            Error::NonIncreasingSeq {
                index: 4,
                line,
                seq: -3,
                previous: 9,
            },
            Error::PrependNotOlder {
                index: 4,
                line,
                seq: 12,
                window_start: 10,
            },
            Error::InvalidSurfaceOp {
                index: 4,
                line,
                seq: 12,
                reason: "`op` must be a string".to_owned(),
            },
            Error::UnsupportedValue {
                index: 4,
                line,
                message: "a BigInt".to_owned(),
            },
            Error::UnsupportedFormatVersion {
                index: 4,
                line,
                version: 2,
            },
        ]
    }

    /// The variants that name no row.
    fn others() -> Vec<Error> {
        vec![
            Error::MalformedJson {
                line: 3,
                column: 17,
                message: "expected `,`".to_owned(),
            },
            Error::NotAnArray {
                found: "object".to_owned(),
            },
            Error::InvalidArgument {
                argument: "options".to_owned(),
                message: "expected an object".to_owned(),
            },
            Error::NotASessionLog { bytes: 1234 },
            Error::OutOfMemory { bytes: 1 << 33 },
            Error::NotARequestHeader { seq: -8 },
        ]
    }

    const ROW_TEXTS: [&str; 8] = [
        "event 4: expected an event object, found string",
        "event 4: missing seq",
        "event 4: seq must be an integer between -(2^53-1) and 2^53-1, found 1.5",
        "event 4 (seq -3): seq must be greater than the previous seq 9",
        "event 4 (seq 12): a prepended page must end before the window start 10",
        "event 4 (seq 12): invalid surfaceOp: `op` must be a string",
        "event 4: unsupported value: a BigInt",
        "row 4: session log format version 2 is not supported (versions 3 and later are; open the \
         session with the harness once to migrate it)",
    ];

    #[test]
    fn messages_of_rows_without_a_line() {
        let texts: Vec<String> = rows(None).iter().map(Error::to_string).collect();
        assert_eq!(texts, ROW_TEXTS);
    }

    #[test]
    fn messages_of_rows_with_a_line() {
        let texts: Vec<String> = rows(Some(7)).iter().map(Error::to_string).collect();
        let expected: Vec<String> = ROW_TEXTS
            .iter()
            .map(|text| format!("line 7: {text}"))
            .collect();
        assert_eq!(texts, expected);
    }

    #[test]
    fn messages_of_errors_without_a_row() {
        let texts: Vec<String> = others().iter().map(Error::to_string).collect();
        assert_eq!(
            texts,
            [
                "malformed JSON at line 3, column 17: expected `,`",
                "expected an array of events, found object",
                "invalid argument `options`: expected an object",
                "not a session log: 1234 bytes read, with no session header and no complete \
                 event (a session log is JSON lines, one event a line, after a `type: \
                 \"session\"` header)",
                "out of memory: the call needs about 8589934592 more bytes than the memory can \
                 give (wasm32 holds at most 4 GiB); the window is unchanged",
                "event seq -8 is not a request/header",
            ]
        );
    }

    #[test]
    fn a_row_keeps_its_fields_through_located_after_and_with_index() {
        for error in rows(Some(7)) {
            assert_eq!((error.index(), error.line()), (Some(4), Some(7)), "{error}");
            let moved = error.clone().after(10, 100);
            assert_eq!(
                (moved.index(), moved.line()),
                (Some(104), Some(17)),
                "{moved}"
            );
            let unlocated = error.clone().located(|_| None).after(10, 100);
            assert_eq!((unlocated.index(), unlocated.line()), (Some(104), None));
            let relocated = error.clone().located(|index| Some(index * 2));
            assert_eq!(relocated.line(), Some(8), "{relocated}");
            let mapped = error.with_index(|index| index + 1);
            assert_eq!(
                (mapped.index(), mapped.line()),
                (Some(5), Some(7)),
                "{mapped}"
            );
        }
    }

    #[test]
    fn an_error_without_a_row_has_no_index_and_keeps_its_line() {
        for error in others() {
            let line = error.line();
            let moved = error.clone().after(10, 100).with_index(|index| index + 1);
            assert_eq!(moved.index(), None, "{moved}");
            assert_eq!(moved.line(), line.map(|line| line + 10), "{moved}");
            assert_eq!(moved.clone().located(|_| Some(1)), moved);
        }
    }
}
