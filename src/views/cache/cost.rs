//! A request's cost (SPEC 11 item 5): the observed figures at the caller's prices when the log
//! has them, else the estimates, marked as estimated.

use super::{CacheCost, CacheEntry, CacheOptions};

const PER: f64 = 1_000_000.0;

/// The cost of `entry`, whose route's model is `model`, when prices apply to that model.
pub(super) fn of(
    entry: &CacheEntry,
    model: Option<&str>,
    options: &CacheOptions,
) -> Option<CacheCost> {
    let (prices, model) = options.prices_for(model)?;
    let observed = &entry.observed;
    let mut estimated = false;
    let (input, cache_read, cache_write) = match observed.uncached_input_tokens {
        Some(uncached) => (
            uncached * prices.input,
            observed.cache_read_tokens.unwrap_or(0.0) * prices.cache_read,
            observed.cache_write_tokens.unwrap_or(0.0) * prices.cache_write_price(),
        ),
        None => {
            estimated = true;
            // Unknown kept tokens (the window's first request): all of it uncached.
            let kept = entry.kept_tokens.unwrap_or(0);
            let new = entry.new_tokens.unwrap_or(entry.total_tokens);
            (
                f64::from(new) * prices.input,
                f64::from(kept) * prices.cache_read,
                0.0,
            )
        }
    };
    let output = match observed.output_tokens {
        Some(output) => output * prices.output,
        None => {
            estimated = true;
            0.0
        }
    };
    let (input, cache_read, cache_write, output) = (
        input / PER,
        cache_read / PER,
        cache_write / PER,
        output / PER,
    );
    Some(CacheCost {
        input,
        cache_read,
        cache_write,
        output,
        total: input + cache_read + cache_write + output,
        estimated,
        model,
    })
}
