//! "Load earlier" at the cost of the page: the page is walked from a fresh analysis, then the
//! window's events only until the walk has converged with the window's own walk; the rest of
//! the old analysis is kept.
//!
//! The walks converge at a relevant event after which both folds are uncertain (an uncertain
//! state stays uncertain, so neither walk adds a node or a card again, and what the chat knows
//! of the latest header and relevant event no longer matters) and everything else either walk
//! carries to the next event is alike: the turn and step of the walk, and the latest header's
//! inspected prompt (for the next inspection, and the trajectory's latest real header and
//! carried synthetic header, which an uncertain relevant event resets from it). Every later
//! event is then derived alike by both walks, so its state (up to the window start it
//! carries), inspection, facts and step start are kept.
//! A window that never converges is walked to its end, as a load would.

use super::{Analysis, Delta};
use crate::input::event::{Seq, SessionEvent};
use crate::views::location::Locator;
use crate::views::splice::ListSplice;
use crate::views::ConversationChange;
use crate::window::analysis::compare::compare_chat;

#[cfg(feature = "testkit")]
thread_local! {
    /// The window events that prepends on this thread walked again.
    pub(crate) static WALKED: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

impl Analysis {
    /// Makes this the analysis of `page` followed by `window`, the events it walked (all newer
    /// than the page), and returns what changed.
    pub fn prepend(
        &mut self,
        page: &[SessionEvent],
        window: &[SessionEvent],
    ) -> ConversationChange {
        // A splice moves the old requests into the new analysis: counted first.
        let requests = self.request_count();
        let mut new = Analysis::new(page.first().map(|event| event.seq));
        let mut ignored = Delta::default();
        for event in page {
            new.walk(event, &mut ignored);
        }
        // The old walk's locations, which its analysis does not keep: caught up only where the
        // walks may converge (a walk that stays certain never needs them).
        let mut old_locator = Locator::default();
        let mut located = 0;
        let mut joined = None;
        for (index, event) in window.iter().enumerate() {
            new.walk(event, &mut ignored);
            if !new.both_uncertain(self, event) {
                continue;
            }
            let through = index.saturating_add(1);
            for passed in window.get(located..through).unwrap_or_default() {
                old_locator.locate(passed);
            }
            located = through;
            if new.locator == old_locator && same_last_header(&new, self, event.seq) {
                joined = Some(event.seq);
                break;
            }
        }
        #[cfg(feature = "testkit")]
        WALKED.with(|count| {
            let walked = if joined.is_some() {
                located
            } else {
                window.len()
            };
            let walked = u64::try_from(walked).unwrap_or(u64::MAX);
            count.set(count.get().saturating_add(walked));
        });
        // The surface fold takes the page by itself (see `SurfaceFold::prepend`).
        let mut surface = std::mem::take(&mut self.surface);
        let contexts_changed = surface.prepend(page, window);
        new.surface = surface;
        let mut change = match joined {
            Some(through) => ConversationChange {
                trajectory_changed: new.splice(self, through) || contexts_changed,
                chat: compare_chat(self, &new),
                torn_tail: None,
                splices: Default::default(),
            },
            // Comparing the trajectories builds both: not when the contexts tell already.
            None => ConversationChange {
                trajectory_changed: contexts_changed
                    || self.trajectory_differs_apart_from_contexts(&new),
                chat: compare_chat(self, &new),
                torn_tail: None,
                splices: Default::default(),
            },
        };
        change.splices.cards = new.settle_after(self);
        change.splices.requests = ListSplice::replaced(requests, new.request_count());
        *self = new;
        change
    }

    /// Whether `event` is relevant and both this walk and `old`'s are uncertain just after it:
    /// where the walks may converge (they have when, besides, the locations and the latest
    /// header are the same).
    fn both_uncertain(&self, old: &Analysis, event: &SessionEvent) -> bool {
        let uncertain = |state: Option<&crate::fold::SystemPromptState>| {
            state.is_some_and(|state| state.is_uncertain())
        };
        event.is_relevant() && uncertain(self.states.last()) && uncertain(old.state_at(event.seq))
    }

    /// Joins `old`'s data of the events after `through` onto this walk, which ends there, and
    /// returns whether the trajectory changed. `old` keeps its cards.
    fn splice(&mut self, old: &mut Analysis, through: Seq) -> bool {
        let cut = old.state_seqs.partition_point(|seq| *seq <= through);
        // The kept states are the old walk's uncertain state: this walk's has its window start.
        if let Some(uncertain) = self.states.last() {
            for state in old.states.get_mut(cut..).unwrap_or_default() {
                *state = uncertain.clone();
            }
        }
        self.state_seqs.append(&mut old.state_seqs.split_off(cut));
        self.states.append(&mut old.states.split_off(cut));
        let cut = old
            .inspections
            .partition_point(|inspected| inspected.seq <= through);
        old.inspections.drain(..cut);
        self.inspections.append(&mut old.inspections);
        self.locator = old.locator.clone();
        self.chat.splice(&mut old.chat);
        self.trajectory.splice(&mut old.trajectory, through)
    }
}

/// Whether both walks' latest header up to `seq` is the same event with the same prompt.
fn same_last_header(new: &Analysis, old: &Analysis, seq: Seq) -> bool {
    let index = old
        .inspections
        .partition_point(|inspected| inspected.seq <= seq);
    let old_last = index
        .checked_sub(1)
        .and_then(|index| old.inspections.get(index));
    match (new.inspections.last(), old_last) {
        (None, None) => true,
        (Some(new), Some(old)) => {
            new.seq == old.seq && new.inspection.prompt == old.inspection.prompt
        }
        _ => false,
    }
}
