//! Collapsed system-prompt cards of the chat transcript (BEHAVIOUR.md section 5), built
//! incrementally as events arrive in seq order.

use std::rc::Rc;

use serde::Serialize;

use crate::error::Error;
use crate::fold::request::{ChangeKind, RequestPromptInspection};
use crate::input::event::{EventKind, HeaderReason, Seq};
use crate::pair_hash::StepMap;
use crate::room::try_room;
use crate::views::location::Location;
use crate::views::observe::Census;
use crate::views::observe::Observed;
use crate::views::splice::{splice_between, ListSplice};

/// Which kind of event owns a card. Ordered as cards with the same anchor are (BEHAVIOUR.md
/// section 8, D3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[cfg_attr(feature = "wasm", serde(rename_all = "lowercase"))]
#[non_exhaustive]
pub enum CardSource {
    /// A `request/header` event.
    Request,
    /// A `system/message` event.
    System,
}

impl CardSource {
    /// The prefix of keys of this source (`"request"` or `"system"`).
    pub fn name(self) -> &'static str {
        match self {
            CardSource::Request => "request",
            CardSource::System => "system",
        }
    }
}

impl Serialize for CardSource {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.name())
    }
}

/// A card's or header fact's key, `source:seq` (`"system:23"`): stable for its lifetime.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct CardKey {
    /// The kind of the owning event.
    pub source: CardSource,
    /// Seq of the owning event.
    pub seq: Seq,
}

impl std::fmt::Display for CardKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}", self.source.name(), self.seq)
    }
}

impl std::str::FromStr for CardKey {
    type Err = crate::error::Error;

    /// Reads the text form JS cards carry (`"system:23"`, `"request:5"`): a source, a colon and
    /// the seq in canonical decimal (digits, no leading zero).
    fn from_str(key: &str) -> Result<CardKey, Self::Err> {
        let invalid = || crate::error::Error::InvalidArgument {
            argument: "key".to_owned(),
            message: "expected `system:<seq>` or `request:<seq>`".to_owned(),
        };
        let (source, seq) = key.split_once(':').ok_or_else(invalid)?;
        let source = match source {
            "system" => CardSource::System,
            "request" => CardSource::Request,
            _ => return Err(invalid()),
        };
        if seq.is_empty() || seq.len() > 16 || (seq.len() > 1 && seq.starts_with('0')) {
            return Err(invalid());
        }
        let mut value: Seq = 0;
        for byte in seq.bytes() {
            let digit = byte
                .checked_sub(b'0')
                .filter(|digit| *digit <= 9)
                .ok_or_else(invalid)?;
            value = value
                .checked_mul(10)
                .and_then(|value| value.checked_add(Seq::from(digit)))
                .ok_or_else(invalid)?;
        }
        Ok(CardKey { source, seq: value })
    }
}

impl Serialize for CardKey {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

/// The i18n key of a card's title.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[non_exhaustive]
pub enum TitleKey {
    /// `"message.systemPrompt"`: the prompt as sent.
    #[cfg_attr(feature = "wasm", serde(rename = "message.systemPrompt"))]
    SystemPrompt,
    /// `"message.systemPromptUpdate"`: an in-history update of the prompt.
    #[cfg_attr(feature = "wasm", serde(rename = "message.systemPromptUpdate"))]
    SystemPromptUpdate,
}

impl TitleKey {
    /// The i18n key as text.
    pub fn name(self) -> &'static str {
        match self {
            TitleKey::SystemPrompt => "message.systemPrompt",
            TitleKey::SystemPromptUpdate => "message.systemPromptUpdate",
        }
    }
}

// Written as plain strings: serializers cache enum variant names in a thread-local map, which
// the wasm module would carry for three enums.
impl Serialize for TitleKey {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.name())
    }
}

