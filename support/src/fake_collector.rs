//! A fake OpenTelemetry collector served over real HTTP on loopback: it
//! accepts OTLP/HTTP with protobuf (`POST /v1/traces`, `POST /v1/metrics`),
//! decodes every export with the official protobuf definitions
//! (`opentelemetry-proto`), and keeps what it got, to read back as plain
//! values. A body sent with `Content-Encoding: gzip` is decompressed
//! first, as OTLP/HTTP servers must; any other encoding is refused. Point `OTEL_EXPORTER_OTLP_ENDPOINT` at
//! [`FakeCollector::url`]. Needs the feature `otel`.
//!
//! ```
//! use ccfn_support::fake_collector::FakeCollector;
//!
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! let collector = FakeCollector::start().await;
//! assert!(collector.url().starts_with("http://127.0.0.1:"));
//! assert!(collector.spans().is_empty());
//! # });
//! ```

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::extract::State;
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Router;
use ccfn_testkit::__private::{answer, lock, read, record, verify, Book, Server};
use ccfn_testkit::{FakeResponse, Request};
use opentelemetry_proto::tonic::collector::metrics::v1::{
    ExportMetricsServiceRequest, ExportMetricsServiceResponse,
};
use opentelemetry_proto::tonic::collector::trace::v1::{
    ExportTraceServiceRequest, ExportTraceServiceResponse,
};
use opentelemetry_proto::tonic::common::v1::{any_value, AnyValue, KeyValue};
use opentelemetry_proto::tonic::metrics::v1::{metric, number_data_point};
use prost::Message as _;
use serde_json::Value;

/// Attributes, by key, as JSON values (strings, booleans, numbers; arrays
/// and maps as JSON).
pub type Attributes = BTreeMap<String, Value>;

/// One span as exported.
#[derive(Clone, Debug, PartialEq)]
pub struct Span {
    /// The trace id, 32 lowercase hexadecimal digits.
    pub trace_id: String,
    /// The span id, 16 lowercase hexadecimal digits.
    pub span_id: String,
    /// The parent's span id; empty for a root span.
    pub parent_span_id: String,
    /// The span's name.
    pub name: String,
    /// `server`, `client`, `internal`, `producer`, `consumer` or
    /// `unspecified`.
    pub kind: &'static str,
    /// The span's attributes.
    pub attributes: Attributes,
    /// Its events, in order.
    pub events: Vec<SpanEvent>,
    /// `ok`, `error` or `unset`.
    pub status: &'static str,
    /// The status's description (an error's).
    pub status_message: String,
    /// The span's resource attributes (`service.name`...).
    pub resource: Attributes,
    /// Start and end, nanoseconds since the Unix epoch.
    pub start_unix_nanos: u64,
    /// See `start_unix_nanos`.
    pub end_unix_nanos: u64,
}

/// One event of a span.
#[derive(Clone, Debug, PartialEq)]
pub struct SpanEvent {
    /// The event's name (a record's step).
    pub name: String,
    /// The event's attributes.
    pub attributes: Attributes,
    /// Nanoseconds since the Unix epoch.
    pub unix_nanos: u64,
}

/// One data point of a metric as exported.
#[derive(Clone, Debug, PartialEq)]
pub struct MetricPoint {
    /// The metric's name (`faas.invocations`).
    pub name: String,
    /// The metric's unit (`s`, `By`, `{invocation}`).
    pub unit: String,
    /// The point's attributes.
    pub attributes: Attributes,
    /// A sum's or gauge's value, or a histogram's sum.
    pub value: f64,
    /// A histogram's count; 0 otherwise.
    pub count: u64,
    /// `sum`, `gauge` or `histogram`: the kind of data the instrument
    /// exports (a counter's is a monotonic sum).
    pub kind: &'static str,
    /// Whether a sum only grows (a counter's does).
    pub monotonic: bool,
    /// A histogram's explicit bucket boundaries; empty otherwise.
    pub bounds: Vec<f64>,
    /// A sum's or histogram's aggregation temporality: `cumulative` or
    /// `delta`; empty for a gauge.
    pub temporality: &'static str,
}

#[derive(Default)]
struct Received {
    spans: Vec<Span>,
    metrics: Vec<MetricPoint>,
    /// Every request decoded, in full, as `Debug` text.
    decoded: Vec<String>,
}

#[derive(Debug, Default)]
struct Shared {
    book: Mutex<Book>,
    received: Mutex<Received>,
}

/// The fake collector; it stops when dropped, and then checks its
/// expectation.
#[derive(Debug)]
pub struct FakeCollector {
    server: Server,
    shared: Arc<Shared>,
}

