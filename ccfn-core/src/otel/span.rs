//! The server spans: an invocation's, a refused request's; and their
//! `http.server.request.duration`.
//!
//! A server span is written as the OTLP `Span` message it becomes while
//! it runs, not kept as the SDK's span data to be copied and written at
//! export: what is known at its start (ids, name, start time,
//! attributes) is written at once, each record as an event when it is
//! written ([`super::layer`]), the rest where it ends. The export thread
//! only puts it in a batch. Its calls' spans are the SDK tracer's,
//! children of its context.

use std::borrow::Cow;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

use opentelemetry::propagation::{Extractor, TextMapPropagator as _};
use opentelemetry::trace::TraceId;
use opentelemetry::{KeyValue, Value};
use opentelemetry_sdk::propagation::TraceContextPropagator;

use super::encode::{self, i64_attribute, text_attribute, Finished};
use super::ids;
use super::layer::ServerSpan;
use super::pipeline::{self, pipeline};
use super::scrub;
use crate::observe::{InvocationStart, ObservedInvocation, Rejected, ServerRequest};
use crate::record::catalogue::Record as _;
use crate::record::entry::Entry;

/// Ends the span: its answer's `status` code when it has one, its
/// error's kind (`error_type`, replacing an `error` record's), and an
/// error status with `error` when given (else the `error` record's
/// message, if any); queued for export when sampled.
fn end(span: &ServerSpan, status: Option<u16>, error_type: Option<&str>, error: Option<String>) {
    let Some(spans) = pipeline().and_then(|pipeline| pipeline.spans.as_ref()) else {
        return;
    };
    if let Some((head, rest)) = span.finish(status, error_type, error) {
        spans.finished(Finished::Written(head, rest));
    }
}

/// An invocation's telemetry, from its start to its answer: its span,
/// and what its `http.server.request.duration` is recorded with.
#[derive(Debug)]
pub(super) struct InvocationTelemetry {
    /// Its span, when traces are exported.
    span: Option<Arc<ServerSpan>>,
    started: Instant,
    /// The duration's attributes known at the start, scrubbed; none when
    /// the invocation did not come over HTTP.
    request: Option<Vec<KeyValue>>,
}

/// The request headers a trace context is read from.
struct Headers<'a> {
    traceparent: Option<&'a str>,
    tracestate: Option<&'a str>,
}

impl Extractor for Headers<'_> {
    fn get(&self, key: &str) -> Option<&str> {
        match key {
            "traceparent" => self.traceparent,
            "tracestate" => self.tracestate,
            _ => None,
        }
    }

    fn keys(&self) -> Vec<&str> {
        vec!["traceparent", "tracestate"]
    }
}

/// The attributes of `http.server.request.duration` a request gives:
/// those the conventions require or recommend and that stay few
/// (`server.address` and `server.port`, opt-in, are left out: a client
/// chooses the `Host` it sends).
fn metric_attributes(
    request: &ServerRequest<'_>,
    scrub: &impl Fn(&str) -> Cow<'_, str>,
) -> Vec<KeyValue> {
    let shared = |text: &str| Value::from(scrub(text).into_owned());
    // A known method and scheme, unless scrubbed, as the constants they
    // are: not copied for every request.
    let constant = |text: &'static str| match scrub(text) {
        Cow::Borrowed(_) => Value::from(text),
        Cow::Owned(scrubbed) => Value::from(scrubbed),
    };
    let scheme = match request.scheme {
        "http" => constant("http"),
        "https" => constant("https"),
        other => shared(other),
    };
    let mut attributes = Vec::with_capacity(6);
    attributes.extend([
        KeyValue::new(
            "http.request.method",
            constant(known_method(request.method)),
        ),
        KeyValue::new("url.scheme", scheme),
    ]);
    // None when the request matched no function's route.
    if !request.route.is_empty() {
        attributes.push(KeyValue::new("http.route", shared(request.route)));
    }
    if let Some(version) = request.version {
        attributes.push(KeyValue::new("network.protocol.version", version));
    }
    attributes
}

