//! Slices of the views for virtualized lists: an index range of the chat cards, the trajectory
//! requests or the event lines, with the list's total.

use std::ops::Range;

use serde::Serialize;

use crate::error::Error;
use crate::views::chat::ChatCard;
use crate::views::trajectory::TrajectoryRequest;
use crate::views::EventLine;

/// The chat cards of `views().chat` from index `start` on, as many as `cards` holds, and how many
/// there are in all.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[non_exhaustive]
pub struct CardsSlice {
    /// How many cards the window has.
    pub total: usize,
    /// The index of the first card given (the asked start, clamped to `total`).
    pub start: usize,
    /// The cards, in chat order.
    pub cards: Vec<ChatCard>,
}

/// The requests of `views().trajectory.requests` from index `start` on, as many as `requests`
/// holds, and how many there are in all.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[non_exhaustive]
pub struct RequestsSlice {
    /// How many requests the window has.
    pub total: usize,
    /// The index of the first request given (the asked start, clamped to `total`).
    pub start: usize,
    /// The requests, in seq order.
    pub requests: Vec<TrajectoryRequest>,
}

/// The event lines of `lines()` from index `start` on, as many as `lines` holds, and how many
/// there are in all.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[non_exhaustive]
pub struct LinesSlice {
    /// How many lines (loaded events) the window has.
    pub total: usize,
    /// The index of the first line given (the asked start, clamped to `total`).
    pub start: usize,
    /// The lines, in seq order.
    pub lines: Vec<EventLine>,
}

/// How many rows each list of the window has.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[non_exhaustive]
pub struct ViewCounts {
    /// Chat cards (`views().chat`).
    pub cards: usize,
    /// Trajectory requests (`views().trajectory.requests`).
    pub requests: usize,
    /// Event lines (`lines()`), one per loaded event.
    pub lines: usize,
}

/// Where a loaded event sits in each list, for a viewer to jump to it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[non_exhaustive]
pub struct SeqIndex {
    /// The index of the event's line in `lines()`.
    pub line: usize,
    /// The index of the last card shown at or before the event (anchor at or before its seq),
    /// none when every card comes after it.
    #[cfg_attr(feature = "wasm", tsify(optional))]
    pub card: Option<usize>,
    /// The index of the request whose step holds the event (the last one started at or before
    /// it), none before the first request.
    #[cfg_attr(feature = "wasm", tsify(optional))]
    pub request: Option<usize>,
}

/// `range` clamped to a list of `total` rows; [`Error::InvalidArgument`] when it ends before
/// it starts.
pub(crate) fn clamp(range: Range<usize>, total: usize) -> Result<Range<usize>, Error> {
    if range.start > range.end {
        return Err(Error::InvalidArgument {
            argument: "range".to_owned(),
            message: format!("start ({}) is after end ({})", range.start, range.end),
        });
    }
    Ok(range.start.min(total)..range.end.min(total))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_clamp_to_the_list_and_must_not_end_before_they_start() {
        assert_eq!(clamp(2..5, 3), Ok(2..3));
        assert_eq!(clamp(7..9, 3), Ok(3..3));
        assert_eq!(clamp(0..0, 0), Ok(0..0));
        let backwards = Range { start: 3, end: 2 };
        assert!(matches!(
            clamp(backwards, 9),
            Err(Error::InvalidArgument { .. })
        ));
    }
}
