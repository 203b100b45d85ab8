//! Text from a log made safe for a terminal.

use std::borrow::Cow;

/// Whether `c` would reach the terminal as more than a character: a control character (an
/// escape sequence, a line end, a bell), a line or paragraph separator (some terminals break the
/// line there), or a bidirectional control (a terminal that lays out right-to-left text, as VTE
/// does, would show the rest of the row reversed or moved: a misleading row).
fn unsafe_for_terminal(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{061c}'
                | '\u{200e}'
                | '\u{200f}'
                | '\u{2028}'
                | '\u{2029}'
                | '\u{202a}'..='\u{202e}'
                | '\u{2066}'..='\u{2069}'
        )
}

/// `text` from a log as it may be printed to a terminal: its control characters, line and
/// paragraph separators and bidirectional controls escaped as Rust writes them (`\n`, `\u{1b}`,
/// `\u{202e}`), so that a session's text can neither break a line of the table, send the
/// terminal an escape sequence, nor reorder a row.
pub fn printable(text: &str) -> Cow<'_, str> {
    if !text.chars().any(unsafe_for_terminal) {
        return Cow::Borrowed(text);
    }
    let mut escaped = String::with_capacity(text.len().saturating_add(8));
    for c in text.chars() {
        if unsafe_for_terminal(c) {
            escaped.extend(c.escape_debug());
        } else {
            escaped.push(c);
        }
    }
    Cow::Owned(escaped)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bidirectional_controls_and_separators_are_escaped() {
        assert_eq!(printable("id-\u{202e}gpj.exe"), "id-\\u{202e}gpj.exe");
        assert_eq!(printable("a\u{2066}b\u{2069}"), "a\\u{2066}b\\u{2069}");
        assert_eq!(printable("a\u{2028}b\u{2029}"), "a\\u{2028}b\\u{2029}");
        assert_eq!(printable("\u{200f}\u{061c}"), "\\u{200f}\\u{61c}");
        // Control characters as before.
        assert_eq!(printable("a\u{1b}[31m\n"), "a\\u{1b}[31m\\n");
        // A zero-width joiner (a family emoji), Arabic and Hebrew letters stay as they are.
        let kept = "\u{1f468}\u{200d}\u{1f469} \u{645}\u{631}\u{62d}\u{628}\u{627} \u{5e9}";
        assert_eq!(printable(kept), kept);
    }
}
