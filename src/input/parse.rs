//! Reading events from JSON text, leniently: only the fields the interpreter needs are kept,
//! unknown types and fields are skipped (checked as JSON, never built), and wrongly typed
//! optional fields count as absent. `seq` and `surfaceOp` are checked, since the fold cannot do
//! without them.

use crate::error::Error;
use crate::input::event::SessionEvent;
use crate::input::intern::JsonInterner;
use crate::input::json::malformed;
use crate::input::json::reader::{key_code, Failed, KeyCode, Reader, Step, SLOTS};
use crate::input::text::JsonText;
use framing::{Framing, Rows, TornTail};

mod batch;
pub(crate) mod fed;
pub(crate) mod framing;
mod keys;
mod names;
mod raw;
pub(crate) mod row_lines;
mod validate;
// Packed batches and streamed text come from the JS side only (feature `wasm`); the unit tests
// read them natively.
#[cfg(any(test, feature = "wasm"))]
pub(crate) mod packed;
#[cfg(any(test, feature = "wasm"))]
pub(crate) mod stream;

use batch::*;
use raw::*;

/// Parses a batch of events from JSON text: a JSON array of event objects, or JSON lines (one
/// event object per line; blank lines are skipped). Whitespace-only text is an empty batch.
/// The text is read as a session log from its start (BEHAVIOUR.md section 10): a first row that
/// is the session header is left out, SDK notifications stand for the events they carry, and a
/// log whose first event has no seq is numbered from 0.
///
/// Returns the validated events in input order, or the first error, with the line of the row it
/// names (seq order is not checked here: the window checks it against what it holds).
///
/// The text is a string or UTF-8 bytes (anything [`JsonText`] converts from: `&str`,
/// `&String`, `&[u8]`, `&Vec<u8>`, a byte array); bytes that are not UTF-8 are the error
/// [`crate::Conversation::load_json`] gives for them.
pub fn parse_events<'a>(text: impl Into<JsonText<'a>>) -> Result<Vec<SessionEvent>, Error> {
    let mut interner = JsonInterner::default();
    match text.into() {
        JsonText::Str(text) => parse_events_with(text, &mut interner)
            .map_err(|error| row_lines::locate(error, text.as_bytes(), row_lines::Layout::Detect)),
        JsonText::Bytes(bytes) => parse_text_rows(bytes, &mut interner, Framing::log_start())
            .map(|rows| rows.events)
            .map_err(|error| row_lines::locate(error, bytes, row_lines::Layout::Detect)),
    }
}

/// [`parse_events`], sharing repeated config and tools values through `interner`.
pub(crate) fn parse_events_with(
    text: &str,
    interner: &mut JsonInterner,
) -> Result<Vec<SessionEvent>, Error> {
    parse_rows(text, interner, Framing::log_start()).map(|rows| rows.events)
}

/// Reads a batch of JSON text given as UTF-8 bytes under the rules of `framing` (a torn last
/// line may end inside a character), sharing repeated config and tools values through
/// `interner`.
pub(crate) fn parse_text_rows(
    bytes: &[u8],
    interner: &mut JsonInterner,
    framing: Framing,
) -> Result<Rows, Error> {
    let (text, torn) = framing::text_of_bytes(bytes, framing.torn_tail)?;
    let mut rows = parse_rows(text, interner, framing)?;
    if let Some(torn) = torn {
        debug_assert!(rows.torn_tail.is_none(), "torn before the last line end");
        rows.torn_tail = Some(torn);
        rows.torn_text = bytes.get(text.len()..).unwrap_or_default().to_vec();
    }
    Ok(rows)
}

/// Reads complete lines of a growing session file (JSON lines, each ending with its line end)
/// under the rules of `framing`.
pub(crate) fn parse_fed_lines(
    bytes: &[u8],
    interner: &mut JsonInterner,
    framing: Framing,
) -> Result<Rows, Error> {
    let (text, torn) = framing::text_of_bytes(bytes, false)?;
    debug_assert!(torn.is_none(), "complete lines read as torn");
    parse_json_lines(framing::without_bom(text), interner, framing)
}

