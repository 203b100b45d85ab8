//! Token estimates of surface messages, by the harness token meter's fixed heuristic (4 UTF-16
//! code units per token), computed while an event is read so that no message text is kept.
//!
//! - a text or reasoning block: `ceil(text / 4) + 4`;
//! - a tool call: `ceil(name / 4) + ceil(arguments / 4) + 4`;
//! - any other block: `4 + ceil(JSON length / 4)`;
//! - a message: its blocks plus 4; a system message: `ceil(units / 4) + 4`, where a text
//!   block adds its text's length and any other block its JSON length, with no per-block cost;
//!   0 when its content has no block (upstream `estimate.ts`, `estimateSystemMessage`);
//! - the tools of a request header: `ceil(JSON length / 4) + 4`, 0 without tools.
//!
//! Lengths are UTF-16 code units, as JavaScript's `length`; a JSON length is the length of what
//! `JSON.stringify` writes for the value `JSON.parse` reads (whitespace dropped, strings and
//! numbers written the way JavaScript writes them). This lives with the input because it reads
//! JSON text: the fold only ever sums the numbers.

use crate::input::json::reader::{byte_units, Reader, Step};
#[cfg(not(target_arch = "wasm32"))]
use crate::input::json::reader::{StringUnits, Tally};

mod scan;
use scan::scan_json;
#[cfg(any(test, target_arch = "wasm32"))]
use scan::{block_tokens, scan_string};

/// Tokens of a run of `units` UTF-16 code units: `ceil(units / 4)`.
pub(crate) fn units_tokens(units: usize) -> u32 {
    u32::try_from(units.div_ceil(4)).unwrap_or(u32::MAX)
}

/// Tokens of a text or reasoning block of `units` code units.
pub(crate) fn text_block_tokens(units: usize) -> u32 {
    units_tokens(units).saturating_add(4)
}

/// The length of `text` in UTF-16 code units (JavaScript's `length`).
pub(crate) fn utf16_len(text: &str) -> usize {
    let (mut units, rest) = pairs_units(text.as_bytes());
    let mut words = rest.chunks_exact(8);
    for chunk in &mut words {
        units = units.saturating_add(word_units(word_of(chunk)));
    }
    let tail: usize = words.remainder().iter().copied().map(byte_units).sum();
    units.saturating_add(tail)
}

/// The UTF-16 code units of `bytes` up to its last whole sixteen bytes, and the bytes after
/// them: two words at a time, one test for both when they are ASCII (most prompt text is).
#[cfg(not(target_arch = "wasm32"))]
fn pairs_units(bytes: &[u8]) -> (usize, &[u8]) {
    let mut pairs = bytes.chunks_exact(16);
    let mut units = 0usize;
    for pair in &mut pairs {
        let (low, high) = pair.split_at_checked(8).unwrap_or_default();
        let (low, high) = (word_of(low), word_of(high));
        let pair_units = if (low | high) & HIGHS == 0 {
            16
        } else {
            word_units(low).saturating_add(word_units(high))
        };
        units = units.saturating_add(pair_units);
    }
    (units, pairs.remainder())
}

/// In the wasm module a word at a time does it all (the module's size counts more there).
#[cfg(target_arch = "wasm32")]
fn pairs_units(bytes: &[u8]) -> (usize, &[u8]) {
    (0, bytes)
}

/// Eight bytes, little-endian (zero when `chunk` has not eight).
#[inline]
fn word_of(chunk: &[u8]) -> u64 {
    <[u8; 8]>::try_from(chunk).map_or(0, u64::from_le_bytes)
}

const HIGHS: u64 = 0x8080_8080_8080_8080;

