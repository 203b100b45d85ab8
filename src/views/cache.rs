//! The cache ledger (docs/cache.md): per request, what its prompt kept of the previous
//! request's prefix, why the rest was lost, what the log says the provider read, and what it
//! cost; and a summary over the window.
//!
//! The ledger reads what the window already resolved: each request's context (its read point,
//! token breakdown and answer), the events between read points (headers, replaces, in-history
//! updates) and the fold states. It never folds the prompt again; the longest common prefix of
//! two requests comes from the positions the replaces between them touched ([`prefix`]).

mod causes;
mod cost;
pub(crate) mod forward;
mod gaps;
mod observed;
mod options;
mod prefix;
mod summary;
mod tools;

use std::rc::Rc;

use serde::Serialize;

pub use causes::{CacheCause, Route};
pub use options::{CacheOptions, Prices, TokenPrices};

use crate::fold::surface::SurfaceFold;
use crate::fold::SystemPromptState;
use crate::input::event::{Seq, SessionEvent};
use crate::views::context::ContextBreakdown;

/// The ledger of a window: one entry per trajectory request, in the same order, and a summary.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[non_exhaustive]
pub struct CacheLedger {
    /// `requests[i]` belongs to `views().trajectory.requests[i]`.
    pub requests: Vec<CacheEntry>,
    /// Sums and rates over the window's requests.
    pub summary: CacheSummary,
}

/// What one request kept of the prefix cache, why the rest was lost, and what it cost.
///
/// `keptTokens`, `newTokens` and `brokenTokens` are absent (unknown, never 0) for the
/// window's first request and when this request's or the previous one's context is incomplete.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[non_exhaustive]
pub struct CacheEntry {
    /// The request's seq (its `step/start`).
    pub seq: Seq,
    /// Where its context is read (its request context's `seq`).
    pub read_seq: Seq,
    /// `config.provider` and `config.model` of the latest request header at the read point;
    /// absent before any header.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "wasm", tsify(optional))]
    pub route: Option<Route>,
    /// The estimated tokens of the request's prompt (its context's `totalTokens`).
    pub total_tokens: u32,
    /// Its surviving system prompts other than the one in force.
    pub superseded_system_tokens: u32,
    /// Its tools.
    pub tools_tokens: u32,
    /// The previous request's tools plus the longest common prefix of both node lists; 0 when
    /// the route changed or the tools changed other than by additions (or by additions with a
    /// series marker).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "wasm", tsify(optional))]
    pub kept_tokens: Option<u32>,
    /// The request's total tokens minus its kept tokens.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "wasm", tsify(optional))]
    pub new_tokens: Option<u32>,
    /// The previous request's total tokens minus this request's kept tokens: what it held that
    /// this one could not reuse (0: this request only appended).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "wasm", tsify(optional))]
    pub broken_tokens: Option<u32>,
    /// Why the cache broke, in the order of the cause kinds: `route`, `tools`, `system-rewrite`,
    /// `compaction`, `prune`, `replacement`, `series`, then `idle`.
    pub causes: Vec<CacheCause>,
    /// What the answer's `usage` says.
    pub observed: CacheObserved,
    /// The kept tokens minus the observed cache reads: cache the structure kept that the
    /// provider did not report reading (negative when it read more).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "wasm", tsify(optional))]
    pub shortfall_tokens: Option<f64>,
    /// With an in-history update since the previous request and no cause: what a rewrite at
    /// the head would have lost (the kept tokens minus the previous request's tools).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "wasm", tsify(optional))]
    pub saved_tokens: Option<u32>,
    /// The request's cost, when prices are given for its model or as a default.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "wasm", tsify(optional))]
    pub cost: Option<CacheCost>,
}

