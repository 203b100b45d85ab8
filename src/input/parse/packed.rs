//! Reading a packed batch: events the wasm build's JS side (`wasm::batch`) has already taken
//! apart, as numbers plus UTF-8 text, so that JS objects cross into wasm without `JSON.stringify`
//! of every event and without a JSON parse here. An event JS cannot take apart safely crosses as
//! the JSON text of what the rules read of it, and is read like any event of a JSON batch. Either
//! way the event is validated by the same code as an event of JSON text.
//!
//! Layout, one record per event in batch order. `numbers` holds the records; each length in
//! them takes that many bytes of `text`, in order.
//!
//! - `[0, n]`: the event as JSON text of `n` bytes.
//! - `[tag, seq, time, op, start, end, turn, step, ...]`: the event's members. `tag`: 1
//!   `system/message`, 2 `request/header`, 3 `turn/start`, 4 `turn/end`, 5 `step/start`, 6
//!   `step/end`, 7 any other. `seq` is a finite number. `op`: 0 none, 1 append, 2 replace from
//!   `start` to `end` (finite numbers). `time`, `turn`, `step`: a finite number, NaN for what
//!   JSON writes as `null`, +Infinity for absent or not a number. Then, for a system message,
//!   `n`: its text (every text block, joined). For a request header, `reason` (0 other, 1
//!   initial, 2 resume, 3 change, 4 series), `startsSeries` (1 when `true`), then `config` and
//!   `tools`: -1 absent, -2 the same JSON as the previous header's in the batch, `n` its JSON
//!   text. Tags 8 `user/message`, 9 `assistant/message`, 10 `tool/result` and 11
//!   `developer/message` are followed by the token cost of the message's content blocks (see
//!   `input::tokens`; JS computes it from the objects, so that no message text crosses); an
//!   assistant message's then by its usage: -1 absent, `n` its JSON text.

use std::borrow::Cow;

use super::framing::{Framing, Rows};
use super::{Batch, HeaderJson, Kind, RawEvent, RawObject, RawSurfaceOp, TypeTag};
use crate::error::Error;
use crate::input::event::{HeaderReason, MessageRole};
use crate::input::intern::JsonInterner;
use crate::input::json::malformed;
use crate::input::json::reader::{Failed, Reader, SLOTS};

/// A packed batch (see the module documentation).
#[derive(Clone, Copy, Debug)]
pub(crate) struct PackedBatch<'a> {
    /// The records.
    pub numbers: &'a [f64],
    /// The texts the records take, one after the other.
    pub text: &'a str,
}

/// Reads and validates the events of `batch`, sharing repeated config and tools values through
/// `interner`. Returns them in batch order, or the first invalid event's error; a batch that does
/// not follow the layout is an [`Error::InvalidArgument`].
pub(crate) fn read_packed(
    batch: PackedBatch<'_>,
    interner: &mut JsonInterner,
    framing: Framing,
) -> Result<Rows, Error> {
    let mut cursor = Cursor {
        numbers: batch.numbers.iter(),
        text: batch.text,
    };
    let mut events = Batch::new(framing);
    // Every record takes at least eight numbers.
    events.events.reserve(batch.numbers.len() / 8);
    // The readers of events sent as JSON text go on one from the other, as the lines of JSON
    // lines do, so that the generations of what they remember name one text in the batch.
    let mut remembered = [None; SLOTS];
    // One event, read in place record after record: in wasm, a move of a struct this large is a
    // `memory.copy`, which engines may run as a call out of wasm.
    let mut raw = RawEvent::default();
    // Records after the first invalid event are still read: JSON nested too deeply anywhere is
    // the error that wins, as malformed text is in a JSON batch.
    while let Some(tag) = cursor.numbers.next() {
        let mut text = None;
        if *tag == 0.0 {
            let json = cursor.text()?;
            let mut reader = Reader::resume(json, 0, EVENT_DEPTH, remembered);
            raw.read_in_place(&mut reader)
                .and_then(|()| reader.finish())
                .map_err(|Failed| malformed(json, reader.error(), 0))?;
            remembered = reader.remembered();
            text = Some(json);
        } else {
            cursor.event_in_place(*tag, &mut raw)?;
        }
        if events.first_error.is_none() {
            events.accept(&raw, interner, text);
        }
    }
    events.finish(None)
}

