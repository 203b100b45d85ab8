//! `--prices FILE`: prices per million tokens, a default and per model, in the library's shape.

use std::collections::BTreeMap;
use std::path::Path;

use promptfold::{CacheOptions, Prices};
use serde::de::Visitor;
use serde::{Deserialize, Deserializer};

/// The members a prices file may hold: a misspelled one would otherwise be ignored, and the
/// report would show no cost without saying why.
#[derive(Deserialize)]
#[serde(
    deny_unknown_fields,
    expecting = "an object with the members \"default\" and \"models\""
)]
struct Members {
    #[serde(rename = "default")]
    _default: Option<PriceMembers>,
    #[serde(rename = "models")]
    _models: Option<BTreeMap<String, PriceMembers>>,
}

/// The members of one model's prices.
#[derive(Deserialize)]
#[serde(
    deny_unknown_fields,
    expecting = "an object of prices: \"input\", \"cacheRead\", \"cacheWrite\", \"output\""
)]
struct PriceMembers {
    #[serde(rename = "input")]
    _input: Number,
    #[serde(rename = "cacheRead")]
    _cache_read: Number,
    #[serde(rename = "cacheWrite")]
    _cache_write: Option<Number>,
    #[serde(rename = "output")]
    _output: Number,
}

/// A price's value: any JSON number (the ledger's options check its range). Its own visitor, so
/// that a string says "expected a number", not serde's "expected f64".
struct Number;

impl<'de> Deserialize<'de> for Number {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Number, D::Error> {
        deserializer.deserialize_f64(NumberVisitor)
    }
}

struct NumberVisitor;

impl Visitor<'_> for NumberVisitor {
    type Value = Number;

    fn expecting(&self, formatter: &mut std::fmt::Formatter) -> std::fmt::Result {
        formatter.write_str("a number")
    }

    fn visit_f64<E: serde::de::Error>(self, _: f64) -> Result<Number, E> {
        Ok(Number)
    }

    fn visit_i64<E: serde::de::Error>(self, _: i64) -> Result<Number, E> {
        Ok(Number)
    }

    fn visit_u64<E: serde::de::Error>(self, _: u64) -> Result<Number, E> {
        Ok(Number)
    }
}

/// Reads a prices file (`{"default": {...}, "models": {"<model id>": {...}}}`, each
/// `{"input", "cacheRead", "cacheWrite"?, "output"}`) and checks it as the ledger does.
pub fn read(path: &Path) -> Result<Prices, String> {
    let shown = path.display();
    let text = std::fs::read_to_string(path)
        .map_err(|error| format!("cannot read the prices file {shown}: {error}"))?;
    serde_json::from_str::<Members>(&text)
        .map_err(|error| format!("the prices file {shown} is not valid: {error}"))?;
    let prices: Prices = serde_json::from_str(&text)
        .map_err(|error| format!("the prices file {shown} is not valid: {error}"))?;
    let options = CacheOptions::default().with_prices(Some(prices));
    options
        .check()
        .map_err(|error| format!("the prices file {shown}: {error}"))?;
    options
        .prices
        .ok_or_else(|| format!("the prices file {shown} holds no prices"))
}