impl CacheEntry {
    /// Resets every member for the next request, as [`CacheEntry::default`] has it, keeping
    /// the room of `causes` (why the ledger reuses one entry).
    pub(crate) fn reset(&mut self) {
        // Member by member, each named (no `..`): a new member does not compile until it is reset
        // here, and the old entry is not dropped as a whole (11% more instructions in the ledger).
        let CacheEntry {
            seq,
            read_seq,
            route,
            total_tokens,
            superseded_system_tokens,
            tools_tokens,
            kept_tokens,
            new_tokens,
            broken_tokens,
            causes,
            observed,
            shortfall_tokens,
            saved_tokens,
            cost,
        } = self;
        // The members that own memory first: dropping them may call the allocator, and a store
        // before such a call stays even where the caller overwrites the member right after.
        *route = None;
        *cost = None;
        // `clear` calls the elements' drop even when there is none (0.9% of the ledger).
        if !causes.is_empty() {
            causes.clear();
        }
        *seq = Seq::default();
        *read_seq = Seq::default();
        *total_tokens = 0;
        *superseded_system_tokens = 0;
        *tools_tokens = 0;
        *kept_tokens = None;
        *new_tokens = None;
        *broken_tokens = None;
        *observed = CacheObserved::default();
        *shortfall_tokens = None;
        *saved_tokens = None;
    }
}

/// The answer's token usage as the log has it: each member absent when the log lacks it or it
/// is not a finite number `>= 0` (unknown is never 0).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[non_exhaustive]
pub struct CacheObserved {
    /// `usage.inputTokens`: by the harness's convention, uncached input only.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "wasm", tsify(optional))]
    pub input_tokens: Option<f64>,
    /// `usage.outputTokens`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "wasm", tsify(optional))]
    pub output_tokens: Option<f64>,
    /// `usage.cacheReadTokens`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "wasm", tsify(optional))]
    pub cache_read_tokens: Option<f64>,
    /// `usage.cacheWriteTokens`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "wasm", tsify(optional))]
    pub cache_write_tokens: Option<f64>,
    /// The input the provider did not read from its cache (`inputTokens`, see docs/cache.md).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "wasm", tsify(optional))]
    pub uncached_input_tokens: Option<f64>,
}

/// A request's cost in the caller's currency, by part.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[non_exhaustive]
pub struct CacheCost {
    /// Uncached input.
    pub input: f64,
    /// Input read from the cache.
    pub cache_read: f64,
    /// Input written to the cache.
    pub cache_write: f64,
    /// Output.
    pub output: f64,
    /// The sum of the parts.
    pub total: f64,
    /// Whether a part used the estimates (`newTokens` at the input price, `keptTokens` at the
    /// cache-read price) or left out output the log does not report.
    pub estimated: bool,
    /// The key of `prices.models` used; absent when the default prices were used.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "wasm", tsify(optional))]
    pub model: Option<String>,
}

pub use summary::{
    CacheBreaks, CacheSummary, CacheTrade, ObservedCounts, ObservedSums, SummaryCost,
};

/// What the ledger reads of a window.
pub(crate) struct LedgerInput<'a> {
    /// The window's events, ascending by seq.
    pub events: &'a [SessionEvent],
    /// The window's surface fold (request contexts, and node lists for the rare fallback).
    pub surface: &'a SurfaceFold,
    /// The fold state after every relevant event with seq `<= seq`.
    pub state_at: &'a dyn Fn(Seq) -> Option<&'a SystemPromptState>,
}

/// A window's ledger as the ledger computes it: the entries without their routes and causes,
/// which sit beside them (a route shared by every request that reads its header, the causes in
/// one list), so that a request costs no allocation of its own.
#[derive(Clone, Debug, Default)]
pub(crate) struct LedgerRows {
    /// One per request, `route` absent and `causes` empty.
    pub entries: Vec<CacheEntry>,
    /// `routes[i]`: the route of request `i`.
    pub routes: Vec<Option<Rc<Route>>>,
    /// Every request's causes, in request order.
    pub causes: Vec<CacheCause>,
    /// `causes_end[i]`: the end of request `i`'s causes in `causes`.
    pub causes_end: Vec<usize>,
    /// The summary.
    pub summary: CacheSummary,
}

