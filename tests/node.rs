//! The JS API in Node, through the same test body as the browser suite:
//! `wasm-pack test --node -- --features wasm --test node`.
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

use wasm_bindgen_test::wasm_bindgen_test;

#[wasm_bindgen_test]
fn conformance_subset_in_node() {
    wasm_api::run_cases();
}

#[wasm_bindgen_test]
fn bad_input_in_node() {
    wasm_api::bad_input_leaves_window_unchanged();
}

#[wasm_bindgen_test]
fn numbers_in_node() {
    wasm_api::numbers_match_the_engine();
}
