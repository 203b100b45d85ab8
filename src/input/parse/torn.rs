//! Whether an unfinished last line is a torn tail: a JSON line a writer stopped in the middle
//! of, as opposed to a line that is not JSON at all (binary junk, NULs, other text). Only the
//! end of a read asks: no reader calls it per line.

use super::ends_early;
use super::framing::without_bom;
use crate::input::json::reader::{Failed, Reader};

/// Whether `line`, the bytes after the last line end of a session log, is a JSON line cut
/// short: JSON that ends before its value does, possibly inside a UTF-8 character (a writer
/// stopped mid-line). It is what `load_json` and `append_json` report as a torn tail
/// ([`crate::TornTail`]): a reader fed a file through [`crate::Conversation::feed`] or
/// [`crate::LedgerStream::feed`] asks it of [`crate::Conversation::unfinished_line`] at the
/// file's end. Complete JSON, a blank line, bytes that are not UTF-8 before the last character,
/// binary data (NULs, control bytes) and other text are not torn: such a last line is an error
/// of its own ([`crate::Error::MalformedJson`], naming binary data as such).
pub fn is_torn_line(line: &[u8]) -> bool {
    let line = line
        .iter()
        .rposition(|byte| *byte == b'\n')
        .and_then(|newline| line.get(newline.saturating_add(1)..))
        .unwrap_or(line);
    let text = match std::str::from_utf8(line) {
        Ok(text) => text,
        // Cut inside its last character: the characters before it.
        Err(error) if error.error_len().is_none() => line
            .get(..error.valid_up_to())
            .and_then(|valid| std::str::from_utf8(valid).ok())
            .unwrap_or_default(),
        Err(_) => return false,
    };
    let text = without_bom(text);
    let mut reader = Reader::new(text);
    if reader.peek().is_none() {
        return false;
    }
    match reader.skip_value().and_then(|()| reader.finish()) {
        Ok(()) => false,
        Err(Failed) => ends_early(text.as_bytes(), reader.error()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_json_line_cut_short_is_torn() {
        for line in [
            &b"{"[..],
            b"{\"type\":\"message\",\"seq\":4,\"te",
            b"{\"type\":\"message\",\"seq\":4,",
            b"{\"a\": tru",
            b"{\"a\": [1, 2",
            b"{\"a\": -",
            b"{\"a\": \"\\",
            // Cut inside the two bytes of `\xc3\xa9`.
            b"{\"name\": \"caf\xc3",
            b"\xef\xbb\xbf{\"seq\":",
            b"  {\"seq\": 1\r",
            // Only what follows the last line end is the last line.
            b"{\"seq\": 1}\n{\"seq\": 2",
        ] {
            assert!(is_torn_line(line), "{:?}", String::from_utf8_lossy(line));
        }
    }

    #[test]
    fn junk_complete_json_and_blank_lines_are_not_torn() {
        for line in [
            &b""[..],
            b"  \r",
            b"\0\0\0\0\0\0\0\0",
            b"\0",
            b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR",
            b"{\"seq\": 1}\0\0\0",
            b"\x1f\x8b\x08\0",
            b"\xff\xfe\xfd",
            // Not UTF-8 before its last character (Latin-1): no line it could become is UTF-8.
            b"{\"name\": \"caf\xe9 au lait",
            b"{\"seq\": 1}",
            b"{\"seq\": 1} and more",
            b"{\"a\": \"x\x01",
            b"garbage",
            b"{\"a\": trux",
            b"{\"seq\": 1}\n\0\0",
        ] {
            assert!(!is_torn_line(line), "{:?}", String::from_utf8_lossy(line));
        }
    }
}
