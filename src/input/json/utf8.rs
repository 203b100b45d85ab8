//! Checking that bytes are UTF-8, faster than `std::str::from_utf8` on mostly ASCII text in
//! wasm, where the standard check reads four bytes at a time: ASCII is checked 32 bytes at a
//! time here, and only what is not ASCII goes to the standard check.

use super::blocks::{is_ascii_block, ASCII_BLOCK};

/// How many bytes around non-ASCII text the standard check takes at a time.
const STRETCH: usize = 256;

/// Whether `bytes` is UTF-8 (exactly when `std::str::from_utf8` accepts it).
pub(crate) fn is_utf8(bytes: &[u8]) -> bool {
    let mut rest = bytes;
    loop {
        rest = rest.get(ascii_prefix(rest)..).unwrap_or_default();
        if rest.is_empty() {
            return true;
        }
        let stretch = rest.get(..STRETCH).unwrap_or(rest);
        let checked = match std::str::from_utf8(stretch) {
            Ok(_) => stretch.len(),
            // A character cut by the end of the stretch: checked again from its start.
            Err(error) if error.error_len().is_none() && stretch.len() < rest.len() => {
                error.valid_up_to()
            }
            Err(_) => return false,
        };
        rest = rest.get(checked..).unwrap_or_default();
    }
}

/// The length of the longest run of whole 32-byte blocks of ASCII at the start of `bytes`.
fn ascii_prefix(bytes: &[u8]) -> usize {
    let mut blocks = bytes.chunks_exact(ASCII_BLOCK);
    let ascii = blocks.position(|block| !is_ascii_block(block));
    match ascii {
        Some(blocks) => blocks.saturating_mul(ASCII_BLOCK),
        None => bytes.len().saturating_sub(blocks.remainder().len()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agrees_with_the_standard_check() {
        let mut below = crate::test_random::seeded(7);
        let pieces: [&[u8]; 9] = [
            b"plain ascii text, a little of it",
            "é".as_bytes(),
            "😀".as_bytes(),
            "中文".as_bytes(),
            b"\x80",
            b"\xC3",
            b"\xED\xA0\x80",
            b"\xF4\x90\x80\x80",
            b"\xE2\x82",
        ];
        for _ in 0..20_000 {
            let mut bytes = Vec::new();
            for _ in 0..below(40) {
                let piece = pieces[below(pieces.len() as u64) as usize];
                // Invalid pieces are mostly single, so that many texts are UTF-8.
                let repeat = if piece.len() < 4 && below(4) > 0 {
                    0
                } else {
                    below(60)
                };
                for _ in 0..repeat {
                    bytes.extend_from_slice(piece);
                }
            }
            assert_eq!(
                is_utf8(&bytes),
                std::str::from_utf8(&bytes).is_ok(),
                "{bytes:?}"
            );
        }
    }
}