/// Reads a batch of JSON text under the rules of `framing`, sharing repeated config and tools
/// values through `interner`.
pub(crate) fn parse_rows(
    text: &str,
    interner: &mut JsonInterner,
    framing: Framing,
) -> Result<Rows, Error> {
    let text = framing::without_bom(text);
    let mut reader = Reader::new(text);
    match reader.peek() {
        None => Batch::new(framing).finish(None),
        Some(b'[') => read_array(&mut reader, interner, framing)
            .map_err(|Failed| malformed(text, reader.error(), 0))?
            .finish(None),
        Some(b'{') => parse_json_lines(text, interner, framing),
        Some(_) => {
            let value = reader
                .value()
                .and_then(|value| reader.finish().map(|()| value))
                .map_err(|Failed| malformed(text, reader.error(), 0))?;
            Err(Error::NotAnArray {
                found: describe_value(&value).to_owned(),
            })
        }
    }
}

fn read_array(
    reader: &mut Reader<'_>,
    interner: &mut JsonInterner,
    framing: Framing,
) -> Step<Batch> {
    let mut batch = Batch::new(framing);
    let mut array = reader.begin_array()?;
    while reader.next_element(&mut array)? {
        batch.read(reader, interner)?;
    }
    reader.finish()?;
    Ok(batch)
}

fn parse_json_lines(
    text: &str,
    interner: &mut JsonInterner,
    framing: Framing,
) -> Result<Rows, Error> {
    let mut batch = Batch::new(framing);
    let mut remembered = [None; SLOTS];
    let mut line_ends: usize = 0;
    for (line_index, line) in text.split_inclusive('\n').enumerate() {
        line_ends = line_ends.saturating_add(usize::from(line.ends_with('\n')));
        let mut reader = Reader::resume(line, 0, 0, remembered);
        if reader.peek().is_none() {
            continue;
        }
        let read = batch
            .read(&mut reader, interner)
            .and_then(|()| reader.finish());
        if read.is_err() {
            let torn = !line.ends_with('\n') && ends_early(line.as_bytes(), reader.error());
            if batch.frame.allows_torn_tail() && torn {
                let tail = TornTail {
                    line: line_index.saturating_add(1),
                    bytes: line.len(),
                };
                return with_lines(
                    batch.finish(Some((tail, line.as_bytes().to_vec()))),
                    line_ends,
                );
            }
            let line = line.strip_suffix('\n').unwrap_or(line);
            let line = line.strip_suffix('\r').unwrap_or(line);
            return Err(malformed(line, reader.error(), line_index));
        }
        remembered = reader.remembered();
    }
    with_lines(batch.finish(None), line_ends)
}

/// `rows` of a text with `lines` line ends.
pub(crate) fn with_lines(rows: Result<Rows, Error>, lines: usize) -> Result<Rows, Error> {
    rows.map(|mut rows| {
        rows.lines = lines;
        rows
    })
}

