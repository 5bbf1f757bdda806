//! The instruments: the FaaS, HTTP server and HTTP client semantic
//! conventions', the alerts and the refused requests, read by a periodic reader on a thread of its own.

use std::cell::RefCell;
use std::time::Duration;

use opentelemetry::metrics::{
    BoundCounter, BoundHistogram, Counter, Histogram, MeterProvider as _,
};
use opentelemetry::KeyValue;
use opentelemetry_proto::tonic::collector::metrics::v1::ExportMetricsServiceRequest;
use opentelemetry_sdk::error::{OTelSdkError, OTelSdkResult};
use opentelemetry_sdk::metrics::data::ResourceMetrics;
use opentelemetry_sdk::metrics::exporter::PushMetricExporter;
use opentelemetry_sdk::metrics::{PeriodicReader, SdkMeterProvider, Temporality};
use opentelemetry_sdk::Resource;

use super::export::{Reporter, Sender};
use super::scrub;
use super::settings::{Settings, Signal};

/// Bucket bounds of the durations, in seconds: the semantic conventions'
/// for HTTP, which hold the 5 s and 10 s thresholds.
const SECONDS: [f64; 14] = [
    0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0,
];

/// Bucket bounds of the memory in use, in bytes: 16 MiB to 4 GiB.
const BYTES: [f64; 9] = [
    16_777_216.0,
    33_554_432.0,
    67_108_864.0,
    134_217_728.0,
    268_435_456.0,
    536_870_912.0,
    1_073_741_824.0,
    2_147_483_648.0,
    4_294_967_296.0,
];

/// The most attribute sets a thread keeps an instrument bound to:
/// measurements with others take the SDK's own lookup.
const BOUND_PER_THREAD: usize = 32;

/// An instrument's handles bound to the attribute sets this thread
/// records (the SDK's bound instruments), each found by comparing sets in
/// a short list: a measurement then skips the SDK's lookup of its
/// attributes (sorted, hashed with SipHash, found in a map under a lock),
/// which cost most of it. A request's sets are few and repeat: a
/// function, an outcome, a route, a status.
pub(super) struct Bindings<B: Send> {
    bound: thread_local::ThreadLocal<RefCell<Bound<B>>>,
}

/// One thread's handles, each with the attribute set it is bound to.
type Bound<B> = Vec<(Box<[KeyValue]>, B)>;

impl<B: Send> Bindings<B> {
    fn new() -> Self {
        Bindings {
            bound: thread_local::ThreadLocal::new(),
        }
    }

    /// Calls `measure` with the handle bound to `attributes`, bound with
    /// `bind` the first time this thread records them; `false`, without
    /// calling it, when the thread keeps as many sets as it may and not
    /// this one.
    pub(super) fn measure(
        &self,
        attributes: &[KeyValue],
        bind: impl FnOnce(&[KeyValue]) -> B,
        measure: impl FnOnce(&B),
    ) -> bool {
        let Ok(mut bound) = self.bound.get_or(RefCell::default).try_borrow_mut() else {
            return false;
        };
        if let Some((_, handle)) = bound.iter().find(|(set, _)| **set == *attributes) {
            measure(handle);
            return true;
        }
        if bound.len() >= BOUND_PER_THREAD {
            return false;
        }
        let handle = bind(attributes);
        measure(&handle);
        bound.push((attributes.into(), handle));
        true
    }
}

pub(super) struct Instruments {
    /// `invocations` and `duration`, bound together: they are recorded
    /// with the same attributes.
    pub(super) invocation_bound: Bindings<(BoundCounter<u64>, BoundHistogram<f64>)>,
    pub(super) memory_bound: Bindings<BoundHistogram<u64>>,
    pub(super) server_bound: Bindings<BoundHistogram<f64>>,
    pub(super) invocations: Counter<u64>,
    pub(super) duration: Histogram<f64>,
    pub(super) coldstarts: Counter<u64>,
    pub(super) memory: Histogram<u64>,
    #[cfg_attr(not(feature = "clients"), allow(dead_code))]
    pub(super) client: Histogram<f64>,
    pub(super) server: Histogram<f64>,
    pub(super) alerts: Counter<u64>,
    pub(super) rejected: Counter<u64>,
}

