//! `--prices FILE`: prices per million tokens, a default and per model, in the library's shape.

use std::path::Path;

use promptfold::{CacheOptions, Prices};

/// Reads a prices file (`{"default": {...}, "models": {"<model id>": {...}}}`, each
/// `{"input", "cacheRead", "cacheWrite"?, "output"}`) and checks it as the ledger does.
pub fn read(path: &Path) -> Result<Prices, String> {
    let shown = path.display();
    let text = std::fs::read_to_string(path)
        .map_err(|error| format!("cannot read the prices file {shown}: {error}"))?;
    let prices: Prices = serde_json::from_str(&text)
        .map_err(|error| format!("the prices file {shown} is not valid: {error}"))?;
    let options = CacheOptions {
        prices: Some(prices),
        ..CacheOptions::default()
    };
    options
        .check()
        .map_err(|error| format!("the prices file {shown}: {error}"))?;
    options
        .prices
        .ok_or_else(|| format!("the prices file {shown} holds no prices"))
}
