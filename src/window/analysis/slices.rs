//! Index ranges of the views, for virtualized lists: the chat cards in chat order (the chat
//! builder keeps that order), the requests with their contexts, and counts.

use std::ops::Range;

use super::{request_context, Analysis};
use crate::input::event::Seq;
use crate::views::chat::ChatCard;
use crate::views::context::RequestContext;
use crate::views::splice::ListSplice;
use crate::views::trajectory::TrajectoryRequest;

impl Analysis {
    /// How many chat cards there are.
    pub fn card_count(&self) -> usize {
        self.chat.len()
    }

    /// Every chat card, in chat order.
    #[cfg(any(feature = "wasm", test))]
    pub fn cards_in_chat(&self) -> impl Iterator<Item = &ChatCard> + '_ {
        self.chat.iter_in_chat()
    }

    /// The chat cards of `range` (clamped), in chat order.
    pub fn cards_in(&self, range: Range<usize>) -> Vec<ChatCard> {
        self.chat.slice(range)
    }

    /// The index in chat order of the last card shown at or before `seq`.
    pub fn card_shown_by(&self, seq: Seq) -> Option<usize> {
        self.chat.last_shown_by(seq)
    }

    /// How many trajectory requests there are.
    pub fn request_count(&self) -> usize {
        self.trajectory.request_count()
    }

    /// The trajectory requests of `range` (clamped), each with its context.
    pub fn requests_in(&self, range: Range<usize>) -> Vec<TrajectoryRequest> {
        let start = range.start;
        let mut requests = self.trajectory.requests(range);
        for (request, index) in requests.iter_mut().zip(start..) {
            debug_assert!(
                index < self.surface.request_count(),
                "every request has a context"
            );
            request.context = self
                .surface
                .request(index)
                .map(request_context)
                .unwrap_or_default();
        }
        requests
    }

    /// The context of request `index`.
    pub fn request_context_of(&self, index: usize) -> Option<RequestContext> {
        self.surface.request(index).map(request_context)
    }

    /// The index of the request whose step holds `seq` (the last one started at or before it).
    pub fn request_holding(&self, seq: Seq) -> Option<usize> {
        self.trajectory.request_holding(seq)
    }

    /// How the cards in chat order changed from `old` (both settled).
    pub fn cards_changed_from(&self, old: &Analysis) -> ListSplice {
        self.chat.splice_from(&old.chat)
    }

    /// The first of the `before` requests that the header facts from index `facts` on change.
    pub fn first_request_touched(&self, facts: usize, before: usize) -> usize {
        self.trajectory.first_request_touched(facts, before)
    }

    /// How many header facts the trajectory has.
    pub fn fact_count(&self) -> usize {
        self.trajectory.fact_count()
    }

    /// Puts the cards in chat order after a prepend and returns how they changed from `old`,
    /// the analysis before it.
    pub(super) fn settle_after(&mut self, old: &Analysis) -> ListSplice {
        self.chat.settle();
        self.chat.splice_from(&old.chat)
    }
}
