//! Reads one session file as a stream into a [`Reader`]: a [`Conversation`] (the window, for
//! `show`) or a [`LedgerStream`] (the forward-only ledger, for `report`), in fixed-size chunks
//! through their `feed` (the library's reader of growing files), zstd decoded on the way by the
//! `zstd` crate (docs/cli.md says why). No file is ever held whole: at most one chunk and the
//! unfinished line the library keeps.

use std::cell::Cell;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::Path;
use std::rc::Rc;

use promptfold::{CacheEntry, CacheLedger, Conversation, EventKind, JsonValue, LedgerStream};

use crate::problem::{Problem, ProblemKind};

/// Bytes read at a time (the read buffer grows for a longer line).
const CHUNK: usize = 1 << 20;

/// A line longer than this is not a session log's (the library would keep it whole).
pub const MAX_LINE: usize = 64 << 20;

/// The first bytes of a zstd frame.
const ZSTD_MAGIC: [u8; 4] = [0x28, 0xb5, 0x2f, 0xfd];

/// The first bytes of the compressed formats the command does not read, with the command that
/// undoes each: such a file is named for what it is rather than as bytes that are not text.
const OTHER_COMPRESSIONS: [(&[u8], &str, &str); 4] = [
    (&[0x1f, 0x8b], "gzip", "gunzip -k"),
    (b"BZh", "bzip2", "bunzip2 -k"),
    (&[0xfd, b'7', b'z', b'X', b'Z', 0], "xz", "unxz -k"),
    (&[0x04, 0x22, 0x4d, 0x18], "lz4", "unlz4"),
];

/// Why a file that starts with `head` cannot be read, when it is compressed with a format the
/// command does not read.
fn other_compression(head: &[u8]) -> Option<String> {
    let (_, name, undo) = OTHER_COMPRESSIONS
        .iter()
        .find(|(magic, _, _)| head.starts_with(magic))?;
    Some(format!(
        "{name}-compressed data: promptfold reads JSON lines, plain or compressed with zstd; \
         decompress it first ({undo} FILE)"
    ))
}

/// What a session file is read into: the library's two readers of growing files.
pub trait Reader {
    /// Reads the next complete lines (and keeps an unfinished rest), all or nothing.
    fn feed(&mut self, bytes: &[u8]) -> Result<(), promptfold::Error>;
    /// The session header, when the log began with one.
    fn session(&self) -> Option<&JsonValue>;
    /// The unfinished last line kept.
    fn unfinished_line(&self) -> &[u8];
    /// Events read.
    fn events(&self) -> u64;
    /// Whether an event of a type the rules know was read.
    fn has_known_event(&self) -> bool;
}

impl Reader for Conversation {
    fn feed(&mut self, bytes: &[u8]) -> Result<(), promptfold::Error> {
        Conversation::feed(self, bytes).map(drop)
    }
    fn session(&self) -> Option<&JsonValue> {
        Conversation::session(self)
    }
    fn unfinished_line(&self) -> &[u8] {
        Conversation::unfinished_line(self)
    }
    fn events(&self) -> u64 {
        self.len() as u64
    }
    fn has_known_event(&self) -> bool {
        let known = |event: &promptfold::SessionEvent| !matches!(event.kind, EventKind::Other);
        self.events().iter().any(known)
    }
}

/// A [`LedgerStream`] whose entries are handed to `take` as they come, so none piles up.
pub struct Streamed<F: FnMut(CacheEntry)> {
    /// The forward-only ledger.
    pub stream: LedgerStream,
    /// Told of each entry, in request order.
    pub take: F,
}

impl<F: FnMut(CacheEntry)> Streamed<F> {
    /// Ends the log: the last entries are handed to `take`; returns the ledger's summary.
    pub fn finish(self) -> promptfold::CacheSummary {
        let Streamed { stream, mut take } = self;
        let CacheLedger {
            requests, summary, ..
        } = stream.finish();
        requests.into_iter().for_each(&mut take);
        summary
    }
}

