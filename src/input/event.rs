//! Session events as the interpreter sees them: only the fields that matter, already validated.

use std::rc::Rc;

use crate::input::intern::SharedTools;
use crate::input::json::JsonValue;

pub(crate) use crate::seq::safe_integer;
pub use crate::seq::{Seq, Time};

/// One event of a session log, reduced to what the interpreter reads.
///
/// Build it from JSON with [`crate::parse_events`]; unknown types and fields are dropped there.
#[derive(Clone, Debug, PartialEq)]
pub struct SessionEvent {
    /// The event's sequence number.
    pub seq: Seq,
    /// The event's time (epoch ms); `0` when the log has none.
    pub time: Time,
    /// The event type, with its type-specific payload.
    pub kind: EventKind,
    /// The surface operation, when the event carries one.
    pub surface_op: Option<SurfaceOp>,
    /// `data.turn`: absent, explicitly `null`, or a non-negative integer.
    pub turn: TurnField,
    /// `data.step` when it is a non-negative integer.
    pub step: Option<u64>,
}

/// The value of an event's `data.turn`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum TurnField {
    /// No usable `data.turn` (absent, or not a non-negative integer).
    #[default]
    Absent,
    /// `data.turn: null`: the event sits at session level.
    Null,
    /// A non-negative integer turn.
    Turn(u64),
}

impl TurnField {
    /// The turn number, when there is one.
    pub fn value(self) -> Option<u64> {
        match self {
            TurnField::Turn(turn) => Some(turn),
            TurnField::Absent | TurnField::Null => None,
        }
    }
}

/// An event type the interpreter distinguishes, with the payload it reads from that type.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum EventKind {
    /// `system/message`: the prompt text (every text block joined with `""`) and the message's
    /// estimated tokens.
    SystemMessage {
        /// The prompt text.
        text: Rc<str>,
        /// The token meter's estimate of the whole message: its text blocks' text and its
        /// other blocks' JSON (see `docs/context.md`).
        tokens: u32,
    },
    /// `request/header`: the request's config, tools and reason.
    RequestHeader(Rc<RequestHeader>),
    /// `turn/start`.
    TurnStart,
    /// `turn/end`.
    TurnEnd,
    /// `step/start`.
    StepStart,
    /// `step/end`.
    StepEnd,
    /// `user/message`, `assistant/message`, `tool/result` or `developer/message`: a surface
    /// message other than a system message, with its estimated token cost.
    Message(SurfaceMessage),
    /// Any other type (`tool/call`, `compaction/summary`, unknown types, ...).
    Other,
}

/// Who wrote a surface message other than a system message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum MessageRole {
    /// `user/message` (compaction checkpoints included).
    User,
    /// `assistant/message`.
    Assistant,
    /// `tool/result`.
    Tool,
    /// `developer/message`.
    Developer,
}

/// What the interpreter keeps of a surface message: its role, estimated token cost and usage
/// (the message text itself is never kept).
#[derive(Clone, Debug, PartialEq)]
pub struct SurfaceMessage {
    /// The event type.
    pub role: MessageRole,
    /// Estimated tokens of the message: its content plus 4 (see `docs/context.md`).
    pub tokens: u32,
    /// The provider's token usage as the log has it: `data.message.usage`, else `data.usage`.
    pub usage: Option<Rc<JsonValue>>,
}

/// A replace or append operation on the conversation surface.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum SurfaceOp {
    /// The event's node is appended at the end of the surface.
    Append,
    /// The event's node replaces the surface range from node `start` to node `end`, inclusive.
    Replace {
        /// Seq of the first replaced node.
        start: Seq,
        /// Seq of the last replaced node.
        end: Seq,
    },
}

/// Why a request header was sent.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum HeaderReason {
    /// The first request of a session.
    Initial,
    /// A resumed session.
    Resume,
    /// The prompt, tools or config changed.
    Change,
    /// A request series.
    Series,
    /// Any other or missing reason.
    Other,
}

/// The parts of a `request/header` event that the interpreter reads.
#[derive(Clone, Debug, PartialEq)]
pub struct RequestHeader {
    /// `data.header.config`, verbatim; `None` when absent.
    pub config: Option<Rc<JsonValue>>,
    /// `data.header.tools`, or `[]` when it is not an array.
    pub tools: Rc<JsonValue>,
    /// `JSON.stringify(tools)` as JavaScript writes it, for comparisons.
    pub tools_text: Rc<str>,
    /// `data.reason`.
    pub reason: HeaderReason,
    /// `data.startsSeries === true`.
    pub starts_series: bool,
}

impl RequestHeader {
    /// Builds a header from its config, tools (non-arrays become `[]`), reason and series flag.
    pub fn new(
        config: Option<JsonValue>,
        tools: Option<JsonValue>,
        reason: HeaderReason,
        starts_series: bool,
    ) -> RequestHeader {
        let tools = SharedTools::new(tools);
        RequestHeader {
            config: config.map(Rc::new),
            tools: tools.value,
            tools_text: tools.text,
            reason,
            starts_series,
        }
    }
}

impl SessionEvent {
    /// Whether the fold reads this event: a `system/message`, or any event with a replace op.
    pub fn is_relevant(&self) -> bool {
        matches!(self.kind, EventKind::SystemMessage { .. })
            || matches!(self.surface_op, Some(SurfaceOp::Replace { .. }))
    }

    /// The request header, when this is a `request/header` event.
    pub fn header(&self) -> Option<&Rc<RequestHeader>> {
        match &self.kind {
            EventKind::RequestHeader(header) => Some(header),
            _ => None,
        }
    }

    /// The prompt text, when this is a `system/message` event.
    pub fn system_text(&self) -> Option<&Rc<str>> {
        match &self.kind {
            EventKind::SystemMessage { text, .. } => Some(text),
            _ => None,
        }
    }

    /// Whether this is a `system/message` appended (not replacing) to the surface.
    pub fn is_system_append(&self) -> bool {
        matches!(self.kind, EventKind::SystemMessage { .. })
            && !matches!(self.surface_op, Some(SurfaceOp::Replace { .. }))
    }
}
