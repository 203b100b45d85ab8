//! What a chat card or a trajectory header compares against, and its diff, made on demand and
//! kept per key while the window compares the same prompts.

use std::cell::RefCell;
use std::rc::Rc;

use crate::fold::request::PromptSnapshot;
use crate::input::shared::same;
use crate::views::chat::{CardKey, CardSource};
use crate::views::diff::{diff_prompts, diff_system, PromptDiff};

use super::Conversation;

/// At most this many diffs are kept; past it the cache starts again (a UI shows a few at once).
const KEPT: usize = 256;

/// The two prompts a diff compares.
#[derive(Clone, Debug)]
enum Compared {
    /// System texts only (an update card).
    Texts(Rc<str>, Rc<str>),
    /// Whole prompts (a request card or a header fact with a change).
    Prompts(PromptSnapshot, PromptSnapshot),
}

impl Compared {
    fn same_as(&self, other: &Compared) -> bool {
        match (self, other) {
            (Compared::Texts(a, b), Compared::Texts(c, d)) => same(a, c) && same(b, d),
            (Compared::Prompts(a, b), Compared::Prompts(c, d)) => a == c && b == d,
            _ => false,
        }
    }

    fn diff(&self) -> PromptDiff {
        match self {
            Compared::Texts(previous, current) => PromptDiff {
                system: diff_system(previous, current),
                ..PromptDiff::default()
            },
            Compared::Prompts(previous, current) => diff_prompts(previous, current),
        }
    }
}

/// Which view a key belongs to (a card and a header fact may share a key).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum View {
    Card,
    Change,
}

/// A diff made, with the prompts it compared.
type Kept = (Compared, Rc<PromptDiff>);

/// The diffs made so far, by view and key (searched in turn: a UI asks for a few at a time).
#[derive(Clone, Debug, Default)]
pub(super) struct DiffCache {
    kept: RefCell<Vec<((View, CardKey), Kept)>>,
}

impl DiffCache {
    /// The diff of `compared` for `key`: the kept one when it compared the same prompts.
    fn get(&self, view: View, key: CardKey, compared: Compared) -> Rc<PromptDiff> {
        let mut kept = self.kept.borrow_mut();
        let at = kept
            .iter()
            .position(|(kept_key, _)| *kept_key == (view, key));
        if let Some((_, (was, diff))) = at.and_then(|at| kept.get(at)) {
            if was.same_as(&compared) {
                return Rc::clone(diff);
            }
        }
        let diff = Rc::new(compared.diff());
        let entry = ((view, key), (compared, Rc::clone(&diff)));
        match at.and_then(|at| kept.get_mut(at)) {
            Some(slot) => *slot = entry,
            None => {
                if kept.len() >= KEPT {
                    kept.clear();
                }
                kept.push(entry);
            }
        }
        diff
    }

    /// Forgets every kept diff.
    pub(super) fn clear(&self) {
        self.kept.borrow_mut().clear();
    }
}

impl Conversation {
    /// What the chat card `key` changed against the prompt the rules compared it with: an
    /// update card against the effective prompt in force just before it (system texts only), a
    /// request card with a change against the change's `previous`. `None` for other cards and
    /// unknown keys. Made on the first call and kept while the window compares the same
    /// prompts; a load, append or prepend that changes them gives a new diff. The `Rc` is the
    /// conversation's own copy, shared without a copy (so it is not `Send`).
    pub fn card_diff(&self, key: CardKey) -> Option<Rc<PromptDiff>> {
        let card = self.analysis.card_by_key(key)?;
        let compared = match key.source {
            CardSource::System => {
                if !card.update {
                    return None;
                }
                let index = self.analysis.state_index(key.seq)?;
                let before = self.analysis.state_by_index(index.checked_sub(1)?)?;
                let previous = before.effective()?;
                Compared::Texts(Rc::clone(&previous.text), Rc::clone(&card.text))
            }
            CardSource::Request => {
                let inspection = self.analysis.request_at(key.seq)?;
                let previous = inspection.change.as_ref()?.previous.clone()?;
                Compared::Prompts(previous, inspection.prompt.clone())
            }
        };
        Some(self.diffs.get(View::Card, key, compared))
    }

    /// What the trajectory header fact `key` changed against its change's `previous` prompt;
    /// `None` when it has no change with a previous prompt, or there is no such header. Kept as
    /// [`Conversation::card_diff`] keeps its diffs.
    pub fn change_diff(&self, key: CardKey) -> Option<Rc<PromptDiff>> {
        let header = self.analysis.header_fact(key)?;
        let previous = header.change?.previous?;
        let compared = Compared::Prompts(previous, header.prompt);
        Some(self.diffs.get(View::Change, key, compared))
    }
}
