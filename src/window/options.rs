//! The options of the window's calls (JSON text, their other argument, is `input::text`).

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
