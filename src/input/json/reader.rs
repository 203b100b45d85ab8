//! A validating JSON scanner over UTF-8 text (RFC 8259), built for reading a few fields out of
//! large documents: values the caller does not want are skipped without being built, and long
//! strings are scanned a block at a time (sixteen bytes with wasm SIMD, see `blocks`).

use std::borrow::Cow;

use super::blocks::{first_string_special, BLOCK};
use super::value::{JsonObject, JsonValue};

mod keys;
mod measure;
mod repeat;
pub(super) mod words;

pub(crate) use keys::{key, key_code, Key, KeyCode, Members};
use keys::{plain_code, runtime_key_code};
#[cfg(not(target_arch = "wasm32"))]
use measure::Unmeasured;
pub(crate) use measure::{byte_units, escaped_units};
#[cfg(not(target_arch = "wasm32"))]
pub(crate) use measure::{StringUnits, Tally};
#[cfg(any(test, feature = "wasm"))]
pub(crate) use repeat::Memory;
pub(crate) use repeat::{Remembered, SLOTS};
use words::is_string_special;
pub(crate) use words::same_bytes;
pub(super) use words::{string_specials, word};

/// How deeply arrays and objects may nest before the text is rejected (the recursion that reads
/// them is bounded, so no input can exhaust the stack).
pub(crate) const MAX_DEPTH: usize = 256;

/// Why the text is not JSON, and the byte offset where that became clear.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct SyntaxError {
    /// Byte offset into the text.
    pub offset: usize,
    /// What was wrong, for people.
    pub message: &'static str,
}

/// A reader step failed: the reader holds why ([`Reader::error`]). The error carries nothing,
/// so a step's result fits in registers and `?` moves no error details.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Failed;

/// The result of a reader step.
pub(crate) type Step<T> = Result<T, Failed>;

/// An array or object being read: whether its first item was read.
pub(crate) struct Container {
    started: bool,
}

impl Container {
    /// An array or object taken up again after a reader stopped inside it (see
    /// [`Reader::resume`]), `started` telling whether its first item was read.
    #[cfg(any(test, feature = "wasm"))]
    pub fn resumed(started: bool) -> Container {
        Container { started }
    }
}

/// A cursor over JSON text, given as UTF-8 bytes.
pub(crate) struct Reader<'a> {
    text: &'a [u8],
    /// The same text as `str` when it was given so: the text handed out is then cut from it
    /// without checking its bytes again.
    checked: Option<&'a str>,
    pos: usize,
    depth: usize,
    /// For [`Reader::skip_value`]: bit `d` is set when the container it entered at depth `d`
    /// is an object.
    objects: [u64; MAX_DEPTH / 64],
    /// For [`Reader::raw_value_repeating`]: per slot, the last array or object it read, and
    /// the depth it was read at.
    remembered: Remembered<'a>,
    /// Why the last failed step failed.
    error: SyntaxError,
}

impl<'a> Reader<'a> {
    /// A reader at the start of `text`.
    #[inline(never)]
    pub fn new(text: &'a str) -> Reader<'a> {
        Reader {
            checked: Some(text),
            ..Reader::over(text.as_bytes())
        }
    }

    /// A reader at the start of `text`, UTF-8 bytes (the text it hands out is checked again as
    /// UTF-8: text that is not gives `""`).
    fn over(text: &'a [u8]) -> Reader<'a> {
        Reader {
            text,
            checked: None,
            pos: 0,
            depth: 0,
            objects: [0; MAX_DEPTH / 64],
            remembered: [None; SLOTS],
            error: SyntaxError {
                offset: 0,
                message: "",
            },
        }
    }

    /// A reader at byte `pos` of `text`, inside `depth` arrays and objects: continues the work
    /// of a reader that stopped there, over text that starts the same way, remembering for
    /// [`Reader::raw_value_repeating`] what that reader did (see [`Reader::remembered`]).
    pub fn resume(
        text: &'a str,
        pos: usize,
        depth: usize,
        remembered: Remembered<'a>,
    ) -> Reader<'a> {
        Reader::new(text).placed(pos, depth, remembered)
    }

    /// [`Reader::resume`] over UTF-8 bytes not checked yet (a stream's text so far).
    #[cfg(any(test, feature = "wasm"))]
    pub fn resume_bytes(
        text: &'a [u8],
        pos: usize,
        depth: usize,
        remembered: Remembered<'a>,
    ) -> Reader<'a> {
        Reader::over(text).placed(pos, depth, remembered)
    }

    /// This fresh reader moved to byte `pos`, inside `depth` arrays and objects.
    fn placed(self, pos: usize, depth: usize, remembered: Remembered<'a>) -> Reader<'a> {
        Reader {
            pos,
            depth,
            remembered,
            ..self
        }
    }

    /// What [`Reader::raw_value_repeating`] remembers.
    pub fn remembered(&self) -> Remembered<'a> {
        self.remembered
    }

