//! Reading a batch of JSON text that arrives in pieces, so that a large log never sits whole in
//! wasm memory: each event is read as soon as its text is complete, and text is dropped once
//! read. Only the common path streams: a batch that is neither a JSON array nor JSON lines, or
//! text that is not JSON, is left to the whole-text reader, which gives the error its exact line
//! and column.

use super::framing::{Framing, Rows, TornTail, BOM};
use super::{with_lines, Batch, RawEvent};
use crate::error::Error;
use crate::input::intern::JsonInterner;
use crate::input::json::reader::{Container, Failed, Memory, Reader, Remembered, Step, SLOTS};
use crate::room::try_room;

/// `stream.more(read)`, or a return of its [`Error::OutOfMemory`] as the batch's error.
macro_rules! more {
    ($stream:expr, $read:expr) => {
        match $stream.more($read) {
            Ok(more) => more,
            Err(error) => return Streamed::Read(Err(error)),
        }
    };
}

/// What reading a streamed batch came to.
#[derive(Debug)]
pub(crate) enum Streamed {
    /// The batch's rows, or its first invalid row's error.
    Read(Result<Rows, Error>),
    /// The batch needs the whole-text reader (see the module documentation).
    NeedsWholeText,
}

/// Where the text comes from: writes the next piece at the start of the bytes it is given (at
/// most all of them; [`PIECE_ROOM`] of them when the stream calls it), checked as UTF-8, and
/// returns its length, or `None` once the text is over. Pieces end between characters.
pub(crate) type Pieces<'a> = &'a mut dyn FnMut(&mut [u8]) -> Option<usize>;

/// The room the stream gives each piece.
pub(crate) const PIECE_ROOM: usize = 1 << 20;

/// Reads a batch of events from text delivered by `pieces` under the rules of `framing`,
/// sharing repeated config and tools values through `interner`; agrees with
/// [`super::parse_rows`] on the whole text whenever it returns [`Streamed::Read`].
pub(crate) fn parse_streamed(
    pieces: Pieces<'_>,
    interner: &mut JsonInterner,
    framing: Framing,
) -> Streamed {
    let mut stream = Stream::new(pieces);
    let mut at_start = true;
    loop {
        if at_start && stream.filled >= BOM.len() {
            at_start = false;
            if stream.text().starts_with(BOM.as_bytes()) {
                if let Err(error) = stream.more(BOM.len()) {
                    return Streamed::Read(Err(error));
                }
                continue;
            }
        }
        match stream.text().iter().find(|byte| !is_whitespace(**byte)) {
            Some(b'[') => return read_array(stream, interner, framing),
            Some(b'{') => return read_lines(stream, interner, framing),
            Some(_) => return Streamed::NeedsWholeText,
            None => {
                if !more!(stream, stream.filled) {
                    return Streamed::Read(Batch::new(framing).finish(None));
                }
            }
        }
    }
}

fn is_whitespace(byte: u8) -> bool {
    matches!(byte, b' ' | b'\n' | b'\r' | b'\t')
}

/// The text not yet read, and the pieces still to come.
struct Stream<'a> {
    /// The text not yet read, `buffer[..filled]`, then room for pieces (written there, so they
    /// are not copied).
    buffer: Vec<u8>,
    filled: usize,
    pieces: Pieces<'a>,
    ended: bool,
    /// An owned copy of what the last reader remembered for `Reader::raw_value_repeating`
    /// (its text is dropped as the stream goes on).
    remembered: [Option<Kept>; SLOTS],
}

/// An owned [`Memory`]: text, depth and generation.
type Kept = (String, usize, u32);

/// Per slot, a newly remembered value to keep (`None`: keep what is kept).
type NewlyRemembered = [Option<Kept>; SLOTS];

impl<'a> Stream<'a> {
    fn new(pieces: Pieces<'a>) -> Self {
        Stream {
            buffer: Vec::new(),
            filled: 0,
            pieces,
            ended: false,
            remembered: Default::default(),
        }
    }

    /// The text not yet read.
    fn text(&self) -> &[u8] {
        self.buffer.get(..self.filled).unwrap_or_default()
    }

