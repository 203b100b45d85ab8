//! The test kit's tests of `loadJson` and `appendJson` read in pieces
//! (`Conversation::load_pieces`, `Conversation::append_pieces`: paths of the wasm API only):
//! random logs of the test kit, so they live above every layer.

use proptest::prelude::*;
use serde_json::{json, Value};

use crate::testkit;
use crate::views::ConversationChange;
use crate::window::conversation::{Piece, PieceLoad};
use crate::window::options::LoadOptions;
use crate::Conversation;

/// [`testkit::observed_window`], and what the window keeps for the calls after: the line numbers a `feed`
/// error gives (the lines read so far) and how a seq-less event fed next is numbered.
fn observe_more(conversation: &Conversation) -> Value {
    let mut after = conversation.clone();
    let error = after.feed("x\n").err().map(|error| error.to_string());
    let mut after = conversation.clone();
    let next = after
        .feed("\n{\"time\":1,\"type\":\"user/message\"}\n")
        .map(|_| after.events().last().map(|event| event.seq))
        .map_err(|error| error.to_string());
    json!({
        "window": testkit::observed_window(conversation),
        "feedError": error,
        "next": format!("{next:?}"),
    })
}

/// `text` handed out in pieces of the sizes `sizes` cycles through.
fn pieces<'a>(text: &'a [u8], sizes: &'a [usize]) -> impl FnMut(&mut [u8]) -> Piece + 'a {
    let (mut at, mut turn) = (0, 0);
    move |room: &mut [u8]| {
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
    }
}

/// The change report of a load read in pieces, its cards put in when it left them out.
fn reported(window: &Conversation, loaded: PieceLoad) -> ConversationChange {
    let mut change = loaded.change;
    if loaded.all_cards_added {
        assert!(change.chat.added.is_empty());
        change.chat.added = window.cards_in_chat().cloned().collect();
    }
    change
}

/// `append_pieces` of `text`, handed out in pieces of the sizes `sizes` cycles through.
fn append_in_pieces(
    window: &mut Conversation,
    text: &[u8],
    sizes: &[usize],
) -> Option<ConversationChange> {
    let loaded = window.append_pieces(&mut pieces(text, sizes))?;
    Some(reported(window, loaded))
}

/// The lines of `rows` as text: CRLF line ends or LF, and the last line whole, without its
/// line end (`tail` 1) or cut at `cut` (`tail` 2: torn).
fn log_text(rows: &[Value], crlf: bool, tail: usize, cut: prop::sample::Index) -> Vec<u8> {
    let mut text = testkit::lines_text(rows).into_bytes();
    if crlf {
        text = String::from_utf8(text)
            .unwrap()
            .replace('\n', "\r\n")
            .into_bytes();
    }
    if tail > 0 && !text.is_empty() {
        text.truncate(text.len() - if crlf { 2 } else { 1 });
        if tail == 2 {
            let line_start = text
                .iter()
                .rposition(|b| *b == b'\n')
                .map_or(0, |at| at + 1);
            text.truncate(line_start + cut.index(text.len() - line_start));
        }
    }
    text
}

/// `rows` without their seqs (a seq-less log) when `seqless`; replaces, which name seqs, are
/// left out then.
fn numbered(rows: &[Value], seqless: bool) -> Vec<Value> {
    let mut rows = rows.to_vec();
    if seqless {
        rows.retain(|row| !row.get("surfaceOp").is_some_and(Value::is_object));
        for row in &mut rows {
            if let Some(row) = row.as_object_mut() {
                row.remove("seq");
            }
        }
    }
    rows
}

/// `load_pieces` of `text`, handed out in pieces of the sizes `sizes` cycles through.
fn load_in_pieces(
    window: &mut Conversation,
    text: &[u8],
    sizes: &[usize],
    has_more: bool,
) -> Option<ConversationChange> {
    let loaded = window.load_pieces(&mut pieces(text, sizes), has_more)?;
    Some(reported(window, loaded))
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
        let shown_before = testkit::observed_window(&expected);
        let expected_change = expected.load_json(&text[..], options);
        match (load_in_pieces(&mut got, &text, &sizes, has_more), expected_change) {
            (Some(change), Ok(expected_change)) => {
                prop_assert_eq!(change, expected_change);
                prop_assert_eq!(testkit::observed_window(&got), testkit::observed_window(&expected));
            }
            (Some(_), Err(error)) => prop_assert!(false, "load_json failed: {error}"),
            (None, _) => {
                prop_assert!(text.is_empty(), "JSON lines left to the whole-text reader");
                prop_assert_eq!(testkit::observed_window(&got), shown_before);
            }
        }
    }
}