/// The methods the conventions know: any other is `_OTHER` (a client
/// chooses the method it sends, and the metric's attributes stay few).
const KNOWN_METHODS: [&str; 10] = [
    "CONNECT", "DELETE", "GET", "HEAD", "OPTIONS", "PATCH", "POST", "PUT", "TRACE", "QUERY",
];

/// `method` as `http.request.method` holds it: one the conventions know,
/// else `_OTHER`.
fn known_method(method: &str) -> &'static str {
    KNOWN_METHODS
        .iter()
        .find(|known| **known == method)
        .copied()
        .unwrap_or("_OTHER")
}

/// How a span's texts are shown: as they are when all of them were found
/// clean together, else each scrubbed with the process's secrets and
/// `secrets`.
#[derive(Clone, Copy)]
struct Shown<'a> {
    clean: bool,
    secrets: &'a [Box<str>],
}

impl Shown<'_> {
    fn of<'t>(self, text: &'t str) -> std::borrow::Cow<'t, str> {
        if self.clean {
            std::borrow::Cow::Borrowed(text)
        } else {
            scrub::shown(text, self.secrets)
        }
    }

    /// Writes the span attribute `key` of `text`.
    fn text(self, out: &mut Vec<u8>, key: &str, text: &str) {
        text_attribute(out, 9, key, &self.of(text));
    }

    /// Writes the span attribute of each key whose text is given.
    fn texts<const N: usize>(self, out: &mut Vec<u8>, texts: [(&str, Option<&str>); N]) {
        for (key, text) in texts {
            if let Some(text) = text {
                self.text(out, key, text);
            }
        }
    }
}

/// Writes the server span's attributes of `request`: the metric's, and
/// those that tell this request from others.
fn write_request(out: &mut Vec<u8>, request: &ServerRequest<'_>, shown: Shown<'_>) {
    shown.text(out, "http.request.method", known_method(request.method));
    shown.text(out, "url.scheme", request.scheme);
    // None when the request matched no function's route.
    if !request.route.is_empty() {
        shown.text(out, "http.route", request.route);
    }
    if let Some(version) = request.version {
        text_attribute(out, 9, "network.protocol.version", version);
    }
    shown.text(out, "url.path", request.path);
    if known_method(request.method) != request.method {
        shown.text(out, "http.request.method_original", request.method);
    }
    shown.texts(
        out,
        [
            ("server.address", request.host),
            ("client.address", request.client),
            ("user_agent.original", request.user_agent),
        ],
    );
    if let Some(port) = request.port {
        i64_attribute(out, 9, "server.port", i64::from(port));
    }
}

/// The texts of `request` a span shows.
fn request_texts<'a>(request: &ServerRequest<'a>) -> impl Iterator<Item = &'a str> {
    [request.method, request.scheme, request.route, request.path]
        .into_iter()
        .chain(request.host)
        .chain(request.client)
        .chain(request.user_agent)
}

/// The trace id of the call `call_sid` when it spells one and is shown
/// as it is (a call SID that is a secret's value does not spell the
/// trace id).
fn call_trace(call_sid: Option<&str>, shown: Shown<'_>) -> Option<TraceId> {
    call_sid
        .filter(|sid| matches!(shown.of(sid), std::borrow::Cow::Borrowed(_)))
        .and_then(ids::from_call_sid)
}

