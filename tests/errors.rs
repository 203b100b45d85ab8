//! One test per class of bad input (BEHAVIOUR.md section 9): the error variant, its `code()`,
//! `index()` and `seq()`, and the window exactly as it was after the failed call. Then what is
//! *not* an error: unknown types and fields, and wrongly typed optional fields, are ignored.
#![cfg(not(target_arch = "wasm32"))]
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

mod common;

use promptfold::LoadOptions;
use promptfold::{
    inspect_request_prompt, parse_events, Conversation, ConversationChange, Error, EventKind,
    HeaderReason, SurfaceOp, TurnField,
};
use serde_json::{json, Value};

/// A window of seqs 10..=14: a prompt, a header, a user message, a compaction.
const WINDOW: &str = r#"[
  {"seq":10,"time":1,"type":"turn/start","data":{"turn":1}},
  {"seq":11,"time":2,"type":"system/message","surfaceOp":"append",
   "data":{"turn":1,"step":1,"message":{"role":"system","content":[{"type":"text","text":"A"}]}}},
  {"seq":12,"time":3,"type":"request/header","data":{"reason":"initial","header":{"config":{},"tools":[]}}},
  {"seq":13,"time":4,"type":"user/message","surfaceOp":"append","data":{"role":"user","content":[]}},
  {"seq":14,"time":5,"type":"user/message","surfaceOp":{"op":"replace","startSeq":13,"endSeq":13},
   "data":{"role":"user","content":[]}}
]"#;

fn window() -> Conversation {
    let mut conversation = Conversation::new();
    conversation
        .load_json(WINDOW, LoadOptions::default().with_has_more(true))
        .expect("a valid window");
    conversation
}

/// Everything observable about a window.
fn observe(conversation: &Conversation) -> Value {
    json!({
        "lines": conversation.lines(),
        "views": conversation.views(),
        "windowStart": conversation.window_start(),
        "hasMore": conversation.has_more(),
        "len": conversation.len(),
        "stateAt13": conversation.state_at(13).map(|state| state.to_json()),
    })
}

type Call = fn(&mut Conversation, &str) -> Result<ConversationChange, Error>;

const LOAD: (&str, Call) = ("load_json", |c, t| c.load_json(t, LoadOptions::default()));
const APPEND: (&str, Call) = ("append_json", |c, t| c.append_json(t));
const PREPEND: (&str, Call) = ("prepend_json", |c, t| {
    c.prepend_json(t, LoadOptions::default())
});

/// Runs `call` with `text` on the sample window and on an empty one; both must fail with
/// `expected` and stay as they were.
fn rejects(calls: &[(&str, Call)], text: &str, expected: &Error) {
    for (name, call) in calls {
        for mut conversation in [window(), Conversation::new()] {
            let before = observe(&conversation);
            let result = call(&mut conversation, text);
            assert_eq!(result.as_ref().err(), Some(expected), "{name}({text})");
            assert_eq!(
                observe(&conversation),
                before,
                "{name}({text}) changed the window"
            );
        }
    }
}

/// Like [`rejects`], for every entry point that reads text.
fn rejects_everywhere(text: &str, expected: &Error) {
    assert_eq!(parse_events(text).as_ref().err(), Some(expected), "{text}");
    rejects(&[LOAD, APPEND, PREPEND], text, expected);
}

fn code_index_seq(err: &Error) -> (&'static str, Option<usize>, Option<i64>) {
    (err.code(), err.index(), err.seq())
}

#[test]
fn malformed_json_array_reports_line_and_column() {
    let text = "[\n  {\"seq\":20},\n  {\"seq\":21,,}\n]";
    let err = parse_events(text).unwrap_err();
    let Error::MalformedJson { line, column, .. } = &err else {
        panic!("expected MalformedJson, got {err:?}");
    };
    assert_eq!((*line, *column), (3, 13));
    assert_eq!(code_index_seq(&err), ("MALFORMED_JSON", None, None));
    assert!(err.to_string().contains("line 3"), "{err}");
    rejects_everywhere(text, &err);
}

#[test]
fn malformed_json_lines_report_the_line_of_the_file() {
    let text = "{\"seq\":20}\n\n{\"seq\":21,\"type\":}\n{\"seq\":22}\n";
    let err = parse_events(text).unwrap_err();
    let Error::MalformedJson { line, column, .. } = &err else {
        panic!("expected MalformedJson, got {err:?}");
    };
    assert_eq!((*line, *column), (3, 18));
    assert_eq!(code_index_seq(&err), ("MALFORMED_JSON", None, None));
    rejects_everywhere(text, &err);
    // CRLF line endings count lines the same way.
    assert_eq!(parse_events(&text.replace('\n', "\r\n")).unwrap_err(), err);
}

#[test]
fn other_malformed_text() {
    for text in [
        "[",
        "[{\"seq\":1}] trailing",
        "nul",
        "{\"seq\":1} {\"seq\":2}",
        // One byte order mark before the first row is skipped (BEHAVIOUR.md section 10), not two.
        "\u{feff}\u{feff}[]",
    ] {
        let err = parse_events(text).unwrap_err();
        assert_eq!(err.code(), "MALFORMED_JSON", "{text}: {err:?}");
        assert_eq!((err.index(), err.seq()), (None, None));
        rejects_everywhere(text, &err);
    }
}

