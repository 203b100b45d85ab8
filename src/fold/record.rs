//! The fold record: what one line of system-fold states shares.
//!
//! Every system node and replacement entry a line of states ever held is kept once in a
//! [`Versioned`] record, with the versions between which it survived; a state is a version
//! number. The latest version (the tip) also has ordinary ordered indexes of what survives, so
//! folding the next event costs a few O(log n) updates in place, and a kept state costs a few
//! dozen bytes instead of a copy of tree paths.

use std::rc::Rc;

use super::versioned::{Index, Version, Versioned};
use super::{PositionedSystem, SystemPromptNode};
use crate::input::event::Seq;

/// A system node or a replacement entry.
#[derive(Clone, Debug)]
struct Entry {
    /// Its position in surface order.
    position: Seq,
    /// The seq of the event that added it.
    seq: Seq,
    /// The node, for a system node; none for a replacement entry.
    node: Option<Rc<SystemPromptNode>>,
    /// Whether the node counts as nonempty (see [`FoldRecord::add_node`]).
    nonempty: bool,
}

/// Whether `index` may hold a key whose first seq is in `[from, to]`: its first and last keys
/// (reached without comparing keys) are checked, so a range beyond either end costs no search.
fn may_hold(index: &Index, from: Seq, to: Seq) -> bool {
    match (index.first(), index.last()) {
        (Some(((first, _), _)), Some(((last, _), _))) => first <= to && last >= from,
        _ => false,
    }
}

/// The keys of `index` whose first seq is in `[from, to]`.
fn keys_in(index: &Index, from: Seq, to: Seq) -> Vec<(Seq, Seq)> {
    if !may_hold(index, from, to) {
        return Vec::new();
    }
    // A loop where a collect through `take_while` made its own copy of `Vec`'s extend.
    let mut keys = Vec::new();
    for (key, _) in index.iter_from((from, Seq::MIN)) {
        if key.0 > to {
            break;
        }
        keys.push(key);
    }
    keys
}

/// Entry indices by seq, for the surviving replacements: a list ascending by seq, where a
/// removed entry leaves its seq behind (so nothing moves). The fold adds seqs in ascending order,
/// so adding is a push, and finding is a binary search instead of a walk down a tree.
#[derive(Clone, Debug, Default)]
struct BySeq {
    items: Vec<(Seq, Option<usize>)>,
}

impl BySeq {
    /// The entry index of `seq`.
    fn get(&self, seq: Seq) -> Option<usize> {
        let at = self.find(seq).ok()?;
        self.items.get(at).and_then(|(_, index)| *index)
    }

    /// Sets the entry index of `seq`.
    fn insert(&mut self, seq: Seq, index: usize) {
        if self.items.last().is_none_or(|(last, _)| *last < seq) {
            self.items.push((seq, Some(index)));
            return;
        }
        match self.find(seq) {
            Ok(at) => {
                if let Some(item) = self.items.get_mut(at) {
                    item.1 = Some(index);
                }
            }
            Err(at) => self.items.insert(at, (seq, Some(index))),
        }
    }

    /// Removes `seq`, returning its entry index.
    fn remove(&mut self, seq: Seq) -> Option<usize> {
        let at = self.find(seq).ok()?;
        self.items.get_mut(at).and_then(|(_, index)| index.take())
    }

    fn find(&self, seq: Seq) -> Result<usize, usize> {
        self.items.binary_search_by_key(&seq, |(seq, _)| *seq)
    }
}

/// Every entry of a line of states, with indexes of the tip.
#[derive(Clone, Debug, Default)]
pub(super) struct FoldRecord {
    entries: Versioned<Entry>,
    /// Surviving system nodes by (position, seq).
    nodes: Index,
    /// The keys of `nodes` whose node had nonempty text when the key was first added.
    nonempty: Index,
    /// Surviving replacements by seq.
    replacements: BySeq,
    /// Surviving replacements by (position, seq).
    by_position: Index,
    /// The largest seq of any replacement entry ever added (folds usually go up in seq, so a
    /// new seq usually has no entry to replace).
    max_replacement: Option<Seq>,
}

impl FoldRecord {
    /// Adds what this record keeps on the heap to `profile`.
    #[cfg(feature = "testkit")]
    pub fn heap_profile(&self, profile: &mut crate::heap::HeapProfile) {
        self.entries.heap_profile("fold record", profile);
        for index in [&self.nodes, &self.nonempty, &self.by_position] {
            profile.add("fold record indexes", index.len(), index.heap_bytes());
        }
        profile.list("fold record indexes", &self.replacements.items);
    }

