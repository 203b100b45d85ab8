//! `--prices FILE`: prices per million tokens, a default and per model.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;

/// The prices of one model, per million tokens.
#[derive(Clone, Copy, Debug, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TokenPrices {
    /// Input tokens not read from the cache.
    pub input: f64,
    /// Cache-read tokens.
    pub cache_read: f64,
    /// Cache-write tokens, where the provider bills them.
    pub cache_write: Option<f64>,
    /// Output tokens.
    pub output: f64,
}

/// The prices file: `{"default": {...}, "models": {"<model id>": {...}}}`.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PriceTable {
    /// For models without prices of their own.
    pub default: Option<TokenPrices>,
    /// By model id (the request header's `config.model`).
    #[serde(default)]
    pub models: BTreeMap<String, TokenPrices>,
}

impl PriceTable {
    /// Reads and checks a prices file (every price a finite number at least 0).
    pub fn read(path: &Path) -> Result<PriceTable, String> {
        let text = std::fs::read_to_string(path)
            .map_err(|error| format!("cannot read the prices file {}: {error}", path.display()))?;
        let table: PriceTable = serde_json::from_str(&text)
            .map_err(|error| format!("the prices file {} is not valid: {error}", path.display()))?;
        let all = table.default.iter().chain(table.models.values());
        for prices in all {
            let values = [
                Some(prices.input),
                Some(prices.cache_read),
                prices.cache_write,
                Some(prices.output),
            ];
            if values
                .into_iter()
                .flatten()
                .any(|v| !v.is_finite() || v < 0.0)
            {
                return Err(format!(
                    "the prices file {}: every price must be a number at least 0",
                    path.display()
                ));
            }
        }
        Ok(table)
    }
}
