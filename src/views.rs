//! The plain-data outputs of a window: event lines, views and change reports.

pub(crate) mod cache;
pub(crate) mod chat;
pub(crate) mod location;
pub(crate) mod observe;
pub(crate) mod slices;
pub(crate) mod splice;
pub(crate) mod tool_name;
pub(crate) mod trajectory;

use serde::Serialize;

pub(crate) mod diff;

use crate::fold::request::RequestPromptInspection;
use crate::fold::SystemPromptStateData;
use crate::input::event::Seq;
use crate::input::parse::framing::TornTail;
use crate::views::chat::{CardKey, ChatCard};
use crate::views::splice::ViewSplices;
use crate::views::trajectory::Trajectory;

pub(crate) mod context;

/// One event of the window with the fold state after it (FORMAT.md's EventLine).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[non_exhaustive]
pub struct EventLine {
    /// The event's seq.
    pub seq: Seq,
    /// The state after every relevant event up to this one; none before the first.
    #[cfg_attr(feature = "wasm", tsify(optional))]
    pub system: Option<SystemPromptStateData>,
    /// For a `request/header`: its inspection against the previous loaded header.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "wasm", tsify(optional))]
    pub request: Option<RequestPromptInspection>,
}

/// Everything a UI shows of a window: chat cards and the trajectory.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[non_exhaustive]
pub struct Views {
    /// The collapsed system-prompt cards, in chat order.
    pub chat: Vec<ChatCard>,
    /// Header facts, requests and unreported system prompts.
    pub trajectory: Trajectory,
}

/// How a call changed the chat cards, so a UI can patch its list without diffing.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[non_exhaustive]
pub struct ChatChange {
    /// Cards that are new, in chat order.
    pub added: Vec<ChatCard>,
    /// Cards whose content or anchor changed (their new value), in chat order.
    pub changed: Vec<ChatCard>,
    /// Keys of cards that are gone.
    #[cfg_attr(feature = "wasm", tsify(type = "string[]"))]
    pub removed: Vec<CardKey>,
}

/// What one `load`, `append` or `prepend` changed.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[non_exhaustive]
pub struct ConversationChange {
    /// The chat card changes.
    pub chat: ChatChange,
    /// Whether the trajectory view changed.
    pub trajectory_changed: bool,
    /// Which rows of the cards, requests and lines changed, for a UI that shows slices.
    pub splices: ViewSplices,
    /// The torn last line of the JSON lines text read (`loadJson` / `appendJson` only): a
    /// writer stopped mid-line; the rows before it were read, it was not.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "wasm", tsify(optional))]
    pub torn_tail: Option<TornTail>,
}

impl ConversationChange {
    /// Whether nothing visible changed.
    pub fn is_empty(&self) -> bool {
        self.chat.added.is_empty()
            && self.chat.changed.is_empty()
            && self.chat.removed.is_empty()
            && !self.trajectory_changed
    }
}
