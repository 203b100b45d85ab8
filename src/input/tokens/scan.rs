//! Measuring JSON text already checked: for a system message's blocks that are not text
//! (checked by the step that read the message's text), and in the wasm module for every content
//! block. Natively a content block is checked and measured in one pass
//! ([`Reader::walk_value`](crate::input::json::reader::Reader::walk_value) with a
//! [`Measure`](super::Measure)); the wasm module keeps this scan, since that pass's code would
//! put it about 900 bytes gzipped over its size budget. The tests hold the two to the same
//! figures.

use super::{
    kind_of, member_of, number_units, record, word_of, word_units, BlockMembers, Member, HIGHS,
};
use crate::input::json::blocks::{plain_units, UNITS_BLOCK};
use crate::input::json::reader::{byte_units, escaped_units};

const ONES: u64 = 0x0101_0101_0101_0101;

/// Whether one of the eight bytes of `word` is `"` or `\` (in checked JSON text, the only
/// bytes a string's plain run stops at).
#[inline]
fn has_quote_or_backslash(word: u64) -> bool {
    let zero_byte = |x: u64| x.wrapping_sub(ONES) & !x;
    let quote = word ^ ONES.wrapping_mul(u64::from(b'"'));
    let backslash = word ^ ONES.wrapping_mul(u64::from(b'\\'));
    (zero_byte(quote) | zero_byte(backslash)) & HIGHS != 0
}

/// Tokens of one content block given as checked JSON text.
#[cfg(any(test, target_arch = "wasm32"))]
pub(super) fn block_tokens(raw: &str) -> u32 {
    let bytes = raw.as_bytes();
    let mut members = BlockMembers::default();
    let units = scan_json(bytes, Some(&mut members));
    super::tokens_of(bytes.first() == Some(&b'{'), units, &members)
}

/// Scans checked JSON text and returns the length of what `JSON.stringify` writes for it
/// (duplicate keys are counted as written, where `JSON.parse` keeps one). With `members`, also
/// reads the top-level members the heuristic needs.
pub(super) fn scan_json(bytes: &[u8], mut members: Option<&mut BlockMembers>) -> usize {
    let (mut at, mut units, mut depth) = (0usize, 0usize, 0usize);
    // At depth 1: whether the next string is a key, the member whose value is being read and
    // where its value started.
    let mut key_due = false;
    let mut member = Member::Other;
    let mut value_start = 0usize;
    let mut value_string: Option<usize> = None;
    while let Some(&byte) = bytes.get(at) {
        match byte {
            b'{' | b'[' => {
                depth = depth.saturating_add(1);
                key_due = depth == 1 && byte == b'{';
                units = units.saturating_add(1);
                at = at.saturating_add(1);
            }
            b'}' | b']' | b',' => {
                if depth == 1 {
                    if let Some(members) = members.as_deref_mut() {
                        let value_units = units.saturating_sub(value_start);
                        record(members, member, value_string, value_units);
                    }
                    member = Member::Other;
                    value_string = None;
                    key_due = byte == b',';
                }
                if byte != b',' {
                    depth = depth.saturating_sub(1);
                }
                units = units.saturating_add(1);
                at = at.saturating_add(1);
            }
            b':' => {
                units = units.saturating_add(1);
                if depth == 1 {
                    value_start = units;
                }
                at = at.saturating_add(1);
            }
            b'"' => {
                let string = scan_string(bytes, at);
                let inner = bytes
                    .get(at.saturating_add(1)..string.end)
                    .unwrap_or_default();
                if depth == 1 && key_due {
                    member = member_of(inner, string.escaped);
                    key_due = false;
                } else if depth == 1 {
                    value_string = Some(string.decoded);
                    if member == Member::Type {
                        if let Some(members) = members.as_deref_mut() {
                            members.kind = kind_of(inner, string.escaped);
                        }
                    }
                }
                units = units.saturating_add(string.written).saturating_add(2);
                at = string.end.saturating_add(1);
            }
            b' ' | b'\t' | b'\n' | b'\r' => at = at.saturating_add(1),
            b't' | b'f' | b'n' => {
                let length = match byte {
                    b't' | b'n' => 4,
                    _ => 5,
                };
                units = units.saturating_add(length);
                at = at.saturating_add(length);
            }
            _ => {
                let end = number_end(bytes, at);
                units = units.saturating_add(number_units(bytes.get(at..end).unwrap_or_default()));
                at = end.max(at.saturating_add(1));
            }
        }
    }
    units
}