/// How deep an event sits in a JSON array of events, and a header's config and tools (inside the
/// array, the event, `data` and `header`): JSON text is read from there, so that it may nest as
/// deeply as in the batch's JSON text, and no deeper.
const EVENT_DEPTH: usize = 1;
const HEADER_MEMBER_DEPTH: usize = 4;

/// `text`, the JSON of a header's config or tools (written by `JSON.stringify`, so well formed),
/// checked for its nesting depth.
fn checked_depth(text: &str) -> Result<&str, Error> {
    let mut reader = Reader::resume(text, 0, HEADER_MEMBER_DEPTH, [None; SLOTS]);
    reader
        .skip_value()
        .and_then(|()| reader.finish())
        .map_err(|Failed| malformed(text, reader.error(), 0))?;
    Ok(text)
}

/// A packed batch being read.
struct Cursor<'a> {
    numbers: std::slice::Iter<'a, f64>,
    text: &'a str,
}

impl<'a> Cursor<'a> {
    fn number(&mut self) -> Result<f64, Error> {
        self.numbers.next().copied().ok_or_else(not_packed)
    }

    /// The next text: its length in bytes is the next number.
    fn text(&mut self) -> Result<&'a str, Error> {
        let length = self.number()?;
        if !(length >= 0.0 && length <= self.text.len() as f64) {
            return Err(not_packed());
        }
        let (text, rest) = self
            .text
            .split_at_checked(length as usize)
            .ok_or_else(not_packed)?;
        self.text = rest;
        Ok(text)
    }

    /// A text or one of the two markers of a header's `config` and `tools`.
    fn header_json(&mut self) -> Result<HeaderJson<'a>, Error> {
        match self.numbers.as_slice().first() {
            Some(-1.0) => {
                self.numbers.next();
                Ok(HeaderJson::Absent)
            }
            Some(-2.0) => {
                self.numbers.next();
                Ok(HeaderJson::SameAsPrevious)
            }
            _ => checked_depth(self.text()?).map(HeaderJson::Text),
        }
    }

    /// The rest of a record whose tag is `tag`, read in place of `raw`.
    fn event_in_place(&mut self, tag: f64, raw: &mut RawEvent<'a>) -> Result<(), Error> {
        let kind = match tag {
            1.0 => TypeTag::SystemMessage,
            2.0 => TypeTag::RequestHeader,
            3.0 => TypeTag::TurnStart,
            4.0 => TypeTag::TurnEnd,
            5.0 => TypeTag::StepStart,
            6.0 => TypeTag::StepEnd,
            7.0 => TypeTag::Other,
            8.0 => TypeTag::Message(MessageRole::User),
            9.0 => TypeTag::Message(MessageRole::Assistant),
            10.0 => TypeTag::Message(MessageRole::Tool),
            11.0 => TypeTag::Message(MessageRole::Developer),
            _ => return Err(not_packed()),
        };
        let seq = Kind::Number(self.number()?);
        let time = slot(self.number()?);
        let (op, start, end) = (self.number()?, self.number()?, self.number()?);
        let surface_op = match op {
            0.0 => RawSurfaceOp::Absent,
            1.0 => RawSurfaceOp::Text(Cow::Borrowed("append")),
            2.0 => RawSurfaceOp::Map {
                op: Kind::Text,
                replace: true,
                start: Kind::Number(start),
                end: Kind::Number(end),
            },
            _ => return Err(not_packed()),
        };
        *raw = RawEvent::Object(RawObject::default());
        let RawEvent::Object(raw) = raw else {
            return Err(not_packed());
        };
        raw.seq = seq;
        raw.time = time;
        raw.kind = kind;
        raw.surface_op = surface_op;
        let data = &mut raw.data;
        data.turn = slot(self.number()?);
        data.step = slot(self.number()?);
        match kind {
            TypeTag::SystemMessage => {
                data.text = Some(Cow::Borrowed(self.text()?));
                let tokens = self.number()?;
                if !(tokens >= 0.0 && tokens <= f64::from(u32::MAX) && tokens.fract() == 0.0) {
                    return Err(not_packed());
                }
                // In range and whole: the conversion is exact.
                data.system_tokens = tokens as u32;
            }
            TypeTag::RequestHeader => {
                data.reason = match self.number()? {
                    1.0 => HeaderReason::Initial,
                    2.0 => HeaderReason::Resume,
                    3.0 => HeaderReason::Change,
                    4.0 => HeaderReason::Series,
                    _ => HeaderReason::Other,
                };
                data.starts_series = self.number()? == 1.0;
                data.config = self.header_json()?;
                data.tools = self.header_json()?;
            }
            TypeTag::Message(_) => {
                let tokens = self.number()?;
                if !(tokens >= 0.0 && tokens <= f64::from(u32::MAX) && tokens.fract() == 0.0) {
                    return Err(not_packed());
                }
                // In range and whole: the conversion is exact.
                let tokens = tokens as u32;
                data.message_tokens = tokens;
                data.content_tokens = tokens;
                data.usage = None;
                if kind == TypeTag::Message(MessageRole::Assistant) {
                    if self.numbers.as_slice().first() == Some(&-1.0) {
                        self.numbers.next();
                    } else {
                        let text = self.text()?;
                        let mut reader =
                            Reader::resume(text, 0, HEADER_MEMBER_DEPTH, [None; SLOTS]);
                        let usage = reader
                            .value()
                            .and_then(|value| reader.finish().map(|()| value))
                            .map_err(|Failed| malformed(text, reader.error(), 0))?;
                        data.usage = Some(std::rc::Rc::new(usage));
                    }
                }
            }
            _ => {}
        }
        Ok(())
    }
}