    /// What the last reader remembered, as `Reader::resume` takes it.
    fn remembered(&self) -> Remembered<'_> {
        let mut remembered = [None; SLOTS];
        for (slot, kept) in remembered.iter_mut().zip(&self.remembered) {
            *slot = kept.as_ref().map(|(text, depth, generation)| Memory {
                text,
                depth: *depth,
                generation: *generation,
            });
        }
        remembered
    }

    /// What a reader `remembered`, copied, where it is not what this stream gave it; `None` when
    /// it is all known (the common case, checked without copying).
    fn newly_remembered(&self, remembered: Remembered<'_>) -> Option<NewlyRemembered> {
        let known = |slot: &Option<Memory<'_>>, kept: &Option<Kept>| match (slot, kept) {
            (None, _) => true,
            (Some(memory), Some((kept, depth, generation))) => {
                kept.as_ptr() == memory.text.as_ptr()
                    && (*depth, *generation) == (memory.depth, memory.generation)
            }
            (Some(_), None) => false,
        };
        if remembered
            .iter()
            .zip(&self.remembered)
            .all(|(slot, kept)| known(slot, kept))
        {
            return None;
        }
        let mut new = NewlyRemembered::default();
        for ((new, slot), kept) in new.iter_mut().zip(&remembered).zip(&self.remembered) {
            if let (Some(memory), false) = (slot, known(slot, kept)) {
                *new = Some((memory.text.to_owned(), memory.depth, memory.generation));
            }
        }
        Some(new)
    }

    /// Keeps what [`Stream::newly_remembered`] found.
    fn keep(&mut self, newly_remembered: NewlyRemembered) {
        for (kept, new) in self.remembered.iter_mut().zip(newly_remembered) {
            if new.is_some() {
                *kept = new;
            }
        }
    }

    /// Drops the text before byte `read` and appends pieces until the text at least doubles (so
    /// an event longer than many pieces is read again only a logarithmic number of times);
    /// `false` when the text was already over.
    /// [`Error::OutOfMemory`] when the memory cannot hold the longer text.
    fn more(&mut self, read: usize) -> Result<bool, Error> {
        if self.ended {
            return Ok(false);
        }
        self.buffer
            .copy_within(read.min(self.filled)..self.filled, 0);
        self.filled = self.filled.saturating_sub(read);
        let target = self.filled.saturating_mul(2);
        loop {
            let end = self.filled.saturating_add(PIECE_ROOM);
            if self.buffer.len() < end {
                let missing = end.saturating_sub(self.buffer.len());
                try_room(&mut self.buffer, missing)?;
                self.buffer.resize(end, 0);
            }
            let room = self.buffer.get_mut(self.filled..end).unwrap_or_default();
            let Some(written) = (self.pieces)(room) else {
                self.ended = true;
                break;
            };
            self.filled = self.filled.saturating_add(written).min(end);
            if self.filled > target {
                break;
            }
        }
        Ok(true)
    }
}

/// One step through a JSON array of events.
enum Progress {
    Opened,
    Element,
    Closed,
}

fn read_array(mut stream: Stream<'_>, interner: &mut JsonInterner, framing: Framing) -> Streamed {
    let mut batch = Batch::new(framing);
    let (mut read, mut opened, mut started) = (0, false, false);
    loop {
        // One reader takes steps while the text so far holds them; what it remembered after
        // its last step that went well is kept for the reader of the longer text.
        let mut reader = Reader::resume_bytes(
            stream.text(),
            read,
            usize::from(opened),
            stream.remembered(),
        );
        let mut remembered = reader.remembered();
        loop {
            let step = if opened {
                array_step(&mut reader, started, stream.ended, &mut batch, interner)
            } else {
                reader.begin_array().map(|_| Some(Progress::Opened))
            };
            if step.is_ok() {
                remembered = reader.remembered();
            }
            let at = reader.position();
            match step {
                Ok(Some(Progress::Opened)) => (read, opened) = (at, true),
                Ok(Some(Progress::Element)) => (read, started) = (at, true),
                Ok(Some(Progress::Closed)) => return finish(stream, at, batch),
                // The text so far ends inside the next step: read it again with more text.
                Ok(None) | Err(_) => break,
            }
        }
        if let Some(remembered) = stream.newly_remembered(remembered) {
            stream.keep(remembered);
        }
        if !more!(stream, read) {
            return Streamed::NeedsWholeText;
        }
        read = 0;
    }
}

