//! The records of an invocation as events of its span, each written
//! straight from its typed fields as the OTLP `Span.Event` message it
//! becomes: no attribute value is made, no record is parsed back.
//!
//! A record's texts are checked for anything to scrub once, all
//! together, one a line, as its event is written: what the scrubber
//! changes in one text it changes in the lines (a URL ends at a line's
//! end, and starts after it; a secret in one text is in them all). When
//! it changes nothing, the event stands as written; else it is written
//! again with each text scrubbed on its own.

use std::cell::RefCell;
use std::time::SystemTime;

use crate::record::entry::Entry;
use crate::record::layer::Lines;
use crate::record::value::{FieldValue, Shape};

use super::encode::{
    bool_attribute, f64_attribute, fixed64, i64_attribute, message, nanos, string, text_attribute,
    varint_field,
};
use super::scrub::shown;
use super::span::ServerSpan;

/// Adds every record written inside an invocation to its span, as an event
/// named after its step, with its level, message and fields as
/// attributes, scrubbed as the lines are; and sets the span's outcome and
/// error status from the `end` and `error` records.
#[derive(Debug, Default)]
pub(crate) struct OtelSink;

impl crate::record::layer::Sink for OtelSink {
    fn take(&self, entry: &Entry<'_>, _lines: &mut Lines) {
        let Some(invocation) = entry.identity.invocation else {
            return;
        };
        if let Some(span) = invocation.observed_ref::<std::sync::Arc<ServerSpan>>() {
            span.record(entry);
        }
    }
}

/// The most attributes an event keeps (the specification's default
/// limit); those past it are counted.
const ATTRIBUTES_PER_EVENT: u32 = 128;

/// What a span takes from one of its records beyond the event: the
/// outcome of an `end` record, the kind and message of an `error` one,
/// each as exported (scrubbed).
#[derive(Debug, Default, PartialEq)]
pub(super) struct Facts {
    pub(super) outcome: Option<String>,
    pub(super) error_type: Option<String>,
    pub(super) error: Option<String>,
}

thread_local! {
    /// Every text of the record being written, one a line.
    static TEXTS: RefCell<String> = const { RefCell::new(String::new()) };
}

/// Writes `entry` into `out` as field `field` of its message (`Span`'s
/// events are field 11), an event at `time`, scrubbed with the process's
/// secrets and `secrets`; what it tells the span.
pub(super) fn write_event(
    out: &mut Vec<u8>,
    field: u32,
    entry: &Entry<'_>,
    time: SystemTime,
    secrets: &[Box<str>],
) -> Facts {
    TEXTS.with(|texts| match texts.try_borrow_mut() {
        Ok(mut texts) => write_checked(out, field, entry, time, secrets, &mut texts),
        // A record written while this thread writes another.
        Err(_) => write_checked(out, field, entry, time, secrets, &mut String::new()),
    })
}

fn write_checked(
    out: &mut Vec<u8>,
    field: u32,
    entry: &Entry<'_>,
    time: SystemTime,
    secrets: &[Box<str>],
    texts: &mut String,
) -> Facts {
    let start = out.len();
    texts.clear();
    let facts = write(out, field, entry, time, &mut Check::Gather(texts));
    let clean = matches!(crate::secret::scrubbed(texts), std::borrow::Cow::Borrowed(_))
        && !secrets.iter().any(|secret| texts.contains(&**secret));
    if clean {
        return facts;
    }
    out.truncate(start);
    texts.clear();
    write(out, field, entry, time, &mut Check::Scrub(texts, secrets))
}

/// How the texts of a record are handled as its event is written: gathered
/// to be checked all together, or each scrubbed (`String` is scratch for
/// a composite's JSON).
enum Check<'a> {
    Gather(&'a mut String),
    Scrub(&'a mut String, &'a [Box<str>]),
}

