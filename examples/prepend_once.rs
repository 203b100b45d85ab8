//! One prepend, for instruction counts (`valgrind --tool=callgrind
//! --toggle-collect='prepend_once::prepend'`): `prepend_once FILE WINDOW PAGE` loads the newest
//! 9,000 events of FILE, prepends the pages of `bench/native/prepend.rs` (1,000, 8 x 10,000, 8,000,
//! then 1,000 events) until the window holds at least WINDOW events, then the PAGE events before
//! it through `prepend`, the one call counted. With `--fresh` after PAGE the window is the newest
//! WINDOW events loaded by one `load` (as a viewer that opens a session newest-first has it)
//! instead of built by prepends.
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
use promptfold::{parse_events, Conversation, ConversationChange, SessionEvent};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let path = args.get(1).expect("a workload");
    let window: usize = args.get(2).and_then(|n| n.parse().ok()).unwrap_or(9_000);
    let page: usize = args.get(3).and_then(|n| n.parse().ok()).unwrap_or(1_000);
    let fresh = args.get(4).is_some_and(|flag| flag == "--fresh");
    let text = std::fs::read_to_string(path).expect("readable workload");
    let events = parse_events(&text).expect("valid workload");
    let first = if fresh { window } else { 9_000 };
    let mut start = events.len().saturating_sub(first);
    let mut conversation = Conversation::new();
    conversation
        .load(
            events[start..].to_vec(),
            LoadOptions::default().with_has_more(start > 0),
        )
        .expect("loads");
    let pages = [
        1_000, 10_000, 10_000, 10_000, 10_000, 10_000, 10_000, 10_000, 10_000,
    ];
    let mut pages = pages
        .into_iter()
        .chain([8_000])
        .chain(std::iter::repeat(1_000));
    while events.len() - start < window && start > 0 {
        let from = start.saturating_sub(pages.next().unwrap_or(1_000));
        conversation
            .prepend(
                events[from..start].to_vec(),
                LoadOptions::default().with_has_more(from > 0),
            )
            .expect("prepends");
        start = from;
    }
    let from = start.saturating_sub(page);
    let chunk = events[from..start].to_vec();
    let change = prepend(&mut conversation, chunk, from > 0);
    println!(
        "window {} page {} cards {} trajectory {}",
        events.len() - start,
        start - from,
        change.chat.added.len() + change.chat.changed.len() + change.chat.removed.len(),
        change.trajectory_changed
    );
}

#[inline(never)]
fn prepend(
    conversation: &mut Conversation,
    chunk: Vec<SessionEvent>,
    has_more: bool,
) -> ConversationChange {
    conversation
        .prepend(chunk, LoadOptions::default().with_has_more(has_more))
        .expect("prepends")
}
