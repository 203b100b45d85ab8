//! Arbitrary bytes as JSON text, in session-log framing or not, into `Conversation::load_json`,
//! `append_json`, `prepend_json` (as bytes: a torn last line may end inside a character) and
//! `feed` (in pieces).
//!
//! Input: one control byte, then up to four segments separated by the byte 0xFF (never part of
//! UTF-8, so a separator is never inside a character). Each segment is passed to the call that
//! bits `2i..2i+2` of the control byte name: 0 load (hasMore false), 1 append, 2 prepend
//! (hasMore true), 3 feed, in pieces whose size the segment's first byte gives (1 to 256).
//! After every call: a failed call left `lines()`, `views()` and the rest of the window exactly
//! as before; a successful one gives the same `lines()` and `views()` as a fresh load of the
//! window's events (D1), and `state_at` agrees with `lines()`.
#![no_main]

#[path = "../shared/window.rs"]
mod window;

use libfuzzer_sys::fuzz_target;
use promptfold::LoadOptions;
use promptfold::{Conversation, ConversationChange, Error, Seq};
use window::{check_fresh_load, snapshot};

/// Feeds `segment` in pieces of the size its first byte gives, stopping at the first error (the
/// pieces before it stay fed, as a caller's would); the error is checked against the state
/// before that piece.
fn feed(conversation: &mut Conversation, segment: &[u8]) -> Result<ConversationChange, Error> {
    let size = segment.first().map_or(1, |first| usize::from(*first) + 1);
    let mut last = ConversationChange::default();
    for piece in segment.chunks(size) {
        let before = snapshot(conversation);
        match conversation.feed(piece) {
            Ok(change) => {
                assert!(
                    !conversation.unfinished_line().contains(&b'\n'),
                    "feed kept more than one line"
                );
                last = change;
            }
            Err(err) => {
                assert_eq!(
                    snapshot(conversation),
                    before,
                    "a failed feed changed the window: {err}"
                );
                assert!(!err.code().is_empty());
                // The pieces before it stay fed: the caller checks them as a success.
                return Ok(last);
            }
        }
    }
    Ok(last)
}

fuzz_target!(|data: &[u8]| {
    let Some((&control, rest)) = data.split_first() else {
        return;
    };
    let mut conversation = Conversation::new();
    for (index, segment) in rest.split(|&byte| byte == 0xFF).take(4).enumerate() {
        let before = snapshot(&conversation);
        let result: Result<ConversationChange, Error> = match (control >> (2 * index)) & 3 {
            0 => conversation.load_json(segment, LoadOptions::default()),
            1 => conversation.append_json(segment),
            2 => conversation.prepend_json(segment, LoadOptions::default().with_has_more(true)),
            _ => feed(&mut conversation, segment),
        };
        let after = snapshot(&conversation);
        match result {
            Ok(_) => check_fresh_load(&conversation, &after),
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
