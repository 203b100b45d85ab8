//! The system-prompt fold (BEHAVIOUR.md section 2) over immutable states that share one fold
//! record.
//!
//! A line of states (each folded from the one before) shares a [`FoldRecord`]: every node and
//! replacement entry the line ever held, with the versions it survived. Folding from the latest
//! state of a line updates the record in place (a few O(log n) index updates); folding from an
//! earlier state starts a new record from what that state holds. Either way every earlier state
//! stays valid and unchanged, and keeping one costs a few dozen bytes.

mod index;
mod record;
pub(crate) mod request;
pub(crate) mod surface;
mod versioned;

use std::cell::RefCell;
use std::rc::Rc;

use record::FoldRecord;
use serde::Serialize;
use versioned::Version;

use crate::input::event::{Seq, SessionEvent, SurfaceOp, Time};
use crate::input::json::stringify::serialize_js_number;

/// A system prompt as committed by one event (or synthesized by the fold).
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[non_exhaustive]
pub struct SystemPromptNode {
    /// Seq of the event that committed it (or of the event that made it effective).
    pub seq: Seq,
    /// Time of that event.
    #[serde(serialize_with = "serialize_js_number")]
    pub time: Time,
    /// `data.turn` of the system message (`0` when it has none, and for the removal marker).
    pub turn: u64,
    /// `data.step` of the system message (`0` when it has none, and for the removal marker).
    pub step: u64,
    /// The prompt text.
    #[cfg_attr(feature = "wasm", tsify(type = "string"))]
    pub text: Rc<str>,
    /// Whether it was appended after another nonempty prompt (an in-history update).
    pub update: bool,
}

impl PartialEq for SystemPromptNode {
    fn eq(&self, other: &SystemPromptNode) -> bool {
        let SystemPromptNode {
            seq,
            time,
            turn,
            step,
            text,
            update,
        } = self;
        (*seq, *time, *turn, *step, *update)
            == (other.seq, other.time, other.turn, other.step, other.update)
            && crate::input::shared::same(text, &other.text)
    }
}

/// A surviving system node and its place in surface order.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[non_exhaustive]
pub struct PositionedSystem {
    /// The surface position (the seq of the node it sits in place of, or its own seq).
    pub position: Seq,
    /// The node.
    pub node: SystemPromptNode,
}

/// A state of the fold as plain data: FORMAT.md's `SystemPromptState` (in JS, as
/// `SystemPromptStateData` with `undefined` for none, and from `toJSON()` with `null`).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[non_exhaustive]
pub struct SystemPromptStateData {
    /// The first seq the fold knows (the window start, or the first relevant event).
    pub first_seq: Seq,
    /// Whether a replacement reached events whose order is unknown (the prompt is withheld).
    pub uncertain: bool,
    /// Surviving system nodes in surface order, empty ones included.
    pub nodes: Vec<PositionedSystem>,
    /// Surviving replacements as `[replacementSeq, position]`, ascending by seq.
    pub replacements: Vec<(Seq, Seq)>,
    /// The prompt in force, none when there is none (or it is withheld).
    #[cfg_attr(feature = "wasm", tsify(optional))]
    pub effective: Option<SystemPromptNode>,
    /// The node this event introduced, none unless it was a system message.
    #[cfg_attr(feature = "wasm", tsify(optional))]
    pub introduced: Option<SystemPromptNode>,
}

/// An immutable state of the fold. Cloning it is O(1); states share structure, through `Rc`,
/// so a state is not `Send` (the crate docs, "Threads").
#[derive(Clone, Debug)]
pub struct SystemPromptState(Rc<Inner>);

#[derive(Clone, Debug)]
struct Inner {
    first_seq: Seq,
    /// The record this state is a version of; none for an uncertain state (which holds no
    /// nodes and no replacements).
    record: Option<Rc<RefCell<FoldRecord>>>,
    version: Version,
    effective: Option<Rc<SystemPromptNode>>,
    introduced: Option<Rc<SystemPromptNode>>,
}

impl Inner {
    fn uncertain(first_seq: Seq) -> Inner {
        Inner {
            first_seq,
            record: None,
            version: 0,
            effective: None,
            introduced: None,
        }
    }
}

