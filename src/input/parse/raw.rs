//! Reading one event's members from JSON text into a raw event: only what the rules read,
//! leniently.

use std::borrow::Cow;
use std::rc::Rc;

use crate::input::event::{safe_integer, HeaderReason, MessageRole};
use crate::input::json::reader::{KeyCode, Reader, Step};
use crate::input::json::JsonValue;
use crate::input::tokens;

use super::*;

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
    pub(super) fn read(reader: &mut Reader<'a>) -> Step<Scalar<'a>> {
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

    pub(super) fn is_text(&self, expected: &str) -> bool {
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
    pub(super) fn read(reader: &mut Reader<'_>) -> Step<Kind> {
        match reader.short_integer() {
            Some(value) => Ok(Kind::Number(value)),
            None => Kind::read_any(reader),
        }
    }

    /// [`Kind::read`], for any value.
    #[inline(never)]
    pub(super) fn read_any(reader: &mut Reader<'_>) -> Step<Kind> {
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
    pub(super) fn of(scalar: &Scalar<'_>) -> Kind {
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

    pub(super) fn describe(&self) -> String {
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
    pub(super) fn safe_integer(&self) -> Option<i64> {
        match self {
            Kind::Number(value) => safe_integer(*value),
            _ => None,
        }
    }

    pub(super) fn non_negative_integer(&self) -> Option<u64> {
        self.safe_integer()
            .and_then(|value| u64::try_from(value).ok())
    }
}

/// Reads any value: a string as its code (see [`KeyCode`]; the names the parser matches have
/// at most 15 bytes), anything else as `None`.
pub(super) fn read_string_code(reader: &mut Reader<'_>) -> Step<Option<KeyCode>> {
    if reader.peek() != Some(b'"') {
        Kind::read(reader)?;
        return Ok(None);
    }
    reader.string_code().map(Some)
}

/// An event type the parser tells apart.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) enum TypeTag {
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
    pub(super) fn read(reader: &mut Reader<'_>) -> Step<TypeTag> {
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
    pub(super) fn long(raw: &str) -> TypeTag {
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
    pub(super) seq: Kind,
    pub(super) time: Kind,
    pub(super) kind: TypeTag,
    pub(super) surface_op: RawSurfaceOp<'a>,
    pub(super) data: RawData<'a>,
    /// A row's `method`: an SDK notification when the row has no `type`.
    pub(super) method: Method,
    /// A notification row's `params.event`.
    pub(super) carried: Option<Box<RawEvent<'a>>>,
}

/// An SDK notification's `method`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) enum Method {
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
    pub(super) fn read_in_place(&mut self, reader: &mut Reader<'a>) -> Step<()> {
        self.read_member_in_place::<true>(reader)
    }

    /// Whether this row may be a session header (whose JSON text is then kept whole).
    pub(super) fn may_be_header(&self) -> bool {
        matches!(self, RawEvent::Object(object) if object.kind == TypeTag::Session && object.seq == Kind::Absent)
    }

    /// [`RawEvent::read_in_place`]; `ROW`: the event is a row of the batch (and may be an SDK
    /// notification), not the event a notification carries.
    pub(super) fn read_member_in_place<const ROW: bool>(
        &mut self,
        reader: &mut Reader<'a>,
    ) -> Step<()> {
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
pub(super) fn read_carried_event<'a>(reader: &mut Reader<'a>) -> Step<Option<Box<RawEvent<'a>>>> {
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
pub(super) enum RawSurfaceOp<'a> {
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
    pub(super) fn read(reader: &mut Reader<'a>) -> Step<RawSurfaceOp<'a>> {
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
pub(super) const CONFIG_SLOT: usize = 0;
pub(super) const TOOLS_SLOT: usize = 1;

/// Which parts of `data` are worth reading, decided by the event type when it came first.
#[derive(Clone, Copy)]
pub(super) struct DataWants {
    pub(super) message: bool,
    pub(super) header: bool,
    /// Whether the message content's token cost is read (`data.message.content`, or
    /// `data.content` for a user message).
    pub(super) tokens: bool,
}

impl DataWants {
    pub(super) fn for_type(kind: TypeTag) -> DataWants {
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
pub(super) enum HeaderJson<'a> {
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
    pub(super) fn read(reader: &mut Reader<'a>, slot: usize) -> Step<HeaderJson<'a>> {
        Ok(match reader.raw_value_repeating(slot)? {
            (text, Some(generation)) => HeaderJson::Remembered(text, generation),
            (text, None) => HeaderJson::Text(text),
        })
    }

    /// The generation of a remembered text.
    pub(super) fn generation(&self) -> Option<u32> {
        match self {
            HeaderJson::Remembered(_, generation) => Some(*generation),
            _ => None,
        }
    }
}

#[derive(Debug)]
pub(super) struct RawData<'a> {
    pub(super) turn: Kind,
    pub(super) step: Kind,
    /// The prompt text: borrowed from the batch when it is one text block without escapes,
    /// copied once more into the event's shared text.
    pub(super) text: Option<Cow<'a, str>>,
    /// A system message's estimated tokens (see [`tokens::SystemUnits`]).
    pub(super) system_tokens: u32,
    pub(super) config: HeaderJson<'a>,
    pub(super) tools: HeaderJson<'a>,
    /// `reason` as the header's reason (`Other` when absent or not a known string).
    pub(super) reason: HeaderReason,
    /// Whether `startsSeries` is `true`.
    pub(super) starts_series: bool,
    /// The token cost of `data.message.content`'s blocks (see [`tokens`]).
    pub(super) message_tokens: u32,
    /// The token cost of `data.content`'s blocks (a user message's).
    pub(super) content_tokens: u32,
    /// `data.message.usage`, else `data.usage`.
    pub(super) usage: Option<Rc<JsonValue>>,
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
    pub(super) fn read(&mut self, reader: &mut Reader<'a>, wants: DataWants) -> Step<()> {
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
pub(super) fn read_reason(reader: &mut Reader<'_>) -> Step<HeaderReason> {
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
pub(super) fn read_prompt_text<'a>(reader: &mut Reader<'a>) -> Step<(Option<Cow<'a, str>>, u32)> {
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
pub(super) fn read_message_tokens(reader: &mut Reader<'_>) -> Step<(u32, Option<Rc<JsonValue>>)> {
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
pub(super) fn read_content_text<'a>(
    reader: &mut Reader<'a>,
) -> Step<(Cow<'a, str>, tokens::SystemUnits)> {
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
pub(super) fn read_text_block<'a>(reader: &mut Reader<'a>) -> Step<Option<Cow<'a, str>>> {
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
pub(super) fn read_header_fields<'a>(
    reader: &mut Reader<'a>,
) -> Step<(HeaderJson<'a>, HeaderJson<'a>)> {
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
