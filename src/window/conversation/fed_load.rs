//! A load or an append of JSON lines text read in pieces, as [`Conversation::feed`] reads a
//! growing file: a load builds its window by appending each piece's complete lines, so it keeps
//! what a feed of the same text keeps (no list of the whole batch's rows, no analysis of it
//! reserved at once); an append puts each piece's events straight into the window's list and
//! walks them once at the end, so that a failing piece can take them off again. Any text the
//! pieces cannot read the way the whole-text reader would (not JSON lines, or an error to place)
//! is left to that reader.

use crate::input::parse::fed::{complete_lines, copy_bytes, keep_bytes};
use crate::input::parse::framing::{Numbering, Rows, TornTail};
use crate::input::parse::{parse_fed_lines, parse_text_rows};
use crate::views::chat::ChatCard;
use crate::views::splice::ListSplice;
use crate::views::ConversationChange;
use crate::window::analysis::compare::{compare, compare_besides_chat};

use super::{check_ascending, Call, Conversation};

/// Room for one piece of text.
const PIECE_ROOM: usize = 1 << 20;

/// Room for the first piece.
const FIRST_PIECE_ROOM: usize = 256;

/// What a load read in pieces changed.
pub(crate) struct PieceLoad {
    /// The change report; with `all_cards_added`, its `chat.added` is left empty.
    pub change: ConversationChange,
    /// The window was without cards, so every card is added: the report's `chat.added` would
    /// be every card in chat order ([`Conversation::cards_in_chat`] hands them out). A list of
    /// them all, copied, kept a tenth of what a feed of the same text keeps on top of it.
    pub all_cards_added: bool,
}

/// What a source of text pieces hands out (see [`Conversation::load_pieces`]).
pub(crate) enum Piece {
    /// A piece of this many bytes, written at the start of the room.
    Read(usize),
    /// The text is over.
    End,
    /// The text cannot be read in pieces (the whole-text reader places the error).
    Failed,
}

impl Conversation {
    /// [`Conversation::load_json`] of text that `next` hands out in pieces (UTF-8, each written
    /// at the start of the room it is given), read as [`Conversation::feed`] reads them, with
    /// the last line read as `load_json` reads it (an event, or a torn tail kept for `feed`).
    /// `None` when the text needs the whole-text reader: it does not start as JSON lines, or a
    /// piece fails to read; the window is then as it was.
    pub(crate) fn load_pieces(
        &mut self,
        next: &mut dyn FnMut(&mut [u8]) -> Piece,
        has_more: bool,
    ) -> Option<PieceLoad> {
        let mut loaded = Conversation {
            has_more,
            ..Conversation::default()
        };
        read_pieces(next, &mut |piece| loaded.feed(piece).ok().map(drop))?;
        let rest = std::mem::take(&mut loaded.unfinished);
        let mut torn_tail = None;
        if let Some(rows) = loaded.last_line_rows(&rest, loaded.lines_read)? {
            let (lines, given) = (Some(rows.lines), rows.given());
            torn_tail = loaded.apply(Call::Append, rows, has_more).ok()?.torn_tail;
            loaded.text_read(Call::Append, lines, given);
        }
        // As the whole-text reader counts it: a text without a line end counts none.
        if loaded.lines_read == 0 {
            loaded.text_read(Call::Append, None, 0);
        }
        loaded.has_more = has_more;
        let all_cards_added = self.analysis.card_count() == 0;
        let mut change = if all_cards_added {
            compare_besides_chat(&self.analysis, &loaded.analysis)
        } else {
            compare(&self.analysis, &loaded.analysis)
        };
        change.splices.lines = ListSplice::replaced(self.events.len(), loaded.events.len());
        change.torn_tail = torn_tail;
        *self = loaded;
        Some(PieceLoad {
            change,
            all_cards_added,
        })
    }

    /// [`Conversation::append_json`] of text that `next` hands out in pieces (as
    /// [`Conversation::load_pieces`] takes them), with the same change report and window.
    /// Appended to a window without events or header, the text starts the window: a load of it
    /// that keeps `has_more`. Otherwise each piece's complete lines are read as `feed` reads
    /// them and their events go after the window's; the analysis walks them once, after the
    /// last line. `None` when the text needs the whole-text reader (as for `load_pieces`); the
    /// events taken in are then taken off again, and the window is as it was.
    pub(crate) fn append_pieces(
        &mut self,
        next: &mut dyn FnMut(&mut [u8]) -> Piece,
    ) -> Option<PieceLoad> {
        if self.events.is_empty() {
            // Framed as a load only without a header and with no numbering decided.
            if self.session.is_some() || self.numbering != Numbering::Undecided {
                return None;
            }
            let (lines_before, rows_before) = self.read_so_far();
            let loaded = self.load_pieces(next, self.has_more)?;
            self.read_before(lines_before, rows_before);
            return Some(loaded);
        }
        let (before, numbering) = (self.appended_mark(), self.numbering);
        let read = self.append_text(next);
        let change = read.and_then(|read| {
            let change = self.walk_appended(&before).ok()?;
            Some((read, change))
        });
        let Some(((read, torn), mut change)) = change else {
            self.events.truncate(before.lines);
            self.numbering = numbering;
            return None;
        };
        if let Some((tail, text)) = torn {
            change.torn_tail = Some(tail);
            self.unfinished = text;
        }
        self.text_read(
            Call::Append,
            (read.lines > 0).then_some(read.lines),
            read.rows,
        );
        Some(PieceLoad {
            change,
            all_cards_added: false,
        })
    }

