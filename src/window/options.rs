//! The options of the window's calls (JSON text, their other argument, is `input::text`).

/// Options of `load`, `prepend`, `loadJson` and `prependJson` (in Rust `load_json` and
/// `prepend_json` too); JS passes them as an object, `{ hasMore }`, or leaves them out. Rust
/// builds them from `LoadOptions::default()`: they are non-exhaustive, so a member added later
/// breaks no caller.
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
