//! The invocation's span and the external calls' spans.

use std::sync::atomic::{AtomicBool, Ordering};

use opentelemetry::propagation::{Extractor, TextMapPropagator as _};
use opentelemetry::trace::{SpanKind, TraceContextExt as _, Tracer as _};
use opentelemetry::{Context, KeyValue};
use opentelemetry_sdk::propagation::TraceContextPropagator;

use super::ids;
use super::layer::scrubbed;
use super::pipeline::{self, pipeline};

/// What an invocation's span is made of.
#[derive(Debug, Default)]
pub(crate) struct InvocationStart<'a> {
    pub(crate) function: &'static str,
    pub(crate) invocation_id: &'a str,
    pub(crate) call_sid: Option<&'a str>,
    pub(crate) flow_sid: Option<&'a str>,
    pub(crate) execution_sid: Option<&'a str>,
    pub(crate) mode: &'a str,
    /// The request's `traceparent` and `tracestate` headers.
    pub(crate) traceparent: Option<&'a str>,
    pub(crate) tracestate: Option<&'a str>,
    /// The request's method and the function's route, when it came over
    /// HTTP.
    pub(crate) method: Option<&'a str>,
    pub(crate) route: Option<&'a str>,
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

/// Starts the span of an invocation, as a child of the caller's
/// `traceparent` when it sends a valid one, else as the root of its call's
/// trace; `None` when traces are not exported.
pub(crate) fn start_invocation(start: &InvocationStart<'_>) -> Option<Context> {
    static STARTED: AtomicBool = AtomicBool::new(false);
    let cold = !STARTED.swap(true, Ordering::Relaxed);
    if cold {
        pipeline::coldstart(start.function);
    }
    let tracer = pipeline()?.tracer.as_ref()?;
    let mut attributes = vec![
        KeyValue::new("faas.trigger", "http"),
        KeyValue::new("faas.invocation_id", start.invocation_id.to_owned()),
        KeyValue::new("faas.coldstart", cold),
        KeyValue::new("faas.name", start.function),
        KeyValue::new("ccfn.mode", scrubbed(start.mode)),
    ];
    let optional = [
        ("http.request.method", start.method),
        ("http.route", start.route),
        ("ccfn.call_sid", start.call_sid),
        ("ccfn.flow_sid", start.flow_sid),
        ("ccfn.execution_sid", start.execution_sid),
    ];
    for (key, value) in optional {
        if let Some(value) = value {
            attributes.push(KeyValue::new(key, scrubbed(value)));
        }
    }
    let builder = tracer
        .span_builder(start.function)
        .with_kind(SpanKind::Server)
        .with_attributes(attributes);
    let caller = TraceContextPropagator::new().extract(&Headers {
        traceparent: start.traceparent,
        tracestate: start.tracestate,
    });
    let span = if caller.span().span_context().is_valid() {
        builder.start_with_context(tracer, &caller)
    } else if let Some(trace_id) = start.call_sid.and_then(ids::from_call_sid) {
        ids::with_trace_id(trace_id, || {
            builder.start_with_context(tracer, &Context::new())
        })
    } else {
        builder.start_with_context(tracer, &Context::new())
    };
    Some(Context::new().with_span(span))
}

/// Ends an invocation's span, with the status its reply was sent with.
pub(crate) fn end_invocation(cx: &Context, status: u16) {
    let span = cx.span();
    span.set_attribute(KeyValue::new(
        "http.response.status_code",
        i64::from(status),
    ));
    span.end();
}