impl<F: FnMut(CacheEntry)> Reader for Streamed<F> {
    fn feed(&mut self, bytes: &[u8]) -> Result<(), promptfold::Error> {
        self.stream.feed(bytes)?;
        self.stream.take_entries().for_each(&mut self.take);
        Ok(())
    }
    fn session(&self) -> Option<&JsonValue> {
        self.stream.session()
    }
    fn unfinished_line(&self) -> &[u8] {
        self.stream.unfinished_line()
    }
    fn events(&self) -> u64 {
        self.stream.events_read()
    }
    fn has_known_event(&self) -> bool {
        self.stream.known_events_read() > 0
    }
}

/// A file read as far as it could be.
#[derive(Debug)]
pub struct Loaded<R> {
    /// The reader, with every event read.
    pub reader: R,
    /// Bytes of JSON lines read (after decompression).
    pub bytes: u64,
    /// A problem that still leaves a report of what was read (a torn tail, a zstd stream cut
    /// short after some complete rows).
    pub problem: Option<Problem>,
}

/// What reading a file gave.
#[derive(Debug)]
pub enum Outcome<R> {
    /// Read (whole, or up to a reported problem).
    Loaded(Box<Loaded<R>>),
    /// Its header says it is outside the time window: left unread after the header.
    Filtered,
    /// Nothing to report: the problem says why.
    Failed(Problem),
}

/// The path that stands for standard input (`promptfold show -`, `zstdcat x | ... report -`).
pub const STDIN: &str = "-";

/// Whether `path` is [`STDIN`] (a file named `-` is `./-`).
pub fn is_stdin(path: &Path) -> bool {
    path.as_os_str() == STDIN
}

/// A reader that counts the bytes it reads from disk and remembers an I/O error, so a zstd
/// error can be told from a disk error behind the decoder.
struct Counted<'a> {
    file: Box<dyn Read>,
    on_read: &'a dyn Fn(u64),
    failed: Rc<Cell<bool>>,
}

impl Read for Counted<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self.file.read(buf) {
            Ok(n) => {
                (self.on_read)(n as u64);
                Ok(n)
            }
            Err(error) => {
                self.failed.set(true);
                Err(error)
            }
        }
    }
}

fn has_zstd_name(path: &Path) -> bool {
    path.extension()
        .is_some_and(|ext| ext.eq_ignore_ascii_case("zst") || ext.eq_ignore_ascii_case("zstd"))
}