/// Starts the telemetry of an invocation: its span (when traces are
/// exported), a child of the caller's `traceparent` when it sends a valid
/// one, else the root of its call's trace; `None` when nothing is
/// exported. Every value is scrubbed with the invocation's secrets.
pub(super) fn start_invocation(start: &InvocationStart<'_>) -> Option<InvocationTelemetry> {
    static STARTED: AtomicBool = AtomicBool::new(false);
    let cold = !STARTED.swap(true, Ordering::Relaxed);
    if cold {
        pipeline::coldstart(start.function);
    }
    let pipeline = pipeline()?;
    // Every text checked once, all together: written as it is when
    // nothing in them is to be scrubbed.
    let texts = [start.mode]
        .into_iter()
        .chain(start.call_sid)
        .chain(start.flow_sid)
        .chain(start.execution_sid)
        .chain(start.request.iter().flat_map(request_texts));
    let shown = Shown {
        clean: scrub::clean(texts, start.secrets),
        secrets: start.secrets,
    };
    let request = start
        .request
        .as_ref()
        .map(|request| metric_attributes(request, &|text| shown.of(text)));
    let span = pipeline.sampler.as_ref().map(|sampler| {
        let headers = Headers {
            traceparent: start.traceparent,
            tracestate: start.tracestate,
        };
        let root = call_trace(start.call_sid, shown);
        let caller = TraceContextPropagator::new().extract(&headers);
        Arc::new(ServerSpan::start(
            sampler,
            start.function,
            &caller,
            root,
            |out| {
                text_attribute(out, 9, "faas.trigger", "http");
                text_attribute(out, 9, "faas.invocation_id", start.invocation_id);
                encode::bool_attribute(out, 9, "faas.coldstart", cold);
                text_attribute(out, 9, "faas.name", start.function);
                shown.text(out, "ccfn.mode", start.mode);
                if let Some(request) = &start.request {
                    write_request(out, request, shown);
                }
                shown.texts(
                    out,
                    [
                        ("ccfn.call_sid", start.call_sid),
                        ("ccfn.flow_sid", start.flow_sid),
                        ("ccfn.execution_sid", start.execution_sid),
                    ],
                );
            },
        ))
    });
    Some(InvocationTelemetry {
        span,
        started: Instant::now(),
        request,
    })
}

/// The telemetry of a request the runtime refused before invoking a
/// function: its `http.server.request.duration` and its server span, as
/// an invocation's are made (the span named after the function whose
/// route it matched, else after its method, as the HTTP conventions name
/// a span without a route), with its `request_rejected` record as an
/// event; and it is counted in `ccfn.requests.rejected`. Every text is
/// scrubbed with the process's secrets (no parameter of a refused
/// request is read for more). A 5xx has `error.type` and an error
/// status; a 4xx neither, as the conventions say of a server.
pub(super) fn rejected(rejected: &Rejected<'_>) {
    let Some(pipeline) = pipeline() else {
        return;
    };
    pipeline::rejected(rejected.function, rejected.status);
    let request = &rejected.request;
    let texts = request_texts(request).chain(rejected.call_sid);
    let shown = Shown {
        clean: scrub::clean(texts, &[]),
        secrets: &[],
    };
    let error_type = (rejected.status >= 500).then(|| rejected.status.to_string());
    let mut attributes = metric_attributes(request, &|text| shown.of(text));
    attributes.push(KeyValue::new(
        "http.response.status_code",
        i64::from(rejected.status),
    ));
    if let Some(error_type) = &error_type {
        attributes.push(KeyValue::new("error.type", error_type.clone()));
    }
    pipeline::server(&attributes, rejected.elapsed);
    let Some(sampler) = &pipeline.sampler else {
        return;
    };
    let name = match rejected.function {
        Some(function) => function,
        None => match known_method(request.method) {
            "_OTHER" => "HTTP",
            method => method,
        },
    };
    let headers = Headers {
        traceparent: rejected.traceparent,
        tracestate: rejected.tracestate,
    };
    let root = call_trace(rejected.call_sid, shown);
    let caller = TraceContextPropagator::new().extract(&headers);
    let span = ServerSpan::start(sampler, name, &caller, root, |out| {
        text_attribute(out, 9, "faas.trigger", "http");
        text_attribute(out, 9, "faas.invocation_id", rejected.invocation_id);
        if let Some(function) = rejected.function {
            text_attribute(out, 9, "faas.name", function);
        }
        write_request(out, request, shown);
        if let Some(call_sid) = rejected.call_sid {
            shown.text(out, "ccfn.call_sid", call_sid);
        }
    });
    // The record as the invocations' records become events.
    span.record(
        &Entry {
            timestamp: "",
            unix_nanos: 0,
            level: rejected.level,
            identity: crate::record::entry::Identity::default(),
            step: crate::record::RequestRejected::STEP.name(),
            message: rejected.message,
            fields: rejected.record,
            own_call_sid: false,
            plain_header: true,
            json: crate::record::entry::JsonHead::default(),
        },
        false,
    );
    let error = (rejected.status >= 500).then(|| scrub::text(rejected.record.error, &[]));
    end(&span, Some(rejected.status), error_type.as_deref(), error);
}

