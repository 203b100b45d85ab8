//! The crate's own JSON: a validating reader that skips what it is not asked for, and the value
//! type that request headers keep. Owning it keeps the wasm module small (no general-purpose
//! JSON library, no float formatting) and lets large logs be scanned at memory speed.

pub(crate) mod blocks;
pub(crate) mod number;
pub(crate) mod reader;
pub(crate) mod stringify;
// Only the JS side hands over text that is not a Rust string yet (feature `wasm`); the unit
// tests check it natively.
#[cfg(any(test, feature = "wasm"))]
pub(crate) mod utf8;
mod value;

pub use value::{JsonObject, JsonValue};

use crate::error::Error;
use crate::input::binary::binary_error;
use reader::SyntaxError;

/// The [`Error::MalformedJson`] for `err` in `text`, whose first line is line `first_line + 1`
/// of the input. Lines and columns count from 1; columns count characters.
pub(crate) fn malformed(text: &str, err: &SyntaxError, first_line: usize) -> Error {
    let before = text.get(..err.offset).unwrap_or(text);
    let line_start = before
        .rfind('\n')
        .map_or(0, |newline| newline.saturating_add(1));
    let newlines = before.bytes().filter(|byte| *byte == b'\n').count();
    let line = first_line.saturating_add(newlines).saturating_add(1);
    // Binary data fails at its first odd byte with whatever JSON fault that byte makes: say
    // what it is instead (an error path only; the reader never looks for it).
    if let Some(error) = binary_error(
        text.as_bytes().get(line_start..).unwrap_or_default(),
        line,
        None,
    ) {
        return error;
    }
    let column = before
        .get(line_start..)
        .map_or(0, |line| line.chars().count())
        .saturating_add(1);
    Error::MalformedJson {
        line,
        column,
        message: err.message.to_owned(),
    }
}