impl std::fmt::Debug for Received {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Received")
            .field("spans", &self.spans.len())
            .field("metrics", &self.metrics.len())
            .finish_non_exhaustive()
    }
}

impl FakeCollector {
    /// Starts a collector on a free loopback port. Needs a Tokio runtime.
    pub async fn start() -> FakeCollector {
        let shared = Arc::new(Shared::default());
        let app = Router::new()
            .fallback(handle)
            .with_state(Arc::clone(&shared));
        let server = Server::start(app, "the fake collector").await;
        FakeCollector { server, shared }
    }

    /// The collector's address.
    #[must_use]
    pub fn addr(&self) -> SocketAddr {
        self.server.addr()
    }

    /// `http://127.0.0.1:{port}`: the value of `OTEL_EXPORTER_OTLP_ENDPOINT`.
    #[must_use]
    pub fn url(&self) -> String {
        format!("http://{}", self.server.addr())
    }

    /// Answers the following exports with `answer` (as many as
    /// [`FakeResponse::times`] says, or all), keeping nothing of them but
    /// the request.
    pub fn fail_with(&self, answer: FakeResponse) -> &Self {
        lock(&self.shared.book).fail_with(answer);
        self
    }

    /// Waits `delay` before each of the collector's answers.
    pub fn delay(&self, delay: Duration) -> &Self {
        lock(&self.shared.book).set_delay(delay);
        self
    }

    /// Expects exactly `count` requests in all: checked when the fake is
    /// dropped (unless the test is already panicking) and by
    /// [`FakeCollector::verify`].
    pub fn expect(&self, count: usize) -> &Self {
        lock(&self.shared.book).expect(count);
        self
    }

    /// Checks the count set by [`FakeCollector::expect`] now.
    ///
    /// # Panics
    /// The fake received another number of requests; the message lists
    /// what it received.
    #[track_caller]
    pub fn verify(&self) {
        let problems: Vec<String> = lock(&self.shared.book).unmet().into_iter().collect();
        verify(
            "the fake collector",
            &self.url(),
            &problems,
            &self.requests(),
        );
    }

    /// Every request received so far, as it came (the protobuf bodies):
    /// to look for what must not be there.
    #[must_use]
    pub fn requests(&self) -> Vec<Request> {
        lock(&self.shared.book).requests()
    }

    /// Every span received so far, in order.
    #[must_use]
    pub fn spans(&self) -> Vec<Span> {
        lock(&self.shared.received).spans.clone()
    }

    /// Every metric data point received so far, in order.
    #[must_use]
    pub fn metrics(&self) -> Vec<MetricPoint> {
        lock(&self.shared.received).metrics.clone()
    }

    /// Every export received so far, decoded in full (every resource,
    /// scope, span, event, metric and data point, with every attribute),
    /// as `Debug` text: to look for what must not be there in what a
    /// collector would store, whatever its encoding on the wire.
    #[must_use]
    pub fn decoded(&self) -> Vec<String> {
        lock(&self.shared.received).decoded.clone()
    }

    /// Waits until `done` holds for what was received, up to `within`.
    ///
    /// # Panics
    /// It does not hold in time; the message shows what was received.
    pub async fn wait_until(
        &self,
        within: Duration,
        done: impl Fn(&[Span], &[MetricPoint]) -> bool,
    ) {
        let deadline = Instant::now() + within;
        loop {
            {
                let received = lock(&self.shared.received);
                if done(&received.spans, &received.metrics) {
                    return;
                }
                assert!(
                    Instant::now() < deadline,
                    "the collector did not get what was expected within {within:?}; it has {:#?}\n{:#?}",
                    received.spans,
                    received.metrics
                );
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
}

impl Drop for FakeCollector {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            self.verify();
        }
    }
}

/// Records the request and answers `POST /v1/traces` and
/// `POST /v1/metrics`; anything else is a 404.
async fn handle(State(shared): State<Arc<Shared>>, request: axum::extract::Request) -> Response {
    let (parts, body) = match read(request, 64 * 1024 * 1024).await {
        Ok(read) => read,
        Err(too_large) => return too_large,
    };
    let own = Arc::clone(&shared);
    answer(
        &shared.book,
        record(&parts, body),
        move |request| async move {
            let received = &own.received;
            let body = match content(&request) {
                Ok(body) => body,
                Err(refused) => return refused.into_response(),
            };
            match (request.method(), request.path()) {
                ("POST", "/v1/traces") => traces(received, &body),
                ("POST", "/v1/metrics") => metrics(received, &body),
                _ => StatusCode::NOT_FOUND.into_response(),
            }
        },
    )
    .await
}

/// The body of `request` as sent before its `Content-Encoding`: as it is
/// without one, decompressed for `gzip` (every member of the stream, as
/// RFC 1952 allows several); any other is refused (415), and a broken
/// gzip stream too (400).
fn content(request: &Request) -> Result<std::borrow::Cow<'_, [u8]>, (StatusCode, String)> {
    match request.header("content-encoding") {
        None => Ok(std::borrow::Cow::Borrowed(request.body())),
        Some(encoding) if encoding.eq_ignore_ascii_case("gzip") => {
            use std::io::Read as _;
            let mut body = Vec::new();
            flate2::read::MultiGzDecoder::new(request.body())
                .read_to_end(&mut body)
                .map(|_| std::borrow::Cow::Owned(body))
                .map_err(|e| (StatusCode::BAD_REQUEST, format!("bad gzip body: {e}")))
        }
        Some(other) => Err((
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            format!("unsupported Content-Encoding `{other}`"),
        )),
    }
}

