//! The record of one line of surface states: every entry the line ever held, kept in a
//! [`Versioned`] record with the versions it survived, and ordered indexes of what survives at
//! the latest version (the tip) with its token sums.
//!
//! As in the system fold's record, a state is a version number: folding the next event costs a
//! few O(log n) updates of the tip's indexes, and an earlier version is read back from the
//! versioned record.

use crate::fold::versioned::{Index, Version, Versioned};
use crate::input::event::Seq;

/// The type of a surface node.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum NodeType {
    /// `system/message`.
    System,
    /// `user/message`.
    User,
    /// `assistant/message`.
    Assistant,
    /// `tool/result`.
    Tool,
    /// `developer/message`.
    Developer,
}

/// One folded event's place on the surface.
#[derive(Clone, Copy, Debug)]
struct Entry {
    position: Seq,
    seq: Seq,
    tokens: u32,
    /// The node's type; none for a replace by an event that is no surface node.
    node: Option<NodeType>,
}

/// A surviving node as read back from a version.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Survivor {
    pub position: Seq,
    pub seq: Seq,
    pub node: NodeType,
    pub tokens: u32,
}

/// An entry surviving at the tip, found by its position.
#[derive(Clone, Copy, Debug)]
pub(super) struct Found {
    key: (Seq, Seq),
    index: usize,
}

/// The token sums of the tip.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Sums {
    /// All surviving system nodes.
    pub system: u32,
    /// The last surviving system node in surface order whose cost is above 0.
    pub latest_system: u32,
    /// All other surviving nodes.
    pub messages: u32,
}

/// Every entry of a line of surface states, with indexes of the tip.
#[derive(Clone, Debug, Default)]
pub(super) struct Record {
    entries: Versioned<Entry>,
    /// Surviving entries by (position, seq).
    order: Index,
    /// Surviving system nodes whose cost is above 0, by (position, seq), with their cost.
    systems: Index,
    sums: Sums,
}

impl Record {
    /// Room for `additional` more entries ([`crate::error::Error::OutOfMemory`] when the
    /// memory cannot give it).
    pub fn reserve(&mut self, additional: usize) -> Result<(), crate::error::Error> {
        self.entries.reserve(additional)
    }

    /// Adds what this record keeps on the heap to `profile`.
    #[cfg(feature = "testkit")]
    pub fn heap_profile(&self, profile: &mut crate::heap::HeapProfile) {
        self.entries.heap_profile("surface record", profile);
        for index in [&self.order, &self.systems] {
            profile.add("surface indexes", index.len(), index.heap_bytes());
        }
    }

    /// The token sums of the tip.
    pub fn sums(&self) -> Sums {
        self.sums
    }

    /// Starts the next version; entries added and removed until the next call belong to it.
    pub fn advance(&mut self) -> Version {
        self.entries.advance(&[&self.order])
    }

    /// The first entry surviving at the tip with its position in `[from, to]` (its key and
    /// index). The range searched is open above: a bounded one searches the tree for both ends.
    pub fn first_in(&self, from: Seq, to: Seq) -> Option<Found> {
        let (key, index) = self.order.first_from((from, Seq::MIN))?;
        (key.0 <= to).then_some(Found { key, index })
    }

    /// Drops every entry whose position is in `[from, to]`, telling `dropped` the
    /// `(position, seq)` of each.
    #[cfg(test)]
    pub fn drop_range(&mut self, from: Seq, to: Seq, dropped: &mut dyn FnMut((Seq, Seq))) {
        if let Some(first) = self.first_in(from, to) {
            self.drop_from(first, to, dropped);
        }
    }

    /// Drops `first` (as [`Record::first_in`] found it) and every entry after it whose position
    /// is at most `to`, telling `dropped` the `(position, seq)` of each.
    pub fn drop_from(&mut self, first: Found, to: Seq, dropped: &mut dyn FnMut((Seq, Seq))) {
        // One search per dropped entry, and no list of them to allocate.
        let Found { key, index } = first;
        self.order.remove(&key);
        self.kill(key, index);
        dropped(key);
        while let Some((key, index)) = self.order.take_first(key, to) {
            self.kill(key, index);
            dropped(key);
        }
    }

