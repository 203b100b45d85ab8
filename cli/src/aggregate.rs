//! The report across sessions: totals, causes ranked, the order of the rows.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::problem::Problem;
use crate::row::{maybe_number, SessionRow, SCHEMA_VERSION};

/// Files and sessions counted.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Counts {
    /// Files read (whole or in part).
    pub files: u64,
    /// Sessions in the report (rows, before `--top`).
    pub sessions: u64,
    /// Sessions left out by `--since` / `--until`.
    pub filtered_out: u64,
    /// Lock and backup files and older version files, not read.
    pub skipped_files: u64,
    /// Problems reported (the `errors` list).
    pub problems: u64,
    /// Files or folders with no row in the report because of a problem.
    pub failed: u64,
}

/// The sums over every session in the report (`--top` does not change them).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Totals {
    /// Bytes of JSON lines read.
    pub bytes: u64,
    /// Events.
    pub events: u64,
    /// Requests.
    pub requests: u64,
    /// Requests with known kept / new / broken tokens.
    pub known_requests: u64,
    /// Context tokens sent.
    pub total_tokens: u64,
    /// Kept tokens (absent when no request is known).
    pub kept_tokens: Option<u64>,
    /// New tokens.
    pub new_tokens: Option<u64>,
    /// Broken tokens.
    pub broken_tokens: Option<u64>,
    /// kept / total over the known requests' sessions.
    pub expected_hit_rate: Option<f64>,
    /// Observed input tokens.
    #[serde(serialize_with = "maybe_number")]
    pub input_tokens: Option<f64>,
    /// Observed output tokens.
    #[serde(serialize_with = "maybe_number")]
    pub output_tokens: Option<f64>,
    /// Observed cache-read tokens.
    #[serde(serialize_with = "maybe_number")]
    pub cache_read_tokens: Option<f64>,
    /// Observed cache-write tokens.
    #[serde(serialize_with = "maybe_number")]
    pub cache_write_tokens: Option<f64>,
    /// Observed uncached input tokens.
    #[serde(serialize_with = "maybe_number")]
    pub uncached_input_tokens: Option<f64>,
    /// Cache reads over all input, over the requests that report both (the rows' rate parts).
    pub observed_hit_rate: Option<f64>,
    /// Requests that broke the cache.
    pub breaks: u64,
    /// In-history trade: saved tokens.
    pub saved_tokens: u64,
    /// Superseded system tokens carried.
    pub superseded_tokens: u64,
    /// The trade's balance in money.
    pub trade_balance: Option<f64>,
    /// Cost, with prices.
    pub cost: Option<f64>,
    /// Whether any of the cost is estimated.
    pub cost_estimated: Option<bool>,
}

/// One cause across all sessions.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CauseRow {
    /// The cause.
    pub kind: String,
    /// Sessions with at least one break of it.
    pub sessions: u64,
    /// Requests whose causes include it.
    pub requests: u64,
    /// Their broken tokens.
    pub broken_tokens: u64,
    /// Their cost, with prices.
    pub cost: Option<f64>,
}

/// A whole report.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Report {
    /// The schema version.
    pub schema_version: u32,
    /// What was read.
    pub counts: Counts,
    /// Sums over all sessions.
    pub totals: Totals,
    /// Causes across all sessions, most broken tokens first.
    pub causes: Vec<CauseRow>,
    /// One row per session, most broken tokens first (`--top`: the first N).
    pub sessions: Vec<SessionRow>,
    /// Every problem, once each.
    pub errors: Vec<Problem>,
}

fn plus_u(sum: Option<u64>, value: Option<u64>) -> Option<u64> {
    match (sum, value) {
        (Some(sum), Some(value)) => Some(sum.saturating_add(value)),
        (None, value) | (value, None) => value,
    }
}

fn plus_f(sum: Option<f64>, value: Option<f64>) -> Option<f64> {
    match (sum, value) {
        (Some(sum), Some(value)) => Some(sum + value),
        (None, value) | (value, None) => value,
    }
}

/// `part / whole`, absent when the whole is 0 or unknown.
pub fn rate(part: Option<f64>, whole: Option<f64>) -> Option<f64> {
    match (part, whole) {
        (Some(part), Some(whole)) if whole > 0.0 => Some(part / whole),
        _ => None,
    }
}