impl Instruments {
    pub(super) fn new(provider: &SdkMeterProvider) -> Instruments {
        let meter = provider.meter("ccfn");
        Instruments {
            invocation_bound: Bindings::new(),
            memory_bound: Bindings::new(),
            server_bound: Bindings::new(),
            invocations: meter
                .u64_counter("faas.invocations")
                .with_unit("{invocation}")
                .with_description("Invocations, by function and outcome")
                .build(),
            duration: meter
                .f64_histogram("faas.invoke_duration")
                .with_unit("s")
                .with_description("How long invocations took, by function and outcome")
                .with_boundaries(SECONDS.to_vec())
                .build(),
            coldstarts: meter
                .u64_counter("faas.coldstarts")
                .with_unit("{coldstart}")
                .with_description("First invocations of a process")
                .build(),
            memory: meter
                .u64_histogram("faas.mem_usage")
                .with_unit("By")
                .with_description("Resident memory at the end of invocations")
                .with_boundaries(BYTES.to_vec())
                .build(),
            client: meter
                .f64_histogram("http.client.request.duration")
                .with_unit("s")
                .with_description("How long external calls took to answer in full")
                .with_boundaries(SECONDS.to_vec())
                .build(),
            server: meter
                .f64_histogram("http.server.request.duration")
                .with_unit("s")
                .with_description("How long requests over HTTP took to answer")
                .with_boundaries(SECONDS.to_vec())
                .build(),
            alerts: meter
                .u64_counter("ccfn.alerts")
                .with_unit("{alert}")
                .with_description("Thresholds crossed, by function and kind")
                .build(),
            rejected: meter
                .u64_counter("ccfn.requests.rejected")
                .with_unit("{request}")
                .with_description(
                    "Requests refused before a function was invoked, by status and function",
                )
                .build(),
        }
    }
}

impl Instruments {
    /// Counts an invocation of `function` that ended with `outcome`
    /// (`success` or `error`) after `elapsed`.
    pub(super) fn invocation(
        &self,
        function: &'static str,
        outcome: &'static str,
        elapsed: Duration,
    ) {
        let attributes = [
            KeyValue::new("faas.name", function),
            KeyValue::new("faas.trigger", "http"),
            KeyValue::new("ccfn.outcome", outcome),
        ];
        let attributes = scrub::own_metric(&attributes, &[function, "http", outcome]);
        let seconds = elapsed.as_secs_f64();
        let bound = self.invocation_bound.measure(
            &attributes,
            |set| (self.invocations.bind(set), self.duration.bind(set)),
            |(invocations, duration)| {
                invocations.add(1);
                duration.record(seconds);
            },
        );
        if !bound {
            self.invocations.add(1, &attributes);
            self.duration.record(seconds, &attributes);
        }
    }

    /// Records the memory in use at the end of an invocation of
    /// `function`.
    pub(super) fn memory(&self, function: &'static str, bytes: u64) {
        let attributes = [KeyValue::new("faas.name", function)];
        let attributes = scrub::own_metric(&attributes, &[function]);
        if !self.memory_bound.measure(
            &attributes,
            |set| self.memory.bind(set),
            |memory| memory.record(bytes),
        ) {
            self.memory.record(bytes, &attributes);
        }
    }

    /// Records how long a request over HTTP took to answer, with
    /// `attributes` (scrubbed already).
    pub(super) fn server(&self, attributes: &[KeyValue], elapsed: Duration) {
        let seconds = elapsed.as_secs_f64();
        if !self.server_bound.measure(
            attributes,
            |set| self.server.bind(set),
            |server| server.record(seconds),
        ) {
            self.server.record(seconds, attributes);
        }
    }
}

/// The metric exporter: each reading written as the OTLP exporter writes
/// it (the official messages, converted from the SDK's reading by
/// `opentelemetry-proto`) and sent by the span exporter's [`Sender`], so
/// that one transport, configured by ccfn's settings alone, serves both
/// signals; failures reported as the span exporter reports them.
struct MetricExporter {
    sender: Sender,
    temporality: Temporality,
    reporter: Reporter,
}

impl PushMetricExporter for MetricExporter {
    async fn export(&self, metrics: &ResourceMetrics) -> OTelSdkResult {
        use prost::Message as _;
        let body = ExportMetricsServiceRequest::from(metrics).encode_to_vec();
        // Blocks the reader's own thread, as the OTLP exporter's blocking
        // client does.
        self.sender.send(body).map_err(|error| {
            self.reporter.failed(&error);
            OTelSdkError::InternalFailure(error)
        })
    }

    fn force_flush(&self) -> OTelSdkResult {
        Ok(())
    }

    fn shutdown_with_timeout(&self, _timeout: Duration) -> OTelSdkResult {
        Ok(())
    }

    fn temporality(&self) -> Temporality {
        self.temporality
    }
}

