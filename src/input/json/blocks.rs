//! Bytes tested a block at a time: sixteen, as one wasm SIMD vector when the build has `simd128`
//! (scripts/build.sh builds it so), else as two words.

#[cfg(target_feature = "simd128")]
use core::arch::wasm32::{
    i8x16_lt, i8x16_splat, u64x2, u8x16_bitmask, u8x16_eq, u8x16_ge, u8x16_lt, u8x16_splat, v128,
    v128_any_true, v128_or, v128_xor,
};

#[cfg(not(target_feature = "simd128"))]
use super::reader::{string_specials, word, words::HIGHS};

/// How many bytes [`first_string_special`] and [`same_block`] take: natively one word, where two
/// cost a short string (most strings the reader skips are) more than they save a long one.
pub(crate) const BLOCK: usize = if cfg!(target_feature = "simd128") {
    16
} else {
    8
};

/// How many bytes [`plain_units`] takes.
pub(crate) const UNITS_BLOCK: usize = 16;

/// How many bytes [`is_ascii_block`] takes (for [`super::utf8`]).
#[cfg(any(test, feature = "wasm"))]
pub(crate) const ASCII_BLOCK: usize = 32;

/// The sixteen bytes of `block` as a vector (zero if it has not sixteen bytes).
#[cfg(target_feature = "simd128")]
fn vector(block: &[u8]) -> v128 {
    let half = |at: usize| {
        let bytes = block.get(at..at.wrapping_add(8));
        bytes.and_then(|bytes| <[u8; 8]>::try_from(bytes).ok())
    };
    let word = |at: usize| half(at).map_or(0, u64::from_le_bytes);
    u64x2(word(0), word(8))
}

/// Where the first byte of `block` ([`BLOCK`] bytes) that is `"`, `\` or a control character
/// (below 0x20) is, if one is.
#[cfg(target_feature = "simd128")]
#[inline]
pub(crate) fn first_string_special(block: &[u8]) -> Option<usize> {
    let bytes = vector(block);
    let quote = u8x16_eq(bytes, u8x16_splat(b'"'));
    let backslash = u8x16_eq(bytes, u8x16_splat(b'\\'));
    let control = u8x16_lt(bytes, u8x16_splat(0x20));
    let specials = u8x16_bitmask(v128_or(v128_or(quote, backslash), control));
    (specials != 0).then_some(specials.trailing_zeros() as usize)
}

/// The two words of `block` ([`UNITS_BLOCK`] bytes; zero words if it has fewer).
#[cfg(not(target_feature = "simd128"))]
#[inline]
fn words(block: &[u8]) -> (u64, u64) {
    let half = |at: usize| block.get(at..at.wrapping_add(8)).map_or(0, word);
    (half(0), half(8))
}

/// The index of the first byte marked in `low` or else in `high` (marks as
/// [`string_specials`] gives them: the high bit of a byte, the lowest mark exact),
/// [`UNITS_BLOCK`] when neither has one.
#[cfg(not(target_feature = "simd128"))]
#[inline]
fn first_marked(low: u64, high: u64) -> usize {
    if low != 0 {
        (low.trailing_zeros() / 8) as usize
    } else {
        (high.trailing_zeros().saturating_add(64) / 8) as usize
    }
}

/// Where the first byte of `block` ([`BLOCK`] bytes) that is `"`, `\` or a control character
/// (below 0x20) is, if one is.
#[cfg(not(target_feature = "simd128"))]
#[inline]
pub(crate) fn first_string_special(block: &[u8]) -> Option<usize> {
    let specials = string_specials(word(block));
    (specials != 0).then_some((specials.trailing_zeros() / 8) as usize)
}

/// The UTF-16 code units the bytes of `word` whose high bit is in `kept` stand for, less one
/// per byte: plus one per lead byte of four (`11110xxx`), less one per continuation byte
/// (`10xxxxxx`). At most 8 either way.
#[cfg(not(target_feature = "simd128"))]
#[inline]
fn extra_units(word: u64, kept: u64) -> (usize, usize) {
    // Bit 7 of each byte: bit 7 of the byte, and bits 6, 5 and 4 shifted up to it.
    let continuation = word & !(word << 1) & kept;
    let four = word & (word << 1) & (word << 2) & (word << 3) & kept;
    // A count of marked bytes: each byte's mark moved to its bit 0, summed into the top byte.
    let count = |marks: u64| ((marks >> 7).wrapping_mul(HIGHS >> 7) >> 56) as usize;
    (count(four), count(continuation))
}

