//! The one rule for everything exported: every text (span and event
//! attributes, status messages, metric attributes) passes the scrubber of
//! the log lines, [`crate::secret::scrub`], with the process's secrets and
//! the invocation's: its URLs shown as [`crate::secret::display_url`]
//! shows them, every secret value `[REDACTED]`.
//!
//! Values are scrubbed where they are made, with the secrets of their
//! invocation; the export thread passes every span through it once more,
//! with the process's secrets, before it leaves the process.

use std::borrow::Cow;

use opentelemetry::{Array, KeyValue, StringValue, Value};
use opentelemetry_sdk::trace::SpanData;

use crate::record::scope;

/// `text` scrubbed with the process's secrets and `secrets`, those of an
/// invocation ([`crate::secret::invocation_secrets`]).
pub(super) fn text(text: &str, secrets: &[Box<str>]) -> String {
    let mut text = text.to_owned();
    crate::secret::scrub(&mut text, secrets);
    text
}

/// `text` scrubbed with the process's secrets and those of the invocation
/// this thread polls, if any.
pub(super) fn current(text: &str) -> String {
    let mut text = text.to_owned();
    scope::scrub_for_current(&mut text);
    text
}

/// `value` with its text, or each text of its array, scrubbed by `scrub`.
fn value(value: &Value, scrub: &impl Fn(&str) -> String) -> Option<Value> {
    match value {
        Value::String(text) => {
            let shown = scrub(text.as_str());
            (shown != text.as_str()).then(|| Value::from(shown))
        }
        Value::Array(Array::String(texts)) => {
            let shown: Vec<StringValue> = texts
                .iter()
                .map(|text| StringValue::from(scrub(text.as_str())))
                .collect();
            (shown != *texts).then_some(Value::Array(Array::String(shown)))
        }
        _ => None,
    }
}

/// Scrubs every text value of `attributes` with `scrub`.
fn each(attributes: &mut [KeyValue], scrub: &impl Fn(&str) -> String) {
    for attribute in attributes {
        if let Some(shown) = value(&attribute.value, scrub) {
            attribute.value = shown;
        }
    }
}

/// Metric attributes, scrubbed with the process's secrets and those of
/// the invocation this thread polls: what every instrument records with.
pub(super) fn metric(attributes: &[KeyValue]) -> Cow<'_, [KeyValue]> {
    let changed = attributes
        .iter()
        .any(|attribute| value(&attribute.value, &current).is_some());
    if !changed {
        return Cow::Borrowed(attributes);
    }
    let mut owned = attributes.to_vec();
    each(&mut owned, &current);
    Cow::Owned(owned)
}

/// `name` scrubbed by `scrub`, replaced only when that changed it.
fn name(name: &mut Cow<'static, str>, scrub: &impl Fn(&str) -> String) {
    let shown = scrub(name);
    if shown != *name {
        *name = Cow::Owned(shown);
    }
}

/// A finished span as it leaves the process: its name, attributes, its
/// events' names and attributes and its status message scrubbed with the
/// process's secrets (the invocation's were applied where each value was
/// made).
pub(super) fn span(span: &mut SpanData) {
    let process = |value: &str| text(value, &[]);
    name(&mut span.name, &process);
    each(&mut span.attributes, &process);
    for event in &mut span.events.events {
        name(&mut event.name, &process);
        each(&mut event.attributes, &process);
    }
    if let opentelemetry::trace::Status::Error { description } = &mut span.status {
        name(description, &process);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_text_of_a_span_is_scrubbed_before_export() {
        let secret = crate::secret::Secret::new("canary-otel-scrub-unit-71c2");
        let mut span = crate::otel::export::tests::span();
        span.attributes = vec![
            KeyValue::new(
                "url.full",
                "https://ops:pw-canary@x.example/?token=t&keep=1",
            ),
            KeyValue::new("a", format!("key {}", secret.expose())),
            KeyValue::new(
                "list",
                Value::Array(Array::String(vec![StringValue::from(
                    secret.expose().to_owned(),
                )])),
            ),
            KeyValue::new("n", 7_i64),
        ];
        span.events.events.push(opentelemetry::trace::Event::new(
            "log",
            std::time::SystemTime::now(),
            vec![KeyValue::new("message", secret.expose().to_owned())],
            0,
        ));
        span.status = opentelemetry::trace::Status::error(format!("failed: {}", secret.expose()));
        span.name = format!("GET {}", secret.expose()).into();
        super::span(&mut span);
        let text = format!("{span:?}");
        assert!(!text.contains(secret.expose()), "{text}");
        assert!(!text.contains("pw-canary"), "{text}");
        assert_eq!(
            span.attributes[0].value.as_str(),
            "https://[REDACTED]@x.example/?token=[REDACTED]&keep=1"
        );
        assert_eq!(span.attributes[1].value.as_str(), "key [REDACTED]");
        assert_eq!(span.attributes[3].value, Value::I64(7));
    }

    #[test]
    fn an_invocation_s_secrets_are_scrubbed_too() {
        let secrets = crate::secret::invocation_secrets(["canary-mode-4a1e"]);
        assert_eq!(text("canary-mode-4a1e", &secrets), "[REDACTED]");
        assert_eq!(text("canary-mode-4a1e", &[]), "canary-mode-4a1e");
        let plain = [KeyValue::new("faas.name", "f")];
        assert!(matches!(metric(&plain), Cow::Borrowed(_)));
    }
}
