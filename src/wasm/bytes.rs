//! JSON text given as a `Uint8Array`, copied into wasm memory a piece at a time, straight into
//! the buffer the reader reads (see `parse::stream`), so the whole text is never in wasm memory
//! at once. Text that needs the whole-text reader (an error to place, invalid UTF-8, a batch
//! that is neither an array nor JSON lines) is then copied whole.

use wasm_bindgen::JsValue;

use crate::error::Error;
use crate::input::intern::JsonInterner;
use crate::input::json::utf8::is_utf8;
use crate::input::parse::framing::{Framing, Rows};
use crate::input::parse::parse_text_rows;
use crate::input::parse::row_lines::line_in_pieces;
use crate::input::parse::stream::{parse_streamed, Streamed};
use crate::room::try_room;
use crate::window::conversation::{Conversation, Piece, PieceLoad};

/// [`Error::OutOfMemory`] for bytes of 4 GiB or more, which no wasm32 memory holds (and whose
/// length a `u32` cannot give): checked before they are read. js-sys reads `length` as a
/// `u32`, which wraps a length of 4 GiB or more (2^32 bytes would read as none), so it is read
/// here as the number JS has.
pub(crate) fn check_length(bytes: &js_sys::Uint8Array) -> Result<(), Error> {
    let length = js_sys::Reflect::get(bytes, &JsValue::from_str("length"))
        .ok()
        .and_then(|length| length.as_f64())
        .unwrap_or(f64::INFINITY);
    if length > f64::from(u32::MAX) {
        // Saturating: an infinite length (an unreadable one) is every byte.
        return Err(Error::OutOfMemory {
            bytes: length as u64,
        });
    }
    Ok(())
}

/// A copy of `bytes` in wasm memory (for `feed`), or [`Error::OutOfMemory`] when it does not
/// fit.
pub(crate) fn copied(bytes: &js_sys::Uint8Array) -> Result<Vec<u8>, Error> {
    check_length(bytes)?;
    whole_bytes(bytes)
}

/// The events of a JSON batch given as UTF-8 bytes, read in pieces.
pub(crate) fn read_bytes_batch(
    bytes: &js_sys::Uint8Array,
    interner: &mut JsonInterner,
    framing: Framing,
) -> Result<Rows, Error> {
    let mut pieces = BytePieces::new(bytes);
    match parse_streamed(&mut |room| pieces.next(room), interner, framing) {
        Streamed::Read(result) if !pieces.failed => result,
        _ => parse_text_rows(&whole_bytes(bytes)?, interner, framing),
    }
}

/// `error`, found in a batch read from `bytes`, with the line of the row it names: the bytes
/// are read again in pieces up to the row (the error path only).
pub(crate) fn locate_in_bytes(error: Error, bytes: &js_sys::Uint8Array) -> Error {
    error.located(|row| {
        let mut pieces = BytePieces::new(bytes);
        line_in_pieces(row, &mut |room| pieces.next(room))
    })
}

/// `loadJson` or `appendJson` of `bytes` read in pieces as `feed` reads them: `read` is
/// `Conversation::load_pieces` or `Conversation::append_pieces`, given the pieces; `None` when
/// the whole-text reader is needed.
pub(crate) fn bytes_in_pieces(
    conversation: &mut Conversation,
    bytes: &js_sys::Uint8Array,
    read: impl FnOnce(&mut Conversation, &mut dyn FnMut(&mut [u8]) -> Piece) -> Option<PieceLoad>,
) -> Option<PieceLoad> {
    let mut pieces = BytePieces::new(bytes);
    let mut next = |room: &mut [u8]| match pieces.next(room) {
        Some(length) => Piece::Read(length),
        None if pieces.failed => Piece::Failed,
        None => Piece::End,
    };
    read(conversation, &mut next)
}

/// A copy of `bytes` in wasm memory, or [`Error::OutOfMemory`] when it does not fit.
fn whole_bytes(bytes: &js_sys::Uint8Array) -> Result<Vec<u8>, Error> {
    let length = bytes.length() as usize;
    let mut whole = Vec::new();
    try_room(&mut whole, length)?;
    whole.resize(length, 0);
    bytes.copy_to(&mut whole);
    Ok(whole)
}

/// A `Uint8Array` handed out as pieces that end between UTF-8 characters.
struct BytePieces<'a> {
    bytes: &'a js_sys::Uint8Array,
    length: u32,
    /// Bytes handed out so far.
    read: u32,
    /// Set when a piece is not UTF-8 (the pieces then end early, and the whole-text reader
    /// reports the error).
    failed: bool,
}

impl<'a> BytePieces<'a> {
    fn new(bytes: &'a js_sys::Uint8Array) -> BytePieces<'a> {
        BytePieces {
            bytes,
            length: bytes.length(),
            read: 0,
            failed: false,
        }
    }

    /// Copies the next piece, checked as UTF-8, to the start of `out` (as much as fits, cut
    /// before a character the room would split) and returns its length; `None` when the bytes
    /// are over.
    fn next(&mut self, out: &mut [u8]) -> Option<usize> {
        if self.read >= self.length || self.failed {
            return None;
        }
        let left = self.length.saturating_sub(self.read);
        let size = u32::try_from(out.len()).unwrap_or(u32::MAX).min(left);
        let end = self.read.saturating_add(size);
        let room = out.get_mut(..size as usize)?;
        self.bytes.subarray(self.read, end).copy_to(room);
        let cut = if end == self.length {
            room.len()
        } else {
            character_start(room)
        };
        match room.get(..cut) {
            Some(piece) if !piece.is_empty() && is_utf8(piece) => {
                self.read = self.read.saturating_add(cut as u32);
                Some(cut)
            }
            _ => {
                self.failed = true;
                None
            }
        }
    }
}

/// The length of `piece` without a last character it ends inside of (UTF-8 characters take at
/// most four bytes, so only the last three bytes can start one).
fn character_start(piece: &[u8]) -> usize {
    let length = piece.len();
    for back in 1..=3 {
        let Some(at) = length.checked_sub(back) else {
            break;
        };
        let Some(&byte) = piece.get(at) else {
            break;
        };
        if byte & 0b1100_0000 == 0b1000_0000 {
            continue;
        }
        let width = match byte {
            0xf0.. => 4,
            0xe0.. => 3,
            0xc0.. => 2,
            _ => 1,
        };
        return if back < width { at } else { length };
    }
    length
}

#[cfg(test)]
mod tests {
    use super::character_start;

    #[test]
    fn a_piece_ends_before_a_split_character() {
        let text = "ab\u{e9}\u{20ac}\u{1f600}".as_bytes();
        let starts = [0, 1, 2, 4, 7, 11];
        for end in 0..=text.len() {
            let expected = starts
                .iter()
                .copied()
                .filter(|s| *s <= end)
                .max()
                .unwrap_or(0);
            let cut = text.get(..end).map(character_start);
            assert_eq!(cut, Some(expected), "piece of {end} bytes");
        }
    }
}
