//! Checking a value and measuring it in one pass: [`Reader::walk_value`] tells a [`Tally`] each
//! part of the value it checks, and `Reader::string_units` (native only: the wasm module checks
//! a block, then scans it, for its size) checks a string while it counts its UTF-16 code units
//! and the length `JSON.stringify` writes for it.

#[cfg(not(target_arch = "wasm32"))]
use super::{Reader, Step};
#[cfg(not(target_arch = "wasm32"))]
use crate::input::json::blocks::{plain_units, UNITS_BLOCK};
#[cfg(not(target_arch = "wasm32"))]
use crate::input::json::reader::words::is_string_special;

/// What [`Reader::walk_value`] reports of the value it checks, in the order of the text.
#[cfg(not(target_arch = "wasm32"))]
pub(crate) trait Tally {
    /// Checks and skips the string (a value or a key) at the cursor, which is on its `"`, as
    /// [`Reader::skip_string`] does.
    fn string(&mut self, reader: &mut Reader<'_>) -> Step<()>;

    /// A `{`, `[`, `}`, `]`, `,` or `:` was taken.
    fn punct(&mut self, byte: u8);

    /// `true`, `false` or `null` was taken: `length` bytes.
    fn literal(&mut self, length: usize);

    /// A number was taken, written as `text`.
    fn number(&mut self, text: &[u8]);
}

/// The tally of a value only checked ([`Reader::skip_value`]).
#[cfg(not(target_arch = "wasm32"))]
pub(crate) struct Unmeasured;

#[cfg(not(target_arch = "wasm32"))]
impl Tally for Unmeasured {
    #[inline(always)]
    fn string(&mut self, reader: &mut Reader<'_>) -> Step<()> {
        reader.skip_string()
    }

    #[inline(always)]
    fn punct(&mut self, _byte: u8) {}

    #[inline(always)]
    fn literal(&mut self, _length: usize) {}

    #[inline(always)]
    fn number(&mut self, _text: &[u8]) {}
}

/// A string checked and measured by [`Reader::string_units`].
#[cfg(not(target_arch = "wasm32"))]
pub(crate) struct StringUnits<'a> {
    /// Its length in UTF-16 code units once decoded (JavaScript's `length`).
    pub decoded: usize,
    /// The length `JSON.stringify` writes between the quotes.
    pub written: usize,
    /// Whether it holds an escape.
    pub escaped: bool,
    /// The text between its quotes, as written.
    pub inner: &'a [u8],
}

#[cfg(not(target_arch = "wasm32"))]
impl<'a> Reader<'a> {
    /// Checks and skips a string as [`Reader::skip_string`] does, with the same errors at the
    /// same places, and measures it.
    pub fn string_units(&mut self) -> Step<StringUnits<'a>> {
        self.expect(b'"', "expected a string")?;
        let start = self.pos;
        let (mut decoded, mut written, mut escaped) = (0usize, 0usize, false);
        loop {
            let (end, units) = self.plain_units_run(self.pos);
            self.pos = end;
            decoded = decoded.saturating_add(units);
            written = written.saturating_add(units);
            match self.byte_at(self.pos) {
                Some(b'"') => {
                    let inner = self.bytes().get(start..self.pos).unwrap_or_default();
                    self.advance(1);
                    return Ok(StringUnits {
                        decoded,
                        written,
                        escaped,
                        inner,
                    });
                }
                Some(b'\\') => {
                    self.advance(1);
                    escaped = true;
                    let (escape_decoded, escape_written) = self.escape_units()?;
                    decoded = decoded.saturating_add(escape_decoded);
                    written = written.saturating_add(escape_written);
                }
                Some(_) => return self.fail("control character in a string"),
                None => return self.fail("unterminated string"),
            }
        }
    }

    /// The end of the run of ordinary string bytes starting at `pos` (as `plain_run` finds it),
    /// and the UTF-16 code units of the run.
    #[inline]
    fn plain_units_run(&self, pos: usize) -> (usize, usize) {
        let bytes = self.bytes();
        let (mut at, mut units) = (pos, 0usize);
        while let Some(block) = at
            .checked_add(UNITS_BLOCK)
            .and_then(|end| bytes.get(at..end))
        {
            let (length, block_units) = plain_units(block);
            units = units.saturating_add(block_units);
            at = at.saturating_add(length);
            if length < UNITS_BLOCK {
                return (at, units);
            }
        }
        // The text's last few bytes.
        while let Some(&byte) = bytes.get(at) {
            if is_string_special(byte) {
                break;
            }
            units = units.saturating_add(byte_units(byte));
            at = at.saturating_add(1);
        }
        (at, units)
    }

    /// Checks the escape after a backslash as `escape` does and returns the UTF-16 code units
    /// it stands for and the length `JSON.stringify` writes for them.
    fn escape_units(&mut self) -> Step<(usize, usize)> {
        let at = self.pos;
        self.escape()?;
        let escape = self.bytes().get(at..self.pos).unwrap_or_default();
        Ok(match escape {
            [b'/'] => (1, 1),
            [_] => (1, 2),
            [b'u', hex @ ..] if hex.len() == 4 => (1, escaped_units(hex_code(hex))),
            // A surrogate pair, `\uD8xx\uDCxx`: both halves are written as they are.
            _ => {
                debug_assert_eq!(escape.len(), 11, "a \\u escape is one or two of them");
                (2, 2)
            }
        })
    }
}

/// The value of four checked hex digits.
#[cfg(not(target_arch = "wasm32"))]
fn hex_code(hex: &[u8]) -> u16 {
    hex.iter().fold(0u16, |code, &digit| {
        let value = char::from(digit).to_digit(16).unwrap_or(0);
        (code << 4) | u16::try_from(value).unwrap_or(0)
    })
}

/// The length `JSON.stringify` writes for the UTF-16 code unit `code` when it is not half of a
/// pair: a short escape, a `\u` escape for other control characters and lone surrogates, else
/// the unit itself.
pub(crate) fn escaped_units(code: u16) -> usize {
    match code {
        0x22 | 0x5C | 0x08 | 0x0C | 0x0A | 0x0D | 0x09 => 2,
        0x00..=0x1F | 0xD800..=0xDFFF => 6,
        _ => 1,
    }
}

/// The UTF-16 code units a UTF-8 byte stands for: a lead byte of four its two, any other lead
/// byte one, a continuation byte none.
pub(crate) fn byte_units(byte: u8) -> usize {
    match byte {
        0x80..=0xBF => 0,
        0xF0..=0xFF => 2,
        _ => 1,
    }
}
