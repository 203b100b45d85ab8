//! One load, for instruction counts per part (`valgrind --tool=callgrind
//! --toggle-collect='load_once::*' target/release/examples/load_once FILE`):
//! `load_once FILE` reads FILE, then `load_json` (parse and fold), `parse_events` and `load` of
//! the parsed events, and `views()`, each in a function of its own so that callgrind can count
//! them apart.
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

use promptfold::LoadOptions;
use promptfold::{parse_events, Conversation, SessionEvent, Views};

#[inline(never)]
fn load_json(text: &str) -> Conversation {
    let mut conversation = Conversation::new();
    conversation
        .load_json(text, LoadOptions::default())
        .expect("loads");
    conversation
}

#[inline(never)]
fn parse(text: &str) -> Vec<SessionEvent> {
    parse_events(text).expect("valid workload")
}

#[inline(never)]
fn load(events: Vec<SessionEvent>) -> Conversation {
    let mut conversation = Conversation::new();
    conversation
        .load(events, LoadOptions::default())
        .expect("loads");
    conversation
}

#[inline(never)]
fn views(conversation: &Conversation) -> Views {
    conversation.views()
}

fn main() {
    let path = std::env::args().nth(1).expect("a workload");
    let text = std::fs::read_to_string(path).expect("readable workload");
    let loaded = load_json(&text);
    let events = parse(&text);
    let again = load(events);
    let views = views(&again);
    println!(
        "{} events, {} cards, {} requests",
        loaded.len(),
        views.chat.len(),
        views.trajectory.requests.len()
    );
}
