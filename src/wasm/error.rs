//! Core errors as JS `Error`s: `name` "PromptfoldError", a stable `code`, `index`, `seq`, and
//! `line` when the error points at a line of text.

use wasm_bindgen::prelude::*;

use crate::error::Error;

/// Builds the JS error thrown for `error`.
pub(crate) fn to_js_error(error: &Error) -> JsValue {
    let js_error = js_sys::Error::new(&error.to_string());
    js_error.set_name("PromptfoldError");
    let value = JsValue::from(js_error);
    set(&value, "code", &JsValue::from_str(error.code()));
    let index = error
        .index()
        .map_or(JsValue::UNDEFINED, |index| JsValue::from_f64(index as f64));
    set(&value, "index", &index);
    let seq = error
        .seq()
        .map_or(JsValue::UNDEFINED, |seq| JsValue::from_f64(seq as f64));
    set(&value, "seq", &seq);
    if let Some(line) = error.line() {
        set(&value, "line", &JsValue::from_f64(line as f64));
    }
    value
}

fn set(target: &JsValue, key: &str, value: &JsValue) {
    // Setting a property on a fresh Error object cannot fail.
    let _ = js_sys::Reflect::set(target, &JsValue::from_str(key), value);
}

/// Converts a core result's error for throwing.
pub(crate) fn throw<T>(result: Result<T, Error>) -> Result<T, JsValue> {
    result.map_err(|error| to_js_error(&error))
}
