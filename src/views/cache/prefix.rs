//! The longest common prefix of two requests' node lists, in positions and token sums.
//!
//! Appends only add at the end of the surface, so request R's nodes begin with every node of
//! the previous request P that sits before the first position a replace between their read
//! points touched (the break): its start position when it places a node, else the first node it
//! dropped. The prefix's tokens are the token sum of the positions before the break at the
//! moment of that replace, which no earlier replace between the two read points changed.
//!
//! [`Positions`] keeps the surface's slots in position order: the token sums as appended plus a
//! Fenwick tree of what replaces changed since (an append costs a push, a prefix sum O(log n)),
//! a slot index by position while positions stay close together, and skip links over dropped
//! slots, so a replace costs O(log n) per entry it drops. A log whose replaces the list cannot
//! follow exactly (an endpoint that is no live entry, a start after its end) switches the ledger
//! to comparing node lists for the requests after it.

use std::collections::HashMap;
use std::hash::BuildHasherDefault;

use super::gaps::Gap;
use super::tools::ToolChanges;
use crate::fold::surface::SurfaceFold;
use crate::input::event::Seq;
use crate::pair_hash::PairHasher;
use crate::views::context::ContextBreakdown;

/// Where the first replace between two read points broke the previous request's prefix.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Break {
    /// The break's position.
    pub position: Seq,
    /// The tokens of the nodes before it.
    pub prefix: u64,
}

/// One slot of [`Positions`]: a position and the entry that holds it.
#[derive(Clone, Copy, Debug, Default)]
struct Slot {
    position: Seq,
    /// The seq of the entry in the slot.
    seq: Seq,
    /// Its tokens (0 once dropped).
    tokens: u32,
    /// Whether the entry is a node (a replace by an event that is no surface node leaves an
    /// entry that is none).
    node: bool,
    /// Itself while the slot is live, else a later slot (a dropped slot points on, so a walk
    /// over live slots skips each dropped one once).
    next: usize,
    /// The tokens of the slots before it as they were appended.
    appended_before: u64,
}

/// The live entries of the surface by position, with token sums (see the module text).
#[derive(Clone, Debug, Default)]
pub(super) struct Positions {
    /// The slots in position order.
    slots: Vec<Slot>,
    /// The tokens of every slot as they were appended.
    appended: u64,
    /// A Fenwick tree over the slots of what replaces changed since (room for every slot).
    changes: Vec<i64>,
    /// The slot of each position plus one, by its distance from the window start (0: none),
    /// when positions are close together (the window's span at most four times its events);
    /// else positions are searched. A live entry that sits in place of others (placed by a
    /// replace, whose seq no appended slot holds) has its slot at its own seq's distance.
    slot_of: Vec<usize>,
    /// Whether `slot_of` indexes every slot.
    indexed: bool,
    /// The position of each live entry that sits in place of others, by seq, when `slot_of`
    /// cannot hold it.
    moved: HashMap<Seq, Seq, BuildHasherDefault<PairHasher>>,
    window_start: Seq,
}

/// What one replace did, as the ledger needs it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Replaced {
    /// The break it makes, when it placed a node or dropped one.
    pub at: Option<Break>,
    /// Whether the list could not follow it exactly.
    pub lost: bool,
}

const LOST: Replaced = Replaced {
    at: None,
    lost: true,
};

impl Positions {
    /// An empty surface of a window starting at `window_start`, with room for `nodes` nodes
    /// and positions up to `span` after the start.
    pub fn new(window_start: Seq, nodes: usize, span: usize) -> Positions {
        let indexed = span <= nodes.saturating_mul(4);
        // The moved entries grow as replaces come (counting them first would read every event
        // once more).
        let moved = HashMap::default();
        Positions {
            slots: Vec::with_capacity(nodes),
            appended: 0,
            changes: vec![0; nodes],
            // Zeroed memory: no slot yet at any position.
            slot_of: if indexed { vec![0; span] } else { Vec::new() },
            indexed,
            moved,
            window_start,
        }
    }

