//! The JavaScript API (wasm32 only).