/// The UTF-16 code units the eight UTF-8 bytes of `word` stand for (see [`byte_units`]): eight
/// less one per continuation byte (`10xxxxxx`), plus one per lead byte of four (`11110xxx`).
#[inline]
fn word_units(word: u64) -> usize {
    if word & HIGHS == 0 {
        return 8;
    }
    // Bit 7 of each byte: bit 7 of the byte, and bits 6, 5 and 4 shifted up to it.
    let continuation = word & !(word << 1) & HIGHS;
    let four = word & (word << 1) & (word << 2) & (word << 3) & HIGHS;
    8usize
        .saturating_add(four.count_ones() as usize)
        .saturating_sub(continuation.count_ones() as usize)
}

/// What the token meter counts of a system message's content blocks: a text block (a string
/// `text` with `type: "text"`) its text's length, any other block its JSON length.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct SystemUnits {
    blocks: usize,
    units: usize,
}

impl SystemUnits {
    /// Counts a text block's text.
    pub fn add_text(&mut self, text: &str) {
        self.blocks = self.blocks.saturating_add(1);
        self.units = self.units.saturating_add(utf16_len(text));
    }

    /// Counts any other block, given as checked JSON text.
    pub fn add_json(&mut self, raw: &str) {
        self.blocks = self.blocks.saturating_add(1);
        self.units = self.units.saturating_add(scan_json(raw.as_bytes(), None));
    }

    /// The message's tokens: `ceil(units / 4) + 4`, 0 without blocks.
    pub fn tokens(self) -> u32 {
        match self.blocks {
            0 => 0,
            _ => text_block_tokens(self.units),
        }
    }
}

/// Tokens of the tools of a request header, from their `JSON.stringify` text (`[]` when the
/// header has none).
pub(crate) fn tools_tokens(tools_text: &str) -> u32 {
    match tools_text {
        "[]" | "" => 0,
        text => text_block_tokens(utf16_len(text)),
    }
}

/// Reads a message's `content` and returns the tokens of its blocks (without the message's 4):
/// an array costs the sum of its blocks, a string one text block, anything else nothing.
pub(crate) fn read_content_tokens(reader: &mut Reader<'_>) -> Step<u32> {
    match reader.peek() {
        Some(b'[') => {
            let mut tokens = 0u32;
            let mut array = reader.begin_array()?;
            while reader.next_element(&mut array)? {
                tokens = tokens.saturating_add(read_block_tokens(reader)?);
            }
            Ok(tokens)
        }
        Some(b'"') => Ok(text_block_tokens(read_string_units(reader)?)),
        _ => reader.skip_value().map(|()| 0),
    }
}

/// Reads a content block and returns its tokens: natively checked and measured in one pass.
#[cfg(not(target_arch = "wasm32"))]
fn read_block_tokens(reader: &mut Reader<'_>) -> Step<u32> {
    let mut measure = Measure::default();
    reader.walk_value(&mut measure)?;
    Ok(measure.block_tokens())
}

/// Reads a content block and returns its tokens: in the wasm module checked, then scanned (see
/// [`scan`]).
#[cfg(target_arch = "wasm32")]
fn read_block_tokens(reader: &mut Reader<'_>) -> Step<u32> {
    Ok(block_tokens(reader.raw_value()?))
}

/// Reads a string and returns its length in UTF-16 code units once decoded.
#[cfg(not(target_arch = "wasm32"))]
fn read_string_units(reader: &mut Reader<'_>) -> Step<usize> {
    reader.string_units().map(|string| string.decoded)
}

/// Reads a string and returns its length in UTF-16 code units once decoded (checked, then
/// scanned, in the wasm module).
#[cfg(target_arch = "wasm32")]
fn read_string_units(reader: &mut Reader<'_>) -> Step<usize> {
    Ok(scan_string(reader.raw_value()?.as_bytes(), 0).decoded)
}

/// The members of a block the heuristic reads, as scanned.
#[derive(Default)]
struct BlockMembers {
    kind: BlockKind,
    /// `text`: its length when it is a string.
    text: Option<usize>,
    /// `name`: its length when it is a string.
    name: Option<usize>,
    /// `arguments`: its length when it is a string, else the JSON length of the value.
    arguments: usize,
}

