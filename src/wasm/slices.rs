//! `conversation.cardsSlice`, `requestsSlice`, `linesSlice`, `viewCounts` and `indexOfSeq`:
//! the views of a large window an index range at a time, for virtualized lists. The rows cross
//! as numbers for JS to build, as `views()` does (see `wasm::outgoing`), but only the range's.

use std::ops::Range;

use wasm_bindgen::prelude::*;

use super::cards::{pack_card, CARD_SLOTS};
use super::conversation::JsConversation;
use super::convert::invalid;
use super::error::throw;
use super::outgoing::{length, make_slice, Outgoing};
use super::read_room;
use super::trajectory::{pack_request, request_slots};
use crate::error::Error;
use crate::wasm::cache;

/// Which list a slice is of (the JS side's `promptfoldSlice` reads it by this number).
#[derive(Clone, Copy)]
enum List {
    Cards = 0,
    Requests = 1,
    Lines = 2,
}

/// Reads `{ start, end }`: two integers `0 <= start <= end` (safe integers; larger than any
/// list is fine, the range is clamped to the list).
fn range_from_js(value: &JsValue) -> Result<Range<usize>, Error> {
    const EXPECTED: &str = "expected `{ start, end }` with integers 0 <= start <= end";
    if !value.is_object() {
        return Err(invalid("range", EXPECTED));
    }
    let index = |name: &str| -> Result<usize, Error> {
        let member = js_sys::Reflect::get(value, &JsValue::from_str(name))
            .map_err(|_| invalid("range", EXPECTED))?;
        let number = member
            .as_f64()
            .filter(|number| {
                number.fract() == 0.0
                    && *number >= 0.0
                    && *number <= crate::seq::MAX_SAFE_INTEGER as f64
            })
            .ok_or_else(|| invalid("range", EXPECTED))?;
        // Saturating: a safe integer past a wasm32 index is past the end of every list.
        Ok(number as usize)
    };
    let (start, end) = (index("start")?, index("end")?);
    if start > end {
        return Err(invalid("range", "`start` is after `end`"));
    }
    Ok(start..end)
}

/// How many rows of a list of `total` rows `range` holds (clamped as the slices clamp it).
fn clamped_len(range: &Range<usize>, total: usize) -> usize {
    range.end.min(total).saturating_sub(range.start.min(total))
}

#[wasm_bindgen(js_class = Conversation)]
impl JsConversation {
    /// The chat cards `start..end` of `views().chat` (clamped to the cards), with their
    /// total: `{ total, start, cards }`, the same cards as those of `views()`, at the cost of
    /// the range whatever the window's size. Throws `INVALID_ARGUMENT` (and changes nothing)
    /// unless `start` and `end` are integers with `0 <= start <= end`, and `OUT_OF_MEMORY`
    /// when the memory cannot hold the range's rows.
    #[wasm_bindgen(js_name = cardsSlice, unchecked_return_type = "CardsSlice")]
    pub fn cards_slice(
        &self,
        #[wasm_bindgen(unchecked_param_type = "SliceRange")] range: JsValue,
    ) -> Result<JsValue, JsValue> {
        let range = throw(range_from_js(&range))?;
        let wanted = clamped_len(&range, self.conversation().view_counts().cards);
        throw(read_room::for_cards(wanted))?;
        let slice = throw(self.conversation().cards_slice(range))?;
        let mut texts = self.take_texts();
        let value = cache::sharing(|| {
            let slots = slice.cards.len().saturating_mul(CARD_SLOTS);
            let mut out = Outgoing::try_keeping_texts(slots, &mut texts)?;
            for card in &slice.cards {
                pack_card(card, &mut out);
            }
            Ok(make_slice(
                &out.numbers,
                &out.values,
                List::Cards as u32,
                length(slice.cards.len()),
                slice.total as f64,
                slice.start as f64,
            ))
        });
        self.keep_texts(texts);
        throw(value)
    }

