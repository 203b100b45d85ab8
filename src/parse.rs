//! Reading events from JSON text or any serde data source, leniently: only the fields the
//! interpreter needs are kept, unknown types and fields are skipped, and wrongly typed optional
//! fields count as absent. `seq` and `surfaceOp` are checked, since the fold cannot do without them.

use std::fmt;
use std::rc::Rc;

use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::Value;

use crate::error::Error;
use crate::event::{
    safe_integer, EventKind, HeaderReason, RequestHeader, Seq, SessionEvent, SurfaceOp, TurnField,
};
use crate::intern::JsonInterner;

/// Parses a batch of events from JSON text: a JSON array of event objects, or JSON lines (one
/// event object per line; blank lines are skipped). Whitespace-only text is an empty batch.
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
    match text.trim_start().chars().next() {
        None => Ok(Vec::new()),
        Some('[') => {
            let raw: RawEvents = serde_json::from_str(text).map_err(|err| json_error(&err, 0))?;
            validate_events(raw.0, interner)
        }
        Some('{') => parse_json_lines(text, interner),
        Some(_) => {
            let value: Value = serde_json::from_str(text).map_err(|err| json_error(&err, 0))?;
            Err(Error::NotAnArray {
                found: describe_value(&value).to_owned(),
            })
        }
    }
}

fn parse_json_lines(text: &str, interner: &mut JsonInterner) -> Result<Vec<SessionEvent>, Error> {
    let mut raw = Vec::new();
    for (line_index, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let event: RawEvent =
            serde_json::from_str(line).map_err(|err| json_error(&err, line_index))?;
        raw.push(event);
    }
    validate_events(raw, interner)
}

fn json_error(err: &serde_json::Error, line_offset: usize) -> Error {
    Error::MalformedJson {
        line: err.line().saturating_add(line_offset),
        column: err.column(),
        message: err.to_string(),
    }
}

fn describe_value(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// Visit methods that accept a value of the named kinds and return `$fallback`: how a lenient
/// field treats a wrongly typed value (as absent). Every visitor here covers every kind a
/// self-describing format can hand it, so serde's type-error path (which formats floats, and
/// would cost the wasm module 17 KB) is never compiled in.
macro_rules! lenient {
    ($de:lifetime, $fallback:expr; $($kind:ident)*) => { $(lenient!(@ $de, $kind, $fallback);)* };
    (@ $de:lifetime, unit, $fallback:expr) => {
        fn visit_unit<E>(self) -> Result<Self::Value, E> { Ok($fallback) }
    };
    (@ $de:lifetime, none, $fallback:expr) => {
        fn visit_none<E>(self) -> Result<Self::Value, E> { Ok($fallback) }
    };
    (@ $de:lifetime, bool, $fallback:expr) => {
        fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> { Ok($fallback) }
    };
    (@ $de:lifetime, i64, $fallback:expr) => {
        fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> { Ok($fallback) }
    };
    (@ $de:lifetime, u64, $fallback:expr) => {
        fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> { Ok($fallback) }
    };
    (@ $de:lifetime, f64, $fallback:expr) => {
        fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> { Ok($fallback) }
    };
    (@ $de:lifetime, str, $fallback:expr) => {
        fn visit_str<E>(self, _: &str) -> Result<Self::Value, E> { Ok($fallback) }
    };
    (@ $de:lifetime, bytes, $fallback:expr) => {
        fn visit_bytes<E>(self, _: &[u8]) -> Result<Self::Value, E> { Ok($fallback) }
    };
    (@ $de:lifetime, seq, $fallback:expr) => {
        fn visit_seq<A: SeqAccess<$de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
            while seq.next_element::<IgnoredAny>()?.is_some() {}
            Ok($fallback)
        }
    };
    (@ $de:lifetime, map, $fallback:expr) => {
        fn visit_map<A: MapAccess<$de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
            Ok($fallback)
        }
    };
}

/// A JSON array of raw events, read through `deserialize_any` (the first character was `[`):
/// the sequence reader's own type-error path would bring float formatting into the module.
struct RawEvents(Vec<RawEvent>);

