//! The export settings, read from the standard `OTEL_*` variables through
//! ccfn's configuration catalogue.

use std::collections::HashMap;
use std::time::Duration;

use opentelemetry::KeyValue;
use opentelemetry_sdk::metrics::Temporality;
use opentelemetry_sdk::trace::Sampler;
use opentelemetry_sdk::Resource;

use crate::config::{self, ConfigError, Source};

/// The export settings, read from the `OTEL_*` variables.
#[derive(Clone, Debug)]
pub(super) struct Settings {
    /// Where traces go and how; `None` when they are not exported.
    pub(super) traces: Option<Signal>,
    /// Where metrics go and how; `None` when they are not exported.
    pub(super) metrics: Option<Signal>,
    pub(super) service_name: String,
    pub(super) resource: Vec<(String, String)>,
    pub(super) sampler: &'static str,
    pub(super) ratio: f64,
    pub(super) queue: usize,
    pub(super) delay: Duration,
    pub(super) batch: usize,
    pub(super) interval: Duration,
    /// How sums and histograms are exported.
    pub(super) temporality: Temporality,
}

/// How one signal is exported: each option the specification's
/// `OTEL_EXPORTER_OTLP_<SIGNAL>_*` variable gives, else its
/// `OTEL_EXPORTER_OTLP_*` one ("each configuration option MUST be
/// overridable by a signal specific option").
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Signal {
    /// The full URL its exports are sent to.
    pub(super) endpoint: String,
    /// The headers sent with each export (a collector's API key).
    pub(super) headers: HashMap<String, String>,
    /// How long one export may take.
    pub(super) timeout: Duration,
    /// Whether each export's body is compressed with gzip.
    pub(super) gzip: bool,
}

/// One signal's variables.
struct SignalVars {
    endpoint: &'static config::Setting,
    path: &'static str,
    protocol: &'static config::Setting,
    headers: &'static config::Setting,
    compression: &'static config::Setting,
    timeout: &'static config::Setting,
}

const TRACES: SignalVars = SignalVars {
    endpoint: &config::OTEL_EXPORTER_OTLP_TRACES_ENDPOINT,
    path: "/v1/traces",
    protocol: &config::OTEL_EXPORTER_OTLP_TRACES_PROTOCOL,
    headers: &config::OTEL_EXPORTER_OTLP_TRACES_HEADERS,
    compression: &config::OTEL_EXPORTER_OTLP_TRACES_COMPRESSION,
    timeout: &config::OTEL_EXPORTER_OTLP_TRACES_TIMEOUT,
};

const METRICS: SignalVars = SignalVars {
    endpoint: &config::OTEL_EXPORTER_OTLP_METRICS_ENDPOINT,
    path: "/v1/metrics",
    protocol: &config::OTEL_EXPORTER_OTLP_METRICS_PROTOCOL,
    headers: &config::OTEL_EXPORTER_OTLP_METRICS_HEADERS,
    compression: &config::OTEL_EXPORTER_OTLP_METRICS_COMPRESSION,
    timeout: &config::OTEL_EXPORTER_OTLP_METRICS_TIMEOUT,
};

impl Signal {
    /// The signal `vars` names, as `source` sets it, with `general` the
    /// headers of `OTEL_EXPORTER_OTLP_HEADERS`; `None` when it has no
    /// endpoint. Every variable is checked, whether its signal is
    /// exported or not: a mistake is found at start, not when a
    /// collector is added.
    fn from_source<S: Source + ?Sized>(
        source: &S,
        vars: &SignalVars,
        base: Option<&str>,
        general: &HashMap<String, String>,
    ) -> Result<Option<Signal>, ConfigError> {
        vars.protocol.choice(source)?;
        let endpoint = vars
            .endpoint
            .url(source)?
            .or_else(|| base.map(|base| format!("{base}{}", vars.path)));
        let headers = match vars.headers.secret_value(source) {
            Some(own) => headers(own.expose(), vars.headers)?,
            None => general.clone(),
        };
        let timeout = match vars.timeout.millis(source)? {
            Some(own) => own,
            None => config::OTEL_EXPORTER_OTLP_TIMEOUT
                .millis(source)?
                .unwrap_or(Duration::from_secs(10)),
        };
        let compression = match vars.compression.choice(source)? {
            Some(own) => own,
            None => config::OTEL_EXPORTER_OTLP_COMPRESSION
                .choice(source)?
                .unwrap_or("none"),
        };
        Ok(endpoint.map(|endpoint| Signal {
            endpoint,
            headers,
            timeout,
            gzip: compression == "gzip",
        }))
    }
}

