//! Text from a log made safe for a terminal.

use std::borrow::Cow;

/// `text` from a log as it may be printed to a terminal: its control characters escaped as
/// Rust writes them (`\n`, `\u{1b}`), so that a session's text can neither break a line of the
/// table nor send the terminal an escape sequence.
pub fn printable(text: &str) -> Cow<'_, str> {
    if !text.chars().any(char::is_control) {
        return Cow::Borrowed(text);
    }
    let mut escaped = String::with_capacity(text.len().saturating_add(8));
    for c in text.chars() {
        if c.is_control() {
            escaped.extend(c.escape_debug());
        } else {
            escaped.push(c);
        }
    }
    Cow::Owned(escaped)
}
