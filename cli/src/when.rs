//! Times given on the command line and read from session headers, as epoch milliseconds.

use std::str::FromStr;

/// A point in time, in milliseconds since the Unix epoch (UTC).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Instant(pub i64);

impl FromStr for Instant {
    type Err = String;

    /// Epoch milliseconds (`1790000000000`), a date (`2026-11-01`, midnight UTC) or an RFC 3339
    /// time (`2026-11-01T08:00:00Z`, `2026-11-01T08:00:00+01:00`).
    fn from_str(text: &str) -> Result<Instant, String> {
        let text = text.trim();
        if let Ok(ms) = text.parse::<i64>() {
            return Ok(Instant(ms));
        }
        if let Ok(stamp) = jiff::Timestamp::from_str(text) {
            return Ok(Instant(stamp.as_millisecond()));
        }
        if let Ok(date) = jiff::civil::Date::from_str(text) {
            if let Ok(zoned) = date.to_zoned_datetime(jiff::tz::TimeZone::UTC) {
                return Ok(Instant(zoned.timestamp().as_millisecond()));
            }
        }
        Err(format!(
            "`{text}` is not a time: give epoch milliseconds, a date (2026-11-01) or an RFC 3339 time (2026-11-01T08:00:00Z)"
        ))
    }
}

/// The UTC date of `ms` as `YYYY-MM-DD`, `None` out of range.
pub fn date_of(ms: i64) -> Option<String> {
    let stamp = jiff::Timestamp::from_millisecond(ms).ok()?;
    Some(stamp.strftime("%Y-%m-%d").to_string())
}

/// The inclusive lower and exclusive upper bound of `--since` / `--until`.
#[derive(Clone, Copy, Debug, Default)]
pub struct Window {
    /// Sessions created at or after this time.
    pub since: Option<Instant>,
    /// Sessions created before this time.
    pub until: Option<Instant>,
}

impl Window {
    /// Whether any bound is set.
    pub fn is_set(&self) -> bool {
        self.since.is_some() || self.until.is_some()
    }

    /// Whether a session created at `created` (unknown: `None`) is in the window. With a bound
    /// set, a session of unknown creation time is not.
    pub fn admits(&self, created: Option<i64>) -> bool {
        if !self.is_set() {
            return true;
        }
        let Some(created) = created else {
            return false;
        };
        self.since.is_none_or(|since| created >= since.0)
            && self.until.is_none_or(|until| created < until.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forms() {
        assert_eq!("1790000000000".parse(), Ok(Instant(1_790_000_000_000)));
        assert_eq!("1970-01-02".parse(), Ok(Instant(86_400_000)));
        assert_eq!("1970-01-01T00:00:01Z".parse(), Ok(Instant(1000)));
        assert_eq!("1970-01-01T01:00:01+01:00".parse(), Ok(Instant(1000)));
        assert!("yesterday".parse::<Instant>().is_err());
        assert_eq!(date_of(86_400_000).as_deref(), Some("1970-01-02"));
    }

    #[test]
    fn window() {
        let window = Window {
            since: Some(Instant(10)),
            until: Some(Instant(20)),
        };
        assert!(window.admits(Some(10)));
        assert!(!window.admits(Some(20)));
        assert!(!window.admits(Some(9)));
        assert!(!window.admits(None));
        assert!(Window::default().admits(None));
    }
}