    /// Reads the pieces of an append to a started window, putting their events after the
    /// window's (the analysis does not walk them): the lines read, and a torn last line with
    /// its bytes. `None` at the first piece that fails.
    fn append_text(&mut self, next: &mut dyn FnMut(&mut [u8]) -> Piece) -> Option<AppendRead> {
        let mut read = Read::default();
        // The incomplete last line of the pieces so far.
        let mut unfinished = Vec::new();
        read_pieces(next, &mut |piece| {
            let Some((complete, rest)) = complete_lines(&unfinished, piece).ok()? else {
                return keep_bytes(&mut unfinished, piece).ok();
            };
            let rest = copy_bytes(rest).ok()?;
            let framing = self.framing(Call::Feed, true);
            let rows = parse_fed_lines(&complete, &mut self.interner, framing).ok()?;
            read = self.take_rows(rows, read)?;
            unfinished = rest;
            Some(())
        })?;
        let Some(mut rows) = self.last_line_rows(&unfinished, read.lines)? else {
            return Some((read, None));
        };
        let torn = rows
            .torn_tail
            .take()
            .map(|tail| (tail, std::mem::take(&mut rows.torn_text)));
        Some((self.take_rows(rows, read)?, torn))
    }

    /// Puts the events of `rows` after the window's, unless they do not follow them; returns
    /// `read` and the lines and rows of `rows`.
    fn take_rows(&mut self, rows: Rows, read: Read) -> Option<Read> {
        check_ascending(&rows.events, self.events.last().map(|event| event.seq)).ok()?;
        debug_assert!(
            rows.session.is_none(),
            "a header was read into a started window"
        );
        let read = Read {
            lines: read.lines.saturating_add(rows.lines),
            rows: read.rows.saturating_add(rows.given()),
        };
        self.events.try_reserve(rows.events.len()).ok()?;
        self.events.extend(rows.events);
        self.numbering = rows.numbering;
        Some(read)
    }

    /// Every chat card of the window, in chat order.
    pub(crate) fn cards_in_chat(&self) -> impl Iterator<Item = &ChatCard> + '_ {
        self.analysis.cards_in_chat()
    }

    /// The rows of `rest`, the incomplete last line of text whose `lines` lines before it were
    /// read in pieces, read as the whole-text reader reads the last line of its text (under the
    /// framing of an append to this window): `Some(None)` when it is blank, a torn tail with
    /// its line counted in the whole text, `None` when it needs the whole-text reader.
    fn last_line_rows(&mut self, rest: &[u8], lines: usize) -> Option<Option<Rows>> {
        match rest.iter().copied().find(|byte| !is_space(*byte)) {
            None => return Some(None),
            // Anything but an object would be read as a batch of its own.
            Some(b'{') => {}
            Some(_) if lines == 0 => {}
            Some(_) => return None,
        }
        let framing = self.framing(Call::Append, true);
        let mut rows = parse_text_rows(rest, &mut self.interner, framing).ok()?;
        if let Some(tail) = &mut rows.torn_tail {
            tail.line = tail.line.saturating_add(lines);
        }
        Some(Some(rows))
    }
}

/// Hands the pieces `next` gives to `piece`, in a room of its own for each, as `feed` is given
/// pieces; `None` when the text is empty, does not start as JSON lines, or a piece fails (in
/// `next` or `piece`).
fn read_pieces(
    next: &mut dyn FnMut(&mut [u8]) -> Piece,
    piece: &mut dyn FnMut(&[u8]) -> Option<()>,
) -> Option<()> {
    let mut first = true;
    loop {
        // The first room is small: it tells whether the text is JSON lines before a megabyte
        // is copied for nothing.
        let size = if first { FIRST_PIECE_ROOM } else { PIECE_ROOM };
        let mut room = Vec::new();
        room.try_reserve_exact(size).ok()?;
        room.resize(size, 0);
        let length = match next(&mut room) {
            Piece::Read(length) => length,
            Piece::End if first => return None,
            Piece::End => return Some(()),
            Piece::Failed => return None,
        };
        room.truncate(length);
        if first && !starts_json_lines(&room) {
            return None;
        }
        first = false;
        piece(&room)?;
    }
}

/// What the pieces of an append to a started window read: lines and rows, and a torn last line
/// with its bytes (kept for `feed`).
type AppendRead = (Read, Option<(TornTail, Vec<u8>)>);

/// Lines and rows of text read.
#[derive(Clone, Copy, Default)]
struct Read {
    lines: usize,
    rows: usize,
}

/// Whether `text` starts as JSON lines do: an object first (after a byte order mark and
/// white space).
fn starts_json_lines(text: &[u8]) -> bool {
    let text = text
        .strip_prefix(crate::input::parse::framing::BOM.as_bytes())
        .unwrap_or(text);
    text.iter().copied().find(|byte| !is_space(*byte)) == Some(b'{')
}

/// JSON's white space.
fn is_space(byte: u8) -> bool {
    matches!(byte, b' ' | b'\n' | b'\r' | b'\t')
}
