//! Where a row of a batch of JSON text starts: its 1-based line, for the errors that name a row
//! (BEHAVIOUR.md section 10, item 8). Found on the error path only, by scanning the text again
//! up to the row, so reading a batch never counts anything for it.
//!
//! The text is valid JSON up to the row (malformed text is the error that wins), so JSON lines
//! need no parsing (a row is a line with anything but white space) and an array needs only its
//! strings and nesting told apart (JSON strings hold no raw line ends).

use super::framing::BOM;
use crate::error::Error;

/// How the rows of a text are laid out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Layout {
    /// As the whole-text reader decides: an array when the first character is `[`, JSON lines
    /// otherwise.
    Detect,
    /// JSON lines (the complete lines `feed` reads).
    Lines,
}

/// The scanner's state: what kind of text, and where in it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Scan {
    /// Nothing but white space (and a byte order mark) so far.
    Undecided,
    /// JSON lines; `in_row`: the current line holds a row.
    Lines { in_row: bool },
    /// A JSON array.
    Array {
        depth: usize,
        in_string: bool,
        escaped: bool,
        /// The next character that is not white space starts an element (or closes the array).
        element_next: bool,
    },
}

/// Finds the line where row `row` of a text starts, given the text in pieces.
#[derive(Clone, Debug)]
pub(crate) struct RowLine {
    row: usize,
    scan: Scan,
    /// Line ends passed.
    line_ends: usize,
    /// Rows started.
    rows: usize,
    /// Bytes of the text passed (to tell a byte order mark at its start).
    offset: usize,
    found: Option<usize>,
}

impl RowLine {
    /// A scanner for the line of row `row` (0-based, as the batch's errors count rows) in text
    /// laid out as `layout`.
    pub fn new(row: usize, layout: Layout) -> RowLine {
        RowLine {
            row,
            scan: match layout {
                Layout::Detect => Scan::Undecided,
                Layout::Lines => Scan::Lines { in_row: false },
            },
            line_ends: 0,
            rows: 0,
            offset: 0,
            found: None,
        }
    }

    /// Scans the next piece of the text; the line once the row's start has been passed.
    pub fn piece(&mut self, piece: &[u8]) -> Option<usize> {
        for &byte in piece {
            if self.found.is_some() {
                break;
            }
            let at = self.offset;
            self.offset = self.offset.saturating_add(1);
            if BOM.as_bytes().get(at) == Some(&byte) && self.rows == 0 && at < BOM.len() {
                continue;
            }
            self.byte(byte);
        }
        self.found
    }

    fn byte(&mut self, byte: u8) {
        if byte == b'\n' {
            self.line_ends = self.line_ends.saturating_add(1);
        }
        let space = matches!(byte, b' ' | b'\t' | b'\r' | b'\n');
        match &mut self.scan {
            Scan::Undecided if space => {}
            Scan::Undecided => {
                self.scan = match byte {
                    b'[' => Scan::Array {
                        depth: 0,
                        in_string: false,
                        escaped: false,
                        element_next: false,
                    },
                    _ => Scan::Lines { in_row: false },
                };
                self.byte(byte);
            }
            Scan::Lines { in_row } => {
                if byte == b'\n' {
                    *in_row = false;
                } else if !space && !*in_row {
                    *in_row = true;
                    self.row_starts();
                }
            }
            Scan::Array {
                depth,
                in_string,
                escaped,
                element_next,
            } => {
                if *in_string {
                    match (*escaped, byte) {
                        (true, _) => *escaped = false,
                        (false, b'\\') => *escaped = true,
                        (false, b'"') => *in_string = false,
                        _ => {}
                    }
                    return;
                }
                if space {
                    return;
                }
                let starts = *element_next && !(byte == b']' && *depth == 1);
                *element_next = false;
                match byte {
                    b'"' => *in_string = true,
                    b'[' | b'{' => {
                        *depth = depth.saturating_add(1);
                        *element_next = *depth == 1;
                    }
                    b']' | b'}' => *depth = depth.saturating_sub(1),
                    b',' => *element_next = *depth == 1,
                    _ => {}
                }
                if starts {
                    self.row_starts();
                }
            }
        }
    }

