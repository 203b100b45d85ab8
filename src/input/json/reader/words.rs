//! Eight bytes at a time: reading a word of the text, finding the bytes a string stops at,
//! comparing byte runs.

use crate::input::json::blocks::{same_block, BLOCK};

pub(super) const ONES: u64 = 0x0101_0101_0101_0101;
pub(in crate::input::json) const HIGHS: u64 = 0x8080_8080_8080_8080;

/// The high bit of each of the eight bytes of `word` (little-endian) that is `"`, `\` or a
/// control character (below 0x20), and perhaps of some bytes after the first such byte (borrows
/// run upwards), never of a byte before it: the lowest set bit marks the first special byte.
pub(in crate::input::json) fn string_specials(word: u64) -> u64 {
    let quote = word ^ ONES.wrapping_mul(u64::from(b'"'));
    let backslash = word ^ ONES.wrapping_mul(u64::from(b'\\'));
    let zero_byte = |x: u64| x.wrapping_sub(ONES) & !x;
    let below_space = word.wrapping_sub(ONES.wrapping_mul(0x20)) & !word;
    (zero_byte(quote) | zero_byte(backslash) | below_space) & HIGHS
}

/// Whether `byte` ends a run of ordinary string bytes.
pub(super) fn is_string_special(byte: u8) -> bool {
    byte == b'"' || byte == b'\\' || byte < 0x20
}

/// Whether `a` and `b` are the same bytes. In wasm, where `==` on slices is a byte-by-byte loop,
/// it compares a block at a time (see [`crate::input::json::blocks`]).
pub(crate) fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    if cfg!(target_arch = "wasm32") {
        same_words(a, b)
    } else {
        a == b
    }
}

/// [`same_bytes`], a block at a time.
pub(super) fn same_words(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let (mut a_words, mut b_words) = (a.chunks_exact(BLOCK), b.chunks_exact(BLOCK));
    for (x, y) in (&mut a_words).zip(&mut b_words) {
        if !same_block(x, y) {
            return false;
        }
    }
    a_words.remainder() == b_words.remainder()
}

/// The eight bytes of `chunk` as a little-endian word (`chunk` has eight bytes).
pub(in crate::input::json) fn word(chunk: &[u8]) -> u64 {
    <[u8; 8]>::try_from(chunk).map_or(0, u64::from_le_bytes)
}
