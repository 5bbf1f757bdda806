//! The forms a record is written in, each straight from its typed fields:
//! JSON lines ([`json`]) and the human format, brief or with every field
//! ([`human`]).

mod human;
pub(crate) mod json;

use std::str::FromStr;

use serde_json::{Map, Value};

use super::entry::{Entry, Identity};
use super::value::Members;

/// The output formats of the same records: the human format, brief or
/// with every field, and JSON lines.
///
/// `CCFN_LOG_FORMAT` chooses between the human format (`pretty`) and
/// JSON lines (`json`); for the human format, `CCFN_LOG_DETAIL` chooses
/// between [`LogFormat::Pretty`] (`brief`, the default) and
/// [`LogFormat::PrettyFull`] (`full`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LogFormat {
    /// For people at a terminal: one line per record, with the time of
    /// day (the whole RFC 3339 timestamp on a `start` line and on the
    /// first line of each UTC day), the level, the function, the
    /// invocation id, the step, the message, then the step's headline
    /// fields as `name=value` (see [`crate::record::Step::headline`]).
    #[default]
    Pretty,
    /// For people at a terminal, every field: the header line (with the
    /// whole timestamp), then each field on its own line, objects as
    /// indented JSON.
    PrettyFull,
    /// For machines: one JSON object per line; nested values stay objects,
    /// so `jq '.event.CallSid'` works.
    Json,
}

impl FromStr for LogFormat {
    type Err = crate::error::Error;

    /// The format `CCFN_LOG_FORMAT` names: `pretty` (brief) or `json`.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim() {
            "pretty" => Ok(LogFormat::Pretty),
            "json" => Ok(LogFormat::Json),
            other => Err(crate::error::Error::new(
                crate::error::ErrorKind::Configuration,
                format!("unknown log format `{other}`: expected `pretty` or `json`"),
            )),
        }
    }
}

impl LogFormat {
    /// Renders one record, as read back from a JSON line (without the
    /// final newline). Alone, a record shows its date in the brief format
    /// only if it is a `start` record.
    #[must_use]
    pub fn render(self, record: &Map<String, Value>) -> String {
        let text = |key: &str| record.get(key).and_then(Value::as_str);
        let fields = Members(
            record
                .iter()
                .filter(|(key, _)| !is_header(key))
                .map(|(key, value)| (key.as_str(), value)),
        );
        let entry = Entry {
            timestamp: text("timestamp").unwrap_or(""),
            unix_nanos: 0,
            level: text("level").unwrap_or(""),
            identity: Identity {
                function: text("function"),
                invocation_id: text("invocation_id"),
                call_sid: None,
                lambda: None,
                invocation: None,
            },
            step: text("step").unwrap_or(""),
            message: text("message").unwrap_or(""),
            fields: &fields,
            own_call_sid: record.contains_key("call_sid"),
            plain_header: false,
            json: crate::record::entry::JsonHead::default(),
        };
        let mut out = String::new();
        // One record alone: its day is shown when it starts an invocation.
        let dated = entry.step == "start";
        self.write(&entry, dated, &mut out);
        out
    }

    /// Writes `entry` into `out` (without the final newline); `dated` says
    /// whether the brief format shows the whole timestamp. The invocation's
    /// own values are scrubbed where the human format escapes a value; the
    /// caller scrubs the whole line afterwards.
    pub(super) fn write(self, entry: &Entry<'_>, dated: bool, out: &mut String) {
        match self {
            LogFormat::Json => {
                json::write(entry, out);
            }
            LogFormat::Pretty => human::write_brief(entry, dated, out),
            LogFormat::PrettyFull => human::write_full(entry, out),
        }
    }
}

/// Whether `key` is written in a line's header, ahead of the fields,
/// when a record is read back: what every record has but the call and the
/// Lambda request, which stay among the fields of a record read back.
fn is_header(key: &str) -> bool {
    super::catalogue::COMMON_FIELDS.contains(&key)
        && !matches!(key, "call_sid" | "function_request_id" | "cold_start")
}

/// Whether a handler's own field named `key` is renamed (to
/// `fields.<key>`): a field every record has, or one ccfn adds to a
/// handler's lines.
pub(super) fn is_reserved(key: &str) -> bool {
    super::catalogue::COMMON_FIELDS.contains(&key) || key == "target" || key == "user_step"
}

