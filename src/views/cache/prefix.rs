//! The longest common prefix of two requests' node lists, in positions and token sums.
//!
//! Appends only add at the end of the surface, so request R's nodes begin with every node of
//! the previous request P that sits before the first position a replace between their read
//! points touched (the break): its start position when it places a node, else the first node it
//! dropped. The prefix's tokens are the token sum of the positions before the break at the
//! moment of that replace, which no earlier replace between the two read points changed.
//!
//! [`Positions`] keeps the surface's positions in a list sorted by position with two Fenwick
//! trees (tokens, and whether a slot holds a live entry), so a replace costs O(log n) per entry
//! it drops and a prefix sum O(log n). A log whose replaces the list cannot follow exactly (an
//! endpoint that is no live entry, a start after its end) switches the ledger to comparing node
//! lists for the requests after it.

use std::collections::HashMap;

use super::gaps::Gap;
use crate::fold::surface::SurfaceFold;
use crate::input::event::Seq;
use crate::views::context::ContextBreakdown;

/// Where the first replace between two read points broke the previous request's prefix.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Break {
    /// The break's position.
    pub position: Seq,
    /// The tokens of the nodes before it.
    pub prefix: u64,
}

/// The live entries of the surface by position, with token sums (see the module text).
#[derive(Clone, Debug, Default)]
pub(super) struct Positions {
    positions: Vec<Seq>,
    seqs: Vec<Seq>,
    tokens: Vec<u32>,
    /// Whether the slot's live entry is a node (a replace by an event that is no surface node
    /// leaves an entry that is none).
    node: Vec<bool>,
    alive: Vec<bool>,
    /// Fenwick trees over the slots: token sums and live-entry counts.
    token_tree: Vec<u64>,
    count_tree: Vec<u32>,
    /// The position of each live entry that sits in place of others, by seq.
    moved: HashMap<Seq, Seq>,
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

impl Positions {
    /// An empty surface of a window starting at `window_start`, with room for `nodes` nodes.
    pub fn new(window_start: Seq, nodes: usize) -> Positions {
        Positions {
            positions: Vec::with_capacity(nodes),
            seqs: Vec::with_capacity(nodes),
            tokens: Vec::with_capacity(nodes),
            node: Vec::with_capacity(nodes),
            alive: Vec::with_capacity(nodes),
            token_tree: Vec::with_capacity(nodes),
            count_tree: Vec::with_capacity(nodes),
            window_start,
            ..Positions::default()
        }
    }

    /// Appends the node of event `seq` (its position is its seq); returns false when the list
    /// cannot follow (a position not after the last one).
    pub fn append(&mut self, seq: Seq, tokens: u32) -> bool {
        if self.positions.last().is_some_and(|last| *last >= seq) {
            return false;
        }
        self.positions.push(seq);
        self.seqs.push(seq);
        self.tokens.push(tokens);
        self.node.push(true);
        self.alive.push(true);
        fenwick_push(&mut self.token_tree, u64::from(tokens));
        fenwick_push(&mut self.count_tree, 1);
        true
    }

