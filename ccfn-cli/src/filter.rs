//! Which records `ccfn logs` keeps: the spec's filters, tested on the raw
//! line first, so that a line that cannot match is never parsed.

use std::time::{Duration, SystemTime};

use memchr::memmem::Finder;
use serde_json::Value;

use crate::error::Problem;
use crate::line::Raw;
use crate::when;

/// How far out of time order a file's records may be for `--since` and
/// `--until` to still find all of them by position: concurrent
/// invocations write their records a little out of order.
pub(crate) const DISORDER: Duration = Duration::from_secs(60);

/// The records an operator asks for: the flags `logs`, `diagnose` and
/// `package` share.
#[derive(clap::Args, Clone, Debug, Default)]
pub(crate) struct Select {
    /// Records of this call (`call_sid`).
    #[arg(long, value_name = "SID")]
    pub(crate) call: Option<String>,
    /// Records of this invocation (`invocation_id`).
    #[arg(long, value_name = "ID")]
    pub(crate) invocation: Option<String>,
    /// Records of this function (its name, as in `function`).
    #[arg(long, value_name = "NAME")]
    pub(crate) function: Option<String>,
    /// Records at or after TIME: a date (2026-11-21, from midnight UTC), an
    /// RFC 3339 time (2026-11-21T21:00:00Z) or a time ago (2h, 30m, 1day).
    #[arg(long, value_name = "TIME")]
    pub(crate) since: Option<String>,
    /// Records at or before TIME, written as for `--since`.
    #[arg(long, value_name = "TIME")]
    pub(crate) until: Option<String>,
}

/// A selection, read.
#[derive(Debug)]
pub(crate) struct Selected {
    /// The selection's filter, to add to.
    pub(crate) filter: Filter,
    pub(crate) since: Option<SystemTime>,
    pub(crate) until: Option<SystemTime>,
    /// The selection in words (`call CA.., since 2h`), or `None` for
    /// everything.
    pub(crate) what: Option<String>,
}

impl Selected {
    /// Where a time-ordered file's search for `--since` lands: a little
    /// early (see [`DISORDER`]).
    pub(crate) fn seek_to(&self) -> Option<String> {
        self.since
            .map(|s| s.checked_sub(DISORDER).unwrap_or(SystemTime::UNIX_EPOCH))
            .map(when::stamp)
    }
}

impl Select {
    /// The filter of the selection, with times read relative to `now`.
    pub(crate) fn read(&self, now: SystemTime) -> Result<Selected, Problem> {
        let since = self.since.as_deref().map(|t| when::parse(t, now));
        let since = since
            .transpose()
            .map_err(|e| Problem::Usage(format!("--since: {e}")))?;
        let until = self.until.as_deref().map(|t| when::parse(t, now));
        let until = until
            .transpose()
            .map_err(|e| Problem::Usage(format!("--until: {e}")))?;
        if let (Some(since), Some(until)) = (since, until)
            && since > until
        {
            return Err(Problem::Usage(format!(
                "--since ({}) is after --until ({})",
                when::stamp(since),
                when::stamp(until)
            )));
        }
        let mut filter = Filter::default();
        let mut what = Vec::new();
        if let Some(since) = since {
            filter = filter.since(when::stamp(since));
        }
        if let Some(until) = until {
            filter = filter.until(when::stamp(until));
        }
        for (key, value, name) in [
            ("call_sid", &self.call, "call"),
            ("invocation_id", &self.invocation, "invocation"),
            ("function", &self.function, "function"),
        ] {
            if let Some(value) = value {
                filter = filter.field(key, value);
                what.push(format!("{name} {value}"));
            }
        }
        for (flag, value) in [("since", &self.since), ("until", &self.until)] {
            if let Some(value) = value {
                what.push(format!("{flag} {value}"));
            }
        }
        Ok(Selected {
            filter,
            since,
            until,
            what: (!what.is_empty()).then(|| what.join(", ")),
        })
    }
}

/// A record field that must have one value.
#[derive(Debug)]
struct FieldIs {
    key: &'static str,
    value: String,
    /// `"key":"value"` as the record writes it: present in every line
    /// that can match.
    finder: Finder<'static>,
    /// Whether the value is written the same by every JSON writer (no
    /// character that one escapes and another not), so that finding the
    /// needle at the top level of the record is the answer.
    plain: bool,
}

