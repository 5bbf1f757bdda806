//! The running pipeline, once per process: the tracer and the
//! instruments each invocation uses, and what `flush` needs.

use std::sync::OnceLock;
use std::time::Duration;

use opentelemetry::KeyValue;
use opentelemetry_sdk::metrics::SdkMeterProvider;
use opentelemetry_sdk::trace::{Sampler, SdkTracer};

use super::export::Handle;
use super::instruments::Instruments;
use super::scrub;

/// What the pipeline needs at each invocation.
pub(super) struct Pipeline {
    /// The tracer of the calls' spans (none without the clients).
    #[cfg_attr(not(feature = "clients"), allow(dead_code))]
    pub(super) tracer: Option<SdkTracer>,
    /// What decides whether a server span is sampled: the tracer's.
    pub(super) sampler: Option<Sampler>,
    pub(super) instruments: Option<Instruments>,
    /// For [`super::flush`].
    pub(super) spans: Option<Handle>,
    pub(super) meters: Option<SdkMeterProvider>,
}

pub(super) static PIPELINE: OnceLock<Pipeline> = OnceLock::new();

pub(super) fn pipeline() -> Option<&'static Pipeline> {
    PIPELINE.get()
}

fn instruments() -> Option<&'static Instruments> {
    pipeline()?.instruments.as_ref()
}

/// Counts an invocation of `function` that ended with `outcome`
/// (`success` or `error`) after `elapsed`.
pub(super) fn invocation(function: &'static str, outcome: &'static str, elapsed: Duration) {
    if let Some(instruments) = instruments() {
        instruments.invocation(function, outcome, elapsed);
    }
}

/// Counts the first invocation of the process.
pub(super) fn coldstart(function: &str) {
    if let Some(instruments) = instruments() {
        instruments.coldstarts.add(
            1,
            &scrub::metric(&[
                KeyValue::new("faas.name", function.to_owned()),
                KeyValue::new("faas.trigger", "http"),
            ]),
        );
    }
}

/// Records the memory in use at the end of an invocation of `function`.
pub(super) fn memory(function: &'static str, bytes: u64) {
    if let Some(instruments) = instruments() {
        instruments.memory(function, bytes);
    }
}

/// Records an external call's duration, with its method, host, and status
/// or error.
#[cfg(feature = "clients")]
pub(super) fn client(attributes: &[KeyValue], elapsed: Duration) {
    if let Some(instruments) = instruments() {
        instruments
            .client
            .record(elapsed.as_secs_f64(), &scrub::metric(attributes));
    }
}

/// Records how long an invocation over HTTP took to answer, with its
/// method, scheme, route, protocol version, status and error: scrubbed
/// already, made from the request's texts scrubbed with the
/// invocation's secrets, and from ccfn's own.
pub(super) fn server(attributes: &[KeyValue], elapsed: Duration) {
    if let Some(instruments) = instruments() {
        instruments.server(attributes, elapsed);
    }
}

/// Counts an alert of `kind` raised by `function` (`-` outside an
/// invocation).
pub(super) fn alert(function: &str, kind: &str) {
    if let Some(instruments) = instruments() {
        instruments.alerts.add(
            1,
            &scrub::metric(&[
                KeyValue::new("faas.name", function.to_owned()),
                KeyValue::new("ccfn.alert.kind", kind.to_owned()),
            ]),
        );
    }
}

/// Counts a request refused before a function was invoked, by the status
/// it was answered with and the function whose route it matched, if any.
pub(super) fn rejected(function: Option<&'static str>, status: u16) {
    if let Some(instruments) = instruments() {
        let status = KeyValue::new("http.response.status_code", i64::from(status));
        match function {
            Some(function) => instruments.rejected.add(
                1,
                &scrub::metric(&[status, KeyValue::new("faas.name", function)]),
            ),
            None => instruments.rejected.add(1, &scrub::metric(&[status])),
        }
    }
}