impl<'de> Deserialize<'de> for RawEvents {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<RawEvents, D::Error> {
        d.deserialize_any(RawEventsVisitor)
    }
}

struct RawEventsVisitor;

impl<'de> Visitor<'de> for RawEventsVisitor {
    type Value = RawEvents;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an array of events")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<RawEvents, A::Error> {
        let mut events = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096));
        while let Some(event) = seq.next_element::<RawEvent>()? {
            events.push(event);
        }
        Ok(RawEvents(events))
    }
    lenient!('de, RawEvents(Vec::new()); unit bool i64 u64 f64 str bytes map);
}

/// Validates raw events in batch order; the first invalid one gives the error.
fn validate_events(
    raw: Vec<RawEvent>,
    interner: &mut JsonInterner,
) -> Result<Vec<SessionEvent>, Error> {
    raw.into_iter()
        .enumerate()
        .map(|(index, event)| event.validate(index, interner))
        .collect()
}

/// A JSON value read for what it is, without keeping containers.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) enum Scalar {
    #[default]
    Absent,
    Null,
    Bool(bool),
    Number(f64),
    Text(String),
    Array,
    Object,
}

impl Scalar {
    fn describe(&self) -> String {
        match self {
            Scalar::Absent => "nothing".to_owned(),
            Scalar::Null => "null".to_owned(),
            Scalar::Bool(_) => "a boolean".to_owned(),
            Scalar::Number(value) => {
                format!("the number {}", crate::jsjson::js_number_text(*value))
            }
            Scalar::Text(_) => "a string".to_owned(),
            Scalar::Array => "an array".to_owned(),
            Scalar::Object => "an object".to_owned(),
        }
    }

    /// The value as a safe integer, when it is one.
    fn safe_integer(&self) -> Option<i64> {
        match self {
            Scalar::Number(value) => safe_integer(*value),
            _ => None,
        }
    }

    fn non_negative_integer(&self) -> Option<u64> {
        self.safe_integer()
            .and_then(|value| u64::try_from(value).ok())
    }
}

struct ScalarVisitor;