/// Ends an invocation's telemetry with the status its answer was sent
/// with, and the kind of its error (`validation`, `timeout`...) when it
/// failed: its span, and its `http.server.request.duration`, whose
/// `error.type` is that kind, else a 5xx status.
pub(super) fn end_invocation(
    telemetry: InvocationTelemetry,
    status: u16,
    error: Option<&'static str>,
) {
    let error_type: Option<std::borrow::Cow<'static, str>> = error
        .map(std::borrow::Cow::Borrowed)
        .or_else(|| (status >= 500).then(|| status.to_string().into()));
    if let Some(mut attributes) = telemetry.request {
        attributes.push(KeyValue::new(
            "http.response.status_code",
            i64::from(status),
        ));
        if let Some(error_type) = &error_type {
            attributes.push(KeyValue::new("error.type", error_type.clone()));
        }
        pipeline::server(&attributes, telemetry.started.elapsed());
    }
    if let Some(span) = &telemetry.span {
        // `error.type` also when no `error` record set it (a request
        // refused by validation).
        end(span, Some(status), error_type.as_deref(), None);
    }
}

impl ObservedInvocation for InvocationTelemetry {
    /// Its span, when traces are exported: what its records become events
    /// of, and its calls children of.
    fn scope(&self) -> Option<Box<dyn std::any::Any + Send + Sync>> {
        self.span
            .clone()
            .map(|span| Box::new(span) as Box<dyn std::any::Any + Send + Sync>)
    }

    fn end(self: Box<Self>, status: u16, error: Option<&'static str>) {
        end_invocation(*self, status, error);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::otel::layer::EVENTS_PER_SPAN;
    use crate::record::entry::Entry;
    use opentelemetry::trace::{
        Event, SpanContext, SpanId, Status, TraceContextExt as _, TraceFlags, TraceState,
    };
    use opentelemetry::Context;
    use opentelemetry_proto::tonic::trace::v1::Span;
    use opentelemetry_sdk::trace::Sampler;
    use opentelemetry_sdk::Resource;
    use prost::Message as _;
    use serde_json::json;
    use std::time::SystemTime;

    fn keys(attributes: &[KeyValue]) -> Vec<&str> {
        attributes.iter().map(|kv| kv.key.as_str()).collect()
    }

    /// The span attributes `write_request` writes, as a collector reads
    /// them: each key and its value as text.
    fn request_attributes(request: &ServerRequest<'_>) -> Vec<(String, String)> {
        let mut out = Vec::new();
        let shown = Shown {
            clean: true,
            secrets: &[],
        };
        write_request(&mut out, request, shown);
        Span::decode(&out[..])
            .unwrap()
            .attributes
            .into_iter()
            .map(|kv| (kv.key, format!("{:?}", kv.value.unwrap().value.unwrap())))
            .collect()
    }

    #[test]
    fn a_request_that_matched_no_route_has_no_http_route() {
        fn scrub(text: &str) -> Cow<'_, str> {
            Cow::Borrowed(text)
        }
        let matched = ServerRequest {
            method: "POST",
            path: "/f",
            route: "/f",
            scheme: "http",
            version: Some("1.1"),
            ..ServerRequest::default()
        };
        assert_eq!(
            keys(&metric_attributes(&matched, &scrub)),
            [
                "http.request.method",
                "url.scheme",
                "http.route",
                "network.protocol.version"
            ]
        );
        let unmatched = ServerRequest {
            route: "",
            path: "/none",
            ..matched
        };
        assert_eq!(
            keys(&metric_attributes(&unmatched, &scrub)),
            [
                "http.request.method",
                "url.scheme",
                "network.protocol.version"
            ]
        );
        let span = request_attributes(&unmatched);
        let span: Vec<&str> = span.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(
            span,
            [
                "http.request.method",
                "url.scheme",
                "network.protocol.version",
                "url.path"
            ]
        );
    }

