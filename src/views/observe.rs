//! What the window pipeline knows about one event when it hands it to the chat and trajectory
//! builders.

use crate::fold::request::RequestPromptInspection;
use crate::fold::SystemPromptState;
use crate::input::event::{EventKind, SessionEvent, SurfaceOp};
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

/// How many events of each kind a batch holds, so that what a walk builds grows once.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Census {
    pub relevant: usize,
    pub headers: usize,
    pub system_appends: usize,
    pub turn_starts: usize,
    pub step_starts: usize,
    /// Surface nodes and replaces: the states of the surface fold.
    pub surface: usize,
}

impl Census {
    pub(crate) fn of(events: &[SessionEvent]) -> Census {
        let mut census = Census::default();
        let count = |n: &mut usize, yes: bool| *n = n.saturating_add(usize::from(yes));
        for event in events {
            count(&mut census.relevant, event.is_relevant());
            count(&mut census.headers, event.header().is_some());
            count(&mut census.system_appends, event.is_system_append());
            count(
                &mut census.turn_starts,
                matches!(event.kind, EventKind::TurnStart),
            );
            count(
                &mut census.step_starts,
                matches!(event.kind, EventKind::StepStart),
            );
            count(
                &mut census.surface,
                crate::fold::surface::node_of(event).is_some()
                    || matches!(event.surface_op(), Some(SurfaceOp::Replace { .. })),
            );
        }
        census
    }
}
