//! Core errors as JS `PromptfoldError`s (the class of `src/wasm/js/error.js`): a stable `code`,
//! `index`, `seq`, and `line` when the error points at a line of text.

use wasm_bindgen::prelude::*;

use crate::error::Error;

#[wasm_bindgen(module = "/src/wasm/js/error.js")]
extern "C" {
    /// `new PromptfoldError(code, message, { index, seq, line })`: one call into JS, where
    /// setting each member from Rust was one call each.
    #[wasm_bindgen(js_name = promptfoldErrorOf)]
    fn error_of(
        code: &str,
        message: &str,
        index: Option<f64>,
        seq: Option<f64>,
        line: Option<f64>,
    ) -> JsValue;
}

/// Builds the JS error thrown for `error`.
pub(crate) fn to_js_error(error: &Error) -> JsValue {
    error_of(
        error.code(),
        &error.to_string(),
        error.index().map(|index| index as f64),
        error.seq().map(|seq| seq as f64),
        error.line().map(|line| line as f64),
    )
}

/// Converts a core result's error for throwing.
pub(crate) fn throw<T>(result: Result<T, Error>) -> Result<T, JsValue> {
    result.map_err(|error| to_js_error(&error))
}
