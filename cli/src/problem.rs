//! What went wrong with one file: reported once, with its path and reason, never fatal to a batch.

use serde::Serialize;

use crate::printable::printable;

/// The classes of bad input (docs/cli.md lists each with an example).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ProblemKind {
    /// The file cannot be opened or read (permissions, I/O error, vanished).
    Unreadable,
    /// A folder that links back to one of its ancestors.
    DirectoryLoop,
    /// The file is not JSON lines of session events (binary, other JSON, empty).
    NotASessionLog,
    /// The header's format `version` is below 3.
    UnsupportedVersion,
    /// A zstd stream that is truncated or corrupt (what it held before the damage is reported).
    CorruptZstd,
    /// A row in the middle of a session log that is not a valid event.
    BadEvent,
    /// The last line is cut short (a writer stopped mid-line): the rows before it are reported.
    TornTail,
}

impl ProblemKind {
    /// The kind as written in every output.
    pub fn name(self) -> &'static str {
        match self {
            ProblemKind::Unreadable => "unreadable",
            ProblemKind::DirectoryLoop => "directory-loop",
            ProblemKind::NotASessionLog => "not-a-session-log",
            ProblemKind::UnsupportedVersion => "unsupported-version",
            ProblemKind::CorruptZstd => "corrupt-zstd",
            ProblemKind::BadEvent => "bad-event",
            ProblemKind::TornTail => "torn-tail",
        }
    }
}

/// One problem with one path.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Problem {
    /// The file or folder, as reached from the paths given.
    pub path: String,
    /// Its class.
    pub kind: ProblemKind,
    /// What exactly, for people.
    pub reason: String,
    /// Whether the session still has its row in the report (with what could be read).
    pub reported: bool,
}

impl Problem {
    /// The problem of the only file a command was given: no outcome in brackets, since there is
    /// no batch for the file to be skipped from.
    pub fn alone(&self) -> impl std::fmt::Display + '_ {
        Alone(self)
    }
}

/// A problem written without its outcome in a batch (see [`Problem::alone`]).
struct Alone<'a>(&'a Problem);

impl std::fmt::Display for Alone<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}: {}: {}",
            printable(&self.0.path),
            self.0.kind.name(),
            printable(&self.0.reason)
        )
    }
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let outcome = if self.reported {
            "reported with the rows before it"
        } else {
            "skipped"
        };
        write!(
            f,
            "{}: {} ({}): {}",
            printable(&self.path),
            self.kind.name(),
            outcome,
            printable(&self.reason)
        )
    }
}
