//! What the answer's `usage` says (docs/cache.md, "Observed usage"), by the harness's convention:
//! its counts are disjoint, `inputTokens` being the input the provider did not read from its cache
//! (see docs/cache.md for the source).

use super::CacheObserved;
use crate::input::json::JsonValue;

/// A usage member: a finite number `>= 0`, else unknown.
fn count(usage: &JsonValue, name: &str) -> Option<f64> {
    usage
        .get(name)
        .and_then(JsonValue::as_f64)
        .filter(|value| value.is_finite() && *value >= 0.0)
}

/// The observed figures of an answer's `usage` (none without an answer or a usage object).
pub(super) fn read(usage: Option<&JsonValue>) -> CacheObserved {
    let Some(usage) = usage.filter(|usage| usage.as_object().is_some()) else {
        return CacheObserved::default();
    };
    let input_tokens = count(usage, "inputTokens");
    CacheObserved {
        input_tokens,
        output_tokens: count(usage, "outputTokens"),
        cache_read_tokens: count(usage, "cacheReadTokens"),
        cache_write_tokens: count(usage, "cacheWriteTokens"),
        uncached_input_tokens: input_tokens,
    }
}

/// `kept - cache_read`: positive when the provider read less than the structure kept.
pub(super) fn shortfall(kept: u32, cache_read: f64) -> f64 {
    f64::from(kept) - cache_read
}

/// All the input the request sent by the convention: uncached, read and written.
pub(super) fn whole_input(observed: &CacheObserved) -> Option<f64> {
    let input = observed.input_tokens?;
    Some(
        input
            + observed.cache_read_tokens.unwrap_or(0.0)
            + observed.cache_write_tokens.unwrap_or(0.0),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_null_negative_and_string_counts_are_unknown() {
        let usage = JsonValue::parse(
            r#"{"inputTokens":"12","outputTokens":null,"cacheReadTokens":-1,"cacheWriteTokens":3}"#,
        )
        .unwrap();
        let observed = read(Some(&usage));
        assert_eq!(observed.input_tokens, None);
        assert_eq!(observed.output_tokens, None);
        assert_eq!(observed.cache_read_tokens, None);
        assert_eq!(observed.cache_write_tokens, Some(3.0));
        assert_eq!(observed.uncached_input_tokens, None);
        assert_eq!(read(None), CacheObserved::default());
        assert_eq!(
            read(Some(&JsonValue::Number(3.0))),
            CacheObserved::default()
        );
        let big = JsonValue::parse(r#"{"inputTokens":1e400,"outputTokens":0}"#).unwrap();
        assert_eq!(read(Some(&big)).input_tokens, None);
        assert_eq!(read(Some(&big)).output_tokens, Some(0.0));
    }
}
