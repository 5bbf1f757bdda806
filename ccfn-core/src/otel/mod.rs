//! OpenTelemetry export of traces and metrics (feature `otel`), over
//! OTLP/HTTP with protobuf, configured by the standard `OTEL_*` variables.
//!
//! [`init`] starts it when `OTEL_EXPORTER_OTLP_ENDPOINT` (or a signal's own
//! endpoint) is set; the runtime calls it. From then on:
//!
//! - **One span per invocation**, of kind server, named after the
//!   function, with the FaaS and HTTP server attributes (`faas.trigger`,
//!   `faas.invocation_id`, `faas.coldstart`, `faas.name`,
//!   `http.request.method`, `http.route`, `url.path`, `url.scheme`,
//!   `server.address`, `server.port`, `client.address`,
//!   `user_agent.original`, `network.protocol.version`,
//!   `http.response.status_code`, `error.type`) and the domain's
//!   (`ccfn.call_sid`, `ccfn.flow_sid`, `ccfn.execution_sid`,
//!   `ccfn.mode`, `ccfn.outcome`). Every record of the invocation is an
//!   event of the span, named after its step, with its fields as
//!   attributes. The span is written as the OTLP message it becomes
//!   while it runs, each event straight from its record's typed fields
//!   (see `span` and `layer`).
//! - **Nothing secret is exported**: every attribute, status message and
//!   metric attribute passes the log lines' scrubber, with the process's
//!   secrets and the invocation's (the span starts once they are known).
//! - **One call, one trace.** A call SID is `CA` and 32 hexadecimal
//!   digits: a 128-bit trace id. Without a `traceparent` header, an
//!   invocation's trace id is its `CallSid`'s, so the invocations of one
//!   call (the menu, its `Gather` callback, the voicemail notice, the
//!   callback task) land in one trace, sampled alike (the ratio sampler
//!   decides from the trace id). With a `traceparent`, the caller's
//!   trace wins.
//! - **One span per refused request**: a request the runtime refuses
//!   before invoking a function (a bad signature, an unknown path...)
//!   has a server span of its own, made as an invocation's is, with its
//!   `request_rejected` record as an event; it is counted in
//!   `ccfn.requests.rejected` and `http.server.request.duration`.
//! - **A client span per external call** (`context.http()`, the email
//!   provider, the task router), with the HTTP client attributes, and the
//!   trace context sent upstream in `traceparent`.
//! - **Metrics**: `faas.invocations`, `faas.invoke_duration`,
//!   `faas.coldstarts`, `faas.mem_usage`, `http.server.request.duration`,
//!   `http.client.request.duration`, `ccfn.alerts` and
//!   `ccfn.requests.rejected`, named as the semantic conventions (v1.40.0)
//!   name them where they name them.
//!
//! Export never blocks an invocation: finished spans wait in a bounded
//! queue (dropped and counted when it is full) for a thread of their own,
//! metrics are read by another. An export that fails writes a `telemetry`
//! record, at most one a minute per signal.

#[cfg(feature = "clients")]
mod client;
mod encode;
mod export;
mod ids;
mod instruments;
pub(crate) mod layer;
mod pipeline;
mod scrub;
mod settings;
mod span;

use opentelemetry_sdk::metrics::SdkMeterProvider;
use opentelemetry_sdk::trace::SdkTracerProvider;

use std::time::Duration;

use crate::config::Source;
use crate::error::{Error, ErrorKind};
#[cfg(feature = "clients")]
use crate::observe::ObservedCall;
use crate::observe::{Export, InvocationStart, ObservedInvocation, Observer, Rejected};
use pipeline::{pipeline, Pipeline, PIPELINE};
use settings::Settings;

/// What the invocations, the clients and the runtime tell export, through
/// [`crate::observe`]: installed by [`init`] once the pipeline runs.
struct OtelObserver;

impl Observer for OtelObserver {
    fn start_invocation(&self, start: &InvocationStart<'_>) -> Option<Box<dyn ObservedInvocation>> {
        span::start_invocation(start)
            .map(|telemetry| Box::new(telemetry) as Box<dyn ObservedInvocation>)
    }

    fn invocation(&self, function: &'static str, outcome: &'static str, elapsed: Duration) {
        pipeline::invocation(function, outcome, elapsed);
    }

    fn memory(&self, function: &'static str, bytes: u64) {
        pipeline::memory(function, bytes);
    }

    fn alert(&self, function: &str, kind: &str) {
        pipeline::alert(function, kind);
    }

    fn rejected(&self, rejected: &Rejected<'_>) {
        span::rejected(rejected);
    }