#[derive(Clone, Copy, Default, PartialEq, Eq)]
enum BlockKind {
    Text,
    ToolCall,
    #[default]
    Other,
}

/// Which member of a block a value belongs to.
#[derive(Clone, Copy, Default, PartialEq, Eq)]
enum Member {
    Type,
    Text,
    Name,
    Arguments,
    #[default]
    Other,
}

/// The `JSON.stringify` length of a checked JSON value's text.
#[cfg(test)]
pub(crate) fn json_units(raw: &str) -> usize {
    scan_json(raw.as_bytes(), None)
}

/// The tokens of a content block: `object` whether it is an object, `units` its JSON length and
/// `members` the members the heuristic reads.
fn tokens_of(object: bool, units: usize, members: &BlockMembers) -> u32 {
    if !object {
        return units_tokens(units).saturating_add(4);
    }
    match (members.kind, members.text) {
        (BlockKind::Text, Some(text)) => text_block_tokens(text),
        (BlockKind::ToolCall, _) => units_tokens(members.name.unwrap_or(0))
            .saturating_add(units_tokens(members.arguments))
            .saturating_add(4),
        _ => units_tokens(units).saturating_add(4),
    }
}

/// A JSON value measured part by part, as [`Reader::walk_value`] checks it or [`scan_json`]
/// scans it: the length of what `JSON.stringify` writes for it (duplicate keys are counted as
/// written, where `JSON.parse` keeps one), and the top-level members the heuristic reads.
#[cfg(not(target_arch = "wasm32"))]
#[derive(Default)]
struct Measure {
    units: usize,
    depth: usize,
    /// Whether the value is an object.
    object: bool,
    /// At depth 1: whether the next string is a key, the member whose value is being read,
    /// where its value started and its length when it is a string.
    key_due: bool,
    member: Member,
    value_start: usize,
    value_string: Option<usize>,
    members: BlockMembers,
}

#[cfg(not(target_arch = "wasm32"))]
impl Measure {
    /// The tokens of the value as a content block.
    fn block_tokens(&self) -> u32 {
        tokens_of(self.object, self.units, &self.members)
    }

    /// A string of the value: `inner` its text between the quotes, as written.
    fn add_string(&mut self, decoded: usize, written: usize, inner: &[u8], escaped: bool) {
        if self.depth == 1 && self.key_due {
            self.member = member_of(inner, escaped);
            self.key_due = false;
        } else if self.depth == 1 {
            self.value_string = Some(decoded);
            if self.member == Member::Type {
                self.members.kind = kind_of(inner, escaped);
            }
        }
        self.units = self.units.saturating_add(written).saturating_add(2);
    }
}

#[cfg(not(target_arch = "wasm32"))]
impl Tally for Measure {
    fn string(&mut self, reader: &mut Reader<'_>) -> Step<()> {
        let StringUnits {
            decoded,
            written,
            escaped,
            inner,
        } = reader.string_units()?;
        self.add_string(decoded, written, inner, escaped);
        Ok(())
    }

    fn punct(&mut self, byte: u8) {
        match byte {
            b'{' | b'[' => {
                if self.depth == 0 {
                    self.object = byte == b'{';
                }
                self.depth = self.depth.saturating_add(1);
                self.key_due = self.depth == 1 && byte == b'{';
            }
            b'}' | b']' | b',' => {
                if self.depth == 1 {
                    let value_units = self.units.saturating_sub(self.value_start);
                    record(
                        &mut self.members,
                        self.member,
                        self.value_string,
                        value_units,
                    );
                    self.member = Member::Other;
                    self.value_string = None;
                    self.key_due = byte == b',';
                }
                if byte != b',' {
                    self.depth = self.depth.saturating_sub(1);
                }
            }
            b':' => {
                if self.depth == 1 {
                    self.value_start = self.units.saturating_add(1);
                }
            }
            _ => debug_assert!(false, "not a punctuation byte: {byte}"),
        }
        self.units = self.units.saturating_add(1);
    }

