//! Chat cards as JS objects, built in JS from numbers. A load reports a card for every prompt
//! and header of the window; made member by member through the serializer, each costs a dozen
//! calls across the boundary (a string for its key, its source and its title among them), more
//! than the rest of a prune-heavy load. Here every card crosses as eight numbers, its text as an
//! index into a table of shared values (see `wasm::outgoing`), and JS builds the objects.

use wasm_bindgen::prelude::*;

use crate::chat::{CardKey, CardSource, ChatCard, TitleKey};
use crate::shared::cache;
use crate::views::{ConversationChange, Views};

use super::outgoing::Outgoing;
use super::trajectory::trajectory_to_js;

/// How many numbers a card takes.
const CARD_SLOTS: usize = 8;

#[wasm_bindgen(inline_js = r#"
const SOURCES = ["request", "system"];
const TITLES = ["message.systemPrompt", "message.systemPromptUpdate"];
const CARD_SLOTS = 8;

// `count` cards from `numbers` (CARD_SLOTS each, from slot `at`); -1 stands for none.
function cards(numbers, at, count, values) {
  const made = new Array(count);
  for (let i = 0; i < count; i++, at += CARD_SLOTS) {
    const source = SOURCES[numbers[at]], seq = numbers[at + 1];
    const turn = numbers[at + 6], step = numbers[at + 7];
    made[i] = {
      key: source + ":" + seq,
      source,
      seq,
      anchorSeq: numbers[at + 2],
      text: values[numbers[at + 3]],
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
export function promptfoldChange(numbers, values, added, changed, removed, trajectoryChanged) {
  const keys = new Array(removed);
  for (let i = 0, at = (added + changed) * CARD_SLOTS; i < removed; i++, at += 2) {
    keys[i] = SOURCES[numbers[at]] + ":" + numbers[at + 1];
  }
  return {
    chat: {
      added: cards(numbers, 0, added, values),
      changed: cards(numbers, added * CARD_SLOTS, changed, values),
      removed: keys,
    },
    trajectoryChanged,
  };
}

// Views: `count` chat cards, and the trajectory (see wasm::trajectory).
export function promptfoldViews(numbers, values, count, trajectory) {
  return { chat: cards(numbers, 0, count, values), trajectory };
}
"#)]
extern "C" {
    #[wasm_bindgen(js_name = promptfoldChange)]
    fn make_change(
        numbers: &[f64],
        values: &js_sys::Array,
        added: u32,
        changed: u32,
        removed: u32,
        trajectory_changed: bool,
    ) -> JsValue;

    #[wasm_bindgen(js_name = promptfoldViews)]
    fn make_views(
        numbers: &[f64],
        values: &js_sys::Array,
        count: u32,
        trajectory: JsValue,
    ) -> JsValue;
}

/// Appends a card: eight numbers (see `cards` in the JS above), its text by table index.
fn pack_card(card: &ChatCard, out: &mut Outgoing) {
    let text = out.text(&card.text);
    out.extend([
        source_slot(card.source),
        Outgoing::integer(card.seq),
        Outgoing::integer(card.anchor_seq),
        text,
        f64::from(u8::from(card.update)),
        match card.title_key {
            TitleKey::SystemPrompt => 0.0,
            TitleKey::SystemPromptUpdate => 1.0,
        },
        Outgoing::optional(card.turn),
        Outgoing::optional(card.step),
    ]);
}

fn pack_key(key: &CardKey, out: &mut Outgoing) {
    out.extend([source_slot(key.source), Outgoing::integer(key.seq)]);
}

/// A card source as a number for the JS side.
pub(super) fn source_slot(source: CardSource) -> f64 {
    match source {
        CardSource::Request => 0.0,
        CardSource::System => 1.0,
    }
}

/// Converts a change report to the plain JS object the serializer would make (the same members
/// in the same order; absent turns and steps are `undefined`).
pub(crate) fn change_to_js(change: &ConversationChange) -> JsValue {
    let chat = &change.chat;
    let cards = chat.added.len().saturating_add(chat.changed.len());
    let mut out = Outgoing::with_capacity(
        cards
            .saturating_mul(CARD_SLOTS)
            .saturating_add(chat.removed.len().saturating_mul(2)),
    );
    cache::sharing(|| {
        for card in chat.added.iter().chain(&chat.changed) {
            pack_card(card, &mut out);
        }
    });
    for key in &chat.removed {
        pack_key(key, &mut out);
    }
    make_change(
        &out.numbers,
        &out.values,
        count(chat.added.len()),
        count(chat.changed.len()),
        count(chat.removed.len()),
        change.trajectory_changed,
    )
}

/// Converts views to the plain JS object the serializer would make: the chat cards built as in
/// [`change_to_js`], the trajectory by `wasm::trajectory`, sharing the prompt texts.
pub(crate) fn views_to_js(views: &Views) -> JsValue {
    cache::sharing(|| {
        let mut out = Outgoing::with_capacity(views.chat.len().saturating_mul(CARD_SLOTS));
        for card in &views.chat {
            pack_card(card, &mut out);
        }
        let trajectory = trajectory_to_js(&views.trajectory, &mut out);
        make_views(
            &out.numbers,
            &out.values,
            count(views.chat.len()),
            trajectory,
        )
    })
}

/// A length as the JS side takes it (lengths in wasm32 fit in `u32`).
pub(super) fn count(items: usize) -> u32 {
    u32::try_from(items).unwrap_or(u32::MAX)
}
