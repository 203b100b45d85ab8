//! Arbitrary bytes as JSON text into `Conversation::load_json`, `append_json` and `prepend_json`.
//!
//! Input: one control byte, then up to four segments separated by the byte 0xFF (never part of
//! UTF-8, so a separator is never inside a character). Each segment becomes text with
//! `String::from_utf8_lossy` and is passed to the call that bits `2i..2i+2` of the control byte
//! name: 0 load (hasMore false), 1 append, 2 prepend (hasMore true), 3 load (hasMore true).
//! After every call: a failed call left `lines()`, `views()` and the rest of the window exactly
//! as before; a successful one gives the same `lines()` and `views()` as a fresh load of the
//! window's events (D1), and `state_at` agrees with `lines()`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use promptfold::{Conversation, ConversationChange, Error, EventLine, Seq, Views};

#[derive(Debug, PartialEq)]
struct Snapshot {
    lines: Vec<EventLine>,
    views: Views,
    window_start: Option<Seq>,
    has_more: bool,
    len: usize,
}

fn snapshot(conversation: &Conversation) -> Snapshot {
    Snapshot {
        lines: conversation.lines(),
        views: conversation.views(),
        window_start: conversation.window_start(),
        has_more: conversation.has_more(),
        len: conversation.len(),
    }
}

fn check_ok(conversation: &Conversation, after: &Snapshot) {
    let mut fresh = Conversation::new();
    fresh
        .load(conversation.events().to_vec(), conversation.has_more())
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

fuzz_target!(|data: &[u8]| {
    let Some((&control, rest)) = data.split_first() else {
        return;
    };
    let mut conversation = Conversation::new();
    for (index, segment) in rest.split(|&byte| byte == 0xFF).take(4).enumerate() {
        let text = String::from_utf8_lossy(segment);
        let before = snapshot(&conversation);
        let result: Result<ConversationChange, Error> = match (control >> (2 * index)) & 3 {
            0 => conversation.load_json(&text, false),
            1 => conversation.append_json(&text),
            2 => conversation.prepend_json(&text, true),
            _ => conversation.load_json(&text, true),
        };
        let after = snapshot(&conversation);
        match result {
            Ok(_) => check_ok(&conversation, &after),
            Err(err) => {
                assert!(!err.code().is_empty());
                let _ = err.to_string();
                assert_eq!(after, before, "a failed call changed the window: {err}");
            }
        }
        // Queries never panic, whatever the seq.
        for seq in [Seq::MIN, -1, 0, 1, Seq::MAX] {
            let _ = conversation.state_at(seq);
            let _ = conversation.request_at(seq);
        }
    }
});
