//! The surface split by position into segments, each a [`Record`] of its own: the lowest holds
//! the nodes placed before the window start (at endpoints the window does not know), the others
//! hold the positions from their floor up to the next segment's.
//!
//! A prepend rebuilds only the lowest segment (from the page and the few events that reached
//! it): what a replace does to the positions above the window start does not depend on the
//! events before it, so the segments above are kept as they are.

use super::record::{NodeType, Record, Sums, Survivor};
use crate::fold::versioned::{Index, Version};
use crate::input::event::Seq;

/// One segment: the positions from `floor` up to the next segment's floor.
#[derive(Clone, Debug, Default)]
struct Segment {
    floor: Seq,
    record: Record,
    /// The seq of each event that changed the segment, ascending: version `i + 1` of the record
    /// is the segment after `changed_at[i]`.
    changed_at: Vec<Seq>,
    /// The sums of each version from 1 on, kept for the lowest segment only (the others' are
    /// summed in the node fold's states).
    sums: Vec<Sums>,
}

impl Segment {
    fn new(floor: Seq) -> Segment {
        Segment {
            floor,
            ..Segment::default()
        }
    }

    /// Starts the version of event `seq`, unless it has started.
    fn touch(&mut self, seq: Seq) {
        if self.changed_at.last() != Some(&seq) {
            debug_assert!(
                self.changed_at.last().is_none_or(|last| *last < seq),
                "events change a segment in seq order"
            );
            self.record.advance();
            self.changed_at.push(seq);
            if self.floor == Seq::MIN {
                self.sums.push(self.record.sums());
            }
        }
    }

    /// Keeps the tip's sums as the sums of the latest version.
    fn settle(&mut self) {
        if let Some(last) = self.sums.last_mut() {
            *last = self.record.sums();
        }
    }

    /// The version in force after every event with seq `<= seq`.
    fn version_at(&self, seq: Seq) -> usize {
        self.changed_at.partition_point(|changed| *changed <= seq)
    }

    /// The sums after every event with seq `<= seq`.
    fn sums_at(&self, seq: Seq) -> Sums {
        (self.version_at(seq).checked_sub(1))
            .and_then(|index| self.sums.get(index))
            .copied()
            .unwrap_or_default()
    }

    /// The sums of the tip.
    fn tip_sums(&self) -> Sums {
        self.record.sums()
    }
}

/// The segments of one surface, ascending by floor, and where the nodes that sit in place of
/// others are.
#[derive(Clone, Debug)]
pub(super) struct Segments {
    /// Never empty; the first one's floor is `Seq::MIN`.
    list: Vec<Segment>,
    /// Each surviving node that sits in place of others, by `(seq, position)` (the record's
    /// map type, so that the wasm module holds one copy of its code).
    moved: Index,
}

impl Default for Segments {
    fn default() -> Segments {
        Segments::new(Seq::MIN)
    }
}

/// The sums of two disjoint parts of a surface, `above` holding the later positions.
pub(super) fn combine(above: Sums, below: Sums) -> Sums {
    Sums {
        system: above.system.saturating_add(below.system),
        latest_system: match above.latest_system {
            0 => below.latest_system,
            latest => latest,
        },
        messages: above.messages.saturating_add(below.messages),
    }
}

impl Segments {
    /// The segments of a window that starts at `window_start`: the positions before it, and
    /// the rest.
    pub fn new(window_start: Seq) -> Segments {
        Segments {
            list: vec![Segment::new(Seq::MIN), Segment::new(window_start)],
            moved: Index::new(),
        }
    }

    /// Adds what the segments keep on the heap to `profile`.
    #[cfg(feature = "testkit")]
    pub fn heap_profile(&self, profile: &mut crate::heap::HeapProfile) {
        profile.list("surface segments", &self.list);
        profile.add("surface indexes", self.moved.len(), self.moved.heap_bytes());
        for segment in &self.list {
            segment.record.heap_profile(profile);
            profile.list("surface segment versions", &segment.changed_at);
            profile.list("surface segment versions", &segment.sums);
        }
    }

