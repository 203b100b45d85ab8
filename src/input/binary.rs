//! Input that is not text at all (a gzip or PNG file, random bytes, NULs), told apart when a
//! read has already failed, so that the error says so instead of naming a JSON fault at the
//! first odd byte. Only the error paths call it: the readers never look for binary bytes.

/// How many bytes from the start of the failing line are looked at.
const LOOK: usize = 1024;

/// A byte no text holds: NUL or another C0 control character other than tab, line feed,
/// carriage return, form feed and escape (JSON lets none of them stand raw, but a text log
/// with a stray escape sequence or form feed is still text).
fn is_binary_control(byte: u8) -> bool {
    byte < 0x20 && !matches!(byte, b'\t' | b'\n' | b'\r' | 0x0c | 0x1b)
}

/// Where binary data shows in `bytes` (the text from the start of the line a read failed in):
/// the offset of its first byte that is a binary control character or not UTF-8, when the
/// first [`LOOK`] bytes hold a binary control character. Without one, bytes that are not UTF-8
/// are taken for text in another encoding and `None` is returned.
pub(crate) fn binary_at(bytes: &[u8]) -> Option<usize> {
    let window = bytes.get(..LOOK).unwrap_or(bytes);
    let control = window.iter().position(|byte| is_binary_control(*byte))?;
    // A character cut by the window's end ends after the (ASCII) control byte: it never wins.
    let not_utf8 = std::str::from_utf8(window)
        .err()
        .map_or(control, |error| error.valid_up_to());
    Some(control.min(not_utf8))
}

/// The message of [`crate::Error::MalformedJson`] for binary data whose first odd byte is
/// `byte`.
pub(crate) fn binary_message(byte: u8) -> String {
    format!("byte {byte:#04x} is not text (binary data? a session log is UTF-8 JSON lines)")
}

/// The 1-based column of the character that starts at `offset` of `line`, whose bytes up to
/// there are UTF-8: the characters before it (bytes that do not continue one), plus one.
pub(crate) fn column_at(line: &[u8], offset: usize) -> usize {
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
        assert_eq!(binary_at(&[0x1f, 0x8b, 0x08, 0x00, b'x']), Some(0));
        // PNG: 0x89 is not UTF-8, and the header holds 0x1a and NULs.
        assert_eq!(binary_at(b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR"), Some(0));
        assert_eq!(binary_at(b"abc\0{}"), Some(3));
        assert_eq!(binary_at(b"\0\0\0"), Some(0));
    }

    #[test]
    fn text_is_not_binary() {
        assert_eq!(binary_at(b"{\"a\": 1,, }"), None);
        assert_eq!(
            binary_at(b"tab\tform feed\x0c escape \x1b[31m crlf\r\n"),
            None
        );
        // Latin-1 text: not UTF-8, yet no control byte.
        assert_eq!(binary_at(b"{\"name\": \"caf\xe9\"}"), None);
        // A control byte past the look-ahead is not seen.
        let mut far = vec![b'a'; LOOK];
        far.push(0);
        assert_eq!(binary_at(&far), None);
    }

    #[test]
    fn columns_count_characters() {
        assert_eq!(column_at(b"abc", 0), 1);
        assert_eq!(column_at("éé\0".as_bytes(), 4), 3);
    }
}
