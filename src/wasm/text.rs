//! JS strings as UTF-8 in wasm memory, written by the engine's `TextEncoder.encodeInto` straight
//! into a Rust buffer. wasm-bindgen's own string passing copies an ASCII string one UTF-16 unit
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

/// `text` as a Rust string (lone surrogates become U+FFFD, as in every UTF-8 encoding of a JS
/// string); `None` only if the engine's encoder misbehaves. ASCII text is written in one call
/// into a buffer of its length; other text then gets room for the rest, at most three bytes per
/// UTF-16 unit, and a second call.
pub(crate) fn string_from_js(text: &js_sys::JsString) -> Option<String> {
    let units = text.length();
    let mut bytes = vec![0u8; units as usize];
    let (mut read, mut written) = (0u32, 0usize);
    loop {
        let counts = encode_into(text, read, bytes.get_mut(written..)?);
        let (units_read, bytes_written) = (counts.get(0).as_f64()?, counts.get(1).as_f64()?);
        read = read.saturating_add(units_read as u32);
        written = written.saturating_add(bytes_written as usize);
        if read >= units {
            break;
        }
        let needed =
            written.saturating_add((units.saturating_sub(read) as usize).saturating_mul(3));
        if bytes.len() >= needed {
            return None;
        }
        bytes.resize(needed, 0);
    }
    bytes.truncate(written);
    String::from_utf8(bytes).ok()
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
    let mut pieces = StringPieces {
        text,
        units: text.length(),
        read: 0,
        buffer: Vec::new(),
        failed: false,
    };
    match parse_streamed(&mut |out| pieces.next(out), interner) {
        Streamed::Read(result) if !pieces.failed => result,
        _ => {
            let whole = string_from_js(text).ok_or_else(encoder_failed)?;
            parse_events_with(&whole, interner)
        }
    }
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

impl StringPieces<'_> {
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

/// The error for an engine whose `TextEncoder` gives no UTF-8.
pub(crate) fn encoder_failed() -> Error {
    Error::InvalidArgument {
        argument: "text".to_owned(),
        message: "the engine's TextEncoder gave no UTF-8".to_owned(),
    }
}
