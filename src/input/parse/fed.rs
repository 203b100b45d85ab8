//! Text fed in pieces cut anywhere: the lines a piece completes, and the rest kept for later.

use std::borrow::Cow;

use crate::error::Error;
use crate::room::try_room;

/// Splits `chunk` at its last line end: the complete lines it ends (after the `unfinished`
/// start of a line kept from earlier pieces) and the incomplete rest. `None` when `chunk`
/// completes no line, so all of it belongs to the unfinished line. [`Error::OutOfMemory`]
/// when the memory cannot hold the joined lines.
pub(crate) fn complete_lines<'a>(
    unfinished: &[u8],
    chunk: &'a [u8],
) -> Result<Option<Split<'a>>, Error> {
    let Some(last_line_end) = chunk.iter().rposition(|byte| *byte == b'\n') else {
        return Ok(None);
    };
    let (complete, rest) = chunk.split_at(last_line_end.saturating_add(1));
    let lines = if unfinished.is_empty() {
        Cow::Borrowed(complete)
    } else {
        let mut joined = Vec::new();
        try_room(&mut joined, unfinished.len().saturating_add(complete.len()))?;
        joined.extend_from_slice(unfinished);
        joined.extend_from_slice(complete);
        Cow::Owned(joined)
    };
    Ok(Some((lines, rest)))
}

/// The complete lines of a piece (joined to the kept start of a line when there was one) and
/// its incomplete rest.
pub(crate) type Split<'a> = (Cow<'a, [u8]>, &'a [u8]);

/// A copy of `bytes`, or [`Error::OutOfMemory`] when the memory cannot hold it.
pub(crate) fn copy_bytes(bytes: &[u8]) -> Result<Vec<u8>, Error> {
    let mut copy = Vec::new();
    try_room(&mut copy, bytes.len())?;
    copy.extend_from_slice(bytes);
    Ok(copy)
}

/// Appends `bytes` to `kept`, or returns [`Error::OutOfMemory`] (`kept` unchanged) when the
/// memory cannot hold them.
pub(crate) fn keep_bytes(kept: &mut Vec<u8>, bytes: &[u8]) -> Result<(), Error> {
    try_room(kept, bytes.len())?;
    kept.extend_from_slice(bytes);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::complete_lines;

    #[test]
    fn a_piece_without_a_line_end_completes_nothing() {
        assert!(complete_lines(b"{\"a\"", b":1}").unwrap().is_none());
    }

    #[test]
    fn the_kept_start_joins_the_first_line_and_the_rest_waits() {
        let (lines, rest) = complete_lines(b"{\"a\"", b":1}\n{\"b\":2}\n{\"c\"")
            .unwrap()
            .unwrap();
        assert_eq!(&*lines, b"{\"a\":1}\n{\"b\":2}\n");
        assert_eq!(rest, b"{\"c\"");
        let (lines, rest) = complete_lines(b"", b"{}\n").unwrap().unwrap();
        assert!(matches!(lines, std::borrow::Cow::Borrowed(_)));
        assert_eq!((&*lines, rest), (&b"{}\n"[..], &b""[..]));
    }
}
