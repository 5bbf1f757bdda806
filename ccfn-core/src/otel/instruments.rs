//! The instruments: the FaaS, HTTP server and HTTP client semantic
//! conventions', the alerts and the refused requests, read by a periodic reader on a thread of its own.

use std::sync::Arc;
use std::time::Duration;

use opentelemetry::metrics::{Counter, Histogram, MeterProvider as _};
use opentelemetry_otlp::{Protocol, WithExportConfig, WithHttpConfig};
use opentelemetry_sdk::error::OTelSdkResult;
use opentelemetry_sdk::metrics::data::ResourceMetrics;
use opentelemetry_sdk::metrics::exporter::PushMetricExporter;
use opentelemetry_sdk::metrics::{PeriodicReader, SdkMeterProvider, Temporality};
use opentelemetry_sdk::Resource;

use super::export::Reporter;
use super::settings::Settings;
use crate::error::{Error, ErrorKind};

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

pub(super) struct Instruments {
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

/// The metric exporter, reporting its failures as the span exporter does.
struct Reporting<E> {
    exporter: E,
    reporter: Arc<Reporter>,
}

impl<E: PushMetricExporter> PushMetricExporter for Reporting<E> {
    async fn export(&self, metrics: &ResourceMetrics) -> OTelSdkResult {
        let result = self.exporter.export(metrics).await;
        if let Err(error) = &result {
            self.reporter.failed(&error.to_string());
        }
        result
    }

    fn force_flush(&self) -> OTelSdkResult {
        self.exporter.force_flush()
    }

    fn shutdown_with_timeout(&self, timeout: Duration) -> OTelSdkResult {
        self.exporter.shutdown_with_timeout(timeout)
    }

    fn temporality(&self) -> Temporality {
        self.exporter.temporality()
    }
}

/// The meter provider exporting to `endpoint` every interval.
pub(super) fn start(
    settings: &Settings,
    endpoint: &str,
    resource: Resource,
    client: reqwest::blocking::Client,
) -> Result<SdkMeterProvider, Error> {
    let exporter = opentelemetry_otlp::MetricExporter::builder()
        .with_http()
        .with_protocol(Protocol::HttpBinary)
        .with_endpoint(endpoint)
        .with_timeout(settings.timeout)
        .with_headers(settings.headers.clone())
        .with_http_client(client)
        .build()
        .map_err(|e| {
            Error::new(
                ErrorKind::Configuration,
                format!("cannot build the OpenTelemetry metric exporter: {e}"),
            )
        })?;
    let exporter = Reporting {
        exporter,
        reporter: Arc::new(Reporter::new("metrics")),
    };
    let reader = PeriodicReader::builder(exporter)
        .with_interval(settings.interval)
        .build();
    Ok(SdkMeterProvider::builder()
        .with_resource(resource)
        .with_reader(reader)
        .build())
}