    /// A new record whose version 0 holds what survives at `version` of this one.
    pub fn branch(&self, version: Version) -> FoldRecord {
        let mut branch = FoldRecord {
            entries: self.entries.branch(version),
            ..FoldRecord::default()
        };
        let mut replacements = Vec::new();
        for (index, entry) in branch.entries.entries().enumerate() {
            let key = (entry.position, entry.seq);
            match &entry.node {
                Some(_) => {
                    if entry.nonempty {
                        branch.nonempty.insert(key, index);
                    }
                    branch.nodes.insert(key, index);
                }
                None => {
                    branch.max_replacement = branch.max_replacement.max(Some(entry.seq));
                    replacements.push((entry.seq, Some(index)));
                    branch.by_position.insert(key, index);
                }
            }
        }
        // The survivors come in no particular order: sorted once, not inserted one by one.
        crate::sort::sort_by_key(&mut replacements, |(seq, _)| (*seq, 0, 0));
        branch.replacements = BySeq {
            items: replacements,
        };
        branch
    }

    /// The latest version.
    pub fn version(&self) -> Version {
        self.entries.version()
    }

    /// Starts the next version; entries added and removed until the next call belong to it.
    pub fn advance(&mut self) -> Version {
        self.entries.advance(&[&self.nodes, &self.by_position])
    }

    /// The inherited position of a surviving replacement at the tip.
    pub fn replacement(&self, seq: Seq) -> Option<Seq> {
        if self.max_replacement.is_none_or(|max| seq > max) {
            return None;
        }
        let index = self.replacements.get(seq)?;
        let position = self.entries.get(index).map(|entry| entry.position);
        debug_assert!(position.is_some(), "a replacement names an entry");
        position
    }

    /// The last surviving nonempty node at the tip, in surface order.
    pub fn last_nonempty(&self) -> Option<&Rc<SystemPromptNode>> {
        let (_, index) = self.nonempty.last()?;
        let entry = self.entries.get(index);
        debug_assert!(entry.is_some(), "a nonempty node names an entry");
        entry?.node.as_ref()
    }

    /// Drops every node and replacement entry whose position is in `[from, to]`.
    pub fn drop_range(&mut self, from: Seq, to: Seq) {
        if from > to {
            return;
        }
        for key in keys_in(&self.nodes, from, to) {
            self.nonempty.remove(&key);
            if let Some(index) = self.nodes.remove(&key) {
                self.entries.kill(index);
            }
        }
        for (position, seq) in keys_in(&self.by_position, from, to) {
            self.replacements.remove(seq);
            if let Some(index) = self.by_position.remove(&(position, seq)) {
                self.entries.kill(index);
            }
        }
    }

    /// Removes the surviving replacement entry of `seq`, if there is one.
    pub fn remove_replacement(&mut self, seq: Seq) {
        if self.max_replacement.is_none_or(|max| seq > max) {
            return;
        }
        let Some(index) = self.replacements.remove(seq) else {
            return;
        };
        match self.entries.kill(index).map(|entry| entry.position) {
            Some(position) => {
                self.by_position.remove(&(position, seq));
            }
            None => debug_assert!(false, "a replacement names an entry"),
        }
    }

    /// Adds the replacement entry `seq -> position`.
    pub fn add_replacement(&mut self, seq: Seq, position: Seq) {
        let index = self.entries.push(Entry {
            position,
            seq,
            node: None,
            nonempty: false,
        });
        self.max_replacement = self.max_replacement.max(Some(seq));
        self.replacements.insert(seq, index);
        self.by_position.insert((position, seq), index);
    }

    /// Adds a system node at `position`, in place of a surviving node with the same key.
    pub fn add_node(&mut self, position: Seq, node: Rc<SystemPromptNode>) {
        let key = (position, node.seq);
        // A key keeps its place among the nonempty ones even when its new node is empty (only a
        // seq folded twice does that), as the fold always did.
        let nonempty = !node.text.is_empty() || self.nonempty.contains_key(&key);
        let index = self.entries.push(Entry {
            position,
            seq: node.seq,
            node: Some(node),
            nonempty,
        });
        if let Some(replaced) = self.nodes.insert(key, index) {
            self.entries.kill(replaced);
        }
        if nonempty {
            self.nonempty.insert(key, index);
        }
    }

    /// The system nodes surviving at `version`, in surface order.
    pub fn nodes_at(&self, version: Version) -> Vec<PositionedSystem> {
        let mut nodes = Vec::new();
        self.entries.each_surviving(version, &mut |entry| {
            if let Some(node) = &entry.node {
                nodes.push(PositionedSystem {
                    position: entry.position,
                    node: SystemPromptNode::clone(node),
                });
            }
        });
        crate::sort::sort_by_key(&mut nodes, |node| (node.position, node.node.seq, 0));
        nodes
    }