fn protobuf(bytes: Vec<u8>) -> Response {
    ([(header::CONTENT_TYPE, "application/x-protobuf")], bytes).into_response()
}

fn traces(state: &Mutex<Received>, body: &[u8]) -> Response {
    let request = match ExportTraceServiceRequest::decode(body) {
        Ok(request) => request,
        Err(e) => return (StatusCode::BAD_REQUEST, e.to_string()).into_response(),
    };
    lock(state).decoded.push(format!("{request:?}"));
    let mut spans = Vec::new();
    for resource_spans in request.resource_spans {
        let resource = resource_spans
            .resource
            .map(|r| attributes(&r.attributes))
            .unwrap_or_default();
        for scope_spans in resource_spans.scope_spans {
            for span in scope_spans.spans {
                let status = span.status.unwrap_or_default();
                spans.push(Span {
                    trace_id: hex(&span.trace_id),
                    span_id: hex(&span.span_id),
                    parent_span_id: hex(&span.parent_span_id),
                    name: span.name,
                    kind: match span.kind {
                        1 => "internal",
                        2 => "server",
                        3 => "client",
                        4 => "producer",
                        5 => "consumer",
                        _ => "unspecified",
                    },
                    attributes: attributes(&span.attributes),
                    events: span
                        .events
                        .iter()
                        .map(|event| SpanEvent {
                            name: event.name.clone(),
                            attributes: attributes(&event.attributes),
                            unix_nanos: event.time_unix_nano,
                        })
                        .collect(),
                    status: match status.code {
                        1 => "ok",
                        2 => "error",
                        _ => "unset",
                    },
                    status_message: status.message,
                    resource: resource.clone(),
                    start_unix_nanos: span.start_time_unix_nano,
                    end_unix_nanos: span.end_time_unix_nano,
                });
            }
        }
    }
    lock(state).spans.extend(spans);
    protobuf(ExportTraceServiceResponse::default().encode_to_vec())
}

