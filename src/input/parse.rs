//! Reading events from JSON text, leniently: only the fields the interpreter needs are kept,
//! unknown types and fields are skipped (checked as JSON, never built), and wrongly typed
//! optional fields count as absent. `seq` and `surfaceOp` are checked, since the fold cannot do
//! without them.

use std::borrow::Cow;
use std::rc::Rc;

use crate::error::Error;
use crate::input::event::{
    safe_integer, EventKind, HeaderReason, MessageRole, RequestHeader, Seq, SessionEvent,
    SurfaceMessage, SurfaceOp, TurnField,
};
use crate::input::intern::JsonInterner;
use crate::input::json::reader::{key_code, Failed, KeyCode, Reader, Step, SLOTS};
use crate::input::json::{malformed, JsonValue};
use crate::input::tokens;
use framing::{Frame, Framing, Row, Rows, TornTail};

pub(crate) mod framing;
// Packed batches and streamed text come from the JS side only (feature `wasm`); the unit tests
// read them natively.
#[cfg(any(test, feature = "wasm"))]
pub(crate) mod packed;
#[cfg(any(test, feature = "wasm"))]
pub(crate) mod stream;

/// The keys of the objects the parser reads, each list in the order writers usually give them
/// (see [`Members`](crate::input::json::reader::Members)), with each key's index in its list.
mod keys {
    /// An event's members.
    pub mod event {
        use crate::input::json::reader::{key, Key};

        pub const ALL: [Key; 7] = [
            key("seq"),
            key("time"),
            key("type"),
            key("data"),
            key("surfaceOp"),
            key("method"),
            key("params"),
        ];
        pub const SEQ: usize = 0;
        pub const TIME: usize = 1;
        pub const TYPE: usize = 2;
        pub const DATA: usize = 3;
        pub const SURFACE_OP: usize = 4;
        pub const METHOD: usize = 5;
        pub const PARAMS: usize = 6;
    }

    /// An SDK notification's `params`.
    pub mod params {
        use crate::input::json::reader::{key, Key};

        pub const ALL: [Key; 2] = [key("sessionId"), key("event")];
        pub const EVENT: usize = 1;
    }

    /// A replace `surfaceOp`'s members.
    pub mod surface_op {
        use crate::input::json::reader::{key, Key};

        pub const ALL: [Key; 3] = [key("op"), key("startSeq"), key("endSeq")];
        pub const OP: usize = 0;
        pub const START_SEQ: usize = 1;
        pub const END_SEQ: usize = 2;
    }

    /// `data`'s members.
    pub mod data {
        use crate::input::json::reader::{key, Key};

        pub const ALL: [Key; 8] = [
            key("turn"),
            key("step"),
            key("message"),
            key("reason"),
            key("header"),
            key("startsSeries"),
            key("content"),
            key("usage"),
        ];
        pub const TURN: usize = 0;
        pub const STEP: usize = 1;
        pub const MESSAGE: usize = 2;
        pub const REASON: usize = 3;
        pub const HEADER: usize = 4;
        pub const STARTS_SERIES: usize = 5;
        /// A `user/message`'s content (its data is the message).
        pub const CONTENT: usize = 6;
        /// A message event's usage, when its message has none.
        pub const USAGE: usize = 7;
    }

    /// A message's members (`role` is listed only to be skipped without a search).
    pub mod message {
        use crate::input::json::reader::{key, Key};

        pub const ALL: [Key; 3] = [key("role"), key("content"), key("usage")];
        pub const ROLE: usize = 0;
        pub const CONTENT: usize = 1;
        pub const USAGE: usize = 2;
    }

    /// A content block's members.
    pub mod block {
        use crate::input::json::reader::{key, Key};

        pub const ALL: [Key; 2] = [key("type"), key("text")];
        pub const TYPE: usize = 0;
        pub const TEXT: usize = 1;
    }

    /// `data.header`'s members.
    pub mod header {
        use crate::input::json::reader::{key, Key};

        pub const ALL: [Key; 2] = [key("config"), key("tools")];
        pub const CONFIG: usize = 0;
        pub const TOOLS: usize = 1;
    }
}

/// The codes of the string values the parser matches (see [`KeyCode`]).
mod names {
    use super::{key_code, KeyCode};