/// The next element of the array, or its end; `None` when the text may end before the element
/// does (`ended`: no more text will come).
fn array_step(
    reader: &mut Reader<'_>,
    started: bool,
    ended: bool,
    batch: &mut Batch,
    interner: &mut JsonInterner,
) -> Step<Option<Progress>> {
    if !reader.next_element(&mut Container::resumed(started))? {
        return Ok(Some(Progress::Closed));
    }
    // Read in place (see `RawEvent::read_in_place`).
    let mut raw = RawEvent::default();
    let valid = batch.first_error.is_none();
    let start = reader.position();
    if valid {
        raw.read_in_place(reader)?;
    } else {
        reader.skip_value()?;
    }
    let end = reader.position();
    // A number right at the end of the text so far may go on in the next piece.
    if reader.peek().is_none() && !ended {
        return Ok(None);
    }
    if valid {
        let text = raw
            .may_be_header()
            .then(|| reader.text_between(start, end))
            .flatten();
        batch.accept(&raw, interner, text);
    }
    Ok(Some(Progress::Element))
}

/// After the array's `]`: only whitespace may follow.
fn finish(mut stream: Stream<'_>, mut read: usize, batch: Batch) -> Streamed {
    loop {
        let rest = stream.text().get(read..).unwrap_or_default();
        if rest.iter().any(|byte| !is_whitespace(*byte)) {
            return Streamed::NeedsWholeText;
        }
        read = stream.filled;
        if !more!(stream, read) {
            return Streamed::Read(batch.finish(None));
        }
        read = 0;
    }
}

fn read_lines(mut stream: Stream<'_>, interner: &mut JsonInterner, framing: Framing) -> Streamed {
    let mut batch = Batch::new(framing);
    // Lines read so far.
    let mut lines: usize = 0;
    loop {
        let mut read = 0;
        while let Some(end) = stream.text().get(read..).and_then(line_end) {
            let end = read.saturating_add(end);
            if read_line(&mut stream, read..end, &mut batch, interner).is_err() {
                return Streamed::NeedsWholeText;
            }
            lines = lines.saturating_add(1);
            read = end.saturating_add(1);
        }
        if !more!(stream, read) {
            let end = stream.filled;
            if let Err(at_end) = read_line(&mut stream, read..end, &mut batch, interner) {
                if !(framing.torn_tail && at_end) {
                    return Streamed::NeedsWholeText;
                }
                let tail = TornTail {
                    line: lines.saturating_add(1),
                    bytes: end.saturating_sub(read),
                };
                let text = stream.text().get(read..end).unwrap_or_default().to_vec();
                return Streamed::Read(with_lines(batch.finish(Some((tail, text))), lines));
            }
            return Streamed::Read(with_lines(batch.finish(None), lines));
        }
    }
}

/// Where the first line of `text` ends (its `\n`), if it does.
fn line_end(text: &[u8]) -> Option<usize> {
    text.iter().position(|byte| *byte == b'\n')
}

