//! Session events as the interpreter sees them: only the fields that matter, already validated.

use std::rc::Rc;

use crate::error::Error;
use crate::input::intern::SharedTools;
use crate::input::json::JsonValue;

pub(crate) use crate::seq::safe_integer;
pub use crate::seq::{Seq, Time};

/// One event of a session log, reduced to what the interpreter reads.
///
/// Build it from JSON with [`crate::parse_events`], or with [`SessionEvent::new`]; unknown types
/// and fields are dropped there. The surface operation, turn and step are read through
/// [`SessionEvent::surface_op`], [`SessionEvent::turn`] and [`SessionEvent::step`]: they are
/// kept packed (a window keeps one of these per event; see docs/performance-notes.md).
#[derive(Clone, PartialEq)]
#[non_exhaustive]
pub struct SessionEvent {
    /// The event's sequence number.
    pub seq: Seq,
    /// The event's time (epoch ms); `0` when the log has none.
    pub time: Time,
    /// The event type, with its type-specific payload.
    pub kind: EventKind,
    op: PackedOp,
    turn: u64,
    step: u64,
}

/// `turn` when the event has no usable `data.turn`.
const TURN_ABSENT: u64 = u64::MAX;
/// `turn` when the event's `data.turn` is `null`.
const TURN_NULL: u64 = u64::MAX - 1;
/// `step` when the event has no usable `data.step`.
const STEP_NONE: u64 = u64::MAX;
/// `PackedOp::start` when there is no replace: `end` then says whether the event appends.
const NOT_REPLACE: Seq = Seq::MIN;

/// `Option<SurfaceOp>` in two seqs: a replace's endpoints as they are, else [`NOT_REPLACE`]
/// and `1` for an append or `0` for no operation.
#[derive(Clone, Copy, PartialEq, Eq)]
struct PackedOp {
    start: Seq,
    end: Seq,
}

impl PackedOp {
    fn pack(op: Option<SurfaceOp>) -> PackedOp {
        match op {
            None => PackedOp {
                start: NOT_REPLACE,
                end: 0,
            },
            Some(SurfaceOp::Append) => PackedOp {
                start: NOT_REPLACE,
                end: 1,
            },
            Some(SurfaceOp::Replace { start, end }) => {
                debug_assert!(start != NOT_REPLACE, "a replace starts at a safe integer");
                PackedOp { start, end }
            }
        }
    }

    fn unpack(self) -> Option<SurfaceOp> {
        match (self.start, self.end) {
            (NOT_REPLACE, 0) => None,
            (NOT_REPLACE, _) => Some(SurfaceOp::Append),
            (start, end) => Some(SurfaceOp::Replace { start, end }),
        }
    }
}

/// A non-negative integer the log can hold: at most `2^53 - 1`.
fn loggable(value: u64) -> bool {
    value <= crate::seq::MAX_SAFE_INTEGER.unsigned_abs()
}

/// A seq the log can hold: a safe integer.
fn loggable_seq(value: Seq) -> bool {
    value.unsigned_abs() <= crate::seq::MAX_SAFE_INTEGER.unsigned_abs()
}

impl SessionEvent {
    /// Builds an event. Its seq, the replace endpoints, turn and step must be values a log can
    /// hold (safe integers, `|n| <= 2^53 - 1`, as [`crate::parse_events`] reads them); others
    /// are [`Error::InvalidArgument`].
    pub fn new(
        seq: Seq,
        time: Time,
        kind: EventKind,
        surface_op: Option<SurfaceOp>,
        turn: TurnField,
        step: Option<u64>,
    ) -> Result<SessionEvent, Error> {
        let invalid = |argument: &str, message: String| Error::InvalidArgument {
            argument: argument.into(),
            message,
        };
        if !loggable_seq(seq) {
            return Err(invalid(
                "seq",
                format!("must be a safe integer, found {seq}"),
            ));
        }
        if let Some(SurfaceOp::Replace { start, end }) = surface_op {
            if !loggable_seq(start) || !loggable_seq(end) {
                return Err(invalid(
                    "surface_op",
                    format!("replace endpoints must be safe integers, found {start} and {end}"),
                ));
            }
        }
        if let Some(turn) = turn.value().filter(|turn| !loggable(*turn)) {
            return Err(invalid(
                "turn",
                format!("must be at most 2^53 - 1, found {turn}"),
            ));
        }
        if let Some(step) = step.filter(|step| !loggable(*step)) {
            return Err(invalid(
                "step",
                format!("must be at most 2^53 - 1, found {step}"),
            ));
        }
        Ok(SessionEvent::packed(
            seq, time, kind, surface_op, turn, step,
        ))
    }

    /// [`SessionEvent::new`] for values already checked (the parser reads only safe integers).
    pub(crate) fn packed(
        seq: Seq,
        time: Time,
        kind: EventKind,
        surface_op: Option<SurfaceOp>,
        turn: TurnField,
        step: Option<u64>,
    ) -> SessionEvent {
        debug_assert!(turn.value().is_none_or(loggable) && step.is_none_or(loggable));
        SessionEvent {
            seq,
            time,
            kind,
            op: PackedOp::pack(surface_op),
            turn: match turn {
                TurnField::Absent => TURN_ABSENT,
                TurnField::Null => TURN_NULL,
                TurnField::Turn(turn) => turn,
            },
            step: step.unwrap_or(STEP_NONE),
        }
    }

