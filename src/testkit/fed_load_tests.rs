//! The test kit's tests of `loadJson` read in pieces (`Conversation::load_pieces`, a path of
//! the wasm API only): random logs of the test kit, so they live above every layer.

use proptest::prelude::*;
use serde_json::{json, Value};

use crate::testkit;
use crate::views::ConversationChange;
use crate::window::conversation::{Piece, PieceLoad};
use crate::window::options::LoadOptions;
use crate::Conversation;

/// Everything a window shows and keeps for the calls after a load.
fn observe(conversation: &Conversation) -> Value {
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

/// `load_pieces` of `text`, handed out in pieces of the sizes `sizes` cycles through.
fn load_in_pieces(
    window: &mut Conversation,
    text: &[u8],
    sizes: &[usize],
    has_more: bool,
) -> Option<ConversationChange> {
    let (mut at, mut turn) = (0, 0);
    let mut next = |room: &mut [u8]| {
        if at >= text.len() {
            return Piece::End;
        }
        let size = sizes[turn % sizes.len()]
            .min(room.len())
            .min(text.len() - at);
        turn += 1;
        room[..size].copy_from_slice(&text[at..at + size]);
        at += size;
        Piece::Read(size)
    };
    let loaded: PieceLoad = window.load_pieces(&mut next, has_more)?;
    let mut change = loaded.change;
    if loaded.all_cards_added {
        assert!(change.chat.added.is_empty());
        change.chat.added = window.cards_in_chat().cloned().collect();
    }
    Some(change)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// A load read in pieces equals `load_json` of the whole text: the change it reports
    /// and the window it leaves (a torn last line and seq-less rows included); only text
    /// that is not JSON lines is left to the whole-text reader.
    #[test]
    fn a_load_read_in_pieces_equals_load_json(
        before in testkit::valid_log(8),
        log in testkit::valid_log(30),
        sizes in prop::collection::vec(1usize..300, 1..6),
        framed in any::<bool>(),
        tail in 0usize..3,
        cut in any::<prop::sample::Index>(),
        crlf in any::<bool>(),
        has_more in any::<bool>(),
    ) {
        let mut rows = Vec::new();
        if framed {
            rows.push(json!({"type": "session", "version": 4, "id": "s-1"}));
        }
        rows.extend(log.iter().cloned());
        let mut text = testkit::lines_text(&rows).into_bytes();
        if crlf {
            text = String::from_utf8(text).unwrap().replace('\n', "\r\n").into_bytes();
        }
        if tail > 0 && !text.is_empty() {
            // The last line without its line end (an event), or cut anywhere (torn).
            text.truncate(text.len() - if crlf { 2 } else { 1 });
            if tail == 2 {
                let line_start = text.iter().rposition(|b| *b == b'\n').map_or(0, |at| at + 1);
                text.truncate(line_start + cut.index(text.len() - line_start));
            }
        }
        let options = LoadOptions::default().with_has_more(has_more);
        let mut expected = Conversation::new();
        expected.load_json(testkit::lines_text(&before).as_bytes(), LoadOptions::default()).unwrap();
        let mut got = expected.clone();
        let shown_before = observe(&expected);
        let expected_change = expected.load_json(&text[..], options);
        match (load_in_pieces(&mut got, &text, &sizes, has_more), expected_change) {
            (Some(change), Ok(expected_change)) => {
                prop_assert_eq!(change, expected_change);
                prop_assert_eq!(observe(&got), observe(&expected));
            }
            (Some(_), Err(error)) => prop_assert!(false, "load_json failed: {error}"),
            (None, _) => {
                prop_assert!(text.is_empty(), "JSON lines left to the whole-text reader");
                prop_assert_eq!(observe(&got), shown_before);
            }
        }
    }
}

#[test]
fn text_that_is_not_json_lines_is_left_to_the_whole_text_reader() {
    let events = r#"[{"seq":1,"time":1,"type":"turn/start","data":{"turn":1}}]"#;
    let mut window = Conversation::new();
    for text in [events, "\u{feff} \n", "", "{\n\"seq\": 1}\n", "x\n"] {
        assert!(load_in_pieces(&mut window, text.as_bytes(), &[3], false).is_none());
        assert_eq!(window.len(), 0);
    }
}

#[test]
fn a_piece_that_fails_leaves_the_window_as_it_was() {
    let line = "{\"seq\":1,\"time\":1,\"type\":\"turn/start\",\"data\":{\"turn\":1}}\n";
    let mut window = Conversation::new();
    window.load_json(line, LoadOptions::default()).unwrap();
    let before = observe(&window);
    let mut given = false;
    let mut next = |room: &mut [u8]| {
        if given {
            return Piece::Failed;
        }
        given = true;
        let later = line.replace(":1", ":2");
        room[..later.len()].copy_from_slice(later.as_bytes());
        Piece::Read(later.len())
    };
    assert!(window.load_pieces(&mut next, false).is_none());
    assert_eq!(observe(&window), before);
}