/// How many of the sixteen bytes of `block` come before its first `"`, `\\` or control character
/// (sixteen when it has none), and the UTF-16 code units those bytes stand for in UTF-8: one per
/// byte, less one per continuation byte (`10xxxxxx`), plus one per lead byte of four
/// (`11110xxx`).
#[cfg(not(target_feature = "simd128"))]
#[inline]
pub(crate) fn plain_units(block: &[u8]) -> (usize, usize) {
    let (low, high) = words(block);
    let (low_stops, high_stops) = (string_specials(low), string_specials(high));
    if (low_stops | high_stops | ((low | high) & HIGHS)) == 0 {
        return (UNITS_BLOCK, UNITS_BLOCK);
    }
    let length = first_marked(low_stops, high_stops);
    // The high bits of the bytes before the first stop, in each word.
    let before = |from: usize| {
        let bytes = length.saturating_sub(from).min(8);
        u64::MAX
            .checked_shr(64u32.saturating_sub(8u32.saturating_mul(bytes as u32)))
            .map_or(0, |bits| bits & HIGHS)
    };
    let (low_four, low_continuation) = extra_units(low, before(0));
    let (high_four, high_continuation) = extra_units(high, before(8));
    let units = length
        .saturating_add(low_four)
        .saturating_add(high_four)
        .saturating_sub(low_continuation)
        .saturating_sub(high_continuation);
    (length, units)
}

/// How many of the sixteen bytes of `block` come before its first `"` or `\\` (sixteen when it
/// has none), and the UTF-16 code units those bytes stand for in UTF-8: one per byte, less one
/// per continuation byte (`10xxxxxx`), plus one per lead byte of four (`11110xxx`). The wasm
/// module measures only checked text, whose strings hold no control character, so it does not
/// stop at one as the native form does.
#[cfg(target_feature = "simd128")]
#[inline]
pub(crate) fn plain_units(block: &[u8]) -> (usize, usize) {
    let bytes = vector(block);
    let quote = u8x16_eq(bytes, u8x16_splat(b'"'));
    let backslash = u8x16_eq(bytes, u8x16_splat(b'\\'));
    let stops = u8x16_bitmask(v128_or(quote, backslash));
    let before = stops.trailing_zeros().min(16);
    // The bits of the bytes before the first stop.
    let kept = 1u32
        .checked_shl(before)
        .map_or(u32::MAX, |bit| bit.wrapping_sub(1));
    let length = before as usize;
    if u32::from(u8x16_bitmask(bytes)) & kept == 0 {
        return (length, length);
    }
    // As signed bytes, continuation bytes are those below -64 (0xC0).
    let continuation = u32::from(u8x16_bitmask(i8x16_lt(bytes, i8x16_splat(-64)))) & kept;
    let four = u32::from(u8x16_bitmask(u8x16_ge(bytes, u8x16_splat(0xF0)))) & kept;
    let units = length
        .saturating_add(four.count_ones() as usize)
        .saturating_sub(continuation.count_ones() as usize);
    (length, units)
}

/// Whether blocks `a` and `b` ([`BLOCK`] bytes each) are the same bytes.
#[cfg(target_feature = "simd128")]
#[inline]
pub(crate) fn same_block(a: &[u8], b: &[u8]) -> bool {
    !v128_any_true(v128_xor(vector(a), vector(b)))
}

/// Whether blocks `a` and `b` ([`BLOCK`] bytes each) are the same bytes.
#[cfg(not(target_feature = "simd128"))]
#[inline]
pub(crate) fn same_block(a: &[u8], b: &[u8]) -> bool {
    word(a) == word(b)
}

/// Whether every byte of `block` ([`ASCII_BLOCK`] bytes) is ASCII.
#[cfg(target_feature = "simd128")]
#[cfg(any(test, feature = "wasm"))]
#[inline]
pub(crate) fn is_ascii_block(block: &[u8]) -> bool {
    let half = |at: usize| vector(block.get(at..).unwrap_or_default());
    u8x16_bitmask(v128_or(half(0), half(16))) == 0
}

/// Whether every byte of `block` ([`ASCII_BLOCK`] bytes) is ASCII.
#[cfg(not(target_feature = "simd128"))]
#[cfg(any(test, feature = "wasm"))]
#[inline]
pub(crate) fn is_ascii_block(block: &[u8]) -> bool {
    let word_at = |at: usize| block.get(at..at.wrapping_add(8)).map_or(0, word);
    (word_at(0) | word_at(8) | word_at(16) | word_at(24)) & super::reader::words::HIGHS == 0
}