/// A line that breaks a batch: not JSON, not an event, or an event that does not follow.
fn broken_line(kind: usize, rows: &[Value]) -> String {
    match kind {
        0 => "x".to_owned(),
        1 => "[1]".to_owned(),
        2 => "{\"seq\":\"one\"}".to_owned(),
        // The first event again: its seq does not follow the ones before it.
        _ => rows
            .iter()
            .find(|row| row.get("seq").is_some())
            .map_or_else(|| "{\"seq\":-1}".to_owned(), |row| row.to_string()),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    /// An append read in pieces equals `append_json` of the whole text: the change it reports,
    /// the window it leaves and what it keeps for the calls after (lines read, numbering, a torn
    /// line); a batch that fails (a broken line anywhere) leaves the window as it was, and
    /// `append_json` then reports the error. Only text that is not JSON lines, or a window
    /// without events, is left to the whole-text reader.
    #[test]
    fn an_append_read_in_pieces_equals_append_json(
        log in testkit::valid_log(40),
        split in any::<prop::sample::Index>(),
        sizes in prop::collection::vec(1usize..300, 1..6),
        framed in any::<bool>(),
        seqless in prop::bool::weighted(0.25),
        torn_before in prop::bool::weighted(0.2),
        tail in 0usize..3,
        cut in any::<prop::sample::Index>(),
        crlf in any::<bool>(),
        has_more in any::<bool>(),
        broken in prop::option::weighted(0.25, (any::<prop::sample::Index>(), 0usize..4)),
    ) {
        let log = numbered(&log, seqless);
        let at = split.index(log.len() + 1);
        let mut before = Vec::new();
        if framed {
            before.push(json!({"type": "session", "version": 4, "id": "s-1"}));
        }
        before.extend(log[..at].iter().cloned());
        let mut before_text = testkit::lines_text(&before);
        if torn_before {
            before_text.push_str("{\"seq\":");
        }
        let mut batch: Vec<Value> = log[at..].to_vec();
        let mut text = log_text(&batch, crlf, tail, cut);
        if let Some((line, kind)) = broken {
            let mut lines: Vec<String> = String::from_utf8(text).unwrap()
                .split('\n').map(str::to_owned).collect();
            let line = line.index(lines.len());
            lines.insert(line, broken_line(kind, &log));
            text = lines.join("\n").into_bytes();
            batch.clear();
        }
        let mut expected = Conversation::new();
        let options = LoadOptions::default().with_has_more(has_more);
        prop_assume!(expected.load_json(before_text.as_bytes(), options).is_ok());
        let mut got = expected.clone();
        let shown_before = observe_more(&expected);
        let expected_change = expected.append_json(&text[..]);
        match (append_in_pieces(&mut got, &text, &sizes), expected_change) {
            (Some(change), Ok(expected_change)) => {
                prop_assert_eq!(change, expected_change);
                prop_assert_eq!(observe_more(&got), observe_more(&expected));
            }
            (Some(_), Err(error)) => prop_assert!(false, "append_json failed: {error}"),
            (None, expected_change) => {
                prop_assert_eq!(observe_more(&got), shown_before);
                if expected_change.is_ok() {
                    let blank = text.iter().all(|byte| byte.is_ascii_whitespace());
                    prop_assert!(blank || got.is_empty(), "JSON lines left to the whole-text reader");
                }
            }
        }
    }
}

#[test]
fn an_append_that_fails_in_a_later_piece_takes_its_events_off_again() {
    let line = |seq: u32| {
        format!(
            "{{\"seq\":{seq},\"time\":1,\"type\":\"turn/start\",\"data\":{{\"turn\":{seq}}}}}\n"
        )
    };
    let mut window = Conversation::new();
    window
        .load_json(line(1).as_str(), LoadOptions::default())
        .unwrap();
    let before = observe_more(&window);
    // Two pieces read well, then one that fails: the second piece's events were taken in.
    let mut given = 0;
    let mut next = |room: &mut [u8]| {
        given += 1;
        let text = match given {
            1 => line(2),
            2 => line(3) + &line(4),
            _ => return Piece::Failed,
        };
        room[..text.len()].copy_from_slice(text.as_bytes());
        Piece::Read(text.len())
    };
    assert!(window.append_pieces(&mut next).is_none());
    assert_eq!(given, 3);
    assert_eq!(observe_more(&window), before);
    // A later line that does not follow: the same.
    let text = line(2) + &line(3) + &line(2);
    assert!(append_in_pieces(&mut window, text.as_bytes(), &[40]).is_none());
    assert_eq!(observe_more(&window), before);
    assert!(window.append_json(text.as_str()).is_err());
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
    let before = testkit::observed_window(&window);
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
    assert_eq!(testkit::observed_window(&window), before);
}
