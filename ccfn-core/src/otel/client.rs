//! The span and metric of each external call (`context.http()`, the email
//! provider, the task router), with the trace context sent upstream.

use std::time::Instant;

use opentelemetry::propagation::{Injector, TextMapPropagator as _};
use opentelemetry::trace::{SpanKind, Status, TraceContextExt as _, Tracer as _};
use opentelemetry::{Context, KeyValue};
use opentelemetry_sdk::propagation::TraceContextPropagator;

use super::pipeline::{self as metrics, pipeline};
use super::scrub::current as scrubbed;
use crate::observe::ObservedCall;
use crate::record::scope;

/// The span and metric of one external call: ended by [`ClientSpan::finish`]
/// with its response, or, dropped before, as a call that got none.
pub(super) struct ClientSpan {
    cx: Option<Context>,
    started: Instant,
    attributes: Vec<KeyValue>,
    done: bool,
}

impl ClientSpan {
    /// Starts the span of a call of `method` to `url` (as logged: without
    /// credentials, sensitive query values redacted), a child of the
    /// invocation this thread polls.
    pub(super) fn start(method: &str, url: &str) -> ClientSpan {
        let (host, port) = host_and_port(url);
        // The conventions require the port: the scheme's when the URL
        // names none.
        let port = port.or_else(|| default_port(url));
        let mut attributes = vec![
            KeyValue::new("http.request.method", scrubbed(method)),
            // A host from a caller's URL is scrubbed like any other value.
            KeyValue::new("server.address", scrubbed(host)),
        ];
        if let Some(port) = port {
            attributes.push(KeyValue::new("server.port", i64::from(port)));
        }
        let parent = if scope::in_invocation() {
            scope::with_current(|invocation| {
                invocation
                    .observed_ref::<std::sync::Arc<super::layer::ServerSpan>>()
                    .map(|span| span.cx.clone())
            })
        } else {
            None
        };
        let cx = pipeline()
            .and_then(|pipeline| pipeline.tracer.as_ref())
            .zip(parent)
            .map(|(tracer, parent)| {
                let mut span_attributes = attributes.clone();
                span_attributes.push(KeyValue::new("url.full", scrubbed(url)));
                let span = tracer
                    .span_builder(method.to_owned())
                    .with_kind(SpanKind::Client)
                    .with_attributes(span_attributes)
                    .start_with_context(tracer, &parent);
                parent.with_span(span)
            });
        ClientSpan {
            cx,
            started: Instant::now(),
            attributes,
            done: false,
        }
    }

    /// The `traceparent` header that continues this call's trace upstream.
    pub(super) fn traceparent(&self) -> Option<String> {
        struct One(Option<String>);
        impl Injector for One {
            fn set(&mut self, key: &str, value: String) {
                if key == "traceparent" {
                    self.0 = Some(value);
                }
            }
        }
        let cx = self.cx.as_ref()?;
        let mut header = One(None);
        TraceContextPropagator::new().inject_context(cx, &mut header);
        header.0
    }

    /// Ends the call with its response: `status`, `bytes` of body.
    pub(super) fn finish(mut self, status: u16, bytes: usize) {
        self.done = true;
        let status_attribute = KeyValue::new("http.response.status_code", i64::from(status));
        let mut attributes = self.attributes.clone();
        attributes.push(status_attribute.clone());
        if status >= 400 {
            attributes.push(KeyValue::new("error.type", status.to_string()));
        }
        metrics::client(&attributes, self.started.elapsed());
        if let Some(cx) = &self.cx {
            let span = cx.span();
            span.set_attribute(status_attribute);
            span.set_attribute(KeyValue::new(
                "http.response.body.size",
                i64::try_from(bytes).unwrap_or(i64::MAX),
            ));
            if status >= 400 {
                span.set_attribute(KeyValue::new("error.type", status.to_string()));
                span.set_status(Status::error(format!("status {status}")));
            }
            span.end();
        }
    }
}

impl ObservedCall for ClientSpan {
    fn traceparent(&self) -> Option<String> {
        ClientSpan::traceparent(self)
    }

    fn finish(self: Box<Self>, status: u16, bytes: usize) {
        ClientSpan::finish(*self, status, bytes);
    }
}

impl Drop for ClientSpan {
    fn drop(&mut self) {
        if self.done {
            return;
        }
        let mut attributes = self.attributes.clone();
        attributes.push(KeyValue::new("error.type", "no_response"));
        metrics::client(&attributes, self.started.elapsed());
        if let Some(cx) = &self.cx {
            let span = cx.span();
            span.set_attribute(KeyValue::new("error.type", "no_response"));
            span.set_status(Status::error("no whole response: see the api_error record"));
            span.end();
        }
    }
}

impl std::fmt::Debug for ClientSpan {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientSpan")
            .field("traced", &self.cx.is_some())
            .finish_non_exhaustive()
    }
}

/// The port an `http://` or `https://` URL goes to when it names none.
fn default_port(url: &str) -> Option<u16> {
    let scheme = url.split_once("://")?.0;
    if scheme.eq_ignore_ascii_case("https") {
        Some(443)
    } else if scheme.eq_ignore_ascii_case("http") {
        Some(80)
    } else {
        None
    }
}

/// The host and port of `url`, an `http://` or `https://` URL.
fn host_and_port(url: &str) -> (&str, Option<u16>) {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    let authority = authority.rsplit('@').next().unwrap_or(authority);
    if let Some(bracketed) = authority.strip_prefix('[') {
        let (host, after) = bracketed.split_once(']').unwrap_or((bracketed, ""));
        return (host, after.strip_prefix(':').and_then(|p| p.parse().ok()));
    }
    match authority.rsplit_once(':') {
        Some((host, port)) => (host, port.parse().ok()),
        None => (authority, None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_and_ports() {
        assert_eq!(
            host_and_port("https://api.example.com/v3/messages?x=1"),
            ("api.example.com", None)
        );
        assert_eq!(
            host_and_port("http://127.0.0.1:4318/v1"),
            ("127.0.0.1", Some(4318))
        );
        assert_eq!(host_and_port("http://[::1]:8080/"), ("::1", Some(8080)));
        assert_eq!(default_port("https://api.example.com/v3"), Some(443));
        assert_eq!(default_port("HTTP://api.example.com"), Some(80));
        assert_eq!(default_port("ftp://files.example.com"), None);
        assert_eq!(
            host_and_port("https://user@crm.example.com:8443"),
            ("crm.example.com", Some(8443))
        );
    }
}