/// Whether the JSON of `line` failed with `error` because the line ended before the value did
/// (as a line a writer stopped in the middle of does), not at a wrong character.
fn ends_early(line: &[u8], error: &crate::input::json::reader::SyntaxError) -> bool {
    // A literal cut short fails where it starts.
    let rest = line.get(error.offset..).unwrap_or_default();
    let cut_literal = [&b"null"[..], b"true", b"false"]
        .iter()
        .any(|literal| rest.len() < literal.len() && literal.starts_with(rest));
    error.offset >= line.len() || cut_literal
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::event::{HeaderReason, SurfaceOp, TurnField};

    /// Headers whose config and tools repeat, change, go missing, are not arrays or objects,
    /// come twice in one header or sit in events of no type, in arrays and JSON lines, read
    /// whole and in pieces: every header holds the config and tools of its own text (as
    /// `serde_json` reads it; the last of two members wins).
    #[test]
    fn shared_header_values_are_the_values_of_their_text() {
        let configs = [r#"{"m":1}"#, r#"{"m":2}"#, "[]", "7"];
        let tools = [r#"[{"n":"a"}]"#, r#"[{"n":"b"}]"#, "{}", "\"t\"", "[]"];
        let mut random = crate::test_random::seeded(5);
        let mut next = |bound: u64| random(bound) as usize;
        for _ in 0..300 {
            let mut events = Vec::new();
            for seq in 1..=12 {
                let mut members = Vec::new();
                for _ in 0..next(3) {
                    match next(3) {
                        0 => members.push(format!("\"config\":{}", configs[next(4)])),
                        _ => members.push(format!("\"tools\":{}", tools[next(5)])),
                    }
                }
                let kind = ["\"type\":\"request/header\",", "", "\"type\":\"x\","][next(3)];
                events.push(format!(
                    "{{\"seq\":{seq},{kind}\"data\":{{\"header\":{{{}}}}}}}",
                    members.join(",")
                ));
            }
            // Config and tools text of each header, as serde_json reads the event.
            let expected: Vec<Option<(Option<String>, String)>> = events
                .iter()
                .map(|event| {
                    let event: serde_json::Value = serde_json::from_str(event).unwrap();
                    if event["type"] != "request/header" {
                        return None;
                    }
                    let header = &event["data"]["header"];
                    let config = header.get("config").map(|config| config.to_string());
                    let tools = header
                        .get("tools")
                        .filter(|tools| tools.is_array())
                        .map_or("[]".to_owned(), |tools| tools.to_string());
                    Some((config, tools))
                })
                .collect();
            let check = |read: Result<Vec<SessionEvent>, Error>, text: &str| {
                let read: Vec<Option<(Option<String>, String)>> = read
                    .unwrap()
                    .iter()
                    .map(|event| {
                        let header = event.header()?;
                        let config = header
                            .config
                            .as_deref()
                            .map(crate::input::json::stringify::js_stringify);
                        assert_eq!(
                            &*header.tools_text,
                            crate::input::json::stringify::js_stringify(&header.tools)
                        );
                        Some((config, header.tools_text.to_string()))
                    })
                    .collect();
                assert_eq!(read, expected, "{text}");
            };
            let array = format!("[{}]", events.join(","));
            let lines = events.join("\n");
            for text in [&array, &lines] {
                check(parse_events_with(text, &mut JsonInterner::default()), text);
                for size in [7, 64] {
                    let mut at = 0;
                    let mut pieces = |out: &mut [u8]| {
                        if at >= text.len() {
                            return None;
                        }
                        let end = (at + size).min(text.len());
                        out[..end - at].copy_from_slice(&text.as_bytes()[at..end]);
                        let written = end - at;
                        at = end;
                        Some(written)
                    };
                    let framing = Framing::log_start();
                    match stream::parse_streamed(&mut pieces, &mut JsonInterner::default(), framing)
                    {
                        stream::Streamed::Read(result) => {
                            check(result.map(|rows| rows.events), text)
                        }
                        stream::Streamed::NeedsWholeText => panic!("{text}"),
                    }
                }
            }
        }
    }

    #[test]
    fn reads_the_fields_that_matter_and_skips_the_rest() {
        let text = r#"[
          {"seq":1,"time":5,"type":"system/message","surfaceOp":"append","extra":[1,{"a":2}],
           "data":{"turn":1,"step":2,"message":{"role":"system","content":[
             {"type":"text","text":"A"},{"type":"image","text":"no"},{"type":"text","text":"B"}]}}},
          {"data":{"header":{"config":{"m":1},"tools":{"not":"array"}},"reason":"change","startsSeries":true},
           "type":"request/header","seq":2,"time":6}
        ]"#;
        let events = parse_events(text).unwrap();
        assert_eq!(events[0].system_text().map(|t| &**t), Some("AB"));
        assert_eq!(events[0].turn(), TurnField::Turn(1));
        assert_eq!(events[0].step(), Some(2));
        assert_eq!(events[0].surface_op(), Some(SurfaceOp::Append));
        let header = events[1].header().unwrap();
        assert_eq!(header.reason, HeaderReason::Change);
        assert!(header.starts_series);
        assert_eq!(&*header.tools_text, "[]");
    }

    #[test]
    fn a_repeated_data_member_is_read_as_its_last_value() {
        let data = r#"{"turn":1,"step":2,"message":{"content":[{"type":"text","text":"A"}]}}"#;
        let text = format!(
            r#"[{{"seq":1,"type":"system/message","data":{data},"data":{{"step":3}}}},
                {{"seq":2,"type":"system/message","data":{data},"data":5}}]"#
        );
        let events = parse_events(&text).unwrap();
        assert_eq!(events[0].system_text().map(|t| &**t), Some(""));
        assert_eq!(
            (events[0].turn(), events[0].step()),
            (TurnField::Absent, Some(3))
        );
        assert_eq!(events[1].system_text().map(|t| &**t), Some(""));
        assert_eq!(
            (events[1].turn(), events[1].step()),
            (TurnField::Absent, None)
        );
    }

    #[test]
    fn json_lines_and_blank_lines() {
        let text =
            "{\"seq\":1,\"type\":\"x\"}\n\n{\"seq\":2,\"type\":\"y\",\"data\":{\"turn\":null}}\n";
        let events = parse_events(text).unwrap();
        assert_eq!(events.len(), 2);
        assert_eq!(events[1].turn(), TurnField::Null);
        assert!(parse_events("  \n ").unwrap().is_empty());
    }

    #[test]
    fn keys_with_escapes_match_their_text() {
        let text = r#"[{"s\u0065q":3,"typ\u0065":"turn/start","d\u0061ta":{"\u0074urn":2}},
          {"seq":4,"time":1,"type":"system/message","data":{"message":{"content":[{"type":"text",
           "t\u0065xt":"A"}]}}}]"#;
        let events = parse_events(text).unwrap();
        assert_eq!(events[0].seq, 3);
        assert_eq!(events[0].turn(), TurnField::Turn(2));
        assert_eq!(events[1].system_text().map(|t| &**t), Some("A"));
    }

    #[test]
    fn repeated_tools_are_read_as_written() {
        let header = |seq: u32, tools: &str| {
            format!(
                r#"{{"seq":{seq},"type":"request/header","data":{{"header":{{"tools":{tools}}}}}}}"#
            )
        };
        let tools = [
            r#"[{"a":1}]"#,
            r#"[{"a":1}]"#,
            r#"[{"a":1},{"b":2}]"#,
            "[]",
            r#"[{"a":1}]"#,
        ];
        let lines: Vec<String> = (1..).zip(tools).map(|(seq, t)| header(seq, t)).collect();
        for text in [lines.join("\n"), format!("[{}]", lines.join(",\n"))] {
            let events = parse_events(&text).unwrap();
            let read: Vec<&str> = events
                .iter()
                .map(|e| &*e.header().unwrap().tools_text)
                .collect();
            assert_eq!(read, tools, "{text}");
        }
        let bad = format!("{}\n{}", header(1, "[[1]]"), header(2, "[[1]]]"));
        let message = parse_events(&bad).unwrap_err().to_string();
        assert!(message.contains("line 2, column 65"), "{message}");
    }

    /// Values after `"k":` in an object, cut at every byte, for reading one value both ways.
    fn values_to_read() -> Vec<String> {
        let values = [
            "1",
            "-0",
            "1733150000000",
            "1.5e3",
            "-",
            "01",
            "true",
            "fals",
            "null",
            "nul",
            "[1,{\"a\":2}]",
            "[1,",
            "{\"a\":[]}",
            "{\"a\"",
            "\"\"",
            "\"text\"",
            "\"turn/start\"",
            "\"turn\\/start\"",
            "\"s\\u0074ep/end\"",
            "\"step/end \"",
            "\"step/en\"",
            "\"system/message\"",
            "\"request/header\"",
            "\"request/headers\"",
            "\"system/message\\u0000\"",
            "\"initial\"",
            "\"resume\"",
            "\"change\"",
            "\"series\"",
            "\"seriesx\"",
            "\"ser\\u0069es\"",
            "\"a string longer than sixteen bytes\"",
            "\"bad \\x escape\"",
            "\"ctl\u{1}\"",
            "\"é😀\"",
            "\"\\ud800\"",
            "\"unterminated",
        ];
        let mut texts = Vec::new();
        for value in values {
            for after in ["}", ",\"k\":2}", " }", "x"] {
                let text = format!("{{\"k\":{value}{after}");
                for cut in (0..=text.len()).filter(|&cut| text.is_char_boundary(cut)) {
                    texts.push(text[..cut].to_owned());
                }
            }
        }
        texts
    }

    /// Reads the first member's value of `text` with `read`: what it gave, where it stopped and
    /// why it failed.
    fn read_first<T>(
        text: &str,
        read: impl Fn(&mut Reader<'_>) -> Step<T>,
    ) -> Option<(Step<T>, usize, crate::input::json::reader::SyntaxError)> {
        let mut reader = Reader::new(text);
        let mut object = reader.begin_object().ok()?;
        reader.next_key_code(&mut object).ok()??;
        let value = read(&mut reader);
        Some((value, reader.position(), reader.error().clone()))
    }

    /// Fields read for their kind, and strings matched by their codes, against the values read
    /// whole ([`Scalar::read`]) and matched as text: the same results, stops and errors.
    #[test]
    fn kinds_and_codes_read_as_values_do() {
        let type_as_text = |reader: &mut Reader<'_>| {
            Scalar::read(reader).map(|value| match value {
                Scalar::Text(name) => match &*name {
                    "system/message" => TypeTag::SystemMessage,
                    "request/header" => TypeTag::RequestHeader,
                    "turn/start" => TypeTag::TurnStart,
                    "turn/end" => TypeTag::TurnEnd,
                    "step/start" => TypeTag::StepStart,
                    "step/end" => TypeTag::StepEnd,
                    _ => TypeTag::Other,
                },
                _ => TypeTag::Other,
            })
        };
        let reason_as_text = |reader: &mut Reader<'_>| {
            Scalar::read(reader).map(|value| match value {
                Scalar::Text(reason) => match &*reason {
                    "initial" => HeaderReason::Initial,
                    "resume" => HeaderReason::Resume,
                    "change" => HeaderReason::Change,
                    "series" => HeaderReason::Series,
                    _ => HeaderReason::Other,
                },
                _ => HeaderReason::Other,
            })
        };
        let code_as_text = |reader: &mut Reader<'_>| reader.string().map(|text| key_code(&text));
        let mut read = 0;
        for text in values_to_read() {
            let text = &text;
            let kind = read_first(text, Kind::read);
            let scalar = read_first(text, |reader| Scalar::read(reader).map(|s| Kind::of(&s)));
            assert_eq!(kind, scalar, "{text:?}");
            assert_eq!(
                read_first(text, TypeTag::read),
                read_first(text, type_as_text),
                "{text:?}"
            );
            assert_eq!(
                read_first(text, read_reason),
                read_first(text, reason_as_text),
                "{text:?}"
            );
            let is_text = read_first(text, |reader| {
                read_string_code(reader).map(|code| code == Some(names::TEXT))
            });
            let as_text = read_first(text, |reader| {
                Scalar::read(reader).map(|value| value.is_text("text"))
            });
            assert_eq!(is_text, as_text, "{text:?}");
            if text.as_bytes().get(5) == Some(&b'"') {
                assert_eq!(
                    read_first(text, |reader| reader.string_code()),
                    read_first(text, code_as_text),
                    "{text:?}"
                );
            }
            read += usize::from(kind.is_some_and(|(kind, ..)| kind.is_ok()));
        }
        assert!(read > 100, "{read}");
    }

    #[test]
    fn wrongly_typed_optional_fields_are_absent() {
        let text = r#"[{"seq":1,"time":"late","type":"system/message","data":{"turn":-1,"step":1.5,"message":"hi"}}]"#;
        let event = &parse_events(text).unwrap()[0];
        assert_eq!(event.time, 0.0);
        assert_eq!(event.turn(), TurnField::Absent);
        assert_eq!(event.step(), None);
        assert_eq!(event.system_text().map(|t| &**t), Some(""));
    }
}