    #[test]
    fn a_method_the_conventions_do_not_know_is_other() {
        for known in ["GET", "POST", "HEAD", "PUT", "DELETE", "PATCH", "QUERY"] {
            assert_eq!(known_method(known), known);
        }
        for unknown in ["FOO", "get", "", "PROPFIND"] {
            assert_eq!(known_method(unknown), "_OTHER");
        }
        fn scrub(text: &str) -> Cow<'_, str> {
            Cow::Borrowed(text)
        }
        let request = ServerRequest {
            method: "PROPFIND",
            path: "/f",
            route: "/f",
            scheme: "http",
            ..ServerRequest::default()
        };
        let metric = metric_attributes(&request, &scrub);
        assert_eq!(metric[0].value.as_str(), "_OTHER");
        let span = request_attributes(&request);
        let value = |key: &str| span.iter().find(|(k, _)| k == key).map(|(_, v)| v.clone());
        assert_eq!(
            value("http.request.method").as_deref(),
            Some("StringValue(\"_OTHER\")")
        );
        assert_eq!(
            value("http.request.method_original").as_deref(),
            Some("StringValue(\"PROPFIND\")")
        );
    }

    fn record(
        span: &ServerSpan,
        step: &str,
        level: &str,
        message: &str,
        fields: serde_json::Value,
    ) {
        let members = crate::record::value::members(&fields);
        span.record(
            &Entry {
                timestamp: "",
                unix_nanos: 0,
                level,
                identity: crate::record::entry::Identity::default(),
                step,
                message,
                fields: &members,
                own_call_sid: false,
                plain_header: true,
                json: crate::record::entry::JsonHead::default(),
            },
            false,
        );
    }

    fn extract(headers: &Headers<'_>) -> Context {
        TraceContextPropagator::new().extract(headers)
    }

    fn time(nanos: u64) -> SystemTime {
        SystemTime::UNIX_EPOCH + std::time::Duration::from_nanos(nanos)
    }

    /// A server span, written as it runs, is the message the OTLP exporter
    /// writes for the same span made with the SDK.
    #[test]
    fn a_server_span_is_written_as_the_otlp_exporter_writes_it() {
        let secret = crate::secret::Secret::new("canary-span-77a0e2");
        let headers = Headers {
            traceparent: Some("00-0123456789abcdef0123456789abcdef-1122334455667788-01"),
            tracestate: Some("k=v"),
        };
        let span = ServerSpan::start(&Sampler::AlwaysOn, "f", &extract(&headers), None, |out| {
            text_attribute(out, 9, "faas.trigger", "http");
            i64_attribute(out, 9, "server.port", 3001);
        });
        record(
            &span,
            "error",
            "ERROR",
            "failed",
            json!({"kind": "function", "error": format!("failed with {}", secret.expose())}),
        );
        record(
            &span,
            "end",
            "INFO",
            "done",
            json!({"outcome": "error", "ms": 12}),
        );
        let (head, rest) = span.finish(Some(500), Some("timeout"), None).unwrap();
        assert!(span.finish(Some(500), None, None).is_none(), "ended once");
        let decoded = Span::decode(&[&head[..], &rest[..]].concat()[..]).unwrap();

        let mut data = crate::otel::export::tests::span();
        data.span_context = SpanContext::new(
            TraceId::from(0x0123_4567_89ab_cdef_0123_4567_89ab_cdef),
            SpanId::from_bytes(decoded.span_id[..].try_into().unwrap()),
            TraceFlags::SAMPLED,
            false,
            TraceState::from_key_value([("k", "v")]).unwrap(),
        );
        data.parent_span_id = SpanId::from(0x1122_3344_5566_7788);
        data.parent_span_is_remote = true;
        data.start_time = time(decoded.start_time_unix_nano);
        data.end_time = time(decoded.end_time_unix_nano);
        data.attributes = vec![
            KeyValue::new("faas.trigger", "http"),
            KeyValue::new("server.port", 3001_i64),
            KeyValue::new("ccfn.outcome", "error"),
            KeyValue::new("http.response.status_code", 500_i64),
            KeyValue::new("error.type", "timeout"),
        ];
        data.events.events = vec![
            Event::new(
                "error",
                time(decoded.events[0].time_unix_nano),
                vec![
                    KeyValue::new("level", "ERROR"),
                    KeyValue::new("message", "failed"),
                    KeyValue::new("kind", "function"),
                    KeyValue::new("error", "failed with [REDACTED]"),
                ],
                0,
            ),
            Event::new(
                "end",
                time(decoded.events[1].time_unix_nano),
                vec![
                    KeyValue::new("level", "INFO"),
                    KeyValue::new("message", "done"),
                    KeyValue::new("outcome", "error"),
                    KeyValue::new("ms", 12_i64),
                ],
                0,
            ),
        ];
        data.status = Status::error("failed with [REDACTED]");
        data.instrumentation_scope = encode::scope();

        let resource = Resource::builder_empty().build();
        let mut body = Vec::new();
        encode::Encoder::new(&resource).encode(&[Finished::Written(head, rest)], &mut body);
        encode::tests::same(&body, &encode::tests::official(&[data], &resource));
        assert!(!String::from_utf8_lossy(&body).contains("canary-span-77a0e2"));
        drop(secret);
    }

    #[test]
    fn events_past_the_limit_are_counted_and_still_tell_the_span() {
        let headers = Headers {
            traceparent: None,
            tracestate: None,
        };
        let root = ids::from_call_sid("CA0123456789abcdef0123456789abcdef");
        let span = ServerSpan::start(&Sampler::AlwaysOn, "f", &extract(&headers), root, |_| {});
        for _ in 0..EVENTS_PER_SPAN + 3 {
            record(&span, "start", "INFO", "again", json!({}));
        }
        record(&span, "end", "INFO", "done", json!({"outcome": "success"}));
        let (head, rest) = span.finish(Some(200), None, None).unwrap();
        let decoded = Span::decode(&[head, rest].concat()[..]).unwrap();
        assert_eq!(decoded.events.len(), EVENTS_PER_SPAN as usize);
        assert_eq!(decoded.dropped_events_count, 4);
        assert_eq!(
            decoded.trace_id,
            0x0123_4567_89ab_cdef_0123_4567_89ab_cdef_u128.to_be_bytes()
        );
        assert!(decoded.parent_span_id.is_empty());
        assert_eq!(
            decoded.flags, 0x101,
            "sampled, the parent's remoteness known: none"
        );
        let outcome = decoded
            .attributes
            .iter()
            .find(|kv| kv.key == "ccfn.outcome")
            .map(|kv| format!("{:?}", kv.value));
        assert!(outcome.unwrap().contains("success"));
    }

    /// An event's time is its record's: the line's timestamp and the
    /// event come from one reading of the clock.
    #[test]
    fn an_event_is_at_its_record_s_time() {
        let headers = Headers {
            traceparent: None,
            tracestate: None,
        };
        let span = ServerSpan::start(&Sampler::AlwaysOn, "f", &extract(&headers), None, |_| {});
        let fields = json!({});
        let members = crate::record::value::members(&fields);
        let written_at = 1_764_193_531_123_456_789;
        span.record(
            &Entry {
                timestamp: "2025-11-26T21:45:31.123Z",
                unix_nanos: written_at,
                level: "INFO",
                identity: crate::record::entry::Identity::default(),
                step: "start",
                message: "m",
                fields: &members,
                own_call_sid: false,
                plain_header: true,
                json: crate::record::entry::JsonHead::default(),
            },
            false,
        );
        let (head, rest) = span.finish(Some(200), None, None).unwrap();
        let decoded = Span::decode(&[head, rest].concat()[..]).unwrap();
        assert_eq!(decoded.events[0].time_unix_nano, written_at);
    }

    #[test]
    fn an_unsampled_span_writes_nothing_and_tells_its_calls() {
        let headers = Headers {
            traceparent: Some("00-0123456789abcdef0123456789abcdef-1122334455667788-00"),
            tracestate: None,
        };
        let sampler = Sampler::ParentBased(Box::new(Sampler::AlwaysOn));
        let span = ServerSpan::start(&sampler, "f", &extract(&headers), None, |_| {});
        record(&span, "end", "INFO", "done", json!({}));
        assert!(span.finish(Some(200), None, None).is_none());
        let context = span.cx.span().span_context().clone();
        assert!(!context.is_sampled());
        assert_eq!(
            context.trace_id(),
            TraceId::from(0x0123_4567_89ab_cdef_0123_4567_89ab_cdef)
        );
    }
}