/// A collapsed system-prompt card in the chat transcript.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[non_exhaustive]
pub struct ChatCard {
    /// `source:seq`, stable for the card's lifetime.
    #[cfg_attr(feature = "wasm", tsify(type = "string"))]
    pub key: CardKey,
    /// The kind of the owning event.
    pub source: CardSource,
    /// Seq of the owning event.
    pub seq: Seq,
    /// The seq the card is shown at (a turn or step start, or its own seq).
    pub anchor_seq: Seq,
    /// The prompt text.
    #[cfg_attr(feature = "wasm", tsify(type = "string"))]
    pub text: Rc<str>,
    /// Whether the card shows an in-history update.
    pub update: bool,
    /// The title's i18n key.
    pub title_key: TitleKey,
    /// Turn of the owning event, none at session level.
    #[cfg_attr(feature = "wasm", tsify(optional))]
    pub turn: Option<u64>,
    /// Step of the owning event, none outside a step.
    #[cfg_attr(feature = "wasm", tsify(optional))]
    pub step: Option<u64>,
}

impl PartialEq for ChatCard {
    fn eq(&self, other: &ChatCard) -> bool {
        let ChatCard {
            key,
            source,
            seq,
            anchor_seq,
            text,
            update,
            title_key,
            turn,
            step,
        } = self;
        (key, source, seq, anchor_seq, update, title_key, turn, step)
            == (
                &other.key,
                &other.source,
                &other.seq,
                &other.anchor_seq,
                &other.update,
                &other.title_key,
                &other.turn,
                &other.step,
            )
            && crate::input::shared::same(text, &other.text)
    }
}

impl ChatCard {
    /// The position of the card in the chat: anchor, then request before system, then seq.
    pub fn order(&self) -> (Seq, CardSource, Seq) {
        (self.anchor_seq, self.source, self.seq)
    }
}

/// How a card finds its anchor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum AnchorRule {
    /// At the card's own seq.
    Own,
    /// At the start of step `step` of turn `turn` (for step 1: the turn start first).
    Step(u64, u64),
}

/// A card, chained to the card before it in its step.
#[derive(Clone, Debug)]
struct Placed {
    card: ChatCard,
    /// The card placed before it by the same step rule: the cards of a step form a chain.
    previous_in_step: Option<usize>,
}

/// What the cards know of one step of a turn: its loaded start, and the last card its rule
/// anchors in it. Kept as three numbers and a byte of which are set (24 bytes in wasm32, where
/// three options took 40): the chat keeps one per turn or step start.
#[derive(Clone, Copy, Debug, Default)]
struct StepSlot {
    start: Seq,
    /// For step 1: the loaded start of its turn, which anchors the step's cards first.
    turn_start: Seq,
    last_card: usize,
    /// Which of the three are set: [`HAS_START`], [`HAS_TURN_START`], [`HAS_LAST_CARD`].
    set: u8,
}

/// See [`StepSlot::set`].
const HAS_START: u8 = 1;
/// See [`StepSlot::set`].
const HAS_TURN_START: u8 = 2;
/// See [`StepSlot::set`].
const HAS_LAST_CARD: u8 = 4;

impl StepSlot {
    /// Where the cards of the step's rule are anchored; none for at their own seqs.
    fn anchor(&self) -> Option<Seq> {
        self.turn_start().or(self.start())
    }

    fn get<T: Copy>(&self, flag: u8, value: T) -> Option<T> {
        (self.set & flag != 0).then_some(value)
    }

    fn put(&mut self, flag: u8, set: bool) {
        self.set = if set {
            self.set | flag
        } else {
            self.set & !flag
        };
    }

    fn start(&self) -> Option<Seq> {
        self.get(HAS_START, self.start)
    }

    fn turn_start(&self) -> Option<Seq> {
        self.get(HAS_TURN_START, self.turn_start)
    }

    fn last_card(&self) -> Option<usize> {
        self.get(HAS_LAST_CARD, self.last_card)
    }

    fn set_start(&mut self, start: Option<Seq>) {
        self.put(HAS_START, start.is_some());
        self.start = start.unwrap_or_default();
    }

    fn set_turn_start(&mut self, start: Option<Seq>) {
        self.put(HAS_TURN_START, start.is_some());
        self.turn_start = start.unwrap_or_default();
    }

