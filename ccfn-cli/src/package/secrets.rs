//! The secrets of the environment and of the command line, registered
//! with the scrubber; and a record's sensitive members redacted.

use super::*;

/// Registers every secret value of the environment with the scrubber:
/// the values of secret variables, each header value of the OTLP headers
/// variables, the password of every URL a variable holds; returns how
/// many.
pub(crate) fn register_secrets() -> usize {
    register_environment(true)
}

/// Registers the secrets every command keeps out of what it shows: the
/// values of ccfn's secret settings and of the variables `CCFN_SECRETS`
/// names, each OTLP header value, the password of every URL in a
/// variable or an argument. (A variable that is a secret only by its
/// name is left to the commands that send what they write elsewhere:
/// `AUTH_MODE=production` would hide every `production` of the logs.)
pub(crate) fn register_known_secrets() -> usize {
    register_environment(false) + register_argument_secrets()
}

/// Registers the secrets of the environment: those of
/// [`register_known_secrets`], and with `by_name` every variable with a
/// sensitive name too.
fn register_environment(by_name: bool) -> usize {
    let declared: Vec<String> = std::env::var("CCFN_SECRETS")
        .unwrap_or_default()
        .split(',')
        .map(|name| name.trim().to_owned())
        .filter(|name| !name.is_empty())
        .collect();
    let mut count = 0;
    for (name, value) in std::env::vars_os() {
        let (Some(name), Some(value)) = (name.to_str(), value.to_str()) else {
            continue;
        };
        let secret = if by_name {
            is_secret(name, &declared)
        } else {
            is_known_secret(name, &declared)
        };
        if secret && !value.is_empty() {
            // Made for the scrubber, which registers every secret made.
            drop(Secret::new(value));
            count += 1;
        }
        if name.starts_with("OTEL_EXPORTER_OTLP_") && name.ends_with("HEADERS") {
            count += register_otlp_headers(value);
        }
        count += record::register_url_secrets(value);
    }
    count
}

/// Registers the value of each header of an OTLP headers variable
/// (`name=value` pairs separated by commas, values percent-encoded, as
/// the OpenTelemetry specification writes them), as written and decoded;
/// returns how many.
fn register_otlp_headers(headers: &str) -> usize {
    let mut count = 0;
    for pair in headers.split(',') {
        let Some((_, value)) = pair.split_once('=') else {
            continue;
        };
        let value = value.trim();
        let decoded: String =
            form_urlencoded::parse(format!("v={}", value.replace('+', "%2B")).as_bytes())
                .map(|(_, v)| v.into_owned())
                .next()
                .unwrap_or_default();
        for value in [value, decoded.as_str()] {
            if value.chars().count() >= record::MIN_SCRUBBED_LEN {
                drop(Secret::new(value));
                count += 1;
            }
        }
    }
    count
}

/// Every secret of the command line: the password and the sensitive query
/// values of a URL given as an argument (`--url https://user:password@host`,
/// `--url https://host/?token=T`).
pub(crate) fn register_argument_secrets() -> usize {
    std::env::args()
        .map(|arg| record::register_url_secrets(&arg))
        .sum()
}

/// Writes `[REDACTED]` for the value of every member of `value` whose
/// name is sensitive, at any depth, and registers each such value with
/// the scrubber (so that it is scrubbed wherever else it shows); whether
/// any was.
pub(super) fn redact_sensitive(value: &mut Value) -> bool {
    let mut redacted = false;
    match value {
        Value::Object(map) => {
            for (name, member) in map.iter_mut() {
                if is_sensitive_name(name) {
                    if member.as_str() != Some(record::REDACTED) {
                        register_value(member);
                        *member = Value::from(record::REDACTED);
                        redacted = true;
                    }
                } else {
                    redacted |= redact_sensitive(member);
                }
            }
        }
        Value::Array(items) => {
            for item in items {
                redacted |= redact_sensitive(item);
            }
        }
        _ => {}
    }
    redacted
}

/// Registers every text `value` holds (itself, its strings, its JSON).
fn register_value(value: &Value) {
    match value {
        Value::String(text) => drop(Secret::new(text.as_str())),
        Value::Null | Value::Bool(_) => {}
        Value::Number(n) => drop(Secret::new(n.to_string())),
        Value::Array(_) | Value::Object(_) => {
            drop(Secret::new(value.to_string()));
            for item in value
                .as_array()
                .into_iter()
                .flatten()
                .chain(value.as_object().into_iter().flat_map(|m| m.values()))
            {
                register_value(item);
            }
        }
    }
}

/// Whether the variable `name` holds a secret. `PWD` and `OLDPWD` (the
/// shell's working folders, whose names contain `pwd`) do not.
pub(super) fn is_secret(name: &str, declared: &[String]) -> bool {
    (is_sensitive_name(name) && !matches!(name, "PWD" | "OLDPWD"))
        || is_known_secret(name, declared)
}

/// Whether the variable `name` is one of ccfn's secret settings or named
/// in `CCFN_SECRETS`.
fn is_known_secret(name: &str, declared: &[String]) -> bool {
    declared.iter().any(|d| d == name)
        || ccfn_core::config::SETTINGS
            .iter()
            .any(|s| s.name() == name && s.is_secret())
}