/// The day of an RFC 3339 `timestamp` as `yyyymmdd`, 0 when it has
/// none.
pub(super) fn utc_day(timestamp: &str) -> u32 {
    let digits = |range: std::ops::Range<usize>| {
        timestamp
            .get(range)
            .filter(|text| text.bytes().all(|b| b.is_ascii_digit()))
            .and_then(|text| text.parse::<u32>().ok())
    };
    match (digits(0..4), digits(5..7), digits(8..10)) {
        (Some(year), Some(month), Some(day)) => year * 10_000 + month * 100 + day,
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{json, Map, Value};

    use super::*;
    use crate::record::scope::{Invocation, OnLambda};

    #[test]
    fn pretty_puts_header_then_fields() {
        let record = json!({
            "timestamp": "2026-11-21T20:35:01.123Z",
            "level": "INFO",
            "function": "wait-experience",
            "invocation_id": "abc",
            "step": "start",
            "message": "=== FUNCTION START: wait-experience ===",
            "event": {"CallSid": "CA1"},
            "domain": "localhost:3001",
            "stack": "one\ntwo"
        });
        let text = LogFormat::PrettyFull.render(record.as_object().unwrap());
        assert_eq!(
            text,
            "2026-11-21T20:35:01.123Z INFO  wait-experience abc [start] === FUNCTION START: wait-experience ===\n  event: {\n    \"CallSid\": \"CA1\"\n  }\n  domain: localhost:3001\n  stack: \n    one\n    two"
        );
    }

    #[test]
    fn brief_is_one_line_with_the_step_s_headline_fields() {
        let record = json!({
            "timestamp": "2026-11-21T20:35:01.123Z",
            "level": "WARN",
            "function": "wait-experience",
            "invocation_id": "abc",
            "call_sid": "CA1",
            "step": "api_response",
            "message": "API response: 503 from GET https://api.example.com/v1",
            "status": 503,
            "ok": false,
            "content_type": "application/json",
            "response_bytes": 12,
            "data": {"code": 503},
            "elapsed_ms": 41
        });
        assert_eq!(
            LogFormat::Pretty.render(record.as_object().unwrap()),
            "20:35:01.123Z WARN  wait-experience abc [api_response] API response: 503 from GET https://api.example.com/v1 status=503 elapsed_ms=41"
        );
        // Outside an invocation, with no headline field.
        let record = json!({
            "timestamp": "2026-11-21T20:35:02.000Z",
            "level": "INFO",
            "step": "runtime",
            "message": "listening on http://127.0.0.1:3001",
            "addr": "127.0.0.1:3001",
            "functions": ["/a", "/b"]
        });
        assert_eq!(
            LogFormat::Pretty.render(record.as_object().unwrap()),
            "20:35:02.000Z INFO    [runtime] listening on http://127.0.0.1:3001"
        );
    }

    #[test]
    fn brief_shows_every_field_of_a_handler_s_line_and_of_an_unknown_step_but_the_call_sid() {
        for step in ["log", "not-in-the-catalogue"] {
            let record = json!({
                "timestamp": "[timestamp]",
                "level": "INFO",
                "call_sid": "CA1",
                "step": step,
                "message": "m",
                "target": "my_functions",
                "count": 2
            });
            assert_eq!(
                LogFormat::Pretty.render(record.as_object().unwrap()),
                format!("[timestamp] INFO    [{step}] m target=my_functions count=2")
            );
        }
    }

    #[test]
    fn brief_quotes_what_a_bare_value_cannot_show_and_stays_on_one_line() {
        let record = json!({
            "timestamp": "2026-11-21T20:35:01.123Z",
            "level": "ERROR",
            "step": "error",
            "message": "first\nsecond \u{1b}[2J",
            "kind": "function",
            "error": "a \"quoted\"\nmessage\u{9b}",
            "stack": "one\ntwo",
            "event": {"CallSid": "CA1"}
        });
        let text = LogFormat::Pretty.render(record.as_object().unwrap());
        assert_eq!(
            text,
            "20:35:01.123Z ERROR   [error] first\\nsecond \\u{1b}[2J kind=function error=\"a \\\"quoted\\\"\\nmessage\\u{9b}\""
        );
        assert!(!text.contains('\n') && !text.chars().any(char::is_control));
        let record = json!({
            "timestamp": "T1", "level": "INFO", "step": "success", "message": "",
            "result": {"a": [1, "x y"], "b": null}
        });
        assert_eq!(
            LogFormat::Pretty.render(record.as_object().unwrap()),
            r#"1 INFO    [success] result={"a":[1,"x y"],"b":null}"#
        );
        let record = json!({
            "timestamp": "T1", "level": "INFO", "step": "log", "message": "m",
            "empty": "", "eq": "a=b", "n": 1.5, "t": true
        });
        assert_eq!(
            LogFormat::Pretty.render(record.as_object().unwrap()),
            r#"1 INFO    [log] m empty="" eq="a=b" n=1.5 t=true"#
        );
    }

    #[test]
    fn the_human_format_scrubs_a_secret_before_it_escapes_its_control_characters() {
        let secret = "canary-brief-line-one\ncanary-brief-line-two";
        // In voice markup, XML-escaped, with a tab the human format shows
        // as `\u{9}`: no form of it is left to match once escaped.
        let tabbed = "canary<tab\tsecret>";
        let also = crate::secret::invocation_secrets([secret, tabbed]);
        let values = [
            ("quoted", Value::from(secret)),
            ("inside", json!({ "key": secret })),
            ("bare", Value::from("canary-brief-line-one")),
            ("twiml", Value::from("<Say>canary&lt;tab\tsecret&gt;</Say>")),
        ];
        let fields = Members(values.iter().map(|(k, v)| (*k, v)));
        let invocation = Invocation::new("f", "abc", None, also.clone());
        let entry = Entry::log(
            "2026-11-21T20:35:01.123Z",
            Identity::of(Some(&invocation)),
            secret,
            &fields,
            false,
        );
        for format in [LogFormat::Pretty, LogFormat::PrettyFull] {
            let mut out = String::new();
            format.write(&entry, false, &mut out);
            crate::secret::scrub(&mut out, &also);
            assert!(!out.contains("canary-brief-line-two"), "{format:?}: {out}");
            assert!(!out.contains("secret&gt;"), "{format:?}: {out}");
            assert!(out.contains("<Say>[REDACTED]</Say>"), "{format:?}: {out}");
        }
    }

    #[test]
    fn brief_dates_a_start_line_when_alone() {
        // One record alone: its date shows where it starts an invocation.
        let record = |step: &str| {
            json!({
                "timestamp": "2026-11-21T20:35:01.123Z", "level": "INFO",
                "function": "f", "invocation_id": "abc", "step": step, "message": "m"
            })
        };
        assert_eq!(
            LogFormat::Pretty.render(record("start").as_object().unwrap()),
            "2026-11-21T20:35:01.123Z INFO  f abc [start] m"
        );
        assert_eq!(
            LogFormat::Pretty.render(record("end").as_object().unwrap()),
            "20:35:01.123Z INFO  f abc [end] m"
        );
    }

    #[test]
    fn on_lambda_every_format_carries_the_request_id_and_the_cold_start() {
        let lambda = OnLambda {
            request_id: "8476a536-e9f4-11e8-9739-2dfe598c3fcd".to_owned(),
            cold_start: true,
        };
        let line = |format: LogFormat, step: &str| {
            let values = [("outcome", Value::from("success"))];
            let fields = Members(values.iter().map(|(k, v)| (*k, v)));
            let entry = Entry {
                timestamp: "2026-11-21T20:35:01.123Z",
                unix_nanos: 0,
                level: "INFO",
                identity: Identity {
                    function: Some("f"),
                    invocation_id: Some("abc"),
                    call_sid: Some("CA1"),
                    lambda: Some(&lambda),
                    invocation: None,
                },
                step,
                message: "m",
                fields: &fields,
                own_call_sid: false,
                plain_header: false,
                json: crate::record::entry::JsonHead::default(),
            };
            let mut out = String::new();
            format.write(&entry, false, &mut out);
            out
        };
        let json = line(LogFormat::Json, "end");
        assert_eq!(
            json,
            r#"{"timestamp":"2026-11-21T20:35:01.123Z","level":"INFO","function":"f","invocation_id":"abc","call_sid":"CA1","function_request_id":"8476a536-e9f4-11e8-9739-2dfe598c3fcd","cold_start":true,"step":"end","message":"m","outcome":"success"}"#
        );
        // Where it starts, in brief; on every line, in full.
        assert_eq!(
            line(LogFormat::Pretty, "start"),
            "20:35:01.123Z INFO  f abc [start] m function_request_id=8476a536-e9f4-11e8-9739-2dfe598c3fcd cold_start=true"
        );
        assert_eq!(
            line(LogFormat::Pretty, "end"),
            "20:35:01.123Z INFO  f abc [end] m outcome=success"
        );
        assert!(line(LogFormat::PrettyFull, "end").ends_with(
            "\n  call_sid: CA1\n  function_request_id: 8476a536-e9f4-11e8-9739-2dfe598c3fcd\n  cold_start: true\n  outcome: success"
        ));
        // A record read back shows them alike.
        let record: Map<String, Value> = serde_json::from_str(&json).unwrap();
        let again: Map<String, Value> =
            serde_json::from_str(&LogFormat::Json.render(&record)).unwrap();
        assert_eq!(again, record);
        assert_eq!(
            LogFormat::Pretty.render(&record),
            "20:35:01.123Z INFO  f abc [end] m outcome=success"
        );
        let mut start = record.clone();
        start.insert("step".into(), Value::from("start"));
        assert_eq!(
            LogFormat::Pretty.render(&start),
            "2026-11-21T20:35:01.123Z INFO  f abc [start] m function_request_id=8476a536-e9f4-11e8-9739-2dfe598c3fcd cold_start=true"
        );
    }

    #[test]
    fn pretty_shows_control_characters_escaped() {
        let record = json!({
            "step": "caller",
            "message": "from \u{1b}[2J",
            "from": "+1\u{1b}]0;x\u{7}",
        });
        let text = LogFormat::PrettyFull.render(record.as_object().unwrap());
        assert!(!text.contains('\u{1b}'), "{text:?}");
        assert!(
            text.ends_with("[caller] from \\u{1b}[2J\n  from: +1\\u{1b}]0;x\\u{7}"),
            "{text:?}"
        );
    }
}
