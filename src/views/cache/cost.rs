//! A request's cost (docs/cache.md, "Money"): the observed figures at the caller's prices when the
//! log has them, else the estimates, marked as estimated.

use std::rc::Rc;

use super::{CacheCost, CacheEntry, CacheOptions, Route, TokenPrices};

const PER: f64 = 1_000_000.0;

/// Prices that apply, with the key of `prices.models` used (none for the default).
pub(super) type Priced<'o> = (TokenPrices, Option<&'o str>);

/// The prices of a request: those of its route's model ([`CacheOptions::prices_for`]), looked
/// up again only when the route changes (most requests read the previous one's header).
pub(super) struct PricesByRoute<'o> {
    options: &'o CacheOptions,
    /// The route last looked up (none before the first), and what it found.
    last: Option<(Option<Rc<Route>>, Option<Priced<'o>>)>,
}

impl<'o> PricesByRoute<'o> {
    /// No route looked up yet.
    pub fn new(options: &'o CacheOptions) -> PricesByRoute<'o> {
        PricesByRoute {
            options,
            last: None,
        }
    }

    /// The prices of a request whose route is `route`, and the key of `prices.models` used
    /// (none for the default).
    pub fn of(&mut self, route: Option<&Rc<Route>>) -> Option<Priced<'o>> {
        self.options.prices.as_ref()?;
        if let Some((last, found)) = &self.last {
            let same = match (last, route) {
                (Some(last), Some(route)) => Rc::ptr_eq(last, route),
                (None, None) => true,
                _ => false,
            };
            if same {
                return *found;
            }
        }
        let model = route.and_then(|route| route.model.as_deref());
        let found = self.options.prices_for(model);
        self.last = Some((route.cloned(), found));
        found
    }
}

/// The cost of `entry` at `prices`, without its `model` (the caller names the key).
pub(super) fn of(entry: &CacheEntry, prices: &TokenPrices) -> CacheCost {
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
    CacheCost {
        input,
        cache_read,
        cache_write,
        output,
        total: input + cache_read + cache_write + output,
        estimated,
        model: None,
    }
}