    /// Appends the node of event `seq` (its position is its seq); returns false when the list
    /// cannot follow (a position not after the last one, or no room left).
    #[inline]
    pub fn append(&mut self, seq: Seq, tokens: u32) -> bool {
        let slot = self.slots.len();
        let last = self.slots.last().map(|last| last.position);
        if last.is_some_and(|last| last >= seq) || slot >= self.changes.len() {
            return false;
        }
        let appended_before = self.appended;
        self.appended = appended_before.saturating_add(u64::from(tokens));
        self.slots.push(Slot {
            position: seq,
            seq,
            tokens,
            node: true,
            next: slot,
            appended_before,
        });
        if self.indexed {
            match (self.distance(seq)).and_then(|distance| self.slot_of.get_mut(distance)) {
                Some(cell) => *cell = slot.saturating_add(1),
                None => {
                    debug_assert!(false, "a window's positions are within its span");
                    self.indexed = false;
                    self.slot_of = Vec::new();
                }
            }
        }
        true
    }

    /// How far `position` is from the window start, when it is not before it.
    fn distance(&self, position: Seq) -> Option<usize> {
        usize::try_from(position.checked_sub(self.window_start)?).ok()
    }

    /// The slot of `position`, when one holds it.
    fn slot(&self, position: Seq) -> Option<usize> {
        if self.indexed {
            let slot = self
                .distance(position)
                .and_then(|d| self.slot_of.get(d).copied())
                .and_then(|slot| slot.checked_sub(1));
            // A moved entry's cell names a slot at another position.
            return slot.filter(|slot| {
                self.slots
                    .get(*slot)
                    .is_some_and(|found| found.position == position)
            });
        }
        self.slots
            .binary_search_by_key(&position, |slot| slot.position)
            .ok()
    }

    /// The number of slots whose position is `<= position`.
    fn slots_through(&self, position: Seq) -> usize {
        match self.slot(position) {
            Some(slot) => slot.saturating_add(1),
            None => self.slots.partition_point(|slot| slot.position <= position),
        }
    }

    /// The tokens of the live entries in slots `0..slot`.
    fn sum_before(&self, slot: usize) -> u64 {
        let appended = self
            .slots
            .get(slot)
            .map_or(self.appended, |found| found.appended_before);
        appended.saturating_add_signed(fenwick_sum(&self.changes, slot))
    }

    /// The slot after `slot` in the walk over live slots.
    fn next_of(&self, slot: usize) -> Option<usize> {
        self.slots.get(slot).map(|found| found.next)
    }

    /// The first live slot at or after `slot` (`slots.len()` when none), pointing the dropped
    /// slots passed straight at it.
    fn live_from(&mut self, slot: usize) -> usize {
        let mut at = slot;
        while let Some(next) = self.next_of(at).filter(|next| *next != at) {
            at = next;
        }
        let found = at;
        let mut at = slot;
        while let Some(walked) = self.slots.get_mut(at) {
            if walked.next == at {
                break;
            }
            at = std::mem::replace(&mut walked.next, found);
        }
        found
    }

    /// Whether slot `at` holds a node.
    fn is_node(&self, at: usize) -> bool {
        self.slots.get(at).is_some_and(|found| found.node)
    }

    /// The position of the live entry of `seq` when it sits in place of others.
    fn moved(&self, seq: Seq) -> Option<Seq> {
        if self.indexed {
            let cell = self
                .distance(seq)
                .and_then(|d| self.slot_of.get(d).copied());
            let slot = cell.and_then(|cell| cell.checked_sub(1));
            let found = slot.and_then(|slot| self.slots.get(slot));
            if let Some(found) = found.filter(|found| found.seq == seq && found.position != seq) {
                return Some(found.position);
            }
        }
        self.moved.get(&seq).copied()
    }

