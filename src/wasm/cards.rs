//! Chat cards as JS objects, built in JS from numbers. A load reports a card for every prompt
//! and header of the window; made member by member through the serializer, each costs a dozen
//! calls across the boundary (a string for its key, its source and its title among them), more
//! than the rest of a prune-heavy load. Here every card crosses as eight numbers, its text as an
//! index into an array of texts made once per prompt, and JS builds the objects.

use std::rc::Rc;

use wasm_bindgen::prelude::*;

use crate::chat::{CardKey, CardSource, ChatCard, TitleKey};
use crate::shared::cache;
use crate::views::{ConversationChange, Views};

use super::convert::to_js_sharing;

#[wasm_bindgen(inline_js = r#"
const SOURCES = ["request", "system"];
const TITLES = ["message.systemPrompt", "message.systemPromptUpdate"];
const CARD_SLOTS = 8;

// `count` cards from `numbers` (CARD_SLOTS each, from slot `at`); -1 stands for none.
function cards(numbers, at, count, texts) {
  const made = new Array(count);
  for (let i = 0; i < count; i++, at += CARD_SLOTS) {
    const source = SOURCES[numbers[at]], seq = numbers[at + 1];
    const turn = numbers[at + 6], step = numbers[at + 7];
    made[i] = {
      key: source + ":" + seq,
      source,
      seq,
      anchorSeq: numbers[at + 2],
      text: texts[numbers[at + 3]],
      update: numbers[at + 4] === 1,
      titleKey: TITLES[numbers[at + 5]],
      turn: turn < 0 ? undefined : turn,
      step: step < 0 ? undefined : step,
    };
  }
  return made;
}

// A ConversationChange: `added` then `changed` cards, then `removed` keys as (source, seq)
// pairs.
export function promptfoldChange(numbers, texts, added, changed, removed, trajectoryChanged) {
  const keys = new Array(removed);
  for (let i = 0, at = (added + changed) * CARD_SLOTS; i < removed; i++, at += 2) {
    keys[i] = SOURCES[numbers[at]] + ":" + numbers[at + 1];
  }
  return {
    chat: {
      added: cards(numbers, 0, added, texts),
      changed: cards(numbers, added * CARD_SLOTS, changed, texts),
      removed: keys,
    },
    trajectoryChanged,
  };
}

// Views: `count` chat cards, and the trajectory as made by the serializer.
export function promptfoldViews(numbers, texts, count, trajectory) {
  return { chat: cards(numbers, 0, count, texts), trajectory };
}
"#)]
extern "C" {
    #[wasm_bindgen(js_name = promptfoldChange)]
    fn make_change(
        numbers: &[f64],
        texts: &js_sys::Array,
        added: u32,
        changed: u32,
        removed: u32,
        trajectory_changed: bool,
    ) -> JsValue;

    #[wasm_bindgen(js_name = promptfoldViews)]
    fn make_views(
        numbers: &[f64],
        texts: &js_sys::Array,
        count: u32,
        trajectory: JsValue,
    ) -> JsValue;
}

/// The numbers and texts cards cross as. Seqs, turns and steps read by `parse` are safe
/// integers, so they cross exactly as `f64`.
struct PackedCards {
    numbers: Vec<f64>,
    texts: js_sys::Array,
    /// The text last added to `texts` (its address), whose index is `texts.length - 1`.
    last_text: Option<*const u8>,
}

impl PackedCards {
    fn new() -> PackedCards {
        PackedCards {
            numbers: Vec::new(),
            texts: js_sys::Array::new(),
            last_text: None,
        }
    }

    fn card(&mut self, card: &ChatCard) {
        let text = self.text(&card.text);
        let optional = |value: Option<u64>| value.map_or(-1.0, |value| value as f64);
        self.numbers.extend([
            source_slot(card.source),
            card.seq as f64,
            card.anchor_seq as f64,
            text,
            f64::from(u8::from(card.update)),
            match card.title_key {
                TitleKey::SystemPrompt => 0.0,
                TitleKey::SystemPromptUpdate => 1.0,
            },
            optional(card.turn),
            optional(card.step),
        ]);
    }

    fn key(&mut self, key: &CardKey) {
        self.numbers
            .extend([source_slot(key.source), key.seq as f64]);
    }

    /// The index of `text` in `texts`. A text crosses once per run of cards that show it, and
    /// is decoded once per conversion ([`cache`] keeps the JS string by the text's address).
    fn text(&mut self, text: &Rc<str>) -> f64 {
        let address = Rc::as_ptr(text).cast::<u8>();
        if self.last_text != Some(address) {
            let js = cache::lookup(address, || Some(JsValue::from_str(text)))
                .unwrap_or_else(|| JsValue::from_str(text));
            self.texts.push(&js);
            self.last_text = Some(address);
        }
        f64::from(self.texts.length().saturating_sub(1))
    }
}

fn source_slot(source: CardSource) -> f64 {
    match source {
        CardSource::Request => 0.0,
        CardSource::System => 1.0,
    }
}

/// Converts a change report to the plain JS object the serializer would make (the same members
/// in the same order; absent turns and steps are `undefined`).
pub(crate) fn change_to_js(change: &ConversationChange) -> JsValue {
    let chat = &change.chat;
    let mut packed = PackedCards::new();
    let card_slots = chat.added.len().saturating_add(chat.changed.len());
    packed.numbers.reserve(
        card_slots
            .saturating_mul(8)
            .saturating_add(chat.removed.len().saturating_mul(2)),
    );
    cache::sharing(|| {
        for card in chat.added.iter().chain(&chat.changed) {
            packed.card(card);
        }
    });
    for key in &chat.removed {
        packed.key(key);
    }
    make_change(
        &packed.numbers,
        &packed.texts,
        count(chat.added.len()),
        count(chat.changed.len()),
        count(chat.removed.len()),
        change.trajectory_changed,
    )
}

/// Converts views to the plain JS object the serializer would make: the chat cards built as in
/// [`change_to_js`], the trajectory by the serializer, sharing the prompt texts with the cards.
pub(crate) fn views_to_js(views: &Views) -> Result<JsValue, JsValue> {
    cache::sharing(|| {
        let mut packed = PackedCards::new();
        packed.numbers.reserve(views.chat.len().saturating_mul(8));
        for card in &views.chat {
            packed.card(card);
        }
        let trajectory = to_js_sharing(&views.trajectory)?;
        Ok(make_views(
            &packed.numbers,
            &packed.texts,
            count(views.chat.len()),
            trajectory,
        ))
    })
}

/// A length as the JS side takes it (lengths in wasm32 fit in `u32`).
fn count(items: usize) -> u32 {
    u32::try_from(items).unwrap_or(u32::MAX)
}
