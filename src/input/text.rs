//! JSON text as the calls that read it take it: a string or UTF-8 bytes.

/// JSON text as the `_json` calls and [`crate::Conversation::feed`], [`crate::parse_events`] take it: a string or UTF-8
/// bytes (whose last line may end inside a character). JS's calls take a string or a
/// `Uint8Array` the same way. `&str`, `&String`, `&[u8]`, `&Vec<u8>` and byte arrays convert.
///
/// Non-exhaustive: callers build it through `From` and rarely match on it, and a later form of
/// text (UTF-16, say) can then be added in a minor release.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum JsonText<'a> {
    /// Text known to be UTF-8.
    Str(&'a str),
    /// Bytes read as UTF-8 (checked).
    Bytes(&'a [u8]),
}

impl JsonText<'_> {
    /// The text's bytes.
    pub fn as_bytes(&self) -> &[u8] {
        match self {
            JsonText::Str(text) => text.as_bytes(),
            JsonText::Bytes(bytes) => bytes,
        }
    }
}

impl<'a> From<&'a str> for JsonText<'a> {
    fn from(text: &'a str) -> JsonText<'a> {
        JsonText::Str(text)
    }
}

impl<'a> From<&'a String> for JsonText<'a> {
    fn from(text: &'a String) -> JsonText<'a> {
        JsonText::Str(text)
    }
}

impl<'a> From<&'a [u8]> for JsonText<'a> {
    fn from(bytes: &'a [u8]) -> JsonText<'a> {
        JsonText::Bytes(bytes)
    }
}

impl<'a> From<&'a Vec<u8>> for JsonText<'a> {
    fn from(bytes: &'a Vec<u8>) -> JsonText<'a> {
        JsonText::Bytes(bytes)
    }
}

impl<'a, const N: usize> From<&'a [u8; N]> for JsonText<'a> {
    fn from(bytes: &'a [u8; N]) -> JsonText<'a> {
        JsonText::Bytes(bytes)
    }
}
