//! Request prompt inspection (BEHAVIOUR.md section 3): what a request header sent, and how it
//! changed.

use std::rc::Rc;

use crate::input::json::JsonValue;
use serde::Serialize;

use crate::error::Error;
use crate::fold::SystemPromptNode;
use crate::input::event::{HeaderReason, RequestHeader, Seq, SessionEvent, Time};
use crate::input::json::stringify::serialize_js_number;
use crate::input::shared::{same, same_optional};

/// The prompt a request sent: its config, system text and tools.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[non_exhaustive]
pub struct PromptSnapshot {
    /// The header's config, verbatim.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "wasm", tsify(type = "unknown", optional))]
    pub config: Option<Rc<JsonValue>>,
    /// The system prompt text (`""` when there is none).
    #[cfg_attr(feature = "wasm", tsify(type = "string"))]
    pub system: Rc<str>,
    /// The header's tools (always an array).
    #[cfg_attr(feature = "wasm", tsify(type = "unknown[]"))]
    pub tools: Rc<JsonValue>,
    #[serde(skip)]
    #[cfg_attr(feature = "wasm", tsify(skip))]
    tools_text: Rc<str>,
}

impl PartialEq for PromptSnapshot {
    fn eq(&self, other: &PromptSnapshot) -> bool {
        let PromptSnapshot {
            config,
            system,
            tools: _,
            tools_text,
        } = self;
        // The tools text is the tools' JSON: comparing it compares the tools.
        same_optional(config, &other.config)
            && same(system, &other.system)
            && same(tools_text, &other.tools_text)
    }
}

impl PromptSnapshot {
    /// Builds a snapshot; tools that are not an array become `[]`.
    pub fn new(config: Option<JsonValue>, system: &str, tools: JsonValue) -> PromptSnapshot {
        let header = RequestHeader::new(config, Some(tools), HeaderReason::Other, false);
        PromptSnapshot::of_header(&header, Rc::from(system))
    }

    fn of_header(header: &RequestHeader, system: Rc<str>) -> PromptSnapshot {
        PromptSnapshot {
            config: header.config.clone(),
            system,
            tools: Rc::clone(&header.tools),
            tools_text: Rc::clone(&header.tools_text),
        }
    }

    /// The same prompt with another system text.
    pub fn with_system(&self, system: Rc<str>) -> PromptSnapshot {
        PromptSnapshot {
            system,
            ..self.clone()
        }
    }

    /// `JSON.stringify(tools)` as JavaScript writes it.
    pub fn tools_text(&self) -> &str {
        &self.tools_text
    }
}

/// What changed in a request's prompt.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[cfg_attr(feature = "wasm", serde(rename_all = "kebab-case"))]
#[non_exhaustive]
pub enum ChangeKind {
    /// The first prompt of the session.
    Initial,
    /// The system text changed.
    System,
    /// The tools changed.
    Tools,
    /// Both changed.
    SystemAndTools,
}

impl ChangeKind {
    /// The kind as text: `"initial"`, `"system"`, `"tools"` or `"system-and-tools"`.
    pub fn name(self) -> &'static str {
        match self {
            ChangeKind::Initial => "initial",
            ChangeKind::System => "system",
            ChangeKind::Tools => "tools",
            ChangeKind::SystemAndTools => "system-and-tools",
        }
    }
}

impl Serialize for ChangeKind {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.name())
    }
}

/// A prompt change, anchored at the event that caused it.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[non_exhaustive]
pub struct PromptChange {
    /// Seq of the anchor: the system node for system changes and initial prompts, else the header.
    pub seq: Seq,
    /// Time of the anchor.
    #[serde(serialize_with = "serialize_js_number")]
    pub time: Time,
    /// What changed.
    pub kind: ChangeKind,
    /// The prompt before the change; absent for `initial`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "wasm", tsify(optional))]
    pub previous: Option<PromptSnapshot>,
}

/// The result of inspecting one request header.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[non_exhaustive]
pub struct RequestPromptInspection {
    /// The prompt the request sent.
    pub prompt: PromptSnapshot,
    /// How it changed from the previous prompt, when it did.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "wasm", tsify(optional))]
    pub change: Option<PromptChange>,
}

/// Inspects a `request/header` event against the previous request's prompt (BEHAVIOUR.md section
/// 3).
///
/// `system` is the effective prompt in force just before the header. Returns the prompt the
/// request sent and its change, or [`Error::NotARequestHeader`] for any other event.
pub fn inspect_request_prompt(
    previous: Option<&PromptSnapshot>,
    event: &SessionEvent,
    system: Option<&SystemPromptNode>,
) -> Result<RequestPromptInspection, Error> {
    let header = event
        .header()
        .ok_or(Error::NotARequestHeader { seq: event.seq })?;
    Ok(inspect_header(
        previous, event.seq, event.time, header, system,
    ))
}

/// [`inspect_request_prompt`] for an already unpacked header.
pub(crate) fn inspect_header(
    previous: Option<&PromptSnapshot>,
    seq: Seq,
    time: Time,
    header: &RequestHeader,
    system: Option<&SystemPromptNode>,
) -> RequestPromptInspection {
    let system_text = system.map_or_else(|| Rc::from(""), |node| Rc::clone(&node.text));
    let prompt = PromptSnapshot::of_header(header, system_text);
    let kind = match previous {
        None if header.reason == HeaderReason::Initial => Some(ChangeKind::Initial),
        None => None,
        Some(previous) => {
            let system_changed =
                !same(&previous.system, &prompt.system) && !system.is_some_and(|node| node.update);
            let tools_changed = !same(&previous.tools_text, &prompt.tools_text);
            match (system_changed, tools_changed) {
                (true, true) => Some(ChangeKind::SystemAndTools),
                (true, false) => Some(ChangeKind::System),
                (false, true) => Some(ChangeKind::Tools),
                (false, false) => None,
            }
        }
    };
    let change = kind.map(|kind| {
        let anchor = match (kind, system) {
            (ChangeKind::Tools, _) | (_, None) => (seq, time),
            (_, Some(node)) => (node.seq, node.time),
        };
        PromptChange {
            seq: anchor.0,
            time: anchor.1,
            kind,
            previous: previous.cloned(),
        }
    });
    RequestPromptInspection { prompt, change }
}
