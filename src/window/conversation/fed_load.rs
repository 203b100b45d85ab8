//! A load of JSON lines text read in pieces, as [`Conversation::feed`] reads a growing file:
//! the window is built by appending each piece's complete lines, so a load keeps what a feed of
//! the same text keeps (no list of the whole batch's rows, no analysis of it reserved at once).
//! Any text the pieces cannot read the way the whole-text reader would (not JSON lines, or an
//! error to place) is left to that reader.

use crate::input::parse::parse_text_rows;
use crate::views::chat::ChatCard;
use crate::views::splice::ListSplice;
use crate::views::ConversationChange;
use crate::window::analysis::compare::{compare, compare_besides_chat};

use super::{Call, Conversation};

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
        let mut first = true;
        loop {
            // A room of its own for each piece, as `feed` is given pieces. The first is small:
            // it tells whether the text is JSON lines before a megabyte is copied for nothing.
            let size = if first { FIRST_PIECE_ROOM } else { PIECE_ROOM };
            let mut room = Vec::new();
            room.try_reserve_exact(size).ok()?;
            room.resize(size, 0);
            let length = match next(&mut room) {
                Piece::Read(length) => length,
                Piece::End => break,
                Piece::Failed => return None,
            };
            room.truncate(length);
            if first && !starts_json_lines(&room) {
                return None;
            }
            first = false;
            loaded.feed(&room[..]).ok()?;
        }
        if first {
            return None;
        }
        let torn_tail = loaded.read_last_line()?;
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

    /// Every chat card of the window, in chat order.
    pub(crate) fn cards_in_chat(&self) -> impl Iterator<Item = &ChatCard> + '_ {
        self.analysis.cards_in_chat()
    }

    /// Reads the kept incomplete last line as `load_json` reads the last line of its text:
    /// `Some` with the torn tail (its line counted in the whole text) when it is left out, `None`
    /// when it needs the whole-text reader.
    fn read_last_line(&mut self) -> Option<Option<crate::input::parse::framing::TornTail>> {
        let first = self
            .unfinished
            .iter()
            .copied()
            .find(|byte| !is_space(*byte));
        match first {
            None => {
                self.unfinished.clear();
                return Some(None);
            }
            // Anything but an object would be read as a batch of its own.
            Some(b'{') => {}
            Some(_) if self.lines_read == 0 => {}
            Some(_) => return None,
        }
        let rest = std::mem::take(&mut self.unfinished);
        let lines_before = self.lines_read;
        let framing = self.framing(Call::Append, true);
        let rows = parse_text_rows(&rest, &mut self.interner, framing).ok()?;
        let lines = rows.lines;
        let change = self.apply(Call::Append, rows, self.has_more).ok()?;
        self.text_read(Call::Append, lines);
        Some(change.torn_tail.map(|mut tail| {
            tail.line = tail.line.saturating_add(lines_before);
            tail
        }))
    }
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
