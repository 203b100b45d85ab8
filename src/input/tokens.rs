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

use crate::input::json::blocks::{plain_units, UNITS_BLOCK};
use crate::input::json::reader::{Reader, Step};

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

const ONES: u64 = 0x0101_0101_0101_0101;
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

/// Whether one of the eight bytes of `word` is `"` or `\` (in checked JSON text, the only
/// bytes a string's plain run stops at).
#[inline]
fn has_quote_or_backslash(word: u64) -> bool {
    let zero_byte = |x: u64| x.wrapping_sub(ONES) & !x;
    let quote = word ^ ONES.wrapping_mul(u64::from(b'"'));
    let backslash = word ^ ONES.wrapping_mul(u64::from(b'\\'));
    (zero_byte(quote) | zero_byte(backslash)) & HIGHS != 0
}

/// The UTF-16 code units a UTF-8 byte stands for: a lead byte of four its two, any other lead
/// byte one, a continuation byte none.
fn byte_units(byte: u8) -> usize {
    match byte {
        0x80..=0xBF => 0,
        0xF0..=0xFF => 2,
        _ => 1,
    }
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
                tokens = tokens.saturating_add(block_tokens(reader.raw_value()?));
            }
            Ok(tokens)
        }
        Some(b'"') => {
            let raw = reader.raw_value()?;
            Ok(text_block_tokens(scan_string(raw.as_bytes(), 0).decoded))
        }
        _ => reader.skip_value().map(|()| 0),
    }
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
#[derive(Clone, Copy, PartialEq, Eq)]
enum Member {
    Type,
    Text,
    Name,
    Arguments,
    Other,
}

/// Tokens of one content block given as checked JSON text.
pub(crate) fn block_tokens(raw: &str) -> u32 {
    let bytes = raw.as_bytes();
    let mut members = BlockMembers::default();
    let units = scan_json(bytes, Some(&mut members));
    if bytes.first() != Some(&b'{') {
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

/// The `JSON.stringify` length of a checked JSON value's text.
#[cfg(test)]
pub(crate) fn json_units(raw: &str) -> usize {
    scan_json(raw.as_bytes(), None)
}

/// Scans checked JSON text and returns the length of what `JSON.stringify` writes for it
/// (duplicate keys are counted as written, where `JSON.parse` keeps one). With `members`, also
/// reads the top-level members the heuristic needs.
fn scan_json(bytes: &[u8], mut members: Option<&mut BlockMembers>) -> usize {
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

/// A scanned string.
struct ScannedString {
    /// Its length in UTF-16 code units once decoded.
    decoded: usize,
    /// The length `JSON.stringify` writes between the quotes.
    written: usize,
    /// The index of its closing quote (or the end of the text).
    end: usize,
    /// Whether it holds an escape.
    escaped: bool,
}

/// Scans the checked JSON string whose opening quote is at `start`.
fn scan_string(bytes: &[u8], start: usize) -> ScannedString {
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

/// The length `JSON.stringify` writes for the BMP code unit `code` (not a high surrogate).
fn escaped_units(code: u16) -> usize {
    match code {
        0x22 | 0x5C | 0x08 | 0x0C | 0x0A | 0x0D | 0x09 => 2,
        0x00..=0x1F | 0xDC00..=0xDFFF => 6,
        _ => 1,
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
