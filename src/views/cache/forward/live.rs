//! The live surface of a forward-only ledger: the surface nodes that survive at the tip, and
//! nothing of the states before it.
//!
//! The rules are the surface fold's (`fold::surface`): a node sits at its own seq, a replace
//! drops every entry whose position is in the range of its endpoints' positions and puts its
//! node (or, from an event that is no surface node, an entry that is none) at the start's
//! position; an endpoint before the window start that no surviving entry names is unknown, and
//! every state from then on is incomplete. The system fold's rules (the prompt in force, whether
//! an append is an in-history update) read the same entries: its surviving system nodes and
//! replacement entries are this surface's, and its uncertain states are the incomplete ones.
//!
//! Memory follows the live surface: an entry is dropped with the node it stands for.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::hash::BuildHasherDefault;
use std::rc::Rc;

use crate::fold::surface::{NodeType, Sums};
use crate::input::event::Seq;
use crate::pair_hash::PairHasher;

/// An entry's key: its position, then its seq (surface order).
pub(super) type Key = (Seq, Seq);

/// One surviving entry.
#[derive(Clone, Debug)]
struct Entry {
    tokens: u32,
    /// The node's type; none for a replace by an event that is no surface node.
    node: Option<NodeType>,
}

/// The surviving entries of a surface (see the module text).
#[derive(Clone, Debug, Default)]
pub(super) struct Live {
    window_start: Option<Seq>,
    entries: BTreeMap<Key, Entry>,
    /// The position of each surviving entry that sits in place of others, by seq.
    moved: HashMap<Seq, Seq, BuildHasherDefault<PairHasher>>,
    /// Surviving system nodes whose cost is above 0.
    costly_systems: BTreeSet<Key>,
    /// Surviving system nodes whose text is not empty, with the text.
    texts: BTreeMap<Key, Rc<str>>,
    sums: Sums,
    /// The tokens of every surviving node.
    node_tokens: u64,
    incomplete: bool,
}

/// What a replace did to the node list: the least key it dropped or placed a node at.
pub(super) type Touched = Option<Key>;

impl Live {
    /// The token sums of the tip.
    pub fn sums(&self) -> Sums {
        self.sums
    }

    /// Whether an endpoint before the window start was unknown (every state from then on is
    /// incomplete, and the system fold's uncertain).
    pub fn incomplete(&self) -> bool {
        self.incomplete
    }

    /// The text of the last surviving system node in surface order whose text is not empty.
    pub fn last_text(&self) -> Option<&Rc<str>> {
        self.texts.last_key_value().map(|(_, text)| text)
    }

    /// Appends the node of event `seq` (its position is its seq).
    pub fn append(&mut self, seq: Seq, node: NodeType, tokens: u32, text: Option<&Rc<str>>) {
        self.start(seq);
        self.add((seq, seq), Some(node), tokens, text);
    }

    /// Applies event `seq`'s replace of `start..=end`, placing its node (`node`, `tokens`,
    /// `text` for a system node) or an entry that is none; returns the least key whose node it
    /// dropped or placed.
    pub fn replace(
        &mut self,
        seq: Seq,
        (start, end): (Seq, Seq),
        node: Option<NodeType>,
        tokens: u32,
        text: Option<&Rc<str>>,
    ) -> Touched {
        self.start(seq);
        let window_start = self.window_start.unwrap_or(Seq::MIN);
        let unknown = |at: Seq| at < window_start && !self.moved.contains_key(&at);
        if unknown(start) || unknown(end) {
            self.incomplete = true;
        }
        let from = self.moved.get(&start).copied().unwrap_or(start);
        let to = self.moved.get(&end).copied().unwrap_or(end);
        let mut touched: Touched = None;
        if from <= to {
            // One search per dropped entry, and no list of them to allocate.
            while let Some((&key, _)) = self.entries.range((from, Seq::MIN)..=(to, Seq::MAX)).next()
            {
                if self.remove(key) {
                    touched = Some(touched.map_or(key, |least| least.min(key)));
                }
            }
        }
        let key = (from, seq);
        if node.is_some() {
            touched = Some(touched.map_or(key, |least| least.min(key)));
        }
        self.add(key, node, tokens, text);
        touched
    }

    /// The tokens of the surviving nodes before `key` in surface order. Walks from both ends
    /// at once, so the cost follows the shorter side.
    pub fn node_tokens_before(&self, key: Key) -> u64 {
        let mut below = self.entries.range(..key);
        let mut above = self.entries.range(key..);
        let (mut below_sum, mut above_sum) = (0u64, 0u64);
        let tokens = |entry: &Entry| {
            if entry.node.is_some() {
                u64::from(entry.tokens)
            } else {
                0
            }
        };
        loop {
            match below.next() {
                Some((_, entry)) => below_sum = below_sum.saturating_add(tokens(entry)),
                None => return below_sum,
            }
            match above.next() {
                Some((_, entry)) => above_sum = above_sum.saturating_add(tokens(entry)),
                None => return self.node_tokens.saturating_sub(above_sum),
            }
        }
    }

    /// The window starts at the first event folded.
    fn start(&mut self, seq: Seq) {
        self.window_start.get_or_insert(seq);
    }

    /// Notes the first event of the window (whatever its type).
    pub fn first_event(&mut self, seq: Seq) {
        self.start(seq);
    }

    fn add(&mut self, key: Key, node: Option<NodeType>, tokens: u32, text: Option<&Rc<str>>) {
        // Seqs ascend, so a key is never taken; were it, its entry is replaced.
        self.remove(key);
        self.entries.insert(key, Entry { tokens, node });
        if key.0 != key.1 {
            self.moved.insert(key.1, key.0);
        }
        match node {
            Some(NodeType::System) => {
                self.sums.system = self.sums.system.saturating_add(tokens);
                if tokens > 0 {
                    self.costly_systems.insert(key);
                }
                if let Some(text) = text.filter(|text| !text.is_empty()) {
                    self.texts.insert(key, Rc::clone(text));
                }
                self.settle_latest();
            }
            Some(_) => self.sums.messages = self.sums.messages.saturating_add(tokens),
            None => {}
        }
        if node.is_some() {
            self.node_tokens = self.node_tokens.saturating_add(u64::from(tokens));
        }
    }

    /// Removes the entry of `key`, and returns whether it was a node.
    fn remove(&mut self, key: Key) -> bool {
        let Some(entry) = self.entries.remove(&key) else {
            return false;
        };
        if key.0 != key.1 {
            self.moved.remove(&key.1);
        }
        match entry.node {
            Some(NodeType::System) => {
                self.sums.system = self.sums.system.saturating_sub(entry.tokens);
                self.costly_systems.remove(&key);
                self.texts.remove(&key);
                self.settle_latest();
            }
            Some(_) => self.sums.messages = self.sums.messages.saturating_sub(entry.tokens),
            None => {}
        }
        if entry.node.is_some() {
            self.node_tokens = self.node_tokens.saturating_sub(u64::from(entry.tokens));
        }
        entry.node.is_some()
    }

    fn settle_latest(&mut self) {
        self.sums.latest_system = self
            .costly_systems
            .last()
            .and_then(|key| self.entries.get(key))
            .map_or(0, |entry| entry.tokens);
    }
}