    pub const SYSTEM_MESSAGE: KeyCode = key_code("system/message");
    pub const REQUEST_HEADER: KeyCode = key_code("request/header");
    pub const TURN_START: KeyCode = key_code("turn/start");
    pub const TURN_END: KeyCode = key_code("turn/end");
    pub const STEP_START: KeyCode = key_code("step/start");
    pub const STEP_END: KeyCode = key_code("step/end");
    pub const USER_MESSAGE: KeyCode = key_code("user/message");
    pub const TOOL_RESULT: KeyCode = key_code("tool/result");
    /// The code of every name longer than 15 bytes (`assistant/message`, ...).
    pub const LONG: KeyCode = key_code("assistant/message");
    pub const TEXT: KeyCode = key_code("text");
    pub const INITIAL: KeyCode = key_code("initial");
    pub const RESUME: KeyCode = key_code("resume");
    pub const CHANGE: KeyCode = key_code("change");
    pub const SERIES: KeyCode = key_code("series");
    pub const SESSION: KeyCode = key_code("session");
    pub const SESSION_EVENT: KeyCode = key_code("session.event");
}

/// Parses a batch of events from JSON text: a JSON array of event objects, or JSON lines (one
/// event object per line; blank lines are skipped). Whitespace-only text is an empty batch.
/// The text is read as a session log from its start (BEHAVIOUR.md section 10): a first row that
/// is the session header is left out, SDK notifications stand for the events they carry, and a
/// log whose first event has no seq is numbered from 0.
///
/// Returns the validated events in input order, or the first error (seq order is not checked
/// here: the window checks it against what it holds).
pub fn parse_events(text: &str) -> Result<Vec<SessionEvent>, Error> {
    parse_events_with(text, &mut JsonInterner::default())
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
        let mut reader = Reader::resume(line.as_bytes(), 0, 0, remembered);
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

/// Events validated as they are read, so no batch of raw events is ever held. After the first
/// invalid event the rest is only checked as JSON: malformed text anywhere is the error that
/// wins, then the first invalid event in batch order.
struct Batch {
    events: Vec<SessionEvent>,
    first_error: Option<Error>,
    given: Given,
    frame: Frame,
}

/// For config and tools, the generation of the remembered value whose text this batch last gave
/// the interner, if it was one (see [`HeaderJson::Remembered`]).
#[derive(Default)]
struct Given {
    config: Option<u32>,
    tools: Option<u32>,
}

impl Batch {
    fn new(framing: Framing) -> Batch {
        Batch {
            events: Vec::new(),
            first_error: None,
            given: Given::default(),
            frame: Frame::new(framing),
        }
    }

    fn read(&mut self, reader: &mut Reader<'_>, interner: &mut JsonInterner) -> Step<()> {
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
    fn accept(&mut self, raw: &RawEvent<'_>, interner: &mut JsonInterner, text: Option<&str>) {
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
    fn frame_row<'r, 'a>(
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
    fn finish(self, torn: Option<(TornTail, Vec<u8>)>) -> Result<Rows, Error> {
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

fn describe_value(value: &JsonValue) -> &'static str {
    match value {
        JsonValue::Null => "null",
        JsonValue::Bool(_) => "boolean",
        JsonValue::Number(_) => "number",
        JsonValue::String(_) => "string",
        JsonValue::Array(_) => "array",
        JsonValue::Object(_) => "object",
    }
}

/// A JSON value read for what it is, without keeping containers.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) enum Scalar<'a> {
    #[default]
    Absent,
    Null,
    Bool(bool),
    Number(f64),
    Text(Cow<'a, str>),
    Array,
    Object,
}

impl<'a> Scalar<'a> {
    /// Reads any value; arrays and objects are checked and skipped.
    fn read(reader: &mut Reader<'a>) -> Step<Scalar<'a>> {
        if reader.peek() == Some(b'"') {
            return Ok(Scalar::Text(reader.string()?));
        }
        Ok(match Kind::read(reader)? {
            Kind::Absent => Scalar::Absent,
            Kind::Null => Scalar::Null,
            Kind::Bool(value) => Scalar::Bool(value),
            Kind::Number(value) => Scalar::Number(value),
            // Not reached: a string is read above, with its text.
            Kind::Text => Scalar::Text(Cow::Borrowed("")),
            Kind::Array => Scalar::Array,
            Kind::Object => Scalar::Object,
        })
    }

    fn is_text(&self, expected: &str) -> bool {
        matches!(self, Scalar::Text(text) if text == expected)
    }
}

/// A JSON value read for its kind, and its value when it is a number or a boolean: a
/// [`Scalar`] without the text of strings, for fields whose strings are all alike.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) enum Kind {
    #[default]
    Absent,
    Null,
    Bool(bool),
    Number(f64),
    Text,
    Array,
    Object,
}

impl Kind {
    /// Reads any value as [`Scalar::read`] does (strings are checked and skipped). The common
    /// value, a short integer, is read in place.
    #[inline(always)]
    fn read(reader: &mut Reader<'_>) -> Step<Kind> {
        match reader.short_integer() {
            Some(value) => Ok(Kind::Number(value)),
            None => Kind::read_any(reader),
        }
    }

    /// [`Kind::read`], for any value.
    #[inline(never)]
    fn read_any(reader: &mut Reader<'_>) -> Step<Kind> {
        Ok(match reader.peek() {
            Some(b'"') => {
                reader.skip_string()?;
                Kind::Text
            }
            Some(b't' | b'f') => Kind::Bool(reader.boolean()?),
            Some(b'n') => {
                reader.null()?;
                Kind::Null
            }
            Some(b'[') => {
                reader.skip_value()?;
                Kind::Array
            }
            Some(b'{') => {
                reader.skip_value()?;
                Kind::Object
            }
            // Tried again: `Kind::read` tried at the cursor, before any whitespace was skipped.
            _ => Kind::Number(match reader.short_integer() {
                Some(value) => value,
                None => reader.number()?,
            }),
        })
    }

    /// The kind of `scalar`.
    fn of(scalar: &Scalar<'_>) -> Kind {
        match scalar {
            Scalar::Absent => Kind::Absent,
            Scalar::Null => Kind::Null,
            Scalar::Bool(value) => Kind::Bool(*value),
            Scalar::Number(value) => Kind::Number(*value),
            Scalar::Text(_) => Kind::Text,
            Scalar::Array => Kind::Array,
            Scalar::Object => Kind::Object,
        }
    }

    fn describe(&self) -> String {
        match self {
            Kind::Absent => "nothing".to_owned(),
            Kind::Null => "null".to_owned(),
            Kind::Bool(_) => "a boolean".to_owned(),
            Kind::Number(value) => {
                format!(
                    "the number {}",
                    crate::input::json::stringify::js_number_to_string(*value)
                )
            }
            Kind::Text => "a string".to_owned(),
            Kind::Array => "an array".to_owned(),
            Kind::Object => "an object".to_owned(),
        }
    }

    /// The value as a safe integer, when it is one.
    fn safe_integer(&self) -> Option<i64> {
        match self {
            Kind::Number(value) => safe_integer(*value),
            _ => None,
        }
    }

    fn non_negative_integer(&self) -> Option<u64> {
        self.safe_integer()
            .and_then(|value| u64::try_from(value).ok())
    }
}

/// Reads any value: a string as its code (see [`KeyCode`]; the names the parser matches have
/// at most 15 bytes), anything else as `None`.
fn read_string_code(reader: &mut Reader<'_>) -> Step<Option<KeyCode>> {
    if reader.peek() != Some(b'"') {
        Kind::read(reader)?;
        return Ok(None);
    }
    reader.string_code().map(Some)
}

/// An event type the parser tells apart.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum TypeTag {
    /// No `type` member.
    #[default]
    Absent,
    SystemMessage,
    RequestHeader,
    TurnStart,
    TurnEnd,
    StepStart,
    StepEnd,
    /// `session`: the session header when it is a log's first row without seq.
    Session,
    /// `user/message`, `assistant/message`, `tool/result` or `developer/message`.
    Message(MessageRole),
    /// Any other string, or a `type` that is not a string.
    Other,
}

impl TypeTag {
    /// Reads a `type`, matching a string by its code (every name has at most 15 bytes).
    fn read(reader: &mut Reader<'_>) -> Step<TypeTag> {
        reader.peek();
        let start = reader.position();
        Ok(match read_string_code(reader)? {
            Some(names::USER_MESSAGE) => TypeTag::Message(MessageRole::User),
            Some(names::TOOL_RESULT) => TypeTag::Message(MessageRole::Tool),
            Some(names::LONG) => TypeTag::long(reader.text_since(start)),
            Some(names::SYSTEM_MESSAGE) => TypeTag::SystemMessage,
            Some(names::REQUEST_HEADER) => TypeTag::RequestHeader,
            Some(names::TURN_START) => TypeTag::TurnStart,
            Some(names::TURN_END) => TypeTag::TurnEnd,
            Some(names::STEP_START) => TypeTag::StepStart,
            Some(names::STEP_END) => TypeTag::StepEnd,
            Some(names::SESSION) => TypeTag::Session,
            _ => TypeTag::Other,
        })
    }

    /// The type whose name, longer than 15 bytes, is the JSON string `raw`.
    #[inline(never)]
    fn long(raw: &str) -> TypeTag {
        let text = match raw.contains('\\') {
            true => Cow::Owned(
                Reader::new(raw)
                    .string()
                    .map(Cow::into_owned)
                    .unwrap_or_default(),
            ),
            false => Cow::Borrowed(raw.get(1..raw.len().saturating_sub(1)).unwrap_or_default()),
        };
        match &*text {
            "assistant/message" => TypeTag::Message(MessageRole::Assistant),
            "developer/message" => TypeTag::Message(MessageRole::Developer),
            _ => TypeTag::Other,
        }
    }
}

/// What the parser keeps of one event before validation.
// One is read in place and reused for every event of a batch, never moved: its size costs
// nothing per event.
#[allow(clippy::large_enum_variant)]
#[derive(Debug)]
pub(crate) enum RawEvent<'a> {
    Object(RawObject<'a>),
    NotObject(Kind),
}

#[derive(Debug, Default)]
pub(crate) struct RawObject<'a> {
    seq: Kind,
    time: Kind,
    kind: TypeTag,
    surface_op: RawSurfaceOp<'a>,
    data: RawData<'a>,
    /// A row's `method`: an SDK notification when the row has no `type`.
    method: Method,
    /// A notification row's `params.event`.
    carried: Option<Box<RawEvent<'a>>>,
}

/// An SDK notification's `method`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Method {
    /// No `method` member.
    #[default]
    Absent,
    /// `"session.event"`: the row stands for `params.event`.
    SessionEvent,
    /// Anything else: the row carries no event.
    Other,
}

impl Default for RawEvent<'_> {
    fn default() -> Self {
        RawEvent::NotObject(Kind::Absent)
    }
}

impl<'a> RawEvent<'a> {
    /// Reads one event in place of this one: the struct is not moved (in wasm, a move of a
    /// struct this large is a `memory.copy`, which engines may run as a call out of wasm).
    fn read_in_place(&mut self, reader: &mut Reader<'a>) -> Step<()> {
        self.read_member_in_place::<true>(reader)
    }

    /// Whether this row may be a session header (whose JSON text is then kept whole).
    fn may_be_header(&self) -> bool {
        matches!(self, RawEvent::Object(object) if object.kind == TypeTag::Session && object.seq == Kind::Absent)
    }

    /// [`RawEvent::read_in_place`]; `ROW`: the event is a row of the batch (and may be an SDK
    /// notification), not the event a notification carries.
    fn read_member_in_place<const ROW: bool>(&mut self, reader: &mut Reader<'a>) -> Step<()> {
        if reader.peek() != Some(b'{') {
            *self = RawEvent::NotObject(Kind::read(reader)?);
            return Ok(());
        }
        use keys::event::{ALL, DATA, METHOD, PARAMS, SEQ, SURFACE_OP, TIME, TYPE};
        *self = RawEvent::Object(RawObject::default());
        let RawEvent::Object(raw) = self else {
            return Ok(());
        };
        let mut members = reader.begin_members(&ALL, SEQ)?;
        while let Some(member) = members.next(reader)? {
            match member {
                SEQ => raw.seq = Kind::read(reader)?,
                TIME => raw.time = Kind::read(reader)?,
                TYPE => raw.kind = TypeTag::read(reader)?,
                SURFACE_OP => raw.surface_op = RawSurfaceOp::read(reader)?,
                DATA => raw.data.read(reader, DataWants::for_type(raw.kind))?,
                METHOD if ROW => {
                    raw.method = match read_string_code(reader)? {
                        Some(names::SESSION_EVENT) => Method::SessionEvent,
                        _ => Method::Other,
                    }
                }
                PARAMS if ROW => raw.carried = read_carried_event(reader)?,
                _ => reader.skip_value()?,
            }
        }
        Ok(())
    }
}

/// A notification's `params.event`, when `params` is an object that has one.
fn read_carried_event<'a>(reader: &mut Reader<'a>) -> Step<Option<Box<RawEvent<'a>>>> {
    if reader.peek() != Some(b'{') {
        reader.skip_value()?;
        return Ok(None);
    }
    use keys::params::{ALL, EVENT};
    let mut carried = None;
    let mut members = reader.begin_members(&ALL, EVENT)?;
    while let Some(member) = members.next(reader)? {
        if member == EVENT {
            let mut event = Box::<RawEvent<'a>>::default();
            event.read_member_in_place::<false>(reader)?;
            carried = Some(event);
        } else {
            reader.skip_value()?;
        }
    }
    Ok(carried)
}