fn metrics(state: &Mutex<Received>, body: &[u8]) -> Response {
    let request = match ExportMetricsServiceRequest::decode(body) {
        Ok(request) => request,
        Err(e) => return (StatusCode::BAD_REQUEST, e.to_string()).into_response(),
    };
    lock(state).decoded.push(format!("{request:?}"));
    let mut points = Vec::new();
    for resource_metrics in request.resource_metrics {
        for scope_metrics in resource_metrics.scope_metrics {
            for metric in scope_metrics.metrics {
                let point = |attributes: &[KeyValue], value: f64, count: u64| MetricPoint {
                    name: metric.name.clone(),
                    unit: metric.unit.clone(),
                    attributes: self::attributes(attributes),
                    value,
                    count,
                    kind: "",
                    monotonic: false,
                    bounds: Vec::new(),
                    temporality: "",
                };
                // AggregationTemporality: 1 delta, 2 cumulative.
                let temporality = |value: i32| match value {
                    1 => "delta",
                    2 => "cumulative",
                    _ => "unspecified",
                };
                let number = |value: &Option<number_data_point::Value>| match value {
                    Some(number_data_point::Value::AsDouble(d)) => *d,
                    #[allow(clippy::cast_precision_loss)]
                    Some(number_data_point::Value::AsInt(i)) => *i as f64,
                    None => 0.0,
                };
                match &metric.data {
                    Some(metric::Data::Sum(sum)) => {
                        for p in &sum.data_points {
                            points.push(MetricPoint {
                                kind: "sum",
                                monotonic: sum.is_monotonic,
                                temporality: temporality(sum.aggregation_temporality),
                                ..point(&p.attributes, number(&p.value), 0)
                            });
                        }
                    }
                    Some(metric::Data::Gauge(gauge)) => {
                        for p in &gauge.data_points {
                            points.push(MetricPoint {
                                kind: "gauge",
                                ..point(&p.attributes, number(&p.value), 0)
                            });
                        }
                    }
                    Some(metric::Data::Histogram(histogram)) => {
                        for p in &histogram.data_points {
                            points.push(MetricPoint {
                                kind: "histogram",
                                bounds: p.explicit_bounds.clone(),
                                temporality: temporality(histogram.aggregation_temporality),
                                ..point(&p.attributes, p.sum.unwrap_or(0.0), p.count)
                            });
                        }
                    }
                    _ => {}
                }
            }
        }
    }
    lock(state).metrics.extend(points);
    protobuf(ExportMetricsServiceResponse::default().encode_to_vec())
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn attributes(list: &[KeyValue]) -> Attributes {
    list.iter()
        .map(|kv| (kv.key.clone(), kv.value.as_ref().map_or(Value::Null, value)))
        .collect()
}

fn value(value: &AnyValue) -> Value {
    match &value.value {
        Some(any_value::Value::StringValue(s)) => Value::from(s.as_str()),
        Some(any_value::Value::BoolValue(b)) => Value::from(*b),
        Some(any_value::Value::IntValue(i)) => Value::from(*i),
        Some(any_value::Value::DoubleValue(d)) => Value::from(*d),
        Some(any_value::Value::ArrayValue(array)) => {
            Value::Array(array.values.iter().map(self::value).collect())
        }
        Some(any_value::Value::KvlistValue(map)) => Value::Object(
            map.values
                .iter()
                .map(|kv| {
                    (
                        kv.key.clone(),
                        kv.value.as_ref().map_or(Value::Null, self::value),
                    )
                })
                .collect(),
        ),
        Some(any_value::Value::BytesValue(bytes)) => Value::from(hex(bytes)),
        _ => Value::Null,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_failure_told_keeps_the_request_and_decodes_nothing() {
        ccfn_core::http::install_crypto_provider();
        let collector = FakeCollector::start().await;
        collector.fail_with(FakeResponse::status(503).times(1));
        let client = reqwest::Client::new();
        let export = ExportTraceServiceRequest::default().encode_to_vec();
        let url = format!("{}/v1/traces", collector.url());
        let refused = client.post(&url).body(export.clone()).send().await.unwrap();
        assert_eq!(refused.status(), 503);
        let taken = client.post(&url).body(export).send().await.unwrap();
        assert_eq!(taken.status(), 200);
        assert_eq!(taken.headers()["content-type"], "application/x-protobuf");
        assert_eq!(collector.decoded().len(), 1, "only the second was decoded");
        let statuses: Vec<Option<u16>> = collector.requests().iter().map(|r| r.status()).collect();
        assert_eq!(statuses, [Some(503), Some(200)]);
        collector.expect(2);
    }

    /// A gzip body is read as what it compresses, as OTLP/HTTP servers
    /// must; an encoding the collector does not know is refused, and so
    /// is a broken gzip stream.
    #[tokio::test]
    async fn a_gzip_body_is_decompressed_and_other_encodings_refused() {
        use std::io::Write as _;
        ccfn_core::http::install_crypto_provider();
        let collector = FakeCollector::start().await;
        let client = reqwest::Client::new();
        let url = format!("{}/v1/traces", collector.url());
        let export = ExportTraceServiceRequest {
            resource_spans: vec![Default::default()],
        }
        .encode_to_vec();
        let mut gzip = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        gzip.write_all(&export).unwrap();
        let gzip = gzip.finish().unwrap();
        let send = |encoding: &'static str, body: Vec<u8>| {
            client
                .post(&url)
                .header("content-encoding", encoding)
                .body(body)
                .send()
        };
        assert_eq!(send("gzip", gzip.clone()).await.unwrap().status(), 200);
        assert_eq!(send("zstd", gzip.clone()).await.unwrap().status(), 415);
        assert_eq!(send("gzip", export).await.unwrap().status(), 400);
        let decoded = collector.decoded();
        assert_eq!(decoded.len(), 1, "{decoded:?}");
        assert!(
            decoded[0].contains("resource_spans: [ResourceSpans"),
            "{decoded:?}"
        );
        collector.expect(3);
    }
}