impl FieldIs {
    fn new(key: &'static str, value: &str) -> FieldIs {
        let needle = format!("\"{key}\":{}", Value::from(value));
        FieldIs {
            key,
            value: value.to_owned(),
            finder: Finder::new(needle.as_bytes()).into_owned(),
            plain: value
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b" -_.:+@/".contains(&b)),
        }
    }

    fn holds(&self, record: &serde_json::Map<String, Value>) -> bool {
        record.get(self.key).and_then(Value::as_str) == Some(self.value.as_str())
    }

    /// Whether the record has the field at its top level, read from the
    /// bytes; `None` when only parsing can tell.
    fn holds_raw(&self, json: &[u8]) -> Option<bool> {
        self.plain.then(|| {
            self.finder
                .find_iter(json)
                .any(|at| depth_at(json, at) == 1)
        })
    }
}

/// How deep in objects and arrays the byte at `at` of `json` is (1: in
/// the record itself), reading strings and their escapes. A key's quote
/// never lies inside a string, where quotes are escaped.
fn depth_at(json: &[u8], at: usize) -> usize {
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    for &byte in &json[..at] {
        if in_string {
            match byte {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match byte {
            b'"' => in_string = true,
            b'{' | b'[' => depth += 1,
            b'}' | b']' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    depth
}

/// The filters of one `ccfn logs` run. Levels and `success` add up (a
/// record passes if it matches any of them, or all records when none is
/// given); every other filter must hold.
#[derive(Debug, Default)]
pub(crate) struct Filter {
    levels: Vec<&'static [u8]>,
    success: Option<FieldIs>,
    since: Option<String>,
    until: Option<String>,
    fields: Vec<FieldIs>,
}

impl Filter {
    /// Keeps records at `level` (`ERROR`, `WARN`).
    pub(crate) fn level(mut self, level: &'static str) -> Self {
        self.levels.push(level.as_bytes());
        self
    }

    /// Keeps the `success` records ("completed successfully").
    pub(crate) fn success(mut self) -> Self {
        self.success = Some(FieldIs::new("step", "success"));
        self
    }

    /// Keeps records at or after `since` (a record timestamp's text).
    pub(crate) fn since(mut self, since: String) -> Self {
        self.since = Some(since);
        self
    }

    /// Keeps records at or before `until` (a record timestamp's text).
    pub(crate) fn until(mut self, until: String) -> Self {
        self.until = Some(until);
        self
    }

    /// Keeps records whose top-level `key` is `value`.
    pub(crate) fn field(mut self, key: &'static str, value: &str) -> Self {
        self.fields.push(FieldIs::new(key, value));
        self
    }

    /// Whether the record passes every filter.
    pub(crate) fn matches(&self, raw: &Raw<'_>) -> bool {
        if !self.in_time(raw.timestamp) {
            return false;
        }
        let any_kind = self.levels.is_empty() && self.success.is_none();
        let level = any_kind || self.levels.contains(&raw.level);
        let success = match &self.success {
            Some(step) if !level => raw.contains(&step.finder),
            _ => false,
        };
        if !level && !success {
            return false;
        }
        if !self.fields.iter().all(|field| raw.contains(&field.finder)) {
            return false;
        }
        // Answered from the bytes when every test can be.
        let kind_raw = if level {
            Some(true)
        } else {
            self.success.as_ref().and_then(|s| s.holds_raw(raw.json))
        };
        let fields_raw: Option<bool> = self
            .fields
            .iter()
            .map(|field| field.holds_raw(raw.json))
            .try_fold(true, |all, one| one.map(|one| all && one));
        if let (Some(kind), Some(fields)) = (kind_raw, fields_raw) {
            return kind && fields;
        }
        let Some(record) = raw.parse() else {
            return false;
        };
        let kind = level || self.success.as_ref().is_some_and(|s| s.holds(&record));
        kind && self.fields.iter().all(|field| field.holds(&record))
    }

    /// Whether `timestamp` is within `--since` and `--until`.
    pub(crate) fn in_time(&self, timestamp: &[u8]) -> bool {
        self.since
            .as_ref()
            .is_none_or(|s| timestamp >= s.as_bytes())
            && self
                .until
                .as_ref()
                .is_none_or(|u| timestamp <= u.as_bytes())
    }

    /// Whether `timestamp` is past `--until` by more than `margin` (a
    /// record timestamp's text), so that a time-ordered file can stop.
    pub(crate) fn is_past(&self, timestamp: &[u8], margin: Option<&str>) -> bool {
        margin.is_some_and(|m| timestamp > m.as_bytes())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(level: &str, step: &str, extra: &str) -> String {
        format!(
            r#"{{"timestamp":"2026-11-21T21:01:11.994Z","level":"{level}","function":"wait-experience","invocation_id":"a1","call_sid":"CA1","step":"{step}","message":"m"{extra}}}"#
        )
    }

    fn keeps(filter: &Filter, text: &str) -> bool {
        filter.matches(&Raw::find(text.as_bytes()).unwrap())
    }

    #[test]
    fn levels_and_success_add_up() {
        let error = line("ERROR", "error", "");
        let warn = line("WARN", "alert", "");
        let success = line("INFO", "success", "");
        let info = line("INFO", "processing", "");
        let all = Filter::default();
        assert!([&error, &warn, &success, &info]
            .iter()
            .all(|l| keeps(&all, l)));
        let errors = Filter::default().level("ERROR");
        assert!(keeps(&errors, &error) && !keeps(&errors, &warn) && !keeps(&errors, &success));
        let some = Filter::default().level("ERROR").success();
        assert!(keeps(&some, &error) && keeps(&some, &success));
        assert!(!keeps(&some, &warn) && !keeps(&some, &info));
        // `success` is the step, not the word anywhere in the line.
        let mention = line("INFO", "log", r#","note":"\"step\":\"success\"""#);
        assert!(!keeps(&Filter::default().success(), &mention));
    }

    #[test]
    fn fields_hold_exactly_at_the_top_level() {
        let call = Filter::default().field("call_sid", "CA1");
        assert!(keeps(&call, &line("INFO", "start", "")));
        let other = Filter::default().field("call_sid", "CA12");
        assert!(!keeps(&other, &line("INFO", "start", "")));
        // In the event, not at the top level: not this call's record.
        let nested = line("INFO", "start", r#","event":{"call_sid":"CA9"}"#);
        assert!(!keeps(&Filter::default().field("call_sid", "CA9"), &nested));
        let both = Filter::default()
            .level("ERROR")
            .field("function", "wait-experience");
        assert!(keeps(&both, &line("ERROR", "error", "")));
        assert!(!keeps(&both, &line("INFO", "end", "")));
    }

    #[test]
    fn depth_reads_strings_and_escapes() {
        let json = br#"{"a":"{[\"x\"]}","b":{"c":[1,{"d":2}]},"e":3}"#;
        let depth = |needle: &str| {
            let at = memchr::memmem::find(json, needle.as_bytes()).unwrap();
            depth_at(json, at)
        };
        assert_eq!(depth(r#""a""#), 1);
        assert_eq!(depth(r#""c""#), 2);
        assert_eq!(depth(r#""d""#), 4);
        assert_eq!(depth(r#""e""#), 1);
    }

    #[test]
    fn bytes_and_parsing_agree() {
        // A value with a character writers escape differently is checked
        // by parsing.
        let quoted = Filter::default().field("function", "wait \"x\"");
        let line = line("INFO", "start", "").replace("wait-experience", r#"wait \"x\""#);
        assert!(keeps(&quoted, &line));
        let nested = line_with_nested_step();
        assert!(!keeps(&Filter::default().success(), &nested));
    }

    fn line_with_nested_step() -> String {
        line("INFO", "log", r#","result":{"step":"success"}"#)
    }

    #[test]
    fn time_bounds_are_inclusive() {
        let text = line("INFO", "start", "");
        let at = "2026-11-21T21:01:11.994Z".to_owned();
        assert!(keeps(
            &Filter::default().since(at.clone()).until(at.clone()),
            &text
        ));
        let later = "2026-11-21T21:01:11.995Z".to_owned();
        assert!(!keeps(&Filter::default().since(later), &text));
        let earlier = "2026-11-21T21:01:11.993Z".to_owned();
        assert!(!keeps(&Filter::default().until(earlier), &text));
    }
}
