//! JS strings as UTF-8 in wasm memory, written by the engine's `TextEncoder.encodeInto` straight
//! into a Rust buffer. wasm-bindgen's own string passing copies an ASCII string one UTF-16 unit
//! at a time in JS, which cost a 70 MB log about 300 ms; `encodeInto` takes about 30 ms.

use wasm_bindgen::prelude::*;

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