    /// Notes that event `seq`'s entry sits in `slot`, in place of others.
    fn note_moved(&mut self, seq: Seq, slot: usize, position: Seq) {
        if self.indexed {
            let distance = self.distance(seq);
            if let Some(cell) = distance.and_then(|d| self.slot_of.get_mut(d)) {
                if *cell == 0 {
                    *cell = slot.saturating_add(1);
                    return;
                }
                debug_assert!(false, "no appended slot holds a replacing event's seq");
            }
        }
        self.moved.insert(seq, position);
    }

    /// Forgets that event `seq`'s entry sits in `slot` in place of others (it was dropped).
    fn forget_moved(&mut self, seq: Seq, slot: usize) {
        if self.indexed {
            let distance = self.distance(seq);
            if let Some(cell) = distance.and_then(|d| self.slot_of.get_mut(d)) {
                if *cell == slot.saturating_add(1) {
                    *cell = 0;
                    return;
                }
            }
        }
        self.moved.remove(&seq);
    }

    /// Applies event `seq`'s replace of `start..=end`, placing a node of `tokens` when `node`
    /// is given (else an entry that is no node).
    pub fn replace(&mut self, seq: Seq, (start, end): (Seq, Seq), node: Option<u32>) -> Replaced {
        let moved_start = self.moved(start);
        // Most replaces (prunes) replace one entry: its lookups serve both endpoints.
        let moved_end = if end == start {
            moved_start
        } else {
            self.moved(end)
        };
        let unknown = |at: Seq, moved: Option<Seq>| at < self.window_start && moved.is_none();
        if unknown(start, moved_start) || unknown(end, moved_end) {
            return LOST;
        }
        let from = moved_start.unwrap_or(start);
        let to = moved_end.unwrap_or(end);
        let Some(slot) = self.slot(from) else {
            return LOST;
        };
        if from > to || self.next_of(slot) != Some(slot) {
            return LOST;
        }
        let prefix = self.sum_before(slot);
        let last = if to == from {
            slot.saturating_add(1)
        } else {
            self.slots_through(to)
        };
        // The start's slot takes the new entry; the live slots after it in the range drop.
        let mut first_dropped = self.is_node(slot).then_some(from);
        let after = slot.saturating_add(1);
        // The live slots in `after..last` drop as a whole: one change at `after` takes their
        // tokens out of every later sum (no sum inside the range is read again: its slots are
        // dead). Their tokens are summed one by one: a range that ends inside one an earlier
        // replace dropped would take that drop's change at `after` along with it.
        let mut dropped = 0u64;
        let replaced = self.drop_entry(slot);
        let mut at = if after < last {
            self.live_from(after)
        } else {
            last
        };
        while at < last {
            if first_dropped.is_none() && self.is_node(at) {
                first_dropped = self.slots.get(at).map(|found| found.position);
            }
            dropped = dropped.saturating_add(u64::from(self.drop_entry(at)));
            if let Some(dropped) = self.slots.get_mut(at) {
                dropped.next = at.saturating_add(1);
            }
            at = self.live_from(at.saturating_add(1));
        }
        if dropped > 0 {
            let by = i64::try_from(dropped).unwrap_or(i64::MAX);
            fenwick_add(&mut self.changes, after, 0i64.saturating_sub(by));
        }
        self.place(slot, seq, node, replaced);
        if from != seq {
            self.note_moved(seq, slot, from);
        }
        let position = if node.is_some() {
            Some(from)
        } else {
            first_dropped
        };
        Replaced {
            at: position.map(|position| Break { position, prefix }),
            lost: false,
        }
    }

    /// Takes the entry of `slot` out of `moved` and returns its tokens (the caller takes them
    /// out of the sums).
    fn drop_entry(&mut self, slot: usize) -> u32 {
        let Some(dropped) = self.slots.get_mut(slot) else {
            debug_assert!(false, "a live slot exists");
            return 0;
        };
        let tokens = std::mem::take(&mut dropped.tokens);
        if dropped.position != dropped.seq {
            let seq = dropped.seq;
            self.forget_moved(seq, slot);
        }
        tokens
    }

