//! The repository's example prices file (examples/prices.json, which docs/demo-cache.md and
//! examples/cache-report.mjs use) is one the command accepts, and it prices the example session
//! as the library does.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

mod common;

use common::{example, json, repo, run};
use promptfold::{CacheOptions, Conversation, LoadOptions, Prices};
use serde_json::Value;

const PRICES: &str = "examples/prices.json";
const SESSION: &str = "examples/sessions/cache-breaks.jsonl";
/// Five minutes, as docs/demo-cache.md runs the example.
const TTL_MS: &str = "300000";

/// The library's cache ledger of the example session with the example prices and TTL.
fn library_ledger() -> Value {
    let prices: Prices =
        serde_json::from_slice(&std::fs::read(repo().join(PRICES)).unwrap()).unwrap();
    let options = CacheOptions::default()
        .with_prices(Some(prices))
        .with_cache_ttl_ms(Some(300_000.0));
    let mut conversation = Conversation::new();
    conversation
        .load_json(&example("cache-breaks.jsonl"), LoadOptions::default())
        .unwrap();
    serde_json::to_value(conversation.cache_ledger(&options).unwrap()).unwrap()
}

#[test]
fn report_reads_the_example_prices_and_costs_as_the_library() {
    let out = run(&[
        "report",
        SESSION,
        "--prices",
        PRICES,
        "--cache-ttl-ms",
        TTL_MS,
        "--format",
        "json",
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let report = json(&out);
    let summary = &library_ledger()["summary"];
    let row = &report["sessions"][0];
    let cost = summary["cost"]["total"].as_f64().unwrap();
    assert!(cost > 0.0, "the example prices give a cost");
    assert!((row["cost"].as_f64().unwrap() - cost).abs() < 1e-12);
    let idle = summary["breaks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|group| group["kind"] == "idle");
    assert!(idle.is_some(), "the TTL names the idle break");
}

#[test]
fn show_reads_the_example_prices_and_costs_as_the_library() {
    let out = run(&[
        "show",
        SESSION,
        "--json",
        "--prices",
        PRICES,
        "--cache-ttl-ms",
        TTL_MS,
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(json(&out)["cacheLedger"], library_ledger());
}