    /// Sets the last card and returns the one before.
    fn replace_last_card(&mut self, card: Option<usize>) -> Option<usize> {
        let before = self.last_card();
        self.put(HAS_LAST_CARD, card.is_some());
        self.last_card = card.unwrap_or_default();
        before
    }
}

/// The slots of the steps a walk met, in the order each step was first met. Steps come mostly
/// in ascending order, and those are found through a list of keys in that order, appended to as
/// a walk goes on; a step met after a greater one is found through a map. A map for all of them
/// (a table reserved for every step of the batch, written at random places) made a native load
/// of the prune-heavy 8,000 log wait about a fifth of its time for that table's memory.
#[derive(Clone, Debug, Default)]
struct Steps {
    slots: Vec<StepSlot>,
    /// Steps met in ascending order, with the index of their slot.
    ascending: Vec<((u64, u64), usize)>,
    /// The other steps, with the index of their slot.
    others: StepMap<usize>,
    /// The step looked up last, and its index: a step's start and its cards come together.
    last: Option<((u64, u64), usize)>,
}

impl Steps {
    /// What the cards know of step `key`, made empty when the step is new; `None` only if an
    /// index were lost, which cannot happen (the caller then does nothing).
    #[inline(never)]
    fn slot(&mut self, key: (u64, u64)) -> Option<&mut StepSlot> {
        let at = match self.last {
            Some((last, at)) if last == key => at,
            _ => {
                let at = self.index(key);
                self.last = Some((key, at));
                at
            }
        };
        self.slots.get_mut(at)
    }

    /// The index of the slot of step `key`, made when the step is new.
    fn index(&mut self, key: (u64, u64)) -> usize {
        let next = self.slots.len();
        let at = match self.ascending.last() {
            Some((greatest, _)) if key <= *greatest => {
                match self.ascending.binary_search_by_key(&key, |(key, _)| *key) {
                    Ok(position) => {
                        debug_assert!(
                            position < self.ascending.len(),
                            "a found key is in the list"
                        );
                        self.ascending.get(position).map_or(next, |(_, at)| *at)
                    }
                    Err(_) => *self.others.entry(key).or_insert(next),
                }
            }
            _ => {
                self.ascending.push((key, next));
                next
            }
        };
        if at == next {
            self.slots.push(StepSlot::default());
        }
        at
    }

    /// Every step met, with its slot.
    fn iter(&self) -> impl Iterator<Item = ((u64, u64), &StepSlot)> + '_ {
        let ascending = self.ascending.iter().map(|(key, at)| (*key, *at));
        let others = self.others.iter().map(|(key, at)| (*key, *at));
        ascending
            .chain(others)
            .filter_map(|(key, at)| Some((key, self.slots.get(at)?)))
    }

    /// Makes room for `additional` more steps.
    fn reserve(&mut self, additional: usize) -> Result<(), Error> {
        try_room(&mut self.slots, additional)?;
        try_room(&mut self.ascending, additional)
    }
}

/// The cards of a window, built event by event.
#[derive(Clone, Debug, Default)]
pub(crate) struct ChatBuilder {
    /// Cards in seq order.
    cards: Vec<Placed>,
    steps: Steps,
    last_relevant_is_system_append: bool,
    previous_header: Option<Location>,
    /// Indices into `cards` in chat order, as of the last [`ChatBuilder::settle`]: a slice of
    /// the chat is a slice of this list.
    order: Vec<usize>,
    /// Cards added or re-anchored since then (indices into `cards`).
    pending: Vec<usize>,
}

/// What one event did to the cards: a card it added, and earlier cards whose anchor moved.
#[derive(Clone, Debug, Default)]
pub(crate) struct CardDelta {
    pub added: Option<usize>,
    pub moved: Vec<usize>,
}

impl ChatBuilder {
    /// Adds what the cards keep on the heap to `profile`.
    #[cfg(feature = "testkit")]
    pub fn heap_profile(&self, profile: &mut crate::heap::HeapProfile) {
        profile.list("chat cards", &self.cards);
        profile.list("chat steps", &self.steps.slots);
        profile.list("chat steps", &self.steps.ascending);
        let entry = std::mem::size_of::<((u64, u64), usize)>().saturating_add(1);
        let others = self.steps.others.capacity().saturating_mul(entry);
        profile.add("chat steps", self.steps.others.len(), others);
    }