/// `surfaceOp` as written: absent, a string, a map with the three replace fields, or other.
#[derive(Debug, Default)]
enum RawSurfaceOp<'a> {
    #[default]
    Absent,
    Text(Cow<'a, str>),
    Map {
        op: Kind,
        /// Whether `op` is the string `"replace"`.
        replace: bool,
        start: Kind,
        end: Kind,
    },
    Other(Kind),
}

impl<'a> RawSurfaceOp<'a> {
    fn read(reader: &mut Reader<'a>) -> Step<RawSurfaceOp<'a>> {
        if reader.peek() != Some(b'{') {
            return Ok(match Scalar::read(reader)? {
                Scalar::Null => RawSurfaceOp::Absent,
                Scalar::Text(text) => RawSurfaceOp::Text(text),
                other => RawSurfaceOp::Other(Kind::of(&other)),
            });
        }
        use keys::surface_op::{ALL, END_SEQ, OP, START_SEQ};
        let (mut op, mut replace) = (Kind::Absent, false);
        let (mut start, mut end) = (Kind::Absent, Kind::Absent);
        let mut members = reader.begin_members(&ALL, OP)?;
        while let Some(member) = members.next(reader)? {
            match member {
                OP => {
                    let value = Scalar::read(reader)?;
                    (op, replace) = (Kind::of(&value), value.is_text("replace"));
                }
                START_SEQ => start = Kind::read(reader)?,
                END_SEQ => end = Kind::read(reader)?,
                _ => reader.skip_value()?,
            }
        }
        Ok(RawSurfaceOp::Map {
            op,
            replace,
            start,
            end,
        })
    }
}

/// The [`Reader::raw_value_repeating`] slots of a header's `config` and `tools`: consecutive
/// headers mostly repeat both.
const CONFIG_SLOT: usize = 0;
const TOOLS_SLOT: usize = 1;

/// Which parts of `data` are worth reading, decided by the event type when it came first.
#[derive(Clone, Copy)]
struct DataWants {
    message: bool,
    header: bool,
    /// Whether the message content's token cost is read (`data.message.content`, or
    /// `data.content` for a user message).
    tokens: bool,
}

impl DataWants {
    fn for_type(kind: TypeTag) -> DataWants {
        match kind {
            TypeTag::Absent => DataWants {
                message: true,
                header: true,
                tokens: true,
            },
            kind => DataWants {
                message: kind == TypeTag::SystemMessage,
                header: kind == TypeTag::RequestHeader,
                tokens: matches!(kind, TypeTag::Message(_)),
            },
        }
    }
}

/// A header's `config` or `tools` as given.
#[derive(Debug, Default)]
enum HeaderJson<'a> {
    /// No such member.
    #[default]
    Absent,
    /// Its JSON text.
    Text(&'a str),
    /// Its JSON text, the text of the remembered value of this generation in its reader slot
    /// (see [`Reader::raw_value_repeating`]): two of one generation in a batch are the same
    /// text, so the second needs no comparison in the interner.
    Remembered(&'a str, u32),
    /// The same JSON as the previous header's (packed batches only, see [`packed`]).
    #[cfg(any(test, feature = "wasm"))]
    SameAsPrevious,
}

impl<'a> HeaderJson<'a> {
    /// Reads a header's `config` or `tools` through its reader slot.
    fn read(reader: &mut Reader<'a>, slot: usize) -> Step<HeaderJson<'a>> {
        Ok(match reader.raw_value_repeating(slot)? {
            (text, Some(generation)) => HeaderJson::Remembered(text, generation),
            (text, None) => HeaderJson::Text(text),
        })
    }

    /// The generation of a remembered text.
    fn generation(&self) -> Option<u32> {
        match self {
            HeaderJson::Remembered(_, generation) => Some(*generation),
            _ => None,
        }
    }
}

#[derive(Debug)]
struct RawData<'a> {
    turn: Kind,
    step: Kind,
    /// The prompt text: borrowed from the batch when it is one text block without escapes,
    /// copied once more into the event's shared text.
    text: Option<Cow<'a, str>>,
    /// A system message's estimated tokens (see [`tokens::SystemUnits`]).
    system_tokens: u32,
    config: HeaderJson<'a>,
    tools: HeaderJson<'a>,
    /// `reason` as the header's reason (`Other` when absent or not a known string).
    reason: HeaderReason,
    /// Whether `startsSeries` is `true`.
    starts_series: bool,
    /// The token cost of `data.message.content`'s blocks (see [`tokens`]).
    message_tokens: u32,
    /// The token cost of `data.content`'s blocks (a user message's).
    content_tokens: u32,
    /// `data.message.usage`, else `data.usage`.
    usage: Option<Rc<JsonValue>>,
}

impl Default for RawData<'_> {
    fn default() -> Self {
        RawData {
            turn: Kind::Absent,
            step: Kind::Absent,
            text: None,
            system_tokens: 0,
            config: HeaderJson::Absent,
            tools: HeaderJson::Absent,
            reason: HeaderReason::Other,
            starts_series: false,
            message_tokens: 0,
            content_tokens: 0,
            usage: None,
        }
    }
}

impl<'a> RawData<'a> {
    /// Reads `data` in place of what is there (read in place: the struct is not moved);
    /// anything but an object is no data.
    fn read(&mut self, reader: &mut Reader<'a>, wants: DataWants) -> Step<()> {
        *self = RawData::default();
        let data = self;
        if reader.peek() != Some(b'{') {
            return reader.skip_value();
        }
        use keys::data::{ALL, CONTENT, HEADER, MESSAGE, REASON, STARTS_SERIES, STEP, TURN, USAGE};
        // A header's data usually starts with its reason, any other's with its turn.
        let likely = if wants.message { TURN } else { REASON };
        let mut members = reader.begin_members(&ALL, likely)?;
        while let Some(member) = members.next(reader)? {
            match member {
                TURN => data.turn = Kind::read(reader)?,
                STEP => data.step = Kind::read(reader)?,
                MESSAGE if wants.message && wants.tokens => {
                    // The type is not known yet: both readings, from the checked text.
                    let raw = reader.raw_value()?;
                    (data.text, data.system_tokens) =
                        read_prompt_text(&mut Reader::new(raw)).unwrap_or_default();
                    let (tokens, usage) =
                        read_message_tokens(&mut Reader::new(raw)).unwrap_or_default();
                    data.message_tokens = tokens;
                    data.usage = usage.or(data.usage.take());
                }
                MESSAGE if wants.message => {
                    (data.text, data.system_tokens) = read_prompt_text(reader)?
                }
                MESSAGE if wants.tokens => {
                    let (tokens, usage) = read_message_tokens(reader)?;
                    data.message_tokens = tokens;
                    data.usage = usage.or(data.usage.take());
                }
                USAGE if wants.tokens => {
                    let usage = Rc::new(reader.value()?);
                    data.usage = data.usage.take().or(Some(usage));
                }
                CONTENT if wants.tokens => {
                    data.content_tokens = tokens::read_content_tokens(reader)?;
                }
                HEADER if wants.header => {
                    let (config, tools) = read_header_fields(reader)?;
                    data.config = config;
                    data.tools = tools;
                }
                REASON if wants.header => data.reason = read_reason(reader)?,
                STARTS_SERIES if wants.header => {
                    data.starts_series = Kind::read(reader)? == Kind::Bool(true);
                }
                _ => reader.skip_value()?,
            }
        }
        Ok(())
    }
}

/// A header's `reason`.
fn read_reason(reader: &mut Reader<'_>) -> Step<HeaderReason> {
    Ok(match read_string_code(reader)? {
        Some(names::INITIAL) => HeaderReason::Initial,
        Some(names::RESUME) => HeaderReason::Resume,
        Some(names::CHANGE) => HeaderReason::Change,
        Some(names::SERIES) => HeaderReason::Series,
        _ => HeaderReason::Other,
    })
}

/// A message's prompt text: every `{type: "text", text}` block of `content` joined with `""`,
/// and the system message's estimated tokens. `None` (and 0) when the message is not an object;
/// an object without an array `content` is `""`.
fn read_prompt_text<'a>(reader: &mut Reader<'a>) -> Step<(Option<Cow<'a, str>>, u32)> {
    if reader.peek() != Some(b'{') {
        reader.skip_value()?;
        return Ok((None, 0));
    }
    use keys::message::{ALL, CONTENT, ROLE};
    let (mut text, mut units) = (Cow::Borrowed(""), tokens::SystemUnits::default());
    let mut members = reader.begin_members(&ALL, ROLE)?;
    while let Some(member) = members.next(reader)? {
        if member == CONTENT {
            (text, units) = read_content_text(reader)?;
        } else {
            reader.skip_value()?;
        }
    }
    Ok((Some(text), units.tokens()))
}