    /// Applies event `seq`'s replace of `start..=end`, placing a node of `tokens` when `node`
    /// is given (else an entry that is no node).
    pub fn replace(&mut self, seq: Seq, (start, end): (Seq, Seq), node: Option<u32>) -> Replaced {
        let unknown = |at: Seq| at < self.window_start && !self.moved.contains_key(&at);
        if unknown(start) || unknown(end) {
            return Replaced {
                at: None,
                lost: true,
            };
        }
        let from = self.moved.get(&start).copied().unwrap_or(start);
        let to = self.moved.get(&end).copied().unwrap_or(end);
        let Ok(slot) = self.positions.binary_search(&from) else {
            return Replaced {
                at: None,
                lost: true,
            };
        };
        if from > to || self.alive.get(slot) != Some(&true) {
            return Replaced {
                at: None,
                lost: true,
            };
        }
        let prefix = fenwick_sum(&self.token_tree, slot);
        let last = self.positions.partition_point(|position| *position <= to);
        let mut first_dropped = None;
        let mut at = slot;
        while let Some(next) = self.next_alive(at).filter(|next| *next < last) {
            if first_dropped.is_none() && self.node.get(next) == Some(&true) {
                first_dropped = self.positions.get(next).copied();
            }
            self.kill(next);
            at = next.saturating_add(1);
        }
        self.place(slot, seq, node);
        if from != seq {
            self.moved.insert(seq, from);
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

    /// The first live slot at or after `slot`.
    fn next_alive(&self, slot: usize) -> Option<usize> {
        let before = fenwick_sum(&self.count_tree, slot);
        fenwick_find(&self.count_tree, before.saturating_add(1))
    }

    fn kill(&mut self, slot: usize) {
        let (Some(alive), Some(tokens), Some(position), Some(seq)) = (
            self.alive.get_mut(slot),
            self.tokens.get(slot),
            self.positions.get(slot),
            self.seqs.get(slot),
        ) else {
            debug_assert!(false, "a live slot exists");
            return;
        };
        *alive = false;
        fenwick_add(
            &mut self.token_tree,
            slot,
            0i64.saturating_sub(i64::from(*tokens)),
        );
        fenwick_add(&mut self.count_tree, slot, -1);
        if position != seq {
            self.moved.remove(seq);
        }
    }

    fn place(&mut self, slot: usize, seq: Seq, node: Option<u32>) {
        let tokens = node.unwrap_or(0);
        if let (Some(alive), Some(slot_seq), Some(slot_tokens), Some(slot_node)) = (
            self.alive.get_mut(slot),
            self.seqs.get_mut(slot),
            self.tokens.get_mut(slot),
            self.node.get_mut(slot),
        ) {
            *alive = true;
            *slot_seq = seq;
            *slot_tokens = tokens;
            *slot_node = node.is_some();
            fenwick_add(&mut self.token_tree, slot, i64::from(tokens));
            fenwick_add(&mut self.count_tree, slot, 1);
        } else {
            debug_assert!(false, "a replace places its node in an existing slot");
        }
    }
}

/// Fenwick tree cells: sums of `(i - lowbit(i), i]` over 1-based slots.
trait Cell: Copy + Default {
    fn plus(self, other: Self) -> Self;
    fn minus(self, other: Self) -> Self;
    fn shift(self, by: i64) -> Self;
}

impl Cell for u64 {
    fn plus(self, other: u64) -> u64 {
        self.wrapping_add(other)
    }
    fn minus(self, other: u64) -> u64 {
        self.wrapping_sub(other)
    }
    fn shift(self, by: i64) -> u64 {
        self.wrapping_add_signed(by)
    }
}

impl Cell for u32 {
    fn plus(self, other: u32) -> u32 {
        self.wrapping_add(other)
    }
    fn minus(self, other: u32) -> u32 {
        self.wrapping_sub(other)
    }
    fn shift(self, by: i64) -> u32 {
        // Counts move by one.
        if by < 0 {
            self.wrapping_sub(1)
        } else {
            self.wrapping_add(1)
        }
    }
}

fn lowbit(index: usize) -> usize {
    index & index.wrapping_neg()
}

/// Appends slot `tree.len()` holding `value`.
fn fenwick_push<T: Cell>(tree: &mut Vec<T>, value: T) {
    let index = tree.len().saturating_add(1);
    // The cell covers `(index - lowbit, index]`: the value plus the slots before it there.
    let covered = fenwick_sum(tree, index.saturating_sub(1))
        .minus(fenwick_sum(tree, index.saturating_sub(lowbit(index))));
    tree.push(value.plus(covered));
}

/// The sum of slots `0..count`.
fn fenwick_sum<T: Cell>(tree: &[T], count: usize) -> T {
    let mut sum = T::default();
    let mut index = count.min(tree.len());
    while index > 0 {
        if let Some(cell) = tree.get(index.wrapping_sub(1)) {
            sum = sum.plus(*cell);
        }
        index = index.wrapping_sub(lowbit(index));
    }
    sum
}

fn fenwick_add<T: Cell>(tree: &mut [T], slot: usize, by: i64) {
    let mut index = slot.saturating_add(1);
    while let Some(cell) = tree.get_mut(index.wrapping_sub(1)) {
        *cell = cell.shift(by);
        index = index.saturating_add(lowbit(index));
    }
}

/// The slot holding the `rank`-th live entry (1-based rank), when there is one.
fn fenwick_find(tree: &[u32], rank: u32) -> Option<usize> {
    let mut step = tree.len().checked_next_power_of_two()?;
    let mut at = 0usize;
    let mut left = rank;
    while step > 0 {
        let next = at.saturating_add(step);
        if let Some(cell) = tree.get(next.wrapping_sub(1)) {
            if *cell < left {
                at = next;
                left = left.wrapping_sub(*cell);
            }
        }
        step /= 2;
    }
    (at < tree.len()).then_some(at)
}

/// The tokens request R kept of the previous request P (SPEC 11 item 2), both contexts
/// complete: 0 when the route or the tools rule it out, else P's tools plus the common prefix.
pub(super) fn kept(
    before: &Gap,
    gap: &Gap,
    before_breakdown: &ContextBreakdown,
    surface: &SurfaceFold,
) -> u32 {
    if before.route != gap.route {
        return 0;
    }
    let tools = super::tools::compare(before.header.as_deref(), gap.header.as_deref());
    if !tools.removed.is_empty() || !tools.changed.is_empty() {
        return 0;
    }
    if !tools.added.is_empty() && gap.series {
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
    fn fenwick_sums_and_finds_as_a_plain_list() {
        let mut next = seeded(5);
        let mut plain: Vec<u32> = Vec::new();
        let mut tree: Vec<u32> = Vec::new();
        for _ in 0..300 {
            let value = (next(2)) as u32;
            plain.push(value);
            fenwick_push(&mut tree, value);
            if next(3) == 0 {
                let slot = next(plain.len() as u64) as usize;
                if plain[slot] == 1 {
                    plain[slot] = 0;
                    fenwick_add(&mut tree, slot, -1);
                } else {
                    plain[slot] = 1;
                    fenwick_add(&mut tree, slot, 1);
                }
            }
            for count in 0..=plain.len() {
                assert_eq!(
                    fenwick_sum(&tree, count),
                    plain[..count].iter().sum::<u32>()
                );
            }
            let live: Vec<usize> = (0..plain.len()).filter(|i| plain[*i] == 1).collect();
            for (rank, slot) in live.iter().enumerate() {
                assert_eq!(fenwick_find(&tree, rank as u32 + 1), Some(*slot));
            }
            assert_eq!(fenwick_find(&tree, live.len() as u32 + 1), None);
        }
    }
}