impl Check<'_> {
    /// Writes the text attribute `key` of `text` as the export shows it.
    fn text(&mut self, out: &mut Vec<u8>, key: &str, text: &str) -> Option<String> {
        match self {
            Check::Gather(texts) => {
                texts.push_str(text);
                texts.push('\n');
                text_attribute(out, 3, key, text);
                None
            }
            Check::Scrub(_, secrets) => {
                let shown = shown(text, secrets);
                text_attribute(out, 3, key, &shown);
                Some(shown.into_owned())
            }
        }
    }

    /// Writes the attribute `key` of `value`: text as itself, numbers and
    /// booleans as themselves, arrays and objects as their JSON text; a
    /// number that is a secret's value as the text `[REDACTED]`; nothing
    /// for `null` and a number that is not finite. The text written, for
    /// a text.
    fn field(&mut self, out: &mut Vec<u8>, key: &str, value: &dyn FieldValue) -> Option<String> {
        let shape = value.shape();
        match shape {
            Shape::Null => None,
            Shape::Bool(b) => {
                bool_attribute(out, 3, key, b);
                None
            }
            Shape::Str(text) => self.text(out, key, text),
            Shape::F64(n) if !n.is_finite() => None,
            Shape::U64(_) | Shape::I64(_) | Shape::F64(_) | Shape::Composite => {
                let (scratch, secrets) = match self {
                    Check::Gather(texts) => {
                        // Its JSON among the texts, checked with them.
                        let at = texts.len();
                        value.write_json(texts);
                        texts.push('\n');
                        if matches!(shape, Shape::Composite) {
                            let json = &texts[at..texts.len() - 1];
                            text_attribute(out, 3, key, json);
                        } else {
                            number(out, key, shape);
                        }
                        return None;
                    }
                    Check::Scrub(scratch, secrets) => (scratch, *secrets),
                };
                scratch.clear();
                value.write_json(scratch);
                match shown(scratch, secrets) {
                    std::borrow::Cow::Borrowed(_) if !matches!(shape, Shape::Composite) => {
                        number(out, key, shape);
                    }
                    shown => text_attribute(out, 3, key, &shown),
                }
                None
            }
        }
    }
}

/// A number attribute: whole numbers past `i64` as numbers with a
/// fraction.
fn number(out: &mut Vec<u8>, key: &str, shape: Shape<'_>) {
    match shape {
        Shape::U64(n) => match i64::try_from(n) {
            Ok(n) => i64_attribute(out, 3, key, n),
            Err(_) => f64_attribute(out, 3, key, n as f64),
        },
        Shape::I64(n) => i64_attribute(out, 3, key, n),
        Shape::F64(n) => f64_attribute(out, 3, key, n),
        _ => {}
    }
}

/// Writes the event of `entry` with its texts handled by `check`.
fn write(
    out: &mut Vec<u8>,
    field: u32,
    entry: &Entry<'_>,
    time: SystemTime,
    check: &mut Check<'_>,
) -> Facts {
    let mut facts = Facts::default();
    message(out, field, |out| {
        fixed64(out, 1, nanos(time));
        // The step: the catalogue's, else a user's event's.
        match check {
            Check::Gather(texts) => {
                texts.push_str(entry.step);
                texts.push('\n');
                string(out, 2, entry.step);
            }
            Check::Scrub(_, secrets) => string(out, 2, &shown(entry.step, secrets)),
        }
        text_attribute(out, 3, "level", entry.level);
        check.text(out, "message", entry.message);
        let mut count = 2;
        let mut dropped = 0_u32;
        entry.fields.each(&mut |name, value| {
            if matches!(value.shape(), Shape::Null) {
                return;
            }
            if count >= ATTRIBUTES_PER_EVENT {
                dropped += 1;
                return;
            }
            count += 1;
            let written = check.field(out, name, value);
            match (entry.step, name) {
                ("end", "outcome") => facts.outcome = written.or_else(|| text_of(value)),
                ("error", "kind") => facts.error_type = written.or_else(|| text_of(value)),
                ("error", "error") => facts.error = written.or_else(|| text_of(value)),
                _ => {}
            }
        });
        varint_field(out, 4, u64::from(dropped));
    });
    facts
}