/// The token cost of a message object's `content` blocks (0 for anything else), and its
/// `usage`.
fn read_message_tokens(reader: &mut Reader<'_>) -> Step<(u32, Option<Rc<JsonValue>>)> {
    if reader.peek() != Some(b'{') {
        return reader.skip_value().map(|()| (0, None));
    }
    use keys::message::{ALL, CONTENT, ROLE, USAGE};
    let (mut cost, mut usage) = (0, None);
    let mut members = reader.begin_members(&ALL, ROLE)?;
    while let Some(member) = members.next(reader)? {
        match member {
            CONTENT => cost = tokens::read_content_tokens(reader)?,
            USAGE => usage = Some(Rc::new(reader.value()?)),
            _ => reader.skip_value()?,
        }
    }
    Ok((cost, usage))
}

/// The joined text of a `content` array (anything else is `""`), and what the token meter
/// counts of its blocks.
fn read_content_text<'a>(reader: &mut Reader<'a>) -> Step<(Cow<'a, str>, tokens::SystemUnits)> {
    let mut text = Cow::Borrowed("");
    let mut units = tokens::SystemUnits::default();
    if reader.peek() != Some(b'[') {
        reader.skip_value()?;
        return Ok((text, units));
    }
    let mut array = reader.begin_array()?;
    while reader.next_element(&mut array)? {
        let start = reader.position();
        match read_text_block(reader)? {
            Some(part) => {
                units.add_text(&part);
                if text.is_empty() {
                    text = part;
                } else {
                    text.to_mut().push_str(&part);
                }
            }
            None => units.add_json(reader.text_since(start)),
        }
    }
    Ok((text, units))
}

