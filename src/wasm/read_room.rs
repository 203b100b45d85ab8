//! The memory a read call (`views`, `lines`, the slices, `cacheLedger`) is about to take,
//! checked before it builds anything: the rows it lists are its large allocations, and near the
//! memory limit one of them would abort the module (and every conversation in it). With the
//! room checked first ([`headroom`]: the block is had and given back, so the allocator keeps it
//! for the call's lists), the call fails with [`Error::OutOfMemory`] instead and changes
//! nothing. The numbers that cross to JS are reserved on their own once their count is known
//! (`Outgoing::try_with_capacity`).

use std::mem::size_of;

use crate::error::Error;
use crate::room::headroom;
use crate::seq::Seq;
use crate::views::cache::CacheEntry;
use crate::views::chat::ChatCard;
use crate::views::trajectory::{HeaderFact, TrajectoryRequest};
use crate::views::EventLine;
use crate::PositionedSystem;

/// How many times the rows' own size a call may hold at once: a list that grows by doubling
/// holds the old and the new block while it moves, and a sort takes keys beside its list.
const SLACK: usize = 2;

/// `rows` rows of `bytes` each, with [`SLACK`].
fn rows(rows: usize, bytes: usize) -> usize {
    rows.saturating_mul(bytes).saturating_mul(SLACK)
}

/// Room for `views()` of a window with `cards` cards and `requests` requests. Its lists are made
/// at their length, so without [`SLACK`] (which grew the memory a `views()` of prune-32k leaves
/// by 15%): the cards with a sort key and a swap each (`sort::sort_by_key` swaps them in
/// place), and per request the request, its header fact and its step's entry.
pub(super) fn for_views(cards: usize, requests: usize) -> Result<(), Error> {
    let card = size_of::<ChatCard>()
        .saturating_add(size_of::<(crate::sort::Key, usize)>())
        .saturating_add(size_of::<(usize, usize)>());
    let request = size_of::<TrajectoryRequest>()
        .saturating_add(size_of::<HeaderFact>())
        .saturating_add(size_of::<[usize; 4]>());
    let bytes = cards.saturating_mul(card);
    headroom(bytes.saturating_add(requests.saturating_mul(request)))
}

/// Room for `count` chat cards.
pub(super) fn for_cards(count: usize) -> Result<(), Error> {
    headroom(rows(count, size_of::<ChatCard>()))
}

/// Room for `count` requests of a window of `total` (the first slice of a window whose facts
/// are out of their steps links every request: a few words each).
pub(super) fn for_requests(count: usize, total: usize) -> Result<(), Error> {
    let links = rows(total, size_of::<[usize; 4]>());
    headroom(rows(count, size_of::<TrajectoryRequest>()).saturating_add(links))
}

/// Room for `count` event lines, each with a state of about `(nodes, replacements)` system
/// prompt nodes and replacements (each line's state is its own copy of them: a window of 32,000
/// prunes holds 32,000 replacements from its end, and its lines would take about 50 GB).
pub(super) fn for_lines(count: usize, (nodes, replacements): (usize, usize)) -> Result<(), Error> {
    let nodes = nodes.saturating_mul(size_of::<PositionedSystem>());
    let replacements = replacements.saturating_mul(size_of::<(Seq, Seq)>());
    let line = size_of::<EventLine>()
        .saturating_add(nodes)
        .saturating_add(replacements);
    headroom(rows(count, line))
}

/// Room for a cache ledger of `requests` entries as it is computed (the numbers that cross to
/// JS are reserved apart).
pub(super) fn for_ledger(requests: usize) -> Result<(), Error> {
    headroom(rows(requests, size_of::<CacheEntry>()))
}