    fn literal(&mut self, length: usize) {
        self.units = self.units.saturating_add(length);
    }

    fn number(&mut self, text: &[u8]) {
        self.units = self.units.saturating_add(number_units(text));
    }
}

/// Keeps what a finished top-level member says.
fn record(members: &mut BlockMembers, member: Member, string: Option<usize>, units: usize) {
    match member {
        Member::Text => members.text = string,
        Member::Name => members.name = string,
        Member::Arguments => members.arguments = string.unwrap_or(units),
        Member::Type => {
            if string.is_none() {
                members.kind = BlockKind::Other;
            }
        }
        Member::Other => {}
    }
}

/// Whether the string whose content (between its quotes) is `inner` reads as `name`. Inlined
/// natively (its callers compare with constant names); the wasm module keeps one copy.
#[cfg_attr(not(target_arch = "wasm32"), inline)]
fn reads_as(inner: &[u8], escaped: bool, name: &str) -> bool {
    if escaped {
        escaped_reads_as(inner, name)
    } else {
        inner == name.as_bytes()
    }
}

/// [`reads_as`] for a string that holds an escape.
#[cold]
#[inline(never)]
fn escaped_reads_as(inner: &[u8], name: &str) -> bool {
    // Escapes are rare in keys and types: the string is read again, with its quotes (which sit
    // around `inner` in the checked text).
    let Ok(text) = std::str::from_utf8(inner) else {
        return false;
    };
    // Pushed, not joined: `concat` brought 1.3 KB of generic code into the wasm module.
    let mut quoted = String::with_capacity(text.len().saturating_add(2));
    quoted.push('"');
    quoted.push_str(text);
    quoted.push('"');
    Reader::new(&quoted).string().is_ok_and(|text| text == name)
}

fn member_of(inner: &[u8], escaped: bool) -> Member {
    let named = |name: &str| reads_as(inner, escaped, name);
    if named("type") {
        Member::Type
    } else if named("text") {
        Member::Text
    } else if named("name") {
        Member::Name
    } else if named("arguments") {
        Member::Arguments
    } else {
        Member::Other
    }
}

fn kind_of(inner: &[u8], escaped: bool) -> BlockKind {
    if reads_as(inner, escaped, "text") || reads_as(inner, escaped, "reasoning") {
        BlockKind::Text
    } else if reads_as(inner, escaped, "tool-call") {
        BlockKind::ToolCall
    } else {
        BlockKind::Other
    }
}