/// A `time`, `turn` or `step` slot as the value JSON text would have given.
fn slot(value: f64) -> Kind {
    if value.is_finite() {
        Kind::Number(value)
    } else if value.is_nan() {
        Kind::Null
    } else {
        Kind::Absent
    }
}

fn not_packed() -> Error {
    Error::InvalidArgument {
        argument: "events".to_owned(),
        message: "the packed batch does not follow its layout".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::event::{EventKind, SessionEvent, SurfaceOp, TurnField};
    use crate::input::parse::parse_events;

    fn read(numbers: &[f64], text: &str) -> Result<Vec<SessionEvent>, Error> {
        read_packed(
            PackedBatch { numbers, text },
            &mut JsonInterner::default(),
            Framing::log_start(),
        )
        .map(|rows| rows.events)
    }

    #[test]
    fn reads_records_and_json_events_alike() {
        let json = r#"{"seq":3,"type":"turn/start","data":{"turn":null}}"#;
        let numbers = [
            1.0,
            1.0,
            5.0,
            1.0,
            0.0,
            0.0,
            2.0,
            f64::INFINITY,
            2.0,
            5.0,
            2.0,
            2.0,
            f64::NAN,
            2.0,
            1.0,
            0.0,
            1.0,
            0.0,
            3.0,
            1.0,
            7.0,
            -2.0,
            0.0,
            json.len() as f64,
        ];
        let text = format!("Hi{{\"m\":1}}{json}");
        let events = read(&numbers, &text).unwrap();
        assert_eq!(events.len(), 3);
        assert_eq!(events[0].system_text().map(|t| &**t), Some("Hi"));
        assert_eq!(
            events[0].kind,
            EventKind::SystemMessage {
                text: "Hi".into(),
                tokens: 5
            }
        );
        assert_eq!(events[0].turn(), TurnField::Turn(2));
        assert_eq!(events[0].step(), None);
        assert_eq!(events[1].time, 0.0);
        assert_eq!(
            events[1].surface_op(),
            Some(SurfaceOp::Replace { start: 1, end: 0 })
        );
        let header = events[1].header().unwrap();
        assert_eq!(&*header.tools_text, "[]");
        assert!(header.config.is_some());
        assert_eq!(events[2].kind, EventKind::TurnStart);
        assert_eq!(events[2].turn(), TurnField::Null);
    }

    #[test]
    fn message_records_carry_their_content_tokens() {
        let record = |tag: f64, tokens: f64| {
            let mut numbers = vec![tag, 1.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, tokens];
            if tag == 9.0 {
                numbers.push(-1.0);
            }
            numbers
        };
        let roles = [
            (8.0, MessageRole::User),
            (9.0, MessageRole::Assistant),
            (10.0, MessageRole::Tool),
            (11.0, MessageRole::Developer),
        ];
        for (tag, role) in roles {
            let events = read(&record(tag, 6.0), "").unwrap();
            let expected = crate::input::event::SurfaceMessage {
                role,
                tokens: 10,
                usage: None,
            };
            assert_eq!(events[0].kind, EventKind::Message(expected));
            for bad in [-1.0, 0.5, f64::NAN, f64::INFINITY, 5e9] {
                assert!(matches!(
                    read(&record(tag, bad), ""),
                    Err(Error::InvalidArgument { .. })
                ));
            }
        }
        let usage = r#"{"inputTokens":5,"cacheReadTokens":3}"#;
        let numbers = [
            9.0,
            1.0,
            0.0,
            1.0,
            0.0,
            0.0,
            0.0,
            0.0,
            0.0,
            usage.len() as f64,
        ];
        let events = read(&numbers, usage).unwrap();
        let EventKind::Message(message) = &events[0].kind else {
            panic!("not a message");
        };
        let expected = crate::input::parse::parse_events(&format!(
            r#"[{{"seq":1,"type":"assistant/message","data":{{"message":{{"usage":{usage}}}}}}}]"#
        ))
        .unwrap();
        assert_eq!(events[0].kind, expected[0].kind);
        assert!(message.usage.is_some());
    }

    #[test]
    fn validates_like_json_text() {
        let err = read(&[7.0, 1.5, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], "").unwrap_err();
        assert_eq!(
            err,
            Error::InvalidSeq {
                index: 0,
                line: None,
                found: "the number 1.5".to_owned()
            }
        );
    }

    #[test]
    fn config_and_tools_nest_as_deeply_as_in_json_text_and_no_deeper() {
        let nested = |depth: usize| format!("{}{}", "[".repeat(depth), "]".repeat(depth));
        let header = |json: &str| {
            let numbers = [
                2.0,
                1.0,
                0.0,
                0.0,
                0.0,
                0.0,
                0.0,
                0.0,
                0.0,
                0.0,
                json.len() as f64,
                -1.0,
            ];
            read(&numbers, json)
        };
        // In a JSON array of events, config sits inside four containers: 252 more is the most.
        let deepest = nested(252);
        assert!(header(&deepest).is_ok());
        assert_eq!(
            parse_events(&format!(
                r#"[{{"seq":1,"data":{{"header":{{"config":{deepest}}}}}}}]"#
            ))
            .map(|e| e.len()),
            Ok(1)
        );
        let too_deep = nested(253);
        assert!(matches!(
            header(&too_deep),
            Err(Error::MalformedJson { .. })
        ));
        assert!(matches!(
            parse_events(&format!(
                r#"[{{"seq":1,"data":{{"header":{{"config":{too_deep}}}}}}}]"#
            )),
            Err(Error::MalformedJson { .. })
        ));
    }

    #[test]
    fn a_batch_off_its_layout_is_an_error() {
        for (numbers, text) in [
            (&[9.0][..], ""),
            (&[1.0, 1.0][..], ""),
            (&[1.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 5.0][..], "abc"),
            (&[0.0, -1.0][..], ""),
            (&[7.0, 1.0, 0.0, 3.0, 0.0, 0.0, 0.0, 0.0][..], ""),
            (&[0.0, 1.0][..], "é"),
            (&[0.0, 3.0][..], "{]}"),
        ] {
            assert!(read(numbers, text).is_err(), "{numbers:?}");
        }
    }
}