/// The text of a text field, as it is.
fn text_of(value: &dyn FieldValue) -> Option<String> {
    match value.shape() {
        Shape::Str(text) => Some(text.to_owned()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::entry::Identity;
    use crate::record::value::Members;
    use opentelemetry_proto::tonic::common::v1::any_value::Value;
    use opentelemetry_proto::tonic::trace::v1::Span;
    use prost::Message as _;
    use serde_json::json;

    /// The event of a record with `message` and `fields`, as a collector
    /// reads it.
    fn event(
        step: &str,
        message: &str,
        fields: &serde_json::Value,
    ) -> (opentelemetry_proto::tonic::trace::v1::span::Event, Facts) {
        let members = Members(
            fields
                .as_object()
                .unwrap()
                .iter()
                .map(|(k, v)| (k.as_str(), v)),
        );
        let entry = Entry {
            timestamp: "2026-01-01T00:00:00.000Z",
            level: "INFO",
            identity: Identity::default(),
            step,
            message,
            fields: &members,
            own_call_sid: false,
            plain_header: true,
        };
        let mut out = Vec::new();
        let facts = write_event(&mut out, 11, &entry, SystemTime::UNIX_EPOCH, &[]);
        let mut span = Span::decode(&out[..]).unwrap();
        assert_eq!(span.events.len(), 1);
        (span.events.remove(0), facts)
    }

    fn of(message: &str, fields: &serde_json::Value) -> Vec<(String, Option<Value>)> {
        let (event, _) = event("start", message, fields);
        assert_eq!(event.name, "start");
        event
            .attributes
            .into_iter()
            .map(|kv| (kv.key, kv.value.and_then(|v| v.value)))
            .collect()
    }

    fn value(attributes: &[(String, Option<Value>)], key: &str) -> Option<Value> {
        attributes
            .iter()
            .find(|(k, _)| k == key)
            .and_then(|(_, v)| v.clone())
    }

    fn text(text: &str) -> Option<Value> {
        Some(Value::StringValue(text.to_owned()))
    }

    #[test]
    fn fields_keep_their_type() {
        let attributes = of(
            "started",
            &json!({"none": null, "yes": true, "status": 503, "delta": -2,
                    "ratio": 0.25, "text": "a\nb", "object": {"a": 1},
                    "big": u64::MAX}),
        );
        assert_eq!(value(&attributes, "level"), text("INFO"));
        assert_eq!(value(&attributes, "message"), text("started"));
        assert_eq!(value(&attributes, "none"), None);
        assert_eq!(value(&attributes, "yes"), Some(Value::BoolValue(true)));
        assert_eq!(value(&attributes, "status"), Some(Value::IntValue(503)));
        assert_eq!(value(&attributes, "delta"), Some(Value::IntValue(-2)));
        assert_eq!(value(&attributes, "ratio"), Some(Value::DoubleValue(0.25)));
        assert_eq!(value(&attributes, "text"), text("a\nb"));
        assert_eq!(value(&attributes, "object"), text("{\"a\":1}"));
        assert_eq!(
            value(&attributes, "big"),
            Some(Value::DoubleValue(u64::MAX as f64))
        );
        assert_eq!(attributes.len(), 9);
    }

    #[test]
    fn a_record_holding_a_secret_or_a_url_has_each_value_scrubbed() {
        let secret = crate::secret::Secret::new("canary-layer-31d7e0");
        let digits = crate::secret::Secret::new("73914628501");
        let attributes = of(
            &format!("sent with {}", secret.expose()),
            &json!({"key": format!("k {}", secret.expose()), "plain": "as is",
                    "code": 73_914_628_501_u64, "other": 7,
                    "object": {"token": secret.expose()}}),
        );
        assert_eq!(value(&attributes, "message"), text("sent with [REDACTED]"));
        assert_eq!(value(&attributes, "key"), text("k [REDACTED]"));
        assert_eq!(value(&attributes, "plain"), text("as is"));
        assert_eq!(value(&attributes, "code"), text("[REDACTED]"));
        assert_eq!(value(&attributes, "other"), Some(Value::IntValue(7)));
        assert_eq!(
            value(&attributes, "object"),
            text("{\"token\":\"[REDACTED]\"}")
        );
        let attributes = of(
            "called",
            &json!({"url": "https://ops:pw@x.example/?token=t&keep=1", "n": 73_914_628_501_u64}),
        );
        assert_eq!(
            value(&attributes, "url"),
            text("https://[REDACTED]@x.example/?token=[REDACTED]&keep=1")
        );
        assert_eq!(value(&attributes, "n"), text("[REDACTED]"));
        drop((secret, digits));
    }

    #[test]
    fn an_invocation_s_own_secrets_are_scrubbed_too() {
        let note = json!("with own-secret-8c1f");
        let members = Members(std::iter::once(("note", &note)));
        let entry = Entry {
            timestamp: "",
            level: "WARN",
            identity: Identity::default(),
            step: "validation",
            message: "own-secret-8c1f",
            fields: &members,
            own_call_sid: false,
            plain_header: true,
        };
        let mut out = Vec::new();
        write_event(
            &mut out,
            11,
            &entry,
            SystemTime::UNIX_EPOCH,
            &["own-secret-8c1f".into()],
        );
        let bytes = String::from_utf8_lossy(&out);
        assert!(!bytes.contains("own-secret-8c1f"), "{bytes}");
        assert!(bytes.contains("with [REDACTED]"), "{bytes}");
    }

    #[test]
    fn end_and_error_records_tell_the_span_their_outcome_and_error() {
        let (_, facts) = event("end", "done", &json!({"outcome": "success"}));
        assert_eq!(facts.outcome.as_deref(), Some("success"));
        let (event, facts) = event(
            "error",
            "failed",
            &json!({"kind": "timeout", "error": "no answer in 10 s"}),
        );
        assert_eq!(event.name, "error");
        assert_eq!(
            facts,
            Facts {
                outcome: None,
                error_type: Some("timeout".into()),
                error: Some("no answer in 10 s".into()),
            }
        );
    }

    #[test]
    fn attributes_past_the_limit_are_counted() {
        let fields: serde_json::Map<String, serde_json::Value> =
            (0..200).map(|i| (format!("f{i}"), json!(i))).collect();
        let (event, _) = event("start", "many", &serde_json::Value::Object(fields));
        assert_eq!(event.attributes.len(), 128);
        assert_eq!(event.dropped_attributes_count, 200 + 2 - 128);
    }
}