/// The headers `setting` (a secret) holds in `text`: `name=value` pairs
/// as [`pairs`] reads them, each name and value one HTTP allows. The whole
/// value is a secret, and so is each header's value on its own, as written
/// and percent-decoded (`api-key=...`, `Authorization=Bearer%20...`):
/// wherever one shows up alone, it is scrubbed. An error quotes neither
/// names nor values.
fn headers(
    text: &str,
    setting: &'static config::Setting,
) -> Result<HashMap<String, String>, ConfigError> {
    for (_, written) in text.split(',').filter_map(|pair| pair.split_once('=')) {
        drop(crate::secret::Secret::new(written.trim()));
    }
    let pairs = pairs(text, setting, true)?;
    for (_, value) in &pairs {
        drop(crate::secret::Secret::new(value.as_str()));
    }
    let mut headers = HashMap::with_capacity(pairs.len());
    for (at, (name, value)) in pairs.into_iter().enumerate() {
        let problem = if reqwest::header::HeaderName::try_from(name.as_str()).is_err() {
            "name is not an HTTP header name"
        } else if reqwest::header::HeaderValue::try_from(value.as_str()).is_err() {
            "value is not an HTTP header value (it holds a control character)"
        } else {
            headers.insert(name, value);
            continue;
        };
        return Err(setting.problem(format!(
            "{} (a secret, its value not shown): pair {}'s {problem}",
            setting.name(),
            at + 1
        )));
    }
    Ok(headers)
}

/// What to do instead of setting a CA certificate for the collector.
const USE_SSL_CERT_FILE: &str = "put the collector's CA certificate in the PEM file `SSL_CERT_FILE` names, which every ccfn client trusts";
/// What to do instead of setting a client certificate or key.
const NO_CLIENT_CERTIFICATE: &str =
    "ccfn sends no client certificate (mutual TLS) to a collector; unset it";

/// The specification's TLS options, which ccfn does not read, each with
/// what to do instead: set, each is refused at start, not ignored, since a
/// certificate left unused shows up only later, as exports refused by TLS.
const NOT_READ: [(&config::Setting, &str); 9] = [
    (&config::OTEL_EXPORTER_OTLP_CERTIFICATE, USE_SSL_CERT_FILE),
    (
        &config::OTEL_EXPORTER_OTLP_TRACES_CERTIFICATE,
        USE_SSL_CERT_FILE,
    ),
    (
        &config::OTEL_EXPORTER_OTLP_METRICS_CERTIFICATE,
        USE_SSL_CERT_FILE,
    ),
    (
        &config::OTEL_EXPORTER_OTLP_CLIENT_KEY,
        NO_CLIENT_CERTIFICATE,
    ),
    (
        &config::OTEL_EXPORTER_OTLP_TRACES_CLIENT_KEY,
        NO_CLIENT_CERTIFICATE,
    ),
    (
        &config::OTEL_EXPORTER_OTLP_METRICS_CLIENT_KEY,
        NO_CLIENT_CERTIFICATE,
    ),
    (
        &config::OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE,
        NO_CLIENT_CERTIFICATE,
    ),
    (
        &config::OTEL_EXPORTER_OTLP_TRACES_CLIENT_CERTIFICATE,
        NO_CLIENT_CERTIFICATE,
    ),
    (
        &config::OTEL_EXPORTER_OTLP_METRICS_CLIENT_CERTIFICATE,
        NO_CLIENT_CERTIFICATE,
    ),
];