impl LedgerRows {
    /// The ledger with every entry's route and causes in place.
    pub fn into_ledger(self) -> CacheLedger {
        let LedgerRows {
            mut entries,
            routes,
            causes,
            causes_end,
            summary,
        } = self;
        let mut causes = causes.into_iter();
        let mut start = 0;
        for ((entry, route), end) in entries.iter_mut().zip(routes).zip(causes_end) {
            entry.route = route.as_deref().cloned();
            entry.causes = causes.by_ref().take(end.saturating_sub(start)).collect();
            start = end;
        }
        CacheLedger {
            requests: entries,
            summary,
        }
    }
}

/// Where [`ledger_into`] puts each request's entry as soon as it is made.
pub(crate) trait LedgerSink {
    /// Takes the entry of the next request (its `route` absent, its cost's `model` absent and
    /// its `causes` empty), its route, the key of `prices.models` its cost used (the cost's
    /// `model`) and its causes (each of which it may move out: the ledger makes the next entry
    /// afresh and clears the list after). By reference, so that a sink that only reads the
    /// entry does not copy it; the ledger fills the same entry for the next request, so a sink
    /// leaves its route absent and its causes empty (taking the whole entry does).
    fn entry(
        &mut self,
        entry: &mut CacheEntry,
        route: Option<&Rc<Route>>,
        cost_model: Option<&str>,
        causes: &mut Vec<CacheCause>,
    );
}

impl LedgerSink for LedgerRows {
    fn entry(
        &mut self,
        entry: &mut CacheEntry,
        route: Option<&Rc<Route>>,
        cost_model: Option<&str>,
        causes: &mut Vec<CacheCause>,
    ) {
        if let (Some(cost), Some(model)) = (&mut entry.cost, cost_model) {
            cost.model = Some(model.to_owned());
        }
        self.entries.push(std::mem::take(entry));
        self.routes.push(route.cloned());
        self.causes.append(causes);
        self.causes_end.push(self.causes.len());
    }
}

impl LedgerRows {
    /// Empty rows with room for `count` requests.
    pub fn with_capacity(count: usize) -> LedgerRows {
        LedgerRows {
            entries: Vec::with_capacity(count),
            routes: Vec::with_capacity(count),
            // Room for one cause per request: most requests list none or one.
            causes: Vec::with_capacity(count),
            causes_end: Vec::with_capacity(count),
            summary: CacheSummary::default(),
        }
    }
}

