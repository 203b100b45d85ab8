//! What changed between two analyses of a window: the change report of a load or a prepend.

use std::cmp::Ordering;

use crate::views::chat::sort_cards;
use crate::views::splice::{ListSplice, ViewSplices};
use crate::views::{ChatChange, ConversationChange};
use crate::window::analysis::Analysis;

/// What changed from `old` to `new`: the chat cards, and whether the trajectory differs.
pub(crate) fn compare(old: &Analysis, new: &Analysis) -> ConversationChange {
    ConversationChange {
        chat: compare_chat(old, new),
        ..compare_besides_chat(old, new)
    }
}

/// [`compare`] without the chat cards (left empty).
pub(crate) fn compare_besides_chat(old: &Analysis, new: &Analysis) -> ConversationChange {
    ConversationChange {
        chat: ChatChange::default(),
        trajectory_changed: old.trajectory_differs(new),
        torn_tail: None,
        splices: ViewSplices {
            cards: new.cards_changed_from(old),
            requests: ListSplice::replaced(old.request_count(), new.request_count()),
            lines: ListSplice::default(),
        },
    }
}

/// The chat cards added, changed and removed from `old` to `new`: cards are matched by key,
/// walking both lists in seq order (one card per event at most).
pub(crate) fn compare_chat(old: &Analysis, new: &Analysis) -> ChatChange {
    let mut chat = ChatChange::default();
    let mut old_cards = old.cards_by_seq().peekable();
    let mut new_cards = new.cards_by_seq().peekable();
    // At least this many new cards have no old card with their key.
    chat.added
        .reserve(new_cards.len().saturating_sub(old_cards.len()));
    loop {
        let order = match (old_cards.peek(), new_cards.peek()) {
            (None, None) => break,
            (Some(_), None) => Ordering::Less,
            (None, Some(_)) => Ordering::Greater,
            (Some(a), Some(b)) => (a.seq, a.source).cmp(&(b.seq, b.source)),
        };
        match order {
            Ordering::Less => {
                if let Some(card) = old_cards.next() {
                    chat.removed.push(card.key);
                }
            }
            Ordering::Greater => {
                if let Some(card) = new_cards.next() {
                    chat.added.push(card.clone());
                }
            }
            Ordering::Equal => {
                if let (Some(a), Some(b)) = (old_cards.next(), new_cards.next()) {
                    if a != b {
                        chat.changed.push(b.clone());
                    }
                }
            }
        }
    }
    sort_cards(&mut chat.added);
    sort_cards(&mut chat.changed);
    chat
}
