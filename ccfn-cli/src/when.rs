//! The time bounds of `--since` and `--until`, as record timestamps.
//!
//! Records carry their time as `2026-11-21T21:01:11.994Z` (UTC, always
//! milliseconds), so a bound written the same way compares with them as
//! bytes: no line's timestamp is ever parsed.

use std::time::{Duration, SystemTime};

/// The text of a record timestamp for `at`.
pub(crate) fn stamp(at: SystemTime) -> String {
    humantime::format_rfc3339_millis(at).to_string()
}

/// Parses `text` as a bound: a date (`2026-11-21`, midnight UTC), an RFC
/// 3339 time (`2026-11-21T21:00:00Z`, `2026-11-21T22:00:00+01:00`), or a
/// time before `now` (`2h`, `30m`, `1day`).
pub(crate) fn parse(text: &str, now: SystemTime) -> Result<SystemTime, String> {
    let text = text.trim();
    let at = if let Ok(ago) = humantime::parse_duration(text) {
        now.checked_sub(ago)
            .ok_or_else(|| format!("`{text}` reaches before 1970"))?
    } else if is_date(text) {
        humantime::parse_rfc3339(&format!("{text}T00:00:00Z")).map_err(|_| invalid(text))?
    } else {
        rfc3339(text)?
    };
    Ok(at)
}

/// Midnight UTC of the day `day` (`YYYY-MM-DD`, a real calendar day:
/// not `2026-02-30`); `None` for anything else.
pub(crate) fn day_start(day: &str) -> Option<SystemTime> {
    if !is_date(day) {
        return None;
    }
    humantime::parse_rfc3339(&format!("{day}T00:00:00Z")).ok()
}

/// The day (`YYYY-MM-DD`, UTC) of `at`.
pub(crate) fn day_of(at: SystemTime) -> String {
    let mut text = humantime::format_rfc3339_seconds(at).to_string();
    text.truncate(10);
    text
}

/// The day after `day` (`YYYY-MM-DD`).
pub(crate) fn day_after(day: &str) -> Option<String> {
    day_start(day)?
        .checked_add(Duration::from_secs(86_400))
        .map(day_of)
}

/// Today, in UTC (`YYYY-MM-DD`).
pub(crate) fn today() -> String {
    day_of(SystemTime::now())
}

/// Whole days from `from` to `to` (both `YYYY-MM-DD`), negative when `to`
/// is before `from`.
pub(crate) fn days_between(from: &str, to: &str) -> Option<i64> {
    let (from, to) = (day_start(from)?, day_start(to)?);
    let days = |span: Duration| i64::try_from(span.as_secs() / 86_400).ok();
    match to.duration_since(from) {
        Ok(span) => days(span),
        Err(before) => days(before.duration()).map(|d| -d),
    }
}

fn invalid(text: &str) -> String {
    format!(
        "`{text}` is not a time: write a date (2026-11-21), an RFC 3339 time \
         (2026-11-21T21:00:00Z or 2026-11-21T22:00:00+01:00) or a time ago (2h, 30m, 1day)"
    )
}

/// `YYYY-MM-DD`.
fn is_date(text: &str) -> bool {
    let bytes = text.as_bytes();
    bytes.len() == 10
        && bytes[4] == b'-'
        && bytes[7] == b'-'
        && bytes
            .iter()
            .enumerate()
            .all(|(i, b)| i == 4 || i == 7 || b.is_ascii_digit())
}

/// An RFC 3339 time with `Z` or a `+HH:MM`/`-HH:MM` offset.
fn rfc3339(text: &str) -> Result<SystemTime, String> {
    let (local, offset) = split_offset(text).ok_or_else(|| invalid(text))?;
    let local = humantime::parse_rfc3339_weak(local).map_err(|_| invalid(text))?;
    let shifted = if offset >= 0 {
        local.checked_sub(Duration::from_secs(offset.unsigned_abs()))
    } else {
        local.checked_add(Duration::from_secs(offset.unsigned_abs()))
    };
    shifted.ok_or_else(|| invalid(text))
}

/// The local part and the offset east of UTC, in seconds.
fn split_offset(text: &str) -> Option<(&str, i64)> {
    if let Some(local) = text.strip_suffix('Z').or_else(|| text.strip_suffix('z')) {
        return Some((local, 0));
    }
    let at = text.len().checked_sub(6)?;
    let (local, offset) = text.split_at(at);
    let sign = match offset.as_bytes()[0] {
        b'+' => 1,
        b'-' => -1,
        _ => return None,
    };
    let (hours, minutes) = offset[1..].split_once(':')?;
    let hours: i64 = hours.parse().ok()?;
    let minutes: i64 = minutes.parse().ok()?;
    (hours < 24 && minutes < 60).then_some((local, sign * (hours * 3600 + minutes * 60)))
}

#[cfg(test)]
mod tests {

    #[test]
    fn calendar_days() {
        assert_eq!(day_start("1970-01-01"), Some(std::time::UNIX_EPOCH));
        for day in ["2026-11-26", "2024-02-29", "2000-03-01", "1999-12-31"] {
            assert_eq!(day_of(day_start(day).unwrap()), day);
        }
        for bad in [
            "2026-02-30",
            "2026-02-29",
            "2026-13-01",
            "2026-1-20",
            "soon",
            "",
        ] {
            assert_eq!(day_start(bad), None, "{bad}");
        }
        assert_eq!(days_between("2026-10-27", "2026-11-26"), Some(30));
        assert_eq!(days_between("2026-11-26", "2026-10-27"), Some(-30));
        assert_eq!(days_between("2024-02-28", "2024-03-01"), Some(2));
        assert_eq!(days_between("x", "2024-03-01"), None);
    }
    use super::*;

    fn now() -> SystemTime {
        humantime::parse_rfc3339("2026-11-21T21:00:00Z").unwrap()
    }

    #[test]
    fn dates_times_and_times_ago_become_record_timestamps() {
        for (text, bound) in [
            ("2026-11-21", "2026-11-21T00:00:00.000Z"),
            ("2026-11-21T20:15:00Z", "2026-11-21T20:15:00.000Z"),
            ("2026-11-21T20:15:00.25Z", "2026-11-21T20:15:00.250Z"),
            ("2026-11-21T22:15:00+01:00", "2026-11-21T21:15:00.000Z"),
            ("2026-11-21T19:45:00-01:30", "2026-11-21T21:15:00.000Z"),
            ("2h", "2026-11-21T19:00:00.000Z"),
            ("30m", "2026-11-21T20:30:00.000Z"),
            ("1day", "2026-11-20T21:00:00.000Z"),
        ] {
            assert_eq!(
                parse(text, now()).map(stamp).as_deref(),
                Ok(bound),
                "{text}"
            );
        }
    }

    #[test]
    fn anything_else_says_what_is_accepted() {
        for text in [
            "yesterday",
            "2026-13-01",
            "2026-11-21T25:00:00Z",
            "21:00",
            "",
            "2026-11-21T20:00:00+1",
        ] {
            let err = parse(text, now()).unwrap_err();
            assert!(err.contains("write a date (2026-11-21)"), "{text}: {err}");
        }
    }
}