    /// Room for `additional` more versions and entries in the top segment, which a walk grows
    /// ([`crate::Error::OutOfMemory`] when the memory cannot give it).
    pub fn reserve(&mut self, additional: usize) -> Result<(), crate::error::Error> {
        match self.list.last_mut() {
            Some(top) => {
                top.record.reserve(additional)?;
                crate::room::try_room(&mut top.changed_at, additional)
            }
            None => Ok(()),
        }
    }

    /// The lowest position of the segments above the lowest.
    pub fn ceiling(&self) -> Seq {
        self.list.get(1).map_or(Seq::MAX, |segment| segment.floor)
    }

    /// The sums of the lowest segment after every event with seq `<= seq`.
    pub fn lowest_sums_at(&self, seq: Seq) -> Sums {
        self.list
            .first()
            .map_or_else(Sums::default, |lowest| lowest.sums_at(seq))
    }

    /// The sums of the lowest segment's tip.
    pub fn lowest_tip_sums(&self) -> Sums {
        self.list
            .first()
            .map_or_else(Sums::default, Segment::tip_sums)
    }

    /// The position of the surviving node `seq` when it sits in place of others.
    pub fn moved(&self, seq: Seq) -> Option<Seq> {
        // Open above: a bounded range searches the tree for both ends.
        let ((node, position), _) = self.moved.first_from((seq, Seq::MIN))?;
        (node == seq).then_some(position)
    }

    /// The index of the segment that holds `position`.
    fn segment_of(&self, position: Seq) -> usize {
        (self
            .list
            .partition_point(|segment| segment.floor <= position))
        .saturating_sub(1)
    }

    /// Drops, for event `seq`, every node whose position is in `[from, to]`.
    pub fn drop_range(&mut self, seq: Seq, from: Seq, to: Seq) {
        if from > to {
            return;
        }
        let first = self.segment_of(from);
        let moved = &mut self.moved;
        for segment in self.list.get_mut(first..).unwrap_or_default() {
            if segment.floor > to {
                break;
            }
            if let Some(first) = segment.record.first_in(from, to) {
                segment.touch(seq);
                segment.record.drop_from(first, to, &mut |(position, seq)| {
                    if position != seq {
                        moved.remove(&(seq, position));
                    }
                });
                segment.settle();
            }
        }
    }

    /// Adds the entry of event `seq` at `position`.
    pub fn add(&mut self, position: Seq, seq: Seq, node: Option<NodeType>, tokens: u32) {
        let index = self.segment_of(position);
        let Some(segment) = self.list.get_mut(index) else {
            debug_assert!(false, "a position has a segment");
            return;
        };
        segment.touch(seq);
        segment.record.add(position, seq, node, tokens);
        segment.settle();
        if position != seq {
            self.moved.insert((seq, position), 0);
        }
    }

    /// The sums of the tip over every segment but the lowest.
    pub fn upper_tip_sums(&self) -> Sums {
        let upper = self.list.get(1..).unwrap_or_default();
        upper.iter().fold(Sums::default(), |below, segment| {
            combine(segment.tip_sums(), below)
        })
    }

    /// The nodes after every event with seq `<= seq`, in surface order.
    pub fn nodes_at(&self, seq: Seq) -> Vec<Survivor> {
        let mut nodes = Vec::new();
        for segment in &self.list {
            let version = Version::try_from(segment.version_at(seq)).unwrap_or(Version::MAX);
            nodes.extend(segment.record.nodes_at(version));
        }
        nodes
    }

    /// Puts `low`'s segments (a fold of the events before this one's, whose ceiling is this
    /// one's lowest floor above the lowest) in place of the lowest segment.
    pub fn put_below(&mut self, low: Segments) {
        debug_assert!(
            low.ceiling() <= self.ceiling(),
            "the segments put below sit below"
        );
        let Segments {
            list: mut below,
            moved,
        } = low;
        if !self.list.is_empty() {
            let lowest = self.list.remove(0);
            for (position, seq) in lowest.record.tip_keys() {
                if position != seq {
                    self.moved.remove(&(seq, position));
                }
            }
        }
        for (key, value) in moved.iter() {
            self.moved.insert(key, value);
        }
        below.append(&mut self.list);
        self.list = below;
    }
}