/// The meter provider exporting as `signal` says every interval.
pub(super) fn start(
    settings: &Settings,
    signal: &Signal,
    resource: Resource,
    client: reqwest::blocking::Client,
) -> SdkMeterProvider {
    let exporter = MetricExporter {
        sender: Sender::new(signal, client),
        temporality: settings.temporality,
        reporter: Reporter::new("metrics"),
    };
    let reader = PeriodicReader::builder(exporter)
        .with_interval(settings.interval)
        .build();
    SdkMeterProvider::builder()
        .with_resource(resource)
        .with_reader(reader)
        .build()
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::{Arc, Mutex};
    use std::time::Duration;

    use opentelemetry::KeyValue;
    use opentelemetry_sdk::error::OTelSdkResult;
    use opentelemetry_sdk::metrics::data::{AggregatedMetrics, MetricData, ResourceMetrics};
    use opentelemetry_sdk::metrics::exporter::PushMetricExporter;
    use opentelemetry_sdk::metrics::{PeriodicReader, SdkMeterProvider, Temporality};

    use super::{Bindings, Instruments, BOUND_PER_THREAD};

    /// A set is bound once per thread and found again by its value; past
    /// the most a thread keeps, a new set is neither bound nor measured.
    #[test]
    fn a_set_is_bound_once_and_found_again() {
        let bindings = Bindings::<usize>::new();
        let binds = AtomicUsize::new(0);
        let set = |n: usize| [KeyValue::new("n", n as i64), KeyValue::new("k", "v")];
        let bind = |_: &[KeyValue]| binds.fetch_add(1, Ordering::Relaxed);
        for _ in 0..3 {
            for n in 0..BOUND_PER_THREAD {
                let mut measured = None;
                assert!(bindings.measure(&set(n), bind, |handle| measured = Some(*handle)));
                assert_eq!(measured, Some(n), "the handle bound to set {n}");
            }
        }
        assert_eq!(binds.load(Ordering::Relaxed), BOUND_PER_THREAD);
        let past = set(BOUND_PER_THREAD);
        assert!(!bindings.measure(&past, bind, |_| unreachable!("not measured")));
        assert_eq!(binds.load(Ordering::Relaxed), BOUND_PER_THREAD);
        // Another thread binds its own.
        std::thread::scope(|scope| {
            scope.spawn(|| assert!(bindings.measure(&past, bind, |_| {})));
        });
        assert_eq!(binds.load(Ordering::Relaxed), BOUND_PER_THREAD + 1);
    }

    /// What an exporter is given, as `name attributes value` texts.
    #[derive(Clone, Default)]
    struct Capture(Arc<Mutex<BTreeMap<String, String>>>);

    impl PushMetricExporter for Capture {
        async fn export(&self, metrics: &ResourceMetrics) -> OTelSdkResult {
            let mut seen = self.0.lock().unwrap();
            for metric in metrics.scope_metrics().flat_map(|scope| scope.metrics()) {
                let shown = |attributes: &mut dyn Iterator<Item = &KeyValue>| {
                    let mut texts: Vec<String> = attributes
                        .map(|kv| format!("{}={}", kv.key, kv.value))
                        .collect();
                    texts.sort();
                    format!("{} {}", metric.name(), texts.join(","))
                };
                match metric.data() {
                    AggregatedMetrics::U64(MetricData::Sum(sum)) => {
                        for point in sum.data_points() {
                            seen.insert(shown(&mut point.attributes()), point.value().to_string());
                        }
                    }
                    AggregatedMetrics::U64(MetricData::Histogram(histogram)) => {
                        for point in histogram.data_points() {
                            let text = format!("count {} sum {}", point.count(), point.sum());
                            seen.insert(shown(&mut point.attributes()), text);
                        }
                    }
                    AggregatedMetrics::F64(MetricData::Histogram(histogram)) => {
                        for point in histogram.data_points() {
                            let text = format!("count {} sum {}", point.count(), point.sum());
                            seen.insert(shown(&mut point.attributes()), text);
                        }
                    }
                    _ => {}
                }
            }
            Ok(())
        }

        fn force_flush(&self) -> OTelSdkResult {
            Ok(())
        }

        fn shutdown_with_timeout(&self, _: Duration) -> OTelSdkResult {
            Ok(())
        }

        fn temporality(&self) -> Temporality {
            Temporality::Cumulative
        }
    }

    /// Measurements made through bound handles and, past the sets a
    /// thread keeps bound, through the SDK's own lookup are exported
    /// alike: every set with every measurement.
    #[test]
    fn bound_and_unbound_measurements_are_exported_alike() {
        let capture = Capture::default();
        let provider = SdkMeterProvider::builder()
            .with_reader(PeriodicReader::builder(capture.clone()).build())
            .build();
        let instruments = Instruments::new(&provider);
        // Leaked: a function's name is `'static`.
        let names: Vec<&'static str> = (0..BOUND_PER_THREAD + 8)
            .map(|n| &*Box::leak(format!("f{n}").into_boxed_str()))
            .collect();
        for _ in 0..2 {
            for name in &names {
                instruments.invocation(name, "success", Duration::from_millis(250));
                instruments.memory(name, 1_000);
                let route = format!("/{name}");
                let request = [
                    KeyValue::new("http.route", route),
                    KeyValue::new("http.response.status_code", 200),
                ];
                instruments.server(&request, Duration::from_millis(500));
            }
        }
        provider.force_flush().unwrap();
        let seen = capture.0.lock().unwrap();
        for name in &names {
            let invocation = format!("ccfn.outcome=success,faas.name={name},faas.trigger=http");
            assert_eq!(
                seen[&format!("faas.invocations {invocation}")],
                "2",
                "{name}"
            );
            assert_eq!(
                seen[&format!("faas.invoke_duration {invocation}")],
                "count 2 sum 0.5",
                "{name}"
            );
            assert_eq!(
                seen[&format!("faas.mem_usage faas.name={name}")],
                "count 2 sum 2000"
            );
            assert_eq!(
                seen[&format!(
                    "http.server.request.duration http.response.status_code=200,http.route=/{name}"
                )],
                "count 2 sum 1"
            );
        }
    }
}
