//! Validation of a raw event into a `SessionEvent`: its seq, type, surface operation and the
//! members its kind needs.

use std::rc::Rc;

use crate::error::Error;
use crate::input::event::{
    EventKind, MessageRole, RequestHeader, Seq, SessionEvent, SurfaceMessage, SurfaceOp, TurnField,
};
use crate::input::intern::JsonInterner;

use super::framing::Frame;
use super::*;

impl RawEvent<'_> {
    /// Checks the event and pushes what the interpreter reads onto `events` (built there, not
    /// moved there: see [`RawEvent::read_in_place`]); `index` is its row in the batch, and
    /// `frame` numbers it when its log is seq-less.
    pub(super) fn validate(
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
                    line: None,
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
        // A batch the memory cannot hold fails instead of aborting the module.
        if events.len() == events.capacity() {
            crate::room::try_room(events, 1)?;
        }
        events.push(SessionEvent::packed(
            seq, time, kind, surface_op, turn, step,
        ));
        Ok(())
    }
}

pub(super) fn event_kind(
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

pub(super) fn validate_surface_op(
    raw: &RawSurfaceOp,
    index: usize,
    seq: Seq,
) -> Result<Option<SurfaceOp>, Error> {
    let invalid = |reason: String| Error::InvalidSurfaceOp {
        index,
        line: None,
        seq,
        reason,
    };
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