    /// The surface operation, when the event carries one.
    #[inline]
    pub fn surface_op(&self) -> Option<SurfaceOp> {
        self.op.unpack()
    }

    /// `data.turn`: absent, explicitly `null`, or a non-negative integer.
    #[inline]
    pub fn turn(&self) -> TurnField {
        match self.turn {
            TURN_ABSENT => TurnField::Absent,
            TURN_NULL => TurnField::Null,
            turn => TurnField::Turn(turn),
        }
    }

    /// `data.step` when it is a non-negative integer.
    #[inline]
    pub fn step(&self) -> Option<u64> {
        (self.step != STEP_NONE).then_some(self.step)
    }
}

impl std::fmt::Debug for SessionEvent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SessionEvent")
            .field("seq", &self.seq)
            .field("time", &self.time)
            .field("kind", &self.kind)
            .field("surface_op", &self.surface_op())
            .field("turn", &self.turn())
            .field("step", &self.step())
            .finish()
    }
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
#[non_exhaustive]
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
#[non_exhaustive]
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
        matches!(self.kind, EventKind::SystemMessage { .. }) || self.op.start != NOT_REPLACE
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
        matches!(self.kind, EventKind::SystemMessage { .. }) && self.op.start == NOT_REPLACE
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::seq::MAX_SAFE_INTEGER;

    const MAX: u64 = MAX_SAFE_INTEGER.unsigned_abs();

    fn event(op: Option<SurfaceOp>, turn: TurnField, step: Option<u64>) -> SessionEvent {
        match SessionEvent::new(10, 1.5, EventKind::Other, op, turn, step) {
            Ok(event) => event,
            Err(error) => panic!("{op:?} {turn:?} {step:?} refused: {error}"),
        }
    }

    #[test]
    fn every_value_a_log_can_hold_reads_back() {
        let ops = [
            None,
            Some(SurfaceOp::Append),
            Some(SurfaceOp::Replace { start: 0, end: 0 }),
            Some(SurfaceOp::Replace { start: 0, end: 1 }),
            Some(SurfaceOp::Replace {
                start: -MAX_SAFE_INTEGER,
                end: MAX_SAFE_INTEGER,
            }),
            Some(SurfaceOp::Replace {
                start: MAX_SAFE_INTEGER,
                end: -MAX_SAFE_INTEGER,
            }),
        ];
        let turns = [
            TurnField::Absent,
            TurnField::Null,
            TurnField::Turn(0),
            TurnField::Turn(MAX - 1),
            TurnField::Turn(MAX),
        ];
        let steps = [None, Some(0), Some(1), Some(MAX)];
        for op in ops {
            for turn in turns {
                for step in steps {
                    let event = event(op, turn, step);
                    assert_eq!(
                        (event.surface_op(), event.turn(), event.step()),
                        (op, turn, step)
                    );
                    assert_eq!((event.seq, event.time), (10, 1.5));
                    let replace = matches!(op, Some(SurfaceOp::Replace { .. }));
                    assert_eq!(event.is_relevant(), replace);
                }
            }
        }
    }

    #[test]
    fn values_no_log_holds_are_refused() {
        let refused = [
            (None, TurnField::Turn(MAX + 1), None),
            (None, TurnField::Turn(u64::MAX), None),
            (None, TurnField::Absent, Some(MAX + 1)),
            (None, TurnField::Absent, Some(u64::MAX)),
            (
                Some(SurfaceOp::Replace {
                    start: i64::MIN,
                    end: 0,
                }),
                TurnField::Absent,
                None,
            ),
            (
                Some(SurfaceOp::Replace {
                    start: 0,
                    end: MAX_SAFE_INTEGER + 1,
                }),
                TurnField::Absent,
                None,
            ),
        ];
        for (op, turn, step) in refused {
            let made = SessionEvent::new(1, 0.0, EventKind::Other, op, turn, step);
            assert!(
                matches!(made, Err(Error::InvalidArgument { .. })),
                "{op:?} {turn:?} {step:?}"
            );
        }
        for seq in [
            MAX_SAFE_INTEGER + 1,
            -MAX_SAFE_INTEGER - 1,
            i64::MAX,
            i64::MIN,
        ] {
            let made = SessionEvent::new(seq, 0.0, EventKind::Other, None, TurnField::Absent, None);
            assert!(
                matches!(&made, Err(Error::InvalidArgument { argument, .. }) if argument == "seq"),
                "seq {seq}"
            );
        }
        for seq in [MAX_SAFE_INTEGER, -MAX_SAFE_INTEGER, 0] {
            assert!(
                SessionEvent::new(seq, 0.0, EventKind::Other, None, TurnField::Absent, None)
                    .is_ok()
            );
        }
    }

    #[test]
    fn an_event_keeps_its_operation_turn_and_step_in_four_words() {
        // seq, time, the kind, then two seqs for the operation, the turn and the step.
        assert_eq!(
            std::mem::size_of::<SessionEvent>(),
            6 * 8 + std::mem::size_of::<EventKind>()
        );
    }
}