/// Sums `rows`.
pub fn totals(rows: &[SessionRow]) -> Totals {
    let mut totals = Totals::default();
    // Total tokens of the sessions with known requests, for the expected hit rate.
    let mut known_total: Option<f64> = None;
    let mut rate_read: Option<f64> = None;
    let mut rate_input: Option<f64> = None;
    for row in rows {
        totals.bytes = totals.bytes.saturating_add(row.bytes);
        totals.events = totals.events.saturating_add(row.events);
        totals.requests = totals.requests.saturating_add(row.requests);
        totals.known_requests = totals.known_requests.saturating_add(row.known_requests);
        totals.total_tokens = totals.total_tokens.saturating_add(row.total_tokens);
        totals.kept_tokens = plus_u(totals.kept_tokens, row.kept_tokens);
        totals.new_tokens = plus_u(totals.new_tokens, row.new_tokens);
        totals.broken_tokens = plus_u(totals.broken_tokens, row.broken_tokens);
        if let (Some(kept), Some(new)) = (row.kept_tokens, row.new_tokens) {
            known_total = plus_f(known_total, Some(kept.saturating_add(new) as f64));
        }
        totals.input_tokens = plus_f(totals.input_tokens, row.input_tokens);
        totals.output_tokens = plus_f(totals.output_tokens, row.output_tokens);
        totals.cache_read_tokens = plus_f(totals.cache_read_tokens, row.cache_read_tokens);
        totals.cache_write_tokens = plus_f(totals.cache_write_tokens, row.cache_write_tokens);
        totals.uncached_input_tokens =
            plus_f(totals.uncached_input_tokens, row.uncached_input_tokens);
        rate_read = plus_f(rate_read, row.rate_cache_read_tokens);
        rate_input = plus_f(rate_input, row.rate_input_tokens);
        totals.breaks = totals.breaks.saturating_add(row.breaks);
        totals.saved_tokens = totals.saved_tokens.saturating_add(row.saved_tokens);
        totals.superseded_tokens = totals
            .superseded_tokens
            .saturating_add(row.superseded_tokens);
        totals.trade_balance = plus_f(totals.trade_balance, row.trade_balance);
        totals.cost = plus_f(totals.cost, row.cost);
        totals.cost_estimated = match (totals.cost_estimated, row.cost_estimated) {
            (Some(a), Some(b)) => Some(a || b),
            (None, value) | (value, None) => value,
        };
    }
    totals.expected_hit_rate = rate(totals.kept_tokens.map(|kept| kept as f64), known_total);
    totals.observed_hit_rate = rate(rate_read, rate_input);
    totals
}

/// The causes of `facts_by_session` (per session: kind, requests, broken tokens, cost), summed
/// and ranked by broken tokens (then requests, then name).
pub fn rank_causes(per_session: &[Vec<crate::facts::CauseFacts>]) -> Vec<CauseRow> {
    let mut by_kind: BTreeMap<&str, CauseRow> = BTreeMap::new();
    for breaks in per_session {
        for cause in breaks {
            let row = by_kind
                .entry(cause.kind.as_str())
                .or_insert_with(|| CauseRow {
                    kind: cause.kind.clone(),
                    sessions: 0,
                    requests: 0,
                    broken_tokens: 0,
                    cost: None,
                });
            row.sessions = row.sessions.saturating_add(1);
            row.requests = row.requests.saturating_add(cause.requests);
            row.broken_tokens = row.broken_tokens.saturating_add(cause.broken_tokens);
            row.cost = plus_f(row.cost, cause.cost);
        }
    }
    let mut ranked: Vec<CauseRow> = by_kind.into_values().collect();
    ranked.sort_by(|a, b| {
        b.broken_tokens
            .cmp(&a.broken_tokens)
            .then(b.requests.cmp(&a.requests))
            .then(a.kind.cmp(&b.kind))
    });
    ranked
}

/// Orders rows by broken tokens (most first), then path; keeps the first `top`.
pub fn order(rows: &mut Vec<SessionRow>, top: Option<usize>) {
    rows.sort_by(|a, b| {
        b.broken_tokens
            .unwrap_or(0)
            .cmp(&a.broken_tokens.unwrap_or(0))
            .then_with(|| a.path.cmp(&b.path))
    });
    if let Some(top) = top {
        rows.truncate(top);
    }
}

/// A report from its parts.
pub fn report(
    mut rows: Vec<SessionRow>,
    causes: &[Vec<crate::facts::CauseFacts>],
    errors: Vec<Problem>,
    mut counts: Counts,
    top: Option<usize>,
) -> Report {
    counts.sessions = rows.len() as u64;
    counts.problems = errors.len() as u64;
    counts.failed = errors.iter().filter(|problem| !problem.reported).count() as u64;
    let totals = totals(&rows);
    order(&mut rows, top);
    Report {
        schema_version: SCHEMA_VERSION,
        counts,
        totals,
        causes: rank_causes(causes),
        sessions: rows,
        errors,
    }
}
