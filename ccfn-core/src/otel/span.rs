//! The invocation's span, and its `http.server.request.duration`; those
//! of a request the runtime refused before invoking a function.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

use opentelemetry::propagation::{Extractor, TextMapPropagator as _};
use opentelemetry::trace::{SpanBuilder, SpanKind, Status, TraceContextExt as _, Tracer as _};
use opentelemetry::{Context, KeyValue, StringValue, Value};
use opentelemetry_sdk::propagation::TraceContextPropagator;
use opentelemetry_sdk::trace::SdkTracer;

use super::ids;
use super::pipeline::{self, pipeline};
use super::scrub;
use crate::observe::{InvocationStart, ObservedInvocation, Rejected, ServerRequest};
use crate::record::catalogue::Record as _;

/// An invocation's telemetry, from its start to its answer: its span,
/// and what its `http.server.request.duration` is recorded with.
#[derive(Debug)]
pub(super) struct InvocationTelemetry {
    /// The context of its span, when traces are exported.
    pub(super) cx: Option<Context>,
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
    scrub: &impl Fn(&str) -> String,
) -> Vec<KeyValue> {
    // Shared texts: the span and the metric take them without a copy.
    let shared = |text: &str| Value::from(StringValue::from(Arc::<str>::from(scrub(text))));
    let mut attributes = Vec::with_capacity(6);
    attributes.extend([
        KeyValue::new("http.request.method", shared(known_method(request.method))),
        KeyValue::new("url.scheme", shared(request.scheme)),
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
fn known_method(method: &str) -> &str {
    if KNOWN_METHODS.contains(&method) {
        method
    } else {
        "_OTHER"
    }
}

/// The server span's attributes of `request`: the metric's, and those
/// that tell this request from others.
fn span_attributes(
    request: &ServerRequest<'_>,
    metric: &[KeyValue],
    scrub: &impl Fn(&str) -> String,
    attributes: &mut Vec<KeyValue>,
) {
    attributes.extend_from_slice(metric);
    attributes.push(KeyValue::new("url.path", scrub(request.path)));
    if known_method(request.method) != request.method {
        attributes.push(KeyValue::new(
            "http.request.method_original",
            scrub(request.method),
        ));
    }
    let optional = [
        ("server.address", request.host),
        ("client.address", request.client),
        ("user_agent.original", request.user_agent),
    ];
    for (key, value) in optional {
        if let Some(value) = value {
            attributes.push(KeyValue::new(key, scrub(value)));
        }
    }
    if let Some(port) = request.port {
        attributes.push(KeyValue::new("server.port", i64::from(port)));
    }
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
    // Every text checked once, all together: copied as it is when
    // nothing in them is to be scrubbed.
    let request_texts = start.request.iter().flat_map(|request| {
        [request.method, request.scheme, request.route, request.path]
            .into_iter()
            .chain(request.host)
            .chain(request.client)
            .chain(request.user_agent)
    });
    let texts = [start.mode]
        .into_iter()
        .chain(start.call_sid)
        .chain(start.flow_sid)
        .chain(start.execution_sid)
        .chain(request_texts);
    let clean = scrub::clean(texts, start.secrets);
    let scrub = |value: &str| {
        if clean {
            value.to_owned()
        } else {
            scrub::text(value, start.secrets)
        }
    };
    let request = start
        .request
        .as_ref()
        .map(|request| metric_attributes(request, &scrub));
    let cx = pipeline.tracer.as_ref().map(|tracer| {
        let mut attributes = Vec::with_capacity(24);
        attributes.extend([
            KeyValue::new("faas.trigger", "http"),
            KeyValue::new("faas.invocation_id", start.invocation_id.to_owned()),
            KeyValue::new("faas.coldstart", cold),
            KeyValue::new("faas.name", start.function),
            KeyValue::new("ccfn.mode", scrub(start.mode)),
        ]);
        if let (Some(info), Some(metric)) = (&start.request, &request) {
            span_attributes(info, metric, &scrub, &mut attributes);
        }
        let call_sid = start.call_sid.map(|sid| (sid, scrub(sid)));
        let optional = [
            (
                "ccfn.call_sid",
                call_sid.as_ref().map(|(_, shown)| shown.clone()),
            ),
            ("ccfn.flow_sid", start.flow_sid.map(scrub)),
            ("ccfn.execution_sid", start.execution_sid.map(scrub)),
        ];
        for (key, value) in optional {
            if let Some(value) = value {
                attributes.push(KeyValue::new(key, value));
            }
        }
        let builder = tracer
            .span_builder(start.function)
            .with_kind(SpanKind::Server)
            .with_attributes(attributes);
        let headers = Headers {
            traceparent: start.traceparent,
            tracestate: start.tracestate,
        };
        start_server_span(tracer, builder, &headers, call_sid.as_ref())
    });
    Some(InvocationTelemetry {
        cx,
        started: Instant::now(),
        request,
    })
}

/// Starts the server span `builder` makes: a child of the caller's
/// trace context in `headers` when it is valid, else the root of the
/// trace of the call `call_sid` (the SID and what is shown of it), else
/// of a trace of its own. A context holding it.
fn start_server_span(
    tracer: &SdkTracer,
    builder: SpanBuilder,
    headers: &Headers<'_>,
    call_sid: Option<&(&str, String)>,
) -> Context {
    let caller = TraceContextPropagator::new().extract(headers);
    // A call SID that is a secret's value does not spell the trace id.
    let trace_id = call_sid
        .filter(|(sid, shown)| sid == shown)
        .and_then(|(sid, _)| ids::from_call_sid(sid));
    let span = if caller.span().span_context().is_valid() {
        builder.start_with_context(tracer, &caller)
    } else if let Some(trace_id) = trace_id {
        ids::with_trace_id(trace_id, || {
            builder.start_with_context(tracer, &Context::new())
        })
    } else {
        builder.start_with_context(tracer, &Context::new())
    };
    Context::new().with_span(span)
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
    let texts = [request.method, request.scheme, request.route, request.path]
        .into_iter()
        .chain(request.host)
        .chain(request.client)
        .chain(request.user_agent)
        .chain(rejected.call_sid);
    let clean = scrub::clean(texts, &[]);
    let scrub = |value: &str| {
        if clean {
            value.to_owned()
        } else {
            scrub::text(value, &[])
        }
    };
    let status_code = KeyValue::new("http.response.status_code", i64::from(rejected.status));
    let error_type =
        (rejected.status >= 500).then(|| KeyValue::new("error.type", rejected.status.to_string()));
    let metric = metric_attributes(request, &scrub);
    let mut attributes = metric.clone();
    attributes.push(status_code.clone());
    attributes.extend(error_type.clone());
    pipeline::server(&attributes, rejected.elapsed);
    let Some(tracer) = &pipeline.tracer else {
        return;
    };
    let mut attributes = Vec::with_capacity(20);
    attributes.extend([
        KeyValue::new("faas.trigger", "http"),
        KeyValue::new("faas.invocation_id", rejected.invocation_id.to_owned()),
    ]);
    if let Some(function) = rejected.function {
        attributes.push(KeyValue::new("faas.name", function));
    }
    span_attributes(request, &metric, &scrub, &mut attributes);
    attributes.push(status_code);
    attributes.extend(error_type);
    let call_sid = rejected.call_sid.map(|sid| (sid, scrub(sid)));
    if let Some((_, shown)) = &call_sid {
        attributes.push(KeyValue::new("ccfn.call_sid", shown.clone()));
    }
    let name = match rejected.function {
        Some(function) => std::borrow::Cow::Borrowed(function),
        None => match known_method(request.method) {
            "_OTHER" => std::borrow::Cow::Borrowed("HTTP"),
            method => std::borrow::Cow::Owned(method.to_owned()),
        },
    };
    let builder = tracer
        .span_builder(name)
        .with_kind(SpanKind::Server)
        .with_attributes(attributes);
    let headers = Headers {
        traceparent: rejected.traceparent,
        tracestate: rejected.tracestate,
    };
    let cx = start_server_span(tracer, builder, &headers, call_sid.as_ref());
    let span = cx.span();
    // The record as the invocations' records become events.
    let event = super::layer::record_attributes(&crate::record::Entry {
        timestamp: "",
        level: rejected.level,
        identity: crate::record::entry::Identity::default(),
        step: crate::record::RequestRejected::STEP.name(),
        message: rejected.message,
        fields: rejected.record,
        own_call_sid: false,
        plain_header: true,
    });
    span.add_event(crate::record::RequestRejected::STEP.name(), event);
    if rejected.status >= 500 {
        span.set_status(Status::error(scrub::text(rejected.record.error, &[])));
    }
    span.end();
}

/// Ends an invocation's telemetry with the status its answer was sent
/// with, and the kind of its error (`validation`, `timeout`...) when it
/// failed: its span, and its `http.server.request.duration`, whose
/// `error.type` is that kind, else a 5xx status.
pub(super) fn end_invocation(telemetry: &InvocationTelemetry, status: u16, error: Option<&str>) {
    let status_code = KeyValue::new("http.response.status_code", i64::from(status));
    let error_type = error
        .map(str::to_owned)
        .or_else(|| (status >= 500).then(|| status.to_string()));
    if let Some(request) = &telemetry.request {
        let mut attributes = request.clone();
        attributes.push(status_code.clone());
        if let Some(error_type) = &error_type {
            attributes.push(KeyValue::new("error.type", error_type.clone()));
        }
        pipeline::server(&attributes, telemetry.started.elapsed());
    }
    if let Some(cx) = &telemetry.cx {
        let span = cx.span();
        span.set_attribute(status_code);
        if let Some(error_type) = error_type {
            // Also when no `error` record set it (a request refused by
            // validation); exported once (see `export`).
            span.set_attribute(KeyValue::new("error.type", error_type));
        }
        span.end();
    }
}

impl ObservedInvocation for InvocationTelemetry {
    /// The context of its span, when traces are exported: what its
    /// records become events of, and its calls children of.
    fn scope(&self) -> Option<Box<dyn std::any::Any + Send + Sync>> {
        self.cx
            .clone()
            .map(|cx| Box::new(cx) as Box<dyn std::any::Any + Send + Sync>)
    }

    fn end(self: Box<Self>, status: u16, error: Option<&str>) {
        end_invocation(&self, status, error);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(attributes: &[KeyValue]) -> Vec<&str> {
        attributes.iter().map(|kv| kv.key.as_str()).collect()
    }

    #[test]
    fn a_request_that_matched_no_route_has_no_http_route() {
        let scrub = |text: &str| text.to_owned();
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
        let metric = metric_attributes(&unmatched, &scrub);
        assert_eq!(
            keys(&metric),
            [
                "http.request.method",
                "url.scheme",
                "network.protocol.version"
            ]
        );
        let mut span = Vec::new();
        span_attributes(&unmatched, &metric, &scrub, &mut span);
        assert!(!keys(&span).contains(&"http.route"));
        assert!(!keys(&span).contains(&"http.request.method_original"));
    }

    #[test]
    fn a_method_the_conventions_do_not_know_is_other() {
        for known in ["GET", "POST", "HEAD", "PUT", "DELETE", "PATCH", "QUERY"] {
            assert_eq!(known_method(known), known);
        }
        for unknown in ["FOO", "get", "", "PROPFIND"] {
            assert_eq!(known_method(unknown), "_OTHER");
        }
        let scrub = |text: &str| text.to_owned();
        let request = ServerRequest {
            method: "PROPFIND",
            path: "/f",
            route: "/f",
            scheme: "http",
            ..ServerRequest::default()
        };
        let metric = metric_attributes(&request, &scrub);
        assert_eq!(metric[0].value.as_str(), "_OTHER");
        let mut span = Vec::new();
        span_attributes(&request, &metric, &scrub, &mut span);
        let original = span
            .iter()
            .find(|kv| kv.key.as_str() == "http.request.method_original")
            .map(|kv| kv.value.as_str().into_owned());
        assert_eq!(original.as_deref(), Some("PROPFIND"));
    }
}