/// Reads `path` ([`STDIN`]: standard input) into `reader`. `on_read` is told of every block of bytes read from disk (for
/// progress); `wanted` is asked once, as soon as the header row (or the first event) is read,
/// whether the session is to be read at all (given its header).
pub fn read_session<R: Reader>(
    path: &Path,
    mut reader: R,
    on_read: &dyn Fn(u64),
    wanted: &dyn Fn(Option<&JsonValue>) -> bool,
) -> Outcome<R> {
    let shown = path.display().to_string();
    let problem = |kind, reason: String, reported| Problem {
        path: shown.clone(),
        kind,
        reason,
        reported,
    };
    let opened = if is_stdin(path) {
        Ok(Box::new(io::stdin()) as Box<dyn Read>)
    } else {
        File::open(path).map(|file| Box::new(file) as Box<dyn Read>)
    };
    let file = match opened {
        Ok(file) => file,
        Err(error) => {
            return Outcome::Failed(problem(ProblemKind::Unreadable, error.to_string(), false))
        }
    };
    let failed = Rc::new(Cell::new(false));
    let counted = Counted {
        file,
        on_read,
        failed: Rc::clone(&failed),
    };
    let mut buffered = BufReader::with_capacity(CHUNK, counted);
    let (zstd, zstd_by_name_only) = match buffered.fill_buf() {
        Ok(head) => {
            if let Some(reason) = other_compression(head) {
                return Outcome::Failed(problem(ProblemKind::NotASessionLog, reason, false));
            }
            let magic = head.starts_with(&ZSTD_MAGIC);
            let named = has_zstd_name(path);
            (magic || named, named && !magic)
        }
        Err(error) => {
            return Outcome::Failed(problem(ProblemKind::Unreadable, error.to_string(), false))
        }
    };
    let mut source: Box<dyn Read + '_> = if zstd {
        match zstd::stream::read::Decoder::with_buffer(buffered) {
            Ok(decoder) => Box::new(decoder),
            Err(error) => {
                return Outcome::Failed(problem(ProblemKind::CorruptZstd, error.to_string(), false))
            }
        }
    } else {
        Box::new(buffered)
    };

    let conversation = &mut reader;
    let mut bytes: u64 = 0;
    let mut asked = false;
    let mut lines = Lines::new();
    let mut stopped: Option<Problem> = None;
    loop {
        let n = match source.read(lines.space()) {
            Ok(0) => break,
            Ok(n) => n,
            Err(error) if error.kind() == io::ErrorKind::Interrupted => continue,
            Err(error) => {
                let kind = if failed.get() || !zstd {
                    ProblemKind::Unreadable
                } else {
                    ProblemKind::CorruptZstd
                };
                // A file called `.zst` that never was zstd: the decoder's words do not say so.
                let named = if kind == ProblemKind::CorruptZstd && zstd_by_name_only && bytes == 0 {
                    "named as zstd but not zstd data (no zstd magic number at its start): "
                } else {
                    ""
                };
                stopped = Some(problem(
                    kind,
                    format!("{named}{error}, after {bytes} bytes of JSON lines"),
                    true,
                ));
                break;
            }
        };
        bytes = bytes.saturating_add(n as u64);
        let fed = lines.filled(n, |complete| conversation.feed(complete));
        match fed {
            Ok(true) => {}
            Ok(false) => {
                let kind = if started(conversation) {
                    ProblemKind::BadEvent
                } else {
                    ProblemKind::NotASessionLog
                };
                let reason = format!("a line longer than {} MiB", MAX_LINE >> 20);
                return Outcome::Failed(problem(kind, reason, false));
            }
            Err(error) => return Outcome::Failed(feed_problem(conversation, &error, &shown)),
        }
        if !asked && started(conversation) {
            asked = true;
            if !wanted(conversation.session()) {
                return Outcome::Filtered;
            }
        }
    }
    // The rest after the last line end: the library keeps it as an unfinished line.
    if let Err(error) = conversation.feed(lines.rest()) {
        return Outcome::Failed(feed_problem(conversation, &error, &shown));
    }

    let mut problem_after = stopped;
    if !conversation.unfinished_line().is_empty() {
        let torn = conversation.unfinished_line().len();
        let unfinished_binary = TailBytes::of(conversation.unfinished_line());
        // A last line without its line end: complete JSON is a row, anything else a torn tail.
        match conversation.feed(b"\n".as_slice()) {
            Ok(_) => {}
            Err(error) if error.code() == "MALFORMED_JSON" && started(conversation) => {
                problem_after.get_or_insert_with(|| {
                    problem(
                        ProblemKind::TornTail,
                        torn_tail_reason(torn, &unfinished_binary),
                        true,
                    )
                });
            }
            Err(error) => return Outcome::Failed(feed_problem(conversation, &error, &shown)),
        }
    }
    if !started(conversation) {
        let reason = match problem_after {
            Some(problem) if problem.kind != ProblemKind::TornTail => {
                return Outcome::Failed(Problem {
                    reported: false,
                    ..problem
                })
            }
            _ if bytes == 0 => "the file is empty".to_string(),
            _ => "no session header and no event".to_string(),
        };
        return Outcome::Failed(problem(ProblemKind::NotASessionLog, reason, false));
    }
    if conversation.session().is_none() && !conversation.has_known_event() {
        let reason = "no session header and no event of a known type".to_string();
        return Outcome::Failed(problem(ProblemKind::NotASessionLog, reason, false));
    }
    if !asked && !wanted(conversation.session()) {
        return Outcome::Filtered;
    }
    Outcome::Loaded(Box::new(Loaded {
        reader,
        bytes,
        problem: problem_after,
    }))
}

/// The read buffer: bytes read from the file, handed to `feed` up to their last line end, so
/// the library never has to join a kept partial line with the next chunk (a copy of every
/// chunk, measured at a fifth of the run time with 1 MiB chunks).
struct Lines {
    buffer: Vec<u8>,
    /// Bytes of `buffer` holding data: a partial line carried over, then what was read.
    filled: usize,
}

