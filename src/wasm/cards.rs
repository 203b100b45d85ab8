//! Chat cards as JS objects, built in JS from numbers. A load reports a card for every prompt
//! and header of the window; made member by member through the serializer, each costs a dozen
//! calls across the boundary (a string for its key, its source and its title among them), more
//! than the rest of a prune-heavy load. Here every card crosses as eight numbers, its text as an
//! index into a table of shared values, and JS builds the objects (see `wasm::outgoing`).

use std::collections::HashMap;

use wasm_bindgen::JsValue;

use crate::error::Error;
use crate::views::chat::{CardKey, ChatCard, TitleKey};
use crate::views::splice::ListSplice;
use crate::views::{ConversationChange, Views};
use crate::wasm::cache;
use crate::wasm::kept_texts::KeptTexts;

use super::outgoing::{append_cards, length, make_change, make_views, source_slot, Outgoing};
use super::trajectory::{pack_trajectory, trajectory_slots};

/// How many numbers a card takes.
pub(super) const CARD_SLOTS: usize = 8;

/// Appends a card: eight numbers, its text by table index.
pub(super) fn pack_card(card: &ChatCard, out: &mut Outgoing) {
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

/// Converts a change report to the plain JS object the serializer would make (the same members
/// in the same order; absent turns and steps are `undefined`). Its texts are made anew: only
/// `views()` keeps strings, so a conversation that is never viewed keeps none.
pub(crate) fn change_to_js(change: &ConversationChange) -> JsValue {
    change_to_js_from(change, HashMap::new())
}

/// [`change_to_js`], whose texts are first looked up in `known` (JS strings by the address of
/// their text's `Rc`, held by the caller meanwhile: see `cache::sharing_from`).
pub(crate) fn change_to_js_from(
    change: &ConversationChange,
    known: HashMap<usize, JsValue>,
) -> JsValue {
    report_to_js(
        change,
        change.chat.added.len(),
        change.chat.added.iter(),
        known,
    )
}

/// [`change_to_js`] of the report of a load into a window without cards, whose `chat.added`
/// is left empty: every card of the window is added, and `cards` hands them out in chat order
/// (`count` of them), packed without a list of their copies.
pub(crate) fn load_change_to_js<'a>(
    change: &ConversationChange,
    count: usize,
    cards: impl Iterator<Item = &'a ChatCard>,
) -> JsValue {
    debug_assert!(change.chat.added.is_empty(), "the added cards are listed");
    report_to_js(change, count, cards, HashMap::new())
}

/// How many added cards of a report cross to JS at a time: the numbers of all the cards of a
/// large load at once (eight per card) would be a block of tens of megabytes at the top of a
/// memory that never shrinks; a chunk's fits in the holes a load leaves.
const CARDS_PER_CHUNK: usize = 4096;

/// The report with `added` (about `count` cards) as its added cards.
fn report_to_js<'a>(
    change: &ConversationChange,
    count: usize,
    added: impl Iterator<Item = &'a ChatCard>,
    known: HashMap<usize, JsValue>,
) -> JsValue {
    let chat = &change.chat;
    let mut out = Outgoing::with_capacity(
        count
            .min(CARDS_PER_CHUNK)
            .max(chat.changed.len())
            .saturating_mul(CARD_SLOTS)
            .saturating_add(chat.removed.len().saturating_mul(2))
            .saturating_add(12),
    );
    let added_cards = js_sys::Array::new();
    let mut added_count = 0usize;
    cache::sharing_from(known, || {
        let mut in_chunk = 0u32;
        for card in added {
            pack_card(card, &mut out);
            added_count = added_count.saturating_add(1);
            in_chunk = in_chunk.saturating_add(1);
            if in_chunk as usize == CARDS_PER_CHUNK {
                append_cards(&out.numbers, &out.values, in_chunk, &added_cards);
                out.numbers.clear();
                in_chunk = 0;
            }
        }
        if in_chunk > 0 {
            append_cards(&out.numbers, &out.values, in_chunk, &added_cards);
            out.numbers.clear();
        }
        for card in &chat.changed {
            pack_card(card, &mut out);
        }
    });
    debug_assert_eq!(added_count, count, "the count of added cards is known");
    for key in &chat.removed {
        pack_key(key, &mut out);
    }
    let splices = &change.splices;
    for splice in [&splices.cards, &splices.requests, &splices.lines] {
        out.extend(splice_numbers(splice));
    }
    let report = make_change(
        &out.numbers,
        &out.values,
        &added_cards,
        length(chat.changed.len()),
        length(chat.removed.len()),
        change.trajectory_changed,
    );
    if let Some(torn) = change.torn_tail {
        let tail = js_sys::Object::new();
        let number = |value: usize| JsValue::from_f64(value as f64);
        // Setting members of fresh plain objects cannot fail.
        let _ = js_sys::Reflect::set(&tail, &"line".into(), &number(torn.line));
        let _ = js_sys::Reflect::set(&tail, &"bytes".into(), &number(torn.bytes));
        let _ = js_sys::Reflect::set(&report, &"tornTail".into(), &tail);
    }
    report
}

/// Converts views to the plain JS object the serializer would make: the chat cards as in
/// [`change_to_js`], then the trajectory (`wasm::trajectory`), sharing the prompt texts (and
/// keeping their strings in `kept` for the next call).
pub(crate) fn views_to_js(views: &Views, kept: &mut KeptTexts) -> Result<JsValue, Error> {
    cache::sharing(|| {
        let trajectory = &views.trajectory;
        let slots = views
            .chat
            .len()
            .saturating_mul(CARD_SLOTS)
            .saturating_add(trajectory_slots(trajectory));
        let mut out = Outgoing::try_keeping_texts(slots, kept)?;
        for card in &views.chat {
            pack_card(card, &mut out);
        }
        pack_trajectory(trajectory, &mut out);
        debug_assert_eq!(out.numbers.len(), slots, "trajectory_slots miscounts");
        Ok(make_views(
            &out.numbers,
            &out.values,
            length(views.chat.len()),
            length(trajectory.headers.len()),
            length(trajectory.requests.len()),
            length(trajectory.system_prompts.len()),
        ))
    })
}

/// A splice as the four numbers JS reads (`start`, `removed`, `added`, `total`).
fn splice_numbers(splice: &ListSplice) -> [f64; 4] {
    [
        splice.start as f64,
        splice.removed as f64,
        splice.added as f64,
        splice.total as f64,
    ]
}
