//! One report row per session (schema version 1, docs/cli.md): the same flat shape in JSON,
//! JSON lines and CSV. Unknown is absent (empty in CSV), never 0.

use serde::{Serialize, Serializer};

use crate::facts::{Facts, CAUSES};

/// The version of the report's schema: every row of every format carries it.
pub const SCHEMA_VERSION: u32 = 1;

/// Writes a whole number without a fraction (`12`, not `12.0`), others as they are.
pub fn number<S: Serializer>(value: &f64, serializer: S) -> Result<S::Ok, S::Error> {
    const EXACT: f64 = 9_007_199_254_740_991.0;
    if value.fract() == 0.0 && value.abs() <= EXACT {
        // In range and whole: the conversion is exact.
        #[allow(clippy::cast_possible_truncation)]
        let whole = *value as i64;
        serializer.serialize_i64(whole)
    } else {
        serializer.serialize_f64(*value)
    }
}

/// [`number`] for an optional value (absent stays absent).
pub fn maybe_number<S: Serializer>(value: &Option<f64>, serializer: S) -> Result<S::Ok, S::Error> {
    match value {
        Some(value) => number(value, serializer),
        None => serializer.serialize_none(),
    }
}

/// One session of a report.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionRow {
    /// The schema version ([`SCHEMA_VERSION`]).
    pub schema_version: u32,
    /// The file read.
    pub path: String,
    /// The scope folder of the harness's layout, when the file has the harness's name.
    pub scope: Option<String>,
    /// The header's `id`.
    pub session_id: Option<String>,
    /// The header's format `version`.
    pub format_version: Option<u64>,
    /// The header's `createdAt` (epoch milliseconds).
    pub created_at: Option<i64>,
    /// Bytes of JSON lines read (after decompression).
    pub bytes: u64,
    /// Events read.
    pub events: u64,
    /// Requests (steps with a request header).
    pub requests: u64,
    /// Requests whose kept / new / broken tokens are known.
    pub known_requests: u64,
    /// The context tokens sent, summed over the requests (the token meter's estimate).
    pub total_tokens: u64,
    /// Tokens each request reused from the previous one's prefix, summed where known.
    pub kept_tokens: Option<u64>,
    /// Tokens each request added past that prefix, summed where known.
    pub new_tokens: Option<u64>,
    /// Tokens of the previous request's context each request could not reuse, summed.
    pub broken_tokens: Option<u64>,
    /// kept / total over the known requests.
    pub expected_hit_rate: Option<f64>,
    /// Observed input tokens (the log's usage), summed over the requests that report it.
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
    /// Observed input tokens not read from the cache.
    #[serde(serialize_with = "maybe_number")]
    pub uncached_input_tokens: Option<f64>,
    /// Cache reads over all input (input + cache read + cache write, the harness's counts
    /// being disjoint), over the requests whose usage has input and cache-read tokens.
    pub observed_hit_rate: Option<f64>,
    /// That rate's numerator: cache-read tokens of those requests (sum it across rows).
    #[serde(serialize_with = "maybe_number")]
    pub rate_cache_read_tokens: Option<f64>,
    /// That rate's denominator: all input tokens of those requests (sum it across rows).
    #[serde(serialize_with = "maybe_number")]
    pub rate_input_tokens: Option<f64>,
    /// Requests that broke the cache (broken tokens above 0).
    pub breaks: u64,
    /// The cause that broke the most tokens.
    pub top_cause: Option<String>,
    /// Broken tokens of the requests whose causes include `route`.
    pub broken_route: u64,
    /// ... `tools`.
    pub broken_tools: u64,
    /// ... `system-rewrite`.
    pub broken_system_rewrite: u64,
    /// ... `compaction`.
    pub broken_compaction: u64,
    /// ... `prune`.
    pub broken_prune: u64,
    /// ... `replacement`.
    pub broken_replacement: u64,
    /// ... `series`.
    pub broken_series: u64,
    /// ... `idle`.
    pub broken_idle: u64,
    /// The in-history trade: tokens kept by appending prompt updates instead of rewriting.
    pub saved_tokens: u64,
    /// Superseded system-prompt tokens carried, summed over the requests.
    pub superseded_tokens: u64,
    /// The trade's balance in money (saved minus carried), with prices.
    pub trade_balance: Option<f64>,
    /// The session's cost, with prices.
    pub cost: Option<f64>,
    /// Whether any request's cost is an estimate (no observed usage).
    pub cost_estimated: Option<bool>,
    /// Whether the last line was cut short (the rows before it are counted).
    pub torn_tail: bool,
    /// Whether reading stopped early (a damaged zstd stream): the figures cover what was read.
    pub incomplete: bool,
}

