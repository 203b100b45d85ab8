//! Turn and step locations of the events of a window (BEHAVIOUR.md section 4).

use serde::Serialize;

use crate::input::event::{EventKind, SessionEvent, TurnField};

/// Where an event sits: at session level, in a turn, or in a step of a turn.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize)]
pub struct Location {
    /// The turn, `None` at session level.
    pub turn: Option<u64>,
    /// The step, `None` outside a step.
    pub step: Option<u64>,
}

impl Location {
    /// The `(turn, step)` pair when the event is in a step.
    pub fn step_key(self) -> Option<(u64, u64)> {
        self.turn.zip(self.step)
    }
}

/// Walks a window in seq order and gives each event its location.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Locator {
    current: Location,
}

impl Locator {
    /// Returns the location of `event`, the next event of the walk, and advances the walk.
    pub fn locate(&mut self, event: &SessionEvent) -> Location {
        if event.turn() == TurnField::Null {
            return Location::default();
        }
        let explicit_turn = event.turn().value();
        match event.kind {
            EventKind::TurnStart => {
                if explicit_turn.is_some() {
                    self.current.turn = explicit_turn;
                }
                self.current.step = None;
            }
            EventKind::StepStart => {
                if explicit_turn.is_some() {
                    self.current.turn = explicit_turn;
                }
                self.current.step = event.step();
            }
            _ => {
                if let Some(turn) = explicit_turn {
                    if self.current.turn != Some(turn) {
                        self.current.step = None;
                    }
                    self.current.turn = Some(turn);
                    if event.step().is_some() {
                        self.current.step = event.step();
                    }
                }
            }
        }
        let turn = explicit_turn.or(self.current.turn);
        let step = match event.kind {
            EventKind::TurnStart | EventKind::TurnEnd => None,
            _ => event.step().or(if turn == self.current.turn {
                self.current.step
            } else {
                None
            }),
        };
        let own = Location { turn, step };
        match event.kind {
            EventKind::StepEnd if own == self.current && own.step.is_some() => {
                self.current.step = None;
            }
            EventKind::TurnEnd if own.turn.is_some() && own.turn == self.current.turn => {
                self.current = Location::default();
            }
            _ => {}
        }
        own
    }
}
