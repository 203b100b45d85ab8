//! Turn and step locations of the events of a window (BEHAVIOUR.md section 4).

use serde::Serialize;

use crate::input::event::{EventKind, SessionEvent, TurnField};

/// Where an event sits: at session level, in a turn, or in a step of a turn.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize)]
#[non_exhaustive]
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

/// A [`Location`] as the trajectory keeps it for every header and step start: two words, with
/// `u64::MAX` for none (an event's turn and step are at most 2^53 - 1, and a location only
/// holds values of events).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct PackedLocation {
    turn: u64,
    step: u64,
}

/// [`PackedLocation`]'s none.
const NONE: u64 = u64::MAX;

impl PackedLocation {
    /// The location, unpacked.
    #[inline]
    pub fn get(self) -> Location {
        Location {
            turn: (self.turn != NONE).then_some(self.turn),
            step: (self.step != NONE).then_some(self.step),
        }
    }

    /// The `(turn, step)` pair when the location is in a step.
    #[inline]
    pub fn step_key(self) -> Option<(u64, u64)> {
        self.get().step_key()
    }
}

impl From<Location> for PackedLocation {
    #[inline]
    fn from(location: Location) -> PackedLocation {
        debug_assert!(location.turn != Some(NONE) && location.step != Some(NONE));
        PackedLocation {
            turn: location.turn.unwrap_or(NONE),
            step: location.step.unwrap_or(NONE),
        }
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