/// A content block's text when the block is `{type: "text", text: <string>}`.
fn read_text_block<'a>(reader: &mut Reader<'a>) -> Step<Option<Cow<'a, str>>> {
    if reader.peek() != Some(b'{') {
        reader.skip_value()?;
        return Ok(None);
    }
    use keys::block::{ALL, TEXT, TYPE};
    let (mut is_text, mut text) = (false, Scalar::Absent);
    let mut members = reader.begin_members(&ALL, TYPE)?;
    while let Some(member) = members.next(reader)? {
        match member {
            TYPE => is_text = read_string_code(reader)? == Some(names::TEXT),
            TEXT => text = Scalar::read(reader)?,
            _ => reader.skip_value()?,
        }
    }
    Ok(match text {
        Scalar::Text(text) if is_text => Some(text),
        _ => None,
    })
}

/// `data.header`'s `config` and `tools`, as their JSON text (anything but an object has neither).
fn read_header_fields<'a>(reader: &mut Reader<'a>) -> Step<(HeaderJson<'a>, HeaderJson<'a>)> {
    let (mut config, mut tools) = (HeaderJson::Absent, HeaderJson::Absent);
    if reader.peek() != Some(b'{') {
        reader.skip_value()?;
        return Ok((config, tools));
    }
    use keys::header::{ALL, CONFIG, TOOLS};
    let mut members = reader.begin_members(&ALL, CONFIG)?;
    while let Some(member) = members.next(reader)? {
        match member {
            CONFIG => config = HeaderJson::read(reader, CONFIG_SLOT)?,
            TOOLS => tools = HeaderJson::read(reader, TOOLS_SLOT)?,
            _ => reader.skip_value()?,
        }
    }
    Ok((config, tools))
}

