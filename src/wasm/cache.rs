//! The JS values made during one conversion, by the address of the `Rc` they came from. The
//! `Rc`s are borrowed by the value being converted, so an address names one value throughout.

use std::cell::RefCell;
use std::collections::HashMap;

use wasm_bindgen::JsValue;

use crate::input::json::stringify::js_stringify;
use crate::input::json::JsonValue;

thread_local! {
    static ACTIVE: RefCell<Option<HashMap<usize, JsValue>>> = const { RefCell::new(None) };
}

/// Runs `convert` with sharing on; values made inside it are shared within it only.
pub(crate) fn sharing<R>(convert: impl FnOnce() -> R) -> R {
    sharing_from(HashMap::new(), convert)
}

/// [`sharing`], starting from `known`: JS values by the address of the `Rc` each stands for,
/// which the caller holds until `convert` returns.
pub(crate) fn sharing_from<R>(known: HashMap<usize, JsValue>, convert: impl FnOnce() -> R) -> R {
    set(Some(known));
    let result = convert();
    set(None);
    result
}

fn set(map: Option<HashMap<usize, JsValue>>) {
    ACTIVE.with(|active| {
        if let Ok(mut active) = active.try_borrow_mut() {
            *active = map;
        }
    });
}

/// The JS value for the `Rc` at `address`: from the cache, or made by `make` and kept.
/// `None` when sharing is off (or `make` fails), so the caller makes its own.
pub(crate) fn lookup(
    address: *const u8,
    make: impl FnOnce() -> Option<JsValue>,
) -> Option<JsValue> {
    let key = address as usize;
    let cached = ACTIVE.with(|active| {
        let active = active.try_borrow().ok()?;
        Some(active.as_ref()?.get(&key).cloned())
    })?;
    if cached.is_some() {
        return cached;
    }
    let made = make()?;
    ACTIVE.with(|active| {
        if let Some(map) = active
            .try_borrow_mut()
            .ok()
            .as_mut()
            .and_then(|a| a.as_mut())
        {
            map.insert(key, made.clone());
        }
    });
    Some(made)
}

/// A JSON value as the plain JS value `JSON.parse` makes of its text.
pub(crate) fn value_to_js(value: &JsonValue) -> Option<JsValue> {
    js_sys::JSON::parse(&js_stringify(value)).ok()
}

#[wasm_bindgen::prelude::wasm_bindgen]
extern "C" {
    /// `JSON.parse` of a JS string (`js_sys::JSON::parse` takes a Rust string, which would
    /// cross anew).
    #[wasm_bindgen(js_namespace = JSON, js_name = parse, catch)]
    fn parse_string(text: &JsValue) -> Result<JsValue, JsValue>;
}

/// The plain JS value `JSON.parse` makes of `text`, a JS string of JSON.
pub(crate) fn parse_json(text: &JsValue) -> Option<JsValue> {
    parse_string(text).ok()
}
