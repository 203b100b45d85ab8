//! What both fuzz targets compare about a window: everything a call may change (`snapshot`), and
//! the D1 check that the window equals a fresh load of its own events (`check_fresh_load`).
//! Included by each target with `#[path]` (cargo-fuzz builds every target as its own crate).

use promptfold::LoadOptions;
use promptfold::{Conversation, EventLine, JsonValue, Seq, Views};

/// Everything a call may change in a window.
#[derive(Debug, PartialEq)]
pub struct Snapshot {
    pub lines: Vec<EventLine>,
    pub views: Views,
    pub window_start: Option<Seq>,
    pub has_more: bool,
    pub len: usize,
    pub session: Option<JsonValue>,
    pub unfinished: Vec<u8>,
}

/// The window as it is now.
pub fn snapshot(conversation: &Conversation) -> Snapshot {
    Snapshot {
        lines: conversation.lines(),
        views: conversation.views(),
        window_start: conversation.window_start(),
        has_more: conversation.has_more(),
        len: conversation.len(),
        session: conversation.session().cloned(),
        unfinished: conversation.unfinished_line().to_vec(),
    }
}

/// D1 after a successful call: a fresh load of the window's events gives the same `lines()` and
/// `views()` as `after` (the window's snapshot), and `state_at` agrees with `lines()`.
pub fn check_fresh_load(conversation: &Conversation, after: &Snapshot) {
    let mut fresh = Conversation::new();
    fresh
        .load(
            conversation.events().to_vec(),
            LoadOptions::default().with_has_more(conversation.has_more()),
        )
        .expect("a fresh load of the window's own events succeeds");
    assert_eq!(
        fresh.lines(),
        after.lines,
        "D1: lines differ from a fresh load"
    );
    assert_eq!(
        fresh.views(),
        after.views,
        "D1: views differ from a fresh load"
    );
    for line in &after.lines {
        let state = conversation.state_at(line.seq).map(|state| state.to_json());
        assert_eq!(
            state, line.system,
            "state_at({}) differs from lines()",
            line.seq
        );
    }
}
