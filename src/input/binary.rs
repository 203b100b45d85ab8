//! Input that is not text at all (a gzip or PNG file, random bytes, NULs), told apart when a
//! read has already failed, so that the error says so instead of naming a JSON fault at the
//! first odd byte. Only the error paths call it: the readers never look for binary bytes.

use crate::error::Error;

/// How many bytes from the start of the failing line are looked at.
const LOOK: usize = 1024;

/// A byte no text holds: NUL or another C0 control character other than tab, line feed,
/// carriage return, form feed and escape (JSON lets none of them stand raw, but a text log
/// with a stray escape sequence or form feed is still text).
fn is_binary_control(byte: u8) -> bool {
    byte < 0x20 && !matches!(byte, b'\t' | b'\n' | b'\r' | 0x0c | 0x1b)
}

/// Where binary data shows in `bytes` (the text from the start of the line a read failed in,
/// whose first byte that is not UTF-8, if any, is at `not_utf8`): the offset of its first byte
/// that is a binary control character or not UTF-8, when the first [`LOOK`] bytes hold a binary
/// control character. Without one, bytes that are not UTF-8 are taken for text in another
/// encoding and `None` is returned.
fn binary_at(bytes: &[u8], not_utf8: Option<usize>) -> Option<usize> {
    let window = bytes.get(..LOOK).unwrap_or(bytes);
    let control = window.iter().position(|byte| is_binary_control(*byte))?;
    Some(not_utf8.map_or(control, |not_utf8| control.min(not_utf8)))
}

/// The [`Error::MalformedJson`] for `bytes` (the text from the start of line `line` of the
/// input, where a read failed, its first byte that is not UTF-8 at `not_utf8`, the caller
/// knowing: the UTF-8 check is not done again) when they are binary data, naming its first odd
/// byte and that byte's column.
pub(crate) fn binary_error(bytes: &[u8], line: usize, not_utf8: Option<usize>) -> Option<Error> {
    if line == 1 && is_utf16(bytes) {
        return Some(Error::MalformedJson {
            line,
            column: 1,
            message: String::from("the text is UTF-16; a session log is UTF-8 JSON lines"),
        });
    }
    let at = binary_at(bytes, not_utf8)?;
    let byte = bytes.get(at).copied().unwrap_or_default();
    // By hand: `{:x}` would bring more of the formatting machinery into the wasm module.
    let hex = |nibble: u8| {
        char::from(
            b"0123456789abcdef"
                .get(usize::from(nibble & 15))
                .copied()
                .unwrap_or(b'0'),
        )
    };
    let mut message = String::from("byte 0x");
    message.push(hex(byte >> 4));
    message.push(hex(byte));
    message.push_str(" is not text (binary data? a session log is UTF-8 JSON lines)");
    Some(Error::MalformedJson {
        line,
        column: column_at(bytes, at),
        message,
    })
}

/// Whether `bytes` (the start of the input) is UTF-16 text: a byte order mark, or two ASCII
/// characters each beside a NUL in either order (JSON text begins with ASCII). What Windows
/// PowerShell 5's `>` writes, for one.
fn is_utf16(bytes: &[u8]) -> bool {
    let ascii = |byte: &u8| (1..0x80).contains(byte);
    match bytes.get(..4).unwrap_or(bytes) {
        [0xff, 0xfe, ..] | [0xfe, 0xff, ..] => true,
        [a, 0, b, 0] | [0, a, 0, b] => ascii(a) && ascii(b),
        _ => false,
    }
}

/// The 1-based column of the character that starts at `offset` of `line`, whose bytes up to
/// there are UTF-8: the characters before it (bytes that do not continue one), plus one.
fn column_at(line: &[u8], offset: usize) -> usize {
    line.get(..offset)
        .unwrap_or(line)
        .iter()
        .filter(|byte| (**byte & 0xc0) != 0x80)
        .count()
        .saturating_add(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binary_files_are_told_by_their_first_odd_byte() {
        // gzip: its magic number's first byte is a control character.
        assert_eq!(binary_at(&[0x1f, 0x8b, 0x08, 0x00, b'x'], Some(1)), Some(0));
        // PNG: 0x89 is not UTF-8, and the header holds 0x1a and NULs.
        assert_eq!(
            binary_at(b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR", Some(0)),
            Some(0)
        );
        assert_eq!(binary_at(b"abc\0{}", None), Some(3));
        assert_eq!(binary_at(b"\0\0\0", None), Some(0));
    }

    #[test]
    fn text_is_not_binary() {
        assert_eq!(binary_at(b"{\"a\": 1,, }", None), None);
        assert_eq!(
            binary_at(b"tab\tform feed\x0c escape \x1b[31m crlf\r\n", None),
            None
        );
        // Latin-1 text: not UTF-8, yet no control byte.
        assert_eq!(binary_at(b"{\"name\": \"caf\xe9\"}", Some(13)), None);
        // A control byte past the look-ahead is not seen.
        let mut far = vec![b'a'; LOOK];
        far.push(0);
        assert_eq!(binary_at(&far, None), None);
    }

    #[test]
    fn the_error_names_the_byte_in_hex_at_its_column() {
        let Some(Error::MalformedJson {
            line,
            column,
            message,
        }) = binary_error("é\u{1f}".as_bytes(), 3, None)
        else {
            panic!("not binary");
        };
        assert_eq!((line, column), (3, 2));
        assert!(message.starts_with("byte 0x1f is not text"), "{message}");
        assert!(binary_error(&[0xab, 0], 1, Some(0))
            .is_some_and(|error| error.to_string().contains("byte 0xab ")));
        assert!(binary_error(b"text", 1, None).is_none());
    }

    #[test]
    fn utf16_text_is_named_in_either_byte_order() {
        let utf16 = |text: &str, big: bool| -> Vec<u8> {
            text.encode_utf16()
                .flat_map(|unit| {
                    if big {
                        unit.to_be_bytes()
                    } else {
                        unit.to_le_bytes()
                    }
                })
                .collect()
        };
        for bytes in [
            utf16("\u{feff}{\"seq\": 1}", false),
            utf16("\u{feff}{\"seq\": 1}", true),
            utf16("{\"seq\": 1}", false),
            utf16("{\"seq\": 1}", true),
        ] {
            let message = binary_error(&bytes, 1, Some(0)).map(|error| error.to_string());
            assert!(
                message
                    .as_deref()
                    .is_some_and(|message| message.contains("the text is UTF-16;")),
                "{bytes:?}: {message:?}"
            );
        }
        // Only where the input starts: a later line with NULs is binary data.
        let later = utf16("{\"seq\": 1}", false);
        assert!(binary_error(&later, 2, None)
            .is_some_and(|error| error.to_string().contains("byte 0x00 is not text")));
        // Four NULs are not UTF-16 text.
        assert!(!is_utf16(&[0, 0, 0, 0]));
    }

    #[test]
    fn columns_count_characters() {
        assert_eq!(column_at(b"abc", 0), 1);
        assert_eq!(column_at("éé\0".as_bytes(), 4), 3);
    }
}