    /// The `(position, seq)` of every entry surviving at the tip, in surface order.
    pub fn tip_keys(&self) -> impl Iterator<Item = (Seq, Seq)> + '_ {
        self.order.keys()
    }

    /// Adds the entry of event `seq` at `position`.
    pub fn add(&mut self, position: Seq, seq: Seq, node: Option<NodeType>, tokens: u32) {
        let key = (position, seq);
        let index = self.entries.push(Entry {
            position,
            seq,
            tokens,
            node,
        });
        // A seq folded twice (only a misused fold does that) keeps its latest entry. One
        // search: the insert gives back the entry it takes the place of.
        if let Some(old) = self.order.insert(key, index) {
            self.kill(key, old);
        }
        match node {
            Some(NodeType::System) => {
                self.sums.system = self.sums.system.saturating_add(tokens);
                if tokens > 0 {
                    self.systems.insert(key, tokens as usize);
                }
            }
            Some(_) => self.sums.messages = self.sums.messages.saturating_add(tokens),
            None => {}
        }
        self.sums.latest_system = self.latest_system();
    }

    fn latest_system(&self) -> u32 {
        self.systems
            .last()
            .map_or(0, |(_, tokens)| u32::try_from(tokens).unwrap_or(u32::MAX))
    }

    fn kill(&mut self, key: (Seq, Seq), index: usize) {
        let Some(entry) = self.entries.kill(index).copied() else {
            return;
        };
        match entry.node {
            Some(NodeType::System) => {
                self.sums.system = self.sums.system.saturating_sub(entry.tokens);
                self.systems.remove(&key);
                self.sums.latest_system = self.latest_system();
            }
            Some(_) => self.sums.messages = self.sums.messages.saturating_sub(entry.tokens),
            None => {}
        }
    }

    /// The nodes surviving at `version`, in surface order.
    pub fn nodes_at(&self, version: Version) -> Vec<Survivor> {
        let mut nodes = Vec::new();
        self.entries.each_surviving(version, &mut |entry| {
            if let Some(node) = entry.node {
                nodes.push(Survivor {
                    position: entry.position,
                    seq: entry.seq,
                    node,
                    tokens: entry.tokens,
                });
            }
        });
        crate::sort::sort_by_key(&mut nodes, |node| (node.position, node.seq, 0));
        nodes
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_random::seeded;

    const TYPES: [Option<NodeType>; 6] = [
        None,
        Some(NodeType::System),
        Some(NodeType::User),
        Some(NodeType::Assistant),
        Some(NodeType::Tool),
        Some(NodeType::Developer),
    ];

    /// What the tip's index holds, read without the versioned record (the oracle for
    /// `nodes_at`), and the tip's sums computed from it.
    fn tip(record: &Record) -> (Vec<Survivor>, Sums) {
        let entries: Vec<Entry> = (record.order.values())
            .map(|index| *record.entries.get(index).unwrap())
            .collect();
        let nodes = (entries.iter())
            .filter_map(|entry| {
                Some(Survivor {
                    position: entry.position,
                    seq: entry.seq,
                    node: entry.node?,
                    tokens: entry.tokens,
                })
            })
            .collect::<Vec<_>>();
        let mut systems = nodes.iter().filter(|node| node.node == NodeType::System);
        let sums = Sums {
            system: systems.clone().map(|node| node.tokens).sum(),
            latest_system: systems
                .rfind(|node| node.tokens > 0)
                .map_or(0, |node| node.tokens),
            messages: (nodes.iter())
                .filter(|node| node.node != NodeType::System)
                .map(|node| node.tokens)
                .sum(),
        };
        (nodes, sums)
    }

    /// Random appends, replaces (some by events that are no node) and wide drops over
    /// thousands of versions: every version reads back exactly the nodes the tip held when it
    /// was the tip, and the tip's sums always add up its nodes.
    #[test]
    fn every_version_reads_back_as_it_was() {
        let mut record = Record::default();
        let mut seen = vec![tip(&record).0];
        let mut next = seeded(17);
        // The positions of surviving entries that sit in place of others, by seq.
        let mut moved = std::collections::HashMap::new();
        let mut dropped = Vec::new();
        for seq in 1..4000 {
            record.advance();
            let node = TYPES[next(6) as usize];
            let tokens = next(5) as u32;
            match next(10) {
                0..=4 => record.add(seq, seq, node, tokens),
                5..=8 => {
                    let from = seq - 1 - next(20) as Seq;
                    let from = moved.get(&from).copied().unwrap_or(from);
                    let to = from + next(3) as Seq;
                    record.drop_range(from, to, &mut |key| dropped.push(key));
                    record.add(from, seq, node, tokens);
                    moved.insert(seq, from);
                }
                _ => {
                    let from = seq - 1 - next(2000) as Seq;
                    record.drop_range(from, seq, &mut |key| dropped.push(key));
                }
            }
            for (_, seq) in dropped.drain(..) {
                moved.remove(&seq);
            }
            let (nodes, sums) = tip(&record);
            assert_eq!(record.sums(), sums, "seq {seq}");
            seen.push(nodes);
        }
        assert!(record.entries.checkpoint_count() > 20);
        for (version, expected) in seen.iter().enumerate() {
            let version = Version::try_from(version).unwrap();
            assert_eq!(&record.nodes_at(version), expected, "version {version}");
        }
    }
}
