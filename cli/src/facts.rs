//! A session's figures for the report, read from the library's cache ledger: its entries one at
//! a time as they come ([`Tally`]), then its summary.

use promptfold::{CacheEntry, CacheSummary};

/// The causes of a break, in the ledger's order (docs/cache.md, "Causes"); one report column each.
pub const CAUSES: [&str; 8] = [
    "route",
    "tools",
    "system-rewrite",
    "compaction",
    "prune",
    "replacement",
    "series",
    "idle",
];

/// Observed usage summed over the requests that report each figure (absent: none does).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Observed {
    /// Input tokens.
    pub input: Option<f64>,
    /// Output tokens.
    pub output: Option<f64>,
    /// Cache-read tokens.
    pub cache_read: Option<f64>,
    /// Cache-write tokens.
    pub cache_write: Option<f64>,
    /// Input tokens not read from the cache.
    pub uncached_input: Option<f64>,
}

/// The breaks of one cause.
#[derive(Clone, Debug, PartialEq)]
pub struct CauseFacts {
    /// The cause (one of [`CAUSES`]).
    pub kind: String,
    /// Requests whose causes include it.
    pub requests: u64,
    /// Their broken tokens.
    pub broken_tokens: u64,
    /// Their cost, with prices.
    pub cost: Option<f64>,
}

/// A session's figures.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Facts {
    /// Events read.
    pub events: u64,
    /// Requests.
    pub requests: u64,
    /// Requests with known kept / new / broken tokens.
    pub known_requests: u64,
    /// Context tokens summed over the requests.
    pub total_tokens: u64,
    /// Kept tokens summed over the known requests.
    pub kept_tokens: Option<u64>,
    /// New tokens summed over the known requests.
    pub new_tokens: Option<u64>,
    /// Broken tokens summed over the known requests.
    pub broken_tokens: Option<u64>,
    /// kept / total over the known requests.
    pub expected_hit_rate: Option<f64>,
    /// Observed usage.
    pub observed: Observed,
    /// Cache reads over all input, by the library's rule.
    pub observed_hit_rate: Option<f64>,
    /// The observed hit rate's numerator and denominator (absent: no request has both).
    pub rate_parts: Option<(f64, f64)>,
    /// Requests with broken tokens above 0.
    pub breaking_requests: u64,
    /// The breaks by cause, most broken tokens first.
    pub breaks: Vec<CauseFacts>,
    /// The in-history trade's saved tokens.
    pub saved_tokens: u64,
    /// Superseded system tokens carried.
    pub superseded_tokens: u64,
    /// The trade's balance in money.
    pub trade_balance: Option<f64>,
    /// Cost, with prices.
    pub cost: Option<f64>,
    /// Whether any request's cost is estimated.
    pub cost_estimated: Option<bool>,
}

fn whole(value: f64) -> u64 {
    debug_assert!(value >= 0.0 && value.fract() == 0.0, "token sums are whole");
    // Sums of u32 token counts: whole, at least 0, far below 2^53 (saturating cast).
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    let value = value as u64;
    value
}

/// `sum` when `count` requests had the member, else unknown.
fn counted(sum: f64, count: u32) -> Option<f64> {
    (count > 0).then_some(sum)
}

/// What the report needs of the ledger's entries beyond its summary, summed as they come.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Tally {
    /// The observed hit rate's parts (the library's rule: requests with both input and
    /// cache-read tokens; the harness's counts are disjoint), so rows of many sessions and
    /// shards add up to the same rate.
    rate_read: f64,
    rate_input: f64,
    rated: bool,
    /// Requests with broken tokens above 0.
    breaking: u64,
}

impl Tally {
    /// Adds the next request's entry.
    pub fn add(&mut self, entry: &CacheEntry) {
        let seen = &entry.observed;
        if let (Some(input), Some(read)) = (seen.input_tokens, seen.cache_read_tokens) {
            self.rated = true;
            self.rate_read += read;
            self.rate_input += input + read + seen.cache_write_tokens.unwrap_or(0.0);
        }
        if entry.broken_tokens.is_some_and(|broken| broken > 0) {
            self.breaking = self.breaking.saturating_add(1);
        }
    }
}

/// The figures of a session of `events` events, from its ledger's entries (`tally`) and
/// summary.
pub fn facts(events: u64, tally: &Tally, summary: &CacheSummary) -> Facts {
    let known = summary.known_requests > 0;
    let observed = &summary.observed;
    let counts = &observed.counts;
    let (rate_read, rate_input, rated) = (tally.rate_read, tally.rate_input, tally.rated);
    let breaking = tally.breaking;
    Facts {
        events,
        requests: u64::from(summary.requests),
        known_requests: u64::from(summary.known_requests),
        total_tokens: whole(summary.total_tokens),
        kept_tokens: known.then(|| whole(summary.kept_tokens)),
        new_tokens: known.then(|| whole(summary.new_tokens)),
        broken_tokens: known.then(|| whole(summary.broken_tokens)),
        expected_hit_rate: summary.expected_hit_rate,
        observed: Observed {
            input: counted(observed.input_tokens, counts.input_tokens),
            output: counted(observed.output_tokens, counts.output_tokens),
            cache_read: counted(observed.cache_read_tokens, counts.cache_read_tokens),
            cache_write: counted(observed.cache_write_tokens, counts.cache_write_tokens),
            uncached_input: counted(observed.uncached_input_tokens, counts.uncached_input_tokens),
        },
        observed_hit_rate: summary.observed_hit_rate,
        rate_parts: rated.then_some((rate_read, rate_input)),
        breaking_requests: breaking,
        breaks: summary
            .breaks
            .iter()
            .map(|group| CauseFacts {
                kind: group.kind.clone(),
                requests: u64::from(group.requests),
                broken_tokens: whole(group.broken_tokens),
                cost: group.cost,
            })
            .collect(),
        saved_tokens: whole(summary.trade.saved_tokens),
        superseded_tokens: whole(summary.trade.superseded_tokens),
        trade_balance: summary.trade.balance,
        cost: summary.cost.as_ref().map(|cost| cost.total),
        cost_estimated: summary.cost.as_ref().map(|cost| cost.estimated),
    }
}
