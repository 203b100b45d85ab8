//! The arguments of the window's calls that are not events: options and JSON text.

/// Options of the calls that load a window (`load`, `prepend`, `loadJson`, `prependJson`): an
/// object, `{ hasMore }`, or left out. A member added later breaks no caller (in Rust they are
/// non-exhaustive: build them from their default).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(
    feature = "wasm",
    derive(tsify::Tsify),
    serde(rename_all = "camelCase")
)]
#[non_exhaustive]
pub struct LoadOptions {
    /// Whether older events exist that are not loaded (a "load earlier" can follow). Default:
    /// `false`.
    #[cfg_attr(feature = "wasm", tsify(optional))]
    pub has_more: bool,
}

impl LoadOptions {
    /// These options with `has_more` set.
    ///
    /// ```
    /// use promptfold::LoadOptions;
    ///
    /// let options = LoadOptions::default().with_has_more(true);
    /// assert!(options.has_more);
    /// ```
    pub const fn with_has_more(self, has_more: bool) -> LoadOptions {
        LoadOptions { has_more }
    }
}

/// JSON text as the `_json` calls and [`crate::Conversation::feed`] take it: a string or UTF-8
/// bytes (whose last line may end inside a character). JS's calls take a string or a
/// `Uint8Array` the same way. `&str`, `&String`, `&[u8]`, `&Vec<u8>` and byte arrays convert.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
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
