//! The node part of the surface fold: every surface node through appends and replacements, the
//! state after every event kept as a version of the [`Segments`].
//!
//! A prepend folds the page into new segments below the window start, replays there the few
//! window replaces whose endpoints the page can move (an endpoint below the window start, or a
//! node the window placed there), and keeps every other segment: its cost follows the page and
//! those replaces, plus a pass of additions over the kept states, not a fold of the window. A
//! replace's effect above the window start depends on the page only through where its endpoints
//! sit; when a replay finds one that sits elsewhere than the window thought (a node placed below
//! the start, dropped there by a range that the page moves, may survive), the prepend is not
//! taken apart and the caller folds everything again.

use super::record::{NodeType, Sums, Survivor};
use super::segments::{combine, Segments};
use super::{node_of, SurfaceSums};
use crate::error::Error;
use crate::front_vec::{FrontVec, Spare};
use crate::input::event::{EventKind, Seq, SessionEvent, SurfaceOp};

/// The node fold of one window.
#[derive(Clone, Debug, Default)]
pub(super) struct NodeFold {
    window_start: Option<Seq>,
    segments: Segments,
    /// The seq of each folded event that was a node or a replace, ascending: the states.
    seqs: FrontVec<Seq>,
    /// The sums of every segment but the lowest after each state.
    upper: FrontVec<Sums>,
    /// The index in `seqs` of the first incomplete state, when there is one.
    incomplete_from: Option<usize>,
    /// The replaces with an endpoint the page of a prepend can move, ascending by seq.
    low_replaces: Vec<LowReplace>,
    /// The seq of every node placed in the lowest segment, ascending.
    low_born: Vec<Seq>,
    /// The seq of every `system/message` appended (not replacing).
    system_appends: FrontVec<Seq>,
    /// System prompts appended while a nonempty one survived, and system prompts that replaced.
    prompts_appended: u32,
    prompts_rewritten: u32,
}

/// A replace whose endpoints a prepend's page can move, as a prepend replays it.
#[derive(Clone, Copy, Debug)]
struct LowReplace {
    by: Replacing,
    start: Seq,
    end: Seq,
    /// The positions its endpoints had when it was folded.
    from: Seq,
    to: Seq,
}

impl NodeFold {
    /// An empty fold of a window that starts at `window_start`.
    pub fn new(window_start: Option<Seq>) -> NodeFold {
        NodeFold {
            window_start,
            segments: Segments::new(window_start.unwrap_or(Seq::MIN)),
            ..NodeFold::default()
        }
    }

    /// The window start.
    pub fn window_start(&self) -> Option<Seq> {
        self.window_start
    }

    /// Adds what this fold keeps on the heap to `profile`.
    #[cfg(feature = "testkit")]
    pub fn heap_profile(&self, profile: &mut crate::heap::HeapProfile) {
        self.segments.heap_profile(profile);
        profile.list("surface state seqs", self.seqs.slots());
        profile.list("surface upper sums", self.upper.slots());
        profile.list("surface low replaces", &self.low_replaces);
        profile.list("surface low replaces", &self.low_born);
        profile.list("surface system appends", self.system_appends.slots());
    }

    /// Room for `states` more states ([`Error::OutOfMemory`] when the memory cannot give it).
    pub fn reserve(&mut self, states: usize) -> Result<(), Error> {
        self.seqs.try_reserve(states)?;
        self.upper.try_reserve(states)?;
        self.segments.reserve(states)
    }

    /// Folds `event`, which follows every event folded.
    pub fn fold(&mut self, event: &SessionEvent) {
        let node = node_of(event);
        let replace = match event.surface_op() {
            Some(SurfaceOp::Replace { start, end }) => Some((start, end)),
            _ => None,
        };
        if node.is_none() && replace.is_none() {
            return;
        }
        let (node, tokens) = node.unzip();
        let tokens = tokens.unwrap_or(0);
        if let EventKind::SystemMessage { .. } = event.kind {
            match replace {
                Some(_) => self.prompts_rewritten = self.prompts_rewritten.saturating_add(1),
                None => {
                    if self.tip_sums().latest_system > 0 {
                        self.prompts_appended = self.prompts_appended.saturating_add(1);
                    }
                    self.system_appends.push(event.seq);
                }
            }
        }
        let replacing = Replacing {
            seq: event.seq,
            node,
            tokens,
        };
        match replace {
            Some((start, end)) => {
                if self.replace(&replacing, start, end) && self.incomplete_from.is_none() {
                    self.incomplete_from = Some(self.seqs.len());
                }
            }
            None => self.segments.add(event.seq, event.seq, node, tokens),
        }
        self.seqs.push(event.seq);
        self.upper.push(self.segments.upper_tip_sums());
    }