/// The ledger of a window, with options already checked ([`CacheOptions::check`]): each
/// request's entry goes to `sink` as soon as it is made, in request order (as many as
/// `input.surface.request_count()`); returns the summary.
// Not inlined, so that a profiler can tell it from its callers (`--toggle-collect`).
#[inline(never)]
pub(crate) fn ledger_into(
    input: &LedgerInput<'_>,
    options: &CacheOptions,
    sink: &mut dyn LedgerSink,
) -> CacheSummary {
    let mut summing = summary::Summing::new(options);
    let mut prices = cost::PricesByRoute::new(options);
    let mut causes: Vec<CacheCause> = Vec::new();
    // The previous request's breakdown.
    let mut before_breakdown = ContextBreakdown::default();
    // One entry filled afresh for every request (a sink leaves it as the `LedgerSink` text
    // says): no entry built and dropped per request.
    let mut entry = CacheEntry::default();
    gaps::walk(input, &mut |closed: gaps::Closed<'_>| {
        let gaps::Closed {
            request,
            before,
            gap,
            replaces,
        } = closed;
        let breakdown = ContextBreakdown::of(&request.sums);
        let usage = request
            .answer
            .as_ref()
            .and_then(|(_, usage)| usage.as_deref());
        debug_assert!(
            entry.route.is_none() && entry.causes.is_empty(),
            "a sink leaves the entry's route and causes absent"
        );
        // Read before the reset: the compiler keeps a store it cannot tell from a read that
        // follows it, so the reset's stores to the members filled here would stay.
        let (seq, read_seq, observed) = (gap.start_seq, request.seq, observed::read(usage));
        entry.reset();
        entry.seq = seq;
        entry.read_seq = read_seq;
        entry.total_tokens = breakdown.total_tokens;
        entry.superseded_system_tokens = breakdown.superseded_system_tokens;
        entry.tools_tokens = breakdown.tools_tokens;
        entry.observed = observed;
        // Most requests list no cause, and the rows take them: `clear` would still call the
        // elements' drop (0.9% of the ledger).
        if !causes.is_empty() {
            causes.clear();
        }
        if let Some(before) = before {
            if !(gap.incomplete || before.incomplete) {
                let tools = tools::compare(before.header.as_deref(), gap.header.as_deref());
                let kept = prefix::kept(
                    before,
                    gap,
                    tools.as_ref(),
                    &before_breakdown,
                    input.surface,
                );
                entry.kept_tokens = Some(kept);
                entry.new_tokens = Some(breakdown.total_tokens.saturating_sub(kept));
                let broken = before_breakdown.total_tokens.saturating_sub(kept);
                entry.broken_tokens = Some(broken);
                if broken > 0 {
                    causes::between(&mut causes, (before, gap), tools, replaces, input);
                    debug_assert!(!causes.is_empty(), "a break has a cause");
                }
                if gap.updates > 0 && causes.is_empty() {
                    entry.saved_tokens = Some(kept.saturating_sub(before_breakdown.tools_tokens));
                }
            }
            entry.shortfall_tokens = entry
                .kept_tokens
                .zip(entry.observed.cache_read_tokens)
                .map(|(kept, read)| observed::shortfall(kept, read));
            if let Some(idle) = causes::idle(before, gap, &entry, options) {
                causes.push(idle);
            }
        }
        let priced = prices.of(gap.route.as_ref());
        entry.cost = priced.map(|(prices, _)| cost::of(&entry, &prices));
        summing.add(&entry, priced.as_ref().map(|(prices, _)| prices), &causes);
        let cost_model = priced.and_then(|(_, key)| key);
        sink.entry(&mut entry, gap.route.as_ref(), cost_model, &mut causes);
        before_breakdown = breakdown;
    });
    summing.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An entry with no member as a fresh one has it. A literal without `..`: a new member does
    /// not compile until it is given a value here.
    fn filled() -> CacheEntry {
        let route = Route {
            provider: Some("p".to_owned()),
            model: Some("m".to_owned()),
        };
        CacheEntry {
            seq: 7,
            read_seq: 9,
            route: Some(route.clone()),
            total_tokens: 100,
            superseded_system_tokens: 5,
            tools_tokens: 20,
            kept_tokens: Some(60),
            new_tokens: Some(40),
            broken_tokens: Some(10),
            causes: vec![CacheCause::Route {
                from: Route::default(),
                to: route,
            }],
            observed: CacheObserved {
                input_tokens: Some(1.0),
                output_tokens: Some(2.0),
                cache_read_tokens: Some(3.0),
                cache_write_tokens: Some(4.0),
                uncached_input_tokens: Some(5.0),
            },
            shortfall_tokens: Some(57.0),
            saved_tokens: Some(40),
            cost: Some(CacheCost {
                total: 1.0,
                model: Some("m".to_owned()),
                ..CacheCost::default()
            }),
        }
    }

    #[test]
    fn a_reset_entry_is_a_fresh_one_that_keeps_the_room_of_its_causes() {
        let written = |entry: CacheEntry| match serde_json::to_value(entry) {
            Ok(serde_json::Value::Object(members)) => members,
            other => panic!("an entry is written as an object: {other:?}"),
        };
        let fresh = written(CacheEntry::default());
        let full = written(filled());
        // All 14 members are written (none is absent), and none as in a fresh entry.
        assert_eq!(full.len(), 14, "{full:?}");
        for (name, value) in &full {
            assert_ne!(
                fresh.get(name),
                Some(value),
                "`{name}` is filled as in a fresh entry"
            );
        }

        let mut entry = filled();
        let room = entry.causes.capacity();
        entry.reset();
        assert_eq!(entry, CacheEntry::default());
        assert_eq!(entry.causes.capacity(), room);
    }
}