impl RawEvent<'_> {
    /// Checks the event and pushes what the interpreter reads onto `events` (built there, not
    /// moved there: see [`RawEvent::read_in_place`]); `index` is its row in the batch, and
    /// `frame` numbers it when its log is seq-less.
    fn validate(
        &self,
        index: usize,
        frame: &mut Frame,
        interner: &mut JsonInterner,
        given: &mut Given,
        events: &mut Vec<SessionEvent>,
    ) -> Result<(), Error> {
        let raw = match self {
            RawEvent::Object(raw) => raw,
            RawEvent::NotObject(found) => {
                return Err(Error::NotAnObject {
                    index,
                    found: found.describe(),
                })
            }
        };
        let seq = frame.seq(index, &raw.seq)?;
        let surface_op = validate_surface_op(&raw.surface_op, index, seq)?;
        let time = match raw.time {
            Kind::Number(time) => time,
            _ => 0.0,
        };
        let turn = match &raw.data.turn {
            Kind::Null => TurnField::Null,
            value => value
                .non_negative_integer()
                .map_or(TurnField::Absent, TurnField::Turn),
        };
        let step = raw.data.step.non_negative_integer();
        let kind = event_kind(raw.kind, &raw.data, interner, given);
        events.push(SessionEvent {
            seq,
            time,
            kind,
            surface_op,
            turn,
            step,
        });
        Ok(())
    }
}

