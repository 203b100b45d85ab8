//! A batch of events read from JSON text, each validated as soon as it is read.

use crate::error::Error;
use crate::input::event::SessionEvent;
use crate::input::intern::JsonInterner;
use crate::input::json::reader::{Reader, Step};
use crate::input::json::JsonValue;

use super::framing::{Frame, Framing, Row, Rows, TornTail};
use super::*;

/// Events validated as they are read, so no batch of raw events is ever held. After the first
/// invalid event the rest is only checked as JSON: malformed text anywhere is the error that
/// wins, then the first invalid event in batch order.
pub(super) struct Batch {
    pub(super) events: Vec<SessionEvent>,
    pub(super) first_error: Option<Error>,
    pub(super) given: Given,
    pub(super) frame: Frame,
}

/// For config and tools, the generation of the remembered value whose text this batch last gave
/// the interner, if it was one (see [`HeaderJson::Remembered`]).
#[derive(Default)]
pub(super) struct Given {
    pub(super) config: Option<u32>,
    pub(super) tools: Option<u32>,
}

impl Batch {
    pub(super) fn new(framing: Framing) -> Batch {
        Batch {
            events: Vec::new(),
            first_error: None,
            given: Given::default(),
            frame: Frame::new(framing),
        }
    }

    pub(super) fn read(
        &mut self,
        reader: &mut Reader<'_>,
        interner: &mut JsonInterner,
    ) -> Step<()> {
        if self.first_error.is_some() {
            return reader.skip_value();
        }
        let start = reader.position();
        let mut raw = RawEvent::default();
        raw.read_in_place(reader)?;
        let text = raw
            .may_be_header()
            .then(|| reader.text_between(start, reader.position()))
            .flatten();
        self.accept(&raw, interner, text);
        Ok(())
    }

    /// Validates `raw`, the next row of the batch (whose JSON text is `text`, when known), and
    /// keeps its event or remembers its error.
    pub(super) fn accept(
        &mut self,
        raw: &RawEvent<'_>,
        interner: &mut JsonInterner,
        text: Option<&str>,
    ) {
        let row = self.frame.next_row();
        let accepted = match self.frame_row(raw, row, text) {
            Ok(Row::Event(raw)) => raw.validate(
                row,
                &mut self.frame,
                interner,
                &mut self.given,
                &mut self.events,
            ),
            Ok(Row::Skipped) => Ok(()),
            Err(error) => Err(error),
        };
        if let Err(error) = accepted {
            self.first_error = Some(error);
        }
    }

    /// What row `row` is under the rules of framing: its event (itself, or the one a
    /// notification carries), or no event.
    pub(super) fn frame_row<'r, 'a>(
        &mut self,
        raw: &'r RawEvent<'a>,
        row: usize,
        text: Option<&str>,
    ) -> Result<Row<&'r RawEvent<'a>>, Error> {
        let RawEvent::Object(object) = raw else {
            return Ok(Row::Event(raw));
        };
        if object.kind == TypeTag::Session
            && object.seq == Kind::Absent
            && self.frame.may_be_header()
        {
            match text.map(JsonValue::parse) {
                Some(Ok(header)) => {
                    self.frame.header(row, header)?;
                    return Ok(Row::Skipped);
                }
                _ => debug_assert!(false, "a header row read as an event has no JSON text"),
            }
        }
        if object.kind != TypeTag::Absent {
            return Ok(Row::Event(raw));
        }
        match (&object.method, &object.carried) {
            (Method::Absent, _) => Ok(Row::Event(raw)),
            (Method::SessionEvent, Some(event)) => Ok(Row::Event(event)),
            (Method::SessionEvent, None) => Err(Error::NotAnObject {
                index: row,
                line: None,
                found: "a session.event notification without params.event".to_owned(),
            }),
            (Method::Other, _) => {
                self.frame.skip(row);
                Ok(Row::Skipped)
            }
        }
    }

    /// The rows read, the events without spare capacity (the window keeps them), or the first
    /// error.
    pub(super) fn finish(self, torn: Option<(TornTail, Vec<u8>)>) -> Result<Rows, Error> {
        match self.first_error {
            Some(error) => Err(error),
            None => {
                let mut events = self.events;
                let room = crate::room::live_room(events.len());
                events.shrink_to(events.len().saturating_add(room));
                Ok(self.frame.finish(events, torn))
            }
        }
    }
}

pub(super) fn describe_value(value: &JsonValue) -> &'static str {
    match value {
        JsonValue::Null => "null",
        JsonValue::Bool(_) => "boolean",
        JsonValue::Number(_) => "number",
        JsonValue::String(_) => "string",
        JsonValue::Array(_) => "array",
        JsonValue::Object(_) => "object",
    }
}
