//! The JS API in a real browser: `node e2e/wasm-browser-tests.mjs` (scripts/test runs it; by hand,
//! `wasm-pack test --headless --chrome -- --features wasm --test web` runs the same tests).
#![cfg(target_arch = "wasm32")]
// Not library code: the panic lints of Cargo.toml's `[lints]` table do not apply here.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::unreachable,
    clippy::todo,
    clippy::arithmetic_side_effects
)]

mod wasm_api;

use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen_test]
fn conformance_subset_in_the_browser() {
    wasm_api::run_cases();
}

#[wasm_bindgen_test]
fn bad_input_in_the_browser() {
    wasm_api::bad_input_leaves_window_unchanged();
}

#[wasm_bindgen_test]
fn numbers_in_the_browser() {
    wasm_api::numbers_match_the_engine();
}