    /// Applies a replace from `start` to `end` by `replacing`, and returns whether an endpoint
    /// was unknown (before the window start).
    fn replace(&mut self, replacing: &Replacing, start: Seq, end: Seq) -> bool {
        let unknown = self.unknown(start) || self.unknown(end);
        let from = self.segments.moved(start).unwrap_or(start);
        // A replace of one node (a prune) has one endpoint: one search.
        let to = if end == start {
            from
        } else {
            self.segments.moved(end).unwrap_or(end)
        };
        self.apply(replacing, start, end, (from, to), true);
        unknown
    }

    /// Whether `seq`, an endpoint, is before the window start and unknown.
    fn unknown(&self, seq: Seq) -> bool {
        seq < self.window_start.unwrap_or(Seq::MIN) && self.segments.moved(seq).is_none()
    }

    /// Applies a replace whose endpoints sit at `from` and `to`: drops that range, places the
    /// node at `from` unless `place` is false (a replay whose node sits above this fold), and
    /// keeps the replace for a prepend when the page can move an endpoint.
    fn apply(
        &mut self,
        replacing: &Replacing,
        start: Seq,
        end: Seq,
        (from, to): (Seq, Seq),
        place: bool,
    ) {
        let ceiling = self.segments.ceiling();
        let born_low = |seq: &Seq| self.low_born.binary_search(seq).is_ok();
        if from < ceiling || to < ceiling || born_low(&start) || born_low(&end) {
            self.low_replaces.push(LowReplace {
                by: *replacing,
                start,
                end,
                from,
                to,
            });
        }
        self.segments.drop_range(replacing.seq, from, to);
        if place {
            self.segments
                .add(from, replacing.seq, replacing.node, replacing.tokens);
            if from < ceiling {
                self.low_born.push(replacing.seq);
            }
        }
    }

    /// Replays `replace`, folded above `ceiling` (this fold's events all come before it), and
    /// returns whether an endpoint was unknown; `None` when its endpoints now sit where its
    /// effect above `ceiling` differs from the effect it had.
    fn replay(&mut self, replace: &LowReplace, ceiling: Seq) -> Option<bool> {
        let unknown = self.unknown(replace.start) || self.unknown(replace.end);
        // Where an endpoint sits now: a node this fold placed, or else (not surviving here) at
        // its own seq if it sat below the ceiling, or where it sat.
        let now = |seq: Seq, then: Seq| {
            let own = if then < ceiling { seq } else { then };
            self.segments.moved(seq).unwrap_or(own)
        };
        let (from, to) = (
            now(replace.start, replace.from),
            now(replace.end, replace.to),
        );
        let above =
            |from: Seq, to: Seq| (to >= ceiling && from <= to).then(|| (from.max(ceiling), to));
        let placed_below = from < ceiling;
        let same_node =
            placed_below == (replace.from < ceiling) && (placed_below || from == replace.from);
        if !same_node || above(from, to) != above(replace.from, replace.to) {
            return None;
        }
        self.apply(
            &replace.by,
            replace.start,
            replace.end,
            (from, to),
            placed_below,
        );
        Some(unknown)
    }

    /// The sums of the tip.
    fn tip_sums(&self) -> Sums {
        combine(
            self.upper.last().copied().unwrap_or_default(),
            self.segments.lowest_tip_sums(),
        )
    }

    /// The index of the state in force at `seq` (after every folded event with seq `<= seq`).
    fn index(&self, seq: Seq) -> Option<usize> {
        self.seqs
            .partition_point(|folded| *folded <= seq)
            .checked_sub(1)
    }

    /// The sums of the state at `index`, which is the state at `seq`.
    fn sums_of(&self, index: Option<usize>, seq: Seq) -> SurfaceSums {
        let upper = index.and_then(|index| self.upper.get(index)).copied();
        SurfaceSums {
            sums: combine(upper.unwrap_or_default(), self.segments.lowest_sums_at(seq)),
            tools: 0,
            incomplete: index
                .zip(self.incomplete_from)
                .is_some_and(|(index, from)| index >= from),
        }
    }