    /// The requests `start..end` of `views().trajectory.requests` (clamped), with their total:
    /// `{ total, start, requests }`, at the cost of the range whatever the window's size when
    /// each step's header facts lie around its `step/start` (as the harness writes them); in a
    /// window where they do not, the first call links every request (one pass, kept until a
    /// load or prepend). Throws as `cardsSlice` does.
    #[wasm_bindgen(js_name = requestsSlice, unchecked_return_type = "RequestsSlice")]
    pub fn requests_slice(
        &self,
        #[wasm_bindgen(unchecked_param_type = "SliceRange")] range: JsValue,
    ) -> Result<JsValue, JsValue> {
        let range = throw(range_from_js(&range))?;
        let total = self.conversation().view_counts().requests;
        throw(read_room::for_requests(clamped_len(&range, total), total))?;
        let slice = throw(self.conversation().requests_slice(range))?;
        let mut texts = self.take_texts();
        let value = cache::sharing(|| {
            let slots = slice.requests.iter().map(request_slots);
            let mut out =
                Outgoing::try_keeping_texts(slots.fold(0, usize::saturating_add), &mut texts)?;
            for request in &slice.requests {
                pack_request(request, &mut out);
            }
            Ok(make_slice(
                &out.numbers,
                &out.values,
                List::Requests as u32,
                length(slice.requests.len()),
                slice.total as f64,
                slice.start as f64,
            ))
        });
        self.keep_texts(texts);
        throw(value)
    }

    /// The event lines `start..end` of `lines()` (clamped), with their total:
    /// `{ total, start, lines }`, at the cost of the range. Throws as `cardsSlice` does.
    #[wasm_bindgen(js_name = linesSlice, unchecked_return_type = "LinesSlice")]
    pub fn lines_slice(
        &self,
        #[wasm_bindgen(unchecked_param_type = "SliceRange")] range: JsValue,
    ) -> Result<JsValue, JsValue> {
        let range = throw(range_from_js(&range))?;
        let events = self.conversation().events();
        let wanted = clamped_len(&range, events.len());
        let last = range.end.min(events.len()).checked_sub(1);
        let state = self.state_size_by(last.and_then(|last| events.get(last)));
        throw(read_room::for_lines(wanted, state))?;
        let slice = throw(self.conversation().lines_slice(range))?;
        let value = cache::sharing(|| {
            let mut out = Outgoing::try_with_capacity(0)?;
            super::data::pack_lines(&slice.lines, &mut out)?;
            Ok(make_slice(
                &out.numbers,
                &out.values,
                List::Lines as u32,
                length(slice.lines.len()),
                slice.total as f64,
                slice.start as f64,
            ))
        });
        throw(value)
    }

    /// How many rows each list has: `{ cards, requests, lines }` (`views().chat`,
    /// `views().trajectory.requests`, `lines()`).
    #[wasm_bindgen(js_name = viewCounts, unchecked_return_type = "ViewCounts")]
    pub fn view_counts(&self) -> JsValue {
        let counts = self.conversation().view_counts();
        let object = js_sys::Object::new();
        for (name, count) in [
            ("cards", counts.cards),
            ("requests", counts.requests),
            ("lines", counts.lines),
        ] {
            // Setting members of a fresh plain object cannot fail.
            let _ = js_sys::Reflect::set(&object, &name.into(), &(count as f64).into());
        }
        object.into()
    }

    /// Where the loaded event `seq` sits: `{ line, card, request }`, the index of its line, of
    /// the last card shown at or before it and of the request whose step holds it (`undefined`
    /// when there is none); `undefined` when no loaded event has that seq.
    #[wasm_bindgen(js_name = indexOfSeq, unchecked_return_type = "SeqIndex | undefined")]
    pub fn index_of_seq(&self, seq: f64) -> JsValue {
        let seq = crate::seq::safe_integer(seq);
        let Some(found) = seq.and_then(|seq| self.conversation().index_of_seq(seq)) else {
            return JsValue::UNDEFINED;
        };
        let object = js_sys::Object::new();
        let number = |index: Option<usize>| match index {
            Some(index) => JsValue::from_f64(index as f64),
            None => JsValue::UNDEFINED,
        };
        let _ = js_sys::Reflect::set(&object, &"line".into(), &number(Some(found.line)));
        let _ = js_sys::Reflect::set(&object, &"card".into(), &number(found.card));
        let _ = js_sys::Reflect::set(&object, &"request".into(), &number(found.request));
        object.into()
    }
}

#[wasm_bindgen(typescript_custom_section)]
const SLICE_RANGE: &'static str = r#"
/** An index range of a list: the rows from `start` to `end` (excluded), integers `0 <= start <= end`. */
export interface SliceRange {
  start: number;
  end: number;
}
"#;
