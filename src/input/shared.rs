//! Values shared through `Rc`: interned tools and config, prompt texts. Equality skips comparing
//! the values when both sides are one allocation: comparing 2 KB prompt texts byte by byte cost
//! a wasm load or prepend tens of milliseconds. In the wasm build, while one result is converted
//! to JS (see `wasm::outgoing`), each distinct `Rc` is converted once and the same JS value is
//! used wherever it appears again: a `views()` of a long session repeats one tools list and one
//! prompt text in thousands of headers, and building each copy anew dominated the conversion.

use std::rc::Rc;

/// Whether two shared values are equal (one allocation, or equal values).
pub(crate) fn same<T: ?Sized + PartialEq>(a: &Rc<T>, b: &Rc<T>) -> bool {
    Rc::ptr_eq(a, b) || a == b
}

/// [`same`] for optional shared values.
pub(crate) fn same_optional<T: ?Sized + PartialEq>(a: &Option<Rc<T>>, b: &Option<Rc<T>>) -> bool {
    match (a, b) {
        (Some(a), Some(b)) => same(a, b),
        (None, None) => true,
        _ => false,
    }
}

#[cfg(target_arch = "wasm32")]
pub(crate) mod cache {
    //! The JS values made during one conversion, by the address of the `Rc` they came from. The
    //! `Rc`s are borrowed by the value being converted, so an address names one value throughout.

    use std::cell::RefCell;
    use std::collections::HashMap;

    use wasm_bindgen::JsValue;

    thread_local! {
        static ACTIVE: RefCell<Option<HashMap<usize, JsValue>>> = const { RefCell::new(None) };
    }

    /// Runs `convert` with sharing on; values made inside it are shared within it only.
    pub(crate) fn sharing<R>(convert: impl FnOnce() -> R) -> R {
        set(Some(HashMap::new()));
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
    pub(crate) fn value_to_js(value: &crate::input::json::JsonValue) -> Option<JsValue> {
        js_sys::JSON::parse(&crate::input::json::stringify::js_stringify(value)).ok()
    }
}
