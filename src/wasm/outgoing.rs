//! Results that cross to JS as numbers plus a table of JS values, for JS to build the objects
//! from (`wasm::cards` and `wasm::trajectory` pack them). Made member by member through the
//! serializer, every object costs a dozen calls across the boundary; a number costs a store.

use std::rc::Rc;

use wasm_bindgen::prelude::*;

use crate::error::Error;
use crate::input::event::safe_integer;
use crate::input::json::JsonValue;
use crate::room::try_room;
use crate::views::chat::CardSource;
use crate::wasm::cache;
use crate::wasm::kept_texts::KeptTexts;

#[wasm_bindgen(module = "/src/wasm/js/outgoing.js")]
extern "C" {
    /// Builds a `ConversationChange` from its added cards (built by [`append_cards`]), its
    /// packed changed cards and removed keys.
    #[wasm_bindgen(js_name = promptfoldChange)]
    pub(super) fn make_change(
        numbers: &[f64],
        values: &js_sys::Array,
        added: &js_sys::Array,
        changed: u32,
        removed: u32,
        trajectory_changed: bool,
    ) -> JsValue;

    /// Builds `count` packed cards and appends them to `into`.
    #[wasm_bindgen(js_name = promptfoldAppendCards)]
    pub(super) fn append_cards(
        numbers: &[f64],
        values: &js_sys::Array,
        count: u32,
        into: &js_sys::Array,
    );

    /// Builds `Views` from its packed cards and trajectory.
    #[wasm_bindgen(js_name = promptfoldViews)]
    pub(super) fn make_views(
        numbers: &[f64],
        values: &js_sys::Array,
        cards: u32,
        headers: u32,
        requests: u32,
        prompts: u32,
    ) -> JsValue;

    /// Builds `{ total, start, <rows> }` from the packed cards, requests or lines of a slice
    /// (see `wasm::slices`).
    #[wasm_bindgen(js_name = promptfoldSlice)]
    pub(super) fn make_slice(
        numbers: &[f64],
        values: &js_sys::Array,
        list: u32,
        count: u32,
        total: f64,
        start: f64,
    ) -> JsValue;

    /// Builds a state, node list, node, inspection or event lines (see `wasm::data`).
    #[wasm_bindgen(js_name = promptfoldData)]
    pub(super) fn make_data(
        numbers: &[f64],
        values: &js_sys::Array,
        shape: u32,
        count: u32,
    ) -> JsValue;
}

/// A length as the JS side takes it (lengths in wasm32 fit in `u32`).
pub(super) fn length(items: usize) -> u32 {
    u32::try_from(items).unwrap_or(u32::MAX)
}

/// How many recently used shared values [`Outgoing`] remembers the table index of.
const RECENT: usize = 16;

/// The numbers of a result, and the JS values (texts, JSON values) they refer to by index.
pub(crate) struct Outgoing<'k> {
    /// The records, read in order by the JS side.
    pub numbers: Vec<f64>,
    /// The shared values: each crosses once per run of nearby uses, and is made once per
    /// conversion ([`cache`] keeps it by the address of its `Rc`).
    pub values: js_sys::Array,
    /// Table indices of recently used values by address, in slots picked by the address.
    recent: [(usize, f64); RECENT],
    /// The conversation's strings kept across calls, when the texts come from its window.
    kept: Option<&'k mut KeptTexts>,
}

impl<'k> Outgoing<'k> {
    /// An empty result with room for `numbers` numbers.
    pub fn with_capacity(numbers: usize) -> Outgoing<'k> {
        Outgoing {
            numbers: Vec::with_capacity(numbers),
            values: js_sys::Array::new(),
            recent: [(0, -1.0); RECENT],
            kept: None,
        }
    }

    /// An empty result with room for `numbers` numbers, or [`Error::OutOfMemory`] when the
    /// memory cannot give it (the numbers of a large read are its largest list).
    pub fn try_with_capacity(numbers: usize) -> Result<Outgoing<'k>, Error> {
        let mut out = Outgoing::with_capacity(0);
        try_room(&mut out.numbers, numbers)?;
        Ok(out)
    }

    /// [`Outgoing::try_with_capacity`], whose texts come from `kept` (and are kept there).
    pub fn try_keeping_texts(
        numbers: usize,
        kept: &'k mut KeptTexts,
    ) -> Result<Outgoing<'k>, Error> {
        Ok(Outgoing {
            kept: Some(kept),
            ..Outgoing::try_with_capacity(numbers)?
        })
    }

    /// Appends numbers.
    pub fn extend<const N: usize>(&mut self, numbers: [f64; N]) {
        self.numbers.extend(numbers);
    }

    /// An integer that `parse` read as a safe integer, so exact as a double.
    pub fn integer(value: i64) -> f64 {
        value as f64
    }

    /// A time as the serializer writes it: a safe integer as an integer (so `-0` is `0`).
    pub fn time(value: f64) -> f64 {
        safe_integer(value).map_or(value, |integer| integer as f64)
    }

    /// An optional turn or step: `-1` for none.
    pub fn optional(value: Option<u64>) -> f64 {
        value.map_or(-1.0, |value| value as f64)
    }

    /// The table index of a shared text.
    pub fn text(&mut self, text: &Rc<str>) -> f64 {
        let address = Rc::as_ptr(text).cast::<u8>();
        if let Some(index) = self.recent_index(address) {
            return index;
        }
        let index = match self.kept.as_deref_mut() {
            Some(kept) => self.values.push(kept.string(text)),
            None => {
                let value = cache::lookup(address, || Some(JsValue::from_str(text)))
                    .unwrap_or_else(|| JsValue::from_str(text));
                self.values.push(&value)
            }
        };
        self.remember(address, index)
    }

    /// The table index of a shared JSON value (made from its kept JSON text, when the texts
    /// are kept).
    pub fn json(&mut self, value: &Rc<JsonValue>) -> f64 {
        let address = Rc::as_ptr(value).cast::<u8>();
        if let Some(index) = self.recent_index(address) {
            return index;
        }
        let made = match self.kept.as_deref_mut() {
            Some(kept) => cache::lookup(address, || cache::parse_json(kept.json_text(value))),
            None => cache::lookup(address, || cache::value_to_js(value)),
        };
        let made = made
            .or_else(|| cache::value_to_js(value))
            .unwrap_or(JsValue::NULL);
        let length = self.values.push(&made);
        self.remember(address, length)
    }

    /// The table index of an optional shared JSON value: `-1` for none.
    pub fn optional_json(&mut self, value: Option<&Rc<JsonValue>>) -> f64 {
        value.map_or(-1.0, |value| self.json(value))
    }

    /// The table index of the value at `address` when it was pushed recently.
    fn recent_index(&self, address: *const u8) -> Option<f64> {
        let key = address as usize;
        let (known, index) = self.recent.get((key >> 3) % RECENT)?;
        (*known == key && *index >= 0.0).then_some(*index)
    }

    /// Remembers the value at `address` as the last pushed (`length`: the table's length after
    /// the push) and returns its index.
    fn remember(&mut self, address: *const u8, length: u32) -> f64 {
        let key = address as usize;
        let index = f64::from(length.saturating_sub(1));
        if let Some(entry) = self.recent.get_mut((key >> 3) % RECENT) {
            *entry = (key, index);
        }
        index
    }
}

/// A card source as a number for the JS side.
pub(super) fn source_slot(source: CardSource) -> f64 {
    match source {
        CardSource::Request => 0.0,
        CardSource::System => 1.0,
    }
}
