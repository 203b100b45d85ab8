//! Text fed in pieces cut anywhere: the lines a piece completes, and the rest kept for later.

use std::borrow::Cow;

/// Splits `chunk` at its last line end: the complete lines it ends (after the `unfinished`
/// start of a line kept from earlier pieces) and the incomplete rest. `None` when `chunk`
/// completes no line, so all of it belongs to the unfinished line.
pub(crate) fn complete_lines<'a>(
    unfinished: &[u8],
    chunk: &'a [u8],
) -> Option<(Cow<'a, [u8]>, &'a [u8])> {
    let last_line_end = chunk.iter().rposition(|byte| *byte == b'\n')?;
    let (complete, rest) = chunk.split_at(last_line_end.saturating_add(1));
    let lines = if unfinished.is_empty() {
        Cow::Borrowed(complete)
    } else {
        Cow::Owned([unfinished, complete].concat())
    };
    Some((lines, rest))
}

#[cfg(test)]
mod tests {
    use super::complete_lines;

    #[test]
    fn a_piece_without_a_line_end_completes_nothing() {
        assert!(complete_lines(b"{\"a\"", b":1}").is_none());
    }

    #[test]
    fn the_kept_start_joins_the_first_line_and_the_rest_waits() {
        let (lines, rest) = complete_lines(b"{\"a\"", b":1}\n{\"b\":2}\n{\"c\"").unwrap();
        assert_eq!(&*lines, b"{\"a\":1}\n{\"b\":2}\n");
        assert_eq!(rest, b"{\"c\"");
        let (lines, rest) = complete_lines(b"", b"{}\n").unwrap();
        assert!(matches!(lines, std::borrow::Cow::Borrowed(_)));
        assert_eq!((&*lines, rest), (&b"{}\n"[..], &b""[..]));
    }
}