    /// Takes the next event of the window and returns what it changed.
    pub fn observe(&mut self, seen: &Observed) -> CardDelta {
        let mut delta = CardDelta::default();
        if let Some(inspection) = seen.inspection {
            delta.added = self.request_card(seen, inspection);
            self.previous_header = Some(seen.location);
        }
        if seen.event.is_relevant() {
            delta.added = delta.added.or_else(|| self.system_card(seen));
            self.last_relevant_is_system_append = seen.event.is_system_append();
        }
        delta.moved = self.register_start(seen);
        delta
    }

    fn system_card(&mut self, seen: &Observed) -> Option<usize> {
        let state = seen.after?;
        let node = state.introduced()?;
        if state.is_uncertain() || !seen.event.is_system_append() || node.text.is_empty() {
            return None;
        }
        let (rule, title_key) = if node.update {
            (AnchorRule::Own, TitleKey::SystemPromptUpdate)
        } else {
            (step_rule(seen.location), TitleKey::SystemPrompt)
        };
        let card = ChatCard {
            key: CardKey {
                source: CardSource::System,
                seq: seen.event.seq,
            },
            source: CardSource::System,
            seq: seen.event.seq,
            anchor_seq: seen.event.seq,
            text: Rc::clone(&node.text),
            update: node.update,
            title_key,
            turn: seen.location.turn,
            step: seen.location.step,
        };
        Some(self.push(card, rule))
    }

    fn request_card(
        &mut self,
        seen: &Observed,
        inspection: &RequestPromptInspection,
    ) -> Option<usize> {
        let header = seen.event.header()?;
        if seen.before.is_some_and(|state| state.is_uncertain())
            || inspection.prompt.system.is_empty()
            || self.shown_by_update(seen)
        {
            return None;
        }
        let system_change = inspection.change.as_ref().is_some_and(|change| {
            matches!(change.kind, ChangeKind::System | ChangeKind::SystemAndTools)
        });
        let shows = self.previous_header.is_none()
            || header.reason != HeaderReason::Change
            || header.starts_series
            || system_change;
        if !shows {
            return None;
        }
        let rule = match self.previous_header {
            None if header.reason != HeaderReason::Initial => AnchorRule::Own,
            Some(previous) if previous == seen.location => AnchorRule::Own,
            _ => step_rule(seen.location),
        };
        let card = ChatCard {
            key: CardKey {
                source: CardSource::Request,
                seq: seen.event.seq,
            },
            source: CardSource::Request,
            seq: seen.event.seq,
            anchor_seq: seen.event.seq,
            text: Rc::clone(&inspection.prompt.system),
            update: false,
            title_key: TitleKey::SystemPrompt,
            turn: seen.location.turn,
            step: seen.location.step,
        };
        Some(self.push(card, rule))
    }

    /// "A header in the same turn and step does not repeat the prompt card."
    fn shown_by_update(&self, seen: &Observed) -> bool {
        let Some(effective) = seen.before.and_then(|state| state.effective()) else {
            return false;
        };
        self.last_relevant_is_system_append
            && (effective.update || self.previous_header.is_none())
            && seen.location.turn == Some(effective.turn)
            && seen.location.step == Some(effective.step)
    }

    fn push(&mut self, mut card: ChatCard, rule: AnchorRule) -> usize {
        let index = self.cards.len();
        let mut previous_in_step = None;
        if let AnchorRule::Step(turn, step) = rule {
            if let Some(slot) = self.steps.slot((turn, step)) {
                previous_in_step = slot.replace_last_card(Some(index));
                card.anchor_seq = slot.anchor().unwrap_or(card.seq);
            }
        }
        self.cards.push(Placed {
            card,
            previous_in_step,
        });
        self.pending.push(index);
        index
    }

