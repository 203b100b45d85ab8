//! The system-prompt fold (SPEC section 2) over immutable states that share structure.
//!
//! Each state holds its maps as persistent ordered maps: folding one relevant event copies
//! O(log n) tree nodes, so keeping a state for every event costs O(log n) per relevant event and
//! never a copy of a whole map. The map type stays private to this module.

use std::rc::Rc;

use imbl::shared_ptr::RcK;
use imbl::{GenericOrdMap, GenericOrdSet};

/// Persistent ordered map and set over non-atomic reference counts (states are not shared
/// across threads; atomic counts cost about a sixth of a fold natively).
type OrdMap<K, V> = GenericOrdMap<K, V, RcK>;
type OrdSet<K> = GenericOrdSet<K, RcK>;
use serde::Serialize;

use crate::event::{Seq, SessionEvent, SurfaceOp, Time};
use crate::jsjson::serialize_js_number;

/// A system prompt as committed by one event (or synthesized by the fold).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
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
    #[serde(serialize_with = "crate::shared::serialize_text")]
    #[cfg_attr(target_arch = "wasm32", tsify(type = "string"))]
    pub text: Rc<str>,
    /// Whether it was appended after another nonempty prompt (an in-history update).
    pub update: bool,
}

/// A surviving system node and its place in surface order.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
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
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[cfg_attr(target_arch = "wasm32", tsify(rename = "SystemPromptStateData"))]
pub struct SystemPromptStateJson {
    /// The first seq the fold knows (the window start, or the first relevant event).
    pub first_seq: Seq,
    /// Whether a replacement reached events whose order is unknown (the prompt is withheld).
    pub uncertain: bool,
    /// Surviving system nodes in surface order, empty ones included.
    pub nodes: Vec<PositionedSystem>,
    /// Surviving replacements as `[replacementSeq, position]`, ascending by seq.
    pub replacements: Vec<(Seq, Seq)>,
    /// The prompt in force, none when there is none (or it is withheld).
    pub effective: Option<SystemPromptNode>,
    /// The node this event introduced, none unless it was a system message.
    pub introduced: Option<SystemPromptNode>,
}

/// An immutable state of the fold. Cloning it is O(1); states share structure.
#[derive(Clone, Debug)]
pub struct SystemPromptState(Rc<Inner>);

#[derive(Clone, Debug)]
struct Inner {
    first_seq: Seq,
    uncertain: bool,
    /// (position, node seq) -> node; the seq breaks ties that only invalid logs create.
    nodes: OrdMap<(Seq, Seq), Rc<SystemPromptNode>>,
    /// Keys of `nodes` whose text is nonempty.
    nonempty: OrdSet<(Seq, Seq)>,
    /// (replacement seq, inherited position): the replacements map, as a set of pairs so that
    /// all three sets share one tree type (one copy of the tree code in the wasm module).
    replacements: OrdSet<(Seq, Seq)>,
    /// (position, replacement seq) for every entry of `replacements`.
    by_position: OrdSet<(Seq, Seq)>,
    effective: Option<Rc<SystemPromptNode>>,
    introduced: Option<Rc<SystemPromptNode>>,
}

impl Inner {
    fn uncertain(first_seq: Seq) -> Inner {
        Inner {
            first_seq,
            uncertain: true,
            nodes: OrdMap::new(),
            nonempty: OrdSet::new(),
            replacements: OrdSet::new(),
            by_position: OrdSet::new(),
            effective: None,
            introduced: None,
        }
    }

    fn last_nonempty(&self) -> Option<&Rc<SystemPromptNode>> {
        self.nonempty.get_max().and_then(|key| self.nodes.get(key))
    }

    /// The inherited position of a surviving replacement.
    fn replacement(&self, seq: Seq) -> Option<Seq> {
        self.replacements
            .range((seq, Seq::MIN)..=(seq, Seq::MAX))
            .next()
            .map(|(_, position)| *position)
    }

    fn is_unknown(&self, endpoint: Seq) -> bool {
        endpoint < self.first_seq && self.replacement(endpoint).is_none()
    }

    fn position_of(&self, endpoint: Seq) -> Seq {
        self.replacement(endpoint).unwrap_or(endpoint)
    }