/// A scanned string.
pub(super) struct ScannedString {
    /// Its length in UTF-16 code units once decoded.
    pub decoded: usize,
    /// The length `JSON.stringify` writes between the quotes.
    pub written: usize,
    /// The index of its closing quote (or the end of the text).
    pub end: usize,
    /// Whether it holds an escape.
    pub escaped: bool,
}

/// Scans the checked JSON string whose opening quote is at `start`.
pub(super) fn scan_string(bytes: &[u8], start: usize) -> ScannedString {
    let mut at = start.saturating_add(1);
    let (mut decoded, mut written, mut escaped) = (0usize, 0usize, false);
    // Whether the last unit was a high surrogate written as an escape (counted as 6 so far).
    let mut high = false;
    while let Some(&byte) = bytes.get(at) {
        match byte {
            b'"' => break,
            b'\\' => {
                escaped = true;
                let escape = bytes.get(at.saturating_add(1)).copied();
                at = at.saturating_add(2);
                decoded = decoded.saturating_add(1);
                if escape != Some(b'u') {
                    high = false;
                    let length = if escape == Some(b'/') { 1 } else { 2 };
                    written = written.saturating_add(length);
                    continue;
                }
                let code = bytes
                    .get(at..at.saturating_add(4))
                    .and_then(|hex| std::str::from_utf8(hex).ok())
                    .and_then(|hex| u16::from_str_radix(hex, 16).ok())
                    .unwrap_or(0);
                at = at.saturating_add(4);
                match code {
                    0xDC00..=0xDFFF if high => {
                        // A pair: both halves are written as they are.
                        written = written.saturating_sub(6).saturating_add(2);
                        high = false;
                    }
                    0xD800..=0xDBFF => {
                        written = written.saturating_add(6);
                        high = true;
                    }
                    _ => {
                        high = false;
                        written = written.saturating_add(escaped_units(code));
                    }
                }
            }
            _ => {
                high = false;
                // A block, then eight bytes at a time while none ends the run (a checked string
                // holds no control byte): their units are written as they are.
                let (run, mut units) = (at, 0usize);
                while let Some(block) = at
                    .checked_add(UNITS_BLOCK)
                    .and_then(|end| bytes.get(at..end))
                {
                    let (length, block_units) = plain_units(block);
                    units = units.saturating_add(block_units);
                    at = at.saturating_add(length);
                    if length < UNITS_BLOCK {
                        break;
                    }
                }
                while let Some(chunk) = at.checked_add(8).and_then(|end| bytes.get(at..end)) {
                    let word = word_of(chunk);
                    if has_quote_or_backslash(word) {
                        break;
                    }
                    units = units.saturating_add(word_units(word));
                    at = at.saturating_add(8);
                }
                if at == run {
                    units = byte_units(byte);
                    at = at.saturating_add(1);
                }
                decoded = decoded.saturating_add(units);
                written = written.saturating_add(units);
            }
        }
    }
    ScannedString {
        decoded,
        written,
        end: at,
        escaped,
    }
}

/// The end of the number starting at `start`.
fn number_end(bytes: &[u8], start: usize) -> usize {
    let rest = bytes.get(start..).unwrap_or_default();
    let length = rest
        .iter()
        .position(|byte| !matches!(byte, b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E'))
        .unwrap_or(rest.len());
    start.saturating_add(length)
}
