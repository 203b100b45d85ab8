//! The caller's options of the ledger: prices per model with a default, and the provider's
//! cache lifetime.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::error::Error;
use crate::input::json::stringify::js_number_to_string;

/// Options of the cache ledger (`conversation.cacheLedger(options)`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[non_exhaustive]
pub struct CacheOptions {
    /// Prices; without them the ledger has tokens only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "wasm", tsify(optional))]
    pub prices: Option<Prices>,
    /// How long the provider keeps a cached prefix, in ms: a request sent longer than this
    /// after the previous answer, whose provider read less than the structure kept, lists
    /// `idle`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "wasm", tsify(optional))]
    pub cache_ttl_ms: Option<f64>,
}

/// Prices per model (by the route's `config.model`), with a default for the others.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[non_exhaustive]
pub struct Prices {
    /// The prices of a model without an entry in `models`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "wasm", tsify(optional))]
    pub default: Option<TokenPrices>,
    /// Prices by model id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(
        feature = "wasm",
        tsify(optional, type = "Record<string, TokenPrices>")
    )]
    pub models: Option<BTreeMap<String, TokenPrices>>,
}

/// Prices of one model, per million tokens.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[non_exhaustive]
pub struct TokenPrices {
    /// Uncached input.
    pub input: f64,
    /// Input read from the cache.
    pub cache_read: f64,
    /// Input written to the cache, where the provider bills it apart (else cache writes cost
    /// the input price).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "wasm", tsify(optional))]
    pub cache_write: Option<f64>,
    /// Output.
    pub output: f64,
}

/// Rust builds them with [`TokenPrices::new`] (and [`TokenPrices::with_cache_write`]).
impl TokenPrices {
    /// The prices of uncached input, cache reads and output, with cache writes at the input
    /// price (no `cache_write`).
    pub const fn new(input: f64, cache_read: f64, output: f64) -> TokenPrices {
        TokenPrices {
            input,
            cache_read,
            cache_write: None,
            output,
        }
    }

    /// These prices with `cache_write` set (`None`: cache writes cost the input price).
    pub const fn with_cache_write(self, cache_write: Option<f64>) -> TokenPrices {
        TokenPrices {
            cache_write,
            ..self
        }
    }

    /// The price of cache writes: `cache_write`, else the input price.
    pub fn cache_write_price(&self) -> f64 {
        self.cache_write.unwrap_or(self.input)
    }
}

/// Rust builds them from `Prices::default()` with [`Prices::with_default`] and
/// [`Prices::with_model`].
impl Prices {
    /// These prices with `default` set: the prices of a model without an entry.
    pub fn with_default(self, default: Option<TokenPrices>) -> Prices {
        Prices { default, ..self }
    }

    /// These prices with the prices of `model` added (replacing an earlier entry of it).
    pub fn with_model(mut self, model: impl Into<String>, prices: TokenPrices) -> Prices {
        self.models
            .get_or_insert_with(BTreeMap::new)
            .insert(model.into(), prices);
        self
    }
}

/// Rust builds the options from `CacheOptions::default()` with the `with_` methods: the struct
/// is non-exhaustive, so a member added later breaks no caller.
///
/// ```
/// use promptfold::{CacheOptions, Prices, TokenPrices};
///
/// let sonnet = TokenPrices::new(3.0, 0.3, 15.0).with_cache_write(Some(3.75));
/// let options = CacheOptions::default()
///     .with_prices(Some(Prices::default().with_default(Some(sonnet))))
///     .with_cache_ttl_ms(Some(300_000.0));
/// assert_eq!(options.prices.and_then(|p| p.default), Some(sonnet));
/// assert_eq!(options.cache_ttl_ms, Some(300_000.0));
/// ```
impl CacheOptions {
    /// These options with `prices` set (`None`: the ledger has tokens only).
    pub fn with_prices(self, prices: Option<Prices>) -> CacheOptions {
        CacheOptions { prices, ..self }
    }

    /// These options with `cache_ttl_ms` set.
    pub fn with_cache_ttl_ms(self, cache_ttl_ms: Option<f64>) -> CacheOptions {
        CacheOptions {
            cache_ttl_ms,
            ..self
        }
    }

    /// Checks every number: prices finite and `>= 0`, the TTL finite and `>= 0`. Else an
    /// [`Error::InvalidArgument`] naming the member.
    pub fn check(&self) -> Result<(), Error> {
        let bad = |member: String, value: f64| Error::InvalidArgument {
            argument: format!("options.{member}"),
            message: format!(
                "expected a finite number >= 0, found {}",
                js_number_to_string(value)
            ),
        };
        if let Some(ttl) = self.cache_ttl_ms {
            if !(ttl.is_finite() && ttl >= 0.0) {
                return Err(bad("cacheTtlMs".to_owned(), ttl));
            }
        }
        let Some(prices) = &self.prices else {
            return Ok(());
        };
        let named = prices
            .default
            .iter()
            .map(|p| ("prices.default".to_owned(), p));
        let models = prices.models.iter().flatten();
        let models = models.map(|(model, p)| (format!("prices.models[\"{model}\"]"), p));
        for (at, p) in named.chain(models) {
            let members = [
                ("input", Some(p.input)),
                ("cacheRead", Some(p.cache_read)),
                ("cacheWrite", p.cache_write),
                ("output", Some(p.output)),
            ];
            for (member, value) in members {
                if let Some(value) = value.filter(|v| !(v.is_finite() && *v >= 0.0)) {
                    return Err(bad(format!("{at}.{member}"), value));
                }
            }
        }
        Ok(())
    }

    /// The prices of `model`, with the key of `prices.models` used (none for the default).
    pub(crate) fn prices_for(&self, model: Option<&str>) -> Option<(TokenPrices, Option<&str>)> {
        let prices = self.prices.as_ref()?;
        let by_model = model.and_then(|model| {
            let (key, found) = prices.models.as_ref()?.get_key_value(model)?;
            Some((*found, Some(key.as_str())))
        });
        by_model.or_else(|| prices.default.map(|default| (default, None)))
    }
}
