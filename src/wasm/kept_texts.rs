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

/// The value a kept string was made from, held so that no other value can take its address.
/// One type for texts and JSON values: one copy of the map's code where a generic store made
/// one per kind (about 1.5 KB of wasm).
enum Held {
    Text(Rc<str>),
    Json(Rc<JsonValue>),
}

impl Held {
    /// Whether anyone but the store still holds the value.
    fn is_shared(&self) -> bool {
        match self {
            Held::Text(text) => Rc::strong_count(text) > 1,
            Held::Json(value) => Rc::strong_count(value) > 1,
        }
    }
}

/// JS strings by the address of the `Rc` they were made from.
struct Kept {
    strings: HashMap<usize, (Held, JsValue)>,
    /// The size at which the next insert first drops the entries only this store still holds.
    sweep_at: usize,
}

impl Default for Kept {
    fn default() -> Kept {
        Kept {
            strings: HashMap::new(),
            sweep_at: FIRST_SWEEP,
        }
    }
}

impl Kept {
    /// The JS string kept under `key` (the address of the value `make` holds): kept from an
    /// earlier call, or made by `make` now and kept.
    fn string(&mut self, key: usize, make: impl FnOnce() -> (Held, JsValue)) -> &JsValue {
        if self.strings.len() >= self.sweep_at && !self.strings.contains_key(&key) {
            self.sweep();
        }
        let (_, string) = self.strings.entry(key).or_insert_with(make);
        string
    }

    /// Drops the strings of values no one else holds: amortized, each sweep at least halves
    /// the room to the next one, so a value costs O(1) sweeping.
    fn sweep(&mut self) {
        self.strings.retain(|_, (value, _)| value.is_shared());
        self.sweep_at = self.strings.len().saturating_mul(2).max(FIRST_SWEEP);
    }
}

/// The JS strings of texts and the JSON texts of JSON values, by the address of their `Rc`.
#[derive(Default)]
pub(crate) struct KeptTexts {
    texts: Kept,
    json: Kept,
}

impl KeptTexts {
    /// The JS string of `text`: kept from an earlier call, or made now and kept.
    pub fn string(&mut self, text: &Rc<str>) -> &JsValue {
        let key = Rc::as_ptr(text).cast::<u8>() as usize;
        self.texts.string(key, || {
            (Held::Text(Rc::clone(text)), JsValue::from_str(text))
        })
    }

    /// The JSON text of `value` as a JS string (as `JSON.stringify` writes it): kept from an
    /// earlier call, or written now and kept.
    pub fn json_text(&mut self, value: &Rc<JsonValue>) -> &JsValue {
        let key = Rc::as_ptr(value).cast::<u8>() as usize;
        self.json.string(key, || {
            let text = JsValue::from_str(&js_stringify(value));
            (Held::Json(Rc::clone(value)), text)
        })
    }

    /// Drops every kept string (the window was replaced).
    pub fn clear(&mut self) {
        *self = KeptTexts::default();
    }
}