/// An error for the first of [`NOT_READ`] `source` sets, saying what to
/// do instead.
fn not_read<S: Source + ?Sized>(source: &S) -> Result<(), ConfigError> {
    match NOT_READ
        .into_iter()
        .find(|(setting, _)| setting.text(source).is_some())
    {
        Some((setting, instead)) => Err(setting.problem(format!(
            "{} is set, but ccfn does not read it: {instead}",
            setting.name()
        ))),
        None => Ok(()),
    }
}

impl Settings {
    /// The settings `source` has; `None` when nothing is to be exported.
    pub(super) fn from_source<S: Source + ?Sized>(
        source: &S,
    ) -> Result<Option<Settings>, ConfigError> {
        not_read(source)?;
        config::OTEL_EXPORTER_OTLP_PROTOCOL.choice(source)?;
        let base = config::OTEL_EXPORTER_OTLP_ENDPOINT.url(source)?;
        let general = match config::OTEL_EXPORTER_OTLP_HEADERS.secret_value(source) {
            Some(secret) => headers(secret.expose(), &config::OTEL_EXPORTER_OTLP_HEADERS)?,
            None => HashMap::new(),
        };
        let traces = Signal::from_source(source, &TRACES, base.as_deref(), &general)?;
        let metrics = Signal::from_source(source, &METRICS, base.as_deref(), &general)?;
        let resource = match config::OTEL_RESOURCE_ATTRIBUTES.text(source) {
            Some(text) => pairs(text, &config::OTEL_RESOURCE_ATTRIBUTES, false)?,
            None => Vec::new(),
        };
        let settings = Settings {
            traces,
            metrics,
            service_name: config::OTEL_SERVICE_NAME
                .text(source)
                .unwrap_or("ccfn")
                .to_owned(),
            resource,
            sampler: config::OTEL_TRACES_SAMPLER
                .choice(source)?
                .unwrap_or("parentbased_always_on"),
            ratio: config::OTEL_TRACES_SAMPLER_ARG
                .ratio(source)?
                .unwrap_or(1.0),
            queue: config::OTEL_BSP_MAX_QUEUE_SIZE
                .count(source)?
                .unwrap_or(2048),
            delay: config::OTEL_BSP_SCHEDULE_DELAY
                .millis(source)?
                .unwrap_or(Duration::from_secs(5)),
            batch: config::OTEL_BSP_MAX_EXPORT_BATCH_SIZE
                .count(source)?
                .unwrap_or(512),
            interval: config::OTEL_METRIC_EXPORT_INTERVAL
                .millis(source)?
                .unwrap_or(Duration::from_secs(60)),
            temporality: match config::OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE
                .choice(source)?
            {
                Some("delta") => Temporality::Delta,
                Some("lowmemory") => Temporality::LowMemory,
                _ => Temporality::Cumulative,
            },
        };
        let off = config::OTEL_SDK_DISABLED.flag(source)
            || (settings.traces.is_none() && settings.metrics.is_none());
        Ok((!off).then_some(settings))
    }

    pub(super) fn sampler(&self) -> Sampler {
        let ratio = || Sampler::TraceIdRatioBased(self.ratio);
        match self.sampler {
            "always_on" => Sampler::AlwaysOn,
            "always_off" => Sampler::AlwaysOff,
            "traceidratio" => ratio(),
            "parentbased_always_off" => Sampler::ParentBased(Box::new(Sampler::AlwaysOff)),
            "parentbased_traceidratio" => Sampler::ParentBased(Box::new(ratio())),
            _ => Sampler::ParentBased(Box::new(Sampler::AlwaysOn)),
        }
    }