    #[cfg(feature = "clients")]
    fn start_call(&self, method: &str, url: &str) -> Option<Box<dyn ObservedCall>> {
        Some(Box::new(client::ClientSpan::start(method, url)))
    }

    fn flush(&self) {
        flush();
    }
}

/// OpenTelemetry as the crate's exporter: its record sink goes into the
/// logging, and the runtime starts it with [`init`].
impl Export for layer::OtelSink {
    const BUILT: bool = true;
    type Running = Telemetry;

    fn sink() -> Option<Box<dyn crate::record::layer::Sink>> {
        Some(Box::new(layer::OtelSink))
    }

    fn start<S: Source + ?Sized>(source: &S) -> Result<Option<Telemetry>, Error> {
        init(source)
    }

    fn destination(running: &Telemetry) -> &str {
        running.destination()
    }
}

/// Keeps export running; dropping it exports what is left (waiting up to
/// the export timeout) and stops it.
#[must_use = "dropping it stops the export; hold it until the process ends"]
pub struct Telemetry {
    traces: Option<SdkTracerProvider>,
    metrics: Option<SdkMeterProvider>,
    spans: Option<export::Handle>,
    destination: String,
}

impl std::fmt::Debug for Telemetry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Telemetry")
            .field("traces", &self.traces.is_some())
            .field("metrics", &self.metrics.is_some())
            .field("dropped_spans", &self.dropped_spans())
            .finish()
    }
}

impl Telemetry {
    /// What is exported where: `traces to <url> and metrics to <url>`.
    #[must_use]
    pub fn destination(&self) -> &str {
        &self.destination
    }

    /// How many spans were dropped because the queue was full.
    #[must_use]
    pub fn dropped_spans(&self) -> u64 {
        self.spans.as_ref().map_or(0, export::Handle::dropped)
    }
}

impl Drop for Telemetry {
    fn drop(&mut self) {
        let traces = self.traces.take();
        let metrics = self.metrics.take();
        let spans = self.spans.take();
        // The exporters' HTTP clients block: shut them down on a thread of
        // their own, never on an async one.
        let _ = std::thread::Builder::new()
            .name("ccfn-otel-shutdown".to_owned())
            .spawn(move || {
                if let Some(traces) = traces {
                    let _ = traces.shutdown();
                }
                if let Some(spans) = spans {
                    spans.stop();
                }
                if let Some(metrics) = metrics {
                    let _ = metrics.shutdown();
                }
            })
            .map(|thread| thread.join());
    }
}

/// Starts OpenTelemetry export as the `OTEL_*` variables of `source` say,
/// once per process; `None` when no endpoint is set or `OTEL_SDK_DISABLED`
/// is `true`.
///
/// ```
/// use ccfn_core::config::Env;
///
/// // No endpoint: nothing is exported, nothing is started.
/// let env = Env::from_vars([("OTEL_SERVICE_NAME", "contact-center")]);
/// assert!(ccfn_core::otel::init(&env).unwrap().is_none());
///
/// let env = Env::from_vars([
///     ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:4318"),
///     ("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc"),
/// ]);
/// assert_eq!(
///     ccfn_core::otel::init(&env).unwrap_err().to_string(),
///     "OTEL_EXPORTER_OTLP_PROTOCOL=\"grpc\": expected `http/protobuf`"
/// );
/// ```
///
/// # Errors
/// A variable cannot be parsed (kind `Configuration`); export was already
/// started in this process; an exporter cannot be built.
pub fn init<S: Source + ?Sized>(source: &S) -> Result<Option<Telemetry>, Error> {
    let Some(settings) = Settings::from_source(source)? else {
        return Ok(None);
    };
    // The exporters' clients speak TLS through rustls with ring, and
    // trust the certificates every ccfn client trusts.
    let _ = rustls::crypto::ring::default_provider().install_default();
    // Spans are sent with their own timeout on each request; metrics,
    // sent by the SDK, with the client's.
    let timeout = match (&settings.metrics, &settings.traces) {
        (Some(signal), _) | (None, Some(signal)) => signal.timeout,
        (None, None) => return Ok(None),
    };
    let client = exporter_client(&crate::tls::TlsRoots::load(source)?, timeout)?;
    if PIPELINE.get().is_some() {
        return Err(Error::new(
            ErrorKind::Configuration,
            "OpenTelemetry export is already started in this process; call otel::init once",
        ));
    }
    let resource = settings.resource();
    let (traces, tracer, sampler, spans) = match &settings.traces {
        Some(signal) => {
            let (processor, handle) =
                export::start(&settings, signal, resource.clone(), client.clone())?;
            let provider = SdkTracerProvider::builder()
                .with_resource(resource.clone())
                .with_sampler(settings.sampler())
                .with_span_processor(processor)
                .build();
            let tracer =
                opentelemetry::trace::TracerProvider::tracer_with_scope(&provider, encode::scope());
            (
                Some(provider),
                Some(tracer),
                Some(settings.sampler()),
                Some(handle),
            )
        }
        None => (None, None, None, None),
    };
    let (meters, instruments) = match &settings.metrics {
        Some(signal) => {
            let provider = instruments::start(&settings, signal, resource, client);
            let instruments = instruments::Instruments::new(&provider);
            (Some(provider), Some(instruments))
        }
        None => (None, None),
    };
    let pipeline = Pipeline {
        tracer,
        sampler,
        instruments,
        spans: spans.clone(),
        meters: meters.clone(),
    };
    if PIPELINE.set(pipeline).is_err() {
        return Err(Error::new(
            ErrorKind::Configuration,
            "OpenTelemetry export is already started in this process; call otel::init once",
        ));
    }
    // From now on the invocations and the clients report to the pipeline.
    if crate::observe::install(Box::new(OtelObserver)).is_err() {
        return Err(Error::new(
            ErrorKind::Configuration,
            "another observer is installed in this process: OpenTelemetry export cannot start",
        ));
    }
    Ok(Some(Telemetry {
        traces,
        metrics: meters,
        spans,
        // Shown as ccfn shows every URL: no credentials, no token.
        destination: [
            settings.traces.map(|signal| {
                format!("traces to {}", crate::secret::display_url(&signal.endpoint))
            }),
            settings.metrics.map(|signal| {
                format!(
                    "metrics to {}",
                    crate::secret::display_url(&signal.endpoint)
                )
            }),
        ]
        .into_iter()
        .flatten()
        .collect::<Vec<_>>()
        .join(" and "),
    }))
}

