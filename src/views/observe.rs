//! What the window pipeline knows about one event when it hands it to the chat and trajectory
//! builders.

use crate::fold::request::RequestPromptInspection;
use crate::fold::SystemPromptState;
use crate::input::event::SessionEvent;
use crate::views::location::Location;

/// One event of the window with everything derived for it so far.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Observed<'a> {
    /// The event.
    pub event: &'a SessionEvent,
    /// Its turn and step.
    pub location: Location,
    /// The fold state in force just before it.
    pub before: Option<&'a SystemPromptState>,
    /// The fold state after it.
    pub after: Option<&'a SystemPromptState>,
    /// For a `request/header`: its inspection against the previous loaded header.
    pub inspection: Option<&'a RequestPromptInspection>,
}