    pub(super) fn resource(&self) -> Resource {
        let mut builder = Resource::builder_empty()
            .with_detector(Box::new(
                opentelemetry_sdk::resource::TelemetryResourceDetector,
            ))
            .with_attributes(
                self.resource
                    .iter()
                    .map(|(key, value)| KeyValue::new(key.clone(), value.clone())),
            );
        builder = builder.with_service_name(self.service_name.clone());
        builder.build()
    }
}

/// `name=value` pairs separated by commas, values percent-decoded, as the
/// OpenTelemetry variables write them; a value of a `secret` variable is
/// never quoted in an error.
fn pairs(
    text: &str,
    setting: &'static config::Setting,
    secret: bool,
) -> Result<Vec<(String, String)>, ConfigError> {
    let mut out = Vec::new();
    for pair in text
        .split(',')
        .map(str::trim)
        .filter(|pair| !pair.is_empty())
    {
        let parsed = pair.split_once('=').and_then(|(name, value)| {
            let name = name.trim();
            let value = percent_decode(value.trim())?;
            (!name.is_empty()).then(|| (name.to_owned(), value))
        });
        match parsed {
            Some(pair) => out.push(pair),
            None => {
                let shown = if secret {
                    format!("{} (a secret, its value not shown)", setting.name())
                } else {
                    format!("{}={text:?}: `{pair}` is not a pair", setting.name())
                };
                return Err(setting.problem(format!(
                    "{shown}: expected `name=value` pairs separated by commas, values percent-encoded"
                )));
            }
        }
    }
    Ok(out)
}

