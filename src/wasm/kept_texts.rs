//! The JS strings of a conversation's texts, kept from one call to the next.
//!
//! `views()` hands out every prompt text of the window; made anew on each call, the strings were
//! a third of what a call allocated (4.5 of 18.5 MB on typical-100k) and their decoding a
//! visible share of its time. A JS string is immutable, so handing the same one out again cannot
//! be observed. Each entry holds a clone of the `Rc` its string was made from: while it is kept,
//! no other text can take its address, so the address names the text.

use std::collections::HashMap;
use std::rc::Rc;

use wasm_bindgen::JsValue;

/// Entries kept before the first sweep.
const FIRST_SWEEP: usize = 256;

/// JS strings by the address of the `Rc<str>` they were made from.
pub(crate) struct KeptTexts {
    strings: HashMap<usize, (Rc<str>, JsValue)>,
    /// The size at which the next insert first drops the entries only this store still holds.
    sweep_at: usize,
}

impl Default for KeptTexts {
    fn default() -> KeptTexts {
        KeptTexts {
            strings: HashMap::new(),
            sweep_at: FIRST_SWEEP,
        }
    }
}

impl KeptTexts {
    /// The JS string of `text`: kept from an earlier call, or made now and kept.
    pub fn string(&mut self, text: &Rc<str>) -> &JsValue {
        let key = Rc::as_ptr(text).cast::<u8>() as usize;
        if self.strings.len() >= self.sweep_at && !self.strings.contains_key(&key) {
            self.sweep();
        }
        let (_, value) = self
            .strings
            .entry(key)
            .or_insert_with(|| (Rc::clone(text), JsValue::from_str(text)));
        value
    }

    /// Drops the strings of texts no one else holds: amortized, each sweep at least halves
    /// the room to the next one, so a text costs O(1) sweeping.
    fn sweep(&mut self) {
        self.strings
            .retain(|_, (text, _)| Rc::strong_count(text) > 1);
        self.sweep_at = self.strings.len().saturating_mul(2).max(FIRST_SWEEP);
    }

    /// Drops every kept string (the window was replaced).
    pub fn clear(&mut self) {
        *self = KeptTexts::default();
    }
}