    /// The replacement entries surviving at `version` as `(seq, position)`, ascending by seq.
    pub fn replacements_at(&self, version: Version) -> Vec<(Seq, Seq)> {
        let mut replacements = Vec::new();
        self.entries.each_surviving(version, &mut |entry| {
            if entry.node.is_none() {
                replacements.push((entry.seq, entry.position));
            }
        });
        crate::sort::sort_by_key(&mut replacements, |(seq, position)| (*seq, *position, 0));
        replacements
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::test_random::seeded;

    /// Node keys `(position, seq)` and replacements `(seq, position)` of one version.
    type Contents = (Vec<(Seq, Seq)>, Vec<(Seq, Seq)>);

    /// What the tip indexes hold, read without the record (the oracle for `*_at`).
    fn tip(record: &FoldRecord) -> Contents {
        let nodes = record.nodes.keys().collect();
        let mut replacements: Vec<(Seq, Seq)> = record
            .by_position
            .keys()
            .map(|(position, seq)| (seq, position))
            .collect();
        replacements.sort_unstable();
        (nodes, replacements)
    }

    fn read(record: &FoldRecord, version: Version) -> Contents {
        let nodes = record
            .nodes_at(version)
            .iter()
            .map(|node| (node.position, node.node.seq))
            .collect();
        (nodes, record.replacements_at(version))
    }

    fn node(seq: Seq, text: &str) -> Rc<SystemPromptNode> {
        Rc::new(SystemPromptNode {
            seq,
            time: 0.0,
            turn: 0,
            step: 0,
            text: Rc::from(text),
            update: false,
        })
    }

    /// Random inserts (mostly ascending, as the fold makes them, some not, some again), removals
    /// and lookups agree with a map.
    #[test]
    fn by_seq_agrees_with_a_map() {
        let mut next = seeded(13);
        for _ in 0..200 {
            let (mut by_seq, mut map) = (BySeq::default(), BTreeMap::new());
            let mut top = 0;
            for index in 0..200 {
                let seq = match next(4) {
                    0 => next(top as u64 + 2) as Seq,
                    _ => {
                        top += 1 + next(3) as Seq;
                        top
                    }
                };
                match next(3) {
                    0 => assert_eq!(by_seq.remove(seq), map.remove(&seq), "remove {seq}"),
                    _ => {
                        by_seq.insert(seq, index);
                        map.insert(seq, index);
                    }
                }
                for seq in 0..=top + 1 {
                    assert_eq!(by_seq.get(seq), map.get(&seq).copied(), "get {seq}");
                }
            }
        }
    }

    /// `may_hold` says no only when the range holds no key (on small random indexes, every
    /// range around their keys).
    #[test]
    fn may_hold_misses_no_key() {
        let mut next = seeded(11);
        for _ in 0..300 {
            let mut index = Index::new();
            for _ in 0..next(6) {
                index.insert((next(12) as Seq, next(3) as Seq), 0);
            }
            for from in -1..14 {
                for to in from..14 {
                    let held =
                        (index.iter_from((from, Seq::MIN)).next()).filter(|(key, _)| key.0 <= to);
                    assert!(
                        may_hold(&index, from, to) || held.is_none(),
                        "{index:?} {from} {to}"
                    );
                }
            }
        }
    }

    /// Random appends, replaces and wide drops over thousands of versions: every version reads
    /// back exactly what the tip held when it was the tip, through checkpoints of every size,
    /// and a branch of any version holds the same.
    #[test]
    fn every_version_reads_back_as_it_was() {
        let mut record = FoldRecord::default();
        let mut seen = vec![tip(&record)];
        let mut next = seeded(7);
        for seq in 1..4000 {
            record.advance();
            match next(10) {
                0..=3 => record.add_node(seq, node(seq, if next(4) == 0 { "" } else { "x" })),
                4..=7 => {
                    let from = seq - 1 - next(20) as Seq;
                    record.drop_range(from, from + next(3) as Seq);
                    record.remove_replacement(seq);
                    record.add_replacement(seq, from);
                }
                8 => record.drop_range(seq - 1 - next(2000) as Seq, seq),
                _ => record.add_replacement(seq, seq),
            }
            seen.push(tip(&record));
        }
        assert!(record.entries.checkpoint_count() > 20);
        for (version, expected) in seen.iter().enumerate() {
            let version = Version::try_from(version).unwrap();
            assert_eq!(&read(&record, version), expected, "version {version}");
            assert_eq!(&read(&record.branch(version), 0), expected);
        }
    }
}