/// One line of JSON lines, the text's bytes `line` (a trailing `\r` is whitespace to the
/// reader). On an error: whether the line ended before its JSON did (see
/// [`super::ends_early`]).
fn read_line(
    stream: &mut Stream<'_>,
    line: std::ops::Range<usize>,
    batch: &mut Batch,
    interner: &mut JsonInterner,
) -> Result<(), bool> {
    let text = stream.text().get(line).unwrap_or_default();
    let mut reader = Reader::resume_bytes(text, 0, 0, stream.remembered());
    if reader.peek().is_none() {
        return Ok(());
    }
    batch
        .read(&mut reader, interner)
        .and_then(|()| reader.finish())
        .map_err(|Failed| super::ends_early(text, reader.error()))?;
    if let Some(remembered) = stream.newly_remembered(reader.remembered()) {
        stream.keep(remembered);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::event::SessionEvent;
    use crate::input::parse::parse_events;

    /// `text` in pieces of `size` bytes (moved to the next character boundary), or as much as
    /// the room given holds.
    fn streamed(text: &str, size: usize) -> Option<Result<Vec<SessionEvent>, Error>> {
        let mut at = 0;
        let mut pieces = |out: &mut [u8]| {
            if at >= text.len() {
                return None;
            }
            let mut end = at.saturating_add(size).min(text.len());
            while !text.is_char_boundary(end) {
                end += 1;
            }
            if end - at > out.len() {
                end = at + out.len();
                while !text.is_char_boundary(end) {
                    end -= 1;
                }
            }
            out[..end - at].copy_from_slice(&text.as_bytes()[at..end]);
            let written = end - at;
            at = end;
            Some(written)
        };
        match parse_streamed(
            &mut pieces,
            &mut JsonInterner::default(),
            Framing::log_start(),
        ) {
            // The wasm layer places an error's row on its line by reading the text again.
            Streamed::Read(rows) => Some(rows.map(|rows| rows.events).map_err(|error| {
                super::super::row_lines::locate(
                    error,
                    text.as_bytes(),
                    super::super::row_lines::Layout::Detect,
                )
            })),
            Streamed::NeedsWholeText => None,
        }
    }

    /// Streaming agrees with the whole-text reader: the same events or error, or a hand-over
    /// to it when the text is not JSON or not an array or lines.
    fn agrees(text: &str) {
        let whole = parse_events(text);
        for size in [1, 2, 3, 5, 8, 13, 64, 1000] {
            match (streamed(text, size), &whole) {
                (Some(result), whole) => {
                    assert_eq!(&result, whole, "pieces of {size}: {text:?}")
                }
                (None, Err(Error::MalformedJson { .. } | Error::NotAnArray { .. })) => {}
                (None, whole) => {
                    panic!("pieces of {size}: handed over {whole:?}: {text:?}")
                }
            }
        }
    }

    const EVENTS: &[&str] = &[
        r#"{"seq":1,"time":5,"type":"system/message","surfaceOp":"append","data":{"turn":1,"step":2,"message":{"content":[{"type":"text","text":"héllo \ud83d\ude00 \u0041"}]}}}"#,
        r#"{"seq":2,"type":"request/header","data":{"reason":"change","header":{"config":{"m":1.5e3},"tools":[{"name":"t"}]}}}"#,
        r#"{"seq":3,"type":"tool/result","surfaceOp":{"op":"replace","startSeq":1,"endSeq":2},"data":{"output":[1,2,{"a":null}]}}"#,
        r#"{"seq":4,"type":"request/header","data":{"header":{"config":{"m":1.5e3},"tools":[{"name":"t"}]}}}"#,
    ];

    #[test]
    fn arrays_and_lines_read_in_pieces_agree_with_the_whole_text() {
        let array = format!(" \n[{}] \n", EVENTS.join(",\n  "));
        agrees(&array);
        agrees(&format!("{}\r\n\n  \n{}\n", EVENTS.join("\n"), EVENTS[0]));
        agrees("[]");
        agrees("  \n ");
        agrees("");
        agrees("[1234, 5]");
        agrees("[{\"seq\":12}, 77777]");
        agrees("[{\"seq\":1.5}, {\"seq\":\"x\"}]");
    }

    #[test]
    fn a_long_event_is_read_again_a_logarithmic_number_of_times() {
        // 32 MiB in 4 KiB pieces: reading the event again after every piece would scan about
        // 128 GiB; after every doubling of the text held, about 64 MiB.
        let text = format!(
            "[{{\"seq\":1,\"data\":\"{}\"}}, {{\"seq\":2}}]",
            "x".repeat(32 << 20)
        );
        let start = std::time::Instant::now();
        let read = streamed(&text, 4096);
        assert!(matches!(read, Some(Ok(ref events)) if events.len() == 2));
        assert!(start.elapsed().as_secs() < 5, "{:?}", start.elapsed());
    }

    #[test]
    fn pieces_that_fill_their_room_agree_with_the_whole_text() {
        // The first room ends inside the second text, the second inside the third.
        let event = |seq: usize, text: &str| {
            format!(
                r#"{{"seq":{seq},"type":"system/message","data":{{"message":{{"content":[{{"type":"text","text":"{text}"}}]}}}}}}"#
            )
        };
        let text = format!(
            "[{}, {}, {}]",
            event(1, &"é".repeat(PIECE_ROOM / 3)),
            event(2, &"x".repeat(PIECE_ROOM)),
            event(3, &"y".repeat(PIECE_ROOM / 2)),
        );
        let whole = parse_events(&text);
        assert!(matches!(whole, Ok(ref events) if events.len() == 3));
        assert!(matches!(streamed(&text, usize::MAX), Some(ref read) if *read == whole));
    }

    #[test]
    fn damaged_text_is_handed_over_or_agrees() {
        let array = format!("[{}]", EVENTS.join(","));
        for cut in 0..array.len() {
            if array.is_char_boundary(cut) {
                agrees(&array[..cut]);
                agrees(&format!("{}x{}", &array[..cut], &array[cut..]));
            }
        }
        let lines = EVENTS.join("\n");
        for cut in (0..lines.len()).step_by(7) {
            if lines.is_char_boundary(cut) {
                agrees(&lines[..cut]);
            }
        }
        agrees("5");
        agrees("[1] 2");
        agrees("[[1]]");
    }
}
