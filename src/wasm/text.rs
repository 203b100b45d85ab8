//! JS strings as UTF-8 in wasm memory, written by the engine's `TextEncoder.encodeInto` a piece at
//! a time, straight into the buffer the reader reads (see `parse::stream`), and checked as UTF-8
//! there. wasm-bindgen's own string passing copies an ASCII string one UTF-16 unit at a time in JS,
//! which cost a 70 MB log about 300 ms; `encodeInto` takes about 30 ms.

use wasm_bindgen::prelude::*;

use super::convert::bytes_from_js;
use crate::error::Error;
use crate::input::intern::JsonInterner;
use crate::input::json::utf8::is_utf8;
use crate::input::parse::framing::{Framing, Rows};
use crate::input::parse::parse_text_rows;
use crate::input::parse::row_lines::line_in_pieces;
use crate::input::parse::stream::{parse_streamed, Streamed, PIECE_ROOM};
use crate::room::try_room;
use crate::window::conversation::{Conversation, Piece, PieceLoad};

#[wasm_bindgen(module = "/src/wasm/js/text.js")]
extern "C" {
    #[wasm_bindgen(js_name = promptfoldEncodeInto)]
    fn encode_into(text: &js_sys::JsString, from: u32, out: &mut [u8]) -> js_sys::Array;
}

/// The events of a JSON batch given as a JS string, read in pieces (see `parse::stream`), so
/// the whole text is never in wasm memory at once; text that needs the whole-text reader (an
/// error to place, a batch that is not an array or JSON lines) is then copied whole.
pub(crate) fn read_string_batch(
    text: &js_sys::JsString,
    interner: &mut JsonInterner,
    framing: Framing,
) -> Result<Rows, Error> {
    let mut pieces = StringPieces::new(text);
    match parse_streamed(&mut |room| pieces.next(room), interner, framing) {
        Streamed::Read(result) if !pieces.failed => result,
        _ => parse_text_rows(whole_string(text)?.as_bytes(), interner, framing),
    }
}

/// `error`, found in a batch read from `text`, with the line of the row it names: the string
/// is read again in pieces up to the row (the error path only).
pub(crate) fn locate_in_string(error: Error, text: &js_sys::JsString) -> Error {
    error.located(|row| {
        let mut pieces = StringPieces::new(text);
        line_in_pieces(row, &mut |room| pieces.next(room))
    })
}

/// `loadJson` or `appendJson` of `text` read in pieces as `feed` reads them: `read` is
/// `Conversation::load_pieces` or `Conversation::append_pieces`, given the pieces; `None` when
/// the whole-text reader is needed.
pub(crate) fn string_in_pieces(
    conversation: &mut Conversation,
    text: &js_sys::JsString,
    read: impl FnOnce(&mut Conversation, &mut dyn FnMut(&mut [u8]) -> Piece) -> Option<PieceLoad>,
) -> Option<PieceLoad> {
    let mut pieces = StringPieces::new(text);
    let mut next = |room: &mut [u8]| match pieces.next(room) {
        Some(length) => Piece::Read(length),
        None if pieces.failed => Piece::Failed,
        None => Piece::End,
    };
    read(conversation, &mut next)
}

/// What `feed` keeps of the strings it is given: a string may end between the two halves of a
/// character (a UTF-16 surrogate pair), whose first half waits for the next string.
#[derive(Clone, Debug, Default)]
pub(crate) struct FedText {
    high_surrogate: Option<u16>,
}

impl FedText {
    /// The UTF-8 bytes of `chunk` (a string or bytes) after what was kept, and what to keep
    /// after them.
    pub fn bytes(&self, chunk: &JsValue) -> Result<(Vec<u8>, FedText), Error> {
        let Some(text) = chunk.dyn_ref::<js_sys::JsString>() else {
            let mut bytes = bytes_from_js(chunk)?;
            if self.high_surrogate.is_some() {
                // A first half that no second half followed: what UTF-8 encoders write for it.
                bytes.splice(0..0, "\u{fffd}".bytes());
            }
            return Ok((bytes, FedText::default()));
        };
        let mut text = text.clone();
        if let Some(high) = self.high_surrogate {
            text = js_sys::JsString::from_char_code1(u32::from(high)).concat(&text);
        }
        let units = text.length();
        let last = units.checked_sub(1).map(|last| text.char_code_at(last));
        let kept = match last {
            Some(unit) if (f64::from(0xd800)..f64::from(0xdc00)).contains(&unit) => {
                Some(unit as u16)
            }
            _ => None,
        };
        if kept.is_some() {
            text = text.slice(0, units.saturating_sub(1));
        }
        let bytes = JsValue::from(text)
            .as_string()
            .unwrap_or_default()
            .into_bytes();
        Ok((
            bytes,
            FedText {
                high_surrogate: kept,
            },
        ))
    }
}

/// `text` as one Rust string (lone surrogates become U+FFFD, as in every UTF-8 encoding of a JS
/// string), with room for ASCII text made up front.
pub(crate) fn whole_string(text: &js_sys::JsString) -> Result<String, Error> {
    let mut whole = Vec::new();
    try_room(&mut whole, text.length() as usize)?;
    let mut pieces = StringPieces::new(text);
    loop {
        let filled = whole.len();
        try_room(&mut whole, PIECE_ROOM)?;
        whole.resize(filled.saturating_add(PIECE_ROOM), 0);
        let written = whole.get_mut(filled..).and_then(|room| pieces.next(room));
        whole.truncate(filled.saturating_add(written.unwrap_or(0)));
        if written.is_none() {
            break;
        }
    }
    match String::from_utf8(whole) {
        Ok(whole) if !pieces.failed => Ok(whole),
        _ => Err(Error::InvalidArgument {
            argument: "text".to_owned(),
            message: "the engine's TextEncoder gave no UTF-8".to_owned(),
        }),
    }
}

/// A JS string handed out as UTF-8 pieces.
struct StringPieces<'a> {
    text: &'a js_sys::JsString,
    units: u32,
    /// UTF-16 units handed out so far.
    read: u32,
    /// Set if the engine's encoder misbehaved (the pieces then end early).
    failed: bool,
}

impl<'a> StringPieces<'a> {
    fn new(text: &'a js_sys::JsString) -> StringPieces<'a> {
        StringPieces {
            text,
            units: text.length(),
            read: 0,
            failed: false,
        }
    }

    /// Writes the next piece, checked as UTF-8, at the start of `out` (as much as fits) and
    /// returns its length; `None` when the string is over.
    fn next(&mut self, out: &mut [u8]) -> Option<usize> {
        if self.read >= self.units || self.failed {
            return None;
        }
        let counts = encode_into(self.text, self.read, out);
        let (units_read, written) = (counts.get(0).as_f64(), counts.get(1).as_f64());
        let piece = match (units_read, written) {
            (Some(units_read), Some(written)) if units_read >= 1.0 => {
                self.read = self.read.saturating_add(units_read as u32);
                out.get(..written as usize)
            }
            _ => None,
        };
        match piece {
            Some(piece) if is_utf8(piece) => Some(piece.len()),
            _ => {
                self.failed = true;
                None
            }
        }
    }
}