impl Lines {
    fn new() -> Lines {
        Lines {
            buffer: vec![0; CHUNK],
            filled: 0,
        }
    }

    /// Where to read the next bytes: after the data, at least a chunk, more for a long line.
    fn space(&mut self) -> &mut [u8] {
        if self.buffer.len().saturating_sub(self.filled) < CHUNK / 2 {
            // At most a block past the longest line allowed: a file without line ends stops
            // at MAX_LINE (plus a block) per thread, never more.
            let grown = self
                .buffer
                .len()
                .saturating_mul(2)
                .min(MAX_LINE.saturating_add(CHUNK));
            if grown > self.buffer.len() {
                self.buffer.resize(grown, 0);
            }
        }
        self.buffer.get_mut(self.filled..).unwrap_or_default()
    }

    /// `n` bytes were read into [`Lines::space`]: hands every complete line to `feed` and keeps
    /// the rest. `Ok(false)`: a line is longer than [`MAX_LINE`].
    fn filled<E>(
        &mut self,
        n: usize,
        feed: impl FnOnce(&[u8]) -> Result<(), E>,
    ) -> Result<bool, E> {
        let before = self.filled;
        self.filled = self.filled.saturating_add(n).min(self.buffer.len());
        let new = self.buffer.get(before..self.filled).unwrap_or_default();
        let Some(last) = new.iter().rposition(|byte| *byte == b'\n') else {
            return Ok(self.filled <= MAX_LINE);
        };
        let end = before.saturating_add(last).saturating_add(1);
        feed(self.buffer.get(..end).unwrap_or_default())?;
        self.buffer.copy_within(end..self.filled, 0);
        self.filled = self.filled.saturating_sub(end);
        Ok(true)
    }

    /// The bytes after the last line end.
    fn rest(&self) -> &[u8] {
        self.buffer.get(..self.filled).unwrap_or_default()
    }
}

/// Whether a header or an event has been read.
fn started(conversation: &impl Reader) -> bool {
    conversation.session().is_some() || conversation.events() > 0
}

fn feed_problem(conversation: &impl Reader, error: &promptfold::Error, path: &str) -> Problem {
    let kind = if error.code() == "UNSUPPORTED_FORMAT_VERSION" {
        ProblemKind::UnsupportedVersion
    } else if started(conversation) || error.index().is_some_and(|index| index > 0) {
        // A row after the first one of the file (the feed of a chunk is all or nothing, so the
        // rows before it may not be in the window yet).
        ProblemKind::BadEvent
    } else {
        ProblemKind::NotASessionLog
    };
    Problem {
        path: path.to_string(),
        kind,
        reason: format!("{} ({})", error, error.code()),
        reported: false,
    }
}

/// What a torn last line holds besides text: NUL bytes (what a crash or a full disk can leave at
/// a file's end) or other binary bytes. The library reads either as a torn tail (the rows
/// before it load); the command says which, so a damaged file is not taken for a live writer.
enum TailBytes {
    Text,
    Nul,
    Binary,
}

impl TailBytes {
    fn of(line: &[u8]) -> TailBytes {
        if line.contains(&0) {
            TailBytes::Nul
        } else if line
            .iter()
            .any(|&byte| (byte < 0x20 && byte != b'\t' && byte != b'\r') || byte == 0x7f)
        {
            TailBytes::Binary
        } else {
            TailBytes::Text
        }
    }
}

/// The reason given for a torn last line of `bytes` bytes.
fn torn_tail_reason(bytes: usize, tail: &TailBytes) -> String {
    match tail {
        TailBytes::Text => format!("the last line ({bytes} bytes) is cut short"),
        TailBytes::Nul => format!(
            "the last line ({bytes} bytes) is cut short and holds NUL bytes (a crash or a full disk can leave them)"
        ),
        TailBytes::Binary => {
            format!("the last line ({bytes} bytes) is cut short and holds binary data")
        }
    }
}
