//! Object keys and matched strings as numbers (`KeyCode`), the key lists of `Members`, and
//! reading a short key straight from the text as a code.

use super::*;

/// An object key as one number, for matching keys without comparing strings: the key's bytes
/// (little-endian) with its length in the top byte, for keys of at most 15 bytes; every longer
/// key is [`LONG_KEY`]. Keys are codes of their text after escapes are read, so `"s\u0065q"` is
/// the code of `seq`.
pub(crate) type KeyCode = u128;

/// The code of every key longer than 15 bytes (no shorter key has it: its length byte is 0xFF).
pub(crate) const LONG_KEY: KeyCode = u128::MAX;

/// The code of `key` (see [`KeyCode`]).
pub(crate) const fn key_code(key: &str) -> KeyCode {
    let bytes = key.as_bytes();
    if bytes.len() > 15 {
        return LONG_KEY;
    }
    let mut code = (bytes.len() as u128) << 120;
    let mut rest = bytes;
    let mut shift = 0u32;
    while let [byte, tail @ ..] = rest {
        code |= (*byte as u128) << shift;
        shift = shift.wrapping_add(8);
        rest = tail;
    }
    code
}

/// [`key_code`] for keys read at run time, without shifting 128-bit numbers (which wasm does
/// in many instructions).
pub(super) fn runtime_key_code(key: &[u8]) -> KeyCode {
    let mut bytes = [0u8; 16];
    match (bytes.get_mut(..key.len()), u8::try_from(key.len())) {
        (Some(head), Ok(length)) if length <= 15 => {
            head.copy_from_slice(key);
            if let Some(last) = bytes.last_mut() {
                *last = length;
            }
            u128::from_le_bytes(bytes)
        }
        _ => LONG_KEY,
    }
}

/// A key an object's reader looks for (see [`Members`]): its code, and the text of its member
/// written without spaces, `"key":`, for finding it at the cursor with a word comparison or two.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Key {
    pub(super) code: KeyCode,
    /// `"key":` as two little-endian words, zero past its end.
    pub(super) text: [u64; 2],
    /// The bits of the two words `text` covers; none for a key too long for them, so that such
    /// a key is never found from its text (it is found by its code).
    pub(super) mask: [u64; 2],
    /// The length of `"key":`.
    pub(super) length: usize,
}

/// The [`Key`] of `key`.
pub(crate) const fn key(key: &str) -> Key {
    let length = key.len().wrapping_add(3);
    let code = key_code(key);
    if length > 16 {
        // Never found from its text: no text has set bits where the mask has none.
        return Key {
            code,
            text: [1, 0],
            mask: [0, 0],
            length,
        };
    }
    let mut text = b'"' as u128;
    let mut shift = 8u32;
    let mut rest = key.as_bytes();
    while let [byte, tail @ ..] = rest {
        text |= (*byte as u128) << shift;
        shift = shift.wrapping_add(8);
        rest = tail;
    }
    text |= (b'"' as u128) << shift | (b':' as u128) << shift.wrapping_add(8);
    let mask = match 1u128.checked_shl((length as u32).wrapping_mul(8)) {
        Some(bit) => bit.wrapping_sub(1),
        None => u128::MAX,
    };
    Key {
        code,
        text: [text as u64, (text >> 64) as u64],
        mask: [mask as u64, (mask >> 64) as u64],
        length,
    }
}

/// The members of an object, read against a list of known keys in the order writers usually
/// give them: each member is first looked for as the key after the last one found, written
/// without spaces, which costs a word comparison or two; anything else is read the general way
/// ([`Reader::next_key_code`]), with the same results.
pub(crate) struct Members<'k> {
    pub(super) object: Container,
    pub(super) keys: &'k [Key],
    /// The index in `keys` of the key looked for first.
    pub(super) likely: usize,
}

impl<'k> Members<'k> {
    /// The members of the object whose `{` the reader took, `keys[likely]` looked for first.
    pub fn new(object: Container, keys: &'k [Key], likely: usize) -> Members<'k> {
        Members {
            object,
            keys,
            likely,
        }
    }

    /// The next member: `Some(index)` of its key in the list (the list's length for any other
    /// key), with the cursor on its value, which the caller must read or skip; `None` after the
    /// closing `}`.
    #[inline(always)]
    pub fn next(&mut self, reader: &mut Reader<'_>) -> Step<Option<usize>> {
        if let Some(key) = self.keys.get(self.likely) {
            if reader.compact_key(&mut self.object, key) {
                self.likely = self.likely.saturating_add(1);
                return Ok(Some(self.likely.saturating_sub(1)));
            }
        }
        if reader.byte_at(reader.pos) == Some(b'}') {
            reader.advance(1);
            reader.leave();
            return Ok(None);
        }
        self.search(reader)
    }

    /// [`Members::next`] for a member that is not the likely one: its key is read and searched
    /// for in the list.
    #[inline(never)]
    pub(super) fn search(&mut self, reader: &mut Reader<'_>) -> Step<Option<usize>> {
        let Some(code) = reader.next_key_code(&mut self.object)? else {
            return Ok(None);
        };
        let index = self.keys.iter().position(|key| key.code == code);
        let index = index.unwrap_or(self.keys.len());
        self.likely = index.saturating_add(1);
        Ok(Some(index))
    }
}

/// The code of a key of `length` (at most 7) bytes, the low bytes of `word`.
pub(super) fn short_key_code(word: u64, length: u32) -> KeyCode {
    u128::from(low_bytes(word, length)) | (u128::from(length) << 120)
}

/// The code of the string whose text starts at `bytes[start]`, and where its closing `"` is,
/// when it has at most 15 plain bytes (no escapes or control characters) and, after its `"`,
/// 8 bytes of text (16 if it is longer than 7 bytes).
#[inline]
pub(super) fn plain_code(bytes: &[u8], start: usize) -> Option<(KeyCode, usize)> {
    let low = word(bytes.get(start..start.checked_add(8)?)?);
    let specials = string_specials(low);
    let (length, high) = if specials != 0 {
        (specials.trailing_zeros() / 8, 0)
    } else {
        let second = start.checked_add(8)?;
        let high = word(bytes.get(second..second.checked_add(8)?)?);
        (
            8u32.checked_add(string_specials(high).trailing_zeros() / 8)?,
            high,
        )
    };
    let end = start.checked_add(length as usize)?;
    if length > 15 || bytes.get(end) != Some(&b'"') {
        return None;
    }
    let code = if length < 8 {
        short_key_code(low, length)
    } else {
        let high = low_bytes(high, length.wrapping_sub(8));
        u128::from(low) | (u128::from(high) << 64) | (u128::from(length) << 120)
    };
    Some((code, end))
}

/// The low `count` bytes of `word` (all of it from 8 on), the others zero.
pub(super) fn low_bytes(word: u64, count: u32) -> u64 {
    let mask = 1u64
        .checked_shl(count.wrapping_mul(8))
        .map_or(u64::MAX, |bit| bit.wrapping_sub(1));
    word & mask
}