    /// Records a turn or step start and re-anchors the cards it moves; returns those moved.
    fn register_start(&mut self, seen: &Observed) -> Vec<usize> {
        // A turn start anchors the cards of its step 1 (before any step start); a step start
        // those of its step (step 1 only when its turn has no start).
        let (key, turn_start) = match (&seen.event.kind, seen.location.turn) {
            (EventKind::TurnStart, Some(turn)) => ((turn, 1), true),
            (EventKind::StepStart, _) => match seen.location.step_key() {
                Some(key) => (key, false),
                None => return Vec::new(),
            },
            _ => return Vec::new(),
        };
        let Some(slot) = self.steps.slot(key) else {
            debug_assert!(false, "a step's slot is made when it is looked up");
            return Vec::new();
        };
        let start = Some(seen.event.seq);
        match turn_start {
            true if slot.turn_start().is_none() => slot.set_turn_start(start),
            false if slot.start().is_none() => slot.set_start(start),
            _ => return Vec::new(),
        }
        let moved = reanchor(&mut self.cards, slot);
        self.pending.extend_from_slice(&moved);
        moved
    }

    /// Joins on what `old`, a walk of the same events from a later window start, did after the
    /// last event this walk took, both folds being uncertain from there on: `old` added no card
    /// after it, only registered turn and step starts (which may re-anchor this walk's cards).
    /// `old` keeps its cards.
    pub fn splice(&mut self, old: &mut ChatBuilder) {
        // This walk's steps go into the old walk's, the larger.
        std::mem::swap(&mut self.steps, &mut old.steps);
        let steps = &mut self.steps;
        // Every old card precedes the join: this walk's cards replace them in their chains.
        for placed in &old.cards {
            if let Some(slot) = placed
                .card
                .turn
                .zip(placed.card.step)
                .and_then(|key| steps.slot(key))
            {
                slot.replace_last_card(None);
            }
        }
        // A first start wins, and this walk saw every event up to the join.
        for (key, walked) in old.steps.iter() {
            if let Some(merged) = steps.slot(key) {
                merged.set_start(walked.start().or(merged.start()));
                merged.set_turn_start(walked.turn_start().or(merged.turn_start()));
                merged.replace_last_card(walked.last_card());
                let moved = reanchor(&mut self.cards, merged);
                self.pending.extend(moved);
            }
        }
        self.previous_header = old.previous_header;
        self.last_relevant_is_system_append = old.last_relevant_is_system_append;
    }

    /// Makes room for what a batch of events can add ([`Error::OutOfMemory`] when the memory
    /// cannot give it).
    pub fn reserve(&mut self, census: &Census) -> Result<(), Error> {
        let cards = census.headers.saturating_add(census.system_appends);
        try_room(&mut self.cards, cards)?;
        try_room(&mut self.order, cards)?;
        self.steps
            .reserve(census.step_starts.saturating_add(census.turn_starts))
    }

    /// Frees the spare capacity of the card list (after a whole window was walked).
    pub fn shrink_to_fit(&mut self) {
        let len = self.cards.len();
        self.cards
            .shrink_to(len.saturating_add(crate::room::live_room(len)));
        self.order
            .shrink_to(len.saturating_add(crate::room::live_room(len)));
        self.pending.shrink_to_fit();
    }

