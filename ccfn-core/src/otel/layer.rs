//! A server span as it is written (see [`super::span`]), and the records
//! of an invocation as events of its span, each written
//! straight from its typed fields as the OTLP `Span.Event` message it
//! becomes: no attribute value is made, no record is parsed back.
//!
//! A record's event is written as it is, then checked for anything to
//! scrub, all its texts at once (see [`write_checked`]). When nothing is,
//! the event stands as written; else it is written again with each text
//! scrubbed on its own.

use std::cell::RefCell;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::SystemTime;

use opentelemetry::trace::{SpanContext, SpanKind, TraceContextExt as _, TraceFlags, TraceId};
use opentelemetry::Context;
use opentelemetry_sdk::trace::{
    IdGenerator as _, RandomIdGenerator, Sampler, SamplingDecision, ShouldSample as _,
};

use crate::record::entry::Entry;
use crate::record::layer::Lines;
use crate::record::value::{FieldValue, Shape};

use super::encode::{
    self, bool_attribute, f64_attribute, fixed32, fixed64, i64_attribute, long_message, message,
    nanos, string, text_attribute, varint_field, FIXED64,
};
use super::scrub::shown;

/// Adds every record written inside an invocation to its span, as an event
/// named after its step, with its level, message and fields as
/// attributes, scrubbed as the lines are; and sets the span's outcome and
/// error status from the `end` and `error` records.
#[derive(Debug, Default)]
pub(crate) struct OtelSink;

impl crate::record::layer::Sink for OtelSink {
    fn take(&self, entry: &Entry<'_>, lines: &mut Lines) {
        let Some(invocation) = entry.identity.invocation else {
            return;
        };
        if let Some(span) = invocation.observed_ref::<Arc<ServerSpan>>() {
            // Its step is checked with the rest unless it is ccfn's own.
            span.record(entry, lines.fields_clean() && entry.plain_header);
        }
    }
}

/// The most events a span keeps (the specification's default limit);
/// those past it are counted.
pub(super) const EVENTS_PER_SPAN: u32 = 128;

/// OTLP's span flags: the parent's remoteness is known, and whether it
/// is remote.
const CONTEXT_HAS_IS_REMOTE: u32 = 0x100;
const CONTEXT_IS_REMOTE: u32 = 0x200;

/// A server span: its context, and what is written of it when it is
/// sampled.
pub(crate) struct ServerSpan {
    /// A context holding its span context: what its calls' spans are
    /// children of, and what `traceparent` upstream carries.
    pub(super) cx: Context,
    written: Option<Mutex<Written>>,
}

impl std::fmt::Debug for ServerSpan {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServerSpan")
            .field("span_context", self.cx.span().span_context())
            .field("sampled", &self.written.is_some())
            .finish()
    }
}

/// A sampled server span as written so far.
struct Written {
    /// Its `Span` message's fields: 1 to 7 (ids, trace state, parent,
    /// name, kind, start), 8 (the end time, written at the end in the
    /// eight bytes kept at `end_at`), then 9, its attributes known at the
    /// start.
    span: Vec<u8>,
    end_at: usize,
    /// Field 11: its events so far.
    events: Vec<u8>,
    events_count: u32,
    events_dropped: u32,
    /// What its records told it.
    facts: Facts,
    /// Field 16: its trace flags and its parent's remoteness.
    flags: u32,
}