impl SystemPromptState {
    /// Adds what `states` keep on the heap to `profile`: each state's own allocation, and each
    /// fold record they are versions of, once.
    #[cfg(feature = "testkit")]
    pub(crate) fn heap_profile(
        states: &[SystemPromptState],
        profile: &mut crate::heap::HeapProfile,
    ) {
        let mut records: Vec<*const RefCell<FoldRecord>> = Vec::new();
        for state in states {
            let inner = std::mem::size_of::<Inner>();
            profile.shared("states (own)", inner, Rc::strong_count(&state.0));
            if let Some(record) = &state.0.record {
                let pointer = Rc::as_ptr(record);
                if !records.contains(&pointer) {
                    records.push(pointer);
                    record.borrow().heap_profile(profile);
                }
            }
        }
    }
}

/// Folds one event into `previous` (BEHAVIOUR.md section 2) and returns the state after it.
///
/// An event that is not relevant (neither a `system/message` nor a replace) returns `previous`
/// unchanged, so the result is `None` only while no relevant event has been folded.
/// `window_start` is the first loaded seq of the window (D2): with no previous state it becomes
/// `firstSeq`; without it the first relevant event's seq does (the upstream rule).
pub fn inspect_system_prompt(
    previous: Option<&SystemPromptState>,
    event: &SessionEvent,
    window_start: Option<Seq>,
) -> Option<SystemPromptState> {
    if !event.is_relevant() {
        return previous.cloned();
    }
    if let Some(state) = previous.filter(|state| state.is_uncertain()) {
        return Some(state.clone());
    }
    let first_seq = previous
        .map(|state| state.0.first_seq)
        .or(window_start)
        .unwrap_or(event.seq);
    // Borrows of a record never outlive one call of this module and no call re-enters it, so
    // they cannot fail; were one to, the state would be withheld rather than wrong.
    let shared = match previous {
        Some(state) => {
            (state.0.record.as_ref()).and_then(|record| continue_line(record, state.0.version))
        }
        None => Some(Rc::new(RefCell::new(FoldRecord::default()))),
    };
    let effective = previous.and_then(|state| state.0.effective.clone());
    let folded = shared.as_ref().and_then(|shared| {
        let mut record = shared.try_borrow_mut().ok()?;
        fold_relevant(&mut record, first_seq, effective, event)
    });
    let state = match (folded, shared) {
        (Some((version, effective, introduced)), Some(shared)) => Inner {
            first_seq,
            record: Some(shared),
            version,
            effective,
            introduced,
        },
        _ => Inner::uncertain(first_seq),
    };
    Some(SystemPromptState(Rc::new(state)))
}

/// The record to fold the state at `version` of `record` into: that record itself when the
/// state is its latest version, else a new record starting from what the state holds.
fn continue_line(
    record: &Rc<RefCell<FoldRecord>>,
    version: Version,
) -> Option<Rc<RefCell<FoldRecord>>> {
    let current = record.try_borrow().ok()?;
    if current.version() == version {
        return Some(Rc::clone(record));
    }
    Some(Rc::new(RefCell::new(current.branch(version))))
}

/// A folded version with its effective and introduced nodes.
type Folded = (
    Version,
    Option<Rc<SystemPromptNode>>,
    Option<Rc<SystemPromptNode>>,
);