    /// Puts the cards added or re-anchored since the last call in their chat order, and returns
    /// how that changed the chat: only the cards from the first one that moved on are touched
    /// (a live append's cards land at the end, at the cost of the new cards).
    pub fn settle(&mut self) -> ListSplice {
        let before = self.order.len();
        let mut pending = std::mem::take(&mut self.pending);
        if pending.is_empty() {
            return ListSplice::unchanged(before);
        }
        // Sorted checks first: the sort's keys would take 32 bytes a card for the whole
        // window after a load, and wasm memory never shrinks.
        if !pending.is_sorted() {
            crate::sort::sort_by_key(&mut pending, |index| (position_key(*index), 0, 0));
        }
        pending.dedup();
        // Settled cards that moved leave their place first; new cards have higher indices.
        let moved = pending.partition_point(|index| *index < before);
        let mut removed: Option<(usize, usize)> = None;
        if let Some(moved) = pending.get(..moved).filter(|moved| !moved.is_empty()) {
            let mut position = 0usize;
            self.order.retain(|index| {
                let keep = moved.binary_search(index).is_err();
                if !keep {
                    removed = Some((removed.map_or(position, |(first, _)| first), position));
                }
                position = position.saturating_add(1);
                keep
            });
        }
        let cards = &self.cards;
        let key = |index: &usize| match cards.get(*index) {
            Some(placed) => chat_key(&placed.card),
            None => {
                debug_assert!(false, "the chat order names cards of the list");
                (i64::MAX, i64::MAX, i64::MAX)
            }
        };
        if !pending.is_sorted_by_key(key) {
            crate::sort::sort_by_key(&mut pending, key);
        }
        let first_key = pending.first().map(key);
        let first_inserted = self
            .order
            .partition_point(|index| Some(key(index)) < first_key);
        let tail = self.order.split_off(first_inserted);
        self.order.reserve(tail.len().saturating_add(pending.len()));
        let mut tail = tail.into_iter().peekable();
        let mut last_inserted = first_inserted;
        for index in pending {
            let at = key(&index);
            while let Some(kept) = tail.next_if(|kept| key(kept) < at) {
                self.order.push(kept);
            }
            last_inserted = self.order.len();
            self.order.push(index);
        }
        self.order.extend(tail);
        let after = self.order.len();
        let mut suffix = after.saturating_sub(last_inserted).saturating_sub(1);
        let mut start = first_inserted;
        if let Some((first, last)) = removed {
            start = start.min(first);
            suffix = suffix.min(before.saturating_sub(last).saturating_sub(1));
        }
        ListSplice {
            start,
            removed: before.saturating_sub(start).saturating_sub(suffix),
            added: after.saturating_sub(start).saturating_sub(suffix),
            total: after,
        }
    }

    /// How the chat changed from `old` to this one (both settled): every card between their
    /// common first and last cards.
    pub fn splice_from(&self, old: &ChatBuilder) -> ListSplice {
        splice_between(
            old.order.len(),
            self.order.len(),
            |index| old.card_in_chat(index),
            |index| self.card_in_chat(index),
        )
    }

    /// How many cards there are (settled).
    pub fn len(&self) -> usize {
        debug_assert!(self.pending.is_empty(), "the chat order is settled");
        self.order.len()
    }

    /// The card at `index` in chat order.
    fn card_in_chat(&self, index: usize) -> Option<&ChatCard> {
        let at = self.order.get(index)?;
        self.card(*at)
    }

    /// Every card in chat order, by reference.
    #[cfg(any(feature = "wasm", test))]
    pub fn iter_in_chat(&self) -> impl Iterator<Item = &ChatCard> + '_ {
        debug_assert!(self.pending.is_empty(), "the chat order is settled");
        self.order.iter().filter_map(|index| self.card(*index))
    }

    /// The cards of `range` in chat order (clamped to the cards).
    pub fn slice(&self, range: std::ops::Range<usize>) -> Vec<ChatCard> {
        debug_assert!(self.pending.is_empty(), "the chat order is settled");
        self.order
            .get(range)
            .unwrap_or_default()
            .iter()
            .filter_map(|index| self.card(*index).cloned())
            .collect()
    }

    /// The index in chat order of the last card shown at or before `seq`.
    pub fn last_shown_by(&self, seq: Seq) -> Option<usize> {
        self.order
            .partition_point(|index| self.card(*index).is_some_and(|card| card.anchor_seq <= seq))
            .checked_sub(1)
    }

    /// The card at `index` (as returned in a [`CardDelta`]).
    pub fn card(&self, index: usize) -> Option<&ChatCard> {
        self.cards.get(index).map(|placed| &placed.card)
    }

    /// The card with `key`, when its event has one.
    pub fn card_by_key(&self, key: CardKey) -> Option<&ChatCard> {
        let at = self
            .cards
            .partition_point(|placed| placed.card.seq < key.seq);
        self.cards
            .get(at)
            .map(|placed| &placed.card)
            .filter(|card| card.key == key)
    }

    /// All cards in the order their events came (ascending seq, one card per event at most).
    pub fn cards_by_seq(&self) -> impl ExactSizeIterator<Item = &ChatCard> + '_ {
        self.cards.iter().map(|placed| &placed.card)
    }

    /// All cards in chat order.
    pub fn cards(&self) -> Vec<ChatCard> {
        let mut cards: Vec<ChatCard> = self
            .cards
            .iter()
            .map(|placed| placed.card.clone())
            .collect();
        sort_cards(&mut cards);
        cards
    }
}

