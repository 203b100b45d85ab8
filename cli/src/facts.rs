//! A session's figures for the report, read from the library's cache ledger.

use promptfold::Conversation;

use crate::prices::PriceTable;

/// The causes of a break, in the ledger's order (SPEC 11 item 3); one report column each.
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

/// The ledger's options as given on the command line.
#[derive(Clone, Debug, Default)]
#[allow(dead_code)] // Until the ledger reads them.
pub struct LedgerOptions {
    /// Prices per million tokens.
    pub prices: Option<PriceTable>,
    /// The provider's cache lifetime.
    pub cache_ttl_ms: Option<u64>,
}

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
    /// cache read / input.
    pub observed_hit_rate: Option<f64>,
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

fn add(sum: Option<f64>, value: Option<f64>) -> Option<f64> {
    match (sum, value) {
        (Some(sum), Some(value)) => Some(sum + value),
        (None, value) | (value, None) => value,
    }
}

fn usage_member(usage: Option<&promptfold::JsonValue>, key: &str) -> Option<f64> {
    usage?
        .get(key)?
        .as_f64()
        .filter(|value| value.is_finite() && *value >= 0.0)
}

/// The figures of a read session.
pub fn facts(conversation: &Conversation, _options: &LedgerOptions) -> Facts {
    let views = conversation.views();
    let mut facts = Facts {
        events: conversation.len() as u64,
        ..Facts::default()
    };
    for request in &views.trajectory.requests {
        let context = &request.context;
        facts.requests = facts.requests.saturating_add(1);
        facts.total_tokens = facts
            .total_tokens
            .saturating_add(u64::from(context.breakdown.total_tokens));
        facts.superseded_tokens = facts
            .superseded_tokens
            .saturating_add(u64::from(context.breakdown.superseded_system_tokens));
        let usage = context.usage.as_deref();
        let observed = &mut facts.observed;
        observed.input = add(observed.input, usage_member(usage, "inputTokens"));
        observed.output = add(observed.output, usage_member(usage, "outputTokens"));
        observed.cache_read = add(observed.cache_read, usage_member(usage, "cacheReadTokens"));
        observed.cache_write = add(
            observed.cache_write,
            usage_member(usage, "cacheWriteTokens"),
        );
    }
    facts
}
