//! The JS strings of a conversation's texts, kept from one call to the next.
//!
//! `views()` hands out every prompt text of the window; made anew on each call, the strings were
//! a third of what a call allocated (4.5 of 18.5 MB on typical-100k) and their decoding a
//! visible share of its time. A JS string is immutable, so handing the same one out again cannot
//! be observed. Each entry holds a clone of the `Rc` its string was made from: while it is kept,
//! no other text can take its address, so the address names the text.
//!
//! The JSON values a call hands out (tools, configs, usage) are objects, made anew by each call
//! so that a caller's changes to one never show in another; what is kept of them is their JSON
//! text, which each call parses again instead of writing it again.

use std::collections::HashMap;
use std::rc::Rc;

use wasm_bindgen::JsValue;

use crate::input::json::stringify::js_stringify;
use crate::input::json::JsonValue;

/// Entries kept before the first sweep.
const FIRST_SWEEP: usize = 256;

/// JS strings by the address of the `Rc` they were made from.
struct Kept<T: ?Sized> {
    strings: HashMap<usize, (Rc<T>, JsValue)>,
    /// The size at which the next insert first drops the entries only this store still holds.
    sweep_at: usize,
}

impl<T: ?Sized> Default for Kept<T> {
    fn default() -> Kept<T> {
        Kept {
            strings: HashMap::new(),
            sweep_at: FIRST_SWEEP,
        }
    }
}

impl<T: ?Sized> Kept<T> {
    /// The JS string of `value`: kept from an earlier call, or made by `make` now and kept.
    fn string(&mut self, value: &Rc<T>, make: impl FnOnce(&T) -> JsValue) -> &JsValue {
        let key = Rc::as_ptr(value).cast::<u8>() as usize;
        if self.strings.len() >= self.sweep_at && !self.strings.contains_key(&key) {
            self.sweep();
        }
        let (_, string) = self
            .strings
            .entry(key)
            .or_insert_with(|| (Rc::clone(value), make(value)));
        string
    }

    /// Drops the strings of values no one else holds: amortized, each sweep at least halves
    /// the room to the next one, so a value costs O(1) sweeping.
    fn sweep(&mut self) {
        self.strings
            .retain(|_, (value, _)| Rc::strong_count(value) > 1);
        self.sweep_at = self.strings.len().saturating_mul(2).max(FIRST_SWEEP);
    }
}

/// The JS strings of texts and the JSON texts of JSON values, by the address of their `Rc`.
#[derive(Default)]
pub(crate) struct KeptTexts {
    texts: Kept<str>,
    json: Kept<JsonValue>,
}

impl KeptTexts {
    /// The JS string of `text`: kept from an earlier call, or made now and kept.
    pub fn string(&mut self, text: &Rc<str>) -> &JsValue {
        self.texts.string(text, JsValue::from_str)
    }

    /// The JSON text of `value` as a JS string (as `JSON.stringify` writes it): kept from an
    /// earlier call, or written now and kept.
    pub fn json_text(&mut self, value: &Rc<JsonValue>) -> &JsValue {
        self.json
            .string(value, |value| JsValue::from_str(&js_stringify(value)))
    }

    /// Drops every kept string (the window was replaced).
    pub fn clear(&mut self) {
        *self = KeptTexts::default();
    }
}
