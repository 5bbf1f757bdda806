//! The export settings, read from the standard `OTEL_*` variables through
//! ccfn's configuration catalogue.

use std::collections::HashMap;
use std::time::Duration;

use opentelemetry::KeyValue;
use opentelemetry_sdk::trace::Sampler;
use opentelemetry_sdk::Resource;

use crate::config::{self, ConfigError, Source};

/// The export settings, read from the `OTEL_*` variables.
#[derive(Clone, Debug)]
pub(super) struct Settings {
    pub(super) traces: Option<String>,
    pub(super) metrics: Option<String>,
    pub(super) headers: HashMap<String, String>,
    pub(super) timeout: Duration,
    pub(super) service_name: String,
    pub(super) resource: Vec<(String, String)>,
    pub(super) sampler: &'static str,
    pub(super) ratio: f64,
    pub(super) queue: usize,
    pub(super) delay: Duration,
    pub(super) batch: usize,
    pub(super) interval: Duration,
}

impl Settings {
    /// The settings `source` has; `None` when nothing is to be exported.
    pub(super) fn from_source<S: Source + ?Sized>(
        source: &S,
    ) -> Result<Option<Settings>, ConfigError> {
        config::OTEL_EXPORTER_OTLP_PROTOCOL.choice(source)?;
        let base = config::OTEL_EXPORTER_OTLP_ENDPOINT.url(source)?;
        let signal = |own: &'static config::Setting, path: &str| -> Result<_, ConfigError> {
            Ok(own
                .url(source)?
                .or_else(|| base.as_ref().map(|base| format!("{base}{path}"))))
        };
        let traces = signal(&config::OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, "/v1/traces")?;
        let metrics = signal(&config::OTEL_EXPORTER_OTLP_METRICS_ENDPOINT, "/v1/metrics")?;
        let headers = match config::OTEL_EXPORTER_OTLP_HEADERS.secret_value(source) {
            Some(secret) => pairs(secret.expose(), &config::OTEL_EXPORTER_OTLP_HEADERS, true)?,
            None => Vec::new(),
        };
        // The whole value is a secret, and so is each header's value on
        // its own (`api-key=...`, `Authorization=Bearer ...`): wherever
        // one shows up alone, it is scrubbed.
        for (_, value) in &headers {
            drop(crate::secret::Secret::new(value.as_str()));
        }
        let resource = match config::OTEL_RESOURCE_ATTRIBUTES.text(source) {
            Some(text) => pairs(text, &config::OTEL_RESOURCE_ATTRIBUTES, false)?,
            None => Vec::new(),
        };
        let settings = Settings {
            traces,
            metrics,
            headers: headers.into_iter().collect(),
            timeout: config::OTEL_EXPORTER_OTLP_TIMEOUT
                .millis(source)?
                .unwrap_or(Duration::from_secs(10)),
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
        assert_eq!(
            settings.traces.as_deref(),
            Some("http://127.0.0.1:4318/v1/traces")
        );
        assert_eq!(
            settings.metrics.as_deref(),
            Some("http://127.0.0.1:4318/v1/metrics")
        );
        // A signal's own endpoint is used as it is.
        let env = Env::from_vars([(
            "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
            "https://collector.example.com/otlp/traces",
        )]);
        let settings = Settings::from_source(&env).unwrap().unwrap();
        assert_eq!(
            settings.traces.as_deref(),
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
        assert_eq!(settings.headers["x-api-key"], "abc=123");
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