#[test]
fn numbers_beyond_a_double_are_infinite_as_in_json_parse() {
    let err = parse_events("[{\"seq\":1e999}]").unwrap_err();
    assert_eq!(
        err,
        Error::InvalidSeq {
            index: 0,
            line: Some(1),
            found: "the number Infinity".to_owned()
        }
    );
}

#[test]
fn valid_json_that_is_not_an_array() {
    for (text, found) in [
        ("42", "number"),
        ("\"x\"", "string"),
        ("  null", "null"),
        ("true", "boolean"),
        ("-1.5e3", "number"),
    ] {
        let err = parse_events(text).unwrap_err();
        assert_eq!(
            err,
            Error::NotAnArray {
                found: found.to_owned()
            },
            "{text}"
        );
        assert_eq!(code_index_seq(&err), ("NOT_AN_ARRAY", None, None));
        rejects_everywhere(text, &err);
    }
}

#[test]
fn an_element_that_is_not_an_object() {
    for (element, found) in [
        ("5", "the number 5"),
        ("1.5", "the number 1.5"),
        ("\"x\"", "a string"),
        ("null", "null"),
        ("true", "a boolean"),
        ("[{\"seq\":21}]", "an array"),
    ] {
        let text = format!("[{{\"seq\":20}},{element},{{\"seq\":22}}]");
        let expected = Error::NotAnObject {
            index: 1,
            line: Some(1),
            found: found.to_owned(),
        };
        assert_eq!(code_index_seq(&expected), ("NOT_AN_OBJECT", Some(1), None));
        rejects_everywhere(&text, &expected);
    }
    // A JSON line that is not an object.
    rejects_everywhere(
        "{\"seq\":20}\n42\n",
        &Error::NotAnObject {
            index: 1,
            line: Some(2),
            found: "the number 42".to_owned(),
        },
    );
}

#[test]
fn missing_seq() {
    let expected = Error::MissingSeq {
        index: 1,
        line: Some(1),
    };
    assert_eq!(code_index_seq(&expected), ("MISSING_SEQ", Some(1), None));
    rejects_everywhere(
        r#"[{"seq":20},{"type":"system/message","time":1,"data":{}}]"#,
        &expected,
    );
    let expected = Error::MissingSeq {
        index: 1,
        line: Some(2),
    };
    rejects_everywhere("{\"seq\":20}\n{\"time\":1}", &expected);
}

#[test]
fn seq_that_is_not_a_safe_integer() {
    for (seq, found) in [
        ("20.5", "the number 20.5"),
        ("\"21\"", "a string"),
        ("null", "null"),
        ("true", "a boolean"),
        ("[21]", "an array"),
        ("{}", "an object"),
        ("9007199254740992", "the number 9007199254740992"),
        ("-9007199254740992", "the number -9007199254740992"),
        ("18446744073709551615", "the number 18446744073709552000"),
        ("1e300", "the number 1e+300"),
        (
            "123456789012345678901234567890",
            "the number 1.2345678901234568e+29",
        ),
    ] {
        let text = format!("[{{\"seq\":20}},{{\"seq\":{seq}}}]");
        let expected = Error::InvalidSeq {
            index: 1,
            line: Some(1),
            found: found.to_owned(),
        };
        assert_eq!(code_index_seq(&expected), ("INVALID_SEQ", Some(1), None));
        rejects_everywhere(&text, &expected);
    }
    // The safe limits themselves, and integral floats, are seqs.
    let events = parse_events(
        r#"[{"seq":-9007199254740991},{"seq":21.0},{"seq":-0.0},{"seq":9007199254740991}]"#,
    )
    .unwrap();
    let seqs: Vec<i64> = events.iter().map(|event| event.seq).collect();
    assert_eq!(seqs, [-9007199254740991, 21, 0, 9007199254740991]);
}

