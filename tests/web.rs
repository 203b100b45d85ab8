//! The JS API in a real browser: `wasm-pack test --headless --chrome`.
#![cfg(target_arch = "wasm32")]

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