/// Folds a relevant event into the latest version of `record`: returns the new version with
/// its effective and introduced nodes, or `None` when the state becomes uncertain (then the
/// record is left as it was).
fn fold_relevant(
    record: &mut FoldRecord,
    first_seq: Seq,
    effective: Option<Rc<SystemPromptNode>>,
    event: &SessionEvent,
) -> Option<Folded> {
    let is_unknown = |endpoint: Seq| endpoint < first_seq && record.replacement(endpoint).is_none();
    if let Some(SurfaceOp::Replace { start, end }) = event.surface_op() {
        if is_unknown(start) || is_unknown(end) {
            return None;
        }
    }
    let surviving_before = record.last_nonempty().map(|node| node.seq);
    let version = record.advance();
    let position = match event.surface_op() {
        Some(SurfaceOp::Replace { start, end }) => {
            let position = record.replacement(start).unwrap_or(start);
            let end = if end == start {
                position
            } else {
                record.replacement(end).unwrap_or(end)
            };
            record.drop_range(position, end);
            // A seq folded twice (only a misused plain fold does that) keeps one entry.
            record.remove_replacement(event.seq);
            record.add_replacement(event.seq, position);
            position
        }
        Some(SurfaceOp::Append) | None => event.seq,
    };
    let introduced = event.system_text().map(|text| {
        let node = Rc::new(SystemPromptNode {
            seq: event.seq,
            time: event.time,
            turn: event.turn().value().unwrap_or(0),
            step: event.step().unwrap_or(0),
            text: Rc::clone(text),
            update: event.is_system_append() && surviving_before.is_some(),
        });
        record.add_node(position, Rc::clone(&node));
        node
    });
    let effective = effective_after(surviving_before, record.last_nonempty(), effective, event);
    Some((version, effective, introduced))
}

/// Step 6: the effective prompt after the event, reusing the previous value when the last
/// nonempty node did not change.
fn effective_after(
    surviving_before: Option<Seq>,
    surviving: Option<&Rc<SystemPromptNode>>,
    previous: Option<Rc<SystemPromptNode>>,
    event: &SessionEvent,
) -> Option<Rc<SystemPromptNode>> {
    if surviving.map(|node| node.seq) == surviving_before {
        return previous;
    }
    match surviving {
        Some(node) if node.seq == event.seq => Some(Rc::clone(node)),
        Some(node) => Some(Rc::new(SystemPromptNode {
            seq: event.seq,
            time: event.time,
            turn: node.turn,
            step: node.step,
            text: Rc::clone(&node.text),
            update: false,
        })),
        None => Some(Rc::new(SystemPromptNode {
            seq: event.seq,
            time: event.time,
            turn: 0,
            step: 0,
            text: Rc::from(""),
            update: false,
        })),
    }
}

impl SystemPromptState {
    /// The first seq the fold knows: the window start, or the first relevant event's seq.
    pub fn first_seq(&self) -> Seq {
        self.0.first_seq
    }

    /// Whether a replacement reached an endpoint of unknown order, so the prompt is withheld.
    pub fn is_uncertain(&self) -> bool {
        self.0.record.is_none()
    }

    /// The surviving system nodes with their positions, in surface order.
    pub fn nodes(&self) -> impl ExactSizeIterator<Item = PositionedSystem> {
        self.read(|record, version| record.nodes_at(version))
            .into_iter()
    }

    /// The surviving replacements as `(replacement seq, inherited position)`, ascending by seq.
    pub fn replacements(&self) -> impl ExactSizeIterator<Item = (Seq, Seq)> {
        self.read(|record, version| record.replacements_at(version))
            .into_iter()
    }

    /// Number of surviving replacement entries.
    pub fn replacement_count(&self) -> usize {
        self.replacements().len()
    }

    /// Reads this state's version of its record (nothing for an uncertain state).
    fn read<T: Default>(&self, read: impl FnOnce(&FoldRecord, Version) -> T) -> T {
        let record = self
            .0
            .record
            .as_ref()
            .and_then(|record| record.try_borrow().ok());
        record.map_or_else(T::default, |record| read(&record, self.0.version))
    }

    /// The prompt in force, `None` when there is none (or it is withheld).
    pub fn effective(&self) -> Option<&SystemPromptNode> {
        self.0.effective.as_deref()
    }

    /// The node introduced by the event that produced this state, if it was a system message.
    pub fn introduced(&self) -> Option<&SystemPromptNode> {
        self.0.introduced.as_deref()
    }

    /// The state as plain data (FORMAT.md's `SystemPromptState`).
    pub fn to_json(&self) -> SystemPromptStateData {
        SystemPromptStateData {
            first_seq: self.0.first_seq,
            uncertain: self.is_uncertain(),
            nodes: self.nodes().collect(),
            replacements: self.replacements().collect(),
            effective: self.effective().cloned(),
            introduced: self.introduced().cloned(),
        }
    }

    /// Whether two handles are the very same state (the event between them was irrelevant).
    pub fn ptr_eq(&self, other: &SystemPromptState) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }
}
