//! The ledger's summary over the window's requests (docs/cache.md, "The in-history trade" and
//! "Summary").

use serde::Serialize;

use super::{CacheCause, CacheEntry, CacheOptions, TokenPrices};

const PER: f64 = 1_000_000.0;

/// Sums and rates over a window's requests. Sums of figures that can be unknown run over the
/// requests that know them, with those counts beside them.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[non_exhaustive]
pub struct CacheSummary {
    /// Requests in the window.
    pub requests: u32,
    /// Requests whose kept, new and broken tokens are known.
    pub known_requests: u32,
    /// `totalTokens` over every request.
    pub total_tokens: f64,
    /// `keptTokens` over the known requests.
    pub kept_tokens: f64,
    /// `newTokens` over the known requests.
    pub new_tokens: f64,
    /// `brokenTokens` over the known requests.
    pub broken_tokens: f64,
    /// The observed usage, summed.
    pub observed: ObservedSums,
    /// `keptTokens / (keptTokens + newTokens)`: the share of the known requests' prompts the
    /// structure let the cache keep; absent when they hold no tokens.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "wasm", tsify(optional))]
    pub expected_hit_rate: Option<f64>,
    /// Cache reads over all input (`inputTokens + cacheReadTokens + cacheWriteTokens`, the
    /// harness's counts being disjoint), over the requests whose usage has both `inputTokens`
    /// and `cacheReadTokens`; absent when there are none or they hold no input.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "wasm", tsify(optional))]
    pub observed_hit_rate: Option<f64>,
    /// Breaks grouped by cause kind, most broken tokens first. A request with several causes
    /// counts in the group of each kind it lists.
    pub breaks: Vec<CacheBreaks>,
    /// The in-history trade: what appended updates kept, against the superseded prompts carried.
    pub trade: CacheTrade,
    /// The cost of the priced requests, when prices are given.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "wasm", tsify(optional))]
    pub cost: Option<SummaryCost>,
}

/// Observed usage summed over the requests that have each member, with their counts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[non_exhaustive]
pub struct ObservedSums {
    /// `inputTokens` (uncached input).
    pub input_tokens: f64,
    /// `outputTokens`.
    pub output_tokens: f64,
    /// `cacheReadTokens`.
    pub cache_read_tokens: f64,
    /// `cacheWriteTokens`.
    pub cache_write_tokens: f64,
    /// `uncachedInputTokens`.
    pub uncached_input_tokens: f64,
    /// How many requests have each member.
    pub counts: ObservedCounts,
}

/// How many requests have each observed member.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[non_exhaustive]
pub struct ObservedCounts {
    /// Requests with `inputTokens`.
    pub input_tokens: u32,
    /// Requests with `outputTokens`.
    pub output_tokens: u32,
    /// Requests with `cacheReadTokens`.
    pub cache_read_tokens: u32,
    /// Requests with `cacheWriteTokens`.
    pub cache_write_tokens: u32,
    /// Requests with `uncachedInputTokens`.
    pub uncached_input_tokens: u32,
}

/// The breaks of one cause kind.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[non_exhaustive]
pub struct CacheBreaks {
    /// The cause kind (`route`, `tools`, `system-rewrite`, `compaction`, `prune`,
    /// `replacement`, `series`, `idle`).
    pub kind: String,
    /// Requests listing it.
    pub requests: u32,
    /// Their broken tokens.
    pub broken_tokens: f64,
    /// What re-sending those tokens uncached cost over reading them from the cache
    /// (`brokenTokens` at the input price minus the cache-read price), when prices apply.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "wasm", tsify(optional))]
    pub cost: Option<f64>,
}

/// The in-history trade: tokens appending kept against superseded prompts carried.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[non_exhaustive]
pub struct CacheTrade {
    /// `savedTokens` summed.
    pub saved_tokens: f64,
    /// `supersededSystemTokens` summed over every request.
    pub superseded_tokens: f64,
    /// The saved tokens at the input price minus the cache-read price.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "wasm", tsify(optional))]
    pub saved_cost: Option<f64>,
    /// The superseded tokens at the cache-read price.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "wasm", tsify(optional))]
    pub carried_cost: Option<f64>,
    /// `savedCost - carriedCost`: above 0, appending paid for what it carries.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "wasm", tsify(optional))]
    pub balance: Option<f64>,
}

/// The summed cost of the priced requests.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[non_exhaustive]
pub struct SummaryCost {
    /// The sum of their totals.
    pub total: f64,
    /// Whether any of them is estimated.
    pub estimated: bool,
}

/// The kind names of the causes, in the order of docs/cache.md, "Causes".
const KINDS: [&str; 8] = [
    "route",
    "tools",
    "system-rewrite",
    "compaction",
    "prune",
    "replacement",
    "series",
    "idle",
];

fn kind_index(cause: &CacheCause) -> usize {
    match cause {
        CacheCause::Route { .. } => 0,
        CacheCause::Tools { .. } => 1,
        CacheCause::SystemRewrite { .. } => 2,
        CacheCause::Compaction { .. } => 3,
        CacheCause::Prune { .. } => 4,
        CacheCause::Replacement { .. } => 5,
        CacheCause::Series { .. } => 6,
        CacheCause::Idle { .. } => 7,
    }
}