/// The exporters' HTTP client: trusting `roots` only (`CCFN_TLS_ROOTS`,
/// as ccfn's other clients), giving up after `timeout`. Made on a thread of
/// its own, as a blocking client must not be made on an async one.
fn exporter_client(
    roots: &crate::tls::TlsRoots,
    timeout: std::time::Duration,
) -> Result<reqwest::blocking::Client, Error> {
    let builder = reqwest::blocking::Client::builder()
        .timeout(timeout)
        .tls_certs_only(roots.certificates());
    let built = std::thread::Builder::new()
        .name("ccfn-otel-client".to_owned())
        .spawn(move || builder.build())
        .and_then(|thread| {
            thread
                .join()
                .map_err(|_| std::io::Error::other("the thread panicked"))
        });
    match built {
        Ok(Ok(client)) => Ok(client),
        Ok(Err(error)) => Err(Error::new(
            ErrorKind::Configuration,
            format!(
                "cannot build the OpenTelemetry exporters' HTTP client: {}",
                crate::error::error_chain(&error)
            ),
        )),
        Err(error) => Err(Error::new(
            ErrorKind::Configuration,
            format!("cannot build the OpenTelemetry exporters' HTTP client: {error}"),
        )),
    }
}

/// Exports every finished span and the metrics now, waiting up to the
/// export timeout; nothing when export is off. Blocks: call it off the
/// async threads. The runtime does after each invocation on AWS Lambda.
pub fn flush() {
    let Some(pipeline) = pipeline() else {
        return;
    };
    if let Some(spans) = &pipeline.spans {
        spans.flush();
    }
    if let Some(meters) = &pipeline.meters {
        // A failure is reported by the exporter itself.
        let _ = meters.force_flush();
    }
}

#[cfg(test)]
mod tests {
    use crate::config::Env;

    #[test]
    fn export_without_ca_certificates_stops_and_says_what_to_install() {
        let dir = std::env::temp_dir().join(format!("ccfn-otel-no-certs-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let env = Env::from_vars([
            (
                "OTEL_EXPORTER_OTLP_ENDPOINT",
                "https://collector.example.com",
            ),
            ("CCFN_TLS_ROOTS", "system"),
            ("SSL_CERT_DIR", dir.to_str().unwrap()),
        ]);
        let error = super::init(&env).unwrap_err();
        let _ = std::fs::remove_dir_all(&dir);
        assert_eq!(error.kind(), crate::ErrorKind::Configuration);
        assert!(
            error
                .message()
                .starts_with("no CA certificates to verify HTTPS servers with: SSL_CERT_DIR=")
                && error.message().contains("apt-get install ca-certificates"),
            "{error}"
        );
    }
}
