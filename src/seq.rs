//! Sequence numbers and times as JavaScript numbers hold them: the one thing the error type, the
//! JSON layer and the events all need, kept below all three.

/// An event's sequence number: a safe integer (`|seq| <= 2^53 - 1`), strictly increasing in a log.
pub type Seq = i64;

/// An event's time in epoch milliseconds, copied verbatim into outputs (a JavaScript number).
pub type Time = f64;

/// The largest integer a JavaScript number holds exactly (`Number.MAX_SAFE_INTEGER`).
pub const MAX_SAFE_INTEGER: i64 = (1 << 53) - 1;

/// `value` as an integer when it is one JavaScript holds exactly (`|value| <= 2^53 - 1`).
pub(crate) fn safe_integer(value: f64) -> Option<i64> {
    (value.fract() == 0.0 && value.abs() <= MAX_SAFE_INTEGER as f64).then_some(value as i64)
}