    /// Drops every node and replacement entry whose position is in `[from, to]`.
    fn drop_range(&mut self, from: Seq, to: Seq) {
        if from > to {
            return;
        }
        let doomed: Vec<(Seq, Seq)> = self
            .nodes
            .range((from, Seq::MIN)..=(to, Seq::MAX))
            .map(|(key, _)| *key)
            .collect();
        for key in doomed {
            self.nodes.remove(&key);
            self.nonempty.remove(&key);
        }
        let doomed: Vec<(Seq, Seq)> = self
            .by_position
            .range((from, Seq::MIN)..=(to, Seq::MAX))
            .copied()
            .collect();
        for (position, seq) in doomed {
            self.by_position.remove(&(position, seq));
            self.replacements.remove(&(seq, position));
        }
    }
}

/// Folds one event into `previous` (SPEC section 2) and returns the state after it.
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
    let first_seq = previous
        .map(|state| state.0.first_seq)
        .or(window_start)
        .unwrap_or(event.seq);
    let base = match previous {
        Some(state) if state.0.uncertain => return Some(state.clone()),
        Some(state) => Inner::clone(&state.0),
        None => Inner {
            uncertain: false,
            ..Inner::uncertain(first_seq)
        },
    };
    Some(SystemPromptState(Rc::new(fold_relevant(base, event))))
}

fn fold_relevant(before: Inner, event: &SessionEvent) -> Inner {
    let mut state = before.clone();
    state.introduced = None;
    let position = match event.surface_op {
        Some(SurfaceOp::Replace { start, end }) => {
            if before.is_unknown(start) || before.is_unknown(end) {
                return Inner::uncertain(before.first_seq);
            }
            let position = before.position_of(start);
            state.drop_range(position, before.position_of(end));
            // A seq folded twice (only a misused plain fold does that) keeps one entry.
            if let Some(stale) = state.replacement(event.seq) {
                state.replacements.remove(&(event.seq, stale));
                state.by_position.remove(&(stale, event.seq));
            }
            state.replacements.insert((event.seq, position));
            state.by_position.insert((position, event.seq));
            position
        }
        Some(SurfaceOp::Append) | None => event.seq,
    };
    if let Some(text) = event.system_text() {
        let node = Rc::new(SystemPromptNode {
            seq: event.seq,
            time: event.time,
            turn: event.turn.value().unwrap_or(0),
            step: event.step.unwrap_or(0),
            text: Rc::clone(text),
            update: event.is_system_append() && before.last_nonempty().is_some(),
        });
        let key = (position, event.seq);
        if !text.is_empty() {
            state.nonempty.insert(key);
        }
        state.nodes.insert(key, Rc::clone(&node));
        state.introduced = Some(node);
    }
    state.effective = effective_after(&before, &state, event);
    state
}

/// Step 6: the effective prompt after the event, reusing the previous value when the last
/// nonempty node did not change.
fn effective_after(
    before: &Inner,
    after: &Inner,
    event: &SessionEvent,
) -> Option<Rc<SystemPromptNode>> {
    let surviving_before = before.last_nonempty().map(|node| node.seq);
    let surviving = after.last_nonempty();
    if surviving.map(|node| node.seq) == surviving_before {
        return before.effective.clone();
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
        self.0.uncertain
    }

    /// The surviving system nodes as `(position, node)`, in surface order.
    pub fn nodes(&self) -> impl Iterator<Item = (Seq, &SystemPromptNode)> + '_ {
        self.0
            .nodes
            .iter()
            .map(|((position, _), node)| (*position, &**node))
    }

    /// The surviving replacements as `(replacement seq, inherited position)`, ascending by seq.
    pub fn replacements(&self) -> impl Iterator<Item = (Seq, Seq)> + '_ {
        self.0
            .replacements
            .iter()
            .map(|(seq, position)| (*seq, *position))
    }

    /// Number of surviving replacement entries.
    pub fn replacement_count(&self) -> usize {
        self.0.replacements.len()
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
    pub fn to_json(&self) -> SystemPromptStateJson {
        SystemPromptStateJson {
            first_seq: self.0.first_seq,
            uncertain: self.0.uncertain,
            nodes: self
                .nodes()
                .map(|(position, node)| PositionedSystem {
                    position,
                    node: node.clone(),
                })
                .collect(),
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