impl ServerSpan {
    /// Starts a server span named `name` (scrubbed already), sampled by
    /// `sampler`: a child of the span in `caller` (the trace context a
    /// request sent) when there is one, else the root of trace `root`
    /// when given (a call's), else of a trace of its own. `attributes`
    /// writes its attributes (field 9 each, scrubbed).
    pub(super) fn start(
        sampler: &Sampler,
        name: &str,
        caller: &Context,
        root: Option<TraceId>,
        attributes: impl FnOnce(&mut Vec<u8>),
    ) -> ServerSpan {
        let parent = caller.span().span_context().clone();
        let ids = RandomIdGenerator::default();
        let (trace_id, flags) = if parent.is_valid() {
            (parent.trace_id(), parent.trace_flags())
        } else {
            (
                root.unwrap_or_else(|| ids.new_trace_id()),
                TraceFlags::default(),
            )
        };
        let sampling =
            sampler.should_sample(Some(caller), trace_id, name, &SpanKind::Server, &[], &[]);
        let sampled = sampling.decision == SamplingDecision::RecordAndSample;
        let context = SpanContext::new(
            trace_id,
            ids.new_span_id(),
            flags.with_sampled(sampled),
            false,
            sampling.trace_state,
        );
        let written = sampled.then(|| {
            let mut span = Vec::with_capacity(1024);
            encode::bytes(&mut span, 1, &trace_id.to_bytes());
            encode::bytes(&mut span, 2, &context.span_id().to_bytes());
            string(&mut span, 3, &context.trace_state().header());
            if parent.is_valid() {
                encode::bytes(&mut span, 4, &parent.span_id().to_bytes());
            }
            string(&mut span, 5, name);
            varint_field(&mut span, 6, 2);
            encode::fixed64(&mut span, 7, nanos(SystemTime::now()));
            encode::tag(&mut span, 8, FIXED64);
            let end_at = span.len();
            span.extend_from_slice(&[0; 8]);
            attributes(&mut span);
            for attribute in &sampling.attributes {
                encode::attribute_message(&mut span, 9, attribute, true);
            }
            let mut flags = u32::from(context.trace_flags().to_u8()) | CONTEXT_HAS_IS_REMOTE;
            if parent.is_valid() && parent.is_remote() {
                flags |= CONTEXT_IS_REMOTE;
            }
            Mutex::new(Written {
                span,
                end_at,
                events: Vec::with_capacity(4096),
                events_count: 0,
                events_dropped: 0,
                facts: Facts::default(),
                flags,
            })
        });
        ServerSpan {
            cx: Context::new().with_remote_span_context(context),
            written,
        }
    }

    /// Adds `entry` as an event, scrubbed with the process's secrets and
    /// its invocation's (unless its texts are known to be `clean`); takes
    /// its outcome, error kind and message.
    pub(super) fn record(&self, entry: &Entry<'_>, clean: bool) {
        let Some(written) = &self.written else {
            return;
        };
        let mut written = written.lock().unwrap_or_else(PoisonError::into_inner);
        let written = &mut *written;
        let secrets = entry.identity.secrets();
        // The record's own time, else now.
        let time = match entry.unix_nanos {
            0 => nanos(SystemTime::now()),
            known => known,
        };
        let facts = if written.events_count < EVENTS_PER_SPAN {
            written.events_count += 1;
            write_event(&mut written.events, 11, entry, time, secrets, clean)
        } else {
            written.events_dropped += 1;
            // Dropped, but what it tells the span is kept.
            let mut scratch = Vec::new();
            write_event(&mut scratch, 11, entry, time, secrets, clean)
        };
        let kept = &mut written.facts;
        kept.outcome = facts.outcome.or(kept.outcome.take());
        kept.error_type = facts.error_type.or(kept.error_type.take());
        kept.error = facts.error.or(kept.error.take());
    }