    /// Puts event `seq`'s entry in `slot`, whose entry of `replaced` tokens was dropped.
    fn place(&mut self, slot: usize, seq: Seq, node: Option<u32>, replaced: u32) {
        let tokens = node.unwrap_or(0);
        if let Some(placed) = self.slots.get_mut(slot) {
            placed.seq = seq;
            placed.tokens = tokens;
            placed.node = node.is_some();
            if tokens != replaced {
                let by = i64::from(tokens).saturating_sub(i64::from(replaced));
                fenwick_add(&mut self.changes, slot, by);
            }
        } else {
            debug_assert!(false, "a replace places its node in an existing slot");
        }
    }
}

fn lowbit(index: usize) -> usize {
    index & index.wrapping_neg()
}

// The tree's cells add and subtract in wrapping arithmetic: a sum is exact whenever it fits
// in an `i64` (sums of `u32` tokens over any real log do), whatever its cells went through on
// the way, and the loops carry no overflow checks.

/// The sum of slots `0..count` of a Fenwick tree.
fn fenwick_sum(tree: &[i64], count: usize) -> i64 {
    let mut sum = 0i64;
    let mut index = count.min(tree.len());
    while index > 0 {
        if let Some(cell) = tree.get(index.wrapping_sub(1)) {
            sum = sum.wrapping_add(*cell);
        }
        index = index.wrapping_sub(lowbit(index));
    }
    sum
}

fn fenwick_add(tree: &mut [i64], slot: usize, by: i64) {
    let mut index = slot.saturating_add(1);
    while let Some(cell) = tree.get_mut(index.wrapping_sub(1)) {
        *cell = cell.wrapping_add(by);
        index = index.saturating_add(lowbit(index));
    }
}

/// The tokens request R kept of the previous request P (docs/cache.md, "Kept, new, broken"), both
/// contexts complete: 0 when the route or the tools (`tools`: how R's differ from P's) rule it out,
/// else P's tools plus the common prefix.
pub(super) fn kept(
    before: &Gap,
    gap: &Gap,
    tools: Option<&ToolChanges>,
    before_breakdown: &ContextBreakdown,
    surface: &SurfaceFold,
) -> u32 {
    if !may_keep(before.route == gap.route, tools, gap.series) {
        return 0;
    }
    let nodes = before_breakdown
        .total_tokens
        .saturating_sub(before_breakdown.tools_tokens);
    let prefix = if gap.lost {
        naive_prefix(surface, before.read_seq, gap.read_seq)
    } else {
        gap.brk.map_or(nodes, |brk| {
            u32::try_from(brk.prefix).unwrap_or(u32::MAX).min(nodes)
        })
    };
    before_breakdown.tools_tokens.saturating_add(prefix)
}

/// Whether a request may keep anything of the previous one's prefix (docs/cache.md, "Kept, new,
/// broken"): the same route, and the same tools (`tools` none) or tools added without a series
/// marker between them.
pub(super) fn may_keep(same_route: bool, tools: Option<&ToolChanges>, series: bool) -> bool {
    let Some(tools) = tools else {
        return same_route;
    };
    same_route
        && tools.removed.is_empty()
        && tools.changed.is_empty()
        && (tools.added.is_empty() || !series)
}

