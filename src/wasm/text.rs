//! JS strings as UTF-8 in wasm memory, written by the engine's `TextEncoder.encodeInto` into a
//! Rust buffer a piece at a time. wasm-bindgen's own string passing copies an ASCII string one UTF-16 unit
//! at a time in JS, which cost a 70 MB log about 300 ms; `encodeInto` takes about 30 ms.

use wasm_bindgen::prelude::*;

use crate::error::Error;
use crate::event::SessionEvent;
use crate::intern::JsonInterner;
use crate::parse::parse_events_with;
use crate::parse::stream::{parse_streamed, Streamed};

#[wasm_bindgen(inline_js = r#"
const encoder = new TextEncoder();

// Writes text[from..] as UTF-8 into `out` (never splitting a character); returns the UTF-16
// units read and the bytes written.
export function promptfoldEncodeInto(text, from, out) {
  const { read, written } = encoder.encodeInto(from === 0 ? text : text.substring(from), out);
  return [read, written];
}
"#)]
extern "C" {
    #[wasm_bindgen(js_name = promptfoldEncodeInto)]
    fn encode_into(text: &js_sys::JsString, from: u32, out: &mut [u8]) -> js_sys::Array;
}

/// How many bytes of a string cross into wasm memory at a time when it is streamed.
const PIECE_BYTES: usize = 1 << 20;

/// The events of a JSON batch given as a JS string, read in pieces (see `parse::stream`), so
/// the whole text is never in wasm memory at once; text that needs the whole-text reader (an
/// error to place, a batch that is not an array or JSON lines) is then copied whole.
pub(crate) fn read_string_batch(
    text: &js_sys::JsString,
    interner: &mut JsonInterner,
) -> Result<Vec<SessionEvent>, Error> {
    let mut pieces = StringPieces::new(text);
    match parse_streamed(&mut |out| pieces.next(out), interner) {
        Streamed::Read(result) if !pieces.failed => result,
        _ => parse_events_with(&whole_string(text)?, interner),
    }
}

/// `text` as one Rust string (lone surrogates become U+FFFD, as in every UTF-8 encoding of a JS
/// string), with room for ASCII text made up front.
fn whole_string(text: &js_sys::JsString) -> Result<String, Error> {
    let mut whole = String::with_capacity(text.length() as usize);
    let mut pieces = StringPieces::new(text);
    while pieces.next(&mut whole) {}
    if pieces.failed {
        return Err(Error::InvalidArgument {
            argument: "text".to_owned(),
            message: "the engine's TextEncoder gave no UTF-8".to_owned(),
        });
    }
    Ok(whole)
}

/// A JS string handed out as UTF-8 pieces of at most [`PIECE_BYTES`].
struct StringPieces<'a> {
    text: &'a js_sys::JsString,
    units: u32,
    /// UTF-16 units handed out so far.
    read: u32,
    buffer: Vec<u8>,
    /// Set if the engine's encoder misbehaved (the pieces then end early).
    failed: bool,
}

impl<'a> StringPieces<'a> {
    fn new(text: &'a js_sys::JsString) -> StringPieces<'a> {
        StringPieces {
            text,
            units: text.length(),
            read: 0,
            buffer: Vec::new(),
            failed: false,
        }
    }

    /// Appends the next piece to `out`; `false` when the string is over.
    fn next(&mut self, out: &mut String) -> bool {
        if self.read >= self.units || self.failed {
            return false;
        }
        self.buffer.resize(PIECE_BYTES, 0);
        let counts = encode_into(self.text, self.read, &mut self.buffer);
        let (units_read, written) = (counts.get(0).as_f64(), counts.get(1).as_f64());
        let piece = match (units_read, written) {
            (Some(units_read), Some(written)) if units_read >= 1.0 => {
                self.read = self.read.saturating_add(units_read as u32);
                self.buffer.get(..written as usize)
            }
            _ => None,
        };
        match piece.map(std::str::from_utf8) {
            Some(Ok(piece)) => {
                out.push_str(piece);
                true
            }
            _ => {
                self.failed = true;
                false
            }
        }
    }
}