    /// The text from byte `start` to the cursor.
    pub fn text_since(&self, start: usize) -> &'a str {
        self.slice(start, self.pos)
    }

    /// The byte offset of the cursor.
    pub fn position(&self) -> usize {
        self.pos
    }

    /// The text from byte `start` to byte `end`, when that is text of this reader.
    pub fn text_between(&self, start: usize, end: usize) -> Option<&'a str> {
        match self.checked {
            Some(text) => text.get(start..end),
            None => std::str::from_utf8(self.text.get(start..end)?).ok(),
        }
    }

    #[inline]
    fn bytes(&self) -> &'a [u8] {
        self.text
    }

    #[inline]
    fn byte_at(&self, pos: usize) -> Option<u8> {
        self.bytes().get(pos).copied()
    }

    #[inline]
    fn advance(&mut self, by: usize) {
        self.pos = self.pos.saturating_add(by);
    }

    /// An error at the cursor.
    pub fn fail<T>(&mut self, message: &'static str) -> Step<T> {
        self.error = SyntaxError {
            offset: self.pos,
            message,
        };
        Err(Failed)
    }

    /// Why the last failed step failed.
    pub fn error(&self) -> &SyntaxError {
        &self.error
    }

    /// Skips whitespace and returns the next byte without taking it (`None` at the end).
    #[inline]
    pub fn peek(&mut self) -> Option<u8> {
        while let Some(byte) = self.byte_at(self.pos) {
            if !matches!(byte, b' ' | b'\n' | b'\r' | b'\t') {
                return Some(byte);
            }
            self.advance(1);
        }
        None
    }

    /// Fails unless only whitespace is left.
    pub fn finish(&mut self) -> Step<()> {
        match self.peek() {
            None => Ok(()),
            Some(_) => self.fail("unexpected text after the JSON value"),
        }
    }

    #[inline]
    fn expect(&mut self, byte: u8, message: &'static str) -> Step<()> {
        if self.peek() == Some(byte) {
            self.advance(1);
            Ok(())
        } else {
            self.fail(message)
        }
    }

    #[inline]
    fn enter(&mut self) -> Step<()> {
        if self.depth >= MAX_DEPTH {
            return self.fail("arrays and objects nest too deeply");
        }
        self.depth = self.depth.saturating_add(1);
        Ok(())
    }

    #[inline]
    fn leave(&mut self) {
        self.depth = self.depth.saturating_sub(1);
    }

    /// Takes the `{` of an object. Read its members with [`Reader::next_key`], passing the
    /// returned marker.
    pub fn begin_object(&mut self) -> Step<Container> {
        self.expect(b'{', "expected an object")?;
        self.enter()?;
        Ok(Container { started: false })
    }

    /// Takes the `{` of an object, whose members are then read against `keys`, `keys[likely]`
    /// looked for first (see [`Members`]).
    pub fn begin_members<'k>(&mut self, keys: &'k [Key], likely: usize) -> Step<Members<'k>> {
        let object = self.begin_object()?;
        Ok(Members::new(object, keys, likely))
    }

    /// The next key of the object, with the cursor on its value (which the caller must read or
    /// skip); `None` after the closing `}`.
    #[inline]
    pub fn next_key(&mut self, object: &mut Container) -> Step<Option<Cow<'a, str>>> {
        if !self.key_due(object)? {
            return Ok(None);
        }
        let key = self.string()?;
        self.colon()?;
        Ok(Some(key))
    }

    /// Whether the object has another member, with the cursor on its key's `"`.
    #[inline(never)]
    fn key_due(&mut self, object: &mut Container) -> Step<bool> {
        if !self.next_item(object, b'}', "expected `,` or `}` in an object")? {
            return Ok(false);
        }
        if self.peek() != Some(b'"') {
            return self.fail("expected a string key");
        }
        Ok(true)
    }

    /// Takes the `:` after a key.
    fn colon(&mut self) -> Step<()> {
        self.expect(b':', "expected `:` after an object key")
    }

    /// [`Reader::next_key`], returning the key's [`KeyCode`] instead of its text.
    pub fn next_key_code(&mut self, object: &mut Container) -> Step<Option<KeyCode>> {
        if let Some(code) = self.compact_key_code(object) {
            return Ok(Some(code));
        }
        self.spaced_key_code(object)
    }

    /// [`Reader::next_key_code`] for a member written without spaces: the cursor on `,"`
    /// (or, before the first member, on `"`), a key of at most 15 plain bytes, then `":`.
    /// Anything else is `None`, with nothing taken, for [`Reader::spaced_key_code`].
    #[inline]
    fn compact_key_code(&mut self, object: &mut Container) -> Option<KeyCode> {
        let bytes = self.bytes();
        let quote = if object.started {
            if bytes.get(self.pos) != Some(&b',') {
                return None;
            }
            self.pos.checked_add(1)?
        } else {
            self.pos
        };
        if bytes.get(quote) != Some(&b'"') {
            return None;
        }
        let (code, end) = plain_code(bytes, quote.checked_add(1)?)?;
        if bytes.get(end.checked_add(1)?) != Some(&b':') {
            return None;
        }
        self.pos = end.checked_add(2)?;
        object.started = true;
        Some(code)
    }

    /// Takes the member start `,"key":` (or, before the first member, `"key":`) of `key` when
    /// the text at the cursor is exactly that; anything else is `false`, with nothing taken.
    #[inline(always)]
    fn compact_key(&mut self, object: &mut Container, key: &Key) -> bool {
        let bytes = self.bytes();
        let start = match (object.started, bytes.get(self.pos)) {
            (false, _) => self.pos,
            (true, Some(b',')) => self.pos.saturating_add(1),
            (true, _) => return false,
        };
        let at = |from: usize| {
            let end = from.checked_add(8)?;
            bytes.get(from..end).map(word)
        };
        let ([low_text, high_text], [low_mask, high_mask]) = (key.text, key.mask);
        if at(start).is_none_or(|low| low & low_mask != low_text) {
            return false;
        }
        if high_mask != 0
            && at(start.saturating_add(8)).is_none_or(|high| high & high_mask != high_text)
        {
            return false;
        }
        self.pos = start.saturating_add(key.length);
        object.started = true;
        true
    }

    /// [`Reader::next_key_code`], the general way.
    #[inline(never)]
    fn spaced_key_code(&mut self, object: &mut Container) -> Step<Option<KeyCode>> {
        if !self.key_due(object)? {
            return Ok(None);
        }
        let code = self.string_code()?;
        self.colon()?;
        Ok(Some(code))
    }

    /// Reads the string at the cursor (which is on its `"`) as a key code (see [`KeyCode`]),
    /// as [`Reader::string`] reads it. A string of at most 15 plain bytes, with 8 bytes of text
    /// after its `"` (16 when it is longer than 7 bytes), is read from one or two words; any
    /// other is read as a string.
    pub fn string_code(&mut self) -> Step<KeyCode> {
        if self.byte_at(self.pos) == Some(b'"') {
            let start = self.pos.saturating_add(1);
            if let Some((code, end)) = plain_code(self.bytes(), start) {
                self.pos = end.saturating_add(1);
                return Ok(code);
            }
        }
        let key = self.string()?;
        Ok(runtime_key_code(key.as_bytes()))
    }

    /// Takes the `[` of an array. Read its elements while [`Reader::next_element`] says so.
    pub fn begin_array(&mut self) -> Step<Container> {
        self.expect(b'[', "expected an array")?;
        self.enter()?;
        Ok(Container { started: false })
    }

    /// Whether another element follows (the caller must then read or skip it); `false` after
    /// the closing `]`.
    #[inline]
    pub fn next_element(&mut self, array: &mut Container) -> Step<bool> {
        self.next_item(array, b']', "expected `,` or `]` in an array")
    }

    #[inline]
    fn next_item(
        &mut self,
        container: &mut Container,
        close: u8,
        message: &'static str,
    ) -> Step<bool> {
        let next = self.peek();
        if next == Some(close) {
            self.advance(1);
            self.leave();
            return Ok(false);
        }
        if container.started {
            if next != Some(b',') {
                return self.fail(message);
            }
            self.advance(1);
            if self.peek() == Some(close) {
                return self.fail("trailing comma");
            }
        }
        container.started = true;
        Ok(true)
    }

    /// Reads a string, borrowed from the text when it has no escapes.
    pub fn string(&mut self) -> Step<Cow<'a, str>> {
        self.expect(b'"', "expected a string")?;
        let start = self.pos;
        self.pos = self.plain_run(self.pos);
        if self.byte_at(self.pos) == Some(b'"') {
            let text = self.slice(start, self.pos);
            self.advance(1);
            return Ok(Cow::Borrowed(text));
        }
        let mut owned = String::from(self.slice(start, self.pos));
        loop {
            match self.byte_at(self.pos) {
                Some(b'"') => {
                    self.advance(1);
                    return Ok(Cow::Owned(owned));
                }
                Some(b'\\') => {
                    self.advance(1);
                    let ch = self.escape()?;
                    owned.push(ch);
                }
                Some(_) => return self.fail("control character in a string"),
                None => return self.fail("unterminated string"),
            }
            let run = self.pos;
            self.pos = self.plain_run(run);
            owned.push_str(self.slice(run, self.pos));
        }
    }

    /// Skips a string after checking it.
    pub fn skip_string(&mut self) -> Step<()> {
        self.expect(b'"', "expected a string")?;
        loop {
            self.pos = self.plain_run(self.pos);
            match self.byte_at(self.pos) {
                Some(b'"') => {
                    self.advance(1);
                    return Ok(());
                }
                Some(b'\\') => {
                    self.advance(1);
                    self.escape()?;
                }
                Some(_) => return self.fail("control character in a string"),
                None => return self.fail("unterminated string"),
            }
        }
    }

    /// The end of the run of ordinary string bytes starting at `pos`.
    fn plain_run(&self, pos: usize) -> usize {
        let rest = self.bytes().get(pos..).unwrap_or_default();
        let mut chunks = rest.chunks_exact(BLOCK);
        let mut run = pos;
        for chunk in &mut chunks {
            if let Some(special) = first_string_special(chunk) {
                return run.saturating_add(special);
            }
            run = run.saturating_add(BLOCK);
        }
        for &byte in chunks.remainder() {
            if is_string_special(byte) {
                break;
            }
            run = run.saturating_add(1);
        }
        run
    }

    /// `text[start..end]`, or `""` if that is not UTF-8 (it always is: the text is UTF-8 and
    /// both ends sit next to ASCII bytes). Text given as `str` is not checked again.
    #[inline]
    fn slice(&self, start: usize, end: usize) -> &'a str {
        self.text_between(start, end).unwrap_or_default()
    }

    /// Reads the escape after a backslash. Lone UTF-16 surrogates become U+FFFD, as they do
    /// when JavaScript encodes such a string as UTF-8.
    fn escape(&mut self) -> Step<char> {
        let Some(byte) = self.byte_at(self.pos) else {
            return self.fail("unterminated string");
        };
        self.advance(1);
        let ch = match byte {
            b'"' => '"',
            b'\\' => '\\',
            b'/' => '/',
            b'b' => '\u{8}',
            b'f' => '\u{c}',
            b'n' => '\n',
            b'r' => '\r',
            b't' => '\t',
            b'u' => return self.unicode_escape(),
            _ => return self.fail("invalid escape in a string"),
        };
        Ok(ch)
    }

    fn unicode_escape(&mut self) -> Step<char> {
        let first = self.hex4()?;
        if !(0xD800..0xDC00).contains(&first) {
            return Ok(char::from_u32(first).unwrap_or('\u{FFFD}'));
        }
        let follows_low = self.bytes().get(self.pos..self.pos.saturating_add(2)) == Some(b"\\u");
        if !follows_low {
            return Ok('\u{FFFD}');
        }
        let before = self.pos;
        self.advance(2);
        let second = self.hex4()?;
        if !(0xDC00..0xE000).contains(&second) {
            // Not a pair: the first is lone; read the second escape on its own.
            self.pos = before;
            return Ok('\u{FFFD}');
        }
        // Both halves are in range (checked above): the sum is at most U+10FFFF.
        let code = 0x10000u32
            .wrapping_add((first & 0x3FF) << 10)
            .wrapping_add(second & 0x3FF);
        Ok(char::from_u32(code).unwrap_or('\u{FFFD}'))
    }

    fn hex4(&mut self) -> Step<u32> {
        let mut code = 0u32;
        for _ in 0..4 {
            let digit = self
                .byte_at(self.pos)
                .and_then(|byte| char::from(byte).to_digit(16));
            let Some(digit) = digit else {
                return self.fail("invalid \\u escape in a string");
            };
            code = (code << 4) | digit;
            self.advance(1);
        }
        Ok(code)
    }

    /// [`Reader::number`] for the common number, a positive integer of at most 15 digits: taken,
    /// with its value. Anything else is `None`, with nothing taken, for [`Reader::number`].
    #[inline(always)]
    pub fn short_integer(&mut self) -> Option<f64> {
        let bytes = self.bytes();
        let mut value = match bytes.get(self.pos)? {
            first @ b'1'..=b'9' => u64::from(first.wrapping_sub(b'0')),
            _ => return None,
        };
        let mut end = self.pos;
        loop {
            end = end.checked_add(1)?;
            match bytes.get(end) {
                Some(digit @ b'0'..=b'9') => {
                    value = value
                        .wrapping_mul(10)
                        .wrapping_add(u64::from(digit.wrapping_sub(b'0')));
                }
                Some(b'.' | b'e' | b'E') => return None,
                _ => break,
            }
        }
        if end.wrapping_sub(self.pos) > 15 {
            return None;
        }
        self.pos = end;
        Some(value as f64)
    }

    /// Reads a number as JavaScript's `JSON.parse` would (the nearest double).
    pub fn number(&mut self) -> Step<f64> {
        let start = self.pos;
        let integer = self.scan_number()?;
        if let Some(value) = integer {
            return Ok(value);
        }
        match super::number::parse_number(self.slice(start, self.pos)) {
            Some(value) => Ok(value),
            None => self.fail("invalid number"),
        }
    }

    /// Checks the number at the cursor against the JSON grammar and moves past it. Returns its
    /// value when it is a plain integer of at most 15 digits (exact in a double).
    fn scan_number(&mut self) -> Step<Option<f64>> {
        if self.peek().is_none() {
            return self.fail("expected a value");
        }
        let negative = self.byte_at(self.pos) == Some(b'-');
        if negative {
            self.advance(1);
        }
        let digits_start = self.pos;
        // The integer part's value, used when it has at most 15 digits.
        let mut magnitude = 0u64;
        match self.byte_at(self.pos) {
            Some(b'0') => self.advance(1),
            Some(b'1'..=b'9') => {
                while let Some(digit @ b'0'..=b'9') = self.byte_at(self.pos) {
                    magnitude = magnitude
                        .wrapping_mul(10)
                        .wrapping_add(u64::from(digit.wrapping_sub(b'0')));
                    self.advance(1);
                }
            }
            _ => return self.fail("invalid number"),
        }
        let digits_end = self.pos;
        let mut plain = true;
        if self.byte_at(self.pos) == Some(b'.') {
            plain = false;
            self.advance(1);
            self.digits()?;
        }
        if matches!(self.byte_at(self.pos), Some(b'e' | b'E')) {
            plain = false;
            self.advance(1);
            if matches!(self.byte_at(self.pos), Some(b'+' | b'-')) {
                self.advance(1);
            }
            self.digits()?;
        }
        if !plain || digits_end.saturating_sub(digits_start) > 15 {
            return Ok(None);
        }
        let magnitude = magnitude as f64;
        Ok(Some(if negative { -magnitude } else { magnitude }))
    }

    fn digits(&mut self) -> Step<()> {
        if !matches!(self.byte_at(self.pos), Some(b'0'..=b'9')) {
            return self.fail("invalid number");
        }
        while matches!(self.byte_at(self.pos), Some(b'0'..=b'9')) {
            self.advance(1);
        }
        Ok(())
    }

    fn literal(&mut self, word: &'static [u8]) -> Step<()> {
        let end = self.pos.saturating_add(word.len());
        if self.bytes().get(self.pos..end) == Some(word) {
            self.pos = end;
            Ok(())
        } else {
            self.fail("expected a value")
        }
    }

    /// Reads `true` or `false`.
    pub fn boolean(&mut self) -> Step<bool> {
        match self.peek() {
            Some(b't') => self.literal(b"true").map(|()| true),
            _ => self.literal(b"false").map(|()| false),
        }
    }

    /// Reads `null`.
    pub fn null(&mut self) -> Step<()> {
        self.peek();
        self.literal(b"null")
    }

    /// Checks and skips one value of any kind. It checks what [`Reader::value`] checks, with the
    /// same errors at the same places, but walks nested arrays and objects in one loop (which
    /// kind each open container is sits in a bit set indexed by depth) instead of recursing.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn skip_value(&mut self) -> Step<()> {
        self.walk_value(&mut Unmeasured)
    }

    /// In the wasm module, a loop of its own that tells no tally (the module does not measure
    /// in one pass): a warm `loadJson` of typical 10,000 counted about 3% more instructions
    /// with `walk_value` in its place.
    #[cfg(target_arch = "wasm32")]
    pub fn skip_value(&mut self) -> Step<()> {
        let base = self.depth;
        loop {
            // A value is due at the cursor.
            match self.peek() {
                Some(open @ (b'{' | b'[')) => {
                    self.advance(1);
                    let depth = self.depth;
                    self.enter()?;
                    let is_object = open == b'{';
                    if let Some(bits) = self.objects.get_mut(depth / 64) {
                        let shift = depth % 64;
                        *bits = (*bits & !(1u64 << shift)) | (u64::from(is_object) << shift);
                    }
                    let close = if is_object { b'}' } else { b']' };
                    if self.peek() == Some(close) {
                        self.advance(1);
                        self.leave();
                    } else {
                        if is_object {
                            self.plain_member_key()?;
                        }
                        continue;
                    }
                }
                Some(b'"') => self.skip_string()?,
                Some(b't' | b'f') => {
                    self.boolean()?;
                }
                Some(b'n') => self.null()?,
                _ => {
                    self.scan_number()?;
                }
            }
            // A value ended: close containers until one has another item, or `base` is back.
            loop {
                if self.depth <= base {
                    return Ok(());
                }
                let inner = self.depth.saturating_sub(1);
                let is_object = self
                    .objects
                    .get(inner / 64)
                    .is_some_and(|bits| bits & (1u64 << (inner % 64)) != 0);
                let (close, message) = if is_object {
                    (b'}', "expected `,` or `}` in an object")
                } else {
                    (b']', "expected `,` or `]` in an array")
                };
                match self.peek() {
                    Some(b',') => {
                        self.advance(1);
                        if self.peek() == Some(close) {
                            return self.fail("trailing comma");
                        }
                        if is_object {
                            self.plain_member_key()?;
                        }
                        break;
                    }
                    Some(byte) if byte == close => {
                        self.advance(1);
                        self.leave();
                    }
                    _ => return self.fail(message),
                }
            }
        }
    }

    /// Checks and skips an object member's key and its `:`, as [`Reader::next_key`] reads them.
    #[cfg(target_arch = "wasm32")]
    fn plain_member_key(&mut self) -> Step<()> {
        if self.peek() != Some(b'"') {
            return self.fail("expected a string key");
        }
        self.skip_string()?;
        self.colon()
    }

    /// Checks and skips one value as [`Reader::skip_value`] does, with the same errors at the
    /// same places, telling `tally` each part of it as it is taken (so that the value can be
    /// measured in the same pass).
    #[cfg(not(target_arch = "wasm32"))]
    #[inline(always)]
    pub fn walk_value<T: Tally>(&mut self, tally: &mut T) -> Step<()> {
        let base = self.depth;
        loop {
            // A value is due at the cursor.
            match self.peek() {
                Some(open @ (b'{' | b'[')) => {
                    self.advance(1);
                    let depth = self.depth;
                    self.enter()?;
                    let is_object = open == b'{';
                    if let Some(bits) = self.objects.get_mut(depth / 64) {
                        let shift = depth % 64;
                        *bits = (*bits & !(1u64 << shift)) | (u64::from(is_object) << shift);
                    }
                    tally.punct(open);
                    let close = if is_object { b'}' } else { b']' };
                    if self.peek() == Some(close) {
                        self.advance(1);
                        self.leave();
                        tally.punct(close);
                    } else {
                        if is_object {
                            self.member_key(tally)?;
                        }
                        continue;
                    }
                }
                Some(b'"') => tally.string(self)?,
                Some(b't' | b'f') => {
                    let length = if self.boolean()? { 4 } else { 5 };
                    tally.literal(length);
                }
                Some(b'n') => {
                    self.null()?;
                    tally.literal(4);
                }
                _ => {
                    let start = self.pos;
                    self.scan_number()?;
                    tally.number(self.bytes().get(start..self.pos).unwrap_or_default());
                }
            }
            // A value ended: close containers until one has another item, or `base` is back.
            loop {
                if self.depth <= base {
                    return Ok(());
                }
                let inner = self.depth.saturating_sub(1);
                let is_object = self
                    .objects
                    .get(inner / 64)
                    .is_some_and(|bits| bits & (1u64 << (inner % 64)) != 0);
                let (close, message) = if is_object {
                    (b'}', "expected `,` or `}` in an object")
                } else {
                    (b']', "expected `,` or `]` in an array")
                };
                match self.peek() {
                    Some(b',') => {
                        self.advance(1);
                        tally.punct(b',');
                        if self.peek() == Some(close) {
                            return self.fail("trailing comma");
                        }
                        if is_object {
                            self.member_key(tally)?;
                        }
                        break;
                    }
                    Some(byte) if byte == close => {
                        self.advance(1);
                        self.leave();
                        tally.punct(close);
                    }
                    _ => return self.fail(message),
                }
            }
        }
    }

    /// Checks and skips an object member's key and its `:`, as [`Reader::next_key`] reads them.
    #[cfg(not(target_arch = "wasm32"))]
    fn member_key<T: Tally>(&mut self, tally: &mut T) -> Step<()> {
        if self.peek() != Some(b'"') {
            return self.fail("expected a string key");
        }
        tally.string(self)?;
        self.colon()?;
        tally.punct(b':');
        Ok(())
    }

    /// Checks and skips one value, returning its text as written.
    pub fn raw_value(&mut self) -> Step<&'a str> {
        self.peek();
        let start = self.pos;
        self.skip_value()?;
        Ok(self.slice(start, self.pos))
    }

    /// Reads one value of any kind. Duplicate object keys keep the last value at the place of
    /// the first, as `JSON.parse` does.
    pub fn value(&mut self) -> Step<JsonValue> {
        match self.peek() {
            Some(b'{') => {
                let mut members = JsonObject::default();
                let mut object = self.begin_object()?;
                while let Some(key) = self.next_key(&mut object)? {
                    let value = self.value()?;
                    members.insert_parsed(key.into_owned().into_boxed_str(), value);
                }
                members.resolve_duplicates();
                Ok(JsonValue::Object(members))
            }
            Some(b'[') => {
                let mut items = Vec::new();
                let mut array = self.begin_array()?;
                while self.next_element(&mut array)? {
                    items.push(self.value()?);
                }
                Ok(JsonValue::Array(items))
            }
            Some(b'"') => Ok(JsonValue::String(
                self.string()?.into_owned().into_boxed_str(),
            )),
            Some(b't' | b'f') => self.boolean().map(JsonValue::Bool),
            Some(b'n') => self.null().map(|()| JsonValue::Null),
            _ => self.number().map(JsonValue::Number),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::keys::LONG_KEY;
    use super::words::same_words;
    use super::*;

    fn whole(text: &str) -> Step<JsonValue> {
        let mut reader = Reader::new(text);
        let value = reader.value()?;
        reader.finish()?;
        Ok(value)
    }

    #[test]
    fn reads_every_kind_of_value() {
        let value =
            whole(r#" {"a": [1, -2.5e3, true, false, null], "b": "x\ny\u00e9\ud83d\ude00"} "#)
                .unwrap();
        assert_eq!(
            crate::input::json::stringify::js_stringify(&value),
            "{\"a\":[1,-2500,true,false,null],\"b\":\"x\\nyé😀\"}"
        );
    }

    #[test]
    fn rejects_what_json_parse_rejects() {
        for text in [
            "",
            "[",
            "[1,]",
            "{\"a\":1,}",
            "{a:1}",
            "01",
            "1.",
            ".5",
            "-",
            "1e",
            "+1",
            "tru",
            "nul",
            "\"\t\"",
            "\"\\x\"",
            "\"\\u12\"",
            "[1 2]",
            "{\"a\" 1}",
            "\"abc",
            "1 2",
            "NaN",
        ] {
            assert!(whole(text).is_err(), "{text:?} should be rejected");
        }
    }

    #[test]
    fn numbers_are_the_nearest_double() {
        for (text, expected) in [
            ("0", 0.0),
            ("-0", -0.0),
            ("123456789012345", 123_456_789_012_345.0),
            ("9007199254740993", 9_007_199_254_740_992.0),
            ("1.5e-7", 1.5e-7),
            ("1E+21", 1e21),
            ("1e400", f64::INFINITY),
        ] {
            assert_eq!(whole(text).unwrap(), JsonValue::Number(expected), "{text}");
        }
    }

    #[test]
    fn short_integers_are_read_as_numbers() {
        let mut texts = Vec::new();
        for digits in 1..=22 {
            let integer: String = (0..digits)
                .map(|at| char::from(b"9807162534"[at % 10]))
                .collect();
            for number in [
                integer.clone(),
                format!("-{integer}"),
                format!("0{integer}"),
            ] {
                for after in ["", ",", " ", "}", ".5", "e2", "E-1", "x", "é", "-"] {
                    texts.push(format!("{number}{after}"));
                }
            }
        }
        for text in texts {
            let read = |fast: bool| {
                let mut reader = Reader::new(&text);
                let short = if fast { reader.short_integer() } else { None };
                let value = short.map_or_else(|| reader.number(), Ok);
                (
                    value.map(f64::to_bits),
                    reader.position(),
                    reader.error().clone(),
                )
            };
            assert_eq!(read(true), read(false), "{text:?}");
        }
    }

    #[test]
    fn surrogate_pairs_cover_every_plane() {
        for ch in ['\u{10000}', '\u{1F600}', '\u{20000}', '\u{10FFFF}'] {
            let mut units = [0u16; 2];
            let [high, low] = *ch.encode_utf16(&mut units) else {
                panic!("{ch:?} is one unit");
            };
            let text = format!("\"\\u{high:04x}\\u{low:04x}\"");
            assert_eq!(
                whole(&text).unwrap(),
                JsonValue::String(ch.to_string().into())
            );
        }
    }

    #[test]
    fn lone_surrogates_become_replacement_characters() {
        assert_eq!(
            whole(r#""a\ud800b\udc00\ud800\u0041""#).unwrap(),
            JsonValue::String("a\u{FFFD}b\u{FFFD}\u{FFFD}A".into())
        );
    }

    #[test]
    fn long_strings_with_specials_at_every_offset() {
        for at in 0..20 {
            let mut text = "x".repeat(20);
            text.insert_str(at, "\\\"");
            let json = format!("\"{text}\"");
            let expected = text.replace("\\\"", "\"");
            assert_eq!(whole(&json).unwrap(), JsonValue::String(expected.into()));
            let control = format!("\"{}\u{1}{}\"", "y".repeat(at), "y".repeat(9));
            assert!(whole(&control).is_err(), "control at {at}");
        }
    }

    #[test]
    fn duplicate_keys_keep_the_last_value_at_the_first_place() {
        assert_eq!(
            crate::input::json::stringify::js_stringify(&whole(r#"{"a":1,"b":2,"a":3}"#).unwrap()),
            r#"{"a":3,"b":2}"#
        );
    }

    #[test]
    fn nesting_is_bounded() {
        let deep = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
        assert!(whole(&deep(MAX_DEPTH)).is_ok());
        assert!(whole(&deep(MAX_DEPTH + 1)).is_err());
        assert!(Reader::new(&deep(100_000)).skip_value().is_err());
    }

    /// `plain_run` (a block at a time) against a byte-by-byte scan, on texts mixing bytes
    /// next to the special ones, from every start.
    #[test]
    fn plain_runs_end_at_the_first_special_byte() {
        let pieces = [
            "a", " ", "!", "\"", "\\", "\u{1}", "\u{1f}", "\u{7f}", "é", "\u{a0}", "😀", "ÿ", "]",
            "\\\"",
        ];
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..4000 {
            let mut text = String::new();
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let length = (seed % 24) as usize;
            let mut state = seed;
            for _ in 0..length {
                state = state
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1);
                let plain = (state >> 60) < 11;
                let piece = if plain {
                    "abcdefghijk"
                        .get((state >> 60) as usize..=(state >> 60) as usize)
                        .unwrap()
                } else {
                    pieces[(state >> 33) as usize % pieces.len()]
                };
                text.push_str(piece);
            }
            let reader = Reader::new(&text);
            for start in 0..=text.len() {
                let naive = text.as_bytes()[start..]
                    .iter()
                    .position(|&byte| byte == b'"' || byte == b'\\' || byte < 0x20)
                    .map_or(text.len(), |at| start + at);
                assert_eq!(reader.plain_run(start), naive, "{text:?} from {start}");
            }
        }
    }

    /// Keys for the key-reading tests: short and long, escaped, damaged.
    const TEST_KEYS: [&str; 22] = [
        "",
        "a",
        "seq",
        "type",
        "surfaceOp",
        "startsSeries",
        "fifteen_bytes__",
        "sixteen_bytes___",
        "a much longer key than that",
        "s\\u0065q",
        "\\\"",
        "é",
        "😀x",
        "tab\there",
        "bad\\x",
        "ctl\u{1}",
        "\\ud800",
        "\\u00",
        "sixteen_bytes__\\n",
        "seven__",
        "eight___",
        "surface\\u004fp",
    ];

    /// Keys read as codes (two words at a time when they can be) against keys read as strings
    /// and then coded: the same codes, the same errors, the same stops.
    #[test]
    fn key_codes_are_the_codes_of_the_keys_read() {
        for key in TEST_KEYS {
            for padding in [0, 1, 7, 15, 16, 17, 40] {
                for after in ["", ":", " : 1}", ":1", "\"", " x"] {
                    let text = format!("{{ \"{key}\"{after}{}", " ".repeat(padding));
                    let by_code = {
                        let mut reader = Reader::new(&text);
                        let mut object = reader.begin_object().unwrap();
                        let code = reader.next_key_code(&mut object);
                        (code, reader.pos, reader.error().clone())
                    };
                    let by_text = {
                        let mut reader = Reader::new(&text);
                        let mut object = reader.begin_object().unwrap();
                        let key = reader.next_key(&mut object);
                        let code = key.map(|key| key.map(|key| key_code(&key)));
                        (code, reader.pos, reader.error().clone())
                    };
                    assert_eq!(by_code, by_text, "{text:?}");
                }
            }
        }
        assert_eq!(key_code("s\u{65}q"), key_code("seq"));
        assert_ne!(key_code("seq"), key_code("seq\0"));
        assert_eq!(key_code("sixteen_bytes___"), LONG_KEY);
        for key in TEST_KEYS
            .iter()
            .chain(&["", "a\0", "\u{ff}\u{7ff}", "0123456789abcde"])
        {
            assert_eq!(runtime_key_code(key.as_bytes()), key_code(key), "{key:?}");
        }
        assert_ne!(key_code("fifteen_bytes__"), LONG_KEY);
    }

    /// Keys read by [`Reader::next_key_code`] (the compact way when they can be) against keys
    /// read only the general way, and against keys read as text and then coded: the same codes,
    /// stops and errors, member after member, on every prefix of the text.
    #[test]
    fn compact_keys_are_read_as_spaced_keys_are() {
        let read = |text: &str, way: u8| {
            let mut reader = Reader::new(text);
            let mut steps = Vec::new();
            let Ok(mut object) = reader.begin_object() else {
                return steps;
            };
            loop {
                let code = match way {
                    0 => reader.next_key_code(&mut object),
                    1 => reader.spaced_key_code(&mut object),
                    _ => reader
                        .next_key(&mut object)
                        .map(|key| key.map(|key| key_code(&key))),
                };
                let done = !matches!(code, Ok(Some(_)));
                steps.push((code, reader.pos, object.started, reader.error().clone()));
                if done || reader.skip_value().is_err() {
                    return steps;
                }
            }
        };
        for key in TEST_KEYS {
            for other in ["seq", "fifteen_bytes__", "surfaceOp", "ab"] {
                for text in [
                    format!("{{\"{key}\":1,\"{other}\":[2],\"{key}\":{{\"{other}\":3}}}}   "),
                    format!("{{\"{other}\":1,\"{key}\":\"x\"}}"),
                    format!("{{\"{key}\" :1 ,\"{other}\": 2, \"{key}\"}}"),
                    format!("{{ \"{key}\":1,\"{other}\"x:2}}"),
                    format!("{{\"{key}\":1,}}"),
                ] {
                    for cut in (0..=text.len()).filter(|&cut| text.is_char_boundary(cut)) {
                        let text = &text[..cut];
                        let compact = read(text, 0);
                        assert_eq!(compact, read(text, 1), "{text:?}");
                        assert_eq!(compact, read(text, 2), "{text:?}");
                    }
                }
            }
        }
    }

    /// Members read against a list of keys, each key looked for first in turn, against keys read
    /// the general way and searched for in the list: the same indices, stops and errors, member
    /// after member, on every prefix of the text.
    #[test]
    fn members_are_read_as_searched_keys_are() {
        let listed = [
            "seq",
            "surfaceOp",
            "ab",
            "eight___",
            "thirteen_byte",
            "fourteen_bytes",
        ];
        let keys = listed.map(key);
        let read = |text: &str, likely: Option<usize>| {
            let mut reader = Reader::new(text);
            let mut steps = Vec::new();
            let Ok(object) = reader.begin_object() else {
                return steps;
            };
            let mut members = Members::new(object, &keys, likely.unwrap_or(0));
            let mut object = Container::resumed(false);
            loop {
                let member = match likely {
                    Some(_) => members.next(&mut reader),
                    None => reader.next_key_code(&mut object).map(|code| {
                        let code = code?;
                        let at = keys.iter().position(|key| key.code == code);
                        Some(at.unwrap_or(keys.len()))
                    }),
                };
                let done = !matches!(member, Ok(Some(_)));
                steps.push((member, reader.pos, reader.depth, reader.error().clone()));
                if done || reader.skip_value().is_err() {
                    return steps;
                }
            }
        };
        // Near misses of the listed keys: one byte changed, one more, one fewer.
        let mut near: Vec<String> = Vec::new();
        for listed in listed {
            let (head, _) = listed.split_at(listed.len() - 1);
            near.extend([format!("{head}x"), format!("{listed}x"), head.to_owned()]);
        }
        let near: Vec<&str> = near.iter().map(String::as_str).collect();
        for key in TEST_KEYS.iter().chain(&listed).chain(&near) {
            for other in listed {
                for text in [
                    format!("{{\"{key}\":1,\"{other}\":[2],\"{key}\":{{\"{other}\":3}}}}   "),
                    format!("{{\"{other}\":1,\"{key}\":\"x\"}}"),
                    format!("{{\"{key}\" :1 ,\"{other}\": 2, \"{key}\"}}"),
                    format!("{{\"{other}\"x:1,\"{key}\":2}}"),
                    format!("{{\"{key}\":1,}}"),
                ] {
                    for cut in (0..=text.len()).filter(|&cut| text.is_char_boundary(cut)) {
                        let text = &text[..cut];
                        let general = read(text, None);
                        for likely in 0..=keys.len() {
                            assert_eq!(read(text, Some(likely)), general, "{text:?} {likely}");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn same_words_is_equality() {
        let texts = [
            "",
            "a",
            "abcdefg",
            "abcdefgh",
            "abcdefghi",
            "abcdefghijklmnopq",
        ];
        for a in texts {
            for b in texts {
                for at in 0..a.len() {
                    let mut changed = a.as_bytes().to_vec();
                    changed[at] ^= 1;
                    assert!(!same_words(&changed, a.as_bytes()), "{a:?} at {at}");
                }
                assert_eq!(
                    same_words(a.as_bytes(), b.as_bytes()),
                    a == b,
                    "{a:?} {b:?}"
                );
            }
        }
    }

    /// Values read one after the other with [`Reader::raw_value_repeating`], in one slot or
    /// alternating between two, and with [`Reader::raw_value`]: the same values, errors and
    /// stops; and values given the same generation in a slot have the same text.
    #[test]
    fn repeated_raw_values_are_read_as_they_would_be() {
        let values = [
            "[1]",
            "[1]]",
            "[1]x",
            "[1",
            "[1,",
            "[1,2]",
            "[1, 2]",
            "{\"a\":[1]}",
            "{\"a\":[1]}}",
            "{\"a\":[1]",
            "{\"a\":[1}",
            "{}",
            "[]",
            "[[]]",
            "[[",
            "\"s\"",
            "12",
            "123",
            "1",
            "{\"t\":[{\"n\":\"x\",\"p\":{\"q\":1}}]}",
            "{\"t\":[{\"n\":\"x\",\"p\":{\"q\":1}}]} ",
            "{\"t\":[{\"n\":\"x\",\"p\":{\"q\":1}}]",
        ];
        for first in values {
            for second in values {
                for (between, slots) in [(" ", [0, 0, 0]), (",", [1, 1, 1]), ("\n  ", [0, 1, 0])] {
                    let text = format!("{first}{between}{second}{between}{first}");
                    let mut named = Vec::new();
                    let mut read = |repeating: bool| {
                        let mut reader = Reader::new(&text);
                        let mut results = Vec::new();
                        for slot in slots {
                            let result = if repeating {
                                reader.raw_value_repeating(slot).map(|(raw, generation)| {
                                    named.push((slot, generation, raw));
                                    raw
                                })
                            } else {
                                reader.raw_value()
                            };
                            let failed = result.is_err();
                            results.push((result, reader.pos, reader.error().clone()));
                            if failed {
                                break;
                            }
                            if reader.peek() == Some(b',') {
                                reader.advance(1);
                            }
                        }
                        results
                    };
                    assert_eq!(read(true), read(false), "{text:?}");
                    for (slot, generation, raw) in &named {
                        for (other_slot, other_generation, other_raw) in &named {
                            if generation.is_some()
                                && (slot, generation) == (other_slot, other_generation)
                            {
                                assert_eq!(raw, other_raw, "{text:?}");
                            }
                        }
                    }
                }
            }
        }
        // Past the last generation a new value is read but not remembered; a repeat still is.
        let last = Memory {
            text: "[1]",
            depth: 0,
            generation: u32::MAX,
        };
        let mut reader = Reader::resume("[2] [1]", 0, 0, [Some(last), None]);
        assert_eq!(reader.raw_value_repeating(0), Ok(("[2]", None)));
        assert_eq!(reader.remembered(), [Some(last), None]);
        assert_eq!(reader.raw_value_repeating(0), Ok(("[1]", Some(u32::MAX))));
        // What was checked at one depth is checked again at another.
        let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
        let text = format!("{deep} {deep}");
        let mut reader = Reader::new(&text);
        assert!(reader.raw_value_repeating(1).is_ok());
        assert_eq!(
            reader.remembered()[1].map(|memory| memory.generation),
            Some(0)
        );
        reader.depth = 100;
        let mut fresh = Reader::new(&text);
        fresh.pos = reader.pos;
        fresh.depth = 100;
        let repeated = reader.raw_value_repeating(1);
        assert!(repeated.is_err());
        assert_eq!(repeated.map(|(raw, _)| raw), fresh.raw_value());
        assert_eq!(reader.error(), fresh.error());
        assert_eq!(reader.pos, fresh.pos);
    }

    /// Reads one value both ways, [`Reader::value`] and [`Reader::skip_value`], and checks
    /// that they agree on the verdict, where they stop and the depth they leave.
    fn value_and_skip_agree(text: &str) {
        let read = |skip: bool| {
            let mut reader = Reader::new(text);
            let result = if skip {
                reader.skip_value()
            } else {
                reader.value().map(drop)
            };
            (result, reader.pos, reader.depth, reader.error().clone())
        };
        assert_eq!(read(true), read(false), "{text:?}");
    }

    /// Every text one edit away from a few seeds: skipping and reading fail alike.
    #[test]
    fn skipping_checks_what_reading_checks() {
        let seeds = [
            r#"{"a": [1, -2.5e3, true, false, null], "b": {"c": {}, "d": []}, "e": "x\ny"}"#,
            r#"[[], {}, [[1]], {"k": [{"x": "y"}]}, "s", 0, -0.5E+2]"#,
            r#" { "k" : [ 1 , 2 ] , "l" : { } } "#,
            "[{\"a\":1},[2,3],{\"b\":[{\"c\":null}]}]",
        ];
        let edits = [
            "", "{", "}", "[", "]", ",", ":", "\"", "\\", " ", "0", "1", "-", ".", "e", "t", "n",
            "u", "\u{1}", "\n", "é",
        ];
        for seed in seeds {
            value_and_skip_agree(seed);
            let boundaries: Vec<usize> = (0..=seed.len())
                .filter(|&at| seed.is_char_boundary(at))
                .collect();
            for &at in &boundaries {
                for edit in edits {
                    let mut inserted = seed.to_owned();
                    inserted.insert_str(at, edit);
                    value_and_skip_agree(&inserted);
                    if let Some(&next) = boundaries.iter().find(|&&b| b > at) {
                        let mut replaced = seed.to_owned();
                        replaced.replace_range(at..next, edit);
                        value_and_skip_agree(&replaced);
                    }
                }
            }
        }
        let deep = |n: usize| format!("{}1{}", "[{\"k\":".repeat(n), "}]".repeat(n));
        for n in [MAX_DEPTH / 2 - 1, MAX_DEPTH / 2, MAX_DEPTH / 2 + 1] {
            value_and_skip_agree(&deep(n));
        }
        let mut reader = Reader::new("[[[1]]]");
        reader.depth = MAX_DEPTH - 2;
        let mut other = Reader::new("[[[1]]]");
        other.depth = MAX_DEPTH - 2;
        assert_eq!(reader.skip_value(), other.value().map(drop));
        assert_eq!(reader.error(), other.error());
        assert_eq!(reader.pos, other.pos);
    }

    #[test]
    fn raw_values_are_the_text_as_written() {
        let mut reader = Reader::new("  { \"a\" : [1, 2] } ,");
        assert_eq!(reader.raw_value().unwrap(), "{ \"a\" : [1, 2] }");
    }
}
