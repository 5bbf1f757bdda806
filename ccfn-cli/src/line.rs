//! A log line read without parsing it: where its record starts, its
//! timestamp and its level, found at the places the contract writes them.
//!
//! Every record ccfn writes starts `{"timestamp":"<time>","level":"<LEVEL>"`
//! (the common fields come first, in [`ccfn_core::record::COMMON_FIELDS`]
//! order). A platform may put its own text before the record on the same
//! line (a time and a request id); anything else is not a record.

use memchr::memmem;

/// What every record starts with.
const START: &[u8] = br#"{"timestamp":""#;
/// What follows the timestamp.
const LEVEL: &[u8] = br#"","level":""#;

/// A ccfn record within a line, with its first two fields located.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Raw<'a> {
    /// The record's JSON, from `{` to the end of the line.
    pub(crate) json: &'a [u8],
    /// The timestamp's text (`2026-11-21T21:01:11.994Z`).
    pub(crate) timestamp: &'a [u8],
    /// The level's text (`ERROR`).
    pub(crate) level: &'a [u8],
}

impl<'a> Raw<'a> {
    /// The record in `line`, or `None` when the line holds none.
    pub(crate) fn find(line: &'a [u8]) -> Option<Raw<'a>> {
        let line = trim_end(line);
        let start = if line.starts_with(START) {
            0
        } else {
            memmem::find(line, START)?
        };
        let json = &line[start..];
        if json.last() != Some(&b'}') {
            return None;
        }
        let rest = &json[START.len()..];
        let end = memchr::memchr(b'"', rest)?;
        let timestamp = &rest[..end];
        let rest = rest[end..].strip_prefix(LEVEL)?;
        let level = &rest[..memchr::memchr(b'"', rest)?];
        Some(Raw {
            json,
            timestamp,
            level,
        })
    }

    /// Whether the JSON holds `needle` anywhere: a cheap test before
    /// parsing, never an answer on its own.
    pub(crate) fn contains(&self, needle: &memmem::Finder<'_>) -> bool {
        needle.find(self.json).is_some()
    }

    /// The record, parsed; `None` when the line is not valid JSON after all.
    pub(crate) fn parse(&self) -> Option<serde_json::Map<String, serde_json::Value>> {
        serde_json::from_slice(self.json).ok()
    }
}

/// `line` without its final `\r`, `\n` or spaces.
fn trim_end(line: &[u8]) -> &[u8] {
    let end = line
        .iter()
        .rposition(|b| !b.is_ascii_whitespace())
        .map_or(0, |at| at + 1);
    &line[..end]
}

#[cfg(test)]
mod tests {
    use super::*;

    const RECORD: &str = r#"{"timestamp":"2026-11-21T21:01:11.994Z","level":"ERROR","function":"f","step":"error","message":"m"}"#;

    #[test]
    fn a_record_is_found_with_its_time_and_level() {
        for line in [
            RECORD.to_owned(),
            format!("{RECORD}\r\n"),
            format!("2026-11-21T21:01:11.995Z\t8f0c-41\tINFO\t{RECORD}"),
        ] {
            let raw = Raw::find(line.as_bytes()).expect(&line);
            assert_eq!(raw.json, RECORD.as_bytes());
            assert_eq!(raw.timestamp, b"2026-11-21T21:01:11.994Z");
            assert_eq!(raw.level, b"ERROR");
        }
    }

    #[test]
    fn other_lines_are_not_records() {
        for line in [
            "START RequestId: 8f0c-41 Version: $LATEST",
            "REPORT RequestId: 8f0c-41 Duration: 12.3 ms",
            "",
            r#"{"level":"ERROR","timestamp":"2026-11-21T21:01:11.994Z"}"#,
            r#"{"timestamp":"2026-11-21T21:01:11.994Z","level":"ERROR""#,
            r#"{"timestamp":"2026-11-21T21:01:11.994Z"}"#,
        ] {
            assert!(Raw::find(line.as_bytes()).is_none(), "{line}");
        }
    }
}