    /// The sums of the context at `seq` (its tools left 0).
    pub fn sums_at(&self, seq: Seq) -> SurfaceSums {
        match self.seqs.last() {
            // The tip, which a fold reads at every request: no search.
            Some(last) if *last <= seq => SurfaceSums {
                sums: self.tip_sums(),
                tools: 0,
                incomplete: self.incomplete_from.is_some(),
            },
            _ => self.sums_of(self.index(seq), seq),
        }
    }

    /// The sums of the context at `seq`, and the number of states in force there, counted on
    /// from `from` (a number of states in force at an earlier seq): a walk of ascending seqs
    /// reads each state once.
    pub fn sums_from(&self, from: usize, seq: Seq) -> (usize, SurfaceSums) {
        let mut count = from;
        while self.seqs.get(count).is_some_and(|folded| *folded <= seq) {
            count = count.saturating_add(1);
        }
        (count, self.sums_of(count.checked_sub(1), seq))
    }

    /// The nodes of the context at `seq`, in surface order.
    pub fn nodes_at(&self, seq: Seq) -> Vec<Survivor> {
        if self.index(seq).is_none() {
            return Vec::new();
        }
        self.segments.nodes_at(seq)
    }

    /// The counts of system prompts appended as updates and written as replacements.
    pub fn prompt_changes(&self) -> (u32, u32) {
        (self.prompts_appended, self.prompts_rewritten)
    }

    /// Makes this the fold of `page` followed by every event folded, `page` ending before the
    /// window start, and returns true; or returns false, unchanged, when a replace's effect
    /// above the window start changes (see the module's text).
    #[must_use]
    pub fn prepend(&mut self, page: &[SessionEvent]) -> bool {
        let (Some(first), Some(start)) = (page.first(), self.window_start) else {
            return page.is_empty();
        };
        debug_assert!(
            page.last().is_some_and(|last| last.seq < start),
            "a page ends before the window start"
        );
        let mut low = NodeFold::new(Some(first.seq));
        // Only capacity: the page's lists grow as they need when it cannot be had.
        let _ = low.reserve(page.len());
        for event in page {
            low.fold(event);
        }
        let page_states = low.seqs.len();
        let ceiling = self.segments.ceiling();
        let mut first_unknown = None;
        // What the page's segment above its lowest holds after the page, then after each
        // replay: it is below every kept segment, so each kept state gains what it held then.
        let mut held = low.upper.last().copied().unwrap_or_default();
        let mut replayed = Vec::with_capacity(self.low_replaces.len());
        for replace in &self.low_replaces {
            match low.replay(replace, ceiling) {
                None => return false,
                Some(true) if first_unknown.is_none() => first_unknown = Some(replace.by.seq),
                Some(_) => {}
            }
            replayed.push((replace.by.seq, low.segments.upper_tip_sums()));
        }
        let mut next = 0;
        for (seq, kept) in self.seqs.iter().zip(self.upper.iter_mut()) {
            while let Some((_, sums)) = replayed.get(next).filter(|(at, _)| at <= seq) {
                held = *sums;
                next = next.saturating_add(1);
            }
            *kept = combine(*kept, held);
        }
        self.seqs.prepend(low.seqs.into_vec());
        self.upper.prepend(low.upper.into_vec());
        self.segments.put_below(low.segments);
        self.window_start = Some(first.seq);
        self.incomplete_from = match (low.incomplete_from, first_unknown) {
            (Some(index), _) => Some(index),
            (None, Some(seq)) => self.index(seq),
            (None, None) => None,
        };
        debug_assert!(
            (first_unknown.and_then(|seq| self.index(seq)))
                .is_none_or(|index| index >= page_states),
            "a replayed replace is a kept state"
        );
        self.low_replaces = low.low_replaces;
        self.low_born = low.low_born;
        self.prompts_rewritten = self.prompts_rewritten.saturating_add(low.prompts_rewritten);
        self.prompts_appended = low.prompts_appended;
        for seq in self.system_appends.iter() {
            if self.sums_at(seq.saturating_sub(1)).sums.latest_system > 0 {
                self.prompts_appended = self.prompts_appended.saturating_add(1);
            }
        }
        self.system_appends.prepend(low.system_appends.into_vec());
        true
    }
}

/// The event a replace belongs to, and its node.
#[derive(Clone, Copy, Debug)]
struct Replacing {
    seq: Seq,
    node: Option<NodeType>,
    tokens: u32,
}

impl Spare for Seq {
    fn spare() -> Seq {
        0
    }
}

impl Spare for Sums {
    fn spare() -> Sums {
        Sums::default()
    }
}