fn event_kind(
    kind: TypeTag,
    data: &RawData,
    interner: &mut JsonInterner,
    given: &mut Given,
) -> EventKind {
    match kind {
        TypeTag::SystemMessage => EventKind::SystemMessage {
            text: Rc::from(data.text.as_deref().unwrap_or_default()),
            tokens: data.system_tokens,
        },
        TypeTag::RequestHeader => {
            let (reason, starts_series) = (data.reason.clone(), data.starts_series);
            let tools_generation = data.tools.generation();
            let tools = match data.tools {
                HeaderJson::Absent => interner.tools(None),
                HeaderJson::Remembered(..) if tools_generation == given.tools => {
                    interner.previous_tools()
                }
                HeaderJson::Text(text) | HeaderJson::Remembered(text, _) => {
                    interner.tools(Some(text))
                }
                #[cfg(any(test, feature = "wasm"))]
                HeaderJson::SameAsPrevious => interner.previous_tools(),
            };
            given.tools = tools_generation;
            let config_generation = data.config.generation();
            let config = match data.config {
                HeaderJson::Absent => None,
                HeaderJson::Remembered(..) if config_generation == given.config => {
                    interner.previous_config()
                }
                HeaderJson::Text(raw) | HeaderJson::Remembered(raw, _) => {
                    Some(interner.config(raw))
                }
                #[cfg(any(test, feature = "wasm"))]
                HeaderJson::SameAsPrevious => interner.previous_config(),
            };
            // A header without config leaves the interner's last config as it was.
            if !matches!(data.config, HeaderJson::Absent) {
                given.config = config_generation;
            }
            EventKind::RequestHeader(Rc::new(RequestHeader {
                config,
                tools: tools.value,
                tools_text: tools.text,
                reason,
                starts_series,
            }))
        }
        TypeTag::TurnStart => EventKind::TurnStart,
        TypeTag::TurnEnd => EventKind::TurnEnd,
        TypeTag::StepStart => EventKind::StepStart,
        TypeTag::StepEnd => EventKind::StepEnd,
        TypeTag::Message(role) => {
            let content = match role {
                MessageRole::User => data.content_tokens,
                _ => data.message_tokens,
            };
            EventKind::Message(SurfaceMessage {
                role,
                tokens: content.saturating_add(4),
                usage: data.usage.clone(),
            })
        }
        TypeTag::Absent | TypeTag::Session | TypeTag::Other => EventKind::Other,
    }
}