/// What is known of a session besides its ledger.
#[derive(Clone, Debug, Default)]
pub struct Origin {
    /// The file.
    pub path: String,
    /// Its scope folder.
    pub scope: Option<String>,
    /// Bytes read.
    pub bytes: u64,
    /// Torn last line.
    pub torn_tail: bool,
    /// Reading stopped early.
    pub incomplete: bool,
}

impl SessionRow {
    /// The row of a session: where it came from, its header and its facts.
    pub fn new(origin: Origin, header: &Header, facts: &Facts) -> SessionRow {
        let broken = |kind: &str| {
            facts
                .breaks
                .iter()
                .find(|cause| cause.kind == kind)
                .map_or(0, |cause| cause.broken_tokens)
        };
        debug_assert_eq!(CAUSES.len(), 8, "one column per cause");
        SessionRow {
            schema_version: SCHEMA_VERSION,
            path: origin.path,
            scope: origin.scope,
            session_id: header.id.clone(),
            format_version: header.version,
            created_at: header.created_at,
            bytes: origin.bytes,
            events: facts.events,
            requests: facts.requests,
            known_requests: facts.known_requests,
            total_tokens: facts.total_tokens,
            kept_tokens: facts.kept_tokens,
            new_tokens: facts.new_tokens,
            broken_tokens: facts.broken_tokens,
            expected_hit_rate: facts.expected_hit_rate,
            input_tokens: facts.observed.input,
            output_tokens: facts.observed.output,
            cache_read_tokens: facts.observed.cache_read,
            cache_write_tokens: facts.observed.cache_write,
            uncached_input_tokens: facts.observed.uncached_input,
            observed_hit_rate: facts.observed_hit_rate,
            rate_cache_read_tokens: facts.rate_parts.map(|(read, _)| read),
            rate_input_tokens: facts.rate_parts.map(|(_, input)| input),
            breaks: facts.breaking_requests,
            top_cause: facts.breaks.first().map(|cause| cause.kind.clone()),
            broken_route: broken("route"),
            broken_tools: broken("tools"),
            broken_system_rewrite: broken("system-rewrite"),
            broken_compaction: broken("compaction"),
            broken_prune: broken("prune"),
            broken_replacement: broken("replacement"),
            broken_series: broken("series"),
            broken_idle: broken("idle"),
            saved_tokens: facts.saved_tokens,
            superseded_tokens: facts.superseded_tokens,
            trade_balance: facts.trade_balance,
            cost: facts.cost,
            cost_estimated: facts.cost_estimated,
            torn_tail: origin.torn_tail,
            incomplete: origin.incomplete,
        }
    }

    /// A label for people: the session id, else the file name.
    pub fn label(&self) -> String {
        self.session_id.clone().unwrap_or_else(|| {
            std::path::Path::new(&self.path).file_name().map_or_else(
                || self.path.clone(),
                |name| name.to_string_lossy().into_owned(),
            )
        })
    }
}

/// The members of a session header a report shows.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Header {
    /// `id`.
    pub id: Option<String>,
    /// `version`.
    pub version: Option<u64>,
    /// `createdAt`, epoch milliseconds.
    pub created_at: Option<i64>,
}

impl Header {
    /// Reads the members of a header row (absent or mistyped members are unknown).
    pub fn of(session: Option<&promptfold::JsonValue>) -> Header {
        let Some(session) = session else {
            return Header::default();
        };
        let whole = |key: &str| {
            session
                .get(key)
                .and_then(promptfold::JsonValue::as_f64)
                .filter(|value| value.fract() == 0.0 && value.abs() <= 9_007_199_254_740_991.0)
        };
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        Header {
            id: match session.get("id") {
                Some(promptfold::JsonValue::String(id)) => Some(id.to_string()),
                _ => None,
            },
            // Whole and in range (checked above): the conversions are exact.
            version: whole("version").filter(|v| *v >= 0.0).map(|v| v as u64),
            created_at: whole("createdAt").map(|v| v as i64),
        }
    }
}