/// The tokens of the longest common prefix of the node lists at two read points, compared by
/// seq (the slow way, for logs [`Positions`] cannot follow).
pub(super) fn naive_prefix(surface: &SurfaceFold, before: Seq, after: Seq) -> u32 {
    let old = surface.nodes_at(before);
    let new = surface.nodes_at(after);
    old.iter()
        .zip(&new)
        .take_while(|(a, b)| a.seq == b.seq)
        .fold(0u32, |sum, (node, _)| sum.saturating_add(node.tokens))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_random::seeded;

    #[test]
    fn fenwick_sums_as_a_plain_list() {
        let mut next = seeded(5);
        let mut plain = vec![0i64; 300];
        let mut tree = vec![0i64; 300];
        for _ in 0..2000 {
            let slot = next(300) as usize;
            let by = next(21) as i64 - 10;
            plain[slot] += by;
            fenwick_add(&mut tree, slot, by);
            let count = next(301) as usize;
            assert_eq!(
                fenwick_sum(&tree, count),
                plain[..count].iter().sum::<i64>()
            );
        }
    }

    #[test]
    fn fenwick_sums_stay_exact_when_a_cell_overflows() {
        // Cell 2 covers slots 0 and 1: it passes i64::MAX on the way, the sums still come out.
        let mut tree = vec![0i64; 4];
        fenwick_add(&mut tree, 0, i64::MAX);
        fenwick_add(&mut tree, 1, 10);
        fenwick_add(&mut tree, 0, -i64::MAX);
        assert_eq!(fenwick_sum(&tree, 1), 0);
        assert_eq!(fenwick_sum(&tree, 2), 10);
        assert_eq!(fenwick_sum(&tree, 4), 10);
    }

    #[test]
    fn the_index_and_the_searched_list_agree() {
        // The same appends and replaces, with positions indexed (moved entries in the index)
        // and searched (moved entries in the map): every replace and sum agrees.
        for seed in 0..40 {
            let mut next = seeded(seed);
            let events = 200;
            let mut indexed = Positions::new(1, events, events);
            let mut searched = Positions::new(1, events, events.saturating_mul(5));
            assert!(indexed.indexed && !searched.indexed);
            let mut seqs: Vec<Seq> = Vec::new();
            for seq in 1..=events as Seq {
                if seqs.len() < 3 || next(3) > 0 {
                    let tokens = next(50) as u32;
                    assert_eq!(indexed.append(seq, tokens), searched.append(seq, tokens));
                } else {
                    // Endpoints named by earlier events, replacing ones included.
                    let start = seqs[next(seqs.len() as u64) as usize];
                    let end = seqs[next(seqs.len() as u64) as usize];
                    let node = (next(4) > 0).then(|| next(50) as u32);
                    let a = indexed.replace(seq, (start, end), node);
                    let b = searched.replace(seq, (start, end), node);
                    assert_eq!(a, b, "seed {seed}, replace {seq} of {start}..={end}");
                }
                seqs.push(seq);
                for (at, moved) in seqs.iter().map(|at| (at, indexed.moved(*at))) {
                    assert_eq!(moved, searched.moved(*at), "seed {seed}, seq {at}");
                }
                let count = next(indexed.slots.len() as u64 + 1) as usize;
                assert_eq!(indexed.sum_before(count), searched.sum_before(count));
            }
            assert!(!searched.moved.is_empty() && indexed.moved.is_empty());
        }
    }

    #[test]
    fn live_slots_are_walked_past_dropped_ones() {
        let mut positions = Positions::new(1, 10, 10);
        for seq in 1..=6 {
            assert!(positions.append(seq, 10));
        }
        // Drop 2..=4 into a node at 2: the break is at 2, after 10 tokens.
        let replaced = positions.replace(7, (2, 4), Some(1));
        assert_eq!(
            replaced.at,
            Some(Break {
                position: 2,
                prefix: 10
            })
        );
        assert_eq!(positions.sum_before(6), 10 + 1 + 10 + 10);
        // 2 now names the node of 7; dropping 7..=5 (positions 2..=5) leaves 1 and 6.
        let replaced = positions.replace(8, (7, 5), None);
        assert_eq!(
            replaced.at,
            Some(Break {
                position: 2,
                prefix: 10
            })
        );
        assert_eq!(positions.sum_before(6), 10 + 10);
        assert_eq!(positions.live_from(1), 1);
        assert_eq!(positions.live_from(2), 5, "3, 4 and 5 dropped");
    }
}