fn validate_surface_op(
    raw: &RawSurfaceOp,
    index: usize,
    seq: Seq,
) -> Result<Option<SurfaceOp>, Error> {
    let invalid = |reason: String| Error::InvalidSurfaceOp { index, seq, reason };
    match raw {
        RawSurfaceOp::Absent => Ok(None),
        RawSurfaceOp::Text(text) if text == "append" => Ok(Some(SurfaceOp::Append)),
        RawSurfaceOp::Text(text) => Err(invalid(format!(
            "expected \"append\" or a replace object, found the string \"{text}\""
        ))),
        RawSurfaceOp::Other(found) => Err(invalid(format!(
            "expected \"append\" or a replace object, found {}",
            found.describe()
        ))),
        RawSurfaceOp::Map {
            op,
            replace,
            start,
            end,
        } => {
            if !replace {
                return Err(invalid(format!(
                    "op must be \"replace\", found {}",
                    op.describe()
                )));
            }
            let endpoint = |name: &str, value: &Kind| -> Result<Seq, Error> {
                let found = value.safe_integer().ok_or_else(|| {
                    invalid(format!(
                        "{name} must be an integer, found {}",
                        value.describe()
                    ))
                })?;
                if found >= seq {
                    return Err(invalid(format!(
                        "{name} {found} must be less than the event's seq"
                    )));
                }
                Ok(found)
            };
            let start = endpoint("startSeq", start)?;
            let end = endpoint("endSeq", end)?;
            Ok(Some(SurfaceOp::Replace { start, end }))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        assert_eq!(events[0].turn, TurnField::Turn(1));
        assert_eq!(events[0].step, Some(2));
        assert_eq!(events[0].surface_op, Some(SurfaceOp::Append));
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
            (events[0].turn, events[0].step),
            (TurnField::Absent, Some(3))
        );
        assert_eq!(events[1].system_text().map(|t| &**t), Some(""));
        assert_eq!((events[1].turn, events[1].step), (TurnField::Absent, None));
    }

    #[test]
    fn json_lines_and_blank_lines() {
        let text =
            "{\"seq\":1,\"type\":\"x\"}\n\n{\"seq\":2,\"type\":\"y\",\"data\":{\"turn\":null}}\n";
        let events = parse_events(text).unwrap();
        assert_eq!(events.len(), 2);
        assert_eq!(events[1].turn, TurnField::Null);
        assert!(parse_events("  \n ").unwrap().is_empty());
    }

    #[test]
    fn keys_with_escapes_match_their_text() {
        let text = r#"[{"s\u0065q":3,"typ\u0065":"turn/start","d\u0061ta":{"\u0074urn":2}},
          {"seq":4,"time":1,"type":"system/message","data":{"message":{"content":[{"type":"text",
           "t\u0065xt":"A"}]}}}]"#;
        let events = parse_events(text).unwrap();
        assert_eq!(events[0].seq, 3);
        assert_eq!(events[0].turn, TurnField::Turn(2));
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
        assert_eq!(event.turn, TurnField::Absent);
        assert_eq!(event.step, None);
        assert_eq!(event.system_text().map(|t| &**t), Some(""));
    }
}