fn add(sum: &mut f64, count: &mut u32, value: Option<f64>) {
    if let Some(value) = value {
        *sum += value;
        *count = count.saturating_add(1);
    }
}

/// A summary summed one entry at a time, so that a forward-only reader keeps no entries.
#[derive(Clone, Debug)]
pub(super) struct Summing {
    summary: CacheSummary,
    /// Whether prices are given (the summary then has costs).
    priced: bool,
    /// Per cause kind: requests, broken tokens, cost.
    groups: [(u32, f64, f64); 8],
    /// The observed hit rate's cache reads and whole input.
    read: f64,
    input: f64,
    /// The trade's saved and carried costs.
    trade_costs: (f64, f64),
}

impl Summing {
    /// An empty summary under `options` (already checked).
    pub fn new(options: &CacheOptions) -> Summing {
        Summing {
            summary: CacheSummary::default(),
            priced: options.prices.is_some(),
            groups: [(0u32, 0.0f64, 0.0f64); 8],
            read: 0.0,
            input: 0.0,
            trade_costs: (0.0, 0.0),
        }
    }

    /// Adds the next request's entry, priced at `prices` (its route's model's) and whose causes
    /// are `causes` (the entry's own lists are not read).
    pub fn add(&mut self, entry: &CacheEntry, prices: Option<&TokenPrices>, causes: &[CacheCause]) {
        let summary = &mut self.summary;
        summary.requests = summary.requests.saturating_add(1);
        summary.total_tokens += f64::from(entry.total_tokens);
        if let (Some(kept), Some(new), Some(broken)) =
            (entry.kept_tokens, entry.new_tokens, entry.broken_tokens)
        {
            summary.known_requests = summary.known_requests.saturating_add(1);
            summary.kept_tokens += f64::from(kept);
            summary.new_tokens += f64::from(new);
            summary.broken_tokens += f64::from(broken);
        }
        let o = &entry.observed;
        let sums = &mut summary.observed;
        let counts = &mut sums.counts;
        add(
            &mut sums.input_tokens,
            &mut counts.input_tokens,
            o.input_tokens,
        );
        add(
            &mut sums.output_tokens,
            &mut counts.output_tokens,
            o.output_tokens,
        );
        add(
            &mut sums.cache_read_tokens,
            &mut counts.cache_read_tokens,
            o.cache_read_tokens,
        );
        add(
            &mut sums.cache_write_tokens,
            &mut counts.cache_write_tokens,
            o.cache_write_tokens,
        );
        add(
            &mut sums.uncached_input_tokens,
            &mut counts.uncached_input_tokens,
            o.uncached_input_tokens,
        );
        if let (Some(cache_read), Some(whole)) =
            (o.cache_read_tokens, super::observed::whole_input(o))
        {
            self.read += cache_read;
            self.input += whole;
        }
        let mut seen = [false; 8];
        for cause in causes {
            let index = kind_index(cause);
            if let (Some(group), Some(seen)) = (self.groups.get_mut(index), seen.get_mut(index)) {
                if !*seen {
                    *seen = true;
                    let broken = f64::from(entry.broken_tokens.unwrap_or(0));
                    group.0 = group.0.saturating_add(1);
                    group.1 += broken;
                    if let Some(prices) = prices {
                        group.2 += broken * (prices.input - prices.cache_read) / PER;
                    }
                }
            }
        }
        let saved = f64::from(entry.saved_tokens.unwrap_or(0));
        let superseded = f64::from(entry.superseded_system_tokens);
        summary.trade.saved_tokens += saved;
        summary.trade.superseded_tokens += superseded;
        if let Some(prices) = prices {
            self.trade_costs.0 += saved * (prices.input - prices.cache_read) / PER;
            self.trade_costs.1 += superseded * prices.cache_read / PER;
        }
        if let Some(entry_cost) = &entry.cost {
            let total = summary.cost.get_or_insert_with(SummaryCost::default);
            total.total += entry_cost.total;
            total.estimated |= entry_cost.estimated;
        }
    }

    /// The summary of the entries added.
    pub fn finish(self) -> CacheSummary {
        let Summing {
            mut summary,
            priced,
            groups,
            read,
            input,
            trade_costs,
        } = self;
        let known = summary.kept_tokens + summary.new_tokens;
        summary.expected_hit_rate = (known > 0.0).then(|| summary.kept_tokens / known);
        summary.observed_hit_rate = (input > 0.0).then(|| read / input);
        // A loop, not a `filter` collect: that was its own copy of `Vec`'s extend (358 bytes).
        let mut breaks = Vec::with_capacity(KINDS.len());
        for (kind, (requests, broken_tokens, cost)) in KINDS.iter().zip(groups) {
            if requests > 0 {
                breaks.push(CacheBreaks {
                    kind: (*kind).to_owned(),
                    requests,
                    broken_tokens,
                    cost: priced.then_some(cost),
                });
            }
        }
        // Stable: equal broken tokens keep the order of docs/cache.md, "Causes".
        crate::sort::sort_by_key(&mut breaks, |row| {
            (crate::sort::descending(row.broken_tokens), 0, 0)
        });
        summary.breaks = breaks;
        if priced {
            summary.trade.saved_cost = Some(trade_costs.0);
            summary.trade.carried_cost = Some(trade_costs.1);
            summary.trade.balance = Some(trade_costs.0 - trade_costs.1);
        }
        summary
    }
}