impl<'de> Visitor<'de> for ScalarVisitor {
    type Value = Scalar;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_unit<E>(self) -> Result<Scalar, E> {
        Ok(Scalar::Null)
    }
    fn visit_none<E>(self) -> Result<Scalar, E> {
        Ok(Scalar::Null)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Scalar, D::Error> {
        d.deserialize_any(ScalarVisitor)
    }
    fn visit_bool<E>(self, v: bool) -> Result<Scalar, E> {
        Ok(Scalar::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Scalar, E> {
        Ok(Scalar::Number(v as f64))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Scalar, E> {
        Ok(Scalar::Number(v as f64))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Scalar, E> {
        Ok(Scalar::Number(v))
    }
    fn visit_str<E>(self, v: &str) -> Result<Scalar, E> {
        Ok(Scalar::Text(v.to_owned()))
    }
    fn visit_string<E>(self, v: String) -> Result<Scalar, E> {
        Ok(Scalar::Text(v))
    }
    fn visit_bytes<E>(self, _: &[u8]) -> Result<Scalar, E> {
        Ok(Scalar::Array)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Scalar, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Scalar::Array)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Scalar, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(Scalar::Object)
    }
}

impl<'de> Deserialize<'de> for Scalar {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Scalar, D::Error> {
        d.deserialize_any(ScalarVisitor)
    }
}

/// A map key the parser knows, read without allocating.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Field {
    Seq,
    Time,
    Type,
    SurfaceOp,
    Data,
    Turn,
    Step,
    Message,
    Header,
    Reason,
    StartsSeries,
    Content,
    Text,
    Op,
    StartSeq,
    EndSeq,
    Config,
    Tools,
    Other,
}

impl<'de> Deserialize<'de> for Field {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Field, D::Error> {
        // Not `deserialize_identifier`: its error path formats floats, which costs the wasm
        // module 17 KB for a case JSON text cannot reach (map keys are strings).
        d.deserialize_any(FieldVisitor)
    }
}

struct FieldVisitor;

impl<'de> Visitor<'de> for FieldVisitor {
    type Value = Field;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a field name")
    }
    fn visit_str<E>(self, name: &str) -> Result<Field, E> {
        Ok(match name {
            "seq" => Field::Seq,
            "time" => Field::Time,
            "type" => Field::Type,
            "surfaceOp" => Field::SurfaceOp,
            "data" => Field::Data,
            "turn" => Field::Turn,
            "step" => Field::Step,
            "message" => Field::Message,
            "header" => Field::Header,
            "reason" => Field::Reason,
            "startsSeries" => Field::StartsSeries,
            "content" => Field::Content,
            "text" => Field::Text,
            "op" => Field::Op,
            "startSeq" => Field::StartSeq,
            "endSeq" => Field::EndSeq,
            "config" => Field::Config,
            "tools" => Field::Tools,
            _ => Field::Other,
        })
    }
    lenient!('de, Field::Other; unit bool i64 u64 f64 bytes seq map);
}

/// An event type the parser tells apart, read without allocating.
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
    /// Any other string, or a `type` that is not a string.
    Other,
}

impl<'de> Deserialize<'de> for TypeTag {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<TypeTag, D::Error> {
        d.deserialize_any(TypeTagVisitor)
    }
}

struct TypeTagVisitor;

impl<'de> Visitor<'de> for TypeTagVisitor {
    type Value = TypeTag;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an event type")
    }
    fn visit_str<E>(self, name: &str) -> Result<TypeTag, E> {
        Ok(match name {
            "system/message" => TypeTag::SystemMessage,
            "request/header" => TypeTag::RequestHeader,
            "turn/start" => TypeTag::TurnStart,
            "turn/end" => TypeTag::TurnEnd,
            "step/start" => TypeTag::StepStart,
            "step/end" => TypeTag::StepEnd,
            _ => TypeTag::Other,
        })
    }
    lenient!('de, TypeTag::Other; unit bool i64 u64 f64 bytes seq map);
}

/// What the parser keeps of one event before validation.
#[derive(Debug)]
pub(crate) enum RawEvent {
    Object(Box<RawObject>),
    NotObject(Scalar),
}

#[derive(Debug, Default)]
pub(crate) struct RawObject {
    seq: Scalar,
    time: Scalar,
    kind: TypeTag,
    surface_op: RawSurfaceOp,
    data: RawData,
}

impl<'de> Deserialize<'de> for RawEvent {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<RawEvent, D::Error> {
        d.deserialize_any(EventVisitor)
    }
}

struct EventVisitor;

impl EventVisitor {
    fn not_object<E>(found: Scalar) -> Result<RawEvent, E> {
        Ok(RawEvent::NotObject(found))
    }
}

impl<'de> Visitor<'de> for EventVisitor {
    type Value = RawEvent;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an event object")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<RawEvent, A::Error> {
        let mut raw = RawObject::default();
        while let Some(field) = map.next_key::<Field>()? {
            match field {
                Field::Seq => raw.seq = map.next_value()?,
                Field::Time => raw.time = map.next_value()?,
                Field::Type => raw.kind = map.next_value()?,
                Field::SurfaceOp => raw.surface_op = map.next_value()?,
                Field::Data => {
                    let wants = DataWants::for_type(&raw.kind);
                    raw.data = map.next_value_seed(wants)?;
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(RawEvent::Object(Box::new(raw)))
    }
    fn visit_unit<E>(self) -> Result<RawEvent, E> {
        Self::not_object(Scalar::Null)
    }
    fn visit_none<E>(self) -> Result<RawEvent, E> {
        Self::not_object(Scalar::Null)
    }
    fn visit_bool<E>(self, v: bool) -> Result<RawEvent, E> {
        Self::not_object(Scalar::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<RawEvent, E> {
        Self::not_object(Scalar::Number(v as f64))
    }
    fn visit_u64<E>(self, v: u64) -> Result<RawEvent, E> {
        Self::not_object(Scalar::Number(v as f64))
    }
    fn visit_f64<E>(self, v: f64) -> Result<RawEvent, E> {
        Self::not_object(Scalar::Number(v))
    }
    fn visit_str<E>(self, _: &str) -> Result<RawEvent, E> {
        Self::not_object(Scalar::Text(String::new()))
    }
    fn visit_bytes<E>(self, _: &[u8]) -> Result<RawEvent, E> {
        Self::not_object(Scalar::Array)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<RawEvent, A::Error> {
        ScalarVisitor.visit_seq(seq).map(RawEvent::NotObject)
    }
}

/// `surfaceOp` as written: absent, a string, a map with the three replace fields, or other.
#[derive(Debug, Default)]
enum RawSurfaceOp {
    #[default]
    Absent,
    Text(String),
    Map {
        op: Scalar,
        start: Scalar,
        end: Scalar,
    },
    Other(Scalar),
}

impl<'de> Deserialize<'de> for RawSurfaceOp {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<RawSurfaceOp, D::Error> {
        d.deserialize_any(SurfaceOpVisitor)
    }
}

struct SurfaceOpVisitor;

impl<'de> Visitor<'de> for SurfaceOpVisitor {
    type Value = RawSurfaceOp;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a surface op")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<RawSurfaceOp, A::Error> {
        let (mut op, mut start, mut end) = (Scalar::Absent, Scalar::Absent, Scalar::Absent);
        while let Some(field) = map.next_key::<Field>()? {
            match field {
                Field::Op => op = map.next_value()?,
                Field::StartSeq => start = map.next_value()?,
                Field::EndSeq => end = map.next_value()?,
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(RawSurfaceOp::Map { op, start, end })
    }
    fn visit_str<E>(self, v: &str) -> Result<RawSurfaceOp, E> {
        Ok(RawSurfaceOp::Text(v.to_owned()))
    }
    fn visit_string<E>(self, v: String) -> Result<RawSurfaceOp, E> {
        Ok(RawSurfaceOp::Text(v))
    }
    fn visit_unit<E>(self) -> Result<RawSurfaceOp, E> {
        Ok(RawSurfaceOp::Absent)
    }
    fn visit_none<E>(self) -> Result<RawSurfaceOp, E> {
        Ok(RawSurfaceOp::Absent)
    }
    fn visit_bool<E>(self, v: bool) -> Result<RawSurfaceOp, E> {
        Ok(RawSurfaceOp::Other(Scalar::Bool(v)))
    }
    fn visit_i64<E>(self, v: i64) -> Result<RawSurfaceOp, E> {
        Ok(RawSurfaceOp::Other(Scalar::Number(v as f64)))
    }
    fn visit_u64<E>(self, v: u64) -> Result<RawSurfaceOp, E> {
        Ok(RawSurfaceOp::Other(Scalar::Number(v as f64)))
    }
    fn visit_f64<E>(self, v: f64) -> Result<RawSurfaceOp, E> {
        Ok(RawSurfaceOp::Other(Scalar::Number(v)))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<RawSurfaceOp, A::Error> {
        ScalarVisitor.visit_seq(seq).map(RawSurfaceOp::Other)
    }
}

/// Which parts of `data` are worth reading, decided by the event type when it came first.
#[derive(Clone, Copy)]
struct DataWants {
    message: bool,
    header: bool,
}

impl DataWants {
    fn for_type(kind: &TypeTag) -> DataWants {
        match kind {
            TypeTag::Absent => DataWants {
                message: true,
                header: true,
            },
            kind => DataWants {
                message: *kind == TypeTag::SystemMessage,
                header: *kind == TypeTag::RequestHeader,
            },
        }
    }
}

#[derive(Debug, Default)]
struct RawData {
    turn: Scalar,
    step: Scalar,
    text: Option<String>,
    config: Option<Box<RawValue>>,
    tools: Option<Box<RawValue>>,
    reason: Scalar,
    starts_series: Scalar,
}

impl<'de> DeserializeSeed<'de> for DataWants {
    type Value = RawData;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<RawData, D::Error> {
        d.deserialize_any(DataVisitor(self))
    }
}

struct DataVisitor(DataWants);

impl<'de> Visitor<'de> for DataVisitor {
    type Value = RawData;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("event data")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<RawData, A::Error> {
        let wants = self.0;
        let mut data = RawData::default();
        while let Some(field) = map.next_key::<Field>()? {
            match field {
                Field::Turn => data.turn = map.next_value()?,
                Field::Step => data.step = map.next_value()?,
                Field::Message if wants.message => data.text = map.next_value::<PromptText>()?.0,
                Field::Header if wants.header => {
                    let header = map.next_value::<HeaderFields>()?;
                    data.config = header.config;
                    data.tools = header.tools;
                }
                Field::Reason if wants.header => data.reason = map.next_value()?,
                Field::StartsSeries if wants.header => data.starts_series = map.next_value()?,
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(data)
    }
    lenient!('de, RawData::default(); unit none bool i64 u64 f64 str bytes seq);
}

/// A message's prompt text: every `{type: "text", text}` block of `content` joined with `""`.
/// `None` when the message is not an object; an object without an array `content` is `""`.
struct PromptText(Option<String>);

impl<'de> Deserialize<'de> for PromptText {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<PromptText, D::Error> {
        d.deserialize_any(PromptTextVisitor)
    }
}

struct PromptTextVisitor;

impl<'de> Visitor<'de> for PromptTextVisitor {
    type Value = PromptText;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a message")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<PromptText, A::Error> {
        let mut text = String::new();
        while let Some(field) = map.next_key::<Field>()? {
            if field == Field::Content {
                text = map.next_value::<ContentText>()?.0;
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(PromptText(Some(text)))
    }
    lenient!('de, PromptText(None); unit none bool i64 u64 f64 str bytes seq);
}

/// The joined text of a `content` array (anything else is `""`).
struct ContentText(String);

impl<'de> Deserialize<'de> for ContentText {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<ContentText, D::Error> {
        match d.deserialize_any(ContentVisitor)? {
            Some(text) => Ok(ContentText(text)),
            None => Ok(ContentText(String::new())),
        }
    }
}

struct ContentVisitor;

impl<'de> Visitor<'de> for ContentVisitor {
    type Value = Option<String>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a content array")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Option<String>, A::Error> {
        let mut text = String::new();
        while let Some(block) = seq.next_element::<TextBlock>()? {
            if let Some(part) = block.0 {
                text.push_str(&part);
            }
        }
        Ok(Some(text))
    }
    lenient!('de, None; unit none bool i64 u64 f64 str bytes map);
}

/// A content block's text when the block is `{type: "text", text: <string>}`.
struct TextBlock(Option<String>);

impl<'de> Deserialize<'de> for TextBlock {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<TextBlock, D::Error> {
        d.deserialize_any(TextBlockVisitor)
    }
}

struct TextBlockVisitor;

impl<'de> Visitor<'de> for TextBlockVisitor {
    type Value = TextBlock;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a content block")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<TextBlock, A::Error> {
        let (mut kind, mut text) = (Scalar::Absent, Scalar::Absent);
        while let Some(field) = map.next_key::<Field>()? {
            match field {
                Field::Type => kind = map.next_value()?,
                Field::Text => text = map.next_value()?,
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        match (kind, text) {
            (Scalar::Text(kind), Scalar::Text(text)) if kind == "text" => Ok(TextBlock(Some(text))),
            _ => Ok(TextBlock(None)),
        }
    }
    lenient!('de, TextBlock(None); unit none bool i64 u64 f64 str bytes seq);
}

/// `data.header`'s `config` and `tools`, kept as JSON values.
#[derive(Default)]
struct HeaderFields {
    config: Option<Box<RawValue>>,
    tools: Option<Box<RawValue>>,
}

impl<'de> Deserialize<'de> for HeaderFields {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<HeaderFields, D::Error> {
        d.deserialize_any(HeaderVisitor)
    }
}

struct HeaderVisitor;

impl<'de> Visitor<'de> for HeaderVisitor {
    type Value = HeaderFields;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a request header")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<HeaderFields, A::Error> {
        let mut header = HeaderFields::default();
        while let Some(field) = map.next_key::<Field>()? {
            match field {
                Field::Config => header.config = Some(map.next_value()?),
                Field::Tools => header.tools = Some(map.next_value()?),
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(header)
    }
    lenient!('de, HeaderFields::default(); unit none bool i64 u64 f64 str bytes seq);
}

impl RawEvent {
    /// Checks the event and keeps what the interpreter reads; `index` is its place in the batch.
    fn validate(self, index: usize, interner: &mut JsonInterner) -> Result<SessionEvent, Error> {
        let raw = match self {
            RawEvent::Object(raw) => *raw,
            RawEvent::NotObject(found) => {
                return Err(Error::NotAnObject {
                    index,
                    found: found.describe(),
                })
            }
        };
        let seq = match &raw.seq {
            Scalar::Absent => return Err(Error::MissingSeq { index }),
            value => value.safe_integer().ok_or_else(|| Error::InvalidSeq {
                index,
                found: value.describe(),
            })?,
        };
        let surface_op = validate_surface_op(raw.surface_op, index, seq)?;
        let time = match raw.time {
            Scalar::Number(time) => time,
            _ => 0.0,
        };
        let turn = match &raw.data.turn {
            Scalar::Null => TurnField::Null,
            value => value
                .non_negative_integer()
                .map_or(TurnField::Absent, TurnField::Turn),
        };
        let step = raw.data.step.non_negative_integer();
        let kind = event_kind(raw.kind, raw.data, interner);
        Ok(SessionEvent {
            seq,
            time,
            kind,
            surface_op,
            turn,
            step,
        })
    }
}

fn event_kind(kind: TypeTag, data: RawData, interner: &mut JsonInterner) -> EventKind {
    match kind {
        TypeTag::SystemMessage => EventKind::SystemMessage {
            text: Rc::from(data.text.unwrap_or_default()),
        },
        TypeTag::RequestHeader => {
            let reason = match &data.reason {
                Scalar::Text(reason) => match reason.as_str() {
                    "initial" => HeaderReason::Initial,
                    "resume" => HeaderReason::Resume,
                    "change" => HeaderReason::Change,
                    "series" => HeaderReason::Series,
                    _ => HeaderReason::Other,
                },
                _ => HeaderReason::Other,
            };
            let starts_series = data.starts_series == Scalar::Bool(true);
            let tools = interner.tools(data.tools.as_deref());
            EventKind::RequestHeader(Rc::new(RequestHeader {
                config: data.config.as_deref().map(|raw| interner.config(raw)),
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
        TypeTag::Absent | TypeTag::Other => EventKind::Other,
    }
}

fn validate_surface_op(
    raw: RawSurfaceOp,
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
        RawSurfaceOp::Map { op, start, end } => {
            if op != Scalar::Text("replace".to_owned()) {
                return Err(invalid(format!(
                    "op must be \"replace\", found {}",
                    op.describe()
                )));
            }
            let endpoint = |name: &str, value: &Scalar| -> Result<Seq, Error> {
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
            let start = endpoint("startSeq", &start)?;
            let end = endpoint("endSeq", &end)?;
            Ok(Some(SurfaceOp::Replace { start, end }))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn json_lines_and_blank_lines() {
        let text =
            "{\"seq\":1,\"type\":\"x\"}\n\n{\"seq\":2,\"type\":\"y\",\"data\":{\"turn\":null}}\n";
        let events = parse_events(text).unwrap();
        assert_eq!(events.len(), 2);
        assert_eq!(events[1].turn, TurnField::Null);
        assert!(parse_events("  \n ").unwrap().is_empty());
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