/// The length JavaScript writes for a JSON number's text.
fn number_units(text: &[u8]) -> usize {
    let digits = text.strip_prefix(b"-").unwrap_or(text);
    let plain = digits.iter().all(u8::is_ascii_digit)
        && digits.len() <= 15
        && (digits.first() != Some(&b'0') || digits.len() == 1);
    if plain {
        return if digits == b"0" { 1 } else { text.len() };
    }
    let value = std::str::from_utf8(text)
        .ok()
        .and_then(crate::input::json::number::parse_number)
        .unwrap_or(0.0);
    crate::input::json::stringify::js_number_to_string(value).len()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    /// What JavaScript's `JSON.stringify(JSON.parse(text)).length` gives, through serde_json
    /// (which writes strings as JSON.stringify does for well-formed text, and numbers through
    /// the crate's JS formatter).
    fn stringify_len(value: &Value) -> usize {
        match value {
            Value::Null => 4,
            Value::Bool(true) => 4,
            Value::Bool(false) => 5,
            Value::Number(number) => {
                crate::input::json::stringify::js_number_to_string(number.as_f64().unwrap()).len()
            }
            Value::String(text) => utf16_len(&serde_json::to_string(text).unwrap()),
            Value::Array(items) => {
                2 + items.iter().map(stringify_len).sum::<usize>() + items.len().saturating_sub(1)
            }
            Value::Object(members) => {
                2 + members
                    .iter()
                    .map(|(key, value)| {
                        utf16_len(&serde_json::to_string(key).unwrap()) + 1 + stringify_len(value)
                    })
                    .sum::<usize>()
                    + members.len().saturating_sub(1)
            }
        }
    }

    #[test]
    fn json_lengths_are_those_json_stringify_writes() {
        let texts = [
            r#"{"type":"image","url":"x.png"}"#,
            r#" { "a" : [ 1 , 2.50 , -0 , 1e3, 1E-7, 123456789012345678 ] , "b" : null } "#,
            r#"{"t":"\u00e9\/\"\\\n\t\u0001\ud83d\ude00","é":"😀"}"#,
            r#"[true,false,{"x":{}},[]]"#,
            r#""just a string""#,
            "12",
        ];
        for text in texts {
            let value: Value = serde_json::from_str(text).unwrap();
            assert_eq!(json_units(text), stringify_len(&value), "{text}");
        }
        // Lone surrogates (serde_json rejects them) are written as escapes: 2 + 6 + 1 + 6.
        assert_eq!(json_units(r#""\ud800x\udc00""#), 15);
    }

    /// A byte at a time: what `scan_string` and `utf16_len` count eight bytes at a time.
    fn bytewise(text: &str) -> (usize, usize) {
        let quoted = serde_json::to_string(text).unwrap();
        let (mut decoded, mut written) = (0, 0);
        for unit in text.encode_utf16() {
            decoded += 1;
            written += match unit {
                0x22 | 0x5C | 0x08 | 0x0C | 0x0A | 0x0D | 0x09 => 2,
                0..=0x1F => 6,
                _ => 1,
            };
        }
        assert_eq!(written + 2, utf16_len(&quoted));
        (decoded, written)
    }

    #[test]
    fn words_count_what_bytes_count() {
        let pieces = ["a", "é", "日", "😀", "\"", "\\", "\n", "\u{1}", "/", " "];
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..3000 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let mut text = String::new();
            let mut state = seed;
            for _ in 0..(seed % 40) {
                state = state
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1);
                text.push_str(pieces[(state >> 59) as usize % pieces.len()]);
            }
            let quoted = serde_json::to_string(&text).unwrap();
            let scanned = scan_string(quoted.as_bytes(), 0);
            assert_eq!(
                (scanned.decoded, scanned.written),
                bytewise(&text),
                "{quoted}"
            );
            assert_eq!(scanned.end, quoted.len() - 1, "{quoted}");
            assert_eq!(utf16_len(&text), text.encode_utf16().count(), "{text}");
        }
    }

    #[test]
    fn blocks_cost_by_their_type() {
        // "héllo 😀" is 8 code units: ceil(8 / 4) + 4.
        assert_eq!(block_tokens(r#"{"type":"text","text":"héllo 😀"}"#), 6);
        assert_eq!(block_tokens(r#"{"text":"abcde","type":"reasoning"}"#), 6);
        // name 4 units (1 token), arguments 9 units (3 tokens).
        assert_eq!(
            block_tokens(
                r#"{"type":"tool-call","id":"c1","name":"read","arguments":"{\"p\":\"a\"}"}"#
            ),
            1 + 3 + 4
        );
        // Arguments as an object cost their JSON length: {"p":1} is 7 units.
        assert_eq!(
            block_tokens(r#"{"type":"tool-call","name":"","arguments":{"p":1}}"#),
            2 + 4
        );
        let image = r#"{"type":"image","url":"x.png","text":"not prompt text"}"#;
        assert_eq!(block_tokens(image), 4 + units_tokens(image.len()));
        // A text block without a string text is any other block.
        let odd = r#"{"type":"text","text":5}"#;
        assert_eq!(block_tokens(odd), 4 + units_tokens(odd.len()));
        assert_eq!(block_tokens(r#""abc""#), 4 + 2);
        // Escaped keys and types read as what they stand for.
        assert_eq!(
            block_tokens(r#"{"t\u0079pe":"te\u0078t","te\u0078t":"ab"}"#),
            5
        );
    }

    #[cfg(not(target_arch = "wasm32"))]
    /// A little generator of JSON text: values of every kind, escapes of every kind (pairs and
    /// lone surrogates), multi-byte text, whitespace, and strings long enough for the block loops.
    struct Texts(u64);

    #[cfg(not(target_arch = "wasm32"))]
    impl Texts {
        fn next(&mut self, below: usize) -> usize {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            (self.0 % below as u64) as usize
        }

        fn space(&mut self, out: &mut String) {
            out.push_str([" ", "", "", "\n\t ", "\r\n"][self.next(5)]);
        }

        fn string(&mut self, out: &mut String) {
            const PIECES: [&str; 18] = [
                "a",
                "type",
                "text",
                "é",
                "日本",
                "😀",
                "\\\"",
                "\\\\",
                "\\/",
                "\\n",
                "\\u0001",
                "\\u00e9",
                "\\ud83d\\ude00",
                "\\ud800",
                "\\udc00x",
                "\\u0041",
                "tool-call",
                "0123456789abcdefghij",
            ];
            out.push('"');
            for _ in 0..self.next(12) {
                out.push_str(PIECES[self.next(PIECES.len())]);
            }
            out.push('"');
        }

        fn value(&mut self, out: &mut String, depth: usize) {
            self.space(out);
            match self.next(if depth > 3 { 4 } else { 6 }) {
                0 => self.string(out),
                1 => out.push_str(["true", "false", "null"][self.next(3)]),
                2 => out.push_str(
                    ["0", "-12", "3.50", "1e3", "123456789012345678", "-0"][self.next(6)],
                ),
                3 => {
                    // A block-like object: the members the heuristic reads, with any values.
                    out.push('{');
                    for index in 0..self.next(5) {
                        if index > 0 {
                            out.push(',');
                        }
                        let key = [
                            "\"type\"",
                            "\"text\"",
                            "\"name\"",
                            "\"arguments\"",
                            "\"t\\u0079pe\"",
                        ];
                        out.push_str(key[self.next(key.len())]);
                        self.space(out);
                        out.push(':');
                        if self.next(2) == 0 {
                            out.push_str(
                                ["\"text\"", "\"tool-call\"", "\"reasoning\""][self.next(3)],
                            );
                        } else {
                            self.value(out, depth + 1);
                        }
                    }
                    out.push('}');
                }
                4 => {
                    out.push('[');
                    for index in 0..self.next(4) {
                        if index > 0 {
                            out.push(',');
                        }
                        self.value(out, depth + 1);
                    }
                    out.push(']');
                }
                _ => {
                    out.push('{');
                    for index in 0..self.next(4) {
                        if index > 0 {
                            out.push(',');
                        }
                        self.string(out);
                        out.push(':');
                        self.value(out, depth + 1);
                    }
                    out.push('}');
                }
            }
            self.space(out);
        }
    }

    #[cfg(not(target_arch = "wasm32"))]
    /// Checks and measures `text` in one pass: the reader's result, error and cursor, and the
    /// block's figures.
    fn walked(
        text: &str,
    ) -> (
        Step<()>,
        Option<crate::input::json::reader::SyntaxError>,
        usize,
        u32,
        usize,
    ) {
        let mut reader = Reader::new(text);
        let mut measure = Measure::default();
        let step = reader.walk_value(&mut measure);
        let error = step.is_err().then(|| reader.error().clone());
        (
            step,
            error,
            reader.position(),
            measure.block_tokens(),
            measure.units,
        )
    }

    #[test]
    #[cfg(not(target_arch = "wasm32"))]
    fn one_pass_measures_what_the_scan_of_checked_text_measures() {
        let mut texts = Texts(0x2545_f491_4f6c_dd1d);
        for _ in 0..4000 {
            let mut text = String::new();
            texts.value(&mut text, 0);
            let (step, _, end, tokens, units) = walked(&text);
            assert_eq!(step, Ok(()), "{text}");
            let raw = text.trim_matches([' ', '\n', '\t', '\r']);
            assert_eq!(end, text.trim_end().len(), "{text}");
            assert_eq!(
                (tokens, units),
                (block_tokens(raw), json_units(raw)),
                "{text}"
            );
            if raw.starts_with('"') {
                let mut reader = Reader::new(raw);
                let string = reader.string_units().unwrap();
                let scanned = scan_string(raw.as_bytes(), 0);
                assert_eq!(
                    (string.decoded, string.written),
                    (scanned.decoded, scanned.written)
                );
            }
        }
    }

    #[test]
    #[cfg(not(target_arch = "wasm32"))]
    fn one_pass_fails_where_the_check_alone_fails() {
        let mut texts = Texts(0x9e37_79b9_7f4a_7c15);
        let bytes = [
            b'"', b'\\', b'u', b'}', b']', b',', b':', b'x', b'1', b'\x01', b' ',
        ];
        let mut failures = 0;
        for _ in 0..3000 {
            let mut text = String::new();
            texts.value(&mut text, 0);
            // Cut short, or one ASCII byte replaced (the text stays UTF-8).
            let mut broken = text.clone().into_bytes();
            let at = texts.next(broken.len().max(1));
            if texts.next(3) == 0 {
                broken.truncate(at);
            } else if broken.get(at).is_some_and(u8::is_ascii) {
                broken[at] = bytes[texts.next(bytes.len())];
            }
            let Ok(broken) = String::from_utf8(broken) else {
                continue;
            };
            let mut reader = Reader::new(&broken);
            let step = reader.skip_value();
            let error = step.is_err().then(|| reader.error().clone());
            let (one_pass, one_pass_error, end, _, _) = walked(&broken);
            assert_eq!(
                (one_pass, one_pass_error, end),
                (step, error, reader.position()),
                "{broken}"
            );
            failures += usize::from(step.is_err());
            // A string alone: `string_units` checks what `skip_string` checks.
            if broken.trim_start().starts_with('"') {
                let (mut checked, mut measured) = (Reader::new(&broken), Reader::new(&broken));
                let step = checked.skip_string();
                let measured_step = measured.string_units().map(|_| ());
                assert_eq!(measured_step, step, "{broken}");
                assert_eq!(measured.error(), checked.error(), "{broken}");
                assert_eq!(measured.position(), checked.position(), "{broken}");
            }
        }
        assert!(failures > 500, "too few broken texts: {failures}");
    }

    fn system_tokens(texts: &[&str], blocks: &[&str]) -> u32 {
        let mut units = SystemUnits::default();
        texts.iter().for_each(|text| units.add_text(text));
        blocks.iter().for_each(|block| units.add_json(block));
        units.tokens()
    }

    #[test]
    fn system_and_tools() {
        assert_eq!(system_tokens(&[], &[]), 0);
        assert_eq!(system_tokens(&["a"], &[]), 5);
        assert_eq!(system_tokens(&["日本語です"], &[]), 6);
        // A block, even an empty text, costs the message its 4 (upstream: only an empty
        // content is free).
        assert_eq!(system_tokens(&[""], &[]), 4);
        // Non-text blocks count their JSON length, with no per-block cost (issue 26's parity
        // fix: the image was priced at 0).
        let image = r#"{ "type": "image", "data": "iVBORw0KGgo=" }"#;
        let written = r#"{"type":"image","data":"iVBORw0KGgo="}"#.len();
        assert_eq!(
            system_tokens(&["ab"], &[image]),
            units_tokens(2 + written) + 4
        );
        assert_eq!(
            system_tokens(&[], &["null", "\"x\""]),
            units_tokens(4 + 3) + 4
        );
        assert_eq!(tools_tokens("[]"), 0);
        assert_eq!(tools_tokens(r#"[{"n":"a"}]"#), 3 + 4);
    }
}
