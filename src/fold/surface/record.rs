//! The record of one line of surface states: every entry the line ever held, with the versions
//! it survived, and ordered indexes of what survives at the latest version (the tip).
//!
//! As in the system fold's record, a state is a version number: folding the next event costs a
//! few O(log n) updates of the tip's indexes, and an earlier version is read back from the
//! nearest checkpoint (the entries surviving at some version) plus the entries added since.

use std::collections::BTreeMap;

use crate::input::event::Seq;

/// A version of the record: the number of events folded into it. Version 0 is empty.
pub(super) type Version = u32;

/// Versions between checkpoints, at least (and at least the survivors of the last checkpoint,
/// so that checkpoints cost a few bytes per version however many entries survive).
const CHECKPOINT_SPAN: usize = 32;

/// The type of a surface node.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
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

/// One folded event's place on the surface, and the versions it survived: `born..died`.
#[derive(Clone, Debug)]
struct Entry {
    position: Seq,
    seq: Seq,
    born: Version,
    /// `Version::MAX` while it survives at the tip.
    died: Version,
    tokens: u32,
    /// The node's type; none for a replace by an event that is no surface node.
    node: Option<NodeType>,
}

impl Entry {
    fn survives_at(&self, version: Version) -> bool {
        self.born <= version && version < self.died
    }
}

/// A surviving node as read back from a version.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Survivor {
    pub position: Seq,
    pub seq: Seq,
    pub node: NodeType,
    pub tokens: u32,
}

/// Entry indices (or costs) by a pair of seqs: the map type of the system fold's record, so
/// that the wasm module holds one copy of its code.
type Index = BTreeMap<(Seq, Seq), usize>;

/// The entries surviving at one version.
#[derive(Clone, Debug)]
struct Checkpoint {
    version: Version,
    /// Where its survivors' indices sit in `Record::checkpointed`.
    start: usize,
    end: usize,
    /// The number of entries when it was taken: later entries were born after it.
    entries: usize,
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
#[derive(Clone, Debug)]
pub(super) struct Record {
    entries: Vec<Entry>,
    version: Version,
    /// Surviving entries by (position, seq).
    order: Index,
    /// Surviving entries that sit in place of others (their position is not their seq), by
    /// `(seq, 0)`.
    moved: Index,
    /// Surviving system nodes whose cost is above 0, by (position, seq), with their cost.
    systems: Index,
    sums: Sums,
    checkpoints: Vec<Checkpoint>,
    checkpointed: Vec<usize>,
}

impl Default for Record {
    fn default() -> Record {
        Record {
            entries: Vec::new(),
            version: 0,
            order: Index::new(),
            moved: Index::new(),
            systems: Index::new(),
            sums: Sums::default(),
            checkpoints: vec![Checkpoint {
                version: 0,
                start: 0,
                end: 0,
                entries: 0,
            }],
            checkpointed: Vec::new(),
        }
    }
}

impl Record {
    /// The token sums of the tip.
    pub fn sums(&self) -> Sums {
        self.sums
    }

    /// Starts the next version; entries added and removed until the next call belong to it.
    pub fn advance(&mut self) -> Version {
        let last = self.checkpoints.last();
        let since = last.map_or(0, |last| self.version.saturating_sub(last.version));
        let survivors = last.map_or(0, |last| last.end.saturating_sub(last.start));
        if since as usize >= survivors.max(CHECKPOINT_SPAN) {
            let start = self.checkpointed.len();
            self.checkpointed.extend(self.order.values());
            self.checkpoints.push(Checkpoint {
                version: self.version,
                start,
                end: self.checkpointed.len(),
                entries: self.entries.len(),
            });
        }
        // A record of 2^32 events cannot fit in memory (each takes more than a byte).
        self.version = self.version.saturating_add(1);
        self.version
    }

    /// The position of the surviving node `seq` when it sits in place of others.
    pub fn moved(&self, seq: Seq) -> Option<Seq> {
        let index = self.moved.get(&(seq, 0))?;
        self.entries.get(*index).map(|entry| entry.position)
    }

    /// Drops every entry whose position is in `[from, to]`.
    pub fn drop_range(&mut self, from: Seq, to: Seq) {
        if from > to {
            return;
        }
        // One search per dropped entry, and no list of them to allocate.
        while let Some((&key, &index)) = self.order.range((from, Seq::MIN)..=(to, Seq::MAX)).next()
        {
            self.order.remove(&key);
            self.kill(key, index);
        }
    }

    /// Adds the entry of event `seq` at `position`.
    pub fn add(&mut self, position: Seq, seq: Seq, node: Option<NodeType>, tokens: u32) {
        let key = (position, seq);
        // A seq folded twice (only a misused fold does that) keeps its latest entry.
        if let Some(index) = self.order.remove(&key) {
            self.kill(key, index);
        }
        let index = self.entries.len();
        self.entries.push(Entry {
            position,
            seq,
            born: self.version,
            died: Version::MAX,
            tokens,
            node,
        });
        self.order.insert(key, index);
        if position != seq {
            self.moved.insert((seq, 0), index);
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
            .last_key_value()
            .map_or(0, |(_, tokens)| u32::try_from(*tokens).unwrap_or(u32::MAX))
    }

    fn kill(&mut self, key: (Seq, Seq), index: usize) {
        let version = self.version;
        let Some(entry) = self.entries.get_mut(index) else {
            debug_assert!(false, "an index names no entry");
            return;
        };
        entry.died = version;
        if entry.position != entry.seq {
            self.moved.remove(&(entry.seq, 0));
        }
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
        let at = self
            .checkpoints
            .partition_point(|checkpoint| checkpoint.version <= version);
        let checkpoint = at.checked_sub(1).and_then(|at| self.checkpoints.get(at));
        let (old, new) = match checkpoint {
            Some(checkpoint) => (
                self.checkpointed
                    .get(checkpoint.start..checkpoint.end)
                    .unwrap_or_default(),
                self.entries.get(checkpoint.entries..).unwrap_or_default(),
            ),
            None => (&[][..], self.entries.as_slice()),
        };
        let mut nodes: Vec<Survivor> = old
            .iter()
            .filter_map(|index| self.entries.get(*index))
            .chain(new.iter().take_while(|entry| entry.born <= version))
            .filter(|entry| entry.survives_at(version))
            .filter_map(|entry| {
                Some(Survivor {
                    position: entry.position,
                    seq: entry.seq,
                    node: entry.node?,
                    tokens: entry.tokens,
                })
            })
            .collect();
        crate::sort::sort_by_key(&mut nodes, |node| (node.position, node.seq, 0));
        nodes
    }
}