#[test]
fn non_increasing_seq_within_a_batch() {
    for (text, seq, previous) in [
        (r#"[{"seq":20},{"seq":20}]"#, 20, 20),
        (r#"[{"seq":20},{"seq":19}]"#, 19, 20),
    ] {
        // parse_events does not order events; the window does.
        assert!(parse_events(text).is_ok());
        let expected = Error::NonIncreasingSeq {
            index: 1,
            line: Some(1),
            seq,
            previous,
        };
        assert_eq!(
            code_index_seq(&expected),
            ("NON_INCREASING_SEQ", Some(1), Some(seq))
        );
        rejects(&[LOAD, APPEND], text, &expected);
        // A prepended page is checked for order before it is checked against the window.
        let page = text.replace("20", "2").replace("19", "1");
        let expected = Error::NonIncreasingSeq {
            index: 1,
            line: Some(1),
            seq: seq - 18,
            previous: previous - 18,
        };
        rejects(&[PREPEND], &page, &expected);
    }
}

#[test]
fn non_increasing_seq_against_the_window_on_append() {
    for (text, index, seq) in [
        (r#"[{"seq":14}]"#, 0, 14),
        (r#"[{"seq":3}]"#, 0, 3),
        (r#"[{"seq":15},{"seq":15}]"#, 1, 15),
    ] {
        let mut conversation = window();
        let before = observe(&conversation);
        let err = conversation.append_json(text).unwrap_err();
        let previous = if index == 0 { 14 } else { 15 };
        assert_eq!(
            err,
            Error::NonIncreasingSeq {
                index,
                line: Some(1),
                seq,
                previous
            }
        );
        assert_eq!(
            code_index_seq(&err),
            ("NON_INCREASING_SEQ", Some(index), Some(seq))
        );
        assert_eq!(observe(&conversation), before);
    }
}

#[test]
fn a_prepended_page_not_older_than_the_window() {
    for (text, index, seq) in [
        (r#"[{"seq":8},{"seq":10}]"#, 1, 10),
        (r#"[{"seq":12}]"#, 0, 12),
        (r#"[{"seq":8},{"seq":9},{"seq":30}]"#, 2, 30),
    ] {
        let mut conversation = window();
        let before = observe(&conversation);
        let err = conversation
            .prepend_json(text, LoadOptions::default())
            .unwrap_err();
        assert_eq!(
            err,
            Error::PrependNotOlder {
                index,
                line: Some(1),
                seq,
                window_start: 10
            }
        );
        assert_eq!(
            code_index_seq(&err),
            ("PREPEND_NOT_OLDER", Some(index), Some(seq))
        );
        assert_eq!(observe(&conversation), before, "{text}");
    }
}

#[test]
fn every_wrong_surface_op_shape() {
    let shapes = [
        (r#""replace""#, "the string \"replace\""),
        (r#""prepend""#, "the string \"prepend\""),
        (r#""""#, "the string \"\""),
        (r#""Append""#, "the string \"Append\""),
        ("5", "the number 5"),
        ("true", "a boolean"),
        ("[]", "an array"),
        ("{}", "op must be \"replace\", found nothing"),
        (
            r#"{"op":"append","startSeq":1,"endSeq":1}"#,
            "op must be \"replace\", found a string",
        ),
        (
            r#"{"op":"Replace","startSeq":1,"endSeq":1}"#,
            "op must be \"replace\"",
        ),
        (
            r#"{"startSeq":1,"endSeq":1}"#,
            "op must be \"replace\", found nothing",
        ),
        (r#"{"op":5,"startSeq":1,"endSeq":1}"#, "found the number 5"),
        (
            r#"{"op":"replace"}"#,
            "startSeq must be an integer, found nothing",
        ),
        (
            r#"{"op":"replace","startSeq":1}"#,
            "endSeq must be an integer, found nothing",
        ),
        (
            r#"{"op":"replace","endSeq":1}"#,
            "startSeq must be an integer, found nothing",
        ),
        (
            r#"{"op":"replace","startSeq":"1","endSeq":1}"#,
            "startSeq must be an integer, found a string",
        ),
        (
            r#"{"op":"replace","startSeq":1,"endSeq":1.5}"#,
            "endSeq must be an integer, found the number 1.5",
        ),
        (
            r#"{"op":"replace","startSeq":null,"endSeq":1}"#,
            "startSeq must be an integer, found null",
        ),
        (
            r#"{"op":"replace","startSeq":1,"endSeq":[1]}"#,
            "endSeq must be an integer, found an array",
        ),
        (
            r#"{"op":"replace","startSeq":1e300,"endSeq":1}"#,
            "startSeq must be an integer, found the number 1e+300",
        ),
        (
            r#"{"op":"replace","startSeq":21,"endSeq":1}"#,
            "startSeq 21 must be less than the event's seq",
        ),
        (
            r#"{"op":"replace","startSeq":1,"endSeq":21}"#,
            "endSeq 21 must be less than the event's seq",
        ),
        (
            r#"{"op":"replace","startSeq":1,"endSeq":900}"#,
            "endSeq 900 must be less than the event's seq",
        ),
    ];
    for (op, reason) in shapes {
        let text = format!(
            r#"[{{"seq":20,"type":"user/message","surfaceOp":"append"}},
               {{"seq":21,"type":"system/message","surfaceOp":{op},"data":{{}}}}]"#
        );
        let err = parse_events(&text).unwrap_err();
        let Error::InvalidSurfaceOp {
            index: 1,
            line: Some(2),
            seq: 21,
            reason: actual,
        } = &err
        else {
            panic!("{op}: expected InvalidSurfaceOp at index 1, seq 21, got {err:?}");
        };
        assert!(
            actual.contains(reason),
            "{op}: reason {actual:?} lacks {reason:?}"
        );
        assert_eq!(
            code_index_seq(&err),
            ("INVALID_SURFACE_OP", Some(1), Some(21))
        );
        assert!(err.to_string().contains("seq 21"), "{err}");
        rejects_everywhere(&text, &err);
    }
}

#[test]
fn the_first_error_in_a_batch_wins() {
    let text = r#"[{"seq":20},{"seq":21,"surfaceOp":5},{"seq":"x"}]"#;
    assert_eq!(parse_events(text).unwrap_err().index(), Some(1));
    // A bad seq is reported before a bad surfaceOp on the same event.
    let text = r#"[{"seq":"x","surfaceOp":5}]"#;
    assert_eq!(parse_events(text).unwrap_err().code(), "INVALID_SEQ");
}

#[test]
fn inspect_request_prompt_on_a_non_header() {
    let events = parse_events(WINDOW).unwrap();
    for event in events.iter().filter(|event| event.header().is_none()) {
        let err = inspect_request_prompt(None, event, None).unwrap_err();
        assert_eq!(err, Error::NotARequestHeader { seq: event.seq });
        assert_eq!(
            code_index_seq(&err),
            ("NOT_A_REQUEST_HEADER", None, Some(event.seq))
        );
    }
    let header = &events[2];
    assert!(inspect_request_prompt(None, header, None).is_ok());
}

#[test]
fn unknown_types_and_fields_are_ignored() {
    let plain = window();
    // Unknown fields everywhere, on the event, in data, in the message, in the header.
    let decorated = WINDOW
        .replace(
            "\"time\":",
            "\"sourceEventSeqs\":[1,2],\"ignorable\":true,\"x\":{\"seq\":\"no\"},\"time\":",
        )
        .replace("\"data\":{", "\"data\":{\"extra\":[1,{\"turn\":\"x\"}],")
        .replace("\"role\":", "\"id\":\"m-1\",\"role\":")
        .replace("\"config\":{}", "\"config\":{},\"cache\":{\"a\":1}");
    let mut conversation = Conversation::new();
    conversation
        .load_json(&decorated, LoadOptions::default().with_has_more(true))
        .unwrap();
    assert_eq!(observe(&conversation), observe(&plain));
    // Unknown event types are loaded (one line each) and change nothing else.
    let with_unknown = WINDOW.replace(
        "\n]",
        ",\n{\"seq\":15,\"time\":6,\"type\":\"agent/inbox/spliced\",\"data\":{\"items\":[]}},\n\
         {\"seq\":16,\"type\":\"mystery\",\"q\":0}\n]",
    );
    let events = parse_events(&with_unknown).unwrap();
    assert_eq!(events.len(), 7);
    assert_eq!(
        (&events[5].kind, &events[6].kind),
        (&EventKind::Other, &EventKind::Other)
    );
    let mut conversation = Conversation::new();
    conversation
        .load(events, LoadOptions::default().with_has_more(true))
        .unwrap();
    assert_eq!(json!(conversation.views()), json!(plain.views()));
    let lines = json!(conversation.lines());
    let lines = lines.as_array().unwrap();
    assert_eq!(json!(lines[..5]), json!(plain.lines()));
    assert_eq!(lines[6]["system"], lines[4]["system"]);
    assert_eq!(lines[6]["seq"], 16);
}

#[test]
fn wrongly_typed_optional_fields_are_ignored() {
    let text = r#"[
      {"seq":1,"time":"late","type":"system/message","surfaceOp":null,
       "data":{"turn":-1,"step":1.5,"message":{"content":[5,"x",null,{"type":"text","text":5},
         {"type":5,"text":"no"},{"type":"text"},{"text":"no"},{"type":"text","text":"yes"}]}}},
      {"seq":2,"time":[],"type":"system/message","data":{"turn":"1","step":-2,"message":"hi"}},
      {"seq":3,"type":"system/message","data":{"turn":1e300,"message":{"content":{"type":"text","text":"no"}}}},
      {"seq":4,"type":"system/message","data":[1,2]},
      {"seq":5,"type":"request/header","data":{"header":5,"reason":5,"startsSeries":"yes"}},
      {"seq":6,"type":"request/header","data":{"header":{"config":null,"tools":{"a":1}},"reason":"INITIAL","startsSeries":1}},
      {"seq":7,"type":5,"data":{"turn":2}},
      {"seq":8,"type":"turn/start","data":"x"},
      {"seq":9,"type":"step/start","data":{"turn":null,"step":"1"}}
    ]"#;
    let events = parse_events(text).unwrap();
    let e = &events;
    assert_eq!(
        (e[0].time, e[0].turn(), e[0].step()),
        (0.0, TurnField::Absent, None)
    );
    assert_eq!(e[0].surface_op(), None);
    assert_eq!(e[0].system_text().map(|t| &**t), Some("yes"));
    assert_eq!(
        (e[1].time, e[1].turn(), e[1].step()),
        (0.0, TurnField::Absent, None)
    );
    assert_eq!(e[1].system_text().map(|t| &**t), Some(""));
    assert_eq!(e[2].turn(), TurnField::Absent);
    assert_eq!(e[2].system_text().map(|t| &**t), Some(""));
    assert_eq!(e[3].system_text().map(|t| &**t), Some(""));
    let header = e[4].header().expect("a header");
    assert_eq!(header.config, None);
    assert_eq!(*header.tools, promptfold::JsonValue::Array(Vec::new()));
    assert_eq!(header.reason, HeaderReason::Other);
    assert!(!header.starts_series);
    let header = e[5].header().expect("a header");
    assert_eq!(header.config.as_deref(), Some(&promptfold::JsonValue::Null));
    assert_eq!(&*header.tools_text, "[]");
    assert_eq!(header.reason, HeaderReason::Other);
    assert!(!header.starts_series);
    assert_eq!(
        (e[6].kind.clone(), e[6].turn()),
        (EventKind::Other, TurnField::Turn(2))
    );
    assert_eq!(
        (e[7].kind.clone(), e[7].turn()),
        (EventKind::TurnStart, TurnField::Absent)
    );
    assert_eq!((e[8].turn(), e[8].step()), (TurnField::Null, None));
    assert!(
        e.iter()
            .all(|event| event.surface_op().is_none()
                || event.surface_op() == Some(SurfaceOp::Append))
    );
    // The whole batch loads, and its outputs serialize.
    let mut conversation = Conversation::new();
    conversation.load(events, LoadOptions::default()).unwrap();
    let _ = json!({ "lines": conversation.lines(), "views": conversation.views() });
}

#[test]
fn malformed_text_wins_over_an_earlier_invalid_event() {
    for text in [
        "[{\"type\":\"x\"},{\"seq\":2,}]",
        "{\"type\":\"x\"}\n{\"seq\":2,}\n",
    ] {
        let err = parse_events(text).unwrap_err();
        assert_eq!(err.code(), "MALFORMED_JSON", "{text}: {err:?}");
        rejects_everywhere(text, &err);
    }
    // Well-formed text: the first invalid event in batch order is the error.
    let err = parse_events("[{\"seq\":1},{\"type\":\"x\"},{\"seq\":\"x\"}]").unwrap_err();
    assert_eq!(code_index_seq(&err), ("MISSING_SEQ", Some(1), None));
}

/// Bytes no text file holds, as the files a user may hand over by mistake begin: gzip, PNG,
/// NULs, and pseudo-random bytes (a fixed xorshift, so the run is repeatable).
fn binary_files() -> Vec<(&'static str, Vec<u8>, &'static str)> {
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
    let random: Vec<u8> = (0..4096)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 56) as u8
        })
        .collect();
    vec![
        (
            "gzip",
            vec![
                0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, b'\n',
            ],
            "0x1f",
        ),
        (
            "png",
            b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x10".to_vec(),
            "0x89",
        ),
        ("nul", b"\0\0\0\0\0\0\0\0\n".to_vec(), "0x00"),
        ("nul after text", b"abc\0def\n".to_vec(), "0x00"),
        ("random", random, "0x"),
    ]
}

/// The errors of `bytes` read whole (`load_json`), fed (`feed`, then a line end) and streamed
/// (`LedgerStream::feed`, then a line end), each named by its call.
fn errors_of_every_reader(bytes: &[u8]) -> [(&'static str, promptfold::Error); 3] {
    let mut conversation = Conversation::new();
    let loaded = conversation.load_json(bytes, LoadOptions::default());
    let mut fed = Conversation::new();
    let fed = fed.feed(bytes).and_then(|_| fed.feed("\n"));
    let mut stream = promptfold::LedgerStream::new(&promptfold::CacheOptions::default()).unwrap();
    let streamed = stream.feed(bytes).and_then(|()| stream.feed("\n"));
    [
        ("load_json", loaded.map(drop).unwrap_err()),
        ("feed", fed.map(drop).unwrap_err()),
        ("LedgerStream::feed", streamed.unwrap_err()),
    ]
}

#[test]
fn binary_data_is_named_as_not_text() {
    for (name, bytes, byte) in binary_files() {
        for (call, err) in errors_of_every_reader(&bytes) {
            assert_eq!(err.code(), "MALFORMED_JSON", "{name} {call}: {err}");
            let message = err.to_string();
            assert!(
                message.contains(&format!("byte {byte}")) && message.contains("not text"),
                "{name} {call}: {message}"
            );
            assert!(message.contains("binary data?"), "{name} {call}: {message}");
        }
    }
}

#[test]
fn utf16_text_is_named_as_utf16() {
    let line = "{\"seq\":1,\"time\":1,\"type\":\"turn/start\",\"data\":{}}\r\n";
    let little: Vec<u8> = line.encode_utf16().flat_map(u16::to_le_bytes).collect();
    let mut marked = vec![0xff, 0xfe];
    marked.extend_from_slice(&little);
    let big: Vec<u8> = line.encode_utf16().flat_map(u16::to_be_bytes).collect();
    for (name, bytes) in [("marked", marked), ("little", little), ("big", big)] {
        for (call, err) in errors_of_every_reader(&bytes) {
            assert_eq!(err.code(), "MALFORMED_JSON", "{name} {call}: {err}");
            let message = err.to_string();
            assert!(
                message.contains("line 1, column 1: the text is UTF-16;"),
                "{name} {call}: {message}"
            );
        }
    }
}

#[test]
fn binary_data_after_good_lines_names_its_line_and_column() {
    let mut text = b"{\"seq\":1,\"time\":1,\"type\":\"turn/start\",\"data\":{}}\n".to_vec();
    text.extend_from_slice(b"{\"seq\":2,\"time\":2,\"type\":\"turn/start\",\"data\":{}}\n");
    text.extend_from_slice(b"ab\x1f\x8b\x08\n");
    let mut conversation = Conversation::new();
    let err = conversation
        .load_json(&text, LoadOptions::default())
        .unwrap_err();
    let Error::MalformedJson {
        line,
        column,
        message,
    } = &err
    else {
        panic!("expected MalformedJson, got {err:?}");
    };
    assert_eq!((*line, *column), (3, 3), "{message}");
    assert!(message.contains("byte 0x1f is not text"), "{message}");
    // Fed in pieces: the same line of the file.
    let mut fed = Conversation::new();
    let (good, bad) = text.split_at(text.len() - 6);
    fed.feed(good).unwrap();
    assert_eq!(fed.feed(bad).unwrap_err(), err);
}

#[test]
fn text_in_another_encoding_is_not_called_binary() {
    // Latin-1: not UTF-8, but text (no control byte).
    let text = b"{\"seq\":1,\"time\":1,\"type\":\"user/message\",\"data\":{\"x\":\"caf\xe9\"}}\n";
    let err = Conversation::new()
        .load_json(text, LoadOptions::default())
        .unwrap_err();
    assert_eq!(err.code(), "MALFORMED_JSON");
    assert!(err.to_string().contains("invalid UTF-8"), "{err}");
    // A raw escape character is a JSON fault, not binary data.
    let err = parse_events("{\"seq\":1,\"x\":\"\u{1b}[31m\"}\n").unwrap_err();
    assert!(!err.to_string().contains("binary"), "{err}");
}

/// Where an error that names a row points in text: its code, index and line.
type Place = (&'static str, Option<usize>, Option<usize>);

fn place(error: &Error) -> Place {
    (error.code(), error.index(), error.line())
}

/// What each reader of text gives for `text` read whole, as a session log from its start (an
/// empty window), or fed in pieces of every size in `sizes` (the window and the ledger stream).
fn places_everywhere(text: &str, sizes: &[usize]) -> Vec<(String, Option<Place>)> {
    let mut places = Vec::new();
    let mut add = |name: String, result: Result<(), Error>| {
        places.push((name, result.err().as_ref().map(place)));
    };
    type Whole = fn(&mut Conversation, &str) -> Result<ConversationChange, Error>;
    let whole: [(&str, Whole); 5] = [
        ("load_json", |c, t| c.load_json(t, LoadOptions::default())),
        ("load_json bytes", |c, t| {
            c.load_json(t.as_bytes(), LoadOptions::default())
        }),
        ("append_json", |c, t| c.append_json(t)),
        ("prepend_json", |c, t| {
            c.prepend_json(t, LoadOptions::default())
        }),
        ("feed whole", |c, t| c.feed(t)),
    ];
    for (name, call) in whole {
        add(
            name.to_owned(),
            call(&mut Conversation::new(), text).map(drop),
        );
    }
    for &size in sizes {
        let mut conversation = Conversation::new();
        let mut stream = promptfold::LedgerStream::new(&promptfold::CacheOptions::default())
            .expect("default options");
        let (mut fed, mut streamed) = (Ok(()), Ok(()));
        for piece in text.as_bytes().chunks(size) {
            if fed.is_ok() {
                fed = conversation.feed(piece).map(drop);
            }
            if streamed.is_ok() {
                streamed = stream.feed(piece);
            }
        }
        add(format!("feed in pieces of {size}"), fed);
        add(format!("LedgerStream in pieces of {size}"), streamed);
    }
    places
}

/// Every reader of `text` fails at `expected`.
fn fails_everywhere_at(text: &str, expected: Place) {
    for (name, actual) in places_everywhere(text, &[1, 3, 16, 1000]) {
        assert_eq!(actual, Some(expected), "{name}: {text:?}");
    }
}

/// SPEC 10.8: the example of the review, a header, an event, two blank lines and an event
/// repeating the seq.
#[test]
fn an_error_of_a_row_in_text_names_its_line() {
    let text = "{\"type\":\"session\",\"version\":4}\n{\"seq\":1}\n\n\n{\"seq\":1}\n";
    let error = Conversation::new()
        .load_json(text, LoadOptions::default())
        .unwrap_err();
    assert_eq!(
        error,
        Error::NonIncreasingSeq {
            index: 2,
            line: Some(5),
            seq: 1,
            previous: 1
        }
    );
    assert_eq!(
        error.to_string(),
        "line 5: event 2 (seq 1): seq must be greater than the previous seq 1"
    );
    fails_everywhere_at(text, ("NON_INCREASING_SEQ", Some(2), Some(5)));
    // Given as values, the events have no line.
    let events = parse_events(text).unwrap();
    let error = Conversation::new()
        .load(events, LoadOptions::default())
        .unwrap_err();
    assert_eq!(place(&error), ("NON_INCREASING_SEQ", Some(1), None));
    assert!(error.to_string().starts_with("event 1 "), "{error}");
}

/// Each error that names a row, in JSON lines with a header, blank lines and `\r\n`, and in a
/// JSON array over several lines: every reader of text names the row's line.
#[test]
fn every_error_of_a_row_names_its_line_from_every_reader() {
    let header = r#"{"type":"session","version":4}"#;
    let cases: [(&str, &str, &str); 6] = [
        ("NOT_AN_OBJECT", r#"{"seq":1}"#, "42"),
        (
            "NOT_AN_OBJECT",
            r#"{"seq":1}"#,
            r#"{"method":"session.event"}"#,
        ),
        ("MISSING_SEQ", r#"{"seq":1}"#, r#"{"type":"x"}"#),
        ("INVALID_SEQ", r#"{"seq":1}"#, r#"{"seq":"2"}"#),
        ("NON_INCREASING_SEQ", r#"{"seq":5}"#, r#"{"seq":4}"#),
        (
            "INVALID_SURFACE_OP",
            r#"{"seq":1}"#,
            r#"{"seq":2,"type":"system/message","surfaceOp":"bogus"}"#,
        ),
    ];
    for (code, good, bad) in cases {
        // Rows: header (line 2), good (4), a skipped notification (5), bad (8).
        let status = r#"{"jsonrpc":"2.0","method":"session.status"}"#;
        let text = format!("\n{header}\r\n \n{good}\n{status}\n\n\t\r\n{bad}\n{good}\n");
        fails_everywhere_at(&text, (code, Some(3), Some(8)));
        if code != "NON_INCREASING_SEQ" {
            let error = parse_events(&text).unwrap_err();
            assert_eq!(place(&error), (code, Some(3), Some(8)));
            assert!(error.to_string().starts_with("line 8: "), "{error}");
        }
        let array = format!("[\n{header},\n\n  {good}, {status},\n{bad}\n]");
        for (name, actual) in places_everywhere(&array, &[]) {
            if name.starts_with("feed") {
                continue;
            }
            assert_eq!(actual, Some((code, Some(3), Some(5))), "{name}: {array}");
        }
    }
    // A header of an old format is the first row.
    let text = "\n\n{\"type\":\"session\",\"version\":2}\n{\"seq\":1}\n";
    fails_everywhere_at(text, ("UNSUPPORTED_FORMAT_VERSION", Some(0), Some(3)));
}

/// Appended and prepended text is its own batch; a fed piece counts from the first byte fed
/// into the window (its load included), as the line of a malformed row does.
#[test]
fn appended_prepended_and_fed_rows_count_from_their_text() {
    let load = "{\"type\":\"session\",\"version\":4}\n{\"seq\":10}\n\n{\"seq\":11}\n";
    let loaded = || {
        let mut conversation = Conversation::new();
        conversation
            .load_json(load, LoadOptions::default().with_has_more(true))
            .unwrap();
        conversation
    };
    let more = "\n{\"seq\":12}\n{\"seq\":12}\n";
    let error = loaded().append_json(more).unwrap_err();
    assert_eq!(place(&error), ("NON_INCREASING_SEQ", Some(1), Some(3)));
    let error = loaded()
        .prepend_json("{\"seq\":1}\n\n{\"seq\":10}\n", LoadOptions::default())
        .unwrap_err();
    assert_eq!(place(&error), ("PREPEND_NOT_OLDER", Some(1), Some(3)));
    // Fed after the load: rows 3 and 4, lines 6 and 7 of the whole text.
    for size in [1, 4, more.len()] {
        let mut conversation = loaded();
        let error = more
            .as_bytes()
            .chunks(size)
            .find_map(|piece| conversation.feed(piece).err())
            .unwrap();
        assert_eq!(place(&error), ("NON_INCREASING_SEQ", Some(4), Some(7)));
        // After an append, feed goes on counting.
        let mut conversation = loaded();
        conversation.append_json("{\"seq\":12}\n\n").unwrap();
        let error = conversation.feed("{\"seq\":13}\n{\"x\":1}\n").unwrap_err();
        assert_eq!(place(&error), ("MISSING_SEQ", Some(5), Some(8)));
        // A bad row after a malformed one is not reached: the malformed line wins, counted
        // the same way.
        let error = conversation.feed("{\"seq\":13}\n{oops}\n").unwrap_err();
        assert_eq!(place(&error), ("MALFORMED_JSON", None, Some(8)));
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(200))]

    /// For random logs with one bad row, random blank lines and line ends and random pieces,
    /// every reader of text names the bad row's line and index.
    #[test]
    fn the_line_reported_is_the_bad_rows_line(
        events in 1usize..12,
        header in proptest::bool::ANY,
        blanks in proptest::collection::vec(0usize..3, 14),
        crlf in proptest::bool::ANY,
        bad_at in 0usize..12,
        bad_kind in 0usize..4,
        size in 1usize..64,
    ) {
        let bad_at = bad_at % (events + 1);
        let line_end = if crlf { "\r\n" } else { "\n" };
        let blank_lines = ["", " ", "\t\r"];
        let mut text = String::new();
        let (mut line, mut row) = (1, 0);
        let mut expected = None;
        let mut rows: Vec<String> = Vec::new();
        if header {
            rows.push(r#"{"type":"session","version":4}"#.to_owned());
        }
        for seq in 0..=events {
            if seq == bad_at {
                // Text that starts with anything but an object is not JSON lines; the first
                // event has no seq before it to repeat, and without one it starts a seq-less
                // log.
                let first_row = seq == 0 && !header;
                let bad = match bad_kind {
                    0 if !first_row => "7".to_owned(),
                    1 if seq > 0 => r#"{"type":"x"}"#.to_owned(),
                    3 if seq > 0 => format!("{{\"seq\":{}}}", seq - 1),
                    _ => r#"{"seq":true}"#.to_owned(),
                };
                rows.push(bad);
            } else {
                rows.push(format!("{{\"seq\":{seq},\"type\":\"step/start\"}}"));
            }
        }
        let bad_row = bad_at + usize::from(header);
        for (at, text_row) in rows.iter().enumerate() {
            for _ in 0..blanks[at % blanks.len()] {
                text.push_str(blank_lines[at % 3]);
                text.push_str(line_end);
                line += 1;
            }
            if at == bad_row {
                expected = Some((line, row));
            }
            text.push_str(text_row);
            text.push_str(line_end);
            line += 1;
            row += 1;
        }
        let (line, row) = expected.unwrap();
        for (name, actual) in places_everywhere(&text, &[size]) {
            let actual = actual.unwrap_or_else(|| panic!("{name} read {text:?}"));
            proptest::prop_assert_eq!(
                (actual.1, actual.2),
                (Some(row), Some(line)),
                "{} ({}): {:?}",
                name,
                actual.0,
                text
            );
        }
    }
}

/// `feed` after text whose line ends were not counted (a JSON array over several lines, a text
/// without a line end) names the row's index, counted from the start, and no line: a line
/// counted from the fed text alone would be wrong. After JSON lines it names the line.
#[test]
fn feed_after_a_json_array_names_no_line_and_after_json_lines_the_right_one() {
    let event = |seq: u32| format!("{{\"seq\":{seq},\"time\":{seq},\"type\":\"user/message\"}}");
    let fed = format!("{}\n{}\n", event(3), event(3));
    let array = format!("[\n  {},\n  {}\n]\n", event(1), event(2));
    let lines = format!("{}\n{}\n", event(1), event(2));
    let one_line = format!("[{},{}]", event(1), event(2));
    let cases = [
        (array.as_str(), None),
        (one_line.as_str(), None),
        (lines.as_str(), Some(4)),
    ];
    for (text, line) in cases {
        // The array loaded, or appended to an empty window, or appended after JSON lines.
        let mut loaded = Conversation::new();
        loaded.load_json(text, LoadOptions::default()).unwrap();
        let error = loaded.feed(fed.as_str()).unwrap_err();
        assert_eq!(
            place(&error),
            ("NON_INCREASING_SEQ", Some(3), line),
            "{text}"
        );
        if line.is_none() {
            assert!(error.to_string().starts_with("event 3 "), "{error}");
        }
    }
    let mut appended = Conversation::new();
    appended
        .load_json(lines.as_str(), LoadOptions::default())
        .unwrap();
    appended
        .append_json(format!("[\n{}\n]", event(3)).as_str())
        .unwrap();
    let error = appended
        .feed(format!("{}\n{}\n", event(4), event(4)).as_str())
        .unwrap_err();
    assert_eq!(place(&error), ("NON_INCREASING_SEQ", Some(4), None));
    // Malformed JSON always names a line: counted from the end of the array's text.
    appended.feed(format!("{}\n", event(4)).as_str()).unwrap();
    let error = appended.feed("{bad\n").unwrap_err();
    assert_eq!(place(&error), ("MALFORMED_JSON", None, Some(2)));
    // A load of JSON lines counts again from its start.
    appended
        .load_json(lines.as_str(), LoadOptions::default())
        .unwrap();
    let error = appended.feed(fed.as_str()).unwrap_err();
    assert_eq!(place(&error), ("NON_INCREASING_SEQ", Some(3), Some(4)));
}

/// Events given as values are rows of the log without lines: a `feed` after them counts its
/// rows' indexes on from them, as the wasm build does (`tests/js/error-lines.test.mjs`).
#[test]
fn feed_after_values_counts_their_rows() {
    let values = |seqs: &[u32]| {
        let rows: Vec<String> = seqs
            .iter()
            .map(|seq| format!("{{\"seq\":{seq},\"time\":{seq},\"type\":\"user/message\"}}"))
            .collect();
        parse_events(format!("[{}]", rows.join(",")).as_str()).unwrap()
    };
    let fed = "{\"seq\":9,\"time\":9,\"type\":\"user/message\"}\n{\"seq\":9,\"time\":9,\"type\":\"user/message\"}\n";
    let mut loaded = Conversation::new();
    loaded
        .load(values(&[1, 2]), LoadOptions::default())
        .unwrap();
    loaded.append(values(&[3])).unwrap();
    let error = loaded.feed(fed).unwrap_err();
    assert_eq!(place(&error), ("NON_INCREASING_SEQ", Some(4), Some(2)));
    // A load of values starts the count again.
    loaded.load(values(&[1]), LoadOptions::default()).unwrap();
    let error = loaded.feed(fed).unwrap_err();
    assert_eq!(place(&error), ("NON_INCREASING_SEQ", Some(2), Some(2)));
}