/// `text` with its `%XX` escapes decoded; `None` when one is broken or the
/// result is not UTF-8.
fn percent_decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut at = 0;
    while at < bytes.len() {
        if bytes[at] == b'%' {
            let hex = text.get(at + 1..at + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            at += 3;
        } else {
            out.push(bytes[at]);
            at += 1;
        }
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Env;

    #[test]
    fn endpoints_follow_the_specification() {
        let env = Env::from_vars([("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:4318/")]);
        let settings = Settings::from_source(&env).unwrap().unwrap();
        let endpoint = |signal: &Option<Signal>| signal.as_ref().map(|s| s.endpoint.clone());
        assert_eq!(
            endpoint(&settings.traces).as_deref(),
            Some("http://127.0.0.1:4318/v1/traces")
        );
        assert_eq!(
            endpoint(&settings.metrics).as_deref(),
            Some("http://127.0.0.1:4318/v1/metrics")
        );
        // A signal's own endpoint is used as it is.
        let env = Env::from_vars([(
            "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
            "https://collector.example.com/otlp/traces",
        )]);
        let settings = Settings::from_source(&env).unwrap().unwrap();
        assert_eq!(
            endpoint(&settings.traces).as_deref(),
            Some("https://collector.example.com/otlp/traces")
        );
        assert_eq!(settings.metrics, None);
        let off = Env::from_vars([
            ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:4318"),
            ("OTEL_SDK_DISABLED", "true"),
        ]);
        assert!(Settings::from_source(&off).unwrap().is_none());
    }

    #[test]
    fn pairs_are_percent_decoded_and_a_secret_never_quoted() {
        let env = Env::from_vars([
            ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:4318"),
            (
                "OTEL_RESOURCE_ATTRIBUTES",
                "deployment.environment=prod, team=contact%20center",
            ),
            ("OTEL_EXPORTER_OTLP_HEADERS", "x-api-key=abc%3D123"),
        ]);
        let settings = Settings::from_source(&env).unwrap().unwrap();
        assert_eq!(
            settings.resource,
            [
                ("deployment.environment".to_owned(), "prod".to_owned()),
                ("team".to_owned(), "contact center".to_owned())
            ]
        );
        assert_eq!(settings.traces.unwrap().headers["x-api-key"], "abc=123");
        // Each header's value is scrubbed on its own, not only the whole.
        let env = Env::from_vars([
            ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:4318"),
            (
                "OTEL_EXPORTER_OTLP_HEADERS",
                "x-api-key=canary-header-one-51d0,authorization=Bearer%20canary-header-two-51d0",
            ),
        ]);
        Settings::from_source(&env).unwrap().unwrap();
        assert_eq!(
            crate::secret::scrub_secrets(
                "sent canary-header-one-51d0 and Bearer canary-header-two-51d0"
            ),
            "sent [REDACTED] and [REDACTED]"
        );
        let env = Env::from_vars([
            ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:4318"),
            ("OTEL_EXPORTER_OTLP_HEADERS", "api-key-canary-7f3a"),
        ]);
        let error = Settings::from_source(&env).unwrap_err().to_string();
        assert!(!error.contains("canary"), "{error}");
        assert!(error.starts_with("OTEL_EXPORTER_OTLP_HEADERS"), "{error}");
    }

    /// "Each configuration option MUST be overridable by a signal
    /// specific option" (the OTLP exporter's specification): headers,
    /// timeout and compression each come from the signal's own variable
    /// when it is set, else from the general one.
    #[test]
    fn each_signal_s_own_options_win() {
        let env = Env::from_vars([
            ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:4318"),
            (
                "OTEL_EXPORTER_OTLP_HEADERS",
                "x-api-key=general-key-canary-41aa",
            ),
            (
                "OTEL_EXPORTER_OTLP_TRACES_HEADERS",
                "x-api-key=traces-key-canary-41aa,x-team=cc",
            ),
            ("OTEL_EXPORTER_OTLP_TIMEOUT", "2000"),
            ("OTEL_EXPORTER_OTLP_METRICS_TIMEOUT", "500"),
            ("OTEL_EXPORTER_OTLP_COMPRESSION", "gzip"),
            ("OTEL_EXPORTER_OTLP_METRICS_COMPRESSION", "NONE"),
            ("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "http/protobuf"),
        ]);
        let settings = Settings::from_source(&env).unwrap().unwrap();
        let traces = settings.traces.unwrap();
        let metrics = settings.metrics.unwrap();
        assert_eq!(
            traces.headers,
            HashMap::from([
                ("x-api-key".to_owned(), "traces-key-canary-41aa".to_owned()),
                ("x-team".to_owned(), "cc".to_owned())
            ])
        );
        assert_eq!(
            metrics.headers,
            HashMap::from([("x-api-key".to_owned(), "general-key-canary-41aa".to_owned())])
        );
        assert_eq!(traces.timeout, Duration::from_secs(2));
        assert_eq!(metrics.timeout, Duration::from_millis(500));
        assert!(traces.gzip);
        assert!(!metrics.gzip);
        // Every header value is a secret, the signal's own too.
        assert_eq!(
            crate::secret::scrub_secrets("traces-key-canary-41aa general-key-canary-41aa"),
            "[REDACTED] [REDACTED]"
        );
    }

    /// A signal's variables are checked even when that signal is not
    /// exported, and its headers held as secrets: a mistake or a key shows
    /// up at start, not when a collector is added.
    #[test]
    fn a_signal_s_variables_are_checked_and_its_headers_held_unexported() {
        let env = Env::from_vars([
            (
                "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
                "http://127.0.0.1:4318/v1/traces",
            ),
            (
                "OTEL_EXPORTER_OTLP_METRICS_HEADERS",
                "x-api-key=metrics-key-canary-77b2",
            ),
        ]);
        let settings = Settings::from_source(&env).unwrap().unwrap();
        assert_eq!(settings.metrics, None);
        assert_eq!(
            crate::secret::scrub_secrets("metrics-key-canary-77b2"),
            "[REDACTED]"
        );
        let refused = |name: &str, value: &str| {
            let env = Env::from_vars([
                ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:4318"),
                (name, value),
            ]);
            Settings::from_source(&env).unwrap_err().to_string()
        };
        assert_eq!(
            refused("OTEL_EXPORTER_OTLP_METRICS_PROTOCOL", "grpc"),
            "OTEL_EXPORTER_OTLP_METRICS_PROTOCOL=\"grpc\": expected `http/protobuf`"
        );
        assert_eq!(
            refused("OTEL_EXPORTER_OTLP_COMPRESSION", "zstd"),
            "OTEL_EXPORTER_OTLP_COMPRESSION=\"zstd\": expected `gzip` or `none`"
        );
        assert!(refused("OTEL_EXPORTER_OTLP_TRACES_TIMEOUT", "0")
            .starts_with("OTEL_EXPORTER_OTLP_TRACES_TIMEOUT=\"0\""));
        let error = refused("OTEL_EXPORTER_OTLP_TRACES_HEADERS", "key-canary-c90d");
        assert!(!error.contains("canary"), "{error}");
        assert!(
            error.starts_with("OTEL_EXPORTER_OTLP_TRACES_HEADERS"),
            "{error}"
        );
    }

    /// The TLS options ccfn does not read are refused at start, each with
    /// what to do instead; an empty one is unset.
    #[test]
    fn tls_options_ccfn_does_not_read_are_refused() {
        for name in NOT_READ.map(|(setting, _)| setting.name()) {
            let env = Env::from_vars([
                (
                    "OTEL_EXPORTER_OTLP_ENDPOINT",
                    "https://collector.example.com",
                ),
                (name, "/etc/otel/file.pem"),
            ]);
            let error = Settings::from_source(&env).unwrap_err();
            assert_eq!(error.variable(), Some(name));
            let text = error.to_string();
            assert!(
                text.starts_with(&format!("{name} is set, but ccfn does not read it: ")),
                "{text}"
            );
            assert!(!text.contains("/etc/otel"), "{text}");
            let blank = Env::from_vars([
                (
                    "OTEL_EXPORTER_OTLP_ENDPOINT",
                    "https://collector.example.com",
                ),
                (name, " "),
            ]);
            assert!(Settings::from_source(&blank).is_ok());
        }
        let env = Env::from_vars([("OTEL_EXPORTER_OTLP_CERTIFICATE", "/ca.pem")]);
        assert!(Settings::from_source(&env)
            .unwrap_err()
            .to_string()
            .contains("SSL_CERT_FILE"));
    }

    /// ccfn's export settings against the specification's table of OTLP
    /// exporter options (`tests/otlp`): each OTLP/HTTP option is read for
    /// traces and metrics, generally and per signal (a bad value under any
    /// of its names is refused, naming that name), each value the
    /// specification names is taken or refused as documented, the TLS
    /// options are refused, and the logs' and gRPC's are not settings.
    #[test]
    fn every_option_of_the_specification_is_read_or_refused() {
        let table: serde_json::Value =
            serde_json::from_str(include_str!("../../tests/otlp/exporter-options.json")).unwrap();
        let read = |name: &str, value: &str| {
            let env = Env::from_vars([
                ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:4318"),
                (name, value),
            ]);
            Settings::from_source(&env)
        };
        let refused = |name: &str, value: &str| match read(name, value) {
            Ok(_) => panic!("{name}={value:?} was taken"),
            Err(error) => assert_eq!(error.variable(), Some(name), "{error}"),
        };
        let mut checked = 0;
        for option in table["options"].as_array().unwrap() {
            let title = option["option"].as_str().unwrap();
            let values: Vec<&str> = option["values"]
                .as_array()
                .map(|values| values.iter().filter_map(|v| v.as_str()).collect())
                .unwrap_or_default();
            for name in option["env"].as_array().unwrap() {
                let name = name.as_str().unwrap();
                if name.contains("_LOGS_") || matches!(title, "Endpoint (OTLP/gRPC)" | "Insecure") {
                    if title != "Endpoint (OTLP/gRPC)" {
                        assert!(config::setting(name).is_none(), "{name}");
                    }
                    continue;
                }
                checked += 1;
                match title {
                    "Endpoint (OTLP/HTTP)" => {
                        assert!(config::setting(name).is_some(), "{name}");
                        refused(name, "collector:4318");
                    }
                    "Headers" => {
                        assert!(config::setting(name).is_some_and(config::Setting::is_secret));
                        refused(name, "a-key-without-a-name");
                    }
                    "Timeout" => {
                        assert!(config::setting(name).is_some(), "{name}");
                        refused(name, "0");
                        assert!(read(name, "2500").is_ok());
                    }
                    "Compression" | "Protocol" => {
                        assert!(config::setting(name).is_some(), "{name}");
                        refused(name, "brotli");
                        for value in &values {
                            let taken = ["none", "gzip", "http/protobuf"].contains(value);
                            match read(name, value) {
                                Ok(_) => assert!(taken, "{name}={value}"),
                                Err(error) => {
                                    assert!(!taken, "{name}={value}: {error}");
                                    assert_eq!(error.variable(), Some(name));
                                }
                            }
                        }
                    }
                    _ => {
                        assert!(
                            NOT_READ.iter().any(|(setting, _)| setting.name() == name),
                            "{title}: {name}"
                        );
                        refused(name, "/etc/otel/file.pem");
                    }
                }
            }
        }
        // Eight options, general, traces and metrics each.
        assert_eq!(checked, 8 * 3);
    }

    /// The general headers are checked and held even when both signals
    /// have their own; a header HTTP would refuse is refused at start,
    /// quoting neither its name nor its value; a value is held as written
    /// and as decoded.
    #[test]
    fn headers_are_checked_held_and_never_quoted() {
        let env = Env::from_vars([
            ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:4318"),
            (
                "OTEL_EXPORTER_OTLP_HEADERS",
                "x-api-key=general-canary-e01b%20two",
            ),
            ("OTEL_EXPORTER_OTLP_TRACES_HEADERS", "x-api-key=t"),
            ("OTEL_EXPORTER_OTLP_METRICS_HEADERS", "x-api-key=m"),
        ]);
        Settings::from_source(&env).unwrap().unwrap();
        assert_eq!(
            crate::secret::scrub_secrets("general-canary-e01b%20two and general-canary-e01b two"),
            "[REDACTED] and [REDACTED]"
        );
        for (name, text, problem) in [
            (
                "OTEL_EXPORTER_OTLP_HEADERS",
                "x-ok=1,bad name-canary-7d=v",
                "pair 2's name is not an HTTP header name",
            ),
            (
                "OTEL_EXPORTER_OTLP_TRACES_HEADERS",
                "x-key=line%0Abreak-canary-7d",
                "pair 1's value is not an HTTP header value",
            ),
            (
                "OTEL_EXPORTER_OTLP_METRICS_HEADERS",
                "x-key=a-canary-7d,=b",
                "expected `name=value` pairs",
            ),
        ] {
            let env = Env::from_vars([
                ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:4318"),
                (name, text),
            ]);
            let error = Settings::from_source(&env).unwrap_err();
            assert_eq!(error.variable(), Some(name));
            let error = error.to_string();
            assert!(error.contains(problem), "{error}");
            assert!(!error.contains("canary"), "{error}");
        }
    }

    #[test]
    fn samplers_are_the_specification_s() {
        let sampler = |name: &str| {
            let env = Env::from_vars([
                ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:4318"),
                ("OTEL_TRACES_SAMPLER", name),
                ("OTEL_TRACES_SAMPLER_ARG", "0.25"),
            ]);
            format!(
                "{:?}",
                Settings::from_source(&env).unwrap().unwrap().sampler()
            )
        };
        assert_eq!(sampler("always_off"), "AlwaysOff");
        assert_eq!(sampler("traceidratio"), "TraceIdRatioBased(0.25)");
        assert_eq!(
            sampler("parentbased_traceidratio"),
            "ParentBased(TraceIdRatioBased(0.25))"
        );
        assert_eq!(sampler("PARENTBASED_ALWAYS_ON"), "ParentBased(AlwaysOn)");
    }
}