    /// A row starts at the current line.
    fn row_starts(&mut self) {
        if self.rows == self.row {
            self.found = Some(self.line_ends.saturating_add(1));
        }
        self.rows = self.rows.saturating_add(1);
    }
}

/// The 1-based line of `text` where row `row` starts, when the text has that row.
pub(crate) fn line_of_row(text: &[u8], row: usize, layout: Layout) -> Option<usize> {
    RowLine::new(row, layout).piece(text)
}

/// The line where row `row` starts in the text `pieces` hands out (each written at the start of
/// the room it is given; `None` once the text is over), read in pieces of at most 64 KiB.
#[cfg(any(test, feature = "wasm"))]
pub(crate) fn line_in_pieces(
    row: usize,
    pieces: &mut dyn FnMut(&mut [u8]) -> Option<usize>,
) -> Option<usize> {
    let mut room = Vec::new();
    room.try_reserve_exact(ROOM).ok()?;
    room.resize(ROOM, 0);
    let mut scanner = RowLine::new(row, Layout::Detect);
    while let Some(length) = pieces(&mut room) {
        let found = scanner.piece(room.get(..length).unwrap_or_default());
        if found.is_some() {
            return found;
        }
    }
    None
}

/// The room of [`line_in_pieces`] (its pieces must hold a UTF-8 character, 4 bytes).
#[cfg(any(test, feature = "wasm"))]
const ROOM: usize = 1 << 16;

/// `error`, found in a batch read from `text`, with the line of the row it names.
pub(crate) fn locate(error: Error, text: &[u8], layout: Layout) -> Error {
    error.located(|row| line_of_row(text, row, layout))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_start_on_the_line_of_their_first_character() {
        // (what the case shows, the text, its layout, the line of each row from row 0 on)
        let cases: [(&str, &str, Layout, &[Option<usize>]); 4] = [
            (
                "JSON lines skip blank lines",
                "\u{feff}{\"type\":\"session\"}\n\n \r\n{\"seq\":1}\r\n\t\n{\"seq\":1}\n",
                Layout::Detect,
                &[Some(1), Some(4), Some(6), None],
            ),
            (
                "a `[` starts a row of JSON lines",
                "\n\n[1]\n",
                Layout::Lines,
                &[Some(3)],
            ),
            (
                "elements of an array start where their first character is",
                "\n[ {\"a\":[1,\n2],\"b\":\"x,\\\"]\"},\n\n  5,\"s\"\n,\n[]]",
                Layout::Detect,
                &[Some(2), Some(5), Some(5), Some(7), None],
            ),
            ("an empty array has no row", "[\n]", Layout::Detect, &[None]),
        ];
        let mut failed = Vec::new();
        for (what, text, layout, expected) in cases {
            let lines: Vec<_> = (0..expected.len())
                .map(|row| line_of_row(text.as_bytes(), row, layout))
                .collect();
            if lines != expected {
                failed.push(format!(
                    "{what}: {text:?}: {lines:?}, expected {expected:?}"
                ));
            }
        }
        assert!(failed.is_empty(), "{failed:#?}");
    }

    #[test]
    fn pieces_find_what_the_whole_text_finds() {
        let texts = [
            "{\"seq\":1}\n\n{\"seq\":2}\n  {\"seq\":3}\n",
            "\u{feff}[\n{\"s\":\"\\\\\"},\n{\"t\":[{}]},\n7]",
        ];
        for text in texts {
            for row in 0..4 {
                let whole = line_of_row(text.as_bytes(), row, Layout::Detect);
                for size in 1..5 {
                    let mut chunks = text.as_bytes().chunks(size);
                    let found = line_in_pieces(row, &mut |room| {
                        let chunk = chunks.next()?;
                        room[..chunk.len()].copy_from_slice(chunk);
                        Some(chunk.len())
                    });
                    assert_eq!(found, whole, "{text:?} row {row} in pieces of {size}");
                }
            }
        }
    }
}