/// Sorts cards into chat order (anchor, request before system, seq). Keys are unique, so there
/// is one order.
pub fn sort_cards(cards: &mut [ChatCard]) {
    crate::sort::sort_by_key(cards, chat_key);
}

/// A card's place in the chat as a sort key (see [`ChatCard::order`]).
fn chat_key(card: &ChatCard) -> crate::sort::Key {
    let (anchor, source, seq) = card.order();
    (anchor, i64::from(source == CardSource::System), seq)
}

/// A list index as a sort key's first integer.
fn position_key(index: usize) -> i64 {
    i64::try_from(index).unwrap_or(i64::MAX)
}

/// Anchors the cards of a step's rule (a chain from its last card) where `slot` says; returns
/// those that moved.
fn reanchor(cards: &mut [Placed], slot: &StepSlot) -> Vec<usize> {
    let anchor = slot.anchor();
    let mut moved = Vec::new();
    let mut next = slot.last_card();
    while let Some(index) = next {
        let Some(placed) = cards.get_mut(index) else {
            debug_assert!(false, "a step's chain of cards names cards of the list");
            break;
        };
        let anchor = anchor.unwrap_or(placed.card.seq);
        if placed.card.anchor_seq != anchor {
            placed.card.anchor_seq = anchor;
            moved.push(index);
        }
        next = placed.previous_in_step;
    }
    moved
}

/// The anchor rule of an initial card: by step when the event is in a step, else its own seq.
fn step_rule(location: Location) -> AnchorRule {
    match location.step_key() {
        Some((turn, step)) => AnchorRule::Step(turn, step),
        None => AnchorRule::Own,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn card_keys_read_back_their_text_form() {
        for key in [
            CardKey {
                source: CardSource::System,
                seq: 23,
            },
            CardKey {
                source: CardSource::Request,
                seq: 0,
            },
            CardKey {
                source: CardSource::Request,
                seq: (1 << 53) - 1,
            },
        ] {
            assert_eq!(key.to_string().parse::<CardKey>(), Ok(key));
        }
        for text in [
            "",
            "system",
            "system:",
            "system:01",
            "user:1",
            "system:1x",
            "system:-1",
            ":1",
            "system:99999999999999999",
        ] {
            assert!(
                matches!(
                    text.parse::<CardKey>(),
                    Err(crate::Error::InvalidArgument { .. })
                ),
                "{text:?}"
            );
        }
    }

    // Steps in ascending order, then steps met after greater ones (found through the map), then
    // every one again: each key keeps its own slot, and iter gives every key once.
    #[test]
    fn steps_keep_one_slot_per_key_in_any_order() {
        let mut steps = Steps::default();
        let keys = [
            (1, 1),
            (1, 2),
            (2, 1),
            (1, 3),
            (0, 9),
            (2, 1),
            (3, 1),
            (1, 3),
            (2, 0),
        ];
        for (seq, key) in (0..).zip(keys) {
            let slot = steps.slot(key).expect("a slot");
            slot.set_start(slot.start().or(Some(seq)));
        }
        let mut firsts: Vec<((u64, u64), Option<Seq>)> = steps
            .iter()
            .map(|(key, slot)| (key, slot.start()))
            .collect();
        firsts.sort();
        let expected = vec![
            ((0, 9), Some(4)),
            ((1, 1), Some(0)),
            ((1, 2), Some(1)),
            ((1, 3), Some(3)),
            ((2, 0), Some(8)),
            ((2, 1), Some(2)),
            ((3, 1), Some(6)),
        ];
        assert_eq!(firsts, expected);
        for (key, start) in expected {
            assert_eq!(steps.slot(key).and_then(|slot| slot.start()), start);
        }
    }
}