    /// The `Span` message's content as `span::end` ends it, in two
    /// parts (its fields up to its attributes, and the rest: its events
    /// are not copied after the attributes); `None` when it is not
    /// sampled, or already ended.
    pub(super) fn finish(
        &self,
        status: Option<u16>,
        error_type: Option<&str>,
        error: Option<String>,
    ) -> Option<(Vec<u8>, Vec<u8>)> {
        let mut written = self
            .written
            .as_ref()?
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let Written {
            span,
            end_at,
            events,
            events_dropped,
            facts,
            flags,
            ..
        } = &mut *written;
        if span.is_empty() {
            return None;
        }
        let end = nanos(SystemTime::now()).to_le_bytes();
        span[*end_at..*end_at + 8].copy_from_slice(&end);
        if let Some(outcome) = &facts.outcome {
            text_attribute(span, 9, "ccfn.outcome", outcome);
        }
        if let Some(status) = status {
            i64_attribute(span, 9, "http.response.status_code", i64::from(status));
        }
        if let Some(error_type) = error_type.or(facts.error_type.as_deref()) {
            text_attribute(span, 9, "error.type", error_type);
        }
        let mut rest = std::mem::take(events);
        varint_field(&mut rest, 12, u64::from(*events_dropped));
        let error = error.as_ref().or(facts.error.as_ref());
        message(&mut rest, 15, |out| {
            if let Some(error) = error {
                string(out, 2, error);
                varint_field(out, 3, 2);
            }
        });
        fixed32(&mut rest, 16, *flags);
        Some((std::mem::take(span), rest))
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

/// Scratch for the record being written: where each of its texts is in
/// the event, and the texts of its numbers.
#[derive(Default)]
struct Marks {
    texts: Vec<std::ops::Range<usize>>,
    numbers: String,
    /// A composite field's JSON, written there before its length is known.
    json: String,
}

thread_local! {
    static MARKS: RefCell<Marks> = RefCell::default();
    /// A composite field's JSON, for a record known to be clean.
    static JSON: RefCell<String> = const { RefCell::new(String::new()) };
}

/// Writes `entry` into `out` as field `field` of its message (`Span`'s
/// events are field 11), an event at `time` (nanoseconds since the Unix
/// epoch), scrubbed with the process's
/// secrets and `secrets`; what it tells the span. `clean` says its texts
/// are known to hold nothing to scrub (see `Lines::fields_clean`):
/// then they are not checked again.
pub(super) fn write_event(
    out: &mut Vec<u8>,
    field: u32,
    entry: &Entry<'_>,
    time: u64,
    secrets: &[Box<str>],
    clean: bool,
) -> Facts {
    if clean {
        return JSON.with(|json| match json.try_borrow_mut() {
            Ok(mut json) => write(out, field, entry, time, &mut Check::Clean(&mut json)),
            Err(_) => write(
                out,
                field,
                entry,
                time,
                &mut Check::Clean(&mut String::new()),
            ),
        });
    }
    MARKS.with(|marks| match marks.try_borrow_mut() {
        Ok(mut marks) => write_checked(out, field, entry, time, secrets, &mut marks),
        // A record written while this thread writes another.
        Err(_) => write_checked(out, field, entry, time, secrets, &mut Marks::default()),
    })
}

/// Writes the event as it is, then checks it: when a text holds anything
/// to scrub, it is written again with each text scrubbed.
///
/// The check reads the event's bytes, where every text is whole: a
/// secret in a text is in them (one found across two texts costs only
/// the second writing), and a text holds a URL to change only where they
/// hold a `://`, which is then looked at in the text it is in. A
/// number's text, which the bytes do not hold, is checked on its own.
fn write_checked(
    out: &mut Vec<u8>,
    field: u32,
    entry: &Entry<'_>,
    time: u64,
    secrets: &[Box<str>],
    marks: &mut Marks,
) -> Facts {
    let start = out.len();
    marks.texts.clear();
    marks.numbers.clear();
    let facts = write(out, field, entry, time, &mut Check::Mark(marks));
    if clean(out, start, marks, secrets) {
        return facts;
    }
    out.truncate(start);
    write(
        out,
        field,
        entry,
        time,
        &mut Check::Scrub(&mut marks.json, secrets),
    )
}

/// Whether nothing the event written from `start` on holds is to be
/// scrubbed.
fn clean(out: &[u8], start: usize, marks: &Marks, secrets: &[Box<str>]) -> bool {
    let bytes = &out[start..];
    let numbers = marks.numbers.as_bytes();
    if crate::secret::holds_registered(bytes) || crate::secret::holds_registered(numbers) {
        return false;
    }
    let holds = |secret: &[u8]| {
        memchr::memmem::find(bytes, secret).is_some()
            || memchr::memmem::find(numbers, secret).is_some()
    };
    if secrets.iter().any(|secret| holds(secret.as_bytes())) {
        return false;
    }
    let mut from = 0;
    while let Some(at) = crate::secret::find_url(bytes, from) {
        let at = start + at;
        from = at - start + 3;
        let Some(text) = marks
            .texts
            .iter()
            .find(|text| text.start <= at && at + 3 <= text.end)
        else {
            continue;
        };
        // The texts written are whole `str`s.
        let text = std::str::from_utf8(&out[text.clone()]).unwrap_or_default();
        if matches!(crate::secret::display_url(text), std::borrow::Cow::Owned(_)) {
            return false;
        }
    }
    true
}

/// How the texts of a record are handled as its event is written: taken
/// as they are (known to be clean), marked to be checked all together, or
/// each scrubbed (`String` is scratch for a composite's JSON).
enum Check<'a> {
    Clean(&'a mut String),
    Mark(&'a mut Marks),
    Scrub(&'a mut String, &'a [Box<str>]),
}

impl Check<'_> {
    /// Writes the text attribute `key` of `text` as the export shows it;
    /// the text written when it is not `text` itself.
    fn text(&mut self, out: &mut Vec<u8>, key: &str, text: &str) -> Option<String> {
        match self {
            Check::Clean(_) => {
                text_attribute(out, 3, key, text);
                None
            }
            Check::Mark(marks) => {
                text_attribute(out, 3, key, text);
                marks.texts.push(out.len() - text.len()..out.len());
                None
            }
            Check::Scrub(_, secrets) => {
                let shown = shown(text, secrets);
                text_attribute(out, 3, key, &shown);
                Some(shown.into_owned())
            }
        }
    }

    /// Writes the event's name, `step`, as the export shows it.
    #[inline]
    fn name(&mut self, out: &mut Vec<u8>, step: &str) {
        match self {
            Check::Clean(_) => string(out, 2, step),
            Check::Mark(marks) => {
                string(out, 2, step);
                marks.texts.push(out.len() - step.len()..out.len());
            }
            Check::Scrub(_, secrets) => string(out, 2, &shown(step, secrets)),
        }
    }

    /// Writes the attribute `key` of `value`: text as itself, numbers and
    /// booleans as themselves, arrays and objects as their JSON text; a
    /// number that is a secret's value as the text `[REDACTED]`; nothing
    /// for `null` and a number that is not finite. The text written, for
    /// a text scrubbed.
    #[inline]
    fn field(
        &mut self,
        out: &mut Vec<u8>,
        key: &str,
        value: &dyn FieldValue,
        shape: Shape<'_>,
    ) -> Option<String> {
        match shape {
            Shape::Null => None,
            Shape::Bool(b) => {
                bool_attribute(out, 3, key, b);
                None
            }
            Shape::Str(text) => self.text(out, key, text),
            Shape::F64(n) if !n.is_finite() => None,
            Shape::U64(_) | Shape::I64(_) | Shape::F64(_) => {
                match self {
                    Check::Clean(_) => number(out, key, shape),
                    Check::Mark(marks) => {
                        // Its text checked with the others'.
                        value.write_json(&mut marks.numbers);
                        marks.numbers.push('\n');
                        number(out, key, shape);
                    }
                    Check::Scrub(scratch, secrets) => {
                        scratch.clear();
                        value.write_json(scratch);
                        match shown(scratch, secrets) {
                            std::borrow::Cow::Borrowed(_) => number(out, key, shape),
                            shown => text_attribute(out, 3, key, &shown),
                        }
                    }
                }
                None
            }
            Shape::Composite => {
                match self {
                    Check::Clean(json) => {
                        json.clear();
                        value.write_json(json);
                        text_attribute(out, 3, key, json);
                    }
                    Check::Mark(marks) => {
                        let json = &mut marks.json;
                        json.clear();
                        value.write_json(json);
                        text_attribute(out, 3, key, json);
                        marks.texts.push(out.len() - json.len()..out.len());
                    }
                    Check::Scrub(scratch, secrets) => {
                        scratch.clear();
                        value.write_json(scratch);
                        text_attribute(out, 3, key, &shown(scratch, secrets));
                    }
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
    time: u64,
    check: &mut Check<'_>,
) -> Facts {
    let mut facts = Facts::default();
    let mut content = 0..0;
    long_message(out, field, |out| {
        content.start = out.len();
        fixed64(out, 1, time);
        // The step: the catalogue's, else a user's event's.
        check.name(out, entry.step);
        text_attribute(out, 3, "level", entry.level);
        check.text(out, "message", entry.message);
        let mut count = 2;
        let mut dropped = 0_u32;
        // Only these steps tell the span more than their event.
        let telling = matches!(entry.step, "end" | "error");
        entry.fields.each(&mut |name, value| {
            let shape = value.shape();
            if matches!(shape, Shape::Null) {
                return;
            }
            if count >= ATTRIBUTES_PER_EVENT {
                dropped += 1;
                return;
            }
            count += 1;
            let written = check.field(out, name, value, shape);
            if telling {
                let told = || written.or_else(|| text_of(shape));
                match (entry.step, name) {
                    ("end", "outcome") => facts.outcome = told(),
                    ("error", "kind") => facts.error_type = told(),
                    ("error", "error") => facts.error = told(),
                    _ => {}
                }
            }
        });
        varint_field(out, 4, u64::from(dropped));
        content.end = out.len();
    });
    if let Check::Mark(marks) = check {
        // The content moved when its length did not take the two bytes
        // kept for it: the texts with it.
        let start = out.len() - content.len();
        if start != content.start {
            for text in &mut marks.texts {
                *text = text.start + start - content.start..text.end + start - content.start;
            }
        }
    }
    facts
}

/// The text of a text field, as it is.
fn text_of(shape: Shape<'_>) -> Option<String> {
    match shape {
        Shape::Str(text) => Some(text.to_owned()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::entry::Identity;
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
        event_with(step, message, fields, &[])
    }

    /// [`event`], scrubbed with an invocation's `secrets` too.
    fn event_with(
        step: &str,
        message: &str,
        fields: &serde_json::Value,
        secrets: &[Box<str>],
    ) -> (opentelemetry_proto::tonic::trace::v1::span::Event, Facts) {
        let members = crate::record::value::members(fields);
        let entry = Entry {
            timestamp: "2026-01-01T00:00:00.000Z",
            unix_nanos: 0,
            level: "INFO",
            identity: Identity::default(),
            step,
            message,
            fields: &members,
            own_call_sid: false,
            plain_header: true,
            json: crate::record::entry::JsonHead::default(),
        };
        let mut out = Vec::new();
        let facts = write_event(&mut out, 11, &entry, 0, secrets, false);
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
        let (event, _) = event_with(
            "validation",
            "own-secret-8c1f",
            &json!({"note": "with own-secret-8c1f"}),
            &["own-secret-8c1f".into()],
        );
        let shown = format!("{:?}", event.attributes);
        assert!(!shown.contains("own-secret-8c1f"), "{shown}");
        assert!(shown.contains("with [REDACTED]"), "{shown}");
    }

    #[test]
    fn a_url_with_credentials_is_found_whatever_is_around_its_text() {
        // The byte before a text is its length: a digit or a letter at
        // some lengths, which must not hide the URL's scheme.
        for len in 20..160 {
            let url = format!("https://ops:pw@x.example/{}", "a".repeat(len));
            for fields in [
                json!({ "url": url }),
                json!({ "object": { "url": url } }),
                json!({ "first": 1, "url": url, "last": "x" }),
            ] {
                let (event, _) = event("start", &url, &fields);
                let shown = format!("{:?}", event.attributes);
                assert!(!shown.contains("ops:pw"), "{len}: {shown}");
                assert!(shown.contains("https://[REDACTED]@x.example/"), "{len}");
            }
        }
        // A short event, whose length takes one byte.
        let attributes = of("m", &json!({"u": "http://a:b@h/"}));
        assert_eq!(value(&attributes, "u"), text("http://[REDACTED]@h/"));
        // A URL without credentials is kept as it is.
        let attributes = of("at https://x.example/a?b=1", &json!({}));
        assert_eq!(
            value(&attributes, "message"),
            text("at https://x.example/a?b=1")
        );
    }

    #[test]
    fn a_number_that_is_an_invocation_s_secret_is_scrubbed() {
        let (event, _) = event_with(
            "start",
            "m",
            &json!({"code": 48_213_907_u64}),
            &["48213907".into()],
        );
        let code = event
            .attributes
            .iter()
            .find(|kv| kv.key == "code")
            .and_then(|kv| kv.value.clone())
            .and_then(|v| v.value);
        assert_eq!(code, text("[REDACTED]"));
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
