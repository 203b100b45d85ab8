//! The test kit (feature `testkit`): one session-log generator for the Rust tests (`tests/`),
//! the fuzz targets (`fuzz/`) and the native benches (`bench/native/`). Not part of the
//! library's API; its items may panic (they build test input).
//!
//! - [`log`]: valid random logs, drawn as a [`Plan`] by proptest ([`valid_log`],
//!   [`log_and_cut`], ...), from a seed ([`Plan::seeded`]) or from a fuzzer's bytes
//!   ([`Plan::from_bytes`]), built into JSON events by [`build`].
//! - [`hostile`]: invalid and hostile text made from those logs ([`hostile_text`]).
//! - [`random`]: where the random choices come from.
//! - [`surface_refolds`]: how many prepends folded the whole surface again.
//! - [`prepend_walked`]: how many window events prepends walked again.
//! - [`placed_links`]: how many requests slices linked by themselves.
#![allow(
    missing_docs,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::unreachable,
    clippy::todo,
    clippy::arithmetic_side_effects
)]

pub mod hostile;
pub mod log;
pub mod random;

use serde_json::{json, Value};

use crate::Conversation;

#[cfg(test)]
mod fed_load_tests;

/// JavaScript's `String(number)` text of a number (the crate writes numbers as JS does; the
/// tests compare with it).
pub use crate::input::json::stringify::js_number_text;
/// JavaScript's `JSON.stringify` text of a value (the crate compares tools by it; the tests
/// use it as their oracle).
pub use crate::input::json::stringify::js_stringify;
pub use hostile::{hostile_text, json_tree, mutate, Mutation};
pub use log::{
    array_text, build, lines_text, log_and_cut, parse, plan, plan_with, replace_first_log,
    valid_log, Action, Opening, Plan, MAX_SAFE,
};

/// How many requests this thread's slices linked by themselves (without linking the whole
/// trajectory), and how many of them did not show their change because a request before them
/// did.
pub fn placed_links() -> (u64, u64) {
    crate::views::trajectory::PLACED_LINKS.with(std::cell::Cell::get)
}

/// The prepends on this thread whose surface fold folded the whole window again (a replay
/// found an endpoint the page moved; see docs/context.md), since the thread started.
pub fn surface_refolds() -> u64 {
    crate::fold::surface::REFOLDS.with(std::cell::Cell::get)
}

/// The window events that prepends on this thread walked again before their walk joined the
/// window's (all of them when it did not), since the thread started.
pub fn prepend_walked() -> u64 {
    crate::window::analysis::prepend::WALKED.with(std::cell::Cell::get)
}

/// Everything a window shows and keeps for the calls after a load, as JSON: its lines, views,
/// length, window start, whether it has more, its session header and its unfinished line. Two
/// windows that must be equal (D1) give equal values.
pub fn observed_window(conversation: &Conversation) -> Value {
    json!({
        "lines": serde_json::to_value(conversation.lines()).unwrap(),
        "views": serde_json::to_value(conversation.views()).unwrap(),
        "len": conversation.len(),
        "windowStart": conversation.window_start(),
        "hasMore": conversation.has_more(),
        "session": conversation.session().map(|header| serde_json::to_value(header).unwrap()),
        "unfinished": conversation.unfinished_line(),
    })
}
